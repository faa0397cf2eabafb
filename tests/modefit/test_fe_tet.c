/* Unit tests of fe_tet.h: quadrature rules against exact monomial integrals, shape
 * functions (partition of unity, Kronecker property, completeness, derivatives against
 * finite differences), the isoparametric map and its inverse on straight and curved
 * tet10 elements. Meshes are built in code (fe_box_mesh.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fe_box_mesh.h"
#include "fe_tet.h"

static double factorial(int n)
{
    double f = 1.0;
    for (int i = 2; i <= n; i++)
        f *= i;
    return f;
}

/* ∫ r^a s^b t^c over the reference tet = a! b! c! / (a+b+c+3)!. */
static double monomial_exact(int a, int b, int c)
{
    return factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + 3);
}

static double monomial_rule(const fe_rule *R, int a, int b, int c)
{
    double s = 0.0;
    for (int q = 0; q < R->npoints; q++)
        s += R->w[q] * pow(R->rst[q][0], a) * pow(R->rst[q][1], b) * pow(R->rst[q][2], c);
    return s;
}

/* Largest relative error of the rule over all monomials of total degree exactly d. */
static double worst_monomial_error(const fe_rule *R, int d)
{
    double worst = 0.0;
    for (int a = 0; a <= d; a++)
        for (int b = 0; a + b <= d; b++) {
            int c = d - a - b;
            double want = monomial_exact(a, b, c);
            worst = fmax(worst, fabs(monomial_rule(R, a, b, c) - want) / want);
        }
    return worst;
}

/* Exact to its degree at 1e-14 relative, and measurably not exact one degree above
 * (which shows the check can fail). */
Test(fe_tet, rules_exact_to_their_degree)
{
    for (int d = 1; d <= 5; d++) {
        const fe_rule *R = fe_tet_rule(d);
        cr_assert_geq(R->degree, d);
        double worst = 0.0;
        for (int k = 0; k <= R->degree; k++)
            worst = fmax(worst, worst_monomial_error(R, k));
        double above = worst_monomial_error(R, R->degree + 1);
        cr_log_info("rule for degree %d: %d points, degree %d, max rel err %.2g up to its "
                    "degree, %.2g one above",
                    d, R->npoints, R->degree, worst, above);
        cr_assert_leq(worst, 1e-14, "degree %d rule: rel err %g", d, worst);
        cr_assert_gt(above, 1e-4, "degree %d rule exact above its degree?", d);
    }
    /* The cheapest rule: 1, 4, 8 points for degrees 1-3, 14 for 4-5; beyond: the highest. */
    cr_assert_eq(fe_tet_rule(1)->npoints, 1);
    cr_assert_eq(fe_tet_rule(2)->npoints, 4);
    cr_assert_eq(fe_tet_rule(3)->npoints, 8);
    cr_assert_eq(fe_tet_rule(4)->npoints, 14);
    cr_assert_eq(fe_tet_rule(9)->degree, 5);
    cr_assert_eq(fe_tet_rule(0)->degree, 1);
}

/* Positive weights summing to 1/6, points inside, and the point set (with weights)
 * invariant under all 24 permutations of the barycentric coordinates. */
