/* Unit tests of basis_combine, basis_orthonormalize and basis_project_out (basis.h).
 * References are plain loops (basis_testlib.c), with long double sums where a result is
 * compared to 1e-12 or better. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basis.h"
#include "basis_testlib.h"

/* out (n × ndof) from the library against n plain combinations: 1e-14 relative. */
Test(basis_ortho, combine)
{
    enum { N = 4, M = 5, NDOF = 1000 };
    btl_rng r = {1};
    double *coef = malloc(N * M * sizeof(double)), *f = malloc(M * NDOF * sizeof(double));
    double *out = malloc(N * NDOF * sizeof(double)), *ref = malloc(N * NDOF * sizeof(double));
    for (size_t i = 0; i < N * M; i++)
        coef[i] = btl_uniform(&r);
    for (size_t i = 0; i < M * NDOF; i++)
        f[i] = btl_uniform(&r);
    basis_combine(coef, N, M, f, NDOF, out);
    for (size_t k = 0; k < N; k++)
        btl_combine(coef + k * M, M, f, NDOF, ref + k * NDOF);
    cr_assert_leq(btl_rel_diff(out, ref, N * NDOF), 1e-14);
    basis_combine(coef, N, 0, f, NDOF, out); /* no inputs: zero fields */
    for (size_t i = 0; i < N * NDOF; i++)
        cr_assert_eq(out[i], 0.0);
    free(coef);
    free(f);
    free(out);
    free(ref);
}

/* ---- Gram–Schmidt --------------------------------------------------------------------- */

#define ND 3000
static const double PI = 3.141592653589793238462643383279;

static void smooth_fields(double *F) /* 3 × ND */
{
    for (size_t i = 0; i < ND; i++) {
        double x = (double)i / (ND - 1);
        F[0 * ND + i] = sin(PI * x);
        F[1 * ND + i] = cos(3.0 * PI * x) * (1.0 + x);
        F[2 * ND + i] = exp(-20.0 * (x - 0.3) * (x - 0.3)) - 0.5 * x * x;
    }
}

/* <a, b> in the product under test: w == NULL is Euclidean. */
static double ipw(const double *w, const double *a, const double *b)
{
    return w ? btl_wdot(w, a, b, ND) : btl_dot(a, b, ND);
}

/* Inputs f1, f2, f1 + f2 + noise, f3, with noise of relative size `noise`. */
static void dependent_set(double *in, double noise)
{
    smooth_fields(in); /* rows 0..2 = f1, f2, f3 */
    memcpy(in + 3 * ND, in + 2 * ND, ND * sizeof(double));
    btl_rng r = {5};
    double e[ND];
    for (size_t i = 0; i < ND; i++) {
        in[2 * ND + i] = in[0 * ND + i] + in[1 * ND + i];
        e[i] = btl_normal(&r);
    }
    double k = noise * btl_norm(in + 2 * ND, ND) / btl_norm(e, ND);
    for (size_t i = 0; i < ND; i++)
        in[2 * ND + i] += k * e[i];
}

