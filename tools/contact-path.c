/* contact-path: drive one contact through a path of (δ, sx, sy) states and print its forces.
 *
 *   contact-path --E E --nu NU --mu MU --R1 R1 --R2 R2 [--model jager|mindlin] [--beta B]
 *                [--substeps K] [--cache-force] [--full-history] [--max-steps N]
 *                [--max-memory SIZE] [-o OUT.tsv] [PATH.tsv | -]
 *
 * The path is a table of states (total overlap δ, total tangential displacement sx, sy in
 * the contact plane), not increments. The contact starts unloaded at (0, 0, 0) and moves along
 * one straight line from each state to the next, which is exactly what one call of the
 * contact law solves; --substeps cuts each line into K equal pieces to show how a law depends
 * on the step size. The output has one row per input state.
 *
 * This is the command-line face of the contact laws for tests (tests/contact/
 * check_reference.py compares it with the reference vectors of docs/jager.md §9) and for
 * plotting force–displacement loops, so it prints doubles with 17 significant digits: the
 * text round-trips to the exact binary values.
 *
 * The work is bounded before it starts: states × substeps steps of the law at most
 * --max-steps (default 10⁹, about a minute), and the load history, which may grow by a cell
 * a step, is checked against --max-memory (default: the machine's physical memory) before
 * each time its pool grows, so that a hostile --substeps is refused with exit 2 instead of
 * running for days or dying of out-of-memory. The stored energy of every row comes from
 * ldem/contact/jager_stored.h, O(1) amortized per step instead of a walk over the whole
 * history per row.
 *
 * An empty path (no data rows) is an error, as for every ldem table: an empty pipe usually
 * means an upstream failure, and a header-only result would hide it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/contact/jager.h"
#include "ldem/contact/jager_stored.h"
#include "ldem/contact/mindlin.h"
#include "ldem/memory_budget.h"
#include "ldem/outfile.h"
#include "ldem/tsv.h"
#include "ldem/version.h"

static const char *program = "contact-path";

/* Default work bound: 10⁹ steps of the law, about a minute at tens of ns a step. */
#define DEFAULT_MAX_STEPS 1000000000ull

enum model { MODEL_JAGER, MODEL_MINDLIN };

/* The five material and geometry parameters have no sensible defaults: a silent default
 * modulus or radius would produce plausible-looking but wrong forces. */
enum required { REQ_E = 1, REQ_NU = 2, REQ_MU = 4, REQ_R1 = 8, REQ_R2 = 16, REQ_ALL = 31 };

typedef struct options {
    const char *input, *output;
    double E, nu, mu, R1, R2, beta;
    unsigned have;          /* enum required bits seen on the command line */
    enum model model;
    long substeps;
    uint64_t max_steps;     /* states × substeps at most */
    uint64_t max_memory;    /* bytes; 0: the machine's physical memory */
    bool cache_force, beta_given, full_history;
} options;

/* One output row besides the echoed state. */
typedef struct result {
    double n, t[2], stored, dissipated;
    uint32_t length;
} result;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s --E E --nu NU --mu MU --R1 R1 --R2 R2 [options] [PATH.tsv]\n"
            "Drive one contact of two elastic spheres through a displacement path and print\n"
            "the forces after every state.\n"
            "\n"
            "The path (a file, or stdin for '-' or no argument) has three columns, one state a\n"
            "line: delta sx sy = total normal overlap and total tangential displacement in the\n"
            "contact plane. '#' lines and an optional header line are skipped; at least one\n"
            "state is required; the columns are used in this order whatever a header says.\n"
            "The contact starts unloaded at (0, 0, 0) and moves in a straight line from each\n"
            "state to the next.\n"
            "\n"
            "required:\n"
            "  --E E                   Young's modulus of both spheres (> 0)\n"
            "  --nu NU                 Poisson's ratio (-1 < NU <= 0.5)\n"
            "  --mu MU                 friction coefficient (> 0)\n"
            "  --R1 R1, --R2 R2        radii of curvature; --R2 inf for a sphere on a flat\n"
            "options:\n"
            "  --model jager|mindlin   tangential law (default: jager, the exact history law;\n"
            "                          mindlin is the incremental rescaled-spring baseline)\n"
            "  --beta B                jager only: merge elastic legs whose slopes differ by\n"
            "                          less than B*mu (0 <= B <= 2; default 0 = exact)\n"
            "  --substeps K            cut each straight move into K equal steps (default 1);\n"
            "                          still one output row per state\n"
            "  --cache-force           jager only: keep N(z) per history cell in the pool\n"
            "  --full-history          jager only: keep every leg of the history (no lossless\n"
            "                          compression; to see what compression saves)\n"
            "  --max-steps N           refuse a path whose states x substeps exceed N\n"
            "                          (default 1e9, about a minute of work)\n"
            "  --max-memory SIZE       refuse to let the load history grow past SIZE bytes\n"
            "                          (512M, 4G, or plain bytes; default: the machine's\n"
            "                          physical memory)\n"
            "  -o, --output FILE       write here (default: stdout); written atomically\n"
            "  -h, --help, --version\n"
            "\n"
            "Output: a '#' header line, then one tab-separated row per state:\n"
            "  delta sx sy N Tx Ty history_length stored_energy dissipated\n"
            "history_length is the Jager stack length (mindlin: 1 in contact, else 0);\n"
            "stored_energy is the tangential elastic energy, dissipated the cumulative\n"
            "frictional work. Exit status: 0 ok, 2 bad usage or input, 1 internal failure.\n",
            program);
}

