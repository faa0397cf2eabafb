/* contact_forces.c — one contact's update (contact_forces.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact_forces.h"
#include "contact_geometry.h"
#include "ldem/contact/frame.h"

static void set_forces(const ldem_world *w, ldem_contact *c, const image_offset *off,
                       ldem_vec3 fn, ldem_vec3 ft, ldem_vec3 at)
{
    ldem_vec3 f = ldem_vec3_add(fn, ft);
    c->fn = fn;
    c->ft = ft;
    c->torque_i = ldem_vec3_cross(ldem_vec3_sub(at, w->bodies.x[c->i]), ldem_vec3_neg(f));
    c->torque_j = (c->j & LDEM_WALL_BIT)
                      ? ldem_vec3_zero()
                      : ldem_vec3_cross(ldem_vec3_sub(at, ldem_vec3_add(w->bodies.x[c->j],
                                                                        off->now)),
                                        f);
}

static void clear_forces(ldem_contact *c)
{
    c->fn = c->ft = c->torque_i = c->torque_j = ldem_vec3_zero();
    c->stored_normal = c->kn = 0.0;
}

/* The Hertz laws' normal damping (ldem_hertz_damping; tests/sim/test_contact_damping.c
 * measures the restitution it gives), from the contact's c->kn and the law's N, at the
 * approach rate ldem__approach_rate gives. Its work goes to c->dissipated; never negative,
 * since the force has the sign of the rate or is capped while separating. */
static double normal_damping(const ldem_world *w, ldem_contact *c, double zeta, double normal,
                             double rate)
{
    double f = ldem_hertz_damping_from(c->kn, normal, ldem__effective_mass(w, c), zeta, rate);
    c->dissipated += f * rate * w->dt;
    return f;
}

/* ldem__patch_law_step, and the patch's geometry recorded in the contact. */
int ldem__patch_law(ldem_world *w, ldem_contact *c, const ldem_patch *p, const double ds[2],
                    double *normal, double t[2])
{
    int rc = ldem__patch_law_step(w, c, p->overlap, ds, normal, t);
    ldem__record_patch(c, p);
    return rc;
}

/* The forces of a Hertz contact after its law's step: N along n (with the normal damping,
 * which the tangential laws do not see), and the tangential force opposing j's slide over i
 * (du: j's material point's move against i's). The laws' N is Hertz's cn d√d to the bit, so
 * the damping's cap takes it rather than a square root again. */
void ldem__patch_forces(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, ldem_vec3 du, double normal, const double t[2])
{
    const ldem_pair_law *law = &w->laws[c->law];
    double d1 = p->overlap;
    if (d1 <= 0.0) {
        clear_forces(c);
        return;
    }
    ldem_vec3 n = p->normal;
    const ldem_law_ops *ops = law->ops;
    c->kn = ops->normal_stiffness ? ops->normal_stiffness(law, &c->pair, d1)
                                  : ldem_hertz_stiffness(&c->pair, d1);
    double minus_t[2] = {-t[0], -t[1]};
    double damped = 0.0;
    if (law->damping > 0.0 && w->dt > 0.0) {
        ldem_vec3 xj = (c->j & LDEM_WALL_BIT) ? ldem_vec3_zero()
                                              : ldem_vec3_add(w->bodies.x[c->j], off->now);
        double rate = ldem__approach_rate(w, c, du, n, p->point, w->bodies.x[c->i], xj);
        damped = normal_damping(w, c, law->damping, normal, rate);
    }
    set_forces(w, c, off, ldem_vec3_scale(n, normal + damped),
               ldem_contact_from_frame(c->frame, minus_t, 0.0), p->point);
    c->stored_normal = ops->normal_energy ? ops->normal_energy(law, d1, normal)
                                          : 0.4 * normal * d1;
}

/* A PATCH law's contact: its step on the patch's overlap and the tangential move in the
 * contact frame, then the forces. */
