/* Unit tests of ldem/sim/cell.h, the periodic cell, against closed forms written out here:
 * ldem_cell_init refuses non-finite, flat and left-handed cells and inverts good ones; volume
 * and face-to-face widths of an orthogonal box (exact) and of a triclinic cell (cross products
 * done by hand); fractional coordinates and wrap shifts for points inside and for points moved
 * by whole edge vectors; the minimum image against a brute-force search over images (seeded
 * random separations); exp of a matrix for the zero, diagonal, nilpotent and skew (rotation)
 * cases and exp(A) exp(−A) = I; the affine step (h = exp(L t) h0 over 1000 steps, h_prev,
 * positions keeping their fractional coordinates about a fixed centre); logarithmic strain
 * (compression positive) and its sum against −ln(V/V0); the deformation measure since a
 * reference cell; and the servo's gain law, one call at a time and in closed loop against a
 * linear (affine) response, where the error must shrink geometrically without overshoot.
 * These are the geometry the periodic broad phase, the remap and the stress servo rest on, so
 * every test compares against an independent formula, not against another call of cell.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ldem/sim/cell.h"
#include "../support/test_rng.h"

/* ---- small linear algebra of the test's own (row-major, like ldem_mat3) ---- */

/* The matrix whose columns are a, b, c. */
static ldem_mat3 columns(ldem_vec3 a, ldem_vec3 b, ldem_vec3 c)
{
    ldem_mat3 h = {{{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}}};
    return h;
}

static ldem_vec3 col(const ldem_mat3 *h, int k)
{
    return ldem_vec3_make(h->m[0][k], h->m[1][k], h->m[2][k]);
}

static ldem_mat3 mul(const ldem_mat3 *a, const ldem_mat3 *b)
{
    ldem_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += a->m[i][k] * b->m[k][j];
            r.m[i][j] = s;
        }
    return r;
}

static ldem_vec3 apply(const ldem_mat3 *a, ldem_vec3 v)
{
    double in[3] = {v.x, v.y, v.z}, out[3];
    for (int i = 0; i < 3; i++)
        out[i] = a->m[i][0] * in[0] + a->m[i][1] * in[1] + a->m[i][2] * in[2];
    return ldem_vec3_make(out[0], out[1], out[2]);
}

static ldem_mat3 diag(double a, double b, double c)
{
    ldem_mat3 d = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
    return d;
}

static const ldem_mat3 IDENTITY = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};

/* max |a_ij − b_ij| */
static double max_diff(const ldem_mat3 *a, const ldem_mat3 *b)
{
    double d = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
    return d;
}

static ldem_vec3 s_of(const double s[3])
{
    return ldem_vec3_make(s[0], s[1], s[2]);
}

/* The cells used throughout: an orthogonal 2 × 3 × 5 box, and the triclinic cell
 * a = (10, 0, 0), b = (3, 8, 0), c = (1, 2, 6) about the centre (1, −2, 3). By hand:
 * b × c = (48, −18, −2), c × a = (0, 60, −20), a × b = (0, 0, 80), V = a·(b × c) = 480. */
static ldem_mat3 box_h(void)
{
    return diag(2, 3, 5);
}

static ldem_mat3 tri_h(void)
{
    return columns(ldem_vec3_make(10, 0, 0), ldem_vec3_make(3, 8, 0), ldem_vec3_make(1, 2, 6));
}

static const ldem_vec3 TRI_CENTRE = {1, -2, 3};

static ldem_cell make_cell(ldem_mat3 h, ldem_vec3 centre)
{
    ldem_cell c;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_cell_init(&c, h, centre, &err), LDEM_OK, "%s", err.msg);
    return c;
}

/* The point with fractional coordinates s: lo + h s, lo = centre − h (½, ½, ½). */
static ldem_vec3 point_at(const ldem_mat3 *h, ldem_vec3 centre, ldem_vec3 s)
{
    return ldem_vec3_add(centre, apply(h, ldem_vec3_make(s.x - 0.5, s.y - 0.5, s.z - 0.5)));
}

static ldem_vec3 shift_by(const ldem_mat3 *h, const int32_t m[3])
{
    return apply(h, ldem_vec3_make(m[0], m[1], m[2]));
}

/* ---- init ---- */

static void expect_refused(ldem_mat3 h, ldem_vec3 centre, const char *fragment)
{
    ldem_cell c;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_cell_init(&c, h, centre, &err);
    cr_assert_eq(rc, LDEM_ERR_INPUT, "accepted a bad cell");
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, fragment), "'%s' not in '%s'", fragment, err.msg);
}

/* Non-finite entries or centre, a flat cell (two equal edges, or a zero edge) and a
 * left-handed one (det < 0) are refused with LDEM_ERR_INPUT. */
Test(cell, init_refuses_bad_cells)
{
    ldem_vec3 o = ldem_vec3_zero();
    ldem_mat3 h = box_h();
    h.m[1][2] = NAN;
    expect_refused(h, o, "(1, 2) is not finite");
    h = tri_h();
    h.m[2][0] = INFINITY;
    expect_refused(h, o, "(2, 0) is not finite");

    /* a = b: zero volume */
    expect_refused(columns(ldem_vec3_make(1, 0, 0), ldem_vec3_make(1, 0, 0),
                           ldem_vec3_make(0, 0, 1)), o, "volume of 0");
    /* a zero edge */
    expect_refused(diag(1, 0, 1), o, "volume of 0");
    /* nearly flat: c in the plane of a and b to 1e-15 of its length */
    expect_refused(columns(ldem_vec3_make(1, 0, 0), ldem_vec3_make(0, 1, 0),
                           ldem_vec3_make(1, 1, 1e-15)), o, "non-flat");
    /* b and c swapped: det = −1 */
    expect_refused(columns(ldem_vec3_make(1, 0, 0), ldem_vec3_make(0, 0, 1),
                           ldem_vec3_make(0, 1, 0)), o, "right-handed");
    /* the triclinic cell mirrored in x: det = −480 */
    h = tri_h();
    for (int j = 0; j < 3; j++)
        h.m[0][j] = -h.m[0][j];
    expect_refused(h, o, "-480");

    expect_refused(box_h(), ldem_vec3_make(0, NAN, 0), "centre is not finite");
    expect_refused(box_h(), ldem_vec3_make(0, 0, -INFINITY), "centre is not finite");
}

