/* ldem/contact/linear.h — the linear node-penalty law of LS-DEM (Kawamoto et al., JMPS 2016).
 *
 * Each surface node that penetrates the other grain carries its own spring: a normal force
 * kn·depth along the local normal and an incremental shear spring ks·ξ capped by Coulomb's
 * μ·|Fn| (the spring is reset to the cap when it slips). ξ lives in world components: at
 * each step it is first rotated into the current tangent plane (its component along the new
 * normal removed and its length kept), then advanced by the node's tangential displacement.
 *
 * Signs: n points from grain i to grain j; ds is the tangential displacement of j's material
 * point relative to i's; the returned force acts on j (i receives its negative).
 */
#ifndef LDEM_CONTACT_LINEAR_H
#define LDEM_CONTACT_LINEAR_H

#include "ldem/export.h"

#include "ldem/err.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_linear_params {
    double kn;   /* normal stiffness per node, force per unit depth, > 0 */
    double ks;   /* shear stiffness per node, ≥ 0 */
    double mu;   /* friction coefficient, ≥ 0 */
} ldem_linear_params;

/* Check kn > 0, ks ≥ 0, μ ≥ 0, all finite. */
LDEM_API int ldem_linear_params_init(ldem_linear_params *p, double kn, double ks, double mu,
                                     ldem_err *err);

/* One node: depth ≥ 0 (≤ 0 gives zero force and clears ξ), unit normal n, tangential
 * displacement increment ds (world; its normal component is ignored), spring xi[3] updated in
 * place. *dissipated (may be NULL) is increased by the frictional work of this step's slip.
 * *fn and *ft (may be NULL) receive the normal and tangential parts of the force on j. */
LDEM_API ldem_vec3 ldem_linear_node_force(const ldem_linear_params *p, double depth, ldem_vec3 n,
                                          ldem_vec3 ds, double xi[3], double *dissipated,
                                          ldem_vec3 *fn, ldem_vec3 *ft);

/* Stored energy of one node: ½ kn depth² + ½ ks |ξ|². */
LDEM_API double ldem_linear_node_energy(const ldem_linear_params *p, double depth,
                                        const double xi[3]);

#ifdef __cplusplus
}
#endif
#endif
