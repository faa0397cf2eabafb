/* ldem/outfile.h — output files that appear whole or not at all.
 *
 * Writes go to a temporary file beside the target ("target.tmp.XXXXXX", same directory so
 * that rename(2) is atomic); ldem_outfile_commit() flushes, closes and renames it over the
 * target, ldem_outfile_abort() removes it. A crash or error therefore never leaves a
 * half-written output, and an older complete file survives a failed rewrite.
 * The path "-" means standard output: commit just flushes, abort cannot un-write.
 */
#ifndef LDEM_OUTFILE_H
#define LDEM_OUTFILE_H

#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_outfile {
    FILE *fp;          /* write here */
    char *path;        /* final name ("-" for stdout) */
    char *tmp_path;    /* temporary name, NULL for stdout */
} ldem_outfile;

int ldem_outfile_open(ldem_outfile *of, const char *path, ldem_err *err);
/* Flush, fsync-free close and rename into place. Reports write errors (e.g. disk full). */
int ldem_outfile_commit(ldem_outfile *of, ldem_err *err);
/* Discard the temporary file; safe to call after a failed or successful commit. */
void ldem_outfile_abort(ldem_outfile *of);

#ifdef __cplusplus
}
#endif
#endif
