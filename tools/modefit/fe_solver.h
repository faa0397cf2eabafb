/* A sparse Cholesky factorization of K + s M (CHOLMOD, SuiteSparse) and solves with it.
 *
 * A free-free grain has a singular K (its six rigid motions cost no energy); for s > 0,
 * K + s M is positive definite, and one factorization serves both the shift-invert eigen
 * solve (fe_eigen.h) and static load cases (fe_static.h). */
#ifndef MODEFIT_FE_SOLVER_H
#define MODEFIT_FE_SOLVER_H

#include <stddef.h>

#include "fe_sparse.h"

typedef struct fe_solver fe_solver;

/* Factors K + shift·M. Not positive definite (shift ≤ 0 with rigid motions, a negative
 * density...) is LDEM_ERR_INPUT; *out is NULL on error. */
int fe_solver_factor(const fe_sparse *S, double shift, fe_solver **out, ldem_err *err);
void fe_solver_free(fe_solver *f);

/* x = (K + shift·M)⁻¹ b for `nrhs` right-hand sides stored back to back (n doubles each);
 * x and b may not overlap. */
int fe_solver_solve(fe_solver *f, const double *b, double *x, size_t nrhs, ldem_err *err);

/* Bytes the factor holds (for the log: the memory a large mesh costs). */
double fe_solver_factor_bytes(const fe_solver *f);

/* The fill-reducing ordering CHOLMOD chose (it tries AMD and METIS, keeps the sparser). */
const char *fe_solver_ordering(const fe_solver *f);

#endif
