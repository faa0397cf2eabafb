/* contacts.c — the contacts' update each step: their geometry, kinematics and laws, and
 * what they add up to (forces on the bodies, the cell's virial). The list they live in is
 * contact_list.c's.
 *
 * Kinematics (why finite, not linearized): the tangential move of a contact is the
 * displacement of its two material points over the step, each moved by its body's actual
 * rotation R_prev R_nowᵀ plus translation. A rigid tumble of a glued pair then gives zero
 * relative displacement to round-off, which Kuhn's linear lever arms (Δθ × r) do not
 * (ldem/contact/frame.h). The frame follows the exact new normal and the mean twirl.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ldem/contact/frame.h"
#include "ldem/contact/hertz.h"
#include "ldem/contact/linear.h"
#include "ldem/sim/narrowphase.h"
#include "sim_internal.h"
#include "sphere_lanes_update.h" /* update_sphere_lanes, two lanes */

/* ---- one contact ---- */

static const image_offset NO_OFFSET = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};

static image_offset partner_offset(const ldem_world *w, const ldem_contact *c)
{
    if (!c->image[0] && !c->image[1] && !c->image[2])
        return NO_OFFSET;
    int32_t n[3] = {c->image[0], c->image[1], c->image[2]};
    image_offset o = {ldem_cell_offset(&w->cell.h, n), ldem_cell_offset(&w->cell.h_prev, n)};
    return o;
}

/* A deformable body's material point X (reference position, found by pulling the current
 * body-frame point back by the modal displacement, as the remap does) also moved by
 * R_prev (u(X, ε) − u(X, ε_prev)) over the step: that move, for the lever arm r. */
static ldem_vec3 modal_step(const ldem_world *w, const ldem_modeset *ms, uint32_t i,
                            ldem_vec3 r)
{
    const ldem_bodies *b = &w->bodies;
    const double *eps = w->modal.eps + b->modal[i], *eps_prev = w->modal.eps_prev + b->modal[i];
    ldem_vec3 p = ldem_quat_rotate_inv(b->q[i], r), u_now, u_prev;
    ldem_vec3 X = ldem_modes_pull_back(ms, eps, p, NULL);
    ldem_modes_displacement(ms, eps, X, &u_now, NULL);
    ldem_modes_displacement(ms, eps_prev, X, &u_prev, NULL);
    return ldem_quat_rotate(b->q_prev[i], ldem_vec3_sub(u_now, u_prev));
}

/* Displacement over the step of the material point of body i (its image shifted by `off`)
 * now at `at`: its lever arm r is turned back by the body's rotation over the step,
 * dq = q q_prevᵀ (one rotation). Inline (the modal part is not), since it runs twice for
 * every touching contact. */
static inline ldem_vec3 material_step(const ldem_world *w, uint32_t i, ldem_vec3 at,
                                      const image_offset *off)
{
    const ldem_bodies *b = &w->bodies;
    ldem_vec3 x = ldem_vec3_add(b->x[i], off->now), x_prev = ldem_vec3_add(b->x_prev[i], off->prev);
    ldem_vec3 r = ldem_vec3_sub(at, x);
    ldem_vec3 r_prev = ldem_quat_rotate_inv(w->work->dq[i], r);
    ldem_vec3 step = ldem_vec3_sub(at, ldem_vec3_add(x_prev, r_prev));
    const ldem_modeset *ms = ldem_world_body_modes(w, i);
    return ms ? ldem_vec3_add(step, modal_step(w, ms, i, r)) : step;
}

static ldem_vec3 party_step(const ldem_world *w, uint32_t j, ldem_vec3 at,
                            const image_offset *off)
{
    if (j & LDEM_WALL_BIT) {
        const ldem_wall *wl = &w->walls[j & ~LDEM_WALL_BIT];
        return ldem_vec3_sub(wl->disp, wl->disp_prev);
    }
    return material_step(w, j, at, off);
}

