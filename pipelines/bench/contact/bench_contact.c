/* bench_contact: cost of the exact Jäger contact law against the incremental Mindlin law.
 *
 *   bench_contact HISTORY.tsv [--seconds S] [--min-reps R] [--max-ratio X] [--build-info TEXT]
 *                 [-o OUT.tsv]
 *
 * The history (from gen_history: "d sx sy" per state, pair in a "# pair" header line) is read
 * into memory and turned into increments ds. Each timed run replays the whole history through
 * one law as one contact, ldem_jager_step or ldem_mindlin_step per state, from the untouched
 * state. The laws' runs are interleaved, one run of every configuration per round, in a
 * rotating order, so that CPU frequency drift affects all of them alike. Rounds repeat until
 * --seconds have passed (and at least --min-reps rounds). Each configuration reports the
 * minimum time over its runs (and the median, to show the noise). The history pool is kept
 * across runs, so after the first run no run allocates.
 *
 * Untimed, once per configuration: stack length statistics (mean over the steps, max), bytes a
 * contact needs (mean pooled cells × pool bytes per cell + sizeof the contact struct, which
 * holds the top cells), T against the exact law (max and rms of |ΔT|/(μN)), and for the
 * exact law the carried T against the sum over the stack (jager.md §3: they agree to
 * ~1e-14 μN).
 *
 * Also timed in the same rounds: the chain floor (chain_floor.h), the exact law's serial
 * step-to-step arithmetic alone, replayed from constants recorded in an untimed run of the law,
 * with how closely it reproduces the law's slip levels, slopes and T.
 *
 * Prints a table and "ratio jager/mindlin = X.XX (target <= 1.50)" for the library's default
 * configuration (ldem_jager_params_init defaults, force cache off). Exits 1 if the ratio is
 * above --max-ratio (default 1.5) or if the chain floor misses the law by more than 1e-9
 * (then it is not a bound), 2 on bad input.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/contact/jager.h"
#include "ldem/contact/mindlin.h"

#include "chain_floor.h"

typedef struct history {
    size_t n;
    double *d;       /* d1 of each step */
    double (*ds)[2]; /* tangential increment of each step */
    double E, nu, mu, R1, R2;
    double frac_elastic, frac_rising_slip, frac_unloading; /* kinds of steps */
} history;

enum { MAX_CONFIGS = 8 };

typedef struct config {
    const char *name;
    bool jager;
    double beta;
    bool cache_force, track_energy;
    /* state */
    ldem_jager_params jp;
    ldem_mindlin_params mp;
    ldem_history_pool pool;
    double *times;   /* seconds per run */
    size_t runs;
    /* statistics (untimed pass) */
    double mean_len, bytes_per_cell, bytes_per_contact, err_max, err_rms, stack_err;
    uint32_t max_len;
    double ns_min, ns_median;
} config;

static void die(const char *msg)
{
    fprintf(stderr, "bench_contact: error: %s\n", msg);
    exit(2);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void read_history(const char *path, history *h)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "bench_contact: error: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t cap = 1 << 16;
    h->n = 0;
    h->d = malloc(cap * sizeof *h->d);
    h->ds = malloc(cap * sizeof *h->ds);
    h->E = NAN;
    char line[512];
    double sprev[2] = {0, 0};
    size_t lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        if (line[0] == '#') {
            if (!strncmp(line, "# pair ", 7) &&
                sscanf(line, "# pair E=%lf nu=%lf mu=%lf R1=%lf R2=%lf", &h->E, &h->nu, &h->mu,
                       &h->R1, &h->R2) != 5)
                die("bad '# pair' header line");
            continue;
        }
        double d, sx, sy;
        if (sscanf(line, "%lf %lf %lf", &d, &sx, &sy) != 3) {
            fprintf(stderr, "bench_contact: error: %s:%zu: expected 'd sx sy'\n", path, lineno);
            exit(2);
        }
        if (h->n == cap) {
            cap *= 2;
            h->d = realloc(h->d, cap * sizeof *h->d);
            h->ds = realloc(h->ds, cap * sizeof *h->ds);
            if (!h->d || !h->ds)
                die("out of memory");
        }
        h->d[h->n] = d;
        h->ds[h->n][0] = sx - sprev[0];
        h->ds[h->n][1] = sy - sprev[1];
        sprev[0] = sx;
        sprev[1] = sy;
        h->n++;
    }
    fclose(fp);
    if (!h->n)
        die("empty history");
    if (isnan(h->E))
        die("the history has no '# pair E=... nu=... mu=... R1=... R2=...' line");
}

