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

#include "../support/law_states.h"
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
    cr_assert_eq(s.contacts[0].ops->id, LDEM_LAW_HERTZ_JAGER);
    cr_assert(s.contacts[0].p[LDEM_JAGER_P_BETA] == 0.1 && s.contacts[0].friction == 0.4 &&
              s.contacts[0].damping == 0.2);
    cr_assert(s.contacts[2].damping == 0.0, "no damping unless asked");
    cr_assert_str_eq(s.contacts[1].material_a, "*");
    cr_assert_str_eq(s.contacts[1].material_b, "steel");
    cr_assert_eq(s.contacts[1].ops->id, LDEM_LAW_LINEAR);
    cr_assert(s.contacts[1].p[LDEM_LINEAR_P_KN] == 1e5 && s.contacts[1].p[LDEM_LINEAR_P_KS] == 5e4);
    cr_assert_lt(s.contacts[1].friction, 0.0, "friction not given: mean of the materials");
    cr_assert_eq(s.contacts[2].ops->id, LDEM_LAW_FRICTIONLESS);
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
    cr_assert_eq(s.contacts[1].p[LDEM_LINEAR_P_KN], 2e5);
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

    const char *damped_linear[] = {"contacts.1.damping=0.1"};
    err = load_fail(SCENES "full.yaml", 1, damped_linear);
    expect_error(&err, "--set", 0, (const char *[]){"contacts.1.damping: does not apply to "
                                                    "model linear", NULL});

    const char *history_linear[] = {"contacts.1.history=full"};
    err = load_fail(SCENES "full.yaml", 1, history_linear);
    expect_error(&err, "--set", 0, (const char *[]){"contacts.1.history: does not apply to "
                                                    "model linear", NULL});

    const char *history_what[] = {"contacts.0.history=lossy"};
    err = load_fail(SCENES "full.yaml", 1, history_what);
    expect_error(&err, "--set", 0, (const char *[]){"contacts.0.history: expected one of "
                                                    "compressed, full, got 'lossy'", NULL});

    const char *full_history[] = {"contacts.0.history=full"};
    ldem_scene fh;
    load_ok(&fh, SCENES "full.yaml", 1, full_history);
    cr_assert(fh.contacts[0].p[LDEM_JAGER_P_HISTORY] == 1.0 &&
              fh.contacts[2].p[LDEM_JAGER_P_HISTORY] == 0.0);
    ldem_scene_free(&fh);

    const char *overdamped[] = {"contacts.2.damping=1.5"};
    err = load_fail(SCENES "full.yaml", 1, overdamped);
    expect_error(&err, "--set", 0, (const char *[]){"contacts.2.damping", "1.5", NULL});

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
    /* walls are read before grains (generate: entries avoid them): fix the wall first */
    const char *bad_shape[] = {"walls.0.material=steel", "grains.0.shape=cube"};
    err = load_fail(SCENES "missing_ref.yaml", 2, bad_shape);
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
    /* Beyond any integer: refused before it is converted (the conversion would be undefined;
     * Clang's -fsanitize=float-cast-overflow stops here if the order is wrong). */
    const char *beyond[] = {"grains.2.lattice.count=[1e30, 1, 1]"};
    err = load_fail(SCENES "placements.yaml", 1, beyond);
    expect_error(&err, "--set", 0,
                 (const char *[]){"grains.2.lattice.count", "whole numbers >= 1", NULL});
}

/* A lattice whose grains would not fit in the memory limit is refused before it is expanded,
 * naming the key and the estimate; within the limit the same scene loads. */
Test(scene, lattice_over_memory_limit)
{
    const char *sets[] = {"grains.2.lattice.count=[100, 100, 100]"};
    ldem_scene s;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_scene_load_limited(&s, SCENES "placements.yaml", 1, sets, 16u << 20, &err),
                 LDEM_ERR_INPUT);
    expect_error(&err, "--set", 0,
                 (const char *[]){"grains.2.lattice.count needs ~1", "GiB (limit 16 MiB; see "
                                  "--max-memory)", NULL});
    ldem_scene_free(&s);
    cr_assert_eq(ldem_scene_load_limited(&s, SCENES "placements.yaml", 0, NULL, 16u << 20, &err),
                 LDEM_OK, "%s", err.msg);
    cr_assert_eq(s.max_memory, 16u << 20);
    ldem_scene_free(&s);
}

Test(scene, tsv_error_names_its_line)
{
    ldem_err err = load_fail(SCENES "bad_tsv.yaml", 0, NULL);
    expect_error(&err, "scenes/bad_radius.tsv", 4,
                 (const char *[]){"radius: must be > 0, got -0.001", "grains.0.file", NULL});
}

/* ---- deformable grains (docs/scene.md: modes blocks, deformable, probes.modes) ---- */

