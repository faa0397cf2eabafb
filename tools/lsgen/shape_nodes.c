/* Surface nodes of the analytic shapes: a lattice on the faces of the cube [-1,1]^3,
 * mapped onto the shape by the kind's cube_to_surface (shape_kinds.h), then triangulated.
 *
 * The cube's surface lattice has n[j] cells along axis j on every face containing that
 * direction, so faces share their edge vertices and the triangulation is a closed
 * 2-manifold of genus 0 (V - E + F = 2) by construction; each vertex is mapped once, so a
 * shared vertex is the same point for both faces. Each lattice square becomes two
 * triangles, split along the diagonal that gives the larger smallest angle on the shape.
 *
 * Kinds with a lattice of their own (sphere, cuboid, cylinder) place it uniformly in the
 * cube's coordinates, their maps being uniform already. For the others (ellipsoid,
 * superquadric) the lattice lines are placed at equal arc length along the faces' mapped
 * centre lines, with an even number of cells per axis so that lines run along the
 * symmetry planes: through the tips, and along the creases an exponent e > 1 puts there
 * (a chord cutting a crease would lose area). Their vertices are then smoothed
 * tangentially: each moves half way towards the area-weighted centroid of its incident
 * triangles, within its tangent plane (and its symmetry planes), and back onto the
 * surface along the ray from the origin (x / gauge(x)). This evens out triangle sizes and
 * shapes without changing the connectivity; the diagonals are chosen again after.
 *
 * Every node is then on the surface to rounding, its normal is the shape's exact normal
 * and its area weight a third of its incident triangles' areas (lsgen_nodes_from_mesh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "shape.h"
#include "shape_kinds.h"
#include "surface_nodes.h"
#include "ldem/mesh.h"

#define MAX_NODES 50000000L
#define SMOOTHING_PASSES 40

typedef struct lattice {
    long n[3];
    double *line[3]; /* n[j] + 1 cube coordinates of the lattice lines along axis j */
    long full, ring; /* vertices of a full z layer and of a ring layer */
} lattice;

static void lattice_free(lattice *L)
{
    for (int j = 0; j < 3; j++) {
        free(L->line[j]);
        L->line[j] = NULL;
    }
}

static long layer_offset(const lattice *L, long k)
{
    return k == 0 ? 0 : L->full + (k - 1) * L->ring;
}

/* Index of the surface lattice vertex (i, j, k) (at least one index on its boundary). */
static uint32_t vertex_id(const lattice *L, long i, long j, long k)
{
    const long nx = L->n[0], ny = L->n[1], nz = L->n[2];
    long off = layer_offset(L, k), idx;
    if (k == 0 || k == nz)
        idx = i + (nx + 1) * j;
    else if (j == 0)
        idx = i;
    else if (i == nx)
        idx = nx + j;
    else if (j == ny)
        idx = nx + ny + (nx - i);
    else
        idx = 2 * nx + ny + (ny - j);
    return (uint32_t)(off + idx);
}

static int alloc_lines(lattice *L, ldem_err *err)
{
    for (int j = 0; j < 3; j++) {
        L->line[j] = malloc(((size_t)L->n[j] + 1) * sizeof *L->line[j]);
        if (!L->line[j]) {
            lattice_free(L);
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for the node lattice");
        }
    }
    return LDEM_OK;
}

/* Lines uniform in the cube's coordinates, exactly -1, 0 (n even) and 1 where they fall. */
static void uniform_lines(lattice *L)
{
    for (int j = 0; j < 3; j++) {
        long n = L->n[j];
        for (long i = 0; i <= n; i++)
            L->line[j][i] = 2 * i == n ? 0.0 : -1.0 + 2.0 * (double)i / (double)n;
        L->line[j][0] = -1.0;
        L->line[j][n] = 1.0;
    }
}

/* For kinds without a lattice of their own: along axis j, the mean of the arc lengths
 * along the two cube faces' mapped centre lines (u_j in [-1, 1], the other tangential
 * coordinate 0) sets an even number of cells (so that lattice lines lie on the symmetry
 * planes, through the tips and along any crease there) and places the lines at equal arc
 * length, symmetrically about 0. */
