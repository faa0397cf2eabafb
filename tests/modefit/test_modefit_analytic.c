/* Analytic modes: the beam-bending field of eq. 51, its gradient, its descriptor text, its
 * rigid part and its generalized K and M over a level set's interior, against closed forms.
 *
 * Closed forms for the simply supported beam mode on a box of length L (along `axis`),
 * thickness t (along `deflect`) and width b (the third axis), k = π/L, s = x_axis + L/2:
 *   raw u_axis = x_d k cos ks, u_d = −sin ks; ∂u_axis/∂x_d = k cos ks = −∂u_d/∂x_axis, so the
 *   shear strain cancels and only E_aa = −x_d k² sin ks is non-zero. Hence
 *     (C:E):E = (λ + 2μ) E_aa²,  K = (λ + 2μ) k⁴ ∫x_d² dA ∫sin² ks ds = (λ + 2μ) k⁴ (b t³/12)(L/2),
 *     M = ρ ∫ (x_d² k² cos² ks + sin² ks) = ρ (L/2) [k² b t³/12 + b t].
 *   Rigid part: ∫ u_axis = k ∫x_d dA ∫cos = 0, ∫ u_d = −b t ∫ sin ks ds = −b t 2L/π, so the
 *   translation is t_d = −2/π (V = b t L). ∫ x × u: its components are ∫ ±x_o sin (odd in
 *   x_o), ∫ x_o x_d k cos (odd), and ∫ x_d² k cos ks + ∫ (s − L/2) sin ks, where ∫₀ᴸ cos ks = 0
 *   and (s − L/2) sin ks is odd about the mid-span; the body's first moments vanish too, so
 *   the rotation is 0. Removing t leaves the strain alone (K unchanged) and
 *     M = ρ [k² (b t³/12)(L/2) + b t ∫₀ᴸ (sin ks − 2/π)² ds]
 *       = ρ [k² b t³ L/24 + b t L (1/2 − 4/π²)]   (∫(sin − 2/π)² = L/2 − 8L/π² + 4L/π²).
 * Numbers: E = 1e4, ν = 0.3, ρ = 1; the 160 × 4 × 4 box with h = 0.2 (lsgen-like 3-cell
 * padding). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "elastic.h"
#include "lsfixture.h"
#include "lsquad.h"

#define PI 3.14159265358979323846

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

static analytic_mode beam(double length, int axis, int deflect)
{
    analytic_mode m = {.kind = ANALYTIC_BEAM_BENDING, .length = length, .axis = axis,
                       .deflect = deflect, .scale = 1.0};
    return m;
}

/* Deterministic uniform numbers in [lo, hi). */
static double uniform(uint64_t *state, double lo, double hi)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*state >> 11) / 9007199254740992.0;
}

/* ---- the field ---- */

/* Eq. 51 in its own coordinates (x along the beam from its end, z the deflection):
 * u_x = z ε (π/L) cos(πx/L), u_z = −ε sin(πx/L), u_y = 0, with ε = 1. */
static void eq51(double L, double x, double z, double *ux, double *uz)
{
    *ux = z * (PI / L) * cos(PI * x / L);
    *uz = -sin(PI * x / L);
}

Test(analytic, raw_field_is_eq51_for_every_axis_pair)
{
    uint64_t rng = 7;
    const double L = 12.5;
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) {
            if (a == d)
                continue;
            analytic_mode m = beam(L, a, d);
            for (int s = 0; s < 50; s++) {
                double x[3], u[3], ux, uz;
                for (int c = 0; c < 3; c++)
                    x[c] = uniform(&rng, -8.0, 8.0);
                analytic_eval_raw(&m, x, u, NULL);
                eq51(L, x[a] + L / 2.0, x[d], &ux, &uz); /* body origin at mid-span */
                cr_expect_leq(fabs(u[a] - ux), 1e-15, "axis %d deflect %d", a, d);
                cr_expect_leq(fabs(u[d] - uz), 1e-15);
                cr_expect_eq(u[3 - a - d], 0.0);
            }
        }
    /* The ends are at x_axis = ±L/2: no deflection there, full deflection −1 mid-span. */
    analytic_mode m = beam(L, 0, 2);
    double u[3];
    analytic_eval_raw(&m, (double[3]){-L / 2, 0.3, 0.0}, u, NULL);
    cr_expect_leq(fabs(u[2]), 1e-15);
    analytic_eval_raw(&m, (double[3]){0.0, 0.3, 0.0}, u, NULL);
    cr_expect_leq(fabs(u[2] + 1.0), 1e-15);
}

