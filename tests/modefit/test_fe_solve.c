/* Unit tests of modefit's own FE analyses (fe_sparse.h, fe_solver.h, fe_eigen.h,
 * fe_static.h, fe_patch.h):
 *   validations — the free-free sphere against CalculiX *FREQUENCY on the same mesh (its
 *   4-point rule reproduced, then our exact mass), the sphere's torsional n = 2 mode
 *   against Lamb's closed form, a free-free bar's bending and axial modes against beam
 *   and rod theory (tet10; tet4 for the axial mode), a bar compressed by two end
 *   patches against the uniform strain P/(EA) (and ν P/(EA) across);
 *   guards — assembled K, M against fe_integrate's Grams of the same fields, inertia
 *   relief's balance and rigid-free response, the mesh-in-pieces error, repeatability. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_box_mesh.h"
#include "fe_eigen.h"
#include "fe_integrate.h"
#include "fe_locate.h"
#include "fe_patch.h"
#include "fe_solver.h"
#include "fe_sparse.h"
#include "fe_static.h"
#include "femesh.h"

#define PI 3.14159265358979323846

#ifdef FEM_CCX_SPHERE_DIR
#define SPHERE(name) FEM_CCX_SPHERE_DIR "/" name
#else
#define SPHERE(name) "/nonexistent/" name
#endif

/* Lowest `count` elastic ω² with the shift and zero threshold modefit_solve.c uses. */
static void eigen(const fe_mesh *m, double E, double nu, int sdeg, int mdeg, size_t count,
                  fe_eigen_result *r)
{
    fe_sparse S;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = sdeg ? fe_sparse_assemble_rules(m, E, nu, 1.0, sdeg, mdeg, &S, &err)
                  : fe_sparse_assemble(m, E, nu, 1.0, &S, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    double L = fe_mesh_extent(m), scale = E / (L * L);
    fe_solver *f = NULL;
    cr_assert_eq(fe_solver_factor(&S, 1e-4 * scale, &f, &err), 0, "%s", err.msg);
    cr_assert_eq(fe_eigen_free_free(&S, f, 1e-4 * scale, count, 1e-6 * scale, r, &err), 0, "%s",
                 err.msg);
    fe_solver_free(f);
    fe_sparse_free(&S);
}

/* The eigenvalue column of CalculiX's EIGENVALUE OUTPUT table, modes in order. */
static size_t read_ccx_eigenvalues(const char *path, double *lambda, size_t max)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[512];
    int in_table = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, fp) && n < max) {
        if (strstr(line, "E I G E N V A L U E   O U T P U T")) {
            in_table = 1;
            continue;
        }
        if (in_table && strstr(line, "P A R T I C I P A T I O N"))
            break;
        int mode;
        double value;
        if (in_table && sscanf(line, "%d %lf", &mode, &value) == 2 && mode == (int)n + 1)
            lambda[n++] = value;
    }
    fclose(fp);
    return n;
}

static int read_sphere(fe_mesh *m)
{
    ldem_err err;
    ldem_err_clear(&err);
    FILE *probe = fopen(SPHERE("ccx_sphere_freq.dat"), "r");
    if (!probe)
        return 0;
    fclose(probe);
    cr_assert_eq(inp_read_mesh(SPHERE("ccx_sphere_mesh.inp"), m, &err), 0, "%s", err.msg);
    return 1;
}

/* Same matrices as CalculiX (4-point rule for K and M): the 10 elastic eigenvalues agree
 * to the 7 digits CalculiX prints. */
