/* Unit tests of lsgen's mesh hygiene (meshcheck.h) and mass properties (massprops.h).
 *
 * Mass properties are compared with closed forms (box, right tetrahedron) and, for an
 * icosphere, with an independent computation: the polyhedron cut into tetrahedra from its
 * centre, each integrated by the degree-2 Hammer–Stroud 4-point rule (exact for the
 * quadratic integrands of the inertia tensor) and the area by Heron's formula. Repair
 * results are checked against the meshes the tests built (which triangle was flipped, which
 * edges are boundary), and every orientation claim by counting directed edges. The STL
 * checks are in test_lsgen_stl_check.c. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ldem/log.h"
#include "ldem/mesh.h"
#include "ldem/quat.h"
#include "massprops.h"
#include "meshcheck.h"
#include "mesh_fixture.h"

#define PI 3.14159265358979323846

/* ================================================================ fixtures */

#include "../support/test_rng.h"

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* A copy with every triangle's corners stored separately (an STL "triangle soup"). */
static void make_soup(const ldem_trimesh *in, ldem_trimesh *out)
{
    mesh_alloc(out, 3 * in->ntris, in->ntris);
    for (size_t i = 0; i < 3 * in->ntris; i++) {
        memcpy(out->xyz + 3 * i, in->xyz + 3 * (size_t)in->tri[i], 3 * sizeof(double));
        out->tri[i] = (uint32_t)i;
    }
}

static void copy_mesh(const ldem_trimesh *in, ldem_trimesh *out)
{
    mesh_alloc(out, in->nverts, in->ntris);
    memcpy(out->xyz, in->xyz, 3 * in->nverts * sizeof *in->xyz);
    memcpy(out->tri, in->tri, 3 * in->ntris * sizeof *in->tri);
}

static void flip(ldem_trimesh *m, size_t t)
{
    uint32_t x = m->tri[3 * t + 1];
    m->tri[3 * t + 1] = m->tri[3 * t + 2];
    m->tri[3 * t + 2] = x;
}

/* Icosphere of radius r about `centre`: an icosahedron subdivided `levels` times, new
 * vertices pushed onto the sphere; faces oriented outward by their normal. */
