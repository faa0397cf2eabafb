/* wall_servo.c — the wall servo's gain law and its chatter watch (ldem/sim/wall_servo.h). */
#include "ldem/sim/wall_servo.h"

#include <math.h>

#include "ldem/sim/cell.h"

double ldem_wall_servo_velocity(const ldem_servo_law *law, double force, double stiffness,
                                double dt, double *accumulated)
{
    /* The cell's PI law with "stress − target" read as "target − P": a positive error (too
     * little force) moves the wall into the grains. Its units work out the same way: an
     * error over a stiffness and a time step is a velocity. */
    return ldem_cell_servo_rate_pi(law->target, force, stiffness, dt, law->gain, law->integral,
                                   law->vmax, accumulated);
}

unsigned ldem_servo_watch_flips(const ldem_servo_watch *w)
{
    return (unsigned)__builtin_popcountll(w->flip_bits);
}

static void window_range(const ldem_servo_watch *w, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (uint32_t k = 0; k < w->filled; k++) {
        *lo = fmin(*lo, w->force[k]);
        *hi = fmax(*hi, w->force[k]);
    }
}

int ldem_servo_watch_step(ldem_servo_watch *w, double vn, double p, double target, double *lo,
                          double *hi)
{
    int32_t sign = vn > 0.0 ? 1 : vn < 0.0 ? -1 : 0;
    int flipped = sign != 0 && w->last_sign != 0 && sign != w->last_sign;
    if (sign != 0)
        w->last_sign = sign;
    w->flip_bits = (w->flip_bits << 1) | (uint64_t)flipped;
    w->interval_flips += (uint64_t)flipped;
    w->force[w->next] = p;
    w->next = (w->next + 1) % LDEM_SERVO_WINDOW;
    if (w->filled < LDEM_SERVO_WINDOW)
        w->filled++;
    unsigned flips = ldem_servo_watch_flips(w);
    if (w->chattering) {
        if (flips < LDEM_SERVO_CALM_FLIPS)
            w->chattering = 0;
        return 0;
    }
    if (flips < LDEM_SERVO_CHATTER_FLIPS)
        return 0;
    window_range(w, lo, hi);
    double scale = target > 0.0 ? target : fmax(fabs(*lo), fabs(*hi));
    if (!(*hi - *lo > LDEM_SERVO_CHATTER_SPREAD * scale))
        return 0;
    w->chattering = 1;
    return 1;
}
