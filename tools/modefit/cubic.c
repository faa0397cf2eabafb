/* Rotated copies of FEM fields under the axis permutations (cubic.h). */
#include "cubic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe_tet.h"

void cubic_rotation(int p, double P[3][3])
{
    /* C^p v = v with its components shifted by p places: (C v)_i = v_(i+1 mod 3). */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = j == (i + p) % 3 ? 1.0 : 0.0;
}

static double min_barycentric(const double rst[3])
{
    return fmin(fmin(1.0 - rst[0] - rst[1] - rst[2], rst[0]), fmin(rst[1], rst[2]));
}

/* Largest corner-to-corner distance of element e: the scale of its Newton residual. */
static double element_size(const fe_mesh *m, size_t e)
{
    const size_t *v = m->tet + (size_t)m->order * e;
    double size = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
            double d2 = 0.0;
            for (int c = 0; c < 3; c++) {
                double d = m->xyz[3 * v[a] + c] - m->xyz[3 * v[b] + c];
                d2 += d * d;
            }
            size = fmax(size, sqrt(d2));
        }
    return size;
}

int cubic_locate(const fe_mesh *m, const fe_locator *loc, const double x[3], fe_place *p,
                 double *gap)
{
    fe_locate(loc, x, p);
    if (gap)
        *gap = p->inside ? 0.0 : p->dist;
    if (p->inside)
        return CUBIC_INSIDE;
    if (!isfinite(p->dist))
        return CUBIC_CLAMPED;
    /* The closest boundary face's tet, inverted at x itself rather than at the face: just
     * outside a curved boundary that continues the element's own (smooth) interpolant. */
    double rst[3], y[3], J[3][3];
    fe_tet_invert(m, p->elem, x, 0.0, rst);
    if (!(min_barycentric(rst) >= -CUBIC_EXTRAPOLATE))
        return CUBIC_CLAMPED;
    fe_tet_map(m, p->elem, rst, y, J);
    double r2 = 0.0;
    for (int c = 0; c < 3; c++)
        r2 += (y[c] - x[c]) * (y[c] - x[c]);
    /* Newton may stall outside a strongly curved element: then keep the boundary value. */
    if (!(sqrt(r2) <= 1e-9 * element_size(m, p->elem)))
        return CUBIC_CLAMPED;
    memcpy(p->rst, rst, sizeof rst);
    return CUBIC_EXTRAPOLATED;
}

static int nomem(ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "--cubic: out of memory");
}

struct cubic_map {
    const fe_mesh *m;
    fe_place *place[CUBIC_ROTATIONS]; /* [p][node] for p = 1, 2 (place[0] unused) */
};

static void transpose_apply(double P[3][3], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = P[0][i] * x[0] + P[1][i] * x[1] + P[2][i] * x[2];
}

static void apply(double P[3][3], const double v[3], double out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = P[c][0] * v[0] + P[c][1] * v[1] + P[c][2] * v[2];
}

/* Serially, in node order: the same statistics whatever the thread count. */
static void tally(const fe_mesh *m, int p, const unsigned char *where, const double *gap,
                  cubic_stats *st)
{
    for (size_t n = 0; n < m->nnodes; n++) {
        st->located++;
        if (where[n] == CUBIC_EXTRAPOLATED) {
            st->extrapolated++;
            st->max_extrapolated = fmax(st->max_extrapolated, gap[n]);
        } else if (where[n] == CUBIC_CLAMPED) {
            st->clamped++;
            if (st->worst_node < 0 || gap[n] > st->max_clamped) {
                st->max_clamped = gap[n];
                st->worst_node = m->node_id[n];
                st->worst_rotation = p;
            }
        }
    }
}

void cubic_map_free(cubic_map *map)
{
    if (!map)
        return;
    for (int p = 0; p < CUBIC_ROTATIONS; p++)
        free(map->place[p]);
    free(map);
}

int cubic_map_build(const fe_mesh *m, const fe_locator *loc, cubic_map **out,
                    cubic_stats *stats, ldem_err *err)
{
    size_t nn = m->nnodes, alloc = nn ? nn : 1;
    cubic_stats st = {0, 0, 0, 0.0, 0.0, -1, 0};
    cubic_map *map = calloc(1, sizeof *map);
    unsigned char *where = malloc(alloc);
    double *gap = malloc(alloc * sizeof *gap);
    int fail = !map || !where || !gap;
    if (map)
        map->m = m;
    for (int p = 1; p < CUBIC_ROTATIONS && !fail; p++) {
        map->place[p] = malloc(alloc * sizeof *map->place[p]);
        if (!(fail = !map->place[p])) {
            double P[3][3];
            cubic_rotation(p, P);
            fe_place *place = map->place[p];
#pragma omp parallel for schedule(static)
            for (size_t n = 0; n < nn; n++) {
                double y[3];
                transpose_apply(P, m->xyz + 3 * n, y);
                where[n] = (unsigned char)cubic_locate(m, loc, y, &place[n], &gap[n]);
            }
            tally(m, p, where, gap, &st);
        }
    }
    free(where);
    free(gap);
    if (fail) {
        cubic_map_free(map);
        return nomem(err);
    }
    *out = map;
    if (stats)
        *stats = st;
    return LDEM_OK;
}

