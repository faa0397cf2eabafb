/* scene_tree.c — YAML (libyaml's event API) into the line-annotated tree of scene_tree.h.
 *
 * The event API rather than libyaml's document API: the tree must refuse duplicate keys,
 * anchors and aliases with the line they occur on, and keep its own nesting limit so that a
 * hostile file cannot exhaust the stack of a recursive walker later.
 */
#include "scene_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ldem/infile.h"

/* Deeper than any scene (the schema nests 4 levels); refusing more keeps the tree walkers'
 * recursion bounded. */
#define SN_MAX_DEPTH 64
/* Scene files are small; this only stops `demrun /dev/zero` from reading forever. */
#define SN_MAX_FILE_BYTES (64u << 20)

ldem_sn *ldem_sn_new(int kind, long line, int from_set)
{
    ldem_sn *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = line;
    n->from_set = from_set;
    return n;
}

void ldem_sn_free(ldem_sn *n)
{
    if (!n)
        return;
    for (size_t k = 0; k < n->count; k++) {
        ldem_sn_free(n->items[k]);
        if (n->keys)
            free(n->keys[k]);
    }
    free(n->items);
    free(n->keys);
    free(n->key_lines);
    free(n->text);
    free(n);
}

long ldem_sn_find(const ldem_sn *map, const char *key)
{
    if (!map || map->kind != LDEM_SN_MAPPING)
        return -1;
    for (size_t k = 0; k < map->count; k++)
        if (strcmp(map->keys[k], key) == 0)
            return (long)k;
    return -1;
}

ldem_sn *ldem_sn_get(const ldem_sn *map, const char *key)
{
    long k = ldem_sn_find(map, key);
    return k < 0 ? NULL : map->items[k];
}

int ldem_sn_is_null(const ldem_sn *n)
{
    return n->kind == LDEM_SN_SCALAR && n->plain &&
           (n->text[0] == '\0' || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
            strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0);
}

static int nomem(ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory reading the scene");
}

