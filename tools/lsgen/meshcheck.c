/* Mesh hygiene: make a real-world surface mesh a consistently oriented, outward surface.
 *
 * The steps, each O(n) or O(n log n):
 *   1. finite coordinates and valid indices (ldem_trimesh_check);
 *   2. weld vertices with identical coordinates (sorted by coordinates; == comparison, so
 *      +0 and −0 merge) — STL stores every triangle's corners separately;
 *   3. drop degenerate triangles (a repeated vertex, or area ≤ 1e-14·diag² of the bounding
 *      box of the triangles) and the vertices no triangle uses;
 *   4. edges grouped by their vertex pair (bucketed by lower vertex): one triangle is a
 *      boundary edge (a hole), two a manifold edge linking neighbours, more is non-manifold;
 *   5. breadth-first over manifold edges, orientation propagated so that neighbours traverse
 *      their shared edge in opposite directions; in each component the smaller of the two
 *      classes is flipped (so the count is the number of triangles that were wrong);
 *   6. each component's signed volume is compared with the sign it must have — positive,
 *      unless the component lies inside an odd number of other closed components (the wall
 *      of a cavity faces inward) — and a component with the wrong sign is flipped whole.
 *      Open components are judged the same way: the cone through a small hole is small,
 *      and for a loose sheet no sign is right anyway.
 */
#include "meshcheck.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/log.h"

#define NO_NEIGHBOUR UINT32_MAX
#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- small geometry */

static const double *vertex(const ldem_trimesh *m, uint32_t v)
{
    return m->xyz + 3 * (size_t)v;
}

static void sub3(const double a[3], const double b[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}

/* 6 × signed volume of the tetrahedron (o, a, b, c). */
static double tet6(const double o[3], const double a[3], const double b[3], const double c[3])
{
    double p[3], q[3], r[3], n[3];
    sub3(a, o, p);
    sub3(b, o, q);
    sub3(c, o, r);
    cross3(q, r, n);
    return dot3(p, n);
}

static void flip_triangle(ldem_trimesh *m, size_t t)
{
    uint32_t tmp = m->tri[3 * t + 1];
    m->tri[3 * t + 1] = m->tri[3 * t + 2];
    m->tri[3 * t + 2] = tmp;
}

/* Bounding box of the vertices the triangles use. */
static void triangle_bbox(const ldem_trimesh *m, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < 3 * m->ntris; i++) {
        const double *p = vertex(m, m->tri[i]);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
    }
}

static int out_of_memory(ldem_err *err, const char *source)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory while repairing the mesh");
}

/* ---------------------------------------------------------------- 2. welding */

typedef struct weld_key {
    double x, y, z;
    uint32_t index;
} weld_key;

