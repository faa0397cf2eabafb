/* Unit tests of ldem_scene_build (ldem/sim/scene.h) and ldem_world_critical_dt
 * (ldem/sim/timestep.h): a scene with spheres of three materials and a level-set grain from a
 * bundle written here becomes the expected world (masses and inertia against closed forms,
 * the pair-law table including the effective E for unequal materials, walls), `dt: auto`
 * equals the Rayleigh / linear estimates recomputed here, and scenes that cannot run are
 * refused with FILE:LINE messages. Deformable grains (a bundle with two sampled modes written
 * here): which bodies deform, their modal offsets and initial ε, ε̇, the modeset's K, M, C
 * against the bundle and the scene's damping overrides (closed forms), precomputed level-set
 * ranges, dt = min(contact, β_d/ω_max), the probe choice, and every refusal. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/bundle.h"
#include "ldem/sections.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/timestep.h"

#define SCENES LDEM_TEST_DATA "/scenes/"

static const double PI = 3.14159265358979323846;

/* The test bundle: a level set on a 5³ grid of spacing H, seven surface nodes whose farthest
 * is (1, 1, 1) mm, and mass properties of density RHO_B. */
#define H 0.001
#define VOLUME 1.2e-8
#define RHO_B 1000.0
static const double INERTIA_B[3] = {2e-12, 3e-12, 4e-12};

/* Add an encoded section (encode first: the payload exists only after the call). */
static void put(ldem_bundle *b, const char *tag, int rc, unsigned char **data, uint64_t *len)
{
    ldem_err err;
    cr_assert_eq(rc, LDEM_OK);
    cr_assert_eq(ldem_bundle_put(b, tag, 0, *data, *len, &err), LDEM_OK, "%s", err.msg);
}

/* Write the bundle to `path`; `with_nodes` = 0 leaves out the NODE section. */
static void write_bundle(const char *path, int with_nodes)
{
    ldem_err err;
    ldem_bundle b;
    ldem_bundle_init(&b);
    unsigned char *data;
    uint64_t len;

    float phi[125];
    ldem_lset ls = {{5, 5, 5}, {-2 * H, -2 * H, -2 * H}, {H, H, H}, phi};
    for (int k = 0; k < 5; k++)
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 5; i++)
                phi[i + 5 * (j + 5 * k)] =
                    (float)(H * sqrt((i - 2) * (i - 2) + (j - 2) * (j - 2) + (k - 2) * (k - 2)) -
                            1.5 * H);
    put(&b, LDEM_TAG_LSET, ldem_lset_encode(&ls, &data, &len, &err), &data, &len);

    if (with_nodes) {
        double pos[21] = {1.5e-3, 0, 0, -1.5e-3, 0, 0, 0, 1.5e-3, 0, 0, -1.5e-3, 0,
                          0, 0, 1.5e-3, 0, 0, -1.5e-3, 1e-3, 1e-3, 1e-3};
        double normal[21], area[7];
        for (int n = 0; n < 7; n++) {
            double r = sqrt(pos[3 * n] * pos[3 * n] + pos[3 * n + 1] * pos[3 * n + 1] +
                            pos[3 * n + 2] * pos[3 * n + 2]);
            for (int a = 0; a < 3; a++)
                normal[3 * n + a] = pos[3 * n + a] / r;
            area[n] = 1e-7;
        }
        ldem_nodes nodes = {7, pos, normal, area, 0, NULL};
        put(&b, LDEM_TAG_NODE, ldem_nodes_encode(&nodes, &data, &len, &err), &data, &len);
    }

    ldem_body body = {VOLUME, RHO_B, VOLUME * RHO_B, {INERTIA_B[0], INERTIA_B[1], INERTIA_B[2]},
                      {0, 0, 0}, {1, 0, 0, 0}};
    put(&b, LDEM_TAG_BODY, ldem_body_encode(&body, &data, &len, &err), &data, &len);

    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "cannot write %s", path);
    cr_assert_eq(ldem_bundle_write(fp, path, &b, &err), LDEM_OK, "%s", err.msg);
    fclose(fp);
    ldem_bundle_free(&b);
}

static const char *bundle_path(void)
{
    static int written;
    const char *path = LDEM_TEST_TMP "/scene_build_grain.ldg";
    if (!written)
        write_bundle(path, 1);
    written = 1;
    return path;
}

/* Load build.yaml (bundle path set) plus extra overrides, and build. */
static int build(ldem_scene *s, ldem_world *w, size_t nextra, const char *const *extra,
                 ldem_err *err)
{
    char set_a[512], set_b[512];
    snprintf(set_a, sizeof set_a, "shapes.grain.bundle=%s", bundle_path());
    snprintf(set_b, sizeof set_b, "shapes.grain2.bundle=%s", bundle_path());
    const char *sets[16] = {set_a, set_b};
    cr_assert_leq(nextra, 14);
    for (size_t k = 0; k < nextra; k++)
        sets[2 + k] = extra[k];
    ldem_err_clear(err);
    int rc = ldem_scene_load(s, SCENES "build.yaml", 2 + nextra, sets, err);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err->file, err->line, err->msg);
    return ldem_scene_build(s, w, err);
}

static void build_ok(ldem_scene *s, ldem_world *w, size_t nextra, const char *const *extra)
{
    ldem_err err;
    cr_assert_eq(build(s, w, nextra, extra, &err), LDEM_OK, "%s:%ld: %s", err.file, err.line,
                 err.msg);
}

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* ---- bodies ---- */

