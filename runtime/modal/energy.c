/* Nonlinear modal energy: interpolating an ETAB table (see ldem/energy.h).
 *
 * Every interpolant here is a Hermite cubic on each interval [ε_i, ε_{i+1}] (width h,
 * local coordinate t = (ε − ε_i)/h):
 *     F(t) = F_i h00(t) + F_{i+1} h01(t) + h (m_i h10(t) + m_{i+1} h11(t))
 * with the knot slopes m chosen by the interpolation kind, except LINEAR, whose F is the
 * chord. Integrating the basis from 0 to t gives U in closed form, so F is exactly dU/dε
 * and the only approximation is the choice of interpolant itself. */
#include "ldem/energy.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- validation ------------------------------------------------------------------------ */

static int interp_known(uint32_t interp)
{
    return interp == LDEM_INTERP_LINEAR || interp == LDEM_INTERP_CUBIC ||
           interp == LDEM_INTERP_PCHIP;
}

static int extrapolate_known(uint32_t extrapolate)
{
    return extrapolate == LDEM_EXTRAP_NONE || extrapolate == LDEM_EXTRAP_LINEAR ||
           extrapolate == LDEM_EXTRAP_QUADRATIC;
}

/* The knots and forces must describe a function we can interpolate. */
static int check_samples(const double *eps, const double *force, size_t n, uint32_t interp,
                         ldem_err *err)
{
    if (!interp_known(interp))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "energy table: unknown interpolation %u (0 linear, 1 cubic, "
                            "2 pchip)", interp);
    if (n < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "energy table: %zu samples, at least 2 are needed", n);
    if (n > SIZE_MAX / sizeof(double))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "energy table: too many samples");
    for (size_t k = 0; k < n; k++) {
        if (!isfinite(eps[k]) || !isfinite(force[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "energy table: sample %zu (eps = %g, F = %g) is not finite", k,
                                eps[k], force[k]);
        if (k > 0 && !(eps[k] > eps[k - 1]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "energy table: eps must increase strictly, but sample %zu "
                                "(%.17g) follows %.17g", k, eps[k], eps[k - 1]);
    }
    return LDEM_OK;
}

/* ---- knot slopes ------------------------------------------------------------------------ */

static double secant(const double *eps, const double *force, size_t i)
{
    return (force[i + 1] - force[i]) / (eps[i + 1] - eps[i]);
}

/* Natural cubic spline: C² continuity at each interior knot i, written for Hermite slopes,
 *     h_i m_{i−1} + 2 (h_{i−1} + h_i) m_i + h_{i−1} m_{i+1} = 3 (h_i δ_{i−1} + h_{i−1} δ_i),
 * and F'' = 0 at both ends: 2 m_0 + m_1 = 3 δ_0 and m_{n−2} + 2 m_{n−1} = 3 δ_{n−2}.
 * The system is strictly diagonally dominant, so elimination without pivoting (Thomas) is
 * stable. `upper` is scratch for the eliminated super-diagonal (n entries). */
static void natural_spline_slopes(const double *eps, const double *force, size_t n,
                                  double *slope, double *upper)
{
    /* Row 0. */
    double diag = 2.0, sup = 1.0, rhs = 3.0 * secant(eps, force, 0);
    upper[0] = sup / diag;
    slope[0] = rhs / diag;
    for (size_t i = 1; i < n; i++) {
        double sub;
        if (i < n - 1) {
            double hl = eps[i] - eps[i - 1], hr = eps[i + 1] - eps[i];
            sub = hr;
            diag = 2.0 * (hl + hr);
            sup = hl;
            rhs = 3.0 * (hr * secant(eps, force, i - 1) + hl * secant(eps, force, i));
        } else {
            sub = 1.0;
            diag = 2.0;
            sup = 0.0;
            rhs = 3.0 * secant(eps, force, n - 2);
        }
        double pivot = diag - sub * upper[i - 1];
        upper[i] = sup / pivot;
        slope[i] = (rhs - sub * slope[i - 1]) / pivot;
    }
    for (size_t i = n - 1; i-- > 0;)
        slope[i] -= upper[i] * slope[i + 1];
}

/* End slope for PCHIP. The derivative at the end knot of the parabola through the first
 * three samples is
 *     m = ((2 h_0 + h_1) δ_0 − h_0 δ_1) / (h_0 + h_1)
 * (Newton form: p' = δ_0 + (x_0 − x_1)(δ_1 − δ_0)/(h_0 + h_1)). It must be limited to keep
 * the end interval monotone: a slope against the secant would make F turn back inside the
 * interval, so it becomes 0; and when the data turn at the second knot (δ_0, δ_1 of
 * opposite sign) the parabola can be steep enough to overshoot, so |m| is capped at
 * 3 |δ_0|, the edge of Fritsch and Carlson's monotonicity region. With δ_0, δ_1 of one sign
 * |m| < 2 |δ_0| already. Here h0, d0 belong to the end interval and h1, d1 to its
 * neighbour (mirrored for the right end; the formula is symmetric under reflection). */
static double pchip_end_slope(double h0, double h1, double d0, double d1)
{
    double m = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (m * d0 <= 0.0)
        return 0.0;
    if (d0 * d1 < 0.0 && fabs(m) > 3.0 * fabs(d0))
        return 3.0 * d0;
    return m;
}

/* Fritsch–Carlson slopes. At an interior knot where the neighbouring secants differ in
 * sign, or one is flat, the data have a local extremum or plateau there, so the slope is 0
 * (anything else overshoots). Otherwise a weighted harmonic mean of the secants, which lies
 * between them and never exceeds 3 × the smaller, so both adjacent intervals stay
 * monotone; the weights favour the shorter interval's secant (Fritsch and Butland). */
static void pchip_slopes(const double *eps, const double *force, size_t n, double *slope)
{
    if (n == 2) {
        slope[0] = slope[1] = secant(eps, force, 0);
        return;
    }
    for (size_t k = 1; k < n - 1; k++) {
        double hl = eps[k] - eps[k - 1], hr = eps[k + 1] - eps[k];
        double dl = secant(eps, force, k - 1), dr = secant(eps, force, k);
        if (dl * dr <= 0.0) {
            slope[k] = 0.0;
            continue;
        }
        double w1 = 2.0 * hr + hl, w2 = hr + 2.0 * hl;
        slope[k] = (w1 + w2) / (w1 / dl + w2 / dr);
    }
    slope[0] = pchip_end_slope(eps[1] - eps[0], eps[2] - eps[1], secant(eps, force, 0),
                               secant(eps, force, 1));
    slope[n - 1] = pchip_end_slope(eps[n - 1] - eps[n - 2], eps[n - 2] - eps[n - 3],
                                   secant(eps, force, n - 2), secant(eps, force, n - 3));
}

/* Slopes for the cubic kinds into slope[n]; nothing for LINEAR. */
static int compute_slopes(const double *eps, const double *force, size_t n, uint32_t interp,
                          double *slope, ldem_err *err)
{
    if (interp == LDEM_INTERP_PCHIP) {
        pchip_slopes(eps, force, n, slope);
    } else if (interp == LDEM_INTERP_CUBIC) {
        double *upper = malloc(n * sizeof *upper);
        if (!upper)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for a spline");
        natural_spline_slopes(eps, force, n, slope, upper);
        free(upper);
    }
    return LDEM_OK;
}

/* ---- one interval ----------------------------------------------------------------------- */

typedef struct segment {
    double e0, h;          /* left knot and width */
    double F0, F1;         /* end values */
    double m0, m1;         /* end slopes (cubic kinds) */
    int linear;
} segment;

static segment segment_of(const double *eps, const double *force, const double *slope,
                          size_t i)
{
    segment s = {eps[i], eps[i + 1] - eps[i], force[i], force[i + 1], 0.0, 0.0, slope == NULL};
    if (slope) {
        s.m0 = slope[i];
        s.m1 = slope[i + 1];
    }
    return s;
}

/* ∫_{e0}^{e0 + t h} F, F and dF/dε at local coordinate t. The integrated Hermite basis:
 *   ∫h00 = t⁴/2 − t³ + t,   ∫h01 = −t⁴/2 + t³,
 *   ∫h10 = t⁴/4 − 2t³/3 + t²/2,   ∫h11 = t⁴/4 − t³/3. */
static void segment_eval(const segment *s, double t, double *integral, double *F, double *dF)
{
    double h = s->h, t2 = t * t, t3 = t2 * t, t4 = t2 * t2;
    if (s->linear) {
        double rise = s->F1 - s->F0;
        *integral = h * (s->F0 * t + 0.5 * rise * t2);
        *F = s->F0 + rise * t;
        *dF = rise / h;
        return;
    }
    double H00 = 0.5 * t4 - t3 + t, H01 = -0.5 * t4 + t3;
    double H10 = 0.25 * t4 - (2.0 / 3.0) * t3 + 0.5 * t2, H11 = 0.25 * t4 - t3 / 3.0;
    *integral = h * (s->F0 * H00 + s->F1 * H01 + h * (s->m0 * H10 + s->m1 * H11));

    double h00 = 2.0 * t3 - 3.0 * t2 + 1.0, h01 = -2.0 * t3 + 3.0 * t2;
    double h10 = t3 - 2.0 * t2 + t, h11 = t3 - t2;
    *F = s->F0 * h00 + s->F1 * h01 + h * (s->m0 * h10 + s->m1 * h11);

    double d00 = 6.0 * (t2 - t); /* dh01/dt = −d00 */
    double d10 = 3.0 * t2 - 4.0 * t + 1.0, d11 = 3.0 * t2 - 2.0 * t;
    *dF = (s->F0 - s->F1) * d00 / h + s->m0 * d10 + s->m1 * d11;
}

/* ∫ of F over the whole interval: the trapezoid plus the Hermite end correction. */
static double segment_integral(const segment *s)
{
    double I = 0.5 * s->h * (s->F0 + s->F1);
    if (!s->linear)
        I += s->h * s->h * (s->m0 - s->m1) / 12.0;
    return I;
}

/* Second derivative of the interval's interpolant at its left (side 0) or right (side 1)
 * end, from inside; 0 for LINEAR. */
static double segment_curvature(const segment *s, int side)
{
    if (s->linear)
        return 0.0;
    double d = (s->F1 - s->F0) / s->h;
    if (side == 0)
        return (6.0 * d - 4.0 * s->m0 - 2.0 * s->m1) / s->h;
    return (-6.0 * d + 2.0 * s->m0 + 4.0 * s->m1) / s->h;
}

/* Interval i with eps[i] <= x <= eps[i+1] for x within the table (binary search). */
static size_t find_interval(const double *eps, size_t n, double x)
{
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (x < eps[mid])
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* ---- consistent energies ---------------------------------------------------------------- */

/* Energies of the interpolant given its slopes (NULL for LINEAR), anchored as documented. */
static void integrate_with_slopes(const double *eps, const double *force, const double *slope,
                                  size_t n, double *energy)
{
    energy[0] = 0.0;
    for (size_t i = 0; i + 1 < n; i++) {
        segment s = segment_of(eps, force, slope, i);
        energy[i + 1] = energy[i] + segment_integral(&s);
    }
    if (!(eps[0] <= 0.0 && 0.0 <= eps[n - 1]))
        return;
    size_t i = find_interval(eps, n, 0.0);
    segment s = segment_of(eps, force, slope, i);
    double partial, F, dF;
    segment_eval(&s, (0.0 - s.e0) / s.h, &partial, &F, &dF);
    double at_zero = energy[i] + partial;
    for (size_t k = 0; k < n; k++)
        energy[k] -= at_zero;
    /* A knot at 0 must read exactly 0, not a rounding residue of the subtraction. */
    for (size_t k = 0; k < n; k++)
        if (eps[k] == 0.0)
            energy[k] = 0.0;
}

int ldem_energy_integrate(const double *eps, const double *force, size_t n, uint32_t interp,
                          double *energy, ldem_err *err)
{
    int rc = check_samples(eps, force, n, interp, err);
    if (rc)
        return rc;
    double *slope = NULL;
    if (interp != LDEM_INTERP_LINEAR) {
        slope = malloc(n * sizeof *slope);
        if (!slope)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for slopes");
        rc = compute_slopes(eps, force, n, interp, slope, err);
    }
    if (!rc)
        integrate_with_slopes(eps, force, slope, n, energy);
    free(slope);
    return rc;
}

/* ---- the curve -------------------------------------------------------------------------- */

void ldem_energy_curve_free(ldem_energy_curve *c)
{
    free(c->eps);
    free(c->energy);
    free(c->force);
    free(c->slope);
    memset(c, 0, sizeof *c);
}

static double *copy_doubles(const double *src, size_t n)
{
    double *dst = malloc(n * sizeof *dst);
    if (dst)
        memcpy(dst, src, n * sizeof *dst);
    return dst;
}

static double max_abs(const double *a, size_t n)
{
    double m = 0.0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(a[k]));
    return m;
}

/* The stored U must equal the integral of the interpolated F (anchored like
 * ldem_energy_integrate), within the header's tolerance; names the worst knot. */
static int verify_energies(const ldem_energy_curve *c, uint32_t mode, ldem_err *err)
{
    double *want = malloc(c->n * sizeof *want);
    if (!want)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    integrate_with_slopes(c->eps, c->force, c->slope, c->n, want);
    double range = c->eps[c->n - 1] - c->eps[0];
    double tol = 1e-9 * (max_abs(c->energy, c->n) + max_abs(c->force, c->n) * range);
    size_t worst = 0;
    double worst_diff = -1.0;
    for (size_t k = 0; k < c->n; k++) {
        double diff = fabs(c->energy[k] - want[k]);
        if (!(diff <= worst_diff)) { /* also catches a NaN difference */
            worst = k;
            worst_diff = diff;
        }
    }
    int rc = LDEM_OK;
    if (!(worst_diff <= tol))
        rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                          "energy table of mode %u: U is not the integral of the %s-"
                          "interpolated F; worst at knot %zu (eps = %.17g): stored U = %.17g, "
                          "integral = %.17g (difference %.3g > tolerance %.3g)",
                          mode, ldem_interp_name(c->interp), worst, c->eps[worst],
                          c->energy[worst], want[worst], worst_diff, tol);
    free(want);
    return rc;
}

int ldem_energy_prepare(const ldem_etab_table *t, ldem_energy_curve *c, ldem_err *err)
{
    memset(c, 0, sizeof *c);
    if (t->n > SIZE_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "energy table: too many samples");
    size_t n = (size_t)t->n;
    int rc = check_samples(t->eps, t->force, n, t->interp, err);
    if (rc)
        return rc;
    if (!extrapolate_known(t->extrapolate))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "energy table of mode %u: unknown extrapolation %u (0 none, "
                            "1 linear, 2 quadratic)", t->mode, t->extrapolate);
    for (size_t k = 0; k < n; k++)
        if (!isfinite(t->energy[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "energy table of mode %u: U at knot %zu is not finite",
                                t->mode, k);
    c->n = n;
    c->interp = t->interp;
    c->extrapolate = t->extrapolate;
    c->eps = copy_doubles(t->eps, n);
    c->energy = copy_doubles(t->energy, n);
    c->force = copy_doubles(t->force, n);
    int ok = c->eps && c->energy && c->force;
    if (ok && t->interp != LDEM_INTERP_LINEAR)
        ok = (c->slope = malloc(n * sizeof *c->slope)) != NULL;
    rc = ok ? LDEM_OK : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    if (!rc)
        rc = compute_slopes(c->eps, c->force, n, c->interp, c->slope, err);
    if (!rc)
        rc = verify_energies(c, t->mode, err);
    if (rc)
        ldem_energy_curve_free(c);
    return rc;
}

/* Beyond the end knot: the Taylor polynomial of the end interval's interpolant there, of
 * degree 1 or 2 in F, and its integral for U. */
static void extrapolate(const ldem_energy_curve *c, int right, double x, double *U, double *F,
                        double *dF)
{
    size_t n = c->n, i = right ? n - 2 : 0, knot = right ? n - 1 : 0;
    segment s = segment_of(c->eps, c->force, c->slope, i);
    double d1 = s.linear ? (s.F1 - s.F0) / s.h : (right ? s.m1 : s.m0);
    double d2 = c->extrapolate == LDEM_EXTRAP_QUADRATIC ? segment_curvature(&s, right) : 0.0;
    double d = x - c->eps[knot], Fe = c->force[knot];
    *U = c->energy[knot] + d * (Fe + d * (0.5 * d1 + d * d2 / 6.0));
    *F = Fe + d * (d1 + 0.5 * d * d2);
    *dF = d1 + d * d2;
}

int ldem_energy_eval(const ldem_energy_curve *c, double eps, double *U, double *F, double *dF,
                     ldem_err *err)
{
    double u, f, df;
    size_t n = c->n;
    double lo = c->eps[0], hi = c->eps[n - 1];
    if (eps >= lo && eps <= hi) {
        size_t i = find_interval(c->eps, n, eps);
        segment s = segment_of(c->eps, c->force, c->slope, i);
        double partial;
        segment_eval(&s, (eps - s.e0) / s.h, &partial, &f, &df);
        /* At a knot U is the stored sample: t = 0 gives it exactly, and the last knot
         * (t = 1) is taken from the table rather than re-summed. */
        u = eps == hi ? c->energy[n - 1] : c->energy[i] + partial;
    } else if (isfinite(eps) && c->extrapolate != LDEM_EXTRAP_NONE) {
        extrapolate(c, eps > hi, eps, &u, &f, &df);
    } else if (!isfinite(eps)) {
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "modal coordinate eps = %g is not finite (energy table [%g, %g])",
                            eps, lo, hi);
    } else {
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "modal coordinate eps = %.9g is outside the energy table "
                            "[%.9g, %.9g], which allows no extrapolation", eps, lo, hi);
    }
    if (U)
        *U = u;
    if (F)
        *F = f;
    if (dF)
        *dF = df;
    return LDEM_OK;
}

int ldem_energy_at(const ldem_energy_curve *c, double eps, double *U, double *F, double *dF)
{
    return ldem_energy_eval(c, eps, U, F, dF, NULL);
}
