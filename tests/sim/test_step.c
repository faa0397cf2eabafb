/* The time step on hand-built worlds, against closed forms:
 *   - head-on Hertz collision: energy drift and contact duration (Hertz's impact time);
 *   - oblique impact on a wall in the sliding regime: Coulomb impulse in closed form; in the
 *     stick–slip regime: the rebound converges as dt shrinks, and the spin has the right sign;
 *   - a sphere resting on a plane: the static overlap of Hertz's law;
 *   - a pressed, sheared pair tumbling rigidly: the contact force turns with the pair and its
 *     magnitudes do not change (objectivity of the contact frame and finite kinematics);
 *   - a separated candidate pair that touches within a step: only the in-contact fraction of
 *     its slide reaches the tangential law;
 *   - a random cloud: linear and angular momentum conserved (Newton's third law, torques);
 *   - one and two OpenMP threads give bitwise the same state.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/contact/hertz.h"
#include "ldem/sim/integrate.h"
#include "ldem/sim/step.h"
#include "../../runtime/sim/step_work.h"
#include "../../runtime/sim/contact_loop.h"
#include "world_fixture.h"

static const double PI = 3.14159265358979323846;
static const double R = 1e-3;          /* sphere radius, m */
static const double E = 70e9, NU = 0.25, RHO = 2500.0, MU = 0.3;

static double sphere_mass(double r)
{
    return RHO * 4.0 / 3.0 * PI * r * r * r;
}

/* E* of two bodies of the fixture's material (Hertz: 1/E* = 2(1−ν²)/E). */
static double estar(void)
{
    return E / (2.0 * (1.0 - NU * NU));
}

static double total_energy(const ldem_world *w)
{
    ldem_probe_row row;
    ldem_world_measure(w, &row);
    return row.kinetic + row.potential + row.stored_normal + row.stored_tangential;
}

static void run(ldem_world *w, long steps)
{
    ldem_err err;
    for (long k = 0; k < steps; k++)
        cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "step %ld: %s", k, err.msg);
}

static void prepare(ldem_world *w)
{
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(w, &err), LDEM_OK, "%s", err.msg);
}

/* Hertz impact of two spheres: maximum approach and duration for relative speed v.
 * δ_max = (15 m* v² / (16 E* √R*))^{2/5}; t_c = 2 (δ_max/v) ∫₀¹ (1 − x^{5/2})^{−1/2} dx and the
 * integral is (2/5) B(2/5, 1/2). */
static double hertz_duration(double mstar, double rstar, double v)
{
    double dmax = pow(15.0 * mstar * v * v / (16.0 * estar() * sqrt(rstar)), 0.4);
    double integral = 0.4 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9);
    return 2.0 * dmax / v * integral;
}

Test(collision, head_on_energy_and_duration)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    double v = 0.1;
    wf_add_sphere(&w, ldem_vec3_make(-R - 1e-7, 0, 0), R, ldem_vec3_make(v, 0, 0));
    wf_add_sphere(&w, ldem_vec3_make(R + 1e-7, 0, 0), R, ldem_vec3_make(-v, 0, 0));
    double m = sphere_mass(R);
    double tc = hertz_duration(0.5 * m, 0.5 * R, 2.0 * v);
    w.dt = tc / 5000.0;
    w.skin = 0.1 * R;
    w.track_energy = 1;
    prepare(&w);
    double e0 = total_energy(&w), drift = 0.0;
    double t_in = -1.0, t_out = -1.0, prev_overlap = -1.0, prev_t = 0.0;
    for (long k = 0; k < 20000 && t_out < 0.0; k++) {
        run(&w, 1);
        double d = 2.0 * R - ldem_vec3_dist(w.bodies.x[0], w.bodies.x[1]);
        /* crossings of δ = 0, interpolated linearly within the step */
        if (prev_overlap <= 0.0 && d > 0.0)
            t_in = prev_t + (w.t - prev_t) * (-prev_overlap) / (d - prev_overlap);
        if (prev_overlap > 0.0 && d <= 0.0)
            t_out = prev_t + (w.t - prev_t) * prev_overlap / (prev_overlap - d);
        prev_overlap = d;
        prev_t = w.t;
        double e = total_energy(&w);
        if (fabs(e - e0) > drift)
            drift = fabs(e - e0);
    }
    cr_assert(t_in > 0.0 && t_out > t_in, "no complete collision (in %g, out %g)", t_in, t_out);
    double duration = t_out - t_in;
    cr_expect(fabs(duration / tc - 1.0) < 0.01, "contact time %.6g s, Hertz %.6g s", duration,
              tc);
    cr_expect(drift < 1e-6 * e0, "energy drift %.3g of %.3g", drift, e0);
    /* elastic: the spheres leave with their speeds exchanged */
    cr_expect(fabs(w.bodies.v[0].x + v) < 1e-5 * v, "v0 after %.9g", w.bodies.v[0].x);
    ldem_world_free(&w);
}

