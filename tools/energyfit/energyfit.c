/* energyfit: (ε, F) tables, snapshot energies or reaction forces → ETAB on a grain bundle
 * (docs/design.md, "The pipeline"; Henzel & Karapiperis eqs. 56–58 and Appendix B).
 *
 * Every table is built (files read, fits solved) before the bundle stream is touched, so
 * the common mistakes fail fast. Then each bundle of the stream gets the same tables: its
 * MODE section must have the modes named, ETAB tables of other modes are kept, a table of
 * the same mode is replaced (with a warning), META records how, and every other section
 * passes through byte for byte. Output is whole or absent: -o FILE is written to a
 * temporary name and renamed; on stdout a stream of several bundles is spooled to a
 * temporary file first, so that an error in a later bundle never leaves a truncated
 * stream in a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "energyfit_cli.h"
#include "fit.h"
#include "blas_threads.h"
#include "cli.h"
#include "ldem/bundle.h"
#include "ldem/energy.h"
#include "ldem/infile.h"
#include "ldem/log.h"
#include "ldem/outfile.h"
#include "ldem/sections.h"
#include "ldem/tsv.h"
#include "ldem/version.h"

/* One group's result: the table and what the fit reported. */
typedef struct ef_result {
    ldem_etab_table table;
    fit_report report;
} ef_result;

static const char *interp_label(uint32_t interp)
{
    static const char *const names[] = {"linear", "cubic", "pchip"};
    return interp < 3 ? names[interp] : "?";
}

static const char *extrapolate_label(uint32_t extrapolate)
{
    static const char *const names[] = {"none", "linear", "quadratic"};
    return extrapolate < 3 ? names[extrapolate] : "?";
}

/* ---- reading a group's file ---- */

/* A column reference: a 1-based number or a header name. Returns the 0-based index. */
static int resolve_column(const ldem_table *t, const char *path, const char *ref, size_t len,
                          size_t *index, ldem_err *err)
{
    char name[128];
    if (len >= sizeof name)
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "--columns: name '%.40s...' is too "
                            "long", ref);
    memcpy(name, ref, len);
    name[len] = '\0';
    if (strspn(name, "0123456789") == len) {
        unsigned long k = strtoul(name, NULL, 10);
        if (k < 1 || k > t->ncols)
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                "--columns: column %s does not exist: the table has %zu "
                                "columns", name, t->ncols);
        *index = k - 1;
        return LDEM_OK;
    }
    if (!t->names)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "--columns: no header line to find '%s' in: name the columns by "
                            "number (1-based)", name);
    long k = ldem_table_column(t, name);
    if (k < 0) {
        char have[256] = "";
        for (size_t c = 0; c < t->ncols; c++) {
            size_t used = strlen(have);
            snprintf(have + used, sizeof have - used, "%s%s", c ? ", " : "", t->names[c]);
        }
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "--columns: no column named '%s' (the header has: %s)", name, have);
    }
    *index = (size_t)k;
    return LDEM_OK;
}

static int pick_columns(const ef_group *g, const ldem_table *t, size_t *ce, size_t *cv,
                        ldem_err *err)
{
    if (t->ncols < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, g->path, t->nrows ? t->lines[0] : 0,
                            "expected at least 2 columns (eps and %s), got %zu",
                            g->source == EF_SOURCE_ENERGIES ? "U" : "F", t->ncols);
    if (!g->columns) {
        *ce = 0;
        *cv = 1;
        return LDEM_OK;
    }
    const char *comma = strchr(g->columns, ',');
    int rc = resolve_column(t, g->path, g->columns, (size_t)(comma - g->columns), ce, err);
    if (!rc)
        rc = resolve_column(t, g->path, comma + 1, strlen(comma + 1), cv, err);
    if (!rc && *ce == *cv)
        rc = ldem_err_set(err, LDEM_ERR_USAGE, g->path, 0,
                          "--columns %s: eps and value must be different columns", g->columns);
    return rc;
}