static ldem_ls_grain ls_grain(const ldem_world *w, uint32_t i, ldem_vec3 off)
{
    const ldem_bodies *b = &w->bodies;
    const ldem_shape *sh = &w->shapes[b->shape[i]];
    ldem_ls_grain g = {.lset = &sh->lset, .nodes = &sh->nodes, .x = ldem_vec3_add(b->x[i], off),
                       .q = b->q[i],
                       .radius = sh->bounding_radius, .size = sh->bounding_radius,
                       .clusters = sh->clusters};
    if (b->modal[i] != LDEM_RIGID) {
        g.radius = b->radius[i]; /* as the deformation moved the surface (ldem_modal_deform) */
        g.size = w->modal.grown[i];
        g.slack = ldem_modal_node_slack(&w->modal, i);
        if (w->work->group_off && w->work->group_off[i] != SIZE_MAX)
            g.group_slack = w->work->group_slack + w->work->group_off[i];
        g.modes = sh->modes;
        g.eps = w->modal.eps + b->modal[i];
        g.family = sh->family;
        g.slopes = sh->lset_slopes;
    }
    return g;
}

/* ---- generalized forces (Henzel eq. 41) ---- */

/* Add the projection of force f (world) acting on body `body` at world point `at` onto its
 * modes: gen[α] += Φα(X) · Rᵀ f, X the material point there. A node of the body itself
 * (node < LDEM_NO_NODES) uses the bundle's exact node values; any other point (a node of
 * the other grain inside this one) is pulled back to its reference position through the
 * modal displacement and Φ is evaluated there. */
static void project_force(const ldem_world *w, uint32_t body, ldem_vec3 off, uint64_t node,
                          ldem_vec3 at, ldem_vec3 f, ldem_vec3 *phi, double *gen)
{
    const ldem_bodies *b = &w->bodies;
    const ldem_modeset *ms = ldem_world_body_modes(w, body);
    ldem_vec3 fb = ldem_quat_rotate_inv(b->q[body], f);
    if (node != LDEM_NO_NODES) {
        for (uint32_t a = 0; a < ms->n; a++) {
            const double *v = ldem_modes_node_value(ms, a, node);
            gen[a] += v[0] * fb.x + v[1] * fb.y + v[2] * fb.z;
        }
        return;
    }
    ldem_vec3 p = ldem_quat_rotate_inv(b->q[body],
                                       ldem_vec3_sub(at, ldem_vec3_add(b->x[body], off)));
    ldem_modes_eval(ms, ldem_modes_pull_back(ms, w->modal.eps + b->modal[body], p, NULL), phi,
                    NULL);
    for (uint32_t a = 0; a < ms->n; a++)
        gen[a] += ldem_vec3_dot(phi[a], fb);
}

/* The contact's share of one nodal force f_on_j (on j; i takes −f_on_j) at hit h. */
static void project_hit(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                        const ldem_node_hit *h, ldem_vec3 f_on_j, ldem_vec3 *phi, double *gen)
{
    uint32_t side = h->key >> 31;
    uint64_t node = h->key & 0x7fffffffu;
    uint32_t ni = 0;
    if (w->bodies.modal[c->i] != LDEM_RIGID) {
        project_force(w, c->i, ldem_vec3_zero(), side == 0 ? node : LDEM_NO_NODES, h->point,
                      ldem_vec3_neg(f_on_j), phi, gen);
        ni = ldem_world_body_modes(w, c->i)->n;
    }
    if (!(c->j & LDEM_WALL_BIT) && w->bodies.modal[c->j] != LDEM_RIGID)
        project_force(w, c->j, off->now, side == 1 ? node : LDEM_NO_NODES, h->point, f_on_j,
                      phi, gen + ni);
}

/* Room for the contact's generalized forces when a party is deformable (lazily: contacts
 * restored from a checkpoint start without), zeroed. */
