/* ldem/contact/jager.h — Kuhn's implementation of Jäger's exact Cattaneo–Mindlin–
 * Deresiewicz tangential force for arbitrary 3-D histories (docs/jager.md).
 *
 * Inputs are DEM-usual total quantities in the contact frame: the normal approach d and the
 * 2-vector tangential displacement s. Each call moves the contact along one straight line in
 * (d, s) and solves that whole movement exactly (no incremental stiffness): elastic legs,
 * annular slip with repetitive elimination of swallowed legs, normal unloading, gross sliding
 * and loss of contact. In collinear histories the result is the Mindlin–Deresiewicz /
 * method-of-dimensionality-reduction solution whatever the step size.
 *
 * State: a few doubles per contact plus a stack of history cells, the top two held in the
 * contact itself and the rest in a pool shared by all contacts (ldem/contact/history.h; why
 * the top two: below, at ldem_jager_contact). A contact that is all zeros
 * (ldem_jager_contact_init) is unloaded and not in contact. The invariants of the state and
 * the lossless compression of the stack (legs that agree to rounding are one leg; no force
 * changes by more than 5e-13 μN) are in docs/jager.md §2 and §5.
 *
 * Energy (opt-in, params.track_energy, off after ldem_jager_params_init because it doubles the
 * cost of a slip step): the stored tangential elastic energy is the energy
 * of the MDR springs the stack describes, W = G* ∫|u(x)|² dx over the contact width, computed
 * on demand in O(stack). The dissipated work is accumulated per step: springs that slip
 * contribute their final traction times their slip (exact for steps at constant d, where a
 * slipping spring's traction is constant; first-order in Δd otherwise), springs that leave
 * the contact release the energy they hold when they leave. It is never negative in collinear
 * histories; in 3-D the chord rule (docs/jager.md §4) is not Coulomb-consistent spring by
 * spring, and a step whose slip work would come out negative counts zero.
 */
#ifndef LDEM_CONTACT_JAGER_H
#define LDEM_CONTACT_JAGER_H

#include "ldem/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_jager_params {
    ldem_elastic_pair pair;
    double mu;            /* friction coefficient, > 0 */
    double beta;          /* Kuhn §3.1 approximation: merge adjacent elastic legs whose slopes
                           * differ by less than beta·mu (0 = exact; typical 0.1–0.2) */
    bool track_energy;    /* accumulate dissipated work: a Gauss quadrature per slipped leg */
    bool full_history;    /* keep every leg: no lossless compression (to measure what it
                           * saves; false, the default, merges legs as docs/jager.md §5 proves
                           * harmless) */
} ldem_jager_params;

/* Lossless compression's tolerance ε: merged legs keep every spring of the contact within
 * ε·μ·z (z its level) of where the uncompressed history puts it, which bounds the change of
 * any later tangential force by ε/2 · μN in collinear histories (docs/jager.md §5). */
#define LDEM_JAGER_LOSSLESS_TOLERANCE 1e-12

/* Flags of ldem_jager_step_pair. */
enum { LDEM_JAGER_ENERGY = 1u, LDEM_JAGER_FULL_HISTORY = 2u };

/* The stack's top cells are held in the contact itself, the rest in the pool. A DEM step
 * almost always swallows the top slip cell and finds its slip front in the cell below, then
 * pushes a new top: with those two cells in the contact record, which a DEM step streams
 * anyway, such a step touches no pool memory rather than waiting on two or three scattered
 * pool loads, each a miss to DRAM once the pools outgrow the cache (BENCHMARKS.md). The
 * pool is reached only when a step pushes while both
 * are held (the lower one moves to the pool), walks deeper than the held ones, or lands its
 * slip front in a pooled cell (which then moves up into the contact). Popping a held cell
 * moves nothing back from the pool, so `nheld` may be below both 2 and `length`. */
enum { LDEM_JAGER_HELD = 2 };

/* The leg lossless compression is growing (docs/jager.md §5): merged from
 * consecutive pristine legs, the one below the top or the top itself. Its slope is the chord
 * from its base to its top, kept as the compensated sum of the merged legs' displacements, so
 * that a million merges do not drift it; the disc is where the slope may still go without a
 * merged junction leaving the tolerance. Only elastic pushes grow it: any other step ends it
 * (active = 0), and the leg then stays as it is. */
typedef struct ldem_jager_chain {
    double base;          /* the leg's bottom level */
    double rise[2];       /* Σ w_k Δz_k of its legs: the scaled displacement across it */
    float rise_lo[2];     /* the rounding error of that sum (rise + rise_lo is the sum) */
    float offset[2];      /* the disc's centre minus the leg's slope, rounded */
    float radius;         /* the disc's radius, rounded down */
    uint32_t active;      /* 1 while the leg can grow */
    double n_base;        /* N(base) */
    double t_below[2];    /* the force of the legs below: T = t_below + w (N(d) − n_base), set
                           * anew at each merge rather than corrected, which a million merges
                           * would drift */
} ldem_jager_chain;

