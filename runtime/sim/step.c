/* step.c — one time step of the world (ldem/sim/step.h) and the energy measurements. */
#include "ldem/sim/step.h"
#include "ldem/levelset.h"
#include "ldem/sim/node_clusters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ldem/sim/integrate.h"
#include "step_work.h"
#include "walls.h"
#include "contact_list.h"
#include "contact_forces.h"
#include "contact_loop.h"
#include "modal.h"
#include "periodic.h"

void ldem_step_work_free(struct ldem_step_work *k)
{
    if (!k)
        return;
    ldem_broadphase_free(&k->bp);
    free(k->shard_list);
    for (int t = 0; t < k->nthreads; t++)
        ldem_hits_free(&k->hits[t]);
    free(k->hits);
    free(k->dq);
    free(k->wall_force_prev);
    free(k->wall_sums);
    free(k->cell_sums);
    free(k->modal_scratch);
    free(k->phi_scratch);
    free(k->group_off);
    free(k->group_slack);
    free(k);
}

static int ensure_work(ldem_world *w, ldem_err *err)
{
    if (!w->work) {
        ldem_step_work *k = calloc(1, sizeof *k);
        if (!k)
            goto nomem;
        int threads = w->threads;
#ifdef _OPENMP
        if (threads <= 0)
            threads = omp_get_max_threads();
#else
        threads = 1;
#endif
        if (threads < 1)
            threads = 1;
        k->nthreads = threads;
        k->lanes = ldem_cpu_lanes();
        k->hits = calloc((size_t)threads, sizeof *k->hits);
        w->work = k;
        w->work_free = ldem_step_work_free;
        if (!k->hits)
            goto nomem;
    }
    ldem_step_work *k = w->work;
    size_t n = w->bodies.count;
    /* Node clusters and band slopes of every shape with nodes and the Lipschitz constants
     * of every shape with modes, once (the shapes never change). */
    for (size_t s = 0; s < w->nshapes; s++) {
        ldem_shape *sh = &w->shapes[s];
        if (sh->modes && !sh->lset_slopes) {
            if (!(sh->lset_slopes = malloc(sizeof *sh->lset_slopes)))
                goto nomem;
            int rc = ldem_lset_slopes_build(&sh->lset, sh->lset_slopes, err);
            if (rc) {
                free(sh->lset_slopes);
                sh->lset_slopes = NULL;
                return rc;
            }
        }
        if (sh->nodes.count && !sh->band_slopes) {
            if (!(sh->band_slopes = malloc(sizeof *sh->band_slopes)))
                goto nomem;
            ldem_lset_band_slopes_build(&sh->lset, sh->band_slopes);
        }
        if (sh->clusters || !sh->nodes.count)
            continue;
        if (!(sh->clusters = malloc(sizeof *sh->clusters)))
            goto nomem;
        int rc = ldem_node_clusters_build(&sh->nodes, sh->clusters, err);
        if (!rc && sh->modes && sh->modes->nnodes == sh->nodes.count) {
            rc = ldem_node_clusters_attach_modes(sh->clusters, sh->modes, err);
            if (rc)
                ldem_node_clusters_free(sh->clusters);
        }
        if (rc) {
            free(sh->clusters);
            sh->clusters = NULL;
            return rc;
        }
    }
    if (k->dq_capacity < n || !k->dq) {
        ldem_quat *d = realloc(k->dq, (n ? n : 1) * sizeof *d);
        if (!d)
            goto nomem;
        k->dq = d;
        k->dq_capacity = n;
    }
    if (!k->cell_sums &&
        !(k->cell_sums = calloc((size_t)k->nthreads * LDEM_CELL_SUMS, sizeof *k->cell_sums)))
        goto nomem;
    if (!k->wall_sums &&
        !(k->wall_sums = calloc(4 * (w->nwalls ? w->nwalls : 1), sizeof *k->wall_sums)))
        goto nomem;
    if (!k->wall_force_prev &&
        !(k->wall_force_prev = malloc((w->nwalls ? w->nwalls : 1) * sizeof *k->wall_force_prev)))
        goto nomem;
    if (!w->x_list) {
        w->x_list = calloc(n ? n : 1, sizeof *w->x_list);
        w->wall_disp_list = calloc(w->nwalls ? w->nwalls : 1, sizeof *w->wall_disp_list);
        if (!w->x_list || !w->wall_disp_list)
            goto nomem;
    }
    if (!w->radius_list) {
        if (!(w->radius_list = malloc((n ? n : 1) * sizeof *w->radius_list)))
            goto nomem;
        memcpy(w->radius_list, w->bodies.radius, n * sizeof *w->radius_list);
    }
    if (!k->modal_scratch) {
        uint32_t most = 1;
        for (size_t i = 0; i < n; i++) {
            const ldem_modeset *ms = ldem_world_body_modes(w, i);
            if (ms && ms->n > most)
                most = ms->n;
        }
        k->max_modes = most;
        k->modal_scratch = malloc(most * sizeof *k->modal_scratch);
        k->phi_scratch = malloc((size_t)k->nthreads * most * sizeof *k->phi_scratch);
        if (!k->modal_scratch || !k->phi_scratch)
            goto nomem;
    }
    if (!k->group_off && w->modal.ndof) {
        size_t total = 0;
        if (!(k->group_off = malloc((n ? n : 1) * sizeof *k->group_off)))
            goto nomem;
        for (size_t i = 0; i < n; i++) {
            const ldem_modeset *ms = ldem_world_body_modes(w, i);
            const ldem_node_clusters *c = ms ? w->shapes[w->bodies.shape[i]].clusters : NULL;
            k->group_off[i] = c && c->radial_lo && c->nmodes == ms->n ? total : SIZE_MAX;
            total += k->group_off[i] != SIZE_MAX ? c->count : 0;
        }
        if (!(k->group_slack = malloc((total ? total : 1) * sizeof *k->group_slack)))
            goto nomem;
    }
    return LDEM_OK;
nomem:
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for the time step");
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rotation of each body over the step, q ⊗ q_prevᵀ (world). */
static void rotation_increments(ldem_world *w)
{
    const ldem_bodies *b = &w->bodies;
    ldem_quat *dq = w->work->dq;
    for (size_t i = 0; i < b->count; i++)
        dq[i] = ldem_quat_mul(b->q[i], ldem_quat_conj(b->q_prev[i]));
}

/* Before the contacts add their forces (ldem_contacts_update_and_sum): each body's force is
 * its weight, its torque zero, each wall's force (its last one kept for the work) and
 * stiffness zero. */
static void forces_begin(ldem_world *w)
{
    ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++) {
        b->force[i] = ldem_vec3_scale(w->gravity, b->mass[i]);
        b->torque[i] = ldem_vec3_zero();
    }
    ldem_vec3 *old_wall_force = w->work->wall_force_prev;
    for (size_t k = 0; k < w->nwalls; k++) {
        old_wall_force[k] = w->walls[k].force;
        w->walls[k].force = ldem_vec3_zero();
        w->walls[k].stiffness = 0.0;
    }
}

