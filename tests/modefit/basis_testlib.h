/* Helpers for the basis tests, written without BLAS/LAPACK so that they are an
 * independent computation: a fixed-seed generator, plain-loop products, a diagonal
 * weighted inner product and a cyclic Jacobi eigen-solver for small symmetric matrices. */
#ifndef MODEFIT_TEST_BASIS_TESTLIB_H
#define MODEFIT_TEST_BASIS_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include "basis.h"

typedef struct { uint64_t s; } btl_rng;

/* Uniform in [-1, 1) (splitmix64) and standard normal (Box–Muller). */
double btl_uniform(btl_rng *r);
double btl_normal(btl_rng *r);

/* Plain loops, long double accumulation. */
double btl_dot(const double *a, const double *b, size_t n);
double btl_wdot(const double *w, const double *a, const double *b, size_t n);
double btl_norm(const double *a, size_t n);

/* out = Σ_j c[j] fields_j (m fields of ndof). */
void btl_combine(const double *c, size_t m, const double *fields, size_t ndof, double *out);

/* The diagonal weighted product <a, b> = Σ w_i a_i b_i as a basis_inner (ctx = w). */
basis_inner btl_inner_diag(const double *w, size_t ndof);
void btl_inner_free(basis_inner *ip);

/* Eigenvalues (ascending) and eigenvectors (columns of Z, row-major) of a symmetric n × n
 * matrix A by cyclic Jacobi rotations; A is destroyed. */
void btl_jacobi_eigen(double *A, size_t n, double *lambda, double *Z);

/* Lower Cholesky factor L (A = L Lᵀ) of an SPD n × n matrix; returns 0 if not SPD. */
int btl_cholesky(const double *A, size_t n, double *L);

/* Largest |a_i - b_i| / largest |b_i|. */
double btl_rel_diff(const double *a, const double *b, size_t n);

/* Seconds of a monotonic clock. */
double btl_now(void);

#endif
