/* Kuhn's literal frame update (Kuhn §3.2, eqs. 12–17), kept for the tests only.
 *
 * The library carries a contact frame with ldem_contact_frame_follow_exact
 * (ldem/contact/frame.h): the bodies' finite rotation increments and the narrow phase's new
 * normal, exact for a rigidly moving pair. Kuhn's own first-order update — a twirl about the
 * normal from the mean spin (eq. 13), a tilt of the normal from the centre displacements
 * (eqs. 14–15), and q ← Δq ⊗ q with Δq = (1, Δθ/2) (eqs. 12, 17) — and the intermediate
 * variant that takes the new normal exactly but the twirl to first order are no longer called
 * by the runtime. test_contact_frame still checks them, and compares the exact update with
 * them, so they live here. The names keep their ldem_ prefix so the tests read as before. */
#ifndef LDEM_TEST_CONTACT_FRAME_KUHN_H
#define LDEM_TEST_CONTACT_FRAME_KUHN_H

#include "ldem/contact/frame.h"
#include "ldem/quat.h"
#include "ldem/vec3.h"

/* Eq. 13: the twirl angle about n, half the sum of the two bodies' rotation increments
 * projected on the normal. */
double ldem_contact_twirl(ldem_vec3 n, ldem_vec3 dtheta_i, ldem_vec3 dtheta_j);

/* Eqs. 14–15 for two spheres: the tilt of the normal, Δθ = n × (Δx_j − Δx_i)/(r_i + r_j), from
 * the centre displacements and the radii of curvature (r_i + r_j is the centre distance). */
ldem_vec3 ldem_contact_tilt_spheres(ldem_vec3 n, ldem_vec3 dx_i, ldem_vec3 dx_j, double r_i,
                                    double r_j);

/* Eqs. 12 and 17: q ← Δq ⊗ q with Δq = (1, Δθ/2), Δθ = twirl·n + tilt, then renormalize by
 * `mode` (exact, or Katz: one Newton step, no square root). */
ldem_quat ldem_contact_frame_rotate(ldem_quat q, double twirl, ldem_vec3 tilt,
                                    enum ldem_quat_renorm mode);

/* The same rotation when the new normal is known exactly (e.g. from the narrow phase): the
 * twirl about the old normal (first order, like eq. 17: by 2·atan(twirl/2)), then the shortest
 * rotation taking the old normal onto n_new (exact).
 * The frame's z axis then equals n_new (to round-off) so errors do not accumulate. */
ldem_quat ldem_contact_frame_follow(ldem_quat q, double twirl, ldem_vec3 n_new,
                                    enum ldem_quat_renorm mode);

#endif
