/* What every ldem tool's command line needs alike besides the one-line usage error
 * (ldem_usage_error, ldem/log.h): strict numbers, the command line recorded in META, and the
 * refusal to pour a binary bundle onto a terminal. The program name comes from
 * ldem_log_set_program(). */
#ifndef LDEM_TOOLS_CLI_H
#define LDEM_TOOLS_CLI_H

#include "ldem/err.h"
#include "ldem/log.h"


/* A finite number that is the whole argument (no leading blanks, no trailing text);
 * otherwise a usage error naming --opt. Returns 0 or 2. */
int cli_number(const char *opt, const char *arg, double *v);

/* argv joined by spaces (malloc'd; NULL when out of memory). */
char *cli_join_args(int argc, char **argv);

/* LDEM_ERR_USAGE when `output` is "-" and standard output is a terminal. */
int cli_refuse_terminal(const char *output, ldem_err *err);

#endif
