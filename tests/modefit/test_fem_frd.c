/* Unit tests of modefit's CalculiX .frd reader (femesh.h: frd_read_disp).
 *
 * - A real CalculiX run made at build time (fem/ccx_bar.py): a bar in uniform tension
 *   meshed by Gmsh with C3D10, two static steps. Its displacement field is linear,
 *   u = d (x/L, -nu y/L, -nu z/L), which quadratic tets reproduce exactly, so every node
 *   is checked against the closed form within the .frd's print rounding (E12.5: 5e-6
 *   relative), and against CalculiX's own independent print of the same values in the
 *   .dat file (E13.6).
 * - Hand-made records in which negative values run together, short (I5) and long (I10)
 *   formats, and the select argument.
 * - Every malformed or mismatched file: LDEM_ERR_INPUT naming the file and the line the
 *   test put the fault on (the writer counts its lines). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fem_fixture.h"
#include "femesh.h"

static void setup(void)
{
    ff_scratch_make();
}

static void teardown(void)
{
    ff_scratch_remove();
}

TestSuite(fem_frd, .init = setup, .fini = teardown);

static void read_ok(const char *path, const fe_mesh *m, long select, fe_snapshots *s)
{
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(frd_read_disp(path, m, select, s, &err), LDEM_OK, "%s:%ld: %s", err.file,
                 err.line, err.msg);
    cr_assert_eq(s->nnodes, m->nnodes);
}

/* Refused: LDEM_ERR_INPUT, err names path and line, the message holds `word`. */
static void read_fails(const char *path, const fe_mesh *m, long select, long line,
                       const char *word, const char *word2)
{
    fe_snapshots s;
    ldem_err err;
    ldem_err_clear(&err);
    int st = frd_read_disp(path, m, select, &s, &err);
    if (getenv("FEM_TEST_VERBOSE"))
        ldem_err_print(&err, "frd_read_disp", stderr);
    cr_assert_eq(st, LDEM_ERR_INPUT, "status %d: %s", st, err.msg);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, line, "line %ld, not %ld: %s", err.line, line, err.msg);
    cr_assert_not_null(strstr(err.msg, word), "message lacks '%s': %s", word, err.msg);
    if (word2)
        cr_assert_not_null(strstr(err.msg, word2), "message lacks '%s': %s", word2, err.msg);
    cr_assert_eq(s.count, 0);
    cr_assert_null(s.u);
}

/* ------------------------------------------------------------- real CalculiX -------- */

#ifdef FEM_CCX_BAR_DIR
#define CCX(name) FEM_CCX_BAR_DIR "/" name
#else
#define CCX(name) "/nonexistent/" name
#endif

typedef struct bar_expect {
    size_t nodes, tets;
    double length, nu, pull[2];
} bar_expect;

static int read_expect(bar_expect *e)
{
    FILE *f = fopen(CCX("ccx_bar_expect.txt"), "r");
    if (!f)
        return 0;
    int n = fscanf(f, "nodes %zu\ntets %zu\nlength %lf\nnu %lf\npull1 %lf\npull2 %lf", &e->nodes,
                   &e->tets, &e->length, &e->nu, &e->pull[0], &e->pull[1]);
    fclose(f);
    cr_assert_eq(n, 6, "ccx_bar_expect.txt unreadable");
    return 1;
}

/* The .dat's "displacements (vx,vy,vz) for set ALLN and time T" blocks: dat[b][id] */
#define DAT_MAX_ID 100000
static double *read_dat(int *nblocks, double time[2])
{
    FILE *f = fopen(CCX("ccx_bar.dat"), "r");
    cr_assert_not_null(f);
    double *v = calloc(2 * 3 * (size_t)DAT_MAX_ID, sizeof *v);
    cr_assert_not_null(v);
    char line[512];
    int b = -1;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "and time");
        if (strstr(line, "displacements") && at) {
            b++;
            cr_assert_lt(b, 2);
            time[b] = strtod(at + 8, NULL);
            continue;
        }
        long id;
        double x, y, z;
        if (b >= 0 && sscanf(line, "%ld %lf %lf %lf", &id, &x, &y, &z) == 4) {
            cr_assert(id > 0 && id < DAT_MAX_ID);
            double *p = v + 3 * ((size_t)b * DAT_MAX_ID + (size_t)id);
            p[0] = x;
            p[1] = y;
            p[2] = z;
        }
    }
    fclose(f);
    *nblocks = b + 1;
    return v;
}

