/* contact_kinematics.c — the approach rate of a contact's surfaces (contact_kinematics.h). */
#include "contact_kinematics.h"

/* What the finite turn of body i over the step (material_step's r − dq⁻¹ r) lacks to be the
 * material point's velocity times dt, θ × r (θ = log dq): the chord of a turning point bends
 * towards the centre by |r|(1 − cos θ), which is not an approach of the surfaces. */
static ldem_vec3 turn_to_velocity(const ldem_world *w, uint32_t i, ldem_vec3 r)
{
    ldem_quat dq = w->work->dq[i];
    ldem_vec3 chord = ldem_vec3_sub(r, ldem_quat_rotate_inv(dq, r));
    return ldem_vec3_sub(ldem_vec3_cross(ldem_quat_log(dq), r), chord);
}

double ldem__approach_rate(const ldem_world *w, const ldem_contact *c, ldem_vec3 du,
                           ldem_vec3 n, ldem_vec3 at, ldem_vec3 xi, ldem_vec3 xj)
{
    ldem_vec3 d = ldem_vec3_sub(du, turn_to_velocity(w, c->i, ldem_vec3_sub(at, xi)));
    if (!(c->j & LDEM_WALL_BIT))
        d = ldem_vec3_add(d, turn_to_velocity(w, c->j, ldem_vec3_sub(at, xj)));
    return -ldem_vec3_dot(d, n) / w->dt;
}