/* After the contacts' forces: book the work of the walls, add the damping and book its work. */
static void forces_end(ldem_world *w, int book_work)
{
    ldem_bodies *b = &w->bodies;
    const ldem_vec3 *old_wall_force = w->work->wall_force_prev;
    /* Work of the walls on the grains over the step (trapezoid in the force, which the
     * grains exert on the wall, hence the sign). */
    if (book_work) {
        for (size_t k = 0; k < w->nwalls; k++) {
            ldem_wall *wl = &w->walls[k];
            ldem_vec3 dd = ldem_vec3_sub(wl->disp, wl->disp_prev);
            double work = -0.5 * ldem_vec3_dot(ldem_vec3_add(old_wall_force[k], wl->force), dd);
            wl->work += work;
            w->work_walls += work;
        }
    }
    /* Damping acts on the velocities of the half step (LAMMPS and YADE do the same). */
    if (w->damping_viscous > 0.0 || w->damping_local > 0.0) {
        /* the power summed per block of bodies in index order, the blocks' sums exactly:
         * the same bits however the blocks are shared out (LDEM_SUM_BLOCK) */
        ldem_xsum power;
        ldem_xsum_clear(&power);
        double block_power = 0.0;
        for (size_t i = 0; i < b->count; i++) {
            if (i % LDEM_SUM_BLOCK == 0) {
                ldem_xsum_add(&power, block_power);
                block_power = 0.0;
            }
            /* a ghost's force is its owner's to damp: this rank's copy is overwritten */
            if (b->flags[i] & (LDEM_BODY_FIXED | LDEM_BODY_GHOST))
                continue;
            ldem_vec3 omega = ldem_bodies_omega(b, i);
            ldem_vec3 f = b->force[i], t = b->torque[i];
            if (w->damping_viscous > 0.0) {
                ldem_vec3 fv = ldem_vec3_scale(b->v[i], -w->damping_viscous * b->mass[i]);
                ldem_vec3 tv = ldem_vec3_scale(ldem_quat_rotate(b->q[i], b->L[i]),
                                               -w->damping_viscous);
                f = ldem_vec3_add(f, fv);
                t = ldem_vec3_add(t, tv);
            }
            if (w->damping_local > 0.0) {
                f = ldem_damp_local(f, b->v[i], w->damping_local);
                t = ldem_damp_local(t, omega, w->damping_local);
            }
            block_power -= ldem_vec3_dot(ldem_vec3_sub(f, b->force[i]), b->v[i]) +
                           ldem_vec3_dot(ldem_vec3_sub(t, b->torque[i]), omega);
            b->force[i] = f;
            b->torque[i] = t;
        }
        ldem_xsum_add(&power, block_power);
        if (w->comm)
            w->comm->sum(w->comm->ctx, &power, 1);
        if (book_work)
            w->work_damping += ldem_xsum_round(&power) * w->dt;
    }
}

