/* ldem/sim/world.h — the state demrun advances: materials, contact laws per material pair,
 * grain shapes, bodies (structure of arrays), walls, and the persistent contact list with its
 * Jäger history pools (design layer 4, "world").
 *
 * Conventions (docs/design.md): the body frame has its origin at the centre of mass and its
 * axes along the principal axes of inertia; a body's orientation q maps body to world
 * components.
 * A contact's normal points from body i to body j (or to the wall), compression positive;
 * the force stored with a contact is the force ON j (body i receives its exact negative, so
 * Newton's third law holds bit for bit).
 *
 * Ownership: the world owns every array it points at; ldem_world_free releases all of it.
 * Physics modules (contact laws, level-set queries, integrator) never see a world: the step
 * (ldem/sim/step.h) passes plain values in and takes forces out.
 */
#ifndef LDEM_SIM_WORLD_H
#define LDEM_SIM_WORLD_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/contact/law.h"
#include "ldem/err.h"
#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/modes.h"
#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/sim/cell.h"
#include "ldem/sim/wall_servo.h"
#include "ldem/vec3.h"
#include "ldem/xsum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- materials and the contact law of each material pair ---- */

typedef struct ldem_material {
    char *name;
    double E, nu;        /* Young's modulus, Poisson's ratio */
    double density;
    double friction;     /* default μ of pairs involving this material */
} ldem_material;

/* The law of each material pair is an ldem_pair_law (ldem/contact/law.h): its ops, the
 * pair's exactly mixed elastic constants, friction and the law's own parameters. */

/* ---- shapes ---- */

enum ldem_shape_kind {
    LDEM_SHAPE_SPHERE = 0,   /* analytic sphere: the body's radius is its only geometry */
    LDEM_SHAPE_LSET = 1      /* level-set grain from a bundle: LSET + NODE + BODY */
};

/* A level-set shape loaded from a bundle, shared by every body that uses it. Geometry is in
 * the body frame. */
typedef struct ldem_shape {
    char *name;              /* the scene's shape name */
    char *source;            /* the bundle path, for messages */
    double bounding_radius;  /* max |node| and the level set's zero set about the centre */
    double volume;
    ldem_vec3 inertia_per_density;  /* principal moments divided by density */
    ldem_lset lset;
    ldem_nodes nodes;
    /* Deformation modes: NULL for a rigid shape, or when the scene keeps every
     * grain of the shape rigid. Both malloc'd and owned by the world (ldem_world_free). */
    ldem_modeset *modes;
    /* Level-set deformation of this shape's deformable grains: on-demand remap (family
     * NULL) or interpolation along precomputed level sets (family set). */
    ldem_lset_family *family;
    /* The nodes in small spatial clusters for the narrow phase (ldem/sim/node_clusters.h):
     * built by the first step's preparation, malloc'd and owned by the world. */
    struct ldem_node_clusters *clusters;
    /* The level set's slope ranges (ldem_lset_slopes_build), for the sign-aware remap filter: built
     * with the clusters for a shape with modes, malloc'd and owned by the world. */
    ldem_lset_slopes *lset_slopes;
    /* How fast φ falls near the surface (ldem_lset_band_slopes_build), with which a contact
     * walks the other grain's node tree only near this one's surface: built with the
     * clusters, malloc'd and owned by the world. */
    ldem_lset_band_slopes *band_slopes;
} ldem_shape;

/* ---- the world shared out between MPI ranks (docs/mpi.md) ----
 *
 * What a distributed run (libldem-mpi) plugs into the step, so that libldem itself stays free
 * of MPI. Every call is collective: every rank's step makes the same calls in the same order.
 * A failed collective ends every rank (MPI's default error handler), so the step does not
 * check them. NULL (one process) changes nothing. */
