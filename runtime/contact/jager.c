/* Kuhn's Jäger algorithm (ldem/contact/jager.h), as specified in docs/jager.md §3–§8.
 *
 * Variables are total quantities: levels z are normal approaches, slopes w = dT/dN are
 * dimensionless with |w| ≤ μ, and the carried vector c is the tangential move scaled by 1/κ,
 * so that a segment of slope w over a level interval Δz holds the displacement κ w Δz.
 * The stack's top cells are held in the contact, the rest lives in the shared pool
 * (ldem/contact/jager.h); each cell holds its segment's bottom level, its top level is the
 * base of the cell above, and the top cell's is the contact's approach d
 * (ldem/contact/history.h). Cells are never modified, only pushed, popped and, under β > 0,
 * merged into the cell below.
 */
#include "ldem/contact/jager.h"

#include <math.h>
#include <string.h>

#include "jager_compress.h"
#include "jager_energy.h"

/* Tolerances of docs/jager.md §3 and §7. */
#define RETRACE_TOLERANCE 1e-14  /* |c| ≤ this·μ·d after truncation: an exact retrace */
#define SLIVER_TOLERANCE 1e-15   /* a slip front this close to a segment's bottom pops it */
#define ELASTIC_MARGIN 1e-12     /* a cell is elastic (mergeable) if |w| < μ(1 − this) */

int ldem_jager_params_init(ldem_jager_params *p, const ldem_elastic_pair *pair, double mu,
                           double beta, ldem_err *err)
{
    if (!(isfinite(mu) && mu > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "friction coefficient mu must be positive and finite (got %g)", mu);
    /* Slopes differ by at most 2μ, so β > 2 would merge every pair of elastic legs. */
    if (!(beta >= 0 && beta <= 2))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "approximation parameter beta must lie in [0, 2] (got %g)", beta);
    p->pair = *pair;
    p->mu = mu;
    p->beta = beta;
    p->track_energy = false; /* it doubles the cost of a slip step; callers opt in */
    p->full_history = false;
    return LDEM_OK;
}

void ldem_jager_contact_init(ldem_jager_contact *c)
{
    memset(c, 0, sizeof *c);
}

static inline double hertz(double cn, double z)
{
    return cn * z * sqrt(z);
}

/* ---- the stack: held cells on top of the pooled ones (ldem/contact/jager.h) ---- */

/* The top cell of a stack that is not empty, and its `merged` flag. */
static inline ldem_history_cell *top_cell(ldem_history_pool *pool, ldem_jager_contact *c)
{
    return c->nheld ? &c->held[c->held_top] : &pool->cell[c->top];
}

static inline uint8_t *top_merged(ldem_history_pool *pool, ldem_jager_contact *c)
{
    return c->nheld ? &c->held_merged[c->held_top] : &pool->merged[c->top];
}

/* N at the bottom level of the top cell: cached for a pooled cell when the pool keeps forces. */
static inline double top_base_force(double cn, const ldem_history_pool *pool,
                                    const ldem_jager_contact *c, const ldem_history_cell *top)
{
    return !c->nheld && pool->force ? pool->force[c->top] : hertz(cn, top->base);
}

/* The cell below the top of a stack of at least two cells, and its `merged` flag. */
static inline ldem_history_cell *second_cell(ldem_history_pool *pool, ldem_jager_contact *c)
{
    return c->nheld == 2   ? &c->held[c->held_top ^ 1]
           : c->nheld == 1 ? &pool->cell[c->top]
                           : &pool->cell[pool->next[c->top]];
}

static inline uint8_t *second_merged(ldem_history_pool *pool, ldem_jager_contact *c)
{
    return c->nheld == 2   ? &c->held_merged[c->held_top ^ 1]
           : c->nheld == 1 ? &pool->merged[c->top]
                           : &pool->merged[pool->next[c->top]];
}

/* Move a pooled top cell into the contact (nothing is held). A step whose slip front lands
 * in a pooled cell moves it up, so that the next steps, which swallow the slip cell on top and
 * land in the cell below again, find both held. */
static inline void hold_top(ldem_history_pool *pool, ldem_jager_contact *c)
{
    c->held[c->held_top] = pool->cell[c->top];
    c->held_merged[c->held_top] = pool->merged[c->top];
    c->top = ldem_history_pop(pool, c->top);
    c->nheld = 1;
}

