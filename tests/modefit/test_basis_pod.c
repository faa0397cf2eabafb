/* Unit tests of basis_pod and basis_energy_count (basis.h) on synthetic snapshots: three
 * known smooth fields f_a on ndof = 3000 points, combined with fixed-seed random
 * coefficients into 20 snapshots s_j = Σ_a C_ja f_a, with or without noise of relative
 * size 1e-6. References are computed independently with plain loops: the non-zero σ² of
 * S = F Cᵀ are the eigenvalues of Lᵀ (CᵀC) L with G_F = L Lᵀ (3 × 3, Jacobi rotations);
 * the span of the fields comes from a Gram–Schmidt written here. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basis.h"
#include "basis_testlib.h"

#define NDOF 3000
#define NSNAP 20
#define NF 3

static const double PI = 3.141592653589793238462643383279;

typedef struct {
    double F[NF * NDOF];     /* the known fields */
    double C[NSNAP * NF];    /* snapshot j = Σ_a C[j*NF + a] f_a (+ noise) */
    double S[NSNAP * NDOF];  /* the snapshots */
    double Q[NF * NDOF];     /* an orthonormal basis of span(F), Euclidean */
} synth;

static synth *synth_make(double noise, uint64_t seed)
{
    synth *y = calloc(1, sizeof *y);
    cr_assert_not_null(y);
    for (size_t i = 0; i < NDOF; i++) {
        double x = (double)i / (NDOF - 1);
        y->F[0 * NDOF + i] = sin(PI * x);
        y->F[1 * NDOF + i] = cos(3.0 * PI * x) * (1.0 + x);
        y->F[2 * NDOF + i] = exp(-20.0 * (x - 0.3) * (x - 0.3)) - 0.5 * x * x;
    }
    btl_rng r = {seed};
    /* Column scales 3 : 1.5 : 0.7 keep the three singular values well apart. */
    const double scale[NF] = {3.0, 1.5, 0.7};
    for (size_t j = 0; j < NSNAP; j++)
        for (size_t a = 0; a < NF; a++)
            y->C[j * NF + a] = scale[a] * btl_uniform(&r);
    for (size_t j = 0; j < NSNAP; j++) {
        double *s = y->S + j * NDOF;
        btl_combine(y->C + j * NF, NF, y->F, NDOF, s);
        if (noise > 0.0) {
            double e[NDOF];
            for (size_t i = 0; i < NDOF; i++)
                e[i] = btl_normal(&r);
            double k = noise * btl_norm(s, NDOF) / btl_norm(e, NDOF);
            for (size_t i = 0; i < NDOF; i++)
                s[i] += k * e[i];
        }
    }
    /* Gram–Schmidt twice, plain loops. */
    memcpy(y->Q, y->F, sizeof y->Q);
    for (size_t a = 0; a < NF; a++) {
        double *q = y->Q + a * NDOF;
        for (int pass = 0; pass < 2; pass++)
            for (size_t b = 0; b < a; b++) {
                double h = btl_dot(y->Q + b * NDOF, q, NDOF);
                for (size_t i = 0; i < NDOF; i++)
                    q[i] -= h * y->Q[b * NDOF + i];
            }
        double n = btl_norm(q, NDOF);
        for (size_t i = 0; i < NDOF; i++)
            q[i] /= n;
    }
    return y;
}

/* The exact non-zero singular values (descending) of the noise-free snapshot matrix. */
static void exact_sigma(const synth *y, double sigma[NF])
{
    double G[NF * NF], L[NF * NF], CtC[NF * NF] = {0}, T[NF * NF], A[NF * NF], Z[NF * NF],
        lam[NF];
    for (size_t a = 0; a < NF; a++)
        for (size_t b = 0; b < NF; b++)
            G[a * NF + b] = btl_dot(y->F + a * NDOF, y->F + b * NDOF, NDOF);
    cr_assert(btl_cholesky(G, NF, L));
    for (size_t a = 0; a < NF; a++)
        for (size_t b = 0; b < NF; b++)
            for (size_t j = 0; j < NSNAP; j++)
                CtC[a * NF + b] += y->C[j * NF + a] * y->C[j * NF + b];
    for (size_t a = 0; a < NF; a++) /* T = CᵀC L */
        for (size_t b = 0; b < NF; b++) {
            T[a * NF + b] = 0.0;
            for (size_t c = 0; c < NF; c++)
                T[a * NF + b] += CtC[a * NF + c] * L[c * NF + b];
        }
    for (size_t a = 0; a < NF; a++) /* A = Lᵀ T */
        for (size_t b = 0; b < NF; b++) {
            A[a * NF + b] = 0.0;
            for (size_t c = 0; c < NF; c++)
                A[a * NF + b] += L[c * NF + a] * T[c * NF + b];
        }
    btl_jacobi_eigen(A, NF, lam, Z);
    for (size_t k = 0; k < NF; k++)
        sigma[k] = sqrt(lam[NF - 1 - k]);
}

