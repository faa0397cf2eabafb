/* bench_remap — level-set queries on a deformed grain: the rigid query, the on-demand
 * semi-Lagrangian remap (Henzel & Karapiperis §3.1.3) and the precomputed level sets
 * (§3.1.4), on speed and accuracy.
 *
 *   bench_remap BEAM.ldg [--amplitudes a,b,..] [--range E] [--samples n,m,..]
 *               [--queries N] [--seconds S] [--max-mean-error X] [--build-info TEXT]
 *               [-o OUT.tsv]
 *
 * The grain is the 160 × 4 × 4 beam of pipelines/grain-modes (lsgen cuboid, modefit's
 * analytic beam-bending mode, eq. 51). For each amplitude ε, query points fill the band
 * |φ| < 2h around the deformed surface: a point X' within 2h of the reference cuboid's
 * surface (along the face normal) is moved by the deformation to p = X' + εΦ(X'). The
 * reference is then exact and needs no grid: the deformed body's transported level set at
 * p is the cuboid's signed distance at the exact inverse image of p, which is X' by
 * construction, φ_ref(p) = sdf(X'), and its gradient (I + ε∇Φ(X'))⁻ᵀ ∇sdf(X'). (The bench
 * checks that the fixed-point inverse x ← p − εΦ(x) does return X', i.e. that the map is
 * invertible there.) Errors are |φ − φ_ref| in units of the grid spacing h over all points,
 * and the angle between ∇φ and ∇φ_ref over the points 2h or more from the cuboid's edges
 * (at an edge the reference normal jumps). Exit 1 if a remap or family method's mean error
 * exceeds --max-mean-error (in h, default 0.25), 2 on bad input.
 *
 * Methods, all in the body frame, φ and ∇φ per query:
 *   rigid         ldem_lset_sample at p (ignores the deformation: the cost floor)
 *   remap         ldem_levelset_sample_remap with the analytic Φ (sin/cos per query)
 *   remap-grid    the same with Φ from MODE's float32 grid field (trilinear)
 *   remap-3       remap with the analytic Φ and a 3-step pull back (modes: {pullback: 3})
 *   family-N      ldem_lset_family_sample, N amplitudes over [−E, E] (build time, bytes)
 * Times are the fastest of repeated passes over all query points (the machine is shared),
 * in ns per query and as a ratio to the rigid query of the same run. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ldem/bundle.h"
#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/modes.h"
#include "ldem/sections.h"

#define MAX_LIST 16

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_remap: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void die_err(const ldem_err *err)
{
    die("%s", err->msg);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the same points on every run */
