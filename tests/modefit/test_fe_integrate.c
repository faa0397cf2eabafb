/* Unit tests of fe_integrate.h on meshes built in code: volume moments of a box, the
 * patch test (linear fields: exact strain energy), rigid fields (zero energy), symmetry,
 * exact mass integrals of polynomial fields, convergence of the stiffness form for a
 * non-polynomial field, agreement with a direct point-by-point evaluation through
 * elastic.h, curved (spherical shell) geometry, reproducibility across BLAS thread
 * counts, input errors, and the timing of a 50k-tet mesh. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "elastic.h"
#include "fe_box_mesh.h"
#include "fe_integrate.h"
#include "fe_tet.h"

#define PI 3.14159265358979323846

/* C11 does not convert double (*)[3] to const double (*)[3] implicitly (-Wpedantic). */
#define CM(a) ((const double(*)[3])(a))

static const double YOUNG = 70e9, POISSON = 0.3, RHO = 2500.0;

static double *xcalloc(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof(double));
    cr_assert_not_null(p);
    return p;
}

/* Process CPU time, all threads: steadier than wall time on a shared machine. */
static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Nodal values of u = A x + b. */
static void linear_field(const fe_mesh *m, const double A[3][3], const double b[3], double *u)
{
    for (size_t n = 0; n < m->nnodes; n++)
        for (int i = 0; i < 3; i++) {
            const double *x = m->xyz + 3 * n;
            u[3 * n + i] = A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2] + b[i];
        }
}

static void random_matrix(unsigned long long *st, double A[3][3], double b[3])
{
    for (int i = 0; i < 3; i++) {
        b[i] = 2.0 * fe_test_uniform(st) - 1.0;
        for (int j = 0; j < 3; j++)
            A[i][j] = 2.0 * fe_test_uniform(st) - 1.0;
    }
}

static double form_of(const double A[3][3], const double B[3][3])
{
    double lambda, mu, Ea[3][3], Eb[3][3];
    elastic_lame(YOUNG, POISSON, &lambda, &mu);
    elastic_strain(A, Ea);
    elastic_strain(B, Eb);
    return elastic_bilinear(lambda, mu, CM(Ea), CM(Eb));
}

/* The three meshes most tests run on: straight tet4 and tet10, and tet10 with curved
 * interior edges (boundary still the box's faces, so the volume stays a·b·c). The box is
 * shifted away from the origin so that nothing relies on it. */
static void make_mesh(fe_mesh *m, int kind)
{
    fe_test_box(m, kind == 0 ? FE_TET4 : FE_TET10, 3, 2, 4, 1.2, 0.7, 1.6);
    if (kind == 2)
        fe_test_curve_interior(m, 0.03, 17);
    for (size_t n = 0; n < m->nnodes; n++) {
        m->xyz[3 * n + 0] += 0.5;
        m->xyz[3 * n + 1] -= 0.25;
        m->xyz[3 * n + 2] += 2.0;
    }
}
static const char *kind_name[3] = {"tet4", "tet10", "curved tet10"};
#define BOX_A 1.2
#define BOX_B 0.7
#define BOX_C 1.6
#define BOX_V (BOX_A * BOX_B * BOX_C)
static const double box_lo[3] = {0.5, -0.25, 2.0};

/* V = abc, centroid at the box centre, ∫ x_i x_j from the 1D moments (x_i ∈ [l, l+a]:
 * ∫ x = (h² - l²)/2, ∫ x² = (h³ - l³)/3), to 1e-13 relative. On curved tet10 V (det J is
 * degree 3) and the first moments (degree 5) are still exact; x_i x_j det J is degree 7,
 * beyond the degree-5 rule, so the second moments are only close (1e-5 here) — but they
 * must differ from the exact values, or the test would not be testing curved elements. */
