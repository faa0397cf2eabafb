/* Unit tests of basis_generalized_eigen, the damping matrices and basis_asymmetry
 * (basis.h): a 2 × 2 spring–mass chain against its closed form, a 5 × 5 problem against a
 * Cholesky-reduced standard problem solved here by Jacobi rotations (no LAPACK), and the
 * error messages for a singular mass matrix and an indefinite stiffness. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basis.h"
#include "basis_testlib.h"

static void eigen_ok(const double *K, const double *M, size_t n, double *lambda, double *V)
{
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_generalized_eigen(K, M, n, lambda, V, &err), LDEM_OK, "%s", err.msg);
}

/* max |Vᵀ A V − D| / max|D| with D = diag(d) (d == NULL: the identity). */
static double congruence_error(const double *A, const double *V, size_t n, const double *d)
{
    double worst = 0.0, big = 0.0;
    for (size_t k = 0; k < n; k++)
        big = fmax(big, d ? fabs(d[k]) : 1.0);
    for (size_t k = 0; k < n; k++)
        for (size_t l = 0; l < n; l++) {
            long double s = 0.0L;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    s += (long double)V[i * n + k] * A[i * n + j] * V[j * n + l];
            double want = k == l ? (d ? d[k] : 1.0) : 0.0;
            worst = fmax(worst, fabs((double)s - want));
        }
    return worst / big;
}

/* Two masses m1, m2 in a chain: wall –k1– m1 –k2– m2. det(K − λM) = 0 gives
 * m1 m2 λ² − (m1 k2 + m2 (k1 + k2)) λ + k1 k2 = 0; the first row gives the eigenvector
 * (k2, k1 + k2 − λ m1), M-normalized, sign as the convention. 1e-13 relative. */
Test(basis_eigen, two_by_two_closed_form)
{
    const double m1 = 2.0, m2 = 1.0, k1 = 3.0e3, k2 = 1.0e3;
    const double K[4] = {k1 + k2, -k2, -k2, k2}, M[4] = {m1, 0.0, 0.0, m2};
    double lambda[2], V[4];
    eigen_ok(K, M, 2, lambda, V);
    double a = m1 * m2, b = -(m1 * k2 + m2 * (k1 + k2)), c = k1 * k2;
    double q = -0.5 * (b - sqrt(b * b - 4.0 * a * c)); /* b < 0: no cancellation */
    double ref[2] = {c / q, q / a};
    for (int k = 0; k < 2; k++) {
        cr_assert_leq(fabs(lambda[k] - ref[k]) / ref[k], 1e-13, "lambda %d: %.17g vs %.17g", k,
                      lambda[k], ref[k]);
        double v[2] = {k2, k1 + k2 - ref[k] * m1};
        double nrm = sqrt(m1 * v[0] * v[0] + m2 * v[1] * v[1]);
        size_t anchor = fabs(v[0]) >= 0.5 * fmax(fabs(v[0]), fabs(v[1])) ? 0 : 1;
        double s = v[anchor] < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < 2; i++)
            cr_assert_leq(fabs(V[i * 2 + k] - s * v[i] / nrm), 1e-13 / sqrt(m2),
                          "V[%d][%d]", i, k);
    }
    cr_assert_leq(congruence_error(M, V, 2, NULL), 1e-14);
    cr_assert_leq(congruence_error(K, V, 2, lambda), 1e-13);
}

/* A random SPD pair of very different scales (K ~ 1e6, M ~ 1e-3). */
static void random_pair(size_t n, uint64_t seed, double *K, double *M)
{
    btl_rng r = {seed};
    double A[25], B[25];
    for (size_t i = 0; i < n * n; i++) {
        A[i] = btl_uniform(&r);
        B[i] = btl_uniform(&r);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            long double sk = 0.0L, sm = 0.0L;
            for (size_t k = 0; k < n; k++) {
                sk += (long double)A[k * n + i] * A[k * n + j];
                sm += (long double)B[k * n + i] * B[k * n + j];
            }
            K[i * n + j] = 1e6 * ((double)sk + (i == j ? 0.1 : 0.0));
            M[i * n + j] = 1e-3 * ((double)sm + (i == j ? 0.5 : 0.0));
        }
}

