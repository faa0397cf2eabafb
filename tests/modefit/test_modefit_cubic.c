/* Unit tests of cubic.h (modefit --cubic) on box meshes built in code whose cells (3×4×5)
 * make them unsymmetric under the axis rotations, so that rotated nodes fall inside
 * elements rather than on nodes: the rotation group; rotated copies of linear fields (any
 * element) and quadratic fields (straight tet10) against the closed form P u(Pᵀx); points
 * outside a non-cubic box, continued or clamped, against the box's closest point; the
 * triple inner product against the direct integral of the summed field; evaluation and
 * poles. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cubic.h"
#include "fe_box_mesh.h"
#include "fe_integrate.h"
#include "fe_locate.h"

static const char *kind_name[3] = {"tet4", "tet10", "curved tet10"};

/* The box [-a,a]×[-b,b]×[-c,c] as 3×4×5 cells; kind 0 tet4, 1 tet10, 2 tet10 with curved
 * interior edges. */
static void make_box(fe_mesh *m, int kind, double a, double b, double c)
{
    fe_test_box(m, kind == 0 ? FE_TET4 : FE_TET10, 3, 4, 5, 2 * a, 2 * b, 2 * c);
    if (kind == 2)
        fe_test_curve_interior(m, 0.03, 7);
    const double half[3] = {a, b, c};
    for (size_t n = 0; n < m->nnodes; n++)
        for (int d = 0; d < 3; d++)
            m->xyz[3 * n + d] -= half[d];
}

static fe_locator *build_locator(const fe_mesh *m)
{
    fe_locator *loc = NULL;
    ldem_err err;
    cr_assert_eq(fe_locator_build(m, &loc, &err), LDEM_OK, "%s", err.msg);
    return loc;
}

static cubic_map *build_map(const fe_mesh *m, const fe_locator *loc, cubic_stats *st)
{
    cubic_map *map = NULL;
    ldem_err err;
    cr_assert_eq(cubic_map_build(m, loc, &map, st, &err), LDEM_OK, "%s", err.msg);
    return map;
}

/* ---- closed-form fields: u(x) = A x + b + Q(x), Q quadratic (zero unless quadratic) ---- */

typedef struct field {
    double A[3][3], b[3];
    double Q[3][3][3]; /* u_i += Σ_jk Q[i][j][k] x_j x_k */
} field;

static void random_field(field *f, int quadratic, unsigned long long *rng)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 3; i++) {
        f->b[i] = fe_test_uniform(rng) - 0.5;
        for (int j = 0; j < 3; j++) {
            f->A[i][j] = fe_test_uniform(rng) - 0.5;
            for (int k = 0; k < 3 && quadratic; k++)
                f->Q[i][j][k] = fe_test_uniform(rng) - 0.5;
        }
    }
}

static void field_at(const field *f, const double x[3], double u[3])
{
    for (int i = 0; i < 3; i++) {
        u[i] = f->b[i];
        for (int j = 0; j < 3; j++) {
            u[i] += f->A[i][j] * x[j];
            for (int k = 0; k < 3; k++)
                u[i] += f->Q[i][j][k] * x[j] * x[k];
        }
    }
}

/* (R_p u)(x) = P u(Pᵀ x), written out here from the definition. */
static void rotated_at(const field *f, int p, const double x[3], double out[3])
{
    double P[3][3], y[3], u[3];
    cubic_rotation(p, P);
    for (int i = 0; i < 3; i++)
        y[i] = P[0][i] * x[0] + P[1][i] * x[1] + P[2][i] * x[2];
    field_at(f, y, u);
    for (int i = 0; i < 3; i++)
        out[i] = P[i][0] * u[0] + P[i][1] * u[1] + P[i][2] * u[2];
}

static double *nodal(const fe_mesh *m, const field *f, size_t count)
{
    size_t ndof = 3 * m->nnodes;
    double *u = malloc(count * ndof * sizeof *u);
    cr_assert_not_null(u);
    for (size_t k = 0; k < count; k++)
        for (size_t n = 0; n < m->nnodes; n++)
            field_at(&f[k], m->xyz + 3 * n, u + k * ndof + 3 * n);
    return u;
}

/* ------------------------------------------------------------------ the group -------- */

