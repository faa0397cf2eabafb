/* energyfit's numerics (fit.h): measured (ε, F) or (ε, U) samples → a consistent ETAB table.
 *
 * Whatever the source, the table's energies come from ldem_energy_integrate, i.e. they are
 * the integral of the same interpolated F that the runtime will evaluate, so the modal
 * force stays exactly dU/dε. The polynomial fits solve their least-squares problem in the
 * scaled coordinate x = ε / max|ε| (a monomial basis on [-1, 1] is far better conditioned
 * than one on the raw, often tiny, ε) and convert the coefficients back afterwards. */
#include "fit.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/energy.h"

/* Reciprocal condition number of the triangular factor below which the fit's
 * coefficients are noise: digits left ≈ 16 + log10(rcond). */
#define FIT_MIN_RCOND 1e-12

/* A monotone F table whose cubic interpolant has a slope of the wrong sign beyond this
 * fraction of the table's mean slope |ΔF| / Δε is rejected (round-off stays far below). */
#define FIT_MONOTONE_TOL 1e-9

void fit_table_free(ldem_etab_table *t)
{
    free(t->eps);
    free(t->energy);
    free(t->force);
    t->eps = t->energy = t->force = NULL;
    t->n = 0;
}

static int check_kinds(uint32_t interp, uint32_t extrapolate, ldem_err *err)
{
    if (interp != LDEM_INTERP_LINEAR && interp != LDEM_INTERP_CUBIC &&
        interp != LDEM_INTERP_PCHIP)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "unknown interpolation kind %u (0 linear, 1 cubic, 2 pchip)",
                            (unsigned)interp);
    if (extrapolate != LDEM_EXTRAP_NONE && extrapolate != LDEM_EXTRAP_LINEAR &&
        extrapolate != LDEM_EXTRAP_QUADRATIC)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "unknown extrapolation kind %u (0 none, 1 linear, 2 quadratic)",
                            (unsigned)extrapolate);
    return LDEM_OK;
}

static int alloc_table(ldem_etab_table *t, size_t n, uint32_t interp, uint32_t extrapolate,
                       const char *source, ldem_err *err)
{
    memset(t, 0, sizeof *t);
    t->eps = malloc(n * sizeof *t->eps);
    t->energy = malloc(n * sizeof *t->energy);
    t->force = malloc(n * sizeof *t->force);
    if (!t->eps || !t->energy || !t->force) {
        fit_table_free(t);
        return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory for %zu samples",
                            n);
    }
    t->n = n;
    t->interp = interp;
    t->extrapolate = extrapolate;
    return LDEM_OK;
}

static long line_of(const long *lines, size_t i)
{
    return lines ? lines[i] : 0;
}

/* ---- tables: sort, reject repeats, integrate ---- */

typedef struct row {
    double eps, force;
    size_t index;   /* position in the input, for line numbers and a stable order */
} row;

static int compare_rows(const void *a, const void *b)
{
    const row *p = a, *q = b;
    if (p->eps != q->eps)
        return p->eps < q->eps ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* Sorted copies of the rows; refuses non-finite values and repeated ε. */
static int sorted_rows(const double *eps, const double *force, size_t n, const long *lines,
                       const char *source, row **out, ldem_err *err)
{
    row *r = malloc(n * sizeof *r);
    if (!r)
        return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory for %zu rows", n);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(eps[i]) || !isfinite(force[i])) {
            free(r);
            return ldem_err_set(err, LDEM_ERR_INPUT, source, line_of(lines, i),
                                "eps = %g, F = %g: values must be finite numbers", eps[i],
                                force[i]);
        }
        r[i] = (row){eps[i], force[i], i};
    }
    qsort(r, n, sizeof *r, compare_rows);
    for (size_t i = 1; i < n; i++)
        if (r[i].eps == r[i - 1].eps) {
            long first = line_of(lines, r[i - 1].index), again = line_of(lines, r[i].index);
            int rc = first > 0
                         ? ldem_err_set(err, LDEM_ERR_INPUT, source, again,
                                        "eps = %.15g repeats line %ld: a table needs distinct "
                                        "eps values",
                                        r[i].eps, first)
                         : ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                        "eps = %.15g appears twice (rows %zu and %zu): a table "
                                        "needs distinct eps values",
                                        r[i].eps, r[i - 1].index + 1, r[i].index + 1);
            free(r);
            return rc;
        }
    *out = r;
    return LDEM_OK;
}

