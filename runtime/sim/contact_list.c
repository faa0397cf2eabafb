/* contact_list.c — the persistent contact list: candidates from the broad phase (with a
 * skin), merged into the list at each refresh, grouped into history shards, and the test of
 * when the next refresh is due. The contacts' update each step is contact_loop.c's.
 *
 * The list holds every candidate pair sorted by (i, j); a pair keeps its state (frame,
 * Jäger stack, springs) for as long as it stays a candidate, and separated candidates cost
 * one distance test per step. A refresh merges the new candidate keys with the old list in
 * one pass, so surviving pairs keep their histories and the order never depends on threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact_list.h"
#include "ldem/sim/broadphase.h"
#include "step_work.h"
#include "walls.h"
#include "contact_forces.h"
#include "periodic.h"

static uint64_t contact_key(const ldem_contact *c)
{
    return ldem_pair_key(c->i, c->j);
}

/* The shard a contact's history lives in for its whole life: about 1/64 of the bodies, in
 * whole blocks of LDEM_SUM_BLOCK (a block's partial sums are one thread's), that its first
 * body i belongs to. The list is sorted by i, so each shard is a contiguous run of it and the
 * threads stream through memory (a hash of the pair would scatter every shard over the whole
 * list, and its cache misses alone would make a step several times slower). i never
 * changes, so neither does the shard. */
static uint32_t shard_of(const ldem_world *w, uint32_t i)
{
    size_t blocks = (w->bodies.count + LDEM_SUM_BLOCK - 1) / LDEM_SUM_BLOCK;
    return (uint32_t)(((uint64_t)(i / LDEM_SUM_BLOCK) * LDEM_HISTORY_SHARDS) /
                      (blocks ? blocks : 1));
}

static uint32_t law_index(const ldem_world *w, uint32_t i, uint32_t j)
{
    uint32_t mi = w->bodies.material[i];
    uint32_t mj = (j & LDEM_WALL_BIT) ? w->walls[j & ~LDEM_WALL_BIT].material
                                      : w->bodies.material[j];
    return (uint32_t)(mi * w->nmaterials + mj);
}

/* Distance from a body's centre to a wall's surface, on the body's side (negative behind). */
static double wall_clearance(const ldem_wall *wl, ldem_vec3 x)
{
    ldem_wall_geom g = ldem_wall_pose(wl);
    ldem_vec3 r = ldem_vec3_sub(x, g.point);
    if (g.kind == LDEM_WALL_PLANE)
        return ldem_vec3_dot(r, g.normal);
    double rho = ldem_vec3_norm(ldem_vec3_reject(r, g.normal));
    return g.inside ? g.radius - rho : rho - g.radius;
}

static int ensure_capacity(ldem_contact **a, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    ldem_contact *p = realloc(*a, c * sizeof *p);
    if (!p)
        return -1;
    *a = p;
    *cap = c;
    return 0;
}

static void contact_new(const ldem_world *w, ldem_contact *c, uint32_t i, uint32_t j)
{
    memset(c, 0, sizeof *c);
    c->i = i;
    c->j = j;
    c->law = law_index(w, i, j);
    c->shard = shard_of(w, i);
    c->frame = ldem_quat_identity();
}

/* Work a contact has dissipated so far: what its law's state keeps, plus c->dissipated (a
 * node law's friction, the normal damping). */
double ldem_contact_dissipated(const ldem_world *w, const ldem_contact *c)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    return ops->dissipated ? ops->dissipated(c->law_state) + c->dissipated : c->dissipated;
}

/* A pair that left the candidate list: its work stays in the energy balance. A refresh's
 * drops are summed exactly and added to the total once, so the total does not depend on how
 * the pairs are shared out between ranks. */
static void drop_contact(ldem_world *w, ldem_contact *c, ldem_xsum *released)
{
    if (!(w->bodies.flags[c->i] & LDEM_BODY_GHOST)) /* else its owner's to count */
        ldem_xsum_add(released, ldem_contact_dissipated(w, c));
    ldem_contact_release(w, c);
}

int ldem_world_keep_owned_pairs(ldem_world *w, ldem_err *err)
{
    size_t kept = 0;
    for (size_t k = 0; k < w->ncontacts; k++) {
        ldem_contact *c = &w->contacts[k];
        if (ldem_pair_kept(w->bodies.flags, c->i, c->j))
            w->contacts[kept++] = *c;
        else
            ldem_contact_release(w, c);
    }
    w->ncontacts = kept;
    /* a world already stepping groups its contacts by shard: group the kept ones */
    if (w->work && w->work->shard_list) {
        if (ldem_contacts_build_shards(w))
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for contacts");
        ldem_contacts_classify(w);
    }
    return LDEM_OK;
}

/* Group the contact indices by shard (CSR), keeping list order inside each shard. */
int ldem_contacts_build_shards(ldem_world *w)
{
    ldem_step_work *k = w->work;
    if (w->ncontacts > k->shard_list_capacity) {
        uint32_t *p = realloc(k->shard_list, w->ncontacts * sizeof *p);
        if (!p)
            return -1;
        k->shard_list = p;
        k->shard_list_capacity = w->ncontacts;
    }
    uint32_t count[LDEM_HISTORY_SHARDS] = {0};
    for (size_t c = 0; c < w->ncontacts; c++)
        count[w->contacts[c].shard]++;
    k->shard_start[0] = 0;
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        k->shard_start[s + 1] = k->shard_start[s] + count[s];
    uint32_t fill[LDEM_HISTORY_SHARDS];
    memcpy(fill, k->shard_start, sizeof fill);
    k->shards_in_list_order = 1;
    for (size_t c = 0; c < w->ncontacts; c++) {
        uint32_t at = fill[w->contacts[c].shard]++;
        k->shard_list[at] = (uint32_t)c;
        if (at != c)
            k->shards_in_list_order = 0;
    }
    return 0;
}

