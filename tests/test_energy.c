/* Unit tests of ldem/energy.h: interpolation of F between knots (exact at knots, exact for
 * linear F, the natural spline's error bound and C² continuity, PCHIP monotonicity), U as
 * the integral of F (against an independent adaptive Simpson quadrature of the library's
 * F, and F as the central difference of U), extrapolation against hand-derived formulas,
 * prepare's consistency check, and the Appendix B table of Henzel & Karapiperis. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/energy.h"
#include "support/test_rng.h"

static const uint32_t ALL_INTERPS[] = {LDEM_INTERP_LINEAR, LDEM_INTERP_CUBIC, LDEM_INTERP_PCHIP};

/* A table with consistent energies, owning its arrays. */
typedef struct table {
    ldem_etab_table t;
    double buf[3 * 2048];
} table;

static void table_make(table *tb, const double *eps, const double *force, size_t n,
                       uint32_t interp, uint32_t extrapolate)
{
    cr_assert_leq(n, 2048);
    memset(&tb->t, 0, sizeof tb->t);
    tb->t.n = n;
    tb->t.interp = interp;
    tb->t.extrapolate = extrapolate;
    tb->t.eps = tb->buf;
    tb->t.energy = tb->buf + 2048;
    tb->t.force = tb->buf + 4096;
    memcpy(tb->t.eps, eps, n * sizeof *eps);
    memcpy(tb->t.force, force, n * sizeof *force);
    ldem_err err;
    cr_assert_eq(ldem_energy_integrate(eps, force, n, interp, tb->t.energy, &err), LDEM_OK,
                 "%s", err.msg);
}

static void curve_make(ldem_energy_curve *c, const double *eps, const double *force, size_t n,
                       uint32_t interp, uint32_t extrapolate)
{
    table tb;
    table_make(&tb, eps, force, n, interp, extrapolate);
    ldem_err err;
    cr_assert_eq(ldem_energy_prepare(&tb.t, c, &err), LDEM_OK, "%s", err.msg);
}

static double F_at(const ldem_energy_curve *c, double x)
{
    double F;
    cr_assert_eq(ldem_energy_at(c, x, NULL, &F, NULL), LDEM_OK, "eps %g", x);
    return F;
}

static double U_at(const ldem_energy_curve *c, double x)
{
    double U;
    cr_assert_eq(ldem_energy_at(c, x, &U, NULL, NULL), LDEM_OK, "eps %g", x);
    return U;
}

static double dF_at(const ldem_energy_curve *c, double x)
{
    double dF;
    cr_assert_eq(ldem_energy_at(c, x, NULL, NULL, &dF), LDEM_OK, "eps %g", x);
    return dF;
}

/* Knots on [a, b]: uniform, or jittered by up to ±0.4 of the spacing. */
static void knots(double *eps, size_t n, double a, double b, int jitter)
{
    double h = (b - a) / (double)(n - 1);
    for (size_t k = 0; k < n; k++)
        eps[k] = a + h * (double)k + ((jitter && k > 0 && k < n - 1) ? 0.4 * h * uniform() : 0);
}

static double smooth_force(double x)
{
    return 1.0 + x + 0.5 * sin(3.0 * x);
}

/* ---- interpolation of F ----------------------------------------------------------------- */

/* Every kind passes through its samples exactly (the Hermite basis is exactly 0/1 at the
 * ends of an interval), and U at a knot is the stored sample. */
Test(energy, knots_reproduced)
{
    rng_seed(11);
    double eps[40], force[40];
    knots(eps, 40, -0.3, 2.0, 1);
    for (size_t k = 0; k < 40; k++)
        force[k] = smooth_force(eps[k]) + 0.2 * uniform();
    for (int m = 0; m < 3; m++) {
        table tb;
        table_make(&tb, eps, force, 40, ALL_INTERPS[m], LDEM_EXTRAP_NONE);
        ldem_energy_curve c;
        ldem_err err;
        cr_assert_eq(ldem_energy_prepare(&tb.t, &c, &err), LDEM_OK, "%s", err.msg);
        for (size_t k = 0; k < 40; k++) {
            double U, F;
            cr_assert_eq(ldem_energy_at(&c, eps[k], &U, &F, NULL), LDEM_OK);
            cr_assert_eq(F, force[k], "%s: knot %zu: F %.17g, sample %.17g",
                         ldem_interp_name(ALL_INTERPS[m]), k, F, force[k]);
            cr_assert_eq(U, tb.t.energy[k], "%s: knot %zu", ldem_interp_name(ALL_INTERPS[m]),
                         k);
        }
        ldem_energy_curve_free(&c);
    }
}

