/* Filling the level-set grid with signed distances. See sdfgrid.h.
 *
 * Meshes take two passes over the grid.
 *
 * 1. Unsigned distance, exact at every node (lsgen_bvh_closest_slot), in parallel over
 *    z-slabs. Along an x row each query starts from the previous node's closest triangle:
 *    its distance from the new node is an upper bound, at most the previous distance plus
 *    the spacing (triangle inequality), and usually the answer itself, so the BVH only has
 *    to prove that nothing is closer. The BVH returns the minimum over all triangles of the
 *    same computed distance a brute-force loop would compute, whatever the bound, so the
 *    result does not depend on the order of the nodes or on the number of threads.
 *
 * 2. Sign from the generalized winding number (inside iff w >= 0.5). Evaluating w at every
 *    node would cost more than the distances, and w need not be: the open ball of radius
 *    d(x) about a node holds no surface, and wherever the surface is absent w is harmonic —
 *    constant, for a closed mesh. Two schemes build on that:
 *    - closed meshes (every edge used equally often in both directions; the BVH checks):
 *      neighbours x, y along a grid axis with d(x) + d(y) > |x − y| have balls that cover
 *      the segment between them, so they lie in one component of space minus the surface
 *      and share w. The connected components of that link graph are signed by one
 *      evaluation each, at the node of the component farthest from the surface (w is most
 *      accurate there). Typically: one component inside, one outside, and a few thousand
 *      single nodes within a fraction of a cell of the surface.
 *    - open meshes (holes): w varies smoothly across a hole, so signs must stay local.
 *      Octree boxes of nodes: a box whose centre node lies farther from the surface than
 *      the centre's distance to every corner sits in that node's surface-free ball and gets
 *      the centre's sign; otherwise it splits into eight, down to single nodes. Away from
 *      the hole (farther than a few hole sizes) this matches w node by node.
 *    Nodes on the surface (d = 0) get φ = 0, whatever the side. All decisions use the
 *    float32 distances with a 1e-6 relative margin (float rounding is 6e-8).
 *
 * An inverted mesh (every triangle reversed) has w = −1 inside, so it is signed as if
 * everything were outside: φ = +distance everywhere. Orientation is repaired before. */
#include "sdfgrid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
/* OpenMP directives through _Pragma, so that a build without OpenMP sees nothing (rather
 * than warnings about unknown pragmas) and runs the loops serially. */
#define OMP(directive) _Pragma(directive)
#else
#define OMP(directive)
#endif

#include "bvh_internal.h"
#include "ldem/grid.h"
#include "ldem/memory_budget.h"
#include "ldem/progress.h"

#define GRID_MAX_NODES (UINT64_C(1) << 31)
/* Distances are stored as float32 before signing: relative margin on every comparison. */
#define FLOAT_MARGIN 1e-6
/* Edge of the top-level octree boxes of the open-mesh sign pass, in nodes. */
#define SIGN_TILE 16

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* A slab finished: count it, and let the master thread redraw the bar. */
static void slab_done(ldem_progress *bar, uint64_t *done)
{
    uint64_t now;
    OMP("omp atomic capture")
    now = ++*done;
    if (thread_id() == 0)
        ldem_progress_update(bar, now);
}

/* Nodes along axis a of the grid around [l, u]: the cells covering it, plus pad on each side;
 * the 1e-9 keeps round-off from adding a cell. In double: no overflow for any spacing. */
static double axis_nodes(double l, double u, double h, unsigned pad)
{
    double cells = ceil((u - l) / h - 1e-9);
    return fmax(fmax(cells, 0.0) + 1.0 + 2.0 * pad, 2.0);
}

uint64_t lsgen_grid_bytes(ldem_vec3 lo, ldem_vec3 hi, double h, unsigned pad)
{
    const double l[3] = {lo.x, lo.y, lo.z}, u[3] = {hi.x, hi.y, hi.z};
    if (!(h > 0.0) || !isfinite(h))
        return 0;
    double total = 1.0;
    for (int a = 0; a < 3; a++) {
        if (!isfinite(l[a]) || !isfinite(u[a]) || !(l[a] <= u[a]))
            return 0;
        total *= axis_nodes(l[a], u[a], h, pad);
    }
    ldem_lset probe;
    return ldem_memory_from_double(total * (sizeof *probe.phi + 2 * sizeof(uint32_t)));
}

