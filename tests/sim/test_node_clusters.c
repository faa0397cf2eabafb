/* test_node_clusters.c — ldem/sim/node_clusters.h: the clusters partition a grain's nodes
 * into compact groups, and their bounds (slack, deformed reach) hold for every node of a
 * deformed grain. That the narrow phase finds the same hits with them is
 * test_narrowphase.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../support/law_states.h"
#include "ldem/modes.h"
#include "ldem/sim/node_clusters.h"
#include "world_fixture.h"

/* A level-set sphere's nodes (radius 1, h 0.05) in a fresh world, and their clusters. */
static const ldem_nodes *sphere_clusters(ldem_world *w, ldem_node_clusters *c)
{
    wf_world(w, LDEM_LAW_LINEAR);
    uint32_t shape = wf_add_ls_sphere_shape(w, 1.0, 0.05, 3);
    const ldem_nodes *nd = &w->shapes[shape].nodes;
    ldem_err err;
    cr_assert_eq(ldem_node_clusters_build(nd, c, &err), LDEM_OK, "%s", err.msg);
    return nd;
}

/* Every node in exactly one cluster, within its radius; clusters small. */
Test(node_clusters, clusters_partition_the_nodes)
{
    ldem_world w;
    ldem_node_clusters c;
    const ldem_nodes *nd = sphere_clusters(&w, &c);
    unsigned char *seen = calloc(nd->count, 1);
    size_t members = 0;
    double mean_radius = 0.0;
    for (size_t k = 0; k < c.count; k++) {
        const ldem_node_cluster *cl = &c.cluster[k];
        cr_assert(cl->count >= 1 && cl->count <= LDEM_NODE_CLUSTER_SIZE);
        cr_assert_eq(cl->first, members, "clusters are consecutive in the order");
        for (uint32_t j = cl->first; j < cl->first + cl->count; j++) {
            uint32_t n = c.order[j];
            cr_assert_lt(n, nd->count);
            cr_assert_eq(seen[n], 0, "node %u in two clusters", n);
            seen[n] = 1;
            ldem_vec3 p = ldem_vec3_make(nd->position[3 * n], nd->position[3 * n + 1],
                                         nd->position[3 * n + 2]);
            cr_assert_leq(ldem_vec3_dist(p, cl->centre), cl->radius);
        }
        members += cl->count;
        mean_radius += cl->radius / (double)c.count;
    }
    cr_assert_eq(members, nd->count);
    /* compact: a disc holding a cluster's share of the sphere's area has radius
     * sqrt(4 R² m / n) for m nodes of n; median splits stay within twice that */
    double disc = sqrt(4.0 / (double)c.count);
    cr_assert_lt(mean_radius, 2.0 * disc, "mean cluster radius %g, disc %g", mean_radius, disc);
    cr_log_info("clusters: %zu nodes in %zu clusters, mean radius %.3f", members, c.count,
                mean_radius);
    free(seen);
    ldem_node_clusters_free(&c);
    ldem_world_free(&w);
}

/* The node tree (guard of its structure): pre-order with skip indices, every entry's
 * sphere holding its nodes, children splitting their parent's nodes, leaves of at most
 * LDEM_NODE_TREE_LEAF nodes covering the order once, in order, each inside the cluster it
 * names, and every cluster an entry of the tree. */
Test(node_clusters, tree_holds_every_node_once)
{
    ldem_world w;
    ldem_node_clusters c;
    const ldem_nodes *nd = sphere_clusters(&w, &c);
    cr_assert(c.tree && c.tree_count > 0);
    cr_assert_eq(c.tree[0].first, 0u);
    cr_assert_eq(c.tree[0].count, nd->count);
    cr_assert_eq(c.tree[0].skip, c.tree_count);
    uint64_t covered = 0;
    size_t leaves = 0, clusters_seen = 0;
    for (size_t e = 0; e < c.tree_count; e++) {
        const ldem_node_tree_entry *t = &c.tree[e];
        cr_assert(t->skip > e && t->skip <= c.tree_count);
        for (uint32_t j = t->first; j < t->first + t->count; j++) {
            uint32_t n = c.order[j];
            ldem_vec3 p = ldem_vec3_make(nd->position[3 * n], nd->position[3 * n + 1],
                                         nd->position[3 * n + 2]);
            cr_assert_leq(ldem_vec3_dist(p, t->centre), t->radius, "entry %zu", e);
        }
        if (t->cluster != LDEM_NODE_NO_CLUSTER) {
            const ldem_node_cluster *k = &c.cluster[t->cluster];
            cr_assert(t->first >= k->first && t->first + t->count <= k->first + k->count);
            if (t->first == k->first && t->count == k->count)
                clusters_seen++;
        } else {
            cr_assert_gt(t->count, LDEM_NODE_CLUSTER_SIZE);
        }
        if (t->skip == e + 1) {
            cr_assert(t->count >= 1 && t->count <= LDEM_NODE_TREE_LEAF);
            cr_assert_neq(t->cluster, LDEM_NODE_NO_CLUSTER);
            cr_assert_eq(t->first, covered, "leaves in order");
            covered += t->count;
            leaves++;
        } else {
            /* two children: the first right after, the second at its skip */
            const ldem_node_tree_entry *l = &c.tree[e + 1], *r = &c.tree[l->skip];
            cr_assert_lt(l->skip, t->skip);
            cr_assert_eq(r->skip, t->skip);
            cr_assert_eq(l->first, t->first);
            cr_assert_eq(r->first, t->first + l->count);
            cr_assert_eq(l->count + r->count, t->count);
        }
    }
    cr_assert_eq(covered, nd->count);
    cr_assert_eq(clusters_seen, c.count);
    cr_log_info("tree: %zu entries, %zu leaves over %llu nodes, %zu clusters", c.tree_count,
                leaves, (unsigned long long)nd->count, c.count);
    ldem_node_clusters_free(&c);
    ldem_world_free(&w);
}

