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

#include <math.h>

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

/* How fast φ can fall near the zero set, for bounding φ over a ball from one sample.
 *
 * A ball of radius ρ around q holds no point with φ ≤ t when a lower bound of φ over it is
 * above t; the global Lipschitz bound (√Σ lip²) gives φ(q) − √3 ρ for a signed distance,
 * because cells on the medial axis deep inside have slopes along every axis. Just outside
 * the surface the interpolant's gradient is about 1, and that is where the bound is
 * wanted: slope[k] is the largest |∇φ| over the cells with a corner below band[k] and one
 * above 0 (per cell, √Σa (largest |edge slope| along a)², since each ∂φ/∂x_a is a mean of
 * edge slopes). A point where 0 < φ < band[k] lies in such a cell (φ is a mean of its
 * corners), so on a path from q down to the first point where φ = t ≥ 0, φ falls from at
 * least min(φ(q), band[k]) at no more than slope[k]: for t ≥ 0, no point p with φ(p) ≤ t
 * is closer to q than (min(φ(q), band[k]) − t) / slope[k]. Bands double from half a cell
 * diagonal; the last is infinite. Clamping outside the box only flattens φ, so the bound
 * holds for every pair of points. */
#define LDEM_LSET_BANDS 24

typedef struct ldem_lset_band_slopes {
    int count;
    double band[LDEM_LSET_BANDS];  /* increasing; the last is INFINITY */
    double slope[LDEM_LSET_BANDS]; /* nondecreasing; 0 when no cell qualifies */
} ldem_lset_band_slopes;

LDEM_API void ldem_lset_band_slopes_build(const ldem_lset *ls, ldem_lset_band_slopes *out);

/* The best over the bands of min(phi, band) − slope rho, for a ball of radius rho around a
 * point where the interpolant is phi: when it is above t ≥ 0, so is φ everywhere in the
 * ball (exact arithmetic; callers add their rounding margin). */
static inline double ldem_lset_ball_floor(const ldem_lset_band_slopes *s, double phi, double rho)
{
    double best = -INFINITY;
    for (int k = 0; k < s->count; k++) {
        double b = (phi < s->band[k] ? phi : s->band[k]) - s->slope[k] * rho;
        best = b > best ? b : best;
        if (phi <= s->band[k])
            break; /* wider bands only raise the slope */
    }
    return best;
}

/* Position of grid node (i, j, k). */
LDEM_API ldem_vec3 ldem_lset_node(const ldem_lset *ls, uint32_t i, uint32_t j, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif
