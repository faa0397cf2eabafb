/* Unit tests of ldem/sim/output.h: VTU frames with their .pvd series, and the probes table.
 *
 * Frames: the tests build worlds with world_fixture (analytic spheres, level-set spheres,
 * planes and cylinders, contacts filled by hand, in touch and separated), write frames, and
 * check here what C can check without VTK: the files and series that exist, every .pvd entry
 * (time bit-exact, relative path), the frame count and times kept for checkpoints, and the
 * resume rules. Each frame case also leaves, next to its output, expect.json (which frames each
 * series must list) and state_NNNNNN.json (the world at that frame, doubles in %.17g);
 * check_frames.py reads every .vtu and .pvd with VTK's own readers and recomputes posed
 * surfaces, velocities, contact lines and wall geometry from those states independently
 * (meson test sim-output-vtk, which sets LDEM_SIM_OUTPUT_KEEP to keep the folders).
 *
 * Probes: header and rows read back with ldem_tsv_read (bit-exact doubles), integer columns
 * from the text, and the resume rules (rows after the resume step dropped, an incomplete last
 * line dropped, a changed header or a bad kept row refused with FILE:LINE, missing table
 * restarted), and I/O errors that name the file.
 *
 * Packing (output.packing): centres wrapped into the cell, rows in input order, the cell in
 * the comments, read back through a scene's grains file entry bit for bit; level-set grains
 * refused.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/law_states.h"
#include "ldem/log.h"
#include "ldem/sim/output.h"
#include "ldem/sim/scene.h"
#include "ldem/tsv.h"
#include "world_fixture.h"

#ifndef LDEM_TEST_TMP
#define LDEM_TEST_TMP "/tmp"
#endif

#define MAX_PATH 1024

static const char *const PARTS[4] = {"spheres", "surfaces", "contacts", "walls"};

/* ---- folders ---- */

/* printf into a MAX_PATH buffer; a test path never needs more. */
static void pathf(char *out, const char *fmt, ...) LDEM_PRINTF(2, 3);
static void pathf(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, MAX_PATH, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && n < MAX_PATH, "path too long: %s", out);
}

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        cr_assert(d, "opendir %s", path);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[MAX_PATH];
            pathf(sub, "%s/%s", path, e->d_name);
            rm_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* A fresh folder for one test: under $LDEM_SIM_OUTPUT_KEEP (left for check_frames.py), or a
 * temporary one under the build folder (removed by case_done). */
static void case_dir(const char *name, char *dir)
{
    const char *keep = getenv("LDEM_SIM_OUTPUT_KEEP");
    if (keep && *keep) {
        pathf(dir, "%s/%s", keep, name);
        rm_tree(dir);
        cr_assert_eq(mkdir(dir, 0777), 0, "mkdir %s: %s", dir, strerror(errno));
    } else {
        pathf(dir, "%s/sim_output_%s_XXXXXX", LDEM_TEST_TMP, name);
        cr_assert(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
    }
}

static void case_done(const char *dir)
{
    const char *keep = getenv("LDEM_SIM_OUTPUT_KEEP");
    if (!(keep && *keep))
        rm_tree(dir);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    cr_assert(fp, "open %s: %s", path, strerror(errno));
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(s);
    cr_assert_eq(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = '\0';
    fclose(fp);
    return s;
}

static void spit(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "open %s: %s", path, strerror(errno));
    fputs(text, fp);
    fclose(fp);
}

/* Send warnings to a temporary file, to check what was said. */
static FILE *capture_log(void)
{
    FILE *log = tmpfile();
    cr_assert(log);
    ldem_log_set_stream(log);
    return log;
}

static void expect_logged(FILE *log, const char *what)
{
    fflush(log);
    long n = ftell(log);
    cr_assert_gt(n, 0, "nothing logged, expected '%s'", what);
    char *text = calloc(1, (size_t)n + 1);
    rewind(log);
    cr_assert_eq(fread(text, 1, (size_t)n, log), (size_t)n);
    cr_assert(strstr(text, what), "logged '%s', expected '%s'", text, what);
    free(text);
    ldem_log_set_stream(NULL);
    fclose(log);
}

/* ---- worlds ---- */

static const double PI = 3.14159265358979323846;

/* L in the body frame for a body-frame angular velocity (principal axes). */
static void set_spin(ldem_world *w, uint32_t i, ldem_vec3 omega_body)
{
    ldem_vec3 I = w->bodies.inertia[i];
    w->bodies.L[i] = ldem_vec3_make(I.x * omega_body.x, I.y * omega_body.y, I.z * omega_body.z);
}

static ldem_wall *add_cylinder(ldem_world *w, ldem_vec3 point, ldem_vec3 axis, double radius,
                               int inside, const char *name)
{
    w->walls = realloc(w->walls, (w->nwalls + 1) * sizeof *w->walls);
    cr_assert(w->walls);
    ldem_wall *wl = &w->walls[w->nwalls++];
    memset(wl, 0, sizeof *wl);
    wl->name = strdup(name);
    wl->kind = LDEM_WALL_CYLINDER;
    wl->origin = point;
    wl->normal = ldem_vec3_normalize(axis);
    wl->radius = radius;
    wl->inside = inside;
    return wl;
}

static ldem_contact *add_contact(ldem_world *w, uint32_t i, uint32_t j, double overlap)
{
    if (w->ncontacts == w->contacts_capacity) {
        w->contacts_capacity = w->contacts_capacity ? 2 * w->contacts_capacity : 8;
        w->contacts = realloc(w->contacts, w->contacts_capacity * sizeof *w->contacts);
        cr_assert(w->contacts);
    }
    ldem_contact *c = &w->contacts[w->ncontacts++];
    memset(c, 0, sizeof *c);
    c->i = i;
    c->j = j;
    c->overlap = overlap;
    c->frame = ldem_quat_identity();
    return c;
}

/* Forces and a Jäger stack length set by hand: output only reads them. */
static void load_contact(ldem_contact *c, ldem_vec3 fn, ldem_vec3 ft, uint32_t length)
{
    c->fn = fn;
    c->ft = ft;
    JAGER_STATE(c).length = length;
}

/* Three analytic spheres, two level-set spheres (turned), a plane, a tilted plane, a drum and
 * a rod; five contacts: three in touch (sphere–sphere, sphere–plane, sphere–grain), one
 * separated (negative overlap) and one exactly at zero overlap (not in touch). */
static void mixed_world(ldem_world *w, int law)
{
    wf_world(w, law);
    ldem_vec3 zero = ldem_vec3_zero();
    wf_add_sphere(w, ldem_vec3_make(0.0, 0.0, 0.5), 0.5, ldem_vec3_make(1.0, 0.0, 0.0));
    wf_add_sphere(w, ldem_vec3_make(1.0, 0.2, 0.5), 0.52, ldem_vec3_make(0.0, -0.5, 0.25));
    wf_add_sphere(w, ldem_vec3_make(-1.2, 0.4, 0.6), 0.6, zero);
    uint32_t shape = wf_add_ls_sphere_shape(w, 0.5, 0.125, 2);
    ldem_quat q3 = ldem_quat_from_axis_angle(ldem_vec3_make(1, 2, 3), 0.7);
    ldem_quat q4 = ldem_quat_from_axis_angle(ldem_vec3_make(-2, 0.5, 1), 2.1);
    wf_add_ls_body(w, shape, ldem_vec3_make(0.3, 1.2, 0.6), q3, ldem_vec3_make(0.1, 0.2, 0.3));
    wf_add_ls_body(w, shape, ldem_vec3_make(-0.4, -1.0, 0.55), q4, ldem_vec3_make(-0.2, 0, 0));
    w->bodies.q[1] = ldem_quat_from_axis_angle(ldem_vec3_make(0, 1, 1), 0.4);
    set_spin(w, 0, ldem_vec3_make(0.0, 3.0, 0.0));
    set_spin(w, 1, ldem_vec3_make(1.0, -2.0, 0.5));
    set_spin(w, 3, ldem_vec3_make(0.7, -1.1, 0.4));
    set_spin(w, 4, ldem_vec3_make(-0.3, 0.2, 2.5));

    uint32_t floor = wf_add_plane(w, zero, ldem_vec3_make(0, 0, 1));
    w->walls[floor].disp = ldem_vec3_make(0.0, 0.0, 0.01);
    w->walls[floor].force = ldem_vec3_make(0.1, 0.2, 30.0);
    uint32_t tilted = wf_add_plane(w, ldem_vec3_make(0, -3, 0), ldem_vec3_make(0, 1, 0.2));
    w->walls[tilted].force = ldem_vec3_make(0.0, -4.0, -0.8);
    ldem_wall *drum = add_cylinder(w, zero, ldem_vec3_make(0, 0, 1), 3.0, 1, "drum");
    drum->disp = ldem_vec3_make(0.05, -0.02, 0.0);
    drum->force = ldem_vec3_make(1.5, -2.5, 0.0);
    ldem_wall *rod =
        add_cylinder(w, ldem_vec3_make(0, 0, 5), ldem_vec3_make(1, 1, 0), 0.2, 0, "rod");
    rod->force = ldem_vec3_make(0.0, 0.0, 7.0);

    load_contact(add_contact(w, 0, 1, 2e-3), ldem_vec3_make(12.0, 2.4, 0.0),
                 ldem_vec3_make(-0.3, 1.5, 0.2), 5);
    ldem_contact *c = add_contact(w, 0, LDEM_WALL_BIT | floor, 1e-3);
    c->point = ldem_vec3_make(0.0, 0.0, 0.0105);
    load_contact(c, ldem_vec3_make(0.0, 0.0, -25.0), ldem_vec3_make(3.0, -4.0, 0.0), 2);
    load_contact(add_contact(w, 1, 3, 5e-4), ldem_vec3_make(-0.7, 1.0, 0.1),
                 ldem_vec3_make(0.05, 0.02, -0.1), 7);
    load_contact(add_contact(w, 2, LDEM_WALL_BIT | 2u, 0.0), ldem_vec3_make(1, 2, 3), zero, 1);
    load_contact(add_contact(w, 3, 4, -1e-4), zero, zero, 0);
}

/* Move everything a little, as a step would, so frames differ. */
static void advance(ldem_world *w, double dt)
{
    ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++) {
        b->x[i] = ldem_vec3_axpy(dt, b->v[i], b->x[i]);
        b->q[i] =
            ldem_quat_mul(ldem_quat_exp(ldem_vec3_scale(ldem_bodies_omega(b, i), dt)), b->q[i]);
        b->v[i] = ldem_vec3_add(b->v[i], ldem_vec3_make(0.0, 0.0, -9.81 * dt));
    }
    for (size_t k = 0; k < w->nwalls; k++) {
        w->walls[k].disp = ldem_vec3_axpy(dt, ldem_vec3_make(0.0, 0.1, -0.2), w->walls[k].disp);
        w->walls[k].force = ldem_vec3_scale(w->walls[k].force, 1.25);
    }
    for (size_t k = 0; k < w->ncontacts; k++) {
        ldem_contact *c = &w->contacts[k];
        c->fn = ldem_vec3_scale(c->fn, 1.5);
        c->ft = ldem_vec3_scale(c->ft, -0.5);
        JAGER_STATE(c).length += (uint32_t)k;
    }
    w->t += dt;
    w->step += 1000;
}

