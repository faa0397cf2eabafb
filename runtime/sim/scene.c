/* scene.c — the scene tree (scene_tree.h) checked against the schema of docs/scene.md and
 * turned into an ldem_scene.
 *
 * Every message reads "FILE:LINE: dotted.key: what is wrong, what is expected": the walk
 * keeps the dotted path of the node it is in (ctx.key), and each node knows its line and
 * whether it came from --set. Lattices and TSV placements are expanded here, so the scene
 * that leaves the parser is a flat list of grains; scene_build.c only turns it into a world.
 *
 * This file walks the top level and parses time, materials, contacts, shapes and output;
 * scene_grains.c and scene_bounds.c parse the grains, walls and cell, on the checks of
 * scene_fields.c.
 */
#include "ldem/sim/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/vtu.h"
#include "scene_parse.h"

/* ---- time, gravity, damping, skin, threads, order ---- */

static const char *const TOP_KEYS[] = {"time", "gravity", "damping", "skin", "threads",
                                       "order", "materials", "contacts", "shapes", "grains",
                                       "walls", "cell", "output", "stages", "initial_overlap",
                                       NULL};

/* `dt: auto` or a fixed step > 0. */
static int parse_dt(ctx *c, const ldem_sn *dt)
{
    size_t mark = scene_key_push(c, "dt");
    int rc;
    char *end = NULL;
    if (dt->kind == LDEM_SN_SCALAR && strcmp(dt->text, "auto") == 0) {
        c->s->dt_mode = LDEM_DT_AUTO;
        rc = LDEM_OK;
    } else if (dt->kind == LDEM_SN_SCALAR && (strtod(dt->text, &end), end != dt->text && !*end)) {
        c->s->dt_mode = LDEM_DT_FIXED;
        rc = scene_number(c, dt, POSITIVE, &c->s->dt);
    } else {
        char buf[80];
        rc = FAIL(c, dt, "expected auto or a time step > 0, got %s",
                  scene_looks(dt, buf, sizeof buf));
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_time(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"dt", "safety", "modal_safety", "duration", "steps",
                                       "force_dt", NULL};
    ldem_scene *s = c->s;
    const ldem_sn *t = ldem_sn_get(root, "time");
    if (!t)
        return FAIL(c, root, "missing 'time' (the run length: time: {duration: T} or "
                    "time: {steps: N}, and optionally dt: auto | <step>)");
    size_t mark = scene_key_push(c, "time");
    int rc = scene_check_mapping(c, t, keys);
    const ldem_sn *dt = ldem_sn_get(t, "dt");
    if (!rc && dt)
        rc = parse_dt(c, dt);
    if (!rc && dt)
        s->dt_line = dt->line;
    if (!rc)
        rc = scene_bool_field(c, t, "force_dt", &s->force_dt);
    if (!rc)
        rc = scene_num_field(c, t, "safety", (range){0.0, 1.0, 1, 0}, NULL, &s->dt_safety);
    if (!rc)
        rc = scene_num_field(c, t, "modal_safety", (range){0.0, 2.0, 1, 0}, NULL, &s->modal_safety);
    const ldem_sn *duration = ldem_sn_get(t, "duration"), *steps = ldem_sn_get(t, "steps");
    if (!rc && duration && steps) {
        scene_key_push(c, "steps");
        rc = FAIL(c, steps, "give either duration or steps, not both");
    }
    /* a staged run may leave the length to its stages */
    if (!rc && !duration && !steps && ldem_sn_get(root, "stages"))
        s->duration = -1.0, s->steps = UINT64_MAX;
    else if (!rc && !duration && !steps)
        rc = FAIL(c, t, "missing the run length: give duration (a time) or steps (a count)");
    if (!rc && duration)
        rc = scene_num_field(c, t, "duration", NONNEGATIVE, NULL, &s->duration);
    if (!rc && steps) {
        s->duration = -1.0;
        rc = scene_int_field(c, t, "steps", SCENE_MAX_INTEGER, &s->steps);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* `initial_overlap: {allow: <overlap / radius> | any}` (initial_overlaps.c checks it). */
static int parse_initial_overlap(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"allow", NULL};
    const ldem_sn *io = ldem_sn_get(root, "initial_overlap");
    if (!io)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "initial_overlap");
    c->s->overlap_line = io->line;
    int rc = scene_check_mapping(c, io, keys);
    const ldem_sn *allow = rc ? NULL : ldem_sn_get(io, "allow");
    if (!rc && !allow)
        rc = scene_missing(c, io, "allow", "the largest overlap / radius accepted, or any");
    if (allow) {
        scene_key_push(c, "allow");
        if (allow->kind == LDEM_SN_SCALAR && strcmp(allow->text, "any") == 0)
            c->s->overlap_allow = INFINITY;
        else
            rc = scene_number(c, allow, NONNEGATIVE, &c->s->overlap_allow);
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_globals(ctx *c, const ldem_sn *root)
{
    static const char *const damping_keys[] = {"viscous", "local", NULL};
    ldem_scene *s = c->s;
    int rc = parse_time(c, root);
    if (!rc)
        rc = scene_vec3_field(c, root, "gravity", NULL, &s->gravity);
    const ldem_sn *d = ldem_sn_get(root, "damping");
    if (!rc && d) {
        size_t mark = scene_key_push(c, "damping");
        rc = scene_check_mapping(c, d, damping_keys);
        if (!rc)
            rc = scene_num_field(c, d, "viscous", NONNEGATIVE, NULL, &s->damping_viscous);
        if (!rc)
            rc = scene_num_field(c, d, "local", (range){0.0, 1.0, 0, 1}, NULL, &s->damping_local);
        scene_key_pop(c, mark);
    }
    if (!rc)
        rc = scene_num_field(c, root, "skin", NONNEGATIVE, NULL, &s->skin);
    uint64_t threads = 0;
    if (!rc)
        rc = scene_int_field(c, root, "threads", 4096, &threads);
    s->threads = (int)threads;
    const ldem_sn *order = rc ? NULL : ldem_sn_get(root, "order");
    if (order) {
        char buf[80];
        size_t mark = scene_key_push(c, "order");
        if (order->kind == LDEM_SN_SCALAR && strcmp(order->text, "spatial") == 0)
            s->order_spatial = 1;
        else if (order->kind == LDEM_SN_SCALAR && strcmp(order->text, "input") == 0)
            s->order_spatial = 0;
        else
            rc = FAIL(c, order, "expected input or spatial, got %s",
                      scene_looks(order, buf, sizeof buf));
        scene_key_pop(c, mark);
    }
    if (!rc)
        rc = parse_initial_overlap(c, root);
    return rc;
}

/* ---- materials, contacts, shapes ---- */

static long material_index(const ldem_scene *s, const char *name)
{
    for (size_t k = 0; k < s->nmaterials; k++)
        if (strcmp(s->materials[k].name, name) == 0)
            return (long)k;
    return -1;
}

static long shape_index(const ldem_scene *s, const char *name)
{
    for (size_t k = 0; k < s->nshapes; k++)
        if (strcmp(s->shapes[k].name, name) == 0)
            return (long)k;
    return -1;
}

/* "glass, steel" (what the user could have written instead). */
static void material_names(const ldem_scene *s, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->nmaterials && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", s->materials[k].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (!s->nmaterials)
        snprintf(buf, size, "none defined");
}

static void shape_names(const ldem_scene *s, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->nshapes && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", s->shapes[k].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (!s->nshapes)
        snprintf(buf, size, "none defined");
}

static int parse_material(ctx *c, const char *name, const ldem_sn *m, ldem_scene_material *out)
{
    static const char *const keys[] = {"E", "nu", "density", "friction", NULL};
    int rc = scene_check_mapping(c, m, keys);
    if (!rc && strcmp(name, "*") == 0)
        rc = FAIL(c, m, "'*' is reserved (it matches any material in contacts)");
    if (!rc)
        rc = scene_num_field(c, m, "E", POSITIVE, "Young's modulus, > 0", &out->E);
    if (!rc)
        rc = scene_num_field(c, m, "nu", (range){-1.0, 0.5, 1, 0}, "Poisson's ratio, in (-1, 0.5]",
                       &out->nu);
    if (!rc)
        rc = scene_num_field(c, m, "density", POSITIVE, "mass per volume, > 0", &out->density);
    if (!rc)
        rc = scene_num_field(c, m, "friction", NONNEGATIVE, "friction coefficient, >= 0",
                       &out->friction);
    if (!rc)
        rc = scene_dup_into(c, name, &out->name);
    out->line = m->line;
    return rc;
}

static int parse_materials(ctx *c, const ldem_sn *root)
{
    const ldem_sn *mats = ldem_sn_get(root, "materials");
    if (!mats)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "materials");
    char buf[80];
    int rc = mats->kind == LDEM_SN_MAPPING
                 ? LDEM_OK
                 : FAIL(c, mats, "expected a mapping of material names to {E, nu, density, "
                        "friction}, got %s", scene_looks(mats, buf, sizeof buf));
    if (!rc && !(c->s->materials = calloc(mats->count ? mats->count : 1,
                                          sizeof *c->s->materials)))
        rc = scene_nomem(c);
    for (size_t k = 0; !rc && k < mats->count; k++) {
        size_t m2 = scene_key_push(c, mats->keys[k]);
        rc = parse_material(c, mats->keys[k], mats->items[k], &c->s->materials[k]);
        scene_key_pop(c, m2);
        c->s->nmaterials += c->s->materials[k].name != NULL;
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_model(ctx *c, const ldem_sn *entry, const ldem_law_ops **ops)
{
    const ldem_sn *n = ldem_sn_get(entry, "model");
    *ops = ldem_law_default();
    if (!n)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "model");
    const ldem_law_ops *found = n->kind == LDEM_SN_SCALAR ? ldem_law_find(n->text) : NULL;
    int rc = LDEM_OK;
    if (found) {
        *ops = found;
    } else {
        char buf[80], names[256];
        ldem_law_names(names, sizeof names);
        rc = FAIL(c, n, "unknown model %s; accepted: %s", scene_looks(n, buf, sizeof buf), names);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* `between: [a, b]`, each a material name or '*'. */
static int parse_between(ctx *c, const ldem_sn *entry, ldem_scene_contact *out)
{
    const ldem_sn *n = ldem_sn_get(entry, "between");
    if (!n)
        return scene_missing(c, entry, "between", "the two materials, e.g. [glass, steel] or "
                       "['*', steel]");
    size_t mark = scene_key_push(c, "between");
    char buf[80];
    int rc = n->kind == LDEM_SN_SEQUENCE && n->count == 2
                 ? LDEM_OK
                 : FAIL(c, n, "expected a list of two material names (or '*'), got %s",
                        scene_looks(n, buf, sizeof buf));
    char **names[2] = {&out->material_a, &out->material_b};
    for (size_t k = 0; !rc && k < 2; k++) {
        size_t m2 = scene_key_push_index(c, k);
        const char *name;
        rc = scene_text(c, n->items[k], "a material name or '*'", &name);
        if (!rc && strcmp(name, "*") != 0 && material_index(c->s, name) < 0) {
            char list[200];
            material_names(c->s, list, sizeof list);
            rc = FAIL(c, n->items[k], "unknown material '%.60s'; materials: %s", name, list);
        }
        if (!rc)
            rc = scene_dup_into(c, name, names[k]);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* A key this entry's model does not take (another model's parameter). */
static int refuse_param(ctx *c, const ldem_sn *entry, const char *key, const ldem_law_ops *ops,
                        int allowed)
{
    const ldem_sn *n = ldem_sn_get(entry, key);
    if (!n || allowed)
        return LDEM_OK;
    size_t mark = scene_key_push(c, key);
    int rc = FAIL(c, n, "does not apply to model %s", ops->name);
    scene_key_pop(c, mark);
    return rc;
}

/* A parameter given as one of its words (e.g. history: compressed | full), stored as the
 * word's index. */
static int parse_word(ctx *c, const ldem_sn *entry, const ldem_law_param *lp, double *out)
{
    const ldem_sn *n = ldem_sn_get(entry, lp->key);
    if (!n)
        return LDEM_OK;
    size_t mark = scene_key_push(c, lp->key);
    int rc = LDEM_ERR_INPUT;
    for (size_t k = 0; lp->words[k] && rc; k++)
        if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, lp->words[k]) == 0)
            *out = (double)k, rc = LDEM_OK;
    if (rc) {
        char buf[80], list[160];
        scene_join_names(lp->words, list, sizeof list);
        rc = FAIL(c, n, "expected one of %s, got %s", list, scene_looks(n, buf, sizeof buf));
    }
    scene_key_pop(c, mark);
    return rc;
}

/* The law's own parameters, as its table declares them. */
static int parse_law_params(ctx *c, const ldem_sn *entry, ldem_scene_contact *out)
{
    const ldem_law_ops *ops = out->ops;
    int rc = LDEM_OK;
    for (size_t k = 0; !rc && k < ops->nparams; k++) {
        const ldem_law_param *lp = &ops->params[k];
        out->p[k] = lp->fallback;
        if (ldem_sn_get(entry, lp->key))
            out->given |= 1u << k;
        if (lp->words)
            rc = parse_word(c, entry, lp, &out->p[k]);
        else
            rc = scene_num_field(c, entry, lp->key,
                                 (range){lp->min, lp->max, lp->min_open, lp->max_open},
                                 isnan(lp->fallback) ? lp->help : NULL, &out->p[k]);
    }
    return rc;
}

/* Every key a contacts entry may have: its own, and every registered law's parameters. */
static size_t contact_keys(const char **keys, size_t room)
{
    static const char *const COMMON[] = {"between", "model", "friction", "damping"};
    size_t n = 0, nlaws;
    for (size_t k = 0; k < sizeof COMMON / sizeof *COMMON && n + 1 < room; k++)
        keys[n++] = COMMON[k];
    const ldem_law_ops *const *laws = ldem_laws(&nlaws);
    for (size_t l = 0; l < nlaws; l++)
        for (size_t k = 0; k < laws[l]->nparams && n + 1 < room; k++) {
            int seen = 0;
            for (size_t q = 0; q < n && !seen; q++)
                seen = strcmp(keys[q], laws[l]->params[k].key) == 0;
            if (!seen)
                keys[n++] = laws[l]->params[k].key;
        }
    keys[n] = NULL;
    return n;
}

static int parse_contact(ctx *c, const ldem_sn *entry, ldem_scene_contact *out)
{
    const char *keys[64];
    contact_keys(keys, sizeof keys / sizeof *keys);
    int rc = scene_check_mapping(c, entry, keys);
    out->line = entry->line;
    out->friction = -1.0;
    if (!rc)
        rc = parse_between(c, entry, out);
    if (!rc)
        rc = parse_model(c, entry, &out->ops);
    if (rc)
        return rc;
    const ldem_law_ops *ops = out->ops;
    for (size_t k = 4; !rc && keys[k]; k++)
        rc = refuse_param(c, entry, keys[k], ops, ldem_law_param_index(ops, keys[k]) >= 0);
    if (!rc)
        rc = refuse_param(c, entry, "friction", ops, (ops->flags & LDEM_LAW_FRICTION) != 0);
    if (!rc)
        rc = refuse_param(c, entry, "damping", ops, (ops->flags & LDEM_LAW_NORMAL_DAMPING) != 0);
    if (!rc)
        rc = scene_num_field(c, entry, "damping", (range){0.0, 1.0, 0, 0}, NULL, &out->damping);
    if (!rc)
        rc = parse_law_params(c, entry, out);
    if (!rc)
        rc = scene_num_field(c, entry, "friction", NONNEGATIVE, NULL, &out->friction);
    return rc;
}

static int parse_contacts(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "contacts");
    if (!list)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "contacts");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE
                 ? LDEM_OK
                 : FAIL(c, list, "expected a list of {between, model, ...} entries, got %s",
                        scene_looks(list, buf, sizeof buf));
    if (!rc && !(c->s->contacts = calloc(list->count ? list->count : 1, sizeof *c->s->contacts)))
        rc = scene_nomem(c);
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        c->s->ncontacts = k + 1;
        rc = parse_contact(c, list->items[k], &c->s->contacts[k]);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* A path relative to the scene file's folder (absolute paths stay). */
int scene_resolve(ctx *c, const char *rel, char **out)
{
    const char *dir = c->s->dir;
    if (rel[0] == '/' || strcmp(dir, ".") == 0)
        return scene_dup_into(c, rel, out);
    size_t n = strlen(dir) + strlen(rel) + 2;
    *out = malloc(n);
    if (!*out)
        return scene_nomem(c);
    snprintf(*out, n, "%s/%s", dir, rel);
    return LDEM_OK;
}

/* ---- deformable grains: a shape's modes: block, a grain's modes: and deformable: ---- */

/* `range: [min, max]` for every mode, or `[[min, max], ...]` one pair per mode. */
static int parse_range(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    size_t mark = scene_key_push(c, "range");
    char buf[80];
    int rc = LDEM_OK;
    int nested = n->kind == LDEM_SN_SEQUENCE && n->count > 0 &&
                 n->items[0]->kind == LDEM_SN_SEQUENCE;
    size_t pairs = nested ? n->count : 1;
    if (n->kind != LDEM_SN_SEQUENCE || !n->count)
        rc = FAIL(c, n, "expected [min, max] or one [min, max] per mode, got %s",
                  scene_looks(n, buf, sizeof buf));
    if (!rc && !(m->range = malloc(2 * pairs * sizeof *m->range)))
        rc = scene_nomem(c);
    for (size_t k = 0; !rc && k < pairs; k++) {
        size_t m2 = nested ? scene_key_push_index(c, k) : c->len;
        rc = scene_numbers(c, nested ? n->items[k] : n, 2, "[min, max]", &m->range[2 * k]);
        if (!rc && !(m->range[2 * k + 1] > m->range[2 * k]))
            rc = FAIL(c, nested ? n->items[k] : n, "expected min < max, got [%g, %g]",
                      m->range[2 * k], m->range[2 * k + 1]);
        scene_key_pop(c, m2);
    }
    if (!rc)
        m->nrange = pairs;
    scene_key_pop(c, mark);
    return rc;
}

/* `damping: bundle | none | {ratio: z} | {rayleigh: [a, b]}` */
static int parse_modal_damping(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    static const char *const keys[] = {"ratio", "rayleigh", NULL};
    size_t mark = scene_key_push(c, "damping");
    char buf[80];
    int rc = LDEM_OK;
    if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "bundle") == 0) {
        m->damping = LDEM_MODAL_DAMPING_BUNDLE;
    } else if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "none") == 0) {
        m->damping = LDEM_MODAL_DAMPING_NONE;
    } else if (n->kind == LDEM_SN_MAPPING && n->count == 1) {
        rc = scene_check_mapping(c, n, keys);
        const ldem_sn *ratio = ldem_sn_get(n, "ratio"), *ray = ldem_sn_get(n, "rayleigh");
        if (!rc && ratio) {
            m->damping = LDEM_MODAL_DAMPING_RATIO;
            rc = scene_num_field(c, n, "ratio", NONNEGATIVE, NULL, &m->zeta);
        } else if (!rc && ray) {
            double ab[2];
            size_t m2 = scene_key_push(c, "rayleigh");
            rc = scene_numbers(c, ray, 2, "[alpha, beta]", ab);
            if (!rc && (!(ab[0] >= 0.0) || !(ab[1] >= 0.0)))
                rc = FAIL(c, ray, "expected alpha, beta >= 0, got [%g, %g]", ab[0], ab[1]);
            scene_key_pop(c, m2);
            m->damping = LDEM_MODAL_DAMPING_RAYLEIGH;
            m->alpha = ab[0];
            m->beta = ab[1];
        }
    } else {
        rc = FAIL(c, n, "expected bundle, none, {ratio: zeta} or {rayleigh: [alpha, beta]}, got %s",
                  scene_looks(n, buf, sizeof buf));
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_shape_modes(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    static const char *const keys[] = {"levelset", "range", "samples", "damping", "pullback",
                                       NULL};
    size_t mark = scene_key_push(c, "modes");
    char buf[80];
    m->given = 1;
    m->line = n->from_set ? 0 : n->line;
    int rc = n->kind == LDEM_SN_MAPPING ? scene_check_mapping(c, n, keys)
                                        : FAIL(c, n, "expected a mapping {levelset, range, "
                                               "samples, damping, pullback}, got %s",
                                               scene_looks(n, buf, sizeof buf));
    const ldem_sn *ls = rc ? NULL : ldem_sn_get(n, "levelset");
    if (ls) {
        size_t m2 = scene_key_push(c, "levelset");
        if (ls->kind == LDEM_SN_SCALAR && strcmp(ls->text, "remap") == 0)
            m->levelset = LDEM_LEVELSET_REMAP;
        else if (ls->kind == LDEM_SN_SCALAR && strcmp(ls->text, "precomputed") == 0)
            m->levelset = LDEM_LEVELSET_PRECOMPUTED;
        else
            rc = FAIL(c, ls, "expected remap or precomputed, got %s",
                      scene_looks(ls, buf, sizeof buf));
        scene_key_pop(c, m2);
    }
    const ldem_sn *range = rc ? NULL : ldem_sn_get(n, "range");
    if (range)
        rc = parse_range(c, range, m);
    if (!rc)
        rc = scene_int_field_from(c, n, "samples", 2, 1e6, &m->samples);
    if (!rc)
        rc = scene_int_field_from(c, n, "pullback", 1, 100, &m->pullback);
    const ldem_sn *damping = rc ? NULL : ldem_sn_get(n, "damping");
    if (damping)
        rc = parse_modal_damping(c, damping, m);
    scene_key_pop(c, mark);
    return rc;
}

/* A grain entry's `modes: {amplitude: [...], rate: [...]}` (one init shared by every grain
 * the entry makes) and `deformable:`. */
int scene_parse_grain_modes(ctx *c, const ldem_sn *entry, ldem_scene_grain *g)
{
    static const char *const keys[] = {"amplitude", "rate", NULL};
    g->deformable = -1;
    g->modal_init = -1;
    const ldem_sn *d = ldem_sn_get(entry, "deformable");
    int rc = LDEM_OK;
    if (d) {
        int v = 0;
        rc = scene_bool_field(c, entry, "deformable", &v);
        g->deformable = v;
    }
    const ldem_sn *n = rc ? NULL : ldem_sn_get(entry, "modes");
    if (!n)
        return rc;
    size_t mark = scene_key_push(c, "modes");
    char buf[80];
    rc = n->kind == LDEM_SN_MAPPING ? scene_check_mapping(c, n, keys)
                                    : FAIL(c, n, "expected {amplitude: [...], rate: [...]}, got %s",
                                           scene_looks(n, buf, sizeof buf));
    const ldem_sn *amp = rc ? NULL : ldem_sn_get(n, "amplitude");
    const ldem_sn *rate = rc ? NULL : ldem_sn_get(n, "rate");
    size_t count = amp ? amp->count : rate ? rate->count : 0;
    if (!rc && ((amp && amp->kind != LDEM_SN_SEQUENCE) || (rate && rate->kind != LDEM_SN_SEQUENCE) ||
                count == 0))
        rc = FAIL(c, n, "expected amplitude: [e1, ...] and/or rate: [r1, ...], one value per "
                  "mode");
    if (!rc && amp && rate && amp->count != rate->count)
        rc = FAIL(c, rate, "rate has %zu values, amplitude %zu", rate->count, amp->count);
    ldem_scene *s = c->s;
    const ldem_sn *sized = amp ? amp : rate ? rate : n;
    ldem_scene_modal_init init = {count, NULL, NULL, amp ? "amplitude" : "rate",
                                  sized->from_set ? 0 : sized->line};
    if (!rc && (!(init.amplitude = calloc(count, sizeof(double))) ||
                !(init.rate = calloc(count, sizeof(double)))))
        rc = scene_nomem(c);
    if (!rc && amp) {
        size_t m2 = scene_key_push(c, "amplitude");
        rc = scene_numbers(c, amp, count, "(one per mode)", init.amplitude);
        scene_key_pop(c, m2);
    }
    if (!rc && rate) {
        size_t m2 = scene_key_push(c, "rate");
        rc = scene_numbers(c, rate, count, "(one per mode)", init.rate);
        scene_key_pop(c, m2);
    }
    ldem_scene_modal_init *grown = NULL;
    if (!rc && !(grown = realloc(s->modal_inits, (s->nmodal_inits + 1) * sizeof *grown)))
        rc = scene_nomem(c);
    if (rc) {
        free(init.amplitude);
        free(init.rate);
    } else {
        s->modal_inits = grown;
        g->modal_init = (long)s->nmodal_inits;
        s->modal_inits[s->nmodal_inits++] = init;
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_shape(ctx *c, const char *name, const ldem_sn *m, ldem_scene_shape *out)
{
    static const char *const keys[] = {"sphere", "bundle", "modes", NULL};
    int rc = scene_check_mapping(c, m, keys);
    const ldem_sn *sphere = ldem_sn_get(m, "sphere"), *bundle = ldem_sn_get(m, "bundle");
    if (!rc && (!sphere) == (!bundle))
        rc = FAIL(c, m, "give exactly one of sphere: <radius> or bundle: <file.ldg>");
    if (!rc)
        rc = scene_dup_into(c, name, &out->name);
    if (!rc && sphere) {
        out->kind = LDEM_SHAPE_SPHERE;
        out->line = sphere->line;
        rc = scene_num_field(c, m, "sphere", POSITIVE, NULL, &out->radius);
    }
    if (!rc && bundle) {
        out->kind = LDEM_SHAPE_LSET;
        out->line = bundle->line;
        size_t mark = scene_key_push(c, "bundle");
        const char *path;
        rc = scene_text(c, bundle, "a bundle file (.ldg)", &path);
        if (!rc)
            rc = scene_resolve(c, path, &out->bundle);
        scene_key_pop(c, mark);
    }
    out->modes.samples = 9;
    out->modes.pullback = 1;
    const ldem_sn *modes = rc ? NULL : ldem_sn_get(m, "modes");
    if (modes && sphere) {
        size_t mark = scene_key_push(c, "modes");
        rc = FAIL(c, modes, "modes apply to bundle shapes only (an analytic sphere is rigid)");
        scene_key_pop(c, mark);
    }
    else if (modes)
        rc = parse_shape_modes(c, modes, &out->modes);
    return rc;
}

static int parse_shapes(ctx *c, const ldem_sn *root)
{
    const ldem_sn *shapes = ldem_sn_get(root, "shapes");
    if (!shapes)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "shapes");
    char buf[80];
    int rc = shapes->kind == LDEM_SN_MAPPING
                 ? LDEM_OK
                 : FAIL(c, shapes, "expected a mapping of shape names to {sphere: R} or "
                        "{bundle: file.ldg}, got %s", scene_looks(shapes, buf, sizeof buf));
    if (!rc && !(c->s->shapes = calloc(shapes->count ? shapes->count : 1,
                                       sizeof *c->s->shapes)))
        rc = scene_nomem(c);
    for (size_t k = 0; !rc && k < shapes->count; k++) {
        size_t m2 = scene_key_push(c, shapes->keys[k]);
        c->s->nshapes = k + 1;
        rc = parse_shape(c, shapes->keys[k], shapes->items[k], &c->s->shapes[k]);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* ---- references ---- */

/* `material:` of a grain entry or wall: a defined name; may be left out when the scene has
 * exactly one material. */
int scene_material_ref(ctx *c, const ldem_sn *map, uint32_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, "material");
    char list[200];
    material_names(c->s, list, sizeof list);
    if (!n) {
        if (c->s->nmaterials == 1) {
            *out = 0;
            return LDEM_OK;
        }
        return scene_missing(c, map, "material", c->s->nmaterials
                                               ? "a material name; needed when the scene "
                                                 "defines more than one"
                                               : "no materials are defined; add a materials "
                                                 "block");
    }
    size_t mark = scene_key_push(c, "material");
    const char *name;
    int rc = scene_text(c, n, "a material name", &name);
    long k = rc ? -1 : material_index(c->s, name);
    if (!rc && k < 0)
        rc = FAIL(c, n, "unknown material '%.60s'; materials: %s", name, list);
    if (!rc)
        *out = (uint32_t)k;
    scene_key_pop(c, mark);
    return rc;
}

int scene_shape_ref(ctx *c, const ldem_sn *map, uint32_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, "shape");
    char list[200];
    shape_names(c->s, list, sizeof list);
    if (!n)
        return scene_missing(c, map, "shape", "a name from the shapes block");
    size_t mark = scene_key_push(c, "shape");
    const char *name;
    int rc = scene_text(c, n, "a shape name", &name);
    long k = rc ? -1 : shape_index(c->s, name);
    if (!rc && k < 0)
        rc = FAIL(c, n, "unknown shape '%.60s'; shapes: %s", name, list);
    if (!rc)
        *out = (uint32_t)k;
    scene_key_pop(c, mark);
    return rc;
}

/* ---- output ---- */

static int parse_every(ctx *c, const ldem_sn *parent, const char *block,
                       const char *const *keys, uint64_t *every, const ldem_sn **node)
{
    *node = ldem_sn_get(parent, block);
    if (!*node)
        return LDEM_OK;
    size_t mark = scene_key_push(c, block);
    int rc = scene_check_mapping(c, *node, keys);
    if (!rc)
        rc = scene_int_field(c, *node, "every", SCENE_MAX_INTEGER, every);
    scene_key_pop(c, mark);
    return rc;
}

static int parse_frames_extra(ctx *c, const ldem_sn *frames)
{
    const ldem_sn *enc = ldem_sn_get(frames, "encoding");
    size_t mark = scene_key_push(c, "frames");
    int rc = LDEM_OK;
    if (enc) {
        size_t m2 = scene_key_push(c, "encoding");
        ldem_err scratch;
        if (enc->kind != LDEM_SN_SCALAR ||
            ldem_vtk_encoding_parse(enc->text, &c->s->frame_encoding, &scratch) != LDEM_OK) {
            char buf[80];
            rc = FAIL(c, enc, "expected zlib, raw or ascii, got %s",
                      scene_looks(enc, buf, sizeof buf));
        }
        scene_key_pop(c, m2);
    }
    if (!rc)
        rc = scene_bool_field(c, frames, "contacts", &c->s->frame_contacts);
    scene_key_pop(c, mark);
    return rc;
}

/* `modes: auto | true | false | [grain indices]` of the probes block. */
static int parse_probe_modes(ctx *c, const ldem_sn *probes)
{
    const ldem_sn *n = ldem_sn_get(probes, "modes");
    if (!n)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "modes");
    char buf[80];
    int rc = LDEM_OK;
    ldem_scene *s = c->s;
    s->probe_modes_line = n->from_set ? 0 : n->line;
    if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "auto") == 0) {
        s->probe_modes = -1;
    } else if (n->kind == LDEM_SN_SEQUENCE) {
        s->probe_modes = 2;
        if (!(s->probe_grains = calloc(n->count ? n->count : 1, sizeof *s->probe_grains)))
            rc = scene_nomem(c);
        for (size_t k = 0; !rc && k < n->count; k++) {
            double v;
            size_t m2 = scene_key_push_index(c, k);
            rc = scene_number(c, n->items[k], NONNEGATIVE, &v);
            if (!rc && (v != floor(v) || v > SCENE_MAX_GRAINS))
                rc = FAIL(c, n->items[k], "expected a grain index (a whole number), got %g", v);
            for (size_t j = 0; !rc && j < s->nprobe_grains; j++)
                if (s->probe_grains[j] == (uint32_t)v)
                    rc = FAIL(c, n->items[k], "grain %u is listed twice", (unsigned)v);
            if (!rc)
                s->probe_grains[s->nprobe_grains++] = (uint32_t)v;
            scene_key_pop(c, m2);
        }
    } else if (n->kind == LDEM_SN_SCALAR &&
               (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0)) {
        s->probe_modes = strcmp(n->text, "true") == 0;
    } else {
        rc = FAIL(c, n, "expected auto, true, false or a list of grain indices, got %s",
                  scene_looks(n, buf, sizeof buf));
    }
    scene_key_pop(c, mark);
    return rc;
}

