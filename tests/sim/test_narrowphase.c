/* Unit tests of ldem/sim/narrowphase.h.
 *   - analytic pairs (sphere–sphere, sphere–plane, sphere–cylinder outside and inside)
 *     against values worked by hand;
 *   - level-set node hits (grain–grain, grain–sphere, grain–wall) against a brute-force
 *     scan of every node with the public level-set query: same nodes, keys sorted by side
 *     then node, depth = −φ, normals from i to j;
 *   - the patch of level-set spheres against the analytic sphere–sphere / sphere–plane
 *     contact of the same spheres: normal, point, overlap, radii; symmetric under i ↔ j;
 *     closer with finer surface nodes; radii capped on flat faces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/levelset.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/sim/node_clusters.h"
#include "world_fixture.h"

static const double PI = 3.14159265358979323846;

/* ---- small helpers ---- */

static double uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static ldem_vec3 random_direction(uint64_t *s)
{
    for (;;) {
        ldem_vec3 v = ldem_vec3_make(2 * uniform(s) - 1, 2 * uniform(s) - 1, 2 * uniform(s) - 1);
        double n = ldem_vec3_norm(v);
        if (n > 0.1 && n < 1.0)
            return ldem_vec3_scale(v, 1.0 / n);
    }
}

static ldem_quat random_rotation(uint64_t *s)
{
    for (;;) {
        ldem_quat q = ldem_quat_make(2 * uniform(s) - 1, 2 * uniform(s) - 1, 2 * uniform(s) - 1,
                                     2 * uniform(s) - 1);
        double n = ldem_quat_norm(q);
        if (n > 0.1 && n < 1.0)
            return ldem_quat_normalize(q);
    }
}

static double angle_between(ldem_vec3 a, ldem_vec3 b)
{
    return atan2(ldem_vec3_norm(ldem_vec3_cross(a, b)), ldem_vec3_dot(a, b));
}

static ldem_ls_grain grain_of(const ldem_world *w, uint32_t shape, ldem_vec3 x, ldem_quat q)
{
    const ldem_shape *sh = &w->shapes[shape];
    return (ldem_ls_grain){.lset = &sh->lset, .nodes = &sh->nodes, .x = x, .q = q,
                           .radius = sh->bounding_radius};
}

static ldem_vec3 node_world(const ldem_ls_grain *g, uint64_t k)
{
    const double *p = &g->nodes->position[3 * k];
    return ldem_vec3_add(g->x, ldem_quat_rotate(g->q, ldem_vec3_make(p[0], p[1], p[2])));
}

static void assert_close_vec(ldem_vec3 got, ldem_vec3 want, double tol, const char *what)
{
    double e = ldem_vec3_dist(got, want);
    cr_assert_leq(e, tol, "%s: (%g, %g, %g) vs (%g, %g, %g), error %g > %g", what, got.x, got.y,
                  got.z, want.x, want.y, want.z, e, tol);
}

/* ---- analytic pairs ---- */

/* ri = 1 at 0, rj = 0.7 at (1.5, 0, 0): δ = 0.2, n = +x, the overlap spans x ∈ [0.8, 1], its
 * middle 0.9. Shifted and turned by hand: the same along (2, 3, 6)/7. */
Test(narrowphase, sphere_sphere_hand)
{
    ldem_patch p;
    ldem_sphere_sphere(ldem_vec3_zero(), 1.0, ldem_vec3_make(1.5, 0, 0), 0.7, &p);
    cr_assert_leq(fabs(p.overlap - 0.2), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(1, 0, 0), 0.0, "normal");
    assert_close_vec(p.point, ldem_vec3_make(0.9, 0, 0), 1e-15, "point");
    cr_assert(p.r1 == 1.0 && p.r2 == 0.7 && p.nnodes == 0);

    ldem_vec3 e = ldem_vec3_make(2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0), x0 = ldem_vec3_make(1, -2, 3);
    ldem_sphere_sphere(x0, 0.5, ldem_vec3_axpy(2.0, e, x0), 1.0, &p); /* gap 0.5 */
    cr_assert_leq(fabs(p.overlap + 0.5), 1e-15);
    assert_close_vec(p.normal, e, 1e-15, "normal");
    /* Surfaces at 0.5 and 1.0 along e: the "middle of the overlap" is the middle of the gap. */
    assert_close_vec(p.point, ldem_vec3_axpy(0.75, e, x0), 1e-15, "point");

    /* Coincident centres: normal +z, δ = ri + rj. */
    ldem_sphere_sphere(x0, 0.3, x0, 0.4, &p);
    cr_assert_leq(fabs(p.overlap - 0.7), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(0, 0, 1), 0.0, "coincident normal");
    /* Overlap from x0 − 0.4 z to x0 + 0.3 z: middle x0 − 0.05 z. */
    assert_close_vec(p.point, ldem_vec3_axpy(-0.05, ldem_vec3_make(0, 0, 1), x0), 1e-15,
                     "coincident point");
}

/* Plane through (0, 0, −1) with normal +z; sphere r = 0.6 centred at z = −0.5 (0.5 above):
 * δ = 0.1, normal −z, lowest point −1.1, the middle −1.05, r2 = ∞. */
Test(narrowphase, sphere_plane_hand)
{
    ldem_wall_geom wall = {LDEM_WALL_PLANE, ldem_vec3_make(0, 0, -1), ldem_vec3_make(0, 0, 1),
                           0.0, 0};
    ldem_patch p;
    ldem_sphere_wall(ldem_vec3_make(0.3, 0.2, -0.5), 0.6, &wall, &p);
    cr_assert_leq(fabs(p.overlap - 0.1), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(0, 0, -1), 0.0, "normal");
    assert_close_vec(p.point, ldem_vec3_make(0.3, 0.2, -1.05), 1e-15, "point");
    cr_assert(p.r1 == 0.6 && isinf(p.r2));
    /* A tilted plane: normal (0, 3, 4)/5 through the origin, centre 2 along it: gap 1.5. */
    wall.point = ldem_vec3_zero();
    wall.normal = ldem_vec3_make(0, 0.6, 0.8);
    ldem_sphere_wall(ldem_vec3_make(0, 1.2, 1.6), 0.5, &wall, &p);
    cr_assert_leq(fabs(p.overlap + 1.5), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(0, -0.6, -0.8), 0.0, "tilted normal");
}