static int gen_prepare(const ldem_world *w, ldem_contact *c)
{
    uint32_t n = 0;
    const ldem_modeset *mi = ldem_world_body_modes(w, c->i);
    if (mi)
        n += mi->n;
    if (!(c->j & LDEM_WALL_BIT)) {
        const ldem_modeset *mj = ldem_world_body_modes(w, c->j);
        if (mj)
            n += mj->n;
    }
    if (!n)
        return LDEM_OK;
    if (!c->gen) {
        if (!(c->gen = calloc(n, sizeof *c->gen)))
            return LDEM_ERR_NOMEM;
        c->ngen = n;
    }
    memset(c->gen, 0, c->ngen * sizeof *c->gen);
    return LDEM_OK;
}

/* A patch's force F on j spread over its penetrating nodes by their weights depth·area
 * (the weights the patch itself was built with), each share projected on the modes. */
static void project_patch(const ldem_world *w, ldem_contact *c, const image_offset *off,
                          const ldem_hits *h, ldem_vec3 *phi)
{
    ldem_vec3 F = ldem_vec3_add(c->fn, c->ft);
    double total = 0.0;
    for (size_t k = 0; k < h->count; k++)
        total += h->hit[k].depth * h->hit[k].area;
    for (size_t k = 0; k < h->count; k++) {
        double share = total > 0.0 ? h->hit[k].depth * h->hit[k].area / total
                                   : 1.0 / (double)h->count;
        project_hit(w, c, off, &h->hit[k], ldem_vec3_scale(F, share), phi, c->gen);
    }
}

/* Turn hits found with i and j swapped (j's nodes in sphere i) into hits of the pair (i, j):
 * they are nodes of j, so side 1, and their normals point from i to j. */
static void hits_swap_sides(ldem_hits *h)
{
    for (size_t k = 0; k < h->count; k++) {
        h->hit[k].key = (h->hit[k].key & 0x7fffffffu) | 0x80000000u;
        h->hit[k].normal = ldem_vec3_neg(h->hit[k].normal);
    }
}

/* The geometry of every pair but two spheres (contact_geometry): a patch, and for level-set
 * pairs the penetrating nodes. */
static int other_geometry(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                          ldem_hits *h, ldem_patch *p, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    uint32_t i = c->i, j = c->j & ~LDEM_WALL_BIT;
    ldem_vec3 xi = b->x[i];
    int rc = LDEM_OK;
    if (c->j & LDEM_WALL_BIT) {
        ldem_wall_geom g = ldem_wall_pose(&w->walls[j]);
        if (b->kind[i] == LDEM_SHAPE_SPHERE) {
            ldem_sphere_wall(xi, b->radius[i], &g, p);
            return LDEM_OK;
        }
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero());
        rc = ldem_ls_wall_hits(&a, &g, h, err);
        if (!rc)
            ldem_patch_from_wall_hits(&a, &g, h, p);
        return rc;
    }
    ldem_vec3 xj = ldem_vec3_add(b->x[j], off->now); /* j's image */
    int si = b->kind[i] == LDEM_SHAPE_SPHERE, sj = b->kind[j] == LDEM_SHAPE_SPHERE;
    if (!si && !sj) {
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero()), bb = ls_grain(w, j, off->now);
        rc = ldem_ls_pair_hits(&a, &bb, h, err);
        if (!rc)
            ldem_patch_from_hits(&a, &bb, 0.0, h, p);
        return rc;
    }
    if (!si) { /* level-set i, sphere j */
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero());
        rc = ldem_ls_sphere_hits(&a, xj, b->radius[j], h, err);
        if (!rc)
            ldem_patch_from_hits(&a, NULL, b->radius[j], h, p);
        return rc;
    }
    /* sphere i, level-set j: compute from j's side, then turn the patch around */
    ldem_ls_grain a = ls_grain(w, j, off->now);
    rc = ldem_ls_sphere_hits(&a, xi, b->radius[i], h, err);
    if (rc)
        return rc;
    ldem_patch_from_hits(&a, NULL, b->radius[i], h, p);
    hits_swap_sides(h);
    p->normal = ldem_vec3_neg(p->normal);
    double r1 = p->r1;
    p->r1 = p->r2;
    p->r2 = r1;
    return LDEM_OK;
}