/* ---- what check_frames.py reads: the world at each frame and the expected series ---- */

static void json_vec(FILE *fp, const char *key, const double *v, size_t n)
{
    fprintf(fp, "\"%s\": [", key);
    for (size_t k = 0; k < n; k++)
        fprintf(fp, "%s%.17g", k ? ", " : "", v[k]);
    fputs("]", fp);
}

static void json_vec3(FILE *fp, const char *key, ldem_vec3 v)
{
    const double a[3] = {v.x, v.y, v.z};
    json_vec(fp, key, a, 3);
}

static void dump_state(const char *dir, const ldem_world *w, uint64_t number)
{
    char path[MAX_PATH];
    pathf(path, "%s/state_%06" PRIu64 ".json", dir, number);
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "open %s", path);
    const ldem_bodies *b = &w->bodies;
    fprintf(fp, "{\"t\": %.17g,\n\"bodies\": [\n", w->t);
    for (size_t i = 0; i < b->count; i++) {
        const double q[4] = {b->q[i].w, b->q[i].x, b->q[i].y, b->q[i].z};
        fprintf(fp, "%s{\"kind\": %d, \"shape\": %u, \"id\": %u, \"radius\": %.17g, ",
                i ? ",\n" : "", b->kind[i], (unsigned)b->shape[i], (unsigned)b->id[i],
                b->radius[i]);
        json_vec3(fp, "x", b->x[i]);
        fputs(", ", fp);
        json_vec3(fp, "v", b->v[i]);
        fputs(", ", fp);
        json_vec(fp, "q", q, 4);
        fputs(", ", fp);
        json_vec3(fp, "L", b->L[i]);
        fputs(", ", fp);
        json_vec3(fp, "inertia", b->inertia[i]);
        fputs("}", fp);
    }
    fputs("],\n\"shapes\": [\n", fp);
    for (size_t s = 0; s < w->nshapes; s++) {
        const ldem_nodes *nd = &w->shapes[s].nodes;
        fprintf(fp, "%s{", s ? ",\n" : "");
        json_vec(fp, "nodes", nd->position, 3 * nd->count);
        fputs(", \"triangles\": [", fp);
        for (uint64_t k = 0; k < 3 * nd->ntriangles; k++)
            fprintf(fp, "%s%u", k ? ", " : "", (unsigned)nd->triangles[k]);
        fputs("]}", fp);
    }
    fputs("],\n\"walls\": [\n", fp);
    for (size_t k = 0; k < w->nwalls; k++) {
        const ldem_wall *wl = &w->walls[k];
        fprintf(fp, "%s{\"kind\": %d, \"radius\": %.17g, \"inside\": %d, ", k ? ",\n" : "",
                wl->kind, wl->radius, wl->inside);
        json_vec3(fp, "origin", wl->origin);
        fputs(", ", fp);
        json_vec3(fp, "disp", wl->disp);
        fputs(", ", fp);
        json_vec3(fp, "normal", wl->normal);
        fputs(", ", fp);
        json_vec3(fp, "force", wl->force);
        fputs("}", fp);
    }
    fputs("],\n\"contacts\": [\n", fp);
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        int wall = (c->j & LDEM_WALL_BIT) != 0;
        fprintf(fp,
                "%s{\"i\": %u, \"j\": %u, \"wall\": %s, \"overlap\": %.17g, \"jager\": %s, "
                "\"length\": %u, ",
                k ? ",\n" : "", (unsigned)c->i, (unsigned)(c->j & ~LDEM_WALL_BIT),
                wall ? "true" : "false", c->overlap,
                w->laws[c->law].ops->id == LDEM_LAW_HERTZ_JAGER ? "true" : "false",
                (unsigned)JAGER_STATE(c).length);
        json_vec3(fp, "point", c->point);
        fputs(", ", fp);
        json_vec3(fp, "fn", c->fn);
        fputs(", ", fp);
        json_vec3(fp, "ft", c->ft);
        fputs("}", fp);
    }
    fputs("]}\n", fp);
    fclose(fp);
}