static uint64_t rng = 20260101;
static double uniform01(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* ---- the grain ---- */

typedef struct grain {
    ldem_lset ls;
    ldem_nodes nodes;
    ldem_modes modes;
    ldem_matrix K, M;
    ldem_modeset analytic, grid; /* Φ by descriptor; Φ by MODE's grid field */
    ldem_modeset iterated;       /* analytic's arrays, pulled back in 3 steps (not freed) */
    int has_grid;
    double half[3]; /* the cuboid's half extents (NODE's bounding box) */
    double h;
} grain;

static void read_grain(const char *path, grain *g)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "bench_remap: error: %s: %s (make -C ../../grain-modes out/beam.ldg)\n",
                path, strerror(errno));
        exit(2);
    }
    ldem_err err = {0};
    ldem_bundle_reader *r = NULL;
    ldem_bundle b;
    ldem_bundle_init(&b);
    int have = 0;
    if (ldem_bundle_reader_open(&r, fp, path, &err) || ldem_bundle_read(r, &b, &have, &err))
        die_err(&err);
    if (!have)
        die("%s holds no bundle", path);
    const char *tags[5] = {LDEM_TAG_LSET, LDEM_TAG_NODE, LDEM_TAG_MODE, LDEM_TAG_KMAT,
                           LDEM_TAG_MMAT};
    for (int t = 0; t < 5; t++)
        if (!ldem_bundle_find(&b, tags[t]))
            die("the grain has no %s section (a deformable grain needs LSET, NODE, MODE, KMAT, "
                "MMAT)",
                tags[t]);
    memset(g, 0, sizeof *g);
    if (ldem_lset_decode(ldem_bundle_find(&b, LDEM_TAG_LSET), path, &g->ls, &err) ||
        ldem_nodes_decode(ldem_bundle_find(&b, LDEM_TAG_NODE), path, &g->nodes, &err) ||
        ldem_modes_decode(ldem_bundle_find(&b, LDEM_TAG_MODE), path, &g->modes, &err) ||
        ldem_matrix_decode(ldem_bundle_find(&b, LDEM_TAG_KMAT), path, &g->K, &err) ||
        ldem_matrix_decode(ldem_bundle_find(&b, LDEM_TAG_MMAT), path, &g->M, &err))
        die_err(&err);
    ldem_bundle_reader_close(r);
    ldem_bundle_free(&b);
    fclose(fp);
    if (g->modes.kind != LDEM_MODE_ANALYTIC || !g->modes.descriptor || g->modes.count != 1)
        die("%s: expected one analytic (beam-bending) mode", path);
    if (ldem_modeset_build(&g->modes, &g->K, &g->M, NULL, NULL, g->nodes.count, g->nodes.position,
                           &g->analytic, &err))
        die_err(&err);
    g->has_grid = g->modes.grid_values && g->modes.grid_dims[0];
    if (g->has_grid) {
        ldem_modes sampled = g->modes;
        sampled.kind = LDEM_MODE_SAMPLED;
        sampled.descriptor = NULL;
        if (ldem_modeset_build(&sampled, &g->K, &g->M, NULL, NULL, g->nodes.count,
                               g->nodes.position, &g->grid, &err))
            die_err(&err);
    }
    for (uint64_t k = 0; k < g->nodes.count; k++)
        for (int a = 0; a < 3; a++)
            g->half[a] = fmax(g->half[a], fabs(g->nodes.position[3 * k + a]));
    g->h = fmax(g->ls.spacing[0], fmax(g->ls.spacing[1], g->ls.spacing[2]));
}

/* Signed distance to the cuboid and its gradient (the face, edge or corner direction). */
static double box_sdf(const double half[3], ldem_vec3 p, ldem_vec3 *grad)
{
    double x[3] = {p.x, p.y, p.z}, q[3], out2 = 0.0, in = -INFINITY, g[3] = {0, 0, 0};
    int arg = 0;
    for (int a = 0; a < 3; a++) {
        q[a] = fabs(x[a]) - half[a];
        if (q[a] > 0.0)
            out2 += q[a] * q[a];
        if (q[a] > in) {
            in = q[a];
            arg = a;
        }
    }
    double d;
    if (out2 > 0.0) {
        d = sqrt(out2);
        for (int a = 0; a < 3; a++)
            g[a] = q[a] > 0.0 ? copysign(q[a] / d, x[a]) : 0.0;
    } else {
        d = in;
        g[arg] = copysign(1.0, x[arg]);
    }
    if (grad)
        *grad = ldem_vec3_make(g[0], g[1], g[2]);
    return d;
}

