/* Unit tests of fe_locate.h on box and spherical-shell meshes built in code: points inside found
 * with the right natural coordinates, points outside mapped to the closest point of the box with
 * the exact distance, interpolation of linear fields, the boundary nodes and surface, thread
 * safety, and the timing of 100k queries on a 50k-tet mesh. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bvh.h"
#include "fe_box_mesh.h"
#include "fe_locate.h"
#include "fe_tet.h"

static const double LO[3] = {-0.3, 0.2, 1.0};
static const double LEN[3] = {1.4, 0.9, 1.1};
static const char *kind_name[3] = {"tet4", "tet10", "curved tet10"};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The box LO + [0, LEN] as 4×3×3 cubes: straight tet4, straight tet10, and tet10 with
 * curved interior edges (its boundary is still the box's plane faces). */
static void make_mesh(fe_mesh *m, int kind)
{
    fe_test_box(m, kind == 0 ? FE_TET4 : FE_TET10, 4, 3, 3, LEN[0], LEN[1], LEN[2]);
    if (kind == 2)
        fe_test_curve_interior(m, 0.03, 23);
    for (size_t n = 0; n < m->nnodes; n++)
        for (int c = 0; c < 3; c++)
            m->xyz[3 * n + c] += LO[c];
}

static fe_locator *build(const fe_mesh *m)
{
    fe_locator *loc = NULL;
    ldem_err err;
    cr_assert_eq(fe_locator_build(m, &loc, &err), LDEM_OK, "%s", err.msg);
    return loc;
}

/* Closest point of the box to x (componentwise clamp) and the distance to it. */
static double box_closest(const double x[3], double y[3])
{
    double d2 = 0.0;
    for (int c = 0; c < 3; c++) {
        y[c] = fmin(fmax(x[c], LO[c]), LO[c] + LEN[c]);
        d2 += (x[c] - y[c]) * (x[c] - y[c]);
    }
    return sqrt(d2);
}

/* Distance from an inside point to the box's surface. */
static double box_depth(const double x[3])
{
    double d = INFINITY;
    for (int c = 0; c < 3; c++)
        d = fmin(d, fmin(x[c] - LO[c], LO[c] + LEN[c] - x[c]));
    return d;
}

static void random_point(unsigned long long *st, double grow, double x[3])
{
    for (int c = 0; c < 3; c++)
        x[c] = LO[c] - grow * LEN[c] + (1.0 + 2.0 * grow) * LEN[c] * fe_test_uniform(st);
}

static double min_bary(const double rst[3])
{
    return fmin(fmin(1.0 - rst[0] - rst[1] - rst[2], rst[0]), fmin(rst[1], rst[2]));
}

/* Inside: found, dist 0, fe_tet_map(elem, rst) = x to 1e-10, barycentrics >= -1e-9;
 * fe_boundary_distance = distance to the nearest box face (1e-10). Lattice points on the
 * faces, edges and corners of the box count as inside too. */
Test(fe_locate, inside_points)
{
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        fe_locator *loc = build(&m);
        unsigned long long st = 10 + (unsigned)kind;
        double worst = 0.0, worst_d = 0.0;
        for (int i = 0; i < 3000; i++) {
            double x[3], y[3];
            fe_place p;
            random_point(&st, 0.0, x);
            fe_locate(loc, x, &p);
            cr_assert(p.inside, "%s: point %d not found", kind_name[kind], i);
            cr_assert_eq(p.dist, 0.0);
            cr_assert_lt(p.elem, m.ntets);
            cr_assert_geq(min_bary(p.rst), -1e-9);
            fe_tet_map(&m, p.elem, p.rst, y, NULL);
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(y[c] - x[c]));
            worst_d = fmax(worst_d, fabs(fe_boundary_distance(loc, x) - box_depth(x)));
        }
        /* Corner nodes of the mesh (on faces, edges and corners of the box included). */
        for (size_t n = 0; n < m.nnodes; n++) {
            fe_place p;
            const double *x = m.xyz + 3 * n;
            int corner = 1;
            for (int c = 0; c < 3; c++) {
                double f = (x[c] - LO[c]) / LEN[c] * (c == 0 ? 4 : 3);
                corner &= fabs(f - round(f)) < 1e-9;
            }
            if (!corner)
                continue;
            fe_locate(loc, x, &p);
            cr_assert(p.inside, "%s: node %zu not found", kind_name[kind], n);
        }
        cr_log_info("%s: inside points: map error %.2g, boundary distance error %.2g",
                    kind_name[kind], worst, worst_d);
        cr_assert_leq(worst, 1e-10);
        cr_assert_leq(worst_d, 1e-10);
        fe_locator_free(loc);
        fe_test_mesh_free(&m);
    }
}