/* Room for one more item (and key, for mappings). */
static int reserve_one(ldem_sn *n)
{
    if (n->count < n->capacity)
        return 0;
    size_t cap = n->capacity ? 2 * n->capacity : 4;
    ldem_sn **items = realloc(n->items, cap * sizeof *items);
    if (!items)
        return -1;
    n->items = items;
    if (n->kind == LDEM_SN_MAPPING) {
        char **keys = realloc(n->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        n->keys = keys;
        long *lines = realloc(n->key_lines, cap * sizeof *lines);
        if (!lines)
            return -1;
        n->key_lines = lines;
    }
    n->capacity = cap;
    return 0;
}

int ldem_sn_put(ldem_sn *map, const char *key, long key_line, ldem_sn *child, ldem_err *err)
{
    long k = ldem_sn_find(map, key);
    if (k >= 0) {
        ldem_sn_free(map->items[k]);
        map->items[k] = child;
        map->key_lines[k] = key_line;
        return LDEM_OK;
    }
    char *copy = strdup(key);
    if (!copy || reserve_one(map)) {
        free(copy);
        ldem_sn_free(child);
        return nomem(err);
    }
    map->keys[map->count] = copy;
    map->key_lines[map->count] = key_line;
    map->items[map->count++] = child;
    return LDEM_OK;
}

static int push_item(ldem_sn *seq, ldem_sn *child, ldem_err *err)
{
    if (reserve_one(seq)) {
        ldem_sn_free(child);
        return nomem(err);
    }
    seq->items[seq->count++] = child;
    return LDEM_OK;
}

/* ---- building the tree from libyaml events ---- */

typedef struct frame {
    ldem_sn *node;
    char *key;        /* mapping: the key read, waiting for its value */
    long key_line;
} frame;

typedef struct builder {
    const char *file;    /* for messages: the scene path, or "--set" */
    const char *what;    /* --set: the key being set, prefixed to messages */
    int from_set;
    const char *text;    /* the input, to recognise a tab at an error position */
    size_t len;
    ldem_sn *root;
    frame stack[SN_MAX_DEPTH];
    int depth;
    int documents;
    ldem_err *err;
} builder;

static long line_of(const builder *b, yaml_mark_t m)
{
    return b->from_set ? 0 : (long)m.line + 1;
}

static int fail_at(builder *b, yaml_mark_t m, const char *msg, const char *detail)
{
    if (b->from_set)
        return ldem_err_set(b->err, LDEM_ERR_INPUT, "--set", 0, "%s: %s%s", b->what, msg,
                            detail);
    return ldem_err_set(b->err, LDEM_ERR_INPUT, b->file, line_of(b, m), "%s%s", msg, detail);
}

/* Attach a finished node to its parent (or make it the root). Takes ownership. */
static int attach(builder *b, ldem_sn *n)
{
    if (b->depth == 0) {
        b->root = n;
        return LDEM_OK;
    }
    frame *f = &b->stack[b->depth - 1];
    if (f->node->kind == LDEM_SN_SEQUENCE)
        return push_item(f->node, n, b->err);
    int rc = ldem_sn_put(f->node, f->key, f->key_line, n, b->err);
    free(f->key);
    f->key = NULL;
    return rc;
}

/* In a mapping waiting for a key, a scalar is that key. */
static int expecting_key(const builder *b)
{
    return b->depth > 0 && b->stack[b->depth - 1].node->kind == LDEM_SN_MAPPING &&
           !b->stack[b->depth - 1].key;
}

static int take_key(builder *b, const yaml_event_t *ev)
{
    frame *f = &b->stack[b->depth - 1];
    const char *key = (const char *)ev->data.scalar.value;
    long k = ldem_sn_find(f->node, key);
    if (k >= 0) {
        char msg[LDEM_ERR_MSG_MAX];
        if (b->from_set)
            snprintf(msg, sizeof msg, "duplicate key '%.200s'", key);
        else
            snprintf(msg, sizeof msg, "duplicate key '%.200s' (first given on line %ld)", key,
                     f->node->key_lines[k]);
        return fail_at(b, ev->start_mark, msg, "");
    }
    f->key = strdup(key);
    if (!f->key)
        return nomem(b->err);
    f->key_line = line_of(b, ev->start_mark);
    return LDEM_OK;
}

static int refuse_anchor(builder *b, const yaml_event_t *ev, const unsigned char *anchor)
{
    if (!anchor)
        return LDEM_OK;
    char msg[LDEM_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "YAML anchors (&%.100s) are not supported in scene files; "
             "write the value out", (const char *)anchor);
    return fail_at(b, ev->start_mark, msg, "");
}

static int on_scalar(builder *b, const yaml_event_t *ev)
{
    int rc = refuse_anchor(b, ev, ev->data.scalar.anchor);
    if (rc)
        return rc;
    if (expecting_key(b))
        return take_key(b, ev);
    ldem_sn *n = ldem_sn_new(LDEM_SN_SCALAR, line_of(b, ev->start_mark), b->from_set);
    if (!n)
        return nomem(b->err);
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    n->text = malloc(ev->data.scalar.length + 1);
    if (!n->text) {
        ldem_sn_free(n);
        return nomem(b->err);
    }
    memcpy(n->text, ev->data.scalar.value, ev->data.scalar.length);
    n->text[ev->data.scalar.length] = '\0';
    return attach(b, n);
}

static int on_collection_start(builder *b, const yaml_event_t *ev, int kind)
{
    const unsigned char *anchor = kind == LDEM_SN_MAPPING ? ev->data.mapping_start.anchor
                                                          : ev->data.sequence_start.anchor;
    int rc = refuse_anchor(b, ev, anchor);
    if (rc)
        return rc;
    if (expecting_key(b))
        return fail_at(b, ev->start_mark,
                       "a list or mapping cannot be a mapping key; keys are plain names", "");
    if (b->depth == SN_MAX_DEPTH)
        return fail_at(b, ev->start_mark, "nesting too deep for a scene file", "");
    ldem_sn *n = ldem_sn_new(kind, line_of(b, ev->start_mark), b->from_set);
    if (!n)
        return nomem(b->err);
    b->stack[b->depth++] = (frame){n, NULL, 0};
    return LDEM_OK;
}

static int on_collection_end(builder *b)
{
    frame f = b->stack[--b->depth];
    free(f.key);   /* libyaml never ends a mapping between a key and its value */
    return attach(b, f.node);
}

static int on_event(builder *b, const yaml_event_t *ev, int *done)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->documents > 1)
            return fail_at(b, ev->start_mark,
                           "a second YAML document ('---'): a scene file holds one", "");
        return LDEM_OK;
    case YAML_SCALAR_EVENT:
        return on_scalar(b, ev);
    case YAML_MAPPING_START_EVENT:
        return on_collection_start(b, ev, LDEM_SN_MAPPING);
    case YAML_SEQUENCE_START_EVENT:
        return on_collection_start(b, ev, LDEM_SN_SEQUENCE);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        return on_collection_end(b);
    case YAML_ALIAS_EVENT:
        return fail_at(b, ev->start_mark,
                       "YAML aliases (*name) are not supported in scene files; write the value "
                       "out", "");
    case YAML_STREAM_END_EVENT:
        *done = 1;
        return LDEM_OK;
    default:
        return LDEM_OK;
    }
}