static void make_icosphere(ldem_trimesh *m, int levels, double r, const double centre[3])
{
    const double g = (1.0 + sqrt(5.0)) / 2.0;
    double base[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
                          {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
                          {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
    static const uint32_t faces[20][3] = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    size_t nv = 12, nt = 20;
    size_t maxv = 12, maxt = 20;
    for (int l = 0; l < levels; l++) {
        maxv = maxv + 3 * maxt / 2;
        maxt *= 4;
    }
    double *xyz = malloc(3 * maxv * sizeof *xyz);
    uint32_t *tri = malloc(3 * maxt * sizeof *tri);
    uint32_t *mid = malloc(maxv * maxv * sizeof *mid);
    cr_assert(xyz && tri && mid);
    for (size_t v = 0; v < 12; v++) {
        double n =
            sqrt(base[v][0] * base[v][0] + base[v][1] * base[v][1] + base[v][2] * base[v][2]);
        for (int k = 0; k < 3; k++)
            xyz[3 * v + k] = base[v][k] / n;
    }
    memcpy(tri, faces, sizeof faces);
    for (int l = 0; l < levels; l++) {
        for (size_t i = 0; i < maxv * maxv; i++)
            mid[i] = UINT32_MAX;
        uint32_t *next = malloc(3 * 4 * nt * sizeof *next);
        cr_assert(next);
        for (size_t t = 0; t < nt; t++) {
            uint32_t c[3], mids[3];
            memcpy(c, tri + 3 * t, sizeof c);
            for (int e = 0; e < 3; e++) {
                uint32_t a = c[e], b = c[(e + 1) % 3];
                size_t key = a < b ? a * maxv + b : b * maxv + a;
                if (mid[key] == UINT32_MAX) {
                    double p[3], n = 0.0;
                    for (int k = 0; k < 3; k++) {
                        p[k] = xyz[3 * a + k] + xyz[3 * b + k];
                        n += p[k] * p[k];
                    }
                    for (int k = 0; k < 3; k++)
                        xyz[3 * nv + k] = p[k] / sqrt(n);
                    mid[key] = (uint32_t)nv++;
                }
                mids[e] = mid[key];
            }
            uint32_t sub[4][3] = {{c[0], mids[0], mids[2]},
                                  {c[1], mids[1], mids[0]},
                                  {c[2], mids[2], mids[1]},
                                  {mids[0], mids[1], mids[2]}};
            memcpy(next + 12 * t, sub, sizeof sub);
        }
        memcpy(tri, next, 3 * 4 * nt * sizeof *tri);
        free(next);
        nt *= 4;
    }
    mesh_alloc(m, nv, nt);
    for (size_t v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++)
            m->xyz[3 * v + k] = r * xyz[3 * v + k] + centre[k];
    memcpy(m->tri, tri, 3 * nt * sizeof *tri);
    for (size_t t = 0; t < nt; t++) {
        double n[3], c[3];
        tri_normal(m, t, n, c);
        double out = 0.0;
        for (int k = 0; k < 3; k++)
            out += n[k] * (c[k] - centre[k]);
        if (out < 0.0)
            flip(m, t);
    }
    free(xyz);
    free(tri);
    free(mid);
}

/* Every directed edge (a→b) occurs once, and so does (b→a): a closed, consistently oriented
 * 2-manifold. Brute force O(n²) over the directed edges; meshes here are small. */
static void assert_consistently_oriented_closed(const ldem_trimesh *m)
{
    size_t nh = 3 * m->ntris;
    for (size_t h = 0; h < nh; h++) {
        uint32_t a = m->tri[h], b = m->tri[h % 3 == 2 ? h - 2 : h + 1];
        int same = 0, reverse = 0;
        for (size_t k = 0; k < nh; k++) {
            uint32_t c = m->tri[k], d = m->tri[k % 3 == 2 ? k - 2 : k + 1];
            same += c == a && d == b;
            reverse += c == b && d == a;
        }
        cr_assert_eq(same, 1, "edge %u→%u used %d times", a, b, same);
        cr_assert_eq(reverse, 1, "edge %u→%u has %d opposite uses", a, b, reverse);
    }
}

/* Signed volume by the divergence theorem, written independently: Σ (c·n) / 3 over
 * triangles, with n the area vector. */
static double signed_volume(const ldem_trimesh *m)
{
    double v = 0.0;
    for (size_t t = 0; t < m->ntris; t++) {
        double n[3], c[3];
        tri_normal(m, t, n, c);
        v += (c[0] * n[0] + c[1] * n[1] + c[2] * n[2]) / 6.0;
    }
    return v;
}

/* The triangle of `m` with the same three positions as triangle t of `ref` (any order),
 * and whether its cyclic order is the same. */
static int same_cyclic_order(const ldem_trimesh *ref, size_t t, const ldem_trimesh *m)
{
    for (size_t u = 0; u < m->ntris; u++)
        for (int rot = 0; rot < 3; rot++) {
            int eq = 1, rev = 1;
            for (int k = 0; k < 3; k++) {
                const double *p = ref->xyz + 3 * (size_t)ref->tri[3 * t + k];
                const double *q = m->xyz + 3 * (size_t)m->tri[3 * u + (k + rot) % 3];
                const double *r = m->xyz + 3 * (size_t)m->tri[3 * u + (3 - k + rot) % 3];
                eq &= memcmp(p, q, 3 * sizeof *p) == 0;
                rev &= memcmp(p, r, 3 * sizeof *p) == 0;
            }
            if (eq)
                return 1;
            if (rev)
                return 0;
        }
    cr_assert_fail("triangle %zu not found", t);
    return -1;
}

static void assert_repair_ok(ldem_trimesh *m, lsgen_mesh_report *r)
{
    ldem_err err;
    cr_assert_eq(lsgen_mesh_repair(m, "part.stl", r, &err), LDEM_OK, "%s", err.msg);
}

/* ================================================================ mass properties */

Test(massprops, box_closed_form)
{
    static const double size[3] = {1.0, 2.0, 3.0}, t[3] = {0.25, -0.5, 4.0};
    ldem_trimesh m;
    make_box(&m, size, ldem_quat_identity(), t);
    lsgen_massprops mp;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "box", &mp, &err), LDEM_OK, "%s", err.msg);
    double v = 6.0;
    cr_assert_leq(rel(mp.volume, v), 1e-15);
    cr_assert_leq(rel(mp.area, 2.0 * (2.0 + 3.0 + 6.0)), 1e-15);
    for (int k = 0; k < 3; k++)
        cr_assert_leq(fabs(mp.centroid[k] - t[k]), 1e-15 * 4.0);
    double want[3] = {v * (4.0 + 9.0) / 12.0, v * (1.0 + 9.0) / 12.0, v * (1.0 + 4.0) / 12.0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            if (i == j)
                cr_assert_leq(rel(mp.inertia[i][i], want[i]), 1e-14, "I%d%d", i, i);
            else
                cr_assert_leq(fabs(mp.inertia[i][j]), 1e-14 * want[0], "I%d%d", i, j);
        }
    ldem_trimesh_free(&m);
}

/* The right tetrahedron (0, a e_x, b e_y, c e_z): V = abc/6, centroid (a, b, c)/4,
 * I_xx = 3V(b²+c²)/80, I_xy = V ab/80 (the product of inertia is +V ab/80 because
 * I = tr(C) 1 − C and C_xy = −V ab/80 about the centroid). */
Test(massprops, tetrahedron_closed_form)
{
    const double a = 2.0, b = 3.0, c = 5.0;
    ldem_trimesh m;
    mesh_alloc(&m, 4, 4);
    double xyz[12] = {0, 0, 0, a, 0, 0, 0, b, 0, 0, 0, c};
    uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    memcpy(m.xyz, xyz, sizeof xyz);
    memcpy(m.tri, tri, sizeof tri);
    cr_assert_gt(signed_volume(&m), 0.0, "fixture must be outward");
    lsgen_massprops mp;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "tet", &mp, &err), LDEM_OK, "%s", err.msg);
    double v = a * b * c / 6.0, d[3] = {a, b, c};
    cr_assert_leq(rel(mp.volume, v), 1e-15);
    for (int k = 0; k < 3; k++)
        cr_assert_leq(fabs(mp.centroid[k] - d[k] / 4.0), 1e-15 * c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double want =
                i == j
                    ? 3.0 * v *
                          (d[(i + 1) % 3] * d[(i + 1) % 3] + d[(i + 2) % 3] * d[(i + 2) % 3]) / 80.0
                    : v * d[i] * d[j] / 80.0;
            cr_assert_leq(rel(mp.inertia[i][j], want), 1e-14, "I%d%d = %.17g, want %.17g", i, j,
                          mp.inertia[i][j], want);
        }
    /* area: three right triangles and the slanted face (|(−a,b,0)×(−a,0,c)|/2) */
    double slanted = 0.5 * sqrt(b * b * c * c + a * a * c * c + a * a * b * b);
    cr_assert_leq(rel(mp.area, 0.5 * (a * b + b * c + a * c) + slanted), 1e-15);
    ldem_trimesh_free(&m);
}

