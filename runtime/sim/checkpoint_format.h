/* Private to runtime/sim: what checkpoint_save.c writes and checkpoint_load.c reads
 * (docs/checkpoint.md has the byte layout): the format's constants, the static description's
 * checksum, and the periodic cell's matrices in file order. */
#ifndef LDEM_SIM_CHECKPOINT_FORMAT_H
#define LDEM_SIM_CHECKPOINT_FORMAT_H

#include <stdint.h>

#include "ldem/sim/world.h"

/* 2: MODL, modes in the static checksum; 3: held history cells; 4: lossless compression's
 * state (each cell's merged flag, each contact's growing leg) */
#define CKPT_VERSION 4u
/* The oldest version this build still reads: version 3 files, without that state, load with
 * every cell marked merged and no growing leg (compression then merges only legs of equal
 * slope into the restored ones, which is lossless whatever they hold). */
#define CKPT_VERSION_NO_MERGE 3u
/* The merged flag (0 or 1, as f64) that follows a history cell's level, slope (and force). */
#define CELL_MERGED_VALUES 1u
/* After a version-4 contact's law state: the law's extra values (ldem_law_ops.save_extra:
 * the Jäger law's growing leg; zeros for laws without). */
#define CONTACT_CHAIN_VALUES 12u
_Static_assert(CONTACT_CHAIN_VALUES == LDEM_LAW_EXTRA_VALUES &&
                   10u == LDEM_LAW_SAVED_VALUES,
               "a contact record holds a law's saved and extra values (docs/checkpoint.md)");
#define CKPT_HEADER_BYTES (152u + 8u * LDEM_HISTORY_SHARDS)
#define BODY_BYTES (26u * 8u)
#define WALL_BYTES (13u * 8u)
#define CONTACT_FIXED_BYTES (9u * 4u + 37u * 8u + 10u * 8u)
#define SPRING_BYTES (4u + 3u * 8u)
/* docs/checkpoint.md's sizes: CKPT 664 bytes, a body 208, a wall 104, a contact 412 before
 * its law's extra values (508 with them), a spring its key and ξ. */
_Static_assert(CKPT_HEADER_BYTES == 664u && BODY_BYTES == 208u && WALL_BYTES == 104u &&
                   CONTACT_FIXED_BYTES == 412u &&
                   CONTACT_FIXED_BYTES + 8u * CONTACT_CHAIN_VALUES == 508u,
               "the record sizes docs/checkpoint.md gives");
_Static_assert(SPRING_BYTES ==
                       sizeof(((ldem_node_spring *)0)->key) + sizeof(((ldem_node_spring *)0)->xi) &&
                   sizeof(((ldem_node_spring *)0)->xi) == 3u * 8u,
               "a spring record is its key and its three ξ components");
/* has_list bits */
#define LIST_BODIES 1u
#define LIST_WALLS 2u

/* The walls' servo and probe-interval state (optional section WSRV, one record per wall):
 * the integral term's accumulated velocity, the interval's force sum x, y, z, its count of
 * evaluations, its servo flips, the chatter watch's flip bits (low, high 32 bits), its ring's
 * next slot and fill, the last velocity sign, the episode flag, then the ring's
 * LDEM_SERVO_WINDOW forces; counts and bits as whole f64. Files written before it load with
 * all of it zero: no integral, an interval and a watch that start afresh. */
#define WSRV_FIXED_VALUES 12u
#define WSRV_VALUES (WSRV_FIXED_VALUES + LDEM_SERVO_WINDOW)

/* Deformable grains (optional section MODL): the bodies' radii at the last list build, then
 * per modal DOF ε, ε̇, ε_prev, Q, F_int, f_total. Deformed nodes and grown radii follow from
 * ε and are recomputed on restore. */
#define MODAL_VALUES 6u

/* The run's stage (optional section STAG): u32 stage index, u32 reserved 0, u64 the step and
 * f64 the time at which that stage began; then, when the stage has a servo_settled
 * criterion, u32 walls n, u32 a block complete (0/1), u64 steps in the current block and
 * n × {f64 sum, f64 mean}. */