/* mode k = Σ_j coef[k*count + j] snap_j, plain loops. */
static void mode_of(const double *S, size_t count, size_t ndof, const double *coef, size_t k,
                    double *out)
{
    btl_combine(coef + k * count, count, S, ndof, out);
}

/* |f − P f| / |f| with P the Euclidean projection on the first n modes (orthonormal). */
static double span_residual(const double *f, const double *modes, size_t n, size_t ndof)
{
    double *r = malloc(ndof * sizeof(double));
    memcpy(r, f, ndof * sizeof(double));
    for (size_t k = 0; k < n; k++) {
        double h = btl_dot(modes + k * ndof, f, ndof);
        for (size_t i = 0; i < ndof; i++)
            r[i] -= h * modes[k * ndof + i];
    }
    double res = btl_norm(r, ndof) / btl_norm(f, ndof);
    free(r);
    return res;
}

typedef struct {
    double sigma[NSNAP];
    double coef[NSNAP * NSNAP];
    double modes[NSNAP * NDOF];
    size_t rank;
} pod_out;

static pod_out *run_pod(const double *S, size_t count, const basis_inner *ip, int method)
{
    pod_out *p = calloc(1, sizeof *p);
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_pod(S, count, ip, method, p->sigma, p->coef, &p->rank, &err), LDEM_OK,
                 "%s", err.msg);
    for (size_t k = 0; k < p->rank; k++)
        mode_of(S, count, ip->ndof, p->coef, k, p->modes + k * ip->ndof);
    return p;
}

