/* Unit tests of ldem/quat.h: rotation identities on random samples, the exponential map,
 * Shepperd's matrix conversion, and Kuhn's contact-frame update (§3.2, eqs. 16–20). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "ldem/quat.h"

#define NSAMPLES 2000
#define PI 3.14159265358979323846 /* M_PI is not ISO C */

/* splitmix64: a fixed-seed generator of our own, so every run and platform sees the same
 * samples (rand() differs between C libraries). */
#include "support/test_rng.h"

/* A uniformly distributed direction (rejection from the cube keeps it isotropic). */
static ldem_vec3 random_unit_vec(void)
{
    for (;;) {
        ldem_vec3 v = ldem_vec3_make(uniform(), uniform(), uniform());
        double n2 = ldem_vec3_norm2(v);
        if (n2 > 1e-4 && n2 <= 1.0)
            return ldem_vec3_scale(v, 1.0 / sqrt(n2));
    }
}

/* A uniformly distributed rotation (Haar measure: uniform on the 3-sphere). */
static ldem_quat random_unit_quat(void)
{
    for (;;) {
        ldem_quat q = ldem_quat_make(uniform(), uniform(), uniform(), uniform());
        double n2 = ldem_quat_dot(q, q);
        if (n2 > 1e-4 && n2 <= 1.0)
            return ldem_quat_normalize(q);
    }
}

/* Vectors over several orders of magnitude, to test *relative* accuracy.
 * Tolerances below are a few times the maxima measured over the samples (printed with
 * --verbose): a handful of ulps, since every operation here is a short sum of products. */
static ldem_vec3 random_vec(void)
{
    return ldem_vec3_scale(random_unit_vec(), pow(10.0, 6.0 * uniform()));
}

static double rel_err(ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_dist(a, b) / ldem_vec3_norm(b);
}

static double quat_dist(ldem_quat p, ldem_quat q)
{
    return sqrt(pow(p.w - q.w, 2) + pow(p.x - q.x, 2) + pow(p.y - q.y, 2) + pow(p.z - q.z, 2));
}

/* Distance between quaternions as rotations (q and −q are the same rotation). */
static double rot_dist(ldem_quat p, ldem_quat q)
{
    return fmin(quat_dist(p, q), quat_dist(p, ldem_quat_make(-q.w, -q.x, -q.y, -q.z)));
}

static double det3(ldem_mat3 r)
{
    const double(*m)[3] = (const double(*)[3])r.m;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

static double mat_dist(ldem_mat3 a, ldem_mat3 b)
{
    double d = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(a.m[i][j] - b.m[i][j]));
    return d;
}

Test(quat, hamilton_basis)
{
    ldem_quat i = ldem_quat_make(0, 1, 0, 0), j = ldem_quat_make(0, 0, 1, 0);
    ldem_quat k = ldem_quat_mul(i, j);
    cr_assert(k.w == 0 && k.x == 0 && k.y == 0 && k.z == 1, "i j must be k (Hamilton)");
    ldem_quat m = ldem_quat_mul(j, i);
    cr_assert(m.z == -1, "j i must be -k");
    ldem_quat ii = ldem_quat_mul(i, i);
    cr_assert(ii.w == -1 && ii.x == 0, "i i must be -1");
}

Test(quat, active_rotation_convention)
{
    /* A quarter turn about +z takes x to y (active, right-handed). */
    ldem_quat q = ldem_quat_from_axis_angle(ldem_vec3_make(0, 0, 2), PI / 2);
    ldem_vec3 v = ldem_quat_rotate(q, ldem_vec3_make(1, 0, 0));
    cr_assert_leq(ldem_vec3_dist(v, ldem_vec3_make(0, 1, 0)), 4e-16);
    ldem_vec3 u = ldem_quat_rotate_inv(q, ldem_vec3_make(1, 0, 0));
    cr_assert_leq(ldem_vec3_dist(u, ldem_vec3_make(0, -1, 0)), 4e-16);
    ldem_mat3 r = ldem_quat_to_mat3(q);
    cr_assert_leq(fabs(r.m[1][0] - 1.0), 1e-16, "row-major: R[1][0] = y component of R x");
}

