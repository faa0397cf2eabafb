/* runtime/mpi/imbalance.c — the load imbalance of an assignment, for "rebalance when the
 * load drifts": the heaviest rank's weight over the mean rank weight. */
#include "partition_private.h"

#include "ldem/memory_budget.h"

#include <math.h>
#include <stdlib.h>

int ldem_partition_imbalance(const ldem_partition *p, size_t n, const double *weight,
                             const int *owner, double *imbalance, ldem_err *err)
{
    int st = LDEM_OK;
    for (size_t i = 0; st == LDEM_OK && i < n; i++) {
        if (weight && !(weight[i] >= 0.0 && isfinite(weight[i])))
            st = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "partition: weight %g of local body %zu (expected finite, >= 0)",
                              weight[i], i);
        else if (owner && (owner[i] < 0 || owner[i] >= p->nranks))
            st = ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                              "partition: owner %d of local body %zu (expected 0 to %d)",
                              owner[i], i, p->nranks - 1);
    }
    /* After migration each rank knows only its own load: a max and a sum. Before it, the
     * loads are per owner and summed over ranks: one double per rank. */
    double *load = NULL;
    size_t nload = owner ? (size_t)p->nranks : 1;
    if (st == LDEM_OK)
        st = ldem_memory_check(0, ldem_memory_mul(2 * nload, sizeof *load), NULL, 0,
                               "partition loads", err);
    if (st == LDEM_OK && !(load = calloc(2 * nload, sizeof *load)))
        st = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "partition: out of memory");
    st = ldem__partition_agree(p->comm, st, err);
    if (st != LDEM_OK) {
        free(load);
        return st;
    }
    double *local = load, *total = load + nload;
    for (size_t i = 0; i < n; i++)
        local[owner ? (size_t)owner[i] : 0] += weight ? weight[i] : 1.0;
    double max = 0.0, sum = 0.0;
    int ok;
    if (owner) {
        ok = MPI_Allreduce(local, total, (int)nload, MPI_DOUBLE, MPI_SUM, p->comm) == MPI_SUCCESS;
        for (size_t r = 0; r < nload; r++) {
            sum += total[r];
            if (total[r] > max)
                max = total[r];
        }
    } else {
        ok = MPI_Allreduce(local, &max, 1, MPI_DOUBLE, MPI_MAX, p->comm) == MPI_SUCCESS &&
             MPI_Allreduce(local, &sum, 1, MPI_DOUBLE, MPI_SUM, p->comm) == MPI_SUCCESS;
    }
    free(load);
    if (!ok)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "partition: MPI_Allreduce failed");
    *imbalance = sum > 0.0 ? max / (sum / p->nranks) : 1.0;
    return LDEM_OK;
}
