/* contact_loop.h — private to runtime/sim: every contact's update each step (contact_loop.c),
 * and the AVX2 lanes it hands touching rigid sphere pairs to (sphere_quads.c). */
#ifndef LDEM_SIM_CONTACT_LOOP_H
#define LDEM_SIM_CONTACT_LOOP_H

#include "contact_kinematics.h"
#include "step_work.h"

/* Kinematics and laws of every candidate (parallel over shards), storing each contact's force
 * and torques, and in a periodic cell each shard's ldem_contact_sums. */
int ldem_contacts_update(ldem_world *w, ldem_err *err);
/* ldem_contacts_update, then every contact's force and torques added onto its bodies and wall
 * in list order (bitwise the same sums for any thread count). On one thread both happen in
 * the same pass over the list, which then streams through memory once instead of twice. The
 * caller has set the bodies' forces and torques to their non-contact part and the walls'
 * forces to zero. */
int ldem_contacts_update_and_sum(ldem_world *w, ldem_err *err);

/* sphere_quads.c (AVX2; only where ldem_cpu_lanes() says 4): four touching rigid sphere
 * pairs at once (sphere_lanes_update.inc), and their stress sums into `sums` unless NULL; on
 * failure *failed is the lane that failed. */
int ldem__update_sphere_quads(ldem_world *w, ldem_contact *const c[4], const image_offset off[4],
                              ldem_contact_sums *sums, int *failed);

#endif
