/* Point location in a tet mesh and interpolation there (fe_locate.h).
 *
 * Inside: a uniform bucket grid over the mesh's bounding box, each element registered in
 * every cell its (padded) bounding box overlaps, so the elements that can hold x are all
 * in x's cell; each candidate is tried with fe_tet_invert.
 * Outside: the boundary faces (faces of exactly one tet), triangulated by their corners
 * and oriented outward, in an lsgen BVH; the closest point on them names a boundary tet,
 * and x takes that point's natural coordinates in it. */
#include "fe_locate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "fe_tet.h"
#include "ldem/log.h"
#include "ldem/mesh.h"

/* Inside test in barycentric terms: a point on a shared face (round-off either way) is
 * inside one of its two tets. */
#define INSIDE_TOL 1e-9
/* Cap on grid cells per element, so that a few huge elements cannot blow up the grid. */
enum { MAX_CELLS_PER_ELEMENT = 8 };

struct fe_locator {
    const fe_mesh *m;
    double lo[3]; /* grid origin */
    double h;     /* cell size */
    size_t dims[3];
    size_t *cell_start; /* ncells + 1 offsets into cell_elems */
    size_t *cell_elems;
    double *box;          /* 6 per element: padded lo xyz, hi xyz */
    ldem_trimesh surface; /* boundary triangles, outward */
    lsgen_bvh *bvh;       /* over surface */
    size_t *face_tet;     /* tet of each boundary triangle */
    size_t *bnodes;       /* boundary corner nodes, ascending */
    size_t nbnodes;
};

static int nomem(ldem_err *err, const char *what)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "fe_locate: out of memory for %s", what);
}

/* ---- element boxes and the bucket grid ---- */

/* Bounding box of element e, padded so that it holds the whole (possibly curved)
 * element: a tet10 deviates from its straight tet by Σ_edges 4 L_a L_b d_ab, with d_ab the
 * midside node's offset from the edge midpoint, and Σ 4 L_a L_b <= 3/2 on the element. */
static void element_box(const fe_mesh *m, size_t e, double box[6])
{
    const size_t *nodes = m->tet + (size_t)m->order * e;
    for (int c = 0; c < 3; c++) {
        box[c] = INFINITY;
        box[3 + c] = -INFINITY;
    }
    for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) {
            double v = m->xyz[3 * nodes[a] + c];
            box[c] = fmin(box[c], v);
            box[3 + c] = fmax(box[3 + c], v);
        }
    double bulge[3] = {0, 0, 0}, size = 0.0;
    if (m->order == FE_TET10) {
        static const int ends[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
        for (int k = 0; k < 6; k++)
            for (int c = 0; c < 3; c++) {
                double mid =
                    0.5 * (m->xyz[3 * nodes[ends[k][0]] + c] + m->xyz[3 * nodes[ends[k][1]] + c]);
                bulge[c] = fmax(bulge[c], 1.5 * fabs(m->xyz[3 * nodes[4 + k] + c] - mid));
            }
    }
    for (int c = 0; c < 3; c++)
        size = fmax(size, box[3 + c] - box[c]);
    /* Plus the inside tolerance and some round-off. */
    double pad = (2.0 * INSIDE_TOL + 1e-12) * size;
    for (int c = 0; c < 3; c++) {
        box[c] -= bulge[c] + pad;
        box[3 + c] += bulge[c] + pad;
    }
}

static size_t cell_coord(const fe_locator *loc, int c, double v)
{
    double f = floor((v - loc->lo[c]) / loc->h);
    if (!(f > 0.0))
        return 0;
    if (f >= (double)loc->dims[c])
        return loc->dims[c] - 1;
    return (size_t)f;
}

/* Visits the cells overlapped by box: counts (pass 0) or fills (pass 1). */
static void register_box(fe_locator *loc, const double box[6], size_t e, size_t *fill, int pass)
{
    size_t c0[3], c1[3];
    for (int c = 0; c < 3; c++) {
        c0[c] = cell_coord(loc, c, box[c]);
        c1[c] = cell_coord(loc, c, box[3 + c]);
    }
    for (size_t k = c0[2]; k <= c1[2]; k++)
        for (size_t j = c0[1]; j <= c1[1]; j++)
            for (size_t i = c0[0]; i <= c1[0]; i++) {
                size_t cell = (k * loc->dims[1] + j) * loc->dims[0] + i;
                if (pass == 0)
                    loc->cell_start[cell + 1]++;
                else
                    loc->cell_elems[fill[cell]++] = e;
            }
}

