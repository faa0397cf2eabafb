/* lsquad: interior quadrature from a level set, against closed forms.
 *
 * Level sets are sampled from exact signed distances (lsfixture.c) and stored as float32
 * like LSET. Two kinds of error are in play and the tests keep them apart:
 *  - the grid's: the trilinear interpolant of a curved or edged SDF is not the exact
 *    surface (independent of depth): on a sphere the interpolant overestimates the convex
 *    φ by (1/2) Σ_a f_a (1 − f_a) h² ∂²φ/∂x_a², on average h²/(6R) since E[f(1 − f)] = 1/6
 *    and tr ∇∇φ = 2/R; so the radius shrinks by h²/(6R), the volume by h²/(2R²) and
 *    ∫x² = 4πR⁵/15 by 5h²/(6R²). On a box the long edges are rounded.
 *  - the rule's: how well sub-cells and inside fractions integrate {trilinear φ < 0}; depth
 *    controls it. A plane is reproduced exactly by trilinear interpolation, so a tilted
 *    half-space isolates it (closed form: a box cut by a plane).
 * Measured numbers are quoted where the bounds are set (h, depth as in each test). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "lsfixture.h"
#include "lsquad.h"

#define PI 3.14159265358979323846

typedef struct moments {
    double volume, xx;   /* ∫1, ∫x² */
    double lo[3], hi[3]; /* bounding box of the points */
    long count;
    int bad_weight;      /* a weight ≤ 0 or non-finite */
} moments;

static void add_moments(void *ctx, const double x[3], double w)
{
    moments *m = ctx;
    m->volume += w;
    m->xx += w * x[0] * x[0];
    for (int a = 0; a < 3; a++) {
        m->lo[a] = fmin(m->lo[a], x[a]);
        m->hi[a] = fmax(m->hi[a], x[a]);
    }
    m->count++;
    if (!(w > 0.0) || !isfinite(w))
        m->bad_weight = 1;
}

static moments integrate(const ldem_lset *ls, int depth)
{
    moments m = {.lo = {INFINITY, INFINITY, INFINITY}, .hi = {-INFINITY, -INFINITY, -INFINITY}};
    ldem_err err;
    cr_assert_eq(lsquad_interior(ls, depth, add_moments, &m, &err), LDEM_OK, "%s", err.msg);
    cr_assert_not(m.bad_weight, "every weight is finite and > 0");
    return m;
}

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* A grid of the given size at the origin with φ = f(node), as float32. */
static ldem_lset grid_of(uint32_t nx, uint32_t ny, uint32_t nz, double h,
                         double (*f)(const double x[3], const void *p), const void *p)
{
    ldem_lset ls = {{nx, ny, nz}, {0.0, 0.0, 0.0}, {h, h, h}, NULL};
    ls.phi = malloc((size_t)nx * ny * nz * sizeof(float));
    cr_assert_not_null(ls.phi);
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                double x[3] = {i * h, j * h, k * h};
                ls.phi[i + (size_t)nx * (j + (size_t)ny * k)] = (float)f(x, p);
            }
    return ls;
}

/* ---- sphere: R = 10, h = 0.5 ---- */

/* Measured relative errors (signed), depth 1 / 2 / 3:
 *   V  vs 4/3 πR³:                 −1.071e-3 / −1.205e-3 / −1.238e-3
 *   ∫x² vs 4πR⁵/15:                −1.019e-3 / −1.816e-3 / −2.015e-3
 *   V  vs 4/3 πR³ (1 − h²/(2R²)):   1.8e-4 / 4.5e-5 / 1.2e-5   (÷4 per depth)
 *   ∫x² vs 4πR⁵/15 (1 − 5h²/(6R²)): 1.1e-3 / 2.7e-4 / 6.8e-5   (÷4 per depth)
 * so lsquad converges, second order in the sub-cell size, to the trilinear body, whose
 * own distance from the sphere (1.25e-3 in volume) is the grid's. */
