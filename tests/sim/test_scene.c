/* Unit tests of ldem_scene_load (ldem/sim/scene.h): a scene file with every key parses to the
 * values written in it, omitted keys take the documented defaults, every --set form works or
 * fails with a message naming "--set" and the key, each class of bad input names the file, the
 * line and the dotted key, and lattices and TSV placements expand to the right grains.
 * Scene files are under tests/sim/data/scenes/; the lines the tests expect are marked in
 * those files. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ldem/sim/scene.h"
#include "ldem/vtu.h"

#define SCENES LDEM_TEST_DATA "/scenes/"

static void load_ok(ldem_scene *s, const char *name, size_t nset, const char *const *sets)
{
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_load(s, name, nset, sets, &err);
    cr_assert_eq(rc, LDEM_OK, "%s:%ld: %s", err.file, err.line, err.msg);
}

static ldem_err load_fail(const char *name, size_t nset, const char *const *sets)
{
    ldem_scene s;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_load(&s, name, nset, sets, &err);
    cr_assert_neq(rc, LDEM_OK, "%s should have been refused", name);
    cr_assert_eq(rc, err.code);
    return err;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The error names `file` (a suffix), `line`, and contains every fragment. */
static void expect_error(const ldem_err *err, const char *file, long line,
                         const char *const *fragments)
{
    cr_assert(ends_with(err->file, file), "file '%s', expected '...%s' (%s)", err->file, file,
              err->msg);
    cr_assert_eq(err->line, line, "line %ld, expected %ld (%s)", err->line, line, err->msg);
    for (size_t k = 0; fragments[k]; k++)
        cr_assert(strstr(err->msg, fragments[k]), "'%s' not in '%s'", fragments[k], err->msg);
    /* One line, as the CLI prints it. */
    cr_assert_null(strchr(err->msg, '\n'), "%s", err->msg);
}

static void expect_vec3(ldem_vec3 v, double x, double y, double z)
{
    cr_assert(v.x == x && v.y == y && v.z == z, "(%.17g, %.17g, %.17g), expected (%g, %g, %g)",
              v.x, v.y, v.z, x, y, z);
}

/* ---- a full scene ---- */

Test(scene, full_scene_globals)
{
    ldem_scene s;
    load_ok(&s, SCENES "full.yaml", 0, NULL);
    cr_assert_eq(s.dt_mode, LDEM_DT_FIXED);
    cr_assert_eq(s.dt, 2.5e-7);
    cr_assert_eq(s.dt_safety, 0.3);
    cr_assert_eq(s.steps, 4000);
    cr_assert_lt(s.duration, 0.0);
    cr_assert_eq(ldem_scene_total_steps(&s, 1.0), 4000);
    expect_vec3(s.gravity, 0, 0, -9.81);
    cr_assert_eq(s.damping_viscous, 0.5);
    cr_assert_eq(s.damping_local, 0.1);
    cr_assert_eq(s.skin, 2e-5);
    cr_assert_eq(s.threads, 2);
    cr_assert_str_eq(s.out_dir, "results");
    cr_assert_eq(s.frame_every, 50);
    cr_assert_eq(s.frame_encoding, LDEM_VTK_ASCII);
    cr_assert_eq(s.frame_contacts, 0);
    cr_assert_eq(s.probe_every, 7);
    cr_assert_eq(s.checkpoint_every, 1000);
    cr_assert(ends_with(s.path, "scenes/full.yaml"));
    cr_assert(ends_with(s.dir, "/scenes"));
    ldem_scene_free(&s);
}

