/* Checkpoints: the whole dynamic state of a run in one bundle-container file
 * (ldem/sim/checkpoint.h; the byte layout is in docs/checkpoint.md).
 *
 * Saving streams each section through a small buffer (a run with millions of history cells
 * is never held twice in memory) into an ldem_outfile, so the file appears whole or not at
 * all. Loading reads the bundle, validates every section completely — counts against the
 * world, lengths, finite values, stack lengths — and only then touches the world, so a bad
 * file leaves the world as it was. Every double travels as its 64 bits, so the restored state
 * is bitwise the saved one. Jäger stacks travel as values, top to bottom, and are rebuilt
 * bottom first in each contact's pool; the pools get back their capacity and peak so memory
 * probes and compaction decisions continue unchanged.
 */
#include "ldem/sim/checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/payload.h"
#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/outfile.h"
#include "sim_internal.h"

#define CKPT_VERSION 3u /* 2: MODL, modes in the static checksum; 3: held history cells */
#define CKPT_HEADER_BYTES (152u + 8u * LDEM_HISTORY_SHARDS)
#define BODY_BYTES (26u * 8u)
#define WALL_BYTES (13u * 8u)
#define CONTACT_FIXED_BYTES (9u * 4u + 37u * 8u + 10u * 8u)
#define SPRING_BYTES (4u + 3u * 8u)
/* has_list bits */
#define LIST_BODIES 1u
#define LIST_WALLS 2u

/* ---- the static description's checksum ----
 * A 64-bit multiply–xorshift hash over the little-endian encoding of every value, so it is
 * the same on any host. Not cryptographic: it tells a checkpoint of another scene apart. */

typedef struct hasher {
    uint64_t h;
} hasher;

static void hash_u64(hasher *s, uint64_t v)
{
    s->h = (s->h ^ v) * UINT64_C(0x100000001B3);
    s->h ^= s->h >> 29;
}

static void hash_f64(hasher *s, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    hash_u64(s, u);
}

static void hash_f32(hasher *s, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    hash_u64(s, u);
}

static void hash_f64s(hasher *s, const double *v, uint64_t n)
{
    hash_u64(s, n);
    for (uint64_t i = 0; v && i < n; i++)
        hash_f64(s, v[i]);
}

static void hash_vec3(hasher *s, ldem_vec3 v)
{
    hash_f64(s, v.x);
    hash_f64(s, v.y);
    hash_f64(s, v.z);
}

/* Materials, pair laws, shapes (level set and nodes), bodies' kinds, shapes, materials,
 * flags, radii, masses and inertias, walls' geometry. Not included, so that a restart may
 * change them: wall drives, gravity, damping, run length, outputs, thread count. */
static uint64_t static_checksum(const ldem_world *w)
{
    hasher s = {UINT64_C(0xCBF29CE484222325)};
    hash_u64(&s, w->nmaterials);
    for (size_t k = 0; k < w->nmaterials; k++) {
        const ldem_material *m = &w->materials[k];
        hash_f64(&s, m->E), hash_f64(&s, m->nu), hash_f64(&s, m->density);
        hash_f64(&s, m->friction);
    }
    for (size_t k = 0; k < w->nmaterials * w->nmaterials; k++) {
        const ldem_pair_law *l = &w->laws[k];
        hash_u64(&s, (uint64_t)(int64_t)l->law);
        hash_f64(&s, l->E), hash_f64(&s, l->nu), hash_f64(&s, l->mu);
        hash_f64(&s, l->beta), hash_f64(&s, l->kn), hash_f64(&s, l->ks);
    }
    hash_u64(&s, w->nshapes);
    for (size_t k = 0; k < w->nshapes; k++) {
        const ldem_shape *sh = &w->shapes[k];
        hash_f64(&s, sh->bounding_radius), hash_f64(&s, sh->volume);
        hash_vec3(&s, sh->inertia_per_density);
        uint64_t nphi = 1;
        for (int a = 0; a < 3; a++) {
            hash_u64(&s, sh->lset.dims[a]);
            hash_f64(&s, sh->lset.origin[a]), hash_f64(&s, sh->lset.spacing[a]);
            nphi *= sh->lset.dims[a];
        }
        for (uint64_t i = 0; sh->lset.phi && i < nphi; i++)
            hash_f32(&s, sh->lset.phi[i]);
        uint64_t nn = sh->nodes.count;
        hash_f64s(&s, sh->nodes.position, 3 * nn);
        hash_f64s(&s, sh->nodes.normal, 3 * nn);
        hash_f64s(&s, sh->nodes.area, nn);
    }
    for (size_t k = 0; k < w->nshapes; k++) {
        const ldem_modeset *m = w->shapes[k].modes;
        hash_u64(&s, m ? m->n : 0);
        if (m) {
            hash_f64s(&s, m->K, (uint64_t)m->n * m->n);
            hash_f64s(&s, m->M, (uint64_t)m->n * m->n);
            hash_f64s(&s, m->C, (uint64_t)m->n * m->n);
            /* (only when iterated: checkpoints from before the option keep their hash) */
            if (m->pullback > 1)
                hash_u64(&s, m->pullback);
            const ldem_lset_family *f = w->shapes[k].family;
            hash_u64(&s, f ? f->nsamples : 0);
            if (f) {
                hash_f64s(&s, f->eps_min, f->nmodes);
                hash_f64s(&s, f->eps_max, f->nmodes);
            }
        }
    }
    const ldem_bodies *b = &w->bodies;
    hash_u64(&s, b->count);
    for (size_t i = 0; i < b->count; i++) {
        hash_u64(&s, b->kind[i]), hash_u64(&s, b->shape[i]), hash_u64(&s, b->material[i]);
        hash_u64(&s, b->flags[i]);
        /* a deformable body's radius grows with ε: its undeformed one describes the scene */
        hash_f64(&s, b->modal && b->modal[i] != LDEM_RIGID ? w->modal.radius0[i] : b->radius[i]);
        hash_f64(&s, b->mass[i]);
        hash_vec3(&s, b->inertia[i]);
    }
    hash_u64(&s, w->nwalls);
    for (size_t k = 0; k < w->nwalls; k++) {
        const ldem_wall *wl = &w->walls[k];
        hash_u64(&s, (uint64_t)(int64_t)wl->kind), hash_u64(&s, wl->material);
        hash_vec3(&s, wl->origin), hash_vec3(&s, wl->normal);
        hash_f64(&s, wl->radius), hash_u64(&s, (uint64_t)(int64_t)wl->inside);
    }
    /* (only for a periodic cell: checkpoints of open worlds keep their hash) */
    if (w->cell.periodic) {
        hash_u64(&s, UINT64_C(0x43454C4C)); /* "CELL" */
        hash_vec3(&s, w->cell.centre);
    }
    return s.h;
}

/* ---- saving ---- */

