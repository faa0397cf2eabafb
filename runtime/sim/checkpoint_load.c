/* Checkpoints, loading (ldem/sim/checkpoint.h; the byte layout is in docs/checkpoint.md;
 * saving is in checkpoint_save.c). The bundle is read whole and every section validated
 * completely — counts against the world, lengths, finite values, history cells — before the
 * world is touched, so a bad file leaves the world as it was. Jäger stacks are rebuilt from
 * their values: the pooled cells bottom first in each contact's pool, the held ones back in
 * the contact; the pools get back their capacity and peak, so memory probes and compaction
 * decisions continue unchanged. */
#include "ldem/infile.h"
#include "ldem/sim/checkpoint.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/payload.h"
#include "checkpoint_format.h"
#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/memory_budget.h"
#include "step_work.h"

/* ---- validation ---- */

/* What the header says, kept for the other sections' checks and for the restore. */
typedef struct header {
    uint32_t version;
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

/* Beyond 2^53 steps a double time can no longer tell one step from the next. */
#define MAX_CHECKPOINT_STEP (UINT64_C(1) << 53)

/* The clock: dt is fixed for a whole run (a restart keeps the checkpoint's), and every step
 * adds it to t from 0 (step.c), so t is step·dt up to the rounding of that sum — at most
 * step·ε relative. A clock off by more, running backwards or not moving is damage. */
static int check_clock(payload_cursor *c, const header *h)
{
    c->pos = 56; /* the step, then t and dt from byte 80 */
    if (h->step > MAX_CHECKPOINT_STEP)
        return cursor_fail(c, "step %llu is beyond 2^53, where the time can no longer count "
                              "steps",
                           (unsigned long long)h->step);
    c->pos = 88;
    if (!(h->dt > 0.0))
        return cursor_fail(c, "time step dt = %.17g (expected > 0)", h->dt);
    c->pos = 80;
    if (!(h->t >= 0.0))
        return cursor_fail(c, "time t = %.17g (expected >= 0: runs start at 0)", h->t);
    double steps = (double)h->step, expected = steps * h->dt;
    double tolerance = expected * (4.0 * DBL_EPSILON * (steps + 1.0)) + DBL_MIN;
    if (!(fabs(h->t - expected) <= tolerance))
        return cursor_fail(c,
                           "time t = %.17g but step %llu × dt %.17g = %.17g: the clock "
                           "does not match the step count",
                           h->t, (unsigned long long)h->step, h->dt, expected);
    c->pos = 96;
    if (!(h->skin >= 0.0))
        return cursor_fail(c, "neighbour-list skin %.17g (expected >= 0)", h->skin);
    return LDEM_OK;
}

static int parse_header(const ldem_section *s, const char *path, const ldem_world *w, header *h,
                        ldem_err *err)
{
    payload_cursor c;
    cursor_init(&c, s, path, err);
    uint32_t version = 0, reserved = 0;
    int rc = read_u32(&c, &version);
    if (!rc && version != CKPT_VERSION && version != CKPT_VERSION_NO_MERGE)
        return cursor_fail(&c, "checkpoint version %u (this build reads %u and %u)", version,
                           CKPT_VERSION_NO_MERGE, CKPT_VERSION);
    h->version = version;
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
    if ((rc = cursor_finish(&c)) || (rc = check_clock(&c, h)))
        return rc;
    c.pos = 4;
    uint32_t expected = (uint32_t)ldem__checkpoint_cell_values(w) -
                        (version == CKPT_VERSION_NO_MERGE ? CELL_MERGED_VALUES : 0u);
    if (h->nvalues != expected)
        return cursor_fail(&c, "history cells carry %u values but this run's pools keep %u",
                           h->nvalues, expected);
    if (h->has_list & ~(LIST_BODIES | LIST_WALLS) || reserved)
        return cursor_fail(&c, "unknown flags 0x%x / reserved field %u (expected 0)",
                           h->has_list & ~(LIST_BODIES | LIST_WALLS), reserved);
    if ((rc = count_matches(&c, "bodies", h->nbodies, w->bodies.count)) ||
        (rc = count_matches(&c, "walls", h->nwalls, w->nwalls)) ||
        (rc = count_matches(&c, "materials", h->nmaterials, w->nmaterials)) ||
        (rc = count_matches(&c, "shapes", h->nshapes, w->nshapes)))
        return rc;
    uint64_t mine = ldem__checkpoint_static_checksum(w);
    if (h->checksum != mine && h->checksum != ldem__checkpoint_static_checksum_with_beta(w))
        return cursor_fail(&c,
                           "static description checksum %016llx, this scene's %016llx: "
                           "the checkpoint was written for a different scene (materials, "
                           "contact laws, shapes, body kinds, masses, the bodies' order or "
                           "wall geometry differ)",
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
    /* The peak is the file's word too: the pools' total must fit the machine before they are
     * allocated, or a damaged file with a valid CRC could ask for 100 GB. */
    uint64_t pool_bytes = 0;
    for (unsigned q = 0; q < LDEM_HISTORY_SHARDS; q++)
        pool_bytes = ldem_memory_add(
            pool_bytes,
            ldem_memory_mul(h->capacity[q], ldem_history_pool_bytes_per_cell(&w->pools[q])));
    if (ldem_memory_check(0, pool_bytes, path, 0, "history pools of the checkpoint", err))
        return LDEM_ERR_INPUT;
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
    ldem_contact c; /* springs NULL, history head 0 */
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
    const ldem_law_ops *ops = w->laws[c->law].ops;
    if (r->law_kind != ops->id) {
        const ldem_law_ops *saved = ldem_law_by_id(r->law_kind);
        return cursor_fail(cur, "contact %llu: saved under contact law %s, the scene's is %s",
                           (unsigned long long)k, saved ? saved->name : "(unknown)", ops->name);
    }
    if (!ops->history_length && (r->ncells || r->held))
        return cursor_fail(cur, "contact %llu: %u history cells (%u held) under contact law "
                           "%s, which keeps none", (unsigned long long)k, r->ncells, r->held,
                           ops->name);
    if (r->held > ops->history_max_held || r->held > r->ncells)
        return cursor_fail(cur, "contact %llu: %u of its %u history cells held in the contact "
                           "(at most %u)", (unsigned long long)k, r->held, r->ncells,
                           ops->history_max_held);
    return LDEM_OK;
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
/* Version 4 appends each cell's merged flag and each contact's growing leg. */
static bool has_merge_state(const header *h)
{
    return h->version >= CKPT_VERSION;
}

/* The law's extra values (a Jäger contact's growing leg; zeros for laws without). */
static int read_extra(payload_cursor *cur, uint64_t k, const ldem_law_ops *ops, ldem_contact *c)
{
    double v[CONTACT_CHAIN_VALUES];
    int rc = contact_f64s(cur, k, "compression state", v, CONTACT_CHAIN_VALUES);
    if (rc)
        return rc;
    bool ok = true;
    if (ops->check_extra)
        ok = ops->check_extra(v) == 0;
    else
        for (unsigned a = 0; a < CONTACT_CHAIN_VALUES; a++)
            ok = ok && v[a] == 0;
    if (!ok)
        return cursor_fail(cur, "contact %llu: compression state (%g, %g, ..., %g) is not a "
                           "growing leg the law could hold",
                           (unsigned long long)k, v[0], v[1], v[8]);
    if (ops->load_extra)
        ops->load_extra(c->law_state, v);
    return LDEM_OK;
}

/* One history cell: top level, slope, (N), merged flag (version 3: none, read as merged). */
static int read_cell(payload_cursor *cur, uint64_t k, uint32_t q, const header *h,
                     ldem_law_cell *out)
{
    const uint32_t nvalues = h->nvalues;
    const uint32_t plain = nvalues - (has_merge_state(h) ? CELL_MERGED_VALUES : 0u);
    double cell[4];
    int rc = contact_f64s(cur, k, "history cell", cell, plain);
    if (rc)
        return rc;
    double merged = 1.0;
    if (plain < nvalues) {
        merged = ldem_get_f64le(cur->p + cur->pos);
        cur->pos += 8;
        if (merged != 0 && merged != 1)
            return cursor_fail(cur, "contact %llu: history cell %u: merged flag %g (0 or 1)",
                               (unsigned long long)k, q, merged);
    }
    *out = (ldem_law_cell){cell[0], {cell[1], cell[2]}, plain > 3 ? cell[3] : 0.0,
                           (uint8_t)merged};
    return LDEM_OK;
}

static int read_contact(payload_cursor *cur, const ldem_world *w, const header *h, uint64_t k,
                        contact_rec *r)
{
    memset(r, 0, sizeof *r);
    ldem_contact *c = &r->c;
    const uint32_t nvalues = h->nvalues;
    int rc = cursor_need(cur, 1,
                         CONTACT_FIXED_BYTES + (has_merge_state(h) ? 8u * CONTACT_CHAIN_VALUES : 0u),
                         "contact record");
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
    const ldem_pair_law *law = &w->laws[c->law];
    if (law->ops->load)
        law->ops->load(c->law_state, v);
    if (has_merge_state(h) && (rc = read_extra(cur, k, law->ops, c)))
        return rc;
    if ((rc = contact_need(cur, k, "history cells", r->ncells, 8u * nvalues)))
        return rc;
    r->cells = cur->p + cur->pos;
    /* The law checks each cell against the state and the cell above (the levels must fall
     * from the approach down to above 0 for a Jäger stack to mean what the file says). */
    double above = 0.0;
    for (uint32_t q = 0; q < r->ncells; q++) {
        ldem_law_cell cell;
        if ((rc = read_cell(cur, k, q, h, &cell)))
            return rc;
        char why[200];
        if (law->ops->history_check(law, c->law_state, q, &cell, above, has_merge_state(h), why,
                                    sizeof why))
            return cursor_fail(cur, "contact %llu: %s", (unsigned long long)k, why);
        above = cell.level;
    }
    if ((rc = contact_need(cur, k, "linear-law springs", c->nsprings, SPRING_BYTES)))
        return rc;
    r->springs = cur->p + cur->pos;
    for (uint32_t q = 0; q < c->nsprings; q++) {
        uint32_t key;
        double xi[3];
        read_u32(cur, &key);
        if ((rc = contact_f64s(cur, k, "spring displacement", xi, 3)))
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
        int rc = read_contact(&cur, w, h, k, &r);
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
    const ldem_section *stag; /* optional: the run's stage, only in staged runs' files */
    const ldem_section *wsrv; /* optional: absent in checkpoints from before the wall servo's
                               * state was saved */
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
    s->stag = ldem_bundle_find(b, "STAG");
    s->wsrv = ldem_bundle_find(b, "WSRV");
    return LDEM_OK;
}

/* A whole f64 in [lo, hi]. */
static int whole_in(double v, double lo, double hi)
{
    return v >= lo && v <= hi && v == floor(v);
}

/* Section WSRV: finite values, and the counts, bits and ring indices whole and in range. */
static int check_wall_servos(const ldem_section *s, const char *path, const header *h,
                             ldem_err *err)
{
    int rc = check_doubles_section(s, path, h->nwalls, WSRV_VALUES, "wall servo state",
                                   "wall servo states", err);
    for (uint64_t i = 0; !rc && i < h->nwalls; i++) {
        const unsigned char *p = s->data + 8u * WSRV_VALUES * i;
        double v[WSRV_FIXED_VALUES];
        for (unsigned k = 0; k < WSRV_FIXED_VALUES; k++)
            v[k] = ldem_get_f64le(p + 8u * k);
        if (!whole_in(v[4], 0, 0x1p53) || !whole_in(v[5], 0, 0x1p53) ||
            !whole_in(v[6], 0, 0xffffffffu) || !whole_in(v[7], 0, 0xffffffffu) ||
            !whole_in(v[8], 0, LDEM_SERVO_WINDOW - 1) || !whole_in(v[9], 0, LDEM_SERVO_WINDOW) ||
            !whole_in(v[10], -1, 1) || !whole_in(v[11], 0, 1)) {
            payload_cursor c;
            cursor_init(&c, s, path, err);
            c.pos = 8u * WSRV_VALUES * i;
            rc = cursor_fail(&c, "wall %llu: the servo's counts, bits or ring slots are not "
                             "whole numbers in range", (unsigned long long)i);
        }
    }
    return rc;
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
                                   : s->cell->length == 8u * CELL_VALUES_BEFORE_CYCLIC
                                       ? CELL_VALUES_BEFORE_CYCLIC
                                       : CELL_VALUES,
                                   1, "cell value", "cell values", err);
    for (unsigned a = 0; !rc && s->cell && s->cell->length == 8u * CELL_VALUES && a < 3; a++) {
        payload_cursor c;
        cursor_init(&c, s->cell, path, err);
        c.pos = 8u * (CELL_VALUES_BEFORE_CYCLIC + a);
        double v = ldem_get_f64le(s->cell->data + c.pos);
        if (v != -1.0 && !(v >= 0.0 && v == floor(v) && v <= (double)h->step))
            rc = cursor_fail(&c, "the cyclic drive of direction %c started at step %.17g "
                             "(expected -1, none, or a whole step up to the checkpoint's %llu)",
                             "xyz"[a], v, (unsigned long long)h->step);
    }
    if (!rc && s->wsrv)
        rc = check_wall_servos(s->wsrv, path, h, err);
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

/* The walls' servo and interval state; absent, all of it starts from zero. */
static void restore_wall_servos(ldem_world *w, const ldem_section *s)
{
    const unsigned char *p = s ? s->data : NULL;
    for (size_t i = 0; i < w->nwalls; i++) {
        ldem_wall *wl = &w->walls[i];
        ldem_servo_watch *ws = &wl->watch;
        memset(ws, 0, sizeof *ws);
        wl->servo_accumulated = 0.0;
        wl->force_sum = ldem_vec3_zero();
        wl->force_count = 0;
        if (!p)
            continue;
        wl->servo_accumulated = ldem_get_f64le(p);
        p += 8;
        wl->force_sum = get_vec3(&p);
        double v[8];
        for (int k = 0; k < 8; k++, p += 8)
            v[k] = ldem_get_f64le(p);
        wl->force_count = (uint64_t)v[0];
        ws->interval_flips = (uint64_t)v[1];
        ws->flip_bits = (uint64_t)v[2] | ((uint64_t)v[3] << 32);
        ws->next = (uint32_t)v[4], ws->filled = (uint32_t)v[5];
        ws->last_sign = (int32_t)v[6], ws->chattering = (int32_t)v[7];
        for (int r = 0; r < LDEM_SERVO_WINDOW; r++, p += 8)
            ws->force[r] = ldem_get_f64le(p);
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

/* Give the law its history stack back from the cells read_contact checked (top first). */
static int restore_history(ldem_world *w, ldem_contact *c, const contact_rec *r, const header *h)
{
    if (!r->ncells)
        return 0;
    ldem_law_cell *cells = malloc((size_t)r->ncells * sizeof *cells);
    if (!cells)
        return -1;
    const uint32_t nvalues = h->nvalues;
    for (uint32_t q = 0; q < r->ncells; q++) {
        const unsigned char *p = r->cells + (size_t)q * 8u * nvalues;
        /* version 3 knew nothing of merging: marked merged, such a cell takes equal slopes only */
        double merged = has_merge_state(h) ? ldem_get_f64le(p + 8u * (nvalues - 1)) : 1.0;
        cells[q] = (ldem_law_cell){ldem_get_f64le(p), {ldem_get_f64le(p + 8), ldem_get_f64le(p + 16)},
                                   0.0, (uint8_t)merged};
    }
    ldem_law_env env = {&c->pair, &w->pools[c->shard], w->track_energy};
    int rc = w->laws[c->law].ops->history_import(&env, c->law_state, cells, r->ncells, r->held);
    free(cells);
    return rc ? -1 : 0;
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
        int rc = read_contact(&cur, w, h, k, &r); /* validated: cannot fail */
        if (rc)
            return rc;
        ldem_contact *c = &w->contacts[k];
        *c = r.c;
        w->ncontacts = k + 1;
        if (restore_springs(c, &r) ||
            restore_history(w, c, &r, h))
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

/* The contacts' periodic images, which are not stored: they follow from the positions as
 * long as every candidate is closer than half a cell (docs/checkpoint.md, CELL). */
static void set_images(ldem_world *w)
{
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

static void restore_cell(ldem_world *w, const ldem_section *s)
{
    const unsigned char *p = s->data;
    for (unsigned m = 0; m < CELL_MATRICES; m++) {
        ldem_mat3 *dst = (ldem_mat3 *)ldem__checkpoint_cell_matrix(w, m);
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
    int cyclic = s->length == 8u * CELL_VALUES;
    for (int a = 0; a < 3; a++, p += 8) {
        double v = cyclic ? ldem_get_f64le(p) : -1.0;
        w->cyclic_started[a] = v >= 0.0;
        w->cyclic_start[a] = v >= 0.0 ? (uint64_t)v : 0;
    }
    for (int a = 0; a < 3; a++, p += 8)
        w->cyclic_strain0[a] = cyclic && w->cyclic_started[a] ? ldem_get_f64le(p) : 0.0;
    ldem_cell_set_h(&w->cell, w->cell.h);
    set_images(w);
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
    if (w->work_free)
        w->work_free(w->work);
    w->work = NULL;
    int rc = restore_contacts(w, s->cont, path, h, err);
    if (rc) {
        free(frames);
        return rc;
    }
    restore_bodies(w, s->bods);
    restore_walls(w, s->wals);
    restore_wall_servos(w, s->wsrv);
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
    FILE *fp = ldem_fopen_input(path);
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

/* STAG: the stage and where it began, which cannot lie after the checkpoint's own clock. */
static int read_stage(const ldem_section *stag, const char *path, const header *h,
                      ldem_checkpoint_stage *st, ldem_err *err)
{
    if (!stag)
        return LDEM_OK;
    const unsigned char *p = stag->data;
    uint64_t n = stag->length >= STAGE_BYTES + STAGE_WINDOW_BYTES ? ldem_get_u32le(p + 24) : 0;
    int sane = stag->length >= STAGE_BYTES && n <= LDEM_STAGE_SERVO_MAX &&
               stag->length == STAGE_BYTES + (n ? STAGE_WINDOW_BYTES + 16u * n : 0);
    double t = sane ? ldem_get_f64le(p + 16) : 0.0;
    uint64_t block = n ? ldem_get_u64le(p + 32) : 0;
    if (!sane || ldem_get_u64le(p + 8) > h->step || !isfinite(t) || t < 0.0 || t > h->t ||
        block > h->step - ldem_get_u64le(p + 8) || (n && ldem_get_u32le(p + 28) > 1))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "damaged checkpoint: section 'STAG' is not a stage beginning at or "
                            "before step %llu", (unsigned long long)h->step);
    for (uint64_t i = 0; i < 2 * n; i++)
        if (!isfinite(ldem_get_f64le(p + 40 + 8 * i)))
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                "damaged checkpoint: section 'STAG': a servo window value is "
                                "not finite");
    if (st) {
        st->present = 1;
        st->stage = ldem_get_u32le(p);
        st->step = ldem_get_u64le(p + 8);
        st->t = t;
        st->nservo = (uint32_t)n;
        st->have_mean = n ? ldem_get_u32le(p + 28) : 0;
        st->block_steps = block;
        for (uint64_t i = 0; i < n; i++) {
            st->sum[i] = ldem_get_f64le(p + 40 + 16 * i);
            st->mean[i] = ldem_get_f64le(p + 48 + 16 * i);
        }
    }
    return LDEM_OK;
}

int ldem_checkpoint_load(const char *path, ldem_world *w, ldem_checkpoint_extra *x, ldem_err *err)
{
    return ldem_checkpoint_load_staged(path, w, x, NULL, err);
}

int ldem_checkpoint_load_staged(const char *path, ldem_world *w, ldem_checkpoint_extra *x,
                                ldem_checkpoint_stage *st, ldem_err *err)
{
    if (st)
        *st = (ldem_checkpoint_stage){.present = 0};
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
        rc = read_stage(s.stag, path, &h, st, err);
    if (!rc)
        rc = restore(w, x, &s, path, &h, err);
    ldem_bundle_free(&b);
    return rc;
}

/* ---- contacts that change rank (ldem/sim/world.h, docs/mpi.md) ---- */

typedef struct kept_record {
    uint64_t key, at;
} kept_record;

static int by_pair(const void *a, const void *b)
{
    uint64_t x = ((const kept_record *)a)->key, y = ((const kept_record *)b)->key;
    return (x > y) - (x < y);
}

int ldem_world_unpack_contacts(ldem_world *w, const unsigned char *records, size_t bytes,
                               uint64_t count, ldem_err *err)
{
    header h;
    memset(&h, 0, sizeof h);
    h.version = CKPT_VERSION;
    h.nvalues = (uint32_t)ldem__checkpoint_cell_values(w);
    ldem_section s = {"CONT", 0, bytes, (unsigned char *)records, -1};
    kept_record *keep = malloc((count ? count : 1) * sizeof *keep);
    if (!keep)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %llu contacts",
                            (unsigned long long)count);
    /* check every record and find the kept ones before the world is touched */
    payload_cursor cur;
    cursor_init(&cur, &s, "contacts from other ranks", err);
    uint64_t kept = 0;
    for (uint64_t k = 0; k < count; k++) {
        uint64_t at = cur.pos;
        contact_rec r;
        if (read_contact(&cur, w, &h, k, &r)) {
            free(keep);
            return LDEM_ERR_INTERNAL;
        }
        if (ldem_pair_kept(w->bodies.flags, r.c.i, r.c.j))
            keep[kept++] = (kept_record){(uint64_t)r.c.i << 32 | r.c.j, at};
    }
    ldem_contact *next = calloc(kept ? kept : 1, sizeof *next);
    if (cursor_finish(&cur) || !next) {
        free(keep);
        free(next);
        return next ? LDEM_ERR_INTERNAL
                    : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                   "out of memory for %llu contacts", (unsigned long long)kept);
    }
    qsort(keep, kept, sizeof *keep, by_pair); /* the list's order */
    release_contacts(w);
    w->contacts = next;
    w->contacts_capacity = kept;
    for (uint64_t k = 0; k < kept; k++) {
        contact_rec r;
        cur.pos = keep[k].at;
        read_contact(&cur, w, &h, k, &r); /* checked above */
        ldem_contact *c = &w->contacts[w->ncontacts++];
        *c = r.c;
        if (restore_springs(c, &r) || restore_history(w, c, &r, &h)) {
            free(keep);
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                "out of memory restoring contact %llu", (unsigned long long)k);
        }
    }
    free(keep);
    if (w->cell.periodic) /* the images follow from the positions, as after a checkpoint */
        set_images(w);
    return LDEM_OK;
}
