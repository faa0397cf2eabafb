/* Unit tests of ldem/sim/checkpoint.h.
 *
 * Round trips: a world with spheres, walls, random dynamic state and Jäger contacts whose
 * stacks were built by driving ldem_jager_move_to along random 2-D histories (several
 * contacts sharing a pool, so their cells interleave, and a released one leaving holes) is
 * saved and loaded into a second world built from the same static description but holding
 * other state and other contacts; every field must come back bitwise and every stack cell by
 * cell, the pools with their capacity and peak, and both worlds must then continue the same
 * further histories to identical bits. The same for Mindlin contacts (the whole law state)
 * and linear-law springs.
 *
 * Damage: truncations at many lengths, a flipped byte in every section (CRC), a checkpoint of
 * another scene (body count, one mass), and contents with a valid CRC but wrong values
 * (indices, stack length, NaN, lengths, trailing bytes, a grain bundle instead of a
 * checkpoint) all give LDEM_ERR_INPUT naming the file and leave the target world untouched.
 * Atomic save: a missing folder leaves nothing; a failed rewrite keeps the old file and no
 * temporary. Deformable grains: ε, ε̇, ε_prev, Q, F_int, f_total and the list radii come back
 * bitwise (MODL); another K, C or deformable flag is another scene; an emptied MODL and a
 * version-1 header are refused. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../support/law_states.h"
#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/contact/jager.h"
#include "ldem/contact/mindlin.h"
#include "ldem/modes.h"
#include "ldem/memory_budget.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/step.h"
#include "world_fixture.h"
#include "../support/test_rng.h"

#define NBODIES 6
#define RADIUS 1e-3
#define D_REF 1e-6
/* A history cell in the file without the force cache: z, wx, wy and the merged flag. */
#define CELL_BYTES (4u * 8u)
/* A contact record's fixed part and its growing leg (version 4). */
#define RECORD (412 + 12 * 8)

static ldem_vec3 rng_vec3(double scale)
{
    return ldem_vec3_make(rng_uniform(-scale, scale), rng_uniform(-scale, scale),
                          rng_uniform(-scale, scale));
}

static ldem_quat rng_quat(void)
{
    ldem_quat q = {rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1)};
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return (ldem_quat){q.w / n, q.x / n, q.y / n, q.z / n};
}

/* ---- files ---- */

static void tmp_dir(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/ckpt-%s", LDEM_TEST_TMP, name);
    cr_assert(mkdir(out, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", out, strerror(errno));
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "open %s", path);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)len + 1);
    cr_assert(d);
    cr_assert_eq(fread(d, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return d;
}

static void spit(const char *path, const unsigned char *d, size_t n)
{
    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "create %s", path);
    cr_assert_eq(fwrite(d, 1, n, fp), n);
    fclose(fp);
}

/* ---- worlds ---- */

/* The static description: NBODIES spheres of slightly different radii, two planes. */
static void build_world(ldem_world *w, int law, size_t nbodies)
{
    wf_world(w, law);
    for (size_t i = 0; i < nbodies; i++)
        wf_add_sphere(w, ldem_vec3_make(2.1 * RADIUS * (double)i, 0, 0),
                      RADIUS * (1.0 + 0.01 * (double)i), ldem_vec3_make(0, 0, 0));
    wf_add_plane(w, ldem_vec3_make(0, 0, -RADIUS), ldem_vec3_make(0, 0, 1));
    wf_add_plane(w, ldem_vec3_make(0, 0, 5 * RADIUS), ldem_vec3_make(0, 0.1, -1));
}

/* Random dynamic state everywhere a checkpoint carries one. */
static void randomize_state(ldem_world *w, uint64_t seed)
{
    rng_seed(seed);
    ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++) {
        b->x[i] = rng_vec3(1e-2), b->v[i] = rng_vec3(1.0), b->q[i] = rng_quat();
        b->L[i] = rng_vec3(1e-9), b->force[i] = rng_vec3(10.0), b->torque[i] = rng_vec3(1e-3);
        b->x_prev[i] = rng_vec3(1e-2), b->q_prev[i] = rng_quat();
    }
    for (size_t k = 0; k < w->nwalls; k++) {
        ldem_wall *wl = &w->walls[k];
        wl->disp = rng_vec3(1e-3), wl->disp_prev = rng_vec3(1e-3), wl->vel = rng_vec3(0.1);
        wl->force = rng_vec3(100.0), wl->work = rng_uniform(-1, 1);
    }
    w->t = rng_uniform(0, 1), w->dt = rng_uniform(1e-8, 1e-7);
    w->step = splitmix64() >> 20, w->skin = rng_uniform(0, 1e-4), w->list_builds = splitmix64() >> 40;
    w->t = (double)w->step * w->dt; /* the clock as step.c keeps it: the load checks it */
    w->e_initial = rng_uniform(0, 1), w->work_walls = rng_uniform(-1, 1);
    w->potential0 = rng_uniform(-1, 1);
    w->work_damping = rng_uniform(0, 1), w->dissipated_contacts_released = rng_uniform(0, 1);
    free(w->x_list);
    free(w->wall_disp_list);
    w->x_list = malloc(b->count * sizeof *w->x_list);
    w->wall_disp_list = malloc(w->nwalls * sizeof *w->wall_disp_list);
    cr_assert(w->x_list && w->wall_disp_list);
    for (size_t i = 0; i < b->count; i++)
        w->x_list[i] = rng_vec3(1e-2);
    for (size_t k = 0; k < w->nwalls; k++)
        w->wall_disp_list[k] = rng_vec3(1e-3);
}

/* Contact pairs (the last two against the walls) and their pools: shards 5 and 9 are
 * shared, so cells of different contacts interleave in one pool. */
static const uint32_t PAIRS[][3] = {{0, 1, 5},
                                    {0, 2, 9},
                                    {1, 3, 5},
                                    {2, 4, 17},
                                    {3, 5, 9},
                                    {4, 5, 5},
                                    {0, LDEM_WALL_BIT | 0, 63},
                                    {5, LDEM_WALL_BIT | 1, 9}};
#define NPAIRS (sizeof PAIRS / sizeof *PAIRS)

static void add_contacts(ldem_world *w, size_t count)
{
    w->contacts = calloc(count, sizeof *w->contacts);
    cr_assert(w->contacts);
    w->ncontacts = w->contacts_capacity = count;
    for (size_t k = 0; k < count; k++) {
        ldem_contact *c = &w->contacts[k];
        c->i = PAIRS[k][0], c->j = PAIRS[k][1], c->shard = PAIRS[k][2], c->law = 0;
        c->frame = rng_quat(), c->normal = rng_vec3(1), c->point = rng_vec3(1e-2);
        c->overlap = rng_uniform(-1e-6, 1e-6), c->r1 = RADIUS;
        c->r2 = c->j & LDEM_WALL_BIT ? INFINITY : RADIUS;
        c->fn = rng_vec3(10), c->ft = rng_vec3(3), c->npatch = (uint32_t)(splitmix64() % 50);
        c->torque_i = rng_vec3(1e-3), c->torque_j = rng_vec3(1e-3);
        c->stored_normal = rng_uniform(0, 1e-6), c->dissipated = rng_uniform(0, 1e-6);
        ldem_err err;
        cr_assert_eq(ldem_elastic_pair_init(&c->pair, 70e9, 0.25, c->r1, c->r2, &err), LDEM_OK);
    }
}

