/* scene_build.c — an ldem_scene (already checked by scene*.c) becomes the ldem_world demrun
 * runs: bundles loaded, bodies with masses from densities, pair laws resolved, walls copied,
 * the geometry checked for what cannot run, and the time step chosen.
 */
#include "ldem/infile.h"
#include "ldem/sim/scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/log.h"
#include "ldem/memory_budget.h"
#include "ldem/sections.h"
#include "ldem/sim/timestep.h"
#include "body_order.h"
#include "scene_dt.h"

static const double PI = 3.14159265358979323846;

static int nomem(ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory building the world");
}

/* Scene items remember their line; 0 means the value came from --set. */
static const char *where(const ldem_scene *s, long line)
{
    return line > 0 ? s->path : "--set";
}

static const char *grain_file(const ldem_scene *s, const ldem_scene_grain *g)
{
    return g->source ? s->sources[g->source - 1] : where(s, g->line);
}

/* ---- materials and pair laws ---- */

static int build_materials(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    size_t n = s->nmaterials;
    w->materials = calloc(n ? n : 1, sizeof *w->materials);
    w->laws = calloc(n ? n * n : 1, sizeof *w->laws);
    if (!w->materials || !w->laws)
        return nomem(err);
    for (size_t k = 0; k < n; k++) {
        const ldem_scene_material *m = &s->materials[k];
        w->materials[k] = (ldem_material){strdup(m->name), m->E, m->nu, m->density, m->friction};
        w->nmaterials = k + 1;
        if (!w->materials[k].name)
            return nomem(err);
    }
    return LDEM_OK;
}

static int name_matches(const char *pattern, const char *name)
{
    return strcmp(pattern, "*") == 0 || strcmp(pattern, name) == 0;
}

static int entry_matches(const ldem_scene_contact *c, const char *a, const char *b)
{
    return (name_matches(c->material_a, a) && name_matches(c->material_b, b)) ||
           (name_matches(c->material_a, b) && name_matches(c->material_b, a));
}

/* The last contacts entry that matches the pair decides its law wholesale; a pair no entry
 * matches gets the registry's default law with its parameters' fallbacks and μ the mean of
 * the two materials' friction. E* and G* mix exactly (ldem_elastic_mix_of). A law's own
 * check of its parameters (ops->validate) names the entry that chose them. */
static int resolve_law(const ldem_scene *s, ldem_world *w, size_t a, size_t b, ldem_err *err)
{
    const ldem_material *ma = &w->materials[a], *mb = &w->materials[b];
    double mean_mu = 0.5 * (ma->friction + mb->friction);
    const ldem_scene_contact *chosen = NULL;
    for (size_t k = 0; k < s->ncontacts; k++)
        if (entry_matches(&s->contacts[k], ma->name, mb->name))
            chosen = &s->contacts[k];
    ldem_elastic_mix elastic = ldem_elastic_mix_of(ma->E, ma->nu, mb->E, mb->nu);
    ldem_pair_law law =
        chosen ? ldem_pair_law_make(chosen->ops, elastic,
                                    chosen->friction >= 0.0 ? chosen->friction : mean_mu,
                                    chosen->damping, chosen->p, chosen->given)
               : ldem_pair_law_make(ldem_law_default(), elastic, mean_mu, 0.0, NULL, 0);
    law.mixed = !(ma->E == mb->E && ma->nu == mb->nu);
    w->laws[a * w->nmaterials + b] = law;
    ldem_err why;
    ldem_err_clear(&why);
    if (law.ops->validate && law.ops->validate(&law, &why)) {
        long line = chosen ? chosen->line : 0;
        return ldem_err_set(err, LDEM_ERR_INPUT, where(s, line), line,
                            "contacts: %s between %s and %s: %s", law.ops->name, ma->name,
                            mb->name, why.msg);
    }
    return LDEM_OK;
}

static int build_laws(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    size_t n = w->nmaterials;
    int rc = LDEM_OK;
    for (size_t a = 0; a < n && !rc; a++)
        for (size_t b = 0; b < n && !rc; b++)
            rc = resolve_law(s, w, a, b, err);
    return rc;
}

/* ---- shapes from bundles ---- */

static int bundle_error(const ldem_scene *s, const ldem_scene_shape *sh, ldem_err *err,
                        const char *fmt, ...) LDEM_PRINTF(4, 5);

static int bundle_error(const ldem_scene *s, const ldem_scene_shape *sh, ldem_err *err,
                        const char *fmt, ...)
{
    char msg[LDEM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ldem_err_set(err, LDEM_ERR_INPUT, where(s, sh->line), sh->line,
                        "shapes.%.100s.bundle: %s", sh->name, msg);
}

/* The sections a rigid level-set grain needs, decoded. */
static int decode_grain(const ldem_scene *s, const ldem_scene_shape *sh, const ldem_bundle *b,
                        ldem_shape *out, ldem_err *err)
{
    const ldem_section *lset = ldem_bundle_find(b, LDEM_TAG_LSET);
    const ldem_section *node = ldem_bundle_find(b, LDEM_TAG_NODE);
    const ldem_section *body = ldem_bundle_find(b, LDEM_TAG_BODY);
    if (!lset || !node || !body)
        return bundle_error(s, sh, err, "'%.200s' has no %s section (a grain needs LSET, NODE "
                            "and BODY, as lsgen writes them)", sh->bundle,
                            !lset ? "LSET" : !node ? "NODE" : "BODY");
    ldem_body props;
    int rc = ldem_lset_decode(lset, sh->bundle, &out->lset, err);
    if (!rc)
        rc = ldem_nodes_decode(node, sh->bundle, &out->nodes, err);
    if (!rc)
        rc = ldem_body_decode(body, sh->bundle, &props, err);
    if (rc)
        return rc;
    if (!(props.volume > 0.0) || !(props.density > 0.0) || !(props.inertia[0] > 0.0) ||
        !(props.inertia[1] > 0.0) || !(props.inertia[2] > 0.0))
        return bundle_error(s, sh, err, "'%.200s': BODY needs volume, density and inertia > 0",
                            sh->bundle);
    if (out->nodes.count == 0)
        return bundle_error(s, sh, err, "'%.200s': NODE holds no surface nodes", sh->bundle);
    out->volume = props.volume;
    out->inertia_per_density =
        ldem_vec3_make(props.inertia[0] / props.density, props.inertia[1] / props.density,
                       props.inertia[2] / props.density);
    /* Nodes sit on the zero set only to within the grid; half a cell more keeps every point
     * where φ may be negative inside the bounding sphere. */
    double r2 = 0.0, h = 0.0;
    for (uint64_t k = 0; k < out->nodes.count; k++) {
        const double *p = &out->nodes.position[3 * k];
        double d2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        r2 = d2 > r2 ? d2 : r2;
    }
    for (int k = 0; k < 3; k++)
        h = out->lset.spacing[k] > h ? out->lset.spacing[k] : h;
    out->bounding_radius = sqrt(r2) + 0.5 * h;
    return LDEM_OK;
}

/* ---- deformation modes ---- */

/* Whether some grain of scene shape `k` may be deformable (not explicitly rigid). */
static int shape_may_deform(const ldem_scene *s, size_t k)
{
    for (size_t g = 0; g < s->ngrains; g++)
        if (s->grains[g].shape == k && s->grains[g].deformable != 0)
            return 1;
    return 0;
}

/* Amplitude range of mode a for precomputed level sets (docs/scene.md). */
static void modal_range(const ldem_scene_modes *opt, const ldem_modeset *ms,
                        double bounding_radius, uint32_t a, double *lo, double *hi)
{
    if (opt->nrange) {
        size_t k = opt->nrange == 1 ? 0 : a;
        *lo = opt->range[2 * k];
        *hi = opt->range[2 * k + 1];
    } else if (ms->curves[a].n) {
        *lo = ms->curves[a].eps[0];
        *hi = ms->curves[a].eps[ms->curves[a].n - 1];
    } else {
        double r = 0.1 * bounding_radius / (ms->node_max[a] > 0.0 ? ms->node_max[a] : 1.0);
        *lo = -r;
        *hi = r;
    }
}

/* Decode MODE, KMAT, MMAT (ETAB, DAMP if present), build the modeset, apply the scene's
 * damping and level-set choices. */
static int decode_modes(const ldem_scene *s, const ldem_scene_shape *sh, const ldem_bundle *b,
                        ldem_shape *out, ldem_err *err)
{
    const ldem_section *mode = ldem_bundle_find(b, LDEM_TAG_MODE);
    const ldem_section *kmat = ldem_bundle_find(b, LDEM_TAG_KMAT);
    const ldem_section *mmat = ldem_bundle_find(b, LDEM_TAG_MMAT);
    const ldem_section *etab = ldem_bundle_find(b, LDEM_TAG_ETAB);
    const ldem_section *damp = ldem_bundle_find(b, LDEM_TAG_DAMP);
    if (!mode && !kmat && !mmat)
        return LDEM_OK; /* rigid only; grains that insist on deforming are refused later */
    if (!mode || !kmat || !mmat)
        return bundle_error(s, sh, err, "'%.200s' has %s but no %s: deformable grains need "
                            "MODE, KMAT and MMAT (modefit writes all three)", sh->bundle,
                            mode ? "MODE" : kmat ? "KMAT" : "MMAT",
                            !mode ? "MODE" : !kmat ? "KMAT" : "MMAT");
    ldem_modes m = {0};
    ldem_matrix K = {0}, M = {0};
    ldem_etab E = {0};
    ldem_damping D = {0};
    int rc = ldem_modes_decode(mode, sh->bundle, &m, err);
    if (!rc)
        rc = ldem_matrix_decode(kmat, sh->bundle, &K, err);
    if (!rc)
        rc = ldem_matrix_decode(mmat, sh->bundle, &M, err);
    if (!rc && etab)
        rc = ldem_etab_decode(etab, sh->bundle, &E, err);
    if (!rc && damp)
        rc = ldem_damping_decode(damp, sh->bundle, &D, err);
    ldem_modeset *ms = NULL;
    if (!rc && !(ms = calloc(1, sizeof *ms)))
        rc = nomem(err);
    if (!rc) {
        ldem_err inner;
        ldem_err_clear(&inner);
        rc = ldem_modeset_build(&m, &K, &M, etab ? &E : NULL, damp ? &D : NULL, out->nodes.count,
                                out->nodes.position, ms, &inner);
        if (rc)
            rc = bundle_error(s, sh, err, "'%.200s': %s", sh->bundle, inner.msg);
    }
    const ldem_scene_modes *opt = &sh->modes;
    if (!rc && opt->damping == LDEM_MODAL_DAMPING_NONE)
        rc = ldem_modeset_set_rayleigh(ms, 0.0, 0.0, err);
    else if (!rc && opt->damping == LDEM_MODAL_DAMPING_RATIO)
        rc = ldem_modeset_set_ratio(ms, opt->zeta, err);
    else if (!rc && opt->damping == LDEM_MODAL_DAMPING_RAYLEIGH)
        rc = ldem_modeset_set_rayleigh(ms, opt->alpha, opt->beta, err);
    if (!rc && ms->field == LDEM_MODE_FIELD_NONE)
        rc = bundle_error(s, sh, err, "'%.200s': MODE has no grid field (values at the nodes "
                          "only), and deforming the level set needs Φ on the grid; rerun "
                          "modefit, which samples every mode on the LSET grid", sh->bundle);
    if (!rc && opt->nrange > 1 && opt->nrange != ms->n)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, where(s, opt->line), opt->line,
                          "shapes.%.100s.modes.range: %zu pairs for %u modes (give one pair for "
                          "all, or one per mode)", sh->name, opt->nrange, ms->n);
    if (!rc)
        ms->pullback = (uint32_t)opt->pullback;
    if (!rc && opt->levelset == LDEM_LEVELSET_PRECOMPUTED) {
        char key[160];
        snprintf(key, sizeof key, "shapes.%.100s.modes.samples", sh->name);
        rc = ldem_memory_check(s->max_memory,
                               ldem_lset_family_bytes_at_least(&out->lset, ms->n, opt->samples),
                               where(s, opt->line), opt->line, key, err);
    }
    if (!rc && opt->levelset == LDEM_LEVELSET_PRECOMPUTED) {
        double *lo = malloc(ms->n * sizeof *lo), *hi = malloc(ms->n * sizeof *hi);
        if (!lo || !hi || !(out->family = calloc(1, sizeof *out->family)))
            rc = nomem(err);
        for (uint32_t a = 0; !rc && a < ms->n; a++)
            modal_range(opt, ms, out->bounding_radius, a, &lo[a], &hi[a]);
        if (!rc)
            rc = ldem_lset_family_build(&out->lset, ms, lo, hi, (uint32_t)opt->samples,
                                        out->family, err);
        if (!rc)
            ldem_info("shape %s: precomputed level sets, %u modes x %u amplitudes, %.1f MB",
                          sh->name, ms->n, (unsigned)opt->samples,
                          (double)ldem_lset_family_bytes(out->family) / 1e6);
        free(lo);
        free(hi);
    }
    if (!rc) {
        out->modes = ms;
    } else if (ms) {
        ldem_modeset_free(ms);
        free(ms);
    }
    ldem_modes_free(&m);
    ldem_matrix_free(&K);
    ldem_matrix_free(&M);
    ldem_etab_free(&E);
    ldem_damping_free(&D);
    return rc;
}