/* The frames each series must list, in order. */
typedef struct expect_entry {
    int part;
    uint64_t number;
    double t;
} expect_entry;

typedef struct expectation {
    size_t n;
    expect_entry e[64];
    int present[4]; /* series that must exist (others must not) */
} expectation;

static void expect_frame(expectation *x, const ldem_frames *f, const ldem_world *w, const char *dir)
{
    ldem_pvd *series[4] = {f->spheres, f->surfaces, f->contacts, f->walls};
    uint64_t number = f->count - 1;
    for (int p = 0; p < 4; p++) {
        if (!series[p])
            continue;
        cr_assert_lt(x->n, 64);
        x->e[x->n++] = (expect_entry){p, number, w->t};
    }
    dump_state(dir, w, number);
}

/* A resume from `nprevious` frames forgets the later ones. */
static void expect_truncate(expectation *x, uint64_t nprevious)
{
    size_t m = 0;
    for (size_t k = 0; k < x->n; k++)
        if (x->e[k].number < nprevious)
            x->e[m++] = x->e[k];
    x->n = m;
}

static void expect_drop(expectation *x, int part, uint64_t number)
{
    size_t m = 0;
    for (size_t k = 0; k < x->n; k++)
        if (!(x->e[k].part == part && x->e[k].number == number))
            x->e[m++] = x->e[k];
    x->n = m;
}

static void write_expectation(const char *dir, const expectation *x)
{
    char path[MAX_PATH];
    pathf(path, "%s/expect.json", dir);
    FILE *fp = fopen(path, "w");
    cr_assert(fp);
    fputs("{\"series\": {", fp);
    int first_part = 1;
    for (int p = 0; p < 4; p++) {
        if (!x->present[p])
            continue;
        fprintf(fp, "%s\"%s\": [", first_part ? "" : ", ", PARTS[p]);
        first_part = 0;
        int first = 1;
        for (size_t k = 0; k < x->n; k++) {
            if (x->e[k].part != p)
                continue;
            fprintf(fp,
                    "%s{\"time\": %.17g, \"file\": \"frames/%s_%06" PRIu64 ".vtu\", "
                    "\"state\": \"state_%06" PRIu64 ".json\"}",
                    first ? "" : ", ", x->e[k].t, PARTS[p], x->e[k].number, x->e[k].number);
            first = 0;
        }
        fputs("]", fp);
    }
    fputs("}, \"absent\": [", fp);
    int first = 1;
    for (int p = 0; p < 4; p++)
        if (!x->present[p]) {
            fprintf(fp, "%s\"%s\"", first ? "" : ", ", PARTS[p]);
            first = 0;
        }
    fputs("]}\n", fp);
    fclose(fp);
}

/* ---- reading a .pvd back (C side, without VTK) ---- */

/* Check DIR/PART.pvd against the expectation: entry count, times bit-exact, and each file
 * attribute the relative path "frames/PART_NNNNNN.vtu" naming an existing file. */
static void check_series(const char *dir, const expectation *x, int part)
{
    char path[MAX_PATH];
    pathf(path, "%s/%s.pvd", dir, PARTS[part]);
    if (!x->present[part]) {
        cr_assert(!is_file(path), "%s should not exist", path);
        return;
    }
    char *text = slurp(path);
    const char *s = text;
    size_t k = 0;
    while ((s = strstr(s, "<DataSet "))) {
        while (k < x->n && x->e[k].part != part)
            k++;
        cr_assert_lt(k, x->n, "%s lists more frames than written", path);
        const char *ts = strstr(s, "timestep=\"");
        const char *fs = strstr(s, "file=\"");
        cr_assert(ts && fs, "%s: DataSet without timestep or file", path);
        double t = strtod(ts + 10, NULL);
        cr_assert(t == x->e[k].t, "%s: time %.17g, expected %.17g", path, t, x->e[k].t);
        char want[MAX_PATH];
        pathf(want, "frames/%s_%06" PRIu64 ".vtu\"", PARTS[part], x->e[k].number);
        cr_assert(!strncmp(fs + 6, want, strlen(want)), "%s: file %.40s, expected %s", path, fs + 6,
                  want);
        char frame[MAX_PATH];
        pathf(frame, "%s/frames/%s_%06" PRIu64 ".vtu", dir, PARTS[part], x->e[k].number);
        cr_assert(is_file(frame), "%s missing", frame);
        k++;
        s++;
    }
    while (k < x->n && x->e[k].part != part)
        k++;
    cr_assert_eq(k, x->n, "%s lists fewer frames than written", path);
    free(text);
}

static void check_all_series(const char *dir, const expectation *x)
{
    for (int p = 0; p < 4; p++)
        check_series(dir, x, p);
}

static void open_frames(ldem_frames *f, const char *dir, const ldem_world *w, int encoding,
                        int with_contacts, uint64_t nprevious, const double *times)
{
    ldem_err err;
    cr_assert_eq(ldem_frames_open(f, dir, w, encoding, with_contacts, nprevious, times, &err),
                 LDEM_OK, "%s: %s", err.file, err.msg);
}

static void write_frame(ldem_frames *f, const ldem_world *w, expectation *x, const char *dir)
{
    ldem_err err;
    cr_assert_eq(ldem_frames_write(f, w, &err), LDEM_OK, "%s: %s", err.file, err.msg);
    expect_frame(x, f, w, dir);
}

/* ---- frames ---- */

/* Every part, three frames, zlib: the series list all three with their times; the frame
 * count and times are kept for checkpoints. */