/* A sphere thrown at a plane z = 0 with normal speed vn and tangential speed vt (+x). */
typedef struct rebound {
    double vt, spin, vn;
} rebound;

static rebound oblique(double vn, double vt, double steps_per_contact)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    wf_add_plane(&w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1));
    wf_add_sphere(&w, ldem_vec3_make(0, 0, R + 1e-8), R, ldem_vec3_make(vt, 0, -vn));
    double m = sphere_mass(R);
    /* against a plane of the same material: m* = m, R* = R, same E* (one material) */
    double tc = hertz_duration(m, R, vn);
    w.dt = tc / steps_per_contact;
    w.skin = 0.1 * R;
    prepare(&w);
    for (long k = 0; k < (long)(4.0 * steps_per_contact); k++) {
        run(&w, 1);
        if (w.bodies.v[0].z > 0 && w.bodies.x[0].z > R + 1e-8)
            break;
    }
    ldem_vec3 omega = ldem_bodies_omega(&w.bodies, 0);
    rebound r = {w.bodies.v[0].x, omega.y, w.bodies.v[0].z};
    ldem_world_free(&w);
    return r;
}

Test(oblique, sliding_regime_matches_coulomb_impulse)
{
    /* Gross sliding throughout (v_t/v_n = 20 μ, beyond Maw et al.'s threshold 7μ/2 (1 + e) = 7μ
     * for a solid sphere and e = 1): the tangential impulse is μ times the normal one,
     * 2 m v_n for an elastic normal law. */
    double vn = 0.1, vt = 20.0 * MU * vn;
    rebound r = oblique(vn, vt, 2000);
    double dvt = vt - r.vt, expect_dvt = 2.0 * MU * vn;
    cr_expect(fabs(dvt / expect_dvt - 1.0) < 0.01, "Δv_t %.6g, Coulomb %.6g", dvt, expect_dvt);
    double expect_spin = 5.0 * MU * vn / R; /* Δω = R J_t / (2/5 m R²) */
    cr_expect(fabs(r.spin / expect_spin - 1.0) < 0.01, "spin %.6g, Coulomb %.6g", r.spin,
              expect_spin);
    cr_expect(fabs(r.vn / vn - 1.0) < 1e-4, "normal rebound %.9g of %.9g", r.vn, vn);
}

Test(oblique, stick_regime_converges_with_dt_and_spins_forward)
{
    double vn = 0.1, vt = 0.5 * MU * vn;
    rebound a = oblique(vn, vt, 250), b = oblique(vn, vt, 500), c = oblique(vn, vt, 1000);
    cr_expect(a.spin > 0 && b.spin > 0 && c.spin > 0,
              "a ball sliding towards +x on a floor must spin about +y (%g %g %g)", a.spin,
              b.spin, c.spin);
    double d1 = fabs(a.vt - b.vt), d2 = fabs(b.vt - c.vt);
    cr_expect(d2 < 0.6 * d1 || d2 < 1e-9 * vt, "no convergence: |Δ| %.3g then %.3g", d1, d2);
    cr_expect(fabs(b.vt - c.vt) < 1e-3 * vt, "rebound v_t %.9g vs %.9g", b.vt, c.vt);
    cr_expect(fabs(b.spin - c.spin) < 1e-3 * fabs(c.spin), "spin %.9g vs %.9g", b.spin,
              c.spin);
    /* The contact force acts at the contact point, so the angular momentum about it,
     * m R v_t + I ω, is the same before and after (to O(δ/R): the lever arm is R − δ/2). */
    double m = sphere_mass(R), I = 0.4 * m * R * R;
    double l0 = m * R * vt, l1 = m * R * c.vt + I * c.spin;
    cr_expect(fabs(l1 / l0 - 1.0) < 1e-3, "angular momentum about the contact %.9g -> %.9g", l0,
              l1);
    /* Below Maw, Barber & Fawcett's sliding threshold the tangential impulse is less than the
     * Coulomb bound μ J_n = 2 μ m v_n (partial slip). */
    cr_expect(vt - c.vt > 0.0 && vt - c.vt < 2.0 * MU * vn * 0.999,
              "Δv_t %.6g outside (0, 2 μ v_n = %.6g)", vt - c.vt, 2.0 * MU * vn);
}

