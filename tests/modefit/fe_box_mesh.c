/* Tet meshes built in code for the FE tests (fe_box_mesh.h).
 *
 * Nodes live on the doubled lattice (2nx+1)×(2ny+1)×(2nz+1): corners at even indices,
 * the midpoint of the edge between lattice points p and q at p + q (in doubled units),
 * so midside nodes are shared between tets without any lookup. Unused lattice points
 * (cube and face centres that are no edge's midpoint) are dropped at the end. */
#include "fe_box_mesh.h"

#include "fe_tet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "fe_box_mesh: out of memory\n");
        abort();
    }
    return p;
}

double fe_test_uniform(unsigned long long *state)
{
    unsigned long long x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static const int edge_ends[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};

static double signed_volume6(const double *p0, const double *p1, const double *p2, const double *p3)
{
    double u[3], v[3], w[3];
    for (int c = 0; c < 3; c++) {
        u[c] = p1[c] - p0[c];
        v[c] = p2[c] - p0[c];
        w[c] = p3[c] - p0[c];
    }
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

void fe_test_box(fe_mesh *m, int order, int nx, int ny, int nz, double a, double b, double c)
{
    const size_t Nx = 2 * (size_t)nx + 1, Ny = 2 * (size_t)ny + 1, Nz = 2 * (size_t)nz + 1;
    const size_t nlat = Nx * Ny * Nz;
    double *lat = xmalloc(3 * nlat * sizeof(double));
    for (size_t k = 0; k < Nz; k++)
        for (size_t j = 0; j < Ny; j++)
            for (size_t i = 0; i < Nx; i++) {
                double *p = lat + 3 * ((k * Ny + j) * Nx + i);
                p[0] = a * (double)i / (double)(Nx - 1);
                p[1] = b * (double)j / (double)(Ny - 1);
                p[2] = c * (double)k / (double)(Nz - 1);
            }
    m->ntets = 6 * (size_t)nx * (size_t)ny * (size_t)nz;
    m->order = order;
    m->tet = xmalloc((size_t)order * m->ntets * sizeof(size_t));
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    size_t t = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                for (int p = 0; p < 6; p++) {
                    /* Corners in doubled lattice units: walk one unit along each axis of
                     * the permutation in turn. */
                    size_t idx[4][3];
                    size_t cur[3] = {2 * (size_t)i, 2 * (size_t)j, 2 * (size_t)k};
                    for (int v = 0; v < 4; v++) {
                        for (int d = 0; d < 3; d++)
                            idx[v][d] = cur[d];
                        if (v < 3)
                            cur[perms[p][v]] += 2;
                    }
                    size_t lin[4];
                    for (int v = 0; v < 4; v++)
                        lin[v] = (idx[v][2] * Ny + idx[v][1]) * Nx + idx[v][0];
                    if (signed_volume6(lat + 3 * lin[0], lat + 3 * lin[1], lat + 3 * lin[2],
                                       lat + 3 * lin[3]) < 0) {
                        for (int d = 0; d < 3; d++) {
                            size_t tmp = idx[1][d];
                            idx[1][d] = idx[2][d];
                            idx[2][d] = tmp;
                        }
                    }
                    size_t *tn = m->tet + (size_t)order * t++;
                    for (int v = 0; v < 4; v++)
                        tn[v] = (idx[v][2] * Ny + idx[v][1]) * Nx + idx[v][0];
                    for (int e = 0; order == FE_TET10 && e < 6; e++) {
                        size_t mid[3];
                        for (int d = 0; d < 3; d++)
                            mid[d] = (idx[edge_ends[e][0]][d] + idx[edge_ends[e][1]][d]) / 2;
                        tn[4 + e] = (mid[2] * Ny + mid[1]) * Nx + mid[0];
                    }
                }
    /* Keep only the used lattice points. */
    size_t *map = xmalloc(nlat * sizeof(size_t));
    for (size_t n = 0; n < nlat; n++)
        map[n] = (size_t)-1;
    for (size_t q = 0; q < (size_t)order * m->ntets; q++)
        map[m->tet[q]] = 0;
    size_t used = 0;
    for (size_t n = 0; n < nlat; n++)
        if (map[n] == 0)
            map[n] = used++;
    m->nnodes = used;
    m->xyz = xmalloc(3 * used * sizeof(double));
    m->node_id = xmalloc(used * sizeof(long));
    for (size_t n = 0; n < nlat; n++)
        if (map[n] != (size_t)-1) {
            for (int d = 0; d < 3; d++)
                m->xyz[3 * map[n] + d] = lat[3 * n + d];
            m->node_id[map[n]] = (long)map[n] + 1;
        }
    for (size_t q = 0; q < (size_t)order * m->ntets; q++)
        m->tet[q] = map[m->tet[q]];
    free(map);
    free(lat);
}

/* An edge lies on a face of the box when both its ends share a coordinate at the box's
 * minimum or maximum. */
static int edge_on_boundary(const fe_mesh *m, size_t p, size_t q, const double lo[3],
                            const double hi[3])
{
    for (int d = 0; d < 3; d++) {
        double u = m->xyz[3 * p + d], v = m->xyz[3 * q + d];
        if ((u == lo[d] && v == lo[d]) || (u == hi[d] && v == hi[d]))
            return 1;
    }
    return 0;
}

void fe_test_curve_interior(fe_mesh *m, double amount, unsigned seed)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t n = 0; n < m->nnodes; n++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], m->xyz[3 * n + d]);
            hi[d] = fmax(hi[d], m->xyz[3 * n + d]);
        }
    unsigned char *moved = calloc(m->nnodes, 1);
    if (!moved)
        abort();
    unsigned long long state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed * 7919ULL;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *tn = m->tet + 10 * e;
        for (int k = 0; k < 6; k++) {
            size_t p = tn[edge_ends[k][0]], q = tn[edge_ends[k][1]], mid = tn[4 + k];
            if (moved[mid] || edge_on_boundary(m, p, q, lo, hi))
                continue;
            moved[mid] = 1;
            double len = 0.0;
            for (int d = 0; d < 3; d++)
                len += (m->xyz[3 * p + d] - m->xyz[3 * q + d]) *
                       (m->xyz[3 * p + d] - m->xyz[3 * q + d]);
            len = sqrt(len);
            for (int d = 0; d < 3; d++)
                m->xyz[3 * mid + d] += amount * len * (2.0 * fe_test_uniform(&state) - 1.0);
        }
    }
    free(moved);
}

