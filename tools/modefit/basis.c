/* Reduced bases from fields (basis.h): POD by SVD or by the method of snapshots,
 * Gram–Schmidt with pruning, rigid-motion projection, the generalized eigenproblem of the
 * modal matrices and modal damping. Dense linear algebra with LAPACKE and CBLAS.
 *
 * Conventions: fields are rows of `ndof` doubles (a set of m fields is an m × ndof
 * row-major array, which LAPACK reads for free as the ndof × m column-major matrix);
 * every inner product goes through the basis_inner callback so that the same code serves
 * the Euclidean and the mass-weighted products. */
#include "basis.h"

#include <cblas.h>
#include <lapacke.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------ */
/* Small helpers                                                                        */
/* ------------------------------------------------------------------------------------ */

static int nomem(ldem_err *err, const char *what, size_t bytes)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %s (%zu bytes)",
                        what, bytes);
}

/* LAPACK and CBLAS take int dimensions; refuse sizes they cannot express rather than
 * truncating them silently. */
static int check_int_size(size_t n, const char *what, ldem_err *err)
{
    if (n > (size_t)INT_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "%s = %zu exceeds what LAPACK can index (at most %d)", what, n,
                            INT_MAX);
    return LDEM_OK;
}

static double *alloc_doubles(size_t n, const char *what, ldem_err *err)
{
    if (n > SIZE_MAX / sizeof(double)) {
        nomem(err, what, SIZE_MAX);
        return NULL;
    }
    double *p = calloc(n ? n : 1, sizeof(double));
    if (!p)
        nomem(err, what, n * sizeof(double));
    return p;
}

static int all_finite(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return 0;
    return 1;
}

static void scale_row(double *row, size_t n, double s)
{
    for (size_t i = 0; i < n; i++)
        row[i] *= s;
}

/* Replace a square matrix by its symmetric part, so that round-off asymmetry in a Gram
 * matrix or a user's K/M does not depend on which triangle LAPACK happens to read. */
static void symmetrize(double *A, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double s = 0.5 * (A[i * n + j] + A[j * n + i]);
            A[i * n + j] = s;
            A[j * n + i] = s;
        }
}

/* Index of the first entry whose magnitude is at least half the largest one. Used to fix
 * the sign of a mode or eigenvector: the plain arg-max is ambiguous for the symmetric
 * fields meshes produce (two entries of equal magnitude and opposite sign), whereas a
 * magnitude landing within round-off of exactly half the maximum is not a structural
 * coincidence. */
static size_t sign_anchor(const double *x, size_t n, size_t stride)
{
    double big = 0.0;
    for (size_t i = 0; i < n; i++)
        big = fmax(big, fabs(x[i * stride]));
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i * stride]) >= 0.5 * big)
            return i;
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Inner products                                                                       */
/* ------------------------------------------------------------------------------------ */

/* The Euclidean product needs ndof but the callback only gets ctx: ndof travels in ctx
 * as an integer, so basis_inner_euclidean can return the struct by value with nothing to
 * free. */
static int euclidean_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                          double *G, ldem_err *err)
{
    size_t ndof = (size_t)(uintptr_t)ctx;
    if (na == 0 || nb == 0)
        return LDEM_OK;
    if (ndof == 0) {
        memset(G, 0, na * nb * sizeof(double));
        return LDEM_OK;
    }
    int rc = check_int_size(ndof, "ndof", err);
    if (rc == LDEM_OK)
        rc = check_int_size(na > nb ? na : nb, "field count", err);
    if (rc != LDEM_OK)
        return rc;
    if (a == b && na == nb) {
        /* A Gram matrix of one set: dsyrk does half the work and is exactly symmetric. */
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, (int)na, (int)ndof, 1.0, a,
                    (int)ndof, 0.0, G, (int)na);
        for (size_t i = 0; i < na; i++)
            for (size_t j = 0; j < i; j++)
                G[i * na + j] = G[j * na + i];
    } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)na, (int)nb, (int)ndof, 1.0,
                    a, (int)ndof, b, (int)ndof, 0.0, G, (int)nb);
    }
    return LDEM_OK;
}

basis_inner basis_inner_euclidean(size_t ndof)
{
    basis_inner ip = {euclidean_gram, (void *)(uintptr_t)ndof, ndof};
    return ip;
}

