/* chain_floor: the exact Jäger law's step-to-step arithmetic alone (chain_floor.h). */
#include "chain_floor.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* How deep below the top the recording looks for the segment a front lands in; a step whose
 * front lands deeper is replayed as a copy of the law's result. */
enum { CAPTURE_DEPTH = 256 };

static double hertz(double cn, double z)
{
    return cn * z * sqrt(z);
}

/* The top cells of the stack before a step: bottom level and slope, top first. (Levels fall
 * strictly down a stack, so a cell's level tells which one it is.) */
typedef struct capture {
    uint32_t count;
    double base[CAPTURE_DEPTH];
    double w[CAPTURE_DEPTH][2];
} capture;

static void capture_stack(capture *cap, const ldem_history_pool *pool,
                          const ldem_jager_contact *c)
{
    cap->count = 0;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell && cap->count < CAPTURE_DEPTH;
         ldem_jager_next(pool, &k)) {
        uint32_t n = cap->count++;
        cap->base[n] = k.cell->base;
        cap->w[n][0] = k.cell->w[0];
        cap->w[n][1] = k.cell->w[1];
    }
}

/* Classify the step the law just took from the captured stack (approach dprev before it) to
 * the contact's present state, and fill the constants of a CHAIN_ROOT step. */
static void classify(chain_step *s, const capture *cap, const ldem_history_pool *pool,
                     const ldem_jager_contact *k, double dprev, double mu, double cn)
{
    double d1 = s->d1, dd = d1 - dprev;
    s->kind = CHAIN_COPY;
    if (!(dprev > 0 && d1 > 0 && cap->count > 0))
        return; /* first touch, separation: not the chain */
    /* the law's elastic test, verbatim */
    if (dd > 0 && s->c[0] * s->c[0] + s->c[1] * s->c[1] <= mu * mu * dd * dd) {
        s->kind = CHAIN_PUSH;
        return;
    }
    if (k->length < 2)
        return; /* gross sliding: the stack collapsed to one slip cell */
    ldem_jager_cursor now = ldem_jager_first(pool, k);
    const ldem_history_cell *top = now.cell;
    ldem_jager_next(pool, &now);
    const ldem_history_cell *landing = now.cell; /* unchanged by the step: find it before */
    uint32_t m = 0;
    while (m < cap->count && !(cap->base[m] == landing->base && cap->w[m][0] == landing->w[0] &&
                               cap->w[m][1] == landing->w[1]))
        m++;
    if (m == cap->count)
        return; /* deeper than captured */
    /* A step that pushed nothing (exact retrace, zero step) leaves an old cell on top: the
     * cell just above the landing one, unchanged. */
    if (m >= 1 && top->base == cap->base[m - 1] && top->w[0] == cap->w[m - 1][0] &&
        top->w[1] == cap->w[m - 1][1])
        return;
    double top_l = m == 0 ? dprev : cap->base[m - 1];
    double z_l = top_l < d1 ? top_l : d1;
    s->kind = CHAIN_ROOT;
    s->landing = m == 0 ? LAND_TOP : m == 1 ? LAND_NEXT : LAND_DEEP;
    s->z_l = z_l;
    s->n_l = hertz(cn, z_l);
    s->w_l[0] = cap->w[m][0];
    s->w_l[1] = cap->w[m][1];
    s->a_l = mu * mu - (cap->w[m][0] * cap->w[m][0] + cap->w[m][1] * cap->w[m][1]);
    s->o[0] = s->o[1] = s->p[0] = s->p[1] = 0;
    if (m == 0)
        return;
    s->w1[0] = cap->w[1][0];
    s->w1[1] = cap->w[1][1];
    if (m == 1)
        return;
    s->b1 = cap->base[1];
    s->n_b1 = hertz(cn, cap->base[1]);
    /* segments 2 .. m-1 are swallowed whole, the landing one is cut at d1 if it reaches above */
    for (uint32_t j = 2; j < m; j++) {
        double hi = cap->base[j - 1], lo = cap->base[j], dn = hertz(cn, hi) - hertz(cn, lo);
        s->o[0] += cap->w[j][0] * (hi - lo);
        s->o[1] += cap->w[j][1] * (hi - lo);
        s->p[0] += cap->w[j][0] * dn;
        s->p[1] += cap->w[j][1] * dn;
    }
    if (z_l < top_l) {
        double dn = hertz(cn, top_l) - s->n_l;
        s->o[0] += cap->w[m][0] * (top_l - z_l);
        s->o[1] += cap->w[m][1] * (top_l - z_l);
        s->p[0] += cap->w[m][0] * dn;
        s->p[1] += cap->w[m][1] * dn;
    }
}