/* 5 × 5: M = L Lᵀ, C = L⁻¹ K L⁻ᵀ = Y Λ Yᵀ (Jacobi), V = L⁻ᵀ Y. λ to 1e-12 relative,
 * eigenvectors (up to sign) to 1e-10 relative; Vᵀ M V = I and Vᵀ K V = Λ to 1e-13. */
Test(basis_eigen, five_by_five_against_cholesky_jacobi)
{
    enum { N = 5 };
    double K[N * N], M[N * N], L[N * N], C[N * N], T[N * N], Y[N * N], ref[N], Vref[N * N];
    random_pair(N, 3, K, M);
    cr_assert(btl_cholesky(M, N, L));
    /* T = L⁻¹ K (forward substitution per column), C = L⁻¹ Tᵀ (K symmetric). */
    for (size_t col = 0; col < N; col++)
        for (size_t i = 0; i < N; i++) {
            double s = K[i * N + col];
            for (size_t k = 0; k < i; k++)
                s -= L[i * N + k] * T[k * N + col];
            T[i * N + col] = s / L[i * N + i];
        }
    for (size_t col = 0; col < N; col++)
        for (size_t i = 0; i < N; i++) {
            double s = T[col * N + i];
            for (size_t k = 0; k < i; k++)
                s -= L[i * N + k] * C[k * N + col];
            C[i * N + col] = s / L[i * N + i];
        }
    for (size_t i = 0; i < N; i++) /* round-off asymmetry */
        for (size_t j = 0; j < i; j++)
            C[i * N + j] = C[j * N + i] = 0.5 * (C[i * N + j] + C[j * N + i]);
    btl_jacobi_eigen(C, N, ref, Y);
    for (size_t col = 0; col < N; col++) /* Vref = L⁻ᵀ Y, back substitution */
        for (size_t ii = N; ii-- > 0;) {
            double s = Y[ii * N + col];
            for (size_t k = ii + 1; k < N; k++)
                s -= L[k * N + ii] * Vref[k * N + col];
            Vref[ii * N + col] = s / L[ii * N + ii];
        }

    double lambda[N], V[N * N];
    eigen_ok(K, M, N, lambda, V);
    for (size_t k = 0; k < N; k++) {
        cr_assert_leq(fabs(lambda[k] - ref[k]) / ref[k], 1e-12, "lambda %zu: %.17g vs %.17g",
                      k, lambda[k], ref[k]);
        double s = V[k] * Vref[k] < 0.0 ? -1.0 : 1.0, d = 0.0, big = 0.0;
        for (size_t i = 0; i < N; i++) {
            d = fmax(d, fabs(V[i * N + k] - s * Vref[i * N + k]));
            big = fmax(big, fabs(Vref[i * N + k]));
        }
        cr_assert_leq(d, 1e-10 * big, "eigenvector %zu", k);
    }
    cr_assert_leq(congruence_error(M, V, N, NULL), 1e-13);
    cr_assert_leq(congruence_error(K, V, N, lambda), 1e-13);
    printf("5x5: omega_max = %.6g rad/s\n", sqrt(lambda[N - 1]));
}

