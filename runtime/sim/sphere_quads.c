/* sphere_quads.c — four touching rigid sphere pairs at once, in the AVX2 lanes.
 *
 * sphere_lanes_update.inc at four lanes; meson compiles this file alone with -mavx2 (x86-64
 * only), and contact_loop.c calls it only where ldem_cpu_lanes() found AVX2 at run time. The
 * 256-bit divisions and square roots cost what the 128-bit ones do on the x86-64 cores ldem
 * runs on (BENCHMARKS.md), so four lanes halve the divider time of two again.
 */
#define LDEM__LANES 4
#include "sphere_lanes_update.inc"

int ldem__update_sphere_quads(ldem_world *w, ldem_contact *const c[4], const image_offset off[4],
                              ldem_contact_sums *sums, int *failed)
{
    return update_sphere_lanes(w, c, off, sums, failed);
}
