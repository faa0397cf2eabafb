/* Analytic deformation modes, evaluated in the grain's body frame.
 *
 * beam-bending (Henzel & Karapiperis eq. 51): the first mode of a simply supported
 * Euler–Bernoulli beam of length L along `axis`, deflecting along `deflect`; with
 * s = x_axis + L/2 (the body frame's origin is the centroid, so s runs over [0, L]):
 *   u_axis    =  x_deflect · (π/L) · cos(π s / L)
 *   u_deflect = −sin(π s / L)
 *   u_other   =  0
 * The stored mode is   Φ(x) = scale · (raw(x) − t − w × x),   t and w being the rigid
 * motion removed from it (zero when rigid motions are kept). t and w are in the units of
 * the unscaled raw field (the L2 projection of raw itself), so normalizing the mode later
 * (changing scale) leaves them valid. The descriptor text records
 * every number, so the runtime can evaluate Φ exactly:
 *   "beam-bending length=L axis=x deflect=z scale=S t=tx,ty,tz w=wx,wy,wz"  (%.17g). */
#ifndef MODEFIT_ANALYTIC_H
#define MODEFIT_ANALYTIC_H

#include "ldem/err.h"
#include "ldem/sections.h"

enum analytic_kind { ANALYTIC_BEAM_BENDING = 1 };

typedef struct analytic_mode {
    int kind;
    double length;
    int axis, deflect;    /* 0, 1, 2 = x, y, z; distinct */
    double scale;         /* 1 until normalized */
    double t[3], w[3];    /* rigid part removed (0 until projected) */
} analytic_mode;

/* Raw field (before rigid removal and scaling): u and, if grad is not NULL,
 * grad[i][j] = ∂u_i/∂x_j. */
void analytic_eval_raw(const analytic_mode *m, const double x[3], double u[3],
                       double grad[3][3]);
/* The stored mode Φ and its gradient. */
void analytic_eval(const analytic_mode *m, const double x[3], double u[3], double grad[3][3]);

/* Descriptor text (malloc'd) and its inverse. Parsing errors are LDEM_ERR_INPUT: unknown
 * kind or key, a missing or duplicate key (all six are required), a bad or non-finite
 * number, axis == deflect, length ≤ 0; *m is left untouched then. Keys may come in any
 * order, separated by any whitespace. Describing an invalid mode is LDEM_ERR_USAGE. */
int analytic_describe(const analytic_mode *m, char **text, ldem_err *err);
int analytic_parse(const char *text, analytic_mode *m, ldem_err *err);

/* Removes the rigid motion from the mode: sets t and w to the mass-weighted (uniform
 * density) L2 projection of the raw field (unscaled; see above) on the translations and
 * the infinitesimal rotations about the origin (the centroid), integrated over the level
 * set's interior with lsquad at `depth`. Afterwards ∫ Φ dV = 0 and ∫ x × Φ dV = 0 to
 * quadrature round-off, whatever the scale. Errors: LDEM_ERR_USAGE for an invalid mode,
 * LDEM_ERR_INPUT for a level set with no interior (or a bad grid, see lsquad). */
int analytic_remove_rigid(analytic_mode *m, const ldem_lset *ls, int depth, ldem_err *err);

/* Generalized stiffness K = ∫ (C:E(Φ)):E(Φ) dV (isotropic E, nu; elastic.h) and mass
 * M = ∫ rho Φ·Φ dV over the level set's interior (lsquad at `depth`), and the interior
 * volume the quadrature saw (compare with BODY's to judge its accuracy). K, M, volume may
 * be NULL and are written only on success. E ≤ 0, nu outside (−1, 1/2), rho ≤ 0 (or
 * non-finite) and invalid modes are LDEM_ERR_USAGE. */
int analytic_mass_stiffness(const analytic_mode *m, const ldem_lset *ls, int depth, double E,
                            double nu, double rho, double *K, double *M, double *volume,
                            ldem_err *err);

#endif
