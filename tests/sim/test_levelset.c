/* Unit tests of ldem/levelset.h: φ and ∇φ of posed (rotated, translated) level-set grains
 * against the analytic distance of the sphere they sample, within the trilinear
 * interpolation bounds; the mean-curvature radius 2/∇²φ of spheres; flat and concave
 * surfaces; the outside-grid flag. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../support/law_states.h"
#include "ldem/levelset.h"
#include "world_fixture.h"

/* Deterministic uniform numbers in [0, 1) (splitmix64). */
static double uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static ldem_vec3 random_in_box(uint64_t *s, double half)
{
    return ldem_vec3_make(half * (2 * uniform(s) - 1), half * (2 * uniform(s) - 1),
                          half * (2 * uniform(s) - 1));
}

static ldem_vec3 random_direction(uint64_t *s)
{
    for (;;) {
        ldem_vec3 v = random_in_box(s, 1.0);
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

/* A grid of spacing h over [−half, half]³ holding f(node); written here, independently of
 * the fixture, so the body-frame content can be off-centre, flat or concave. */
typedef double (*field_fn)(ldem_vec3 x, const double *arg);

static ldem_lset make_grid(double half, double h, field_fn f, const double *arg)
{
    ldem_lset ls;
    uint32_t n = (uint32_t)ceil(2.0 * half / h) + 1;
    double o = -0.5 * (n - 1) * h;
    for (int a = 0; a < 3; a++)
        ls.dims[a] = n, ls.origin[a] = o, ls.spacing[a] = h;
    ls.phi = malloc((size_t)n * n * n * sizeof *ls.phi);
    cr_assert(ls.phi);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++)
                ls.phi[i + (size_t)n * (j + (size_t)n * k)] =
                    (float)f(ldem_vec3_make(o + i * h, o + j * h, o + k * h), arg);
    return ls;
}

/* arg = {cx, cy, cz, R}: distance to a sphere centred at c. */
static double sphere_distance(ldem_vec3 x, const double *arg)
{
    return ldem_vec3_dist(x, ldem_vec3_make(arg[0], arg[1], arg[2])) - arg[3];
}

/* The plane z = arg[0]. */
static double plane_distance(ldem_vec3 x, const double *arg)
{
    return x.z - arg[0];
}

/* Outside of a spherical cavity of radius arg[0]: the solid is |x| > R, a concave surface. */
static double cavity_distance(ldem_vec3 x, const double *arg)
{
    return arg[0] - ldem_vec3_norm(x);
}

/* The fixture's level-set sphere, posed with a random rotation and translation: φ within the
 * trilinear error bound of the distance |p − xc| − R. On a cell at distance ≥ r_min from the
 * centre the distance function's second derivatives ∂²/∂x_a² sum to ≤ 2/r_min, so the
 * tensor-product linear interpolant is within h²/8 · 2/r_min = h²/(4 r_min); float32 storage
 * adds ≤ 1e-7. The gradient is the derivative of the same interpolant: first order,
 * |error| ≤ (h/2)|f''| per component ≤ √3 h/(2 r_min) in norm (plus O(h²)). */
Test(levelset, query_posed_sphere)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    const double R = 1.0, h = 0.05;
    uint32_t s = wf_add_ls_sphere_shape(&w, R, h, 1);
    const ldem_lset *ls = &w.shapes[s].lset;
    uint64_t rng = 1;
    double worst_phi = 0.0, worst_grad = 0.0;
    for (int pose = 0; pose < 20; pose++) {
        ldem_quat q = random_rotation(&rng);
        ldem_vec3 xc = random_in_box(&rng, 5.0);
        for (int k = 0; k < 500; k++) {
            /* Points from 0.5 R to the grid's inner box, in world coordinates. */
            double r = 0.5 * R + (R + 2.0 * h - 0.5 * R) * uniform(&rng);
            ldem_vec3 p = ldem_vec3_axpy(r, random_direction(&rng), xc);
            double phi;
            ldem_vec3 grad;
            cr_assert_eq(ldem_levelset_query(ls, xc, q, p, &phi, &grad), 1);
            double r_min = r - sqrt(3.0) * h;
            double bound_phi = h * h / (4.0 * r_min) + 1e-6;
            double bound_grad = sqrt(3.0) * h / (2.0 * r_min) + 2.0 * h * h / (r_min * r_min);
            double e_phi = fabs(phi - (r - R));
            ldem_vec3 normal = ldem_vec3_scale(ldem_vec3_sub(p, xc), 1.0 / r);
            double e_grad = ldem_vec3_dist(grad, normal);
            cr_assert_leq(e_phi, bound_phi, "phi error %g > %g at r = %g", e_phi, bound_phi, r);
            cr_assert_leq(e_grad, bound_grad, "grad error %g > %g at r = %g", e_grad, bound_grad,
                          r);
            worst_phi = fmax(worst_phi, e_phi / bound_phi);
            worst_grad = fmax(worst_grad, e_grad / bound_grad);
        }
    }
    cr_log_info("posed sphere: worst phi error %.2f of its bound, gradient %.2f", worst_phi,
                worst_grad);
    ldem_world_free(&w);
}

