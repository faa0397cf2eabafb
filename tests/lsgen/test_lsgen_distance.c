/* Unit tests of lsgen's mesh distance and sign (tridist.h, bvh.h, sdfgrid.h).
 *
 * References are independent of the code under test: closed-form answers in each Voronoi
 * region of a triangle, a fine barycentric sampling, brute-force minima over all triangles,
 * the exact winding number by direct summation, and analytic solid angles. Meshes are built
 * here: an icosphere projected to a sphere, a (rotated) cube, a torus from its parametric
 * grid, a random triangle soup, and an icosphere with a hole. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bvh.h"
#include "ldem/grid.h"
#include "ldem/mesh.h"
#include "sdfgrid.h"
#include "shape.h"
#include "tridist.h"

#define PI 3.14159265358979323846

/* ---- small helpers ---- */

static uint64_t rng_state = 88172645463325252ULL;

static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 1;
}

/* xorshift64*: uniform in [0, 1). */
static double rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static double rnd_in(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

/* Drawn one statement at a time: the order in which a call's arguments are evaluated is
 * unspecified (GCC and Clang differ), and the points must not depend on the compiler. */
static ldem_vec3 rnd_vec(double lo, double hi)
{
    double x = rnd_in(lo, hi);
    double y = rnd_in(lo, hi);
    double z = rnd_in(lo, hi);
    return ldem_vec3_make(x, y, z);
}

static ldem_vec3 v3(double x, double y, double z)
{
    return ldem_vec3_make(x, y, z);
}

/* A random rotation (unit quaternion from four normal-ish samples) as a matrix. */
static void random_rotation(double R[3][3])
{
    double q[4], n = 0.0;
    for (int i = 0; i < 4; i++) {
        q[i] = rnd_in(-1.0, 1.0);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(R, M, sizeof M);
}

static ldem_vec3 rotate(double R[3][3], ldem_vec3 v)
{
    return v3(R[0][0] * v.x + R[0][1] * v.y + R[0][2] * v.z,
              R[1][0] * v.x + R[1][1] * v.y + R[1][2] * v.z,
              R[2][0] * v.x + R[2][1] * v.y + R[2][2] * v.z);
}

static ldem_vec3 vertex(const ldem_trimesh *m, size_t t, int k)
{
    const double *p = m->xyz + 3 * (size_t)m->tri[3 * t + k];
    return v3(p[0], p[1], p[2]);
}

/* ---- meshes ---- */

static void mesh_alloc(ldem_trimesh *m, size_t nv, size_t nt)
{
    ldem_err err;
    ldem_trimesh_init(m);
    cr_assert_eq(ldem_trimesh_alloc(m, nv, nt, &err), LDEM_OK, "%s", err.msg);
}

static void set_vertex(ldem_trimesh *m, size_t i, ldem_vec3 p)
{
    m->xyz[3 * i] = p.x;
    m->xyz[3 * i + 1] = p.y;
    m->xyz[3 * i + 2] = p.z;
}

static void set_tri(ldem_trimesh *m, size_t t, uint32_t a, uint32_t b, uint32_t c)
{
    m->tri[3 * t] = a;
    m->tri[3 * t + 1] = b;
    m->tri[3 * t + 2] = c;
}

/* Reorder triangles so that their normal points away from `centre` (convex shapes). */
static void orient_outward(ldem_trimesh *m, ldem_vec3 centre)
{
    for (size_t t = 0; t < m->ntris; t++) {
        ldem_vec3 a = vertex(m, t, 0), b = vertex(m, t, 1), c = vertex(m, t, 2);
        ldem_vec3 n = ldem_vec3_cross(ldem_vec3_sub(b, a), ldem_vec3_sub(c, a));
        if (ldem_vec3_dot(n, ldem_vec3_sub(a, centre)) < 0.0) {
            uint32_t s = m->tri[3 * t + 1];
            m->tri[3 * t + 1] = m->tri[3 * t + 2];
            m->tri[3 * t + 2] = s;
        }
    }
}

/* Midpoint cache for subdivision: open addressing on the (lower, higher) vertex pair. */
typedef struct midpoints {
    uint64_t *key;
    uint32_t *value;
    size_t size;
} midpoints;

static uint32_t midpoint(midpoints *h, ldem_trimesh *m, size_t *nv, uint32_t a, uint32_t b,
                         double radius, ldem_vec3 centre)
{
    uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 20) % h->size;
    while (h->key[i] != UINT64_MAX && h->key[i] != key)
        i = (i + 1) % h->size;
    if (h->key[i] == key)
        return h->value[i];
    ldem_vec3 pa = v3(m->xyz[3 * a], m->xyz[3 * a + 1], m->xyz[3 * a + 2]);
    ldem_vec3 pb = v3(m->xyz[3 * b], m->xyz[3 * b + 1], m->xyz[3 * b + 2]);
    ldem_vec3 mid = ldem_vec3_scale(ldem_vec3_add(pa, pb), 0.5);
    ldem_vec3 dir = ldem_vec3_normalize(ldem_vec3_sub(mid, centre));
    set_vertex(m, *nv, ldem_vec3_axpy(radius, dir, centre));
    h->key[i] = key;
    h->value[i] = (uint32_t)*nv;
    return (uint32_t)(*nv)++;
}

/* Icosahedron subdivided `levels` times, vertices on the sphere: 20·4^levels triangles. */
static void icosphere(ldem_trimesh *out, int levels, double radius, ldem_vec3 centre)
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const uint32_t faces[20][3] = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    size_t ntri = 20, nvert = 12;
    for (int l = 0; l < levels; l++) {
        nvert += ntri * 3 / 2;
        ntri *= 4;
    }
    ldem_trimesh m;
    mesh_alloc(&m, nvert, ntri);
    for (int i = 0; i < 12; i++)
        set_vertex(&m, i,
                   ldem_vec3_axpy(radius,
                                  ldem_vec3_normalize(v3(base[i][0], base[i][1], base[i][2])),
                                  centre));
    uint32_t *tri = malloc(3 * ntri * sizeof *tri), *next = malloc(3 * ntri * sizeof *next);
    memcpy(tri, faces, sizeof faces);
    size_t nt = 20, nv = 12;
    midpoints h = {malloc(4 * ntri * sizeof(uint64_t)), malloc(4 * ntri * sizeof(uint32_t)),
                   4 * ntri};
    for (int l = 0; l < levels; l++) {
        memset(h.key, 0xff, h.size * sizeof *h.key);
        for (size_t f = 0; f < nt; f++) {
            uint32_t a = tri[3 * f], b = tri[3 * f + 1], c = tri[3 * f + 2];
            uint32_t ab = midpoint(&h, &m, &nv, a, b, radius, centre);
            uint32_t bc = midpoint(&h, &m, &nv, b, c, radius, centre);
            uint32_t ca = midpoint(&h, &m, &nv, c, a, radius, centre);
            const uint32_t sub[4][3] = {{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}};
            memcpy(next + 12 * f, sub, sizeof sub);
        }
        nt *= 4;
        uint32_t *s = tri;
        tri = next;
        next = s;
    }
    cr_assert_eq(nv, nvert);
    memcpy(m.tri, tri, 3 * ntri * sizeof *tri);
    free(tri);
    free(next);
    free(h.key);
    free(h.value);
    orient_outward(&m, centre);
    *out = m;
}