/* F = a + bε: every kind reproduces it (PCHIP's harmonic mean of equal secants is the
 * secant; the natural spline of a line has F'' = 0 and is the line), U = aε + bε²/2 with
 * U(0) = 0, dF = b. Tolerances are round-off: values are O(10). */
Test(energy, linear_force_exact)
{
    rng_seed(12);
    const double a = 2.5, b = -1.75;
    double eps[25], force[25];
    knots(eps, 25, -1.0, 3.0, 1);
    for (size_t k = 0; k < 25; k++)
        force[k] = a + b * eps[k];
    for (int m = 0; m < 3; m++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, 25, ALL_INTERPS[m], LDEM_EXTRAP_NONE);
        double worst_F = 0, worst_U = 0, worst_dF = 0;
        for (int j = 0; j <= 4000; j++) {
            double x = -1.0 + 4.0 * j / 4000.0, U, F, dF;
            cr_assert_eq(ldem_energy_at(&c, x, &U, &F, &dF), LDEM_OK);
            worst_F = fmax(worst_F, fabs(F - (a + b * x)));
            worst_U = fmax(worst_U, fabs(U - (a * x + 0.5 * b * x * x)));
            worst_dF = fmax(worst_dF, fabs(dF - b));
        }
        cr_log_info("%s on a line: |dF| %.2g |dU| %.2g |ddF| %.2g",
                    ldem_interp_name(ALL_INTERPS[m]), worst_F, worst_U, worst_dF);
        cr_assert_leq(worst_F, 1e-13, "%s: F error %g", ldem_interp_name(ALL_INTERPS[m]),
                      worst_F);
        cr_assert_leq(worst_U, 1e-13, "%s: U error %g", ldem_interp_name(ALL_INTERPS[m]),
                      worst_U);
        cr_assert_leq(worst_dF, 1e-11, "%s: dF error %g", ldem_interp_name(ALL_INTERPS[m]),
                      worst_dF);
        ldem_energy_curve_free(&c);
    }
}

/* The natural spline of a cubic F = a + bε + cε² + dε³ on uniform knots (spacing h) is not
 * F: the error e = s − F is a cubic spline vanishing at every knot with e'' = −F'' at the
 * two ends. Its knot moments M_k solve M_{k−1} + 4M_k + M_{k+1} = 0 inside, so they decay
 * like (2 − √3)^k away from each end and never exceed max(|F''(a)|, |F''(b)|); on each
 * interval e is zero at both ends with |e''| ≤ that max, so |e| ≤ h²/8 · max|F''(end)|.
 * More than 30 intervals from both ends the decay factor 0.268^30 ≈ 7e-18 leaves round-off. */
Test(energy, cubic_spline_error_bound)
{
    const double a = 0.3, b = 1.2, cc = -0.8, d = 0.5;
    const double lo = -1.0, hi = 2.0;
    const size_t n = 201;
    double eps[201], force[201];
    knots(eps, n, lo, hi, 0);
    for (size_t k = 0; k < n; k++)
        force[k] = a + eps[k] * (b + eps[k] * (cc + eps[k] * d));
    ldem_energy_curve c;
    curve_make(&c, eps, force, n, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE);
    double h = (hi - lo) / (double)(n - 1);
    double end_curv = fmax(fabs(2 * cc + 6 * d * lo), fabs(2 * cc + 6 * d * hi));
    double bound = h * h / 8.0 * end_curv;
    double worst = 0, worst_interior = 0;
    for (int j = 0; j <= 20000; j++) {
        double x = lo + (hi - lo) * j / 20000.0;
        double err = fabs(F_at(&c, x) - (a + x * (b + x * (cc + x * d))));
        worst = fmax(worst, err);
        if (x > lo + 30 * h && x < hi - 30 * h)
            worst_interior = fmax(worst_interior, err);
    }
    cr_log_info("natural spline of a cubic: max err %.3g (bound %.3g), interior %.3g", worst,
                bound, worst_interior);
    cr_assert_leq(worst, bound, "max error %g above h^2/8 max|F''(end)| = %g", worst, bound);
    /* It is only approximate: the end error is a sizeable fraction of the bound. */
    cr_assert_geq(worst, 0.05 * bound, "error %g suspiciously small", worst);
    cr_assert_leq(worst_interior, 1e-12, "interior error %g", worst_interior);
    ldem_energy_curve_free(&c);
}

