/* Unit tests of the deformed-grain level-set queries (ldem/levelset.h):
 *   - remap with ε = 0 (or no modes) is the rigid query bit for bit;
 *   - a sphere's φ (|x| − R on the grid) under an affine stretch Φ(x) = A x: at the deformed
 *     surface nodes the remapped φ is zero within the bound derived below, it is exactly
 *     φ0 at the one-point pullback, its gradient matches finite differences, and the world
 *     query is the body query rotated;
 *   - the analytic beam-bending mode on a cuboid level set: deformed surface nodes read
 *     |φ| below a derived bound;
 *   - the precomputed family: exact inverse-map φ at a sampled amplitude (to float32),
 *     φ0 at ε = 0, an interpolation error between samples that shrinks with more samples,
 *     and its errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "support/test_rng.h"

/* ---- fixtures ---- */

/* A level set on [lo, hi]³-like boxes with φ from a callback at the nodes (float32). */
static void lset_make(ldem_lset *ls, const double lo[3], double h, const uint32_t dims[3],
                      double (*phi)(const double x[3], const void *ctx), const void *ctx)
{
    memset(ls, 0, sizeof *ls);
    for (int a = 0; a < 3; a++) {
        ls->dims[a] = dims[a];
        ls->origin[a] = lo[a];
        ls->spacing[a] = h;
    }
    ls->phi = malloc((size_t)dims[0] * dims[1] * dims[2] * sizeof *ls->phi);
    cr_assert_not_null(ls->phi);
    size_t idx = 0;
    for (uint32_t k = 0; k < dims[2]; k++)
        for (uint32_t j = 0; j < dims[1]; j++)
            for (uint32_t i = 0; i < dims[0]; i++, idx++) {
                ldem_vec3 p = ldem_lset_node(ls, i, j, k);
                double x[3] = {p.x, p.y, p.z};
                ls->phi[idx] = (float)phi(x, ctx);
            }
}

static double sphere_phi(const double x[3], const void *ctx)
{
    double R = *(const double *)ctx;
    return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - R;
}

static double box_phi(const double x[3], const void *ctx)
{
    const double *b = ctx; /* half extents */
    double q[3], out = 0.0, in = -INFINITY;
    for (int a = 0; a < 3; a++) {
        q[a] = fabs(x[a]) - b[a];
        out += q[a] > 0.0 ? q[a] * q[a] : 0.0;
        in = fmax(in, q[a]);
    }
    return sqrt(out) + fmin(in, 0.0);
}

/* The affine stretch Φ(x) = A x, A = diag(A_DIAG), as a MODE grid field. Entries and grid
 * are dyadic, so the float32 field is exact and trilinear interpolation reproduces A x. */
static const double A_DIAG[3] = {0.25, -0.125, -0.125};

typedef struct stretch {
    ldem_modes modes;
    ldem_matrix K, M;
    double k[4], m[4];
    float grid[2 * 17 * 17 * 17 * 3];
    ldem_modeset set;
} stretch;

/* `count` modes, mode a being Φ(x) = diag(diag[a]) x. */
static void stretches_make(stretch *s, uint32_t count, const double diag[][3])
{
    memset(s, 0, sizeof *s);
    const uint32_t n = 17;
    const double lo = -4.0, h = 0.5;
    for (uint32_t a = 0; a < count; a++) {
        size_t idx = (size_t)a * n * n * n;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t i = 0; i < n; i++, idx++) {
                    double x[3] = {lo + i * h, lo + j * h, lo + k * h};
                    for (int c = 0; c < 3; c++)
                        s->grid[3 * idx + c] = (float)(diag[a][c] * x[c]);
                }
    }
    s->modes = (ldem_modes){.count = count,
                            .kind = LDEM_MODE_SAMPLED,
                            .grid_dims = {n, n, n},
                            .grid_origin = {lo, lo, lo},
                            .grid_spacing = {h, h, h},
                            .grid_values = s->grid};
    for (uint32_t a = 0; a < count; a++) {
        s->k[a * (count + 1)] = 1.0;
        s->m[a * (count + 1)] = 1.0;
    }
    s->K = (ldem_matrix){count, s->k};
    s->M = (ldem_matrix){count, s->m};
    ldem_err err = {0};
    cr_assert_eq(ldem_modeset_build(&s->modes, &s->K, &s->M, NULL, NULL, 0, NULL, &s->set, &err),
                 LDEM_OK, "%s", err.msg);
}

static void stretch_make(stretch *s)
{
    const double diag[1][3] = {{A_DIAG[0], A_DIAG[1], A_DIAG[2]}};
    stretches_make(s, 1, diag);
}

static const double SPHERE_R = 2.0;

/* |x| − R on [−3, 3]³ at spacing h. */
static void sphere_lset(ldem_lset *ls, double h)
{
    uint32_t n = (uint32_t)lround(6.0 / h) + 1;
    lset_make(ls, (double[]){-3, -3, -3}, h, (uint32_t[]){n, n, n}, sphere_phi, &SPHERE_R);
}

static ldem_vec3 random_direction(void)
{
    for (;;) {
        ldem_vec3 v = ldem_vec3_make(uniform(), uniform(), uniform());
        double len = ldem_vec3_norm(v);
        if (len > 0.1 && len <= 1.0)
            return ldem_vec3_scale(v, 1.0 / len);
    }
}