/* +1 when F never decreases over the knots, -1 when it never increases, 0 otherwise. */
static int monotone_direction(const double *force, size_t n)
{
    int up = 1, down = 1;
    for (size_t i = 1; i < n; i++) {
        if (force[i] < force[i - 1])
            up = 0;
        if (force[i] > force[i - 1])
            down = 0;
    }
    return up ? 1 : down ? -1 : 0;
}

/* Smallest value over s in [0, 1] of the derivative of the cubic Hermite piece with end
 * slopes m0, m1 and mean slope delta: F'(s) = m0 + (6Δ − 4m0 − 2m1) s + (3m0 + 3m1 − 6Δ) s²
 * (direction-adjusted by the caller). */
static double hermite_min_slope(double m0, double m1, double delta)
{
    double b = 6 * delta - 4 * m0 - 2 * m1, a = 3 * m0 + 3 * m1 - 6 * delta;
    double lo = fmin(m0, m1);
    if (a > 0) {
        double s = -b / (2 * a);
        if (s > 0 && s < 1)
            lo = fmin(lo, m0 + b * s + a * s * s);
    }
    return lo;
}

/* Where the data are monotone, the natural cubic spline may still overshoot (a negative
 * tangent stiffness, which the runtime's stability would not survive). Every piece of a C¹
 * piecewise cubic is the Hermite cubic of its end values and end slopes, so the knots'
 * slopes from ldem_energy_at decide it exactly. PCHIP and linear are monotone by design. */
static int check_cubic_monotone(const ldem_etab_table *t, const ldem_energy_curve *c,
                                const long *knot_lines, const char *source, ldem_err *err)
{
    int dir = monotone_direction(t->force, t->n);
    if (t->interp != LDEM_INTERP_CUBIC || dir == 0)
        return LDEM_OK;
    size_t n = t->n;
    double range = t->eps[n - 1] - t->eps[0];
    double mean_slope = fabs(t->force[n - 1] - t->force[0]) / range;
    double tol = FIT_MONOTONE_TOL * mean_slope;
    for (size_t i = 0; i + 1 < n; i++) {
        double h = t->eps[i + 1] - t->eps[i], m0, m1;
        if (ldem_energy_at(c, t->eps[i], NULL, NULL, &m0) ||
            ldem_energy_at(c, t->eps[i + 1], NULL, NULL, &m1))
            return ldem_err_set(err, LDEM_ERR_INTERNAL, source, 0,
                                "cannot evaluate the table at its own knots");
        double delta = (t->force[i + 1] - t->force[i]) / h;
        double lo = hermite_min_slope(dir * m0, dir * m1, dir * delta);
        if (lo < -tol)
            return ldem_err_set(err, LDEM_ERR_INPUT, source, line_of(knot_lines, i),
                                "F is %s in the data, but the natural cubic spline is not "
                                "between eps = %g and %g (slope %g): use --interp pchip "
                                "(monotone cubic) or linear",
                                dir > 0 ? "nondecreasing" : "nonincreasing", t->eps[i],
                                t->eps[i + 1], dir * lo);
    }
    return LDEM_OK;
}

/* Energies by integration, then the library's own consistency check and the cubic's
 * monotonicity, so a table leaving here is one the runtime accepts. */