/* Good cells: the fields are set as documented and h⁻¹ is the inverse to round-off. */
Test(cell, init_accepts_and_inverts)
{
    ldem_mat3 hs[2] = {box_h(), tri_h()};
    ldem_vec3 centres[2] = {ldem_vec3_make(0.5, -0.25, 7), TRI_CENTRE};
    for (int k = 0; k < 2; k++) {
        ldem_cell c = make_cell(hs[k], centres[k]);
        cr_assert_eq(c.periodic, 1);
        cr_assert(memcmp(&c.h, &hs[k], sizeof c.h) == 0);
        cr_assert(memcmp(&c.h_prev, &hs[k], sizeof c.h) == 0);
        cr_assert(memcmp(&c.h0, &hs[k], sizeof c.h) == 0);
        cr_assert(c.centre.x == centres[k].x && c.centre.y == centres[k].y &&
                  c.centre.z == centres[k].z);
        ldem_mat3 zero = {{{0}}};
        cr_assert(max_diff(&c.L, &zero) == 0.0, "L starts at zero");
        ldem_mat3 left = mul(&c.h_inv, &c.h), right = mul(&c.h, &c.h_inv);
        cr_assert_leq(max_diff(&left, &IDENTITY), 1e-14, "h⁻¹ h − I: %g",
                      max_diff(&left, &IDENTITY));
        cr_assert_leq(max_diff(&right, &IDENTITY), 1e-14, "h h⁻¹ − I: %g",
                      max_diff(&right, &IDENTITY));
    }
    /* the box's inverse is diagonal: 1/2, 1/3, 1/5 */
    ldem_cell c = make_cell(box_h(), ldem_vec3_zero());
    ldem_mat3 want = diag(0.5, 1.0 / 3.0, 0.2);
    cr_assert_leq(max_diff(&c.h_inv, &want), 1e-16);
}

/* ---- volume and widths ---- */

/* Orthogonal box: V = 2·3·5 and the widths are the edge lengths, exactly. */
Test(cell, volume_and_width_box)
{
    ldem_mat3 h = box_h();
    cr_assert_eq(ldem_cell_volume(&h), 30.0);
    cr_assert_eq(ldem_cell_width(&h, 0), 2.0);
    cr_assert_eq(ldem_cell_width(&h, 1), 3.0);
    cr_assert_eq(ldem_cell_width(&h, 2), 5.0);
}

/* Triclinic a = (10, 0, 0), b = (3, 8, 0), c = (1, 2, 6): V = 480 and the widths
 * V/|b × c| = 480/√2632, V/|c × a| = 480/√4000, V/|a × b| = 480/80 = 6 (by hand above);
 * each below its edge's length, as the tilt makes the faces closer than the edge is long. */
Test(cell, volume_and_width_triclinic)
{
    ldem_mat3 h = tri_h();
    cr_assert_float_eq(ldem_cell_volume(&h), 480.0, 1e-12);
    double want[3] = {480.0 / sqrt(2632.0), 480.0 / sqrt(4000.0), 6.0};
    double edge[3] = {10.0, sqrt(73.0), sqrt(41.0)};
    for (int k = 0; k < 3; k++) {
        double w = ldem_cell_width(&h, k);
        cr_assert_leq(fabs(w - want[k]), 1e-14 * want[k], "width %d: %.17g, expected %.17g", k,
                      w, want[k]);
        cr_assert_lt(w, edge[k]);
    }
    /* a shifted copy of the same lattice (c → c + a) has the same volume, and the width
     * across c's faces (spanned by a and b) is unchanged */
    ldem_mat3 h2 = columns(ldem_vec3_make(10, 0, 0), ldem_vec3_make(3, 8, 0),
                           ldem_vec3_make(11, 2, 6));
    cr_assert_float_eq(ldem_cell_volume(&h2), 480.0, 1e-12);
    cr_assert_float_eq(ldem_cell_width(&h2, 2), 6.0, 1e-14);
}

/* ---- fractional coordinates and wrap shifts ---- */

/* Dyadic box lo = (0, 0, 0), hi = (2, 4, 8): h⁻¹ is exact, so the faces are exact too: the
 * lower face (s = 0) belongs to the cell, the upper one (s = 1) to the next image. */