/* Value and derivative at x of the parabola through (x_i, y_i), i = 0..2 (Lagrange). */
static void parabola_at(const double *xs, const double *ys, double x, double *value,
                        double *slope)
{
    *value = 0;
    *slope = 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        double den = (xs[i] - xs[j]) * (xs[i] - xs[k]);
        *value += ys[i] * (x - xs[j]) * (x - xs[k]) / den;
        *slope += ys[i] * ((x - xs[j]) + (x - xs[k])) / den;
    }
}

/* Within an interval the spline is one cubic, so dF/dε is exactly a parabola: three samples
 * of dF strictly inside the interval on each side of a knot give F' and F'' at the knot
 * from that side. Natural spline on jittered knots of a non-polynomial F: both must agree
 * (C²), to round-off amplified by the extrapolation (relative to the scale of F''). PCHIP
 * on the same data is only C¹: its F'' jumps, which the same measurement must see. The
 * spline's F'' at the end knots must be 0 (natural): interpolation, C² and these two
 * conditions define the natural spline uniquely. */
Test(energy, cubic_is_c2)
{
    rng_seed(13);
    const size_t n = 30;
    double eps[30], force[30];
    knots(eps, n, 0.0, 3.0, 1);
    for (size_t k = 0; k < n; k++)
        force[k] = sin(2.0 * eps[k]) + 0.3 * eps[k] * eps[k];
    double jump[2][2] = {{0, 0}, {0, 0}}, scale[2] = {0, 0}, end_curv = 0;
    for (int m = 0; m < 2; m++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, n, m == 0 ? LDEM_INTERP_CUBIC : LDEM_INTERP_PCHIP,
                   LDEM_EXTRAP_NONE);
        for (size_t k = 1; k + 1 < n; k++) {
            double hl = eps[k] - eps[k - 1], hr = eps[k + 1] - eps[k];
            double xl[3], yl[3], xr[3], yr[3];
            for (int i = 0; i < 3; i++) {
                xl[i] = eps[k] - hl * (0.2 + 0.3 * i);
                xr[i] = eps[k] + hr * (0.2 + 0.3 * i);
                yl[i] = dF_at(&c, xl[i]);
                yr[i] = dF_at(&c, xr[i]);
            }
            double d1l, d2l, d1r, d2r;
            parabola_at(xl, yl, eps[k], &d1l, &d2l);
            parabola_at(xr, yr, eps[k], &d1r, &d2r);
            jump[m][0] = fmax(jump[m][0], fabs(d1l - d1r));
            jump[m][1] = fmax(jump[m][1], fabs(d2l - d2r));
            scale[m] = fmax(scale[m], fmax(fabs(d2l), fabs(d2r)));
        }
        /* Natural end conditions: F'' = 0 at both end knots, from inside. */
        for (int side = 0; m == 0 && side < 2; side++) {
            size_t k = side ? n - 1 : 0;
            double h = side ? eps[n - 2] - eps[n - 1] : eps[1] - eps[0];
            double xs[3], ys[3], d1, d2;
            for (int i = 0; i < 3; i++) {
                xs[i] = eps[k] + h * (0.2 + 0.3 * i);
                ys[i] = dF_at(&c, xs[i]);
            }
            parabola_at(xs, ys, eps[k], &d1, &d2);
            end_curv = fmax(end_curv, fabs(d2));
        }
        ldem_energy_curve_free(&c);
    }
    cr_log_info("spline: jumps F' %.2g F'' %.2g (|F''| <= %.2g), end F'' %.2g; pchip: F' %.2g "
                "F'' %.2g", jump[0][0], jump[0][1], scale[0], end_curv, jump[1][0], jump[1][1]);
    cr_assert_leq(jump[0][0], 1e-10 * scale[0], "spline F' jump %g", jump[0][0]);
    cr_assert_leq(jump[0][1], 1e-9 * scale[0], "spline F'' jump %g", jump[0][1]);
    cr_assert_leq(end_curv, 1e-9 * scale[0], "spline F'' at an end: %g", end_curv);
    cr_assert_leq(jump[1][0], 1e-10 * scale[1], "pchip F' jump %g", jump[1][0]);
    cr_assert_geq(jump[1][1], 1e-3 * scale[1], "pchip F'' should jump, max %g", jump[1][1]);
}

