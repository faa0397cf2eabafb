/* scene.c — the scene tree (scene_tree.h) checked against the schema of docs/scene.md and
 * turned into an ldem_scene.
 *
 * Every message reads "FILE:LINE: dotted.key: what is wrong, what is expected": the walk
 * keeps the dotted path of the node it is in (ctx.key), and each node knows its line and
 * whether it came from --set. Lattices and TSV placements are expanded here, so the scene
 * that leaves this file is a flat list of grains; scene_build.c only turns it into a world.
 */
#include "ldem/sim/scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ldem/log.h"
#include "ldem/tsv.h"
#include "ldem/vtu.h"
#include "scene_tree.h"

/* A lattice or a TSV file larger than this is almost surely a typo (and would be tens of GB). */
#define SCENE_MAX_GRAINS 100000000u
/* Integers written in a scene (steps, counts, seeds) must be exact doubles. */
#define SCENE_MAX_INTEGER 9007199254740992.0

typedef struct ctx {
    ldem_scene *s;
    ldem_err *err;
    char key[320];     /* dotted path of the node being checked */
    size_t len;
} ctx;

/* ---- the dotted key ---- */

static size_t key_push(ctx *c, const char *seg)
{
    size_t mark = c->len;
    int n = snprintf(c->key + c->len, sizeof c->key - c->len, "%s%s", c->len ? "." : "", seg);
    if (n > 0)
        c->len = c->len + (size_t)n < sizeof c->key ? c->len + (size_t)n : sizeof c->key - 1;
    return mark;
}

static size_t key_push_index(ctx *c, size_t index)
{
    char seg[24];
    snprintf(seg, sizeof seg, "%zu", index);
    return key_push(c, seg);
}

static void key_pop(ctx *c, size_t mark)
{
    c->len = mark;
    c->key[mark] = '\0';
}

/* ---- messages ---- */

static int fail_at(ctx *c, int from_set, long line, const char *fmt, ...) LDEM_PRINTF(4, 5);

static int fail_at(ctx *c, int from_set, long line, const char *fmt, ...)
{
    char msg[LDEM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = from_set || line <= 0 ? "--set" : c->s->path;
    if (c->len)
        return ldem_err_set(c->err, LDEM_ERR_INPUT, file, from_set ? 0 : line, "%s: %s",
                            c->key, msg);
    return ldem_err_set(c->err, LDEM_ERR_INPUT, file, from_set ? 0 : line, "%s", msg);
}

#define FAIL(c, node, ...) fail_at((c), (node)->from_set, (node)->line, __VA_ARGS__)

static int nomem(ctx *c)
{
    return ldem_err_set(c->err, LDEM_ERR_NOMEM, NULL, 0, "out of memory reading the scene");
}

/* How a node looks, for "expected X, got Y". */
static const char *looks(const ldem_sn *n, char *buf, size_t size)
{
    if (n->kind == LDEM_SN_MAPPING)
        return "a mapping";
    if (n->kind == LDEM_SN_SEQUENCE)
        return "a list";
    if (ldem_sn_is_null(n))
        return "nothing";
    snprintf(buf, size, "'%.60s'", n->text);
    return buf;
}

/* ---- scalars ---- */

typedef struct range {
    double lo, hi;
    int lo_open, hi_open;
} range;

static const range ANY = {-INFINITY, INFINITY, 0, 0};
static const range POSITIVE = {0.0, INFINITY, 1, 0};
static const range NONNEGATIVE = {0.0, INFINITY, 0, 0};

static int in_range(double v, range r)
{
    return (r.lo_open ? v > r.lo : v >= r.lo) && (r.hi_open ? v < r.hi : v <= r.hi);
}

static int out_of_range(ctx *c, const ldem_sn *n, double v, range r)
{
    if (isinf(r.hi))
        return FAIL(c, n, "must be %s %g, got %g", r.lo_open ? ">" : ">=", r.lo, v);
    if (isinf(r.lo))
        return FAIL(c, n, "must be %s %g, got %g", r.hi_open ? "<" : "<=", r.hi, v);
    return FAIL(c, n, "must be in %c%g, %g%c, got %g", r.lo_open ? '(' : '[', r.lo, r.hi,
                r.hi_open ? ')' : ']', v);
}

static int number(ctx *c, const ldem_sn *n, range r, double *out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SCALAR || ldem_sn_is_null(n))
        return FAIL(c, n, "expected a number, got %s", looks(n, buf, sizeof buf));
    char *end;
    double v = strtod(n->text, &end);
    if (end == n->text || *end)
        return FAIL(c, n, "expected a number, got '%.60s'", n->text);
    if (!isfinite(v))
        return FAIL(c, n, "must be a finite number, got '%.60s'", n->text);
    if (!in_range(v, r))
        return out_of_range(c, n, v, r);
    *out = v;
    return LDEM_OK;
}

static int integer(ctx *c, const ldem_sn *n, double max, uint64_t *out)
{
    double v;
    int rc = number(c, n, NONNEGATIVE, &v);
    if (rc)
        return rc;
    if (v != floor(v) || v > max)
        return FAIL(c, n, "expected a whole number from 0 to %.0f, got '%.60s'", max, n->text);
    *out = (uint64_t)v;
    return LDEM_OK;
}

static int boolean(ctx *c, const ldem_sn *n, int *out)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (n->kind == LDEM_SN_SCALAR)
        for (int k = 0; k < 3; k++) {
            if (strcasecmp(n->text, yes[k]) == 0)
                return *out = 1, LDEM_OK;
            if (strcasecmp(n->text, no[k]) == 0)
                return *out = 0, LDEM_OK;
        }
    char buf[80];
    return FAIL(c, n, "expected true or false, got %s", looks(n, buf, sizeof buf));
}

/* A non-empty string (names, paths). */
static int text(ctx *c, const ldem_sn *n, const char *what, const char **out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SCALAR || ldem_sn_is_null(n) || !n->text[0])
        return FAIL(c, n, "expected %s, got %s", what, looks(n, buf, sizeof buf));
    *out = n->text;
    return LDEM_OK;
}

/* A list of exactly `count` numbers. */
static int numbers(ctx *c, const ldem_sn *n, size_t count, const char *form, double *out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SEQUENCE)
        return FAIL(c, n, "expected a list of %zu numbers %s, got %s", count, form,
                    looks(n, buf, sizeof buf));
    if (n->count != count)
        return FAIL(c, n, "expected a list of %zu numbers %s, got %zu", count, form, n->count);
    for (size_t k = 0; k < count; k++) {
        size_t mark = key_push_index(c, k);
        int rc = number(c, n->items[k], ANY, &out[k]);
        key_pop(c, mark);
        if (rc)
            return rc;
    }
    return LDEM_OK;
}

static int vec3(ctx *c, const ldem_sn *n, ldem_vec3 *out)
{
    double v[3];
    int rc = numbers(c, n, 3, "[x, y, z]", v);
    if (!rc)
        *out = ldem_vec3_make(v[0], v[1], v[2]);
    return rc;
}

static int unit_vec3(ctx *c, const ldem_sn *n, ldem_vec3 *out)
{
    int rc = vec3(c, n, out);
    if (rc)
        return rc;
    double len = ldem_vec3_norm(*out);
    if (!(len > 0.0) || !isfinite(len))
        return FAIL(c, n, "must be a nonzero direction, got [%g, %g, %g]", out->x, out->y,
                    out->z);
    *out = ldem_vec3_scale(*out, 1.0 / len);
    return LDEM_OK;
}

static int quaternion(ctx *c, const ldem_sn *n, double q[4])
{
    int rc = numbers(c, n, 4, "[w, x, y, z]", q);
    if (rc)
        return rc;
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 0.0) || !isfinite(len))
        return FAIL(c, n, "must be a nonzero quaternion [w, x, y, z], got [%g, %g, %g, %g]",
                    q[0], q[1], q[2], q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= len;
    return LDEM_OK;
}

/* ---- mappings ---- */

