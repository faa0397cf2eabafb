/* ldem/sim/step.h — advancing the world by one time step (design layer 4, "integrate" driving
 * "broadphase" and "narrowphase").
 *
 * ldem_world_prepare() builds the first contact list and evaluates the forces at t = 0;
 * each ldem_world_step() is then
 *   half kick → drift (bodies, walls) → contact list refresh when a body moved more than half
 *   the skin since the last build → contact kinematics and laws (OpenMP over history shards,
 *   each contact independent) → serial reduction of the per-contact forces onto bodies and
 *   walls in contact-list order (so the sums, hence the run, are bitwise the same for any
 *   thread count) → gravity, damping → half kick → servo walls.
 *
 * Contact kinematics are finite, not linearized: the tangential displacement increment of
 * a contact is that of its two material points, each moved by its body's actual rotation
 * over the step (R_prev R_nowᵀ) plus translation, so a rigid motion of a glued pair produces
 * no tangential displacement (see ldem/contact/frame.h for why this matters).
 */
#ifndef LDEM_SIM_STEP_H
#define LDEM_SIM_STEP_H

#include "ldem/export.h"

#include "ldem/err.h"
#include "ldem/sim/output.h"
#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

LDEM_API int ldem_world_prepare(ldem_world *w, ldem_err *err);
LDEM_API int ldem_world_step(ldem_world *w, ldem_err *err);

/* Energies and counters at the current state (balance against w->e_initial). */
LDEM_API void ldem_world_measure(const ldem_world *w, ldem_probe_row *row);

/* Start a new probe interval: the walls' force sums and servo flip counts restart from zero
 * (call after writing a probe row; ldem_probes_write reports the means since the last call). */
LDEM_API void ldem_walls_interval_restart(ldem_world *w);

#ifdef __cplusplus
}
#endif
#endif
