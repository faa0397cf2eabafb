/* energyfit's command line: getopt_long in order, options collected into per-mode groups.
 *
 * A group is opened by --mode K, or implicitly (mode 0) by the first group option when no
 * --mode came before; the group's source and fit options follow in any order until the
 * next --mode. Repeats within a group are refused rather than silently overridden, since
 * a second --table most likely lacks the --mode that should have preceded it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energyfit_cli.h"
#include "fit.h"
#include "cli.h"
#include "ldem/log.h"
#include "ldem/sections.h"
#include "ldem/version.h"

#define PROGRAM "energyfit"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: energyfit [options] GROUP [GROUP...]   (bundle: stdin or -i; out: stdout or -o)\n"
        "Add nonlinear modal energies U(eps) and forces F(eps) = dU/deps (an ETAB section) to a\n"
        "grain bundle that has deformation modes (MODE, from modefit). The table's U is the\n"
        "exact integral of its interpolated F, so the modal force is conservative.\n"
        "\n"
        "Each GROUP is [--mode K] (default 0) and exactly one source:\n"
        "  --table FILE         (eps, F) pairs, interpolated as they are (Henzel App. B)\n"
        "  --energies FILE      (eps, U) snapshot strain energies: least-squares polynomial\n"
        "                       U = a_2 eps^2 + ... + a_N eps^N (eq. 56)\n"
        "  --forces FILE        (eps, F) reaction forces: the same polynomial fitted through\n"
        "                       F = dU/deps (eq. 58)\n"
        "and, for that group:\n"
        "  --columns A,B        eps and value columns: header names or 1-based numbers\n"
        "                       (default: the first two)\n"
        "  --degree N           polynomial degree of the fits, 2..15 (default 4)\n"
        "  --samples S          knots of a fitted table, equally spaced over the data's eps\n"
        "                       range widened to include 0 (default 33)\n"
        "  --interp KIND        pchip (monotone cubic, default), cubic (natural spline), linear\n"
        "  --extrapolate KIND   beyond the table: none (an error at run time, default),\n"
        "                       linear (constant tangent stiffness) or quadratic\n"
        "Files: TSV or whitespace-separated; '#' comments; an optional header line.\n"
        "\n"
        "Options:\n"
        "  -i, --input FILE     bundle to extend (default stdin); every bundle of a stream\n"
        "                       gets the same tables\n"
        "  -o, --output FILE    bundle out (default stdout); written atomically\n"
        "  -v, --verbose        fit report: residuals, coefficients, energy deviation,\n"
        "                       table range, F'(0) against the bundle's K_aa (KMAT)\n"
        "  -q, --quiet          errors only\n"
        "  -h, --help, --version\n"
        "The output is the same bytes for any OPENBLAS_NUM_THREADS (BLAS runs on one thread).\n"
        "\n"
        "Example: modefit ... | energyfit --mode 0 --table data/energy/henzel-appendix-b.tsv\n"
        "           --mode 1 --forces reactions.tsv --degree 5 > grain.ldg\n");
}

const char *ef_source_option(int source)
{
    switch (source) {
    case EF_SOURCE_TABLE: return "--table";
    case EF_SOURCE_ENERGIES: return "--energies";
    case EF_SOURCE_FORCES: return "--forces";
    default: return "(none)";
    }
}

const char *ef_source_name(int source)
{
    return ef_source_option(source) + 2;
}

/* An integer in [lo, hi], the whole argument. */
static int parse_integer(const char *opt, const char *arg, long long lo, long long hi,
                         long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(arg, &end, 10);
    if (end == arg || *end != '\0' || arg[0] == ' ' || arg[0] == '\t' || errno || x < lo ||
        x > hi)
        return ldem_usage_error("--%s: expected an integer in [%lld, %lld], got '%s'", opt, lo, hi, arg);
    *v = x;
    return 0;
}

static int parse_kind(const char *opt, const char *arg, const char *const *names, int count,
                      const char *expected, uint32_t *v)
{
    for (int k = 0; k < count; k++)
        if (strcmp(arg, names[k]) == 0) {
            *v = (uint32_t)k;
            return 0;
        }
    return ldem_usage_error("--%s: unknown kind '%s'; expected %s", opt, arg, expected);
}