static int load_bundle(const ldem_scene *s, const ldem_scene_shape *sh, int modes_wanted,
                       ldem_shape *out, ldem_err *err)
{
    FILE *fp = ldem_fopen_input(sh->bundle);
    if (!fp)
        return bundle_error(s, sh, err, "cannot open '%.200s': %s", sh->bundle, strerror(errno));
    ldem_bundle_reader *r = NULL;
    ldem_bundle b;
    ldem_bundle_init(&b);
    int have = 0;
    int rc = ldem_bundle_reader_open(&r, fp, sh->bundle, err);
    if (!rc)
        rc = ldem_bundle_read(r, &b, &have, err);
    if (!rc && !have)
        rc = bundle_error(s, sh, err, "'%.200s' holds no bundle", sh->bundle);
    if (!rc)
        rc = decode_grain(s, sh, &b, out, err);
    if (!rc && modes_wanted)
        rc = decode_modes(s, sh, &b, out, err);
    /* a modes: block on a bundle without modes is a mistake even if every grain is rigid */
    if (!rc && sh->modes.given && !ldem_bundle_find(&b, LDEM_TAG_MODE))
        rc = ldem_err_set(err, LDEM_ERR_INPUT, where(s, sh->modes.line), sh->modes.line,
                          "shapes.%.100s.modes: the bundle '%.200s' has no deformation modes "
                          "(MODE, KMAT and MMAT, as modefit writes them)", sh->name, sh->bundle);
    ldem_bundle_free(&b);
    ldem_bundle_reader_close(r);
    fclose(fp);
    return rc;
}