Test(fe_tet, rules_symmetric_positive_inside)
{
    static const int perms[24][4] = {
        {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
        {1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
        {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
        {3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
    for (int d = 1; d <= 5; d++) {
        const fe_rule *R = fe_tet_rule(d);
        double sum = 0.0;
        for (int q = 0; q < R->npoints; q++) {
            double L[4] = {1.0 - R->rst[q][0] - R->rst[q][1] - R->rst[q][2], R->rst[q][0],
                           R->rst[q][1], R->rst[q][2]};
            cr_assert_gt(R->w[q], 0.0);
            sum += R->w[q];
            for (int i = 0; i < 4; i++)
                cr_assert_gt(L[i], 0.0);
            for (int p = 0; p < 24; p++) {
                double P[4];
                for (int i = 0; i < 4; i++)
                    P[i] = L[perms[p][i]];
                int found = 0;
                for (int o = 0; o < R->npoints && !found; o++)
                    found = fabs(R->rst[o][0] - P[1]) < 1e-15 &&
                            fabs(R->rst[o][1] - P[2]) < 1e-15 &&
                            fabs(R->rst[o][2] - P[3]) < 1e-15 && R->w[o] == R->w[q];
                cr_assert(found, "rule %d: point %d permuted by %d has no twin", d, q, p);
            }
        }
        cr_assert_leq(fabs(sum - 1.0 / 6.0), 1e-16);
    }
}

/* Natural coordinates of node k, from the corners (edges at the midpoints). */
static void node_rst(int k, double rst[3])
{
    static const double corner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const int ends[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    for (int i = 0; i < 3; i++)
        rst[i] =
            k < 4 ? corner[k][i] : 0.5 * (corner[ends[k - 4][0]][i] + corner[ends[k - 4][1]][i]);
}

static void random_rst(unsigned long long *st, double margin, double rst[3])
{
    /* Uniform barycentrics by sorting would be nicer; any spread over (and slightly
     * beyond) the element will do here. */
    for (;;) {
        for (int i = 0; i < 3; i++)
            rst[i] = -margin + (1.0 + 2.0 * margin) * fe_test_uniform(st);
        if (rst[0] + rst[1] + rst[2] <= 1.0 + margin)
            return;
    }
}

Test(fe_tet, partition_of_unity_and_kronecker)
{
    unsigned long long st = 12345;
    const int orders[2] = {FE_TET4, FE_TET10};
    for (int o = 0; o < 2; o++) {
        int n = orders[o];
        for (int trial = 0; trial < 200; trial++) {
            double rst[3], N[10], dN[10][3];
            random_rst(&st, 0.2, rst);
            fe_tet_shape(n, rst, N, dN);
            double s = 0.0, ds[3] = {0, 0, 0};
            for (int a = 0; a < n; a++) {
                s += N[a];
                for (int k = 0; k < 3; k++)
                    ds[k] += dN[a][k];
            }
            cr_assert_leq(fabs(s - 1.0), 1e-15);
            for (int k = 0; k < 3; k++)
                cr_assert_leq(fabs(ds[k]), 1e-14);
        }
        for (int k = 0; k < n; k++) {
            double rst[3], N[10];
            node_rst(k, rst);
            fe_tet_shape(n, rst, N, NULL);
            for (int a = 0; a < n; a++)
                cr_assert_eq(N[a], a == k ? 1.0 : 0.0, "order %d: N_%d at node %d = %g", n, a, k,
                             N[a]);
        }
    }
}

/* Completeness: Σ N_a p(node_a) = p for every polynomial the element spans (linear for
 * tet4, quadratic for tet10), and not for the next degree. */
static double poly(int deg, const double x[3])
{
    double r = x[0], s = x[1], t = x[2];
    double v = 0.3 - 1.1 * r + 0.7 * s + 2.3 * t;
    if (deg >= 2)
        v += 0.9 * r * r - 1.3 * r * s + 0.4 * s * t + 2.1 * t * t - 0.6 * r * t + s * s;
    if (deg >= 3)
        v += 1.7 * r * s * t;
    return v;
}

Test(fe_tet, completeness)
{
    unsigned long long st = 99;
    for (int trial = 0; trial < 100; trial++) {
        double rst[3], N[10];
        random_rst(&st, 0.3, rst);
        for (int o = 0; o < 2; o++) {
            int n = o ? FE_TET10 : FE_TET4, deg = o ? 2 : 1;
            fe_tet_shape(n, rst, N, NULL);
            double sum = 0.0;
            for (int a = 0; a < n; a++) {
                double xa[3];
                node_rst(a, xa);
                sum += N[a] * poly(deg, xa);
            }
            cr_assert_leq(fabs(sum - poly(deg, rst)), 1e-14);
        }
    }
    /* One degree more is not reproduced (the r s t term at the centroid, tet10). */
    double c[3] = {0.25, 0.25, 0.25}, N[10], sum = 0.0;
    fe_tet_shape(FE_TET10, c, N, NULL);
    for (int a = 0; a < 10; a++) {
        double xa[3];
        node_rst(a, xa);
        sum += N[a] * poly(3, xa);
    }
    cr_assert_gt(fabs(sum - poly(3, c)), 1e-3);
}

/* dN against central differences (step 1e-5: truncation ~1e-10, round-off ~1e-11). */
Test(fe_tet, derivatives_match_finite_differences)
{
    unsigned long long st = 7;
    const double h = 1e-5;
    double worst = 0.0;
    for (int o = 0; o < 2; o++) {
        int n = o ? FE_TET10 : FE_TET4;
        for (int trial = 0; trial < 50; trial++) {
            double rst[3], N[10], dN[10][3];
            random_rst(&st, 0.1, rst);
            fe_tet_shape(n, rst, N, dN);
            for (int k = 0; k < 3; k++) {
                double p[3], m[3], Np[10], Nm[10];
                memcpy(p, rst, sizeof p);
                memcpy(m, rst, sizeof m);
                p[k] += h;
                m[k] -= h;
                fe_tet_shape(n, p, Np, NULL);
                fe_tet_shape(n, m, Nm, NULL);
                for (int a = 0; a < n; a++)
                    worst = fmax(worst, fabs((Np[a] - Nm[a]) / (2 * h) - dN[a][k]));
            }
        }
    }
    cr_log_info("shape derivatives vs central differences: max abs err %.2g", worst);
    cr_assert_leq(worst, 1e-9);
}

/* Straight element: x = x0 + A rst, J = A, det J = det A; gradients of the shapes give
 * the gradient of a linear field exactly, and Σ_a x_a ⊗ ∇N_a = I on curved elements too. */
Test(fe_tet, map_and_gradients)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 2, 2, 2, 1.0, 1.5, 0.8);
    fe_test_curve_interior(&m, 0.03, 3);
    unsigned long long st = 5;
    for (size_t e = 0; e < m.ntets; e++) {
        const size_t *tn = m.tet + 10 * e;
        double rst[3], x[3], J[3][3], G[10][3];
        random_rst(&st, 0.0, rst);
        double detJ = fe_tet_map(&m, e, rst, x, J);
        double detG = fe_tet_gradients(&m, e, rst, G);
        cr_assert_gt(detJ, 0.0);
        cr_assert_eq(detJ, detG);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double s = 0.0;
                for (int a = 0; a < 10; a++)
                    s += m.xyz[3 * tn[a] + i] * G[a][j];
                cr_assert_leq(fabs(s - (i == j)), 1e-13, "e %zu: (%d,%d) %g", e, i, j, s);
            }
        /* J against central differences of the map. */
        for (int j = 0; j < 3; j++) {
            double p[3], q[3], xp[3], xq[3];
            memcpy(p, rst, sizeof p);
            memcpy(q, rst, sizeof q);
            p[j] += 1e-6;
            q[j] -= 1e-6;
            fe_tet_map(&m, e, p, xp, NULL);
            fe_tet_map(&m, e, q, xq, NULL);
            for (int i = 0; i < 3; i++)
                cr_assert_leq(fabs((xp[i] - xq[i]) / 2e-6 - J[i][j]), 1e-8);
        }
    }
    fe_test_mesh_free(&m);

    /* A straight tet4: the map is affine with det J = 6 V. */
    fe_mesh s;
    fe_test_box(&s, FE_TET4, 1, 1, 1, 2.0, 3.0, 5.0);
    double total = 0.0;
    for (size_t e = 0; e < s.ntets; e++) {
        double rst[3] = {0.2, 0.3, 0.1}, x[3], J[3][3];
        double d = fe_tet_map(&s, e, rst, x, J);
        const size_t *tn = s.tet + 4 * e;
        for (int i = 0; i < 3; i++) {
            double want = s.xyz[3 * tn[0] + i];
            for (int j = 0; j < 3; j++) {
                double a = s.xyz[3 * tn[j + 1] + i] - s.xyz[3 * tn[0] + i];
                want += a * rst[j];
                cr_assert_eq(J[i][j], a);
            }
            cr_assert_leq(fabs(x[i] - want), 1e-15);
        }
        total += d / 6.0;
    }
    cr_assert_leq(fabs(total - 30.0), 1e-13);
    fe_test_mesh_free(&s);
}

/* x = map(rst) then fe_tet_invert(x) gives rst back to 1e-10, on straight tet4 and tet10
 * and on curved tet10 (interior midside nodes moved by up to 3% of the edge length, and
 * the spherical shell sector), at points inside and up to 0.1 outside in barycentric
 * terms; the inside flag matches the barycentric coordinates. The curved meshes are
 * checked to be curved (det J / det J_straight away from 1) and untangled (> 0). */
static void round_trip(fe_mesh *m, const char *what)
{
    unsigned long long st = 4242;
    double worst = 0.0;
    int inside_seen = 0, outside_seen = 0;
    for (size_t e = 0; e < m->ntets; e++)
        for (int trial = 0; trial < 10; trial++) {
            double rst[3], x[3], back[3];
            random_rst(&st, 0.1, rst);
            fe_tet_map(m, e, rst, x, NULL);
            int in = fe_tet_invert(m, e, x, 1e-9, back);
            for (int i = 0; i < 3; i++)
                worst = fmax(worst, fabs(back[i] - rst[i]));
            double L[4] = {1 - rst[0] - rst[1] - rst[2], rst[0], rst[1], rst[2]};
            double mb = fmin(fmin(L[0], L[1]), fmin(L[2], L[3]));
            if (mb > 1e-6) {
                cr_assert(in, "%s: e %zu: inside point reported outside", what, e);
                inside_seen++;
            } else if (mb < -1e-6) {
                cr_assert(!in, "%s: e %zu: outside point reported inside", what, e);
                outside_seen++;
            }
        }
    cr_log_info("%s: invert round trip max err %.2g (%d inside, %d outside)", what, worst,
                inside_seen, outside_seen);
    cr_assert_leq(worst, 1e-10, "%s: %g", what, worst);
    cr_assert_gt(inside_seen, 0);
    cr_assert_gt(outside_seen, 0);
}

Test(fe_tet, invert_round_trip)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET4, 2, 3, 2, 1.0, 2.0, 0.5);
    round_trip(&m, "tet4 box");
    fe_test_mesh_free(&m);
    fe_test_box(&m, FE_TET10, 2, 3, 2, 1.0, 2.0, 0.5);
    round_trip(&m, "tet10 box");
    fe_test_curve_interior(&m, 0.03, 11);
    double lo, hi;
    fe_test_jacobian_range(&m, &lo, &hi);
    cr_log_info("curved box: det J / det J_straight in [%.3f, %.3f]", lo, hi);
    cr_assert(lo > 0.0 && lo < 0.9 && hi > 1.1);
    round_trip(&m, "tet10 curved box");
    fe_test_mesh_free(&m);
    fe_test_shell(&m, FE_TET10, 4);
    fe_test_jacobian_range(&m, &lo, &hi);
    cr_log_info("shell sector: det J / det J_straight in [%.3f, %.3f]", lo, hi);
    cr_assert(lo > 0.0 && (lo < 0.95 || hi > 1.05));
    round_trip(&m, "tet10 shell sector");
    fe_test_mesh_free(&m);
}