/* One replay of the whole history through the configuration's law; returns a checksum. */
static double replay(config *c, const history *h)
{
    double sum = 0;
    if (c->jager) {
        ldem_jager_contact k;
        ldem_jager_contact_init(&k);
        for (size_t i = 0; i < h->n; i++) {
            if (ldem_jager_step(&c->jp, &c->pool, &k, h->d[i], h->ds[i]) != LDEM_OK)
                die("ldem_jager_step failed (out of memory)");
            sum += k.t[0];
        }
        ldem_jager_release(&c->pool, &k);
    } else {
        ldem_mindlin_contact k;
        ldem_mindlin_contact_init(&k);
        for (size_t i = 0; i < h->n; i++) {
            ldem_mindlin_step(&c->mp, &k, h->d[i], h->ds[i]);
            sum += k.t[0];
        }
    }
    return sum;
}

/* Untimed: statistics, and T of every step into t_out (if not NULL), compared with t_ref. */
static void statistics(config *c, const history *h, double (*t_out)[2],
                       double (*t_ref)[2])
{
    double len_sum = 0, pooled_sum = 0, e_max = 0, e_sq = 0, stack_err = 0;
    uint32_t len_max = 0;
    size_t counted = 0;
    if (c->jager) {
        ldem_jager_contact k;
        ldem_jager_contact_init(&k);
        for (size_t i = 0; i < h->n; i++) {
            if (ldem_jager_step(&c->jp, &c->pool, &k, h->d[i], h->ds[i]) != LDEM_OK)
                die("ldem_jager_step failed (out of memory)");
            len_sum += k.length;
            pooled_sum += k.length - k.nheld; /* the held ones are in the contact struct */
            if (k.length > len_max)
                len_max = k.length;
            double mun = c->jp.mu * k.n;
            if (t_out) {
                t_out[i][0] = k.t[0];
                t_out[i][1] = k.t[1];
                double ts[2];
                ldem_jager_force_from_stack(&c->jp, &c->pool, &k, ts);
                if (mun > 0) {
                    double e = hypot(ts[0] - k.t[0], ts[1] - k.t[1]) / mun;
                    stack_err = e > stack_err ? e : stack_err;
                }
            }
            if (t_ref && mun > 0) {
                double e = hypot(k.t[0] - t_ref[i][0], k.t[1] - t_ref[i][1]) / mun;
                e_max = e > e_max ? e : e_max;
                e_sq += e * e;
                counted++;
            }
        }
        ldem_jager_release(&c->pool, &k);
        c->bytes_per_cell = (double)ldem_history_pool_bytes_per_cell(&c->pool);
        c->mean_len = len_sum / (double)h->n;
        c->max_len = len_max;
        c->bytes_per_contact = pooled_sum / (double)h->n * c->bytes_per_cell +
                               sizeof(ldem_jager_contact);
    } else {
        ldem_mindlin_contact k;
        ldem_mindlin_contact_init(&k);
        for (size_t i = 0; i < h->n; i++) {
            ldem_mindlin_step(&c->mp, &k, h->d[i], h->ds[i]);
            double mun = c->mp.mu * k.n;
            if (t_ref && mun > 0) {
                double e = hypot(k.t[0] - t_ref[i][0], k.t[1] - t_ref[i][1]) / mun;
                e_max = e > e_max ? e : e_max;
                e_sq += e * e;
                counted++;
            }
        }
        c->bytes_per_cell = 0;
        c->mean_len = 0;
        c->max_len = 0;
        c->bytes_per_contact = sizeof(ldem_mindlin_contact);
    }
    c->err_max = t_ref ? e_max : 0;
    c->err_rms = t_ref && counted ? sqrt(e_sq / (double)counted) : 0;
    c->stack_err = stack_err;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *out = NULL, *build_info = "unknown (pass --build-info)";
    double seconds = 3, max_ratio = 1.5;
    long min_reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--min-reps") && i + 1 < argc)
            min_reps = atol(argv[++i]);
        else if (!strcmp(argv[i], "--max-ratio") && i + 1 < argc)
            max_ratio = atof(argv[++i]);
        else if (!strcmp(argv[i], "--build-info") && i + 1 < argc)
            build_info = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            die("usage: bench_contact HISTORY.tsv [--seconds S] [--min-reps R] [--max-ratio X] "
                "[--build-info TEXT] [-o OUT.tsv]");
    }
    if (!path)
        die("no history file given");

    history h;
    read_history(path, &h);
    ldem_err err;
    ldem_err_clear(&err);
    ldem_elastic_pair pair;
    if (ldem_elastic_pair_init(&pair, h.E, h.nu, h.R1, h.R2, &err))
        die("bad pair in the history header");
    {
        size_t el = 0, sl = 0, un = 0;
        double dprev = 0;
        for (size_t i = 0; i < h.n; i++) {
            double dd = h.d[i] - dprev, c = hypot(h.ds[i][0], h.ds[i][1]) / pair.kappa;
            dprev = h.d[i];
            if (dd > 0 && c <= h.mu * dd)
                el++;
            else if (dd > 0)
                sl++;
            else if (dd < 0)
                un++;
        }
        h.frac_elastic = (double)el / (double)h.n;
        h.frac_rising_slip = (double)sl / (double)h.n;
        h.frac_unloading = (double)un / (double)h.n;
    }

    /* The default configuration is what ldem_jager_params_init gives (track_energy as it
     * sets it) with the force cache off; the others switch one thing each. */
    ldem_jager_params defaults;
    if (ldem_jager_params_init(&defaults, &pair, h.mu, 0, &err))
        die("ldem_jager_params_init refused the pair");
    const bool e0 = defaults.track_energy;
    config cfg[MAX_CONFIGS] = {
        {.name = "mindlin", .jager = false},
        {.name = "jager", .jager = true, .beta = 0, .track_energy = e0},
        {.name = "jager", .jager = true, .beta = 0, .track_energy = !e0},
        {.name = "jager", .jager = true, .beta = 0, .cache_force = true, .track_energy = e0},
        {.name = "jager", .jager = true, .beta = 0, .cache_force = true, .track_energy = !e0},
        {.name = "jager", .jager = true, .beta = 0.1, .track_energy = e0},
        {.name = "jager", .jager = true, .beta = 0.2, .track_energy = e0},
    };
    const int ncfg = 7, IDX_MINDLIN = 0, IDX_DEFAULT = 1, IDX_ENERGY = 2, IDX_CACHE = 3,
              IDX_CACHE_ENERGY = 4;
    size_t max_runs = 100000;
    for (int k = 0; k < ncfg; k++) {
        config *c = &cfg[k];
        if (c->jager) {
            if (ldem_jager_params_init(&c->jp, &pair, h.mu, c->beta, &err))
                die("ldem_jager_params_init failed");
            c->jp.track_energy = c->track_energy;
            if (ldem_history_pool_init(&c->pool, 1024, c->cache_force, &err))
                die("ldem_history_pool_init failed");
        } else if (ldem_mindlin_params_init(&c->mp, &pair, h.mu, &err)) {
            die("ldem_mindlin_params_init failed");
        }
        c->times = malloc(max_runs * sizeof *c->times);
        if (!c->times)
            die("out of memory");
    }

    /* Untimed: the exact law's T, then everything against it. */
    double(*t_exact)[2] = malloc(h.n * sizeof *t_exact);
    if (!t_exact)
        die("out of memory");
    statistics(&cfg[IDX_DEFAULT], &h, t_exact, NULL);
    for (int k = 0; k < ncfg; k++)
        if (k != IDX_DEFAULT)
            statistics(&cfg[k], &h, NULL, t_exact);

    /* Untimed: the exact law's serial chain alone (chain_floor.h), checked against the law. */
    chain_floor floor;
    if (chain_floor_record(&floor, &cfg[IDX_DEFAULT].jp, h.n, h.d, (const double(*)[2])h.ds))
        die("recording the chain floor failed");
    double floor_dz, floor_dw, floor_dt;
    if (chain_floor_check(&floor, &floor_dz, &floor_dw, &floor_dt))
        die("out of memory");
    double *floor_times = malloc(max_runs * sizeof *floor_times);
    if (!floor_times)
        die("out of memory");
    size_t floor_runs = 0;

    /* Timed rounds; slot ncfg of each round is the chain floor. */
    double start = now(), sink = 0;
    long rounds = 0;
    while ((now() - start < seconds || rounds < min_reps) && (size_t)rounds < max_runs) {
        for (int j = 0; j <= ncfg; j++) {
            int slot = (j + (int)(rounds % (ncfg + 1))) % (ncfg + 1);
            double t0 = now();
            if (slot == ncfg) {
                sink += chain_floor_replay(&floor, NULL);
                floor_times[floor_runs++] = now() - t0;
                continue;
            }
            config *c = &cfg[slot];
            sink += replay(c, &h);
            c->times[c->runs++] = now() - t0;
        }
        rounds++;
    }
    double elapsed = now() - start;
    for (int k = 0; k < ncfg; k++) {
        config *c = &cfg[k];
        qsort(c->times, c->runs, sizeof *c->times, cmp_double);
        c->ns_min = 1e9 * c->times[0] / (double)h.n;
        c->ns_median = 1e9 * c->times[c->runs / 2] / (double)h.n;
    }

    qsort(floor_times, floor_runs, sizeof *floor_times, cmp_double);
    double floor_ns = 1e9 * floor_times[0] / (double)h.n;
    double floor_ns_median = 1e9 * floor_times[floor_runs / 2] / (double)h.n;
    double ratio = cfg[IDX_DEFAULT].ns_min / cfg[IDX_MINDLIN].ns_min;
    double floor_ratio = floor_ns / cfg[IDX_MINDLIN].ns_min;
    double ratio_alt = cfg[IDX_ENERGY].ns_min / cfg[IDX_MINDLIN].ns_min;

    printf("contact-law benchmark: %zu steps of %s, one contact (E=%g nu=%g mu=%g R1=%g R2=%g)\n",
           h.n, path, h.E, h.nu, h.mu, h.R1, h.R2);
    printf("history: %.0f %% elastic loading steps, %.0f %% loading steps with slip, %.0f %% "
           "normal unloading steps (by |ds|/kappa vs mu*dd)\n", 100 * h.frac_elastic,
           100 * h.frac_rising_slip, 100 * h.frac_unloading);
    printf("library: %s\n", build_info);
    printf("timing: %ld interleaved rounds in %.1f s; ns/update = min over rounds (median in "
           "brackets)\n\n", rounds, elapsed);
    printf("%-8s %5s %6s %6s %17s %9s %5s %10s %9s %9s %9s\n", "law", "beta", "cache",
           "energy", "ns/update", "mean len", "max", "bytes/cell", "bytes/ctc", "T err max",
           "T err rms");
    FILE *tsv = NULL;
    if (out) {
        tsv = fopen(out, "w");
        if (!tsv) {
            fprintf(stderr, "bench_contact: error: %s: %s\n", out, strerror(errno));
            return 2;
        }
        fprintf(tsv, "# %zu steps of %s; library: %s; %ld rounds\n", h.n, path, build_info,
                rounds);
        fprintf(tsv, "# law\tbeta\tcache_force\ttrack_energy\tns_per_update_min\t"
                     "ns_per_update_median\tmean_history_length\tmax_history_length\t"
                     "bytes_per_cell\tbytes_per_contact\tT_err_max_over_muN\t"
                     "T_err_rms_over_muN\n");
    }
    for (int k = 0; k < ncfg; k++) {
        config *c = &cfg[k];
        char ns[32];
        snprintf(ns, sizeof ns, "%.1f [%.1f]", c->ns_min, c->ns_median);
        if (k == IDX_DEFAULT)
            printf("%-8s %5.2f %6s %6s %17s %9.1f %5u %10.0f %9.0f %19s\n", c->name, c->beta,
                   c->cache_force ? "on" : "off", c->track_energy ? "on" : "off", ns,
                   c->mean_len, c->max_len, c->bytes_per_cell, c->bytes_per_contact,
                   "(the reference)");
        else if (c->jager)
            printf("%-8s %5.2f %6s %6s %17s %9.1f %5u %10.0f %9.0f %9.2e %9.2e\n", c->name,
                   c->beta, c->cache_force ? "on" : "off", c->track_energy ? "on" : "off", ns,
                   c->mean_len, c->max_len, c->bytes_per_cell, c->bytes_per_contact,
                   c->err_max, c->err_rms);
        else
            printf("%-8s %5s %6s %6s %17s %9s %5s %10s %9.0f %9.2e %9.2e\n", c->name, "-", "-",
                   "-", ns, "-", "-", "-", c->bytes_per_contact, c->err_max, c->err_rms);
        if (tsv)
            fprintf(tsv, "%s\t%g\t%d\t%d\t%.3f\t%.3f\t%.3f\t%u\t%.0f\t%.1f\t%.6e\t%.6e\n",
                    c->name, c->jager ? c->beta : NAN, c->cache_force, c->jager ? c->track_energy : 1,
                    c->ns_min, c->ns_median, c->mean_len, c->max_len, c->bytes_per_cell,
                    c->bytes_per_contact, c->err_max, c->err_rms);
    }
    printf("\nT err: |T - T_exact|/(mu N) over the steps, against the exact law (jager, beta 0)."
           "\nbytes/ctc = mean pooled cells x bytes/cell + sizeof the contact struct (%zu jager, "
           "holding the top %d cells; %zu mindlin)\n", sizeof(ldem_jager_contact), LDEM_JAGER_HELD, sizeof(ldem_mindlin_contact));
    printf("exact law: carried T vs the sum over the stack, max %.1e mu N\n",
           cfg[IDX_DEFAULT].stack_err);
    {
        /* Indices with energy tracking on / off, cache off / on. */
        int on = e0 ? IDX_DEFAULT : IDX_ENERGY, off = e0 ? IDX_ENERGY : IDX_DEFAULT;
        int con = e0 ? IDX_CACHE : IDX_CACHE_ENERGY, coff = e0 ? IDX_CACHE_ENERGY : IDX_CACHE;
        printf("track_energy on vs off: %+.0f %% (cache off), %+.0f %% (cache on); "
               "ldem_jager_params_init sets it %s\n",
               100 * (cfg[on].ns_min / cfg[off].ns_min - 1),
               100 * (cfg[con].ns_min / cfg[coff].ns_min - 1), e0 ? "on" : "off");
        printf("force cache on vs off: %+.0f %% (track_energy on), %+.0f %% (off)\n",
               100 * (cfg[con].ns_min / cfg[on].ns_min - 1),
               100 * (cfg[coff].ns_min / cfg[off].ns_min - 1));
    }
    printf("ratio jager/mindlin with track_energy %s: %.2f\n", e0 ? "off" : "on", ratio_alt);
    printf("\nchain floor (chain_floor.h: the exact law's step-to-step arithmetic on this history, "
           "no stack):\n  %.1f ns/update [%.1f], %.2f x mindlin; steps: %zu elastic pushes, %zu "
           "slip-front roots, %zu copied from the law\n  reproduces the law to: slip levels "
           "%.1e d, slopes %.1e mu, T %.1e mu N\n", floor_ns, floor_ns_median, floor_ratio,
           floor.counts[CHAIN_PUSH], floor.counts[CHAIN_ROOT], floor.counts[CHAIN_COPY],
           floor_dz, floor_dw, floor_dt);
    printf("ratio jager/mindlin = %.2f (target <= %.2f; jager beta=0, library defaults: "
           "track_energy %s, force cache off)\n", ratio, max_ratio, e0 ? "on" : "off");
    if (tsv) {
        fprintf(tsv, "# ratio jager/mindlin = %.4f (defaults); %.4f with track_energy %s\n",
                ratio, ratio_alt, e0 ? "off" : "on");
        fprintf(tsv, "chain-floor\t0\t0\t0\t%.3f\t%.3f\tnan\t0\tnan\tnan\t%.6e\tnan\n",
                floor_ns, floor_ns_median, floor_dt);
        fprintf(tsv, "# ratio chain-floor/mindlin = %.4f\n", floor_ratio);
        if (fclose(tsv) != 0)
            die("writing the output table failed");
    }
    if (sink == 42.0)
        printf("(checksum)\n");

    for (int k = 0; k < ncfg; k++) {
        free(cfg[k].times);
        if (cfg[k].jager)
            ldem_history_pool_free(&cfg[k].pool);
    }
    free(t_exact);
    free(floor_times);
    chain_floor_free(&floor);
    free(h.d);
    free(h.ds);
    fflush(stdout);
    /* The floor is only a bound if it computes what the law computes. */
    if (!(floor_dz <= 1e-9 && floor_dw <= 1e-9 && floor_dt <= 1e-9)) {
        fprintf(stderr, "bench_contact: FAIL: the chain floor does not reproduce the exact law "
                        "(levels %.1e d, slopes %.1e mu, T %.1e mu N; tolerance 1e-9)\n",
                floor_dz, floor_dw, floor_dt);
        return 1;
    }
    if (!(ratio <= max_ratio)) {
        fprintf(stderr, "bench_contact: FAIL: jager/mindlin = %.2f is above the target %.2f\n",
                ratio, max_ratio);
        return 1;
    }
    return 0;
}
