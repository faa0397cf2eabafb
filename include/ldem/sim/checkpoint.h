/* ldem/sim/checkpoint.h — save and restore the whole dynamic state of a run.
 *
 * A checkpoint is a bundle-container file (magic, CRC per section; docs/checkpoint.md) holding
 * time, step and dt; every body's pose, velocity, angular momentum, last forces and previous
 * pose; every wall's state; the candidate/contact list in order with each contact's frame,
 * law state and full Jäger history stack (cells written top to bottom as values, so the
 * pools are rebuilt independently of their indices); the energy accumulators; the neighbour
 * list reference positions; and the output counters (frame times). Restoring it into a world
 * built from the same scene and continuing gives bitwise the same trajectory as a run that
 * was never interrupted. The static description (materials, shapes, walls' geometry) comes
 * from the scene; counts are checked against it.
 */
#ifndef LDEM_SIM_CHECKPOINT_H
#define LDEM_SIM_CHECKPOINT_H

#include "ldem/export.h"

#include <stdint.h>

#include "ldem/err.h"
#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output counters saved with the state. */
typedef struct ldem_checkpoint_extra {
    uint64_t nframes;
    double *frame_times;      /* nframes; owned by the caller on save, malloc'd on load */
} ldem_checkpoint_extra;

/* A staged run's stage (section STAG, ldem/sim/stages.h): which stage runs, and the step and
 * time at which it began, so that a restart continues it and its criteria count from the
 * same origin. */
#define LDEM_STAGE_SERVO_MAX 8u
typedef struct ldem_checkpoint_stage {
    int present;              /* on load: 0 when the file has no STAG (then all zero) */
    uint32_t stage;
    uint64_t step;
    double t;
    /* servo_settled's window (ldem_stage_accumulate): the stage's steps in blocks of
     * `window`; per listed wall the sum of its normal force over the current block and the
     * mean of the last complete one */
    uint32_t nservo;          /* walls summed (0: the stage has no servo_settled) */
    uint32_t have_mean;       /* a block is complete */
    uint64_t block_steps;     /* steps in the current block */
    double sum[LDEM_STAGE_SERVO_MAX], mean[LDEM_STAGE_SERVO_MAX];
} ldem_checkpoint_stage;

/* Write atomically (temporary name + rename). `x` may be NULL (no frames). A contact whose
 * Jäger stack does not hold `length` cells is LDEM_ERR_INTERNAL, found before writing. */
LDEM_API int ldem_checkpoint_save(const char *path, const ldem_world *w,
                                  const ldem_checkpoint_extra *x, ldem_err *err);
/* Restore into `w`, built from the same scene (its existing contacts, if any, are released
 * and replaced; its pools are rebuilt with the saved capacities; the step's scratch w->work
 * is dropped, so the next ldem_world_step rebuilds it; do not call ldem_world_prepare). Mismatched counts, another
 * scene (checksum of the static description) or a damaged file are LDEM_ERR_INPUT naming the
 * file; the whole file is validated before `w` is touched, so `w` is then unchanged. Only
 * LDEM_ERR_NOMEM during the restore leaves `w` unusable (free it). `x` may be NULL (frame
 * times skipped); otherwise x->frame_times is overwritten with a malloc'd array (NULL when
 * there are no frames) that the caller frees. */
LDEM_API int ldem_checkpoint_load(const char *path, ldem_world *w, ldem_checkpoint_extra *x,
                                  ldem_err *err);

/* The same with the run's stage (st may be NULL: none written, or not read). */
LDEM_API int ldem_checkpoint_save_staged(const char *path, const ldem_world *w,
                                         const ldem_checkpoint_extra *x,
                                         const ldem_checkpoint_stage *st, ldem_err *err);
LDEM_API int ldem_checkpoint_load_staged(const char *path, ldem_world *w, ldem_checkpoint_extra *x,
                                         ldem_checkpoint_stage *st, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
