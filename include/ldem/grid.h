/* ldem/grid.h — sampling the level-set grid (ldem_lset) between its nodes.
 *
 * Trilinear interpolation of φ and its exact gradient within the cell, the way LS-DEM
 * (Kawamoto et al.) queries a grain's level set at another grain's surface nodes. Points
 * outside the grid are clamped to its boundary cell and flagged, so a caller decides
 * what "outside" means (for contact: no contact).
 */
#ifndef LDEM_GRID_H
#define LDEM_GRID_H

#include "ldem/export.h"

#include "ldem/sections.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* φ at x by trilinear interpolation; *grad (if non-NULL) receives the gradient of the
 * trilinear interpolant. Returns 1 if x lies inside the grid's box, 0 if it was clamped. */
LDEM_API int ldem_lset_sample(const ldem_lset *ls, ldem_vec3 x, double *phi, ldem_vec3 *grad);

/* Per-axis Lipschitz constants of the trilinear interpolant: lip[a] is the largest |Δφ| over
 * one grid edge along axis a, divided by spacing[a]. Every ∂φ/∂x_a of the interpolant is
 * a mean of such edge slopes and clamping outside the box only flattens φ, so
 * |φ(x) − φ(y)| ≤ Σa lip[a] |x_a − y_a| for any two points. About 1 for a signed
 * distance; computed, not assumed, so that a grid that is not one still gets a true bound. */
LDEM_API void ldem_lset_lipschitz(const ldem_lset *ls, double lip[3]);

/* Position of grid node (i, j, k). */
LDEM_API ldem_vec3 ldem_lset_node(const ldem_lset *ls, uint32_t i, uint32_t j, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif
