/* Shift-invert Lanczos for the free-free modes (fe_eigen.h).
 *
 * ARPACK mode 3 with B = M solves OP x = ν x, OP = (K − σM)⁻¹ M, ν = 1/(λ − σ); the
 * eigenvalues nearest σ are the largest ν. With σ = −s slightly below 0, those are the
 * rigid motions (ν = 1/s, isolated by far) and then the lowest elastic modes. The Lanczos
 * vectors are M-orthonormal, and so are the eigenvectors dseupd returns. */
#include "fe_eigen.h"

#include <arpack/arpack.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/log.h"

/* Lanczos restarts before giving up; a few dozen is usual for 20 modes. */
#define EIGEN_MAX_RESTARTS 500
#define RIGID_MODES 6

void fe_eigen_result_free(fe_eigen_result *r)
{
    free(r->lambda);
    free(r->phi);
    free(r->rigid_lambda);
    memset(r, 0, sizeof *r);
}

/* A fixed pseudo-random start (xorshift): repeatable, and with no symmetry that could
 * leave it orthogonal to a mode. */
static void start_vector(double *v, size_t n)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
}

static const char *arpack_message(int info)
{
    switch (info) {
    case 1: return "no convergence within the restart limit";
    case 3: return "no shifts could be applied (try more modes)";
    case -9999: return "could not build a Lanczos factorization";
    default: return "an internal error";
    }
}

/* Lanczos: fills d (ν → λ after dseupd) and z (n × nev). */
typedef struct lanczos {
    a_int n, nev, ncv, lworkl;
    double *resid, *v, *workd, *workl, *d, *z, *tmp;
    a_int *select;
} lanczos;

static void lanczos_free(lanczos *w)
{
    free(w->resid);
    free(w->v);
    free(w->workd);
    free(w->workl);
    free(w->d);
    free(w->z);
    free(w->tmp);
    free(w->select);
}

static int lanczos_alloc(lanczos *w, size_t n, size_t nev, ldem_err *err)
{
    memset(w, 0, sizeof *w);
    size_t ncv = 2 * nev + 1 < nev + 20 ? nev + 20 : 2 * nev + 1;
    if (ncv > n)
        ncv = n;
    if (n > INT32_MAX / 32 || nev + 1 >= ncv)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "%zu modes asked of a mesh with %zu degrees of freedom: %s", nev - 6,
                            n, n > INT32_MAX / 32 ? "too many unknowns for ARPACK's 32-bit "
                                                    "interface" : "too few nodes");
    w->n = (a_int)n;
    w->nev = (a_int)nev;
    w->ncv = (a_int)ncv;
    w->lworkl = w->ncv * (w->ncv + 8);
    w->resid = malloc(n * sizeof *w->resid);
    w->v = malloc(n * ncv * sizeof *w->v);
    w->workd = malloc(3 * n * sizeof *w->workd);
    w->workl = malloc((size_t)w->lworkl * sizeof *w->workl);
    w->d = malloc(nev * sizeof *w->d);
    w->z = malloc(n * nev * sizeof *w->z);
    w->tmp = malloc(n * sizeof *w->tmp);
    w->select = calloc(ncv, sizeof *w->select);
    if (!w->resid || !w->v || !w->workd || !w->workl || !w->d || !w->z || !w->tmp || !w->select)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for %zu Lanczos vectors of %zu unknowns", ncv, n);
    return LDEM_OK;
}

