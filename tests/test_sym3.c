/* Unit tests of ldem/sym3.h: Jacobi eigen-decomposition of symmetric 3×3 matrices.
 * Every decomposition is checked for A = V diag(w) Vᵀ (≤ 1e-14·‖A‖_F), VᵀV = I and
 * det V = 1 (≤ 1e-14), ascending w; matrices built as R diag(λ) Rᵀ from a known spectrum
 * are checked against λ, which is computed independently of the decomposition. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/sym3.h"

#define NSAMPLES 2000

#include "support/test_rng.h"

static double frobenius(const double a[3][3])
{
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s += a[i][j] * a[i][j];
    return sqrt(s);
}

static double det3(const double v[3][3])
{
    return v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) -
           v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
           v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
}

/* A random rotation: a quaternion uniform in the unit 4-ball (rejection), normalised. */
static ldem_mat3 random_rotation(void)
{
    for (;;) {
        ldem_quat q = ldem_quat_make(uniform(), uniform(), uniform(), uniform());
        double n = ldem_quat_norm(q);
        if (n > 0.1 && n <= 1.0)
            return ldem_quat_to_mat3(ldem_quat_normalize(q));
    }
}

/* R diag(l) Rᵀ. */
static ldem_mat3 with_spectrum(ldem_mat3 r, const double l[3])
{
    ldem_mat3 a;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += r.m[i][k] * l[k] * r.m[j][k];
            a.m[i][j] = s;
        }
    /* Exactly symmetric, as an inertia tensor from our code would be. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            a.m[j][i] = a.m[i][j];
    return a;
}

/* Decompose `a` and check the invariants every decomposition must satisfy, the
 * reconstruction to tol·‖A‖_F. */
static void decompose_and_check(ldem_mat3 a, double w[3], ldem_mat3 *v, double tol)
{
    cr_assert_eq(ldem_sym3_eigen(a, w, v), LDEM_OK);
    double norm = frobenius((const double(*)[3])a.m);
    double resid[3][3], gram[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double r = 0.0, g = 0.0;
            for (int k = 0; k < 3; k++) {
                r += v->m[i][k] * w[k] * v->m[j][k];
                g += v->m[k][i] * v->m[k][j];
            }
            /* only the upper triangle of a is the input */
            resid[i][j] = r - (i <= j ? a.m[i][j] : a.m[j][i]);
            gram[i][j] = g - (i == j ? 1.0 : 0.0);
        }
    cr_assert_leq(frobenius((const double(*)[3])resid), tol * norm,
                  "reconstruction error %g > %g·‖A‖", frobenius((const double(*)[3])resid), tol);
    cr_assert_leq(frobenius((const double(*)[3])gram), 1e-14, "VᵀV − I = %g",
                  frobenius((const double(*)[3])gram));
    cr_assert_leq(fabs(det3((const double(*)[3])v->m) - 1.0), 1e-14, "det V = %.17g",
                  det3((const double(*)[3])v->m));
    cr_assert(w[0] <= w[1] && w[1] <= w[2], "not ascending: %g %g %g", w[0], w[1], w[2]);
}

static void sort3(double l[3])
{
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (l[j] < l[i]) {
                double t = l[i];
                l[i] = l[j];
                l[j] = t;
            }
}

/* Random symmetric matrices with entries in [-1, 1): the invariants, plus trace and
 * determinant against the eigenvalues (both computed from `a` directly). */
Test(sym3, random_symmetric)
{
    rng_seed(1);
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_mat3 a;
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++)
                a.m[i][j] = a.m[j][i] = uniform();
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 1e-14);
        double norm = frobenius((const double(*)[3])a.m);
        double tr = a.m[0][0] + a.m[1][1] + a.m[2][2];
        cr_assert_leq(fabs(w[0] + w[1] + w[2] - tr), 1e-14 * norm);
        cr_assert_leq(fabs(w[0] * w[1] * w[2] - det3((const double(*)[3])a.m)),
                      1e-14 * norm * norm * norm);
    }
}