Test(scene_build, sphere_masses_and_poses)
{
    ldem_scene s;
    ldem_world w;
    build_ok(&s, &w, 0, NULL);
    cr_assert_eq(w.bodies.count, 5);
    const ldem_bodies *b = &w.bodies;
    /* glass ball r = 1 mm, steel ball r = 0.5 mm, fixed rubber ball r = 0.8 mm */
    const size_t idx[3] = {0, 1, 4};
    const double r[3] = {1e-3, 0.5e-3, 0.8e-3}, rho[3] = {2500, 7800, 1100};
    for (int k = 0; k < 3; k++) {
        size_t i = idx[k];
        double m = rho[k] * 4.0 / 3.0 * PI * pow(r[k], 3);
        cr_assert_eq(b->kind[i], LDEM_SHAPE_SPHERE);
        cr_assert_eq(b->radius[i], r[k]);
        cr_assert_leq(rel(b->mass[i], m), 1e-15);
        cr_assert_leq(rel(b->inv_mass[i], 1.0 / m), 1e-15);
        for (int a = 0; a < 3; a++)
            cr_assert_leq(rel((&b->inertia[i].x)[a], 0.4 * m * r[k] * r[k]), 1e-15);
        cr_assert(b->x_prev[i].x == b->x[i].x && b->x_prev[i].y == b->x[i].y &&
                  b->x_prev[i].z == b->x[i].z);
        cr_assert(b->q[i].w == 1.0 && b->q_prev[i].w == 1.0);
    }
    cr_assert(b->material[0] == 0 && b->material[1] == 1 && b->material[4] == 2);
    cr_assert_eq(b->flags[4], LDEM_BODY_FIXED);
    cr_assert_eq(b->flags[0], 0u);
    cr_assert(b->x[1].x == 0.004 && b->x[1].y == 0.0 && b->x[1].z == 0.005);
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

/* Rotation matrix of a unit quaternion (w, x, y, z), written out. */
static void rotation_matrix(const double q[4], double R[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(R, m, sizeof m);
}

Test(scene_build, level_set_grain)
{
    ldem_scene s;
    ldem_world w;
    build_ok(&s, &w, 0, NULL);
    /* two scene shapes name the same file: one world shape */
    cr_assert_eq(w.nshapes, 1);
    const ldem_shape *sh = &w.shapes[0];
    cr_assert_str_eq(sh->name, "grain");
    cr_assert_str_eq(sh->source, bundle_path());
    cr_assert_eq(sh->volume, VOLUME);
    for (int a = 0; a < 3; a++)
        cr_assert_leq(rel((&sh->inertia_per_density.x)[a], INERTIA_B[a] / RHO_B), 1e-15);
    /* farthest node |(1,1,1)| mm plus half the grid spacing */
    cr_assert_leq(rel(sh->bounding_radius, sqrt(3.0) * 1e-3 + 0.5 * H), 1e-15);
    cr_assert_eq(sh->nodes.count, 7);
    cr_assert(sh->lset.dims[0] == 5 && sh->lset.phi != NULL);

    const ldem_bodies *b = &w.bodies;
    const size_t steel = 2, glass = 3;
    cr_assert(b->kind[steel] == LDEM_SHAPE_LSET && b->kind[glass] == LDEM_SHAPE_LSET);
    cr_assert(b->shape[steel] == 0 && b->shape[glass] == 0);
    cr_assert_eq(b->radius[steel], sh->bounding_radius);
    cr_assert_leq(rel(b->mass[steel], 7800 * VOLUME), 1e-15);
    cr_assert_leq(rel(b->mass[glass], 2500 * VOLUME), 1e-15);
    for (int a = 0; a < 3; a++) {
        cr_assert_leq(rel((&b->inertia[steel].x)[a], 7800 * INERTIA_B[a] / RHO_B), 1e-15);
        cr_assert_leq(rel((&b->inertia[glass].x)[a], 2500 * INERTIA_B[a] / RHO_B), 1e-15);
    }

    /* orientation normalized; L_b = I Rᵀ ω with R from the quaternion written out above */
    double q[4] = {0.9, 0.1, -0.3, 0.2}, n = 0;
    for (int a = 0; a < 4; a++)
        n += q[a] * q[a];
    for (int a = 0; a < 4; a++)
        q[a] /= sqrt(n);
    cr_assert_leq(fabs(b->q[steel].w - q[0]) + fabs(b->q[steel].x - q[1]) +
                      fabs(b->q[steel].y - q[2]) + fabs(b->q[steel].z - q[3]), 4e-16);
    cr_assert(b->q_prev[steel].w == b->q[steel].w && b->q_prev[steel].z == b->q[steel].z);
    double R[3][3], omega[3] = {3, -1, 2};
    rotation_matrix(q, R);
    for (int a = 0; a < 3; a++) {
        double wb = R[0][a] * omega[0] + R[1][a] * omega[1] + R[2][a] * omega[2];
        double L = (&b->inertia[steel].x)[a] * wb;
        cr_assert_leq(fabs((&b->L[steel].x)[a] - L), 1e-14 * fabs((&b->inertia[steel].x)[a]),
                      "L[%d] = %g, expected %g", a, (&b->L[steel].x)[a], L);
    }
    /* and the round trip through the world's own ω */
    ldem_vec3 w_back = ldem_bodies_omega(b, steel);
    cr_assert_leq(fabs(w_back.x - 3) + fabs(w_back.y + 1) + fabs(w_back.z - 2), 1e-13);
    cr_assert(b->v[steel].x == 0.1 && b->v[steel].y == 0 && b->v[steel].z == 0);
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

/* ---- pair laws ---- */

/* E* of two different materials, Hertz's 1/((1 − ν1²)/E1 + (1 − ν2²)/E2). */
static double estar_of(double E1, double nu1, double E2, double nu2)
{
    return 1.0 / ((1 - nu1 * nu1) / E1 + (1 - nu2 * nu2) / E2);
}

Test(scene_build, law_table)
{
    ldem_scene s;
    ldem_world w;
    build_ok(&s, &w, 0, NULL);
    cr_assert_eq(w.nmaterials, 3);
    enum { G = 0, S = 1, RU = 2 };
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++)
            cr_assert(memcmp(ldem_world_law(&w, a, b), ldem_world_law(&w, b, a),
                             sizeof(ldem_pair_law)) == 0, "table symmetric");

    const ldem_pair_law *gg = ldem_world_law(&w, G, G);
    cr_assert_eq(gg->ops->id, LDEM_LAW_HERTZ_JAGER);
    cr_assert(gg->elastic.E == 70e9 && gg->elastic.nu == 0.25 &&
              gg->p[LDEM_JAGER_P_BETA] == 0.1);
    cr_assert_eq(gg->mu, 0.3, "no friction in the entry: the material's");

    const ldem_pair_law *ss = ldem_world_law(&w, S, S);
    cr_assert_eq(ss->ops->id, LDEM_LAW_HERTZ_MINDLIN);
    cr_assert(ss->elastic.E == 210e9 && ss->elastic.nu == 0.3 && ss->mu == 0.25);

    /* glass–steel: no entry matches: hertz-jager, β 0, mean μ; E* and G* the two-material
     * closed forms 1/E* = Σ (1 − ν²)/E and 1/G* = Σ (1 + ν)(2 − ν)/(2E) (each reduces to the
     * one-material E/(2(1 − ν²)) and E/((1 + ν)(2 − ν)) of hertz.h), and a nominal (E, ν)
     * whose one-material E* is the pair's */
    const ldem_pair_law *gs = ldem_world_law(&w, G, S);
    cr_assert_eq(gs->ops->id, LDEM_LAW_HERTZ_JAGER);
    cr_assert(gs->p[LDEM_JAGER_P_BETA] == 0.0 && gs->mixed);
    cr_assert_leq(fabs(gs->mu - 0.25), 1e-16);
    double estar = estar_of(70e9, 0.25, 210e9, 0.3);
    double gstar = 1.0 / ((1.25 * 1.75) / (2 * 70e9) + (1.3 * 1.7) / (2 * 210e9));
    cr_assert_leq(rel(gs->elastic.moduli.estar, estar), 1e-15);
    cr_assert_leq(rel(gs->elastic.moduli.gstar, gstar), 1e-15);
    cr_assert_leq(rel(gs->elastic.moduli.kappa, estar / gstar), 1e-15);
    cr_assert_leq(fabs(gs->elastic.nu - 0.275), 1e-16);
    cr_assert_leq(rel(gs->elastic.E / (2 * (1 - gs->elastic.nu * gs->elastic.nu)), estar),
                  1e-14);

    /* '*' with rubber: linear for every partner, μ the mean of the two materials' */
    const double mu_ru[3] = {0.55, 0.5, 0.8};
    for (uint32_t a = 0; a < 3; a++) {
        const ldem_pair_law *l = ldem_world_law(&w, a, RU);
        cr_assert_eq(l->ops->id, LDEM_LAW_LINEAR);
        cr_assert(l->p[LDEM_LINEAR_P_KN] == 1e4 && l->p[LDEM_LINEAR_P_KS] == 5e3);
        cr_assert_leq(fabs(l->mu - mu_ru[a]), 1e-15);
    }
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

Test(scene_build, later_entries_override_and_zero_friction)
{
    /* a later '*'-'*' entry overrides everything; friction 0 makes Hertz laws frictionless */
    const char *sets[] = {"contacts.3={between: ['*', '*'], model: hertz-mindlin, friction: 0}",
                          "contacts.0.friction=0"};
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    /* contacts.3 does not exist: indices must exist */
    ldem_err_clear(&err);
    char set_a[512];
    snprintf(set_a, sizeof set_a, "shapes.grain.bundle=%s", bundle_path());
    const char *bad[] = {set_a, sets[0]};
    cr_assert_neq(ldem_scene_load(&s, SCENES "build.yaml", 2, bad, &err), LDEM_OK);
    cr_assert(strstr(err.msg, "contacts.3") && strstr(err.msg, "no entry 3"), "%s", err.msg);

    const char *last[] = {"contacts.2={between: ['*', '*'], model: hertz-mindlin, friction: 0.6}"};
    build_ok(&s, &w, 1, last);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++) {
            const ldem_pair_law *l = ldem_world_law(&w, a, b);
            cr_assert(l->ops->id == LDEM_LAW_HERTZ_MINDLIN && l->mu == 0.6);
        }
    ldem_world_free(&w);
    ldem_scene_free(&s);

    const char *zero[] = {sets[1]};
    build_ok(&s, &w, 1, zero);
    cr_assert_eq(ldem_world_law(&w, 0, 0)->ops->id, LDEM_LAW_FRICTIONLESS);
    cr_assert_eq(ldem_world_law(&w, 0, 0)->mu, 0.0);
    cr_assert_eq(ldem_world_law(&w, 1, 1)->ops->id, LDEM_LAW_HERTZ_MINDLIN);
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

/* ---- walls and globals ---- */

Test(scene_build, walls_and_globals)
{
    ldem_scene s;
    ldem_world w;
    build_ok(&s, &w, 0, NULL);
    cr_assert_eq(w.nwalls, 3);
    const ldem_wall *f = &w.walls[0], *d = &w.walls[1], *l = &w.walls[2];
    cr_assert_str_eq(f->name, "floor");
    cr_assert(f->kind == LDEM_WALL_PLANE && f->material == 1 && f->drive == LDEM_DRIVE_VELOCITY);
    cr_assert(f->normal.x == 0 && f->normal.y == 0 && f->normal.z == 1);
    cr_assert(f->vel.x == 0 && f->vel.y == 0 && f->vel.z == 0);
    cr_assert_str_eq(d->name, "drum");
    cr_assert(d->kind == LDEM_WALL_CYLINDER && d->inside == 1 && d->radius == 0.05 &&
              d->material == 0);
    cr_assert(d->drive == LDEM_DRIVE_RAMP && d->nramp == 2 && d->ramp_t[1] == 1e-3 &&
              d->ramp_d[1].z == 1e-4 && d->ramp_d[1].x == 0);
    cr_assert_str_eq(l->name, "lid");
    cr_assert(l->drive == LDEM_DRIVE_SERVO && l->servo_force == 5 && l->servo_gain == 1e-4 &&
              l->servo_vmax == 0.01);
    cr_assert(l->origin.z == 0.02 && l->normal.z == -1);
    for (size_t k = 0; k < 3; k++)
        cr_assert(w.walls[k].disp.x == 0 && w.walls[k].disp.z == 0 && w.walls[k].work == 0);

    cr_assert(w.gravity.x == 0 && w.gravity.y == 0 && w.gravity.z == -9.81);
    cr_assert(w.damping_viscous == 0.2 && w.damping_local == 0.05 && w.threads == 2);
    cr_assert(w.t == 0 && w.step == 0 && w.ncontacts == 0);
    /* skin: 0.1 × the smallest radius (the 0.5 mm steel ball) */
    cr_assert_leq(rel(w.skin, 0.1 * 0.5e-3), 1e-15);
    cr_assert_gt(w.pools[0].capacity + w.pools[63].capacity, 0, "pools allocated");
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

/* ---- dt ---- */

static double rayleigh(double R, double rho, double E, double nu)
{
    double G = E / (2 * (1 + nu));
    return PI * R * sqrt(rho / G) / (0.1631 * nu + 0.8766);
}

/* One glass sphere of 1 mm: t_R = π 1e-3 √(2500/28e9) / (0.1631·0.25 + 0.8766), written out
 * as numbers; the default safety 0.2. */
Test(scene_build, dt_auto_single_material)
{
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    cr_assert_eq(ldem_scene_load(&s, SCENES "minimal.yaml", 0, NULL, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "%s", err.msg);
    double tR = 3.14159265358979 * 1e-3 * sqrt(2500.0 / 28e9) / 0.917375;
    cr_assert_leq(rel(ldem_world_critical_dt(&w), tR), 1e-13);
    cr_assert_leq(rel(w.dt, 0.2 * tR), 1e-13);
    cr_assert_leq(rel(w.dt, 2.0465e-7), 1e-4, "dt = %g", w.dt);   /* the value by hand */
    cr_assert_eq(ldem_scene_total_steps(&s, w.dt), (uint64_t)ceil(0.01 / w.dt));
    ldem_world_free(&w);
    ldem_scene_free(&s);

    /* a stiff linear law: its period 2 √(m/(8 kn)) is now the smaller */
    const char *linear[] = {"contacts=[{between: [glass, glass], model: linear, kn: 1e12, "
                            "ks: 0}]"};
    cr_assert_eq(ldem_scene_load(&s, SCENES "minimal.yaml", 1, linear, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "%s", err.msg);
    double m = 2500 * 4.0 / 3.0 * PI * 1e-9;
    cr_assert_leq(rel(w.dt, 0.2 * 2 * sqrt(m / (8 * 1e12))), 1e-13);
    ldem_world_free(&w);
    ldem_scene_free(&s);

    /* fixed */
    const char *fixed[] = {"time.dt=3e-8"};
    cr_assert_eq(ldem_scene_load(&s, SCENES "minimal.yaml", 1, fixed, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(w.dt, 3e-8);
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

/* build.yaml: the minimum over free bodies and every material present (bodies' and walls')
 * of the pair's estimate, with effective constants recomputed here. */
Test(scene_build, dt_auto_mixed)
{
    ldem_scene s;
    ldem_world w;
    build_ok(&s, &w, 0, NULL);
    const double E[3] = {70e9, 210e9, 1e7}, nu[3] = {0.25, 0.3, 0.45}, rho[3] = {2500, 7800, 1100};
    double r_ls = cbrt(3 * VOLUME / (4 * PI));
    /* free bodies: glass r 1 mm, steel r 0.5 mm, steel level set, glass level set */
    const int mat[4] = {0, 1, 1, 0};
    const double R[4] = {1e-3, 0.5e-3, r_ls, r_ls};
    double want = INFINITY;
    for (int i = 0; i < 4; i++) {
        double mass = i < 2 ? rho[mat[i]] * 4.0 / 3.0 * PI * pow(R[i], 3) : rho[mat[i]] * VOLUME;
        for (int b = 0; b < 3; b++) {
            double t;
            if (b == 2) {
                t = 2 * sqrt(mass / (8 * 1e4));
            } else if (b == mat[i]) {
                t = rayleigh(R[i], rho[mat[i]], E[b], nu[b]);
            } else {
                double n = 0.5 * (nu[0] + nu[1]);
                double Eeff = 2 * (1 - n * n) * estar_of(E[0], nu[0], E[1], nu[1]);
                t = rayleigh(R[i], rho[mat[i]], Eeff, n);
            }
            want = fmin(want, t);
        }
    }
    cr_assert_leq(rel(ldem_world_critical_dt(&w), want), 1e-13);
    cr_assert_leq(rel(w.dt, 0.25 * want), 1e-13);
    cr_assert_eq(ldem_scene_total_steps(&s, w.dt), (uint64_t)ceil(1e-3 / w.dt));

    /* the fixed rubber ball does not count: making it free lowers nothing here (its linear
     * estimate is far larger), but making every body fixed leaves no estimate */
    ldem_world_free(&w);
    ldem_scene_free(&s);
    const char *all_fixed[] = {"grains.0.fixed=true", "grains.1.fixed=true",
                               "grains.2.fixed=true", "grains.3.fixed=true"};
    ldem_err err;
    cr_assert_neq(build(&s, &w, 4, all_fixed, &err), LDEM_OK);
    cr_assert(strstr(err.msg, "time.dt: auto") && strstr(err.msg, "no free grain"), "%s",
              err.msg);
    ldem_scene_free(&s);
}

Test(scene_build, critical_dt_empty_world)
{
    ldem_world w;
    ldem_world_init(&w);
    cr_assert(isinf(ldem_world_critical_dt(&w)));
}

/* ---- refusals ---- */

static void expect_build_error(const ldem_err *err, const char *file_tail, long line,
                               const char *const *fragments)
{
    size_t n = strlen(err->file), m = strlen(file_tail);
    cr_assert(n >= m && strcmp(err->file + n - m, file_tail) == 0, "file '%s' (%s)", err->file,
              err->msg);
    cr_assert_eq(err->line, line, "line %ld (%s)", err->line, err->msg);
    for (size_t k = 0; fragments[k]; k++)
        cr_assert(strstr(err->msg, fragments[k]), "'%s' not in '%s'", fragments[k], err->msg);
    cr_assert_eq(err->code, LDEM_ERR_INPUT);
}

static ldem_err build_file_fails(const char *name, size_t nset, const char *const *sets)
{
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_scene_load(&s, name, nset, sets, &err), LDEM_OK, "%s", err.msg);
    cr_assert_neq(ldem_scene_build(&s, &w, &err), LDEM_OK);
    ldem_scene_free(&s);
    return err;
}

Test(scene_build, missing_bundle)
{
    ldem_err err = build_file_fails(SCENES "missing_bundle.yaml", 0, NULL);
    expect_build_error(&err, "scenes/missing_bundle.yaml", 5,
                       (const char *[]){"shapes.grain.bundle: cannot open '",
                                        "scenes/no_such_grain.ldg': No such file or directory",
                                        NULL});
}

Test(scene_build, bundle_without_nodes)
{
    const char *path = LDEM_TEST_TMP "/scene_build_no_nodes.ldg";
    write_bundle(path, 0);
    char set[512];
    snprintf(set, sizeof set, "shapes.grain.bundle=%s", path);
    const char *sets[] = {set};
    ldem_err err = build_file_fails(SCENES "missing_bundle.yaml", 1, sets);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"shapes.grain.bundle", "has no NODE section", NULL});
}

Test(scene_build, grain_behind_wall)
{
    ldem_err err = build_file_fails(SCENES "behind_wall.yaml", 0, NULL);
    expect_build_error(&err, "scenes/behind_wall.yaml", 8,
                       (const char *[]){"grains.1: sphere at (0, 0, -0.001) is behind wall "
                                        "'floor'", NULL});
    /* inside a drum, a grain outside it; around a rod, a grain inside it */
    const char *drum[] = {"walls.0={name: drum, cylinder: {point: [0.0025, 0, 0], axis: [0, 0, "
                          "1], radius: 0.002}}", "grains.1.position=[0, 0, 0.001]"};
    err = build_file_fails(SCENES "behind_wall.yaml", 2, drum);
    cr_assert(strstr(err.msg, "grains.0: sphere at (0, 0, 0.002) is behind wall 'drum'"), "%s",
              err.msg);
    const char *rod[] = {"walls.0={name: rod, cylinder: {point: [0, 0.0005, 0], axis: [1, 0, "
                         "0], radius: 0.003, side: outside}}", "grains.1.position=[0, 0, 1]"};
    err = build_file_fails(SCENES "behind_wall.yaml", 2, rod);
    cr_assert(strstr(err.msg, "grains.0: sphere") && strstr(err.msg, "wall 'rod'"), "%s",
              err.msg);
    /* a centre just on the right side builds */
    const char *ok[] = {"grains.1.position=[0, 0, 1e-9]"};
    ldem_scene s;
    ldem_world w;
    cr_assert_eq(ldem_scene_load(&s, SCENES "behind_wall.yaml", 1, ok, &err), LDEM_OK);
    cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "%s", err.msg);
    ldem_world_free(&w);
    ldem_scene_free(&s);
}

Test(scene_build, overlapping_walls)
{
    ldem_err err = build_file_fails(SCENES "overlapping_walls.yaml", 0, NULL);
    expect_build_error(&err, "scenes/overlapping_walls.yaml", 6,
                       (const char *[]){"walls 'top' and 'floor' overlap", NULL});

    /* a drum whose inside is entirely below the floor (axis along x, parallel to the floor) */
    const char *drum[] = {"walls.1={name: drum, cylinder: {point: [0, 0, -0.02], axis: [1, 0, 0],"
                          " radius: 0.01}}"};
    err = build_file_fails(SCENES "overlapping_walls.yaml", 1, drum);
    cr_assert(strstr(err.msg, "walls 'drum' and 'floor' overlap"), "%s", err.msg);
    /* two parallel drums farther apart than their radii */
    const char *drums[] = {"walls.0={name: a, cylinder: {point: [0, 0, 0], axis: [0, 0, 1], "
                           "radius: 1}}", "walls.1={name: b, cylinder: {point: [3, 0, 0], "
                           "axis: [0, 0, 1], radius: 1.5}}"};
    err = build_file_fails(SCENES "overlapping_walls.yaml", 2, drums);
    cr_assert(strstr(err.msg, "walls 'b' and 'a' overlap"), "%s", err.msg);

    /* with room between them, the same walls build */
    const char *room[][3] = {
        {"time.dt=1e-6", "walls.1.plane.point=[0, 0, 0.01]", NULL},
        {"time.dt=1e-6", "walls.1={name: drum, cylinder: {point: [0, 0, -0.005], axis: [1, 0, "
                         "0], radius: 0.01}}", NULL},
        {"time.dt=1e-6", "walls.0={name: a, cylinder: {point: [0, 0, 0], axis: [0, 0, 1], "
                         "radius: 1}}", "walls.1={name: b, cylinder: {point: [2.4, 0, 0], "
                         "axis: [0, 1, 0], radius: 1.5}}"},
    };
    for (int k = 0; k < 3; k++) {
        ldem_scene s;
        ldem_world w;
        size_t n = room[k][2] ? 3 : 2;
        cr_assert_eq(ldem_scene_load(&s, SCENES "overlapping_walls.yaml", n, room[k], &err),
                     LDEM_OK, "%s", err.msg);
        cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "case %d: %s", k, err.msg);
        ldem_world_free(&w);
        ldem_scene_free(&s);
    }
}

/* The builder checks names itself too (scenes may be made in code, not only from files). */
Test(scene_build, duplicate_wall_names)
{
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    const char *dt[] = {"time.dt=1e-6", "walls.1.plane.point=[0, 0, 0.01]"};
    cr_assert_eq(ldem_scene_load(&s, SCENES "overlapping_walls.yaml", 2, dt, &err), LDEM_OK);
    free(s.walls[1].name);
    s.walls[1].name = strdup("floor");
    cr_assert_neq(ldem_scene_build(&s, &w, &err), LDEM_OK);
    cr_assert(strstr(err.msg, "walls.1: a second wall named 'floor'"), "%s", err.msg);
    cr_assert_eq(err.line, 6);   /* the second wall's line in the file */
    ldem_scene_free(&s);

    /* and the loader refuses the same in a file */
    const char *dup[] = {"walls.1.name=floor"};
    ldem_err_clear(&err);
    cr_assert_neq(ldem_scene_load(&s, SCENES "overlapping_walls.yaml", 1, dup, &err), LDEM_OK);
    cr_assert(strstr(err.msg, "walls.1.name: a second wall named 'floor'"), "%s", err.msg);
}

/* ---- deformable grains ---- */

/* The modal bundle: the test bundle above plus MODE, KMAT, MMAT (and optionally DAMP, ETAB).
 * Mode 0 stretches along x (Φ0(p) = (p.x, 0, 0)), mode 1 along z (Φ1(p) = (0, 0, p.z)),
 * sampled at the seven nodes and on the LSET grid; K and M diagonal, so ω_a = √(K_a/M_a):
 * 1e5 and √1e9 ≈ 3.16e4 rad/s. DAMP's C is diagonal; ETAB tabulates mode 1 linearly over
 * [-0.2, 0.3] (F = K1 ε), so its stiffest tangent is K1. */
static const double KM[2] = {1e4, 2e3}, MM[2] = {1e-6, 2e-6}, CM[2] = {3e-2, 5e-3};
enum {
    WITH_GRID = 1,     /* the MODE grid field */
    WITH_DAMP = 2,
    WITH_ETAB = 4,
    ONE_MODE = 8,      /* only mode 0 */
    MODE_ONLY = 16     /* MODE without KMAT and MMAT */
};

static void put_modes(ldem_bundle *b, unsigned flags)
{
    ldem_err err;
    unsigned char *data;
    uint64_t len;
    uint32_t n = flags & ONE_MODE ? 1 : 2;
    const double pos[21] = {1.5e-3, 0, 0, -1.5e-3, 0, 0, 0, 1.5e-3, 0, 0, -1.5e-3, 0,
                            0, 0, 1.5e-3, 0, 0, -1.5e-3, 1e-3, 1e-3, 1e-3};
    double nodes[2 * 7 * 3] = {0};
    float grid[2 * 125 * 3] = {0};
    for (uint32_t a = 0; a < n; a++) {
        int comp = a == 0 ? 0 : 2;
        for (int k = 0; k < 7; k++)
            nodes[(a * 7 + k) * 3 + comp] = pos[3 * k + comp];
        for (int idx = 0; idx < 125; idx++) {
            int ijk[3] = {idx % 5, idx / 5 % 5, idx / 25};
            grid[(a * 125 + idx) * 3 + comp] = (float)(H * (ijk[comp] - 2));
        }
    }
    ldem_modes m = {n, LDEM_MODE_SAMPLED, 7, nodes, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, NULL, NULL};
    if (flags & WITH_GRID)
        m = (ldem_modes){n, LDEM_MODE_SAMPLED, 7, nodes, {5, 5, 5}, {-2 * H, -2 * H, -2 * H},
                         {H, H, H}, grid, NULL};
    put(b, LDEM_TAG_MODE, ldem_modes_encode(&m, &data, &len, &err), &data, &len);
    if (flags & MODE_ONLY)
        return;
    double K[4] = {KM[0], 0, 0, KM[1]}, M[4] = {MM[0], 0, 0, MM[1]}, C[4] = {CM[0], 0, 0, CM[1]};
    if (n == 1)
        K[1] = M[1] = C[1] = 0;
    ldem_matrix km = {n, K}, mm = {n, M};
    put(b, LDEM_TAG_KMAT, ldem_matrix_encode(&km, &data, &len, &err), &data, &len);
    put(b, LDEM_TAG_MMAT, ldem_matrix_encode(&mm, &data, &len, &err), &data, &len);
    if (flags & WITH_DAMP) {
        double zeta[2] = {0, 0}, omega[2] = {sqrt(KM[1] / MM[1]), sqrt(KM[0] / MM[0])};
        ldem_damping d = {n, LDEM_DAMPING_RATIO, 0, 0, zeta, omega, C};
        put(b, LDEM_TAG_DAMP, ldem_damping_encode(&d, &data, &len, &err), &data, &len);
    }
    if (flags & WITH_ETAB) {
        double eps[3] = {-0.2, 0.0, 0.3}, U[3], F[3];
        for (int k = 0; k < 3; k++) {
            F[k] = KM[1] * eps[k];
            U[k] = 0.5 * KM[1] * eps[k] * eps[k];
        }
        ldem_etab_table t = {1, LDEM_INTERP_LINEAR, LDEM_EXTRAP_LINEAR, 3, eps, U, F};
        ldem_etab e = {1, &t};
        put(b, LDEM_TAG_ETAB, ldem_etab_encode(&e, &data, &len, &err), &data, &len);
    }
}

static const char *modal_bundle(unsigned flags)
{
    static char paths[32][256];
    char *path = paths[flags & 31];
    snprintf(path, sizeof paths[0], LDEM_TEST_TMP "/scene_build_modal_%u.ldg", flags);
    ldem_err err;
    ldem_bundle b;
    ldem_bundle_init(&b);
    unsigned char *data;
    uint64_t len;
    /* the same LSET, NODE, BODY as write_bundle: read them back from the rigid bundle */
    FILE *in = fopen(bundle_path(), "rb");
    cr_assert(in);
    ldem_bundle_reader *r = NULL;
    ldem_bundle rigid;
    ldem_bundle_init(&rigid);
    int have = 0;
    cr_assert_eq(ldem_bundle_reader_open(&r, in, bundle_path(), &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_bundle_read(r, &rigid, &have, &err), LDEM_OK, "%s", err.msg);
    cr_assert(have);
    const char *tags[] = {LDEM_TAG_LSET, LDEM_TAG_NODE, LDEM_TAG_BODY};
    for (int k = 0; k < 3; k++) {
        const ldem_section *s = ldem_bundle_find(&rigid, tags[k]);
        cr_assert(s);
        cr_assert((data = malloc(s->length)));
        memcpy(data, s->data, s->length);
        len = s->length;
        put(&b, tags[k], LDEM_OK, &data, &len);
    }
    ldem_bundle_free(&rigid);
    ldem_bundle_reader_close(r);
    fclose(in);
    put_modes(&b, flags);
    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "cannot write %s", path);
    cr_assert_eq(ldem_bundle_write(fp, path, &b, &err), LDEM_OK, "%s", err.msg);
    fclose(fp);
    ldem_bundle_free(&b);
    return path;
}

#define DEFORMABLE SCENES "deformable_build.yaml"

/* Load deformable_build.yaml with the bundle `bundle` and extra overrides; build. */
static int build_deformable(const char *bundle, ldem_scene *s, ldem_world *w, size_t nextra,
                            const char *const *extra, ldem_err *err)
{
    char set[512];
    snprintf(set, sizeof set, "shapes.grain.bundle=%s", bundle);
    const char *sets[16] = {set};
    cr_assert_leq(nextra, 15);
    for (size_t k = 0; k < nextra; k++)
        sets[1 + k] = extra[k];
    ldem_err_clear(err);
    int rc = ldem_scene_load(s, DEFORMABLE, 1 + nextra, sets, err);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err->file, err->line, err->msg);
    rc = ldem_scene_build(s, w, err);
    if (rc)
        ldem_scene_free(s);
    return rc;
}

static void build_deformable_ok(unsigned flags, ldem_scene *s, ldem_world *w, size_t nextra,
                                const char *const *extra)
{
    ldem_err err;
    int rc = build_deformable(modal_bundle(flags), s, w, nextra, extra, &err);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err.file, err.line, err.msg);
}

static ldem_err build_deformable_fails(const char *bundle, size_t nextra,
                                       const char *const *extra)
{
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    cr_assert_neq(build_deformable(bundle, &s, &w, nextra, extra, &err), LDEM_OK,
                  "the build should have been refused");
    return err;
}

static void free_both(ldem_scene *s, ldem_world *w)
{
    ldem_world_free(w);
    ldem_scene_free(s);
}

Test(scene_build, deformable_grains)
{
    ldem_scene s;
    ldem_world w;
    build_deformable_ok(WITH_GRID | WITH_DAMP, &s, &w, 0, NULL);
    const ldem_bodies *b = &w.bodies;
    cr_assert_eq(b->count, 4);
    /* grains 0 and 3 deform (0 by default, 3 with initial values); 1 asked to stay rigid */
    cr_assert(b->flags[0] & LDEM_BODY_DEFORMABLE);
    cr_assert(b->flags[3] & LDEM_BODY_DEFORMABLE);
    cr_assert(!(b->flags[1] & LDEM_BODY_DEFORMABLE) && !(b->flags[2] & LDEM_BODY_DEFORMABLE));
    cr_assert(b->modal[1] == LDEM_RIGID && b->modal[2] == LDEM_RIGID);
    cr_assert_eq(w.modal.ndof, 4);
    cr_assert(b->modal[0] <= 2 && b->modal[3] <= 2 &&
              (b->modal[0] + 2 <= b->modal[3] || b->modal[3] + 2 <= b->modal[0]),
              "two disjoint blocks of two DOFs: %u, %u", b->modal[0], b->modal[3]);
    const double *eps = w.modal.eps, *rate = w.modal.rate;
    cr_assert(eps[b->modal[0]] == 0 && eps[b->modal[0] + 1] == 0 && rate[b->modal[0]] == 0 &&
              rate[b->modal[0] + 1] == 0);
    cr_assert(eps[b->modal[3]] == 0.01 && eps[b->modal[3] + 1] == -0.02);
    cr_assert(rate[b->modal[3]] == 0.5 && rate[b->modal[3] + 1] == -0.25);

    /* one world shape for all three grains, its modes the bundle's; mass and inertia rigid */
    cr_assert(w.nshapes == 1 && b->shape[0] == 0 && b->shape[1] == 0 && b->shape[3] == 0);
    const ldem_modeset *ms = ldem_world_body_modes(&w, 0);
    cr_assert(ms && ms == ldem_world_body_modes(&w, 3) && ms == w.shapes[0].modes);
    cr_assert_null(ldem_world_body_modes(&w, 1), "a rigid grain of a modal shape has no modes");
    cr_assert_null(w.shapes[0].family, "remap is the default");
    cr_assert_eq(ms->n, 2);
    cr_assert_eq(ms->field, LDEM_MODE_FIELD_GRID);
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            cr_assert_eq(ms->K[2 * a + c], a == c ? KM[a] : 0.0);
            cr_assert_eq(ms->M[2 * a + c], a == c ? MM[a] : 0.0);
            cr_assert_eq(ms->C[2 * a + c], a == c ? CM[a] : 0.0, "DAMP's C by default");
        }
    cr_assert(b->mass[0] == b->mass[1] && b->mass[3] == b->mass[1]);
    cr_assert(b->inertia[0].x == b->inertia[1].x && b->inertia[0].z == b->inertia[1].z);
    cr_assert_leq(rel(b->mass[0], 1000 * VOLUME), 1e-15);

    /* probes: auto reports every deformable grain (two here), in body order */
    cr_assert(w.nprobe_modal == 2 && w.probe_modal[0] == 0 && w.probe_modal[1] == 3);
    free_both(&s, &w);

    /* deformable: false on every grain: a rigid world, no modal DOFs at all */
    const char *rigid[] = {"grains.0.deformable=false", "grains.3.deformable=false"};
    build_deformable_ok(WITH_GRID | WITH_DAMP, &s, &w, 2, rigid);
    cr_assert_eq(w.modal.ndof, 0);
    for (size_t i = 0; i < 4; i++)
        cr_assert(!(w.bodies.flags[i] & LDEM_BODY_DEFORMABLE));
    cr_assert_eq(w.nprobe_modal, 0);
    free_both(&s, &w);
}

Test(scene_build, deformable_probe_choice)
{
    ldem_scene s;
    ldem_world w;
    const char *one[] = {"output.probes.modes=[3]"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, one);
    cr_assert(w.nprobe_modal == 1 && w.probe_modal[0] == 3);
    free_both(&s, &w);
    const char *none[] = {"output.probes.modes=false"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, none);
    cr_assert_eq(w.nprobe_modal, 0);
    free_both(&s, &w);
    const char *all[] = {"output.probes.modes=true"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, all);
    cr_assert(w.nprobe_modal == 2 && w.probe_modal[0] == 0 && w.probe_modal[1] == 3);
    free_both(&s, &w);

    const char *rigid[] = {"output.probes.modes=[0, 1]"};
    ldem_err err = build_deformable_fails(modal_bundle(WITH_GRID), 1, rigid);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"output.probes.modes.1: grain 1 is rigid", NULL});
    const char *missing[] = {"output.probes.modes=[9]"};
    err = build_deformable_fails(modal_bundle(WITH_GRID), 1, missing);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"output.probes.modes.0: grain 9 does not exist", NULL});
}

