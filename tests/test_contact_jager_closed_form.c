/* The Jäger law (ldem/contact/jager.h) against closed-form Cattaneo–Mindlin–Deresiewicz
 * solutions, each derived here in the MDR picture of docs/jager.md §2: springs at levels z
 * carry u(z) = κ∫_z^d w(h) dh, T = Σ w_k (N_k − N_{k−1}), slip cells have |w| = μ.
 *
 * In collinear histories each straight step is solved exactly (docs/jager.md §3), so every
 * comparison holds to round-off whether a branch is taken in one step or in 1000: the
 * requirement is 1e-10 relative. Where the exact T is zero (a reversal passing through the
 * origin) the error is measured against 1e-3·μN instead of |T|.
 *
 * Notation: d approach, s tangential displacement along a fixed unit vector e of the contact
 * plane, s_max = μκd, f(x) = μN[1 − (1 − x/s_max)^{3/2}] the virgin curve at constant d. */
#include <criterion/criterion.h>
#include <math.h>

#include "ldem/contact/jager.h"
#include "support/contact_fixture.h"

#define D0 1e-6 /* a realistic approach: N ≈ 2.2 N for the glass pair */

/* A tangential direction that is not a coordinate axis, so both components are exercised. */
static const double EX = 0.6, EY = 0.8;

typedef struct env {
    cf_consts k;
    ldem_jager_params p;
    ldem_history_pool pool;
} env;

static void env_init(env *e, const cf_material *m)
{
    e->k = cf_consts_of(m);
    cf_params(m, 0.0, false, &e->p);
    cf_pool(&e->pool, 16, false);
}

static void move(env *e, ldem_jager_contact *c, double d, double s)
{
    double s1[2] = {s * EX, s * EY};
    cr_assert_eq(ldem_jager_move_to(&e->p, &e->pool, c, d, s1), LDEM_OK);
}

/* |T − T_exact e| relative to |T_exact|, or to 1e-3 μN where T_exact is nearly zero. */
static double t_err(const ldem_jager_contact *c, double t_exact, double mun)
{
    double dt = hypot(c->t[0] - t_exact * EX, c->t[1] - t_exact * EY);
    return dt / fmax(fabs(t_exact), 1e-3 * mun);
}

/* ---- Cattaneo–Mindlin loading, Masing unloading and reloading at constant d ----
 *
 * Virgin: the springs above z* = d − s/(μκ) slip (w = μ), those below stick at u = s, so
 * T = μ(N(d) − N(z*)) = f(s).
 * Unloading from (s*, T*) by Δ = s* − s ≤ 2 s_max: a reverse slip cell −μ grows on (z2, d);
 * u(0) = μκ[(z2 − z1) − (d − z2)] with s* = μκ(d − z1) gives d − z2 = Δ/(2μκ), and
 * T = T* − 2μ(N(d) − N(z2)) = T* − 2 f(Δ/2).
 * Reloading from (s_r, T_r) by Δ' = s − s_r is the mirror image: a cell +μ grows on (z3, d)
 * above the −μ cell, and the same algebra with the signs flipped gives d − z3 = Δ'/(2μκ) and
 * T = T_r + 2 f(Δ'/2), until s returns to the reversal point of the branch it started from
 * (z3 reaches z2, the cell −μ is swallowed whole: T = T*, memory erased) and the virgin curve
 * f(s) resumes beyond it. */

enum branch_kind { VIRGIN, DOWN, UP };

typedef struct branch {
    double s_from, s_to; /* in units of s_max */
    enum branch_kind kind;
} branch;

static double branch_t(const env *e, enum branch_kind kind, double s, double s_rev, double t_rev)
{
    if (kind == VIRGIN)
        return cf_cattaneo(&e->k, D0, s);
    if (kind == DOWN)
        return t_rev - 2 * cf_cattaneo(&e->k, D0, (s_rev - s) / 2);
    return t_rev + 2 * cf_cattaneo(&e->k, D0, (s - s_rev) / 2);
}