/* Outside: inside = 0, dist = exact distance to the box, and the natural coordinates map
 * to the box's closest point (1e-10); fe_boundary_distance agrees. */
Test(fe_locate, outside_points)
{
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        fe_locator *loc = build(&m);
        unsigned long long st = 20 + (unsigned)kind;
        double worst = 0.0, worst_y = 0.0;
        int count = 0;
        while (count < 3000) {
            double x[3], y[3], z[3];
            random_point(&st, 0.5, x);
            double d = box_closest(x, y);
            if (d == 0.0)
                continue;
            count++;
            fe_place p;
            fe_locate(loc, x, &p);
            cr_assert(!p.inside, "%s: outside point reported inside", kind_name[kind]);
            cr_assert_lt(p.elem, m.ntets);
            worst = fmax(worst, fabs(p.dist - d));
            worst = fmax(worst, fabs(fe_boundary_distance(loc, x) - d));
            fe_tet_map(&m, p.elem, p.rst, z, NULL);
            for (int c = 0; c < 3; c++)
                worst_y = fmax(worst_y, fabs(z[c] - y[c]));
        }
        cr_log_info("%s: outside points: distance error %.2g, closest point error %.2g",
                    kind_name[kind], worst, worst_y);
        cr_assert_leq(worst, 1e-10);
        cr_assert_leq(worst_y, 1e-10);
        fe_locator_free(loc);
        fe_test_mesh_free(&m);
    }
}

/* u = A x + b (exact in both orders): interpolation at inside points gives u(x), at
 * outside points u(closest box point), to 1e-12 of |u|'s scale. A second field
 * (quadratic, exact on straight tet10) checks the stride between fields. */
Test(fe_locate, interpolation)
{
    const double A[3][3] = {{0.3, -1.2, 0.5}, {2.0, 0.1, -0.7}, {-0.4, 0.9, 1.5}};
    const double b[3] = {0.25, -1.0, 3.0};
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        fe_locator *loc = build(&m);
        size_t nd = 3 * m.nnodes;
        double *u = calloc(2 * nd, sizeof(double));
        cr_assert_not_null(u);
        for (size_t n = 0; n < m.nnodes; n++) {
            const double *x = m.xyz + 3 * n;
            for (int i = 0; i < 3; i++) {
                u[3 * n + i] = A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2] + b[i];
                u[nd + 3 * n + i] = x[i] * x[(i + 1) % 3];
            }
        }
        unsigned long long st = 30 + (unsigned)kind;
        double worst = 0.0, worst_q = 0.0;
        for (int i = 0; i < 3000; i++) {
            double x[3], y[3], out[6];
            fe_place p;
            random_point(&st, 0.3, x);
            box_closest(x, y);
            fe_locate(loc, x, &p);
            fe_interpolate(&m, &p, u, 2, out);
            for (int r = 0; r < 3; r++) {
                double want = A[r][0] * y[0] + A[r][1] * y[1] + A[r][2] * y[2] + b[r];
                worst = fmax(worst, fabs(out[r] - want));
                if (kind == 1)
                    worst_q = fmax(worst_q, fabs(out[3 + r] - y[r] * y[(r + 1) % 3]));
            }
        }
        cr_log_info("%s: interpolation error %.2g (quadratic %.2g)", kind_name[kind], worst,
                    worst_q);
        cr_assert_leq(worst, 1e-12 * 5.0);
        cr_assert_leq(worst_q, 1e-12 * 5.0);
        free(u);
        fe_locator_free(loc);
        fe_test_mesh_free(&m);
    }
}

