/* Unit tests of ldem/modes.h: a shape's deformation modes at run time, built from hand-made
 * sections and checked against closed forms:
 *   - node values round trip (stored exactly, or evaluated from the field at the nodes);
 *   - a grid field holding an affine Φ (exact in float32) is reproduced exactly by the
 *     trilinear interpolation, with its gradient, and clamped outside its box;
 *   - the analytic beam-bending mode equals eq. 51 written out here, and its gradient the
 *     finite differences of itself;
 *   - F_int and U: linear = Kε and ½εᵀKε; tabulated = the table's F plus the off-diagonal
 *     K; F_int is the finite-difference derivative of U;
 *   - ω_max against the 2×2 generalized eigenvalue in closed form (K definite, indefinite,
 *     tabulated), M⁻¹ by residual, damping ratio by Ψᵀ C Ψ = diag(2ζω) and C M⁻¹ C = 4ζ²K;
 *   - bad sections are LDEM_ERR_INPUT with a message naming the section. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/modes.h"
#include "support/test_rng.h"

#define PI 3.14159265358979323846

/* ---- fixtures ---- */

/* Sections owning their storage, for up to 3 modes. */
typedef struct sections {
    ldem_modes modes;
    ldem_matrix K, M;
    double k[9], m[9];
} sections;

static void sections_matrices(sections *s, uint32_t n, const double *K, const double *M)
{
    s->K = (ldem_matrix){n, s->k};
    s->M = (ldem_matrix){n, s->m};
    memcpy(s->k, K, (size_t)n * n * sizeof *K);
    memcpy(s->m, M, (size_t)n * n * sizeof *M);
}

/* One mode with node values only: K = k, M = m. */
static void one_mode(sections *s, double k, double m, double *node_values, uint64_t nnodes)
{
    memset(s, 0, sizeof *s);
    s->modes.count = 1;
    s->modes.kind = LDEM_MODE_SAMPLED;
    s->modes.nnodes = nnodes;
    s->modes.node_values = node_values;
    sections_matrices(s, 1, (double[]){k}, (double[]){m});
}

static void build_ok(const sections *s, const ldem_etab *etab, const ldem_damping *damp,
                     uint64_t nnodes, const double *positions, ldem_modeset *out)
{
    ldem_err err = {0};
    int rc = ldem_modeset_build(&s->modes, &s->K, &s->M, etab, damp, nnodes, positions, out, &err);
    cr_assert_eq(rc, LDEM_OK, "build failed: %s", err.msg);
}

static void build_fails(const sections *s, const ldem_etab *etab, const ldem_damping *damp,
                        uint64_t nnodes, const double *positions, const char *names)
{
    ldem_err err = {0};
    ldem_modeset out;
    int rc = ldem_modeset_build(&s->modes, &s->K, &s->M, etab, damp, nnodes, positions, &out, &err);
    cr_assert_eq(rc, LDEM_ERR_INPUT, "expected LDEM_ERR_INPUT, got %d (%s)", rc, err.msg);
    cr_assert(strstr(err.msg, names), "message '%s' does not name %s", err.msg, names);
}

static double rel_diff(double a, double b)
{
    return fabs(a - b) / fmax(fabs(a), fmax(fabs(b), 1e-300));
}

/* ---- node values ---- */

