/* The lowest free-free vibration modes of a meshed grain: K φ = ω² M φ by implicitly
 * restarted Lanczos in shift-invert mode (ARPACK's dsaupd, mode 3) around a small negative
 * shift, with K + sM factored once (fe_solver.h). The six rigid motions come out first
 * at ω² ≈ 0; they are counted (exactly six for one connected body) and dropped. */
#ifndef MODEFIT_FE_EIGEN_H
#define MODEFIT_FE_EIGEN_H

#include <stddef.h>

#include "fe_solver.h"
#include "fe_sparse.h"

typedef struct fe_eigen_result {
    size_t count;     /* elastic modes returned */
    size_t rigid;     /* zero-frequency modes found and dropped (6) */
    double *lambda;   /* count: ω², ascending */
    double *phi;      /* count × n: M-orthonormal, sign fixed (largest entry positive) */
    double *rigid_lambda; /* rigid: their ω² (round-off around 0), for the log */
    int restarts;     /* Lanczos restarts ARPACK took */
    int solves;       /* solves with the factor */
} fe_eigen_result;

/* `f` factors K + shift·M (shift > 0). ω² below `zero_lambda` counts as a rigid motion;
 * more or fewer than six of them is LDEM_ERR_INPUT (a mesh in pieces, or a constraint).
 * The starting vector is fixed, so repeated runs give the same bits. */
int fe_eigen_free_free(const fe_sparse *S, fe_solver *f, double shift, size_t nelastic,
                       double zero_lambda, fe_eigen_result *r, ldem_err *err);
void fe_eigen_result_free(fe_eigen_result *r);

#endif