static double cattaneo_loop(const cf_material *m, int substeps)
{
    env e;
    env_init(&e, m);
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    move(&e, &c, D0, 0.0);
    double n0 = cf_hertz_n(&e.k, D0), mun = e.k.mu * n0, smax = cf_smax(&e.k, D0);
    cr_assert_leq(fabs(c.n - n0), 1e-14 * n0);
    cr_assert(c.t[0] == 0 && c.t[1] == 0 && c.length == 1);

    /* 0 → 0.7 → −0.7 → 0.7 (closes the loop on T*) → 0.85 (virgin again) → 0.3 → 0.85
     * (inner loop closes) → 0.95 (virgin). */
    const branch path[] = {
        {0.0, 0.7, VIRGIN}, {0.7, -0.7, DOWN}, {-0.7, 0.7, UP},      {0.7, 0.85, VIRGIN},
        {0.85, 0.3, DOWN},  {0.3, 0.85, UP},   {0.85, 0.95, VIRGIN},
    };
    /* Stack lengths: {0, μ} after virgin loading, {0, μ, −μ} after a reversal. A branch
     * whose slip front ends exactly on an old level (the full ±0.7 swing: d − z2 = Δ/(2μκ)
     * = 0.7d = d − z1; and every reloading that closes its loop) may keep a zero-width or a
     * coincident slip cell depending on round-off (either is exact for T): "2 or 3" (−1). */
    const int expect_len[] = {2, -1, -1, 2, 3, -1, 2};
    double worst = 0, s_rev = 0, t_rev = 0, t_end = 0;
    for (size_t b = 0; b < sizeof path / sizeof *path; b++) {
        double sa = path[b].s_from * smax, sb = path[b].s_to * smax;
        if (path[b].kind != VIRGIN) {
            /* The reversal point is the closed-form end of the previous branch. */
            s_rev = sa;
            t_rev = t_end;
        }
        for (int j = 1; j <= substeps; j++) {
            double s = j == substeps ? sb : sa + (sb - sa) * j / substeps;
            move(&e, &c, D0, s);
            double want = branch_t(&e, path[b].kind, s, s_rev, t_rev);
            worst = fmax(worst, t_err(&c, want, mun));
            t_end = want;
        }
        if (expect_len[b] > 0)
            cr_assert_eq((int)c.length, expect_len[b], "branch %zu: %u cells, expected %d", b,
                         c.length, expect_len[b]);
        else
            cr_assert(c.length == 2 || c.length == 3, "branch %zu: %u cells, expected 2 or 3", b,
                      c.length);
        cf_check_stack(&e.p, &e.pool, &c, 1e-13);
        /* No gross sliding anywhere on this path, so the elastic shift u(0) is all of s. */
        double sel[2];
        ldem_jager_elastic_shift(&e.p, &e.pool, &c, sel);
        cr_assert_leq(hypot(sel[0] - sb * EX, sel[1] - sb * EY), 1e-12 * smax,
                      "branch %zu: elastic shift (%g, %g) vs s = %g", b, sel[0], sel[1], sb);
    }
    ldem_jager_release(&e.pool, &c);
    cr_assert_eq(e.pool.live, 0u);
    ldem_history_pool_free(&e.pool);
    return worst;
}

Test(contact_jager, cattaneo_mindlin_masing_one_step)
{
    double g = cattaneo_loop(&CF_GLASS, 1), s = cattaneo_loop(&CF_STEEL, 1);
    cr_log_info("Cattaneo-Mindlin/Masing in 1 step a branch: glass %.2g, steel %.2g", g, s);
    cr_assert_leq(fmax(g, s), 1e-10, "max rel err %g", fmax(g, s));
}

Test(contact_jager, cattaneo_mindlin_masing_1000_substeps)
{
    double g = cattaneo_loop(&CF_GLASS, 1000), s = cattaneo_loop(&CF_STEEL, 1000);
    cr_log_info("Cattaneo-Mindlin/Masing in 1000 substeps: glass %.2g, steel %.2g", g, s);
    cr_assert_leq(fmax(g, s), 1e-10, "max rel err %g", fmax(g, s));
}

