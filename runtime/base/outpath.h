/* Where an output the user named really goes, and whether it may be replaced by a rename
 * (ldem_outfile's policy, see ldem/outfile.h). */
#ifndef LDEM_BASE_OUTPATH_H
#define LDEM_BASE_OUTPATH_H

#include "ldem/err.h"

typedef enum outpath_kind {
    OUTPATH_FILE,   /* a regular file, or nothing yet: replace atomically */
    OUTPATH_STREAM  /* a character device or FIFO: write straight through */
} outpath_kind;

/* *target (malloc'd): for OUTPATH_FILE the path with symlinks followed to the file they
 * finally name (existing or not: a dangling link names the file to create); for
 * OUTPATH_STREAM the path itself (/dev/stdout is a /proc link that only open() follows).
 * A directory, block device or socket is LDEM_ERR_INPUT naming `path`. */
int ldem_outpath_resolve(const char *path, char **target, outpath_kind *kind, ldem_err *err);

#endif
