/* narrowphase_ls.c — level-set grains: penetrating surface nodes (against another grain, an
 * analytic sphere or a wall) and their aggregation into one Hertz contact patch
 * (ldem/sim/narrowphase.h; the choices are argued in docs/contact-patch.md). */
#include "ldem/sim/narrowphase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/sim/node_clusters.h"
#include "ldem/sim/world.h"

static const double PI = 3.14159265358979323846;

/* Node indices share the hit key with the side bit. */
#define MAX_NODES 0x7fffffffu
#define SIDE_BIT 0x80000000u

/* The radii of curvature a patch uses are kept within [CURV_MIN, CURV_MAX] × the grain's
 * bounding radius: a flat face has ∇²φ ≈ 0 (infinite radius) and a sharp edge a huge ∇²φ,
 * and neither may make R* zero or infinite. */
#define CURV_MIN 0.01
#define CURV_MAX 100.0

static int check_node_count(const ldem_nodes *n, ldem_err *err)
{
    if (n->count > MAX_NODES)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "a level-set grain has %llu surface nodes; contact supports at "
                            "most 2147483647",
                            (unsigned long long)n->count);
    return LDEM_OK;
}

/* Largest distance from the body origin to a corner of the grid box: no point farther away
 * can be inside the grid. */
static double grid_half_diagonal(const ldem_lset *ls)
{
    double s = 0.0;
    for (int a = 0; a < 3; a++) {
        double lo = ls->origin[a], hi = lo + (ls->dims[a] - 1) * ls->spacing[a];
        double m = fmax(fabs(lo), fabs(hi));
        s += m * m;
    }
    return sqrt(s);
}

static double cell_diagonal(const ldem_lset *ls)
{
    return sqrt(ls->spacing[0] * ls->spacing[0] + ls->spacing[1] * ls->spacing[1] +
                ls->spacing[2] * ls->spacing[2]);
}

/* Beyond this distance from g's centre no point has trilinear φ < 0. A point with φ < 0
 * lies in a grid cell with a negative corner, within one cell diagonal of the zero set's
 * bounding sphere, so that margin makes the given bounding radius a safe bound. */
static double inside_reach(const ldem_ls_grain *g)
{
    double grid = grid_half_diagonal(g->lset);
    if (!(g->radius > 0.0))
        return grid;
    return fmin(grid, g->radius + cell_diagonal(g->lset));
}

/* The grain's size for the curvature cap (and the scale of rounding margins). */
static double size_of(const ldem_ls_grain *g)
{
    if (g->size > 0.0)
        return g->size;
    return g->radius > 0.0 ? g->radius : grid_half_diagonal(g->lset);
}

/* Append one hit (the list grows geometrically through ldem_hits_reserve). */
static int push_hit(ldem_hits *h, uint32_t key, double depth, double area, ldem_vec3 point,
                    ldem_vec3 normal, ldem_err *err)
{
    if (h->count == h->capacity) {
        int rc = ldem_hits_reserve(h, h->count + 1, err);
        if (rc)
            return rc;
    }
    h->hit[h->count++] = (ldem_node_hit){key, depth, area, point, normal};
    return LDEM_OK;
}

static ldem_vec3 node_at(const double *pos, uint64_t k)
{
    return ldem_vec3_make(pos[3 * k], pos[3 * k + 1], pos[3 * k + 2]);
}

/* Nodes deformed on demand: their reference position is within g->slack of the deformed
 * one, so a test against the reference position widened by the slack rejects most nodes
 * before the deformation is computed. */
static int deforms_on_demand(const ldem_ls_grain *g)
{
    return !g->position && g->modes && g->eps;
}

/* Body-frame position of node k, the j-th of the visiting order (j == k without clusters):
 * given positions, or deformed on demand from ε (only the nodes a contact visits are ever
 * deformed), or the shape's own; read from the clusters' copies in visiting order when
 * they are there (the same values, so the same bits). */
