/* initial_overlaps.c — refuse grains that start inside each other or a wall
 * (ldem/sim/initial_overlaps.h). The broad phase with skin 0 gives the candidate pairs in
 * O(N), the contact narrowphase measures them, and the grains are then taken at their
 * reference shape (a deformable grain's initial modal amplitudes are not applied: they are
 * small against the overlaps this check exists for).
 */
#include "ldem/sim/initial_overlaps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/log.h"
#include "ldem/sim/broadphase.h"
#include "ldem/sim/narrowphase.h"
#include "walls.h"

#define SHOWN 5   /* overlaps named in the error */

typedef struct found {
    ldem_overlap *list;
    size_t count, capacity;
} found;

static int add(found *f, ldem_overlap o, ldem_err *err)
{
    if (f->count == f->capacity) {
        size_t cap = f->capacity ? 2 * f->capacity : 16;
        if (cap > SIZE_MAX / sizeof *f->list)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory listing overlaps");
        ldem_overlap *p = realloc(f->list, cap * sizeof *p);
        if (!p)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory listing overlaps");
        f->list = p, f->capacity = cap;
    }
    f->list[f->count++] = o;
    return LDEM_OK;
}

static int is_sphere(const ldem_world *w, uint32_t i)
{
    return w->bodies.kind[i] == LDEM_SHAPE_SPHERE;
}

/* The grain at its reference shape: no deformation, every node tested. */
static ldem_ls_grain rigid_grain(const ldem_world *w, uint32_t i)
{
    const ldem_shape *sh = &w->shapes[w->bodies.shape[i]];
    return (ldem_ls_grain){.lset = &sh->lset, .nodes = &sh->nodes, .x = w->bodies.x[i],
                           .q = w->bodies.q[i], .radius = sh->bounding_radius,
                           .size = sh->bounding_radius};
}

static double deepest(const ldem_hits *h)
{
    double d = 0.0;
    for (size_t k = 0; k < h->count; k++)
        d = h->hit[k].depth > d ? h->hit[k].depth : d;
    return d;
}

/* Overlap depth of grains i and j (0: apart). */
static int pair_depth(const ldem_world *w, uint32_t i, uint32_t j, ldem_hits *h, double *depth,
                      ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    h->count = 0;
    int rc = LDEM_OK;
    if (is_sphere(w, i) && is_sphere(w, j)) {
        ldem_patch p;
        ldem_sphere_sphere(b->x[i], b->radius[i], b->x[j], b->radius[j], &p);
        *depth = p.overlap;
        return LDEM_OK;
    }
    if (is_sphere(w, i) || is_sphere(w, j)) {
        uint32_t ls = is_sphere(w, i) ? j : i, sp = ls == i ? j : i;
        ldem_ls_grain a = rigid_grain(w, ls);
        rc = ldem_ls_sphere_hits(&a, b->x[sp], b->radius[sp], h, err);
    } else {
        ldem_ls_grain a = rigid_grain(w, i), c = rigid_grain(w, j);
        rc = ldem_ls_pair_hits(&a, &c, h, err);
    }
    *depth = deepest(h);
    return rc;
}

static int wall_depth(const ldem_world *w, uint32_t i, const ldem_wall *wall, ldem_hits *h,
                      double *depth, ldem_err *err)
{
    ldem_wall_geom g = ldem_wall_pose(wall);
    if (is_sphere(w, i)) {
        ldem_patch p;
        ldem_sphere_wall(w->bodies.x[i], w->bodies.radius[i], &g, &p);
        *depth = p.overlap;
        return LDEM_OK;
    }
    h->count = 0;
    ldem_ls_grain a = rigid_grain(w, i);
    int rc = ldem_ls_wall_hits(&a, &g, h, err);
    *depth = deepest(h);
    return rc;
}

static int by_size(const void *pa, const void *pb)
{
    const ldem_overlap *a = pa, *b = pb;
    if (a->relative != b->relative)
        return a->relative > b->relative ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return (a->wall > b->wall) - (a->wall < b->wall);
}

static int grain_pairs(const ldem_world *w, double allow, found *f, ldem_hits *h, ldem_err *err)
{
    ldem_broadphase bp;
    memset(&bp, 0, sizeof bp);
    const ldem_bodies *b = &w->bodies;
    int rc = ldem_broadphase_pairs(&bp, b->count, b->x, b->radius, 0.0, err);
    for (size_t k = 0; !rc && k < bp.npairs; k++) {
        uint32_t i = ldem_pair_i(bp.pairs[k]), j = ldem_pair_j(bp.pairs[k]);
        double depth;
        rc = pair_depth(w, i, j, h, &depth, err);
        double r = b->radius[i] < b->radius[j] ? b->radius[i] : b->radius[j];
        if (!rc && depth > allow * r)
            rc = add(f, (ldem_overlap){i, j, UINT32_MAX, depth, depth / r}, err);
    }
    ldem_broadphase_free(&bp);
    return rc;
}