Test(cubic, rotation_group)
{
    double P[3][3][3];
    for (int p = 0; p < 3; p++)
        cubic_rotation(p, P[p]);
    /* C v = (v_y, v_z, v_x): C e_z = e_y, C² e_z = e_x. */
    const double want[3][3] = {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 3; i++)
            cr_assert_eq(P[p][i][2], want[p][i], "P_%d e_z component %d", p, i);
    cr_assert_eq(P[1][0][1], 1.0, "(C v)_x = v_y");
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double prod = 0, gram = 0;
                    for (int k = 0; k < 3; k++) {
                        prod += P[p][i][k] * P[q][k][j];
                        gram += P[p][k][i] * P[p][k][j];
                    }
                    cr_assert_eq(prod, P[(p + q) % 3][i][j], "P_%d P_%d = P_%d", p, q,
                                 (p + q) % 3);
                    cr_assert_eq(gram, i == j ? 1.0 : 0.0, "P_%d orthogonal", p);
                }
    double det = P[1][0][0] * (P[1][1][1] * P[1][2][2] - P[1][1][2] * P[1][2][1]) -
                 P[1][0][1] * (P[1][1][0] * P[1][2][2] - P[1][1][2] * P[1][2][0]) +
                 P[1][0][2] * (P[1][1][0] * P[1][2][1] - P[1][1][1] * P[1][2][0]);
    cr_assert_eq(det, 1.0, "C is a rotation");
}

/* ------------------------------------------------------------ rotated copies -------- */

/* Max |cubic_rotate − P u(Pᵀx)| over every node, both rotations, `count` fields. */
static double copy_error(const fe_mesh *m, const cubic_map *map, const field *f, size_t count)
{
    size_t ndof = 3 * m->nnodes;
    double *u = nodal(m, f, count), *out = malloc(count * ndof * sizeof *out), worst = 0;
    ldem_err err;
    for (int p = 0; p < 3; p++) {
        cr_assert_eq(cubic_rotate(map, p, u, count, out, &err), LDEM_OK, "%s", err.msg);
        for (size_t k = 0; k < count; k++)
            for (size_t n = 0; n < m->nnodes; n++) {
                double want[3];
                rotated_at(&f[k], p, m->xyz + 3 * n, want);
                for (int d = 0; d < 3; d++)
                    worst = fmax(worst, fabs(out[k * ndof + 3 * n + d] - want[d]));
            }
    }
    free(u);
    free(out);
    return worst;
}

Test(cubic, linear_fields_exact_on_any_element)
{
    unsigned long long rng = 11;
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_box(&m, kind, 1, 1, 1);
        fe_locator *loc = build_locator(&m);
        cubic_stats st;
        cubic_map *map = build_map(&m, loc, &st);
        cr_assert_eq(st.located, 2 * m.nnodes, "%s: every node, two rotations", kind_name[kind]);
        cr_assert_eq(st.extrapolated + st.clamped, 0, "%s: a cube's rotated nodes stay inside",
                     kind_name[kind]);
        field f[3];
        for (int k = 0; k < 3; k++)
            random_field(&f[k], 0, &rng);
        double e = copy_error(&m, map, f, 3);
        cr_assert_lt(e, 1e-12, "%s: linear copies off by %g", kind_name[kind], e);
        cubic_map_free(map);
        fe_locator_free(loc);
        fe_test_mesh_free(&m);
    }
}

Test(cubic, quadratic_fields_exact_on_straight_tet10)
{
    unsigned long long rng = 5;
    fe_mesh m;
    make_box(&m, 1, 1, 1, 1);
    fe_locator *loc = build_locator(&m);
    cubic_map *map = build_map(&m, loc, NULL);
    field f[2];
    for (int k = 0; k < 2; k++)
        random_field(&f[k], 1, &rng);
    double e = copy_error(&m, map, f, 2);
    cr_assert_lt(e, 1e-12, "quadratic copies off by %g", e);
    /* tet4 cannot hold a quadratic: the check above can fail. */
    fe_mesh m4;
    make_box(&m4, 0, 1, 1, 1);
    fe_locator *loc4 = build_locator(&m4);
    cubic_map *map4 = build_map(&m4, loc4, NULL);
    cr_assert_gt(copy_error(&m4, map4, f, 2), 1e-3, "tet4 interpolates a quadratic inexactly");
    cubic_map_free(map);
    cubic_map_free(map4);
    fe_locator_free(loc);
    fe_locator_free(loc4);
    fe_test_mesh_free(&m);
    fe_test_mesh_free(&m4);
}

