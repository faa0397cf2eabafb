/* Sparse assembly of K and M (fe_sparse.h).
 *
 * The pattern comes first, from node pairs: each tet contributes its n(n+1)/2 pairs
 * (lower node, higher node), sorted and made unique as 64-bit keys; a node column then
 * expands to three degree-of-freedom columns. Element matrices are scattered by binary
 * search in the column's rows. Building the pattern from pairs rather than from a
 * triplet list of every entry keeps the peak memory at 8 bytes per pair instead of 24 per
 * entry (a 100k-node tet10 mesh has about 4 M pairs and 30 M entries). */
#include "fe_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elastic.h"
#include "fe_tet.h"

enum { MAX_POINTS = 14, MAX_DOF = 3 * FE_TET10 };

void fe_sparse_free(fe_sparse *S)
{
    free(S->colptr);
    free(S->row);
    free(S->K);
    free(S->M);
    memset(S, 0, sizeof *S);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int nomem(ldem_err *err, const char *what, size_t count)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                        "out of memory for the sparse FE matrices (%zu %s)", count, what);
}

/* Unique (column node << 32 | row node) keys with row ≤ column. */
static int node_pairs(const fe_mesh *m, uint64_t **out, size_t *count, ldem_err *err)
{
    const size_t n = (size_t)m->order, per = n * (n + 1) / 2;
    if (m->nnodes > UINT32_MAX || m->ntets > SIZE_MAX / per / sizeof(uint64_t))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "the mesh is too large for sparse assembly (%zu nodes, %zu tets)",
                            m->nnodes, m->ntets);
    size_t total = m->ntets * per;
    total += m->nnodes; /* every diagonal block, also of nodes no tet uses */
    uint64_t *keys = malloc((total ? total : 1) * sizeof *keys);
    if (!keys)
        return nomem(err, "node pairs", total);
    size_t k = 0;
    for (uint64_t i = 0; i < m->nnodes; i++)
        keys[k++] = i << 32 | i;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *v = m->tet + n * e;
        for (size_t a = 0; a < n; a++)
            for (size_t b = a; b < n; b++) {
                uint64_t lo = v[a] < v[b] ? v[a] : v[b], hi = v[a] < v[b] ? v[b] : v[a];
                keys[k++] = hi << 32 | lo;
            }
    }
    qsort(keys, total, sizeof *keys, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < total; i++)
        if (u == 0 || keys[i] != keys[u - 1])
            keys[u++] = keys[i];
    *out = keys;
    *count = u;
    return LDEM_OK;
}

/* Columns 3j + c hold, for every neighbour node i ≤ j, rows 3i..3i+2, except that the
 * diagonal block keeps only rows ≤ 3j + c. */
static int build_pattern(const fe_mesh *m, const uint64_t *keys, size_t npairs, fe_sparse *S,
                         ldem_err *err)
{
    size_t nn = m->nnodes;
    S->n = 3 * nn;
    if (npairs > (SIZE_MAX / sizeof(double)) / 9)
        return nomem(err, "entries", npairs);
    size_t nnz = 9 * npairs - 3 * nn; /* each diagonal block stores 6 of its 9 entries */
    S->colptr = calloc(S->n + 1, sizeof *S->colptr);
    S->row = malloc((nnz ? nnz : 1) * sizeof *S->row);
    S->K = calloc(nnz ? nnz : 1, sizeof *S->K);
    S->M = calloc(nnz ? nnz : 1, sizeof *S->M);
    if (!S->colptr || !S->row || !S->K || !S->M)
        return nomem(err, "entries", nnz);
    S->nnz = nnz;
    size_t p = 0, k = 0;
    for (size_t j = 0; j < nn; j++) {
        size_t first = k;
        while (k < npairs && (keys[k] >> 32) == j)
            k++;
        for (int c = 0; c < 3; c++) {
            S->colptr[3 * j + (size_t)c] = (int64_t)p;
            for (size_t q = first; q < k; q++) {
                size_t i = (size_t)(keys[q] & 0xffffffffu);
                int top = i == j ? c : 2;
                for (int r = 0; r <= top; r++)
                    S->row[p++] = (int64_t)(3 * i + (size_t)r);
            }
        }
    }
    S->colptr[S->n] = (int64_t)p;
    return LDEM_OK;
}

static size_t find_entry(const fe_sparse *S, size_t r, size_t c)
{
    int64_t lo = S->colptr[c], hi = S->colptr[c + 1] - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (S->row[mid] < (int64_t)r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)lo;
}

/* Element stiffness (dof order a·3 + i) by the rule fe_integrate uses for the stiffness
 * Gram, and the consistent mass by its mass rule. Returns 0 for an inverted element. */
typedef struct element_rules {
    const fe_rule *stiff, *mass;
    double dN_s[MAX_POINTS][FE_TET10][3];
    double N_m[MAX_POINTS][FE_TET10], dN_m[MAX_POINTS][FE_TET10][3];
    double lambda, mu, rho;
} element_rules;