/* Buffered writer of one section's payload; the first error sticks. */
typedef struct sink {
    ldem_bundle_writer *bw;
    ldem_err *err;
    int rc;
    size_t n;
    unsigned char buf[1 << 16];
} sink;

static void sink_flush(sink *k)
{
    if (!k->rc && k->n)
        k->rc = ldem_bundle_writer_data(k->bw, k->buf, k->n, k->err);
    k->n = 0;
}

static unsigned char *sink_room(sink *k, size_t bytes)
{
    if (k->n + bytes > sizeof k->buf)
        sink_flush(k);
    unsigned char *p = k->buf + k->n;
    k->n += bytes;
    return p;
}

static void put_u32(sink *k, uint32_t v)
{
    ldem_put_u32le(sink_room(k, 4), v);
}
static void put_u64(sink *k, uint64_t v)
{
    ldem_put_u64le(sink_room(k, 8), v);
}
static void put_f64(sink *k, double v)
{
    ldem_put_f64le(sink_room(k, 8), v);
}

static void put_vec3(sink *k, ldem_vec3 v)
{
    put_f64(k, v.x), put_f64(k, v.y), put_f64(k, v.z);
}

static void put_quat(sink *k, ldem_quat q)
{
    put_f64(k, q.w), put_f64(k, q.x), put_f64(k, q.y), put_f64(k, q.z);
}

static int section_begin(sink *k, const char *tag, uint64_t length)
{
    k->n = 0;
    k->rc = ldem_bundle_writer_section_begin(k->bw, tag, 0, length, k->err);
    return k->rc;
}

static int section_end(sink *k)
{
    sink_flush(k);
    if (!k->rc)
        k->rc = ldem_bundle_writer_section_end(k->bw, k->err);
    return k->rc;
}

static int cell_values(const ldem_world *w)
{
    return w->pools[0].cache_force ? 4 : 3;
}

static int is_jager(const ldem_world *w, const ldem_contact *c)
{
    return w->laws[c->law].law == LDEM_LAW_HERTZ_JAGER;
}

/* Check what the save relies on: valid indices, and a Jäger stack whose walk ends after
 * exactly `length` cells (a broken stack is a bug, reported before anything is written). */
static int check_contact_for_save(const ldem_world *w, size_t k, ldem_err *err)
{
    const ldem_contact *c = &w->contacts[k];
    size_t nlaws = w->nmaterials * w->nmaterials;
    if (c->law >= nlaws || c->shard >= LDEM_HISTORY_SHARDS)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "checkpoint: contact %zu has law %u (of %zu) and shard %u", k, c->law,
                            nlaws, c->shard);
    if (c->nsprings && !c->springs)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "checkpoint: contact %zu has %u springs but no storage", k,
                            c->nsprings);
    if (!is_jager(w, c))
        return LDEM_OK;
    const ldem_history_pool *pool = &w->pools[c->shard];
    const ldem_jager_contact *j = &c->law_state.jager;
    if (j->nheld > LDEM_JAGER_HELD || j->nheld > j->length)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "checkpoint: contact %zu: holds %u history cells of %u", k, j->nheld,
                            j->length);
    uint32_t cells = 0;
    for (ldem_jager_cursor q = ldem_jager_first(pool, j); q.cell; ldem_jager_next(pool, &q)) {
        if (q.pool_index >= pool->capacity || cells == j->length)
            return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                                "checkpoint: contact %zu: history stack longer than its "
                                "length %u or outside its pool",
                                k, j->length);
        cells++;
    }
    if (cells != c->law_state.jager.length)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "checkpoint: contact %zu: history stack holds %u cells but its "
                            "length says %u",
                            k, cells, c->law_state.jager.length);
    return LDEM_OK;
}

static uint32_t stack_cells(const ldem_world *w, const ldem_contact *c)
{
    return is_jager(w, c) ? c->law_state.jager.length : 0;
}

/* How many of them the contact holds itself (ldem/contact/jager.h). */
static uint32_t held_cells(const ldem_world *w, const ldem_contact *c)
{
    return is_jager(w, c) ? c->law_state.jager.nheld : 0;
}

static int write_header(sink *k, const ldem_world *w, uint64_t nframes)
{
    if (section_begin(k, "CKPT", CKPT_HEADER_BYTES))
        return k->rc;
    put_u32(k, CKPT_VERSION);
    put_u32(k, (uint32_t)cell_values(w));
    put_u64(k, w->bodies.count), put_u64(k, w->nwalls), put_u64(k, w->ncontacts);
    put_u64(k, w->nmaterials), put_u64(k, w->nshapes), put_u64(k, nframes);
    put_u64(k, w->step), put_u64(k, w->list_builds), put_u64(k, static_checksum(w));
    put_f64(k, w->t), put_f64(k, w->dt), put_f64(k, w->skin);
    put_f64(k, w->e_initial), put_f64(k, w->potential0), put_f64(k, w->work_walls);
    put_f64(k, w->work_damping);
    put_f64(k, w->dissipated_contacts_released);
    put_u32(k, (w->x_list ? LIST_BODIES : 0) | (w->wall_disp_list ? LIST_WALLS : 0));
    put_u32(k, 0);
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        put_u32(k, w->pools[s].capacity), put_u32(k, w->pools[s].peak);
    return section_end(k);
}

static int write_bodies(sink *k, const ldem_world *w)
{
    const ldem_bodies *b = &w->bodies;
    if (section_begin(k, "BODS", (uint64_t)b->count * BODY_BYTES))
        return k->rc;
    for (size_t i = 0; i < b->count; i++) {
        put_vec3(k, b->x[i]), put_vec3(k, b->v[i]), put_quat(k, b->q[i]);
        put_vec3(k, b->L[i]), put_vec3(k, b->force[i]), put_vec3(k, b->torque[i]);
        put_vec3(k, b->x_prev[i]), put_quat(k, b->q_prev[i]);
    }
    return section_end(k);
}

static int write_walls(sink *k, const ldem_world *w)
{
    if (section_begin(k, "WALS", (uint64_t)w->nwalls * WALL_BYTES))
        return k->rc;
    for (size_t i = 0; i < w->nwalls; i++) {
        const ldem_wall *wl = &w->walls[i];
        put_vec3(k, wl->disp), put_vec3(k, wl->disp_prev), put_vec3(k, wl->vel);
        put_vec3(k, wl->force), put_f64(k, wl->work);
    }
    return section_end(k);
}

static int write_list(sink *k, const ldem_world *w)
{
    uint64_t n = (w->x_list ? w->bodies.count : 0) + (w->wall_disp_list ? w->nwalls : 0);
    if (section_begin(k, "LIST", 24 * n))
        return k->rc;
    for (size_t i = 0; w->x_list && i < w->bodies.count; i++)
        put_vec3(k, w->x_list[i]);
    for (size_t i = 0; w->wall_disp_list && i < w->nwalls; i++)
        put_vec3(k, w->wall_disp_list[i]);
    return section_end(k);
}

