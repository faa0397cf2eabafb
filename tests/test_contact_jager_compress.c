/* Lossless compression of Jäger histories (docs/jager.md §5, lossless compression).
 *
 * Validations (against closed forms and against the uncompressed law, which the reference
 * vectors of tests/data/jager-cases validate on their own):
 * - a straight movement cut into 10⁶ substeps keeps at most 2 cells, collinear and in 3-D,
 *   elastic and sliding, and ends on the closed form T = w N(d) of one straight leg;
 * - a contact whose approach oscillates at constant tangential displacement (a grain resting
 *   under gravity) keeps one cell, where the uncompressed law keeps one per rise;
 * - random histories, collinear and 3-D, with separations, reversals and gross sliding,
 *   whose straight legs are cut into 1 to 1000 pieces: at every step the force the
 *   compressed stack holds (Σ w ΔN) stays within 1e-12 μN of the uncompressed stack's (the
 *   bound docs/jager.md §5 proves for collinear histories is ε/2 = 5e-13 μN), the carried T
 *   too wherever d ≥ 0.05 d_ref (closer to separation the incremental T of either law
 *   carries rounding of order 1e-16 μN_max, which is more than 1e-12 μN(d) there: reported),
 *   and the compressed stack is never longer;
 * - no cell is ever left without width, whatever the compression (the invariants the
 *   checkpoint loader checks: levels fall strictly from d down to above 0).
 * Guards (the code against itself): a merged leg carries the slack disc its junctions allow,
 * and version-3 cells restored closed merge only legs of equal slope. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ldem/contact/jager.h"
#include "support/contact_fixture.h"

#define D_REF 1e-6
#define BOUND_MUN 1e-12 /* the bound on any force change, in μN */

typedef struct pair_run {
    ldem_jager_params p;
    ldem_history_pool pool;
    ldem_jager_contact c;
} pair_run;

static void run_init(pair_run *r, const cf_material *m, double beta, bool full)
{
    cf_params(m, beta, false, &r->p);
    r->p.full_history = full;
    cf_pool(&r->pool, 64, false);
    ldem_jager_contact_init(&r->c);
}

static void run_free(pair_run *r)
{
    ldem_history_pool_free(&r->pool);
}

static void move(pair_run *r, double d, const double s[2])
{
    cr_assert_eq(ldem_jager_move_to(&r->p, &r->pool, &r->c, d, s), LDEM_OK);
}

/* State j of n on the straight line from (d0, s0) to (d1, s1), the last exactly the target
 * (as contact-path cuts its moves). */
static void waypoint(double d0, const double s0[2], double d1, const double s1[2], long j, long n,
                     double *d, double s[2])
{
    double f = (double)j / (double)n;
    *d = j == n ? d1 : d0 + (d1 - d0) * f;
    for (int a = 0; a < 2; a++)
        s[a] = j == n ? s1[a] : s0[a] + (s1[a] - s0[a]) * f;
}

/* ---- a straight movement in a million substeps ---- */

static void straight_line(double dir_x, double dir_y, double slope_over_mu)
{
    const long n = 1000000;
    pair_run packed, full;
    run_init(&packed, &CF_GLASS, 0.0, false);
    run_init(&full, &CF_GLASS, 0.0, true);
    cf_consts k = cf_consts_of(&CF_GLASS);
    const double d1 = D_REF, amp = slope_over_mu * k.mu * k.kappa * d1;
    const double s1[2] = {amp * dir_x, amp * dir_y}, zero[2] = {0, 0};
    uint32_t longest = 0;
    double worst = 0;
    for (long j = 1; j <= n; j++) {
        double d, s[2];
        waypoint(0, zero, d1, s1, j, n, &d, s);
        move(&packed, d, s);
        move(&full, d, s);
        if (packed.c.length > longest)
            longest = packed.c.length;
        double dt = hypot(packed.c.t[0] - full.c.t[0], packed.c.t[1] - full.c.t[1]);
        worst = fmax(worst, dt / (k.mu * packed.c.n));
    }
    cf_check_stack(&packed.p, &packed.pool, &packed.c, 1e-12);
    /* One straight leg from zero: T = w N(d1), w = s/(κ d) when elastic, μ ŝ when sliding. */
    double w = fmin(slope_over_mu, 1.0) * k.mu, n1 = cf_hertz_n(&k, d1);
    double tx = w * dir_x * n1, ty = w * dir_y * n1, mun = k.mu * n1;
    double err = hypot(packed.c.t[0] - tx, packed.c.t[1] - ty) / mun;
    cr_log_info("straight line, %ld substeps, |w|/mu %.2f: at most %u cells (uncompressed: %u), "
                "T within %.2e muN of the uncompressed law's and %.2e muN of the closed form",
                n, slope_over_mu, longest, full.c.length, worst, err);
    cr_assert_leq(longest, 2u, "a straight movement in %ld substeps held %u cells", n, longest);
    cr_assert_leq(worst, BOUND_MUN, "compression changed T by %g muN", worst);
    /* the law's own rounding over a million steps (sliding: the slip direction's) */
    cr_assert_leq(err, 1e-10, "T = (%g, %g), closed form (%g, %g)", packed.c.t[0], packed.c.t[1],
                  tx, ty);
    run_free(&packed);
    run_free(&full);
}

