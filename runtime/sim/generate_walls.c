/* generate_walls.c — whether a grain being generated touches a wall of the scene
 * (ldem/sim/generate.h). A sphere is tested exactly, as the contact law measures it; a
 * level-set grain by its bounding sphere first and then node by node, as the contact with a
 * wall is made of the nodes behind it (ldem_ls_wall_hits), so a grain generated clear of the
 * walls is also clear for the initial-overlap check and the first step.
 */
#include "ldem/sim/generate.h"

#include <math.h>

#include "ldem/sim/world.h"

/* How far p lies inside the grains' side of the wall: > 0 on the grains' side, < 0 behind it. */
static double clearance(const ldem_wall_geom *w, ldem_vec3 p)
{
    ldem_vec3 d = ldem_vec3_sub(p, w->point);
    double along = ldem_vec3_dot(d, w->normal);
    if (w->kind == LDEM_WALL_PLANE)
        return along;
    double rho = ldem_vec3_norm(ldem_vec3_sub(d, ldem_vec3_scale(w->normal, along)));
    return w->inside ? w->radius - rho : rho - w->radius;
}

int ldem_gen_touches_wall(const ldem_wall_geom *w, const ldem_gen_grain *g)
{
    /* The clearance is 1-Lipschitz in p for every kind, so a bounding sphere that clears the
     * wall by its radius holds no point behind it. */
    double centre = clearance(w, g->x);
    if (centre >= g->radius)
        return 0;
    if (!g->shape || !g->shape->nodes)
        return 1; /* a sphere: the bounding test is exact */
    const ldem_nodes *nodes = g->shape->nodes;
    for (uint64_t k = 0; k < nodes->count; k++) {
        const double *p = &nodes->position[3 * k];
        ldem_vec3 x = ldem_vec3_add(g->x, ldem_quat_rotate(g->q, ldem_vec3_make(p[0], p[1], p[2])));
        if (clearance(w, x) < 0.0)
            return 1;
    }
    return 0;
}
