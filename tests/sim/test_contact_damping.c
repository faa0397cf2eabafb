/* The Hertz laws' normal damping (contacts: damping: ζ; runtime/sim/contact_forces.c) on hand-built
 * worlds:
 *   - a head-on collision of two spheres rebounds with the restitution that an independent
 *     integration (RK4 on the relative approach, 1e5 steps) of the same law gives:
 *     m* δ̈ = −max(0, K δ^{3/2} + 2ζ √(k(δ) m*) δ̇), k = dN/dδ = (3/2) K δ^{1/2};
 *   - that restitution does not depend on the impact speed (the law's point);
 *   - the kinetic energy lost is what the contacts report as dissipated;
 *   - the total normal force never pulls (ζ = 1 reaches the cap on the way out);
 *   - the critical time step shrinks by √(1 + ζ²) − ζ.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "../support/law_states.h"
#include "ldem/sim/step.h"
#include "ldem/sim/timestep.h"
#include "world_fixture.h"

static const double PI = 3.14159265358979323846;
static const double R = 1e-3;          /* sphere radius, m */
static const double E = 70e9, NU = 0.25, RHO = 2500.0;

static double sphere_mass(void)
{
    return RHO * 4.0 / 3.0 * PI * R * R * R;
}

/* Hertz's N = K δ^{3/2} for two spheres of radius R of the fixture's material:
 * K = (4/3) E* √R*, E* = E / (2(1 − ν²)), R* = R/2. */
static double hertz_k(void)
{
    return 4.0 / 3.0 * E / (2.0 * (1.0 - NU * NU)) * sqrt(0.5 * R);
}

/* δ̈ of the relative approach (δ, δ̇) with the law's damping and cap. */
static double approach_accel(double d, double dd, double mstar, double zeta)
{
    if (d <= 0.0)
        return 0.0;
    double K = hertz_k(), k = 1.5 * K * sqrt(d);
    double f = K * d * sqrt(d) + 2.0 * zeta * sqrt(k * mstar) * dd;
    return -fmax(f, 0.0) / mstar;
}

/* The independent model: RK4 from first touch at speed v until δ returns to 0; returns the
 * restitution −δ̇_out / δ̇_in. The step is a 1e-5 of the undamped Hertz contact time. */
static double restitution_ode(double v, double zeta)
{
    double mstar = 0.5 * sphere_mass();
    double dmax = pow(1.25 * mstar * v * v / hertz_k(), 0.4);
    double h = 3.2 * dmax / v * 1e-5, d = 0.0, dd = v;
    for (long k = 0; k < 10000000; k++) {
        double k1d = dd, k1v = approach_accel(d, dd, mstar, zeta);
        double k2d = dd + 0.5 * h * k1v, k2v = approach_accel(d + 0.5 * h * k1d, k2d, mstar, zeta);
        double k3d = dd + 0.5 * h * k2v, k3v = approach_accel(d + 0.5 * h * k2d, k3d, mstar, zeta);
        double k4d = dd + h * k3v, k4v = approach_accel(d + h * k3d, k4d, mstar, zeta);
        d += h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
        dd += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        if (d <= 0.0 && dd < 0.0)
            return -dd / v;
    }
    cr_assert_fail("the independent model never separated (zeta %g)", zeta);
    return NAN;
}

typedef struct collision {
    double e;            /* restitution: relative speed after / before */
    double lost;         /* kinetic energy lost */
    double dissipated;   /* what the contacts report */
    double kinetic0;
    double min_normal;   /* the smallest total normal force while overlapping */
    long capped;         /* steps with overlap whose total normal force was zero */
} collision;

/* Two spheres meeting head-on at relative speed v (frictionless Hertz with damping ζ),
 * `steps` steps per undamped contact time. */
