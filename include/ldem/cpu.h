/* ldem/cpu.h — what the CPU running libldem offers its SIMD kernels.
 *
 * The one switch between the SIMD kernels and the scalar path: the contact update
 * (touching rigid sphere pairs) and the integrator's first half step (free spheres) run
 * ldem_cpu_lanes() contacts or bodies at a time, each lane giving the scalar path's result
 * to the bit, so the answer changes the speed and never the results.
 */
#ifndef LDEM_CPU_H
#define LDEM_CPU_H

#include "ldem/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most SIMD lanes this build and CPU run the kernels in: 4 where libldem has its AVX2
 * kernels and the CPU has AVX2, else 2 (SSE2, the x86-64 baseline, or the compiler's
 * generic vectors elsewhere); 1 (everything one at a time) in a build with -Dsimd=off. */
LDEM_API int ldem_cpu_lanes(void);

#ifdef __cplusplus
}
#endif
#endif