static ldem_vec3 node_at_of(const ldem_nodes *n, uint64_t k)
{
    return ldem_vec3_make(n->position[3 * k], n->position[3 * k + 1], n->position[3 * k + 2]);
}

static ldem_vec3 apply_rows(const double A[3][3], ldem_vec3 x)
{
    return ldem_vec3_make(A[0][0] * x.x + A[0][1] * x.y + A[0][2] * x.z,
                          A[1][0] * x.x + A[1][1] * x.y + A[1][2] * x.z,
                          A[2][0] * x.x + A[2][1] * x.y + A[2][2] * x.z);
}

/* The clusters' bounds of a deformed grain (ldem_node_clusters_slack, _deformed_reach)
 * hold for every node, and the reach is tight where the old bound, node reach + Σ|ε| max|Φ|,
 * was not: a uniform compaction (Φ = −x) moves every node inwards, so the deformed grain
 * reaches no farther than the undeformed one. */
Test(node_clusters, cluster_bounds_of_a_deformed_grain)
{
    const double compaction[3][3] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    const double squash[3][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {0, 0, -1}};
    const double shear[3][3] = {{0, 0.3, 0}, {0.3, 0, 0}, {0, 0, 0.1}};
    const double (*modes[3])[3] = {compaction, squash, shear};
    const double amplitudes[] = {0.1, -0.05, 0.02, 0.0};
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    uint32_t s = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    const ldem_nodes *nd = &w.shapes[s].nodes;
    ldem_err err;
    for (int m = 0; m < 3; m++) {
        wf_give_affine_mode(&w, s, modes[m], 1.0, 1.0, NULL);
        ldem_node_clusters c;
        cr_assert_eq(ldem_node_clusters_build(nd, &c, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_node_clusters_attach_modes(&c, w.shapes[s].modes, &err), LDEM_OK);
        double *slack = malloc(c.count * sizeof *slack);
        cr_assert(slack);
        for (size_t e = 0; e < sizeof amplitudes / sizeof amplitudes[0]; e++) {
            const double eps = amplitudes[e];
            double reach = ldem_node_clusters_deformed_reach(&c, &eps, slack), most = 0.0;
            for (size_t k = 0; k < c.count; k++) {
                const ldem_node_cluster *cl = &c.cluster[k];
                cr_assert_eq(slack[k], ldem_node_clusters_slack(&c, k, &eps));
                for (uint32_t j = cl->first; j < cl->first + cl->count; j++) {
                    ldem_vec3 x = node_at_of(nd, c.order[j]);
                    ldem_vec3 u = ldem_vec3_scale(apply_rows(modes[m], x), eps);
                    cr_assert_leq(ldem_vec3_norm(u), slack[k], "mode %d eps %g cluster %zu", m,
                                  eps, k);
                    most = fmax(most, ldem_vec3_norm(ldem_vec3_add(x, u)));
                }
            }
            cr_assert_geq(reach, most, "mode %d eps %g: reach %.17g below a node at %.17g", m,
                          eps, reach, most);
            cr_log_info("mode %d eps %+g: deformed reach %.6f, nodes %.6f, old bound %.6f", m,
                        eps, reach, most,
                        c.node_reach + fabs(eps) * w.shapes[s].modes->node_max[0]);
            if (m == 0 && eps > 0.0)
                cr_assert_leq(reach, c.node_reach * (1.0 + 1e-9),
                              "compaction: reach %.17g beyond the undeformed %.17g", reach,
                              c.node_reach);
            /* tight to the spread of x̂·Φ over a cluster (about 0.1 across here) */
            cr_assert_leq(reach - most, 0.05 * fabs(eps) + 1e-9, "mode %d eps %g: reach %.6f, "
                          "nodes %.6f", m, eps, reach, most);
        }
        free(slack);
        ldem_node_clusters_free(&c);
    }
    ldem_world_free(&w);
}
