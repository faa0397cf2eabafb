/* K + s M by CHOLMOD (fe_solver.h). The 64-bit interface (cholmod_l_*) takes fe_sparse's
 * arrays as they are. CHOLMOD's supernodal factorization calls BLAS, which modefit keeps
 * on one thread (blas_threads.h): the same bytes on any machine. */
#include "fe_solver.h"

#include <stdlib.h>
#include <string.h>

#include <suitesparse/cholmod.h>

struct fe_solver {
    cholmod_common cc;
    cholmod_factor *L;
    size_t n;
};

static int cholmod_failed(fe_solver *f, const char *what, ldem_err *err)
{
    int status = f->cc.status;
    if (status == CHOLMOD_OUT_OF_MEMORY)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory in CHOLMOD (%s, %zu unknowns)", what, f->n);
    if (status == CHOLMOD_NOT_POSDEF)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "K + sM is not positive definite (%s): a negative density or "
                            "modulus, or elements of no volume?", what);
    return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "CHOLMOD failed in %s (status %d)", what,
                        status);
}

void fe_solver_free(fe_solver *f)
{
    if (!f)
        return;
    if (f->L)
        cholmod_l_free_factor(&f->L, &f->cc);
    cholmod_l_finish(&f->cc);
    free(f);
}

int fe_solver_factor(const fe_sparse *S, double shift, fe_solver **out, ldem_err *err)
{
    *out = NULL;
    fe_solver *f = calloc(1, sizeof *f);
    double *ax = malloc((S->nnz ? S->nnz : 1) * sizeof *ax);
    if (!f || !ax) {
        free(f);
        free(ax);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for K + sM");
    }
    f->n = S->n;
    cholmod_l_start(&f->cc);
    f->cc.print = 0;
    f->cc.error_handler = NULL;
    for (size_t p = 0; p < S->nnz; p++)
        ax[p] = S->K[p] + shift * S->M[p];
    cholmod_sparse A;
    memset(&A, 0, sizeof A);
    A.nrow = A.ncol = S->n;
    A.nzmax = S->nnz;
    A.p = S->colptr;
    A.i = S->row;
    A.x = ax;
    A.stype = 1; /* upper triangle stored */
    A.itype = CHOLMOD_LONG;
    A.xtype = CHOLMOD_REAL;
    A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1;
    A.packed = 1;
    int rc = LDEM_OK;
    f->L = cholmod_l_analyze(&A, &f->cc);
    if (!f->L)
        rc = cholmod_failed(f, "the ordering", err);
    if (!rc && (!cholmod_l_factorize(&A, f->L, &f->cc) || f->cc.status != CHOLMOD_OK))
        rc = cholmod_failed(f, "the factorization", err);
    free(ax);
    if (rc) {
        fe_solver_free(f);
        return rc;
    }
    *out = f;
    return LDEM_OK;
}

int fe_solver_solve(fe_solver *f, const double *b, double *x, size_t nrhs, ldem_err *err)
{
    cholmod_dense B;
    memset(&B, 0, sizeof B);
    B.nrow = B.d = f->n;
    B.ncol = nrhs;
    B.nzmax = f->n * nrhs;
    B.x = (void *)b;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, f->L, &B, &f->cc);
    if (!X)
        return cholmod_failed(f, "a solve", err);
    memcpy(x, X->x, f->n * nrhs * sizeof *x);
    cholmod_l_free_dense(&X, &f->cc);
    return LDEM_OK;
}

double fe_solver_factor_bytes(const fe_solver *f)
{
    /* Supernodal: the values, and row indices shared by each supernode's columns;
     * simplicial: a value and a row index per entry. */
    if (f->L->is_super)
        return 8.0 * ((double)f->L->xsize + (double)f->L->ssize);
    return 16.0 * (double)f->L->nzmax;
}

const char *fe_solver_ordering(const fe_solver *f)
{
    switch (f->L->ordering) {
    case CHOLMOD_NATURAL: return "natural";
    case CHOLMOD_AMD: return "AMD";
    case CHOLMOD_METIS: return "METIS";
    case CHOLMOD_NESDIS: return "nested dissection";
    case CHOLMOD_COLAMD: return "COLAMD";
    default: return "given";
    }
}