Test(rest, static_overlap_is_hertz)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    wf_add_plane(&w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1));
    wf_add_sphere(&w, ldem_vec3_make(0, 0, R), R, ldem_vec3_zero());
    w.gravity = ldem_vec3_make(0, 0, -9.81);
    w.damping_local = 0.5;
    w.dt = 2e-7;
    w.skin = 0.1 * R;
    prepare(&w);
    run(&w, 40000);
    double m = sphere_mass(R);
    /* m g = (4/3) E* √R δ^{3/2}, sphere on a plane of its own material */
    double expect = pow(m * 9.81 / (4.0 / 3.0 * estar() * sqrt(R)), 2.0 / 3.0);
    double overlap = R - w.bodies.x[0].z;
    cr_expect(fabs(overlap / expect - 1.0) < 1e-4, "overlap %.9g, Hertz %.9g", overlap, expect);
    cr_expect(fabs(w.bodies.v[0].z) < 1e-6, "still moving: %g m/s", w.bodies.v[0].z);
    ldem_world_free(&w);
}

/* A pair inside the skin but apart is a separated candidate: its steps keep only the gap
 * (contact_forces.h, ldem__keep_gap, whichever path takes it). The gap must reach the law: the step in
 * which the pair first touches counts only the in-contact fraction f = d1/(d1 − d0) of its
 * slide (docs/jager.md §7, first touch inside a step). Over that part the overlap and the
 * slide grow together from zero with no slip, so Mindlin–Deresiewicz's dT = 8 G* a dδ·(s/δ1)
 * integrates to T = (16/3) G* √(R* δ1) f s. Without the gap the law takes all the slide: T
 * three times larger here. */
Test(first_touch, separated_candidate_counts_only_the_in_contact_slide)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    double gap = 0.02 * R, overlap = 0.01 * R, vt = 0.05;
    double vn = (gap + overlap) / w.dt; /* closes the gap and overlaps within one step */
    wf_add_sphere(&w, ldem_vec3_zero(), R, ldem_vec3_zero());
    wf_add_sphere(&w, ldem_vec3_make(2.0 * R + gap, 0, 0), R, ldem_vec3_make(-vn, vt, 0));
    w.skin = 0.1 * R;
    prepare(&w);
    cr_assert_eq(w.ncontacts, 1, "the pair is a candidate");
    const ldem_contact *c = &w.contacts[0];
    double d0 = 2.0 * R - ldem_vec3_dist(w.bodies.x[0], w.bodies.x[1]);
    cr_expect(c->overlap == d0 && JAGER_STATE(c).d == d0,
              "gap kept %.17g, law's %.17g, geometry %.17g", c->overlap, JAGER_STATE(c).d,
              d0);
    ldem_vec3 x1_before = w.bodies.x[1];
    run(&w, 1);
    double d1 = 2.0 * R - ldem_vec3_dist(w.bodies.x[0], w.bodies.x[1]);
    cr_assert(d1 > 0.0 && c->overlap == d1, "touching: overlap %.9g, geometry %.9g",
              c->overlap, d1);
    /* The slide over the step: j's move (i is still at rest, nothing spins yet) across the
     * line of centres at the end of the step, which the slide itself tilts by 2.5e-6 rad:
     * that turns 1.5 % of the approach into slide. */
    ldem_vec3 du = ldem_vec3_sub(w.bodies.x[1], x1_before);
    ldem_vec3 n = ldem_vec3_normalize(ldem_vec3_sub(w.bodies.x[1], w.bodies.x[0]));
    double slide = ldem_vec3_norm(ldem_vec3_reject(du, n)), f = d1 / (d1 - d0);
    double gstar = E / (2.0 * (1.0 + NU)) / (2.0 * (2.0 - NU)), rstar = 0.5 * R;
    double expect = 16.0 / 3.0 * gstar * sqrt(rstar * d1) * f * slide;
    double t = ldem_vec3_norm(c->ft);
    cr_expect(fabs(t / expect - 1.0) < 1e-9,
              "tangential force %.12g N, Mindlin-Deresiewicz on the in-contact slide %.12g N "
              "(on all of it: %.12g N)", t, expect, expect / f);
    ldem_world_free(&w);
}