Test(fe_integrate, volume_moments_of_a_box)
{
    const double len[3] = {BOX_A, BOX_B, BOX_C};
    double m1[3], m2[3];
    for (int i = 0; i < 3; i++) {
        double l = box_lo[i], h = box_lo[i] + len[i];
        m1[i] = (h * h - l * l) / 2.0;
        m2[i] = (h * h * h - l * l * l) / 3.0;
    }
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        double V, c[3], S[3][3], worst = 0.0;
        fe_volume_moments(&m, &V, c, S);
        cr_assert_leq(fabs(V - BOX_V) / BOX_V, 1e-13, "%s: V = %.17g", kind_name[kind], V);
        for (int i = 0; i < 3; i++) {
            cr_assert_leq(fabs(c[i] - (box_lo[i] + len[i] / 2)), 1e-13);
            for (int j = 0; j < 3; j++) {
                double want =
                    i == j ? m2[i] * BOX_V / len[i] : m1[i] * m1[j] * BOX_V / (len[i] * len[j]);
                worst = fmax(worst, fabs(S[i][j] - want) / fabs(want));
            }
        }
        cr_log_info("%s: second moments rel err %.2g", kind_name[kind], worst);
        if (kind < 2)
            cr_assert_leq(worst, 1e-13, "%s", kind_name[kind]);
        else
            cr_assert(worst > 1e-13 && worst < 1e-5, "%s: %g", kind_name[kind], worst);
        fe_test_mesh_free(&m);
    }
}

/* Patch test: u = A x + b is reproduced by both orders (also on curved elements: the map
 * is isoparametric), its strain is constant, and the stiffness form equals
 * (C:E(A)):E(B) · V to 1e-12, for one field (dsyrk path) and for 3 × 4 different fields
 * (dgemm path). */
Test(fe_integrate, patch_test)
{
    unsigned long long st = 2024;
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        size_t nd = 3 * m.nnodes;
        double A[7][3][3], b[7][3];
        double *u = xcalloc(7 * nd);
        for (int k = 0; k < 7; k++) {
            random_matrix(&st, A[k], b[k]);
            linear_field(&m, CM(A[k]), b[k], u + k * nd);
        }
        double G1, G[12];
        ldem_err err;
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, u, 1, u, 1, &G1, &err), LDEM_OK, "%s",
                     err.msg);
        double want = form_of(CM(A[0]), CM(A[0])) * BOX_V;
        cr_assert_leq(fabs(G1 - want) / want, 1e-12, "%s: %.17g vs %.17g", kind_name[kind], G1,
                      want);
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, u, 3, u + 3 * nd, 4, G, &err), LDEM_OK,
                     "%s", err.msg);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                double w = form_of(CM(A[i]), CM(A[3 + j])) * BOX_V;
                double scale =
                    sqrt(form_of(CM(A[i]), CM(A[i])) * form_of(CM(A[3 + j]), CM(A[3 + j]))) * BOX_V;
                cr_assert_leq(fabs(G[i * 4 + j] - w) / scale, 1e-12, "%s: G[%d][%d]",
                              kind_name[kind], i, j);
            }
        free(u);
        fe_test_mesh_free(&m);
    }
}

/* Rigid fields are w × (x - c) and translations, and store no strain energy: every entry
 * of their 6×6 stiffness Gram, and of their Gram against linear fields, is below 1e-12 of
 * a unit strain's energy (λ + 2μ) V. Their mass Gram is the rigid-body inertia:
 * translations ρV δ, rotations ρ (tr S I - S) about c (S the second moments about c). */
