#include "ldem/err.h"

#include <errno.h>
#include <string.h>

void ldem_err_clear(ldem_err *e)
{
    if (!e)
        return;
    e->code = LDEM_OK;
    e->file[0] = '\0';
    e->line = 0;
    e->offset = -1;
    e->msg[0] = '\0';
}

int ldem_err_vset(ldem_err *e, int code, const char *file, long line, long long offset,
                  const char *fmt, va_list ap)
{
    if (!e)
        return code;
    e->code = code;
    e->line = line;
    e->offset = offset;
    /* Truncating an absurdly long path is acceptable; the message stays useful. */
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return code;
}

int ldem_err_set(ldem_err *e, int code, const char *file, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldem_err_vset(e, code, file, line, -1, fmt, ap);
    va_end(ap);
    return code;
}

int ldem_err_set_offset(ldem_err *e, int code, const char *file, long long offset,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldem_err_vset(e, code, file, 0, offset, fmt, ap);
    va_end(ap);
    return code;
}

void ldem_err_print(const ldem_err *e, const char *prog, FILE *out)
{
    if (!e || e->code == LDEM_OK)
        return;
    if (prog)
        fprintf(out, "%s: ", prog);
    fputs("error: ", out);
    if (e->file[0]) {
        if (e->line > 0)
            fprintf(out, "%s:%ld: ", e->file, e->line);
        else if (e->offset >= 0)
            fprintf(out, "%s: byte %lld: ", e->file, e->offset);
        else
            fprintf(out, "%s: ", e->file);
    } else if (e->offset >= 0) {
        fprintf(out, "byte %lld: ", e->offset);
    }
    fprintf(out, "%s\n", e->msg);
}

int ldem_err_exit_code(const ldem_err *e)
{
    if (!e)
        return 1;
    switch (e->code) {
    case LDEM_OK:
        return 0;
    case LDEM_ERR_INPUT:
    case LDEM_ERR_USAGE:
        return 2;
    default:
        return 1;
    }
}

const char *ldem_status_name(int code)
{
    switch (code) {
    case LDEM_OK: return "ok";
    case LDEM_ERR_INPUT: return "bad input";
    case LDEM_ERR_USAGE: return "bad usage";
    case LDEM_ERR_IO: return "i/o failure";
    case LDEM_ERR_NOMEM: return "out of memory";
    case LDEM_ERR_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

int ldem_status_from_errno(int errnum)
{
    switch (errnum) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case ENAMETOOLONG:
    case ELOOP:
    case ENXIO:
    case ETXTBSY:
        return LDEM_ERR_INPUT;
    case ENOMEM:
        return LDEM_ERR_NOMEM;
    default:
        return LDEM_ERR_IO;
    }
}