/* Pop the top cell. A held cell is dropped without moving a pooled one up: the next push
 * refills the held slot, so a step that pops one cell and pushes one touches no pool memory. */
static inline void pop_cell(ldem_history_pool *pool, ldem_jager_contact *c)
{
    if (c->nheld) {
        c->held_top ^= 1;
        c->nheld--;
    } else {
        c->top = ldem_history_pop(pool, c->top);
    }
    c->length--;
}

double ldem_jager_cell_force(const ldem_jager_params *p, const ldem_history_pool *pool,
                             const ldem_jager_cursor *k)
{
    return k->pool_index && pool->force ? pool->force[k->pool_index]
                                        : hertz(p->pair.cn, k->cell->base);
}

/* Record a new top cell of slope w from level `base` up to d. LDEM_OK, or LDEM_ERR_NOMEM (the
 * stack is then unchanged). */
static inline int push_cell(double cn, ldem_history_pool *pool, ldem_jager_contact *c,
                            double base, double wx, double wy, uint8_t merged)
{
    uint32_t slot = c->held_top ^ 1; /* free, or the lower held cell's (both free if none) */
    if (c->nheld == LDEM_JAGER_HELD) { /* which then moves to the pool */
        uint32_t i = ldem_history_push(pool, c->top);
        if (!i)
            return LDEM_ERR_NOMEM;
        pool->cell[i] = c->held[slot];
        pool->merged[i] = c->held_merged[slot];
        if (pool->force)
            pool->force[i] = hertz(cn, c->held[slot].base);
        c->top = i;
        c->nheld--;
    }
    c->held[slot] = (ldem_history_cell){base, {wx, wy}};
    c->held_merged[slot] = merged;
    c->held_top = slot;
    c->nheld++;
    c->length++;
    return LDEM_OK;
}

/* The distance t ≥ 0 below a segment's top at which |c + w t| = μ(L + t), i.e. the root of
 * A t² + 2B t + C = 0 in the cancellation-free form of docs/jager.md §3 (∞ if there is
 * none). */
static inline double slip_front_depth(double a, double b, double c)
{
    double disc = b * b - a * c;
    double root = sqrt(disc > 0 ? disc : 0);
    if (b > 0)
        return -c / (b + root);
    if (a > 0)
        return (root - b) / a;
    return INFINITY;
}

void ldem_jager_release(ldem_history_pool *pool, ldem_jager_contact *c)
{
    ldem_history_clear(pool, c->top);
    c->top = 0;
    c->nheld = 0;
    c->length = 0;
    c->n = 0;
    c->t[0] = c->t[1] = 0;
    c->chain.active = 0;
}

/* Lossless compression (jager_compress.h): offer the top leg to the one below until they stay
 * apart. The top's top level is d. The carried T follows the stack's Σ w ΔN, which a merge
 * changes within the tolerance's bound: left alone, those changes would add up merge after
 * merge, since later steps change T by what the merged stack says. Out of line: the hot path
 * only asks compress_top's cheap question. */
static __attribute__((noinline)) void merge_top(double mu, double cn, ldem_history_pool *pool,
                                                ldem_jager_contact *c)
{
    const double tol = LDEM_JAGER_LOSSLESS_TOLERANCE * mu;
    while (c->length >= 2) {
        const ldem_history_cell *b = top_cell(pool, c);
        ldem_history_cell *a = second_cell(pool, c);
        const uint8_t mb = *top_merged(pool, c);
        uint8_t *ma = second_merged(pool, c);
        const double z0 = a->base, z1 = b->base, z2 = c->d;
        double w[2];
        uint8_t merged;
        if (!ldem__jager_may_merge(tol, z0, z1, z2, a->w, *ma, b->w, mb, &c->chain))
            return;
        const bool grew = ldem__jager_is_chain(&c->chain, z0, *ma);
        const double wa[2] = {a->w[0], a->w[1]};
        if (!ldem__jager_merge_legs(tol, z0, z1, z2, a->w, *ma, b->w, mb, &c->chain, w, &merged))
            return;
        if (c->chain.active && c->chain.base == z0) { /* merged into the growing leg */
            ldem_jager_chain *ch = &c->chain;
            if (!grew) { /* a new merged leg: the force below it, once */
                double n1 = hertz(cn, z1);
                ch->n_base = hertz(cn, z0);
                for (int k = 0; k < 2; k++)
                    ch->t_below[k] = c->t[k] - wa[k] * (n1 - ch->n_base) - b->w[k] * (c->n - n1);
            }
            c->t[0] = ch->t_below[0] + w[0] * (c->n - ch->n_base);
            c->t[1] = ch->t_below[1] + w[1] * (c->n - ch->n_base);
        }
        a->w[0] = w[0];
        a->w[1] = w[1];
        *ma = merged;
        pop_cell(pool, c);
    }
}