/* The virgin curve point by point: from the same touched-down state, one step to each s. */
Test(contact_jager, cattaneo_virgin_curve_single_steps)
{
    env e;
    env_init(&e, &CF_GLASS);
    double mun = e.k.mu * cf_hertz_n(&e.k, D0), smax = cf_smax(&e.k, D0), worst = 0;
    for (int i = 1; i <= 200; i++) {
        double s = smax * i / 200.0;
        ldem_jager_contact c;
        ldem_jager_contact_init(&c);
        move(&e, &c, D0, 0.0);
        move(&e, &c, D0, s);
        worst = fmax(worst, t_err(&c, cf_cattaneo(&e.k, D0, s), mun));
        ldem_jager_release(&e.pool, &c);
    }
    cr_log_info("virgin curve, single steps: max rel err %.2g", worst);
    cr_assert_leq(worst, 1e-10, "max rel err %g", worst);
    ldem_history_pool_free(&e.pool);
}

/* ---- Mindlin–Deresiewicz §17: proportional oblique loading and reversal, dT/dN = 2μ ----
 *
 * Loading from (N0, T = 0) with T = 2μ(N − N0): the springs touched since N0 and the outer
 * ones slip, so the stack is {w = 0 on (0, z*), w = μ on (z*, d)} with
 *   T = μ(N − N(z*))  ⇒  N(z*) = 2N0 − N,       s = u(0) = μκ(d − z*).
 * Every such state is reached exactly by a straight (d, s) step from any earlier one: the
 * step pops the slip cell (B < 0) and the new front solves |c| = μ(d − z*) with c = s/κ.
 * Reversal from N1 with T = T1 − 2μ(N1 − N) = 2μ(N − N0): a reverse slip cell −μ on (z**, d),
 * stack {0 on (0, z1*), μ on (z1*, z**), −μ on (z**, d)}, with z1* = z*(N1):
 *   T = μ(2N(z**) − N(z1*) − N) = 2μ(N − N0)  ⇒  N(z**) = (3N − N1)/2,
 *   s = u(0) = μκ(2z** − z1* − d).
 * This holds while z** > z1*, i.e. N > (4N0 − N1)/3 = 0.7 N0 for N1 = 1.9 N0, so it covers the
 * way back to N0. The states (d, s) come from these formulas with d = (N/c_N)^{2/3}
 * (cf_md17 in support/contact_fixture.c). */

/* Runs the §17 sequence with `per_leg` force-proportional states on each of the two legs,
 * each state one straight move; returns the max error relative to |T| (to μN0 at T = 0). */
static double md17(const cf_material *m, int per_leg, int *lengths)
{
    env e;
    env_init(&e, m);
    double n0 = cf_hertz_n(&e.k, D0), n1 = 1.9 * n0, mun0 = e.k.mu * n0, worst = 0;
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    move(&e, &c, D0, 0.0);
    int idx = 0;
    if (lengths)
        lengths[idx++] = (int)c.length;
    for (int leg = 0; leg < 2; leg++) {
        for (int j = 1; j <= per_leg; j++) {
            double f = (double)j / per_leg;
            cf_md_state st = leg == 0 ? cf_md17(&e.k, n0, n1, n0 + f * (n1 - n0), false)
                                      : cf_md17(&e.k, n0, n1, n1 - f * (n1 - n0), true);
            move(&e, &c, st.d, st.s);
            double dt = hypot(c.t[0] - st.t * EX, c.t[1] - st.t * EY);
            worst = fmax(worst, dt / (fabs(st.t) > 0 ? fabs(st.t) : mun0));
            cr_assert_leq(fabs(c.n - st.n), 1e-12 * st.n, "N %g vs %g", c.n, st.n);
            if (lengths)
                lengths[idx++] = (int)c.length;
        }
    }
    cf_check_stack(&e.p, &e.pool, &c, 1e-13);
    ldem_jager_release(&e.pool, &c);
    ldem_history_pool_free(&e.pool);
    return worst;
}

/* Kuhn's Fig. 8a: two straight displacement steps up (N0 → 1.45 N0 → 1.9 N0) and two back
 * (→ 1.45 N0 → N0). Expected T: 0.9, 1.8, 0.9, 0 μN0; stack lengths 1 → 2 → 2 → 3 → 3 (the
 * cells listed above). */
Test(contact_jager, mindlin_deresiewicz_s17_four_steps)
{
    int len[5];
    double g = md17(&CF_GLASS, 2, len);
    int want[5] = {1, 2, 2, 3, 3};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(len[i], want[i], "state %d: %d cells, expected %d", i, len[i], want[i]);
    double s = md17(&CF_STEEL, 2, NULL);
    cr_log_info("MD s17 in 4 steps: max rel err glass %.2g, steel %.2g", g, s);
    cr_assert_leq(fmax(g, s), 1e-10, "max rel err %g", fmax(g, s));
}