Test(fe_solve, sphere_matches_calculix_frequency)
{
    fe_mesh m;
    memset(&m, 0, sizeof m);
    if (!read_sphere(&m))
        cr_skip_test("no CalculiX fixture (gmsh or ccx missing at build time)");
    double ccx[16];
    cr_assert_eq(read_ccx_eigenvalues(SPHERE("ccx_sphere_freq.dat"), ccx, 16), 16);
    for (int k = 0; k < 6; k++)
        cr_assert(fabs(ccx[k]) < 1e-8, "CalculiX rigid mode %d at %g", k + 1, ccx[k]);
    fe_eigen_result r;
    eigen(&m, 2.6, 0.3, 2, 2, 10, &r);
    cr_assert_eq(r.rigid, 6);
    double worst = 0;
    for (int k = 0; k < 10; k++)
        worst = fmax(worst, fabs(r.lambda[k] - ccx[6 + k]) / ccx[6 + k]);
    cr_assert(worst < 2e-6, "omega^2 against CalculiX: worst %.3e", worst);
    cr_log_info("sphere, CalculiX's rule: omega^2 within %.2e of CalculiX *FREQUENCY", worst);
    fe_eigen_result_free(&r);

    /* modefit's own rules integrate the consistent mass exactly; CalculiX's 4-point rule
     * does not (degree 2 for a degree-4 integrand), which puts its ω² above ours. */
    eigen(&m, 2.6, 0.3, 0, 0, 10, &r);
    double spread = 0;
    for (int k = 0; k < 10; k++) {
        double rel = (ccx[6 + k] - r.lambda[k]) / ccx[6 + k];
        cr_assert(rel > 0 && rel < 2e-3, "mode %d: CalculiX %.9g, ours %.9g", k + 1, ccx[6 + k],
                  r.lambda[k]);
        spread = fmax(spread, rel);
    }
    cr_log_info("sphere, exact mass: omega^2 below CalculiX's by at most %.2e", spread);
    fe_eigen_result_free(&r);
    fe_mesh_free(&m);
}

/* Spherical Bessel functions j2, j3 in closed form. */
static double j2(double x)
{
    return (3.0 / (x * x) - 1.0) * sin(x) / x - 3.0 * cos(x) / (x * x);
}

static double j3(double x)
{
    return (15.0 / (x * x * x) - 6.0 / x) * sin(x) / x - (15.0 / (x * x) - 1.0) * cos(x) / x;
}

/* Lamb (1882): a free sphere's torsional modes of degree n solve
 * (n − 1) j_n(x) = x j_{n+1}(x), x = ω R / c_s; n = 2, lowest root, by bisection. */
static double lamb_torsional_2(void)
{
    double lo = 2.0, hi = 3.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        double flo = j2(lo) - lo * j3(lo), fmid = j2(mid) - mid * j3(mid);
        if ((flo < 0) == (fmid < 0))
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

Test(fe_solve, sphere_torsional_mode_is_lambs)
{
    fe_mesh m;
    memset(&m, 0, sizeof m);
    if (!read_sphere(&m))
        cr_skip_test("no CalculiX fixture (gmsh or ccx missing at build time)");
    double x = lamb_torsional_2();
    cr_assert(fabs(x - 2.5011) < 1e-3, "Lamb's root %.6f", x);
    fe_eigen_result r;
    eigen(&m, 2.6, 0.3, 0, 0, 5, &r); /* μ = 1, ρ = 1, R = 1: ω = x */
    for (int k = 0; k < 5; k++) {
        double w = sqrt(r.lambda[k]);
        /* Mesh size 0.3 on a unit sphere: 1e-3 of ω. */
        cr_assert(fabs(w - x) < 1e-3 * x, "mode %d: omega %.6f, Lamb %.6f", k + 1, w, x);
    }
    cr_log_info("sphere: five torsional n=2 modes within %.2e of Lamb's %.6f",
                fabs(sqrt(r.lambda[4]) - x) / x, x);
    fe_eigen_result_free(&r);
    fe_mesh_free(&m);
}

/* A free-free bar 20 × 1 × 1 (E = 1, ρ = 1, ν = 0.3): the first two bending pairs against
 * Euler–Bernoulli, (β L)² sqrt(EI / (ρ A L⁴)) with β L = 4.7300, 7.8532, and the first
 * axial mode against the rod's π/L sqrt(E/ρ). */
Test(fe_solve, bar_modes_follow_beam_and_rod_theory)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 40, 2, 2, 20.0, 1.0, 1.0);
    fe_eigen_result r;
    eigen(&m, 1.0, 0.3, 0, 0, 12, &r);
    const double L = 20.0, EI = 1.0 / 12.0;
    double b1 = 4.730040745 * 4.730040745 * sqrt(EI) / (L * L);
    double b2 = 7.853204624 * 7.853204624 * sqrt(EI) / (L * L);
    double w[12];
    for (int k = 0; k < 12; k++)
        w[k] = sqrt(r.lambda[k]);
    /* Shear and rotary inertia (Timoshenko) lower the bar's frequencies below the
     * Euler–Bernoulli beam's by about (β r)² times a few: 1 % and 2.5 % at L/h = 20. */
    for (int k = 0; k < 2; k++) {
        cr_assert(w[k] < b1 && w[k] > 0.985 * b1, "bending 1: %.6g vs %.6g", w[k], b1);
        cr_assert(w[2 + k] < b2 && w[2 + k] > 0.96 * b2, "bending 2: %.6g vs %.6g", w[2 + k], b2);
    }
    double axial = PI / L, best = INFINITY;
    for (int k = 0; k < 12; k++)
        best = fmin(best, fabs(w[k] - axial) / axial);
    cr_assert(best < 2e-3, "no mode within 2e-3 of the axial %.6g (nearest %.2e)", axial, best);
    cr_log_info("bar: bending %.4f, %.4f of Euler-Bernoulli; axial within %.2e",
                w[0] / b1, w[2] / b2, best);
    fe_eigen_result_free(&r);
    fe_test_mesh_free(&m);
}

