/* Unit tests of ldem/contact/linear.h, Kawamoto's node-penalty law: the normal force kn·depth,
 * stick then slip at μ kn depth with the spring reset to the cap, the spring carried into a
 * new tangent plane with its length kept, and the energy balance of stick-slip cycles (work
 * done on the node = dissipation + change of stored energy). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ldem/contact/linear.h"

static ldem_linear_params params(double kn, double ks, double mu)
{
    ldem_linear_params p;
    ldem_err err;
    cr_assert_eq(ldem_linear_params_init(&p, kn, ks, mu, &err), LDEM_OK, "%s", err.msg);
    return p;
}

static double norm_of(const double xi[3])
{
    return sqrt(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]);
}

Test(contact_linear, params_checked)
{
    ldem_linear_params p;
    ldem_err err;
    cr_assert_eq(ldem_linear_params_init(&p, 0.0, 1.0, 0.3, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "kn") != NULL, "%s", err.msg);
    cr_assert_eq(ldem_linear_params_init(&p, 1.0, -1.0, 0.3, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "ks") != NULL, "%s", err.msg);
    cr_assert_eq(ldem_linear_params_init(&p, 1.0, 1.0, -0.1, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "mu") != NULL, "%s", err.msg);
    cr_assert_eq(ldem_linear_params_init(&p, NAN, 1.0, 0.3, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_linear_params_init(&p, 1.0, INFINITY, 0.3, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_linear_params_init(&p, 2.0, 0.0, 0.0, &err), LDEM_OK, "%s", err.msg);
    cr_assert(p.kn == 2.0 && p.ks == 0.0 && p.mu == 0.0);
}

/* F = kn·depth along n (on j), no shear without displacement; a node that leaves (depth ≤ 0)
 * gets zero force and forgets its spring. */
Test(contact_linear, normal_force)
{
    ldem_linear_params p = params(3e5, 1e5, 0.5);
    ldem_vec3 n = ldem_vec3_normalize(ldem_vec3_make(1.0, 2.0, -2.0)); /* (1, 2, −2)/3 */
    double xi[3] = {0.0, 0.0, 0.0};
    ldem_vec3 fn, ft;
    ldem_vec3 f = ldem_linear_node_force(&p, 2e-3, n, ldem_vec3_zero(), xi, NULL, &fn, &ft);
    /* 3e5 · 2e-3 = 600 along (1, 2, −2)/3 = (200, 400, −400). */
    cr_assert_leq(fabs(f.x - 200.0) + fabs(f.y - 400.0) + fabs(f.z + 400.0), 1e-10);
    cr_assert_leq(ldem_vec3_norm(ft), 0.0);
    cr_assert_leq(ldem_vec3_dist(fn, f), 0.0);

    /* A purely normal displacement adds nothing to the spring. */
    ldem_linear_node_force(&p, 2e-3, n, ldem_vec3_scale(n, 1e-3), xi, NULL, NULL, &ft);
    cr_assert_leq(norm_of(xi), 1e-18, "|xi| = %g", norm_of(xi));
    cr_assert_leq(ldem_vec3_norm(ft), 1e-12);

    /* Load the spring, then separate. */
    ldem_vec3 t = ldem_vec3_normalize(ldem_vec3_make(2.0, -1.0, 0.0)); /* ⊥ n */
    ldem_linear_node_force(&p, 2e-3, n, ldem_vec3_scale(t, 1e-4), xi, NULL, NULL, NULL);
    cr_assert_gt(norm_of(xi), 0.9e-4);
    f = ldem_linear_node_force(&p, -1e-6, n, ldem_vec3_scale(t, 1e-4), xi, NULL, &fn, &ft);
    cr_assert(ldem_vec3_norm(f) == 0.0 && ldem_vec3_norm(fn) == 0.0 && ldem_vec3_norm(ft) == 0.0);
    cr_assert(norm_of(xi) == 0.0);
    cr_assert_leq(ldem_linear_node_energy(&p, -1e-6, xi), 0.0);
}

