/* contact_loop.c — every contact's update each step, and what they add up to (forces on the
 * bodies and walls, the cell's virial): the walk over the history shards (in parallel, each
 * shard's pool touched by one thread), the prefetching of contact records, and the batching
 * of touching rigid sphere pairs into the SIMD lanes (sphere_lanes_update.inc). The list the
 * contacts live in is contact_list.c's; one contact's update is contact_forces.c's. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "contact_forces.h"
#include "contact_loop.h"
#include "sphere_lanes_update.inc" /* update_sphere_lanes, two lanes */

/* One contact's force and torques onto its bodies (i receives −f), or its force and
 * stiffness onto its wall's exact sums (ldem/xsum.h): a wall's contacts belong to bodies
 * that different MPI ranks own (docs/mpi.md), and an exact sum does not depend on how they
 * are shared out. */
static void add_forces(ldem_world *w, const ldem_contact *c)
{
    if (!ldem_contact_touching(c))
        return;
    ldem_bodies *b = &w->bodies;
    ldem_vec3 f = ldem_vec3_add(c->fn, c->ft);
    b->force[c->i] = ldem_vec3_sub(b->force[c->i], f);
    b->torque[c->i] = ldem_vec3_add(b->torque[c->i], c->torque_i);
    if (c->j & LDEM_WALL_BIT) {
        uint32_t k = c->j & ~LDEM_WALL_BIT;
        ldem_xsum *sum = w->work->wall_sums + 4 * (size_t)k;
        ldem_xsum_add(&sum[0], f.x);
        ldem_xsum_add(&sum[1], f.y);
        ldem_xsum_add(&sum[2], f.z);
        /* the stiffness the wall's servo sees, summed as the force */
        double along = ldem_vec3_dot(c->normal, w->walls[k].normal);
        ldem_xsum_add(&sum[3], c->kn * along * along);
    } else {
        b->force[c->j] = ldem_vec3_add(b->force[c->j], f);
        b->torque[c->j] = ldem_vec3_add(b->torque[c->j], c->torque_j);
    }
}

/* Every contact's force in list order: the order the sums keep for any thread count. */
static void add_forces_in_list_order(ldem_world *w)
{
    for (size_t c = 0; c < w->ncontacts; c++)
        add_forces(w, &w->contacts[c]);
}

/* The error of contact c's failed update, unless its update described it already. */
static int contact_failed(ldem_err *e, const ldem_contact *c, int rc)
{
    if (!e->code)
        ldem_err_set(e, rc, NULL, 0, "contact %u-%u: %s", c->i, c->j, ldem_status_name(rc));
    return rc;
}

/* What every updated contact adds: its virial to the shard's sums (periodic cells), its
 * forces to the bodies (`sum`, one thread only). */
static void contact_adds(ldem_world *w, const ldem_contact *c, const image_offset *off,
                         int sum, ldem_contact_sums *sums)
{
    if (w->cell.periodic)
        ldem__add_to_sums(w, c, off, sums);
    if (sum)
        add_forces(w, c);
}

/* One contact's update on its own, and what it adds. */
static int update_alone(ldem_world *w, ldem_contact *c, const image_offset *off, int tid,
                        int sum, ldem_contact_sums *sums, ldem_err *e)
{
    ldem_step_work *k = w->work;
    int rc = ldem__contact_update(w, c, off, &k->hits[tid], k->dq,
                            k->phi_scratch + (size_t)tid * k->max_modes, e);
    if (rc)
        return contact_failed(e, c, rc);
    contact_adds(w, c, off, sum, sums);
    return LDEM_OK;
}

/* Touching rigid sphere pairs waiting, in list order, for enough of them to fill the lanes. */
typedef struct held_pairs {
    ldem_contact *c[4];
    image_offset off[4];
    int n;
} held_pairs;

/* Update the held pairs and add what they add, in list order: four in the AVX2 lanes, or
 * two at a time in the SSE2 lanes and the odd one alone. The lanes add their stress sums
 * themselves. Empties h. */
static int update_held(ldem_world *w, held_pairs *h, int tid, int sum, ldem_contact_sums *sums,
                       ldem_err *e)
{
    int done = 0, failed = 0, rc;
    ldem_contact_sums *lane_sums = w->cell.periodic ? sums : NULL;
#ifdef LDEM_HAVE_QUADS
    if (h->n == 4) {
        if ((rc = ldem__update_sphere_quads(w, h->c, h->off, lane_sums, &failed)))
            return contact_failed(e, h->c[failed], rc);
        done = 4;
    }
#endif
    for (; h->n - done >= 2; done += 2)
        if ((rc = update_sphere_lanes(w, h->c + done, h->off + done, lane_sums, &failed)))
            return contact_failed(e, h->c[done + failed], rc);
    for (int l = 0; sum && l < done; l++)
        add_forces(w, h->c[l]);
    for (int l = done; l < h->n; l++)
        if ((rc = update_alone(w, h->c[l], &h->off[l], tid, sum, sums, e)))
            return rc;
    h->n = 0;
    return LDEM_OK;
}