/* Φ = scale (raw − t − w × x), the cross product written out here. */
Test(analytic, stored_mode_is_scaled_raw_minus_rigid_part)
{
    uint64_t rng = 11;
    analytic_mode m = beam(7.0, 1, 0);
    m.scale = -2.5;
    m.t[0] = 0.3, m.t[1] = -0.1, m.t[2] = 0.7;
    m.w[0] = 0.05, m.w[1] = -0.2, m.w[2] = 0.11;
    for (int s = 0; s < 100; s++) {
        double x[3], u[3], raw[3];
        for (int c = 0; c < 3; c++)
            x[c] = uniform(&rng, -4.0, 4.0);
        analytic_eval(&m, x, u, NULL);
        analytic_eval_raw(&m, x, raw, NULL);
        const double *w = m.w;
        double wx[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2],
                        w[0] * x[1] - w[1] * x[0]};
        for (int c = 0; c < 3; c++)
            cr_expect_leq(fabs(u[c] - m.scale * (raw[c] - m.t[c] - wx[c])), 1e-14);
    }
}

/* Central differences, step 1e-5 (truncation ~1e-11, round-off ~1e-11 for these sizes):
 * the analytic gradients of raw and Φ agree to ≤ 1e-7 (measured ≤ 1e-10). */
Test(analytic, gradients_match_central_differences)
{
    uint64_t rng = 3;
    const double step = 1e-5;
    double worst = 0.0;
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) {
            if (a == d)
                continue;
            analytic_mode m = beam(3.7, a, d);
            m.scale = 1.7;
            m.t[0] = 0.2, m.t[1] = -0.4, m.t[2] = 0.1;
            m.w[0] = -0.3, m.w[1] = 0.15, m.w[2] = 0.6;
            for (int s = 0; s < 30; s++) {
                double x[3], u[3], G[3][3], R[3][3];
                for (int c = 0; c < 3; c++)
                    x[c] = uniform(&rng, -3.0, 3.0);
                analytic_eval(&m, x, u, G);
                analytic_eval_raw(&m, x, u, R);
                for (int j = 0; j < 3; j++) {
                    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                    xp[j] += step;
                    xm[j] -= step;
                    double up[3], um[3], rp[3], rm[3];
                    analytic_eval(&m, xp, up, NULL);
                    analytic_eval(&m, xm, um, NULL);
                    analytic_eval_raw(&m, xp, rp, NULL);
                    analytic_eval_raw(&m, xm, rm, NULL);
                    for (int i = 0; i < 3; i++) {
                        double e1 = fabs(G[i][j] - (up[i] - um[i]) / (2.0 * step));
                        double e2 = fabs(R[i][j] - (rp[i] - rm[i]) / (2.0 * step));
                        worst = fmax(worst, fmax(e1, e2));
                        cr_expect_leq(e1, 1e-7, "dPhi_%d/dx_%d axis %d deflect %d", i, j, a, d);
                        cr_expect_leq(e2, 1e-7, "draw_%d/dx_%d axis %d deflect %d", i, j, a, d);
                    }
                }
            }
        }
    cr_log_info("gradient vs central differences: worst %.2e", worst);
}

/* ---- descriptor text ---- */

