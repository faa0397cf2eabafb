/* Soak test of checkpoints (issue 33, "checkpoints always load"): long random runs saved and
 * restarted every few dozen steps, each restart into a freshly built world, must load every
 * time and continue bit for bit like the run that was never interrupted.
 *
 * What it validates: that every checkpoint the runtime writes in such runs is accepted by its
 * own loader (a refusal fails the test with the loader's message), and that save + load +
 * continue is the identity on the whole dynamic state: at every restart the interrupted run's
 * file and the uninterrupted run's file at the same step are byte for byte the same, and the
 * two worlds agree bitwise in positions, velocities, orientations, angular momenta, forces and
 * torques, walls, the cell, every contact's geometry, forces, law state and every Jäger stack
 * cell (slopes and levels, and which cells the contact holds), and the pools' live cells,
 * capacity and peak.
 *
 * It is a guard, the code against itself: the uninterrupted run is the reference, whatever it
 * computes. It does not check the physics against an independent model (the contact laws'
 * own tests do: test_contact_jager_closed_form, test_contact_jager_histories, ...).
 *
 * The runs (restarted every 23 to 97 steps, the direct ones every 46 to 194, irregularly, so
 * that restarts fall before, on and after neighbour-list builds and pool compactions):
 *   - dem_*: the real DEM step. A periodic cell of 10³ glass spheres (R = 1 mm, radii within
 *     1e-4 of each other) on a cubic lattice a little tighter than their diameters, with
 *     random velocities and spins (about 3000 candidate pairs, 2000 touching). In cycles of
 *     900 steps each direction of the cell is strained back and forth at its own period and
 *     phase (the grains rattle, contacts load and unload in 3-D, slide, separate, re-form and
 *     leave the neighbour list), then held still under local damping (the moves per step
 *     shrink by orders of magnitude while stacks grow, up to 400 cells), then strained a
 *     million times slower. Every law: hertz-jager at β = 0, 0.05, 0.1, 0.2 (one with the
 *     energy bookkeeping, one with the normal damping), hertz-mindlin, linear, frictionless.
 *   - box_*: the same cycles in a box of plane walls, three of them shaken and the lid a
 *     force servo, holding 27 grains, two thirds level-set spheres (node-to-level-set
 *     patches) and a third analytic spheres: grain, sphere and wall contacts, hertz-jager at
 *     β = 0.1 (with the energy bookkeeping and normal damping) and the linear node law (a
 *     spring per penetrating node).
 *   - direct_jager_*: 4000 Jäger contacts driven straight through ldem_jager_move_to and
 *     ldem_jager_step_pair (as the DEM step calls it), in a world that is saved and restored
 *     without stepping: random 3-D walks in (d, s) whose step sizes range over twelve decades,
 *     down to a few ulps of the approach, which a DEM run reaches only after long rests (the
 *     case of issue 33 came at step 80 000): there slip fronts land within rounding of a
 *     cell's base and β merges legs that span a few ulps. With separations, first touches
 *     inside a step and jumps, at β = 0, 0.05, 0.1, 0.2, a third of the contacts with the
 *     energy bookkeeping, and once with pools that keep the force cache (4 values a cell).
 * In the DEM runs the uninterrupted run uses one thread and the restarted run alternates two
 * and one from restart to restart: both thread counts, and restarts from one to the other.
 *
 * Known failures: direct_jager_beta_0_05, _0_1, _0_1_force_cache and _0_2 fail on the Jäger
 * law as of this commit (at steps 3580, 420, 1128 and 420; 420 also under a sanitizer's
 * fifth), each writing a checkpoint the loader refuses ("history cell: value 1 is -nan" or
 * "law state: value 4 is -nan"): β merging divided 0 by 0 (test_checkpoint_jager_law.c has
 * the minimal case and why). They pass once the law is fixed, as does every other run here
 * (checked against a candidate fix of the law).
 *
 * Run time: tens of seconds in a debugoptimized build (one core, and a second for the
 * two-thread runs; meson runs it with OMP_WAIT_POLICY=passive, without which the idle
 * thread spins and a loaded machine takes much longer). Under AddressSanitizer (CI runs
 * the suite under ASan+UBSan, several times slower) every run takes a fifth of its steps; the
 * environment variable LDEM_SOAK_SCALE multiplies the number of steps (e.g. 10 for a long
 * soak, 0.1 for a quick look). The logs (--verbose) give per run the bodies and contacts,
 * steps, restarts, separations and new contacts, the longest stack and the zero-width cells
 * seen (there may be some: the loader takes them, docs/checkpoint.md). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../support/law_states.h"
#include "ldem/contact/jager.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/step.h"
#include "world_fixture.h"
#include "../support/test_rng.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Steps of every run are multiplied by this: 1 (0.2 under a sanitizer) × LDEM_SOAK_SCALE. */
static double soak_scale(void)
{
    double f = SANITIZED ? 0.2 : 1.0;
    const char *env = getenv("LDEM_SOAK_SCALE");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        cr_assert(*end == '\0' && v > 0 && v < 1e6, "LDEM_SOAK_SCALE=%s: expected a factor", env);
        f *= v;
    }
    return f;
}