static int build_table(const ef_group *g, ef_result *res, ldem_err *err)
{
    ldem_table t;
    int rc = ldem_tsv_read_path(g->path, &t, err);
    if (rc)
        return rc;
    const char *name = strcmp(g->path, "-") == 0 ? "<stdin>" : g->path;
    size_t ce = 0, cv = 1;
    double *eps = NULL, *val = NULL;
    rc = pick_columns(g, &t, &ce, &cv, err);
    if (!rc && t.nrows == 0)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "no data rows");
    if (!rc && (!(eps = malloc(t.nrows * sizeof *eps)) || !(val = malloc(t.nrows * sizeof *val))))
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, name, 0, "out of memory");
    for (size_t i = 0; !rc && i < t.nrows; i++) {
        eps[i] = t.values[i * t.ncols + ce];
        val[i] = t.values[i * t.ncols + cv];
    }
    if (!rc) {
        ldem_etab_table *tb = &res->table;
        fit_report *rep = &res->report;
        if (g->source == EF_SOURCE_TABLE)
            rc = fit_from_table(eps, val, t.nrows, t.lines, g->interp, g->extrapolate, name,
                                tb, rep, err);
        else if (g->source == EF_SOURCE_ENERGIES)
            rc = fit_from_energies(eps, val, t.nrows, g->degree, g->samples, g->interp,
                                   g->extrapolate, name, tb, rep, err);
        else
            rc = fit_from_forces(eps, val, t.nrows, g->degree, g->samples, g->interp,
                                 g->extrapolate, name, tb, rep, err);
        tb->mode = g->mode;
    }
    free(eps);
    free(val);
    ldem_table_free(&t);
    return rc;
}

static void report_fit(const ef_group *g, const ef_result *res)
{
    const ldem_etab_table *t = &res->table;
    const fit_report *rep = &res->report;
    ldem_info("mode %u: %s %s -> %llu knots, eps in [%g, %g], %s, extrapolate %s",
              (unsigned)g->mode, ef_source_name(g->source), g->path,
              (unsigned long long)t->n, t->eps[0], t->eps[t->n - 1], interp_label(t->interp),
              extrapolate_label(t->extrapolate));
    if (g->source != EF_SOURCE_TABLE) {
        ldem_info("mode %u: degree %d least squares: rms residual %.6g, max residual %.6g "
                  "(in %s)", (unsigned)g->mode, rep->degree, rep->rms_residual,
                  rep->max_residual, g->source == EF_SOURCE_ENERGIES ? "U" : "F");
        for (int k = 2; k <= rep->degree; k++)
            ldem_info("mode %u:   a_%d = %.10g", (unsigned)g->mode, k, rep->coeff[k]);
        ldem_info("mode %u: max |U_table - U_poly| over the knots %.6g", (unsigned)g->mode,
                  rep->max_energy_dev);
    }
    ldem_info("mode %u: U(eps) from %.6g to %.6g", (unsigned)g->mode, t->energy[0],
              t->energy[t->n - 1]);
    if (!(t->eps[0] <= 0 && t->eps[t->n - 1] >= 0) && t->extrapolate == LDEM_EXTRAP_NONE)
        ldem_warn("%s: mode %u: the table does not contain eps = 0, where an undeformed grain "
                  "starts, and forbids extrapolation", g->path, (unsigned)g->mode);
}

static void free_results(ef_result *res, size_t n)
{
    for (size_t i = 0; res && i < n; i++)
        fit_table_free(&res[i].table);
    free(res);
}

/* ---- one bundle ---- */

/* The bundle's mode count, from its MODE section (fully validated). */
static int mode_count(const ldem_bundle *b, const char *where, uint32_t *count, ldem_err *err)
{
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_MODE);
    if (!s)
        return ldem_err_set(err, LDEM_ERR_INPUT, where, 0,
                            "the bundle has no MODE section: add deformation modes with "
                            "modefit first");
    ldem_modes m;
    memset(&m, 0, sizeof m);
    int rc = ldem_modes_decode(s, where, &m, err);
    if (!rc)
        *count = m.count;
    ldem_modes_free(&m);
    return rc;
}