/* Cube of half edge `half`, rotated by R about the origin then moved to `centre`. */
static void cube(ldem_trimesh *m, double half, double R[3][3], ldem_vec3 centre)
{
    mesh_alloc(m, 8, 12);
    for (int i = 0; i < 8; i++) {
        ldem_vec3 p = v3((i & 1) ? half : -half, (i & 2) ? half : -half, (i & 4) ? half : -half);
        set_vertex(m, i, ldem_vec3_add(rotate(R, p), centre));
    }
    /* Faces as quads (corner bits), split along a diagonal; orientation fixed below. */
    static const uint32_t quads[6][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                         {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++) {
        set_tri(m, 2 * f, quads[f][0], quads[f][1], quads[f][2]);
        set_tri(m, 2 * f + 1, quads[f][0], quads[f][2], quads[f][3]);
    }
    orient_outward(m, centre);
}

/* Torus about the z axis, major radius Rm, minor r, nu × nv quads, outward normals. */
static void torus(ldem_trimesh *m, double Rm, double r, int nu, int nv, ldem_vec3 centre)
{
    mesh_alloc(m, (size_t)nu * nv, 2 * (size_t)nu * nv);
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            double u = 2 * PI * i / nu, v = 2 * PI * j / nv;
            set_vertex(m, (size_t)i * nv + j,
                       ldem_vec3_add(centre, v3((Rm + r * cos(v)) * cos(u),
                                                (Rm + r * cos(v)) * sin(u), r * sin(v))));
        }
    size_t t = 0;
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            uint32_t a = (uint32_t)(i * nv + j), b = (uint32_t)(((i + 1) % nu) * nv + j);
            uint32_t c = (uint32_t)(((i + 1) % nu) * nv + (j + 1) % nv);
            uint32_t d = (uint32_t)(i * nv + (j + 1) % nv);
            set_tri(m, t++, a, b, c); /* u then v: (∂u × ∂v) points outward */
            set_tri(m, t++, a, c, d);
        }
}

/* Unconnected random triangles of size up to `size` in [-1, 1]^3. */
static void soup(ldem_trimesh *m, size_t n, double size)
{
    mesh_alloc(m, 3 * n, n);
    for (size_t t = 0; t < n; t++) {
        ldem_vec3 c = rnd_vec(-1.0, 1.0);
        for (int k = 0; k < 3; k++)
            set_vertex(m, 3 * t + k, ldem_vec3_add(c, rnd_vec(-size, size)));
        set_tri(m, t, (uint32_t)(3 * t), (uint32_t)(3 * t + 1), (uint32_t)(3 * t + 2));
    }
}

/* Drop the triangles with a vertex within `radius` of `where`; returns how many. */
static size_t punch_hole(ldem_trimesh *m, ldem_vec3 where, double radius)
{
    size_t kept = 0;
    for (size_t t = 0; t < m->ntris; t++) {
        int near = 0;
        for (int k = 0; k < 3; k++)
            near = near || ldem_vec3_dist(vertex(m, t, k), where) < radius;
        if (!near) {
            memmove(m->tri + 3 * kept, m->tri + 3 * t, 3 * sizeof *m->tri);
            kept++;
        }
    }
    size_t removed = m->ntris - kept;
    m->ntris = kept;
    return removed;
}

static void reverse_all(ldem_trimesh *m)
{
    for (size_t t = 0; t < m->ntris; t++) {
        uint32_t s = m->tri[3 * t + 1];
        m->tri[3 * t + 1] = m->tri[3 * t + 2];
        m->tri[3 * t + 2] = s;
    }
}

static lsgen_bvh *bvh_of(const ldem_trimesh *m)
{
    ldem_err err;
    lsgen_bvh *b = NULL;
    cr_assert_eq(lsgen_bvh_build(m, &b, &err), LDEM_OK, "%s", err.msg);
    cr_assert_not_null(b);
    return b;
}

/* ---- brute-force references ---- */

static double brute_closest(const ldem_trimesh *m, ldem_vec3 x, size_t *tri)
{
    double best = INFINITY;
    *tri = SIZE_MAX;
    for (size_t t = 0; t < m->ntris; t++) {
        double d2 =
            lsgen_tri_closest(x, vertex(m, t, 0), vertex(m, t, 1), vertex(m, t, 2), NULL, NULL);
        if (d2 < best) {
            best = d2;
            *tri = t;
        }
    }
    return best;
}

static double brute_sdf(const ldem_trimesh *m, ldem_vec3 x)
{
    size_t t;
    double d = sqrt(brute_closest(m, x, &t));
    return lsgen_mesh_winding_exact(m, x) >= 0.5 ? -d : d;
}

static void mesh_bbox(const ldem_trimesh *m, ldem_vec3 *lo, ldem_vec3 *hi)
{
    *lo = v3(INFINITY, INFINITY, INFINITY);
    *hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t i = 0; i < m->nverts; i++) {
        lo->x = fmin(lo->x, m->xyz[3 * i]);
        lo->y = fmin(lo->y, m->xyz[3 * i + 1]);
        lo->z = fmin(lo->z, m->xyz[3 * i + 2]);
        hi->x = fmax(hi->x, m->xyz[3 * i]);
        hi->y = fmax(hi->y, m->xyz[3 * i + 1]);
        hi->z = fmax(hi->z, m->xyz[3 * i + 2]);
    }
}

/* ---- lsgen_tri_closest ---- */

/* Points in each of the seven Voronoi regions of a right triangle in z = 0, with the
 * closest point worked out by hand. */
typedef struct region_case {
    ldem_vec3 p, q;
    int feature;
} region_case;

static const region_case REGION_CASES[] = {
    {{-1.0, -1.0, 0.5}, {0, 0, 0}, LSGEN_TRI_VA},
    {{2.0, -0.5, 0.3}, {1, 0, 0}, LSGEN_TRI_VB},
    {{-0.5, 2.0, -0.2}, {0, 1, 0}, LSGEN_TRI_VC},
    {{0.3, -1.0, 0.4}, {0.3, 0, 0}, LSGEN_TRI_EAB},
    {{1.0, 1.0, 0.5}, {0.5, 0.5, 0}, LSGEN_TRI_EBC},
    {{-2.0, 0.6, 1.0}, {0, 0.6, 0}, LSGEN_TRI_ECA},
    {{0.2, 0.3, -0.7}, {0.2, 0.3, 0}, LSGEN_TRI_FACE},
};
#define NREGION (sizeof REGION_CASES / sizeof REGION_CASES[0])

