/* integrate.c — kick–drift–kick integration of rigid grains (ldem/sim/integrate.h).
 *
 * Body-frame Euler equations: with L_world = R L_b constant, dL_b/dt = L_b × ω_b and
 * dR/dt = R [ω_b]×, ω_b = L_b / I (componentwise). The drift splits T = Σ L_k²/(2 I_k) into
 * its axis terms; under T_k alone ω_b = (L_k/I_k) e_k is constant, so the flow is exact:
 * L_b turns by −θ about e_k and R by +θ about the body axis e_k (R ← R R_k(θ)), θ = h L_k/I_k.
 * Both turns cancel in R L_b, which is why world L is kept to round-off.
 */
#include "ldem/sim/integrate.h"

#include <math.h>

#include "ldem/sim/world.h"
#include "rotor_lanes.inc" /* two lanes */
#include "ldem/cpu.h"       /* ldem_cpu_lanes */

enum { AXIS_X = 0, AXIS_Y = 1, AXIS_Z = 2 };

static double axis_of(ldem_vec3 v, int k)
{
    return k == AXIS_X ? v.x : k == AXIS_Y ? v.y : v.z;
}

/* ω component about one principal axis; a non-positive moment (invalid input, or a massless
 * fixed body) is treated as "does not rotate" rather than producing inf/NaN. */
static double axis_rate(double L, double I)
{
    return I > 0.0 ? L / I : 0.0;
}

/* The exact flow of T_k = L_k²/(2 I_k) over h: rotate (q, L_b) about body axis k.
 * The L_b turn is written as L + (sin θ · L⊥ − vers θ · L) with vers θ = 1 − cos θ = 2 s²
 * (s = sin θ/2), not with cos θ itself: cos of a small angle carries the same rounding error
 * step after step, which made |L| (and world L) drift linearly in the step count (5e-13 per
 * 10⁵ steps); the versine form leaves only a random walk of round-off. sin θ = 2 s c uses the
 * quaternion's own half-angle pair, so the L_b turn and the q turn are the same rotation. */
static void axis_flow(ldem_quat *q, ldem_vec3 *L, ldem_vec3 inertia, int k, double h)
{
    double theta = h * axis_rate(axis_of(*L, k), axis_of(inertia, k));
    double c = cos(0.5 * theta), s = sin(0.5 * theta);
    double vers_t = 2.0 * s * s, sin_t = 2.0 * s * c;
    ldem_quat turn;
    /* L_b ← R_k(−θ) L_b on the two components a, b orthogonal to e_k, taken in cyclic order
     * (k, a, b): (a, b) ← (a cos θ + b sin θ, −a sin θ + b cos θ). */
    double a, b;
    switch (k) {
    case AXIS_X:
        a = L->y, b = L->z;
        L->y = a + (b * sin_t - a * vers_t);
        L->z = b - (a * sin_t + b * vers_t);
        turn = ldem_quat_make(c, s, 0.0, 0.0);
        break;
    case AXIS_Y:
        a = L->z, b = L->x;
        L->z = a + (b * sin_t - a * vers_t);
        L->x = b - (a * sin_t + b * vers_t);
        turn = ldem_quat_make(c, 0.0, s, 0.0);
        break;
    default:
        a = L->x, b = L->y;
        L->x = a + (b * sin_t - a * vers_t);
        L->y = b - (a * sin_t + b * vers_t);
        turn = ldem_quat_make(c, 0.0, 0.0, s);
        break;
    }
    /* Right multiplication: a rotation about the *body* axis. */
    *q = ldem_quat_mul(*q, turn);
}

/* The largest and smallest moment by plain comparisons, not fmax/fmin: those must return the
 * other operand for a NaN, so GCC calls libm for them, four calls per body per step on the
 * integrator's critical path. For finite moments (and infinities) both give the same two
 * values, hence the same answer (±0 aside, where hi − lo and RTOL·hi are zeros either way).
 * A NaN moment: a comparison with NaN is false, so a > b ? a : b keeps b — a NaN in x or y
 * is dropped (as fmax would), one in z carried into hi and lo, which makes the test false.
 * Either way no NaN reaches q or L_b: judged isotropic, the mean moment is NaN and axis_rate
 * gives 0 (no rotation); otherwise axis_rate gives 0 about the NaN's axis alone.
 * The 2- and 4-lane drift (rotor_lanes.inc) compute this in the same order. */
static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}

static int is_isotropic(ldem_vec3 I)
{
    double hi = max2(I.x, max2(I.y, I.z)), lo = min2(I.x, min2(I.y, I.z));
    return hi - lo <= LDEM__ISOTROPIC_RTOL * hi;
}

void ldem_rotor_drift(ldem_quat *q, ldem_vec3 *L_b, ldem_vec3 inertia, double dt)
{
    if (is_isotropic(inertia)) {
        /* L_b is constant and ω_b = L_b/I, so R(t) = R exp(t[ω_b]×) = exp(t[ω_world]×) R.
         * The body-side form leaves L_b bit for bit untouched and needs no rotation of ω into
         * the world; dividing by one scalar moment keeps the rotation axis exactly along L_b,
         * so R L_b only turns about itself and world L is kept to round-off. */
        double I = (inertia.x + inertia.y + inertia.z) / 3.0;
        ldem_vec3 wb = ldem_vec3_scale(*L_b, axis_rate(1.0, I));
        *q = ldem_quat_mul(*q, ldem_quat_exp(ldem_vec3_scale(wb, dt)));
    } else {
        double h = 0.5 * dt;
        axis_flow(q, L_b, inertia, AXIS_X, h);
        axis_flow(q, L_b, inertia, AXIS_Y, h);
        axis_flow(q, L_b, inertia, AXIS_Z, dt);
        axis_flow(q, L_b, inertia, AXIS_Y, h);
        axis_flow(q, L_b, inertia, AXIS_X, h);
    }
    /* Each factor is unit; this only removes the round-off drift of |q|. */
    *q = ldem_quat_normalize(*q);
}