/* How many candidates ahead update_shard asks for a record's cache lines. */
#define PREFETCH_AHEAD 8

/* Ask for every cache line of a contact's record (568 bytes: nine lines, or ten when it
 * straddles one more). A touching contact's update reads all of them (its pair's constants,
 * frame, law state and held history cells, the spring count at the end), and on a large
 * packing each is a miss to DRAM: the hardware prefetcher follows the stream of first lines
 * that the loop reads, but not the rest. Four lanes need it: without it they start four
 * contacts' chains before the first record's lines have come (BENCHMARKS.md). */
static inline void prefetch_contact(const ldem_contact *c)
{
    const char *first = (const char *)c, *last = first + sizeof *c - 1;
    for (const char *line = first; line < last; line += 64)
        __builtin_prefetch(line);
    __builtin_prefetch(last);
}
_Static_assert(sizeof(ldem_contact) == 568, "prefetch_contact's comment: the record's size");
/* The fields a separated candidate's step reads lead the record (ldem/sim/world.h): the
 * pair, the flag, the law and shard, the gap in the first 32 bytes (rigid_spheres in what
 * would be padding after image[]), then the law's state. */
_Static_assert(offsetof(ldem_contact, rigid_spheres) ==
                       offsetof(ldem_contact, image) + sizeof(((ldem_contact *)0)->image) &&
                   offsetof(ldem_contact, law) == offsetof(ldem_contact, rigid_spheres) + 1 &&
                   offsetof(ldem_contact, overlap) == 24 &&
                   offsetof(ldem_contact, law_state) == 32,
               "a contact record's leading fields (ldem/sim/world.h)");

/* How many candidates ahead update_shard asks for a Jäger contact's top pooled cell: by then
 * the record's lines asked for PREFETCH_AHEAD candidates ahead have come. */
#define POOL_PREFETCH_AHEAD 4

/* Ask for the top pooled cell of a contact's history stack (a law with pooled history keeps
 * its head at LDEM_LAW_HISTORY_HEAD_AT of its state: the Jäger law) and its link, which the law reads
 * when its walk passes the two cells the contact holds, moves that cell up, or cuts an
 * unloading stack below them. Each is a miss to DRAM (the pools outgrow the cache), and the
 * law's chain waits on it; asked for early, the cell has come by the time the walk reads it
 * (BENCHMARKS.md). Branch-free on purpose: whether the candidate touches is in the same
 * record line, which may not have come yet, and a branch on it mispredicts as often as
 * touching and separated candidates alternate, each time throwing away the work done while
 * the line was on its way, which cancels the gain. Whatever the record holds (a separated
 * candidate's top is 0; under another law those bytes are no index), the index is masked
 * into the pool, and a prefetch changes no result. */
static inline void prefetch_pool_top(const ldem_history_pool *pool, const ldem_contact *c)
{
    uint32_t top;
    memcpy(&top, c->law_state + LDEM_LAW_HISTORY_HEAD_AT, sizeof top);
    uint32_t index = top & -(uint32_t)(top < pool->capacity);
    __builtin_prefetch(&pool->cell[index]);
    __builtin_prefetch(&pool->next[index]);
}
_Static_assert(LDEM_LAW_HISTORY_HEAD_AT + sizeof(uint32_t) <= LDEM_LAW_STATE_BYTES,
               "prefetch_pool_top reads the head inside every contact's law state");

/* The contacts of shard s, in list order; `sum` adds their forces onto the bodies as it goes
 * (one thread only: the bodies are shared). Touching rigid sphere pairs go k->lanes at a time
 * (update_held): they are held until enough have come, or until a contact of another kind,
 * which must then wait for them, keeping the list order of the sums. Returns the first
 * failure, described in *e. */
