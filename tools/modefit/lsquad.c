/* Quadrature over {φ < 0} from a level-set grid alone (lsquad.h).
 *
 * Cells are visited k-major (then j, then i), and within a cut cell its sub-cells in the
 * same order, so the sequence of points, and therefore every floating-point sum a caller
 * forms from them, is reproducible. */
#include "lsquad.h"

#include <math.h>
#include <stddef.h>

#include "ldem/grid.h" /* ldem_lset_node */

enum { LSQUAD_MAX_DEPTH = 6 };

/* Abscissa of the 2-point Gauss–Legendre rule on [0, 1]: 1/2 ± 1/(2√3). */
#define GAUSS2_OFFSET 0.28867513459481288225

typedef struct cell_geom {
    double lo[3];   /* position of the cell's (0,0,0) corner */
    double h[3];    /* edge lengths (the grid spacing) */
} cell_geom;

static int check_lset(const ldem_lset *ls, ldem_err *err)
{
    if (!ls || !ls->phi)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "lsquad: no level-set values given");
    for (int a = 0; a < 3; a++) {
        if (ls->dims[a] < 2)
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "lsquad: level-set grid has %u nodes along axis %d "
                                "(expected at least 2)",
                                (unsigned)ls->dims[a], a);
        if (!(ls->spacing[a] > 0.0) || !isfinite(ls->spacing[a]) || !isfinite(ls->origin[a]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "lsquad: level-set spacing %g / origin %g along axis %d "
                                "(expected finite, spacing > 0)",
                                ls->spacing[a], ls->origin[a], a);
    }
    /* Classifying cells compares corner values: a NaN would silently drop a cell. */
    uint64_t n = ldem_lset_count(ls);
    for (uint64_t q = 0; q < n; q++)
        if (!isfinite(ls->phi[q]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "lsquad: level-set value %llu is not finite (expected a "
                                "signed distance)",
                                (unsigned long long)q);
    return LDEM_OK;
}

/* The 8 corner values of cell (i, j, k), v[di + 2 dj + 4 dk]. */
static void cell_corners(const ldem_lset *ls, uint32_t i, uint32_t j, uint32_t k, double v[8])
{
    const size_t nx = ls->dims[0], ny = ls->dims[1];
    for (uint32_t dk = 0; dk < 2; dk++)
        for (uint32_t dj = 0; dj < 2; dj++)
            for (uint32_t di = 0; di < 2; di++)
                v[di + 2 * dj + 4 * dk] =
                    ls->phi[(size_t)(i + di) + nx * ((size_t)(j + dj) + ny * (k + dk))];
}

/* The cell's trilinear interpolant in local coordinates (u, v, w) ∈ [0, 1]³,
 *   φ = c0 + cu u + cv v + cw w + cuv uv + cuw uw + cvw vw + cuvw uvw,
 * the polynomial ldem_lset_sample evaluates; expanded once per cell because a cut cell
 * is sampled at up to 2^18 sub-cell centres and locating each one in the grid again
 * would dominate the cost. */
typedef struct trilinear {
    double c0, cu, cv, cw, cuv, cuw, cvw, cuvw;
} trilinear;

static trilinear trilinear_of(const double v[8])
{
    trilinear t;
    t.c0 = v[0];
    t.cu = v[1] - v[0];
    t.cv = v[2] - v[0];
    t.cw = v[4] - v[0];
    t.cuv = v[3] - v[2] - v[1] + v[0];
    t.cuw = v[5] - v[4] - v[1] + v[0];
    t.cvw = v[6] - v[4] - v[2] + v[0];
    t.cuvw = v[7] - v[6] - v[5] - v[3] + v[4] + v[2] + v[1] - v[0];
    return t;
}

/* φ and its gradient with respect to the local coordinates. */
static double trilinear_eval(const trilinear *t, double u, double v, double w, double g[3])
{
    g[0] = t->cu + t->cuv * v + t->cuw * w + t->cuvw * v * w;
    g[1] = t->cv + t->cuv * u + t->cvw * w + t->cuvw * u * w;
    g[2] = t->cw + t->cuw * u + t->cvw * v + t->cuvw * u * v;
    return t->c0 + t->cu * u + t->cv * v + t->cw * w + t->cuv * u * v + t->cuw * u * w +
           t->cvw * v * w + t->cuvw * u * v * w;
}

