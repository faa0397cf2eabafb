/* ckpt_same A B — whether two demrun checkpoints hold the same state: every section's payload
 * the same bytes, in the same order, but for the header's table of history pools (capacity
 * and peak per pool, docs/checkpoint.md offset 152 on), which describes memory: a gathered
 * checkpoint (docs/mpi.md) gives it a rank-independent meaning that one process's file does
 * not have. Exit 0 when the same, 1 (naming the first difference) when not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"

enum { MAX_SECTIONS = 32, POOLS_AT = 152 };

typedef struct file {
    size_t n;
    ldem_section s[MAX_SECTIONS];
} file;

static int read_file(const char *path, file *f)
{
    ldem_err err;
    ldem_err_clear(&err);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "ckpt_same: cannot open %s\n", path);
        return 1;
    }
    ldem_bundle_reader *r = NULL;
    int have = 0, end = 0, rc = 0;
    uint32_t version;
    if (ldem_bundle_reader_open(&r, fp, path, &err) ||
        ldem_bundle_reader_next(r, &have, &version, &err) || !have)
        rc = 1;
    while (!rc && f->n < MAX_SECTIONS) {
        if (ldem_bundle_reader_section(r, &f->s[f->n], &end, &err)) {
            rc = 1;
            break;
        }
        if (end)
            break;
        f->n++;
    }
    if (!rc && !end)
        rc = 1, snprintf(err.msg, sizeof err.msg, "more than %d sections", MAX_SECTIONS);
    if (rc)
        fprintf(stderr, "ckpt_same: %s: %s\n", path, err.msg);
    ldem_bundle_reader_close(r);
    fclose(fp);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ckpt_same A.ldc B.ldc\n");
        return 2;
    }
    static file a, b;
    if (read_file(argv[1], &a) || read_file(argv[2], &b))
        return 2;
    int same = a.n == b.n;
    if (!same)
        printf("ckpt_same: %zu sections against %zu\n", a.n, b.n);
    for (size_t k = 0; same && k < a.n; k++) {
        const ldem_section *x = &a.s[k], *y = &b.s[k];
        if (strcmp(x->tag, y->tag) || x->length != y->length) {
            printf("ckpt_same: section %zu: %s of %llu bytes against %s of %llu\n", k, x->tag,
                   (unsigned long long)x->length, y->tag, (unsigned long long)y->length);
            same = 0;
            break;
        }
        size_t compared = !strcmp(x->tag, "CKPT") && x->length > POOLS_AT ? POOLS_AT
                                                                          : (size_t)x->length;
        for (size_t q = 0; q < compared; q++)
            if (x->data[q] != y->data[q]) {
                printf("ckpt_same: section %s differs at byte %zu\n", x->tag, q);
                same = 0;
                break;
            }
    }
    for (size_t k = 0; k < a.n; k++)
        ldem_section_free(&a.s[k]);
    for (size_t k = 0; k < b.n; k++)
        ldem_section_free(&b.s[k]);
    if (same)
        printf("ckpt_same: the same state (the pools' table aside)\n");
    return same ? 0 : 1;
}
