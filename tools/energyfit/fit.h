/* energyfit's numerics: turn measurements into a consistent ETAB table.
 *
 *  - fit_from_table: (ε, F) pairs interpolated as they are (the paper's Appendix B way);
 *  - fit_from_energies: least squares of a polynomial energy U(ε) = Σ_{k=2..deg} a_k ε^k
 *    (U(0) = 0 and F(0) = 0: ε = 0 is the undeformed, unloaded grain) to (ε, U) samples,
 *    Henzel & Karapiperis eq. 56;
 *  - fit_from_forces: the same polynomial energy fitted through its derivative to
 *    (ε, F) reaction forces, eq. 58.
 * The fitted polynomial is tabulated at `samples` equally spaced ε over the data range
 * widened to include ε = 0 (F exact there), and the table's energies are the integral of the interpolated F
 * (ldem_energy_integrate), so the table is conservative whatever the fit. */
#ifndef ENERGYFIT_FIT_H
#define ENERGYFIT_FIT_H

#include <stddef.h>

#include "ldem/err.h"
#include "ldem/sections.h"

#define FIT_MIN_DEGREE 2
#define FIT_MAX_DEGREE 15          /* coeff[] below holds a_0..a_15 */
#define FIT_MAX_SAMPLES 1000000    /* knots of a fitted table: far beyond any use */

typedef struct fit_report {
    double rms_residual;      /* of the least-squares fit (0 for tables) */
    double max_residual;
    double max_energy_dev;    /* max |U_table − U_poly| over the samples (fits only) */
    double coeff[16];         /* polynomial coefficients a_0..a_deg (fits only) */
    int degree;
} fit_report;

/* Release the arrays of a table filled by one of the functions below (t may be zeroed). */
void fit_table_free(ldem_etab_table *t);

/* Table of n (ε, F) pairs (any order; must be distinct). interp, extrapolate as in
 * ldem/sections.h. Fills t (allocating its arrays). `source` names the input in errors
 * (e.g. duplicate ε, fewer than 2 rows, a monotone table whose cubic fit would not be),
 * and `lines` (NULL, or n input line numbers, as ldem_table.lines) the rows, so that
 * errors read FILE:LINE. */
int fit_from_table(const double *eps, const double *force, size_t n, const long *lines,
                   uint32_t interp, uint32_t extrapolate, const char *source,
                   ldem_etab_table *t, fit_report *rep, ldem_err *err);

/* Least squares (LAPACKE_dgels) of the polynomial energy; degree 2..15, and more samples
 * than the degree − 1 unknowns. The table spans the data's ε range widened to include
 * ε = 0 (the undeformed grain, where the runtime starts), with `samples` knots >= 2. */
int fit_from_energies(const double *eps, const double *energy, size_t n, int degree,
                      size_t samples, uint32_t interp, uint32_t extrapolate,
                      const char *source, ldem_etab_table *t, fit_report *rep,
                      ldem_err *err);
int fit_from_forces(const double *eps, const double *force, size_t n, int degree,
                    size_t samples, uint32_t interp, uint32_t extrapolate,
                    const char *source, ldem_etab_table *t, fit_report *rep, ldem_err *err);

#endif
