/* law_hertz_jager_history.c — the Jäger law's state as a checkpoint holds it
 * (docs/checkpoint.md): seven scalars, the growing leg of lossless compression
 * (docs/jager.md §5), and the history stack listed top first with each cell's top level, as
 * docs/jager.md §2 does, where the pool keeps bottom levels (§8): a cell's top is the base of
 * the cell above, the top cell's is the approach d. The loader's checks are §2's invariants. */
#include "law_hertz_jager.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ldem__jager_save(const void *state, double v[LDEM_LAW_SAVED_VALUES])
{
    const ldem_jager_contact *j = state;
    memset(v, 0, LDEM_LAW_SAVED_VALUES * sizeof *v);
    v[0] = j->d, v[1] = j->s[0], v[2] = j->s[1], v[3] = j->n, v[4] = j->t[0];
    v[5] = j->t[1], v[6] = j->dissipated;
}

void ldem__jager_load(void *state, const double v[LDEM_LAW_SAVED_VALUES])
{
    ldem_jager_contact *j = state;
    j->d = v[0], j->s[0] = v[1], j->s[1] = v[2], j->n = v[3], j->t[0] = v[4];
    j->t[1] = v[5], j->dissipated = v[6];
}

/* The growing leg as active, base, rise x, y, rise_lo x, y, offset x, y, radius, n_base,
 * t_below x, y; floats widened. */
void ldem__jager_save_extra(const void *state, double v[LDEM_LAW_EXTRA_VALUES])
{
    const ldem_jager_chain *ch = &((const ldem_jager_contact *)state)->chain;
    v[0] = ch->active, v[1] = ch->base, v[2] = ch->rise[0], v[3] = ch->rise[1];
    v[4] = ch->rise_lo[0], v[5] = ch->rise_lo[1], v[6] = ch->offset[0];
    v[7] = ch->offset[1], v[8] = ch->radius, v[9] = ch->n_base, v[10] = ch->t_below[0];
    v[11] = ch->t_below[1];
}

/* A value the law keeps in a float, widened: finite and exactly a float. */
static bool is_float(double v)
{
    return isfinite(v) && (double)(float)v == v;
}

/* active 0 or 1, base a level ≥ 0, the rise's rounding error and the disc's offset and radius
 * floats (radius ≥ 0). */
int ldem__jager_check_extra(const double v[LDEM_LAW_EXTRA_VALUES])
{
    bool ok = (v[0] == 0 || v[0] == 1) && v[1] >= 0 && v[8] >= 0;
    for (unsigned a = 4; a < 9; a++)
        ok = ok && is_float(v[a]);
    return ok ? 0 : -1;
}

void ldem__jager_load_extra(void *state, const double v[LDEM_LAW_EXTRA_VALUES])
{
    ((ldem_jager_contact *)state)->chain =
        (ldem_jager_chain){v[1],         {v[2], v[3]},        {(float)v[4], (float)v[5]},
                           {(float)v[6], (float)v[7]}, (float)v[8], (uint32_t)v[0],
                           v[9],         {v[10], v[11]}};
}

int ldem__jager_history_export(const ldem_law_env *env, const void *state, ldem_law_cell *cells,
                               ldem_err *err)
{
    const ldem_jager_contact *j = state;
    const ldem_history_pool *pool = env->pool;
    if (j->nheld > LDEM_JAGER_HELD || j->nheld > j->length)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "holds %u history cells of %u",
                            j->nheld, j->length);
    const ldem_jager_params jp = {.pair = *env->pair};
    double z = j->d, n = j->n;
    uint32_t count = 0;
    for (ldem_jager_cursor q = ldem_jager_first(pool, j); q.cell; ldem_jager_next(pool, &q)) {
        if (q.pool_index >= pool->capacity || count == j->length)
            return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                                "history stack longer than its length %u or outside its pool",
                                j->length);
        uint8_t merged = q.pool_index ? pool->merged[q.pool_index]
                                      : j->held_merged[j->held_top ^ q.position];
        cells[count++] = (ldem_law_cell){z, {q.cell->w[0], q.cell->w[1]}, n, merged};
        z = q.cell->base;
        n = pool->force ? ldem_jager_cell_force(&jp, pool, &q) : 0.0;
    }
    if (count != j->length)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "history stack holds %u cells but its length says %u", count,
                            j->length);
    return LDEM_OK;
}

int ldem__jager_history_check(const ldem_pair_law *law, const void *state, uint32_t q,
                              const ldem_law_cell *cell, double above, int strict, char *why,
                              size_t why_size)
{
    const ldem_jager_contact *j = state;
    double mu = law->mu;
    if (q == 0 && cell->level != j->d) {
        snprintf(why, why_size, "history cell 0 has level %.17g, not the approach %.17g (the "
                 "top cell reaches up to the approach)", cell->level, j->d);
        return -1;
    }
    /* A version-3 law could leave a cell without width (a slip front landing on a cell's
     * bottom to within rounding): its levels need only not rise, and the import drops such
     * cells, which hold no displacement and no force. */
    bool falls = strict ? cell->level < above : cell->level <= above;
    if (q > 0 && !falls) {
        snprintf(why, why_size, "history cell %u has level %.17g; levels must fall from the "
                 "approach %.17g down to above 0", q, cell->level, j->d);
        return -1;
    }
    if (!(cell->level > 0.0)) {
        snprintf(why, why_size, "history cell %u has level %.17g (a stack's levels, and the "
                 "approach it starts from, are above 0)", q, cell->level);
        return -1;
    }
    /* |w| ≤ μ, which the slip front's search relies on (docs/jager.md §2): the law's own slopes
     * exceed it by rounding only */
    if (cell->w[0] * cell->w[0] + cell->w[1] * cell->w[1] > mu * mu * (1 + 1e-12)) {
        snprintf(why, why_size, "history cell %u has slope |w| = %.17g above the friction "
                 "coefficient %.17g", q, hypot(cell->w[0], cell->w[1]), mu);
        return -1;
    }
    return 0;
}

/* The pooled cells bottom first, each cell's base the top level of the one pushed before,
 * then the held ones, as the saved contact held them. The forces the file may list are N at
 * the levels, which the pool recomputes. A cell without width is left out. */
int ldem__jager_history_import(const ldem_law_env *env, void *state, const ldem_law_cell *cells,
                               uint32_t n, uint32_t held)
{
    ldem_history_pool *pool = env->pool;
    ldem_jager_contact *j = state;
    j->nheld = 0;
    j->held_top = 0; /* the top in held[0], the next in held[1] */
    j->top = 0;
    j->length = 0;
    double base = 0.0;
    for (uint32_t q = n; q-- > 0;) {
        ldem_history_cell cell = {base, {cells[q].w[0], cells[q].w[1]}};
        uint8_t merged = cells[q].merged;
        if (cells[q].level == base)
            continue;
        if (q < held) {
            /* the top in held[0] (held_top 0) unless a top without width was left out,
             * which leaves the next one on top in held[1] */
            j->held[q] = cell;
            j->held_merged[q] = merged;
            j->held_top = q;
            j->nheld++;
        } else {
            uint32_t i = ldem_history_push(pool, j->top);
            if (!i)
                return LDEM_ERR_NOMEM;
            pool->cell[i] = cell;
            pool->merged[i] = merged;
            if (pool->force)
                pool->force[i] = ldem_hertz_force(env->pair, base);
            j->top = i;
        }
        j->length++;
        base = cells[q].level;
    }
    return LDEM_OK;
}