Test(scene, deformable_keys)
{
    ldem_scene s;
    load_ok(&s, SCENES "deformable.yaml", 0, NULL);
    cr_assert(s.dt_safety == 0.3 && s.modal_safety == 0.15);
    cr_assert_eq(s.nshapes, 5);
    const ldem_scene_modes *m = &s.shapes[1].modes;   /* beam: every key written out */
    cr_assert(m->given);
    cr_assert_eq(m->line, 10, "the block's first line");
    cr_assert_eq(m->levelset, LDEM_LEVELSET_PRECOMPUTED);
    cr_assert_eq(m->nrange, 2);
    cr_assert(m->range[0] == -0.5 && m->range[1] == 0.5 && m->range[2] == -1 && m->range[3] == 2);
    cr_assert_eq(m->samples, 5);
    cr_assert(m->damping == LDEM_MODAL_DAMPING_RAYLEIGH && m->alpha == 0.1 && m->beta == 0.002);
    m = &s.shapes[2].modes;                            /* beam2: one range for all modes */
    cr_assert(m->given && m->levelset == LDEM_LEVELSET_REMAP && m->samples == 9);
    cr_assert(m->nrange == 1 && m->range[0] == -0.3 && m->range[1] == 0.4);
    cr_assert(m->damping == LDEM_MODAL_DAMPING_RATIO && m->zeta == 0.05);
    cr_assert_eq(s.shapes[3].modes.damping, LDEM_MODAL_DAMPING_NONE);
    m = &s.shapes[4].modes;                            /* beam4: no block, the defaults */
    cr_assert(!m->given && m->levelset == LDEM_LEVELSET_REMAP && m->nrange == 0 &&
              m->samples == 9 && m->damping == LDEM_MODAL_DAMPING_BUNDLE && m->pullback == 1);
    cr_assert_eq(s.shapes[2].modes.pullback, 3);

    cr_assert_eq(s.ngrains, 7);
    const ldem_scene_grain *g = s.grains;
    cr_assert(g[0].deformable == 1 && g[1].deformable == 0 && g[2].deformable == -1 &&
              g[3].deformable == -1 && g[4].deformable == 1 && g[5].deformable == 1 &&
              g[6].deformable == -1);
    cr_assert(g[1].modal_init == -1 && g[3].modal_init == -1 && g[6].modal_init == -1);
    cr_assert_eq(s.nmodal_inits, 3);
    const ldem_scene_modal_init *init = &s.modal_inits[g[0].modal_init];
    cr_assert(init->n == 2 && init->amplitude[0] == 0.25 && init->amplitude[1] == -0.5 &&
              init->rate[0] == 1 && init->rate[1] == 2);
    cr_assert(strcmp(init->key, "amplitude") == 0 && init->line == 19);
    init = &s.modal_inits[g[2].modal_init];            /* rate only: amplitude zeros */
    cr_assert(init->n == 1 && init->amplitude[0] == 0.0 && init->rate[0] == 3);
    cr_assert(strcmp(init->key, "rate") == 0 && init->line == 21);
    /* a lattice shares one init among its grains */
    cr_assert(g[4].modal_init >= 0 && g[4].modal_init == g[5].modal_init);
    init = &s.modal_inits[g[4].modal_init];
    cr_assert(init->n == 1 && init->amplitude[0] == 0.125 && init->rate[0] == 0.0);

    cr_assert_eq(s.probe_modes, 2);
    cr_assert(s.nprobe_grains == 3 && s.probe_grains[0] == 0 && s.probe_grains[1] == 2 &&
              s.probe_grains[2] == 5 && s.probe_modes_line == 27);
    ldem_scene_free(&s);
}

Test(scene, deformable_defaults_and_set)
{
    ldem_scene s;
    load_ok(&s, SCENES "minimal.yaml", 0, NULL);
    cr_assert_eq(s.modal_safety, 0.2);
    cr_assert(s.probe_modes == -1 && s.nprobe_grains == 0);
    cr_assert(!s.shapes[0].modes.given && s.nmodal_inits == 0);
    cr_assert(s.grains[0].deformable == -1 && s.grains[0].modal_init == -1);
    ldem_scene_free(&s);

    const char *sets[] = {"time.modal_safety=1.5", "output.probes.modes=false",
                          "shapes.beam4.modes={levelset: precomputed, samples: 3}",
                          "grains.3.modes.amplitude=[0.5, 0.25, 1]"};
    load_ok(&s, SCENES "deformable.yaml", 4, sets);
    cr_assert(s.modal_safety == 1.5 && s.probe_modes == 0);
    const ldem_scene_modes *m = &s.shapes[4].modes;
    cr_assert(m->given && m->line == 0 && m->levelset == LDEM_LEVELSET_PRECOMPUTED &&
              m->samples == 3 && m->pullback == 1);
    const ldem_scene_modal_init *init = &s.modal_inits[s.grains[3].modal_init];
    cr_assert(init->n == 3 && init->amplitude[2] == 1 && init->line == 0);
    ldem_scene_free(&s);

    const char *all[] = {"output.probes.modes=true"};
    load_ok(&s, SCENES "deformable.yaml", 1, all);
    cr_assert(s.probe_modes == 1 && s.nprobe_grains == 0);
    ldem_scene_free(&s);
    const char *aut[] = {"output.probes.modes=auto"};
    load_ok(&s, SCENES "deformable.yaml", 1, aut);
    cr_assert_eq(s.probe_modes, -1);
    ldem_scene_free(&s);

    const char *bad[] = {"shapes.beam.modes.samples=1"};
    ldem_err err = load_fail(SCENES "deformable.yaml", 1, bad);
    expect_error(&err, "--set", 0, (const char *[]){"shapes.beam.modes.samples", "got 1", NULL});
}