static int scaled(int steps)
{
    double n = ceil(steps * soak_scale());
    return n < 1 ? 1 : (int)n;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tmp_path(char *out, size_t size, const char *name, const char *which)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ckpt-soak-%s", LDEM_TEST_TMP, name);
    cr_assert(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
    snprintf(out, size, "%s/%s.ldc", dir, which);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "open %s", path);
    cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
    long len = ftell(fp);
    cr_assert_geq(len, 0);
    cr_assert_eq(fseek(fp, 0, SEEK_SET), 0);
    unsigned char *d = malloc((size_t)len + 1);
    cr_assert(d);
    cr_assert_eq(fread(d, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return d;
}

static void save_ok(const char *path, const ldem_world *w)
{
    ldem_err err;
    cr_assert_eq(ldem_checkpoint_save(path, w, NULL, &err), LDEM_OK, "step %llu: save: %s",
                 (unsigned long long)w->step, err.msg);
}

/* The loader must take every file the runtime wrote. */
static void load_ok(const char *path, ldem_world *w, uint64_t step)
{
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_checkpoint_load(path, w, NULL, &err);
    cr_assert_eq(rc, LDEM_OK,
                 "the checkpoint the runtime wrote at step %llu was refused: %s: byte %lld: %s",
                 (unsigned long long)step, err.file, err.offset, err.msg);
}

/* The two files of one step, byte for byte: everything a checkpoint carries. */
static void assert_same_files(const char *a, const char *b, uint64_t step)
{
    size_t na, nb;
    unsigned char *da = slurp(a, &na), *db = slurp(b, &nb);
    size_t at = 0;
    while (at < na && at < nb && da[at] == db[at])
        at++;
    cr_assert(na == nb && at == na,
              "step %llu: the restarted run's checkpoint differs from the uninterrupted run's "
              "at byte %zu (sizes %zu and %zu)",
              (unsigned long long)step, at, na, nb);
    free(da);
    free(db);
}

/* ---- bitwise comparison of two worlds' dynamic state ---- */

#define SAME(a, b, ...) cr_assert(memcmp(&(a), &(b), sizeof(a)) == 0, __VA_ARGS__)

static void assert_same_stack(const ldem_world *a, const ldem_world *b, size_t k)
{
    const ldem_contact *ca = &a->contacts[k], *cb = &b->contacts[k];
    const ldem_jager_contact *ja = &JAGER_STATE(ca), *jb = &JAGER_STATE(cb);
    const ldem_history_pool *pa = &a->pools[ca->shard], *pb = &b->pools[cb->shard];
    cr_assert(ja->length == jb->length && ja->nheld == jb->nheld,
              "step %llu: contact %zu: %u cells (%u held) against %u (%u held)",
              (unsigned long long)a->step, k, ja->length, ja->nheld, jb->length, jb->nheld);
    ldem_jager_cursor qa = ldem_jager_first(pa, ja), qb = ldem_jager_first(pb, jb);
    for (uint32_t n = 0; qa.cell || qb.cell; n++) {
        cr_assert(qa.cell && qb.cell, "step %llu: contact %zu: stacks end apart",
                  (unsigned long long)a->step, k);
        SAME(*qa.cell, *qb.cell, "step %llu: contact %zu: history cell %u differs",
             (unsigned long long)a->step, k, n);
        ldem_jager_next(pa, &qa);
        ldem_jager_next(pb, &qb);
    }
}

static void assert_same_contact(const ldem_world *a, const ldem_world *b, size_t k)
{
    const ldem_contact *ca = &a->contacts[k], *cb = &b->contacts[k];
    unsigned long long s = (unsigned long long)a->step;
    cr_assert(ca->i == cb->i && ca->j == cb->j && ca->law == cb->law && ca->shard == cb->shard &&
                  ca->npatch == cb->npatch && ca->nsprings == cb->nsprings &&
                  memcmp(ca->image, cb->image, sizeof ca->image) == 0 &&
                  ca->rigid_spheres == cb->rigid_spheres,
              "step %llu: contact %zu: pair, law, shard, patch, springs or image differ", s, k);
    SAME(ca->overlap, cb->overlap, "step %llu: contact %zu: overlap", s, k);
    SAME(ca->frame, cb->frame, "step %llu: contact %zu: frame", s, k);
    SAME(ca->normal, cb->normal, "step %llu: contact %zu: normal", s, k);
    SAME(ca->point, cb->point, "step %llu: contact %zu: point", s, k);
    SAME(ca->r1, cb->r1, "step %llu: contact %zu: r1", s, k);
    SAME(ca->r2, cb->r2, "step %llu: contact %zu: r2", s, k);
    SAME(ca->fn, cb->fn, "step %llu: contact %zu: fn", s, k);
    SAME(ca->ft, cb->ft, "step %llu: contact %zu: ft", s, k);
    SAME(ca->torque_i, cb->torque_i, "step %llu: contact %zu: torque on i", s, k);
    SAME(ca->torque_j, cb->torque_j, "step %llu: contact %zu: torque on j", s, k);
    SAME(ca->pair, cb->pair, "step %llu: contact %zu: Hertz constants", s, k);
    SAME(ca->stored_normal, cb->stored_normal, "step %llu: contact %zu: stored energy", s, k);
    SAME(ca->kn, cb->kn, "step %llu: contact %zu: kn", s, k);
    SAME(ca->dissipated, cb->dissipated, "step %llu: contact %zu: dissipated", s, k);
    if (a->laws[ca->law].ops->id == LDEM_LAW_HERTZ_JAGER) {
        const ldem_jager_contact *ja = &JAGER_STATE(ca), *jb = &JAGER_STATE(cb);
        SAME(ja->d, jb->d, "step %llu: contact %zu: Jäger d", s, k);
        SAME(ja->s, jb->s, "step %llu: contact %zu: Jäger s", s, k);
        SAME(ja->n, jb->n, "step %llu: contact %zu: Jäger N", s, k);
        SAME(ja->t, jb->t, "step %llu: contact %zu: Jäger T", s, k);
        SAME(ja->dissipated, jb->dissipated, "step %llu: contact %zu: Jäger dissipated", s, k);
        assert_same_stack(a, b, k);
    } else {
        SAME(MINDLIN_STATE(ca), MINDLIN_STATE(cb), "step %llu: contact %zu: law state",
             s, k);
    }
    for (uint32_t q = 0; q < ca->nsprings; q++)
        cr_assert(ca->springs[q].key == cb->springs[q].key &&
                      memcmp(ca->springs[q].xi, cb->springs[q].xi, sizeof ca->springs[q].xi) == 0,
                  "step %llu: contact %zu: spring %u", s, k, q);
}

static void assert_same_worlds(const ldem_world *a, const ldem_world *b)
{
    unsigned long long s = (unsigned long long)a->step;
    cr_assert(a->step == b->step && a->list_builds == b->list_builds,
              "steps %llu / %llu, list builds %llu / %llu", s, (unsigned long long)b->step,
              (unsigned long long)a->list_builds, (unsigned long long)b->list_builds);
    SAME(a->t, b->t, "step %llu: t", s);
    SAME(a->dt, b->dt, "step %llu: dt", s);
    const ldem_bodies *ba = &a->bodies, *bb = &b->bodies;
    size_t n = ba->count;
#define SAME_ARRAY(field, what)                                                                   \
    cr_assert(memcmp(ba->field, bb->field, n * sizeof *ba->field) == 0, "step %llu: bodies' %s", \
              s, what)
    SAME_ARRAY(x, "positions");
    SAME_ARRAY(v, "velocities");
    SAME_ARRAY(q, "orientations");
    SAME_ARRAY(L, "angular momenta");
    SAME_ARRAY(force, "forces");
    SAME_ARRAY(torque, "torques");
    SAME_ARRAY(x_prev, "previous positions");
    SAME_ARRAY(q_prev, "previous orientations");
#undef SAME_ARRAY
    cr_assert(!a->x_list == !b->x_list &&
                  (!a->x_list || memcmp(a->x_list, b->x_list, n * sizeof *a->x_list) == 0),
              "step %llu: list positions", s);
    for (size_t k = 0; k < a->nwalls; k++) {
        const ldem_wall *wa = &a->walls[k], *wb = &b->walls[k];
        cr_assert(memcmp(&wa->disp, &wb->disp, sizeof wa->disp) == 0 &&
                      memcmp(&wa->vel, &wb->vel, sizeof wa->vel) == 0 &&
                      memcmp(&wa->force, &wb->force, sizeof wa->force) == 0 &&
                      memcmp(&wa->work, &wb->work, sizeof wa->work) == 0,
                  "step %llu: wall %zu", s, k);
    }
    if (a->cell.periodic) {
        SAME(a->cell.h, b->cell.h, "step %llu: cell", s);
        SAME(a->cell.h_prev, b->cell.h_prev, "step %llu: previous cell", s);
        SAME(a->cell.L, b->cell.L, "step %llu: cell's velocity gradient", s);
        SAME(a->h_list, b->h_list, "step %llu: cell at the list build", s);
        SAME(a->virial, b->virial, "step %llu: virial", s);
        SAME(a->stress, b->stress, "step %llu: stress", s);
        SAME(a->stiffness, b->stiffness, "step %llu: servo stiffness", s);
        SAME(a->work_cell, b->work_cell, "step %llu: cell's work", s);
    }
    SAME(a->work_walls, b->work_walls, "step %llu: walls' work", s);
    SAME(a->work_damping, b->work_damping, "step %llu: damping's work", s);
    SAME(a->dissipated_contacts_released, b->dissipated_contacts_released,
         "step %llu: work of dropped contacts", s);
    cr_assert_eq(a->ncontacts, b->ncontacts, "step %llu: contact counts", s);
    for (size_t k = 0; k < a->ncontacts; k++)
        assert_same_contact(a, b, k);
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++)
        cr_assert(a->pools[q].live == b->pools[q].live &&
                      a->pools[q].capacity == b->pools[q].capacity &&
                      a->pools[q].peak == b->pools[q].peak,
                  "step %llu: pool %u: live %u / %u, capacity %u / %u, peak %u / %u", s, q,
                  a->pools[q].live, b->pools[q].live, a->pools[q].capacity, b->pools[q].capacity,
                  a->pools[q].peak, b->pools[q].peak);
}

/* ---- what the runs went through ---- */

typedef struct tally {
    uint64_t law_steps;      /* contact updates (or law calls) while touching */
    uint64_t separations;    /* touching → apart */
    uint64_t touches;        /* apart (or new) → touching */
    uint32_t longest;        /* longest Jäger stack seen at a restart */
    uint64_t zero_width;     /* Jäger cells of zero width (base = the level above) at restarts */
    uint64_t cells;          /* Σ history cells at restarts */
    uint64_t zero_width_below; /* contact-steps ending with a zero-width cell below the top */
    int restarts;
} tally;

static void tally_stacks(const ldem_world *w, tally *t)
{
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        if (w->laws[c->law].ops->id != LDEM_LAW_HERTZ_JAGER)
            continue;
        const ldem_jager_contact *j = &JAGER_STATE(c);
        const ldem_history_pool *pool = &w->pools[c->shard];
        double above = j->d;
        for (ldem_jager_cursor q = ldem_jager_first(pool, j); q.cell; ldem_jager_next(pool, &q)) {
            t->zero_width += q.cell->base >= above;
            above = q.cell->base;
        }
        t->cells += j->length;
        if (j->length > t->longest)
            t->longest = j->length;
    }
}