static int build_grid(fe_locator *loc, ldem_err *err)
{
    const fe_mesh *m = loc->m;
    loc->box = malloc(6 * m->ntets * sizeof(double));
    if (!loc->box)
        return nomem(err, "element boxes");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double mean = 0.0;
    for (size_t e = 0; e < m->ntets; e++) {
        double *b = loc->box + 6 * e;
        element_box(m, e, b);
        double size = 0.0;
        for (int c = 0; c < 3; c++) {
            lo[c] = fmin(lo[c], b[c]);
            hi[c] = fmax(hi[c], b[3 + c]);
            size = fmax(size, b[3 + c] - b[c]);
        }
        mean += size;
    }
    mean /= (double)m->ntets;
    double extent = 0.0;
    for (int c = 0; c < 3; c++) {
        if (!isfinite(lo[c]) || !isfinite(hi[c]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "fe_locate: mesh has non-finite node coordinates");
        extent = fmax(extent, hi[c] - lo[c]);
        loc->lo[c] = lo[c];
    }
    /* Cell size: the mean element size, coarsened if the grid would be much larger than
     * the mesh (a mesh of a thin shell in a big box). */
    double h = mean > 0.0 ? mean : (extent > 0.0 ? extent : 1.0);
    const double max_cells = (double)MAX_CELLS_PER_ELEMENT * (double)m->ntets + 64.0;
    for (;;) {
        double cells = 1.0;
        for (int c = 0; c < 3; c++)
            cells *= fmax(1.0, ceil((hi[c] - lo[c]) / h));
        if (cells <= max_cells)
            break;
        h *= 1.25;
    }
    loc->h = h;
    size_t ncells = 1;
    for (int c = 0; c < 3; c++) {
        loc->dims[c] = (size_t)fmax(1.0, ceil((hi[c] - lo[c]) / h));
        ncells *= loc->dims[c];
    }
    loc->cell_start = calloc(ncells + 1, sizeof(size_t));
    if (!loc->cell_start)
        return nomem(err, "the bucket grid");
    for (size_t e = 0; e < m->ntets; e++)
        register_box(loc, loc->box + 6 * e, e, NULL, 0);
    for (size_t c = 0; c < ncells; c++)
        loc->cell_start[c + 1] += loc->cell_start[c];
    size_t *fill = malloc(ncells * sizeof(size_t));
    loc->cell_elems =
        malloc((loc->cell_start[ncells] ? loc->cell_start[ncells] : 1) * sizeof(size_t));
    if (!fill || !loc->cell_elems) {
        free(fill);
        return nomem(err, "the bucket grid");
    }
    memcpy(fill, loc->cell_start, ncells * sizeof(size_t));
    for (size_t e = 0; e < m->ntets; e++)
        register_box(loc, loc->box + 6 * e, e, fill, 1);
    free(fill);
    return LDEM_OK;
}

/* ---- boundary faces ---- */

typedef struct face_key {
    size_t v[3]; /* corner nodes, ascending */
    size_t tet;
    int opposite; /* local corner not on the face */
} face_key;

static int compare_faces(const void *pa, const void *pb)
{
    const face_key *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    /* Ties by tet, so the sort (and a warning naming a tet) is reproducible. */
    return a->tet < b->tet ? -1 : a->tet > b->tet;
}

static void swap_if_greater(size_t *a, size_t *b)
{
    if (*a > *b) {
        size_t t = *a;
        *a = *b;
        *b = t;
    }
}

static void sort3(size_t v[3])
{
    swap_if_greater(&v[0], &v[1]);
    swap_if_greater(&v[1], &v[2]);
    swap_if_greater(&v[0], &v[1]);
}

/* The face of tet e opposite local corner k, ordered so that its normal points away
 * from that corner (outward from the tet). */
static void outward_face(const fe_mesh *m, size_t e, int k, size_t f[3])
{
    const size_t *nodes = m->tet + (size_t)m->order * e;
    int n = 0;
    for (int a = 0; a < 4; a++)
        if (a != k)
            f[n++] = nodes[a];
    const double *p0 = m->xyz + 3 * f[0], *p1 = m->xyz + 3 * f[1], *p2 = m->xyz + 3 * f[2];
    const double *opp = m->xyz + 3 * nodes[k];
    double u[3], v[3], w[3];
    for (int c = 0; c < 3; c++) {
        u[c] = p1[c] - p0[c];
        v[c] = p2[c] - p0[c];
        w[c] = p0[c] - opp[c];
    }
    double nx = u[1] * v[2] - u[2] * v[1], ny = u[2] * v[0] - u[0] * v[2],
           nz = u[0] * v[1] - u[1] * v[0];
    if (nx * w[0] + ny * w[1] + nz * w[2] < 0.0) {
        size_t t = f[1];
        f[1] = f[2];
        f[2] = t;
    }
}

/* Faces of exactly one tet: appended to *out (as face_key, opposite corner kept). */
static int find_boundary_faces(const fe_mesh *m, face_key **out, size_t *count, ldem_err *err)
{
    size_t nf = 4 * m->ntets;
    face_key *f = malloc(nf * sizeof(face_key));
    if (!f)
        return nomem(err, "the face list");
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *nodes = m->tet + (size_t)m->order * e;
        for (int k = 0; k < 4; k++) {
            face_key *key = &f[4 * e + (size_t)k];
            int n = 0;
            for (int a = 0; a < 4; a++)
                if (a != k)
                    key->v[n++] = nodes[a];
            sort3(key->v);
            key->tet = e;
            key->opposite = k;
        }
    }
    qsort(f, nf, sizeof(face_key), compare_faces);
    size_t nb = 0, overfull = 0;
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && memcmp(f[j].v, f[i].v, sizeof f[i].v) == 0)
            j++;
        if (j - i == 1)
            f[nb++] = f[i];
        else if (j - i > 2)
            overfull++;
        i = j;
    }
    if (overfull)
        ldem_warn("fe_locate: %zu faces are shared by more than two tets (the mesh is not "
                  "a manifold); they are treated as interior",
                  overfull);
    *out = f;
    *count = nb;
    return LDEM_OK;
}

