/* Private to the Jäger law: energy integrals over the MDR springs of a history stack.
 *
 * In the method of dimensionality reduction the contact is a row of independent springs at
 * x ∈ (−a, a), tangential stiffness G* per unit length; the spring at x has level
 * z = x²/R* and (scaled) displacement U(z) = u/κ, linear in z on each history segment. All
 * integrands below are polynomials of degree ≤ 4 in x, so three-point Gauss–Legendre in x is
 * exact; integrating in x (not z) also avoids differences of z^{k+1/2} that would cancel.
 * Intervals are given by their end points in x = √(R* z), which the law has at hand from the
 * square roots its Hertz forces need. Every function integrates over the half-row x > 0;
 * callers apply the factors G*, κ², 2.
 */
#ifndef LDEM_CONTACT_JAGER_ENERGY_H
#define LDEM_CONTACT_JAGER_ENERGY_H

#include "ldem/contact/jager.h"

/* ∫ (d1 − z) · (p_hi + w (hi − z)) dx over x ∈ (xlo, xhi), hi = xhi²/R*, added to v: the
 * spring trial displacement P(z) on one swallowed segment, weighted by the final slip bound. */
void ldem__jager_slip_moment(double rstar, double d1, double xlo, double xhi,
                             const double p_hi[2], const double w[2], double v[2]);

/* ∫ (d1 − z)² dx over x ∈ (xlo, √(R* d1)). */
double ldem__jager_bound_square(double rstar, double d1, double xlo, double x1);

/* ∫ |u_hi + w (hi − z) + g (d0 − z)|² dx over x ∈ (xlo, xhi), hi = xhi²/R*: the displacement a
 * spring holds when it leaves the contact during a straight step from d0 (g = c/(d0 − d1)). */
double ldem__jager_leaving_square(double rstar, double xlo, double xhi, const double u_hi[2],
                                  const double w[2], const double g[2], double d0);

/* ∫ |U(z)|² dx over the contact's whole stack, whose top level is the approach d. */
double ldem__jager_stack_square(double rstar, const ldem_history_pool *pool,
                                const ldem_jager_contact *c);

#endif
