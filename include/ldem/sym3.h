/* ldem/sym3.h — eigen-decomposition of symmetric 3×3 matrices (inertia tensors).
 *
 * Cyclic Jacobi rotations: unconditionally convergent, accurate to round-off in every
 * eigenvalue relative to the matrix norm, and orthonormal eigenvectors even for repeated
 * eigenvalues — which LAPACK would also give, but at the price of a dependency in libldem.
 */
#ifndef LDEM_SYM3_H
#define LDEM_SYM3_H

#include "ldem/export.h"

#include "ldem/quat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a: symmetric (only the upper triangle is read). On return a = V diag(w) V^T with
 * V's columns the eigenvectors, det V = +1 (a proper rotation), w ascending.
 * Returns LDEM_OK, or LDEM_ERR_INPUT if `a` holds a non-finite entry (w, v untouched). */
LDEM_API int ldem_sym3_eigen(ldem_mat3 a, double w[3], ldem_mat3 *v);

#ifdef __cplusplus
}
#endif
#endif
