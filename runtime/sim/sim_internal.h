/* sim_internal.h — functions the step driver shares with walls.c and the contacts (private to
 * runtime/sim; the public interface is ldem/sim/step.h). */
#ifndef LDEM_SIM_INTERNAL_H
#define LDEM_SIM_INTERNAL_H

#include "ldem/contact/hertz.h"
#include "ldem/contact/law.h"
#include "ldem/cpu.h" /* ldem_cpu_lanes: the lanes the step and the integrator take */
#include "ldem/sim/broadphase.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/world.h"

/* What the contacts of one history shard add to the cell's measurements (periodic cell only):
 * Σ f ⊗ ℓ over its touching body pairs and their affine (Voigt) stiffness terms k_n (n_a ℓ_a)².
 * Summed per shard by the contact update and over the shards in shard order by
 * ldem_periodic_measure, so the totals do not depend on the thread count. */
typedef struct ldem_contact_sums {
    ldem_mat3 virial;
    double stiffness[3];
} ldem_contact_sums;

/* Scratch the step keeps between calls: the broad phase's buffers, the contact indices of
 * each history shard (CSR, rebuilt with the list), per-thread hit buffers for level-set
 * pairs, and per-body rotation increments. */
typedef struct ldem_step_work {
    ldem_broadphase bp;
    uint32_t shard_start[LDEM_HISTORY_SHARDS + 1];
    uint32_t *shard_list;          /* contact indices grouped by shard, in list order */
    size_t shard_list_capacity;
    int shards_in_list_order;      /* shard_list is 0, 1, 2, …: walking the shards in order
                                    * walks the list in order (false only for the hashed
                                    * shards of old checkpoints) */
    ldem_contact_sums shard_sums[LDEM_HISTORY_SHARDS];
    int nthreads;
    ldem_hits *hits;               /* one buffer per thread */
    ldem_quat *dq;                 /* rotation of each body over the step: q ⊗ q_prevᵀ */
    size_t dq_capacity;
    ldem_vec3 *wall_force_prev;    /* each wall's force before this step's sum (work) */
    uint32_t max_modes;            /* most modes of any deformable body's shape */
    double *modal_scratch;         /* max_modes values (the serial modal kick) */
    ldem_vec3 *phi_scratch;        /* nthreads × max_modes: Φα at a point (contacts) */
    /* Each deformable body's node clusters' slack this step (ldem_modal_deform), so that
     * the narrow phase does not recompute it for every pair: group_slack + group_off[i]
     * holds body i's, group_off[i] == SIZE_MAX when its shape has no clusters with modes. */
    size_t *group_off;
    double *group_slack;
    int status;                    /* first failure inside a parallel region */
    int lanes;                     /* touching rigid sphere pairs updated this many at a
                                    * time: ldem_cpu_lanes() (4 with AVX2, else 2; 1 with
                                    * -Dsimd=off); tests set 1 (each alone) to compare */
} ldem_step_work;

void ldem_step_work_free(struct ldem_step_work *k);

/* ---- walls.c ---- */

/* The wall where it is now (origin + displacement). */
ldem_wall_geom ldem_wall_pose(const ldem_wall *wl);
/* Move every wall from t to t + dt: velocity drives integrate, ramps interpolate (velocity
 * becomes the ramp's slope over the step), servo walls move with the velocity the last
 * servo update chose. Records disp_prev. */
void ldem_walls_advance(ldem_world *w, double t_new, double dt);
/* After the forces of a step: every wall adds its force to the probe interval's sums, servo
 * walls choose their velocity for the next step and watch for chatter. */
void ldem_walls_servo(ldem_world *w);

/* ---- contact_list.c ---- */

/* Bring the candidate list up to date with the bodies' and walls' positions (broad phase,
 * wall candidates, merge keeping the states of surviving pairs, shard lists). */
int ldem_contacts_refresh(ldem_world *w, ldem_err *err);
/* True when some body or wall moved far enough since the last refresh that a pair may have
 * come within touching distance unseen. */
int ldem_contacts_need_refresh(const ldem_world *w);
/* Group the contact indices by history shard (after a refresh or a restore). */
int ldem_contacts_build_shards(ldem_world *w);
/* Record in each candidate whether contacts.c's sphere shortcuts take it (rigid_spheres), after
 * a refresh or a restore (contacts.c). */
void ldem_contacts_classify(ldem_world *w);
/* Frictional work a contact has done so far (from its law's state). */
double ldem_contact_dissipated(const ldem_world *w, const ldem_contact *c);

/* ---- contacts.c ---- */

/* Kinematics and laws of every candidate (parallel over shards), storing each contact's force
 * and torques, and in a periodic cell each shard's ldem_contact_sums. */