Test(quat, composition_inverse_and_round_trip)
{
    rng_seed(1);
    double comp = 0, inv = 0, back = 0, norm = 0, assoc = 0, conj_rot = 0;
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_quat p = random_unit_quat(), q = random_unit_quat(), r = random_unit_quat();
        ldem_vec3 v = random_vec();
        /* rotating by p ⊗ q is rotating by q, then by p */
        ldem_vec3 a = ldem_quat_rotate(ldem_quat_mul(p, q), v);
        ldem_vec3 b = ldem_quat_rotate(p, ldem_quat_rotate(q, v));
        comp = fmax(comp, rel_err(a, b));
        /* q ⊗ q* = q* ⊗ q = identity */
        inv = fmax(inv, quat_dist(ldem_quat_mul(q, ldem_quat_conj(q)), ldem_quat_identity()));
        inv = fmax(inv, quat_dist(ldem_quat_mul(ldem_quat_conj(q), q), ldem_quat_identity()));
        /* there and back */
        back = fmax(back, rel_err(ldem_quat_rotate_inv(q, ldem_quat_rotate(q, v)), v));
        back = fmax(back, rel_err(ldem_quat_rotate(q, ldem_quat_rotate_inv(q, v)), v));
        /* rotations preserve length */
        norm = fmax(norm, fabs(ldem_vec3_norm(ldem_quat_rotate(q, v)) / ldem_vec3_norm(v) - 1));
        /* (p q) r = p (q r) */
        assoc = fmax(assoc, quat_dist(ldem_quat_mul(ldem_quat_mul(p, q), r),
                                      ldem_quat_mul(p, ldem_quat_mul(q, r))));
        /* rotate_inv is rotation by the conjugate */
        conj_rot = fmax(conj_rot, rel_err(ldem_quat_rotate_inv(q, v),
                                          ldem_quat_rotate(ldem_quat_conj(q), v)));
    }
    cr_log_info("max errors: comp %.2g inv %.2g back %.2g norm %.2g assoc %.2g", comp, inv, back,
                norm, assoc);
    cr_assert_leq(comp, 1e-14, "composition: max rel err %g", comp);
    cr_assert_leq(inv, 2e-15, "q q* = 1: max err %g", inv);
    cr_assert_leq(back, 1e-14, "there and back: max rel err %g", back);
    cr_assert_leq(norm, 1e-14, "norm preservation: max rel err %g", norm);
    cr_assert_leq(assoc, 2e-15, "associativity: max err %g", assoc);
    cr_assert_eq(conj_rot, 0.0, "rotate_inv must equal rotate by conj");
}

Test(quat, rotation_matrix)
{
    rng_seed(2);
    double ortho = 0, det = 0, agree = 0, mqm = 0, qmq = 0;
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_quat q = random_unit_quat();
        ldem_mat3 r = ldem_quat_to_mat3(q);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double rrt = 0;
                for (int k = 0; k < 3; k++)
                    rrt += r.m[i][k] * r.m[j][k];
                ortho = fmax(ortho, fabs(rrt - (i == j)));
            }
        det = fmax(det, fabs(det3(r) - 1));
        ldem_vec3 v = random_vec();
        agree = fmax(agree, rel_err(ldem_mat3_apply(r, v), ldem_quat_rotate(q, v)));
        ldem_quat q2 = ldem_quat_from_mat3(r);
        cr_assert_geq(q2.w, 0.0);
        mqm = fmax(mqm, mat_dist(ldem_quat_to_mat3(q2), r));
        qmq = fmax(qmq, rot_dist(q2, q));
    }
    cr_log_info("max errors: ortho %.2g det %.2g agree %.2g mqm %.2g qmq %.2g", ortho, det,
                agree, mqm, qmq);
    cr_assert_leq(ortho, 4e-15, "R R^T = I: max err %g", ortho);
    cr_assert_leq(det, 4e-15, "det R = 1: max err %g", det);
    cr_assert_leq(agree, 1e-14, "R v = q v q*: max rel err %g", agree);
    cr_assert_leq(mqm, 4e-15, "matrix -> quat -> matrix: max err %g", mqm);
    cr_assert_leq(qmq, 2e-15, "quat -> matrix -> quat: max err %g", qmq);
}