/* The contact's geometry: a patch, and for level-set pairs the penetrating nodes. Two
 * spheres, the common pair, are done here inline; the rest is other_geometry's. */
static inline int contact_geometry(const ldem_world *w, const ldem_contact *c,
                                   const image_offset *off, ldem_hits *h, ldem_patch *p,
                                   ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    uint32_t i = c->i, j = c->j;
    h->count = 0;
    if (!(j & LDEM_WALL_BIT) && b->kind[i] == LDEM_SHAPE_SPHERE &&
        b->kind[j] == LDEM_SHAPE_SPHERE) {
        ldem_sphere_sphere(b->x[i], b->radius[i], ldem_vec3_add(b->x[j], off->now),
                           b->radius[j], p);
        return LDEM_OK;
    }
    return other_geometry(w, c, off, h, p, err);
}

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

/* A Hertz pair still apart keeps only its gap (≤ 0), so that a first touch inside the next
 * step counts only its in-contact fraction of the tangential move. Its forces are zero
 * already (cleared when it separated). */
static void keep_gap(ldem_world *w, ldem_contact *c, double gap)
{
    enum ldem_law law = w->laws[c->law].law;
    c->overlap = gap;
    if (law == LDEM_LAW_HERTZ_JAGER && !c->law_state.jager.length)
        c->law_state.jager.d = gap;
    else if (law == LDEM_LAW_HERTZ_MINDLIN)
        c->law_state.mindlin.d = gap;
}

/* ldem__hertz_law_step, and the patch's geometry recorded in the contact. */
int ldem__hertz_law(ldem_world *w, ldem_contact *c, const ldem_patch *p, const double ds[2],
                    double *normal, double t[2])
{
    int rc = ldem__hertz_law_step(w, c, p->overlap, ds, normal, t);
    ldem__hertz_record_patch(c, p);
    return rc;
}

/* The forces of a Hertz contact after its law's step: N along n (with the normal damping,
 * which the tangential laws do not see), and the tangential force opposing j's slide over i
 * (du: j's material point's move against i's). The laws' N is Hertz's cn d√d to the bit, so
 * the damping's cap takes it rather than a square root again. */
void ldem__hertz_forces(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, ldem_vec3 du, double normal, const double t[2])
{
    const ldem_pair_law *law = &w->laws[c->law];
    double d1 = p->overlap;
    if (d1 <= 0.0) {
        clear_forces(c);
        return;
    }
    ldem_vec3 n = p->normal;
    c->kn = ldem_hertz_stiffness(&c->pair, d1);
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
    c->stored_normal = 0.4 * normal * d1;
}