struct ldem_world;
typedef struct ldem_world_comm {
    void *ctx;
    /* Replace n partial exact sums (this rank's terms) by the global ones. */
    int (*sum)(void *ctx, ldem_xsum *s, size_t n);
    /* Replace n counts by their global sum (max = 0) or maximum (max = 1). */
    int (*count)(void *ctx, uint64_t *v, size_t n, int max);
    /* Bring every ghost's state up to its owner's (after a step's forces and integration). */
    int (*exchange)(void *ctx, struct ldem_world *w);
    /* Every rank's bytes, concatenated in rank order, on the writing rank: *all (malloc'd,
     * the caller frees; NULL when there are none) and *all_bytes there, NULL and 0 elsewhere.
     * Fails on every rank alike. */
    int (*gather)(void *ctx, const void *mine, size_t bytes, void **all, size_t *all_bytes);
    /* At a list rebuild, before the candidates are found: share the blocks out anew when the
     * load has drifted, moving contacts to their new ranks (may be NULL). */
    int (*rebalance)(void *ctx, struct ldem_world *w);
    int writer; /* this rank writes the run's files (rank 0) */
} ldem_world_comm;

/* ---- bodies (structure of arrays: the integrator and the broad phase stream them) ---- */

enum ldem_body_flag {
    LDEM_BODY_FIXED = 1u,      /* not integrated (velocity as given, no forces applied) */
    LDEM_BODY_DEFORMABLE = 2u, /* carries modal degrees of freedom (its shape has modes) */
    LDEM_BODY_GHOST = 4u       /* another MPI rank owns it: a copy its owner keeps current
                                * (ldem_world_comm); it adds to no global sum and only its
                                * pairs with owned bodies are candidates (docs/mpi.md) */
};

/* bodies.modal of a rigid body */
#define LDEM_RIGID UINT32_MAX

typedef struct ldem_bodies {
    size_t count, capacity;
    uint8_t *kind;           /* enum ldem_shape_kind */
    uint32_t *shape;         /* index into world->shapes (LDEM_SHAPE_LSET only) */
    uint32_t *material;      /* index into world->materials */
    uint32_t *flags;         /* enum ldem_body_flag bits */
    double *radius;          /* sphere radius, or the shape's bounding radius */
    double *mass, *inv_mass;
    ldem_vec3 *inertia;      /* principal moments of inertia */
    ldem_vec3 *x, *v;        /* centre of mass and its velocity (world) */
    ldem_quat *q;            /* orientation: body → world */
    ldem_vec3 *L;            /* angular momentum in the principal body frame */
    ldem_vec3 *force;        /* total force at the last evaluation (world) */
    ldem_vec3 *torque;       /* total torque about the centre at the last evaluation (world) */
    ldem_vec3 *x_prev;       /* pose at the previous force evaluation: contacts take their */
    ldem_quat *q_prev;       /* displacement increments from it */
    uint32_t *modal;         /* first modal DOF in world->modal (LDEM_RIGID: rigid body) */
    uint32_t *id;            /* the grain's index in the scene's input order: what outputs
                              * name it by (the body index itself under `order: spatial`) */
} ldem_bodies;

/* ω in world components from the body-frame angular momentum: R (L_b / I). */
LDEM_API ldem_vec3 ldem_bodies_omega(const ldem_bodies *b, size_t i);

/* ---- modal degrees of freedom of deformable bodies (Henzel & Karapiperis eq. 38) ----
 *
 * A deformable body b with shape s has n = shapes[s].modes->n amplitudes εα stored at
 * eps[bodies.modal[b] .. + n). Its deformed surface nodes are not stored: whoever needs
 * one computes it from ε (ldem_world_body_node), so a step costs nothing for the nodes far
 * from any contact. */
#define LDEM_NO_NODES UINT64_MAX