/* The same path through 200 states a leg: every state is again exact. */
Test(contact_jager, mindlin_deresiewicz_s17_fine)
{
    double g = md17(&CF_GLASS, 200, NULL), s = md17(&CF_STEEL, 200, NULL);
    cr_log_info("MD s17 in 400 steps: max rel err glass %.2g, steel %.2g", g, s);
    cr_assert_leq(fmax(g, s), 1e-10, "max rel err %g", fmax(g, s));
}

/* ---- Gross sliding ----
 * Beyond s_max every spring slips: one cell μ on (0, d), T = μN. Reversal from the sliding
 * state is Masing from (s_g, μN): T = μN − 2f(Δ/2) for Δ ≤ 2 s_max, then −μN. */
Test(contact_jager, gross_sliding_and_reversal)
{
    env e;
    env_init(&e, &CF_GLASS);
    double n0 = cf_hertz_n(&e.k, D0), mun = e.k.mu * n0, smax = cf_smax(&e.k, D0);
    double worst_slide = 0, worst_rev = 0;
    for (int substeps = 1; substeps <= 1000; substeps *= 1000) {
        ldem_jager_contact c;
        ldem_jager_contact_init(&c);
        move(&e, &c, D0, 0.0);
        /* Slide to 1.5 s_max, then on to 3 s_max. */
        for (int j = 1; j <= substeps; j++) {
            move(&e, &c, D0, 1.5 * smax * j / substeps);
            if (1.5 * j / substeps >= 1.0) {
                worst_slide = fmax(worst_slide, t_err(&c, mun, mun));
                cr_assert_eq(c.length, 1u, "gross sliding must collapse the stack to one cell");
            }
        }
        for (int j = 1; j <= substeps; j++) {
            move(&e, &c, D0, 1.5 * smax + 1.5 * smax * j / substeps);
            worst_slide = fmax(worst_slide, t_err(&c, mun, mun));
            cr_assert_eq(c.length, 1u);
        }
        /* Reverse by 2.5 s_max: Masing down to −μN at Δ = 2 s_max, then sliding backwards. */
        double sg = 3 * smax;
        for (int j = 1; j <= substeps; j++) {
            double delta = 2.5 * smax * j / substeps;
            move(&e, &c, D0, sg - delta);
            double want = delta <= 2 * smax ? mun - 2 * cf_cattaneo(&e.k, D0, delta / 2) : -mun;
            worst_rev = fmax(worst_rev, t_err(&c, want, mun));
        }
        cr_assert_eq(c.length, 1u, "sliding backwards is again one cell");
        /* One slip cell −μê on (0, d): u(0) = −μκd = −s_max (the rest of s was slid off). */
        double sel[2];
        ldem_jager_elastic_shift(&e.p, &e.pool, &c, sel);
        cr_assert_leq(hypot(sel[0] + smax * EX, sel[1] + smax * EY), 1e-12 * smax,
                      "elastic shift after sliding (%g, %g)", sel[0], sel[1]);
        cf_check_stack(&e.p, &e.pool, &c, 1e-13);
        ldem_jager_release(&e.pool, &c);
    }
    /* Each reversal amount in one step from a fresh sliding state. */
    for (int i = 1; i <= 50; i++) {
        double delta = 2.5 * smax * i / 50;
        ldem_jager_contact c;
        ldem_jager_contact_init(&c);
        move(&e, &c, D0, 0.0);
        move(&e, &c, D0, 2 * smax);
        move(&e, &c, D0, 2 * smax - delta);
        double want = delta <= 2 * smax ? mun - 2 * cf_cattaneo(&e.k, D0, delta / 2) : -mun;
        worst_rev = fmax(worst_rev, t_err(&c, want, mun));
        ldem_jager_release(&e.pool, &c);
    }
    cr_log_info("gross sliding |T| = muN: max rel err %.2g; reversal: %.2g", worst_slide,
                worst_rev);
    cr_assert_leq(worst_slide, 1e-12, "sliding: max rel err %g", worst_slide);
    cr_assert_leq(worst_rev, 1e-10, "reversal from sliding: max rel err %g", worst_rev);
    ldem_history_pool_free(&e.pool);
}

