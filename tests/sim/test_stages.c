/* A stage's end criteria (ldem_stage_check) on hand-set world states, the step count of a
 * `time` criterion, and the checkpoint's STAG section. Validations against hand computations
 * (which step a criterion ends on, which values it reports) and guards (a STAG that begins
 * after its checkpoint is refused; files without one load as no stage). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/stages.h"
#include "ldem/sim/step.h"
#include "ldem/sim/world.h"
#include "world_fixture.h"

static ldem_stage_until none(void)
{
    return (ldem_stage_until){.time = -1.0, .max_time = -1.0, .unbalanced = -1.0,
                              .kinetic_ratio = -1.0, .wall = -1, .wall_force = -1.0,
                              .check_every = 100, .servo_velocity = -1.0};
}

/* One sphere in free flight above a floor: no contact. */
static void flight(ldem_world *w)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    wf_add_sphere(w, (ldem_vec3){0, 0, 1e-2}, 1e-3, (ldem_vec3){0, 0, -1});
    wf_add_plane(w, (ldem_vec3){0, 0, 0}, (ldem_vec3){0, 0, 1});
}

Test(stages, time_in_steps)
{
    /* ⌈T/dt⌉, near-whole ratios rounded: 0.002 / 1e-5 is 199.99999999999997 in doubles */
    cr_assert_eq(ldem_stage_steps_of(0.002, 1e-5), 200);
    cr_assert_eq(ldem_stage_steps_of(1e-3, 1e-6), 1000);
    cr_assert_eq(ldem_stage_steps_of(1.5e-5, 1e-5), 2);
    cr_assert_eq(ldem_stage_steps_of(0.0, 1e-5), 0);
}

Test(stages, steps_and_time_end_on_their_step)
{
    ldem_world w;
    flight(&w);
    ldem_stage_until u = none();
    u.steps = 30;
    u.time = 50e-7; /* dt 1e-7: 50 steps; both must hold */
    w.step = 1000 + 49;
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 1000}, NULL, 0), LDEM_STAGE_GOES_ON);
    w.step = 1000 + 50;
    char why[200];
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 1000}, why, sizeof why), LDEM_STAGE_DONE);
    cr_assert_str_eq(why, "steps 50 >= 30, time 5e-06 >= 5e-06");
    ldem_world_free(&w);
}

Test(stages, cap_names_what_did_not_hold)
{
    ldem_world w;
    flight(&w);
    ldem_stage_until u = none();
    u.unbalanced = 1e-3;    /* no contact: the ratio is undefined, never holds */
    u.kinetic_ratio = 1e-3; /* nothing stored: never holds */
    u.max_steps = 250;
    u.check_every = 100;
    w.step = 200;
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 0}, NULL, 0), LDEM_STAGE_GOES_ON);
    w.step = 250; /* the cap is looked at every step, not only at checks */
    char why[200];
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 0}, why, sizeof why), LDEM_STAGE_CAPPED);
    cr_assert_str_eq(why, "unbalanced inf >= 0.001, kinetic_ratio inf >= 0.001");
    ldem_world_free(&w);
}

Test(stages, wall_force_only_at_checks)
{
    ldem_world w;
    flight(&w);
    ldem_stage_until u = none();
    u.wall = 0;
    u.wall_force = 1.5;
    u.check_every = 10;
    w.walls[0].force = (ldem_vec3){0.3, 0, -2.0}; /* normal component |−2| ≥ 1.5 */
    w.step = 7 + 15;
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 7}, NULL, 0), LDEM_STAGE_GOES_ON);
    w.step = 7 + 20;
    char why[200];
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 7}, why, sizeof why), LDEM_STAGE_DONE);
    cr_assert_str_eq(why, "wall_force 2 >= 1.5");
    w.walls[0].force = (ldem_vec3){5.0, 0, -1.0}; /* only the normal component counts */
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 7}, NULL, 0), LDEM_STAGE_GOES_ON);
    /* wall_stress: 1 N over 0.5 m² is 2 Pa ≥ 1.5 */
    u.wall_area = 0.5;
    cr_assert_eq(ldem_stage_check(&u, &w, &(ldem_checkpoint_stage){.step = 7}, why, sizeof why),
                 LDEM_STAGE_DONE);
    cr_assert_str_eq(why, "wall_stress 2 >= 1.5");
    ldem_world_free(&w);
}