static int is_euclidean(const basis_inner *ip)
{
    return ip->gram == euclidean_gram;
}

static int ip_dot(const basis_inner *ip, const double *a, const double *b, double *out,
                  ldem_err *err)
{
    return ip->gram(ip->ctx, a, 1, b, 1, out, err);
}

static int check_inner(const basis_inner *ip, const char *fn, ldem_err *err)
{
    if (!ip || !ip->gram)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "%s: no inner product given", fn);
    return check_int_size(ip->ndof, "ndof", err);
}

/* ------------------------------------------------------------------------------------ */
/* POD                                                                                  */
/* ------------------------------------------------------------------------------------ */

/* DIRECT: the snapshot array, count × ndof row-major, is the ndof × count column-major
 * matrix S. S = U Σ Vᵀ, so mode k = U_k = S V_k / σ_k = Σ_j snap_j V_jk / σ_k. */
static int pod_direct(const double *snap, size_t count, size_t ndof, double *sigma,
                      double *coef, ldem_err *err)
{
    if (!all_finite(snap, count * ndof))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "a snapshot holds a NaN or infinite value; every displacement "
                            "must be finite");
    size_t nsv = count < ndof ? count : ndof;
    double *A = alloc_doubles(count * ndof, "the SVD's copy of the snapshots", err);
    double *U = A ? alloc_doubles(ndof * nsv, "the SVD's left vectors", err) : NULL;
    double *VT = U ? alloc_doubles(nsv * count, "the SVD's right vectors", err) : NULL;
    double *s = VT ? alloc_doubles(nsv, "the singular values", err) : NULL;
    int rc = s ? LDEM_OK : LDEM_ERR_NOMEM;
    if (rc == LDEM_OK) {
        memcpy(A, snap, count * ndof * sizeof(double)); /* dgesdd destroys its input */
        lapack_int info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', (lapack_int)ndof,
                                         (lapack_int)count, A, (lapack_int)ndof, s, U,
                                         (lapack_int)ndof, VT, (lapack_int)nsv);
        if (info != 0)
            rc = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                              "the SVD of the snapshots failed (dgesdd info %d)", (int)info);
    }
    if (rc == LDEM_OK) {
        for (size_t k = 0; k < nsv; k++) {
            sigma[k] = s[k];
            if (s[k] <= 0.0)
                continue;
            for (size_t j = 0; j < count; j++)
                coef[k * count + j] = VT[k + j * nsv] / s[k];
        }
    }
    free(s);
    free(VT);
    free(U);
    free(A);
    return rc;
}

/* SNAPSHOTS: G = <snap_i, snap_j> = V Λ Vᵀ, σ_k = sqrt(λ_k), mode k = Σ_j snap_j v_jk / σ_k.
 * dsyevd knows each λ only to about count · ε · λ_max (its backward error), so smaller
 * eigenvalues are indistinguishable from zero: their σ is reported as 0 and they do not
 * count toward the rank (their "modes" would not even be normalized). */
static int pod_snapshots(const double *snap, size_t count, const basis_inner *ip,
                         double *sigma, double *coef, ldem_err *err)
{
    double *G = alloc_doubles(count * count, "the snapshot Gram matrix", err);
    double *w = G ? alloc_doubles(count, "the Gram eigenvalues", err) : NULL;
    if (!w) {
        free(G);
        return LDEM_ERR_NOMEM;
    }
    int rc = ip->gram(ip->ctx, snap, count, snap, count, G, err);
    if (rc == LDEM_OK && !all_finite(G, count * count))
        rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                          "a snapshot holds a NaN or infinite value (its inner products are "
                          "not finite); every displacement must be finite");
    for (size_t i = 0; rc == LDEM_OK && i < count; i++)
        if (G[i * count + i] < 0.0)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "snapshot %zu has a negative squared norm (%g): the inner "
                              "product is not positive",
                              i, G[i * count + i]);
    if (rc == LDEM_OK) {
        symmetrize(G, count);
        lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)count, G,
                                         (lapack_int)count, w);
        if (info != 0)
            rc = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                              "the eigen-decomposition of the snapshot Gram matrix failed "
                              "(dsyevd info %d)",
                              (int)info);
    }
    if (rc == LDEM_OK) {
        double floor = (double)count * DBL_EPSILON * fmax(w[count - 1], 0.0);
        for (size_t k = 0; k < count; k++) {
            size_t src = count - 1 - k; /* dsyevd sorts ascending */
            double lambda = w[src];
            sigma[k] = lambda > floor ? sqrt(lambda) : 0.0;
            if (sigma[k] <= 0.0)
                continue;
            for (size_t j = 0; j < count; j++)
                coef[k * count + j] = G[j * count + src] / sigma[k];
        }
    }
    free(w);
    free(G);
    return rc;
}