Test(sim_output, frames_all_parts)
{
    char dir[MAX_PATH];
    case_dir("frames_all_parts", dir);
    ldem_world w;
    mixed_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.t = 0.25;
    ldem_frames f;
    open_frames(&f, dir, &w, LDEM_VTK_ZLIB, 1, 0, NULL);
    cr_assert(f.spheres && f.surfaces && f.contacts && f.walls);
    expectation x = {.present = {1, 1, 1, 1}};
    const double times[3] = {0.25, 0.25 + 0.01, 0.25 + 0.01 + 0.01};
    for (int k = 0; k < 3; k++) {
        if (k)
            advance(&w, 0.01);
        write_frame(&f, &w, &x, dir);
        cr_assert_eq(f.count, (uint64_t)k + 1);
        cr_assert(f.times[k] == times[k], "time %d: %.17g", k, f.times[k]);
    }
    for (int p = 0; p < 4; p++) {
        ldem_pvd *s[4] = {f.spheres, f.surfaces, f.contacts, f.walls};
        cr_assert_eq(ldem_pvd_count(s[p]), 3u, "%s", PARTS[p]);
    }
    ldem_frames_close(&f);
    cr_assert_null(f.dir);
    check_all_series(dir, &x);
    write_expectation(dir, &x);
    ldem_world_free(&w);
    case_done(dir);
}

/* Spheres only, no walls, Hertz–Mindlin (history length 0), ASCII: no surfaces or walls
 * series, and a stale walls.pvd from an earlier run in the folder is removed. The bodies'
 * ids are not their indices (as under `order: spatial`). */
Test(sim_output, frames_spheres_only_ascii)
{
    char dir[MAX_PATH];
    case_dir("frames_spheres_only_ascii", dir);
    char stale[MAX_PATH];
    pathf(stale, "%s/walls.pvd", dir);
    spit(stale, "<VTKFile/>\n");
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_MINDLIN);
    for (int k = 0; k < 5; k++) {
        uint32_t i = wf_add_sphere(&w, ldem_vec3_make(0.9 * k, 0.1 * k * k, 0.0), 0.45 + 0.01 * k,
                                   ldem_vec3_make(0.0, k, -1.0));
        set_spin(&w, i, ldem_vec3_make(k, 1.0, -0.5 * k));
    }
    for (uint32_t k = 0; k + 1 < 5; k++)
        load_contact(add_contact(&w, k, k + 1, k == 2 ? -1e-3 : 1e-3 * (k + 1)),
                     ldem_vec3_make(k + 1.0, 0.5, 0.0), ldem_vec3_make(0.0, 0.1 * k, 0.3), 9);
    /* numbered as `order: spatial` numbers bodies: the frames name each grain by its id */
    for (uint32_t k = 0; k < 5; k++)
        w.bodies.id[k] = (k + 3) % 5;
    ldem_frames f;
    open_frames(&f, dir, &w, LDEM_VTK_ASCII, 1, 0, NULL);
    cr_assert(f.spheres && f.contacts && !f.surfaces && !f.walls);
    cr_assert(!is_file(stale), "stale walls.pvd kept");
    expectation x = {.present = {1, 0, 1, 0}};
    write_frame(&f, &w, &x, dir);
    advance(&w, 1e-3);
    write_frame(&f, &w, &x, dir);
    ldem_frames_close(&f);
    check_all_series(dir, &x);
    write_expectation(dir, &x);
    ldem_world_free(&w);
    case_done(dir);
}

/* Contacts left out on request; a frame with no contact in touch still writes an (empty)
 * contacts file, so every series has every time. Level-set grains only, raw encoding. */
Test(sim_output, frames_contacts_optional_and_empty)
{
    char dir[MAX_PATH];
    case_dir("frames_contacts_optional", dir);
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    uint32_t shape = wf_add_ls_sphere_shape(&w, 1.0, 0.25, 1);
    wf_add_ls_body(&w, shape, ldem_vec3_make(0, 0, 1), ldem_quat_identity(),
                   ldem_vec3_make(1, 0, 0));
    wf_add_ls_body(&w, shape, ldem_vec3_make(2.5, 0, 1),
                   ldem_quat_from_axis_angle(ldem_vec3_make(0, 0, 1), PI / 3),
                   ldem_vec3_make(-1, 0, 0));
    set_spin(&w, 1, ldem_vec3_make(0, 0, 4));
    add_contact(&w, 0, 1, -0.5);
    ldem_frames f;
    open_frames(&f, dir, &w, LDEM_VTK_RAW, 0, 0, NULL);
    cr_assert(!f.contacts && !f.spheres && f.surfaces && !f.walls);
    ldem_frames_close(&f);

    char sub[MAX_PATH];
    pathf(sub, "%s/with_contacts", dir);
    open_frames(&f, sub, &w, LDEM_VTK_RAW, 1, 0, NULL);
    expectation x = {.present = {0, 1, 1, 0}};
    write_frame(&f, &w, &x, sub);
    ldem_frames_close(&f);
    check_all_series(sub, &x);
    write_expectation(sub, &x);
    ldem_world_free(&w);
    case_done(dir);
}

/* Resume: three frames written, the run "restarts" from a checkpoint taken after frame 1
 * (nprevious 2). The series keep frames 0 and 1 with their times, frame 2 is rewritten and
 * frame 3 added; an earlier frame file deleted by hand is left out of its series. The output
 * folder is nested and relative to the current directory (created as needed). */
Test(sim_output, frames_resume)
{
    char dir[MAX_PATH];
    case_dir("frames_resume", dir);
    cr_assert_eq(chdir(dir), 0);
    const char *out = "run/a";
    ldem_world w;
    mixed_world(&w, LDEM_LAW_HERTZ_JAGER);
    ldem_frames f;
    open_frames(&f, out, &w, LDEM_VTK_RAW, 1, 0, NULL);
    expectation x = {.present = {1, 1, 1, 1}};
    for (int k = 0; k < 3; k++) {
        if (k)
            advance(&w, 0.5);
        write_frame(&f, &w, &x, out);
    }
    double kept[2] = {f.times[0], f.times[1]};
    ldem_frames_close(&f);

    cr_assert_eq(unlink("run/a/frames/surfaces_000001.vtu"), 0);
    FILE *log = capture_log();
    expect_truncate(&x, 2);
    expect_drop(&x, 1, 1);
    /* The restarted run takes up at frame 1's time and goes another way. */
    w.t = kept[1];
    advance(&w, 0.25);
    open_frames(&f, out, &w, LDEM_VTK_RAW, 1, 2, kept);
    expect_logged(log, "1 of the 2 earlier surfaces frames are missing");
    cr_assert_eq(f.count, 2u);
    cr_assert(f.times[0] == kept[0] && f.times[1] == kept[1]);
    cr_assert_eq(ldem_pvd_count(f.spheres), 2u);
    cr_assert_eq(ldem_pvd_count(f.surfaces), 1u);
    write_frame(&f, &w, &x, out);
    advance(&w, 0.25);
    write_frame(&f, &w, &x, out);
    cr_assert_eq(f.count, 4u);
    cr_assert(f.times[2] == kept[1] + 0.25 && f.times[3] == kept[1] + 0.25 + 0.25);
    ldem_frames_close(&f);
    check_all_series(out, &x);
    write_expectation(out, &x);
    ldem_world_free(&w);
    case_done(dir);
}