/* Deformable grains (optional section MODL): the bodies' radii at the last list build, then
 * per modal DOF ε, ε̇, ε_prev, Q, F_int, f_total. Deformed nodes and grown radii follow from
 * ε and are recomputed on restore. */
#define MODAL_VALUES 6u

static int write_modal(sink *k, const ldem_world *w)
{
    const ldem_modal_state *m = &w->modal;
    size_t nb = w->radius_list ? w->bodies.count : 0;
    if (section_begin(k, "MODL", 8 * (uint64_t)(nb + MODAL_VALUES * m->ndof)))
        return k->rc;
    for (size_t i = 0; i < nb; i++)
        put_f64(k, w->radius_list[i]);
    for (size_t d = 0; d < m->ndof; d++) {
        put_f64(k, m->eps[d]), put_f64(k, m->rate[d]), put_f64(k, m->eps_prev[d]);
        put_f64(k, m->force[d]), put_f64(k, m->f_int[d]), put_f64(k, m->f_total[d]);
    }
    return section_end(k);
}

/* Periodic cell (optional section CELL, present exactly when the scene has a cell): the
 * matrices h, h_prev, h0, h_list, L, virial, stress (row-major), the servo's three
 * stiffnesses, the cell's work and the servo's three accumulated rates. The contacts' images
 * are not stored: they follow from the positions (ldem_cell_min_image) as long as every
 * candidate is closer than half a cell, which the broad phase guarantees. Files written
 * before the servo had an integral term end after the work; they load with zero
 * accumulated rates, which is what their runs had. */
#define CELL_MATRICES 7u
#define CELL_VALUES_BEFORE_INTEGRAL (9u * CELL_MATRICES + 4u)
#define CELL_VALUES (CELL_VALUES_BEFORE_INTEGRAL + 3u)

static const ldem_mat3 *cell_matrix(const ldem_world *w, unsigned k)
{
    const ldem_mat3 *m[CELL_MATRICES] = {&w->cell.h, &w->cell.h_prev, &w->cell.h0, &w->h_list,
                                         &w->cell.L, &w->virial, &w->stress};
    return m[k];
}

static int write_cell(sink *k, const ldem_world *w)
{
    if (!w->cell.periodic)
        return LDEM_OK;
    if (section_begin(k, "CELL", 8 * (uint64_t)CELL_VALUES))
        return k->rc;
    for (unsigned m = 0; m < CELL_MATRICES; m++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                put_f64(k, cell_matrix(w, m)->m[a][b]);
    for (int a = 0; a < 3; a++)
        put_f64(k, w->stiffness[a]);
    put_f64(k, w->work_cell);
    for (int a = 0; a < 3; a++)
        put_f64(k, w->servo_integral[a]);
    return section_end(k);
}

/* The law state as ten doubles: Jäger's seven scalars (the stack follows separately), or the
 * union's Mindlin view for every other law (whatever such a law keeps in those 80 bytes
 * comes back bit for bit; Jäger's state, with its held cells, is the union's larger member). */
static void law_state_values(const ldem_world *w, const ldem_contact *c, double v[10])
{
    memset(v, 0, 10 * sizeof *v);
    if (is_jager(w, c)) {
        const ldem_jager_contact *j = &c->law_state.jager;
        v[0] = j->d, v[1] = j->s[0], v[2] = j->s[1], v[3] = j->n, v[4] = j->t[0];
        v[5] = j->t[1], v[6] = j->dissipated;
    } else {
        const ldem_mindlin_contact *m = &c->law_state.mindlin;
        v[0] = m->d, v[1] = m->s[0], v[2] = m->s[1], v[3] = m->xi[0], v[4] = m->xi[1];
        v[5] = m->a, v[6] = m->n, v[7] = m->t[0], v[8] = m->t[1], v[9] = m->dissipated;
    }
}

/* The cached Hertz constants of a contact, in their declaration order. */
static void pair_values(const ldem_elastic_pair *p, double v[10])
{
    v[0] = p->E, v[1] = p->nu, v[2] = p->R1, v[3] = p->R2, v[4] = p->rstar;
    v[5] = p->sqrt_rstar, v[6] = p->estar, v[7] = p->gstar, v[8] = p->kappa, v[9] = p->cn;
}

static void write_contact(sink *k, const ldem_world *w, const ldem_contact *c, int nvalues)
{
    uint32_t ncells = stack_cells(w, c);
    put_u32(k, c->i), put_u32(k, c->j), put_u32(k, c->law), put_u32(k, c->shard);
    put_u32(k, (uint32_t)w->laws[c->law].law), put_u32(k, c->npatch);
    put_u32(k, c->nsprings), put_u32(k, ncells), put_u32(k, held_cells(w, c));
    put_quat(k, c->frame), put_vec3(k, c->normal), put_vec3(k, c->point);
    put_f64(k, c->overlap), put_f64(k, c->r1), put_f64(k, c->r2);
    put_vec3(k, c->fn), put_vec3(k, c->ft), put_vec3(k, c->torque_i), put_vec3(k, c->torque_j);
    double pair[10];
    pair_values(&c->pair, pair);
    for (int q = 0; q < 10; q++)
        put_f64(k, pair[q]);
    put_f64(k, c->stored_normal), put_f64(k, c->dissipated);
    double v[10];
    law_state_values(w, c, v);
    for (int q = 0; q < 10; q++)
        put_f64(k, v[q]);
    if (ncells) {
        /* The file lists each cell's top level (and N there), as jager.md does; the pool holds
         * bottom levels: a cell's top is the base of the cell above, the top cell's is d. */
        const ldem_history_pool *pool = &w->pools[c->shard];
        const ldem_jager_params jp = {.pair = c->pair};
        double z = c->law_state.jager.d, n = c->law_state.jager.n;
        for (ldem_jager_cursor q = ldem_jager_first(pool, &c->law_state.jager); q.cell;
             ldem_jager_next(pool, &q)) {
            put_f64(k, z), put_f64(k, q.cell->w[0]);
            put_f64(k, q.cell->w[1]);
            if (nvalues == 4)
                put_f64(k, n);
            z = q.cell->base;
            n = pool->force ? ldem_jager_cell_force(&jp, pool, &q) : 0.0;
        }
    }
    for (uint32_t s = 0; s < c->nsprings; s++) {
        put_u32(k, c->springs[s].key);
        put_f64(k, c->springs[s].xi[0]), put_f64(k, c->springs[s].xi[1]);
        put_f64(k, c->springs[s].xi[2]);
    }
}

static int write_contacts(sink *k, const ldem_world *w)
{
    int nvalues = cell_values(w);
    uint64_t length = 0;
    for (size_t q = 0; q < w->ncontacts; q++) {
        const ldem_contact *c = &w->contacts[q];
        length += CONTACT_FIXED_BYTES + (uint64_t)stack_cells(w, c) * 8u * (uint64_t)nvalues +
                  (uint64_t)c->nsprings * SPRING_BYTES;
    }
    if (section_begin(k, "CONT", length))
        return k->rc;
    for (size_t q = 0; q < w->ncontacts && !k->rc; q++)
        write_contact(k, w, &w->contacts[q], nvalues);
    return section_end(k);
}

static int write_frames(sink *k, const ldem_checkpoint_extra *x)
{
    uint64_t n = x ? x->nframes : 0;
    if (section_begin(k, "FRMS", 8 * n))
        return k->rc;
    for (uint64_t i = 0; i < n; i++)
        put_f64(k, x->frame_times[i]);
    return section_end(k);
}

static int write_all(FILE *fp, const char *path, const ldem_world *w,
                     const ldem_checkpoint_extra *x, ldem_err *err)
{
    ldem_bundle_writer bw;
    int rc = ldem_bundle_writer_begin(&bw, fp, path, err);
    if (rc)
        return rc;
    sink *k = malloc(sizeof *k);
    if (!k) {
        ldem_bundle_writer_discard(&bw);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    k->bw = &bw;
    k->err = err;
    k->rc = LDEM_OK;
    rc = write_header(k, w, x ? x->nframes : 0);
    if (!rc)
        rc = write_bodies(k, w);
    if (!rc)
        rc = write_walls(k, w);
    if (!rc)
        rc = write_list(k, w);
    if (!rc)
        rc = write_contacts(k, w);
    if (!rc)
        rc = write_frames(k, x);
    if (!rc)
        rc = write_modal(k, w);
    if (!rc)
        rc = write_cell(k, w);
    free(k);
    if (rc) {
        ldem_bundle_writer_discard(&bw);
        return rc;
    }
    return ldem_bundle_writer_end(&bw, err);
}

int ldem_checkpoint_save(const char *path, const ldem_world *w, const ldem_checkpoint_extra *x,
                         ldem_err *err)
{
    if (x && x->nframes && !x->frame_times)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "checkpoint: %llu frame times but no array",
                            (unsigned long long)x->nframes);
    for (size_t k = 0; k < w->ncontacts; k++) {
        int rc = check_contact_for_save(w, k, err);
        if (rc)
            return rc;
    }
    ldem_outfile of;
    int rc = ldem_outfile_open(&of, path, err);
    if (rc)
        return rc;
    rc = write_all(of.fp, path, w, x, err);
    if (rc) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}

/* ---- loading: validation ---- */

/* What the header says, kept for the other sections' checks and for the restore. */
typedef struct header {
    uint32_t nvalues;
    uint64_t nbodies, nwalls, ncontacts, nmaterials, nshapes, nframes;
    uint64_t step, list_builds, checksum;
    double t, dt, skin, e_initial, potential0, work_walls, work_damping, released;
    uint32_t has_list;
    uint32_t capacity[LDEM_HISTORY_SHARDS], peak[LDEM_HISTORY_SHARDS];
} header;

static int read_u32(payload_cursor *c, uint32_t *v)
{
    return cursor_u32(c, v);
}

static int read_f64s(payload_cursor *c, double *v, size_t n, const char *what)
{
    int rc = cursor_need(c, n, 8, what);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = cursor_f64(c, &v[i]);
        if (!rc && !isfinite(v[i]))
            return cursor_fail(c, "%s: value %zu is %g (expected finite)", what, i, v[i]);
    }
    return rc;
}