Test(scene, full_scene_materials_contacts_shapes)
{
    ldem_scene s;
    load_ok(&s, SCENES "full.yaml", 0, NULL);
    cr_assert_eq(s.nmaterials, 2);
    cr_assert_str_eq(s.materials[0].name, "glass");
    cr_assert(s.materials[0].E == 70e9 && s.materials[0].nu == 0.25 &&
              s.materials[0].density == 2500 && s.materials[0].friction == 0.3);
    cr_assert_str_eq(s.materials[1].name, "steel");
    cr_assert(s.materials[1].E == 210e9 && s.materials[1].nu == 0.3 &&
              s.materials[1].density == 7800 && s.materials[1].friction == 0.2);
    cr_assert_eq(s.materials[1].line, 9);

    cr_assert_eq(s.ncontacts, 3);
    cr_assert_str_eq(s.contacts[0].material_a, "glass");
    cr_assert_str_eq(s.contacts[0].material_b, "glass");
    cr_assert_eq(s.contacts[0].law, LDEM_LAW_HERTZ_JAGER);
    cr_assert(s.contacts[0].beta == 0.1 && s.contacts[0].friction == 0.4);
    cr_assert_str_eq(s.contacts[1].material_a, "*");
    cr_assert_str_eq(s.contacts[1].material_b, "steel");
    cr_assert_eq(s.contacts[1].law, LDEM_LAW_LINEAR);
    cr_assert(s.contacts[1].kn == 1e5 && s.contacts[1].ks == 5e4);
    cr_assert_lt(s.contacts[1].friction, 0.0, "friction not given: mean of the materials");
    cr_assert_eq(s.contacts[2].law, LDEM_LAW_FRICTIONLESS);
    cr_assert_eq(s.contacts[2].line, 13);

    cr_assert_eq(s.nshapes, 2);
    cr_assert_str_eq(s.shapes[0].name, "ball");
    cr_assert(s.shapes[0].kind == LDEM_SHAPE_SPHERE && s.shapes[0].radius == 0.001);
    cr_assert_str_eq(s.shapes[1].name, "big");
    cr_assert(s.shapes[1].kind == LDEM_SHAPE_SPHERE && s.shapes[1].radius == 0.002);
    ldem_scene_free(&s);
}

Test(scene, full_scene_grains)
{
    ldem_scene s;
    load_ok(&s, SCENES "full.yaml", 0, NULL);
    cr_assert_eq(s.ngrains, 2 + 3 * 2 * 2);
    const ldem_scene_grain *g = &s.grains[0];
    cr_assert(g->shape == 0 && g->material == 0 && g->fixed == 1 && g->radius == 0.0);
    expect_vec3(g->x, 0.01, 0.02, 0.03);
    expect_vec3(g->v, 1, -2, 3);
    expect_vec3(g->omega, 10, 20, 30);
    /* [1, 1, 0, 0] normalized: 1/√2 to within one ulp (1.1e-16) */
    cr_assert_float_eq(g->q[0], sqrt(0.5), 1.2e-16);
    cr_assert_float_eq(g->q[1], sqrt(0.5), 1.2e-16);
    cr_assert(g->q[2] == 0.0 && g->q[3] == 0.0);
    cr_assert(g->line == 19 && g->entry == 0 && g->source == 0);

    g = &s.grains[1];
    cr_assert(g->shape == 1 && g->material == 1 && g->fixed == 0 && g->radius == 0.0015);
    cr_assert(g->q[0] == 1.0 && g->q[1] == 0.0 && g->q[2] == 0.0 && g->q[3] == 0.0);
    expect_vec3(g->v, 0, 0, 0);
    cr_assert(g->line == 26 && g->entry == 1);

    /* the lattice: x fastest, then y, then z */
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 3; i++) {
                g = &s.grains[2 + i + 3 * (j + 2 * k)];
                expect_vec3(g->x, i * 0.003, j * 0.004, 0.02 + k * 0.005);
                expect_vec3(g->v, 0, 0, -1);
                cr_assert(g->shape == 0 && g->material == 0 && g->entry == 2 && g->line == 27);
            }
    ldem_scene_free(&s);
}