Test(modes, node_values_round_trip)
{
    enum { NODES = 6 };
    rng_seed(11);
    double values[2 * NODES * 3];
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        values[i] = uniform();
    sections s;
    memset(&s, 0, sizeof s);
    s.modes =
        (ldem_modes){.count = 2, .kind = LDEM_MODE_SAMPLED, .nnodes = NODES, .node_values = values};
    sections_matrices(&s, 2, (double[]){2, 0, 0, 3}, (double[]){1, 0, 0, 1});
    ldem_modeset m;
    build_ok(&s, NULL, NULL, NODES, NULL, &m);
    cr_assert_eq(m.field, LDEM_MODE_FIELD_NONE);
    /* the section's mode-major values, each exactly, at the modeset's node-major places */
    for (uint32_t a = 0; a < 2; a++)
        for (int k = 0; k < NODES; k++)
            cr_assert_eq(memcmp(ldem_modes_node_value(&m, a, (uint64_t)k),
                                values + 3 * (a * NODES + k), 3 * sizeof(double)),
                         0, "node values changed (mode %u node %d)", a, k);
    for (uint32_t a = 0; a < 2; a++) {
        double most = 0.0;
        for (int k = 0; k < NODES; k++) {
            const double *v = values + 3 * (a * NODES + k);
            most = fmax(most, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        cr_assert_eq(m.node_max[a], most, "node_max[%u] %.17g, expected %.17g", a, m.node_max[a],
                     most);
    }
    double eps[2] = {0.3, -1.7}, ref[NODES * 3], out[NODES * 3];
    for (int i = 0; i < NODES * 3; i++)
        ref[i] = 10.0 * uniform();
    ldem_modes_deform_nodes(&m, eps, ref, out);
    for (int k = 0; k < NODES; k++) {
        ldem_vec3 u = ldem_modes_node_displacement(&m, eps, (uint64_t)k);
        double uu[3] = {u.x, u.y, u.z};
        for (int i = 0; i < 3; i++) {
            double want = eps[0] * values[3 * k + i] + eps[1] * values[3 * (NODES + k) + i];
            cr_assert(fabs(uu[i] - want) <= 1e-15, "node %d: %.17g vs %.17g", k, uu[i], want);
            cr_assert(fabs(out[3 * k + i] - (ref[3 * k + i] + want)) <= 1e-14,
                      "deformed node %d: %.17g vs %.17g", k, out[3 * k + i], ref[3 * k + i] + want);
        }
    }
    ldem_modeset_free(&m);
}

/* ---- grid field: affine Φα(x) = Aα x + bα ---- */

/* Entries are multiples of 1/8 and the grid nodes multiples of 1/4, so every stored float
 * is exact and the trilinear interpolation must reproduce the affine field to round-off. */
static const double AFF_A[2][3][3] = {{{0.5, -1.25, 0.125}, {0.0, 0.75, -0.5}, {1.0, 0.25, -0.375}},
                                      {{-0.25, 0.0, 0.625}, {1.5, -0.125, 0.0}, {0.0, 0.5, 0.25}}};
static const double AFF_B[2][3] = {{0.125, -0.5, 0.25}, {-1.0, 0.375, 0.0}};
static const uint32_t AFF_DIMS[3] = {5, 4, 6};
static const double AFF_ORIGIN[3] = {-1.0, -0.5, -1.25};
static const double AFF_SPACING[3] = {0.5, 0.25, 0.5};

static void affine(int a, const double x[3], double u[3])
{
    for (int i = 0; i < 3; i++)
        u[i] = AFF_A[a][i][0] * x[0] + AFF_A[a][i][1] * x[1] + AFF_A[a][i][2] * x[2] + AFF_B[a][i];
}

typedef struct affine_fixture {
    sections s;
    float grid[2 * 5 * 4 * 6 * 3];
} affine_fixture;

static void affine_sections(affine_fixture *f, uint64_t nnodes)
{
    memset(f, 0, sizeof *f);
    size_t np = (size_t)AFF_DIMS[0] * AFF_DIMS[1] * AFF_DIMS[2];
    for (int a = 0; a < 2; a++)
        for (uint32_t k = 0; k < AFF_DIMS[2]; k++)
            for (uint32_t j = 0; j < AFF_DIMS[1]; j++)
                for (uint32_t i = 0; i < AFF_DIMS[0]; i++) {
                    double x[3] = {AFF_ORIGIN[0] + i * AFF_SPACING[0],
                                   AFF_ORIGIN[1] + j * AFF_SPACING[1],
                                   AFF_ORIGIN[2] + k * AFF_SPACING[2]};
                    double u[3];
                    affine(a, x, u);
                    size_t idx = i + AFF_DIMS[0] * (j + (size_t)AFF_DIMS[1] * k);
                    for (int c = 0; c < 3; c++) {
                        float v = (float)u[c];
                        cr_assert_eq((double)v, u[c], "fixture value not exact in float");
                        f->grid[3 * (a * np + idx) + c] = v;
                    }
                }
    f->s.modes = (ldem_modes){
        .count = 2, .kind = LDEM_MODE_SAMPLED, .nnodes = nnodes, .grid_values = f->grid};
    memcpy(f->s.modes.grid_dims, AFF_DIMS, sizeof AFF_DIMS);
    memcpy(f->s.modes.grid_origin, AFF_ORIGIN, sizeof AFF_ORIGIN);
    memcpy(f->s.modes.grid_spacing, AFF_SPACING, sizeof AFF_SPACING);
    sections_matrices(&f->s, 2, (double[]){2, 0.5, 0.5, 3}, (double[]){1, 0.1, 0.1, 2});
}

static double grid_point(int axis, double t)
{
    return AFF_ORIGIN[axis] + t * AFF_SPACING[axis] * (AFF_DIMS[axis] - 1);
}

Test(modes, grid_field_reproduces_an_affine_field_and_its_gradient)
{
    affine_fixture f;
    affine_sections(&f, 0);
    ldem_modeset m;
    build_ok(&f.s, NULL, NULL, 0, NULL, &m);
    cr_assert_eq(m.field, LDEM_MODE_FIELD_GRID);
    rng_seed(5);
    double worst = 0.0;
    for (int trial = 0; trial < 2000; trial++) {
        double x[3];
        for (int c = 0; c < 3; c++)
            x[c] = grid_point(c, 0.5 + 0.5 * uniform());
        ldem_vec3 p = ldem_vec3_make(x[0], x[1], x[2]), phi[2], u;
        ldem_mat3 grad[2], J;
        cr_assert_eq(ldem_modes_eval(&m, p, phi, grad), 1, "inside point reported outside");
        double eps[2] = {uniform(), 2.0 * uniform()};
        cr_assert_eq(ldem_modes_displacement(&m, eps, p, &u, &J), 1);
        double want_u[3] = {0, 0, 0};
        for (int a = 0; a < 2; a++) {
            double v[3];
            affine(a, x, v);
            double got[3] = {phi[a].x, phi[a].y, phi[a].z};
            for (int i = 0; i < 3; i++) {
                worst = fmax(worst, fabs(got[i] - v[i]));
                want_u[i] += eps[a] * v[i];
                for (int j = 0; j < 3; j++)
                    worst = fmax(worst, fabs(grad[a].m[i][j] - AFF_A[a][i][j]));
            }
        }
        double got_u[3] = {u.x, u.y, u.z};
        for (int i = 0; i < 3; i++) {
            worst = fmax(worst, fabs(got_u[i] - want_u[i]));
            for (int j = 0; j < 3; j++)
                worst = fmax(worst,
                             fabs(J.m[i][j] - (eps[0] * AFF_A[0][i][j] + eps[1] * AFF_A[1][i][j])));
        }
    }
    cr_assert(worst <= 1e-12, "affine field reproduced to %.3g only (need 1e-12)", worst);
    ldem_modeset_free(&m);
}

Test(modes, grid_field_is_clamped_outside_its_box)
{
    affine_fixture f;
    affine_sections(&f, 0);
    ldem_modeset m;
    build_ok(&f.s, NULL, NULL, 0, NULL, &m);
    /* beyond the +x face and below the −z face: the value at the nearest box point */
    double x[3] = {grid_point(0, 1.0) + 0.3, grid_point(1, 0.4), grid_point(2, 0.0) - 2.0};
    double clamped[3] = {grid_point(0, 1.0), x[1], grid_point(2, 0.0)};
    ldem_vec3 phi[2];
    cr_assert_eq(ldem_modes_eval(&m, ldem_vec3_make(x[0], x[1], x[2]), phi, NULL), 0,
                 "outside point reported inside");
    for (int a = 0; a < 2; a++) {
        double v[3];
        affine(a, clamped, v);
        cr_assert(fabs(phi[a].x - v[0]) + fabs(phi[a].y - v[1]) + fabs(phi[a].z - v[2]) <= 1e-12,
                  "mode %d: clamped value differs", a);
    }
    ldem_modeset_free(&m);
}

Test(modes, node_values_evaluated_from_the_grid_when_missing)
{
    enum { NODES = 7 };
    affine_fixture f;
    affine_sections(&f, 0); /* MODE has no node values */
    rng_seed(9);
    double pos[3 * NODES];
    for (int k = 0; k < NODES; k++)
        for (int c = 0; c < 3; c++)
            pos[3 * k + c] = grid_point(c, 0.5 + 0.45 * uniform());
    ldem_modeset m;
    build_ok(&f.s, NULL, NULL, NODES, pos, &m);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < NODES; k++) {
            double v[3];
            affine(a, pos + 3 * k, v);
            for (int i = 0; i < 3; i++)
                cr_assert(fabs(ldem_modes_node_value(&m, (uint32_t)a, (uint64_t)k)[i] - v[i]) <=
                              1e-12,
                          "mode %d node %d", a, k);
        }
    ldem_modeset_free(&m);
}

/* ---- analytic: beam bending ---- */

static const char BEAMS[] =
    "beam-bending length=10 axis=x deflect=z scale=0.7 t=0.01,-0.02,0.03 w=0.001,0.04,-0.002\n"
    "beam-bending length=6 axis=y deflect=x scale=-1.3 t=0,0.5,0 w=0,0,0.1";

/* Eq. 51 written out independently of the library: Φ = S (raw − t − w × x). */
static void beam_by_hand(double L, int axis, int deflect, double S, const double t[3],
                         const double w[3], const double x[3], double u[3])
{
    double s = x[axis] + 0.5 * L, raw[3] = {0, 0, 0};
    raw[axis] = x[deflect] * (PI / L) * cos(PI * s / L);
    raw[deflect] = -sin(PI * s / L);
    double wx[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2],
                    w[0] * x[1] - w[1] * x[0]};
    for (int i = 0; i < 3; i++)
        u[i] = S * (raw[i] - t[i] - wx[i]);
}