static ldem_jager_params jager_params(const ldem_contact *c)
{
    ldem_elastic_pair pair;
    ldem_jager_params p;
    ldem_err err;
    cr_assert_eq(ldem_elastic_pair_init(&pair, 70e9, 0.25, c->r1, c->r2, &err), LDEM_OK);
    cr_assert_eq(ldem_jager_params_init(&p, &pair, 0.3, 0.0, &err), LDEM_OK);
    return p;
}

/* 2-D histories, all contacts advanced in turn (so pools interleave): tangential reversals
 * of decaying amplitude (each smaller reversal leaves a cell on the stack) in a slowly turning,
 * per-contact direction, with small random wobbles of both the approach and the target. */
static void drive_jager(ldem_world *w, int steps, uint64_t seed)
{
    rng_seed(seed);
    double smax = 0.3 * (1.75 / 1.5) * D_REF; /* μ κ d for glass */
    for (int s = 0; s < steps; s++)
        for (size_t k = 0; k < w->ncontacts; k++) {
            ldem_contact *c = &w->contacts[k];
            ldem_jager_params p = jager_params(c);
            double d = D_REF * (1.0 + 0.05 * sin(0.1 * s) + rng_uniform(-1e-3, 1e-3));
            double amp = 0.9 * smax * pow(0.8, s % 20) * (s % 2 ? -1.0 : 1.0);
            double angle = 0.7 * (double)k + 0.02 * s;
            double target[2] = {amp * cos(angle) + rng_uniform(-1e-3, 1e-3) * smax,
                                amp * sin(angle) + rng_uniform(-1e-3, 1e-3) * smax};
            cr_assert_eq(
                ldem_jager_move_to(&p, &w->pools[c->shard], &JAGER_STATE(c), d, target),
                LDEM_OK);
        }
}

static void drive_mindlin(ldem_world *w, int steps, uint64_t seed)
{
    rng_seed(seed);
    for (int s = 0; s < steps; s++)
        for (size_t k = 0; k < w->ncontacts; k++) {
            ldem_contact *c = &w->contacts[k];
            ldem_elastic_pair pair;
            ldem_mindlin_params p;
            ldem_err err;
            cr_assert_eq(ldem_elastic_pair_init(&pair, 70e9, 0.25, c->r1, c->r2, &err), LDEM_OK);
            cr_assert_eq(ldem_mindlin_params_init(&p, &pair, 0.3, &err), LDEM_OK);
            double ds[2] = {rng_uniform(-1e-7, 1e-7), rng_uniform(-1e-7, 1e-7)};
            ldem_mindlin_step(&p, &MINDLIN_STATE(c), D_REF * rng_uniform(0.6, 1.4), ds);
        }
}

/* A Jäger world with state and long interleaved stacks. */
static void jager_world(ldem_world *w, uint64_t seed)
{
    build_world(w, LDEM_LAW_HERTZ_JAGER, NBODIES);
    randomize_state(w, seed);
    add_contacts(w, NPAIRS);
    drive_jager(w, 34, seed + 1);
    /* Release one contact's history in the middle of a shared pool: free cells between live
     * ones, so the restored pool cannot simply mirror indices. */
    ldem_jager_release(&w->pools[w->contacts[2].shard], &JAGER_STATE(&w->contacts[2]));
    drive_jager(w, 12, seed + 2);
}

/* ---- comparisons ---- */

#define SAME_BITS(a, b, what, ...) cr_assert(memcmp(&(a), &(b), sizeof(a)) == 0, what, __VA_ARGS__)

static void assert_stacks_equal(const ldem_world *a, const ldem_world *b, size_t k)
{
    const ldem_contact *ca = &a->contacts[k], *cb = &b->contacts[k];
    const ldem_history_pool *pa = &a->pools[ca->shard], *pb = &b->pools[cb->shard];
    const ldem_jager_contact *ja = &JAGER_STATE(ca), *jb = &JAGER_STATE(cb);
    /* the same cells, and the same ones held by the contact (the rest pooled) */
    cr_assert_eq(ja->nheld, jb->nheld, "contact %zu: held cells", k);
    ldem_jager_cursor qa = ldem_jager_first(pa, ja), qb = ldem_jager_first(pb, jb);
    uint32_t cells = 0;
    while (qa.cell && qb.cell) {
        SAME_BITS(*qa.cell, *qb.cell, "contact %zu: history cell %u differs", k, cells);
        ldem_jager_next(pa, &qa), ldem_jager_next(pb, &qb), cells++;
    }
    cr_assert(!qa.cell && !qb.cell, "contact %zu: stacks of different lengths", k);
    cr_assert_eq(cells, JAGER_STATE(ca).length);
    cr_assert_eq(cells, JAGER_STATE(cb).length);
}

static void assert_worlds_equal(const ldem_world *a, const ldem_world *b, int law)
{
    const ldem_bodies *ba = &a->bodies, *bb = &b->bodies;
    cr_assert_eq(ba->count, bb->count);
    for (size_t i = 0; i < ba->count; i++) {
        SAME_BITS(ba->x[i], bb->x[i], "body %zu: x", i);
        SAME_BITS(ba->v[i], bb->v[i], "body %zu: v", i);
        SAME_BITS(ba->q[i], bb->q[i], "body %zu: q", i);
        SAME_BITS(ba->L[i], bb->L[i], "body %zu: L", i);
        SAME_BITS(ba->force[i], bb->force[i], "body %zu: force", i);
        SAME_BITS(ba->torque[i], bb->torque[i], "body %zu: torque", i);
        SAME_BITS(ba->x_prev[i], bb->x_prev[i], "body %zu: x_prev", i);
        SAME_BITS(ba->q_prev[i], bb->q_prev[i], "body %zu: q_prev", i);
        SAME_BITS(a->x_list[i], b->x_list[i], "body %zu: x_list", i);
    }
    for (size_t k = 0; k < a->nwalls; k++) {
        const ldem_wall *wa = &a->walls[k], *wb = &b->walls[k];
        SAME_BITS(wa->disp, wb->disp, "wall %zu: disp", k);
        SAME_BITS(wa->disp_prev, wb->disp_prev, "wall %zu: disp_prev", k);
        SAME_BITS(wa->vel, wb->vel, "wall %zu: vel", k);
        SAME_BITS(wa->force, wb->force, "wall %zu: force", k);
        SAME_BITS(wa->work, wb->work, "wall %zu: work", k);
        SAME_BITS(a->wall_disp_list[k], b->wall_disp_list[k], "wall %zu: list", k);
    }
    SAME_BITS(a->t, b->t, "%s", "t");
    SAME_BITS(a->dt, b->dt, "%s", "dt");
    SAME_BITS(a->skin, b->skin, "%s", "skin");
    SAME_BITS(a->e_initial, b->e_initial, "%s", "e_initial");
    SAME_BITS(a->potential0, b->potential0, "%s", "potential0");
    SAME_BITS(a->work_walls, b->work_walls, "%s", "work_walls");
    SAME_BITS(a->work_damping, b->work_damping, "%s", "work_damping");
    SAME_BITS(a->dissipated_contacts_released, b->dissipated_contacts_released, "%s", "released");
    cr_assert_eq(a->step, b->step);
    cr_assert_eq(a->list_builds, b->list_builds);
    cr_assert_eq(a->ncontacts, b->ncontacts);
    for (size_t k = 0; k < a->ncontacts; k++) {
        const ldem_contact *ca = &a->contacts[k], *cb = &b->contacts[k];
        cr_assert(ca->i == cb->i && ca->j == cb->j && ca->law == cb->law &&
                      ca->shard == cb->shard && ca->npatch == cb->npatch &&
                      ca->nsprings == cb->nsprings,
                  "contact %zu: indices", k);
        SAME_BITS(ca->frame, cb->frame, "contact %zu: frame", k);
        SAME_BITS(ca->normal, cb->normal, "contact %zu: normal", k);
        SAME_BITS(ca->point, cb->point, "contact %zu: point", k);
        SAME_BITS(ca->overlap, cb->overlap, "contact %zu: overlap", k);
        SAME_BITS(ca->r1, cb->r1, "contact %zu: r1", k);
        SAME_BITS(ca->r2, cb->r2, "contact %zu: r2", k);
        SAME_BITS(ca->fn, cb->fn, "contact %zu: fn", k);
        SAME_BITS(ca->ft, cb->ft, "contact %zu: ft", k);
        SAME_BITS(ca->torque_i, cb->torque_i, "contact %zu: torque_i", k);
        SAME_BITS(ca->torque_j, cb->torque_j, "contact %zu: torque_j", k);
        SAME_BITS(ca->pair, cb->pair, "contact %zu: Hertz constants", k);
        SAME_BITS(ca->stored_normal, cb->stored_normal, "contact %zu: stored_normal", k);
        SAME_BITS(ca->dissipated, cb->dissipated, "contact %zu: dissipated", k);
        if (law == LDEM_LAW_HERTZ_JAGER) {
            const ldem_jager_contact *ja = &JAGER_STATE(ca), *jb = &JAGER_STATE(cb);
            SAME_BITS(ja->d, jb->d, "contact %zu: d", k);
            SAME_BITS(ja->s, jb->s, "contact %zu: s", k);
            SAME_BITS(ja->n, jb->n, "contact %zu: n", k);
            SAME_BITS(ja->t, jb->t, "contact %zu: t", k);
            SAME_BITS(ja->dissipated, jb->dissipated, "contact %zu: dissipated", k);
            assert_stacks_equal(a, b, k);
        } else {
            /* Every other law: the state it declares, bit for bit. */
            size_t bytes = a->laws[ca->law].ops->state_size;
            cr_assert(memcmp(ca->law_state, cb->law_state, bytes) == 0,
                      "contact %zu: law state", k);
        }
        for (uint32_t s = 0; s < ca->nsprings; s++) {
            cr_assert_eq(ca->springs[s].key, cb->springs[s].key);
            SAME_BITS(ca->springs[s].xi, cb->springs[s].xi, "contact %zu: spring %u", k, s);
        }
    }
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++) {
        cr_assert_eq(a->pools[s].live, b->pools[s].live, "pool %u: live", s);
        cr_assert_eq(a->pools[s].capacity, b->pools[s].capacity, "pool %u: capacity", s);
        cr_assert_eq(a->pools[s].peak, b->pools[s].peak, "pool %u: peak", s);
    }
}