/* Boundary nodes: exactly the corner nodes on the box's surface, each once, ascending:
 * (nx+1)(ny+1)(nz+1) - (nx-1)(ny-1)(nz-1) of them. The surface: every triangle names its
 * tet, is a face of it, faces outward (total signed volume = box volume, winding number 1
 * inside and 0 outside), and the triangles tile the box's area. */
Test(fe_locate, boundary_nodes_and_surface)
{
    for (int kind = 0; kind < 2; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        fe_locator *loc = build(&m);
        size_t nb;
        const size_t *bn = fe_boundary_nodes(loc, &nb);
        cr_assert_eq(nb, (size_t)(5 * 4 * 4 - 3 * 2 * 2));
        unsigned char *is_corner = calloc(m.nnodes, 1);
        cr_assert_not_null(is_corner);
        for (size_t e = 0; e < m.ntets; e++)
            for (int a = 0; a < 4; a++)
                is_corner[m.tet[(size_t)m.order * e + (size_t)a]] = 1;
        size_t expected = 0;
        for (size_t n = 0; n < m.nnodes; n++) {
            const double *x = m.xyz + 3 * n;
            int on = 0;
            for (int c = 0; c < 3; c++)
                on |= fabs(x[c] - LO[c]) < 1e-12 || fabs(x[c] - LO[c] - LEN[c]) < 1e-12;
            if (on && is_corner[n])
                expected++;
        }
        cr_assert_eq(nb, expected);
        for (size_t i = 0; i < nb; i++) {
            if (i)
                cr_assert_lt(bn[i - 1], bn[i]);
            cr_assert(is_corner[bn[i]]);
            double y[3];
            cr_assert_leq(box_closest(m.xyz + 3 * bn[i], y), 0.0);
            cr_assert_leq(box_depth(m.xyz + 3 * bn[i]), 1e-12);
        }
        const size_t *face_tet;
        const ldem_trimesh *s = fe_boundary_surface(loc, &face_tet);
        cr_assert_eq(s->nverts, nb);
        /* 2 triangles per cube face on the surface. */
        cr_assert_eq(s->ntris, (size_t)(2 * 2 * (4 * 3 + 4 * 3 + 3 * 3)));
        double vol = 0.0, area = 0.0;
        for (size_t t = 0; t < s->ntris; t++) {
            const double *p[3];
            for (int k = 0; k < 3; k++) {
                size_t node = bn[s->tri[3 * t + (size_t)k]];
                p[k] = s->xyz + 3 * s->tri[3 * t + (size_t)k];
                cr_assert_eq(memcmp(p[k], m.xyz + 3 * node, 3 * sizeof(double)), 0);
                int in_tet = 0;
                for (int a = 0; a < 4; a++)
                    in_tet |= m.tet[(size_t)m.order * face_tet[t] + (size_t)a] == node;
                cr_assert(in_tet);
            }
            double u[3], v[3], n[3];
            for (int c = 0; c < 3; c++) {
                u[c] = p[1][c] - p[0][c];
                v[c] = p[2][c] - p[0][c];
            }
            n[0] = u[1] * v[2] - u[2] * v[1];
            n[1] = u[2] * v[0] - u[0] * v[2];
            n[2] = u[0] * v[1] - u[1] * v[0];
            vol += (p[0][0] * n[0] + p[0][1] * n[1] + p[0][2] * n[2]) / 6.0;
            area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        }
        double V = LEN[0] * LEN[1] * LEN[2];
        double S = 2 * (LEN[0] * LEN[1] + LEN[1] * LEN[2] + LEN[0] * LEN[2]);
        cr_assert_leq(fabs(vol - V) / V, 1e-13, "signed volume %g", vol);
        cr_assert_leq(fabs(area - S) / S, 1e-13);
        ldem_vec3 c = ldem_vec3_make(LO[0] + 0.3, LO[1] + 0.4, LO[2] + 0.5);
        ldem_vec3 o = ldem_vec3_make(LO[0] - 0.3, LO[1] + 0.4, LO[2] + 0.5);
        cr_assert_leq(fabs(lsgen_mesh_winding_exact(s, c) - 1.0), 1e-9);
        cr_assert_leq(fabs(lsgen_mesh_winding_exact(s, o)), 1e-9);
        free(is_corner);
        fe_locator_free(loc);
        fe_test_mesh_free(&m);
    }
}