int ldem_contacts_refresh(ldem_world *w, ldem_err *err)
{
    ldem_step_work *k = w->work;
    const ldem_bodies *b = &w->bodies;
    int periodic = w->cell.periodic;
    int rc;
    if (periodic) {
        ldem_periodic_wrap(w);
        rc = ldem_broadphase_pairs_periodic(&k->bp, b->count, b->x, b->radius, w->skin,
                                            &w->cell, err);
    } else {
        rc = ldem_broadphase_pairs(&k->bp, b->count, b->x, b->radius, w->skin, err);
    }
    if (rc)
        return rc;

    /* New candidate keys in sorted order: for each body i its body partners (from the broad
     * phase, already sorted), then its walls (keys with the wall bit sort after them). */
    size_t cap = k->bp.npairs + w->ncontacts + 16;
    ldem_contact *next = malloc(cap * sizeof *next);
    if (!next)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for contacts");
    size_t n = 0, old = 0, p = 0;
    ldem_xsum released;
    ldem_xsum_clear(&released);
    for (uint32_t i = 0; i < b->count; i++) {
        uint64_t cand_first = n;
        /* Under MPI a rank keeps the pairs with at least one body it owns: a ghost's pairs
         * with other ghosts and with walls are their owners' (docs/mpi.md). */
        int ghost = (b->flags[i] & LDEM_BODY_GHOST) != 0;
        for (; p < k->bp.npairs && ldem_pair_i(k->bp.pairs[p]) == i; p++) {
            if (ghost && (b->flags[ldem_pair_j(k->bp.pairs[p])] & LDEM_BODY_GHOST))
                continue;
            if (ensure_capacity(&next, &cap, n + 1))
                goto nomem;
            next[n].j = ldem_pair_j(k->bp.pairs[p]);
            if (periodic)
                memcpy(next[n].image, &k->bp.image[3 * p], sizeof next[n].image);
            else
                memset(next[n].image, 0, sizeof next[n].image);
            n++;
        }
        for (uint32_t wi = 0; wi < w->nwalls && !ghost; wi++)
            if (wall_clearance(&w->walls[wi], b->x[i]) < b->radius[i] + w->skin) {
                if (ensure_capacity(&next, &cap, n + 1))
                    goto nomem;
                memset(next[n].image, 0, sizeof next[n].image);
                next[n++].j = LDEM_WALL_BIT | wi;
            }
        /* merge with the old contacts of body i */
        for (size_t c = cand_first; c < n; c++) {
            uint64_t key = ldem_pair_key(i, next[c].j);
            int8_t image[3];
            memcpy(image, next[c].image, sizeof image); /* the pair's image after this build */
            while (old < w->ncontacts && contact_key(&w->contacts[old]) < key)
                drop_contact(w, &w->contacts[old++], &released);
            if (old < w->ncontacts && contact_key(&w->contacts[old]) == key)
                next[c] = w->contacts[old++];
            else
                contact_new(w, &next[c], i, next[c].j);
            memcpy(next[c].image, image, sizeof image);
        }
    }
    for (; old < w->ncontacts; old++)
        drop_contact(w, &w->contacts[old], &released);
    if (w->comm)
        w->comm->sum(w->comm->ctx, &released, 1);
    w->dissipated_contacts_released += ldem_xsum_round(&released);
    free(w->contacts);
    w->contacts = next;
    w->ncontacts = n;
    w->contacts_capacity = cap;
    if (ldem_contacts_build_shards(w))
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for contacts");
    ldem_contacts_classify(w);

    memcpy(w->x_list, b->x, b->count * sizeof *b->x);
    memcpy(w->radius_list, b->radius, b->count * sizeof *b->radius);
    for (size_t wi = 0; wi < w->nwalls; wi++)
        w->wall_disp_list[wi] = w->walls[wi].disp;
    w->h_list = w->cell.h;
    w->list_builds++;
    return LDEM_OK;
nomem:
    /* The old list is intact up to `old` released entries: drop the half-built one. */
    w->dissipated_contacts_released += ldem_xsum_round(&released);
    free(next);
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for contacts");
}

int ldem_contacts_need_refresh(const ldem_world *w)
{
    if (w->cell.periodic)
        return ldem_periodic_need_refresh(w);
    const ldem_bodies *b = &w->bodies;
    double body2 = 0.0, wall = 0.0, grown = 0.0;
    for (size_t i = 0; i < b->count; i++) {
        double d2 = ldem_vec3_norm2(ldem_vec3_sub(b->x[i], w->x_list[i]));
        if (d2 > body2)
            body2 = d2;
    }
    /* A deformable grain's surface can reach out as far as its radius grew: count the growth
     * like a displacement (bounded separately: the rigid loop above stays a pure norm). */
    if (w->modal.ndof)
        for (size_t i = 0; i < b->count; i++)
            if (b->modal[i] != LDEM_RIGID) {
                double g = sqrt(ldem_vec3_norm2(ldem_vec3_sub(b->x[i], w->x_list[i]))) +
                           fmax(0.0, b->radius[i] - w->radius_list[i]);
                if (g > grown)
                    grown = g;
            }
    for (size_t k = 0; k < w->nwalls; k++) {
        double d = ldem_vec3_dist(w->walls[k].disp, w->wall_disp_list[k]);
        if (d > wall)
            wall = d;
    }
    double body = fmax(sqrt(body2), grown), half = 0.5 * w->skin;
    return body > half || body + wall > w->skin;
}