/* Half turns and near half turns make 1 + tr R vanish: the naive w-pivot formula divides by
 * ~0 there, Shepperd's pivot choice must not. */
Test(quat, from_mat3_near_half_turn)
{
    rng_seed(3);
    double worst = 0;
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_vec3 axis = random_unit_vec();
        double angle = PI - pow(10.0, -16.0 * (uniform() + 1.0) / 2.0);
        if (n % 4 == 0)
            angle = PI;
        ldem_quat q = ldem_quat_from_axis_angle(axis, angle);
        ldem_quat q2 = ldem_quat_from_mat3(ldem_quat_to_mat3(q));
        worst = fmax(worst, rot_dist(q2, q));
    }
    cr_log_info("near half turn: max err %.2g", worst);
    cr_assert_leq(worst, 2e-15, "near half turn: max err %g", worst);
    /* The coordinate half turns hit each of the four branches' pivots exactly. */
    const ldem_vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++) {
        ldem_quat q = ldem_quat_from_axis_angle(axes[i], PI);
        cr_assert_leq(rot_dist(ldem_quat_from_mat3(ldem_quat_to_mat3(q)), q), 1e-16);
    }
    ldem_quat id = ldem_quat_from_mat3(ldem_quat_to_mat3(ldem_quat_identity()));
    cr_assert(id.w == 1 && id.x == 0 && id.y == 0 && id.z == 0);
}

Test(quat, exp_map)
{
    rng_seed(4);
    double vs_axis = 0, unit = 0, logexp = 0;
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_vec3 axis = random_unit_vec();
        double angle = 0.5 * PI * (uniform() + 1.0) * 0.999; /* [0, 0.999π) */
        ldem_vec3 theta = ldem_vec3_scale(axis, angle);
        ldem_quat e = ldem_quat_exp(theta);
        vs_axis = fmax(vs_axis, quat_dist(e, ldem_quat_from_axis_angle(axis, angle)));
        unit = fmax(unit, fabs(ldem_quat_norm(e) - 1));
        logexp = fmax(logexp, ldem_vec3_dist(ldem_quat_log(e), theta));
    }
    cr_log_info("max errors: exp vs axis %.2g unit %.2g log %.2g", vs_axis, unit, logexp);
    cr_assert_leq(vs_axis, 2e-15, "exp vs axis-angle: max err %g", vs_axis);
    cr_assert_leq(unit, 1e-15, "|exp| = 1: max err %g", unit);
    cr_assert_leq(logexp, 1e-14, "log(exp(theta)) = theta: max err %g", logexp);

    /* exp of a multiple of a rotation vector is a power: exp(2θ) = exp(θ)². */
    ldem_vec3 th = ldem_vec3_make(0.3, -0.2, 0.7);
    ldem_quat e1 = ldem_quat_exp(th);
    cr_assert_leq(quat_dist(ldem_quat_exp(ldem_vec3_scale(th, 2)), ldem_quat_mul(e1, e1)),
                  1e-15);
}

/* The series branch of exp must join the trigonometric branch seamlessly, and stay exact
 * down to angles where sin(a/2)/a would be 0/0. */
Test(quat, exp_map_tiny_angles)
{
    ldem_vec3 axis = ldem_vec3_normalize(ldem_vec3_make(1, -2, 3));
    for (double a = 1e-3; a > 1e-300; a *= 0.37) {
        ldem_quat e = ldem_quat_exp(ldem_vec3_scale(axis, a));
        /* reference: long double trig, accurate at every scale */
        long double c = cosl(0.5L * a), s = sinl(0.5L * a);
        cr_assert_leq(fabs(e.w - (double)c), 1.2e-16, "a=%g", a);
        cr_assert_leq(fabs(e.x - (double)(s * axis.x)), 3e-16 * (double)s, "a=%g", a);
        cr_assert_leq(fabs(ldem_quat_norm(e) - 1), 2.3e-16, "a=%g", a);
    }
    ldem_quat z = ldem_quat_exp(ldem_vec3_zero());
    cr_assert(z.w == 1 && z.x == 0 && z.y == 0 && z.z == 0);
    cr_assert_eq(ldem_vec3_norm(ldem_quat_log(ldem_quat_identity())), 0.0);
}

