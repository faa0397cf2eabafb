/* A stage's end criteria (ldem/sim/stages.h): pure reads of the world at a step. */
#include "ldem/sim/stages.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint_format.h"
#include "ldem/sim/output.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"
#include "periodic.h"

uint64_t ldem_stage_steps_of(double duration, double dt)
{
    if (!(dt > 0.0) || !(duration >= 0.0))
        return 0;
    double n = duration / dt;
    if (!(n < 1.8e19))
        return UINT64_MAX;
    double whole = nearbyint(n);
    if (fabs(n - whole) <= 1e-9 * (whole > 1.0 ? whole : 1.0))
        return (uint64_t)whole;
    return (uint64_t)ceil(n);
}

/* Appends "name value op threshold" to why, with ", " between items. */
static void note(char *why, size_t size, const char *name, double value, const char *op,
                 double threshold)
{
    if (!why || !size)
        return;
    size_t len = strlen(why);
    if (len + 1 >= size)
        return;
    snprintf(why + len, size - len, "%s%s %.6g %s %.6g", len ? ", " : "", name, value, op,
             threshold);
}

/* Whether any contact carries force: without one the unbalanced ratio is undefined (a grain
 * in free fall has no contact force to compare with), and the criterion does not hold. In a
 * distributed run every rank is asked (the indicators that follow are collective). */
static int any_touching(const ldem_world *w)
{
    uint64_t touching = 0;
    for (size_t k = 0; k < w->ncontacts && !touching; k++)
        touching = ldem_contact_touching(&w->contacts[k]);
    if (w->comm)
        w->comm->count(w->comm->ctx, &touching, 1, 1);
    return touching != 0;
}

/* The normal force the grains exert on a wall, as the servo measures it (walls.c). */
static double wall_pressure(const ldem_wall *wl)
{
    return -ldem_vec3_dot(wl->force, wl->normal);
}

void ldem_stage_accumulate(const ldem_stage_until *u, ldem_checkpoint_stage *st,
                           const ldem_world *w)
{
    if (!u->nservo || !u->servo_window)
        return;
    st->nservo = u->nservo;
    for (uint32_t i = 0; i < u->nservo; i++)
        st->sum[i] += wall_pressure(&w->walls[u->servo_wall[i]]);
    if (++st->block_steps < u->servo_window)
        return;
    for (uint32_t i = 0; i < u->nservo; i++) {
        st->mean[i] = st->sum[i] / (double)u->servo_window;
        st->sum[i] = 0.0;
    }
    st->block_steps = 0;
    st->have_mean = 1;
}

/* servo_settled: every wall's last block mean near its target and the wall nearly still. */
static int servo_settled(const ldem_stage_until *u, const ldem_world *w,
                         const ldem_checkpoint_stage *st, int capped, char *why, size_t size)
{
    int held = 1;
    for (uint32_t i = 0; i < u->nservo; i++) {
        const ldem_wall *wl = &w->walls[u->servo_wall[i]];
        double target = wl->servo_force;
        double error = st->have_mean && st->nservo == u->nservo
                           ? fabs(st->mean[i] - target) / fmax(fabs(target), 1e-300)
                           : INFINITY;
        double vmax = u->servo_velocity >= 0.0 ? u->servo_velocity
                                               : u->servo_tolerance * wl->servo_vmax;
        double speed = ldem_vec3_norm(wl->vel);
        int ok = error <= u->servo_tolerance && speed <= vmax;
        held &= ok;
        if (ok != capped) {
            char name[96];
            if (wl->name && *wl->name)
                snprintf(name, sizeof name, "%.64s force error", wl->name);
            else
                snprintf(name, sizeof name, "wall%u force error", (unsigned)u->servo_wall[i]);
            note(why, size, name, error, ok ? "<=" : ">", u->servo_tolerance);
            snprintf(name, sizeof name, "speed");
            note(why, size, name, speed, ok ? "<=" : ">", vmax);
        }
    }
    return held;
}

