/* scene_fields.c — the checks every part of the scene schema shares (scene_parse.h): the
 * dotted key, messages, scalars and the fields of a mapping.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scene_parse.h"

/* ---- the dotted key ---- */

size_t scene_key_push(ctx *c, const char *seg)
{
    size_t mark = c->len;
    int n = snprintf(c->key + c->len, sizeof c->key - c->len, "%s%s", c->len ? "." : "", seg);
    if (n > 0)
        c->len = c->len + (size_t)n < sizeof c->key ? c->len + (size_t)n : sizeof c->key - 1;
    return mark;
}

size_t scene_key_push_index(ctx *c, size_t index)
{
    char seg[24];
    snprintf(seg, sizeof seg, "%zu", index);
    return scene_key_push(c, seg);
}

void scene_key_pop(ctx *c, size_t mark)
{
    c->len = mark;
    c->key[mark] = '\0';
}

/* ---- messages ---- */

int scene_fail_at(ctx *c, int from_set, long line, const char *fmt, ...)
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

int scene_nomem(ctx *c)
{
    return ldem_err_set(c->err, LDEM_ERR_NOMEM, NULL, 0, "out of memory reading the scene");
}

/* How a node looks, for "expected X, got Y". */
const char *scene_looks(const ldem_sn *n, char *buf, size_t size)
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

int scene_number(ctx *c, const ldem_sn *n, range r, double *out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SCALAR || ldem_sn_is_null(n))
        return FAIL(c, n, "expected a number, got %s", scene_looks(n, buf, sizeof buf));
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
    int rc = scene_number(c, n, NONNEGATIVE, &v);
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
    return FAIL(c, n, "expected true or false, got %s", scene_looks(n, buf, sizeof buf));
}

/* A non-empty string (names, paths). */
int scene_text(ctx *c, const ldem_sn *n, const char *what, const char **out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SCALAR || ldem_sn_is_null(n) || !n->text[0])
        return FAIL(c, n, "expected %s, got %s", what, scene_looks(n, buf, sizeof buf));
    *out = n->text;
    return LDEM_OK;
}

/* A list of exactly `count` numbers. */
int scene_numbers(ctx *c, const ldem_sn *n, size_t count, const char *form, double *out)
{
    char buf[80];
    if (n->kind != LDEM_SN_SEQUENCE)
        return FAIL(c, n, "expected a list of %zu numbers %s, got %s", count, form,
                    scene_looks(n, buf, sizeof buf));
    if (n->count != count)
        return FAIL(c, n, "expected a list of %zu numbers %s, got %zu", count, form, n->count);
    for (size_t k = 0; k < count; k++) {
        size_t mark = scene_key_push_index(c, k);
        int rc = scene_number(c, n->items[k], ANY, &out[k]);
        scene_key_pop(c, mark);
        if (rc)
            return rc;
    }
    return LDEM_OK;
}

int scene_vec3(ctx *c, const ldem_sn *n, ldem_vec3 *out)
{
    double v[3];
    int rc = scene_numbers(c, n, 3, "[x, y, z]", v);
    if (!rc)
        *out = ldem_vec3_make(v[0], v[1], v[2]);
    return rc;
}

static int unit_vec3(ctx *c, const ldem_sn *n, ldem_vec3 *out)
{
    int rc = scene_vec3(c, n, out);
    if (rc)
        return rc;
    double len = ldem_vec3_norm(*out);
    if (!(len > 0.0) || !isfinite(len))
        return FAIL(c, n, "must be a nonzero direction, got [%g, %g, %g]", out->x, out->y,
                    out->z);
    *out = ldem_vec3_scale(*out, 1.0 / len);
    return LDEM_OK;
}

