/* Generated grains clear of the scene's walls, and the memory budget of a solid fraction
 * (ldem/sim/generate.h). Validations: ldem_gen_touches_wall against hand-computed cases;
 * spheres generated in a box that a tilted plane and a drum cut through all lie on the
 * grains' side, checked by the closed-form distances; ellipsoids generated across a floor all
 * lie above it, checked by the closed-form support function of the posed ellipsoid
 * (lowest point z − √Σ aᵢ²(Rᵀe_z)ᵢ²), to the node spacing the placement resolves. Guard: a
 * solid fraction that needs more grains than max_grains fails before placing.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sim/generate.h"
#include "ldem/sim/world.h"

static const double PI = 3.14159265358979323846;

Test(generate_walls, hand_computed_cases)
{
    ldem_wall_geom floor = {.kind = LDEM_WALL_PLANE, .point = {0, 0, 1}, .normal = {0, 0, 1}};
    ldem_gen_grain g = {.x = {5, -3, 3}, .q = {1, 0, 0, 0}, .radius = 2.0};
    cr_assert_not(ldem_gen_touches_wall(&floor, &g), "resting exactly on the floor");
    g.x.z = 2.999;
    cr_assert(ldem_gen_touches_wall(&floor, &g), "1e-3 into the floor");
    /* a drum of radius 10 about the x axis: ρ = 5 leaves 5 of room */
    ldem_wall_geom drum = {.kind = LDEM_WALL_CYLINDER, .point = {0, 0, 0}, .normal = {1, 0, 0},
                           .radius = 10.0, .inside = 1};
    g = (ldem_gen_grain){.x = {100, 3, 4}, .q = {1, 0, 0, 0}, .radius = 5.0};
    cr_assert_not(ldem_gen_touches_wall(&drum, &g));
    g.radius = 5.001;
    cr_assert(ldem_gen_touches_wall(&drum, &g));
    /* a rod of radius 2 about the same axis: ρ = 5 leaves 3 */
    ldem_wall_geom rod = drum;
    rod.radius = 2.0, rod.inside = 0;
    g.radius = 3.0;
    cr_assert_not(ldem_gen_touches_wall(&rod, &g));
    g.radius = 3.001;
    cr_assert(ldem_gen_touches_wall(&rod, &g));
}

Test(generate_walls, spheres_on_the_grains_side_of_a_plane_and_a_drum)
{
    double c = 0.6, s = 0.8;
    ldem_wall_geom walls[2] = {
        {.kind = LDEM_WALL_PLANE, .point = {0, 0, 10}, .normal = {0, c, s}},
        {.kind = LDEM_WALL_CYLINDER, .point = {0, 0, 0}, .normal = {0, 0, 1}, .radius = 15.0,
         .inside = 1}};
    ldem_gen_shape ball = {.radius = 1.0, .fraction = 1.0};
    ldem_gen_spec spec = {.region = {.kind = LDEM_GEN_BOX, .lo = {-20, -20, 0}, .hi = {20, 20, 40}},
                          .count = 800, .nshapes = 1, .shapes = &ball, .seed = 5,
                          .attempts = 100000, .nwalls = 2, .walls = walls,
                          .sizes = {.kind = LDEM_GEN_SIZE_UNIFORM, .lo = 1.0, .hi = 3.0}};
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    cr_assert_eq(ldem_generate(&spec, NULL, 0, &g, &n, why, sizeof why), 0, "%s", why);
    cr_assert_eq(n, 800u);
    double closest_plane = INFINITY, closest_drum = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double plane = c * g[i].x.y + s * (g[i].x.z - 10.0) - g[i].radius;
        double drum = 15.0 - hypot(g[i].x.x, g[i].x.y) - g[i].radius;
        cr_assert(plane >= 0.0, "grain %zu %g behind the plane", i, -plane);
        cr_assert(drum >= 0.0, "grain %zu %g outside the drum", i, -drum);
        closest_plane = fmin(closest_plane, plane);
        closest_drum = fmin(closest_drum, drum);
        for (size_t j = 0; j < i; j++)
            cr_assert(ldem_vec3_dist(g[i].x, g[j].x) >= g[i].radius + g[j].radius);
    }
    /* the walls cut the region: grains crowd up to them, not stopped short */
    cr_assert(closest_plane < 0.2 && closest_drum < 0.2, "gaps %g %g", closest_plane,
              closest_drum);
    free(g);
}

static const double AX[3] = {3.0, 1.5, 1.0};

/* The level set of the ellipsoid x²/9 + y²/2.25 + z² = 1 (scaled radius − 1, not a distance:
 * only its sign matters here) and 800 nodes on its surface (a Fibonacci lattice). */