static void join_names(const char *const *names, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; names[k] && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", names[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* `n` must be a mapping whose keys are all in `accepted` (NULL-terminated). */
static int check_mapping(ctx *c, const ldem_sn *n, const char *const *accepted)
{
    char list[256];
    join_names(accepted, list, sizeof list);
    if (n->kind != LDEM_SN_MAPPING) {
        char buf[80];
        return FAIL(c, n, "expected a mapping with keys %s, got %s", list,
                    looks(n, buf, sizeof buf));
    }
    for (size_t k = 0; k < n->count; k++) {
        int known = 0;
        for (size_t a = 0; accepted[a] && !known; a++)
            known = strcmp(n->keys[k], accepted[a]) == 0;
        if (!known) {
            size_t mark = key_push(c, n->keys[k]);
            int rc = fail_at(c, n->items[k]->from_set, n->key_lines[k],
                             "unknown key; accepted: %s", list);
            key_pop(c, mark);
            return rc;
        }
    }
    return LDEM_OK;
}

static int missing(ctx *c, const ldem_sn *map, const char *key, const char *what)
{
    return FAIL(c, map, "missing '%s' (%s)", key, what);
}

/* Optional number under `key` (out untouched when absent); required when `what` is given. */
static int num_field(ctx *c, const ldem_sn *map, const char *key, range r, const char *what,
                     double *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return what ? missing(c, map, key, what) : LDEM_OK;
    size_t mark = key_push(c, key);
    int rc = number(c, n, r, out);
    key_pop(c, mark);
    return rc;
}

static int int_field(ctx *c, const ldem_sn *map, const char *key, double max, uint64_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return LDEM_OK;
    size_t mark = key_push(c, key);
    int rc = integer(c, n, max, out);
    key_pop(c, mark);
    return rc;
}

/* int_field with a smallest allowed value. */
static int int_field_from(ctx *c, const ldem_sn *map, const char *key, uint64_t least,
                          double max, uint64_t *out)
{
    int rc = int_field(c, map, key, max, out);
    if (!rc && *out < least) {
        size_t mark = key_push(c, key);
        rc = FAIL(c, ldem_sn_get(map, key), "expected a whole number >= %llu, got %llu",
                  (unsigned long long)least, (unsigned long long)*out);
        key_pop(c, mark);
    }
    return rc;
}

static int bool_field(ctx *c, const ldem_sn *map, const char *key, int *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return LDEM_OK;
    size_t mark = key_push(c, key);
    int rc = boolean(c, n, out);
    key_pop(c, mark);
    return rc;
}

static int vec3_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                      ldem_vec3 *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return what ? missing(c, map, key, what) : LDEM_OK;
    size_t mark = key_push(c, key);
    int rc = vec3(c, n, out);
    key_pop(c, mark);
    return rc;
}

static int unit_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                      ldem_vec3 *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return missing(c, map, key, what);
    size_t mark = key_push(c, key);
    int rc = unit_vec3(c, n, out);
    key_pop(c, mark);
    return rc;
}

/* A copy of `s` (NULL stays NULL). */
static int dup_into(ctx *c, const char *s, char **out)
{
    *out = strdup(s);
    return *out ? LDEM_OK : nomem(c);
}

/* Grow an array of `size`-byte items to hold one more. */
static int grow(ctx *c, void **p, size_t count, size_t *capacity, size_t size)
{
    if (count < *capacity)
        return LDEM_OK;
    size_t cap = *capacity ? 2 * *capacity : 8;
    void *q = realloc(*p, cap * size);
    if (!q)
        return nomem(c);
    memset((char *)q + count * size, 0, (cap - count) * size);
    *p = q;
    *capacity = cap;
    return LDEM_OK;
}

/* ---- time, gravity, damping, skin, threads ---- */

static const char *const TOP_KEYS[] = {"time", "gravity", "damping", "skin", "threads",
                                       "materials", "contacts", "shapes", "grains", "walls",
                                       "cell", "output", NULL};

/* `dt: auto` or a fixed step > 0. */
static int parse_dt(ctx *c, const ldem_sn *dt)
{
    size_t mark = key_push(c, "dt");
    int rc;
    char *end = NULL;
    if (dt->kind == LDEM_SN_SCALAR && strcmp(dt->text, "auto") == 0) {
        c->s->dt_mode = LDEM_DT_AUTO;
        rc = LDEM_OK;
    } else if (dt->kind == LDEM_SN_SCALAR && (strtod(dt->text, &end), end != dt->text && !*end)) {
        c->s->dt_mode = LDEM_DT_FIXED;
        rc = number(c, dt, POSITIVE, &c->s->dt);
    } else {
        char buf[80];
        rc = FAIL(c, dt, "expected auto or a time step > 0, got %s", looks(dt, buf, sizeof buf));
    }
    key_pop(c, mark);
    return rc;
}

static int parse_time(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"dt", "safety", "modal_safety", "duration", "steps",
                                       NULL};
    ldem_scene *s = c->s;
    const ldem_sn *t = ldem_sn_get(root, "time");
    if (!t)
        return FAIL(c, root, "missing 'time' (the run length: time: {duration: T} or "
                    "time: {steps: N}, and optionally dt: auto | <step>)");
    size_t mark = key_push(c, "time");
    int rc = check_mapping(c, t, keys);
    const ldem_sn *dt = ldem_sn_get(t, "dt");
    if (!rc && dt)
        rc = parse_dt(c, dt);
    if (!rc)
        rc = num_field(c, t, "safety", (range){0.0, 1.0, 1, 0}, NULL, &s->dt_safety);
    if (!rc)
        rc = num_field(c, t, "modal_safety", (range){0.0, 2.0, 1, 0}, NULL, &s->modal_safety);
    const ldem_sn *duration = ldem_sn_get(t, "duration"), *steps = ldem_sn_get(t, "steps");
    if (!rc && duration && steps) {
        key_push(c, "steps");
        rc = FAIL(c, steps, "give either duration or steps, not both");
    }
    if (!rc && !duration && !steps)
        rc = FAIL(c, t, "missing the run length: give duration (a time) or steps (a count)");
    if (!rc && duration)
        rc = num_field(c, t, "duration", NONNEGATIVE, NULL, &s->duration);
    if (!rc && steps) {
        s->duration = -1.0;
        rc = int_field(c, t, "steps", SCENE_MAX_INTEGER, &s->steps);
    }
    key_pop(c, mark);
    return rc;
}

static int parse_globals(ctx *c, const ldem_sn *root)
{
    static const char *const damping_keys[] = {"viscous", "local", NULL};
    ldem_scene *s = c->s;
    int rc = parse_time(c, root);
    if (!rc)
        rc = vec3_field(c, root, "gravity", NULL, &s->gravity);
    const ldem_sn *d = ldem_sn_get(root, "damping");
    if (!rc && d) {
        size_t mark = key_push(c, "damping");
        rc = check_mapping(c, d, damping_keys);
        if (!rc)
            rc = num_field(c, d, "viscous", NONNEGATIVE, NULL, &s->damping_viscous);
        if (!rc)
            rc = num_field(c, d, "local", (range){0.0, 1.0, 0, 1}, NULL, &s->damping_local);
        key_pop(c, mark);
    }
    if (!rc)
        rc = num_field(c, root, "skin", NONNEGATIVE, NULL, &s->skin);
    uint64_t threads = 0;
    if (!rc)
        rc = int_field(c, root, "threads", 4096, &threads);
    s->threads = (int)threads;
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
    int rc = check_mapping(c, m, keys);
    if (!rc && strcmp(name, "*") == 0)
        rc = FAIL(c, m, "'*' is reserved (it matches any material in contacts)");
    if (!rc)
        rc = num_field(c, m, "E", POSITIVE, "Young's modulus, > 0", &out->E);
    if (!rc)
        rc = num_field(c, m, "nu", (range){-1.0, 0.5, 1, 0}, "Poisson's ratio, in (-1, 0.5]",
                       &out->nu);
    if (!rc)
        rc = num_field(c, m, "density", POSITIVE, "mass per volume, > 0", &out->density);
    if (!rc)
        rc = num_field(c, m, "friction", NONNEGATIVE, "friction coefficient, >= 0",
                       &out->friction);
    if (!rc)
        rc = dup_into(c, name, &out->name);
    out->line = m->line;
    return rc;
}

static int parse_materials(ctx *c, const ldem_sn *root)
{
    const ldem_sn *mats = ldem_sn_get(root, "materials");
    if (!mats)
        return LDEM_OK;
    size_t mark = key_push(c, "materials");
    char buf[80];
    int rc = mats->kind == LDEM_SN_MAPPING
                 ? LDEM_OK
                 : FAIL(c, mats, "expected a mapping of material names to {E, nu, density, "
                        "friction}, got %s", looks(mats, buf, sizeof buf));
    if (!rc && !(c->s->materials = calloc(mats->count ? mats->count : 1,
                                          sizeof *c->s->materials)))
        rc = nomem(c);
    for (size_t k = 0; !rc && k < mats->count; k++) {
        size_t m2 = key_push(c, mats->keys[k]);
        rc = parse_material(c, mats->keys[k], mats->items[k], &c->s->materials[k]);
        key_pop(c, m2);
        c->s->nmaterials += c->s->materials[k].name != NULL;
    }
    key_pop(c, mark);
    return rc;
}

