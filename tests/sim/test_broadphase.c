/* Unit tests of ldem/sim/broadphase.h: the cell-list pair search against an O(n²) brute force
 * (every pair i < j tested with the documented predicate), with exact equality of the sorted
 * pair lists. Sets: random polydisperse clouds (radii 0.5–1.5) from 2 to 3000 bodies, dense
 * and sparse, a far outlier, all bodies in one point, coordinates beyond the cell-coordinate
 * clamp, lattices whose gaps sit exactly on the skin boundary, n = 0 and 1; the skin boundary
 * itself (exact distance excluded, one ulp inside included); bad input refused; the rebuild
 * time for 4096 bodies. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ldem/sim/broadphase.h"
#include "../support/test_rng.h"

static const double PI = 3.14159265358979323846;

typedef struct pairs {
    size_t n, cap;
    uint64_t *key;
} pairs;

/* Brute force: every i < j, in order, so the list is born sorted. The predicate is the one
 * broadphase.h documents, written out here. */
static pairs brute_force(size_t n, const ldem_vec3 *x, const double *r, double skin)
{
    pairs p = {0, 16, malloc(16 * sizeof(uint64_t))};
    cr_assert(p.key);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double dx = x[j].x - x[i].x, dy = x[j].y - x[i].y, dz = x[j].z - x[i].z;
            double reach = (r[i] + r[j]) + skin;
            if ((dx * dx + dy * dy) + dz * dz < reach * reach) {
                if (p.n == p.cap) {
                    p.cap *= 2;
                    p.key = realloc(p.key, p.cap * sizeof *p.key);
                    cr_assert(p.key);
                }
                p.key[p.n++] = (uint64_t)i << 32 | j;
            }
        }
    return p;
}

/* Run the broad phase and require the brute force's list exactly. */
static void check_against_brute_force(ldem_broadphase *bp, size_t n, const ldem_vec3 *x,
                                      const double *r, double skin, const char *what)
{
    ldem_err err;
    cr_assert_eq(ldem_broadphase_pairs(bp, n, x, r, skin, &err), LDEM_OK, "%s: %s", what, err.msg);
    pairs want = brute_force(n, x, r, skin);
    cr_assert_eq(bp->npairs, want.n, "%s: %zu pairs, brute force %zu", what, bp->npairs, want.n);
    for (size_t k = 0; k < want.n; k++)
        cr_assert_eq(bp->pairs[k], want.key[k], "%s: pair %zu is (%u, %u), brute force (%u, %u)",
                     what, k, ldem_pair_i(bp->pairs[k]), ldem_pair_j(bp->pairs[k]),
                     ldem_pair_i(want.key[k]), ldem_pair_j(want.key[k]));
    free(want.key);
}

/* n bodies, radii uniform in [0.5, 1.5], uniform in a cube whose volume is the spheres'
 * total volume divided by `fill` (fill 0.6 ≈ a dense packing; overlaps allowed). */
static void random_cloud(size_t n, double fill, ldem_vec3 *x, double *r)
{
    double volume = 0;
    for (size_t i = 0; i < n; i++) {
        r[i] = rng_uniform(0.5, 1.5);
        volume += 4.0 / 3.0 * PI * r[i] * r[i] * r[i];
    }
    double side = cbrt(volume / fill);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_point(ldem_vec3_make(0, 0, 0), ldem_vec3_make(side, side, side));
}

Test(broadphase, random_polydisperse_sets)
{
    const size_t sizes[] = {2, 3, 10, 57, 300, 1000, 3000};
    const double fills[] = {0.6, 0.05, 1e-4};
    const double skins[] = {0.0, 0.1, 0.7};
    ldem_broadphase bp = {0};
    rng_seed(1);
    size_t total_pairs = 0, hashed_runs = 0;
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof fills / sizeof *fills; b++) {
            size_t n = sizes[a];
            ldem_vec3 *x = malloc(n * sizeof *x);
            double *r = malloc(n * sizeof *r);
            cr_assert(x && r);
            random_cloud(n, fills[b], x, r);
            for (size_t c = 0; c < sizeof skins / sizeof *skins; c++) {
                char what[96];
                snprintf(what, sizeof what, "n %zu fill %g skin %g", n, fills[b], skins[c]);
                check_against_brute_force(&bp, n, x, r, skins[c], what);
                total_pairs += bp.npairs;
                hashed_runs += (size_t)bp.hashed;
            }
            free(x);
            free(r);
        }
    /* The sets must exercise something: many pairs overall, and both grid kinds. */
    cr_assert_gt(total_pairs, 10000);
    cr_assert_gt(hashed_runs, 0);
    cr_assert_lt(hashed_runs, 63);
    ldem_broadphase_free(&bp);
}