/* After a push: may the top leg merge? A push leaves at least the top held, and most often
 * the leg below too, so the question rarely reaches the pool. */
static inline void compress_top(double mu, double cn, ldem_history_pool *pool,
                                ldem_jager_contact *c)
{
    if (c->length < 2)
        return;
    const uint32_t t = c->held_top;
    const ldem_history_cell *b = &c->held[t], *a;
    uint8_t ma;
    if (c->nheld == 2) {
        a = &c->held[t ^ 1];
        ma = c->held_merged[t ^ 1];
    } else {
        a = &pool->cell[c->top];
        ma = pool->merged[c->top];
    }
    if (ldem__jager_may_merge(LDEM_JAGER_LOSSLESS_TOLERANCE * mu, a->base, b->base, c->d, a->w,
                              ma, b->w, c->held_merged[t], &c->chain))
        merge_top(mu, cn, pool, c);
}

/* Kuhn §3.1: after an elastic push, merge the top with the elastic cell below while their
 * slopes differ by less than βμ, weighting by force so that T is unchanged. The merged cell
 * is no longer within the lossless tolerance of anything: closed. */
static void merge_elastic_legs(const ldem_jager_params *p, ldem_history_pool *pool,
                               ldem_jager_contact *c)
{
    const double limit = p->beta * p->mu, elastic = p->mu * (1 - ELASTIC_MARGIN);
    /* the top's top level is d, whose force is c->n */
    while (c->length >= 2) {
        const ldem_history_cell *top = top_cell(pool, c);
        ldem_history_cell *below = second_cell(pool, c);
        const double *wt = top->w, *wb = below->w;
        double dx = wt[0] - wb[0], dy = wt[1] - wb[1];
        if (!(wb[0] * wb[0] + wb[1] * wb[1] < elastic * elastic) ||
            !(dx * dx + dy * dy < limit * limit))
            return;
        ldem_jager_cursor k = ldem_jager_first(pool, c);
        double nb = ldem_jager_cell_force(p, pool, &k); /* N at the top's and below's bases */
        ldem_jager_next(pool, &k);
        double nt = c->n, n0 = ldem_jager_cell_force(p, pool, &k);
        double span = nt - n0, hi = nt - nb, lo = nb - n0;
        if (!(span > 0)) {
            /* Legs a few ulps of the approach deep, over which N does not change in double:
             * no force to keep, so weight by level, which keeps the displacement (0/0 had
             * made the slope NaN, which the merge test then let through, cell after cell). */
            const double zt = c->d, zb = top->base, z0 = below->base;
            span = zt - z0, hi = zt - zb, lo = zb - z0;
        }
        double w[2] = {(wt[0] * hi + wb[0] * lo) / span, (wt[1] * hi + wb[1] * lo) / span};
        /* the merged cell keeps below's base and, once the top is popped, reaches d */
        below->w[0] = w[0];
        below->w[1] = w[1];
        *second_merged(pool, c) = 1;
        c->chain.active = 0;
        pop_cell(pool, c);
    }
}

/* The springs that leave the contact while a step unloads it, each holding the displacement
 * it had when the shrinking contact edge passed it: U0(z) + g (d0 − z), g = c/(d0 − d1). */
typedef struct leaving {
    double u[2];  /* U0 at the top of the current segment (0 at the old top) */
    double g[2];
    double d0;    /* approach at the start of the step */
    double sum;   /* ∫ |trial at leaving|² dx so far */
} leaving;