int ldem__scene_shape_geometry(const ldem_scene *s, size_t k, ldem_shape *out, ldem_err *err)
{
    return load_bundle(s, &s->shapes[k], 0, out, err);
}

/* Scene shapes naming the same bundle share one world shape unless one of them has its own
 * modes: block (damping, level sets). */
static int same_world_shape(const ldem_scene_shape *a, const ldem_scene_shape *b)
{
    return a->kind == LDEM_SHAPE_LSET && b->kind == LDEM_SHAPE_LSET && !a->modes.given &&
           !b->modes.given && strcmp(a->bundle, b->bundle) == 0;
}

/* Whether some grain of scene shape k, or of a shape sharing its world shape, may deform. */
static int modes_wanted(const ldem_scene *s, size_t k)
{
    for (size_t j = 0; j < s->nshapes; j++)
        if ((j == k || same_world_shape(&s->shapes[j], &s->shapes[k])) && shape_may_deform(s, j))
            return 1;
    return 0;
}

/* World shapes for the scene's bundle shapes (see same_world_shape). map[k] is scene shape
 * k's world shape (bundles only). */
static int build_shapes(const ldem_scene *s, ldem_world *w, uint32_t *map, ldem_err *err)
{
    w->shapes = calloc(s->nshapes ? s->nshapes : 1, sizeof *w->shapes);
    if (!w->shapes)
        return nomem(err);
    for (size_t k = 0; k < s->nshapes; k++) {
        const ldem_scene_shape *sh = &s->shapes[k];
        if (sh->kind != LDEM_SHAPE_LSET)
            continue;
        size_t found = w->nshapes;
        for (size_t j = 0; j < k && found == w->nshapes; j++)
            if (same_world_shape(&s->shapes[j], sh))
                found = map[j];
        map[k] = (uint32_t)found;
        if (found < w->nshapes)
            continue;
        ldem_shape *out = &w->shapes[w->nshapes++];
        out->name = strdup(sh->name);
        out->source = strdup(sh->bundle);
        if (!out->name || !out->source)
            return nomem(err);
        int rc = load_bundle(s, sh, modes_wanted(s, k), out, err);
        if (rc)
            return rc;
    }
    return LDEM_OK;
}

/* ---- bodies ---- */

