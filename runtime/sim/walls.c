/* walls.c — prescribed and servo-controlled wall motion.
 *
 * Walls are rigid and massless: their motion is kinematic. A velocity drive integrates the
 * constant velocity; a ramp is a piecewise-linear displacement history held after its last
 * point; a servo wall moves along its normal with a velocity proportional to the force error,
 *     v_n = gain · (P_target − P),   |v_n| ≤ v_max,
 * where P = −F·n is the compressive force the grains exert on it (n points into the grains).
 * This is the usual DEM "wall servo" (PFC, YADE's TriaxialStressController): a first-order
 * controller whose effective spring is the packing's stiffness k; it is stable when
 * gain · k · dt < 1, and the velocity cap keeps the early transient quasi-static.
 */
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"
#include "sim_internal.h"

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

void ldem_walls_servo(ldem_world *w)
{
    for (size_t k = 0; k < w->nwalls; k++) {
        ldem_wall *wl = &w->walls[k];
        if (wl->drive != LDEM_DRIVE_SERVO)
            continue;
        double pressure = -ldem_vec3_dot(wl->force, wl->normal);
        double vn = wl->servo_gain * (wl->servo_force - pressure);
        if (vn > wl->servo_vmax)
            vn = wl->servo_vmax;
        if (vn < -wl->servo_vmax)
            vn = -wl->servo_vmax;
        wl->vel = ldem_vec3_scale(wl->normal, vn);
    }
}
