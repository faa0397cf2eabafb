/* generate.c — random sequential placement of non-overlapping grains (ldem/sim/generate.h).
 *
 * Sizes and shapes are drawn first, then placed largest first (a small grain finds room
 * between large ones; the reverse order jams early), each at uniform random positions in the
 * region shrunk by its radius until one touches nothing. Candidates come from a spatial hash
 * of cells one largest diameter wide, so a placement costs the grains near it, not all.
 */
#include "ldem/sim/generate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/levelset.h"

static const double PI = 3.14159265358979323846;

uint64_t ldem_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *state)
{
    return (double)(ldem_splitmix64(state) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box–Muller; the second value is dropped, so draws stay one per call). */
static double normal(uint64_t *state)
{
    double u1 = 1.0 - uniform(state), u2 = uniform(state);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

ldem_quat ldem_gen_random_rotation(uint64_t *state)
{
    double u1 = uniform(state), u2 = uniform(state), u3 = uniform(state);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    return ldem_quat_normalize(ldem_quat_make(b * cos(2.0 * PI * u3), a * sin(2.0 * PI * u2),
                                              a * cos(2.0 * PI * u2), b * sin(2.0 * PI * u3)));
}

/* The diameter at cumulative fraction u of a sieve table, linear in log d between points. */
static double sieve_at(const ldem_gen_sizes *s, double u)
{
    size_t k = 1;
    while (k + 1 < s->ntable && s->table_p[k] < u)
        k++;
    double p0 = s->table_p[k - 1], p1 = s->table_p[k];
    double t = p1 > p0 ? (u - p0) / (p1 - p0) : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return exp((1.0 - t) * log(s->table_d[k - 1]) + t * log(s->table_d[k]));
}

/* One diameter of the distribution as written (by number, or by mass before the change to
 * numbers below). */
static double draw_as_written(const ldem_gen_sizes *s, uint64_t *state)
{
    switch (s->kind) {
    case LDEM_GEN_SIZE_UNIFORM:
        return s->lo + (s->hi - s->lo) * uniform(state);
    case LDEM_GEN_SIZE_SIEVE:
        return sieve_at(s, uniform(state));
    default:
        return NAN;
    }
}

double ldem_gen_draw_diameter(const ldem_gen_sizes *s, uint64_t *state)
{
    if (s->kind == LDEM_GEN_SIZE_LOGNORMAL) {
        /* A lognormal mass distribution is the lognormal number distribution of median
         * d50·exp(−3σ²) (volume ∝ d³ shifts ln d by 3σ²). */
        double median = s->by_mass ? s->median * exp(-3.0 * s->sigma * s->sigma) : s->median;
        for (;;) {
            double d = median * exp(s->sigma * normal(state));
            if (d >= s->lo && d <= s->hi)
                return d;
        }
    }
    if (s->kind == LDEM_GEN_SIZE_FIXED)
        return NAN;
    if (!s->by_mass)
        return draw_as_written(s, state);
    /* By mass: draw from the mass density and keep d with probability (d_min/d)³, which
     * turns a mass density into the number density (f_n ∝ f_m / d³). */
    double dmin = s->kind == LDEM_GEN_SIZE_UNIFORM ? s->lo : s->table_d[0];
    for (;;) {
        double d = draw_as_written(s, state);
        double keep = dmin / d;
        if (uniform(state) < keep * keep * keep)
            return d;
    }
}

double ldem_gen_region_volume(const ldem_gen_region *r)
{
    if (r->kind == LDEM_GEN_CYLINDER)
        return PI * r->radius * r->radius * r->height;
    return (r->hi.x - r->lo.x) * (r->hi.y - r->lo.y) * (r->hi.z - r->lo.z);
}

/* ---- the spatial hash ---- */

typedef struct grid {
    double cell;
    size_t nbuckets;          /* a power of two */
    int64_t *head;            /* per bucket: the last grain in it, −1: none */
    int64_t *next;            /* per grain: the previous grain in its bucket */
    ldem_gen_grain *grains;   /* obstacles, then placed grains */
    size_t count, capacity;
} grid;

static int64_t cell_of(const grid *g, double v)
{
    return (int64_t)floor(v / g->cell);
}

static size_t bucket(const grid *g, int64_t i, int64_t j, int64_t k)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)k * 0x165667B19E3779F9ull;
    return (size_t)(h ^ (h >> 29)) & (g->nbuckets - 1);
}