/* Strict number: the whole argument is one finite decimal (or hex) number. `inf` (positive
 * infinity) is accepted only where allow_inf says so, for R2 = a flat. */
static int parse_double(const char *opt, const char *arg, bool allow_inf, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    /* strtod skips leading blanks; a quoted " 1" is a typo worth reporting, not a number. */
    if (end == arg || *end != '\0' || arg[0] == ' ' || arg[0] == '\t') {
        fprintf(stderr, "%s: error: --%s: '%s' is not a number\n", program, opt, arg);
        return 1;
    }
    if (isinf(x) && x > 0 && allow_inf && errno != ERANGE) {
        *v = x;
        return 0;
    }
    if (!isfinite(x)) {
        fprintf(stderr, "%s: error: --%s: '%s' is not a finite number%s\n", program, opt, arg,
                allow_inf ? " (only 'inf', for a flat, is allowed)" : "");
        return 1;
    }
    if (errno == ERANGE) {  /* underflow: the value would silently become 0 or lose digits */
        fprintf(stderr, "%s: error: --%s: '%s' is out of range\n", program, opt, arg);
        return 1;
    }
    *v = x;
    return 0;
}

/* A whole number >= 1, also written 1e12 (the work bound then decides whether it is too
 * many, with a message that says so). */
static int parse_whole(const char *opt, const char *arg, double most, uint64_t *k)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (end == arg || *end != '\0' || arg[0] == ' ' || arg[0] == '\t' || !(x >= 1) ||
        x != floor(x) || strpbrk(arg, "xXpP")) {
        fprintf(stderr, "%s: error: --%s: '%s' is not a positive integer\n", program, opt,
                arg);
        return 1;
    }
    if (!(x <= most)) {
        fprintf(stderr, "%s: error: --%s: '%s' is more than %.0f\n", program, opt, arg, most);
        return 1;
    }
    *k = (uint64_t)x;
    return 0;
}

static int parse_substeps(const char *arg, long *k)
{
    uint64_t v;
    if (parse_whole("substeps", arg, 9e18, &v))
        return 1;
    *k = (long)v;
    return 0;
}