Test(lsgen_tridist, voronoi_regions_exact)
{
    ldem_vec3 a = v3(0, 0, 0), b = v3(1, 0, 0), c = v3(0, 1, 0);
    for (size_t i = 0; i < NREGION; i++) {
        const region_case *rc = &REGION_CASES[i];
        ldem_vec3 q;
        int f;
        double d2 = lsgen_tri_closest(rc->p, a, b, c, &q, &f);
        double want = ldem_vec3_norm2(ldem_vec3_sub(rc->p, rc->q));
        cr_assert_eq(f, rc->feature, "case %zu: feature %d, expected %d", i, f, rc->feature);
        cr_assert_leq(fabs(d2 - want), 1e-15 * want, "case %zu: %.17g vs %.17g", i, d2, want);
        cr_assert_leq(ldem_vec3_dist(q, rc->q), 1e-15, "case %zu", i);
    }
}

/* The same cases rotated and moved 1e6 away: coordinates then carry 1e6·2^-53 ≈ 1.1e-10 of
 * round-off, so distances and closest points must agree to ~1e-9 absolute (a formulation
 * that subtracted absolute positions would lose far more in d²). */
Test(lsgen_tridist, voronoi_regions_far_and_rotated)
{
    rng_seed(7);
    for (int trial = 0; trial < 20; trial++) {
        double R[3][3];
        random_rotation(R);
        ldem_vec3 shift = ldem_vec3_scale(ldem_vec3_normalize(rnd_vec(-1, 1)), 1e6);
        ldem_vec3 a = shift, b = ldem_vec3_add(rotate(R, v3(1, 0, 0)), shift),
                  c = ldem_vec3_add(rotate(R, v3(0, 1, 0)), shift);
        for (size_t i = 0; i < NREGION; i++) {
            const region_case *rc = &REGION_CASES[i];
            ldem_vec3 p = ldem_vec3_add(rotate(R, rc->p), shift);
            ldem_vec3 qwant = ldem_vec3_add(rotate(R, rc->q), shift);
            ldem_vec3 q;
            int f;
            double d = sqrt(lsgen_tri_closest(p, a, b, c, &q, &f));
            double want = ldem_vec3_dist(rc->p, rc->q);
            cr_assert_eq(f, rc->feature, "trial %d case %zu", trial, i);
            cr_assert_leq(fabs(d - want), 1e-9, "trial %d case %zu: %.17g vs %.17g", trial, i, d,
                          want);
            cr_assert_leq(ldem_vec3_dist(q, qwant), 1e-9, "trial %d case %zu", trial, i);
        }
    }
}

/* Random triangles and points: the exact distance never exceeds the minimum over a fine
 * barycentric sampling and is within the sampling's resolution below it; the reported
 * closest point lies on the triangle and at the reported distance. */
Test(lsgen_tridist, barycentric_sampling)
{
    rng_seed(11);
    const int N = 120; /* samples per edge */
    for (int trial = 0; trial < 300; trial++) {
        ldem_vec3 a = rnd_vec(-1, 1), b = rnd_vec(-1, 1), c = rnd_vec(-1, 1);
        ldem_vec3 p = rnd_vec(-2, 2);
        ldem_vec3 q;
        int f;
        double d = sqrt(lsgen_tri_closest(p, a, b, c, &q, &f));
        double sampled = INFINITY, edge = 0.0;
        for (int i = 0; i <= N; i++)
            for (int j = 0; i + j <= N; j++) {
                double u = (double)i / N, v = (double)j / N;
                ldem_vec3 s =
                    ldem_vec3_add(ldem_vec3_scale(a, 1 - u - v),
                                  ldem_vec3_add(ldem_vec3_scale(b, u), ldem_vec3_scale(c, v)));
                sampled = fmin(sampled, ldem_vec3_dist(p, s));
            }
        edge = fmax(ldem_vec3_dist(a, b), fmax(ldem_vec3_dist(b, c), ldem_vec3_dist(c, a)));
        cr_assert_leq(d, sampled + 1e-14, "trial %d: exact %.17g above a sample %.17g", trial, d,
                      sampled);
        /* Every point of the triangle is within edge/N of a sample. */
        cr_assert_geq(d, sampled - edge / N, "trial %d", trial);
        cr_assert_leq(fabs(ldem_vec3_dist(p, q) - d), 1e-14, "trial %d", trial);
        /* q on the triangle: distance 0 from it. */
        cr_assert_leq(lsgen_tri_closest(q, a, b, c, NULL, NULL), 1e-28, "trial %d", trial);
        cr_assert(f >= LSGEN_TRI_VA && f <= LSGEN_TRI_FACE);
    }
}

static double segment_distance(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b)
{
    ldem_vec3 e = ldem_vec3_sub(b, a);
    double e2 = ldem_vec3_norm2(e);
    double t = e2 > 0 ? ldem_vec3_dot(ldem_vec3_sub(p, a), e) / e2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return ldem_vec3_dist(p, ldem_vec3_axpy(t, e, a));
}

/* Zero-area triangles: collinear (the middle vertex in either slot), two or three coincident
 * vertices. The distance is that to the segment (or point) they span. */
Test(lsgen_tridist, degenerate_triangles)
{
    rng_seed(13);
    for (int trial = 0; trial < 200; trial++) {
        ldem_vec3 a = rnd_vec(-1, 1), b = rnd_vec(-1, 1), p = rnd_vec(-2, 2);
        ldem_vec3 mid = ldem_vec3_scale(ldem_vec3_add(a, b), 0.5);
        ldem_vec3 tris[4][3] = {{a, b, mid}, {a, mid, b}, {a, a, b}, {a, a, a}};
        double want[4] = {segment_distance(p, a, b), segment_distance(p, a, b),
                          segment_distance(p, a, b), ldem_vec3_dist(p, a)};
        for (int k = 0; k < 4; k++) {
            ldem_vec3 q;
            int f;
            double d = sqrt(lsgen_tri_closest(p, tris[k][0], tris[k][1], tris[k][2], &q, &f));
            cr_assert(isfinite(d));
            cr_assert_leq(fabs(d - want[k]), 1e-14, "trial %d kind %d: %.17g vs %.17g", trial, k, d,
                          want[k]);
            cr_assert_leq(fabs(ldem_vec3_dist(p, q) - d), 1e-14);
            cr_assert_neq(f, LSGEN_TRI_FACE, "a zero-area triangle has no face region");
        }
    }
}