int lsgen_grid_around(ldem_vec3 lo, ldem_vec3 hi, double h, unsigned pad, ldem_lset *ls,
                      ldem_err *err)
{
    if (!(h > 0.0) || !isfinite(h))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "grid spacing %g is invalid; expected a finite number > 0", h);
    const double l[3] = {lo.x, lo.y, lo.z}, u[3] = {hi.x, hi.y, hi.z};
    double nodes[3], total = 1.0;
    for (int a = 0; a < 3; a++) {
        if (!isfinite(l[a]) || !isfinite(u[a]) || !(l[a] <= u[a]))
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "bounding box [%g, %g] on axis %c is invalid; expected finite "
                                "bounds with lo <= hi",
                                l[a], u[a], "xyz"[a]);
        nodes[a] = axis_nodes(l[a], u[a], h, pad);
        total *= nodes[a];
    }
    if (total > (double)GRID_MAX_NODES)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "a grid of %.0f x %.0f x %.0f nodes (%.3g in all) is too large; at "
                            "most 2^31 nodes are supported: increase the spacing (now %g) or "
                            "reduce the padding (now %u)",
                            nodes[0], nodes[1], nodes[2], total, h, pad);
    /* φ is stored as float32 and no node is farther from the surface (inside the box) than
     * the grid's diagonal: beyond FLT_MAX it would become inf, which no reader accepts. */
    double diagonal = hypot(hypot((nodes[0] - 1.0) * h, (nodes[1] - 1.0) * h),
                            (nodes[2] - 1.0) * h);
    if (!(diagonal < FLT_MAX))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "a grid %g across is too large: level-set values are float32, "
                            "at most %g; scale the geometry down",
                            diagonal, (double)FLT_MAX);
    for (int a = 0; a < 3; a++) {
        ls->dims[a] = (uint32_t)nodes[a];
        ls->spacing[a] = h;
        /* Centred on the box, so that a symmetric shape gets a symmetric grid. */
        ls->origin[a] = 0.5 * (l[a] + u[a]) - 0.5 * (nodes[a] - 1.0) * h;
    }
    ls->phi = malloc((size_t)total * sizeof *ls->phi);
    if (!ls->phi)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for a level set of %.0f nodes", total);
    return LDEM_OK;
}

static int check_grid(const ldem_lset *ls, ldem_err *err)
{
    static const char axis_name[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; a++) {
        unsigned long nodes = ls->dims[a];
        double h = ls->spacing[a];
        if (nodes < 1 || !(h > 0.0))
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "level-set grid axis %c has %lu nodes and spacing %g; expected "
                                "at least one node and a spacing > 0",
                                axis_name[a], nodes, h);
    }
    if (ldem_lset_count(ls) > GRID_MAX_NODES)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "level-set grid has %llu nodes; at most 2^31 are supported",
                            (unsigned long long)ldem_lset_count(ls));
    if (!ls->phi)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "level-set grid has no storage (lsgen_grid_around allocates it)");
    return LDEM_OK;
}

int lsgen_sdf_shape(const lsgen_shape *s, ldem_lset *ls, int progress, ldem_err *err)
{
    int rc = check_grid(ls, err);
    if (rc)
        return rc;
    const long nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2];
    ldem_progress bar;
    ldem_progress_begin(&bar, "level set", (uint64_t)nz, progress);
    uint64_t done = 0;
    OMP("omp parallel for schedule(dynamic)")
    for (long k = 0; k < nz; k++) {
        for (long j = 0; j < ny; j++) {
            float *row = ls->phi + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
            for (long i = 0; i < nx; i++)
                row[i] = (float)lsgen_shape_sdf(
                    s, ldem_lset_node(ls, (uint32_t)i, (uint32_t)j, (uint32_t)k), NULL);
        }
        slab_done(&bar, &done);
    }
    ldem_progress_end(&bar);
    return LDEM_OK;
}