static void save_ok(const char *path, const ldem_world *w, const ldem_checkpoint_extra *x)
{
    ldem_err err;
    cr_assert_eq(ldem_checkpoint_save(path, w, x, &err), LDEM_OK, "%s", err.msg);
}

static void load_ok(const char *path, ldem_world *w, ldem_checkpoint_extra *x)
{
    ldem_err err;
    cr_assert_eq(ldem_checkpoint_load(path, w, x, &err), LDEM_OK, "%s", err.msg);
}

/* ---- round trips ---- */

Test(checkpoint, jager_round_trip_bitwise)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "jager");
    snprintf(path, sizeof path, "%s/run.ldc", dir);

    ldem_world a, b;
    jager_world(&a, 100);
    /* The test must exercise real stacks: long ones, several per pool, a hole. */
    uint32_t longest = 0, total = 0;
    for (size_t k = 0; k < a.ncontacts; k++) {
        uint32_t len = JAGER_STATE(&a.contacts[k]).length;
        longest = len > longest ? len : longest;
        total += len;
    }
    cr_assert_geq(longest, 5, "longest stack %u", longest);
    cr_assert_geq(a.pools[5].live, 6);
    cr_assert_gt(a.pools[5].capacity - 1, a.pools[5].live, "no free cells in pool 5");
    cr_log_info("Jäger checkpoint: %u cells, longest stack %u", total, longest);

    double frames[3] = {0.0, 1.5e-4, 3.0e-4};
    ldem_checkpoint_extra xa = {3, frames}, xb = {0, NULL};
    save_ok(path, &a, &xa);

    /* Same static description, different state and contacts (which the load replaces). */
    jager_world(&b, 200);
    free(b.x_list);
    b.x_list = NULL;
    load_ok(path, &b, &xb);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_JAGER);
    cr_assert_eq(xb.nframes, 3);
    for (int k = 0; k < 3; k++)
        SAME_BITS(xb.frame_times[k], frames[k], "frame %d", k);
    free(xb.frame_times);

    /* Continue both along the same histories: identical bits (forces and stacks). */
    drive_jager(&a, 30, 300);
    drive_jager(&b, 30, 300);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_JAGER);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

Test(checkpoint, mindlin_round_trip_bitwise)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "mindlin");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a, b;
    build_world(&a, LDEM_LAW_HERTZ_MINDLIN, NBODIES);
    randomize_state(&a, 1);
    add_contacts(&a, NPAIRS);
    drive_mindlin(&a, 25, 2);
    int loaded = 0;
    for (size_t k = 0; k < a.ncontacts; k++)
        loaded +=
            MINDLIN_STATE(&a.contacts[k]).xi[0] != 0 && MINDLIN_STATE(&a.contacts[k]).a > 0;
    cr_assert_gt(loaded, 4);
    save_ok(path, &a, NULL);
    build_world(&b, LDEM_LAW_HERTZ_MINDLIN, NBODIES);
    randomize_state(&b, 3);
    load_ok(path, &b, NULL);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_MINDLIN);
    drive_mindlin(&a, 10, 4);
    drive_mindlin(&b, 10, 4);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_MINDLIN);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

/* Linear law: node springs (the law keeps no other state). */
Test(checkpoint, linear_springs_round_trip)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "linear");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a, b;
    build_world(&a, LDEM_LAW_LINEAR, NBODIES);
    randomize_state(&a, 5);
    add_contacts(&a, NPAIRS);
    for (size_t k = 0; k < a.ncontacts; k++) {
        ldem_contact *c = &a.contacts[k];
        c->nsprings = (uint32_t)(k % 4) * 3; /* 0 to 9 springs */
        c->springs_capacity = c->nsprings + 5;
        c->springs = calloc(c->springs_capacity, sizeof *c->springs);
        cr_assert(c->springs);
        for (uint32_t s = 0; s < c->nsprings; s++) {
            c->springs[s].key = (uint32_t)(s % 2) << 31 | (uint32_t)(splitmix64() % 642);
            for (int q = 0; q < 3; q++)
                c->springs[s].xi[q] = rng_uniform(-1e-6, 1e-6);
        }
    }
    save_ok(path, &a, NULL);
    build_world(&b, LDEM_LAW_LINEAR, NBODIES);
    load_ok(path, &b, NULL);
    assert_worlds_equal(&a, &b, LDEM_LAW_LINEAR);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