/* The scene's damping replaces DAMP's C: none, a ratio ζ (for diagonal K, M the closed form
 * C_aa = 2 ζ √(K_a M_a)), Rayleigh αM + βK. */
Test(scene_build, deformable_damping_override)
{
    ldem_scene s;
    ldem_world w;
    const char *none[] = {"shapes.grain.modes={damping: none}"};
    build_deformable_ok(WITH_GRID | WITH_DAMP, &s, &w, 1, none);
    const ldem_modeset *ms = w.shapes[0].modes;
    for (int k = 0; k < 4; k++)
        cr_assert_eq(ms->C[k], 0.0);
    free_both(&s, &w);

    const char *ratio[] = {"shapes.grain.modes={damping: {ratio: 0.05}}"};
    build_deformable_ok(WITH_GRID | WITH_DAMP, &s, &w, 1, ratio);
    ms = w.shapes[0].modes;
    for (int a = 0; a < 2; a++) {
        double want = 2 * 0.05 * sqrt(KM[a] * MM[a]);
        cr_assert_leq(rel(ms->C[3 * a], want), 1e-12, "C[%d][%d] = %g, expected %g", a, a,
                      ms->C[3 * a], want);
    }
    cr_assert_leq(fabs(ms->C[1]) + fabs(ms->C[2]), 1e-12 * ms->C[0]);
    free_both(&s, &w);

    const char *rayleigh_[] = {"shapes.grain.modes={damping: {rayleigh: [3.0, 1e-6]}}"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, rayleigh_);
    ms = w.shapes[0].modes;
    for (int a = 0; a < 2; a++)
        cr_assert_leq(rel(ms->C[3 * a], 3.0 * MM[a] + 1e-6 * KM[a]), 1e-15);
    cr_assert(ms->C[1] == 0.0 && ms->C[2] == 0.0);
    free_both(&s, &w);

    /* without DAMP and without override: no damping, and Henzel's one-step pull back */
    build_deformable_ok(WITH_GRID, &s, &w, 0, NULL);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(w.shapes[0].modes->C[k], 0.0);
    cr_assert_eq(w.shapes[0].modes->pullback, 1u);
    free_both(&s, &w);
}

