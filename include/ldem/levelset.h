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

#include "ldem/export.h"

#include "ldem/blocks.h"
#include "ldem/err.h"
#include "ldem/modes.h"
#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* φ and the world-frame gradient of a grain posed at centre xc with orientation q (body →
 * world), at world point p. Returns 1 if p lies inside the grid box, 0 if it was clamped. */
LDEM_API int ldem_levelset_query(const ldem_lset *ls, ldem_vec3 xc, ldem_quat q, ldem_vec3 p,
                                 double *phi, ldem_vec3 *grad);

/* Radius of mean curvature of the surface near body-frame point p: 2/∇²φ, with the
 * Laplacian from central differences of the trilinear interpolant over one grid spacing.
 * For a distance function of a sphere of radius R this is R (to the grid's accuracy).
 * Flat or concave surfaces (∇²φ ≤ 1e-9/spacing) give INFINITY. */
LDEM_API double ldem_levelset_curvature_radius(const ldem_lset *ls, ldem_vec3 p);

/* ---- deformed grains (Henzel & Karapiperis §3.1.3–3.1.4) ---- */

/* On-demand semi-Lagrangian remap at body-frame point p: x_ref = p − u(p) with
 * u = Σ εα Φα, φ = φ0(x_ref) sampled trilinearly in the stored grid, and the body-frame
 * gradient ∇φ = (I − J)ᵀ ∇φ0(x_ref), J = ∂u/∂p. With modes->pullback > 1, x_ref is
 * iterated towards x_ref + u(x_ref) = p (ldem_modes_pull_back) and ∇φ = (I + J)⁻ᵀ ∇φ0,
 * J at the last iterate. No grid-wide update. modes == NULL or
 * eps == NULL gives exactly ldem_lset_sample(ls, p, ...). Returns 1 if x_ref lies inside
 * the grid (0: clamped, not inside). */
LDEM_API int ldem_levelset_sample_remap(const ldem_lset *ls, const ldem_modeset *modes,
                                        const double *eps, ldem_vec3 p, double *phi,
                                        ldem_vec3 *grad);

/* The same for a world point p of a grain posed at (xc, q); grad in world components. */
LDEM_API int ldem_levelset_query_remap(const ldem_lset *ls, const ldem_modeset *modes,
                                       const double *eps, ldem_vec3 xc, ldem_quat q, ldem_vec3 p,
                                       double *phi, ldem_vec3 *grad);

/* How far the remap can move φ at body-frame point p: |φ(p) − φ0(p)| ≤ the returned
 * Σi lip[i] b_i(p), with lip the grid's Lipschitz constants (ldem_lset_lipschitz) and b the
 * local displacement bound (ldem_modes_displacement_bound); INFINITY for an analytic field.
 * A point whose rigid φ0 exceeds it cannot be inside the deformed grain, so a contact test
 * needs the remap only near the surface. With modes->pullback > 1 the bound covers the
 * MODE block's neighbours too (ldem_modes_block_range_near). */
LDEM_API double ldem_levelset_remap_reach(const ldem_modeset *modes, const double *eps,
                                          const double lip[3], ldem_vec3 p);
/* The same bound for every p at once (from the modes' field_max): looser, and one number
 * per grain, so a caller rejects far points with it before asking for the local one. */
LDEM_API double ldem_levelset_remap_reach_max(const ldem_modeset *modes, const double *eps,
                                              const double lip[3]);

/* A sharper, sign-aware bound for the remap filter. Along the pull back from p to
 * p − u(p), φ(p) − φ0(p) = −∫ ∇φ0 · u, so φ can only drop by Σi max(∂iφ0 · u_i) with
 * ∂iφ0 over the cells the segment can cross and u_i over the MODE block of p. Where a
 * compressed grain's surface moves inwards (u against ∇φ0) φ can only rise, and most
 * nodes near the contact need no remap at all; the Lipschitz reach ignores that sign.
 * The slopes: the level-set grid in blocks of LDEM_MODES_BLOCK_CELLS cells per axis; for
 * each block, the range of every cell edge slope Δφ/h along each axis over the block's
 * cells and one layer of cells around them (0 included where that layer reaches the box's
 * edge, where clamping flattens φ). A pull back shorter than `reach` (one cell) that starts
 * in a block stays in those cells. */
