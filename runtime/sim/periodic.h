/* periodic.h — private to runtime/sim: the world in a periodic cell (periodic.c). */
#ifndef LDEM_SIM_PERIODIC_H
#define LDEM_SIM_PERIODIC_H

#include "ldem/sim/world.h"

/* Bring every position into the cell (x by h, x_prev by h_prev: see the comment inside). */
void ldem_periodic_wrap(ldem_world *w);
/* Advance the cell by its velocity gradient over dt (a cyclic direction's from the step
 * count, starting its triangle here when it has not started) and carry every position
 * affinely; returns the step's deformation F. */
ldem_mat3 ldem_periodic_deform(ldem_world *w, double dt);
/* After the contact forces: the virial, the Love–Weber stress, the servo's stiffnesses, and
 * (book_work) the work of the step's deformation F on the grains. */
void ldem_periodic_measure(ldem_world *w, int book_work, const ldem_mat3 *F);
/* Choose the velocity gradient of the next step from the control and the stress. */
void ldem_periodic_servo(ldem_world *w);
/* The neighbour list's test in a deforming cell (periodic.c explains the bound). */
int ldem_periodic_need_refresh(const ldem_world *w);
/* Quasi-static indicators for the probes: unbalanced force ratio and inertial number. */
void ldem_periodic_indicators(const ldem_world *w, double *unbalanced, double *inertial);

#endif