static int build_boundary(fe_locator *loc, ldem_err *err)
{
    const fe_mesh *m = loc->m;
    face_key *faces = NULL;
    size_t nfaces = 0;
    int rc = find_boundary_faces(m, &faces, &nfaces, err);
    if (rc != LDEM_OK)
        return rc;
    if (nfaces == 0) {
        free(faces);
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "fe_locate: the mesh has no boundary faces (expected a closed "
                            "volume mesh)");
    }
    /* Vertex numbers of the boundary nodes, in ascending node order. */
    size_t *vid = malloc(m->nnodes * sizeof(size_t));
    if (!vid) {
        free(faces);
        return nomem(err, "boundary nodes");
    }
    for (size_t n = 0; n < m->nnodes; n++)
        vid[n] = SIZE_MAX;
    for (size_t i = 0; i < nfaces; i++)
        for (int k = 0; k < 3; k++)
            vid[faces[i].v[k]] = 0;
    for (size_t n = 0; n < m->nnodes; n++)
        if (vid[n] == 0)
            loc->nbnodes++;
    ldem_trimesh *tm = &loc->surface;
    loc->bnodes = malloc(loc->nbnodes * sizeof(size_t));
    loc->face_tet = malloc(nfaces * sizeof(size_t));
    rc = (!loc->bnodes || !loc->face_tet) ? nomem(err, "boundary faces")
                                          : ldem_trimesh_alloc(tm, loc->nbnodes, nfaces, err);
    if (rc == LDEM_OK) {
        size_t nv = 0;
        for (size_t n = 0; n < m->nnodes; n++)
            if (vid[n] == 0) {
                loc->bnodes[nv] = n;
                memcpy(tm->xyz + 3 * nv, m->xyz + 3 * n, 3 * sizeof(double));
                vid[n] = nv++;
            }
        for (size_t i = 0; i < nfaces; i++) {
            size_t f[3];
            outward_face(m, faces[i].tet, faces[i].opposite, f);
            for (int k = 0; k < 3; k++)
                tm->tri[3 * i + (size_t)k] = (uint32_t)vid[f[k]];
            loc->face_tet[i] = faces[i].tet;
        }
        rc = lsgen_bvh_build(tm, &loc->bvh, err);
    }
    free(vid);
    free(faces);
    return rc;
}

int fe_locator_build(const fe_mesh *m, fe_locator **out, ldem_err *err)
{
    *out = NULL;
    if (m->order != FE_TET4 && m->order != FE_TET10)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "fe_locate: mesh order %d (expected 4 or 10 nodes per tet)", m->order);
    if (m->ntets == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "fe_locate: the mesh has no tetrahedra");
    fe_locator *loc = calloc(1, sizeof *loc);
    if (!loc)
        return nomem(err, "the locator");
    loc->m = m;
    ldem_trimesh_init(&loc->surface);
    int rc = build_grid(loc, err);
    if (rc == LDEM_OK)
        rc = build_boundary(loc, err);
    if (rc != LDEM_OK) {
        fe_locator_free(loc);
        return rc;
    }
    *out = loc;
    return LDEM_OK;
}

