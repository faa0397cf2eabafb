/* scene_generate.c — the `grains: - generate: {...}` entry (docs/scene.md): random
 * non-overlapping grains in a region, expanded into the scene's grain list while it loads
 * (ldem/sim/generate.h does the placing). Level-set shapes of the mix, and of the grains of
 * earlier entries, are read from their bundles here so that placement sees their true
 * shapes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/memory_budget.h"
#include "ldem/sim/generate.h"
#include "ldem/sim/world.h"
#include "scene_parse.h"

#define GEN_MAX_SHAPES 16
#define GEN_MAX_TABLE 64

typedef struct gen_entry {
    ldem_gen_spec spec;
    ldem_gen_shape mix[GEN_MAX_SHAPES];
    uint32_t shape_of[GEN_MAX_SHAPES];   /* scene shape of each slot of the mix */
    double table_d[GEN_MAX_TABLE], table_p[GEN_MAX_TABLE];
    ldem_scene_grain like;               /* material, velocity, modes of every grain */
    ldem_shape *geometry;                /* per scene shape, loaded on demand */
    int *loaded;
} gen_entry;

static int load_geometry(ctx *c, gen_entry *e, uint32_t k, long line)
{
    if (e->loaded[k])
        return LDEM_OK;
    int rc = ldem__scene_shape_geometry(c->s, k, &e->geometry[k], c->err);
    if (rc && c->err->line == 0)
        c->err->line = line;
    e->loaded[k] = !rc;
    return rc;
}

/* The gen shape of scene shape k (a sphere of its radius, or its loaded level set). */
static int gen_shape_of(ctx *c, gen_entry *e, uint32_t k, long line, ldem_gen_shape *out)
{
    const ldem_scene_shape *sh = &c->s->shapes[k];
    *out = (ldem_gen_shape){.radius = sh->radius};
    if (sh->kind != LDEM_SHAPE_LSET)
        return LDEM_OK;
    int rc = load_geometry(c, e, k, line);
    if (!rc) {
        const ldem_shape *g = &e->geometry[k];
        *out = (ldem_gen_shape){.radius = g->bounding_radius, .lset = &g->lset,
                                .nodes = &g->nodes, .volume = g->volume};
    }
    return rc;
}

static int parse_mix(ctx *c, gen_entry *e, const ldem_sn *m)
{
    const ldem_sn *one = ldem_sn_get(m, "shape"), *mix = ldem_sn_get(m, "shapes");
    if (!!one == !!mix)
        return FAIL(c, m, "give one of shape: NAME or shapes: [{shape: NAME, fraction: f}, ...]");
    if (one) {
        e->spec.nshapes = 1;
        e->mix[0].fraction = 1.0;
        return scene_shape_ref(c, m, &e->shape_of[0]);
    }
    size_t mark = scene_key_push(c, "shapes");
    int rc = mix->kind == LDEM_SN_SEQUENCE && mix->count >= 1 && mix->count <= GEN_MAX_SHAPES
                 ? LDEM_OK
                 : FAIL(c, mix, "expected a list of 1 to %d {shape: NAME, fraction: f}",
                        GEN_MAX_SHAPES);
    static const char *const keys[] = {"shape", "fraction", NULL};
    double sum = 0.0;
    for (size_t k = 0; !rc && k < mix->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        const ldem_sn *item = mix->items[k];
        rc = scene_check_mapping(c, item, keys);
        if (!rc)
            rc = scene_shape_ref(c, item, &e->shape_of[k]);
        if (!rc && !ldem_sn_get(item, "fraction"))
            rc = scene_missing(c, item, "fraction", "its share of the mix, > 0");
        if (!rc)
            rc = scene_num_field(c, item, "fraction", POSITIVE, NULL, &e->mix[k].fraction);
        sum += e->mix[k].fraction;
        scene_key_pop(c, m2);
    }
    for (size_t k = 0; !rc && k < mix->count; k++)
        e->mix[k].fraction /= sum; /* shares: 3 and 1 are 75 % and 25 % */
    e->spec.nshapes = mix->count;
    scene_key_pop(c, mark);
    return rc;
}