static int lanczos_run(const fe_sparse *S, fe_solver *f, double shift, lanczos *w,
                       fe_eigen_result *r, ldem_err *err)
{
    a_int ido = 0, info = 1, iparam[11] = {0}, ipntr[11] = {0};
    iparam[0] = 1;                  /* exact shifts */
    iparam[2] = EIGEN_MAX_RESTARTS;
    iparam[6] = 3;                  /* shift-invert, generalized */
    start_vector(w->resid, (size_t)w->n);
    const double sigma = -shift;
    for (;;) {
        dsaupd_c(&ido, "G", w->n, "LM", w->nev, 0.0, w->resid, w->ncv, w->v, w->n, iparam,
                 ipntr, w->workd, w->workl, w->lworkl, &info);
        double *x = w->workd + ipntr[0] - 1, *y = w->workd + ipntr[1] - 1;
        if (ido == -1) {            /* y = OP x */
            fe_sparse_symv(S, S->M, x, w->tmp);
            int rc = fe_solver_solve(f, w->tmp, y, 1, err);
            if (rc)
                return rc;
            r->solves++;
        } else if (ido == 1) {      /* y = OP x, with M x given */
            memcpy(w->tmp, w->workd + ipntr[2] - 1, (size_t)w->n * sizeof *w->tmp);
            int rc = fe_solver_solve(f, w->tmp, y, 1, err);
            if (rc)
                return rc;
            r->solves++;
        } else if (ido == 2) {      /* y = M x */
            fe_sparse_symv(S, S->M, x, y);
        } else {
            break;
        }
    }
    r->restarts = (int)iparam[2];
    if (info < 0 || info == 3 || (info == 1 && iparam[4] < w->nev))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "ARPACK's Lanczos (dsaupd) failed: %s (info %d, %d of %d modes "
                            "converged)", arpack_message((int)info), (int)info, (int)iparam[4],
                            (int)w->nev);
    dseupd_c(1, "A", w->select, w->d, w->z, w->n, sigma, "G", w->n, "LM", w->nev, 0.0,
             w->resid, w->ncv, w->v, w->n, iparam, ipntr, w->workd, w->workl, w->lworkl,
             &info);
    if (info != 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "ARPACK's eigenvector extraction (dseupd) failed (info %d)",
                            (int)info);
    return LDEM_OK;
}

/* Largest-magnitude entry positive: the sign ARPACK leaves is arbitrary. */
static void fix_sign(double *v, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (fabs(v[i]) > fabs(v[best]))
            best = i;
    if (v[best] < 0)
        for (size_t i = 0; i < n; i++)
            v[i] = -v[i];
}

int fe_eigen_free_free(const fe_sparse *S, fe_solver *f, double shift, size_t nelastic,
                       double zero_lambda, fe_eigen_result *r, ldem_err *err)
{
    memset(r, 0, sizeof *r);
    size_t n = S->n, nev = nelastic + RIGID_MODES;
    lanczos w;
    int rc = lanczos_alloc(&w, n, nev, err);
    if (!rc)
        rc = lanczos_run(S, f, shift, &w, r, err);
    if (rc) {
        lanczos_free(&w);
        return rc;
    }
    /* Ascending ω² (selection sort over a few dozen: stable, no comparator games). */
    size_t *order = malloc(nev * sizeof *order);
    if (!order) {
        lanczos_free(&w);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < nev; k++)
        order[k] = k;
    for (size_t k = 0; k < nev; k++)
        for (size_t j = k + 1; j < nev; j++)
            if (w.d[order[j]] < w.d[order[k]]) {
                size_t t = order[k];
                order[k] = order[j];
                order[j] = t;
            }
    size_t rigid = 0;
    while (rigid < nev && w.d[order[rigid]] < zero_lambda)
        rigid++;
    if (rigid != RIGID_MODES) {
        rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                          "the mesh has %zu%s zero-frequency modes (omega^2 < %g), not the six "
                          "rigid motions of one free body: %s", rigid, rigid == nev ? " or more" : "",
                          zero_lambda, rigid > RIGID_MODES ? "it falls apart into pieces "
                          "(disconnected tets, or a mesh of several bodies)" :
                          "the stiffness is wrong (negative modulus?)");
    }
    r->rigid = rigid;
    r->count = nelastic;
    r->lambda = malloc(nelastic * sizeof *r->lambda);
    r->phi = malloc(nelastic * n * sizeof *r->phi);
    r->rigid_lambda = malloc(RIGID_MODES * sizeof *r->rigid_lambda);
    if (!rc && (!r->lambda || !r->phi || !r->rigid_lambda))
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu modes", nelastic);
    if (!rc) {
        for (size_t k = 0; k < RIGID_MODES; k++)
            r->rigid_lambda[k] = w.d[order[k]];
        for (size_t k = 0; k < nelastic; k++) {
            size_t src = order[RIGID_MODES + k];
            r->lambda[k] = w.d[src];
            memcpy(r->phi + k * n, w.z + src * n, n * sizeof *r->phi);
            fix_sign(r->phi + k * n, n);
        }
    }
    free(order);
    lanczos_free(&w);
    if (rc)
        fe_eigen_result_free(r);
    return rc;
}
