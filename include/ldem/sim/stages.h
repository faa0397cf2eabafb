/* ldem/sim/stages.h — a run in stages: each stage changes drives (a `set:` of dotted scene
 * keys, as --set) and ends when its criteria hold (docs/scene.md, "Stages").
 *
 * A stage's world is the scene with the command line's --set and every stage's `set` up to
 * and including its own applied (ldem_scene_load_stage). At a stage's end the run saves a
 * checkpoint and restores it into the next stage's world, which is exactly what a separate
 * `demrun --restart ... --set ...` does, so both give bitwise the same trajectory. A `set`
 * may change only what a restart may change: every stage's world must have the static
 * checksum of the first (ldem_stages_validate).
 */
#ifndef LDEM_SIM_STAGES_H
#define LDEM_SIM_STAGES_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* When a stage ends. Every criterion given must hold at once; a cap (max_steps, max_time)
 * ends the stage anyway. Absent criteria are 0 (counts) or < 0 (ratios, times, forces). */
typedef struct ldem_stage_until {
    uint64_t steps;           /* steps since the stage began ≥ this */
    double time;              /* time since the stage began ≥ this (counted in steps) */
    uint64_t max_steps;       /* cap */
    double max_time;          /* cap */
    double unbalanced;        /* mean net force on a free grain / mean contact force < this */
    double kinetic_ratio;     /* kinetic / elastic energy stored in the contacts < this */
    long wall;                /* wall_force: the wall's index, −1: none */
    double wall_force;        /* |force on the wall · its normal| ≥ this, or with wall_area > 0
                               * (wall_stress) that force / wall_area ≥ this */
    double wall_area;
    /* servo_settled: every listed wall's normal force, averaged over the last complete block
     * of `servo_window` steps of the stage, within servo_tolerance × |its target| of the
     * target, and |its velocity| ≤ servo_velocity (< 0: servo_tolerance × its max_velocity) */
    uint32_t nservo;          /* 0: not given */
    long servo_wall[LDEM_STAGE_SERVO_MAX];
    double servo_tolerance;
    uint64_t servo_window;
    double servo_velocity;
    uint64_t check_every;     /* steps between checks of the measured criteria (≥ 1) */
} ldem_stage_until;

/* Where a stage stands. */
enum ldem_stage_verdict {
    LDEM_STAGE_GOES_ON = 0,
    LDEM_STAGE_DONE = 1,      /* every criterion holds */
    LDEM_STAGE_CAPPED = 2     /* a cap was reached before every criterion held */
};

/* After every step of the stage (before its outputs, so that a checkpoint holds the sums):
 * add the servo_settled walls' normal forces to st's window, closing a block every
 * servo_window steps. Nothing without servo_settled. */
LDEM_API void ldem_stage_accumulate(const ldem_stage_until *u, ldem_checkpoint_stage *st,
                                    const ldem_world *w);

/* Whether the stage `st` (it began at st->step) ends after the world's current step. The
 * measured criteria (unbalanced, kinetic_ratio, wall_force or wall_stress, servo_settled)
 * are looked at every check_every steps of the stage (steps and time then too); without
 * them, every step. Caps are looked at every step.
 * `why` (may be NULL) receives the criteria's values against their thresholds, e.g.
 * "kinetic_ratio 8e-05 < 0.0001, unbalanced 0.0009 < 0.001" (a capped stage lists the
 * ones that did not hold). */
LDEM_API int ldem_stage_check(const ldem_stage_until *u, const ldem_world *w,
                              const ldem_checkpoint_stage *st, char *why, size_t why_size);

/* The steps a duration takes with step dt (a near-whole ratio is rounded, not ceiled, so
 * that 1e-3 / 1e-6 is 1000 steps). */
LDEM_API uint64_t ldem_stage_steps_of(double duration, double dt);

struct ldem_scene;

/* Build every stage's world (ldem_scene_load_stage with these arguments, then
 * ldem_scene_build) and refuse a stage whose `set` changes what a restart cannot change:
 * the checkpoint's static checksum (docs/checkpoint.md) must equal the first stage's. The
 * error names the stage's `set:` line. `s` is the scene as loaded (its stages list). */
LDEM_API int ldem_stages_validate(const struct ldem_scene *s, size_t nset, const char *const *sets,
                                  ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
