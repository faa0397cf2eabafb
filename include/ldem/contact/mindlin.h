/* ldem/contact/mindlin.h — the incremental "modified Mindlin" tangential law, the baseline
 * most DEM users know (LAMMPS pair granular `tangential mindlin_rescale`).
 *
 * The contact keeps an elastic tangential displacement ξ (contact frame). Each step:
 *   a = √(R* d); if a < a_prev (normal unloading) ξ ← ξ·a/a_prev   (the rescale)
 *   ξ ← ξ + Δs;  T = k_t ξ with k_t = 2 G* a (the virgin Mindlin stiffness, LAMMPS's 8 G_eff a)
 *   if |T| > μN: T ← μN T/|T|, ξ ← T/k_t   (Coulomb cap; slip)
 * It is exact only for an infinitesimal first move; finite steps and reversals depart from
 * Mindlin–Deresiewicz (Kuhn Fig. 8b). Energy: stored ½|T|²/k_t; dissipated μN·|slip| per capped
 * step plus, on rescale, the stored energy the shrinking spring loses.
 */
#ifndef LDEM_CONTACT_MINDLIN_H
#define LDEM_CONTACT_MINDLIN_H

#include "ldem/export.h"

#include "ldem/contact/hertz.h"
#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_mindlin_params {
    ldem_elastic_pair pair;
    double mu;
} ldem_mindlin_params;

typedef struct ldem_mindlin_contact {
    double d;             /* current approach; ≤ 0 means not in contact */
    double s[2];          /* last total tangential displacement */
    double xi[2];         /* elastic tangential displacement (the spring) */
    double a;             /* contact radius at the last step */
    double n;             /* normal force */
    double t[2];          /* tangential force */
    double dissipated;    /* cumulative frictional work */
} ldem_mindlin_contact;

LDEM_API int ldem_mindlin_params_init(ldem_mindlin_params *p, const ldem_elastic_pair *pair,
                                      double mu, ldem_err *err);
LDEM_API void ldem_mindlin_contact_init(ldem_mindlin_contact *c);

/* Move to (d1, c->s + ds); d1 ≤ 0 separates (spring cleared, zero force). First touch inside
 * a step counts the in-contact fraction of ds, as the Jäger law does. */
LDEM_API void ldem_mindlin_step(const ldem_mindlin_params *p, ldem_mindlin_contact *c, double d1,
                                const double ds[2]);
LDEM_API void ldem_mindlin_move_to(const ldem_mindlin_params *p, ldem_mindlin_contact *c, double d1,
                                   const double s1[2]);
/* ½|T|²/k_t. */
LDEM_API double ldem_mindlin_stored_energy(const ldem_mindlin_params *p,
                                           const ldem_mindlin_contact *c);

#ifdef __cplusplus
}
#endif
#endif
