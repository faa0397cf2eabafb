/* ldem/sim/narrowphase.h — contact geometry of one candidate pair (design layer 4).
 *
 * Every function describes the pair's contact as an ldem_patch: the Hertz overlap δ (total
 * normal approach; negative = the gap of separated analytic shapes), the unit normal from i
 * to j, the contact point, and the two radii of curvature the Hertz/Jäger laws need. Level-set
 * grains additionally list their penetrating nodes (ldem_node_hit) for the linear node law
 * and for distributing a deformable grain's patch forces to its nodes.
 *
 * Level-set pairs under Hertz laws — the patch (docs/contact-patch.md):
 *   Nodes of i inside j (φ_j < 0) and nodes of j inside i are found both ways (each node moved
 *   into the other grain's body frame, trilinear φ and ∇φ). The patch aggregates them:
 *   - volume V = ½ (Σ_{i's nodes} A_k |φ_j| + Σ_{j's nodes} A_k |φ_i|): each sum is a
 *     quadrature of the lens both grains share (a node's depth times its area), the mean uses
 *     both surfaces' nodes;
 *   - normal: the depth·area-weighted mean of −∇φ_j at i's nodes and +∇φ_i at j's nodes;
 *   - point: the lens's centroid, i.e. the depth·area-weighted mean of the mid-thickness
 *     points (each node moved half its depth toward the other surface: node − ½ depth·n for
 *     i's nodes, + ½ depth·n for j's), so one-sided patches (walls, analytic spheres) do
 *     not sit on i's surface; it differs from the analytic contacts' "middle of the overlap
 *     on the line of centres" along the normal by O(δ) (δ/6 for a sphere on a plane);
 *   - radii: r_k = 2/∇²φ_k (mean curvature) of each grain at the contact point projected on
 *     its surface, capped to [0.01, 100] × the grain's bounding radius (a flat face has an
 *     infinite radius, a sharp edge a vanishing one; R* must stay finite and positive);
 *   - overlap: the δ for which two spheres of radii r1, r2 share that lens volume,
 *     V = π R* δ² (R* = r1 r2/(r1 + r2)), i.e. δ = √(V/(π R*)).
 *   The lens volume is a smooth function of the pose (a node's depth grows from zero as it
 *   enters), unlike the deepest node, which jumps as nodes enter and leave; for spheres it
 *   reproduces Hertz's δ to the quadrature's accuracy once a few nodes are inside.
 *   Against walls the same holds with one side's nodes, r2 = ∞ for a plane, and for a
 *   cylinder the sphere–cylinder radii of ldem_cylinder_radii with the grain's r1.
 */
#ifndef LDEM_SIM_NARROWPHASE_H
#define LDEM_SIM_NARROWPHASE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/modes.h"
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

LDEM_API void ldem_hits_free(ldem_hits *h);
/* Room for at least `n` hits (capacity grows geometrically; count unchanged). */
LDEM_API int ldem_hits_reserve(ldem_hits *h, size_t n, ldem_err *err);