/* How faithfully the bundle describes the analytic cuboid and mode the reference uses. */
static void check_input(const grain *g)
{
    double lset = 0.0, nodes = 0.0, field = 0.0;
    for (uint32_t k = 0; k < g->ls.dims[2]; k++)
        for (uint32_t j = 0; j < g->ls.dims[1]; j++)
            for (uint32_t i = 0; i < g->ls.dims[0]; i++) {
                ldem_vec3 x = ldem_lset_node(&g->ls, i, j, k);
                double phi = g->ls.phi[i + (size_t)g->ls.dims[0] * (j + (size_t)g->ls.dims[1] * k)];
                if (fabs(phi) < 2.0 * g->h)
                    lset = fmax(lset, fabs(phi - box_sdf(g->half, x, NULL)));
                if (g->has_grid) {
                    ldem_vec3 a, b;
                    ldem_modes_eval(&g->analytic, x, &a, NULL);
                    ldem_modes_eval(&g->grid, x, &b, NULL);
                    field = fmax(field, ldem_vec3_dist(a, b));
                }
            }
    for (uint64_t k = 0; k < g->nodes.count; k++) {
        const double *p = &g->nodes.position[3 * k];
        ldem_vec3 phi;
        ldem_modes_eval(&g->analytic, ldem_vec3_make(p[0], p[1], p[2]), &phi, NULL);
        if (g->modes.node_values && g->modes.nnodes == g->nodes.count) {
            const double *v = &g->modes.node_values[3 * k];
            nodes = fmax(nodes, ldem_vec3_dist(phi, ldem_vec3_make(v[0], v[1], v[2])));
        }
    }
    printf("grain: cuboid %g x %g x %g, h = %g, %llu surface nodes, grid %ux%ux%u; "
           "omega_max %.6g\n",
           2 * g->half[0], 2 * g->half[1], 2 * g->half[2], g->h, (unsigned long long)g->nodes.count,
           g->ls.dims[0], g->ls.dims[1], g->ls.dims[2], g->analytic.omega_max);
    printf("input check: |LSET - analytic cuboid distance| <= %.3g h in the band; "
           "|MODE node values - descriptor| <= %.3g; |MODE grid field - descriptor| <= %.3g%s\n",
           lset / g->h, nodes, field, g->has_grid ? "" : " (no grid field)");
    if (lset > 0.5 * g->h)
        die("%s", "LSET is not the cuboid NODE's bounding box describes: the analytic reference "
                  "does not apply");
    if (nodes > 1e-6)
        fprintf(stderr,
                "bench_remap: warning: MODE's node values and its descriptor disagree "
                "by %.3g\n",
                nodes);
}

/* ---- query points and reference ---- */

typedef struct points {
    size_t n;
    ldem_vec3 *p; /* deformed positions */
    double *phi_ref;
    ldem_vec3 *grad_ref; /* unit */
    unsigned char *face; /* X' lies 2h or more from every edge: a well-defined normal */
    double inverse_residual;
} points;

/* A point within `band` of the cuboid's surface: a face picked by area, a point on it, an
 * offset along its normal. */
static ldem_vec3 near_surface(const double half[3], double band)
{
    double area[3] = {half[1] * half[2], half[0] * half[2], half[0] * half[1]};
    double pick = uniform01() * (area[0] + area[1] + area[2]);
    int axis = pick < area[0] ? 0 : pick < area[0] + area[1] ? 1 : 2;
    double x[3];
    for (int a = 0; a < 3; a++)
        x[a] = half[a] * (2.0 * uniform01() - 1.0);
    double side = uniform01() < 0.5 ? -1.0 : 1.0;
    x[axis] = side * (half[axis] + band * (2.0 * uniform01() - 1.0));
    return ldem_vec3_make(x[0], x[1], x[2]);
}