static void analytic_sections(sections *s)
{
    memset(s, 0, sizeof *s);
    s->modes = (ldem_modes){.count = 2, .kind = LDEM_MODE_ANALYTIC, .descriptor = (char *)BEAMS};
    sections_matrices(s, 2, (double[]){4, 1, 1, 9}, (double[]){1, 0, 0, 1});
}

Test(modes, analytic_beam_matches_eq51_and_its_own_finite_differences)
{
    enum { NODES = 5 };
    sections s;
    analytic_sections(&s);
    rng_seed(21);
    double pos[3 * NODES];
    for (int i = 0; i < 3 * NODES; i++)
        pos[i] = 3.0 * uniform();
    ldem_modeset m;
    build_ok(&s, NULL, NULL, NODES, pos, &m);
    cr_assert_eq(m.field, LDEM_MODE_FIELD_ANALYTIC);
    const double t[2][3] = {{0.01, -0.02, 0.03}, {0, 0.5, 0}};
    const double w[2][3] = {{0.001, 0.04, -0.002}, {0, 0, 0.1}};
    const double L[2] = {10, 6}, S[2] = {0.7, -1.3};
    const int axis[2] = {0, 1}, deflect[2] = {2, 0};
    /* node values: the field at the node positions */
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < NODES; k++) {
            double v[3];
            beam_by_hand(L[a], axis[a], deflect[a], S[a], t[a], w[a], pos + 3 * k, v);
            for (int i = 0; i < 3; i++)
                cr_assert(fabs(ldem_modes_node_value(&m, (uint32_t)a, (uint64_t)k)[i] - v[i]) <=
                              1e-14,
                          "mode %d node %d component %d", a, k, i);
        }
    double worst_value = 0.0, worst_grad = 0.0;
    const double h = 1e-4;
    for (int trial = 0; trial < 200; trial++) {
        double x[3] = {4.0 * uniform(), 3.0 * uniform(), 2.0 * uniform()};
        ldem_vec3 p = ldem_vec3_make(x[0], x[1], x[2]), phi[2];
        ldem_mat3 grad[2];
        cr_assert_eq(ldem_modes_eval(&m, p, phi, grad), 1);
        for (int a = 0; a < 2; a++) {
            double v[3];
            beam_by_hand(L[a], axis[a], deflect[a], S[a], t[a], w[a], x, v);
            worst_value = fmax(worst_value, fabs(phi[a].x - v[0]) + fabs(phi[a].y - v[1]) +
                                                fabs(phi[a].z - v[2]));
            /* central differences of the library's own evaluation; truncation h² k³ ≈ 3e-10 */
            for (int j = 0; j < 3; j++) {
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                xp[j] += h;
                xm[j] -= h;
                double up[3], um[3];
                ldem_beam_bending b = m.analytic[a];
                ldem_beam_bending_eval(&b, xp, up, NULL);
                ldem_beam_bending_eval(&b, xm, um, NULL);
                for (int i = 0; i < 3; i++)
                    worst_grad =
                        fmax(worst_grad, fabs(grad[a].m[i][j] - (up[i] - um[i]) / (2.0 * h)));
            }
        }
    }
    cr_assert(worst_value <= 1e-13, "Φ differs from eq. 51 by %.3g", worst_value);
    cr_assert(worst_grad <= 1e-7, "∇Φ differs from finite differences by %.3g", worst_grad);
    ldem_modeset_free(&m);
}

Test(modes, analytic_displacement_sums_the_modes)
{
    sections s;
    analytic_sections(&s);
    ldem_modeset m;
    build_ok(&s, NULL, NULL, 0, NULL, &m);
    rng_seed(3);
    for (int trial = 0; trial < 50; trial++) {
        ldem_vec3 p = ldem_vec3_make(4 * uniform(), 3 * uniform(), 2 * uniform()), phi[2], u;
        ldem_mat3 grad[2], J;
        double eps[2] = {uniform(), uniform()};
        if (trial == 0)
            eps[1] = 0.0; /* a zero amplitude is skipped: must not change the sum */
        ldem_modes_eval(&m, p, phi, grad);
        ldem_modes_displacement(&m, eps, p, &u, &J);
        ldem_vec3 want =
            ldem_vec3_add(ldem_vec3_scale(phi[0], eps[0]), ldem_vec3_scale(phi[1], eps[1]));
        cr_assert(ldem_vec3_dist(u, want) <= 1e-14);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                cr_assert(fabs(J.m[i][j] - (eps[0] * grad[0].m[i][j] + eps[1] * grad[1].m[i][j])) <=
                          1e-14);
    }
    ldem_modeset_free(&m);
}

/* ---- the local displacement bound (block_lo, block_hi) ---- */

/* A ragged grid (cells per axis not multiples of the block) with two random modes and a
 * third that lives only on the first four grid planes along x. */
enum { RB_NX = 14, RB_NY = 9, RB_NZ = 11, RB_NP = RB_NX * RB_NY * RB_NZ };
static const double RB_ORIGIN[3] = {-2.0, -1.0, 0.5}, RB_SPACING[3] = {0.5, 0.25, 0.75};

