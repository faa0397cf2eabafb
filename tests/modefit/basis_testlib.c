#include "basis_testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double TWO_PI = 6.283185307179586476925286766559;

double btl_uniform(btl_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

double btl_normal(btl_rng *r)
{
    double u1 = 0.5 * (btl_uniform(r) + 1.0), u2 = 0.5 * (btl_uniform(r) + 1.0);
    if (u1 <= 0.0)
        u1 = 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(TWO_PI * u2);
}

double btl_dot(const double *a, const double *b, size_t n)
{
    long double s = 0.0L;
    for (size_t i = 0; i < n; i++)
        s += (long double)a[i] * b[i];
    return (double)s;
}

double btl_wdot(const double *w, const double *a, const double *b, size_t n)
{
    long double s = 0.0L;
    for (size_t i = 0; i < n; i++)
        s += (long double)w[i] * a[i] * b[i];
    return (double)s;
}

double btl_norm(const double *a, size_t n)
{
    return sqrt(btl_dot(a, a, n));
}

void btl_combine(const double *c, size_t m, const double *fields, size_t ndof, double *out)
{
    for (size_t i = 0; i < ndof; i++) {
        long double s = 0.0L;
        for (size_t j = 0; j < m; j++)
            s += (long double)c[j] * fields[j * ndof + i];
        out[i] = (double)s;
    }
}

typedef struct {
    const double *w;
    size_t ndof;
} diag_ctx;

static int diag_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                     double *G, ldem_err *err)
{
    (void)err;
    const diag_ctx *d = ctx;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            G[i * nb + j] = btl_wdot(d->w, a + i * d->ndof, b + j * d->ndof, d->ndof);
    return LDEM_OK;
}

/* w must outlive the product; btl_inner_free releases the context. */
basis_inner btl_inner_diag(const double *w, size_t ndof)
{
    diag_ctx *d = malloc(sizeof *d);
    d->w = w;
    d->ndof = ndof;
    basis_inner ip = {diag_gram, d, ndof};
    return ip;
}

void btl_inner_free(basis_inner *ip)
{
    free(ip->ctx);
    ip->ctx = NULL;
}

void btl_jacobi_eigen(double *A, size_t n, double *lambda, double *Z)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            Z[i * n + j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0.0, diag = 0.0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                *(i == j ? &diag : &off) += A[i * n + j] * A[i * n + j];
        if (off <= 1e-34 * diag)
            break;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++) {
                double apq = A[p * n + q];
                if (apq == 0.0)
                    continue;
                /* Rotation that zeroes A_pq (Golub & Van Loan, sym.schur2). */
                double tau = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (size_t k = 0; k < n; k++) { /* A <- A J */
                    double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (size_t k = 0; k < n; k++) { /* A <- Jᵀ A */
                    double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
                for (size_t k = 0; k < n; k++) { /* Z <- Z J */
                    double zkp = Z[k * n + p], zkq = Z[k * n + q];
                    Z[k * n + p] = c * zkp - s * zkq;
                    Z[k * n + q] = s * zkp + c * zkq;
                }
            }
    }
    /* Sort ascending (selection sort on the diagonal, columns of Z along). */
    for (size_t i = 0; i < n; i++)
        lambda[i] = A[i * n + i];
    for (size_t i = 0; i < n; i++) {
        size_t m = i;
        for (size_t j = i + 1; j < n; j++)
            if (lambda[j] < lambda[m])
                m = j;
        if (m == i)
            continue;
        double t = lambda[i];
        lambda[i] = lambda[m];
        lambda[m] = t;
        for (size_t k = 0; k < n; k++) {
            t = Z[k * n + i];
            Z[k * n + i] = Z[k * n + m];
            Z[k * n + m] = t;
        }
    }
}

int btl_cholesky(const double *A, size_t n, double *L)
{
    memset(L, 0, n * n * sizeof(double));
    for (size_t j = 0; j < n; j++) {
        long double d = A[j * n + j];
        for (size_t k = 0; k < j; k++)
            d -= (long double)L[j * n + k] * L[j * n + k];
        if (!(d > 0.0L))
            return 0;
        L[j * n + j] = sqrt((double)d);
        for (size_t i = j + 1; i < n; i++) {
            long double s = A[i * n + j];
            for (size_t k = 0; k < j; k++)
                s -= (long double)L[i * n + k] * L[j * n + k];
            L[i * n + j] = (double)(s / L[j * n + j]);
        }
    }
    return 1;
}

double btl_rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0, big = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        big = fmax(big, fabs(b[i]));
    }
    return big > 0.0 ? d / big : d;
}

double btl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