static double potential(const ldem_world *w)
{
    const ldem_bodies *b = &w->bodies;
    ldem_xsum e;
    ldem_xsum_clear(&e);
    for (size_t i = 0; i < b->count; i++)
        if (!(b->flags[i] & (LDEM_BODY_FIXED | LDEM_BODY_GHOST)))
            ldem_xsum_add(&e, -b->mass[i] * ldem_vec3_dot(w->gravity, b->x[i]));
    if (w->comm)
        w->comm->sum(w->comm->ctx, &e, 1);
    return ldem_xsum_round(&e);
}

int ldem_world_prepare(ldem_world *w, ldem_err *err)
{
    int rc = ensure_work(w, err);
    if (rc)
        return rc;
    if (!w->pools[0].capacity && (rc = ldem_world_init_pools(w, err)))
        return rc;
    ldem_bodies *b = &w->bodies;
    memcpy(b->x_prev, b->x, b->count * sizeof *b->x);
    memcpy(b->q_prev, b->q, b->count * sizeof *b->q);
    if (w->modal.ndof)
        memcpy(w->modal.eps_prev, w->modal.eps, w->modal.ndof * sizeof *w->modal.eps);
    ldem_modal_deform(w);
    for (size_t k = 0; k < w->nwalls; k++)
        w->walls[k].disp_prev = w->walls[k].disp;
    if ((rc = ldem_contacts_refresh(w, err)))
        return rc;
    for (size_t i = 0; i < b->count; i++)
        w->work->dq[i] = ldem_quat_identity();
    forces_begin(w);
    if ((rc = ldem_contacts_update_and_sum(w, err)))
        return rc;
    forces_end(w, 0);
    if ((rc = ldem_modal_reduce(w, 0, err)))
        return rc;
    if (w->comm && (rc = w->comm->exchange(w->comm->ctx, w)))
        return ldem_err_set(err, rc, NULL, 0, "the exchange of ghost bodies failed");
    ldem_walls_servo(w);
    if (w->cell.periodic) {
        ldem_periodic_measure(w, 0, NULL);
        ldem_periodic_servo(w);
    }
    w->potential0 = potential(w);
    ldem_probe_row row;
    w->e_initial = 0.0;
    ldem_world_measure(w, &row);
    w->e_initial = row.kinetic + row.potential + row.stored_normal + row.stored_tangential +
                   row.modal_kinetic + row.modal_elastic;
    return LDEM_OK;
}

/* Prepare the scratch of a world restored from a checkpoint (no force evaluation: the
 * checkpoint carries the forces of its last step). */
static int resume_work(ldem_world *w, ldem_err *err)
{
    int rc = ensure_work(w, err);
    if (rc)
        return rc;
    if (ldem_contacts_build_shards(w))
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for contacts");
    ldem_contacts_classify(w);
    /* deformed nodes are not stored: they follow from the restored amplitudes */
    ldem_modal_deform(w);
    return LDEM_OK;
}

/* Give memory back from shards whose pools are mostly free (after a burst of long
 * histories): the shard's Jäger heads are gathered, the pool compacted, the heads put back.
 * Only indices change, never values, so this cannot alter a trajectory. (The pools are not
 * relaid out in list order so that a walk down a stack reads memory forwards: that leaves a
 * step's L2 misses about where they are, for the cost of a pass over the pools.) */