/* Monotone data with a sharp step between two knots (and unequal spacing): PCHIP is
 * non-decreasing on 10^4 points per interval and stays within [0, 1]; the natural spline
 * on the same data overshoots, which shows the check can fail. */
Test(energy, pchip_monotone_on_step)
{
    const double eps[] = {0.0, 0.5, 1.0, 1.2, 2.0, 2.1, 3.5, 4.0, 5.0, 5.5, 7.0};
    const double force[] = {0.0, 0.0, 0.01, 0.02, 0.03, 0.97, 0.98, 1.0, 1.0, 1.0, 1.0};
    const size_t n = sizeof eps / sizeof *eps;
    double over[2] = {0, 0}, back[2] = {0, 0};
    for (int m = 0; m < 2; m++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, n, m == 0 ? LDEM_INTERP_PCHIP : LDEM_INTERP_CUBIC,
                   LDEM_EXTRAP_NONE);
        double prev = F_at(&c, eps[0]);
        for (size_t k = 0; k + 1 < n; k++)
            for (int j = 1; j <= 10000; j++) {
                double x = eps[k] + (eps[k + 1] - eps[k]) * j / 10000.0;
                double F = F_at(&c, x);
                over[m] = fmax(over[m], fmax(-F, F - 1.0));
                back[m] = fmax(back[m], prev - F);
                prev = F;
            }
        ldem_energy_curve_free(&c);
    }
    cr_log_info("step: pchip overshoot %.2g decrease %.2g; spline overshoot %.2g", over[0],
                back[0], over[1]);
    cr_assert_leq(over[0], 1e-15, "pchip leaves [0, 1] by %g", over[0]);
    cr_assert_leq(back[0], 1e-15, "pchip decreases by %g", back[0]);
    cr_assert_geq(over[1], 1e-2, "the spline was expected to overshoot");
}

/* End-slope limiting by hand (unit spacing, h0 = h1 = 1): the three-point slope is
 * (3δ0 − δ1)/2. δ = (1, 4): −0.5 is against the secant → 0. δ = (1, −4): 3.5 > 3δ0 at a
 * turning point → 3. δ = (1, 2): 0.5, kept. Right end mirrored (δ0 the last secant):
 * (3·4 − 1)/2 = 5.5 kept; (−12 − 1)/2 = −6.5 kept (|m| < 3·4); (6 − 1)/2 = 2.5. */
Test(energy, pchip_end_slopes_by_hand)
{
    const double eps[] = {0.0, 1.0, 2.0};
    const double cases[][3] = {{0, 1, 5}, {0, 1, -3}, {0, 1, 3}};
    const double left[] = {0.0, 3.0, 0.5}, right[] = {5.5, -6.5, 2.5};
    for (int i = 0; i < 3; i++) {
        ldem_energy_curve c;
        curve_make(&c, eps, cases[i], 3, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE);
        cr_assert_leq(fabs(dF_at(&c, 0.0) - left[i]), 1e-15, "case %d left slope %g", i,
                      dF_at(&c, 0.0));
        cr_assert_leq(fabs(dF_at(&c, 2.0) - right[i]), 1e-15, "case %d right slope %g", i,
                      dF_at(&c, 2.0));
        ldem_energy_curve_free(&c);
    }
}

/* ---- U is the integral of F ------------------------------------------------------------- */

typedef struct simpson_ctx {
    const ldem_energy_curve *c;
    int evaluations;
} simpson_ctx;

static double simpson_f(simpson_ctx *s, double x)
{
    s->evaluations++;
    return F_at(s->c, x);
}