Test(contact_jager_compress, straight_line_collinear_elastic, .timeout = 120)
{
    straight_line(0.6, 0.8, 0.5);
}

Test(contact_jager_compress, straight_line_3d_elastic, .timeout = 120)
{
    /* a direction with both components irrational: every substep's slope rounds differently */
    straight_line(cos(1.0), sin(1.0), 0.9);
}

Test(contact_jager_compress, straight_line_sliding, .timeout = 120)
{
    straight_line(cos(2.0), sin(2.0), 3.0);
}

/* ---- a contact at rest under an oscillating load ---- */

Test(contact_jager_compress, oscillating_normal_load_keeps_one_cell, .timeout = 60)
{
    pair_run packed, full;
    run_init(&packed, &CF_GLASS, 0.0, false);
    run_init(&full, &CF_GLASS, 0.0, true);
    const double s[2] = {0, 0};
    uint32_t longest = 0;
    for (int i = 0; i < 100000; i++) {
        /* a damped ring-down with a small irregular part, as a settling grain's contact */
        double t = i * 1e-3;
        double d = D_REF * (1 + 0.05 * exp(-t / 30) * sin(7 * t) + 1e-4 * sin(1.7e3 * t * t));
        move(&packed, d, s);
        move(&full, d, s);
        if (packed.c.length > longest)
            longest = packed.c.length;
        cr_assert_eq(packed.c.t[0], 0.0);
    }
    cf_check_stack(&packed.p, &packed.pool, &packed.c, 1e-12);
    cr_log_info("oscillating load, 1e5 steps: compressed at most %u cells, uncompressed %u now",
                longest, full.c.length);
    cr_assert_eq(longest, 1u, "legs of slope 0 on legs of slope 0 must be one leg");
    cr_assert_gt(full.c.length, 10u, "the uncompressed law should keep the rises apart");
    run_free(&packed);
    run_free(&full);
}

/* ---- compressed against uncompressed on random histories ---- */

typedef struct comparison {
    double worst;           /* max |ΔT| / μN of the stacks' forces over all steps in contact */
    double worst_carried;   /* of the carried forces, where d ≥ 0.05 d_ref */
    double floor_carried;   /* the uncompressed law's own |T − Σ w ΔN| / μN, anywhere */
    double worst_own;       /* the compressed law's own, where d ≥ 0.05 d_ref */
    double cells_packed, cells_full; /* summed over steps */
    long steps, merged_steps;
} comparison;