/* Rod: axis z through (1, 1, 0), R = 0.5; sphere r = 0.5 at ρ = 0.9 along +x: δ = 0.1,
 * normal −x (toward the axis), point between the sphere's innermost point (ρ − r = 0.4,
 * x = 1.4) and the rod's surface (x = 1.5): x = 1.45. R* = 1/√((1/r + 1/R)/r) = 1/√8.
 * Drum: R = 2, r = 0.5 at ρ = 1.6 along (0.6, 0.8): δ = 0.1, normal outward, point between
 * the sphere's outermost point (ρ + r = 2.1) and the wall (2): ρ = 2.05;
 * R* = 1/√((1/r − 1/R)/r) = 1/√3 (> r: carried by r1, r2 = ∞). */
Test(narrowphase, sphere_cylinder)
{
    ldem_wall_geom rod = {LDEM_WALL_CYLINDER, ldem_vec3_make(1, 1, 0), ldem_vec3_make(0, 0, 1),
                          0.5, 0};
    ldem_patch p;
    ldem_sphere_wall(ldem_vec3_make(1.9, 1.0, 3.0), 0.5, &rod, &p);
    cr_assert_leq(fabs(p.overlap - 0.1), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(-1, 0, 0), 0.0, "rod normal");
    assert_close_vec(p.point, ldem_vec3_make(1.45, 1.0, 3.0), 1e-15, "rod point");
    double rstar = p.r1 * p.r2 / (p.r1 + p.r2);
    cr_assert_leq(fabs(rstar - 1.0 / sqrt(8.0)), 1e-15, "rod R* %g", rstar);
    cr_assert(p.r1 == 0.5 && p.r2 > 0.0);
    /* A thin rod against a large sphere is still a positive R*; a huge rod is a plane. */
    rod.radius = 1e6;
    ldem_sphere_wall(ldem_vec3_make(1.0 + 1e6 + 0.4, 1.0, 0.0), 0.5, &rod, &p);
    rstar = p.r1 * p.r2 / (p.r1 + p.r2);
    cr_assert_leq(fabs(rstar - 0.5) / 0.5, 1e-6, "huge rod R* %g", rstar);
    cr_assert_leq(fabs(p.overlap - 0.1), 1e-9);

    ldem_wall_geom drum = {LDEM_WALL_CYLINDER, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1), 2.0, 1};
    ldem_sphere_wall(ldem_vec3_make(0.96, 1.28, -7.0), 0.5, &drum, &p);
    cr_assert_leq(fabs(p.overlap - 0.1), 1e-15);
    assert_close_vec(p.normal, ldem_vec3_make(0.6, 0.8, 0), 1e-15, "drum normal");
    assert_close_vec(p.point, ldem_vec3_make(0.6 * 2.05, 0.8 * 2.05, -7.0), 1e-15, "drum point");
    cr_assert(isinf(p.r2));
    cr_assert_leq(fabs(p.r1 - 1.0 / sqrt(3.0)), 1e-15, "drum R* %g", p.r1);
    /* A sphere filling the drum: R* capped at 100 r, never infinite. */
    ldem_sphere_wall(ldem_vec3_zero(), 2.0, &drum, &p);
    cr_assert(p.r1 == 200.0 && isinf(p.r2));

    /* A sphere on the rod's axis: some unit normal perpendicular to the axis, δ = R + r. */
    rod.radius = 0.5;
    ldem_sphere_wall(ldem_vec3_make(1, 1, 5), 0.25, &rod, &p);
    cr_assert_leq(fabs(ldem_vec3_norm(p.normal) - 1.0), 1e-15);
    cr_assert_leq(fabs(p.normal.z), 1e-15);
    cr_assert_leq(fabs(p.overlap - 0.75), 1e-15);
}

/* ---- level-set hits ---- */

/* Brute force: every node of `from` queried in `into` through the public world-frame query.
 * Nodes within 1e-12 of the zero level are ambiguous (a different rounding path may put
 * them either side); the rest must match the hits exactly. */
typedef struct brute {
    size_t strict, ambiguous;
} brute;

static brute brute_count(const ldem_ls_grain *from, const ldem_ls_grain *into)
{
    brute b = {0, 0};
    for (uint64_t k = 0; k < from->nodes->count; k++) {
        double phi;
        int in = ldem_levelset_query(into->lset, into->x, into->q, node_world(from, k), &phi,
                                     NULL);
        if (!in)
            continue;
        if (phi < -1e-12)
            b.strict++;
        else if (phi < 1e-12)
            b.ambiguous++;
    }
    return b;
}

/* Each hit of the pair: sorted key, node and point of the right grain, depth = −φ of the
 * other grain there, normal = ∓∇φ/|∇φ| of the other grain (from i to j). */
static void check_pair_hits(const ldem_ls_grain *a, const ldem_ls_grain *b, const ldem_hits *h)
{
    for (size_t k = 0; k < h->count; k++) {
        const ldem_node_hit *hit = &h->hit[k];
        if (k > 0)
            cr_assert_gt(hit->key, h->hit[k - 1].key, "keys not strictly increasing at %zu", k);
        uint32_t side = hit->key >> 31, node = hit->key & 0x7fffffffu;
        const ldem_ls_grain *from = side ? b : a, *into = side ? a : b;
        cr_assert_lt(node, from->nodes->count);
        assert_close_vec(hit->point, node_world(from, node), 1e-12, "hit point");
        cr_assert_eq(hit->area, from->nodes->area[node]);
        double phi;
        ldem_vec3 grad;
        ldem_levelset_query(into->lset, into->x, into->q, hit->point, &phi, &grad);
        cr_assert_leq(fabs(hit->depth + phi), 1e-12, "depth %g vs -phi %g", hit->depth, -phi);
        cr_assert_gt(hit->depth, 0.0);
        ldem_vec3 want = ldem_vec3_scale(ldem_vec3_normalize(grad), side ? 1.0 : -1.0);
        assert_close_vec(hit->normal, want, 1e-9, "hit normal");
    }
}

static size_t count_side(const ldem_hits *h, uint32_t side)
{
    size_t n = 0;
    for (size_t k = 0; k < h->count; k++)
        n += (h->hit[k].key >> 31) == side;
    return n;
}