static int count_matches(payload_cursor *c, const char *what, uint64_t in_file, size_t in_world)
{
    if (in_file == in_world)
        return LDEM_OK;
    return cursor_fail(c,
                       "the checkpoint has %llu %s but the scene has %zu: it was written "
                       "for a different scene",
                       (unsigned long long)in_file, what, in_world);
}

static int parse_header(const ldem_section *s, const char *path, const ldem_world *w, header *h,
                        ldem_err *err)
{
    payload_cursor c;
    cursor_init(&c, s, path, err);
    uint32_t version = 0, reserved = 0;
    int rc = read_u32(&c, &version);
    if (!rc && version != CKPT_VERSION)
        return cursor_fail(&c, "checkpoint version %u (this build reads %u)", version,
                           CKPT_VERSION);
    if (!rc)
        rc = cursor_need(&c, 1, CKPT_HEADER_BYTES - 4, "header");
    if (rc)
        return rc;
    read_u32(&c, &h->nvalues);
    uint64_t *counts[] = {&h->nbodies, &h->nwalls, &h->ncontacts,   &h->nmaterials, &h->nshapes,
                          &h->nframes, &h->step,   &h->list_builds, &h->checksum};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        cursor_u64(&c, counts[k]);
    double v[8];
    rc = read_f64s(&c, v, 8, "time, step and energy accumulators");
    if (rc)
        return rc;
    h->t = v[0], h->dt = v[1], h->skin = v[2], h->e_initial = v[3], h->potential0 = v[4];
    h->work_walls = v[5], h->work_damping = v[6], h->released = v[7];
    read_u32(&c, &h->has_list);
    read_u32(&c, &reserved);
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++)
        read_u32(&c, &h->capacity[q]), read_u32(&c, &h->peak[q]);
    if ((rc = cursor_finish(&c)))
        return rc;
    c.pos = 4;
    if (h->nvalues != (uint32_t)cell_values(w))
        return cursor_fail(&c, "history cells carry %u values but this run's pools keep %d",
                           h->nvalues, cell_values(w));
    if (h->has_list & ~(LIST_BODIES | LIST_WALLS) || reserved)
        return cursor_fail(&c, "unknown flags 0x%x / reserved field %u (expected 0)",
                           h->has_list & ~(LIST_BODIES | LIST_WALLS), reserved);
    if ((rc = count_matches(&c, "bodies", h->nbodies, w->bodies.count)) ||
        (rc = count_matches(&c, "walls", h->nwalls, w->nwalls)) ||
        (rc = count_matches(&c, "materials", h->nmaterials, w->nmaterials)) ||
        (rc = count_matches(&c, "shapes", h->nshapes, w->nshapes)))
        return rc;
    uint64_t mine = static_checksum(w);
    if (h->checksum != mine)
        return cursor_fail(&c,
                           "static description checksum %016llx, this scene's %016llx: "
                           "the checkpoint was written for a different scene (materials, "
                           "contact laws, shapes, body kinds, masses or wall geometry "
                           "differ)",
                           (unsigned long long)h->checksum, (unsigned long long)mine);
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++) {
        /* Pools start small (or at the scene's initial size) and only double when full, so
         * their capacity never exceeds twice the peak: a larger one is damage, not a reason
         * to allocate gigabytes. */
        uint64_t most = 2 * ((uint64_t)h->peak[q] + 1);
        if (most < w->pools[q].capacity)
            most = w->pools[q].capacity;
        if ((h->capacity[q] != 0 && h->capacity[q] < 16) ||
            (h->capacity[q] > 16 && h->capacity[q] > most))
            return cursor_fail(&c,
                               "history pool %u: capacity %u with peak %u (expected 0, or "
                               "16 to twice the peak)",
                               q, h->capacity[q], h->peak[q]);
    }
    return LDEM_OK;
}