Test(fe_integrate, rigid_fields)
{
    const double c[3] = {0.9, 0.2, 2.5};
    double lambda, mu;
    elastic_lame(YOUNG, POISSON, &lambda, &mu);
    const double unit = (lambda + 2.0 * mu) * BOX_V;
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        size_t nd = 3 * m.nnodes;
        double *r = xcalloc(7 * nd);
        fe_rigid_fields(&m, c, r);
        for (size_t n = 0; n < m.nnodes; n++) {
            const double *x = m.xyz + 3 * n;
            double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
            for (int k = 0; k < 3; k++) {
                double w[3] = {k == 0, k == 1, k == 2};
                double cross[3] = {w[1] * d[2] - w[2] * d[1], w[2] * d[0] - w[0] * d[2],
                                   w[0] * d[1] - w[1] * d[0]};
                for (int i = 0; i < 3; i++) {
                    cr_assert_eq(r[k * nd + 3 * n + i], w[i]);
                    cr_assert_eq(r[(3 + k) * nd + 3 * n + i], cross[i]);
                }
            }
        }
        unsigned long long st = 77;
        double A[3][3], b[3];
        random_matrix(&st, A, b);
        linear_field(&m, CM(A), b, r + 6 * nd);
        double K[36], Kx[6], M[36];
        ldem_err err;
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, r, 6, r, 6, K, &err), LDEM_OK);
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, r, 6, r + 6 * nd, 1, Kx, &err), LDEM_OK);
        double worst = 0.0;
        for (int i = 0; i < 36; i++)
            worst = fmax(worst, fabs(K[i]));
        for (int i = 0; i < 6; i++)
            worst = fmax(worst, fabs(Kx[i]));
        cr_log_info("%s: rigid strain energy / unit strain energy = %.2g", kind_name[kind],
                    worst / unit);
        cr_assert_leq(worst, 1e-12 * unit);

        cr_assert_eq(fe_mass_gram(&m, RHO, r, 6, r, 6, M, &err), LDEM_OK);
        double V, cen[3], S0[3][3], S[3][3];
        fe_volume_moments(&m, &V, cen, S0);
        for (int i = 0; i < 3; i++) /* second moments about c */
            for (int j = 0; j < 3; j++)
                S[i][j] = S0[i][j] - c[i] * cen[j] * V - cen[i] * c[j] * V + c[i] * c[j] * V;
        double tr = S[0][0] + S[1][1] + S[2][2];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double want;
                if (i < 3 && j < 3)
                    want = RHO * V * (i == j);
                else if (i >= 3 && j >= 3)
                    want = RHO * ((i == j) * tr - S[i - 3][j - 3]);
                else {
                    /* translation k · (e_l × (x - c)): ρ ∫ (e_l × d)_k = ρ V (e_l × d̄)_k */
                    int k = i < 3 ? i : j, l = (i < 3 ? j : i) - 3;
                    double db[3] = {cen[0] - c[0], cen[1] - c[1], cen[2] - c[2]};
                    double e[3] = {l == 0, l == 1, l == 2};
                    double cr3[3] = {e[1] * db[2] - e[2] * db[1], e[2] * db[0] - e[0] * db[2],
                                     e[0] * db[1] - e[1] * db[0]};
                    want = RHO * V * cr3[k];
                }
                cr_assert_leq(fabs(M[i * 6 + j] - want), 1e-12 * RHO * V * (1.0 + tr / V),
                              "%s: M[%d][%d] = %g, want %g", kind_name[kind], i, j, M[i * 6 + j],
                              want);
            }
        free(r);
        fe_test_mesh_free(&m);
    }
}

/* Random nodal fields (not polynomials): G(a, a) is exactly symmetric, and equals the
 * dgemm path (b a copy of a) and G(b, a)ᵀ to 1e-13 of the largest entry. */