static int is_signed_permutation(const double p[3][3], double tol, int perm[3])
{
    for (int j = 0; j < 3; j++) {
        perm[j] = -1;
        for (int i = 0; i < 3; i++) {
            double x = fabs(p[i][j]);
            if (fabs(x - 1.0) <= tol) {
                if (perm[j] >= 0)
                    return 0;
                perm[j] = i;
            } else if (x > tol) {
                return 0;
            }
        }
        if (perm[j] < 0)
            return 0;
    }
    return 1;
}

/* A 1×2×3 box rotated and moved 1e6 away: moments as in place to 1e-9, centroid to 1e-9 of
 * the size, and the principal frame is the rotation up to a proper relabelling — exactly
 * the rotation when it is small (closest to identity), a signed permutation of it when not. */
Test(massprops, translated_rotated_box)
{
    static const double size[3] = {1.0, 2.0, 3.0};
    const double t[3] = {1e6, -1e6, 2e6};
    const double v = 6.0;
    const double want[3] = {v * 13.0 / 12.0, v * 10.0 / 12.0, v * 5.0 / 12.0};
    rng_seed(11);
    for (int n = 0; n < 40; n++) {
        /* the first half are rotations below 40°, the rest arbitrary */
        double angle = n < 20 ? 0.7 * (uniform() + 1.0) / 2.0 : PI * (uniform() + 1.0) / 2.0;
        ldem_vec3 axis = ldem_vec3_make(uniform(), uniform(), uniform());
        ldem_quat q = ldem_quat_from_axis_angle(axis, angle);
        ldem_trimesh m;
        make_box(&m, size, q, t);
        lsgen_massprops mp;
        ldem_err err;
        cr_assert_eq(lsgen_mesh_mass_props(&m, "box", &mp, &err), LDEM_OK, "%s", err.msg);
        cr_assert_leq(rel(mp.volume, v), 1e-9);
        for (int k = 0; k < 3; k++)
            cr_assert_leq(fabs(mp.centroid[k] - t[k]), 1e-9 * 3.0, "centroid off by %g",
                          mp.centroid[k] - t[k]);
        double moments[3];
        ldem_quat o;
        cr_assert_eq(lsgen_principal_frame((const double(*)[3])mp.inertia, moments, &o, &err),
                     LDEM_OK);
        /* P = R0ᵀ R: the found axes in the box's own frame */
        ldem_mat3 r0 = ldem_quat_to_mat3(q), r = ldem_quat_to_mat3(o);
        double p[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                p[i][j] = 0.0;
                for (int k = 0; k < 3; k++)
                    p[i][j] += r0.m[k][i] * r.m[k][j];
            }
        int perm[3];
        cr_assert(is_signed_permutation((const double(*)[3])p, 1e-9, perm), "n=%d", n);
        for (int j = 0; j < 3; j++)
            cr_assert_leq(rel(moments[j], want[perm[j]]), 1e-9, "moment %d", j);
        if (n < 20) {
            cr_assert_leq(ldem_quat_angle_between(o, q), 1e-9, "small rotation not recovered");
            for (int j = 0; j < 3; j++)
                cr_assert_eq(perm[j], j);
        }
        /* the body-frame inertia R^T I R is diagonal with the moments */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double s = 0.0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        s += r.m[a][i] * mp.inertia[a][b] * r.m[b][j];
                cr_assert_leq(fabs(s - (i == j ? moments[i] : 0.0)), 1e-9 * want[0]);
            }
        ldem_trimesh_free(&m);
    }
}

/* Already principal: identity orientation, moments in the input axis order (here
 * descending, so no sorting happened). */
Test(massprops, principal_box_keeps_axes)
{
    static const double size[3] = {1.0, 2.0, 3.0}, t[3] = {0.0, 0.0, 0.0};
    ldem_trimesh m;
    make_box(&m, size, ldem_quat_identity(), t);
    lsgen_massprops mp;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "box", &mp, &err), LDEM_OK, "%s", err.msg);
    double moments[3];
    ldem_quat o;
    cr_assert_eq(lsgen_principal_frame((const double(*)[3])mp.inertia, moments, &o, &err), LDEM_OK);
    cr_assert_leq(fabs(o.w - 1.0), 1e-15);
    cr_assert_leq(fabs(o.x) + fabs(o.y) + fabs(o.z), 1e-15);
    cr_assert_leq(rel(moments[0], 6.5), 1e-14);
    cr_assert_leq(rel(moments[1], 5.0), 1e-14);
    cr_assert_leq(rel(moments[2], 2.5), 1e-14);
    ldem_trimesh_free(&m);
}

