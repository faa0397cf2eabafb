/* node_clusters.c — surface nodes grouped by recursive median splits (ldem/sim/node_clusters.h). */
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

/* Split idx[0..count) (starting at `first` in the order) until clusters are small enough. */
static void split(const ldem_nodes *n, uint32_t *order, uint32_t first, uint32_t count,
                  ldem_node_clusters *c)
{
    uint32_t *idx = order + first;
    double lo[3], hi[3];
    bounds(n, idx, count, lo, hi);
    if (count <= LDEM_NODE_CLUSTER_SIZE) {
        ldem_node_cluster *k = &c->cluster[c->count++];
        k->centre = ldem_vec3_make(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]),
                                   0.5 * (lo[2] + hi[2]));
        double r2 = 0.0;
        for (uint32_t j = 0; j < count; j++) {
            ldem_vec3 p = ldem_vec3_make(coord(n, idx[j], 0), coord(n, idx[j], 1),
                                         coord(n, idx[j], 2));
            r2 = fmax(r2, ldem_vec3_norm2(ldem_vec3_sub(p, k->centre)));
        }
        /* A hair more than the largest distance: the tests compare in other frames. */
        k->radius = sqrt(r2) * (1.0 + 1e-12) + 1e-300;
        k->first = first;
        k->count = count;
        return;
    }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (hi[a] - lo[a] > hi[axis] - lo[axis])
            axis = a;
    uint32_t half = count / 2;
    select_rank(n, idx, count, half, axis);
    split(n, order, first, half, c);
    split(n, order, first + half, count - half, c);
}

int ldem_node_clusters_build(const ldem_nodes *nodes, ldem_node_clusters *out, ldem_err *err)
{
    *out = (ldem_node_clusters){0};
    if (nodes->count > UINT32_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "%llu surface nodes: node clusters hold at most 4294967295",
                            (unsigned long long)nodes->count);
    uint32_t count = (uint32_t)nodes->count;
    /* Halving until ≤ SIZE gives fewer than 2 count / SIZE + 1 clusters. */
    size_t most = 2 * (size_t)count / LDEM_NODE_CLUSTER_SIZE + 2;
    out->order = malloc((count ? count : 1) * sizeof *out->order);
    out->cluster = malloc(most * sizeof *out->cluster);
    out->position = malloc(3 * (count ? count : 1) * sizeof *out->position);
    if (!out->order || !out->cluster || !out->position) {
        ldem_node_clusters_free(out);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for node clusters");
    }
    for (uint32_t k = 0; k < count; k++)
        out->order[k] = k;
    if (count)
        split(nodes, out->order, 0, count, out);
    for (uint32_t j = 0; j < count; j++)
        memcpy(out->position + 3 * (size_t)j, nodes->position + 3 * (size_t)out->order[j],
               3 * sizeof *out->position);
    return LDEM_OK;
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
    double *v = malloc((count ? count : 1) * per * sizeof *v);
    if (!v)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for node clusters");
    for (size_t j = 0; j < count; j++)
        memcpy(v + j * per, ldem_modes_node_value(m, 0, c->order[j]), per * sizeof *v);
    double *most = calloc((c->count ? c->count : 1) * m->n, sizeof *most);
    if (!most) {
        free(v);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for node clusters");
    }
    for (size_t i = 0; i < c->count; i++)
        for (uint32_t j = c->cluster[i].first; j < c->cluster[i].first + c->cluster[i].count; j++)
            for (uint32_t a = 0; a < m->n; a++) {
                const double *phi = v + j * per + 3 * a;
                double len = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
                most[i * m->n + a] = fmax(most[i * m->n + a], len);
            }
    free(c->mode_values);
    free(c->mode_max);
    c->mode_values = v;
    c->mode_max = most;
    c->nmodes = m->n;
    return LDEM_OK;
}

void ldem_node_clusters_free(ldem_node_clusters *c)
{
    free(c->order);
    free(c->cluster);
    free(c->position);
    free(c->mode_values);
    free(c->mode_max);
    *c = (ldem_node_clusters){0};
}
