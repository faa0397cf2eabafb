/* demrun-mpi — demrun on MPI ranks (docs/mpi.md): `mpirun -np N demrun-mpi SCENE.yaml`, the
 * bodies shared out by Zoltan in blocks; probes, frames and checkpoints the same bytes as one
 * process, restarts on any rank count, stages, deformable grains. Experimental: every rank
 * holds every body. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "demrun.h"
#include "ldem/log.h"
#include "ldem/mpi/world_comm.h"

typedef struct dist_ctx {
    ldem_mpi_world *world;
} dist_ctx;

/* A staged run attaches each stage's new world: the last stage's share goes first. */
static int attach(void *ctx, ldem_world *w, ldem_err *err)
{
    dist_ctx *d = ctx;
    ldem_mpi_world_detach(d->world, w);
    d->world = NULL;
    return ldem_mpi_world_attach(MPI_COMM_WORLD, LDEM_PARTITION_RCB, w, &d->world, err);
}

static int agree(void *ctx, int value)
{
    (void)ctx;
    int most = value;
    MPI_Allreduce(&value, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ldem_log_set_program("demrun-mpi");
    demrun_options o;
    int status = demrun_parse_args(argc, argv, &o);
    for (int k = 1; k < argc && status == 0 && rank == 0; k++)
        if (!strcmp(argv[k], "-h") || !strcmp(argv[k], "--help"))
            printf("\ndemrun-mpi: the same under MPI, `mpirun -np N demrun-mpi SCENE.yaml`: the\n"
                   "grains shared out by Zoltan (RCB) in blocks; probes, frames and checkpoints\n"
                   "the same bytes as one process, --restart on any number of ranks (the output\n"
                   "folder must be readable by every rank). Experimental: every rank holds\n"
                   "every body (docs/mpi.md).\n");
    dist_ctx ctx = {NULL};
    demrun_dist dist = {rank, nranks, &ctx, attach, agree};
    if (status < 0) {
        o.dist = &dist;
        if (rank != 0)
            o.quiet = 1; /* rank 0 speaks for the run */
        status = demrun_run(&o);
    }
    if (ctx.world && rank == 0 && status == 0) {
        ldem_mpi_balance bal = ldem_mpi_world_balance(ctx.world);
        ldem_info("rebalancing: %llu looks at list rebuilds, %llu partitions, %llu blocks moved "
                  "(%.3g MB of contacts sent), last imbalance %.3f",
                  (unsigned long long)bal.checks, (unsigned long long)bal.rebalances,
                  (unsigned long long)bal.blocks_moved, 1e-6 * (double)bal.bytes_moved,
                  bal.imbalance);
    }
    demrun_options_free(&o);
    ldem_mpi_world_detach(ctx.world, NULL);
    /* A rank that failed alone would leave the others waiting in a collective: end them all
     * with its status. (A stop by a signal is agreed by every rank.) */
    if (status != 0 && status < 128 && nranks > 1)
        MPI_Abort(MPI_COMM_WORLD, status);
    MPI_Finalize();
    return status;
}
