/* The incremental "modified Mindlin" baseline (ldem/contact/mindlin.h): its defining
 * recurrence, its first-move stiffness 2G*a, the Coulomb cap, the rescale on normal
 * unloading, and its known departures from Cattaneo–Mindlin–Deresiewicz, which the exact
 * Jäger law does not have. */
#include <criterion/criterion.h>
#include <math.h>

#include "ldem/contact/jager.h"
#include "ldem/contact/mindlin.h"
#include "support/contact_fixture.h"

#define D0 1e-6

static void mparams(const cf_material *m, ldem_mindlin_params *p)
{
    ldem_elastic_pair pair;
    ldem_err err;
    cr_assert_eq(ldem_elastic_pair_init(&pair, m->E, m->nu, m->R1, m->R2, &err), LDEM_OK);
    cr_assert_eq(ldem_mindlin_params_init(p, &pair, m->mu, &err), LDEM_OK, "%s", err.msg);
}

/* The law exactly as mindlin.h states it, written independently:
 *   a = √(R* d); if a < a_prev: ξ ← ξ a/a_prev;  ξ ← ξ + Δs;  T = 2G*a ξ;
 *   if |T| > μN: T ← μN T/|T|, ξ ← T/(2G*a);
 * d ≤ 0 clears ξ; touching down from d ≤ 0 counts the fraction d1/(d1 − d) of Δs. */
typedef struct ref_mindlin {
    double d, xi[2], a, n, t[2];
} ref_mindlin;

static void ref_step(const cf_consts *k, ref_mindlin *r, double d1, const double ds_in[2])
{
    double ds[2] = {ds_in[0], ds_in[1]};
    if (d1 <= 0) {
        *r = (ref_mindlin){.d = d1};
        return;
    }
    if (r->d <= 0) {
        double f = d1 / (d1 - r->d);
        ds[0] *= f;
        ds[1] *= f;
        r->a = 0;
        r->xi[0] = r->xi[1] = 0;
    }
    double a = cf_radius(k, d1);
    if (a < r->a) {
        r->xi[0] *= a / r->a;
        r->xi[1] *= a / r->a;
    }
    r->xi[0] += ds[0];
    r->xi[1] += ds[1];
    double kt = 2 * k->gstar * a, n = cf_hertz_n(k, d1);
    double t[2] = {kt * r->xi[0], kt * r->xi[1]}, tm = hypot(t[0], t[1]);
    if (tm > k->mu * n) {
        t[0] *= k->mu * n / tm;
        t[1] *= k->mu * n / tm;
        r->xi[0] = t[0] / kt;
        r->xi[1] = t[1] / kt;
    }
    r->d = d1;
    r->a = a;
    r->n = n;
    r->t[0] = t[0];
    r->t[1] = t[1];
}

/* First infinitesimal move from a touched-down contact: T/Δs = 2G*a exactly (the law is a
 * linear spring of that stiffness), which is also the initial slope of the exact virgin curve:
 * f(s)/s = 2G*a (1 − s/(4 s_max) + …), so Jäger agrees to 0.25·s/s_max. */