static void leaving_segment(const ldem_jager_params *p, leaving *lv, double lo, double hi,
                            const double w[2])
{
    double s = p->pair.sqrt_rstar;
    lv->sum += ldem__jager_leaving_square(p->pair.rstar, s * sqrt(lo), s * sqrt(hi), lv->u, w,
                                          lv->g, lv->d0);
    lv->u[0] += w[0] * (hi - lo);
    lv->u[1] += w[1] * (hi - lo);
}

/* Loss of contact during a step from d0 > 0 to d1 ≤ 0: every spring leaves. */
static double separation_loss(const ldem_jager_params *p, const ldem_history_pool *pool,
                              const ldem_jager_contact *c, double d1, double cx, double cy)
{
    leaving lv = {.g = {cx / (c->d - d1), cy / (c->d - d1)}, .d0 = c->d};
    double hi = c->d;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k)) {
        leaving_segment(p, &lv, k.cell->base, hi, k.cell->w);
        hi = k.cell->base;
    }
    return lv.sum;
}

/* The hot path. It keeps the force at the current top level in a local (the contact's N is
 * the top's force by the invariant z_top = d) and reuses each square root for both the Hertz
 * force and the energy quadrature, so a typical step costs four square roots. The parameters
 * come apart, the pair by pointer (ldem_jager_step_pair): a DEM contact keeps its pair in its
 * record, and copying it into a ldem_jager_params would be work on every step. The rare paths
 * that take a whole ldem_jager_params build one (WHOLE_PARAMS). `energy` is the track_energy
 * flag, a constant in each of jager_step's two copies. */