Test(analytic, describe_writes_the_documented_text)
{
    analytic_mode m = beam(160.0, 0, 2);
    m.t[2] = 0.5;
    m.w[1] = -0.25;
    char *text = NULL;
    ldem_err err;
    cr_assert_eq(analytic_describe(&m, &text, &err), LDEM_OK, "%s", err.msg);
    cr_expect_str_eq(text, "beam-bending length=160 axis=x deflect=z scale=1 t=0,0,0.5 "
                           "w=0,-0.25,0");
    free(text);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

Test(analytic, descriptor_round_trip_is_exact)
{
    const double values[] = {1.0 / 3.0, -2.0 / PI, 1e-300, 4.9406564584124654e-324, 1.7e308,
                             -0.0, 123456789.123456789, PI / 160.0, -7.25e-9};
    const int n = sizeof values / sizeof values[0];
    for (int r = 0; r < n; r++) {
        analytic_mode m = beam(fabs(values[(r + 1) % n]) + 0.1 * (r + 1), r % 3, (r + 1 + r / 3 % 2) % 3);
        if (m.deflect == m.axis)
            m.deflect = (m.axis + 2) % 3;
        m.scale = values[r];
        for (int c = 0; c < 3; c++) {
            m.t[c] = values[(r + 2 + c) % n];
            m.w[c] = values[(r + 5 + c) % n];
        }
        char *text = NULL;
        ldem_err err;
        cr_assert_eq(analytic_describe(&m, &text, &err), LDEM_OK, "%s", err.msg);
        analytic_mode back;
        memset(&back, 0xA5, sizeof back);
        cr_assert_eq(analytic_parse(text, &back, &err), LDEM_OK, "'%s': %s", text, err.msg);
        cr_expect_eq(back.kind, m.kind);
        cr_expect_eq(back.axis, m.axis);
        cr_expect_eq(back.deflect, m.deflect);
        cr_expect(same_bits(back.length, m.length) && same_bits(back.scale, m.scale), "%s", text);
        for (int c = 0; c < 3; c++)
            cr_expect(same_bits(back.t[c], m.t[c]) && same_bits(back.w[c], m.w[c]), "%s", text);
        free(text);
    }
}

Test(analytic, parse_accepts_any_key_order_and_spacing)
{
    analytic_mode m;
    ldem_err err;
    cr_assert_eq(analytic_parse("  beam-bending\tw=0,0,1 t=1,2,3  scale=2 deflect=x axis=y "
                                "length=0.5\n",
                                &m, &err),
                 LDEM_OK, "%s", err.msg);
    cr_expect(m.axis == 1 && m.deflect == 0 && m.length == 0.5 && m.scale == 2.0);
    cr_expect(m.t[0] == 1.0 && m.t[1] == 2.0 && m.t[2] == 3.0 && m.w[2] == 1.0);
}

Test(analytic, parse_errors_are_clear)
{
    char long_number[600];
    memset(long_number, '1', sizeof long_number);
    memcpy(long_number, "beam-bending length=", 20);
    long_number[sizeof long_number - 1] = '\0';
    struct {
        const char *text, *says;
    } cases[] = {
        {"", "empty"},
        {"   ", "empty"},
        {"beam-twisting length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "unknown kind"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0", "missing key 'w'"},
        {"beam-bending axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "missing key 'length'"},
        {"beam-bending length=10 length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0",
         "duplicate key 'length'"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0 axis=y",
         "duplicate key 'axis'"},
        {"beam-bending length=10x axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "bad number"},
        {"beam-bending length= axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "bad number"},
        {"beam-bending length=nan axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "bad number"},
        {"beam-bending length=10 axis=x deflect=z scale=inf t=0,0,0 w=0,0,0", "bad number"},
        {"beam-bending length=10 axis=x deflect=z scale=1e999 t=0,0,0 w=0,0,0", "bad number"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0 w=0,0,0", "three"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0,0 w=0,0,0", "three"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,,0 w=0,0,0", "bad number"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0,", "three"},
        {"beam-bending length=10 axis=x deflect=x scale=1 t=0,0,0 w=0,0,0", "equals axis"},
        {"beam-bending length=0 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "length"},
        {"beam-bending length=-3 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0", "length"},
        {"beam-bending length=10 axis=q deflect=z scale=1 t=0,0,0 w=0,0,0", "not an axis"},
        {"beam-bending length=10 axis=xy deflect=z scale=1 t=0,0,0 w=0,0,0", "not an axis"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0 mass=3",
         "unknown key 'mass'"},
        {"beam-bending length=10 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0 extra", "key=value"},
        {long_number, "bad number"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        analytic_mode m = beam(99.0, 1, 2), before = m;
        ldem_err err;
        ldem_err_clear(&err);
        cr_expect_eq(analytic_parse(cases[c].text, &m, &err), LDEM_ERR_INPUT, "'%s' accepted",
                     cases[c].text);
        cr_expect_eq(err.code, LDEM_ERR_INPUT);
        cr_expect(strstr(err.msg, cases[c].says) != NULL, "'%.60s': message '%s' lacks '%s'",
                  cases[c].text, err.msg, cases[c].says);
        cr_expect(memcmp(&m, &before, sizeof m) == 0, "the mode is untouched on error");
    }
}

Test(analytic, describe_refuses_invalid_modes)
{
    char *text = NULL;
    ldem_err err;
    analytic_mode m = beam(10.0, 0, 0);
    cr_expect_eq(analytic_describe(&m, &text, &err), LDEM_ERR_USAGE);
    m = beam(-1.0, 0, 2);
    cr_expect_eq(analytic_describe(&m, &text, &err), LDEM_ERR_USAGE);
    m = beam(1.0, 0, 2);
    m.w[1] = NAN;
    cr_expect_eq(analytic_describe(&m, &text, &err), LDEM_ERR_USAGE);
    m = beam(1.0, 0, 3);
    cr_expect_eq(analytic_describe(&m, &text, &err), LDEM_ERR_USAGE);
    cr_expect_null(text);
}

/* ---- K and M on the 160 × 4 × 4 box ---- */

typedef struct beam_forms {
    double K, M_raw, M_rigid;
} beam_forms;

/* The closed forms of the header comment, for cross-section area A and second moment
 * I = ∫x_d² dA (b t and b t³/12 for the exact box). */
static beam_forms beam_closed_forms(double E, double nu, double rho, double L, double A,
                                    double I)
{
    double lambda, mu;
    elastic_lame(E, nu, &lambda, &mu);
    const double k = PI / L;
    beam_forms f;
    f.K = (lambda + 2.0 * mu) * pow(k, 4) * (L / 2.0) * I;
    f.M_raw = rho * (L / 2.0) * (k * k * I + A);
    f.M_rigid = rho * (k * k * I * L / 2.0 + A * L * (0.5 - 4.0 / (PI * PI)));
    return f;
}

/* Grid-aligned (faces on grid planes), depth 3. Measured relative errors: K −5.1e-4,
 * M −1.7e-4 (raw), −2.1e-4 (rigid removed), volume −1.8e-4; t_d + 2/π = −5.4e-6 (the
 * volume's deficit at the edges); other t, w components ~1e-16. Bounds: K 1e-3, M and
 * V 3e-4 (within the 0.3 % aimed at). */
Test(analytic, beam_bending_closed_forms_grid_aligned, .timeout = 300)
{
    const double half[3] = {80.0, 2.0, 2.0}, b = 4.0, t = 4.0, L = 160.0;
    ldem_lset ls = lsfix_make(lsfix_box, half, half, 0.2, 3, 0.0);
    const beam_forms f = beam_closed_forms(1e4, 0.3, 1.0, L, b * t, b * t * t * t / 12.0);
    analytic_mode m = beam(L, 0, 2);
    double K, M, V;
    ldem_err err;
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 3, 1e4, 0.3, 1.0, &K, &M, &V, &err), LDEM_OK,
                 "%s", err.msg);
    cr_log_info("aligned, raw: K %.6g (closed form %.6g, %.2e), M %.6g (%.6g, %.2e), V %.2e", K,
                f.K, K / f.K - 1, M, f.M_raw, M / f.M_raw - 1, V / 2560.0 - 1);
    cr_expect_leq(rel(K, f.K), 1e-3);
    cr_expect_leq(rel(M, f.M_raw), 3e-4);
    cr_expect_leq(rel(V, 2560.0), 3e-4);

    cr_assert_eq(analytic_remove_rigid(&m, &ls, 3, &err), LDEM_OK, "%s", err.msg);
    cr_log_info("aligned: t = (%.3g, %.3g, %.10f), w = (%.3g, %.3g, %.3g); -2/pi = %.10f",
                m.t[0], m.t[1], m.t[2], m.w[0], m.w[1], m.w[2], -2.0 / PI);
    cr_expect_leq(fabs(m.t[2] + 2.0 / PI), 2e-5);
    cr_expect_leq(fabs(m.t[0]) + fabs(m.t[1]), 1e-12, "the grid is symmetric");
    cr_expect_leq(fabs(m.w[0]) + fabs(m.w[1]) + fabs(m.w[2]), 1e-12);
    double K2, M2, V2;
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 3, 1e4, 0.3, 1.0, &K2, &M2, &V2, &err),
                 LDEM_OK, "%s", err.msg);
    cr_log_info("aligned, rigid removed: K %.6g (%.2e), M %.6g (closed form %.6g, %.2e)", K2,
                K2 / f.K - 1, M2, f.M_rigid, M2 / f.M_rigid - 1);
    cr_expect_leq(rel(K2, K), 1e-13, "a rigid motion has no strain");
    cr_expect_eq(V2, V);
    cr_expect_leq(rel(M2, f.M_rigid), 3e-4);
    ldem_lset_free(&ls);
}

/* Grid offset by 0.37 h, depth 2: the interpolated φ rounds the box's long edges, so the
 * trilinear body's cross-section has area A < 16 and I < 64/3 (lsfix_cross_section measures
 * them by sampling φ); the closed forms with those (the ends, where sin ks → 0, matter
 * little) are what the quadrature should reproduce. Measured: K −3.6e-3 and M −1.4e-3 vs the
 * exact box; see the log for the trilinear reference. */
Test(analytic, beam_bending_closed_forms_grid_offset, .timeout = 300)
{
    const double half[3] = {80.0, 2.0, 2.0}, b = 4.0, t = 4.0, L = 160.0;
    ldem_lset ls = lsfix_make(lsfix_box, half, half, 0.2, 3, 0.37);
    double A, iyy, izz;
    lsfix_cross_section(&ls, 0.3, 2.2, 2200, &A, &iyy, &izz);
    const beam_forms exact = beam_closed_forms(1e4, 0.3, 1.0, L, b * t, b * t * t * t / 12.0);
    const beam_forms tri = beam_closed_forms(1e4, 0.3, 1.0, L, A, izz);
    analytic_mode m = beam(L, 0, 2);
    double K, M, V;
    ldem_err err;
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 2, 1e4, 0.3, 1.0, &K, &M, &V, &err), LDEM_OK,
                 "%s", err.msg);
    cr_log_info("offset: cross-section A %.6f, I %.6f; K %.2e (exact) %.2e (trilinear), "
                "M %.2e %.2e",
                A, izz, K / exact.K - 1, K / tri.K - 1, M / exact.M_raw - 1, M / tri.M_raw - 1);
    cr_expect_leq(rel(K, exact.K), 5e-3);
    cr_expect_leq(rel(M, exact.M_raw), 2e-3);
    cr_expect_leq(rel(K, tri.K), 1e-3);
    cr_expect_leq(rel(M, tri.M_raw), 3e-4);
    ldem_lset_free(&ls);
}

/* ---- other axes: a 3 × 40 × 2 box bending along y, deflecting along x ---- */

/* L = 40 along y, t = 3 along x (deflect), b = 2 along z; h = 0.25, grid-aligned, depth 3,
 * E = 2e5, ν = 0.25, ρ = 3. The cross-section is only 12 × 8 cells, so the rule's loss at
 * the long edges (where φ is a saddle) weighs more than on the 160 × 4 × 4 box. Measured:
 * K −2.1e-3, M −7.3e-4, M rigid-free −1.1e-3, V −8.1e-4, t_x + 2/π = −5.4e-5. */
Test(analytic, beam_bending_closed_forms_other_axes)
{
    const double half[3] = {1.5, 20.0, 1.0}, L = 40.0, t = 3.0, b = 2.0;
    ldem_lset ls = lsfix_make(lsfix_box, half, half, 0.25, 3, 0.0);
    const beam_forms f = beam_closed_forms(2e5, 0.25, 3.0, L, b * t, b * t * t * t / 12.0);
    analytic_mode m = beam(L, 1, 0);
    double K, M, V;
    ldem_err err;
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 3, 2e5, 0.25, 3.0, &K, &M, &V, &err),
                 LDEM_OK, "%s", err.msg);
    cr_assert_eq(analytic_remove_rigid(&m, &ls, 3, &err), LDEM_OK, "%s", err.msg);
    double K2, M2;
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 3, 2e5, 0.25, 3.0, &K2, &M2, NULL, &err),
                 LDEM_OK, "%s", err.msg);
    cr_log_info("3x40x2, axis y deflect x: K %.2e, M %.2e, M rigid-free %.2e, V %.2e, "
                "t_x + 2/pi %.2e",
                K / f.K - 1, M / f.M_raw - 1, M2 / f.M_rigid - 1, V / (L * b * t) - 1,
                m.t[0] + 2 / PI);
    cr_expect_leq(rel(K, f.K), 3e-3);
    cr_expect_leq(rel(M, f.M_raw), 1e-3);
    cr_expect_leq(rel(M2, f.M_rigid), 1.5e-3);
    cr_expect_leq(rel(K2, K), 1e-13);
    cr_expect_leq(fabs(m.t[0] + 2.0 / PI), 1e-4);
    cr_expect_leq(fabs(m.t[1]) + fabs(m.t[2]) + fabs(m.w[0]) + fabs(m.w[1]) + fabs(m.w[2]),
                  1e-12);
    ldem_lset_free(&ls);
}

