/* ldem/mpi/reduce.h — global sums that are the same bits on any number of ranks
 * (libldem-mpi, docs/mpi.md).
 *
 * Each rank holds partial exact sums (ldem/xsum.h) of its own terms; the global sum is the
 * word-by-word sum of the normalized partials, which an MPI_Allreduce of int64 words with
 * MPI_SUM computes exactly, whatever the rank count, the reduction tree or the order the
 * ranks' messages arrive in. Rounded once, it is the correctly rounded sum of all the terms:
 * the value a one-rank run gets. An MPI_Allreduce of doubles guarantees none of that (MPI
 * leaves the order of a floating-point reduction to the implementation).
 */
#ifndef LDEM_MPI_REDUCE_H
#define LDEM_MPI_REDUCE_H

#include <mpi.h>
#include <stddef.h>

#include "ldem/err.h"
#include "ldem/export.h"
#include "ldem/xsum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Replace each of the n partial sums s[k] of this rank by the sum over all ranks of comm
 * (collective: every rank passes the same n). Returns LDEM_OK, or an MPI failure in err. */
LDEM_API int ldem_mpi_xsum_allreduce(MPI_Comm comm, ldem_xsum *s, size_t n, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
