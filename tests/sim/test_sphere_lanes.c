/* Touching sphere pairs several at once (runtime/sim/sphere_lanes.inc, sphere_lanes_update.inc,
 * contact_loop.c, sphere_quads.c): each lane must give the scalar path's result to the bit, kernel
 * by kernel and over a whole simulation.
 *
 * meson builds this file twice: with LDEM__LANES 2 and 4. The kernels are tested at that
 * width (at 4 without AVX2 the compiler splits each operation in two halves: the arithmetic is
 * the same, the instructions not); the block test, in the two-lane build only, steps the
 * library itself with each lane count it has, AVX2 included where the CPU has it. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/contact/frame.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/step.h"
#include "../../runtime/sim/step_work.h"
#include "sphere_lanes.inc"
#include "sphere_lanes_io.inc"
#include "world_fixture.h"

enum { W = LDEM__LANES };

static const double R = 1e-3;

static unsigned rng = 2463534242u;
static double uniform(double lo, double hi) /* xorshift32: the same numbers on every run */
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (rng / 4294967296.0);
}

static ldem_vec3 random_unit(void)
{
    return ldem_vec3_normalize(
        ldem_vec3_make(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
}

/* A rotation by an angle up to `max` (radians) about a random axis; with w < 0 half the time
 * (the same rotation: the twist must take either sign). */
static ldem_quat random_rotation(double max)
{
    ldem_quat q = ldem_quat_from_axis_angle(random_unit(), uniform(0, max));
    return uniform(0, 1) < 0.5 ? q : ldem_quat_make(-q.w, -q.x, -q.y, -q.z);
}

static int same_quat(ldem_quat a, ldem_quat b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Frames, rotation increments and new normals from everyday steps (1e-6 rad) to half turns,
 * and the degenerate twists (a half turn about an axis normal to the frame's normal, whose
 * twist is the zero 2-vector): both lanes against ldem_contact_frame_follow_exact. */
Test(sphere_lanes, frame_follow_lanes_are_the_scalar_follow)
{
    const double sizes[] = {1e-6, 1e-3, 0.3, 3.1};
    int checked = 0;
    for (int k = 0; k < 4000; k++) {
        double size = sizes[k % 4];
        ldem_quat q[W], dqi[W], dqj[W];
        ldem_vec3 n[W];
        int unit = 1;
        for (int l = 0; l < W; l++) {
            q[l] = ldem_contact_frame_init(random_unit());
            dqi[l] = random_rotation(size);
            dqj[l] = random_rotation(size);
            ldem_vec3 n0 = ldem_contact_frame_normal(q[l]);
            n[l] = ldem_quat_rotate(random_rotation(size), n0);
            if (k % 50 == 7) { /* a half turn about an axis normal to n0: zero twist */
                ldem_vec3 axis = ldem_vec3_normalize(ldem_vec3_cross(n0, random_unit()));
                dqi[l] = ldem_quat_make(0.0, axis.x, axis.y, axis.z);
            }
        }
        for (int l = 0; l < W; l++)
            unit = unit && fabs(ldem_vec3_norm2(n[l]) - 1.0) <= 4e-15;
        if (!unit)
            continue; /* the lanes take unit normals only (update_sphere_lanes checks) */
        ldem__ql got = ldem__frame_follow_l(ldem__ql_gather(q), ldem__ql_gather(dqi),
                                            ldem__ql_gather(dqj), ldem__v3l_gather(n));
        for (int l = 0; l < W; l++) {
            ldem_quat want = ldem_contact_frame_follow_exact(q[l], dqi[l], dqj[l], n[l]);
            ldem_quat lane = ldem__ql_lane(got, l);
            cr_assert(same_quat(lane, want),
                      "case %d lane %d: (%.17g %.17g %.17g %.17g) against the scalar "
                      "(%.17g %.17g %.17g %.17g)", k, l, lane.w, lane.x, lane.y, lane.z,
                      want.w, want.x, want.y, want.z);
        }
        checked++;
    }
    cr_assert_gt(checked, 3000, "only %d cases had unit normals", checked);
}

Test(sphere_lanes, rotation_and_material_step_lanes_are_the_scalar_ones)
{
    for (int k = 0; k < 1000; k++) {
        ldem_quat q[W];
        ldem_vec3 v[W], x[W], xp[W], at[W];
        for (int l = 0; l < W; l++) {
            q[l] = random_rotation(k % 2 ? 1e-5 : 3.0);
            v[l] = ldem_vec3_scale(random_unit(), uniform(0, 2e-3));
            x[l] = ldem_vec3_make(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
            xp[l] = ldem_vec3_add(x[l], ldem_vec3_scale(random_unit(), 1e-7));
            at[l] = ldem_vec3_add(x[l], ldem_vec3_scale(random_unit(), R));
        }
        ldem__ql ql = ldem__ql_gather(q);
        ldem__v3l rot = ldem__ql_rotate_inv(ql, ldem__v3l_gather(v));
        ldem__v3l step = ldem__rigid_step_l(ldem__v3l_gather(x), ldem__v3l_gather(xp), ql,
                                            ldem__v3l_gather(at));
        for (int l = 0; l < W; l++) {
            ldem_vec3 want = ldem_quat_rotate_inv(q[l], v[l]), lane = ldem__v3l_lane(rot, l);
            cr_assert(memcmp(&lane, &want, sizeof lane) == 0, "rotation, case %d lane %d", k, l);
            /* ldem__material_step of a rigid body */
            ldem_vec3 r_prev = ldem_quat_rotate_inv(q[l], ldem_vec3_sub(at[l], x[l]));
            ldem_vec3 want_step = ldem_vec3_sub(at[l], ldem_vec3_add(xp[l], r_prev));
            lane = ldem__v3l_lane(step, l);
            cr_assert(memcmp(&lane, &want_step, sizeof lane) == 0, "step, case %d lane %d", k,
                      l);
        }
    }
}

Test(sphere_lanes, geometry_lanes_are_ldem_sphere_sphere)
{
    for (int k = 0; k < 1000; k++) {
        ldem_vec3 xi[W], xj[W];
        double ri[W], rj[W];
        for (int l = 0; l < W; l++) {
            ri[l] = uniform(0.9, 1.1) * R;
            rj[l] = uniform(0.9, 1.1) * R;
            xi[l] = ldem_vec3_make(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
            /* touching, apart, and (k % 10 == 3) coincident centres */
            double dist = k % 10 == 3 ? 0.0 : uniform(0.9, 1.1) * (ri[l] + rj[l]);
            xj[l] = ldem_vec3_add(xi[l], ldem_vec3_scale(random_unit(), dist));
        }
        ldem__vl overlap;
        ldem__v3l normal, point;
        ldem__sphere_sphere_l(ldem__v3l_gather(xi), ldem__vl_gather(ri), ldem__v3l_gather(xj),
                              ldem__vl_gather(rj),
                               &overlap, &normal, &point);
        for (int l = 0; l < W; l++) {
            ldem_patch want;
            ldem_sphere_sphere(xi[l], ri[l], xj[l], rj[l], &want);
            ldem_vec3 n = ldem__v3l_lane(normal, l), at = ldem__v3l_lane(point, l);
            double d = overlap[l];
            cr_assert(memcmp(&d, &want.overlap, sizeof d) == 0 &&
                          memcmp(&n, &want.normal, sizeof n) == 0 &&
                          memcmp(&at, &want.point, sizeof at) == 0,
                      "case %d lane %d: overlap %.17g normal (%g %g %g), scalar %.17g (%g %g %g)",
                      k, l, d, n.x, n.y, n.z, want.overlap, want.normal.x, want.normal.y,
                      want.normal.z);
        }
    }
}

/* Records with neighbours on both sides, so that a store that spills over shows. */
typedef struct {
    double before;
    ldem_vec3 v;
    ldem_quat q;
    double after;
} io_record;

/* ldem__v3l_load/_store and ldem__ql_load/_store move each lane's record bit for bit, in any
 * order of the records, and touch nothing else. (This build's width without AVX at four
 * lanes: the AVX2 transposes are checked through the block test below, which steps the
 * library's four lanes.) */
Test(sphere_lanes, loads_and_stores_move_each_lanes_record)
{
    enum { N = 7 };
    for (int k = 0; k < 200; k++) {
        io_record rec[N];
        for (int r = 0; r < N; r++)
            rec[r] = (io_record){uniform(-1, 1), random_unit(), random_rotation(3.0),
                                 uniform(-1, 1)};
        io_record before[N];
        memcpy(before, rec, sizeof rec);
        const ldem_vec3 *vp[W];
        const ldem_quat *qp[W];
        ldem_vec3 *vout[W];
        ldem_quat *qout[W];
        int which[W];
        for (int l = 0; l < W; l++) {
            which[l] = (k + 3 * l) % N; /* distinct lanes, in varying order */
            vp[l] = vout[l] = &rec[which[l]].v;
            qp[l] = qout[l] = &rec[which[l]].q;
        }
        ldem__v3l v = ldem__v3l_load(vp);
        ldem__ql q = ldem__ql_load(qp);
        for (int l = 0; l < W; l++) {
            ldem_vec3 lv = ldem__v3l_lane(v, l);
            ldem_quat lq = ldem__ql_lane(q, l);
            cr_assert(memcmp(&lv, vp[l], sizeof lv) == 0, "case %d: vector lane %d", k, l);
            cr_assert(same_quat(lq, *qp[l]), "case %d: quaternion lane %d", k, l);
        }
        /* store the lanes rotated by one place: record which[l] gets lane l + 1's values */
        ldem__v3l v2 = v;
        ldem__ql q2 = q;
        for (int l = 0; l < W; l++) {
            int m = (l + 1) % W;
            v2.x[l] = v.x[m], v2.y[l] = v.y[m], v2.z[l] = v.z[m];
            q2.w[l] = q.w[m], q2.x[l] = q.x[m], q2.y[l] = q.y[m], q2.z[l] = q.z[m];
        }
        ldem__v3l_store(v2, vout);
        ldem__ql_store(q2, qout);
        for (int r = 0; r < N; r++) {
            int lane = -1;
            for (int l = 0; l < W; l++)
                if (which[l] == r)
                    lane = l;
            io_record want = before[r];
            if (lane >= 0) {
                want.v = before[which[(lane + 1) % W]].v;
                want.q = before[which[(lane + 1) % W]].q;
            }
            cr_assert(memcmp(&rec[r], &want, sizeof want) == 0, "case %d: record %d", k, r);
        }
    }
}

#if LDEM__LANES == 2 /* the library's own lanes: once is enough */
/* A simple cubic block of 6³ spheres overlapping their neighbours by 1 % of R, each with a
 * random velocity and spin: every body has touching contacts that slide, roll and twist,
 * under normal damping. */
static void block(ldem_world *w, int law)
{
    wf_world(w, law);
    rng = 88172645u;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 6; k++) {
                uint32_t b = wf_add_sphere(
                    w, ldem_vec3_make(1.99 * R * i, 1.99 * R * j, 1.99 * R * k), R,
                    ldem_vec3_make(uniform(-0.05, 0.05), uniform(-0.05, 0.05),
                                   uniform(-0.05, 0.05)));
                w->bodies.L[b] = ldem_vec3_scale(w->bodies.inertia[b], uniform(-200, 200));
            }
    w->dt = 2e-8;
    w->skin = 0.1 * R;
    w->threads = 1;
    w->laws[0].damping = 0.05; /* the Hertz damping too (its rate, mass and cap) */
}

/* Per cent of the shards holding contacts that hold `lanes` or more touching ones: where
 * update_shard fills its lanes. (Shards hold whole blocks of LDEM_SUM_BLOCK bodies, so a
 * small world uses only some of them.) */
static int shards_with(const ldem_world *w, int lanes)
{
    int touching[LDEM_HISTORY_SHARDS] = {0}, used[LDEM_HISTORY_SHARDS] = {0};
    int filled = 0, nonempty = 0;
    for (size_t c = 0; c < w->ncontacts; c++) {
        touching[w->contacts[c].shard] += w->contacts[c].overlap > 0.0;
        used[w->contacts[c].shard] = 1;
    }
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
        filled += touching[s] >= lanes;
        nonempty += used[s];
    }
    return nonempty ? 100 * filled / nonempty : 0;
}

/* The same block stepped with touching pairs `lanes` at a time and one by one: every body's
 * state and every contact's forces and frame are the same bits. */
static void block_steps_the_same(int lanes)
{
    for (int law = LDEM_LAW_HERTZ_JAGER; law <= LDEM_LAW_HERTZ_MINDLIN; law++) {
        ldem_world a, b;
        block(&a, law);
        block(&b, law);
        ldem_err err;
        cr_assert_eq(ldem_world_prepare(&a, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_world_prepare(&b, &err), LDEM_OK, "%s", err.msg);
        a.work->lanes = lanes;
        b.work->lanes = 1;
        /* the lanes fill: most shards hold `lanes` or more touching contacts (the block
         * springs apart over a few microseconds, so 150 steps of 20 ns keep it together) */
        cr_assert_gt(shards_with(&a, lanes), 50);
        for (int k = 0; k < 150; k++) {
            cr_assert_eq(ldem_world_step(&a, &err), LDEM_OK, "step %d: %s", k, err.msg);
            cr_assert_eq(ldem_world_step(&b, &err), LDEM_OK, "step %d: %s", k, err.msg);
        }
        cr_assert_gt(shards_with(&a, lanes), 50, "law %d: %d %% of the shards",
                     law, shards_with(&a, lanes));
        size_t n = a.bodies.count;
        cr_assert_eq(b.bodies.count, n);
        cr_assert(memcmp(a.bodies.x, b.bodies.x, n * sizeof *a.bodies.x) == 0,
                  "law %d: positions differ", law);
        cr_assert(memcmp(a.bodies.v, b.bodies.v, n * sizeof *a.bodies.v) == 0,
                  "law %d: velocities differ", law);
        cr_assert(memcmp(a.bodies.q, b.bodies.q, n * sizeof *a.bodies.q) == 0,
                  "law %d: orientations differ", law);
        cr_assert(memcmp(a.bodies.L, b.bodies.L, n * sizeof *a.bodies.L) == 0,
                  "law %d: angular momenta differ", law);
        cr_assert_eq(a.ncontacts, b.ncontacts);
        int sliding = 0;
        for (size_t c = 0; c < a.ncontacts; c++) {
            const ldem_contact *p = &a.contacts[c], *q = &b.contacts[c];
            cr_assert(memcmp(&p->fn, &q->fn, sizeof p->fn) == 0 &&
                          memcmp(&p->ft, &q->ft, sizeof p->ft) == 0 &&
                          memcmp(&p->torque_i, &q->torque_i, sizeof p->torque_i) == 0 &&
                          memcmp(&p->torque_j, &q->torque_j, sizeof p->torque_j) == 0 &&
                          memcmp(&p->dissipated, &q->dissipated, sizeof p->dissipated) == 0 &&
                          same_quat(p->frame, q->frame),
                      "law %d, contact %u-%u: forces, torques, damping work or frame differ",
                      law, p->i, p->j);
            sliding += ldem_vec3_norm(p->ft) > 0.0;
        }
        cr_assert_gt(sliding, 100, "law %d: only %d contacts carry a tangential force", law,
                     sliding);
        ldem_world_free(&a);
        ldem_world_free(&b);
    }
}

Test(sphere_lanes, a_block_steps_the_same_two_at_a_time_and_one_by_one, .timeout = 120)
{
    block_steps_the_same(2);
}

Test(sphere_lanes, a_block_steps_the_same_four_at_a_time_and_one_by_one, .timeout = 120)
{
    if (ldem_cpu_lanes() < 4)
        cr_skip_test("no four lanes here: this build or CPU has no AVX2");
    block_steps_the_same(4);
}
#endif