static inline __attribute__((always_inline)) int
jager_step_body(const ldem_elastic_pair *pair, double mu, double beta, bool full,
                ldem_history_pool *pool, ldem_jager_contact *c, double d1, double cx, double cy,
                const bool energy)
{
#define WHOLE_PARAMS (&(const ldem_jager_params){*pair, mu, beta, energy, full})
    const double cn = pair->cn;

    if (!(d1 > 0)) { /* loss of contact (or still apart) */
        if (energy && c->length)
            c->dissipated += pair->gstar * pair->kappa * pair->kappa *
                             separation_loss(WHOLE_PARAMS, pool, c, d1, cx, cy);
        ldem_jager_release(pool, c);
        c->d = d1;
        return LDEM_OK;
    }
    double d0 = c->d;
    if (!(d0 > 0)) { /* first touch inside the step: only the in-contact part moves */
        double f = d1 / (d1 - d0);
        cx *= f;
        cy *= f;
        d0 = 0;
        if (c->length)
            ldem_jager_release(pool, c);
    }
    const double dd = d1 - d0;
    if (dd == 0 && cx == 0 && cy == 0)
        return LDEM_OK;
    const double root1 = sqrt(d1), n1 = cn * d1 * root1;
    double z = c->length ? d0 : 0;    /* the top level of the top cell */
    double n_top = c->length ? c->n : 0; /* and its force */
    double tx = c->t[0], ty = c->t[1];

    /* (i) elastic loading: the new springs take the move at slope c/Δd, nothing slips. */
    if (dd > 0 && cx * cx + cy * cy <= mu * mu * dd * dd) {
        double inv_dd = 1 / dd, wx = cx * inv_dd, wy = cy * inv_dd;
        if (push_cell(cn, pool, c, z, wx, wy, 0))
            goto out_of_memory;
        c->t[0] = tx + wx * (n1 - n_top);
        c->t[1] = ty + wy * (n1 - n_top);
        c->d = d1;
        c->n = n1;
        if (!full)
            compress_top(mu, cn, pool, c);
        if (beta > 0)
            merge_elastic_legs(WHOLE_PARAMS, pool, c);
        return LDEM_OK;
    }

    const double c0[2] = {cx, cy};
    double loss = 0; /* ∫ … dx of the dissipation, before the factor G*κ² */
    c->chain.active = 0; /* only elastic pushes grow a merged leg */
    /* (ii) normal unloading: cut the stack at d1, carrying the cut-off displacement. */
    if (dd < 0) {
        leaving lv = {.d0 = d0};
        if (energy) { /* divisions the energy-free path does not need */
            lv.g[0] = cx / -dd;
            lv.g[1] = cy / -dd;
        }
        for (;;) {
            /* (the bottom cell's base is 0 < d1: the cut always comes) */
            const ldem_history_cell *top = top_cell(pool, c);
            double lo = top->base;
            const double w[2] = {top->w[0], top->w[1]};
            if (lo < d1) { /* the cut: this segment's top is now d1 */
                if (energy)
                    leaving_segment(WHOLE_PARAMS, &lv, d1, z, w);
                cx += w[0] * (z - d1);
                cy += w[1] * (z - d1);
                tx -= w[0] * (n_top - n1);
                ty -= w[1] * (n_top - n1);
                n_top = n1;
                z = d1;
                break;
            }
            double n_lo = top_base_force(cn, pool, c, top);
            if (energy)
                leaving_segment(WHOLE_PARAMS, &lv, lo, z, w);
            cx += w[0] * (z - lo);
            cy += w[1] * (z - lo);
            tx -= w[0] * (n_top - n_lo);
            ty -= w[1] * (n_top - n_lo);
            n_top = n_lo;
            z = lo;
            pop_cell(pool, c);
        }
        loss += lv.sum;
    }
    c->d = d1;
    c->n = n1;

    double tol = RETRACE_TOLERANCE * mu * d1;
    if (cx * cx + cy * cy <= tol * tol) { /* exact retrace: the stack already says it all */
        if (c->length && z < d1) { /* a rising retrace: the top segment now reaches d1 */
            const ldem_history_cell *top = top_cell(pool, c);
            tx += top->w[0] * (n1 - n_top);
            ty += top->w[1] * (n1 - n_top);
        }
        c->t[0] = tx;
        c->t[1] = ty;
        if (energy)
            c->dissipated += pair->gstar * pair->kappa * pair->kappa * loss;
        return LDEM_OK;
    }

    /* (iii) find the slip front z*: walk down, swallowing segments the front passes. */
    const double rstar = pair->rstar, sr = pair->sqrt_rstar;
    double moment[2] = {0, 0}; /* ∫ (d1 − z) P(z) dx over the slipping springs */
    double x_top = 0;          /* √(R* z) of the top level, for the quadrature */
    if (energy) {
        x_top = sr * (dd > 0 ? (d0 > 0 ? sqrt(d0) : 0) : root1);
        if (dd > 0) { /* new springs: trial displacement c0 (d1 − z)/Δd, all slipping */
            double sq = ldem__jager_bound_square(rstar, d1, x_top, sr * root1);
            moment[0] += c0[0] / dd * sq;
            moment[1] += c0[1] / dd * sq;
        }
    }
    double x_front = 0, n_front = 0; /* the slip front z*: its √(R* z*) and N(z*) */
    bool pristine = true; /* every spring the slip cell takes over is the exact history's */
    while (c->length) {
        const ldem_history_cell *top = top_cell(pool, c);
        double lo = top->base;
        const double w[2] = {top->w[0], top->w[1]};
        double len = d1 - z, seg = z - lo;
        /* Does the front pass below this segment? |c + w t| − μ(len + t) never increases with
         * t (|w| ≤ μ), so it does iff the chord at the segment's bottom is still outside the
         * slip cone: a sign test that spares the root's square root and division for every
         * segment the front swallows (docs/jager.md §3). */
        double ux = cx + w[0] * seg, uy = cy + w[1] * seg, reach = mu * (len + seg);
        bool swallowed = ux * ux + uy * uy > reach * reach;
        double depth = INFINITY;
        if (!swallowed) {
            double ww = w[0] * w[0] + w[1] * w[1];
            double a = mu * mu - ww;
            double b = mu * mu * len - (cx * w[0] + cy * w[1]);
            double cc = mu * mu * len * len - (cx * cx + cy * cy);
            if (cc > 0)
                cc = 0;
            /* A ≤ 0 (a slip cell whose |w|² rounded up): the root's square-root-free form. */
            depth = a > 0 ? slip_front_depth(a, b, cc) : b > 0 ? -cc / (2 * b) : INFINITY;
        }
        /* A front that rounds onto the segment's bottom swallows it whole, and one that
         * rounds onto its top cuts nothing: no cell is ever left without width. */
        double zs = z - depth;
        if (depth < seg * (1 - SLIVER_TOLERANCE) && zs > lo) {
            if (zs < z) {
                double root_s = sqrt(zs), ns = cn * zs * root_s;
                pristine = pristine && !*top_merged(pool, c);
                if (energy)
                    ldem__jager_slip_moment(rstar, d1, sr * root_s, x_top, (double[2]){cx, cy},
                                            w, moment);
                tx -= w[0] * (n_top - ns);
                ty -= w[1] * (n_top - ns);
                cx += w[0] * depth;
                cy += w[1] * depth;
                n_top = ns;
                x_top = sr * root_s;
                z = zs; /* the base of the slip cell pushed below */
            }
            x_front = x_top;
            n_front = n_top;
            if (!c->nheld)
                hold_top(pool, c);
            break;
        }
        /* The front passes below this segment: it is swallowed. */
        pristine = pristine && !*top_merged(pool, c);
        double root_lo = energy || c->nheld || !pool->force ? sqrt(lo) : 0;
        double n_lo = !c->nheld && pool->force ? pool->force[c->top] : cn * lo * root_lo;
        if (energy)
            ldem__jager_slip_moment(rstar, d1, sr * root_lo, x_top, (double[2]){cx, cy}, w,
                                    moment);
        tx -= w[0] * (n_top - n_lo);
        ty -= w[1] * (n_top - n_lo);
        cx = ux;
        cy = uy;
        n_top = n_lo;
        x_top = sr * root_lo;
        z = lo;
        pop_cell(pool, c);
    }

    /* The slipping springs above z* form one cell of slope μ along the chord c. (|c| also
     * equals μ(d1 − z*) by the root's equation, but that is exact only to the root's
     * round-off; the measured norm keeps |w| = μ to one ulp.) */
    double norm = sqrt(cx * cx + cy * cy);
    if (!(norm > 0)) { /* only reachable through round-off: nothing left to slip */
        /* a slope-0 cell up to d1 keeps the top level at d and adds no force */
        if (z < d1 && push_cell(cn, pool, c, z, 0, 0, 1))
            goto out_of_memory;
        c->t[0] = tx;
        c->t[1] = ty;
        return LDEM_OK;
    }
    double scale = mu / norm, wx = cx * scale, wy = cy * scale;
    if (push_cell(cn, pool, c, z, wx, wy, pristine ? 0 : 1))
        goto out_of_memory;
    if (c->length == 1) { /* gross sliding: T is exactly μN along the slip */
        c->t[0] = wx * n1;
        c->t[1] = wy * n1;
    } else {
        c->t[0] = tx + wx * (n1 - n_front);
        c->t[1] = ty + wy * (n1 - n_front);
    }
    if (energy) {
        /* Slip work G* ∫ u1·(trial − u1) dx over both halves of the row, u1 = μκ ĉ(d1 − z). */
        double sq = ldem__jager_bound_square(rstar, d1, x_front, sr * root1);
        double work = 2 * mu * ((cx * moment[0] + cy * moment[1]) / norm - mu * sq);
        loss += work > 0 ? work : 0;
        c->dissipated += pair->gstar * pair->kappa * pair->kappa * loss;
    }
    if (!full)
        compress_top(mu, cn, pool, c);
    return LDEM_OK;

out_of_memory:
    /* Cleared and separated (d = 0, not d1): the next step then starts as a first touch
     * instead of finding a contact in touch with no history. */
    ldem_jager_release(pool, c);
    c->d = 0;
    return LDEM_ERR_NOMEM;
#undef WHOLE_PARAMS
}