static double adaptive_simpson(simpson_ctx *s, double a, double b, double fa, double fm,
                               double fb, double whole, double tol, int depth)
{
    double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm = simpson_f(s, lm), frm = simpson_f(s, rm);
    double left = (m - a) / 6.0 * (fa + 4 * flm + fm), right = (b - m) / 6.0 * (fm + 4 * frm + fb);
    double delta = left + right - whole;
    if (depth <= 0 || fabs(delta) <= 15.0 * tol)
        return left + right + delta / 15.0;
    return adaptive_simpson(s, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1) +
           adaptive_simpson(s, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1);
}

static double integrate_F(const ldem_energy_curve *c, double a, double b, double tol)
{
    simpson_ctx s = {c, 0};
    double fa = simpson_f(&s, a), fb = simpson_f(&s, b), fm = simpson_f(&s, 0.5 * (a + b));
    double whole = (b - a) / 6.0 * (fa + 4 * fm + fb);
    return adaptive_simpson(&s, a, b, fa, fm, fb, whole, tol, 40);
}

/* U(x) − U(a) against adaptive Simpson of the library's F (which knows nothing of the knots
 * and only sees F's values) to 1e-10 relative, on jittered knots with a positive F, for
 * every kind; anchoring: 0 is inside the table, so U(0) = 0 to round-off. */
Test(energy, energy_is_integral_of_force)
{
    rng_seed(14);
    const size_t n = 23;
    double eps[23], force[23];
    knots(eps, n, -0.5, 2.5, 1);
    for (size_t k = 0; k < n; k++)
        force[k] = smooth_force(eps[k]);
    for (int m = 0; m < 3; m++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, n, ALL_INTERPS[m], LDEM_EXTRAP_NONE);
        double worst = 0;
        for (int j = 1; j <= 40; j++) {
            double x = -0.5 + 3.0 * j / 40.0 - 0.013 * j / 40.0;
            double want = integrate_F(&c, -0.5, x, 1e-14);
            double got = U_at(&c, x) - U_at(&c, -0.5);
            worst = fmax(worst, fabs(got - want) / fabs(want));
        }
        cr_log_info("%s: U vs Simpson of F: max rel %.2g", ldem_interp_name(ALL_INTERPS[m]),
                    worst);
        cr_assert_leq(worst, 1e-10, "%s: rel err %g", ldem_interp_name(ALL_INTERPS[m]), worst);
        cr_assert_leq(fabs(U_at(&c, 0.0)), 1e-15, "U(0) = %g", U_at(&c, 0.0));
        ldem_energy_curve_free(&c);
    }
}

/* (U(ε+h) − U(ε−h))/2h against F(ε) with h = 1e-5 at points at least 2h from any knot (F
 * may only be C⁰ there): truncation h²|F''|/6 ≈ 1e-10, round-off 1e-16·|U|/h ≈ 1e-11, both
 * far below the 1e-7 relative asked (F ≥ 0.5 here). */
Test(energy, force_is_derivative_of_energy)
{
    rng_seed(15);
    const size_t n = 17;
    double eps[17], force[17];
    knots(eps, n, 0.0, 2.0, 1);
    for (size_t k = 0; k < n; k++)
        force[k] = smooth_force(eps[k]) + 0.05 * uniform();
    const double h = 1e-5;
    for (int m = 0; m < 3; m++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, n, ALL_INTERPS[m], LDEM_EXTRAP_NONE);
        double worst = 0;
        int checked = 0;
        for (int j = 1; j < 500; j++) {
            double x = 2.0 * j / 500.0;
            int near_knot = 0;
            for (size_t k = 0; k < n; k++)
                near_knot |= fabs(x - eps[k]) < 2 * h;
            if (near_knot)
                continue;
            double fd = (U_at(&c, x + h) - U_at(&c, x - h)) / (2 * h);
            worst = fmax(worst, fabs(fd - F_at(&c, x)) / fabs(F_at(&c, x)));
            checked++;
        }
        cr_log_info("%s: central difference of U vs F: max rel %.2g over %d points",
                    ldem_interp_name(ALL_INTERPS[m]), worst, checked);
        cr_assert_geq(checked, 400);
        cr_assert_leq(worst, 1e-7, "%s: rel err %g", ldem_interp_name(ALL_INTERPS[m]), worst);
        ldem_energy_curve_free(&c);
    }
}

