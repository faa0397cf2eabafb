/* ldem/sim/scene.h — demrun's scene files (YAML, read with libyaml) and their overrides.
 *
 * A scene is read in three steps:
 *   1. ldem_scene_load(): the YAML file becomes a tree of nodes that remember their line;
 *      then every `--set key=value` override is applied to that tree (the key is a dotted path
 *      of mapping keys and sequence indices, `time.dt=1e-6`, `walls.2.velocity=[0,0,-1]`,
 *      `materials.glass.E=7e10`; the value is parsed as YAML, so lists and numbers work);
 *      then the tree is checked and converted to the plain ldem_scene below. Unknown keys,
 *      wrong types and bad values are errors naming FILE:LINE and the key's dotted path
 *      ("scene.yaml:12: grains.0.radius: must be > 0, got -1"); a value that came from --set
 *      names "--set" instead of the file.
 *   2. ldem_scene_build(): the scene becomes an ldem_world (bundles loaded, lattices and TSV
 *      placements expanded, masses from densities, pair laws resolved, walls checked).
 *   3. demrun runs the world.
 *
 * The full schema with every key and default is in docs/scene.md.
 */
#ifndef LDEM_SIM_SCENE_H
#define LDEM_SIM_SCENE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"
#include "ldem/sim/cell.h"
#include "ldem/sim/stages.h"
#include "ldem/sim/world.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every `line` below is the item's line in the scene file, or 0 when it came from --set. */

/* Initial overlaps up to this fraction of the radius are round-off, not overlaps. */
#define LDEM_OVERLAP_ROUNDOFF 1e-9

typedef struct ldem_scene_material {
    char *name;
    double E, nu, density, friction;
    long line;
} ldem_scene_material;

typedef struct ldem_scene_contact {
    char *material_a, *material_b;   /* "*" matches any material */
    const ldem_law_ops *ops;          /* the law `model:` names (ldem/contact/law.h) */
    double friction;                  /* < 0: the mean of the two materials' friction */
    double damping;                   /* normal damping ratio ζ, 0 = none */
    double p[LDEM_LAW_MAX_PARAMS];    /* the law's parameters, in its table's order */
    unsigned given;                   /* bit k: parameter k was given */
    long line;
} ldem_scene_contact;

/* How the deformable grains of a bundle shape deform (the shape's `modes:` block). */
enum ldem_scene_levelset { LDEM_LEVELSET_REMAP = 0, LDEM_LEVELSET_PRECOMPUTED = 1 };
enum ldem_scene_modal_damping {
    LDEM_MODAL_DAMPING_BUNDLE = 0,    /* the bundle's DAMP section (none if absent) */
    LDEM_MODAL_DAMPING_NONE = 1,
    LDEM_MODAL_DAMPING_RATIO = 2,     /* zeta on every mode */
    LDEM_MODAL_DAMPING_RAYLEIGH = 3   /* C = alpha M + beta K */
};

typedef struct ldem_scene_modes {
    int given;                        /* the shape has a modes: block */
    int levelset;                     /* enum ldem_scene_levelset */
    size_t nrange;                    /* 0 (default), 1 (all modes) or one pair per mode */
    double *range;                    /* nrange pairs (min, max) */
    uint64_t samples;                 /* precomputed: amplitudes per mode */
    uint64_t pullback;                /* fixed-point steps of the pull back, ≥ 1 */
    int damping;                      /* enum ldem_scene_modal_damping */
    double zeta, alpha, beta;
    long line;
} ldem_scene_modes;

typedef struct ldem_scene_shape {
    char *name;
    int kind;                         /* enum ldem_shape_kind */
    double radius;                    /* sphere */
    char *bundle;                     /* level set: path, resolved against the scene's folder */
    ldem_scene_modes modes;
    long line;
} ldem_scene_shape;

/* Initial modal state of grains (one per grains entry that gives `modes:`). */
typedef struct ldem_scene_modal_init {
    size_t n;
    double *amplitude, *rate;         /* n values each (zeros for the one not given) */
    const char *key;                  /* "amplitude" or "rate": the list that set n */
    long line;                        /* that list's line (0: --set) */
} ldem_scene_modal_init;

