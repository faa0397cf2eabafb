/* energyfit's command line: groups of (mode, source, fit options), parsed and checked. */
#ifndef ENERGYFIT_CLI_H
#define ENERGYFIT_CLI_H

#include <stddef.h>
#include <stdint.h>

enum ef_source {
    EF_SOURCE_NONE = 0,
    EF_SOURCE_TABLE,      /* --table: (ε, F) interpolated as given */
    EF_SOURCE_ENERGIES,   /* --energies: (ε, U) least squares, eq. 56 */
    EF_SOURCE_FORCES      /* --forces: (ε, F) least squares through dU/dε, eq. 58 */
};

#define EF_DEFAULT_DEGREE 4
#define EF_DEFAULT_SAMPLES 33

/* One mode's energy: where it comes from and how it is fitted and interpolated. */
typedef struct ef_group {
    uint32_t mode;
    int source;               /* enum ef_source */
    const char *path;         /* the source file ("-" = stdin) */
    const char *columns;      /* "A,B" as given, or NULL for the first two columns */
    int degree;
    size_t samples;
    uint32_t interp;          /* enum ldem_interp */
    uint32_t extrapolate;     /* enum ldem_extrapolate */
    /* which options were given, to refuse repeats and options that do not apply */
    int given_mode, given_columns, given_degree, given_samples, given_interp,
        given_extrapolate;
} ef_group;

typedef struct ef_options {
    const char *input;        /* bundle in ("-" = stdin) */
    const char *output;       /* bundle out ("-" = stdout) */
    int verbosity;            /* -v minus -q */
    size_t ngroups;
    ef_group *groups;
    char *command_line;       /* argv joined, recorded in META */
} ef_options;

/* Parse argv. Returns 0 to run, -1 after printing --help/--version (exit 0), or 2 after
 * printing a one-line usage error. */
int ef_parse_args(int argc, char **argv, ef_options *o);
void ef_options_free(ef_options *o);

/* "--table", "--energies", "--forces"; and "table", "energies", "forces". */
const char *ef_source_option(int source);
const char *ef_source_name(int source);

#endif