static void expect_eigen_error(const double *K, const double *M, size_t n, const char *msg)
{
    double lambda[4], V[16];
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_generalized_eigen(K, M, n, lambda, V, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
}

/* Singular and indefinite M, indefinite and singular K. */
Test(basis_eigen, bad_matrices)
{
    const double I2[4] = {1, 0, 0, 1};
    const double sing[4] = {1, 1, 1, 1}, indef[4] = {1, 0, 0, -1};
    expect_eigen_error(I2, sing, 2,
                       "the mass matrix is singular or not positive definite (leading minor 2)");
    expect_eigen_error(I2, indef, 2,
                       "the mass matrix is singular or not positive definite (leading minor 2)");
    const double M3[9] = {-1, 0, 0, 0, 2, 0, 0, 0, 3}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    expect_eigen_error(I3, M3, 3, "(leading minor 1)");
    expect_eigen_error(indef, I2, 2, "the stiffness matrix is not positive definite (eigenvalue -1;");
    /* A free spring (a rigid translation left in the basis): eigenvalue 0 up to round-off. */
    const double free_spring[4] = {1e3, -1e3, -1e3, 1e3};
    expect_eigen_error(free_spring, I2, 2, "the stiffness matrix is not positive definite");
    const double nan_k[4] = {1, NAN, NAN, 1};
    expect_eigen_error(nan_k, I2, 2, "NaN");
}

/* Ratio damping: Vᵀ C V = diag(2 ζ_k ω_k) (1e-12 relative), C exactly symmetric. Rayleigh:
 * C = a M + b K entry by entry, and its modal ratios follow ζ_k = a/(2ω_k) + b ω_k/2, so
 * the ratio form with those ζ_k rebuilds the same matrix (1e-12 relative). */
Test(basis_eigen, damping)
{
    enum { N = 5 };
    double K[N * N], M[N * N], lambda[N], V[N * N], C[N * N], d[N];
    random_pair(N, 8, K, M);
    eigen_ok(K, M, N, lambda, V);
    const double zeta[N] = {0.01, 0.02, 0.03, 0.04, 0.05};
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_damping_ratio(K, M, N, zeta, C, &err), LDEM_OK, "%s", err.msg);
    for (size_t k = 0; k < N; k++)
        d[k] = 2.0 * zeta[k] * sqrt(lambda[k]);
    cr_assert_leq(congruence_error(C, V, N, d), 1e-12);
    cr_assert_eq(basis_asymmetry(C, N), 0.0);

    const double a = 2.0, b = 1e-5;
    double CR[N * N], zr[N], CZ[N * N];
    basis_damping_rayleigh(K, M, N, a, b, CR);
    for (size_t i = 0; i < N * N; i++)
        cr_assert_eq(CR[i], a * M[i] + b * K[i]);
    for (size_t k = 0; k < N; k++) {
        double w = sqrt(lambda[k]);
        zr[k] = a / (2.0 * w) + b * w / 2.0;
        d[k] = 2.0 * zr[k] * w;
    }
    cr_assert_leq(congruence_error(CR, V, N, d), 1e-12);
    cr_assert_eq(basis_damping_ratio(K, M, N, zr, CZ, &err), LDEM_OK, "%s", err.msg);
    cr_assert_leq(btl_rel_diff(CZ, CR, N * N), 1e-12);

    const double bad[N] = {0.01, -0.02, 0.03, 0.04, 0.05};
    cr_assert_eq(basis_damping_ratio(K, M, N, bad, C, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "damping ratio 1") != NULL, "%s", err.msg);
    const double sing[4] = {1, 1, 1, 1}, I2[4] = {1, 0, 0, 1};
    cr_assert_eq(basis_damping_ratio(I2, sing, 2, zeta, C, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "mass matrix") != NULL, "%s", err.msg);
}

/* max|A_ij − A_ji| / max|A_ij| by hand. */
Test(basis_eigen, asymmetry)
{
    const double A[4] = {1.0, 2.0, 2.5, 4.0}, S[4] = {1.0, 2.0, 2.0, 4.0}, Z[4] = {0};
    cr_assert_eq(basis_asymmetry(A, 2), 0.125);
    cr_assert_eq(basis_asymmetry(S, 2), 0.0);
    cr_assert_eq(basis_asymmetry(Z, 2), 0.0);
}
