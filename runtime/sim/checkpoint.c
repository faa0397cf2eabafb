/* Checkpoints: what saving and loading share (checkpoint_format.h). The format is in
 * docs/checkpoint.md, the two directions in checkpoint_save.c and checkpoint_load.c. */
#include "checkpoint_format.h"

#include <string.h>

#include "ldem/bytes.h"

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

/* A law's parameters that a restart may not change, at least two values (zeros pad), and
 * (with_beta) first the restart-free `beta` where the law has one, else 0: the layout of the
 * files written when the laws' parameters were β, kn and ks, whose checksums this keeps. */
static void hash_law_params(hasher *s, const ldem_pair_law *l, int with_beta)
{
    const ldem_law_ops *ops = l->ops;
    if (with_beta) {
        int beta = ldem_law_param_index(ops, "beta");
        hash_f64(s, beta >= 0 ? l->p[beta] : 0.0);
    }
    size_t hashed = 0;
    for (size_t k = 0; k < ops->nparams; k++)
        if (!ops->params[k].restart_free)
            hash_f64(s, l->p[k]), hashed++;
    for (; hashed < 2; hashed++)
        hash_f64(s, 0.0);
}

/* Materials, pair laws, shapes (level set and nodes), bodies' kinds, shapes, materials,
 * flags, radii, masses and inertias, walls' geometry. Not included, so that a restart (or a
 * stage) may change them: wall drives, gravity, damping, run length, outputs, thread count,
 * and Kuhn's β: it only decides which legs later loading merges, every stored history stays
 * a valid one (docs/checkpoint.md). Friction is included: the stored legs' slip limits are
 * μN, and a changed μ would leave them beyond the new limit. Files written before β could
 * change hashed it: with_beta reproduces their checksum. */
static uint64_t static_checksum(const ldem_world *w, int with_beta)
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
        hash_u64(&s, l->ops->id);
        hash_f64(&s, l->elastic.E), hash_f64(&s, l->elastic.nu), hash_f64(&s, l->mu);
        hash_law_params(&s, l, with_beta);
        /* two materials: their G*, which the nominal (E, ν) above does not fix (files from
         * before exact mixing used another, and are refused) */
        if (l->mixed)
            hash_f64(&s, l->elastic.moduli.gstar);
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
        hash_u64(&s, b->flags[i] & ~(uint32_t)LDEM_BODY_GHOST); /* a rank's, not the scene's */
        /* a deformable body's radius grows with ε: its undeformed one describes the scene */
        hash_f64(&s, b->modal && b->modal[i] != LDEM_RIGID ? w->modal.radius0[i] : b->radius[i]);
        hash_f64(&s, b->mass[i]);
        hash_vec3(&s, b->inertia[i]);
    }
    /* (only when the bodies are not in input order: other checkpoints keep their hash) */
    size_t moved = 0;
    for (size_t i = 0; i < b->count; i++)
        moved += b->id[i] != i;
    if (moved) {
        hash_u64(&s, UINT64_C(0x4F524452)); /* "ORDR" */
        for (size_t i = 0; i < b->count; i++)
            hash_u64(&s, b->id[i]);
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

uint64_t ldem__checkpoint_static_checksum(const ldem_world *w)
{
    return static_checksum(w, 0);
}

uint64_t ldem__checkpoint_static_checksum_with_beta(const ldem_world *w)
{
    return static_checksum(w, 1);
}

int ldem__checkpoint_cell_values(const ldem_world *w)
{
    return (w->pools[0].cache_force ? 4 : 3) + (int)CELL_MERGED_VALUES;
}

const ldem_mat3 *ldem__checkpoint_cell_matrix(const ldem_world *w, unsigned k)
{
    const ldem_mat3 *m[CELL_MATRICES] = {&w->cell.h, &w->cell.h_prev, &w->cell.h0, &w->h_list,
                                         &w->cell.L, &w->virial, &w->stress};
    return m[k];
}
