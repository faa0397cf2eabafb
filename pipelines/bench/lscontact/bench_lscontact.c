/* bench_lscontact — the cost of one grain-grain level-set contact query,
 * ldem_ls_pair_hits(a, b) (both directions: a's nodes in b, b's nodes in a), as the surface
 * node count grows at a fixed level-set grid.
 *
 *   bench_lscontact --grain LABEL A.ldg,B.ldg,... [--grain LABEL ...] [--poses N]
 *                   [--overlap F] [--strain E] [--seconds S] [--build-info TEXT] [-o OUT.tsv]
 *
 * Each --grain gives one shape at several node counts (lsgen bundles with the same --h and
 * --node-spacing only differing; the first and the last make the growth figure). A pair is
 * two copies of the same bundle, rigid, then deformable, at N seeded random poses: both
 * grains get random orientations and b sits along a random direction from a, at the centre
 * distance (found by bisection on ldem_ls_pair_hits itself) where the deepest node's
 * penetration depth −φ is F × the bounding radius (default 0.1 %). The same poses, by
 * seed, for every node count.
 *
 * Three ways of asking the same question, each timed as ns per call:
 *   tree   the clusters of ldem_node_clusters_build with their tree of bounding spheres,
 *          band slopes (ldem_lset_band_slopes_build) on both grains: what demrun uses now
 *   flat   the same clusters with tree = NULL, tree_count = 0 and no band slopes: every
 *          cluster tested against the other grain's reach in turn: the method before the
 *          tree and the band slopes (commit 13fe7ce added both)
 *   brute  clusters = NULL: every node tested
 * The hits (count and every ldem_node_hit, bitwise) must be the same for all three at every
 * pose; exit 1 otherwise, 2 on bad input.
 *
 * Deformable: both grains carry two modes sampled as a MODE grid field on the level set's
 * own grid (LDEM_MODE_FIELD_GRID, as modefit writes them), with node values: a uniaxial
 * compaction along body z with a Poisson bulge, Φ1(x) = diag(ν, ν, −1) x (ν = 0.3), and a
 * shear in the body xy plane, Φ2(x) = (y, x, 0)/2. Both are affine, so the trilinear field
 * holds them exactly and the deformed nodes lie on the remapped zero set; ε is then a
 * strain: per pose and grain ε1 uniform in [E/3, E] (compressed along z) and ε2 in
 * [−2E/3, 2E/3], E = --strain (default 0.03). The grains are posed as demrun's contact
 * geometry poses them (runtime/sim/contact_geometry.c ls_grain, modal.c): bounding radius
 * grown by the clusters' radial bound, slack Σ|εα| max|Φα|, each cluster's own slack, and
 * the level set's slope ranges for the remap filter.
 *
 * Times are the fastest of repeated passes over every pose (the machine is shared): each
 * pass times each pose and method as a batch of calls long enough for the clock; the
 * figure is the mean over the poses of each pose's fastest batch. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ldem/bundle.h"
#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/modes.h"
#include "ldem/sections.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/node_clusters.h"

#define MAX_SHAPES 4
#define MAX_SIZES 6
#define MAX_POSES 64
#define NMODES 2
#define POISSON 0.3

enum { TREE, FLAT, BRUTE, NMETHODS };
static const char *const METHOD[NMETHODS] = {"tree", "flat", "brute"};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_lscontact: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the same poses on every run and for every node count */
static uint64_t rng;
static double uniform01(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static const double PI = 3.14159265358979323846;

/* A uniformly random rotation (Shoemake). */
static ldem_quat random_rotation(void)
{
    double u1 = uniform01(), u2 = 2.0 * PI * uniform01(), u3 = 2.0 * PI * uniform01();
    double s = sqrt(1.0 - u1), t = sqrt(u1);
    return ldem_quat_normalize(ldem_quat_make(t * cos(u3), s * sin(u2), s * cos(u2), t * sin(u3)));
}

static ldem_vec3 random_direction(void)
{
    double z = 2.0 * uniform01() - 1.0, a = 2.0 * PI * uniform01(), r = sqrt(1.0 - z * z);
    return ldem_vec3_make(r * cos(a), r * sin(a), z);
}

/* ---- the shapes ---- */

typedef struct shape {
    const char *label, *path;
    ldem_lset ls;
    ldem_nodes nodes;
    double h, radius; /* the bounding radius as demrun's scene gives it: max|node| + h/2 */
    ldem_node_clusters clusters; /* with the tree and the modes attached */
    ldem_node_clusters flat;     /* the same arrays, tree = NULL */
    ldem_lset_band_slopes bands;
    ldem_lset_slopes slopes;
    ldem_modeset modes;
} shape;

/* The modes' matrices A (Φα(x) = Aα x). */
static const double MODE_A[NMODES][3][3] = {
    {{POISSON, 0, 0}, {0, POISSON, 0}, {0, 0, -1}}, /* compaction along z */
    {{0, 0.5, 0}, {0.5, 0, 0}, {0, 0, 0}},          /* shear in xy */
};

static void affine(const double A[3][3], const double x[3], double *u)
{
    for (int r = 0; r < 3; r++)
        u[r] = A[r][0] * x[0] + A[r][1] * x[1] + A[r][2] * x[2];
}

/* The modes as modefit would store them: node values and a grid field on LSET's grid. */
static void build_modes(shape *s)
{
    uint64_t nn = s->nodes.count;
    size_t npts = (size_t)ldem_lset_count(&s->ls);
    ldem_modes md = {.count = NMODES, .kind = LDEM_MODE_SAMPLED, .nnodes = nn};
    md.node_values = malloc((size_t)NMODES * 3 * nn * sizeof *md.node_values);
    md.grid_values = malloc((size_t)NMODES * 3 * npts * sizeof *md.grid_values);
    if (!md.node_values || !md.grid_values)
        die("%s", "out of memory for the modes");
    memcpy(md.grid_dims, s->ls.dims, sizeof md.grid_dims);
    memcpy(md.grid_origin, s->ls.origin, sizeof md.grid_origin);
    memcpy(md.grid_spacing, s->ls.spacing, sizeof md.grid_spacing);
    for (int a = 0; a < NMODES; a++) {
        for (uint64_t k = 0; k < nn; k++)
            affine(MODE_A[a], &s->nodes.position[3 * k], &md.node_values[3 * (a * nn + k)]);
        size_t idx = (size_t)a * npts;
        for (uint32_t k = 0; k < s->ls.dims[2]; k++)
            for (uint32_t j = 0; j < s->ls.dims[1]; j++)
                for (uint32_t i = 0; i < s->ls.dims[0]; i++, idx++) {
                    ldem_vec3 p = ldem_lset_node(&s->ls, i, j, k);
                    double x[3] = {p.x, p.y, p.z}, u[3];
                    affine(MODE_A[a], x, u);
                    for (int c = 0; c < 3; c++)
                        md.grid_values[3 * idx + c] = (float)u[c];
                }
    }
    double k[NMODES * NMODES] = {0}, m[NMODES * NMODES] = {0};
    for (int a = 0; a < NMODES; a++)
        k[a * (NMODES + 1)] = m[a * (NMODES + 1)] = 1.0;
    ldem_matrix K = {NMODES, k}, M = {NMODES, m};
    ldem_err err = {0};
    if (ldem_modeset_build(&md, &K, &M, NULL, NULL, nn, s->nodes.position, &s->modes, &err))
        die("%s: modes: %s", s->path, err.msg);
    if (s->modes.field != LDEM_MODE_FIELD_GRID)
        die("%s: the modes have no grid field", s->path);
    free(md.node_values);
    free(md.grid_values);
}

static void read_shape(const char *label, const char *path, shape *s)
{
    memset(s, 0, sizeof *s);
    s->label = label;
    s->path = path;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        die("%s: %s", path, strerror(errno));
    ldem_err err = {0};
    ldem_bundle_reader *r = NULL;
    ldem_bundle b;
    ldem_bundle_init(&b);
    int have = 0;
    if (ldem_bundle_reader_open(&r, fp, path, &err) || ldem_bundle_read(r, &b, &have, &err))
        die("%s", err.msg);
    if (!have || !ldem_bundle_find(&b, LDEM_TAG_LSET) || !ldem_bundle_find(&b, LDEM_TAG_NODE))
        die("%s: a grain needs LSET and NODE (lsgen writes them)", path);
    if (ldem_lset_decode(ldem_bundle_find(&b, LDEM_TAG_LSET), path, &s->ls, &err) ||
        ldem_nodes_decode(ldem_bundle_find(&b, LDEM_TAG_NODE), path, &s->nodes, &err))
        die("%s", err.msg);
    ldem_bundle_reader_close(r);
    ldem_bundle_free(&b);
    fclose(fp);
    if (!s->nodes.count)
        die("%s: no surface nodes", path);
    /* scene_build.c's bounding radius (not public): the farthest node, half a cell more */
    double r2 = 0.0;
    for (uint64_t k = 0; k < s->nodes.count; k++) {
        const double *p = &s->nodes.position[3 * k];
        r2 = fmax(r2, p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    }
    s->h = fmax(s->ls.spacing[0], fmax(s->ls.spacing[1], s->ls.spacing[2]));
    s->radius = sqrt(r2) + 0.5 * s->h;
    /* as runtime/sim/step.c prepares a shape */
    build_modes(s);
    if (ldem_node_clusters_build(&s->nodes, &s->clusters, &err) ||
        ldem_node_clusters_attach_modes(&s->clusters, &s->modes, &err) ||
        ldem_lset_slopes_build(&s->ls, &s->slopes, &err))
        die("%s: %s", path, err.msg);
    ldem_lset_band_slopes_build(&s->ls, &s->bands);
    if (!s->clusters.tree || !s->clusters.tree_count)
        die("%s: ldem_node_clusters_build made no tree", path);
    s->flat = s->clusters;
    s->flat.tree = NULL;
    s->flat.tree_count = 0;
}

static void free_shape(shape *s)
{
    ldem_node_clusters_free(&s->clusters); /* s->flat shares its arrays */
    ldem_lset_slopes_free(&s->slopes);
    ldem_modeset_free(&s->modes);
    ldem_lset_free(&s->ls);
    ldem_nodes_free(&s->nodes);
}

/* ---- posed grains ---- */

typedef struct pose {
    ldem_quat qa, qb;
    ldem_vec3 dir;
    double eps_a[NMODES], eps_b[NMODES];
    double distance, deepest; /* centre distance found, deepest node's depth there */
} pose;

typedef struct side {
    double eps[NMODES];
    double *group_slack; /* clusters.count */
    double radius, size, slack;
} side;

/* What demrun's step computes for a deformed grain (modal.c ldem_modal_deform and
 * ldem_modal_node_slack): the grown bounding radius, tightened by the clusters' radial
 * bound, the grain's slack and each cluster's, capped by it. */
static void deform_side(const shape *s, side *d)
{
    double grown = s->radius;
    for (int a = 0; a < NMODES; a++)
        grown += fabs(d->eps[a]) * s->modes.node_max[a];
    d->size = grown;
    d->slack = fmax(0.0, grown - s->radius) * (1.0 + 1e-12);
    double reach = ldem_node_clusters_deformed_reach(&s->clusters, d->eps, d->group_slack);
    d->radius = fmin(grown, s->radius + (reach - s->clusters.node_reach));
    for (size_t c = 0; c < s->clusters.count; c++)
        d->group_slack[c] = fmin(d->group_slack[c], d->slack);
}

/* contact_geometry.c's ls_grain for one method: rigid when d is NULL. */
static ldem_ls_grain make_grain(const shape *s, int method, const side *d, ldem_vec3 x, ldem_quat q)
{
    ldem_ls_grain g = {
        .lset = &s->ls, .nodes = &s->nodes, .x = x, .q = q, .radius = s->radius, .size = s->radius};
    if (method == TREE) {
        g.clusters = &s->clusters;
        g.band_slopes = &s->bands;
    } else if (method == FLAT) {
        g.clusters = &s->flat;
    }
    if (d) {
        g.radius = d->radius;
        g.size = d->size;
        g.slack = d->slack;
        if (g.clusters)
            g.group_slack = d->group_slack; /* read as group_slack[0] without clusters */
        g.modes = &s->modes;
        g.eps = d->eps;
        g.slopes = &s->slopes;
    }
    return g;
}

static void query(const ldem_ls_grain *a, const ldem_ls_grain *b, ldem_hits *h)
{
    ldem_err err = {0};
    if (ldem_ls_pair_hits(a, b, h, &err))
        die("ldem_ls_pair_hits: %s", err.msg);
}

static double deepest_of(const ldem_hits *h)
{
    double d = 0.0;
    for (size_t k = 0; k < h->count; k++)
        d = fmax(d, h->hit[k].depth);
    return d;
}

/* The deepest node's depth with b at distance t from a along dir. */
static double deepest_at(const shape *s, const side *da, const side *db, const pose *p, double t,
                         ldem_hits *h)
{
    ldem_ls_grain a = make_grain(s, TREE, da, ldem_vec3_zero(), p->qa);
    ldem_ls_grain b = make_grain(s, TREE, db, ldem_vec3_scale(p->dir, t), p->qb);
    query(&a, &b, h);
    return deepest_of(h);
}

/* The centre distance at which the deepest node is `target` deep: bisection between a deep
 * overlap and a distance beyond both grains' reach; the deeper end is kept, so the pose has
 * hits. */
static void place(const shape *s, const side *da, const side *db, pose *p, double target,
                  ldem_hits *h)
{
    double ra = da ? da->radius : s->radius, rb = db ? db->radius : s->radius;
    double cell = sqrt(s->ls.spacing[0] * s->ls.spacing[0] + s->ls.spacing[1] * s->ls.spacing[1] +
                       s->ls.spacing[2] * s->ls.spacing[2]);
    double hi = ra + rb + 2.0 * cell, lo = 0.1 * (ra + rb);
    if (deepest_at(s, da, db, p, hi, h) > 0.0 || h->count)
        die("%s: hits with the grains %g apart (beyond their reach)", s->path, hi);
    if (!(deepest_at(s, da, db, p, lo, h) > target))
        die("%s: no node %g deep with the grains %g apart", s->path, target, lo);
    for (int it = 0; it < 100 && hi - lo > 1e-13 * (ra + rb); it++) {
        double mid = 0.5 * (lo + hi);
        if (deepest_at(s, da, db, p, mid, h) > target)
            lo = mid;
        else
            hi = mid;
    }
    p->distance = lo;
    p->deepest = deepest_at(s, da, db, p, lo, h);
}

/* ---- one configuration: a shape at one node count, rigid or deformable ---- */

/* ---- YADE's choice, for comparison (rigid only) ----
 * YADE's Ig2_LevelSet_LevelSet (pkg/levelSet, Duriez & Bonelli) is master-slave: only the
 * nodes of the smaller body (here a: the shapes are equal) are tested, against the larger
 * one's level set. Each node is mapped to the world, rejected when outside the overlap of
 * the two bodies' axis-aligned bounds (here the boxes of their rotated grid corners),
 * mapped into b's grid, rejected outside it, and sampled. Reimplemented here from that
 * description (no YADE code), with a rotation matrix per query rather than a quaternion
 * per node, so that the figure is YADE's algorithm at ldem's arithmetic: one side's
 * nodes, no hierarchy. Its hits are a's nodes inside b, so they must be the side-0 hits of
 * ldem_ls_pair_hits (checked). */
static void world_box(const ldem_ls_grain *g, ldem_vec3 *lo, ldem_vec3 *hi)
{
    *lo = ldem_vec3_make(INFINITY, INFINITY, INFINITY);
    *hi = ldem_vec3_neg(*lo);
    for (int c = 0; c < 8; c++) {
        ldem_vec3 corner;
        double *x = &corner.x;
        for (int a = 0; a < 3; a++)
            x[a] = g->lset->origin[a] + ((c >> a) & 1) * (g->lset->dims[a] - 1) * g->lset->spacing[a];
        ldem_vec3 w = ldem_vec3_add(g->x, ldem_quat_rotate(g->q, corner));
        *lo = ldem_vec3_make(fmin(lo->x, w.x), fmin(lo->y, w.y), fmin(lo->z, w.z));
        *hi = ldem_vec3_make(fmax(hi->x, w.x), fmax(hi->y, w.y), fmax(hi->z, w.z));
    }
}

static ldem_vec3 mat_apply(const ldem_mat3 *r, ldem_vec3 v)
{
    return ldem_vec3_make(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                          r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                          r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}

static size_t yade_query(const ldem_ls_grain *a, const ldem_ls_grain *b)
{
    ldem_vec3 alo, ahi, blo, bhi;
    world_box(a, &alo, &ahi);
    world_box(b, &blo, &bhi);
    ldem_vec3 lo = ldem_vec3_make(fmax(alo.x, blo.x), fmax(alo.y, blo.y), fmax(alo.z, blo.z));
    ldem_vec3 hi = ldem_vec3_make(fmin(ahi.x, bhi.x), fmin(ahi.y, bhi.y), fmin(ahi.z, bhi.z));
    if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z)
        return 0;
    ldem_mat3 to_world = ldem_quat_to_mat3(a->q), to_b = ldem_quat_to_mat3(ldem_quat_conj(b->q));
    size_t hits = 0;
    for (uint64_t k = 0; k < a->nodes->count; k++) {
        const double *x = a->nodes->position + 3 * k;
        ldem_vec3 w = ldem_vec3_add(a->x, mat_apply(&to_world, ldem_vec3_make(x[0], x[1], x[2])));
        if (w.x < lo.x || w.x > hi.x || w.y < lo.y || w.y > hi.y || w.z < lo.z || w.z > hi.z)
            continue;
        double phi;
        if (ldem_lset_sample(b->lset, mat_apply(&to_b, ldem_vec3_sub(w, b->x)), &phi, NULL) &&
            phi < 0.0)
            hits++;
    }
    return hits;
}

static size_t side0_hits(const ldem_hits *h)
{
    size_t n = 0;
    for (size_t k = 0; k < h->count; k++)
        n += !(h->hit[k].key >> 31);
    return n;
}

typedef struct result {
    double yade_ns;              /* rigid: YADE's master-slave loop (yade_query) */
    int yade_mismatch;
    double ns[NMETHODS];         /* mean over poses of each pose's fastest batch */
    double hits, deepest_over_r; /* means over poses */
    double pose_ns[MAX_POSES][NMETHODS];
    size_t pose_hits[MAX_POSES];
    double pose_deepest[MAX_POSES], pose_distance[MAX_POSES];
    int mismatch;
} result;

static int same_hits(const ldem_hits *x, const ldem_hits *y)
{
    return x->count == y->count &&
           (!x->count || !memcmp(x->hit, y->hit, x->count * sizeof *x->hit));
}

/* Where two hit lists first differ (for the report). */
static void report_mismatch(const shape *s, int deformable, int pose, int method,
                            const ldem_hits *x, const ldem_hits *ref)
{
    fprintf(stderr,
            "bench_lscontact: FAIL: %s (%llu nodes, %s), pose %d: %s gives %zu hits, brute "
            "force %zu",
            s->label, (unsigned long long)s->nodes.count, deformable ? "deformable" : "rigid", pose,
            METHOD[method], x->count, ref->count);
    size_t n = x->count < ref->count ? x->count : ref->count;
    for (size_t k = 0; k < n; k++)
        if (memcmp(&x->hit[k], &ref->hit[k], sizeof x->hit[k])) {
            fprintf(stderr, "; hit %zu differs (key %#x vs %#x, depth %.17g vs %.17g)", k,
                    x->hit[k].key, ref->hit[k].key, x->hit[k].depth, ref->hit[k].depth);
            break;
        }
    fputc('\n', stderr);
}

/* Zeroed storage, so that the comparison of whole structs sees the same padding. */
static void clear_hits(ldem_hits *h, size_t room)
{
    ldem_err err = {0};
    if (ldem_hits_reserve(h, room, &err))
        die("%s", err.msg);
    memset(h->hit, 0, h->capacity * sizeof *h->hit);
    h->count = 0;
}

static void copy_hits(ldem_hits *dst, const ldem_hits *src)
{
    clear_hits(dst, src->count + 1);
    memcpy(dst->hit, src->hit, src->count * sizeof *src->hit);
    dst->count = src->count;
}

static void run_config(const shape *s, int deformable, int nposes, double overlap, double strain,
                       double seconds, result *res)
{
    memset(res, 0, sizeof *res);
    pose poses[MAX_POSES];
    side da[MAX_POSES], db[MAX_POSES];
    ldem_ls_grain ga[MAX_POSES][NMETHODS], gb[MAX_POSES][NMETHODS];
    ldem_hits h[NMETHODS] = {{0}}, ref = {0};
    double target = overlap * s->radius;
    rng = 20260101; /* the same orientations, directions and amplitudes at every node count */
    for (int p = 0; p < nposes; p++) {
        pose *ps = &poses[p];
        ps->qa = random_rotation();
        ps->qb = random_rotation();
        ps->dir = random_direction();
        ps->eps_a[0] = strain * (1.0 + 2.0 * uniform01()) / 3.0;
        ps->eps_a[1] = strain * (4.0 * uniform01() - 2.0) / 3.0;
        ps->eps_b[0] = strain * (1.0 + 2.0 * uniform01()) / 3.0;
        ps->eps_b[1] = strain * (4.0 * uniform01() - 2.0) / 3.0;
        const side *pa = NULL, *pb = NULL;
        if (deformable) {
            memcpy(da[p].eps, ps->eps_a, sizeof da[p].eps);
            memcpy(db[p].eps, ps->eps_b, sizeof db[p].eps);
            da[p].group_slack = malloc(s->clusters.count * sizeof *da[p].group_slack);
            db[p].group_slack = malloc(s->clusters.count * sizeof *db[p].group_slack);
            if (!da[p].group_slack || !db[p].group_slack)
                die("%s", "out of memory for the slack");
            deform_side(s, &da[p]);
            deform_side(s, &db[p]);
            pa = &da[p];
            pb = &db[p];
        }
        place(s, pa, pb, ps, target, &h[TREE]);
        res->deepest_over_r += ps->deepest / s->radius / nposes;
        res->pose_deepest[p] = ps->deepest / s->radius;
        res->pose_distance[p] = ps->distance;
        for (int m = 0; m < NMETHODS; m++) {
            ga[p][m] = make_grain(s, m, pa, ldem_vec3_zero(), ps->qa);
            gb[p][m] = make_grain(s, m, pb, ldem_vec3_scale(ps->dir, ps->distance), ps->qb);
        }
    }

    /* The same hits, bit for bit, three ways; and a batch size per pose and method. */
    unsigned inner[MAX_POSES][NMETHODS];
    for (int p = 0; p < nposes; p++) {
        clear_hits(&h[BRUTE], 1);
        query(&ga[p][BRUTE], &gb[p][BRUTE], &h[BRUTE]);
        copy_hits(&ref, &h[BRUTE]); /* brute force is checked again below: repeatable */
        res->pose_hits[p] = ref.count;
        res->hits += (double)ref.count / nposes;
        if (!ref.count)
            die("%s: pose %d has no hits", s->path, p);
        for (int m = 0; m < NMETHODS; m++) {
            clear_hits(&h[m], ref.count + 1);
            query(&ga[p][m], &gb[p][m], &h[m]);
            if (!same_hits(&h[m], &ref)) {
                report_mismatch(s, deformable, p, m, &h[m], &ref);
                res->mismatch = 1;
            }
            double t0 = now();
            query(&ga[p][m], &gb[p][m], &h[m]);
            double t = now() - t0;
            double want = 20e-6 / fmax(t, 1e-9);
            inner[p][m] = want < 1.0 ? 1u : want > 20000.0 ? 20000u : (unsigned)want;
            res->pose_ns[p][m] = INFINITY;
        }
    }

    /* YADE's loop on the rigid poses: the same nodes of a inside b, timed alike. */
    double yade_ns[MAX_POSES];
    unsigned yade_inner[MAX_POSES];
    for (int p = 0; p < nposes && !deformable; p++) {
        clear_hits(&ref, 1);
        query(&ga[p][BRUTE], &gb[p][BRUTE], &ref);
        size_t want = side0_hits(&ref);
        if (yade_query(&ga[p][BRUTE], &gb[p][BRUTE]) != want) {
            fprintf(stderr, "bench_lscontact: %s: pose %d: YADE's loop finds %zu of a's nodes "
                            "in b, ldem_ls_pair_hits %zu\n",
                    s->path, p, yade_query(&ga[p][BRUTE], &gb[p][BRUTE]), want);
            res->yade_mismatch = 1;
        }
        double t0 = now();
        volatile size_t sink = yade_query(&ga[p][BRUTE], &gb[p][BRUTE]);
        (void)sink;
        double want_n = 20e-6 / fmax(now() - t0, 1e-9);
        yade_inner[p] = want_n < 1.0 ? 1u : want_n > 20000.0 ? 20000u : (unsigned)want_n;
        yade_ns[p] = INFINITY;
    }

    /* Passes over every pose, each method in turn, until `seconds` (at least 3). */
    double start = now();
    for (int pass = 0; pass < 3 || now() - start < seconds; pass++)
        for (int p = 0; p < nposes; p++)
            for (int m = 0; m < NMETHODS; m++) {
                double t0 = now();
                for (unsigned r = 0; r < inner[p][m]; r++)
                    query(&ga[p][m], &gb[p][m], &h[m]);
                double ns = 1e9 * (now() - t0) / inner[p][m];
                if (ns < res->pose_ns[p][m])
                    res->pose_ns[p][m] = ns;
                if (m == BRUTE && !deformable) {
                    volatile size_t sink = 0;
                    t0 = now();
                    for (unsigned r = 0; r < yade_inner[p]; r++)
                        sink += yade_query(&ga[p][BRUTE], &gb[p][BRUTE]);
                    ns = 1e9 * (now() - t0) / yade_inner[p];
                    if (ns < yade_ns[p])
                        yade_ns[p] = ns;
                }
            }
    for (int p = 0; p < nposes && !deformable; p++)
        res->yade_ns += yade_ns[p] / nposes;
    for (int p = 0; p < nposes; p++)
        for (int m = 0; m < NMETHODS; m++)
            res->ns[m] += res->pose_ns[p][m] / nposes;
    for (int m = 0; m < NMETHODS; m++)
        ldem_hits_free(&h[m]);
    ldem_hits_free(&ref);
    if (deformable)
        for (int p = 0; p < nposes; p++) {
            free(da[p].group_slack);
            free(db[p].group_slack);
        }
}

/* ---- command line ---- */

typedef struct grain_arg {
    const char *label;
    size_t nsizes;
    char *paths[MAX_SIZES];
} grain_arg;

static void split_paths(char *list, grain_arg *g)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (g->nsizes == MAX_SIZES)
            die("at most %d bundles per --grain", MAX_SIZES);
        g->paths[g->nsizes++] = tok;
    }
    if (g->nsizes < 2)
        die("--grain %s: give at least two bundles (the smallest and the largest node count)",
            g->label);
}