/* A known spectrum rotated at random: w equals λ to 1e-14·‖A‖ (‖A‖_F = ‖λ‖). */
Test(sym3, known_spectrum)
{
    rng_seed(2);
    for (int n = 0; n < NSAMPLES; n++) {
        double l[3] = {10.0 * uniform(), 10.0 * uniform(), 10.0 * uniform()};
        ldem_mat3 a = with_spectrum(random_rotation(), l);
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 1e-14);
        sort3(l);
        double norm = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(w[k] - l[k]), 1e-14 * norm, "w%d = %.17g, λ = %.17g", k, w[k], l[k]);
    }
}

/* A diagonal matrix needs no rotation: w is the sorted diagonal exactly, V a signed
 * permutation with det +1, and the reconstruction exact. */
Test(sym3, diagonal_input)
{
    static const double diags[][3] = {
        {3.0, -1.0, 2.0}, {1.0, 2.0, 3.0}, {3.0, 2.0, 1.0}, {-5.0, 0.0, -7.0}, {2.0, 1.0, 3.0}};
    for (size_t n = 0; n < sizeof diags / sizeof diags[0]; n++) {
        ldem_mat3 a = {{{diags[n][0], 0, 0}, {0, diags[n][1], 0}, {0, 0, diags[n][2]}}};
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 0.0);
        double l[3] = {diags[n][0], diags[n][1], diags[n][2]};
        sort3(l);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(w[k], l[k]);
        for (int i = 0; i < 3; i++) {
            int nonzero = 0;
            for (int j = 0; j < 3; j++) {
                double x = v.m[i][j];
                cr_assert(x == 0.0 || x == 1.0 || x == -1.0, "V[%d][%d] = %g", i, j, x);
                nonzero += x != 0.0;
            }
            cr_assert_eq(nonzero, 1);
        }
        cr_assert_eq(det3((const double(*)[3])v.m), 1.0);
    }
}

/* Multiples of the identity: every vector is an eigenvector; w exact, V = I. */
Test(sym3, multiple_of_identity)
{
    static const double c[] = {0.0, 1.0, -3.5, 1e-300, 1e300};
    for (size_t n = 0; n < sizeof c / sizeof c[0]; n++) {
        ldem_mat3 a = {{{c[n], 0, 0}, {0, c[n], 0}, {0, 0, c[n]}}};
        double w[3];
        ldem_mat3 v;
        cr_assert_eq(ldem_sym3_eigen(a, w, &v), LDEM_OK);
        for (int i = 0; i < 3; i++) {
            cr_assert_eq(w[i], c[n]);
            for (int j = 0; j < 3; j++)
                cr_assert_eq(v.m[i][j], i == j ? 1.0 : 0.0);
        }
    }
    /* Rotated, the identity multiple picks up rounding off the diagonal: still exact-ish. */
    rng_seed(3);
    for (int n = 0; n < 200; n++) {
        double l[3] = {2.5, 2.5, 2.5};
        ldem_mat3 a = with_spectrum(random_rotation(), l);
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 1e-14);
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(w[k] - 2.5), 1e-14 * 2.5 * sqrt(3.0));
    }
}

/* Two equal eigenvalues: the pair's eigenvectors are any orthonormal basis of their plane,
 * but the third must be the known axis (up to sign), and V stays orthonormal. */
Test(sym3, two_equal_eigenvalues)
{
    rng_seed(4);
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_mat3 r = random_rotation();
        int single = n % 2 ? 0 : 2; /* the distinct eigenvalue is the smallest or largest */
        double l[3];
        l[single] = single == 0 ? -1.0 : 4.0;
        l[1] = 1.5;
        l[2 - single] = 1.5;
        ldem_mat3 a = with_spectrum(r, l);
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 1e-14);
        /* the distinct eigenvalue sorts to position `single` because it is the extreme one */
        double dot = 0.0;
        for (int k = 0; k < 3; k++)
            dot += v.m[k][single] * r.m[k][single];
        cr_assert_leq(fabs(fabs(dot) - 1.0), 1e-14, "distinct axis off by %g", fabs(dot) - 1.0);
        cr_assert_leq(fabs(w[1] - 1.5), 1e-14 * 5.0);
        cr_assert_leq(fabs(w[single] - l[single]), 1e-14 * 5.0);
    }
}