#define ARC_SAMPLES 1024

static int arc_lattice(const lsgen_shape *s, const lsgen_shape_ops *ops, double spacing,
                       lattice *L, ldem_err *err)
{
    double cum[3][ARC_SAMPLES + 1];
    double total[3];
    for (int j = 0; j < 3; j++) {
        for (int m = 0; m <= ARC_SAMPLES; m++)
            cum[j][m] = 0.0;
        for (int f = 1; f <= 2; f++) {
            int face = (j + f) % 3;
            ldem_vec3 prev = ldem_vec3_zero();
            double len = 0.0;
            for (int m = 0; m <= ARC_SAMPLES; m++) {
                double u[3] = {0.0, 0.0, 0.0};
                u[face] = 1.0;
                u[j] = -1.0 + 2.0 * m / ARC_SAMPLES;
                ldem_vec3 p = ops->cube_to_surface(s, ldem_vec3_make(u[0], u[1], u[2]));
                if (m > 0)
                    len += ldem_vec3_dist(p, prev);
                prev = p;
                cum[j][m] += 0.5 * len;
            }
        }
        total[j] = cum[j][ARC_SAMPLES];
        L->n[j] = 2 * lsgen_cells_for(0.5 * total[j], spacing);
    }
    if (total[0] / spacing > 1e6 || total[1] / spacing > 1e6 || total[2] / spacing > 1e6)
        return LDEM_ERR_USAGE; /* caller reports the node count */
    int rc = alloc_lines(L, err);
    if (rc)
        return rc;
    for (int j = 0; j < 3; j++) {
        long n = L->n[j];
        double *line = L->line[j];
        line[0] = -1.0;
        line[n / 2] = 0.0;
        line[n] = 1.0;
        int m = 0;
        for (long k = 1; k < n / 2; k++) {
            double target = total[j] * (double)k / (double)n;
            while (m < ARC_SAMPLES - 1 && cum[j][m + 1] < target)
                m++;
            double span = cum[j][m + 1] - cum[j][m];
            double t = span > 0.0 ? (target - cum[j][m]) / span : 0.0;
            double u = -1.0 + 2.0 * (m + t) / ARC_SAMPLES;
            line[k] = u;
            line[n - k] = -u;
        }
    }
    return LDEM_OK;
}

static ldem_vec3 vertex_at(const ldem_trimesh *m, uint32_t v)
{
    const double *p = m->xyz + 3 * (size_t)v;
    return ldem_vec3_make(p[0], p[1], p[2]);
}

static void set_vertex(ldem_trimesh *m, uint32_t v, ldem_vec3 p)
{
    double *q = m->xyz + 3 * (size_t)v;
    q[0] = p.x;
    q[1] = p.y;
    q[2] = p.z;
}

static void place_vertices(const lsgen_shape *s, const lsgen_shape_ops *ops, const lattice *L,
                           ldem_trimesh *m)
{
    const long nx = L->n[0], ny = L->n[1], nz = L->n[2];
    for (long k = 0; k <= nz; k++)
        for (long j = 0; j <= ny; j++)
            for (long i = 0; i <= nx; i++) {
                int boundary = i == 0 || i == nx || j == 0 || j == ny || k == 0 || k == nz;
                if (!boundary) {
                    i = nx - 1; /* skip the interior of this row */
                    continue;
                }
                ldem_vec3 u = ldem_vec3_make(L->line[0][i], L->line[1][j], L->line[2][k]);
                set_vertex(m, vertex_id(L, i, j, k), ops->cube_to_surface(s, u));
            }
}

/* Smallest angle of triangle (a, b, c). */
static double min_angle(ldem_vec3 a, ldem_vec3 b, ldem_vec3 c)
{
    const ldem_vec3 p[3] = {a, b, c};
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        ldem_vec3 u = ldem_vec3_sub(p[(i + 1) % 3], p[i]), v = ldem_vec3_sub(p[(i + 2) % 3], p[i]);
        best = fmin(best, atan2(ldem_vec3_norm(ldem_vec3_cross(u, v)), ldem_vec3_dot(u, v)));
    }
    return best;
}