int ldem_contacts_update(ldem_world *w, ldem_err *err);
/* ldem_contacts_update, then every contact's force and torques added onto its bodies and wall
 * in list order (bitwise the same sums for any thread count). On one thread both happen in
 * the same pass over the list, which then streams through memory once instead of twice. The
 * caller has set the bodies' forces and torques to their non-contact part and the walls'
 * forces to zero. */
int ldem_contacts_update_and_sum(ldem_world *w, ldem_err *err);

/* ---- contacts.c, shared with the lanes (sphere_lanes_update.inc) ---- */

/* Where a contact's second body is seen from the first: its periodic image's offset h n
 * now and h_prev n at the previous evaluation (zero in open space and within the cell). */
typedef struct image_offset {
    ldem_vec3 now, prev;
} image_offset;

/* The parts of a Hertz contact's update that sphere_lanes_update.inc runs lane by lane, for
 * contacts.c and sphere_quads.c: the two small ones inline (each lane calls them), the rest
 * in contacts.c, whose comments say what each does. */

/* The pair's mass for the normal damping: m_i m_j / (m_i + m_j), a wall or a fixed body
 * counting as infinitely heavy. A deformable grain counts with its rigid mass: its modes
 * take part through the material points' velocity (material_step), not through m*. */
static inline double ldem__effective_mass(const ldem_world *w, const ldem_contact *c)
{
    const ldem_bodies *b = &w->bodies;
    int fixed_i = (b->flags[c->i] & LDEM_BODY_FIXED) != 0;
    int fixed_j = (c->j & LDEM_WALL_BIT) || (b->flags[c->j] & LDEM_BODY_FIXED);
    if (fixed_i)
        return fixed_j ? 0.0 : b->mass[c->j];
    if (fixed_j)
        return b->mass[c->i];
    return b->mass[c->i] * b->mass[c->j] / (b->mass[c->i] + b->mass[c->j]);
}

/* The Hertz constants for the patch's radii, when they changed (on separation the old ones
 * serve the law's clearing step). */
static inline int ldem__hertz_pair_update(const ldem_world *w, ldem_contact *c,
                                          const ldem_patch *p)
{
    if (p->overlap > 0.0 && (p->r1 != c->r1 || p->r2 != c->r2)) {
        const ldem_elastic_mix *e = &w->laws[c->law].elastic;
        if (ldem_elastic_pair_init_moduli(&c->pair, e->E, e->nu, &e->moduli, p->r1, p->r2, NULL))
            return LDEM_ERR_INTERNAL;
        c->r1 = p->r1;
        c->r2 = p->r2;
    }
    return LDEM_OK;
}

/* What a contact's law is given besides its parameters and state. */
static inline ldem_law_env ldem__law_env(ldem_world *w, ldem_contact *c)
{
    return (ldem_law_env){&c->pair, &w->pools[c->shard], w->track_energy};
}

/* The law's step of a PATCH contact whose frame is up to date (ds: the tangential move of
 * j's material point against i's, in the frame, d1 the new overlap): N and the tangential
 * force T in the frame. Inline, for the lanes' loop over their contacts. */
static inline int ldem__hertz_law_step(ldem_world *w, ldem_contact *c, double d1,
                                       const double ds[2], double *normal, double t[2])
{
    const ldem_pair_law *law = &w->laws[c->law];
    ldem_law_env env = ldem__law_env(w, c);
    return law->ops->step(law, &env, c->law_state, d1, ds, normal, t);
}

/* The patch's geometry recorded in the contact, after its law's step. */
static inline void ldem__hertz_record_patch(ldem_contact *c, const ldem_patch *p)
{
    c->overlap = p->overlap;
    c->normal = p->normal;
    c->point = p->point;
    c->npatch = p->nnodes;
}

/* The rate at which the surfaces approach at `at` along n, the normal damping's: the normal
 * relative velocity of the two material points there, (v_j + ω_j × r_j − v_i − ω_i × r_i)·n
 * plus the deformation rate, from the step's material-point move du (contacts.c's
 * material_step) with each body's finite turn replaced by θ × r (θ = log dq). From du alone a
 * grain that only spins would seem to approach at |r| ω² dt/2. xi, xj: the centres (j's at
 * its image; ignored for a wall). One function for the scalar path and the lanes. */
double ldem__approach_rate(const ldem_world *w, const ldem_contact *c, ldem_vec3 du,
                           ldem_vec3 n, ldem_vec3 at, ldem_vec3 xi, ldem_vec3 xj);
/* ldem__hertz_law_step, and ldem__hertz_record_patch. */
int ldem__hertz_law(ldem_world *w, ldem_contact *c, const ldem_patch *p, const double ds[2],
                    double *normal, double t[2]);