/* A move perpendicular to the sliding direction from the gross-sliding state (3-D). The stack
 * is one slip cell μê on (0, d); c·w = 0 gives B = 0, A = 0, so the cell is swallowed and the
 * new slip cell points along the chord c = Δs/κ + μ d ê (docs/jager.md §3–§4), i.e. along
 * s_max ê + Δs: |T| = μN, T ∥ s_max ê + Δs. Kuhn's 45° example is Δs = s_max ⊥ ê. */
Test(contact_jager, gross_sliding_turn_follows_chord)
{
    env e;
    env_init(&e, &CF_GLASS);
    double mun = e.k.mu * cf_hertz_n(&e.k, D0), smax = cf_smax(&e.k, D0), worst = 0;
    const double fracs[] = {1e-3, 0.1, 0.5, 1.0, 3.0};
    for (size_t i = 0; i < sizeof fracs / sizeof *fracs; i++) {
        ldem_jager_contact c;
        ldem_jager_contact_init(&c);
        move(&e, &c, D0, 0.0);
        move(&e, &c, D0, 2 * smax);
        double ds[2] = {-fracs[i] * smax * EY, fracs[i] * smax * EX}; /* ⊥ ê */
        cr_assert_eq(ldem_jager_step(&e.p, &e.pool, &c, D0, ds), LDEM_OK);
        double vx = smax * EX + ds[0], vy = smax * EY + ds[1], v = hypot(vx, vy);
        double err = hypot(c.t[0] - mun * vx / v, c.t[1] - mun * vy / v) / mun;
        worst = fmax(worst, err);
        cr_assert_eq(c.length, 1u);
        ldem_jager_release(&e.pool, &c);
    }
    cr_log_info("gross sliding turn: max err %.2g muN", worst);
    cr_assert_leq(worst, 1e-12, "max err %g muN", worst);
    ldem_history_pool_free(&e.pool);
}

/* ---- Normal unloading under tangential load (docs/jager.md §3) ----
 * After Cattaneo loading to s at d0, unloading the normal at constant s: the slip cells stay
 * on their shrinking bound μκ(d − z) and the sticking springs (u = s) start slipping once
 * d − z < s/(μκ), so the profile is the virgin one at the current d:
 *   T = μ[N(d) − N(d − s/(μκ))]        while d > s/(μκ),
 *   T = μN(d), one cell                 once d ≤ s/(μκ) (the whole contact slides),
 * and at d ≤ 0 the history is cleared (N = T = 0, length 0). Touching down again at the same
 * s starts a virgin contact: N = N(d), T = 0, and a further move Δ gives f(Δ). */
static double unload_expected(const cf_consts *k, double s, double d)
{
    double zs = d - s / (k->mu * k->kappa);
    return zs > 0 ? k->mu * (cf_hertz_n(k, d) - cf_hertz_n(k, zs)) : k->mu * cf_hertz_n(k, d);
}

