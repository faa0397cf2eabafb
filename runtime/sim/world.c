/* world.c — allocation and release of the world's state (ldem/sim/world.h). */
#include "ldem/sim/world.h"
#include "ldem/levelset.h"
#include "ldem/sim/node_clusters.h"


#include <stdlib.h>
#include <string.h>

void ldem_world_init(ldem_world *w)
{
    memset(w, 0, sizeof *w);
}

int ldem_world_init_pools(ldem_world *w, ldem_err *err)
{
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        if (!w->pools[s].capacity && ldem_history_pool_init(&w->pools[s], 0, false, err))
            return err ? err->code : LDEM_ERR_NOMEM;
    return LDEM_OK;
}

static void bodies_free(ldem_bodies *b)
{
    free(b->kind);
    free(b->id);
    free(b->shape);
    free(b->material);
    free(b->flags);
    free(b->radius);
    free(b->mass);
    free(b->inv_mass);
    free(b->inertia);
    free(b->x);
    free(b->v);
    free(b->q);
    free(b->L);
    free(b->force);
    free(b->torque);
    free(b->x_prev);
    free(b->q_prev);
    free(b->modal);
    memset(b, 0, sizeof *b);
}

void ldem_contact_release(ldem_world *w, ldem_contact *c)
{
    const ldem_law_ops *ops = w->laws[c->law].ops;
    if (ops->history_release)
        ops->history_release(&w->pools[c->shard], c->law_state);
    free(c->springs);
    c->springs = NULL;
    c->nsprings = c->springs_capacity = 0;
    free(c->gen);
    c->gen = NULL;
    c->ngen = 0;
}

static void modal_free(ldem_modal_state *m)
{
    free(m->eps);
    free(m->rate);
    free(m->eps_prev);
    free(m->force);
    free(m->f_int);
    free(m->f_total);
    free(m->radius0);
    free(m->grown);
    memset(m, 0, sizeof *m);
}

int ldem_world_modal_init(ldem_world *w, ldem_err *err)
{
    ldem_bodies *b = &w->bodies;
    modal_free(&w->modal);
    ldem_modal_state *m = &w->modal;
    size_t ndof = 0;
    for (size_t i = 0; i < b->count; i++) {
        b->modal[i] = LDEM_RIGID;
        if (!(b->flags[i] & LDEM_BODY_DEFORMABLE))
            continue;
        const ldem_shape *sh = b->kind[i] == LDEM_SHAPE_LSET ? &w->shapes[b->shape[i]] : NULL;
        if (!sh || !sh->modes)
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "body %zu is marked deformable but its shape has no modes", i);
        if (ndof + sh->modes->n >= UINT32_MAX)
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "too many modal degrees of freedom");
        b->modal[i] = (uint32_t)ndof;
        ndof += sh->modes->n;
    }
    m->ndof = ndof;
    size_t nd = ndof ? ndof : 1, nb = b->count ? b->count : 1;
    m->eps = calloc(nd, sizeof *m->eps);
    m->rate = calloc(nd, sizeof *m->rate);
    m->eps_prev = calloc(nd, sizeof *m->eps_prev);
    m->force = calloc(nd, sizeof *m->force);
    m->f_int = calloc(nd, sizeof *m->f_int);
    m->f_total = calloc(nd, sizeof *m->f_total);
    m->radius0 = calloc(nb, sizeof *m->radius0);
    m->grown = calloc(nb, sizeof *m->grown);
    if (!m->eps || !m->rate || !m->eps_prev || !m->force || !m->f_int || !m->f_total ||
        !m->radius0 || !m->grown) {
        modal_free(m);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for %zu modal amplitudes", ndof);
    }
    for (size_t i = 0; i < b->count; i++)
        m->radius0[i] = b->radius[i];
    return LDEM_OK;
}