/* `packing: true | false`: the spheres' last positions in DIR/packing.tsv, which only a
 * scene of spheres has (the table holds centres and radii). */
static int parse_packing(ctx *c, const ldem_sn *out)
{
    const ldem_sn *n = ldem_sn_get(out, "packing");
    if (!n)
        return LDEM_OK;
    int rc = scene_bool_field(c, out, "packing", &c->s->write_packing);
    const ldem_scene *s = c->s;
    for (size_t k = 0; !rc && s->write_packing && k < s->ngrains; k++) {
        const ldem_scene_shape *shape = &s->shapes[s->grains[k].shape];
        if (shape->kind != LDEM_SHAPE_SPHERE) {
            size_t mark = scene_key_push(c, "packing");
            rc = FAIL(c, n, "writes spheres only (centres and radii); grain %zu has the "
                      "level-set shape '%.60s'", k, shape->name);
            scene_key_pop(c, mark);
        }
    }
    return rc;
}

static int parse_output(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"dir", "frames", "probes", "checkpoint", "packing",
                                       NULL};
    static const char *const frame_keys[] = {"every", "encoding", "contacts", NULL};
    static const char *const every_keys[] = {"every", NULL};
    static const char *const probe_keys[] = {"every", "dissipation", "modes", "measure", NULL};
    const ldem_sn *out = ldem_sn_get(root, "output");
    if (!out)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "output");
    int rc = scene_check_mapping(c, out, keys);
    const ldem_sn *dir = ldem_sn_get(out, "dir"), *node;
    if (!rc && dir) {
        size_t m2 = scene_key_push(c, "dir");
        const char *d;
        rc = scene_text(c, dir, "an output folder", &d);
        if (!rc) {
            free(c->s->out_dir);
            rc = scene_dup_into(c, d, &c->s->out_dir);
        }
        scene_key_pop(c, m2);
    }
    if (!rc)
        rc = parse_every(c, out, "frames", frame_keys, &c->s->frame_every, &node);
    if (!rc && node)
        rc = parse_frames_extra(c, node);
    if (!rc)
        rc = parse_every(c, out, "probes", probe_keys, &c->s->probe_every, &node);
    if (!rc && node) {
        size_t m2 = scene_key_push(c, "probes");
        rc = scene_bool_field(c, node, "dissipation", &c->s->track_dissipation);
        if (!rc)
            rc = scene_bool_field(c, node, "measure", &c->s->probe_measure);
        if (!rc)
            rc = parse_probe_modes(c, node);
        scene_key_pop(c, m2);
    }
    if (!rc)
        rc = parse_every(c, out, "checkpoint", every_keys, &c->s->checkpoint_every, &node);
    if (!rc)
        rc = parse_packing(c, out);
    scene_key_pop(c, mark);
    return rc;
}