/* A fixed-size section: exactly `count` records of `bytes`, all finite doubles. */
static int check_doubles_section(const ldem_section *s, const char *path, uint64_t count,
                                 uint64_t doubles_each, const char *what, const char *plural,
                                 ldem_err *err)
{
    payload_cursor c;
    cursor_init(&c, s, path, err);
    uint64_t values, bytes;
    if (!mul_u64(count, doubles_each, &values) || !mul_u64(values, 8, &bytes))
        return cursor_fail(&c, "%llu %s: more than any file holds", (unsigned long long)count,
                           plural);
    if (s->length != bytes)
        return cursor_fail(&c, "%llu bytes for %llu %s (expected %llu)",
                           (unsigned long long)s->length, (unsigned long long)count, plural,
                           (unsigned long long)bytes);
    for (uint64_t i = 0; i < values; i++) {
        double v = ldem_get_f64le(s->data + 8 * i);
        if (!isfinite(v)) {
            c.pos = 8 * i;
            return cursor_fail(&c, "%s %llu: value %llu is %g (expected finite)", what,
                               (unsigned long long)(i / doubles_each),
                               (unsigned long long)(i % doubles_each), v);
        }
    }
    return LDEM_OK;
}

/* One contact record as read (and checked) from CONT; the cells and springs stay in the
 * payload, pointed at. */
typedef struct contact_rec {
    ldem_contact c; /* springs NULL, jager.top 0 */
    uint32_t law_kind, ncells, held;
    const unsigned char *cells;
    const unsigned char *springs;
} contact_rec;

static int check_indices(payload_cursor *cur, const ldem_world *w, uint64_t k, const contact_rec *r)
{
    const ldem_contact *c = &r->c;
    if (c->i >= w->bodies.count)
        return cursor_fail(cur, "contact %llu: body %u out of range (%zu bodies)",
                           (unsigned long long)k, c->i, w->bodies.count);
    if (c->j & LDEM_WALL_BIT) {
        if ((c->j & ~LDEM_WALL_BIT) >= w->nwalls)
            return cursor_fail(cur, "contact %llu: wall %u out of range (%zu walls)",
                               (unsigned long long)k, c->j & ~LDEM_WALL_BIT, w->nwalls);
    } else if (c->j >= w->bodies.count || c->j <= c->i) {
        return cursor_fail(cur, "contact %llu: body pair (%u, %u) (expected i < j < %zu)",
                           (unsigned long long)k, c->i, c->j, w->bodies.count);
    }
    if (c->law >= w->nmaterials * w->nmaterials)
        return cursor_fail(cur, "contact %llu: law %u out of range (%zu)", (unsigned long long)k,
                           c->law, w->nmaterials * w->nmaterials);
    if (c->shard >= LDEM_HISTORY_SHARDS)
        return cursor_fail(cur, "contact %llu: history pool %u out of range (%u)",
                           (unsigned long long)k, c->shard, LDEM_HISTORY_SHARDS);
    if (r->law_kind != (uint32_t)w->laws[c->law].law)
        return cursor_fail(cur, "contact %llu: saved under contact law %u, the scene's is %d",
                           (unsigned long long)k, r->law_kind, w->laws[c->law].law);
    int jager = r->law_kind == LDEM_LAW_HERTZ_JAGER;
    if (!jager && (r->ncells || r->held))
        return cursor_fail(cur, "contact %llu: %u history cells (%u held) under a law other "
                           "than Jäger's", (unsigned long long)k, r->ncells, r->held);
    if (r->held > LDEM_JAGER_HELD || r->held > r->ncells)
        return cursor_fail(cur, "contact %llu: %u of its %u history cells held in the contact "
                           "(at most %d)", (unsigned long long)k, r->held, r->ncells,
                           LDEM_JAGER_HELD);
    return LDEM_OK;
}

static void set_law_state(ldem_contact *c, uint32_t law_kind, const double v[10])
{
    if (law_kind == LDEM_LAW_HERTZ_JAGER) {
        ldem_jager_contact *j = &c->law_state.jager;
        j->d = v[0], j->s[0] = v[1], j->s[1] = v[2], j->n = v[3], j->t[0] = v[4];
        j->t[1] = v[5], j->dissipated = v[6];
    } else {
        ldem_mindlin_contact *m = &c->law_state.mindlin;
        m->d = v[0], m->s[0] = v[1], m->s[1] = v[2], m->xi[0] = v[3], m->xi[1] = v[4];
        m->a = v[5], m->n = v[6], m->t[0] = v[7], m->t[1] = v[8], m->dissipated = v[9];
    }
}

/* "contact K: what", for messages. */
static const char *label(char *buf, size_t size, uint64_t k, const char *what)
{
    snprintf(buf, size, "contact %llu: %.48s", (unsigned long long)k, what);
    return buf;
}

/* The reads of contact k's fields. Each names its field "contact K: field" in a message,
 * formatting the name only when the read fails: a restart reads every contact, and
 * formatting a dozen names per contact up front was three quarters of a restart's time. */
static int contact_need(payload_cursor *c, uint64_t k, const char *field, uint64_t n,
                        uint64_t width)
{
    if (width && n <= (c->len - c->pos) / width)
        return LDEM_OK;
    char what[96];
    return cursor_need(c, n, width, label(what, sizeof what, k, field));
}

static int contact_f64s(payload_cursor *c, uint64_t k, const char *field, double *v, size_t n)
{
    if (n <= (c->len - c->pos) / 8) {
        const unsigned char *at = c->p + c->pos;
        size_t i = 0;
        while (i < n && isfinite(v[i] = ldem_get_f64le(at + 8 * i)))
            i++;
        if (i == n) {
            c->pos += 8 * n;
            return LDEM_OK;
        }
    }
    char what[96]; /* short or not finite: read_f64s says which, as before */
    return read_f64s(c, v, n, label(what, sizeof what, k, field));
}

static int contact_vec3(payload_cursor *c, uint64_t k, const char *field, ldem_vec3 *v)
{
    double a[3];
    int rc = contact_f64s(c, k, field, a, 3);
    if (!rc)
        *v = ldem_vec3_make(a[0], a[1], a[2]);
    return rc;
}

static void set_pair(ldem_elastic_pair *p, const double v[10])
{
    p->E = v[0], p->nu = v[1], p->R1 = v[2], p->R2 = v[3], p->rstar = v[4];
    p->sqrt_rstar = v[5], p->estar = v[6], p->gstar = v[7], p->kappa = v[8], p->cn = v[9];
}