/* A curved mesh: the tet10 spherical shell sector (fe_box_mesh.h; boundary nodes on the
 * spheres r = 1, r = 2, the cones θ = π/4, 3π/4 and the planes φ = 0, π/2). Points 0.05
 * inside the exact region in every coordinate are found, fe_tet_map reproduces them
 * (1e-10) and a linear field interpolates exactly there (1e-12). Points beyond the outer
 * sphere (r > 2, angles inside) are outside at a distance between r - 2 (every boundary
 * triangle has its corners in the ball r <= 2) and r - 2 plus the triangles' sag
 * (≈ 0.035 for this mesh, bound 0.1). */
Test(fe_locate, curved_shell)
{
    fe_mesh m;
    fe_test_shell(&m, FE_TET10, 6);
    fe_locator *loc = build(&m);
    size_t nb;
    const size_t *bn = fe_boundary_nodes(loc, &nb);
    cr_assert_gt(nb, 0);
    for (size_t i = 0; i < nb; i++) {
        const double *x = m.xyz + 3 * bn[i];
        double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        cr_assert_geq(r, FE_SHELL_R1 - 1e-14);
        cr_assert_leq(r, FE_SHELL_R2 + 1e-14);
    }
    const double A[3][3] = {{0.3, -1.2, 0.5}, {2.0, 0.1, -0.7}, {-0.4, 0.9, 1.5}};
    double *u = calloc(3 * m.nnodes, sizeof(double));
    cr_assert_not_null(u);
    for (size_t n = 0; n < m.nnodes; n++)
        for (int i = 0; i < 3; i++)
            u[3 * n + i] =
                A[i][0] * m.xyz[3 * n] + A[i][1] * m.xyz[3 * n + 1] + A[i][2] * m.xyz[3 * n + 2];
    unsigned long long st = 99;
    double worst = 0.0, worst_u = 0.0;
    int inside = 0, outside = 0;
    const double mg = 0.05;
    for (int i = 0; i < 4000; i++) {
        int out = i % 2;
        double r =
            out ? FE_SHELL_R2 + mg + 0.5 * fe_test_uniform(&st)
                : FE_SHELL_R1 + mg + (FE_SHELL_R2 - FE_SHELL_R1 - 2 * mg) * fe_test_uniform(&st);
        double th = FE_SHELL_T1 + mg + (FE_SHELL_T2 - FE_SHELL_T1 - 2 * mg) * fe_test_uniform(&st);
        double ph = FE_SHELL_P1 + mg + (FE_SHELL_P2 - FE_SHELL_P1 - 2 * mg) * fe_test_uniform(&st);
        double x[3] = {r * sin(th) * cos(ph), r * sin(th) * sin(ph), r * cos(th)};
        fe_place p;
        fe_locate(loc, x, &p);
        if (!out) {
            double y[3], val[3];
            cr_assert(p.inside, "r = %g, θ = %g, φ = %g not found", r, th, ph);
            fe_tet_map(&m, p.elem, p.rst, y, NULL);
            fe_interpolate(&m, &p, u, 1, val);
            for (int c = 0; c < 3; c++) {
                worst = fmax(worst, fabs(y[c] - x[c]));
                worst_u = fmax(worst_u,
                               fabs(val[c] - (A[c][0] * x[0] + A[c][1] * x[1] + A[c][2] * x[2])));
            }
            inside++;
        } else {
            cr_assert(!p.inside);
            cr_assert_geq(p.dist, r - FE_SHELL_R2 - 1e-12, "r = %g, dist = %g", r, p.dist);
            cr_assert_leq(p.dist, r - FE_SHELL_R2 + 0.1, "r = %g, dist = %g", r, p.dist);
            cr_assert_eq(p.dist, fe_boundary_distance(loc, x));
            outside++;
        }
    }
    cr_log_info("shell: %d inside (map error %.2g, linear field error %.2g), %d outside", inside,
                worst, worst_u, outside);
    cr_assert_leq(worst, 1e-10);
    cr_assert_leq(worst_u, 1e-12 * 5.0);
    free(u);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}