/* Two copies of the hot path, with the energy quadrature and without: the copy DEM runs time
 * (without) then carries none of the quadrature's branches, locals and spills. (No third copy
 * for pools without the force cache: it executes more instructions, not fewer; BENCHMARKS.md.)
 */
static int jager_step(const ldem_elastic_pair *pair, double mu, double beta, unsigned flags,
                      ldem_history_pool *pool, ldem_jager_contact *c, double d1, double cx,
                      double cy)
{
    const bool full = flags & LDEM_JAGER_FULL_HISTORY;
    return flags & LDEM_JAGER_ENERGY
               ? jager_step_body(pair, mu, beta, full, pool, c, d1, cx, cy, true)
               : jager_step_body(pair, mu, beta, full, pool, c, d1, cx, cy, false);
}

static unsigned params_flags(const ldem_jager_params *p)
{
    return (p->track_energy ? LDEM_JAGER_ENERGY : 0u) |
           (p->full_history ? LDEM_JAGER_FULL_HISTORY : 0u);
}

int ldem_jager_step(const ldem_jager_params *p, ldem_history_pool *pool,
                    ldem_jager_contact *c, double d1, const double ds[2])
{
    c->s[0] += ds[0];
    c->s[1] += ds[1];
    const double kappa = p->pair.kappa;
    return jager_step(&p->pair, p->mu, p->beta, params_flags(p), pool, c, d1, ds[0] / kappa,
                      ds[1] / kappa);
}