int ldem__patch_contact(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, const ldem_quat *dq)
{
    double d1 = p->overlap;
    int was_touching = c->overlap > 0.0;
    if (d1 <= 0.0 && !was_touching) {
        ldem__keep_gap(w, c, d1);
        return LDEM_OK;
    }
    if (ldem__hertz_pair_update(w, c, p))
        return LDEM_ERR_INTERNAL;
    ldem_vec3 du = ldem_vec3_sub(ldem__party_step(w, c->j, p->point, off),
                                 ldem__material_step(w, c->i, p->point, &LDEM__NO_OFFSET));
    if (!was_touching) {
        c->frame = ldem_contact_frame_init(p->normal);
    } else {
        ldem_quat dqj = (c->j & LDEM_WALL_BIT) ? ldem_quat_identity() : dq[c->j];
        c->frame = ldem_contact_frame_follow_exact(c->frame, dq[c->i], dqj, p->normal);
    }
    double ds[2], normal, t[2];
    ldem_contact_to_frame(c->frame, du, ds);
    int rc = ldem__patch_law(w, c, p, ds, &normal, t);
    ldem__patch_forces(w, c, off, p, du, normal, t);
    return rc;
}

/* Find the spring of `key` in the sorted old springs starting at *pos. */
static const ldem_node_spring *spring_find(const ldem_node_spring *old, uint32_t n, uint32_t *pos,
                                           uint32_t key)
{
    while (*pos < n && old[*pos].key < key)
        (*pos)++;
    return *pos < n && old[*pos].key == key ? &old[*pos] : NULL;
}

/* A NODES law's contact: every penetrating node is its own spring pair. Analytic pairs act as
 * a single node at the contact point. */
static int node_contact(ldem_world *w, ldem_contact *c, const image_offset *off, ldem_hits *h,
                        const ldem_patch *p, ldem_vec3 *phi)
{
    const ldem_pair_law *law = &w->laws[c->law];
    const ldem_law_ops *ops = law->ops;
    if (p->nnodes == 0 && h->count == 0 && p->overlap > 0.0) {
        if (h->capacity < 1) {
            ldem_node_hit *hit = realloc(h->hit, 8 * sizeof *hit);
            if (!hit)
                return LDEM_ERR_NOMEM;
            h->hit = hit;
            h->capacity = 8;
        }
        h->hit[0] = (ldem_node_hit){0, p->overlap, 0.0, p->point, p->normal};
        h->count = 1;
    }
    ldem_node_spring *springs = NULL;
    if (h->count) {
        springs = malloc(h->count * sizeof *springs);
        if (!springs)
            return LDEM_ERR_NOMEM;
    }
    ldem_vec3 fn = ldem_vec3_zero(), ft = ldem_vec3_zero();
    ldem_vec3 ti = ldem_vec3_zero(), tj = ldem_vec3_zero();
    ldem_vec3 xj = (c->j & LDEM_WALL_BIT) ? ldem_vec3_zero()
                                          : ldem_vec3_add(w->bodies.x[c->j], off->now);
    double stored = 0.0, deepest = 0.0;
    uint32_t pos = 0;
    int wall = (c->j & LDEM_WALL_BIT) != 0;
    for (size_t k = 0; k < h->count; k++) {
        const ldem_node_hit *hit = &h->hit[k];
        const ldem_node_spring *old = spring_find(c->springs, c->nsprings, &pos, hit->key);
        springs[k].key = hit->key;
        for (int a = 0; a < 3; a++)
            springs[k].xi[a] = old ? old->xi[a] : 0.0;
        ldem_vec3 du = ldem_vec3_sub(ldem__party_step(w, c->j, hit->point, off),
                                     ldem__material_step(w, c->i, hit->point, &LDEM__NO_OFFSET));
        ldem_vec3 f_n, f_t;
        ldem_vec3 f = ops->node_force(law, hit->depth, hit->normal, du, springs[k].xi,
                                      &c->dissipated, &f_n, &f_t);
        if (c->gen)
            ldem__project_hit(w, c, off->now, hit, f, phi, c->gen);
        fn = ldem_vec3_add(fn, f_n);
        ft = ldem_vec3_add(ft, f_t);
        ti = ldem_vec3_add(ti, ldem_vec3_cross(ldem_vec3_sub(hit->point, w->bodies.x[c->i]),
                                               ldem_vec3_neg(f)));
        if (!wall)
            tj = ldem_vec3_add(tj, ldem_vec3_cross(ldem_vec3_sub(hit->point, xj), f));
        stored += ops->node_energy(law, hit->depth);
        if (hit->depth > deepest)
            deepest = hit->depth;
    }
    free(c->springs);
    c->springs = springs;
    c->nsprings = c->springs_capacity = (uint32_t)h->count;
    c->overlap = h->count ? (p->overlap > 0.0 ? p->overlap : deepest) : p->overlap;
    c->normal = p->normal;
    c->point = p->point;
    c->npatch = (uint32_t)h->count;
    c->fn = fn;
    c->ft = ft;
    c->torque_i = ti;
    c->torque_j = tj;
    c->stored_normal = stored;
    c->kn = ops->node_stiffness(law) * (c->nsprings ? c->nsprings : 1);
    return LDEM_OK;
}

