/* world_comm.c — a world shared out between MPI ranks by blocks of bodies, every body kept
 * on every rank (ldem/mpi/world_comm.h, docs/mpi.md): the partition, the collectives the step
 * calls (exact sums, the exchange, gathers for the outputs) and rebalancing. */
#include "ldem/mpi/world_comm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/mpi/reduce.h"

/* A body's state as its owner sends it: x, v, q, L, force, torque. The force and torque
 * travel too: the next step's first half kick then moves the ghost exactly as its owner. */
enum { STATE_DOUBLES = 3 + 3 + 4 + 3 + 3 + 3 };
/* A deformable body's modal state travels with it: per mode ε, ε̇, ε_prev, Q, F_int and the
 * total force the next half kick applies (what a checkpoint's MODL keeps). */
enum { MODAL_DOUBLES = 6 };

static uint32_t body_modes(const ldem_world *w, size_t i)
{
    const ldem_modeset *ms = ldem_world_body_modes(w, i);
    return ms ? ms->n : 0;
}

static size_t body_doubles(const ldem_world *w, size_t i)
{
    return STATE_DOUBLES + (size_t)MODAL_DOUBLES * body_modes(w, i);
}

struct ldem_mpi_world {
    MPI_Comm comm;
    int rank, nranks;
    size_t nblocks, owned;
    int *block_owner;        /* the rank that owns each block of LDEM_SUM_BLOCK bodies */
    int *counts, *displs;    /* doubles each rank sends in the exchange, and where they go */
    double *send, *recv;
    uint64_t *gather_sizes;  /* the bytes each rank sends to a gather (at rank 0) */
    enum ldem_partition_method method;
    double threshold;        /* rebalance when the most loaded rank exceeds the mean by this */
    double *block_weight;    /* each block's work at the last look */
    double *rank_load;       /* each rank's work under a proposed partition */
    double floor;            /* an imbalance the last partition could not improve (0: none) */
    int *new_owner;
    ldem_mpi_balance stats;
    ldem_world_comm ops;
};

static int sum_op(void *ctx, ldem_xsum *s, size_t n)
{
    ldem_mpi_world *m = ctx;
    ldem_err err;
    return ldem_mpi_xsum_allreduce(m->comm, s, n, &err);
}

static int count_op(void *ctx, uint64_t *v, size_t n, int max)
{
    ldem_mpi_world *m = ctx;
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, max ? MPI_MAX : MPI_SUM,
                           m->comm);
    return rc == MPI_SUCCESS ? LDEM_OK : LDEM_ERR_IO;
}

/* Sent in pieces of at most this many bytes: MPI counts are ints. */
#define GATHER_PIECE ((size_t)1 << 30)

static int gather_op(void *ctx, const void *mine, size_t bytes, void **all, size_t *all_bytes)
{
    ldem_mpi_world *m = ctx;
    *all = NULL;
    *all_bytes = 0;
    uint64_t my = bytes, *sizes = m->gather_sizes;
    int ok = 1;
    uint64_t total = 0;
    if (m->rank == 0) {
        MPI_Gather(&my, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, 0, m->comm);
        for (int r = 0; r < m->nranks; r++)
            total += sizes[r];
        if (!(*all = malloc(total ? (size_t)total : 1)))
            ok = 0;
    } else {
        MPI_Gather(&my, 1, MPI_UINT64_T, NULL, 1, MPI_UINT64_T, 0, m->comm);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, m->comm);
    if (!ok) {
        free(*all);
        *all = NULL;
        return LDEM_ERR_NOMEM;
    }
    if (m->rank == 0) {
        unsigned char *p = *all;
        if (bytes)
            memcpy(p, mine, bytes);
        p += bytes;
        for (int r = 1; r < m->nranks; r++)
            for (uint64_t done = 0; done < sizes[r];) {
                size_t piece = sizes[r] - done < GATHER_PIECE ? (size_t)(sizes[r] - done)
                                                              : GATHER_PIECE;
                MPI_Recv(p, (int)piece, MPI_BYTE, r, 0, m->comm, MPI_STATUS_IGNORE);
                p += piece;
                done += piece;
            }
        *all_bytes = (size_t)total;
    } else {
        const unsigned char *p = mine;
        for (size_t done = 0; done < bytes;) {
            size_t piece = bytes - done < GATHER_PIECE ? bytes - done : GATHER_PIECE;
            MPI_Send(p + done, (int)piece, MPI_BYTE, 0, 0, m->comm);
            done += piece;
        }
    }
    return LDEM_OK;
}

