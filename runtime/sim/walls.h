/* walls.h — private to runtime/sim: the walls' motion and servo (walls.c). */
#ifndef LDEM_SIM_WALLS_H
#define LDEM_SIM_WALLS_H

#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"

/* The wall where it is now (origin + displacement). */
ldem_wall_geom ldem_wall_pose(const ldem_wall *wl);
/* Move every wall from t to t + dt: velocity drives integrate, ramps interpolate (velocity
 * becomes the ramp's slope over the step), servo walls move with the velocity the last
 * servo update chose. Records disp_prev. */
void ldem_walls_advance(ldem_world *w, double t_new, double dt);
/* After the forces of a step: every wall adds its force to the probe interval's sums, servo
 * walls choose their velocity for the next step and watch for chatter. */
void ldem_walls_servo(ldem_world *w);

#endif