void ldem_world_free(ldem_world *w)
{
    for (size_t k = 0; k < w->ncontacts; k++) {
        free(w->contacts[k].springs);
        free(w->contacts[k].gen);
    }
    free(w->contacts);
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        ldem_history_pool_free(&w->pools[s]);
    for (size_t k = 0; k < w->nmaterials; k++)
        free(w->materials[k].name);
    free(w->materials);
    free(w->laws);
    for (size_t k = 0; k < w->nshapes; k++) {
        free(w->shapes[k].name);
        free(w->shapes[k].source);
        ldem_lset_free(&w->shapes[k].lset);
        ldem_nodes_free(&w->shapes[k].nodes);
        if (w->shapes[k].modes) {
            ldem_modeset_free(w->shapes[k].modes);
            free(w->shapes[k].modes);
        }
        if (w->shapes[k].lset_slopes) {
            ldem_lset_slopes_free(w->shapes[k].lset_slopes);
            free(w->shapes[k].lset_slopes);
        }
        free(w->shapes[k].band_slopes);
        if (w->shapes[k].clusters) {
            ldem_node_clusters_free(w->shapes[k].clusters);
            free(w->shapes[k].clusters);
        }
        if (w->shapes[k].family) {
            ldem_lset_family_free(w->shapes[k].family);
            free(w->shapes[k].family);
        }
    }
    free(w->shapes);
    bodies_free(&w->bodies);
    for (size_t k = 0; k < w->nwalls; k++) {
        free(w->walls[k].name);
        free(w->walls[k].ramp_t);
        free(w->walls[k].ramp_d);
    }
    free(w->walls);
    free(w->x_list);
    free(w->wall_disp_list);
    free(w->radius_list);
    free(w->probe_modal);
    modal_free(&w->modal);
    if (w->work_free)
        w->work_free(w->work);
    memset(w, 0, sizeof *w);
}

/* realloc that zeroes the new tail, so a grown body starts from rest with nothing set. */
static int grow(void **p, size_t old_n, size_t new_n, size_t size)
{
    void *q = realloc(*p, new_n > 0 ? new_n * size : 1);
    if (!q)
        return -1;
    if (new_n > old_n)
        memset((char *)q + old_n * size, 0, (new_n - old_n) * size);
    *p = q;
    return 0;
}

int ldem_bodies_resize(ldem_bodies *b, size_t count, ldem_err *err)
{
    size_t old = b->count;
    if (count > UINT32_MAX / 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "%zu bodies (at most %u)", count,
                            UINT32_MAX / 2);
#define GROW(field) \
    if (grow((void **)&b->field, old, count, sizeof *b->field)) \
        goto nomem;
    GROW(kind) GROW(shape) GROW(material) GROW(flags) GROW(radius) GROW(mass)
    GROW(inv_mass) GROW(inertia) GROW(x) GROW(v) GROW(q) GROW(L) GROW(force) GROW(torque)
    GROW(x_prev) GROW(q_prev) GROW(modal) GROW(id)
#undef GROW
    for (size_t i = old; i < count; i++) {
        b->q[i] = b->q_prev[i] = ldem_quat_identity();
        b->modal[i] = LDEM_RIGID;
        b->id[i] = (uint32_t)i;
    }
    b->count = b->capacity = count;
    return LDEM_OK;
nomem:
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu bodies", count);
}

ldem_vec3 ldem_bodies_omega(const ldem_bodies *b, size_t i)
{
    ldem_vec3 I = b->inertia[i], L = b->L[i];
    ldem_vec3 wb = ldem_vec3_make(I.x > 0 ? L.x / I.x : 0.0, I.y > 0 ? L.y / I.y : 0.0,
                                  I.z > 0 ? L.z / I.z : 0.0);
    return ldem_quat_rotate(b->q[i], wb);
}

uint64_t ldem_world_history_cells(const ldem_world *w)
{
    uint64_t n = 0;
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        n += w->pools[s].live;
    /* and the top cells the contacts hold themselves */
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_law_ops *ops = w->laws[w->contacts[k].law].ops;
        if (ops->history_held)
            n += ops->history_held(w->contacts[k].law_state);
    }
    return n;
}

uint64_t ldem_world_history_bytes(const ldem_world *w)
{
    uint64_t n = 0;
    for (unsigned s = 0; s < LDEM_HISTORY_SHARDS; s++)
        if (w->pools[s].capacity)
            n += (uint64_t)w->pools[s].capacity * ldem_history_pool_bytes_per_cell(&w->pools[s]);
    return n;
}