static int compact_pools(ldem_world *w, ldem_err *err)
{
    const ldem_step_work *k = w->work;
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
        if (!ldem_history_pool_should_compact(&w->pools[s]))
            continue;
        uint32_t n = k->shard_start[s + 1] - k->shard_start[s];
        uint32_t *heads = malloc((n ? n : 1) * sizeof *heads);
        if (!heads)
            return LDEM_OK; /* compaction is an optimization: skip it when memory is short */
        uint32_t m = 0;
        for (uint32_t q = k->shard_start[s]; q < k->shard_start[s + 1]; q++) {
            ldem_contact *c = &w->contacts[k->shard_list[q]];
            const ldem_law_ops *ops = w->laws[c->law].ops;
            if (ops->history_head)
                heads[m++] = *ops->history_head(c->law_state);
        }
        int rc = ldem_history_pool_compact(&w->pools[s], heads, m, sizeof *heads, err);
        m = 0;
        for (uint32_t q = k->shard_start[s]; rc == LDEM_OK && q < k->shard_start[s + 1]; q++) {
            ldem_contact *c = &w->contacts[k->shard_list[q]];
            const ldem_law_ops *ops = w->laws[c->law].ops;
            if (ops->history_head)
                *ops->history_head(c->law_state) = heads[m++];
        }
        free(heads);
        if (rc)
            return rc;
    }
    return LDEM_OK;
}

int ldem_world_step(ldem_world *w, ldem_err *err)
{
    int rc;
    if (!w->work || !w->work->shard_list) {
        if ((rc = resume_work(w, err)))
            return rc;
    }
    ldem_bodies *b = &w->bodies;
    const double dt = w->dt;
    ldem_integrate_first_half(b->count, b->flags, b->inv_mass, b->inertia, b->x, b->v, b->q,
                              b->L, b->force, b->torque, dt);
    if (w->modal.ndof) {
        ldem_modal_kick(w, 0.5 * dt);
        ldem_modal_drift(w, dt);
        ldem_modal_deform(w);
    }
    ldem_mat3 F;
    if (w->cell.periodic)
        F = ldem_periodic_deform(w, dt);
    ldem_walls_advance(w, w->t + dt, dt);
    w->t += dt;
    w->step++;
    rotation_increments(w);
    if (ldem_contacts_need_refresh(w)) {
        /* a new list is where ownership may change (every rank decides alike) */
        if (w->comm && w->comm->rebalance && (rc = w->comm->rebalance(w->comm->ctx, w)))
            return ldem_err_set(err, rc, NULL, 0, "rebalancing the ranks failed");
        if ((rc = ldem_contacts_refresh(w, err)))
            return rc;
    }
    forces_begin(w);
    double t0 = seconds_now();
    rc = ldem_contacts_update_and_sum(w, err);
    w->time_contacts += seconds_now() - t0;
    if (rc)
        return rc;
    forces_end(w, 1);
    if ((rc = ldem_modal_reduce(w, 1, err)))
        return rc;
    ldem_integrate_second_half(b->count, b->flags, b->inv_mass, b->v, b->q, b->L, b->force,
                               b->torque, dt);
    if (w->modal.ndof)
        ldem_modal_kick(w, 0.5 * dt);
    ldem_walls_servo(w);
    if (w->cell.periodic) {
        /* the kinetic stress wants the velocities of the step's end, as the positions */
        ldem_periodic_measure(w, 1, &F);
        ldem_periodic_servo(w);
    }
    /* every ghost as its owner left it, force included: the next step's first half kick
     * then moves it on this rank exactly as on its owner's */
    if (w->comm && (rc = w->comm->exchange(w->comm->ctx, w)))
        return ldem_err_set(err, rc, NULL, 0, "the exchange of ghost bodies failed");
    memcpy(b->x_prev, b->x, b->count * sizeof *b->x);
    memcpy(b->q_prev, b->q, b->count * sizeof *b->q);
    return compact_pools(w, err);
}