/* A small scene whose line `line` (1-based) is replaced by `text`, written to TMP and
 * loaded; it must fail, and the error is returned. */
static const char *const BAD_BASE[] = {
    "time: {duration: 1}",
    "materials:",
    "  m: {E: 1e4, nu: 0.3, density: 1, friction: 0.3}",
    "shapes:",
    "  ball: {sphere: 0.5}",
    "  beam: {bundle: beam.ldg}",
    "grains:",
    "  - {shape: beam, position: [0, 0, 0]}",
    "output:",
    "  probes: {every: 10}",
};
#define BAD_PATH LDEM_TEST_TMP "/deformable_bad.yaml"

static ldem_err bad_deformable(int line, const char *text)
{
    FILE *fp = fopen(BAD_PATH, "w");
    cr_assert(fp, "cannot write %s", BAD_PATH);
    for (int k = 0; k < (int)(sizeof BAD_BASE / sizeof BAD_BASE[0]); k++)
        fprintf(fp, "%s\n", k + 1 == line ? text : BAD_BASE[k]);
    fclose(fp);
    return load_fail(BAD_PATH, 0, NULL);
}

static void expect_bad(int line, const char *text, const char *const *fragments)
{
    ldem_err err = bad_deformable(line, text);
    expect_error(&err, "deformable_bad.yaml", line, fragments);
    cr_assert_eq(ldem_err_exit_code(&err), 2);
}

Test(scene, deformable_base_is_good)
{
    /* the template itself loads: every failure below comes from its one changed line */
    ldem_scene s;
    FILE *fp = fopen(BAD_PATH, "w");
    cr_assert(fp);
    for (size_t k = 0; k < sizeof BAD_BASE / sizeof BAD_BASE[0]; k++)
        fprintf(fp, "%s\n", BAD_BASE[k]);
    fclose(fp);
    load_ok(&s, BAD_PATH, 0, NULL);
    ldem_scene_free(&s);
}

Test(scene, deformable_errors_time_and_shapes)
{
    expect_bad(1, "time: {duration: 1, modal_safety: 0}",
               (const char *[]){"time.modal_safety", "got 0", NULL});
    expect_bad(1, "time: {duration: 1, modal_safety: 3}",
               (const char *[]){"time.modal_safety", "got 3", NULL});
    expect_bad(5, "  ball: {sphere: 0.5, modes: {}}",
               (const char *[]){"shapes.ball.modes", "bundle shapes only", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: [remap]}",
               (const char *[]){"shapes.beam.modes: expected a mapping", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {stiffness: 2}}",
               (const char *[]){"shapes.beam.modes.stiffness: unknown key",
                                "levelset, range, samples, damping", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {levelset: sideways}}",
               (const char *[]){"shapes.beam.modes.levelset: expected remap or precomputed",
                                "sideways", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: [1, 0]}}",
               (const char *[]){"shapes.beam.modes.range: expected min < max, got [1, 0]",
                                NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: [1]}}",
               (const char *[]){"shapes.beam.modes.range: expected a list of 2 numbers", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: [[0, 1], [2]]}}",
               (const char *[]){"shapes.beam.modes.range.1: expected a list of 2 numbers",
                                NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: [[0, 1], [3, 2]]}}",
               (const char *[]){"shapes.beam.modes.range.1: expected min < max", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: low}}",
               (const char *[]){"shapes.beam.modes.range: expected [min, max]", "'low'", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {range: [0, inf]}}",
               (const char *[]){"shapes.beam.modes.range.1: must be a finite number", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {samples: 1}}",
               (const char *[]){"shapes.beam.modes.samples: expected a whole number >= 2",
                                NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {samples: 2.5}}",
               (const char *[]){"shapes.beam.modes.samples", "whole number", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {pullback: 0}}",
               (const char *[]){"shapes.beam.modes.pullback: expected a whole number >= 1",
                                NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {pullback: 1000}}",
               (const char *[]){"shapes.beam.modes.pullback", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: lots}}",
               (const char *[]){"shapes.beam.modes.damping: expected bundle, none, {ratio: zeta}"
                                " or {rayleigh: [alpha, beta]}", "'lots'", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: {ratio: -0.1}}}",
               (const char *[]){"shapes.beam.modes.damping.ratio", "got -0.1", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: {zeta: 0.1}}}",
               (const char *[]){"shapes.beam.modes.damping.zeta: unknown key", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: {rayleigh: [1]}}}",
               (const char *[]){"shapes.beam.modes.damping.rayleigh: expected a list of 2 "
                                "numbers [alpha, beta]", NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: {rayleigh: [-1, 0]}}}",
               (const char *[]){"shapes.beam.modes.damping.rayleigh: expected alpha, beta >= 0",
                                NULL});
    expect_bad(6, "  beam: {bundle: beam.ldg, modes: {damping: {ratio: 0.1, rayleigh: [0, 0]}}}",
               (const char *[]){"shapes.beam.modes.damping: expected bundle, none", NULL});
}

