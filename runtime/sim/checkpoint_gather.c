/* Checkpoints of a distributed run (docs/mpi.md, "Outputs"): the one-process file, written by
 * one rank.
 *
 * Every rank holds every body, the walls and the cell as they are on one process; the
 * contacts are shared out, a pair held by the owner of its first body (and, across a face,
 * also by the other body's owner). So each rank packs the records of the pairs whose first
 * body it owns, the writing rank gathers them, puts them in list order (by their pair) and
 * writes the file as checkpoint_save.c does for one process. The pools' capacity and peak in
 * the header describe one process's memory, which no rank has: a gathered file gives each
 * pool the live cells of its contacts as the peak and the smallest power of two above them
 * as the capacity, the same on any rank count, and all a restart needs. */
#include <stdlib.h>
#include <string.h>

#include "checkpoint_format.h"
#include "ldem/bytes.h"
#include "ldem/sim/checkpoint.h"

typedef ldem__record_ref record_ref;

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const record_ref *)a)->key, y = ((const record_ref *)b)->key;
    return (x > y) - (x < y);
}

/* Every rank's failure is every rank's: the largest code wins. */
static int agree(const ldem_world *w, int rc)
{
    uint64_t v = (uint64_t)(rc < 0 ? -rc : rc);
    if (w->comm->count(w->comm->ctx, &v, 1, 1))
        return LDEM_ERR_IO;
    return (int)v;
}

static int fail_elsewhere(ldem_err *err, int rc)
{
    return ldem_err_set(err, rc, NULL, 0, "checkpoint: another rank failed (it says why)");
}

/* The records of `n` gathered contacts cut apart and sorted by their pair; the pools' fields. */
static int index_records(const ldem_world *w, const unsigned char *p, size_t bytes, uint64_t n,
                         record_ref **out, ldem__contact_set *set, ldem_err *err)
{
    uint64_t nvalues = (uint64_t)ldem__checkpoint_cell_values(w);
    uint64_t pooled[LDEM_HISTORY_SHARDS] = {0};
    record_ref *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "checkpoint: out of memory for %llu contacts", (unsigned long long)n);
    size_t at = 0;
    for (uint64_t k = 0; k < n; k++) {
        const size_t fixed = CONTACT_FIXED_BYTES + 8u * CONTACT_CHAIN_VALUES;
        if (bytes - at < fixed)
            goto broken;
        const unsigned char *c = p + at;
        uint32_t shard = ldem_get_u32le(c + CONTACT_AT_SHARD);
        uint64_t cells = ldem_get_u32le(c + CONTACT_AT_CELLS);
        uint64_t held = ldem_get_u32le(c + CONTACT_AT_HELD);
        uint64_t length = fixed + cells * 8u * nvalues +
                          (uint64_t)ldem_get_u32le(c + CONTACT_AT_SPRINGS) * SPRING_BYTES;
        if (shard >= LDEM_HISTORY_SHARDS || held > cells || length > bytes - at)
            goto broken;
        pooled[shard] += cells - held;
        r[k] = (record_ref){((uint64_t)ldem_get_u32le(c + CONTACT_AT_I) << 32) |
                                ldem_get_u32le(c + CONTACT_AT_J),
                            at, (size_t)length};
        at += (size_t)length;
    }
    if (at != bytes)
        goto broken;
    qsort(r, n, sizeof *r, by_key);
    for (uint64_t k = 1; k < n; k++)
        if (r[k].key == r[k - 1].key)
            goto broken; /* a pair two ranks both claim */
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
        if (pooled[s] >= UINT32_MAX / 2)
            goto broken;
        uint32_t capacity = pooled[s] ? 16u : 0u;
        while (pooled[s] && capacity < pooled[s] + 1)
            capacity *= 2;
        set->capacity[s] = capacity;
        set->peak[s] = (uint32_t)pooled[s];
    }
    *out = r;
    return LDEM_OK;
broken:
    free(r);
    return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                        "checkpoint: the ranks' contact records do not fit together");
}

/* The gathered records written in list order (from where they lie: not copied). */
static int write_sorted(const char *path, const ldem_world *w, const ldem_checkpoint_extra *x,
                        const ldem_checkpoint_stage *st, const unsigned char *all, size_t bytes,
                        uint64_t n, ldem_err *err)
{
    ldem__contact_set set = {.count = n, .records = all, .bytes = bytes};
    record_ref *r = NULL;
    int rc = index_records(w, all, bytes, n, &r, &set, err);
    if (rc)
        return rc;
    set.order = r;
    rc = ldem__checkpoint_write(path, w, x, st, &set, err);
    free(r);
    return rc;
}

int ldem__checkpoint_save_gathered(const char *path, const ldem_world *w,
                                   const ldem_checkpoint_extra *x, const ldem_checkpoint_stage *st,
                                   ldem_err *err)
{
    const ldem_world_comm *comm = w->comm;
    int rc = ldem__checkpoint_check_contacts(w, 1, err);
    int all_rc = agree(w, rc);
    if (all_rc)
        return rc ? rc : fail_elsewhere(err, all_rc);
    unsigned char *mine = NULL;
    size_t my_bytes = 0;
    uint64_t n = 0;
    rc = ldem_world_pack_contacts(w, &mine, &my_bytes, &n, err);
    if ((all_rc = agree(w, rc))) {
        free(mine);
        return rc ? rc : fail_elsewhere(err, all_rc);
    }
    if (comm->count(comm->ctx, &n, 1, 0)) {
        free(mine);
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "checkpoint: counting the contacts failed");
    }
    void *all = NULL;
    size_t bytes = 0;
    rc = comm->gather(comm->ctx, mine, my_bytes, &all, &bytes);
    free(mine);
    if (rc) {
        free(all);
        return ldem_err_set(err, rc, NULL, 0, "checkpoint: gathering the contacts failed");
    }
    if (comm->writer)
        rc = write_sorted(path, w, x, st, all, bytes, n, err);
    free(all);
    all_rc = agree(w, rc);
    return all_rc && !rc ? fail_elsewhere(err, all_rc) : rc;
}
