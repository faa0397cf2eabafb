/* Regressions of the Jäger law (runtime/contact/jager.c) behind checkpoints that failed to load
 * (issue 33, "checkpoints always load"), found by test_checkpoint_soak.c. Each failed on the
 * law of afcb7e2 and passes since the law was fixed.
 *
 *  1. jager_law/slip_front_on_a_cell_base_leaves_no_zero_width_cell: in jager_step_body's
 *     slip-front walk, a front found at depth < seg (1 − SLIVER_TOLERANCE) in a segment
 *     [lo, z] was pushed at zs = z − depth; when z − depth − lo is below half an ulp of lo,
 *     zs rounded to lo, and the cell the front landed in kept base lo under a top level of
 *     lo: zero width. The loader refused the stack ("levels must fall"), and the law's own
 *     invariant (tests/support/contact_fixture.c: cf_check_stack) broke. Now such a front
 *     swallows the cell. Any β.
 *  2. jager_law/merging_legs_of_equal_force_keeps_slopes_finite: merge_elastic_legs (β > 0)
 *     weights the two slopes by the force each leg carries, dividing by span = N(d) − N(base
 *     of the cell below). When the two legs together span a few ulps of the approach, N rounds
 *     to the same value at d and at that base, span = 0 and the merged slope was 0/0 = NaN;
 *     the merge test (|Δw| ≥ βμ is false for NaN) then merged it on down the elastic cells
 *     below, the next walk carried the NaN into T, hence into the bodies' forces, and the
 *     checkpoint was refused (rightly: the state was lost). Now such legs are weighted by
 *     level and the merge test stops on NaN.
 *  3. jager_law/checkpoint_after_merging_legs_of_equal_force_loads: 2. seen from a checkpoint:
 *     a world whose contact went through it wrote a file its loader refused
 *     ("history cell: value 1 is nan", or "law state: value 4 is -nan" one step later). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/contact/jager.h"
#include "ldem/sim/checkpoint.h"
#include "world_fixture.h"

/* The first cell (from the top) whose level is not below the level above it, or −1. */
static int first_zero_width(const ldem_history_pool *pool, const ldem_jager_contact *c)
{
    double above = c->d;
    for (ldem_jager_cursor q = ldem_jager_first(pool, c); q.cell; ldem_jager_next(pool, &q)) {
        if (!(q.cell->base < above))
            return (int)q.position;
        above = q.cell->base;
    }
    return -1;
}

static void pair_params(ldem_jager_params *p, double R, double beta)
{
    ldem_elastic_pair pair;
    ldem_err err;
    cr_assert_eq(ldem_elastic_pair_init(&pair, 70e9, 0.25, R, R, &err), LDEM_OK);
    cr_assert_eq(ldem_jager_params_init(p, &pair, 0.3, beta, &err), LDEM_OK);
}

static void move(const ldem_jager_params *p, ldem_history_pool *pool, ldem_jager_contact *c,
                 double d, double sx)
{
    cr_assert_eq(ldem_jager_move_to(p, pool, c, d, (double[2]){sx, 0.0}), LDEM_OK);
}

/* At a constant approach d = 1 µm (R = 1 mm glass, μ = 0.3, β = 0): load, slide by
 * a = μκ·1 nm (a slip cell 1 nm deep), slide back by b = 2a(1 − k·1e-15). The front lands at
 * depth about 1 nm·(1 − k·1e-15) in the slip cell: inside the sliver tolerance's margin for
 * k ≥ 2, and about k·1e-24 m above the cell's base, less than half an ulp of the base
 * (1.1e-22 m) for k up to ~100, so that d − depth may round onto the base. On the law as of
 * this commit 29 of the 198 values of k do (the first k = 2: d = 1e-6, the base 9.99e-7 held
 * by both the slip cell and the cell below it). */
Test(jager_law, slip_front_on_a_cell_base_leaves_no_zero_width_cell)
{
    ldem_jager_params p;
    pair_params(&p, 1e-3, 0.0);
    const double d = 1e-6, a = p.mu * p.pair.kappa * 1e-9;
    int hits = 0, first = 0;
    for (int k = 2; k < 200; k++) {
        ldem_history_pool pool;
        ldem_err err;
        cr_assert_eq(ldem_history_pool_init(&pool, 0, false, &err), LDEM_OK);
        ldem_jager_contact c;
        ldem_jager_contact_init(&c);
        move(&p, &pool, &c, d, 0.0);
        move(&p, &pool, &c, d, a);
        move(&p, &pool, &c, d, a - 2 * a * (1 - k * 1e-15));
        int at = first_zero_width(&pool, &c);
        if (at >= 0 && hits++ == 0) {
            first = k;
            ldem_jager_cursor q = ldem_jager_first(&pool, &c);
            for (int n = 0; n < at; n++)
                ldem_jager_next(&pool, &q);
            cr_log_info("k = %d: d %.17g, %u cells, cell %d has base %.17g, the level of the "
                        "cell above",
                        k, c.d, c.length, at, q.cell->base);
        }
        ldem_history_pool_free(&pool);
    }
    cr_expect_eq(hits, 0,
                 "%d of 198 reversals left a cell of zero width (the first at k = %d): the "
                 "slip front rounded onto the base of the cell it landed in",
                 hits, first);
}