Test(scene, deformable_errors_grains_and_probes)
{
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], deformable: maybe}",
               (const char *[]){"grains.0.deformable", "maybe", NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: [0.5]}",
               (const char *[]){"grains.0.modes: expected {amplitude: [...], rate: [...]}",
                                NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {velocity: [1]}}",
               (const char *[]){"grains.0.modes.velocity: unknown key", "amplitude, rate",
                                NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {amplitude: 0.5}}",
               (const char *[]){"grains.0.modes: expected amplitude: [e1, ...]", NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {amplitude: []}}",
               (const char *[]){"grains.0.modes: expected amplitude: [e1, ...]", NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {amplitude: [x]}}",
               (const char *[]){"grains.0.modes.amplitude.0: expected a number, got 'x'", NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {amplitude: [1], rate: [1, 2]}}",
               (const char *[]){"grains.0.modes", "rate has 2 values, amplitude 1", NULL});
    expect_bad(8, "  - {shape: beam, position: [0, 0, 0], modes: {rate: [nan]}}",
               (const char *[]){"grains.0.modes.rate.0: must be a finite number", NULL});
    expect_bad(8, "  - lattice: {shape: beam, origin: [0, 0, 0], spacing: [1, 1, 1], "
                  "count: [1, 1, 1], modes: {amplitude: [y]}}",
               (const char *[]){"modes.amplitude.0: expected a number, got 'y'", NULL});
    expect_bad(8, "  - lattice: {shape: beam, origin: [0, 0, 0], spacing: [1, 1, 1], "
                  "count: [1, 1, 1], deformable: 2}",
               (const char *[]){"deformable", NULL});
    expect_bad(10, "  probes: {every: 10, modes: some}",
               (const char *[]){"output.probes.modes: expected auto, true, false or a list of "
                                "grain indices", "'some'", NULL});
    expect_bad(10, "  probes: {every: 10, modes: [1.5]}",
               (const char *[]){"output.probes.modes.0: expected a grain index", NULL});
    expect_bad(10, "  probes: {every: 10, modes: [-1]}",
               (const char *[]){"output.probes.modes.0", "got -1", NULL});
    expect_bad(10, "  probes: {every: 10, modes: [0, 0]}",
               (const char *[]){"output.probes.modes.1: grain 0 is listed twice", NULL});
}

/* ---- the periodic cell (`cell:`) ---- */

/* A small sphere scene whose last line is the cell (one flow line, so every message about it
 * is on line CELL_LINE), written to TMP under a name of the test's own (Criterion may run the
 * tests in parallel); `extra` lines follow it (walls, for the builder). */
static const char *const CELL_BASE[] = {
    "time: {duration: 1}",
    "materials:",
    "  m: {E: 1e4, nu: 0.3, density: 1, friction: 0.3}",
    "shapes:",
    "  ball: {sphere: 0.5}",
    "grains:",
    "  - {shape: ball, position: [0, 0, 0]}",
};
#define CELL_LINE 8
static char cell_path[512];   /* each test runs in its own process: set by use_cell_file */

static void use_cell_file(const char *test)
{
    snprintf(cell_path, sizeof cell_path, "%s/cell_scene_%s.yaml", LDEM_TEST_TMP, test);
}

static void write_cell_scene(const char *cell, const char *extra)
{
    cr_assert(cell_path[0], "use_cell_file first");
    FILE *fp = fopen(cell_path, "w");
    cr_assert(fp, "cannot write %s", cell_path);
    for (size_t k = 0; k < sizeof CELL_BASE / sizeof CELL_BASE[0]; k++)
        fprintf(fp, "%s\n", CELL_BASE[k]);
    fprintf(fp, "%s\n%s", cell, extra ? extra : "");
    fclose(fp);
}

/* The scene with `cell` must be refused on the cell's line with every fragment. */
static void expect_bad_cell(const char *cell, const char *const *fragments)
{
    write_cell_scene(cell, NULL);
    ldem_err err = load_fail(cell_path, 0, NULL);
    expect_error(&err, cell_path, CELL_LINE, fragments);
    cr_assert_eq(ldem_err_exit_code(&err), 2);
}

/* Geometry: unknown keys, box and vectors together or neither, an inverted box, a centre
 * with a box (it is implied), and vectors that are not three 3-vectors or lack their centre. */