/* Entries from 1e-8 to 1e8 in one matrix, and whole matrices near the ends of the double
 * range: the decomposition is accurate relative to ‖A‖, nothing overflows or underflows. */
Test(sym3, badly_scaled)
{
    rng_seed(5);
    for (int n = 0; n < NSAMPLES; n++) {
        double l[3] = {1e8 * (1.0 + uniform()), uniform(), 1e-8 * uniform()};
        ldem_mat3 a = with_spectrum(random_rotation(), l);
        double w[3];
        ldem_mat3 v;
        decompose_and_check(a, w, &v, 1e-14);
        sort3(l);
        double norm = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(w[k] - l[k]), 1e-14 * norm);
    }
    /* A graded matrix: diagonal 1e8, 1, 1e-8 with off-diagonals in proportion. */
    ldem_mat3 g = {{{1e8, 1e-1, 1e-4}, {1e-1, 1.0, 1e-5}, {1e-4, 1e-5, 1e-8}}};
    double w[3];
    ldem_mat3 v;
    decompose_and_check(g, w, &v, 1e-14);
    /* Whole-matrix scale 2^±900 is exact: the decomposition scales with it. */
    static const double scales[] = {0x1p-900, 0x1p900};
    for (int s = 0; s < 2; s++) {
        ldem_mat3 gs;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                gs.m[i][j] = g.m[i][j] * scales[s];
        double ws[3];
        ldem_mat3 vs;
        cr_assert_eq(ldem_sym3_eigen(gs, ws, &vs), LDEM_OK);
        for (int k = 0; k < 3; k++) {
            cr_assert_eq(ws[k], w[k] * scales[s]);
            for (int i = 0; i < 3; i++)
                cr_assert_eq(vs.m[i][k], v.m[i][k]);
        }
    }
}

/* Only the upper triangle is read: garbage below the diagonal changes nothing. */
Test(sym3, reads_upper_triangle_only)
{
    ldem_mat3 a = {{{2.0, 0.5, -0.25}, {0.5, 1.0, 0.125}, {-0.25, 0.125, 3.0}}};
    ldem_mat3 b = a;
    b.m[1][0] = NAN;
    b.m[2][0] = 1e300;
    b.m[2][1] = -7.0;
    double wa[3], wb[3];
    ldem_mat3 va, vb;
    cr_assert_eq(ldem_sym3_eigen(a, wa, &va), LDEM_OK);
    cr_assert_eq(ldem_sym3_eigen(b, wb, &vb), LDEM_OK);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(wa[i], wb[i]);
        for (int j = 0; j < 3; j++)
            cr_assert_eq(va.m[i][j], vb.m[i][j]);
    }
}

/* NaN or ±inf in the upper triangle: LDEM_ERR_INPUT and the outputs untouched. */
Test(sym3, non_finite_input)
{
    static const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) {
                ldem_mat3 a = {{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}}};
                a.m[i][j] = bad[b];
                double w[3] = {-11.0, -12.0, -13.0};
                ldem_mat3 v = {{{7, 7, 7}, {7, 7, 7}, {7, 7, 7}}};
                cr_assert_eq(ldem_sym3_eigen(a, w, &v), LDEM_ERR_INPUT);
                cr_assert(w[0] == -11.0 && w[1] == -12.0 && w[2] == -13.0);
                for (int k = 0; k < 9; k++)
                    cr_assert_eq(v.m[k / 3][k % 3], 7.0);
            }
}