typedef struct ragged {
    sections s;
    float grid[3 * 3 * RB_NP];
} ragged;

static void ragged_sections(ragged *r)
{
    memset(r, 0, sizeof *r);
    rng_seed(21);
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < RB_NZ; k++)
            for (int j = 0; j < RB_NY; j++)
                for (int i = 0; i < RB_NX; i++) {
                    size_t idx = i + RB_NX * (j + (size_t)RB_NY * k);
                    for (int c = 0; c < 3; c++) {
                        double v = uniform();
                        if (a == 2)
                            v = i < 4 ? 3.0 * v : 0.0;
                        r->grid[3 * ((size_t)a * RB_NP + idx) + c] = (float)v;
                    }
                }
    r->s.modes = (ldem_modes){.count = 3,
                              .kind = LDEM_MODE_SAMPLED,
                              .grid_dims = {RB_NX, RB_NY, RB_NZ},
                              .grid_values = r->grid};
    memcpy(r->s.modes.grid_origin, RB_ORIGIN, sizeof RB_ORIGIN);
    memcpy(r->s.modes.grid_spacing, RB_SPACING, sizeof RB_SPACING);
    sections_matrices(&r->s, 3, (double[]){1, 0, 0, 0, 1, 0, 0, 0, 1},
                      (double[]){1, 0, 0, 0, 1, 0, 0, 0, 1});
}

/* The ragged modes built (m), and the sections they were built from (free both). */
static ragged *ragged_modeset(ldem_modeset *m)
{
    ragged *r = malloc(sizeof *r);
    cr_assert_not_null(r);
    ragged_sections(r);
    build_ok(&r->s, NULL, NULL, 0, NULL, m);
    return r;
}

/* b_i(p) ≥ |u_i(p)| and u_i(p) within its block's range everywhere, in and around the box,
 * for any amplitudes; b is no looser
 * than the grain-wide Σ|εα| max|Φα|; and it is local: far from the only mode that moves,
 * both u and the bound are exactly zero. */
Test(modes, displacement_bound_holds_and_is_local)
{
    ldem_modeset m;
    ragged *r = ragged_modeset(&m);
    cr_assert(m.block_lo && m.block_hi);
    cr_assert(m.block_dims[0] == 4 && m.block_dims[1] == 2 && m.block_dims[2] == 3,
              "blocks %u x %u x %u", m.block_dims[0], m.block_dims[1], m.block_dims[2]);
    const double lo[3] = {-2.0, -1.0, 0.5}, hi[3] = {4.5, 1.0, 8.0};
    double tightest = INFINITY;
    rng_seed(22);
    for (int trial = 0; trial < 20000; trial++) {
        double x[3], eps[3];
        for (int c = 0; c < 3; c++) {
            double span = hi[c] - lo[c];
            x[c] = lo[c] + span * (0.5 + 0.75 * uniform()); /* beyond the box too */
            eps[c] = trial % 7 == 0 && c == 1 ? 0.0 : 2.0 * uniform();
        }
        ldem_vec3 p = ldem_vec3_make(x[0], x[1], x[2]), u;
        ldem_modes_displacement(&m, eps, p, &u, NULL);
        ldem_vec3 b = ldem_modes_displacement_bound(&m, eps, p), lo, hi;
        ldem_modes_block_range(&m, eps, ldem_modes_block_of(&m, p), &lo, &hi);
        cr_assert(lo.x <= u.x + 1e-12 && u.x <= hi.x + 1e-12 && lo.y <= u.y + 1e-12 &&
                      u.y <= hi.y + 1e-12 && lo.z <= u.z + 1e-12 && u.z <= hi.z + 1e-12,
                  "trial %d: u outside its block's range", trial);
        double ui[3] = {fabs(u.x), fabs(u.y), fabs(u.z)}, bi[3] = {b.x, b.y, b.z};
        double global = 0.0;
        for (int a = 0; a < 3; a++)
            global += fabs(eps[a]) * m.field_max[a];
        for (int i = 0; i < 3; i++) {
            cr_assert(ui[i] <= bi[i] * (1.0 + 1e-12) + 1e-300,
                      "trial %d axis %d: |u| %.17g above the bound %.17g", trial, i, ui[i], bi[i]);
            cr_assert(bi[i] <= global * (1.0 + 1e-12), "bound above the global one");
            if (ui[i] > 0.0)
                tightest = fmin(tightest, bi[i] / ui[i]);
        }
        /* x in cells 4 and beyond: blocks 1 to 3, which mode 2 never reaches */
        if (x[0] >= RB_ORIGIN[0] + 4 * RB_SPACING[0] + 1e-9) {
            double only2[3] = {0.0, 0.0, eps[2]};
            ldem_modes_displacement(&m, only2, p, &u, NULL);
            b = ldem_modes_displacement_bound(&m, only2, p);
            cr_assert(
                u.x == 0.0 && u.y == 0.0 && u.z == 0.0 && b.x == 0.0 && b.y == 0.0 && b.z == 0.0,
                "mode 2 is zero beyond x = %g but the bound is (%g, %g, %g)", x[0], b.x, b.y, b.z);
        }
    }
    cr_log_info("displacement bound: tightest bound/|u| %.3f", tightest);
    ldem_modeset_free(&m);
    free(r);
}

/* The iterated pull back's bound: u anywhere within a block's edge of a point of the block
 * lies in the block's neighbour range, which the block's own range alone would miss. */