Test(fe_integrate, symmetric_grams)
{
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        size_t nd = 3 * m.nnodes, n = 5;
        double *a = xcalloc(n * nd), *copy = xcalloc(n * nd), *b = xcalloc(3 * nd);
        unsigned long long st = 31 + (unsigned)kind;
        for (size_t i = 0; i < n * nd; i++)
            a[i] = 2.0 * fe_test_uniform(&st) - 1.0;
        for (size_t i = 0; i < 3 * nd; i++)
            b[i] = 2.0 * fe_test_uniform(&st) - 1.0;
        memcpy(copy, a, n * nd * sizeof(double));
        for (int stiff = 0; stiff < 2; stiff++) {
            double G[25], H[25], ab[15], ba[15];
            ldem_err err;
#define GRAM(x, nx, y, ny, out)                                                                    \
    (stiff ? fe_stiffness_gram(&m, YOUNG, POISSON, x, nx, y, ny, out, &err)                        \
           : fe_mass_gram(&m, RHO, x, nx, y, ny, out, &err))
            cr_assert_eq(GRAM(a, n, a, n, G), LDEM_OK);
            cr_assert_eq(GRAM(a, n, copy, n, H), LDEM_OK);
            cr_assert_eq(GRAM(a, n, b, 3, ab), LDEM_OK);
            cr_assert_eq(GRAM(b, 3, a, n, ba), LDEM_OK);
#undef GRAM
            double big = 0.0;
            for (int i = 0; i < 25; i++)
                big = fmax(big, fabs(G[i]));
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    cr_assert_eq(G[i * n + j], G[j * n + i]);
                    cr_assert_leq(fabs(G[i * n + j] - H[i * n + j]), 1e-13 * big);
                }
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < 3; j++)
                    cr_assert_leq(fabs(ab[i * 3 + j] - ba[j * n + i]), 1e-13 * big);
            /* Positive definite diagonal (the fields are not rigid). */
            for (size_t i = 0; i < n; i++)
                cr_assert_gt(G[i * n + i], 0.0);
        }
        free(a);
        free(copy);
        free(b);
        fe_test_mesh_free(&m);
    }
}

/* A direct evaluation written differently: per element and rule point, fe_tet_gradients
 * and fe_tet_shape, then elastic_bilinear / the dot product for every pair of fields.
 * Random fields, so every entry of the Voigt factorization matters. 1e-12 relative to the
 * largest entry. */
static void direct_gram(const fe_mesh *m, int stiffness, const double *a, size_t na,
                        const double *b, size_t nb, double *G)
{
    double lambda, mu;
    elastic_lame(YOUNG, POISSON, &lambda, &mu);
    int deg = stiffness ? (m->order == FE_TET4 ? 1 : 3) : (m->order == FE_TET4 ? 2 : 5);
    const fe_rule *R = fe_tet_rule(deg);
    size_t nd = 3 * m->nnodes;
    memset(G, 0, na * nb * sizeof(double));
    double(*Ea)[3][3] = malloc(na * sizeof *Ea), (*Eb)[3][3] = malloc(nb * sizeof *Eb);
    double(*ua)[3] = malloc(na * sizeof *ua), (*ub)[3] = malloc(nb * sizeof *ub);
    cr_assert(Ea && Eb && ua && ub);
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *tn = m->tet + (size_t)m->order * e;
        for (int q = 0; q < R->npoints; q++) {
            double Gr[10][3], N[10];
            double det = fe_tet_gradients(m, e, R->rst[q], Gr);
            fe_tet_shape(m->order, R->rst[q], N, NULL);
            for (int side = 0; side < 2; side++) {
                const double *f = side ? b : a;
                size_t nf = side ? nb : na;
                for (size_t i = 0; i < nf; i++) {
                    double grad[3][3] = {{0}}, v[3] = {0, 0, 0};
                    for (int n = 0; n < m->order; n++)
                        for (int r = 0; r < 3; r++) {
                            double val = f[i * nd + 3 * tn[n] + r];
                            v[r] += N[n] * val;
                            for (int c = 0; c < 3; c++)
                                grad[r][c] += val * Gr[n][c];
                        }
                    elastic_strain(CM(grad), side ? Eb[i] : Ea[i]);
                    memcpy(side ? ub[i] : ua[i], v, sizeof v);
                }
            }
            for (size_t i = 0; i < na; i++)
                for (size_t j = 0; j < nb; j++)
                    G[i * nb + j] += R->w[q] * det *
                                     (stiffness ? elastic_bilinear(lambda, mu, CM(Ea[i]), CM(Eb[j]))
                                                : RHO * (ua[i][0] * ub[j][0] + ua[i][1] * ub[j][1] +
                                                         ua[i][2] * ub[j][2]));
        }
    }
    free(Ea);
    free(Eb);
    free(ua);
    free(ub);
}