static int check_modes(const ef_options *o, const ldem_bundle *b, const char *where,
                       ldem_err *err)
{
    uint32_t count = 0;
    int rc = mode_count(b, where, &count, err);
    for (size_t i = 0; !rc && i < o->ngroups; i++)
        if (o->groups[i].mode >= count)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, where, 0, "mode %u: the bundle has %u mode%s",
                              (unsigned)o->groups[i].mode, (unsigned)count,
                              count == 1 ? "" : "s");
    return rc;
}

static const ef_group *group_of_mode(const ef_options *o, uint32_t mode)
{
    for (size_t i = 0; i < o->ngroups; i++)
        if (o->groups[i].mode == mode)
            return &o->groups[i];
    return NULL;
}

static int compare_tables(const void *a, const void *b)
{
    const ldem_etab_table *p = a, *q = b;
    return (p->mode > q->mode) - (p->mode < q->mode);
}

/* ETAB = the bundle's tables of other modes + ours, ordered by mode. The combined list
 * only borrows the arrays: `old` and `res` own them. */
static int put_etab(const ef_options *o, const ef_result *res, ldem_bundle *b,
                    const char *where, ldem_err *err)
{
    ldem_etab old;
    memset(&old, 0, sizeof old);
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_ETAB);
    int rc = s ? ldem_etab_decode(s, where, &old, err) : LDEM_OK;
    if (rc)
        return rc;
    ldem_etab all = {0, calloc(old.count + o->ngroups, sizeof(ldem_etab_table))};
    if (!all.tables) {
        ldem_etab_free(&old);
        return ldem_err_set(err, LDEM_ERR_NOMEM, where, 0, "out of memory");
    }
    for (uint32_t i = 0; i < old.count; i++) {
        if (group_of_mode(o, old.tables[i].mode))
            ldem_warn("%s: mode %u: replacing the bundle's ETAB table (%llu samples)", where,
                      (unsigned)old.tables[i].mode, (unsigned long long)old.tables[i].n);
        else
            all.tables[all.count++] = old.tables[i];
    }
    for (size_t i = 0; i < o->ngroups; i++)
        all.tables[all.count++] = res[i].table;
    qsort(all.tables, all.count, sizeof *all.tables, compare_tables);
    unsigned char *data = NULL;
    uint64_t len = 0;
    rc = ldem_etab_encode(&all, &data, &len, err);
    if (!rc)
        rc = ldem_bundle_put(b, LDEM_TAG_ETAB, 0, data, len, err);
    free(all.tables);
    ldem_etab_free(&old);
    return rc;
}

static int set_mode_meta(ldem_meta *m, const ef_group *g, ldem_err *err)
{
    char key[64], method[160];
    snprintf(key, sizeof key, "energyfit.mode%u.source", (unsigned)g->mode);
    int rc = ldem_meta_set(m, key, g->path, err);
    int n = snprintf(method, sizeof method, "%s", ef_source_name(g->source));
    if (g->source != EF_SOURCE_TABLE)
        n += snprintf(method + n, sizeof method - (size_t)n, " degree=%d samples=%zu",
                      g->degree, g->samples);
    snprintf(method + n, sizeof method - (size_t)n, " interp=%s extrapolate=%s%s%s",
             interp_label(g->interp), extrapolate_label(g->extrapolate),
             g->columns ? " columns=" : "", g->columns ? g->columns : "");
    snprintf(key, sizeof key, "energyfit.mode%u.method", (unsigned)g->mode);
    if (!rc)
        rc = ldem_meta_set(m, key, method, err);
    return rc;
}