/* Pairs of the largest bodies at just under the largest reach, at random places and in random
 * (half of them axis-aligned) directions: whatever the grid's phase, two cells apart must
 * never happen. Catches cells even slightly smaller than the reach. */
Test(broadphase, pairs_at_the_largest_reach)
{
    size_t npairs = 3000, n = 2 * npairs;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    rng_seed(17);
    const double skin = 0.1, reach = (1.5 + 1.5) + skin;
    for (size_t k = 0; k < npairs; k++) {
        ldem_vec3 u;
        if (k % 2) {
            u = ldem_vec3_make(0, 0, 0);
            double *c = k % 6 == 1 ? &u.x : k % 6 == 3 ? &u.y : &u.z;
            *c = k % 4 == 1 ? 1.0 : -1.0;
        } else {
            double z = rng_uniform(-1, 1), phi = rng_uniform(0, 2 * PI), s = sqrt(1 - z * z);
            u = ldem_vec3_make(s * cos(phi), s * sin(phi), z);
        }
        x[2 * k] = rng_point(ldem_vec3_make(0, 0, 0), ldem_vec3_make(400, 400, 400));
        x[2 * k + 1] = ldem_vec3_add(x[2 * k], ldem_vec3_scale(u, reach * (1 - 1e-12)));
        r[2 * k] = r[2 * k + 1] = 1.5;
    }
    ldem_broadphase bp = {0};
    check_against_brute_force(&bp, n, x, r, skin, "pairs at the largest reach");
    cr_assert_geq(bp.npairs, npairs);
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}

/* One body a billion units away: the grid is hashed (not 10^27 cells) and still exact. */
Test(broadphase, far_outlier)
{
    size_t n = 2001;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    rng_seed(7);
    random_cloud(n - 1, 0.5, x, r);
    x[n - 1] = ldem_vec3_make(1e9, -3e9, 2e9);
    r[n - 1] = 1.0;
    ldem_broadphase bp = {0};
    check_against_brute_force(&bp, n, x, r, 0.2, "far outlier");
    cr_assert(bp.hashed);
    cr_assert_leq(bp.cells_capacity, 8 * n + 1, "%zu cells for %zu bodies", bp.cells_capacity, n);
    /* A partner for the outlier too: the same check with a neighbour next to it. */
    x[0] = ldem_vec3_make(1e9 + 1.5, -3e9, 2e9);
    check_against_brute_force(&bp, n, x, r, 0.2, "far outlier with a neighbour");
    int found = 0;
    for (size_t k = 0; k < bp.npairs; k++)
        found |= bp.pairs[k] == ldem_pair_key(0, (uint32_t)(n - 1));
    cr_assert(found, "the pair (0, outlier) at distance 1.5 < 2.2 is missing");
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}

/* Coordinates so far apart that cell coordinates exceed the clamp (2^40 cells): a cluster
 * near +1e15 and another near −1e15. */
Test(broadphase, coordinates_beyond_the_clamp)
{
    size_t n = 600;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    rng_seed(11);
    random_cloud(n, 0.5, x, r);
    for (size_t i = 0; i < n; i++)
        x[i].x += i % 2 ? 1e15 : -1e15;
    ldem_broadphase bp = {0};
    check_against_brute_force(&bp, n, x, r, 0.3, "two far clusters");
    cr_assert_gt(bp.npairs, 100);
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}