/* Every ordering of distinct diagonal moments is kept as given, with identity orientation;
 * a permuted diagonal never needs a rotation. */
Test(massprops, principal_frame_diagonal_orders)
{
    static const double d[6][3] = {{1, 2, 3}, {3, 2, 1}, {2, 3, 1},
                                   {1, 3, 2}, {3, 1, 2}, {2, 1, 3}};
    for (int n = 0; n < 6; n++) {
        double inertia[3][3] = {{d[n][0], 0, 0}, {0, d[n][1], 0}, {0, 0, d[n][2]}};
        double moments[3];
        ldem_quat o;
        ldem_err err;
        cr_assert_eq(lsgen_principal_frame((const double(*)[3])inertia, moments, &o, &err),
                     LDEM_OK);
        cr_assert(o.w == 1.0 && o.x == 0.0 && o.y == 0.0 && o.z == 0.0, "n=%d", n);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(moments[k], d[n][k]);
    }
    double bad[3][3] = {{1, NAN, 0}, {0, 1, 0}, {0, 0, 1}};
    double moments[3];
    ldem_quat o;
    ldem_err err;
    cr_assert_eq(lsgen_principal_frame((const double(*)[3])bad, moments, &o, &err), LDEM_ERR_INPUT);
}

/* Degree-2 exact quadrature over tetrahedron (o, a, b, c): the Hammer–Stroud 4-point rule,
 * barycentric (α, β, β, β) and permutations, α = (5 + 3√5)/20, β = (5 − √5)/20, weight V/4.
 * Accumulates V, ∫x and ∫x xᵀ. */
static void tet_quadrature(const double *o, const double *a, const double *b, const double *c,
                           double *vol, double first[3], double second[3][3])
{
    double e1[3], e2[3], e3[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = a[k] - o[k];
        e2[k] = b[k] - o[k];
        e3[k] = c[k] - o[k];
    }
    double v = (e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
                e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) /
               6.0;
    const double alpha = (5.0 + 3.0 * sqrt(5.0)) / 20.0, beta = (5.0 - sqrt(5.0)) / 20.0;
    const double *corner[4] = {o, a, b, c};
    *vol += v;
    for (int q = 0; q < 4; q++) {
        double x[3] = {0, 0, 0};
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                x[k] += (j == q ? alpha : beta) * corner[j][k];
        for (int i = 0; i < 3; i++) {
            first[i] += v / 4.0 * x[i];
            for (int j = 0; j < 3; j++)
                second[i][j] += v / 4.0 * x[i] * x[j];
        }
    }
}

static double heron(const double *a, const double *b, const double *c)
{
    double la = 0, lb = 0, lc = 0;
    for (int k = 0; k < 3; k++) {
        la += (b[k] - c[k]) * (b[k] - c[k]);
        lb += (a[k] - c[k]) * (a[k] - c[k]);
        lc += (a[k] - b[k]) * (a[k] - b[k]);
    }
    la = sqrt(la);
    lb = sqrt(lb);
    lc = sqrt(lc);
    /* Kahan's stable ordering a ≥ b ≥ c */
    double s[3] = {la, lb, lc};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (s[j] > s[i]) {
                double t = s[i];
                s[i] = s[j];
                s[j] = t;
            }
    return 0.25 * sqrt((s[0] + (s[1] + s[2])) * (s[2] - (s[0] - s[1])) * (s[2] + (s[0] - s[1])) *
                       (s[0] + (s[1] - s[2])));
}

/* A 3-times subdivided icosphere (1280 triangles) against the independent tetrahedral
 * quadrature and Heron areas: 1e-12 relative. And against the sphere it approximates, as a
 * sanity bound: within the chordal error (1%). */