/* Modes rank × w of the snapshot columns [col, col + w): the modes are never all held at
 * once (they would double the memory of the snapshots), and one dgemm per block of
 * columns reads the snapshots once where a dgemv per mode would read them rank times. */
enum { SIGN_BLOCK = 2048 };

static void mode_block(const double *snap, size_t count, size_t ndof, size_t rank,
                       const double *coef, size_t col, size_t w, double *out)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rank, (int)w, (int)count, 1.0,
                coef, (int)count, snap + col, (int)ndof, 0.0, out, (int)w);
}

/* Flip each mode so that its sign anchor (sign_anchor's rule) is positive; the SVD and
 * the Gram eigenvectors are each defined up to sign only, and users compare bundles
 * across runs. Pass 1 finds each mode's largest magnitude block by block; pass 2 revisits
 * only the blocks that can hold an anchor, in order. */
static int normalize_mode_signs(const double *snap, size_t count, size_t ndof, size_t rank,
                                double *coef, ldem_err *err)
{
    if (rank == 0)
        return LDEM_OK;
    size_t nblk = (ndof + SIGN_BLOCK - 1) / SIGN_BLOCK;
    size_t bw = ndof < SIGN_BLOCK ? ndof : SIGN_BLOCK;
    double *buf = alloc_doubles(rank * bw, "a block of POD modes", err);
    double *bmax = buf ? alloc_doubles(nblk * rank, "the modes' block maxima", err) : NULL;
    double *gmax = bmax ? alloc_doubles(rank, "the modes' maxima", err) : NULL;
    signed char *sign = gmax ? calloc(rank, 1) : NULL; /* 0: anchor not found yet */
    int rc = sign ? LDEM_OK : nomem(err, "the mode signs", rank);
    for (size_t b = 0; rc == LDEM_OK && b < nblk; b++) {
        size_t col = b * SIGN_BLOCK, w = ndof - col < bw ? ndof - col : bw;
        mode_block(snap, count, ndof, rank, coef, col, w, buf);
        for (size_t k = 0; k < rank; k++) {
            double m = 0.0;
            for (size_t i = 0; i < w; i++)
                m = fmax(m, fabs(buf[k * w + i]));
            bmax[b * rank + k] = m;
            gmax[k] = fmax(gmax[k], m);
        }
    }
    size_t left = rank;
    for (size_t b = 0; rc == LDEM_OK && b < nblk && left > 0; b++) {
        int needed = 0;
        for (size_t k = 0; k < rank && !needed; k++)
            needed = sign[k] == 0 && bmax[b * rank + k] >= 0.5 * gmax[k];
        if (!needed)
            continue;
        size_t col = b * SIGN_BLOCK, w = ndof - col < bw ? ndof - col : bw;
        mode_block(snap, count, ndof, rank, coef, col, w, buf);
        for (size_t k = 0; k < rank; k++) {
            if (sign[k] != 0)
                continue;
            for (size_t i = 0; i < w; i++)
                if (fabs(buf[k * w + i]) >= 0.5 * gmax[k]) {
                    sign[k] = buf[k * w + i] < 0.0 ? -1 : 1;
                    left--;
                    break;
                }
        }
    }
    /* Flips are applied at the end so that pass 2 recomputes exactly what pass 1 saw. */
    for (size_t k = 0; rc == LDEM_OK && k < rank; k++)
        if (sign[k] < 0)
            scale_row(coef + k * count, count, -1.0);
    free(sign);
    free(gmax);
    free(bmax);
    free(buf);
    return rc;
}

