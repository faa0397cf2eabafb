/* ldem/levelset.h — level-set queries for contact (design layer 3, pure functions).
 *
 * A grain's level set φ is stored in its body frame (ldem_lset, float32, trilinear
 * interpolation in ldem/grid.h). Contact detection asks it questions at points given in
 * world coordinates: the point is moved into the body frame, φ and ∇φ are sampled there, and
 * the gradient is rotated back. Points outside the grid are "not inside" (φ is then the
 * clamped value, and the query says so).
 */
#ifndef LDEM_LEVELSET_H
#define LDEM_LEVELSET_H

#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* φ and the world-frame gradient of a grain posed at centre xc with orientation q (body →
 * world), at world point p. Returns 1 if p lies inside the grid box, 0 if it was clamped. */
int ldem_levelset_query(const ldem_lset *ls, ldem_vec3 xc, ldem_quat q, ldem_vec3 p,
                        double *phi, ldem_vec3 *grad);

/* Radius of mean curvature of the surface near body-frame point p: 2/∇²φ, with the
 * Laplacian from central differences of the trilinear interpolant over one grid spacing.
 * For a distance function of a sphere of radius R this is R (to the grid's accuracy).
 * Flat or concave surfaces (∇²φ ≤ 1e-9/spacing) give INFINITY. */
double ldem_levelset_curvature_radius(const ldem_lset *ls, ldem_vec3 p);

#ifdef __cplusplus
}
#endif
#endif