Test(modes, near_range_covers_the_neighbour_blocks)
{
    ldem_modeset m;
    ragged *r = ragged_modeset(&m);
    const double lo[3] = {-2.0, -1.0, 0.5}, hi[3] = {4.5, 1.0, 8.0};
    int outside_own = 0;
    rng_seed(23);
    for (int trial = 0; trial < 20000; trial++) {
        double x[3], d[3], eps[3];
        for (int c = 0; c < 3; c++) {
            x[c] = lo[c] + (hi[c] - lo[c]) * (0.5 + 0.75 * uniform());
            d[c] = 0.999 * uniform() * RB_SPACING[c] * LDEM_MODES_BLOCK_CELLS;
            eps[c] = 2.0 * uniform();
        }
        ldem_vec3 p = ldem_vec3_make(x[0], x[1], x[2]);
        ldem_vec3 q = ldem_vec3_add(p, ldem_vec3_make(d[0], d[1], d[2])), u;
        ldem_modes_displacement(&m, eps, q, &u, NULL);
        size_t b = ldem_modes_block_of(&m, p);
        ldem_vec3 nl, nh, edge, ol, oh;
        ldem_modes_block_range_near(&m, eps, b, &nl, &nh, &edge);
        ldem_modes_block_range(&m, eps, b, &ol, &oh);
        cr_assert(fabs(edge.x - 2.0) < 1e-12 && fabs(edge.y - 1.0) < 1e-12 &&
                  fabs(edge.z - 3.0) < 1e-12, "edges (%g, %g, %g)", edge.x, edge.y, edge.z);
        cr_assert(nl.x <= u.x + 1e-12 && u.x <= nh.x + 1e-12 && nl.y <= u.y + 1e-12 &&
                      u.y <= nh.y + 1e-12 && nl.z <= u.z + 1e-12 && u.z <= nh.z + 1e-12,
                  "trial %d: u at a neighbour point outside the neighbour range", trial);
        cr_assert(nl.x <= ol.x && nl.y <= ol.y && nl.z <= ol.z && oh.x <= nh.x &&
                  oh.y <= nh.y && oh.z <= nh.z, "the neighbour range holds the block's own");
        outside_own += u.x < ol.x - 1e-12 || u.x > oh.x + 1e-12 || u.y < ol.y - 1e-12 ||
                       u.y > oh.y + 1e-12 || u.z < ol.z - 1e-12 || u.z > oh.z + 1e-12;
    }
    cr_log_info("neighbour range: %d of 20000 neighbour points outside their block's own range",
                outside_own);
    cr_assert_gt(outside_own, 100, "the test must reach beyond the block");
    ldem_modeset_free(&m);
    free(r);
}

/* X + u(X) = p by fixed-point steps: one step is Henzel's p − u(p) bit for bit, with J at
 * p; each further step shrinks the error by the contraction g = max row sum of |∇u| (≈ 0.2;
 * √3 turns the max norm it contracts into the Euclidean one). */
Test(modes, pull_back_inverts_the_deformation)
{
    ldem_modeset m;
    ragged *r = ragged_modeset(&m);
    cr_assert_eq(m.pullback, 1u, "one step after build");
    const double lo[3] = {-2.0, -1.0, 0.5}, hi[3] = {4.5, 1.0, 8.0};
    double err[3] = {0.0, 0.0, 0.0}, grad_max = 0.0;
    const uint32_t steps[3] = {1, 2, 8};
    rng_seed(24);
    for (int trial = 0; trial < 5000; trial++) {
        double x[3], eps[3];
        for (int c = 0; c < 3; c++) {
            x[c] = lo[c] + (hi[c] - lo[c]) * (0.5 + 0.45 * uniform());
            eps[c] = 0.0075 * uniform();
        }
        ldem_vec3 X = ldem_vec3_make(x[0], x[1], x[2]), u, u_p;
        ldem_mat3 J, J_p, J_out;
        ldem_modes_displacement(&m, eps, X, &u, &J);
        for (int i = 0; i < 3; i++)
            grad_max = fmax(grad_max, fabs(J.m[i][0]) + fabs(J.m[i][1]) + fabs(J.m[i][2]));
        ldem_vec3 p = ldem_vec3_add(X, u);
        ldem_modes_displacement(&m, eps, p, &u_p, &J_p);
        for (int s = 0; s < 3; s++) {
            m.pullback = steps[s];
            ldem_vec3 got = ldem_modes_pull_back(&m, eps, p, &J_out);
            err[s] = fmax(err[s], ldem_vec3_dist(got, X));
            if (steps[s] == 1) {
                ldem_vec3 henzel = ldem_vec3_sub(p, u_p);
                cr_assert(memcmp(&got, &henzel, sizeof got) == 0, "one step is p - u(p)");
                cr_assert(memcmp(&J_out, &J_p, sizeof J_p) == 0, "J at p after one step");
            }
        }
    }
    cr_log_info("pull back (|grad u| up to %.3f): error 1 step %.3g, 2 steps %.3g, 8 steps %.3g",
                grad_max, err[0], err[1], err[2]);
    cr_assert(grad_max < 0.3, "the map must contract (|grad u| %.3g)", grad_max);
    cr_assert(err[1] <= grad_max * err[0], "2 steps %.3g vs 1 step %.3g", err[1], err[0]);
    cr_assert(err[2] <= sqrt(3.0) * pow(grad_max, 7) * err[0], "8 steps leave %.3g", err[2]);
    ldem_modeset_free(&m);
    free(r);
}

Test(modes, displacement_bound_without_a_grid)
{
    sections s;
    analytic_sections(&s);
    ldem_modeset m;
    build_ok(&s, NULL, NULL, 0, NULL, &m);
    double eps[2] = {0.5, 0.0};
    ldem_vec3 b = ldem_modes_displacement_bound(&m, eps, ldem_vec3_make(1.0, 0.5, 0.2));
    cr_assert(isinf(b.x) && isinf(b.y) && isinf(b.z), "an analytic field has no bound");
    ldem_modeset_free(&m);
    double values[6] = {1, 2, 3, 4, 5, 6};
    one_mode(&s, 1.0, 1.0, values, 2);
    build_ok(&s, NULL, NULL, 2, NULL, &m);
    b = ldem_modes_displacement_bound(&m, eps, ldem_vec3_make(1.0, 0.5, 0.2));
    cr_assert(b.x == 0.0 && b.y == 0.0 && b.z == 0.0, "node values only: u is zero off them");
    ldem_modeset_free(&m);
}

Test(modes, descriptor_describe_parse_round_trip_is_exact)
{
    ldem_beam_bending b = {.length = 160.0 / 3.0,
                           .axis = 2,
                           .deflect = 1,
                           .scale = -PI / 7.0,
                           .t = {1e-310, -0.1, 1.0 / 3.0},
                           .w = {2.0 / 3.0, 0.0, -1e-17}};
    char *text = NULL;
    ldem_err err = {0};
    cr_assert_eq(ldem_beam_bending_describe(&b, &text, &err), LDEM_OK, "%s", err.msg);
    ldem_beam_bending back;
    cr_assert_eq(ldem_beam_bending_parse(text, &back, &err), LDEM_OK, "%s: %s", text, err.msg);
    cr_assert_eq(memcmp(&b, &back, sizeof b), 0, "round trip changed '%s'", text);
    free(text);
}