static size_t rank_of(const double *sigma, size_t count)
{
    if (count == 0 || !(sigma[0] > 0.0))
        return 0;
    double tol = 1e-12 * sigma[0] * sqrt((double)count);
    size_t r = 0;
    while (r < count && sigma[r] > tol)
        r++;
    return r;
}

static int choose_pod_method(int method, size_t count, const basis_inner *ip, int *chosen,
                             ldem_err *err)
{
    if (method == BASIS_POD_AUTO) {
        *chosen = (!is_euclidean(ip) || ip->ndof > 4 * count) ? BASIS_POD_SNAPSHOTS
                                                               : BASIS_POD_DIRECT;
        return LDEM_OK;
    }
    if (method == BASIS_POD_DIRECT && !is_euclidean(ip))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "the direct SVD computes a POD in the Euclidean inner product "
                            "only; use the method of snapshots for a weighted product");
    if (method != BASIS_POD_DIRECT && method != BASIS_POD_SNAPSHOTS)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "unknown POD method %d (expected auto, direct or snapshots)",
                            method);
    *chosen = method;
    return LDEM_OK;
}

int basis_pod(const double *snap, size_t count, const basis_inner *ip, int method,
              double *sigma, double *coef, size_t *rank, ldem_err *err)
{
    int rc = check_inner(ip, "basis_pod", err);
    if (rc != LDEM_OK)
        return rc;
    if (count == 0 || ip->ndof == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "POD needs at least one snapshot of at least one value (got %zu "
                            "snapshots of %zu values)",
                            count, ip->ndof);
    if (!snap || !sigma || !coef || !rank)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "basis_pod: NULL argument");
    if ((rc = check_int_size(count, "snapshot count", err)) != LDEM_OK)
        return rc;
    if (count > SIZE_MAX / sizeof(double) / ip->ndof)
        return nomem(err, "the snapshots", SIZE_MAX);
    int chosen;
    if ((rc = choose_pod_method(method, count, ip, &chosen, err)) != LDEM_OK)
        return rc;

    memset(sigma, 0, count * sizeof(double));
    memset(coef, 0, count * count * sizeof(double));
    rc = chosen == BASIS_POD_DIRECT ? pod_direct(snap, count, ip->ndof, sigma, coef, err)
                                    : pod_snapshots(snap, count, ip, sigma, coef, err);
    if (rc != LDEM_OK)
        return rc;
    *rank = rank_of(sigma, count);
    for (size_t k = *rank; k < count; k++)
        memset(coef + k * count, 0, count * sizeof(double));
    return normalize_mode_signs(snap, count, ip->ndof, *rank, coef, err);
}

size_t basis_energy_count(const double *sigma, size_t count, double fraction)
{
    if (count == 0)
        return 0;
    double total = 0.0;
    for (size_t k = 0; k < count; k++)
        total += sigma[k] * sigma[k];
    /* The partial sums below repeat the total's additions in the same order, so the last
     * one equals it exactly and fraction = 1 stops at the last non-zero σ. */
    double want = fraction * total, partial = 0.0;
    for (size_t k = 0; k < count; k++) {
        partial += sigma[k] * sigma[k];
        if (partial >= want)
            return k + 1;
    }
    return count;
}

void basis_combine(const double *coef, size_t n, size_t m, const double *fields, size_t ndof,
                   double *out)
{
    if (n == 0 || ndof == 0)
        return;
    if (m == 0) {
        memset(out, 0, n * ndof * sizeof(double));
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)ndof, (int)m, 1.0,
                coef, (int)m, fields, (int)ndof, 0.0, out, (int)ndof);
}

/* ------------------------------------------------------------------------------------ */
/* Gram–Schmidt                                                                         */
/* ------------------------------------------------------------------------------------ */

/* One modified Gram–Schmidt sweep of w (with its coefficient row c) against the kept
 * orthonormal fields q_0..q_{kept-1} (with their rows). */
static int mgs_sweep(double *w, double *c, const double *q, const double *qcoef,
                     size_t kept, size_t count, const basis_inner *ip, ldem_err *err)
{
    size_t ndof = ip->ndof;
    for (size_t i = 0; i < kept; i++) {
        double h;
        int rc = ip_dot(ip, q + i * ndof, w, &h, err);
        if (rc != LDEM_OK)
            return rc;
        cblas_daxpy((int)ndof, -h, q + i * ndof, 1, w, 1);
        cblas_daxpy((int)count, -h, qcoef + i * count, 1, c, 1);
    }
    return LDEM_OK;
}