static void grid_add(grid *g, ldem_gen_grain gr)
{
    size_t b = bucket(g, cell_of(g, gr.x.x), cell_of(g, gr.x.y), cell_of(g, gr.x.z));
    g->grains[g->count] = gr;
    g->next[g->count] = g->head[b];
    g->head[b] = (int64_t)g->count;
    g->count++;
}

/* ---- overlap tests ---- */

/* Whether any surface node of `a` lies inside `b`'s level set, or (b a sphere) within its
 * radius of its centre. */
static int nodes_inside(const ldem_gen_grain *a, const ldem_gen_grain *b)
{
    const ldem_nodes *nodes = a->shape->nodes;
    double r2 = b->radius * b->radius;
    for (uint64_t k = 0; k < nodes->count; k++) {
        const double *p = &nodes->position[3 * k];
        ldem_vec3 w = ldem_vec3_add(a->x, ldem_quat_rotate(a->q, ldem_vec3_make(p[0], p[1], p[2])));
        if (!b->shape || !b->shape->nodes) {
            if (ldem_vec3_norm2(ldem_vec3_sub(w, b->x)) < r2)
                return 1;
            continue;
        }
        double phi;
        ldem_vec3 grad;
        if (ldem_levelset_query(b->shape->lset, b->x, b->q, w, &phi, &grad) && phi < 0.0)
            return 1;
    }
    return 0;
}

static int is_lset(const ldem_gen_grain *g)
{
    return g->shape && g->shape->nodes;
}

static int overlap(const ldem_gen_grain *a, const ldem_gen_grain *b)
{
    double reach = a->radius + b->radius;
    if (ldem_vec3_norm2(ldem_vec3_sub(a->x, b->x)) >= reach * reach)
        return 0;
    if (!is_lset(a) && !is_lset(b))
        return 1; /* spheres: the bounding test is exact */
    const ldem_gen_grain *ls = is_lset(a) ? a : b, *other = ls == a ? b : a;
    if (!is_lset(other)) {
        /* a sphere against a level-set grain: its centre's distance to the surface, and the
         * grain's nodes against the sphere (a sphere bigger than the grid's reach) */
        double phi;
        ldem_vec3 grad;
        if (ldem_levelset_query(ls->shape->lset, ls->x, ls->q, other->x, &phi, &grad) &&
            phi < other->radius)
            return 1;
        return nodes_inside(ls, other);
    }
    return nodes_inside(a, b) || nodes_inside(b, a);
}

static int touches_wall(const ldem_gen_spec *s, const ldem_gen_grain *c)
{
    for (size_t k = 0; k < s->nwalls; k++)
        if (ldem_gen_touches_wall(&s->walls[k], c))
            return 1;
    return 0;
}

static int touches_any(const grid *g, const ldem_gen_grain *c)
{
    int64_t ci = cell_of(g, c->x.x), cj = cell_of(g, c->x.y), ck = cell_of(g, c->x.z);
    for (int64_t i = ci - 1; i <= ci + 1; i++)
        for (int64_t j = cj - 1; j <= cj + 1; j++)
            for (int64_t k = ck - 1; k <= ck + 1; k++)
                for (int64_t e = g->head[bucket(g, i, j, k)]; e >= 0; e = g->next[e])
                    if (overlap(c, &g->grains[e]))
                        return 1;
    return 0;
}

/* ---- positions in the region ---- */