/* -------------------------------------------------------- points outside -------- */

static double box_clamp(const double half[3], const double x[3], double y[3])
{
    double d2 = 0;
    for (int d = 0; d < 3; d++) {
        y[d] = fmin(fmax(x[d], -half[d]), half[d]);
        d2 += (x[d] - y[d]) * (x[d] - y[d]);
    }
    return sqrt(d2);
}

Test(cubic, locate_inside_continued_clamped)
{
    fe_mesh m;
    make_box(&m, 0, 1, 1, 1);
    fe_locator *loc = build_locator(&m);
    unsigned long long rng = 3;
    field f;
    random_field(&f, 0, &rng);
    double *u = nodal(&m, &f, 1);
    const double half[3] = {1, 1, 1};
    /* inside; 0.01 beyond the x = 1 face (cells 2/3 deep: barycentric ≈ −0.015); 0.5 beyond */
    const double pts[3][3] = {{0.3, -0.2, 0.7}, {1.01, 0.1, 0.13}, {1.5, 0.1, 0.13}};
    const int where_want[3] = {CUBIC_INSIDE, CUBIC_EXTRAPOLATED, CUBIC_CLAMPED};
    for (int i = 0; i < 3; i++) {
        fe_place p;
        double gap, v[3], want[3], y[3];
        int where = cubic_locate(&m, loc, pts[i], &p, &gap);
        cr_assert_eq(where, where_want[i], "point %d placed %d, expected %d", i, where,
                     where_want[i]);
        double dist = box_clamp(half, pts[i], y);
        cr_assert_lt(fabs(gap - dist), 1e-12, "point %d: gap %g vs %g", i, gap, dist);
        fe_interpolate(&m, &p, u, 1, v);
        /* Continued: the element's linear interpolant is the field itself; clamped: the
         * closest boundary point's value. */
        field_at(&f, where == CUBIC_CLAMPED ? y : pts[i], want);
        for (int d = 0; d < 3; d++)
            cr_assert_lt(fabs(v[d] - want[d]), 1e-12, "point %d component %d: %g vs %g", i, d,
                         v[d], want[d]);
    }
    free(u);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}

/* The box [-1,1]²×[-0.6,0.6]: rotations send |z| <= 0.6 to |x| or |y| <= 0.6 and back, so
 * nodes with |x| or |y| > 0.6 fall outside. Counts and distances against brute force, and
 * each copy's value against the closed form at the point or its closest box point. */
Test(cubic, flat_box_outside_points)
{
    const double half[3] = {1, 1, 0.6};
    fe_mesh m;
    make_box(&m, 0, half[0], half[1], half[2]);
    fe_locator *loc = build_locator(&m);
    cubic_stats st;
    cubic_map *map = build_map(&m, loc, &st);
    unsigned long long rng = 9;
    field f;
    random_field(&f, 0, &rng);
    double *u = nodal(&m, &f, 1), *out = malloc(3 * m.nnodes * sizeof *out);
    size_t outside = 0, extrapolated = 0;
    double far = 0, worst_value = 0;
    ldem_err err;
    for (int p = 1; p < 3; p++) {
        double P[3][3];
        cubic_rotation(p, P);
        cr_assert_eq(cubic_rotate(map, p, u, 1, out, &err), LDEM_OK);
        for (size_t n = 0; n < m.nnodes; n++) {
            const double *x = m.xyz + 3 * n;
            double y[3], c[3], uc[3], want[3];
            for (int i = 0; i < 3; i++)
                y[i] = P[0][i] * x[0] + P[1][i] * x[1] + P[2][i] * x[2];
            double dist = box_clamp(half, y, c);
            fe_place pl;
            int where = cubic_locate(&m, loc, y, &pl, NULL);
            if (dist > 1e-9) {
                outside++;
                far = fmax(far, dist);
                extrapolated += where == CUBIC_EXTRAPOLATED;
            } else {
                cr_assert_eq(where, CUBIC_INSIDE, "node %zu under C^%d is in the box", n, p);
            }
            field_at(&f, where == CUBIC_CLAMPED ? c : y, uc);
            for (int i = 0; i < 3; i++)
                want[i] = P[i][0] * uc[0] + P[i][1] * uc[1] + P[i][2] * uc[2];
            for (int d = 0; d < 3; d++)
                worst_value = fmax(worst_value, fabs(out[3 * n + d] - want[d]));
        }
    }
    cr_assert_gt(outside, 0, "the flat box must send nodes outside");
    cr_assert_eq(st.extrapolated + st.clamped, outside, "outside: %zu + %zu vs brute force %zu",
                 st.extrapolated, st.clamped, outside);
    cr_assert_eq(st.extrapolated, extrapolated);
    cr_assert_gt(st.clamped, 0, "0.4 beyond cells 0.24 deep: clamped");
    cr_assert_lt(fabs(fmax(st.max_clamped, st.max_extrapolated) - far), 1e-12,
                 "largest distance %g vs %g", fmax(st.max_clamped, st.max_extrapolated), far);
    cr_assert_geq(st.worst_node, 1, "the worst node is named");
    cr_assert_lt(worst_value, 1e-12, "copies vs closed form / closest point: %g", worst_value);
    free(u);
    free(out);
    cubic_map_free(map);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}