/* A slip front that lands on a cell's base to within rounding must not leave that cell with
 * zero width (its base the base of the slip cell pushed above it): the loader, which wants
 * levels falling strictly, refuses such a checkpoint ("history cell 2 has level …; levels
 * must fall from the approach …"). The law swallows such a cell
 * (test_checkpoint_jager_law.c); the loader keeps checking exactly that. Two stacks: the one
 * the law builds in three moves at a constant approach of 1 µm (load, slide by s = μκ·1 nm,
 * slide back by 2s(1 − 2e-15): the front lands at depth 1 nm·(1 − 2e-15) in the 1 nm slip
 * cell, d − depth rounds to that cell's base), which must round-trip and continue bit for bit
 * without a zero-width cell; and the stack the old law left, built by hand, which a version-4
 * file must not hold (version-3 files with it load without the cell: version_3_loads_…). */
static void expect_load_error(const char *path, int code, const char *needle);

static uint32_t zero_width_cells(const ldem_world *w, size_t k)
{
    const ldem_contact *c = &w->contacts[k];
    const ldem_history_pool *pool = &w->pools[c->shard];
    uint32_t n = 0;
    double above = JAGER_STATE(c).d;
    for (ldem_jager_cursor q = ldem_jager_first(pool, &JAGER_STATE(c)); q.cell;
         ldem_jager_next(pool, &q)) {
        n += q.cell->base >= above;
        above = q.cell->base;
    }
    return n;
}

Test(checkpoint, front_on_a_cell_base_round_trips_and_zero_width_is_refused)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "zero-width");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a;
    build_world(&a, LDEM_LAW_HERTZ_JAGER, NBODIES);
    randomize_state(&a, 40);
    add_contacts(&a, 1);
    ldem_contact *c = &a.contacts[0];
    ldem_history_pool *pool = &a.pools[c->shard];
    ldem_jager_params p = jager_params(c);
    const double d = D_REF, s = p.mu * p.pair.kappa * 1e-9;
    cr_assert_eq(ldem_jager_move_to(&p, pool, &JAGER_STATE(c), d, (double[2]){0, 0}), LDEM_OK);
    cr_assert_eq(ldem_jager_move_to(&p, pool, &JAGER_STATE(c), d, (double[2]){s, 0}), LDEM_OK);
    double back = s - 2 * s * (1 - 2e-15);
    cr_assert_eq(ldem_jager_move_to(&p, pool, &JAGER_STATE(c), d, (double[2]){back, 0}),
                 LDEM_OK);
    cr_assert_eq(zero_width_cells(&a, 0), 0u, "the law left a cell without width");
    save_ok(path, &a, NULL);
    ldem_world b;
    build_world(&b, LDEM_LAW_HERTZ_JAGER, NBODIES);
    load_ok(path, &b, NULL);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_JAGER);
    drive_jager(&a, 20, 41);
    drive_jager(&b, 20, 41);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_JAGER);
    ldem_world_free(&a);
    ldem_world_free(&b);

    /* The old law's stack by hand: the slip cell from the base b up to d, the cell of zero
     * width at b, the bottom cell from 0, the top two held in the contact. */
    build_world(&a, LDEM_LAW_HERTZ_JAGER, NBODIES);
    randomize_state(&a, 40);
    add_contacts(&a, 1);
    c = &a.contacts[0];
    pool = &a.pools[c->shard];
    ldem_jager_contact *j = &JAGER_STATE(c);
    const double base = d - 1e-9;
    uint32_t bottom = ldem_history_push(pool, 0);
    cr_assert_neq(bottom, 0u);
    pool->cell[bottom] = (ldem_history_cell){0.0, {0.0, 0.0}};
    pool->merged[bottom] = 0;
    j->top = bottom;
    j->held[1] = (ldem_history_cell){base, {p.mu, 0.0}};
    j->held[0] = (ldem_history_cell){base, {-p.mu, 0.0}};
    j->held_merged[0] = j->held_merged[1] = 0;
    j->chain.active = 0;
    j->held_top = 0;
    j->nheld = 2;
    j->length = 3;
    j->d = d;
    j->n = ldem_hertz_force(&p.pair, d);
    j->s[0] = back, j->s[1] = 0.0;
    ldem_jager_force_from_stack(&p, pool, j, j->t);
    cr_assert_eq(zero_width_cells(&a, 0), 1u);
    save_ok(path, &a, NULL);
    expect_load_error(path, LDEM_ERR_INPUT, "history cell 2 has level");
    ldem_world_free(&a);
}

/* A world with no contacts, no list yet and no frames: the absent parts stay absent. */
Test(checkpoint, empty_parts)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "empty");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a, b;
    build_world(&a, LDEM_LAW_HERTZ_JAGER, 3);
    a.step = 7;
    a.t = 7 * a.dt;
    save_ok(path, &a, NULL);
    build_world(&b, LDEM_LAW_HERTZ_JAGER, 3);
    randomize_state(&b, 9); /* gives b a list, which the load must remove */
    add_contacts(&b, 2);
    drive_jager(&b, 5, 10);
    ldem_checkpoint_extra x = {0, NULL};
    load_ok(path, &b, &x);
    cr_assert_null(b.x_list);
    cr_assert_null(b.wall_disp_list);
    cr_assert_eq(b.ncontacts, 0);
    cr_assert_eq(x.nframes, 0);
    cr_assert_null(x.frame_times);
    cr_assert_eq(ldem_world_history_cells(&b), 0);
    cr_assert(b.t == 7 * a.dt && b.step == 7);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

/* ---- damage ---- */

/* Load `path` into a fresh Jäger world; require `code` and a message containing `needle`
 * (and the file's name), and that the world was left as built. */
static void expect_load_error(const char *path, int code, const char *needle)
{
    ldem_world w;
    jager_world(&w, 777);
    ldem_vec3 x0 = w.bodies.x[0];
    size_t ncontacts = w.ncontacts;
    uint64_t cells = ldem_world_history_cells(&w);
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_checkpoint_load(path, &w, NULL, &err);
    cr_assert_eq(rc, code, "%s: status %d (%s), expected %d", path, rc, err.msg, code);
    cr_log_info("%s: byte %lld: %s", err.file, err.offset, err.msg);
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
    cr_assert(strcmp(err.file, path) == 0, "error names '%s', not the file", err.file);
    SAME_BITS(w.bodies.x[0], x0, "%s", "the world was modified by a failed load");
    cr_assert_eq(w.ncontacts, ncontacts);
    cr_assert_eq(ldem_world_history_cells(&w), cells);
    ldem_world_free(&w);
}

static void save_reference(const char *path)
{
    ldem_world a;
    jager_world(&a, 100);
    double frames[2] = {0.0, 1e-4};
    ldem_checkpoint_extra x = {2, frames};
    save_ok(path, &a, &x);
    ldem_world_free(&a);
}

Test(checkpoint, truncated_file)
{
    char dir[512], path[600], cut[620];
    tmp_dir(dir, sizeof dir, "truncated");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(cut, sizeof cut, "%s/cut.ldc", dir);
    save_reference(path);
    size_t n;
    unsigned char *d = slurp(path, &n);
    /* Inside the file header, a section header, the CKPT payload, ..., the end marker. */
    const size_t lengths[] = {0, 5, 16, 24, 100, 700, n / 3, n / 2, n - 300, n - 21, n - 1};
    for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
        spit(cut, d, lengths[k]);
        expect_load_error(cut, LDEM_ERR_INPUT, lengths[k] == 0 ? "empty" : "truncated");
    }
    free(d);
}

