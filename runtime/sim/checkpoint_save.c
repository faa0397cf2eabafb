/* Checkpoints, saving: the whole dynamic state of a run in one bundle-container file
 * (ldem/sim/checkpoint.h; the byte layout is in docs/checkpoint.md; loading is in
 * checkpoint_load.c).
 *
 * Saving streams each section through a small buffer (a run with millions of history cells
 * is never held twice in memory) into an ldem_outfile, so the file appears whole or not at
 * all. Every double travels as its 64 bits, so the restored state is bitwise the saved one.
 * Jäger stacks travel as values, top to bottom, with how many of them the contact holds.
 */
#include "ldem/sim/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "checkpoint_format.h"
#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/outfile.h"
#include "sim_internal.h"

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
    put_u32(k, (uint32_t)ldem__checkpoint_cell_values(w));
    put_u64(k, w->bodies.count), put_u64(k, w->nwalls), put_u64(k, w->ncontacts);
    put_u64(k, w->nmaterials), put_u64(k, w->nshapes), put_u64(k, nframes);
    put_u64(k, w->step), put_u64(k, w->list_builds), put_u64(k, ldem__checkpoint_static_checksum(w));
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

static int write_wall_servos(sink *k, const ldem_world *w)
{
    if (!w->nwalls)
        return LDEM_OK;
    if (section_begin(k, "WSRV", 8 * (uint64_t)WSRV_VALUES * w->nwalls))
        return k->rc;
    for (size_t i = 0; i < w->nwalls; i++) {
        const ldem_wall *wl = &w->walls[i];
        const ldem_servo_watch *s = &wl->watch;
        put_f64(k, wl->servo_accumulated);
        put_vec3(k, wl->force_sum);
        put_f64(k, (double)wl->force_count), put_f64(k, (double)s->interval_flips);
        put_f64(k, (double)(s->flip_bits & 0xffffffffu)), put_f64(k, (double)(s->flip_bits >> 32));
        put_f64(k, s->next), put_f64(k, s->filled), put_f64(k, s->last_sign);
        put_f64(k, s->chattering);
        for (int r = 0; r < LDEM_SERVO_WINDOW; r++)
            put_f64(k, s->force[r]);
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

static int write_cell(sink *k, const ldem_world *w)
{
    if (!w->cell.periodic)
        return LDEM_OK;
    if (section_begin(k, "CELL", 8 * (uint64_t)CELL_VALUES))
        return k->rc;
    for (unsigned m = 0; m < CELL_MATRICES; m++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                put_f64(k, ldem__checkpoint_cell_matrix(w, m)->m[a][b]);
    for (int a = 0; a < 3; a++)
        put_f64(k, w->stiffness[a]);
    put_f64(k, w->work_cell);
    for (int a = 0; a < 3; a++)
        put_f64(k, w->servo_integral[a]);
    for (int a = 0; a < 3; a++) /* a step count is a whole f64 below 2^53 */
        put_f64(k, w->cyclic_started[a] ? (double)w->cyclic_start[a] : -1.0);
    for (int a = 0; a < 3; a++)
        put_f64(k, w->cyclic_started[a] ? w->cyclic_strain0[a] : 0.0);
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

/* A Jäger contact's growing leg (checkpoint_format.h), zeros for other laws. */
static void chain_values(const ldem_world *w, const ldem_contact *c,
                         double v[CONTACT_CHAIN_VALUES])
{
    memset(v, 0, CONTACT_CHAIN_VALUES * sizeof *v);
    if (is_jager(w, c)) {
        const ldem_jager_chain *ch = &c->law_state.jager.chain;
        v[0] = ch->active, v[1] = ch->base, v[2] = ch->rise[0], v[3] = ch->rise[1];
        v[4] = ch->rise_lo[0], v[5] = ch->rise_lo[1], v[6] = ch->offset[0];
        v[7] = ch->offset[1], v[8] = ch->radius, v[9] = ch->n_base, v[10] = ch->t_below[0];
        v[11] = ch->t_below[1];
    }
}

/* The cached Hertz constants of a contact, in their declaration order. */
static void pair_values(const ldem_elastic_pair *p, double v[10])
{
    v[0] = p->E, v[1] = p->nu, v[2] = p->R1, v[3] = p->R2, v[4] = p->rstar;
    v[5] = p->sqrt_rstar, v[6] = p->estar, v[7] = p->gstar, v[8] = p->kappa, v[9] = p->cn;
}

static void write_contact(sink *k, const ldem_world *w, const ldem_contact *c)
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
    double chain[CONTACT_CHAIN_VALUES];
    chain_values(w, c, chain);
    for (unsigned q = 0; q < CONTACT_CHAIN_VALUES; q++)
        put_f64(k, chain[q]);
    if (ncells) {
        /* The file lists each cell's top level (and N there), as docs/jager.md §2 does; the pool
         * holds bottom levels (§8): a cell's top is the base of the cell above, the top
         * cell's is d. */
        const ldem_history_pool *pool = &w->pools[c->shard];
        const ldem_jager_params jp = {.pair = c->pair};
        double z = c->law_state.jager.d, n = c->law_state.jager.n;
        for (ldem_jager_cursor q = ldem_jager_first(pool, &c->law_state.jager); q.cell;
             ldem_jager_next(pool, &q)) {
            put_f64(k, z), put_f64(k, q.cell->w[0]);
            put_f64(k, q.cell->w[1]);
            if (pool->force)
                put_f64(k, n);
            put_f64(k, q.pool_index ? pool->merged[q.pool_index]
                                    : c->law_state.jager.held_merged[c->law_state.jager.held_top ^
                                                                     q.position]);
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
    int nvalues = ldem__checkpoint_cell_values(w);
    uint64_t length = 0;
    for (size_t q = 0; q < w->ncontacts; q++) {
        const ldem_contact *c = &w->contacts[q];
        length += CONTACT_FIXED_BYTES + 8u * CONTACT_CHAIN_VALUES + (uint64_t)stack_cells(w, c) * 8u * (uint64_t)nvalues +
                  (uint64_t)c->nsprings * SPRING_BYTES;
    }
    if (section_begin(k, "CONT", length))
        return k->rc;
    for (size_t q = 0; q < w->ncontacts && !k->rc; q++)
        write_contact(k, w, &w->contacts[q]);
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

static int write_stage(sink *k, const ldem_checkpoint_stage *st)
{
    if (!st)
        return LDEM_OK;
    if (st->nservo > LDEM_STAGE_SERVO_MAX)
        return ldem_err_set(k->err, LDEM_ERR_INTERNAL, NULL, 0, "checkpoint: %u servo walls "
                            "in a stage's window", (unsigned)st->nservo);
    uint64_t length = STAGE_BYTES + (st->nservo ? STAGE_WINDOW_BYTES + 16u * st->nservo : 0);
    if (section_begin(k, "STAG", length))
        return k->rc;
    put_u32(k, st->stage);
    put_u32(k, 0);
    put_u64(k, st->step);
    put_f64(k, st->t);
    if (st->nservo) {
        put_u32(k, st->nservo);
        put_u32(k, st->have_mean);
        put_u64(k, st->block_steps);
        for (uint32_t i = 0; i < st->nservo; i++)
            put_f64(k, st->sum[i]), put_f64(k, st->mean[i]);
    }
    return section_end(k);
}

static int write_all(FILE *fp, const char *path, const ldem_world *w,
                     const ldem_checkpoint_extra *x, const ldem_checkpoint_stage *st,
                     ldem_err *err)
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
    if (!rc)
        rc = write_stage(k, st);
    if (!rc)
        rc = write_wall_servos(k, w);
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
    return ldem_checkpoint_save_staged(path, w, x, NULL, err);
}

int ldem_checkpoint_save_staged(const char *path, const ldem_world *w,
                                const ldem_checkpoint_extra *x, const ldem_checkpoint_stage *st,
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
    rc = write_all(of.fp, path, w, x, st, err);
    if (rc) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}