static int put_meta(const ef_options *o, ldem_bundle *b, const char *where, ldem_err *err)
{
    ldem_meta m;
    ldem_meta_init(&m);
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_META);
    int rc = s ? ldem_meta_decode(s, where, &m, err) : LDEM_OK;
    if (!rc)
        rc = ldem_meta_set(&m, "energyfit.command", o->command_line, err);
    for (size_t i = 0; !rc && i < o->ngroups; i++)
        rc = set_mode_meta(&m, &o->groups[i], err);
    unsigned char *data = NULL;
    uint64_t len = 0;
    if (!rc)
        rc = ldem_meta_encode(&m, &data, &len, err);
    if (!rc)
        rc = ldem_bundle_put(b, LDEM_TAG_META, 0, data, len, err);
    ldem_meta_free(&m);
    return rc;
}

/* -v: the table's tangent stiffness at ε = 0 against the linear K_aa of modefit. */
static void report_stiffness(const ef_options *o, const ef_result *res, const ldem_bundle *b,
                             const char *where)
{
    if (!ldem_log_enabled(LDEM_LOG_INFO))
        return;
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_KMAT);
    ldem_matrix k = {0, NULL};
    ldem_err err;
    ldem_err_clear(&err);
    if (!s || ldem_matrix_decode(s, where, &k, &err)) {
        ldem_info("%s: no KMAT to compare F'(0) with", where);
        return;
    }
    for (size_t i = 0; i < o->ngroups; i++) {
        uint32_t mode = o->groups[i].mode;
        ldem_energy_curve c;
        memset(&c, 0, sizeof c);
        double df = 0;
        if (mode < k.n && !ldem_energy_prepare(&res[i].table, &c, &err) &&
            !ldem_energy_at(&c, 0.0, NULL, NULL, &df)) {
            double kaa = k.a[(size_t)mode * k.n + mode];
            ldem_info("%s: mode %u: F'(0) = %.6g, K_aa = %.6g (ratio %.4g)", where,
                      (unsigned)mode, df, kaa, kaa != 0 ? df / kaa : 0.0);
        }
        ldem_energy_curve_free(&c);
    }
    ldem_matrix_free(&k);
}

static int process_bundle(const ef_options *o, const ef_result *res, ldem_bundle *b,
                          const char *where, ldem_err *err)
{
    int rc = check_modes(o, b, where, err);
    if (!rc)
        rc = put_etab(o, res, b, where, err);
    if (!rc)
        rc = put_meta(o, b, where, err);
    if (!rc)
        report_stiffness(o, res, b, where);
    return rc;
}

/* ---- the stream ---- */

typedef struct ef_output {
    const char *path;
    ldem_outfile out;
    int open;
    FILE *spool;   /* stdout with several bundles: held back until the stream is done */
} ef_output;

/* Where the next bundle goes, opening the output (and the spool) on first use. */
static int output_stream(ef_output *w, int several, FILE **fp, ldem_err *err)
{
    if (!w->open) {
        int rc = ldem_outfile_open(&w->out, w->path, err);
        if (rc)
            return rc;
        w->open = 1;
    }
    if (several && !w->spool && strcmp(w->path, "-") == 0 && !(w->spool = tmpfile()))
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0,
                            "cannot create a temporary file to hold the bundle stream");
    *fp = w->spool ? w->spool : w->out.fp;
    return LDEM_OK;
}

static int write_bundle(ef_output *w, int several, const ldem_bundle *b, ldem_err *err)
{
    FILE *fp = NULL;
    int rc = output_stream(w, several, &fp, err);
    if (!rc)
        rc = ldem_bundle_write(fp, strcmp(w->path, "-") == 0 ? "<stdout>" : w->path, b, err);
    return rc;
}

static int copy_spool(ef_output *w, ldem_err *err)
{
    char buf[65536];
    rewind(w->spool);
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, w->spool)) > 0)
        if (fwrite(buf, 1, got, w->out.fp) != got)
            return ldem_err_set(err, LDEM_ERR_IO, "<stdout>", 0, "write error");
    if (ferror(w->spool))
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot read back the spooled stream");
    return LDEM_OK;
}