Test(cell, wrap_shift_box_faces)
{
    ldem_cell c = make_cell(diag(2, 4, 8), ldem_vec3_make(1, 2, 4));
    struct {
        ldem_vec3 x, s;
        int32_t m[3];
    } cases[] = {
        {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
        {{2, 0, 0}, {1, 0, 0}, {1, 0, 0}},
        {{-0.5, 4.5, 7.75}, {-0.25, 1.125, 0.96875}, {-1, 1, 0}},
        {{1, 2, 4}, {0.5, 0.5, 0.5}, {0, 0, 0}},
        {{-4, -4, 24}, {-2, -1, 3}, {-2, -1, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ldem_vec3 s = ldem_cell_fractional(&c, cases[k].x);
        cr_assert(s.x == cases[k].s.x && s.y == cases[k].s.y && s.z == cases[k].s.z,
                  "case %zu: s = (%.17g, %.17g, %.17g)", k, s.x, s.y, s.z);
        int32_t m[3];
        ldem_cell_wrap_shift(&c, cases[k].x, m);
        for (int a = 0; a < 3; a++)
            cr_assert_eq(m[a], cases[k].m[a], "case %zu axis %d", k, a);
    }
}

/* Triclinic: points at fractional coordinates s inside the cell give back s and shift 0;
 * the same points moved by h m for every m ∈ {−2..2}³ (single edges and combinations) give
 * shift m, fractional coordinates s + m, and x − h m lands back inside. */
Test(cell, fractional_and_wrap_shift_triclinic)
{
    ldem_mat3 h = tri_h();
    ldem_cell c = make_cell(h, TRI_CENTRE);
    static const double grid[] = {1e-9, 0.37, 0.5, 0.73, 1.0 - 1e-9};
    int checked = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 5; k++) {
                double sv[3] = {grid[i], grid[j], grid[k]};
                ldem_vec3 s0 = s_of(sv);
                ldem_vec3 x = point_at(&h, TRI_CENTRE, s0);
                ldem_vec3 s = ldem_cell_fractional(&c, x);
                cr_assert(fabs(s.x - s0.x) < 1e-14 && fabs(s.y - s0.y) < 1e-14 &&
                          fabs(s.z - s0.z) < 1e-14, "s = (%.17g, %.17g, %.17g), expected "
                          "(%g, %g, %g)", s.x, s.y, s.z, s0.x, s0.y, s0.z);
                int32_t m[3];
                ldem_cell_wrap_shift(&c, x, m);
                cr_assert(m[0] == 0 && m[1] == 0 && m[2] == 0, "inside: shift (%d, %d, %d)",
                          m[0], m[1], m[2]);
                for (int32_t a = -2; a <= 2; a++)
                    for (int32_t b = -2; b <= 2; b++)
                        for (int32_t d = -2; d <= 2; d++) {
                            int32_t want[3] = {a, b, d};
                            ldem_vec3 xs = ldem_vec3_add(x, shift_by(&h, want));
                            ldem_vec3 ss = ldem_cell_fractional(&c, xs);
                            cr_assert(fabs(ss.x - (s0.x + a)) < 1e-13 &&
                                      fabs(ss.y - (s0.y + b)) < 1e-13 &&
                                      fabs(ss.z - (s0.z + d)) < 1e-13);
                            ldem_cell_wrap_shift(&c, xs, m);
                            cr_assert(m[0] == a && m[1] == b && m[2] == d,
                                      "shift (%d, %d, %d), expected (%d, %d, %d)", m[0], m[1],
                                      m[2], a, b, d);
                            ldem_vec3 back = ldem_vec3_sub(xs, shift_by(&h, m));
                            ldem_vec3 sb = ldem_cell_fractional(&c, back);
                            cr_assert(sb.x >= 0 && sb.x < 1 && sb.y >= 0 && sb.y < 1 &&
                                      sb.z >= 0 && sb.z < 1,
                                      "x − h m at s = (%.17g, %.17g, %.17g)", sb.x, sb.y, sb.z);
                            checked++;
                        }
            }
    cr_assert_eq(checked, 125 * 125);
}

/* ---- minimum image ---- */

/* Random separations d = h u, u ∈ [−1.5, 1.5]³, in the triclinic cell: whenever the shortest
 * image of d (brute force over d + h m, m ∈ {−3..3}³, which holds the 27 neighbours of every
 * candidate) is below half the smallest width, ldem_cell_min_image returns exactly that m.
 * Others are skipped (there the function promises nothing); enough must remain. */
Test(cell, min_image_is_shortest)
{
    ldem_mat3 h = tri_h();
    ldem_cell c = make_cell(h, TRI_CENTRE);
    double half = 0.5 * fmin(480.0 / sqrt(2632.0), fmin(480.0 / sqrt(4000.0), 6.0));
    rng_seed(20240611);
    int checked = 0, nonzero = 0;
    for (int t = 0; t < 20000; t++) {
        ldem_vec3 d = apply(&h, ldem_vec3_make(rng_uniform(-1.5, 1.5), rng_uniform(-1.5, 1.5),
                                               rng_uniform(-1.5, 1.5)));
        double best = INFINITY;
        int32_t bm[3] = {0, 0, 0};
        for (int32_t a = -3; a <= 3; a++)
            for (int32_t b = -3; b <= 3; b++)
                for (int32_t e = -3; e <= 3; e++) {
                    int32_t m[3] = {a, b, e};
                    double len = ldem_vec3_norm(ldem_vec3_add(d, shift_by(&h, m)));
                    if (len < best) {
                        best = len;
                        memcpy(bm, m, sizeof bm);
                    }
                }
        if (!(best < half))
            continue;
        int32_t n[3];
        ldem_cell_min_image(&c, d, n);
        cr_assert(n[0] == bm[0] && n[1] == bm[1] && n[2] == bm[2],
                  "d = (%g, %g, %g): image (%d, %d, %d), shortest is (%d, %d, %d) at %g", d.x,
                  d.y, d.z, n[0], n[1], n[2], bm[0], bm[1], bm[2], best);
        checked++;
        nonzero += n[0] || n[1] || n[2];
    }
    /* about a quarter of the draws (ball of radius 3 over a cell of volume 480, per image) */
    cr_assert_gt(checked, 3000, "only %d separations checked", checked);
    cr_assert_gt(nonzero, 2000, "only %d needed an image", nonzero);
}

/* Short separations (|d| below half the smallest width) are their own minimum image; d just
 * past half an edge is taken back through that edge. */
Test(cell, min_image_small_and_edge)
{
    ldem_mat3 h = tri_h();
    ldem_cell c = make_cell(h, TRI_CENTRE);
    double half = 0.5 * 6.0;
    rng_seed(7);
    int32_t n[3];
    ldem_cell_min_image(&c, ldem_vec3_zero(), n);
    cr_assert(n[0] == 0 && n[1] == 0 && n[2] == 0);
    for (int t = 0; t < 2000; t++) {
        ldem_vec3 dir = ldem_vec3_make(rng_uniform(-1, 1), rng_uniform(-1, 1),
                                       rng_uniform(-1, 1));
        double len = ldem_vec3_norm(dir);
        if (!(len > 1e-3 && len <= 1.0))
            continue;
        ldem_vec3 d = ldem_vec3_scale(dir, 0.999 * half * rng_uniform(0, 1) / len);
        ldem_cell_min_image(&c, d, n);
        cr_assert(n[0] == 0 && n[1] == 0 && n[2] == 0, "|d| = %g: image (%d, %d, %d)",
                  ldem_vec3_norm(d), n[0], n[1], n[2]);
    }
    /* 0.6 a → −0.4 a; −0.7 b + 0.2 c → 0.3 b + 0.2 c */
    ldem_cell_min_image(&c, ldem_vec3_scale(col(&h, 0), 0.6), n);
    cr_assert(n[0] == -1 && n[1] == 0 && n[2] == 0);
    ldem_cell_min_image(&c, ldem_vec3_add(ldem_vec3_scale(col(&h, 1), -0.7),
                                          ldem_vec3_scale(col(&h, 2), 0.2)), n);
    cr_assert(n[0] == 0 && n[1] == 1 && n[2] == 0);
}

/* ---- exp of a matrix ---- */

/* exp(0) = I exactly. */
Test(cell, expm_zero)
{
    ldem_mat3 zero = {{{0}}};
    ldem_mat3 e = ldem_mat3_expm(zero);
    cr_assert(max_diff(&e, &IDENTITY) == 0.0);
}

/* Diagonal A: exp of each entry, zeros off the diagonal. Small entries (≈ L dt) take no
 * squaring and are right to 1e-15 relative. Large ones are scaled by 2^−s and squared s
 * times (s = 7 here), which multiplies the first rounding by 2^s: the achievable bound is
 * about 2^(s+1) u ≈ 2.8e-14, not 1e-15 (measured: 5.1e-15 for 2.5). */
Test(cell, expm_diagonal)
{
    static const double small[3] = {1e-7, -2e-7, 3.5e-8};
    ldem_mat3 e = ldem_mat3_expm(diag(small[0], small[1], small[2]));
    for (int k = 0; k < 3; k++) {
        double want = exp(small[k]);
        cr_assert_leq(fabs(e.m[k][k] - want), 1e-15 * want, "exp(%g): %.17g, expected %.17g",
                      small[k], e.m[k][k], want);
    }
    static const double large[3] = {2.5, -3.0, 0.0};
    e = ldem_mat3_expm(diag(large[0], large[1], large[2]));
    for (int k = 0; k < 3; k++) {
        double want = exp(large[k]);
        cr_assert_leq(fabs(e.m[k][k] - want), 3e-14 * want, "exp(%g): %.17g, expected %.17g",
                      large[k], e.m[k][k], want);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j)
                cr_assert(e.m[i][j] == 0.0);
}

/* Nilpotent N (strictly upper triangular, N³ = 0): the series ends, exp N = I + N + N²/2,
 * whose only second-order entry is (0, 2): b + a c/2. */
Test(cell, expm_nilpotent)
{
    const double a = 0.3, b = -0.2, c = 0.5;
    ldem_mat3 n = {{{0, a, b}, {0, 0, c}, {0, 0, 0}}};
    ldem_mat3 want = {{{1, a, b + 0.5 * a * c}, {0, 1, c}, {0, 0, 1}}};
    ldem_mat3 e = ldem_mat3_expm(n);
    cr_assert_leq(max_diff(&e, &want), 1e-15, "off by %g", max_diff(&e, &want));
    /* larger entries (several squarings): still the polynomial */
    const double A = 2.0, B = -1.5, C = 3.0;
    ldem_mat3 n2 = {{{0, A, B}, {0, 0, C}, {0, 0, 0}}};
    ldem_mat3 want2 = {{{1, A, B + 0.5 * A * C}, {0, 1, C}, {0, 0, 1}}};
    e = ldem_mat3_expm(n2);
    cr_assert_leq(max_diff(&e, &want2), 1e-14, "off by %g", max_diff(&e, &want2));
}

/* A skew generator of angle θ = 1.3 about z gives the rotation by θ; about the unit axis
 * k = (1, 2, 2)/3 it gives Rodrigues' R = I + sin θ K + (1 − cos θ) K². */
Test(cell, expm_rotation)
{
    const double th = 1.3;
    ldem_mat3 gz = {{{0, -th, 0}, {th, 0, 0}, {0, 0, 0}}};
    ldem_mat3 rz = {{{cos(th), -sin(th), 0}, {sin(th), cos(th), 0}, {0, 0, 1}}};
    ldem_mat3 e = ldem_mat3_expm(gz);
    cr_assert_leq(max_diff(&e, &rz), 1e-14, "about z: off by %g", max_diff(&e, &rz));

    double kx = 1.0 / 3.0, ky = 2.0 / 3.0, kz = 2.0 / 3.0;
    ldem_mat3 k = {{{0, -kz, ky}, {kz, 0, -kx}, {-ky, kx, 0}}};
    ldem_mat3 k2 = mul(&k, &k), g, r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            g.m[i][j] = th * k.m[i][j];
            r.m[i][j] = (i == j) + sin(th) * k.m[i][j] + (1.0 - cos(th)) * k2.m[i][j];
        }
    e = ldem_mat3_expm(g);
    cr_assert_leq(max_diff(&e, &r), 1e-14, "about (1, 2, 2)/3: off by %g", max_diff(&e, &r));
}

/* exp(A) exp(−A) = I for general (non-normal) matrices, small and of order one. */
Test(cell, expm_inverse)
{
    rng_seed(99);
    for (int t = 0; t < 50; t++) {
        double scale = t % 2 ? 1e-3 : 1.0;
        ldem_mat3 a, na;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                a.m[i][j] = scale * rng_uniform(-1, 1);
                na.m[i][j] = -a.m[i][j];
            }
        ldem_mat3 e = ldem_mat3_expm(a), ne = ldem_mat3_expm(na);
        ldem_mat3 p = mul(&e, &ne);
        cr_assert_leq(max_diff(&p, &IDENTITY), 1e-13, "case %d: off by %g", t,
                      max_diff(&p, &IDENTITY));
    }
}

