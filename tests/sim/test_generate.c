/* Random grain generation (ldem/sim/generate.h). Validations: the drawn diameters against
 * the closed-form or tabulated distributions (Kolmogorov–Smirnov distance under its 1 %
 * critical value, by number, or mass-weighted for by: mass), no two placed grains overlapping
 * by an independent all-pairs check (spheres exactly; ellipsoids by dense sampling of the
 * analytic surfaces, to the node spacing the placement resolves), the solid fraction reached,
 * uniform orientations (mean rotation matrix within 4σ of zero). Guards: the same seed gives
 * the same bytes, a full region fails with a message.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sim/generate.h"

static const double PI = 3.14159265358979323846;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

/* KS distance of n sorted samples d (weights w, NULL: equal) from the CDF F. */
static double ks_distance(const double *d, const double *w, size_t n, double (*F)(double, const void *),
                          const void *arg)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += w ? w[i] : 1.0;
    double acc = 0.0, worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double f = F(d[i], arg);
        double below = acc / total;
        acc += w ? w[i] : 1.0;
        double above = acc / total;
        worst = fmax(worst, fmax(fabs(f - below), fabs(f - above)));
    }
    return worst;
}

typedef struct sample {
    double d, w;
} sample;

static int cmp_sample(const void *a, const void *b)
{
    return cmp_double(&((const sample *)a)->d, &((const sample *)b)->d);
}

/* n diameters of s, sorted, with their mass weights d³ (by_mass) or 1. */
static void draw(const ldem_gen_sizes *s, size_t n, double *d, double *w)
{
    sample *x = malloc(n * sizeof *x);
    uint64_t state = 12345;
    for (size_t i = 0; i < n; i++) {
        x[i].d = ldem_gen_draw_diameter(s, &state);
        x[i].w = s->by_mass ? x[i].d * x[i].d * x[i].d : 1.0;
    }
    qsort(x, n, sizeof *x, cmp_sample);
    for (size_t i = 0; i < n; i++)
        d[i] = x[i].d, w[i] = x[i].w;
    free(x);
}

static double lognormal_cdf(double d, const void *arg)
{
    const double *p = arg; /* median, sigma */
    return normal_cdf((log(d) - log(p[0])) / p[1]);
}

static double uniform_cdf(double d, const void *arg)
{
    const double *p = arg;
    return d <= p[0] ? 0.0 : d >= p[1] ? 1.0 : (d - p[0]) / (p[1] - p[0]);
}

static const double TABLE_D[] = {1.0, 2.0, 4.0, 8.0};
static const double TABLE_P[] = {0.0, 0.2, 0.7, 1.0};

static double sieve_cdf(double d, const void *arg)
{
    (void)arg;
    for (int k = 1; k < 4; k++)
        if (d <= TABLE_D[k]) {
            double t = (log(d) - log(TABLE_D[k - 1])) / (log(TABLE_D[k]) - log(TABLE_D[k - 1]));
            return TABLE_P[k - 1] + t * (TABLE_P[k] - TABLE_P[k - 1]);
        }
    return 1.0;
}

#define NDRAW 40000
/* KS 1 % critical value 1.63/√n; a mass-weighted sample has an effective size n_e =
 * (Σw)²/Σw² smaller than n. */
static double critical(const double *w, size_t n)
{
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++)
        s += w[i], s2 += w[i] * w[i];
    return 1.63 / sqrt(s * s / s2);
}

static void check_distribution(const ldem_gen_sizes *s, double (*F)(double, const void *),
                               const void *arg)
{
    double *d = malloc(NDRAW * sizeof *d), *w = malloc(NDRAW * sizeof *w);
    draw(s, NDRAW, d, w);
    double ks = ks_distance(d, s->by_mass ? w : NULL, NDRAW, F, arg);
    double crit = s->by_mass ? critical(w, NDRAW) : 1.63 / sqrt((double)NDRAW);
    cr_assert(ks < crit, "KS distance %g, 1 %% critical value %g", ks, crit);
    free(d), free(w);
}

Test(generate, lognormal_by_number_and_by_mass)
{
    double p[2] = {4.0, 0.3};
    ldem_gen_sizes s = {.kind = LDEM_GEN_SIZE_LOGNORMAL, .median = 4.0, .sigma = 0.3,
                        .lo = 0.0, .hi = INFINITY};
    check_distribution(&s, lognormal_cdf, p);
    s.by_mass = 1; /* the mass-weighted diameters follow the stated lognormal */
    check_distribution(&s, lognormal_cdf, p);
}

