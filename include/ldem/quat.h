/* ldem/quat.h — rotation quaternions, and the contact-frame quaternions of Kuhn §3.2.
 *
 * Convention: q = (w, x, y, z) = w + x i + y j + z k, Hamilton product (i j = k), and the
 * *active* rotation v' = q v q*. A body or contact orientation q maps local (body or contact
 * frame) components to global ones: v_global = q v_local q*, so v_local = q* v_global q.
 * Composition reads right to left like matrices: rotating by p ⊗ q rotates by q, then by p.
 *
 * Contact frames (Kuhn, "Implementation of the Jäger contact model for DEM", eqs. 16–20):
 * the contact normal is the local z-axis (axis 3); the tangential plane is spanned by the
 * local x and y axes, in which the Jäger algorithm works with two-component vectors.
 *
 * All functions are pure and infallible; the small ones the contact loop calls per step are
 * static inline.
 */
#ifndef LDEM_QUAT_H
#define LDEM_QUAT_H

#include "ldem/export.h"

#include <math.h>

#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_quat {
    double w, x, y, z;
} ldem_quat;

/* 3×3 matrix, row-major: m[i][j] is row i, column j. A struct so it passes by value. */
typedef struct ldem_mat3 {
    double m[3][3];
} ldem_mat3;

/* How ldem_quat_increment() restores |q| = 1 after the first-order update (Kuhn §3.2). */
enum ldem_quat_renorm {
    LDEM_QUAT_RENORM_NONE,   /* keep the drifting norm: |q| grows by √(1+|dθ|²/4) a step */
    LDEM_QUAT_RENORM_EXACT,  /* q/|q| */
    LDEM_QUAT_RENORM_KATZ    /* q·(3 − q·q)/2: one Newton step for 1/√(q·q), no sqrt/divide */
};

static inline ldem_quat ldem_quat_make(double w, double x, double y, double z)
{
    ldem_quat q = {w, x, y, z};
    return q;
}
static inline ldem_quat ldem_quat_identity(void)
{
    return ldem_quat_make(1.0, 0.0, 0.0, 0.0);
}

/* Hamilton product p ⊗ q. */
static inline ldem_quat ldem_quat_mul(ldem_quat p, ldem_quat q)
{
    return ldem_quat_make(p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
                          p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
                          p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
                          p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w);
}
/* q* = (w, −x, −y, −z); the inverse of a unit quaternion. */
static inline ldem_quat ldem_quat_conj(ldem_quat q)
{
    return ldem_quat_make(q.w, -q.x, -q.y, -q.z);
}
static inline double ldem_quat_dot(ldem_quat p, ldem_quat q)
{
    return p.w * q.w + p.x * q.x + p.y * q.y + p.z * q.z;
}
static inline double ldem_quat_norm(ldem_quat q)
{
    return sqrt(ldem_quat_dot(q, q));
}

/* q/|q|; the zero quaternion maps to the identity (no rotation rather than NaN). */
static inline ldem_quat ldem_quat_normalize(ldem_quat q)
{
    double n = ldem_quat_norm(q);
    if (!(n > 0.0))
        return ldem_quat_identity();
    double s = 1.0 / n;
    return ldem_quat_make(s * q.w, s * q.x, s * q.y, s * q.z);
}

/* q v q*: local → global for an orientation q. q must be unit. */
static inline ldem_vec3 ldem_quat_rotate(ldem_quat q, ldem_vec3 v)
{
    ldem_vec3 u = ldem_vec3_make(q.x, q.y, q.z);
    ldem_vec3 t = ldem_vec3_scale(ldem_vec3_cross(u, v), 2.0);
    return ldem_vec3_add(ldem_vec3_axpy(q.w, t, v), ldem_vec3_cross(u, t));
}
/* q* v q, the inverse rotation: global → local. q must be unit. */
static inline ldem_vec3 ldem_quat_rotate_inv(ldem_quat q, ldem_vec3 v)
{
    return ldem_quat_rotate(ldem_quat_conj(q), v);
}

/* The rotation matrix R with R v = q v q*. q must be unit. */
LDEM_API ldem_mat3 ldem_quat_to_mat3(ldem_quat q);
/* The unit quaternion of a rotation matrix (Shepperd's method: the largest of the four
 * diagonal combinations is the pivot, so no branch divides by a small number). The result
 * has w ≥ 0 up to the sign ambiguity of a rotation by exactly π. */
LDEM_API ldem_quat ldem_quat_from_mat3(ldem_mat3 r);
/* R v. */
LDEM_API ldem_vec3 ldem_mat3_apply(ldem_mat3 r, ldem_vec3 v);

/* Rotation by `angle` radians about `axis` (need not be unit; a zero axis gives identity). */
LDEM_API ldem_quat ldem_quat_from_axis_angle(ldem_vec3 axis, double angle);
/* The exact exponential map of a rotation vector θ (rotation by |θ| about θ/|θ|):
 * (cos(|θ|/2), sin(|θ|/2) θ/|θ|), with a Taylor series for tiny |θ|. Always unit. */
LDEM_API ldem_quat ldem_quat_exp(ldem_vec3 theta);
/* Below this |θ| ldem_quat_exp takes the two-term series of cos(|θ|/2) and sin(|θ|/2)/|θ|,
 * exact to rounding: the first omitted terms are |θ|⁴/384 and |θ|⁴/3840 ≤ 2.6e-19, below
 * half an ulp of 1. (The integrator's lanes take the same branch by it.) */
#define LDEM_QUAT_EXP_SERIES 1e-4
/* The rotation vector of a unit quaternion (inverse of ldem_quat_exp, angle in [0, π]). */
LDEM_API ldem_vec3 ldem_quat_log(ldem_quat q);
/* The angle in [0, π] of the rotation p* ⊗ q that takes p to q (p, q unit; q and −q equal). */
LDEM_API double ldem_quat_angle_between(ldem_quat p, ldem_quat q);

/* Restore the unit norm by `mode` (NONE returns q unchanged). */
LDEM_API ldem_quat ldem_quat_renormalize(ldem_quat q, enum ldem_quat_renorm mode);

/* Kuhn eq. 17: advance a contact frame by the small incremental rotation dθ (global
 * components, eq. 12) of one time step: q ← Δq ⊗ q with the first-order, non-unit
 * Δq = (1, dθ/2), then renormalize by `mode`. Cheaper than ldem_quat_exp (no trig); after
 * renormalization each step rotates by 2·atan(|dθ|/2) = |dθ| − |dθ|³/12 + … about dθ. */
LDEM_API ldem_quat ldem_quat_increment(ldem_quat q, ldem_vec3 dtheta, enum ldem_quat_renorm mode);

/* Kuhn eq. 16: the initial frame of a contact with normal n (need not be unit; zero gives
 * the identity). With the Euler (spherical) angles of n, polar θ from +z and azimuth φ,
 * q = Rz(φ) ⊗ Ry(θ): local z ↦ n, local x ↦ e_θ, local y ↦ e_φ. At the poles n = ±z the
 * azimuth is taken as φ = 0, so n = +z gives the identity and n = −z the half turn about y. */
LDEM_API ldem_quat ldem_quat_contact_frame(ldem_vec3 n);

/* Kuhn eqs. 18–19: global components → contact frame, q* v q. */
LDEM_API ldem_vec3 ldem_quat_to_contact(ldem_quat q, ldem_vec3 v_global);
/* Kuhn eq. 20: contact frame → global components, q v q*. */
LDEM_API ldem_vec3 ldem_quat_from_contact(ldem_quat q, ldem_vec3 v_local);

#ifdef __cplusplus
}
#endif
#endif