/* 4-node tets too (C3D4 decks): the bar's axial mode, a uniform strain along the bar's
 * length that linear tets represent without locking, within 1 % of the rod's. */
Test(fe_solve, tet4_bar_axial_mode)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET4, 80, 2, 2, 20.0, 1.0, 1.0);
    fe_eigen_result r;
    eigen(&m, 1.0, 0.3, 0, 0, 12, &r);
    double axial = PI / 20.0, best = INFINITY;
    for (int k = 0; k < 12; k++)
        best = fmin(best, fabs(sqrt(r.lambda[k]) - axial) / axial);
    cr_assert(best < 1e-2, "tet4: nearest mode %.2e from the axial %.6g", best, axial);
    cr_log_info("tet4 bar: axial mode within %.2e", best);
    fe_eigen_result_free(&r);
    fe_test_mesh_free(&m);
}

/* Assembled K and M give, for any fields, the Grams fe_integrate computes (same rules):
 * a guard that the two paths are one discretization. */
Test(fe_solve, sparse_matrices_equal_the_grams)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 3, 2, 2, 1.5, 1.0, 0.8);
    fe_test_curve_interior(&m, 0.04, 7);
    ldem_err err;
    ldem_err_clear(&err);
    fe_sparse S;
    cr_assert_eq(fe_sparse_assemble(&m, 3.0, 0.25, 2.0, &S, &err), 0, "%s", err.msg);
    size_t n = S.n;
    double *a = malloc(2 * n * sizeof *a), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < 2 * n; i++)
        a[i] = sin(0.37 * (double)i) + 0.1 * cos(1.3 * (double)(i * i % 97));
    double G[4], H[4];
    cr_assert_eq(fe_stiffness_gram(&m, 3.0, 0.25, a, 2, a, 2, G, &err), 0);
    cr_assert_eq(fe_mass_gram(&m, 2.0, a, 2, a, 2, H, &err), 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double k = 0, mm = 0;
            fe_sparse_symv(&S, S.K, a + (size_t)j * n, y);
            for (size_t p = 0; p < n; p++)
                k += a[(size_t)i * n + p] * y[p];
            fe_sparse_symv(&S, S.M, a + (size_t)j * n, y);
            for (size_t p = 0; p < n; p++)
                mm += a[(size_t)i * n + p] * y[p];
            cr_assert(fabs(k - G[2 * i + j]) <= 1e-11 * fabs(G[0]), "K %g vs %g", k, G[2 * i + j]);
            cr_assert(fabs(mm - H[2 * i + j]) <= 1e-11 * fabs(H[0]), "M %g vs %g", mm, H[2 * i + j]);
        }
    free(a);
    free(y);
    fe_sparse_free(&S);
    fe_test_mesh_free(&m);
}