/* A table that does not contain 0 is anchored at its first knot. */
Test(energy, anchor_without_zero)
{
    const double eps[] = {0.5, 1.0, 2.0}, force[] = {1.0, 2.0, 4.0};
    double energy[3];
    ldem_err err;
    cr_assert_eq(ldem_energy_integrate(eps, force, 3, LDEM_INTERP_LINEAR, energy, &err),
                 LDEM_OK);
    /* Trapezoids: 0.75, then 0.75 + 3 = 3.75. */
    cr_assert_eq(energy[0], 0.0);
    cr_assert_leq(fabs(energy[1] - 0.75), 1e-15);
    cr_assert_leq(fabs(energy[2] - 3.75), 1e-15);
}

/* ---- extrapolation ---------------------------------------------------------------------- */

/* PCHIP on ε = (0, 1, 2), F = (0, 1, 3), by hand: secants 1, 2; interior slope
 * 6/(3/1 + 3/2) = 4/3; end slopes (3·1 − 2)/2 = 1/2 and (3·2 − 1)/2 = 5/2. The end
 * intervals' F'' at the end knots: left (6·1 − 4·½ − 2·4/3)/1 = 4/3, right
 * (−6·2 + 2·4/3 + 4·5/2)/1 = 2/3. U(2) = Σ [h(F_i+F_{i+1})/2 + h²(m_i − m_{i+1})/12]
 * = (1/2 − 5/72) + (2 − 7/72) = 7/3. So beyond the right end (d = ε − 2)
 *   linear:    F = 3 + 5/2 d,            U = 7/3 + 3d + 5/4 d²
 *   quadratic: F = 3 + 5/2 d + 1/3 d²,   U = 7/3 + 3d + 5/4 d² + 1/9 d³
 * and before the left end (d = ε): F = d/2 (+ 2/3 d²), U = d²/4 (+ 2/9 d³). */
static const double HAND_EPS[] = {0.0, 1.0, 2.0}, HAND_F[] = {0.0, 1.0, 3.0};

static void hand_formula(int quadratic, double x, double *U, double *F, double *dF)
{
    double q = quadratic ? 1.0 : 0.0;
    if (x > 2.0) {
        double d = x - 2.0;
        *F = 3.0 + 2.5 * d + q * d * d / 3.0;
        *U = 7.0 / 3.0 + 3.0 * d + 1.25 * d * d + q * d * d * d / 9.0;
        *dF = 2.5 + q * 2.0 * d / 3.0;
    } else {
        double d = x;
        *F = 0.5 * d + q * 2.0 / 3.0 * d * d;
        *U = 0.25 * d * d + q * 2.0 / 9.0 * d * d * d;
        *dF = 0.5 + q * 4.0 / 3.0 * d;
    }
}

Test(energy, extrapolation_by_hand)
{
    for (int quadratic = 0; quadratic < 2; quadratic++) {
        ldem_energy_curve c;
        curve_make(&c, HAND_EPS, HAND_F, 3, LDEM_INTERP_PCHIP,
                   quadratic ? LDEM_EXTRAP_QUADRATIC : LDEM_EXTRAP_LINEAR);
        cr_assert_leq(fabs(U_at(&c, 2.0) - 7.0 / 3.0), 1e-15, "U(2) = %.17g", U_at(&c, 2.0));
        const double xs[] = {-3.0, -0.5, -1e-9, 2.0 + 1e-9, 2.25, 3.0, 10.0};
        for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
            double U, F, dF, Uw, Fw, dFw;
            cr_assert_eq(ldem_energy_at(&c, xs[i], &U, &F, &dF), LDEM_OK);
            hand_formula(quadratic, xs[i], &Uw, &Fw, &dFw);
            double scale = 1.0 + fabs(Uw) + fabs(Fw);
            cr_assert_leq(fabs(U - Uw), 1e-14 * scale, "%s at %g: U %.17g want %.17g",
                          quadratic ? "quadratic" : "linear", xs[i], U, Uw);
            cr_assert_leq(fabs(F - Fw), 1e-14 * scale, "%s at %g: F %.17g want %.17g",
                          quadratic ? "quadratic" : "linear", xs[i], F, Fw);
            cr_assert_leq(fabs(dF - dFw), 1e-14 * scale, "%s at %g: dF %.17g want %.17g",
                          quadratic ? "quadratic" : "linear", xs[i], dF, dFw);
        }
        ldem_energy_curve_free(&c);
    }
}