typedef struct ldem_modal_state {
    size_t ndof;             /* Σ modes over deformable bodies */
    double *eps;             /* ε */
    double *rate;            /* ε̇ */
    double *eps_prev;        /* ε at the previous force evaluation (contact kinematics) */
    double *force;           /* generalized contact force Q (eq. 41) at the last evaluation */
    double *f_int;           /* internal force F_int(ε) at the last evaluation */
    double *f_total;         /* Q − F_int − C ε̇ : what the next half kick applies */
    double *radius0;         /* per body: the undeformed bounding radius */
    double *grown;           /* per body: radius0 + Σα |εα| max_k |Φα(node k)|, a bound of
                              * every node's distance that the node slack and the patch's
                              * curvature cap are measured from (radius may be tighter) */
} ldem_modal_state;

/* ---- walls ---- */

enum ldem_wall_kind {
    LDEM_WALL_PLANE = 0,     /* grains live on the side the normal points to */
    LDEM_WALL_CYLINDER = 1   /* infinite circular cylinder about an axis */
};

enum ldem_wall_drive {
    LDEM_DRIVE_VELOCITY = 0, /* constant velocity (zero: fixed) */
    LDEM_DRIVE_RAMP = 1,     /* displacement piecewise linear in time, held after the last point */
    LDEM_DRIVE_SERVO = 2     /* plane only: velocity along the normal so that the grains' force on
                              * the wall approaches a target (see walls.c for the gain law) */
};

typedef struct ldem_wall {
    char *name;
    int kind;                /* enum ldem_wall_kind */
    uint32_t material;
    ldem_vec3 origin;        /* initial point on the plane / on the cylinder axis */
    ldem_vec3 normal;        /* plane: unit normal into the grains' side; cylinder: unit axis */
    double radius;           /* cylinder radius */
    int inside;              /* cylinder: 1 = grains inside (a drum), 0 = outside (a rod) */

    int drive;               /* enum ldem_wall_drive */
    ldem_vec3 velocity;      /* DRIVE_VELOCITY */
    size_t nramp;            /* DRIVE_RAMP: points (t, displacement) */
    double *ramp_t;
    ldem_vec3 *ramp_d;
    double servo_force;      /* DRIVE_SERVO: target normal force of the grains on the wall */
    double servo_gain;       /* α: the fraction of the force error corrected per step
                              * (ldem/sim/wall_servo.h) */
    double servo_integral;   /* ι: the integral term's gain (0: proportional only) */
    double servo_vmax;       /* cap on |velocity| */

    /* state */
    ldem_vec3 disp;          /* displacement from origin */
    ldem_vec3 disp_prev;     /* at the previous force evaluation */
    ldem_vec3 vel;           /* current velocity */
    ldem_vec3 force;         /* force the grains exert on the wall at the last evaluation */
    double work;             /* cumulative work the wall did on the grains */
    double stiffness;        /* plane: Σ over its touching contacts of dN/dδ (n_c·n)², at the
                              * last evaluation (what the servo divides by) */
    double servo_accumulated; /* the servo's integral term (a velocity) */
    ldem_servo_watch watch;  /* the servo's chatter watch */
    ldem_vec3 force_sum;     /* Σ force over the evaluations since the last probe row */
    uint64_t force_count;    /* how many */
} ldem_wall;

/* ---- contacts ---- */

/* A contact's second party: a body index, or a wall with this bit set. */
#define LDEM_WALL_BIT 0x80000000u

/* Number of history pools. Each contact's Jäger stack lives in pool (contact key hash mod
 * LDEM_HISTORY_SHARDS) for its whole life, so threads working on different shards never
 * share a pool and the result is the same for any thread count. */
#define LDEM_HISTORY_SHARDS 64u

/* Bodies are summed in blocks of this many consecutive indices: the cell's virial adds a
 * block's contacts (by their first body) and its bodies' kinetic terms in list order into a
 * partial sum, and the blocks' partial sums into exact sums (ldem/xsum.h). A block is the
 * unit an MPI rank owns (docs/mpi.md), so its partial sum is the same bits on any number of
 * ranks, and the exact sums over blocks cost little beside the contacts. Shards hold whole
 * blocks. */
