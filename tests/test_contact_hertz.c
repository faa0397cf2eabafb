/* Unit tests of ldem/contact/hertz.h: the Hertz force of two spheres of one material against
 * N = (4/3) E* √R* d^{3/2} with the constants recomputed independently (contact_fixture.c),
 * its derivative, the sphere–flat limit, the stored energy and the inverse, the normal
 * damping, and the checks ldem_elastic_pair_init makes on its inputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ldem/contact/hertz.h"
#include "support/contact_fixture.h"

static void pair_of(const cf_material *m, ldem_elastic_pair *p)
{
    ldem_err err;
    cr_assert_eq(ldem_elastic_pair_init(p, m->E, m->nu, m->R1, m->R2, &err), LDEM_OK, "%s",
                 err.msg);
}

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* Approaches over four decades around the realistic 1e-6 m. */
static double approach_sample(int i, int n)
{
    return 1e-8 * pow(10.0, 4.0 * i / (n - 1));
}

/* The derived constants. cf_consts_of goes through G = E/(2(1+ν)), the library through E
 * directly: algebraically equal, so they agree to a few ulps. Glass by hand:
 * R* = 15e-6/8e-3 = 1.875e-3 m, E* = 70e9/(2·0.9375) = 70e9/1.875 Pa, G* = 70e9/(1.25·1.75)
 * = 32 GPa, κ = 1.75/1.5 = 7/6. */
Test(contact_hertz, pair_constants)
{
    const cf_material *mats[] = {&CF_GLASS, &CF_STEEL};
    for (int i = 0; i < 2; i++) {
        ldem_elastic_pair p;
        pair_of(mats[i], &p);
        cf_consts k = cf_consts_of(mats[i]);
        cr_assert_leq(rel(p.rstar, k.rstar), 4e-16);
        cr_assert_leq(rel(p.estar, k.estar), 4e-16);
        cr_assert_leq(rel(p.gstar, k.gstar), 4e-16);
        cr_assert_leq(rel(p.kappa, k.kappa), 4e-16);
        cr_assert_leq(rel(p.cn, k.cn), 1e-15);
        cr_assert(p.E == mats[i]->E && p.nu == mats[i]->nu && p.R1 == mats[i]->R1 &&
                  p.R2 == mats[i]->R2);
    }
    ldem_elastic_pair g;
    pair_of(&CF_GLASS, &g);
    cr_assert_leq(rel(g.rstar, 1.875e-3), 1e-15);
    cr_assert_leq(rel(g.estar, 70e9 / 1.875), 1e-15);
    cr_assert_leq(rel(g.gstar, 32e9), 1e-15);
    cr_assert_leq(rel(g.kappa, 7.0 / 6.0), 1e-15);
}

/* N = (4/3) E* √R* d^{3/2}; pow() here against the library's own evaluation: ≤ 1e-15. */
Test(contact_hertz, force_closed_form)
{
    const cf_material *mats[] = {&CF_GLASS, &CF_STEEL};
    double worst = 0;
    for (int m = 0; m < 2; m++) {
        ldem_elastic_pair p;
        pair_of(mats[m], &p);
        cf_consts k = cf_consts_of(mats[m]);
        for (int i = 0; i < 200; i++) {
            double d = approach_sample(i, 200);
            double want = 4.0 / 3.0 * k.estar * sqrt(k.rstar) * pow(d, 1.5);
            worst = fmax(worst, rel(ldem_hertz_force(&p, d), want));
            worst = fmax(worst, rel(ldem_hertz_radius(&p, d), sqrt(k.rstar * d)));
        }
    }
    cr_log_info("Hertz force and radius: max rel err %.2g", worst);
    cr_assert_leq(worst, 2e-15, "max rel err %g", worst);
    /* One number by hand: glass at d = 1 µm, N = (4/3)(70e9/1.875)√1.875e-3 · 1e-9 ≈ 2.155 N. */
    ldem_elastic_pair g;
    pair_of(&CF_GLASS, &g);
    cr_assert_leq(fabs(ldem_hertz_force(&g, 1e-6) - 2.1554), 1e-4);
}

