/* ldem/contact/law.h — one interface for every contact law (docs/adding-a-law.md).
 *
 * A law is a table of operations (ldem_law_ops) in one file under runtime/contact/, listed
 * once in the registry (runtime/contact/law_registry.c). The runtime never names a law: it
 * looks the scene's `model:` up in the registry, keeps each material pair's law as an
 * ldem_pair_law (the ops, the mixed elastic constants, friction and the law's own
 * parameters) and each contact's state as LDEM_LAW_STATE_BYTES opaque bytes, and calls the
 * ops. Laws come in two kinds, because the geometry they need differs:
 *
 *   PATCH  one force law at the contact patch: the contact loop hands the step the patch's
 *          overlap d and the tangential move ds of j's material point against i's in the
 *          contact frame, and takes back N and T in that frame (Hertz-type laws);
 *   NODES  a spring per penetrating surface node (Kawamoto's LS-DEM penalty): the loop hands
 *          each node's depth, normal and move to node_force and keeps a 3-vector per node.
 *
 * Parameters are declared in a table (ldem_law_param): the scene parser reads exactly those
 * keys, with their ranges, for that model, and refuses the others. Every op is a pure
 * function of its arguments: laws are unit-tested without a world.
 */
#ifndef LDEM_CONTACT_LAW_H
#define LDEM_CONTACT_LAW_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/err.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of law state in a contact record: the largest registered law's (Jäger's, with its
 * two held history cells and growing leg). Each law _Static_asserts that its state fits. */
#define LDEM_LAW_STATE_BYTES 200u
/* A law with pooled history keeps its stack's head (a pool index, uint32) at this byte of its
 * state, where the contact loop prefetches it from without asking which law the contact has
 * (the record's line that says so may not have come yet). Other laws' bytes there are
 * masked into the pool and only cost a useless prefetch. */
#define LDEM_LAW_HISTORY_HEAD_AT 108u
/* Most parameters a law may declare. */
#define LDEM_LAW_MAX_PARAMS 4u
/* Values a law's state and its extra state have in a checkpoint record (docs/checkpoint.md). */
#define LDEM_LAW_SAVED_VALUES 10u
#define LDEM_LAW_EXTRA_VALUES 12u

enum ldem_law_kind {
    LDEM_LAW_PATCH = 0,
    LDEM_LAW_NODES = 1
};

/* What a law declares about itself (ldem_law_ops.flags). */
enum ldem_law_flag {
    LDEM_LAW_FRICTION = 1u,       /* takes `friction:` (μ); others have μ = 0 */
    LDEM_LAW_NORMAL_DAMPING = 2u  /* takes `damping:` (ζ of the contact loop's normal damping
                                   * on the law's tangent stiffness; PATCH laws only) */
};

/* One parameter of a law, as a scene's `contacts:` entry gives it. */
typedef struct ldem_law_param {
    const char *key;           /* the scene's key */
    const char *help;          /* what it is, for messages ("shear stiffness per node") */
    double fallback;           /* the value when the entry does not give it */
    double min, max;           /* its range; open ends as below */
    int min_open, max_open;
    const char *const *words;  /* non-NULL: a word from this NULL-ended list, stored as its
                                * index (e.g. history: compressed | full) */
    int restart_free;          /* a restart or a stage may change it: not in a checkpoint's
                                * static checksum (Jäger's β) */
} ldem_law_param;

/* The elastic constants of a pair of materials: the exact effective moduli, and the (E, ν)
 * of one material that has them in E* (what messages, `dt: auto` and the checksum use). */
typedef struct ldem_elastic_mix {
    double E, nu;
    ldem_elastic_moduli moduli;
} ldem_elastic_mix;

struct ldem_law_ops;

/* The law of one material pair, after mixing. */
typedef struct ldem_pair_law {
    const struct ldem_law_ops *ops;
    ldem_elastic_mix elastic;
    double mu;                         /* friction coefficient (0 without LDEM_LAW_FRICTION) */
    double damping;                    /* normal damping ratio ζ (0: none) */
    double p[LDEM_LAW_MAX_PARAMS];     /* the law's parameters, in its table's order */
    int mixed;                         /* the two materials differ */
} ldem_pair_law;