void fe_locator_free(fe_locator *loc)
{
    if (!loc)
        return;
    free(loc->cell_start);
    free(loc->cell_elems);
    free(loc->box);
    lsgen_bvh_free(loc->bvh);
    ldem_trimesh_free(&loc->surface);
    free(loc->face_tet);
    free(loc->bnodes);
    free(loc);
}

/* ---- queries ---- */

static double min_barycentric(const double rst[3])
{
    return fmin(fmin(1.0 - rst[0] - rst[1] - rst[2], rst[0]), fmin(rst[1], rst[2]));
}

static int in_box(const double box[6], const double x[3])
{
    return x[0] >= box[0] && x[1] >= box[1] && x[2] >= box[2] && x[0] <= box[3] && x[1] <= box[4] &&
           x[2] <= box[5];
}

/* The element holding x, preferring one with x strictly inside (ties on shared faces go
 * to the lowest candidate in cell order); 0 if none holds it within INSIDE_TOL. */
static int find_element(const fe_locator *loc, const double x[3], fe_place *p)
{
    size_t cell = 0;
    for (int c = 2; c >= 0; c--) {
        double f = floor((x[c] - loc->lo[c]) / loc->h);
        if (!(f >= 0.0) || f >= (double)loc->dims[c])
            return 0;
        cell = cell * loc->dims[c] + (size_t)f;
    }
    double best = -INFINITY;
    for (size_t k = loc->cell_start[cell]; k < loc->cell_start[cell + 1]; k++) {
        size_t e = loc->cell_elems[k];
        double rst[3];
        if (!in_box(loc->box + 6 * e, x) || !fe_tet_invert(loc->m, e, x, INSIDE_TOL, rst))
            continue;
        double mb = min_barycentric(rst);
        if (mb > best) {
            best = mb;
            p->elem = e;
            memcpy(p->rst, rst, sizeof rst);
        }
        if (mb >= 0.0)
            break;
    }
    return best > -INFINITY;
}

void fe_locate(const fe_locator *loc, const double x[3], fe_place *p)
{
    if (find_element(loc, x, p)) {
        p->inside = 1;
        p->dist = 0.0;
        return;
    }
    lsgen_hit hit;
    double d2 = lsgen_bvh_closest(loc->bvh, ldem_vec3_make(x[0], x[1], x[2]), INFINITY, &hit);
    if (hit.tri == SIZE_MAX) {
        /* Only a non-finite x gets here: a defined answer rather than a wild index. */
        p->elem = 0;
        p->rst[0] = p->rst[1] = p->rst[2] = 0.25;
        p->inside = 0;
        p->dist = NAN;
        return;
    }
    double y[3] = {hit.point.x, hit.point.y, hit.point.z};
    p->elem = loc->face_tet[hit.tri];
    fe_tet_invert(loc->m, p->elem, y, INSIDE_TOL, p->rst);
    p->inside = 0;
    p->dist = sqrt(d2);
}

double fe_boundary_distance(const fe_locator *loc, const double x[3])
{
    return sqrt(lsgen_bvh_closest(loc->bvh, ldem_vec3_make(x[0], x[1], x[2]), INFINITY, NULL));
}

const size_t *fe_boundary_nodes(const fe_locator *loc, size_t *count)
{
    *count = loc->nbnodes;
    return loc->bnodes;
}

const ldem_trimesh *fe_boundary_surface(const fe_locator *loc, const size_t **face_tet)
{
    if (face_tet)
        *face_tet = loc->face_tet;
    return &loc->surface;
}

void fe_interpolate(const fe_mesh *m, const fe_place *p, const double *fields, size_t n,
                    double *out)
{
    double N[FE_TET10];
    const size_t *nodes = m->tet + (size_t)m->order * p->elem;
    const size_t stride = 3 * m->nnodes;
    fe_tet_shape(m->order, p->rst, N, NULL);
    for (size_t i = 0; i < n; i++) {
        const double *f = fields + i * stride;
        for (int c = 0; c < 3; c++) {
            double s = 0.0;
            for (int a = 0; a < m->order; a++)
                s += N[a] * f[3 * nodes[a] + (size_t)c];
            out[3 * i + (size_t)c] = s;
        }
    }
}
