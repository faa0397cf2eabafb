/* reduce.c — exact global sums over MPI ranks (ldem/mpi/reduce.h). */
#include "ldem/mpi/reduce.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int ldem_mpi_xsum_allreduce(MPI_Comm comm, ldem_xsum *s, size_t n, ldem_err *err)
{
    if (!n)
        return LDEM_OK;
    if (n > (size_t)INT_MAX / LDEM_XSUM_WORDS)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "ldem_mpi_xsum_allreduce: %zu sums are too many for one message",
                            n);
    int64_t *words = malloc(n * LDEM_XSUM_WORDS * sizeof *words);
    if (!words)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for a global sum");
    for (size_t k = 0; k < n; k++) {
        /* normalized limbs are below 2³² (the top one signed), so the sum over up to 2³¹
         * ranks cannot overflow an int64 */
        ldem_xsum_normalize(&s[k]);
        int64_t *w = words + k * LDEM_XSUM_WORDS;
        for (int q = 0; q < LDEM_XSUM_LIMBS; q++)
            w[q] = s[k].limb[q];
        w[LDEM_XSUM_LIMBS] = s[k].nan;
        w[LDEM_XSUM_LIMBS + 1] = s[k].pos_inf;
        w[LDEM_XSUM_LIMBS + 2] = s[k].neg_inf;
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, words, (int)(n * LDEM_XSUM_WORDS), MPI_INT64_T,
                           MPI_SUM, comm);
    if (rc != MPI_SUCCESS) {
        free(words);
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "MPI_Allreduce of a global sum failed");
    }
    for (size_t k = 0; k < n; k++) {
        const int64_t *w = words + k * LDEM_XSUM_WORDS;
        for (int q = 0; q < LDEM_XSUM_LIMBS; q++)
            s[k].limb[q] = w[q];
        s[k].nan = w[LDEM_XSUM_LIMBS];
        s[k].pos_inf = w[LDEM_XSUM_LIMBS + 1];
        s[k].neg_inf = w[LDEM_XSUM_LIMBS + 2];
        s[k].pending = 0;
        ldem_xsum_normalize(&s[k]);
    }
    free(words);
    return LDEM_OK;
}