/* ---- the affine step ---- */

/* L = diag(−0.5, 0.3, 0.1) over 1000 steps of 1e-3 on the triclinic cell: F is
 * diag(exp(L_kk dt)), h_prev is the h before each step, h(t) = exp(L t) h0 (row i of h0
 * scaled by exp(L_ii t)) to 1e-12 relative with its zeros kept, the centre does not move, and
 * points remapped with each step's F keep their fractional coordinates, inside the cell or
 * not. */
Test(cell, advance_diagonal_rate)
{
    ldem_mat3 h0 = tri_h();
    ldem_cell c = make_cell(h0, TRI_CENTRE);
    const double rate[3] = {-0.5, 0.3, 0.1}, dt = 1e-3;
    c.L = diag(rate[0], rate[1], rate[2]);
    ldem_vec3 s_in = ldem_vec3_make(0.2, 0.7, 0.4), s_out = ldem_vec3_make(1.3, -0.6, 2.1);
    ldem_vec3 x_in = point_at(&h0, TRI_CENTRE, s_in), x_out = point_at(&h0, TRI_CENTRE, s_out);
    for (int step = 1; step <= 1000; step++) {
        ldem_mat3 before = c.h;
        ldem_mat3 F = ldem_cell_advance(&c, dt);
        cr_assert(memcmp(&c.h_prev, &before, sizeof before) == 0, "h_prev at step %d", step);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (i == j)
                    cr_assert_leq(fabs(F.m[i][i] - exp(rate[i] * dt)), 1e-15);
                else
                    cr_assert(F.m[i][j] == 0.0);
        x_in = ldem_cell_remap(&c, &F, x_in);
        x_out = ldem_cell_remap(&c, &F, x_out);
        ldem_vec3 centre = ldem_cell_remap(&c, &F, TRI_CENTRE);
        cr_assert(centre.x == TRI_CENTRE.x && centre.y == TRI_CENTRE.y &&
                  centre.z == TRI_CENTRE.z, "the centre moved");
        if (step % 100)
            continue;
        double t = step * dt;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double want = exp(rate[i] * t) * h0.m[i][j];
                if (want == 0.0)
                    cr_assert(c.h.m[i][j] == 0.0);
                else
                    cr_assert_leq(fabs(c.h.m[i][j] - want), 1e-12 * fabs(want),
                                  "t = %g, h(%d, %d) = %.17g, expected %.17g", t, i, j,
                                  c.h.m[i][j], want);
            }
        ldem_mat3 check = mul(&c.h_inv, &c.h);
        cr_assert_leq(max_diff(&check, &IDENTITY), 1e-14, "h⁻¹ follows h");
        ldem_vec3 si = ldem_cell_fractional(&c, x_in), so = ldem_cell_fractional(&c, x_out);
        cr_assert(fabs(si.x - s_in.x) < 1e-12 && fabs(si.y - s_in.y) < 1e-12 &&
                  fabs(si.z - s_in.z) < 1e-12, "inside point: s = (%.17g, %.17g, %.17g)",
                  si.x, si.y, si.z);
        cr_assert(fabs(so.x - s_out.x) < 1e-12 && fabs(so.y - s_out.y) < 1e-12 &&
                  fabs(so.z - s_out.z) < 1e-12, "outside point: s = (%.17g, %.17g, %.17g)",
                  so.x, so.y, so.z);
    }
    cr_assert(c.centre.x == TRI_CENTRE.x && c.centre.y == TRI_CENTRE.y &&
              c.centre.z == TRI_CENTRE.z);
    cr_assert(memcmp(&c.h0, &h0, sizeof h0) == 0, "h0 is the start");
}