void ldem__hertz_forces(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, ldem_vec3 du, double normal, const double t[2]);
int ldem__hertz_contact(ldem_world *w, ldem_contact *c, const image_offset *off,
                        const ldem_patch *p, const ldem_quat *dq);
/* A touching body pair's f ⊗ ℓ (force on j, branch vector from i to j's image) and its
 * stiffness terms, added to its shard's sums. */
void ldem__add_to_sums(const ldem_world *w, const ldem_contact *c, const image_offset *off,
                       ldem_contact_sums *sums);

/* ---- sphere_quads.c (AVX2; only where ldem_cpu_lanes() says 4) ---- */

/* Four touching rigid sphere pairs at once (sphere_lanes_update.inc), and their stress sums
 * into `sums` unless NULL; on failure *failed is the lane that failed. */
int ldem__update_sphere_quads(ldem_world *w, ldem_contact *const c[4], const image_offset off[4],
                              ldem_contact_sums *sums, int *failed);

/* ---- integrate.c, shared with the rotor lanes (rotor_lanes.inc, rotor_quads.c) ---- */

/* Principal moments this close (relative) count as a sphere: the split flows would then
 * only add splitting error to a motion that has an exact one-step solution. */
#define LDEM__ISOTROPIC_RTOL 1e-12

/* ldem_integrate_first_half's arguments, handed to the lane kernels in one pointer. */
typedef struct ldem__first_half_args {
    size_t n;
    const uint32_t *flags;
    const double *inv_mass;
    const ldem_vec3 *inertia;
    ldem_vec3 *x, *v;
    ldem_quat *q;
    ldem_vec3 *L_b;
    const ldem_vec3 *force, *torque;
    double dt;
} ldem__first_half_args;

/* Body i's first half step alone: the scalar path every lane must equal. */
void ldem__first_half_body(const ldem__first_half_args *a, size_t i);
/* ldem_integrate_first_half with bodies `lanes` at a time (1: each alone, 2: SSE2, 4: AVX2,
 * only where ldem_cpu_lanes() says 4); the same bits whatever `lanes` (tests compare). */
void ldem__integrate_first_half_lanes(const ldem__first_half_args *a, int lanes);

/* ---- rotor_quads.c (AVX2; only where ldem_cpu_lanes() says 4) ---- */

/* Bodies i … i + 3 (all < a->n) through their first half step, in the AVX2 lanes. */
void ldem__first_half_quads(const ldem__first_half_args *a, size_t i);

/* ---- modal.c: the deformable bodies' modal degrees of freedom ---- */

/* ε̇ += h M⁻¹ f_total for every deformable body (a half kick, h = dt/2). */
void ldem_modal_kick(ldem_world *w, double h);
/* ε_prev = ε; ε += dt ε̇. */
void ldem_modal_drift(ldem_world *w, double dt);
/* Bounding radii of every deformable body from its current ε: modal.grown, and the tighter
 * radius of its node clusters' radial bounds, whose per-cluster slack goes to the step work
 * (the nodes themselves are deformed where needed: ldem_world_body_node). */
void ldem_modal_deform(ldem_world *w);
/* How far deformable body i's nodes moved at most (from modal.grown). */
double ldem_modal_node_slack(const ldem_modal_state *m, size_t i);
/* After the contact forces: Q = Σ contact gen (list order), F_int(ε), damping C ε̇ (its power
 * booked into work_damping when book_work), f_total = Q − F_int − C ε̇. */
int ldem_modal_reduce(ldem_world *w, int book_work, ldem_err *err);
/* Σ ½ ε̇ᵀMε̇ and Σ U(ε). */
void ldem_modal_energy(const ldem_world *w, double *kinetic, double *elastic);

/* ---- periodic.c: the world in a periodic cell (w->cell.periodic) ---- */

/* Bring every position into the cell (x by h, x_prev by h_prev: see the comment inside). */
void ldem_periodic_wrap(ldem_world *w);
/* Advance the cell by its velocity gradient over dt (a cyclic direction's from the step
 * count, starting its triangle here when it has not started) and carry every position
 * affinely; returns the step's deformation F. */
ldem_mat3 ldem_periodic_deform(ldem_world *w, double dt);
/* After the contact forces: the virial, the Love–Weber stress, the servo's stiffnesses, and
 * (book_work) the work of the step's deformation F on the grains. */
void ldem_periodic_measure(ldem_world *w, int book_work, const ldem_mat3 *F);
/* Choose the velocity gradient of the next step from the control and the stress. */
void ldem_periodic_servo(ldem_world *w);
/* The neighbour list's test in a deforming cell (periodic.c explains the bound). */
int ldem_periodic_need_refresh(const ldem_world *w);
/* Quasi-static indicators for the probes: unbalanced force ratio and inertial number. */
void ldem_periodic_indicators(const ldem_world *w, double *unbalanced, double *inertial);

#endif