static ldem_vec3 stretched(ldem_vec3 x, double eps)
{
    return ldem_vec3_make(x.x * (1 + eps * A_DIAG[0]), x.y * (1 + eps * A_DIAG[1]),
                          x.z * (1 + eps * A_DIAG[2]));
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- remap ---- */

Test(levelset_remap, zero_amplitude_is_the_rigid_query_bit_for_bit)
{
    ldem_lset ls;
    sphere_lset(&ls, 0.25);
    stretch s;
    stretch_make(&s);
    const double zero = 0.0;
    ldem_quat q = ldem_quat_normalize((ldem_quat){0.8, 0.1, -0.3, 0.5});
    ldem_vec3 xc = ldem_vec3_make(0.3, -1.1, 2.0);
    rng_seed(1);
    for (int trial = 0; trial < 500; trial++) {
        /* inside and outside the grid box */
        ldem_vec3 p = ldem_vec3_make(4 * uniform(), 4 * uniform(), 4 * uniform());
        double a, b, c, d;
        ldem_vec3 ga, gb, gc, gd;
        int ra = ldem_lset_sample(&ls, p, &a, &ga);
        int rb = ldem_levelset_sample_remap(&ls, &s.set, &zero, p, &b, &gb);
        int rc = ldem_levelset_sample_remap(&ls, NULL, &zero, p, &c, &gc);
        int rd = ldem_levelset_sample_remap(&ls, &s.set, NULL, p, &d, &gd);
        cr_assert(ra == rb && ra == rc && ra == rd);
        cr_assert(same_bits(a, b) && same_bits(a, c) && same_bits(a, d));
        cr_assert(same_bits(ga.x, gb.x) && same_bits(ga.y, gb.y) && same_bits(ga.z, gb.z));
        cr_assert(same_bits(ga.x, gd.x) && same_bits(ga.y, gd.y) && same_bits(ga.z, gd.z));
        /* world frame */
        ldem_vec3 w = ldem_vec3_add(xc, p);
        int rw = ldem_levelset_query(&ls, xc, q, w, &a, &ga);
        int rr = ldem_levelset_query_remap(&ls, &s.set, &zero, xc, q, w, &b, &gb);
        cr_assert(rw == rr && same_bits(a, b));
        cr_assert(same_bits(ga.x, gb.x) && same_bits(ga.y, gb.y) && same_bits(ga.z, gb.z));
    }
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* Deformed node y = (I + εA) X with |X| = R. The one-point pullback lands at
 * x_ref = y − εA y = (I − ε²A²) X, so the exact φ0 there is |x_ref| − R ∈ [−ε²a²R, 0]
 * (a = max |A_ii|). The stored φ0 is the trilinear interpolant of |x| − R, a convex function,
 * so by Jensen it lies above |x| − R by at most Σ h²/8 · max ∂ii = 3h²/(8 r_min), r_min the
 * smallest radius in the cell (≥ R − ε²a²R − √3 h); float32 rounding of the node values adds
 * at most 2⁻²⁴ · 3 (|φ| ≤ 3 on the grid). Hence
 *   −ε²a²R − 2e-7 ≤ φ ≤ 3h²/(8 r_min) + 2e-7. */
Test(levelset_remap, sphere_under_a_stretch_reads_zero_at_deformed_nodes)
{
    const double h = 0.125, eps = 0.2, a = 0.25;
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretch_make(&s);
    const double pull = eps * eps * a * a * SPHERE_R;
    const double r_min = SPHERE_R - pull - sqrt(3.0) * h;
    const double lower = -pull - 2e-7, upper = 3.0 * h * h / (8.0 * r_min) + 2e-7;
    double lo = INFINITY, hi = -INFINITY, rigid = 0.0, formula = 0.0;
    rng_seed(2);
    for (int trial = 0; trial < 4000; trial++) {
        ldem_vec3 X = ldem_vec3_scale(random_direction(), SPHERE_R);
        ldem_vec3 y = stretched(X, eps);
        double phi, phi_rigid, phi_ref;
        ldem_vec3 g;
        cr_assert_eq(ldem_levelset_sample_remap(&ls, &s.set, &eps, y, &phi, &g), 1);
        lo = fmin(lo, phi);
        hi = fmax(hi, phi);
        ldem_lset_sample(&ls, y, &phi_rigid, NULL);
        rigid = fmax(rigid, fabs(phi_rigid));
        /* the documented formula: φ0 at y − u(y) */
        ldem_vec3 x_ref = ldem_vec3_sub(y, ldem_vec3_sub(stretched(y, eps), y));
        ldem_lset_sample(&ls, x_ref, &phi_ref, NULL);
        formula = fmax(formula, fabs(phi - phi_ref));
    }
    cr_log_info("sphere R=2 h=%g eps*A=%g: remapped phi in [%.3g, %.3g], bound [%.3g, %.3g]; "
                "rigid query %.3g",
                h, eps * a, lo, hi, lower, upper, rigid);
    cr_assert(lo >= lower && hi <= upper,
              "phi at deformed nodes in [%.4g, %.4g], bound [%.4g, %.4g]", lo, hi, lower, upper);
    cr_assert(formula <= 1e-12, "remap differs from phi0(y - u(y)) by %.3g", formula);
    /* without the remap the deformed nodes are far off the zero set: the test discriminates */
    cr_assert(rigid >= 0.05, "rigid query at deformed nodes only %.3g off", rigid);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* Within a cell of φ0 the remapped φ is a polynomial of p (x_ref is affine in p here), so
 * central differences with δ = 1e-6 h agree with the chain-rule gradient to round-off
 * (|φ| ε_machine / δ ≈ 1e-9), provided x_ref ± δ stays in one cell: such points are kept. */
static int one_cell(const ldem_lset *ls, ldem_vec3 x, double d)
{
    double c[3] = {x.x, x.y, x.z};
    for (int a = 0; a < 3; a++)
        if (floor((c[a] - d - ls->origin[a]) / ls->spacing[a]) !=
            floor((c[a] + d - ls->origin[a]) / ls->spacing[a]))
            return 0;
    return 1;
}

/* The largest |g_j − (φ(p + d e_j) − φ(p − d e_j)) / 2d| of the remapped φ. */
static double gradient_vs_differences(const ldem_lset *ls, const ldem_modeset *set, double eps,
                                      ldem_vec3 p, ldem_vec3 g, double d)
{
    double gc[3] = {g.x, g.y, g.z}, worst = 0.0;
    for (int j = 0; j < 3; j++) {
        ldem_vec3 e = ldem_vec3_make(j == 0 ? d : 0, j == 1 ? d : 0, j == 2 ? d : 0);
        double fp, fm;
        ldem_levelset_sample_remap(ls, set, &eps, ldem_vec3_add(p, e), &fp, NULL);
        ldem_levelset_sample_remap(ls, set, &eps, ldem_vec3_sub(p, e), &fm, NULL);
        worst = fmax(worst, fabs(gc[j] - (fp - fm) / (2.0 * d)));
    }
    return worst;
}

Test(levelset_remap, gradient_matches_finite_differences_and_the_world_query)
{
    const double h = 0.25, eps = -0.35;
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretch_make(&s);
    const double d = 1e-6 * h;
    ldem_quat q = ldem_quat_normalize((ldem_quat){0.3, -0.7, 0.2, 0.6});
    ldem_vec3 xc = ldem_vec3_make(-5.0, 2.5, 0.75);
    double worst = 0.0, worst_world = 0.0;
    int used = 0;
    rng_seed(3);
    for (int trial = 0; trial < 2000; trial++) {
        ldem_vec3 p = ldem_vec3_scale(random_direction(), SPHERE_R + 0.5 * uniform());
        ldem_vec3 x_ref = ldem_vec3_sub(p, ldem_vec3_sub(stretched(p, eps), p));
        if (!one_cell(&ls, x_ref, 2.0 * d))
            continue;
        used++;
        double phi;
        ldem_vec3 g;
        ldem_levelset_sample_remap(&ls, &s.set, &eps, p, &phi, &g);
        worst = fmax(worst, gradient_vs_differences(&ls, &s.set, eps, p, g, d));
        /* the world query of the posed grain: the same φ, the gradient rotated */
        double phi_w;
        ldem_vec3 g_w;
        ldem_vec3 w = ldem_vec3_add(xc, ldem_quat_rotate(q, p));
        ldem_levelset_query_remap(&ls, &s.set, &eps, xc, q, w, &phi_w, &g_w);
        worst_world = fmax(worst_world, fabs(phi_w - phi));
        worst_world = fmax(worst_world, ldem_vec3_dist(g_w, ldem_quat_rotate(q, g)));
    }
    cr_assert_geq(used, 1000, "only %d usable points", used);
    cr_assert(worst <= 1e-6, "gradient vs finite differences: %.3g", worst);
    cr_assert(worst_world <= 1e-12, "world query vs body query: %.3g", worst_world);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* Iterating the pull back removes the one-step remap's lag. Under the stretch y = (I + εA)X
 * the n-step pull back misses X by (εA)^(n+1) X, so on the sphere the remapped φ at the
 * deformed nodes lies within (εa)^(n+1) R below zero (ε²a²R = 0.005 after one step) and
 * the trilinear overshoot above; the gradient (I + J)⁻ᵀ ∇φ0 of the converged map matches
 * central differences of the eight-step one (they differ by (εa)^8 ≈ 3e-9). */
Test(levelset_remap, iterated_pull_back_closes_the_lag)
{
    const double h = 0.125, eps = 0.2, a = 0.25;
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretch_make(&s);
    const double upper = 3.0 * h * h / (8.0 * (SPHERE_R - sqrt(3.0) * h)) + 2e-7;
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    rng_seed(31);
    for (int trial = 0; trial < 4000; trial++) {
        ldem_vec3 y = stretched(ldem_vec3_scale(random_direction(), SPHERE_R), eps);
        for (uint32_t n = 1; n <= 3; n++) {
            s.set.pullback = n;
            double phi;
            ldem_levelset_sample_remap(&ls, &s.set, &eps, y, &phi, NULL);
            double pull = pow(eps * a, n + 1) * SPHERE_R;
            cr_assert(phi >= -pull - 2e-7 && phi <= upper, "%u steps: phi %.6g, bounds [%.3g, %.3g]",
                      n, phi, -pull - 2e-7, upper);
            lo[n] = fmin(lo[n], phi);
        }
    }
    cr_log_info("stretched sphere: lowest remapped phi at deformed nodes after 1, 2, 3 pull back "
                "steps %.3g, %.3g, %.3g",
                lo[1], lo[2], lo[3]);
    cr_assert(lo[1] < -0.004, "one step lags by about eps^2 a^2 R (%.3g)", lo[1]);
    /* the gradient of the iterated map */
    const double e2 = -0.35, d = 1e-6 * h;
    s.set.pullback = 8;
    double worst = 0.0;
    int used = 0;
    for (int trial = 0; trial < 2000; trial++) {
        ldem_vec3 p = ldem_vec3_scale(random_direction(), SPHERE_R + 0.5 * uniform());
        ldem_vec3 x_ref = ldem_vec3_make(p.x / (1 + e2 * A_DIAG[0]), p.y / (1 + e2 * A_DIAG[1]),
                                         p.z / (1 + e2 * A_DIAG[2]));
        if (!one_cell(&ls, x_ref, 2.0 * d))
            continue;
        used++;
        double phi;
        ldem_vec3 g;
        ldem_levelset_sample_remap(&ls, &s.set, &e2, p, &phi, &g);
        worst = fmax(worst, gradient_vs_differences(&ls, &s.set, e2, p, g, d));
    }
    cr_assert_geq(used, 1000, "only %d usable points", used);
    cr_assert(worst <= 1e-6, "gradient vs finite differences: %.3g", worst);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* The sphere's level set at spacing 0.25 with two stretch modes (one squeezes along x),
 * and the grid's Lipschitz constants: the fixture of the remap bounds' tests. */
static void two_stretches_on_a_sphere(ldem_lset *ls, stretch *s, double lip[3])
{
    sphere_lset(ls, 0.25);
    const double diag[2][3] = {{0.25, -0.125, -0.125}, {-0.125, 0.25, 0.0}};
    stretches_make(s, 2, diag);
    ldem_lset_lipschitz(ls, lip);
}

/* ldem_levelset_remap_reach bounds how far the remap moves φ at every point, for any
 * amplitudes, inside and around the grids; it is zero without deformation and never above
 * the grain-wide ldem_levelset_remap_reach_max. The narrow phase skips the remap where φ0
 * is above it, so a bound that were too small would lose contacts. */
Test(levelset_remap, reach_bounds_the_change_of_phi)
{
    ldem_lset ls;
    stretch s;
    double lip[3];
    two_stretches_on_a_sphere(&ls, &s, lip);
    const double zero[2] = {0.0, 0.0};
    rng_seed(9);
    double tightest = INFINITY;
    for (int trial = 0; trial < 20000; trial++) {
        /* a third of the trials iterate the pull back (its iterates stray from p) */
        s.set.pullback = trial % 3 ? 1 : 3;
        ldem_vec3 p = ldem_vec3_make(4.5 * uniform(), 4.5 * uniform(), 4.5 * uniform());
        double eps[2] = {1.5 * uniform(), trial % 5 ? 1.5 * uniform() : 0.0};
        double phi0, phi;
        ldem_lset_sample(&ls, p, &phi0, NULL);
        ldem_levelset_sample_remap(&ls, &s.set, eps, p, &phi, NULL);
        double reach = ldem_levelset_remap_reach(&s.set, eps, lip, p);
        double reach_max = ldem_levelset_remap_reach_max(&s.set, eps, lip);
        cr_assert(fabs(phi - phi0) <= reach * (1.0 + 1e-12) + 1e-14,
                  "trial %d: phi moved %.17g, reach %.17g", trial, fabs(phi - phi0), reach);
        cr_assert(reach <= reach_max * (1.0 + 1e-12), "local %.17g above grain-wide %.17g", reach,
                  reach_max);
        cr_assert_eq(ldem_levelset_remap_reach(&s.set, zero, lip, p), 0.0);
        if (fabs(phi - phi0) > 1e-6)
            tightest = fmin(tightest, reach / fabs(phi - phi0));
    }
    cr_assert_eq(ldem_levelset_remap_reach_max(&s.set, zero, lip), 0.0);
    cr_log_info("remap reach: tightest bound/change %.3f", tightest);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* ldem_levelset_remap_drop bounds how far the remap lowers φ at every point of its blocks,
 * for amplitudes whose pull back is shorter and longer than the slopes' reach; it is never
 * above the Lipschitz reach, and under a compression it is negative (φ must rise) at a
 * good share of the points near the surface: the sign the Lipschitz bound throws away. */
Test(levelset_remap, drop_bounds_the_decrease_of_phi)
{
    ldem_lset ls;
    stretch s;
    double lip[3];
    two_stretches_on_a_sphere(&ls, &s, lip);
    ldem_lset_slopes sl;
    ldem_err err;
    cr_assert_eq(ldem_lset_slopes_build(&ls, &sl, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(sl.reach, 0.25, "one cell");
    rng_seed(13);
    int long_pullback = 0;
    for (int trial = 0; trial < 40000; trial++) {
        s.set.pullback = trial % 3 ? 1 : 3;
        ldem_vec3 p = ldem_vec3_make(4.5 * uniform(), 4.5 * uniform(), 4.5 * uniform());
        double amp = trial % 4 ? 0.2 : 2.0;
        double eps[2] = {amp * uniform(), amp * uniform()};
        double phi0, phi;
        ldem_lset_sample(&ls, p, &phi0, NULL);
        ldem_levelset_sample_remap(&ls, &s.set, eps, p, &phi, NULL);
        size_t lb = ldem_lset_slopes_block(&sl, p), mb = ldem_modes_block_of(&s.set, p);
        double drop = ldem_levelset_remap_drop(&sl, lip, &s.set, eps, lb, mb);
        double plain = ldem_levelset_remap_drop(NULL, lip, &s.set, eps, lb, mb);
        cr_assert(phi0 - phi <= drop + fabs(drop) * 1e-12 + 1e-14,
                  "trial %d: phi dropped %.17g, bound %.17g", trial, phi0 - phi, drop);
        cr_assert(drop <= plain * (1.0 + 1e-12) + 1e-15, "sign-aware %.17g above Lipschitz %.17g",
                  drop, plain);
        cr_assert(plain <= ldem_levelset_remap_reach(&s.set, eps, lip, p) * (1.0 + 1e-12) + 1e-15,
                  "the block's range is no looser than the block's bound");
        long_pullback += drop == plain;
    }
    cr_assert_gt(long_pullback, 0, "long pull backs must take the Lipschitz bound");
    /* the sign: squeezed along x (mode 0, ε < 0), the +x cap moves inwards and φ just
     * outside it can only rise. The MODE blocks are 2 wide ([2, 4] holds the points); the
     * level set gets a box whose edge is not next to the cap (clamping there would admit a
     * zero slope). */
    ldem_lset wide;
    lset_make(&wide, (double[]){-4.5, -4.5, -4.5}, 0.25, (uint32_t[]){37, 37, 37}, sphere_phi,
              &SPHERE_R);
    ldem_lset_slopes wsl;
    cr_assert_eq(ldem_lset_slopes_build(&wide, &wsl, &err), LDEM_OK, "%s", err.msg);
    double wlip[3];
    ldem_lset_lipschitz(&wide, wlip);
    const double squeeze[2] = {-0.15, 0.0};
    int cap = 0, rising = 0;
    for (int trial = 0; trial < 2000; trial++) {
        s.set.pullback = trial % 2 ? 1 : 3;
        ldem_vec3 p = ldem_vec3_make(2.2 + 0.15 * uniform(), 0.4 * uniform(), 0.4 * uniform());
        size_t lb = ldem_lset_slopes_block(&wsl, p), mb = ldem_modes_block_of(&s.set, p);
        double drop = ldem_levelset_remap_drop(&wsl, wlip, &s.set, squeeze, lb, mb);
        double phi0, phi;
        ldem_lset_sample(&wide, p, &phi0, NULL);
        ldem_levelset_sample_remap(&wide, &s.set, squeeze, p, &phi, NULL);
        cr_assert(phi0 - phi <= drop + fabs(drop) * 1e-12 + 1e-14);
        /* (an iterated pull back's range spans the neighbour blocks, where u_y changes sign) */
        cap += s.set.pullback == 1;
        rising += s.set.pullback == 1 && drop < 0.0;
    }
    ldem_lset_slopes_free(&wsl);
    ldem_lset_free(&wide);
    cr_log_info("remap drop: Lipschitz fallback %d of 40000; negative (phi must rise) at %d of "
                "%d points off a squeezed cap",
                long_pullback, rising, cap);
    cr_assert_gt(rising, cap / 2, "the sign-aware bound must see phi rise off a squeezed cap");
    ldem_lset_slopes_free(&sl);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* A 16 × 2 × 2 cuboid (faces on grid planes, so the trilinear φ0 is exactly 0 on the faces)
 * bent by eq. 51, L = 16 along x, deflecting along z, scale 1, no rigid part removed.
 * A surface node X moves to y = X + εΦ(X); the pullback lands at x_ref = y − εΦ(y), and
 * |x_ref − X| = ε|Φ(y) − Φ(X)| ≤ ε² G Φmax with G ≥ ‖∇Φ‖ (Frobenius) near the beam and
 * Φmax ≥ |Φ|. The trilinear interpolant of a 1-Lipschitz function has every partial
 * derivative ≤ 1, so |φ(y)| ≤ √3 ε² G Φmax. With k = π/L and |z| ≤ 1 + ε Φmax:
 *   G = sqrt((k² z_max)² + 2k²),   Φmax = sqrt(1 + (k z_max)²). */
Test(levelset_remap, cuboid_with_beam_bending_reads_zero_at_deformed_nodes)
{
    const double half[3] = {8.0, 1.0, 1.0}, h = 0.125, eps = 0.1, L = 16.0;
    ldem_lset ls;
    lset_make(&ls, (double[]){-9, -2, -2}, h, (uint32_t[]){145, 33, 33}, box_phi, half);
    static char descriptor[] = "beam-bending length=16 axis=x deflect=z scale=1 t=0,0,0 w=0,0,0";
    ldem_modes modes = {.count = 1, .kind = LDEM_MODE_ANALYTIC, .descriptor = descriptor};
    double one = 1.0;
    ldem_matrix K = {1, &one}, M = {1, &one};
    ldem_modeset set;
    ldem_err err = {0};
    cr_assert_eq(ldem_modeset_build(&modes, &K, &M, NULL, NULL, 0, NULL, &set, &err), LDEM_OK, "%s",
                 err.msg);
    const double k = 3.14159265358979323846 / L;
    const double z_max = 1.0 + eps * 1.1;
    const double G = sqrt(pow(k * k * z_max, 2) + 2.0 * k * k);
    const double phi_max = sqrt(1.0 + pow(k * z_max, 2));
    const double bound = sqrt(3.0) * eps * eps * G * phi_max;
    cr_assert(phi_max * eps <= 0.1 * 1.1, "z_max assumption");
    double worst = 0.0, rigid = 0.0, on_face = 0.0;
    rng_seed(4);
    for (int trial = 0; trial < 4000; trial++) {
        /* a point on a face, faces chosen by area */
        double x[3] = {half[0] * uniform(), half[1] * uniform(), half[2] * uniform()};
        double pick = 0.5 * (uniform() + 1.0) * (2 * 16 * 2 + 2 * 16 * 2 + 2 * 2 * 2);
        int axis = pick < 64 ? 1 : pick < 128 ? 2 : 0;
        x[axis] = uniform() < 0 ? -half[axis] : half[axis];
        ldem_vec3 X = ldem_vec3_make(x[0], x[1], x[2]), u;
        double phi;
        ldem_lset_sample(&ls, X, &phi, NULL);
        on_face = fmax(on_face, fabs(phi));
        ldem_modes_displacement(&set, &eps, X, &u, NULL);
        ldem_vec3 y = ldem_vec3_add(X, u);
        cr_assert_eq(ldem_levelset_sample_remap(&ls, &set, &eps, y, &phi, NULL), 1);
        worst = fmax(worst, fabs(phi));
        ldem_lset_sample(&ls, y, &phi, NULL);
        rigid = fmax(rigid, fabs(phi));
    }
    cr_log_info("cuboid, beam bending eps=%g: max |phi| at deformed nodes %.3g (bound %.3g), "
                "rigid query %.3g",
                eps, worst, bound, rigid);
    cr_assert(on_face <= 1e-12, "phi0 on the faces is %.3g, not 0", on_face);
    cr_assert(worst <= bound, "max |phi| at deformed nodes %.4g > bound %.4g", worst, bound);
    cr_assert(rigid >= 0.09, "rigid query at deformed nodes only %.3g off", rigid);
    ldem_modeset_free(&set);
    ldem_lset_free(&ls);
}

/* ---- precomputed family ---- */

/* φ0 pulled back by the exact inverse of x ↦ (I + εA) x, at every node of ls's grid: the
 * reference field, in double. */
static double *exact_field(const ldem_lset *ls, double eps, const double diag[3])
{
    size_t count = (size_t)ls->dims[0] * ls->dims[1] * ls->dims[2], idx = 0;
    double *f = malloc(count * sizeof *f);
    cr_assert_not_null(f);
    for (uint32_t k = 0; k < ls->dims[2]; k++)
        for (uint32_t j = 0; j < ls->dims[1]; j++)
            for (uint32_t i = 0; i < ls->dims[0]; i++, idx++) {
                ldem_vec3 x = ldem_lset_node(ls, i, j, k);
                ldem_vec3 x_ref =
                    ldem_vec3_make(x.x / (1 + eps * diag[0]), x.y / (1 + eps * diag[1]),
                                   x.z / (1 + eps * diag[2]));
                ldem_lset_sample(ls, x_ref, &f[idx], NULL);
            }
    return f;
}

static double *exact_family_field(const ldem_lset *ls, double eps)
{
    return exact_field(ls, eps, A_DIAG);
}

/* Trilinear interpolation of a double field on ls's grid (p inside). */
static double trilinear(const ldem_lset *ls, const double *f, ldem_vec3 p)
{
    double c[3] = {p.x, p.y, p.z}, t[3];
    uint32_t cell[3];
    for (int a = 0; a < 3; a++) {
        double u = (c[a] - ls->origin[a]) / ls->spacing[a];
        cell[a] = (uint32_t)u;
        if (cell[a] > ls->dims[a] - 2)
            cell[a] = ls->dims[a] - 2;
        t[a] = u - cell[a];
    }
    double sum = 0.0;
    for (int corner = 0; corner < 8; corner++) {
        int d[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
        double w = 1.0;
        for (int a = 0; a < 3; a++)
            w *= d[a] ? t[a] : 1.0 - t[a];
        size_t idx =
            (cell[0] + d[0]) +
            (size_t)ls->dims[0] * ((cell[1] + d[1]) + (size_t)ls->dims[1] * (cell[2] + d[2]));
        sum += w * f[idx];
    }
    return sum;
}

/* Max |family − reference| over points in the band around the deformed sphere. */
static double family_error(const ldem_lset *ls, const ldem_lset_family *fam, const double *ref,
                           double eps, double *grad_err)
{
    double worst = 0.0, worst_grad = 0.0;
    rng_seed(6);
    for (int trial = 0; trial < 3000; trial++) {
        ldem_vec3 p =
            stretched(ldem_vec3_scale(random_direction(), SPHERE_R + 0.5 * uniform()), eps);
        double phi;
        ldem_vec3 g;
        ldem_lset_family_sample(fam, ls, &eps, p, &phi, &g);
        worst = fmax(worst, fabs(phi - trilinear(ls, ref, p)));
        if (grad_err) {
            /* the family's gradient is that of its own trilinear φ: central differences
             * inside one cell (polynomial there) */
            const double d = 1e-6 * ls->spacing[0];
            if (!one_cell(ls, p, 2 * d))
                continue;
            double gc[3] = {g.x, g.y, g.z};
            for (int j = 0; j < 3; j++) {
                ldem_vec3 e = ldem_vec3_make(j == 0 ? d : 0, j == 1 ? d : 0, j == 2 ? d : 0);
                double fp, fm;
                ldem_lset_family_sample(fam, ls, &eps, ldem_vec3_add(p, e), &fp, NULL);
                ldem_lset_family_sample(fam, ls, &eps, ldem_vec3_sub(p, e), &fm, NULL);
                worst_grad = fmax(worst_grad, fabs(gc[j] - (fp - fm) / (2 * d)));
            }
        }
    }
    if (grad_err)
        *grad_err = worst_grad;
    return worst;
}

static void family_build_ok(const ldem_lset *ls, const ldem_modeset *set, double lo, double hi,
                            uint32_t n, ldem_lset_family *fam)
{
    ldem_err err = {0};
    cr_assert_eq(ldem_lset_family_build(ls, set, &lo, &hi, n, fam, &err), LDEM_OK, "%s", err.msg);
    size_t points = (size_t)fam->dims[0] * fam->dims[1] * fam->dims[2];
    cr_assert_eq(ldem_lset_family_bytes(fam), n * points * sizeof(float));
    /* φ0's grid, padded by whole cells: at least by how far the stretch moves the sphere's
     * extreme node (R, 0, 0) and its kin, at most by the reach of any node with φ0 < 2h
     * (|x| < R + 2h), plus the rounding up to a cell */
    for (int d = 0; d < 3; d++) {
        double pad = (ls->origin[d] - fam->origin[d]) / ls->spacing[d];
        cr_assert(fabs(pad - round(pad)) <= 1e-9 && pad >= 0, "axis %d: pad %.17g cells", d, pad);
        cr_assert_eq(fam->dims[d], ls->dims[d] + 2 * (uint32_t)round(pad));
        double amplitude = fmax(fabs(lo), fabs(hi)), h = ls->spacing[d];
        double least = amplitude * fabs(A_DIAG[d]) * SPHERE_R;
        double most = amplitude * fabs(A_DIAG[d]) * (SPHERE_R + 2 * h);
        cr_assert(pad * h >= least && pad * h <= most + h, "axis %d: pad %g for reach [%g, %g]", d,
                  pad, least, most);
    }
}

Test(levelset_family, sampled_amplitude_is_the_exact_inverse_map_and_zero_is_phi0)
{
    const double h = 0.25, eps = 0.2;
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretch_make(&s);
    ldem_lset_family fam;
    family_build_ok(&ls, &s.set, -0.4, 0.4, 5, &fam); /* samples at −0.4, −0.2, 0, 0.2, 0.4 */
    double *ref = exact_family_field(&ls, eps);
    double grad_err;
    double err = family_error(&ls, &fam, ref, eps, &grad_err);
    /* float32 storage of |φ| ≤ 3.2: 2⁻²⁴ · 3.2 ≈ 2e-7 ≪ 1e-5 h */
    cr_log_info("family at a sampled amplitude: max |phi - exact inverse map| = %.3g (h = %g)", err,
                h);
    cr_assert(err <= 1e-5 * h, "family vs exact inverse map at a sample: %.3g", err);
    cr_assert(grad_err <= 1e-6, "family gradient vs finite differences: %.3g", grad_err);
    free(ref);
    /* ε = 0 is φ0, bit for bit */
    rng_seed(8);
    const double zero = 0.0;
    for (int trial = 0; trial < 300; trial++) {
        ldem_vec3 p = ldem_vec3_make(3.5 * uniform(), 3.5 * uniform(), 3.5 * uniform());
        double a, b;
        ldem_vec3 ga, gb;
        int ra = ldem_lset_sample(&ls, p, &a, &ga);
        int rb = ldem_lset_family_sample(&fam, &ls, &zero, p, &b, &gb);
        cr_assert(ra == rb && same_bits(a, b) && same_bits(ga.x, gb.x) && same_bits(ga.y, gb.y) &&
                  same_bits(ga.z, gb.z));
    }
    ldem_lset_family_free(&fam);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* Between samples each node value is interpolated linearly in ε. g(ε) = φ0(x_ref(ε)) has
 * Lipschitz constant ≤ √3 max |dx_ref/dε| (trilinear φ0 of a 1-Lipschitz function), and
 * |dx_ref/dε| = |(I + εA)⁻² A x| ≤ max_i |a_i| |x| / (1 − |ε| max|a_i|)², |x| ≤ √3 · 3 on the
 * grid; linear interpolation of such a g errs by at most L Δε / 2. */
Test(levelset_family, error_between_samples_is_bounded_and_shrinks)
{
    const double h = 0.25, eps = 0.13, lo = -0.4, hi = 0.4;
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretch_make(&s);
    double *ref = exact_family_field(&ls, eps);
    const uint32_t counts[] = {3, 5, 9, 17};
    double previous = INFINITY;
    const double L = sqrt(3.0) * 0.25 * sqrt(3.0) * 3.0 / pow(1.0 - 0.4 * 0.25, 2);
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        ldem_lset_family fam;
        family_build_ok(&ls, &s.set, lo, hi, counts[c], &fam);
        double err = family_error(&ls, &fam, ref, eps, NULL);
        double spacing = (hi - lo) / (counts[c] - 1);
        double bound = 0.5 * L * spacing + 1e-6;
        cr_log_info("family, %u samples (d eps %.3g): max error %.3g (bound %.3g)", counts[c],
                    spacing, err, bound);
        cr_assert(err <= bound, "%u samples: error %.4g > bound %.4g", counts[c], err, bound);
        cr_assert(err < previous, "%u samples: error %.4g did not shrink from %.4g", counts[c], err,
                  previous);
        previous = err;
        ldem_lset_family_free(&fam);
    }
    free(ref);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* A sphere whose grid just holds it (|x| ≤ 2.25, R = 2), stretched along x to 2.4: beyond
 * φ0's box the family still holds the grain. Along the x axis the pulled-back φ is
 * x/(1 + εa) − R, linear, so trilinear interpolation is exact there. */
Test(levelset_family, finds_the_grain_beyond_the_stored_box)
{
    const double h = 0.25, eps = 0.8, lo = -0.8, hi = 0.8;
    ldem_lset ls;
    lset_make(&ls, (double[]){-2.25, -2.25, -2.25}, h, (uint32_t[]){19, 19, 19}, sphere_phi,
              &SPHERE_R);
    stretch s;
    stretch_make(&s);
    ldem_lset_family fam;
    family_build_ok(&ls, &s.set, lo, hi, 3, &fam); /* samples −0.8, 0, 0.8 */
    for (int i = 0; i <= 10; i++) {
        double x = 2.3 + 0.015 * i; /* the deformed surface is at x = 2.4 */
        ldem_vec3 p = ldem_vec3_make(x, 0.0, 0.0), g;
        double phi, phi0;
        cr_assert_eq(ldem_lset_sample(&ls, p, &phi0, NULL), 0, "x = %g is inside phi0's box", x);
        cr_assert_eq(ldem_lset_family_sample(&fam, &ls, &eps, p, &phi, &g), 1,
                     "x = %g: the family does not hold the deformed grain", x);
        double want = x / (1 + eps * A_DIAG[0]) - SPHERE_R;
        cr_assert(fabs(phi - want) <= 1e-6, "x = %g: phi %.9g, expected %.9g", x, phi, want);
        cr_assert(fabs(g.x - 1 / (1 + eps * A_DIAG[0])) <= 1e-6, "x = %g: dphi/dx %.9g", x, g.x);
    }
    ldem_lset_family_free(&fam);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

/* Two modes (stretch along x, squeeze along z) at sampled amplitudes: the documented
 * superposition φ0 + Σα (φα − φ0), each φα the exact inverse map of mode α alone, to float32
 * round-off; and one mode active alone is that mode's field. */
Test(levelset_family, two_modes_superpose_their_changes)
{
    const double h = 0.25, diag[2][3] = {{0.25, 0, 0}, {0, 0, -0.125}};
    ldem_lset ls;
    sphere_lset(&ls, h);
    stretch s;
    stretches_make(&s, 2, diag);
    ldem_lset_family fam;
    ldem_err err = {0};
    double lo[2] = {-0.4, -0.4}, hi[2] = {0.4, 0.4};
    cr_assert_eq(ldem_lset_family_build(&ls, &s.set, lo, hi, 5, &fam, &err), LDEM_OK, "%s",
                 err.msg);
    double eps[2] = {0.2, -0.4};
    double *f0 = exact_field(&ls, eps[0], diag[0]), *f1 = exact_field(&ls, eps[1], diag[1]);
    double worst = 0.0, worst_single = 0.0;
    rng_seed(12);
    for (int trial = 0; trial < 2000; trial++) {
        ldem_vec3 p = ldem_vec3_scale(random_direction(), SPHERE_R + 0.5 * uniform());
        double phi, phi0, phi_single;
        ldem_lset_sample(&ls, p, &phi0, NULL);
        ldem_lset_family_sample(&fam, &ls, eps, p, &phi, NULL);
        double want = phi0 + (trilinear(&ls, f0, p) - phi0) + (trilinear(&ls, f1, p) - phi0);
        worst = fmax(worst, fabs(phi - want));
        double only[2] = {0.0, eps[1]};
        ldem_lset_family_sample(&fam, &ls, only, p, &phi_single, NULL);
        worst_single = fmax(worst_single, fabs(phi_single - trilinear(&ls, f1, p)));
    }
    cr_assert(worst <= 1e-5 * h, "two modes: %.3g from the superposition", worst);
    cr_assert(worst_single <= 1e-5 * h, "one of two modes: %.3g from its field", worst_single);
    free(f0);
    free(f1);
    ldem_lset_family_free(&fam);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}

Test(levelset_family, bad_requests_are_input_errors)
{
    ldem_lset ls;
    sphere_lset(&ls, 0.5);
    stretch s;
    stretch_make(&s);
    ldem_lset_family fam;
    ldem_err err = {0};
    double lo = -0.1, hi = 0.1;
    cr_assert_eq(ldem_lset_family_build(&ls, &s.set, &lo, &hi, 1, &fam, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_lset_family_build(&ls, &s.set, &hi, &lo, 4, &fam, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "range"), "%s", err.msg);
    /* a grid too large to hold: refused before any allocation, saying how many bytes */
    ldem_lset huge = ls;
    huge.dims[0] = huge.dims[1] = huge.dims[2] = 1u << 20;
    cr_assert_eq(ldem_lset_family_build(&huge, &s.set, &lo, &hi, 4, &fam, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "bytes"), "%s", err.msg);
    ldem_modeset_free(&s.set);
    ldem_lset_free(&ls);
}