static inline ldem_vec3 grain_node(const ldem_ls_grain *g, uint64_t j, uint64_t k)
{
    const ldem_node_clusters *c = g->clusters;
    if (g->position)
        return node_at(g->position, k);
    if (g->modes && g->eps) {
        uint32_t n = g->modes->n;
        if (c && c->mode_values && c->nmodes == n)
            return ldem_modes_deform_point(c->position + 3 * j, c->mode_values + 3 * n * j,
                                           g->eps, n);
        return ldem_modes_deformed_node(g->modes, g->eps, g->nodes->position, k);
    }
    return c ? node_at(c->position, j) : node_at(g->nodes->position, k);
}

/* Reference (undeformed) position of the same node. */
static inline ldem_vec3 reference_node(const ldem_ls_grain *g, uint64_t j, uint64_t k)
{
    return g->clusters ? node_at(g->clusters->position, j) : node_at(g->nodes->position, k);
}

/* ---- visiting the nodes cluster by cluster ----
 * Without clusters a grain is one group holding every node in index order. A group is
 * skipped when its bounding sphere (body frame, grown by the grain's slack) cannot reach
 * the other body; the survivors' hits are sorted by key afterwards, so the hit list, and
 * everything computed from it, is the same as a loop over all nodes in index order. */

static size_t groups_of(const ldem_ls_grain *g)
{
    return g->clusters ? g->clusters->count : 1;
}

/* How far group c's nodes moved from their reference positions: the grain's slack, or
 * less, Σα |εα| max|Φα| over the cluster, when the clusters know their modes (near a pole
 * of one mode the others move the nodes little). */
static double computed_group_slack(const ldem_ls_grain *g, size_t c)
{
    const ldem_node_clusters *k = g->clusters;
    if (!k || !k->mode_max || !g->modes || g->position || k->nmodes != g->modes->n)
        return g->slack;
    double s = ldem_node_clusters_slack(k, c, g->eps);
    return s < g->slack ? s : g->slack;
}

/* The same, inlined for the loops over every group: the step's per-cluster values when
 * the caller has them, the grain's own (0) when it is rigid. */
static inline double group_slack(const ldem_ls_grain *g, size_t c)
{
    if (g->group_slack && g->clusters) /* per cluster: without clusters c is the one group */
        return g->group_slack[c];
    if (!g->eps)
        return g->slack;
    return computed_group_slack(g, c);
}

/* Body-frame bounding sphere of group c, grown by its slack; 0 when there is none (no
 * clusters). */
static int group_sphere(const ldem_ls_grain *g, size_t c, double slack, ldem_vec3 *centre,
                        double *radius)
{
    if (!g->clusters)
        return 0;
    const ldem_node_cluster *k = &g->clusters->cluster[c];
    *centre = k->centre;
    *radius = k->radius + slack;
    return 1;
}

static uint64_t group_first(const ldem_ls_grain *g, size_t c)
{
    return g->clusters ? g->clusters->cluster[c].first : 0;
}

static uint64_t group_end(const ldem_ls_grain *g, size_t c)
{
    return g->clusters ? (uint64_t)g->clusters->cluster[c].first + g->clusters->cluster[c].count
                       : g->nodes->count;
}

static uint64_t group_node(const ldem_ls_grain *g, uint64_t j)
{
    return g->clusters ? g->clusters->order[j] : j;
}

static int by_key(const void *a, const void *b)
{
    uint32_t ka = ((const ldem_node_hit *)a)->key, kb = ((const ldem_node_hit *)b)->key;
    return (ka > kb) - (ka < kb);
}

/* Hits from `first` on in node order (keys are unique within one node loop). */
static void sort_hits(ldem_hits *h, size_t first, const ldem_ls_grain *g)
{
    if (g->clusters && h->count - first > 1)
        qsort(h->hit + first, h->count - first, sizeof *h->hit, by_key);
}

/* Whether something may touch a node within `radius` of body-frame point `centre`. */
typedef int (*group_test)(const void *ctx, ldem_vec3 centre, double radius);

/* A run of nodes to visit: order positions [first, end) and how far they may have moved. */
typedef struct node_run {
    uint64_t first, end;
    double slack;
} node_run;

/* The next run of g's nodes to visit from walk position *at (0 to start); 0 when none is
 * left. With the clusters' tree, the next leaf whose sphere and every ancestor's, grown by
 * the slack (its cluster's, or above the clusters the grain's own, which bounds every
 * cluster's), pass `test`. Otherwise the next cluster whose sphere passes, or the one run
 * of every node without clusters. */