#define STAGE_BYTES 24u
#define STAGE_WINDOW_BYTES 16u

/* Periodic cell (optional section CELL, present exactly when the scene has a cell): the
 * matrices h, h_prev, h0, h_list, L, virial, stress (row-major), the servo's three
 * stiffnesses, the cell's work, the servo's three accumulated rates, the step at which
 * each direction's cyclic drive started (−1: none running) and the three directions'
 * strains then (0 without a drive). The contacts' images are not
 * stored: they follow from the positions (ldem_cell_min_image) as long as every candidate
 * is closer than half a cell, which the broad phase guarantees. Files written before the
 * servo had an integral term end after the work; they load with zero accumulated rates,
 * which is what their runs had; files written before the cyclic drive end after the rates
 * and load with no drive running. */
#define CELL_MATRICES 7u
#define CELL_VALUES_BEFORE_INTEGRAL (9u * CELL_MATRICES + 4u)
#define CELL_VALUES_BEFORE_CYCLIC (CELL_VALUES_BEFORE_INTEGRAL + 3u)
#define CELL_VALUES (CELL_VALUES_BEFORE_CYCLIC + 6u)

/* The checksum of the scene's static description that a checkpoint must match, and the one
 * files written before β could change carry (β hashed too), which they must match. */
uint64_t ldem__checkpoint_static_checksum(const ldem_world *w);
uint64_t ldem__checkpoint_static_checksum_with_beta(const ldem_world *w);

/* Values per history cell in this run's files: 3 (z, wx, wy), 4 when the pools cache N(z),
 * then CELL_MERGED_VALUES. */
int ldem__checkpoint_cell_values(const ldem_world *w);

/* The CELL section's k-th matrix (k < CELL_MATRICES) in file order. */
const ldem_mat3 *ldem__checkpoint_cell_matrix(const ldem_world *w, unsigned k);

/* Contacts written from elsewhere than the world's own list (a distributed run's, gathered
 * at the writing rank by checkpoint_gather.c): their records as gathered, the list's order of
 * them, and the header's count and pool fields for them. */
typedef struct ldem__record_ref {
    uint64_t key; /* the pair, as the list orders it */
    size_t at, bytes;
} ldem__record_ref;
typedef struct ldem__contact_set {
    uint64_t count;
    uint32_t capacity[LDEM_HISTORY_SHARDS], peak[LDEM_HISTORY_SHARDS];
    const unsigned char *records;   /* as gathered */
    size_t bytes;
    const ldem__record_ref *order;  /* count records of `records`, in list order */
} ldem__contact_set;

/* Where a contact record (docs/checkpoint.md, CONT) keeps the fields the gathering reads. */
#define CONTACT_AT_I 0u
#define CONTACT_AT_J 4u
#define CONTACT_AT_SHARD 12u
#define CONTACT_AT_SPRINGS 24u
#define CONTACT_AT_CELLS 28u
#define CONTACT_AT_HELD 32u

/* checkpoint_save.c: check the contacts a save writes (owned_only: those whose first body
 * this rank owns); write the file, with the world's contacts (set NULL) or the given ones
 * (packed by ldem_world_pack_contacts). */
int ldem__checkpoint_check_contacts(const ldem_world *w, int owned_only, ldem_err *err);
struct ldem_checkpoint_extra;
struct ldem_checkpoint_stage;
int ldem__checkpoint_write(const char *path, const ldem_world *w,
                           const struct ldem_checkpoint_extra *x,
                           const struct ldem_checkpoint_stage *st, const ldem__contact_set *set,
                           ldem_err *err);

/* checkpoint_gather.c: the save of a distributed run (w->comm), collective. */
int ldem__checkpoint_save_gathered(const char *path, const ldem_world *w,
                                   const struct ldem_checkpoint_extra *x,
                                   const struct ldem_checkpoint_stage *st, ldem_err *err);

#endif