/* Simple shear L = γ̇ e_x ⊗ e_y (nilpotent): F = I + γ̇ dt E_xy, and after time t the box's b
 * edge has tilted to (γ̇ t · 3, 3, 0) while a and c are unchanged and the volume is kept. */
Test(cell, advance_simple_shear)
{
    ldem_cell c = make_cell(box_h(), ldem_vec3_zero());
    const double gdot = 0.2, dt = 1e-3;
    c.L.m[0][1] = gdot;
    ldem_mat3 F = IDENTITY;
    for (int step = 0; step < 500; step++)
        F = ldem_cell_advance(&c, dt);
    ldem_mat3 want_F = IDENTITY;
    want_F.m[0][1] = gdot * dt;
    cr_assert_leq(max_diff(&F, &want_F), 1e-18);
    ldem_mat3 want = box_h();
    want.m[0][1] = gdot * 0.5 * 3.0;
    cr_assert_leq(max_diff(&c.h, &want), 1e-13, "off by %g", max_diff(&c.h, &want));
    cr_assert_float_eq(ldem_cell_volume(&c.h), 30.0, 1e-12);
}

/* ---- strain and deformation ---- */

/* The box compressed along z by exp(−0.04): strain z = 0.04 (compression positive), x and
 * y 0, and the sum is −ln(V/V0). Reached both by setting h and by two steps of L. */
Test(cell, strain_uniaxial)
{
    const double lz = 5.0 * exp(-0.04);
    for (int how = 0; how < 2; how++) {
        ldem_cell c = make_cell(box_h(), ldem_vec3_zero());
        if (how == 0)
            ldem_cell_set_h(&c, diag(2, 3, lz));
        else {   /* two steps, so h_prev is not h0: strain is measured from h0 */
            c.L = diag(0, 0, -0.04);
            ldem_cell_advance(&c, 0.5);
            ldem_cell_advance(&c, 0.5);
        }
        double ex = ldem_cell_strain(&c, 0), ey = ldem_cell_strain(&c, 1),
               ez = ldem_cell_strain(&c, 2);
        cr_assert_leq(fabs(ez - 0.04), 1e-14, "strain z %.17g", ez);
        cr_assert_leq(fabs(ex), 1e-15, "strain x %.17g", ex);
        cr_assert_leq(fabs(ey), 1e-15, "strain y %.17g", ey);
        double vol = -log((2.0 * 3.0 * lz) / 30.0);
        cr_assert_leq(fabs(ex + ey + ez - vol), 1e-14, "sum %.17g, -ln(V/V0) %.17g",
                      ex + ey + ez, vol);
    }
    /* stretching is negative: z extended by exp(0.1) */
    ldem_cell c = make_cell(box_h(), ldem_vec3_zero());
    ldem_cell_set_h(&c, diag(2, 3, 5.0 * exp(0.1)));
    cr_assert_leq(fabs(ldem_cell_strain(&c, 2) + 0.1), 1e-14);
}

/* The triclinic cell shrunk isotropically by λ = exp(−0.01): every width scales by λ, so each
 * strain is 0.01 and their sum is −ln(V/V0) = −ln λ³. */