Test(narrowphase, pair_hits_match_brute_force)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    uint32_t big = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    uint32_t small = wf_add_ls_sphere_shape(&w, 0.7, 0.04, 3);
    uint64_t rng = 5;
    ldem_hits h = {0}, h_noradius = {0};
    ldem_err err;
    size_t total = 0;
    for (int pose = 0; pose < 30; pose++) {
        double overlap = 0.3 * uniform(&rng);
        ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
        ldem_vec3 xb = ldem_vec3_axpy(1.7 - overlap, random_direction(&rng), xa);
        ldem_ls_grain a = grain_of(&w, big, xa, random_rotation(&rng));
        ldem_ls_grain b = grain_of(&w, small, xb, random_rotation(&rng));
        cr_assert_eq(ldem_ls_pair_hits(&a, &b, &h, &err), LDEM_OK, "%s", err.msg);
        check_pair_hits(&a, &b, &h);
        brute b0 = brute_count(&a, &b), b1 = brute_count(&b, &a);
        size_t n0 = count_side(&h, 0), n1 = count_side(&h, 1);
        cr_assert(n0 >= b0.strict && n0 <= b0.strict + b0.ambiguous, "side 0: %zu vs %zu(+%zu)",
                  n0, b0.strict, b0.ambiguous);
        cr_assert(n1 >= b1.strict && n1 <= b1.strict + b1.ambiguous, "side 1: %zu vs %zu(+%zu)",
                  n1, b1.strict, b1.ambiguous);
        /* Without a bounding radius the grid box alone rejects: the same hits. */
        a.radius = b.radius = 0.0;
        cr_assert_eq(ldem_ls_pair_hits(&a, &b, &h_noradius, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(h_noradius.count, h.count);
        for (size_t k = 0; k < h.count; k++) {
            const ldem_node_hit *x = &h.hit[k], *y = &h_noradius.hit[k];
            cr_assert(x->key == y->key && x->depth == y->depth && x->area == y->area &&
                      ldem_vec3_dist(x->point, y->point) == 0.0 &&
                      ldem_vec3_dist(x->normal, y->normal) == 0.0);
        }
        total += h.count;
    }
    cr_log_info("pair hits: %zu hits over 30 poses, all matching the brute-force scan", total);
    cr_assert_gt(total, 300u, "the poses must produce hits to check");
    /* Apart: nothing, and the list is cleared, not appended to. */
    ldem_ls_grain a = grain_of(&w, big, ldem_vec3_zero(), ldem_quat_identity());
    ldem_ls_grain b = grain_of(&w, small, ldem_vec3_make(1.71, 0, 0), ldem_quat_identity());
    cr_assert_eq(ldem_ls_pair_hits(&a, &b, &h, &err), LDEM_OK);
    cr_assert_eq(h.count, 0u);
    ldem_hits_free(&h);
    ldem_hits_free(&h_noradius);
    cr_assert(h.hit == NULL && h.capacity == 0);
    ldem_world_free(&w);
}

/* Against an analytic sphere and walls the depth is the exact distance, recomputed here. */
Test(narrowphase, sphere_and_wall_hits_exact_depth)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    uint32_t shape = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    uint64_t rng = 9;
    ldem_hits h = {0};
    ldem_err err;
    ldem_ls_grain g = grain_of(&w, shape, ldem_vec3_make(0.2, -0.1, 0.3), random_rotation(&rng));
    const ldem_nodes *nd = g.nodes;

    /* Analytic sphere of radius 0.5 overlapping by 0.2. */
    ldem_vec3 c = ldem_vec3_axpy(1.3, ldem_vec3_normalize(ldem_vec3_make(1, 1, 0)), g.x);
    cr_assert_eq(ldem_ls_sphere_hits(&g, c, 0.5, &h, &err), LDEM_OK, "%s", err.msg);
    size_t want = 0;
    for (uint64_t k = 0; k < nd->count; k++)
        want += ldem_vec3_dist(node_world(&g, k), c) < 0.5;
    cr_assert_eq(h.count, want);
    cr_assert_gt(want, 10u);
    for (size_t k = 0; k < h.count; k++) {
        const ldem_node_hit *hit = &h.hit[k];
        cr_assert_eq(hit->key >> 31, 0u);
        if (k)
            cr_assert_gt(hit->key, h.hit[k - 1].key);
        ldem_vec3 p = node_world(&g, hit->key);
        assert_close_vec(hit->point, p, 1e-14, "sphere hit point");
        cr_assert_leq(fabs(hit->depth - (0.5 - ldem_vec3_dist(p, c))), 1e-14);
        assert_close_vec(hit->normal, ldem_vec3_normalize(ldem_vec3_sub(c, p)), 1e-14,
                         "sphere hit normal");
    }

    /* Walls: a tilted plane, a rod and a drum, each cutting the grain by about 0.15. */
    ldem_vec3 n = ldem_vec3_normalize(ldem_vec3_make(1, -2, 2));
    ldem_vec3 axis = ldem_vec3_normalize(ldem_vec3_make(0, 1, 1));
    ldem_vec3 across = ldem_vec3_normalize(ldem_vec3_make(1, 0, 0)); /* ⊥ axis */
    ldem_wall_geom walls[3] = {
        {LDEM_WALL_PLANE, ldem_vec3_axpy(-0.85, n, g.x), n, 0.0, 0},
        {LDEM_WALL_CYLINDER, ldem_vec3_axpy(1.15, across, g.x), axis, 0.3, 0},
        {LDEM_WALL_CYLINDER, ldem_vec3_axpy(0.5, across, g.x), axis, 1.35, 1},
    };
    for (int k = 0; k < 3; k++) {
        const ldem_wall_geom *wl = &walls[k];
        cr_assert_eq(ldem_ls_wall_hits(&g, wl, &h, &err), LDEM_OK, "%s", err.msg);
        size_t expect = 0;
        for (uint64_t m = 0; m < nd->count; m++) {
            ldem_vec3 rel = ldem_vec3_sub(node_world(&g, m), wl->point);
            double rho = ldem_vec3_norm(ldem_vec3_reject(rel, wl->normal));
            double depth = k == 0 ? -ldem_vec3_dot(rel, wl->normal)
                           : k == 1 ? wl->radius - rho
                                    : rho - wl->radius;
            expect += depth > 0.0;
        }
        cr_assert_eq(h.count, expect, "wall %d: %zu hits, brute force %zu", k, h.count, expect);
        cr_assert_gt(expect, 10u, "wall %d must cut the grain", k);
        for (size_t m = 0; m < h.count; m++) {
            const ldem_node_hit *hit = &h.hit[m];
            ldem_vec3 rel = ldem_vec3_sub(hit->point, wl->point);
            ldem_vec3 radial = ldem_vec3_reject(rel, wl->normal);
            double rho = ldem_vec3_norm(radial);
            ldem_vec3 e = ldem_vec3_scale(radial, 1.0 / rho);
            double depth = k == 0 ? -ldem_vec3_dot(rel, wl->normal)
                           : k == 1 ? wl->radius - rho
                                    : rho - wl->radius;
            ldem_vec3 normal = k == 0 ? ldem_vec3_neg(wl->normal)
                               : k == 1 ? ldem_vec3_neg(e)
                                        : e;
            cr_assert_leq(fabs(hit->depth - depth), 1e-14, "wall %d depth", k);
            assert_close_vec(hit->normal, normal, 1e-14, "wall normal");
            cr_assert_eq(hit->area, nd->area[hit->key]);
        }
    }
    ldem_hits_free(&h);
    ldem_world_free(&w);
}

