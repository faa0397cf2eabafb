/* scene_dt.c — choose the time step and refuse one the integrator cannot take.
 *
 * "Above the critical estimate" means dt > t_c, the critical step itself (the Rayleigh time or
 * the linear node period with the damping correction, runtime/sim/timestep.c), not safety x t_c:
 * t_c is already the estimate of where explicit integration of the stiffest contact breaks,
 * and safety only buys the margin that many simultaneous contacts and level-set node springs
 * need. Between safety x t_c and t_c a fixed step is allowed with a warning. The modal limit
 * follows the same rule: velocity Verlet of ε̈ = −ω² ε diverges beyond dt = 2/ω_max, so a
 * fixed dt above it is refused too. `time.force_dt: true` turns both refusals into warnings,
 * for studies of the instability itself.
 */
#include "scene_dt.h"

#include <math.h>
#include <stdio.h>

#include "ldem/log.h"
#include "ldem/sim/timestep.h"

static const char *where(const ldem_scene *s, long line)
{
    return line > 0 ? s->path : "--set";
}

/* "Rayleigh time of grain 7 (grains.2), sphere R 0.001, material glass against glass, law
 * hertz-jager": enough to find the grain that limits the step and the pair that does. */
static void describe_source(const ldem_scene *s, const ldem_world *w, const ldem_dt_source *src,
                            char *buf, size_t size)
{
    uint32_t id = w->bodies.id[src->body];
    const ldem_scene_grain *g = &s->grains[id];
    const char *shape = w->bodies.kind[src->body] == LDEM_SHAPE_SPHERE ? "sphere" : "grain";
    if (src->by_mass)
        snprintf(buf, size, "contact period of grain %u (grains.%u), %s mass %.3g, "
                 "material %.40s against %.40s, law %s", id, g->entry, shape, src->size,
                 s->materials[src->material].name, s->materials[src->partner].name, src->law);
    else
        snprintf(buf, size, "Rayleigh time of grain %u (grains.%u), %s R %.3g, material %.40s "
                 "against %.40s, law %s", id, g->entry, shape, src->size,
                 s->materials[src->material].name, s->materials[src->partner].name, src->law);
}

static int check_fixed(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    w->dt = s->dt;
    const char *file = where(s, s->dt_line);
    ldem_dt_source src;
    double critical = ldem_world_critical_dt_source(w, &src);
    if (isfinite(critical) && critical > 0.0 && w->dt > s->dt_safety * critical) {
        char why[320];
        describe_source(s, w, &src, why, sizeof why);
        if (w->dt > critical && !s->force_dt)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, s->dt_line,
                                "time.dt: %.3g is %.3gx the critical step %.3g (%s); use dt: "
                                "auto, a smaller dt, or force_dt: true", w->dt,
                                w->dt / critical, critical, why);
        ldem_warn("time.dt %.3g is %.3gx the critical step %.3g (%s)%s", w->dt,
                  w->dt / critical, critical, why,
                  w->dt > critical ? ": forced (force_dt: true), expect a blow-up"
                                   : "; above time.safety x that step, contacts may be "
                                     "under-resolved");
    }
    double modal = ldem_world_modal_dt(w, 2.0);
    if (w->modal.ndof && w->dt > modal) {
        if (!s->force_dt)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, s->dt_line,
                                "time.dt: %.3g exceeds 2 / (largest modal frequency) = %.3g: "
                                "the modes of deformable grains would blow up; use dt: auto, "
                                "a smaller dt, or force_dt: true", w->dt, modal);
        ldem_warn("time.dt %.3g exceeds 2 / (largest modal frequency) = %.3g: forced "
                  "(force_dt: true), the modes of deformable grains will blow up", w->dt, modal);
    }
    return LDEM_OK;
}

int scene_choose_dt(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    if (s->dt_mode == LDEM_DT_FIXED)
        return check_fixed(s, w, err);
    ldem_dt_source src;
    double critical = ldem_world_critical_dt_source(w, &src);
    if (!isfinite(critical) || !(critical > 0.0))
        return ldem_err_set(err, LDEM_ERR_INPUT, s->path, 0,
                            "time.dt: auto estimates the step from the grains, and this scene "
                            "has no free grain; give a fixed step, dt: <seconds>");
    w->dt = s->dt_safety * critical;
    char why[320];
    describe_source(s, w, &src, why, sizeof why);
    ldem_info("dt: auto: %.6g = safety %g x critical step %.6g (%s)", w->dt, s->dt_safety,
              critical, why);
    if (!w->modal.ndof)
        return LDEM_OK;
    /* Henzel §3.3: the modes must be resolved too; say which limit set the step */
    double modal = ldem_world_modal_dt(w, s->modal_safety);
    int modal_wins = modal < w->dt;
    ldem_info("dt: %s limit wins: modal %.6g (modal_safety / largest modal frequency), "
              "contact %.6g (safety x critical step)", modal_wins ? "the modal" : "the contact",
              modal, w->dt);
    if (modal_wins)
        w->dt = modal;
    return LDEM_OK;
}