/* L_b = I (Rᵀ ω): the principal-frame angular momentum of a body spinning at ω (world). */
static ldem_vec3 body_momentum(ldem_quat q, ldem_vec3 omega, ldem_vec3 inertia)
{
    ldem_vec3 wb = ldem_quat_rotate_inv(q, omega);
    return ldem_vec3_make(inertia.x * wb.x, inertia.y * wb.y, inertia.z * wb.z);
}

static void place_body(const ldem_scene *s, ldem_world *w, const uint32_t *map,
                       const ldem_scene_grain *g, size_t i)
{
    ldem_bodies *b = &w->bodies;
    const ldem_scene_shape *sh = &s->shapes[g->shape];
    double density = w->materials[g->material].density;
    b->kind[i] = (uint8_t)sh->kind;
    b->material[i] = g->material;
    b->flags[i] = g->fixed ? LDEM_BODY_FIXED : 0u;
    if (sh->kind == LDEM_SHAPE_SPHERE) {
        double r = g->radius > 0.0 ? g->radius : sh->radius;
        double m = density * 4.0 / 3.0 * PI * r * r * r;
        double I = 0.4 * m * r * r;
        b->radius[i] = r;
        b->mass[i] = m;
        b->inertia[i] = ldem_vec3_make(I, I, I);
    } else {
        const ldem_shape *shape = &w->shapes[map[g->shape]];
        b->shape[i] = map[g->shape];
        b->radius[i] = shape->bounding_radius;
        b->mass[i] = density * shape->volume;
        b->inertia[i] = ldem_vec3_scale(shape->inertia_per_density, density);
    }
    b->inv_mass[i] = 1.0 / b->mass[i];
    b->x[i] = b->x_prev[i] = g->x;
    b->v[i] = g->v;
    b->q[i] = b->q_prev[i] = ldem_quat_make(g->q[0], g->q[1], g->q[2], g->q[3]);
    b->L[i] = body_momentum(b->q[i], g->omega, b->inertia[i]);
}

/* A grain deforms when its shape has modes and it did not ask to stay rigid; asking to
 * deform (or giving modes:) without modes in the bundle is an error. */
static int grain_deforms(const ldem_scene *s, const ldem_world *w, const uint32_t *map,
                         const ldem_scene_grain *g, int *deforms, ldem_err *err)
{
    const ldem_scene_shape *sh = &s->shapes[g->shape];
    const ldem_modeset *ms = sh->kind == LDEM_SHAPE_LSET ? w->shapes[map[g->shape]].modes : NULL;
    *deforms = ms && g->deformable != 0;
    if ((g->deformable == 1 || g->modal_init >= 0) && !ms && g->deformable != 0) {
        const char *key = g->deformable == 1 ? "deformable" : "modes";
        if (sh->kind != LDEM_SHAPE_LSET)
            return ldem_err_set(err, LDEM_ERR_INPUT, grain_file(s, g), g->line,
                                "grains.%u.%s: shape '%.100s' is an analytic sphere, which is "
                                "rigid; deformable grains need a bundle with modes", g->entry,
                                key, sh->name);
        return ldem_err_set(err, LDEM_ERR_INPUT, grain_file(s, g), g->line,
                            "grains.%u.%s: shape '%.100s' cannot deform: its bundle '%.200s' "
                            "has no deformation modes (MODE, KMAT and MMAT, as modefit writes "
                            "them)", g->entry, key, sh->name, sh->bundle);
    }
    const ldem_scene_modal_init *init = g->modal_init >= 0 ? &s->modal_inits[g->modal_init] : NULL;
    if (*deforms && init && init->n != ms->n)
        return ldem_err_set(err, LDEM_ERR_INPUT, where(s, init->line), init->line,
                            "grains.%u.modes.%s: the shape '%.100s' has %u mode%s, got %zu "
                            "value%s", g->entry, init->key, sh->name, ms->n, ms->n == 1 ? "" : "s",
                            init->n, init->n == 1 ? "" : "s");
    return LDEM_OK;
}

/* The deformable grains whose modal state the probes report (output.probes.modes), in
 * input order whatever the bodies' order: the user names grains by their input index. */