/* Move the pair rigidly: rotate by `rot` about `centre`, then translate by `shift`. */
static void rigid_move(ldem_world *w, ldem_quat rot, ldem_vec3 centre, ldem_vec3 shift)
{
    ldem_bodies *b = &w->bodies;
    memcpy(b->x_prev, b->x, b->count * sizeof *b->x);
    memcpy(b->q_prev, b->q, b->count * sizeof *b->q);
    for (size_t i = 0; i < b->count; i++) {
        ldem_vec3 r = ldem_vec3_sub(b->x[i], centre);
        b->x[i] = ldem_vec3_add(ldem_vec3_add(centre, ldem_quat_rotate(rot, r)), shift);
        b->q[i] = ldem_quat_normalize(ldem_quat_mul(rot, b->q[i]));
        w->work->dq[i] = ldem_quat_mul(b->q[i], ldem_quat_conj(b->q_prev[i]));
    }
}

Test(objectivity, sheared_pair_tumbling_keeps_its_force)
{
    for (int law = LDEM_LAW_HERTZ_JAGER; law <= LDEM_LAW_HERTZ_MINDLIN; law++) {
        ldem_world w;
        wf_world(&w, law);
        double d0 = 1e-6;
        wf_add_sphere(&w, ldem_vec3_make(0, 0, 0), R, ldem_vec3_zero());
        wf_add_sphere(&w, ldem_vec3_make(2 * R - d0, 0, 0), R, ldem_vec3_zero());
        w.skin = 0.1 * R;
        prepare(&w);
        ldem_err err;
        /* shear j along y by a fraction of the slip distance μκδ, then along z */
        ldem_quat none = ldem_quat_identity();
        rigid_move(&w, none, ldem_vec3_zero(), ldem_vec3_zero());
        w.bodies.x[1].y += 0.2 * MU * d0;
        w.bodies.x[1].z -= 0.1 * MU * d0;
        cr_assert_eq(ldem_contacts_update(&w, &err), LDEM_OK, "%s", err.msg);
        ldem_contact c0 = w.contacts[0];
        cr_assert(ldem_vec3_norm(c0.ft) > 0.01 * ldem_vec3_norm(c0.fn), "no shear force");
        /* tumble: 600 steps of 0.01 rad (6 rad in all) about a tilted axis, with a drift. A
         * first-order twirl (eq. 17) would lag by θ³/12 a step and turn the tangential force
         * by ~1e-6 of N here; the round-off of moving the positions is ~1e-10 of N. */
        ldem_quat step = ldem_quat_from_axis_angle(ldem_vec3_make(0.3, 1.0, 0.7), 1e-2);
        ldem_quat total = none;
        for (int k = 0; k < 600; k++) {
            ldem_vec3 centre = ldem_vec3_scale(ldem_vec3_add(w.bodies.x[0], w.bodies.x[1]), 0.5);
            rigid_move(&w, step, centre, ldem_vec3_make(1e-6, 0, 0));
            total = ldem_quat_normalize(ldem_quat_mul(step, total));
            cr_assert_eq(ldem_contacts_update(&w, &err), LDEM_OK, "%s", err.msg);
        }
        const ldem_contact *c = &w.contacts[0];
        ldem_vec3 fn_expect = ldem_quat_rotate(total, c0.fn);
        ldem_vec3 ft_expect = ldem_quat_rotate(total, c0.ft);
        double scale = ldem_vec3_norm(c0.fn);
        cr_expect(ldem_vec3_dist(c->fn, fn_expect) < 1e-8 * scale, "law %d: normal force off by %.3g",
                  law, ldem_vec3_dist(c->fn, fn_expect) / scale);
        cr_expect(ldem_vec3_dist(c->ft, ft_expect) < 1e-8 * scale,
                  "law %d: tangential force off by %.3g of N", law,
                  ldem_vec3_dist(c->ft, ft_expect) / scale);
        ldem_world_free(&w);
    }
}

/* A cloud of spheres in a cube of walls-free space, moving randomly and colliding. */
static void cloud(ldem_world *w, int law, int threads)
{
    wf_world(w, law);
    unsigned s = 12345u;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 6; k++) {
                double jitter[6];
                for (int q = 0; q < 6; q++) {
                    s = s * 1103515245u + 12345u;
                    jitter[q] = ((s >> 8) & 0xffff) / 65535.0 - 0.5;
                }
                double r = R * (0.9 + 0.2 * (jitter[0] + 0.5));
                uint32_t b = wf_add_sphere(
                    w, ldem_vec3_make(2.05 * R * i + 0.1 * R * jitter[1], 2.05 * R * j,
                                      2.05 * R * k + 0.1 * R * jitter[2]),
                    r, ldem_vec3_make(0.5 * jitter[3], 0.5 * jitter[4], 0.5 * jitter[5]));
                w->bodies.L[b] = ldem_vec3_scale(w->bodies.inertia[b],
                                                 400.0 * (jitter[1] - jitter[2]));
            }
    w->dt = 2e-8;
    w->skin = 0.1 * R;
    w->threads = threads;
}