static comparison compare_random(const cf_material *m, uint64_t seed, bool collinear, int legs,
                                 double wobble, bool along_x)
{
    pair_run packed, full;
    run_init(&packed, m, 0.0, false);
    run_init(&full, m, 0.0, true);
    cf_consts k = cf_consts_of(m);
    cf_rng rng;
    cf_rng_seed(&rng, seed);
    static const long PIECES[] = {1, 2, 3, 10, 100, 1000};
    comparison out = {0};
    double d = D_REF, s[2] = {0, 0};
    for (int leg = 0; leg < legs; leg++) {
        double d0 = d, s0[2] = {s[0], s[1]};
        cf_random_state(&rng, D_REF, cf_smax(&k, D_REF), collinear, &d, s);
        if (along_x) { /* the same history along an axis: one slope component stays 0 */
            s[0] = (s[0] - s0[0]) / 0.6 + s0[0];
            s[1] = 0;
        }
        long n = PIECES[cf_rng_next(&rng) % (sizeof PIECES / sizeof *PIECES)];
        for (long j = 1; j <= n; j++) {
            double dj, sj[2];
            waypoint(d0, s0, d, s, j, n, &dj, sj);
            if (j < n) { /* bend the leg by `wobble`·s_ref, along the line or across it */
                double e = wobble * cf_smax(&k, D_REF) * cf_rng_sym(&rng);
                sj[0] += collinear ? 0.6 * e : e;
                sj[1] += along_x     ? 0
                         : collinear ? 0.8 * e
                                     : wobble * cf_smax(&k, D_REF) * cf_rng_sym(&rng);
            }
            move(&packed, dj, sj);
            move(&full, dj, sj);
            out.steps++;
            out.cells_packed += packed.c.length;
            out.cells_full += full.c.length;
            out.merged_steps += packed.c.length < full.c.length;
            cr_assert_leq(packed.c.length, full.c.length);
            cr_assert_eq(packed.c.n, full.c.n, "N does not depend on the history");
            if (dj > 0) {
                double mun = k.mu * packed.c.n, tp[2], tf[2];
                ldem_jager_force_from_stack(&packed.p, &packed.pool, &packed.c, tp);
                ldem_jager_force_from_stack(&full.p, &full.pool, &full.c, tf);
                out.worst = fmax(out.worst, hypot(tp[0] - tf[0], tp[1] - tf[1]) / mun);
                out.floor_carried = fmax(out.floor_carried,
                                         hypot(full.c.t[0] - tf[0], full.c.t[1] - tf[1]) / mun);
                if (dj >= 0.05 * D_REF) {
                    out.worst_carried = fmax(out.worst_carried,
                                             hypot(packed.c.t[0] - full.c.t[0],
                                                   packed.c.t[1] - full.c.t[1]) / mun);
                    /* and the compressed law's carried T is its own stack's */
                    out.worst_own = fmax(out.worst_own, hypot(packed.c.t[0] - tp[0],
                                                              packed.c.t[1] - tp[1]) / mun);
                }
            }
        }
        cf_check_stack(&packed.p, &packed.pool, &packed.c, 1e-9);
        cf_check_stack(&full.p, &full.pool, &full.c, 1e-9);
    }
    run_free(&packed);
    run_free(&full);
    return out;
}

static void random_histories(bool collinear)
{
    comparison all = {0};
    /* Straight legs, and legs bent by amounts around the tolerance, where merging decides. */
    static const double WOBBLE[] = {0, 0, 1e-13, 1e-12, 1e-11, 1e-10};
    for (uint64_t seed = 0; seed < 6; seed++) {
        const cf_material *m = seed % 2 ? &CF_GLASS : &CF_STEEL;
        comparison c = compare_random(m, 0xC0FFEE + seed, collinear, 400, WOBBLE[seed],
                                      collinear && seed % 2);
        all.worst = fmax(all.worst, c.worst);
        all.worst_carried = fmax(all.worst_carried, c.worst_carried);
        all.floor_carried = fmax(all.floor_carried, c.floor_carried);
        all.worst_own = fmax(all.worst_own, c.worst_own);
        all.cells_packed += c.cells_packed;
        all.cells_full += c.cells_full;
        all.steps += c.steps;
        all.merged_steps += c.merged_steps;
    }
    cr_log_info("%s random histories, %ld steps: stacks' |dT| <= %.2e muN, carried |dT| <= %.2e "
                "muN (d >= 0.05 d_ref; the uncompressed law's own rounding reaches %.2e muN); "
                "mean stack %.1f compressed, %.1f uncompressed; shorter on %ld steps",
                collinear ? "collinear" : "3-D", all.steps, all.worst, all.worst_carried,
                all.floor_carried,
                all.cells_packed / (double)all.steps, all.cells_full / (double)all.steps,
                all.merged_steps);
    cr_assert_leq(all.worst, BOUND_MUN, "compression changed the stack's T by %g muN", all.worst);
    cr_assert_leq(all.worst_carried, BOUND_MUN, "compression changed the carried T by %g muN",
                  all.worst_carried);
    cr_assert_leq(all.worst_own, BOUND_MUN, "the carried T left the stack's by %g muN",
                  all.worst_own);
    /* the histories must actually exercise the merging, or the bound above says nothing */
    cr_assert_lt(all.cells_packed, 0.6 * all.cells_full, "compression hardly merged anything");
}

Test(contact_jager_compress, random_collinear_histories_within_bound, .timeout = 300)
{
    random_histories(true);
}

Test(contact_jager_compress, random_3d_histories_within_bound, .timeout = 300)
{
    random_histories(false);
}

/* ---- the merge itself ---- */