/* Read and check one contact record; leaves the cursor after it. */
static int read_contact(payload_cursor *cur, const ldem_world *w, uint32_t nvalues, uint64_t k,
                        contact_rec *r)
{
    memset(r, 0, sizeof *r);
    ldem_contact *c = &r->c;
    int rc = cursor_need(cur, 1, CONTACT_FIXED_BYTES, "contact record");
    if (rc)
        return cursor_fail(cur,
                           "contact %llu: the section ends inside or before this record "
                           "(fewer contacts than the header announces)",
                           (unsigned long long)k);
    uint32_t *u[] = {&c->i,      &c->j,        &c->law,    &c->shard, &r->law_kind,
                     &c->npatch, &c->nsprings, &r->ncells, &r->held};
    for (size_t q = 0; q < sizeof u / sizeof *u; q++)
        read_u32(cur, u[q]);
    if ((rc = check_indices(cur, w, k, r)))
        return rc;
    double f[4];
    if ((rc = contact_f64s(cur, k, "frame", f, 4)))
        return rc;
    c->frame = (ldem_quat){f[0], f[1], f[2], f[3]};
    if ((rc = contact_vec3(cur, k, "normal", &c->normal)) ||
        (rc = contact_vec3(cur, k, "point", &c->point)) ||
        (rc = contact_f64s(cur, k, "overlap", &c->overlap, 1)))
        return rc;
    cursor_f64(cur, &c->r1);
    cursor_f64(cur, &c->r2);
    if (isnan(c->r1) || isnan(c->r2))
        return cursor_fail(cur, "contact %llu: radius of curvature is NaN", (unsigned long long)k);
    double v[10];
    if ((rc = contact_vec3(cur, k, "normal force", &c->fn)) ||
        (rc = contact_vec3(cur, k, "tangential force", &c->ft)) ||
        (rc = contact_vec3(cur, k, "torque on i", &c->torque_i)) ||
        (rc = contact_vec3(cur, k, "torque on j", &c->torque_j)))
        return rc;
    /* The cached Hertz constants: R2 (hence some constants) may be infinite for a flat. */
    for (int q = 0; q < 10; q++) {
        cursor_f64(cur, &v[q]);
        if (isnan(v[q]))
            return cursor_fail(cur, "contact %llu: Hertz constant %d is NaN", (unsigned long long)k,
                               q);
    }
    set_pair(&c->pair, v);
    if ((rc = contact_f64s(cur, k, "stored energy", &c->stored_normal, 1)) ||
        (rc = contact_f64s(cur, k, "dissipated work", &c->dissipated, 1)) ||
        (rc = contact_f64s(cur, k, "law state", v, 10)))
        return rc;
    set_law_state(c, r->law_kind, v);
    if ((rc = contact_need(cur, k, "history cells", r->ncells, 8u * nvalues)))
        return rc;
    r->cells = cur->p + cur->pos;
    double cell[4];
    /* The pool keeps bottom levels and takes the top's from d (restore_stack), so the levels
     * must fall strictly from d down to above 0 for the stack to mean what the file says. */
    double above = r->ncells ? c->law_state.jager.d : 0.0;
    for (uint32_t q = 0; q < r->ncells; q++) {
        if ((rc = contact_f64s(cur, k, "history cell", cell, nvalues)))
            return rc;
        if (q == 0 ? cell[0] != above : !(cell[0] < above) || !(cell[0] > 0.0))
            return cursor_fail(cur, "contact %llu: history cell %u has level %.17g; levels "
                               "must fall from the approach %.17g down to above 0",
                               (unsigned long long)k, q, cell[0], c->law_state.jager.d);
        above = cell[0];
    }
    if ((rc = contact_need(cur, k, "linear-law springs", c->nsprings, SPRING_BYTES)))
        return rc;
    r->springs = cur->p + cur->pos;
    for (uint32_t q = 0; q < c->nsprings; q++) {
        uint32_t key;
        read_u32(cur, &key);
        if ((rc = contact_f64s(cur, k, "spring displacement", cell, 3)))
            return rc;
    }
    return LDEM_OK;
}

/* The whole CONT section; counts the cells each pool will hold. */
static int check_contacts(const ldem_section *s, const char *path, const ldem_world *w,
                          const header *h, ldem_err *err)
{
    payload_cursor cur;
    cursor_init(&cur, s, path, err);
    uint64_t cells[LDEM_HISTORY_SHARDS] = {0};
    for (uint64_t k = 0; k < h->ncontacts; k++) {
        contact_rec r;
        int rc = read_contact(&cur, w, h->nvalues, k, &r);
        if (rc)
            return rc;
        cells[r.c.shard] += r.ncells - r.held; /* the pooled ones */
    }
    int rc = cursor_finish(&cur);
    if (rc)
        return rc;
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++) {
        uint64_t room = h->capacity[q] ? h->capacity[q] - 1u : 0;
        if (cells[q] > room && !(h->capacity[q] == 0 && cells[q] == 0))
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                "history pool %u: the contacts hold %llu cells but the pool "
                                "had room for %llu",
                                q, (unsigned long long)cells[q], (unsigned long long)room);
    }
    return LDEM_OK;
}

typedef struct sections {
    const ldem_section *ckpt, *bods, *wals, *list, *cont, *frms;
    const ldem_section *modl; /* optional: absent in checkpoints of rigid runs before MODL */
    const ldem_section *cell; /* present exactly when the scene has a periodic cell */
} sections;

static int find_sections(const ldem_bundle *b, const char *path, sections *s, ldem_err *err)
{
    struct {
        const char *tag;
        const ldem_section **at;
    } want[] = {{"CKPT", &s->ckpt}, {"BODS", &s->bods}, {"WALS", &s->wals},
                {"LIST", &s->list}, {"CONT", &s->cont}, {"FRMS", &s->frms}};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        *want[k].at = ldem_bundle_find(b, want[k].tag);
        if (!*want[k].at)
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                k == 0 ? "not a demrun checkpoint: no '%s' section"
                                       : "damaged checkpoint: no '%s' section",
                                want[k].tag);
    }
    s->modl = ldem_bundle_find(b, "MODL");
    s->cell = ldem_bundle_find(b, "CELL");
    return LDEM_OK;
}

