/* libFuzzer target for the TSV reader (runtime/formats/tsv.c): numeric tables that scenes
 * (grain placements), contact-path (paths) and energyfit read.
 *
 * The input is read as a stream (fmemopen: the reader cannot know its size, as with a pipe).
 * Properties checked besides "no crash, no leak, no UB": an accepted table has rows and
 * columns, finite values, line numbers that increase, and header names that are non-empty
 * fields without blanks; a refused one is left empty and says why. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "ldem/tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;   /* glibc refuses a zero-sized buffer */
    ldem_table t;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_tsv_read(fp, "fuzz.tsv", &t, &err);
    fclose(fp);
    if (rc) {
        fuzz_check_error(rc, &err);
        fuzz_require(t.values == NULL && t.lines == NULL && t.names == NULL && t.nrows == 0);
        return 0;
    }
    fuzz_require(t.nrows > 0 && t.ncols > 0);
    for (size_t r = 0; r < t.nrows; r++) {
        fuzz_require(t.lines[r] >= 1 && (r == 0 || t.lines[r] > t.lines[r - 1]));
        for (size_t c = 0; c < t.ncols; c++)
            fuzz_require(isfinite(t.values[r * t.ncols + c]));
    }
    for (size_t c = 0; t.names && c < t.ncols; c++) {
        fuzz_require(t.names[c][0] != '\0' && (c > 0 || t.names[0][0] != '#'));
        fuzz_require(strpbrk(t.names[c], " \t\r\n") == NULL);
        long k = ldem_table_column(&t, t.names[c]);
        fuzz_require(k >= 0 && (size_t)k <= c);   /* the first column of that name */
    }
    ldem_table_free(&t);
    return 0;
}
