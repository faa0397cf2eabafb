/* scene_stages.c — the scene's `stages:` list (docs/scene.md, "Stages"): each entry's name,
 * end criteria and check interval, and applying the entries' `set:` to the scene tree.
 *
 * A `set:` key is a dotted path as --set takes it. Keys that a restart cannot change are
 * refused here by their first segment, at the key's line; the rest of the rule (what the
 * checkpoint's static checksum covers: materials' and contact laws' constants, walls'
 * geometry...) is checked on the built worlds (ldem_stages_validate).
 */
#include "scene_parse.h"

#include <stdlib.h>
#include <string.h>

/* Run-level blocks a stage cannot change: the bodies and what they are made of (in the
 * checkpoint's checksum), the run length (the stages are it), and the stages themselves. */
static const char *const FROZEN[] = {"grains", "shapes", "materials", "time", "stages",
                                     "order", NULL};

static int frozen_key(const char *key)
{
    for (size_t k = 0; FROZEN[k]; k++) {
        size_t n = strlen(FROZEN[k]);
        if (strncmp(key, FROZEN[k], n) == 0 && (key[n] == '\0' || key[n] == '.'))
            return 1;
    }
    return 0;
}

static int parse_set(ctx *c, const ldem_sn *set, ldem_scene_stage *st)
{
    size_t mark = scene_key_push(c, "set");
    int rc = LDEM_OK;
    if (set->kind != LDEM_SN_MAPPING) {
        char buf[80];
        rc = FAIL(c, set, "expected a mapping of dotted keys to values (as --set takes them), "
                  "got %s", scene_looks(set, buf, sizeof buf));
    }
    for (size_t k = 0; !rc && k < set->count; k++) {
        if (frozen_key(set->keys[k])) {
            size_t m = scene_key_push(c, set->keys[k]);
            rc = scene_fail_at(c, set->from_set, set->key_lines[k],
                               "a stage cannot change this (grains, shapes, materials, time, "
                               "order and stages are the same for the whole run)");
            scene_key_pop(c, m);
        }
    }
    st->nset = set->count;
    scene_key_pop(c, mark);
    return rc;
}

/* The wall named by node n: *index. */
static int wall_ref(ctx *c, const ldem_sn *n, long *index)
{
    const char *name = NULL;
    int rc = scene_text(c, n, "a wall's name", &name);
    *index = -1;
    for (size_t k = 0; !rc && k < c->s->nwalls; k++)
        if (c->s->walls[k].name && strcmp(c->s->walls[k].name, name) == 0)
            *index = (long)k;
    if (!rc && *index < 0)
        rc = FAIL(c, n, "no wall is named '%.60s'", name);
    return rc;
}

/* wall_force: {wall, reached: F}, or wall_stress: {wall, reached: S, area: A} (stress = the
 * normal force over the area the user states: a wall has no area of its own). */
static int parse_wall_force(ctx *c, const char *key, const ldem_sn *n, ldem_stage_until *u)
{
    int stress = strcmp(key, "wall_stress") == 0;
    static const char *const force_keys[] = {"wall", "reached", NULL};
    static const char *const stress_keys[] = {"wall", "reached", "area", NULL};
    size_t mark = scene_key_push(c, key);
    int rc = scene_check_mapping(c, n, stress ? stress_keys : force_keys);
    const ldem_sn *wall = rc ? NULL : ldem_sn_get(n, "wall");
    if (!rc && (!wall || !ldem_sn_get(n, "reached") || (stress && !ldem_sn_get(n, "area"))))
        rc = FAIL(c, n, stress ? "expected {wall: NAME, reached: STRESS, area: AREA}"
                               : "expected {wall: NAME, reached: FORCE}");
    if (!rc)
        rc = wall_ref(c, wall, &u->wall);
    if (!rc)
        rc = scene_num_field(c, n, "reached", NONNEGATIVE, NULL, &u->wall_force);
    if (!rc && stress)
        rc = scene_num_field(c, n, "area", POSITIVE, NULL, &u->wall_area);
    scene_key_pop(c, mark);
    return rc;
}

/* An optional count ≥ 1 (absent leaves *out 0: not given). */
static int count_field(ctx *c, const ldem_sn *map, const char *key, uint64_t *out)
{
    if (!ldem_sn_get(map, key))
        return LDEM_OK;
    *out = 1;
    return scene_int_field_from(c, map, key, 1, SCENE_MAX_INTEGER, out);
}

/* servo_settled: {walls: [NAME...], tolerance, window, velocity}. The walls must be servo
 * walls in the stage's own scene (`stage`: this entry's index; in another stage's scene
 * the walls' drives may differ, so they are checked only there). */
