/* contact_kinematics.h — private to runtime/sim: where a contact's parties are and how their
 * material points moved over the step (contact_kinematics.c), for the contact forces and the
 * sphere lanes.
 *
 * Kinematics (why finite, not linearized): the tangential move of a contact is the
 * displacement of its two material points over the step, each moved by its body's actual
 * rotation R_prev R_nowᵀ plus translation. A rigid tumble of a glued pair then gives zero
 * relative displacement to round-off, which Kuhn's linear lever arms (Δθ × r) do not
 * (ldem/contact/frame.h). */
#ifndef LDEM_SIM_CONTACT_KINEMATICS_H
#define LDEM_SIM_CONTACT_KINEMATICS_H

#include "ldem/sim/world.h"
#include "modal.h"
#include "step_work.h"

/* Where a contact's second body is seen from the first: its periodic image's offset h n
 * now and h_prev n at the previous evaluation (zero in open space and within the cell). */
typedef struct image_offset {
    ldem_vec3 now, prev;
} image_offset;

static const image_offset LDEM__NO_OFFSET = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};


/* Where j's image sits for contact c (zero outside a periodic cell's images). */
static inline image_offset ldem__partner_offset(const ldem_world *w, const ldem_contact *c)
{
    if (!c->image[0] && !c->image[1] && !c->image[2])
        return LDEM__NO_OFFSET;
    int32_t n[3] = {c->image[0], c->image[1], c->image[2]};
    image_offset o = {ldem_cell_offset(&w->cell.h, n), ldem_cell_offset(&w->cell.h_prev, n)};
    return o;
}

/* Displacement over the step of the material point of body i (its image shifted by `off`)
 * now at `at`: its lever arm r is turned back by the body's rotation over the step,
 * dq = q q_prevᵀ (one rotation). Inline (the modal part is not), since it runs twice for
 * every touching contact. */
static inline ldem_vec3 ldem__material_step(const ldem_world *w, uint32_t i, ldem_vec3 at,
                                      const image_offset *off)
{
    const ldem_bodies *b = &w->bodies;
    ldem_vec3 x = ldem_vec3_add(b->x[i], off->now), x_prev = ldem_vec3_add(b->x_prev[i], off->prev);
    ldem_vec3 r = ldem_vec3_sub(at, x);
    ldem_vec3 r_prev = ldem_quat_rotate_inv(w->work->dq[i], r);
    ldem_vec3 step = ldem_vec3_sub(at, ldem_vec3_add(x_prev, r_prev));
    const ldem_modeset *ms = ldem_world_body_modes(w, i);
    return ms ? ldem_vec3_add(step, ldem__modal_step(w, ms, i, r)) : step;
}

/* The step's move of the second party's material point at `at`: a wall's displacement, or
 * the body's material_step. */
static inline ldem_vec3 ldem__party_step(const ldem_world *w, uint32_t j, ldem_vec3 at,
                            const image_offset *off)
{
    if (j & LDEM_WALL_BIT) {
        const ldem_wall *wl = &w->walls[j & ~LDEM_WALL_BIT];
        return ldem_vec3_sub(wl->disp, wl->disp_prev);
    }
    return ldem__material_step(w, j, at, off);
}

/* The pair's mass for the normal damping: m_i m_j / (m_i + m_j), a wall or a fixed body
 * counting as infinitely heavy. A deformable grain counts with its rigid mass: its modes
 * take part through the material points' velocity (material_step), not through m*. */
static inline double ldem__effective_mass(const ldem_world *w, const ldem_contact *c)
{
    const ldem_bodies *b = &w->bodies;
    int fixed_i = (b->flags[c->i] & LDEM_BODY_FIXED) != 0;
    int fixed_j = (c->j & LDEM_WALL_BIT) || (b->flags[c->j] & LDEM_BODY_FIXED);
    if (fixed_i)
        return fixed_j ? 0.0 : b->mass[c->j];
    if (fixed_j)
        return b->mass[c->i];
    return b->mass[c->i] * b->mass[c->j] / (b->mass[c->i] + b->mass[c->j]);
}

/* The rate at which the surfaces approach at `at` along n, the normal damping's: the normal
 * relative velocity of the two material points there, (v_j + ω_j × r_j − v_i − ω_i × r_i)·n
 * plus the deformation rate, from the step's material-point move du (contact_kinematics.h's
 * material_step) with each body's finite turn replaced by θ × r (θ = log dq). From du alone a
 * grain that only spins would seem to approach at |r| ω² dt/2. xi, xj: the centres (j's at
 * its image; ignored for a wall). One function for the scalar path and the lanes. */
double ldem__approach_rate(const ldem_world *w, const ldem_contact *c, ldem_vec3 du,
                           ldem_vec3 n, ldem_vec3 at, ldem_vec3 xi, ldem_vec3 xj);
#endif