/* Whether contact k's second cell has zero width: where a step leaves one when its slip front
 * lands on that cell's base to within rounding (the slip cell pushed on top then starts at the
 * level the cell below starts at). */
static int zero_width_below_top(const ldem_world *w, size_t k)
{
    const ldem_contact *c = &w->contacts[k];
    const ldem_history_pool *pool = &w->pools[c->shard];
    ldem_jager_cursor q = ldem_jager_first(pool, &JAGER_STATE(c));
    if (!q.cell)
        return 0;
    double base = q.cell->base;
    ldem_jager_next(pool, &q);
    return q.cell && q.cell->base >= base;
}

/* Restart after these many steps, in turn: irregular, so that restarts fall before, on and
 * after neighbour-list builds and pool compactions. */
static const int INTERVALS[] = {37, 61, 23, 89, 50, 71, 29, 97, 43, 64};
#define NINTERVALS (sizeof INTERVALS / sizeof *INTERVALS)

/* ---- the DEM runs ---- */

#define RADIUS 1e-3
#define SIDE 10 /* spheres per edge of the periodic cell */

enum { PERIODIC, BOX };

typedef struct dem_case {
    const char *name;
    int scene;      /* PERIODIC or BOX */
    int law;
    double beta;
    int track_energy;
    double damping; /* Hertz laws' normal damping ratio */
    int steps;
} dem_case;