Test(checkpoint, flipped_byte_in_every_section)
{
    char dir[512], path[600], bad[620];
    tmp_dir(dir, sizeof dir, "flipped");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(bad, sizeof bad, "%s/bad.ldc", dir);
    save_reference(path);
    size_t n;
    unsigned char *d = slurp(path, &n);
    /* Walk the sections by their headers and flip one payload byte in each. */
    int sections = 0;
    for (size_t at = LDEM_BUNDLE_HEADER_SIZE; at + LDEM_SECTION_HEADER_SIZE <= n;) {
        uint64_t len = ldem_get_u64le(d + at + 8);
        if (memcmp(d + at, "ENDB", 4) == 0)
            break;
        if (len) {
            size_t pos = at + LDEM_SECTION_HEADER_SIZE + (size_t)len / 2;
            d[pos] ^= 0x10;
            spit(bad, d, n);
            d[pos] ^= 0x10;
            expect_load_error(bad, LDEM_ERR_INPUT, "CRC mismatch");
            sections++;
        }
        at += LDEM_SECTION_HEADER_SIZE + (size_t)len + LDEM_SECTION_TRAILER_SIZE;
    }
    cr_assert_eq(sections, 7, "%d non-empty sections", sections); /* with WSRV */
    free(d);
}

/* ---- version 3 files (before lossless compression's state) ---- */

static void header_to_version_3(ldem_section *s)
{
    ldem_put_u32le(s->data, 3);
    ldem_put_u32le(s->data + 4, ldem_get_u32le(s->data + 4) - 1); /* no merged flag */
}

/* Each contact record without its growing leg (12 values after the law state) and each cell
 * without its merged flag (no force cache here: z, wx, wy, merged). */
static void contacts_to_version_3(ldem_section *s)
{
    unsigned char *out = malloc(s->length ? s->length : 1);
    cr_assert(out);
    size_t at = 0, put = 0;
    while (at < s->length) {
        uint32_t nsprings = ldem_get_u32le(s->data + at + 24);
        uint32_t ncells = ldem_get_u32le(s->data + at + 28);
        memcpy(out + put, s->data + at, 412);
        put += 412, at += RECORD;
        for (uint32_t q = 0; q < ncells; q++, at += CELL_BYTES, put += 24)
            memcpy(out + put, s->data + at, 24);
        memcpy(out + put, s->data + at, 28 * (size_t)nsprings);
        put += 28 * (size_t)nsprings, at += 28 * (size_t)nsprings;
    }
    free(s->data);
    s->data = out;
    s->length = put;
}

/* In a version-3 CONT section: the first contact with at least 3 cells gets a second cell
 * without width (its top level set to the level of the cell below it). */
static size_t zero_width_contact;
static void zero_width_in_version_3(ldem_section *s)
{
    size_t at = 0, k = 0;
    while (ldem_get_u32le(s->data + at + 28) < 3) {
        at += 412 + 24 * (size_t)ldem_get_u32le(s->data + at + 28) +
              28 * (size_t)ldem_get_u32le(s->data + at + 24);
        k++;
        cr_assert_lt(at, s->length, "no contact with 3 history cells");
    }
    zero_width_contact = k;
    unsigned char *cells = s->data + at + 412;
    ldem_put_f64le(cells + 24, ldem_get_f64le(cells + 48));
}

Test(checkpoint, version_3_loads_with_cells_marked_merged)
{
    char dir[512], path[600], mid[620], old[620];
    tmp_dir(dir, sizeof dir, "version3");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(mid, sizeof mid, "%s/mid.ldc", dir);
    snprintf(old, sizeof old, "%s/v3.ldc", dir);
    ldem_world a, b;
    jager_world(&a, 100);
    save_ok(path, &a, NULL);
    wf_patch_section(path, mid, "CKPT", header_to_version_3);
    wf_patch_section(mid, old, "CONT", contacts_to_version_3);
    jager_world(&b, 200);
    load_ok(old, &b, NULL);
    uint32_t cells = 0;
    for (size_t k = 0; k < a.ncontacts; k++) {
        assert_stacks_equal(&a, &b, k);
        const ldem_jager_contact *j = &JAGER_STATE(&b.contacts[k]);
        cr_assert_eq(j->chain.active, 0u, "contact %zu: a version-3 leg does not grow", k);
        const ldem_history_pool *pool = &b.pools[b.contacts[k].shard];
        for (ldem_jager_cursor q = ldem_jager_first(pool, j); q.cell; ldem_jager_next(pool, &q)) {
            uint8_t merged = q.pool_index ? pool->merged[q.pool_index]
                                          : j->held_merged[j->held_top ^ q.position];
            cr_assert_eq(merged, 1, "contact %zu: a version-3 cell is restored merged", k);
            cells++;
        }
    }
    cr_assert_gt(cells, 0u);

    /* Version 3's law could leave a cell without width; such a file loads, without it. */
    char flat[620];
    snprintf(flat, sizeof flat, "%s/v3-zero-width.ldc", dir);
    wf_patch_section(old, flat, "CONT", zero_width_in_version_3);
    ldem_world c3;
    jager_world(&c3, 300);
    load_ok(flat, &c3, NULL);
    size_t k3 = zero_width_contact;
    cr_assert_eq(JAGER_STATE(&c3.contacts[k3]).length, JAGER_STATE(&a.contacts[k3]).length - 1,
                 "the cell without width is left out");
    double above = JAGER_STATE(&c3.contacts[k3]).d;
    const ldem_history_pool *p3 = &c3.pools[c3.contacts[k3].shard];
    for (ldem_jager_cursor q = ldem_jager_first(p3, &JAGER_STATE(&c3.contacts[k3])); q.cell;
         ldem_jager_next(p3, &q)) {
        cr_assert_lt(q.cell->base, above, "levels fall strictly after the restore");
        above = q.cell->base;
    }
    ldem_world_free(&c3);

    /* Compressing less is lossless: the same further histories give the same forces. */
    drive_jager(&a, 30, 300);
    drive_jager(&b, 30, 300);
    for (size_t k = 0; k < a.ncontacts; k++) {
        const ldem_jager_contact *ja = &JAGER_STATE(&a.contacts[k]);
        const ldem_jager_contact *jb = &JAGER_STATE(&b.contacts[k]);
        double mun = 0.3 * fmax(ja->n, 1e-300);
        cr_assert_eq(ja->n, jb->n);
        cr_assert_leq(hypot(ja->t[0] - jb->t[0], ja->t[1] - jb->t[1]), 1e-12 * mun,
                      "contact %zu: T differs after a version-3 restart", k);
    }
    ldem_world_free(&a);
    ldem_world_free(&b);
}

Test(checkpoint, another_scene_is_refused)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "scene");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a, b;
    build_world(&a, LDEM_LAW_HERTZ_JAGER, 4);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    /* The default target world has NBODIES = 6 bodies. */
    expect_load_error(path, LDEM_ERR_INPUT, "4 bodies but the scene has 6");

    /* Same counts, one sphere's radius (hence mass) differs. */
    jager_world(&a, 1);
    a.bodies.mass[3] *= 1.0 + 1e-15;
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    expect_load_error(path, LDEM_ERR_INPUT, "different scene");

    /* Another contact law. */
    build_world(&b, LDEM_LAW_HERTZ_MINDLIN, NBODIES);
    save_ok(path, &b, NULL);
    ldem_world_free(&b);
    expect_load_error(path, LDEM_ERR_INPUT, "different scene");
}

/* Rewrite one section of a saved checkpoint (the CRC is recomputed: only the loader's own
 * checks can catch these). */
/* Bytes of a contact record before its cells (docs/checkpoint.md). */