static void static_response(const fe_mesh *m, const double *d1, const double *d2, double a,
                            double *u, double *load)
{
    ldem_err err;
    ldem_err_clear(&err);
    fe_locator *loc = NULL;
    cr_assert_eq(fe_locator_build(m, &loc, &err), 0, "%s", err.msg);
    size_t n = 3 * m->nnodes, faces = 0;
    memset(load, 0, n * sizeof *load);
    double c[3];
    cr_assert_eq(fe_patch_load(m, loc, d1, a, load, c, &faces, &err), 0);
    cr_assert(faces > 0);
    cr_assert_eq(fe_patch_load(m, loc, d2, a, load, c, &faces, &err), 0);
    cr_assert(faces > 0);
    fe_sparse S;
    cr_assert_eq(fe_sparse_assemble(m, 1.0, 0.3, 1.0, &S, &err), 0);
    double L = fe_mesh_extent(m), shift = 1e-4 / (L * L);
    fe_solver *f = NULL;
    cr_assert_eq(fe_solver_factor(&S, shift, &f, &err), 0);
    double vol, centre[3], second[3][3];
    fe_volume_moments(m, &vol, centre, second);
    double *rigid = malloc(6 * n * sizeof *rigid);
    fe_rigid_fields(m, centre, rigid);
    int it = 0;
    cr_assert_eq(fe_static_inertia_relief(&S, f, rigid, load, 1, u, &it, &err), 0, "%s", err.msg);
    cr_log_info("inertia relief: %d refinements", it);
    free(rigid);
    fe_solver_free(f);
    fe_sparse_free(&S);
    fe_locator_free(loc);
}

/* Mean of component c of u over the nodes on the plane x = x0. */
static double section_mean(const fe_mesh *m, const double *u, double x0, int c)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        if (fabs(m->xyz[3 * i] - x0) < 1e-9) {
            s += u[3 * i + (size_t)c];
            k++;
        }
    return s / (double)k;
}

/* Two opposite unit patches on the end faces of a 20 × 1 × 1 bar: away from the ends
 * (Saint-Venant) the strain is uniform, −P/(EA) along the bar and ν P/(EA) across, which
 * 10-node tets represent exactly. */
Test(fe_solve, end_patches_compress_a_bar_uniformly)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 40, 2, 2, 20.0, 1.0, 1.0);
    size_t n = 3 * m.nnodes;
    double *u = malloc(n * sizeof *u), *load = malloc(n * sizeof *load);
    double dx[3] = {1, 0, 0}, mx[3] = {-1, 0, 0};
    static_response(&m, dx, mx, 0.4, u, load);
    double total = 0;
    for (size_t i = 0; i < m.nnodes; i++)
        total += load[3 * i] * (m.xyz[3 * i] > 10 ? 1 : 0);
    cr_assert(fabs(total + 1.0) < 1e-12, "the patch at x = 20 pushes with %.15g", total);
    double strain = (section_mean(&m, u, 15.0, 0) - section_mean(&m, u, 5.0, 0)) / 10.0;
    cr_assert(fabs(strain + 1.0) < 1e-4, "axial strain %.9g, expected -1", strain);
    /* Lateral: u_y at y = 1 minus u_y at y = 0 over the section x = 10. */
    double top = 0, bottom = 0;
    size_t nt = 0, nb = 0;
    for (size_t i = 0; i < m.nnodes; i++) {
        const double *x = m.xyz + 3 * i;
        if (fabs(x[0] - 10.0) > 1e-9)
            continue;
        if (fabs(x[1] - 1.0) < 1e-9) {
            top += u[3 * i + 1];
            nt++;
        } else if (fabs(x[1]) < 1e-9) {
            bottom += u[3 * i + 1];
            nb++;
        }
    }
    double lateral = top / (double)nt - bottom / (double)nb;
    cr_assert(fabs(lateral - 0.3) < 1e-4, "lateral strain %.9g, expected nu = 0.3", lateral);
    cr_log_info("bar between patches: axial strain %.9f, lateral %.9f", strain, lateral);
    free(u);
    free(load);
    fe_test_mesh_free(&m);
}

/* Patches whose forces are not collinear (a skew direction on a bar): the response is
 * still rigid-free (Rᵀ M u = 0) and solves K u = f − M R a; a guard of the algebra. */