/* The drives, functions of the step as a scene's would be, set in both runs before every
 * step. In cycles: SHAKE steps driven, SETTLE steps at rest under Cundall's local damping,
 * CREEP steps driven a million times slower, still damped. The grains rattle, contacts load
 * and unload in 3-D, slide, separate and re-form; then they come to rest, where a contact's
 * moves per step shrink by orders of magnitude and its stack grows; then they creep. */
enum { SHAKE = 300, SETTLE = 300, CREEP = 300 };
static const double PERIOD[3] = {700, 530, 910}, PHASE[3] = {0.0, 2.1, 4.4};

static double drive_amplitude(const ldem_world *w)
{
    uint64_t phase = w->step % (SHAKE + SETTLE + CREEP);
    return phase < SHAKE ? 1.0 : phase < SHAKE + SETTLE ? 0.0 : 1e-6;
}

/* PERIODIC: each direction of the cell strained back and forth, ±2e-4 (about the overlaps),
 * at its own period and phase. BOX: the floor and two side walls shaken, 1 µm, each along
 * its own direction, period and phase (the lid is a force servo, driven by the grains). */
static void drive(ldem_world *w, int scene)
{
    const double pi = 3.14159265358979323846, amplitude = drive_amplitude(w);
    for (int k = 0; k < 3; k++) {
        double omega = 2 * pi / (PERIOD[k] * w->dt), phase = cos(omega * w->t + PHASE[k]);
        if (scene == PERIODIC) {
            w->cell_control.strain_rate[k] = 2e-4 * amplitude * omega * phase;
        } else {
            ldem_vec3 dir = k == 0 ? ldem_vec3_make(0.3, 0.2, 1) : k == 1 ? ldem_vec3_make(1, 0.5, 0.2)
                                                                           : ldem_vec3_make(-0.4, 1, 0.3);
            w->walls[k].velocity = ldem_vec3_scale(dir, 1e-6 * amplitude * omega * phase);
        }
    }
    w->damping_local = amplitude == 1.0 ? 0.0 : 0.8;
}

static ldem_vec3 random_vec3(double scale)
{
    return ldem_vec3_make(scale * uniform(), scale * uniform(), scale * uniform());
}

