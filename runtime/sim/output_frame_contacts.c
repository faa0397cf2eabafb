/* The contacts part of a frame as rows (frame_contacts.h): the world's contacts in touch, or
 * in a distributed run (docs/mpi.md) every rank's, gathered at the writing rank and put in
 * list order, so that rank 0's contact frames are one process's bytes. */
#include "frame_contacts.h"

#include <stdlib.h>
#include <string.h>

#include "ldem/sim/output.h"

static int32_t history_length(const ldem_world *w, const ldem_contact *c)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    if (!ops->history_length)
        return 0;
    uint32_t n = ops->history_length(c->law_state);
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

static void put3(double d[3], ldem_vec3 v)
{
    d[0] = v.x, d[1] = v.y, d[2] = v.z;
}

static ldem__contact_row row_of(const ldem_world *w, const ldem_contact *c)
{
    ldem__contact_row r;
    memset(&r, 0, sizeof r); /* no stray bytes travel */
    int wall = (c->j & LDEM_WALL_BIT) != 0;
    uint32_t j = c->j & ~LDEM_WALL_BIT;
    r.key = (uint64_t)c->i << 32 | c->j;
    put3(r.from, w->bodies.x[c->i]);
    put3(r.to, wall ? c->point : w->bodies.x[j]);
    put3(r.fn, c->fn);
    put3(r.ft, c->ft);
    r.overlap = c->overlap;
    r.history_length = history_length(w, c);
    r.i = (int32_t)w->bodies.id[c->i]; /* the grains' ids, as the grain frames' */
    r.j = wall ? -1 - (int32_t)j : (int32_t)w->bodies.id[j];
    return r;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const ldem__contact_row *)a)->key, y = ((const ldem__contact_row *)b)->key;
    return (x > y) - (x < y);
}

int ldem__frame_contact_rows(const ldem_world *w, ldem__contact_row **rows, size_t *n,
                             ldem_err *err)
{
    *rows = NULL;
    *n = 0;
    size_t m = 0;
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        m += c->overlap > 0.0 && !(w->bodies.flags[c->i] & LDEM_BODY_GHOST);
    }
    ldem__contact_row *mine = malloc((m ? m : 1) * sizeof *mine);
    int rc = mine ? LDEM_OK : LDEM_ERR_NOMEM;
    if (w->comm) { /* every rank's failure is every rank's */
        uint64_t failed = rc != LDEM_OK;
        w->comm->count(w->comm->ctx, &failed, 1, 1);
        if (failed && !rc)
            rc = LDEM_ERR_NOMEM;
    }
    if (rc) {
        free(mine);
        return ldem_err_set(err, rc, NULL, 0, "frame: out of memory for %zu contacts", m);
    }
    m = 0;
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        if (c->overlap > 0.0 && !(w->bodies.flags[c->i] & LDEM_BODY_GHOST))
            mine[m++] = row_of(w, c);
    }
    if (!w->comm) { /* already in list order */
        *rows = mine;
        *n = m;
        return LDEM_OK;
    }
    void *all = NULL;
    size_t bytes = 0;
    rc = w->comm->gather(w->comm->ctx, mine, m * sizeof *mine, &all, &bytes);
    free(mine);
    if (rc) {
        free(all);
        return ldem_err_set(err, rc, NULL, 0, "frame: gathering the contacts failed");
    }
    *n = bytes / sizeof **rows;
    if (*n) {
        qsort(all, *n, sizeof **rows, by_key);
        *rows = all;
    } else {
        free(all);
    }
    return LDEM_OK;
}

int ldem_frames_share_contacts(const ldem_world *w, ldem_err *err)
{
    ldem__contact_row *rows;
    size_t n;
    int rc = ldem__frame_contact_rows(w, &rows, &n, err);
    free(rows);
    return rc;
}