Test(quat, normalize_and_degenerate_inputs)
{
    ldem_quat q = ldem_quat_normalize(ldem_quat_make(0, 0, 0, 0));
    cr_assert(q.w == 1 && q.x == 0, "zero quaternion normalizes to the identity");
    q = ldem_quat_normalize(ldem_quat_make(2, 0, 0, 0));
    cr_assert(q.w == 1);
    q = ldem_quat_from_axis_angle(ldem_vec3_zero(), 1.0);
    cr_assert(q.w == 1 && q.x == 0, "zero axis gives the identity");
    /* angle_between treats q and -q alike and sees small angles accurately */
    ldem_quat a = ldem_quat_from_axis_angle(ldem_vec3_make(0, 1, 0), 0.3);
    ldem_quat b = ldem_quat_from_axis_angle(ldem_vec3_make(0, 1, 0), 0.3 + 1e-12);
    cr_assert_leq(fabs(ldem_quat_angle_between(a, b) - 1e-12), 1e-16);
    ldem_quat mb = ldem_quat_make(-b.w, -b.x, -b.y, -b.z);
    cr_assert_leq(fabs(ldem_quat_angle_between(a, mb) - 1e-12), 1e-16);
}

/* ---- Kuhn §3.2: contact frames ---- */

Test(contact_frame, local_z_maps_onto_normal)
{
    rng_seed(5);
    double zerr = 0, orth = 0, back = 0;
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_vec3 nrm = random_unit_vec();
        ldem_quat q = ldem_quat_contact_frame(ldem_vec3_scale(nrm, 1 + 9 * (uniform() + 1)));
        cr_assert_leq(fabs(ldem_quat_norm(q) - 1), 1e-15);
        zerr = fmax(zerr, ldem_vec3_dist(ldem_quat_from_contact(q, ldem_vec3_make(0, 0, 1)), nrm));
        /* the tangential axes lie in the contact plane */
        ldem_vec3 ex = ldem_quat_from_contact(q, ldem_vec3_make(1, 0, 0));
        ldem_vec3 ey = ldem_quat_from_contact(q, ldem_vec3_make(0, 1, 0));
        orth = fmax(orth, fmax(fabs(ldem_vec3_dot(ex, nrm)), fabs(ldem_vec3_dot(ey, nrm))));
        /* eqs. 18–19: the normal itself has contact components (0, 0, 1), and a tangential
         * movement has none along the normal */
        back = fmax(back, ldem_vec3_dist(ldem_quat_to_contact(q, nrm), ldem_vec3_make(0, 0, 1)));
        ldem_vec3 t = ldem_vec3_reject(random_unit_vec(), nrm);
        back = fmax(back, fabs(ldem_quat_to_contact(q, t).z));
        /* eq. 20 undoes eqs. 18–19 */
        ldem_vec3 v = random_vec();
        back = fmax(back, rel_err(ldem_quat_from_contact(q, ldem_quat_to_contact(q, v)), v));
    }
    cr_log_info("max errors: z->n %.2g orth %.2g transforms %.2g", zerr, orth, back);
    cr_assert_leq(zerr, 4e-15, "q z q* = n: max err %g", zerr);
    cr_assert_leq(orth, 4e-15, "tangential axes in the plane: max err %g", orth);
    cr_assert_leq(back, 1e-14, "contact frame transforms: max err %g", back);
}

