/* ldem/mpi/partition.h — which rank owns which body: geometric domain decomposition through
 * Zoltan (libldem-mpi, issue 39).
 *
 * Part of libldem-mpi, not libldem: only a distributed run needs MPI and Zoltan, and a
 * simulation machine running one process must not (docs/design.md, "Dependencies"). Every
 * call taking a partition is collective over its communicator unless it says otherwise.
 *
 * A partition splits space into one region per rank, by recursive coordinate bisection (RCB:
 * axis-aligned boxes) or a Hilbert space-filling curve (HSFC). ldem_partition_balance
 * assigns each of a rank's bodies the rank whose region holds it, balancing the bodies' work
 * weights; the regions are kept, so that later ldem_partition_point_owner and
 * ldem_partition_box_ranks answer "who owns this point" and "whose regions does this box
 * touch" (the ranks that need a body as a ghost) without communication.
 *
 * MPI must be initialized before ldem_partition_create and finalized only after
 * ldem_partition_free. The calls are not thread-safe: call them from one thread.
 */
#ifndef LDEM_MPI_PARTITION_H
#define LDEM_MPI_PARTITION_H

#include "ldem/export.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ldem_partition_method {
    LDEM_PARTITION_RCB = 0,  /* recursive coordinate bisection: boxes, exact box queries */
    LDEM_PARTITION_HSFC = 1  /* Hilbert space-filling curve: cheaper, less compact regions */
};

typedef struct ldem_partition ldem_partition;

/* A partition over `comm` (collective; comm is duplicated, so the caller may free its own).
 * *out is NULL on failure. */
LDEM_API int ldem_partition_create(MPI_Comm comm, enum ldem_partition_method method,
                                   ldem_partition **out, ldem_err *err);
/* Collective (it frees the duplicated communicator). NULL is accepted. */
LDEM_API void ldem_partition_free(ldem_partition *p);

LDEM_API const char *ldem_partition_method_name(enum ldem_partition_method method);

/* Partition the bodies all ranks hold together. This rank holds `n` of them (0 is fine):
 * global ids gid[n] (unique across ranks), positions x[n], work weights weight[n] (finite,
 * >= 0; NULL weighs every body 1). Fills new_owner[n] with the rank each body belongs to.
 * The regions found are kept for the queries below; the next balance starts from them (RCB),
 * so regions move little when bodies do. The same input on the same ranks gives the same
 * assignment. Bad arguments on any rank fail the call on every rank. */
LDEM_API int ldem_partition_balance(ldem_partition *p, size_t n, const uint64_t *gid,
                                    const ldem_vec3 *x, const double *weight, int *new_owner,
                                    ldem_err *err);

/* The rank whose region holds point x. Needs a successful balance first; local (no
 * communication). */
LDEM_API int ldem_partition_point_owner(const ldem_partition *p, ldem_vec3 x, int *rank,
                                        ldem_err *err);

/* Every rank whose region intersects the box [lo, hi], in ranks[] (room for the
 * communicator's size), their count in *nranks. A superset for HSFC (its regions are
 * bounded by boxes), exact for RCB. Needs a successful balance first; local. */
LDEM_API int ldem_partition_box_ranks(const ldem_partition *p, ldem_vec3 lo, ldem_vec3 hi,
                                      int *ranks, int *nranks, ldem_err *err);

/* The load imbalance: the largest rank's weight over the mean rank weight (1 is perfect).
 * This rank's `n` bodies weigh weight[n] (NULL: 1 each) and belong to owner[n]; owner NULL
 * means they all belong to this rank (after migration), which needs no per-rank table.
 * Zero total weight gives 1. Collective. */
LDEM_API int ldem_partition_imbalance(const ldem_partition *p, size_t n, const double *weight,
                                      const int *owner, double *imbalance, ldem_err *err);

/* The number of ranks of the partition's communicator (local). */
LDEM_API int ldem_partition_nranks(const ldem_partition *p);

#ifdef __cplusplus
}
#endif
#endif