Test(generate, uniform_and_sieve_by_mass)
{
    double p[2] = {2.0, 6.0};
    ldem_gen_sizes s = {.kind = LDEM_GEN_SIZE_UNIFORM, .lo = 2.0, .hi = 6.0, .by_mass = 1};
    check_distribution(&s, uniform_cdf, p);
    s.by_mass = 0;
    check_distribution(&s, uniform_cdf, p);
    ldem_gen_sizes v = {.kind = LDEM_GEN_SIZE_SIEVE, .ntable = 4, .table_d = TABLE_D,
                        .table_p = TABLE_P, .by_mass = 1};
    check_distribution(&v, sieve_cdf, NULL);
}

static ldem_gen_spec box_spec(const ldem_gen_shape *shapes, size_t nshapes, uint64_t count)
{
    ldem_gen_spec s = {.region = {.kind = LDEM_GEN_BOX, .lo = {0, 0, 0}, .hi = {20, 20, 40}},
                       .count = count, .nshapes = nshapes, .shapes = shapes, .seed = 3,
                       .attempts = 10000,
                       .sizes = {.kind = LDEM_GEN_SIZE_UNIFORM, .lo = 1.0, .hi = 2.0}};
    return s;
}

Test(generate, spheres_clear_of_each_other_and_obstacles_inside_the_box)
{
    ldem_gen_shape ball = {.radius = 1.0, .fraction = 1.0};
    ldem_gen_spec s = box_spec(&ball, 1, 1500);
    ldem_gen_grain wall_ball = {.x = {10, 10, 20}, .q = {1, 0, 0, 0}, .radius = 5.0};
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    cr_assert_eq(ldem_generate(&s, &wall_ball, 1, &g, &n, why, sizeof why), 0, "%s", why);
    cr_assert_eq(n, 1500u);
    for (size_t i = 0; i < n; i++) {
        double r = g[i].radius;
        cr_assert(r >= 0.5 && r <= 1.0, "radius %g", r);
        cr_assert(g[i].x.x >= r && g[i].x.x <= 20 - r && g[i].x.y >= r && g[i].x.y <= 20 - r &&
                  g[i].x.z >= r && g[i].x.z <= 40 - r, "grain %zu leaves the box", i);
        cr_assert(ldem_vec3_dist(g[i].x, wall_ball.x) >= r + 5.0, "grain %zu in the obstacle", i);
        if (i)
            cr_assert(g[i].radius <= g[i - 1].radius, "not largest first");
        for (size_t j = 0; j < i; j++)
            cr_assert(ldem_vec3_dist(g[i].x, g[j].x) >= g[i].radius + g[j].radius,
                      "grains %zu and %zu overlap", i, j);
    }
    /* the same seed, the same bytes; another seed, other positions */
    ldem_gen_grain *h;
    size_t m;
    cr_assert_eq(ldem_generate(&s, &wall_ball, 1, &h, &m, why, sizeof why), 0);
    cr_assert_eq(m, n);
    for (size_t i = 0; i < n; i++) /* field by field: the struct's tail padding is not set */
        cr_assert(memcmp(&g[i].x, &h[i].x, sizeof g[i].x) == 0 &&
                      memcmp(&g[i].q, &h[i].q, sizeof g[i].q) == 0 &&
                      memcmp(&g[i].radius, &h[i].radius, sizeof g[i].radius) == 0 &&
                      g[i].shape == h[i].shape && g[i].slot == h[i].slot,
                  "grain %zu differs between runs of one seed", i);
    free(h);
    s.seed = 4;
    cr_assert_eq(ldem_generate(&s, &wall_ball, 1, &h, &m, why, sizeof why), 0);
    cr_assert(memcmp(&g[0].x, &h[0].x, sizeof g[0].x) != 0);
    free(h);
    free(g);
}

Test(generate, solid_fraction_reached_and_mix_by_number)
{
    ldem_gen_shape mix[2] = {{.radius = 1.0, .fraction = 0.75}, {.radius = 1.0, .fraction = 0.25}};
    ldem_gen_spec s = box_spec(mix, 2, 0);
    s.solid_fraction = 0.25;
    ldem_gen_grain *g;
    size_t n, in_second = 0;
    char why[400];
    cr_assert_eq(ldem_generate(&s, NULL, 0, &g, &n, why, sizeof why), 0, "%s", why);
    double v = 0.0, last = 0.0;
    for (size_t i = 0; i < n; i++) {
        last = 4.0 / 3.0 * PI * pow(g[i].radius, 3);
        v += last;
        in_second += g[i].slot == 1;
    }
    double target = 0.25 * 20 * 20 * 40;
    cr_assert(v >= target && v < target + 4.0 / 3.0 * PI, "solid volume %g for a target %g", v,
              target);
    /* the mix keeps its shares at every prefix of the draw: within one grain */
    cr_assert(fabs((double)in_second - 0.25 * (double)n) <= 1.0, "%zu of %zu", in_second, n);
    free(g);
}