static int next_run(const ldem_ls_grain *g, size_t *at, group_test test, const void *ctx,
                    node_run *run)
{
    const ldem_node_clusters *k = g->clusters;
    if (k && k->tree) {
        while (*at < k->tree_count) {
            const ldem_node_tree_entry *e = &k->tree[*at];
            run->slack = e->cluster == LDEM_NODE_NO_CLUSTER ? g->slack : group_slack(g, e->cluster);
            if (!test(ctx, e->centre, e->radius + run->slack)) {
                *at = e->skip;
                continue;
            }
            *at += 1;
            if (e->skip == *at) { /* a leaf */
                run->first = e->first;
                run->end = (uint64_t)e->first + e->count;
                return 1;
            }
        }
        return 0;
    }
    while (*at < groups_of(g)) {
        size_t c = (*at)++;
        ldem_vec3 gc;
        double gr;
        run->slack = group_slack(g, c);
        run->first = group_first(g, c);
        run->end = group_end(g, c);
        if (!group_sphere(g, c, run->slack, &gc, &gr) || test(ctx, gc, gr))
            return 1;
    }
    return 0;
}

/* φ and body-frame ∇φ of grain g at body-frame point p: the stored grid for a rigid grain;
 * for a deformable one the precomputed level sets, or the on-demand remap (§3.1.3). */
static int grain_sample(const ldem_ls_grain *g, ldem_vec3 p, double *phi, ldem_vec3 *grad)
{
    if (!g->modes || !g->eps)
        return ldem_lset_sample(g->lset, p, phi, grad);
    if (g->family)
        return ldem_lset_family_sample(g->family, g->lset, g->eps, p, phi, grad);
    return ldem_levelset_sample_remap(g->lset, g->modes, g->eps, p, phi, grad);
}