int cubic_rotate(const cubic_map *map, int p, const double *u, size_t count, double *out,
                 ldem_err *err)
{
    const fe_mesh *m = map->m;
    size_t nn = m->nnodes, ndof = 3 * nn;
    if (p == 0) {
        memcpy(out, u, count * ndof * sizeof *out);
        return LDEM_OK;
    }
    double P[3][3];
    cubic_rotation(p, P);
    const fe_place *place = map->place[p];
    int fail = 0;
#pragma omp parallel reduction(| : fail)
    {
        double *vals = malloc((3 * count + 1) * sizeof *vals);
        fail = !vals;
#pragma omp for schedule(static)
        for (size_t n = 0; n < nn; n++) {
            if (fail)
                continue;
            fe_interpolate(m, &place[n], u, count, vals);
            for (size_t f = 0; f < count; f++)
                apply(P, vals + 3 * f, out + f * ndof + 3 * n);
        }
        free(vals);
    }
    return fail ? nomem(err) : LDEM_OK;
}

void cubic_triples(int kind, const double *u, size_t count, size_t ndof, double *out)
{
    size_t tdof = CUBIC_ROTATIONS * ndof;
    if (kind == CUBIC_SUM) {
        for (size_t i = 0; i < count; i++)
            for (int p = 0; p < CUBIC_ROTATIONS; p++)
                memcpy(out + i * tdof + (size_t)p * ndof, u + i * ndof, ndof * sizeof *out);
        return;
    }
    memset(out, 0, CUBIC_ROTATIONS * count * tdof * sizeof *out);
    for (int p = 0; p < CUBIC_ROTATIONS; p++)
        for (size_t i = 0; i < count; i++)
            memcpy(out + ((size_t)p * count + i) * tdof + (size_t)p * ndof, u + i * ndof,
                   ndof * sizeof *out);
}

/* Component q of n triples, as n consecutive mesh fields; returns whether any is non-zero. */
static int component(const double *triples, size_t n, int q, size_t ndof, double *out)
{
    int nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        const double *src = triples + (i * CUBIC_ROTATIONS + (size_t)q) * ndof;
        memcpy(out + i * ndof, src, ndof * sizeof *out);
        for (size_t j = 0; j < ndof && !nonzero; j++)
            nonzero = src[j] != 0.0;
    }
    return nonzero;
}

static int cubic_gram(void *vctx, const double *a, size_t na, const double *b, size_t nb,
                      double *G, ldem_err *err)
{
    const cubic_inner_ctx *ctx = vctx;
    size_t ndof = ctx->base.ndof;
    double *A = malloc((na ? na : 1) * ndof * sizeof *A);
    double *B = malloc((nb ? nb : 1) * ndof * sizeof *B);
    double *RB = malloc((nb ? nb : 1) * ndof * sizeof *RB);
    double *T = malloc((na * nb > 0 ? na * nb : 1) * sizeof *T);
    int rc = (!A || !B || !RB || !T) ? nomem(err) : LDEM_OK;
    memset(G, 0, na * nb * sizeof *G);
    for (int q = 0; q < CUBIC_ROTATIONS && !rc; q++) {
        if (!component(b, nb, q, ndof, B))
            continue;
        for (int r = 0; r < CUBIC_ROTATIONS && !rc; r++) {
            int p = (q - r + CUBIC_ROTATIONS) % CUBIC_ROTATIONS; /* r = q − p */
            if (!component(a, na, p, ndof, A))
                continue;
            rc = cubic_rotate(ctx->map, r, B, nb, RB, err);
            if (!rc)
                rc = ctx->base.gram(ctx->base.ctx, A, na, RB, nb, T, err);
            for (size_t k = 0; k < na * nb && !rc; k++)
                G[k] += T[k];
        }
    }
    /* The same set on both sides: symmetric up to the cross terms' interpolation error,
     * which must not make an inner product lopsided. */
    if (!rc && a == b && na == nb)
        for (size_t i = 0; i < na; i++)
            for (size_t j = i + 1; j < na; j++) {
                double v = 0.5 * (G[i * na + j] + G[j * na + i]);
                G[i * na + j] = G[j * na + i] = v;
            }
    free(A);
    free(B);
    free(RB);
    free(T);
    return rc;
}

basis_inner cubic_inner(cubic_inner_ctx *ctx)
{
    basis_inner ip = {cubic_gram, ctx, CUBIC_ROTATIONS * ctx->base.ndof};
    return ip;
}

double cubic_eval(const fe_mesh *m, const fe_locator *loc, const double *triples, size_t n,
                  const double x[3], int extend, double *out)
{
    size_t ndof = 3 * m->nnodes, tdof = CUBIC_ROTATIONS * ndof;
    double worst = 0.0;
    memset(out, 0, 3 * n * sizeof *out);
    for (int p = 0; p < CUBIC_ROTATIONS; p++) {
        double P[3][3], y[3], gap;
        cubic_rotation(p, P);
        transpose_apply(P, x, y);
        fe_place place;
        if (extend) {
            if (cubic_locate(m, loc, y, &place, &gap) != CUBIC_CLAMPED)
                gap = 0.0;
        } else {
            fe_locate(loc, y, &place);
            gap = place.inside ? 0.0 : place.dist;
        }
        worst = fmax(worst, gap);
        for (size_t k = 0; k < n; k++) {
            double v[3], w[3];
            fe_interpolate(m, &place, triples + k * tdof + (size_t)p * ndof, 1, v);
            apply(P, v, w);
            for (int c = 0; c < 3; c++)
                out[3 * k + (size_t)c] += w[c];
        }
    }
    return worst;
}

void cubic_poles(const fe_mesh *m, double point[6][3], double inward[6][3])
{
    double R = 0.0;
    for (size_t j = 0; j < 3 * m->nnodes; j++)
        R = fmax(R, fabs(m->xyz[j]));
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++) {
            int k = 2 * a + side;
            for (int c = 0; c < 3; c++) {
                point[k][c] = c == a ? (side ? -R : R) : 0.0;
                inward[k][c] = c == a ? (side ? 1.0 : -1.0) : 0.0;
            }
        }
}