typedef struct ldem_lset_slopes {
    uint32_t block_dims[3];
    double origin[3], block_scale[3]; /* 1 / (spacing × LDEM_MODES_BLOCK_CELLS) */
    double reach;                     /* the shortest cell edge */
    double lipschitz[3];              /* the grid's ldem_lset_lipschitz */
    double *lo, *hi;                  /* 3 per block */
} ldem_lset_slopes;

LDEM_API int ldem_lset_slopes_build(const ldem_lset *ls, ldem_lset_slopes *out, ldem_err *err);
LDEM_API void ldem_lset_slopes_free(ldem_lset_slopes *s);
/* The block of s holding body-frame point p (clamped to the box); inline, it runs per
 * node. */
static inline size_t ldem_lset_slopes_block(const ldem_lset_slopes *s, ldem_vec3 p)
{
    return ldem_block_index(s->origin, s->block_scale, s->block_dims, p);
}
/* The largest possible drop φ0(p) − φ(p) of the remapped φ at any point p whose level-set
 * block is `lset_block` and whose MODE block is `mode_block` (ldem_modes_block_of), for a
 * grid field; negative when φ must rise. With the slopes when the pull back is shorter
 * than s->reach, else (or s NULL) the Lipschitz bound Σi lip[i] max|u_i| over the block.
 * With modes->pullback > 1, u ranges over the MODE block and its neighbours (the iterates
 * stray from p), or over the whole field if that range is longer than a block. */
LDEM_API double ldem_levelset_remap_drop(const ldem_lset_slopes *s, const double lip[3],
                                         const ldem_modeset *modes, const double *eps,
                                         size_t lset_block, size_t mode_block);

/* Interpolation along precomputed level sets (§3.1.4): for each mode α, level sets φ_{α,s}
 * of the grain deformed by ε_{α,s} Φα alone, at `nsamples` amplitudes evenly spaced over
 * [eps_min[α], eps_max[α]], precomputed by the exact inverse map (x_ref with
 * x_ref + ε Φα(x_ref) = x, by fixed-point iteration; non-converged points are counted in a
 * warning) on φ0's grid extended by as many cells per axis as the sampled amplitudes can
 * move the body (Σα max|ε| max|Φα| over φ0 < 2h), so that a grain bent beyond its stored
 * box is still found there. A query superposes the modes' changes, each interpolated
 * linearly in εα between the two nearest samples:
 *   φ(p) = φ0(p) + Σα [ φ_α(εα; p) − φ0(p) ],
 * exact for one mode at a sample amplitude (to the grid's trilinear error) and first-order
 * in the products of amplitudes otherwise (outside φ0's box, φ0 there is its clamped value).
 * Amplitudes beyond the sampled range are clamped to it (the caller chooses a range wide
 * enough; demrun warns when a grain leaves it). Sizes beyond 64 GB are LDEM_ERR_INPUT with
 * the byte count. */
typedef struct ldem_lset_family {
    uint32_t nmodes, nsamples;
    double *eps_min, *eps_max;  /* nmodes */
    float *phi;                 /* nmodes × nsamples × (nx·ny·nz), x fastest */
    uint32_t dims[3];           /* φ0's grid, padded (same spacing, nodes aligned) */
    double origin[3], spacing[3];
} ldem_lset_family;

LDEM_API int ldem_lset_family_build(const ldem_lset *ls, const ldem_modeset *modes,
                                    const double *eps_min, const double *eps_max, uint32_t nsamples,
                                    ldem_lset_family *out, ldem_err *err);
LDEM_API void ldem_lset_family_free(ldem_lset_family *f);
/* Bytes the family holds. */
LDEM_API size_t ldem_lset_family_bytes(const ldem_lset_family *f);
/* Bytes a family of `nmodes` × `nsamples` level sets on φ0's grid would hold at least (the
 * build pads the grid by how far the amplitudes move the grain), saturating at UINT64_MAX:
 * for refusing an absurd sample count before anything is computed. */
LDEM_API uint64_t ldem_lset_family_bytes_at_least(const ldem_lset *ls, uint32_t nmodes,
                                                  uint64_t nsamples);
/* φ and body-frame ∇φ at body-frame point p for amplitudes eps (see above). Returns 1 if p
 * lies inside the family's grid (inside φ0's grid when every amplitude is 0: then φ, ∇φ
 * and the return are exactly ldem_lset_sample's). */
LDEM_API int ldem_lset_family_sample(const ldem_lset_family *f, const ldem_lset *ls,
                                     const double *eps, ldem_vec3 p, double *phi, ldem_vec3 *grad);

#ifdef __cplusplus
}
#endif
#endif
