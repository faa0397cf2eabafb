/* Contact frames carried by quaternions (ldem/contact/frame.h), Kuhn §3.2. */
#include "ldem/contact/frame.h"

#include <math.h>

ldem_quat ldem_contact_frame_init(ldem_vec3 n)
{
    return ldem_quat_contact_frame(n);
}

ldem_vec3 ldem_contact_frame_normal(ldem_quat q)
{
    /* q ez q*: the third column of q's rotation matrix (a third of the work of a rotation) */
    return ldem_vec3_make(2.0 * (q.x * q.z + q.w * q.y), 2.0 * (q.y * q.z - q.w * q.x),
                          1.0 - 2.0 * (q.x * q.x + q.y * q.y));
}

void ldem_contact_to_frame(ldem_quat q, ldem_vec3 v_global, double t[2])
{
    ldem_vec3 v = ldem_quat_to_contact(q, v_global);
    t[0] = v.x;
    t[1] = v.y;
}

ldem_vec3 ldem_contact_from_frame(ldem_quat q, const double t[2], double normal)
{
    return ldem_quat_from_contact(q, ldem_vec3_make(t[0], t[1], normal));
}