Test(fe_integrate, matches_direct_evaluation)
{
    for (int kind = 0; kind < 3; kind++) {
        fe_mesh m;
        make_mesh(&m, kind);
        size_t nd = 3 * m.nnodes, na = 4, nb = 3;
        double *a = xcalloc(na * nd), *b = xcalloc(nb * nd);
        unsigned long long st = 501 + (unsigned)kind;
        for (size_t i = 0; i < na * nd; i++)
            a[i] = 2.0 * fe_test_uniform(&st) - 1.0;
        for (size_t i = 0; i < nb * nd; i++)
            b[i] = 2.0 * fe_test_uniform(&st) - 1.0;
        for (int stiff = 0; stiff < 2; stiff++) {
            double G[12], D[12], GS[16], DS[16];
            ldem_err err;
            if (stiff) {
                cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, a, na, b, nb, G, &err), 0);
                cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, a, na, a, na, GS, &err), 0);
            } else {
                cr_assert_eq(fe_mass_gram(&m, RHO, a, na, b, nb, G, &err), 0);
                cr_assert_eq(fe_mass_gram(&m, RHO, a, na, a, na, GS, &err), 0);
            }
            direct_gram(&m, stiff, a, na, b, nb, D);
            direct_gram(&m, stiff, a, na, a, na, DS);
            double big = 0.0, worst = 0.0;
            for (int i = 0; i < 16; i++)
                big = fmax(big, fabs(DS[i]));
            for (int i = 0; i < 12; i++)
                worst = fmax(worst, fabs(G[i] - D[i]));
            for (int i = 0; i < 16; i++)
                worst = fmax(worst, fabs(GS[i] - DS[i]));
            cr_log_info("%s %s: BLAS vs direct %.2g relative", kind_name[kind],
                        stiff ? "stiffness" : "mass", worst / big);
            cr_assert_leq(worst, 1e-12 * big);
        }
        free(a);
        free(b);
        fe_test_mesh_free(&m);
    }
}

/* Mass of polynomial fields on a straight tet10 (quadratic fields are interpolated
 * exactly, degree 5 integrates their products exactly): u = (x², y z, 1), v = (x, 0, 0)
 * on [0,a]×[0,b]×[0,c]: ∫ρ u·u = ρ (a⁵bc/5 + a b³c³/9 + abc), ∫ρ u·v = ρ a⁴bc/4, 1e-12.
 * Tet4: constant fields give ρ V c_i·c_j, and u_x = x gives ρ a³bc/3 (degree 2 exact). */
Test(fe_integrate, mass_of_polynomial_fields)
{
    const double a = 1.3, b = 0.6, c = 0.9;
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 3, 2, 2, a, b, c);
    size_t nd = 3 * m.nnodes;
    double *u = xcalloc(2 * nd);
    for (size_t n = 0; n < m.nnodes; n++) {
        const double *x = m.xyz + 3 * n;
        u[3 * n + 0] = x[0] * x[0];
        u[3 * n + 1] = x[1] * x[2];
        u[3 * n + 2] = 1.0;
        u[nd + 3 * n] = x[0];
    }
    double G[4];
    ldem_err err;
    cr_assert_eq(fe_mass_gram(&m, RHO, u, 2, u, 2, G, &err), LDEM_OK);
    double uu = RHO * (pow(a, 5) * b * c / 5 + a * pow(b, 3) * pow(c, 3) / 9 + a * b * c);
    double uv = RHO * pow(a, 4) * b * c / 4;
    cr_assert_leq(fabs(G[0] - uu) / uu, 1e-12, "%.17g vs %.17g", G[0], uu);
    cr_assert_leq(fabs(G[1] - uv) / uv, 1e-12);
    cr_assert_leq(fabs(G[2] - uv) / uv, 1e-12);
    cr_assert_leq(fabs(G[3] - RHO * pow(a, 3) * b * c / 3) / (RHO * pow(a, 3) * b * c / 3), 1e-12);
    free(u);
    fe_test_mesh_free(&m);

    fe_test_box(&m, FE_TET4, 3, 2, 2, a, b, c);
    nd = 3 * m.nnodes;
    u = xcalloc(3 * nd);
    const double k[2][3] = {{1.0, -2.0, 0.5}, {0.3, 0.7, -1.1}};
    for (size_t n = 0; n < m.nnodes; n++)
        for (int i = 0; i < 3; i++) {
            u[3 * n + i] = k[0][i];
            u[nd + 3 * n + i] = k[1][i];
            u[2 * nd + 3 * n + i] = i == 0 ? m.xyz[3 * n] : 0.0;
        }
    double M[9];
    cr_assert_eq(fe_mass_gram(&m, RHO, u, 3, u, 3, M, &err), LDEM_OK);
    double V = a * b * c;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double want = RHO * V * (k[i][0] * k[j][0] + k[i][1] * k[j][1] + k[i][2] * k[j][2]);
            cr_assert_leq(fabs(M[i * 3 + j] - want) / fabs(want), 1e-13);
        }
    double want = RHO * pow(a, 3) * b * c / 3;
    cr_assert_leq(fabs(M[8] - want) / want, 1e-13);
    free(u);
    fe_test_mesh_free(&m);
}