/* ---- the scene ---- */

void ldem_scene_init(ldem_scene *s)
{
    memset(s, 0, sizeof *s);
    s->dt_mode = LDEM_DT_AUTO;
    s->dt_safety = 0.2;
    s->duration = -1.0;
    s->skin = -1.0;
    s->frame_encoding = LDEM_VTK_ZLIB;
    s->frame_contacts = 1;
    s->probe_every = 100;
    s->track_dissipation = 1;
    s->modal_safety = 0.2;
    s->probe_modes = -1;
    s->stage = -1;
    s->overlap_allow = LDEM_OVERLAP_ROUNDOFF;
}

void ldem_scene_free(ldem_scene *s)
{
    free(s->path);
    free(s->dir);
    for (size_t k = 0; k < s->nmaterials; k++)
        free(s->materials[k].name);
    free(s->materials);
    for (size_t k = 0; k < s->ncontacts; k++) {
        free(s->contacts[k].material_a);
        free(s->contacts[k].material_b);
    }
    free(s->contacts);
    for (size_t k = 0; k < s->nshapes; k++) {
        free(s->shapes[k].name);
        free(s->shapes[k].bundle);
        free(s->shapes[k].modes.range);
    }
    for (size_t k = 0; k < s->nmodal_inits; k++) {
        free(s->modal_inits[k].amplitude);
        free(s->modal_inits[k].rate);
    }
    free(s->modal_inits);
    free(s->probe_grains);
    free(s->shapes);
    free(s->grains);
    for (size_t k = 0; k < s->nwalls; k++) {
        free(s->walls[k].name);
        free(s->walls[k].ramp_t);
        free(s->walls[k].ramp_d);
    }
    free(s->walls);
    for (size_t k = 0; k < s->nsources; k++)
        free(s->sources[k]);
    free(s->sources);
    free(s->out_dir);
    for (size_t k = 0; k < s->nstages; k++)
        free(s->stages[k].name);
    free(s->stages);
    memset(s, 0, sizeof *s);
}

