/* ldem/infile.h — an input named on the command line, where "-" means standard input.
 * Every tool reads bundles and tables this way, and names the input in its errors
 * ("<stdin>" for standard input). */
#ifndef LDEM_INFILE_H
#define LDEM_INFILE_H

#include "ldem/export.h"

#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_infile {
    FILE *fp;
    const char *name;   /* the path, or "<stdin>"; for messages */
} ldem_infile;

/* fopen(path, "rb") for a file the user named, refusing a directory: Linux opens one and
 * only the first read fails (EISDIR), which would be reported as an I/O failure (exit 1)
 * instead of the wrong path it is. NULL with errno set (EISDIR for a directory). */
LDEM_API FILE *ldem_fopen_input(const char *path);

/* Open `path` for reading ("rb"); "-" is standard input. Failing to open (a missing file, a
 * directory, no permission) is bad input. */
LDEM_API int ldem_infile_open(ldem_infile *in, const char *path, ldem_err *err);
/* Close unless it is standard input. */
LDEM_API void ldem_infile_close(ldem_infile *in);

#ifdef __cplusplus
}
#endif
#endif