static const char *const LAW_NAMES[] = {
    [LDEM_LAW_FRICTIONLESS] = "frictionless", [LDEM_LAW_HERTZ_JAGER] = "hertz-jager",
    [LDEM_LAW_HERTZ_MINDLIN] = "hertz-mindlin", [LDEM_LAW_LINEAR] = "linear"};

static int parse_model(ctx *c, const ldem_sn *entry, int *law)
{
    const ldem_sn *n = ldem_sn_get(entry, "model");
    *law = LDEM_LAW_HERTZ_JAGER;
    if (!n)
        return LDEM_OK;
    size_t mark = key_push(c, "model");
    int rc = LDEM_ERR_INPUT;
    for (int k = 0; k < 4 && rc; k++)
        if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, LAW_NAMES[k]) == 0)
            *law = k, rc = LDEM_OK;
    if (rc) {
        char buf[80];
        rc = FAIL(c, n, "unknown model %s; accepted: hertz-jager, hertz-mindlin, linear, "
                  "frictionless", looks(n, buf, sizeof buf));
    }
    key_pop(c, mark);
    return rc;
}

/* `between: [a, b]`, each a material name or '*'. */
static int parse_between(ctx *c, const ldem_sn *entry, ldem_scene_contact *out)
{
    const ldem_sn *n = ldem_sn_get(entry, "between");
    if (!n)
        return missing(c, entry, "between", "the two materials, e.g. [glass, steel] or "
                       "['*', steel]");
    size_t mark = key_push(c, "between");
    char buf[80];
    int rc = n->kind == LDEM_SN_SEQUENCE && n->count == 2
                 ? LDEM_OK
                 : FAIL(c, n, "expected a list of two material names (or '*'), got %s",
                        looks(n, buf, sizeof buf));
    char **names[2] = {&out->material_a, &out->material_b};
    for (size_t k = 0; !rc && k < 2; k++) {
        size_t m2 = key_push_index(c, k);
        const char *name;
        rc = text(c, n->items[k], "a material name or '*'", &name);
        if (!rc && strcmp(name, "*") != 0 && material_index(c->s, name) < 0) {
            char list[200];
            material_names(c->s, list, sizeof list);
            rc = FAIL(c, n->items[k], "unknown material '%.60s'; materials: %s", name, list);
        }
        if (!rc)
            rc = dup_into(c, name, names[k]);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* A parameter that only some models take. */
static int refuse_param(ctx *c, const ldem_sn *entry, const char *key, int law, int allowed)
{
    const ldem_sn *n = ldem_sn_get(entry, key);
    if (!n || allowed)
        return LDEM_OK;
    size_t mark = key_push(c, key);
    int rc = FAIL(c, n, "does not apply to model %s", LAW_NAMES[law]);
    key_pop(c, mark);
    return rc;
}

static int parse_contact(ctx *c, const ldem_sn *entry, ldem_scene_contact *out)
{
    static const char *const keys[] = {"between", "model", "beta", "friction", "kn", "ks",
                                       "damping", NULL};
    int rc = check_mapping(c, entry, keys);
    out->line = entry->line;
    out->friction = -1.0;
    if (!rc)
        rc = parse_between(c, entry, out);
    if (!rc)
        rc = parse_model(c, entry, &out->law);
    int law = out->law, linear = law == LDEM_LAW_LINEAR;
    if (!rc)
        rc = refuse_param(c, entry, "beta", law, law == LDEM_LAW_HERTZ_JAGER);
    if (!rc)
        rc = refuse_param(c, entry, "friction", law, law != LDEM_LAW_FRICTIONLESS);
    if (!rc)
        rc = refuse_param(c, entry, "kn", law, linear);
    if (!rc)
        rc = refuse_param(c, entry, "ks", law, linear);
    if (!rc)
        rc = refuse_param(c, entry, "damping", law, !linear);
    if (!rc)
        rc = num_field(c, entry, "damping", (range){0.0, 1.0, 0, 0}, NULL, &out->damping);
    if (!rc)
        rc = num_field(c, entry, "beta", (range){0.0, 2.0, 0, 0}, NULL, &out->beta);
    if (!rc)
        rc = num_field(c, entry, "friction", NONNEGATIVE, NULL, &out->friction);
    if (!rc && linear)
        rc = num_field(c, entry, "kn", POSITIVE, "normal stiffness per node, > 0", &out->kn);
    if (!rc && linear)
        rc = num_field(c, entry, "ks", NONNEGATIVE, "shear stiffness per node, >= 0", &out->ks);
    return rc;
}

static int parse_contacts(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "contacts");
    if (!list)
        return LDEM_OK;
    size_t mark = key_push(c, "contacts");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE
                 ? LDEM_OK
                 : FAIL(c, list, "expected a list of {between, model, ...} entries, got %s",
                        looks(list, buf, sizeof buf));
    if (!rc && !(c->s->contacts = calloc(list->count ? list->count : 1, sizeof *c->s->contacts)))
        rc = nomem(c);
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = key_push_index(c, k);
        c->s->ncontacts = k + 1;
        rc = parse_contact(c, list->items[k], &c->s->contacts[k]);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* A path relative to the scene file's folder (absolute paths stay). */
static int resolve(ctx *c, const char *rel, char **out)
{
    const char *dir = c->s->dir;
    if (rel[0] == '/' || strcmp(dir, ".") == 0)
        return dup_into(c, rel, out);
    size_t n = strlen(dir) + strlen(rel) + 2;
    *out = malloc(n);
    if (!*out)
        return nomem(c);
    snprintf(*out, n, "%s/%s", dir, rel);
    return LDEM_OK;
}

/* ---- deformable grains: a shape's modes: block, a grain's modes: and deformable: ---- */

/* `range: [min, max]` for every mode, or `[[min, max], ...]` one pair per mode. */
static int parse_range(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    size_t mark = key_push(c, "range");
    char buf[80];
    int rc = LDEM_OK;
    int nested = n->kind == LDEM_SN_SEQUENCE && n->count > 0 &&
                 n->items[0]->kind == LDEM_SN_SEQUENCE;
    size_t pairs = nested ? n->count : 1;
    if (n->kind != LDEM_SN_SEQUENCE || !n->count)
        rc = FAIL(c, n, "expected [min, max] or one [min, max] per mode, got %s",
                  looks(n, buf, sizeof buf));
    if (!rc && !(m->range = malloc(2 * pairs * sizeof *m->range)))
        rc = nomem(c);
    for (size_t k = 0; !rc && k < pairs; k++) {
        size_t m2 = nested ? key_push_index(c, k) : c->len;
        rc = numbers(c, nested ? n->items[k] : n, 2, "[min, max]", &m->range[2 * k]);
        if (!rc && !(m->range[2 * k + 1] > m->range[2 * k]))
            rc = FAIL(c, nested ? n->items[k] : n, "expected min < max, got [%g, %g]",
                      m->range[2 * k], m->range[2 * k + 1]);
        key_pop(c, m2);
    }
    if (!rc)
        m->nrange = pairs;
    key_pop(c, mark);
    return rc;
}

/* `damping: bundle | none | {ratio: z} | {rayleigh: [a, b]}` */
static int parse_modal_damping(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    static const char *const keys[] = {"ratio", "rayleigh", NULL};
    size_t mark = key_push(c, "damping");
    char buf[80];
    int rc = LDEM_OK;
    if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "bundle") == 0) {
        m->damping = LDEM_MODAL_DAMPING_BUNDLE;
    } else if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "none") == 0) {
        m->damping = LDEM_MODAL_DAMPING_NONE;
    } else if (n->kind == LDEM_SN_MAPPING && n->count == 1) {
        rc = check_mapping(c, n, keys);
        const ldem_sn *ratio = ldem_sn_get(n, "ratio"), *ray = ldem_sn_get(n, "rayleigh");
        if (!rc && ratio) {
            m->damping = LDEM_MODAL_DAMPING_RATIO;
            rc = num_field(c, n, "ratio", NONNEGATIVE, NULL, &m->zeta);
        } else if (!rc && ray) {
            double ab[2];
            size_t m2 = key_push(c, "rayleigh");
            rc = numbers(c, ray, 2, "[alpha, beta]", ab);
            if (!rc && (!(ab[0] >= 0.0) || !(ab[1] >= 0.0)))
                rc = FAIL(c, ray, "expected alpha, beta >= 0, got [%g, %g]", ab[0], ab[1]);
            key_pop(c, m2);
            m->damping = LDEM_MODAL_DAMPING_RAYLEIGH;
            m->alpha = ab[0];
            m->beta = ab[1];
        }
    } else {
        rc = FAIL(c, n, "expected bundle, none, {ratio: zeta} or {rayleigh: [alpha, beta]}, got %s",
                  looks(n, buf, sizeof buf));
    }
    key_pop(c, mark);
    return rc;
}

