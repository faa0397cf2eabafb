/* sphere_lanes_update.h — the contact update of LDEM__LANES touching rigid sphere pairs at
 * once, bit for bit contacts.c's contact_update of each: the geometry, material-point steps,
 * frame follow and frame transform in the lanes of sphere_lanes.h, then the law lane by lane
 * (its stack walk branches on every contact's history), then the forces in the lanes again.
 *
 * Included once by contacts.c (2 lanes, SSE2) and once by sphere_quads.c (4 lanes, compiled
 * for AVX2), each after defining LDEM__LANES; it defines the static update_sphere_lanes.
 */
#ifndef LDEM_SIM_SPHERE_LANES_UPDATE_H
#define LDEM_SIM_SPHERE_LANES_UPDATE_H

#include "step_work.h"
#include "contact_forces.h"
#include "contact_loop.h"
#include "contact_kinematics.h"
#include "sphere_lanes.h"
#include "sphere_lanes_io.h"

enum { LANES = LDEM__LANES };

/* contacts.c's add_to_sums of lanes that all touch, in lane order: f ⊗ ℓ (force on j,
 * branch vector from i to j's image) and kn (n_a ℓ_a)², each product in the lanes, and each
 * sum's additions one lane after the other, as the list order has them. */
static void add_to_sums_lanes(ldem__v3l force, ldem__v3l branch, ldem__v3l n, ldem__vl kn,
                              ldem_contact_sums *sums)
{
    const ldem__vl fa[3] = {force.x, force.y, force.z}, la[3] = {branch.x, branch.y, branch.z},
                   na[3] = {n.x, n.y, n.z};
    ldem__vl prod[12];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            prod[3 * a + b] = fa[a] * la[b];
    for (int a = 0; a < 3; a++) {
        ldem__vl nl = na[a] * la[a];
        prod[9 + a] = kn * nl * nl;
    }
    double acc[12];
    for (int k = 0; k < 9; k++)
        acc[k] = sums->virial.m[k / 3][k % 3];
    for (int a = 0; a < 3; a++)
        acc[9 + a] = sums->stiffness[a];
    for (int l = 0; l < LANES; l++)
        for (int k = 0; k < 12; k++)
            acc[k] += prod[k][l];
    for (int k = 0; k < 9; k++)
        sums->virial.m[k / 3][k % 3] = acc[k];
    for (int a = 0; a < 3; a++)
        sums->stiffness[a] = acc[9 + a];
}

/* ldem__patch_forces of touching sphere pairs that all still overlap (xi, xj the centres,
 * j's at its image; n, at the patches' normals and points): the stiffness, the damping
 * (computed in every lane, kept where the lane's law has it), the tangential force out of the
 * frame, the torques; and their stress sums when `sums` is not NULL. */