Test(lsquad, sphere_volume_and_second_moment)
{
    const double R = 10.0, h = 0.5, half[3] = {R, R, R};
    ldem_lset ls = lsfix_make(lsfix_sphere, &R, half, h, 3, 0.0);
    const double V = 4.0 / 3.0 * PI * R * R * R, XX = 4.0 * PI * pow(R, 5) / 15.0;
    const double V_tri = V * (1.0 - h * h / (2.0 * R * R));
    const double XX_tri = XX * (1.0 - 5.0 * h * h / (6.0 * R * R));
    double ev[4], ex[4];
    for (int d = 1; d <= 3; d++) {
        moments m = integrate(&ls, d);
        ev[d] = rel(m.volume, V_tri);
        ex[d] = rel(m.xx, XX_tri);
        cr_log_info("sphere depth %d: %ld points, V %.3e, xx %.3e (vs exact); %.2e, %.2e "
                    "(vs trilinear body)",
                    d, m.count, (m.volume - V) / V, (m.xx - XX) / XX, ev[d], ex[d]);
        if (d == 3) {
            cr_expect_leq(rel(m.volume, V), 1.3e-3, "V %.6g vs %.6g", m.volume, V);
            cr_expect_leq(rel(m.xx, XX), 2.1e-3, "xx %.6g vs %.6g", m.xx, XX);
            cr_expect_leq(ev[d], 3e-5);
            cr_expect_leq(ex[d], 1.5e-4);
            /* Every point lies inside the grid and near the ball. */
            for (int a = 0; a < 3; a++)
                cr_expect(m.lo[a] > -R - h && m.hi[a] < R + h);
        }
    }
    for (int d = 2; d <= 3; d++) {
        cr_expect_lt(ev[d], ev[d - 1] / 3.0, "volume error must fall with depth: %g, %g",
                     ev[d - 1], ev[d]);
        cr_expect_lt(ex[d], ex[d - 1] / 3.0, "x² error must fall with depth: %g, %g",
                     ex[d - 1], ex[d]);
    }
    ldem_lset_free(&ls);
}

/* ---- tilted plane: the rule's error alone ---- */

/* Volume of the box [0,A]×[0,B]×[0,C] below the plane n·x = s (all n_a > 0), by
 * inclusion–exclusion over the box's vertices: Σ_v (−1)^{#v} max(s − n·v, 0)³ / (6 n₁n₂n₃),
 * #v being how many of v's coordinates are at the far side. */
static double box_below_plane(const double size[3], const double n[3], double s)
{
    double sum = 0.0;
    for (int v = 0; v < 8; v++) {
        double nv = 0.0;
        int sign = 1;
        for (int a = 0; a < 3; a++)
            if (v >> a & 1) {
                nv += n[a] * size[a];
                sign = -sign;
            }
        double r = fmax(s - nv, 0.0);
        sum += sign * r * r * r;
    }
    return sum / (6.0 * n[0] * n[1] * n[2]);
}

typedef struct plane {
    double n[3], s;
} plane;

static double plane_sdf(const double x[3], const void *p)
{
    const plane *q = p;
    return q->n[0] * x[0] + q->n[1] * x[1] + q->n[2] * x[2] - q->s;
}

/* n ∝ (1, 2, 3), cutting a 10 × 8 × 6 grid box (h = 0.5) through all its faces.
 * Measured relative errors, depth 0..4: 3.4e-3, 8.9e-4, 2.2e-4, 5.6e-5, 1.3e-5. */
Test(lsquad, tilted_plane_converges_second_order)
{
    plane p = {{1.0 / sqrt(14.0), 2.0 / sqrt(14.0), 3.0 / sqrt(14.0)}, 4.3};
    ldem_lset ls = grid_of(21, 17, 13, 0.5, plane_sdf, &p);
    const double size[3] = {10.0, 8.0, 6.0};
    const double V = box_below_plane(size, p.n, p.s);
    double e[5];
    for (int d = 0; d <= 4; d++) {
        e[d] = rel(integrate(&ls, d).volume, V);
        cr_log_info("tilted plane depth %d: rel. error %.3e", d, e[d]);
    }
    for (int d = 1; d <= 4; d++)
        cr_expect(e[d] < e[d - 1] / 3.0 && e[d] > e[d - 1] / 5.5,
                  "second order: error ÷4 per depth, got %g then %g", e[d - 1], e[d]);
    cr_expect_leq(e[3], 1e-4);
    ldem_lset_free(&ls);
}