Test(fem_frd, calculix_bar_in_tension)
{
    bar_expect ex;
    if (!read_expect(&ex)) {
        cr_skip_test("no CalculiX fixture (ccx or gmsh missing at configure time)");
        return;
    }
    fe_mesh m, mesh_only;
    ldem_err err;
    /* the deck (which includes Gmsh's mesh and the node sets) and the mesh file alone */
    cr_assert_eq(inp_read_mesh(CCX("ccx_bar.inp"), &m, &err), LDEM_OK, "%s:%ld: %s",
                 err.file, err.line, err.msg);
    cr_assert_eq(inp_read_mesh(CCX("ccx_bar_mesh.inp"), &mesh_only, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(m.nnodes, ex.nodes);
    cr_assert_eq(m.ntets, ex.tets);
    cr_assert_eq(m.order, FE_TET10);
    cr_assert_eq(mesh_only.nnodes, m.nnodes);
    cr_assert_eq(memcmp(mesh_only.tet, m.tet, 10 * m.ntets * sizeof *m.tet), 0);
    fe_mesh_free(&mesh_only);

    fe_snapshots s;
    read_ok(CCX("ccx_bar.frd"), &m, 0, &s);
    cr_assert_eq(s.count, 2);
    int nb;
    double dat_time[2];
    double *dat = read_dat(&nb, dat_time);
    cr_assert_eq(nb, 2);
    double worst_exact = 0, worst_dat = 0;
    for (size_t k = 0; k < 2; k++) {
        cr_assert_eq(s.time[k], (double)(k + 1));
        cr_assert_eq(s.time[k], dat_time[k]);
        cr_assert_eq(s.step[k], (long)(k + 1));
        double d = ex.pull[k];
        for (size_t i = 0; i < m.nnodes; i++) {
            const double *x = m.xyz + 3 * i, *u = s.u + 3 * (k * m.nnodes + i);
            double exact[3] = {d * x[0] / ex.length, -ex.nu * d * x[1] / ex.length,
                               -ex.nu * d * x[2] / ex.length};
            const double *v = dat + 3 * (k * DAT_MAX_ID + (size_t)m.node_id[i]);
            for (int c = 0; c < 3; c++) {
                double e1 = fabs(u[c] - exact[c]), e2 = fabs(u[c] - v[c]);
                worst_exact = fmax(worst_exact, e1 / fabs(d));
                worst_dat = fmax(worst_dat, e2 / fabs(d));
                /* E12.5 rounds to 5e-6 relative; the solver adds ~1e-16 |d| */
                cr_assert_leq(e1, 5e-6 * fabs(exact[c]) + 1e-12 * fabs(d),
                              "step %zu node %ld comp %d: %.6e vs exact %.6e", k + 1,
                              m.node_id[i], c, u[c], exact[c]);
                /* .dat: 7 digits, .frd: 6 of the same double */
                cr_assert_leq(e2, 5.5e-6 * fabs(v[c]) + 1e-12 * fabs(d),
                              "step %zu node %ld comp %d: %.6e vs .dat %.7e", k + 1,
                              m.node_id[i], c, u[c], v[c]);
            }
        }
    }
    cr_log_info("ccx bar: %zu nodes, max |u - exact| / |d| = %.2e, max |u - dat| / |d| = %.2e",
                m.nnodes, worst_exact, worst_dat);

    fe_snapshots one;
    read_ok(CCX("ccx_bar.frd"), &m, 1, &one);
    cr_assert_eq(one.count, 1);
    cr_assert_eq(one.time[0], 1.0);
    cr_assert_eq(memcmp(one.u, s.u, 3 * m.nnodes * sizeof *s.u), 0);
    fe_snapshots_free(&one);
    read_ok(CCX("ccx_bar.frd"), &m, -1, &one);
    cr_assert_eq(one.count, 1);
    cr_assert_eq(one.step[0], 2);
    cr_assert_eq(memcmp(one.u, s.u + 3 * m.nnodes, 3 * m.nnodes * sizeof *s.u), 0);
    fe_snapshots_free(&one);
    read_fails(CCX("ccx_bar.frd"), &m, 3, 0, "DISP block 3 asked for", "has 2");
    free(dat);
    fe_snapshots_free(&s);
    fe_mesh_free(&m);
}

/* ------------------------------------------------------ fixed-width records -------- */

/* One tet, nodes 1-4 (or 1001-1004 for the long format). */
static void one_tet(fe_mesh *m, long base)
{
    static const double X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    memset(m, 0, sizeof *m);
    m->nnodes = 4;
    m->ntets = 1;
    m->order = FE_TET4;
    m->xyz = malloc(sizeof X);
    m->node_id = malloc(4 * sizeof *m->node_id);
    m->tet = malloc(4 * sizeof *m->tet);
    cr_assert(m->xyz && m->node_id && m->tet);
    memcpy(m->xyz, X, sizeof X);
    for (size_t i = 0; i < 4; i++) {
        m->node_id[i] = base + (long)i;
        m->tet[i] = i;
    }
}

static const double RUN_TOGETHER[12] = {
    -1.23456E-01, -2.00000E+00, 3.00000E-03,   /* node 1 */
    1.00000E+00,  -9.87654E+10, -1.00000E-30,  /* node 2 */
    -0.00000E+00, 5.00000E-01,  -5.00000E-01,  /* node 3 */
    1.00000E-05,  0.00000E+00,  -7.77770E+02}; /* node 4 */

Test(fem_frd, negative_values_run_together_short_and_long)
{
    const char *const SHORT[4] = {
        " -1    1-1.23456E-01-2.00000E+00 3.00000E-03",
        " -1    2 1.00000E+00-9.87654E+10-1.00000E-30",
        " -1    3-0.00000E+00 5.00000E-01-5.00000E-01",
        " -1    4 1.00000E-05 0.00000E+00-7.77770E+02"};
    const char *const LONG[4] = {
        " -1      1001-1.23456E-01-2.00000E+00 3.00000E-03",
        " -1      1002 1.00000E+00-9.87654E+10-1.00000E-30",
        " -1      1003-0.00000E+00 5.00000E-01-5.00000E-01",
        " -1      1004 1.00000E-05 0.00000E+00-7.77770E+02"};
    for (int fmt = 0; fmt < 2; fmt++) {
        fe_mesh m;
        one_tet(&m, fmt ? 1001 : 1);
        ff_frd w;
        const char *path = ff_path(fmt ? "long.frd" : "short.frd");
        ff_frd_open(&w, path, fmt);
        ff_frd_nodes(&w, &m);
        ff_frd_disp_lines(&w, fmt ? LONG : SHORT, 4, 2.5e-1, 7);
        ff_frd_close(&w, 1);
        fe_snapshots s;
        read_ok(path, &m, 0, &s);
        cr_assert_eq(s.count, 1);
        cr_assert_eq(s.time[0], 0.25);
        cr_assert_eq(s.step[0], 7);
        for (int k = 0; k < 12; k++)
            cr_assert_eq(s.u[k], RUN_TOGETHER[k], "%s format, value %d: %.6e, not %.6e",
                         fmt ? "long" : "short", k, s.u[k], RUN_TOGETHER[k]);
        fe_snapshots_free(&s);
        /* the same records against a mesh numbered otherwise: refused */
        fe_mesh other;
        one_tet(&other, fmt ? 1 : 1001);
        fe_snapshots bad;
        ldem_err err;
        cr_assert_eq(frd_read_disp(path, &other, 0, &bad, &err), LDEM_ERR_INPUT);
        fe_mesh_free(&other);
        fe_mesh_free(&m);
    }
}

/* A field with signs and magnitudes that exercise the fixed columns. */
static double *field(const fe_mesh *m, int count, unsigned seed)
{
    double *u = malloc((size_t)count * 3 * m->nnodes * sizeof *u);
    cr_assert_not_null(u);
    srand(seed);
    for (size_t i = 0; i < (size_t)count * 3 * m->nnodes; i++) {
        double mant = (double)rand() / RAND_MAX * 2 - 1;
        int e = rand() % 21 - 10;
        u[i] = mant * pow(10.0, e);
    }
    return u;
}

static const char *write_frd(const char *name, const fe_mesh *m, const double *u, int count,
                             int long_format, long *headers)
{
    const char *path = ff_path(name);
    ff_frd w;
    ff_frd_open(&w, path, long_format);
    ff_frd_nodes(&w, m);
    for (int k = 0; k < count; k++) {
        long h = ff_frd_disp(&w, m, u + (size_t)k * 3 * m->nnodes, NULL, 0, 0.5 * (k + 1), k + 1);
        if (headers)
            headers[k] = h;
        ff_frd_stress(&w, m, 0.5 * (k + 1), k + 1);
    }
    ff_frd_close(&w, 1);
    return path;
}

static void expect_snapshot(const fe_snapshots *s, size_t slot, const fe_mesh *m,
                            const double *u, int k)
{
    cr_assert_eq(s->time[slot], 0.5 * (k + 1));
    cr_assert_eq(s->step[slot], k + 1);
    const double *want = u + (size_t)k * 3 * m->nnodes, *got = s->u + slot * 3 * m->nnodes;
    for (size_t i = 0; i < 3 * m->nnodes; i++)
        cr_assert_eq(got[i], ff_e125(want[i]), "snapshot %d value %zu: %.6e vs %.6e", k + 1, i,
                     got[i], want[i]);
}

Test(fem_frd, formats_and_select)
{
    for (int order = FE_TET4; order <= FE_TET10; order += FE_TET10 - FE_TET4) {
        for (int fmt = 0; fmt < 2; fmt++) {
            fe_mesh m;
            ff_box_mesh(2, 2, 1, 0.25, order, &m); /* numbers up to 7*74+3: fit I5 */
            double *u = field(&m, 3, (unsigned)(order + fmt));
            const char *path = write_frd("three.frd", &m, u, 3, fmt, NULL);
            fe_snapshots s;
            read_ok(path, &m, 0, &s);
            cr_assert_eq(s.count, 3);
            for (int k = 0; k < 3; k++)
                expect_snapshot(&s, (size_t)k, &m, u, k);
            fe_snapshots_free(&s);
            read_ok(path, &m, 2, &s);
            cr_assert_eq(s.count, 1);
            expect_snapshot(&s, 0, &m, u, 1);
            fe_snapshots_free(&s);
            read_ok(path, &m, -1, &s);
            cr_assert_eq(s.count, 1);
            expect_snapshot(&s, 0, &m, u, 2);
            fe_snapshots_free(&s);
            ldem_err err;
            cr_assert_eq(frd_read_disp(path, &m, -2, &s, &err), LDEM_ERR_USAGE);
            free(u);
            fe_mesh_free(&m);
        }
    }
}

/* ------------------------------------------------------------------ errors -------- */

/* A box mesh and its field, one DISP block written with the given faults. */
typedef struct fault_case {
    fe_mesh m;
    double *u;
    unsigned char *skip;
} fault_case;

static void fault_begin(fault_case *c)
{
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &c->m);
    c->u = field(&c->m, 2, 11);
    c->skip = calloc(c->m.nnodes, 1);
    cr_assert_not_null(c->skip);
}

static void fault_end(fault_case *c)
{
    free(c->u);
    free(c->skip);
    fe_mesh_free(&c->m);
}

static const char *write_one(fault_case *c, const char *name, long extra, long *header)
{
    const char *path = ff_path(name);
    ff_frd w;
    ff_frd_open(&w, path, 1);
    ff_frd_nodes(&w, &c->m);
    *header = ff_frd_disp(&w, &c->m, c->u, c->skip, extra, 1.0, 1);
    ff_frd_close(&w, 1);
    return path;
}

/* Header line h: -4 at h+1, four -5, node records from h+6 in mesh order. */
#define RECORD_LINE(h, i) ((h) + 6 + (long)(i))

Test(fem_frd, missing_node_names_the_lowest_number)
{
    fault_case c;
    fault_begin(&c);
    long h;
    c.skip[5] = c.skip[2] = 1;
    const char *path = write_one(&c, "missing.frd", 0, &h);
    char word[64];
    snprintf(word, sizeof word, "no value for node %ld", c.m.node_id[2]);
    read_fails(path, &c.m, 0, h, word, "DISP block 1");
    fault_end(&c);
}

/* A node the mesh does not have (a wall's, a rigid body's reference node in a contact
 * model's .frd) is passed over; the grain's values are read as they are. */
Test(fem_frd, a_few_unknown_nodes_ignored)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path = write_one(&c, "extra.frd", 99999, &h);
    fe_snapshots s;
    read_ok(path, &c.m, 0, &s);
    cr_assert_eq(s.count, 1);
    for (size_t i = 0; i < 3 * c.m.nnodes; i++)
        cr_assert_eq(s.u[i], ff_e125(c.u[i]));
    fe_snapshots_free(&s);
    fault_end(&c);
}

