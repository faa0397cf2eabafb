/* The bodies' spatial order (scene key `order: spatial`, runtime/sim/body_order.c):
 *   - the Z-order curve itself: the eight corners of a cube in the curve's closed-form order,
 *     a permutation of any point set, ties in input order, and a walk along the order that
 *     is far shorter than along the input;
 *   - a scene run in spatial order is the run in input order with its bodies renumbered:
 *     every grain, found by its id, has the same radius and ends within round-off of the
 *     same place (the contacts' forces add up in another order, nothing else changes);
 *   - a checkpoint of a spatially ordered run restarts bit for bit, and a scene in another
 *     order refuses it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_order.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"
#include "../support/test_rng.h"

#define SCENES LDEM_TEST_DATA "/scenes/"

/* ---- the curve ---- */

Test(body_order, cube_corners_in_z_order)
{
    /* the curve takes x first, then y, then z: corner (a, b, c) comes at a + 2b + 4c */
    const int input[8] = {5, 2, 7, 0, 3, 6, 1, 4}; /* the corners' curve places, shuffled */
    ldem_vec3 x[8];
    for (int k = 0; k < 8; k++) {
        int p = input[k];
        x[k] = ldem_vec3_make(p & 1, (p >> 1) & 1, (p >> 2) & 1);
    }
    uint32_t order[8];
    cr_assert_eq(ldem__spatial_order(x, 8, order), 0);
    for (int k = 0; k < 8; k++)
        cr_assert_eq(input[order[k]], k, "place %d holds corner %d", k, input[order[k]]);
}

static double walk_length(const ldem_vec3 *x, const uint32_t *order, size_t n)
{
    double sum = 0.0;
    for (size_t k = 1; k < n; k++)
        sum += ldem_vec3_norm(ldem_vec3_sub(x[order[k]], x[order[k - 1]]));
    return sum;
}

Test(body_order, a_permutation_that_keeps_neighbours_together)
{
    enum { N = 4000 };
    static ldem_vec3 x[N];
    static uint32_t order[N], input[N];
    static unsigned char seen[N];
    rng_seed(11);
    for (size_t i = 0; i < N; i++) {
        x[i] = rng_point(ldem_vec3_make(-2, 0, 5), ldem_vec3_make(3, 1, 6));
        input[i] = (uint32_t)i;
    }
    x[N - 1] = x[N - 2] = x[17]; /* three equal points: they keep their input order */
    cr_assert_eq(ldem__spatial_order(x, N, order), 0);
    size_t first = N;
    for (size_t k = 0; k < N; k++) {
        cr_assert_lt(order[k], N);
        cr_assert_eq(seen[order[k]]++, 0, "point %u placed twice", order[k]);
        if (order[k] == 17)
            first = k;
    }
    cr_assert(first + 2 < N && order[first + 1] == N - 2 && order[first + 2] == N - 1,
              "equal points out of input order");
    /* Random points in a 5 × 1 × 1 box: a step between two of them averages about 1.9 in
     * input order; along the curve most steps join neighbours 0.05–0.1 apart. */
    double along = walk_length(x, order, N), in_input = walk_length(x, input, N);
    cr_assert_lt(along, 0.1 * in_input, "curve walk %g, input walk %g", along, in_input);
}

Test(body_order, no_points_and_one_point)
{
    uint32_t order[1] = {99};
    cr_assert_eq(ldem__spatial_order(NULL, 0, order), 0);
    cr_assert_eq(order[0], 99);
    ldem_vec3 one = ldem_vec3_make(1, 2, 3);
    cr_assert_eq(ldem__spatial_order(&one, 1, order), 0);
    cr_assert_eq(order[0], 0);
}

/* ---- scenes ---- */

static void build(ldem_world *w, const char *order)
{
    char set[64];
    snprintf(set, sizeof set, "order=%s", order);
    const char *sets[] = {set};
    ldem_scene s;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_load(&s, SCENES "ordered.yaml", 1, sets, &err);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err.file, err.line, err.msg);
    ldem_world_init(w);
    rc = ldem_scene_build(&s, w, &err);
    ldem_scene_free(&s);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err.file, err.line, err.msg);
}

static void run(ldem_world *w, uint64_t to_step)
{
    ldem_err err;
    ldem_err_clear(&err);
    if (w->step == 0)
        cr_assert_eq(ldem_world_prepare(w, &err), LDEM_OK, "%s", err.msg);
    while (w->step < to_step)
        cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "%s", err.msg);
}