Test(scene, full_scene_walls)
{
    ldem_scene s;
    load_ok(&s, SCENES "full.yaml", 0, NULL);
    cr_assert_eq(s.nwalls, 4);
    const ldem_scene_wall *w = &s.walls[0];
    cr_assert_str_eq(w->name, "floor");
    cr_assert(w->kind == LDEM_WALL_PLANE && w->material == 1 && w->line == 30);
    expect_vec3(w->point, 0, 0, -0.01);
    expect_vec3(w->normal, 0, 0, 1);   /* [0, 0, 2] normalized */
    cr_assert_eq(w->drive, LDEM_DRIVE_VELOCITY);
    expect_vec3(w->velocity, 0, 0, 0.1);

    w = &s.walls[1];
    cr_assert_str_eq(w->name, "drum");
    cr_assert(w->kind == LDEM_WALL_CYLINDER && w->inside == 1 && w->radius == 0.05 &&
              w->material == 0);
    expect_vec3(w->normal, 0, 0, 1);
    cr_assert(w->drive == LDEM_DRIVE_RAMP && w->nramp == 3);
    cr_assert(w->ramp_t[0] == 0 && w->ramp_t[1] == 1 && w->ramp_t[2] == 2);
    expect_vec3(w->ramp_d[1], 0.001, 0, 0);
    expect_vec3(w->ramp_d[2], 0.001, 0.002, 0);

    w = &s.walls[2];
    cr_assert_str_eq(w->name, "top");
    cr_assert(w->drive == LDEM_DRIVE_SERVO && w->servo_force == 10 && w->servo_gain == 1e-3 &&
              w->servo_vmax == 0.05);
    expect_vec3(w->normal, 0, 0, -1);

    w = &s.walls[3];
    cr_assert_str_eq(w->name, "rod");
    cr_assert(w->kind == LDEM_WALL_CYLINDER && w->inside == 0 && w->radius == 0.01);
    expect_vec3(w->point, 0.5, 0, 0);
    expect_vec3(w->normal, 0, 1, 0);
    cr_assert(w->drive == LDEM_DRIVE_VELOCITY);
    expect_vec3(w->velocity, 0, 0, 0);
    ldem_scene_free(&s);
}

/* ---- defaults ---- */

Test(scene, defaults)
{
    ldem_scene s;
    load_ok(&s, SCENES "minimal.yaml", 0, NULL);
    cr_assert_eq(s.dt_mode, LDEM_DT_AUTO);
    cr_assert_eq(s.dt_safety, 0.2);
    cr_assert_eq(s.duration, 0.01);
    expect_vec3(s.gravity, 0, 0, 0);
    cr_assert(s.damping_viscous == 0.0 && s.damping_local == 0.0);
    cr_assert_lt(s.skin, 0.0, "skin unset: the builder takes 0.1 x the smallest radius");
    cr_assert_eq(s.threads, 0);
    cr_assert_str_eq(s.out_dir, "out");
    cr_assert_eq(s.frame_every, 0);
    cr_assert_eq(s.frame_encoding, LDEM_VTK_ZLIB);
    cr_assert_eq(s.frame_contacts, 1);
    cr_assert_eq(s.probe_every, 100);
    cr_assert_eq(s.checkpoint_every, 0);
    cr_assert(s.ncontacts == 0 && s.nwalls == 0 && s.ngrains == 1);
    const ldem_scene_grain *g = &s.grains[0];
    cr_assert_eq(g->material, 0, "the only material is the default");
    cr_assert(g->q[0] == 1.0 && g->q[1] == 0.0 && g->q[2] == 0.0 && g->q[3] == 0.0);
    expect_vec3(g->v, 0, 0, 0);
    expect_vec3(g->omega, 0, 0, 0);
    cr_assert(g->fixed == 0 && g->radius == 0.0);
    /* 0.01/1e-5 is 999.9999999999999 in binary: still 1000 steps; 0.01/3e-3 = 3.33: 4 */
    cr_assert_eq(ldem_scene_total_steps(&s, 1e-5), 1000);
    cr_assert_eq(ldem_scene_total_steps(&s, 3e-3), 4);
    cr_assert_eq(ldem_scene_total_steps(&s, 0.01), 1);
    ldem_scene_free(&s);
}

/* ---- --set ---- */

Test(scene, set_creates_missing_mappings)
{
    const char *sets[] = {"damping.local=0.2", "output.frames.every=10",
                          "output.frames.encoding=raw"};
    ldem_scene s;
    load_ok(&s, SCENES "minimal.yaml", 3, sets);
    cr_assert_eq(s.damping_local, 0.2);
    cr_assert_eq(s.damping_viscous, 0.0);
    cr_assert_eq(s.frame_every, 10);
    cr_assert_eq(s.frame_encoding, LDEM_VTK_RAW);
    ldem_scene_free(&s);
}

