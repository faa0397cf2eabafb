/* Trilinear sampling of level-set grids (LS-DEM's query of a grain's φ at a point). */
#include "ldem/grid.h"

#include <math.h>

ldem_vec3 ldem_lset_node(const ldem_lset *ls, uint32_t i, uint32_t j, uint32_t k)
{
    return ldem_vec3_make(ls->origin[0] + i * ls->spacing[0], ls->origin[1] + j * ls->spacing[1],
                          ls->origin[2] + k * ls->spacing[2]);
}

/* Cell index and fraction along one axis; clamps to the boundary cell. */
static int locate(double x, double origin, double h, uint32_t n, uint32_t *cell, double *frac)
{
    double u = (x - origin) / h;
    int inside = u >= 0.0 && u <= (double)(n - 1);
    if (!(u >= 0.0)) /* also catches NaN */
        u = 0.0;
    if (u > (double)(n - 1))
        u = (double)(n - 1);
    uint32_t c = (uint32_t)u;
    if (c > n - 2)
        c = n - 2;
    *cell = c;
    *frac = u - c;
    return inside;
}

int ldem_lset_sample(const ldem_lset *ls, ldem_vec3 x, double *phi, ldem_vec3 *grad)
{
    const uint32_t nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2];
    uint32_t c[3];
    double f[3];
    int inside = locate(x.x, ls->origin[0], ls->spacing[0], nx, &c[0], &f[0]);
    inside &= locate(x.y, ls->origin[1], ls->spacing[1], ny, &c[1], &f[1]);
    inside &= locate(x.z, ls->origin[2], ls->spacing[2], nz, &c[2], &f[2]);

    double v[2][2][2]; /* v[dk][dj][di] */
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                size_t idx = (size_t)(c[0] + di) +
                             (size_t)nx * ((size_t)(c[1] + dj) + (size_t)ny * (c[2] + dk));
                v[dk][dj][di] = ls->phi[idx];
            }
    /* Interpolate in x, then y, then z; the gradient differentiates the same polynomial. */
    double vx[2][2], dvx[2][2];
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++) {
            vx[dk][dj] = v[dk][dj][0] + f[0] * (v[dk][dj][1] - v[dk][dj][0]);
            dvx[dk][dj] = v[dk][dj][1] - v[dk][dj][0];
        }
    double vy[2], dvy_dx[2], dvy_dy[2];
    for (int dk = 0; dk < 2; dk++) {
        vy[dk] = vx[dk][0] + f[1] * (vx[dk][1] - vx[dk][0]);
        dvy_dx[dk] = dvx[dk][0] + f[1] * (dvx[dk][1] - dvx[dk][0]);
        dvy_dy[dk] = vx[dk][1] - vx[dk][0];
    }
    *phi = vy[0] + f[2] * (vy[1] - vy[0]);
    if (grad) {
        grad->x = (dvy_dx[0] + f[2] * (dvy_dx[1] - dvy_dx[0])) / ls->spacing[0];
        grad->y = (dvy_dy[0] + f[2] * (dvy_dy[1] - dvy_dy[0])) / ls->spacing[1];
        grad->z = (vy[1] - vy[0]) / ls->spacing[2];
    }
    return inside;
}

void ldem_lset_lipschitz(const ldem_lset *ls, double lip[3])
{
    const size_t nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2];
    const size_t stride[3] = {1, nx, nx * ny};
    double steep[3] = {0.0, 0.0, 0.0};
    for (size_t k = 0; k < nz; k++)
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++) {
                size_t idx = i + nx * (j + ny * k), at[3] = {i, j, k}, n[3] = {nx, ny, nz};
                for (int a = 0; a < 3; a++)
                    if (at[a] + 1 < n[a])
                        steep[a] = fmax(steep[a], fabs((double)ls->phi[idx + stride[a]] -
                                                       (double)ls->phi[idx]));
            }
    for (int a = 0; a < 3; a++)
        lip[a] = steep[a] / ls->spacing[a];
}
