/* Unit tests of energyfit's numerics (tools/energyfit/fit.c).
 *
 * Tables: the paper's Appendix B table goes in as it is; F at its knots must come back
 * exactly, and U must be the integral of the F that ldem_energy_at evaluates, checked by
 * Simpson's rule per knot interval (exact for the piecewise cubics, so a tight tolerance)
 * and by the trapezoid sums for linear interpolation. Fits: a known quartic energy
 * U = 3ε² − 2ε³ + 5ε⁴ sampled with and without noise is recovered from energies and from
 * forces; the fitted coefficients are compared with the truth with tolerances derived
 * from the noise level, and the residuals with the noise that was added. Bad inputs give
 * the errors the CLI relies on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../support/test_rng.h"
#include "fit.h"
#include "ldem/energy.h"
#include "ldem/tsv.h"

#define APPENDIX_B LDEM_TEST_DATA "/energy/henzel-appendix-b.tsv"

/* ---- helpers ---- */

static ldem_table read_appendix_b(void)
{
    ldem_table t;
    ldem_err err;
    cr_assert_eq(ldem_tsv_read_path(APPENDIX_B, &t, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(t.ncols, 2);
    cr_assert_eq(t.nrows, 18);
    return t;
}

static void column(const ldem_table *t, size_t c, double *out)
{
    for (size_t i = 0; i < t->nrows; i++)
        out[i] = t->values[i * t->ncols + c];
}

static void prepare(const ldem_etab_table *t, ldem_energy_curve *c)
{
    ldem_err err;
    memset(c, 0, sizeof *c);
    cr_assert_eq(ldem_energy_prepare(t, c, &err), LDEM_OK, "%s", err.msg);
}

static double eval_U(const ldem_energy_curve *c, double eps)
{
    double U = NAN;
    cr_assert_eq(ldem_energy_at(c, eps, &U, NULL, NULL), LDEM_OK, "eps = %g", eps);
    return U;
}

static double eval_F(const ldem_energy_curve *c, double eps)
{
    double F = NAN;
    cr_assert_eq(ldem_energy_at(c, eps, NULL, &F, NULL), LDEM_OK, "eps = %g", eps);
    return F;
}

/* ∫_a^b F by Simpson's rule on F from ldem_energy_at: exact for a cubic piece. */
static double simpson(const ldem_energy_curve *c, double a, double b)
{
    return (b - a) / 6 * (eval_F(c, a) + 4 * eval_F(c, 0.5 * (a + b)) + eval_F(c, b));
}

/* The test energy and its derivative. */
static const double TRUE_COEFF[5] = {0, 0, 3, -2, 5};

static double true_U(double e)
{
    return 3 * e * e - 2 * e * e * e + 5 * e * e * e * e;
}

static double true_F(double e)
{
    return 6 * e - 6 * e * e + 20 * e * e * e;
}

static double poly_U(const fit_report *r, double e)
{
    double u = 0;
    for (int k = r->degree; k >= 0; k--)
        u = u * e + r->coeff[k];
    return u;
}

/* ---- tables ---- */

/* F at every knot, as stored and as evaluated, is the file's number exactly. */
Test(energyfit_table, appendix_b_reproduces_F_at_the_knots)
{
    ldem_table tsv = read_appendix_b();
    double eps[18], F[18];
    column(&tsv, 0, eps);
    column(&tsv, 1, F);
    const uint32_t kinds[] = {LDEM_INTERP_PCHIP, LDEM_INTERP_CUBIC, LDEM_INTERP_LINEAR};
    for (int k = 0; k < 3; k++) {
        ldem_etab_table t;
        fit_report rep;
        ldem_err err;
        cr_assert_eq(fit_from_table(eps, F, 18, tsv.lines, kinds[k], LDEM_EXTRAP_NONE,
                                    APPENDIX_B, &t, &rep, &err),
                     LDEM_OK, "%s", err.msg);
        cr_assert_eq(t.n, 18);
        cr_assert_eq(t.interp, kinds[k]);
        cr_assert_eq(t.extrapolate, LDEM_EXTRAP_NONE);
        cr_assert_eq(rep.rms_residual, 0);
        ldem_energy_curve c;
        prepare(&t, &c);
        for (size_t i = 0; i < 18; i++) {
            cr_assert_eq(t.eps[i], eps[i]);
            cr_assert_eq(t.force[i], F[i]);
            /* Hermite evaluation at a knot: exact, or within an ulp or two of 1974.62. */
            cr_assert_leq(fabs(eval_F(&c, eps[i]) - F[i]), 1e-12 * 1974.62,
                          "kind %u knot %zu: F %.17g vs %.17g", kinds[k], i, eval_F(&c, eps[i]),
                          F[i]);
        }
        cr_assert_eq(t.energy[0], 0.0, "U(0) = 0");
        ldem_energy_curve_free(&c);
        fit_table_free(&t);
    }
    ldem_table_free(&tsv);
}

/* U(ε) is the integral of F: Simpson per interval (exact for cubic pieces) at the knots and
 * at points inside the intervals, for every kind. Tolerance 1e-12 of U's scale (~108). */
Test(energyfit_table, appendix_b_energy_is_the_integral_of_F)
{
    ldem_table tsv = read_appendix_b();
    double eps[18], F[18];
    column(&tsv, 0, eps);
    column(&tsv, 1, F);
    const uint32_t kinds[] = {LDEM_INTERP_PCHIP, LDEM_INTERP_CUBIC, LDEM_INTERP_LINEAR};
    for (int k = 0; k < 3; k++) {
        ldem_etab_table t;
        fit_report rep;
        ldem_err err;
        cr_assert_eq(fit_from_table(eps, F, 18, NULL, kinds[k], LDEM_EXTRAP_NONE, "b", &t, &rep,
                                    &err), LDEM_OK, "%s", err.msg);
        ldem_energy_curve c;
        prepare(&t, &c);
        double integral = 0, tol = 1e-12 * t.energy[17];
        for (size_t i = 0; i + 1 < 18; i++) {
            for (int j = 1; j <= 4; j++) { /* inside the interval */
                double e = eps[i] + (eps[i + 1] - eps[i]) * j / 5.0;
                double want = integral + simpson(&c, eps[i], e);
                cr_assert_leq(fabs(eval_U(&c, e) - want), tol, "kind %u at %g", kinds[k], e);
            }
            integral += simpson(&c, eps[i], eps[i + 1]);
            cr_assert_leq(fabs(t.energy[i + 1] - integral), tol,
                          "kind %u knot %zu: stored U %.17g, integral %.17g", kinds[k], i + 1,
                          t.energy[i + 1], integral);
        }
        if (kinds[k] == LDEM_INTERP_LINEAR) { /* the trapezoid sums, written out */
            double trap = 0;
            for (size_t i = 0; i + 1 < 18; i++)
                trap += 0.5 * (eps[i + 1] - eps[i]) * (F[i] + F[i + 1]);
            cr_assert_leq(fabs(t.energy[17] - trap), tol);
        }
        ldem_energy_curve_free(&c);
        fit_table_free(&t);
    }
    ldem_table_free(&tsv);
}

/* The data rise monotonically; PCHIP's F must too, between the knots (500 points). */
Test(energyfit_table, appendix_b_pchip_is_monotone)
{
    ldem_table tsv = read_appendix_b();
    double eps[18], F[18];
    column(&tsv, 0, eps);
    column(&tsv, 1, F);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_table(eps, F, 18, NULL, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "b", &t,
                                &rep, &err), LDEM_OK, "%s", err.msg);
    ldem_energy_curve c;
    prepare(&t, &c);
    double prev = eval_F(&c, 0);
    for (int j = 1; j <= 500; j++) {
        double f = eval_F(&c, 0.16 * j / 500);
        cr_assert_geq(f, prev, "F decreases at eps = %g", 0.16 * j / 500);
        prev = f;
    }
    ldem_energy_curve_free(&c);
    fit_table_free(&t);
    ldem_table_free(&tsv);
}

/* Rows in any order give the same table. */
Test(energyfit_table, order_does_not_matter)
{
    const double eps[] = {0.3, 0, 0.1, 0.2}, F[] = {9, 0, 1, 4};
    const double sorted_eps[] = {0, 0.1, 0.2, 0.3}, sorted_F[] = {0, 1, 4, 9};
    ldem_etab_table a, b;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_table(eps, F, 4, NULL, LDEM_INTERP_PCHIP, LDEM_EXTRAP_LINEAR, "x",
                                &a, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(fit_from_table(sorted_eps, sorted_F, 4, NULL, LDEM_INTERP_PCHIP,
                                LDEM_EXTRAP_LINEAR, "x", &b, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(a.extrapolate, LDEM_EXTRAP_LINEAR);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(a.eps[i], sorted_eps[i]);
        cr_assert_eq(a.force[i], sorted_F[i]);
        cr_assert_eq(a.energy[i], b.energy[i]);
    }
    fit_table_free(&a);
    fit_table_free(&b);
}

/* A repeated ε names both input lines. */
Test(energyfit_table, duplicate_eps_names_both_lines)
{
    const double eps[] = {0, 0.1, 0.2, 0.1}, F[] = {0, 1, 2, 3};
    const long lines[] = {7, 8, 9, 12};
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(fit_from_table(eps, F, 4, lines, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                "f.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "f.tsv");
    cr_assert_eq(err.line, 12);
    cr_assert(strstr(err.msg, "repeats line 8"), "%s", err.msg);
    cr_assert_null(t.eps);
    /* Without line numbers: the rows. */
    cr_assert_eq(fit_from_table(eps, F, 4, NULL, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                "f.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "rows 2 and 4"), "%s", err.msg);
}

Test(energyfit_table, too_few_rows_and_bad_values)
{
    const double eps[] = {0.1, NAN}, F[] = {1, 2};
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_table(eps, F, 1, NULL, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "f",
                                &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "at least 2"), "%s", err.msg);
    const long lines[] = {3, 4};
    cr_assert_eq(fit_from_table(eps, F, 2, lines, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "f",
                                &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert_eq(err.line, 4);
    cr_assert_eq(fit_from_table(eps, F, 1, NULL, 7, LDEM_EXTRAP_NONE, "f", &t, &rep, &err),
                 LDEM_ERR_USAGE);
    cr_assert_eq(fit_from_table(eps, F, 1, NULL, LDEM_INTERP_PCHIP, 9, "f", &t, &rep, &err),
                 LDEM_ERR_USAGE);
}

/* A step in monotone data: the natural spline overshoots (negative tangent stiffness
 * between the knots), which is refused with a pointer to pchip; pchip accepts the same
 * data. A smooth monotone table passes with cubic. */
Test(energyfit_table, cubic_overshoot_on_monotone_data_is_refused)
{
    const double eps[] = {0, 1, 2, 3, 4, 5}, step[] = {0, 0, 0, 1, 1, 1};
    const long lines[] = {2, 3, 4, 5, 6, 7};
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_table(eps, step, 6, lines, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE,
                                "s.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "pchip"), "%s", err.msg);
    long reported = err.line;
    cr_assert_null(t.eps);
    /* Independently, by sampling the spline: F does decrease (the check is not vacuous), and
     * the first interval where it does is the one reported, by its left knot's line. */
    ldem_etab_table raw = {.interp = LDEM_INTERP_CUBIC, .n = 6, .eps = (double *)eps,
                           .force = (double *)step};
    double U[6];
    cr_assert_eq(ldem_energy_integrate(eps, step, 6, LDEM_INTERP_CUBIC, U, &err), LDEM_OK);
    raw.energy = U;
    ldem_energy_curve c;
    prepare(&raw, &c);
    int first_dip = -1;
    double steepest = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 100; j++) {
            double drop = eval_F(&c, i + (j + 1) / 100.0) - eval_F(&c, i + j / 100.0);
            if (drop < -1e-6 && first_dip < 0)
                first_dip = i;
            steepest = fmin(steepest, drop * 100);
        }
    cr_assert_geq(first_dip, 0);
    cr_assert_lt(steepest, -0.01, "the spline's F falls with slope %g", steepest);
    cr_assert_eq(reported, lines[first_dip]);
    ldem_energy_curve_free(&c);

    cr_assert_eq(fit_from_table(eps, step, 6, lines, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                "s.tsv", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    fit_table_free(&t);
    const double smooth[] = {0, 1, 4, 9, 16, 25};
    cr_assert_eq(fit_from_table(eps, smooth, 6, lines, LDEM_INTERP_CUBIC, LDEM_EXTRAP_NONE,
                                "s.tsv", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    fit_table_free(&t);
}

/* ---- polynomial fits ---- */

#define NFIT 25
/* ε_i = 0.02 i, i = 1..25: the range (0, 0.5]. */
static void fit_samples(double *eps, double *U, double *F, double noise_u, double noise_f)
{
    rng_seed(20240605);
    for (int i = 0; i < NFIT; i++) {
        eps[i] = 0.02 * (i + 1);
        U[i] = true_U(eps[i]) + noise_u * uniform();
        F[i] = true_F(eps[i]) + noise_f * uniform();
    }
}

static void check_coefficients(const fit_report *r, const double *tol, const char *what)
{
    for (int k = 0; k <= r->degree; k++) {
        double want = k <= 4 ? TRUE_COEFF[k] : 0;
        cr_assert_leq(fabs(r->coeff[k] - want), tol[k], "%s: a_%d = %.12g, expected %g", what,
                      k, r->coeff[k], want);
    }
}

/* Without noise the quartic is in the model: coefficients to round-off, residuals ~0,
 * the table's F exact at its knots, U within the interpolation error of PCHIP on
 * 33 knots. */
Test(energyfit_fit, energies_exact_quartic)
{
    double eps[NFIT], U[NFIT], F[NFIT];
    fit_samples(eps, U, F, 0, 0);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_energies(eps, U, NFIT, 4, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "e", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(rep.degree, 4);
    const double tol[5] = {0, 0, 1e-10, 1e-9, 1e-9};
    check_coefficients(&rep, tol, "exact energies");
    cr_assert_leq(rep.max_residual, 1e-13);
    cr_assert_eq(t.n, 33);
    cr_assert_eq(t.eps[0], 0.0, "the table starts at eps = 0");
    cr_assert_eq(t.eps[32], 0.5);
    for (size_t i = 0; i < t.n; i++) {
        cr_assert_leq(fabs(t.eps[i] - 0.5 * (double)i / 32), 1e-16);
        cr_assert_leq(fabs(t.force[i] - true_F(t.eps[i])), 1e-11);
        cr_assert_leq(fabs(t.energy[i] - true_U(t.eps[i])), 1e-5 * true_U(0.5));
    }
    /* The reported deviation is what it says, computed here from the coefficients. */
    double dev = 0;
    for (size_t i = 0; i < t.n; i++)
        dev = fmax(dev, fabs(t.energy[i] - poly_U(&rep, t.eps[i])));
    cr_assert_leq(fabs(rep.max_energy_dev - dev), 1e-14);
    cr_assert_gt(rep.max_energy_dev, 0, "PCHIP is not exact for a quartic");
    fit_table_free(&t);
}

/* Independent of fit.c: the normal equations (AᵀA) a = Aᵀy in the raw ε (basis ε^k, or
 * k ε^{k−1} for forces), solved by Gauss–Jordan elimination with partial pivoting, and
 * the standard deviation of each coefficient for noise of standard deviation σ,
 * σ·√((AᵀA)⁻¹)_kk. Good to ~1e-9 relative here (cond(AᵀA) ≈ cond(A)²). */
typedef struct normal_fit {
    double coeff[5], sd[5];
} normal_fit;

static normal_fit normal_equations(const double *eps, const double *y, int n, int forces,
                                   double sigma)
{
    enum { M = 3 }; /* a_2, a_3, a_4 */
    double g[M][2 * M] = {{0}}, rhs[M] = {0};
    for (int i = 0; i < n; i++) {
        double phi[M];
        for (int j = 0; j < M; j++) {
            int k = j + 2;
            phi[j] = forces ? k * pow(eps[i], k - 1) : pow(eps[i], k);
        }
        for (int r = 0; r < M; r++) {
            rhs[r] += phi[r] * y[i];
            for (int c = 0; c < M; c++)
                g[r][c] += phi[r] * phi[c];
        }
    }
    for (int r = 0; r < M; r++) /* [G | I] → [I | G⁻¹], carrying rhs along */
        g[r][M + r] = 1;
    for (int c = 0; c < M; c++) {
        int p = c;
        for (int r = c + 1; r < M; r++)
            if (fabs(g[r][c]) > fabs(g[p][c]))
                p = r;
        for (int j = 0; j < 2 * M; j++) {
            double tmp = g[c][j];
            g[c][j] = g[p][j];
            g[p][j] = tmp;
        }
        double tmp = rhs[c];
        rhs[c] = rhs[p];
        rhs[p] = tmp;
        double d = g[c][c];
        for (int j = 0; j < 2 * M; j++)
            g[c][j] /= d;
        rhs[c] /= d;
        for (int r = 0; r < M; r++)
            if (r != c) {
                double f = g[r][c];
                for (int j = 0; j < 2 * M; j++)
                    g[r][j] -= f * g[c][j];
                rhs[r] -= f * rhs[c];
            }
    }
    normal_fit out = {{0}, {0}};
    for (int j = 0; j < M; j++) {
        out.coeff[j + 2] = rhs[j];
        out.sd[j + 2] = sigma * sqrt(g[j][M + j]);
    }
    return out;
}

/* The fit equals the normal-equation solution of the same data to 1e-8 relative (measured
 * ≤ 1e-12), and the truth within 4 standard deviations of the estimate (z-scores measured
 * with this seed are listed per test). */
static void check_against_normal_equations(const fit_report *r, const normal_fit *ne)
{
    for (int k = 2; k <= 4; k++) {
        cr_assert_leq(fabs(r->coeff[k] - ne->coeff[k]), 1e-8 * fabs(ne->coeff[k]),
                      "a_%d = %.15g, normal equations %.15g", k, r->coeff[k], ne->coeff[k]);
        cr_assert_leq(fabs(r->coeff[k] - TRUE_COEFF[k]), 4 * ne->sd[k],
                      "a_%d = %.10g, true %g, standard deviation %.3g", k, r->coeff[k],
                      TRUE_COEFF[k], ne->sd[k]);
    }
}

/* Uniform noise of amplitude 1e-4 on U (σ = 5.8e-5; U(0.5) = 0.8125). Measured with this
 * seed: z-scores −0.61, 0.78, −0.86 for a_2..a_4, agreement with the normal equations
 * ≤ 1e-12; rms residual 5.47e-5 against σ·√((n − 3)/n) = 5.4e-5, which it must match within
 * 40%; the table's U within the noise amplitude of the true U (measured 3.3e-5). */
Test(energyfit_fit, energies_noisy_quartic)
{
    double eps[NFIT], U[NFIT], F[NFIT], amp = 1e-4, sigma = amp / sqrt(3.0);
    fit_samples(eps, U, F, amp, 0);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_energies(eps, U, NFIT, 4, 65, LDEM_INTERP_CUBIC, LDEM_EXTRAP_QUADRATIC,
                                   "e", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    normal_fit ne = normal_equations(eps, U, NFIT, 0, sigma);
    check_against_normal_equations(&rep, &ne);
    double expect = sigma * sqrt((NFIT - 3.0) / NFIT);
    cr_assert(rep.rms_residual > 0.6 * expect && rep.rms_residual < 1.4 * expect,
              "rms residual %g, noise %g", rep.rms_residual, expect);
    cr_assert_leq(rep.max_residual, amp * 2);
    /* The reported residuals are those of the reported coefficients, over n samples. */
    double sum = 0, worst = 0;
    for (int i = 0; i < NFIT; i++) {
        double r = poly_U(&rep, eps[i]) - U[i];
        sum += r * r;
        worst = fmax(worst, fabs(r));
    }
    cr_assert_leq(fabs(rep.rms_residual - sqrt(sum / NFIT)), 1e-9 * rep.rms_residual);
    cr_assert_leq(fabs(rep.max_residual - worst), 1e-9 * worst);
    cr_assert_eq(t.extrapolate, LDEM_EXTRAP_QUADRATIC);
    cr_assert_eq(t.interp, LDEM_INTERP_CUBIC);
    cr_assert_eq(t.n, 65);
    for (size_t i = 0; i < t.n; i++)
        cr_assert_leq(fabs(t.energy[i] - true_U(t.eps[i])), amp, "knot %zu", i);
    fit_table_free(&t);
}

/* A higher degree than needed: the extra coefficients come out 0 and the others right, to
 * 1e-9 (measured ≤ 1.5e-11: the scaled basis keeps degree 7 well conditioned). */
Test(energyfit_fit, energies_overfit_degree)
{
    double eps[NFIT], U[NFIT], F[NFIT];
    fit_samples(eps, U, F, 0, 0);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_energies(eps, U, NFIT, 7, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "e", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    const double tol[8] = {0, 0, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9};
    check_coefficients(&rep, tol, "degree 7");
    fit_table_free(&t);
}

/* Reaction forces, eq. 58: the same energy recovered through its derivative. Exact data:
 * coefficients to round-off, the table's F the polynomial's exactly, U within PCHIP's
 * error. Uniform noise of amplitude 1e-3 on F (F(0.5) = 4): as for energies (measured
 * z-scores 1.71, −1.57, 1.35; rms residual 5.70e-4 against 5.42e-4). */
Test(energyfit_fit, forces_recover_the_energy)
{
    double eps[NFIT], U[NFIT], F[NFIT];
    fit_samples(eps, U, F, 0, 0);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_forces(eps, F, NFIT, 4, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "f",
                                 &t, &rep, &err), LDEM_OK, "%s", err.msg);
    const double exact[5] = {0, 0, 1e-10, 1e-9, 1e-9};
    check_coefficients(&rep, exact, "exact forces");
    for (size_t i = 0; i < t.n; i++) {
        cr_assert_leq(fabs(t.force[i] - true_F(t.eps[i])), 1e-11);
        cr_assert_leq(fabs(t.energy[i] - true_U(t.eps[i])), 1e-5 * true_U(0.5));
    }
    fit_table_free(&t);

    double amp = 1e-3, sigma = amp / sqrt(3.0);
    fit_samples(eps, U, F, 0, amp);
    cr_assert_eq(fit_from_forces(eps, F, NFIT, 4, 33, LDEM_INTERP_LINEAR, LDEM_EXTRAP_NONE, "f",
                                 &t, &rep, &err), LDEM_OK, "%s", err.msg);
    normal_fit ne = normal_equations(eps, F, NFIT, 1, sigma);
    check_against_normal_equations(&rep, &ne);
    double expect = sigma * sqrt((NFIT - 3.0) / NFIT);
    cr_assert(rep.rms_residual > 0.6 * expect && rep.rms_residual < 1.4 * expect,
              "rms residual %g, noise %g", rep.rms_residual, expect);
    /* Linear F over 33 knots (h = 1/64): U is off by the trapezoid error, at the end
     * h²/12·(F'(0.5) − F'(0)) = 1.8e-4, plus the fit's noise (measured 1.9e-4 in all). */
    for (size_t i = 0; i < t.n; i++)
        cr_assert_leq(fabs(t.energy[i] - true_U(t.eps[i])), 3e-4, "knot %zu", i);
    fit_table_free(&t);
}

/* Data on both sides of 0 and data away from 0: the table spans the data and 0. */
Test(energyfit_fit, range_includes_zero)
{
    double eps[12], U[12];
    for (int i = 0; i < 12; i++) {
        eps[i] = -0.3 + 0.6 * i / 11;
        U[i] = true_U(eps[i]);
    }
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_energies(eps, U, 12, 4, 61, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "e",
                                   &t, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(t.eps[0], -0.3);
    cr_assert_eq(t.eps[60], 0.3);
    ldem_energy_curve c;
    prepare(&t, &c);
    cr_assert_leq(fabs(eval_U(&c, 0)), 1e-15, "U(0) = 0");
    cr_assert_leq(fabs(eval_U(&c, -0.3) - true_U(-0.3)), 1e-5);
    ldem_energy_curve_free(&c);
    fit_table_free(&t);

    for (int i = 0; i < 12; i++) {
        eps[i] = 0.1 + 0.03 * i;
        U[i] = true_U(eps[i]);
    }
    cr_assert_eq(fit_from_energies(eps, U, 12, 4, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "e",
                                   &t, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(t.eps[0], 0.0);
    cr_assert_eq(t.eps[32], eps[11]);
    cr_assert_eq(t.energy[0], 0.0);
    cr_assert_leq(fabs(t.energy[32] - true_U(eps[11])), 1e-5);
    fit_table_free(&t);
}

/* Too few samples, degrees out of range, too few distinct ε, an ill-conditioned fit. */
Test(energyfit_fit, bad_inputs_are_clear_errors)
{
    double eps[NFIT], U[NFIT], F[NFIT];
    fit_samples(eps, U, F, 0, 0);
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    /* degree 5: 4 unknowns need 5 samples */
    cr_assert_eq(fit_from_energies(eps, U, 4, 5, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "few.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "few.tsv");
    cr_assert(strstr(err.msg, "4 samples cannot fit degree 5"), "%s", err.msg);
    cr_assert_null(t.eps);
    cr_assert_eq(fit_from_forces(eps, F, 5, 5, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE, "f",
                                 &t, &rep, &err), LDEM_OK, "%s", err.msg);
    fit_table_free(&t);
    cr_assert_eq(fit_from_energies(eps, U, NFIT, 16, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "e", &t, &rep, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "degree 16"), "%s", err.msg);
    cr_assert_eq(fit_from_forces(eps, F, NFIT, 1, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                 "f", &t, &rep, &err), LDEM_ERR_USAGE);
    cr_assert_eq(fit_from_forces(eps, F, NFIT, 4, 1, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                 "f", &t, &rep, &err), LDEM_ERR_USAGE);
    /* Ten samples at two ε values cannot determine 3 coefficients. */
    double two[10], val[10];
    for (int i = 0; i < 10; i++) {
        two[i] = i % 2 ? 0.1 : 0.2;
        val[i] = true_U(two[i]);
    }
    cr_assert_eq(fit_from_energies(two, val, 10, 4, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "two.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "2 distinct nonzero eps"), "%s", err.msg);
    /* ... but they determine 2 (degree 3). */
    cr_assert_eq(fit_from_energies(two, val, 10, 3, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "two.tsv", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    fit_table_free(&t);
    /* Degree 12 on samples crowded into [0.999, 1]: the columns are nearly equal. */
    double crowd[30], cu[30];
    for (int i = 0; i < 30; i++) {
        crowd[i] = 0.999 + 0.001 * i / 29;
        cu[i] = true_U(crowd[i]);
    }
    cr_assert_eq(fit_from_energies(crowd, cu, 30, 12, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "crowd.tsv", &t, &rep, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "numerically singular"), "%s", err.msg);
    double zeros[6] = {0}, zu[6] = {0};
    cr_assert_eq(fit_from_energies(zeros, zu, 6, 2, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "z", &t, &rep, &err), LDEM_ERR_INPUT);
}

/* The highest degree on well-spread one-sided data still solves (the conditioning guard
 * must not refuse what the scaling makes well-posed). */
Test(energyfit_fit, degree_15_on_spread_data)
{
    double eps[40], U[40];
    for (int i = 0; i < 40; i++) {
        eps[i] = 0.005 * (i + 1);
        U[i] = true_U(eps[i]);
    }
    ldem_etab_table t;
    fit_report rep;
    ldem_err err;
    cr_assert_eq(fit_from_energies(eps, U, 40, 15, 33, LDEM_INTERP_PCHIP, LDEM_EXTRAP_NONE,
                                   "e", &t, &rep, &err), LDEM_OK, "%s", err.msg);
    cr_assert_leq(rep.max_residual, 1e-9);
    fit_table_free(&t);
}
