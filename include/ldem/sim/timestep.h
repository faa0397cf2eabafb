/* ldem/sim/timestep.h — the critical time step behind `dt: auto`.
 *
 * Each pair's law estimates it (ldem_law_ops.critical_time) for the smallest grain (by
 * radius: a sphere's, or a level-set grain's volume-equivalent one) or the lightest (by mass):
 * Hertz laws the Rayleigh-wave time (Li, Xu & Thornton 2005), the linear node law the period
 * of the grain on 8 node springs, 2 √(m/(8 kn)). The normal damping shortens it; the scene's
 * safety factor multiplies the smallest of all pairs that occur. Documented in docs/scene.md.
 */
#ifndef LDEM_SIM_TIMESTEP_H
#define LDEM_SIM_TIMESTEP_H

#include "ldem/export.h"

#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The smallest critical step over the world's bodies and the laws they can meet (INFINITY
 * when there are no bodies). */
LDEM_API double ldem_world_critical_dt(const ldem_world *w);

/* What set the critical step: so `dt: auto` and a refused fixed step can name the grain and
 * the law instead of a bare number. */
typedef struct ldem_dt_source {
    size_t body;          /* the smallest (Hertz) or lightest (linear) free body */
    uint32_t material;    /* its material */
    uint32_t partner;     /* the material it meets under the limiting law */
    const char *law;      /* the name of that pair's law */
    int by_mass;          /* the law's estimate scales with the mass (else the radius) */
    double size;          /* the radius or the mass used */
} ldem_dt_source;

/* ldem_world_critical_dt, and (src not NULL) which body and pair law gave it; src is zeroed
 * when the result is not finite. */
LDEM_API double ldem_world_critical_dt_source(const ldem_world *w, ldem_dt_source *src);

/* The modal limit of Henzel & Karapiperis §3.3: min over deformable bodies of
 * beta_d / ω_max of their shape's modes (INFINITY when no body is deformable). Valid after
 * ldem_world_modal_init. */
LDEM_API double ldem_world_modal_dt(const ldem_world *w, double beta_d);

#ifdef __cplusplus
}
#endif
#endif