static double sum_sq(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

static double frobenius_sq(const double *S, size_t count, size_t ndof)
{
    double s = 0.0;
    for (size_t j = 0; j < count; j++)
        s += btl_dot(S + j * ndof, S + j * ndof, ndof);
    return s;
}

/* Noise-free: both methods give the exact σ (1e-12 relative), rank 3, all energy in three
 * modes, Σσ² = ‖S‖_F², and modes that span the fields exactly (residual 1e-12). */
Test(basis_pod, noise_free_exact)
{
    synth *y = synth_make(0.0, 11);
    basis_inner ip = basis_inner_euclidean(NDOF);
    double ref[NF];
    exact_sigma(y, ref);
    const int methods[] = {BASIS_POD_SNAPSHOTS, BASIS_POD_DIRECT};
    for (int m = 0; m < 2; m++) {
        pod_out *p = run_pod(y->S, NSNAP, &ip, methods[m]);
        for (size_t k = 0; k < NF; k++)
            cr_assert_leq(fabs(p->sigma[k] - ref[k]) / ref[k], 1e-12,
                          "method %d sigma %zu: %.17g vs exact %.17g", methods[m], k,
                          p->sigma[k], ref[k]);
        cr_assert_eq(p->rank, 3, "method %d: rank %zu", methods[m], p->rank);
        for (size_t k = NF; k < NSNAP; k++)
            cr_assert_leq(p->sigma[k], 1e-12 * p->sigma[0]);
        cr_assert_eq(basis_energy_count(p->sigma, NSNAP, 1.0 - 1e-9), 3);
        double total = sum_sq(p->sigma, NSNAP), first3 = sum_sq(p->sigma, NF);
        cr_assert_leq(fabs(total - frobenius_sq(y->S, NSNAP, NDOF)) / total, 1e-12);
        cr_assert_leq(1.0 - first3 / total, 1e-12);
        for (size_t a = 0; a < NF; a++)
            cr_assert_leq(span_residual(y->F + a * NDOF, p->modes, NF, NDOF), 1e-12,
                          "method %d field %zu", methods[m], a);
        for (size_t k = 0; k < NF; k++)
            for (size_t l = 0; l < NF; l++)
                cr_assert_leq(fabs(btl_dot(p->modes + k * NDOF, p->modes + l * NDOF, NDOF) -
                                   (k == l)),
                              1e-12);
        free(p);
    }
    free(y);
}

/* Relative noise 1e-6 (energy fraction ≈ 1e-12): the energy criterion at 1 − 1e-9 keeps
 * 3 modes (and at 1 − 1e-14 more, so it does see the noise); the 3 modes span the fields
 * to 1e-5; σ_k² = Σ_j <s_j, φ_k>² (the captured energy recomputed from the snapshots and
 * the mode fields, 1e-10 relative); Σσ² = ‖S‖_F² (1e-12). POD's subspace is optimal, so
 * the energy it leaves out is at most the snapshots' energy outside span(F) — and, since
 * only 3 of the 20 noise directions of each field can be absorbed, at least half of it. */
Test(basis_pod, noisy_span_and_energy)
{
    synth *y = synth_make(1e-6, 12);
    basis_inner ip = basis_inner_euclidean(NDOF);
    pod_out *p = run_pod(y->S, NSNAP, &ip, BASIS_POD_AUTO);
    cr_assert_eq(basis_energy_count(p->sigma, NSNAP, 1.0 - 1e-9), 3);
    cr_assert_gt(basis_energy_count(p->sigma, NSNAP, 1.0 - 1e-14), 3);
    double worst = 0.0;
    for (size_t a = 0; a < NF; a++)
        worst = fmax(worst, span_residual(y->F + a * NDOF, p->modes, NF, NDOF));
    cr_assert_leq(worst, 1e-5);
    cr_assert_gt(worst, 1e-9, "the noise should tilt the span measurably (%g)", worst);

    double total = sum_sq(p->sigma, NSNAP), frob = frobenius_sq(y->S, NSNAP, NDOF);
    cr_assert_leq(fabs(total - frob) / frob, 1e-12);
    double captured = 0.0;
    for (size_t k = 0; k < NF; k++) {
        double e = 0.0;
        for (size_t j = 0; j < NSNAP; j++) {
            double h = btl_dot(y->S + j * NDOF, p->modes + k * NDOF, NDOF);
            e += h * h;
        }
        cr_assert_leq(fabs(e - p->sigma[k] * p->sigma[k]) / e, 1e-10, "mode %zu", k);
        captured += e;
    }
    cr_assert_leq(fabs(captured / frob - sum_sq(p->sigma, NF) / total), 1e-12);

    double outside = 0.0;
    for (size_t j = 0; j < NSNAP; j++)
        outside += span_residual(y->S + j * NDOF, y->Q, NF, NDOF) *
                   span_residual(y->S + j * NDOF, y->Q, NF, NDOF) *
                   btl_dot(y->S + j * NDOF, y->S + j * NDOF, NDOF);
    double left = total - sum_sq(p->sigma, NF);
    double tail = sum_sq(p->sigma + NF, NSNAP - NF);
    cr_assert_leq(fabs(left - tail), 1e-15 * total);
    cr_assert_leq(tail, outside * (1.0 + 1e-6), "tail %g outside %g", tail, outside);
    cr_assert_geq(tail, 0.5 * outside, "tail %g outside %g", tail, outside);
    printf("noisy POD: span residual %.3g, uncaptured %.4g of the energy (outside span(F): "
           "%.4g)\n",
           worst, tail / total, outside / total);
    free(p);
    free(y);
}

/* DIRECT (dgesdd) and SNAPSHOTS (dsyevd of the Gram matrix) agree: the 3 signal σ to
 * 1e-10 relative, every σ² to 1e-13 σ0² (the Gram method's absolute accuracy), and the
 * 3 signal modes entry by entry to 1e-8 after the sign convention. The SNAPSHOTS tail
 * modes are orthonormal to the documented 10 · count · ε · σ0² / (σ_k σ_l). */
Test(basis_pod, direct_matches_snapshots)
{
    synth *y = synth_make(1e-6, 13);
    basis_inner ip = basis_inner_euclidean(NDOF);
    pod_out *d = run_pod(y->S, NSNAP, &ip, BASIS_POD_DIRECT);
    pod_out *s = run_pod(y->S, NSNAP, &ip, BASIS_POD_SNAPSHOTS);
    double s0sq = d->sigma[0] * d->sigma[0];
    for (size_t k = 0; k < NSNAP; k++) {
        if (k < NF)
            cr_assert_leq(fabs(d->sigma[k] - s->sigma[k]) / d->sigma[k], 1e-10);
        cr_assert_leq(fabs(d->sigma[k] * d->sigma[k] - s->sigma[k] * s->sigma[k]),
                      1e-13 * s0sq, "sigma %zu: %.17g vs %.17g", k, d->sigma[k], s->sigma[k]);
    }
    cr_assert_eq(d->rank, NSNAP);
    cr_assert_eq(s->rank, NSNAP, "the noise σ (~2e-7 σ0) lie above the Gram floor");
    for (size_t k = 0; k < NF; k++)
        cr_assert_leq(btl_rel_diff(s->modes + k * NDOF, d->modes + k * NDOF, NDOF), 1e-8,
                      "mode %zu", k);
    double worst = 0.0;
    for (size_t k = 0; k < s->rank; k++)
        for (size_t l = 0; l <= k; l++) {
            double g = btl_dot(s->modes + k * NDOF, s->modes + l * NDOF, NDOF);
            double bound = 10.0 * NSNAP * DBL_EPSILON * s0sq / (s->sigma[k] * s->sigma[l]);
            cr_assert_leq(fabs(g - (k == l)), bound, "modes %zu %zu", k, l);
            worst = fmax(worst, fabs(g - (k == l)) / bound);
        }
    printf("snapshot tail orthonormality: worst at %.3g of the documented bound\n", worst);
    /* DIRECT's U is orthonormal to working precision, but a mode rebuilt from the
     * snapshots, Σ_j snap_j V_jk / σ_k, carries the round-off of sums of size σ0 divided
     * by σ_k: documented as count · ε · σ0 · (1/σ_k + 1/σ_l). */
    worst = 0.0;
    for (size_t k = 0; k < d->rank; k++)
        for (size_t l = 0; l <= k; l++) {
            double g = btl_dot(d->modes + k * NDOF, d->modes + l * NDOF, NDOF);
            double bound = NSNAP * DBL_EPSILON * d->sigma[0] *
                           (1.0 / d->sigma[k] + 1.0 / d->sigma[l]);
            cr_assert_leq(fabs(g - (k == l)), bound, "modes %zu %zu", k, l);
            worst = fmax(worst, fabs(g - (k == l)) / bound);
        }
    printf("direct tail orthonormality: worst at %.3g of the documented bound\n", worst);
    free(d);
    free(s);
    free(y);
}

/* AUTO is SNAPSHOTS (bit for bit) when ndof > 4 count, DIRECT when not. */
Test(basis_pod, auto_choice)
{
    synth *y = synth_make(1e-6, 14);
    basis_inner ip = basis_inner_euclidean(NDOF);
    pod_out *a = run_pod(y->S, NSNAP, &ip, BASIS_POD_AUTO);
    pod_out *s = run_pod(y->S, NSNAP, &ip, BASIS_POD_SNAPSHOTS);
    cr_assert(memcmp(a->sigma, s->sigma, sizeof a->sigma) == 0);
    cr_assert(memcmp(a->coef, s->coef, sizeof a->coef) == 0);
    free(a);
    free(s);
    /* 20 snapshots of 60 values: the first 60 entries of each field. */
    enum { SMALL = 60 };
    double *S = malloc(NSNAP * SMALL * sizeof(double));
    for (size_t j = 0; j < NSNAP; j++)
        memcpy(S + j * SMALL, y->S + j * NDOF, SMALL * sizeof(double));
    basis_inner ips = basis_inner_euclidean(SMALL);
    a = run_pod(S, NSNAP, &ips, BASIS_POD_AUTO);
    pod_out *d = run_pod(S, NSNAP, &ips, BASIS_POD_DIRECT);
    cr_assert(memcmp(a->sigma, d->sigma, sizeof a->sigma) == 0);
    cr_assert(memcmp(a->coef, d->coef, sizeof a->coef) == 0);
    free(a);
    free(d);
    free(S);
    free(y);
}

/* Signs: each mode's first entry of magnitude ≥ half its largest is positive, and
 * negating every snapshot negates the coefficients (the modes stay the same). */
Test(basis_pod, sign_convention)
{
    synth *y = synth_make(1e-6, 15);
    basis_inner ip = basis_inner_euclidean(NDOF);
    const int methods[] = {BASIS_POD_SNAPSHOTS, BASIS_POD_DIRECT};
    double *neg = malloc(sizeof y->S);
    for (size_t i = 0; i < NSNAP * NDOF; i++)
        neg[i] = -y->S[i];
    for (int m = 0; m < 2; m++) {
        pod_out *p = run_pod(y->S, NSNAP, &ip, methods[m]);
        pod_out *q = run_pod(neg, NSNAP, &ip, methods[m]);
        for (size_t k = 0; k < p->rank; k++) {
            const double *v = p->modes + k * NDOF;
            double big = 0.0;
            for (size_t i = 0; i < NDOF; i++)
                big = fmax(big, fabs(v[i]));
            size_t i = 0;
            while (fabs(v[i]) < 0.5 * big)
                i++;
            cr_assert_gt(v[i], 0.0, "method %d mode %zu", methods[m], k);
        }
        cr_assert_eq(p->rank, q->rank);
        double worst = 0.0, big = 0.0;
        for (size_t k = 0; k < NF; k++)
            for (size_t j = 0; j < NSNAP; j++) {
                worst = fmax(worst, fabs(p->coef[k * NSNAP + j] + q->coef[k * NSNAP + j]));
                big = fmax(big, fabs(p->coef[k * NSNAP + j]));
            }
        cr_assert_leq(worst, 1e-10 * big, "method %d", methods[m]);
        free(p);
        free(q);
    }
    free(neg);
    free(y);
}

/* A diagonal weighted product W: the modes are W-orthonormal, and the POD equals the
 * Euclidean DIRECT POD of the scaled snapshots W^{1/2} s_j (same σ to 1e-10 relative, same
 * combination coefficients up to sign to 1e-8). DIRECT itself is refused. */
Test(basis_pod, weighted_inner_product)
{
    synth *y = synth_make(0.0, 16);
    double *w = malloc(NDOF * sizeof(double));
    btl_rng r = {99};
    for (size_t i = 0; i < NDOF; i++)
        w[i] = 1.25 + 0.75 * btl_uniform(&r); /* in [0.5, 2) */
    basis_inner ip = btl_inner_diag(w, NDOF);
    pod_out *p = run_pod(y->S, NSNAP, &ip, BASIS_POD_AUTO);
    cr_assert_eq(p->rank, 3);
    for (size_t k = 0; k < NF; k++)
        for (size_t l = 0; l < NF; l++)
            cr_assert_leq(fabs(btl_wdot(w, p->modes + k * NDOF, p->modes + l * NDOF, NDOF) -
                               (k == l)),
                          1e-12);
    /* Euclidean orthonormality would fail: the weights matter. */
    cr_assert_gt(fabs(btl_dot(p->modes, p->modes, NDOF) - 1.0), 1e-3);

    double *scaled = malloc(sizeof y->S);
    for (size_t j = 0; j < NSNAP; j++)
        for (size_t i = 0; i < NDOF; i++)
            scaled[j * NDOF + i] = sqrt(w[i]) * y->S[j * NDOF + i];
    basis_inner eu = basis_inner_euclidean(NDOF);
    pod_out *d = run_pod(scaled, NSNAP, &eu, BASIS_POD_DIRECT);
    for (size_t k = 0; k < NF; k++) {
        cr_assert_leq(fabs(p->sigma[k] - d->sigma[k]) / d->sigma[k], 1e-10);
        double sgn = p->coef[k * NSNAP] * d->coef[k * NSNAP] < 0.0 ? -1.0 : 1.0;
        double dc[NSNAP];
        for (size_t j = 0; j < NSNAP; j++)
            dc[j] = sgn * d->coef[k * NSNAP + j];
        cr_assert_leq(btl_rel_diff(p->coef + k * NSNAP, dc, NSNAP), 1e-8, "mode %zu", k);
    }

    ldem_err err;
    ldem_err_clear(&err);
    double sigma[NSNAP], coef[NSNAP * NSNAP];
    size_t rank;
    cr_assert_eq(basis_pod(y->S, NSNAP, &ip, BASIS_POD_DIRECT, sigma, coef, &rank, &err),
                 LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "Euclidean") != NULL, "%s", err.msg);
    btl_inner_free(&ip);
    free(scaled);
    free(d);
    free(p);
    free(w);
    free(y);
}