void fe_test_shell(fe_mesh *m, int order, int n)
{
    fe_test_box(m, order, n, n, n, 1.0, 1.0, 1.0);
    for (size_t k = 0; k < m->nnodes; k++) {
        double *p = m->xyz + 3 * k;
        double r = FE_SHELL_R1 + (FE_SHELL_R2 - FE_SHELL_R1) * p[0];
        double th = FE_SHELL_T1 + (FE_SHELL_T2 - FE_SHELL_T1) * p[1];
        double ph = FE_SHELL_P1 + (FE_SHELL_P2 - FE_SHELL_P1) * p[2];
        p[0] = r * sin(th) * cos(ph);
        p[1] = r * sin(th) * sin(ph);
        p[2] = r * cos(th);
    }
}

void fe_test_jacobian_range(const fe_mesh *m, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *tn = m->tet + (size_t)m->order * e;
        double straight = signed_volume6(m->xyz + 3 * tn[0], m->xyz + 3 * tn[1], m->xyz + 3 * tn[2],
                                         m->xyz + 3 * tn[3]);
        for (int i = 0; i <= 6; i++)
            for (int j = 0; i + j <= 6; j++)
                for (int k = 0; i + j + k <= 6; k++) {
                    double rst[3] = {i / 6.0, j / 6.0, k / 6.0};
                    double r = fe_tet_map(m, e, rst, NULL, NULL) / straight;
                    *lo = fmin(*lo, r);
                    *hi = fmax(*hi, r);
                }
    }
}

void fe_test_mesh_free(fe_mesh *m)
{
    free(m->xyz);
    free(m->node_id);
    free(m->tet);
    m->xyz = NULL;
    m->node_id = NULL;
    m->tet = NULL;
    m->nnodes = m->ntets = 0;
}