/* 10³ spheres on a cubic lattice in a periodic cell: neighbours overlap by 0.1 µm ± 0.2 µm,
 * two thirds touch at the start; 1 cm/s and 10 rad/s, each step moving a grain by 0.5 % of an
 * overlap. */
static void periodic_scene(ldem_world *w)
{
    w->dt = 1e-7;
    w->skin = 1e-6;
    const double a = 2 * RADIUS - 1e-7, edge = SIDE * a;
    ldem_mat3 h = {{{edge, 0, 0}, {0, edge, 0}, {0, 0, edge}}};
    ldem_err err;
    cr_assert_eq(ldem_cell_init(&w->cell, h, ldem_vec3_make(edge / 2, edge / 2, edge / 2), &err),
                 LDEM_OK, "%s", err.msg);
    w->h_list = w->cell.h;
    for (int k = 0; k < 3; k++)
        w->cell_control.drive[k] = LDEM_CELL_STRAIN_RATE;
    rng_seed(20240633);
    for (int i = 0; i < SIDE * SIDE * SIDE; i++) {
        ldem_vec3 x = ldem_vec3_make(a * (0.5 + i % SIDE), a * (0.5 + i / SIDE % SIDE),
                                     a * (0.5 + i / (SIDE * SIDE)));
        uint32_t b = wf_add_sphere(w, ldem_vec3_add(x, random_vec3(2e-8)),
                                   RADIUS * (1 + 1e-4 * uniform()), random_vec3(0.01));
        w->bodies.L[b] = ldem_vec3_scale(random_vec3(10.0), w->bodies.inertia[b].x);
    }
}

/* A box of five planes (the floor and the sides at x = 0 and y = 0 shaken, a lid held at
 * 2 N by a servo) holding 3 × 3 × 3 grains, level-set spheres (162 surface nodes, Hertz
 * patches from node penetrations) and every third an analytic sphere, pressed together by a
 * centrifuge's gravity: grain–grain, grain–sphere and grain–wall patches. */
static void box_scene(ldem_world *w)
{
    w->dt = 1e-7;
    w->skin = 2e-6;
    w->gravity = ldem_vec3_make(0, 0, -1e4);
    const double a = 2 * RADIUS - 2e-7, edge = 3 * a;
    uint32_t shape = wf_add_ls_sphere_shape(w, RADIUS, RADIUS / 4, 2);
    wf_add_plane(w, ldem_vec3_make(0, 0, 0), ldem_vec3_make(0, 0, 1));
    wf_add_plane(w, ldem_vec3_make(0, 0, 0), ldem_vec3_make(1, 0, 0));
    wf_add_plane(w, ldem_vec3_make(0, 0, 0), ldem_vec3_make(0, 1, 0));
    wf_add_plane(w, ldem_vec3_make(edge, 0, 0), ldem_vec3_make(-1, 0, 0));
    wf_add_plane(w, ldem_vec3_make(0, edge, 0), ldem_vec3_make(0, -1, 0));
    uint32_t lid = wf_add_plane(w, ldem_vec3_make(0, 0, edge), ldem_vec3_make(0, 0, -1));
    w->walls[lid].drive = LDEM_DRIVE_SERVO;
    w->walls[lid].servo_force = 2.0;
    w->walls[lid].servo_gain = 1e-3;
    w->walls[lid].servo_vmax = 1e-3;
    rng_seed(20240634);
    for (int i = 0; i < 27; i++) {
        ldem_vec3 x = ldem_vec3_add(ldem_vec3_make(a * (0.5 + i % 3), a * (0.5 + i / 3 % 3),
                                                   a * (0.5 + i / 9)),
                                    random_vec3(5e-8));
        uint32_t b = i % 3 == 1
                         ? wf_add_sphere(w, x, RADIUS, random_vec3(0.03))
                         : wf_add_ls_body(w, shape, x, ldem_quat_identity(), random_vec3(0.03));
        w->bodies.L[b] = ldem_vec3_scale(random_vec3(30.0), w->bodies.inertia[b].x);
    }
}

/* The static description (and, for the first run, the initial state): always the same for
 * one case, as a scene file would give it. */
static void dem_world(ldem_world *w, const dem_case *dc)
{
    wf_world(w, dc->law);
    if (dc->law == LDEM_LAW_HERTZ_JAGER)
        w->laws[0].p[LDEM_JAGER_P_BETA] = dc->beta;
    w->laws[0].damping = dc->damping;
    w->track_energy = dc->track_energy;
    if (dc->scene == PERIODIC)
        periodic_scene(w);
    else
        box_scene(w);
    drive(w, dc->scene);
}

static void step_ok(ldem_world *w, int scene)
{
    ldem_err err;
    drive(w, scene);
    cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "step %llu: %s",
                 (unsigned long long)w->step + 1, err.msg);
}

/* Touching pairs' keys (i, j), in list order (sorted), for counting separations. */
static size_t touching_keys(const ldem_world *w, uint64_t *keys)
{
    size_t n = 0;
    for (size_t k = 0; k < w->ncontacts; k++)
        if (ldem_contact_touching(&w->contacts[k]))
            keys[n++] = (uint64_t)w->contacts[k].i << 32 | w->contacts[k].j;
    return n;
}