/* dN/dd = 2E*a: closed form to round-off, and a central difference with h = 1e-4·d. The
 * difference has truncation error h²N'''/(6N') = h²/(24 d²) = 4.2e-10 relative (N ∝ d^{3/2},
 * N'''/N' = −1/(4d²)) and round-off ≈ ε N/(h N') ≈ 1e-12, so it must agree to 1e-9. */
Test(contact_hertz, stiffness_is_derivative)
{
    const cf_material *mats[] = {&CF_GLASS, &CF_STEEL};
    double worst_cf = 0, worst_fd = 0;
    for (int m = 0; m < 2; m++) {
        ldem_elastic_pair p;
        pair_of(mats[m], &p);
        cf_consts k = cf_consts_of(mats[m]);
        for (int i = 0; i < 100; i++) {
            double d = approach_sample(i, 100), h = 1e-4 * d;
            double kn = ldem_hertz_stiffness(&p, d);
            worst_cf = fmax(worst_cf, rel(kn, 2.0 * k.estar * sqrt(k.rstar * d)));
            double fd = (ldem_hertz_force(&p, d + h) - ldem_hertz_force(&p, d - h)) / (2 * h);
            worst_fd = fmax(worst_fd, rel(kn, fd));
        }
    }
    cr_log_info("stiffness: closed form %.2g, central difference %.2g", worst_cf, worst_fd);
    cr_assert_leq(worst_cf, 2e-15, "2E*a: max rel err %g", worst_cf);
    cr_assert_leq(worst_fd, 1e-9, "central difference: max rel err %g", worst_fd);
}

/* Sphere against a flat: R2 = ∞ gives R* = R1 exactly and N = (4/3)E*√R1 d^{3/2}. */
Test(contact_hertz, sphere_flat)
{
    cf_material flat = CF_GLASS;
    flat.R2 = INFINITY;
    ldem_elastic_pair p;
    pair_of(&flat, &p);
    cr_assert_eq(p.rstar, flat.R1, "R* of a sphere on a flat must be R1");
    cf_consts k = cf_consts_of(&flat);
    double worst = 0;
    for (int i = 0; i < 50; i++) {
        double d = approach_sample(i, 50);
        worst = fmax(
            worst, rel(ldem_hertz_force(&p, d), 4.0 / 3.0 * k.estar * sqrt(flat.R1) * pow(d, 1.5)));
        worst = fmax(worst, rel(ldem_hertz_stiffness(&p, d), 2.0 * k.estar * sqrt(flat.R1 * d)));
    }
    cr_assert_leq(worst, 2e-15, "sphere-flat: max rel err %g", worst);
    /* The limit of a growing second sphere: R2 = 1e12·R1 differs from the flat by R1/R2. */
    cf_material big = CF_GLASS;
    big.R2 = 1e12 * big.R1;
    ldem_elastic_pair q;
    pair_of(&big, &q);
    cr_assert_leq(rel(ldem_hertz_force(&q, 1e-6), ldem_hertz_force(&p, 1e-6)), 1e-11);
}

/* Energy = ∫_0^d N(x) dx. Substituting x = u² makes the integrand N(u²)·2u = 2c_N u⁴ a
 * polynomial, so composite Simpson with 2000 panels has relative error
 * (h/√d)⁴·(48/180)·(5/2) ≈ 4e-14 (it uses the library's force, not a closed form). Also
 * (2/5)N d. */
