/* node_clusters.c — surface nodes grouped by recursive median splits, kept as a tree
 * (ldem/sim/node_clusters.h). */
#include "ldem/sim/node_clusters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/modes.h"

static double coord(const ldem_nodes *n, uint32_t k, int axis)
{
    return n->position[3 * (size_t)k + (size_t)axis];
}

/* Put the element of rank `want` of idx[0..count) (by coordinate `axis`) at idx[want],
 * smaller ones before it and larger ones after (Hoare's selection, middle pivot: the
 * lattice order of lsgen's nodes is nearly sorted, which a first-element pivot hates). */
static void select_rank(const ldem_nodes *n, uint32_t *idx, size_t count, size_t want,
                        int axis)
{
    size_t lo = 0, hi = count - 1;
    while (lo < hi) {
        double pivot = coord(n, idx[lo + (hi - lo) / 2], axis);
        size_t i = lo, j = hi;
        while (i <= j) {
            while (coord(n, idx[i], axis) < pivot)
                i++;
            while (coord(n, idx[j], axis) > pivot)
                j--;
            if (i <= j) {
                uint32_t t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            return;
    }
}

static void bounds(const ldem_nodes *n, const uint32_t *idx, size_t count, double lo[3],
                   double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t j = 0; j < count; j++)
        for (int a = 0; a < 3; a++) {
            double v = coord(n, idx[j], a);
            lo[a] = fmin(lo[a], v);
            hi[a] = fmax(hi[a], v);
        }
}

/* The sphere about the box centre of idx[0..count) holding them all, a hair larger: the
 * tests compare in other frames. */
static void bounding_sphere(const ldem_nodes *n, const uint32_t *idx, uint32_t count,
                            const double lo[3], const double hi[3], ldem_vec3 *centre,
                            double *radius)
{
    *centre = ldem_vec3_make(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    double r2 = 0.0;
    for (uint32_t j = 0; j < count; j++) {
        ldem_vec3 p = ldem_vec3_make(coord(n, idx[j], 0), coord(n, idx[j], 1), coord(n, idx[j], 2));
        r2 = fmax(r2, ldem_vec3_norm2(ldem_vec3_sub(p, *centre)));
    }
    *radius = sqrt(r2) * (1.0 + 1e-12) + 1e-300;
}

/* Split idx[0..count) (starting at `first` in the order), recording each split as a tree
 * entry: the first range of at most LDEM_NODE_CLUSTER_SIZE nodes on the way down becomes a
 * cluster, and the splits go on inside it down to LDEM_NODE_TREE_LEAF nodes. */
static void split(const ldem_nodes *n, uint32_t *order, uint32_t first, uint32_t count,
                  uint32_t cluster, ldem_node_clusters *c)
{
    uint32_t *idx = order + first;
    double lo[3], hi[3];
    bounds(n, idx, count, lo, hi);
    size_t at = c->tree_count++; /* the recursion below appends: keep the index */
    ldem_node_tree_entry *e = &c->tree[at];
    bounding_sphere(n, idx, count, lo, hi, &e->centre, &e->radius);
    e->first = first;
    e->count = count;
    if (cluster == LDEM_NODE_NO_CLUSTER && count <= LDEM_NODE_CLUSTER_SIZE) {
        cluster = (uint32_t)c->count;
        c->cluster[c->count++] =
            (ldem_node_cluster){.centre = e->centre, .radius = e->radius, .first = first,
                                .count = count};
    }
    e->cluster = cluster;
    if (count <= LDEM_NODE_TREE_LEAF) {
        e->skip = (uint32_t)c->tree_count;
        return;
    }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (hi[a] - lo[a] > hi[axis] - lo[axis])
            axis = a;
    uint32_t half = count / 2;
    select_rank(n, idx, count, half, axis);
    split(n, order, first, half, cluster, c);
    split(n, order, first + half, count - half, cluster, c);
    c->tree[at].skip = (uint32_t)c->tree_count;
}

int ldem_node_clusters_build(const ldem_nodes *nodes, ldem_node_clusters *out, ldem_err *err)
{
    *out = (ldem_node_clusters){0};
    if (nodes->count > UINT32_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "%llu surface nodes: node clusters hold at most 4294967295",
                            (unsigned long long)nodes->count);
    uint32_t count = (uint32_t)nodes->count;
    /* Halving until ≤ SIZE gives fewer than 2 count / SIZE + 1 clusters, and a binary
     * tree over fewer than 2 count / LEAF + 1 leaves fewer than twice as many entries. */
    size_t most = 2 * (size_t)count / LDEM_NODE_CLUSTER_SIZE + 2;
    size_t entries = 4 * (size_t)count / LDEM_NODE_TREE_LEAF + 4;
    out->order = malloc((count ? count : 1) * sizeof *out->order);
    out->cluster = malloc(most * sizeof *out->cluster);
    out->tree = malloc(entries * sizeof *out->tree);
    out->position = malloc(3 * (count ? count : 1) * sizeof *out->position);
    if (!out->order || !out->cluster || !out->tree || !out->position) {
        ldem_node_clusters_free(out);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for node clusters");
    }
    for (uint32_t k = 0; k < count; k++)
        out->order[k] = k;
    if (count)
        split(nodes, out->order, 0, count, LDEM_NODE_NO_CLUSTER, out);
    for (uint32_t j = 0; j < count; j++)
        memcpy(out->position + 3 * (size_t)j, nodes->position + 3 * (size_t)out->order[j],
               3 * sizeof *out->position);
    return LDEM_OK;
}

/* Cluster i's bounds from its nodes' positions and mode values v (n modes, 3 values each):
 * max |Φα|, min/max of x̂·Φα, min/max |x|. */
static void cluster_mode_bounds(const ldem_node_clusters *c, size_t i, const double *v,
                                uint32_t n, double *most, double *rlo, double *rhi, double *nlo,
                                double *nhi)
{
    nlo[i] = INFINITY;
    nhi[i] = 0.0;
    for (uint32_t a = 0; a < n; a++) {
        most[i * n + a] = 0.0;
        rlo[i * n + a] = INFINITY;
        rhi[i * n + a] = -INFINITY;
    }
    for (uint32_t j = c->cluster[i].first; j < c->cluster[i].first + c->cluster[i].count; j++) {
        const double *x = c->position + 3 * (size_t)j;
        double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        nlo[i] = fmin(nlo[i], r);
        nhi[i] = fmax(nhi[i], r);
        for (uint32_t a = 0; a < n; a++) {
            const double *phi = v + (j * (size_t)n + a) * 3;
            double len = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
            double radial = r > 0.0 ? (x[0] * phi[0] + x[1] * phi[1] + x[2] * phi[2]) / r : 0.0;
            most[i * n + a] = fmax(most[i * n + a], len);
            rlo[i * n + a] = fmin(rlo[i * n + a], radial);
            rhi[i * n + a] = fmax(rhi[i * n + a], radial);
        }
    }
}

static void free_mode_tables(ldem_node_clusters *c)
{
    free(c->mode_values);
    free(c->mode_max);
    free(c->radial_lo);
    free(c->radial_hi);
    free(c->r_lo);
    free(c->r_hi);
}

int ldem_node_clusters_attach_modes(ldem_node_clusters *c, const ldem_modeset *m, ldem_err *err)
{
    size_t count = 0;
    for (size_t i = 0; i < c->count; i++)
        count += c->cluster[i].count;
    if (m->nnodes != count)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "modes for %llu nodes attached to clusters of %zu",
                            (unsigned long long)m->nnodes, count);
    size_t per = 3 * (size_t)m->n;
    size_t clusters = c->count ? c->count : 1, cells = clusters * m->n;
    ldem_node_clusters t = {
        .mode_values = malloc((count ? count : 1) * per * sizeof *t.mode_values),
        .mode_max = malloc(cells * sizeof *t.mode_max),
        .radial_lo = malloc(cells * sizeof *t.radial_lo),
        .radial_hi = malloc(cells * sizeof *t.radial_hi),
        .r_lo = malloc(clusters * sizeof *t.r_lo),
        .r_hi = malloc(clusters * sizeof *t.r_hi)};
    if (!t.mode_values || !t.mode_max || !t.radial_lo || !t.radial_hi || !t.r_lo || !t.r_hi) {
        free_mode_tables(&t);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for node clusters");
    }
    for (size_t j = 0; j < count; j++)
        memcpy(t.mode_values + j * per, ldem_modes_node_value(m, 0, c->order[j]),
               per * sizeof *t.mode_values);
    double reach = 0.0;
    for (size_t i = 0; i < c->count; i++) {
        cluster_mode_bounds(c, i, t.mode_values, m->n, t.mode_max, t.radial_lo, t.radial_hi,
                            t.r_lo, t.r_hi);
        reach = fmax(reach, t.r_hi[i]);
    }
    free_mode_tables(c);
    c->mode_values = t.mode_values;
    c->mode_max = t.mode_max;
    c->radial_lo = t.radial_lo;
    c->radial_hi = t.radial_hi;
    c->r_lo = t.r_lo;
    c->r_hi = t.r_hi;
    c->node_reach = reach;
    c->nmodes = m->n;
    return LDEM_OK;
}

/* Inlined into the per-step loop over every cluster below; the same operations in the same
 * order wherever it runs, so the narrow phase's own evaluation gives the same bits. */
static inline double cluster_slack(const ldem_node_clusters *k, size_t c, const double *eps)
{
    double s = 0.0;
    for (uint32_t a = 0; a < k->nmodes; a++)
        s += fabs(eps[a]) * k->mode_max[c * k->nmodes + a];
    return s * (1.0 + 1e-12);
}

double ldem_node_clusters_slack(const ldem_node_clusters *k, size_t c, const double *eps)
{
    return cluster_slack(k, c, eps);
}

double ldem_node_clusters_deformed_reach(const ldem_node_clusters *k, const double *eps,
                                         double *slack)
{
    double reach2 = 0.0;
    for (size_t c = 0; c < k->count; c++) {
        double m = cluster_slack(k, c, eps), s = 0.0;
        if (slack)
            slack[c] = m;
        for (uint32_t a = 0; a < k->nmodes; a++) {
            double lo = eps[a] * k->radial_lo[c * k->nmodes + a];
            double hi = eps[a] * k->radial_hi[c * k->nmodes + a];
            s += lo > hi ? lo : hi;
        }
        /* x̂·u ≤ |u|: the slack may be the tighter of the two (plain comparisons: this runs
         * for every cluster of every deformable grain each step) */
        s = s < m ? s : m;
        /* r² + 2 r s is convex in r: its largest value over [r_lo, r_hi] is at an end */
        double lo = k->r_lo[c], hi = k->r_hi[c];
        double q_lo = lo * lo + 2.0 * lo * s, q_hi = hi * hi + 2.0 * hi * s;
        double q = (q_lo > q_hi ? q_lo : q_hi) + m * m;
        reach2 = q > reach2 ? q : reach2;
    }
    /* a hair more: the callers compare distances computed in other frames */
    return sqrt(reach2) * (1.0 + 1e-12);
}

void ldem_node_clusters_free(ldem_node_clusters *c)
{
    free(c->order);
    free(c->cluster);
    free(c->tree);
    free(c->position);
    free_mode_tables(c);
    *c = (ldem_node_clusters){0};
}
