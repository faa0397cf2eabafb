/* scene_tree.h — private to the scene loader: a YAML document as a small tree of nodes that
 * remember their line, so every later check can point at FILE:LINE.
 *
 * Only what scene files need: mappings (keys unique, kept in file order), sequences and
 * scalars (text as written). Anchors, aliases and multi-document streams are refused. Values
 * that came from `--set` are marked `from_set` with line 0, so messages name "--set" instead
 * of the scene file.
 */
#ifndef LDEM_SIM_SCENE_TREE_H
#define LDEM_SIM_SCENE_TREE_H

#include <stddef.h>

#include "ldem/err.h"

enum ldem_sn_kind { LDEM_SN_SCALAR = 0, LDEM_SN_MAPPING = 1, LDEM_SN_SEQUENCE = 2 };

typedef struct ldem_sn {
    int kind;               /* enum ldem_sn_kind */
    long line;              /* 1-based line where the node starts; 0 for --set values */
    int from_set;           /* the node came from a --set override */
    int plain;              /* scalar written without quotes (so `~` and `` are null) */
    char *text;             /* scalar text (NUL-terminated) */
    size_t count, capacity; /* mapping entries or sequence items */
    char **keys;            /* mapping: keys[k] names items[k] */
    long *key_lines;        /* mapping: line of each key */
    struct ldem_sn **items;
} ldem_sn;

/* Parse a whole YAML file. An empty document gives an empty mapping. */
int ldem_sn_parse_file(const char *path, ldem_sn **root, ldem_err *err);

/* Parse `text` as one YAML node (flow style works: "[0, 0, -1]", "{E: 1e9}", "auto"); every
 * node is marked as coming from --set. An empty text gives a null scalar. `what` labels
 * errors (the --set key). */
int ldem_sn_parse_set_value(const char *text, const char *what, ldem_sn **node, ldem_err *err);

void ldem_sn_free(ldem_sn *n);

/* A new empty node of `kind` (NULL when out of memory). */
ldem_sn *ldem_sn_new(int kind, long line, int from_set);

/* Mapping lookup: the item under `key` or NULL; its slot or -1. */
ldem_sn *ldem_sn_get(const ldem_sn *map, const char *key);
long ldem_sn_find(const ldem_sn *map, const char *key);

/* Add `child` under `key`, or replace (and free) the node already there. Takes ownership of
 * `child` even on failure. */
int ldem_sn_put(ldem_sn *map, const char *key, long key_line, ldem_sn *child, ldem_err *err);

/* Whether a scalar is YAML's null: a plain empty, `~` or `null`. */
int ldem_sn_is_null(const ldem_sn *n);

/* Apply one `key=value` override (scene_set.c). Mapping keys along the path are created
 * when absent; sequence indices must exist. Errors name "--set" and the key. */
int ldem_sn_apply_set(ldem_sn *root, const char *assignment, ldem_err *err);

/* The same with the value a node (taken over, freed on failure): a stage's `set:` entry,
 * written at FILE:LINE, which its errors then name (scene_stages.c). */
int ldem_sn_apply_node(ldem_sn *root, const char *key, ldem_sn *value, const char *file,
                       long line, ldem_err *err);

#endif