static void check_dependent_pruned(const double *w)
{
    enum { COUNT = 4 };
    double *in = malloc(COUNT * ND * sizeof(double)), *f = malloc(COUNT * ND * sizeof(double));
    double coef[COUNT * COUNT], rebuilt[ND];
    dependent_set(in, 1e-12);
    memcpy(f, in, COUNT * ND * sizeof(double));
    basis_inner ip = w ? btl_inner_diag(w, ND) : basis_inner_euclidean(ND);
    size_t kept = 99;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_orthonormalize(f, COUNT, &ip, 1e-8, coef, &kept, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(kept, 3);
    for (size_t k = 0; k < kept; k++) {
        for (size_t l = 0; l < kept; l++)
            cr_assert_leq(fabs(ipw(w, f + k * ND, f + l * ND) - (k == l)), 1e-14, "%zu %zu", k,
                          l);
        btl_combine(coef + k * COUNT, COUNT, in, ND, rebuilt);
        cr_assert_leq(btl_rel_diff(rebuilt, f + k * ND, ND), 1e-12, "kept %zu", k);
        cr_assert_eq(coef[k * COUNT + 2], 0.0, "the pruned input takes no part");
    }
    /* The first kept field is the first input, normalized. */
    double n0 = sqrt(ipw(w, in, in));
    for (size_t i = 0; i < ND; i++)
        cr_assert_leq(fabs(f[i] - in[i] / n0), 1e-15 * fabs(in[i] / n0) + 1e-17);
    /* The remaining slot and coefficient row are cleared. */
    for (size_t i = 0; i < ND; i++)
        cr_assert_eq(f[3 * ND + i], 0.0);
    for (size_t j = 0; j < COUNT; j++)
        cr_assert_eq(coef[3 * COUNT + j], 0.0);
    /* Every input lies in the span of the kept fields (the pruned one to its noise). */
    for (size_t j = 0; j < COUNT; j++) {
        double r[ND];
        memcpy(r, in + j * ND, sizeof r);
        for (size_t k = 0; k < kept; k++) {
            double h = ipw(w, f + k * ND, in + j * ND);
            for (size_t i = 0; i < ND; i++)
                r[i] -= h * f[k * ND + i];
        }
        double res = sqrt(ipw(w, r, r) / ipw(w, in + j * ND, in + j * ND));
        cr_assert_leq(res, j == 2 ? 2e-12 : 1e-14, "input %zu residual %g", j, res);
    }
    if (w)
        btl_inner_free(&ip);

    /* With noise 1e-3 the third input is independent and is kept. */
    dependent_set(in, 1e-3);
    memcpy(f, in, COUNT * ND * sizeof(double));
    ip = w ? btl_inner_diag(w, ND) : basis_inner_euclidean(ND);
    cr_assert_eq(basis_orthonormalize(f, COUNT, &ip, 1e-8, coef, &kept, &err), LDEM_OK);
    cr_assert_eq(kept, 4);
    if (w)
        btl_inner_free(&ip);
    free(in);
    free(f);
}

/* A field equal to the sum of two others up to 1e-12 relative noise is pruned at 1e-8;
 * the kept fields are orthonormal (1e-14), rebuilt from the inputs by coef (1e-12), and
 * span every input; with 1e-3 noise the field is kept. */
Test(basis_ortho, prunes_dependent_euclidean)
{
    check_dependent_pruned(NULL);
}

Test(basis_ortho, prunes_dependent_weighted)
{
    double *w = malloc(ND * sizeof(double));
    btl_rng r = {77};
    for (size_t i = 0; i < ND; i++)
        w[i] = 1.25 + 0.75 * btl_uniform(&r);
    check_dependent_pruned(w);
    free(w);
}

/* Monomials 1, x, ..., x^11 on 3000 points of [0, 1] are nearly dependent (x^11 keeps
 * ~1e-6 of its norm after removing the lower ones): one Gram–Schmidt sweep would lose
 * orthogonality to ~ε κ, two keep it to round-off. Tolerance 1e-13 on VᵀV − I. */
Test(basis_ortho, twice_is_enough)
{
    enum { COUNT = 12 };
    double *f = malloc(COUNT * ND * sizeof(double)), coef[COUNT * COUNT];
    double *in = malloc(COUNT * ND * sizeof(double)), rebuilt[ND];
    for (size_t k = 0; k < COUNT; k++)
        for (size_t i = 0; i < ND; i++)
            in[k * ND + i] = pow((double)i / (ND - 1), (double)k);
    memcpy(f, in, COUNT * ND * sizeof(double));
    basis_inner ip = basis_inner_euclidean(ND);
    size_t kept;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_orthonormalize(f, COUNT, &ip, 1e-14, coef, &kept, &err), LDEM_OK);
    cr_assert_eq(kept, COUNT);
    double worst = 0.0;
    for (size_t k = 0; k < COUNT; k++)
        for (size_t l = 0; l <= k; l++)
            worst = fmax(worst, fabs(btl_dot(f + k * ND, f + l * ND, ND) - (k == l)));
    cr_assert_leq(worst, 1e-13);
    /* coef reproduces the fields up to the round-off of the combination itself, whose
     * terms are large and cancel here: |Σ_j c_kj in_j − kept_k| ≤ 4 · count · ε ·
     * Σ_j |c_kj| (every monomial is at most 1 in magnitude). */
    double cmax = 0.0, worst_ratio = 0.0;
    for (size_t k = 0; k < COUNT; k++) {
        double csum = 0.0, d = 0.0;
        for (size_t j = 0; j < COUNT; j++) {
            csum += fabs(coef[k * COUNT + j]);
            cmax = fmax(cmax, fabs(coef[k * COUNT + j]));
        }
        btl_combine(coef + k * COUNT, COUNT, in, ND, rebuilt);
        for (size_t i = 0; i < ND; i++)
            d = fmax(d, fabs(rebuilt[i] - f[k * ND + i]));
        double bound = 4.0 * COUNT * DBL_EPSILON * csum;
        cr_assert_leq(d, bound, "field %zu: %g vs %g", k, d, bound);
        worst_ratio = fmax(worst_ratio, d / bound);
    }
    printf("monomials: orthonormal to %.3g, largest coefficient %.3g, rebuilt at %.3g of "
           "the round-off bound\n",
           worst, cmax, worst_ratio);
    free(f);
    free(in);
}