/* Write the two triangles of the quad (q0 q1 q2 q3, counter-clockwise from outside). */
static void split_quad(const ldem_trimesh *m, const uint32_t q[4], uint32_t *t)
{
    ldem_vec3 p[4];
    for (int i = 0; i < 4; i++)
        p[i] = vertex_at(m, q[i]);
    double along02 = fmin(min_angle(p[0], p[1], p[2]), min_angle(p[0], p[2], p[3]));
    double along13 = fmin(min_angle(p[0], p[1], p[3]), min_angle(p[1], p[2], p[3]));
    const uint32_t a[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
    const uint32_t b[6] = {q[0], q[1], q[3], q[1], q[2], q[3]};
    const uint32_t *use = along02 >= along13 ? a : b;
    for (int i = 0; i < 6; i++)
        t[i] = use[i];
}

/* The lattice squares of the six faces, in a fixed order, as vertex quads. */
static void face_quads(const lattice *L, uint32_t *quads)
{
    size_t nq = 0;
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3; /* e_b x e_c = e_a */
        for (int side = 0; side < 2; side++) {
            for (long t = 0; t < L->n[c]; t++)
                for (long s = 0; s < L->n[b]; s++) {
                    long corner[4][2] = {{s, t}, {s + 1, t}, {s + 1, t + 1}, {s, t + 1}};
                    uint32_t q[4];
                    for (int v = 0; v < 4; v++) {
                        long idx[3];
                        idx[a] = side ? L->n[a] : 0;
                        idx[b] = corner[v][0];
                        idx[c] = corner[v][1];
                        q[v] = vertex_id(L, idx[0], idx[1], idx[2]);
                    }
                    /* Counter-clockwise seen from +a; the face on the - side is seen from -a. */
                    for (int v = 0; v < 4; v++)
                        quads[4 * nq + (size_t)v] = side ? q[v] : q[3 - v];
                    nq++;
                }
        }
    }
}

static void triangulate(ldem_trimesh *m, const uint32_t *quads, size_t nquads)
{
    for (size_t k = 0; k < nquads; k++)
        split_quad(m, quads + 4 * k, m->tri + 6 * k);
}

/* Tangential smoothing with radial reprojection (file comment). */
static int smooth(const lsgen_shape *s, const lsgen_shape_ops *ops, ldem_trimesh *m,
                  ldem_err *err)
{
    const size_t nv = m->nverts, nt = m->ntris;
    double *acc = calloc(4 * nv, sizeof *acc);
    double *next = malloc(3 * nv * sizeof *next);
    if (!acc || !next) {
        free(acc);
        free(next);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory smoothing %zu surface nodes", nv);
    }
    for (int pass = 0; pass < SMOOTHING_PASSES; pass++) {
        for (size_t i = 0; i < 4 * nv; i++)
            acc[i] = 0.0;
        for (size_t t = 0; t < nt; t++) {
            const uint32_t *v = m->tri + 3 * t;
            ldem_vec3 a = vertex_at(m, v[0]), b = vertex_at(m, v[1]), c = vertex_at(m, v[2]);
            double area = 0.5 * ldem_vec3_norm(ldem_vec3_cross(ldem_vec3_sub(b, a),
                                                               ldem_vec3_sub(c, a)));
            ldem_vec3 centroid = ldem_vec3_scale(ldem_vec3_add(a, ldem_vec3_add(b, c)), 1.0 / 3.0);
            for (int k = 0; k < 3; k++) {
                double *q = acc + 4 * (size_t)v[k];
                q[0] += area * centroid.x;
                q[1] += area * centroid.y;
                q[2] += area * centroid.z;
                q[3] += area;
            }
        }
        for (size_t i = 0; i < nv; i++) {
            ldem_vec3 p = vertex_at(m, (uint32_t)i);
            const double *q = acc + 4 * i;
            ldem_vec3 target = ldem_vec3_make(q[0] / q[3], q[1] / q[3], q[2] / q[3]);
            ldem_vec3 n = ops->normal(s, p);
            ldem_vec3 move = ldem_vec3_reject(ldem_vec3_sub(target, p), n);
            ldem_vec3 x = ldem_vec3_axpy(0.5, move, p);
            /* Nodes on a symmetry plane stay on it: the lattice put lines there to carry
             * the tips and any crease of the surface. */
            if (p.x == 0.0)
                x.x = 0.0;
            if (p.y == 0.0)
                x.y = 0.0;
            if (p.z == 0.0)
                x.z = 0.0;
            x = ldem_vec3_scale(x, 1.0 / ops->gauge(s, x));
            next[3 * i] = x.x;
            next[3 * i + 1] = x.y;
            next[3 * i + 2] = x.z;
        }
        for (size_t i = 0; i < 3 * nv; i++)
            m->xyz[i] = next[i];
    }
    free(acc);
    free(next);
    return LDEM_OK;
}

