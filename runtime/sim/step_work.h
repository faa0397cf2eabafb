/* step_work.h — private to runtime/sim: the stepper's scratch (ldem_step_work), which step.c
 * owns and the contact loop, the contact list and the checkpoint's restore use. */
#ifndef LDEM_SIM_STEP_WORK_H
#define LDEM_SIM_STEP_WORK_H

#include "ldem/cpu.h" /* ldem_cpu_lanes: the lanes the step and the integrator take */
#include "ldem/sim/broadphase.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"
#include "ldem/xsum.h"

/* What the touching body pairs add to the cell's measurements (periodic cell only): Σ f ⊗ ℓ
 * (nine terms, row-major) and their affine (Voigt) stiffness terms k_n (n_a ℓ_a)² (three).
 * Each contact's terms go to a partial sum over the contacts whose first body is in the same
 * block of LDEM_SUM_BLOCK bodies, in list order; each block's partial goes to exact sums
 * (ldem/xsum.h), one set per thread. A block's contacts are in one shard and on the rank
 * that owns the block, in the same order, and exact sums do not depend on the order of the
 * blocks, so the totals are the same bits for any number of threads or ranks. */
enum { LDEM_CELL_SUMS = 12 };
typedef struct ldem_contact_sums {
    uint32_t block;                  /* the block of the first bodies in `partial` */
    double partial[LDEM_CELL_SUMS];
    ldem_xsum *total;                /* the thread's LDEM_CELL_SUMS exact sums */
} ldem_contact_sums;

/* Add the partial to the exact sums and empty it. */
static inline void ldem__sums_flush(ldem_contact_sums *s)
{
    for (int k = 0; k < LDEM_CELL_SUMS; k++) {
        ldem_xsum_add(&s->total[k], s->partial[k]);
        s->partial[k] = 0.0;
    }
}

/* The next terms are a contact whose first body is i. */
static inline void ldem__sums_body(ldem_contact_sums *s, uint32_t i)
{
    uint32_t block = i / LDEM_SUM_BLOCK;
    if (block != s->block) {
        ldem__sums_flush(s);
        s->block = block;
    }
}

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
    ldem_xsum *cell_sums;          /* nthreads × LDEM_CELL_SUMS (periodic cell) */
    ldem_xsum *wall_sums;          /* nwalls × 4: each wall's force and servo stiffness */
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