static collision collide(double v, double zeta, double steps)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_FRICTIONLESS);
    w.laws[0].damping = zeta;
    wf_add_sphere(&w, ldem_vec3_make(-R - 1e-9, 0, 0), R, ldem_vec3_make(0.5 * v, 0, 0));
    wf_add_sphere(&w, ldem_vec3_make(R + 1e-9, 0, 0), R, ldem_vec3_make(-0.5 * v, 0, 0));
    double mstar = 0.5 * sphere_mass();
    double tc = 3.2 * pow(1.25 * mstar * v * v / hertz_k(), 0.4) / v;
    w.dt = tc / steps;
    w.skin = 0.1 * R;
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    ldem_probe_row row;
    ldem_world_measure(&w, &row);
    collision c = {.kinetic0 = row.kinetic, .min_normal = INFINITY};
    int touched = 0;
    for (long k = 0; k < (long)(4.0 * steps); k++) {
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "step %ld: %s", k, err.msg);
        double gap = ldem_vec3_dist(w.bodies.x[0], w.bodies.x[1]) - 2.0 * R;
        if (gap < 0.0) {
            touched = 1;
            cr_assert_eq(w.ncontacts, 1);
            double n = ldem_vec3_dot(w.contacts[0].fn, w.contacts[0].normal);
            c.min_normal = fmin(c.min_normal, n);
            c.capped += n == 0.0;
        } else if (touched && gap > 1e-3 * R) {
            break;
        }
    }
    cr_assert(touched, "the spheres never met");
    ldem_world_measure(&w, &row);
    c.e = (w.bodies.v[1].x - w.bodies.v[0].x) / v;
    c.lost = c.kinetic0 - row.kinetic;
    c.dissipated = row.dissipated;
    ldem_world_free(&w);
    return c;
}

Test(contact_damping, restitution_matches_an_independent_integration)
{
    const double zetas[] = {0.05, 0.2, 0.5};
    for (size_t k = 0; k < sizeof zetas / sizeof *zetas; k++) {
        double want = restitution_ode(0.1, zetas[k]);
        collision c = collide(0.1, zetas[k], 2000.0);
        cr_log_info("zeta %.2f: restitution %.6f (independent RK4 %.6f)", zetas[k], c.e, want);
        cr_expect(fabs(c.e - want) < 5e-4, "zeta %g: restitution %.6f, independent model %.6f",
                  zetas[k], c.e, want);
        cr_expect(c.e < 1.0 - zetas[k], "zeta %g: restitution %.6f is not damped", zetas[k],
                  c.e);
        cr_expect(c.min_normal >= 0.0, "zeta %g: the normal force pulled (%g)", zetas[k],
                  c.min_normal);
    }
}

Test(contact_damping, restitution_does_not_depend_on_speed)
{
    collision slow = collide(0.01, 0.3, 2000.0), fast = collide(1.0, 0.3, 2000.0);
    cr_log_info("zeta 0.3: restitution %.6f at 0.01 m/s, %.6f at 1 m/s", slow.e, fast.e);
    cr_expect(fabs(slow.e - fast.e) < 1e-3, "restitution %.6f at 0.01 m/s, %.6f at 1 m/s",
              slow.e, fast.e);
}

Test(contact_damping, energy_lost_is_reported_dissipated)
{
    collision c = collide(0.1, 0.3, 2000.0);
    cr_log_info("dissipated %.9g, kinetic energy lost %.9g of %.9g", c.dissipated, c.lost,
                c.kinetic0);
    cr_expect(c.lost > 0.5 * c.kinetic0, "lost %g of %g: hardly damped", c.lost, c.kinetic0);
    cr_expect(fabs(c.dissipated - c.lost) < 1e-3 * c.kinetic0,
              "dissipated %.9g, kinetic energy lost %.9g (of %.9g)", c.dissipated, c.lost,
              c.kinetic0);
}

Test(contact_damping, never_pulls)
{
    collision c = collide(0.1, 1.0, 2000.0);
    cr_expect(c.min_normal >= 0.0, "the normal force pulled (%g)", c.min_normal);
    cr_expect(c.capped > 0, "zeta 1 never reached the cap on the way out");
    cr_log_info("zeta 1: restitution %.6f (independent RK4 %.6f), %ld steps at the cap", c.e,
                restitution_ode(0.1, 1.0), c.capped);
    cr_expect(fabs(c.e - restitution_ode(0.1, 1.0)) < 5e-4, "restitution %.6f, model %.6f", c.e,
              restitution_ode(0.1, 1.0));
}

Test(contact_damping, critical_step_shrinks)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    wf_add_sphere(&w, ldem_vec3_zero(), R, ldem_vec3_zero());
    double undamped = ldem_world_critical_dt(&w);
    w.laws[0].damping = 0.3;
    double damped = ldem_world_critical_dt(&w);
    cr_expect(fabs(damped / undamped - (sqrt(1.09) - 0.3)) < 1e-15, "ratio %.17g", damped / undamped);
    ldem_world_free(&w);
}