static int parse_region(ctx *c, gen_entry *e, const ldem_sn *m)
{
    const ldem_sn *n = ldem_sn_get(m, "region");
    if (!n)
        return scene_missing(c, m, "region", "{box: {lo, hi}} or {cylinder: {point, axis, radius, height}}");
    size_t mark = scene_key_push(c, "region");
    static const char *const kinds[] = {"box", "cylinder", NULL};
    int rc = scene_check_mapping(c, n, kinds);
    if (!rc && n->count != 1)
        rc = FAIL(c, n, "give one of box: {lo, hi} or cylinder: {point, axis, radius, height}");
    ldem_gen_region *r = &e->spec.region;
    const ldem_sn *box = ldem_sn_get(n, "box"), *cyl = ldem_sn_get(n, "cylinder");
    if (!rc && box) {
        size_t m2 = scene_key_push(c, "box");
        static const char *const keys[] = {"lo", "hi", NULL};
        r->kind = LDEM_GEN_BOX;
        rc = scene_check_mapping(c, box, keys);
        if (!rc)
            rc = scene_vec3_field(c, box, "lo", "the low corner [x, y, z]", &r->lo);
        if (!rc)
            rc = scene_vec3_field(c, box, "hi", "the high corner [x, y, z]", &r->hi);
        if (!rc && !(r->hi.x > r->lo.x && r->hi.y > r->lo.y && r->hi.z > r->lo.z))
            rc = FAIL(c, box, "hi must exceed lo along every axis");
        scene_key_pop(c, m2);
    } else if (!rc && cyl) {
        size_t m2 = scene_key_push(c, "cylinder");
        static const char *const keys[] = {"point", "axis", "radius", "height", NULL};
        r->kind = LDEM_GEN_CYLINDER;
        rc = scene_check_mapping(c, cyl, keys);
        if (!rc)
            rc = scene_vec3_field(c, cyl, "point", "the centre of its base [x, y, z]", &r->base);
        if (!rc)
            rc = scene_unit_field(c, cyl, "axis", "its axis [ax, ay, az]", &r->axis);
        if (!rc)
            rc = scene_num_field(c, cyl, "radius", POSITIVE, "its radius", &r->radius);
        if (!rc)
            rc = scene_num_field(c, cyl, "height", POSITIVE, "its height along the axis",
                                 &r->height);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_sieve(ctx *c, gen_entry *e, const ldem_sn *n)
{
    ldem_gen_sizes *z = &e->spec.sizes;
    if (n->kind != LDEM_SN_SEQUENCE || n->count < 2 || n->count > GEN_MAX_TABLE)
        return FAIL(c, n, "expected 2 to %d rows [diameter, percent passing]", GEN_MAX_TABLE);
    int rc = LDEM_OK;
    for (size_t k = 0; !rc && k < n->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        double row[2];
        rc = scene_numbers(c, n->items[k], 2, "[diameter, percent passing]", row);
        if (!rc && !(row[0] > 0.0))
            rc = FAIL(c, n->items[k], "the diameter must be > 0, got %g", row[0]);
        if (!rc && !(row[1] >= 0.0 && row[1] <= 100.0))
            rc = FAIL(c, n->items[k], "percent passing must be in [0, 100], got %g", row[1]);
        if (!rc && k > 0 && !(row[0] > e->table_d[k - 1]))
            rc = FAIL(c, n->items[k], "diameters must increase row by row (%g after %g)", row[0],
                      e->table_d[k - 1]);
        if (!rc && k > 0 && row[1] < 100.0 * e->table_p[k - 1])
            rc = FAIL(c, n->items[k], "percent passing must not decrease (%g after %g)", row[1],
                      100.0 * e->table_p[k - 1]);
        e->table_d[k] = row[0], e->table_p[k] = row[1] / 100.0;
        scene_key_pop(c, m2);
    }
    if (!rc && (e->table_p[0] != 0.0 || e->table_p[n->count - 1] != 1.0))
        rc = FAIL(c, n, "the curve must run from 0 %% passing (the smallest diameter) to 100 %% "
                        "(the largest), got %g %% to %g %%", 100.0 * e->table_p[0],
                  100.0 * e->table_p[n->count - 1]);
    z->kind = LDEM_GEN_SIZE_SIEVE, z->ntable = n->count;
    z->table_d = e->table_d, z->table_p = e->table_p;
    return rc;
}

static int parse_sizes(ctx *c, gen_entry *e, const ldem_sn *m)
{
    ldem_gen_sizes *z = &e->spec.sizes;
    z->kind = LDEM_GEN_SIZE_FIXED;
    const ldem_sn *by = ldem_sn_get(m, "by");
    int rc = LDEM_OK;
    if (by) {
        size_t m2 = scene_key_push(c, "by");
        const char *word;
        rc = scene_text(c, by, "number or mass", &word);
        if (!rc && strcmp(word, "number") && strcmp(word, "mass"))
            rc = FAIL(c, by, "expected number or mass, got '%s'", word);
        z->by_mass = !rc && strcmp(word, "mass") == 0;
        scene_key_pop(c, m2);
    }
    const ldem_sn *n = ldem_sn_get(m, "diameter");
    if (rc || !n)
        return rc;
    size_t mark = scene_key_push(c, "diameter");
    static const char *const kinds[] = {"uniform", "lognormal", "sieve", NULL};
    rc = scene_check_mapping(c, n, kinds);
    if (!rc && n->count != 1)
        rc = FAIL(c, n, "give one of uniform: [min, max], lognormal: {median, sigma, min, max} "
                        "or sieve: [[d, percent passing], ...]");
    const ldem_sn *u = ldem_sn_get(n, "uniform"), *l = ldem_sn_get(n, "lognormal"),
                  *s = ldem_sn_get(n, "sieve");
    if (!rc && u) {
        size_t m2 = scene_key_push(c, "uniform");
        double v[2];
        rc = scene_numbers(c, u, 2, "[min, max]", v);
        if (!rc && !(v[0] > 0.0 && v[1] >= v[0]))
            rc = FAIL(c, u, "expected 0 < min <= max, got [%g, %g]", v[0], v[1]);
        z->kind = LDEM_GEN_SIZE_UNIFORM, z->lo = v[0], z->hi = v[1];
        scene_key_pop(c, m2);
    } else if (!rc && l) {
        size_t m2 = scene_key_push(c, "lognormal");
        static const char *const keys[] = {"median", "sigma", "min", "max", NULL};
        z->kind = LDEM_GEN_SIZE_LOGNORMAL, z->lo = 0.0, z->hi = INFINITY;
        rc = scene_check_mapping(c, l, keys);
        if (!rc)
            rc = scene_num_field(c, l, "median", POSITIVE, "the median diameter d50", &z->median);
        if (!rc)
            rc = scene_num_field(c, l, "sigma", POSITIVE, "the standard deviation of ln d",
                                 &z->sigma);
        if (!rc && z->sigma > 2.0)
            rc = FAIL(c, l, "sigma: at most 2 (diameters spread over e^4 = 55x), got %g", z->sigma);
        if (!rc && ldem_sn_get(l, "min"))
            rc = scene_num_field(c, l, "min", POSITIVE, NULL, &z->lo);
        if (!rc && ldem_sn_get(l, "max"))
            rc = scene_num_field(c, l, "max", POSITIVE, NULL, &z->hi);
        /* the truncation keeps at least 1e-3 of the distribution, or drawing could loop */
        double med = z->by_mass ? z->median * exp(-3.0 * z->sigma * z->sigma) : z->median;
        double a = (log(z->lo) - log(med)) / z->sigma, b = (log(z->hi) - log(med)) / z->sigma;
        double kept = 0.5 * (erfc(a / sqrt(2.0)) - erfc(b / sqrt(2.0)));
        if (!rc && !(kept >= 1e-3))
            rc = FAIL(c, l, "[min, max] = [%g, %g] keeps %.2g of the distribution (at least 1e-3)",
                      z->lo, z->hi, kept);
        scene_key_pop(c, m2);
    } else if (!rc && s) {
        size_t m2 = scene_key_push(c, "sieve");
        rc = parse_sieve(c, e, s);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_amount(ctx *c, gen_entry *e, const ldem_sn *m)
{
    const ldem_sn *count = ldem_sn_get(m, "count"), *phi = ldem_sn_get(m, "solid_fraction");
    if (!!count == !!phi)
        return FAIL(c, m, "give one of count: N or solid_fraction: f");
    if (count) {
        int rc = scene_int_field_from(c, m, "count", 1, SCENE_MAX_GRAINS, &e->spec.count);
        if (!rc) {
            size_t mark = scene_key_push(c, "count");
            rc = ldem_memory_check(c->s->max_memory,
                                   ldem_memory_mul(ldem_memory_add(c->s->ngrains, e->spec.count),
                                                   SCENE_BYTES_PER_GRAIN),
                                   count->from_set ? "--set" : c->s->path,
                                   count->from_set ? 0 : count->line, c->key, c->err);
            scene_key_pop(c, mark);
        }
        return rc;
    }
    static const range FRACTION = {0.0, 0.74, 1, 0};
    return scene_num_field(c, m, "solid_fraction", FRACTION, "the solid fraction to reach, in (0, 0.74]",
                           &e->spec.solid_fraction);
}

/* Every grain of the earlier entries, as obstacles the new grains must clear. */
static int obstacles_of(ctx *c, gen_entry *e, ldem_gen_shape *shapes, ldem_gen_grain *out)
{
    const ldem_scene *s = c->s;
    for (size_t i = 0; i < s->ngrains; i++) {
        const ldem_scene_grain *g = &s->grains[i];
        int rc = gen_shape_of(c, e, g->shape, g->line, &shapes[g->shape]);
        if (rc)
            return rc;
        const ldem_gen_shape *sh = &shapes[g->shape];
        out[i] = (ldem_gen_grain){
            .x = g->x,
            .q = ldem_quat_normalize(ldem_quat_make(g->q[0], g->q[1], g->q[2], g->q[3])),
            .radius = sh->nodes ? sh->radius : g->radius > 0.0 ? g->radius : sh->radius,
            .shape = sh};
    }
    return LDEM_OK;
}

/* The scene's walls at their initial pose, which the new grains must clear. */
static ldem_wall_geom *walls_of(const ldem_scene *s)
{
    ldem_wall_geom *out = malloc((s->nwalls ? s->nwalls : 1) * sizeof *out);
    for (size_t k = 0; out && k < s->nwalls; k++) {
        const ldem_scene_wall *w = &s->walls[k];
        out[k] = (ldem_wall_geom){.kind = w->kind, .point = w->point, .normal = w->normal,
                                  .radius = w->radius, .inside = w->inside};
    }
    return out;
}

/* The draw for a solid fraction outgrew the memory limit: the limit's own message, at the
 * solid_fraction key. */
static int over_budget(ctx *c, const ldem_sn *m, uint64_t drawn)
{
    const ldem_sn *phi = ldem_sn_get(m, "solid_fraction");
    size_t mark = scene_key_push(c, "solid_fraction");
    int rc = ldem_memory_check(c->s->max_memory,
                               ldem_memory_mul(ldem_memory_add(ldem_memory_add(c->s->ngrains, drawn), 1),
                                               SCENE_BYTES_PER_GRAIN),
                               phi->from_set ? "--set" : c->s->path, phi->from_set ? 0 : phi->line,
                               c->key, c->err);
    scene_key_pop(c, mark);
    return rc ? rc : FAIL(c, m, "more grains than the memory limit holds");
}

static int place(ctx *c, gen_entry *e, uint32_t entry, const ldem_sn *m, ldem_scene_grain **out,
                 size_t *n)
{
    const ldem_scene *s = c->s;
    ldem_gen_shape *shapes = calloc(s->nshapes ? s->nshapes : 1, sizeof *shapes);
    ldem_gen_grain *obstacles = malloc((s->ngrains ? s->ngrains : 1) * sizeof *obstacles);
    int rc = shapes && obstacles ? LDEM_OK : scene_nomem(c);
    for (size_t k = 0; !rc && k < e->spec.nshapes; k++) {
        double fraction = e->mix[k].fraction;
        rc = gen_shape_of(c, e, e->shape_of[k], m->line, &e->mix[k]);
        e->mix[k].fraction = fraction;
    }
    if (!rc)
        rc = obstacles_of(c, e, shapes, obstacles);
    ldem_wall_geom *walls = rc ? NULL : walls_of(s);
    if (!rc && !walls)
        rc = scene_nomem(c);
    e->spec.shapes = e->mix;
    e->spec.walls = walls;
    e->spec.nwalls = s->nwalls;
    /* A solid fraction's count is known only once drawn: the draw stops where the grains
     * would outgrow the memory limit, before allocating them. */
    uint64_t room = ldem_memory_limit(s->max_memory) / SCENE_BYTES_PER_GRAIN;
    e->spec.max_grains = room > s->ngrains ? room - s->ngrains : 1;
    ldem_gen_grain *placed = NULL;
    size_t count = 0;
    char why[400];
    int status = rc ? 0 : ldem_generate(&e->spec, obstacles, s->ngrains, &placed, &count, why,
                                        sizeof why);
    if (!rc && status == 2)
        rc = scene_nomem(c);
    else if (!rc && status == 3)
        rc = over_budget(c, m, e->spec.max_grains);
    else if (!rc && status)
        rc = FAIL(c, m, "%s", why);
    if (!rc) {
        *out = malloc((count ? count : 1) * sizeof **out);
        rc = *out ? LDEM_OK : scene_nomem(c);
    }
    for (size_t i = 0; !rc && i < count; i++) {
        ldem_scene_grain *g = &(*out)[i];
        *g = e->like;
        g->shape = e->shape_of[placed[i].slot];
        g->x = placed[i].x;
        g->q[0] = placed[i].q.w, g->q[1] = placed[i].q.x;
        g->q[2] = placed[i].q.y, g->q[3] = placed[i].q.z;
        g->radius = placed[i].shape->nodes ? 0.0 : placed[i].radius;
        g->entry = entry;
        g->line = m->from_set ? 0 : m->line;
    }
    if (!rc)
        *n = count;
    free(placed);
    free(shapes);
    free(obstacles);
    free(walls);
    return rc;
}

int scene_generate_entry(ctx *c, uint32_t entry, const ldem_sn *m, ldem_scene_grain **out,
                         size_t *n)
{
    static const char *const keys[] = {"shape", "shapes", "material", "region", "count",
                                       "solid_fraction", "diameter", "by", "velocity", "seed",
                                       "attempts", "deformable", "modes", NULL};
    *out = NULL, *n = 0;
    gen_entry *e = calloc(1, sizeof *e);
    if (!e)
        return scene_nomem(c);
    e->like.q[0] = 1.0;
    e->like.modal_init = -1;
    e->spec.seed = 1;
    e->spec.attempts = 10000;
    e->geometry = calloc(c->s->nshapes ? c->s->nshapes : 1, sizeof *e->geometry);
    e->loaded = calloc(c->s->nshapes ? c->s->nshapes : 1, sizeof *e->loaded);
    int rc = e->geometry && e->loaded ? LDEM_OK : scene_nomem(c);
    if (!rc)
        rc = scene_check_mapping(c, m, keys);
    if (!rc)
        rc = scene_parse_grain_modes(c, m, &e->like);
    if (!rc)
        rc = parse_mix(c, e, m);
    if (!rc)
        rc = scene_material_ref(c, m, &e->like.material);
    if (!rc)
        rc = parse_region(c, e, m);
    if (!rc)
        rc = parse_amount(c, e, m);
    if (!rc)
        rc = parse_sizes(c, e, m);
    if (!rc)
        rc = scene_vec3_field(c, m, "velocity", NULL, &e->like.v);
    if (!rc)
        rc = scene_int_field(c, m, "seed", SCENE_MAX_INTEGER, &e->spec.seed);
    if (!rc)
        rc = scene_int_field_from(c, m, "attempts", 1, 1e9, &e->spec.attempts);
    if (!rc)
        rc = place(c, e, entry, m, out, n);
    for (size_t k = 0; e->loaded && k < c->s->nshapes; k++)
        if (e->loaded[k]) {
            ldem_lset_free(&e->geometry[k].lset);
            ldem_nodes_free(&e->geometry[k].nodes);
        }
    free(e->geometry);
    free(e->loaded);
    free(e);
    return rc;
}
