/* Kuhn's literal frame update, moved out of libldem for the tests (contact_frame_kuhn.h). */
#include "support/contact_frame_kuhn.h"

#include <math.h>

double ldem_contact_twirl(ldem_vec3 n, ldem_vec3 dtheta_i, ldem_vec3 dtheta_j)
{
    return 0.5 * ldem_vec3_dot(n, ldem_vec3_add(dtheta_i, dtheta_j));
}

ldem_vec3 ldem_contact_tilt_spheres(ldem_vec3 n, ldem_vec3 dx_i, ldem_vec3 dx_j, double r_i,
                                    double r_j)
{
    return ldem_vec3_scale(ldem_vec3_cross(n, ldem_vec3_sub(dx_j, dx_i)), 1.0 / (r_i + r_j));
}

ldem_quat ldem_contact_frame_rotate(ldem_quat q, double twirl, ldem_vec3 tilt,
                                    enum ldem_quat_renorm mode)
{
    ldem_vec3 n = ldem_contact_frame_normal(q);
    return ldem_quat_increment(q, ldem_vec3_add(ldem_vec3_scale(n, twirl), tilt), mode);
}

ldem_quat ldem_contact_frame_follow(ldem_quat q, double twirl, ldem_vec3 n_new,
                                    enum ldem_quat_renorm mode)
{
    ldem_vec3 n0 = ldem_contact_frame_normal(q);
    ldem_vec3 n1 = ldem_vec3_normalize(n_new);
    /* Twirl about the old normal, first order as in eq. 17. */
    ldem_quat twirled = ldem_quat_mul(ldem_quat_make(1, 0.5 * twirl * n0.x, 0.5 * twirl * n0.y,
                                                     0.5 * twirl * n0.z),
                                      q);
    /* The shortest rotation n0 → n1 is (1 + n0·n1, n0 × n1) up to its norm: exact, no trig.
     * For n1 = −n0 it degenerates; a contact normal never flips within one step. */
    ldem_vec3 axis = ldem_vec3_cross(n0, n1);
    double cosine = ldem_vec3_dot(n0, n1);
    ldem_quat tilt = ldem_quat_normalize(ldem_quat_make(1 + cosine, axis.x, axis.y, axis.z));
    ldem_quat r = ldem_quat_mul(tilt, twirled);
    return ldem_quat_renormalize(r, mode);
}