Test(contact_frame, spherical_unit_vectors)
{
    /* local x ↦ e_θ, local y ↦ e_φ for θ = 60°, φ = 30° */
    double th = PI / 3, ph = PI / 6;
    ldem_vec3 n = ldem_vec3_make(sin(th) * cos(ph), sin(th) * sin(ph), cos(th));
    ldem_quat q = ldem_quat_contact_frame(n);
    ldem_vec3 e_th = ldem_vec3_make(cos(th) * cos(ph), cos(th) * sin(ph), -sin(th));
    ldem_vec3 e_ph = ldem_vec3_make(-sin(ph), cos(ph), 0);
    cr_assert_leq(ldem_vec3_dist(ldem_quat_from_contact(q, ldem_vec3_make(1, 0, 0)), e_th), 1e-15);
    cr_assert_leq(ldem_vec3_dist(ldem_quat_from_contact(q, ldem_vec3_make(0, 1, 0)), e_ph), 1e-15);
}

Test(contact_frame, poles_and_degenerate_normals)
{
    ldem_vec3 up = ldem_vec3_make(0, 0, 1), down = ldem_vec3_make(0, 0, -1);
    ldem_quat q = ldem_quat_contact_frame(up);
    cr_assert(q.w == 1 && q.x == 0 && q.y == 0 && q.z == 0, "n = +z gives the identity");

    q = ldem_quat_contact_frame(down);
    cr_assert_leq(ldem_vec3_dist(ldem_quat_from_contact(q, up), down), 1e-16, "n = -z");
    cr_assert_leq(fabs(ldem_quat_norm(q) - 1), 1e-16);
    /* A signed zero must not change the frame at the pole. */
    ldem_quat q2 = ldem_quat_contact_frame(ldem_vec3_make(-0.0, -0.0, -1));
    cr_assert(q2.w == q.w && q2.x == q.x && q2.y == q.y && q2.z == q.z);
    q2 = ldem_quat_contact_frame(ldem_vec3_make(0, 0, -5));
    cr_assert(q2.w == q.w && q2.x == q.x && q2.y == q.y && q2.z == q.z, "scale-invariant");

    /* Just off the poles the frame is still exact. */
    ldem_vec3 near[4] = {{1e-300, 0, 1}, {0, -1e-17, 1}, {3e-200, 1e-200, -1}, {0, 1e-16, -1}};
    for (int i = 0; i < 4; i++) {
        ldem_vec3 n = ldem_vec3_normalize(near[i]);
        q = ldem_quat_contact_frame(near[i]);
        cr_assert_leq(ldem_vec3_dist(ldem_quat_from_contact(q, up), n), 5e-16, "case %d", i);
    }

    q = ldem_quat_contact_frame(ldem_vec3_zero());
    cr_assert(q.w == 1 && q.x == 0, "no normal: identity rather than NaN");
}

/* ---- Kuhn eq. 17: incremental update and renormalization ---- */

#define NSTEPS 1000000
#define DTHETA 1e-3

static ldem_vec3 random_increment(void)
{
    return ldem_vec3_scale(random_unit_vec(), DTHETA * (0.5 + 0.5 * (uniform() + 1.0)));
}

/* 10^6 steps with |dθ| in [0.5, 1.5]·1e-3 rad under each mode, same increments.
 *
 * NONE: |Δq ⊗ q| = |Δq| |q| exactly, so |q| = Π √(1 + |dθ_k|²/4) ≈ exp(Σ|dθ_k|²/8): with
 *   E|dθ|² = (13/12)·1e-6 that is exp(0.135) ≈ 1.145 — a 14 % stretch that would scale every
 *   force transformed by eqs. 18–20 by |q|² ≈ 1.31. We check it against the product to
 *   1e-9 relative (rounding over 10^6 products) and require a drift > 0.1.
 * EXACT: each step resets |q| to 1 within rounding; measured max ||q|−1| = 3.3e-16, asserted
 *   < 1e-14 (30× margin).
 * KATZ: from |q|² = 1 + ε with ε = |dθ|²/4 ≤ 5.6e-7, one Newton step leaves |q| ≈ 1 − 3ε²/8
 *   ≤ 1.2e-13 below unity; it does not accumulate, because the next step's Newton iteration
 *   pulls any deficit δ back to O(δ²). Measured max ||q|−1| = 1.19e-13, as predicted;
 *   asserted < 1e-12 (8× margin).
 * The rotation itself does not depend on the mode: NONE and KATZ differ from EXACT only by
 *   a positive scale factor each step, so normalize(q_NONE) and normalize(q_KATZ) must equal
 *   q_EXACT to rounding. */