int basis_orthonormalize(double *fields, size_t count, const basis_inner *ip, double prune,
                         double *coef, size_t *kept, ldem_err *err)
{
    int rc = check_inner(ip, "basis_orthonormalize", err);
    if (rc != LDEM_OK)
        return rc;
    if (!(prune >= 0.0) || !isfinite(prune))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "the pruning tolerance must be a finite number >= 0 (got %g)",
                            prune);
    if ((!fields && count) || (!coef && count) || !kept)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "basis_orthonormalize: NULL argument");
    if ((rc = check_int_size(count, "field count", err)) != LDEM_OK)
        return rc;
    *kept = 0;
    if (count == 0)
        return LDEM_OK;
    size_t ndof = ip->ndof;
    memset(coef, 0, count * count * sizeof(double));
    double *c = alloc_doubles(count, "Gram-Schmidt coefficients", err);
    if (!c)
        return LDEM_ERR_NOMEM;

    size_t nk = 0;
    for (size_t j = 0; j < count && rc == LDEM_OK; j++) {
        double *w = fields + j * ndof; /* field j is read before slot nk <= j is written */
        memset(c, 0, count * sizeof(double));
        c[j] = 1.0;
        double n0sq, nsq;
        rc = ip_dot(ip, w, w, &n0sq, err);
        if (rc == LDEM_OK && !isfinite(n0sq))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "field %zu holds a NaN or infinite value", j);
        /* Twice is enough: the second sweep removes what round-off left of the first. */
        for (int pass = 0; pass < 2 && rc == LDEM_OK; pass++)
            rc = mgs_sweep(w, c, fields, coef, nk, count, ip, err);
        if (rc == LDEM_OK)
            rc = ip_dot(ip, w, w, &nsq, err);
        if (rc != LDEM_OK)
            break;
        double n0 = sqrt(fmax(n0sq, 0.0)), nr = sqrt(fmax(nsq, 0.0));
        if (!(nr > prune * n0) || nr == 0.0)
            continue; /* (numerically) in the span of the fields kept so far */
        double *dst = fields + nk * ndof;
        for (size_t i = 0; i < ndof; i++)
            dst[i] = w[i] / nr;
        for (size_t i = 0; i < count; i++)
            coef[nk * count + i] = c[i] / nr;
        nk++;
    }
    free(c);
    if (rc != LDEM_OK)
        return rc;
    memset(fields + nk * ndof, 0, (count - nk) * ndof * sizeof(double));
    *kept = nk;
    return LDEM_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Rigid-motion projection                                                              */
/* ------------------------------------------------------------------------------------ */

/* Cholesky factor of the rigid fields' Gram matrix after Jacobi scaling (R'_ij =
 * R_ij / sqrt(R_ii R_jj)): translations and rotations have norms of different units, and
 * the scaled matrix's condition measures how nearly dependent the fields really are. */
static int rigid_factor(double *R, size_t nr, double *scale, ldem_err *err)
{
    for (size_t i = 0; i < nr; i++) {
        double d = R[i * nr + i];
        if (!(d > 0.0) || !isfinite(d))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "rigid field %zu has zero (or non-finite) norm in the inner "
                                "product; the rigid motions must be independent fields",
                                i);
        scale[i] = 1.0 / sqrt(d);
    }
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nr; j++)
            R[i * nr + j] *= scale[i] * scale[j];
    symmetrize(R, nr);
    double anorm = 0.0; /* 1-norm, for the condition estimate */
    for (size_t j = 0; j < nr; j++) {
        double s = 0.0;
        for (size_t i = 0; i < nr; i++)
            s += fabs(R[i * nr + j]);
        anorm = fmax(anorm, s);
    }
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)nr, R, (lapack_int)nr);
    if (info > 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the rigid fields are linearly dependent in the inner product "
                            "(their Gram matrix is singular at leading minor %d); they must "
                            "be independent motions",
                            (int)info);
    double rcond = 0.0;
    if (info == 0)
        info = LAPACKE_dpocon(LAPACK_ROW_MAJOR, 'U', (lapack_int)nr, R, (lapack_int)nr, anorm,
                              &rcond);
    if (info != 0)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "factoring the rigid fields' Gram matrix failed (info %d)",
                            (int)info);
    if (rcond < 64.0 * DBL_EPSILON)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the rigid fields are nearly linearly dependent in the inner "
                            "product (reciprocal condition %.3g); they must be independent "
                            "motions",
                            rcond);
    return LDEM_OK;
}