/* 2×2×2 Gauss on a cell entirely inside: exact for tricubic integrands. */
static void full_cell(const cell_geom *c, lsquad_point_fn fn, void *ctx)
{
    const double w = c->h[0] * c->h[1] * c->h[2] / 8.0;
    const double g[2] = {0.5 - GAUSS2_OFFSET, 0.5 + GAUSS2_OFFSET};
    for (int dk = 0; dk < 2; dk++)
        for (int dj = 0; dj < 2; dj++)
            for (int di = 0; di < 2; di++) {
                double x[3] = {c->lo[0] + g[di] * c->h[0], c->lo[1] + g[dj] * c->h[1],
                               c->lo[2] + g[dk] * c->h[2]};
                fn(ctx, x, w);
            }
}

/* Inside fraction of a sub-cell of n⁻¹ cell edges centred where φ is given, with g the
 * gradient in the cell's local coordinates (so g_a / n is φ's change across the sub-cell
 * along axis a): the plane φ + ∇φ·(x − c) = 0 leaves the sub-cell once |φ| exceeds half
 * its extent along ∇φ, h_sub (|∂xφ| + |∂yφ| + |∂zφ|) / 2 = (|g_u| + |g_v| + |g_w|) / (2n), and
 * in between the fraction is taken linear in φ (exact when the plane is parallel to a
 * face; its error is odd in φ, so it cancels to leading order between the sub-cells on
 * either side of the surface). */
static double inside_fraction(double phi, const double g[3], int n)
{
    double extent = (fabs(g[0]) + fabs(g[1]) + fabs(g[2])) / n;
    if (!(extent > 0.0)) /* flat φ: the sign decides */
        return phi < 0.0 ? 1.0 : 0.0;
    double f = 0.5 - phi / extent;
    return f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
}

/* A cell the surface crosses (or comes near): n³ sub-cells, one point each at the centre,
 * weighted by sub-cell volume × inside fraction; empty sub-cells give no point. */
static void cut_cell(const cell_geom *c, const double corners[8], int depth, lsquad_point_fn fn,
                     void *ctx)
{
    const int n = 1 << depth;
    const double vol = c->h[0] * c->h[1] * c->h[2] / ((double)n * n * n);
    const trilinear t = trilinear_of(corners);
    for (int sk = 0; sk < n; sk++) {
        const double w = (sk + 0.5) / n;
        for (int sj = 0; sj < n; sj++) {
            const double v = (sj + 0.5) / n;
            for (int si = 0; si < n; si++) {
                const double u = (si + 0.5) / n;
                double g[3];
                double phi = trilinear_eval(&t, u, v, w, g);
                double f = inside_fraction(phi, g, n);
                if (f > 0.0) {
                    double x[3] = {c->lo[0] + u * c->h[0], c->lo[1] + v * c->h[1],
                                   c->lo[2] + w * c->h[2]};
                    fn(ctx, x, vol * f);
                }
            }
        }
    }
}

int lsquad_interior(const ldem_lset *ls, int depth, lsquad_point_fn fn, void *ctx,
                    ldem_err *err)
{
    if (depth < 0 || depth > LSQUAD_MAX_DEPTH)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "lsquad: depth %d out of range (expected 0..%d)", depth,
                            LSQUAD_MAX_DEPTH);
    if (!fn)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "lsquad: no point callback given");
    int rc = check_lset(ls, err);
    if (rc != LDEM_OK)
        return rc;

    const double *h = ls->spacing;
    for (uint32_t k = 0; k + 1 < ls->dims[2]; k++)
        for (uint32_t j = 0; j + 1 < ls->dims[1]; j++)
            for (uint32_t i = 0; i + 1 < ls->dims[0]; i++) {
                double v[8], min_phi = INFINITY, max_phi = -INFINITY;
                cell_corners(ls, i, j, k, v);
                for (int q = 0; q < 8; q++) {
                    min_phi = fmin(min_phi, v[q]);
                    max_phi = fmax(max_phi, v[q]);
                }
                /* Trilinear φ is a convex combination of the corners: all ≥ 0, no interior;
                 * all < 0, the whole cell is interior. */
                if (min_phi >= 0.0)
                    continue;
                ldem_vec3 lo = ldem_lset_node(ls, i, j, k);
                cell_geom c = {{lo.x, lo.y, lo.z}, {h[0], h[1], h[2]}};
                if (max_phi < 0.0)
                    full_cell(&c, fn, ctx);
                else
                    cut_cell(&c, v, depth, fn, ctx);
            }
    return LDEM_OK;
}