static int validate(const sections *s, const char *path, const ldem_world *w, header *h,
                    ldem_err *err)
{
    int rc = parse_header(s->ckpt, path, w, h, err);
    if (!rc)
        rc =
            check_doubles_section(s->bods, path, h->nbodies, BODY_BYTES / 8, "body", "bodies", err);
    if (!rc)
        rc = check_doubles_section(s->wals, path, h->nwalls, WALL_BYTES / 8, "wall", "walls", err);
    if (!rc) {
        uint64_t n = (h->has_list & LIST_BODIES ? h->nbodies : 0) +
                     (h->has_list & LIST_WALLS ? h->nwalls : 0);
        rc = check_doubles_section(s->list, path, n, 3, "list reference position",
                                   "list reference positions", err);
    }
    if (!rc)
        rc = check_contacts(s->cont, path, w, h, err);
    if (!rc)
        rc = check_doubles_section(s->frms, path, h->nframes, 1, "frame time", "frame times", err);
    if (!rc && !s->modl && w->modal.ndof)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "damaged checkpoint: no 'MODL' section for the %zu modal amplitudes of "
                          "this scene's deformable grains", w->modal.ndof);
    if (!rc && s->modl) {
        uint64_t with_radii = h->nbodies + MODAL_VALUES * w->modal.ndof;
        uint64_t values = s->modl->length / 8;
        if (s->modl->length % 8 || (values != with_radii && values != MODAL_VALUES * w->modal.ndof))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "damaged checkpoint: 'MODL' holds %llu bytes, this scene's %zu "
                              "modal amplitudes need %llu",
                              (unsigned long long)s->modl->length, w->modal.ndof,
                              (unsigned long long)(8 * with_radii));
        else
            rc = check_doubles_section(s->modl, path, values, 1, "modal value", "modal values",
                                       err);
    }
    if (!rc && !s->cell != !w->cell.periodic)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          w->cell.periodic ? "the checkpoint has no periodic cell (section "
                                             "'CELL') but the scene has one"
                                           : "the checkpoint has a periodic cell (section "
                                             "'CELL') but the scene has none");
    if (!rc && s->cell)
        rc = check_doubles_section(s->cell, path,
                                   s->cell->length == 8u * CELL_VALUES_BEFORE_INTEGRAL
                                       ? CELL_VALUES_BEFORE_INTEGRAL
                                       : CELL_VALUES,
                                   1, "cell value", "cell values", err);
    return rc;
}

/* ---- loading: restoring (after validation; only memory can fail) ---- */

static ldem_vec3 get_vec3(const unsigned char **p)
{
    ldem_vec3 v =
        ldem_vec3_make(ldem_get_f64le(*p), ldem_get_f64le(*p + 8), ldem_get_f64le(*p + 16));
    *p += 24;
    return v;
}

static ldem_quat get_quat(const unsigned char **p)
{
    ldem_quat q = {ldem_get_f64le(*p), ldem_get_f64le(*p + 8), ldem_get_f64le(*p + 16),
                   ldem_get_f64le(*p + 24)};
    *p += 32;
    return q;
}

static void restore_bodies(ldem_world *w, const ldem_section *s)
{
    ldem_bodies *b = &w->bodies;
    const unsigned char *p = s->data;
    for (size_t i = 0; i < b->count; i++) {
        b->x[i] = get_vec3(&p), b->v[i] = get_vec3(&p), b->q[i] = get_quat(&p);
        b->L[i] = get_vec3(&p), b->force[i] = get_vec3(&p), b->torque[i] = get_vec3(&p);
        b->x_prev[i] = get_vec3(&p), b->q_prev[i] = get_quat(&p);
    }
}

static void restore_walls(ldem_world *w, const ldem_section *s)
{
    const unsigned char *p = s->data;
    for (size_t i = 0; i < w->nwalls; i++) {
        ldem_wall *wl = &w->walls[i];
        wl->disp = get_vec3(&p), wl->disp_prev = get_vec3(&p), wl->vel = get_vec3(&p);
        wl->force = get_vec3(&p);
        wl->work = ldem_get_f64le(p);
        p += 8;
    }
}

/* A list array of n vectors from *p, or NULL when absent. */
static int restore_list_array(ldem_vec3 **dst, int present, size_t n, const unsigned char **p)
{
    free(*dst);
    *dst = NULL;
    if (!present)
        return 0;
    *dst = malloc(n ? n * sizeof **dst : 1);
    if (!*dst)
        return -1;
    for (size_t i = 0; i < n; i++)
        (*dst)[i] = get_vec3(p);
    return 0;
}

static void release_contacts(ldem_world *w)
{
    for (size_t k = 0; k < w->ncontacts; k++)
        ldem_contact_release(w, &w->contacts[k]);
    free(w->contacts);
    w->contacts = NULL;
    w->ncontacts = w->contacts_capacity = 0;
}

/* Fresh pools with the saved capacities (an empty pool of capacity C is init(C − 1)). */
static int reset_pools(ldem_world *w, const header *h, ldem_err *err)
{
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++) {
        bool cache = w->pools[q].cache_force;
        ldem_history_pool_free(&w->pools[q]);
        uint32_t initial = h->capacity[q] ? h->capacity[q] - 1u : 0;
        if (ldem_history_pool_init(&w->pools[q], initial, cache, err))
            return LDEM_ERR_NOMEM;
    }
    return LDEM_OK;
}

/* Rebuild a Jäger stack from its cells (top to bottom in the file, each with its top level):
 * the pooled ones bottom first, each cell's base being the top level of the one pushed
 * before, then the held ones, as the saved contact held them. The forces the file may list
 * are N at the levels, which the pool recomputes. */
static int restore_stack(ldem_world *w, ldem_contact *c, const contact_rec *r, uint32_t nvalues)
{
    ldem_history_pool *pool = &w->pools[c->shard];
    ldem_jager_contact *j = &c->law_state.jager;
    j->nheld = 0;
    j->held_top = 0; /* the top in held[0], the next in held[1] */
    j->top = 0;
    j->length = 0;
    double base = 0.0;
    for (uint32_t q = r->ncells; q-- > 0;) {
        const unsigned char *p = r->cells + (size_t)q * 8u * nvalues;
        ldem_history_cell cell = {base, {ldem_get_f64le(p + 8), ldem_get_f64le(p + 16)}};
        if (q < r->held) {
            j->held[q] = cell;
            j->nheld++;
        } else {
            uint32_t i = ldem_history_push(pool, j->top);
            if (!i)
                return -1;
            pool->cell[i] = cell;
            if (pool->force)
                pool->force[i] = ldem_hertz_force(&c->pair, base);
            j->top = i;
        }
        j->length++;
        base = ldem_get_f64le(p);
    }
    return 0;
}

static int restore_springs(ldem_contact *c, const contact_rec *r)
{
    c->springs = NULL;
    c->springs_capacity = 0;
    if (!c->nsprings)
        return 0;
    c->springs = malloc(c->nsprings * sizeof *c->springs);
    if (!c->springs) {
        c->nsprings = 0;
        return -1;
    }
    c->springs_capacity = c->nsprings;
    const unsigned char *p = r->springs;
    for (uint32_t q = 0; q < c->nsprings; q++, p += SPRING_BYTES) {
        c->springs[q].key = ldem_get_u32le(p);
        for (int a = 0; a < 3; a++)
            c->springs[q].xi[a] = ldem_get_f64le(p + 4 + 8 * a);
    }
    return 0;
}