/* ---- planes parallel to the cells' faces: exact ---- */

/* φ = x_axis − c with c and the nodes exactly representable, so float32 storage is exact
 * and the inside fraction is exact: volume = (c − 0) × the other two extents, to round-off
 * (measured ≤ 3e-16), at any depth. */
Test(lsquad, planes_parallel_to_faces_are_exact)
{
    const double c = 2.375; /* 4.75 cells: the surface cuts cells at a quarter */
    for (int axis = 0; axis < 3; axis++)
        for (int d = 0; d <= 3; d += 3) {
            plane p = {{0.0, 0.0, 0.0}, c};
            p.n[axis] = 1.0;
            ldem_lset ls = grid_of(11, 9, 7, 0.5, plane_sdf, &p);
            const double extent[3] = {5.0, 4.0, 3.0};
            double V = c * extent[(axis + 1) % 3] * extent[(axis + 2) % 3];
            moments m = integrate(&ls, d);
            cr_expect_leq(rel(m.volume, V), 1e-14, "axis %d depth %d: %.17g vs %.17g", axis,
                          d, m.volume, V);
            ldem_lset_free(&ls);
        }
}

/* ---- full cells: 2×2×2 Gauss, exact for tricubics ---- */

static double deep_inside(const double x[3], const void *p)
{
    (void)x;
    (void)p;
    return -100.0;
}

typedef struct poly_sum {
    double sum;
    long count;
} poly_sum;

/* x³y²z + 2xy³ − z³ + x²y²z²: degree ≤ 3 per variable. */
static double tricubic(const double x[3])
{
    return x[0] * x[0] * x[0] * x[1] * x[1] * x[2] + 2.0 * x[0] * x[1] * x[1] * x[1] -
           x[2] * x[2] * x[2] + x[0] * x[0] * x[1] * x[1] * x[2] * x[2];
}

static void add_tricubic(void *ctx, const double x[3], double w)
{
    poly_sum *s = ctx;
    s->sum += w * tricubic(x);
    s->count++;
}

/* ∫ over [0,A]×[0,B]×[0,C]: (A⁴/4)(B³/3)(C²/2) + 2 (A²/2)(B⁴/4) C − A B C⁴/4
 * + (A³/3)(B³/3)(C³/3). */
Test(lsquad, full_cells_integrate_tricubics_exactly)
{
    ldem_lset ls = grid_of(5, 4, 6, 0.5, deep_inside, NULL);
    const double A = 2.0, B = 1.5, C = 2.5;
    const double want = pow(A, 4) / 4 * pow(B, 3) / 3 * C * C / 2 + 2 * (A * A / 2) * pow(B, 4) / 4 * C -
                        A * B * pow(C, 4) / 4 + pow(A, 3) / 3 * pow(B, 3) / 3 * pow(C, 3) / 3;
    poly_sum s = {0.0, 0};
    ldem_err err;
    cr_assert_eq(lsquad_interior(&ls, 3, add_tricubic, &s, &err), LDEM_OK);
    cr_expect_eq(s.count, 8 * 4 * 3 * 5, "8 Gauss points per cell, nothing subdivided");
    cr_expect_leq(rel(s.sum, want), 1e-14, "%.17g vs %.17g", s.sum, want);
    ldem_lset_free(&ls);
}

/* ---- the 160 × 4 × 4 box ---- */

/* Grid-aligned (faces on grid planes) the trilinear body is the box itself; the rule loses
 * a little at the long edges, where φ is a saddle (measured −5.2e-4 at depth 2, −1.8e-4 at
 * depth 3). Offset by 0.37 h the interpolant rounds the 12 edges; the trilinear body's
 * volume is then 160 A − 8 (16 − A) (the 8 end edges, each 4 long, lose what the 4
 * cross-section corners lose, (16 − A) / 4 each), A being its cross-section measured by
 * sampling φ (lsfix_cross_section). Measured: V vs 2560: −1.46e-3 (depth 2), −1.54e-3
 * (depth 3); vs that reference see the log. The brief hoped for 1e-3 against the exact
 * box: the offset grid's edge rounding alone costs more at h = 0.2. */
