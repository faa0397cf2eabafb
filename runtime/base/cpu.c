/* CPU feature detection for the SIMD kernels (ldem/cpu.h).
 *
 * LDEM_HAVE_QUADS: meson built the four-lane AVX2 kernels (runtime/sim/sphere_quads.c,
 * rotor_quads.c; x86-64 with -Dsimd=auto). LDEM_SIMD_OFF: -Dsimd=off. */
#include "ldem/cpu.h"

int ldem_cpu_lanes(void)
{
#if defined(LDEM_SIMD_OFF)
    return 1;
#else
#if defined(LDEM_HAVE_QUADS)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return 4;
#endif
    return 2;
#endif
}