#define LDEM_SUM_BLOCK 32u

/* One spring of a node law (ldem/contact/law.h, LDEM_LAW_NODES): a penetrating node identified
 * by side (0: node of i inside j, 1: node of j inside i) and node index. */
typedef struct ldem_node_spring {
    uint32_t key;            /* side << 31 | node index */
    double xi[3];            /* elastic shear displacement, world frame */
} ldem_node_spring;

typedef struct ldem_contact {
    /* The fields a separated candidate's step reads come first: the pair and its gap in
     * the first 32 bytes, then its law's state, whose first bytes hold a law's approach
     * (the Jäger law reads its stack's length and head too, 112 and 108 bytes in); the
     * whole record is 568 bytes. contact_loop.c _Static_asserts this layout. */
    uint32_t i, j;           /* i < j for body pairs; j = LDEM_WALL_BIT | wall for walls */
    int8_t image[3];         /* periodic cell: j's image seen from i is x_j + h·image (set by
                              * the broad phase at each list build; zero in open space) */
    uint8_t rigid_spheres;   /* two rigid spheres under a Hertz-normal law: the pair the loop's
                              * shortcuts take (set at each list build and restore); in what
                              * would be padding after image[] */
    uint32_t law;            /* index into world->laws (material pair) */
    uint32_t shard;          /* history pool */
    double overlap;          /* δ > 0 in contact; ≤ 0 is the gap of a separated candidate */
    /* the law's state (ldem_law_ops.state_size bytes of it), opaque here */
    _Alignas(8) unsigned char law_state[LDEM_LAW_STATE_BYTES];
    ldem_quat frame;         /* contact frame (Kuhn §3.2): local z = normal */
    ldem_vec3 normal;        /* from i to j */
    ldem_vec3 point;         /* contact point (world) */
    double r1, r2;           /* radii of curvature used for Hertz (r2 = INFINITY: flat) */
    /* Forces and torques: zero while the contact is not touching (overlap ≤ 0 and no
     * springs), and then never read. */
    ldem_vec3 fn, ft;        /* normal and tangential force on j (world) */
    ldem_vec3 torque_i;      /* torque on i about its centre (node laws: Σ over nodes) */
    ldem_vec3 torque_j;      /* torque on j about its centre (zero for walls) */
    ldem_elastic_pair pair;  /* Hertz constants for r1, r2 (recomputed when they change) */
    double stored_normal;    /* normal elastic energy at the last step */
    double kn;               /* dN/dδ at the last update (a NODES law: Σ over its springs), for
                              * the normal damping and the stress sums' stiffness; not saved,
                              * every update sets it */
    double dissipated;       /* work dissipated outside the law's state: a node law's
                              * friction, the normal damping */
    uint32_t nsprings, springs_capacity;   /* node laws */
    ldem_node_spring *springs;
    uint32_t npatch;         /* level-set pairs: penetrating nodes in the patch last step */
    /* Generalized forces of this contact on the modes of i (first n_i values) and j (next
     * n_j), eq. 41; NULL when neither party is deformable. */
    double *gen;
    uint32_t ngen;
} ldem_contact;

/* Touching: overlapping, or (node laws) holding springs. Its forces are zero otherwise. */
static inline int ldem_contact_touching(const ldem_contact *c)
{
    return c->overlap > 0.0 || c->nsprings != 0;
}

/* Under MPI a rank keeps the pairs with a body it owns: a ghost's pairs with other ghosts and
 * with walls are their owners' (docs/mpi.md). flags: the bodies' (LDEM_BODY_GHOST). */
static inline int ldem_pair_kept(const uint32_t *flags, uint32_t i, uint32_t j)
{
    return !(flags[i] & LDEM_BODY_GHOST) ||
           (!(j & LDEM_WALL_BIT) && !(flags[j] & LDEM_BODY_GHOST));
}

/* ---- the world ---- */