/* Slivers: a cap (largest angle near 180°, height 1e-9) and a needle (angle 2e-8 at a) in
 * z = 0, with points above the face and beside an edge, answers by hand; then rotated and
 * moved away, where the answers must survive to round-off of the coordinates. */
Test(lsgen_tridist, slivers)
{
    const ldem_vec3 cap[3] = {v3(0, 0, 0), v3(1, 0, 0), v3(0.5, 1e-9, 0)};
    const ldem_vec3 needle[3] = {v3(0, 0, 0), v3(1, 1e-8, 0), v3(1, -1e-8, 0)};
    /* Edge ab of the needle: direction and in-plane outward normal. */
    ldem_vec3 u = ldem_vec3_normalize(needle[1]);
    ldem_vec3 out = v3(-u.y, u.x, 0);
    struct {
        const ldem_vec3 *t;
        ldem_vec3 p;
        double d;
        int face;
    } cases[] = {
        {cap, {0.5, 0.4e-9, 0.3}, 0.3, 1},
        {cap, {0.3, -0.2, 0.1}, sqrt(0.05), 0},
        {needle, {0.7, 0.0, -0.2}, 0.2, 1},
        {needle, ldem_vec3_add(ldem_vec3_axpy(0.4, out, ldem_vec3_scale(u, 0.5)), v3(0, 0, 0.3)),
         0.5, 0},
    };
    rng_seed(17);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int f;
        double d = sqrt(
            lsgen_tri_closest(cases[i].p, cases[i].t[0], cases[i].t[1], cases[i].t[2], NULL, &f));
        cr_assert_leq(fabs(d - cases[i].d), 1e-15, "case %zu: %.17g vs %.17g", i, d, cases[i].d);
        cr_assert_eq(f == LSGEN_TRI_FACE, cases[i].face, "case %zu feature %d", i, f);
        for (int trial = 0; trial < 20; trial++) {
            double R[3][3];
            random_rotation(R);
            double far = trial < 10 ? 0.0 : 1e6;
            ldem_vec3 shift = ldem_vec3_scale(ldem_vec3_normalize(rnd_vec(-1, 1)), far);
            ldem_vec3 t[3], p = ldem_vec3_add(rotate(R, cases[i].p), shift);
            for (int k = 0; k < 3; k++)
                t[k] = ldem_vec3_add(rotate(R, cases[i].t[k]), shift);
            double dr = sqrt(lsgen_tri_closest(p, t[0], t[1], t[2], NULL, NULL));
            double tol = far > 0 ? 1e-9 : 1e-14;
            cr_assert_leq(fabs(dr - cases[i].d), tol, "case %zu trial %d: %.17g vs %.17g", i, trial,
                          dr, cases[i].d);
        }
    }
}

/* ---- lsgen_tri_solid_angle ---- */

/* The octant triangle seen from the origin covers 1/8 of the sphere: π/2, positive because
 * the origin is behind it (normal (1,1,1)/√3 points away); reversed, −π/2. A point in the
 * triangle's plane sees nothing. */
Test(lsgen_tridist, solid_angle_closed_forms)
{
    ldem_vec3 o = v3(0, 0, 0), a = v3(1, 0, 0), b = v3(0, 1, 0), c = v3(0, 0, 1);
    cr_assert_leq(fabs(lsgen_tri_solid_angle(o, a, b, c) - PI / 2), 1e-15);
    cr_assert_leq(fabs(lsgen_tri_solid_angle(o, a, c, b) + PI / 2), 1e-15);
    cr_assert_leq(fabs(lsgen_tri_solid_angle(v3(2, 2, -3), a, b, c)), 1e-15);
    /* Far away and translated: the same. */
    ldem_vec3 s = v3(1e6, -2e6, 3e6);
    cr_assert_leq(fabs(lsgen_tri_solid_angle(s, ldem_vec3_add(a, s), ldem_vec3_add(b, s),
                                             ldem_vec3_add(c, s)) -
                       PI / 2),
                  1e-15);
    /* A point just behind the centre of a large triangle sees almost a hemisphere (2π). */
    ldem_vec3 big[3] = {v3(-1e3, -1e3, 0), v3(1e3, -1e3, 0), v3(0, 2e3, 0)};
    double omega = lsgen_tri_solid_angle(v3(0, 0, -1e-3), big[0], big[1], big[2]);
    cr_assert_gt(omega, 2 * PI * (1 - 1e-5));
    cr_assert_leq(omega, 2 * PI);
}

/* ---- BVH closest ---- */

typedef struct test_mesh {
    const char *name;
    ldem_trimesh m;
} test_mesh;

static void make_test_meshes(test_mesh ms[4])
{
    double R[3][3];
    rng_seed(23);
    random_rotation(R);
    ms[0].name = "icosphere";
    icosphere(&ms[0].m, 3, 1.0, v3(0.1, -0.2, 0.05));
    ms[1].name = "torus";
    torus(&ms[1].m, 1.0, 0.35, 48, 24, v3(0, 0, 0));
    ms[2].name = "cube";
    cube(&ms[2].m, 0.8, R, v3(0.05, 0.1, -0.1));
    ms[3].name = "soup";
    soup(&ms[3].m, 600, 0.15);
}

static void free_test_meshes(test_mesh ms[4])
{
    for (int i = 0; i < 4; i++)
        ldem_trimesh_free(&ms[i].m);
}

/* Points near the mesh, in its box, and far away. */
static ldem_vec3 query_point(int i)
{
    switch (i % 3) {
    case 0: return rnd_vec(-1.5, 1.5);
    case 1: return rnd_vec(-0.3, 0.3);
    default: return ldem_vec3_scale(rnd_vec(-1, 1), 100.0);
    }
}

Test(lsgen_bvh, closest_equals_brute_force)
{
    test_mesh ms[4];
    make_test_meshes(ms);
    rng_seed(29);
    for (int k = 0; k < 4; k++) {
        lsgen_bvh *b = bvh_of(&ms[k].m);
        for (int i = 0; i < 2000; i++) {
            ldem_vec3 x = query_point(i);
            size_t tri;
            double want = brute_closest(&ms[k].m, x, &tri);
            lsgen_hit hit;
            double got = lsgen_bvh_closest(b, x, INFINITY, &hit);
            cr_assert_eq(got, want, "%s point %d: %.17g vs brute force %.17g", ms[k].name, i, got,
                         want);
            cr_assert_lt(hit.tri, ms[k].m.ntris);
            /* The reported triangle and point realise the distance (ties may name another
             * triangle than the brute force's first). */
            ldem_vec3 q;
            int f;
            double d2 =
                lsgen_tri_closest(x, vertex(&ms[k].m, hit.tri, 0), vertex(&ms[k].m, hit.tri, 1),
                                  vertex(&ms[k].m, hit.tri, 2), &q, &f);
            cr_assert_eq(d2, want);
            cr_assert_eq(q.x, hit.point.x);
            cr_assert_eq(q.y, hit.point.y);
            cr_assert_eq(q.z, hit.point.z);
            cr_assert_eq(f, hit.feature);
        }
        lsgen_bvh_free(b);
    }
    free_test_meshes(ms);
}

