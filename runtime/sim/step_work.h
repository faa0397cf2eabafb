/* step_work.h — private to runtime/sim: the stepper's scratch (ldem_step_work), which step.c
 * owns and the contact loop, the contact list and the checkpoint's restore use. */
#ifndef LDEM_SIM_STEP_WORK_H
#define LDEM_SIM_STEP_WORK_H

#include "ldem/cpu.h" /* ldem_cpu_lanes: the lanes the step and the integrator take */
#include "ldem/sim/broadphase.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"

/* What the contacts of one history shard add to the cell's measurements (periodic cell only):
 * Σ f ⊗ ℓ over its touching body pairs and their affine (Voigt) stiffness terms k_n (n_a ℓ_a)².
 * Summed per shard by the contact update and over the shards in shard order by
 * ldem_periodic_measure, so the totals do not depend on the thread count. */
typedef struct ldem_contact_sums {
    ldem_mat3 virial;
    double stiffness[3];
} ldem_contact_sums;

/* Scratch the step keeps between calls: the broad phase's buffers, the contact indices of
 * each history shard (CSR, rebuilt with the list), per-thread hit buffers for level-set
 * pairs, and per-body rotation increments. */
typedef struct ldem_step_work {
    ldem_broadphase bp;
    uint32_t shard_start[LDEM_HISTORY_SHARDS + 1];
    uint32_t *shard_list;          /* contact indices grouped by shard, in list order */
    size_t shard_list_capacity;
    int shards_in_list_order;      /* shard_list is 0, 1, 2, …: walking the shards in order
                                    * walks the list in order (false only for the hashed
                                    * shards of old checkpoints) */
    ldem_contact_sums shard_sums[LDEM_HISTORY_SHARDS];
    int nthreads;
    ldem_hits *hits;               /* one buffer per thread */
    ldem_quat *dq;                 /* rotation of each body over the step: q ⊗ q_prevᵀ */
    size_t dq_capacity;
    ldem_vec3 *wall_force_prev;    /* each wall's force before this step's sum (work) */
    uint32_t max_modes;            /* most modes of any deformable body's shape */
    double *modal_scratch;         /* max_modes values (the serial modal kick) */
    ldem_vec3 *phi_scratch;        /* nthreads × max_modes: Φα at a point (contacts) */
    /* Each deformable body's node clusters' slack this step (ldem_modal_deform), so that
     * the narrow phase does not recompute it for every pair: group_slack + group_off[i]
     * holds body i's, group_off[i] == SIZE_MAX when its shape has no clusters with modes. */
    size_t *group_off;
    double *group_slack;
    int status;                    /* first failure inside a parallel region */
    int lanes;                     /* touching rigid sphere pairs updated this many at a
                                    * time: ldem_cpu_lanes() (4 with AVX2, else 2; 1 with
                                    * -Dsimd=off); tests set 1 (each alone) to compare */
} ldem_step_work;

/* Free the scratch (the world calls it through w->work_free: it holds the scratch without
 * knowing its type). */
void ldem_step_work_free(struct ldem_step_work *k);

#endif