int chain_floor_record(chain_floor *f, const ldem_jager_params *p, size_t n, const double *d,
                       const double (*ds)[2])
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->mu = p->mu;
    f->cn = p->pair.cn;
    f->step = calloc(n, sizeof *f->step);
    f->law = calloc(n, sizeof *f->law);
    capture *cap = malloc(sizeof *cap);
    ldem_history_pool pool;
    ldem_err err;
    ldem_err_clear(&err);
    if (!f->step || !f->law || !cap || ldem_history_pool_init(&pool, 1024, false, &err)) {
        free(cap);
        chain_floor_free(f);
        return -1;
    }
    ldem_jager_params exact = *p;
    exact.beta = 0;
    exact.track_energy = false;
    ldem_jager_contact k;
    ldem_jager_contact_init(&k);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        chain_step *s = &f->step[i];
        double dprev = k.d;
        capture_stack(cap, &pool, &k);
        s->d1 = d[i];
        s->c[0] = ds[i][0] / p->pair.kappa; /* as ldem_jager_step scales them */
        s->c[1] = ds[i][1] / p->pair.kappa;
        if (ldem_jager_step(&exact, &pool, &k, d[i], ds[i]) != LDEM_OK) {
            rc = -1;
            break;
        }
        chain_outcome *o = &f->law[i];
        const ldem_history_cell *top = ldem_jager_first(&pool, &k).cell;
        if (top) {
            o->w[0] = top->w[0];
            o->w[1] = top->w[1];
            o->base = top->base;
            o->n_base = hertz(f->cn, o->base);
        }
        o->t[0] = k.t[0];
        o->t[1] = k.t[1];
        classify(s, cap, &pool, &k, dprev, p->mu, f->cn);
        f->counts[s->kind]++;
    }
    ldem_jager_release(&pool, &k);
    ldem_history_pool_free(&pool);
    free(cap);
    if (rc)
        chain_floor_free(f);
    return rc;
}