static int parse_shape_modes(ctx *c, const ldem_sn *n, ldem_scene_modes *m)
{
    static const char *const keys[] = {"levelset", "range", "samples", "damping", "pullback",
                                       NULL};
    size_t mark = key_push(c, "modes");
    char buf[80];
    m->given = 1;
    m->line = n->from_set ? 0 : n->line;
    int rc = n->kind == LDEM_SN_MAPPING ? check_mapping(c, n, keys)
                                        : FAIL(c, n, "expected a mapping {levelset, range, "
                                               "samples, damping, pullback}, got %s",
                                               looks(n, buf, sizeof buf));
    const ldem_sn *ls = rc ? NULL : ldem_sn_get(n, "levelset");
    if (ls) {
        size_t m2 = key_push(c, "levelset");
        if (ls->kind == LDEM_SN_SCALAR && strcmp(ls->text, "remap") == 0)
            m->levelset = LDEM_LEVELSET_REMAP;
        else if (ls->kind == LDEM_SN_SCALAR && strcmp(ls->text, "precomputed") == 0)
            m->levelset = LDEM_LEVELSET_PRECOMPUTED;
        else
            rc = FAIL(c, ls, "expected remap or precomputed, got %s", looks(ls, buf, sizeof buf));
        key_pop(c, m2);
    }
    const ldem_sn *range = rc ? NULL : ldem_sn_get(n, "range");
    if (range)
        rc = parse_range(c, range, m);
    if (!rc)
        rc = int_field_from(c, n, "samples", 2, 1e6, &m->samples);
    if (!rc)
        rc = int_field_from(c, n, "pullback", 1, 100, &m->pullback);
    const ldem_sn *damping = rc ? NULL : ldem_sn_get(n, "damping");
    if (damping)
        rc = parse_modal_damping(c, damping, m);
    key_pop(c, mark);
    return rc;
}

/* A grain entry's `modes: {amplitude: [...], rate: [...]}` (one init shared by every grain
 * the entry makes) and `deformable:`. */
static int parse_grain_modes(ctx *c, const ldem_sn *entry, ldem_scene_grain *g)
{
    static const char *const keys[] = {"amplitude", "rate", NULL};
    g->deformable = -1;
    g->modal_init = -1;
    const ldem_sn *d = ldem_sn_get(entry, "deformable");
    int rc = LDEM_OK;
    if (d) {
        int v = 0;
        rc = bool_field(c, entry, "deformable", &v);
        g->deformable = v;
    }
    const ldem_sn *n = rc ? NULL : ldem_sn_get(entry, "modes");
    if (!n)
        return rc;
    size_t mark = key_push(c, "modes");
    char buf[80];
    rc = n->kind == LDEM_SN_MAPPING ? check_mapping(c, n, keys)
                                    : FAIL(c, n, "expected {amplitude: [...], rate: [...]}, got %s",
                                           looks(n, buf, sizeof buf));
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
        rc = nomem(c);
    if (!rc && amp) {
        size_t m2 = key_push(c, "amplitude");
        rc = numbers(c, amp, count, "(one per mode)", init.amplitude);
        key_pop(c, m2);
    }
    if (!rc && rate) {
        size_t m2 = key_push(c, "rate");
        rc = numbers(c, rate, count, "(one per mode)", init.rate);
        key_pop(c, m2);
    }
    ldem_scene_modal_init *grown = NULL;
    if (!rc && !(grown = realloc(s->modal_inits, (s->nmodal_inits + 1) * sizeof *grown)))
        rc = nomem(c);
    if (rc) {
        free(init.amplitude);
        free(init.rate);
    } else {
        s->modal_inits = grown;
        g->modal_init = (long)s->nmodal_inits;
        s->modal_inits[s->nmodal_inits++] = init;
    }
    key_pop(c, mark);
    return rc;
}