/* A sphere off the body origin (centre c in the body frame) makes the pose matter: posed at
 * (xc, q) its world centre is xc + q c q*. A query that rotated the wrong way or forgot the
 * translation would put the sphere elsewhere. */
Test(levelset, query_off_centre_sphere)
{
    const double arg[4] = {0.3, -0.2, 0.15, 0.6}, h = 0.04;
    ldem_lset ls = make_grid(1.0, h, sphere_distance, arg);
    ldem_vec3 c_body = ldem_vec3_make(arg[0], arg[1], arg[2]);
    uint64_t rng = 7;
    for (int pose = 0; pose < 20; pose++) {
        ldem_quat q = random_rotation(&rng);
        ldem_vec3 xc = random_in_box(&rng, 3.0);
        ldem_vec3 c_world = ldem_vec3_add(xc, ldem_quat_rotate(q, c_body));
        for (int k = 0; k < 200; k++) {
            double r = 0.4 + 0.3 * uniform(&rng); /* stays inside the grid: 0.37 + 0.7 < 1 */
            ldem_vec3 p = ldem_vec3_axpy(r, random_direction(&rng), c_world);
            double phi;
            ldem_vec3 grad;
            cr_assert_eq(ldem_levelset_query(&ls, xc, q, p, &phi, &grad), 1);
            double r_min = r - sqrt(3.0) * h;
            cr_assert_leq(fabs(phi - (r - arg[3])), h * h / (4.0 * r_min) + 1e-6);
            ldem_vec3 normal = ldem_vec3_scale(ldem_vec3_sub(p, c_world), 1.0 / r);
            cr_assert_leq(ldem_vec3_dist(grad, normal),
                          sqrt(3.0) * h / (2.0 * r_min) + 2.0 * h * h / (r_min * r_min));
        }
    }
    /* NULL gradient is allowed (unposed grain, a point 0.3 from the centre). */
    double phi;
    ldem_vec3 p = ldem_vec3_add(c_body, ldem_vec3_make(0.0, 0.3, 0.0));
    cr_assert_eq(ldem_levelset_query(&ls, ldem_vec3_zero(), ldem_quat_identity(), p, &phi, NULL),
                 1);
    cr_assert_leq(fabs(phi - (0.3 - arg[3])), h * h / (4.0 * (0.3 - sqrt(3.0) * h)) + 1e-6);
    ldem_lset_free(&ls);
}

/* Points outside the grid box are flagged 0 (φ clamped), points inside 1, for a posed grain:
 * the box is tested in the body frame. */
Test(levelset, outside_grid_flag)
{
    const double arg[4] = {0.0, 0.0, 0.0, 0.5};
    ldem_lset ls = make_grid(1.0, 0.1, sphere_distance, arg); /* box [−1, 1]³ */
    ldem_quat q = ldem_quat_from_axis_angle(ldem_vec3_make(0, 0, 1), 0.25 * 3.14159265358979);
    ldem_vec3 xc = ldem_vec3_make(10.0, 0.0, 0.0);
    double phi;
    /* 1.2 along world x is 1.2/√2 ≈ 0.85 along both body x and y: inside the box. */
    cr_assert_eq(ldem_levelset_query(&ls, xc, q, ldem_vec3_make(11.2, 0.0, 0.0), &phi, NULL), 1);
    cr_assert_leq(fabs(phi - 0.7), 0.02);
    /* 1.2 along world (1, 1)/√2 is 1.2 along body x: outside. */
    ldem_vec3 out = ldem_vec3_make(10.0 + 1.2 / sqrt(2.0), 1.2 / sqrt(2.0), 0.0);
    cr_assert_eq(ldem_levelset_query(&ls, xc, q, out, &phi, NULL), 0);
    cr_assert_eq(ldem_levelset_query(&ls, xc, q, ldem_vec3_make(10, 0, 1.01), &phi, NULL), 0);
    cr_assert_eq(ldem_levelset_query(&ls, xc, q, ldem_vec3_make(10, 0, 0.99), &phi, NULL), 1);
    cr_assert_eq(ldem_levelset_query(&ls, ldem_vec3_zero(), q, ldem_vec3_make(NAN, 0, 0), &phi,
                                     NULL),
                 0);
    ldem_lset_free(&ls);
}