static int parse_max_memory(const char *arg, uint64_t *bytes)
{
    if (ldem_memory_parse_size(arg, bytes) == 0)
        return 0;
    fprintf(stderr, "%s: error: --max-memory: '%s' is not a size (bytes, or 512M, 4G)\n",
            program, arg);
    return 1;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_E = 256, OPT_NU, OPT_MU, OPT_R1, OPT_R2, OPT_MODEL, OPT_BETA, OPT_SUBSTEPS,
           OPT_CACHE, OPT_FULL, OPT_MAX_STEPS, OPT_MAX_MEMORY, OPT_VERSION };
    static const struct option longs[] = {
        {"E", required_argument, NULL, OPT_E},
        {"nu", required_argument, NULL, OPT_NU},
        {"mu", required_argument, NULL, OPT_MU},
        {"R1", required_argument, NULL, OPT_R1},
        {"R2", required_argument, NULL, OPT_R2},
        {"model", required_argument, NULL, OPT_MODEL},
        {"beta", required_argument, NULL, OPT_BETA},
        {"substeps", required_argument, NULL, OPT_SUBSTEPS},
        {"cache-force", no_argument, NULL, OPT_CACHE},
        {"full-history", no_argument, NULL, OPT_FULL},
        {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};
    int c, bad = 0;
    bool cache_given = false;
    /* getopt_long accepts unambiguous prefixes; --E vs --e is case-sensitive, fine. */
    while (!bad && (c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        switch (c) {
        case OPT_E: bad = parse_double("E", optarg, false, &o->E); o->have |= REQ_E; break;
        case OPT_NU: bad = parse_double("nu", optarg, false, &o->nu); o->have |= REQ_NU; break;
        case OPT_MU: bad = parse_double("mu", optarg, false, &o->mu); o->have |= REQ_MU; break;
        case OPT_R1: bad = parse_double("R1", optarg, false, &o->R1); o->have |= REQ_R1; break;
        case OPT_R2: bad = parse_double("R2", optarg, true, &o->R2); o->have |= REQ_R2; break;
        case OPT_BETA:
            bad = parse_double("beta", optarg, false, &o->beta);
            o->beta_given = true;
            break;
        case OPT_SUBSTEPS: bad = parse_substeps(optarg, &o->substeps); break;
        case OPT_MAX_STEPS: bad = parse_whole("max-steps", optarg, 9e18, &o->max_steps); break;
        case OPT_MAX_MEMORY: bad = parse_max_memory(optarg, &o->max_memory); break;
        case OPT_CACHE: o->cache_force = cache_given = true; break;
        case OPT_FULL: o->full_history = cache_given = true; break;
        case OPT_MODEL:
            if (strcmp(optarg, "jager") == 0) {
                o->model = MODEL_JAGER;
            } else if (strcmp(optarg, "mindlin") == 0) {
                o->model = MODEL_MINDLIN;
            } else {
                fprintf(stderr, "%s: error: --model: '%s' is not a model (jager or mindlin)\n",
                        program, optarg);
                bad = 1;
            }
            break;
        case 'o': o->output = optarg; break;
        case 'h': usage(stdout); exit(0);
        case OPT_VERSION: printf("%s %s\n", program, LDEM_VERSION); exit(0);
        default:   /* getopt_long has printed what was wrong */
            fprintf(stderr, "%s: error: bad usage; try --help\n", program);
            bad = 1;
        }
    }
    if (bad)
        return 1;
    if (optind < argc)
        o->input = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "%s: error: unexpected argument '%s': one path file at most; try --help\n",
                program, argv[optind]);
        return 1;
    }
    if (o->have != REQ_ALL) {
        static const char *names[] = {"--E", "--nu", "--mu", "--R1", "--R2"};
        char missing[64] = "";
        for (int i = 0; i < 5; i++)
            if (!(o->have & (1u << i))) {
                strcat(missing, " ");
                strcat(missing, names[i]);
            }
        fprintf(stderr,
                "%s: error: missing%s; --E, --nu, --mu, --R1 and --R2 are all required "
                "(--R2 inf for a flat)\n",
                program, missing);
        return 1;
    }
    /* Options of the other law are refused rather than ignored, so that a comparison of the
     * two laws never silently runs with a setting that had no effect. */
    if (o->model == MODEL_MINDLIN && (o->beta_given || cache_given)) {
        fprintf(stderr, "%s: error: %s applies to --model jager only\n", program,
                o->beta_given      ? "--beta"
                : o->full_history ? "--full-history"
                                  : "--cache-force");
        return 1;
    }
    return 0;
}

/* State k of K along the straight line from `from` to `to`; the last is `to` exactly so that
 * substeps never shift the states the output reports. Unchanged coordinates stay bit-equal,
 * so a collinear path stays collinear. */
static void waypoint(const double from[3], const double to[3], long k, long K, double at[3])
{
    double f = (double)k / (double)K;
    for (int j = 0; j < 3; j++)
        at[j] = k == K || from[j] == to[j] ? to[j] : from[j] + (to[j] - from[j]) * f;
}

/* Before the history pool grows (doubling) or the energy tracker with it: would both fit in
 * the memory limit beside `base` bytes already taken? */