Test(fe_locate, input_errors)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET4, 1, 1, 1, 1.0, 1.0, 1.0);
    fe_locator *loc = (fe_locator *)&m; /* must be reset to NULL on failure */
    ldem_err err;
    size_t nt = m.ntets;
    m.ntets = 0;
    cr_assert_eq(fe_locator_build(&m, &loc, &err), LDEM_ERR_INPUT);
    cr_assert_null(loc);
    m.ntets = nt;
    m.order = 5;
    cr_assert_eq(fe_locator_build(&m, &loc, &err), LDEM_ERR_USAGE);
    m.order = FE_TET4;
    loc = build(&m);
    fe_place p;
    double bad[3] = {0.5, NAN, 0.5};
    fe_locate(loc, bad, &p);
    cr_assert(!p.inside && p.elem == 0 && isnan(p.dist));
    fe_locator_free(loc);
    m.xyz[0] = NAN;
    cr_assert_eq(fe_locator_build(&m, &loc, &err), LDEM_ERR_INPUT);
    fe_test_mesh_free(&m);
}

/* 50k tet10, 100k points in a box 10% larger than the mesh's: build and query times
 * printed (not asserted). Queries from 2 OpenMP threads give the same places as serial
 * ones (fe_locate is read-only), and inside points map back to themselves. */
Test(fe_locate, timing_50k_tets)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 20, 20, 21, LEN[0], LEN[1], LEN[2]);
    for (size_t n = 0; n < m.nnodes; n++)
        for (int c = 0; c < 3; c++)
            m.xyz[3 * n + c] += LO[c];
    double t0 = now();
    fe_locator *loc = build(&m);
    double t1 = now();
    const int npts = 100000;
    double *x = malloc(3 * (size_t)npts * sizeof(double));
    fe_place *p = malloc((size_t)npts * sizeof(fe_place)),
             *q = malloc((size_t)npts * sizeof(fe_place));
    cr_assert(x && p && q);
    unsigned long long st = 4;
    for (int i = 0; i < npts; i++)
        random_point(&st, 0.05, x + 3 * i);
    memset(p, 0, (size_t)npts * sizeof(fe_place));
    memset(q, 0, (size_t)npts * sizeof(fe_place));
    double t2 = now();
    for (int i = 0; i < npts; i++)
        fe_locate(loc, x + 3 * i, &p[i]);
    double t3 = now();
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(dynamic, 256)
#endif
    for (int i = 0; i < npts; i++)
        fe_locate(loc, x + 3 * i, &q[i]);
    double t4 = now();
    int inside = 0;
    double worst = 0.0;
    for (int i = 0; i < npts; i++) {
        cr_assert(p[i].elem == q[i].elem && p[i].inside == q[i].inside && p[i].dist == q[i].dist &&
                  memcmp(p[i].rst, q[i].rst, sizeof p[i].rst) == 0);
        if (p[i].inside) {
            double y[3];
            inside++;
            fe_tet_map(&m, p[i].elem, p[i].rst, y, NULL);
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(y[c] - x[3 * i + c]));
        }
    }
    fprintf(
        stderr,
        "fe_locate timing: %zu tet10: locator built in %.3f s; %d points (%d inside) located in "
        "%.3f s serial, %.3f s on 2 threads (wall)\n",
        m.ntets, t1 - t0, npts, inside, t3 - t2, t4 - t3);
    cr_assert_leq(worst, 1e-10);
    free(x);
    free(p);
    free(q);
    fe_locator_free(loc);
    fe_test_mesh_free(&m);
}