int scene_quaternion(ctx *c, const ldem_sn *n, double q[4])
{
    int rc = scene_numbers(c, n, 4, "[w, x, y, z]", q);
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

void scene_join_names(const char *const *names, char *buf, size_t size)
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
int scene_check_mapping(ctx *c, const ldem_sn *n, const char *const *accepted)
{
    char list[256];
    scene_join_names(accepted, list, sizeof list);
    if (n->kind != LDEM_SN_MAPPING) {
        char buf[80];
        return FAIL(c, n, "expected a mapping with keys %s, got %s", list,
                    scene_looks(n, buf, sizeof buf));
    }
    for (size_t k = 0; k < n->count; k++) {
        int known = 0;
        for (size_t a = 0; accepted[a] && !known; a++)
            known = strcmp(n->keys[k], accepted[a]) == 0;
        if (!known) {
            size_t mark = scene_key_push(c, n->keys[k]);
            int rc = scene_fail_at(c, n->items[k]->from_set, n->key_lines[k],
                             "unknown key; accepted: %s", list);
            scene_key_pop(c, mark);
            return rc;
        }
    }
    return LDEM_OK;
}

int scene_missing(ctx *c, const ldem_sn *map, const char *key, const char *what)
{
    return FAIL(c, map, "missing '%s' (%s)", key, what);
}

/* Optional number under `key` (out untouched when absent); required when `what` is given. */
int scene_num_field(ctx *c, const ldem_sn *map, const char *key, range r, const char *what,
                     double *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return what ? scene_missing(c, map, key, what) : LDEM_OK;
    size_t mark = scene_key_push(c, key);
    int rc = scene_number(c, n, r, out);
    scene_key_pop(c, mark);
    return rc;
}

int scene_int_field(ctx *c, const ldem_sn *map, const char *key, double max, uint64_t *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return LDEM_OK;
    size_t mark = scene_key_push(c, key);
    int rc = integer(c, n, max, out);
    scene_key_pop(c, mark);
    return rc;
}

/* int_field with a smallest allowed value. */
int scene_int_field_from(ctx *c, const ldem_sn *map, const char *key, uint64_t least,
                          double max, uint64_t *out)
{
    int rc = scene_int_field(c, map, key, max, out);
    if (!rc && *out < least) {
        size_t mark = scene_key_push(c, key);
        rc = FAIL(c, ldem_sn_get(map, key), "expected a whole number >= %llu, got %llu",
                  (unsigned long long)least, (unsigned long long)*out);
        scene_key_pop(c, mark);
    }
    return rc;
}

int scene_bool_field(ctx *c, const ldem_sn *map, const char *key, int *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return LDEM_OK;
    size_t mark = scene_key_push(c, key);
    int rc = boolean(c, n, out);
    scene_key_pop(c, mark);
    return rc;
}

int scene_vec3_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                      ldem_vec3 *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return what ? scene_missing(c, map, key, what) : LDEM_OK;
    size_t mark = scene_key_push(c, key);
    int rc = scene_vec3(c, n, out);
    scene_key_pop(c, mark);
    return rc;
}

int scene_unit_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                      ldem_vec3 *out)
{
    const ldem_sn *n = ldem_sn_get(map, key);
    if (!n)
        return scene_missing(c, map, key, what);
    size_t mark = scene_key_push(c, key);
    int rc = unit_vec3(c, n, out);
    scene_key_pop(c, mark);
    return rc;
}

/* A copy of `s` (NULL stays NULL). */
int scene_dup_into(ctx *c, const char *s, char **out)
{
    *out = strdup(s);
    return *out ? LDEM_OK : scene_nomem(c);
}

/* Grow an array of `size`-byte items to hold one more. */
int scene_grow(ctx *c, void **p, size_t count, size_t *capacity, size_t size)
{
    if (count < *capacity)
        return LDEM_OK;
    size_t cap = *capacity ? 2 * *capacity : 8;
    void *q = realloc(*p, cap * size);
    if (!q)
        return scene_nomem(c);
    memset((char *)q + count * size, 0, (cap - count) * size);
    *p = q;
    *capacity = cap;
    return LDEM_OK;
}
