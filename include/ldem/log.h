/* ldem/log.h — leveled messages on stderr, prefixed with the program name.
 *
 * A tool calls ldem_log_set_program(argv[0]) once and maps its flags to a level
 * (default WARN; each -v one level up, -q down to ERROR), then writes
 *     ldem_warn("%s: %d nodes outside the grid", path, n);
 * which prints "lsgen: warning: grain.ldg: 3 nodes outside the grid". Errors read
 * "lsgen: error: ...", debug lines "lsgen: debug: ...", and info lines carry no tag
 * ("lsgen: wrote 12 sections"). A newline is added unless the format string ends in one.
 *
 * The level, program name and stream are process-wide settings meant to be set once at
 * start-up, before any threads; logging itself may be called from several threads (each
 * message is written under the stream's lock, so lines do not interleave).
 */
#ifndef LDEM_LOG_H
#define LDEM_LOG_H

#include "ldem/export.h"

#include <stdarg.h>
#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* printf-format checking for variadic ldem functions (any module may use it). */
#ifndef LDEM_PRINTF
#if defined(__GNUC__)
#define LDEM_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define LDEM_PRINTF(fmt_idx, arg_idx)
#endif
#endif

/* Higher is more verbose; a message is printed when its level ≤ the global level. */
enum ldem_log_level {
    LDEM_LOG_ERROR = 0,
    LDEM_LOG_WARN = 1,
    LDEM_LOG_INFO = 2,
    LDEM_LOG_DEBUG = 3
};

/* Set the level; values outside [ERROR, DEBUG] are clamped, so a tool can pass
 * LDEM_LOG_WARN + n_verbose − n_quiet directly. Errors are never suppressed. */
LDEM_API void ldem_log_set_level(int level);
LDEM_API int ldem_log_get_level(void);
/* Whether a message at `level` would be printed (to skip expensive formatting). */
LDEM_API int ldem_log_enabled(int level);

/* The prefix of every message; a path is reduced to its last component, so argv[0]
 * works. NULL restores the default "ldem". The name is copied (at most 63 bytes). */
LDEM_API void ldem_log_set_program(const char *name);
LDEM_API const char *ldem_log_program(void);

/* Where messages go; NULL restores stderr. For tests and for tools that log to a file. */
LDEM_API void ldem_log_set_stream(FILE *out);
LDEM_API FILE *ldem_log_stream(void);

LDEM_API void ldem_log(int level, const char *fmt, ...) LDEM_PRINTF(2, 3);
LDEM_API void ldem_vlog(int level, const char *fmt, va_list ap) LDEM_PRINTF(2, 0);

LDEM_API void ldem_error(const char *fmt, ...) LDEM_PRINTF(1, 2);
LDEM_API void ldem_warn(const char *fmt, ...) LDEM_PRINTF(1, 2);
LDEM_API void ldem_info(const char *fmt, ...) LDEM_PRINTF(1, 2);
LDEM_API void ldem_debug(const char *fmt, ...) LDEM_PRINTF(1, 2);

/* A command line's usage error: "prog: error: message" on the log stream; returns 2, the
 * usage exit status, so that a program's argument parser can `return ldem_usage_error(...)`. */
LDEM_API int ldem_usage_error(const char *fmt, ...) LDEM_PRINTF(1, 2);

/* Print an ldem_err the CLI way, "prog: error: FILE:LINE: message" (ldem_err_print with
 * this module's program name and stream). */
LDEM_API void ldem_log_err(const ldem_err *e);

#ifdef __cplusplus
}
#endif
#endif