/* Bad input: no snapshots, a NaN (both methods), an unknown method; all-zero snapshots are
 * not an error but have rank 0. */
Test(basis_pod, bad_input)
{
    basis_inner ip = basis_inner_euclidean(4);
    double S[3 * 4] = {1, 2, 3, 4, 0, 1, 0, 1, 2, 2, 1, 1};
    double sigma[3], coef[9];
    size_t rank = 99;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_pod(S, 0, &ip, BASIS_POD_AUTO, sigma, coef, &rank, &err),
                 LDEM_ERR_INPUT);
    cr_assert_eq(basis_pod(S, 3, &ip, 7, sigma, coef, &rank, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "unknown POD method") != NULL, "%s", err.msg);
    S[5] = NAN;
    cr_assert_eq(basis_pod(S, 3, &ip, BASIS_POD_DIRECT, sigma, coef, &rank, &err),
                 LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "NaN") != NULL, "%s", err.msg);
    cr_assert_eq(basis_pod(S, 3, &ip, BASIS_POD_SNAPSHOTS, sigma, coef, &rank, &err),
                 LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "NaN") != NULL, "%s", err.msg);
    double Z[3 * 4] = {0};
    for (int m = 1; m <= 2; m++) {
        cr_assert_eq(basis_pod(Z, 3, &ip, m, sigma, coef, &rank, &err), LDEM_OK, "%s",
                     err.msg);
        cr_assert_eq(rank, 0);
        for (size_t i = 0; i < 9; i++)
            cr_assert_eq(coef[i], 0.0);
    }
}