Test(modes, bad_descriptors_are_input_errors)
{
    static const char *const BAD[] = {
        "beam-bending length=10 axis=x deflect=x scale=1 t=0,0,0 w=0,0,0",
        "beam-bending length=-1 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0",
        "beam-bending length=10 axis=x deflect=z scale=1 t=0,0 w=0,0,0",
        "beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0",
        "beam-twisting length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0",
        "beam-bending length=10 axis=q deflect=z scale=1 t=0,0,0 w=0,0,0",
        "beam-bending length=10 axis=x deflect=z scale=nan t=0,0,0 w=0,0,0",
        "",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        ldem_beam_bending b = {.length = 42.0};
        ldem_err err = {0};
        cr_assert_eq(ldem_beam_bending_parse(BAD[i], &b, &err), LDEM_ERR_INPUT, "'%s'", BAD[i]);
        cr_assert_eq(b.length, 42.0, "'%s' touched the output", BAD[i]);
        /* through the modeset the message names the section */
        sections s;
        memset(&s, 0, sizeof s);
        s.modes =
            (ldem_modes){.count = 1, .kind = LDEM_MODE_ANALYTIC, .descriptor = (char *)BAD[i]};
        sections_matrices(&s, 1, (double[]){1}, (double[]){1});
        build_fails(&s, NULL, NULL, 0, NULL, "MODE");
    }
}

/* ---- internal force and energy ---- */

Test(modes, linear_internal_force_is_K_eps)
{
    const double K[9] = {4, -1, 0.5, -1, 3, 0.25, 0.5, 0.25, 2};
    const double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 3, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 3, K, M);
    ldem_modeset m;
    build_ok(&s, NULL, NULL, 0, NULL, &m);
    double eps[3] = {0.3, -0.7, 1.1}, f[3], U;
    cr_assert_eq(ldem_modes_internal(&m, eps, f, &U, NULL), LDEM_OK);
    double want_U = 0.0;
    for (int i = 0; i < 3; i++) {
        double want = K[3 * i] * eps[0] + K[3 * i + 1] * eps[1] + K[3 * i + 2] * eps[2];
        cr_assert(fabs(f[i] - want) <= 1e-15 * 10, "F[%d] %.17g vs %.17g", i, f[i], want);
        want_U += 0.5 * eps[i] * want;
    }
    cr_assert(fabs(U - want_U) <= 1e-14, "U %.17g vs %.17g", U, want_U);
    ldem_modeset_free(&m);
}

/* A consistent ETAB table F = kε + cε³ on [lo, hi] at n knots. */
typedef struct etab_fixture {
    ldem_etab etab;
    ldem_etab_table table;
    double eps[201], energy[201], force[201];
} etab_fixture;

static void cubic_table(etab_fixture *f, uint32_t mode, double k, double c, double lo, double hi,
                        size_t n, uint32_t interp, uint32_t extrapolate)
{
    cr_assert_leq(n, 201);
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        double e = lo + (hi - lo) * (double)i / (double)(n - 1);
        f->eps[i] = e;
        f->force[i] = k * e + c * e * e * e;
    }
    ldem_err err = {0};
    cr_assert_eq(ldem_energy_integrate(f->eps, f->force, n, interp, f->energy, &err), LDEM_OK, "%s",
                 err.msg);
    f->table = (ldem_etab_table){.mode = mode,
                                 .interp = interp,
                                 .extrapolate = extrapolate,
                                 .n = n,
                                 .eps = f->eps,
                                 .energy = f->energy,
                                 .force = f->force};
    f->etab = (ldem_etab){1, &f->table};
}

Test(modes, tabulated_internal_force_is_the_table_plus_off_diagonal_K)
{
    /* mode 0 tabulated (its K00 = 100 must be ignored), mode 1 linear, coupled by K01 */
    const double K[4] = {100, 0.75, 0.75, 5};
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 2, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 2, K, (double[]){1, 0, 0, 1});
    etab_fixture tb;
    cubic_table(&tb, 0, 2.0, 30.0, -0.5, 0.5, 101, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE);
    ldem_modeset m;
    build_ok(&s, &tb.etab, NULL, 0, NULL, &m);
    ldem_energy_curve curve;
    cr_assert_eq(ldem_energy_prepare(&tb.table, &curve, NULL), LDEM_OK);
    rng_seed(77);
    for (int trial = 0; trial < 100; trial++) {
        double eps[2] = {0.45 * uniform(), uniform()}, f[2], U, Ft, Ut;
        cr_assert_eq(ldem_modes_internal(&m, eps, f, &U, NULL), LDEM_OK);
        cr_assert_eq(ldem_energy_at(&curve, eps[0], &Ut, &Ft, NULL), LDEM_OK);
        double want0 = Ft + K[1] * eps[1], want1 = K[2] * eps[0] + K[3] * eps[1];
        double wantU = Ut + K[1] * eps[0] * eps[1] + 0.5 * K[3] * eps[1] * eps[1];
        cr_assert(fabs(f[0] - want0) <= 1e-14 * (1 + fabs(want0)), "F0 %.17g vs %.17g", f[0],
                  want0);
        cr_assert(fabs(f[1] - want1) <= 1e-14 * (1 + fabs(want1)), "F1 %.17g vs %.17g", f[1],
                  want1);
        cr_assert(fabs(U - wantU) <= 1e-14 * (1 + fabs(wantU)), "U %.17g vs %.17g", U, wantU);
        /* F_int = ∂U/∂ε by central differences (truncation h² F'' ≈ 1e-9, round-off 1e-11) */
        const double h = 1e-5;
        for (int a = 0; a < 2; a++) {
            double ep[2] = {eps[0], eps[1]}, em[2] = {eps[0], eps[1]}, Up, Um;
            ep[a] += h;
            em[a] -= h;
            cr_assert_eq(ldem_modes_internal(&m, ep, NULL, &Up, NULL), LDEM_OK);
            cr_assert_eq(ldem_modes_internal(&m, em, NULL, &Um, NULL), LDEM_OK);
            double fd = (Up - Um) / (2.0 * h);
            cr_assert(fabs(f[a] - fd) <= 1e-7 * fmax(fabs(f[a]), 1.0),
                      "F[%d] %.12g vs dU/deps %.12g", a, f[a], fd);
        }
    }
    /* leaving a table that forbids extrapolation names ETAB and the mode */
    double out[2] = {0.6, 0.0}, f[2];
    ldem_err err = {0};
    cr_assert_eq(ldem_modes_internal(&m, out, f, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "ETAB") && strstr(err.msg, "mode 0"), "%s", err.msg);
    ldem_energy_curve_free(&curve);
    ldem_modeset_free(&m);
}