int ldem_stage_check(const ldem_stage_until *u, const ldem_world *w,
                     const ldem_checkpoint_stage *st, char *why, size_t why_size)
{
    if (why && why_size)
        why[0] = '\0';
    uint64_t done = w->step - st->step;
    int measured = u->unbalanced >= 0.0 || u->kinetic_ratio >= 0.0 || u->wall >= 0 ||
                   u->nservo;
    uint64_t every = u->check_every ? u->check_every : 1;
    int capped = (u->max_steps && done >= u->max_steps) ||
                 (u->max_time >= 0.0 && done >= ldem_stage_steps_of(u->max_time, w->dt));
    if (!capped && measured && done % every != 0)
        return LDEM_STAGE_GOES_ON;
    /* on a cap, list what did not hold; otherwise what held */
    int held = 1;
    uint64_t time_steps = u->time >= 0.0 ? ldem_stage_steps_of(u->time, w->dt) : 0;
    double elapsed = (double)done * w->dt;
    if (u->steps && done < u->steps)
        held = 0, note(capped ? why : NULL, why_size, "steps", (double)done, "<", (double)u->steps);
    else if (u->steps && !capped)
        note(why, why_size, "steps", (double)done, ">=", (double)u->steps);
    if (u->time >= 0.0 && done < time_steps)
        held = 0, note(capped ? why : NULL, why_size, "time", elapsed, "<", u->time);
    else if (u->time >= 0.0 && !capped)
        note(why, why_size, "time", elapsed, ">=", u->time);
    if (u->unbalanced >= 0.0 || u->kinetic_ratio >= 0.0) {
        double unbalanced = INFINITY, inertial;
        if (u->unbalanced >= 0.0 && any_touching(w))
            ldem_periodic_indicators(w, &unbalanced, &inertial);
        if (u->unbalanced >= 0.0) {
            int ok = unbalanced < u->unbalanced;
            held &= ok;
            if (ok != capped)
                note(why, why_size, "unbalanced", unbalanced, ok ? "<" : ">=", u->unbalanced);
        }
        if (u->kinetic_ratio >= 0.0) {
            ldem_probe_row row;
            ldem_world_measure(w, &row);
            double stored = row.stored_normal + row.stored_tangential;
            double ratio = stored > 0.0 ? row.kinetic / stored : INFINITY;
            int ok = ratio < u->kinetic_ratio;
            held &= ok;
            if (ok != capped)
                note(why, why_size, "kinetic_ratio", ratio, ok ? "<" : ">=", u->kinetic_ratio);
        }
    }
    if (u->wall >= 0 && (size_t)u->wall < w->nwalls) {
        const ldem_wall *wl = &w->walls[u->wall];
        double f = fabs(ldem_vec3_dot(wl->force, wl->normal));
        if (u->wall_area > 0.0)
            f /= u->wall_area;
        int ok = f >= u->wall_force;
        held &= ok;
        if (ok != capped)
            note(why, why_size, u->wall_area > 0.0 ? "wall_stress" : "wall_force", f,
                 ok ? ">=" : "<", u->wall_force);
    }
    if (u->nservo)
        held &= servo_settled(u, w, st, capped, why, why_size);
    if (held)
        return LDEM_STAGE_DONE;
    return capped ? LDEM_STAGE_CAPPED : LDEM_STAGE_GOES_ON;
}

/* The static checksum of stage k's world. */
static int stage_checksum(const ldem_scene *s, size_t nset, const char *const *sets, size_t k,
                          uint64_t *sum, ldem_err *err)
{
    ldem_scene staged;
    int rc = ldem_scene_load_stage(&staged, s->path, nset, sets, s->max_memory, k, err);
    if (rc)
        return rc;
    ldem_world w;
    rc = ldem_scene_build(&staged, &w, err);
    if (!rc) {
        *sum = ldem__checkpoint_static_checksum(&w);
        ldem_world_free(&w);
    }
    ldem_scene_free(&staged);
    return rc;
}

int ldem_stages_validate(const ldem_scene *s, size_t nset, const char *const *sets,
                         ldem_err *err)
{
    uint64_t first = 0;
    for (size_t k = 0; k < s->nstages; k++) {
        uint64_t sum;
        int rc = stage_checksum(s, nset, sets, k, &sum, err);
        if (rc)
            return rc;
        if (k == 0)
            first = sum;
        else if (sum != first)
            return ldem_err_set(err, LDEM_ERR_INPUT, s->path, s->stages[k].set_line,
                                "stages.%zu.set: changes what a restart cannot change "
                                "(materials' and contact laws' constants, shapes, grains, "
                                "walls' geometry: docs/checkpoint.md)", k);
    }
    return LDEM_OK;
}