static int choose_probe_modal(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    size_t deformable = 0;
    for (size_t i = 0; i < b->count; i++)
        deformable += b->modal[i] != LDEM_RIGID;
    int mode = s->probe_modes;
    if (mode < 0)
        mode = deformable <= 32;
    uint32_t *body_of = malloc((b->count ? b->count : 1) * sizeof *body_of);
    if (!body_of ||
        !(w->probe_modal = calloc(deformable + s->nprobe_grains + 1, sizeof *w->probe_modal))) {
        free(body_of);
        return nomem(err);
    }
    for (size_t i = 0; i < b->count; i++)
        body_of[b->id[i]] = (uint32_t)i;
    int rc = LDEM_OK;
    if (mode == 1)
        for (size_t g = 0; g < b->count; g++)
            if (b->modal[body_of[g]] != LDEM_RIGID)
                w->probe_modal[w->nprobe_modal++] = body_of[g];
    for (size_t k = 0; mode == 2 && k < s->nprobe_grains; k++) {
        uint32_t g = s->probe_grains[k];
        if (g >= b->count || b->modal[body_of[g]] == LDEM_RIGID) {
            rc = ldem_err_set(err, LDEM_ERR_INPUT, where(s, s->probe_modes_line),
                              s->probe_modes_line, "output.probes.modes.%zu: grain %u %s", k, g,
                              g >= b->count ? "does not exist (the scene has fewer grains)"
                                            : "is rigid; expected the index of a deformable "
                                              "grain");
            break;
        }
        w->probe_modal[w->nprobe_modal++] = body_of[g];
    }
    free(body_of);
    return rc;
}

/* Under `order: spatial`, which grain each body is (b->id, left as the identity otherwise). */
static int order_bodies(const ldem_scene *s, ldem_bodies *b, ldem_err *err)
{
    if (!s->order_spatial)
        return LDEM_OK;
    ldem_vec3 *x = malloc((s->ngrains ? s->ngrains : 1) * sizeof *x);
    if (!x)
        return nomem(err);
    for (size_t i = 0; i < s->ngrains; i++)
        x[i] = s->grains[i].x;
    int rc = ldem__spatial_order(x, s->ngrains, b->id);
    free(x);
    return rc ? nomem(err) : LDEM_OK;
}

static int build_bodies(const ldem_scene *s, ldem_world *w, const uint32_t *map, ldem_err *err)
{
    ldem_bodies *b = &w->bodies;
    int rc = ldem_bodies_resize(b, s->ngrains, err);
    if (!rc)
        rc = order_bodies(s, b, err);
    for (size_t i = 0; !rc && i < s->ngrains; i++) {
        const ldem_scene_grain *g = &s->grains[b->id[i]];
        place_body(s, w, map, g, i);
        int deforms = 0;
        rc = grain_deforms(s, w, map, g, &deforms, err);
        if (deforms)
            b->flags[i] |= LDEM_BODY_DEFORMABLE;
    }
    if (!rc)
        rc = ldem_world_modal_init(w, err);
    if (!rc)
        rc = choose_probe_modal(s, w, err);
    for (size_t i = 0; !rc && i < s->ngrains; i++) {
        const ldem_scene_grain *g = &s->grains[b->id[i]];
        if (b->modal[i] == LDEM_RIGID || g->modal_init < 0)
            continue;
        const ldem_scene_modal_init *init = &s->modal_inits[g->modal_init];
        memcpy(w->modal.eps + b->modal[i], init->amplitude, init->n * sizeof(double));
        memcpy(w->modal.rate + b->modal[i], init->rate, init->n * sizeof(double));
    }
    return rc;
}

/* ---- walls ---- */

static int build_walls(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    w->walls = calloc(s->nwalls ? s->nwalls : 1, sizeof *w->walls);
    if (!w->walls)
        return nomem(err);
    for (size_t k = 0; k < s->nwalls; k++) {
        const ldem_scene_wall *sw = &s->walls[k];
        ldem_wall *wall = &w->walls[w->nwalls++];
        wall->name = strdup(sw->name);
        wall->kind = sw->kind;
        wall->material = sw->material;
        wall->origin = sw->point;
        wall->normal = ldem_vec3_normalize(sw->normal);
        wall->radius = sw->radius;
        wall->inside = sw->inside;
        wall->drive = sw->drive;
        wall->velocity = sw->velocity;
        wall->vel = sw->drive == LDEM_DRIVE_VELOCITY ? sw->velocity : ldem_vec3_zero();
        wall->servo_force = sw->servo_force;
        wall->servo_gain = sw->servo_gain;
        wall->servo_integral = sw->servo_integral;
        wall->servo_vmax = sw->servo_vmax;
        if (!wall->name)
            return nomem(err);
        if (sw->nramp) {
            wall->ramp_t = malloc(sw->nramp * sizeof *wall->ramp_t);
            wall->ramp_d = malloc(sw->nramp * sizeof *wall->ramp_d);
            if (!wall->ramp_t || !wall->ramp_d)
                return nomem(err);
            memcpy(wall->ramp_t, sw->ramp_t, sw->nramp * sizeof *wall->ramp_t);
            memcpy(wall->ramp_d, sw->ramp_d, sw->nramp * sizeof *wall->ramp_d);
            wall->nramp = sw->nramp;
        }
    }
    return LDEM_OK;
}

