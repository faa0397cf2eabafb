/* contact_geometry.h — private to runtime/sim: a contact's geometry (contact_geometry.c):
 * the patch of two spheres, a sphere and a wall, level-set grains against spheres, walls and
 * each other, through the narrow phase (ldem/sim/narrowphase.h). */
#ifndef LDEM_SIM_CONTACT_GEOMETRY_H
#define LDEM_SIM_CONTACT_GEOMETRY_H

#include "contact_kinematics.h"
#include "ldem/sim/narrowphase.h"

/* The geometry of every pair but two spheres (ldem__contact_geometry): a patch, and for
 * level-set pairs the penetrating nodes. */
int ldem__other_geometry(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                         ldem_hits *h, ldem_patch *p, ldem_err *err);

/* The contact's geometry: a patch, and for level-set pairs the penetrating nodes. Two
 * spheres, the common pair, are done here inline; the rest is other_geometry's. */
static inline int ldem__contact_geometry(const ldem_world *w, const ldem_contact *c,
                                   const image_offset *off, ldem_hits *h, ldem_patch *p,
                                   ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    uint32_t i = c->i, j = c->j;
    h->count = 0;
    if (!(j & LDEM_WALL_BIT) && b->kind[i] == LDEM_SHAPE_SPHERE &&
        b->kind[j] == LDEM_SHAPE_SPHERE) {
        ldem_sphere_sphere(b->x[i], b->radius[i], ldem_vec3_add(b->x[j], off->now),
                           b->radius[j], p);
        return LDEM_OK;
    }
    return ldem__other_geometry(w, c, off, h, p, err);
}

#endif
