/* ldem/sim/initial_overlaps.h — grains that overlap each other or a wall before the first
 * step. An explicit integrator turns an initial overlap into a launch: a sphere
 * 80 % of its radius into the floor leaves at tens of m/s. So a new run refuses them unless
 * the scene accepts them (`initial_overlap: {allow: ...}`, docs/scene.md); a restart does not
 * check (a checkpoint's contacts overlap by design).
 *
 * Overlap of a pair: two spheres r_i + r_j − |x_j − x_i|; a sphere or level-set grain against
 * a wall or another grain, the deepest penetrating surface node (the contact narrowphase,
 * −φ). It is compared with the smaller radius of the two (a level-set grain's bounding
 * radius; for a wall, the grain's). Pairs come from the broad phase (skin 0), not all pairs.
 */
#ifndef LDEM_SIM_INITIAL_OVERLAPS_H
#define LDEM_SIM_INITIAL_OVERLAPS_H

#include "ldem/export.h"

#include "ldem/err.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One overlap: grains a and b (world body indices), or grain a and wall `wall` (b = UINT32_MAX). */
typedef struct ldem_overlap {
    uint32_t a, b, wall;
    double depth;      /* the overlap, > 0 */
    double relative;   /* depth / the smaller radius */
} ldem_overlap;

/* All overlaps of the world with relative overlap > `allow`, sorted largest relative overlap
 * first (ties: by a, then b, then wall, so the order is deterministic). *out is malloc'd
 * (NULL when none); *count their number. */
LDEM_API int ldem_world_find_overlaps(const ldem_world *w, double allow, ldem_overlap **out,
                                      size_t *count, ldem_err *err);

/* The check a new run makes: LDEM_ERR_INPUT naming the worst pairs when some overlap exceeds
 * s->overlap_allow; overlaps within an explicit allowance are logged once (count, largest). */
LDEM_API int ldem_scene_check_initial_overlaps(const ldem_scene *s, const ldem_world *w,
                                               ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