Test(fem_frd, node_twice_refused)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path;
    /* the same node twice */
    path = write_one(&c, "twice.frd", c.m.node_id[0], &h);
    char word[64];
    snprintf(word, sizeof word, "first at line %ld", RECORD_LINE(h, 0));
    read_fails(path, &c.m, 0, RECORD_LINE(h, c.m.nnodes), "appears again", word);
    fault_end(&c);
}

Test(fem_frd, nan_and_infinite_values_refused)
{
    fault_case c;
    fault_begin(&c);
    long h;
    c.u[3 * 4 + 1] = NAN;
    const char *path = write_one(&c, "nan.frd", 0, &h);
    char word[64];
    snprintf(word, sizeof word, "node %ld: displacement component 2", c.m.node_id[4]);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 4), word, "NaN");
    c.u[3 * 4 + 1] = 0;
    c.u[3 * 7 + 2] = -INFINITY;
    path = write_one(&c, "inf.frd", 0, &h);
    snprintf(word, sizeof word, "node %ld: displacement component 3", c.m.node_id[7]);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 7), word, NULL);
    fault_end(&c);
}

/* Fortran prints asterisks for a number too wide for its field. */
Test(fem_frd, unreadable_value_refused)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path = write_one(&c, "stars.frd", 0, &h);
    size_t n;
    char *text = ff_slurp(path, &n);
    char rec[32];
    snprintf(rec, sizeof rec, "\n -1%10ld", c.m.node_id[3]);
    char *at = strstr(strstr(text, "DISP"), rec); /* not the node block's record */
    cr_assert_not_null(at);
    memcpy(at + 1 + 13 + 12, "************", 12); /* second value */
    ff_write(path, text);
    free(text);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 3), "'************' in columns 26-37", NULL);
    fault_end(&c);
}