/* ---- pass 1: unsigned distance ---- */

/* Exact distance at x, starting from the triangle in `seed` (LSGEN_BVH_NONE: none);
 * *seed becomes x's closest triangle. */
static double seeded_distance(const lsgen_bvh *b, ldem_vec3 x, uint32_t *seed)
{
    double bound2 = *seed == LSGEN_BVH_NONE ? INFINITY : lsgen_bvh_slot_distance2(b, *seed, x);
    uint32_t slot;
    double d2 = lsgen_bvh_closest_slot(b, x, bound2, &slot);
    if (slot != LSGEN_BVH_NONE)
        *seed = slot;
    return sqrt(d2);
}

static void distance_slab(const lsgen_bvh *b, ldem_lset *ls, uint32_t k)
{
    const uint32_t nx = ls->dims[0], ny = ls->dims[1];
    uint32_t row_seed = LSGEN_BVH_NONE; /* closest triangle of the row's first node */
    for (uint32_t j = 0; j < ny; j++) {
        float *row = ls->phi + (size_t)nx * ((size_t)j + (size_t)ny * k);
        uint32_t seed = row_seed;
        for (uint32_t i = 0; i < nx; i++) {
            row[i] = (float)seeded_distance(b, ldem_lset_node(ls, i, j, k), &seed);
            if (i == 0)
                row_seed = seed;
        }
    }
}

static void distance_pass(const lsgen_bvh *b, ldem_lset *ls, int progress)
{
    const long nz = ls->dims[2];
    ldem_progress bar;
    ldem_progress_begin(&bar, "distance", (uint64_t)nz, progress);
    uint64_t done = 0;
    OMP("omp parallel for schedule(dynamic)")
    for (long k = 0; k < nz; k++) {
        distance_slab(b, ls, (uint32_t)k);
        slab_done(&bar, &done);
    }
    ldem_progress_end(&bar);
}

/* ---- pass 2, closed meshes: components of the link graph ---- */

static int linked(float dx, float dy, double h)
{
    return ((double)dx + (double)dy) * (1.0 - FLOAT_MARGIN) > h;
}

static ldem_vec3 node_of_index(const ldem_lset *ls, size_t n)
{
    size_t nx = ls->dims[0], ny = ls->dims[1];
    return ldem_lset_node(ls, (uint32_t)(n % nx), (uint32_t)(n / nx % ny),
                          (uint32_t)(n / (nx * ny)));
}

typedef struct components {
    uint32_t *id;    /* per node: its component */
    uint32_t *queue; /* breadth-first queue */
    size_t *rep;     /* per component: the node farthest from the surface */
    size_t count, capacity;
} components;

static int push_component(components *c, size_t rep, ldem_err *err)
{
    if (c->count == c->capacity) {
        size_t cap = c->capacity ? 2 * c->capacity : 1024;
        size_t *r = realloc(c->rep, cap * sizeof *r);
        if (!r)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                "out of memory for %zu sign components", cap);
        c->rep = r;
        c->capacity = cap;
    }
    c->rep[c->count++] = rep;
    return LDEM_OK;
}

/* Breadth-first search from `start` over links along the three axes; returns the node of
 * the component with the largest distance (the lowest index among equals), *size the
 * component's node count. */