/* R v, inlined: the node loops are the hot path of level-set contact. */
static inline ldem_vec3 apply(const ldem_mat3 *r, ldem_vec3 v)
{
    return ldem_vec3_make(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                          r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                          r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}

/* The remap filter of a deformed `into`: a node whose rigid φ0 is so high that the remap
 * cannot bring it below zero is not inside the deformed grain, and the rigid query costs a
 * fraction of the remap (which must also evaluate the modes). Two bounds, the cheaper
 * first: the grain-wide Lipschitz reach (ldem_levelset_remap_reach_max), then the local
 * drop of the blocks holding p (ldem_levelset_remap_drop, sign-aware with the slopes),
 * cached per block pair (a call's nodes fall in a few dozen). The margins cover
 * rounding. */
#define FILTER_SLOTS 64 /* a power of two */

typedef struct remap_filter {
    const ldem_ls_grain *g;
    int on;
    int same_blocks; /* the MODE and the level set's block grids coincide (modefit samples the
                      * modes on the level set's grid): one block index serves both */
    double rounding, reach_max;
    struct {
        size_t mode_block, lset_block;
        double drop;
    } slot[FILTER_SLOTS];
} remap_filter;

static void remap_filter_init(remap_filter *f, const ldem_ls_grain *g)
{
    *f = (remap_filter){.g = g};
    for (int k = 0; k < FILTER_SLOTS; k++)
        f->slot[k].mode_block = f->slot[k].lset_block = SIZE_MAX;
    f->on = g->modes && g->eps && !g->family && g->slopes &&
            g->modes->field == LDEM_MODE_FIELD_GRID;
    if (!f->on)
        return;
    const ldem_modeset *m = g->modes;
    const ldem_lset_slopes *s = g->slopes;
    f->same_blocks = 1;
    for (int a = 0; a < 3; a++)
        f->same_blocks &= m->origin[a] == s->origin[a] && m->block_scale[a] == s->block_scale[a] &&
                          m->block_dims[a] == s->block_dims[a];
    f->rounding = 1e-9 * (1.0 + size_of(g));
    f->reach_max =
        ldem_levelset_remap_reach_max(g->modes, g->eps, g->slopes->lipschitz) * (1.0 + 1e-9) +
        f->rounding;
}

/* 1 when body-frame point p of f->g cannot be inside the deformed grain. */
static int remap_filter_skips(remap_filter *f, ldem_vec3 p)
{
    if (!f->on)
        return 0;
    const ldem_ls_grain *g = f->g;
    double phi0;
    ldem_lset_sample(g->lset, p, &phi0, NULL);
    if (phi0 > f->reach_max)
        return 1;
    size_t mb = ldem_modes_block_of(g->modes, p);
    size_t lb = f->same_blocks ? mb : ldem_lset_slopes_block(g->slopes, p);
    size_t k = (f->same_blocks ? mb : mb * 31u + lb) & (FILTER_SLOTS - 1);
    if (mb != f->slot[k].mode_block || lb != f->slot[k].lset_block) {
        f->slot[k].mode_block = mb;
        f->slot[k].lset_block = lb;
        double drop =
            ldem_levelset_remap_drop(g->slopes, g->slopes->lipschitz, g->modes, g->eps, lb, mb);
        f->slot[k].drop = drop + fabs(drop) * 1e-9 + f->rounding;
    }
    return phi0 > f->slot[k].drop;
}

/* The φ bound is tried on balls of at most this fraction of the other grain's reach: a
 * larger ball near the contact almost never clears, and its sample costs more than the
 * reach test it follows (bench/lscontact: 2k-node grains 10-20 % faster, 40k the same). */
#define PHI_TEST_RADIUS 0.25

/* What a node of `from` needs to be inside `into`, in `from`'s body frame. */
typedef struct pair_query {
    const ldem_ls_grain *into;
    ldem_vec3 centre;        /* into's centre */
    double reach;            /* no node farther from it is inside (inside_reach) */
    ldem_mat3 rel;           /* from's body frame to into's: p ↦ rel p + t_rel */
    ldem_vec3 t_rel;
    /* The φ bound over a ball (ldem_lset_ball_floor), when into's level set has band
     * slopes and is rigid or deformed by a grid field: a ball whose bound on φ0, over the
     * ball grown by `widen`, is above `floor_above` holds no node inside. NULL bands: the
     * reach alone decides. */
    const ldem_lset_band_slopes *bands;
    double floor_above;
    double widen; /* a deformed into: how far the pull back can move a point (below) */
    double phi_radius;    /* larger balls skip the φ bound (PHI_TEST_RADIUS) */
} pair_query;

/* A ball of from's body frame may hold a node inside `into`: within reach of its centre,
 * and (with bands) not wholly where φ0 keeps every node out. */
static int pair_may_reach(const void *ctx, ldem_vec3 centre, double radius)
{
    const pair_query *q = ctx;
    if (ldem_vec3_norm(ldem_vec3_sub(centre, q->centre)) >= q->reach + radius)
        return 0;
    if (!q->bands || radius > q->phi_radius)
        return 1;
    double phi;
    ldem_lset_sample(q->into->lset, ldem_vec3_add(apply(&q->rel, centre), q->t_rel), &phi, NULL);
    return !(ldem_lset_ball_floor(q->bands, phi, radius * (1.0 + 1e-9) + q->widen) >
             q->floor_above);
}

/* Nodes of `from` inside `into`, appended with `side`. `sign` turns ∇φ_into into the
 * normal from i to j: −1 when `from` is i (side 0), +1 when it is j (side 1). */
static int nodes_inside(const ldem_ls_grain *from, const ldem_ls_grain *into, uint32_t side,
                        double sign, ldem_hits *h, ldem_err *err)
{
    const ldem_nodes *nodes = from->nodes;
    /* The cheap rejection works in `from`'s body frame, where the nodes are stored: only
     * nodes within `reach` of `into`'s centre can be inside it, and most are not. */
    pair_query q = {.into = into,
                    .centre = ldem_quat_rotate_inv(from->q, ldem_vec3_sub(into->x, from->x)),
                    .reach = inside_reach(into)};
    double reach2 = q.reach * q.reach;
    /* The survivors take one rigid map into `into`'s body frame: p ↦ R_rel p + t_rel. */
    q.rel = ldem_quat_to_mat3(ldem_quat_mul(ldem_quat_conj(into->q), from->q));
    q.t_rel = ldem_quat_rotate_inv(into->q, ldem_vec3_sub(from->x, into->x));
    ldem_mat3 from_world = ldem_quat_to_mat3(from->q);
    ldem_mat3 into_world = ldem_quat_to_mat3(into->q);
    remap_filter filter;
    remap_filter_init(&filter, into);
    /* A node is a hit only where φ < 0. A deformed grain's φ is φ0 at the pulled-back point
     * p − u, u evaluated wherever the pull back went (any number of steps), and |u| is at
     * most U = Σα |εα| max|Φα| over the MODE grid: so φ over a ball of radius r is at least
     * φ0's bound over the ball of radius r + U (a grid field; analytic and precomputed
     * level sets leave the reach to decide). Rounding of the frames and of φ is covered
     * by a margin as in the remap filter. */
    double rounding = 1e-9 * (1.0 + size_of(into) + size_of(from));
    q.phi_radius = PHI_TEST_RADIUS * q.reach;
    if (into->band_slopes && (!into->modes || !into->eps)) {
        q.bands = into->band_slopes;
        q.floor_above = rounding;
    } else if (into->band_slopes && !into->family && into->modes->field == LDEM_MODE_FIELD_GRID) {
        double u = 0.0;
        for (uint32_t a = 0; a < into->modes->n; a++)
            u += fabs(into->eps[a]) * into->modes->field_max[a];
        if (isfinite(u)) {
            q.bands = into->band_slopes;
            q.floor_above = rounding;
            q.widen = u * (1.0 + 1e-9) + rounding;
        }
    }
    const int lazy = deforms_on_demand(from);
    size_t start = h->count;
    node_run run;
    for (size_t at = 0; next_run(from, &at, pair_may_reach, &q, &run);) {
        const double far = q.reach + run.slack * (1.0 + 1e-9) + 1e-9 * (1.0 + size_of(from));
        const double far2 = far * far;
        for (uint64_t j = run.first; j < run.end; j++) {
            uint64_t k = group_node(from, j);
            if (lazy) {
                ldem_vec3 r = reference_node(from, j, k);
                double rx = r.x - q.centre.x, ry = r.y - q.centre.y, rz = r.z - q.centre.z;
                if (rx * rx + ry * ry + rz * rz >= far2)
                    continue;
            }
            ldem_vec3 pk = grain_node(from, j, k);
            double dx = pk.x - q.centre.x, dy = pk.y - q.centre.y, dz = pk.z - q.centre.z;
            if (dx * dx + dy * dy + dz * dz >= reach2)
                continue;
            ldem_vec3 p = ldem_vec3_add(apply(&q.rel, pk), q.t_rel);
            double phi;
            ldem_vec3 grad;
            if (remap_filter_skips(&filter, p))
                continue;
            /* φ alone first: most nodes that get this far are still outside, and the
             * gradient (and for a deformed grain the modes' Jacobian) is wanted only for
             * the hits. φ is the same with or without it. */
            if (!grain_sample(into, p, &phi, NULL) || !(phi < 0.0))
                continue;
            grain_sample(into, p, &phi, &grad);
            ldem_vec3 n = ldem_vec3_normalize(apply(&into_world, grad));
            ldem_vec3 world = ldem_vec3_add(from->x, apply(&from_world, pk));
            int rc = push_hit(h, side | (uint32_t)k, -phi, nodes->area[k], world,
                              ldem_vec3_scale(n, sign), err);
            if (rc)
                return rc;
        }
    }
    sort_hits(h, start, from);
    return LDEM_OK;
}

int ldem_ls_pair_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, ldem_hits *h,
                      ldem_err *err)
{
    h->count = 0;
    int rc = check_node_count(a->nodes, err);
    if (!rc)
        rc = check_node_count(b->nodes, err);
    if (!rc)
        rc = nodes_inside(a, b, 0u, -1.0, h, err);
    if (!rc)
        rc = nodes_inside(b, a, SIDE_BIT, 1.0, h, err);
    return rc;
}