static int check_history_growth(const options *o, const ldem_history_pool *pool,
                                uint64_t base, const char *name, long line, ldem_err *err)
{
    if (pool->free_head)
        return LDEM_OK; /* the next push takes a free cell */
    uint64_t per_cell = ldem_history_pool_bytes_per_cell(pool) +
                        ldem_jager_stored_bytes_per_cell();
    uint64_t need = ldem_memory_add(base, ldem_memory_mul(2 * (uint64_t)pool->capacity,
                                                          per_cell));
    return ldem_memory_check(o->max_memory, need, name, line,
                             o->substeps > 1 ? "--substeps: the load history"
                                             : "the load history",
                             err);
}

static int run_jager(const options *o, const ldem_jager_params *p, const ldem_table *t,
                     const char *name, result *res, uint64_t base, ldem_err *err)
{
    ldem_history_pool pool;
    int rc = ldem_history_pool_init(&pool, 64, o->cache_force, err);
    if (rc)
        return rc;
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    ldem_jager_stored stored;
    ldem_jager_stored_init(&stored);
    double prev[3] = {0, 0, 0};
    for (size_t i = 0; !rc && i < t->nrows; i++) {
        const double *state = t->values + 3 * i;
        for (long k = 1; !rc && k <= o->substeps; k++) {
            double at[3];
            waypoint(prev, state, k, o->substeps, at);
            rc = check_history_growth(o, &pool, base, name, t->lines[i], err);
            if (rc)
                break;
            rc = ldem_jager_move_to(p, &pool, &c, at[0], at + 1);
            /* after every step, not every row: the tracker relies on a step changing at most
             * the top two cells */
            if (!rc)
                rc = ldem_jager_stored_update(&stored, p, &pool, &c);
        }
        if (rc == LDEM_ERR_INPUT)
            break; /* the memory limit, reported */
        /* The step leaves the contact cleared, so report the pool's size, not what is live. */
        if (rc == LDEM_ERR_NOMEM) {
            rc = ldem_err_set(err, LDEM_ERR_NOMEM, name, t->lines[i],
                              "out of memory: the history pool could not grow past %" PRIu32
                              " cells",
                              pool.capacity);
            break;
        }
        if (rc) {
            rc = ldem_err_set(err, LDEM_ERR_INTERNAL, name, t->lines[i],
                              "the contact law failed: %s", ldem_status_name(rc));
            break;
        }
        res[i] = (result){.n = c.n,
                          .t = {c.t[0], c.t[1]},
                          .stored = ldem_jager_stored_energy_tracked(&stored, p, &pool, &c),
                          .dissipated = c.dissipated,
                          .length = c.length};
        memcpy(prev, state, sizeof prev);
    }
    ldem_jager_stored_free(&stored);
    ldem_jager_release(&pool, &c);
    ldem_history_pool_free(&pool);
    return rc;
}

static void run_mindlin(const options *o, const ldem_mindlin_params *p, const ldem_table *t,
                        result *res)
{
    ldem_mindlin_contact c;
    ldem_mindlin_contact_init(&c);
    double prev[3] = {0, 0, 0};
    for (size_t i = 0; i < t->nrows; i++) {
        const double *state = t->values + 3 * i;
        for (long k = 1; k <= o->substeps; k++) {
            double at[3];
            waypoint(prev, state, k, o->substeps, at);
            ldem_mindlin_move_to(p, &c, at[0], at + 1);
        }
        /* The incremental law's "history" is its one spring, alive while in contact. */
        res[i] = (result){.n = c.n,
                          .t = {c.t[0], c.t[1]},
                          .stored = ldem_mindlin_stored_energy(p, &c),
                          .dissipated = c.dissipated,
                          .length = c.d > 0 ? 1 : 0};
        memcpy(prev, state, sizeof prev);
    }
}

/* A state so far out (an overlap of 1e300, radii of 1e300) overflows the law to inf or NaN;
 * such a row is refused at its line, never printed. */