/* Pairs in `old` not in `now` (separated) and in `now` not in `old` (touched), both sorted. */
static void count_changes(const uint64_t *old, size_t nold, const uint64_t *now, size_t nnow,
                          tally *t)
{
    size_t p = 0, q = 0;
    while (p < nold || q < nnow) {
        if (q == nnow || (p < nold && old[p] < now[q]))
            t->separations++, p++;
        else if (p == nold || now[q] < old[p])
            t->touches++, q++;
        else
            p++, q++;
    }
}

static void dem_soak(const dem_case *dc)
{
    double t0 = seconds();
    char path_a[600], path_b[600];
    tmp_path(path_a, sizeof path_a, dc->name, "uninterrupted");
    tmp_path(path_b, sizeof path_b, dc->name, "restarted");
    ldem_world a, b;
    ldem_err err;
    dem_world(&a, dc);
    dem_world(&b, dc);
    a.threads = 1;
    b.threads = 2;
    cr_assert_eq(ldem_world_prepare(&a, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_world_prepare(&b, &err), LDEM_OK, "%s", err.msg);
    const int steps = scaled(dc->steps);
    size_t cap = 16 * a.bodies.count;
    uint64_t *old = malloc(cap * sizeof *old), *now = malloc(cap * sizeof *now);
    cr_assert(old && now);
    size_t nold = touching_keys(&a, old), most = a.ncontacts;
    tally t = {0};
    int done = 0;
    for (unsigned r = 0; done < steps; r++) {
        int k = INTERVALS[r % NINTERVALS];
        if (k > steps - done)
            k = steps - done;
        for (int s = 0; s < k; s++) {
            step_ok(&a, dc->scene);
            step_ok(&b, dc->scene);
            cr_assert(a.ncontacts <= cap);
            for (size_t q = 0; q < a.ncontacts; q++)
                t.zero_width_below += zero_width_below_top(&a, q);
            size_t nnow = touching_keys(&a, now);
            count_changes(old, nold, now, nnow, &t);
            t.law_steps += nnow;
            uint64_t *swap = old;
            old = now, now = swap, nold = nnow;
            most = a.ncontacts > most ? a.ncontacts : most;
        }
        done += k;
        assert_same_worlds(&a, &b);
        /* Both saved at the same step; the restarted run goes on from its own file in a world
         * built afresh from the static description, on the other thread count. */
        save_ok(path_a, &a);
        save_ok(path_b, &b);
        assert_same_files(path_a, path_b, a.step);
        tally_stacks(&a, &t);
        int threads = b.threads == 2 ? 1 : 2;
        ldem_world_free(&b);
        dem_world(&b, dc);
        b.threads = threads;
        load_ok(path_b, &b, a.step);
        t.restarts++;
    }
    /* One more stretch after the last restart, so that the last restored world steps too. */
    for (int s = 0; s < INTERVALS[0]; s++) {
        step_ok(&a, dc->scene);
        step_ok(&b, dc->scene);
    }
    assert_same_worlds(&a, &b);
    cr_log_info("%s: %zu bodies, up to %zu candidate pairs, %d steps, %d restarts: "
                "%llu touching contact-steps, %llu touches, %llu separations, longest stack %u, "
                "%llu cells and %llu zero-width cells at the restarts, %llu contact-steps ending "
                "with one below the top, "
                "%llu list builds; %.1f s",
                dc->name, a.bodies.count, most, steps + INTERVALS[0], t.restarts,
                (unsigned long long)t.law_steps, (unsigned long long)t.touches,
                (unsigned long long)t.separations, t.longest, (unsigned long long)t.cells,
                (unsigned long long)t.zero_width, (unsigned long long)t.zero_width_below,
                (unsigned long long)a.list_builds,
                seconds() - t0);
    /* The run must have gone through what it is meant to exercise. */
    cr_assert_gt(t.separations, most / 10, "%s: only %llu separations", dc->name,
                 (unsigned long long)t.separations);
    cr_assert_gt(t.touches, most / 10, "%s: only %llu new contacts", dc->name,
                 (unsigned long long)t.touches);
    cr_assert_gt(a.list_builds, 2, "%s: the neighbour list was never rebuilt", dc->name);
    if (dc->law == LDEM_LAW_HERTZ_JAGER)
        cr_assert_gt(t.longest, 4, "%s: no long Jäger stacks", dc->name);
    free(old);
    free(now);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

#define DEM_STEPS 1800

Test(soak, dem_jager_beta_0)
{
    dem_soak(&(dem_case){"jager-0", PERIODIC, LDEM_LAW_HERTZ_JAGER, 0.0, 1, 0.0, DEM_STEPS});
}

Test(soak, dem_jager_beta_0_05)
{
    dem_soak(&(dem_case){"jager-0.05", PERIODIC, LDEM_LAW_HERTZ_JAGER, 0.05, 0, 0.0, DEM_STEPS});
}

Test(soak, dem_jager_beta_0_1)
{
    dem_soak(&(dem_case){"jager-0.1", PERIODIC, LDEM_LAW_HERTZ_JAGER, 0.1, 0, 0.1, DEM_STEPS});
}

Test(soak, dem_jager_beta_0_2)
{
    dem_soak(&(dem_case){"jager-0.2", PERIODIC, LDEM_LAW_HERTZ_JAGER, 0.2, 0, 0.0, DEM_STEPS});
}

Test(soak, dem_mindlin)
{
    dem_soak(&(dem_case){"mindlin", PERIODIC, LDEM_LAW_HERTZ_MINDLIN, 0.0, 0, 0.05, DEM_STEPS});
}

Test(soak, dem_linear)
{
    dem_soak(&(dem_case){"linear", PERIODIC, LDEM_LAW_LINEAR, 0.0, 0, 0.0, DEM_STEPS});
}

Test(soak, dem_frictionless)
{
    dem_soak(&(dem_case){"frictionless", PERIODIC, LDEM_LAW_FRICTIONLESS, 0.0, 0, 0.0, DEM_STEPS});
}

#define BOX_STEPS 1800

Test(soak, box_jager_beta_0_1)
{
    dem_soak(&(dem_case){"box-jager-0.1", BOX, LDEM_LAW_HERTZ_JAGER, 0.1, 1, 0.05, BOX_STEPS});
}

Test(soak, box_linear)
{
    dem_soak(&(dem_case){"box-linear", BOX, LDEM_LAW_LINEAR, 0.0, 0, 0.0, BOX_STEPS});
}

/* ---- Jäger contacts driven directly ---- */

#define NDIRECT 4000
#define NDIRECT_BODIES 64
#define D_REF 1e-6

/* 64 spheres and a plane; NDIRECT Jäger contacts between them (one in seven against the
 * plane), spread over all the pools. The contacts' state is the loader's to replace. */
static void direct_world(ldem_world *w, double beta, int cache_force)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    w->laws[0].p[LDEM_JAGER_P_BETA] = beta;
    ldem_err err;
    if (cache_force)
        for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++) {
            ldem_history_pool_free(&w->pools[q]);
            cr_assert_eq(ldem_history_pool_init(&w->pools[q], 0, true, &err), LDEM_OK);
        }
    /* the same radii every time, without disturbing the walkers' random sequence */
    uint64_t walkers = rng_state;
    rng_seed(7);
    for (int i = 0; i < NDIRECT_BODIES; i++)
        wf_add_sphere(w, ldem_vec3_make(3 * RADIUS * i, 0, 0), RADIUS * (1 + 0.5 * uniform()),
                      ldem_vec3_zero());
    rng_state = walkers;
    wf_add_plane(w, ldem_vec3_make(0, 0, -RADIUS), ldem_vec3_make(0, 0, 1));
    w->contacts = calloc(NDIRECT, sizeof *w->contacts);
    cr_assert(w->contacts);
    w->ncontacts = w->contacts_capacity = NDIRECT;
    for (uint32_t k = 0; k < NDIRECT; k++) {
        ldem_contact *c = &w->contacts[k];
        c->i = k % (NDIRECT_BODIES - 1);
        c->j = k % 7 == 3 ? LDEM_WALL_BIT : NDIRECT_BODIES - 1;
        c->shard = (uint32_t)((uint64_t)k * LDEM_HISTORY_SHARDS / NDIRECT);
        c->r1 = w->bodies.radius[c->i];
        c->r2 = c->j & LDEM_WALL_BIT ? INFINITY : w->bodies.radius[c->j];
        cr_assert_eq(ldem_elastic_pair_init(&c->pair, 70e9, 0.25, c->r1, c->r2, &err), LDEM_OK);
    }
}