static size_t block_end(const ldem_world *w, size_t block)
{
    size_t end = (block + 1) * LDEM_SUM_BLOCK;
    return end < w->bodies.count ? end : w->bodies.count;
}

static double *pack(const ldem_world *w, size_t i, double *d)
{
    const ldem_bodies *b = &w->bodies;
    memcpy(d, &b->x[i], 3 * sizeof *d);
    memcpy(d + 3, &b->v[i], 3 * sizeof *d);
    memcpy(d + 6, &b->q[i], 4 * sizeof *d);
    memcpy(d + 10, &b->L[i], 3 * sizeof *d);
    memcpy(d + 13, &b->force[i], 3 * sizeof *d);
    memcpy(d + 16, &b->torque[i], 3 * sizeof *d);
    d += STATE_DOUBLES;
    uint32_t n = body_modes(w, i);
    if (n) {
        const ldem_modal_state *m = &w->modal;
        const double *from[MODAL_DOUBLES] = {m->eps,   m->rate,  m->eps_prev,
                                             m->force, m->f_int, m->f_total};
        for (int f = 0; f < MODAL_DOUBLES; f++, d += n)
            memcpy(d, from[f] + b->modal[i], n * sizeof *d);
    }
    return d;
}

static const double *unpack(ldem_world *w, size_t i, const double *d)
{
    ldem_bodies *b = &w->bodies;
    memcpy(&b->x[i], d, 3 * sizeof *d);
    memcpy(&b->v[i], d + 3, 3 * sizeof *d);
    memcpy(&b->q[i], d + 6, 4 * sizeof *d);
    memcpy(&b->L[i], d + 10, 3 * sizeof *d);
    memcpy(&b->force[i], d + 13, 3 * sizeof *d);
    memcpy(&b->torque[i], d + 16, 3 * sizeof *d);
    d += STATE_DOUBLES;
    uint32_t n = body_modes(w, i);
    if (n) {
        ldem_modal_state *m = &w->modal;
        double *to[MODAL_DOUBLES] = {m->eps, m->rate, m->eps_prev, m->force, m->f_int, m->f_total};
        for (int f = 0; f < MODAL_DOUBLES; f++, d += n)
            memcpy(to[f] + b->modal[i], d, n * sizeof *d);
    }
    return d;
}

/* Every owner's bodies, in index order within each rank's share, to every rank. */
static int exchange_op(void *ctx, ldem_world *w)
{
    ldem_mpi_world *m = ctx;
    if (m->nranks == 1)
        return LDEM_OK; /* no ghosts */
    double *d = m->send;
    for (size_t k = 0; k < m->nblocks; k++)
        if (m->block_owner[k] == m->rank)
            for (size_t i = k * LDEM_SUM_BLOCK; i < block_end(w, k); i++)
                d = pack(w, i, d);
    int rc = MPI_Allgatherv(m->send, m->counts[m->rank], MPI_DOUBLE, m->recv, m->counts,
                            m->displs, MPI_DOUBLE, m->comm);
    if (rc != MPI_SUCCESS)
        return LDEM_ERR_IO;
    for (int r = 0; r < m->nranks; r++) {
        if (r == m->rank)
            continue;
        const double *s = m->recv + m->displs[r];
        for (size_t k = 0; k < m->nblocks; k++)
            if (m->block_owner[k] == r)
                for (size_t i = k * LDEM_SUM_BLOCK; i < block_end(w, k); i++)
                    s = unpack(w, i, s);
    }
    return LDEM_OK;
}