static void invert3(double m[3][3], double inv[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
            inv[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
        }
}

static int compare_x(const void *a, const void *b)
{
    double x = ((const ldem_vec3 *)a)->x, y = ((const ldem_vec3 *)b)->x;
    return (x > y) - (x < y);
}

static void make_points(const grain *g, double eps, size_t n, points *pts)
{
    pts->n = n;
    pts->p = malloc(n * sizeof *pts->p);
    pts->phi_ref = malloc(n * sizeof *pts->phi_ref);
    pts->grad_ref = malloc(n * sizeof *pts->grad_ref);
    pts->face = malloc(n);
    if (!pts->p || !pts->phi_ref || !pts->grad_ref || !pts->face)
        die("%s", "out of memory for the query points");
    pts->inverse_residual = 0.0;
    /* visited in order along the beam, as contact detection visits a grain's nodes: the
     * grids are then read with the locality a simulation has, not at random */
    ldem_vec3 *ref = malloc(n * sizeof *ref);
    if (!ref)
        die("%s", "out of memory for the query points");
    for (size_t i = 0; i < n; i++)
        ref[i] = near_surface(g->half, 2.0 * g->h);
    qsort(ref, n, sizeof *ref, compare_x);
    for (size_t i = 0; i < n; i++) {
        ldem_vec3 X = ref[i], u, gs;
        ldem_mat3 J;
        ldem_modes_displacement(&g->analytic, &eps, X, &u, &J);
        ldem_vec3 p = ldem_vec3_add(X, u);
        pts->p[i] = p;
        pts->phi_ref[i] = box_sdf(g->half, X, &gs);
        /* away from edges: at most one coordinate within 2h of its face */
        int near = 0;
        double xc[3] = {X.x, X.y, X.z};
        for (int a = 0; a < 3; a++)
            near += fabs(fabs(xc[a]) - g->half[a]) < 2.0 * g->h;
        pts->face[i] = near <= 1;
        /* ∇φ_ref = (∂x_ref/∂p)ᵀ ∇sdf = (I + J)⁻ᵀ ∇sdf */
        double F[3][3], Fi[3][3];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                F[a][b] = (a == b) + J.m[a][b];
        invert3(F, Fi);
        double gv[3] = {gs.x, gs.y, gs.z}, r[3];
        for (int b = 0; b < 3; b++)
            r[b] = Fi[0][b] * gv[0] + Fi[1][b] * gv[1] + Fi[2][b] * gv[2];
        pts->grad_ref[i] = ldem_vec3_normalize(ldem_vec3_make(r[0], r[1], r[2]));
        /* the exact inverse map by fixed point must come back to X */
        ldem_vec3 x = p;
        for (int it = 0; it < 200; it++) {
            ldem_modes_displacement(&g->analytic, &eps, x, &u, NULL);
            ldem_vec3 next = ldem_vec3_sub(p, u);
            double step = ldem_vec3_dist(next, x);
            x = next;
            if (step <= 1e-12 * g->h)
                break;
        }
        pts->inverse_residual = fmax(pts->inverse_residual, ldem_vec3_dist(x, X));
    }
    free(ref);
}

static void free_points(points *pts)
{
    free(pts->p);
    free(pts->phi_ref);
    free(pts->grad_ref);
    free(pts->face);
}

/* ---- methods ---- */

enum { RIGID, REMAP, REMAP_GRID, REMAP_ITERATED, FAMILY };

typedef struct method {
    int kind;
    char name[32];
    const ldem_lset_family *family;
} method;

/* One pass over the points; φ and ∇φ stored (so nothing is optimized away). */
static void run(const method *m, const grain *g, double eps, const points *pts, double *phi,
                ldem_vec3 *grad)
{
    const ldem_lset *ls = &g->ls;
    size_t n = pts->n;
    switch (m->kind) {
    case RIGID:
        for (size_t i = 0; i < n; i++)
            ldem_lset_sample(ls, pts->p[i], &phi[i], &grad[i]);
        break;
    case REMAP:
        for (size_t i = 0; i < n; i++)
            ldem_levelset_sample_remap(ls, &g->analytic, &eps, pts->p[i], &phi[i], &grad[i]);
        break;
    case REMAP_GRID:
        for (size_t i = 0; i < n; i++)
            ldem_levelset_sample_remap(ls, &g->grid, &eps, pts->p[i], &phi[i], &grad[i]);
        break;
    case REMAP_ITERATED:
        for (size_t i = 0; i < n; i++)
            ldem_levelset_sample_remap(ls, &g->iterated, &eps, pts->p[i], &phi[i], &grad[i]);
        break;
    default:
        for (size_t i = 0; i < n; i++)
            ldem_lset_family_sample(m->family, ls, &eps, pts->p[i], &phi[i], &grad[i]);
        break;
    }
}

static double time_method(const method *m, const grain *g, double eps, const points *pts,
                          double seconds, double *phi, ldem_vec3 *grad)
{
    double best = INFINITY, start = now();
    int reps = 0;
    while (reps < 3 || now() - start < seconds) {
        double t0 = now();
        run(m, g, eps, pts, phi, grad);
        best = fmin(best, now() - t0);
        reps++;
    }
    return 1e9 * best / (double)pts->n;
}

typedef struct accuracy {
    double max_h, mean_h;         /* |φ − φ_ref| / h over all points */
    double angle_mean, angle_max; /* degrees, points away from the cuboid's edges */
    size_t face_points;
} accuracy;

static accuracy measure(const grain *g, const points *pts, const double *phi, const ldem_vec3 *grad)
{
    accuracy a = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < pts->n; i++) {
        double e = fabs(phi[i] - pts->phi_ref[i]) / g->h;
        a.max_h = fmax(a.max_h, e);
        a.mean_h += e;
        if (!pts->face[i])
            continue;
        double c = ldem_vec3_dot(ldem_vec3_normalize(grad[i]), pts->grad_ref[i]);
        double angle = acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / 3.14159265358979323846;
        a.angle_mean += angle;
        a.angle_max = fmax(a.angle_max, angle);
        a.face_points++;
    }
    a.mean_h /= (double)pts->n;
    a.angle_mean /= (double)(a.face_points ? a.face_points : 1);
    return a;
}