Test(contact_jager_compress, merged_leg_keeps_its_ends_and_slack)
{
    /* Two elastic pushes whose slopes differ by 1e-14 μ merge into one leg of the
     * level-weighted slope; one differing by 1e-6 μ does not. */
    pair_run r;
    run_init(&r, &CF_GLASS, 0.0, false);
    cf_consts k = cf_consts_of(&CF_GLASS);
    const double w1 = 0.5 * k.mu, w2 = w1 * (1 + 2e-14), w3 = w1 * (1 + 1e-6);
    double s[2] = {k.kappa * w1 * D_REF, 0};
    move(&r, D_REF, s);
    s[0] += k.kappa * w2 * D_REF;
    move(&r, 2 * D_REF, s);
    cr_assert_eq(r.c.length, 1u, "slopes 2e-14 apart must merge");
    ldem_jager_cursor top = ldem_jager_first(&r.pool, &r.c);
    cr_assert_float_eq(top.cell->w[0], 0.5 * (w1 + w2), 1e-16 * k.mu);
    cr_assert_eq(r.c.held_merged[r.c.held_top], 1, "the leg is marked merged");
    cr_assert(r.c.chain.active && r.c.chain.base == 0.0, "the merged leg can grow");
    cr_assert(r.c.chain.radius >= 0 && isfinite(r.c.chain.radius), "it keeps a finite disc");
    /* the elastic shift (the lower end's displacement) is that of the two legs */
    double shift[2];
    ldem_jager_elastic_shift(&r.p, &r.pool, &r.c, shift);
    cr_assert_float_eq(shift[0], s[0], 1e-15 * s[0]);
    s[0] += k.kappa * w3 * D_REF;
    move(&r, 3 * D_REF, s);
    cr_assert_eq(r.c.length, 2u, "slopes 1e-6 apart must stay two legs");
    run_free(&r);
}

Test(contact_jager_compress, leg_grown_on_a_flat_leg_matches_closed_form)
{
    /* Normal loading to d_a (here in two legs, as random_collinear_200 of the reference cases
     * starts), then a straight oblique loading to d_b in 1000 pieces along x:
     * T = w (N(d_b) − N(d_a)), w = s/(κ (d_b − d_a)). The grown leg starts above the first,
     * so the force below it (zero here) and N at its base enter its bookkeeping; its first
     * merge there leaves the slope unchanged to the last bit, which once skipped that. */
    pair_run r;
    run_init(&r, &CF_GLASS, 0.0, false);
    cf_consts k = cf_consts_of(&CF_GLASS);
    const double d_first = 3.139469827583657e-07, da = 4.0774178437795344e-07;
    const double db = 7.0551368152416107e-07, sb = 9.5252983458380473e-08;
    const double zero[2] = {0, 0}, s1[2] = {sb, 0};
    const double legs[3][3] = {{0, d_first, 0}, {d_first, da, 0}, {da, db, sb}};
    for (int leg = 0; leg < 3; leg++)
        for (long j = 1; j <= 1000; j++) {
            double d, s[2];
            waypoint(legs[leg][0], zero, legs[leg][1], leg == 2 ? s1 : zero, j, 1000, &d, s);
            move(&r, d, s);
        }
    cr_assert_eq(r.c.length, 2u);
    double t = sb / (k.kappa * (db - da)) * (cf_hertz_n(&k, db) - cf_hertz_n(&k, da));
    double mun = k.mu * cf_hertz_n(&k, db);
    cr_assert_leq(fabs(r.c.t[0] - t) / mun, 1e-12, "T = %.17g, closed form %.17g", r.c.t[0], t);
    cr_assert_eq(r.c.t[1], 0.0);
    run_free(&r);
}

Test(contact_jager_compress, front_rounding_onto_a_cell_bottom_leaves_no_zero_width)
{
    /* At a constant approach of 1 µm: slide by s = μκ·1 nm (a slip cell 1 nm deep), then back
     * by 2s(1 − 2e-15). The reverse front lands at depth 1 nm·(1 − 2e-15) in that slip cell,
     * and d − depth rounds to the cell's bottom. A cell left there with zero width would make
     * the checkpoint loader refuse the stack, so the law swallows it. */
    for (int full = 0; full < 2; full++) {
        pair_run r;
        run_init(&r, &CF_GLASS, 0.0, full);
        cf_consts k = cf_consts_of(&CF_GLASS);
        const double d = D_REF, s = k.mu * k.kappa * 1e-9;
        move(&r, d, (double[2]){0, 0});
        move(&r, d, (double[2]){s, 0});
        move(&r, d, (double[2]){s - 2 * s * (1 - 2e-15), 0});
        cf_check_stack(&r.p, &r.pool, &r.c, 1e-12); /* levels rise strictly to d */
        run_free(&r);
    }
}
