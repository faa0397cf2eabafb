/* contact_forces.h — private to runtime/sim: one contact's update (contact_forces.c): its law
 * applied to its geometry and kinematics, the forces and torques it stores. PATCH laws run on
 * the contact patch in the contact frame, NODES laws on each penetrating node
 * (ldem/contact/law.h); the contact loop (contact_loop.c) and the sphere lanes call these. */
#ifndef LDEM_SIM_CONTACT_FORCES_H
#define LDEM_SIM_CONTACT_FORCES_H

#include "contact_kinematics.h"
#include "step_work.h"
#include "ldem/contact/hertz.h"
#include "ldem/contact/law.h"
#include "ldem/sim/narrowphase.h"

/* The Hertz constants for the patch's radii, when they changed (on separation the old ones
 * serve the law's clearing step). */
static inline int ldem__hertz_pair_update(const ldem_world *w, ldem_contact *c,
                                          const ldem_patch *p)
{
    if (p->overlap > 0.0 && (p->r1 != c->r1 || p->r2 != c->r2)) {
        const ldem_elastic_mix *e = &w->laws[c->law].elastic;
        if (ldem_elastic_pair_init_moduli(&c->pair, e->E, e->nu, &e->moduli, p->r1, p->r2, NULL))
            return LDEM_ERR_INTERNAL;
        c->r1 = p->r1;
        c->r2 = p->r2;
    }
    return LDEM_OK;
}

/* What a contact's law is given besides its parameters and state. */
static inline ldem_law_env ldem__law_env(ldem_world *w, ldem_contact *c)
{
    return (ldem_law_env){&c->pair, &w->pools[c->shard], w->track_energy};
}

/* The law's step of a PATCH contact whose frame is up to date (ds: the tangential move of
 * j's material point against i's, in the frame, d1 the new overlap): N and the tangential
 * force T in the frame. Inline, for the lanes' loop over their contacts. */
static inline int ldem__patch_law_step(ldem_world *w, ldem_contact *c, double d1,
                                       const double ds[2], double *normal, double t[2])
{
    const ldem_pair_law *law = &w->laws[c->law];
    ldem_law_env env = ldem__law_env(w, c);
    return law->ops->step(law, &env, c->law_state, d1, ds, normal, t);
}

/* The patch's geometry recorded in the contact, after its law's step. */
static inline void ldem__record_patch(ldem_contact *c, const ldem_patch *p)
{
    c->overlap = p->overlap;
    c->normal = p->normal;
    c->point = p->point;
    c->npatch = p->nnodes;
}

/* A PATCH pair still apart keeps only its gap (≤ 0), so that a first touch inside the next
 * step counts only its in-contact fraction of the tangential move. Its forces are zero
 * already (cleared when it separated). */
static inline void ldem__keep_gap(ldem_world *w, ldem_contact *c, double gap)
{
    c->overlap = gap;
    w->laws[c->law].ops->keep_gap(c->law_state, gap);
}

/* A separated sphere pair under a Hertz law that is still apart: all its step does is
 * keep_gap. The arithmetic is ldem_sphere_sphere's and ldem__patch_contact's, bit for bit; what it
 * saves is the rest of the patch, the dispatch and the sums, on a third of the candidates of
 * a dense packing. Returns 0, having changed nothing, for every other pair. */
static inline int ldem__sphere_pair_stays_apart(ldem_world *w, ldem_contact *c, const image_offset *off)
{
    const ldem_bodies *b = &w->bodies;
    if (c->overlap > 0.0 || !c->rigid_spheres)
        return 0;
    ldem_vec3 d = ldem_vec3_sub(ldem_vec3_add(b->x[c->j], off->now), b->x[c->i]);
    double gap = b->radius[c->i] + b->radius[c->j] - ldem_vec3_norm(d);
    if (!(gap <= 0.0))
        return 0;
    ldem__keep_gap(w, c, gap);
    return 1;
}

/* ldem__patch_law_step, and ldem__record_patch. */
int ldem__patch_law(ldem_world *w, ldem_contact *c, const ldem_patch *p, const double ds[2],
                    double *normal, double t[2]);
/* The forces of a PATCH contact after its law's step: N along n with the normal damping, and
 * the tangential force opposing j's slide over i (du: j's material point's move against
 * i's). */
void ldem__patch_forces(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, ldem_vec3 du, double normal, const double t[2]);
/* A PATCH law's contact: the frame carried, the law's step, the forces. */
int ldem__patch_contact(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, const ldem_quat *dq);
/* One contact's whole update: geometry, generalized-force room, its law (`off`: where j's
 * image sits, found once for the update and the sums; h, phi: the thread's scratch). */
int ldem__contact_update(ldem_world *w, ldem_contact *c, const image_offset *off, ldem_hits *h,
                         const ldem_quat *dq, ldem_vec3 *phi, ldem_err *err);
/* A touching body pair's f ⊗ ℓ (force on j, branch vector from i to j's image) and its
 * stiffness terms, added to its shard's sums. */
void ldem__add_to_sums(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                       ldem_contact_sums *sums);
/* Record in each candidate whether the sphere shortcuts take it (rigid_spheres), after a
 * refresh or a restore. */
void ldem_contacts_classify(ldem_world *w);

#endif