static ldem_vec3 perpendicular(ldem_vec3 a)
{
    ldem_vec3 t = fabs(a.x) < 0.9 ? ldem_vec3_make(1.0, 0.0, 0.0) : ldem_vec3_make(0.0, 1.0, 0.0);
    ldem_vec3 u = ldem_vec3_sub(t, ldem_vec3_scale(a, ldem_vec3_dot(a, t)));
    return ldem_vec3_scale(u, 1.0 / ldem_vec3_norm(u));
}

/* A uniform point where a grain of radius r lies wholly inside the region; 0 if none can. */
static int random_point(const ldem_gen_region *r, double radius, uint64_t *state,
                        ldem_vec3 *x)
{
    if (r->kind == LDEM_GEN_CYLINDER) {
        double room = r->radius - radius, tall = r->height - 2.0 * radius;
        if (room < 0.0 || tall < 0.0)
            return 0;
        ldem_vec3 e1 = perpendicular(r->axis), e2 = ldem_vec3_cross(r->axis, e1);
        double rho = room * sqrt(uniform(state)), theta = 2.0 * PI * uniform(state);
        double h = radius + tall * uniform(state);
        *x = ldem_vec3_add(r->base, ldem_vec3_add(ldem_vec3_scale(r->axis, h),
                                                 ldem_vec3_add(ldem_vec3_scale(e1, rho * cos(theta)),
                                                               ldem_vec3_scale(e2, rho * sin(theta)))));
        return 1;
    }
    double lo[3] = {r->lo.x, r->lo.y, r->lo.z}, hi[3] = {r->hi.x, r->hi.y, r->hi.z}, p[3];
    for (int a = 0; a < 3; a++) {
        double span = hi[a] - lo[a] - 2.0 * radius;
        if (span < 0.0)
            return 0;
        p[a] = lo[a] + radius + span * uniform(state);
    }
    *x = ldem_vec3_make(p[0], p[1], p[2]);
    return 1;
}

/* ---- the draw ---- */

/* The mix's next shape: the one furthest below its share so far (by count or by volume), so
 * the mix holds its fractions at every prefix, not only on average. */
static size_t next_shape(const ldem_gen_spec *s, const double *have, double total)
{
    size_t best = 0;
    double deficit = -INFINITY;
    for (size_t k = 0; k < s->nshapes; k++) {
        double d = s->shapes[k].fraction * (total + 1.0) - have[k];
        if (d > deficit)
            deficit = d, best = k;
    }
    return best;
}

/* Largest first; equal sizes in the order they were drawn (index kept in x.x meanwhile). */
static int by_radius_descending(const void *a, const void *b)
{
    const ldem_gen_grain *ga = a, *gb = b;
    if (ga->radius != gb->radius)
        return ga->radius < gb->radius ? 1 : -1;
    return ga->x.x < gb->x.x ? -1 : ga->x.x > gb->x.x;
}

/* Every grain's shape and size: `count` of them, or until their volume reaches the target. */
static int draw_grains(const ldem_gen_spec *s, uint64_t *state, ldem_gen_grain **out, size_t *n)
{
    double target = s->count ? INFINITY : s->solid_fraction * ldem_gen_region_volume(&s->region);
    double *have = calloc(s->nshapes, sizeof *have);
    size_t cap = 1024, k = 0;
    ldem_gen_grain *g = malloc(cap * sizeof *g);
    if (!have || !g) {
        free(have), free(g);
        return 2;
    }
    double volume = 0.0, total = 0.0;
    while (s->count ? k < s->count : volume < target) {
        if (s->max_grains && k == s->max_grains) {
            free(have), free(g);
            return 3;
        }
        if (k == cap) {
            ldem_gen_grain *m = realloc(g, 2 * cap * sizeof *g);
            if (!m) {
                free(have), free(g);
                return 2;
            }
            g = m, cap *= 2;
        }
        size_t slot = next_shape(s, have, total);
        const ldem_gen_shape *sh = &s->shapes[slot];
        double r = sh->radius, v = sh->volume;
        if (!sh->nodes) {
            double d = ldem_gen_draw_diameter(&s->sizes, state);
            r = isnan(d) ? sh->radius : 0.5 * d;
            v = 4.0 / 3.0 * PI * r * r * r;
        }
        double by = s->sizes.by_mass ? v : 1.0;
        have[slot] += by, total += by, volume += v;
        g[k++] = (ldem_gen_grain){.radius = r, .shape = sh, .slot = (uint32_t)slot,
                                  .q = ldem_quat_identity()};
    }
    free(have);
    for (size_t i = 0; i < k; i++)
        g[i].x.x = (double)i;
    qsort(g, k, sizeof *g, by_radius_descending);
    *out = g, *n = k;
    return 0;
}

