/* node_clusters.h — surface nodes of a shape grouped into small spatial clusters, each with
 * a bounding sphere in the body frame, so that the narrow phase tests a wall, a sphere or
 * another grain against a few hundred spheres instead of every node.
 *
 * Level-set contact looks for the nodes of one grain inside something else; without
 * clusters that is a loop over all nodes per contact per step, which dominates a run whose
 * grains have 10^4 nodes and touch walls. The clusters
 * come from recursive median splits along the longest box extent, so each is compact;
 * a deformed grain's node moved at most `slack` from its reference position (the caller's
 * bound, e.g. Σ|εα| max|Φα|), which the tests add to every radius. */
#ifndef LDEM_SIM_NODE_CLUSTERS_H
#define LDEM_SIM_NODE_CLUSTERS_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

/* At most this many nodes per cluster: fewer clusters to test, more nodes per survivor. */
#define LDEM_NODE_CLUSTER_SIZE 32

typedef struct ldem_node_cluster {
    ldem_vec3 centre;        /* body frame */
    double radius;           /* every member within radius of centre */
    uint32_t first, count;   /* members: order[first .. first + count) */
} ldem_node_cluster;

/* The median splits that made the clusters, continued inside each cluster down to
 * LDEM_NODE_TREE_LEAF nodes, kept as a tree of bounding spheres in pre-order: an entry's
 * subtree is entries [e + 1, skip) and its nodes order[first .. first + count); a leaf's
 * skip is e + 1. A query walks it without a stack: into an entry that may reach, to skip
 * past one that cannot, so a contact visits the nodes near the other body only. */
#define LDEM_NODE_TREE_LEAF 8
#define LDEM_NODE_NO_CLUSTER UINT32_MAX

typedef struct ldem_node_tree_entry {
    ldem_vec3 centre;        /* body frame */
    double radius;           /* every node of the subtree within radius of centre */
    uint32_t first, count;
    uint32_t cluster;        /* the cluster holding the subtree, or LDEM_NODE_NO_CLUSTER
                              * above the clusters */
    uint32_t skip;
} ldem_node_tree_entry;

typedef struct ldem_node_clusters {
    uint32_t *order;         /* node indices grouped by cluster (a permutation of 0..n-1) */
    ldem_node_cluster *cluster;
    size_t count;
    ldem_node_tree_entry *tree; /* NULL: the narrow phase tests every cluster in turn */
    size_t tree_count;
    /* Copies in that order, so the node loops read memory front to back instead of
     * wherever order[] points (the loads were the loops' main cost): position[3j..3j+2]
     * is node order[j]'s reference position; mode_values, NULL until
     * ldem_node_clusters_attach_modes, its nmodes Φα (3 values each, as
     * ldem_modes_node_value). */
    double *position;
    double *mode_values;
    uint32_t nmodes;
    double *mode_max;        /* count × nmodes: max |Φα| over each cluster's nodes, which
                              * bounds how far they move: Σα |εα| mode_max */
    /* The radial parts, which bound how far the deformed nodes reach from the body origin
     * (ldem_node_clusters_deformed_reach): a compaction mode moves a sphere's poles inwards
     * by ε but the slack above would add ε to the bounding radius. */
    double *radial_lo, *radial_hi; /* count × nmodes: min, max of x̂·Φα over each cluster's
                                    * nodes (x̂ = x/|x|; 0 for a node at the origin) */
    double *r_lo, *r_hi;     /* count: min, max |x| over each cluster's nodes */
    double node_reach;       /* max |x| over all nodes */
} ldem_node_clusters;

/* Group the nodes (at most UINT32_MAX of them). Deterministic: the same nodes always give
 * the same clusters. */
LDEM_API int ldem_node_clusters_build(const ldem_nodes *nodes, ldem_node_clusters *out,
                                      ldem_err *err);
LDEM_API void ldem_node_clusters_free(ldem_node_clusters *c);

/* Copy the shape's modal node values into cluster order (m->nnodes must be the clusters'
 * node count). */
struct ldem_modeset;
LDEM_API int ldem_node_clusters_attach_modes(ldem_node_clusters *c, const struct ldem_modeset *m,
                                             ldem_err *err);

/* How far cluster c's nodes moved from their reference positions at most, for amplitudes
 * eps (nmodes of them, modes attached): Σα |εα| mode_max, a hair more for rounding. */
LDEM_API double ldem_node_clusters_slack(const ldem_node_clusters *k, size_t c, const double *eps);

/* An upper bound of |x + Σα εα Φα(x)| over every node x (body frame, from the origin), from
 * each cluster's radial ranges: |x + u|² = |x|² + 2|x| x̂·u + |u|², with x̂·u at most
 * Σα max(εα radial_lo, εα radial_hi) and |u| at most the cluster's slack. Writes each
 * cluster's slack to slack[c] when slack is not NULL. Needs the modes attached. */
LDEM_API double ldem_node_clusters_deformed_reach(const ldem_node_clusters *k, const double *eps,
                                                  double *slack);

#endif
