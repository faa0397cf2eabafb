/* The same bytes from the offline tools on any number of BLAS threads. */
#ifndef LDEM_TOOLS_BLAS_THREADS_H
#define LDEM_TOOLS_BLAS_THREADS_H

/* Make every BLAS/LAPACK call of this process run on one thread (OpenBLAS; with another
 * BLAS, nothing is done: see tools/meson.build). Call before the first BLAS call. */
void blas_use_one_thread(void);

#endif
