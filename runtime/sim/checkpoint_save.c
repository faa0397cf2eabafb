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
#include "step_work.h"

/* Buffered writer of one section's payload, or (bw NULL) of records into memory that grows
 * (a rank's contacts for a gathered checkpoint); the first error sticks. */
typedef struct sink {
    ldem_bundle_writer *bw;
    ldem_err *err;
    int rc;
    size_t n;
    unsigned char *mem;
    size_t mem_bytes, mem_capacity;
    unsigned char buf[1 << 16];
} sink;

static void mem_append(sink *k)
{
    if (k->mem_capacity - k->mem_bytes < k->n) {
        size_t want = k->mem_capacity ? 2 * k->mem_capacity : sizeof k->buf;
        while (want - k->mem_bytes < k->n)
            want *= 2;
        unsigned char *p = realloc(k->mem, want);
        if (!p) {
            k->rc = ldem_err_set(k->err, LDEM_ERR_NOMEM, NULL, 0,
                                 "checkpoint: out of memory for %zu bytes of contacts", want);
            return;
        }
        k->mem = p;
        k->mem_capacity = want;
    }
    memcpy(k->mem + k->mem_bytes, k->buf, k->n);
    k->mem_bytes += k->n;
}

static void sink_flush(sink *k)
{
    if (!k->rc && k->n) {
        if (k->bw)
            k->rc = ldem_bundle_writer_data(k->bw, k->buf, k->n, k->err);
        else
            mem_append(k);
    }
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

/* The contact's history stack, top first, into a buffer the caller frees (NULL for a law
 * without, or an empty stack); a broken stack is a bug, reported before anything is written. */
static int export_history(const ldem_world *w, const ldem_contact *c, size_t k,
                          ldem_law_cell **cells, ldem_err *err)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    *cells = NULL;
    uint32_t n = ops->history_length ? ops->history_length(c->law_state) : 0;
    if (!n)
        return LDEM_OK;
    if (!(*cells = malloc((size_t)n * sizeof **cells)))
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "checkpoint: out of memory for contact %zu's %u history cells", k, n);
    ldem_law_env env = {&c->pair, (ldem_history_pool *)&w->pools[c->shard], 0};
    ldem_err why;
    ldem_err_clear(&why);
    if (ops->history_export(&env, c->law_state, *cells, &why)) {
        free(*cells);
        *cells = NULL;
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "checkpoint: contact %zu: %s", k,
                            why.msg);
    }
    return LDEM_OK;
}

/* Check what the save relies on: valid indices, and a history stack that is whole. */
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
    ldem_law_cell *cells;
    int rc = export_history(w, c, k, &cells, err);
    free(cells);
    return rc;
}

static uint32_t stack_cells(const ldem_world *w, const ldem_contact *c)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    return ops->history_length ? ops->history_length(c->law_state) : 0;
}

/* How many of them the contact holds itself. */
static uint32_t held_cells(const ldem_world *w, const ldem_contact *c)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    return ops->history_held ? ops->history_held(c->law_state) : 0;
}

static int write_header(sink *k, const ldem_world *w, uint64_t nframes,
                        const ldem__contact_set *set)
{
    if (section_begin(k, "CKPT", CKPT_HEADER_BYTES))
        return k->rc;
    put_u32(k, CKPT_VERSION);
    put_u32(k, (uint32_t)ldem__checkpoint_cell_values(w));
    put_u64(k, w->bodies.count), put_u64(k, w->nwalls), put_u64(k, set ? set->count : w->ncontacts);
    put_u64(k, w->nmaterials), put_u64(k, w->nshapes), put_u64(k, nframes);
    put_u64(k, w->step), put_u64(k, w->list_builds), put_u64(k, ldem__checkpoint_static_checksum(w));
    put_f64(k, w->t), put_f64(k, w->dt), put_f64(k, w->skin);
    put_f64(k, w->e_initial), put_f64(k, w->potential0), put_f64(k, w->work_walls);
    put_f64(k, w->work_damping);
    put_f64(k, w->dissipated_contacts_released);
    put_u32(k, (w->x_list ? LIST_BODIES : 0) | (w->wall_disp_list ? LIST_WALLS : 0));
    put_u32(k, 0);
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        put_u32(k, set ? set->capacity[s] : w->pools[s].capacity),
            put_u32(k, set ? set->peak[s] : w->pools[s].peak);
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

/* The cached Hertz constants of a contact, in their declaration order. */
static void pair_values(const ldem_elastic_pair *p, double v[10])
{
    v[0] = p->E, v[1] = p->nu, v[2] = p->R1, v[3] = p->R2, v[4] = p->rstar;
    v[5] = p->sqrt_rstar, v[6] = p->estar, v[7] = p->gstar, v[8] = p->kappa, v[9] = p->cn;
}

static void write_contact(sink *k, const ldem_world *w, const ldem_contact *c, size_t index)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    uint32_t ncells = stack_cells(w, c);
    put_u32(k, c->i), put_u32(k, c->j), put_u32(k, c->law), put_u32(k, c->shard);
    put_u32(k, ops->id), put_u32(k, c->npatch);
    put_u32(k, c->nsprings), put_u32(k, ncells), put_u32(k, held_cells(w, c));
    put_quat(k, c->frame), put_vec3(k, c->normal), put_vec3(k, c->point);
    put_f64(k, c->overlap), put_f64(k, c->r1), put_f64(k, c->r2);
    put_vec3(k, c->fn), put_vec3(k, c->ft), put_vec3(k, c->torque_i), put_vec3(k, c->torque_j);
    double pair[10];
    pair_values(&c->pair, pair);
    for (int q = 0; q < 10; q++)
        put_f64(k, pair[q]);
    put_f64(k, c->stored_normal), put_f64(k, c->dissipated);
    double v[LDEM_LAW_SAVED_VALUES] = {0};
    if (ops->save)
        ops->save(c->law_state, v);
    for (unsigned q = 0; q < LDEM_LAW_SAVED_VALUES; q++)
        put_f64(k, v[q]);
    double extra[CONTACT_CHAIN_VALUES] = {0};
    if (ops->save_extra)
        ops->save_extra(c->law_state, extra);
    for (unsigned q = 0; q < CONTACT_CHAIN_VALUES; q++)
        put_f64(k, extra[q]);
    ldem_law_cell *cells;
    if (ncells && (k->rc = export_history(w, c, index, &cells, k->err)))
        return;
    /* each cell's top level, slope, N there when the pool caches forces, merged flag */
    const ldem_history_pool *pool = &w->pools[c->shard];
    for (uint32_t q = 0; q < ncells; q++) {
        put_f64(k, cells[q].level), put_f64(k, cells[q].w[0]), put_f64(k, cells[q].w[1]);
        if (pool->force)
            put_f64(k, cells[q].force);
        put_f64(k, cells[q].merged);
    }
    if (ncells)
        free(cells);
    for (uint32_t s = 0; s < c->nsprings; s++) {
        put_u32(k, c->springs[s].key);
        put_f64(k, c->springs[s].xi[0]), put_f64(k, c->springs[s].xi[1]);
        put_f64(k, c->springs[s].xi[2]);
    }
}

