/* periodic.c — the world in a periodic cell: positions wrapped into the cell, the cell's
 * affine deformation applied to them, the Love–Weber stress and the servo that drives the
 * cell, and the quasi-static indicators the probes report (ldem/sim/cell.h has the math). */
#include <math.h>
#include <string.h>

#include "periodic.h"
#include "ldem/sym3.h"
#include "step_work.h"

void ldem_periodic_wrap(ldem_world *w)
{
    ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++) {
        int32_t m[3];
        ldem_cell_wrap_shift(&w->cell, b->x[i], m);
        if (!m[0] && !m[1] && !m[2])
            continue;
        /* x_prev moves with the cell of its own time, so that a contact's image increment
         * x_j + h n − (x_j_prev + h_prev n) is the same before and after the wrap. */
        b->x[i] = ldem_vec3_sub(b->x[i], ldem_cell_offset(&w->cell.h, m));
        b->x_prev[i] = ldem_vec3_sub(b->x_prev[i], ldem_cell_offset(&w->cell.h_prev, m));
    }
}

/* L_kk of a cyclic direction for the step from w->step on, starting its triangle at this
 * step and this strain when it has not started. */
static double cyclic_rate(ldem_world *w, int k)
{
    if (!w->cyclic_started[k]) {
        w->cyclic_started[k] = 1;
        w->cyclic_start[k] = w->step;
        w->cyclic_strain0[k] = ldem_cell_strain(&w->cell, k);
    }
    return ldem_cell_cyclic_rate(&w->cell, k, &w->cell_control.cyclic[k],
                                 w->step - w->cyclic_start[k], w->dt, w->cyclic_strain0[k]);
}

ldem_mat3 ldem_periodic_deform(ldem_world *w, double dt)
{
    /* A cyclic direction's rate comes from the step count here, not from the L the last
     * step left (after a restart that switched the drive, that L is the old drive's): the
     * same value ldem_periodic_servo set for the probes, bit for bit. */
    for (int k = 0; k < 3; k++)
        if (w->cell_control.drive[k] == LDEM_CELL_CYCLIC)
            w->cell.L.m[k][k] = cyclic_rate(w, k);
    ldem_mat3 F = ldem_cell_advance(&w->cell, dt);
    ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++)
        b->x[i] = ldem_cell_remap(&w->cell, &F, b->x[i]);
    return F;
}

