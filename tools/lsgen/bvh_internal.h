/* Private to lsgen's distance module (bvh.c, winding.c, sdfgrid.c): the BVH's layout and
 * the slot-level queries the grid fill uses. Nothing outside these three files includes it. */
#ifndef LSGEN_BVH_INTERNAL_H
#define LSGEN_BVH_INTERNAL_H

#include <stdint.h>

#include "bvh.h"

/* Leaves hold at most this many triangles; the traversal stack is sized for the depth the
 * builder guarantees (it falls back to median splits below LSGEN_BVH_SAH_DEPTH). */
#define LSGEN_BVH_LEAF_MAX 4
#define LSGEN_BVH_SAH_DEPTH 48
#define LSGEN_BVH_STACK 128
#define LSGEN_BVH_NONE UINT32_MAX

/* Flat array in depth-first order: an internal node's first child is the next node and
 * `first_or_second` the index of the other; a leaf holds triangle slots [first, first +
 * count). Each node is bounded by an oriented box: centre, orthonormal axes and half
 * extents. Surface patches get a box aligned with their mean normal, thin across the
 * surface, which bounds distances far tighter than an axis-aligned box does (the AABB of
 * a tilted patch reaches out towards the query point by its width; the oriented box only
 * by the patch's sag). */
typedef struct lsgen_bvh_node {
    ldem_vec3 centre;
    ldem_vec3 axis[3];
    double half[3];
    uint32_t first_or_second;
    uint32_t count; /* 0 for an internal node */
} lsgen_bvh_node;

/* What the closest-point query walks: per internal node, both children's boxes side by
 * side (structure of arrays, so that the two tests run together), and where they lead. */
typedef struct lsgen_bvh_pair {
    double centre[3][2];  /* component a, child j */
    double axis[3][3][2]; /* axis k, component a, child j */
    double half[3][2];
    uint32_t next[2];  /* internal child: its pair; leaf child: its first slot */
    uint32_t count[2]; /* leaf child: its triangle count; internal child: 0 */
} lsgen_bvh_pair;

/* One triangle, in leaf order. The unit normal and plane offset give a cheap lower bound
 * on the distance (the distance to the plane), zero for ill-shaped triangles. */
typedef struct lsgen_bvh_tri {
    ldem_vec3 a, b, c;
    ldem_vec3 unit_normal;
    double offset; /* unit_normal · a */
} lsgen_bvh_tri;

/* Far-field expansion of a node's triangles about `centre` (Barill et al. 2018, to second
 * order): with n dA the oriented area element and u = y − centre,
 *   N_i = ∫ n_i dA,   M_ij = ∫ n_i u_j dA,   C_ijk = ∫ n_i u_j u_k dA
 * (C is symmetric in jk: six entries per i, in the order xx yy zz xy xz yz). */
typedef struct lsgen_bvh_expansion {
    ldem_vec3 centre;
    double radius; /* every triangle of the node lies within it of the centre */
    double N[3];
    double M[9];
    double C[18];
} lsgen_bvh_expansion;

struct lsgen_bvh {
    size_t ntris;
    size_t nnodes;
    lsgen_bvh_node *nodes;
    lsgen_bvh_pair *pairs;          /* one per internal node, in depth-first order */
    lsgen_bvh_tri *tris;            /* ntris, leaf order */
    uint32_t *mesh_index;           /* slot -> triangle index in the mesh given to build */
    lsgen_bvh_expansion *expansion; /* nnodes */
    double coord_scale;             /* largest |coordinate| of the mesh */
    ldem_vec3 ref;                  /* centre of the mesh's bounding box */
    int closed;                     /* every edge used equally often in both directions */
};

/* Exact squared distance from x to the nearest triangle strictly closer than bound2 (the
 * bound itself if none), *slot its leaf-order slot or LSGEN_BVH_NONE. */
double lsgen_bvh_closest_slot(const lsgen_bvh *b, ldem_vec3 x, double bound2, uint32_t *slot);

/* Squared distance from x to the triangle in `slot`, bit-identical to what the traversal
 * computes for it. */
double lsgen_bvh_slot_distance2(const lsgen_bvh *b, uint32_t slot, ldem_vec3 x);

/* Fill b->expansion from nodes and tris (winding.c). */
int lsgen_bvh_build_expansions(lsgen_bvh *b, ldem_err *err);

#endif