static int finish_table(ldem_etab_table *t, const long *knot_lines, const char *source,
                        ldem_err *err)
{
    int rc = ldem_energy_integrate(t->eps, t->force, t->n, t->interp, t->energy, err);
    if (rc)
        return rc;
    /* Finite forces can still integrate beyond the largest double: blame the row. */
    for (size_t k = 0; k < t->n; k++)
        if (!isfinite(t->energy[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, source, line_of(knot_lines, k),
                                "the energy integrated up to eps = %g is beyond the largest "
                                "double: forces or strains too large (units?)",
                                t->eps[k]);
    ldem_energy_curve c;
    memset(&c, 0, sizeof c);
    rc = ldem_energy_prepare(t, &c, err);
    if (!rc)
        rc = check_cubic_monotone(t, &c, knot_lines, source, err);
    ldem_energy_curve_free(&c);
    return rc;
}

int fit_from_table(const double *eps, const double *force, size_t n, const long *lines,
                   uint32_t interp, uint32_t extrapolate, const char *source,
                   ldem_etab_table *t, fit_report *rep, ldem_err *err)
{
    memset(t, 0, sizeof *t);
    memset(rep, 0, sizeof *rep);
    int rc = check_kinds(interp, extrapolate, err);
    if (rc)
        return rc;
    if (n < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "a table needs at least 2 (eps, F) rows, got %zu", n);
    row *r = NULL;
    long *knot_lines = NULL;
    rc = sorted_rows(eps, force, n, lines, source, &r, err);
    if (!rc && lines && !(knot_lines = malloc(n * sizeof *knot_lines)))
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
    if (!rc)
        rc = alloc_table(t, n, interp, extrapolate, source, err);
    for (size_t i = 0; !rc && i < n; i++) {
        t->eps[i] = r[i].eps;
        t->force[i] = r[i].force;
        if (knot_lines)
            knot_lines[i] = lines[r[i].index];
    }
    if (!rc)
        rc = finish_table(t, knot_lines, source, err);
    free(r);
    free(knot_lines);
    if (rc)
        fit_table_free(t);
    return rc;
}

/* ---- polynomial energies U = Σ_{k=2..deg} c_k x^k, x = ε / scale ---- */

typedef struct poly {
    int degree;
    double scale;               /* max |ε| of the data */
    double c[FIT_MAX_DEGREE + 1]; /* coefficients in x; c[0] = c[1] = 0 */
} poly;

static double poly_energy(const poly *p, double eps)
{
    double x = eps / p->scale, u = 0;
    for (int k = p->degree; k >= 2; k--)
        u = (u + p->c[k]) * x;
    return u * x;
}

/* dU/dε = (1/scale) Σ k c_k x^{k−1}. */
static double poly_force(const poly *p, double eps)
{
    double x = eps / p->scale, f = 0;
    for (int k = p->degree; k >= 2; k--)
        f = f * x + k * p->c[k];
    return f * x / p->scale;
}

enum fit_target { FIT_ENERGY, FIT_FORCE };

/* Column k of the design matrix at x: x^k for energies, k x^{k−1} for forces (the latter
 * is dU/dx; the right-hand side is then scale · F). */
static double basis(enum fit_target target, int k, double x)
{
    return target == FIT_ENERGY ? pow(x, k) : k * pow(x, k - 1);
}

static size_t distinct_nonzero(const double *eps, size_t n, double *work)
{
    memcpy(work, eps, n * sizeof *work);
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is a handful of snapshots */
        double v = work[i];
        size_t j = i;
        for (; j > 0 && work[j - 1] > v; j--)
            work[j] = work[j - 1];
        work[j] = v;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (work[i] != 0 && (i == 0 || work[i] != work[i - 1]))
            count++;
    return count;
}

static int check_fit_input(const double *eps, const double *y, size_t n, int degree,
                           size_t samples, const char *source, double *scale, ldem_err *err)
{
    if (degree < FIT_MIN_DEGREE || degree > FIT_MAX_DEGREE)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "degree %d is outside %d..%d (U = a_2 eps^2 + ... + a_deg eps^deg)",
                            degree, FIT_MIN_DEGREE, FIT_MAX_DEGREE);
    if (samples < 2 || samples > FIT_MAX_SAMPLES)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "%zu table samples: expected 2 to %d", samples, FIT_MAX_SAMPLES);
    size_t unknowns = (size_t)degree - 1;
    if (n <= unknowns)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "%zu samples cannot fit degree %d: its %zu coefficients "
                            "(a_2..a_%d) need more than %zu samples; lower --degree",
                            n, degree, unknowns, degree, unknowns);
    *scale = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(eps[i]) || !isfinite(y[i]))
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                "sample %zu (eps = %g, %g) is not finite", i + 1, eps[i], y[i]);
        *scale = fmax(*scale, fabs(eps[i]));
    }
    if (!(*scale > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "every sample is at eps = 0: nothing to fit");
    double *work = malloc(n * sizeof *work);
    if (!work)
        return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
    size_t distinct = distinct_nonzero(eps, n, work);
    free(work);
    if (distinct < unknowns)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "only %zu distinct nonzero eps values cannot determine the %zu "
                            "coefficients of degree %d; lower --degree or add samples",
                            distinct, unknowns, degree);
    return LDEM_OK;
}