static double normal_unloading(int substeps, bool one_jump)
{
    env e;
    env_init(&e, &CF_GLASS);
    double s = 0.6 * cf_smax(&e.k, D0), worst = 0;
    /* Targets: partial slip down to 0.62 d0 (> 0.6 d0), then full sliding. */
    const double targets[] = {0.95, 0.8, 0.7, 0.65, 0.62, 0.55, 0.3, 0.05};
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    move(&e, &c, D0, 0.0);
    move(&e, &c, D0, s);
    double d_prev = D0;
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        double d1 = targets[i] * D0;
        if (one_jump) { /* a fresh contact, one straight step from d0 to d1 */
            ldem_jager_release(&e.pool, &c);
            ldem_jager_contact_init(&c);
            move(&e, &c, D0, 0.0);
            move(&e, &c, D0, s);
            d_prev = D0;
        }
        for (int j = 1; j <= substeps; j++) {
            double d = j == substeps ? d1 : d_prev + (d1 - d_prev) * j / substeps;
            move(&e, &c, d, s);
            double mun = e.k.mu * cf_hertz_n(&e.k, d);
            worst = fmax(worst, t_err(&c, unload_expected(&e.k, s, d), mun));
            cr_assert_leq(fabs(c.n - cf_hertz_n(&e.k, d)), 1e-14 * cf_hertz_n(&e.k, d));
        }
        if (targets[i] <= 0.6)
            cr_assert_eq(c.length, 1u, "d = %g d0: whole contact slides, one cell", targets[i]);
        cf_check_stack(&e.p, &e.pool, &c, 1e-13);
        d_prev = d1;
    }
    /* Loss of contact. */
    move(&e, &c, -1e-9, s);
    cr_assert(c.length == 0 && c.top == 0 && c.n == 0 && c.t[0] == 0 && c.t[1] == 0,
              "loss of contact must clear: length %u N %g T (%g, %g)", c.length, c.n, c.t[0],
              c.t[1]);
    cr_assert_eq(e.pool.live, 0u, "the cleared cells must return to the pool");
    /* Re-contact at the same s: virgin. */
    move(&e, &c, D0, s);
    cr_assert(c.t[0] == 0 && c.t[1] == 0 && c.length == 1);
    cr_assert_leq(fabs(c.n - cf_hertz_n(&e.k, D0)), 1e-14 * c.n);
    double mun0 = e.k.mu * cf_hertz_n(&e.k, D0), delta = 0.5 * cf_smax(&e.k, D0);
    for (int j = 1; j <= substeps; j++) {
        double dd = j == substeps ? delta : delta * j / substeps;
        move(&e, &c, D0, s + dd);
        worst = fmax(worst, t_err(&c, cf_cattaneo(&e.k, D0, dd), mun0));
    }
    ldem_jager_release(&e.pool, &c);
    ldem_history_pool_free(&e.pool);
    return worst;
}

Test(contact_jager, normal_unloading_under_tangential_load)
{
    double a = normal_unloading(1, false), b = normal_unloading(1, true);
    double m = normal_unloading(1000, false);
    cr_log_info("normal unloading at constant s: chained %.2g, one jump %.2g, 1000 substeps "
                "%.2g",
                a, b, m);
    cr_assert_leq(fmax(a, fmax(b, m)), 1e-10, "max rel err %g", fmax(a, fmax(b, m)));
}

/* Touch-down inside a step (docs/jager.md §7): from d < 0 to d1 > 0 only the fraction
 * d1/(d1 − d0) of Δs counts; the in-contact part of a straight move from the surface is an
 * elastic step (|c| ≤ μΔd) or a virgin Cattaneo-like slip; checked against the same move
 * started at d = 0 with the reduced Δs. */
Test(contact_jager, first_touch_inside_a_step)
{
    env e;
    env_init(&e, &CF_GLASS);
    const double d_before = -0.5 * D0, d1 = D0, frac = d1 / (d1 - d_before);
    const double moves[] = {0.1, 1.0, 5.0}; /* in units of s_max(d1) */
    for (size_t i = 0; i < 3; i++) {
        double ds = moves[i] * cf_smax(&e.k, d1);
        ldem_jager_contact a, b;
        ldem_jager_contact_init(&a);
        ldem_jager_contact_init(&b);
        move(&e, &a, d_before, 0.0);
        move(&e, &a, d1, ds);
        move(&e, &b, 0.0, 0.0);
        move(&e, &b, d1, frac * ds);
        double mun = e.k.mu * cf_hertz_n(&e.k, d1);
        cr_assert_leq(hypot(a.t[0] - b.t[0], a.t[1] - b.t[1]), 1e-13 * mun,
                      "move %g: T (%g, %g) vs (%g, %g)", moves[i], a.t[0], a.t[1], b.t[0], b.t[1]);
        /* Elastic touch-down: w = c/Δd on the whole contact, T = w N(d1) with w = Δs'/(κd1)
         * as long as |Δs'| ≤ μκd1. */
        if (frac * ds <= cf_smax(&e.k, d1)) {
            double want = frac * ds / (e.k.kappa * d1) * cf_hertz_n(&e.k, d1);
            cr_assert_leq(fabs(hypot(a.t[0], a.t[1]) - want), 1e-12 * want);
        } else {
            cr_assert_leq(fabs(hypot(a.t[0], a.t[1]) - mun), 1e-12 * mun);
        }
        ldem_jager_release(&e.pool, &a);
        ldem_jager_release(&e.pool, &b);
    }
    ldem_history_pool_free(&e.pool);
}