static ldem_vec3 momentum(const ldem_world *w)
{
    ldem_vec3 p = ldem_vec3_zero();
    for (size_t i = 0; i < w->bodies.count; i++)
        p = ldem_vec3_axpy(w->bodies.mass[i], w->bodies.v[i], p);
    return p;
}

static ldem_vec3 angular_momentum(const ldem_world *w)
{
    ldem_vec3 l = ldem_vec3_zero();
    const ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++) {
        l = ldem_vec3_add(l, ldem_vec3_cross(b->x[i], ldem_vec3_scale(b->v[i], b->mass[i])));
        l = ldem_vec3_add(l, ldem_quat_rotate(b->q[i], b->L[i]));
    }
    return l;
}

Test(conservation, momentum_of_a_colliding_cloud)
{
    ldem_world w;
    cloud(&w, LDEM_LAW_HERTZ_JAGER, 1);
    prepare(&w);
    ldem_vec3 p0 = momentum(&w), l0 = angular_momentum(&w);
    double pscale = 0.0, lscale = 0.0;
    for (size_t i = 0; i < w.bodies.count; i++) {
        pscale += w.bodies.mass[i] * ldem_vec3_norm(w.bodies.v[i]);
        lscale += ldem_vec3_norm(ldem_vec3_cross(w.bodies.x[i],
                                                 ldem_vec3_scale(w.bodies.v[i], w.bodies.mass[i]))) +
                  ldem_vec3_norm(w.bodies.L[i]);
    }
    run(&w, 3000);
    ldem_probe_row row;
    ldem_world_measure(&w, &row);
    cr_assert(row.contacts > 0 || w.list_builds > 1, "nothing happened");
    cr_expect(ldem_vec3_dist(momentum(&w), p0) < 1e-13 * pscale, "momentum changed by %.3g",
              ldem_vec3_dist(momentum(&w), p0) / pscale);
    cr_expect(ldem_vec3_dist(angular_momentum(&w), l0) < 1e-11 * lscale,
              "angular momentum changed by %.3g", ldem_vec3_dist(angular_momentum(&w), l0) / lscale);
    ldem_world_free(&w);
}

Test(determinism, one_and_two_threads_bitwise)
{
    ldem_world a, b;
    cloud(&a, LDEM_LAW_HERTZ_JAGER, 1);
    cloud(&b, LDEM_LAW_HERTZ_JAGER, 2);
    a.gravity = b.gravity = ldem_vec3_make(0, 0, -9.81);
    prepare(&a);
    prepare(&b);
    run(&a, 2000);
    run(&b, 2000);
    size_t n = a.bodies.count;
    cr_expect(memcmp(a.bodies.x, b.bodies.x, n * sizeof *a.bodies.x) == 0, "positions differ");
    cr_expect(memcmp(a.bodies.v, b.bodies.v, n * sizeof *a.bodies.v) == 0, "velocities differ");
    cr_expect(memcmp(a.bodies.q, b.bodies.q, n * sizeof *a.bodies.q) == 0, "orientations differ");
    cr_expect(memcmp(a.bodies.L, b.bodies.L, n * sizeof *a.bodies.L) == 0, "spins differ");
    cr_assert_eq(a.ncontacts, b.ncontacts);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

Test(rest, linear_node_law_static_overlap)
{
    /* Kawamoto's node penalty on an analytic sphere acts as one node: kn δ = m g. */
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    wf_add_plane(&w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1));
    wf_add_sphere(&w, ldem_vec3_make(0, 0, R), R, ldem_vec3_make(1e-3, 0, 0));
    w.gravity = ldem_vec3_make(0, 0, -9.81);
    w.damping_local = 0.5;
    w.dt = 2e-7;
    w.skin = 0.1 * R;
    prepare(&w);
    run(&w, 20000);
    double expect = sphere_mass(R) * 9.81 / w.laws[0].p[LDEM_LINEAR_P_KN];
    double overlap = R - w.bodies.x[0].z;
    cr_expect(fabs(overlap / expect - 1.0) < 1e-4, "overlap %.9g, m g / kn %.9g", overlap, expect);
    cr_expect(w.ncontacts == 1 && w.contacts[0].nsprings == 1, "one node spring expected");
    ldem_world_free(&w);
}
