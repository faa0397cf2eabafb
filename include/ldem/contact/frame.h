/* ldem/contact/frame.h — contact frames carried by quaternions (Kuhn §3.2, eqs. 12–20).
 *
 * A contact's frame is a unit quaternion q whose local z axis is the contact normal; the
 * tangential laws work with the local x, y components. Each step, before the law runs, the
 * frame follows the rigid rotation of the pair: a twirl about the normal (the mean spin of the
 * two bodies about it, eq. 13) and a tilt of the normal (eqs. 14–15). The tangential move and
 * the previous force are then expressed in the frame (eqs. 18–19) and the new force rotated
 * back (eq. 20). A glued pair that tumbles therefore carries its force along (objectivity).
 *
 * The history stack never leaves the frame, so it needs no rotation.
 *
 * Kuhn's literal first-order update (eqs. 12–17: ldem_contact_twirl, _tilt_spheres,
 * _frame_rotate, _frame_follow) is not part of the library; the tests keep it in
 * tests/support/contact_frame_kuhn.h to compare against.
 *
 * A caution for the DEM step that feeds these functions: Kuhn's eq. 9 with linear lever arms
 * (Δθ × r) is objective only to first order. Under a rigid tumble it leaves a sideways
 * contact translation of about ½ θ_t (θ·n) r per step, which over a few radians of twirl and
 * tumble in 1e-3 rad steps adds up to many slip distances (test_contact_frame measures 11
 * s_max). Move the lever arms by the bodies' actual finite rotations (R r − r) instead; a rigid
 * motion then gives zero translation to round-off.
 */
#ifndef LDEM_CONTACT_FRAME_H
#define LDEM_CONTACT_FRAME_H

#include "ldem/export.h"

#include "ldem/quat.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eq. 16: the frame of a new contact with normal n (local z ↦ n). */
LDEM_API ldem_quat ldem_contact_frame_init(ldem_vec3 n);

/* The current normal (local z axis) of a frame. */
LDEM_API ldem_vec3 ldem_contact_frame_normal(ldem_quat q);

/* The twist of a rotation dq about the unit axis n is (w, (v·n) n) normalized, w ≥ 0: a
 * rotation about n, kept here as its unit 2-vector (cos, sin) of the half angle. A zero
 * 2-vector (a half turn about an axis normal to n) gives the identity, as
 * ldem_quat_normalize does. */
static inline void ldem__contact_twist_about(ldem_quat dq, ldem_vec3 n, double half[2])
{
    double along = dq.x * n.x + dq.y * n.y + dq.z * n.z;
    double c = dq.w < 0 ? -dq.w : dq.w, s = dq.w < 0 ? -along : along;
    double r = sqrt(c * c + s * s);
    half[0] = r > 0.0 ? c / r : 1.0;
    half[1] = r > 0.0 ? s / r : 0.0;
}

/* The frame update of the DEM step (Kuhn's eqs. 12–17, exact rather than first order): the
 * new normal n_new comes from the narrow phase, and the bodies' rotation increments are given
 * as unit quaternions dq_i, dq_j (each q_now ⊗ q_prevᵀ; identity for a wall). Each increment is
 * split into its
 * twist about the old normal and a swing (the swing–twist decomposition), the frame turns by
 * the mean of the two twists and then by the shortest rotation onto n_new. For a rigidly
 * moving pair this is exactly the pair's rotation, whatever its size (the first-order twirl
 * of eq. 17 lags by θ³/12 a step), so a tumbling glued contact carries its force along to
 * round-off.
 *
 * Defined here, inline: it runs for every touching contact every step, and as a call it would
 * take its three quaternions through memory and keep the contact loop from scheduling across
 * it. */
static inline ldem_quat ldem_contact_frame_follow_exact(ldem_quat q, ldem_quat dq_i,
                                                        ldem_quat dq_j, ldem_vec3 n_new)
{
    /* Every square root and division here lies on the contact's critical path (the step
     * cannot overlap one contact's chain with the next's), so none is spent on what is
     * unit to round-off already: the narrow phase's normal, and the product below. */
    ldem_vec3 n0 = ldem_contact_frame_normal(q);
    double nn = ldem_vec3_norm2(n_new);
    ldem_vec3 n1 = fabs(nn - 1.0) <= 4e-15 ? n_new : ldem_vec3_normalize(n_new);
    double ti[2], tj[2];
    ldem__contact_twist_about(dq_i, n0, ti);
    ldem__contact_twist_about(dq_j, n0, tj);
    /* Mean of two rotations about one axis: the normalized sum halves the angle between them
     * exactly (both have w ≥ 0, so they are on the same side). */
    double c = ti[0] + tj[0], s = ti[1] + tj[1], r = sqrt(c * c + s * s);
    if (r > 0.0) {
        c /= r;
        s /= r;
    } else {
        c = 1.0;
        s = 0.0;
    }
    ldem_quat twist = ldem_quat_make(c, s * n0.x, s * n0.y, s * n0.z);
    ldem_vec3 axis = ldem_vec3_cross(n0, n1);
    double cosine = ldem_vec3_dot(n0, n1);
    ldem_quat swing = ldem_quat_normalize(ldem_quat_make(1 + cosine, axis.x, axis.y, axis.z));
    /* a product of unit quaternions: one Newton step (Katz) restores the norm to round-off */
    return ldem_quat_renormalize(ldem_quat_mul(swing, ldem_quat_mul(twist, q)),
                                 LDEM_QUAT_RENORM_KATZ);
}

/* Eqs. 18–19: global vector → tangential components (x, y) in the frame. */
LDEM_API void ldem_contact_to_frame(ldem_quat q, ldem_vec3 v_global, double t[2]);
/* Eq. 20: tangential components in the frame plus a normal component → global vector. */
LDEM_API ldem_vec3 ldem_contact_from_frame(ldem_quat q, const double t[2], double normal);

#ifdef __cplusplus
}
#endif
#endif
