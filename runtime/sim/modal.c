/* modal.c — the modal degrees of freedom of deformable grains (Henzel & Karapiperis eq. 38,
 * M ε̈ + C ε̇ + F_int(ε) = Q), advanced by the same velocity Verlet as the rigid motion:
 * half kick of ε̇ with the forces of the last evaluation, drift of ε, new contact forces and
 * Q (modal_coupling.c projects each nodal force on Φα), half kick. The damping term uses the
 * half-step rate, as the rigid damping does (first order in C, like LAMMPS's and YADE's
 * damping of the half-step velocities).
 *
 * Small strain (Henzel §2): the rigid mass and inertia do not change with ε, and the modes
 * carry no net momentum because modefit projected rigid motion out of them, so the
 * translational and rotational equations see only the contact forces and their torques.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modal.h"
#include "ldem/xsum.h"
#include "ldem/sim/node_clusters.h"
#include "step_work.h"

/* The body's modes, or NULL when it is rigid. */
static const ldem_modeset *modes_of(const ldem_world *w, size_t i)
{
    return ldem_world_body_modes(w, i);
}

void ldem_modal_kick(ldem_world *w, double h)
{
    const ldem_bodies *b = &w->bodies;
    ldem_modal_state *m = &w->modal;
    double *a = w->work->modal_scratch;
    for (size_t i = 0; i < b->count; i++) {
        const ldem_modeset *ms = modes_of(w, i);
        if (!ms)
            continue;
        uint32_t off = b->modal[i];
        ldem_modes_solve_mass(ms, m->f_total + off, a);
        for (uint32_t k = 0; k < ms->n; k++)
            m->rate[off + k] += h * a[k];
    }
}

void ldem_modal_drift(ldem_world *w, double dt)
{
    ldem_modal_state *m = &w->modal;
    for (size_t k = 0; k < m->ndof; k++) {
        m->eps_prev[k] = m->eps[k];
        m->eps[k] += dt * m->rate[k];
    }
}

/* How far the surface can have moved from the undeformed shape: Σ |εα| max_k |Φα(node k)|. */
static double growth(const ldem_modeset *ms, const double *eps)
{
    double g = 0.0;
    for (uint32_t k = 0; k < ms->n; k++)
        g += fabs(eps[k]) * ms->node_max[k];
    return g;
}

double ldem_modal_node_slack(const ldem_modal_state *m, size_t i)
{
    return fmax(0.0, m->grown[i] - m->radius0[i]) * (1.0 + 1e-12);
}

void ldem_modal_deform(ldem_world *w)
{
    ldem_bodies *b = &w->bodies;
    ldem_modal_state *m = &w->modal;
    const ldem_step_work *k = w->work;
    if (!m->ndof)
        return;
    /* The nodes themselves are deformed where they are needed (ldem_world_body_node). */
    for (size_t i = 0; i < b->count; i++) {
        const ldem_modeset *ms = modes_of(w, i);
        if (!ms)
            continue;
        const double *eps = m->eps + b->modal[i];
        double grown = m->radius0[i] + growth(ms, eps);
        b->radius[i] = m->grown[i] = grown;
        if (!k || !k->group_off || k->group_off[i] == SIZE_MAX)
            continue;
        /* Tighter: the clusters' radial bound, plus how far the zero set reaches past the
         * undeformed nodes (radius0 - node_reach, 0 for nodes on a sphere). Each cluster's
         * slack, capped by the body's, is kept for the narrow phase. */
        const ldem_node_clusters *c = w->shapes[b->shape[i]].clusters;
        double *slack = k->group_slack + k->group_off[i];
        double reach = ldem_node_clusters_deformed_reach(c, eps, slack);
        b->radius[i] = fmin(grown, m->radius0[i] + (reach - c->node_reach));
        double cap = ldem_modal_node_slack(m, i);
        for (size_t g = 0; g < c->count; g++)
            slack[g] = slack[g] < cap ? slack[g] : cap;
    }
}

int ldem_modal_reduce(ldem_world *w, int book_work, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    ldem_modal_state *m = &w->modal;
    if (!m->ndof)
        return LDEM_OK;
    memset(m->force, 0, m->ndof * sizeof *m->force);
    /* Q in contact-list order: the same sum for any thread count. */
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        if (!c->gen || !ldem_contact_touching(c))
            continue;
        uint32_t used = 0;
        const ldem_modeset *mi = modes_of(w, c->i);
        if (mi) {
            for (uint32_t a = 0; a < mi->n; a++)
                m->force[b->modal[c->i] + a] += c->gen[a];
            used = mi->n;
        }
        if (!(c->j & LDEM_WALL_BIT)) {
            const ldem_modeset *mj = modes_of(w, c->j);
            if (mj)
                for (uint32_t a = 0; a < mj->n; a++)
                    m->force[b->modal[c->j] + a] += c->gen[used + a];
        }
    }
    /* exact, over the bodies each rank owns: the same bits however they are shared out */
    ldem_xsum power;
    ldem_xsum_clear(&power);
    for (size_t i = 0; i < b->count; i++) {
        const ldem_modeset *ms = modes_of(w, i);
        if (!ms || (b->flags[i] & LDEM_BODY_GHOST)) /* a ghost's come from its owner */
            continue;
        uint32_t off = b->modal[i], n = ms->n;
        int rc = ldem_modes_internal(ms, m->eps + off, m->f_int + off, NULL, err);
        if (rc)
            return rc;
        double body_power = 0.0;
        for (uint32_t r = 0; r < n; r++) {
            double damp = 0.0;
            for (uint32_t s = 0; s < n; s++)
                damp += ms->C[(size_t)r * n + s] * m->rate[off + s];
            body_power += damp * m->rate[off + r];
            m->f_total[off + r] = m->force[off + r] - m->f_int[off + r] - damp;
        }
        ldem_xsum_add(&power, body_power);
    }
    if (w->comm)
        w->comm->sum(w->comm->ctx, &power, 1);
    if (book_work)
        w->work_damping += ldem_xsum_round(&power) * w->dt;
    return LDEM_OK;
}

void ldem_modal_energy(const ldem_world *w, double *kinetic, double *elastic)
{
    const ldem_bodies *b = &w->bodies;
    const ldem_modal_state *m = &w->modal;
    ldem_xsum kin, el; /* exact: the same bits however the bodies are shared out */
    ldem_xsum_clear(&kin);
    ldem_xsum_clear(&el);
    for (size_t i = 0; m->ndof && i < b->count; i++) {
        const ldem_modeset *ms = modes_of(w, i);
        if (!ms || (b->flags[i] & LDEM_BODY_GHOST))
            continue;
        uint32_t off = b->modal[i];
        double U = 0.0;
        ldem_xsum_add(&kin, ldem_modes_kinetic(ms, m->rate + off));
        /* outside a table that forbids extrapolation the step has already failed */
        if (ldem_modes_internal(ms, m->eps + off, NULL, &U, NULL) == LDEM_OK)
            ldem_xsum_add(&el, U);
    }
    if (w->comm) {
        w->comm->sum(w->comm->ctx, &kin, 1);
        w->comm->sum(w->comm->ctx, &el, 1);
    }
    *kinetic = ldem_xsum_round(&kin);
    *elastic = ldem_xsum_round(&el);
}