/* u = (s cos(πx/L), 0, sin(πx/L)) on the slender box [0,L]×[0,h]×[0,h]: E_xx = -(π/L) s
 * sin, E_xz = (π/2L) cos, so ∫(C:E):E = (π/L)² h² (L/2) ((λ+2μ) s² + μ). Tet10 meshes of
 * 4k×k×k cubes, k = 1, 2, 4, 8: the relative error falls at rate >= 2 (measured ~4). */
Test(fe_integrate, stiffness_converges)
{
    const double L = 4.0, h = 0.5, s = 0.3;
    double lambda, mu;
    elastic_lame(YOUNG, POISSON, &lambda, &mu);
    const double exact = (PI / L) * (PI / L) * h * h * (L / 2) * ((lambda + 2 * mu) * s * s + mu);
    double prev = 0.0;
    for (int k = 1; k <= 8; k *= 2) {
        fe_mesh m;
        fe_test_box(&m, FE_TET10, 4 * k, k, k, L, h, h);
        double *u = xcalloc(3 * m.nnodes);
        for (size_t n = 0; n < m.nnodes; n++) {
            double x = m.xyz[3 * n];
            u[3 * n + 0] = s * cos(PI * x / L);
            u[3 * n + 2] = sin(PI * x / L);
        }
        double G;
        ldem_err err;
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, u, 1, u, 1, &G, &err), LDEM_OK);
        double rel = fabs(G - exact) / exact;
        if (k > 1) {
            double rate = log2(prev / rel);
            cr_log_info("k = %d: rel err %.3g, rate %.2f", k, rel, rate);
            cr_assert_geq(rate, 2.0, "k = %d: rate %g", k, rate);
        } else {
            cr_log_info("k = %d: rel err %.3g", k, rel);
        }
        prev = rel;
        free(u);
        fe_test_mesh_free(&m);
    }
    cr_assert_leq(prev, 1e-4);
}

/* Curved geometry: the volume of the tet10 shell sector (fe_box_mesh.h) converges to the
 * exact (R2³ - R1³)/3 (cos θ1 - cos θ2)(φ2 - φ1) at rate >= 3 (quadratic geometry: ~4
 * measured), and the patch test holds on it to 1e-12 (linear fields are exact on curved
 * isoparametric elements, and degree 3 integrates det J exactly), with the volume from
 * fe_volume_moments. */