/* One projection pass: X = R⁻¹ <rigid, fields>, fields -= Xᵀ rigid, amount += Xᵀ. */
static int project_pass(double *fields, size_t n, const double *rigid, size_t nr,
                        const basis_inner *ip, const double *Rfac, const double *scale,
                        double *B, double *amount, ldem_err *err)
{
    int rc = ip->gram(ip->ctx, rigid, nr, fields, n, B, err);
    if (rc != LDEM_OK)
        return rc;
    if (!all_finite(B, nr * n))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "a field to clean of rigid motions holds a NaN or infinite value");
    for (size_t r = 0; r < nr; r++)
        scale_row(B + r * n, n, scale[r]);
    lapack_int info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'U', (lapack_int)nr, (lapack_int)n,
                                     Rfac, (lapack_int)nr, B, (lapack_int)n);
    if (info != 0)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "solving for the rigid components failed (dpotrs info %d)",
                            (int)info);
    for (size_t r = 0; r < nr; r++)
        scale_row(B + r * n, n, scale[r]);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)ip->ndof, (int)nr, -1.0,
                B, (int)n, rigid, (int)ip->ndof, 1.0, fields, (int)ip->ndof);
    if (amount)
        for (size_t i = 0; i < n; i++)
            for (size_t r = 0; r < nr; r++)
                amount[i * nr + r] += B[r * n + i];
    return LDEM_OK;
}

int basis_project_out(double *fields, size_t n, const double *rigid, size_t nrigid,
                      const basis_inner *ip, double *amount, ldem_err *err)
{
    int rc = check_inner(ip, "basis_project_out", err);
    if (rc != LDEM_OK)
        return rc;
    if ((!fields && n) || (!rigid && nrigid))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "basis_project_out: NULL argument");
    if ((rc = check_int_size(n, "field count", err)) != LDEM_OK ||
        (rc = check_int_size(nrigid, "rigid field count", err)) != LDEM_OK)
        return rc;
    if (amount)
        memset(amount, 0, n * nrigid * sizeof(double));
    if (n == 0 || nrigid == 0 || ip->ndof == 0)
        return LDEM_OK;

    double *R = alloc_doubles(nrigid * nrigid, "the rigid Gram matrix", err);
    double *scale = R ? alloc_doubles(nrigid, "the rigid scaling", err) : NULL;
    double *B = scale ? alloc_doubles(nrigid * n, "the rigid components", err) : NULL;
    rc = B ? LDEM_OK : LDEM_ERR_NOMEM;
    if (rc == LDEM_OK)
        rc = ip->gram(ip->ctx, rigid, nrigid, rigid, nrigid, R, err);
    if (rc == LDEM_OK)
        rc = rigid_factor(R, nrigid, scale, err);
    /* Two passes, for the reason Gram–Schmidt is done twice: the second removes the
     * rigid component left by the first's round-off (which grows with the Gram matrix's
     * condition), leaving the fields orthogonal to the rigid span to working precision. */
    for (int pass = 0; pass < 2 && rc == LDEM_OK; pass++)
        rc = project_pass(fields, n, rigid, nrigid, ip, R, scale, B, amount, err);
    free(B);
    free(scale);
    free(R);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* Generalized eigenproblem and damping                                                 */
/* ------------------------------------------------------------------------------------ */