Test(sim_output, frames_errors)
{
    char dir[MAX_PATH];
    case_dir("frames_errors", dir);
    ldem_world w;
    mixed_world(&w, LDEM_LAW_HERTZ_JAGER);
    ldem_frames f;
    ldem_err err;

    /* The output folder is a regular file: a path the user must fix, bad input (err.h). */
    char file[MAX_PATH];
    pathf(file, "%s/not_a_folder", dir);
    spit(file, "x\n");
    cr_assert_eq(ldem_frames_open(&f, file, &w, LDEM_VTK_ZLIB, 1, 0, NULL, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, file);
    cr_assert_null(f.dir);
    char below[MAX_PATH];
    pathf(below, "%s/not_a_folder/out", dir);
    cr_assert_eq(ldem_frames_open(&f, below, &w, LDEM_VTK_ZLIB, 1, 0, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.file, "not_a_folder"), "%s", err.file);

    char ok[MAX_PATH];
    pathf(ok, "%s/ok", dir);
    cr_assert_eq(ldem_frames_open(&f, ok, &w, 7, 1, 0, NULL, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "encoding"), "%s", err.msg);
    cr_assert_eq(ldem_frames_open(&f, ok, &w, LDEM_VTK_RAW, 1, 3, NULL, &err), LDEM_ERR_USAGE);
    const double bad_times[1] = {NAN};
    cr_assert_eq(ldem_frames_open(&f, ok, &w, LDEM_VTK_RAW, 1, 1, bad_times, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_frames_open(&f, "", &w, LDEM_VTK_RAW, 1, 0, NULL, &err), LDEM_ERR_USAGE);

    /* A contact naming a body that does not exist is a bug upstream, reported before any file
     * is written, not a crash. */
    open_frames(&f, ok, &w, LDEM_VTK_RAW, 1, 0, NULL);
    w.contacts[0].j = 99;
    cr_assert_eq(ldem_frames_write(&f, &w, &err), LDEM_ERR_INTERNAL);
    w.contacts[0].j = 1;
    w.t = INFINITY;
    cr_assert_eq(ldem_frames_write(&f, &w, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_pvd_count(f.spheres), 0u);
    /* The walls file cannot replace a folder of its name: the frame fails after three parts
     * are written; the retry lists each part once. */
    char blocker[MAX_PATH];
    pathf(blocker, "%s/frames/walls_000000.vtu", ok);
    cr_assert_eq(mkdir(blocker, 0777), 0);
    w.t = 0.0;
    cr_assert_eq(ldem_frames_write(&f, &w, &err), LDEM_ERR_INPUT); /* outfile.h: a directory */
    cr_assert_str_eq(err.file, blocker);
    cr_assert_eq(f.count, 0u);
    cr_assert_eq(ldem_pvd_count(f.spheres), 1u);
    cr_assert_eq(ldem_pvd_count(f.walls), 0u);
    cr_assert_eq(rmdir(blocker), 0);
    cr_assert_eq(ldem_frames_write(&f, &w, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(f.count, 1u);
    cr_assert_eq(ldem_pvd_count(f.spheres), 1u);
    cr_assert_eq(ldem_pvd_count(f.contacts), 1u);
    cr_assert_eq(ldem_pvd_count(f.walls), 1u);
    w.t = 1.0;
    cr_assert_eq(ldem_frames_write(&f, &w, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_pvd_count(f.spheres), 2u);
    cr_assert_eq(ldem_pvd_count(f.walls), 2u);
    ldem_frames_close(&f);
    ldem_frames_close(&f); /* closing twice is harmless */
    ldem_world_free(&w);
    rm_tree(dir); /* nothing here for check_frames.py */
}

/* ---- probes ---- */

static const char *const BASE_COLUMNS[] = {"t",
                                           "step",
                                           "kinetic",
                                           "potential",
                                           "stored_normal",
                                           "stored_tangential",
                                           "dissipated",
                                           "damped",
                                           "work_walls",
                                           "balance_error",
                                           "contacts",
                                           "mean_history",
                                           "history_bytes",
                                           "history_cells",
                                           "max_history",
                                           "modal_kinetic",
                                           "modal_elastic"};
#define NBASE 17

static ldem_probe_row sample_row(uint64_t step, double scale)
{
    return (ldem_probe_row){.t = step * 1e-7 / 3.0,
                            .step = step,
                            .kinetic = scale / 3.0,
                            .potential = -scale * 1e-300,
                            .stored_normal = scale * 0.1,
                            .stored_tangential = 2.0 / 7.0 * scale,
                            .dissipated = scale * 1e300,
                            .damped = 0.0,
                            .work_walls = -0.0,
                            .balance_error = 4.9406564584124654e-324 * scale,
                            .contacts = step + 3,
                            .mean_history = 1.0 / 9.0,
                            .history_bytes = 1ull << 40,
                            .history_cells = step * 7 + 1,
                            .max_history = step % 5 + 2,
                            .modal_kinetic = scale / 11.0,
                            .modal_elastic = -scale * 1e-3};
}

/* Probe walls: a plane named with a space and a tab, and a drum. */
static void probe_world(ldem_world *w)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    wf_add_sphere(w, ldem_vec3_make(0, 0, 1), 0.5, ldem_vec3_zero());
    uint32_t k = wf_add_plane(w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1));
    free(w->walls[k].name);
    w->walls[k].name = strdup("left wall\t2");
    ldem_wall *drum = add_cylinder(w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1), 3.0, 1, "drum");
    drum->force = ldem_vec3_make(1.0 / 3.0, -2.0, 1e-17);
    drum->disp = ldem_vec3_make(0.1, 0.2, -0.3);
}

static void set_wall_state(ldem_world *w, uint64_t step)
{
    w->walls[0].force = ldem_vec3_make(step * 0.1, -1.0 / (step + 1.0), 3.0);
    w->walls[0].disp = ldem_vec3_make(0.0, 0.0, -1e-6 * step / 7.0);
}

static void open_probes(ldem_probes *p, const char *dir, const ldem_world *w, uint64_t resume)
{
    ldem_err err;
    cr_assert_eq(ldem_probes_open(p, dir, w, resume, &err), LDEM_OK, "%s: %s", err.file, err.msg);
}

static void write_probe(ldem_probes *p, ldem_world *w, uint64_t step, double scale)
{
    ldem_err err;
    set_wall_state(w, step);
    ldem_probe_row row = sample_row(step, scale);
    cr_assert_eq(ldem_probes_write(p, w, &row, &err), LDEM_OK, "%s", err.msg);
}

static void close_probes(ldem_probes *p)
{
    ldem_err err;
    cr_assert_eq(ldem_probes_close(p, &err), LDEM_OK, "%s", err.msg);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Compare a table row with what write_probe wrote for (step, scale): the doubles bit for bit
 * (ldem_tsv_read parses them with strtod), the integers as written (all below 2^53 here). */
static void check_row(const ldem_table *t, size_t r, const ldem_world *w, uint64_t step,
                      double scale)
{
    ldem_world copy = *w;
    ldem_wall walls[2] = {w->walls[0], w->walls[1]};
    copy.walls = walls;
    set_wall_state(&copy, step);
    ldem_probe_row row = sample_row(step, scale);
    const double want[NBASE] = {row.t,
                                (double)row.step,
                                row.kinetic,
                                row.potential,
                                row.stored_normal,
                                row.stored_tangential,
                                row.dissipated,
                                row.damped,
                                row.work_walls,
                                row.balance_error,
                                (double)row.contacts,
                                row.mean_history,
                                (double)row.history_bytes,
                                (double)row.history_cells,
                                (double)row.max_history,
                                row.modal_kinetic,
                                row.modal_elastic};
    const double *got = &t->values[r * t->ncols];
    for (size_t c = 0; c < NBASE; c++)
        cr_assert(same_bits(got[c], want[c]), "row %zu column %s: %.17g, expected %.17g", r,
                  BASE_COLUMNS[c], got[c], want[c]);
    for (size_t k = 0; k < 2; k++) {
        const ldem_wall *wl = &walls[k];
        /* no force evaluation in the interval (none is stepped): the means are the force;
         * neither wall is a servo: target and flips 0, vn the velocity along the normal */
        const double wv[12] = {wl->force.x, wl->force.y, wl->force.z, wl->disp.x, wl->disp.y,
                               wl->disp.z,  wl->force.x, wl->force.y, wl->force.z, 0.0,
                               ldem_vec3_dot(wl->vel, wl->normal), 0.0};
        for (int c = 0; c < 12; c++)
            cr_assert(same_bits(got[NBASE + 12 * k + c], wv[c]), "row %zu wall %zu col %d", r, k,
                      c);
    }
}

static void read_table(const char *path, ldem_table *t)
{
    ldem_err err;
    cr_assert_eq(ldem_tsv_read_path(path, t, &err), LDEM_OK, "%s:%ld: %s", err.file, err.line,
                 err.msg);
}

Test(sim_output, probes_roundtrip)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_roundtrip", dir);
    pathf(path, "%s/probes.tsv", dir);
    ldem_world w;
    probe_world(&w);
    ldem_probes p;
    open_probes(&p, dir, &w, 0);
    cr_assert_str_eq(p.path, path);
    const uint64_t steps[4] = {0, 100, 200, 12345};
    for (int k = 0; k < 4; k++) {
        write_probe(&p, &w, steps[k], 1.0 + k);
        /* Flushed per row: the file holds every row written so far. */
        ldem_table t;
        read_table(path, &t);
        cr_assert_eq(t.nrows, (size_t)k + 1);
        ldem_table_free(&t);
    }
    close_probes(&p);
    cr_assert_null(p.fp);

    char *text = slurp(path);
    cr_assert(!strncmp(text, "# demrun probes\n", 16), "first line: %.40s", text);
    /* Whitespace in a wall name would split columns: it becomes '_'. */
    cr_assert(strstr(text, "\tleft_wall_2.fx\tleft_wall_2.fy\tleft_wall_2.fz\tleft_wall_2.dx"
                           "\tleft_wall_2.dy\tleft_wall_2.dz\tleft_wall_2.fx_mean\tleft_wall_2.fy_mean"
                           "\tleft_wall_2.fz_mean\tleft_wall_2.target\tleft_wall_2.vn"
                           "\tleft_wall_2.flips\tdrum.fx\t"));
    /* history_bytes = 2^40 exactly as an integer, not %g-rounded. */
    cr_assert(strstr(text, "\t1099511627776\t"));
    free(text);

    ldem_table t;
    read_table(path, &t);
    cr_assert_eq(t.ncols, NBASE + 24u);
    cr_assert_eq(t.nrows, 4u);
    cr_assert_not_null(t.names);
    for (size_t c = 0; c < NBASE; c++)
        cr_assert_str_eq(t.names[c], BASE_COLUMNS[c]);
    cr_assert_str_eq(t.names[NBASE + 17], "drum.dz");
    cr_assert_str_eq(t.names[NBASE + 20], "drum.fz_mean");
    cr_assert_str_eq(t.names[NBASE + 23], "drum.flips");
    for (int k = 0; k < 4; k++)
        check_row(&t, (size_t)k, &w, steps[k], 1.0 + k);
    ldem_table_free(&t);

    /* A world with another wall count than the table's is a caller bug. */
    open_probes(&p, dir, &w, 0);
    w.nwalls = 1;
    ldem_probe_row row = sample_row(1, 1.0);
    ldem_err err;
    cr_assert_eq(ldem_probes_write(&p, &w, &row, &err), LDEM_ERR_USAGE);
    w.nwalls = 2;
    close_probes(&p);
    /* A fresh (non-resume) open starts the table over: the two header lines only. */
    text = slurp(path);
    size_t lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, 2u, "%s", text);
    free(text);
    ldem_world_free(&w);
    case_done(dir);
}

/* Rows 0..40 by 10, then a restart from step 20: rows 30 and 40 go, the new 30 and 40 follow
 * the kept ones; the header appears once. An incomplete last line (a run killed mid-row) is
 * dropped, and so are rows whose step is above the resume step wherever they are. */
Test(sim_output, probes_resume)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_resume", dir);
    pathf(path, "%s/probes.tsv", dir);
    ldem_world w;
    probe_world(&w);
    ldem_probes p;
    open_probes(&p, dir, &w, 0);
    for (uint64_t s = 0; s <= 40; s += 10)
        write_probe(&p, &w, s, 1.0);
    close_probes(&p);
    FILE *fp = fopen(path, "a");
    fputs("50\t0.5\t1", fp); /* no newline */
    fclose(fp);

    FILE *log = capture_log();
    open_probes(&p, dir, &w, 20);
    expect_logged(log, "incomplete last line");
    write_probe(&p, &w, 30, -2.0);
    write_probe(&p, &w, 40, -2.0);
    close_probes(&p);

    char *text = slurp(path);
    const char *first = strstr(text, "\tstep\t");
    cr_assert(first && !strstr(first + 1, "\tstep\t"), "header not exactly once");
    cr_assert(!strstr(text, "\n50\t"));
    free(text);
    ldem_table t;
    read_table(path, &t);
    cr_assert_eq(t.nrows, 5u);
    const uint64_t steps[5] = {0, 10, 20, 30, 40};
    const double scales[5] = {1.0, 1.0, 1.0, -2.0, -2.0};
    for (int k = 0; k < 5; k++)
        check_row(&t, (size_t)k, &w, steps[k], scales[k]);
    ldem_table_free(&t);

    /* Resuming from step 5 keeps only row 0; no temporary files are left behind. */
    open_probes(&p, dir, &w, 5);
    close_probes(&p);
    read_table(path, &t);
    cr_assert_eq(t.nrows, 1u);
    check_row(&t, 0, &w, 0, 1.0);
    ldem_table_free(&t);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        cr_assert(!strstr(e->d_name, ".tmp."), "left over: %s", e->d_name);
    closedir(d);
    ldem_world_free(&w);
    case_done(dir);
}

Test(sim_output, probes_resume_without_table)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_resume_missing", dir);
    pathf(path, "%s/sub/probes.tsv", dir);
    char sub[MAX_PATH];
    pathf(sub, "%s/sub", dir);
    ldem_world w;
    probe_world(&w);
    ldem_probes p;
    FILE *log = capture_log();
    open_probes(&p, sub, &w, 500);
    expect_logged(log, "no earlier probes");
    write_probe(&p, &w, 510, 1.0);
    close_probes(&p);
    ldem_table t;
    read_table(path, &t);
    cr_assert_eq(t.nrows, 1u);
    cr_assert_eq(t.ncols, NBASE + 24u);
    check_row(&t, 0, &w, 510, 1.0);
    ldem_table_free(&t);
    ldem_world_free(&w);
    case_done(dir);
}