/* Distance between two lines (point p, unit direction a). */
static double line_distance(ldem_vec3 p1, ldem_vec3 a1, ldem_vec3 p2, ldem_vec3 a2)
{
    ldem_vec3 d = ldem_vec3_sub(p2, p1), n = ldem_vec3_cross(a1, a2);
    double len = ldem_vec3_norm(n);
    if (len > 1e-12)
        return fabs(ldem_vec3_dot(d, n)) / len;
    return ldem_vec3_norm(ldem_vec3_reject(d, a1));
}

/* How far the allowed regions of two walls are from intersecting: > 0 when there is room
 * between them, ≤ 0 when no point lies on the grains' side of both. Only the pairs that can
 * be disjoint are measured (half-spaces with antiparallel normals, a plane parallel to a
 * drum's axis, two parallel-or-skew drums); every other pair always intersects (+∞). */
static double wall_room(const ldem_wall *a, const ldem_wall *b)
{
    if (a->kind == LDEM_WALL_CYLINDER && b->kind == LDEM_WALL_PLANE)
        return wall_room(b, a);
    if (a->kind == LDEM_WALL_PLANE && b->kind == LDEM_WALL_PLANE) {
        if (ldem_vec3_dot(a->normal, b->normal) > -1.0 + 1e-12)
            return INFINITY;
        return ldem_vec3_dot(ldem_vec3_sub(b->origin, a->origin), a->normal);
    }
    if (a->kind == LDEM_WALL_PLANE) {   /* b is a cylinder */
        if (!b->inside || fabs(ldem_vec3_dot(a->normal, b->normal)) > 1e-12)
            return INFINITY;
        return ldem_vec3_dot(ldem_vec3_sub(b->origin, a->origin), a->normal) + b->radius;
    }
    if (!a->inside || !b->inside)
        return INFINITY;
    return a->radius + b->radius - line_distance(a->origin, a->normal, b->origin, b->normal);
}

static int check_walls(const ldem_scene *s, const ldem_world *w, ldem_err *err)
{
    for (size_t j = 0; j < w->nwalls; j++)
        for (size_t i = 0; i < j; i++) {
            const ldem_wall *a = &w->walls[i], *b = &w->walls[j];
            long line = s->walls[j].line;
            if (strcmp(a->name, b->name) == 0)
                return ldem_err_set(err, LDEM_ERR_INPUT, where(s, line), line,
                                    "walls.%zu: a second wall named '%.100s'; names must be "
                                    "unique", j, b->name);
            double room = wall_room(a, b);
            if (room <= 0.0)
                return ldem_err_set(err, LDEM_ERR_INPUT, where(s, line), line,
                                    "walls '%.100s' and '%.100s' overlap: no point is on the "
                                    "grains' side of both (they are %g apart the wrong way); "
                                    "expected room between them for the grains",
                                    b->name, a->name, -room);
        }
    return LDEM_OK;
}

/* Signed distance of x from a wall's surface into the grains' side. */
static double wall_clearance(const ldem_wall *wall, ldem_vec3 x)
{
    ldem_vec3 d = ldem_vec3_sub(x, wall->origin);
    if (wall->kind == LDEM_WALL_PLANE)
        return ldem_vec3_dot(d, wall->normal);
    double r = ldem_vec3_norm(ldem_vec3_reject(d, wall->normal));
    return wall->inside ? wall->radius - r : r - wall->radius;
}

/* A grain whose centre is behind a wall overlaps it by more than its radius: the first
 * contact force would be absurd (or point the wrong way). */