Test(basis_ortho, orthonormalize_bad_input)
{
    double f[2 * 4] = {1, 0, 0, 0, 0, 1, 0, 0}, coef[4];
    basis_inner ip = basis_inner_euclidean(4);
    size_t kept;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_orthonormalize(f, 2, &ip, -1.0, coef, &kept, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "pruning") != NULL, "%s", err.msg);
    f[5] = NAN;
    cr_assert_eq(basis_orthonormalize(f, 2, &ip, 1e-8, coef, &kept, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "field 1") != NULL, "%s", err.msg);
    double z[2 * 4] = {0};
    cr_assert_eq(basis_orthonormalize(z, 2, &ip, 0.0, coef, &kept, &err), LDEM_OK);
    cr_assert_eq(kept, 0, "zero fields are always dropped");
}

/* ---- rigid-motion projection ---------------------------------------------------------- */

#define NP 1000
#define NR 6
#define NFLD 4

/* Points in a ball of radius 0.5 about `center`; 3 translations and 3 rotations about the
 * origin (node-major x y z). */
static void rigid_setup(const double center[3], double *pts, double *rigid)
{
    btl_rng r = {21};
    for (size_t p = 0; p < NP; p++) {
        double v[3], n2;
        do {
            for (int c = 0; c < 3; c++)
                v[c] = btl_uniform(&r);
            n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        } while (n2 > 1.0);
        for (int c = 0; c < 3; c++)
            pts[3 * p + c] = center[c] + 0.5 * v[c];
    }
    memset(rigid, 0, NR * 3 * NP * sizeof(double));
    for (size_t p = 0; p < NP; p++) {
        const double *x = pts + 3 * p;
        for (int c = 0; c < 3; c++)
            rigid[c * 3 * NP + 3 * p + c] = 1.0;
        /* e_a × x */
        double *rx = rigid + 3 * 3 * NP + 3 * p, *ry = rigid + 4 * 3 * NP + 3 * p,
               *rz = rigid + 5 * 3 * NP + 3 * p;
        rx[1] = -x[2], rx[2] = x[1];
        ry[0] = x[2], ry[2] = -x[0];
        rz[0] = -x[1], rz[1] = x[0];
    }
}

static void deformations(const double *pts, double *F) /* NFLD × 3NP, not rigid */
{
    for (size_t p = 0; p < NP; p++) {
        double x = pts[3 * p], y = pts[3 * p + 1], z = pts[3 * p + 2];
        double u[NFLD][3] = {{x * x, x * y, sin(z)},
                             {y, x, 0.0},            /* pure shear */
                             {cos(x + y), z * z, x * z},
                             {x, 0.5 * y, -z}};      /* stretch */
        for (size_t k = 0; k < NFLD; k++)
            for (int c = 0; c < 3; c++)
                F[k * 3 * NP + 3 * p + c] = u[k][c];
    }
}