typedef struct ldem_world {
    size_t nmaterials;
    ldem_material *materials;
    ldem_pair_law *laws;     /* nmaterials × nmaterials, symmetric */

    size_t nshapes;
    ldem_shape *shapes;

    ldem_bodies bodies;

    size_t nwalls;
    ldem_wall *walls;

    /* Periodic cell (cell.periodic == 0: open space) and how its directions are driven;
     * the quantities below are measured at every force evaluation (periodic.c). */
    ldem_cell cell;
    ldem_cell_control cell_control;
    ldem_mat3 h_list;        /* cell at the last list build */
    ldem_mat3 virial;        /* Σ_contacts f ⊗ ℓ (force on j, branch vector i → j's image) */
    ldem_mat3 stress;        /* Love–Weber mean stress (symmetric; compression positive):
                              * (sym(virial) + Σ m v ⊗ v) / V */
    double stiffness[3];     /* the servo's affine (Voigt) stiffness per normal direction */
    double servo_integral[3]; /* the servo's accumulated rate I per direction (cell.h) */
    uint64_t cyclic_start[3]; /* the step at which a cyclic direction's drive started */
    double cyclic_strain0[3]; /* and the direction's strain then (ldem_cell_strain) */
    int cyclic_started[3];   /* 1 while a cyclic drive runs (cyclic_start valid); a direction
                              * that turns cyclic starts its triangle at that step */
    double work_cell;        /* cumulative work the cell's deformation did on the grains */

    ldem_vec3 gravity;
    double damping_viscous;  /* global viscous damping rate (1/time): F −= c m v, T −= c I ω */
    double damping_local;    /* Cundall's local non-viscous damping coefficient, [0, 1) */

    double t, dt;
    uint64_t step;

    /* Candidate pairs (broad phase with a skin) and, among them, the contacts; sorted by
     * (i, j); a candidate's state persists while it stays in the list. */
    size_t ncontacts, contacts_capacity;
    ldem_contact *contacts;
    double skin;             /* neighbour-list skin distance */
    ldem_vec3 *x_list;       /* body positions at the last list build */
    ldem_vec3 *wall_disp_list; /* wall displacements at the last list build */
    uint64_t list_builds;

    ldem_history_pool pools[LDEM_HISTORY_SHARDS];

    ldem_modal_state modal;
    double *radius_list;     /* body radii at the last list build (deformable grains grow);
                              * saved by checkpoints with x_list */
    size_t nprobe_modal;     /* deformable bodies whose ε, ε̇, Q, F_int the probes report */
    uint32_t *probe_modal;
    /* A run in stages (ldem/sim/stages.h) sets staged and the stage running: the probes then
     * end with a `stage` column (its index in the scene's list). Not in checkpoints: the run
     * sets it from its own stage. */
    int staged;
    uint32_t stage;

    /* energy bookkeeping (probes) */
    double e_initial;        /* total energy at step 0, for the balance error */
    double potential0;       /* gravitational potential −Σ m g·x at step 0 (probes report
                              * the potential relative to it) */
    double work_walls;       /* Σ work of walls on grains */
    double work_damping;     /* energy removed by global and local damping (≥ 0) */
    double dissipated_contacts_released; /* frictional work of contacts that were dropped */

    double time_contacts;    /* wall-clock seconds the steps spent in the contacts' geometry
                              * and laws (ldem_contacts_update), for reports; not saved */

    int threads;             /* OpenMP threads (0: default) */
    int track_energy;        /* Jäger dissipation bookkeeping (a Gauss rule per slipped leg) */
    int probe_measure;       /* probes carry the packing's measures (ldem/sim/measure.h) */
    const ldem_world_comm *comm; /* a distributed run's collectives; NULL for one process */

    /* The stepper's scratch (shard lists, per-thread buffers), which the stepper (step.c)
     * allocates and gives its own destructor with: the world holds it without knowing it. */
    struct ldem_step_work *work;
    void (*work_free)(struct ldem_step_work *work);
} ldem_world;

