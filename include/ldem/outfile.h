/* ldem/outfile.h — output files that appear whole or not at all.
 *
 * A regular file (new or existing) is written to a temporary file beside it
 * ("target.tmp.XXXXXX", same directory so that rename(2) is atomic); ldem_outfile_commit()
 * flushes, closes and renames it over the target, ldem_outfile_abort() removes it. A crash or
 * error therefore never leaves a half-written output, and an older complete file survives a
 * failed rewrite.
 *
 * Anything else is not replaced, because replacing it would destroy it (as root, renaming
 * over /dev/null deletes the device):
 *  - a symlink is followed (through a chain, to the file it finally names) and that target
 *    is replaced atomically, with the temporary file in the target's directory; the link
 *    stays a link. A dangling symlink is treated the same way: the file it names is created
 *    (as a shell's `>` would), so its folder must exist;
 *  - a character device or a FIFO (/dev/null, /dev/stdout, a named pipe of a pipeline) is
 *    opened and written straight through: no temporary, no rename, and abort cannot
 *    un-write what went out;
 *  - a directory, a block device or a socket is refused as bad input (exit 2).
 * The path "-" means standard output, written straight through as well.
 * Errors follow ldem_status_from_errno(): a missing or read-only folder is bad input.
 */
#ifndef LDEM_OUTFILE_H
#define LDEM_OUTFILE_H

#include "ldem/export.h"

#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a regular file's temporary name adds to the target's: mkstemp fills the six X's with
 * letters and digits. demrun recognises a killed run's leftovers by it. */
#define LDEM_OUTFILE_TMP_STEM ".tmp."
#define LDEM_OUTFILE_TMP_TEMPLATE LDEM_OUTFILE_TMP_STEM "XXXXXX"

typedef struct ldem_outfile {
    FILE *fp;          /* write here */
    char *path;        /* the name the caller gave ("-" for stdout), for messages */
    char *target;      /* what the rename replaces: path with symlinks followed */
    char *tmp_path;    /* temporary name; NULL when writing straight through */
} ldem_outfile;

LDEM_API int ldem_outfile_open(ldem_outfile *of, const char *path, ldem_err *err);
/* Flush, fsync-free close and rename into place. Reports write errors (e.g. disk full). */
LDEM_API int ldem_outfile_commit(ldem_outfile *of, ldem_err *err);
/* Discard the temporary file; safe to call after a failed or successful commit. */
LDEM_API void ldem_outfile_abort(ldem_outfile *of);

#ifdef __cplusplus
}
#endif
#endif
