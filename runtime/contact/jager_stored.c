/* A Jäger contact's stored energy from prefix integrals (ldem/contact/jager_stored.h). */
#include "ldem/contact/jager_stored.h"

#include <math.h>
#include <stdlib.h>

#include "jager_energy.h"

/* Three-point Gauss–Legendre in x: V is quadratic in x, |V|² quartic, so it is exact. */
static const double gauss_node[3] = {-0.77459666924148337704, 0.0, 0.77459666924148337704};
static const double gauss_weight[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};

size_t ldem_jager_stored_bytes_per_cell(void)
{
    return sizeof(ldem_jager_stored_cell);
}

void ldem_jager_stored_init(ldem_jager_stored *t)
{
    t->cell = NULL;
    t->count = t->capacity = 0;
}

void ldem_jager_stored_free(ldem_jager_stored *t)
{
    free(t->cell);
    ldem_jager_stored_init(t);
}

static int reserve(ldem_jager_stored *t, uint32_t n)
{
    if (n <= t->capacity)
        return LDEM_OK;
    uint32_t cap = t->capacity ? t->capacity : 64;
    while (cap < n)
        cap = cap > UINT32_MAX / 2 ? n : 2 * cap;
    ldem_jager_stored_cell *cell = realloc(t->cell, (size_t)cap * sizeof *cell);
    if (!cell)
        return LDEM_ERR_NOMEM;
    t->cell = cell;
    t->capacity = cap;
    return LDEM_OK;
}

/* Integrate V = v0 + w (z − base) over the cell's x interval and add to the prefix below. */
static void integrate_cell(double rstar, const ldem_jager_stored_cell *below,
                           ldem_jager_stored_cell *k)
{
    long double v0[2] = {0, 0}, sum_v[2] = {0, 0}, sum_vv = 0;
    if (below) {
        v0[0] = below->v_top[0];
        v0[1] = below->v_top[1];
        sum_v[0] = below->sum_v[0];
        sum_v[1] = below->sum_v[1];
        sum_vv = below->sum_vv;
    }
    double xl = sqrt(rstar * k->base), xh = sqrt(rstar * k->top);
    double mid = 0.5 * (xh + xl), half = 0.5 * (xh - xl);
    for (int g = 0; g < 3; g++) {
        double x = mid + half * gauss_node[g], wt = half * gauss_weight[g];
        long double rise = x * x / rstar - k->base;
        long double vx = v0[0] + k->w[0] * rise, vy = v0[1] + k->w[1] * rise;
        sum_v[0] += wt * vx;
        sum_v[1] += wt * vy;
        sum_vv += wt * (vx * vx + vy * vy);
    }
    long double dz = (long double)k->top - k->base;
    k->v_top[0] = v0[0] + k->w[0] * dz;
    k->v_top[1] = v0[1] + k->w[1] * dz;
    k->sum_v[0] = sum_v[0];
    k->sum_v[1] = sum_v[1];
    k->sum_vv = sum_vv;
}

int ldem_jager_stored_update(ldem_jager_stored *t, const ldem_jager_params *p,
                             const ldem_history_pool *pool, const ldem_jager_contact *c)
{
    uint32_t below_top = c->length ? c->length - 1 : 0;
    if (reserve(t, below_top)) {
        t->count = 0;
        return LDEM_ERR_NOMEM;
    }
    /* Walk down from the cell below the top, recording each changed cell's key, until one
     * agrees with the record for its position. */
    ldem_jager_cursor k = ldem_jager_first(pool, c);
    double top = k.cell ? k.cell->base : 0;
    uint32_t valid = 0; /* positions [0, valid) keep their prefix integrals */
    if (k.cell)
        ldem_jager_next(pool, &k);
    for (uint32_t pos = below_top; k.cell; ldem_jager_next(pool, &k)) {
        pos--;
        const ldem_history_cell *h = k.cell;
        ldem_jager_stored_cell *r = &t->cell[pos];
        if (pos < t->count && r->base == h->base && r->w[0] == h->w[0] &&
            r->w[1] == h->w[1] && r->top == top) {
            valid = pos + 1;
            break;
        }
        r->base = h->base;
        r->w[0] = h->w[0];
        r->w[1] = h->w[1];
        r->top = top;
        top = h->base;
    }
    for (uint32_t pos = valid; pos < below_top; pos++)
        integrate_cell(p->pair.rstar, pos ? &t->cell[pos - 1] : NULL, &t->cell[pos]);
    t->count = below_top;
    return LDEM_OK;
}

double ldem_jager_stored_energy_tracked(const ldem_jager_stored *t, const ldem_jager_params *p,
                                        const ldem_history_pool *pool,
                                        const ldem_jager_contact *c)
{
    ldem_jager_cursor k = ldem_jager_first(pool, c);
    if (!k.cell || !(c->d > 0))
        return 0;
    const double rstar = p->pair.rstar, d = c->d, lo = k.cell->base;
    const double *w = k.cell->w;
    const ldem_jager_stored_cell *below = t->count ? &t->cell[t->count - 1] : NULL;
    long double vd[2] = {w[0] * (long double)(d - lo), w[1] * (long double)(d - lo)};
    long double sum = 0;
    if (below) {
        vd[0] += below->v_top[0];
        vd[1] += below->v_top[1];
        long double x_lo = sqrt(rstar * lo);
        sum = (vd[0] * vd[0] + vd[1] * vd[1]) * x_lo -
              2 * (vd[0] * below->sum_v[0] + vd[1] * below->sum_v[1]) + below->sum_vv;
    }
    sum += (w[0] * w[0] + w[1] * w[1]) *
           ldem__jager_bound_square(rstar, d, sqrt(rstar * lo), sqrt(rstar * d));
    return p->pair.gstar * p->pair.kappa * p->pair.kappa * (double)sum;
}