/* Push j tangentially in steps of u: the shear force is −ks·s while ks·s ≤ μ kn d, then stays
 * at μ kn d with the spring length reset to μ kn d/ks, and each slipping step dissipates
 * μ kn d times the slipped distance. */
Test(contact_linear, stick_then_slip)
{
    const double kn = 1e6, ks = 4e5, mu = 0.3, d = 1e-3;
    ldem_linear_params p = params(kn, ks, mu);
    ldem_vec3 n = ldem_vec3_make(0.0, 0.0, 1.0);
    ldem_vec3 dir = ldem_vec3_normalize(ldem_vec3_make(3.0, 4.0, 0.0));
    const double cap = mu * kn * d;          /* 300 */
    const double s_cap = cap / ks;           /* 7.5e-4 */
    const double u = 1e-4;                   /* 7.5 steps to the cap */
    double xi[3] = {0.0, 0.0, 0.0}, dissipated = 0.0;
    for (int k = 1; k <= 20; k++) {
        ldem_vec3 ft;
        /* A normal component in ds must be ignored. */
        ldem_vec3 ds = ldem_vec3_axpy(5e-5, n, ldem_vec3_scale(dir, u));
        ldem_linear_node_force(&p, d, n, ds, xi, &dissipated, NULL, &ft);
        double s = k * u;
        double want = fmin(ks * s, cap);
        cr_assert_leq(fabs(ldem_vec3_norm(ft) - want), 1e-9 * cap, "step %d: |ft| %g, want %g", k,
                      ldem_vec3_norm(ft), want);
        /* The force opposes j's motion. */
        cr_assert_leq(ldem_vec3_norm(ldem_vec3_axpy(want, dir, ft)), 1e-9 * cap);
        cr_assert_leq(fabs(norm_of(xi) - fmin(s, s_cap)), 1e-15, "step %d", k);
        double want_dissipated = cap * fmax(0.0, s - s_cap);
        cr_assert_leq(fabs(dissipated - want_dissipated), 1e-12 * cap * s_cap,
                      "step %d: dissipated %g, want %g", k, dissipated, want_dissipated);
    }
    /* Stored energy at the cap: ½ kn d² + ½ ks s_cap². */
    double e = ldem_linear_node_energy(&p, d, xi);
    cr_assert_leq(fabs(e - (0.5 * kn * d * d + 0.5 * ks * s_cap * s_cap)), 1e-12 * e);

    /* Reversal: the spring unloads elastically from the cap (no dissipation) until it has
     * swung to the opposite cap. */
    double before = dissipated;
    ldem_vec3 ft;
    ldem_linear_node_force(&p, d, n, ldem_vec3_scale(dir, -u), xi, &dissipated, NULL, &ft);
    cr_assert_eq(dissipated, before);
    cr_assert_leq(fabs(ldem_vec3_norm(ft) - ks * (s_cap - u)), 1e-9 * cap);

    /* No friction: the spring is reset to zero at every step; no shear stiffness: no spring. */
    ldem_linear_params frictionless = params(kn, ks, 0.0);
    double x0[3] = {0.0, 0.0, 0.0}, diss0 = 0.0;
    ldem_linear_node_force(&frictionless, d, n, ldem_vec3_scale(dir, u), x0, &diss0, NULL, &ft);
    cr_assert(norm_of(x0) == 0.0 && ldem_vec3_norm(ft) == 0.0 && diss0 == 0.0);
    ldem_linear_params soft = params(kn, 0.0, mu);
    ldem_linear_node_force(&soft, d, n, ldem_vec3_scale(dir, u), x0, &diss0, NULL, &ft);
    cr_assert(norm_of(x0) == 0.0 && ldem_vec3_norm(ft) == 0.0 && diss0 == 0.0);
}

/* The contact turns: the spring loses its component along the new normal and keeps its
 * length (so its energy), then takes the new tangential increment. */