Test(contact_mindlin, first_move_stiffness)
{
    ldem_mindlin_params p;
    mparams(&CF_GLASS, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    ldem_mindlin_contact c;
    ldem_mindlin_contact_init(&c);
    double z[2] = {0, 0};
    ldem_mindlin_move_to(&p, &c, D0, z);
    double kt = 2 * k.gstar * cf_radius(&k, D0), ds = 1e-6 * cf_smax(&k, D0);
    double v[2] = {0.6 * ds, 0.8 * ds};
    ldem_mindlin_step(&p, &c, D0, v);
    double stiff = hypot(c.t[0], c.t[1]) / ds;
    cr_assert_leq(fabs(stiff - kt), 1e-14 * kt, "Mindlin first-move stiffness %g vs 2G*a %g", stiff,
                  kt);
    cr_assert_leq(fabs(c.t[0] * 0.8 - c.t[1] * 0.6), 1e-15 * kt * ds, "T along the move");
    /* The same move under Jäger. */
    ldem_jager_params jp;
    cf_params(&CF_GLASS, 0.0, false, &jp);
    ldem_history_pool pool;
    cf_pool(&pool, 16, false);
    ldem_jager_contact j;
    ldem_jager_contact_init(&j);
    cr_assert_eq(ldem_jager_move_to(&jp, &pool, &j, D0, z), LDEM_OK);
    cr_assert_eq(ldem_jager_step(&jp, &pool, &j, D0, v), LDEM_OK);
    double jstiff = hypot(j.t[0], j.t[1]) / ds;
    cr_log_info("first move: Mindlin %.3g, Jager %.3g, 2G*a %.3g N/m", stiff, jstiff, kt);
    cr_assert_leq(fabs(jstiff - kt), 1e-6 * kt, "Jager initial stiffness %g vs %g", jstiff, kt);
    ldem_jager_release(&pool, &j);
    ldem_history_pool_free(&pool);
}

/* The library against the recurrence above on random planar histories with separations,
 * normal unloading (rescale), caps and touch-downs: same T and N to round-off. Along the way,
 * |T| ≤ μN always, and the dissipated work never decreases. */
Test(contact_mindlin, matches_defining_recurrence)
{
    const cf_material *mats[] = {&CF_GLASS, &CF_STEEL};
    double worst = 0;
    int capped = 0, rescaled = 0;
    for (int m = 0; m < 2; m++) {
        ldem_mindlin_params p;
        mparams(mats[m], &p);
        cf_consts k = cf_consts_of(mats[m]);
        ldem_mindlin_contact c;
        ldem_mindlin_contact_init(&c);
        ref_mindlin r = {0};
        cf_rng rng;
        cf_rng_seed(&rng, 555 + m);
        double d = D0, s[2] = {0, 0}, diss = 0;
        for (int i = 0; i < 2000; i++) {
            double s_old[2] = {s[0], s[1]}, d_old = d;
            cf_random_state(&rng, D0, cf_smax(&k, D0), false, &d, s);
            double ds[2] = {s[0] - s_old[0], s[1] - s_old[1]};
            ldem_mindlin_step(&p, &c, d, ds);
            ref_step(&k, &r, d, ds);
            rescaled += d > 0 && d_old > 0 && d < d_old;
            if (d <= 0) {
                cr_assert(c.n == 0 && c.t[0] == 0 && c.t[1] == 0, "separated: zero force");
                continue;
            }
            double mun = k.mu * r.n, tm = hypot(c.t[0], c.t[1]);
            worst = fmax(worst, hypot(c.t[0] - r.t[0], c.t[1] - r.t[1]) / mun);
            cr_assert_leq(fabs(c.n - r.n), 1e-14 * r.n);
            cr_assert_leq(tm, mun * (1 + 1e-14), "|T| %g above muN %g", tm, mun);
            capped += tm > mun * (1 - 1e-12);
            cr_assert(c.dissipated >= diss, "Mindlin dissipation decreased");
            diss = c.dissipated;
            double w = ldem_mindlin_stored_energy(&p, &c), kt = 2 * k.gstar * cf_radius(&k, d);
            cr_assert_leq(fabs(w - 0.5 * tm * tm / kt), 1e-14 * (w + 1e-300) + 1e-300,
                          "stored energy must be |T|^2/(2 k_t)");
        }
    }
    cr_log_info("Mindlin vs recurrence: max %.2g muN (%d capped, %d unloading steps)", worst,
                capped, rescaled);
    cr_assert_leq(worst, 1e-13, "max %g muN", worst);
    cr_assert_gt(capped, 100);
    cr_assert_gt(rescaled, 100);
}

/* Coulomb cap: a move far beyond μN/k_t in any direction gives |T| = μN along the move. */
Test(contact_mindlin, coulomb_cap)
{
    ldem_mindlin_params p;
    mparams(&CF_GLASS, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    double mun = k.mu * cf_hertz_n(&k, D0), worst = 0;
    for (int i = 0; i < 36; i++) {
        ldem_mindlin_contact c;
        ldem_mindlin_contact_init(&c);
        double z[2] = {0, 0}, phi = 0.1745329 * i, big = 5 * cf_smax(&k, D0);
        ldem_mindlin_move_to(&p, &c, D0, z);
        double ds[2] = {big * cos(phi), big * sin(phi)};
        ldem_mindlin_step(&p, &c, D0, ds);
        worst = fmax(worst, hypot(c.t[0] - mun * cos(phi), c.t[1] - mun * sin(phi)) / mun);
        /* The spring is left at the cap: a small move back unloads elastically by k_t Δs. */
        double back[2] = {-1e-3 * cf_smax(&k, D0) * cos(phi), -1e-3 * cf_smax(&k, D0) * sin(phi)};
        ldem_mindlin_step(&p, &c, D0, back);
        double want = mun - 2 * k.gstar * cf_radius(&k, D0) * 1e-3 * cf_smax(&k, D0);
        worst = fmax(worst, fabs(hypot(c.t[0], c.t[1]) - want) / mun);
    }
    cr_assert_leq(worst, 1e-14, "cap: max %g muN", worst);
}

/* Rescale: with ξ set at d0 (below the cap), reducing d to d1 at fixed s scales ξ by a1/a0 so
 * T = 2G*a1 · ξ a1/a0 = T0 (a1/a0)²; raising d does not rescale: T = T0 a1/a0. */
Test(contact_mindlin, rescale_on_normal_unloading)
{
    ldem_mindlin_params p;
    mparams(&CF_GLASS, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    ldem_mindlin_contact c;
    ldem_mindlin_contact_init(&c);
    double z[2] = {0, 0}, xi = 0.2 * cf_smax(&k, D0), v[2] = {xi, 0};
    ldem_mindlin_move_to(&p, &c, D0, z);
    ldem_mindlin_move_to(&p, &c, D0, v);
    double a0 = cf_radius(&k, D0), t0 = 2 * k.gstar * a0 * xi;
    cr_assert_leq(fabs(c.t[0] - t0), 1e-14 * t0);
    double d1 = 0.7 * D0, a1 = cf_radius(&k, d1);
    ldem_mindlin_move_to(&p, &c, d1, v);
    double want = t0 * (a1 / a0) * (a1 / a0);
    cr_assert_leq(fabs(c.t[0] - want), 1e-14 * t0, "unloading: T %g, expected %g", c.t[0], want);
    cr_assert_leq(want, k.mu * cf_hertz_n(&k, d1), "the check must stay below the cap");
    /* Loading back to d0: ξ = xi a1/a0 stays, k_t grows with a. */
    ldem_mindlin_move_to(&p, &c, D0, v);
    want = 2 * k.gstar * a0 * xi * a1 / a0;
    cr_assert_leq(fabs(c.t[0] - want), 1e-14 * t0, "reloading: T %g, expected %g", c.t[0], want);
}

/* At constant N in many small steps the law is a linear spring capped at μN:
 * T = min(2G*a s, μN), reaching μN at s = μN/(2G*a) = (2/3)s_max (since 2G*a s_max = 1.5μN).
 * The exact virgin curve is f(s) = μN[1 − (1 − s/s_max)^{3/2}]; the known deviation
 * Mindlin − f grows to its maximum μN (1/3)^{3/2} ≈ 0.192 μN at s = (2/3)s_max (derivative
 * 1.5 − 1.5(1 − y)^{1/2} > 0 below, −1.5(1 − y)^{1/2} < 0 above) and vanishes at s_max. So
 * the baseline approaches Cattaneo–Mindlin only roughly; Jäger is on f(s) at every step. */
Test(contact_mindlin, cattaneo_curve_only_approximately)
{
    ldem_mindlin_params p;
    mparams(&CF_GLASS, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    ldem_jager_params jp;
    cf_params(&CF_GLASS, 0.0, false, &jp);
    ldem_history_pool pool;
    cf_pool(&pool, 16, false);
    ldem_mindlin_contact c;
    ldem_jager_contact j;
    ldem_mindlin_contact_init(&c);
    ldem_jager_contact_init(&j);
    double z[2] = {0, 0};
    ldem_mindlin_move_to(&p, &c, D0, z);
    cr_assert_eq(ldem_jager_move_to(&jp, &pool, &j, D0, z), LDEM_OK);
    const double smax = cf_smax(&k, D0), mun = k.mu * cf_hertz_n(&k, D0);
    const double kt = 2 * k.gstar * cf_radius(&k, D0);
    double worst_law = 0, max_dev = 0, s_at_max = 0, worst_j = 0;
    for (int i = 1; i <= 3000; i++) {
        double s = smax * i / 3000.0, v[2] = {s, 0};
        ldem_mindlin_move_to(&p, &c, D0, v);
        cr_assert_eq(ldem_jager_move_to(&jp, &pool, &j, D0, v), LDEM_OK);
        double f = cf_cattaneo(&k, D0, s);
        worst_law = fmax(worst_law, fabs(c.t[0] - fmin(kt * s, mun)) / mun);
        worst_j = fmax(worst_j, fabs(j.t[0] - f) / mun);
        if (c.t[0] - f > max_dev) {
            max_dev = c.t[0] - f;
            s_at_max = s / smax;
        }
    }
    double want = pow(1.0 / 3.0, 1.5);
    cr_log_info("constant N: Mindlin - Cattaneo max %.6f muN at s = %.4f s_max (closed form "
                "%.6f at 2/3); Jager max err %.2g muN",
                max_dev / mun, s_at_max, want, worst_j);
    cr_assert_leq(worst_law, 1e-12, "linear spring with cap: max err %g muN", worst_law);
    cr_assert_leq(fabs(max_dev / mun - want), 1e-9, "max deviation %g vs (1/3)^1.5 = %g",
                  max_dev / mun, want);
    cr_assert_leq(fabs(s_at_max - 2.0 / 3.0), 1e-3);
    cr_assert_leq(worst_j, 1e-12);
    ldem_jager_release(&pool, &j);
    ldem_history_pool_free(&pool);
}

/* Kuhn Fig. 8b: the MD §17 path in four large straight steps. The baseline departs from the
 * closed form (by more than 1% of μN0), Jäger is exact to 1e-10. The baseline's values are
 * also checked against the recurrence, so the deviation is the law's, not a bug. */
Test(contact_mindlin, mindlin_deresiewicz_four_steps_not_exact)
{
    ldem_mindlin_params p;
    mparams(&CF_GLASS, &p);
    ldem_jager_params jp;
    cf_params(&CF_GLASS, 0.0, false, &jp);
    cf_consts k = cf_consts_of(&CF_GLASS);
    ldem_history_pool pool;
    cf_pool(&pool, 16, false);
    ldem_mindlin_contact c;
    ldem_jager_contact j;
    ref_mindlin r = {0};
    ldem_mindlin_contact_init(&c);
    ldem_jager_contact_init(&j);
    double n0 = cf_hertz_n(&k, D0), n1 = 1.9 * n0, mun0 = k.mu * n0;
    double z[2] = {0, 0};
    ldem_mindlin_move_to(&p, &c, D0, z);
    ref_step(&k, &r, D0, z);
    cr_assert_eq(ldem_jager_move_to(&jp, &pool, &j, D0, z), LDEM_OK);
    const double ns[4] = {1.45 * n0, n1, 1.45 * n0, n0};
    double dev_m = 0, dev_j = 0, dev_ref = 0;
    double s_prev = 0;
    for (int i = 0; i < 4; i++) {
        cf_md_state st = cf_md17(&k, n0, n1, ns[i], i >= 2);
        double v[2] = {st.s, 0}, ds[2] = {st.s - s_prev, 0};
        s_prev = st.s;
        ldem_mindlin_move_to(&p, &c, st.d, v);
        ref_step(&k, &r, st.d, ds);
        cr_assert_eq(ldem_jager_move_to(&jp, &pool, &j, st.d, v), LDEM_OK);
        dev_m = fmax(dev_m, fabs(c.t[0] - st.t) / mun0);
        dev_j = fmax(dev_j, fabs(j.t[0] - st.t) / mun0);
        dev_ref = fmax(dev_ref, fabs(c.t[0] - r.t[0]) / mun0);
        cr_log_info("MD s17 step %d: N/N0 %.2f, exact T %.4f, Mindlin %.4f, Jager %.4f muN0", i + 1,
                    ns[i] / n0, st.t / mun0, c.t[0] / mun0, j.t[0] / mun0);
    }
    cr_log_info("MD s17 4 steps: Mindlin max dev %.3g muN0, Jager %.2g", dev_m, dev_j);
    cr_assert_gt(dev_m, 0.01, "the incremental baseline should not be exact here (%g)", dev_m);
    cr_assert_leq(dev_j, 1e-10, "Jager must be exact (%g)", dev_j);
    cr_assert_leq(dev_ref, 1e-13, "Mindlin vs its recurrence: %g", dev_ref);
    ldem_jager_release(&pool, &j);
    ldem_history_pool_free(&pool);
}

Test(contact_mindlin, params_refuse_bad_mu)
{
    ldem_elastic_pair pair;
    ldem_mindlin_params p;
    cr_assert_eq(ldem_elastic_pair_init(&pair, 70e9, 0.25, 5e-3, 3e-3, NULL), LDEM_OK);
    const double bad[] = {0.0, -0.3, NAN, INFINITY};
    for (int i = 0; i < 4; i++)
        cr_assert_neq(ldem_mindlin_params_init(&p, &pair, bad[i], NULL), LDEM_OK,
                      "mu = %g must be refused", bad[i]);
    ldem_jager_params jp;
    for (int i = 0; i < 4; i++)
        cr_assert_neq(ldem_jager_params_init(&jp, &pair, bad[i], 0.0, NULL), LDEM_OK,
                      "Jager mu = %g must be refused", bad[i]);
    const double bad_beta[] = {-0.1, 2.01, NAN};
    for (int i = 0; i < 3; i++)
        cr_assert_neq(ldem_jager_params_init(&jp, &pair, 0.3, bad_beta[i], NULL), LDEM_OK,
                      "beta = %g must be refused", bad_beta[i]);
    cr_assert_eq(ldem_jager_params_init(&jp, &pair, 0.3, 2.0, NULL), LDEM_OK);
    cr_assert_eq(ldem_jager_params_init(&jp, &pair, 0.3, 0.0, NULL), LDEM_OK);
}