/* ---- frequencies, mass, damping ---- */

/* Largest root of det(K − λM) = 0 for 2×2 symmetric K, M (M definite). */
static double largest_lambda(const double K[4], const double M[4])
{
    double a = M[0] * M[3] - M[1] * M[1];
    double b = -(K[0] * M[3] + K[3] * M[0] - 2.0 * K[1] * M[1]);
    double c = K[0] * K[3] - K[1] * K[1];
    double disc = sqrt(b * b - 4.0 * a * c);
    double l1 = (-b + disc) / (2.0 * a), l2 = (-b - disc) / (2.0 * a);
    return fabs(l1) > fabs(l2) ? fabs(l1) : fabs(l2);
}

static double omega_max_of(const double K[4], const double M[4], const ldem_etab *etab)
{
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 2, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 2, K, M);
    ldem_modeset m;
    build_ok(&s, etab, NULL, 0, NULL, &m);
    double w = m.omega_max;
    ldem_modeset_free(&m);
    return w;
}

Test(modes, omega_max_is_the_2x2_closed_form)
{
    const double M[4] = {2.0, 0.3, 0.3, 0.5};
    const double K_definite[4] = {7.0, -1.5, -1.5, 3.0};
    double got = omega_max_of(K_definite, M, NULL);
    double want = sqrt(largest_lambda(K_definite, M));
    cr_assert(rel_diff(got, want) <= 1e-12, "definite: %.17g vs %.17g", got, want);
    /* indefinite K (eigenvalues of different signs): |λ| */
    const double K_indefinite[4] = {1.0, 4.0, 4.0, -2.0};
    got = omega_max_of(K_indefinite, M, NULL);
    want = sqrt(largest_lambda(K_indefinite, M));
    cr_assert(rel_diff(got, want) <= 1e-12, "indefinite: %.17g vs %.17g", got, want);
    /* the negative eigenvalue dominates: with M = I, λ = −10, 0.5 */
    const double K_negative[4] = {-10.0, 0.0, 0.0, 0.5}, I[4] = {1, 0, 0, 1};
    got = omega_max_of(K_negative, I, NULL);
    cr_assert(rel_diff(got, sqrt(10.0)) <= 1e-14, "negative: %.17g", got);
}

Test(modes, omega_max_takes_the_stiffest_table_tangent)
{
    /* Piecewise-linear F = 2ε + 30ε³ on 5 knots over [−1, 1]: the stiffest tangent is the
     * chord slope of an end interval, (F(1) − F(0.5))/0.5 = 2 + 30·(1 − 0.125)/0.5 = 54.5;
     * K00 = 1000 is not the mode's stiffness once it is tabulated. */
    etab_fixture tb;
    cubic_table(&tb, 0, 2.0, 30.0, -1.0, 1.0, 5, LDEM_INTERP_LINEAR, LDEM_EXTRAP_NONE);
    const double K[4] = {1000.0, 0.8, 0.8, 6.0}, M[4] = {1.5, 0.2, 0.2, 0.7};
    const double Kt[4] = {54.5, 0.8, 0.8, 6.0};
    double got = omega_max_of(K, M, &tb.etab);
    double want = sqrt(largest_lambda(Kt, M));
    cr_assert(rel_diff(got, want) <= 1e-12, "tabulated: %.17g vs %.17g", got, want);
    /* linear extrapolation continues the end slope: the same K_t */
    cubic_table(&tb, 0, 2.0, 30.0, -1.0, 1.0, 5, LDEM_INTERP_LINEAR, LDEM_EXTRAP_LINEAR);
    got = omega_max_of(K, M, &tb.etab);
    cr_assert(rel_diff(got, want) <= 1e-12, "extrapolated: %.17g vs %.17g", got, want);
}

Test(modes, mass_solve_and_kinetic_energy)
{
    const double M[9] = {4, 1, 0.5, 1, 3, -0.25, 0.5, -0.25, 2};
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 3, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 3, (double[]){1, 0, 0, 0, 1, 0, 0, 0, 1}, M);
    ldem_modeset m;
    build_ok(&s, NULL, NULL, 0, NULL, &m);
    double f[3] = {1.0, -2.0, 0.5}, a[3], b[3] = {1.0, -2.0, 0.5};
    ldem_modes_solve_mass(&m, f, a);
    ldem_modes_solve_mass(&m, b, b); /* aliased */
    for (int i = 0; i < 3; i++) {
        double r = M[3 * i] * a[0] + M[3 * i + 1] * a[1] + M[3 * i + 2] * a[2];
        cr_assert(fabs(r - f[i]) <= 1e-14, "residual row %d: %.3g", i, r - f[i]);
        cr_assert_eq(a[i], b[i], "aliased solve differs");
    }
    double rate[3] = {0.5, -1.0, 2.0}, want = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            want += 0.5 * rate[i] * M[3 * i + j] * rate[j];
    cr_assert(fabs(ldem_modes_kinetic(&m, rate) - want) <= 1e-14);
    ldem_modeset_free(&m);
}

