/* Filling the level-set grid with signed distances, in parallel over z-slabs (OpenMP). */
#ifndef LSGEN_SDFGRID_H
#define LSGEN_SDFGRID_H

#include <stdint.h>

#include "bvh.h"
#include "shape.h"
#include "ldem/err.h"
#include "ldem/mesh.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

/* The grid around a body-frame bounding box [lo, hi]: spacing h, `pad` extra nodes beyond
 * the box on every side, centred on the box so that symmetric shapes get symmetric grids.
 * Fills ls->dims, origin, spacing; ls->phi is allocated (uninitialised). Refuses grids of
 * more than 2^31 nodes with a message giving the size (LDEM_ERR_USAGE). */
int lsgen_grid_around(ldem_vec3 lo, ldem_vec3 hi, double h, unsigned pad, ldem_lset *ls,
                      ldem_err *err);

/* Bytes lsgen_grid_around's grid and the sign pass's per-node work arrays (two 32-bit
 * labels a node) will take, computed before anything is allocated so that a tiny --h is
 * refused against --max-memory; saturates at UINT64_MAX, and an invalid box or spacing gives
 * 0 (lsgen_grid_around reports those). */
uint64_t lsgen_grid_bytes(ldem_vec3 lo, ldem_vec3 hi, double h, unsigned pad);

/* φ = exact signed distance of an analytic shape at every node. */
int lsgen_sdf_shape(const lsgen_shape *s, ldem_lset *ls, int progress, ldem_err *err);

typedef struct lsgen_sdf_stats {
    uint64_t distance_queries;   /* BVH closest-point queries (one per node) */
    uint64_t winding_queries;    /* winding numbers evaluated (sign) */
    uint64_t sign_blocks;        /* groups of two or more nodes signed by one winding number */
    uint64_t block_nodes;        /* nodes in those groups */
} lsgen_sdf_stats;

/* φ = exact distance to the mesh at every node (BVH; each query starts from the previous
 * node's closest triangle, whose distance bounds the search by at most the previous
 * distance plus the spacing), signed by the generalized winding number (w >= 0.5 inside).
 * The winding number is not evaluated at every node: for a closed mesh (every edge used
 * equally often in both directions) w is constant off the surface, so neighbours whose
 * surface-free balls overlap along their segment share one evaluation per connected group;
 * for an open mesh, octree boxes of nodes lying in the surface-free ball of their centre
 * node share the centre's evaluation, down to single nodes. Signs are correct everywhere for
 * closed meshes and away from holes for open ones. The result does not depend on the
 * number of threads. Nodes on the surface get 0. An inverted mesh (all triangles reversed)
 * has w = −1 inside and so gets φ = +distance everywhere. `b` must be built over the mesh
 * (it holds its own copy). `stats` may be NULL. */
int lsgen_sdf_mesh(const lsgen_bvh *b, ldem_lset *ls, int progress, lsgen_sdf_stats *stats,
                   ldem_err *err);

/* Exact signed distance from one point to the mesh (same sign rule), for checks. */
double lsgen_mesh_sdf_point(const lsgen_bvh *b, ldem_vec3 x);

#endif
