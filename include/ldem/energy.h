/* ldem/energy.h — nonlinear modal energy: evaluating an ETAB table.
 *
 * A table samples the modal internal force F at knots ε_0 < … < ε_{n−1}; between knots F
 * is interpolated (linear; natural cubic spline; or monotone piecewise cubic Hermite with
 * Fritsch–Carlson slopes, which keeps F monotone wherever the samples are), and the energy
 * is its exact integral, U(ε) = U_i + ∫_{ε_i}^{ε} F. F is therefore exactly dU/dε: the
 * modal force is conservative by construction. The stored U samples must agree with that
 * integral (ldem_energy_prepare checks it).
 *
 * Beyond the table: an error unless the table allows extrapolation, then F continues as
 * the Taylor polynomial of the end interval's interpolant at the end knot, of degree 1
 * (linear: constant tangent stiffness, U quadratic) or 2 (quadratic), and U as its
 * integral. Pure functions, no allocation after prepare; the runtime calls
 * ldem_energy_at once per deformable mode per step. */
#ifndef LDEM_ENERGY_H
#define LDEM_ENERGY_H

#include "ldem/export.h"

#include <stddef.h>

#include "ldem/err.h"
#include "ldem/sections.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_energy_curve {
    size_t n;
    double *eps, *energy, *force;   /* copies of the table's samples */
    double *slope;                  /* dF/dε at each knot for the cubic kinds */
    uint32_t interp;                /* enum ldem_interp */
    uint32_t extrapolate;           /* enum ldem_extrapolate */
} ldem_energy_curve;

/* Builds the interpolant of one table (copies it). Fails with LDEM_ERR_INPUT when the
 * stored U samples differ from the integral of the interpolated F by more than
 * 1e-9 · (|U| scale + |F| scale · ε range). */
LDEM_API int ldem_energy_prepare(const ldem_etab_table *t, ldem_energy_curve *c, ldem_err *err);
LDEM_API void ldem_energy_curve_free(ldem_energy_curve *c);

/* U(ε), F(ε) and the tangent stiffness dF/dε (any pointer may be NULL). Returns LDEM_OK,
 * or LDEM_ERR_INPUT if ε is outside the table and the table forbids extrapolation. */
LDEM_API int ldem_energy_at(const ldem_energy_curve *c, double eps, double *U, double *F,
                            double *dF);
/* The same, and on failure err (may be NULL) says why: ε and the table's range. */
LDEM_API int ldem_energy_eval(const ldem_energy_curve *c, double eps, double *U, double *F,
                              double *dF, ldem_err *err);

/* Given knots and force samples, the energy samples that make a consistent table:
 * U_i = ∫ of the interpolated F from ε_ref, where ε_ref = 0 when 0 lies within the knots
 * (U(0) = 0) and ε_0 otherwise. energy[] receives n values. */
LDEM_API int ldem_energy_integrate(const double *eps, const double *force, size_t n,
                                   uint32_t interp, double *energy, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