/* Solve min ‖A c − b‖ by QR (dgels), refusing a numerically rank-deficient A. */
static int solve_least_squares(enum fit_target target, const double *eps, const double *y,
                               size_t n, poly *p, const char *source, ldem_err *err)
{
    int m = p->degree - 1;
    double *a = malloc(n * (size_t)m * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        double x = eps[i] / p->scale;
        for (int j = 0; j < m; j++)
            a[i + n * (size_t)j] = basis(target, j + 2, x);   /* column-major */
        b[i] = target == FIT_ENERGY ? y[i] : y[i] * p->scale;
    }
    int rc = LDEM_OK;
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)n, m, 1, a,
                                    (lapack_int)n, b, (lapack_int)n);
    double rcond = 0;
    if (info == 0)
        info = LAPACKE_dtrcon(LAPACK_COL_MAJOR, '1', 'U', 'N', m, a, (lapack_int)n, &rcond);
    if (info < 0)
        rc = ldem_err_set(err, LDEM_ERR_INTERNAL, source, 0, "LAPACK argument %d is invalid",
                          (int)-info);
    else if (info > 0 || !(rcond >= FIT_MIN_RCOND))
        rc = ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                          "the degree-%d fit is numerically singular (reciprocal condition "
                          "%.2g): lower --degree or add samples spread over eps",
                          p->degree, info > 0 ? 0.0 : rcond);
    for (int k = 0; k <= FIT_MAX_DEGREE; k++)
        p->c[k] = (!rc && k >= 2 && k <= p->degree) ? b[k - 2] : 0;
    free(a);
    free(b);
    return rc;
}

static void report_residuals(enum fit_target target, const double *eps, const double *y,
                             size_t n, const poly *p, fit_report *rep)
{
    double sum = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double model = target == FIT_ENERGY ? poly_energy(p, eps[i]) : poly_force(p, eps[i]);
        double r = model - y[i];
        sum += r * r;
        worst = fmax(worst, fabs(r));
    }
    rep->rms_residual = sqrt(sum / (double)n);
    rep->max_residual = worst;
    rep->degree = p->degree;
    for (int k = 0; k <= FIT_MAX_DEGREE; k++)
        rep->coeff[k] = k <= p->degree ? p->c[k] / pow(p->scale, k) : 0;
}

/* The polynomial's F at `samples` equal steps over the data range widened to include 0. */
static int tabulate(const double *eps, size_t n, const poly *p, size_t samples,
                    uint32_t interp, uint32_t extrapolate, const char *source,
                    ldem_etab_table *t, fit_report *rep, ldem_err *err)
{
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, eps[i]);
        hi = fmax(hi, eps[i]);
    }
    int rc = alloc_table(t, samples, interp, extrapolate, source, err);
    if (rc)
        return rc;
    double step = (hi - lo) / (double)(samples - 1);
    for (size_t i = 0; i < samples; i++) {
        t->eps[i] = i + 1 == samples ? hi : lo + step * (double)i;
        t->force[i] = poly_force(p, t->eps[i]);
        if (i > 0 && !(t->eps[i] > t->eps[i - 1])) {
            fit_table_free(t);
            return ldem_err_set(err, LDEM_ERR_USAGE, source, 0,
                                "%zu samples over eps in [%g, %g] are not distinct numbers; "
                                "use fewer --samples", samples, lo, hi);
        }
    }
    rc = finish_table(t, NULL, source, err);
    if (rc) {
        fit_table_free(t);
        return rc;
    }
    rep->max_energy_dev = 0;
    for (size_t i = 0; i < samples; i++)
        rep->max_energy_dev =
            fmax(rep->max_energy_dev, fabs(t->energy[i] - poly_energy(p, t->eps[i])));
    return LDEM_OK;
}

static int fit_polynomial(enum fit_target target, const double *eps, const double *y, size_t n,
                          int degree, size_t samples, uint32_t interp, uint32_t extrapolate,
                          const char *source, ldem_etab_table *t, fit_report *rep,
                          ldem_err *err)
{
    memset(t, 0, sizeof *t);
    memset(rep, 0, sizeof *rep);
    poly p = {.degree = degree};
    int rc = check_kinds(interp, extrapolate, err);
    if (!rc)
        rc = check_fit_input(eps, y, n, degree, samples, source, &p.scale, err);
    if (!rc)
        rc = solve_least_squares(target, eps, y, n, &p, source, err);
    if (rc)
        return rc;
    report_residuals(target, eps, y, n, &p, rep);
    return tabulate(eps, n, &p, samples, interp, extrapolate, source, t, rep, err);
}

int fit_from_energies(const double *eps, const double *energy, size_t n, int degree,
                      size_t samples, uint32_t interp, uint32_t extrapolate,
                      const char *source, ldem_etab_table *t, fit_report *rep,
                      ldem_err *err)
{
    return fit_polynomial(FIT_ENERGY, eps, energy, n, degree, samples, interp, extrapolate,
                          source, t, rep, err);
}

int fit_from_forces(const double *eps, const double *force, size_t n, int degree,
                    size_t samples, uint32_t interp, uint32_t extrapolate,
                    const char *source, ldem_etab_table *t, fit_report *rep, ldem_err *err)
{
    return fit_polynomial(FIT_FORCE, eps, force, n, degree, samples, interp, extrapolate,
                          source, t, rep, err);
}