/* LINEAR interpolation continues with the last secant; its quadratic extrapolation adds
 * nothing (the chord has no curvature). ε = (1, 2, 4), F = (1, 5, 6): secants 4 and 1/2,
 * U(1) = 0, U(2) = 3, U(4) = 14. */
Test(energy, extrapolation_of_linear_table)
{
    const double eps[] = {1.0, 2.0, 4.0}, force[] = {1.0, 5.0, 6.0};
    for (int quadratic = 0; quadratic < 2; quadratic++) {
        ldem_energy_curve c;
        curve_make(&c, eps, force, 3, LDEM_INTERP_LINEAR,
                   quadratic ? LDEM_EXTRAP_QUADRATIC : LDEM_EXTRAP_LINEAR);
        double U, F, dF;
        cr_assert_eq(ldem_energy_at(&c, 6.0, &U, &F, &dF), LDEM_OK);
        cr_assert_leq(fabs(F - 7.0), 1e-14, "F(6) %g", F);
        cr_assert_leq(fabs(U - (14.0 + 6.0 * 2 + 0.25 * 4)), 1e-13, "U(6) %g", U);
        cr_assert_leq(fabs(dF - 0.5), 1e-15);
        cr_assert_eq(ldem_energy_at(&c, 0.0, &U, &F, &dF), LDEM_OK);
        cr_assert_leq(fabs(F - (-3.0)), 1e-14, "F(0) %g", F);
        cr_assert_leq(fabs(U - (-1.0 + 0.5 * 4)), 1e-14, "U(0) %g", U);
        cr_assert_leq(fabs(dF - 4.0), 1e-15);
        ldem_energy_curve_free(&c);
    }
}

/* Without extrapolation ε outside [ε_0, ε_{n−1}] (or NaN) is an error naming ε and the
 * range; the ends themselves are inside. */
Test(energy, outside_without_extrapolation)
{
    ldem_energy_curve c;
    curve_make(&c, HAND_EPS, HAND_F, 3, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE);
    double U = 123.0;
    cr_assert_eq(ldem_energy_at(&c, 2.5, &U, NULL, NULL), LDEM_ERR_INPUT);
    cr_assert_eq(U, 123.0, "output written on failure");
    cr_assert_eq(ldem_energy_at(&c, -1e-12, NULL, NULL, NULL), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_energy_at(&c, NAN, NULL, NULL, NULL), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_energy_at(&c, 0.0, NULL, NULL, NULL), LDEM_OK);
    cr_assert_eq(ldem_energy_at(&c, 2.0, NULL, NULL, NULL), LDEM_OK);
    ldem_err err;
    cr_assert_eq(ldem_energy_eval(&c, 2.5, NULL, NULL, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "2.5") && strstr(err.msg, "[0, 2]"), "message: %s", err.msg);
    ldem_energy_curve_free(&c);
    /* With extrapolation a NaN is still refused. */
    curve_make(&c, HAND_EPS, HAND_F, 3, LDEM_INTERP_PCHIP, LDEM_EXTRAP_LINEAR);
    cr_assert_eq(ldem_energy_at(&c, NAN, NULL, NULL, NULL), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_energy_at(&c, INFINITY, NULL, NULL, NULL), LDEM_ERR_INPUT);
    ldem_energy_curve_free(&c);
}

/* ---- prepare's checks ------------------------------------------------------------------- */

/* Stored U perturbed by 1e-6 relative at one knot is 1000× the tolerance (1e-9 of the U
 * scale): rejected, naming that knot; 1e-12 relative passes. */