static int parse_shape(ctx *c, const char *name, const ldem_sn *m, ldem_scene_shape *out)
{
    static const char *const keys[] = {"sphere", "bundle", "modes", NULL};
    int rc = check_mapping(c, m, keys);
    const ldem_sn *sphere = ldem_sn_get(m, "sphere"), *bundle = ldem_sn_get(m, "bundle");
    if (!rc && (!sphere) == (!bundle))
        rc = FAIL(c, m, "give exactly one of sphere: <radius> or bundle: <file.ldg>");
    if (!rc)
        rc = dup_into(c, name, &out->name);
    if (!rc && sphere) {
        out->kind = LDEM_SHAPE_SPHERE;
        out->line = sphere->line;
        rc = num_field(c, m, "sphere", POSITIVE, NULL, &out->radius);
    }
    if (!rc && bundle) {
        out->kind = LDEM_SHAPE_LSET;
        out->line = bundle->line;
        size_t mark = key_push(c, "bundle");
        const char *path;
        rc = text(c, bundle, "a bundle file (.ldg)", &path);
        if (!rc)
            rc = resolve(c, path, &out->bundle);
        key_pop(c, mark);
    }
    out->modes.samples = 9;
    out->modes.pullback = 1;
    const ldem_sn *modes = rc ? NULL : ldem_sn_get(m, "modes");
    if (modes && sphere) {
        size_t mark = key_push(c, "modes");
        rc = FAIL(c, modes, "modes apply to bundle shapes only (an analytic sphere is rigid)");
        key_pop(c, mark);
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
    size_t mark = key_push(c, "shapes");
    char buf[80];
    int rc = shapes->kind == LDEM_SN_MAPPING
                 ? LDEM_OK
                 : FAIL(c, shapes, "expected a mapping of shape names to {sphere: R} or "
                        "{bundle: file.ldg}, got %s", looks(shapes, buf, sizeof buf));
    if (!rc && !(c->s->shapes = calloc(shapes->count ? shapes->count : 1,
                                       sizeof *c->s->shapes)))
        rc = nomem(c);
    for (size_t k = 0; !rc && k < shapes->count; k++) {
        size_t m2 = key_push(c, shapes->keys[k]);
        c->s->nshapes = k + 1;
        rc = parse_shape(c, shapes->keys[k], shapes->items[k], &c->s->shapes[k]);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* ---- references ---- */

/* `material:` of a grain entry or wall: a defined name; may be left out when the scene has
 * exactly one material. */
static int material_ref(ctx *c, const ldem_sn *map, uint32_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, "material");
    char list[200];
    material_names(c->s, list, sizeof list);
    if (!n) {
        if (c->s->nmaterials == 1) {
            *out = 0;
            return LDEM_OK;
        }
        return missing(c, map, "material", c->s->nmaterials
                                               ? "a material name; needed when the scene "
                                                 "defines more than one"
                                               : "no materials are defined; add a materials "
                                                 "block");
    }
    size_t mark = key_push(c, "material");
    const char *name;
    int rc = text(c, n, "a material name", &name);
    long k = rc ? -1 : material_index(c->s, name);
    if (!rc && k < 0)
        rc = FAIL(c, n, "unknown material '%.60s'; materials: %s", name, list);
    if (!rc)
        *out = (uint32_t)k;
    key_pop(c, mark);
    return rc;
}

static int shape_ref(ctx *c, const ldem_sn *map, uint32_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, "shape");
    char list[200];
    shape_names(c->s, list, sizeof list);
    if (!n)
        return missing(c, map, "shape", "a name from the shapes block");
    size_t mark = key_push(c, "shape");
    const char *name;
    int rc = text(c, n, "a shape name", &name);
    long k = rc ? -1 : shape_index(c->s, name);
    if (!rc && k < 0)
        rc = FAIL(c, n, "unknown shape '%.60s'; shapes: %s", name, list);
    if (!rc)
        *out = (uint32_t)k;
    key_pop(c, mark);
    return rc;
}

/* ---- grains ---- */

typedef struct grain_list {
    size_t capacity;
} grain_list;

static int new_grain(ctx *c, grain_list *gl, uint32_t entry, long line, ldem_scene_grain **g)
{
    ldem_scene *s = c->s;
    if (s->ngrains >= SCENE_MAX_GRAINS)
        return ldem_err_set(c->err, LDEM_ERR_INPUT, s->path, line,
                            "grains.%u: more than %u grains in the scene", entry,
                            SCENE_MAX_GRAINS);
    int rc = grow(c, (void **)&s->grains, s->ngrains, &gl->capacity, sizeof *s->grains);
    if (rc)
        return rc;
    *g = &s->grains[s->ngrains++];
    (*g)->q[0] = 1.0;
    (*g)->entry = entry;
    (*g)->line = line;
    return LDEM_OK;
}

static int parse_explicit_grain(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    static const char *const keys[] = {"shape", "material", "position", "velocity",
                                       "orientation", "angular_velocity", "fixed", "radius",
                                       "deformable", "modes", NULL};
    ldem_scene_grain g = {.q = {1.0, 0.0, 0.0, 0.0}};
    int rc = check_mapping(c, m, keys);
    if (!rc)
        rc = parse_grain_modes(c, m, &g);
    if (!rc)
        rc = shape_ref(c, m, &g.shape);
    if (!rc)
        rc = material_ref(c, m, &g.material);
    if (!rc)
        rc = vec3_field(c, m, "position", "the centre [x, y, z]", &g.x);
    if (!rc)
        rc = vec3_field(c, m, "velocity", NULL, &g.v);
    if (!rc)
        rc = vec3_field(c, m, "angular_velocity", NULL, &g.omega);
    const ldem_sn *q = ldem_sn_get(m, "orientation");
    if (!rc && q) {
        size_t mark = key_push(c, "orientation");
        rc = quaternion(c, q, g.q);
        key_pop(c, mark);
    }
    if (!rc)
        rc = bool_field(c, m, "fixed", &g.fixed);
    const ldem_sn *r = ldem_sn_get(m, "radius");
    if (!rc && r) {
        rc = num_field(c, m, "radius", POSITIVE, NULL, &g.radius);
        if (!rc && c->s->shapes[g.shape].kind != LDEM_SHAPE_SPHERE) {
            size_t mark = key_push(c, "radius");
            rc = FAIL(c, r, "applies to sphere shapes only; '%s' is a bundle",
                      c->s->shapes[g.shape].name);
            key_pop(c, mark);
        }
    }
    ldem_scene_grain *slot;
    if (!rc)
        rc = new_grain(c, gl, entry, m->from_set ? 0 : m->line, &slot);
    if (!rc) {
        g.entry = slot->entry;
        g.line = slot->line;
        *slot = g;
    }
    return rc;
}

/* splitmix64 (Steele, Lea & Flood 2014): a tiny seeded generator, so a lattice's jitter is
 * the same on every machine. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [−1, 1). */
static double jitter_unit(uint64_t *state)
{
    return 2.0 * ((double)(splitmix64(state) >> 11) * 0x1.0p-53) - 1.0;
}

static int parse_spacing(ctx *c, const ldem_sn *m, double spacing[3])
{
    const ldem_sn *n = ldem_sn_get(m, "spacing");
    if (!n)
        return missing(c, m, "spacing", "the distance between lattice sites, s or [sx, sy, sz]");
    size_t mark = key_push(c, "spacing");
    int rc;
    if (n->kind == LDEM_SN_SEQUENCE) {
        rc = numbers(c, n, 3, "[sx, sy, sz]", spacing);
        for (int k = 0; !rc && k < 3; k++)
            if (!(spacing[k] > 0.0))
                rc = FAIL(c, n, "must be > 0 along each axis, got [%g, %g, %g]", spacing[0],
                          spacing[1], spacing[2]);
    } else {
        rc = number(c, n, POSITIVE, &spacing[0]);
        spacing[1] = spacing[2] = spacing[0];
    }
    key_pop(c, mark);
    return rc;
}

static int parse_count(ctx *c, const ldem_sn *m, uint64_t count[3])
{
    const ldem_sn *n = ldem_sn_get(m, "count");
    if (!n)
        return missing(c, m, "count", "sites along each axis, [nx, ny, nz]");
    size_t mark = key_push(c, "count");
    double v[3];
    int rc = numbers(c, n, 3, "[nx, ny, nz]", v);
    for (int k = 0; !rc && k < 3; k++) {
        if (!(v[k] >= 1.0) || v[k] != floor(v[k]) || v[k] > SCENE_MAX_GRAINS)
            rc = FAIL(c, n, "expected three whole numbers >= 1, got [%g, %g, %g]", v[0], v[1],
                      v[2]);
        count[k] = (uint64_t)v[k];
    }
    if (!rc && (double)count[0] * (double)count[1] * (double)count[2] > SCENE_MAX_GRAINS)
        rc = FAIL(c, n, "%g sites: at most %u grains", v[0] * v[1] * v[2], SCENE_MAX_GRAINS);
    key_pop(c, mark);
    return rc;
}

/* Sites x fastest, then y, then z; each displaced by up to ±jitter per coordinate. */
static int parse_lattice(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    static const char *const keys[] = {"shape", "material", "origin", "spacing", "count",
                                       "velocity", "jitter", "seed", "deformable", "modes",
                                       NULL};
    ldem_scene_grain g = {.q = {1.0, 0.0, 0.0, 0.0}};
    ldem_vec3 origin = ldem_vec3_zero();
    double spacing[3] = {0.0, 0.0, 0.0}, jitter = 0.0;
    uint64_t count[3] = {0, 0, 0}, seed = 1;
    int rc = check_mapping(c, m, keys);
    if (!rc)
        rc = parse_grain_modes(c, m, &g);
    if (!rc)
        rc = shape_ref(c, m, &g.shape);
    if (!rc)
        rc = material_ref(c, m, &g.material);
    if (!rc)
        rc = vec3_field(c, m, "origin", "the first site [x, y, z]", &origin);
    if (!rc)
        rc = parse_spacing(c, m, spacing);
    if (!rc)
        rc = parse_count(c, m, count);
    if (!rc)
        rc = vec3_field(c, m, "velocity", NULL, &g.v);
    if (!rc)
        rc = num_field(c, m, "jitter", NONNEGATIVE, NULL, &jitter);
    if (!rc)
        rc = int_field(c, m, "seed", SCENE_MAX_INTEGER, &seed);
    uint64_t state = seed;
    long line = m->from_set ? 0 : m->line;
    for (uint64_t k = 0; !rc && k < count[2]; k++)
        for (uint64_t j = 0; !rc && j < count[1]; j++)
            for (uint64_t i = 0; !rc && i < count[0]; i++) {
                ldem_scene_grain *slot;
                rc = new_grain(c, gl, entry, line, &slot);
                if (rc)
                    break;
                *slot = g;
                slot->entry = entry;
                slot->line = line;
                slot->x = ldem_vec3_make(origin.x + (double)i * spacing[0],
                                         origin.y + (double)j * spacing[1],
                                         origin.z + (double)k * spacing[2]);
                if (jitter > 0.0) {
                    double dx = jitter_unit(&state), dy = jitter_unit(&state);
                    double dz = jitter_unit(&state);
                    slot->x = ldem_vec3_add(slot->x, ldem_vec3_make(jitter * dx, jitter * dy,
                                                                    jitter * dz));
                }
            }
    return rc;
}

/* ---- TSV placements ---- */

static const char *const TSV_COLUMNS[] = {"x", "y", "z", "radius", "qw", "qx", "qy", "qz",
                                          "vx", "vy", "vz", "wx", "wy", "wz", NULL};

typedef struct tsv_columns {
    long x[3], radius, q[4], v[3], w[3];
} tsv_columns;

static int tsv_error(ctx *c, const char *path, long line, const char *fmt, ...)
    LDEM_PRINTF(4, 5);

static int tsv_error(ctx *c, const char *path, long line, const char *fmt, ...)
{
    char msg[LDEM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ldem_err_set(c->err, LDEM_ERR_INPUT, path, line, "%s (placement file of %s)", msg,
                        c->key);
}

/* A group of columns is all there or all absent. */
static int column_group(ctx *c, const ldem_table *t, const char *path, const char *const *names,
                        size_t n, long *idx)
{
    size_t have = 0;
    for (size_t k = 0; k < n; k++)
        have += (idx[k] = ldem_table_column(t, names[k])) >= 0;
    if (have != 0 && have != n) {
        char list[64];
        join_names(names, list, sizeof list);
        return tsv_error(c, path, 0, "columns %s come together: give all %zu or none", list, n);
    }
    return LDEM_OK;
}

static int tsv_columns_of(ctx *c, const ldem_table *t, const char *path, tsv_columns *col)
{
    static const char *const xyz[] = {"x", "y", "z", NULL}, *const q[] = {"qw", "qx", "qy", "qz",
                                                                            NULL};
    static const char *const v[] = {"vx", "vy", "vz", NULL}, *const w[] = {"wx", "wy", "wz",
                                                                           NULL};
    char list[200];
    join_names(TSV_COLUMNS, list, sizeof list);
    if (!t->names)
        return tsv_error(c, path, 0, "needs a header row naming its columns (x y z required; "
                         "accepted: %s)", list);
    for (size_t k = 0; k < t->ncols; k++) {
        /* an `id` column (as LAMMPS dumps and Kuhn's packings have) is carried along unread */
        int known = strcmp(t->names[k], "id") == 0;
        for (size_t a = 0; TSV_COLUMNS[a] && !known; a++)
            known = strcmp(t->names[k], TSV_COLUMNS[a]) == 0;
        if (!known)
            return tsv_error(c, path, 0, "unknown column '%.40s'; accepted: id (ignored), %s", t->names[k],
                             list);
    }
    int rc = column_group(c, t, path, xyz, 3, col->x);
    if (!rc && col->x[0] < 0)
        rc = tsv_error(c, path, 0, "needs the columns x, y, z (the grain centres)");
    if (!rc)
        rc = column_group(c, t, path, q, 4, col->q);
    if (!rc)
        rc = column_group(c, t, path, v, 3, col->v);
    if (!rc)
        rc = column_group(c, t, path, w, 3, col->w);
    col->radius = ldem_table_column(t, "radius");
    if (!t->nrows)
        return tsv_error(c, path, 0, "has no rows: no grains to place");
    return rc;
}

static ldem_vec3 row_vec3(const double *row, const long idx[3])
{
    if (idx[0] < 0)
        return ldem_vec3_zero();
    return ldem_vec3_make(row[idx[0]], row[idx[1]], row[idx[2]]);
}

static int tsv_row(ctx *c, const char *path, long line, const double *row,
                   const tsv_columns *col, ldem_scene_grain *g)
{
    g->x = row_vec3(row, col->x);
    g->v = row_vec3(row, col->v);
    g->omega = row_vec3(row, col->w);
    if (col->radius >= 0) {
        g->radius = row[col->radius];
        if (!(g->radius > 0.0))
            return tsv_error(c, path, line, "radius: must be > 0, got %g", g->radius);
    }
    if (col->q[0] >= 0) {
        double n2 = 0.0;
        for (int k = 0; k < 4; k++)
            g->q[k] = row[col->q[k]], n2 += g->q[k] * g->q[k];
        if (!(n2 > 0.0) || !isfinite(n2))
            return tsv_error(c, path, line, "qw qx qy qz: must be a nonzero quaternion");
        for (int k = 0; k < 4; k++)
            g->q[k] /= sqrt(n2);
    }
    return LDEM_OK;
}

static int add_source(ctx *c, const char *path, uint32_t *index)
{
    ldem_scene *s = c->s;
    char **p = realloc(s->sources, (s->nsources + 1) * sizeof *p);
    if (!p)
        return nomem(c);
    s->sources = p;
    int rc = dup_into(c, path, &s->sources[s->nsources]);
    if (!rc)
        *index = (uint32_t)++s->nsources;
    return rc;
}

/* A file that will not open is the scene's mistake (named at the path's line); what is wrong
 * inside it is named at the TSV's own line. */
static int read_table(ctx *c, const ldem_sn *node, const char *path, ldem_table *t)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        size_t mark = key_push(c, "path");
        int rc = FAIL(c, node, "cannot open '%.200s': %s", path, strerror(errno));
        key_pop(c, mark);
        return rc;
    }
    int rc = ldem_tsv_read(fp, path, t, c->err);
    fclose(fp);
    return rc;
}