static int write_contacts(sink *k, const ldem_world *w, const ldem__contact_set *set)
{
    if (set) { /* records gathered from the ranks, written in list order */
        if (section_begin(k, "CONT", set->bytes))
            return k->rc;
        for (uint64_t q = 0; q < set->count && !k->rc; q++)
            k->rc = ldem_bundle_writer_data(k->bw, set->records + set->order[q].at,
                                            set->order[q].bytes, k->err);
        return section_end(k);
    }
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
        write_contact(k, w, &w->contacts[q], q);
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
                     const ldem__contact_set *set, ldem_err *err)
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
    k->mem = NULL;
    rc = write_header(k, w, x ? x->nframes : 0, set);
    if (!rc)
        rc = write_bodies(k, w);
    if (!rc)
        rc = write_walls(k, w);
    if (!rc)
        rc = write_list(k, w);
    if (!rc)
        rc = write_contacts(k, w, set);
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

int ldem__checkpoint_check_contacts(const ldem_world *w, int owned_only, ldem_err *err)
{
    for (size_t k = 0; k < w->ncontacts; k++) {
        if (owned_only && (w->bodies.flags[w->contacts[k].i] & LDEM_BODY_GHOST))
            continue;
        int rc = check_contact_for_save(w, k, err);
        if (rc)
            return rc;
    }
    return LDEM_OK;
}

int ldem_world_pack_contacts(const ldem_world *w, unsigned char **records, size_t *bytes,
                                uint64_t *count, ldem_err *err)
{
    *records = NULL;
    *bytes = 0;
    *count = 0;
    sink *k = malloc(sizeof *k);
    if (!k)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    k->bw = NULL;
    k->err = err;
    k->rc = LDEM_OK;
    k->n = 0;
    k->mem = NULL;
    k->mem_bytes = k->mem_capacity = 0;
    for (size_t q = 0; q < w->ncontacts && !k->rc; q++)
        if (!(w->bodies.flags[w->contacts[q].i] & LDEM_BODY_GHOST)) {
            write_contact(k, w, &w->contacts[q], q);
            ++*count;
        }
    sink_flush(k);
    int rc = k->rc;
    if (rc)
        free(k->mem);
    else
        *records = k->mem, *bytes = k->mem_bytes;
    free(k);
    return rc;
}

int ldem__checkpoint_write(const char *path, const ldem_world *w, const ldem_checkpoint_extra *x,
                           const ldem_checkpoint_stage *st, const ldem__contact_set *set,
                           ldem_err *err)
{
    ldem_outfile of;
    int rc = ldem_outfile_open(&of, path, err);
    if (rc)
        return rc;
    rc = write_all(of.fp, path, w, x, st, set, err);
    if (rc) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}

int ldem_checkpoint_save_staged(const char *path, const ldem_world *w,
                                const ldem_checkpoint_extra *x, const ldem_checkpoint_stage *st,
                                ldem_err *err)
{
    if (x && x->nframes && !x->frame_times)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "checkpoint: %llu frame times but no array",
                            (unsigned long long)x->nframes);
    if (w->comm) /* every rank's contacts, written by one: checkpoint_gather.c */
        return ldem__checkpoint_save_gathered(path, w, x, st, err);
    int rc = ldem__checkpoint_check_contacts(w, 0, err);
    if (rc)
        return rc;
    return ldem__checkpoint_write(path, w, x, st, NULL, err);
}