static int set_paths(ldem_scene *s, const char *path, ldem_err *err)
{
    s->path = strdup(path);
    const char *slash = strrchr(path, '/');
    if (!slash)
        s->dir = strdup(".");
    else if (slash == path)
        s->dir = strdup("/");
    else
        s->dir = strndup(path, (size_t)(slash - path));
    s->out_dir = strdup("out");
    if (!s->path || !s->dir || !s->out_dir)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    return LDEM_OK;
}

static int convert(ctx *c, const ldem_sn *root)
{
    int rc = scene_check_mapping(c, root, TOP_KEYS);
    if (!rc)
        rc = parse_globals(c, root);
    if (!rc)
        rc = parse_materials(c, root);
    if (!rc)
        rc = parse_contacts(c, root);
    if (!rc)
        rc = parse_shapes(c, root);
    /* The walls before the grains: generated grains are placed clear of them. */
    if (!rc)
        rc = scene_parse_walls(c, root);
    if (!rc)
        rc = scene_parse_grains(c, root);
    if (!rc)
        rc = scene_parse_cell(c, root);
    if (!rc)
        rc = parse_output(c, root);
    if (!rc)
        rc = scene_parse_stages(c, root);
    return rc;
}

int ldem_scene_load(ldem_scene *s, const char *path, size_t nset, const char *const *sets,
                    ldem_err *err)
{
    return ldem_scene_load_limited(s, path, nset, sets, 0, err);
}

