/* ldem/contact/hertz.h — Hertz normal contact of two elastic spheres of one material.
 *
 * Total normal approach (overlap) d = R1 + R2 − |x1 − x2|, compression positive. The pair's
 * constants follow docs/jager.md §1 (and Kuhn's paper, converted to total quantities):
 *
 *   R* = R1 R2/(R1 + R2)          E* = E/(2(1 − ν²))          G* = E/((1 + ν)(2 − ν))
 *   κ  = E* / G* = (2 − ν)/(2(1 − ν))                           a(d) = √(R* d)
 *   N(d) = (4/3) E* √R* d^{3/2} = c_N d^{3/2}                  dN/dd = 2 E* a(d)
 *
 * A sphere against a flat is R2 = INFINITY (R* = R1). Note E* here is the pair's effective
 * modulus for *two* spheres of modulus E; for a sphere on a rigid flat use E and ν of the
 * sphere with E_flat → ∞ yourself. Two materials: ldem_elastic_moduli_mix.
 *
 * Pure functions; d ≤ 0 gives zero force, stiffness, radius and energy.
 */
#ifndef LDEM_CONTACT_HERTZ_H
#define LDEM_CONTACT_HERTZ_H

#include "ldem/export.h"

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The effective moduli of a pair of materials. For one material (E, ν) on both sides they are
 * the formulas above; for two, 1/E* = (1 − ν1²)/E1 + (1 − ν2²)/E2 and
 * 1/G* = (1 + ν1)(2 − ν1)/(2E1) + (1 + ν2)(2 − ν2)/(2E2), which reduce to them. */
typedef struct ldem_elastic_moduli {
    double estar, gstar, kappa;
} ldem_elastic_moduli;

/* One material on both sides. */
LDEM_API ldem_elastic_moduli ldem_elastic_moduli_of(double E, double nu);
/* Two materials; equal ones give ldem_elastic_moduli_of's bits. */
LDEM_API ldem_elastic_moduli ldem_elastic_moduli_mix(double E1, double nu1, double E2, double nu2);

typedef struct ldem_elastic_pair {
    double E, nu;        /* Young's modulus and Poisson's ratio of both bodies */
    double R1, R2;       /* radii of curvature at the contact; R2 = INFINITY for a flat */
    double rstar;        /* R* */
    double sqrt_rstar;   /* √R*, so that a = √R*·√d costs the one square root N(d) needs */
    double estar;        /* E* */
    double gstar;        /* G* */
    double kappa;        /* E* divided by G* */
    double cn;           /* (4/3) E* √R*: N = cn d^{3/2} */
} ldem_elastic_pair;

/* Fill the derived constants. Refuses (LDEM_ERR_INPUT, message naming the parameter)
 * E ≤ 0, ν outside (−1, 0.5], R1 ≤ 0, R2 ≤ 0, and non-finite values except R2 = INFINITY. */
LDEM_API int ldem_elastic_pair_init(ldem_elastic_pair *p, double E, double nu, double R1, double R2,
                                    ldem_err *err);

/* The same with the moduli given (a pair of two materials): E, ν are recorded as the
 * pair's nominal constants, the moduli are used as given. Refuses what the above refuses,
 * and moduli that are not positive and finite. */
LDEM_API int ldem_elastic_pair_init_moduli(ldem_elastic_pair *p, double E, double nu,
                                           const ldem_elastic_moduli *m, double R1, double R2,
                                           ldem_err *err);

/* N(d). */
LDEM_API double ldem_hertz_force(const ldem_elastic_pair *p, double d);
/* dN/dd = 2 E* a. */
LDEM_API double ldem_hertz_stiffness(const ldem_elastic_pair *p, double d);
/* Contact radius a = √(R* d). */
LDEM_API double ldem_hertz_radius(const ldem_elastic_pair *p, double d);
/* Stored normal elastic energy ∫N dd = (2/5) N d. */
LDEM_API double ldem_hertz_energy(const ldem_elastic_pair *p, double d);
/* The approach at which N(d) = force (inverse of ldem_hertz_force; 0 for force ≤ 0). */
LDEM_API double ldem_hertz_approach(const ldem_elastic_pair *p, double force);
/* Viscous normal damping on Hertz's tangent stiffness (the Tsuji form): 2ζ √(m* dN/dd) ḋ,
 * ḋ the rate of the approach (> 0 closing), m* the pair's mass, ζ the damping ratio of the
 * contact's small oscillations at any d, so that a collision's restitution does not depend on
 * the impact speed. Capped below at −N(d): N plus the damping never pulls. 0 for d ≤ 0. */
LDEM_API double ldem_hertz_damping(const ldem_elastic_pair *p, double d, double mstar, double zeta,
                                   double d_rate);
/* The same from dN/dd = kn and N at d (d > 0), for a caller that has them already: the
 * contact step, whose law has just computed N and whose stress sums need kn. */
LDEM_API double ldem_hertz_damping_from(double kn, double n, double mstar, double zeta,
                                        double d_rate);

#ifdef __cplusplus
}
#endif
#endif