Test(modes, damping_from_DAMP_rayleigh_and_ratio)
{
    const double K[4] = {7.0, -1.5, -1.5, 3.0}, M[4] = {2.0, 0.3, 0.3, 0.5};
    double c[4] = {0.1, 0.02, 0.02, 0.3};
    ldem_damping damp = {.n = 2, .kind = LDEM_DAMPING_RAYLEIGH, .c = c};
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 2, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 2, K, M);
    ldem_modeset m;
    build_ok(&s, NULL, &damp, 0, NULL, &m);
    cr_assert_eq(memcmp(m.C, c, sizeof c), 0, "DAMP's C not taken");
    ldem_modeset_free(&m);

    build_ok(&s, NULL, NULL, 0, NULL, &m);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(m.C[i], 0.0, "no DAMP: C must be 0");
    cr_assert_eq(ldem_modeset_set_rayleigh(&m, 0.25, 0.01, NULL), LDEM_OK);
    for (int i = 0; i < 4; i++)
        cr_assert(fabs(m.C[i] - (0.25 * M[i] + 0.01 * K[i])) <= 1e-15);
    cr_assert_eq(ldem_modeset_set_rayleigh(&m, -1.0, 0.0, NULL), LDEM_ERR_INPUT);

    /* ratio ζ: with the eigenpairs of (K, M) in closed form, ψ ⟂ row 1 of K − λM,
     * normalized by ψᵀMψ = 1, Ψᵀ C Ψ must be diag(2ζω) */
    const double zeta = 0.07;
    cr_assert_eq(ldem_modeset_set_ratio(&m, zeta, NULL), LDEM_OK);
    double a = M[0] * M[3] - M[1] * M[1];
    double b = -(K[0] * M[3] + K[3] * M[0] - 2.0 * K[1] * M[1]);
    double cc = K[0] * K[3] - K[1] * K[1];
    double lambda[2] = {(-b - sqrt(b * b - 4 * a * cc)) / (2 * a),
                        (-b + sqrt(b * b - 4 * a * cc)) / (2 * a)};
    double psi[2][2];
    for (int k = 0; k < 2; k++) {
        double v[2] = {K[1] - lambda[k] * M[1], -(K[0] - lambda[k] * M[0])};
        double norm = v[0] * (M[0] * v[0] + M[1] * v[1]) + v[1] * (M[2] * v[0] + M[3] * v[1]);
        psi[k][0] = v[0] / sqrt(norm);
        psi[k][1] = v[1] / sqrt(norm);
    }
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < 2; l++) {
            double v = 0.0;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    v += psi[k][i] * m.C[2 * i + j] * psi[l][j];
            double want = k == l ? 2.0 * zeta * sqrt(lambda[k]) : 0.0;
            cr_assert(fabs(v - want) <= 1e-10, "psi%d C psi%d = %.17g, expected %.17g", k, l, v,
                      want);
        }
    cr_assert_eq(ldem_modeset_set_ratio(&m, -0.1, NULL), LDEM_ERR_INPUT);
    ldem_modeset_free(&m);
}

Test(modes, damping_ratio_satisfies_C_Minv_C_eq_4zeta2_K)
{
    /* M⁻¹C = Ψ diag(2ζω) Ψᵀ M and Ψ Ψᵀ M = I, so (M⁻¹C)² = 4ζ² M⁻¹K: C M⁻¹ C = 4ζ² K for
     * any n, with no eigenvectors needed to check it */
    const double K[9] = {4, -1, 0.5, -1, 3, 0.25, 0.5, 0.25, 2};
    const double M[9] = {4, 1, 0.5, 1, 3, -0.25, 0.5, -0.25, 2};
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 3, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 3, K, M);
    ldem_modeset m;
    build_ok(&s, NULL, NULL, 0, NULL, &m);
    const double zeta = 0.3;
    cr_assert_eq(ldem_modeset_set_ratio(&m, zeta, NULL), LDEM_OK);
    double X[9]; /* M⁻¹ C, column by column */
    for (int j = 0; j < 3; j++) {
        double col[3] = {m.C[j], m.C[3 + j], m.C[6 + j]};
        ldem_modes_solve_mass(&m, col, col);
        for (int i = 0; i < 3; i++)
            X[3 * i + j] = col[i];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++)
                v += m.C[3 * i + k] * X[3 * k + j];
            cr_assert(fabs(v - 4 * zeta * zeta * K[3 * i + j]) <= 1e-10, "(%d,%d): %.17g vs %.17g",
                      i, j, v, 4 * zeta * zeta * K[3 * i + j]);
            cr_assert(fabs(m.C[3 * i + j] - m.C[3 * j + i]) <= 1e-14, "C not symmetric");
        }
    ldem_modeset_free(&m);
}

/* ---- errors ---- */

Test(modes, sizes_that_disagree_name_the_section)
{
    sections s;
    one_mode(&s, 1.0, 1.0, NULL, 0);
    sections_matrices(&s, 2, (double[]){1, 0, 0, 1}, (double[]){1, 0, 0, 1});
    s.M.n = 1;
    build_fails(&s, NULL, NULL, 0, NULL, "KMAT");
    one_mode(&s, 1.0, 1.0, NULL, 0);
    s.M = (ldem_matrix){2, (double[]){1, 0, 0, 1}};
    build_fails(&s, NULL, NULL, 0, NULL, "MMAT");
    one_mode(&s, 1.0, 1.0, NULL, 0);
    ldem_damping damp = {.n = 2};
    build_fails(&s, NULL, &damp, 0, NULL, "DAMP");
    /* 3 surface nodes, MODE sampled at none and no field to evaluate */
    one_mode(&s, 1.0, 1.0, NULL, 0);
    build_fails(&s, NULL, NULL, 3, (double[9]){0}, "MODE");
}

Test(modes, non_spd_mass_and_asymmetric_stiffness_are_rejected)
{
    sections s;
    memset(&s, 0, sizeof s);
    s.modes = (ldem_modes){.count = 2, .kind = LDEM_MODE_SAMPLED};
    sections_matrices(&s, 2, (double[]){1, 0, 0, 1}, (double[]){1, 2, 2, 1}); /* λ = −1, 3 */
    build_fails(&s, NULL, NULL, 0, NULL, "MMAT");
    sections_matrices(&s, 2, (double[]){1, 0, 0, 1}, (double[]){1, 0, 0, 0});
    build_fails(&s, NULL, NULL, 0, NULL, "MMAT");
    sections_matrices(&s, 2, (double[]){1, 0.5, 0.4, 1}, (double[]){1, 0, 0, 1});
    build_fails(&s, NULL, NULL, 0, NULL, "KMAT");
}

Test(modes, etab_for_a_missing_mode_names_ETAB)
{
    sections s;
    one_mode(&s, 1.0, 1.0, NULL, 0);
    etab_fixture tb;
    cubic_table(&tb, 1, 2.0, 1.0, -1.0, 1.0, 9, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE);
    build_fails(&s, &tb.etab, NULL, 0, NULL, "ETAB");
    /* an inconsistent table (U not ∫F) names ETAB and the mode too */
    cubic_table(&tb, 0, 2.0, 1.0, -1.0, 1.0, 9, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE);
    tb.energy[4] += 1.0;
    build_fails(&s, &tb.etab, NULL, 0, NULL, "ETAB, mode 0");
}