Test(fem_frd, no_disp_block)
{
    fault_case c;
    fault_begin(&c);
    const char *path = ff_path("nodisp.frd");
    ff_frd w;
    ff_frd_open(&w, path, 1);
    ff_frd_nodes(&w, &c.m);
    ff_frd_stress(&w, &c.m, 1.0, 1);
    ff_frd_close(&w, 1);
    read_fails(path, &c.m, 0, 0, "no DISP block", NULL);
    fault_end(&c);
}

/* A zero snapshot is refused when it is read, and only then. */
Test(fem_frd, zero_snapshot)
{
    fault_case c;
    fault_begin(&c);
    memset(c.u, 0, 3 * c.m.nnodes * sizeof *c.u); /* first of the two fields */
    long h[2];
    const char *path = write_frd("zero.frd", &c.m, c.u, 2, 1, h);
    read_fails(path, &c.m, 0, h[0], "snapshot 1 is zero everywhere", NULL);
    read_fails(path, &c.m, 1, h[0], "snapshot 1 is zero everywhere", NULL);
    fe_snapshots s;
    read_ok(path, &c.m, 2, &s);
    cr_assert_eq(s.count, 1);
    fe_snapshots_free(&s);
    read_ok(path, &c.m, -1, &s);
    cr_assert_eq(s.time[0], 1.0);
    fe_snapshots_free(&s);
    /* zero last: "the last" is refused */
    memcpy(c.u, c.u + 3 * c.m.nnodes, 3 * c.m.nnodes * sizeof *c.u);
    memset(c.u + 3 * c.m.nnodes, 0, 3 * c.m.nnodes * sizeof *c.u);
    path = write_frd("zero_last.frd", &c.m, c.u, 2, 1, h);
    read_fails(path, &c.m, -1, h[1], "snapshot 2 is zero everywhere", NULL);
    fault_end(&c);
}