Test(scene, set_scalars_lists_and_mappings)
{
    const char *sets[] = {"time.dt=1e-6", "gravity=[0, -1, 0]", "grains.0.position=[1,2,3]",
                          "materials.glass={E: 1e9, nu: 0.3, density: 1000, friction: 0.1}",
                          "grains.0.velocity=[4,5,6]", "skin=0.5"};
    ldem_scene s;
    load_ok(&s, SCENES "minimal.yaml", 6, sets);
    cr_assert(s.dt_mode == LDEM_DT_FIXED && s.dt == 1e-6);
    expect_vec3(s.gravity, 0, -1, 0);
    expect_vec3(s.grains[0].x, 1, 2, 3);
    expect_vec3(s.grains[0].v, 4, 5, 6);
    cr_assert(s.materials[0].E == 1e9 && s.materials[0].nu == 0.3 &&
              s.materials[0].density == 1000 && s.materials[0].friction == 0.1);
    cr_assert_eq(s.skin, 0.5);
    ldem_scene_free(&s);
}

Test(scene, set_overrides_in_order)
{
    /* auto back over a fixed step; the later of two sets wins; list entries by index */
    const char *sets[] = {"time.dt=auto", "walls.0.velocity=[0,0,-1]", "threads=3", "threads=4",
                          "materials.steel.E=1e11", "contacts.1.kn=2e5"};
    ldem_scene s;
    load_ok(&s, SCENES "full.yaml", 6, sets);
    cr_assert_eq(s.dt_mode, LDEM_DT_AUTO);
    expect_vec3(s.walls[0].velocity, 0, 0, -1);
    cr_assert_eq(s.threads, 4);
    cr_assert_eq(s.materials[1].E, 1e11);
    cr_assert_eq(s.contacts[1].kn, 2e5);
    ldem_scene_free(&s);
}

Test(scene, set_bad_index_and_paths)
{
    const char *bad_index[] = {"grains.5.position=[0,0,0]"};
    ldem_err err = load_fail(SCENES "minimal.yaml", 1, bad_index);
    expect_error(&err, "--set", 0, (const char *[]){"grains.5.position", "no entry 5", NULL});

    const char *not_index[] = {"grains.first.position=[0,0,0]"};
    err = load_fail(SCENES "minimal.yaml", 1, not_index);
    expect_error(&err, "--set", 0, (const char *[]){"'first' is not a list index", NULL});

    const char *into_scalar[] = {"time.duration.x=1"};
    err = load_fail(SCENES "minimal.yaml", 1, into_scalar);
    expect_error(&err, "--set", 0,
                 (const char *[]){"time.duration.x", "not a mapping or list", NULL});

    const char *no_equals[] = {"time.dt"};
    err = load_fail(SCENES "minimal.yaml", 1, no_equals);
    expect_error(&err, "--set", 0, (const char *[]){"expected key=value", NULL});

    const char *empty_segment[] = {"time..dt=1"};
    err = load_fail(SCENES "minimal.yaml", 1, empty_segment);
    expect_error(&err, "--set", 0, (const char *[]){"dotted key", NULL});

    const char *bad_yaml[] = {"gravity=[0, 0"};
    err = load_fail(SCENES "minimal.yaml", 1, bad_yaml);
    expect_error(&err, "--set", 0, (const char *[]){"gravity", "YAML syntax error", NULL});
}

/* Values from --set are checked like the file's, and the message names --set. */
Test(scene, set_values_are_validated)
{
    const char *negative_dt[] = {"time.dt=-1"};
    ldem_err err = load_fail(SCENES "minimal.yaml", 1, negative_dt);
    expect_error(&err, "--set", 0, (const char *[]){"time.dt: must be > 0, got -1", NULL});

    const char *unknown[] = {"time.foo=1"};
    err = load_fail(SCENES "minimal.yaml", 1, unknown);
    expect_error(&err, "--set", 0, (const char *[]){"time.foo: unknown key", "accepted: dt, "
                                                    "safety, modal_safety, duration, steps", NULL});

    const char *both[] = {"time.steps=5"};
    err = load_fail(SCENES "minimal.yaml", 1, both);
    expect_error(&err, "--set", 0, (const char *[]){"time.steps", "not both", NULL});

    const char *missing_nu[] = {"materials.glass={E: 1e9, density: 1, friction: 0}"};
    err = load_fail(SCENES "minimal.yaml", 1, missing_nu);
    expect_error(&err, "--set", 0, (const char *[]){"materials.glass: missing 'nu'", NULL});

    const char *empty[] = {"gravity="};
    err = load_fail(SCENES "minimal.yaml", 1, empty);
    expect_error(&err, "--set", 0, (const char *[]){"gravity", "got nothing", NULL});
}