typedef struct sphere_query {
    ldem_vec3 centre; /* the sphere's, in the grain's body frame */
    double radius;
} sphere_query;

static int sphere_may_reach(const void *ctx, ldem_vec3 centre, double radius)
{
    const sphere_query *q = ctx;
    return !(ldem_vec3_norm(ldem_vec3_sub(centre, q->centre)) >= q->radius + radius);
}

int ldem_ls_sphere_hits(const ldem_ls_grain *a, ldem_vec3 centre, double radius, ldem_hits *h,
                        ldem_err *err)
{
    h->count = 0;
    int rc = check_node_count(a->nodes, err);
    if (rc)
        return rc;
    const ldem_nodes *nodes = a->nodes;
    ldem_mat3 to_world = ldem_quat_to_mat3(a->q);
    /* A node at the sphere's very centre has no direction to it; use the line of centres. */
    ldem_vec3 fallback = ldem_vec3_sub(centre, a->x);
    fallback = ldem_vec3_norm(fallback) > 0.0 ? ldem_vec3_normalize(fallback)
                                              : ldem_vec3_make(0.0, 0.0, 1.0);
    sphere_query q = {ldem_quat_rotate_inv(a->q, ldem_vec3_sub(centre, a->x)), radius};
    node_run run;
    for (size_t at = 0; next_run(a, &at, sphere_may_reach, &q, &run);) {
        for (uint64_t j = run.first; j < run.end; j++) {
            uint64_t k = group_node(a, j);
            ldem_vec3 p = ldem_vec3_add(a->x, apply(&to_world, grain_node(a, j, k)));
            ldem_vec3 d = ldem_vec3_sub(centre, p);
            double dist = ldem_vec3_norm(d);
            if (!(dist < radius))
                continue;
            ldem_vec3 n = dist > 0.0 ? ldem_vec3_scale(d, 1.0 / dist) : fallback;
            rc = push_hit(h, (uint32_t)k, radius - dist, nodes->area[k], p, n, err);
            if (rc)
                return rc;
        }
    }
    sort_hits(h, 0, a);
    return LDEM_OK;
}

