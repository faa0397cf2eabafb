/* Gram matrices of nodal fields over a tet mesh (fe_integrate.h).
 *
 * Both forms are sums over quadrature points of products of small per-point vectors:
 *   mass:      ρ w |J| u_a(x_q) · u_b(x_q)                         (3 numbers per field)
 *   stiffness: w |J| (C : E_a) : E_b = w |J| v_aᵀ D v_b             (6 numbers per field)
 * with v the Voigt vector of the strain and D the 6×6 matrix of elastic_bilinear in that
 * basis. Factoring D = L Lᵀ (Cholesky; D is positive definite for E > 0, -1 < ν < 1/2)
 * and scaling by sqrt(w |J|) turns every point into a "feature" vector per field whose
 * plain dot products are the integrand. Stacking the features of many points as columns
 * of Fa (na × K) and Fb (nb × K) makes the Gram matrix G += Fa Fbᵀ one BLAS call per block
 * of elements, instead of na·nb tiny products per point: a 100k-tet tet10 mesh with 50
 * fields takes seconds. When a and b are the same fields dsyrk fills the upper triangle
 * and we mirror it, so G is exactly symmetric.
 *
 * Serial on purpose: filling the features in parallel (OpenMP, one region per block) gave
 * at best ~1.3x with 2 threads, but 2-20x slowdowns on a loaded machine (every block ends in a
 * barrier that waits for a descheduled thread), and small Grams (1 × 1, as Gram–Schmidt
 * asks) suffered most. BLAS may still use its own threads. Reproducibility: blocks are
 * accumulated in element order, so repeated calls give the same bits for a given BLAS
 * thread count; across thread counts OpenBLAS 0.3.21's dsyrk (a == b) was bit-identical
 * in our tests and its dgemm (a != b) differed by ~1e-16 relative. */
#include "fe_integrate.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elastic.h"
#include "fe_tet.h"

enum { MAX_POINTS = 14 };
/* Columns per BLAS call: large enough that level 3 runs near peak, small enough that a
 * block of 50 fields (50 × 8192 doubles, 3 MB) stays cheap. */
enum { TARGET_COLUMNS = 8192 };

typedef struct gram_job {
    const fe_mesh *m;
    const fe_rule *rule;
    int stiffness;  /* 0: mass, 1: stiffness */
    int dim;        /* features per point: 3 (mass) or 6 (stiffness) */
    double rho;     /* mass density (mass only) */
    double L[6][6]; /* D = L Lᵀ, lower triangular (stiffness only) */
    double N[MAX_POINTS][FE_TET10];
    double dN[MAX_POINTS][FE_TET10][3];
} gram_job;

/* Per element and point: sqrt(scale · w · |J|) and the x-gradients of the shapes. */
typedef struct element_points {
    double root[MAX_POINTS];
    double G[MAX_POINTS][FE_TET10][3];
} element_points;

/* ---- the constitutive factor ---- */

/* Voigt basis of symmetric tensors: B_k has a 1 at (i_k, j_k) and at (j_k, i_k). */
static const int voigt_ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

static void voigt_basis(int k, double B[3][3])
{
    memset(B, 0, 9 * sizeof(double));
    B[voigt_ij[k][0]][voigt_ij[k][1]] = 1.0;
    B[voigt_ij[k][1]][voigt_ij[k][0]] = 1.0;
}

/* D_kl = (C : B_k) : B_l from elastic.h, so that (C : Ea) : Eb = Σ va_k D_kl vb_l with
 * v_k = E[i_k][j_k]; then its Cholesky factor. Returns 0 if D is not positive definite. */