void ldem_periodic_measure(ldem_world *w, int book_work, const ldem_mat3 *F)
{
    /* The contacts' part (each thread's exact sums of the blocks' partial sums,
     * ldem_contact_sums) and the kinetic part, Σ m v ⊗ v (its upper triangle: a partial sum
     * per block of bodies in index order, the blocks' partials summed exactly,
     * LDEM_SUM_BLOCK), in one set of exact sums: one allreduce for a distributed world. */
    enum { KINETIC = LDEM_CELL_SUMS, NSUMS = LDEM_CELL_SUMS + 6 };
    const ldem_step_work *k = w->work;
    ldem_xsum total[NSUMS];
    for (int q = 0; q < NSUMS; q++)
        ldem_xsum_clear(&total[q]);
    for (int q = 0; q < LDEM_CELL_SUMS; q++)
        for (int t = 0; t < k->nthreads; t++)
            ldem_xsum_merge(&total[q], &k->cell_sums[(size_t)t * LDEM_CELL_SUMS + q]);
    const ldem_bodies *b = &w->bodies;
    for (size_t first = 0; first < b->count; first += LDEM_SUM_BLOCK) {
        size_t end = first + LDEM_SUM_BLOCK < b->count ? first + LDEM_SUM_BLOCK : b->count;
        double partial[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        for (size_t i = first; i < end; i++) {
            if (b->flags[i] & (LDEM_BODY_FIXED | LDEM_BODY_GHOST))
                continue;
            double v[3] = {b->v[i].x, b->v[i].y, b->v[i].z};
            for (int a = 0, q = 0; a < 3; a++)
                for (int bb = a; bb < 3; bb++)
                    partial[q++] += b->mass[i] * v[a] * v[bb];
        }
        for (int q = 0; q < 6; q++)
            ldem_xsum_add(&total[KINETIC + q], partial[q]);
    }
    if (w->comm)
        w->comm->sum(w->comm->ctx, total, NSUMS);
    ldem_mat3 virial, kinetic;
    double K[3];
    for (int a = 0; a < 3; a++) {
        for (int bb = 0; bb < 3; bb++)
            virial.m[a][bb] = ldem_xsum_round(&total[3 * a + bb]);
        K[a] = ldem_xsum_round(&total[9 + a]);
    }
    for (int a = 0, q = KINETIC; a < 3; a++)
        for (int bb = a; bb < 3; bb++, q++)
            kinetic.m[a][bb] = kinetic.m[bb][a] = ldem_xsum_round(&total[q]);
    /* Work of the cell's deformation on the grains over the step: the affine part of every
     * branch vector, (F − I) ℓ, against the contact forces, by the trapezoid rule between
     * the previous and this evaluation (as the walls' work). */
    if (book_work && F) {
        double power = 0.0;
        for (int a = 0; a < 3; a++)
            for (int bb = 0; bb < 3; bb++)
                power += (F->m[a][bb] - (a == bb ? 1.0 : 0.0)) *
                         0.5 * (virial.m[a][bb] + w->virial.m[a][bb]);
        w->work_cell -= power;
    }
    w->virial = virial;
    double volume = ldem_cell_volume(&w->cell.h);
    for (int a = 0; a < 3; a++) {
        for (int bb = 0; bb < 3; bb++)
            w->stress.m[a][bb] =
                (0.5 * (virial.m[a][bb] + virial.m[bb][a]) + kinetic.m[a][bb]) / volume;
        w->stiffness[a] = K[a] / volume;
    }
}

void ldem_periodic_servo(ldem_world *w)
{
    const ldem_cell_control *ctl = &w->cell_control;
    memset(&w->cell.L, 0, sizeof w->cell.L);
    for (int k = 0; k < 3; k++) {
        if (ctl->drive[k] != LDEM_CELL_CYCLIC)
            w->cyclic_started[k] = 0; /* a direction that turns cyclic starts afresh */
        if (ctl->drive[k] != LDEM_CELL_STRESS && ctl->drive[k] != LDEM_CELL_MEAN_STRESS) {
            w->cell.L.m[k][k] =
                ctl->drive[k] == LDEM_CELL_CYCLIC ? cyclic_rate(w, k) : ctl->strain_rate[k];
            w->servo_integral[k] = 0.0; /* a direction that turns stress-driven starts afresh */
            continue;
        }
        /* Mean stress: the target of σ_kk is what makes the trace 3 p*, given the other two
         * directions' stresses of this evaluation. */
        double target = ctl->drive[k] == LDEM_CELL_STRESS
                            ? ctl->stress[k]
                            : 3.0 * ctl->stress[k] - (w->stress.m[(k + 1) % 3][(k + 1) % 3] +
                                                      w->stress.m[(k + 2) % 3][(k + 2) % 3]);
        w->cell.L.m[k][k] = ldem_cell_servo_rate_pi(w->stress.m[k][k], target,
                                                    w->stiffness[k], w->dt, ctl->gain,
                                                    ctl->integral, ctl->max_rate,
                                                    &w->servo_integral[k]);
    }
}

int ldem_periodic_need_refresh(const ldem_world *w)
{
    /* Each body's move since the list build less the affine move the cell gave it, d_i; a
     * pair then changes its separation by at most |d_i| + |d_j| + e ℓ with e = ‖F − I‖ and
     * ℓ the separation, and no pair farther than the reach + skin needs to be seen: the list
     * holds while 2 max|d| + e (2 r_max + skin) ≤ skin (ldem/sim/cell.h). */
    const ldem_bodies *b = &w->bodies;
    ldem_mat3 F = ldem_cell_deformation(&w->cell, &w->h_list);
    double d2max = 0.0, rmax = 0.0, grown = 0.0;
    for (size_t i = 0; i < b->count; i++) {
        ldem_vec3 affine = ldem_cell_remap(&w->cell, &F, w->x_list[i]);
        double d2 = ldem_vec3_norm2(ldem_vec3_sub(b->x[i], affine));
        d2max = d2 > d2max ? d2 : d2max;
        rmax = b->radius[i] > rmax ? b->radius[i] : rmax;
        grown = fmax(grown, b->radius[i] - w->radius_list[i]);
    }
    double e = ldem_cell_deformation_since(&w->cell, &w->h_list);
    return 2.0 * (sqrt(d2max) + grown) + e * (2.0 * rmax + w->skin) > w->skin;
}

void ldem_periodic_indicators(const ldem_world *w, double *unbalanced, double *inertial)
{
    const ldem_bodies *b = &w->bodies;
    /* exact sums over the owned bodies and contacts (docs/mpi.md) */
    enum { NET, MASS, VOLUME, CONTACT, NSUMS };
    ldem_xsum sum[NSUMS];
    for (int q = 0; q < NSUMS; q++)
        ldem_xsum_clear(&sum[q]);
    uint64_t count[2] = {0, 0}; /* free bodies, touching contacts */
    for (size_t i = 0; i < b->count; i++) {
        if (b->flags[i] & (LDEM_BODY_FIXED | LDEM_BODY_GHOST))
            continue;
        ldem_xsum_add(&sum[NET], ldem_vec3_norm(b->force[i]));
        ldem_xsum_add(&sum[MASS], b->mass[i]);
        ldem_xsum_add(&sum[VOLUME], b->mass[i] / w->materials[b->material[i]].density);
        count[0]++;
    }
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        if (!ldem_contact_touching(c) || (b->flags[c->i] & LDEM_BODY_GHOST))
            continue;
        ldem_xsum_add(&sum[CONTACT], ldem_vec3_norm(ldem_vec3_add(c->fn, c->ft)));
        count[1]++;
    }
    if (w->comm) {
        w->comm->sum(w->comm->ctx, sum, NSUMS);
        w->comm->count(w->comm->ctx, count, 2, 0);
    }
    double net = ldem_xsum_round(&sum[NET]), mass = ldem_xsum_round(&sum[MASS]),
           volume = ldem_xsum_round(&sum[VOLUME]), contact = ldem_xsum_round(&sum[CONTACT]);
    uint64_t free_bodies = count[0], touching = count[1];
    /* YADE's unbalanced force: the mean net force on a grain over the mean contact force. */
    *unbalanced = touching && free_bodies && contact > 0.0
                      ? (net / (double)free_bodies) / (contact / (double)touching)
                      : 0.0;
    /* I = γ̇ d √(ρ/p): γ̇ the largest principal rate of the cell's deformation, d the mean
     * volume-equivalent diameter, ρ the grains' density, p the mean stress. */
    ldem_mat3 D;
    for (int a = 0; a < 3; a++)
        for (int bb = 0; bb < 3; bb++)
            D.m[a][bb] = 0.5 * (w->cell.L.m[a][bb] + w->cell.L.m[bb][a]);
    double eig[3] = {0.0, 0.0, 0.0};
    ldem_mat3 vec;
    ldem_sym3_eigen(D, eig, &vec);
    double rate = fmax(fabs(eig[0]), fabs(eig[2]));
    double p = (w->stress.m[0][0] + w->stress.m[1][1] + w->stress.m[2][2]) / 3.0;
    if (!free_bodies || rate == 0.0) {
        *inertial = 0.0;
        return;
    }
    double d = 2.0 * cbrt(3.0 * (volume / (double)free_bodies) / (4.0 * 3.14159265358979323846));
    *inertial = p > 0.0 ? rate * d * sqrt((mass / volume) / p) : INFINITY;
}