static void world_free(ldem_mpi_world *m)
{
    if (!m)
        return;
    if (m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    free(m->block_owner);
    free(m->counts);
    free(m->displs);
    free(m->send);
    free(m->recv);
    free(m->gather_sizes);
    free(m->block_weight);
    free(m->new_owner);
    free(m->rank_load);
    free(m);
}

/* A body's own work: a level-set grain weighs as much as 8 spheres (its pairs query level
 * sets at its nodes). */
static double body_weight(const ldem_world *w, size_t i)
{
    return w->bodies.kind[i] == LDEM_SHAPE_LSET ? 8.0 : 1.0;
}

/* Rank 0 partitions the blocks by their centroids, weighted by `weight` (every block's, on
 * rank 0) or else by their bodies, and every rank learns the owners (into `owner`). */
static int partition_blocks(ldem_mpi_world *m, enum ldem_partition_method method,
                            const ldem_world *w, const double *block_weight, int *block_owner,
                            ldem_err *err)
{
    ldem_partition *p = NULL;
    int rc = ldem_partition_create(m->comm, method, &p, err);
    if (rc)
        return rc;
    size_t n = m->rank == 0 ? m->nblocks : 0;
    uint64_t *gid = malloc((n ? n : 1) * sizeof *gid);
    ldem_vec3 *x = malloc((n ? n : 1) * sizeof *x);
    double *weight = malloc((n ? n : 1) * sizeof *weight);
    int *owner = malloc((n ? n : 1) * sizeof *owner);
    int fine = gid && x && weight && owner, all_fine = 0;
    MPI_Allreduce(&fine, &all_fine, 1, MPI_INT, MPI_LAND, m->comm);
    if (!all_fine) {
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for the partition");
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        ldem_vec3 c = ldem_vec3_zero();
        double wk = 0.0;
        size_t end = block_end(w, k);
        for (size_t i = k * LDEM_SUM_BLOCK; i < end; i++) {
            c = ldem_vec3_add(c, w->bodies.x[i]);
            wk += body_weight(w, i);
        }
        gid[k] = k;
        x[k] = ldem_vec3_scale(c, 1.0 / (double)(end - k * LDEM_SUM_BLOCK));
        weight[k] = block_weight ? block_weight[k] : wk;
    }
    rc = ldem_partition_balance(p, n, gid, x, weight, owner, err);
    if (!rc) {
        if (m->rank == 0)
            memcpy(block_owner, owner, m->nblocks * sizeof *owner);
        MPI_Bcast(block_owner, (int)m->nblocks, MPI_INT, 0, m->comm);
    }
done:
    free(gid);
    free(x);
    free(weight);
    free(owner);
    ldem_partition_free(p);
    return rc;
}

/* Mark the bodies of other ranks' blocks as ghosts and size the exchange for the owners. */
static void apply_owners(ldem_mpi_world *m, ldem_world *w)
{
    m->owned = 0;
    for (int r = 0; r < m->nranks; r++)
        m->counts[r] = 0;
    for (size_t k = 0; k < m->nblocks; k++) {
        for (size_t i = k * LDEM_SUM_BLOCK; i < block_end(w, k); i++) {
            m->counts[m->block_owner[k]] += (int)body_doubles(w, i);
            if (m->block_owner[k] == m->rank) {
                w->bodies.flags[i] &= ~(uint32_t)LDEM_BODY_GHOST;
                m->owned++;
            } else {
                w->bodies.flags[i] |= LDEM_BODY_GHOST;
            }
        }
    }
    m->displs[0] = 0;
    for (int r = 1; r < m->nranks; r++)
        m->displs[r] = m->displs[r - 1] + m->counts[r - 1];
}

/* Every rank's bytes on every rank, each rank's broadcast in pieces (MPI counts are ints):
 * a rebalance is rare, and this keeps it simple. *all is malloc'd; the failure of any rank to
 * find the memory is every rank's. */
static int allgather_bytes(ldem_mpi_world *m, const unsigned char *mine, uint64_t bytes,
                           unsigned char **all, uint64_t *total)
{
    *all = NULL;
    MPI_Allgather(&bytes, 1, MPI_UINT64_T, m->gather_sizes, 1, MPI_UINT64_T, m->comm);
    *total = 0;
    for (int r = 0; r < m->nranks; r++)
        *total += m->gather_sizes[r];
    *all = malloc(*total ? (size_t)*total : 1);
    int fine = *all != NULL, all_fine = 0;
    MPI_Allreduce(&fine, &all_fine, 1, MPI_INT, MPI_LAND, m->comm);
    if (!all_fine) {
        free(*all);
        *all = NULL;
        return LDEM_ERR_NOMEM;
    }
    unsigned char *p = *all;
    for (int r = 0; r < m->nranks; r++) {
        if (r == m->rank && bytes)
            memcpy(p, mine, (size_t)bytes);
        for (uint64_t done = 0; done < m->gather_sizes[r];) {
            size_t piece = m->gather_sizes[r] - done < GATHER_PIECE
                               ? (size_t)(m->gather_sizes[r] - done)
                               : GATHER_PIECE;
            MPI_Bcast(p + done, (int)piece, MPI_BYTE, r, m->comm);
            done += piece;
        }
        p += m->gather_sizes[r];
    }
    return LDEM_OK;
}

/* At a list rebuild: each block's work is its bodies' own and its pairs (those whose first
 * body it holds). When the most loaded rank carries more than `threshold` times the mean,
 * Zoltan partitions the blocks anew by that work, every rank sends the pairs whose first body
 * it owned (the checkpoint's records, Jäger histories as values) to every rank, and each keeps
 * the pairs with a body it now owns. The results do not depend on the partition. */
static int rebalance_op(void *ctx, ldem_world *w)
{
    ldem_mpi_world *m = ctx;
    if (m->nranks == 1 || !(m->threshold > 0.0))
        return LDEM_OK;
    double *weight = m->block_weight;
    memset(weight, 0, m->nblocks * sizeof *weight);
    for (size_t k = 0; k < m->nblocks; k++)
        for (size_t i = k * LDEM_SUM_BLOCK; m->block_owner[k] == m->rank && i < block_end(w, k);
             i++)
            weight[k] += body_weight(w, i);
    for (size_t c = 0; c < w->ncontacts; c++)
        if (!(w->bodies.flags[w->contacts[c].i] & LDEM_BODY_GHOST))
            weight[w->contacts[c].i / LDEM_SUM_BLOCK] += 1.0;
    double load = 0.0, most = 0.0, sum = 0.0;
    for (size_t k = 0; k < m->nblocks; k++)
        load += weight[k];
    MPI_Allreduce(&load, &most, 1, MPI_DOUBLE, MPI_MAX, m->comm);
    MPI_Allreduce(&load, &sum, 1, MPI_DOUBLE, MPI_SUM, m->comm);
    m->stats.checks++;
    double imbalance = sum > 0.0 ? most * m->nranks / sum : 1.0;
    m->stats.imbalance = imbalance;
    if (imbalance < m->floor)
        m->floor = 0.0; /* the load has changed since the partition could not help */
    /* (a partition that could not do better is not tried again until the load drifts 5 %) */
    if (!(imbalance > m->threshold) || imbalance <= 1.05 * m->floor)
        return LDEM_OK;
    /* each block's weight is its owner's alone: the sum gives every rank every block's */
    MPI_Allreduce(MPI_IN_PLACE, weight, (int)m->nblocks, MPI_DOUBLE, MPI_SUM, m->comm);
    ldem_err err;
    int rc = partition_blocks(m, m->method, w, weight, m->new_owner, &err);
    if (rc)
        return rc;
    size_t moved = 0;
    memset(m->rank_load, 0, (size_t)m->nranks * sizeof *m->rank_load);
    for (size_t k = 0; k < m->nblocks; k++) {
        moved += m->new_owner[k] != m->block_owner[k];
        m->rank_load[m->new_owner[k]] += weight[k];
    }
    double proposed = 0.0;
    for (int r = 0; r < m->nranks; r++)
        proposed = m->rank_load[r] > proposed ? m->rank_load[r] : proposed;
    proposed = sum > 0.0 ? proposed * m->nranks / sum : 1.0;
    m->stats.rebalances++;
    if (!moved || !(proposed < imbalance)) { /* no better: keep the contacts where they are */
        m->floor = imbalance;
        return LDEM_OK;
    }
    unsigned char *mine = NULL, *all = NULL;
    size_t bytes = 0;
    uint64_t count = 0, total = 0, n_all = 0;
    rc = ldem_world_pack_contacts(w, &mine, &bytes, &count, &err);
    int fine = rc == LDEM_OK, all_fine = 0;
    MPI_Allreduce(&fine, &all_fine, 1, MPI_INT, MPI_LAND, m->comm);
    if (!all_fine) {
        free(mine);
        return rc ? rc : LDEM_ERR_NOMEM;
    }
    MPI_Allreduce(&count, &n_all, 1, MPI_UINT64_T, MPI_SUM, m->comm);
    rc = allgather_bytes(m, mine, bytes, &all, &total);
    free(mine);
    if (rc)
        return rc;
    memcpy(m->block_owner, m->new_owner, m->nblocks * sizeof *m->block_owner);
    apply_owners(m, w);
    rc = ldem_world_unpack_contacts(w, all, (size_t)total, n_all, &err);
    free(all);
    m->stats.blocks_moved += moved;
    m->stats.bytes_moved += total;
    return rc;
}

int ldem_mpi_world_attach(MPI_Comm comm, enum ldem_partition_method method, ldem_world *w,
                          ldem_mpi_world **out, ldem_err *err)
{
    *out = NULL;
    ldem_mpi_world *m = calloc(1, sizeof *m);
    if (!m)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    m->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &m->comm) != MPI_SUCCESS) {
        world_free(m);
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "MPI_Comm_dup failed");
    }
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->nranks);
    size_t n = w->bodies.count;
    m->nblocks = (n + LDEM_SUM_BLOCK - 1) / LDEM_SUM_BLOCK;
    size_t doubles = n * STATE_DOUBLES + MODAL_DOUBLES * w->modal.ndof;
    if (doubles > (size_t)INT32_MAX) {
        world_free(m);
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "%zu bodies are too many for one exchange message", n);
    }
    m->block_owner = calloc(m->nblocks ? m->nblocks : 1, sizeof *m->block_owner);
    m->counts = calloc((size_t)m->nranks, sizeof *m->counts);
    m->displs = calloc((size_t)m->nranks, sizeof *m->displs);
    m->send = malloc((doubles ? doubles : 1) * sizeof *m->send);
    m->recv = malloc((doubles ? doubles : 1) * sizeof *m->recv);
    m->gather_sizes = calloc((size_t)m->nranks, sizeof *m->gather_sizes);
    m->block_weight = calloc(m->nblocks ? m->nblocks : 1, sizeof *m->block_weight);
    m->new_owner = calloc(m->nblocks ? m->nblocks : 1, sizeof *m->new_owner);
    m->rank_load = calloc((size_t)m->nranks, sizeof *m->rank_load);
    if (!m->rank_load || !m->block_owner || !m->counts || !m->displs || !m->send || !m->recv ||
        !m->gather_sizes || !m->block_weight || !m->new_owner) {
        world_free(m);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    int rc = partition_blocks(m, method, w, NULL, m->block_owner, err);
    if (rc) {
        world_free(m);
        return rc;
    }
    m->method = method;
    m->threshold = LDEM_MPI_REBALANCE_DEFAULT;
    apply_owners(m, w);
    m->ops = (ldem_world_comm){m,         sum_op,       count_op,    exchange_op,
                               gather_op, rebalance_op, m->rank == 0};
    /* a world restored from a checkpoint holds every pair: keep this rank's */
    if ((rc = ldem_world_keep_owned_pairs(w, err))) {
        ldem_mpi_world_detach(m, w);
        return rc;
    }
    w->comm = &m->ops;
    *out = m;
    return LDEM_OK;
}

size_t ldem_mpi_world_owned(const ldem_mpi_world *m)
{
    return m->owned;
}

void ldem_mpi_world_set_rebalance(ldem_mpi_world *m, double threshold)
{
    m->threshold = threshold;
}

ldem_mpi_balance ldem_mpi_world_balance(const ldem_mpi_world *m)
{
    return m->stats;
}

void ldem_mpi_world_detach(ldem_mpi_world *m, ldem_world *w)
{
    if (!m)
        return;
    for (size_t i = 0; w && i < w->bodies.count; i++)
        w->bodies.flags[i] &= ~(uint32_t)LDEM_BODY_GHOST;
    if (w && w->comm == &m->ops)
        w->comm = NULL;
    world_free(m);
}