/* With a bound: the same answer when the bound is above it, else "nothing within". */
Test(lsgen_bvh, closest_with_bounds)
{
    test_mesh ms[4];
    make_test_meshes(ms);
    rng_seed(31);
    for (int k = 0; k < 4; k++) {
        lsgen_bvh *b = bvh_of(&ms[k].m);
        int above = 0, below = 0;
        for (int i = 0; i < 1500; i++) {
            ldem_vec3 x = query_point(i);
            size_t tri;
            double want = brute_closest(&ms[k].m, x, &tri);
            double bound2 = want * rnd_in(0.25, 4.0);
            lsgen_hit hit;
            double got = lsgen_bvh_closest(b, x, bound2, &hit);
            if (want < bound2) {
                above++;
                cr_assert_eq(got, want, "%s point %d", ms[k].name, i);
                cr_assert_lt(hit.tri, ms[k].m.ntris);
            } else {
                below++;
                cr_assert_eq(got, bound2, "%s point %d", ms[k].name, i);
                cr_assert_eq(hit.tri, SIZE_MAX);
            }
            /* A bound that excludes everything, and one exactly at the answer (not
             * "within": strictly closer is required). */
            cr_assert_eq(lsgen_bvh_closest(b, x, 0.0, &hit), 0.0);
            cr_assert_eq(hit.tri, SIZE_MAX);
            cr_assert_eq(lsgen_bvh_closest(b, x, want, NULL), want);
            /* Just above the answer: found. */
            cr_assert_eq(lsgen_bvh_closest(b, x, nextafter(want, INFINITY), &hit), want);
            cr_assert_lt(hit.tri, ms[k].m.ntris);
        }
        cr_assert_gt(above, 100);
        cr_assert_gt(below, 100);
        lsgen_bvh_free(b);
    }
    free_test_meshes(ms);
}