/* On resume the earlier table must be this run's: another wall set, or a kept row that is not
 * a row, is refused with the file and line. */
Test(sim_output, probes_resume_refuses_foreign_table)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_resume_foreign", dir);
    pathf(path, "%s/probes.tsv", dir);
    ldem_world w;
    probe_world(&w);
    ldem_probes p;
    open_probes(&p, dir, &w, 0);
    write_probe(&p, &w, 10, 1.0);
    close_probes(&p);
    char *good = slurp(path);

    ldem_err err;
    w.nwalls = 1; /* the drum is gone */
    cr_assert_eq(ldem_probes_open(&p, dir, &w, 10, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, 2);
    cr_assert(strstr(err.msg, "columns"), "%s", err.msg);
    cr_assert_null(p.fp);
    w.nwalls = 2;
    /* The refused table is left as it was. */
    char *after = slurp(path);
    cr_assert_str_eq(after, good);
    free(after);

    /* A kept row with a non-integer step; a row with a missing column. */
    size_t n = strlen(good);
    char *bad = malloc(n + 64);
    strcpy(bad, good);
    char *row = strchr(strchr(bad, '\n') + 1, '\n') + 1; /* third line: the row */
    char *step = strchr(row, '\t') + 1;
    cr_assert(!strncmp(step, "10\t", 3));
    step[0] = 'x';
    spit(path, bad);
    cr_assert_eq(ldem_probes_open(&p, dir, &w, 10, &err), LDEM_ERR_INPUT);
    cr_assert_eq(err.line, 3);
    cr_assert(strstr(err.msg, "step"), "%s", err.msg);
    snprintf(bad, n + 64, "%s1\t2\t3\n", good);
    spit(path, bad);
    cr_assert_eq(ldem_probes_open(&p, dir, &w, 10, &err), LDEM_ERR_INPUT);
    cr_assert_eq(err.line, 4);
    cr_assert(strstr(err.msg, "3 columns, expected 41"), "%s", err.msg);
    free(bad);
    free(good);
    ldem_world_free(&w);
    case_done(dir);
}