/* Two rigid spheres under a law with Hertz's normal force: the pair the shortcuts below
 * (which compute Hertz's stiffness and energy themselves) take, apart
 * (sphere_pair_stays_apart) or touching (update_held). A deformable party is left to
 * contact_update, which zeroes its generalized forces every step (gen_prepare). Nothing it
 * reads changes while the pair is a candidate, so each list build records it in the contact
 * (ldem_contacts_classify) instead of every step reading the bodies' kinds and modes again. */
static int rigid_hertz_sphere_pair(const ldem_world *w, const ldem_contact *c)
{
    const ldem_bodies *b = &w->bodies;
    return !(c->j & LDEM_WALL_BIT) && b->kind[c->i] == LDEM_SHAPE_SPHERE &&
           b->kind[c->j] == LDEM_SHAPE_SPHERE && ldem_law_hertz_normal(w->laws[c->law].ops) &&
           !ldem_world_body_modes(w, c->i) && !ldem_world_body_modes(w, c->j);
}

void ldem_contacts_classify(ldem_world *w)
{
    for (size_t c = 0; c < w->ncontacts; c++)
        w->contacts[c].rigid_spheres = (uint8_t)rigid_hertz_sphere_pair(w, &w->contacts[c]);
}

int ldem__contact_update(ldem_world *w, ldem_contact *c, const image_offset *off, ldem_hits *h,
                         const ldem_quat *dq, ldem_vec3 *phi, ldem_err *err)
{
    ldem_patch p; /* every geometry fills it whole, or fails and it is not read */
    int rc = ldem__contact_geometry(w, c, off, h, &p, err);
    if (!rc && (rc = ldem__gen_prepare(w, c)))
        return ldem_err_set(err, rc, NULL, 0, "out of memory for generalized forces");
    if (rc)
        return rc;
    if (w->laws[c->law].ops->kind == LDEM_LAW_NODES)
        return node_contact(w, c, off, h, &p, phi);
    rc = ldem__patch_contact(w, c, off, &p, dq);
    if (!rc && c->gen && c->overlap > 0.0)
        ldem__project_patch(w, c, off->now, h, phi);
    return rc;
}

void ldem__add_to_sums(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                       ldem_contact_sums *sums)
{
    /* a pair whose first body is a ghost is its owner's to count (docs/mpi.md) */
    if (!ldem_contact_touching(c) || (c->j & LDEM_WALL_BIT) ||
        (w->bodies.flags[c->i] & LDEM_BODY_GHOST))
        return;
    ldem_vec3 f = ldem_vec3_add(c->fn, c->ft);
    ldem_vec3 l = ldem_vec3_sub(ldem_vec3_add(w->bodies.x[c->j], off->now), w->bodies.x[c->i]);
    double fa[3] = {f.x, f.y, f.z}, la[3] = {l.x, l.y, l.z};
    ldem__sums_body(sums, c->i);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            sums->partial[3 * a + b] += fa[a] * la[b];
    double kn = c->kn; /* dN/dδ its update left (a NODES law's: Σ over its springs) */
    double nl[3] = {c->normal.x * la[0], c->normal.y * la[1], c->normal.z * la[2]};
    for (int a = 0; a < 3; a++)
        sums->partial[9 + a] += kn * nl[a] * nl[a];
}