/* A mesh far from the origin: still bit-identical to brute force. */
Test(lsgen_bvh, closest_far_from_origin)
{
    ldem_trimesh m;
    icosphere(&m, 2, 3.0, v3(1e6, -1e6, 5e5));
    lsgen_bvh *b = bvh_of(&m);
    rng_seed(37);
    for (int i = 0; i < 1000; i++) {
        ldem_vec3 x = ldem_vec3_add(v3(1e6, -1e6, 5e5), ldem_vec3_scale(query_point(i), 4.0));
        size_t tri;
        double want = brute_closest(&m, x, &tri);
        cr_assert_eq(lsgen_bvh_closest(b, x, INFINITY, NULL), want, "point %d", i);
    }
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

/* Inputs the surface-area heuristic cannot split well: triangles spaced geometrically
 * along a line (each split peels off one), and a pile of identical triangles (no centroid
 * extent at all). The builder falls back to median splits; answers stay exact. */
Test(lsgen_bvh, pathological_inputs)
{
    ldem_trimesh m;
    mesh_alloc(&m, 3 * 400, 400);
    for (size_t t = 0; t < 400; t++) {
        double x = t < 300 ? pow(1.2, (double)t) * 1e-20 : 0.5;
        ldem_vec3 c = v3(x, 0, 0);
        set_vertex(&m, 3 * t, c);
        set_vertex(&m, 3 * t + 1, ldem_vec3_add(c, v3(0, 1, 0)));
        set_vertex(&m, 3 * t + 2, ldem_vec3_add(c, v3(0, 0, 1)));
        set_tri(&m, t, (uint32_t)(3 * t), (uint32_t)(3 * t + 1), (uint32_t)(3 * t + 2));
    }
    lsgen_bvh *b = bvh_of(&m);
    rng_seed(61);
    for (int i = 0; i < 500; i++) {
        ldem_vec3 x = v3(pow(1.2, rnd_in(0, 300)) * 1e-20, rnd_in(-1, 2), rnd_in(-1, 2));
        size_t tri;
        double want = brute_closest(&m, x, &tri);
        cr_assert_eq(lsgen_bvh_closest(b, x, INFINITY, NULL), want, "point %d", i);
    }
    lsgen_bvh_free(b);
    /* A single triangle: the root is a leaf. */
    m.ntris = 1;
    b = bvh_of(&m);
    for (int i = 0; i < 100; i++) {
        ldem_vec3 x = rnd_vec(-2, 2);
        lsgen_hit hit;
        cr_assert_eq(
            lsgen_bvh_closest(b, x, INFINITY, &hit),
            lsgen_tri_closest(x, vertex(&m, 0, 0), vertex(&m, 0, 1), vertex(&m, 0, 2), NULL, NULL));
        cr_assert_eq(hit.tri, 0);
        double w = lsgen_mesh_winding_exact(&m, x);
        cr_assert_leq(fabs(lsgen_bvh_winding(b, x) - w), 1e-2);
    }
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

Test(lsgen_bvh, build_refuses_bad_meshes)
{
    ldem_trimesh m;
    ldem_err err;
    lsgen_bvh *b = (lsgen_bvh *)&m;
    mesh_alloc(&m, 3, 0);
    cr_assert_eq(lsgen_bvh_build(&m, &b, &err), LDEM_ERR_INPUT);
    cr_assert_null(b);
    cr_assert_neq(strstr(err.msg, "no triangles"), NULL, "%s", err.msg);
    ldem_trimesh_free(&m); /* mesh_alloc starts from an empty mesh */
    mesh_alloc(&m, 3, 1);
    set_vertex(&m, 0, v3(0, 0, 0));
    set_vertex(&m, 1, v3(1, 0, 0));
    set_vertex(&m, 2, v3(0, NAN, 0));
    set_tri(&m, 0, 0, 1, 2);
    cr_assert_eq(lsgen_bvh_build(&m, &b, &err), LDEM_ERR_INPUT);
    set_vertex(&m, 2, v3(0, 1, 0));
    set_tri(&m, 0, 0, 1, 3);
    cr_assert_eq(lsgen_bvh_build(&m, &b, &err), LDEM_ERR_INPUT);
    ldem_trimesh_free(&m);
}

/* ---- winding numbers ---- */

/* The exact sum is 1 inside and 0 outside a closed outward mesh; the hierarchical one stays
 * within 1e-2 of it (and on the same side of 1/2) at points inside, outside, near the
 * surface and far away. */
Test(lsgen_winding, exact_and_hierarchical_closed_meshes)
{
    test_mesh ms[4];
    make_test_meshes(ms);
    rng_seed(41);
    for (int k = 0; k < 3; k++) { /* not the soup */
        lsgen_bvh *b = bvh_of(&ms[k].m);
        double worst = 0.0;
        int inside = 0, outside = 0;
        for (int i = 0; i < 1500; i++) {
            ldem_vec3 x = query_point(i);
            size_t tri;
            double d = sqrt(brute_closest(&ms[k].m, x, &tri));
            if (d < 1e-6)
                continue;
            double w = lsgen_mesh_winding_exact(&ms[k].m, x);
            double wr = round(w);
            cr_assert(wr == 0.0 || wr == 1.0, "%s point %d: w = %.17g", ms[k].name, i, w);
            cr_assert_leq(fabs(w - wr), 1e-10, "%s point %d: w = %.17g", ms[k].name, i, w);
            inside += wr == 1.0;
            outside += wr == 0.0;
            double wh = lsgen_bvh_winding(b, x);
            worst = fmax(worst, fabs(wh - w));
            cr_assert_leq(fabs(wh - w), 1e-2, "%s point %d: %.6g vs exact %.6g", ms[k].name, i, wh,
                          w);
            cr_assert_eq(wh >= 0.5, w >= 0.5);
        }
        /* Near the surface: along the closest points' normals, ±1e-3 off. */
        for (int i = 0; i < 300; i++) {
            ldem_vec3 x = rnd_vec(-1.2, 1.2);
            lsgen_hit hit;
            lsgen_bvh_closest(b, x, INFINITY, &hit);
            ldem_vec3 a = vertex(&ms[k].m, hit.tri, 0), bb = vertex(&ms[k].m, hit.tri, 1),
                      c = vertex(&ms[k].m, hit.tri, 2);
            ldem_vec3 n =
                ldem_vec3_normalize(ldem_vec3_cross(ldem_vec3_sub(bb, a), ldem_vec3_sub(c, a)));
            ldem_vec3 centroid = ldem_vec3_scale(ldem_vec3_add(a, ldem_vec3_add(bb, c)), 1.0 / 3);
            for (int s = -1; s <= 1; s += 2) {
                ldem_vec3 y = ldem_vec3_axpy(s * 1e-3, n, centroid);
                double w = lsgen_mesh_winding_exact(&ms[k].m, y);
                cr_assert_leq(fabs(w - (s < 0 ? 1.0 : 0.0)), 1e-10, "%s near %d: %.17g", ms[k].name,
                              i, w);
                double wh = lsgen_bvh_winding(b, y);
                worst = fmax(worst, fabs(wh - w));
                cr_assert_leq(fabs(wh - w), 1e-2);
            }
        }
        /* The torus fills 9 % of the large query box (2π²Rr² of 27), about 45 points. */
        cr_assert_gt(inside, 30, "%s: %d inside", ms[k].name, inside);
        cr_assert_gt(outside, 50, "%s", ms[k].name);
        cr_log_info("%s: worst |w_bvh - w_exact| = %.3g", ms[k].name, worst);
        lsgen_bvh_free(b);
    }
    free_test_meshes(ms);
}

/* A finer sphere (20480 triangles) where the far field does most of the work. */
Test(lsgen_winding, hierarchical_accuracy_fine_sphere)
{
    ldem_trimesh m;
    icosphere(&m, 5, 1.0, v3(0, 0, 0));
    lsgen_bvh *b = bvh_of(&m);
    rng_seed(43);
    double worst = 0.0;
    for (int i = 0; i < 400; i++) {
        ldem_vec3 x = rnd_vec(-2, 2);
        double w = lsgen_mesh_winding_exact(&m, x);
        double wh = lsgen_bvh_winding(b, x);
        worst = fmax(worst, fabs(wh - w));
        cr_assert_eq(wh >= 0.5, w >= 0.5);
    }
    cr_assert_leq(worst, 1e-2);
    cr_log_info("fine sphere: worst |w_bvh - w_exact| = %.3g", worst);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

/* ---- grids ---- */

Test(lsgen_grid, around_box)
{
    ldem_lset ls = {0};
    ldem_err err;
    cr_assert_eq(lsgen_grid_around(v3(-1, -2, -0.5), v3(1, 3, 0.5), 0.25, 2, &ls, &err), LDEM_OK,
                 "%s", err.msg);
    /* 2/0.25 = 8 cells, 5/0.25 = 20, 1/0.25 = 4; + 1 node + 2·2 padding. */
    cr_assert_eq(ls.dims[0], 13);
    cr_assert_eq(ls.dims[1], 25);
    cr_assert_eq(ls.dims[2], 9);
    for (int a = 0; a < 3; a++)
        cr_assert_eq(ls.spacing[a], 0.25);
    /* Centred: first and last nodes symmetric about the box centre. */
    const double centre[3] = {0, 0.5, 0};
    for (int a = 0; a < 3; a++) {
        double first = ls.origin[a], last = ls.origin[a] + (ls.dims[a] - 1) * 0.25;
        cr_assert_leq(fabs(first + last - 2 * centre[a]), 1e-15);
    }
    cr_assert_leq(fabs(ls.origin[0] - (-1.5)), 1e-15);
    cr_assert_not_null(ls.phi);
    ldem_lset_free(&ls);

    /* A box that is not a whole number of cells: rounded up, still centred. */
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(1.1, 0, 0.3), 0.25, 0, &ls, &err), LDEM_OK);
    cr_assert_eq(ls.dims[0], 6);
    cr_assert_eq(ls.dims[1], 2); /* a flat box still gets two nodes */
    cr_assert_eq(ls.dims[2], 3);
    cr_assert_leq(fabs(ls.origin[0] + 0.5 * (ls.dims[0] - 1) * 0.25 - 0.55), 1e-15);
    ldem_lset_free(&ls);
}

Test(lsgen_grid, around_refuses)
{
    ldem_lset ls = {0};
    ldem_err err;
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(1, 1, 1), 1e-3, 200, &ls, &err), LDEM_ERR_USAGE);
    cr_assert_neq(strstr(err.msg, "2^31"), NULL, "%s", err.msg);
    cr_assert_null(ls.phi);
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(1, 1, 1), 0.0, 2, &ls, &err), LDEM_ERR_USAGE);
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(1, 1, 1), NAN, 2, &ls, &err), LDEM_ERR_USAGE);
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(-1, 1, 1), 0.1, 2, &ls, &err), LDEM_ERR_USAGE);
    cr_assert_eq(lsgen_grid_around(v3(0, 0, INFINITY), v3(1, 1, 1), 0.1, 2, &ls, &err),
                 LDEM_ERR_USAGE);
    /* One axis alone beyond 2^32 nodes. */
    cr_assert_eq(lsgen_grid_around(v3(0, 0, 0), v3(1e10, 0, 0), 1.0, 0, &ls, &err), LDEM_ERR_USAGE);
    cr_assert_null(ls.phi);
}

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static uint64_t nonzero_nodes(const ldem_lset *ls)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < ldem_lset_count(ls); i++)
        n += ls->phi[i] != 0.0f;
    return n;
}

