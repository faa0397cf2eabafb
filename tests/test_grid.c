/* Trilinear level-set sampling: exact on trilinear fields, gradient of the interpolant,
 * clamping outside the grid. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "ldem/grid.h"

/* A trilinear polynomial: interpolation must reproduce it exactly (up to float storage,
 * avoided by choosing values exactly representable in float32). */
static double tri_field(double x, double y, double z)
{
    return 0.5 + 2.0 * x - 1.0 * y + 0.25 * z + 0.5 * x * y - 0.125 * y * z + 0.0625 * x * y * z;
}

static ldem_lset make_grid(void)
{
    ldem_lset ls = {.dims = {5, 4, 6}, .origin = {-1.0, 0.5, 2.0}, .spacing = {0.5, 0.25, 1.0}};
    ls.phi = malloc(5 * 4 * 6 * sizeof(float));
    for (uint32_t k = 0; k < 6; k++)
        for (uint32_t j = 0; j < 4; j++)
            for (uint32_t i = 0; i < 5; i++) {
                ldem_vec3 p = ldem_lset_node(&ls, i, j, k);
                ls.phi[i + 5 * (j + 4 * k)] = (float)tri_field(p.x, p.y, p.z);
            }
    return ls;
}

Test(grid, reproduces_trilinear_fields_and_their_gradient)
{
    ldem_lset ls = make_grid();
    for (int s = 0; s < 200; s++) {
        double x = -1.0 + 2.0 * (s % 7) / 6.3 + 0.01 * s / 200.0;
        double y = 0.5 + 0.75 * ((s * 3) % 11) / 10.5;
        double z = 2.0 + 5.0 * ((s * 5) % 13) / 12.7;
        double phi;
        ldem_vec3 g;
        int inside = ldem_lset_sample(&ls, ldem_vec3_make(x, y, z), &phi, &g);
        cr_assert(inside);
        /* Node values were rounded to float: allow that rounding, nothing more. */
        cr_assert(fabs(phi - tri_field(x, y, z)) < 2e-6, "phi %g vs %g", phi, tri_field(x, y, z));
        double gx = 2.0 + 0.5 * y + 0.0625 * y * z;
        double gy = -1.0 + 0.5 * x - 0.125 * z + 0.0625 * x * z;
        double gz = 0.25 - 0.125 * y + 0.0625 * x * y;
        cr_assert(fabs(g.x - gx) < 2e-5 && fabs(g.y - gy) < 2e-5 && fabs(g.z - gz) < 2e-5,
                  "grad (%g %g %g) vs (%g %g %g)", g.x, g.y, g.z, gx, gy, gz);
    }
    ldem_lset_free(&ls);
}

Test(grid, nodes_are_hit_exactly)
{
    ldem_lset ls = make_grid();
    for (uint32_t k = 0; k < 6; k++)
        for (uint32_t i = 0; i < 5; i++) {
            double phi;
            ldem_lset_sample(&ls, ldem_lset_node(&ls, i, 2, k), &phi, NULL);
            cr_assert_eq(phi, (double)ls.phi[i + 5 * (2 + 4 * k)]);
        }
    ldem_lset_free(&ls);
}

Test(grid, outside_points_are_clamped_and_flagged)
{
    ldem_lset ls = make_grid();
    double phi, edge;
    cr_assert_not(ldem_lset_sample(&ls, ldem_vec3_make(-3.0, 0.75, 3.0), &phi, NULL));
    ldem_lset_sample(&ls, ldem_vec3_make(-1.0, 0.75, 3.0), &edge, NULL);
    cr_assert_eq(phi, edge, "clamped to the x = origin face");
    cr_assert_not(ldem_lset_sample(&ls, ldem_vec3_make(0.0, 0.75, 1e9), &phi, NULL));
    cr_assert_not(ldem_lset_sample(&ls, ldem_vec3_make(NAN, 0.75, 3.0), &phi, NULL));
    cr_assert(isfinite(phi));
    cr_assert(ldem_lset_sample(&ls, ldem_vec3_make(1.0, 1.25, 7.0), &phi, NULL),
              "the far corner is inside");
    ldem_lset_free(&ls);
}

/* ldem_lset_lipschitz: each constant is the steepest grid edge along its axis (read here
 * through the sampler at the nodes), and it bounds the change of the interpolant between
 * any two points, inside the box or clamped outside it. */