/* Problems in blocks that select passes over do not matter. */
Test(fem_frd, unselected_blocks_not_judged)
{
    fault_case c;
    fault_begin(&c);
    c.u[5] = NAN;
    long h[2];
    const char *path = write_frd("nan_first.frd", &c.m, c.u, 2, 1, h);
    fe_snapshots s;
    read_ok(path, &c.m, 2, &s);
    fe_snapshots_free(&s);
    read_ok(path, &c.m, -1, &s);
    fe_snapshots_free(&s);
    read_fails(path, &c.m, 0, RECORD_LINE(h[0], 1), "not a finite number", NULL);
    fault_end(&c);
}

static void truncate_at(const char *path, size_t at)
{
    cr_assert_eq(truncate(path, (off_t)at), 0);
}

Test(fem_frd, truncated_files)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path = write_one(&c, "cut.frd", 0, &h);
    size_t n;
    char *text = ff_slurp(path, &n);
    char rec[32];
    snprintf(rec, sizeof rec, "\n -1%10ld", c.m.node_id[6]);
    char *at = strstr(strstr(text, "DISP"), rec); /* not the node block's record */
    cr_assert_not_null(at);
    size_t record_start = (size_t)(at - text) + 1;
    /* in the middle of node 6's record */
    truncate_at(path, record_start + 30);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 6), "record of 30 characters", "truncated");
    /* right after node 5's full record: the block has no end */
    ff_write(path, text);
    truncate_at(path, record_start);
    char word[64];
    snprintf(word, sizeof word, "DISP block that starts at line %ld", h);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 5), word, "truncated");
    /* between blocks, without 9999: accepted (a run stopped after a complete step) */
    ff_write(path, text);
    char *end = strstr(text, "\n9999");
    cr_assert_not_null(end);
    truncate_at(path, (size_t)(end - text) + 1);
    fe_snapshots s;
    read_ok(path, &c.m, 0, &s);
    cr_assert_eq(s.count, 1);
    fe_snapshots_free(&s);
    /* inside the node block, after its first record (line 4) */
    ff_write(path, text);
    const char *eol = text;
    for (int k = 0; k < 4; k++)
        eol = strchr(eol, '\n') + 1;
    truncate_at(path, (size_t)(eol - text));
    read_fails(path, &c.m, 0, 4, "node (2C) block that starts at line 3", NULL);
    free(text);
    fault_end(&c);
}

