/* Reduced bases from fields: POD, orthonormalization with pruning, rigid-motion
 * projection, energy orthogonalization, modal damping. Dense linear algebra over fields
 * of `ndof` doubles (LAPACKE/CBLAS), independent of where the fields come from.
 *
 * Every operation that recombines fields returns (or applies) a coefficient matrix, so
 * that the caller can apply the same combination to a twin set — modefit keeps each mode's
 * "raw" twin (before rigid projection) to normalize by a displacement the user names in
 * the FEM model's own frame. Matrices are row-major. */
#ifndef MODEFIT_BASIS_H
#define MODEFIT_BASIS_H

#include <stddef.h>

#include "ldem/err.h"

/* An inner product on fields: G[i*nb + j] = <a_i, b_j>. */
typedef struct basis_inner {
    int (*gram)(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                double *G, ldem_err *err);
    void *ctx;
    size_t ndof;
} basis_inner;

/* The Euclidean inner product over the ndof entries (ctx unused). */
basis_inner basis_inner_euclidean(size_t ndof);

enum basis_pod_method {
    BASIS_POD_AUTO = 0,      /* snapshots when ndof > 4 * count or the product is weighted */
    BASIS_POD_DIRECT = 1,    /* dgesdd of the ndof × count matrix (Euclidean only) */
    BASIS_POD_SNAPSHOTS = 2  /* eigenvectors of the count × count Gram matrix (dsyevd) */
};

/* POD of `count` snapshots (fields) in inner product ip. sigma[count] receives the
 * singular values, descending (sqrt of the Gram eigenvalues, clamped at 0). coef
 * (count × count) receives the combinations: mode k = Σ_j coef[k*count + j] snap_j, the
 * modes orthonormal in ip, for k < rank (rank = number of sigma above
 * 1e-12 · sigma[0] · sqrt(count)); rows beyond rank are zero (rank is 0 when every
 * snapshot is zero). Each mode's sign is fixed: its first entry of magnitude at least half
 * its largest is positive, so both methods and repeated runs give the same modes.
 * Accuracy: a mode rebuilt from the snapshots carries round-off of size ε · sigma[0] /
 * sigma[k]. DIRECT: sigma to ε · sigma[0], modes orthonormal to about
 * count · ε · sigma[0] / sigma[k]. SNAPSHOTS: the Gram eigenvalues are known to about
 * count · ε · sigma[0]², so sigma below sqrt(count · ε) · sigma[0] (≈ 1.5e-8 ·
 * sqrt(count) · sigma[0]) are reported as 0 and mode k is orthonormal to about
 * count · ε · (sigma[0] / sigma[k])² only. Either way the leading modes are exact to
 * working precision; re-orthonormalize a deep tail if it matters. */
int basis_pod(const double *snap, size_t count, const basis_inner *ip, int method,
              double *sigma, double *coef, size_t *rank, ldem_err *err);

/* Number of leading modes that capture `fraction` of Σ sigma² (at least 1). */
size_t basis_energy_count(const double *sigma, size_t count, double fraction);

/* out (n × ndof) = coef (n × m) · fields (m × ndof). */
void basis_combine(const double *coef, size_t n, size_t m, const double *fields, size_t ndof,
                   double *out);

/* Modified Gram–Schmidt, twice, in ip. A field whose remaining norm is below
 * prune × its initial norm is dropped. On return fields[0..*kept) are orthonormal and
 * coef (count × count, row k for kept field k) expresses them in the inputs: the
 * combination is tracked alongside the fields, so kept_k = Σ_j coef[k*count + j] input_j
 * to round-off. Fields and coef rows from *kept on are zeroed. */
int basis_orthonormalize(double *fields, size_t count, const basis_inner *ip, double prune,
                         double *coef, size_t *kept, ldem_err *err);

/* Removes from each of n fields its ip-projection on the span of the `nrigid` fields
 * `rigid`; amount (n × nrigid, may be NULL) receives the coefficients removed. Adding
 * any combination of the rigid fields to a field before this call changes nothing after
 * it (up to round-off). Rigid fields that are (nearly) dependent in ip — reciprocal
 * condition of their Jacobi-scaled Gram matrix below 64 ε — are an LDEM_ERR_INPUT error.
 * Two projection passes, so the result is ip-orthogonal to the rigid span to round-off. */
int basis_project_out(double *fields, size_t n, const double *rigid, size_t nrigid,
                      const basis_inner *ip, double *amount, ldem_err *err);

/* Generalized symmetric eigenproblem K v = λ M v (dsygvd), n × n, M positive definite:
 * lambda ascending, V (n × n, column k = eigenvector k, Vᵀ M V = I, signs fixed as for
 * POD modes). K and M are symmetrized ((A + Aᵀ)/2) before the solve. A singular or
 * indefinite M, or a non-positive eigenvalue λ (K not positive definite; λ_min ≤
 * 16 n ε λ_max counts as zero), is an LDEM_ERR_INPUT error saying which. */
int basis_generalized_eigen(const double *K, const double *M, size_t n, double *lambda,
                            double *V, ldem_err *err);

/* Modal damping matrices, n × n. Rayleigh: C = a M + b K. Ratio: C = M V diag(2 ζ_k ω_k)
 * Vᵀ M with (ω_k², V) from basis_generalized_eigen, so each energy-orthogonal mode gets
 * damping ratio ζ_k (each ζ_k finite and >= 0, else LDEM_ERR_INPUT). */
void basis_damping_rayleigh(const double *K, const double *M, size_t n, double a, double b,
                            double *C);
int basis_damping_ratio(const double *K, const double *M, size_t n, const double *zeta,
                        double *C, ldem_err *err);

/* Largest relative asymmetry max |A_ij − A_ji| / max |A_ij|. */
double basis_asymmetry(const double *A, size_t n);

#endif