/* One grain as placed (lattices and TSV files are expanded by the loader). */
typedef struct ldem_scene_grain {
    uint32_t shape;                   /* index into shapes */
    uint32_t material;                /* index into materials */
    double radius;                    /* > 0 overrides a sphere shape's radius (TSV column) */
    ldem_vec3 x, v, omega;            /* position, velocity, angular velocity (world) */
    double q[4];                      /* orientation (w, x, y, z), normalized by the loader */
    int fixed;
    int deformable;                   /* -1: default (deformable when the bundle has modes),
                                       * 0: rigid, 1: deformable (the bundle must have modes) */
    long modal_init;                  /* index into modal_inits, −1: zeros */
    long line;                        /* scene line (or TSV line) for messages; 0: --set */
    uint32_t entry;                   /* index of the `grains` list entry it came from */
    uint32_t source;                  /* 0: the scene file; k > 0: sources[k - 1] (a TSV) */
} ldem_scene_grain;

typedef struct ldem_scene_wall {
    char *name;
    int kind;                         /* enum ldem_wall_kind */
    uint32_t material;
    ldem_vec3 point, normal;          /* plane point/normal, or cylinder axis point/direction */
    double radius;
    int inside;
    int drive;                        /* enum ldem_wall_drive */
    ldem_vec3 velocity;
    size_t nramp;
    double *ramp_t;
    ldem_vec3 *ramp_d;
    double servo_force, servo_gain, servo_integral, servo_vmax;
    long line;
} ldem_scene_wall;

/* The periodic cell (`cell:`), when given. */
typedef struct ldem_scene_cell {
    int given;
    ldem_mat3 h;                      /* edge vectors as columns */
    ldem_vec3 centre;
    ldem_cell_control control;
    long line;
} ldem_scene_cell;

/* One entry of `stages:` (its `set:` stays in the scene tree: ldem_scene_load_stage). */
typedef struct ldem_scene_stage {
    char *name;
    ldem_stage_until until;
    size_t nset;                      /* keys in its `set:` */
    long line;                        /* the entry's line */
    long set_line;                    /* its `set:` key's line (the entry's when absent) */
} ldem_scene_stage;

enum ldem_scene_dt { LDEM_DT_AUTO = 0, LDEM_DT_FIXED = 1 };