int ldem_generate(const ldem_gen_spec *s, const ldem_gen_grain *obstacles, size_t nobstacles,
                  ldem_gen_grain **out, size_t *n, char *why, size_t why_size)
{
    *out = NULL, *n = 0;
    uint64_t state = s->seed;
    ldem_gen_grain *g;
    size_t k;
    int drawn = draw_grains(s, &state, &g, &k);
    if (drawn == 3) {
        snprintf(why, why_size, "more than %llu grains", (unsigned long long)s->max_grains);
        return 3;
    }
    if (drawn) {
        snprintf(why, why_size, "out of memory drawing the grains");
        return 2;
    }
    double rmax = 0.0;
    for (size_t i = 0; i < k; i++)
        rmax = g[i].radius > rmax ? g[i].radius : rmax;
    for (size_t i = 0; i < nobstacles; i++)
        rmax = obstacles[i].radius > rmax ? obstacles[i].radius : rmax;
    grid gr = {.cell = 2.0 * (rmax > 0.0 ? rmax : 1.0), .nbuckets = 1};
    while (gr.nbuckets < 2 * (k + nobstacles) + 16)
        gr.nbuckets *= 2;
    gr.capacity = k + nobstacles;
    gr.head = malloc(gr.nbuckets * sizeof *gr.head);
    gr.next = malloc((gr.capacity ? gr.capacity : 1) * sizeof *gr.next);
    gr.grains = malloc((gr.capacity ? gr.capacity : 1) * sizeof *gr.grains);
    int rc = 0;
    if (!gr.head || !gr.next || !gr.grains) {
        snprintf(why, why_size, "out of memory placing %zu grains", k);
        rc = 2;
    }
    for (size_t b = 0; !rc && b < gr.nbuckets; b++)
        gr.head[b] = -1;
    for (size_t i = 0; !rc && i < nobstacles; i++)
        grid_add(&gr, obstacles[i]);
    for (size_t i = 0; !rc && i < k; i++) {
        ldem_gen_grain c = g[i];
        uint64_t tries = 0;
        int placed = 0;
        while (!placed && tries < s->attempts) {
            tries++;
            if (!random_point(&s->region, c.radius, &state, &c.x))
                break;
            c.q = c.shape->nodes ? ldem_gen_random_rotation(&state) : ldem_quat_identity();
            placed = !touches_wall(s, &c) && !touches_any(&gr, &c);
        }
        if (!placed) {
            double done = 0.0, region = ldem_gen_region_volume(&s->region);
            for (size_t j = 0; j < i; j++)
                done += g[j].shape->nodes ? g[j].shape->volume
                                          : 4.0 / 3.0 * PI * g[j].radius * g[j].radius * g[j].radius;
            snprintf(why, why_size,
                     "placed %zu of %zu grains (solid fraction %.3g of the region) before one of "
                     "radius %g found no room in %llu tries: the region is too small for them; "
                     "random placement jams near a solid fraction of 0.3-0.4, so place a loose "
                     "cloud and let gravity or a wall compact it",
                     i, k, done / region, c.radius, (unsigned long long)s->attempts);
            rc = 1;
            break;
        }
        g[i] = c;
        grid_add(&gr, c);
    }
    free(gr.head), free(gr.next), free(gr.grains);
    if (rc) {
        free(g);
        return rc;
    }
    *out = g, *n = k;
    return 0;
}
