/* ldem/sim/broadphase.h — candidate pairs from bounding spheres on a cell list.
 *
 * Bodies are binned into a uniform grid of cubic cells no smaller than the largest
 * interaction distance (2 r_max + skin), so each body only meets the bodies of its own and
 * the 13 "forward" neighbour cells. Every pair whose bounding spheres come within `skin` of
 * touching, |x_i − x_j| < r_i + r_j + skin, is reported once, as (i, j) with i < j, and the
 * list is sorted by (i, j): the contact list merges it with the previous one in a single
 * pass, and the order (hence every later sum) is the same for any thread count.
 *
 * Widely polydisperse assemblies (a few large grains among many small ones) get cells sized
 * for the largest; that is correct but slow, and documented as a limit. The grid covers the
 * bodies' bounding box; bodies far from the others only enlarge it up to a cap on the cell
 * count, beyond which cells are hashed (still exact).
 */
#ifndef LDEM_SIM_BROADPHASE_H
#define LDEM_SIM_BROADPHASE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ldem_cell;

/* Reusable work space (grows as needed; zero-initialize, then free with _free). */
typedef struct ldem_broadphase {
    size_t cells_capacity;
    uint32_t *cell_start;     /* CSR: bodies of cell c are order[cell_start[c] .. cell_start[c+1]) */
    size_t order_capacity;
    uint32_t *order;          /* body indices sorted by cell */
    uint32_t *cell_of;        /* cell of each body */
    size_t pairs_capacity;
    uint64_t *pairs;          /* result: (uint64)i << 32 | j, sorted ascending */
    size_t npairs;
    /* Private work space, and statistics of the last call. */
    struct ldem_broadphase_work *work;
    size_t ncells;            /* cells of the dense grid, or occupied cells when hashed */
    int hashed;               /* 1 when the grid was too large and occupied cells were hashed */
    /* Periodic cells (ldem_broadphase_pairs_periodic): the image of each pair, 3 per pair,
     * and the ghost images the search used (private). */
    int8_t *image;
    size_t image_capacity;
    struct ldem_broadphase_ghosts *ghosts;
    size_t nghosts;           /* ghost images made by the last periodic call */
} ldem_broadphase;

LDEM_API void ldem_broadphase_free(ldem_broadphase *bp);

/* Find all candidate pairs among n bodies with centres x and bounding radii r (r ≥ 0, all
 * finite). On success bp->pairs holds bp->npairs keys. Errors: LDEM_ERR_NOMEM,
 * LDEM_ERR_INPUT for non-finite positions or bad radii (naming the body) and for a negative
 * or non-finite skin.
 *
 * The test, evaluated exactly in this order (so a brute force written the same way agrees
 * bit for bit): dx = x_j − x_i (each axis; the sign does not matter), d² = (dx·dx + dy·dy) +
 * dz·dz, c = (r_i + r_j) + skin, candidate iff d² < c·c. Serial (no OpenMP), so the list
 * depends only on the input values. */
LDEM_API int ldem_broadphase_pairs(ldem_broadphase *bp, size_t n, const ldem_vec3 *x,
                                   const double *r, double skin, ldem_err *err);

/* The same in a periodic cell (ldem/sim/cell.h), every position inside it (s ∈ [0, 1)³ up to
 * round-off; wrap first). A pair (i < j) is reported once, with image n = bp->image[3 k ..]
 * such that x_j + h n is within reach of x_i by the test above. Bodies near a face are
 * copied as ghost images x + h m (m ∈ {−1, 0, 1}³ \ 0, only toward faces closer than the
 * reach), the plain search runs on bodies and ghosts, and each real–ghost pair is mapped back
 * to its two bodies. LDEM_ERR_INPUT when the cell is narrower than twice the largest reach
 * (2 r_max + skin) in some direction: a body could then touch two images of another. */
LDEM_API int ldem_broadphase_pairs_periodic(ldem_broadphase *bp, size_t n, const ldem_vec3 *x,
                                            const double *r, double skin,
                                            const struct ldem_cell *cell, ldem_err *err);

static inline uint32_t ldem_pair_i(uint64_t key) { return (uint32_t)(key >> 32); }
static inline uint32_t ldem_pair_j(uint64_t key) { return (uint32_t)key; }
static inline uint64_t ldem_pair_key(uint32_t i, uint32_t j) { return (uint64_t)i << 32 | j; }

#ifdef __cplusplus
}
#endif
#endif