/* A contact's path in (d, s): a random walk with persistent velocities whose sizes range
 * from 1e-15 to 1e-3 of the approach per step, bouncing between a separation of 0.2 D_REF
 * and an approach of 2 D_REF, with rare jumps anywhere in that range. */
typedef struct walker {
    double d, s[2], vd, vs[2];
} walker;

static void walk(walker *k, double smax)
{
    if (splitmix64() % 16 == 0) {
        double size = D_REF * pow(10.0, -16.0 + 13.0 * rng_uniform(0, 1));
        k->vd = size * uniform();
        double tangential = size * pow(10.0, rng_uniform(-1, 1.5));
        k->vs[0] = tangential * uniform(), k->vs[1] = tangential * uniform();
    }
    if (splitmix64() % 128 == 0) {
        k->d = D_REF * rng_uniform(-0.2, 2.0);
        k->s[0] += smax * uniform(), k->s[1] += smax * uniform();
    }
    k->d += k->vd;
    k->s[0] += k->vs[0], k->s[1] += k->vs[1];
    if (k->d > 2 * D_REF)
        k->vd = -fabs(k->vd);
    if (k->d < -0.2 * D_REF)
        k->vd = fabs(k->vd);
}

/* One step of contact k in world w: even contacts to a target (ldem_jager_move_to), odd ones
 * by an increment (ldem_jager_step_pair, as the DEM step calls it); every third with the
 * energy bookkeeping. */