/* ---- rigid removal on a body that is neither symmetric nor centred ---- */

typedef struct ball {
    double r, c[3];
} ball;

static double ball_sdf(const double x[3], const void *p)
{
    const ball *s = p;
    double d[3] = {x[0] - s->c[0], x[1] - s->c[1], x[2] - s->c[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s->r;
}

typedef struct rigid_check {
    const analytic_mode *m;
    double phi[3], moment[3], phi_abs, phi2, raw2, rigid2, strain2;
} rigid_check;

/* Sums formed here from analytic_eval / eval_raw, independently of analytic.c's. */
static void add_rigid_check(void *ctx, const double x[3], double w)
{
    rigid_check *s = ctx;
    const analytic_mode *m = s->m;
    double u[3], raw[3];
    analytic_eval(m, x, u, NULL);
    analytic_eval_raw(m, x, raw, NULL);
    double r[3] = {m->t[0] + m->w[1] * x[2] - m->w[2] * x[1],
                   m->t[1] + m->w[2] * x[0] - m->w[0] * x[2],
                   m->t[2] + m->w[0] * x[1] - m->w[1] * x[0]};
    double xu[3] = {x[1] * u[2] - x[2] * u[1], x[2] * u[0] - x[0] * u[2],
                    x[0] * u[1] - x[1] * u[0]};
    for (int c = 0; c < 3; c++) {
        s->phi[c] += w * u[c];
        s->moment[c] += w * xu[c];
        s->phi_abs += w * fabs(u[c]);
        s->phi2 += w * u[c] * u[c];
        s->raw2 += w * raw[c] * raw[c];
        s->rigid2 += w * r[c] * r[c];
    }
    /* Only E_aa = −scale x_d k² sin ks strains (rigid motions do not). */
    double k = PI / m->length;
    double e = -m->scale * x[m->deflect] * k * k * sin(k * (x[m->axis] + m->length / 2));
    s->strain2 += w * e * e;
}

Test(analytic, rigid_removal_off_centre)
{
    const ball b = {3.0, {0.7, -0.4, 0.3}};
    const double half[3] = {3.7, 3.4, 3.3};
    ldem_lset ls = lsfix_make(ball_sdf, &b, half, 0.25, 3, 0.13);
    analytic_mode m = beam(5.0, 1, 2);
    m.scale = 1.7;
    ldem_err err;
    cr_assert_eq(analytic_remove_rigid(&m, &ls, 2, &err), LDEM_OK, "%s", err.msg);
    cr_log_info("off-centre ball: t = (%.4g, %.4g, %.4g), w = (%.4g, %.4g, %.4g)", m.t[0],
                m.t[1], m.t[2], m.w[0], m.w[1], m.w[2]);
    cr_expect_gt(fabs(m.w[0]), 1e-3, "the projection has a rotation to find");

    /* t, w are in raw units: the same whatever the scale. */
    analytic_mode unit = beam(5.0, 1, 2);
    cr_assert_eq(analytic_remove_rigid(&unit, &ls, 2, &err), LDEM_OK);
    for (int c = 0; c < 3; c++)
        cr_expect(unit.t[c] == m.t[c] && unit.w[c] == m.w[c]);

    rigid_check s = {.m = &m};
    cr_assert_eq(lsquad_interior(&ls, 2, add_rigid_check, &s, &err), LDEM_OK);
    const double R = b.r + 1.0; /* lever arm bound about the origin */
    for (int c = 0; c < 3; c++) {
        cr_expect_leq(fabs(s.phi[c]), 1e-12 * s.phi_abs, "∫Φ_%d = %g", c, s.phi[c]);
        cr_expect_leq(fabs(s.moment[c]), 1e-12 * s.phi_abs * R, "∫(x×Φ)_%d = %g", c,
                      s.moment[c]);
    }
    /* Pythagoras: an orthogonal projection splits ∫|raw|² into ∫|r|² + ∫|raw − r|². */
    cr_expect_leq(rel(s.phi2, m.scale * m.scale * (s.raw2 - s.rigid2)), 1e-10);

    /* K and M against sums formed here: K = (λ + 2μ) ∫E_aa², M = ρ ∫|Φ|², M ∝ ρ. */
    double lambda, mu, K, M, M_rho, V;
    elastic_lame(3e3, 0.2, &lambda, &mu);
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 2, 3e3, 0.2, 1.0, &K, &M, &V, &err),
                 LDEM_OK);
    cr_assert_eq(analytic_mass_stiffness(&m, &ls, 2, 3e3, 0.2, 2.5, NULL, &M_rho, NULL, &err),
                 LDEM_OK);
    /* Summation orders differ (~10⁶ positive terms): agreement to ~1e-12, bound 1e-10. */
    cr_expect_leq(rel(K, (lambda + 2.0 * mu) * s.strain2), 1e-10);
    cr_expect_leq(rel(M, s.phi2), 1e-10, "M %.17g vs %.17g", M, s.phi2);
    cr_expect_leq(rel(M_rho, 2.5 * M), 1e-15);
    cr_expect_leq(rel(V, 4.0 / 3.0 * PI * 27.0), 5e-3, "the ball's volume");
    ldem_lset_free(&ls);
}

