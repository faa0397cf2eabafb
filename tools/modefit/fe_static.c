/* Inertia relief (fe_static.h). With R the six rigid fields and G = Rᵀ M R:
 *   balanced load    f̃ = f − M R G⁻¹ Rᵀ f          (Rᵀ f̃ = 0)
 *   rigid-free part  P u = u − R G⁻¹ (M R)ᵀ u       ((M R)ᵀ P u = 0)
 * and K u = f̃ is solved on the rigid-free subspace by iterative refinement with the
 * shifted factor A = K + sM, where K alone is singular. */
#include "fe_static.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RIGID 6
#define MAX_REFINEMENTS 60
/* Refinement stops when the residual is this small against the load, or when a step no
 * longer halves it (round-off in K u sets the floor, about eps · cond(K)); a floor above
 * RESIDUAL_FAIL means the iteration did not converge. */
#define RESIDUAL_TOL 1e-13
#define RESIDUAL_FAIL 1e-7

static double norm2(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

static double dot(const double *x, const double *y, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* x −= Σ_k B_k c_k with c = G⁻¹ (Cᵀ x): removes from x its part along B measured by C. */
static void remove_part(const double *Gfac, const double *B, const double *C, double *x,
                        size_t n)
{
    double c[RIGID];
    for (int k = 0; k < RIGID; k++)
        c[k] = dot(C + (size_t)k * n, x, n);
    LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', RIGID, 1, Gfac, RIGID, c, 1);
    for (int k = 0; k < RIGID; k++)
        for (size_t i = 0; i < n; i++)
            x[i] -= B[(size_t)k * n + i] * c[k];
}

int fe_static_inertia_relief(const fe_sparse *S, fe_solver *f, const double *rigid,
                             const double *load, size_t nload, double *u, int *iterations,
                             ldem_err *err)
{
    size_t n = S->n;
    double *MR = malloc(RIGID * n * sizeof *MR), *ft = malloc(n * sizeof *ft);
    double *r = malloc(n * sizeof *r), *du = malloc(n * sizeof *du);
    double G[RIGID * RIGID];
    *iterations = 0;
    int rc = (!MR || !ft || !r || !du) ? ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                                      "out of memory for a static solve")
                                       : LDEM_OK;
    if (!rc) {
        for (int k = 0; k < RIGID; k++)
            fe_sparse_symv(S, S->M, rigid + (size_t)k * n, MR + (size_t)k * n);
        for (int i = 0; i < RIGID; i++)
            for (int j = 0; j < RIGID; j++)
                G[i * RIGID + j] = dot(rigid + (size_t)i * n, MR + (size_t)j * n, n);
        if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', RIGID, G, RIGID) != 0)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "the rigid motions have a singular mass matrix (a mesh of no "
                              "volume?)");
    }
    for (size_t l = 0; l < nload && !rc; l++) {
        double *ul = u + l * n;
        memcpy(ft, load + l * n, n * sizeof *ft);
        /* balanced: f̃ ⟂ R, i.e. remove along M R measured by R */
        remove_part(G, MR, rigid, ft, n);
        double fnorm = norm2(ft, n);
        memset(ul, 0, n * sizeof *ul);
        if (fnorm == 0.0)
            continue; /* a load of pure rigid-body forces deforms nothing */
        memcpy(r, ft, n * sizeof *r);
        int it = 0;
        double last = INFINITY, res = INFINITY;
        for (; it < MAX_REFINEMENTS && !rc; it++) {
            rc = fe_solver_solve(f, r, du, 1, err);
            if (rc)
                break;
            for (size_t i = 0; i < n; i++)
                ul[i] += du[i];
            remove_part(G, rigid, MR, ul, n);
            fe_sparse_symv(S, S->K, ul, r);
            for (size_t i = 0; i < n; i++)
                r[i] = ft[i] - r[i];
            res = norm2(r, n) / fnorm;
            if (res <= RESIDUAL_TOL || res > 0.5 * last)
                break;
            last = res;
        }
        if (!rc && !(fmin(res, last) <= RESIDUAL_FAIL))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "the static solve did not converge in %d refinements (residual "
                              "%.2e of the load): is the shift too large against the lowest "
                              "frequency?", it, fmin(res, last));
        if (it + 1 > *iterations)
            *iterations = it + 1;
    }
    free(MR);
    free(ft);
    free(r);
    free(du);
    return rc;
}