/* The check a restart runs before opening any output refuses what open would refuse (the
 * same file and line) and only reads: the table keeps its bytes and its mtime, and nothing
 * else appears in the folder. A missing table passes (open starts a new one). */
Test(sim_output, probes_check_resume_only_reads)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_check_resume", dir);
    pathf(path, "%s/probes.tsv", dir);
    ldem_world w;
    probe_world(&w);
    ldem_err err;
    cr_assert_eq(ldem_probes_check_resume(dir, &w, 10, &err), LDEM_OK, "%s", err.msg);
    ldem_probes p;
    open_probes(&p, dir, &w, 0);
    write_probe(&p, &w, 10, 1.0);
    write_probe(&p, &w, 20, 1.0);
    close_probes(&p);
    char *good = slurp(path);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);

    cr_assert_eq(ldem_probes_check_resume(dir, &w, 10, &err), LDEM_OK, "%s", err.msg);
    w.nwalls = 1; /* the drum is gone */
    cr_assert_eq(ldem_probes_check_resume(dir, &w, 10, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, 2);
    cr_assert(strstr(err.msg, "columns"), "%s", err.msg);
    cr_assert_eq(ldem_probes_check_resume(dir, &w, 0, &err), LDEM_OK, "step 0 checks nothing");
    w.nwalls = 2;
    char *bad = strdup(good);
    char *row = strchr(strchr(bad, '\n') + 1, '\n') + 1; /* third line: the first row */
    strchr(row, '\t')[1] = 'x';
    spit(path, bad);
    cr_assert_eq(stat(path, &before), 0);
    cr_assert_eq(ldem_probes_check_resume(dir, &w, 10, &err), LDEM_ERR_INPUT);
    cr_assert_eq(err.line, 3);
    cr_assert(strstr(err.msg, "step"), "%s", err.msg);

    char *now = slurp(path);
    cr_assert_str_eq(now, bad);
    cr_assert_eq(stat(path, &after), 0);
    cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
              before.st_mtim.tv_nsec == after.st_mtim.tv_nsec, "the check touched the table");
    DIR *d = opendir(dir);
    cr_assert(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    cr_assert_eq(entries, 1, "only probes.tsv in the folder, found %d entries", entries);
    free(now);
    free(bad);
    free(good);
    ldem_world_free(&w);
    case_done(dir);
}