static void bad_body_index(ldem_section *s)
{
    ldem_put_u32le(s->data, 99);
}
static void bad_held_count(ldem_section *s)
{
    /* First contact: ncells at byte 28, the cells its contact holds at 32 (at most 2). */
    ldem_put_u32le(s->data + 32, 3);
}
static void nan_velocity(ldem_section *s)
{
    ldem_put_f64le(s->data + 208 * 2 + 24, NAN);
}
static void short_bodies(ldem_section *s)
{
    s->length -= 8;
}
static void trailing_byte(ldem_section *s)
{
    unsigned char *d = realloc(s->data, s->length + 1);
    cr_assert(d);
    d[s->length++] = 0;
    s->data = d;
}
static void wall_out_of_range(ldem_section *s)
{
    /* Contact 6 is (0, wall 0): find it by walking the records. */
    size_t at = 0;
    for (int k = 0; k < 6; k++) {
        uint32_t ncells = ldem_get_u32le(s->data + at + 28);
        uint32_t nsprings = ldem_get_u32le(s->data + at + 24);
        at += RECORD + CELL_BYTES * (size_t)ncells + 28 * (size_t)nsprings;
    }
    cr_assert_eq(ldem_get_u32le(s->data + at + 4), LDEM_WALL_BIT);
    ldem_put_u32le(s->data + at + 4, LDEM_WALL_BIT | 2);
}
static void nan_history_cell(ldem_section *s)
{
    /* The first contact with cells: its first cell's slope. */
    size_t at = 0;
    while (ldem_get_u32le(s->data + at + 28) == 0)
        at += RECORD + 28 * (size_t)ldem_get_u32le(s->data + at + 24);
    ldem_put_f64le(s->data + at + RECORD + 8, NAN);
}
/* The first contact with at least `cells` cells (no force cache). */
static size_t contact_with_cells(const ldem_section *s, uint32_t cells)
{
    size_t at = 0;
    while (ldem_get_u32le(s->data + at + 28) < cells) {
        at += RECORD + CELL_BYTES * (size_t)ldem_get_u32le(s->data + at + 28) +
              28 * (size_t)ldem_get_u32le(s->data + at + 24);
        cr_assert_lt(at, s->length, "no contact with %u history cells", cells);
    }
    return at;
}
static void top_level_off_the_approach(ldem_section *s)
{
    /* the pool takes the top cell's level from d: a file that says otherwise is refused */
    size_t at = contact_with_cells(s, 1) + RECORD;
    ldem_put_f64le(s->data + at, 1.5 * ldem_get_f64le(s->data + at));
}
static void levels_not_falling(ldem_section *s)
{
    /* cell 1 as high as cell 0: a cell without width, which the law never leaves */
    size_t at = contact_with_cells(s, 2) + RECORD;
    ldem_put_f64le(s->data + at + CELL_BYTES, ldem_get_f64le(s->data + at));
}
static void level_rising(ldem_section *s)
{
    /* cell 1 reaching above the approach, where cell 0 ends */
    size_t at = contact_with_cells(s, 2) + RECORD;
    ldem_put_f64le(s->data + at + CELL_BYTES, 1.5 * ldem_get_f64le(s->data + at));
}
static void level_not_positive(ldem_section *s)
{
    size_t at = contact_with_cells(s, 3) + RECORD;
    ldem_put_f64le(s->data + at + 2 * CELL_BYTES, 0.0);
}
static void approach_not_positive(ldem_section *s)
{
    /* d (law state value 0) and the top level with it: a stack under no approach */
    size_t at = contact_with_cells(s, 1);
    ldem_put_f64le(s->data + at + 332, -1e-9);
    ldem_put_f64le(s->data + at + RECORD, -1e-9);
}
static void slope_above_mu(ldem_section *s)
{
    size_t at = contact_with_cells(s, 1) + RECORD;
    ldem_put_f64le(s->data + at + 8, 0.31); /* mu = 0.3 */
    ldem_put_f64le(s->data + at + 16, 0.0);
}

static void nan_normal_force(ldem_section *s)
{
    /* the first contact's fn.y: after nine u32, the frame, normal, point, overlap, r1, r2 */
    ldem_put_f64le(s->data + 36 + 8 * (4 + 3 + 3 + 1 + 2) + 8, NAN);
}

static void huge_frame_count(ldem_section *s)
{
    ldem_put_u64le(s->data + 48, UINT64_C(1) << 61);
}
static void huge_pool(ldem_section *s)
{
    ldem_put_u32le(s->data + 152 + 5 * 8, 0x80000000u);
}
/* Capacity and peak agree (capacity within twice the peak), but 2^32 − 16 slots of pool 5
 * would take ~140 GB: refused by the memory check before anything is allocated. */
static void huge_pool_and_peak(ldem_section *s)
{
    ldem_put_u32le(s->data + 152 + 5 * 8, 0xfffffff0u);
    ldem_put_u32le(s->data + 152 + 5 * 8 + 4, 0x7ffffff8u);
}
static void more_contacts(ldem_section *s)
{
    ldem_put_u64le(s->data + 24, ldem_get_u64le(s->data + 24) + 1);
}

/* The header's clock: step at byte 56, t at 80, dt at 88, skin at 96. */
static void step_near_wraparound(ldem_section *s)
{
    ldem_put_u64le(s->data + 56, UINT64_MAX - 255);
}
static void negative_dt(ldem_section *s)
{
    ldem_put_f64le(s->data + 88, -ldem_get_f64le(s->data + 88));
}
static void zero_dt(ldem_section *s)
{
    ldem_put_f64le(s->data + 88, 0.0);
}
static void infinite_dt(ldem_section *s)
{
    ldem_put_f64le(s->data + 88, INFINITY);
}
static void nan_time(ldem_section *s)
{
    ldem_put_f64le(s->data + 80, NAN);
}
static void negative_time(ldem_section *s)
{
    ldem_put_f64le(s->data + 80, -ldem_get_f64le(s->data + 80));
}
static void time_ahead_of_steps(ldem_section *s)
{
    /* half again the time the steps took (one step's difference would drown in the sum's
     * rounding at the fixture's 10^13 steps) */
    ldem_put_f64le(s->data + 80, 1.5 * ldem_get_f64le(s->data + 80));
}
static void step_behind_time(ldem_section *s)
{
    ldem_put_u64le(s->data + 56, ldem_get_u64le(s->data + 56) / 2);
}
static void negative_skin(ldem_section *s)
{
    ldem_put_f64le(s->data + 96, -1e-3);
}