static void hertz_forces_lanes(ldem_world *w, ldem_contact *const c[LANES],
                               const ldem_patch p[LANES], ldem__v3l xi, ldem__v3l xj,
                               ldem__v3l n, ldem__v3l at, ldem__v3l du, ldem__ql frame,
                               const double normal[LANES], double t[LANES][2],
                               ldem_contact_sums *sums)
{
    const ldem__vl two = ldem__vl_splat(2.0), zero = ldem__vl_splat(0.0);
    double d1a[LANES], estar_a[LANES], rstar_a[LANES], mstar_a[LANES], zeta_a[LANES],
        tx_a[LANES], ty_a[LANES];
    ldem_vec3 *fn_p[LANES], *ft_p[LANES], *torque_i_p[LANES], *torque_j_p[LANES];
    for (int l = 0; l < LANES; l++) {
        d1a[l] = p[l].overlap;
        estar_a[l] = c[l]->pair.estar;
        rstar_a[l] = c[l]->pair.rstar;
        mstar_a[l] = ldem__effective_mass(w, c[l]);
        zeta_a[l] = w->laws[c[l]->law].damping;
        tx_a[l] = t[l][0];
        ty_a[l] = t[l][1];
        fn_p[l] = &c[l]->fn;
        ft_p[l] = &c[l]->ft;
        torque_i_p[l] = &c[l]->torque_i;
        torque_j_p[l] = &c[l]->torque_j;
    }
    ldem__vl d1 = ldem__vl_gather(d1a), N = ldem__vl_gather(normal);
    /* ldem_hertz_stiffness */
    ldem__vl kn = two * ldem__vl_gather(estar_a) * ldem__vl_sqrt(ldem__vl_gather(rstar_a) * d1);
    /* normal_damping and ldem_hertz_damping_from; the rate lane by lane, by the scalar
     * path's own function (it needs each body's turn) */
    ldem__vl zeta = ldem__vl_gather(zeta_a), rate = zero;
    for (int l = 0; l < LANES; l++)
        if (zeta_a[l] > 0.0 && w->dt > 0.0)
            rate[l] = ldem__approach_rate(w, c[l], ldem__v3l_lane(du, l), ldem__v3l_lane(n, l),
                                          ldem__v3l_lane(at, l), ldem__v3l_lane(xi, l),
                                          ldem__v3l_lane(xj, l));
    ldem__vl f = two * zeta * ldem__vl_sqrt(kn * ldem__vl_gather(mstar_a)) * rate;
    f = ldem__vl_select(f < -N, -N, f);
    ldem__ml has_damping = (zeta > 0.0) & (ldem__vl_splat(w->dt) > 0.0);
    ldem__vl damped = ldem__vl_select(has_damping, f, zero);
    for (int l = 0; l < LANES; l++)
        if (has_damping[l])
            c[l]->dissipated += f[l] * rate[l] * w->dt;
    /* set_forces */
    ldem__vl s = N + damped;
    ldem__v3l fn = {s * n.x, s * n.y, s * n.z};
    /* ldem_contact_from_frame of (−t, 0): the third component is +0.0, as the scalar path's */
    ldem__v3l minus_t = {-ldem__vl_gather(tx_a), -ldem__vl_gather(ty_a), zero};
    ldem__v3l ft = ldem__ql_rotate(frame, minus_t);
    ldem__v3l force = ldem__v3l_add(fn, ft);
    ldem__v3l minus_force = {-force.x, -force.y, -force.z};
    ldem__v3l torque_i = ldem__v3l_cross(ldem__v3l_sub(at, xi), minus_force);
    ldem__v3l torque_j = ldem__v3l_cross(ldem__v3l_sub(at, xj), force);
    ldem__v3l_store(fn, fn_p);
    ldem__v3l_store(ft, ft_p);
    ldem__v3l_store(torque_i, torque_i_p);
    ldem__v3l_store(torque_j, torque_j_p);
    for (int l = 0; l < LANES; l++) {
        c[l]->kn = kn[l];
        c[l]->stored_normal = 0.4 * normal[l] * d1[l];
    }
    if (sums)
        add_to_sums_lanes(force, ldem__v3l_sub(xj, xi), n, kn, sums);
}

/* The lanes' normals and points in their patches. */
static inline void patch_geometry(ldem_patch p[LANES], ldem__v3l normal, ldem__v3l point)
{
    for (int l = 0; l < LANES; l++) {
        p[l].normal = ldem__v3l_lane(normal, l);
        p[l].point = ldem__v3l_lane(point, l);
    }
}

/* contacts.c's contact_update of LANES touching rigid_hertz_sphere_pair contacts, in list
 * order for everything that is not per contact (the laws' pool), and their add_to_sums into
 * `sums` (periodic cells; NULL otherwise). On failure *failed is the lane that failed, the
 * lanes before it are updated, and nothing is summed. */