/* Reference: subtract the projection on an orthonormal basis of the rigid span built here
 * (Gram–Schmidt twice, long double sums). */
static void project_reference(const double *w, const double *rigid, double *F)
{
    size_t nd = 3 * NP;
    double *Q = malloc(NR * nd * sizeof(double));
    memcpy(Q, rigid, NR * nd * sizeof(double));
    for (size_t a = 0; a < NR; a++) {
        double *q = Q + a * nd;
        for (int pass = 0; pass < 2; pass++)
            for (size_t b = 0; b < a; b++) {
                double h = w ? btl_wdot(w, Q + b * nd, q, nd) : btl_dot(Q + b * nd, q, nd);
                for (size_t i = 0; i < nd; i++)
                    q[i] -= h * Q[b * nd + i];
            }
        double n = sqrt(w ? btl_wdot(w, q, q, nd) : btl_dot(q, q, nd));
        for (size_t i = 0; i < nd; i++)
            q[i] /= n;
    }
    for (size_t k = 0; k < NFLD; k++)
        for (int pass = 0; pass < 2; pass++)
            for (size_t a = 0; a < NR; a++) {
                double *f = F + k * nd;
                double h = w ? btl_wdot(w, Q + a * nd, f, nd) : btl_dot(Q + a * nd, f, nd);
                for (size_t i = 0; i < nd; i++)
                    f[i] -= h * Q[a * nd + i];
            }
    free(Q);
}

/* Fields plus random rigid combinations give the same result as the fields alone (1e-12
 * relative), the amounts differ by exactly the added coefficients (1e-12 relative), the
 * result is orthogonal to every rigid field (1e-13 relative) and equals an independent
 * projection (1e-12). Both near the origin and far from it, where rotations about the
 * origin are nearly translations. */