static int finish_output(ef_output *w, int rc, ldem_err *err)
{
    if (!rc && w->spool)
        rc = copy_spool(w, err);
    if (w->spool)
        fclose(w->spool);
    if (w->open) {
        if (!rc)
            rc = ldem_outfile_commit(&w->out, err);
        if (rc)
            ldem_outfile_abort(&w->out);
    }
    return rc;
}

/* "grain.ldg" for a single bundle, "grain.ldg: bundle 3" in a stream of several. */
static void bundle_label(const char *name, size_t index, int several, char *out, size_t n)
{
    if (several)
        snprintf(out, n, "%s: bundle %zu", name, index + 1);
    else
        snprintf(out, n, "%s", name);
}

static int run_stream(const ef_options *o, const ef_result *res, ldem_bundle_reader *r,
                      const char *name, ldem_err *err)
{
    ef_output w = {.path = o->output};
    ldem_bundle held, next;
    ldem_bundle_init(&held);
    ldem_bundle_init(&next);
    int have = 0, have_next = 0;
    char where[LDEM_ERR_FILE_MAX];
    int rc = ldem_bundle_read(r, &held, &have, err);
    if (!rc && !have)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "empty stream: no bundle");
    /* Read one ahead: whether the stream holds several bundles decides the labels and
     * whether stdout needs the spool. */
    if (!rc)
        rc = ldem_bundle_read(r, &next, &have_next, err);
    int several = have_next;
    size_t index = 0;
    while (!rc && have) {
        bundle_label(name, index, several, where, sizeof where);
        rc = process_bundle(o, res, &held, where, err);
        if (!rc)
            rc = write_bundle(&w, several, &held, err);
        ldem_bundle_free(&held);
        held = next;
        have = have_next;
        ldem_bundle_init(&next);
        have_next = 0;
        index++;
        if (!rc && have)
            rc = ldem_bundle_read(r, &next, &have_next, err);
    }
    if (!rc && several)
        ldem_info("%s: %zu bundles", name, index);
    ldem_bundle_free(&held);
    ldem_bundle_free(&next);
    return finish_output(&w, rc, err);
}

static int run(const ef_options *o, ldem_err *err)
{
    int rc = cli_refuse_terminal(o->output, err);
    if (rc)
        return rc;
    if (strcmp(o->input, "-") == 0 && isatty(STDIN_FILENO))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "no bundle on standard input: pipe one in or use -i FILE");
    ef_result *res = calloc(o->ngroups, sizeof *res);
    if (!res)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; !rc && i < o->ngroups; i++) {
        rc = build_table(&o->groups[i], &res[i], err);
        if (!rc)
            report_fit(&o->groups[i], &res[i]);
    }
    ldem_infile in = {NULL, NULL};
    ldem_bundle_reader *r = NULL;
    if (!rc)
        rc = ldem_infile_open(&in, o->input, err);
    if (!rc) {
        rc = ldem_bundle_reader_open(&r, in.fp, in.name, err);
        if (!rc)
            rc = run_stream(o, res, r, in.name, err);
        ldem_bundle_reader_close(r);
        ldem_infile_close(&in);
    }
    free_results(res, o->ngroups);
    return rc;
}

int main(int argc, char **argv)
{
    ldem_log_set_program("energyfit");
    ef_options o;
    int st = ef_parse_args(argc, argv, &o);
    if (st)
        return st < 0 ? 0 : st;
    ldem_log_set_level(LDEM_LOG_WARN + o.verbosity);
    blas_use_one_thread(); /* the same bytes on any machine: blas_threads.c */
    ldem_err err;
    ldem_err_clear(&err);
    int rc = run(&o, &err);
    ef_options_free(&o);
    if (rc) {
        ldem_log_err(&err);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