static void ellipsoid(ldem_lset *ls, ldem_nodes *nodes)
{
    double h = 0.1;
    for (int a = 0; a < 3; a++) {
        ls->dims[a] = (uint32_t)(2.0 * (AX[a] + 0.5) / h) + 1;
        ls->origin[a] = -(AX[a] + 0.5);
        ls->spacing[a] = h;
    }
    size_t np = (size_t)ls->dims[0] * ls->dims[1] * ls->dims[2];
    ls->phi = malloc(np * sizeof *ls->phi);
    for (uint32_t k = 0; k < ls->dims[2]; k++)
        for (uint32_t j = 0; j < ls->dims[1]; j++)
            for (uint32_t i = 0; i < ls->dims[0]; i++) {
                double x = ls->origin[0] + i * h, y = ls->origin[1] + j * h,
                       z = ls->origin[2] + k * h;
                ls->phi[i + ls->dims[0] * (j + ls->dims[1] * k)] =
                    (float)(sqrt(x * x / 9.0 + y * y / 2.25 + z * z) - 1.0);
            }
    memset(nodes, 0, sizeof *nodes);
    nodes->count = 800;
    nodes->position = malloc(3 * nodes->count * sizeof(double));
    for (uint64_t k = 0; k < nodes->count; k++) {
        double z = 1.0 - 2.0 * (k + 0.5) / nodes->count, r = sqrt(1.0 - z * z);
        double t = PI * (3.0 - sqrt(5.0)) * k;
        nodes->position[3 * k] = AX[0] * r * cos(t);
        nodes->position[3 * k + 1] = AX[1] * r * sin(t);
        nodes->position[3 * k + 2] = AX[2] * z;
    }
}

Test(generate_walls, ellipsoids_above_a_floor_by_their_true_shapes)
{
    ldem_lset ls;
    ldem_nodes nodes;
    ellipsoid(&ls, &nodes);
    ldem_gen_shape rock = {.radius = 3.05, .lset = &ls, .nodes = &nodes,
                           .volume = 4.0 / 3.0 * PI * 3.0 * 1.5 * 1.0, .fraction = 1.0};
    ldem_wall_geom floor = {.kind = LDEM_WALL_PLANE, .point = {0, 0, 5}, .normal = {0, 0, 1}};
    ldem_gen_spec spec = {.region = {.kind = LDEM_GEN_BOX, .lo = {0, 0, 0}, .hi = {30, 30, 20}},
                          .count = 60, .nshapes = 1, .shapes = &rock, .seed = 4,
                          .attempts = 20000, .nwalls = 1, .walls = &floor};
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    cr_assert_eq(ldem_generate(&spec, NULL, 0, &g, &n, why, sizeof why), 0, "%s", why);
    double deepest = 0.0;
    size_t closer_than_bounding = 0;
    for (size_t i = 0; i < n; i++) {
        /* the lowest point of the posed ellipsoid: its support in −e_z */
        ldem_vec3 e = ldem_quat_rotate_inv(g[i].q, ldem_vec3_make(0, 0, 1));
        double reach = sqrt(AX[0] * AX[0] * e.x * e.x + AX[1] * AX[1] * e.y * e.y +
                            AX[2] * AX[2] * e.z * e.z);
        deepest = fmax(deepest, 5.0 - (g[i].x.z - reach));
        closer_than_bounding += g[i].x.z - 5.0 < 3.05;
    }
    /* nodes ~0.25 apart on the surface: a flat wall can slip ~0.02 between them */
    cr_assert(deepest < 0.05, "an ellipsoid %g below the floor", deepest);
    cr_assert(closer_than_bounding > 5, "only %zu grains nearer the floor than their bounding "
              "spheres allow", closer_than_bounding);
    free(g);
    ldem_lset_free(&ls);
    free(nodes.position);
}

Test(generate_walls, a_solid_fraction_beyond_max_grains_fails_before_placing)
{
    ldem_gen_shape ball = {.radius = 0.5, .fraction = 1.0};
    ldem_gen_spec spec = {.region = {.kind = LDEM_GEN_BOX, .lo = {0, 0, 0}, .hi = {10, 10, 10}},
                          .solid_fraction = 0.3, .nshapes = 1, .shapes = &ball, .seed = 1,
                          .attempts = 10000, .max_grains = 100};
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    /* 0.3 · 1000 / (π/6) ≈ 573 grains needed */
    cr_assert_eq(ldem_generate(&spec, NULL, 0, &g, &n, why, sizeof why), 3);
    cr_assert_null(g);
    spec.max_grains = 600;
    cr_assert_eq(ldem_generate(&spec, NULL, 0, &g, &n, why, sizeof why), 0, "%s", why);
    cr_assert_eq(n, 573u);
    free(g);
}