Test(scene, cell_errors_geometry)
{
    use_cell_file("errors_geometry");
    /* the template with a plain box loads: each failure below is its own */
    ldem_scene s;
    write_cell_scene("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}}", NULL);
    load_ok(&s, cell_path, 0, NULL);
    cr_assert(s.cell.given);
    ldem_scene_free(&s);

    expect_bad_cell("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, shape: cube}",
                    (const char *[]){"cell.shape: unknown key",
                                     "accepted: box, vectors, centre, x, y, z, servo", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1], size: 2}}",
                    (const char *[]){"cell.box.size: unknown key", "accepted: lo, hi", NULL});
    expect_bad_cell("cell: [1, 2, 3]", (const char *[]){"cell: expected a mapping", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, "
                    "vectors: [[2, 0, 0], [0, 2, 0], [0, 0, 2]], centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors: give either box or vectors, not both",
                                     NULL});
    expect_bad_cell("cell: {x: {strain_rate: 1}}",
                    (const char *[]){"cell: missing the cell's geometry", "box: {lo:",
                                     "vectors: [[ax, ay, az]", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, -1], hi: [1, -1, 1]}}",
                    (const char *[]){"cell.box: hi must exceed lo along every axis",
                                     "lo (-1, -1, -1), hi (1, -1, 1)", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, 2], hi: [1, 1, 1]}}",
                    (const char *[]){"cell.box: hi must exceed lo", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, -1]}}",
                    (const char *[]){"cell.box: missing 'hi'", NULL});
    expect_bad_cell("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, centre: [0, 0, 0]}",
                    (const char *[]){"cell.centre: a box has its centre midway between lo and "
                                     "hi", NULL});
    expect_bad_cell("cell: {vectors: [[2, 0, 0], [0, 2, 0]], centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors: expected three edge vectors", NULL});
    /* one vector where three are due: three items, but not vectors */
    expect_bad_cell("cell: {vectors: [2, 0, 0], centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors.0: expected a list of 3 numbers", "got '2'",
                                     NULL});
    expect_bad_cell("cell: {vectors: {a: [2, 0, 0]}, centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors: expected three edge vectors", NULL});
    expect_bad_cell("cell: {vectors: [[2, 0, 0], [0, 2, 0], [0, 2]], centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors.2: expected a list of 3 numbers", NULL});
    expect_bad_cell("cell: {vectors: [[2, 0, 0], [0, 2, 0], [0, 0, x]], centre: [0, 0, 0]}",
                    (const char *[]){"cell.vectors.2.2: expected a number, got 'x'", NULL});
    expect_bad_cell("cell: {vectors: [[2, 0, 0], [0, 2, 0], [0, 0, 2]]}",
                    (const char *[]){"cell: missing 'centre'", NULL});
}

/* Drive: each direction exactly one of strain_rate and stress; stress needs a servo with
 * max_strain_rate > 0; the gain is in (0, 1]. */
Test(scene, cell_errors_drive_and_servo)
{
    use_cell_file("errors_drive_and_servo");
    const char *box = "cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, ";
    char line[256];
#define CELL(rest) (snprintf(line, sizeof line, "%s%s", box, rest), line)
    expect_bad_cell(CELL("x: {strain_rate: 1, stress: 10}}"),
                    (const char *[]){"cell.x: give exactly one of strain_rate", "stress",
                                     "mean_stress", "and cyclic", NULL});
    expect_bad_cell(CELL("y: {}}"), (const char *[]){"cell.y: give exactly one of strain_rate",
                                                     NULL});
    expect_bad_cell(CELL("z: {rate: 1}}"),
                    (const char *[]){"cell.z.rate: unknown key", "strain_rate, stress", NULL});
    expect_bad_cell(CELL("z: -1}"), (const char *[]){"cell.z: expected a mapping", NULL});
    expect_bad_cell(CELL("x: {strain_rate: fast}}"),
                    (const char *[]){"cell.x.strain_rate: expected a number, got 'fast'", NULL});
    expect_bad_cell(CELL("z: {stress: 100}}"),
                    (const char *[]){"cell: a stress-controlled direction needs servo",
                                     "max_strain_rate", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {gain: 0.5}}"),
                    (const char *[]){"cell.servo: missing 'max_strain_rate'", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 1, gain: 0}}"),
                    (const char *[]){"cell.servo.gain: must be in (0, 1], got 0", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 1, gain: 1.5}}"),
                    (const char *[]){"cell.servo.gain: must be in (0, 1], got 1.5", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 1, integral: 1}}"),
                    (const char *[]){"cell.servo.integral: must be in [0, 1), got 1", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 1, integral: -0.1}}"),
                    (const char *[]){"cell.servo.integral: must be in [0, 1), got -0.1", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 0}}"),
                    (const char *[]){"cell.servo.max_strain_rate: must be > 0, got 0", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: -2}}"),
                    (const char *[]){"cell.servo.max_strain_rate: must be > 0, got -2", NULL});
    expect_bad_cell(CELL("z: {stress: 100}, servo: {max_strain_rate: 1, damping: 2}}"),
                    (const char *[]){"cell.servo.damping: unknown key",
                                     "gain, integral, max_strain_rate", NULL});