static int energy_factor(double E, double nu, double L[6][6])
{
    double lambda, mu, D[6][6];
    elastic_lame(E, nu, &lambda, &mu);
    for (int k = 0; k < 6; k++)
        for (int l = 0; l < 6; l++) {
            double Bk[3][3], Bl[3][3];
            voigt_basis(k, Bk);
            voigt_basis(l, Bl);
            D[k][l] = elastic_bilinear(lambda, mu, (const double(*)[3])Bk, (const double(*)[3])Bl);
        }
    memset(L, 0, 36 * sizeof(double));
    for (int j = 0; j < 6; j++) {
        double d = D[j][j];
        for (int k = 0; k < j; k++)
            d -= L[j][k] * L[j][k];
        if (!(d > 0.0) || !isfinite(d))
            return 0;
        L[j][j] = sqrt(d);
        for (int i = j + 1; i < 6; i++) {
            double s = D[i][j];
            for (int k = 0; k < j; k++)
                s -= L[i][k] * L[j][k];
            L[i][j] = s / L[j][j];
        }
    }
    return 1;
}

/* ---- per element ---- */

static int job_init(gram_job *job, const fe_mesh *m, int stiffness, ldem_err *err)
{
    if (m->order != FE_TET4 && m->order != FE_TET10)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "fe_integrate: mesh order %d (expected 4 or 10 nodes per tet)",
                            m->order);
    job->m = m;
    job->stiffness = stiffness;
    job->dim = stiffness ? 6 : 3;
    /* Mass: u·u is degree 2 (tet4) or 4 (tet10) times |J| (constant, or degree 3 on a
     * curved tet10): degree 5 is exact for straight elements and leaves margin for curved
     * ones. Stiffness: strains are constant (tet4) or linear (tet10), so their products
     * are degree 0 or 2; degree 3 leaves margin for curved tet10 (whose strains are
     * rational, never integrated exactly). */
    int degree = stiffness ? (m->order == FE_TET4 ? 1 : 3) : (m->order == FE_TET4 ? 2 : 5);
    job->rule = fe_tet_rule(degree);
    for (int q = 0; q < job->rule->npoints; q++)
        fe_tet_shape(m->order, job->rule->rst[q], job->N[q], job->dN[q]);
    return LDEM_OK;
}

/* Fills ep for element e; returns 0 if |J| <= 0 at some point (inverted element). */
static int element_prepare(const gram_job *job, size_t e, element_points *ep)
{
    const double scale = job->stiffness ? 1.0 : job->rho;
    for (int q = 0; q < job->rule->npoints; q++) {
        /* Mass needs |J| only; stiffness the x-gradients of the shapes too. */
        double det = fe_tet_gradients_at(job->m, e, job->dN[q], job->stiffness ? ep->G[q] : NULL);
        if (!(det > 0.0) || !isfinite(det))
            return 0;
        ep->root[q] = sqrt(scale * job->rule->w[q] * det);
    }
    return 1;
}

/* The features of one field on element e: out[q * dim + c]. Accumulators are scalars
 * so that they stay in registers (arrays summed in place were stored and reloaded at
 * every term: this loop is most of the run time). */