Test(checkpoint, bad_contents_with_valid_crc)
{
    char dir[512], path[600], bad[620];
    tmp_dir(dir, sizeof dir, "contents");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(bad, sizeof bad, "%s/bad.ldc", dir);
    save_reference(path);
    struct {
        const char *tag;
        void (*patch)(ldem_section *);
        const char *needle;
    } cases[] = {
        {"CONT", bad_body_index, "body 99 out of range"},
        {"CONT", bad_held_count, "held in the contact (at most 2)"},
        {"CONT", wall_out_of_range, "wall 2 out of range"},
        {"CONT", nan_history_cell, "history cell: value 1 is nan"},
        {"CONT", nan_normal_force, "contact 0: normal force: value 1 is nan"},
        {"CONT", top_level_off_the_approach, "history cell 0 has level"},
        {"CONT", levels_not_falling, "history cell 1 has level"},
        {"CONT", level_rising, "history cell 1 has level"},
        {"CONT", level_not_positive, "history cell 2 has level 0 (a stack's levels"},
        {"CONT", approach_not_positive, "history cell 0 has level -1.0000000000000001e-09 ("},
        {"CONT", slope_above_mu, "above the friction coefficient"},
        {"CONT", trailing_byte, "unexpected bytes"},
        {"BODS", nan_velocity, "body 2: value 3"},
        {"BODS", short_bodies, "1240 bytes for 6 bodies (expected 1248)"},
        {"FRMS", short_bodies, "frame time"},
        {"CKPT", huge_frame_count, "more than any file holds"},
        {"CKPT", huge_pool, "history pool 5: capacity 2147483648"},
        {"CKPT", more_contacts, "contact 8: the section ends"},
        {"CKPT", step_near_wraparound, "step 18446744073709551360 is beyond 2^53"},
        {"CKPT", negative_dt, "time step dt = -"},
        {"CKPT", zero_dt, "time step dt = 0 (expected > 0)"},
        {"CKPT", infinite_dt, "value 1 is inf (expected finite)"},
        {"CKPT", nan_time, "value 0 is nan (expected finite)"},
        {"CKPT", negative_time, "(expected >= 0: runs start at 0)"},
        {"CKPT", time_ahead_of_steps, "the clock does not match the step count"},
        {"CKPT", step_behind_time, "the clock does not match the step count"},
        {"CKPT", negative_skin, "skin -0.001 (expected >= 0)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        wf_patch_section(path, bad, cases[k].tag, cases[k].patch);
        expect_load_error(bad, LDEM_ERR_INPUT, cases[k].needle);
    }
    /* Skipped on a machine with the ~140 GB it asks for: there the load would allocate them. */
    if (ldem_memory_machine_bytes() < (UINT64_C(1) << 37)) {
        wf_patch_section(path, bad, "CKPT", huge_pool_and_peak);
        expect_load_error(bad, LDEM_ERR_INPUT, "history pools of the checkpoint needs ~");
    }
    /* A grain bundle is not a checkpoint. */
    FILE *fp = fopen(bad, "wb");
    cr_assert(fp);
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "META", 0, "name=x\n", 7, &err), LDEM_OK);
    cr_assert_eq(ldem_bundle_write(fp, bad, &b, &err), LDEM_OK);
    ldem_bundle_free(&b);
    fclose(fp);
    expect_load_error(bad, LDEM_ERR_INPUT, "not a demrun checkpoint");
    /* A missing file. */
    char missing[640];
    snprintf(missing, sizeof missing, "%s/none.ldc", dir);
    expect_load_error(missing, LDEM_ERR_INPUT, "cannot open");
}

/* Names in `dir` starting with `prefix`. */
static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    cr_assert(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

Test(checkpoint, save_is_atomic)
{
    char dir[512], path[600], missing[640];
    tmp_dir(dir, sizeof dir, "atomic");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(missing, sizeof missing, "%s/no-such-folder/run.ldc", dir);
    ldem_world a;
    jager_world(&a, 100);
    ldem_err err;
    /* a missing folder is the user's path to fix: bad input (err.h) */
    cr_assert_eq(ldem_checkpoint_save(missing, &a, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.file, "no-such-folder"), "%s", err.file);
    struct stat st;
    cr_assert(stat(missing, &st) != 0 && errno == ENOENT);

    /* A good checkpoint, then a rewrite that fails half-way (a broken stack is found before
     * writing; a directory in the way fails at the rename): the old file survives intact
     * and no temporary remains. */
    remove(path);
    save_ok(path, &a, NULL);
    size_t n0;
    unsigned char *before = slurp(path, &n0);
    JAGER_STATE(&a.contacts[0]).length++;
    cr_assert_eq(ldem_checkpoint_save(path, &a, NULL, &err), LDEM_ERR_INTERNAL);
    cr_assert(strstr(err.msg, "contact 0"), "%s", err.msg);
    JAGER_STATE(&a.contacts[0]).length--;
    size_t n1;
    unsigned char *after = slurp(path, &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "the old checkpoint was changed");
    free(after);
    free(before);

    char blocked[640];
    snprintf(blocked, sizeof blocked, "%s/blocked.ldc", dir);
    cr_assert(mkdir(blocked, 0777) == 0 || errno == EEXIST);
    /* a directory in the way is refused before anything is written: bad input (outfile.h) */
    cr_assert_eq(ldem_checkpoint_save(blocked, &a, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "is a directory"), "%s", err.msg);
    cr_assert_eq(count_entries(dir, "blocked.ldc.tmp"), 0);
    cr_assert_eq(count_entries(dir, "run.ldc.tmp"), 0);
    ldem_world b;
    build_world(&b, LDEM_LAW_HERTZ_JAGER, NBODIES);
    load_ok(path, &b, NULL);
    assert_worlds_equal(&a, &b, LDEM_LAW_HERTZ_JAGER);
    ldem_world_free(&a);
    ldem_world_free(&b);
}

/* ---- a real run: stopped, saved, restored and continued ---- */

/* Twelve glass spheres (R = 1 mm) in two slightly overlapping layers on a floor, with random
 * velocities and spins under gravity: pressed, sliding and rolling contacts with histories. */
static void falling_spheres(ldem_world *w, int law)
{
    wf_world(w, law);
    rng_seed(42);
    /* Neighbours and the floor overlap by about 0.2 µm: contacts from the first step. */
    const double pitch = 2.0 * RADIUS - 2e-7;
    for (int k = 0; k < 12; k++) {
        ldem_vec3 x =
            ldem_vec3_make(pitch * (k % 3), pitch * ((k / 3) % 2), RADIUS - 1e-7 + pitch * (k / 6));
        uint32_t i = wf_add_sphere(w, ldem_vec3_add(x, rng_vec3(2e-8)), RADIUS, rng_vec3(0.005));
        w->bodies.L[i] = ldem_vec3_scale(rng_vec3(20.0), w->bodies.inertia[i].x);
    }
    wf_add_plane(w, ldem_vec3_make(0, 0, 0), ldem_vec3_make(0, 0, 1));
    /* A centrifuge's gravity: the weight (0.1 N) holds the 0.2 µm overlaps together. */
    w->gravity = ldem_vec3_make(0, 0, -1e4);
    w->skin = 0.1 * RADIUS;
    w->dt = 2e-8;
}

static void run_steps(ldem_world *w, int steps)
{
    ldem_err err;
    for (int s = 0; s < steps; s++)
        cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "step %d: %s", s, err.msg);
}

static void restart_test(int law, const char *name)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, name);
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    const int half = 1500;
    ldem_err err;
    ldem_world whole, first, second;
    falling_spheres(&whole, law);
    falling_spheres(&first, law);
    cr_assert_eq(ldem_world_prepare(&whole, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_world_prepare(&first, &err), LDEM_OK, "%s", err.msg);
    run_steps(&whole, 2 * half);
    run_steps(&first, half);
    save_ok(path, &first, NULL);
    uint64_t cells = ldem_world_history_cells(&first);
    size_t touching = 0;
    for (size_t k = 0; k < first.ncontacts; k++)
        touching += first.contacts[k].overlap > 0;
    ldem_world_free(&first);
    /* A fresh world from the same description, restored without prepare. */
    falling_spheres(&second, law);
    load_ok(path, &second, NULL);
    run_steps(&second, half);
    cr_log_info("%s restart: %zu contacts touching and %llu history cells at the save", name,
                touching, (unsigned long long)cells);
    cr_assert_gt(touching, 5, "the run must have contacts at the save");
    if (law == LDEM_LAW_HERTZ_JAGER)
        cr_assert_gt(cells, 5, "the run must have Jäger histories at the save");
    assert_worlds_equal(&whole, &second, law);
    ldem_world_free(&whole);
    ldem_world_free(&second);
}

