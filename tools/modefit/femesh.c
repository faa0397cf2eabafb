/* modefit's FEM mesh and snapshots (femesh.h): freeing, checking, node-number lookup, and
 * the small pieces the three readers share (femesh_io.h). */
#include "femesh.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "femesh_io.h"

/* Edge (midside) nodes of the 10-node tet, femesh.h order: node 4 + k sits on EDGE[k]. */
static const int TET10_EDGE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};

/* A flat tet's computed volume is round-off, of either sign; below this fraction of its
 * longest edge cubed we call it degenerate rather than trust the sign. (A regular tet
 * has V / L^3 = 0.118.) */
#define FE_FLAT_VOLUME 1e-12
/* How far an edge node may sit from its edge's midpoint, in edge lengths. Curved
 * (geometry-following) elements move it by the sagitta, h/(8R) of the edge for a
 * circle of radius R: 0.06 at h = R/2. A node of the wrong edge sits about half an edge
 * length away, so a quarter separates the two. */
#define FE_MIDSIDE_TOL 0.25

void fe_mesh_free(fe_mesh *m)
{
    if (!m)
        return;
    free(m->xyz);
    free(m->node_id);
    free(m->tet);
    memset(m, 0, sizeof *m);
}

void fe_snapshots_free(fe_snapshots *s)
{
    if (!s)
        return;
    free(s->u);
    free(s->time);
    free(s->step);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ checking -------- */

static double dist3(const double *a, const double *b)
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static double corner_volume(const double *p0, const double *p1, const double *p2,
                            const double *p3)
{
    double a[3], b[3], c[3];
    for (int i = 0; i < 3; i++) {
        a[i] = p1[i] - p0[i];
        b[i] = p2[i] - p0[i];
        c[i] = p3[i] - p0[i];
    }
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                 a[2] * (b[0] * c[1] - b[1] * c[0]);
    return det / 6.0;
}

static double longest_corner_edge(const double *const p[4])
{
    double l = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            l = fmax(l, dist3(p[i], p[j]));
    return l;
}

/* Edge nodes of a tet10: each near the midpoint of its own edge. */
static int midside_defect(const fe_mesh *m, const size_t *v, char *why, size_t cap)
{
    for (int k = 0; k < 6; k++) {
        const double *a = m->xyz + 3 * v[TET10_EDGE[k][0]];
        const double *b = m->xyz + 3 * v[TET10_EDGE[k][1]];
        const double *x = m->xyz + 3 * v[4 + k];
        double mid[3] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])};
        double len = dist3(a, b);
        double off = dist3(x, mid);
        if (!(off <= FE_MIDSIDE_TOL * len)) {
            snprintf(why, cap,
                     "edge node %d (node %ld) is %.3g edge lengths from the midpoint of "
                     "its edge (nodes %ld, %ld); expected the C3D10 order, edge nodes on "
                     "edges 1-2 2-3 3-1 1-4 2-4 3-4",
                     5 + k, m->node_id[v[4 + k]], len > 0 ? off / len : INFINITY,
                     m->node_id[v[TET10_EDGE[k][0]]], m->node_id[v[TET10_EDGE[k][1]]]);
            return 1;
        }
    }
    return 0;
}

int fe_tet_defect(const fe_mesh *m, size_t t, char *why, size_t cap)
{
    const size_t *v = m->tet + (size_t)m->order * t;
    why[0] = '\0';
    for (int k = 0; k < m->order; k++) {
        if (v[k] >= m->nnodes) {
            snprintf(why, cap, "node index %zu out of range (%zu nodes)", v[k], m->nnodes);
            return 1;
        }
    }
    const double *p[4] = {m->xyz + 3 * v[0], m->xyz + 3 * v[1], m->xyz + 3 * v[2],
                          m->xyz + 3 * v[3]};
    double vol = corner_volume(p[0], p[1], p[2], p[3]);
    double l = longest_corner_edge(p);
    if (!(vol > FE_FLAT_VOLUME * l * l * l)) {
        snprintf(why, cap,
                 "corner volume %.6g is not positive (nodes %ld %ld %ld %ld: %s); expected "
                 "right-handed corners (node 4 on the side where 1-2-3 turns "
                 "counter-clockwise)",
                 vol, m->node_id[v[0]], m->node_id[v[1]], m->node_id[v[2]], m->node_id[v[3]],
                 vol < 0 ? "inverted" : "flat");
        return 1;
    }
    if (m->order == FE_TET10)
        return midside_defect(m, v, why, cap);
    return 0;
}

