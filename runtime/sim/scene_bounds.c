/* scene_bounds.c — what bounds the grains in a scene (docs/scene.md): the walls block and the
 * periodic cell with the control of its directions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_parse.h"

/* ---- walls ---- */

static int parse_plane(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"point", "normal", NULL};
    size_t mark = scene_key_push(c, "plane");
    int rc = scene_check_mapping(c, n, keys);
    w->kind = LDEM_WALL_PLANE;
    if (!rc)
        rc = scene_vec3_field(c, n, "point", "a point on the plane [x, y, z]", &w->point);
    if (!rc)
        rc = scene_unit_field(c, n, "normal", "the direction into the grains' side [x, y, z]",
                        &w->normal);
    scene_key_pop(c, mark);
    return rc;
}

static int parse_cylinder(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"point", "axis", "radius", "side", NULL};
    size_t mark = scene_key_push(c, "cylinder");
    int rc = scene_check_mapping(c, n, keys);
    w->kind = LDEM_WALL_CYLINDER;
    w->inside = 1;
    if (!rc)
        rc = scene_vec3_field(c, n, "point", "a point on the axis [x, y, z]", &w->point);
    if (!rc)
        rc = scene_unit_field(c, n, "axis", "the axis direction [x, y, z]", &w->normal);
    if (!rc)
        rc = scene_num_field(c, n, "radius", POSITIVE, "the cylinder radius, > 0", &w->radius);
    const ldem_sn *side = ldem_sn_get(n, "side");
    if (!rc && side) {
        size_t m2 = scene_key_push(c, "side");
        char buf[80];
        if (side->kind == LDEM_SN_SCALAR && strcmp(side->text, "outside") == 0)
            w->inside = 0;
        else if (!(side->kind == LDEM_SN_SCALAR && strcmp(side->text, "inside") == 0))
            rc = FAIL(c, side, "expected inside (grains in a drum) or outside (grains around a "
                      "rod), got %s", scene_looks(side, buf, sizeof buf));
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_ramp(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    size_t mark = scene_key_push(c, "ramp");
    char buf[80];
    int rc = n->kind == LDEM_SN_SEQUENCE && n->count >= 1
                 ? LDEM_OK
                 : FAIL(c, n, "expected a list of [t, dx, dy, dz] points, got %s",
                        scene_looks(n, buf, sizeof buf));
    w->drive = LDEM_DRIVE_RAMP;
    if (!rc) {
        w->ramp_t = calloc(n->count, sizeof *w->ramp_t);
        w->ramp_d = calloc(n->count, sizeof *w->ramp_d);
        if (!w->ramp_t || !w->ramp_d)
            rc = scene_nomem(c);
    }
    for (size_t k = 0; !rc && k < n->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        double p[4];
        rc = scene_numbers(c, n->items[k], 4, "[t, dx, dy, dz]", p);
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
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* servo: {force: F | stress: σ, area: A, gain: α, integral: ι, max_velocity: v}. */
static int parse_servo(ctx *c, const ldem_sn *n, ldem_scene_wall *w)
{
    static const char *const keys[] = {"force", "stress", "area", "gain", "integral",
                                       "max_velocity", NULL};
    size_t mark = scene_key_push(c, "servo");
    int rc = scene_check_mapping(c, n, keys);
    w->drive = LDEM_DRIVE_SERVO;
    w->servo_gain = 0.5;
    w->servo_integral = 0.0;
    if (!rc && w->kind != LDEM_WALL_PLANE)
        rc = FAIL(c, n, "a servo drives plane walls only");
    const ldem_sn *force = ldem_sn_get(n, "force"), *stress = ldem_sn_get(n, "stress");
    const ldem_sn *area = ldem_sn_get(n, "area");
    if (!rc && (!force) == (!stress))
        rc = FAIL(c, n, "give the target as force: F or as stress: s with area: A");
    if (!rc && force && area)
        rc = FAIL(c, n, "area goes with stress: s, not with force: F");
    if (!rc && force)
        rc = scene_num_field(c, n, "force", NONNEGATIVE, NULL, &w->servo_force);
    if (!rc && stress) {
        double sigma = 0.0, a = 0.0;
        rc = scene_num_field(c, n, "stress", NONNEGATIVE, NULL, &sigma);
        if (!rc)
            rc = scene_num_field(c, n, "area", POSITIVE, "the area the target stress acts on "
                                 "(the force is stress × area), > 0", &a);
        w->servo_force = sigma * a;
    }
    if (!rc)
        rc = scene_num_field(c, n, "gain", (range){0.0, 2.0, 1, 1}, NULL, &w->servo_gain);
    if (!rc)
        rc = scene_num_field(c, n, "integral", (range){0.0, 1.0, 0, 1}, NULL,
                             &w->servo_integral);
    if (!rc)
        rc = scene_num_field(c, n, "max_velocity", POSITIVE, "the cap on the wall's speed, > 0",
                       &w->servo_vmax);
    scene_key_pop(c, mark);
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
        return scene_dup_into(c, name, &w->name);
    }
    size_t mark = scene_key_push(c, "name");
    const char *name;
    int rc = scene_text(c, n, "a wall name", &name);
    if (!rc && !valid_wall_name(name))
        rc = FAIL(c, n, "'%.60s' is not a usable name: no spaces or control characters (it "
                  "names the wall's columns in probes.tsv)", name);
    for (size_t k = 0; !rc && k < index; k++)
        if (strcmp(c->s->walls[k].name, name) == 0)
            rc = FAIL(c, n, "a second wall named '%.60s' (the first is on line %ld); names must "
                      "be unique", name, c->s->walls[k].line);
    if (!rc)
        rc = scene_dup_into(c, name, &w->name);
    scene_key_pop(c, mark);
    return rc;
}

static int parse_wall(ctx *c, const ldem_sn *m, size_t index, ldem_scene_wall *w)
{
    static const char *const keys[] = {"name", "plane", "cylinder", "material", "velocity",
                                       "ramp", "servo", NULL};
    int rc = scene_check_mapping(c, m, keys);
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
        rc = scene_material_ref(c, m, &w->material);
    const ldem_sn *vel = ldem_sn_get(m, "velocity"), *ramp = ldem_sn_get(m, "ramp");
    const ldem_sn *servo = ldem_sn_get(m, "servo");
    if (!rc && (!!vel + !!ramp + !!servo) > 1)
        rc = FAIL(c, m, "give at most one drive: velocity, ramp or servo");
    w->drive = LDEM_DRIVE_VELOCITY;
    if (!rc && vel)
        rc = scene_vec3_field(c, m, "velocity", NULL, &w->velocity);
    if (!rc && ramp)
        rc = parse_ramp(c, ramp, w);
    if (!rc && servo)
        rc = parse_servo(c, servo, w);
    return rc;
}

int scene_parse_walls(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "walls");
    if (!list)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "walls");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE ? LDEM_OK
                                            : FAIL(c, list, "expected a list of walls, got %s",
                                                   scene_looks(list, buf, sizeof buf));
    if (!rc && !(c->s->walls = calloc(list->count ? list->count : 1, sizeof *c->s->walls)))
        rc = scene_nomem(c);
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        c->s->nwalls = k + 1;
        rc = parse_wall(c, list->items[k], k, &c->s->walls[k]);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}