static void check_project_out(const double center[3], const double *w)
{
    size_t nd = 3 * NP;
    double *pts = malloc(3 * NP * sizeof(double)), *rigid = malloc(NR * nd * sizeof(double));
    double *F = malloc(NFLD * nd * sizeof(double)), *G = malloc(NFLD * nd * sizeof(double));
    double *ref = malloc(NFLD * nd * sizeof(double));
    double A[NFLD * NR], amF[NFLD * NR], amG[NFLD * NR];
    rigid_setup(center, pts, rigid);
    deformations(pts, F);
    btl_rng r = {31};
    for (size_t i = 0; i < NFLD * NR; i++)
        A[i] = 10.0 * btl_uniform(&r);
    memcpy(G, F, NFLD * nd * sizeof(double));
    for (size_t k = 0; k < NFLD; k++)
        for (size_t a = 0; a < NR; a++)
            for (size_t i = 0; i < nd; i++)
                G[k * nd + i] += A[k * NR + a] * rigid[a * nd + i];
    memcpy(ref, F, NFLD * nd * sizeof(double));
    project_reference(w, rigid, ref);

    basis_inner ip = w ? btl_inner_diag(w, nd) : basis_inner_euclidean(nd);
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(basis_project_out(F, NFLD, rigid, NR, &ip, amF, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(basis_project_out(G, NFLD, rigid, NR, &ip, amG, &err), LDEM_OK, "%s", err.msg);
    for (size_t k = 0; k < NFLD; k++) {
        cr_assert_leq(btl_rel_diff(G + k * nd, F + k * nd, nd), 1e-12, "field %zu", k);
        cr_assert_leq(btl_rel_diff(F + k * nd, ref + k * nd, nd), 1e-12, "field %zu", k);
        double fn = sqrt(w ? btl_wdot(w, F + k * nd, F + k * nd, nd)
                           : btl_dot(F + k * nd, F + k * nd, nd));
        for (size_t a = 0; a < NR; a++) {
            const double *ra = rigid + a * nd;
            double rn = sqrt(w ? btl_wdot(w, ra, ra, nd) : btl_dot(ra, ra, nd));
            double h = w ? btl_wdot(w, ra, F + k * nd, nd) : btl_dot(ra, F + k * nd, nd);
            cr_assert_leq(fabs(h), 1e-13 * rn * fn, "field %zu rigid %zu", k, a);
        }
    }
    double amax = 0.0, dmax = 0.0;
    for (size_t i = 0; i < NFLD * NR; i++) {
        amax = fmax(amax, fabs(A[i]));
        dmax = fmax(dmax, fabs(amG[i] - amF[i] - A[i]));
    }
    cr_assert_leq(dmax, 1e-12 * amax, "amounts off by %g", dmax);
    /* The fields were not rigid-free, so something was removed from F itself. */
    double fmaxam = 0.0;
    for (size_t i = 0; i < NFLD * NR; i++)
        fmaxam = fmax(fmaxam, fabs(amF[i]));
    cr_assert_gt(fmaxam, 1e-3);
    if (w)
        btl_inner_free(&ip);
    free(pts);
    free(rigid);
    free(F);
    free(G);
    free(ref);
}

Test(basis_ortho, project_out_near_origin)
{
    const double c[3] = {0.1, -0.2, 0.05};
    check_project_out(c, NULL);
}

Test(basis_ortho, project_out_far_from_origin)
{
    const double c[3] = {20.0, -10.0, 5.0};
    check_project_out(c, NULL);
}

Test(basis_ortho, project_out_weighted)
{
    double *w = malloc(3 * NP * sizeof(double));
    btl_rng r = {41};
    for (size_t i = 0; i < 3 * NP; i++)
        w[i] = 1.25 + 0.75 * btl_uniform(&r);
    const double c[3] = {1.0, 2.0, -1.5};
    check_project_out(c, w);
    free(w);
}

/* Rigid sets that do not span 6 dimensions: a combination of two others, and a zero
 * field, are LDEM_ERR_INPUT; nothing removed means amount is zero. */
Test(basis_ortho, project_out_degenerate)
{
    size_t nd = 3 * NP;
    double *pts = malloc(3 * NP * sizeof(double));
    double *rigid = malloc((NR + 1) * nd * sizeof(double));
    double *F = malloc(NFLD * nd * sizeof(double));
    const double c[3] = {0.0, 0.0, 0.0};
    rigid_setup(c, pts, rigid);
    deformations(pts, F); /* first deformation only */
    for (size_t i = 0; i < nd; i++)
        rigid[NR * nd + i] = rigid[0 * nd + i] - 2.0 * rigid[4 * nd + i];
    basis_inner ip = basis_inner_euclidean(nd);
    ldem_err err;
    ldem_err_clear(&err);
    double am[NR + 1];
    cr_assert_eq(basis_project_out(F, 1, rigid, NR + 1, &ip, am, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "linearly dependent") != NULL, "%s", err.msg);
    memset(rigid + 2 * nd, 0, nd * sizeof(double));
    cr_assert_eq(basis_project_out(F, 1, rigid, NR, &ip, am, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "rigid field 2 has zero") != NULL, "%s", err.msg);
    /* A field already free of rigid motion: amounts ~ 0 (relative 1e-13). */
    rigid_setup(c, pts, rigid);
    project_reference(NULL, rigid, F);
    double n = btl_norm(F, nd);
    cr_assert_eq(basis_project_out(F, 1, rigid, NR, &ip, am, &err), LDEM_OK);
    for (size_t a = 0; a < NR; a++)
        cr_assert_leq(fabs(am[a]) * btl_norm(rigid + a * nd, nd), 1e-13 * n);
    cr_assert_eq(basis_project_out(F, 1, rigid, NR, &ip, NULL, &err), LDEM_OK,
                 "amount may be NULL");
    free(pts);
    free(rigid);
    free(F);
}