/* --------------------------------------------------------- triples -------- */

Test(cubic, triples_layout)
{
    const size_t ndof = 6, count = 2;
    double u[12], sum[2 * 18], copies[6 * 18];
    for (int j = 0; j < 12; j++)
        u[j] = j + 1;
    cubic_triples(CUBIC_SUM, u, count, ndof, sum);
    cubic_triples(CUBIC_COPIES, u, count, ndof, copies);
    for (size_t i = 0; i < count; i++)
        for (size_t p = 0; p < 3; p++)
            for (size_t j = 0; j < ndof; j++) {
                cr_assert_eq(sum[i * 18 + p * ndof + j], u[i * ndof + j]);
                for (size_t q = 0; q < 3; q++)
                    cr_assert_eq(copies[(p * count + i) * 18 + q * ndof + j],
                                 p == q ? u[i * ndof + j] : 0.0, "copy %zu of field %zu", p, i);
            }
}

typedef struct mass_ctx {
    const fe_mesh *m;
} mass_ctx;

static int mass_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                     double *G, ldem_err *err)
{
    return fe_mass_gram(((mass_ctx *)ctx)->m, 1.7, a, na, b, nb, G, err);
}

static int stiffness_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                          double *G, ldem_err *err)
{
    return fe_stiffness_gram(((mass_ctx *)ctx)->m, 3.0, 0.27, a, na, b, nb, G, err);
}

/* The triple product of sums (u, u, u) and of copies (u, 0, 0), ... of two different
 * fields against the integrals of the summed / rotated fields built on the mesh directly
 * (exact for linear fields on a cube, which the rotations map onto itself). Copies of two
 * fields tell <a, R_1 b> from <a, R_2 b>. */