Test(fe_integrate, curved_shell)
{
    const double exact = (pow(FE_SHELL_R2, 3) - pow(FE_SHELL_R1, 3)) / 3.0 *
                         (cos(FE_SHELL_T1) - cos(FE_SHELL_T2)) * (FE_SHELL_P2 - FE_SHELL_P1);
    double prev = 0.0;
    unsigned long long st = 3;
    for (int n = 2; n <= 8; n *= 2) {
        fe_mesh m;
        fe_test_shell(&m, FE_TET10, n);
        double V, c[3], S[3][3];
        fe_volume_moments(&m, &V, c, S);
        double rel = fabs(V - exact) / exact;
        if (n > 2) {
            double rate = log2(prev / rel);
            cr_log_info("shell n = %d: volume rel err %.3g, rate %.2f", n, rel, rate);
            cr_assert_geq(rate, 3.0);
        }
        prev = rel;
        double A[3][3], b[3], G;
        random_matrix(&st, A, b);
        double *u = xcalloc(3 * m.nnodes);
        linear_field(&m, CM(A), b, u);
        ldem_err err;
        cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, u, 1, u, 1, &G, &err), LDEM_OK, "%s",
                     err.msg);
        double want = form_of(CM(A), CM(A)) * V;
        cr_assert_leq(fabs(G - want) / want, 1e-12, "n = %d: %.17g vs %.17g", n, G, want);
        free(u);
        fe_test_mesh_free(&m);
    }
    cr_assert_leq(prev, 1e-4);
}

/* Reproducible results on a mesh that spans many BLAS blocks: repeated calls give the same
 * bits for a given BLAS thread count (1 and 2), and 1 and 2 BLAS threads agree to 1e-14 of
 * the largest entry. (Not bitwise: OpenBLAS 0.3.21's dgemm, used when a != b, measurably
 * sums differently with 2 threads; its dsyrk did not here — logged, not asserted.) */
static void set_blas_threads(int n)
{
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(n);
#else
    (void)n;
#endif
}

static double max_abs(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

Test(fe_integrate, reproducible_across_blas_threads)
{
#ifdef OPENBLAS_VERSION
    int saved_blas = openblas_get_num_threads();
#endif
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 8, 8, 8, 1.0, 1.0, 1.0);
    fe_test_curve_interior(&m, 0.03, 5);
    enum { NF = 24, NB = 12 };
    size_t nd = 3 * m.nnodes;
    double *a = xcalloc(NF * nd);
    unsigned long long st = 8;
    for (size_t i = 0; i < NF * nd; i++)
        a[i] = fe_test_uniform(&st) - 0.5;
    static double K[2][2][NF * NF], M[2][2][NF * NF], X[2][2][NF * NB];
    for (int t = 0; t < 2; t++) {
        set_blas_threads(t + 1);
        for (int rep = 0; rep < 2; rep++) {
            ldem_err err;
            cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, a, NF, a, NF, K[t][rep], &err), 0);
            cr_assert_eq(fe_mass_gram(&m, RHO, a, NF, a, NF, M[t][rep], &err), 0);
            cr_assert_eq(
                fe_stiffness_gram(&m, YOUNG, POISSON, a, NF, a + NB * nd, NB, X[t][rep], &err), 0);
        }
        cr_assert_eq(memcmp(K[t][0], K[t][1], sizeof K[t][0]), 0);
        cr_assert_eq(memcmp(M[t][0], M[t][1], sizeof M[t][0]), 0);
        cr_assert_eq(memcmp(X[t][0], X[t][1], sizeof X[t][0]), 0);
    }
#ifdef OPENBLAS_VERSION
    set_blas_threads(saved_blas);
#endif
    const double *one[3] = {K[0][0], M[0][0], X[0][0]}, *two[3] = {K[1][0], M[1][0], X[1][0]};
    const size_t len[3] = {NF * NF, NF * NF, NF * NB};
    const char *name[3] = {"stiffness (dsyrk)", "mass (dsyrk)", "stiffness a != b (dgemm)"};
    for (int k = 0; k < 3; k++) {
        double big = max_abs(one[k], len[k]), worst = 0.0;
        for (size_t i = 0; i < len[k]; i++)
            worst = fmax(worst, fabs(one[k][i] - two[k][i]));
        cr_log_info("%s: 1 vs 2 BLAS threads differ by %.2g of the largest entry%s", name[k],
                    worst / big, worst == 0.0 ? " (bit-identical)" : "");
        cr_assert_leq(worst, 1e-14 * big, "%s", name[k]);
    }
    free(a);
    fe_test_mesh_free(&m);
}