/* modes.pullback reaches the shape's modeset (the remap and the contacts read it there). */
Test(scene_build, deformable_pullback_steps)
{
    ldem_scene s;
    ldem_world w;
    const char *three[] = {"shapes.grain.modes={pullback: 3}"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, three);
    cr_assert_eq(w.shapes[0].modes->pullback, 3u);
    free_both(&s, &w);
}

/* levelset: precomputed builds the family over the documented ranges: a tabulated mode's
 * table range, else ±0.1 × bounding radius / max|Φ(node)|; or the scene's. */
Test(scene_build, deformable_precomputed_ranges)
{
    ldem_scene s;
    ldem_world w;
    const char *pre[] = {"shapes.grain.modes={levelset: precomputed, samples: 3}"};
    build_deformable_ok(WITH_GRID | WITH_ETAB, &s, &w, 1, pre);
    const ldem_shape *sh = &w.shapes[0];
    cr_assert_not_null(sh->family);
    cr_assert(sh->family->nmodes == 2 && sh->family->nsamples == 3);
    /* mode 0: max |Φ0(node)| = 1.5e-3 (the nodes at x = ±1.5 mm) */
    double r0 = 0.1 * sh->bounding_radius / 1.5e-3;
    cr_assert_leq(rel(sh->family->eps_max[0], r0), 1e-15);
    cr_assert_leq(rel(sh->family->eps_min[0], -r0), 1e-15);
    cr_assert(sh->family->eps_min[1] == -0.2 && sh->family->eps_max[1] == 0.3, "ETAB's range");
    free_both(&s, &w);

    const char *one[] = {"shapes.grain.modes={levelset: precomputed, range: [-0.5, 0.25]}"};
    build_deformable_ok(WITH_GRID | WITH_ETAB, &s, &w, 1, one);
    sh = &w.shapes[0];
    cr_assert_eq(sh->family->nsamples, 9, "the default samples");
    for (int a = 0; a < 2; a++)
        cr_assert(sh->family->eps_min[a] == -0.5 && sh->family->eps_max[a] == 0.25);
    free_both(&s, &w);

    const char *each[] = {"shapes.grain.modes={levelset: precomputed, range: [[-0.5, 0.5], [0, 0.4]]}"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, each);
    sh = &w.shapes[0];
    cr_assert(sh->family->eps_min[0] == -0.5 && sh->family->eps_max[0] == 0.5 &&
              sh->family->eps_min[1] == 0 && sh->family->eps_max[1] == 0.4);
    free_both(&s, &w);

    const char *three[] = {"shapes.grain.modes={levelset: precomputed, "
                           "range: [[-1, 1], [0, 2], [0, 1]]}"};
    ldem_err err = build_deformable_fails(modal_bundle(WITH_GRID), 1, three);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"shapes.grain.modes.range: 3 pairs for 2 modes", NULL});
}