static int parse_interp(const char *arg, uint32_t *v)
{
    /* indexed by enum ldem_interp */
    static const char *const names[] = {"linear", "cubic", "pchip"};
    return parse_kind("interp", arg, names, 3, "pchip, cubic or linear", v);
}

static int parse_extrapolate(const char *arg, uint32_t *v)
{
    /* indexed by enum ldem_extrapolate */
    static const char *const names[] = {"none", "linear", "quadratic"};
    return parse_kind("extrapolate", arg, names, 3, "none, linear or quadratic", v);
}

/* "A,B": two non-empty column references. Resolved against the file later. */
static int check_columns(const char *arg)
{
    const char *comma = strchr(arg, ',');
    if (!comma || comma == arg || comma[1] == '\0' || strchr(comma + 1, ','))
        return ldem_usage_error("--columns: expected A,B (two column names or 1-based numbers), got '%s'",
                    arg);
    return 0;
}

enum {
    OPT_MODE = 256, OPT_TABLE, OPT_ENERGIES, OPT_FORCES, OPT_COLUMNS, OPT_DEGREE, OPT_SAMPLES,
    OPT_INTERP, OPT_EXTRAPOLATE, OPT_VERSION
};

static ef_group *push_group(ef_options *o, uint32_t mode)
{
    ef_group *g = realloc(o->groups, (o->ngroups + 1) * sizeof *g);
    if (!g)
        return NULL;
    o->groups = g;
    g += o->ngroups++;
    memset(g, 0, sizeof *g);
    g->mode = mode;
    g->degree = EF_DEFAULT_DEGREE;
    g->samples = EF_DEFAULT_SAMPLES;
    g->interp = LDEM_INTERP_PCHIP;
    g->extrapolate = LDEM_EXTRAP_NONE;
    return g;
}

/* The group the next option belongs to: the open one, or a new mode-0 group. */
static ef_group *current_group(ef_options *o)
{
    return o->ngroups ? &o->groups[o->ngroups - 1] : push_group(o, 0);
}

static int once(int *given, const char *opt, const ef_group *g)
{
    if (*given)
        return ldem_usage_error("%s given twice for mode %u; start another group with --mode",
                    opt, (unsigned)g->mode);
    *given = 1;
    return 0;
}

static int start_mode(ef_options *o, const char *arg)
{
    long long mode;
    if (parse_integer("mode", arg, 0, UINT32_MAX - 1LL, &mode))
        return 2;
    if (o->ngroups && !o->groups[o->ngroups - 1].source)
        return ldem_usage_error("--mode %s: mode %u has no source yet: give --table, --energies or "
                    "--forces after its --mode", arg, (unsigned)o->groups[o->ngroups - 1].mode);
    ef_group *g = push_group(o, (uint32_t)mode);
    if (!g)
        return ldem_usage_error("out of memory");
    g->given_mode = 1;
    return 0;
}

static int set_source(ef_group *g, int source, const char *path)
{
    if (g->source)
        return ldem_usage_error("mode %u has two sources (%s and %s): one per mode; start another group "
                    "with --mode", (unsigned)g->mode, ef_source_option(g->source),
                    ef_source_option(source));
    g->source = source;
    g->path = path;
    return 0;
}

static int group_option(ef_options *o, int c, const char *arg)
{
    ef_group *g = current_group(o);
    long long v;
    if (!g)
        return ldem_usage_error("out of memory");
    switch (c) {
    case OPT_TABLE: return set_source(g, EF_SOURCE_TABLE, arg);
    case OPT_ENERGIES: return set_source(g, EF_SOURCE_ENERGIES, arg);
    case OPT_FORCES: return set_source(g, EF_SOURCE_FORCES, arg);
    case OPT_COLUMNS:
        if (once(&g->given_columns, "--columns", g) || check_columns(arg))
            return 2;
        g->columns = arg;
        return 0;
    case OPT_DEGREE:
        if (once(&g->given_degree, "--degree", g) ||
            parse_integer("degree", arg, FIT_MIN_DEGREE, FIT_MAX_DEGREE, &v))
            return 2;
        g->degree = (int)v;
        return 0;
    case OPT_SAMPLES:
        if (once(&g->given_samples, "--samples", g) ||
            parse_integer("samples", arg, 2, FIT_MAX_SAMPLES, &v))
            return 2;
        g->samples = (size_t)v;
        return 0;
    case OPT_INTERP:
        return once(&g->given_interp, "--interp", g) || parse_interp(arg, &g->interp) ? 2 : 0;
    case OPT_EXTRAPOLATE:
        return once(&g->given_extrapolate, "--extrapolate", g) ||
                       parse_extrapolate(arg, &g->extrapolate)
                   ? 2
                   : 0;
    default: return ldem_usage_error("internal: unhandled option %d", c);
    }
}