Test(increment, renormalization_drift_after_1e6_steps)
{
    rng_seed(6);
    ldem_quat q0 = random_unit_quat();
    ldem_quat qn = q0, qe = q0, qk = q0;
    double expected_norm = 1.0, max_e = 0, max_k = 0;
    for (long i = 0; i < NSTEPS; i++) {
        ldem_vec3 d = random_increment();
        qn = ldem_quat_increment(qn, d, LDEM_QUAT_RENORM_NONE);
        qe = ldem_quat_increment(qe, d, LDEM_QUAT_RENORM_EXACT);
        qk = ldem_quat_increment(qk, d, LDEM_QUAT_RENORM_KATZ);
        expected_norm *= sqrt(1.0 + 0.25 * ldem_vec3_norm2(d));
        max_e = fmax(max_e, fabs(ldem_quat_norm(qe) - 1));
        max_k = fmax(max_k, fabs(ldem_quat_norm(qk) - 1));
    }
    double drift_n = ldem_quat_norm(qn) - 1;
    cr_log_info("after %d steps of |dθ| ~ %g: |q|-1 NONE %.6g, EXACT max %.3g, KATZ max %.3g",
                NSTEPS, DTHETA, drift_n, max_e, max_k);
    cr_assert_gt(drift_n, 0.1, "NONE must drift visibly (got %g)", drift_n);
    cr_assert_leq(fabs(ldem_quat_norm(qn) / expected_norm - 1), 1e-9,
                  "NONE drift %g vs product of |dq| %g", drift_n, expected_norm - 1);
    cr_assert_leq(max_e, 1e-14, "EXACT: max ||q|-1| = %g", max_e);
    cr_assert_leq(max_k, 1e-12, "KATZ: max ||q|-1| = %g", max_k);
    cr_assert_gt(max_k, max_e, "Katz is an approximation: expected a larger residual");
    double dn = rot_dist(ldem_quat_normalize(qn), qe), dk = rot_dist(ldem_quat_normalize(qk), qe);
    cr_assert_leq(dn, 1e-9, "NONE and EXACT rotate alike: %g", dn);
    cr_assert_leq(dk, 1e-9, "KATZ and EXACT rotate alike: %g", dk);
}

/* About a fixed axis the updates commute, so the result is known in closed form: a
 * renormalized Δq = (1, dθ/2) is the rotation by α = 2·atan(|dθ|/2) (tan(α/2) = |dθ|/2), not
 * by |dθ|. After N steps the frame has turned by N·α, short of N·|dθ| by N·|dθ|³/12
 * ≈ 8.33e-5 rad for N = 10^6, |dθ| = 1e-3. Check both: agreement with exp(N α u) to 1e-11
 * (rounding over 10^6 steps, measured 7e-14) and a deficit against exp(N |dθ| u) equal to
 * the predicted 8.33e-5 to 1 %. */
Test(increment, constant_axis_angle_is_two_atan_half)
{
    ldem_vec3 u = ldem_vec3_normalize(ldem_vec3_make(0.2, -0.5, 0.8));
    ldem_vec3 d = ldem_vec3_scale(u, DTHETA);
    ldem_quat q = ldem_quat_identity();
    for (long i = 0; i < NSTEPS; i++)
        q = ldem_quat_increment(q, d, LDEM_QUAT_RENORM_EXACT);
    double alpha = 2.0 * atan(0.5 * DTHETA);
    ldem_quat expect = ldem_quat_exp(ldem_vec3_scale(u, fmod(NSTEPS * alpha, 4 * PI)));
    double err = ldem_quat_angle_between(q, expect);
    cr_assert_leq(err, 1e-11, "vs N*2atan(|dθ|/2): angle error %g", err);

    ldem_quat naive = ldem_quat_exp(ldem_vec3_scale(u, fmod(NSTEPS * DTHETA, 4 * PI)));
    double deficit = ldem_quat_angle_between(q, naive);
    double predicted = NSTEPS * (DTHETA - alpha); /* = N |dθ|³/12 − … */
    cr_log_info("constant axis: deficit %.6g rad, predicted %.6g rad, error vs 2atan %.3g",
                deficit, predicted, err);
    cr_assert_leq(fabs(deficit - predicted), 0.01 * predicted, "deficit %g, predicted %g",
                  deficit, predicted);
    /* the rotation axis is untouched */
    ldem_vec3 axis = ldem_vec3_normalize(ldem_quat_log(q));
    cr_assert_leq(fmin(ldem_vec3_dist(axis, u), ldem_vec3_dist(axis, ldem_vec3_neg(u))), 1e-9);
}