/* ---- errors in files: FILE:LINE: key: what, expected ---- */

Test(scene, error_unknown_key)
{
    ldem_err err = load_fail(SCENES "unknown_key.yaml", 0, NULL);
    expect_error(&err, "scenes/unknown_key.yaml", 4,
                 (const char *[]){"materials.steel.densty: unknown key",
                                  "accepted: E, nu, density, friction", NULL});
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    cr_assert_eq(ldem_err_exit_code(&err), 2);
}

Test(scene, error_wrong_type)
{
    ldem_err err = load_fail(SCENES "wrong_type.yaml", 0, NULL);
    expect_error(&err, "scenes/wrong_type.yaml", 8,
                 (const char *[]){"grains.0.position: expected a list of 3 numbers",
                                  "got '0.5'", NULL});
}

Test(scene, error_negative_radius)
{
    ldem_err err = load_fail(SCENES "negative_radius.yaml", 0, NULL);
    expect_error(&err, "scenes/negative_radius.yaml", 9,
                 (const char *[]){"grains.1.radius: must be > 0, got -1", NULL});
}

Test(scene, error_missing_reference)
{
    ldem_err err = load_fail(SCENES "missing_ref.yaml", 0, NULL);
    expect_error(&err, "scenes/missing_ref.yaml", 12,
                 (const char *[]){"walls.0.material: unknown material 'rubber'",
                                  "materials: glass, steel", NULL});
    const char *bad_shape[] = {"grains.0.shape=cube"};
    err = load_fail(SCENES "missing_ref.yaml", 1, bad_shape);
    expect_error(&err, "--set", 0,
                 (const char *[]){"grains.0.shape: unknown shape 'cube'", "shapes: ball", NULL});
}

Test(scene, error_duplicate_key)
{
    ldem_err err = load_fail(SCENES "duplicate_key.yaml", 0, NULL);
    expect_error(&err, "scenes/duplicate_key.yaml", 6,
                 (const char *[]){"duplicate key 'ball'", "first given on line 5", NULL});
}

Test(scene, error_yaml_syntax)
{
    ldem_err err = load_fail(SCENES "tab.yaml", 0, NULL);
    expect_error(&err, "scenes/tab.yaml", 4, (const char *[]){"YAML syntax error", "tab", NULL});

    /* An unclosed flow list: libyaml notices on the next line, where it expected ',' or ']';
     * the message also says where the list began. */
    err = load_fail(SCENES "syntax.yaml", 0, NULL);
    expect_error(&err, "scenes/syntax.yaml", 3,
                 (const char *[]){"YAML syntax error", "started on line 2", NULL});
}

Test(scene, error_missing_file)
{
    ldem_err err = load_fail(SCENES "no_such_scene.yaml", 0, NULL);
    expect_error(&err, "no_such_scene.yaml", 0,
                 (const char *[]){"cannot open", "No such file", NULL});
}

/* ---- placements ---- */

