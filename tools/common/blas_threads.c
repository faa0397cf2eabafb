/* One BLAS thread for modefit and energyfit (blas_threads.h).
 *
 * OpenBLAS splits a product's work among its threads, and its kernels then add partial
 * sums in an order that depends on the split: modefit's POD and --orthogonalize bundles
 * differed in the last bits (~1e-13 relative) between OPENBLAS_NUM_THREADS=1, 2 and 4, so a
 * bundle depended on the machine (and the load) it was made on. The matrices of these
 * tools are small (a few snapshots or modes against ~10^4 dofs): a second thread saved
 * nothing measurable, so one thread costs nothing and makes the output reproducible.
 * modefit's own OpenMP loops are not concerned: they gave the same bytes on 1 to 4
 * threads. */
#include "blas_threads.h"

#ifdef LDEM_HAVE_OPENBLAS_SET_NUM_THREADS
/* OpenBLAS's own; declared here rather than through its cblas.h, whose location differs
 * between OpenBLAS builds (Debian: one directory per threading variant). */
void openblas_set_num_threads(int num_threads);
#endif

void blas_use_one_thread(void)
{
#ifdef LDEM_HAVE_OPENBLAS_SET_NUM_THREADS
    openblas_set_num_threads(1);
#endif
}