/* Random axes: compare the EXACT-renormalized update with the product of exact exponential
 * maps exp(dθ_k) ⊗ … ⊗ exp(dθ_1). Step k differs from exp(dθ_k) only in its angle, by
 * |dθ_k| − 2 atan(|dθ_k|/2), and rotations are isometries of the angle metric, so the
 * triangle inequality bounds the final angle error by the sum of those (≈ N E|dθ|³/12
 * ≈ 1.0e-4 rad). The first-order truncation must be that and no worse. (The measured error,
 * 4.6e-8 rad, is far below: with random axes the per-step errors add like a random walk,
 * √N·|dθ|³/12 ≈ 8e-8.) */
Test(increment, random_axes_error_bounded_by_truncation)
{
    rng_seed(7);
    ldem_quat q = ldem_quat_identity(), ref = ldem_quat_identity();
    double bound = 0;
    for (long i = 0; i < NSTEPS; i++) {
        ldem_vec3 d = random_increment();
        double a = ldem_vec3_norm(d);
        q = ldem_quat_increment(q, d, LDEM_QUAT_RENORM_EXACT);
        ref = ldem_quat_normalize(ldem_quat_mul(ldem_quat_exp(d), ref));
        bound += a - 2.0 * atan(0.5 * a);
    }
    double err = ldem_quat_angle_between(q, ref);
    cr_log_info("random axes: angle error %.3g rad, truncation bound %.3g rad", err, bound);
    cr_assert_leq(err, bound + 1e-9, "angle error %g exceeds the truncation bound %g", err,
                  bound);
    cr_assert_gt(err, 0.0, "the first-order update cannot be exact");
}

Test(increment, single_step_matches_exp_to_third_order)
{
    rng_seed(8);
    for (int n = 0; n < NSAMPLES; n++) {
        ldem_quat q = random_unit_quat();
        ldem_vec3 d = ldem_vec3_scale(random_unit_vec(), 1e-2);
        ldem_quat a = ldem_quat_increment(q, d, LDEM_QUAT_RENORM_EXACT);
        ldem_quat b = ldem_quat_mul(ldem_quat_exp(d), q);
        /* angle error |dθ|³/12 = 8.3e-8 for |dθ| = 1e-2 */
        double err = ldem_quat_angle_between(a, b);
        cr_assert_leq(fabs(err - 1e-6 / 12), 1e-6 / 12 * 1e-3 + 1e-15, "err %g", err);
    }
}

Test(increment, renormalize_modes)
{
    ldem_quat q = ldem_quat_make(1.001, 0.002, -0.003, 0.0005);
    ldem_quat n = ldem_quat_renormalize(q, LDEM_QUAT_RENORM_NONE);
    cr_assert(n.w == q.w && n.x == q.x && n.y == q.y && n.z == q.z);
    cr_assert_leq(fabs(ldem_quat_norm(ldem_quat_renormalize(q, LDEM_QUAT_RENORM_EXACT)) - 1),
                  2.3e-16);
    /* Katz: |q|² = 1 + ε → |q| ≈ 1 − 3ε²/8 */
    double eps = ldem_quat_dot(q, q) - 1;
    double k = ldem_quat_norm(ldem_quat_renormalize(q, LDEM_QUAT_RENORM_KATZ));
    cr_assert_leq(fabs((1 - k) - 3 * eps * eps / 8), 0.01 * 3 * eps * eps / 8 + 1e-16,
                  "Katz residual %g, predicted %g", 1 - k, 3 * eps * eps / 8);
}
