/* ldem/contact/history.h — the shared pool of Jäger load-history cells (Kuhn §3.3).
 *
 * Every contact's equivalent load history is a stack of cells, each holding the level at its
 * segment's bottom (the normal approach where the segment starts) and a 2-vector slope
 * w = dT/dN of the segment. All contacts share one pool: cells are linked top-down through
 * `next`, a contact keeps only the index of its top pooled cell (a Jäger contact holds its
 * top two cells itself, ldem/contact/jager.h), and free cells form a list through the same
 * links. Index 0 is "none" (cell 0 is never used), so a zeroed contact is an empty one.
 *
 * A cell's top level is the bottom level of the cell above it, and the top cell's is the
 * contact's current approach d (docs/jager.md §2: z_n = d). Kuhn's cells hold the top level
 * instead; then a walk down a stack reads the cell below for each segment's bottom, a second
 * scattered load, and every truncation rewrites the top's level. Holding the bottom, a
 * segment is one cell, and cells never change once pushed (β merging aside).
 *
 * Unlike Kuhn's Fortran (fixed compile-time capacity, abort when full) the pool grows on
 * demand by doubling, and ldem_history_pool_compact() moves the live cells of all contacts to
 * the front (each contact's stack contiguous, top first) so a pool that is mostly free can
 * shrink. Indices change on compaction, so the caller passes every contact's head.
 *
 * Storage is split so that the walk down a stack, which reads levels and slopes only, streams
 * 24-byte cells: {base, wx, wy}, a 32-bit link and a byte saying whether lossless compression
 * merged legs into the cell (read only when a step pushes), so a cell costs 29 bytes; with the
 * optional force cache (Kuhn's, here N at the base) it is 37 bytes.
 */
#ifndef LDEM_CONTACT_HISTORY_H
#define LDEM_CONTACT_HISTORY_H

#include "ldem/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_history_cell {
    double base;     /* level at the segment's bottom (0 for a stack's bottom cell) */
    double w[2];     /* slope dT/dN of the segment; |w| ≤ μ, = μ for slip cells */
} ldem_history_cell;

typedef struct ldem_history_pool {
    ldem_history_cell *cell;  /* capacity entries; cell[0] unused */
    uint32_t *next;           /* link to the cell below (or the next free cell); 0 = none */
    uint8_t *merged;          /* per cell: 1 when lossless compression merged legs into it
                               * (docs/jager.md §5), 0 for a leg the
                               * exact history holds as it is */
    double *force;            /* N(base) per cell when cache_force, else NULL */
    uint32_t capacity;        /* number of slots including the unused slot 0 */
    uint32_t free_head;       /* first free cell, 0 if none */
    uint32_t live;            /* cells in use by contacts */
    uint32_t peak;            /* largest `live` seen since init */
    bool cache_force;
} ldem_history_pool;

/* An empty pool with room for `initial_cells` (may be 0). cache_force keeps N(base) per cell. */
LDEM_API int ldem_history_pool_init(ldem_history_pool *pool, uint32_t initial_cells,
                                    bool cache_force, ldem_err *err);
LDEM_API void ldem_history_pool_free(ldem_history_pool *pool);

/* Bytes one cell occupies (29, or 37 with the force cache). */
LDEM_API size_t ldem_history_pool_bytes_per_cell(const ldem_history_pool *pool);

/* Take a free cell (growing the pool when needed) and link it above `below` (0 for an empty
 * stack). Returns its index, or 0 if memory ran out (the pool is then unchanged). The cell's
 * fields are left for the caller to fill. Inline: the Jäger law pushes once per step. */
LDEM_API uint32_t ldem_history_push_grow(ldem_history_pool *pool, uint32_t below);

static inline uint32_t ldem_history_push(ldem_history_pool *pool, uint32_t below)
{
    uint32_t i = pool->free_head;
    if (!i)
        return ldem_history_push_grow(pool, below);
    pool->free_head = pool->next[i];
    pool->next[i] = below;
    if (++pool->live > pool->peak)
        pool->peak = pool->live;
    return i;
}

/* Return the top cell to the free list; returns the new top (the cell below, or 0). */
static inline uint32_t ldem_history_pop(ldem_history_pool *pool, uint32_t top)
{
    uint32_t below = pool->next[top];
    pool->next[top] = pool->free_head;
    pool->free_head = top;
    pool->live--;
    return below;
}

/* Return a whole stack to the free list. */
LDEM_API void ldem_history_clear(ldem_history_pool *pool, uint32_t top);

/* True when fewer than a quarter of the slots are live and the pool is large enough for a
 * compaction to release real memory. */
LDEM_API bool ldem_history_pool_should_compact(const ldem_history_pool *pool);

/* Move all live cells to the front and shrink the pool. `heads` points at the first contact's
 * top index, successive contacts' top indices are `stride` bytes apart (so the heads can sit
 * inside an array of contact structs); each is rewritten to the new index. Every live cell
 * must belong to exactly one of the `count` stacks (LDEM_ERR_USAGE otherwise, pool unchanged).
 */
LDEM_API int ldem_history_pool_compact(ldem_history_pool *pool, uint32_t *heads, size_t count,
                                       size_t stride, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