Test(grid, lipschitz_constants_bound_every_change)
{
    ldem_lset ls = make_grid();
    double lip[3];
    ldem_lset_lipschitz(&ls, lip);
    double steepest[3] = {0.0, 0.0, 0.0};
    for (uint32_t k = 0; k < 6; k++)
        for (uint32_t j = 0; j < 4; j++)
            for (uint32_t i = 0; i < 5; i++) {
                uint32_t at[3] = {i, j, k}, n[3] = {5, 4, 6};
                double here;
                ldem_lset_sample(&ls, ldem_lset_node(&ls, i, j, k), &here, NULL);
                for (int a = 0; a < 3; a++) {
                    if (at[a] + 1 >= n[a])
                        continue;
                    uint32_t next[3] = {i, j, k};
                    next[a]++;
                    double there;
                    ldem_lset_sample(&ls, ldem_lset_node(&ls, next[0], next[1], next[2]), &there,
                                     NULL);
                    steepest[a] = fmax(steepest[a], fabs(there - here) / ls.spacing[a]);
                }
            }
    for (int a = 0; a < 3; a++)
        cr_assert(fabs(lip[a] - steepest[a]) <= 1e-15 * steepest[a], "axis %d: %.17g vs %.17g", a,
                  lip[a], steepest[a]);
    uint64_t state = 5;
    double tightest = INFINITY;
    for (int trial = 0; trial < 20000; trial++) {
        double c[6];
        for (int t = 0; t < 6; t++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            c[t] = (double)(state >> 11) * 0x1.0p-53; /* [0, 1) */
        }
        /* the box is [-1, 1] x [0.5, 1.25] x [2, 7]; draw from a box 40 % larger */
        ldem_vec3 x = ldem_vec3_make(-1.4 + 2.8 * c[0], 0.35 + 1.05 * c[1], 1.0 + 7.0 * c[2]);
        ldem_vec3 y = trial % 2
                          ? ldem_vec3_make(-1.4 + 2.8 * c[3], 0.35 + 1.05 * c[4], 1.0 + 7.0 * c[5])
                          : ldem_vec3_add(x, ldem_vec3_make(0.1 * c[3], -0.05 * c[4], 0.2 * c[5]));
        double fx, fy;
        ldem_lset_sample(&ls, x, &fx, NULL);
        ldem_lset_sample(&ls, y, &fy, NULL);
        double bound =
            lip[0] * fabs(x.x - y.x) + lip[1] * fabs(x.y - y.y) + lip[2] * fabs(x.z - y.z);
        cr_assert(fabs(fx - fy) <= bound * (1.0 + 1e-12) + 1e-14,
                  "trial %d: change %.17g above the bound %.17g", trial, fabs(fx - fy), bound);
        if (fabs(fx - fy) > 1e-9)
            tightest = fmin(tightest, bound / fabs(fx - fy));
    }
    cr_log_info("lipschitz (%.4f, %.4f, %.4f): tightest bound/change %.3f", lip[0], lip[1], lip[2],
                tightest);
    ldem_lset_free(&ls);
}

/* A signed distance stored on a grid is 1-Lipschitz along each axis (to float rounding),
 * and nearly so at its steepest. */
Test(grid, lipschitz_of_a_signed_distance_is_one)
{
    ldem_lset ls = {
        .dims = {25, 25, 25}, .origin = {-3.0, -3.0, -3.0}, .spacing = {0.25, 0.25, 0.25}};
    ls.phi = malloc(25 * 25 * 25 * sizeof(float));
    for (uint32_t k = 0; k < 25; k++)
        for (uint32_t j = 0; j < 25; j++)
            for (uint32_t i = 0; i < 25; i++)
                ls.phi[i + 25 * (j + 25 * k)] =
                    (float)(ldem_vec3_norm(ldem_lset_node(&ls, i, j, k)) - 2.0);
    double lip[3];
    ldem_lset_lipschitz(&ls, lip);
    for (int a = 0; a < 3; a++)
        cr_assert(lip[a] > 0.99 && lip[a] <= 1.0 + 1e-6, "axis %d: %.9g", a, lip[a]);
    ldem_lset_free(&ls);
}

/* Signed distances of a sphere (radius 2) and of a cube (half side 1.5, whose medial axis
 * reaches its edges) on a grid of spacing 0.25 around them. */
