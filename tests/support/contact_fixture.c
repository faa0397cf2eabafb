/* Shared helpers of the contact-law tests (see contact_fixture.h). */
#include "contact_fixture.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

const cf_material CF_GLASS = {70e9, 0.25, 0.3, 5e-3, 3e-3};
const cf_material CF_STEEL = {210e9, 0.3, 0.15, 4e-3, 4e-3};

cf_consts cf_consts_of(const cf_material *m)
{
    /* Through the shear modulus rather than the library's E/(2(1−ν²)) and E/((1+ν)(2−ν)):
     * the two routes are algebraically equal, so agreement to a few ulps checks both. */
    double g = m->E / (2.0 * (1.0 + m->nu));
    cf_consts k;
    k.rstar = isinf(m->R2) ? m->R1 : 1.0 / (1.0 / m->R1 + 1.0 / m->R2);
    k.estar = g / (1.0 - m->nu);
    k.gstar = 2.0 * g / (2.0 - m->nu);
    k.kappa = k.estar / k.gstar;
    k.cn = 4.0 / 3.0 * k.estar * sqrt(k.rstar);
    k.mu = m->mu;
    return k;
}

double cf_hertz_n(const cf_consts *k, double d)
{
    return d > 0 ? k->cn * pow(d, 1.5) : 0.0;
}

double cf_hertz_d(const cf_consts *k, double n)
{
    return n > 0 ? pow(n / k->cn, 2.0 / 3.0) : 0.0;
}

double cf_radius(const cf_consts *k, double d)
{
    return d > 0 ? sqrt(k->rstar * d) : 0.0;
}

double cf_smax(const cf_consts *k, double d)
{
    return k->mu * k->kappa * d;
}

double cf_cattaneo(const cf_consts *k, double d, double s)
{
    double smax = cf_smax(k, d), n = cf_hertz_n(k, d);
    if (s >= smax)
        return k->mu * n;
    return k->mu * n * (1.0 - pow(1.0 - s / smax, 1.5));
}

cf_md_state cf_md17(const cf_consts *k, double n0, double n1, double n, bool reversal)
{
    cf_md_state st;
    st.n = n;
    st.d = cf_hertz_d(k, n);
    st.t = 2 * k->mu * (n - n0);
    if (!reversal) {
        double zs = cf_hertz_d(k, 2 * n0 - n); /* N(z*) = 2N0 − N */
        st.s = k->mu * k->kappa * (st.d - zs);
    } else {
        double z1 = cf_hertz_d(k, 2 * n0 - n1);      /* front at N1 */
        double z2 = cf_hertz_d(k, (3 * n - n1) / 2); /* N(z**) = (3N − N1)/2 */
        st.s = k->mu * k->kappa * (2 * z2 - z1 - st.d);
    }
    return st;
}

void cf_params(const cf_material *m, double beta, bool energy, ldem_jager_params *p)
{
    ldem_elastic_pair pair;
    ldem_err err;
    cr_assert_eq(ldem_elastic_pair_init(&pair, m->E, m->nu, m->R1, m->R2, &err), LDEM_OK);
    cr_assert_eq(ldem_jager_params_init(p, &pair, m->mu, beta, &err), LDEM_OK, "%s", err.msg);
    p->track_energy = energy;
}

void cf_pool(ldem_history_pool *pool, uint32_t cells, bool cache_force)
{
    ldem_err err;
    cr_assert_eq(ldem_history_pool_init(pool, cells, cache_force, &err), LDEM_OK, "%s", err.msg);
}