static int restore_contacts(ldem_world *w, const ldem_section *s, const char *path, const header *h,
                            ldem_err *err)
{
    release_contacts(w);
    if (reset_pools(w, h, err))
        return LDEM_ERR_NOMEM;
    size_t n = (size_t)h->ncontacts;
    w->contacts = calloc(n ? n : 1, sizeof *w->contacts);
    if (!w->contacts)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for %zu contacts", n);
    w->contacts_capacity = n;
    payload_cursor cur;
    cursor_init(&cur, s, path, err);
    for (size_t k = 0; k < n; k++) {
        contact_rec r;
        int rc = read_contact(&cur, w, h->nvalues, k, &r); /* validated: cannot fail */
        if (rc)
            return rc;
        ldem_contact *c = &w->contacts[k];
        *c = r.c;
        w->ncontacts = k + 1;
        if (restore_springs(c, &r) ||
            (r.law_kind == LDEM_LAW_HERTZ_JAGER && restore_stack(w, c, &r, h->nvalues)))
            return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory restoring contact %zu",
                                k);
    }
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++)
        if (h->peak[q] > w->pools[q].peak)
            w->pools[q].peak = h->peak[q];
    return LDEM_OK;
}

static int restore_modal(ldem_world *w, const ldem_section *s)
{
    ldem_modal_state *m = &w->modal;
    const unsigned char *p = s->data;
    size_t nb = s->length / 8 - MODAL_VALUES * m->ndof;
    free(w->radius_list);
    w->radius_list = NULL;
    if (nb) {
        if (!(w->radius_list = malloc(nb * sizeof *w->radius_list)))
            return -1;
        for (size_t i = 0; i < nb; i++, p += 8)
            w->radius_list[i] = ldem_get_f64le(p);
    }
    for (size_t d = 0; d < m->ndof; d++, p += 8 * MODAL_VALUES) {
        m->eps[d] = ldem_get_f64le(p), m->rate[d] = ldem_get_f64le(p + 8);
        m->eps_prev[d] = ldem_get_f64le(p + 16), m->force[d] = ldem_get_f64le(p + 24);
        m->f_int[d] = ldem_get_f64le(p + 32), m->f_total[d] = ldem_get_f64le(p + 40);
    }
    return 0;
}

static void restore_cell(ldem_world *w, const ldem_section *s)
{
    const unsigned char *p = s->data;
    for (unsigned m = 0; m < CELL_MATRICES; m++) {
        ldem_mat3 *dst = (ldem_mat3 *)cell_matrix(w, m);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++, p += 8)
                dst->m[a][b] = ldem_get_f64le(p);
    }
    for (int a = 0; a < 3; a++, p += 8)
        w->stiffness[a] = ldem_get_f64le(p);
    w->work_cell = ldem_get_f64le(p);
    p += 8;
    for (int a = 0; a < 3; a++, p += 8)
        w->servo_integral[a] =
            s->length == 8u * CELL_VALUES_BEFORE_INTEGRAL ? 0.0 : ldem_get_f64le(p);
    ldem_cell_set_h(&w->cell, w->cell.h);
    for (size_t k = 0; k < w->ncontacts; k++) {
        ldem_contact *c = &w->contacts[k];
        int32_t n[3] = {0, 0, 0};
        if (!(c->j & LDEM_WALL_BIT))
            ldem_cell_min_image(&w->cell,
                                ldem_vec3_sub(w->bodies.x[c->j], w->bodies.x[c->i]), n);
        for (int a = 0; a < 3; a++)
            c->image[a] = (int8_t)n[a];
    }
}

static int restore(ldem_world *w, ldem_checkpoint_extra *x, const sections *s, const char *path,
                   const header *h, ldem_err *err)
{
    double *frames = NULL;
    if (x && h->nframes) {
        frames = malloc((size_t)h->nframes * sizeof *frames);
        if (!frames)
            return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
        for (uint64_t i = 0; i < h->nframes; i++)
            frames[i] = ldem_get_f64le(s->frms->data + 8 * i);
    }
    const unsigned char *p = s->list->data;
    if (restore_list_array(&w->x_list, h->has_list & LIST_BODIES, w->bodies.count, &p) ||
        restore_list_array(&w->wall_disp_list, h->has_list & LIST_WALLS, w->nwalls, &p)) {
        free(frames);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    /* The step's scratch (shard lists) describes the old contact list: drop it, the next
     * step rebuilds it from the restored one. */
    ldem_step_work_free(w->work);
    w->work = NULL;
    int rc = restore_contacts(w, s->cont, path, h, err);
    if (rc) {
        free(frames);
        return rc;
    }
    restore_bodies(w, s->bods);
    restore_walls(w, s->wals);
    if (s->modl && restore_modal(w, s->modl)) {
        free(frames);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    if (s->cell)
        restore_cell(w, s->cell);
    w->t = h->t, w->dt = h->dt, w->step = h->step, w->skin = h->skin;
    w->list_builds = h->list_builds;
    w->e_initial = h->e_initial, w->potential0 = h->potential0, w->work_walls = h->work_walls;
    w->work_damping = h->work_damping, w->dissipated_contacts_released = h->released;
    if (x) {
        x->nframes = h->nframes;
        x->frame_times = frames;
    }
    return LDEM_OK;
}

/* The file's one bundle; anything after it is damage. */
static int read_bundle(const char *path, ldem_bundle *b, ldem_err *err)
{
    ldem_bundle_init(b);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        /* a checkpoint that is not there is the user's input, as ldem_infile treats it */
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open checkpoint: %s",
                            strerror(errno));
    ldem_bundle_reader *r = NULL;
    int have = 0;
    int rc = ldem_bundle_reader_open(&r, fp, path, err);
    if (!rc)
        rc = ldem_bundle_read(r, b, &have, err);
    if (!rc && !have)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "empty file: not a checkpoint");
    if (!rc) {
        int more = 0;
        int64_t end = ldem_bundle_reader_offset(r);
        rc = ldem_bundle_reader_next(r, &more, NULL, err);
        if (!rc && more)
            rc = ldem_err_set_offset(err, LDEM_ERR_INPUT, path, end,
                                     "a second bundle follows the checkpoint");
    }
    ldem_bundle_reader_close(r);
    fclose(fp);
    if (rc)
        ldem_bundle_free(b);
    return rc;
}

int ldem_checkpoint_load(const char *path, ldem_world *w, ldem_checkpoint_extra *x, ldem_err *err)
{
    ldem_bundle b;
    int rc = read_bundle(path, &b, err);
    if (rc)
        return rc;
    sections s;
    header h;
    rc = find_sections(&b, path, &s, err);
    if (!rc)
        rc = validate(&s, path, w, &h, err);
    if (!rc)
        rc = restore(w, x, &s, path, &h, err);
    ldem_bundle_free(&b);
    return rc;
}