/* 2/∇²φ of the fixture's spheres R = 1 and 2 at h = R/20, at random surface points: R within
 * 2%. (∇²(|x| − R) = 2/|x|; the nodal second differences are O(h²) accurate and the float32
 * round-off 6e-8/h² is 1e-5 of 2/R.) */
Test(levelset, curvature_radius_spheres)
{
    const double radii[2] = {1.0, 2.0};
    uint64_t rng = 3;
    for (int c = 0; c < 2; c++) {
        ldem_world w;
        wf_world(&w, LDEM_LAW_HERTZ_JAGER);
        double R = radii[c], h = R / 20.0;
        uint32_t s = wf_add_ls_sphere_shape(&w, R, h, 0);
        double worst = 0.0;
        for (int k = 0; k < 300; k++) {
            ldem_vec3 p = ldem_vec3_scale(random_direction(&rng), R);
            double r = ldem_levelset_curvature_radius(&w.shapes[s].lset, p);
            worst = fmax(worst, fabs(r - R) / R);
        }
        cr_log_info("curvature radius of R = %g at h = R/20: worst rel error %.2g", R, worst);
        cr_assert_leq(worst, 0.02, "R = %g: worst relative error %g", R, worst);
        ldem_world_free(&w);
    }
}

/* A flat face has ∇²φ = 0 and a concave one ∇²φ < 0: both give INFINITY. The plane sits on
 * dyadic values (z0 and h powers of two) so its float32 φ is exact and the Laplacian exactly
 * 0; a plane at a generic height carries float32 round-off in φ, whose second differences
 * (~1e-7/h²) may leave a tiny Laplacian of either sign: then the radius is huge (> 1000 × the
 * grid) or INFINITY, which the patch's cap turns into "flat". A convex sphere in the same kind
 * of hand-made grid gives its radius (the routine sees any grid, not only the fixture's). */
Test(levelset, curvature_radius_flat_and_concave)
{
    const double z0 = 0.125, z_generic = 0.13;
    ldem_lset plane = make_grid(1.0, 0.0625, plane_distance, &z0);
    ldem_lset generic = make_grid(1.0, 0.05, plane_distance, &z_generic);
    const double cavity_r = 0.7;
    ldem_lset cavity = make_grid(1.0, 0.05, cavity_distance, &cavity_r);
    const double ball[4] = {0.1, 0.0, -0.1, 0.5};
    ldem_lset sphere = make_grid(1.0, 0.025, sphere_distance, ball);
    uint64_t rng = 11;
    for (int k = 0; k < 50; k++) {
        ldem_vec3 u = random_direction(&rng);
        ldem_vec3 on_plane = ldem_vec3_make(0.6 * u.x, 0.6 * u.y, z0);
        cr_assert(isinf(ldem_levelset_curvature_radius(&plane, on_plane)));
        on_plane.z = z_generic;
        double r_generic = ldem_levelset_curvature_radius(&generic, on_plane);
        cr_assert_gt(r_generic, 1000.0, "generic plane: r = %g", r_generic);
        cr_assert(isinf(ldem_levelset_curvature_radius(&cavity, ldem_vec3_scale(u, cavity_r))));
        ldem_vec3 on_ball = ldem_vec3_axpy(0.5, u, ldem_vec3_make(0.1, 0.0, -0.1));
        double r = ldem_levelset_curvature_radius(&sphere, on_ball);
        cr_assert_leq(fabs(r - 0.5), 0.01, "r = %g", r);
    }
    ldem_lset_free(&plane);
    ldem_lset_free(&generic);
    ldem_lset_free(&cavity);
    ldem_lset_free(&sphere);
}