/* Depth of world point p inside a wall (≤ 0: on the grains' side) and the normal from the
 * grain to the wall; both exact distances. */
static double wall_depth(const ldem_wall_geom *w, ldem_vec3 p, ldem_vec3 *normal)
{
    ldem_vec3 rel = ldem_vec3_sub(p, w->point);
    if (w->kind != LDEM_WALL_CYLINDER) {
        *normal = ldem_vec3_neg(w->normal);
        return -ldem_vec3_dot(rel, w->normal);
    }
    ldem_vec3 radial = ldem_vec3_reject(rel, w->normal);
    double rho = ldem_vec3_norm(radial);
    ldem_vec3 e = ldem_vec3_normalize(radial); /* zero on the axis: depth decides alone */
    if (w->inside) {
        *normal = e;
        return rho - w->radius;
    }
    *normal = ldem_vec3_neg(e);
    return w->radius - rho;
}

/* Depth alone (no normal), for the rejection tests. */
static inline double depth_only(const ldem_wall_geom *w, ldem_vec3 p)
{
    ldem_vec3 rel = ldem_vec3_sub(p, w->point);
    if (w->kind != LDEM_WALL_CYLINDER)
        return -ldem_vec3_dot(rel, w->normal);
    double rho = ldem_vec3_norm(ldem_vec3_reject(rel, w->normal));
    return w->inside ? rho - w->radius : w->radius - rho;
}

typedef struct wall_query {
    const ldem_wall_geom *body; /* the wall in the grain's body frame */
    double margin;
} wall_query;

/* The wall's depth is a distance (1-Lipschitz), so no node within `radius` of `centre` is
 * deeper than the centre's depth + radius. */
static int wall_may_reach(const void *ctx, ldem_vec3 centre, double radius)
{
    const wall_query *q = ctx;
    return depth_only(q->body, centre) + radius + q->margin > 0.0;
}