Test(checkpoint, restart_continues_bitwise_jager)
{
    restart_test(LDEM_LAW_HERTZ_JAGER, "restart-jager");
}

Test(checkpoint, restart_continues_bitwise_mindlin)
{
    restart_test(LDEM_LAW_HERTZ_MINDLIN, "restart-mindlin");
}

/* ---- deformable grains: the MODL section and the modes in the checksum ---- */

/* Two modes on a level-set sphere shape: Φ0 = (x, 0, 0), Φ1 = (0, y, z) at the nodes
 * (node values only: nothing here queries the level set), K = diag(k0, 2 k0), M diagonal,
 * C = (c / k0) K (Rayleigh, β only). */
static void give_modes(ldem_world *w, uint32_t s, double k0, double c)
{
    ldem_shape *sh = &w->shapes[s];
    uint64_t nn = sh->nodes.count;
    ldem_modes md = {.count = 2, .kind = LDEM_MODE_SAMPLED, .nnodes = nn};
    md.node_values = calloc(6 * nn, sizeof *md.node_values);
    cr_assert(md.node_values);
    for (uint64_t q = 0; q < nn; q++) {
        md.node_values[3 * q] = sh->nodes.position[3 * q];
        md.node_values[3 * (nn + q) + 1] = sh->nodes.position[3 * q + 1];
        md.node_values[3 * (nn + q) + 2] = sh->nodes.position[3 * q + 2];
    }
    double kv[4] = {k0, 0, 0, 2 * k0}, mv[4] = {1e-6, 0, 0, 3e-6};
    ldem_matrix K = {2, kv}, M = {2, mv};
    cr_assert((sh->modes = calloc(1, sizeof *sh->modes)));
    ldem_err err;
    cr_assert_eq(ldem_modeset_build(&md, &K, &M, NULL, NULL, nn, sh->nodes.position, sh->modes,
                                    &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_modeset_set_rayleigh(sh->modes, 0.0, c / k0, &err), LDEM_OK, "%s",
                 err.msg);
    free(md.node_values);
}

/* Three level-set spheres (bodies 0 and 2 deformable: `deform2` = 0 leaves body 2 rigid),
 * one plane; random modal state in every array a checkpoint carries. */
static void modal_world(ldem_world *w, double k0, double c, int deform2, uint64_t seed)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    uint32_t s = wf_add_ls_sphere_shape(w, RADIUS, RADIUS / 4, 1);
    give_modes(w, s, k0, c);
    for (int i = 0; i < 3; i++)
        wf_add_ls_body(w, s, ldem_vec3_make(3 * RADIUS * i, 0, 0), ldem_quat_identity(),
                       ldem_vec3_make(0, 0, 0));
    wf_add_plane(w, ldem_vec3_make(0, 0, -2 * RADIUS), ldem_vec3_make(0, 0, 1));
    w->bodies.flags[0] |= LDEM_BODY_DEFORMABLE;
    if (deform2)
        w->bodies.flags[2] |= LDEM_BODY_DEFORMABLE;
    ldem_err err;
    cr_assert_eq(ldem_world_modal_init(w, &err), LDEM_OK, "%s", err.msg);
    randomize_state(w, seed);
    ldem_modal_state *m = &w->modal;
    double *arrays[] = {m->eps, m->rate, m->eps_prev, m->force, m->f_int, m->f_total};
    for (size_t a = 0; a < 6; a++)
        for (size_t d = 0; d < m->ndof; d++)
            arrays[a][d] = rng_uniform(-1, 1);
    free(w->radius_list);
    cr_assert((w->radius_list = malloc(w->bodies.count * sizeof *w->radius_list)));
    for (size_t i = 0; i < w->bodies.count; i++)
        w->radius_list[i] = rng_uniform(RADIUS, 2 * RADIUS);
}

Test(checkpoint, modal_state_round_trip_bitwise)
{
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir, "modal");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    ldem_world a, b;
    modal_world(&a, 1e3, 1e-4, 1, 11);
    cr_assert_eq(a.modal.ndof, 4);
    save_ok(path, &a, NULL);
    modal_world(&b, 1e3, 1e-4, 1, 12);   /* same scene, other state */
    cr_assert_neq(memcmp(a.modal.eps, b.modal.eps, 4 * sizeof(double)), 0);
    load_ok(path, &b, NULL);
    const ldem_modal_state *ma = &a.modal, *mb = &b.modal;
    const double *pa[] = {ma->eps, ma->rate, ma->eps_prev, ma->force, ma->f_int, ma->f_total};
    const double *pb[] = {mb->eps, mb->rate, mb->eps_prev, mb->force, mb->f_int, mb->f_total};
    for (size_t k = 0; k < 6; k++)
        cr_assert_eq(memcmp(pa[k], pb[k], 4 * sizeof(double)), 0, "modal array %zu differs", k);
    cr_assert_eq(memcmp(a.radius_list, b.radius_list, 3 * sizeof(double)), 0, "list radii");
    SAME_BITS(a.bodies.x[2], b.bodies.x[2], "%s", "bodies");
    ldem_world_free(&a);
    ldem_world_free(&b);
}

/* The target world of the refusals below: modal_world(1e3, 1e-4, both deformable). */
static void expect_modal_load_error(const char *path, const char *needle)
{
    ldem_world w;
    modal_world(&w, 1e3, 1e-4, 1, 5);
    double eps0 = w.modal.eps[0];
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_checkpoint_load(path, &w, NULL, &err), LDEM_ERR_INPUT, "%s: accepted",
                 path);
    cr_assert(strstr(err.msg, needle), "message '%s' lacks '%s'", err.msg, needle);
    cr_assert_eq(w.modal.eps[0], eps0, "a refused load changed the modal state");
    ldem_world_free(&w);
}

static void empty_payload(ldem_section *s)
{
    s->length = 0;
}

static void old_version(ldem_section *s)
{
    ((unsigned char *)s->data)[0] = 1;
}

Test(checkpoint, modal_scene_changes_are_refused)
{
    char dir[512], path[600], bad[620];
    tmp_dir(dir, sizeof dir, "modal-scene");
    snprintf(path, sizeof path, "%s/run.ldc", dir);
    snprintf(bad, sizeof bad, "%s/bad.ldc", dir);
    ldem_world a;
    /* control: the same scene loads */
    modal_world(&a, 1e3, 1e-4, 1, 21);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    ldem_world w;
    modal_world(&w, 1e3, 1e-4, 1, 5);
    load_ok(path, &w, NULL);
    ldem_world_free(&w);

    /* another stiffness, another damping, body 2 rigid */
    modal_world(&a, 1e3 * (1 + 1e-15), 1e-4, 1, 21);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    expect_modal_load_error(path, "different scene");
    modal_world(&a, 1e3, 2e-4, 1, 21);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    expect_modal_load_error(path, "different scene");
    modal_world(&a, 1e3, 1e-4, 0, 21);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    expect_modal_load_error(path, "different scene");

    /* a MODL without the modal values; a checkpoint of format version 1 */
    modal_world(&a, 1e3, 1e-4, 1, 21);
    save_ok(path, &a, NULL);
    ldem_world_free(&a);
    wf_patch_section(path, bad, "MODL", empty_payload);
    expect_modal_load_error(bad, "'MODL' holds 0 bytes");
    wf_patch_section(path, bad, "CKPT", old_version);
    expect_modal_load_error(bad, "checkpoint version 1 (this build reads 3 and 4)");
}