Test(fem_frd, binary_frd_refused)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path = write_one(&c, "binary.frd", 0, &h);
    size_t n;
    char *text = ff_slurp(path, &n);
    char *nodes = strstr(text, "\n    2C");
    cr_assert_not_null(nodes);
    cr_assert_eq(nodes[1 + 73], '1');
    nodes[1 + 73] = '3'; /* FORMAT 3: binary, doubles */
    ff_write(path, text);
    read_fails(path, &c.m, 0, 3, "binary", "FORMAT 3");
    nodes[1 + 73] = '1';
    char *result = strstr(text, "\n  100CL");
    cr_assert_not_null(result);
    cr_assert_eq(result[1 + 74], '1');
    result[1 + 74] = '2';
    ff_write(path, text);
    read_fails(path, &c.m, 0, h, "binary", "FORMAT 2");
    free(text);
    fault_end(&c);
}

/* The results of another mesh: same numbers, other places; or other numbers. */
Test(fem_frd, mismatched_mesh)
{
    fault_case c;
    fault_begin(&c);
    fe_mesh moved;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &moved);
    moved.xyz[3 * 4 + 2] += 1e-3; /* 0.2% of an element */
    long h;
    const char *path = ff_path("moved.frd");
    ff_frd w;
    ff_frd_open(&w, path, 1);
    ff_frd_nodes(&w, &moved);
    h = ff_frd_disp(&w, &moved, c.u, NULL, 0, 1.0, 1);
    ff_frd_close(&w, 1);
    char word[64];
    snprintf(word, sizeof word, "node %ld is at", c.m.node_id[4]);
    read_fails(path, &c.m, 0, 4 + 4, word, "in the mesh");
    (void)h;
    /* numbered differently: most nodes unknown is another mesh, not a few walls' nodes */
    fe_mesh renum;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &renum);
    for (size_t i = 0; i < renum.nnodes; i++)
        renum.node_id[i] += 1000;
    path = ff_path("renumbered.frd");
    ff_frd_open(&w, path, 1);
    h = ff_frd_disp(&w, &renum, c.u, NULL, 0, 1.0, 1);
    ff_frd_close(&w, 1);
    snprintf(word, sizeof word, "node %ld is not in the mesh", renum.node_id[0]);
    read_fails(path, &c.m, 0, RECORD_LINE(h, 0), word, "nor are");
    /* shifted by one: all but one known, but the mesh's first node has no value */
    for (size_t i = 0; i < renum.nnodes; i++)
        renum.node_id[i] -= 1000 - 7; /* node k numbered as node k + 1 */
    path = ff_path("shifted.frd");
    ff_frd_open(&w, path, 1);
    h = ff_frd_disp(&w, &renum, c.u, NULL, 0, 1.0, 1);
    ff_frd_close(&w, 1);
    snprintf(word, sizeof word, "no value for node %ld", c.m.node_id[0]);
    read_fails(path, &c.m, 0, h, word, NULL);
    fe_mesh_free(&renum);
    fe_mesh_free(&moved);
    fault_end(&c);
}