void ldem_world_measure(const ldem_world *w, ldem_probe_row *r)
{
    const ldem_bodies *b = &w->bodies;
    memset(r, 0, sizeof *r);
    r->t = w->t;
    r->step = w->step;
    /* Every sum over bodies or contacts is exact, so that it is the same bits however the
     * bodies are shared out between threads or ranks. */
    enum { KINETIC, DISSIPATED, TANGENTIAL, NORMAL, NSUMS };
    ldem_xsum sum[NSUMS];
    for (int q = 0; q < NSUMS; q++)
        ldem_xsum_clear(&sum[q]);
    for (size_t i = 0; i < b->count; i++) {
        if (b->flags[i] & (LDEM_BODY_FIXED | LDEM_BODY_GHOST))
            continue;
        ldem_xsum_add(&sum[KINETIC], 0.5 * b->mass[i] * ldem_vec3_norm2(b->v[i]) +
                                         ldem_rotor_energy(b->L[i], b->inertia[i]));
    }
    r->potential = potential(w) - w->potential0;
    uint64_t history_touching = 0, history_cells = 0;
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        /* a pair with a ghost first body is its owner's to count */
        if (b->flags[c->i] & LDEM_BODY_GHOST)
            continue;
        const ldem_pair_law *law = &w->laws[c->law];
        const ldem_law_ops *ops = law->ops;
        ldem_xsum_add(&sum[DISSIPATED], ldem_contact_dissipated(w, c));
        if (c->overlap > 0.0 && ops->stored_tangential) {
            ldem_law_env env = {&c->pair, (ldem_history_pool *)&w->pools[c->shard], 0};
            ldem_xsum_add(&sum[TANGENTIAL], ops->stored_tangential(law, &env, c->law_state));
        }
        if (c->overlap > 0.0 && ops->history_length && law->mu > 0.0) {
            uint32_t length = ops->history_length(c->law_state);
            history_touching++;
            history_cells += length;
            if (length > r->max_history)
                r->max_history = length;
        }
        for (uint32_t s = 0; ops->spring_energy && s < c->nsprings; s++)
            ldem_xsum_add(&sum[TANGENTIAL], ops->spring_energy(law, c->springs[s].xi));
        if (ldem_contact_touching(c)) {
            ldem_xsum_add(&sum[NORMAL], c->stored_normal);
            r->contacts++;
        }
    }
    if (w->comm) {
        w->comm->sum(w->comm->ctx, sum, NSUMS);
        uint64_t counts[3] = {r->contacts, history_touching, history_cells}, most = r->max_history;
        w->comm->count(w->comm->ctx, counts, 3, 0);
        w->comm->count(w->comm->ctx, &most, 1, 1);
        r->contacts = counts[0];
        history_touching = counts[1];
        history_cells = counts[2];
        r->max_history = (uint32_t)most;
    }
    r->kinetic = ldem_xsum_round(&sum[KINETIC]);
    r->stored_tangential = ldem_xsum_round(&sum[TANGENTIAL]);
    r->stored_normal = ldem_xsum_round(&sum[NORMAL]);
    ldem_modal_energy(w, &r->modal_kinetic, &r->modal_elastic);
    /* the contacts dropped so far, then the live ones */
    r->dissipated = w->dissipated_contacts_released + ldem_xsum_round(&sum[DISSIPATED]);
    r->damped = w->work_damping;
    r->work_walls = w->work_walls;
    double total = r->kinetic + r->potential + r->stored_normal + r->stored_tangential +
                   r->modal_kinetic + r->modal_elastic;
    double scale = fabs(w->e_initial);
    double magnitudes[] = {r->kinetic, fabs(r->potential), r->stored_normal,
                           r->stored_tangential, r->modal_kinetic, fabs(r->modal_elastic),
                           r->dissipated, r->damped, fabs(r->work_walls),
                           fabs(r->work_cell)};
    for (size_t k = 0; k < sizeof magnitudes / sizeof *magnitudes; k++)
        if (magnitudes[k] > scale)
            scale = magnitudes[k];
    r->work_cell = w->work_cell;
    double imbalance =
        total + r->dissipated + r->damped - r->work_walls - r->work_cell - w->e_initial;
    r->balance_error = scale > 0.0 ? imbalance / scale : 0.0;
    r->mean_history = history_touching ? (double)history_cells / (double)history_touching : 0.0;
    r->history_bytes = ldem_world_history_bytes(w);
    r->history_cells = ldem_world_history_cells(w);
    if (w->comm) {
        /* Shared out, a pair at a face is held twice: count the cells each pair holds, once
         * (by its first body's owner), which is what the pools hold on one process. The
         * pools' capacity is this run's memory, summed over the ranks. */
        uint64_t cells = 0;
        for (size_t k = 0; k < w->ncontacts; k++) {
            const ldem_contact *c = &w->contacts[k];
            const ldem_law_ops *ops = w->laws[c->law].ops;
            if (ops->history_length && !(b->flags[c->i] & LDEM_BODY_GHOST))
                cells += ops->history_length(c->law_state);
        }
        uint64_t both[2] = {cells, r->history_bytes};
        w->comm->count(w->comm->ctx, both, 2, 0);
        r->history_cells = both[0];
        r->history_bytes = both[1];
    }
    if (w->cell.periodic) {
        for (int k = 0; k < 3; k++) {
            r->strain[k] = ldem_cell_strain(&w->cell, k);
            r->stress[k] = w->stress.m[k][k];
        }
        r->stress[3] = w->stress.m[0][1];
        r->stress[4] = w->stress.m[1][2];
        r->stress[5] = w->stress.m[2][0];
        ldem_periodic_indicators(w, &r->unbalanced, &r->inertial);
    }
}
