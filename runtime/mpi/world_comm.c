/* world_comm.c — a world shared out between MPI ranks by blocks of bodies, every body kept
 * on every rank (ldem/mpi/world_comm.h, docs/mpi.md). */
#include "ldem/mpi/world_comm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/mpi/reduce.h"

/* A body's state as its owner sends it: x, v, q, L, force, torque. The force and torque
 * travel too: the next step's first half kick then moves the ghost exactly as its owner. */
enum { STATE_DOUBLES = 3 + 3 + 4 + 3 + 3 + 3 };

struct ldem_mpi_world {
    MPI_Comm comm;
    int rank, nranks;
    size_t nblocks, owned;
    int *block_owner;        /* the rank that owns each block of LDEM_SUM_BLOCK bodies */
    int *counts, *displs;    /* doubles each rank sends in the exchange, and where they go */
    double *send, *recv;
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

static size_t block_end(const ldem_world *w, size_t block)
{
    size_t end = (block + 1) * LDEM_SUM_BLOCK;
    return end < w->bodies.count ? end : w->bodies.count;
}

static double *pack(const ldem_bodies *b, size_t i, double *d)
{
    memcpy(d, &b->x[i], 3 * sizeof *d);
    memcpy(d + 3, &b->v[i], 3 * sizeof *d);
    memcpy(d + 6, &b->q[i], 4 * sizeof *d);
    memcpy(d + 10, &b->L[i], 3 * sizeof *d);
    memcpy(d + 13, &b->force[i], 3 * sizeof *d);
    memcpy(d + 16, &b->torque[i], 3 * sizeof *d);
    return d + STATE_DOUBLES;
}

static const double *unpack(ldem_bodies *b, size_t i, const double *d)
{
    memcpy(&b->x[i], d, 3 * sizeof *d);
    memcpy(&b->v[i], d + 3, 3 * sizeof *d);
    memcpy(&b->q[i], d + 6, 4 * sizeof *d);
    memcpy(&b->L[i], d + 10, 3 * sizeof *d);
    memcpy(&b->force[i], d + 13, 3 * sizeof *d);
    memcpy(&b->torque[i], d + 16, 3 * sizeof *d);
    return d + STATE_DOUBLES;
}

/* Every owner's bodies, in index order within each rank's share, to every rank. */
static int exchange_op(void *ctx, ldem_world *w)
{
    ldem_mpi_world *m = ctx;
    if (m->nranks == 1)
        return LDEM_OK; /* no ghosts */
    ldem_bodies *b = &w->bodies;
    double *d = m->send;
    for (size_t k = 0; k < m->nblocks; k++)
        if (m->block_owner[k] == m->rank)
            for (size_t i = k * LDEM_SUM_BLOCK; i < block_end(w, k); i++)
                d = pack(b, i, d);
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
                    s = unpack(b, i, s);
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
    free(m);
}

/* Rank 0 partitions the blocks by their centroids (a level-set grain weighs as much as 8
 * spheres: its pairs query level sets at its nodes), and every rank learns the owners. */
static int partition_blocks(ldem_mpi_world *m, enum ldem_partition_method method,
                            const ldem_world *w, ldem_err *err)
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
            wk += w->bodies.kind[i] == LDEM_SHAPE_LSET ? 8.0 : 1.0;
        }
        gid[k] = k;
        x[k] = ldem_vec3_scale(c, 1.0 / (double)(end - k * LDEM_SUM_BLOCK));
        weight[k] = wk;
    }
    rc = ldem_partition_balance(p, n, gid, x, weight, owner, err);
    if (!rc) {
        if (m->rank == 0)
            memcpy(m->block_owner, owner, m->nblocks * sizeof *owner);
        MPI_Bcast(m->block_owner, (int)m->nblocks, MPI_INT, 0, m->comm);
    }
done:
    free(gid);
    free(x);
    free(weight);
    free(owner);
    ldem_partition_free(p);
    return rc;
}

int ldem_mpi_world_attach(MPI_Comm comm, enum ldem_partition_method method, ldem_world *w,
                          ldem_mpi_world **out, ldem_err *err)
{
    *out = NULL;
    if (w->modal.ndof)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "deformable grains under MPI are not supported yet (docs/mpi.md)");
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
    if (n > (size_t)INT32_MAX / STATE_DOUBLES) {
        world_free(m);
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "%zu bodies are too many for one exchange message", n);
    }
    m->block_owner = calloc(m->nblocks ? m->nblocks : 1, sizeof *m->block_owner);
    m->counts = calloc((size_t)m->nranks, sizeof *m->counts);
    m->displs = calloc((size_t)m->nranks, sizeof *m->displs);
    m->send = malloc((n ? n : 1) * STATE_DOUBLES * sizeof *m->send);
    m->recv = malloc((n ? n : 1) * STATE_DOUBLES * sizeof *m->recv);
    if (!m->block_owner || !m->counts || !m->displs || !m->send || !m->recv) {
        world_free(m);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    int rc = partition_blocks(m, method, w, err);
    if (rc) {
        world_free(m);
        return rc;
    }
    for (size_t k = 0; k < m->nblocks; k++) {
        size_t bodies = block_end(w, k) - k * LDEM_SUM_BLOCK;
        m->counts[m->block_owner[k]] += (int)(bodies * STATE_DOUBLES);
        for (size_t i = k * LDEM_SUM_BLOCK; i < block_end(w, k); i++) {
            if (m->block_owner[k] == m->rank) {
                w->bodies.flags[i] &= ~(uint32_t)LDEM_BODY_GHOST;
                m->owned++;
            } else {
                w->bodies.flags[i] |= LDEM_BODY_GHOST;
            }
        }
    }
    for (int r = 1; r < m->nranks; r++)
        m->displs[r] = m->displs[r - 1] + m->counts[r - 1];
    m->ops = (ldem_world_comm){m, sum_op, count_op, exchange_op};
    w->comm = &m->ops;
    *out = m;
    return LDEM_OK;
}

size_t ldem_mpi_world_owned(const ldem_mpi_world *m)
{
    return m->owned;
}

void ldem_mpi_world_detach(ldem_mpi_world *m, ldem_world *w)
{
    if (!m)
        return;
    for (size_t i = 0; i < w->bodies.count; i++)
        w->bodies.flags[i] &= ~(uint32_t)LDEM_BODY_GHOST;
    if (w->comm == &m->ops)
        w->comm = NULL;
    world_free(m);
}