typedef struct ldem_scene {
    char *path;                       /* the scene file, for messages */
    char *dir;                        /* its folder, for relative paths */

    size_t nmaterials;
    ldem_scene_material *materials;
    size_t ncontacts;
    ldem_scene_contact *contacts;
    size_t nshapes;
    ldem_scene_shape *shapes;
    size_t ngrains;
    ldem_scene_grain *grains;
    size_t nwalls;
    ldem_scene_wall *walls;
    size_t nsources;                  /* placement files (TSV) grains were read from */
    char **sources;
    size_t nmodal_inits;
    ldem_scene_modal_init *modal_inits;

    ldem_scene_cell cell;

    ldem_vec3 gravity;
    double damping_viscous, damping_local;

    int dt_mode;                      /* enum ldem_scene_dt */
    double dt;                        /* fixed step */
    long dt_line;                     /* time.dt's line (0: --set or absent) */
    int force_dt;                     /* time.force_dt: a fixed dt above the limits only warns */
    double overlap_allow;             /* initial_overlap.allow: largest initial overlap / radius
                                       * accepted (INFINITY: any; default round-off) */
    long overlap_line;                /* initial_overlap's line (0: absent or --set) */
    double dt_safety;                 /* auto: fraction of the critical step (default 0.2) */
    double modal_safety;              /* auto: β_d, dt ≤ β_d/ω_max of deformable grains (0.2) */
    double duration;                  /* run length in time (< 0: use steps) */
    uint64_t steps;                   /* run length in steps (when duration < 0); a staged
                                       * scene without a run length has UINT64_MAX: its
                                       * stages end it */

    size_t nstages;                   /* `stages:` (0: a run in one piece) */
    ldem_scene_stage *stages;
    long stage;                       /* whose `set:` (and every earlier one's) is applied;
                                       * −1: none (the first stage runs the scene as written
                                       * plus its own `set`) */

    double skin;                      /* neighbour-list skin; < 0: 0.1 × smallest radius */
    int threads;                      /* 0: OpenMP default */
    int order_spatial;                /* `order: spatial`: the bodies along a Z-order curve
                                       * (body_order.c); 0: in input order */

    /* outputs (paths relative to the output folder) */
    char *out_dir;                    /* default "out" (relative to the current directory) */
    uint64_t frame_every;             /* steps between VTU frames; 0: none */
    int frame_encoding;               /* enum ldem_vtk_encoding, default zlib */
    int frame_contacts;               /* write the contact network */
    uint64_t probe_every;             /* steps between probe rows; 0: none */
    int probe_modes;                  /* per-grain modal columns: −1 auto (every deformable
                                       * grain when there are at most 32), 0 none, 1 all, 2 the
                                       * listed grains */
    size_t nprobe_grains;
    uint32_t *probe_grains;
    long probe_modes_line;            /* line of output.probes.modes (0: --set or absent) */
    int probe_measure;                /* output.probes.measure: the packing's measures */
    int track_dissipation;            /* Jäger frictional work per contact (default on; off
                                       * saves a quadrature per slipping leg) */
    uint64_t checkpoint_every;        /* steps between checkpoints; 0: only at the end */
    int write_packing;                /* `output.packing`: the spheres' last positions in
                                       * DIR/packing.tsv (ldem_packing_write) */

    /* The memory an input may ask for, in bytes (0: the machine's physical memory;
     * ldem/memory_budget.h), as given to ldem_scene_load_limited. Lattice counts (load) and
     * precomputed level sets (build) are estimated against it before anything is allocated. */
    uint64_t max_memory;
} ldem_scene;

LDEM_API void ldem_scene_init(ldem_scene *s);
LDEM_API void ldem_scene_free(ldem_scene *s);

/* Read `path`, apply `nset` overrides "key=value", validate, expand placements. */
LDEM_API int ldem_scene_load(ldem_scene *s, const char *path, size_t nset, const char *const *sets,
                             ldem_err *err);

/* The same with a memory limit in bytes (0: the machine's physical memory, which is what
 * ldem_scene_load uses): a lattice whose grains, or (at ldem_scene_build) precomputed level
 * sets that would need more are refused, naming the key (docs/scene.md, "Memory limit"). */
LDEM_API int ldem_scene_load_limited(ldem_scene *s, const char *path, size_t nset,
                                     const char *const *sets, uint64_t max_memory, ldem_err *err);

/* The scene of stage `stage` (< the scene's nstages): as ldem_scene_load_limited, then the
 * `set:` of stages 0..stage applied in order on top of the command line's overrides. A wrong
 * key or value names the stage's FILE:LINE. ldem_scene_load_limited checks every stage's scene
 * this way before it returns, so a typo in the last stage fails at start. */
LDEM_API int ldem_scene_load_stage(ldem_scene *s, const char *path, size_t nset,
                                   const char *const *sets, uint64_t max_memory, size_t stage,
                                   ldem_err *err);

/* Build the world: load bundles, create bodies and walls, resolve pair laws, choose dt
 * (LDEM_DT_AUTO: dt_safety × the smallest Hertz/linear contact period estimate over the
 * grains, see docs/scene.md), and refuse geometry that cannot run (grains overlapping a wall
 * by more than their radius, walls whose allowed regions do not intersect). `w` need not be
 * initialized; on failure it is left empty (nothing to free). */
LDEM_API int ldem_scene_build(const ldem_scene *s, ldem_world *w, ldem_err *err);

/* Total steps of the run (from duration or steps). */
LDEM_API uint64_t ldem_scene_total_steps(const ldem_scene *s, double dt);

#ifdef __cplusplus
}
#endif
#endif