Test(massprops, icosphere_independent)
{
    const double centre[3] = {3.0, -2.0, 1.0}, radius = 2.0;
    ldem_trimesh m;
    make_icosphere(&m, 3, radius, centre);
    cr_assert_eq(m.ntris, 1280);
    lsgen_massprops mp;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "ico", &mp, &err), LDEM_OK, "%s", err.msg);

    double vol = 0.0, first[3] = {0}, second[3][3] = {{0}}, area = 0.0;
    for (size_t t = 0; t < m.ntris; t++) {
        const double *a = m.xyz + 3 * (size_t)m.tri[3 * t],
                     *b = m.xyz + 3 * (size_t)m.tri[3 * t + 1],
                     *c = m.xyz + 3 * (size_t)m.tri[3 * t + 2];
        tet_quadrature(centre, a, b, c, &vol, first, second);
        area += heron(a, b, c);
    }
    double cen[3], inertia[3][3];
    for (int k = 0; k < 3; k++)
        cen[k] = first[k] / vol;
    double cov[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cov[i][j] = second[i][j] - vol * cen[i] * cen[j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            inertia[i][j] = (i == j ? cov[0][0] + cov[1][1] + cov[2][2] : 0.0) - cov[i][j];

    cr_assert_leq(rel(mp.volume, vol), 1e-12, "volume %.17g vs %.17g", mp.volume, vol);
    cr_assert_leq(rel(mp.area, area), 1e-12);
    for (int k = 0; k < 3; k++)
        cr_assert_leq(fabs(mp.centroid[k] - cen[k]), 1e-12 * radius);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cr_assert_leq(fabs(mp.inertia[i][j] - inertia[i][j]), 1e-12 * inertia[0][0],
                          "I%d%d %.17g vs %.17g", i, j, mp.inertia[i][j], inertia[i][j]);
    double sphere_v = 4.0 / 3.0 * PI * radius * radius * radius;
    cr_assert_leq(rel(mp.volume, sphere_v), 0.02);
    cr_assert_leq(rel(mp.inertia[0][0], 0.4 * sphere_v * radius * radius), 0.04);
    ldem_trimesh_free(&m);
}

Test(massprops, zero_and_negative_volume)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    for (size_t t = 0; t < m.ntris; t++)
        flip(&m, t);
    lsgen_massprops mp;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "inv.stl", &mp, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "inside out"), "%s", err.msg);
    cr_assert_str_eq(err.file, "inv.stl");
    /* squash the cube flat (z = 0): zero volume */
    for (size_t v = 0; v < m.nverts; v++)
        m.xyz[3 * v + 2] = 0.0;
    cr_assert_eq(lsgen_mesh_mass_props(&m, "flat.stl", &mp, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "zero-volume mesh"), "%s", err.msg);
    ldem_trimesh_free(&m);
}

/* ================================================================ repair */

Test(repair, fixture_cube_is_outward)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    for (size_t t = 0; t < m.ntris; t++) {
        double n[3], c[3];
        tri_normal(&m, t, n, c);
        cr_assert_gt(n[0] * (c[0] - 0.5) + n[1] * (c[1] - 0.5) + n[2] * (c[2] - 0.5), 0.0);
    }
    assert_consistently_oriented_closed(&m);
    ldem_trimesh_free(&m);
}

Test(repair, clean_cube_unchanged)
{
    ldem_trimesh m, ref;
    make_unit_cube(&m);
    copy_mesh(&m, &ref);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert(r.welded == 0 && r.unused_vertices == 0 && r.degenerate == 0 &&
              r.boundary_edges == 0 && r.nonmanifold_edges == 0 && r.flipped == 0 &&
              r.inverted_components == 0 && r.components == 1);
    cr_assert_eq(m.nverts, 8);
    cr_assert_eq(m.ntris, 12);
    cr_assert(memcmp(m.xyz, ref.xyz, sizeof(double) * 24) == 0);
    cr_assert(memcmp(m.tri, ref.tri, sizeof(uint32_t) * 36) == 0);
    ldem_trimesh_free(&m);
    ldem_trimesh_free(&ref);
}

Test(repair, soup_welds_to_eight_vertices)
{
    ldem_trimesh cube, soup;
    make_unit_cube(&cube);
    make_soup(&cube, &soup);
    cr_assert_eq(soup.nverts, 36);
    lsgen_mesh_report r;
    assert_repair_ok(&soup, &r);
    cr_assert_eq(r.welded, 28);
    cr_assert_eq(soup.nverts, 8);
    cr_assert_eq(soup.ntris, 12);
    cr_assert_eq(r.unused_vertices, 0);
    cr_assert_eq(r.boundary_edges, 0);
    cr_assert_eq(r.flipped, 0);
    cr_assert_eq(r.components, 1);
    assert_consistently_oriented_closed(&soup);
    for (size_t t = 0; t < 12; t++)
        cr_assert(same_cyclic_order(&cube, t, &soup), "triangle %zu changed", t);
    ldem_trimesh_free(&cube);
    ldem_trimesh_free(&soup);
}

/* +0 and −0 are the same point: they weld. */
Test(repair, negative_zero_welds)
{
    ldem_trimesh cube, soup;
    make_unit_cube(&cube);
    make_soup(&cube, &soup);
    for (size_t i = 0; i < 3 * soup.nverts; i += 2)
        if (soup.xyz[i] == 0.0)
            soup.xyz[i] = -0.0;
    lsgen_mesh_report r;
    assert_repair_ok(&soup, &r);
    cr_assert_eq(soup.nverts, 8);
    cr_assert_eq(r.boundary_edges, 0);
    ldem_trimesh_free(&cube);
    ldem_trimesh_free(&soup);
}

Test(repair, three_flipped_triangles)
{
    ldem_trimesh cube, m;
    make_unit_cube(&cube);
    copy_mesh(&cube, &m);
    flip(&m, 0);
    flip(&m, 5);
    flip(&m, 10);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.flipped, 3);
    cr_assert_eq(r.inverted_components, 0);
    assert_consistently_oriented_closed(&m);
    for (size_t t = 0; t < 12; t++)
        cr_assert(same_cyclic_order(&cube, t, &m), "triangle %zu", t);
    cr_assert_leq(fabs(signed_volume(&m) - 1.0), 1e-15);
    ldem_trimesh_free(&cube);
    ldem_trimesh_free(&m);
}