static int update_sphere_lanes(ldem_world *w, ldem_contact *const c[LANES],
                               const image_offset off[LANES], ldem_contact_sums *sums,
                               int *failed)
{
    const ldem_bodies *b = &w->bodies;
    const ldem_quat *dq = w->work->dq;
    const ldem_vec3 *xi_p[LANES], *xj_p[LANES], *xpi_p[LANES], *xpj_p[LANES], *now_p[LANES],
        *prev_p[LANES];
    double ri_a[LANES], rj_a[LANES];
    const ldem_quat *dqi_p[LANES], *dqj_p[LANES];
    ldem_quat *frame_p[LANES];
    for (int l = 0; l < LANES; l++) {
        uint32_t i = c[l]->i, j = c[l]->j;
        xi_p[l] = &b->x[i];
        xj_p[l] = &b->x[j];
        xpi_p[l] = &b->x_prev[i];
        xpj_p[l] = &b->x_prev[j];
        now_p[l] = &off[l].now;
        prev_p[l] = &off[l].prev;
        ri_a[l] = b->radius[i];
        rj_a[l] = b->radius[j];
        dqi_p[l] = &dq[i];
        dqj_p[l] = &dq[j];
        frame_p[l] = &c[l]->frame;
    }
    /* i sits in the cell, j at its image */
    ldem__v3l xi = ldem__v3l_load(xi_p);
    ldem__v3l xj = ldem__v3l_add(ldem__v3l_load(xj_p), ldem__v3l_load(now_p));
    ldem__vl ri = ldem__vl_gather(ri_a), rj = ldem__vl_gather(rj_a);
    ldem__vl overlap;
    ldem__v3l normal, point;
    ldem__sphere_sphere_l(xi, ri, xj, rj, &overlap, &normal, &point);
    /* The patches, for the scalar functions: their normals and points only where a scalar
     * path needs them (patch_geometry). */
    ldem_patch p[LANES];
    for (int l = 0; l < LANES; l++) {
        /* field by field: a compound literal had GCC zero the whole patch first with a
         * `rep stos`, whose start-up cost tens of cycles a lane */
        p[l].overlap = overlap[l];
        p[l].r1 = ri[l];
        p[l].r2 = rj[l];
        p[l].nnodes = 0;
        p[l].volume = 0.0;
        if (ldem__hertz_pair_update(w, c[l], &p[l])) {
            *failed = l;
            return LDEM_ERR_INTERNAL;
        }
    }
    /* fabs(|n|² − 1) ≤ 4e-15 in every lane, as ldem_contact_frame_follow_exact tests it */
    ldem__vl off_unit = ldem__v3l_dot(normal, normal) - 1.0;
    ldem__ml unit_l = ldem__vl_select(off_unit < 0.0, -off_unit, off_unit) <= 4e-15;
    int unit = 1;
    for (int l = 0; l < LANES; l++)
        unit = unit && unit_l[l];
    if (!unit) { /* a normal the frame follow would renormalize: all go the scalar way */
        patch_geometry(p, normal, point);
        for (int l = 0; l < LANES; l++) {
            int rc = ldem__patch_contact(w, c[l], &off[l], &p[l], dq);
            if (rc) {
                *failed = l;
                return rc;
            }
        }
        return LDEM_OK;
    }
    const ldem__v3l zero = {ldem__vl_splat(0.0), ldem__vl_splat(0.0), ldem__vl_splat(0.0)};
    ldem__ql dq_i = ldem__ql_load(dqi_p), dq_j = ldem__ql_load(dqj_p);
    /* material_step adds i's zero offset (NO_OFFSET): so do the lanes, to the bit */
    ldem__v3l step_i = ldem__rigid_step_l(ldem__v3l_add(xi, zero),
                                          ldem__v3l_add(ldem__v3l_load(xpi_p), zero), dq_i,
                                          point);
    ldem__v3l step_j = ldem__rigid_step_l(
        xj, ldem__v3l_add(ldem__v3l_load(xpj_p), ldem__v3l_load(prev_p)), dq_j, point);
    ldem__v3l du = ldem__v3l_sub(step_j, step_i);
    ldem__ql frame =
        ldem__frame_follow_l(ldem__ql_load((const ldem_quat *const *)frame_p), dq_i, dq_j, normal);
    ldem__v3l local = ldem__ql_rotate_inv(frame, du); /* ldem_contact_to_frame */
    double normal_l[LANES], t_l[LANES][2];
    /* The laws read neither the frame nor the patch: both are stored after them, all lanes at
     * once (and the forces below read them from the contacts). */
    for (int l = 0; l < LANES; l++) {
        double ds[2] = {local.x[l], local.y[l]};
        int rc = ldem__patch_law_step(w, c[l], p[l].overlap, ds, &normal_l[l], t_l[l]);
        if (rc) { /* as contact_update leaves them: the lanes so far updated, then stop */
            patch_geometry(p, normal, point);
            for (int m = 0; m <= l; m++) {
                c[m]->frame = ldem__ql_lane(frame, m);
                ldem__record_patch(c[m], &p[m]);
                ldem__patch_forces(w, c[m], &off[m], &p[m], ldem__v3l_lane(du, m), normal_l[m],
                                   t_l[m]);
            }
            *failed = l;
            return rc;
        }
    }
    /* ldem__record_patch, all lanes at once (nnodes is 0 for sphere pairs) */
    ldem_vec3 *normal_p[LANES], *point_p[LANES];
    for (int l = 0; l < LANES; l++) {
        c[l]->overlap = p[l].overlap;
        c[l]->npatch = 0;
        normal_p[l] = &c[l]->normal;
        point_p[l] = &c[l]->point;
    }
    ldem__v3l_store(normal, normal_p);
    ldem__v3l_store(point, point_p);
    ldem__ql_store(frame, frame_p);
    int all_touching = 1;
    for (int l = 0; l < LANES; l++)
        all_touching = all_touching && p[l].overlap > 0.0;
    if (all_touching) {
        hertz_forces_lanes(w, c, p, xi, xj, normal, point, du, frame, normal_l, t_l, sums);
    } else { /* a lane that separated clears its forces */
        patch_geometry(p, normal, point);
        for (int l = 0; l < LANES; l++)
            ldem__patch_forces(w, c[l], &off[l], &p[l], ldem__v3l_lane(du, l), normal_l[l],
                               t_l[l]);
        for (int l = 0; sums && l < LANES; l++)
            ldem__add_to_sums(w, c[l], &off[l], sums);
    }
    return LDEM_OK;
}

#endif