int ldem_jager_step_pair(const ldem_elastic_pair *pair, double mu, double beta, unsigned flags,
                         ldem_history_pool *pool, ldem_jager_contact *c, double d1,
                         const double ds[2])
{
    c->s[0] += ds[0];
    c->s[1] += ds[1];
    const double kappa = pair->kappa;
    return jager_step(pair, mu, beta, flags, pool, c, d1, ds[0] / kappa, ds[1] / kappa);
}

/* The law's step as the contact loop calls it (ldem_law_ops.step of law_hertz_jager.c): the
 * energy dispatch of jager_step done here, so that the bodies are inlined into the function
 * the loop calls through its ops table rather than one call further down, which that call
 * frame cost on every touching contact. Bit for bit ldem_jager_step_pair. */
int ldem__jager_law_step(const ldem_elastic_pair *pair, double mu, double beta, unsigned flags,
                         ldem_history_pool *pool, ldem_jager_contact *c, double d1,
                         const double ds[2], double *normal, double t[2])
{
    c->s[0] += ds[0];
    c->s[1] += ds[1];
    const double kappa = pair->kappa, cx = ds[0] / kappa, cy = ds[1] / kappa;
    const bool full = flags & LDEM_JAGER_FULL_HISTORY;
    int rc = flags & LDEM_JAGER_ENERGY
                 ? jager_step_body(pair, mu, beta, full, pool, c, d1, cx, cy, true)
                 : jager_step_body(pair, mu, beta, full, pool, c, d1, cx, cy, false);
    *normal = c->n;
    t[0] = c->t[0];
    t[1] = c->t[1];
    return rc;
}

int ldem_jager_move_to(const ldem_jager_params *p, ldem_history_pool *pool,
                       ldem_jager_contact *c, double d1, const double s1[2])
{
    const double kappa = p->pair.kappa;
    double cx = (s1[0] - c->s[0]) / kappa, cy = (s1[1] - c->s[1]) / kappa;
    c->s[0] = s1[0];
    c->s[1] = s1[1];
    return jager_step(&p->pair, p->mu, p->beta, params_flags(p), pool, c, d1, cx, cy);
}

double ldem_jager_stored_energy(const ldem_jager_params *p, const ldem_history_pool *pool,
                                const ldem_jager_contact *c)
{
    const double scale = p->pair.gstar * p->pair.kappa * p->pair.kappa;
    return scale * ldem__jager_stack_square(p->pair.rstar, pool, c);
}

void ldem_jager_force_from_stack(const ldem_jager_params *p, const ldem_history_pool *pool,
                                 const ldem_jager_contact *c, double t[2])
{
    t[0] = t[1] = 0;
    double n_hi = c->length ? hertz(p->pair.cn, c->d) : 0;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k)) {
        double n_lo = ldem_jager_cell_force(p, pool, &k);
        t[0] += k.cell->w[0] * (n_hi - n_lo);
        t[1] += k.cell->w[1] * (n_hi - n_lo);
        n_hi = n_lo;
    }
}

void ldem_jager_elastic_shift(const ldem_jager_params *p, const ldem_history_pool *pool,
                              const ldem_jager_contact *c, double s_el[2])
{
    s_el[0] = s_el[1] = 0;
    double hi = c->d;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k)) {
        double dz = hi - k.cell->base;
        s_el[0] += p->pair.kappa * k.cell->w[0] * dz;
        s_el[1] += p->pair.kappa * k.cell->w[1] * dz;
        hi = k.cell->base;
    }
}