/* 7 of 12 wrong, triangle 0 among them: the minority (5) is flipped, which leaves the cube
 * inside out, so it is then flipped whole. Count: flipped = 5, inverted = 1. */
Test(repair, majority_flipped)
{
    ldem_trimesh cube, m;
    make_unit_cube(&cube);
    copy_mesh(&cube, &m);
    static const size_t wrong[7] = {0, 1, 2, 4, 6, 8, 11};
    for (int i = 0; i < 7; i++)
        flip(&m, wrong[i]);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.flipped, 5);
    cr_assert_eq(r.inverted_components, 1);
    assert_consistently_oriented_closed(&m);
    for (size_t t = 0; t < 12; t++)
        cr_assert(same_cyclic_order(&cube, t, &m), "triangle %zu", t);
    ldem_trimesh_free(&cube);
    ldem_trimesh_free(&m);
}

Test(repair, whole_mesh_inverted)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    for (size_t t = 0; t < 12; t++)
        flip(&m, t);
    cr_assert_lt(signed_volume(&m), 0.0);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.inverted_components, 1);
    cr_assert_eq(r.flipped, 0);
    cr_assert_leq(fabs(signed_volume(&m) - 1.0), 1e-15);
    assert_consistently_oriented_closed(&m);
    ldem_trimesh_free(&m);
}

static void remove_triangles(ldem_trimesh *m, const size_t *which, size_t n)
{
    size_t kept = 0;
    for (size_t t = 0; t < m->ntris; t++) {
        int drop = 0;
        for (size_t i = 0; i < n; i++)
            drop |= which[i] == t;
        if (!drop)
            memmove(m->tri + 3 * kept++, m->tri + 3 * t, 3 * sizeof *m->tri);
    }
    m->ntris = kept;
}

/* A missing face (two triangles sharing their diagonal) leaves a square hole: 4 boundary
 * edges. Two triangles far apart (0 and 3 share no edge) leave 3 + 3 = 6. */
Test(repair, holes_counted)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    static const size_t face[2] = {0, 1};
    remove_triangles(&m, face, 2);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.boundary_edges, 4);
    cr_assert_eq(r.components, 1);
    cr_assert_eq(r.flipped, 0);
    cr_assert_eq(m.nverts, 8);
    capture_log();
    lsgen_mesh_report_warn(&r, "part.stl");
    const char *log = captured_log();
    cr_assert(strstr(log, "lsgen: warning: part.stl: mesh is not watertight: 4 boundary edges "
                          "(holes); signs near the holes follow the generalized winding number\n"),
              "%s", log);
    ldem_trimesh_free(&m);

    make_unit_cube(&m);
    static const size_t apart[2] = {0, 3};
    remove_triangles(&m, apart, 2);
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.boundary_edges, 6);
    ldem_trimesh_free(&m);
}

/* An inverted cube with a hole is still turned outward (open pieces are judged by their
 * signed volume too). */
Test(repair, inverted_with_hole)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    static const size_t face[2] = {2, 3};
    remove_triangles(&m, face, 2);
    for (size_t t = 0; t < m.ntris; t++)
        flip(&m, t);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.inverted_components, 1);
    cr_assert_gt(signed_volume(&m), 0.0);
    ldem_trimesh_free(&m);
}

/* Degenerate triangles: a repeated vertex, three collinear vertices, and a sliver of area
 * 2e-15·diag² are removed, and the four vertices only they used are dropped. */
Test(repair, degenerate_triangles_removed)
{
    ldem_trimesh cube, m;
    make_unit_cube(&cube);
    mesh_alloc(&m, 12, 15);
    memcpy(m.xyz, cube.xyz, 24 * sizeof(double));
    memcpy(m.tri, cube.tri, 36 * sizeof(uint32_t));
    const double diag2 = 3.0, h = 2.0 * 2e-15 * diag2 / 0.6;
    /* 8: midpoint of edge 0–1; 9, 10, 11: a sliver of base 0.6 and height h */
    double extra[12] = {0.5, 0.0, 0.0, 0.2, 0.3, 0.5, 0.8, 0.3, 0.5, 0.5, 0.3, 0.5 + h};
    memcpy(m.xyz + 24, extra, sizeof extra);
    uint32_t bad[9] = {0, 0, 5, 0, 8, 1, 9, 10, 11};
    memcpy(m.tri + 36, bad, sizeof bad);
    double n[3], c[3];
    tri_normal(&m, 14, n, c);
    double area = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    cr_assert(area > 1e-15 * diag2 && area < 1e-14 * diag2, "fixture: sliver area %g", area);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.degenerate, 3);
    cr_assert_eq(m.ntris, 12);
    cr_assert_eq(r.unused_vertices, 4);
    cr_assert_eq(m.nverts, 8);
    cr_assert_eq(r.boundary_edges, 0);
    assert_consistently_oriented_closed(&m);
    for (size_t t = 0; t < 12; t++)
        cr_assert(same_cyclic_order(&cube, t, &m));
    capture_log();
    lsgen_mesh_report_warn(&r, "part.stl");
    const char *log = captured_log();
    cr_assert(strstr(log, "lsgen: warning: part.stl: 3 degenerate triangles"), "%s", log);
    ldem_trimesh_free(&m);
    ldem_trimesh_free(&cube);
}