Test(scene, tsv_placement)
{
    ldem_scene s;
    load_ok(&s, SCENES "placements.yaml", 0, NULL);
    cr_assert_eq(s.ngrains, 3 + 24 + 24);
    cr_assert_eq(s.nsources, 1);
    cr_assert(ends_with(s.sources[0], "scenes/packing.tsv"), "%s", s.sources[0]);
    const ldem_scene_grain *g = s.grains;
    /* row 1 (file line 3) */
    expect_vec3(g[0].x, 0, 0, 0);
    expect_vec3(g[0].v, 0, 0, -1);
    cr_assert(g[0].radius == 0.001 && g[0].line == 3 && g[0].source == 1 && g[0].entry == 0);
    cr_assert(g[0].q[0] == 1.0 && g[0].q[3] == 0.0);
    /* row 2: quaternion (0,0,0,2) normalized, own velocity and spin */
    expect_vec3(g[1].x, 0.003, 0, 0);
    expect_vec3(g[1].v, 0.5, 0, 0);
    expect_vec3(g[1].omega, 1, 2, 3);
    cr_assert(g[1].q[0] == 0.0 && g[1].q[1] == 0.0 && g[1].q[2] == 0.0 && g[1].q[3] == 1.0);
    cr_assert(g[1].radius == 0.0015 && g[1].line == 4);
    /* row 3 after a blank line: file line 6 */
    expect_vec3(g[2].x, 0, 0.004, 0);
    cr_assert(g[2].radius == 0.002 && g[2].line == 6);
    ldem_scene_free(&s);
}

Test(scene, lattice_expansion_and_jitter)
{
    ldem_scene s;
    load_ok(&s, SCENES "placements.yaml", 0, NULL);
    const ldem_scene_grain *jit = s.grains + 3, *reg = s.grains + 27;
    double max_offset = 0.0, min_offset = 0.0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 4; i++) {
                size_t n = (size_t)(i + 4 * (j + 3 * k));
                /* the unjittered lattice, exactly */
                expect_vec3(reg[n].x, 1 + 0.5 * i, 2 + 0.5 * j, 3 + 0.5 * k);
                cr_assert(reg[n].entry == 2 && reg[n].radius == 0.0 && reg[n].source == 0);
                /* the jittered one within ±0.01 of its site */
                double d[3] = {jit[n].x.x - reg[n].x.x, jit[n].x.y - reg[n].x.y,
                               jit[n].x.z - reg[n].x.z};
                for (int a = 0; a < 3; a++) {
                    cr_assert_leq(fabs(d[a]), 0.01 + 1e-15);
                    max_offset = fmax(max_offset, d[a]);
                    min_offset = fmin(min_offset, d[a]);
                }
            }
    /* 72 uniform draws in [-0.01, 0.01): the extremes reach past ±0.005 (a failure of this
     * would mean the jitter is not applied or not spread; probability ~1e-22 otherwise) */
    cr_assert_gt(max_offset, 0.005);
    cr_assert_lt(min_offset, -0.005);

    /* the same seed gives the same packing; another seed another */
    ldem_scene again, other;
    load_ok(&again, SCENES "placements.yaml", 0, NULL);
    const char *seed[] = {"grains.1.lattice.seed=8"};
    load_ok(&other, SCENES "placements.yaml", 1, seed);
    int differs = 0;
    for (size_t n = 3; n < 27; n++) {
        cr_assert(memcmp(&again.grains[n].x, &s.grains[n].x, sizeof(ldem_vec3)) == 0);
        differs += memcmp(&other.grains[n].x, &s.grains[n].x, sizeof(ldem_vec3)) != 0;
    }
    cr_assert_eq(differs, 24);
    ldem_scene_free(&other);
    ldem_scene_free(&again);
    ldem_scene_free(&s);
}

Test(scene, lattice_count_checked)
{
    const char *zero[] = {"grains.2.lattice.count=[4, 0, 2]"};
    ldem_err err = load_fail(SCENES "placements.yaml", 1, zero);
    expect_error(&err, "--set", 0,
                 (const char *[]){"grains.2.lattice.count", "whole numbers >= 1", NULL});
    const char *huge[] = {"grains.2.lattice.count=[1000, 1000, 1000]"};
    err = load_fail(SCENES "placements.yaml", 1, huge);
    expect_error(&err, "--set", 0, (const char *[]){"grains.2.lattice.count", "at most", NULL});
}

Test(scene, tsv_error_names_its_line)
{
    ldem_err err = load_fail(SCENES "bad_tsv.yaml", 0, NULL);
    expect_error(&err, "scenes/bad_radius.tsv", 4,
                 (const char *[]){"radius: must be > 0, got -0.001", "grains.0.file", NULL});
}