/* ---- command line ---- */

static size_t parse_list(const char *text, double *out, const char *what)
{
    size_t n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || n == MAX_LIST || !isfinite(v))
            die("bad list for %s", what);
        out[n++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            die("bad list for %s", what);
    }
    if (!n)
        die("empty list for %s", what);
    return n;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL, *build_info = "unknown (pass --build-info)";
    double amps[MAX_LIST] = {0.7, 2.9, 8.3}, samples_d[MAX_LIST] = {11, 41};
    size_t namps = 3, nsamples = 2, nqueries = 100000;
    double range = 10.0, seconds = 0.3, max_mean = 0.25;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--amplitudes") && i + 1 < argc)
            namps = parse_list(argv[++i], amps, "--amplitudes");
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            nsamples = parse_list(argv[++i], samples_d, "--samples");
        else if (!strcmp(argv[i], "--range") && i + 1 < argc)
            range = atof(argv[++i]);
        else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
            nqueries = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-mean-error") && i + 1 < argc)
            max_mean = atof(argv[++i]);
        else if (!strcmp(argv[i], "--build-info") && i + 1 < argc)
            build_info = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out_path = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            die("%s", "usage: bench_remap BEAM.ldg [--amplitudes a,b,..] [--range E] "
                      "[--samples n,m,..] [--queries N] [--seconds S] [--max-mean-error X] "
                      "[--build-info TEXT] [-o OUT.tsv]");
    }
    if (!path)
        die("%s", "no grain given (usage: bench_remap BEAM.ldg ...)");
    if (!(range > 0.0) || nqueries < 100 || !(seconds > 0.0))
        die("%s", "--range and --seconds must be > 0, --queries >= 100");
    for (size_t a = 0; a < namps; a++)
        if (fabs(amps[a]) > range)
            die("%s", "an amplitude lies outside the family's --range");

    grain g;
    read_grain(path, &g);
    printf("bench_remap: %s\nlibldem: %s\n", path, build_info);
    check_input(&g);

    /* the precomputed families */
    method methods[5 + MAX_LIST];
    size_t nmethods = 0;
    methods[nmethods++] = (method){RIGID, "rigid", NULL};
    methods[nmethods++] = (method){REMAP, "remap", NULL};
    if (g.has_grid)
        methods[nmethods++] = (method){REMAP_GRID, "remap-grid", NULL};
    g.iterated = g.analytic;
    g.iterated.pullback = 3;
    methods[nmethods++] = (method){REMAP_ITERATED, "remap-3", NULL};
    ldem_lset_family families[MAX_LIST];
    for (size_t s = 0; s < nsamples; s++) {
        uint32_t n = (uint32_t)samples_d[s];
        double lo = -range, hi = range, t0 = now();
        ldem_err err = {0};
        if (ldem_lset_family_build(&g.ls, &g.analytic, &lo, &hi, n, &families[s], &err))
            die_err(&err);
        double built = now() - t0;
        printf("family-%u: %u amplitudes over [%g, %g] (d eps %.3g): built in %.3f s, %.1f MB "
               "(LSET itself %.1f MB)\n",
               n, n, lo, hi, (hi - lo) / (n - 1), built,
               (double)ldem_lset_family_bytes(&families[s]) / 1e6,
               (double)ldem_lset_count(&g.ls) * sizeof(float) / 1e6);
        methods[nmethods] = (method){FAMILY, "", &families[s]};
        snprintf(methods[nmethods].name, sizeof methods[nmethods].name, "family-%u", n % 100000);
        nmethods++;
    }

    FILE *tsv = NULL;
    if (out_path) {
        tsv = fopen(out_path, "w");
        if (!tsv)
            die("cannot write %s", out_path);
        fprintf(tsv,
                "# bench_remap %s; libldem: %s; h = %g; reference: cuboid distance at the "
                "exact inverse image\n",
                path, build_info, g.h);
        fprintf(tsv, "eps\tmethod\tns_per_query\tratio_to_rigid\terr_max_h\terr_mean_h\t"
                     "normal_mean_deg\tnormal_max_deg\n");
    }
    double *phi = malloc(nqueries * sizeof *phi);
    ldem_vec3 *grad = malloc(nqueries * sizeof *grad);
    if (!phi || !grad)
        die("%s", "out of memory for the results");
    for (size_t a = 0; a < namps; a++) {
        double eps = amps[a];
        points pts;
        make_points(&g, eps, nqueries, &pts);
        double umax = fabs(eps) * g.analytic.node_max[0];
        printf("\neps = %g (surface moves up to %.3g = %.2g h); %zu points with |phi_ref| < 2h; "
               "fixed-point inverse returns to X' within %.2g\n",
               eps, umax, umax / g.h, nqueries, pts.inverse_residual);
        printf("  %-12s %10s %8s %12s %12s %14s %13s\n", "method", "ns/query", "x rigid",
               "max err/h", "mean err/h", "normal mean", "normal max");
        double rigid_ns = 0.0;
        for (size_t k = 0; k < nmethods; k++) {
            double ns = time_method(&methods[k], &g, eps, &pts, seconds, phi, grad);
            if (methods[k].kind == RIGID)
                rigid_ns = ns;
            accuracy acc = measure(&g, &pts, phi, grad);
            if (methods[k].kind != RIGID && !(acc.mean_h <= max_mean)) {
                fprintf(stderr, "bench_remap: FAIL: %s at eps = %g: mean error %.3g h > %.3g h\n",
                        methods[k].name, eps, acc.mean_h, max_mean);
                failed = 1;
            }
            printf("  %-12s %10.1f %8.2f %12.4f %12.4f %12.3f deg %9.3f deg\n", methods[k].name, ns,
                   ns / rigid_ns, acc.max_h, acc.mean_h, acc.angle_mean, acc.angle_max);
            if (tsv)
                fprintf(tsv, "%g\t%s\t%.2f\t%.3f\t%.6g\t%.6g\t%.6g\t%.6g\n", eps, methods[k].name,
                        ns, ns / rigid_ns, acc.max_h, acc.mean_h, acc.angle_mean, acc.angle_max);
        }
        free_points(&pts);
    }
    if (tsv && fclose(tsv))
        die("cannot write %s", out_path);
    free(phi);
    free(grad);
    for (size_t s = 0; s < nsamples; s++)
        ldem_lset_family_free(&families[s]);
    ldem_modeset_free(&g.analytic);
    if (g.has_grid)
        ldem_modeset_free(&g.grid);
    ldem_lset_free(&g.ls);
    ldem_nodes_free(&g.nodes);
    ldem_modes_free(&g.modes);
    ldem_matrix_free(&g.K);
    ldem_matrix_free(&g.M);
    return failed;
}
