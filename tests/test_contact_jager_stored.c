/* The tracked stored energy (ldem/contact/jager_stored.h) against the full recomputation,
 * ldem_jager_stored_energy, after every step of long random paths: 3-D and collinear, exact
 * and with Kuhn's β, compressed and full histories, and a path whose stack grows long. The
 * difference must stay within 1e-12 of the full-slip scale μ²d²√(R*d)·G*κ² (the documented
 * tolerance; the measured worst case is printed). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "ldem/contact/jager_stored.h"
#include "support/contact_fixture.h"

#define TOLERANCE 1e-12

typedef struct path_run {
    double worst;         /* largest |tracked − full| / scale */
    uint32_t longest;     /* longest stack seen */
    long in_contact;      /* states with a stack */
} path_run;

/* Drive one contact through `steps` states; `next` makes the next state. */
static path_run run_path(double beta, bool full_history, uint64_t seed, int steps,
                         void (*next)(cf_rng *, int, double *, double[2]))
{
    ldem_jager_params p;
    cf_params(&CF_GLASS, beta, false, &p);
    p.full_history = full_history;
    ldem_history_pool pool;
    cf_pool(&pool, 64, false);
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    ldem_jager_stored t;
    ldem_jager_stored_init(&t);
    cf_rng r;
    cf_rng_seed(&r, seed);
    path_run out = {0, 0, 0};
    double d = 0, s[2] = {0, 0};
    for (int i = 0; i < steps; i++) {
        next(&r, i, &d, s);
        cr_assert_eq(ldem_jager_move_to(&p, &pool, &c, d, s), LDEM_OK);
        cr_assert_eq(ldem_jager_stored_update(&t, &p, &pool, &c), LDEM_OK);
        double tracked = ldem_jager_stored_energy_tracked(&t, &p, &pool, &c);
        double full = ldem_jager_stored_energy(&p, &pool, &c);
        double dd = c.d > 0 ? c.d : 0;
        double scale = p.pair.gstar * p.pair.kappa * p.pair.kappa * p.mu * p.mu * dd * dd *
                       sqrt(p.pair.rstar * dd);
        double err = fabs(tracked - full);
        if (scale > 0 && err / scale > out.worst)
            out.worst = err / scale;
        if (scale == 0)
            cr_assert_eq(tracked, 0.0, "state %d: %g out of contact", i, tracked);
        cr_assert(err <= TOLERANCE * scale, "state %d (stack %u): tracked %.17g, full %.17g",
                  i, c.length, tracked, full);
        if (c.length > out.longest)
            out.longest = c.length;
        out.in_contact += c.length > 0;
    }
    ldem_jager_stored_free(&t);
    ldem_jager_release(&pool, &c);
    ldem_history_pool_free(&pool);
    return out;
}

static const double d_ref = 1e-6, s_ref = 1e-7;

static void random_3d(cf_rng *r, int i, double *d, double s[2])
{
    (void)i;
    cf_random_state(r, d_ref, s_ref, false, d, s);
}

static void random_collinear(cf_rng *r, int i, double *d, double s[2])
{
    (void)i;
    cf_random_state(r, d_ref, s_ref, true, d, s);
}

/* A rising approach with tangential moves inside the elastic cone (|Δs| < μκΔd) in turning
 * directions: each step pushes an elastic leg no other merges with, so the stack grows; 2 % of
 * the steps move far enough to slip and swallow part of it. */
static void growing_stack(cf_rng *r, int i, double *d, double s[2])
{
    (void)i;
    double dd = 2e-4 * d_ref * (0.5 + cf_rng_uniform(r)), angle = 6.283185307179586 *
                                                                    cf_rng_uniform(r);
    double step = 0.3 * 0.3 * dd * (cf_rng_uniform(r) < 0.02 ? 30 : 1); /* μ = 0.3, κ > 1 */
    *d = (*d > 0 ? *d : 0.1 * d_ref) + dd;
    s[0] += step * cos(angle);
    s[1] += step * sin(angle);
}

static void report(const char *name, path_run run)
{
    fprintf(stderr, "%s: worst |tracked - full| = %.2e of the full-slip scale, longest stack "
            "%u, %ld states in contact\n", name, run.worst, run.longest, run.in_contact);
}

Test(jager_stored, random_3d_paths)
{
    path_run run = run_path(0, false, 11, 40000, random_3d);
    report("3-D", run);
    cr_assert_gt(run.in_contact, 30000);
    cr_assert_gt(run.longest, 5);
}

Test(jager_stored, random_collinear_paths)
{
    report("collinear", run_path(0, false, 12, 40000, random_collinear));
}

Test(jager_stored, beta_and_full_history)
{
    report("3-D beta 0.1", run_path(0.1, false, 13, 20000, random_3d));
    report("3-D full history", run_path(0, true, 14, 20000, random_3d));
}

Test(jager_stored, long_stack)
{
    path_run run = run_path(0, false, 15, 20000, growing_stack);
    report("growing stack", run);
    cr_assert_gt(run.longest, 200, "the path should build a long stack, got %u", run.longest);
    run = run_path(0, true, 16, 20000, growing_stack);
    report("growing stack, full history", run);
    cr_assert_gt(run.longest, 2000, "the path should build a long stack, got %u", run.longest);
}