static void direct_step(ldem_world *w, size_t k, const walker *path, const double ds[2])
{
    ldem_contact *c = &w->contacts[k];
    const ldem_pair_law *law = &w->laws[c->law];
    bool energy = k % 3 == 0;
    int rc;
    if (k % 2 == 0) {
        ldem_jager_params p = {c->pair, law->mu, law->p[LDEM_JAGER_P_BETA], energy,
                               law->p[LDEM_JAGER_P_HISTORY] != 0.0};
        rc = ldem_jager_move_to(&p, &w->pools[c->shard], &JAGER_STATE(c), path->d, path->s);
    } else {
        unsigned flags = (energy ? LDEM_JAGER_ENERGY : 0u) |
                         (law->p[LDEM_JAGER_P_HISTORY] != 0.0 ? LDEM_JAGER_FULL_HISTORY : 0u);
        rc = ldem_jager_step_pair(&c->pair, law->mu, law->p[LDEM_JAGER_P_BETA], flags, &w->pools[c->shard],
                                  &JAGER_STATE(c), path->d, ds);
    }
    cr_assert_eq(rc, LDEM_OK);
}

static void direct_soak(const char *name, double beta, int cache_force, int nsteps)
{
    double t0 = seconds();
    char path_a[600], path_b[600];
    tmp_path(path_a, sizeof path_a, name, "uninterrupted");
    tmp_path(path_b, sizeof path_b, name, "restarted");
    ldem_world a, b;
    direct_world(&a, beta, cache_force);
    direct_world(&b, beta, cache_force);
    walker *path = calloc(NDIRECT, sizeof *path);
    cr_assert(path);
    rng_seed(1000 + (uint64_t)(beta * 1000) + 7 * (uint64_t)cache_force);
    for (size_t k = 0; k < NDIRECT; k++)
        path[k].d = D_REF * rng_uniform(-0.2, 2.0);
    const double smax = 0.3 * 1.75 / 1.5 * D_REF; /* μ κ d_ref for glass */
    const int steps = scaled(nsteps);
    tally t = {0};
    int done = 0;
    for (unsigned r = 0; done < steps; r++) {
        int n = 2 * INTERVALS[r % NINTERVALS];
        if (n > steps - done)
            n = steps - done;
        for (int s = 0; s < n; s++) {
            for (size_t k = 0; k < NDIRECT; k++) {
                double before[2] = {path[k].s[0], path[k].s[1]}, was = path[k].d;
                walk(&path[k], smax);
                double ds[2] = {path[k].s[0] - before[0], path[k].s[1] - before[1]};
                direct_step(&a, k, &path[k], ds);
                direct_step(&b, k, &path[k], ds);
                t.law_steps += path[k].d > 0;
                t.separations += was > 0 && !(path[k].d > 0);
                t.touches += !(was > 0) && path[k].d > 0;
                t.zero_width_below += zero_width_below_top(&a, k);
            }
            /* not stepped: counts the moves, for the messages; the clock moves with them,
             * as ldem_step's does, or the load refuses the checkpoint's clock */
            a.step++, b.step++;
            a.t += a.dt, b.t += b.dt;
        }
        done += n;
        assert_same_worlds(&a, &b);
        save_ok(path_a, &a);
        save_ok(path_b, &b);
        assert_same_files(path_a, path_b, a.step);
        tally_stacks(&a, &t);
        ldem_world_free(&b);
        direct_world(&b, beta, cache_force);
        load_ok(path_b, &b, a.step);
        assert_same_worlds(&a, &b);
        t.restarts++;
    }
    cr_log_info("%s: %d Jäger contacts, %d steps, %d restarts: %llu steps in touch, %llu "
                "touches, %llu separations, longest stack %u, %llu cells and %llu zero-width "
                "cells at the restarts, %llu contact-steps ending with one below the top; %.1f s",
                name, NDIRECT, steps, t.restarts, (unsigned long long)t.law_steps,
                (unsigned long long)t.touches, (unsigned long long)t.separations, t.longest,
                (unsigned long long)t.cells, (unsigned long long)t.zero_width,
                (unsigned long long)t.zero_width_below, seconds() - t0);
    cr_assert_gt(t.separations, (uint64_t)steps, "%s: too few separations", name);
    cr_assert_gt(t.longest, 10, "%s: no long stacks", name);
    free(path);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

#define DIRECT_STEPS 4000

Test(soak, direct_jager_beta_0)
{
    direct_soak("direct-0", 0.0, 0, DIRECT_STEPS);
}

Test(soak, direct_jager_beta_0_05)
{
    direct_soak("direct-0.05", 0.05, 0, DIRECT_STEPS);
}

Test(soak, direct_jager_beta_0_1)
{
    direct_soak("direct-0.1", 0.1, 0, DIRECT_STEPS);
}

Test(soak, direct_jager_beta_0_2)
{
    direct_soak("direct-0.2", 0.2, 0, DIRECT_STEPS);
}

/* Pools with the force cache: cells of four values in the file. */
Test(soak, direct_jager_beta_0_1_force_cache)
{
    direct_soak("direct-0.1-cache", 0.1, 1, DIRECT_STEPS / 2);
}