#undef CELL
    /* --set reaches the cell like any other key */
    write_cell_scene("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, z: {stress: 100}, "
                     "servo: {max_strain_rate: 1}}", NULL);
    const char *gain[] = {"cell.servo.gain=2"};
    ldem_err err = load_fail(cell_path, 1, gain);
    expect_error(&err, "--set", 0, (const char *[]){"cell.servo.gain: must be in (0, 1], got 2",
                                                    NULL});
}

/* An accepted cell: box lo (−1, −2, −3), hi (3, 2, 5) is h = diag(4, 4, 8) about (1, 0, 1);
 * x by stress, y and z by strain rate; the gain takes its default 0.05 when not given, and a
 * given one is kept. A triclinic cell by vectors has them as h's columns. */
Test(scene, cell_accepted)
{
    use_cell_file("accepted");
    write_cell_scene("cell:\n"
                     "  box: {lo: [-1, -2, -3], hi: [3, 2, 5]}\n"
                     "  x: {stress: 1000}\n"
                     "  y: {strain_rate: 0}\n"
                     "  z: {strain_rate: -1}\n"
                     "  servo: {max_strain_rate: 0.5}", NULL);
    ldem_scene s;
    load_ok(&s, cell_path, 0, NULL);
    const ldem_scene_cell *c = &s.cell;
    cr_assert(c->given);
    cr_assert_eq(c->line, CELL_LINE + 1, "the block's first line");
    const double h[3][3] = {{4, 0, 0}, {0, 4, 0}, {0, 0, 8}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cr_assert_eq(c->h.m[i][j], h[i][j], "h(%d, %d) = %g", i, j, c->h.m[i][j]);
    expect_vec3(c->centre, 1, 0, 1);
    cr_assert_eq(c->control.drive[0], LDEM_CELL_STRESS);
    cr_assert_eq(c->control.drive[1], LDEM_CELL_STRAIN_RATE);
    cr_assert_eq(c->control.drive[2], LDEM_CELL_STRAIN_RATE);
    cr_assert_eq(c->control.stress[0], 1000.0);
    cr_assert_eq(c->control.strain_rate[1], 0.0);
    cr_assert_eq(c->control.strain_rate[2], -1.0);
    cr_assert_eq(c->control.gain, 0.05, "the default gain");
    cr_assert_eq(c->control.integral, 0.0, "no integral term unless asked");
    cr_assert_eq(c->control.max_rate, 0.5);
    ldem_scene_free(&s);

    /* a given gain; a direction left out is strain-controlled at rate 0 */
    write_cell_scene("cell: {vectors: [[10, 0, 0], [3, 8, 0], [1, 2, 6]], centre: [1, -2, 3], "
                     "z: {stress: -5}, servo: {gain: 1, integral: 0.25, max_strain_rate: 2}}",
                     NULL);
    load_ok(&s, cell_path, 0, NULL);
    c = &s.cell;
    cr_assert_eq(c->line, CELL_LINE);
    const double t[3][3] = {{10, 3, 1}, {0, 8, 2}, {0, 0, 6}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cr_assert_eq(c->h.m[i][j], t[i][j], "h(%d, %d) = %g", i, j, c->h.m[i][j]);
    expect_vec3(c->centre, 1, -2, 3);
    cr_assert(c->control.drive[0] == LDEM_CELL_STRAIN_RATE && c->control.strain_rate[0] == 0.0);
    cr_assert(c->control.drive[1] == LDEM_CELL_STRAIN_RATE && c->control.strain_rate[1] == 0.0);
    cr_assert(c->control.drive[2] == LDEM_CELL_STRESS && c->control.stress[2] == -5.0);
    cr_assert(c->control.gain == 1.0 && c->control.integral == 0.25 &&
              c->control.max_rate == 2.0);
    ldem_scene_free(&s);

    /* no cell: open space */
    load_ok(&s, SCENES "minimal.yaml", 0, NULL);
    cr_assert_eq(s.cell.given, 0);
    ldem_scene_free(&s);
}

/* A cyclic drive and the mean-stress servo: one amplitude and one period, lists of both
 * (one period for every amplitude, or one each), cycles defaulting to 1; a direction that
 * holds the mean stress is stress-driven (it needs the servo) and only one may. Errors name
 * the key down to a list's index, also through --set. */
Test(scene, cell_cyclic_and_mean_stress)
{
    use_cell_file("cyclic");
    write_cell_scene("cell:\n"
                     "  box: {lo: [-1, -1, -1], hi: [1, 1, 1]}\n"
                     "  x: {mean_stress: 1e5}\n"
                     "  y: {cyclic: {amplitude: 1e-4, period: 0.5}}\n"
                     "  z: {cyclic: {amplitude: [1e-6, 1e-5, 1e-3], period: 2e-3, cycles: 10}}\n"
                     "  servo: {max_strain_rate: 0.5}", NULL);
    ldem_scene s;
    load_ok(&s, cell_path, 0, NULL);
    const ldem_cell_control *k = &s.cell.control;
    cr_assert_eq(k->drive[0], LDEM_CELL_MEAN_STRESS);
    cr_assert_eq(k->stress[0], 1e5);
    cr_assert_eq(k->drive[1], LDEM_CELL_CYCLIC);
    cr_assert(k->cyclic[1].levels == 1 && k->cyclic[1].cycles == 1 &&
              k->cyclic[1].amplitude[0] == 1e-4 && k->cyclic[1].period[0] == 0.5);
    cr_assert_eq(k->drive[2], LDEM_CELL_CYCLIC);
    cr_assert(k->cyclic[2].levels == 3 && k->cyclic[2].cycles == 10);
    const double amp[3] = {1e-6, 1e-5, 1e-3};
    for (int i = 0; i < 3; i++)
        cr_assert(k->cyclic[2].amplitude[i] == amp[i] && k->cyclic[2].period[i] == 2e-3,
                  "level %d: %g, %g", i, k->cyclic[2].amplitude[i], k->cyclic[2].period[i]);
    ldem_scene_free(&s);
    write_cell_scene("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, "
                     "z: {cyclic: {amplitude: [1e-6, 1e-3], period: [1, 4], cycles: 2}}}", NULL);
    load_ok(&s, cell_path, 0, NULL);
    cr_assert(s.cell.control.cyclic[2].period[0] == 1 && s.cell.control.cyclic[2].period[1] == 4);
    ldem_scene_free(&s);

    const char *box = "cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, ";
    char line[512];
#define CELL(rest) (snprintf(line, sizeof line, "%s%s", box, rest), line)
    expect_bad_cell(CELL("z: {cyclic: {amplitude: -1, period: 1}}}"),
                    (const char *[]){"cell.z.cyclic.amplitude: must be > 0, got -1", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: [1e-6, 0], period: 1}}}"),
                    (const char *[]){"cell.z.cyclic.amplitude.1: must be > 0, got 0", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: [], period: 1}}}"),
                    (const char *[]){"cell.z.cyclic.amplitude: expected 1 to 16 values, got 0",
                                     NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                         "1, 1, 1], period: 1}}}"),
                    (const char *[]){"cell.z.cyclic.amplitude: expected 1 to 16 values, got 17",
                                     NULL});
    expect_bad_cell(CELL("z: {cyclic: {period: 1}}}"),
                    (const char *[]){"cell.z.cyclic: missing 'amplitude'", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3}}}"),
                    (const char *[]){"cell.z.cyclic: missing 'period'", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3, period: 0}}}"),
                    (const char *[]){"cell.z.cyclic.period: must be > 0, got 0", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: [1e-6, 1e-3], period: [1, 2, 3]}}}"),
                    (const char *[]){"cell.z.cyclic.period: expected one value per amplitude "
                                     "(2), got 3", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: [1e-6, 1e-3], period: [1, -2]}}}"),
                    (const char *[]){"cell.z.cyclic.period.1: must be > 0, got -2", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3, period: 1, cycles: 0}}}"),
                    (const char *[]){"cell.z.cyclic.cycles: expected a whole number >= 1", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3, period: 1, cycles: 2.5}}}"),
                    (const char *[]){"cell.z.cyclic.cycles: expected a whole number", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3, period: 1, shape: sine}}}"),
                    (const char *[]){"cell.z.cyclic.shape: unknown key",
                                     "accepted: amplitude, period, cycles", NULL});
    expect_bad_cell(CELL("z: {cyclic: 3}}"),
                    (const char *[]){"cell.z.cyclic: expected a mapping", NULL});
    expect_bad_cell(CELL("z: {cyclic: {amplitude: 1e-3, period: 1}, strain_rate: 0}}"),
                    (const char *[]){"cell.z: give exactly one of", NULL});
    expect_bad_cell(CELL("x: {mean_stress: 100}}"),
                    (const char *[]){"cell: a stress-controlled direction needs servo", NULL});
    expect_bad_cell(CELL("x: {mean_stress: 100}, y: {mean_stress: 100}, "
                         "servo: {max_strain_rate: 1}}"),
                    (const char *[]){"cell.y: only one direction can hold the mean stress",
                                     NULL});
    expect_bad_cell(CELL("x: {mean_stress: low}, servo: {max_strain_rate: 1}}"),
                    (const char *[]){"cell.x.mean_stress: expected a number, got 'low'", NULL});