/* What a PATCH law's step is given besides its parameters and state. */
typedef struct ldem_law_env {
    const ldem_elastic_pair *pair;     /* Hertz constants at the patch's radii of curvature */
    ldem_history_pool *pool;           /* the contact's history pool (its shard's) */
    int track_energy;                  /* keep the dissipated work exactly (costs a quadrature) */
} ldem_law_env;

/* The grain a critical time step is estimated for (ldem_law_ops.critical_time). */
typedef struct ldem_law_grain {
    double radius;                     /* volume-equivalent radius */
    double mass;
    double density;
} ldem_law_grain;

/* Where a pooled history cell is written or read in a checkpoint: its top level, slope,
 * the force at its top (when the pool caches forces) and its merged flag. */
typedef struct ldem_law_cell {
    double level, w[2], force;
    uint8_t merged;
} ldem_law_cell;

typedef struct ldem_law_ops {
    const char *name;                  /* the scene's `model:` */
    uint32_t id;                       /* its number in checkpoints: never reused */
    int kind;                          /* enum ldem_law_kind */
    unsigned flags;                    /* enum ldem_law_flag */
    const ldem_law_param *params;
    size_t nparams;
    size_t state_size;                 /* ≤ LDEM_LAW_STATE_BYTES; zeroed is "separated" */

    /* After mixing: the law the pair really runs (a friction law at μ = 0 is frictionless).
     * NULL: itself. */
    const struct ldem_law_ops *(*resolve)(const ldem_pair_law *law);

    /* ---- PATCH laws ---- */
    /* Move the state to overlap d1 (≤ 0: separating, which clears it) and tangential move ds;
     * N and T (frame components) out. A separated state's first touch counts only the
     * in-contact fraction of ds. Returns LDEM_OK or LDEM_ERR_NOMEM (pool growth). */
    int (*step)(const ldem_pair_law *law, const ldem_law_env *env, void *state, double d1,
                const double ds[2], double *normal, double t[2]);
    /* A pair still apart: remember its gap (≤ 0) for the first touch's fraction. */
    void (*keep_gap)(void *state, double gap);
    /* dN/dd and the stored normal energy at d1 > 0 with force N. NULL: Hertz's (the
     * contact's pair: 2E*a and (2/5)N d), which the sphere lanes also compute, so only
     * laws with both NULL run in the lanes. */
    double (*normal_stiffness)(const ldem_pair_law *law, const ldem_elastic_pair *pair,
                               double d1);
    double (*normal_energy)(const ldem_pair_law *law, double d1, double normal);

    /* ---- NODES laws ---- */
    /* One node at depth (≤ 0: zero force, ξ cleared), normal n, move du: the force on j, its
     * parts, ξ[3] advanced, the slip's work added to *dissipated. */
    ldem_vec3 (*node_force)(const ldem_pair_law *law, double depth, ldem_vec3 n, ldem_vec3 du,
                            double xi[3], double *dissipated, ldem_vec3 *fn, ldem_vec3 *ft);
    double (*node_energy)(const ldem_pair_law *law, double depth);   /* normal, one node */
    double (*spring_energy)(const ldem_pair_law *law, const double xi[3]);
    double (*node_stiffness)(const ldem_pair_law *law);              /* dN/dd of one node */

    /* ---- both ---- */
    /* Stored tangential energy of a PATCH state (NULL: none). */
    double (*stored_tangential)(const ldem_pair_law *law, const ldem_law_env *env,
                                const void *state);
    /* Work the law has dissipated in the state (NULL: none kept there). */
    double (*dissipated)(const void *state);
    /* A critical time step for the grain on this law (before the loop's damping factor);
     * *by_mass: 1 when it scales with the mass (else with the radius). */
    double (*critical_time)(const ldem_pair_law *law, const ldem_law_grain *g, int *by_mass);
    /* Parameters beyond their ranges: checked together (NULL: none). A message into err. */
    int (*validate)(const ldem_pair_law *law, ldem_err *err);

    /* ---- history in the world's shared pools (NULL for laws without) ---- */
    uint32_t (*history_length)(const void *state);   /* cells, held and pooled */
    uint32_t (*history_held)(const void *state);     /* of which held in the state */
    uint32_t *(*history_head)(void *state);          /* the pooled stack's head (compaction) */
    uint32_t history_max_held;                       /* most cells a state holds itself */
    void (*history_release)(ldem_history_pool *pool, void *state);

    /* ---- checkpoints (docs/checkpoint.md); NULL for a law that keeps no state (zeros are
     * written, and nothing is read back) ---- */
    void (*save)(const void *state, double v[LDEM_LAW_SAVED_VALUES]);
    void (*load)(void *state, const double v[LDEM_LAW_SAVED_VALUES]);
    /* Extra values (NULL: all zero in the file, and checked to be). check_extra returns 0 when
     * the values are a state the law could hold. */
    void (*save_extra)(const void *state, double v[LDEM_LAW_EXTRA_VALUES]);
    int (*check_extra)(const double v[LDEM_LAW_EXTRA_VALUES]);
    void (*load_extra)(void *state, const double v[LDEM_LAW_EXTRA_VALUES]);
    /* The stack top first into cells[0 .. history_length); LDEM_ERR_INTERNAL (message in
     * err) when the stack is broken. */
    int (*history_export)(const ldem_law_env *env, const void *state, ldem_law_cell *cells,
                          ldem_err *err);
    /* Cell q of a stack read from a file (levels from the state's approach down): 0 when
     * the law could hold it, else a message in why. `strict`: levels must fall strictly. */
    int (*history_check)(const ldem_pair_law *law, const void *state, uint32_t q,
                         const ldem_law_cell *cell, double above, int strict, char *why,
                         size_t why_size);
    /* Rebuild the stack from n checked cells, top first, `held` of them in the state. */
    int (*history_import)(const ldem_law_env *env, void *state, const ldem_law_cell *cells,
                          uint32_t n, uint32_t held);
} ldem_law_ops;