/* The area threshold: a sliver triangle inside the cube at 0.5e-14 diag² goes, at
 * 1e-13 diag² stays (as its own open piece). */
Test(repair, degenerate_area_threshold)
{
    const double factors[2] = {0.5e-14, 1e-13};
    for (int f = 0; f < 2; f++) {
        ldem_trimesh cube, m;
        make_unit_cube(&cube);
        mesh_alloc(&m, 11, 13);
        memcpy(m.xyz, cube.xyz, 24 * sizeof(double));
        memcpy(m.tri, cube.tri, 36 * sizeof(uint32_t));
        /* base 0.8 along x, height h along z: area 0.4 h = factor · 3 */
        double h = factors[f] * 3.0 / 0.4;
        double extra[9] = {0.1, 0.5, 0.5, 0.9, 0.5, 0.5, 0.5, 0.5, 0.5 + h};
        memcpy(m.xyz + 24, extra, sizeof extra);
        uint32_t sliver[3] = {8, 9, 10};
        memcpy(m.tri + 36, sliver, sizeof sliver);
        lsgen_mesh_report r;
        assert_repair_ok(&m, &r);
        cr_assert_eq(r.degenerate, f == 0 ? 1u : 0u, "factor %g", factors[f]);
        cr_assert_eq(m.ntris, f == 0 ? 12u : 13u);
        ldem_trimesh_free(&m);
        ldem_trimesh_free(&cube);
    }
}

Test(repair, non_finite_coordinates)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    m.xyz[3 * 5 + 1] = NAN;
    lsgen_mesh_report r;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_repair(&m, "bad.stl", &r, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "bad.stl");
    cr_assert(strstr(err.msg, "vertex 5"), "%s", err.msg);
    m.xyz[3 * 5 + 1] = INFINITY;
    cr_assert_eq(lsgen_mesh_repair(&m, "bad.stl", &r, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "vertex 5"), "%s", err.msg);
    ldem_trimesh_free(&m);
}

/* A flat square as a closed double-sided surface (top fan and bottom fan): zero volume.
 * Three triangles: too few for any solid. */
Test(repair, zero_volume_rejected)
{
    ldem_trimesh m;
    mesh_alloc(&m, 5, 8);
    double xyz[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 0};
    uint32_t tri[24] = {4, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 1, 0, 4, 2, 1, 4, 3, 2, 4, 0, 3};
    memcpy(m.xyz, xyz, sizeof xyz);
    memcpy(m.tri, tri, sizeof tri);
    lsgen_mesh_report r;
    ldem_err err;
    cr_assert_eq(lsgen_mesh_repair(&m, "flat.stl", &r, &err), LDEM_ERR_INPUT);
    cr_assert(strncmp(err.msg, "zero-volume mesh: ", 18) == 0, "%s", err.msg);
    cr_assert_str_eq(err.file, "flat.stl");
    /* the same square tilted out of the coordinate planes: the bbox has volume, the mesh
     * still none */
    for (size_t v = 0; v < 5; v++)
        m.xyz[3 * v + 2] = 0.3 * m.xyz[3 * v] + 0.7 * m.xyz[3 * v + 1];
    cr_assert_eq(lsgen_mesh_repair(&m, "flat.stl", &r, &err), LDEM_ERR_INPUT);
    cr_assert(strncmp(err.msg, "zero-volume mesh: ", 18) == 0, "%s", err.msg);
    ldem_trimesh_free(&m);

    make_unit_cube(&m);
    m.ntris = 3;
    cr_assert_eq(lsgen_mesh_repair(&m, "three.stl", &r, &err), LDEM_ERR_INPUT);
    cr_assert(strncmp(err.msg, "zero-volume mesh: 3 usable triangles", 36) == 0, "%s", err.msg);
    ldem_trimesh_free(&m);
}

/* Append mesh b to mesh a (vertices renumbered). */
static void append_mesh(ldem_trimesh *a, const ldem_trimesh *b)
{
    ldem_trimesh c;
    mesh_alloc(&c, a->nverts + b->nverts, a->ntris + b->ntris);
    memcpy(c.xyz, a->xyz, 3 * a->nverts * sizeof(double));
    memcpy(c.xyz + 3 * a->nverts, b->xyz, 3 * b->nverts * sizeof(double));
    memcpy(c.tri, a->tri, 3 * a->ntris * sizeof(uint32_t));
    for (size_t i = 0; i < 3 * b->ntris; i++)
        c.tri[3 * a->ntris + i] = b->tri[i] + (uint32_t)a->nverts;
    ldem_trimesh_free(a);
    *a = c;
}

/* A hollow box: the inner wall of the cavity must face inward (negative volume). Correct
 * input stays; an inner wall facing outward, or both walls inverted, are fixed. */