/* Hertz normal force with the Jäger, Mindlin or no tangential law, on the patch. */
int ldem__hertz_contact(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, const ldem_quat *dq)
{
    double d1 = p->overlap;
    int was_touching = c->overlap > 0.0;
    if (d1 <= 0.0 && !was_touching) {
        keep_gap(w, c, d1);
        return LDEM_OK;
    }
    if (ldem__hertz_pair_update(w, c, p))
        return LDEM_ERR_INTERNAL;
    ldem_vec3 du = ldem_vec3_sub(party_step(w, c->j, p->point, off),
                                 material_step(w, c->i, p->point, &NO_OFFSET));
    if (!was_touching) {
        c->frame = ldem_contact_frame_init(p->normal);
    } else {
        ldem_quat dqj = (c->j & LDEM_WALL_BIT) ? ldem_quat_identity() : dq[c->j];
        c->frame = ldem_contact_frame_follow_exact(c->frame, dq[c->i], dqj, p->normal);
    }
    double ds[2], normal, t[2];
    ldem_contact_to_frame(c->frame, du, ds);
    int rc = ldem__hertz_law(w, c, p, ds, &normal, t);
    ldem__hertz_forces(w, c, off, p, du, normal, t);
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

/* Kawamoto's node penalty: every penetrating node is its own spring pair. Analytic pairs act
 * as a single node at the contact point. */
static int linear_contact(ldem_world *w, ldem_contact *c, const image_offset *off, ldem_hits *h,
                          const ldem_patch *p, ldem_vec3 *phi)
{
    const ldem_pair_law *law = &w->laws[c->law];
    ldem_linear_params lp = {law->kn, law->ks, law->mu};
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
        ldem_vec3 du = ldem_vec3_sub(party_step(w, c->j, hit->point, off),
                                     material_step(w, c->i, hit->point, &NO_OFFSET));
        ldem_vec3 f_n, f_t;
        ldem_vec3 f = ldem_linear_node_force(&lp, hit->depth, hit->normal, du, springs[k].xi,
                                             &c->dissipated, &f_n, &f_t);
        if (c->gen)
            project_hit(w, c, off, hit, f, phi, c->gen);
        fn = ldem_vec3_add(fn, f_n);
        ft = ldem_vec3_add(ft, f_t);
        ti = ldem_vec3_add(ti, ldem_vec3_cross(ldem_vec3_sub(hit->point, w->bodies.x[c->i]),
                                               ldem_vec3_neg(f)));
        if (!wall)
            tj = ldem_vec3_add(tj, ldem_vec3_cross(ldem_vec3_sub(hit->point, xj), f));
        stored += 0.5 * law->kn * hit->depth * hit->depth;
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
    return LDEM_OK;
}

/* Two rigid spheres under a Hertz law: the pair the shortcuts below take, apart
 * (sphere_pair_stays_apart) or touching (update_held). A deformable party is left to
 * contact_update, which zeroes its generalized forces every step (gen_prepare). Nothing it
 * reads changes while the pair is a candidate, so each list build records it in the contact
 * (ldem_contacts_classify) instead of every step reading the bodies' kinds and modes again. */
static int rigid_hertz_sphere_pair(const ldem_world *w, const ldem_contact *c)
{
    const ldem_bodies *b = &w->bodies;
    return !(c->j & LDEM_WALL_BIT) && b->kind[c->i] == LDEM_SHAPE_SPHERE &&
           b->kind[c->j] == LDEM_SHAPE_SPHERE && w->laws[c->law].law != LDEM_LAW_LINEAR &&
           !ldem_world_body_modes(w, c->i) && !ldem_world_body_modes(w, c->j);
}

void ldem_contacts_classify(ldem_world *w)
{
    for (size_t c = 0; c < w->ncontacts; c++)
        w->contacts[c].rigid_spheres = (uint8_t)rigid_hertz_sphere_pair(w, &w->contacts[c]);
}

/* A separated sphere pair under a Hertz law that is still apart: all its step does is
 * keep_gap. The arithmetic is ldem_sphere_sphere's and hertz_contact's, bit for bit; what it
 * saves is the rest of the patch, the dispatch and the sums, on a third of the candidates of
 * a dense packing. Returns 0, having changed nothing, for every other pair. */
static int sphere_pair_stays_apart(ldem_world *w, ldem_contact *c, const image_offset *off)
{
    const ldem_bodies *b = &w->bodies;
    if (c->overlap > 0.0 || !c->rigid_spheres)
        return 0;
    ldem_vec3 d = ldem_vec3_sub(ldem_vec3_add(b->x[c->j], off->now), b->x[c->i]);
    double gap = b->radius[c->i] + b->radius[c->j] - ldem_vec3_norm(d);
    if (!(gap <= 0.0))
        return 0;
    keep_gap(w, c, gap);
    return 1;
}

/* `off`: where j's image sits (partner_offset), found once for the update and the sums. */
static int contact_update(ldem_world *w, ldem_contact *c, const image_offset *off, ldem_hits *h,
                          const ldem_quat *dq, ldem_vec3 *phi, ldem_err *err)
{
    ldem_patch p; /* every geometry fills it whole, or fails and it is not read */
    int rc = contact_geometry(w, c, off, h, &p, err);
    if (!rc && (rc = gen_prepare(w, c)))
        return ldem_err_set(err, rc, NULL, 0, "out of memory for generalized forces");
    if (rc)
        return rc;
    if (w->laws[c->law].law == LDEM_LAW_LINEAR)
        return linear_contact(w, c, off, h, &p, phi);
    rc = ldem__hertz_contact(w, c, off, &p, dq);
    if (!rc && c->gen && c->overlap > 0.0)
        project_patch(w, c, off, h, phi);
    return rc;
}

/* ---- what the contacts add up to ---- */

/* dN/dδ of a touching contact just updated, for the servo's stiffness estimate. */
static double normal_stiffness(const ldem_world *w, const ldem_contact *c)
{
    const ldem_pair_law *law = &w->laws[c->law];
    if (law->law == LDEM_LAW_LINEAR)
        return law->kn * (c->nsprings ? c->nsprings : 1);
    return c->kn;
}

void ldem__add_to_sums(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                       ldem_contact_sums *sums)
{
    if (!ldem_contact_touching(c) || (c->j & LDEM_WALL_BIT))
        return;
    ldem_vec3 f = ldem_vec3_add(c->fn, c->ft);
    ldem_vec3 l = ldem_vec3_sub(ldem_vec3_add(w->bodies.x[c->j], off->now), w->bodies.x[c->i]);
    double fa[3] = {f.x, f.y, f.z}, la[3] = {l.x, l.y, l.z};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            sums->virial.m[a][b] += fa[a] * la[b];
    double kn = normal_stiffness(w, c);
    double nl[3] = {c->normal.x * la[0], c->normal.y * la[1], c->normal.z * la[2]};
    for (int a = 0; a < 3; a++)
        sums->stiffness[a] += kn * nl[a] * nl[a];
}

/* One contact's force and torques onto its bodies and wall (i receives −f), and its
 * stiffness onto the wall. */
static void add_forces(ldem_world *w, const ldem_contact *c)
{
    if (!ldem_contact_touching(c))
        return;
    ldem_bodies *b = &w->bodies;
    ldem_vec3 f = ldem_vec3_add(c->fn, c->ft);
    b->force[c->i] = ldem_vec3_sub(b->force[c->i], f);
    b->torque[c->i] = ldem_vec3_add(b->torque[c->i], c->torque_i);
    if (c->j & LDEM_WALL_BIT) {
        ldem_wall *wl = &w->walls[c->j & ~LDEM_WALL_BIT];
        wl->force = ldem_vec3_add(wl->force, f);
        /* the stiffness the wall's servo sees: summed here, in list order, as the force */
        double along = ldem_vec3_dot(c->normal, wl->normal);
        wl->stiffness += normal_stiffness(w, c) * along * along;
    } else {
        b->force[c->j] = ldem_vec3_add(b->force[c->j], f);
        b->torque[c->j] = ldem_vec3_add(b->torque[c->j], c->torque_j);
    }
}

/* Every contact's force in list order: the order the sums keep for any thread count. */
static void add_forces_in_list_order(ldem_world *w)
{
    for (size_t c = 0; c < w->ncontacts; c++)
        add_forces(w, &w->contacts[c]);
}

/* The error of contact c's failed update, unless its update described it already. */
static int contact_failed(ldem_err *e, const ldem_contact *c, int rc)
{
    if (!e->code)
        ldem_err_set(e, rc, NULL, 0, "contact %u-%u: %s", c->i, c->j, ldem_status_name(rc));
    return rc;
}

/* What every updated contact adds: its virial to the shard's sums (periodic cells), its
 * forces to the bodies (`sum`, one thread only). */
static void contact_adds(ldem_world *w, const ldem_contact *c, const image_offset *off,
                         int sum, ldem_contact_sums *sums)
{
    if (w->cell.periodic)
        ldem__add_to_sums(w, c, off, sums);
    if (sum)
        add_forces(w, c);
}

/* One contact's update on its own, and what it adds. */
static int update_alone(ldem_world *w, ldem_contact *c, const image_offset *off, int tid,
                        int sum, ldem_contact_sums *sums, ldem_err *e)
{
    ldem_step_work *k = w->work;
    int rc = contact_update(w, c, off, &k->hits[tid], k->dq,
                            k->phi_scratch + (size_t)tid * k->max_modes, e);
    if (rc)
        return contact_failed(e, c, rc);
    contact_adds(w, c, off, sum, sums);
    return LDEM_OK;
}

/* Touching rigid sphere pairs waiting, in list order, for enough of them to fill the lanes. */
typedef struct held_pairs {
    ldem_contact *c[4];
    image_offset off[4];
    int n;
} held_pairs;

int ldem__lanes_best(void)
{
#ifdef LDEM_HAVE_QUADS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return 4;
#endif
    return 2;
}

/* Update the held pairs and add what they add, in list order: four in the AVX2 lanes, or
 * two at a time in the SSE2 lanes and the odd one alone. The lanes add their stress sums
 * themselves. Empties h. */
static int update_held(ldem_world *w, held_pairs *h, int tid, int sum, ldem_contact_sums *sums,
                       ldem_err *e)
{
    int done = 0, failed = 0, rc;
    ldem_contact_sums *lane_sums = w->cell.periodic ? sums : NULL;
#ifdef LDEM_HAVE_QUADS
    if (h->n == 4) {
        if ((rc = ldem__update_sphere_quads(w, h->c, h->off, lane_sums, &failed)))
            return contact_failed(e, h->c[failed], rc);
        done = 4;
    }
#endif
    for (; h->n - done >= 2; done += 2)
        if ((rc = update_sphere_lanes(w, h->c + done, h->off + done, lane_sums, &failed)))
            return contact_failed(e, h->c[done + failed], rc);
    for (int l = 0; sum && l < done; l++)
        add_forces(w, h->c[l]);
    for (int l = done; l < h->n; l++)
        if ((rc = update_alone(w, h->c[l], &h->off[l], tid, sum, sums, e)))
            return rc;
    h->n = 0;
    return LDEM_OK;
}

/* How many candidates ahead update_shard asks for a record's cache lines. */
#define PREFETCH_AHEAD 8

/* Ask for every cache line of a contact's record (488 bytes: eight lines, or nine when it
 * straddles one more). A touching contact's update reads all of them (its pair's constants,
 * frame, law state and held history cells, the spring count at the end), and on a large
 * packing each is a miss to DRAM: the hardware prefetcher follows the stream of first lines
 * that the loop reads, but not the rest. Four lanes need it: without it they start four
 * contacts' chains before the first record's lines have come (BENCHMARKS.md). */
static inline void prefetch_contact(const ldem_contact *c)
{
    const char *first = (const char *)c, *last = first + sizeof *c - 1;
    for (const char *line = first; line < last; line += 64)
        __builtin_prefetch(line);
    __builtin_prefetch(last);
}

/* How many candidates ahead update_shard asks for a Jäger contact's top pooled cell: by then
 * the record's lines asked for PREFETCH_AHEAD candidates ahead have come. */
#define POOL_PREFETCH_AHEAD 4

/* Ask for the top pooled cell of a Jäger contact's stack and its link, which the law reads
 * when its walk passes the two cells the contact holds, moves that cell up, or cuts an
 * unloading stack below them. Each is a miss to DRAM (the pools outgrow the cache), and the
 * law's chain waits on it; asked for early, the cell has come by the time the walk reads it
 * (BENCHMARKS.md). Branch-free on purpose: whether the candidate touches is in the same
 * record line, which may not have come yet, and a branch on it mispredicts as often as
 * touching and separated candidates alternate, each time throwing away the work done while
 * the line was on its way, which cancels the gain. Whatever the record holds (a separated
 * candidate's top is 0; under another law the union's bytes are no index), the index is
 * masked into the pool, and a prefetch changes no result. */
static inline void prefetch_pool_top(const ldem_history_pool *pool, const ldem_contact *c)
{
    uint32_t top = c->law_state.jager.top;
    uint32_t index = top & -(uint32_t)(top < pool->capacity);
    __builtin_prefetch(&pool->cell[index]);
    __builtin_prefetch(&pool->next[index]);
}

/* The contacts of shard s, in list order; `sum` adds their forces onto the bodies as it goes
 * (one thread only: the bodies are shared). Touching rigid sphere pairs go k->lanes at a time
 * (update_held): they are held until enough have come, or until a contact of another kind,
 * which must then wait for them, keeping the list order of the sums. Returns the first
 * failure, described in *e. */
static int update_shard(ldem_world *w, unsigned s, int tid, int sum, ldem_err *e)
{
    ldem_step_work *k = w->work;
    /* Summed in a local and stored once: the shard's sums in w->work could alias every store
     * the contacts make, so each += went through memory. */
    ldem_contact_sums sums;
    memset(&sums, 0, sizeof sums);
    held_pairs held = {.n = 0};
    int rc;
    const ldem_history_pool *pool = &w->pools[s];
    for (uint32_t q = k->shard_start[s], end = k->shard_start[s + 1]; q < end; q++) {
        ldem_contact *c = &w->contacts[k->shard_list[q]];
        if (q + PREFETCH_AHEAD < end)
            prefetch_contact(&w->contacts[k->shard_list[q + PREFETCH_AHEAD]]);
        if (pool->live && q + POOL_PREFETCH_AHEAD < end) /* no Jäger cells, nothing to ask */
            prefetch_pool_top(pool, &w->contacts[k->shard_list[q + POOL_PREFETCH_AHEAD]]);
        image_offset off = partner_offset(w, c);
        if (sphere_pair_stays_apart(w, c, &off))
            continue; /* no force, so nothing for the sums either */
        if (k->lanes > 1 && c->overlap > 0.0 && c->rigid_spheres) {
            held.c[held.n] = c;
            held.off[held.n++] = off;
            if (held.n == k->lanes && (rc = update_held(w, &held, tid, sum, &sums, e)))
                return rc;
            continue;
        }
        if (held.n && (rc = update_held(w, &held, tid, sum, &sums, e)))
            return rc;
        if ((rc = update_alone(w, c, &off, tid, sum, &sums, e)))
            return rc;
    }
    if (held.n && (rc = update_held(w, &held, tid, sum, &sums, e)))
        return rc;
    k->shard_sums[s] = sums;
    return LDEM_OK;
}

static int update(ldem_world *w, int sum, ldem_err *err)
{
    ldem_step_work *k = w->work;
    /* With the default thread count, threads only pay off beyond a few hundred candidates
     * (below that the fork costs more); an explicit count is always honoured. */
    int threads = w->threads > 0 || w->ncontacts >= 256 ? k->nthreads : 1;
    if (threads == 1) {
        /* Summing as we go adds in list order only if the shards walk the list in order. */
        int fused = sum && k->shards_in_list_order;
        for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
            ldem_err e;
            ldem_err_clear(&e);
            int rc = update_shard(w, s, 0, fused, &e);
            if (rc) {
                if (err)
                    *err = e;
                return rc;
            }
        }
        if (sum && !fused)
            add_forces_in_list_order(w);
        return LDEM_OK;
    }
    int failed = LDEM_OK;
    ldem_err first;
    ldem_err_clear(&first);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int s = 0; s < (int)LDEM_HISTORY_SHARDS; s++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        ldem_err e;
        ldem_err_clear(&e);
        int rc = update_shard(w, (unsigned)s, tid, 0, &e);
        if (rc) {
#pragma omp critical(ldem_contacts_error)
            if (!failed) {
                failed = rc;
                first = e;
            }
        }
    }
    if (failed) {
        if (err)
            *err = first;
        return failed;
    }
    if (sum)
        add_forces_in_list_order(w);
    return LDEM_OK;
}

int ldem_contacts_update(ldem_world *w, ldem_err *err)
{
    return update(w, 0, err);
}

int ldem_contacts_update_and_sum(ldem_world *w, ldem_err *err)
{
    return update(w, 1, err);
}
