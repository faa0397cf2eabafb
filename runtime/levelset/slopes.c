/* slopes.c — per-block ranges of the level set's edge slopes, and the sign-aware bound on
 * how far the on-demand remap can lower φ (ldem/levelset.h). */
#include "ldem/levelset.h"

#include "ldem/grid.h"

#include <math.h>
#include <stdlib.h>

/* Widen [lo, hi] (3 axes) by the edge slopes of cell (i, j, k): along each axis a, the
 * cell's four a-edges, of which ∂aφ anywhere in the cell is a mean. */
static void cell_slopes(const ldem_lset *ls, size_t i, size_t j, size_t k, double lo[3],
                        double hi[3])
{
    const size_t nx = ls->dims[0], ny = ls->dims[1];
    const size_t stride[3] = {1, nx, nx * ny}, corner = i + nx * (j + ny * k);
    for (int a = 0; a < 3; a++) {
        int u = (a + 1) % 3, v = (a + 2) % 3;
        for (int du = 0; du < 2; du++)
            for (int dv = 0; dv < 2; dv++) {
                size_t at = corner + du * stride[u] + dv * stride[v];
                double slope =
                    ((double)ls->phi[at + stride[a]] - (double)ls->phi[at]) / ls->spacing[a];
                lo[a] = fmin(lo[a], slope);
                hi[a] = fmax(hi[a], slope);
            }
    }
}

int ldem_lset_slopes_build(const ldem_lset *ls, ldem_lset_slopes *out, ldem_err *err)
{
    *out = (ldem_lset_slopes){0};
    const uint32_t B = LDEM_MODES_BLOCK_CELLS;
    size_t blocks = 1;
    out->reach = INFINITY;
    for (int a = 0; a < 3; a++) {
        out->block_dims[a] = (ls->dims[a] - 1 + B - 1) / B;
        out->origin[a] = ls->origin[a];
        out->block_scale[a] = 1.0 / (ls->spacing[a] * B);
        out->reach = fmin(out->reach, ls->spacing[a]);
        blocks *= out->block_dims[a];
    }
    out->lo = malloc(3 * blocks * sizeof *out->lo);
    out->hi = malloc(3 * blocks * sizeof *out->hi);
    if (!out->lo || !out->hi) {
        ldem_lset_slopes_free(out);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for level-set slopes");
    }
    ldem_lset_lipschitz(ls, out->lipschitz);
    const uint32_t *d = out->block_dims;
    const long cells[3] = {(long)ls->dims[0] - 1, (long)ls->dims[1] - 1, (long)ls->dims[2] - 1};
    for (uint32_t bk = 0; bk < d[2]; bk++)
        for (uint32_t bj = 0; bj < d[1]; bj++)
            for (uint32_t bi = 0; bi < d[0]; bi++) {
                /* the block's cells and one layer around them */
                const uint32_t at[3] = {bi, bj, bk};
                long first[3], last[3];
                int edge = 0;
                for (int a = 0; a < 3; a++) {
                    first[a] = (long)at[a] * B - 1;
                    last[a] = (long)at[a] * B + B;
                    if (first[a] < 0 || last[a] > cells[a] - 1)
                        edge = 1;
                    first[a] = first[a] < 0 ? 0 : first[a];
                    last[a] = last[a] > cells[a] - 1 ? cells[a] - 1 : last[a];
                }
                double lo[3] = {INFINITY, INFINITY, INFINITY};
                double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (long k = first[2]; k <= last[2]; k++)
                    for (long j = first[1]; j <= last[1]; j++)
                        for (long i = first[0]; i <= last[0]; i++)
                            cell_slopes(ls, (size_t)i, (size_t)j, (size_t)k, lo, hi);
                size_t b = bi + d[0] * (bj + (size_t)d[1] * bk);
                for (int a = 0; a < 3; a++) {
                    /* beyond the box, clamping makes φ flat along the clamped axes */
                    out->lo[3 * b + a] = edge ? fmin(lo[a], 0.0) : lo[a];
                    out->hi[3 * b + a] = edge ? fmax(hi[a], 0.0) : hi[a];
                }
            }
    return LDEM_OK;
}

void ldem_lset_slopes_free(ldem_lset_slopes *s)
{
    free(s->lo);
    free(s->hi);
    *s = (ldem_lset_slopes){0};
}

static double larger(double a, double b)
{
    return a > b ? a : b;
}

/* max of g·v over g in [gl, gh] and v in [vl, vh]: at a corner of the box */
static double max_product(double gl, double gh, double vl, double vh)
{
    return larger(larger(gl * vl, gl * vh), larger(gh * vl, gh * vh));
}

double ldem_levelset_remap_drop(const ldem_lset_slopes *s, const double lip[3],
                                const ldem_modeset *modes, const double *eps, size_t lset_block,
                                size_t mode_block)
{
    ldem_vec3 ul, uh;
    /* (an iterated pull back evaluates u away from p, possibly anywhere in the field) */
    if (!ldem_modes_pull_back_range(modes, eps, mode_block, &ul, &uh))
        return ldem_levelset_remap_reach_max(modes, eps, lip);
    /* |u_i| ≤ the larger end of its range */
    double ux = larger(-ul.x, uh.x), uy = larger(-ul.y, uh.y), uz = larger(-ul.z, uh.z);
    /* the sign-aware bound needs the pull back to stay within the slopes' neighbourhood */
    if (!s || !(ux * ux + uy * uy + uz * uz < s->reach * s->reach))
        return lip[0] * ux + lip[1] * uy + lip[2] * uz;
    const double *gl = s->lo + 3 * lset_block, *gh = s->hi + 3 * lset_block;
    return max_product(gl[0], gh[0], ul.x, uh.x) + max_product(gl[1], gh[1], ul.y, uh.y) +
           max_product(gl[2], gh[2], ul.z, uh.z);
}