/* A posed level-set grain. */
typedef struct ldem_ls_grain {
    const ldem_lset *lset;
    const ldem_nodes *nodes;
    ldem_vec3 x;             /* centre of mass (world) */
    ldem_quat q;             /* body → world */
    double radius;           /* optional bounding radius about x of the zero set (the shape's
                              * bounding_radius, or the deformed grain's): the cheap rejection
                              * of the other grain's nodes. 0: not known, the grid's
                              * half-diagonal about x is used instead. */
    double size;             /* optional: the grain's size for the cap on the patch's radii of
                              * curvature when radius is a tighter bound than the one the cap
                              * was tuned with (demrun: radius0 + Σα |εα| max|Φα|); 0: radius */
    /* Deformable grains; all NULL for a rigid grain. */
    const double *position;  /* deformed node positions (body frame, 3 per node); NULL: the
                              * nodes' own positions */
    const ldem_modeset *modes;   /* with eps: φ queries on this grain remap on demand */
    const double *eps;
    const ldem_lset_family *family; /* set: φ from precomputed level sets instead */
    const ldem_lset_slopes *slopes; /* optional: the level set's slope ranges
                                     * (ldem_lset_slopes_build), with which the remap runs
                                     * only for nodes it can bring inside */
    /* Optional: the nodes' clusters (ldem/sim/node_clusters.h), which let the node loops
     * skip whole groups; NULL tests every node. slack bounds how far a deformed node moved
     * from its reference position (0 for a rigid grain). */
    const struct ldem_node_clusters *clusters;
    double slack;
    /* Optional, with clusters and modes: each cluster's own slack for this ε, as
     * ldem_node_clusters_slack capped by slack (the step computes it once per grain);
     * NULL: computed per query. */
    const double *group_slack;
    /* Optional: the level set's band slopes (ldem_lset_band_slopes_build), with which the
     * other grain's node tree skips the parts where φ keeps every node out. */
    const ldem_lset_band_slopes *band_slopes;
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
 * the middle of the overlap, r1 = ri, r2 = rj. Coincident centres give normal +z. Inline: it
 * runs for every sphere pair in touch every step, and its patch then stays in registers. */
static inline void ldem_sphere_sphere(ldem_vec3 xi, double ri, ldem_vec3 xj, double rj,
                                      ldem_patch *out)
{
    ldem_vec3 d = ldem_vec3_sub(xj, xi);
    double dist = ldem_vec3_norm(d);
    /* Coincident centres have no line of centres; +z is the documented convention. */
    ldem_vec3 n = dist > 0.0 ? ldem_vec3_scale(d, 1.0 / dist) : ldem_vec3_make(0.0, 0.0, 1.0);
    /* Middle of the overlap on the line of centres: halfway between i's surface point
     * toward j (xi + ri n) and j's surface point toward i (xj − rj n). */
    ldem_vec3 tip_i = ldem_vec3_axpy(ri, n, xi);
    ldem_vec3 tip_j = ldem_vec3_axpy(-rj, n, xj);
    /* Written whole as one value rather than cleared first: this runs for every candidate
     * pair every step, and the clearing memset became a slow `rep stos`. */
    *out = (ldem_patch){.overlap = ri + rj - dist,
                        .normal = n,
                        .point = ldem_vec3_scale(ldem_vec3_add(tip_i, tip_j), 0.5),
                        .r1 = ri,
                        .r2 = rj};
}

/* A sphere (i) against a wall (j): plane δ = r − (x − p)·n, normal −n, r2 = ∞.
 * Cylinder outside (a rod): δ = R + r − ρ, r2 chosen so that the pair's Hertz R* is the
 * equivalent radius of sphere on cylinder, 1/√((1/r + 1/R)/r); inside (a drum):
 * δ = r + ρ − R, R* = 1/√((1/r − 1/R)/r) (flat when R ≫ r). ρ = distance from the axis.
 * The point is the middle of the overlap along the normal; a sphere on a rod's axis gets a
 * fixed radial normal. Radii as ldem_cylinder_radii. */
LDEM_API void ldem_sphere_wall(ldem_vec3 x, double r, const ldem_wall_geom *w, ldem_patch *out);

/* Radii (r1, r2) whose R* = r1 r2/(r1 + r2) is the Hertz equivalent radius of a sphere of
 * radius r on a cylinder of radius R. Outside: r1 = r, r2 = R (1 + √(1 + r/R)). Inside, R* > r
 * cannot be split with r1 = r and a positive r2 (the Hertz laws take positive radii), so
 * r1 = R* = r/√(1 − r/R), r2 = ∞; a sphere as large as the drum (r/R > 1 − 1e-4) gets
 * R* = 100 r. */
LDEM_API void ldem_cylinder_radii(double r, double R, int inside, double *r1, double *r2);

/* ---- level-set grains ---- */

/* All penetrating nodes of the pair, both ways, sorted by key; hits are appended after
 * clearing `h`. Nodes whose transformed position falls outside the other grid are skipped. */
LDEM_API int ldem_ls_pair_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, ldem_hits *h,
                               ldem_err *err);

/* Nodes of level-set grain a inside the analytic sphere (centre, radius) b, side 0, and —
 * because a sphere has no nodes — nothing the other way. */
LDEM_API int ldem_ls_sphere_hits(const ldem_ls_grain *a, ldem_vec3 centre, double radius,
                                 ldem_hits *h, ldem_err *err);

/* Nodes of a inside a wall (plane or cylinder), side 0, normal from a to the wall. */
LDEM_API int ldem_ls_wall_hits(const ldem_ls_grain *a, const ldem_wall_geom *w, ldem_hits *h,
                               ldem_err *err);

/* Aggregate hits into a patch as described at the top. `a` is grain i; `b` is grain j or
 * NULL when j is a sphere (radius rb) or a plane (rb = INFINITY); rb ≤ 0 or NaN counts as
 * flat. nnodes = 0 gives overlap 0 and leaves the rest zero. */
LDEM_API void ldem_patch_from_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, double rb,
                                   const ldem_hits *h, ldem_patch *out);

/* The same for hits of a against wall w (ldem_ls_wall_hits): a plane is flat (r2 = ∞); a
 * cylinder takes the sphere–cylinder radii of ldem_cylinder_radii with r = a's r1 (the
 * drum's r1 capped at 100 × a's bounding radius like the level-set radii). */
LDEM_API void ldem_patch_from_wall_hits(const ldem_ls_grain *a, const ldem_wall_geom *w,
                                        const ldem_hits *h, ldem_patch *out);

#ifdef __cplusplus
}
#endif
#endif