/* ---- the patch against analytic spheres ---- */

typedef struct patch_errors {
    double normal, point, overlap, rstar; /* worst: rad, length, relative, relative */
    double sum_normal, sum_point;          /* for means */
    double lo[4], hi[4];                   /* δ relative error range per overlap fraction */
    int samples;
    int min_nodes;
} patch_errors;

static patch_errors errors_init(void)
{
    patch_errors e = {0};
    for (int f = 0; f < 4; f++)
        e.lo[f] = INFINITY, e.hi[f] = -INFINITY;
    return e;
}

static double rstar_of(double r1, double r2)
{
    return isinf(r2) ? r1 : r1 * r2 / (r1 + r2);
}

/* The patch point is the centroid of the lens (docs/contact-patch.md), the analytic contacts'
 * the middle of the overlap on the line of centres; they differ along the normal by O(δ).
 * `centroid` is the exact lens centroid where the test knows it (sphere pairs and planes);
 * otherwise (cylinders) NULL: then the point is compared sideways to the analytic point and
 * must lie within the lens's half-thickness δ/2 of it along the normal. */
static void record(patch_errors *e, int fraction, const ldem_patch *got, const ldem_patch *want,
                   const ldem_vec3 *centroid)
{
    double an = angle_between(got->normal, want->normal);
    double dp;
    if (centroid) {
        dp = ldem_vec3_dist(got->point, *centroid);
    } else {
        ldem_vec3 off = ldem_vec3_sub(got->point, want->point);
        double along = ldem_vec3_dot(off, want->normal);
        cr_assert_leq(fabs(along), 0.5 * want->overlap, "point off the lens: %g along n", along);
        dp = ldem_vec3_norm(ldem_vec3_reject(off, want->normal));
    }
    double dd = (got->overlap - want->overlap) / want->overlap;
    double rs = rstar_of(want->r1, want->r2);
    double dr = fabs(rstar_of(got->r1, got->r2) - rs) / rs;
    e->normal = fmax(e->normal, an);
    e->point = fmax(e->point, dp);
    e->overlap = fmax(e->overlap, fabs(dd));
    e->rstar = fmax(e->rstar, dr);
    e->sum_normal += an;
    e->sum_point += dp;
    e->lo[fraction] = fmin(e->lo[fraction], dd);
    e->hi[fraction] = fmax(e->hi[fraction], dd);
    if (e->samples == 0 || (int)got->nnodes < e->min_nodes)
        e->min_nodes = (int)got->nnodes;
    e->samples++;
}

/* A spherical cap of height c on a sphere of radius R: volume π c²(3R − c)/3, centroid
 * c(4R − c)/(4(3R − c)) from its base plane toward its apex (3R/8 for a hemisphere). */
static void spherical_cap(double R, double c, double *volume, double *centroid)
{
    *volume = PI * c * c * (3.0 * R - c) / 3.0;
    *centroid = c * (4.0 * R - c) / (4.0 * (3.0 * R - c));
}

/* Exact centroid of the lens two overlapping spheres share: the cap of i beyond the plane of
 * the intersection circle and the cap of j on the other side. */
static ldem_vec3 lens_centroid(ldem_vec3 xi, double ri, ldem_vec3 xj, double rj)
{
    double d = ldem_vec3_dist(xi, xj);
    ldem_vec3 n = ldem_vec3_scale(ldem_vec3_sub(xj, xi), 1.0 / d);
    double x = (d * d + ri * ri - rj * rj) / (2.0 * d); /* the circle's plane, from xi */
    double vi, ci, vj, cj;
    spherical_cap(ri, ri - x, &vi, &ci);
    spherical_cap(rj, rj - (d - x), &vj, &cj);
    double z = (vi * (x + ci) + vj * (x - cj)) / (vi + vj);
    return ldem_vec3_axpy(z, n, xi);
}

/* The cap of a sphere (centre x, radius r) beyond a plane (point p, normal n to the sphere's
 * side). */
static ldem_vec3 plane_cap_centroid(ldem_vec3 x, double r, ldem_vec3 p, ldem_vec3 n)
{
    double s = ldem_vec3_dot(ldem_vec3_sub(x, p), n), v, c;
    spherical_cap(r, r - s, &v, &c);
    return ldem_vec3_axpy(-(s + c), n, x);
}

/* Spread of δ over orientations, summed over the overlap fractions: the node quadrature's
 * share of the error (the grid's bias and the lens's O(δ/R) term hardly depend on the
 * orientation). */
static double overlap_scatter(const patch_errors *e)
{
    double s = 0.0;
    for (int f = 0; f < 4; f++)
        s += e->hi[f] - e->lo[f];
    return s;
}

static const double FRACTIONS[4] = {0.01, 0.02, 0.05, 0.1};
#define ORIENTATIONS 8

static void log_errors(const char *what, const patch_errors *e)
{
    cr_log_info("%s: worst normal %.2g rad, point %.2g, overlap %.3g, R* %.2g; mean normal "
                "%.2g, point %.2g; overlap scatter %.3g; fewest nodes %d",
                what, e->normal, e->point, e->overlap, e->rstar, e->sum_normal / e->samples,
                e->sum_point / e->samples, overlap_scatter(e), e->min_nodes);
    for (int f = 0; f < 4; f++)
        cr_log_info("    delta = %.2f R: relative overlap error in [%+.4f, %+.4f]", FRACTIONS[f],
                    e->lo[f], e->hi[f]);
}

static void assert_within(const patch_errors *e, double h, const char *what)
{
    cr_assert_leq(e->normal, 1e-2, "%s: normal %g rad", what, e->normal);
    cr_assert_leq(e->point, h, "%s: point %g", what, e->point);
    cr_assert_leq(e->overlap, 0.05, "%s: overlap %g", what, e->overlap);
    cr_assert_leq(e->rstar, 0.02, "%s: R* %g", what, e->rstar);
}

/* Two level-set spheres R = 1 and 0.7 (grid h, icosphere subdivision `subdiv`) at analytic
 * overlaps δ = f·R, random orientations of both grains and of the line of centres. */