/* libyaml's own words, where the construct it was reading began, and what a tab usually
 * means. */
static int syntax_error(builder *b, const yaml_parser_t *p)
{
    char detail[LDEM_ERR_MSG_MAX], began[64] = "";
    size_t at = p->problem_mark.index;
    int tab = b->text && at < b->len && b->text[at] == '\t';
    if (p->context && !b->from_set && p->context_mark.line != p->problem_mark.line)
        snprintf(began, sizeof began, " started on line %ld", (long)p->context_mark.line + 1);
    snprintf(detail, sizeof detail, "%.200s%s%.160s%s%s", p->problem ? p->problem : "error",
             p->context ? " " : "", p->context ? p->context : "", began,
             tab ? " (a tab: YAML indents with spaces only)" : "");
    return fail_at(b, p->problem_mark, "YAML syntax error: ", detail);
}

static void builder_release(builder *b)
{
    while (b->depth > 0) {
        frame *f = &b->stack[--b->depth];
        free(f->key);
        ldem_sn_free(f->node);
    }
    ldem_sn_free(b->root);
    b->root = NULL;
}

static int parse_text(builder *b, ldem_sn **root)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return nomem(b->err);
    yaml_parser_set_input_string(&p, (const unsigned char *)b->text, b->len);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
    int rc = LDEM_OK, done = 0;
    while (!rc && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(b, &p);
            break;
        }
        rc = on_event(b, &ev, &done);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (rc) {
        builder_release(b);
        return rc;
    }
    *root = b->root;
    return LDEM_OK;
}

static int read_all(const char *path, char **text, size_t *len, ldem_err *err)
{
    FILE *fp = ldem_fopen_input(path);
    if (!fp)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open the scene: %s",
                            strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? LDEM_OK : nomem(err);
    while (!rc) {
        if (n == cap) {
            char *bigger = cap < SN_MAX_FILE_BYTES ? realloc(buf, 2 * cap) : NULL;
            if (!bigger) {
                rc = cap < SN_MAX_FILE_BYTES
                         ? nomem(err)
                         : ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                        "larger than %u MiB: not a scene file",
                                        SN_MAX_FILE_BYTES >> 20);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp))
                rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "read error: %s", strerror(errno));
            break;
        }
    }
    fclose(fp);
    if (rc) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return LDEM_OK;
}

int ldem_sn_parse_file(const char *path, ldem_sn **root, ldem_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_all(path, &text, &len, err);
    if (rc)
        return rc;
    builder b = {.file = path, .text = text, .len = len, .err = err};
    *root = NULL;
    rc = parse_text(&b, root);
    free(text);
    if (rc)
        return rc;
    if (!*root) {
        *root = ldem_sn_new(LDEM_SN_MAPPING, 1, 0);
        if (!*root)
            return nomem(err);
    }
    return LDEM_OK;
}

int ldem_sn_parse_set_value(const char *text, const char *what, ldem_sn **node, ldem_err *err)
{
    builder b = {.file = "--set", .what = what, .from_set = 1, .text = text,
                 .len = strlen(text), .err = err};
    *node = NULL;
    int rc = parse_text(&b, node);
    if (rc)
        return rc;
    if (!*node) {
        /* An empty value: YAML's null, which the schema checks then refuse by name. */
        *node = ldem_sn_new(LDEM_SN_SCALAR, 0, 1);
        if (!*node || !((*node)->text = strdup(""))) {
            ldem_sn_free(*node);
            *node = NULL;
            return nomem(err);
        }
        (*node)->plain = 1;
    }
    return LDEM_OK;
}
