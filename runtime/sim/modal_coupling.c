/* modal_coupling.c — how contacts couple to the modes of deformable grains (modal.h): the
 * material points' modal move, and the generalized forces of Henzel & Karapiperis eq. 41,
 * Q_α = Σ Φ_α(X) · Rᵀ f over the contact's forces, which ldem_modal_reduce (modal.c) sums. */
#include <stdlib.h>
#include <string.h>

#include "modal.h"

/* A deformable body's material point X (reference position, found by pulling the current
 * body-frame point back by the modal displacement, as the remap does) also moved by
 * R_prev (u(X, ε) − u(X, ε_prev)) over the step: that move, for the lever arm r. */
ldem_vec3 ldem__modal_step(const ldem_world *w, const ldem_modeset *ms, uint32_t i, ldem_vec3 r)
{
    const ldem_bodies *b = &w->bodies;
    const double *eps = w->modal.eps + b->modal[i], *eps_prev = w->modal.eps_prev + b->modal[i];
    ldem_vec3 p = ldem_quat_rotate_inv(b->q[i], r), u_now, u_prev;
    ldem_vec3 X = ldem_modes_pull_back(ms, eps, p, NULL);
    ldem_modes_displacement(ms, eps, X, &u_now, NULL);
    ldem_modes_displacement(ms, eps_prev, X, &u_prev, NULL);
    return ldem_quat_rotate(b->q_prev[i], ldem_vec3_sub(u_now, u_prev));
}

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

void ldem__project_hit(const ldem_world *w, const ldem_contact *c, ldem_vec3 off_j,
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
        project_force(w, c->j, off_j, side == 1 ? node : LDEM_NO_NODES, h->point, f_on_j,
                      phi, gen + ni);
}

int ldem__gen_prepare(const ldem_world *w, ldem_contact *c)
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

void ldem__project_patch(const ldem_world *w, ldem_contact *c, ldem_vec3 off_j,
                         const ldem_hits *h, ldem_vec3 *phi)
{
    ldem_vec3 F = ldem_vec3_add(c->fn, c->ft);
    double total = 0.0;
    for (size_t k = 0; k < h->count; k++)
        total += h->hit[k].depth * h->hit[k].area;
    for (size_t k = 0; k < h->count; k++) {
        double share = total > 0.0 ? h->hit[k].depth * h->hit[k].area / total
                                   : 1.0 / (double)h->count;
        ldem__project_hit(w, c, off_j, &h->hit[k], ldem_vec3_scale(F, share), phi, c->gen);
    }
}