/* ---- errors ---- */

static double nowhere(const double x[3], const void *p)
{
    (void)x;
    (void)p;
    return 1.0;
}

Test(analytic, bad_materials_modes_and_level_sets_are_errors)
{
    const double R = 2.0, half[3] = {R, R, R};
    ldem_lset ls = lsfix_make(lsfix_sphere, &R, half, 0.5, 3, 0.0);
    analytic_mode m = beam(4.0, 0, 1);
    double K = -1.0, M = -1.0, V = -1.0;
    ldem_err err;
    cr_expect_eq(analytic_mass_stiffness(&m, &ls, 1, 0.0, 0.3, 1.0, &K, &M, &V, &err),
                 LDEM_ERR_USAGE);
    cr_expect(strstr(err.msg, "E=0") != NULL, "%s", err.msg);
    cr_expect_eq(analytic_mass_stiffness(&m, &ls, 1, 1e3, 0.5, 1.0, &K, &M, &V, &err),
                 LDEM_ERR_USAGE);
    cr_expect_eq(analytic_mass_stiffness(&m, &ls, 1, 1e3, 0.3, -1.0, &K, &M, &V, &err),
                 LDEM_ERR_USAGE);
    cr_expect_eq(analytic_mass_stiffness(&m, &ls, 9, 1e3, 0.3, 1.0, &K, &M, &V, &err),
                 LDEM_ERR_USAGE, "lsquad's depth check");
    cr_expect(K == -1.0 && M == -1.0 && V == -1.0, "outputs untouched on error");
    analytic_mode bad = beam(4.0, 2, 2);
    cr_expect_eq(analytic_mass_stiffness(&bad, &ls, 1, 1e3, 0.3, 1.0, &K, &M, &V, &err),
                 LDEM_ERR_USAGE);
    cr_expect_eq(analytic_remove_rigid(&bad, &ls, 1, &err), LDEM_ERR_USAGE);
    ldem_lset_free(&ls);

    ldem_lset empty = lsfix_make(nowhere, NULL, half, 0.5, 3, 0.0);
    cr_expect_eq(analytic_remove_rigid(&m, &empty, 1, &err), LDEM_ERR_INPUT);
    cr_expect(strstr(err.msg, "no interior") != NULL, "%s", err.msg);
    cr_expect(m.t[0] == 0.0 && m.w[0] == 0.0, "the mode is untouched on error");
    ldem_lset_free(&empty);
}