#undef CELL
    write_cell_scene("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}, "
                     "z: {cyclic: {amplitude: 1e-3, period: 1}}}", NULL);
    const char *sets[] = {"cell.z.cyclic.amplitude=-1"};
    ldem_err err = load_fail(cell_path, 1, sets);
    expect_error(&err, "--set", 0,
                 (const char *[]){"cell.z.cyclic.amplitude: must be > 0, got -1", NULL});
    const char *sets2[] = {"cell.z={cyclic: {amplitude: [1e-6, 1e-5], period: 1, cycles: 10}}"};
    load_ok(&s, cell_path, 1, sets2);
    cr_assert(s.cell.control.cyclic[2].levels == 2 && s.cell.control.cyclic[2].cycles == 10);
    ldem_scene_free(&s);
}

/* The builder: a cell becomes the world's (h, centre, control), and is refused with walls
 * (the cell is periodic in every direction) or when its vectors are left-handed, on the
 * cell's line. */
Test(scene, cell_build)
{
    use_cell_file("build");
    ldem_scene s;
    ldem_world w;
    ldem_err err;
    write_cell_scene("cell: {box: {lo: [-1, -2, -3], hi: [3, 2, 5]}, x: {stress: 7}, "
                     "servo: {max_strain_rate: 0.5}}", NULL);
    load_ok(&s, cell_path, 0, NULL);
    ldem_err_clear(&err);
    cr_assert_eq(ldem_scene_build(&s, &w, &err), LDEM_OK, "%s:%ld: %s", err.file, err.line,
                 err.msg);
    cr_assert_eq(w.cell.periodic, 1);
    cr_assert(w.cell.h.m[0][0] == 4 && w.cell.h.m[1][1] == 4 && w.cell.h.m[2][2] == 8 &&
              w.cell.h.m[0][1] == 0 && w.cell.h.m[2][0] == 0);
    expect_vec3(w.cell.centre, 1, 0, 1);
    cr_assert(w.cell_control.drive[0] == LDEM_CELL_STRESS && w.cell_control.stress[0] == 7 &&
              w.cell_control.max_rate == 0.5 && w.cell_control.gain == 0.05);
    ldem_world_free(&w);
    ldem_scene_free(&s);

    write_cell_scene("cell: {box: {lo: [-1, -1, -1], hi: [1, 1, 1]}}",
                     "walls:\n  - {name: floor, plane: {point: [0, 0, -1], normal: [0, 0, 1]}}\n");
    load_ok(&s, cell_path, 0, NULL);
    ldem_err_clear(&err);
    cr_assert_neq(ldem_scene_build(&s, &w, &err), LDEM_OK, "a cell with walls was built");
    expect_error(&err, cell_path, CELL_LINE,
                 (const char *[]){"walls in a periodic cell", NULL});
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    ldem_scene_free(&s);

    /* b and c swapped: det < 0, which the parser cannot see but ldem_cell_init refuses */
    write_cell_scene("cell: {vectors: [[2, 0, 0], [0, 0, 2], [0, 2, 0]], centre: [0, 0, 0]}",
                     NULL);
    load_ok(&s, cell_path, 0, NULL);
    ldem_err_clear(&err);
    cr_assert_neq(ldem_scene_build(&s, &w, &err), LDEM_OK, "a left-handed cell was built");
    expect_error(&err, cell_path, CELL_LINE,
                 (const char *[]){"volume of -8", "right-handed", NULL});
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    ldem_scene_free(&s);
}

