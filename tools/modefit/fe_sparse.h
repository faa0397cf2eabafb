/* The global stiffness and mass matrices of a tet mesh, sparse: what a free-free eigen
 * analysis and static load cases need (fe_solver.h, fe_eigen.h). fe_integrate.h integrates
 * the same forms over given fields instead; both use the same quadrature rules, so a mode
 * Φ gives Φᵀ K Φ here equal to its stiffness Gram there up to summation order.
 *
 * Degrees of freedom are node-major (3 i + c, as the fields of fe_integrate.h). Only the
 * upper triangle (row ≤ column) is stored, in compressed columns; K and M share one
 * pattern: every pair of nodes that share a tet couples all their components. */
#ifndef MODEFIT_FE_SPARSE_H
#define MODEFIT_FE_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "femesh.h"
#include "ldem/err.h"

typedef struct fe_sparse {
    size_t n;          /* rows = columns = 3 · nnodes */
    size_t nnz;        /* stored entries (upper triangle) */
    int64_t *colptr;   /* n + 1 */
    int64_t *row;      /* nnz, ascending within each column */
    double *K, *M;     /* nnz values each */
} fe_sparse;

/* Assembles K (isotropic linear elasticity E, nu) and M (density rho, consistent mass).
 * Sizes are checked before anything is allocated; LDEM_ERR_NOMEM names what did not fit. */
int fe_sparse_assemble(const fe_mesh *m, double E, double nu, double rho, fe_sparse *S,
                       ldem_err *err);
void fe_sparse_free(fe_sparse *S);

/* The same with quadrature rules exact to the given degrees (fe_tet_rule). CalculiX
 * integrates its C3D10 stiffness and mass with the 4-point rule (degree 2): with 2, 2
 * these matrices are CalculiX's, which is how its *FREQUENCY results are matched to its
 * printed digits in the tests, whereas degree 5 integrates the consistent mass exactly. */
int fe_sparse_assemble_rules(const fe_mesh *m, double E, double nu, double rho,
                             int stiff_degree, int mass_degree, fe_sparse *S, ldem_err *err);

/* y = A x for the symmetric matrix whose upper triangle is `upper` (S->K or S->M). */
void fe_sparse_symv(const fe_sparse *S, const double *upper, const double *x, double *y);

#endif
