/* rotor_quads.c — the first half step of four free spheres at once, in the AVX2 lanes.
 *
 * rotor_lanes.inc at four lanes; meson compiles this file alone with -mavx2 (x86-64 only, with
 * sphere_quads.c), and integrate.c calls it only where ldem_cpu_lanes() found AVX2 at run
 * time: each 256-bit division and square root serves four bodies' chains for about the price
 * of the 128-bit one's two.
 */
#define LDEM__LANES 4
#include "rotor_lanes.inc"

void ldem__first_half_quads(const ldem__first_half_args *a, size_t i)
{
    ldem__first_half_lanes(a, i);
}
