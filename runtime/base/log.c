/* Leveled, program-prefixed messages on stderr. See ldem/log.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* flockfile; the build sets it too */
#endif
#include "ldem/log.h"

#include <string.h>

#define LDEM_LOG_PROGRAM_MAX 64

static int log_level = LDEM_LOG_WARN;
static char log_program[LDEM_LOG_PROGRAM_MAX] = "ldem";
static FILE *log_out; /* NULL means stderr, which is not a constant expression */

void ldem_log_set_level(int level)
{
    if (level < LDEM_LOG_ERROR)
        level = LDEM_LOG_ERROR;
    if (level > LDEM_LOG_DEBUG)
        level = LDEM_LOG_DEBUG;
    log_level = level;
}

int ldem_log_get_level(void)
{
    return log_level;
}

int ldem_log_enabled(int level)
{
    /* Errors always pass: a tool must never fail silently, even with -q. */
    return level <= LDEM_LOG_ERROR || level <= log_level;
}

void ldem_log_set_program(const char *name)
{
    if (!name || !*name)
        name = "ldem";
    const char *slash = strrchr(name, '/');
    if (slash && slash[1])
        name = slash + 1;
    size_t n = strlen(name);
    if (n >= sizeof log_program)
        n = sizeof log_program - 1;
    memcpy(log_program, name, n);
    log_program[n] = '\0';
}

const char *ldem_log_program(void)
{
    return log_program;
}

void ldem_log_set_stream(FILE *out)
{
    log_out = out;
}

FILE *ldem_log_stream(void)
{
    return log_out ? log_out : stderr;
}

static const char *level_tag(int level)
{
    switch (level) {
    case LDEM_LOG_ERROR: return "error: ";
    case LDEM_LOG_WARN: return "warning: ";
    case LDEM_LOG_INFO: return ""; /* plain status lines read best untagged */
    default: return "debug: ";
    }
}

void ldem_vlog(int level, const char *fmt, va_list ap)
{
    if (!ldem_log_enabled(level))
        return;
    FILE *out = ldem_log_stream();
    size_t len = strlen(fmt);
    /* One lock around prefix, message and newline so that lines from several threads
     * never interleave mid-line. */
    flockfile(out);
    fprintf(out, "%s: %s", log_program, level_tag(level));
    vfprintf(out, fmt, ap);
    if (len == 0 || fmt[len - 1] != '\n')
        fputc('\n', out);
    fflush(out);
    funlockfile(out);
}

void ldem_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldem_vlog(level, fmt, ap);
    va_end(ap);
}

#define LDEM_LOG_AT(name, level)                                                           \
    void name(const char *fmt, ...)                                                        \
    {                                                                                      \
        va_list ap;                                                                        \
        va_start(ap, fmt);                                                                 \
        ldem_vlog(level, fmt, ap);                                                         \
        va_end(ap);                                                                        \
    }

LDEM_LOG_AT(ldem_error, LDEM_LOG_ERROR)
LDEM_LOG_AT(ldem_warn, LDEM_LOG_WARN)
LDEM_LOG_AT(ldem_info, LDEM_LOG_INFO)
LDEM_LOG_AT(ldem_debug, LDEM_LOG_DEBUG)

int ldem_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldem_vlog(LDEM_LOG_ERROR, fmt, ap);
    va_end(ap);
    return 2;
}

void ldem_log_err(const ldem_err *e)
{
    FILE *out = ldem_log_stream();
    flockfile(out);
    ldem_err_print(e, log_program, out);
    fflush(out);
    funlockfile(out);
}