static void field_features(const gram_job *restrict job, size_t e,
                           const element_points *restrict ep, const double *restrict field,
                           double *restrict out)
{
    const fe_mesh *m = job->m;
    const int n = m->order;
    const size_t *nodes = m->tet + (size_t)n * e;
    double u[FE_TET10][3];
    for (int a = 0; a < n; a++) {
        const double *src = field + 3 * nodes[a];
        u[a][0] = src[0];
        u[a][1] = src[1];
        u[a][2] = src[2];
    }
    const int np = job->rule->npoints;
    if (!job->stiffness) {
        for (int q = 0; q < np; q++) {
            const double *Nq = job->N[q];
            double v0 = 0.0, v1 = 0.0, v2 = 0.0;
            for (int a = 0; a < n; a++) {
                v0 += Nq[a] * u[a][0];
                v1 += Nq[a] * u[a][1];
                v2 += Nq[a] * u[a][2];
            }
            out[3 * q + 0] = ep->root[q] * v0;
            out[3 * q + 1] = ep->root[q] * v1;
            out[3 * q + 2] = ep->root[q] * v2;
        }
        return;
    }
    double L[6][6];
    memcpy(L, job->L, sizeof L);
    for (int q = 0; q < np; q++) {
        double g00 = 0, g01 = 0, g02 = 0, g10 = 0, g11 = 0, g12 = 0, g20 = 0, g21 = 0, g22 = 0;
        for (int a = 0; a < n; a++) {
            const double *G = ep->G[q][a];
            g00 += u[a][0] * G[0];
            g01 += u[a][0] * G[1];
            g02 += u[a][0] * G[2];
            g10 += u[a][1] * G[0];
            g11 += u[a][1] * G[1];
            g12 += u[a][1] * G[2];
            g20 += u[a][2] * G[0];
            g21 += u[a][2] * G[1];
            g22 += u[a][2] * G[2];
        }
        const double grad[3][3] = {{g00, g01, g02}, {g10, g11, g12}, {g20, g21, g22}};
        double E[3][3];
        elastic_strain(grad, E);
        /* Voigt order of voigt_ij, written out so the compiler sees constant indices. */
        const double v[6] = {E[0][0], E[1][1], E[2][2], E[0][1], E[0][2], E[1][2]};
        /* f = sqrt(w|J|) Lᵀ v, so f_a · f_b = w|J| v_aᵀ L Lᵀ v_b. */
        const double r = ep->root[q];
        double f[6];
        f[0] = r * (L[0][0] * v[0] + L[1][0] * v[1] + L[2][0] * v[2] + L[3][0] * v[3] +
                    L[4][0] * v[4] + L[5][0] * v[5]);
        f[1] = r *
               (L[1][1] * v[1] + L[2][1] * v[2] + L[3][1] * v[3] + L[4][1] * v[4] + L[5][1] * v[5]);
        f[2] = r * (L[2][2] * v[2] + L[3][2] * v[3] + L[4][2] * v[4] + L[5][2] * v[5]);
        f[3] = r * (L[3][3] * v[3] + L[4][3] * v[4] + L[5][3] * v[5]);
        f[4] = r * (L[4][4] * v[4] + L[5][4] * v[5]);
        f[5] = r * (L[5][5] * v[5]);
        for (int k = 0; k < 6; k++)
            out[6 * q + k] = f[k];
    }
}

/* Features of elements [e0, e0 + count) into columns of F (ld columns per row). Returns
 * SIZE_MAX, or the first inverted element. */
static size_t block_features(const gram_job *job, size_t e0, size_t count, const double *a,
                             size_t na, double *Fa, const double *b, size_t nb, double *Fb,
                             size_t ld)
{
    const size_t stride = 3 * job->m->nnodes;
    const size_t per_elem = (size_t)job->rule->npoints * (size_t)job->dim;
    for (size_t k = 0; k < count; k++) {
        element_points ep;
        size_t e = e0 + k;
        if (!element_prepare(job, e, &ep))
            return e;
        for (size_t i = 0; i < na; i++)
            field_features(job, e, &ep, a + i * stride, Fa + i * ld + k * per_elem);
        for (size_t i = 0; Fb && i < nb; i++)
            field_features(job, e, &ep, b + i * stride, Fb + i * ld + k * per_elem);
    }
    return SIZE_MAX;
}

static int gram(gram_job *job, const double *a, size_t na, const double *b, size_t nb, double *G,
                ldem_err *err)
{
    const fe_mesh *m = job->m;
    if (na && nb)
        memset(G, 0, na * nb * sizeof(double));
    if (!na || !nb || !m->ntets)
        return LDEM_OK;
    if (na > INT_MAX || nb > INT_MAX)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "fe_integrate: %zu × %zu fields is more than BLAS indexes", na, nb);
    const int same = (a == b && na == nb);
    const size_t per_elem = (size_t)job->rule->npoints * (size_t)job->dim;
    const size_t block = TARGET_COLUMNS / per_elem;
    const size_t ld = block * per_elem;
    double *Fa = malloc(na * ld * sizeof(double));
    double *Fb = same ? NULL : malloc(nb * ld * sizeof(double));
    if (!Fa || (!same && !Fb)) {
        free(Fa);
        free(Fb);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "fe_integrate: out of memory for %zu + %zu field blocks", na, nb);
    }
    int rc = LDEM_OK;
    for (size_t e0 = 0; e0 < m->ntets; e0 += block) {
        size_t count = m->ntets - e0 < block ? m->ntets - e0 : block;
        size_t bad = block_features(job, e0, count, a, na, Fa, b, same ? 0 : nb, Fb, ld);
        if (bad != SIZE_MAX) {
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "fe_integrate: element %zu (1-based) has a non-positive "
                              "Jacobian at a quadrature point (expected positively oriented, "
                              "not too strongly curved tets)",
                              bad + 1);
            break;
        }
        int cols = (int)(count * per_elem);
        if (same)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, (int)na, cols, 1.0, Fa, (int)ld,
                        1.0, G, (int)nb);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)na, (int)nb, cols, 1.0, Fa,
                        (int)ld, Fb, (int)ld, 1.0, G, (int)nb);
    }
    if (same)
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < i; j++)
                G[i * nb + j] = G[j * nb + i];
    free(Fa);
    free(Fb);
    return rc;
}