Test(lsquad, box_volume_aligned_and_offset)
{
    const double half[3] = {80.0, 2.0, 2.0}, h = 0.2, V = 160.0 * 4.0 * 4.0;
    ldem_lset aligned = lsfix_make(lsfix_box, half, half, h, 3, 0.0);
    double e_aligned[4];
    for (int d = 2; d <= 3; d++) {
        moments m = integrate(&aligned, d);
        e_aligned[d] = rel(m.volume, V);
        cr_log_info("box aligned depth %d: %ld points, V rel. error %.3e", d, m.count,
                    (m.volume - V) / V);
    }
    cr_expect_leq(e_aligned[3], 3e-4);
    cr_expect_lt(e_aligned[3], e_aligned[2] / 2.0);
    ldem_lset_free(&aligned);

    ldem_lset offset = lsfix_make(lsfix_box, half, half, h, 3, 0.37);
    double A, iyy, izz;
    lsfix_cross_section(&offset, 0.3, 2.2, 2200, &A, &iyy, &izz);
    const double V_tri = 160.0 * A - 8.0 * (16.0 - A);
    cr_log_info("box offset: trilinear cross-section %.6f (box 16), body %.3e from the box",
                A, (V_tri - V) / V);
    double e_tri[4];
    for (int d = 2; d <= 3; d++) {
        moments m = integrate(&offset, d);
        e_tri[d] = rel(m.volume, V_tri);
        cr_log_info("box offset depth %d: V rel. error %.3e (box), %.3e (trilinear body)", d,
                    (m.volume - V) / V, e_tri[d]);
        cr_expect_leq(rel(m.volume, V), 2e-3);
    }
    cr_expect_leq(e_tri[3], 3e-4);
    ldem_lset_free(&offset);
}

/* ---- an independent implementation of the rule, through ldem_lset_sample ---- */

typedef struct weighted {
    double sum;
} weighted;

static double smooth(const double x[3])
{
    return 1.0 + x[0] - 0.5 * x[1] * x[1] + 0.25 * x[0] * x[1] * x[2] + cos(x[2]);
}

static void add_smooth(void *ctx, const double x[3], double w)
{
    ((weighted *)ctx)->sum += w * smooth(x);
}

/* The header's rule written out directly: classify each cell by its corners as sampled
 * by ldem_lset_sample, subdivide cut ones and weight each sub-cell centre by
 * clamp(1/2 − φ/(h_sub |∇φ|₁)) with φ, ∇φ from ldem_lset_sample (world coordinates). */
static double brute_force(const ldem_lset *ls, int depth)
{
    const double h = ls->spacing[0];
    const int n = 1 << depth;
    const double hs = h / n;
    double sum = 0.0;
    for (uint32_t k = 0; k + 1 < ls->dims[2]; k++)
        for (uint32_t j = 0; j + 1 < ls->dims[1]; j++)
            for (uint32_t i = 0; i + 1 < ls->dims[0]; i++) {
                ldem_vec3 lo = ldem_lset_node(ls, i, j, k);
                int neg = 0, pos = 0;
                for (int c = 0; c < 8; c++) {
                    double v = ls->phi[(i + (c & 1)) +
                                       ls->dims[0] * ((j + (c >> 1 & 1)) + ls->dims[1] * (k + (c >> 2)))];
                    neg += v < 0.0;
                    pos += v >= 0.0;
                }
                if (neg == 0)
                    continue;
                if (pos == 0) {
                    const double g = 0.5 / sqrt(3.0);
                    for (int q = 0; q < 8; q++) {
                        double x[3] = {lo.x + h * (0.5 + ((q & 1) ? g : -g)),
                                       lo.y + h * (0.5 + ((q & 2) ? g : -g)),
                                       lo.z + h * (0.5 + ((q & 4) ? g : -g))};
                        sum += h * h * h / 8.0 * smooth(x);
                    }
                    continue;
                }
                for (int q = 0; q < n * n * n; q++) {
                    double x[3] = {lo.x + hs * (q % n + 0.5), lo.y + hs * (q / n % n + 0.5),
                                   lo.z + hs * (q / (n * n) + 0.5)};
                    double phi;
                    ldem_vec3 g;
                    ldem_lset_sample(ls, ldem_vec3_make(x[0], x[1], x[2]), &phi, &g);
                    double f = 0.5 - phi / (hs * (fabs(g.x) + fabs(g.y) + fabs(g.z)));
                    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
                    sum += hs * hs * hs * f * smooth(x);
                }
            }
    return sum;
}