/* Checks that need the whole command line. */
static int check_groups(const ef_options *o)
{
    if (o->ngroups == 0)
        return ldem_usage_error("no source given: expected --table, --energies or --forces; try --help");
    int stdin_users = strcmp(o->input, "-") == 0;
    for (size_t i = 0; i < o->ngroups; i++) {
        const ef_group *g = &o->groups[i];
        if (!g->source)
            return ldem_usage_error("mode %u has no source: give --table, --energies or --forces",
                        (unsigned)g->mode);
        for (size_t j = 0; j < i; j++)
            if (o->groups[j].mode == g->mode)
                return ldem_usage_error("mode %u is given twice", (unsigned)g->mode);
        if (g->source == EF_SOURCE_TABLE && (g->given_degree || g->given_samples))
            return ldem_usage_error("%s applies to the fits (--energies, --forces), not to --table "
                        "(mode %u)", g->given_degree ? "--degree" : "--samples",
                        (unsigned)g->mode);
        stdin_users += strcmp(g->path, "-") == 0;
    }
    if (stdin_users > 1)
        return ldem_usage_error("standard input can feed only one input: read the bundle with -i FILE "
                    "or the tables from files");
    return 0;
}

int ef_parse_args(int argc, char **argv, ef_options *o)
{
    static const struct option longs[] = {
        {"mode", required_argument, NULL, OPT_MODE},
        {"table", required_argument, NULL, OPT_TABLE},
        {"energies", required_argument, NULL, OPT_ENERGIES},
        {"forces", required_argument, NULL, OPT_FORCES},
        {"columns", required_argument, NULL, OPT_COLUMNS},
        {"degree", required_argument, NULL, OPT_DEGREE},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"interp", required_argument, NULL, OPT_INTERP},
        {"extrapolate", required_argument, NULL, OPT_EXTRAPOLATE},
        {"input", required_argument, NULL, 'i'},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->input = "-";
    o->output = "-";
    int c, rc = 0;
    opterr = 0; /* our own messages, in the house format */
    while (!rc && (c = getopt_long(argc, argv, ":i:o:vqh", longs, NULL)) != -1) {
        switch (c) {
        case OPT_MODE: rc = start_mode(o, optarg); break;
        case OPT_TABLE: case OPT_ENERGIES: case OPT_FORCES: case OPT_COLUMNS:
        case OPT_DEGREE: case OPT_SAMPLES: case OPT_INTERP: case OPT_EXTRAPOLATE:
            rc = group_option(o, c, optarg);
            break;
        case 'i': o->input = optarg; break;
        case 'o': o->output = optarg; break;
        case 'v': o->verbosity++; break;
        case 'q': o->verbosity--; break;
        case 'h': usage(stdout); ef_options_free(o); return -1;
        case OPT_VERSION: printf(PROGRAM " %s\n", LDEM_VERSION); ef_options_free(o); return -1;
        case ':': rc = ldem_usage_error("%s needs a value; try --help", argv[optind - 1]); break;
        default: rc = ldem_usage_error("unknown option '%s'; try --help", argv[optind - 1]); break;
        }
    }
    if (!rc && optind < argc)
        rc = ldem_usage_error("unexpected argument '%s'; try --help", argv[optind]);
    if (!rc)
        rc = check_groups(o);
    if (!rc && !(o->command_line = cli_join_args(argc, argv)))
        rc = ldem_usage_error("out of memory");
    if (rc) {
        ef_options_free(o);
        return 2;
    }
    return 0;
}

void ef_options_free(ef_options *o)
{
    free(o->groups);
    free(o->command_line);
    o->groups = NULL;
    o->command_line = NULL;
    o->ngroups = 0;
}