Test(broadphase, all_bodies_in_one_point)
{
    size_t n = 3000;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    rng_seed(3);
    for (size_t i = 0; i < n; i++) {
        x[i] = ldem_vec3_make(-4.25, 17.0, 0.125);
        r[i] = rng_uniform(0.5, 1.5);
    }
    ldem_broadphase bp = {0};
    check_against_brute_force(&bp, n, x, r, 0.1, "one point");
    cr_assert_eq(bp.npairs, n * (n - 1) / 2);
    /* Zero radii and zero skin: nothing is strictly closer than 0. */
    for (size_t i = 0; i < n; i++)
        r[i] = 0;
    check_against_brute_force(&bp, n, x, r, 0.0, "one point, zero reach");
    cr_assert_eq(bp.npairs, 0);
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}

Test(broadphase, zero_and_one_body)
{
    ldem_broadphase bp = {0};
    ldem_err err;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 0, NULL, NULL, 0.1, &err), LDEM_OK);
    cr_assert_eq(bp.npairs, 0);
    ldem_vec3 x = ldem_vec3_make(1, 2, 3);
    double r = 1;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 1, &x, &r, 0.1, &err), LDEM_OK);
    cr_assert_eq(bp.npairs, 0);
    ldem_broadphase_free(&bp);
}

/* Two unit spheres, skin 0.5: at distance exactly 2.5 along each axis, and along a diagonal
 * (1.5, 2, 0) whose squared length is exactly 6.25, the pair is out; one ulp closer (axes) or
 * with the reach one ulp longer (all four), it is in. */
Test(broadphase, skin_boundary)
{
    ldem_broadphase bp = {0};
    ldem_err err;
    double r[2] = {1.0, 1.0};
    const double skin_out = 0.5, skin_in = nextafter(2.5, 3.0) - 2.0; /* exact difference */
    cr_assert_gt((r[0] + r[1]) + skin_in, 2.5);
    for (int axis = 0; axis < 4; axis++) {
        for (int variant = 0; variant < 3; variant++) {
            /* variant 0: at the reach; 1: one ulp closer (axes only); 2: reach one ulp longer */
            if (variant == 1 && axis == 3)
                continue;
            ldem_vec3 x[2] = {ldem_vec3_make(0.25, -3.0, 0.5), ldem_vec3_make(0.25, -3.0, 0.5)};
            double d = variant == 1 ? nextafter(2.5, 0.0) : 2.5;
            /* sums and differences exact: 0.25, −3, 0.5 plus 2.5 or 2.5 − 2^-51 */
            if (axis == 0)
                x[1].x += d;
            else if (axis == 1)
                x[1].y += d;
            else if (axis == 2)
                x[1].z += d;
            else
                x[1].x += 1.5, x[1].y += 2.0;
            cr_assert_eq(
                ldem_broadphase_pairs(&bp, 2, x, r, variant == 2 ? skin_in : skin_out, &err),
                LDEM_OK);
            size_t want = variant ? 1 : 0;
            cr_assert_eq(bp.npairs, want, "axis %d variant %d: %zu pairs", axis, variant,
                         bp.npairs);
            if (want)
                cr_assert_eq(bp.pairs[0], ldem_pair_key(0, 1));
        }
    }
    ldem_broadphase_free(&bp);
}

/* Lattices of spacing 2.5 whose nearest-neighbour gap is exactly the reach r_i + r_j + skin
 * (excluded everywhere) or, with the skin one ulp larger, just inside (included everywhere):
 * many pairs exactly on the boundary, and bodies exactly on cell faces. */
Test(broadphase, lattice_on_the_boundary)
{
    const int m = 12;
    size_t n = (size_t)m * m * m;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    ldem_broadphase bp = {0};
    for (int k = 0; k < m; k++)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) {
                size_t b = (size_t)i + (size_t)m * ((size_t)j + (size_t)m * (size_t)k);
                x[b] = ldem_vec3_make(i * 2.5, j * 2.5, k * 2.5); /* exact */
                r[b] = 1.0;
            }
    const double skins[2] = {0.5, nextafter(2.5, 3.0) - 2.0}; /* reach 2.5, 2.5 + ulp */
    for (int s = 0; s < 2; s++) {
        check_against_brute_force(&bp, n, x, r, skins[s],
                                  s ? "lattice inside" : "lattice at reach");
        /* At the reach: no pairs. Just inside: the 3 m²(m−1) lattice edges (diagonals are
         * √2·2.5 apart, far out). */
        cr_assert_eq(bp.npairs, s ? (size_t)3 * m * m * (m - 1) : 0u);
    }
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}