static int update_shard(ldem_world *w, unsigned s, int tid, int sum, ldem_err *e)
{
    ldem_step_work *k = w->work;
    /* The partial sums in a local: in w->work they could alias every store the contacts
     * make, so each += went through memory. */
    ldem_contact_sums sums;
    memset(&sums, 0, sizeof sums);
    sums.block = UINT32_MAX;
    sums.total = k->cell_sums + (size_t)tid * LDEM_CELL_SUMS;
    held_pairs held = {.n = 0};
    int rc;
    const ldem_history_pool *pool = &w->pools[s];
    for (uint32_t q = k->shard_start[s], end = k->shard_start[s + 1]; q < end; q++) {
        ldem_contact *c = &w->contacts[k->shard_list[q]];
        if (q + PREFETCH_AHEAD < end)
            prefetch_contact(&w->contacts[k->shard_list[q + PREFETCH_AHEAD]]);
        if (pool->live && q + POOL_PREFETCH_AHEAD < end) /* no Jäger cells, nothing to ask */
            prefetch_pool_top(pool, &w->contacts[k->shard_list[q + POOL_PREFETCH_AHEAD]]);
        image_offset off = ldem__partner_offset(w, c);
        if (ldem__sphere_pair_stays_apart(w, c, &off))
            continue; /* no force, so nothing for the sums either */
        if (k->lanes > 1 && c->overlap > 0.0 && c->rigid_spheres) {
            held.c[held.n] = c;
            held.off[held.n++] = off;
            if (held.n == k->lanes && (rc = update_held(w, &held, tid, sum, &sums, e)))
                return rc;
            continue;
        }
        if (held.n && (rc = update_held(w, &held, tid, sum, &sums, e)))
            return rc;
        if ((rc = update_alone(w, c, &off, tid, sum, &sums, e)))
            return rc;
    }
    if (held.n && (rc = update_held(w, &held, tid, sum, &sums, e)))
        return rc;
    if (w->cell.periodic)
        ldem__sums_flush(&sums);
    return LDEM_OK;
}

/* Each wall's force and stiffness from its exact sums, which are emptied. */
static void walls_finish(ldem_world *w)
{
    ldem_xsum *sum = w->work->wall_sums;
    if (w->comm && w->nwalls)
        w->comm->sum(w->comm->ctx, sum, 4 * w->nwalls);
    for (size_t q = 0; q < w->nwalls; q++, sum += 4) {
        ldem_wall *wl = &w->walls[q];
        wl->force = ldem_vec3_add(wl->force, (ldem_vec3){ldem_xsum_round(&sum[0]),
                                                         ldem_xsum_round(&sum[1]),
                                                         ldem_xsum_round(&sum[2])});
        wl->stiffness += ldem_xsum_round(&sum[3]);
        for (int c = 0; c < 4; c++)
            ldem_xsum_clear(&sum[c]);
    }
}

static int update_walk(ldem_world *w, int sum, ldem_err *err);

static int update(ldem_world *w, int sum, ldem_err *err)
{
    ldem_step_work *k = w->work;
    if (w->cell.periodic)
        for (size_t q = 0; q < (size_t)k->nthreads * LDEM_CELL_SUMS; q++)
            ldem_xsum_clear(&k->cell_sums[q]);
    int rc = update_walk(w, sum, err);
    if (!rc && sum)
        walls_finish(w);
    return rc;
}

static int update_walk(ldem_world *w, int sum, ldem_err *err)
{
    ldem_step_work *k = w->work;
    /* With the default thread count, threads only pay off beyond a few hundred candidates
     * (below that the fork costs more); an explicit count is always honoured. */
    int threads = w->threads > 0 || w->ncontacts >= 256 ? k->nthreads : 1;
    if (threads == 1) {
        /* Summing as we go adds in list order only if the shards walk the list in order. */
        int fused = sum && k->shards_in_list_order;
        for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
            ldem_err e;
            ldem_err_clear(&e);
            int rc = update_shard(w, s, 0, fused, &e);
            if (rc) {
                if (err)
                    *err = e;
                return rc;
            }
        }
        if (sum && !fused)
            add_forces_in_list_order(w);
        return LDEM_OK;
    }
    int failed = LDEM_OK;
    ldem_err first;
    ldem_err_clear(&first);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int s = 0; s < (int)LDEM_HISTORY_SHARDS; s++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        ldem_err e;
        ldem_err_clear(&e);
        int rc = update_shard(w, (unsigned)s, tid, 0, &e);
        if (rc) {
#pragma omp critical /* unnamed: a named one is an exported symbol */
            if (!failed) {
                failed = rc;
                first = e;
            }
        }
    }
    if (failed) {
        if (err)
            *err = first;
        return failed;
    }
    if (sum)
        add_forces_in_list_order(w);
    return LDEM_OK;
}

int ldem_contacts_update(ldem_world *w, ldem_err *err)
{
    return update(w, 0, err);
}

int ldem_contacts_update_and_sum(ldem_world *w, ldem_err *err)
{
    return update(w, 1, err);
}