/* All zero: no materials, bodies, walls or contacts; history pools not yet allocated. */
LDEM_API void ldem_world_init(ldem_world *w);
/* Allocate the history pools (small; they grow on demand). ldem_scene_build calls it. */
LDEM_API int ldem_world_init_pools(ldem_world *w, ldem_err *err);
LDEM_API void ldem_world_free(ldem_world *w);

/* Room for `count` bodies, all zero, orientation identity. */
LDEM_API int ldem_bodies_resize(ldem_bodies *b, size_t count, ldem_err *err);

/* The pair law of materials a and b. */
static inline const ldem_pair_law *ldem_world_law(const ldem_world *w, uint32_t a, uint32_t b)
{
    return &w->laws[(size_t)a * w->nmaterials + b];
}

/* Give the deformable bodies (flag LDEM_BODY_DEFORMABLE, shape with modes) their modal
 * DOFs and deformed-node storage, all amplitudes zero; rigid bodies get LDEM_RIGID.
 * Call once after the bodies and shapes exist (ldem_scene_build does). */
LDEM_API int ldem_world_modal_init(ldem_world *w, ldem_err *err);

/* The modeset of body i (NULL when rigid). */
static inline const ldem_modeset *ldem_world_body_modes(const ldem_world *w, size_t i)
{
    return w->bodies.modal[i] == LDEM_RIGID ? NULL : w->shapes[w->bodies.shape[i]].modes;
}

/* Surface node k of level-set body i in its body frame: deformed for a deformable body. */
static inline ldem_vec3 ldem_world_body_node(const ldem_world *w, size_t i, uint64_t k)
{
    const double *ref = w->shapes[w->bodies.shape[i]].nodes.position;
    if (w->bodies.modal[i] == LDEM_RIGID)
        return ldem_vec3_make(ref[3 * k], ref[3 * k + 1], ref[3 * k + 2]);
    return ldem_modes_deformed_node(w->shapes[w->bodies.shape[i]].modes,
                                    w->modal.eps + w->bodies.modal[i], ref, k);
}

/* Release a contact's history cells and springs (the contact's slot stays). */
LDEM_API void ldem_contact_release(ldem_world *w, ldem_contact *c);

/* Under MPI, after the bodies' ownership is set (LDEM_BODY_GHOST) on a world that already has
 * contacts (restored from a checkpoint): release the pairs this rank does not keep, a ghost's
 * pairs with other ghosts and with walls (docs/mpi.md). Their owners keep them, with their
 * work: nothing is added to the dropped contacts' work. */
LDEM_API int ldem_world_keep_owned_pairs(ldem_world *w, ldem_err *err);

/* Contacts that change rank (docs/mpi.md), as the checkpoint's contact records
 * (docs/checkpoint.md, CONT: every value, Jäger histories top first): pack the pairs whose
 * first body this rank owns into a malloc'd buffer (*records, *bytes, *count records); and
 * replace w's contacts by those of the given records that this rank keeps under its current
 * ownership (a pair with a body it owns), in list order, released contacts' work not counted.
 * Records that do not decode are LDEM_ERR_INTERNAL (they come from another rank of the same
 * program), found before w is touched. */
LDEM_API int ldem_world_pack_contacts(const ldem_world *w, unsigned char **records,
                                      size_t *bytes, uint64_t *count, ldem_err *err);
LDEM_API int ldem_world_unpack_contacts(ldem_world *w, const unsigned char *records,
                                        size_t bytes, uint64_t count, ldem_err *err);

/* Σ live history cells (pooled, and held in the Jäger contacts themselves), Σ bytes held by
 * the pools (capacity × bytes per cell; held cells are part of the contact records). */
LDEM_API uint64_t ldem_world_history_cells(const ldem_world *w);
LDEM_API uint64_t ldem_world_history_bytes(const ldem_world *w);

#ifdef __cplusplus
}
#endif
#endif