static int element_matrices(const fe_mesh *m, size_t e, const element_rules *er, double *Ke,
                            double *Me)
{
    const int n = m->order, nd = 3 * n;
    memset(Ke, 0, (size_t)nd * (size_t)nd * sizeof *Ke);
    memset(Me, 0, (size_t)nd * (size_t)nd * sizeof *Me);
    for (int q = 0; q < er->stiff->npoints; q++) {
        double G[FE_TET10][3];
        double det = fe_tet_gradients_at(m, e, (const double(*)[3])er->dN_s[q], G);
        if (!(det > 0.0) || !isfinite(det))
            return 0;
        double dV = er->stiff->w[q] * det;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double gg = G[a][0] * G[b][0] + G[a][1] * G[b][1] + G[a][2] * G[b][2];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        /* (C : sym(e_i ⊗ ∇N_a)) : sym(e_j ⊗ ∇N_b) */
                        double v = er->lambda * G[a][i] * G[b][j] + er->mu * G[a][j] * G[b][i];
                        if (i == j)
                            v += er->mu * gg;
                        Ke[(3 * a + i) * nd + 3 * b + j] += dV * v;
                    }
            }
    }
    for (int q = 0; q < er->mass->npoints; q++) {
        double det = fe_tet_gradients_at(m, e, (const double(*)[3])er->dN_m[q], NULL);
        if (!(det > 0.0) || !isfinite(det))
            return 0;
        double dm = er->rho * er->mass->w[q] * det;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double v = dm * er->N_m[q][a] * er->N_m[q][b];
                for (int i = 0; i < 3; i++)
                    Me[(3 * a + i) * nd + 3 * b + i] += v;
            }
    }
    return 1;
}

static int scatter(const fe_mesh *m, fe_sparse *S, double E, double nu, double rho,
                   int stiff_degree, int mass_degree, ldem_err *err)
{
    element_rules er;
    const int n = m->order;
    er.stiff = fe_tet_rule(stiff_degree);
    er.mass = fe_tet_rule(mass_degree);
    for (int q = 0; q < er.stiff->npoints; q++) {
        double N[FE_TET10];
        fe_tet_shape(n, er.stiff->rst[q], N, er.dN_s[q]);
    }
    for (int q = 0; q < er.mass->npoints; q++)
        fe_tet_shape(n, er.mass->rst[q], er.N_m[q], er.dN_m[q]);
    elastic_lame(E, nu, &er.lambda, &er.mu);
    er.rho = rho;
    double Ke[MAX_DOF * MAX_DOF], Me[MAX_DOF * MAX_DOF];
    const int nd = 3 * n;
    for (size_t e = 0; e < m->ntets; e++) {
        if (!element_matrices(m, e, &er, Ke, Me))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "element %zu is inverted or degenerate at a quadrature point",
                                e + 1);
        const size_t *v = m->tet + (size_t)n * e;
        for (int a = 0; a < nd; a++) {
            size_t ga = 3 * v[a / 3] + (size_t)(a % 3);
            for (int b = 0; b < nd; b++) {
                size_t gb = 3 * v[b / 3] + (size_t)(b % 3);
                if (ga > gb)
                    continue;
                size_t p = find_entry(S, ga, gb);
                S->K[p] += Ke[a * nd + b];
                S->M[p] += Me[a * nd + b];
            }
        }
    }
    return LDEM_OK;
}

/* A node that no tet uses has no mass and no stiffness: K gets 1 on its diagonal so that
 * K + sM stays positive definite, and M keeps 0, which puts its motions at infinite
 * frequency, out of any eigen solve's reach. */
static void pin_unused_nodes(fe_sparse *S)
{
    for (size_t c = 0; c < S->n; c++) {
        size_t p = (size_t)S->colptr[c + 1] - 1; /* the diagonal: the column's last row */
        if (S->M[p] == 0.0 && S->K[p] == 0.0)
            S->K[p] = 1.0;
    }
}

int fe_sparse_assemble(const fe_mesh *m, double E, double nu, double rho, fe_sparse *S,
                       ldem_err *err)
{
    /* The degrees fe_integrate.c chooses (see job_init there). */
    int tet4 = m->order == FE_TET4;
    return fe_sparse_assemble_rules(m, E, nu, rho, tet4 ? 1 : 3, tet4 ? 2 : 5, S, err);
}

int fe_sparse_assemble_rules(const fe_mesh *m, double E, double nu, double rho,
                             int stiff_degree, int mass_degree, fe_sparse *S, ldem_err *err)
{
    memset(S, 0, sizeof *S);
    if (m->order != FE_TET4 && m->order != FE_TET10)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "fe_sparse: mesh order %d (expected 4 or 10 nodes per tet)",
                            m->order);
    uint64_t *keys = NULL;
    size_t npairs = 0;
    int rc = node_pairs(m, &keys, &npairs, err);
    if (!rc)
        rc = build_pattern(m, keys, npairs, S, err);
    free(keys);
    if (!rc)
        rc = scatter(m, S, E, nu, rho, stiff_degree, mass_degree, err);
    if (!rc)
        pin_unused_nodes(S);
    if (rc)
        fe_sparse_free(S);
    return rc;
}

void fe_sparse_symv(const fe_sparse *S, const double *upper, const double *x, double *y)
{
    memset(y, 0, S->n * sizeof *y);
    for (size_t c = 0; c < S->n; c++) {
        double xc = x[c], acc = 0.0;
        for (int64_t p = S->colptr[c]; p < S->colptr[c + 1]; p++) {
            size_t r = (size_t)S->row[p];
            acc += upper[p] * x[r];
            if (r != c)
                y[r] += upper[p] * xc;
        }
        y[c] += acc;
    }
}
