/* ldem/mpi/world_comm.h — a world shared out between MPI ranks by blocks of bodies
 * (libldem-mpi, docs/mpi.md).
 *
 * Every rank builds the same world from the scene; ldem_mpi_world_attach then gives each rank
 * whole blocks of LDEM_SUM_BLOCK consecutive bodies, by Zoltan's partition of the blocks'
 * centroids weighted by work, marks the other bodies as ghosts (LDEM_BODY_GHOST) and plugs
 * the collectives into the world (ldem_world_comm). Each rank then computes the contacts of
 * the bodies it owns and integrates them; the global sums are exact; and at the end of every
 * step the owners' state goes to every rank, so each rank holds the whole state a one-rank
 * run holds, bit for bit.
 *
 * This first version keeps every body on every rank (the ghost layer is the whole world):
 * the contacts and their histories are shared out, the bodies are not, and each step moves
 * every owned body's state to every rank (an MPI_Allgatherv of 152 bytes per body). Ghosts
 * limited to the reach of a rank's region are the next step (docs/mpi.md). A world restored
 * from a checkpoint may be attached too: each rank keeps its pairs of the restored ones.
 */
#ifndef LDEM_MPI_WORLD_COMM_H
#define LDEM_MPI_WORLD_COMM_H

#include <mpi.h>

#include "ldem/err.h"
#include "ldem/export.h"
#include "ldem/mpi/partition.h"
#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_mpi_world ldem_mpi_world;

/* Share w out between the ranks of comm (collective; every rank passes a world built from the
 * same scene, before ldem_world_prepare, or restored from the same checkpoint). Deformable
 * bodies' modal state travels with them. *out is NULL on failure. */
LDEM_API int ldem_mpi_world_attach(MPI_Comm comm, enum ldem_partition_method method,
                                   ldem_world *w, ldem_mpi_world **out, ldem_err *err);
/* The bodies this rank owns. */
LDEM_API size_t ldem_mpi_world_owned(const ldem_mpi_world *m);
/* Rebalancing (docs/mpi.md): at each list rebuild every rank weighs its blocks (a body's own
 * work and its block's pairs); when the most loaded rank carries more than `threshold` times
 * the mean, the blocks are partitioned anew and, if that lowers the imbalance, the contacts
 * move to their new ranks with their Jäger histories. A partition that could not do better is
 * not tried again until the imbalance grows 5 % past it. 0 never rebalances; the default is
 * LDEM_MPI_REBALANCE_DEFAULT. */
#define LDEM_MPI_REBALANCE_DEFAULT 1.1
LDEM_API void ldem_mpi_world_set_rebalance(ldem_mpi_world *m, double threshold);

/* What rebalancing has done so far on this rank. */
typedef struct ldem_mpi_balance {
    uint64_t checks;       /* list rebuilds at which the load was weighed */
    uint64_t rebalances;   /* times the blocks were partitioned anew */
    uint64_t blocks_moved; /* blocks that changed owner, over all rebalances */
    uint64_t bytes_moved;  /* contact records sent to every rank, over all rebalances */
    double imbalance;      /* the most loaded rank's work over the mean, at the last check */
} ldem_mpi_balance;
LDEM_API ldem_mpi_balance ldem_mpi_world_balance(const ldem_mpi_world *m);

/* Detach from w (its ghosts become its own bodies again; w may be NULL when it is gone) and
 * free (collective). */
LDEM_API void ldem_mpi_world_detach(ldem_mpi_world *m, ldem_world *w);

#ifdef __cplusplus
}
#endif
#endif
