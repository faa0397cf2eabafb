/* scene_parse.h — private to the scene parser (scene*.c): the walk's context, and the checks
 * every part of the schema shares.
 *
 * Every message reads "FILE:LINE: dotted.key: what is wrong, what is expected": the walk
 * keeps the dotted path of the node it is in (ctx.key), and each node knows its line and
 * whether it came from --set. The helpers below check one node or one field of a mapping,
 * report through FAIL and return an ldem status.
 */
#ifndef LDEM_SIM_SCENE_PARSE_H
#define LDEM_SIM_SCENE_PARSE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ldem/log.h"
#include "ldem/sim/scene.h"
#include "scene_tree.h"

/* A lattice or a TSV file larger than this is almost surely a typo (and would be tens of GB). */
#define SCENE_MAX_GRAINS 100000000u
/* Integers written in a scene (steps, counts, seeds) must be exact doubles. */
#define SCENE_MAX_INTEGER 9007199254740992.0
/* What one grain costs, for refusing a lattice or a generate entry before it is expanded:
 * its placement, its body in the world (~300 bytes of structure of arrays), and its share of
 * the broad phase and of the contact list with Jäger histories, about 1 KiB at a dense
 * packing's ~6 contacts a sphere. An estimate to refuse absurd counts with, not a bound. */
#define SCENE_BYTES_PER_GRAIN (sizeof(ldem_scene_grain) + 300u + 1024u)

typedef struct ctx {
    ldem_scene *s;
    ldem_err *err;
    char key[320];     /* dotted path of the node being checked */
    size_t len;
} ctx;

/* An interval of accepted numbers, each end open or closed. */
typedef struct range {
    double lo, hi;
    int lo_open, hi_open;
} range;

static const range ANY = {-INFINITY, INFINITY, 0, 0};
static const range POSITIVE = {0.0, INFINITY, 1, 0};
static const range NONNEGATIVE = {0.0, INFINITY, 0, 0};

/* ---- the dotted key (scene_fields.c) ---- */

/* Append a segment (or "[index]") to the key; returns the mark scene_key_pop restores. */
size_t scene_key_push(ctx *c, const char *seg);
size_t scene_key_push_index(ctx *c, size_t index);
void scene_key_pop(ctx *c, size_t mark);

/* ---- messages ---- */

int scene_fail_at(ctx *c, int from_set, long line, const char *fmt, ...) LDEM_PRINTF(4, 5);
#define FAIL(c, node, ...) scene_fail_at((c), (node)->from_set, (node)->line, __VA_ARGS__)
int scene_nomem(ctx *c);
/* How a node looks, for "expected X, got Y". */
const char *scene_looks(const ldem_sn *n, char *buf, size_t size);

/* ---- scalars ---- */

int scene_number(ctx *c, const ldem_sn *n, range r, double *out);
int scene_text(ctx *c, const ldem_sn *n, const char *what, const char **out);
/* exactly `count` numbers; `form` names them in the message */
int scene_numbers(ctx *c, const ldem_sn *n, size_t count, const char *form, double *out);
int scene_vec3(ctx *c, const ldem_sn *n, ldem_vec3 *out);
int scene_quaternion(ctx *c, const ldem_sn *n, double q[4]);

/* ---- mappings ---- */

void scene_join_names(const char *const *names, char *buf, size_t size);
/* A mapping whose keys are all in the NULL-terminated `accepted`. */
int scene_check_mapping(ctx *c, const ldem_sn *n, const char *const *accepted);
int scene_missing(ctx *c, const ldem_sn *map, const char *key, const char *what);
/* Optional fields: absent leaves *out as it is. */
int scene_num_field(ctx *c, const ldem_sn *map, const char *key, range r, const char *what,
                    double *out);
int scene_int_field(ctx *c, const ldem_sn *map, const char *key, double max, uint64_t *out);
int scene_int_field_from(ctx *c, const ldem_sn *map, const char *key, uint64_t least,
                         double max, uint64_t *out);
int scene_bool_field(ctx *c, const ldem_sn *map, const char *key, int *out);
int scene_vec3_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                     ldem_vec3 *out);
int scene_unit_field(ctx *c, const ldem_sn *map, const char *key, const char *what,
                     ldem_vec3 *out);
int scene_dup_into(ctx *c, const char *s, char **out);
/* Room for `count` elements of `size` bytes in *p, doubling *capacity. */
int scene_grow(ctx *c, void **p, size_t count, size_t *capacity, size_t size);

/* ---- shared by the grains, walls and shapes (scene.c) ---- */

/* A path relative to the scene file's directory. */
int scene_resolve(ctx *c, const char *rel, char **out);
/* `material:` / `shape:` of an entry: a defined name (material may be left out when the
 * scene has exactly one). */
int scene_material_ref(ctx *c, const ldem_sn *map, uint32_t *out);
int scene_shape_ref(ctx *c, const ldem_sn *map, uint32_t *out);
/* A grain entry's `modes:` and `deformable:`. */
int scene_parse_grain_modes(ctx *c, const ldem_sn *entry, ldem_scene_grain *g);

/* A bundle shape's rigid geometry (level set, nodes, volume, bounding radius), loaded as the
 * world's build loads it: for placing grains by their true shapes while the scene loads.
 * Free with ldem_lset_free and ldem_nodes_free. */
struct ldem_shape;
int ldem__scene_shape_geometry(const ldem_scene *s, size_t k, struct ldem_shape *out,
                               ldem_err *err);

/* The grains of a `generate:` entry (scene_generate.c): *out (malloc'd) holds *n grains. */
int scene_generate_entry(ctx *c, uint32_t entry, const ldem_sn *m, ldem_scene_grain **out,
                         size_t *n);

/* ---- the blocks parsed in their own files ---- */

int scene_parse_grains(ctx *c, const ldem_sn *root);  /* scene_grains.c */
int scene_parse_walls(ctx *c, const ldem_sn *root);   /* scene_bounds.c */
int scene_parse_cell(ctx *c, const ldem_sn *root);    /* scene_bounds.c */
int scene_parse_stages(ctx *c, const ldem_sn *root);  /* scene_stages.c (after the walls) */
/* Apply the `set:` of stages 0..upto to the tree (their errors name `file` and the key's
 * line). */
int scene_apply_stage_sets(ldem_sn *root, const char *file, size_t upto, ldem_err *err);

#endif