int ldem_ls_wall_hits(const ldem_ls_grain *a, const ldem_wall_geom *w, ldem_hits *h,
                      ldem_err *err)
{
    h->count = 0;
    int rc = check_node_count(a->nodes, err);
    if (rc)
        return rc;
    const ldem_nodes *nodes = a->nodes;
    ldem_mat3 to_world = ldem_quat_to_mat3(a->q);
    /* The rejections work in the grain's body frame, where the nodes are stored: the wall
     * is moved there once instead of every node to the world. A node passes when its
     * body-frame depth is within `margin` (rounding of the two frames) of positive; the
     * survivors' depth is then computed in the world as always, so the hits do not depend
     * on the rejection. */
    ldem_wall_geom body = *w;
    body.point = ldem_quat_rotate_inv(a->q, ldem_vec3_sub(w->point, a->x));
    body.normal = ldem_quat_rotate_inv(a->q, w->normal);
    double margin = 1e-9 * (1.0 + ldem_vec3_norm(a->x) + ldem_vec3_norm(w->point) +
                            size_of(a) + w->radius);
    const int lazy = deforms_on_demand(a);
    wall_query q = {&body, margin};
    node_run run;
    for (size_t at = 0; next_run(a, &at, wall_may_reach, &q, &run);) {
        const double widen = run.slack * (1.0 + 1e-9) + margin;
        for (uint64_t j = run.first; j < run.end; j++) {
            uint64_t k = group_node(a, j);
            if (lazy && !(depth_only(&body, reference_node(a, j, k)) + widen > 0.0))
                continue;
            ldem_vec3 pk = grain_node(a, j, k);
            if (!(depth_only(&body, pk) + margin > 0.0))
                continue;
            ldem_vec3 p = ldem_vec3_add(a->x, apply(&to_world, pk));
            ldem_vec3 n;
            double depth = wall_depth(w, p, &n);
            if (!(depth > 0.0))
                continue;
            /* A node exactly on a rod's axis is deep inside with no radial direction:
             * point the normal from the grain's centre instead. */
            if (ldem_vec3_norm2(n) == 0.0)
                n = ldem_vec3_normalize(
                    ldem_vec3_reject(ldem_vec3_sub(w->point, a->x), w->normal));
            rc = push_hit(h, (uint32_t)k, depth, nodes->area[k], p, n, err);
            if (rc)
                return rc;
        }
    }
    sort_hits(h, 0, a);
    return LDEM_OK;
}

/* ---- the patch ---- */

/* Mean-curvature radius of grain g near world point p: p is first projected onto g's zero
 * set along ∇φ (one Newton step), where 2/∇²φ is the surface's radius (inside the lens the
 * distance function's level sets are smaller: 2/∇²φ = R − |φ| for a sphere), then the
 * radius is capped to [CURV_MIN, CURV_MAX] × the grain's size. */
/* 2/∇²φ of a deformed grain at body-frame point p, the Laplacian by central differences
 * of the deformed φ over one grid spacing (as ldem_levelset_curvature_radius does for the
 * stored grid): a flattened contact face then gets its larger radius. */
static double deformed_curvature_radius(const ldem_ls_grain *g, ldem_vec3 p)
{
    /* φ alone (the same value as with the gradient, which the remap would pay for) */
    double phi0, lap = 0.0, h = g->lset->spacing[0], e[3] = {0.0, 0.0, 0.0};
    grain_sample(g, p, &phi0, NULL);
    for (int a = 0; a < 3; a++) {
        double hp, hm, step = g->lset->spacing[a];
        e[a] = step;
        grain_sample(g, ldem_vec3_make(p.x + e[0], p.y + e[1], p.z + e[2]), &hp, NULL);
        grain_sample(g, ldem_vec3_make(p.x - e[0], p.y - e[1], p.z - e[2]), &hm, NULL);
        e[a] = 0.0;
        lap += (hp - 2.0 * phi0 + hm) / (step * step);
    }
    return lap > 1e-9 / h ? 2.0 / lap : INFINITY;
}

static double curvature_radius_at(const ldem_ls_grain *g, ldem_vec3 p)
{
    ldem_vec3 pb = ldem_quat_rotate_inv(g->q, ldem_vec3_sub(p, g->x));
    double phi;
    ldem_vec3 grad;
    grain_sample(g, pb, &phi, &grad);
    double g2 = ldem_vec3_norm2(grad);
    if (g2 > 0.0)
        pb = ldem_vec3_axpy(-phi / g2, grad, pb);
    double r = g->modes && g->eps ? deformed_curvature_radius(g, pb)
                                  : ldem_levelset_curvature_radius(g->lset, pb);
    double size = size_of(g);
    return fmin(fmax(r, CURV_MIN * size), CURV_MAX * size);
}