double chain_floor_replay(const chain_floor *f, chain_outcome *out)
{
    const double mu2 = f->mu * f->mu, cn = f->cn;
    /* the state the chain carries: the top cell's slope, base level and N there; T; and the
     * approach and N of the previous step */
    double wx = 0, wy = 0, zb = 0, nb = 0, tx = 0, ty = 0, nprev = 0, dprev = 0, sum = 0;
    for (size_t i = 0; i < f->n; i++) {
        const chain_step *s = &f->step[i];
        double d1 = s->d1, n1 = cn * d1 * sqrt(d1);
        if (s->kind == CHAIN_PUSH) {
            double inv = 1 / (d1 - dprev);
            wx = s->c[0] * inv;
            wy = s->c[1] * inv;
            tx += wx * (n1 - nprev);
            ty += wy * (n1 - nprev);
            zb = dprev;
            nb = nprev;
        } else if (s->kind == CHAIN_ROOT) {
            double cx, cy, z_l, n_l, wex, wey, a;
            if (s->landing == LAND_TOP) { /* the top is cut at d1 (if it reaches above) */
                z_l = s->z_l;
                n_l = s->n_l;
                cx = s->c[0] + wx * (dprev - z_l);
                cy = s->c[1] + wy * (dprev - z_l);
                tx -= wx * (nprev - n_l);
                ty -= wy * (nprev - n_l);
                wex = wx;
                wey = wy;
                a = mu2 - (wx * wx + wy * wy);
            } else { /* the top is swallowed whole, and the segment below from its base zb */
                double b1, nb1;
                if (s->landing == LAND_NEXT) { /* which is the landing one, cut at d1 */
                    z_l = d1 < zb ? d1 : zb;
                    n_l = d1 < zb ? n1 : nb;
                    b1 = z_l;
                    nb1 = n_l;
                } else {
                    z_l = s->z_l;
                    n_l = s->n_l;
                    b1 = s->b1;
                    nb1 = s->n_b1;
                }
                cx = s->c[0] + wx * (dprev - zb) + s->w1[0] * (zb - b1) + s->o[0];
                cy = s->c[1] + wy * (dprev - zb) + s->w1[1] * (zb - b1) + s->o[1];
                tx -= wx * (nprev - nb) + s->w1[0] * (nb - nb1) + s->p[0];
                ty -= wy * (nprev - nb) + s->w1[1] * (nb - nb1) + s->p[1];
                wex = s->w_l[0];
                wey = s->w_l[1];
                a = s->a_l;
            }
            double len = d1 - z_l;
            double b = mu2 * len - (cx * wex + cy * wey);
            double cc = mu2 * len * len - (cx * cx + cy * cy);
            if (cc > 0)
                cc = 0;
            double num, den; /* the root t = num/den, as the law solves it */
            if (a > 0) {
                double disc = b * b - a * cc, root = sqrt(disc > 0 ? disc : 0);
                num = b > 0 ? -cc : root - b;
                den = b > 0 ? b + root : a;
            } else {
                num = -cc;
                den = 2 * b;
            }
            double zs = z_l - num / den, ns = cn * zs * sqrt(zs);
            /* the new slope μ ĉ by one division: |c + w t| = μ(len + t) */
            double inv = 1 / (len * den + num);
            double nwx = (cx * den + wex * num) * inv, nwy = (cy * den + wey * num) * inv;
            tx += nwx * (n1 - ns) - wex * (n_l - ns);
            ty += nwy * (n1 - ns) - wey * (n_l - ns);
            wx = nwx;
            wy = nwy;
            zb = zs;
            nb = ns;
        } else {
            const chain_outcome *o = &f->law[i];
            wx = o->w[0];
            wy = o->w[1];
            zb = o->base;
            nb = o->n_base;
            tx = o->t[0];
            ty = o->t[1];
        }
        nprev = n1;
        dprev = d1;
        sum += tx;
        if (out)
            out[i] = (chain_outcome){{wx, wy}, zb, nb, {tx, ty}};
    }
    return sum;
}

int chain_floor_check(const chain_floor *f, double *dz, double *dw, double *dt)
{
    chain_outcome *out = malloc(f->n * sizeof *out);
    if (!out)
        return -1;
    chain_floor_replay(f, out);
    *dz = *dw = *dt = 0;
    for (size_t i = 0; i < f->n; i++) {
        const chain_outcome *r = &out[i], *l = &f->law[i];
        double d1 = f->step[i].d1, mun = f->mu * f->cn * d1 * sqrt(d1);
        if (f->step[i].kind == CHAIN_ROOT) {
            double ez = fabs(r->base - l->base) / d1;
            double ew = hypot(r->w[0] - l->w[0], r->w[1] - l->w[1]) / f->mu;
            *dz = ez > *dz ? ez : *dz;
            *dw = ew > *dw ? ew : *dw;
        }
        if (mun > 0) {
            double et = hypot(r->t[0] - l->t[0], r->t[1] - l->t[1]) / mun;
            *dt = et > *dt ? et : *dt;
        }
    }
    free(out);
    return 0;
}

void chain_floor_free(chain_floor *f)
{
    free(f->step);
    free(f->law);
    f->step = NULL;
    f->law = NULL;
    f->n = 0;
}
