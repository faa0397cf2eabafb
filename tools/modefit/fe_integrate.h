/* Integrals over the mesh of nodal vector fields, by Gauss quadrature per element.
 *
 * A "field" is 3 * nnodes doubles (node-major, x y z); `fields` holds n of them back to
 * back (stride 3 * nnodes). Rigid motions (linear fields) are represented exactly by both
 * element orders, so they can be handled as fields too. */
#ifndef MODEFIT_FE_INTEGRATE_H
#define MODEFIT_FE_INTEGRATE_H

#include <stddef.h>

#include "femesh.h"

/* G[i*nb + j] = ∫ rho a_i · b_j dV  (rule exact for the element's mass integrand). */
int fe_mass_gram(const fe_mesh *m, double rho, const double *a, size_t na, const double *b,
                 size_t nb, double *G, ldem_err *err);

/* G[i*nb + j] = ∫ (C : E(a_i)) : E(b_j) dV, isotropic linear elasticity (E, nu), small
 * strain E(u) = sym grad u. */
int fe_stiffness_gram(const fe_mesh *m, double E, double nu, const double *a, size_t na,
                      const double *b, size_t nb, double *G, ldem_err *err);

/* Volume, centre of volume and the second moments ∫ x_i x_j dV about the origin. */
void fe_volume_moments(const fe_mesh *m, double *volume, double centroid[3],
                       double second[3][3]);

/* The 6 rigid fields about `center`: translations x, y, z, then infinitesimal rotations
 * about x, y, z (w × (x − center)); out is 6 fields (6 * 3 * nnodes). */
void fe_rigid_fields(const fe_mesh *m, const double center[3], double *out);

#endif