Test(lsquad, matches_the_rule_written_with_ldem_lset_sample)
{
    const double R = 2.7, half[3] = {R, R, R};
    ldem_lset ls = lsfix_make(lsfix_sphere, &R, half, 0.3, 3, 0.21);
    for (int d = 0; d <= 2; d++) {
        weighted w = {0.0};
        ldem_err err;
        cr_assert_eq(lsquad_interior(&ls, d, add_smooth, &w, &err), LDEM_OK);
        double want = brute_force(&ls, d);
        cr_expect_leq(rel(w.sum, want), 1e-12, "depth %d: %.17g vs %.17g", d, w.sum, want);
    }
    ldem_lset_free(&ls);
}

/* ---- order, empty grids, errors ---- */

typedef struct trace {
    uint64_t hash;
    long count;
} trace;

static void add_trace(void *ctx, const double x[3], double w)
{
    trace *t = ctx;
    double v[4] = {x[0], x[1], x[2], w};
    unsigned char b[sizeof v];
    memcpy(b, v, sizeof v);
    for (size_t i = 0; i < sizeof b; i++)
        t->hash = (t->hash ^ b[i]) * 1099511628211ull; /* FNV-1a over the bits */
    t->count++;
}

Test(lsquad, the_point_sequence_is_reproducible)
{
    const double R = 2.7, half[3] = {R, R, R};
    ldem_lset ls = lsfix_make(lsfix_sphere, &R, half, 0.3, 3, 0.21);
    trace a = {14695981039346656037ull, 0}, b = a;
    ldem_err err;
    cr_assert_eq(lsquad_interior(&ls, 2, add_trace, &a, &err), LDEM_OK);
    cr_assert_eq(lsquad_interior(&ls, 2, add_trace, &b, &err), LDEM_OK);
    cr_expect_gt(a.count, 1000);
    cr_expect_eq(a.count, b.count);
    cr_expect_eq(a.hash, b.hash);
    ldem_lset_free(&ls);
}

static double outside_everywhere(const double x[3], const void *p)
{
    (void)p;
    return 0.5 + x[0]; /* ≥ 0.5 on the grid: no interior */
}

Test(lsquad, an_empty_interior_gives_no_points)
{
    ldem_lset ls = grid_of(4, 4, 4, 0.5, outside_everywhere, NULL);
    moments m = integrate(&ls, 2);
    cr_expect_eq(m.count, 0);
    cr_expect_eq(m.volume, 0.0);
    ldem_lset_free(&ls);
}

Test(lsquad, bad_depth_grid_and_values_are_errors)
{
    ldem_lset ls = grid_of(4, 4, 4, 0.5, deep_inside, NULL);
    moments m = {0};
    ldem_err err;
    cr_expect_eq(lsquad_interior(&ls, -1, add_moments, &m, &err), LDEM_ERR_USAGE);
    cr_expect(strstr(err.msg, "depth") != NULL, "%s", err.msg);
    cr_expect_eq(lsquad_interior(&ls, 7, add_moments, &m, &err), LDEM_ERR_USAGE);
    cr_expect_eq(lsquad_interior(&ls, 6, NULL, &m, &err), LDEM_ERR_USAGE);
    cr_expect_eq(m.count, 0, "nothing integrated on a usage error");

    ls.phi[17] = NAN;
    cr_expect_eq(lsquad_interior(&ls, 1, add_moments, &m, &err), LDEM_ERR_INPUT);
    cr_expect(strstr(err.msg, "not finite") != NULL, "%s", err.msg);
    ls.phi[17] = -1.0f;

    ls.dims[1] = 1;
    cr_expect_eq(lsquad_interior(&ls, 1, add_moments, &m, &err), LDEM_ERR_INPUT);
    ls.dims[1] = 4;
    ls.spacing[2] = 0.0;
    cr_expect_eq(lsquad_interior(&ls, 1, add_moments, &m, &err), LDEM_ERR_INPUT);
    cr_expect_eq(m.count, 0, "nothing integrated on an input error");
    ldem_lset_free(&ls);
}