static int parse_grain_file(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    static const char *const keys[] = {"path", "shape", "material", "deformable", "modes",
                                       NULL};
    ldem_scene_grain g = {.q = {1.0, 0.0, 0.0, 0.0}};
    const char *rel = NULL;
    char *path = NULL;
    int rc = check_mapping(c, m, keys);
    if (!rc)
        rc = parse_grain_modes(c, m, &g);
    const ldem_sn *p = rc ? NULL : ldem_sn_get(m, "path");
    if (!rc && !p)
        rc = missing(c, m, "path", "a TSV file of positions with a header row x y z ...");
    if (!rc) {
        size_t mark = key_push(c, "path");
        rc = text(c, p, "a TSV file", &rel);
        key_pop(c, mark);
    }
    if (!rc)
        rc = shape_ref(c, m, &g.shape);
    if (!rc)
        rc = material_ref(c, m, &g.material);
    if (!rc)
        rc = resolve(c, rel, &path);
    ldem_table t = {0};
    if (!rc)
        rc = read_table(c, p, path, &t);
    tsv_columns col;
    if (!rc)
        rc = tsv_columns_of(c, &t, path, &col);
    if (!rc && col.radius >= 0 && c->s->shapes[g.shape].kind != LDEM_SHAPE_SPHERE)
        rc = tsv_error(c, path, 0, "column radius applies to sphere shapes only; '%s' is a "
                       "bundle", c->s->shapes[g.shape].name);
    uint32_t source = 0;
    if (!rc)
        rc = add_source(c, path, &source);
    for (size_t r = 0; !rc && r < t.nrows; r++) {
        ldem_scene_grain *slot;
        rc = new_grain(c, gl, entry, t.lines[r], &slot);
        if (rc)
            break;
        *slot = g;
        slot->entry = entry;
        slot->line = t.lines[r];
        slot->source = source;
        rc = tsv_row(c, path, t.lines[r], &t.values[r * t.ncols], &col, slot);
    }
    ldem_table_free(&t);
    free(path);
    return rc;
}

static int parse_grain_entry(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    const char *kind = NULL;
    if (m->kind == LDEM_SN_MAPPING && m->count >= 1 &&
        (ldem_sn_get(m, "lattice") || ldem_sn_get(m, "file")))
        kind = ldem_sn_get(m, "lattice") ? "lattice" : "file";
    if (!kind) {
        if (m->kind != LDEM_SN_MAPPING) {
            char buf[80];
            return FAIL(c, m, "expected a grain {shape, material, position, ...}, a "
                        "{lattice: {...}} or a {file: {...}}, got %s", looks(m, buf, sizeof buf));
        }
        return parse_explicit_grain(c, gl, entry, m);
    }
    if (m->count != 1) {
        const char *other = strcmp(m->keys[0], kind) == 0 ? m->keys[1] : m->keys[0];
        return FAIL(c, m, "a %s entry takes no other keys; '%s' belongs inside %s: {...}", kind,
                    other, kind);
    }
    size_t mark = key_push(c, kind);
    int rc = strcmp(kind, "lattice") == 0 ? parse_lattice(c, gl, entry, m->items[0])
                                          : parse_grain_file(c, gl, entry, m->items[0]);
    key_pop(c, mark);
    return rc;
}

static int parse_grains(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "grains");
    if (!list)
        return LDEM_OK;
    size_t mark = key_push(c, "grains");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE
                 ? LDEM_OK
                 : FAIL(c, list, "expected a list of grains, lattices and files, got %s",
                        looks(list, buf, sizeof buf));
    grain_list gl = {0};
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = key_push_index(c, k);
        rc = parse_grain_entry(c, &gl, (uint32_t)k, list->items[k]);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* ---- walls ---- */

static int parse_plane(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"point", "normal", NULL};
    size_t mark = key_push(c, "plane");
    int rc = check_mapping(c, n, keys);
    w->kind = LDEM_WALL_PLANE;
    if (!rc)
        rc = vec3_field(c, n, "point", "a point on the plane [x, y, z]", &w->point);
    if (!rc)
        rc = unit_field(c, n, "normal", "the direction into the grains' side [x, y, z]",
                        &w->normal);
    key_pop(c, mark);
    return rc;
}