/* A grain that only spins does not approach its neighbour: the damping must see the normal
 * relative velocity of the material points, (v_j + ω_j × r_j − v_i − ω_i × r_i)·n, which for
 * a sphere (r ∥ n) has no part from the spin. The chord of the contact point's material
 * point over a step bends inwards by r ω² dt²/2, and a damping driven by it carried part of
 * the weight (24 % of mg at 100 rad/s on a 1 cm sphere), so the elastic force fell short.
 * A stack on a frictionless floor, each sphere spinning about a horizontal axis, released at
 * Hertz's equilibrium overlaps: after ten vertical periods each contact's elastic force
 * K δ^{3/2} (K for its pair, closed form) must still carry the weight above it. */
typedef struct spin_stack {
    double elastic[2];     /* K δ^{3/2} of the floor contact, then of the sphere pair */
    double weight[2];      /* what each contact carries: 2mg, mg (or mg alone) */
} spin_stack;

static spin_stack spinning_stack(int nspheres, double omega, double zeta)
{
    const double Rs = 1e-2, g = 9.81;
    ldem_world w;
    wf_world(&w, LDEM_LAW_FRICTIONLESS);
    w.laws[0].damping = zeta;
    w.gravity = ldem_vec3_make(0.0, 0.0, -g);
    wf_add_plane(&w, ldem_vec3_zero(), ldem_vec3_make(0.0, 0.0, 1.0));
    double m = RHO * 4.0 / 3.0 * PI * Rs * Rs * Rs, estar = E / (2.0 * (1.0 - NU * NU));
    double k_wall = 4.0 / 3.0 * estar * sqrt(Rs), k_pair = 4.0 / 3.0 * estar * sqrt(0.5 * Rs);
    double d_wall = pow(nspheres * m * g / k_wall, 2.0 / 3.0);
    double d_pair = pow(m * g / k_pair, 2.0 / 3.0);
    double z = Rs - d_wall;
    for (int s = 0; s < nspheres; s++) {
        uint32_t b = wf_add_sphere(&w, ldem_vec3_make(0.0, 0.0, z), Rs, ldem_vec3_zero());
        double I = w.bodies.inertia[b].x, sense = s ? -1.0 : 1.0;
        /* about x for the lower sphere, about y (the other way) for the upper one */
        w.bodies.L[b] = s ? ldem_vec3_make(0.0, sense * I * omega, 0.0)
                          : ldem_vec3_make(I * omega, 0.0, 0.0);
        z += 2.0 * Rs - d_pair;
    }
    double k_lin = 1.5 * k_wall * sqrt(d_wall), period = 2.0 * PI * sqrt(m / k_lin);
    w.dt = period / 200.0;
    w.skin = 0.1 * Rs;
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    for (int k = 0; k < 2000; k++)
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "step %d: %s", k, err.msg);
    spin_stack out = {{0.0, 0.0}, {nspheres * m * g, m * g}};
    double d0 = Rs - w.bodies.x[0].z;
    out.elastic[0] = k_wall * d0 * sqrt(d0);
    if (nspheres == 2) {
        double d1 = 2.0 * Rs - (w.bodies.x[1].z - w.bodies.x[0].z);
        out.elastic[1] = k_pair * d1 * sqrt(d1);
    }
    /* the spins survive a frictionless contact */
    for (int s = 0; s < nspheres; s++) {
        double I = w.bodies.inertia[s].x, L = ldem_vec3_norm(w.bodies.L[s]);
        cr_expect(fabs(L / (I * omega) - 1.0) < 1e-12, "sphere %d lost spin: %.17g", s,
                  L / (I * omega));
    }
    ldem_world_free(&w);
    return out;
}

Test(contact_damping, spinning_sphere_on_a_floor_keeps_its_weight)
{
    spin_stack s = spinning_stack(1, 100.0, 0.3);
    cr_log_info("spinning sphere on a floor: elastic force / mg = %.12f",
                s.elastic[0] / s.weight[0]);
    cr_expect(fabs(s.elastic[0] / s.weight[0] - 1.0) < 1e-6, "elastic force / mg = %.9f",
              s.elastic[0] / s.weight[0]);
}

Test(contact_damping, spinning_spheres_stacked_keep_their_weight)
{
    spin_stack s = spinning_stack(2, 100.0, 0.3);
    cr_log_info("spinning stack: floor %.12f of 2mg, pair %.12f of mg",
                s.elastic[0] / s.weight[0], s.elastic[1] / s.weight[1]);
    for (int k = 0; k < 2; k++)
        cr_expect(fabs(s.elastic[k] / s.weight[k] - 1.0) < 1e-6,
                  "contact %d: elastic force / weight = %.9f", k, s.elastic[k] / s.weight[k]);
}