Test(contact_hertz, energy_is_integral_of_force)
{
    ldem_elastic_pair p;
    pair_of(&CF_GLASS, &p);
    double worst_q = 0, worst_cf = 0;
    for (int i = 0; i < 20; i++) {
        double d = approach_sample(i, 20), b = sqrt(d);
        int m = 2000;
        double h = b / m, sum = 0;
        for (int j = 0; j <= m; j++) {
            double u = j * h, f = ldem_hertz_force(&p, u * u) * 2 * u;
            sum += f * (j == 0 || j == m ? 1 : (j % 2 ? 4 : 2));
        }
        double quad = sum * h / 3;
        double e = ldem_hertz_energy(&p, d);
        worst_q = fmax(worst_q, rel(e, quad));
        worst_cf = fmax(worst_cf, rel(e, 0.4 * ldem_hertz_force(&p, d) * d));
    }
    cr_log_info("energy: vs quadrature %.2g, vs 2Nd/5 %.2g", worst_q, worst_cf);
    cr_assert_leq(worst_q, 1e-12, "energy vs quadrature: max rel err %g", worst_q);
    cr_assert_leq(worst_cf, 1e-15, "energy vs 2Nd/5: max rel err %g", worst_cf);
}

/* approach() inverts force(): d → N → d over eight decades, and N → d → N. */
Test(contact_hertz, approach_inverts_force)
{
    const cf_material *mats[] = {&CF_GLASS, &CF_STEEL};
    double worst_d = 0, worst_n = 0;
    for (int m = 0; m < 2; m++) {
        ldem_elastic_pair p;
        pair_of(mats[m], &p);
        cf_consts k = cf_consts_of(mats[m]);
        for (int i = 0; i < 400; i++) {
            double d = 1e-12 * pow(10.0, 8.0 * i / 399.0);
            worst_d = fmax(worst_d, rel(ldem_hertz_approach(&p, ldem_hertz_force(&p, d)), d));
            double n = k.cn * pow(d, 1.5);
            worst_n = fmax(worst_n, rel(ldem_hertz_force(&p, ldem_hertz_approach(&p, n)), n));
            worst_d = fmax(worst_d, rel(ldem_hertz_approach(&p, n), cf_hertz_d(&k, n)));
        }
        cr_assert_eq(ldem_hertz_approach(&p, 0.0), 0.0);
        cr_assert_eq(ldem_hertz_approach(&p, -1.0), 0.0);
    }
    cr_log_info("approach/force round trips: d %.2g, N %.2g", worst_d, worst_n);
    cr_assert_leq(worst_d, 2e-15, "d -> N -> d: max rel err %g", worst_d);
    cr_assert_leq(worst_n, 3e-15, "N -> d -> N: max rel err %g", worst_n);
}

/* d ≤ 0 is no contact: every quantity is exactly zero (no NaN from √ of a negative). */
Test(contact_hertz, no_contact_is_zero)
{
    ldem_elastic_pair p;
    pair_of(&CF_GLASS, &p);
    double ds[] = {0.0, -0.0, -1e-9, -1.0, -INFINITY};
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        cr_assert_eq(ldem_hertz_force(&p, ds[i]), 0.0);
        cr_assert_eq(ldem_hertz_stiffness(&p, ds[i]), 0.0);
        cr_assert_eq(ldem_hertz_radius(&p, ds[i]), 0.0);
        cr_assert_eq(ldem_hertz_energy(&p, ds[i]), 0.0);
    }
}

/* The normal damping: 2ζ √(m* · 2E*a) ḋ with a recomputed here; zero out of contact; while
 * separating fast it stops at −N, so that N plus the damping is never negative. */
