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