Test(cubic, inner_product_is_the_integral)
{
    enum { NT = 8 }; /* 2 sums, then copies p = 0..2 of field 0 and field 1 */
    fe_mesh m;
    make_box(&m, 1, 1, 1, 1); /* straight: both sides' quadrature exact */
    fe_locator *loc = build_locator(&m);
    cubic_map *map = build_map(&m, loc, NULL);
    size_t ndof = 3 * m.nnodes;
    unsigned long long rng = 21;
    field f[2];
    random_field(&f[0], 0, &rng);
    random_field(&f[1], 0, &rng);
    double *u = nodal(&m, f, 2);
    double *trip = malloc(NT * 3 * ndof * sizeof *trip);
    double *direct = calloc(NT * ndof, sizeof *direct);
    for (size_t n = 0; n < m.nnodes; n++)
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < 2; k++) {
                double v[3];
                rotated_at(&f[k], p, m.xyz + 3 * n, v);
                for (int d = 0; d < 3; d++)
                    direct[k * ndof + 3 * n + d] += v[d];
                memcpy(direct + (2 + 2 * p + k) * ndof + 3 * n, v, sizeof v);
            }
    cubic_triples(CUBIC_SUM, u, 2, ndof, trip);
    cubic_triples(CUBIC_COPIES, u, 2, ndof, trip + 2 * 3 * ndof);
    mass_ctx mc = {&m};
    for (int which = 0; which < 2; which++) {
        basis_inner base = {which ? stiffness_gram : mass_gram, &mc, ndof};
        cubic_inner_ctx cc = {map, base};
        basis_inner ip = cubic_inner(&cc);
        cr_assert_eq(ip.ndof, 3 * ndof);
        double G[NT * NT], H[NT * NT], G2[2 * NT];
        ldem_err err;
        cr_assert_eq(ip.gram(ip.ctx, trip, NT, trip, NT, G, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(base.gram(base.ctx, direct, NT, direct, NT, H, &err), LDEM_OK);
        /* Not the same set on both sides: no symmetrization, the formula itself. */
        cr_assert_eq(ip.gram(ip.ctx, trip + 2 * 3 * ndof, 2, trip, NT, G2, &err), LDEM_OK);
        double scale = 0;
        for (int k = 0; k < NT * NT; k++)
            scale = fmax(scale, fabs(H[k]));
        for (int k = 0; k < NT * NT; k++)
            cr_assert_lt(fabs(G[k] - H[k]), 1e-11 * scale, "%s G[%d] %.15g vs %.15g",
                         which ? "stiffness" : "mass", k, G[k], H[k]);
        for (int k = 0; k < 2 * NT; k++)
            cr_assert_lt(fabs(G2[k] - H[2 * NT + k]), 1e-11 * scale, "%s rows 2-3, [%d]",
                         which ? "stiffness" : "mass", k);
        double d12 = fabs(H[2 * NT + 5] - H[2 * NT + 7]);
        cr_assert_gt(d12, 1e-3 * scale, "<f0, R_1 f1> and <f0, R_2 f1> must differ here");
    }
    free(u);
    free(trip);
    free(direct);
    cubic_map_free(map);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}

Test(cubic, eval_and_poles)
{
    fe_mesh m;
    make_box(&m, 1, 1, 1, 1);
    fe_locator *loc = build_locator(&m);
    size_t ndof = 3 * m.nnodes;
    unsigned long long rng = 2;
    field f;
    random_field(&f, 1, &rng);
    double *u = nodal(&m, &f, 1), *trip = malloc(3 * ndof * sizeof *trip);
    cubic_triples(CUBIC_SUM, u, 1, ndof, trip);
    for (int i = 0; i < 50; i++) {
        double x[3], v[3], want[3] = {0, 0, 0};
        for (int d = 0; d < 3; d++)
            x[d] = 1.8 * fe_test_uniform(&rng) - 0.9;
        cr_assert_eq(cubic_eval(&m, loc, trip, 1, x, i % 2, v), 0.0, "inside");
        for (int p = 0; p < 3; p++) {
            double w[3];
            rotated_at(&f, p, x, w);
            for (int d = 0; d < 3; d++)
                want[d] += w[d];
        }
        for (int d = 0; d < 3; d++)
            cr_assert_lt(fabs(v[d] - want[d]), 1e-12, "Σ_p P u(Pᵀx) at a random point");
    }
    /* Far outside: each term at its closest boundary point, which for the cube is the
     * rotation of the clamped point; the distance is reported. */
    const double half[3] = {1, 1, 1}, x[3] = {1.7, 0.2, -0.4};
    double c[3], v[3], want[3] = {0, 0, 0};
    double dist = box_clamp(half, x, c);
    for (int p = 0; p < 3; p++) {
        double w[3];
        rotated_at(&f, p, c, w);
        for (int d = 0; d < 3; d++)
            want[d] += w[d];
    }
    for (int extend = 0; extend < 2; extend++) {
        double gap = cubic_eval(&m, loc, trip, 1, x, extend, v);
        cr_assert_lt(fabs(gap - dist), 1e-12, "gap %g vs %g", gap, dist);
        for (int d = 0; d < 3; d++)
            cr_assert_lt(fabs(v[d] - want[d]), 1e-12, "clamped sum, extend %d", extend);
    }
    double point[6][3], inward[6][3];
    cubic_poles(&m, point, inward);
    for (int k = 0; k < 6; k++)
        for (int d = 0; d < 3; d++) {
            double s = k % 2 ? -1.0 : 1.0;
            cr_assert_eq(point[k][d], d == k / 2 ? s : 0.0, "pole %d", k);
            cr_assert_eq(inward[k][d], d == k / 2 ? -s : 0.0, "inward %d", k);
        }
    free(u);
    free(trip);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}