double ldem_rotor_energy(ldem_vec3 L_b, ldem_vec3 inertia)
{
    return 0.5 * (L_b.x * axis_rate(L_b.x, inertia.x) + L_b.y * axis_rate(L_b.y, inertia.y) +
                  L_b.z * axis_rate(L_b.z, inertia.z));
}

ldem_vec3 ldem_rotor_omega(ldem_quat q, ldem_vec3 L_b, ldem_vec3 inertia)
{
    ldem_vec3 wb = ldem_vec3_make(axis_rate(L_b.x, inertia.x), axis_rate(L_b.y, inertia.y),
                                  axis_rate(L_b.z, inertia.z));
    return ldem_quat_rotate(q, wb);
}

ldem_vec3 ldem_rotor_momentum(ldem_quat q, ldem_vec3 omega, ldem_vec3 inertia)
{
    ldem_vec3 wb = ldem_quat_rotate_inv(q, omega);
    return ldem_vec3_make(inertia.x * wb.x, inertia.y * wb.y, inertia.z * wb.z);
}

void ldem_kick(ldem_vec3 *v, ldem_vec3 *L_b, ldem_quat q, ldem_vec3 force, ldem_vec3 torque,
               double inv_mass, double h)
{
    *v = ldem_vec3_axpy(h * inv_mass, force, *v);
    *L_b = ldem_vec3_axpy(h, ldem_quat_rotate_inv(q, torque), *L_b);
}

/* sign(x) with sign(0) = 0: a component at rest is not damped (YADE's Mathr::Sign). */
static double sign0(double x)
{
    return (double)((x > 0.0) - (x < 0.0));
}

static double damp_component(double f, double v, double alpha)
{
    return f - alpha * fabs(f) * sign0(v);
}

ldem_vec3 ldem_damp_local(ldem_vec3 force, ldem_vec3 velocity, double alpha)
{
    return ldem_vec3_make(damp_component(force.x, velocity.x, alpha),
                          damp_component(force.y, velocity.y, alpha),
                          damp_component(force.z, velocity.z, alpha));
}

double ldem_damp_local_power(ldem_vec3 force, ldem_vec3 velocity, double alpha)
{
    /* −ΔF·v with ΔF_k = −α|F_k| sign(v_k): α Σ |F_k| |v_k|, a sum of non-negative terms. */
    return alpha * (fabs(force.x) * fabs(velocity.x) + fabs(force.y) * fabs(velocity.y) +
                    fabs(force.z) * fabs(velocity.z));
}

void ldem__first_half_body(const ldem__first_half_args *a, size_t i)
{
    if (a->flags[i] & LDEM_BODY_FIXED) {
        a->x[i] = ldem_vec3_axpy(a->dt, a->v[i], a->x[i]);
        return;
    }
    ldem_kick(&a->v[i], &a->L_b[i], a->q[i], a->force[i], a->torque[i], a->inv_mass[i],
              0.5 * a->dt);
    a->x[i] = ldem_vec3_axpy(a->dt, a->v[i], a->x[i]);
    ldem_rotor_drift(&a->q[i], &a->L_b[i], a->inertia[i], a->dt);
}

void ldem__integrate_first_half_lanes(const ldem__first_half_args *a, int lanes)
{
    size_t n = a->n, width = lanes >= 4 ? 4 : lanes >= 2 ? 2 : 1;
#ifndef LDEM_HAVE_QUADS
    if (width == 4)
        width = 2;
#endif
    size_t groups = (n + width - 1) / width;
    /* Each group touches only its own bodies: any schedule gives the same bits. Each thread
     * takes a contiguous run of groups; the last group may be short (pairs, then one). */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= 2048)
#endif
    for (size_t g = 0; g < groups; g++) {
        size_t i = g * width, end = n - i < width ? n : i + width;
#ifdef LDEM_HAVE_QUADS
        if (end - i == 4) {
            ldem__first_half_quads(a, i);
            continue;
        }
#endif
        for (; end - i >= 2 && width >= 2; i += 2)
            ldem__first_half_lanes(a, i);
        for (; i < end; i++)
            ldem__first_half_body(a, i);
    }
}

/* Free spheres go through the lanes (rotor_lanes.inc): each body's turn is a chain of divisions
 * and a square root, and the lanes run two (SSE2) or four (AVX2) bodies' chains side by side. */
void ldem_integrate_first_half(size_t n, const uint32_t *flags, const double *inv_mass,
                               const ldem_vec3 *inertia, ldem_vec3 *x, ldem_vec3 *v,
                               ldem_quat *q, ldem_vec3 *L_b, const ldem_vec3 *force,
                               const ldem_vec3 *torque, double dt)
{
    ldem__first_half_args a = {n, flags, inv_mass, inertia, x, v, q, L_b, force, torque, dt};
    ldem__integrate_first_half_lanes(&a, ldem_cpu_lanes());
}

void ldem_integrate_second_half(size_t n, const uint32_t *flags, const double *inv_mass,
                                ldem_vec3 *v, const ldem_quat *q, ldem_vec3 *L_b,
                                const ldem_vec3 *force, const ldem_vec3 *torque, double dt)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= 2048)
#endif
    for (size_t i = 0; i < n; i++) {
        if (flags[i] & LDEM_BODY_FIXED)
            continue;
        ldem_kick(&v[i], &L_b[i], q[i], force[i], torque[i], inv_mass[i], 0.5 * dt);
    }
}