/* ---- the periodic cell ---- */

/* `box: {lo: [..], hi: [..]}` (orthogonal) or `vectors: [a, b, c]` with `centre`. */
static int parse_cell_geometry(ctx *c, const ldem_sn *n, ldem_scene_cell *cell)
{
    static const char *const box_keys[] = {"lo", "hi", NULL};
    const ldem_sn *box = ldem_sn_get(n, "box"), *vectors = ldem_sn_get(n, "vectors");
    if (box && vectors) {
        size_t mark = scene_key_push(c, "vectors");
        int rc = FAIL(c, vectors, "give either box or vectors, not both");
        scene_key_pop(c, mark);
        return rc;
    }
    if (!box && !vectors)
        return FAIL(c, n, "missing the cell's geometry: box: {lo: [x, y, z], hi: [x, y, z]} "
                    "or vectors: [[ax, ay, az], [bx, by, bz], [cx, cy, cz]] with centre");
    memset(&cell->h, 0, sizeof cell->h);
    const ldem_sn *centre = ldem_sn_get(n, "centre");
    if (box && centre) {
        size_t mark = scene_key_push(c, "centre");
        int rc = FAIL(c, centre, "a box has its centre midway between lo and hi; centre goes "
                      "with vectors");
        scene_key_pop(c, mark);
        return rc;
    }
    if (box) {
        size_t mark = scene_key_push(c, "box");
        ldem_vec3 lo = ldem_vec3_zero(), hi = ldem_vec3_zero();
        int rc = scene_check_mapping(c, box, box_keys);
        if (!rc)
            rc = scene_vec3_field(c, box, "lo", "the lowest corner [x, y, z]", &lo);
        if (!rc)
            rc = scene_vec3_field(c, box, "hi", "the highest corner [x, y, z]", &hi);
        if (!rc && !(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z))
            rc = FAIL(c, box, "hi must exceed lo along every axis, got lo (%g, %g, %g), "
                      "hi (%g, %g, %g)", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
        cell->h.m[0][0] = hi.x - lo.x;
        cell->h.m[1][1] = hi.y - lo.y;
        cell->h.m[2][2] = hi.z - lo.z;
        cell->centre = ldem_vec3_scale(ldem_vec3_add(lo, hi), 0.5);
        scene_key_pop(c, mark);
        return rc;
    }
    size_t mark = scene_key_push(c, "vectors");
    char buf[80];
    int rc = vectors->kind == LDEM_SN_SEQUENCE && vectors->count == 3
                 ? LDEM_OK
                 : FAIL(c, vectors, "expected three edge vectors [[ax, ay, az], [bx, by, bz], "
                        "[cx, cy, cz]], got %s", scene_looks(vectors, buf, sizeof buf));
    for (size_t k = 0; !rc && k < 3; k++) {
        size_t m2 = scene_key_push_index(c, k);
        ldem_vec3 e = ldem_vec3_zero();
        rc = scene_vec3(c, vectors->items[k], &e);
        cell->h.m[0][k] = e.x;
        cell->h.m[1][k] = e.y;
        cell->h.m[2][k] = e.z;
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    if (!rc)
        rc = scene_vec3_field(c, n, "centre", "the cell's centre [x, y, z] (with vectors)",
                        &cell->centre);
    return rc;
}

/* A number, or a list of 1 to LDEM_CELL_CYCLIC_LEVELS numbers (`count` of them when count is
 * not 0), each > 0; *n is how many were given (1 for a number). */
static int positive_numbers(ctx *c, const ldem_sn *map, const char *key, uint32_t count,
                            double *out, uint32_t *n)
{
    const ldem_sn *v = ldem_sn_get(map, key);
    size_t mark = scene_key_push(c, key);
    int rc = LDEM_OK;
    if (v->kind == LDEM_SN_SEQUENCE) {
        if (v->count == 0 || v->count > LDEM_CELL_CYCLIC_LEVELS)
            rc = FAIL(c, v, "expected 1 to %d values, got %zu", LDEM_CELL_CYCLIC_LEVELS,
                      v->count);
        else if (count && v->count != count)
            rc = FAIL(c, v, "expected one value per amplitude (%u), got %zu", count, v->count);
        for (size_t i = 0; !rc && i < v->count; i++) {
            size_t m2 = scene_key_push_index(c, i);
            rc = scene_number(c, v->items[i], POSITIVE, &out[i]);
            scene_key_pop(c, m2);
        }
        *n = (uint32_t)v->count;
    } else {
        rc = scene_number(c, v, POSITIVE, &out[0]);
        *n = 1;
    }
    scene_key_pop(c, mark);
    return rc;
}

/* cyclic: {amplitude: A or [A0, A1, ...], period: T or [T0, T1, ...], cycles: n}
 * (ldem_cell_cyclic). */
static int parse_cyclic(ctx *c, const ldem_sn *n, ldem_cell_cyclic *cy)
{
    static const char *const keys[] = {"amplitude", "period", "cycles", NULL};
    int rc = scene_check_mapping(c, n, keys);
    if (!rc && !ldem_sn_get(n, "amplitude"))
        rc = scene_missing(c, n, "amplitude",
                           "the strain amplitude, > 0, or a list of them applied in turn");
    if (!rc)
        rc = positive_numbers(c, n, "amplitude", 0, cy->amplitude, &cy->levels);
    if (!rc && !ldem_sn_get(n, "period"))
        rc = scene_missing(c, n, "period",
                           "the time of one cycle, > 0, or a list of one per amplitude");
    uint32_t periods = 0;
    if (!rc)
        rc = positive_numbers(c, n, "period", ldem_sn_get(n, "period")->kind ==
                                                      LDEM_SN_SEQUENCE ? cy->levels : 0,
                              cy->period, &periods);
    for (uint32_t i = 1; !rc && periods == 1 && i < cy->levels; i++)
        cy->period[i] = cy->period[0];
    uint64_t cycles = 1;
    if (!rc)
        rc = scene_int_field_from(c, n, "cycles", 1, 1e9, &cycles);
    cy->cycles = (uint32_t)cycles;
    return rc;
}

/* x, y, z: {strain_rate: r}, {stress: s}, {mean_stress: p} or {cyclic: {...}}. */
static int parse_cell_direction(ctx *c, const ldem_sn *n, int k, ldem_cell_control *ctl)
{
    static const char *const keys[] = {"strain_rate", "stress", "mean_stress", "cyclic", NULL};
    int rc = scene_check_mapping(c, n, keys);
    int given = 0;
    for (int q = 0; !rc && keys[q]; q++)
        given += ldem_sn_get(n, keys[q]) != NULL;
    if (!rc && given != 1)
        rc = FAIL(c, n, "give exactly one of strain_rate (1/time, extension positive), stress "
                  "(the target, compression positive), mean_stress (the target of "
                  "(sxx + syy + szz)/3) and cyclic ({amplitude, period, cycles})");
    if (rc)
        return rc;
    if (ldem_sn_get(n, "strain_rate")) {
        ctl->drive[k] = LDEM_CELL_STRAIN_RATE;
        return scene_num_field(c, n, "strain_rate", ANY, NULL, &ctl->strain_rate[k]);
    }
    if (ldem_sn_get(n, "stress")) {
        ctl->drive[k] = LDEM_CELL_STRESS;
        return scene_num_field(c, n, "stress", ANY, NULL, &ctl->stress[k]);
    }
    if (ldem_sn_get(n, "mean_stress")) {
        ctl->drive[k] = LDEM_CELL_MEAN_STRESS;
        return scene_num_field(c, n, "mean_stress", ANY, NULL, &ctl->stress[k]);
    }
    ctl->drive[k] = LDEM_CELL_CYCLIC;
    size_t mark = scene_key_push(c, "cyclic");
    const ldem_sn *cyclic = ldem_sn_get(n, "cyclic");
    char buf[80];
    rc = cyclic->kind == LDEM_SN_MAPPING
             ? parse_cyclic(c, cyclic, &ctl->cyclic[k])
             : FAIL(c, cyclic, "expected a mapping {amplitude: A, period: T, cycles: n}, got %s",
                    scene_looks(cyclic, buf, sizeof buf));
    scene_key_pop(c, mark);
    return rc;
}

int scene_parse_cell(ctx *c, const ldem_sn *root)
{
    static const char *const keys[] = {"box", "vectors", "centre", "x", "y", "z", "servo",
                                       NULL};
    static const char *const servo_keys[] = {"gain", "integral", "max_strain_rate", NULL};
    static const char *const axes[] = {"x", "y", "z"};
    const ldem_sn *n = ldem_sn_get(root, "cell");
    if (!n)
        return LDEM_OK;
    ldem_scene_cell *cell = &c->s->cell;
    size_t mark = scene_key_push(c, "cell");
    int rc = scene_check_mapping(c, n, keys);
    cell->given = 1;
    cell->line = n->from_set ? 0 : n->line;
    cell->control.gain = 0.05;
    if (!rc)
        rc = parse_cell_geometry(c, n, cell);
    int stress_driven = 0, mean_driven = 0;
    for (int k = 0; !rc && k < 3; k++) {
        const ldem_sn *d = ldem_sn_get(n, axes[k]);
        if (!d)
            continue;
        size_t m2 = scene_key_push(c, axes[k]);
        rc = parse_cell_direction(c, d, k, &cell->control);
        int mean = cell->control.drive[k] == LDEM_CELL_MEAN_STRESS;
        if (!rc && mean && mean_driven)
            rc = FAIL(c, d, "only one direction can hold the mean stress (another one already "
                      "does)");
        mean_driven |= mean;
        stress_driven |= mean || cell->control.drive[k] == LDEM_CELL_STRESS;
        scene_key_pop(c, m2);
    }
    const ldem_sn *servo = ldem_sn_get(n, "servo");
    if (!rc && stress_driven && !servo)
        rc = FAIL(c, n, "a stress-controlled direction needs servo: {max_strain_rate: r} (the "
                  "cap on its strain rate, > 0; gain defaults to 0.05)");
    if (!rc && servo) {
        size_t m2 = scene_key_push(c, "servo");
        rc = scene_check_mapping(c, servo, servo_keys);
        if (!rc)
            rc = scene_num_field(c, servo, "gain", (range){0.0, 1.0, 1, 0}, NULL,
                           &cell->control.gain);
        if (!rc)
            rc = scene_num_field(c, servo, "integral", (range){0.0, 1.0, 0, 1}, NULL,
                                 &cell->control.integral);
        if (!rc)
            rc = scene_num_field(c, servo, "max_strain_rate", POSITIVE,
                           "the cap on a stress-controlled direction's strain rate, > 0",
                           &cell->control.max_rate);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}
