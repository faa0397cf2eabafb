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

/* Steepest |∇φ| of the interpolant within the cell with corner (i, j, k), and its lowest
 * and highest corner values. */
static double cell_slope(const ldem_lset *ls, size_t i, size_t j, size_t k, double *lowest,
                         double *highest)
{
    const size_t nx = ls->dims[0], ny = ls->dims[1];
    double v[8];
    for (int c = 0; c < 8; c++)
        v[c] = ls->phi[(i + (c & 1)) + nx * ((j + (c >> 1 & 1)) + ny * (k + (c >> 2)))];
    double low = v[0], high = v[0], sum2 = 0.0;
    for (int c = 1; c < 8; c++) {
        low = fmin(low, v[c]);
        high = fmax(high, v[c]);
    }
    for (int a = 0; a < 3; a++) {
        double steep = 0.0;
        for (int c = 0; c < 8; c++)
            if (!(c & (1 << a)))
                steep = fmax(steep, fabs(v[c | (1 << a)] - v[c]));
        steep /= ls->spacing[a];
        sum2 += steep * steep;
    }
    *lowest = low;
    *highest = high;
    return sqrt(sum2);
}

void ldem_lset_band_slopes_build(const ldem_lset *ls, ldem_lset_band_slopes *out)
{
    const double diag = sqrt(ls->spacing[0] * ls->spacing[0] + ls->spacing[1] * ls->spacing[1] +
                             ls->spacing[2] * ls->spacing[2]);
    *out = (ldem_lset_band_slopes){.count = LDEM_LSET_BANDS};
    for (int b = 0; b < LDEM_LSET_BANDS - 1; b++)
        out->band[b] = 0.5 * diag * ldexp(1.0, b);
    out->band[LDEM_LSET_BANDS - 1] = INFINITY;
    const size_t nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2];
    for (size_t k = 0; k + 1 < nz; k++)
        for (size_t j = 0; j + 1 < ny; j++)
            for (size_t i = 0; i + 1 < nx; i++) {
                double low, high, slope = cell_slope(ls, i, j, k, &low, &high);
                if (!(high > 0.0))
                    continue; /* wholly inside: a path down to t ≥ 0 never crosses it */
                int b = 0; /* the narrowest band holding the cell */
                while (b < LDEM_LSET_BANDS - 1 && !(low < out->band[b]))
                    b++;
                out->slope[b] = fmax(out->slope[b], slope);
            }
    for (int b = 1; b < LDEM_LSET_BANDS; b++) /* a wider band holds the narrower bands' cells */
        out->slope[b] = fmax(out->slope[b], out->slope[b - 1]);
}