int cf_check_stack(const ldem_jager_params *p, const ldem_history_pool *pool,
                   const ldem_jager_contact *c, double tol_mun)
{
    double mu = p->mu;
    if (c->d <= 0) {
        cr_assert(c->top == 0 && c->nheld == 0, "separated contact must have an empty stack");
        cr_assert_eq(c->length, 0u);
        return 0;
    }
    cr_assert(c->length != 0, "contact with d > 0 must have a stack");
    cr_assert_leq(c->nheld, (uint32_t)LDEM_JAGER_HELD);
    /* cells hold their bottom level; the top cell's top is the approach d */
    uint32_t count = 0, slip = 0;
    double above = c->d;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k)) {
        const ldem_history_cell *cell = k.cell;
        cr_assert_lt(cell->base, above, "levels must increase strictly upwards");
        if (count + 1 < c->length)
            cr_assert_gt(cell->base, 0.0, "levels must be positive");
        else
            cr_assert_eq(cell->base, 0.0, "the bottom cell must start at level 0");
        if (k.position < c->nheld)
            cr_assert_eq(k.pool_index, 0u, "a held cell is not in the pool");
        else
            cr_assert_neq(k.pool_index, 0u, "cells below the held ones are in the pool");
        double w = hypot(cell->w[0], cell->w[1]);
        cr_assert_leq(w, mu * (1 + 1e-12), "|w| = %g exceeds mu = %g", w, mu);
        if (w >= mu * (1 - 1e-12))
            slip++;
        above = cell->base;
        cr_assert_leq(++count, c->length, "stack longer than c.length = %u", c->length);
    }
    cr_assert_eq(count, c->length, "stack has %u cells, contact says %u", count, c->length);
    double t[2];
    ldem_jager_force_from_stack(p, pool, c, t);
    double mun = mu * ldem_hertz_force(&p->pair, c->d);
    double dt = hypot(t[0] - c->t[0], t[1] - c->t[1]);
    cr_assert_leq(dt, tol_mun * mun, "carried T and stack sum differ by %g muN", dt / mun);
    return (int)slip;
}

void cf_rng_seed(cf_rng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9E3779B97F4A7C15ull;
}

uint64_t cf_rng_next(cf_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double cf_rng_uniform(cf_rng *r)
{
    return (double)(cf_rng_next(r) >> 11) * 0x1.0p-53;
}

double cf_rng_sym(cf_rng *r)
{
    return 2.0 * cf_rng_uniform(r) - 1.0;
}

void cf_random_state(cf_rng *r, double d_ref, double s_ref, bool collinear, double *d, double s[2])
{
    double u = cf_rng_uniform(r);
    if (u < 0.10)
        ; /* constant normal */
    else if (u < 0.14)
        *d = -0.2 * d_ref * cf_rng_uniform(r); /* separation */
    else if (u < 0.16)
        *d = 0.0; /* touching, no force */
    else
        *d = d_ref * (0.05 + 1.15 * cf_rng_uniform(r));
    double v = cf_rng_uniform(r), amp;
    if (v < 0.10)
        amp = 0.0;
    else if (v < 0.20)
        amp = 3.0 * s_ref * cf_rng_sym(r);
    else
        amp = 0.4 * s_ref * cf_rng_sym(r);
    double ex = 0.6, ey = 0.8;
    if (!collinear) {
        double phi = 6.283185307179586 * cf_rng_uniform(r);
        ex = cos(phi);
        ey = sin(phi);
    }
    s[0] += amp * ex;
    s[1] += amp * ey;
}

void cf_mdr_init(cf_mdr *m, const cf_consts *k, double d_max, size_t n)
{
    m->n = n;
    m->k = *k;
    m->h = sqrt(k->rstar * d_max) / (double)n;
    m->z = malloc(n * sizeof *m->z);
    m->u = calloc(n, sizeof *m->u);
    cr_assert(m->z && m->u);
    for (size_t i = 0; i < n; i++) {
        double x = ((double)i + 0.5) * m->h;
        m->z[i] = x * x / k->rstar;
    }
    m->d = 0.0;
    m->s = 0.0;
}

void cf_mdr_free(cf_mdr *m)
{
    free(m->z);
    free(m->u);
}

void cf_mdr_move_to(cf_mdr *m, double d1, double s1)
{
    double d0 = m->d, ds = s1 - m->s, mk = m->k.mu * m->k.kappa;
    for (size_t i = 0; i < m->n; i++) {
        double z = m->z[i];
        if (d1 <= z) {
            m->u[i] = 0.0; /* out of contact at the end of the step */
            continue;
        }
        double u;
        if (d0 <= z) /* enters during the step, starting from u = 0 */
            u = ds * (d1 - z) / (d1 - d0);
        else
            u = m->u[i] + ds;
        double b = mk * (d1 - z);
        m->u[i] = u > b ? b : (u < -b ? -b : u);
    }
    m->d = d1;
    m->s = s1;
}

double cf_mdr_t(const cf_mdr *m)
{
    double sum = 0.0;
    for (size_t i = 0; i < m->n; i++)
        sum += m->u[i];
    return 2.0 * m->k.gstar * m->h * sum;
}

double cf_mdr_n(const cf_mdr *m)
{
    double sum = 0.0;
    for (size_t i = 0; i < m->n; i++)
        if (m->d > m->z[i])
            sum += m->d - m->z[i];
    return 2.0 * m->k.estar * m->h * sum;
}