/* The scene with the command line's overrides and, when stage ≥ 0, the `set:` of stages
 * 0..stage. */
static int load(ldem_scene *s, const char *path, size_t nset, const char *const *sets,
                uint64_t max_memory, long stage, ldem_err *err)
{
    ldem_scene_init(s);
    s->max_memory = max_memory;
    s->stage = stage;
    int rc = set_paths(s, path, err);
    ldem_sn *root = NULL;
    if (!rc)
        rc = ldem_sn_parse_file(path, &root, err);
    for (size_t k = 0; !rc && k < nset; k++)
        rc = ldem_sn_apply_set(root, sets[k], err);
    if (!rc && stage >= 0) {
        /* the stages as written first, so that a malformed list is reported as such */
        ldem_scene plain;
        rc = load(&plain, path, nset, sets, max_memory, -1, err);
        if (!rc && (size_t)stage >= plain.nstages)
            rc = ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "there is no stage %ld (the scene "
                              "has %zu)", stage, plain.nstages);
        if (!rc)
            ldem_scene_free(&plain);
        if (!rc)
            rc = scene_apply_stage_sets(root, path, (size_t)stage, err);
    }
    if (!rc) {
        ctx c = {.s = s, .err = err};
        rc = convert(&c, root);
    }
    ldem_sn_free(root);
    if (rc)
        ldem_scene_free(s);
    return rc;
}

