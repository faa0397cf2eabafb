/* timestep.c — the critical time step behind `dt: auto` (ldem/sim/timestep.h).
 *
 * Both estimates grow with the grain (Rayleigh time ∝ R, linear period ∝ √m), so for each
 * material only its smallest free grain matters: one pass over the bodies finds the smallest
 * radius and mass per material, then every pair of a body material with a material it can
 * meet (another body's or a wall's) is evaluated with that pair's law. Fixed bodies do not
 * move, so they only take part as partners.
 */
#include "ldem/sim/timestep.h"

#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

/* The size a Rayleigh estimate uses: a sphere's radius, a level-set grain's volume-equivalent
 * radius (its bounding radius would overestimate the step for elongated grains). */
static double equivalent_radius(const ldem_world *w, size_t i)
{
    if (w->bodies.kind[i] == LDEM_SHAPE_SPHERE)
        return w->bodies.radius[i];
    return cbrt(3.0 * w->shapes[w->bodies.shape[i]].volume / (4.0 * PI));
}

typedef struct per_material {
    double radius, mass;   /* smallest over the material's free bodies (INFINITY: none) */
    size_t smallest, lightest;   /* the first body with that radius / mass */
    int present;           /* some body or wall is of this material */
} per_material;

static void survey(const ldem_world *w, per_material *pm)
{
    for (size_t m = 0; m < w->nmaterials; m++)
        pm[m] = (per_material){INFINITY, INFINITY, 0, 0, 0};
    for (size_t k = 0; k < w->nwalls; k++)
        pm[w->walls[k].material].present = 1;
    for (size_t i = 0; i < w->bodies.count; i++) {
        per_material *p = &pm[w->bodies.material[i]];
        p->present = 1;
        if (w->bodies.flags[i] & LDEM_BODY_FIXED)
            continue;
        double r = equivalent_radius(w, i);
        if (r < p->radius)
            p->radius = r, p->smallest = i;
        if (w->bodies.mass[i] < p->mass)
            p->mass = w->bodies.mass[i], p->lightest = i;
    }
}

double ldem_world_critical_dt(const ldem_world *w)
{
    return ldem_world_critical_dt_source(w, NULL);
}

double ldem_world_critical_dt_source(const ldem_world *w, ldem_dt_source *src)
{
    if (src)
        *src = (ldem_dt_source){0, 0, 0, "", 0, 0.0};
    if (!w->bodies.count || !w->nmaterials)
        return INFINITY;
    per_material *pm = malloc(w->nmaterials * sizeof *pm);
    if (!pm)
        return NAN;   /* callers refuse a non-finite step */
    survey(w, pm);
    double dt = INFINITY;
    for (size_t a = 0; a < w->nmaterials; a++) {
        if (!isfinite(pm[a].radius))
            continue;
        for (size_t b = 0; b < w->nmaterials; b++) {
            if (!pm[b].present)
                continue;
            const ldem_pair_law *law = ldem_world_law(w, (uint32_t)a, (uint32_t)b);
            ldem_law_grain g = {pm[a].radius, pm[a].mass, w->materials[a].density};
            int by_mass = 0;
            double t = law->ops->critical_time(law, &g, &by_mass);
            /* Central differences with damping ratio ζ are stable up to ω dt = 2(√(1 + ζ²) − ζ)
             * instead of 2 (the contact's normal damping). */
            t *= sqrt(1.0 + law->damping * law->damping) - law->damping;
            if (t < dt && src)
                *src = (ldem_dt_source){by_mass ? pm[a].lightest : pm[a].smallest, (uint32_t)a,
                                        (uint32_t)b, law->ops->name, by_mass,
                                        by_mass ? pm[a].mass : pm[a].radius};
            dt = t < dt ? t : dt;
        }
    }
    free(pm);
    return dt;
}

double ldem_world_modal_dt(const ldem_world *w, double beta_d)
{
    double dt = INFINITY;
    for (size_t i = 0; i < w->bodies.count; i++) {
        const ldem_modeset *ms = ldem_world_body_modes(w, i);
        if (ms && ms->omega_max > 0.0 && beta_d / ms->omega_max < dt)
            dt = beta_d / ms->omega_max;
    }
    return dt;
}