/* Glass spheres of R = 0.5 mm (μ = 0.3, β = 0.1) at d0 = 0x1.fae147ae147aep-24 (0.118 µm),
 * where N(d0) = N(d0 + 1 ulp) = N(d0 + 2 ulp) in floating point. Load to d0; then two elastic
 * steps of one ulp each at slope 0.6μ: the second's leg is merged into the first's (their
 * slopes agree within βμ), over a span of no force. */
static void equal_force_legs(const ldem_jager_params *p, ldem_history_pool *pool,
                             ldem_jager_contact *c)
{
    const double d0 = 0x1.fae147ae147aep-24, d1 = nextafter(d0, 1), d2 = nextafter(d1, 1);
    cr_assert(ldem_hertz_force(&p->pair, d0) == ldem_hertz_force(&p->pair, d2),
              "the premise: N equal over the three levels");
    const double a = p->pair.kappa * 0.6 * p->mu * (d1 - d0);
    move(p, pool, c, d0, 0.0);
    move(p, pool, c, d1, a);
    move(p, pool, c, d2, 2 * a);
}

static int slopes_finite(const ldem_jager_params *p, const ldem_history_pool *pool,
                         const ldem_jager_contact *c)
{
    for (ldem_jager_cursor q = ldem_jager_first(pool, c); q.cell; ldem_jager_next(pool, &q))
        if (!(hypot(q.cell->w[0], q.cell->w[1]) <= p->mu * (1 + 1e-12)))
            return 0;
    return 1;
}

Test(jager_law, merging_legs_of_equal_force_keeps_slopes_finite)
{
    ldem_jager_params p;
    pair_params(&p, 5e-4, 0.1);
    ldem_history_pool pool;
    ldem_err err;
    cr_assert_eq(ldem_history_pool_init(&pool, 0, false, &err), LDEM_OK);
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    equal_force_legs(&p, &pool, &c);
    int finite = slopes_finite(&p, &pool, &c);
    ldem_jager_cursor q = ldem_jager_first(&pool, &c);
    cr_log_info("after the merge: %u cells, top slope (%g, %g)", c.length, q.cell->w[0],
                q.cell->w[1]);
    cr_expect(finite, "merging legs that carry no force left a slope of |w| > mu or NaN");
    /* Slide back by 1 nm·μκ: the front walks the stack, T must stay finite. */
    move(&p, &pool, &c, c.d, -p.mu * p.pair.kappa * 1e-9);
    cr_expect(isfinite(c.t[0]) && isfinite(c.t[1]), "T = (%g, %g) after a slide", c.t[0],
              c.t[1]);
    ldem_history_pool_free(&pool);
}

Test(jager_law, checkpoint_after_merging_legs_of_equal_force_loads)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ckpt-jager-law-merge.ldc", LDEM_TEST_TMP);
    ldem_world a, b;
    for (ldem_world *w = &a; w; w = w == &a ? &b : NULL) {
        wf_world(w, LDEM_LAW_HERTZ_JAGER);
        w->laws[0].p[LDEM_JAGER_P_BETA] = 0.1;
        wf_add_sphere(w, ldem_vec3_make(0, 0, 0), 5e-4, ldem_vec3_zero());
        wf_add_sphere(w, ldem_vec3_make(1e-3, 0, 0), 5e-4, ldem_vec3_zero());
    }
    a.contacts = calloc(1, sizeof *a.contacts);
    cr_assert(a.contacts);
    a.ncontacts = a.contacts_capacity = 1;
    ldem_contact *c = &a.contacts[0];
    c->i = 0, c->j = 1, c->r1 = c->r2 = 5e-4;
    ldem_jager_params p;
    pair_params(&p, 5e-4, 0.1);
    c->pair = p.pair;
    equal_force_legs(&p, &a.pools[0], &JAGER_STATE(c));
    ldem_err err;
    cr_assert_eq(ldem_checkpoint_save(path, &a, NULL, &err), LDEM_OK, "%s", err.msg);
    ldem_err_clear(&err);
    cr_expect_eq(ldem_checkpoint_load(path, &b, NULL, &err), LDEM_OK,
                 "the checkpoint written after the merge was refused: %s", err.msg);
    ldem_world_free(&a);
    ldem_world_free(&b);
}