Test(contact_linear, spring_rotated_keeps_length)
{
    ldem_linear_params p = params(1e6, 1e6, 0.5);
    const double d = 1e-3; /* cap 500 N, spring cap 5e-4 */
    ldem_vec3 z = ldem_vec3_make(0.0, 0.0, 1.0);
    double xi[3] = {0.0, 0.0, 0.0};
    ldem_linear_node_force(&p, d, z, ldem_vec3_make(3e-4, 0.0, 0.0), xi, NULL, NULL, NULL);
    cr_assert_leq(fabs(xi[0] - 3e-4) + fabs(xi[1]) + fabs(xi[2]), 1e-18);
    for (int k = 1; k <= 8; k++) {
        double theta = 0.2 * k; /* tilt the normal about y, up to 1.6 rad */
        ldem_vec3 n = ldem_vec3_make(sin(theta), 0.0, cos(theta));
        ldem_vec3 ft;
        double dissipated = 0.0;
        ldem_linear_node_force(&p, d, n, ldem_vec3_zero(), xi, &dissipated, NULL, &ft);
        ldem_vec3 s = ldem_vec3_make(xi[0], xi[1], xi[2]);
        cr_assert_leq(fabs(ldem_vec3_norm(s) - 3e-4), 1e-18, "length %g", ldem_vec3_norm(s));
        cr_assert_leq(fabs(ldem_vec3_dot(s, n)), 1e-18, "not tangential: %g",
                      ldem_vec3_dot(s, n));
        /* In the xz plane: the rotated spring is (cos θ, 0, −sin θ)·3e-4. */
        cr_assert_leq(ldem_vec3_dist(s, ldem_vec3_make(3e-4 * cos(theta), 0.0,
                                                        -3e-4 * sin(theta))),
                      1e-17);
        cr_assert_leq(ldem_vec3_dist(ft, ldem_vec3_scale(s, -1e6)), 1e-10);
        cr_assert_eq(dissipated, 0.0);
    }
    /* Then an increment in the new tangent plane adds to the carried spring; its normal
     * part is ignored. */
    ldem_vec3 n = ldem_vec3_make(sin(1.6), 0.0, cos(1.6));
    ldem_vec3 before = ldem_vec3_make(xi[0], xi[1], xi[2]);
    ldem_linear_node_force(&p, d, n, ldem_vec3_make(0.0, 1e-4, 0.0), xi, NULL, NULL, NULL);
    ldem_vec3 after = ldem_vec3_make(xi[0], xi[1], xi[2]);
    cr_assert_leq(ldem_vec3_dist(after, ldem_vec3_add(before, ldem_vec3_make(0, 1e-4, 0))),
                  1e-18);
    /* A spring lying along the new normal has no tangential direction: dropped. */
    double along[3] = {0.0, 0.0, 2e-4};
    ldem_linear_node_force(&p, d, ldem_vec3_make(0, 0, -1), ldem_vec3_zero(), along, NULL, NULL,
                           NULL);
    cr_assert(norm_of(along) == 0.0);
}

/* Drive a node along a prescribed path (depth(t), tangential s(t) in a fixed plane), and
 * account the work done on it with the trapezoidal rule of the forces before and after each
 * step: W = Σ ½(|Fn|₀ + |Fn|₁)·Δdepth − ½(Ft₀ + Ft₁)·Δs. The result: W − D − ΔE. */
typedef struct path_sums {
    double work, dissipated, stored_change;
} path_sums;

typedef void (*path_fn)(double t, double *depth, ldem_vec3 *s);