/* ---- the wall servo (walls: - servo:) ---- */

#define LID(servo) "walls: [{name: lid, plane: {point: [0, 0, 1], normal: [0, 0, -1]}, " \
                   "servo: " servo "}]"

/* Guard: the servo's target as a force or as stress × area, the dimensionless gain's default
 * and range, the integral's range, and the refusals, each on the walls' line. */
Test(scene, wall_servo_keys)
{
    use_cell_file("wall_servo");
    ldem_scene s;
    write_cell_scene(LID("{force: 4.5, max_velocity: 0.3}"), NULL);
    load_ok(&s, cell_path, 0, NULL);
    cr_assert(s.walls[0].servo_force == 4.5 && s.walls[0].servo_gain == 0.5 &&
              s.walls[0].servo_integral == 0.0 && s.walls[0].servo_vmax == 0.3);
    ldem_scene_free(&s);
    write_cell_scene(LID("{stress: 2e3, area: 0.25, gain: 1.5, integral: 0.1, "
                         "max_velocity: 0.3}"), NULL);
    load_ok(&s, cell_path, 0, NULL);
    cr_assert(s.walls[0].servo_force == 500.0 && s.walls[0].servo_gain == 1.5 &&
              s.walls[0].servo_integral == 0.1);
    ldem_scene_free(&s);

    expect_bad_cell(LID("{max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo: give the target as force: F or as stress",
                                     NULL});
    expect_bad_cell(LID("{force: 1, stress: 1, area: 1, max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo: give the target as force", NULL});
    expect_bad_cell(LID("{force: 1, area: 1, max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo: area goes with stress", NULL});
    expect_bad_cell(LID("{stress: 1, max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo: missing 'area'", NULL});
    expect_bad_cell(LID("{force: 1, gain: 2, max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo.gain: must be in (0, 2), got 2", NULL});
    expect_bad_cell(LID("{force: 1, integral: 1, max_velocity: 0.3}"),
                    (const char *[]){"walls.0.servo.integral: must be in [0, 1), got 1", NULL});
    expect_bad_cell(LID("{force: 1}"),
                    (const char *[]){"walls.0.servo: missing 'max_velocity'", NULL});
}
