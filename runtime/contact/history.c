/* The shared pool of Jäger history cells (ldem/contact/history.h). */
#include "ldem/contact/history.h"

#include <stdlib.h>
#include <string.h>

/* ldem/contact/history.h: the walk down a stack streams 24-byte cells {base, wx, wy}; with
 * its link and merged flag a cell costs 29 bytes, 37 with the force cache. */
_Static_assert(sizeof(ldem_history_cell) == 24 &&
                   sizeof(ldem_history_cell) + sizeof(uint32_t) + sizeof(uint8_t) == 29,
               "a history cell's bytes (ldem/contact/history.h)");

/* Slot 0 is the "none" index; the smallest useful pool has a few real cells. */
#define MIN_SLOTS 16u
/* Indices are 32-bit and 0 is reserved. */
#define MAX_SLOTS 0xFFFFFFFFu
/* Compaction is only worth a pass when it frees at least this many slots. */
#define COMPACT_MIN_SLOTS 4096u

/* Resize every array to `slots` entries (grow or shrink); the pool is unchanged on failure. */
static int resize(ldem_history_pool *pool, uint32_t slots)
{
    ldem_history_cell *cell = realloc(pool->cell, (size_t)slots * sizeof *cell);
    if (!cell)
        return LDEM_ERR_NOMEM;
    pool->cell = cell;
    uint32_t *next = realloc(pool->next, (size_t)slots * sizeof *next);
    if (!next)
        return LDEM_ERR_NOMEM;
    pool->next = next;
    uint8_t *merged = realloc(pool->merged, (size_t)slots * sizeof *merged);
    if (!merged)
        return LDEM_ERR_NOMEM;
    pool->merged = merged;
    if (pool->cache_force) {
        double *force = realloc(pool->force, (size_t)slots * sizeof *force);
        if (!force)
            return LDEM_ERR_NOMEM;
        pool->force = force;
    }
    return LDEM_OK;
}

/* Thread the slots [from, to) onto the front of the free list, lowest index first. */
static void free_range(ldem_history_pool *pool, uint32_t from, uint32_t to)
{
    for (uint32_t i = to; i-- > from;) {
        pool->next[i] = pool->free_head;
        pool->free_head = i;
    }
}

int ldem_history_pool_init(ldem_history_pool *pool, uint32_t initial_cells, bool cache_force,
                           ldem_err *err)
{
    memset(pool, 0, sizeof *pool);
    pool->cache_force = cache_force;
    uint32_t slots = initial_cells < MIN_SLOTS - 1   ? MIN_SLOTS
                     : initial_cells >= MAX_SLOTS ? MAX_SLOTS
                                                  : initial_cells + 1;
    if (resize(pool, slots)) {
        ldem_history_pool_free(pool);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for a history pool of %u cells", slots);
    }
    pool->capacity = slots;
    pool->cell[0] = (ldem_history_cell){0};
    pool->next[0] = 0;
    pool->merged[0] = 0;
    if (pool->force)
        pool->force[0] = 0;
    free_range(pool, 1, slots);
    return LDEM_OK;
}

void ldem_history_pool_free(ldem_history_pool *pool)
{
    free(pool->cell);
    free(pool->next);
    free(pool->merged);
    free(pool->force);
    memset(pool, 0, sizeof *pool);
}

size_t ldem_history_pool_bytes_per_cell(const ldem_history_pool *pool)
{
    return sizeof(ldem_history_cell) + sizeof(uint32_t) + sizeof(uint8_t) +
           (pool->cache_force ? sizeof(double) : 0);
}

uint32_t ldem_history_push_grow(ldem_history_pool *pool, uint32_t below)
{
    if (!pool->free_head) {
        /* Double, so that pushes cost amortised O(1) however long the histories grow. */
        uint32_t old = pool->capacity;
        if (old == MAX_SLOTS)
            return 0;
        uint32_t slots = old > MAX_SLOTS / 2 ? MAX_SLOTS : 2 * old;
        if (resize(pool, slots))
            return 0;
        pool->capacity = slots;
        free_range(pool, old, slots);
    }
    return ldem_history_push(pool, below);
}

void ldem_history_clear(ldem_history_pool *pool, uint32_t top)
{
    while (top)
        top = ldem_history_pop(pool, top);
}

bool ldem_history_pool_should_compact(const ldem_history_pool *pool)
{
    return pool->capacity - pool->live > COMPACT_MIN_SLOTS && pool->live < pool->capacity / 4;
}

static uint32_t *head_at(uint32_t *heads, size_t k, size_t stride)
{
    return (uint32_t *)((char *)heads + k * stride);
}

int ldem_history_pool_compact(ldem_history_pool *pool, uint32_t *heads, size_t count,
                              size_t stride, ldem_err *err)
{
    /* First verify that the heads account for every live cell exactly once (a stale head
     * would otherwise make us copy free cells or lose a contact's history). */
    size_t total = 0;
    for (size_t k = 0; k < count; k++) {
        for (uint32_t i = *head_at(heads, k, stride); i; i = pool->next[i]) {
            if (i >= pool->capacity || ++total > pool->live)
                return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                    "history compaction: the %zu contact heads do not match "
                                    "the pool's %u live cells",
                                    count, pool->live);
        }
    }
    if (total != pool->live)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "history compaction: the contact heads hold %zu cells, the pool "
                            "has %u live",
                            total, pool->live);

    uint32_t slots = pool->live + 1 < MIN_SLOTS ? MIN_SLOTS : pool->live + 1;
    ldem_history_pool fresh = {.cache_force = pool->cache_force};
    if (resize(&fresh, slots)) {
        ldem_history_pool_free(&fresh);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory while compacting");
    }
    fresh.capacity = slots;
    fresh.cell[0] = (ldem_history_cell){0};
    fresh.next[0] = 0;
    fresh.merged[0] = 0;
    if (fresh.force)
        fresh.force[0] = 0;
    /* Each stack is laid out contiguously, top first, so a walk down a stack reads memory
     * forwards. */
    uint32_t used = 1;
    for (size_t k = 0; k < count; k++) {
        uint32_t *head = head_at(heads, k, stride);
        uint32_t i = *head;
        *head = i ? used : 0;
        for (; i; i = pool->next[i]) {
            fresh.cell[used] = pool->cell[i];
            fresh.merged[used] = pool->merged[i];
            if (fresh.force)
                fresh.force[used] = pool->force[i];
            fresh.next[used] = pool->next[i] ? used + 1 : 0;
            used++;
        }
    }
    fresh.live = pool->live;
    fresh.peak = pool->peak;
    free_range(&fresh, used, slots);
    ldem_history_pool_free(pool);
    *pool = fresh;
    return LDEM_OK;
}