/* Hand-computed: σ = 3, 2, 1, 0 → σ² = 9, 4, 1, 0 of total 14. */
Test(basis_pod, energy_count)
{
    const double s[4] = {3.0, 2.0, 1.0, 0.0};
    cr_assert_eq(basis_energy_count(s, 4, 0.0), 1);
    cr_assert_eq(basis_energy_count(s, 4, 0.64), 1); /* 8.96 */
    cr_assert_eq(basis_energy_count(s, 4, 0.65), 2); /* 9.1 */
    cr_assert_eq(basis_energy_count(s, 4, 0.92), 2); /* 12.88 */
    cr_assert_eq(basis_energy_count(s, 4, 0.93), 3); /* 13.02 */
    cr_assert_eq(basis_energy_count(s, 4, 1.0), 3);
    cr_assert_eq(basis_energy_count(s, 0, 0.9), 0);
}

/* Timing only: 50 snapshots of 300k values through the method of snapshots. */
Test(basis_pod, performance_snapshots)
{
    const size_t count = 50, ndof = 300000;
    double *S = malloc(count * ndof * sizeof(double));
    cr_assert_not_null(S);
    btl_rng r = {7};
    for (size_t i = 0; i < count * ndof; i++)
        S[i] = btl_uniform(&r);
    basis_inner ip = basis_inner_euclidean(ndof);
    double sigma[50], coef[50 * 50];
    size_t rank;
    ldem_err err;
    ldem_err_clear(&err);
    double t0 = btl_now();
    cr_assert_eq(basis_pod(S, count, &ip, BASIS_POD_SNAPSHOTS, sigma, coef, &rank, &err),
                 LDEM_OK, "%s", err.msg);
    double t1 = btl_now();
    printf("POD by snapshots, %zu x %zu: %.3f s (rank %zu)\n", count, ndof, t1 - t0, rank);
    cr_assert_eq(rank, count);
    free(S);
}