/* dt: auto is min(safety × contact limit, modal_safety / ω_max), ω_max = √(K0/M0) = 1e5. */
Test(scene_build, deformable_dt)
{
    ldem_scene s;
    ldem_world w;
    const char *rigid[] = {"grains.0.deformable=false", "grains.3.deformable=false"};
    build_deformable_ok(WITH_GRID | WITH_ETAB, &s, &w, 2, rigid);
    double contact = w.dt;
    free_both(&s, &w);
    cr_assert_gt(contact, 0.1 / 1e5, "the scene is chosen so that the modal limit wins");

    build_deformable_ok(WITH_GRID | WITH_ETAB, &s, &w, 0, NULL);
    cr_assert_leq(rel(w.dt, 0.1 / 1e5), 1e-13, "dt = %g", w.dt);
    free_both(&s, &w);

    /* β_d large enough that the contact limit is the smaller: exactly the rigid step */
    const char *lax[] = {"time.modal_safety=2"};
    build_deformable_ok(WITH_GRID | WITH_ETAB, &s, &w, 1, lax);
    cr_assert_gt(2.0 / 1e5, contact);
    cr_assert_eq(w.dt, contact);
    free_both(&s, &w);

    /* a fixed dt is kept as given (below 2/ω_max: no warning) */
    const char *fixed[] = {"time.dt=1e-7"};
    build_deformable_ok(WITH_GRID, &s, &w, 1, fixed);
    cr_assert_eq(w.dt, 1e-7);
    free_both(&s, &w);
}