static patch_errors pair_patch_errors(int subdiv, double h)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    uint32_t big = wf_add_ls_sphere_shape(&w, 1.0, h, subdiv);
    uint32_t small = wf_add_ls_sphere_shape(&w, 0.7, h, subdiv);
    patch_errors e = errors_init();
    ldem_hits hits = {0};
    ldem_err err;
    uint64_t rng = 21;
    for (int f = 0; f < 4; f++)
        for (int o = 0; o < ORIENTATIONS; o++) {
            double delta = FRACTIONS[f] * 1.0;
            ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
            ldem_vec3 xb = ldem_vec3_axpy(1.7 - delta, random_direction(&rng), xa);
            ldem_ls_grain a = grain_of(&w, big, xa, random_rotation(&rng));
            ldem_ls_grain b = grain_of(&w, small, xb, random_rotation(&rng));
            cr_assert_eq(ldem_ls_pair_hits(&a, &b, &hits, &err), LDEM_OK, "%s", err.msg);
            ldem_patch got, want;
            ldem_patch_from_hits(&a, &b, 0.0, &hits, &got);
            ldem_sphere_sphere(xa, 1.0, xb, 0.7, &want);
            ldem_vec3 centroid = lens_centroid(xa, 1.0, xb, 0.7);
            record(&e, f, &got, &want, &centroid);
        }
    ldem_hits_free(&hits);
    ldem_world_free(&w);
    return e;
}

/* Level-set pair vs the analytic sphere–sphere patch at δ = 1%–10% of R. Tolerances:
 * normal 1e-2 rad, point within the grid spacing h, δ within 5% (the depth × area sums give
 * the lens volume to O(δ/R), −1.2% in δ at δ = 0.1 R; the trilinear grid overestimates a
 * convex φ by up to h²/(4R), which matters most at small δ), R* within 2%. The errors the
 * node quadrature causes fall as the nodes get finer (icosphere subdivision 4 → 5, node
 * spacing halved): mean normal error, mean point error, and the scatter of δ over
 * orientations. */
Test(narrowphase, patch_pair_vs_analytic, .timeout = 120)
{
    const double h = 0.02;
    patch_errors coarse = pair_patch_errors(4, h);
    patch_errors fine = pair_patch_errors(5, h);
    log_errors("ls pair, h 0.02, subdiv 4", &coarse);
    log_errors("ls pair, h 0.02, subdiv 5", &fine);
    assert_within(&coarse, h, "subdiv 4");
    assert_within(&fine, h, "subdiv 5");
    cr_assert_lt(fine.sum_normal, 0.5 * coarse.sum_normal, "finer nodes: better normals");
    cr_assert_lt(fine.sum_point, coarse.sum_point, "finer nodes: better points");
    cr_assert_lt(overlap_scatter(&fine), 0.75 * overlap_scatter(&coarse),
                 "finer nodes: less scatter of the overlap");
}

/* The coarse end of the range, h = 0.05 (R/20 and R/14), subdivision 5: normal, point and
 * R* as before, δ within 5% from δ = 2% R on. At δ = 1% R the grid's bias dominates: the
 * trilinear interpolant of a convex φ lies above it by up to h²/(4R) (6e-4 here), a depth
 * error of the order of the mean depth δ/2 over the patch times 2·6e-4/δ; the measured −5%
 * is allowed up to 7% and must shrink with the grid: at h = 0.02 it is less than half. */
Test(narrowphase, patch_pair_coarse_grid, .timeout = 60)
{
    patch_errors e = pair_patch_errors(5, 0.05);
    patch_errors e_fine = pair_patch_errors(5, 0.02);
    log_errors("ls pair, h 0.05, subdiv 5", &e);
    cr_assert_leq(e.normal, 1e-2, "normal %g rad", e.normal);
    cr_assert_leq(e.point, 0.05, "point %g", e.point);
    cr_assert_leq(e.rstar, 0.02, "R* %g", e.rstar);
    for (int f = 1; f < 4; f++)
        cr_assert_leq(fmax(-e.lo[f], e.hi[f]), 0.05, "delta %g: overlap error in [%g, %g]",
                      FRACTIONS[f], e.lo[f], e.hi[f]);
    double worst_coarse = fmax(-e.lo[0], e.hi[0]), worst_fine = fmax(-e_fine.lo[0], e_fine.hi[0]);
    cr_assert_leq(worst_coarse, 0.07, "delta 0.01: overlap error %g", worst_coarse);
    cr_assert_lt(worst_fine, 0.5 * worst_coarse, "delta 0.01: %g at h 0.02 vs %g at h 0.05",
                 worst_fine, worst_coarse);
}

/* A level-set sphere (R = 1) against a plane, a rod, a drum and an analytic sphere
 * (r = 0.7): the same tolerances against ldem_sphere_wall / ldem_sphere_sphere. */
Test(narrowphase, patch_vs_walls_and_sphere, .timeout = 60)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    const double h = 0.02;
    uint32_t shape = wf_add_ls_sphere_shape(&w, 1.0, h, 5);
    patch_errors plane_e = errors_init(), rod_e = errors_init(), drum_e = errors_init(),
                 sphere_e = errors_init();
    ldem_hits hits = {0};
    ldem_err err;
    uint64_t rng = 33;
    for (int f = 0; f < 4; f++)
        for (int o = 0; o < ORIENTATIONS; o++) {
            double delta = FRACTIONS[f];
            ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
            ldem_ls_grain a = grain_of(&w, shape, xa, random_rotation(&rng));
            ldem_vec3 n = random_direction(&rng);
            ldem_vec3 axis = ldem_vec3_normalize(ldem_vec3_cross(n, random_direction(&rng)));
            ldem_patch got, want;

            ldem_wall_geom walls[3] = {
                {LDEM_WALL_PLANE, ldem_vec3_axpy(1.0 - delta, n, xa), ldem_vec3_neg(n), 0, 0},
                {LDEM_WALL_CYLINDER, ldem_vec3_axpy(1.5 - delta, n, xa), axis, 0.5, 0},
                {LDEM_WALL_CYLINDER, ldem_vec3_axpy(-(3.0 + delta), n, xa), axis, 4.0, 1},
            };
            patch_errors *acc[3] = {&plane_e, &rod_e, &drum_e};
            for (int k = 0; k < 3; k++) {
                cr_assert_eq(ldem_ls_wall_hits(&a, &walls[k], &hits, &err), LDEM_OK, "%s",
                             err.msg);
                ldem_patch_from_wall_hits(&a, &walls[k], &hits, &got);
                ldem_sphere_wall(xa, 1.0, &walls[k], &want);
                ldem_vec3 centroid = plane_cap_centroid(xa, 1.0, walls[0].point, walls[0].normal);
                record(acc[k], f, &got, &want, k == 0 ? &centroid : NULL);
            }
            /* Through the generic entry a plane is rb = ∞, and rb ≤ 0 counts as flat. */
            cr_assert_eq(ldem_ls_wall_hits(&a, &walls[0], &hits, &err), LDEM_OK);
            ldem_patch generic, flat;
            ldem_patch_from_hits(&a, NULL, INFINITY, &hits, &generic);
            ldem_patch_from_hits(&a, NULL, -1.0, &hits, &flat);
            ldem_patch_from_wall_hits(&a, &walls[0], &hits, &got);
            cr_assert(memcmp(&generic, &got, sizeof got) == 0);
            cr_assert(memcmp(&flat, &got, sizeof got) == 0);

            ldem_vec3 c = ldem_vec3_axpy(1.7 - delta, n, xa);
            cr_assert_eq(ldem_ls_sphere_hits(&a, c, 0.7, &hits, &err), LDEM_OK, "%s", err.msg);
            ldem_patch_from_hits(&a, NULL, 0.7, &hits, &got);
            ldem_sphere_sphere(xa, 1.0, c, 0.7, &want);
            ldem_vec3 centroid = lens_centroid(xa, 1.0, c, 0.7);
            record(&sphere_e, f, &got, &want, &centroid);
        }
    log_errors("ls sphere vs plane", &plane_e);
    log_errors("ls sphere vs rod R 0.5", &rod_e);
    log_errors("ls sphere in drum R 4", &drum_e);
    log_errors("ls sphere vs analytic sphere", &sphere_e);
    assert_within(&plane_e, h, "plane");
    assert_within(&rod_e, h, "rod");
    assert_within(&drum_e, h, "drum");
    assert_within(&sphere_e, h, "sphere");
    ldem_hits_free(&hits);
    ldem_world_free(&w);
}

