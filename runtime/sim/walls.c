/* walls.c — prescribed and servo-controlled wall motion.
 *
 * Walls are rigid and massless: their motion is kinematic. A velocity drive integrates the
 * constant velocity; a ramp is a piecewise-linear displacement history held after its last
 * point; a servo wall moves along its normal so as to bring the compressive force the grains
 * exert on it, P = −F·n (n points into the grains), to its target: by the fraction `gain` of
 * the error over the stiffness acting on it, plus an integral term, capped at v_max
 * (ldem/sim/wall_servo.h). Scaled by the stiffness, the same gain suits a soft packing and
 * a stiff one, which a velocity per unit force error (the usual PFC/YADE form) does not.
 */
#include <inttypes.h>

#include "ldem/sim/step.h"
#include "walls.h"
#include "ldem/log.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"

ldem_wall_geom ldem_wall_pose(const ldem_wall *wl)
{
    ldem_wall_geom g;
    g.kind = wl->kind;
    g.point = ldem_vec3_add(wl->origin, wl->disp);
    g.normal = wl->normal;
    g.radius = wl->radius;
    g.inside = wl->inside;
    return g;
}

/* Displacement of a ramp at time t (held before the first and after the last point). */
static ldem_vec3 ramp_at(const ldem_wall *wl, double t)
{
    size_t n = wl->nramp;
    if (n == 0)
        return ldem_vec3_zero();
    if (t <= wl->ramp_t[0])
        return wl->ramp_d[0];
    if (t >= wl->ramp_t[n - 1])
        return wl->ramp_d[n - 1];
    size_t k = 1;
    while (wl->ramp_t[k] < t)
        k++;
    double s = (t - wl->ramp_t[k - 1]) / (wl->ramp_t[k] - wl->ramp_t[k - 1]);
    return ldem_vec3_add(ldem_vec3_scale(wl->ramp_d[k - 1], 1.0 - s),
                         ldem_vec3_scale(wl->ramp_d[k], s));
}

void ldem_walls_advance(ldem_world *w, double t_new, double dt)
{
    for (size_t k = 0; k < w->nwalls; k++) {
        ldem_wall *wl = &w->walls[k];
        wl->disp_prev = wl->disp;
        switch (wl->drive) {
        case LDEM_DRIVE_RAMP:
            wl->disp = ramp_at(wl, t_new);
            wl->vel = ldem_vec3_scale(ldem_vec3_sub(wl->disp, wl->disp_prev), 1.0 / dt);
            break;
        case LDEM_DRIVE_VELOCITY:
            wl->vel = wl->velocity;
            wl->disp = ldem_vec3_axpy(dt, wl->vel, wl->disp);
            break;
        default: /* servo: velocity chosen by the last ldem_walls_servo */
            wl->disp = ldem_vec3_axpy(dt, wl->vel, wl->disp);
            break;
        }
    }
}

/* The chatter watch's report: once per episode, with what to change. */
static void report_chatter(const ldem_world *w, const ldem_wall *wl, double lo, double hi)
{
    ldem_warn("wall '%s' chatters at step %" PRIu64 ": its velocity changed sign %u times in "
              "the last %d steps, the grains' force on it ranging over %.6g .. %.6g around the "
              "target %.6g; reduce servo.gain or servo.max_velocity",
              wl->name ? wl->name : "?", w->step, ldem_servo_watch_flips(&wl->watch),
              LDEM_SERVO_WINDOW, lo + 0.0, hi + 0.0, wl->servo_force); /* no "-0" */
}

void ldem_walls_servo(ldem_world *w)
{
    for (size_t k = 0; k < w->nwalls; k++) {
        ldem_wall *wl = &w->walls[k];
        wl->force_sum = ldem_vec3_add(wl->force_sum, wl->force);
        wl->force_count++;
        if (wl->drive != LDEM_DRIVE_SERVO)
            continue;
        double pressure = -ldem_vec3_dot(wl->force, wl->normal);
        ldem_servo_law law = {wl->servo_force, wl->servo_gain, wl->servo_integral,
                              wl->servo_vmax};
        double vn = ldem_wall_servo_velocity(&law, pressure, wl->stiffness, w->dt,
                                             &wl->servo_accumulated);
        wl->vel = ldem_vec3_scale(wl->normal, vn);
        double lo, hi;
        if (ldem_servo_watch_step(&wl->watch, vn, pressure, wl->servo_force, &lo, &hi))
            report_chatter(w, wl, lo, hi);
    }
}

void ldem_walls_interval_restart(ldem_world *w)
{
    for (size_t k = 0; k < w->nwalls; k++) {
        w->walls[k].force_sum = ldem_vec3_zero();
        w->walls[k].force_count = 0;
        w->walls[k].watch.interval_flips = 0;
    }
}