static path_sums drive(const ldem_linear_params *p, path_fn path, int steps)
{
    ldem_vec3 n = ldem_vec3_make(0.0, 0.0, 1.0);
    double xi[3] = {0.0, 0.0, 0.0};
    double depth0;
    ldem_vec3 s0;
    path(0.0, &depth0, &s0);
    ldem_vec3 fn0, ft0;
    ldem_linear_node_force(p, depth0, n, ldem_vec3_zero(), xi, NULL, &fn0, &ft0);
    double e0 = ldem_linear_node_energy(p, depth0, xi);
    path_sums r = {0.0, 0.0, 0.0};
    for (int k = 1; k <= steps; k++) {
        double depth1;
        ldem_vec3 s1, fn1, ft1;
        path((double)k / steps, &depth1, &s1);
        ldem_vec3 ds = ldem_vec3_sub(s1, s0);
        ldem_linear_node_force(p, depth1, n, ds, xi, &r.dissipated, &fn1, &ft1);
        r.work += 0.5 * (ldem_vec3_norm(fn0) + ldem_vec3_norm(fn1)) * (depth1 - depth0) -
                  0.5 * ldem_vec3_dot(ldem_vec3_add(ft0, ft1), ds);
        depth0 = depth1, s0 = s1, fn0 = fn1, ft0 = ft1;
    }
    r.stored_change = ldem_linear_node_energy(p, depth0, xi) - e0;
    return r;
}

/* kn = ks = 1, μ = 1, depth 1: the spring caps at 1. s: 0 → 2 → −2 → 0 in steps of 1/4, so
 * every stick/slip transition falls on a step boundary and the trapezoidal work is exact.
 * By hand: leg 1 slips 1 (D = 1), leg 2 swings the spring from +1 to −1 over 2 and slips 2
 * (D = 2), leg 3 swings it back to +1 and reaches the cap exactly at the end (no slip):
 * D = 3, ΔE = ½, W = 3.5. */
static void aligned_cycle(double t, double *depth, ldem_vec3 *s)
{
    double u = 8.0 * t; /* 0..8: path length 2 + 4 + 2 */
    double x = u <= 2.0 ? u : u <= 6.0 ? 4.0 - u : u - 8.0;
    *depth = 1.0;
    *s = ldem_vec3_make(x, 0.0, 0.0);
}

Test(contact_linear, energy_balance_exact_cycle)
{
    ldem_linear_params p = params(1.0, 1.0, 1.0);
    path_sums r = drive(&p, aligned_cycle, 32);
    cr_log_info("aligned cycle: W %.17g D %.17g dE %.17g", r.work, r.dissipated,
                r.stored_change);
    cr_assert_leq(fabs(r.dissipated - 3.0), 1e-14, "D = %.17g", r.dissipated);
    cr_assert_leq(fabs(r.stored_change - 0.5), 1e-14, "dE = %.17g", r.stored_change);
    cr_assert_leq(fabs(r.work - 3.5), 1e-14, "W = %.17g", r.work);
}

/* A closed loop in the tangent plane while the depth breathes (so the cap moves, and slip
 * starts mid-step): the balance then has a discretization residual, which must vanish as
 * the steps shrink (first order: slipping steps with a moving cap each leave O(Δs²)). */
static void breathing_loop(double t, double *depth, ldem_vec3 *s)
{
    const double two_pi = 6.283185307179586;
    *depth = 1.0 + 0.5 * sin(3.0 * two_pi * t);
    *s = ldem_vec3_make(2.0 * sin(two_pi * t), 1.5 * (1.0 - cos(2.0 * two_pi * t)), 0.0);
}

Test(contact_linear, energy_balance_converges)
{
    ldem_linear_params p = params(1.0, 1.0, 0.8);
    double prev = INFINITY;
    for (int steps = 500; steps <= 32000; steps *= 4) {
        path_sums r = drive(&p, breathing_loop, steps);
        double residual = fabs(r.work - r.dissipated - r.stored_change);
        cr_log_info("breathing loop, %5d steps: W %.6f D %.6f dE %.3g residual %.3g", steps,
                    r.work, r.dissipated, r.stored_change, residual);
        cr_assert_gt(r.dissipated, 1.0, "the loop must slip substantially");
        /* First order in the step: a fourfold refinement cuts the residual at least 3×. */
        cr_assert_leq(residual, prev / 3.0, "%d steps: residual %g (previous %g)", steps,
                      residual, prev);
        prev = residual;
    }
    cr_assert_leq(prev, 1e-3, "residual %g at the finest step", prev);
}