/* The workspace is reused across calls of different sizes and kinds. */
Test(broadphase, workspace_reuse)
{
    ldem_broadphase bp = {0};
    const size_t sizes[] = {2000, 5, 800, 2500, 1};
    rng_seed(5);
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++) {
        size_t n = sizes[a];
        ldem_vec3 *x = malloc(n * sizeof *x);
        double *r = malloc(n * sizeof *r);
        cr_assert(x && r);
        random_cloud(n, a % 2 ? 1e-3 : 0.4, x, r);
        check_against_brute_force(&bp, n, x, r, 0.2, "reuse");
        free(x);
        free(r);
    }
    ldem_broadphase_free(&bp);
}

Test(broadphase, bad_input)
{
    ldem_broadphase bp = {0};
    ldem_err err;
    ldem_vec3 x[3] = {ldem_vec3_make(0, 0, 0), ldem_vec3_make(1, 0, 0), ldem_vec3_make(2, 0, 0)};
    double r[3] = {1, 1, 1};
    x[2].y = NAN;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, 0.1, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "body 2") && strstr(err.msg, "not finite"), "%s", err.msg);
    cr_assert_eq(bp.npairs, 0);
    x[2].y = 0;
    x[1].z = -INFINITY;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, 0.1, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "body 1"), "%s", err.msg);
    x[1].z = 0;
    r[0] = -1;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, 0.1, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "body 0") && strstr(err.msg, "radius"), "%s", err.msg);
    r[0] = NAN;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, 0.1, &err), LDEM_ERR_INPUT);
    r[0] = 1;
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, NAN, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "skin"), "%s", err.msg);
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, -0.5, &err), LDEM_ERR_INPUT);
    /* And the same input, fixed, works. */
    cr_assert_eq(ldem_broadphase_pairs(&bp, 3, x, r, 0.1, &err), LDEM_OK);
    cr_assert_eq(bp.npairs, 3); /* gaps 1, 1, 2, all < 2.1 */
    ldem_broadphase_free(&bp);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 4096 polydisperse bodies on a jittered cubic lattice of spacing 2 (radii 0.5–1.5: a dense,
 * overlapping packing, ~6 partners per body with skin 0.1). Reported in ns per body; the
 * assertion only catches a gross regression (5 µs per body), sanitizer builds included. */
Test(broadphase, rebuild_time_4096)
{
    const int m = 16;
    size_t n = (size_t)m * m * m;
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    cr_assert(x && r);
    rng_seed(13);
    for (int k = 0; k < m; k++)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) {
                size_t b = (size_t)i + (size_t)m * ((size_t)j + (size_t)m * (size_t)k);
                x[b] = ldem_vec3_make(2.0 * i + rng_uniform(-0.1, 0.1),
                                      2.0 * j + rng_uniform(-0.1, 0.1),
                                      2.0 * k + rng_uniform(-0.1, 0.1));
                r[b] = rng_uniform(0.5, 1.5);
            }
    ldem_broadphase bp = {0};
    check_against_brute_force(&bp, n, x, r, 0.1, "lattice 4096");
    ldem_err err;
    const int reps = 50;
    double best = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_seconds();
        cr_assert_eq(ldem_broadphase_pairs(&bp, n, x, r, 0.1, &err), LDEM_OK);
        double t = now_seconds() - t0;
        best = t < best ? t : best;
    }
    double ns_per_body = best * 1e9 / (double)n;
    cr_log_info("broad phase, 4096 bodies, %zu pairs: %.1f us per rebuild, %.1f ns per body "
                "(best of %d)",
                bp.npairs, best * 1e6, ns_per_body, reps);
    fprintf(stderr, "broadphase: 4096 bodies, %zu pairs: %.1f us per rebuild, %.1f ns/body\n",
            bp.npairs, best * 1e6, ns_per_body);
    cr_assert_lt(ns_per_body, 5000.0);
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
}