int basis_generalized_eigen(const double *K, const double *M, size_t n, double *lambda,
                            double *V, ldem_err *err)
{
    if (n == 0)
        return LDEM_OK;
    if (!K || !M || !lambda || !V)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "basis_generalized_eigen: NULL argument");
    int rc = check_int_size(n, "matrix size", err);
    if (rc != LDEM_OK)
        return rc;
    if (n > SIZE_MAX / sizeof(double) / n)
        return nomem(err, "the modal matrices", SIZE_MAX);
    if (!all_finite(K, n * n) || !all_finite(M, n * n))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the stiffness or mass matrix holds a NaN or infinite entry");
    double *B = alloc_doubles(n * n, "a copy of the mass matrix", err);
    if (!B)
        return LDEM_ERR_NOMEM;
    memcpy(V, K, n * n * sizeof(double)); /* dsygvd overwrites A with the eigenvectors */
    memcpy(B, M, n * n * sizeof(double));
    symmetrize(V, n);
    symmetrize(B, n);
    lapack_int ni = (lapack_int)n;
    lapack_int info = LAPACKE_dsygvd(LAPACK_ROW_MAJOR, 1, 'V', 'U', ni, V, ni, B, ni, lambda);
    free(B);
    if (info > ni)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the mass matrix is singular or not positive definite (leading "
                            "minor %d)",
                            (int)(info - ni));
    if (info != 0)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "the generalized eigenproblem K v = lambda M v failed (dsygvd "
                            "info %d)",
                            (int)info);
    /* An eigenvalue within round-off of zero (a rigid motion left in the basis, say) is
     * as fatal as a negative one: its frequency would be noise. */
    if (!(lambda[0] > 16.0 * (double)n * DBL_EPSILON * lambda[n - 1]))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the stiffness matrix is not positive definite (eigenvalue %g; "
                            "the largest is %g); every mode must store strain energy",
                            lambda[0], lambda[n - 1]);
    /* Eigenvectors are defined up to sign; fix it as for POD modes. */
    for (size_t k = 0; k < n; k++)
        if (V[sign_anchor(V + k, n, n) * n + k] < 0.0)
            for (size_t i = 0; i < n; i++)
                V[i * n + k] = -V[i * n + k];
    return LDEM_OK;
}

void basis_damping_rayleigh(const double *K, const double *M, size_t n, double a, double b,
                            double *C)
{
    for (size_t i = 0; i < n * n; i++)
        C[i] = a * M[i] + b * K[i];
}

int basis_damping_ratio(const double *K, const double *M, size_t n, const double *zeta,
                        double *C, ldem_err *err)
{
    if (n == 0)
        return LDEM_OK;
    if (!zeta || !C)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "basis_damping_ratio: NULL argument");
    for (size_t k = 0; k < n; k++)
        if (!(zeta[k] >= 0.0) || !isfinite(zeta[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "damping ratio %zu is %g; expected a finite value >= 0", k,
                                zeta[k]);
    int rc = check_int_size(n, "matrix size", err);
    if (rc != LDEM_OK)
        return rc;
    if (n > SIZE_MAX / sizeof(double) / n)
        return nomem(err, "the damping matrix", SIZE_MAX);
    double *lambda = alloc_doubles(n, "the modal eigenvalues", err);
    double *V = lambda ? alloc_doubles(n * n, "the modal eigenvectors", err) : NULL;
    double *W = V ? alloc_doubles(n * n, "M V", err) : NULL;
    rc = W ? LDEM_OK : LDEM_ERR_NOMEM;
    if (rc == LDEM_OK)
        rc = basis_generalized_eigen(K, M, n, lambda, V, err);
    if (rc == LDEM_OK) {
        int ni = (int)n;
        /* W = M V, so that Vᵀ C V = (Vᵀ M V) D (Vᵀ M V) = D. */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0, M, ni, V, ni,
                    0.0, W, ni);
        memcpy(V, W, n * n * sizeof(double)); /* V becomes W D */
        for (size_t k = 0; k < n; k++) {
            double d = 2.0 * zeta[k] * sqrt(lambda[k]);
            for (size_t i = 0; i < n; i++)
                V[i * n + k] *= d;
        }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ni, ni, ni, 1.0, V, ni, W, ni,
                    0.0, C, ni);
        symmetrize(C, n);
    }
    free(W);
    free(V);
    free(lambda);
    return rc;
}

double basis_asymmetry(const double *A, size_t n)
{
    double big = 0.0, diff = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            big = fmax(big, fabs(A[i * n + j]));
            diff = fmax(diff, fabs(A[i * n + j] - A[j * n + i]));
        }
    return big > 0.0 ? diff / big : 0.0;
}
