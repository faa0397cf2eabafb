/* ldem/sim/narrowphase.h — contact geometry of one candidate pair (design layer 4).
 *
 * Every function describes the pair's contact as an ldem_patch: the Hertz overlap δ (total
 * normal approach; negative = the gap of separated analytic shapes), the unit normal from i
 * to j, the contact point, and the two radii of curvature the Hertz/Jäger laws need. Level-set
 * grains additionally list their penetrating nodes (ldem_node_hit) for the linear node law
 * and, in issue 7, for distributing patch forces to nodes.
 *
 * Level-set pairs under Hertz laws — the patch (docs/contact-patch.md):
 *   Nodes of i inside j (φ_j < 0) and nodes of j inside i are found both ways (each node moved
 *   into the other grain's body frame, trilinear φ and ∇φ). The patch aggregates them:
 *   - volume V = ½ (Σ_{i's nodes} A_k |φ_j| + Σ_{j's nodes} A_k |φ_i|): each sum is a
 *     quadrature of the lens both grains share (a node's depth times its area), the mean uses
 *     both surfaces' nodes;
 *   - normal: the depth·area-weighted mean of −∇φ_j at i's nodes and +∇φ_i at j's nodes;
 *   - point: the depth·area-weighted mean of the penetrating nodes;
 *   - radii: r_k = 2/∇²φ_k (mean curvature) of each grain at the contact point;
 *   - overlap: the δ for which two spheres of radii r1, r2 share that lens volume,
 *     V = π R* δ² (R* = r1 r2/(r1 + r2)), i.e. δ = √(V/(π R*)).
 *   The lens volume is a smooth function of the pose (a node's depth grows from zero as it
 *   enters), unlike the deepest node, which jumps as nodes enter and leave; for spheres it
 *   reproduces Hertz's δ to the quadrature's accuracy once a few nodes are inside.
 *   Against walls the same holds with one side's nodes and r2 = ∞ (plane) or the wall's.
 */
#ifndef LDEM_SIM_NARROWPHASE_H
#define LDEM_SIM_NARROWPHASE_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_patch {
    double overlap;          /* δ; > 0 in contact; analytic pairs give the (negative) gap */
    ldem_vec3 normal;        /* unit, from i to j */
    ldem_vec3 point;         /* contact point (world) */
    double r1, r2;           /* radii of curvature of i and j (INFINITY: flat) */
    uint32_t nnodes;         /* penetrating nodes (level-set pairs), 0 for analytic pairs */
    double volume;           /* interpenetration volume estimate (level-set pairs) */
} ldem_patch;

/* A penetrating surface node. key = side << 31 | node index, side 0 for a node of i inside j
 * (or inside a wall), 1 for a node of j inside i. */
typedef struct ldem_node_hit {
    uint32_t key;
    double depth;            /* −φ > 0 */
    double area;             /* the node's area weight */
    ldem_vec3 point;         /* the node (world) */
    ldem_vec3 normal;        /* unit, from i to j (for side 0: −∇φ_j; side 1: +∇φ_i) */
} ldem_node_hit;

/* A growable list of hits (zero-initialize; free with ldem_hits_free). */
typedef struct ldem_hits {
    size_t count, capacity;
    ldem_node_hit *hit;
} ldem_hits;

void ldem_hits_free(ldem_hits *h);

/* A posed level-set grain. */
typedef struct ldem_ls_grain {
    const ldem_lset *lset;
    const ldem_nodes *nodes;
    ldem_vec3 x;             /* centre of mass (world) */
    ldem_quat q;             /* body → world */
} ldem_ls_grain;

/* A posed wall (current position). */
typedef struct ldem_wall_geom {
    int kind;                /* enum ldem_wall_kind (ldem/sim/world.h) */
    ldem_vec3 point;         /* plane point / a point on the cylinder axis */
    ldem_vec3 normal;        /* plane normal (into the grains' side) / cylinder axis, unit */
    double radius;           /* cylinder */
    int inside;              /* cylinder: grains inside */
} ldem_wall_geom;

/* ---- analytic shapes ---- */

/* Two spheres: δ = ri + rj − |xj − xi|, normal (xj − xi)/|..|, point on the line of centres at
 * the middle of the overlap, r1 = ri, r2 = rj. Coincident centres give normal +z. */
void ldem_sphere_sphere(ldem_vec3 xi, double ri, ldem_vec3 xj, double rj, ldem_patch *out);

/* A sphere (i) against a wall (j): plane δ = r − (x − p)·n, normal −n, r2 = ∞.
 * Cylinder outside (a rod): δ = R + r − ρ, r2 chosen so that the pair's Hertz R* is the
 * equivalent radius of sphere on cylinder, 1/√((1/r + 1/R)/r); inside (a drum):
 * δ = r + ρ − R, R* = 1/√((1/r − 1/R)/r) (flat when R ≫ r). ρ = distance from the axis. */
void ldem_sphere_wall(ldem_vec3 x, double r, const ldem_wall_geom *w, ldem_patch *out);

/* ---- level-set grains ---- */

/* All penetrating nodes of the pair, both ways, sorted by key; hits are appended after
 * clearing `h`. Nodes whose transformed position falls outside the other grid are skipped. */
int ldem_ls_pair_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, ldem_hits *h,
                      ldem_err *err);

/* Nodes of level-set grain a inside the analytic sphere (centre, radius) b, side 0, and —
 * because a sphere has no nodes — nothing the other way. */
int ldem_ls_sphere_hits(const ldem_ls_grain *a, ldem_vec3 centre, double radius, ldem_hits *h,
                        ldem_err *err);

/* Nodes of a inside a wall (plane or cylinder), side 0, normal from a to the wall. */
int ldem_ls_wall_hits(const ldem_ls_grain *a, const ldem_wall_geom *w, ldem_hits *h,
                      ldem_err *err);

/* Aggregate hits into a patch as described at the top. `a` is grain i; `b` is grain j or
 * NULL when j is a sphere (radius rb) or a wall (rb = its radius of curvature, INFINITY for
 * a plane). nnodes = 0 gives overlap 0 and leaves the rest zero. */
void ldem_patch_from_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, double rb,
                          const ldem_hits *h, ldem_patch *out);

#ifdef __cplusplus
}
#endif
#endif