/* R* of radii r1 (finite, > 0) and r2 (> 0, may be INFINITY). */
static double effective_radius(double r1, double r2)
{
    return isinf(r2) ? r1 : r1 * r2 / (r1 + r2);
}

/* Volume, normal and point of the hits (radii and overlap left to the caller). */
static void aggregate(const ldem_hits *h, int both_sides, ldem_patch *out)
{
    double w_side[2] = {0.0, 0.0};
    ldem_vec3 n_sum = ldem_vec3_zero(), p_sum = ldem_vec3_zero();
    ldem_vec3 n_plain = ldem_vec3_zero(), p_plain = ldem_vec3_zero();
    for (size_t k = 0; k < h->count; k++) {
        const ldem_node_hit *hit = &h->hit[k];
        uint32_t side = hit->key >> 31;
        double w = hit->depth * hit->area;
        /* The middle of the lens at this node: half its depth toward the other surface
         * (against the normal for i's nodes, which lie on the lens's j-side face, along it
         * for j's nodes). */
        double half = side ? 0.5 * hit->depth : -0.5 * hit->depth;
        ldem_vec3 mid = ldem_vec3_axpy(half, hit->normal, hit->point);
        w_side[side] += w;
        n_sum = ldem_vec3_axpy(w, hit->normal, n_sum);
        p_sum = ldem_vec3_axpy(w, mid, p_sum);
        n_plain = ldem_vec3_add(n_plain, hit->normal);
        p_plain = ldem_vec3_add(p_plain, mid);
    }
    double w_total = w_side[0] + w_side[1];
    /* Volume: both surfaces' quadratures of the lens, averaged, for a grain pair; against a
     * sphere or a wall only i has nodes and its sum alone is the lens. */
    out->volume = both_sides ? 0.5 * w_total : w_total;
    out->nnodes = (uint32_t)h->count;
    /* Zero area weights carry no information on where the patch is or how it faces; fall
     * back to plain means of the nodes rather than dividing by zero. */
    if (w_total > 0.0) {
        out->normal = ldem_vec3_normalize(n_sum);
        out->point = ldem_vec3_scale(p_sum, 1.0 / w_total);
    } else {
        out->normal = ldem_vec3_normalize(n_plain);
        out->point = ldem_vec3_scale(p_plain, 1.0 / (double)h->count);
    }
}

/* δ of two spheres of radii r1, r2 sharing the lens volume V = π R* δ². */
static void set_overlap(ldem_patch *out)
{
    out->overlap = sqrt(out->volume / (PI * effective_radius(out->r1, out->r2)));
}

void ldem_patch_from_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, double rb,
                          const ldem_hits *h, ldem_patch *out)
{
    memset(out, 0, sizeof *out);
    if (h->count == 0)
        return;
    aggregate(h, b != NULL, out);
    out->r1 = curvature_radius_at(a, out->point);
    /* A sphere's or wall's radius as given; 0, negative or NaN (not a convex radius) is
     * taken as flat. */
    out->r2 = b ? curvature_radius_at(b, out->point) : rb > 0.0 ? rb : INFINITY;
    set_overlap(out);
}

void ldem_patch_from_wall_hits(const ldem_ls_grain *a, const ldem_wall_geom *w,
                               const ldem_hits *h, ldem_patch *out)
{
    memset(out, 0, sizeof *out);
    if (h->count == 0)
        return;
    aggregate(h, 0, out);
    out->r1 = curvature_radius_at(a, out->point);
    out->r2 = INFINITY;
    if (w->kind == LDEM_WALL_CYLINDER) {
        /* The grain's mean radius there stands for the sphere of the sphere–cylinder rule. */
        double size = size_of(a);
        ldem_cylinder_radii(out->r1, w->radius, w->inside, &out->r1, &out->r2);
        out->r1 = fmin(out->r1, CURV_MAX * size);
    }
    set_overlap(out);
}