static int parse_cylinder(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"point", "axis", "radius", "side", NULL};
    size_t mark = key_push(c, "cylinder");
    int rc = check_mapping(c, n, keys);
    w->kind = LDEM_WALL_CYLINDER;
    w->inside = 1;
    if (!rc)
        rc = vec3_field(c, n, "point", "a point on the axis [x, y, z]", &w->point);
    if (!rc)
        rc = unit_field(c, n, "axis", "the axis direction [x, y, z]", &w->normal);
    if (!rc)
        rc = num_field(c, n, "radius", POSITIVE, "the cylinder radius, > 0", &w->radius);
    const ldem_sn *side = ldem_sn_get(n, "side");
    if (!rc && side) {
        size_t m2 = key_push(c, "side");
        char buf[80];
        if (side->kind == LDEM_SN_SCALAR && strcmp(side->text, "outside") == 0)
            w->inside = 0;
        else if (!(side->kind == LDEM_SN_SCALAR && strcmp(side->text, "inside") == 0))
            rc = FAIL(c, side, "expected inside (grains in a drum) or outside (grains around a "
                      "rod), got %s", looks(side, buf, sizeof buf));
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

static int parse_ramp(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    size_t mark = key_push(c, "ramp");
    char buf[80];
    int rc = n->kind == LDEM_SN_SEQUENCE && n->count >= 1
                 ? LDEM_OK
                 : FAIL(c, n, "expected a list of [t, dx, dy, dz] points, got %s",
                        looks(n, buf, sizeof buf));
    w->drive = LDEM_DRIVE_RAMP;
    if (!rc) {
        w->ramp_t = calloc(n->count, sizeof *w->ramp_t);
        w->ramp_d = calloc(n->count, sizeof *w->ramp_d);
        if (!w->ramp_t || !w->ramp_d)
            rc = nomem(c);
    }
    for (size_t k = 0; !rc && k < n->count; k++) {
        size_t m2 = key_push_index(c, k);
        double p[4];
        rc = numbers(c, n->items[k], 4, "[t, dx, dy, dz]", p);
        if (!rc && p[0] < 0.0)
            rc = FAIL(c, n->items[k], "time must be >= 0, got %g", p[0]);
        if (!rc && k > 0 && !(p[0] > w->ramp_t[k - 1]))
            rc = FAIL(c, n->items[k], "times must be strictly increasing, got %g after %g", p[0],
                      w->ramp_t[k - 1]);
        if (!rc) {
            w->ramp_t[k] = p[0];
            w->ramp_d[k] = ldem_vec3_make(p[1], p[2], p[3]);
            w->nramp = k + 1;
        }
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

static int parse_servo(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"force", "gain", "max_velocity", NULL};
    size_t mark = key_push(c, "servo");
    int rc = check_mapping(c, n, keys);
    w->drive = LDEM_DRIVE_SERVO;
    if (!rc && w->kind != LDEM_WALL_PLANE)
        rc = FAIL(c, n, "a servo drives plane walls only");
    if (!rc)
        rc = num_field(c, n, "force", NONNEGATIVE, "the target force of the grains on the "
                       "wall, >= 0", &w->servo_force);
    if (!rc)
        rc = num_field(c, n, "gain", POSITIVE, "velocity per unit force error, > 0",
                       &w->servo_gain);
    if (!rc)
        rc = num_field(c, n, "max_velocity", POSITIVE, "the cap on the wall's speed, > 0",
                       &w->servo_vmax);
    key_pop(c, mark);
    return rc;
}

/* A wall name is a probe column prefix: printable, no blanks. */
static int valid_wall_name(const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return 0;
    return name[0] != '\0';
}

static int parse_wall_name(ctx *c, const ldem_sn *m, size_t index, ldem_scene_wall *w)
{
    const ldem_sn *n = ldem_sn_get(m, "name");
    if (!n) {
        char name[32];
        snprintf(name, sizeof name, "wall%zu", index);
        return dup_into(c, name, &w->name);
    }
    size_t mark = key_push(c, "name");
    const char *name;
    int rc = text(c, n, "a wall name", &name);
    if (!rc && !valid_wall_name(name))
        rc = FAIL(c, n, "'%.60s' is not a usable name: no spaces or control characters (it "
                  "names the wall's columns in probes.tsv)", name);
    for (size_t k = 0; !rc && k < index; k++)
        if (strcmp(c->s->walls[k].name, name) == 0)
            rc = FAIL(c, n, "a second wall named '%.60s' (the first is on line %ld); names must "
                      "be unique", name, c->s->walls[k].line);
    if (!rc)
        rc = dup_into(c, name, &w->name);
    key_pop(c, mark);
    return rc;
}

static int parse_wall(ctx *c, const ldem_sn *m, size_t index, ldem_scene_wall *w)
{
    static const char *const keys[] = {"name", "plane", "cylinder", "material", "velocity",
                                       "ramp", "servo", NULL};
    int rc = check_mapping(c, m, keys);
    w->line = m->from_set ? 0 : m->line;
    if (!rc)
        rc = parse_wall_name(c, m, index, w);
    const ldem_sn *plane = ldem_sn_get(m, "plane"), *cyl = ldem_sn_get(m, "cylinder");
    if (!rc && (!plane) == (!cyl))
        rc = FAIL(c, m, "give exactly one of plane: {point, normal} or cylinder: {point, axis, "
                  "radius, side}");
    if (!rc)
        rc = plane ? parse_plane(c, plane, w) : parse_cylinder(c, cyl, w);
    if (!rc)
        rc = material_ref(c, m, &w->material);
    const ldem_sn *vel = ldem_sn_get(m, "velocity"), *ramp = ldem_sn_get(m, "ramp");
    const ldem_sn *servo = ldem_sn_get(m, "servo");
    if (!rc && (!!vel + !!ramp + !!servo) > 1)
        rc = FAIL(c, m, "give at most one drive: velocity, ramp or servo");
    w->drive = LDEM_DRIVE_VELOCITY;
    if (!rc && vel)
        rc = vec3_field(c, m, "velocity", NULL, &w->velocity);
    if (!rc && ramp)
        rc = parse_ramp(c, ramp, w);
    if (!rc && servo)
        rc = parse_servo(c, servo, w);
    return rc;
}

static int parse_walls(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "walls");
    if (!list)
        return LDEM_OK;
    size_t mark = key_push(c, "walls");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE
                 ? LDEM_OK
                 : FAIL(c, list, "expected a list of walls, got %s", looks(list, buf, sizeof buf));
    if (!rc && !(c->s->walls = calloc(list->count ? list->count : 1, sizeof *c->s->walls)))
        rc = nomem(c);
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = key_push_index(c, k);
        c->s->nwalls = k + 1;
        rc = parse_wall(c, list->items[k], k, &c->s->walls[k]);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* ---- the periodic cell ---- */

/* `box: {lo: [..], hi: [..]}` (orthogonal) or `vectors: [a, b, c]` with `centre`. */
static int parse_cell_geometry(ctx *c, const ldem_sn *n, ldem_scene_cell *cell)
{
    static const char *const box_keys[] = {"lo", "hi", NULL};
    const ldem_sn *box = ldem_sn_get(n, "box"), *vectors = ldem_sn_get(n, "vectors");
    if (box && vectors) {
        size_t mark = key_push(c, "vectors");
        int rc = FAIL(c, vectors, "give either box or vectors, not both");
        key_pop(c, mark);
        return rc;
    }
    if (!box && !vectors)
        return FAIL(c, n, "missing the cell's geometry: box: {lo: [x, y, z], hi: [x, y, z]} "
                    "or vectors: [[ax, ay, az], [bx, by, bz], [cx, cy, cz]] with centre");
    memset(&cell->h, 0, sizeof cell->h);
    const ldem_sn *centre = ldem_sn_get(n, "centre");
    if (box && centre) {
        size_t mark = key_push(c, "centre");
        int rc = FAIL(c, centre, "a box has its centre midway between lo and hi; centre goes "
                      "with vectors");
        key_pop(c, mark);
        return rc;
    }
    if (box) {
        size_t mark = key_push(c, "box");
        ldem_vec3 lo = ldem_vec3_zero(), hi = ldem_vec3_zero();
        int rc = check_mapping(c, box, box_keys);
        if (!rc)
            rc = vec3_field(c, box, "lo", "the lowest corner [x, y, z]", &lo);
        if (!rc)
            rc = vec3_field(c, box, "hi", "the highest corner [x, y, z]", &hi);
        if (!rc && !(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z))
            rc = FAIL(c, box, "hi must exceed lo along every axis, got lo (%g, %g, %g), "
                      "hi (%g, %g, %g)", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
        cell->h.m[0][0] = hi.x - lo.x;
        cell->h.m[1][1] = hi.y - lo.y;
        cell->h.m[2][2] = hi.z - lo.z;
        cell->centre = ldem_vec3_scale(ldem_vec3_add(lo, hi), 0.5);
        key_pop(c, mark);
        return rc;
    }
    size_t mark = key_push(c, "vectors");
    char buf[80];
    int rc = vectors->kind == LDEM_SN_SEQUENCE && vectors->count == 3
                 ? LDEM_OK
                 : FAIL(c, vectors, "expected three edge vectors [[ax, ay, az], [bx, by, bz], "
                        "[cx, cy, cz]], got %s", looks(vectors, buf, sizeof buf));
    for (size_t k = 0; !rc && k < 3; k++) {
        size_t m2 = key_push_index(c, k);
        ldem_vec3 e = ldem_vec3_zero();
        rc = vec3(c, vectors->items[k], &e);
        cell->h.m[0][k] = e.x;
        cell->h.m[1][k] = e.y;
        cell->h.m[2][k] = e.z;
        key_pop(c, m2);
    }
    key_pop(c, mark);
    if (!rc)
        rc = vec3_field(c, n, "centre", "the cell's centre [x, y, z] (with vectors)",
                        &cell->centre);
    return rc;
}

/* x, y, z: {strain_rate: r} or {stress: s}. */
static int parse_cell_direction(ctx *c, const ldem_sn *n, int k, ldem_cell_control *ctl)
{
    static const char *const keys[] = {"strain_rate", "stress", NULL};
    const ldem_sn *rate = ldem_sn_get(n, "strain_rate"), *stress = ldem_sn_get(n, "stress");
    int rc = check_mapping(c, n, keys);
    if (!rc && (!rate) == (!stress))
        rc = FAIL(c, n, "give exactly one of strain_rate (1/time, extension positive) and "
                  "stress (the target, compression positive)");
    if (!rc && rate) {
        ctl->drive[k] = LDEM_CELL_STRAIN_RATE;
        rc = num_field(c, n, "strain_rate", ANY, NULL, &ctl->strain_rate[k]);
    }
    if (!rc && stress) {
        ctl->drive[k] = LDEM_CELL_STRESS;
        rc = num_field(c, n, "stress", ANY, NULL, &ctl->stress[k]);
    }
    return rc;
}

static int parse_cell(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"box", "vectors", "centre", "x", "y", "z", "servo",
                                       NULL};
    static const char *const servo_keys[] = {"gain", "max_strain_rate", NULL};
    static const char *const axes[] = {"x", "y", "z"};
    const ldem_sn *n = ldem_sn_get(root, "cell");
    if (!n)
        return LDEM_OK;
    ldem_scene_cell *cell = &c->s->cell;
    size_t mark = key_push(c, "cell");
    int rc = check_mapping(c, n, keys);
    cell->given = 1;
    cell->line = n->from_set ? 0 : n->line;
    cell->control.gain = 0.05;
    if (!rc)
        rc = parse_cell_geometry(c, n, cell);
    int stress_driven = 0;
    for (int k = 0; !rc && k < 3; k++) {
        const ldem_sn *d = ldem_sn_get(n, axes[k]);
        if (!d)
            continue;
        size_t m2 = key_push(c, axes[k]);
        rc = parse_cell_direction(c, d, k, &cell->control);
        stress_driven |= cell->control.drive[k] == LDEM_CELL_STRESS;
        key_pop(c, m2);
    }
    const ldem_sn *servo = ldem_sn_get(n, "servo");
    if (!rc && stress_driven && !servo)
        rc = FAIL(c, n, "a stress-controlled direction needs servo: {max_strain_rate: r} (the "
                  "cap on its strain rate, > 0; gain defaults to 0.05)");
    if (!rc && servo) {
        size_t m2 = key_push(c, "servo");
        rc = check_mapping(c, servo, servo_keys);
        if (!rc)
            rc = num_field(c, servo, "gain", (range){0.0, 1.0, 1, 0}, NULL,
                           &cell->control.gain);
        if (!rc)
            rc = num_field(c, servo, "max_strain_rate", POSITIVE,
                           "the cap on a stress-controlled direction's strain rate, > 0",
                           &cell->control.max_rate);
        key_pop(c, m2);
    }
    key_pop(c, mark);
    return rc;
}

/* ---- output ---- */

static int parse_every(ctx *c, const ldem_sn *parent, const char *block,
                       const char *const *keys, uint64_t *every, const ldem_sn **node)
{
    *node = ldem_sn_get(parent, block);
    if (!*node)
        return LDEM_OK;
    size_t mark = key_push(c, block);
    int rc = check_mapping(c, *node, keys);
    if (!rc)
        rc = int_field(c, *node, "every", SCENE_MAX_INTEGER, every);
    key_pop(c, mark);
    return rc;
}

static int parse_frames_extra(ctx *c, const ldem_sn *frames)
{
    const ldem_sn *enc = ldem_sn_get(frames, "encoding");
    size_t mark = key_push(c, "frames");
    int rc = LDEM_OK;
    if (enc) {
        size_t m2 = key_push(c, "encoding");
        ldem_err scratch;
        if (enc->kind != LDEM_SN_SCALAR ||
            ldem_vtk_encoding_parse(enc->text, &c->s->frame_encoding, &scratch) != LDEM_OK) {
            char buf[80];
            rc = FAIL(c, enc, "expected zlib, raw or ascii, got %s", looks(enc, buf, sizeof buf));
        }
        key_pop(c, m2);
    }
    if (!rc)
        rc = bool_field(c, frames, "contacts", &c->s->frame_contacts);
    key_pop(c, mark);
    return rc;
}

/* `modes: auto | true | false | [grain indices]` of the probes block. */
static int parse_probe_modes(ctx *c, const ldem_sn *probes)
{
    const ldem_sn *n = ldem_sn_get(probes, "modes");
    if (!n)
        return LDEM_OK;
    size_t mark = key_push(c, "modes");
    char buf[80];
    int rc = LDEM_OK;
    ldem_scene *s = c->s;
    s->probe_modes_line = n->from_set ? 0 : n->line;
    if (n->kind == LDEM_SN_SCALAR && strcmp(n->text, "auto") == 0) {
        s->probe_modes = -1;
    } else if (n->kind == LDEM_SN_SEQUENCE) {
        s->probe_modes = 2;
        if (!(s->probe_grains = calloc(n->count ? n->count : 1, sizeof *s->probe_grains)))
            rc = nomem(c);
        for (size_t k = 0; !rc && k < n->count; k++) {
            double v;
            size_t m2 = key_push_index(c, k);
            rc = number(c, n->items[k], NONNEGATIVE, &v);
            if (!rc && (v != floor(v) || v > SCENE_MAX_GRAINS))
                rc = FAIL(c, n->items[k], "expected a grain index (a whole number), got %g", v);
            for (size_t j = 0; !rc && j < s->nprobe_grains; j++)
                if (s->probe_grains[j] == (uint32_t)v)
                    rc = FAIL(c, n->items[k], "grain %u is listed twice", (unsigned)v);
            if (!rc)
                s->probe_grains[s->nprobe_grains++] = (uint32_t)v;
            key_pop(c, m2);
        }
    } else if (n->kind == LDEM_SN_SCALAR &&
               (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0)) {
        s->probe_modes = strcmp(n->text, "true") == 0;
    } else {
        rc = FAIL(c, n, "expected auto, true, false or a list of grain indices, got %s",
                  looks(n, buf, sizeof buf));
    }
    key_pop(c, mark);
    return rc;
}

static int parse_output(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"dir", "frames", "probes", "checkpoint", NULL};
    static const char *const frame_keys[] = {"every", "encoding", "contacts", NULL};
    static const char *const every_keys[] = {"every", NULL};
    static const char *const probe_keys[] = {"every", "dissipation", "modes", NULL};
    const ldem_sn *out = ldem_sn_get(root, "output");
    if (!out)
        return LDEM_OK;
    size_t mark = key_push(c, "output");
    int rc = check_mapping(c, out, keys);
    const ldem_sn *dir = ldem_sn_get(out, "dir"), *node;
    if (!rc && dir) {
        size_t m2 = key_push(c, "dir");
        const char *d;
        rc = text(c, dir, "an output folder", &d);
        if (!rc) {
            free(c->s->out_dir);
            rc = dup_into(c, d, &c->s->out_dir);
        }
        key_pop(c, m2);
    }
    if (!rc)
        rc = parse_every(c, out, "frames", frame_keys, &c->s->frame_every, &node);
    if (!rc && node)
        rc = parse_frames_extra(c, node);
    if (!rc)
        rc = parse_every(c, out, "probes", probe_keys, &c->s->probe_every, &node);
    if (!rc && node) {
        size_t m2 = key_push(c, "probes");
        rc = bool_field(c, node, "dissipation", &c->s->track_dissipation);
        if (!rc)
            rc = parse_probe_modes(c, node);
        key_pop(c, m2);
    }
    if (!rc)
        rc = parse_every(c, out, "checkpoint", every_keys, &c->s->checkpoint_every, &node);
    key_pop(c, mark);
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
    int rc = check_mapping(c, root, TOP_KEYS);
    if (!rc)
        rc = parse_globals(c, root);
    if (!rc)
        rc = parse_materials(c, root);
    if (!rc)
        rc = parse_contacts(c, root);
    if (!rc)
        rc = parse_shapes(c, root);
    if (!rc)
        rc = parse_grains(c, root);
    if (!rc)
        rc = parse_walls(c, root);
    if (!rc)
        rc = parse_cell(c, root);
    if (!rc)
        rc = parse_output(c, root);
    return rc;
}

int ldem_scene_load(ldem_scene *s, const char *path, size_t nset, const char *const *sets,
                    ldem_err *err)
{
    ldem_scene_init(s);
    int rc = set_paths(s, path, err);
    ldem_sn *root = NULL;
    if (!rc)
        rc = ldem_sn_parse_file(path, &root, err);
    for (size_t k = 0; !rc && k < nset; k++)
        rc = ldem_sn_apply_set(root, sets[k], err);
    if (!rc) {
        ctx c = {.s = s, .err = err};
        rc = convert(&c, root);
    }
    ldem_sn_free(root);
    if (rc)
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