/* A node count to one significant figure, in thousands: 1946 -> 2k, 39368 -> 40k. */
static const char *kilo(uint64_t n, char *buf, size_t len)
{
    double e = pow(10.0, floor(log10((double)n)));
    snprintf(buf, len, "%gk", round((double)n / e) * e / 1000.0);
    return buf;
}

int main(int argc, char **argv)
{
    const char *out_path = NULL, *build_info = "unknown (pass --build-info)";
    grain_arg grains[MAX_SHAPES];
    size_t ngrains = 0;
    int nposes = 16;
    double overlap = 1e-3, strain = 0.03, seconds = 1.5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--grain") && i + 2 < argc) {
            if (ngrains == MAX_SHAPES)
                die("at most %d --grain", MAX_SHAPES);
            grains[ngrains] = (grain_arg){.label = argv[i + 1]};
            split_paths(argv[i + 2], &grains[ngrains]);
            ngrains++;
            i += 2;
        } else if (!strcmp(argv[i], "--poses") && i + 1 < argc)
            nposes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--overlap") && i + 1 < argc)
            overlap = atof(argv[++i]);
        else if (!strcmp(argv[i], "--strain") && i + 1 < argc)
            strain = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--build-info") && i + 1 < argc)
            build_info = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out_path = argv[++i];
        else
            die("%s", "usage: bench_lscontact --grain LABEL A.ldg,B.ldg,... [--grain ...] "
                      "[--poses N] [--overlap F] [--strain E] [--seconds S] "
                      "[--build-info TEXT] [-o OUT.tsv]");
    }
    if (!ngrains)
        die("%s", "no --grain given");
    if (nposes < 1 || nposes > MAX_POSES || !(overlap > 0.0 && overlap < 0.1) ||
        !(strain >= 0.0 && strain < 0.2) || !(seconds >= 0.0))
        die("--poses 1..%d, 0 < --overlap < 0.1, 0 <= --strain < 0.2, --seconds >= 0", MAX_POSES);

    FILE *tsv = NULL;
    if (out_path && !(tsv = fopen(out_path, "w")))
        die("cannot write %s: %s", out_path, strerror(errno));
    printf("bench_lscontact: one ldem_ls_pair_hits call (both directions) on two copies of a "
           "shape touching, deepest node %.3g %% of the bounding radius deep; mean over %d "
           "seeded poses of the fastest batch of each\nlibldem: %s\n",
           100.0 * overlap, nposes, build_info);
    printf("tree: node tree + band slopes; flat: the clusters of 32 in turn (the method before "
           "the tree); brute: every node\n");
    if (tsv) {
        fprintf(tsv, "# bench_lscontact: ns per ldem_ls_pair_hits call; libldem: %s\n", build_info);
        fprintf(tsv,
                "# deepest node %g of the bounding radius; %d poses; deformable: 2 affine "
                "modes on the LSET grid, strain up to %g; record: pose (per pose: fastest "
                "batch), mean (over the poses), growth (ns at the last node count / ns at "
                "the first, per method)\n",
                overlap, nposes, strain);
        fprintf(tsv, "record\tshape\tnodes\tgrain\tpose\ttree_ns\tflat_ns\tbrute_ns\thits\t"
                     "deepest_over_radius\tcentre_distance\tbrute_over_tree\n");
    }
    int failed = 0;
    char k0[16], k1[16];
    for (size_t g = 0; g < ngrains; g++) {
        shape *shapes = calloc(grains[g].nsizes, sizeof *shapes);
        if (!shapes)
            die("%s", "out of memory");
        for (size_t z = 0; z < grains[g].nsizes; z++) {
            read_shape(grains[g].label, grains[g].paths[z], &shapes[z]);
            const shape *s = &shapes[z];
            printf("%s: %s: %llu surface nodes, grid %ux%ux%u h = %g, bounding radius %.4g, "
                   "%zu clusters, %zu tree entries\n",
                   s->label, s->path, (unsigned long long)s->nodes.count, s->ls.dims[0],
                   s->ls.dims[1], s->ls.dims[2], s->h, s->radius, s->clusters.count,
                   s->clusters.tree_count);
            if (z && s->h != shapes[0].h)
                fprintf(stderr, "bench_lscontact: warning: %s: h = %g, not %g as %s\n", s->path,
                        s->h, shapes[0].h, shapes[0].path);
        }
        result *res = calloc(2 * grains[g].nsizes, sizeof *res);
        if (!res)
            die("%s", "out of memory");
        printf("\n%-8s %7s  %-10s %10s %10s %10s %7s %12s %10s %10s\n", "shape", "nodes",
               "grain", "tree ns", "flat ns", "brute ns", "hits", "brute/tree", "flat/tree",
               "YADE ns");
        for (int def = 0; def < 2; def++)
            for (size_t z = 0; z < grains[g].nsizes; z++) {
                const shape *s = &shapes[z];
                result *r = &res[def * grains[g].nsizes + z];
                run_config(s, def, nposes, overlap, strain, seconds, r);
                failed |= r->mismatch;
                failed |= r->yade_mismatch;
                char yade[16] = "-";
                if (!def)
                    snprintf(yade, sizeof yade, "%.0f", r->yade_ns);
                printf("%-8s %7llu  %-10s %10.0f %10.0f %10.0f %7.1f %11.1fx %9.1fx %10s%s\n",
                       s->label, (unsigned long long)s->nodes.count, def ? "deformable" : "rigid",
                       r->ns[TREE], r->ns[FLAT], r->ns[BRUTE], r->hits, r->ns[BRUTE] / r->ns[TREE],
                       r->ns[FLAT] / r->ns[TREE], yade,
                       r->mismatch || r->yade_mismatch ? "  HITS DIFFER" : "");
                fflush(stdout);
                if (tsv) {
                    for (int p = 0; p < nposes; p++)
                        fprintf(tsv,
                                "pose\t%s\t%llu\t%s\t%d\t%.1f\t%.1f\t%.1f\t%zu\t%.6g\t%.10g\t"
                                "%.3f\n",
                                s->label, (unsigned long long)s->nodes.count,
                                def ? "deformable" : "rigid", p, r->pose_ns[p][TREE],
                                r->pose_ns[p][FLAT], r->pose_ns[p][BRUTE], r->pose_hits[p],
                                r->pose_deepest[p], r->pose_distance[p],
                                r->pose_ns[p][BRUTE] / r->pose_ns[p][TREE]);
                    fprintf(tsv, "mean\t%s\t%llu\t%s\t-\t%.1f\t%.1f\t%.1f\t%.2f\t%.6g\t-\t%.3f\n",
                            s->label, (unsigned long long)s->nodes.count,
                            def ? "deformable" : "rigid", r->ns[TREE], r->ns[FLAT], r->ns[BRUTE],
                            r->hits, r->deepest_over_r, r->ns[BRUTE] / r->ns[TREE]);
                }
            }
        size_t last = grains[g].nsizes - 1;
        kilo(shapes[0].nodes.count, k0, sizeof k0);
        kilo(shapes[last].nodes.count, k1, sizeof k1);
        for (int def = 0; def < 2; def++) {
            const result *a = &res[def * grains[g].nsizes],
                         *b = &res[def * grains[g].nsizes + last];
            double gt = b->ns[TREE] / a->ns[TREE], gf = b->ns[FLAT] / a->ns[FLAT],
                   gb = b->ns[BRUTE] / a->ns[BRUTE];
            char yade[32] = "";
            if (!def)
                snprintf(yade, sizeof yade, "   YADE: %.2f", b->yade_ns / a->yade_ns);
            printf("%-8s %-10s growth %s->%s: %.2f (target <= 2.0: %s)   flat: %.2f   brute "
                   "force: %.2f%s\n",
                   grains[g].label, def ? "deformable" : "rigid", k0, k1, gt,
                   gt <= 2.0 ? "met" : "NOT met", gf, gb, yade);
            if (tsv)
                fprintf(tsv, "growth\t%s\t%llu->%llu\t%s\t-\t%.3f\t%.3f\t%.3f\t-\t-\t-\t-\n",
                        grains[g].label, (unsigned long long)shapes[0].nodes.count,
                        (unsigned long long)shapes[last].nodes.count, def ? "deformable" : "rigid",
                        gt, gf, gb);
        }
        printf("\n");
        for (size_t z = 0; z < grains[g].nsizes; z++)
            free_shape(&shapes[z]);
        free(shapes);
        free(res);
    }
    if (tsv && fclose(tsv))
        die("cannot write %s", out_path);
    if (failed)
        fprintf(stderr, "bench_lscontact: FAIL: tree, flat and brute force found different "
                        "hits (above)\n");
    return failed;
}
