/* Quadrature over a grain's interior {φ < 0}, from its level set alone (analytic modes
 * have no FE mesh). The interior is that of the trilinear φ, a convex combination of the
 * corner values in each cell: cells whose 8 corners are all inside are wholly inside and get
 * a 2×2×2 Gauss rule (exact for tricubics); cells with all corners φ ≥ 0 are skipped; the
 * others (the zero surface crosses them) are split into 2^depth per axis
 * sub-cells, and each sub-cell
 * (one point at its centre) is weighted by its inside fraction, estimated from the
 * trilinear φ and ∇φ at the centre as clamp(1/2 − φ / (h_sub (|g_x| + |g_y| + |g_z|)), 0, 1)
 * — exact for a plane parallel to a cell face, second order otherwise. */
#ifndef MODEFIT_LSQUAD_H
#define MODEFIT_LSQUAD_H

#include "ldem/err.h"
#include "ldem/sections.h"

typedef void (*lsquad_point_fn)(void *ctx, const double x[3], double weight);

/* Calls fn once per quadrature point (deterministic order: cells k, j, i major to minor,
 * sub-cells likewise; sub-cells with no inside fraction give no point, so every weight is
 * > 0); weights sum to the interior volume of the trilinear φ, to which the rule converges
 * second order in the sub-cell size. depth 0..6 (a cut cell costs 8^depth points), else
 * LDEM_ERR_USAGE; a grid with fewer than 2 nodes along an axis, a non-positive spacing or
 * a non-finite φ is LDEM_ERR_INPUT (checked before any point is produced). */
int lsquad_interior(const ldem_lset *ls, int depth, lsquad_point_fn fn, void *ctx,
                    ldem_err *err);

#endif