Test(generate, a_full_region_fails_with_a_reason)
{
    ldem_gen_shape ball = {.radius = 1.0, .fraction = 1.0};
    ldem_gen_spec s = box_spec(&ball, 1, 20000);
    s.attempts = 200;
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    cr_assert_eq(ldem_generate(&s, NULL, 0, &g, &n, why, sizeof why), 1);
    cr_assert(strstr(why, "found no room") && strstr(why, "of 20000 grains"), "%s", why);
    cr_assert_null(g);
}

/* An ellipsoid (semi-axes 3, 1.5, 1) as a level set on a grid of spacing 0.1 and 800 nodes on
 * its surface (a Fibonacci lattice mapped onto it). φ is the scaled algebraic distance: its
 * sign and zero set are exact, which is what placement asks of it. */
static const double AX[3] = {3.0, 1.5, 1.0};

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
                double s = sqrt(x * x / 9.0 + y * y / 2.25 + z * z);
                ls->phi[i + ls->dims[0] * (j + ls->dims[1] * k)] = (float)((s - 1.0) * 1.0);
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

/* How far point p lies inside the ellipsoid posed at x, q: (1 − s)·c with s its scaled
 * radius (0 outside), c the smallest semi-axis: a lower bound of the depth. */
static double depth_inside(ldem_vec3 p, ldem_vec3 x, ldem_quat q)
{
    ldem_vec3 b = ldem_quat_rotate_inv(q, ldem_vec3_sub(p, x));
    double s = sqrt(b.x * b.x / 9.0 + b.y * b.y / 2.25 + b.z * b.z);
    return s < 1.0 ? (1.0 - s) * AX[2] : 0.0;
}

Test(generate, level_set_grains_by_their_true_shapes)
{
    ldem_lset ls;
    ldem_nodes nodes;
    ellipsoid(&ls, &nodes);
    ldem_gen_shape rod = {.radius = 3.05, .lset = &ls, .nodes = &nodes,
                          .volume = 4.0 / 3.0 * PI * 3.0 * 1.5 * 1.0, .fraction = 1.0};
    ldem_gen_spec s = {.region = {.kind = LDEM_GEN_BOX, .lo = {0, 0, 0}, .hi = {20, 20, 20}},
                       .count = 60, .nshapes = 1, .shapes = &rod, .seed = 9, .attempts = 20000};
    ldem_gen_grain *g;
    size_t n;
    char why[400];
    cr_assert_eq(ldem_generate(&s, NULL, 0, &g, &n, why, sizeof why), 0, "%s", why);
    size_t close_pairs = 0;
    double worst = 0.0;
    double sum[3][3] = {{0}};
    for (size_t i = 0; i < n; i++) {
        ldem_vec3 e[3] = {ldem_quat_rotate(g[i].q, ldem_vec3_make(1, 0, 0)),
                          ldem_quat_rotate(g[i].q, ldem_vec3_make(0, 1, 0)),
                          ldem_quat_rotate(g[i].q, ldem_vec3_make(0, 0, 1))};
        for (int a = 0; a < 3; a++)
            sum[a][0] += e[a].x, sum[a][1] += e[a].y, sum[a][2] += e[a].z;
        for (size_t j = 0; j < i; j++) {
            if (ldem_vec3_dist(g[i].x, g[j].x) >= 6.1)
                continue;
            close_pairs++;
            /* 20000 points of i's analytic surface against j's interior */
            for (int k = 0; k < 20000; k++) {
                double z = 1.0 - 2.0 * (k + 0.5) / 20000.0, r = sqrt(1.0 - z * z);
                double t = 2.399963229728653 * k;
                ldem_vec3 p = ldem_vec3_add(
                    g[i].x, ldem_quat_rotate(g[i].q, ldem_vec3_make(AX[0] * r * cos(t),
                                                                    AX[1] * r * sin(t), AX[2] * z)));
                worst = fmax(worst, depth_inside(p, g[j].x, g[j].q));
            }
        }
    }
    /* Bounding spheres alone would keep every pair 6.1 apart: the true shapes let closer
     * pairs in, and none of them overlaps by more than the nodes' spacing resolves (the
     * nodes are ~0.25 apart on the surface: a node-free gap of that size can hide ~0.02). */
    cr_assert(close_pairs > 0, "no pair closer than the bounding spheres allow");
    cr_assert(worst < 0.05, "an overlap of depth %g", worst);
    /* uniform orientations: each entry of the mean rotation matrix has σ = 1/√(3n) */
    double tol = 4.0 / sqrt(3.0 * (double)n);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            cr_assert(fabs(sum[a][b] / (double)n) < tol, "mean R[%d][%d] = %g (4 sigma %g)", a, b,
                      sum[a][b] / (double)n, tol);
    free(g);
    ldem_lset_free(&ls);
    free(nodes.position);
}