/* Nodes that no tet uses may be absent (CalculiX leaves them out): zero there. */
Test(fem_frd, unused_mesh_nodes_may_be_absent)
{
    fault_case c;
    fault_begin(&c);
    long h;
    const char *path = write_one(&c, "plain.frd", 0, &h);
    fe_mesh m = c.m;
    size_t n = m.nnodes + 1;
    m.nnodes = n;
    m.xyz = malloc(3 * n * sizeof *m.xyz);
    m.node_id = malloc(n * sizeof *m.node_id);
    cr_assert(m.xyz && m.node_id);
    memcpy(m.xyz, c.m.xyz, 3 * (n - 1) * sizeof *m.xyz);
    memcpy(m.node_id, c.m.node_id, (n - 1) * sizeof *m.node_id);
    m.xyz[3 * (n - 1)] = m.xyz[3 * (n - 1) + 1] = m.xyz[3 * (n - 1) + 2] = 9.0;
    m.node_id[n - 1] = 5000;
    fe_snapshots s;
    read_ok(path, &m, 0, &s);
    for (size_t i = 0; i < 3 * (n - 1); i++)
        cr_assert_eq(s.u[i], ff_e125(c.u[i]));
    cr_assert(s.u[3 * (n - 1)] == 0 && s.u[3 * (n - 1) + 1] == 0 && s.u[3 * (n - 1) + 2] == 0);
    fe_snapshots_free(&s);
    free(m.xyz);
    free(m.node_id);
    fault_end(&c);
}

Test(fem_frd, not_an_frd)
{
    fault_case c;
    fault_begin(&c);
    const char *p = ff_path("text.frd");
    ff_write(p, "    1C\nhello\n");
    read_fails(p, &c.m, 0, 2, "unexpected line", NULL);
    ff_write(p, "    1C\n -1         1 0.00000E+00 0.00000E+00 0.00000E+00\n");
    read_fails(p, &c.m, 0, 2, "outside a block", NULL);
    ff_write(p, "");
    read_fails(p, &c.m, 0, 0, "no DISP block", NULL);
    fe_snapshots s;
    ldem_err err;
    cr_assert_eq(frd_read_disp(ff_path("nowhere.frd"), &c.m, 0, &s, &err), LDEM_ERR_INPUT);
    fault_end(&c);
}