/* ---- the registry ---- */

/* The registered laws, in registry order (NULL-ended), and their number. */
LDEM_API const ldem_law_ops *const *ldem_laws(size_t *count);
/* The law a scene names, or NULL. */
LDEM_API const ldem_law_ops *ldem_law_find(const char *name);
/* The law a checkpoint's id names, or NULL. */
LDEM_API const ldem_law_ops *ldem_law_by_id(uint32_t id);
/* "a, b, c": the registered names, for messages. */
LDEM_API void ldem_law_names(char *buf, size_t size);
/* The law a pair gets when no `contacts:` entry matches it. */
LDEM_API const ldem_law_ops *ldem_law_default(void);
/* Is `key` a parameter of some registered law (so a model that lacks it can say so)? */
LDEM_API int ldem_law_key_known(const char *key);
/* The index of `key` in the law's parameter table, or −1. */
LDEM_API int ldem_law_param_index(const ldem_law_ops *ops, const char *key);

/* ---- mixing ---- */

/* The elastic constants of materials (E1, ν1) and (E2, ν2): E* and G* exact
 * (ldem_elastic_moduli_mix); equal materials keep their own (E, ν) bit for bit; for unequal
 * ones ν is the mean and E the one material's whose E* the pair has. */
LDEM_API ldem_elastic_mix ldem_elastic_mix_of(double E1, double nu1, double E2, double nu2);

/* A pair's law from its ops and parameters: p[] filled with the table's fallbacks where
 * `given` (bit k: parameter k given) is clear, μ cleared unless the law takes friction, ζ
 * unless it takes damping, then resolved (ops->resolve). */
LDEM_API ldem_pair_law ldem_pair_law_make(const ldem_law_ops *ops, ldem_elastic_mix elastic,
                                          double mu, double damping, const double *p,
                                          unsigned given);

/* ---- what the contact loop needs of a PATCH law that leaves normal_* NULL ---- */

static inline int ldem_law_hertz_normal(const ldem_law_ops *ops)
{
    return ops->kind == LDEM_LAW_PATCH && !ops->normal_stiffness && !ops->normal_energy;
}

#ifdef __cplusplus
}
#endif
#endif