int fe_mesh_check(const fe_mesh *m, const char *source, ldem_err *err)
{
    if (m->order != FE_TET4 && m->order != FE_TET10)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, source, 0,
                            "mesh order %d; expected 4 or 10 nodes per tet", m->order);
    if (m->ntets == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "no tetrahedra; expected a volume mesh of 4- or 10-node tets");
    if (!m->xyz || !m->node_id || !m->tet)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, source, 0, "mesh arrays missing");
    for (size_t i = 0; i < 3 * m->nnodes; i++) {
        if (!isfinite(m->xyz[i]))
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                "node %ld has a coordinate that is not a finite number",
                                m->node_id[i / 3]);
    }
    char why[LDEM_ERR_MSG_MAX - 64];
    for (size_t t = 0; t < m->ntets; t++) {
        if (fe_tet_defect(m, t, why, sizeof why))
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0, "element %zu: %s", t + 1,
                                why);
    }
    return LDEM_OK;
}

/* ------------------------------------------------------------- node numbers -------- */

long fe_node_lookup(const long *sorted_ids, const size_t *perm, size_t n, long id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted_ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && sorted_ids[lo] == id)
        return (long)perm[lo];
    return -1;
}

typedef struct id_index {
    long id;
    size_t index;
} id_index;

/* By number, then by position, so that the first of two equal numbers comes first. */
static int cmp_id_index(const void *a, const void *b)
{
    const id_index *p = a, *q = b;
    if (p->id != q->id)
        return p->id < q->id ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

int fe_node_sort(const fe_mesh *m, const char *source, long **sorted_ids, size_t **perm,
                 ldem_err *err)
{
    *sorted_ids = NULL;
    *perm = NULL;
    size_t n = m->nnodes;
    id_index *tmp = malloc((n ? n : 1) * sizeof *tmp);
    long *ids = malloc((n ? n : 1) * sizeof *ids);
    size_t *pm = malloc((n ? n : 1) * sizeof *pm);
    if (!tmp || !ids || !pm) {
        free(tmp);
        free(ids);
        free(pm);
        return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory for %zu nodes", n);
    }
    for (size_t i = 0; i < n; i++)
        tmp[i] = (id_index){m->node_id[i], i};
    qsort(tmp, n, sizeof *tmp, cmp_id_index);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && tmp[i].id == tmp[i - 1].id) {
            long dup = tmp[i].id;
            free(tmp);
            free(ids);
            free(pm);
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                "node number %ld is used by two nodes; expected unique "
                                "node numbers", dup);
        }
        ids[i] = tmp[i].id;
        pm[i] = tmp[i].index;
    }
    free(tmp);
    *sorted_ids = ids;
    *perm = pm;
    return LDEM_OK;
}

unsigned char *fe_used_nodes(const fe_mesh *m)
{
    unsigned char *used = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!used)
        return NULL;
    size_t nv = (size_t)m->order * m->ntets;
    for (size_t i = 0; i < nv; i++)
        if (m->tet[i] < m->nnodes)
            used[m->tet[i]] = 1;
    return used;
}

/* ------------------------------------------------------------------ helpers -------- */

int fe_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return 0;
        n *= 2;
    }
    if (n > SIZE_MAX / size)
        return 0;
    void *q = realloc(*p, n * size);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* ------------------------------------------------------------------- lines -------- */

int fe_lines_open(fe_lines *r, const char *path, ldem_err *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "is a directory, not a file");
    r->f = fopen(path, "rb");
    if (!r->f)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    return LDEM_OK;
}

int fe_lines_next(fe_lines *r, ldem_err *err)
{
    r->line = NULL;
    r->len = 0;
    errno = 0;
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) {
        if (ferror(r->f))
            return ldem_err_set(err, LDEM_ERR_IO, r->path, r->lineno + 1, "cannot read: %s",
                                errno ? strerror(errno) : "read error");
        return LDEM_OK;
    }
    r->lineno++;
    size_t len = (size_t)n;
    if (memchr(r->buf, '\0', len))
        return ldem_err_set(err, LDEM_ERR_INPUT, r->path, r->lineno,
                            "binary data (a NUL byte); expected a text file");
    while (len > 0 && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r'))
        len--;
    r->buf[len] = '\0';
    r->line = r->buf;
    r->len = len;
    return LDEM_OK;
}

void fe_lines_close(fe_lines *r)
{
    if (r->f)
        fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

double fe_mesh_extent(const fe_mesh *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < m->nnodes; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], m->xyz[3 * i + d]);
            hi[d] = fmax(hi[d], m->xyz[3 * i + d]);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}