static int parse_servo_settled(ctx *c, const ldem_sn *n, ldem_stage_until *u, size_t stage)
{
    static const char *const keys[] = {"walls", "tolerance", "window", "velocity", NULL};
    size_t mark = scene_key_push(c, "servo_settled");
    int rc = scene_check_mapping(c, n, keys);
    const ldem_sn *walls = rc ? NULL : ldem_sn_get(n, "walls");
    if (!rc && (!walls || walls->kind != LDEM_SN_SEQUENCE || walls->count == 0 ||
                walls->count > LDEM_STAGE_SERVO_MAX))
        rc = FAIL(c, walls ? walls : n, "expected walls: [NAME, ...], 1 to %u servo walls",
                  LDEM_STAGE_SERVO_MAX);
    for (size_t k = 0; !rc && k < walls->count; k++) {
        size_t m = scene_key_push(c, "walls");
        scene_key_push_index(c, k);
        rc = wall_ref(c, walls->items[k], &u->servo_wall[k]);
        if (!rc && c->s->stage == (long)stage &&
            c->s->walls[u->servo_wall[k]].drive != LDEM_DRIVE_SERVO)
            rc = FAIL(c, walls->items[k], "wall '%s' has no servo in this stage",
                      c->s->walls[u->servo_wall[k]].name);
        scene_key_pop(c, m);
        u->nservo = (uint32_t)(k + 1);
    }
    if (!rc)
        rc = scene_num_field(c, n, "tolerance", POSITIVE, NULL, &u->servo_tolerance);
    if (!rc)
        rc = count_field(c, n, "window", &u->servo_window);
    if (!rc)
        rc = scene_num_field(c, n, "velocity", NONNEGATIVE, NULL, &u->servo_velocity);
    scene_key_pop(c, mark);
    return rc;
}

static int parse_until(ctx *c, const ldem_sn *n, ldem_stage_until *u, size_t stage)
{
    static const char *const keys[] = {"steps", "time", "max_steps", "max_time", "unbalanced",
                                       "kinetic_ratio", "wall_force", "wall_stress", "servo_settled",
                                       NULL};
    size_t mark = scene_key_push(c, "until");
    int rc = scene_check_mapping(c, n, keys);
    if (!rc && n->count == 0)
        rc = FAIL(c, n, "give at least one criterion (%s)", "steps, time, max_steps, "
                  "max_time, unbalanced, kinetic_ratio, wall_force, wall_stress, servo_settled");
    if (!rc)
        rc = count_field(c, n, "steps", &u->steps);
    if (!rc)
        rc = count_field(c, n, "max_steps", &u->max_steps);
    if (!rc)
        rc = scene_num_field(c, n, "time", POSITIVE, NULL, &u->time);
    if (!rc)
        rc = scene_num_field(c, n, "max_time", POSITIVE, NULL, &u->max_time);
    if (!rc)
        rc = scene_num_field(c, n, "unbalanced", POSITIVE, NULL, &u->unbalanced);
    if (!rc)
        rc = scene_num_field(c, n, "kinetic_ratio", POSITIVE, NULL, &u->kinetic_ratio);
    const ldem_sn *wf = rc ? NULL : ldem_sn_get(n, "wall_force");
    const ldem_sn *ws = rc ? NULL : ldem_sn_get(n, "wall_stress");
    if (wf && ws) {
        scene_key_push(c, "wall_stress");
        rc = FAIL(c, ws, "give either wall_force or wall_stress, not both");
    }
    if (!rc && (wf || ws))
        rc = parse_wall_force(c, wf ? "wall_force" : "wall_stress", wf ? wf : ws, u);
    const ldem_sn *ss = rc ? NULL : ldem_sn_get(n, "servo_settled");
    if (ss)
        rc = parse_servo_settled(c, ss, u, stage);
    scene_key_pop(c, mark);
    return rc;
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_'))
            return 0;
    return 1;
}

