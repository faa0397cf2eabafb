/* wall_servo.h — the force servo of a plane wall and its chatter watch, as pure functions
 * over plain structs (runtime/sim/wall_servo.c; the world applies them in walls.c).
 *
 * The law: each step the wall moves along its normal by
 *     Δx = α (F* − P) / k      (velocity Δx / dt), plus an integral term, capped at v_max,
 * where P is the normal force the grains exert on the wall, F* the target and k the stiffness
 * acting on the wall (Σ over its touching contacts of dN/dδ projected on the wall's normal).
 * Were the grains held still, the error after the move is (1 − α) times the error before: a
 * first-order loop that converges without overshoot for 0 < α ≤ 1 and oscillates but
 * converges for 1 < α < 2. The integral term is the periodic cell's (ldem_cell_servo_rate_pi):
 * it removes the lag a steadily drifting packing leaves a proportional loop with. A wall that
 * touches nothing (k = 0) approaches at v_max. */
#ifndef LDEM_SIM_WALL_SERVO_H
#define LDEM_SIM_WALL_SERVO_H

#include "ldem/export.h"

#include <stdint.h>

typedef struct ldem_servo_law {
    double target;   /* F*, the target normal force of the grains on the wall (N, >= 0) */
    double gain;     /* α, dimensionless, 0 < α < 2 */
    double integral; /* ι, dimensionless, 0 <= ι < 1 (0: proportional only) */
    double vmax;     /* cap on |v| */
} ldem_servo_law;

/* The wall's velocity along its normal (> 0: into the grains) for the next step, given the
 * force P the grains exert on it now and the stiffness k acting on it. *accumulated is the
 * integral term's state (a velocity), updated. NaN in, NaN out. */
LDEM_API double ldem_wall_servo_velocity(const ldem_servo_law *law, double force, double stiffness,
                                         double dt, double *accumulated);

/* Chatter: the wall's normal velocity changing sign step after step. Over the last
 * LDEM_SERVO_WINDOW steps, at least LDEM_SERVO_CHATTER_FLIPS sign changes while the force
 * spans more than LDEM_SERVO_CHATTER_SPREAD of the target start an episode (reported once);
 * it ends when the flips fall below LDEM_SERVO_CALM_FLIPS. A servo settled on its target
 * sees its error's sign change at random, about every other step at most, and a spread far
 * below 1 %: neither criterion alone would do. */
#define LDEM_SERVO_WINDOW 64
#define LDEM_SERVO_CHATTER_FLIPS 56
#define LDEM_SERVO_CALM_FLIPS 32
#define LDEM_SERVO_CHATTER_SPREAD 0.01

typedef struct ldem_servo_watch {
    uint64_t flip_bits;                 /* bit i: the velocity changed sign i steps ago */
    double force[LDEM_SERVO_WINDOW];    /* P over the window, a ring */
    uint32_t next;                      /* the ring's next slot */
    uint32_t filled;                    /* slots written, up to the window */
    int32_t last_sign;                  /* sign of the last non-zero velocity, 0 before any */
    int32_t chattering;                 /* 1 during an episode */
    uint64_t interval_flips;            /* sign changes since the last probe row */
} ldem_servo_watch;

/* Sign changes in the window. */
LDEM_API unsigned ldem_servo_watch_flips(const ldem_servo_watch *w);

/* Record one step's velocity vn and force p against the target. Returns 1 when this step
 * starts an episode of chatter (the caller reports it), with the window's force range in
 * *lo, *hi; 0 otherwise. */
LDEM_API int ldem_servo_watch_step(ldem_servo_watch *w, double vn, double p, double target,
                                   double *lo, double *hi);

#endif