Test(fe_integrate, input_errors)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 2, 1, 1, 1.0, 1.0, 1.0);
    double *u = xcalloc(3 * m.nnodes), G;
    for (size_t i = 0; i < 3 * m.nnodes; i++)
        u[i] = m.xyz[i];
    ldem_err err;
    cr_assert_eq(fe_stiffness_gram(&m, YOUNG, 0.5, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    cr_assert_eq(fe_stiffness_gram(&m, -1.0, 0.3, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    cr_assert_eq(fe_stiffness_gram(&m, YOUNG, NAN, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    cr_assert_eq(fe_mass_gram(&m, 0.0, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    cr_assert_eq(fe_mass_gram(&m, NAN, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    /* ν slightly negative is a valid (auxetic) material. */
    cr_assert_eq(fe_stiffness_gram(&m, YOUNG, -0.2, u, 1, u, 1, &G, &err), LDEM_OK);
    /* Invert tet 4 (1-based): swap corners 1 and 2 and the edges that follow them
     * (01 <-> 20, 13 <-> 23), so the element is its mirror image. */
    size_t *t = m.tet + 10 * 3;
    static const int swaps[3][2] = {{1, 2}, {4, 6}, {8, 9}};
    for (int k = 0; k < 3; k++) {
        size_t tmp = t[swaps[k][0]];
        t[swaps[k][0]] = t[swaps[k][1]];
        t[swaps[k][1]] = tmp;
    }
    cr_assert_eq(fe_mass_gram(&m, RHO, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.msg, "element 4 "), "%s", err.msg);
    cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, u, 1, u, 1, &G, &err), LDEM_ERR_INPUT);
    m.order = 7;
    cr_assert_eq(fe_mass_gram(&m, RHO, u, 1, u, 1, &G, &err), LDEM_ERR_USAGE);
    m.order = FE_TET10;
    free(u);
    fe_test_mesh_free(&m);
}

/* A 50k-tet tet10 mesh with 20 random fields: timings printed, not asserted. The values
 * are checked for symmetry and positivity only (the tests above check correctness). */
Test(fe_integrate, timing_50k_tets)
{
    fe_mesh m;
    fe_test_box(&m, FE_TET10, 20, 20, 21, 1.0, 1.0, 1.05);
    size_t nd = 3 * m.nnodes, n = 20;
    double *a = xcalloc(n * nd);
    unsigned long long st = 1;
    for (size_t i = 0; i < n * nd; i++)
        a[i] = fe_test_uniform(&st) - 0.5;
    double *K = xcalloc(n * n), *M = xcalloc(n * n);
    ldem_err err;
    double t0 = now(), c0 = cpu();
    cr_assert_eq(fe_stiffness_gram(&m, YOUNG, POISSON, a, n, a, n, K, &err), LDEM_OK);
    double t1 = now(), c1 = cpu();
    cr_assert_eq(fe_mass_gram(&m, RHO, a, n, a, n, M, &err), LDEM_OK);
    double t2 = now(), c2 = cpu();
    fprintf(stderr,
            "fe_integrate timing: %zu tet10, %zu nodes, %zu fields: stiffness Gram %.3f s wall "
            "(%.3f s CPU), mass Gram %.3f s wall (%.3f s CPU)\n",
            m.ntets, m.nnodes, n, t1 - t0, c1 - c0, t2 - t1, c2 - c1);
    for (size_t i = 0; i < n; i++) {
        cr_assert_gt(K[i * n + i], 0.0);
        cr_assert_gt(M[i * n + i], 0.0);
    }
    free(a);
    free(K);
    free(M);
    fe_test_mesh_free(&m);
}
