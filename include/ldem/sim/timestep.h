/* ldem/sim/timestep.h — the critical time step behind `dt: auto`.
 *
 * Hertz laws: the Rayleigh-wave time of the smallest grain (the usual DEM estimate, e.g.
 * Li, Xu & Thornton 2005), t_R = π R √(ρ/G) / (0.1631 ν + 0.8766), G = E/(2(1 + ν)), with R
 * a sphere's radius or a level-set grain's volume-equivalent radius. Linear node law: the
 * period of the lightest grain on LDEM_LINEAR_NODES_ASSUMED node springs,
 * 2π √(m / (n kn)) / π = 2 √(m/(n kn)). The scene's safety factor multiplies the smaller of all
 * pairs that occur. Documented in docs/scene.md.
 */
#ifndef LDEM_SIM_TIMESTEP_H
#define LDEM_SIM_TIMESTEP_H

#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDEM_LINEAR_NODES_ASSUMED 8

/* The smallest critical step over the world's bodies and the laws they can meet (INFINITY
 * when there are no bodies). */
double ldem_world_critical_dt(const ldem_world *w);

/* What set the critical step: so `dt: auto` and a refused fixed step can name the grain and
 * the law instead of a bare number. */
typedef struct ldem_dt_source {
    size_t body;          /* the smallest (Hertz) or lightest (linear) free body */
    uint32_t material;    /* its material */
    uint32_t partner;     /* the material it meets under the limiting law */
    int law;              /* enum ldem_law of that pair */
    double size;          /* Hertz: the radius used; linear: the mass used */
} ldem_dt_source;

/* ldem_world_critical_dt, and (src not NULL) which body and pair law gave it; src is zeroed
 * when the result is not finite. */
double ldem_world_critical_dt_source(const ldem_world *w, ldem_dt_source *src);

/* The modal limit of Henzel & Karapiperis §3.3: min over deformable bodies of
 * beta_d / ω_max of their shape's modes (INFINITY when no body is deformable). Valid after
 * ldem_world_modal_init. */
double ldem_world_modal_dt(const ldem_world *w, double beta_d);

#ifdef __cplusplus
}
#endif
#endif