Test(contact_hertz, damping_closed_form_and_cap)
{
    ldem_elastic_pair p;
    pair_of(&CF_GLASS, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    const double m = 1.3e-3, zeta = 0.3;
    for (int i = 0; i < 9; i++) {
        double d = approach_sample(i, 9), rate = 0.05 * (i - 4);
        double want = 2.0 * zeta * sqrt(m * 2.0 * k.estar * cf_radius(&k, d)) * rate;
        double n = cf_hertz_n(&k, d), got = ldem_hertz_damping(&p, d, m, zeta, rate);
        if (want >= -n)
            cr_assert_leq(fabs(got - want), 1e-14 * fabs(want), "d %g rate %g: %.17g vs %.17g",
                          d, rate, got, want);
        else
            cr_assert_leq(fabs(got + n), 1e-15 * n, "d %g rate %g: %g, cap -N %g", d, rate,
                          got, -n);
    }
    /* separating at 10 m/s from 1e-6 m: far past the cap */
    cr_assert_leq(fabs(ldem_hertz_damping(&p, 1e-6, m, zeta, -10.0) + cf_hertz_n(&k, 1e-6)),
                  1e-15 * cf_hertz_n(&k, 1e-6));
    cr_assert_eq(ldem_hertz_damping(&p, 0.0, m, zeta, 1.0), 0.0);
    cr_assert_eq(ldem_hertz_damping(&p, -1e-9, m, zeta, 1.0), 0.0);
    cr_assert_eq(ldem_hertz_damping(&p, 1e-6, m, 0.0, 1.0), 0.0);
}

struct bad_input {
    double E, nu, R1, R2;
    const char *name; /* the parameter the message must name */
};

/* Refuses E ≤ 0, ν outside (−1, 0.5], R ≤ 0 and NaN/∞ (except R2 = ∞) with LDEM_ERR_INPUT and
 * a message naming the parameter. */
Test(contact_hertz, init_refuses_bad_input)
{
    const double E = 70e9, nu = 0.25, R1 = 5e-3, R2 = 3e-3;
    const struct bad_input bad[] = {
        {0.0, nu, R1, R2, "E"},       {-1e9, nu, R1, R2, "E"},     {NAN, nu, R1, R2, "E"},
        {INFINITY, nu, R1, R2, "E"},  {E, -1.0, R1, R2, "nu"},     {E, -1.5, R1, R2, "nu"},
        {E, 0.5000001, R1, R2, "nu"}, {E, 0.7, R1, R2, "nu"},      {E, NAN, R1, R2, "nu"},
        {E, INFINITY, R1, R2, "nu"},  {E, nu, 0.0, R2, "R1"},      {E, nu, -1e-3, R2, "R1"},
        {E, nu, NAN, R2, "R1"},       {E, nu, INFINITY, R2, "R1"}, {E, nu, R1, 0.0, "R2"},
        {E, nu, R1, -1e-3, "R2"},     {E, nu, R1, NAN, "R2"},      {E, nu, R1, -INFINITY, "R2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ldem_elastic_pair p;
        ldem_err err;
        ldem_err_clear(&err);
        int rc = ldem_elastic_pair_init(&p, bad[i].E, bad[i].nu, bad[i].R1, bad[i].R2, &err);
        cr_assert_eq(rc, LDEM_ERR_INPUT, "case %zu (%s) must be refused, rc %d", i, bad[i].name,
                     rc);
        cr_assert_eq(err.code, LDEM_ERR_INPUT);
        cr_assert_not_null(strstr(err.msg, bad[i].name), "case %zu: message '%s' must name %s", i,
                           err.msg, bad[i].name);
        /* A NULL report is allowed: the status alone comes back. */
        cr_assert_eq(ldem_elastic_pair_init(&p, bad[i].E, bad[i].nu, bad[i].R1, bad[i].R2, NULL),
                     LDEM_ERR_INPUT);
    }
    /* The edges of the admissible range are accepted. */
    const double good[][4] = {
        {E, 0.5, R1, R2},      {E, -0.99, R1, R2},    {E, 0.0, R1, R2},
        {E, nu, R1, INFINITY}, {1e-3, nu, 1e-9, 1e9},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        ldem_elastic_pair p;
        ldem_err err;
        cr_assert_eq(
            ldem_elastic_pair_init(&p, good[i][0], good[i][1], good[i][2], good[i][3], &err),
            LDEM_OK, "good case %zu refused: %s", i, err.msg);
        cr_assert(isfinite(p.cn) && p.cn > 0 && isfinite(p.kappa) && p.kappa > 0);
    }
}