Test(cell, strain_isotropic_triclinic)
{
    ldem_mat3 h0 = tri_h(), h = h0;
    const double lambda = exp(-0.01);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            h.m[i][j] *= lambda;
    ldem_cell c = make_cell(h0, TRI_CENTRE);
    ldem_cell_set_h(&c, h);
    double sum = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = ldem_cell_strain(&c, k);
        cr_assert_leq(fabs(e - 0.01), 1e-14, "strain %d: %.17g", k, e);
        sum += e;
    }
    cr_assert_leq(fabs(sum + log(lambda * lambda * lambda)), 1e-14);
}

/* ‖h h_ref⁻¹ − I‖_F: for h = D h_ref with D = diag(1.01, 0.98, 1), √(0.01² + 0.02²); for a
 * shear h = (I + 0.03 E_xz) h_ref, 0.03; for h = h_ref, 0. */
Test(cell, deformation_since)
{
    ldem_mat3 ref = tri_h();
    ldem_cell c = make_cell(ref, TRI_CENTRE);
    cr_assert_leq(ldem_cell_deformation_since(&c, &ref), 1e-15);

    ldem_mat3 d = diag(1.01, 0.98, 1.0);
    ldem_cell_set_h(&c, mul(&d, &ref));
    double want = sqrt(0.01 * 0.01 + 0.02 * 0.02);
    double got = ldem_cell_deformation_since(&c, &ref);
    cr_assert_leq(fabs(got - want), 1e-14, "%.17g, expected %.17g", got, want);

    ldem_mat3 s = IDENTITY;
    s.m[0][2] = 0.03;
    ldem_cell_set_h(&c, mul(&s, &ref));
    got = ldem_cell_deformation_since(&c, &ref);
    cr_assert_leq(fabs(got - 0.03), 1e-14, "%.17g, expected 0.03", got);

    /* measured from h_prev after a step of L: ‖exp(L dt) − I‖_F */
    ldem_cell c2 = make_cell(box_h(), ldem_vec3_zero());
    c2.L = diag(-0.5, 0.3, 0.0);
    ldem_cell_advance(&c2, 0.01);
    want = hypot(exp(-0.005) - 1.0, exp(0.003) - 1.0);
    got = ldem_cell_deformation_since(&c2, &c2.h_prev);
    cr_assert_leq(fabs(got - want), 1e-15, "%.17g, expected %.17g", got, want);
}

/* ---- the servo ---- */

/* L_kk = clamp(α (σ − σ*)/(K dt), ±max): above the target the cell expands (positive rate),
 * below it contracts, under the cap the magnitude is the formula's, over it the cap. */
Test(cell, servo_rate_law)
{
    const double K = 1e6, dt = 1e-4, gain = 0.5, cap = 1e3;
    /* 0.5 · 10 / (1e6 · 1e-4) = 0.05 */
    double r = ldem_cell_servo_rate(110.0, 100.0, K, dt, gain, cap);
    cr_assert_gt(r, 0.0, "too much compression expands the cell");
    cr_assert_leq(fabs(r - 0.05), 1e-16, "%.17g", r);
    r = ldem_cell_servo_rate(90.0, 100.0, K, dt, gain, cap);
    cr_assert_lt(r, 0.0, "too little compression contracts the cell");
    cr_assert_leq(fabs(r + 0.05), 1e-16, "%.17g", r);
    /* a tension target works the same way (σ* < 0) */
    r = ldem_cell_servo_rate(-40.0, -50.0, 2e5, 1e-3, 0.2, cap);
    cr_assert_leq(fabs(r - 0.01), 1e-16, "%.17g", r);
    /* on target: nothing */
    cr_assert_eq(ldem_cell_servo_rate(100.0, 100.0, K, dt, gain, cap), 0.0);

    /* the cap: 0.5 · 1e4 / (10 · 1e-4) = 5e6 ≫ 1e3 */
    cr_assert_eq(ldem_cell_servo_rate(1e4, 0.0, 10.0, dt, gain, cap), cap);
    cr_assert_eq(ldem_cell_servo_rate(-1e4, 0.0, 10.0, dt, gain, cap), -cap);
    /* just under the cap the formula holds: 0.5 · 1.998e-3 / (10 · 1e-4) = 0.999 */
    r = ldem_cell_servo_rate(1.998e-3, 0.0, 10.0, dt, gain, 1.0);
    cr_assert_leq(fabs(r - 0.999), 1e-15, "%.17g", r);

    /* no contacts (K = 0): the cap toward the target, 0 on it */
    cr_assert_eq(ldem_cell_servo_rate(1.0, 2.0, 0.0, dt, gain, cap), -cap);
    cr_assert_eq(ldem_cell_servo_rate(3.0, 2.0, 0.0, dt, gain, cap), cap);
    cr_assert_eq(ldem_cell_servo_rate(2.0, 2.0, 0.0, dt, gain, cap), 0.0);
}

/* Closed loop with an affine (linear spring) response σ_{n+1} = σ_n − K L dt: with gain ½
 * each step removes half the error, e_{n+1} = e_n/2, from above and below, never crossing the
 * target; gain 1 lands on it in one step. Starting far away the cap holds the rate first
 * (the error falls by K max dt a step), then the geometric phase takes over, still without
 * overshoot. */