Test(stages, servo_window_mean)
{
    ldem_world w;
    flight(&w);
    w.walls[0].drive = LDEM_DRIVE_SERVO;
    w.walls[0].servo_force = 2.5;
    w.walls[0].servo_vmax = 1.0;
    ldem_stage_until u = none();
    u.nservo = 1;
    u.servo_wall[0] = 0;
    u.servo_tolerance = 0.01;
    u.servo_window = 4;
    u.check_every = 4;
    ldem_checkpoint_stage st = {.present = 1, .step = 0};
    /* normal force 1, 2, 3, 4 (force · normal = −P): the block mean is 2.5, the target */
    for (int k = 1; k <= 4; k++) {
        w.walls[0].force = (ldem_vec3){0, 0, -(double)k};
        w.step = (uint64_t)k;
        ldem_stage_accumulate(&u, &st, &w);
        if (k < 4)
            cr_assert_eq(ldem_stage_check(&u, &w, &st, NULL, 0), LDEM_STAGE_GOES_ON);
    }
    cr_assert(st.have_mean && st.mean[0] == 2.5 && st.block_steps == 0 && st.sum[0] == 0.0);
    /* still: settled; moving faster than tolerance × max_velocity = 0.01: not */
    w.walls[0].vel = (ldem_vec3){0, 0, 0.005};
    cr_assert_eq(ldem_stage_check(&u, &w, &st, NULL, 0), LDEM_STAGE_DONE);
    w.walls[0].vel = (ldem_vec3){0, 0, 0.02};
    cr_assert_eq(ldem_stage_check(&u, &w, &st, NULL, 0), LDEM_STAGE_GOES_ON);
    /* a target 2 % away is outside a 1 % tolerance */
    w.walls[0].vel = (ldem_vec3){0, 0, 0};
    w.walls[0].servo_force = 2.55;
    cr_assert_eq(ldem_stage_check(&u, &w, &st, NULL, 0), LDEM_STAGE_GOES_ON);
    ldem_world_free(&w);
}

static void tmp_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/stages-%s", LDEM_TEST_TMP, name);
}

Test(stages, checkpoint_stage_round_trip)
{
    ldem_world w;
    flight(&w);
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    for (int k = 0; k < 5; k++)
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
    char staged[512], plain[512];
    tmp_path(staged, sizeof staged, "staged.ldc");
    tmp_path(plain, sizeof plain, "plain.ldc");
    ldem_checkpoint_stage st = {.present = 1, .stage = 2, .step = 3, .t = 3e-7, .nservo = 2,
                                .have_mean = 1, .block_steps = 2, .sum = {1.5, -2},
                                .mean = {0.25, 3}},
                          back;
    cr_assert_eq(ldem_checkpoint_save_staged(staged, &w, NULL, &st, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(ldem_checkpoint_save(plain, &w, NULL, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_checkpoint_load_staged(staged, &w, NULL, &back, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert(back.present && back.stage == 2 && back.step == 3 && back.t == 3e-7);
    cr_assert(back.nservo == 2 && back.have_mean == 1 && back.block_steps == 2);
    cr_assert(back.sum[0] == 1.5 && back.sum[1] == -2 && back.mean[0] == 0.25 &&
              back.mean[1] == 3);
    cr_assert_eq(ldem_checkpoint_load_staged(plain, &w, NULL, &back, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert(!back.present && back.stage == 0 && back.step == 0);
    /* a stage that began after the checkpoint's step is damage */
    st.step = 6;
    cr_assert_eq(ldem_checkpoint_save_staged(staged, &w, NULL, &st, &err), LDEM_OK);
    cr_assert_eq(ldem_checkpoint_load_staged(staged, &w, NULL, &back, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "STAG"), "%s", err.msg);
    ldem_world_free(&w);
}