static int parse_stage(ctx *c, const ldem_sn *e, ldem_scene_stage *st, size_t index)
{
    static const char *const keys[] = {"name", "set", "until", "check_every", NULL};
    int rc = scene_check_mapping(c, e, keys);
    st->line = e->line;
    st->set_line = e->line;
    st->until = (ldem_stage_until){.time = -1.0, .max_time = -1.0, .unbalanced = -1.0,
                                   .kinetic_ratio = -1.0, .wall = -1, .wall_force = -1.0,
                                   .wall_area = 0.0,
                                   .check_every = 100, .servo_tolerance = 0.02,
                                   .servo_window = 1000, .servo_velocity = -1.0};
    const ldem_sn *name = rc ? NULL : ldem_sn_get(e, "name");
    if (!rc && !name)
        rc = scene_missing(c, e, "name", "the stage's name (letters, digits, - and _), used "
                           "in messages and in the file stage-NAME.ldc");
    const char *text = NULL;
    if (!rc) {
        size_t m = scene_key_push(c, "name");
        rc = scene_text(c, name, "a name", &text);
        if (!rc && !valid_name(text))
            rc = FAIL(c, name, "'%.60s': a name is 1 to 64 letters, digits, - or _", text);
        for (size_t k = 0; !rc && k < index; k++)
            if (strcmp(c->s->stages[k].name, text) == 0)
                rc = FAIL(c, name, "stage %zu is also named '%s'", k, text);
        scene_key_pop(c, m);
    }
    if (!rc)
        rc = scene_dup_into(c, text, &st->name);
    long k = rc ? -1 : ldem_sn_find(e, "set");
    if (k >= 0) {
        st->set_line = e->key_lines[k];
        rc = parse_set(c, e->items[k], st);
    }
    const ldem_sn *until = rc ? NULL : ldem_sn_get(e, "until");
    if (!rc && !until)
        rc = scene_missing(c, e, "until", "when the stage ends, e.g. until: {steps: 10000}");
    if (!rc)
        rc = parse_until(c, until, &st->until, index);
    if (!rc)
        rc = count_field(c, e, "check_every", &st->until.check_every);
    return rc;
}

int scene_parse_stages(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "stages");
    if (!list)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "stages");
    int rc = LDEM_OK;
    if (list->kind != LDEM_SN_SEQUENCE || list->count == 0) {
        char buf[80];
        rc = FAIL(c, list, "expected a list of stages ({name, set, until}), got %s",
                  scene_looks(list, buf, sizeof buf));
    }
    if (!rc) {
        c->s->stages = calloc(list->count, sizeof *c->s->stages);
        if (!c->s->stages)
            rc = scene_nomem(c);
    }
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m = scene_key_push_index(c, k);
        c->s->nstages = k + 1;
        rc = parse_stage(c, list->items[k], &c->s->stages[k], k);
        scene_key_pop(c, m);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* A deep copy of a node, keeping its lines (so the schema check names the stage's line). */
static ldem_sn *clone(const ldem_sn *n)
{
    ldem_sn *d = ldem_sn_new(n->kind, n->line, n->from_set);
    if (!d)
        return NULL;
    d->plain = n->plain;
    if (n->text && !(d->text = strdup(n->text)))
        goto fail;
    if (n->count) {
        d->items = calloc(n->count, sizeof *d->items);
        if (!d->items)
            goto fail;
        if (n->keys) {
            d->keys = calloc(n->count, sizeof *d->keys);
            d->key_lines = calloc(n->count, sizeof *d->key_lines);
            if (!d->keys || !d->key_lines)
                goto fail;
        }
        d->capacity = n->count;
        for (size_t k = 0; k < n->count; k++) {
            d->count = k + 1;
            d->items[k] = clone(n->items[k]);
            if (n->keys) {
                d->keys[k] = strdup(n->keys[k]);
                d->key_lines[k] = n->key_lines[k];
                if (!d->keys[k])
                    goto fail;
            }
            if (!d->items[k])
                goto fail;
        }
    }
    return d;
fail:
    ldem_sn_free(d);
    return NULL;
}

int scene_apply_stage_sets(ldem_sn *root, const char *file, size_t upto, ldem_err *err)
{
    const ldem_sn *list = ldem_sn_get(root, "stages");
    if (!list || list->kind != LDEM_SN_SEQUENCE || upto >= list->count)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, file, 0, "no stage %zu to apply", upto);
    /* copy the sets first: applying one may not change what the next one reads */
    for (size_t j = 0; j <= upto; j++) {
        const ldem_sn *e = list->items[j];
        const ldem_sn *set = e->kind == LDEM_SN_MAPPING ? ldem_sn_get(e, "set") : NULL;
        if (!set || set->kind != LDEM_SN_MAPPING)
            continue;
        for (size_t k = 0; k < set->count; k++) {
            if (frozen_key(set->keys[k]))
                return ldem_err_set(err, LDEM_ERR_INPUT, file, set->key_lines[k],
                                    "%.200s: a stage cannot change this", set->keys[k]);
            ldem_sn *v = clone(set->items[k]);
            if (!v)
                return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
            int rc = ldem_sn_apply_node(root, set->keys[k], v, set->from_set ? NULL : file,
                                        set->key_lines[k], err);
            if (rc)
                return rc;
        }
    }
    return LDEM_OK;
}