Test(cell, servo_closed_loop)
{
    /* K dt = 100 exactly (dt = 2⁻¹⁰), so the capped steps below remove exactly 1000 */
    const double K = 102400.0, dt = 0x1.0p-10, target = 100.0, cap = 1e6;
    for (int side = -1; side <= 1; side += 2) {
        double sigma = target + side * 64.0, err = sigma - target;
        for (int n = 0; n < 40; n++) {
            double rate = ldem_cell_servo_rate(sigma, target, K, dt, 0.5, cap);
            sigma -= K * rate * dt;
            double e = sigma - target;
            cr_assert(e * side > 0.0, "step %d crossed the target (error %g)", n, e);
            cr_assert_leq(fabs(e - 0.5 * err), 1e-12 * fabs(err) + 1e-13,
                          "step %d: error %.17g, expected %.17g", n, e, 0.5 * err);
            err = e;
        }
        cr_assert_lt(fabs(err), 64.0 * pow(0.5, 39));
    }

    double sigma = 250.0;
    double rate = ldem_cell_servo_rate(sigma, target, K, dt, 1.0, cap);
    cr_assert_leq(fabs(sigma - K * rate * dt - target), 1e-13, "gain 1: one step");

    /* capped: max = 10, so K max dt = 1000 per step while the error exceeds 2000 */
    const double small_cap = 10.0;
    sigma = target + 10000.0;
    double err = sigma - target;
    int capped = 0;
    for (int n = 0; n < 60; n++) {
        rate = ldem_cell_servo_rate(sigma, target, K, dt, 0.5, small_cap);
        cr_assert_leq(fabs(rate), small_cap);
        sigma -= K * rate * dt;
        double e = sigma - target;
        cr_assert_gt(e, 0.0, "step %d overshot (error %g)", n, e);
        if (err > 2000.0) {
            capped++;
            cr_assert_leq(fabs((err - e) - 1000.0), 1e-9, "capped step %d", n);
        } else
            cr_assert_leq(fabs(e - 0.5 * err), 1e-12 * err + 1e-13, "geometric step %d", n);
        err = e;
    }
    cr_assert_eq(capped, 8, "8000 of the 10000 at the cap, then halving");
}

/* The integral term. ι = 0 is the proportional law bit for bit. Against an affine response
 * with a constant drift (σ_{n+1} = σ_n − K L dt + D: the assembly keeps pulling away from the
 * target, as in the lateral direction of a biaxial test), the proportional law settles at the
 * lag e = D/α while the PI law's error goes to zero: never crossing the target for ι ≤ α/4,
 * still converging for ι = 0.9 and for a response three times softer than the affine one. At
 * the cap the accumulated rate stops growing (no wind-up). */