static size_t touching(const ldem_world *w)
{
    size_t n = 0;
    for (size_t k = 0; k < w->ncontacts; k++)
        n += ldem_contact_touching(&w->contacts[k]) != 0;
    return n;
}

Test(body_order, spatial_run_is_the_input_run_renumbered)
{
    ldem_world in, sp;
    build(&in, "input");
    build(&sp, "spatial");
    const ldem_bodies *a = &in.bodies, *b = &sp.bodies;
    cr_assert_eq(a->count, 216);
    cr_assert_eq(b->count, a->count);
    size_t moved = 0;
    unsigned char seen[216] = {0};
    for (size_t i = 0; i < b->count; i++) {
        cr_assert_eq(a->id[i], i, "input order: body %zu has id %u", i, a->id[i]);
        uint32_t g = b->id[i];
        cr_assert_lt(g, 216);
        cr_assert_eq(seen[g]++, 0, "grain %u is two bodies", g);
        moved += g != i;
        cr_assert(memcmp(&b->x[i], &a->x[g], sizeof b->x[i]) == 0 && b->radius[i] == a->radius[g],
                  "body %zu is not grain %u as placed", i, g);
    }
    cr_assert_gt(moved, 100, "spatial order moved only %zu of 216 bodies", moved);

    run(&in, 400);
    run(&sp, 400);
    cr_assert_eq(touching(&sp), touching(&in));
    cr_assert_gt(touching(&in), 600); /* the lattice's 648 bonds, compressed */
    /* Only the order of each body's force sum differs, so positions agree to round-off:
     * measured 2.0e-17 m after 400 steps, against a radius of 1e-3 m. */
    double worst = 0.0, worst_v = 0.0, vmax = 0.0;
    for (size_t i = 0; i < b->count; i++) {
        worst = fmax(worst, ldem_vec3_norm(ldem_vec3_sub(b->x[i], a->x[b->id[i]])));
        worst_v = fmax(worst_v, ldem_vec3_norm(ldem_vec3_sub(b->v[i], a->v[b->id[i]])));
        vmax = fmax(vmax, ldem_vec3_norm(a->v[i]));
    }
    cr_assert_lt(worst, 1e-13, "a grain moved %g m apart between the two orders", worst);
    /* velocities take the force's round-off straight: measured 2.1e-11 of up to 0.68 m/s */
    cr_assert_lt(worst_v, 1e-8 * vmax, "velocities %g m/s apart (fastest %g)", worst_v, vmax);
    cr_assert_gt(fabs(sp.stress.m[2][2]), 1e3, "the cell was not compressed");
    cr_assert_lt(fabs(sp.stress.m[2][2] - in.stress.m[2][2]), 1e-9 * fabs(in.stress.m[2][2]));
    ldem_world_free(&in);
    ldem_world_free(&sp);
}

Test(body_order, checkpoints_keep_the_order)
{
    char path[512];
    snprintf(path, sizeof path, "%s/body_order.ldc", LDEM_TEST_TMP);
    ldem_world first, again, other;
    ldem_err err;
    build(&first, "spatial");
    run(&first, 200);
    ldem_err_clear(&err);
    cr_assert_eq(ldem_checkpoint_save(path, &first, NULL, &err), LDEM_OK, "%s", err.msg);
    run(&first, 400);

    build(&again, "spatial");
    cr_assert_eq(ldem_checkpoint_load(path, &again, NULL, &err), LDEM_OK, "%s", err.msg);
    run(&again, 400);
    const size_t n = first.bodies.count;
    cr_assert(memcmp(first.bodies.x, again.bodies.x, n * sizeof *first.bodies.x) == 0 &&
                  memcmp(first.bodies.v, again.bodies.v, n * sizeof *first.bodies.v) == 0 &&
                  memcmp(first.bodies.L, again.bodies.L, n * sizeof *first.bodies.L) == 0,
              "the restarted run left the uninterrupted one");

    /* the same grains in input order: the checkpoint's bodies are other grains there */
    build(&other, "input");
    ldem_err_clear(&err);
    cr_assert_eq(ldem_checkpoint_load(path, &other, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "order") != NULL, "%s", err.msg);
    cr_assert_eq(other.step, 0, "a refused checkpoint changed the world");
    ldem_world_free(&first);
    ldem_world_free(&again);
    ldem_world_free(&other);
    remove(path);
}

Test(body_order, order_takes_input_or_spatial)
{
    const char *sets[] = {"order=sideways"};
    ldem_scene s;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_scene_load(&s, SCENES "ordered.yaml", 1, sets, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "order") && strstr(err.msg, "expected input or spatial"), "%s",
              err.msg);
}