int ldem_world_find_overlaps(const ldem_world *w, double allow, ldem_overlap **out,
                             size_t *count, ldem_err *err)
{
    found f = {NULL, 0, 0};
    ldem_hits h = {0, 0, NULL};
    int rc = w->bodies.count > 1 ? grain_pairs(w, allow, &f, &h, err) : LDEM_OK;
    for (uint32_t i = 0; !rc && i < w->bodies.count; i++)
        for (uint32_t k = 0; !rc && k < w->nwalls; k++) {
            double depth;
            rc = wall_depth(w, i, &w->walls[k], &h, &depth, err);
            double r = w->bodies.radius[i];
            if (!rc && depth > allow * r)
                rc = add(&f, (ldem_overlap){i, UINT32_MAX, k, depth, depth / r}, err);
        }
    ldem_hits_free(&h);
    if (rc) {
        free(f.list);
        return rc;
    }
    if (f.count)
        qsort(f.list, f.count, sizeof *f.list, by_size);
    *out = f.list;
    *count = f.count;
    return LDEM_OK;
}

/* "grains.4 (grain 4)" for a scene entry of one grain, "grains.1 (grain 4, TSV line 6)" for a
 * grain read from a file. */
static void name_grain(const ldem_scene *s, const ldem_world *w, uint32_t body, char *buf,
                       size_t size)
{
    uint32_t id = w->bodies.id[body];
    const ldem_scene_grain *g = &s->grains[id];
    if (g->source)
        snprintf(buf, size, "grains.%u (grain %u, %.60s:%ld)", g->entry, id,
                 s->sources[g->source - 1], g->line);
    else
        snprintf(buf, size, "grains.%u (grain %u)", g->entry, id);
}

static void name_pair(const ldem_scene *s, const ldem_world *w, const ldem_overlap *o, char *buf,
                      size_t size)
{
    char a[128], b[128];
    name_grain(s, w, o->a, a, sizeof a);
    if (o->b == UINT32_MAX)
        snprintf(b, sizeof b, "wall '%.80s'", w->walls[o->wall].name);
    else
        name_grain(s, w, o->b, b, sizeof b);
    snprintf(buf, size, "%s and %s", a, b);
}

static const char *grain_file(const ldem_scene *s, const ldem_scene_grain *g)
{
    return g->source ? s->sources[g->source - 1] : g->line > 0 ? s->path : "--set";
}

int ldem_scene_check_initial_overlaps(const ldem_scene *s, const ldem_world *w, ldem_err *err)
{
    ldem_overlap *list = NULL;
    size_t n = 0;
    double allow = s->overlap_allow;
    /* with an allowance, every overlap beyond round-off is counted for the log line */
    int rc = ldem_world_find_overlaps(w, LDEM_OVERLAP_ROUNDOFF, &list, &n, err);
    if (rc || !n)
        return rc;
    if (list[0].relative <= allow) {
        ldem_info("initial_overlap: %zu overlapping pair%s accepted (allow %g), the largest "
                  "%.3g (%.3g%% of the smaller radius)", n, n == 1 ? "" : "s", allow,
                  list[0].depth, 100.0 * list[0].relative);
        free(list);
        return LDEM_OK;
    }
    size_t beyond = 0;
    while (beyond < n && list[beyond].relative > allow)
        beyond++;
    char first[300], more[700] = "";
    name_pair(s, w, &list[0], first, sizeof first);
    for (size_t k = 1; k < beyond && k < SHOWN; k++) {
        char pair[300];
        name_pair(s, w, &list[k], pair, sizeof pair);
        size_t used = strlen(more);
        snprintf(more + used, sizeof more - used, "%s%s %.3g (%.3g%%)", k > 1 ? "; " : "", pair,
                 list[k].depth, 100.0 * list[k].relative);
    }
    const ldem_scene_grain *g = &s->grains[w->bodies.id[list[0].a]];
    rc = ldem_err_set(err, LDEM_ERR_INPUT, grain_file(s, g), g->line,
                      "%s overlap by %.3g (%.3g%% of the smaller radius); %zu overlapping "
                      "pair%s beyond initial_overlap.allow %g, largest first%s%s; move the "
                      "grains apart or accept it with initial_overlap: {allow: <overlap / "
                      "radius>}", first, list[0].depth, 100.0 * list[0].relative, beyond,
                      beyond == 1 ? "" : "s", allow, beyond > 1 ? ", the next: " : "", more);
    free(list);
    return rc;
}