/* φ on a 24³-ish grid around `m` with `threads` threads. */
static ldem_lset sdf_grid(const lsgen_bvh *b, const ldem_trimesh *m, int threads,
                          lsgen_sdf_stats *st)
{
    ldem_vec3 lo, hi;
    mesh_bbox(m, &lo, &hi);
    double h = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z)) / 19.3;
    ldem_lset ls = {0};
    ldem_err err;
    cr_assert_eq(lsgen_grid_around(lo, hi, h, 2, &ls, &err), LDEM_OK, "%s", err.msg);
    set_threads(threads);
    cr_assert_eq(lsgen_sdf_mesh(b, &ls, 0, st, &err), LDEM_OK, "%s", err.msg);
    set_threads(2);
    return ls;
}

/* Every node against brute force (distance to all triangles, sign from the exact winding
 * number), to float32 rounding; the same bits with one and two threads. */
Test(lsgen_sdf, mesh_grid_equals_brute_force)
{
    test_mesh ms[3];
    double R[3][3];
    rng_seed(47);
    random_rotation(R);
    ms[0].name = "icosphere";
    icosphere(&ms[0].m, 3, 1.0, v3(0.013, -0.021, 0.007));
    ms[1].name = "torus";
    torus(&ms[1].m, 1.0, 0.35, 48, 24, v3(0.011, 0.002, -0.017));
    ms[2].name = "cube";
    cube(&ms[2].m, 0.8, R, v3(0.05, 0.1, -0.1));
    for (int k = 0; k < 3; k++) {
        const ldem_trimesh *m = &ms[k].m;
        lsgen_bvh *b = bvh_of(m);
        lsgen_sdf_stats s1, s2;
        ldem_lset one = sdf_grid(b, m, 1, &s1);
        ldem_lset two = sdf_grid(b, m, 2, &s2);
        uint64_t n = ldem_lset_count(&one);
        cr_assert_eq(memcmp(one.phi, two.phi, n * sizeof(float)), 0, "%s: 1 and 2 threads differ",
                     ms[k].name);
        cr_assert_eq(s1.distance_queries, n);
        cr_assert_eq(s1.winding_queries, s2.winding_queries);
        cr_assert_eq(s1.sign_blocks, s2.sign_blocks);
        cr_assert_geq(s1.sign_blocks, 2, "%s", ms[k].name);
        cr_assert_lt(s1.winding_queries, n / 4, "%s: signs should be shared", ms[k].name);
        cr_assert_eq(s1.block_nodes + (s1.winding_queries - s1.sign_blocks), nonzero_nodes(&one),
                     "%s: every node off the surface is signed once", ms[k].name);
        ldem_vec3 lo, hi;
        mesh_bbox(m, &lo, &hi);
        double size = ldem_vec3_dist(lo, hi);
        int negative = 0;
        for (uint32_t kk = 0; kk < one.dims[2]; kk++)
            for (uint32_t j = 0; j < one.dims[1]; j++)
                for (uint32_t i = 0; i < one.dims[0]; i++) {
                    ldem_vec3 x = ldem_lset_node(&one, i, j, kk);
                    double want = brute_sdf(m, x);
                    double got = one.phi[i + one.dims[0] * (j + (size_t)one.dims[1] * kk)];
                    cr_assert_leq(fabs(got - want), 1e-6 * fabs(want) + 1e-7 * size,
                                  "%s node (%u,%u,%u): %.9g vs %.9g", ms[k].name, i, j, kk, got,
                                  want);
                    cr_assert_leq(fabs(lsgen_mesh_sdf_point(b, x) - want), 1e-12 * size);
                    negative += got < 0;
                }
        cr_assert_gt(negative, 50, "%s", ms[k].name);
        cr_log_info("%s: %llu nodes, %llu winding numbers, %llu blocks", ms[k].name,
                    (unsigned long long)n, (unsigned long long)s1.winding_queries,
                    (unsigned long long)s1.sign_blocks);
        ldem_lset_free(&one);
        ldem_lset_free(&two);
        lsgen_bvh_free(b);
        ldem_trimesh_free(&ms[k].m);
    }
}

/* A triangle soup is not closed: distances are still exact everywhere (signs are whatever
 * the winding number says, checked against the exact sum). */
