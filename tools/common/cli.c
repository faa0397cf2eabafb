/* Shared command-line helpers of the ldem tools (cli.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_number(const char *opt, const char *arg, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (end == arg || *end != '\0' || arg[0] == ' ' || arg[0] == '\t' || !isfinite(x) ||
        errno == ERANGE)
        return ldem_usage_error("--%s: '%s' is not a finite number", opt, arg);
    *v = x;
    return 0;
}

char *cli_join_args(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    char *p = s;
    for (int i = 0; i < argc; i++) {
        size_t k = strlen(argv[i]);
        if (i)
            *p++ = ' ';
        memcpy(p, argv[i], k);
        p += k;
    }
    *p = '\0';
    return s;
}

int cli_refuse_terminal(const char *output, ldem_err *err)
{
    if (strcmp(output, "-") == 0 && isatty(STDOUT_FILENO))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "refusing to write a binary bundle to the terminal: redirect stdout "
                            "or use -o FILE");
    return LDEM_OK;
}
