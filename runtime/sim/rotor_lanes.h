/* rotor_lanes.h — the first half step of free spheres, several bodies at once (integrate.c,
 * rotor_quads.c).
 *
 * Each body's half kick, x drift and rotor drift is a short chain of dependent divisions, a
 * square root and quaternion products (ldem_rotor_drift's isotropic branch): the out-of-order
 * core barely overlaps one body's chain with the next one's. Here LDEM__LANES bodies (2:
 * SSE2, the x86-64 baseline; 4: AVX2 in rotor_quads.c, chosen at run time) run in the lanes
 * of one vector register, with sphere_lanes.h's types. Every lane operation is the scalar
 * path's (ldem_kick, ldem_vec3_axpy, is_isotropic, axis_rate, ldem_quat_exp's series branch,
 * ldem_quat_mul, ldem_quat_normalize) in the same order, branches turned into lane selects:
 * packed arithmetic rounds as scalar does and no FMA is formed (C11: -ffp-contract=off), so
 * each lane is that path's result to the bit. A lane the kernel does not cover — a fixed body,
 * an anisotropic one, or a turn too large for ldem_quat_exp's series — is stored by the
 * scalar path instead (ldem__first_half_body): the bodies are independent, so which ones run
 * together changes nothing. tests/sim/test_integrate.c checks it at both widths.
 *
 * Internal to runtime/sim. A file defines LDEM__LANES (2 if it does not) before including it.
 */
#ifndef LDEM_SIM_ROTOR_LANES_H
#define LDEM_SIM_ROTOR_LANES_H

#include "integrate_lanes.h"
#include "ldem/sim/world.h"
#include "sphere_lanes.h"

static inline ldem__vl ldem__vl_max(ldem__vl a, ldem__vl b) /* is_isotropic's max2 */
{
    return ldem__vl_select(a > b, a, b);
}

static inline ldem__vl ldem__vl_min(ldem__vl a, ldem__vl b) /* is_isotropic's min2 */
{
    return ldem__vl_select(a < b, a, b);
}

/* Bodies i … i + LDEM__LANES − 1 (all < a->n) through their first half step. */
static inline void ldem__first_half_lanes(const ldem__first_half_args *a, size_t i)
{
    enum { W = LDEM__LANES };
    const ldem__vl dt = ldem__vl_splat(a->dt), h = ldem__vl_splat(0.5 * a->dt);
    ldem__v3l v = ldem__v3l_gather(a->v + i), L = ldem__v3l_gather(a->L_b + i);
    ldem__v3l x = ldem__v3l_gather(a->x + i), I = ldem__v3l_gather(a->inertia + i);
    ldem__v3l F = ldem__v3l_gather(a->force + i), tau = ldem__v3l_gather(a->torque + i);
    ldem__ql q = ldem__ql_gather(a->q + i);

    /* ldem_kick: v += (h m⁻¹) F; L_b += h Rᵀ τ. Then x += dt v. */
    ldem__vl hm = h * ldem__vl_gather(a->inv_mass + i);
    v = (ldem__v3l){hm * F.x + v.x, hm * F.y + v.y, hm * F.z + v.z};
    ldem__v3l t = ldem__ql_rotate_inv(q, tau);
    L = (ldem__v3l){h * t.x + L.x, h * t.y + L.y, h * t.z + L.z};
    x = (ldem__v3l){dt * v.x + x.x, dt * v.y + x.y, dt * v.z + x.z};

    /* ldem_rotor_drift's isotropic branch: q ← q exp(dt L_b/I), I the mean moment. */
    ldem__vl hi = ldem__vl_max(I.x, ldem__vl_max(I.y, I.z));
    ldem__vl lo = ldem__vl_min(I.x, ldem__vl_min(I.y, I.z));
    ldem__ml isotropic = hi - lo <= LDEM__ISOTROPIC_RTOL * hi;
    ldem__vl mean = (I.x + I.y + I.z) / 3.0;
    ldem__vl rate = ldem__vl_select(mean > 0.0, 1.0 / mean, ldem__vl_splat(0.0)); /* axis_rate */
    ldem__v3l th = {dt * (rate * L.x), dt * (rate * L.y), dt * (rate * L.z)};
    ldem__vl a2 = th.x * th.x + th.y * th.y + th.z * th.z;
    ldem__ml series = a2 < LDEM_QUAT_EXP_SERIES * LDEM_QUAT_EXP_SERIES; /* ldem_quat_exp's */
    ldem__vl c = 1.0 - a2 / 8.0, s_over_a = 0.5 - a2 / 48.0;
    q = ldem__ql_mul(q, (ldem__ql){c, s_over_a * th.x, s_over_a * th.y, s_over_a * th.z});

    /* ldem_quat_normalize: 1/|q| times q, the identity for a zero q */
    const ldem__vl one = ldem__vl_splat(1.0), zero = ldem__vl_splat(0.0);
    ldem__vl norm = ldem__vl_sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    ldem__ml unit = norm > 0.0;
    ldem__vl inv = 1.0 / norm;
    q = (ldem__ql){ldem__vl_select(unit, inv * q.w, one), ldem__vl_select(unit, inv * q.x, zero),
                   ldem__vl_select(unit, inv * q.y, zero), ldem__vl_select(unit, inv * q.z, zero)};

    ldem__ml ours = isotropic & series;
    for (int l = 0; l < W; l++) {
        if (ours[l] && !(a->flags[i + l] & LDEM_BODY_FIXED)) {
            a->v[i + l] = ldem__v3l_lane(v, l);
            a->L_b[i + l] = ldem__v3l_lane(L, l);
            a->x[i + l] = ldem__v3l_lane(x, l);
            a->q[i + l] = ldem__ql_lane(q, l);
        } else {
            ldem__first_half_body(a, i + l);
        }
    }
}

#endif