/* Swapping i and j flips the normal and keeps δ, the volume, the point and the radii
 * (swapped); only the summation order of the normal and point differ. */
Test(narrowphase, patch_symmetric)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    uint32_t big = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    uint32_t small = wf_add_ls_sphere_shape(&w, 0.7, 0.05, 3);
    ldem_hits hab = {0}, hba = {0};
    ldem_err err;
    uint64_t rng = 77;
    for (int k = 0; k < 20; k++) {
        ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
        ldem_vec3 xb = ldem_vec3_axpy(1.7 - 0.15 * uniform(&rng), random_direction(&rng), xa);
        ldem_ls_grain a = grain_of(&w, big, xa, random_rotation(&rng));
        ldem_ls_grain b = grain_of(&w, small, xb, random_rotation(&rng));
        ldem_patch pab, pba;
        cr_assert_eq(ldem_ls_pair_hits(&a, &b, &hab, &err), LDEM_OK);
        cr_assert_eq(ldem_ls_pair_hits(&b, &a, &hba, &err), LDEM_OK);
        ldem_patch_from_hits(&a, &b, 0.0, &hab, &pab);
        ldem_patch_from_hits(&b, &a, 0.0, &hba, &pba);
        cr_assert_gt(pab.nnodes, 0u);
        cr_assert_eq(pab.nnodes, pba.nnodes);
        cr_assert_leq(fabs(pab.overlap - pba.overlap), 1e-12 * pab.overlap);
        cr_assert_leq(fabs(pab.volume - pba.volume), 1e-12 * pab.volume);
        assert_close_vec(pab.normal, ldem_vec3_neg(pba.normal), 1e-12, "flipped normal");
        assert_close_vec(pab.point, pba.point, 1e-12, "point");
        cr_assert_leq(fabs(pab.r1 - pba.r2) + fabs(pab.r2 - pba.r1), 1e-9);
    }
    ldem_hits_free(&hab);
    ldem_hits_free(&hba);
    ldem_world_free(&w);
}

/* No hits: overlap 0 and everything else zero. */
Test(narrowphase, patch_empty)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    uint32_t s = wf_add_ls_sphere_shape(&w, 1.0, 0.1, 1);
    ldem_ls_grain a = grain_of(&w, s, ldem_vec3_zero(), ldem_quat_identity());
    ldem_hits h = {0};
    ldem_patch p;
    memset(&p, 0xab, sizeof p);
    ldem_patch_from_hits(&a, NULL, INFINITY, &h, &p);
    ldem_patch zero;
    memset(&zero, 0, sizeof zero);
    cr_assert(memcmp(&p, &zero, sizeof p) == 0);
    ldem_world_free(&w);
}

/* ---- a flat face: a level-set cube on a plane ---- */

/* Signed distance of the cube [−a, a]³ (exact, outside and inside). */
static float box_distance(double x, double y, double z, double a)
{
    double qx = fabs(x) - a, qy = fabs(y) - a, qz = fabs(z) - a;
    double ox = fmax(qx, 0.0), oy = fmax(qy, 0.0), oz = fmax(qz, 0.0);
    double outside = sqrt(ox * ox + oy * oy + oz * oz);
    double inside = fmin(fmax(qx, fmax(qy, qz)), 0.0);
    return (float)(outside + inside);
}

/* The cube's bottom face pressed 0.01 into a plane: ∇²φ ≈ 0 there, the radius is capped at
 * 100 × the bounding radius (so R* stays finite), and δ = √(V/(π R*)) with V = face area ×
 * 0.01 summed exactly by the node weights; the point is mid-lens, 0.005 below the plane. */