int lsgen_shape_nodes(const lsgen_shape *s, double spacing, ldem_nodes *out, ldem_err *err)
{
    int rc = lsgen_shape_validate(s, err);
    if (rc)
        return rc;
    if (!(isfinite(spacing) && spacing > 0.0))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "node spacing %g: expected a finite positive length", spacing);
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    lattice L;
    /* Bound the counts before multiplying them: a spacing far below the size would
     * overflow the lattice arithmetic. */
    double hmax = fmax(s->semi[0], fmax(s->semi[1], s->semi[2]));
    if (hmax / spacing > 1e5)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "node spacing %g is too fine for a %s of size %g: expected at "
                            "least %g", spacing, ops->name, 2.0 * hmax, hmax * 1e-5);
    L.line[0] = L.line[1] = L.line[2] = NULL;
    if (ops->lattice) {
        ops->lattice(s, spacing, L.n);
        rc = alloc_lines(&L, err);
        if (!rc)
            uniform_lines(&L);
    } else {
        rc = arc_lattice(s, ops, spacing, &L, err);
    }
    const long nx = L.n[0], ny = L.n[1], nz = L.n[2];
    long quads = 2 * (nx * ny + ny * nz + nz * nx);
    long verts = quads + 2;
    if (rc == LDEM_ERR_USAGE || verts > MAX_NODES) {
        lattice_free(&L);
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "node spacing %g would give %ld surface nodes on this %s: "
                            "expected at most %ld (use a larger --node-spacing)",
                            spacing, verts, ops->name, MAX_NODES);
    }
    if (rc)
        return rc;
    L.full = (nx + 1) * (ny + 1);
    L.ring = 2 * nx + 2 * ny;

    ldem_trimesh m;
    ldem_trimesh_init(&m);
    uint32_t *quad = malloc(4 * (size_t)quads * sizeof *quad);
    rc = quad ? ldem_trimesh_alloc(&m, (size_t)verts, 2 * (size_t)quads, err)
              : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                             "out of memory for %ld surface nodes", verts);
    if (rc) {
        free(quad);
        lattice_free(&L);
        return rc;
    }
    place_vertices(s, ops, &L, &m);
    lattice_free(&L);
    face_quads(&L, quad);
    triangulate(&m, quad, (size_t)quads);
    if (ops->gauge) {
        rc = smooth(s, ops, &m, err);
        if (!rc)
            triangulate(&m, quad, (size_t)quads);
    }
    free(quad);
    if (!rc)
        rc = lsgen_nodes_from_mesh(&m, out, err);
    ldem_trimesh_free(&m);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < out->count; i++) {
        double *p = out->position + 3 * i, *n = out->normal + 3 * i;
        ldem_vec3 nv = ops->normal(s, ldem_vec3_make(p[0], p[1], p[2]));
        n[0] = nv.x;
        n[1] = nv.y;
        n[2] = nv.z;
    }
    return LDEM_OK;
}
