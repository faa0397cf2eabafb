/* ldem/err.h — status codes and error reports that carry FILE:LINE context.
 *
 * Every fallible libldem call returns an int status (LDEM_OK on success) and, when
 * given a non-NULL ldem_err, fills it with what went wrong and where in the *input*
 * (a user's file and line, or a byte offset in a binary stream) — never where in our
 * C source, which would mean nothing to a user. Programs print it with
 * ldem_err_print() as "tool: error: FILE:LINE: message" and exit with
 * ldem_err_exit_code(): 2 for bad input or usage, 1 for internal failures.
 *
 * Which is which, for paths: whatever the user can fix by naming another file is bad input
 * (exit 2) — an input that is missing, unreadable, a directory or empty; an output whose
 * folder is missing, is not a folder, or is not writable (EACCES, EROFS); an output that
 * names a directory or a socket. What the user did not ask for is a failure (exit 1): the
 * disk full (ENOSPC, EDQUOT), EIO, too many open files, a read failing midway through a file.
 * ldem_status_from_errno() draws that line for an errno from open/creat/rename.
 */
#ifndef LDEM_ERR_H
#define LDEM_ERR_H

#include "ldem/export.h"

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ldem_status {
    LDEM_OK = 0,
    LDEM_ERR_INPUT = 2,    /* malformed or inconsistent input: the user must fix it */
    LDEM_ERR_USAGE = 3,    /* bad command-line or API usage */
    LDEM_ERR_IO = 4,       /* the system refused a read or write (permissions, disk full) */
    LDEM_ERR_NOMEM = 5,    /* allocation failed */
    LDEM_ERR_INTERNAL = 6  /* a bug or broken invariant in ldem itself */
};

#define LDEM_ERR_MSG_MAX 512
#define LDEM_ERR_FILE_MAX 256

typedef struct ldem_err {
    int code;                       /* enum ldem_status */
    char file[LDEM_ERR_FILE_MAX];   /* input the error is about; "" if none */
    long line;                      /* 1-based line in a text input; 0 if not applicable */
    long long offset;               /* byte offset in a binary input; -1 if not applicable */
    char msg[LDEM_ERR_MSG_MAX];
} ldem_err;

/* Reset to "no error". */
LDEM_API void ldem_err_clear(ldem_err *e);

/* Record an error; returns `code` so that callers can write `return ldem_err_set(...)`.
 * `e` may be NULL (the error is then only returned). `file` may be NULL. */
LDEM_API int ldem_err_set(ldem_err *e, int code, const char *file, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Same for binary inputs: the location is a byte offset. */
LDEM_API int ldem_err_set_offset(ldem_err *e, int code, const char *file, long long offset,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

LDEM_API int ldem_err_vset(ldem_err *e, int code, const char *file, long line, long long offset,
                           const char *fmt, va_list ap);

/* Print "prog: error: FILE:LINE: msg" (or "FILE: byte N: msg", or just "msg") on one line. */
LDEM_API void ldem_err_print(const ldem_err *e, const char *prog, FILE *out);

/* Process exit status for an error: 2 for input/usage errors, 1 for everything else. */
LDEM_API int ldem_err_exit_code(const ldem_err *e);

LDEM_API const char *ldem_status_name(int code);

/* LDEM_ERR_INPUT for an errno that says the path was wrong (ENOENT, ENOTDIR, EISDIR, EACCES,
 * EPERM, EROFS, ENAMETOOLONG, ELOOP, ENXIO, ETXTBSY), LDEM_ERR_NOMEM for ENOMEM,
 * LDEM_ERR_IO for the rest (ENOSPC, EDQUOT, EIO, EMFILE, ...). */
LDEM_API int ldem_status_from_errno(int errnum);

#ifdef __cplusplus
}
#endif
#endif
