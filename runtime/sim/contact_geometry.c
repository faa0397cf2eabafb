/* contact_geometry.c — a contact's geometry beyond two spheres (contact_geometry.h). */
#include "contact_geometry.h"
#include "walls.h"

/* A level-set body as the narrow phase sees it: its shape, pose and, when deformable, its
 * modes and how far they moved its nodes this step. */
static ldem_ls_grain ls_grain(const ldem_world *w, uint32_t i, ldem_vec3 off)
{
    const ldem_bodies *b = &w->bodies;
    const ldem_shape *sh = &w->shapes[b->shape[i]];
    ldem_ls_grain g = {.lset = &sh->lset, .nodes = &sh->nodes, .x = ldem_vec3_add(b->x[i], off),
                       .q = b->q[i],
                       .radius = sh->bounding_radius, .size = sh->bounding_radius,
                       .clusters = sh->clusters, .band_slopes = sh->band_slopes};
    if (b->modal[i] != LDEM_RIGID) {
        g.radius = b->radius[i]; /* as the deformation moved the surface (ldem_modal_deform) */
        g.size = w->modal.grown[i];
        g.slack = ldem_modal_node_slack(&w->modal, i);
        if (w->work->group_off && w->work->group_off[i] != SIZE_MAX)
            g.group_slack = w->work->group_slack + w->work->group_off[i];
        g.modes = sh->modes;
        g.eps = w->modal.eps + b->modal[i];
        g.family = sh->family;
        g.slopes = sh->lset_slopes;
    }
    return g;
}

/* Turn hits found with i and j swapped (j's nodes in sphere i) into hits of the pair (i, j):
 * they are nodes of j, so side 1, and their normals point from i to j. */
static void hits_swap_sides(ldem_hits *h)
{
    for (size_t k = 0; k < h->count; k++) {
        h->hit[k].key = (h->hit[k].key & 0x7fffffffu) | 0x80000000u;
        h->hit[k].normal = ldem_vec3_neg(h->hit[k].normal);
    }
}

int ldem__other_geometry(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                         ldem_hits *h, ldem_patch *p, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    uint32_t i = c->i, j = c->j & ~LDEM_WALL_BIT;
    ldem_vec3 xi = b->x[i];
    int rc = LDEM_OK;
    if (c->j & LDEM_WALL_BIT) {
        ldem_wall_geom g = ldem_wall_pose(&w->walls[j]);
        if (b->kind[i] == LDEM_SHAPE_SPHERE) {
            ldem_sphere_wall(xi, b->radius[i], &g, p);
            return LDEM_OK;
        }
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero());
        rc = ldem_ls_wall_hits(&a, &g, h, err);
        if (!rc)
            ldem_patch_from_wall_hits(&a, &g, h, p);
        return rc;
    }
    ldem_vec3 xj = ldem_vec3_add(b->x[j], off->now); /* j's image */
    int si = b->kind[i] == LDEM_SHAPE_SPHERE, sj = b->kind[j] == LDEM_SHAPE_SPHERE;
    if (!si && !sj) {
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero()), bb = ls_grain(w, j, off->now);
        rc = ldem_ls_pair_hits(&a, &bb, h, err);
        if (!rc)
            ldem_patch_from_hits(&a, &bb, 0.0, h, p);
        return rc;
    }
    if (!si) { /* level-set i, sphere j */
        ldem_ls_grain a = ls_grain(w, i, ldem_vec3_zero());
        rc = ldem_ls_sphere_hits(&a, xj, b->radius[j], h, err);
        if (!rc)
            ldem_patch_from_hits(&a, NULL, b->radius[j], h, p);
        return rc;
    }
    /* sphere i, level-set j: compute from j's side, then turn the patch around */
    ldem_ls_grain a = ls_grain(w, j, off->now);
    rc = ldem_ls_sphere_hits(&a, xi, b->radius[i], h, err);
    if (rc)
        return rc;
    ldem_patch_from_hits(&a, NULL, b->radius[i], h, p);
    hits_swap_sides(h);
    p->normal = ldem_vec3_neg(p->normal);
    double r1 = p->r1;
    p->r1 = p->r2;
    p->r2 = r1;
    return LDEM_OK;
}