static ldem_lset distance_grid(int cube)
{
    ldem_lset ls = {
        .dims = {25, 25, 25}, .origin = {-3.0, -3.0, -3.0}, .spacing = {0.25, 0.25, 0.25}};
    ls.phi = malloc(25 * 25 * 25 * sizeof(float));
    for (uint32_t k = 0; k < 25; k++)
        for (uint32_t j = 0; j < 25; j++)
            for (uint32_t i = 0; i < 25; i++) {
                ldem_vec3 p = ldem_lset_node(&ls, i, j, k);
                double d;
                if (!cube) {
                    d = ldem_vec3_norm(p) - 2.0;
                } else {
                    ldem_vec3 q = ldem_vec3_make(fabs(p.x) - 1.5, fabs(p.y) - 1.5, fabs(p.z) - 1.5);
                    ldem_vec3 out = ldem_vec3_make(fmax(q.x, 0), fmax(q.y, 0), fmax(q.z, 0));
                    d = ldem_vec3_norm(out) + fmin(fmax(q.x, fmax(q.y, q.z)), 0.0);
                }
                ls.phi[i + 25 * (j + 25 * k)] = (float)d;
            }
    return ls;
}

static double uniform01(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1.0p-53;
}

/* The band slopes' bound (ldem_lset_ball_floor) holds: over random balls around both
 * surfaces, a ball it clears for t ≥ 0 has no sampled point at or below t, its nearest
 * point to the surface included (an independent brute-force minimum of the interpolant).
 * Near a sphere's surface the slope is about 1 (1 + h/R at most) where the per-axis
 * Lipschitz bound gives √3; the bound prunes most balls that are truly clear. */
Test(grid, band_slopes_bound_phi_over_a_ball)
{
    for (int cube = 0; cube < 2; cube++) {
        ldem_lset ls = distance_grid(cube);
        ldem_lset_band_slopes s;
        ldem_lset_band_slopes_build(&ls, &s);
        cr_assert_eq(s.count, LDEM_LSET_BANDS);
        cr_assert(isinf(s.band[s.count - 1]));
        for (int b = 1; b < s.count; b++)
            cr_assert(s.band[b] > s.band[b - 1] && s.slope[b] >= s.slope[b - 1]);
        /* a cell's edges see the normal turn by about h/R: slopes within 1 + h/R */
        if (!cube)
            cr_assert(s.slope[0] > 0.99 && s.slope[2] < 1.0 + 0.25 / 2.0, "sphere: slopes %g, %g",
                      s.slope[0], s.slope[2]);
        uint64_t rng = 17 + (uint64_t)cube;
        int cleared = 0, truly_clear = 0;
        for (int trial = 0; trial < 4000; trial++) {
            double t = trial % 3 ? 0.0 : 0.1 * uniform01(&rng);
            double rho = 0.05 + 0.6 * uniform01(&rng);
            ldem_vec3 q = ldem_vec3_make(6.0 * uniform01(&rng) - 3.0, 6.0 * uniform01(&rng) - 3.0,
                                         6.0 * uniform01(&rng) - 3.0);
            double phi_q;
            ldem_vec3 g;
            ldem_lset_sample(&ls, q, &phi_q, &g);
            if (fabs(phi_q) > 1.5)
                continue; /* keep to the surfaces */
            double floor = ldem_lset_ball_floor(&s, phi_q, rho);
            /* the interpolant's least value over the ball, sampled */
            double least = INFINITY;
            ldem_vec3 down = ldem_vec3_norm(g) > 0 ? ldem_vec3_scale(g, -1.0 / ldem_vec3_norm(g))
                                                  : ldem_vec3_make(0, 0, 1);
            for (int k = 0; k <= 400; k++) {
                ldem_vec3 d;
                if (k == 0) {
                    d = down;
                } else {
                    d = ldem_vec3_make(2 * uniform01(&rng) - 1, 2 * uniform01(&rng) - 1,
                                       2 * uniform01(&rng) - 1);
                    if (ldem_vec3_norm(d) > 1.0 || ldem_vec3_norm(d) == 0.0)
                        continue;
                    if (k % 2)
                        d = ldem_vec3_normalize(d); /* on the sphere */
                }
                double v;
                ldem_lset_sample(&ls, ldem_vec3_axpy(rho, d, q), &v, NULL);
                least = fmin(least, v);
            }
            if (floor > t) {
                cleared++;
                cr_assert(least > t, "%s: ball (%g, %g, %g) r %g cleared for t %g (floor %g) "
                          "holds phi %g", cube ? "cube" : "sphere", q.x, q.y, q.z, rho, t, floor,
                          least);
            }
            if (least > t + 0.2 * rho)
                truly_clear++;
        }
        cr_log_info("%s: band slopes %.4f (band %.3f) .. %.4f; %d balls cleared of %d clear "
                    "by a margin of 0.2 r", cube ? "cube" : "sphere", s.slope[0], s.band[0],
                    s.slope[s.count - 1], cleared, truly_clear);
        cr_assert_gt(cleared, truly_clear / 2, "the bound must prune most clear balls");
        ldem_lset_free(&ls);
    }
}
