/* scene_set.c — `--set key=value` overrides applied to the scene tree before it is checked.
 *
 * The key is a dotted path: mapping keys (created when absent, so `damping.local=0.2` works
 * on a file without a damping block) and sequence indices (which must exist: an override
 * changes a scene, it does not invent list entries whose other fields nobody wrote). The value
 * is parsed as one YAML node, so `[0,0,-1]`, `{E: 7e10}`, `1e-6` and `auto` all work. The
 * schema check that follows treats the new values like any other and names "--set" in its
 * messages.
 */
#include "scene_tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/log.h"

/* Where an override was written: the command line's --set, or a stage's `set:` key in the
 * scene file (whose mistakes are the file's: LDEM_ERR_INPUT at FILE:LINE). */
typedef struct origin {
    const char *file; /* NULL: --set */
    long line;
    ldem_err *err;
} origin;

static int set_error(const origin *o, const char *key, const char *fmt, ...) LDEM_PRINTF(3, 4);

static int set_error(const origin *o, const char *key, const char *fmt, ...)
{
    char msg[LDEM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->file)
        return ldem_err_set(o->err, LDEM_ERR_INPUT, o->file, o->line, "%.200s: %.280s", key,
                            msg);
    return ldem_err_set(o->err, LDEM_ERR_USAGE, "--set", 0, "%.200s: %.280s", key, msg);
}

/* A sequence index: decimal digits only. */
static int parse_index(const char *seg, size_t *index)
{
    if (!*seg || strlen(seg) > 9)
        return 0;
    for (const char *p = seg; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    *index = (size_t)strtoul(seg, NULL, 10);
    return 1;
}

/* The node `seg` names inside `parent`: *slot receives where it lives (NULL when a mapping
 * key is absent). `path` is the key so far, for messages. */
static int locate(ldem_sn *parent, const char *seg, const char *path, ldem_sn ***slot,
                  const origin *err)
{
    *slot = NULL;
    if (parent->kind == LDEM_SN_MAPPING) {
        long k = ldem_sn_find(parent, seg);
        if (k >= 0)
            *slot = &parent->items[k];
        return LDEM_OK;
    }
    if (parent->kind == LDEM_SN_SEQUENCE) {
        size_t index;
        if (!parse_index(seg, &index))
            return set_error(err, path, "'%.60s' is not a list index (the list has %zu "
                             "entries, numbered from 0)", seg, parent->count);
        if (index >= parent->count)
            return set_error(err, path, "there is no entry %.60s (the list has %zu entries, "
                             "numbered from 0)", seg, parent->count);
        *slot = &parent->items[index];
        return LDEM_OK;
    }
    return set_error(err, path, "cannot go into '%.60s': the value there is '%.100s', not a "
                     "mapping or list", seg, parent->text);
}

/* Split "a.b.c" into segments in place; refuses empty segments. */
static int split_key(char *key, char **segs, size_t max, size_t *n)
{
    *n = 0;
    for (char *p = key;;) {
        char *dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        if (!*p || *n == max)
            return 0;
        segs[(*n)++] = p;
        if (!dot)
            return 1;
        p = dot + 1;
    }
}

#define SET_MAX_DEPTH 32

/* Put the override at `key`: `value` is YAML text (--set) or, when text is NULL, the node
 * *node (a stage's value, owned: freed on failure). */
static int apply(ldem_sn *root, char *key, const char *value, ldem_sn *node_value,
                 const origin *o)
{
    ldem_err *err = o->err;
    char *full = strdup(key);   /* key is split in place below; keep it whole for messages */
    char *segs[SET_MAX_DEPTH];
    size_t nseg;
    int rc = LDEM_OK;
    if (!full) {
        ldem_sn_free(node_value);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    if (!split_key(key, segs, SET_MAX_DEPTH, &nseg)) {
        rc = set_error(o, full, "expected a dotted key such as time.dt or walls.0.velocity");
        goto out;
    }
    ldem_sn *node = root;
    for (size_t k = 0; k < nseg && !rc; k++) {
        ldem_sn **slot;
        rc = locate(node, segs[k], full, &slot, o);
        if (rc)
            break;
        if (k + 1 == nseg) {
            ldem_sn *v = node_value;
            node_value = NULL;
            if (value)
                rc = ldem_sn_parse_set_value(value, full, &v, err);
            if (rc)
                break;
            if (slot) {
                ldem_sn_free(*slot);
                *slot = v;
            } else {
                rc = ldem_sn_put(node, segs[k], 0, v, err);
            }
        } else if (slot) {
            node = *slot;
        } else {
            ldem_sn *m = ldem_sn_new(LDEM_SN_MAPPING, 0, 1);
            if (!m) {
                rc = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
                break;
            }
            rc = ldem_sn_put(node, segs[k], 0, m, err);
            node = m;
        }
    }
out:
    ldem_sn_free(node_value);
    free(full);
    return rc;
}

int ldem_sn_apply_set(ldem_sn *root, const char *assignment, ldem_err *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return ldem_err_set(err, LDEM_ERR_USAGE, "--set", 0,
                            "'%.200s': expected key=value, e.g. time.dt=1e-6", assignment);
    char *key = strndup(assignment, (size_t)(eq - assignment));
    if (!key)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    origin o = {NULL, 0, err};
    int rc = apply(root, key, eq + 1, NULL, &o);
    free(key);
    return rc;
}

int ldem_sn_apply_node(ldem_sn *root, const char *key, ldem_sn *value, const char *file,
                       long line, ldem_err *err)
{
    char *k = strdup(key);
    if (!k) {
        ldem_sn_free(value);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    origin o = {file, line, err};
    int rc = apply(root, k, NULL, value, &o);
    free(k);
    return rc;
}
