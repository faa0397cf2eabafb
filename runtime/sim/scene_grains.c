/* scene_grains.c — the grains block of a scene (docs/scene.md): explicit grains, lattices and
 * TSV placements, expanded here into a flat list of grains.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/infile.h"
#include "ldem/memory_budget.h"
#include "ldem/sim/generate.h"
#include "ldem/tsv.h"
#include "scene_parse.h"

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
    int rc = scene_grow(c, (void **)&s->grains, s->ngrains, &gl->capacity, sizeof *s->grains);
    if (rc)
        return rc;
    *g = &s->grains[s->ngrains++];
    (*g)->q[0] = 1.0;
    (*g)->entry = entry;
    (*g)->line = line;
    return LDEM_OK;
}

/* What every grain of an entry is: its modes, shape and material. */
static int grain_kind(ctx *c, const ldem_sn *m, ldem_scene_grain *g)
{
    int rc = scene_parse_grain_modes(c, m, g);
    if (!rc)
        rc = scene_shape_ref(c, m, &g->shape);
    if (!rc)
        rc = scene_material_ref(c, m, &g->material);
    return rc;
}

static int parse_explicit_grain(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    static const char *const keys[] = {"shape", "material", "position", "velocity",
                                       "orientation", "angular_velocity", "fixed", "radius",
                                       "deformable", "modes", NULL};
    ldem_scene_grain g = {.q = {1.0, 0.0, 0.0, 0.0}};
    int rc = scene_check_mapping(c, m, keys);
    if (!rc)
        rc = grain_kind(c, m, &g);
    if (!rc)
        rc = scene_vec3_field(c, m, "position", "the centre [x, y, z]", &g.x);
    if (!rc)
        rc = scene_vec3_field(c, m, "velocity", NULL, &g.v);
    if (!rc)
        rc = scene_vec3_field(c, m, "angular_velocity", NULL, &g.omega);
    const ldem_sn *q = ldem_sn_get(m, "orientation");
    if (!rc && q) {
        size_t mark = scene_key_push(c, "orientation");
        rc = scene_quaternion(c, q, g.q);
        scene_key_pop(c, mark);
    }
    if (!rc)
        rc = scene_bool_field(c, m, "fixed", &g.fixed);
    const ldem_sn *r = ldem_sn_get(m, "radius");
    if (!rc && r) {
        rc = scene_num_field(c, m, "radius", POSITIVE, NULL, &g.radius);
        if (!rc && c->s->shapes[g.shape].kind != LDEM_SHAPE_SPHERE) {
            size_t mark = scene_key_push(c, "radius");
            rc = FAIL(c, r, "applies to sphere shapes only; '%s' is a bundle",
                      c->s->shapes[g.shape].name);
            scene_key_pop(c, mark);
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

/* Uniform in [−1, 1). */
static double jitter_unit(uint64_t *state)
{
    return 2.0 * ((double)(ldem_splitmix64(state) >> 11) * 0x1.0p-53) - 1.0;
}

static int parse_spacing(ctx *c, const ldem_sn *m, double spacing[3])
{
    const ldem_sn *n = ldem_sn_get(m, "spacing");
    if (!n)
        return scene_missing(c, m, "spacing",
                             "the distance between lattice sites, s or [sx, sy, sz]");
    size_t mark = scene_key_push(c, "spacing");
    int rc;
    if (n->kind == LDEM_SN_SEQUENCE) {
        rc = scene_numbers(c, n, 3, "[sx, sy, sz]", spacing);
        for (int k = 0; !rc && k < 3; k++)
            if (!(spacing[k] > 0.0))
                rc = FAIL(c, n, "must be > 0 along each axis, got [%g, %g, %g]", spacing[0],
                          spacing[1], spacing[2]);
    } else {
        rc = scene_number(c, n, POSITIVE, &spacing[0]);
        spacing[1] = spacing[2] = spacing[0];
    }
    scene_key_pop(c, mark);
    return rc;
}

static int parse_count(ctx *c, const ldem_sn *m, uint64_t count[3])
{
    const ldem_sn *n = ldem_sn_get(m, "count");
    if (!n)
        return scene_missing(c, m, "count", "sites along each axis, [nx, ny, nz]");
    size_t mark = scene_key_push(c, "count");
    double v[3];
    int rc = scene_numbers(c, n, 3, "[nx, ny, nz]", v);
    for (int k = 0; !rc && k < 3; k++) {
        /* Range first: converting an out-of-range double to an integer is undefined. */
        if (!(v[k] >= 1.0) || v[k] != floor(v[k]) || v[k] > SCENE_MAX_GRAINS)
            rc = FAIL(c, n, "expected three whole numbers >= 1, got [%g, %g, %g]", v[0], v[1],
                      v[2]);
        else
            count[k] = (uint64_t)v[k];
    }
    if (!rc && (double)count[0] * (double)count[1] * (double)count[2] > SCENE_MAX_GRAINS)
        rc = FAIL(c, n, "%g sites: at most %u grains", v[0] * v[1] * v[2], SCENE_MAX_GRAINS);
    if (!rc) { /* the grains before it and these, as placed and then as bodies in the world */
        uint64_t grains = ldem_memory_add(c->s->ngrains,
                                          ldem_memory_mul(ldem_memory_mul(count[0], count[1]),
                                                          count[2]));
        rc = ldem_memory_check(c->s->max_memory,
                               ldem_memory_mul(grains, SCENE_BYTES_PER_GRAIN),
                               n->from_set ? "--set" : c->s->path, n->from_set ? 0 : n->line,
                               c->key, c->err);
    }
    scene_key_pop(c, mark);
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
    int rc = scene_check_mapping(c, m, keys);
    if (!rc)
        rc = grain_kind(c, m, &g);
    if (!rc)
        rc = scene_vec3_field(c, m, "origin", "the first site [x, y, z]", &origin);
    if (!rc)
        rc = parse_spacing(c, m, spacing);
    if (!rc)
        rc = parse_count(c, m, count);
    if (!rc)
        rc = scene_vec3_field(c, m, "velocity", NULL, &g.v);
    if (!rc)
        rc = scene_num_field(c, m, "jitter", NONNEGATIVE, NULL, &jitter);
    if (!rc)
        rc = scene_int_field(c, m, "seed", SCENE_MAX_INTEGER, &seed);
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
        scene_join_names(names, list, sizeof list);
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
    scene_join_names(TSV_COLUMNS, list, sizeof list);
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
        return scene_nomem(c);
    s->sources = p;
    int rc = scene_dup_into(c, path, &s->sources[s->nsources]);
    if (!rc)
        *index = (uint32_t)++s->nsources;
    return rc;
}

/* A file that will not open is the scene's mistake (named at the path's line); what is wrong
 * inside it is named at the TSV's own line. */
static int read_table(ctx *c, const ldem_sn *node, const char *path, ldem_table *t)
{
    FILE *fp = ldem_fopen_input(path);
    if (!fp) {
        size_t mark = scene_key_push(c, "path");
        int rc = FAIL(c, node, "cannot open '%.200s': %s", path, strerror(errno));
        scene_key_pop(c, mark);
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
    int rc = scene_check_mapping(c, m, keys);
    if (!rc)
        rc = scene_parse_grain_modes(c, m, &g);
    const ldem_sn *p = rc ? NULL : ldem_sn_get(m, "path");
    if (!rc && !p)
        rc = scene_missing(c, m, "path", "a TSV file of positions with a header row x y z ...");
    if (!rc) {
        size_t mark = scene_key_push(c, "path");
        rc = scene_text(c, p, "a TSV file", &rel);
        scene_key_pop(c, mark);
    }
    if (!rc)
        rc = scene_shape_ref(c, m, &g.shape);
    if (!rc)
        rc = scene_material_ref(c, m, &g.material);
    if (!rc)
        rc = scene_resolve(c, rel, &path);
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

/* A generate: entry's grains (scene_generate.c), appended in the order it placed them. */
static int parse_generated(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    ldem_scene_grain *made = NULL;
    size_t n = 0;
    int rc = scene_generate_entry(c, entry, m, &made, &n);
    for (size_t k = 0; !rc && k < n; k++) {
        ldem_scene_grain *slot;
        rc = new_grain(c, gl, entry, made[k].line, &slot);
        if (!rc)
            *slot = made[k];
    }
    free(made);
    return rc;
}

static int parse_grain_entry(ctx *c, grain_list *gl, uint32_t entry, const ldem_sn *m)
{
    const char *kind = NULL;
    if (m->kind == LDEM_SN_MAPPING && m->count >= 1 &&
        (ldem_sn_get(m, "lattice") || ldem_sn_get(m, "file") || ldem_sn_get(m, "generate")))
        kind = ldem_sn_get(m, "lattice") ? "lattice"
               : ldem_sn_get(m, "file")  ? "file"
                                         : "generate";
    if (!kind) {
        if (m->kind != LDEM_SN_MAPPING) {
            char buf[80];
            return FAIL(c, m,
                        "expected a grain {shape, material, position, ...}, a "
                        "{lattice: {...}}, a {file: {...}} or a {generate: {...}}, got %s",
                        scene_looks(m, buf, sizeof buf));
        }
        return parse_explicit_grain(c, gl, entry, m);
    }
    if (m->count != 1) {
        const char *other = strcmp(m->keys[0], kind) == 0 ? m->keys[1] : m->keys[0];
        return FAIL(c, m, "a %s entry takes no other keys; '%s' belongs inside %s: {...}", kind,
                    other, kind);
    }
    size_t mark = scene_key_push(c, kind);
    int rc = strcmp(kind, "lattice") == 0 ? parse_lattice(c, gl, entry, m->items[0])
             : strcmp(kind, "file") == 0  ? parse_grain_file(c, gl, entry, m->items[0])
                                          : parse_generated(c, gl, entry, m->items[0]);
    scene_key_pop(c, mark);
    return rc;
}

int scene_parse_grains(ctx *c, const ldem_sn *root)
{
    const ldem_sn *list = ldem_sn_get(root, "grains");
    if (!list)
        return LDEM_OK;
    size_t mark = scene_key_push(c, "grains");
    char buf[80];
    int rc = list->kind == LDEM_SN_SEQUENCE
                 ? LDEM_OK
                 : FAIL(c, list, "expected a list of grains, lattices and files, got %s",
                        scene_looks(list, buf, sizeof buf));
    grain_list gl = {0};
    for (size_t k = 0; !rc && k < list->count; k++) {
        size_t m2 = scene_key_push_index(c, k);
        rc = parse_grain_entry(c, &gl, (uint32_t)k, list->items[k]);
        scene_key_pop(c, m2);
    }
    scene_key_pop(c, mark);
    return rc;
}