Test(repair, cavity_faces_inward)
{
    static const double big[3] = {2, 2, 2}, small[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    for (int mode = 0; mode < 3; mode++) {
        ldem_trimesh m, inner;
        make_box(&m, big, ldem_quat_identity(), o);
        make_box(&inner, small, ldem_quat_identity(), o);
        if (mode == 0)
            for (size_t t = 0; t < 12; t++)
                flip(&inner, t); /* correct: cavity wall inward */
        if (mode == 2)
            for (size_t t = 0; t < 12; t++)
                flip(&m, t);
        append_mesh(&m, &inner);
        lsgen_mesh_report r;
        assert_repair_ok(&m, &r);
        cr_assert_eq(r.components, 2);
        cr_assert_eq(r.inverted_components,
                     (size_t)(mode == 0   ? 0
                              : mode == 1 ? 1
                                          : 2),
                     "mode %d", mode);
        cr_assert_leq(fabs(signed_volume(&m) - 7.0), 1e-14, "mode %d: %g", mode, signed_volume(&m));
        ldem_trimesh_free(&m);
        ldem_trimesh_free(&inner);
    }
}

/* Two separate boxes, the second inside out: flipped alone; the warning names the pieces. */
Test(repair, two_pieces_one_inverted)
{
    static const double s[3] = {1, 1, 1}, o1[3] = {0, 0, 0}, o2[3] = {3, 0, 0};
    ldem_trimesh m, b;
    make_box(&m, s, ldem_quat_identity(), o1);
    make_box(&b, s, ldem_quat_identity(), o2);
    for (size_t t = 0; t < 12; t++)
        flip(&b, t);
    append_mesh(&m, &b);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.components, 2);
    cr_assert_eq(r.inverted_components, 1);
    cr_assert_leq(fabs(signed_volume(&m) - 2.0), 1e-14);
    assert_consistently_oriented_closed(&m);
    capture_log();
    lsgen_mesh_report_warn(&r, "two.stl");
    const char *log = captured_log();
    cr_assert(strstr(log, "lsgen: warning: two.stl: 1 of 2 pieces were inside out"), "%s", log);
    cr_assert(strstr(log, "lsgen: warning: two.stl: the mesh has 2 separate pieces"), "%s", log);
    ldem_trimesh_free(&m);
    ldem_trimesh_free(&b);
}

/* A fin triangle hung on a cube edge makes that edge non-manifold (three triangles) and adds
 * two boundary edges. */
Test(repair, nonmanifold_edge)
{
    ldem_trimesh cube, m;
    make_unit_cube(&cube);
    mesh_alloc(&m, 9, 13);
    memcpy(m.xyz, cube.xyz, 24 * sizeof(double));
    memcpy(m.tri, cube.tri, 36 * sizeof(uint32_t));
    double fin[3] = {0.5, -1.0, -1.0};
    memcpy(m.xyz + 24, fin, sizeof fin);
    uint32_t t[3] = {0, 1, 8};
    memcpy(m.tri + 36, t, sizeof t);
    lsgen_mesh_report r;
    assert_repair_ok(&m, &r);
    cr_assert_eq(r.nonmanifold_edges, 1);
    cr_assert_eq(r.boundary_edges, 2);
    capture_log();
    lsgen_mesh_report_warn(&r, "fin.stl");
    const char *log = captured_log();
    cr_assert(strstr(log, "lsgen: warning: fin.stl: 1 non-manifold edges"), "%s", log);
    ldem_trimesh_free(&m);
    ldem_trimesh_free(&cube);
}

/* An icosphere as shuffled soup with random triangles flipped (fewer than half): welds back
 * to the original vertex count, flips exactly the damaged triangles, keeps the volume. */
Test(repair, icosphere_soup_random_flips)
{
    const double centre[3] = {1e3, 2e3, -5e2};
    ldem_trimesh ico, soup;
    make_icosphere(&ico, 3, 1.0, centre);
    double v0 = signed_volume(&ico);
    make_soup(&ico, &soup);
    rng_seed(7);
    /* shuffle triangles (Fisher–Yates), then flip about a third of them */
    for (size_t t = soup.ntris - 1; t > 0; t--) {
        size_t u = splitmix64() % (t + 1);
        for (int k = 0; k < 3; k++) {
            uint32_t x = soup.tri[3 * t + k];
            soup.tri[3 * t + k] = soup.tri[3 * u + k];
            soup.tri[3 * u + k] = x;
        }
    }
    size_t nflip = 0;
    for (size_t t = 0; t < soup.ntris; t++)
        if (splitmix64() % 3 == 0) {
            flip(&soup, t);
            nflip++;
        }
    lsgen_mesh_report r;
    assert_repair_ok(&soup, &r);
    cr_assert_eq(soup.nverts, ico.nverts);
    cr_assert_eq(r.welded, 3 * ico.ntris - ico.nverts);
    cr_assert_eq(r.flipped, nflip);
    cr_assert_eq(r.inverted_components, 0);
    cr_assert_leq(rel(signed_volume(&soup), v0), 1e-12);
    for (size_t t = 0; t < ico.ntris; t += 37)
        cr_assert(same_cyclic_order(&ico, t, &soup));
    ldem_trimesh_free(&ico);
    ldem_trimesh_free(&soup);
}

Test(repair, clean_report_is_silent)
{
    lsgen_mesh_report r;
    memset(&r, 0, sizeof r);
    r.components = 1;
    r.welded = 28; /* info only */
    capture_log();
    lsgen_mesh_report_warn(&r, "ok.stl");
    const char *log = captured_log();
    cr_assert(strstr(log, "warning") == NULL, "%s", log);
}