static int check_finite(const ldem_table *t, const char *name, const result *res, ldem_err *err)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const result *r = res + i;
        if (isfinite(r->n) && isfinite(r->t[0]) && isfinite(r->t[1]) && isfinite(r->stored) &&
            isfinite(r->dissipated))
            continue;
        const double *s = t->values + 3 * i;
        return ldem_err_set(err, LDEM_ERR_INPUT, name, t->lines[i],
                            "the state (%g, %g, %g) gives a non-finite force or energy (N = %g, "
                            "T = (%g, %g)): the overlap or displacement is beyond what the law "
                            "can evaluate in double precision for these spheres",
                            s[0], s[1], s[2], r->n, r->t[0], r->t[1]);
    }
    return LDEM_OK;
}

static int write_results(const char *path, const ldem_table *t, const result *res,
                         ldem_err *err)
{
    ldem_outfile out;
    int rc = ldem_outfile_open(&out, path, err);
    if (rc)
        return rc;
    FILE *fp = out.fp;
    fputs("# delta\tsx\tsy\tN\tTx\tTy\thistory_length\tstored_energy\tdissipated\n", fp);
    for (size_t i = 0; i < t->nrows; i++) {
        const double *s = t->values + 3 * i;
        const result *r = res + i;
        fprintf(fp, "%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%" PRIu32 "\t%.17g\t%.17g\n",
                s[0], s[1], s[2], r->n, r->t[0], r->t[1], r->length, r->stored,
                r->dissipated);
    }
    /* commit checks the stream's error flag, so a full disk is reported, not ignored. */
    return ldem_outfile_commit(&out, err);
}

int main(int argc, char **argv)
{
    options o = {0};
    o.output = "-";
    o.input = "-";
    o.model = MODEL_JAGER;
    o.substeps = 1;
    o.max_steps = DEFAULT_MAX_STEPS;
    if (parse_options(argc, argv, &o))
        return 2;
    ldem_err err;
    ldem_err_clear(&err);
    const char *name = strcmp(o.input, "-") == 0 ? "<stdin>" : o.input;

    /* Parameters first, so that a bad modulus is reported before waiting on stdin. The
     * ranges are the library's, checked in one place for every caller. */
    ldem_elastic_pair pair;
    ldem_jager_params jp;
    ldem_mindlin_params mp;
    int rc = ldem_elastic_pair_init(&pair, o.E, o.nu, o.R1, o.R2, &err);
    if (!rc && o.model == MODEL_JAGER) {
        rc = ldem_jager_params_init(&jp, &pair, o.mu, o.beta, &err);
        jp.track_energy = true;   /* the dissipated column needs it */
        jp.full_history = o.full_history;
    } else if (!rc) {
        rc = ldem_mindlin_params_init(&mp, &pair, o.mu, &err);
    }

    /* The whole path is read and checked before anything is computed or written, so bad
     * input never leaves a partial output. */
    ldem_table t = {0};
    if (!rc)
        rc = ldem_tsv_read_path(o.input, &t, &err);
    if (!rc)
        rc = ldem_table_expect_columns(&t, name, 3, "delta sx sy", &err);

    /* Results are kept in memory and written in one go: even an out-of-memory failure in
     * the middle of the path leaves no half table on stdout. */
    uint64_t steps = ldem_memory_mul(t.nrows, (uint64_t)o.substeps);
    if (!rc && steps > o.max_steps)
        rc = ldem_err_set(&err, LDEM_ERR_INPUT, name, 0,
                          "--substeps: %ld substeps x %zu states = %.3g steps of the contact "
                          "law, more than the limit of %.3g (see --max-steps)",
                          o.substeps, t.nrows, (double)steps, (double)o.max_steps);
    uint64_t rows_bytes = ldem_memory_mul(t.nrows, sizeof(result));
    if (!rc)
        rc = ldem_memory_check(o.max_memory, rows_bytes, name, 0, "the path's rows", &err);
    result *res = NULL;
    if (!rc) {
        res = calloc(t.nrows, sizeof *res);
        if (!res)
            rc = ldem_err_set(&err, LDEM_ERR_NOMEM, name, 0, "out of memory for %zu rows",
                              t.nrows);
    }
    if (!rc && o.model == MODEL_JAGER)
        rc = run_jager(&o, &jp, &t, name, res, rows_bytes, &err);
    else if (!rc)
        run_mindlin(&o, &mp, &t, res);
    if (!rc)
        rc = check_finite(&t, name, res, &err);
    if (!rc)
        rc = write_results(o.output, &t, res, &err);
    free(res);
    ldem_table_free(&t);
    if (rc) {
        ldem_err_print(&err, program, stderr);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
