/* modal.h — private to runtime/sim: the deformable bodies' modal degrees of freedom
 * (modal.c) and how contacts couple to them (modal_coupling.c, Henzel & Karapiperis eq. 41:
 * a contact's generalized forces, which ldem_modal_reduce sums). */
#ifndef LDEM_SIM_MODAL_H
#define LDEM_SIM_MODAL_H

#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"

/* ε̇ += h M⁻¹ f_total for every deformable body (a half kick, h = dt/2). */
void ldem_modal_kick(ldem_world *w, double h);
/* ε_prev = ε; ε += dt ε̇. */
void ldem_modal_drift(ldem_world *w, double dt);
/* Bounding radii of every deformable body from its current ε: modal.grown, and the tighter
 * radius of its node clusters' radial bounds, whose per-cluster slack goes to the step work
 * (the nodes themselves are deformed where needed: ldem_world_body_node). */
void ldem_modal_deform(ldem_world *w);
/* How far deformable body i's nodes moved at most (from modal.grown). */
double ldem_modal_node_slack(const ldem_modal_state *m, size_t i);
/* After the contact forces: Q = Σ contact gen (list order), F_int(ε), damping C ε̇ (its power
 * booked into work_damping when book_work), f_total = Q − F_int − C ε̇. */
int ldem_modal_reduce(ldem_world *w, int book_work, ldem_err *err);
/* Σ ½ ε̇ᵀMε̇ and Σ U(ε). */
void ldem_modal_energy(const ldem_world *w, double *kinetic, double *elastic);

/* ---- modal_coupling.c ---- */

/* The move over the step of deformable body i's material point at lever arm r (world) from
 * its modes alone: R_prev (u(X, ε) − u(X, ε_prev)), X the point pulled back to its reference
 * position through the modal displacement, as the remap does. */
ldem_vec3 ldem__modal_step(const ldem_world *w, const ldem_modeset *ms, uint32_t i, ldem_vec3 r);
/* Room for contact c's generalized forces when a party is deformable (lazily: contacts
 * restored from a checkpoint start without), zeroed. */
int ldem__gen_prepare(const ldem_world *w, ldem_contact *c);
/* The contact's share of one nodal force f_on_j (on j; i takes −f_on_j) at hit h, projected
 * on the modes of the deformable parties into gen (i's first); j's image at off_j. */
void ldem__project_hit(const ldem_world *w, const ldem_contact *c, ldem_vec3 off_j,
                       const ldem_node_hit *h, ldem_vec3 f_on_j, ldem_vec3 *phi, double *gen);
/* A patch's force on j spread over its penetrating nodes by their weights depth·area (the
 * weights the patch itself was built with), each share projected on the modes. */
void ldem__project_patch(const ldem_world *w, ldem_contact *c, ldem_vec3 off_j,
                         const ldem_hits *h, ldem_vec3 *phi);

#endif