Test(sim_output, probes_unopenable)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("probes_unopenable", dir);
    pathf(path, "%s/probes.tsv", dir);
    ldem_world w;
    probe_world(&w);
    ldem_probes p;
    ldem_err err;
    /* probes.tsv is a folder: the table cannot be written there (bad input: outfile.h). */
    cr_assert_eq(mkdir(path, 0777), 0);
    cr_assert_eq(ldem_probes_open(&p, dir, &w, 0, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, path);
    cr_assert_null(p.fp);
    cr_assert_null(p.path);
    /* The output folder is a regular file. */
    char file[MAX_PATH], below[MAX_PATH];
    pathf(file, "%s/plain", dir);
    spit(file, "x\n");
    pathf(below, "%s/probes.tsv", file);
    cr_assert_eq(ldem_probes_open(&p, file, &w, 0, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, below);
    cr_assert(strstr(err.msg, "not a folder"), "%s", err.msg);
    /* Closing a table that never opened is harmless. */
    cr_assert_eq(ldem_probes_close(&p, &err), LDEM_OK);
    ldem_world_free(&w);
    case_done(dir);
}

/* ---- the packing table ---- */

/* Write the packing of `w` into DIR/packing.tsv, then read it back through a scene whose
 * grains entry is that file; the scene's grains (in file order) must be `want` bit for bit. */
static void packing_roundtrip(const char *dir, const ldem_world *w, const ldem_vec3 *want,
                              const double *radius, size_t n)
{
    char path[MAX_PATH], scene[MAX_PATH];
    pathf(path, "%s/packing.tsv", dir);
    ldem_err err;
    cr_assert_eq(ldem_packing_write(path, w, &err), LDEM_OK, "%s", err.msg);
    pathf(scene, "%s/readback.yaml", dir);
    spit(scene, "time: {dt: 1e-7, steps: 0}\n"
                "materials: {glass: {E: 7e10, nu: 0.25, density: 2500, friction: 0.3}}\n"
                "shapes: {ball: {sphere: 1}}\n"
                "grains: [{file: {path: packing.tsv, shape: ball}}]\n");
    ldem_scene s;
    cr_assert_eq(ldem_scene_load(&s, scene, 0, NULL, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(s.ngrains, n);
    for (size_t k = 0; k < n; k++) {
        cr_assert(memcmp(&s.grains[k].x, &want[k], sizeof want[k]) == 0,
                  "grain %zu: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", k,
                  s.grains[k].x.x, s.grains[k].x.y, s.grains[k].x.z, want[k].x, want[k].y,
                  want[k].z);
        cr_assert(memcmp(&s.grains[k].radius, &radius[k], sizeof radius[k]) == 0,
                  "grain %zu: radius %.17g, expected %.17g", k, s.grains[k].radius, radius[k]);
    }
    ldem_scene_free(&s);
}

/* A body's centre one cell edge and a bit beyond a face, as a run leaves it between two
 * neighbour-list builds: the table has it wrapped back, in input order (id), with the
 * orthogonal box in its comments; digits that only %.17g keeps survive. */
Test(sim_output, packing_wraps_in_input_order)
{
    char dir[MAX_PATH];
    case_dir("packing_wraps", dir);
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    ldem_err err;
    ldem_mat3 h = {{{0.01, 0, 0}, {0, 0.02, 0}, {0, 0, 0.03}}};
    cr_assert_eq(ldem_cell_init(&w.cell, h, ldem_vec3_make(0.005, 0.0, 0.1), &err), LDEM_OK);
    w.cell.periodic = 1;
    /* the cell spans x [0, 0.01), y [-0.01, 0.01), z [0.085, 0.115) */
    ldem_vec3 x[3] = {ldem_vec3_make(0.1 / 3.0, 0.002, 0.09),    /* x beyond hi by 2.33 edges */
                      ldem_vec3_make(0.004, -0.0123456789012345678, 0.1), /* y below lo */
                      ldem_vec3_make(0.001, 0.003, 0.1 + 1.0 / 3.0 * 1e-3)};
    double r[3] = {0.001, 0.00123456789012345678, 0.0009};
    for (int k = 0; k < 3; k++)
        wf_add_sphere(&w, x[k], r[k], ldem_vec3_zero());
    /* bodies 0, 1, 2 are the grains 2, 0, 1 of the scene (order: spatial) */
    w.bodies.id[0] = 2;
    w.bodies.id[1] = 0;
    w.bodies.id[2] = 1;
    ldem_vec3 want[3], wrapped0 = ldem_vec3_sub(x[0], ldem_vec3_make(3 * 0.01, 0, 0));
    want[0] = ldem_vec3_sub(x[1], ldem_vec3_make(0, -0.02, 0));
    want[1] = x[2];
    want[2] = wrapped0;
    double radius[3] = {r[1], r[2], r[0]};
    packing_roundtrip(dir, &w, want, radius, 3);
    char path[MAX_PATH];
    pathf(path, "%s/packing.tsv", dir);
    char *text = slurp(path);
    cr_assert(strstr(text, "# demrun packing: 3 spheres at step 0, t = 0\n"), "%s", text);
    cr_assert(strstr(text, "\n# box_lo 0 -0.01 0.085000000000000006\n"), "%s", text);
    cr_assert(strstr(text, "\n# box_hi 0.01 0.01 0.115\n"), "%s", text);
    cr_assert(strstr(text, "\nid\tx\ty\tz\tradius\n0\t"), "%s", text);
    free(text);
    ldem_world_free(&w);
    case_done(dir);
}

/* A sheared cell: its edge vectors and centre instead of a box; open space: no cell lines. */
Test(sim_output, packing_sheared_and_open)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("packing_sheared", dir);
    pathf(path, "%s/packing.tsv", dir);
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    ldem_vec3 x = ldem_vec3_make(0.0125, 0.001, 0.002);
    wf_add_sphere(&w, x, 0.001, ldem_vec3_zero());
    packing_roundtrip(dir, &w, &x, &w.bodies.radius[0], 1);
    char *text = slurp(path);
    cr_assert(!strstr(text, "# box_") && !strstr(text, "# cell_"), "%s", text);
    free(text);
    ldem_err err;
    /* a = (0.01, 0, 0), b = (0.005, 0.01, 0), c = (0, 0, 0.01) about the origin */
    ldem_mat3 h = {{{0.01, 0.005, 0}, {0, 0.01, 0}, {0, 0, 0.01}}};
    cr_assert_eq(ldem_cell_init(&w.cell, h, ldem_vec3_zero(), &err), LDEM_OK);
    w.cell.periodic = 1;
    /* fractional (1.5, 0.1, 0.2) from lo: wrapped by one a */
    ldem_vec3 want = ldem_vec3_sub(x, ldem_vec3_make(0.01, 0, 0));
    ldem_vec3 s = ldem_cell_fractional(&w.cell, x);
    cr_assert(s.x > 1.0 && s.x < 2.0 && s.y > 0.0 && s.y < 1.0, "%g %g", s.x, s.y);
    packing_roundtrip(dir, &w, &want, &w.bodies.radius[0], 1);
    text = slurp(path);
    cr_assert(strstr(text, "\n# cell_vectors 0.01 0 0 0.0050000000000000001 0.01 0 0 0 0.01\n"
                           "# cell_centre 0 0 0\n"), "%s", text);
    cr_assert(!strstr(text, "# box_"), "%s", text);
    free(text);
    ldem_world_free(&w);
    case_done(dir);
}

/* Level-set grains have no radius to write: refused, and no file is left. */
Test(sim_output, packing_refuses_level_set_grains)
{
    char dir[MAX_PATH], path[MAX_PATH];
    case_dir("packing_refuses", dir);
    pathf(path, "%s/packing.tsv", dir);
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    wf_add_sphere(&w, ldem_vec3_zero(), 0.001, ldem_vec3_zero());
    uint32_t shape = wf_add_ls_sphere_shape(&w, 0.001, 0.0002, 1);
    uint32_t b = wf_add_ls_body(&w, shape, ldem_vec3_make(0.01, 0, 0), ldem_quat_identity(),
                                ldem_vec3_zero());
    w.bodies.id[b] = 7;
    ldem_err err;
    cr_assert_eq(ldem_packing_write(path, &w, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "grain 7 is a level-set grain"), "%s", err.msg);
    cr_assert_eq(access(path, F_OK), -1);
    ldem_world_free(&w);
    case_done(dir);
}