static size_t flood(const ldem_lset *ls, components *c, size_t start, uint32_t label,
                    size_t *size_out)
{
    const size_t nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2];
    const size_t stride[3] = {1, nx, nx * ny};
    const size_t size[3] = {nx, ny, nz};
    size_t head = 0, tail = 0, rep = start;
    c->id[start] = label;
    c->queue[tail++] = (uint32_t)start;
    while (head < tail) {
        size_t n = c->queue[head++];
        if (ls->phi[n] > ls->phi[rep] || (ls->phi[n] == ls->phi[rep] && n < rep))
            rep = n;
        size_t coord[3] = {n % nx, n / nx % ny, n / (nx * ny)};
        for (int a = 0; a < 3; a++)
            for (int dir = -1; dir <= 1; dir += 2) {
                if ((dir < 0 && coord[a] == 0) || (dir > 0 && coord[a] + 1 == size[a]))
                    continue;
                size_t m = dir < 0 ? n - stride[a] : n + stride[a];
                if (c->id[m] != UINT32_MAX || !linked(ls->phi[n], ls->phi[m], ls->spacing[a]))
                    continue;
                c->id[m] = label;
                c->queue[tail++] = (uint32_t)m;
            }
    }
    *size_out = tail;
    return rep;
}

static int sign_closed(const lsgen_bvh *b, ldem_lset *ls, lsgen_sdf_stats *st, ldem_err *err)
{
    size_t total = (size_t)ldem_lset_count(ls);
    components c = {malloc(total * sizeof(uint32_t)), malloc(total * sizeof(uint32_t)), NULL, 0, 0};
    double *w = NULL;
    int rc = c.id && c.queue
                 ? LDEM_OK
                 : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                "out of memory for the sign pass over %zu nodes", total);
    if (!rc)
        memset(c.id, 0xff, total * sizeof *c.id);
    for (size_t n = 0; n < total && !rc; n++)
        if (c.id[n] == UINT32_MAX && ls->phi[n] > 0.0f) {
            size_t label = c.count, size;
            rc = push_component(&c, 0, err);
            if (!rc)
                c.rep[label] = flood(ls, &c, n, (uint32_t)label, &size);
            if (!rc && size > 1) {
                st->sign_blocks++;
                st->block_nodes += size;
            }
        }
    free(c.queue);
    c.queue = NULL;
    if (!rc)
        rc = (w = malloc((c.count ? c.count : 1) * sizeof *w))
                 ? LDEM_OK
                 : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                "out of memory for %zu winding numbers", c.count);
    if (!rc) {
        /* One winding number per component, in parallel; the components are fixed above. */
        OMP("omp parallel for schedule(dynamic, 16)")
        for (long i = 0; i < (long)c.count; i++)
            w[i] = lsgen_bvh_winding(b, node_of_index(ls, c.rep[i]));
        st->winding_queries += c.count;
        for (size_t n = 0; n < total; n++)
            if (c.id[n] != UINT32_MAX && w[c.id[n]] >= 0.5)
                ls->phi[n] = -ls->phi[n];
    }
    free(w);
    free(c.id);
    free(c.queue);
    free(c.rep);
    return rc;
}

/* ---- pass 2, open meshes: octree boxes ---- */

typedef struct box {
    uint32_t lo[3], hi[3]; /* node index ranges [lo, hi) */
} box;

static size_t node_index(const ldem_lset *ls, const uint32_t c[3])
{
    return c[0] + (size_t)ls->dims[0] * (c[1] + (size_t)ls->dims[1] * c[2]);
}

static void sign_box_as(ldem_lset *ls, const box *bx, int inside)
{
    if (!inside)
        return;
    for (uint32_t k = bx->lo[2]; k < bx->hi[2]; k++)
        for (uint32_t j = bx->lo[1]; j < bx->hi[1]; j++) {
            const uint32_t start[3] = {bx->lo[0], j, k};
            float *row = ls->phi + node_index(ls, start);
            for (uint32_t i = 0; i < bx->hi[0] - bx->lo[0]; i++)
                row[i] = -row[i];
        }
}

