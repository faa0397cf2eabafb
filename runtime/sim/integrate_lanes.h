/* integrate_lanes.h — private to runtime/sim: the first half step of the integrator as the
 * rotor lanes (rotor_lanes.inc, rotor_quads.c) share it with integrate.c. */
#ifndef LDEM_SIM_INTEGRATE_LANES_H
#define LDEM_SIM_INTEGRATE_LANES_H

#include <stddef.h>
#include <stdint.h>
#include "ldem/quat.h"
#include "ldem/vec3.h"

/* Principal moments this close (relative) count as a sphere: the split flows would then
 * only add splitting error to a motion that has an exact one-step solution. */
#define LDEM__ISOTROPIC_RTOL 1e-12

/* ldem_integrate_first_half's arguments, handed to the lane kernels in one pointer. */
typedef struct ldem__first_half_args {
    size_t n;
    const uint32_t *flags;
    const double *inv_mass;
    const ldem_vec3 *inertia;
    ldem_vec3 *x, *v;
    ldem_quat *q;
    ldem_vec3 *L_b;
    const ldem_vec3 *force, *torque;
    double dt;
} ldem__first_half_args;

/* Body i's first half step alone: the scalar path every lane must equal. */
void ldem__first_half_body(const ldem__first_half_args *a, size_t i);
/* ldem_integrate_first_half with bodies `lanes` at a time (1: each alone, 2: SSE2, 4: AVX2,
 * only where ldem_cpu_lanes() says 4); the same bits whatever `lanes` (tests compare). */
void ldem__integrate_first_half_lanes(const ldem__first_half_args *a, int lanes);

/* rotor_quads.c (AVX2; only where ldem_cpu_lanes() says 4): bodies i … i + 3 (all < a->n)
 * through their first half step, in the AVX2 lanes. */
void ldem__first_half_quads(const ldem__first_half_args *a, size_t i);

#endif