static int compare_weld_keys(const void *pa, const void *pb)
{
    const weld_key *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Every triangle index is replaced by the lowest-numbered vertex at the same position. */
static int weld_vertices(ldem_trimesh *m, const char *source, lsgen_mesh_report *r, ldem_err *err)
{
    size_t n = m->nverts;
    weld_key *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *repr = malloc((n ? n : 1) * sizeof *repr);
    if (!keys || !repr) {
        free(keys);
        free(repr);
        return out_of_memory(err, source);
    }
    for (size_t i = 0; i < n; i++) {
        const double *p = vertex(m, (uint32_t)i);
        keys[i] = (weld_key){p[0], p[1], p[2], (uint32_t)i};
    }
    qsort(keys, n, sizeof *keys, compare_weld_keys);
    for (size_t i = 0; i < n; i++) {
        int same = i > 0 && keys[i].x == keys[i - 1].x && keys[i].y == keys[i - 1].y &&
                   keys[i].z == keys[i - 1].z;
        /* the index tie-break puts the lowest index first in each group */
        repr[keys[i].index] = same ? repr[keys[i - 1].index] : keys[i].index;
        r->welded += same;
    }
    for (size_t i = 0; i < 3 * m->ntris; i++)
        m->tri[i] = repr[m->tri[i]];
    free(keys);
    free(repr);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- 3. degenerate, unused */

static int is_degenerate(const ldem_trimesh *m, size_t t, double inv_diag)
{
    const uint32_t *v = m->tri + 3 * t;
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
        return 1;
    /* Edges in units of the bbox diagonal: the test is scale-free and cannot underflow. */
    double e1[3], e2[3], n[3];
    sub3(vertex(m, v[1]), vertex(m, v[0]), e1);
    sub3(vertex(m, v[2]), vertex(m, v[0]), e2);
    for (int k = 0; k < 3; k++) {
        e1[k] *= inv_diag;
        e2[k] *= inv_diag;
    }
    cross3(e1, e2, n);
    return 0.5 * norm3(n) <= 1e-14;
}

static void remove_degenerate_triangles(ldem_trimesh *m, lsgen_mesh_report *r)
{
    double lo[3], hi[3], d[3];
    triangle_bbox(m, lo, hi);
    sub3(hi, lo, d);
    double diag = norm3(d);
    double inv_diag = diag > 0.0 ? 1.0 / diag : 0.0;
    size_t kept = 0;
    for (size_t t = 0; t < m->ntris; t++) {
        if (is_degenerate(m, t, inv_diag)) {
            r->degenerate++;
            continue;
        }
        memmove(m->tri + 3 * kept, m->tri + 3 * t, 3 * sizeof *m->tri);
        kept++;
    }
    m->ntris = kept;
}

/* Compact the vertex array to the vertices triangles use, keeping their order. Vertices
 * that welding merged away are not counted again as unused. */
static int drop_unused_vertices(ldem_trimesh *m, const char *source, lsgen_mesh_report *r,
                                size_t welded_before, ldem_err *err)
{
    size_t n = m->nverts;
    uint32_t *newidx = malloc((n ? n : 1) * sizeof *newidx);
    if (!newidx)
        return out_of_memory(err, source);
    for (size_t i = 0; i < n; i++)
        newidx[i] = NO_NEIGHBOUR; /* "unused" */
    for (size_t i = 0; i < 3 * m->ntris; i++)
        newidx[m->tri[i]] = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (newidx[i] == NO_NEIGHBOUR)
            continue;
        newidx[i] = (uint32_t)kept;
        memmove(m->xyz + 3 * kept, m->xyz + 3 * i, 3 * sizeof *m->xyz);
        kept++;
    }
    for (size_t i = 0; i < 3 * m->ntris; i++)
        m->tri[i] = newidx[m->tri[i]];
    r->unused_vertices = n - kept - welded_before;
    m->nverts = kept;
    free(newidx);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- 4. edges */

/* Edge slot k of triangle t runs from corner k to corner k+1. */
typedef struct half_edge {
    uint32_t hi; /* the higher vertex (the lower one is the bucket) */
    uint32_t tri;
    uint8_t slot;
    uint8_t forward; /* the triangle traverses the edge from lower to higher vertex */
} half_edge;

typedef struct adjacency {
    uint32_t *nbr;        /* 3 per triangle: the neighbour across each edge, or NO_NEIGHBOUR */
    uint8_t *same_dir;    /* 3 per triangle: the neighbour traverses the edge the same way */
    uint8_t *on_boundary; /* 1 per triangle: one of its edges has no other triangle */
} adjacency;

static void adjacency_free(adjacency *a)
{
    free(a->nbr);
    free(a->same_dir);
    free(a->on_boundary);
}

static int half_edge_before(const half_edge *a, const half_edge *b)
{
    return a->hi != b->hi ? a->hi < b->hi : a->tri < b->tri;
}

/* Insertion sort: a bucket holds the few edges of one vertex. */
static void sort_bucket(half_edge *e, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        half_edge x = e[i];
        size_t j = i;
        while (j > 0 && half_edge_before(&x, &e[j - 1])) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

/* One group of half-edges with the same vertex pair. */
static void classify_edge(const half_edge *g, size_t count, adjacency *adj, lsgen_mesh_report *r)
{
    if (count == 1) {
        r->boundary_edges++;
        adj->on_boundary[g[0].tri] = 1;
    } else if (count == 2) {
        size_t a = 3 * (size_t)g[0].tri + g[0].slot, b = 3 * (size_t)g[1].tri + g[1].slot;
        adj->nbr[a] = g[1].tri;
        adj->nbr[b] = g[0].tri;
        adj->same_dir[a] = adj->same_dir[b] = g[0].forward == g[1].forward;
    } else {
        /* orientation is not propagated across a fan of three or more triangles */
        r->nonmanifold_edges++;
    }
}

static int build_adjacency(const ldem_trimesh *m, const char *source, adjacency *adj,
                           lsgen_mesh_report *r, ldem_err *err)
{
    size_t nt = m->ntris, nh = 3 * nt;
    size_t *bucket = calloc(m->nverts + 1, sizeof *bucket);
    half_edge *edges = malloc(nh * sizeof *edges);
    adj->nbr = malloc(nh * sizeof *adj->nbr);
    adj->same_dir = calloc(nh, 1);
    adj->on_boundary = calloc(nt, 1);
    if (!bucket || !edges || !adj->nbr || !adj->same_dir || !adj->on_boundary) {
        free(bucket);
        free(edges);
        return out_of_memory(err, source);
    }
    /* Counting sort by the lower vertex of each edge. */
    for (size_t h = 0; h < nh; h++) {
        uint32_t a = m->tri[h], b = m->tri[h % 3 == 2 ? h - 2 : h + 1];
        bucket[(a < b ? a : b) + 1]++;
    }
    for (size_t v = 0; v < m->nverts; v++)
        bucket[v + 1] += bucket[v];
    for (size_t h = 0; h < nh; h++) {
        uint32_t a = m->tri[h], b = m->tri[h % 3 == 2 ? h - 2 : h + 1];
        uint32_t lo = a < b ? a : b;
        edges[bucket[lo]++] =
            (half_edge){a < b ? b : a, (uint32_t)(h / 3), (uint8_t)(h % 3), (uint8_t)(a < b)};
        adj->nbr[h] = NO_NEIGHBOUR;
    }
    /* bucket[v] now ends bucket v, which starts where bucket v-1 ends */
    size_t start = 0;
    for (size_t v = 0; v < m->nverts; v++) {
        size_t end = bucket[v];
        sort_bucket(edges + start, end - start);
        for (size_t i = start; i < end;) {
            size_t j = i + 1;
            while (j < end && edges[j].hi == edges[i].hi)
                j++;
            if (j - i > 2 && r->nonmanifold_edges == 0)
                for (int k = 0; k < 3; k++) {
                    r->nonmanifold_at[0][k] = vertex(m, (uint32_t)v)[k];
                    r->nonmanifold_at[1][k] = vertex(m, edges[i].hi)[k];
                }
            classify_edge(edges + i, j - i, adj, r);
            i = j;
        }
        start = end;
    }
    free(bucket);
    free(edges);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- 5. orientation */

typedef struct components {
    size_t count;
    uint32_t *order; /* triangles grouped by component */
    size_t *start;   /* component c is order[start[c] .. start[c+1]) */
} components;

static void components_free(components *c)
{
    free(c->order);
    free(c->start);
}

/* Breadth-first from `seed`, appending the component to c->order; flip[t] says whether t
 * must be reversed to agree with the seed. */
static void bfs_component(const adjacency *adj, uint32_t seed, uint8_t *visited, uint8_t *flip,
                          components *c, size_t *tail)
{
    size_t head = *tail;
    c->order[(*tail)++] = seed;
    visited[seed] = 1;
    flip[seed] = 0;
    while (head < *tail) {
        uint32_t t = c->order[head++];
        for (int k = 0; k < 3; k++) {
            uint32_t u = adj->nbr[3 * (size_t)t + k];
            if (u == NO_NEIGHBOUR || visited[u])
                continue;
            /* Consistent neighbours traverse the shared edge in opposite directions. A
             * non-orientable surface (Möbius strip) meets a contradiction on a later edge;
             * the first assignment stands. */
            visited[u] = 1;
            flip[u] = flip[t] ^ adj->same_dir[3 * (size_t)t + k];
            c->order[(*tail)++] = u;
        }
    }
}

static int orient_components(ldem_trimesh *m, const char *source, const adjacency *adj,
                             components *c, lsgen_mesh_report *r, ldem_err *err)
{
    size_t nt = m->ntris;
    uint8_t *visited = calloc(nt, 1), *flip = malloc(nt);
    c->order = malloc(nt * sizeof *c->order);
    c->start = malloc((nt + 1) * sizeof *c->start);
    if (!visited || !flip || !c->order || !c->start) {
        free(visited);
        free(flip);
        return out_of_memory(err, source);
    }
    size_t tail = 0;
    c->count = 0;
    for (size_t seed = 0; seed < nt; seed++) {
        if (visited[seed])
            continue;
        size_t begin = tail;
        c->start[c->count++] = begin;
        bfs_component(adj, (uint32_t)seed, visited, flip, c, &tail);
        size_t ones = 0;
        for (size_t i = begin; i < tail; i++)
            ones += flip[c->order[i]];
        /* Flip the minority: if the seed was the odd one out, its class is the smaller. */
        uint8_t flip_class = ones * 2 <= tail - begin ? 1 : 0;
        for (size_t i = begin; i < tail; i++)
            if (flip[c->order[i]] == flip_class)
                flip_triangle(m, c->order[i]);
        r->flipped += flip_class ? ones : (tail - begin) - ones;
    }
    c->start[c->count] = tail;
    r->components = c->count;
    free(visited);
    free(flip);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- 6. inside-out pieces */

/* The solid angle of triangle (a, b, c) seen from p, by Van Oosterom & Strackee (1983):
 * tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|), a, b, c from p. */
static double solid_angle(const double p[3], const double *a0, const double *b0, const double *c0)
{
    double a[3], b[3], c[3], n[3];
    sub3(a0, p, a);
    sub3(b0, p, b);
    sub3(c0, p, c);
    double la = norm3(a), lb = norm3(b), lc = norm3(c);
    cross3(b, c, n);
    double num = dot3(a, n);
    double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la + dot3(c, a) * lb;
    return 2.0 * atan2(num, den);
}

typedef struct piece {
    double vol6; /* 6 × signed volume about the mesh's bbox centre */
    double lo[3], hi[3];
    double probe[3]; /* a point on the piece: its first triangle's centroid */
    int closed;
} piece;

static double winding_number(const ldem_trimesh *m, const components *c, size_t comp,
                             const double p[3])
{
    double omega = 0.0;
    for (size_t i = c->start[comp]; i < c->start[comp + 1]; i++) {
        const uint32_t *v = m->tri + 3 * (size_t)c->order[i];
        omega += solid_angle(p, vertex(m, v[0]), vertex(m, v[1]), vertex(m, v[2]));
    }
    return omega / (4.0 * PI);
}

static void measure_piece(const ldem_trimesh *m, const adjacency *adj, const components *c,
                          size_t comp, const double centre[3], piece *pc)
{
    pc->vol6 = 0.0;
    pc->closed = 1;
    for (int k = 0; k < 3; k++) {
        pc->lo[k] = INFINITY;
        pc->hi[k] = -INFINITY;
        pc->probe[k] = 0.0;
    }
    for (size_t i = c->start[comp]; i < c->start[comp + 1]; i++) {
        size_t t = c->order[i];
        const uint32_t *v = m->tri + 3 * t;
        pc->vol6 += tet6(centre, vertex(m, v[0]), vertex(m, v[1]), vertex(m, v[2]));
        pc->closed &= !adj->on_boundary[t];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                pc->lo[k] = fmin(pc->lo[k], vertex(m, v[j])[k]);
                pc->hi[k] = fmax(pc->hi[k], vertex(m, v[j])[k]);
            }
    }
    const uint32_t *v = m->tri + 3 * (size_t)c->order[c->start[comp]];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            pc->probe[k] += vertex(m, v[j])[k] / 3.0;
}

static int bbox_contains(const piece *outer, const piece *inner)
{
    for (int k = 0; k < 3; k++)
        if (inner->lo[k] < outer->lo[k] || inner->hi[k] > outer->hi[k])
            return 0;
    return 1;
}

/* How many other closed pieces enclose piece `a` (|winding number| ≥ ½ at its probe; the
 * bbox test first spares the sum for pieces that cannot contain it). */
static size_t nesting_depth(const ldem_trimesh *m, const components *c, const piece *pieces,
                            size_t a)
{
    size_t depth = 0;
    for (size_t b = 0; b < c->count; b++) {
        if (b == a || !pieces[b].closed || !bbox_contains(&pieces[b], &pieces[a]))
            continue;
        if (fabs(winding_number(m, c, b, pieces[a].probe)) >= 0.5)
            depth++;
    }
    return depth;
}

static int fix_inverted_components(ldem_trimesh *m, const char *source, const adjacency *adj,
                                   const components *c, lsgen_mesh_report *r, double *total_vol6,
                                   ldem_err *err)
{
    double lo[3], hi[3], centre[3];
    triangle_bbox(m, lo, hi);
    for (int k = 0; k < 3; k++)
        centre[k] = 0.5 * (lo[k] + hi[k]);
    piece *pieces = malloc(c->count * sizeof *pieces);
    if (!pieces)
        return out_of_memory(err, source);
    for (size_t p = 0; p < c->count; p++)
        measure_piece(m, adj, c, p, centre, &pieces[p]);
    /* Depths first, from the pieces as they are: |winding| does not depend on orientation. */
    *total_vol6 = 0.0;
    size_t ninverted = 0;
    uint8_t *invert = calloc(c->count ? c->count : 1, 1);
    if (!invert) {
        free(pieces);
        return out_of_memory(err, source);
    }
    for (size_t p = 0; p < c->count; p++) {
        int cavity = pieces[p].closed && c->count > 1 && nesting_depth(m, c, pieces, p) % 2;
        double want = cavity ? -1.0 : 1.0;
        invert[p] = pieces[p].vol6 * want < 0.0;
        ninverted += invert[p];
        *total_vol6 += invert[p] ? -pieces[p].vol6 : pieces[p].vol6;
    }
    for (size_t p = 0; p < c->count; p++)
        if (invert[p])
            for (size_t i = c->start[p]; i < c->start[p + 1]; i++)
                flip_triangle(m, c->order[i]);
    r->inverted_components = ninverted;
    free(invert);
    free(pieces);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- the whole repair */

static int too_few_triangles(const ldem_trimesh *m, const char *source, const lsgen_mesh_report *r,
                             ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                        "zero-volume mesh: %zu usable triangles (%zu degenerate removed); a "
                        "closed surface needs at least 4",
                        m->ntris, r->degenerate);
}

int lsgen_mesh_repair(ldem_trimesh *m, const char *source, lsgen_mesh_report *r, ldem_err *err)
{
    memset(r, 0, sizeof *r);
    int rc = ldem_trimesh_check(m, source, err);
    if (rc)
        return rc;
    rc = weld_vertices(m, source, r, err);
    if (rc)
        return rc;
    remove_degenerate_triangles(m, r);
    rc = drop_unused_vertices(m, source, r, r->welded, err);
    if (rc)
        return rc;
    if (m->ntris < 4)
        return too_few_triangles(m, source, r, err);
    if (m->ntris >= NO_NEIGHBOUR)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "mesh has %zu triangles; at most %lu are supported", m->ntris,
                            (unsigned long)NO_NEIGHBOUR - 1);

    adjacency adj = {NULL, NULL, NULL};
    components comps = {0, NULL, NULL};
    double vol6 = 0.0;
    rc = build_adjacency(m, source, &adj, r, err);
    if (!rc)
        rc = orient_components(m, source, &adj, &comps, r, err);
    if (!rc)
        rc = fix_inverted_components(m, source, &adj, &comps, r, &vol6, err);
    adjacency_free(&adj);
    components_free(&comps);
    if (rc)
        return rc;

    double lo[3], hi[3];
    triangle_bbox(m, lo, hi);
    double bbox_volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    if (!(fabs(vol6 / 6.0) > 1e-12 * bbox_volume))
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "zero-volume mesh: the surface encloses %.3g, negligible against "
                            "its bounding box (%.3g); expected a closed surface around a solid",
                            vol6 / 6.0, bbox_volume);
    return LDEM_OK;
}

void lsgen_mesh_report_warn(const lsgen_mesh_report *r, const char *source)
{
    /* Welding and unused vertices are how STL and .msh files normally look: info only. */
    if (r->welded)
        ldem_info("%s: %zu duplicate vertices welded", source, r->welded);
    if (r->unused_vertices)
        ldem_info("%s: %zu vertices on no triangle dropped", source, r->unused_vertices);
    if (r->degenerate)
        ldem_warn("%s: %zu degenerate triangles (repeated vertex or zero area) skipped", source,
                  r->degenerate);
    if (r->boundary_edges)
        ldem_warn("%s: mesh is not watertight: %zu boundary edges (holes); signs near the "
                  "holes follow the generalized winding number",
                  source, r->boundary_edges);
    if (r->nonmanifold_edges)
        ldem_warn("%s: %zu non-manifold edges (shared by more than two triangles); "
                  "orientation was not propagated across them",
                  source, r->nonmanifold_edges);
    if (r->flipped)
        ldem_warn("%s: %zu triangles were oriented against their neighbours and were flipped",
                  source, r->flipped);
    if (r->inverted_components)
        ldem_warn("%s: %zu of %zu pieces were inside out and were flipped whole", source,
                  r->inverted_components, r->components);
    if (r->components > 1)
        ldem_warn("%s: the mesh has %zu separate pieces; they are treated as one rigid grain",
                  source, r->components);
}