static void sign_box(const lsgen_bvh *b, ldem_lset *ls, const box *bx, lsgen_sdf_stats *st)
{
    uint32_t centre[3];
    double reach2 = 0.0;
    int single = 1;
    for (int a = 0; a < 3; a++) {
        centre[a] = bx->lo[a] + (bx->hi[a] - bx->lo[a] - 1) / 2;
        uint32_t far = centre[a] - bx->lo[a] > bx->hi[a] - 1 - centre[a]
                           ? centre[a] - bx->lo[a]
                           : bx->hi[a] - 1 - centre[a];
        reach2 += (far * ls->spacing[a]) * (far * ls->spacing[a]);
        single = single && bx->hi[a] - bx->lo[a] == 1;
    }
    double d = ls->phi[node_index(ls, centre)];
    if (single || d * (1.0 - FLOAT_MARGIN) > sqrt(reach2)) {
        if (d > 0.0) {
            double w = lsgen_bvh_winding(b, ldem_lset_node(ls, centre[0], centre[1], centre[2]));
            st->winding_queries++;
            if (!single) {
                st->sign_blocks++;
                st->block_nodes += (uint64_t)(bx->hi[0] - bx->lo[0]) * (bx->hi[1] - bx->lo[1]) *
                                   (bx->hi[2] - bx->lo[2]);
            }
            sign_box_as(ls, bx, w >= 0.5);
        }
        return;
    }
    /* Split every axis longer than one node in two. */
    for (int octant = 0; octant < 8; octant++) {
        box child = *bx;
        int skip = 0;
        for (int a = 0; a < 3; a++) {
            uint32_t mid = bx->lo[a] + (bx->hi[a] - bx->lo[a]) / 2;
            int upper = (octant >> a) & 1;
            if (bx->hi[a] - bx->lo[a] == 1)
                skip = skip || upper;
            else if (upper)
                child.lo[a] = mid;
            else
                child.hi[a] = mid;
        }
        if (!skip)
            sign_box(b, ls, &child, st);
    }
}

static void sign_open(const lsgen_bvh *b, ldem_lset *ls, int progress, lsgen_sdf_stats *st)
{
    const uint32_t *dims = ls->dims;
    const long tiles_z = (long)((dims[2] + SIGN_TILE - 1) / SIGN_TILE);
    ldem_progress bar;
    ldem_progress_begin(&bar, "sign", (uint64_t)tiles_z, progress);
    uint64_t done = 0, windings = 0, blocks = 0, block_nodes = 0;
    OMP("omp parallel for schedule(dynamic) reduction(+ : windings, blocks, block_nodes)")
    for (long tz = 0; tz < tiles_z; tz++) {
        lsgen_sdf_stats local = {0, 0, 0, 0};
        for (uint32_t ty = 0; ty < dims[1]; ty += SIGN_TILE)
            for (uint32_t tx = 0; tx < dims[0]; tx += SIGN_TILE) {
                box bx = {{tx, ty, (uint32_t)tz * SIGN_TILE}, {0, 0, 0}};
                for (int a = 0; a < 3; a++)
                    bx.hi[a] = bx.lo[a] + SIGN_TILE < dims[a] ? bx.lo[a] + SIGN_TILE : dims[a];
                sign_box(b, ls, &bx, &local);
            }
        windings += local.winding_queries;
        blocks += local.sign_blocks;
        block_nodes += local.block_nodes;
        slab_done(&bar, &done);
    }
    ldem_progress_end(&bar);
    st->winding_queries += windings;
    st->sign_blocks += blocks;
    st->block_nodes += block_nodes;
}

int lsgen_sdf_mesh(const lsgen_bvh *b, ldem_lset *ls, int progress, lsgen_sdf_stats *stats,
                   ldem_err *err)
{
    lsgen_sdf_stats st = {0, 0, 0, 0};
    int rc = check_grid(ls, err);
    if (rc)
        return rc;
    distance_pass(b, ls, progress);
    st.distance_queries = ldem_lset_count(ls);
    if (b->closed) {
        rc = sign_closed(b, ls, &st, err);
    } else {
        sign_open(b, ls, progress, &st);
    }
    if (stats)
        *stats = st;
    return rc;
}

double lsgen_mesh_sdf_point(const lsgen_bvh *b, ldem_vec3 x)
{
    double d = sqrt(lsgen_bvh_closest(b, x, INFINITY, NULL));
    if (d == 0.0)
        return 0.0;
    return lsgen_bvh_winding(b, x) >= 0.5 ? -d : d;
}