Test(fe_solve, inertia_relief_balances_skew_patches)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 8, 2, 2, 4.0, 1.0, 1.0);
    size_t n = 3 * m.nnodes;
    double *u = malloc(n * sizeof *u), *load = malloc(n * sizeof *load);
    double d[3] = {0.8, 0.36, 0.48}, md[3] = {-0.8, -0.36, -0.48};
    static_response(&m, d, md, 0.3, u, load);
    ldem_err err;
    ldem_err_clear(&err);
    double vol, centre[3], second[3][3];
    fe_volume_moments(&m, &vol, centre, second);
    double *rigid = malloc(6 * n * sizeof *rigid), G[6];
    fe_rigid_fields(&m, centre, rigid);
    cr_assert_eq(fe_mass_gram(&m, 1.0, rigid, 6, u, 1, G, &err), 0);
    double unorm = 0;
    for (size_t i = 0; i < n; i++)
        unorm = fmax(unorm, fabs(u[i]));
    cr_assert(unorm > 0);
    for (int k = 0; k < 6; k++)
        cr_assert(fabs(G[k]) < 1e-10 * unorm * vol, "rigid part %d: %g", k, G[k]);
    free(rigid);
    free(u);
    free(load);
    fe_test_mesh_free(&m);
}

/* Two separate boxes in one mesh: twelve zero modes, refused by name. */
Test(fe_solve, mesh_in_pieces_is_refused)
{
    fe_mesh a;
    fe_test_box(&a, FE_TET4, 2, 2, 2, 1.0, 1.0, 1.0);
    fe_mesh m = a;
    size_t nn = a.nnodes, nt = a.ntets;
    m.nnodes = 2 * nn;
    m.ntets = 2 * nt;
    m.xyz = malloc(3 * m.nnodes * sizeof *m.xyz);
    m.node_id = malloc(m.nnodes * sizeof *m.node_id);
    m.tet = malloc(4 * m.ntets * sizeof *m.tet);
    for (size_t i = 0; i < nn; i++)
        for (int c = 0; c < 3; c++) {
            m.xyz[3 * i + (size_t)c] = a.xyz[3 * i + (size_t)c];
            m.xyz[3 * (nn + i) + (size_t)c] = a.xyz[3 * i + (size_t)c] + (c == 0 ? 3.0 : 0.0);
        }
    for (size_t i = 0; i < m.nnodes; i++)
        m.node_id[i] = (long)i + 1;
    for (size_t e = 0; e < 4 * nt; e++) {
        m.tet[e] = a.tet[e];
        m.tet[4 * nt + e] = a.tet[e] + nn;
    }
    ldem_err err;
    ldem_err_clear(&err);
    fe_sparse S;
    cr_assert_eq(fe_sparse_assemble(&m, 1.0, 0.3, 1.0, &S, &err), 0);
    fe_solver *f = NULL;
    double L = fe_mesh_extent(&m), scale = 1.0 / (L * L);
    cr_assert_eq(fe_solver_factor(&S, 1e-4 * scale, &f, &err), 0);
    fe_eigen_result r;
    int rc = fe_eigen_free_free(&S, f, 1e-4 * scale, 8, 1e-6 * scale, &r, &err);
    cr_assert_eq(rc, LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "12 zero-frequency modes") && strstr(err.msg, "pieces"), "%s",
              err.msg);
    fe_solver_free(f);
    fe_sparse_free(&S);
    free(m.xyz);
    free(m.node_id);
    free(m.tet);
    fe_test_mesh_free(&a);
}

/* The same bits twice (fixed start vector, one BLAS thread): a guard for reproducible
 * bundles. */
Test(fe_solve, eigen_is_repeatable)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 6, 2, 2, 3.0, 1.0, 1.0);
    fe_eigen_result a, b;
    eigen(&m, 1.0, 0.3, 0, 0, 6, &a);
    eigen(&m, 1.0, 0.3, 0, 0, 6, &b);
    cr_assert(memcmp(a.lambda, b.lambda, 6 * sizeof *a.lambda) == 0);
    cr_assert(memcmp(a.phi, b.phi, 6 * 3 * m.nnodes * sizeof *a.phi) == 0);
    fe_eigen_result_free(&a);
    fe_eigen_result_free(&b);
    fe_test_mesh_free(&m);
}