Test(cell, servo_integral_term)
{
    const double K = 102400.0, dt = 0x1.0p-10, target = 100.0, cap = 1e6, alpha = 0.2;
    double acc = 0.0;
    const double sigmas[] = {250.0, 90.0, 100.0, -3.0};
    for (size_t k = 0; k < sizeof sigmas / sizeof *sigmas; k++) {
        double p = ldem_cell_servo_rate(sigmas[k], target, K, dt, alpha, cap);
        double pi = ldem_cell_servo_rate_pi(sigmas[k], target, K, dt, alpha, 0.0, cap, &acc);
        cr_assert(memcmp(&p, &pi, sizeof p) == 0, "iota = 0 must be the P law");
        cr_assert_eq(acc, 0.0);
    }

    const double drift = 1.0; /* stress units per step */
    struct {
        double iota, softness;
        int no_overshoot;
    } runs[] = {
        {0.0, 1.0, 1}, {alpha / 4, 1.0, 1}, {0.9, 1.0, 0}, {alpha / 4, 3.0, 0}, {0.9, 3.0, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        double sigma = target, I = 0.0, last = 0.0;
        for (int n = 0; n < 4000; n++) {
            double rate =
                ldem_cell_servo_rate_pi(sigma, target, K, dt, alpha, runs[r].iota, cap, &I);
            sigma += drift - K * rate * dt / runs[r].softness;
            double e = sigma - target;
            if (runs[r].no_overshoot)
                cr_assert_geq(e, -1e-9, "run %zu step %d: crossed the target (error %g)", r, n, e);
            last = e;
        }
        double lag = runs[r].softness * drift / alpha;
        cr_log_info("servo, iota %g, response 1/%g of affine: error %.3g after 4000 steps "
                    "(P law's lag %g)",
                    runs[r].iota, runs[r].softness, last, lag);
        if (runs[r].iota == 0.0)
            cr_assert_leq(fabs(last - lag), 1e-9 * lag, "P law: lag %.17g, expected %g", last, lag);
        else
            cr_assert_leq(fabs(last), 1e-6 * lag, "PI law: error %g, P law's lag %g", last, lag);
    }

    /* wind-up: far from the target the rate sits at the cap and I does not grow */
    const double small_cap = 10.0;
    acc = 0.25;
    for (int n = 0; n < 10; n++)
        cr_assert_eq(ldem_cell_servo_rate_pi(1e7, target, K, dt, alpha, 0.5, small_cap, &acc),
                     small_cap);
    cr_assert_eq(acc, 0.25, "I must not wind up at the cap");
    /* and it never leaves ±max_rate */
    acc = 0.0;
    for (int n = 0; n < 1000; n++) {
        ldem_cell_servo_rate_pi(target + 1e-3, target, K, dt, alpha, 0.9, small_cap, &acc);
        cr_assert_leq(fabs(acc), small_cap);
    }
}

/* ---- the cyclic drive's triangle ---- */

/* The triangle written out independently: level i of `cycles` cycles of period T_i (time
 * since the drive began t), A_i tri(φ) with φ the phase within the cycle; long double. */
static double triangle_ref(const ldem_cell_cyclic *c, long double t)
{
    for (uint32_t i = 0; i < c->levels; i++) {
        long double level = (long double)c->period[i] * c->cycles;
        if (t < level) {
            long double u = t / c->period[i], phi = u - floorl(u);
            long double tri = phi < 0.25L ? 4 * phi : phi < 0.75L ? 2 - 4 * phi : 4 * phi - 4;
            return (double)(c->amplitude[i] * tri);
        }
        t -= level;
    }
    return 0.0;
}

static ldem_cell_cyclic cyclic_of(const double *amp, const double *period, uint32_t levels,
                                  uint32_t cycles)
{
    ldem_cell_cyclic c;
    memset(&c, 0, sizeof c);
    for (uint32_t i = 0; i < levels; i++)
        c.amplitude[i] = amp[i], c.period[i] = period[i];
    c.levels = levels, c.cycles = cycles;
    return c;
}

/* Periods of whole steps: exact zeros at every cycle's end and exact ±A at the turns (a
 * multiple of 4 steps), compression first, the next level after `cycles` cycles, 0 after
 * the last; every step within an ulp or two of the long-double triangle, also where a period
 * is not a whole number of steps (the floating phase); continuity at every level change. */
Test(cell, cyclic_triangle_values)
{
    const double dt = 1e-7, amp[3] = {1e-6, 1e-5, 1e-3}, period[3] = {8e-7, 8e-7, 1.6e-6};
    ldem_cell_cyclic c = cyclic_of(amp, period, 3, 2);
    /* level 0: 8 steps a cycle; level 1 from step 16; level 2 (16 steps a cycle) from 32 */
    const struct {
        uint64_t n;
        double want;
    } exact[] = {{0, 0.0},     {1, 0.5e-6},  {2, 1e-6},    {4, 0.0},   {6, -1e-6},
                 {8, 0.0},     {10, 1e-6},   {14, -1e-6},  {16, 0.0},  {18, 1e-5},
                 {22, -1e-5},  {32, 0.0},    {36, 1e-3},   {44, -1e-3}, {48, 0.0},
                 {52, 1e-3},   {60, -1e-3},  {64, 0.0},    {65, 0.0},  {1000, 0.0}};
    for (size_t k = 0; k < sizeof exact / sizeof *exact; k++) {
        double e = ldem_cell_cyclic_strain(&c, exact[k].n, dt);
        cr_assert(e == exact[k].want, "step %llu: %.17g, expected %.17g",
                  (unsigned long long)exact[k].n, e, exact[k].want);
    }
    /* the rate takes the cell's strain to the next value, extension positive: compression
     * first; after the last cycle it holds the start's strain */
    ldem_cell box = make_cell(diag(1, 1, 1), ldem_vec3_make(0, 0, 0));
    cr_assert_leq(fabs(ldem_cell_cyclic_rate(&box, 2, &c, 0, dt, 0.0) * dt + 0.5e-6), 1e-22);
    cr_assert_leq(fabs(ldem_cell_cyclic_rate(&box, 2, &c, 6, dt, 0.0) * dt - 0.5e-6), 1e-22,
                  "on the way back from -A");
    cr_assert(ldem_cell_cyclic_rate(&box, 2, &c, 64, dt, 0.0) == 0.0, "held after the last");
    cr_assert_leq(fabs(ldem_cell_cyclic_rate(&box, 2, &c, 64, dt, 1e-4) * dt + 1e-4), 1e-20,
                  "back to the start's strain");
    double worst = 0.0;
    for (uint64_t n = 0; n < 80; n++)
        worst = fmax(worst, fabs(ldem_cell_cyclic_strain(&c, n, dt) -
                                 triangle_ref(&c, (long double)n * dt)));
    cr_assert_leq(worst, 4e-19, "integer phases: %.3g from the reference", worst);

    /* periods that are no whole number of steps: the floating phase */
    const double odd[2] = {10.5e-7, 7.3e-7}, amp2[2] = {2e-6, 3e-4};
    c = cyclic_of(amp2, odd, 2, 3);
    worst = 0.0;
    for (uint64_t n = 0; n < 60; n++) {
        double e = ldem_cell_cyclic_strain(&c, n, dt),
               want = triangle_ref(&c, (long double)n * dt);
        worst = fmax(worst, fabs(e - want) / amp2[n * dt < 3 * odd[0] ? 0 : 1]);
    }
    cr_assert_leq(worst, 1e-12, "floating phases: %.3g of the amplitude", worst);
    /* continuity: every step moves by at most 4 A dt / T of its level (plus round-off) */
    for (uint64_t n = 0; n < 60; n++) {
        double de = fabs(ldem_cell_cyclic_strain(&c, n + 1, dt) -
                         ldem_cell_cyclic_strain(&c, n, dt));
        cr_assert_leq(de, 4 * 3e-4 * dt / odd[1] * (1 + 1e-9), "jump %.3g at step %llu", de,
                      (unsigned long long)n);
    }
}

/* A cell driven by the triangle's rates (L_zz from ldem_cell_cyclic_rate, x at a constant
 * rate) has its z strain on the triangle at every step — two amplitudes, 1e-6 and 1e-3, ten
 * cycles of 400 steps each, from a strain of 2e-4 — to round-off that does not grow with the
 * cycles (the rate is aimed at the triangle's next value, so exp(L dt) rounding to 1 + L dt
 * cannot accumulate: open loop, it reached 4e-13 here): below 1e-15 absolute at every step
 * and every cycle's end. */
Test(cell, cyclic_cell_follows_triangle)
{
    ldem_mat3 h0 = diag(0.03, 0.031, 0.029);
    ldem_cell cell = make_cell(h0, ldem_vec3_make(0.01, 0.02, 0.03));
    const double dt = 1e-7, amp[2] = {1e-6, 1e-3}, period[2] = {4e-5, 4e-5};
    ldem_cell_cyclic c = cyclic_of(amp, period, 2, 10);
    cell.L = diag(0.0, 0.0, -2e-4 / (100 * dt)); /* to a strain of 2e-4 first */
    for (int n = 0; n < 100; n++)
        ldem_cell_advance(&cell, dt);
    double start = ldem_cell_strain(&cell, 2);
    cr_assert_leq(fabs(start - 2e-4), 1e-12);
    double worst = 0.0, worst_end = 0.0;
    for (uint64_t n = 0; n < 8400; n++) {
        cell.L = diag(1e-3, 0.0, ldem_cell_cyclic_rate(&cell, 2, &c, n, dt, start));
        ldem_cell_advance(&cell, dt);
        double e = ldem_cell_strain(&cell, 2) - start,
               want = triangle_ref(&c, (long double)(n + 1) * dt);
        worst = fmax(worst, fabs(e - want));
        if ((n + 1) % 400 == 0)
            worst_end = fmax(worst_end, fabs(e));
        cr_assert_leq(fabs(ldem_cell_strain(&cell, 1)), 1e-15, "y moved");
    }
    cr_log_info("cyclic cell: strain off the triangle by %.3g at most, %.3g at cycle ends",
                worst, worst_end);
    cr_assert_leq(worst, 1e-15, "z strain off the triangle by %.3g", worst);
    cr_assert_leq(worst_end, 1e-15, "a cycle's end off the start by %.3g", worst_end);
}