Test(energy, prepare_rejects_inconsistent_energy)
{
    rng_seed(16);
    double eps[12], force[12];
    knots(eps, 12, 0.0, 1.0, 1);
    for (size_t k = 0; k < 12; k++)
        force[k] = smooth_force(eps[k]);
    for (int m = 0; m < 3; m++) {
        table tb;
        table_make(&tb, eps, force, 12, ALL_INTERPS[m], LDEM_EXTRAP_NONE);
        ldem_energy_curve c;
        ldem_err err;
        tb.t.energy[7] *= 1.0 + 1e-12;
        cr_assert_eq(ldem_energy_prepare(&tb.t, &c, &err), LDEM_OK, "%s", err.msg);
        ldem_energy_curve_free(&c);
        tb.t.energy[7] *= 1.0 + 1e-6;
        cr_assert_eq(ldem_energy_prepare(&tb.t, &c, &err), LDEM_ERR_INPUT);
        cr_assert(strstr(err.msg, "knot 7"), "message: %s", err.msg);
        cr_assert_null(c.eps, "curve left allocated after failure");
    }
}

/* Samples that cannot be a table. */
Test(energy, prepare_rejects_bad_samples)
{
    double eps[] = {0.0, 1.0, 1.0}, force[] = {0.0, 1.0, 2.0}, energy[3];
    ldem_err err;
    cr_assert_eq(ldem_energy_integrate(eps, force, 3, LDEM_INTERP_PCHIP, energy, &err),
                 LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "increase"), "%s", err.msg);
    eps[2] = 2.0;
    cr_assert_eq(ldem_energy_integrate(eps, force, 1, LDEM_INTERP_PCHIP, energy, &err),
                 LDEM_ERR_INPUT);
    cr_assert_eq(ldem_energy_integrate(eps, force, 3, 7, energy, &err), LDEM_ERR_INPUT);
    force[1] = NAN;
    cr_assert_eq(ldem_energy_integrate(eps, force, 3, LDEM_INTERP_LINEAR, energy, &err),
                 LDEM_ERR_INPUT);
    force[1] = 1.0;
    table tb;
    table_make(&tb, eps, force, 3, LDEM_INTERP_LINEAR, 3);
    ldem_energy_curve c;
    cr_assert_eq(ldem_energy_prepare(&tb.t, &c, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "extrapolation"), "%s", err.msg);
}

/* ---- Henzel & Karapiperis, Appendix B --------------------------------------------------- */

static const double APPB_EPS[] = {0,       0.004,   0.008,   0.014,   0.023,   0.0365,
                                  0.04156, 0.04916, 0.06055, 0.07763, 0.08404, 0.09365,
                                  0.10807, 0.11347, 0.12158, 0.13375, 0.15199, 0.16};
static const double APPB_F[] = {0,      4.12,   11.95,  28.63,  63.39,   134.77,
                                167.32, 222.16, 317.71, 493.45, 569.48,  694.49,
                                908.45, 996.90, 1138.99, 1373.51, 1777.76, 1974.62};

/* PCHIP through the paper's table: F non-decreasing on 10^4 points per interval, exact at
 * the data, and U(0.16) within 1% of the trapezoid rule on the samples (F is convex, so the
 * trapezoid overestimates slightly; the two differ by O(h²F'')). */
Test(energy, appendix_b_table)
{
    const size_t n = sizeof APPB_EPS / sizeof *APPB_EPS;
    ldem_energy_curve c;
    curve_make(&c, APPB_EPS, APPB_F, n, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE);
    double prev = F_at(&c, 0.0), back = 0;
    for (size_t k = 0; k + 1 < n; k++) {
        cr_assert_eq(F_at(&c, APPB_EPS[k]), APPB_F[k]);
        for (int j = 1; j <= 10000; j++) {
            double F = F_at(&c, APPB_EPS[k] + (APPB_EPS[k + 1] - APPB_EPS[k]) * j / 10000.0);
            back = fmax(back, prev - F);
            prev = F;
        }
    }
    double trap = 0;
    for (size_t k = 0; k + 1 < n; k++)
        trap += 0.5 * (APPB_EPS[k + 1] - APPB_EPS[k]) * (APPB_F[k] + APPB_F[k + 1]);
    double U = U_at(&c, 0.16);
    cr_log_info("Appendix B: U(0.16) = %.6g, trapezoid %.6g (rel %.2g), max decrease %.2g", U,
                trap, fabs(U - trap) / trap, back);
    cr_assert_leq(back, 0.0, "F decreases by %g", back);
    cr_assert_leq(fabs(U - trap), 0.01 * trap, "U(0.16) %g vs trapezoid %g", U, trap);
    cr_assert_eq(U_at(&c, 0.0), 0.0);
    ldem_energy_curve_free(&c);
}