Test(scene_build, deformable_refusals)
{
    /* the rigid bundle: deforming is refused where asked, silently off by default */
    const char *rigid = bundle_path();
    const char *ask[] = {"grains.0.deformable=true"};
    ldem_err err = build_deformable_fails(rigid, 1, ask);
    expect_build_error(&err, "deformable_build.yaml", 10,
                       (const char *[]){"grains.0.deformable: shape 'grain' cannot deform: its "
                                        "bundle '", "scene_build_grain.ldg' has no deformation "
                                        "modes", NULL});
    err = build_deformable_fails(rigid, 0, NULL);   /* grain 3 gives modes: */
    expect_build_error(&err, "deformable_build.yaml", 13,
                       (const char *[]){"grains.3.modes: shape 'grain' cannot deform", NULL});
    const char *block[] = {"grains.3={shape: grain, position: [0.03, 0, 0]}", "shapes.grain.modes={damping: none}"};
    err = build_deformable_fails(rigid, 2, block);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"shapes.grain.modes: the bundle '",
                                        "' has no deformation modes", NULL});
    const char *sphere[] = {"grains.3={shape: grain, position: [0.03, 0, 0]}", "grains.2.deformable=true"};
    err = build_deformable_fails(rigid, 2, sphere);
    expect_build_error(&err, "deformable_build.yaml", 12,
                       (const char *[]){"grains.2.deformable: shape 'ball' is an analytic "
                                        "sphere", NULL});
    {
        const char *plain[] = {"grains.3={shape: grain, position: [0.03, 0, 0]}"};
        ldem_scene s;
        ldem_world w;
        cr_assert_eq(build_deformable(rigid, &s, &w, 1, plain, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(w.modal.ndof, 0, "a bundle without modes makes rigid grains");
        free_both(&s, &w);
    }

    /* counts: grain 3 gives two values for a one-mode shape (the line of its list) */
    err = build_deformable_fails(modal_bundle(WITH_GRID | ONE_MODE), 0, NULL);
    expect_build_error(&err, "deformable_build.yaml", 13,
                       (const char *[]){"grains.3.modes.amplitude: the shape 'grain' has 1 mode, "
                                        "got 2 values", NULL});
    const char *three[] = {"grains.3.modes={rate: [1, 2, 3]}"};
    err = build_deformable_fails(modal_bundle(WITH_GRID), 1, three);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"grains.3.modes.rate: the shape 'grain' has 2 modes, "
                                        "got 3 values", NULL});

    /* bundles that cannot deform a level set */
    err = build_deformable_fails(modal_bundle(0), 0, NULL);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"shapes.grain.bundle: '", "MODE has no grid field",
                                        "rerun modefit", NULL});
    err = build_deformable_fails(modal_bundle(WITH_GRID | MODE_ONLY), 0, NULL);
    expect_build_error(&err, "--set", 0,
                       (const char *[]){"has MODE but no KMAT", NULL});
}