int fe_mass_gram(const fe_mesh *m, double rho, const double *a, size_t na, const double *b,
                 size_t nb, double *G, ldem_err *err)
{
    if (!(rho > 0.0) || !isfinite(rho))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "mass density %g is invalid (expected a positive number)", rho);
    gram_job job;
    int rc = job_init(&job, m, 0, err);
    if (rc != LDEM_OK)
        return rc;
    job.rho = rho;
    return gram(&job, a, na, b, nb, G, err);
}

int fe_stiffness_gram(const fe_mesh *m, double E, double nu, const double *a, size_t na,
                      const double *b, size_t nb, double *G, ldem_err *err)
{
    if (!(E > 0.0) || !isfinite(E) || !(nu > -1.0 && nu < 0.5))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "elastic constants E = %g, nu = %g are invalid (expected E > 0 "
                            "and -1 < nu < 0.5)",
                            E, nu);
    gram_job job;
    int rc = job_init(&job, m, 1, err);
    if (rc != LDEM_OK)
        return rc;
    if (!energy_factor(E, nu, job.L))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "elastic constants E = %g, nu = %g give an energy that is not "
                            "positive definite",
                            E, nu);
    return gram(&job, a, na, b, nb, G, err);
}

void fe_volume_moments(const fe_mesh *m, double *volume, double centroid[3], double second[3][3])
{
    /* x x is degree 2 (tet4) or 4 (tet10) in rst: exact on straight elements. */
    const fe_rule *rule = fe_tet_rule(m->order == FE_TET4 ? 2 : 5);
    double V = 0.0, first[3] = {0, 0, 0}, S[3][3] = {{0}};
    for (size_t e = 0; e < m->ntets; e++)
        for (int q = 0; q < rule->npoints; q++) {
            double x[3];
            double dV = rule->w[q] * fe_tet_map(m, e, rule->rst[q], x, NULL);
            V += dV;
            for (int i = 0; i < 3; i++) {
                first[i] += dV * x[i];
                for (int j = 0; j < 3; j++)
                    S[i][j] += dV * x[i] * x[j];
            }
        }
    *volume = V;
    for (int i = 0; i < 3; i++) {
        centroid[i] = V > 0.0 ? first[i] / V : 0.0;
        for (int j = 0; j < 3; j++)
            second[i][j] = S[i][j];
    }
}

void fe_rigid_fields(const fe_mesh *m, const double center[3], double *out)
{
    const size_t stride = 3 * m->nnodes;
    memset(out, 0, 6 * stride * sizeof(double));
    for (size_t n = 0; n < m->nnodes; n++) {
        const double *x = m->xyz + 3 * n;
        double r[3] = {x[0] - center[0], x[1] - center[1], x[2] - center[2]};
        for (int c = 0; c < 3; c++)
            out[c * stride + 3 * n + c] = 1.0;
        /* Rotations: e_k × r. */
        double *rx = out + 3 * stride + 3 * n, *ry = out + 4 * stride + 3 * n,
               *rz = out + 5 * stride + 3 * n;
        rx[1] = -r[2];
        rx[2] = r[1];
        ry[0] = r[2];
        ry[2] = -r[0];
        rz[0] = -r[1];
        rz[1] = r[0];
    }
}