static int check_grains_vs_walls(const ldem_scene *s, const ldem_world *w, ldem_err *err)
{
    for (size_t i = 0; i < w->bodies.count; i++)
        for (size_t k = 0; k < w->nwalls; k++) {
            double gap = wall_clearance(&w->walls[k], w->bodies.x[i]);
            if (gap >= 0.0)
                continue;
            const ldem_scene_grain *g = &s->grains[w->bodies.id[i]];
            ldem_vec3 x = w->bodies.x[i];
            return ldem_err_set(err, LDEM_ERR_INPUT, grain_file(s, g), g->line,
                                "grains.%u: %s at (%g, %g, %g) is behind wall '%.100s' (its "
                                "centre is %g on the wrong side); expected every grain on the "
                                "grains' side of each wall", g->entry,
                                w->bodies.kind[i] == LDEM_SHAPE_SPHERE ? "sphere" : "grain",
                                x.x, x.y, x.z, w->walls[k].name, -gap);
        }
    return LDEM_OK;
}

/* ---- time step and skin ---- */

static double smallest_radius(const ldem_world *w)
{
    double r = INFINITY;
    for (size_t i = 0; i < w->bodies.count; i++)
        r = w->bodies.radius[i] < r ? w->bodies.radius[i] : r;
    return isfinite(r) ? r : 0.0;
}

/* The periodic cell: geometry, drive, and what a cell cannot hold. */
static int build_cell(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    if (!s->cell.given)
        return LDEM_OK;
    long line = s->cell.line;
    if (w->nwalls)
        return ldem_err_set(err, LDEM_ERR_INPUT, where(s, line), line,
                            "cell: walls in a periodic cell are not supported (the cell is "
                            "periodic in all three directions); remove walls or cell");
    ldem_err e;
    ldem_err_clear(&e);
    if (ldem_cell_init(&w->cell, s->cell.h, s->cell.centre, &e))
        return ldem_err_set(err, LDEM_ERR_INPUT, where(s, line), line, "%s", e.msg);
    w->cell_control = s->cell.control;
    w->h_list = w->cell.h;
    return LDEM_OK;
}

/* A cyclic drive whose quarter period is not a whole number of steps still meets its
 * triangle at every step, but its turns fall between steps: the peaks are not reached. */
static void warn_cyclic_period(const ldem_world *w)
{
    for (int k = 0; w->cell.periodic && k < 3; k++) {
        const ldem_cell_cyclic *cy = &w->cell_control.cyclic[k];
        for (uint32_t i = 0; w->cell_control.drive[k] == LDEM_CELL_CYCLIC && i < cy->levels;
             i++) {
            double quarter = cy->period[i] / (4.0 * w->dt), whole = nearbyint(quarter);
            if (!(whole >= 1.0 && fabs(quarter - whole) <= 1e-9 * whole)) {
                ldem_warn("cell.%c.cyclic.period: %g is %.6g steps of dt %g, not a multiple of "
                          "4: the strain follows the triangle at every step but misses its "
                          "peaks", "xyz"[k], cy->period[i], cy->period[i] / w->dt, w->dt);
                break;
            }
        }
    }
}

int ldem_scene_build(const ldem_scene *s, ldem_world *w, ldem_err *err)
{
    ldem_world_init(w);
    uint32_t *map = calloc(s->nshapes ? s->nshapes : 1, sizeof *map);
    int rc = map ? LDEM_OK : nomem(err);
    if (!rc)
        rc = build_materials(s, w, err);
    if (!rc)
        rc = build_laws(s, w, err);
    if (!rc)
        rc = build_shapes(s, w, map, err);
    if (!rc)
        rc = build_bodies(s, w, map, err);
    if (!rc)
        rc = build_walls(s, w, err);
    if (!rc)
        rc = check_walls(s, w, err);
    if (!rc)
        rc = check_grains_vs_walls(s, w, err);
    if (!rc)
        rc = build_cell(s, w, err);
    free(map);
    if (!rc) {
        w->gravity = s->gravity;
        w->damping_viscous = s->damping_viscous;
        w->damping_local = s->damping_local;
        w->track_energy = s->track_dissipation;
        w->probe_measure = s->probe_measure;
        w->threads = s->threads;
        w->skin = s->skin >= 0.0 ? s->skin : 0.1 * smallest_radius(w);
        rc = scene_choose_dt(s, w, err);
    }
    if (!rc)
        warn_cyclic_period(w);
    if (!rc)
        rc = ldem_world_init_pools(w, err);
    if (rc)
        ldem_world_free(w);
    return rc;
}