typedef struct ldem_jager_contact {
    double d;             /* current approach; ≤ 0 means not in contact */
    double s[2];          /* last total tangential displacement (contact frame) */
    double n;             /* normal force N(d) */
    double t[2];          /* tangential force, same sign as s in virgin loading */
    double dissipated;    /* cumulative frictional work (with track_energy) */
    ldem_history_cell held[LDEM_JAGER_HELD]; /* the top nheld cells: the top in
                                              * held[held_top], the next in the other slot
                                              * (the force cache covers pooled cells only) */
    uint32_t nheld;       /* cells held here (0..LDEM_JAGER_HELD) */
    uint32_t top;         /* pool index of the cell below the held ones; 0 = none */
    uint32_t length;      /* number of cells in the stack, held and pooled */
    uint32_t held_top;    /* 0 or 1: a push writes the free slot and flips it, a pop flips
                           * it back, so held cells never move */
    uint8_t held_merged[LDEM_JAGER_HELD]; /* the held cells' `merged` flags, slot by slot
                                           * (ldem_history_pool) */
    ldem_jager_chain chain; /* last: only a push that may merge reads it */
} ldem_jager_contact;

/* A walk over a contact's cells, top first, without changing them:
 *   for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k))
 * k.cell is the cell and k.pool_index its pool index (0 for a cell held in the contact). */
typedef struct ldem_jager_cursor {
    const ldem_history_cell *cell;
    uint32_t pool_index;
    uint32_t position;    /* 0 for the top */
    const ldem_jager_contact *contact;
} ldem_jager_cursor;

/* Check and store the parameters: mu > 0 and finite, 0 ≤ beta ≤ 2. */
LDEM_API int ldem_jager_params_init(ldem_jager_params *p, const ldem_elastic_pair *pair, double mu,
                                    double beta, ldem_err *err);

/* The unloaded, separated contact (all zeros). */
LDEM_API void ldem_jager_contact_init(ldem_jager_contact *c);

/* Move from the current state straight to (d1, c->s + ds). Returns LDEM_OK, or
 * LDEM_ERR_NOMEM if the pool could not grow (the contact is then cleared, separated with
 * d = 0, and reports zero force). d1 ≤ 0 clears the history and gives zero force. If the contact was separated, only
 * the in-contact fraction d1/(d1 − d) of ds counts (first touch inside the step). */
LDEM_API int ldem_jager_step(const ldem_jager_params *p, ldem_history_pool *pool,
                             ldem_jager_contact *c, double d1, const double ds[2]);

/* ldem_jager_step with the parameters {*pair, mu, beta, flags & LDEM_JAGER_ENERGY,
 * flags & LDEM_JAGER_FULL_HISTORY} given apart, bit for bit: a caller that keeps the pair
 * elsewhere (a DEM contact, in its record) need not copy it into a ldem_jager_params every
 * step. */
LDEM_API int ldem_jager_step_pair(const ldem_elastic_pair *pair, double mu, double beta,
                                  unsigned flags, ldem_history_pool *pool, ldem_jager_contact *c,
                                  double d1, const double ds[2]);

/* ldem_jager_step_pair, then N and T of the new state out (the Jäger law's step in its ops
 * table, law_hertz_jager.c). */
int ldem__jager_law_step(const ldem_elastic_pair *pair, double mu, double beta, unsigned flags,
                         ldem_history_pool *pool, ldem_jager_contact *c, double d1,
                         const double ds[2], double *normal, double t[2]);

/* The same, given the total tangential displacement s1 instead of the increment. */
LDEM_API int ldem_jager_move_to(const ldem_jager_params *p, ldem_history_pool *pool,
                                ldem_jager_contact *c, double d1, const double s1[2]);

/* Stored tangential elastic energy of the current stack (exact for the MDR springs). */
LDEM_API double ldem_jager_stored_energy(const ldem_jager_params *p, const ldem_history_pool *pool,
                                         const ldem_jager_contact *c);

/* T recomputed from the stack as Σ w_k (N_k − N_{k−1}), for checking the carried value. */
LDEM_API void ldem_jager_force_from_stack(const ldem_jager_params *p, const ldem_history_pool *pool,
                                          const ldem_jager_contact *c, double t[2]);

/* The elastic tangential shift s_el = κ Σ w_k (z_k − z_{k−1}) the stack holds. */
LDEM_API void ldem_jager_elastic_shift(const ldem_jager_params *p, const ldem_history_pool *pool,
                                       const ldem_jager_contact *c, double s_el[2]);

/* Give the contact's cells back to the pool and reset it to the separated state (the
 * cumulative dissipation is kept). */
LDEM_API void ldem_jager_release(ldem_history_pool *pool, ldem_jager_contact *c);

/* The top cell of the walk (cell NULL for an empty stack), and the next one down. */
static inline ldem_jager_cursor ldem_jager_first(const ldem_history_pool *pool,
                                                 const ldem_jager_contact *c)
{
    ldem_jager_cursor k = {NULL, 0, 0, c};
    if (c->nheld) {
        k.cell = &c->held[c->held_top];
    } else if (c->top) {
        k.pool_index = c->top;
        k.cell = &pool->cell[c->top];
    }
    return k;
}

static inline void ldem_jager_next(const ldem_history_pool *pool, ldem_jager_cursor *k)
{
    const ldem_jager_contact *c = k->contact;
    uint32_t p = ++k->position;
    if (p < c->nheld) {
        k->cell = &c->held[c->held_top ^ p];
        return;
    }
    uint32_t i = p == c->nheld ? c->top : pool->next[k->pool_index];
    k->pool_index = i;
    k->cell = i ? &pool->cell[i] : NULL;
}

/* N at the bottom level of the cell under the cursor: the pool's cached force when it keeps
 * one for that cell, else computed. */
LDEM_API double ldem_jager_cell_force(const ldem_jager_params *p, const ldem_history_pool *pool,
                                      const ldem_jager_cursor *k);

#ifdef __cplusplus
}
#endif
#endif