int ldem_scene_load_stage(ldem_scene *s, const char *path, size_t nset, const char *const *sets,
                          uint64_t max_memory, size_t stage, ldem_err *err)
{
    return load(s, path, nset, sets, max_memory, (long)stage, err);
}

int ldem_scene_load_limited(ldem_scene *s, const char *path, size_t nset,
                            const char *const *sets, uint64_t max_memory, ldem_err *err)
{
    int rc = load(s, path, nset, sets, max_memory, -1, err);
    /* every stage's scene now, so that a mistake in the last stage fails at start */
    for (size_t k = 0; !rc && k < s->nstages; k++) {
        ldem_scene staged;
        rc = load(&staged, path, nset, sets, max_memory, (long)k, err);
        if (!rc)
            ldem_scene_free(&staged);
    }
    if (rc && s->path)
        ldem_scene_free(s);
    return rc;
}

uint64_t ldem_scene_total_steps(const ldem_scene *s, double dt)
{
    if (s->duration < 0.0)
        return s->steps;
    if (!(dt > 0.0) || !isfinite(dt))
        return 0;
    double n = s->duration / dt;
    if (!(n < 1.8e19))
        return UINT64_MAX;
    /* duration/dt is usually meant to be a whole number (1e-3/1e-6); do not let round-off turn
     * 1000 into 1001 steps. */
    double whole = nearbyint(n);
    if (fabs(n - whole) <= 1e-9 * (whole > 1.0 ? whole : 1.0))
        return (uint64_t)whole;
    return (uint64_t)ceil(n);
}