Test(lsgen_sdf, soup_distances_exact)
{
    ldem_trimesh m;
    rng_seed(53);
    soup(&m, 300, 0.2);
    lsgen_bvh *b = bvh_of(&m);
    lsgen_sdf_stats st;
    ldem_lset ls = sdf_grid(b, &m, 2, &st);
    for (uint64_t n = 0; n < ldem_lset_count(&ls); n++) {
        uint32_t i = (uint32_t)(n % ls.dims[0]), j = (uint32_t)(n / ls.dims[0] % ls.dims[1]),
                 k = (uint32_t)(n / ((uint64_t)ls.dims[0] * ls.dims[1]));
        size_t tri;
        double want = sqrt(brute_closest(&m, ldem_lset_node(&ls, i, j, k), &tri));
        cr_assert_leq(fabs(fabs(ls.phi[n]) - want), 1e-6 * want + 1e-7 * 3.0);
    }
    ldem_lset_free(&ls);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

/* Inside the closed polyhedron inscribed in the unit sphere: certain inside below the
 * inradius of its faces, certain outside beyond 1, the exact winding number in between. */
static int inside_closed(const ldem_trimesh *closed, double inradius, ldem_vec3 x)
{
    double r = ldem_vec3_norm(x);
    if (r < inradius)
        return 1;
    if (r > 1.0)
        return 0;
    return lsgen_mesh_winding_exact(closed, x) >= 0.5;
}

/* A sphere with a hole of ~0.35 R across at the north pole: every node farther than three
 * hole sizes from the hole keeps the sign of the closed sphere (the open-mesh sign pass),
 * distances stay exact everywhere, and the winding number of the open mesh follows its
 * exact sum. */
Test(lsgen_sdf, mesh_with_hole)
{
    ldem_trimesh closed, holed;
    icosphere(&closed, 3, 1.0, v3(0, 0, 0));
    icosphere(&holed, 3, 1.0, v3(0, 0, 0));
    ldem_vec3 pole = v3(0, 0, 1);
    size_t removed = punch_hole(&holed, pole, 0.2);
    cr_assert_geq(removed, 6);
    /* Hole size: the widest gap, twice the farthest removed vertex from the pole. */
    double hole_size = 0.0, inradius = INFINITY;
    for (size_t t = 0; t < closed.ntris; t++) {
        ldem_vec3 a = vertex(&closed, t, 0), b = vertex(&closed, t, 1), c = vertex(&closed, t, 2);
        ldem_vec3 n =
            ldem_vec3_normalize(ldem_vec3_cross(ldem_vec3_sub(b, a), ldem_vec3_sub(c, a)));
        inradius = fmin(inradius, ldem_vec3_dot(n, a));
        for (int k = 0; k < 3; k++)
            if (ldem_vec3_dist(vertex(&closed, t, k), pole) < 0.2)
                hole_size = fmax(hole_size, 2 * ldem_vec3_dist(vertex(&closed, t, k), pole));
    }
    cr_assert(hole_size > 0.2 && hole_size < 0.8, "hole size %g", hole_size);
    lsgen_bvh *b = bvh_of(&holed);
    lsgen_sdf_stats st;
    ldem_lset ls = sdf_grid(b, &holed, 2, &st);
    uint64_t n = ldem_lset_count(&ls);
    cr_assert_lt(st.winding_queries, n / 2, "octree boxes should share signs");
    cr_assert_eq(st.block_nodes + (st.winding_queries - st.sign_blocks), nonzero_nodes(&ls));
    cr_assert_gt(st.sign_blocks, 10);
    int checked = 0, inside = 0;
    for (uint32_t k = 0; k < ls.dims[2]; k++)
        for (uint32_t j = 0; j < ls.dims[1]; j++)
            for (uint32_t i = 0; i < ls.dims[0]; i++) {
                ldem_vec3 x = ldem_lset_node(&ls, i, j, k);
                float phi = ls.phi[i + ls.dims[0] * (j + (size_t)ls.dims[1] * k)];
                size_t tri;
                double d = sqrt(brute_closest(&holed, x, &tri));
                cr_assert_leq(fabs(fabs(phi) - d), 1e-6 * d + 1e-7 * 2.0);
                if (ldem_vec3_dist(x, pole) < 3 * hole_size)
                    continue;
                int want_inside = inside_closed(&closed, inradius, x);
                cr_assert_eq(phi < 0, want_inside, "node (%u,%u,%u) phi %g", i, j, k, phi);
                checked++;
                inside += want_inside;
            }
    cr_assert_gt(checked, 1000);
    cr_assert_gt(inside, 300);
    rng_seed(59);
    for (int i = 0; i < 300; i++) {
        ldem_vec3 x = rnd_vec(-1.5, 1.5);
        double w = lsgen_mesh_winding_exact(&holed, x);
        cr_assert_leq(fabs(lsgen_bvh_winding(b, x) - w), 1e-2);
        if (ldem_vec3_dist(x, pole) >= 3 * hole_size)
            cr_assert_eq(lsgen_mesh_sdf_point(b, x) < 0, inside_closed(&closed, inradius, x));
    }
    ldem_lset_free(&ls);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&closed);
    ldem_trimesh_free(&holed);
}

/* Documented behaviour for an inverted mesh (the repair step prevents it): w = −1 inside,
 * so no node is signed inside and φ is the plain distance everywhere. */
Test(lsgen_sdf, inverted_mesh_is_all_outside)
{
    ldem_trimesh m;
    icosphere(&m, 2, 1.0, v3(0.01, 0.02, 0.03));
    reverse_all(&m);
    cr_assert_leq(fabs(lsgen_mesh_winding_exact(&m, v3(0, 0, 0)) + 1.0), 1e-10);
    lsgen_bvh *b = bvh_of(&m);
    lsgen_sdf_stats st;
    ldem_lset ls = sdf_grid(b, &m, 2, &st);
    for (uint64_t n = 0; n < ldem_lset_count(&ls); n++)
        cr_assert_geq(ls.phi[n], 0.0f);
    ldem_lset_free(&ls);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

/* The progress bar path (forced on) gives the same values as without. */
Test(lsgen_sdf, progress_does_not_change_values)
{
    ldem_trimesh m;
    icosphere(&m, 2, 1.0, v3(0, 0, 0));
    lsgen_bvh *b = bvh_of(&m);
    ldem_lset a = {0}, c = {0};
    ldem_err err;
    cr_assert_eq(lsgen_grid_around(v3(-1, -1, -1), v3(1, 1, 1), 0.2, 1, &a, &err), LDEM_OK);
    cr_assert_eq(lsgen_grid_around(v3(-1, -1, -1), v3(1, 1, 1), 0.2, 1, &c, &err), LDEM_OK);
    cr_assert_eq(lsgen_sdf_mesh(b, &a, 0, NULL, &err), LDEM_OK);
    cr_assert_eq(lsgen_sdf_mesh(b, &c, 1, NULL, &err), LDEM_OK);
    cr_assert_eq(memcmp(a.phi, c.phi, ldem_lset_count(&a) * sizeof(float)), 0);
    ldem_lset_free(&a);
    ldem_lset_free(&c);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

Test(lsgen_sdf, refuses_grid_without_storage)
{
    ldem_trimesh m;
    icosphere(&m, 0, 1.0, v3(0, 0, 0));
    lsgen_bvh *b = bvh_of(&m);
    ldem_lset ls = {{4, 4, 4}, {0, 0, 0}, {1, 1, 1}, NULL};
    ldem_err err;
    cr_assert_eq(lsgen_sdf_mesh(b, &ls, 0, NULL, &err), LDEM_ERR_USAGE);
    lsgen_bvh_free(b);
    ldem_trimesh_free(&m);
}

/* The analytic path fills every node with the shape's own distance, at the right index:
 * node positions recomputed here from origin + index·spacing. */
Test(lsgen_sdf, shape_grid)
{
    lsgen_shape sphere = {LSGEN_SPHERE, {0.7, 0.7, 0.7}, 0.0, {1.0, 1.0}};
    ldem_lset ls = {0};
    ldem_err err;
    cr_assert_eq(lsgen_grid_around(v3(-0.7, -0.7, -0.7), v3(0.7, 0.7, 0.7), 0.1, 3, &ls, &err),
                 LDEM_OK);
    cr_assert_eq(lsgen_sdf_shape(&sphere, &ls, 0, &err), LDEM_OK, "%s", err.msg);
    for (uint32_t k = 0; k < ls.dims[2]; k++)
        for (uint32_t j = 0; j < ls.dims[1]; j++)
            for (uint32_t i = 0; i < ls.dims[0]; i++) {
                ldem_vec3 x =
                    v3(ls.origin[0] + i * 0.1, ls.origin[1] + j * 0.1, ls.origin[2] + k * 0.1);
                double want = ldem_vec3_norm(x) - 0.7;
                float got = ls.phi[i + ls.dims[0] * (j + (size_t)ls.dims[1] * k)];
                cr_assert_leq(fabs(got - want), 1e-6 * fabs(want) + 1e-9);
            }
    ldem_lset_free(&ls);
}
