/* runtime/mpi/partition_private.h — the partition object, shared by partition.c (creation,
 * balancing) and the files that query or measure it. Not installed. */
#ifndef LDEM_MPI_PARTITION_PRIVATE_H
#define LDEM_MPI_PARTITION_PRIVATE_H

#include "ldem/mpi/partition.h"

#include <zoltan.h>

struct ldem_partition {
    MPI_Comm comm;                /* our duplicate: our collectives never meet the caller's */
    int rank, nranks;
    enum ldem_partition_method method;
    struct Zoltan_Struct *zz;
    int balanced;                 /* a balance succeeded: the regions exist (KEEP_CUTS) */
};

/* Agree on a status across the communicator: the largest status any rank has (LDEM_OK only
 * when every rank is OK), so that every rank takes the same branch before a collective call
 * and none waits in it for a rank that has already given up. A rank that was fine gets an
 * error message naming the failure elsewhere. */
int ldem__partition_agree(MPI_Comm comm, int status, ldem_err *err);

#endif