Test(narrowphase, patch_flat_face_capped)
{
    const double a = 0.5, h = 0.05, depth = 0.01;
    uint32_t n = (uint32_t)lround(2.0 * (a + 3 * h) / h) + 1;
    double o = -(a + 3 * h);
    ldem_lset ls = {{n, n, n}, {o, o, o}, {h, h, h}, malloc((size_t)n * n * n * sizeof(float))};
    cr_assert(ls.phi);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++)
                ls.phi[i + (size_t)n * (j + (size_t)n * k)] =
                    box_distance(o + i * h, o + j * h, o + k * h, a);
    /* 6 × 6 nodes at the centres of equal cells of the bottom face z = −a. */
    enum { M = 6 };
    double pos[3 * M * M], nrm[3 * M * M], area[M * M];
    for (int j = 0; j < M; j++)
        for (int i = 0; i < M; i++) {
            int k = i + M * j;
            pos[3 * k] = -a + (i + 0.5) * 2 * a / M;
            pos[3 * k + 1] = -a + (j + 0.5) * 2 * a / M;
            pos[3 * k + 2] = -a;
            nrm[3 * k] = nrm[3 * k + 1] = 0.0, nrm[3 * k + 2] = -1.0;
            area[k] = (2 * a / M) * (2 * a / M);
        }
    ldem_nodes nodes = {M * M, pos, nrm, area, 0, NULL};
    double bounding = a * sqrt(3.0);
    ldem_ls_grain g = {.lset = &ls, .nodes = &nodes, .x = ldem_vec3_make(0, 0, a - depth),
                       .q = ldem_quat_identity(), .radius = bounding};
    ldem_wall_geom floor_ = {LDEM_WALL_PLANE, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1), 0.0, 0};
    ldem_hits hits = {0};
    ldem_err err;
    cr_assert_eq(ldem_ls_wall_hits(&g, &floor_, &hits, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(hits.count, (size_t)(M * M));
    ldem_patch p;
    ldem_patch_from_hits(&g, NULL, INFINITY, &hits, &p);
    double cap = 100.0 * bounding, volume = 4 * a * a * depth;
    cr_assert_leq(fabs(p.volume - volume), 1e-12 * volume);
    cr_assert_eq(p.r1, cap, "r1 %g, cap %g", p.r1, cap);
    cr_assert(isinf(p.r2));
    cr_assert_leq(fabs(p.overlap - sqrt(volume / (PI * cap))), 1e-12);
    assert_close_vec(p.normal, ldem_vec3_make(0, 0, -1), 1e-15, "normal");
    assert_close_vec(p.point, ldem_vec3_make(0, 0, -0.5 * depth), 1e-12, "point");
    /* Without a bounding radius the cap uses the grid's half-diagonal. */
    g.radius = 0.0;
    ldem_patch_from_hits(&g, NULL, INFINITY, &hits, &p);
    cr_assert_leq(fabs(p.r1 - 100.0 * sqrt(3.0) * (a + 3 * h)), 1e-9, "r1 %g", p.r1);
    ldem_hits_free(&hits);
    free(ls.phi);
}

/* ---- node clusters (ldem/sim/node_clusters.h) ---- */

static void assert_same_hits(const ldem_hits *x, const ldem_hits *y, const char *what)
{
    cr_assert_eq(x->count, y->count, "%s: %zu hits with, %zu without", what,
                 x->count, y->count);
    for (size_t k = 0; k < x->count; k++) {
        const ldem_node_hit *a = &x->hit[k], *b = &y->hit[k];
        cr_assert(a->key == b->key && a->depth == b->depth && a->area == b->area &&
                      ldem_vec3_dist(a->point, b->point) == 0.0 &&
                      ldem_vec3_dist(a->normal, b->normal) == 0.0,
                  "%s: hit %zu differs", what, k);
    }
}

/* The narrow phase with clusters finds exactly the hits of the plain loop, in the same
 * order, for rigid grains and for displaced nodes within the slack: walking the node
 * tree with the band slopes' φ bound, and over the flat clusters. */
Test(narrowphase, clusters_change_no_hit)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    uint32_t big = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    uint32_t small = wf_add_ls_sphere_shape(&w, 0.7, 0.04, 3);
    ldem_node_clusters cb, cs;
    ldem_err err;
    cr_assert_eq(ldem_node_clusters_build(&w.shapes[big].nodes, &cb, &err), LDEM_OK);
    cr_assert_eq(ldem_node_clusters_build(&w.shapes[small].nodes, &cs, &err), LDEM_OK);
    /* displaced nodes of the big grain: each moved by less than the slack */
    const ldem_nodes *nd = &w.shapes[big].nodes;
    const double slack = 0.04;
    double *moved = malloc(3 * nd->count * sizeof *moved);
    uint64_t rng = 77;
    for (uint64_t k = 0; k < nd->count; k++) {
        ldem_vec3 d = ldem_vec3_scale(random_direction(&rng), slack * uniform(&rng));
        moved[3 * k] = nd->position[3 * k] + d.x;
        moved[3 * k + 1] = nd->position[3 * k + 1] + d.y;
        moved[3 * k + 2] = nd->position[3 * k + 2] + d.z;
    }
    /* the same clusters without their tree: the flat walk over every cluster */
    ldem_node_clusters fb = cb, fs = cs;
    fb.tree = fs.tree = NULL;
    fb.tree_count = fs.tree_count = 0;
    ldem_lset_band_slopes bands_big, bands_small;
    ldem_lset_band_slopes_build(&w.shapes[big].lset, &bands_big);
    ldem_lset_band_slopes_build(&w.shapes[small].lset, &bands_small);
    ldem_hits with = {0}, without = {0}, flat = {0};
    size_t total = 0;
    for (int pose = 0; pose < 40; pose++) {
        int displaced = pose % 2;
        /* half the poses barely touching, where the tree prunes most */
        double overlap = (pose % 4 < 2 ? 0.3 : 0.01) * uniform(&rng);
        ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
        ldem_vec3 xb = ldem_vec3_axpy(1.7 - overlap, random_direction(&rng), xa);
        ldem_ls_grain a = grain_of(&w, big, xa, random_rotation(&rng));
        ldem_ls_grain b = grain_of(&w, small, xb, random_rotation(&rng));
        if (displaced)
            a.position = moved;
        ldem_ls_grain ac = a, bc = b;
        ac.clusters = &cb;
        ac.slack = displaced ? slack : 0.0;
        ac.band_slopes = &bands_big;
        bc.clusters = &cs;
        bc.band_slopes = &bands_small;
        ldem_ls_grain af = ac, bf = bc;
        af.clusters = &fb;
        bf.clusters = &fs;
        cr_assert_eq(ldem_ls_pair_hits(&ac, &bc, &with, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_ls_pair_hits(&a, &b, &without, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_ls_pair_hits(&af, &bf, &flat, &err), LDEM_OK, "%s", err.msg);
        assert_same_hits(&with, &without, "pair");
        assert_same_hits(&flat, &without, "pair, flat clusters");
        total += with.count;
        cr_assert_eq(ldem_ls_sphere_hits(&ac, xb, 0.7, &with, &err), LDEM_OK);
        cr_assert_eq(ldem_ls_sphere_hits(&a, xb, 0.7, &without, &err), LDEM_OK);
        cr_assert_eq(ldem_ls_sphere_hits(&af, xb, 0.7, &flat, &err), LDEM_OK);
        assert_same_hits(&with, &without, "sphere");
        assert_same_hits(&flat, &without, "sphere, flat clusters");
        total += with.count;
        ldem_vec3 n = random_direction(&rng), across = random_direction(&rng);
        ldem_vec3 axis = ldem_vec3_normalize(ldem_vec3_cross(n, across));
        ldem_vec3 e = ldem_vec3_normalize(ldem_vec3_cross(axis, n));
        ldem_wall_geom walls[3] = {
            {LDEM_WALL_PLANE, ldem_vec3_axpy(-(1.0 - overlap), n, xa), n, 0.0, 0},
            {LDEM_WALL_CYLINDER, ldem_vec3_axpy(1.3 - overlap, e, xa), axis, 0.3, 0},
            {LDEM_WALL_CYLINDER, ldem_vec3_axpy(0.5, e, xa), axis, 1.5 - overlap, 1},
        };
        for (int k = 0; k < 3; k++) {
            cr_assert_eq(ldem_ls_wall_hits(&ac, &walls[k], &with, &err), LDEM_OK);
            cr_assert_eq(ldem_ls_wall_hits(&a, &walls[k], &without, &err), LDEM_OK);
            cr_assert_eq(ldem_ls_wall_hits(&af, &walls[k], &flat, &err), LDEM_OK);
            assert_same_hits(&with, &without, "wall");
            assert_same_hits(&flat, &without, "wall, flat clusters");
            total += with.count;
        }
    }
    cr_log_info("clusters: %zu hits over 40 poses, identical to the plain loop with the "
                "tree and without", total);
    cr_assert_gt(total, 2000u, "the poses must produce hits to compare");
    ldem_hits_free(&with);
    ldem_hits_free(&without);
    ldem_hits_free(&flat);
    free(moved);
    ldem_node_clusters_free(&cb);
    ldem_node_clusters_free(&cs);
    ldem_world_free(&w);
}

/* A deformed grain posed as demrun poses it: nodes deformed on demand, the bounding radius
 * and the clusters' slack grown by the largest node displacement. */
static ldem_ls_grain deformed_grain(const ldem_world *w, uint32_t shape, ldem_vec3 x, ldem_quat q,
                                    const double *eps, const ldem_node_clusters *clusters)
{
    const ldem_shape *sh = &w->shapes[shape];
    ldem_ls_grain g = grain_of(w, shape, x, q);
    g.modes = sh->modes;
    g.eps = eps;
    g.clusters = clusters;
    g.slack = fabs(eps[0]) * sh->modes->node_max[0] * (1.0 + 1e-12);
    g.radius += g.slack;
    return g;
}

/* The remap filter (a node whose rigid φ0 is above what the remap can take from it,
 * ldem_levelset_remap_reach_max and _drop, is not inside the deformed grain) skips remaps
 * only, and so does the node tree's φ bound through it: hits with them equal hits without
 * them (no band slopes, no filter), bit for bit, for
 * pairs of deformed grains in either role, compressed or stretched. */
Test(narrowphase, remap_filter_changes_no_hit, .timeout = 60)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_LINEAR);
    uint32_t big = wf_add_ls_sphere_shape(&w, 1.0, 0.05, 3);
    uint32_t small = wf_add_ls_sphere_shape(&w, 0.7, 0.04, 3);
    const double squash[3][3] = {{-1.0, 0.0, 0.0}, {0.0, 0.3, 0.0}, {0.0, 0.0, 0.3}};
    const double shear[3][3] = {{0.2, 0.5, 0.0}, {0.5, -0.4, 0.1}, {0.0, 0.1, 0.2}};
    wf_give_affine_mode(&w, big, squash, 1.0, 1.0, NULL);
    wf_give_affine_mode(&w, small, shear, 1.0, 1.0, NULL);
    ldem_node_clusters cb, cs;
    ldem_err err;
    cr_assert_eq(ldem_node_clusters_build(&w.shapes[big].nodes, &cb, &err), LDEM_OK);
    cr_assert_eq(ldem_node_clusters_build(&w.shapes[small].nodes, &cs, &err), LDEM_OK);
    ldem_lset_slopes sl_big, sl_small;
    cr_assert_eq(ldem_lset_slopes_build(&w.shapes[big].lset, &sl_big, &err), LDEM_OK);
    cr_assert_eq(ldem_lset_slopes_build(&w.shapes[small].lset, &sl_small, &err), LDEM_OK);
    ldem_lset_band_slopes bands_big, bands_small;
    ldem_lset_band_slopes_build(&w.shapes[big].lset, &bands_big);
    ldem_lset_band_slopes_build(&w.shapes[small].lset, &bands_small);
    ldem_hits with = {0}, without = {0};
    size_t total = 0;
    uint64_t rng = 91;
    for (int pose = 0; pose < 40; pose++) {
        /* every other pose iterates the pull back, whose bound covers the neighbour blocks */
        uint32_t pullback = pose % 2 ? 3 : 1;
        w.shapes[big].modes->pullback = w.shapes[small].modes->pullback = pullback;
        double ea[1] = {0.3 * uniform(&rng) - 0.15}, eb[1] = {0.3 * uniform(&rng) - 0.15};
        double overlap = 0.25 * uniform(&rng);
        ldem_vec3 xa = ldem_vec3_make(uniform(&rng), uniform(&rng), uniform(&rng));
        ldem_vec3 xb = ldem_vec3_axpy(1.7 - overlap, random_direction(&rng), xa);
        ldem_ls_grain a = deformed_grain(&w, big, xa, random_rotation(&rng), ea, &cb);
        ldem_ls_grain b = deformed_grain(&w, small, xb, random_rotation(&rng), eb, &cs);
        ldem_ls_grain af = a, bf = b;
        af.slopes = &sl_big;
        bf.slopes = &sl_small;
        /* the tree's φ bound goes through the filter's reach on a deformed grain */
        af.band_slopes = &bands_big;
        bf.band_slopes = &bands_small;
        cr_assert_eq(ldem_ls_pair_hits(&af, &bf, &with, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_ls_pair_hits(&a, &b, &without, &err), LDEM_OK, "%s", err.msg);
        assert_same_hits(&with, &without, "deformed pair");
        total += with.count;
        /* one rigid, one deformed: the filter acts on the deformed side only */
        ldem_ls_grain rigid = grain_of(&w, small, xb, b.q);
        rigid.clusters = &cs;
        ldem_ls_grain rigid_plain = rigid;
        rigid.band_slopes = &bands_small;
        cr_assert_eq(ldem_ls_pair_hits(&af, &rigid, &with, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_ls_pair_hits(&a, &rigid_plain, &without, &err), LDEM_OK, "%s", err.msg);
        assert_same_hits(&with, &without, "deformed and rigid");
        total += with.count;
    }
    cr_log_info("remap filter: %zu hits over 40 poses (20 with 3 pull back steps), identical "
                "without it", total);
    ldem_lset_slopes_free(&sl_big);
    ldem_lset_slopes_free(&sl_small);
    cr_assert_gt(total, 2000u, "the poses must produce hits to compare");
    ldem_hits_free(&with);
    ldem_hits_free(&without);
    ldem_node_clusters_free(&cb);
    ldem_node_clusters_free(&cs);
    ldem_world_free(&w);
}
