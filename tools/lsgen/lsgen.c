/* lsgen: geometry -> grain bundle {META LSET NODE BODY} (docs/design.md, "The pipeline").
 *
 * Argument parsing (lsgen_args.c) and output (lsgen_output.c) around the lsgen modules:
 * analytic shapes (shape.h) or a surface mesh read by Gmsh (gmsh_io.h), repaired
 * (meshcheck.h), measured (massprops.h), moved into its principal body frame, distance-
 * transformed (sdfgrid.h) and remeshed into evenly spaced surface nodes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bvh.h"
#include "cli.h"
#include "gmsh_io.h"
#include "lsgen_cli.h"
#include "massprops.h"
#include "meshcheck.h"
#include "node_normals.h"
#include "sdfgrid.h"
#include "shape.h"
#include "surface_nodes.h"
#include "ldem/log.h"
#include "ldem/memory_budget.h"
#include "ldem/quat.h"
#include "ldem/version.h"

/* Grid spacing when none is given: the smallest extent over this many cells. */
#define DEFAULT_CELLS_ACROSS 20.0
/* Fewer cells than this across the thinnest part is almost surely a mistake. */
#define MIN_CELLS_ACROSS 4.0

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static double smallest_extent(ldem_vec3 lo, ldem_vec3 hi)
{
    return fmin(hi.x - lo.x, fmin(hi.y - lo.y, hi.z - lo.z));
}

/* Resolve the defaults that depend on the grain's size, and warn about a coarse grid. */
static void resolve_spacings(lsgen_options *o, ldem_vec3 lo, ldem_vec3 hi)
{
    double thin = smallest_extent(lo, hi);
    if (o->h == 0)
        o->h = thin / DEFAULT_CELLS_ACROSS;
    if (o->node_spacing == 0)
        o->node_spacing = o->h;
    if (thin / o->h < MIN_CELLS_ACROSS)
        ldem_warn("the grid spacing %g leaves only %.1f cells across the grain's thinnest "
                  "extent (%g): contact and remap will be crude",
                  o->h, thin / o->h, thin);
}

static int set_meta_number(ldem_meta *m, const char *key, double v, ldem_err *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    return ldem_meta_set(m, key, buf, err);
}

static int fill_meta(const lsgen_options *o, const char *name, const char *source,
                     lsgen_result *r, ldem_err *err)
{
    ldem_meta *m = &r->meta;
    int rc = ldem_meta_set(m, "name", name, err);
    if (!rc)
        rc = ldem_meta_set(m, "unit", o->unit, err);
    if (!rc)
        rc = ldem_meta_set(m, "producer", "lsgen " LDEM_VERSION, err);
    if (!rc)
        rc = ldem_meta_set(m, "source", source, err);
    if (!rc)
        rc = ldem_meta_set(m, "lsgen.command", o->command_line, err);
    if (!rc)
        rc = set_meta_number(m, "lsgen.h", o->h, err);
    if (!rc)
        rc = set_meta_number(m, "lsgen.pad", o->pad, err);
    if (!rc)
        rc = set_meta_number(m, "lsgen.node_spacing", o->node_spacing, err);
    /* modefit reads these two: it moves a FEM mesh of the untransformed geometry the same
     * way (modefit_frame.c). Written only when given, so other bundles keep their bytes. */
    if (!rc && o->transformed)
        rc = set_meta_number(m, "lsgen.scale", o->scale, err);
    if (!rc && o->transformed) {
        char buf[128];
        snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g", o->translate[0], o->translate[1],
                 o->translate[2]);
        rc = ldem_meta_set(m, "lsgen.translate", buf, err);
    }
    /* "default": BODY's mass and inertia are per unit density, and modefit says so. */
    if (!rc && o->density_given)
        rc = set_meta_number(m, "lsgen.density", o->density, err);
    else if (!rc)
        rc = ldem_meta_set(m, "lsgen.density", "default", err);
    return rc;
}

static void fill_body(const lsgen_options *o, double volume, const double moments[3],
                      const double centroid[3], ldem_quat q, ldem_body *b)
{
    b->volume = volume;
    b->density = o->density;
    b->mass = o->density * volume;
    for (int d = 0; d < 3; d++) {
        b->inertia[d] = o->density * moments[d];
        b->centroid[d] = centroid[d];
    }
    b->orientation[0] = q.w;
    b->orientation[1] = q.x;
    b->orientation[2] = q.y;
    b->orientation[3] = q.z;
}

static void report_grid(const ldem_lset *ls, double seconds)
{
    ldem_info("grid %ux%ux%u nodes, spacing %g, origin (%g, %g, %g)", ls->dims[0], ls->dims[1],
              ls->dims[2], ls->spacing[0], ls->origin[0], ls->origin[1], ls->origin[2]);
    ldem_info("time: level set %.3f s", seconds);
}

/* The grid is the one allocation the options size (extent / --h, cubed): refuse it up front
 * rather than die of out-of-memory part way. */
static int check_grid_memory(const lsgen_options *o, ldem_vec3 lo, ldem_vec3 hi, ldem_err *err)
{
    return ldem_memory_check(o->max_memory, lsgen_grid_bytes(lo, hi, o->h, o->pad), NULL, 0,
                             "--h: the level-set grid", err);
}

static int run_shape(lsgen_options *o, lsgen_result *r, ldem_err *err)
{
    const lsgen_shape *s = &o->shape;
    ldem_vec3 lo, hi;
    lsgen_shape_bbox(s, &lo, &hi);
    resolve_spacings(o, lo, hi);

    int rc = check_grid_memory(o, lo, hi, err);
    if (!rc)
        rc = lsgen_grid_around(lo, hi, o->h, o->pad, &r->lset, err);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!rc)
        rc = lsgen_sdf_shape(s, &r->lset, o->progress, err);
    if (rc)
        return rc;
    report_grid(&r->lset, seconds_since(&t0));

    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = lsgen_shape_nodes(s, o->node_spacing, &r->nodes, err);
    if (rc)
        return rc;
    ldem_info("%llu surface nodes, %llu triangles in %.3f s", (unsigned long long)r->nodes.count,
              (unsigned long long)r->nodes.ntriangles, seconds_since(&t0));

    lsgen_shape_mass mass;
    lsgen_shape_mass_props(s, &mass);
    /* The shape is its own body frame; --translate puts its centre there in the geometry
     * frame (--scale already grew its dimensions: lsgen_args.c). */
    fill_body(o, mass.volume, mass.inertia, o->translate, ldem_quat_identity(), &r->body);

    char source[160];
    const char *name = lsgen_shape_name(s->kind);
    snprintf(source, sizeof source, "%s %.17g,%.17g,%.17g", name, s->semi[0], s->semi[1],
             s->semi[2]);
    rc = fill_meta(o, o->name ? o->name : name, source, r, err);
    if (!rc)
        rc = ldem_meta_set(&r->meta, "lsgen.shape", name, err);
    return rc;
}

/* --scale and --translate, before anything else sees the geometry: x -> S x + T. */
static void transform_mesh(const lsgen_options *o, ldem_trimesh *m)
{
    if (!o->transformed)
        return;
    for (size_t i = 0; i < m->nverts; i++)
        for (int d = 0; d < 3; d++)
            m->xyz[3 * i + d] = o->scale * m->xyz[3 * i + d] + o->translate[d];
    ldem_info("%s: geometry scaled by %.9g and moved by (%.9g, %.9g, %.9g)", o->mesh_path,
              o->scale, o->translate[0], o->translate[1], o->translate[2]);
}

/* Move the mesh into its body frame: x_body = R^T (x - centroid). */
static void to_body_frame(ldem_trimesh *m, const double centroid[3], ldem_quat q)
{
    for (size_t i = 0; i < m->nverts; i++) {
        double *p = m->xyz + 3 * i;
        ldem_vec3 v = ldem_quat_rotate_inv(
            q, ldem_vec3_make(p[0] - centroid[0], p[1] - centroid[1], p[2] - centroid[2]));
        p[0] = v.x;
        p[1] = v.y;
        p[2] = v.z;
    }
}

static void mesh_bbox(const ldem_trimesh *m, ldem_vec3 *lo, ldem_vec3 *hi)
{
    double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < m->nverts; i++)
        for (int d = 0; d < 3; d++) {
            l[d] = fmin(l[d], m->xyz[3 * i + d]);
            h[d] = fmax(h[d], m->xyz[3 * i + d]);
        }
    *lo = ldem_vec3_make(l[0], l[1], l[2]);
    *hi = ldem_vec3_make(h[0], h[1], h[2]);
}

/* The file's name without directories and extension, for META name. */
static void stem_of(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, n, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

static int mesh_geometry(lsgen_options *o, ldem_trimesh *mesh, lsgen_result *r, ldem_err *err)
{
    const char *path = o->mesh_path;
    lsgen_mesh_report report;
    int rc = lsgen_mesh_repair(mesh, path, &report, err);
    if (rc)
        return rc;
    /* A grain's surface is the boundary of a solid: an edge of three or more triangles has
     * no inside and outside, and Gmsh's remeshing of it fails or runs without end. */
    if (report.nonmanifold_edges) {
        double(*e)[3] = report.nonmanifold_at;
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "not a closed surface: %zu non-manifold edges (shared by more than "
                            "two triangles), the first from (%g, %g, %g) to (%g, %g, %g); "
                            "separate the pieces that touch there",
                            report.nonmanifold_edges, e[0][0], e[0][1], e[0][2], e[1][0],
                            e[1][1], e[1][2]);
    }
    lsgen_mesh_report_warn(&report, path);
    ldem_info("%s: %zu vertices, %zu triangles after repair", path, mesh->nverts, mesh->ntris);

    lsgen_massprops mp;
    double moments[3];
    ldem_quat q;
    rc = lsgen_mesh_mass_props(mesh, path, &mp, err);
    if (!rc)
        rc = lsgen_principal_frame((const double(*)[3])mp.inertia, moments, &q, err);
    if (rc)
        return rc;
    fill_body(o, mp.volume, moments, mp.centroid, q, &r->body);
    to_body_frame(mesh, mp.centroid, q);

    ldem_vec3 lo, hi;
    mesh_bbox(mesh, &lo, &hi);
    resolve_spacings(o, lo, hi);
    return LDEM_OK;
}

static int mesh_level_set(const lsgen_options *o, const ldem_trimesh *mesh,
                          const lsgen_bvh *bvh, lsgen_result *r, ldem_err *err)
{
    ldem_vec3 lo, hi;
    mesh_bbox(mesh, &lo, &hi);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = check_grid_memory(o, lo, hi, err);
    if (!rc)
        rc = lsgen_grid_around(lo, hi, o->h, o->pad, &r->lset, err);
    lsgen_sdf_stats stats = {0};
    if (!rc)
        rc = lsgen_sdf_mesh(bvh, &r->lset, o->progress, &stats, err);
    if (rc)
        return rc;
    report_grid(&r->lset, seconds_since(&t0));
    ldem_info("%llu distance queries, %llu winding numbers, %llu nodes signed in %llu groups",
              (unsigned long long)stats.distance_queries,
              (unsigned long long)stats.winding_queries, (unsigned long long)stats.block_nodes,
              (unsigned long long)stats.sign_blocks);
    return LDEM_OK;
}

static int mesh_nodes(const lsgen_options *o, const child_budget *gmsh_budget,
                      const ldem_trimesh *mesh, const lsgen_bvh *bvh, lsgen_result *r,
                      ldem_err *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ldem_trimesh surf;
    ldem_trimesh_init(&surf);
    int rc = lsgen_gmsh_remesh_bounded(mesh, o->node_spacing, o->feature_angle, o->mesh_path,
                                       gmsh_budget, &surf, err);
    if (!rc)
        rc = lsgen_nodes_from_mesh(&surf, &r->nodes, err);
    if (!rc)
        rc = lsgen_nodes_interpolate_normals(bvh, mesh, o->feature_angle, &r->nodes, err);
    ldem_trimesh_free(&surf);
    if (!rc)
        ldem_info("%llu surface nodes, %llu triangles in %.3f s",
                  (unsigned long long)r->nodes.count, (unsigned long long)r->nodes.ntriangles,
                  seconds_since(&t0));
    return rc;
}

/* Gmsh's memory budget: --max-memory, or the machine's memory (a child that needs more would
 * only thrash); 0 = no limit when the system does not say. */
static size_t gmsh_memory_budget(const lsgen_options *o)
{
    uint64_t limit = ldem_memory_limit(o->max_memory);
    return limit >= SIZE_MAX ? 0 : (size_t)limit;
}

/* Gmsh runs in child processes (gmsh_io.h: *_bounded) under `gmsh_memory` bytes of memory
 * each; 0 = no limit. */
static int run_mesh(lsgen_options *o, size_t gmsh_memory, lsgen_result *r, ldem_err *err)
{
    ldem_trimesh mesh;
    ldem_trimesh_init(&mesh);
    const child_budget gmsh_budget = {o->timeout, gmsh_memory};
    /* CAD input is meshed first: finer than the nodes, so the level set sees the true
     * shape; without any size given, gmsh_io sizes it from the model's bounding box. */
    double mesh_size = o->mesh_size ? o->mesh_size
                       : o->node_spacing ? 0.5 * o->node_spacing
                                         : 0.5 * o->h;
    /* Gmsh meshes CAD in the file's units; the sizes are given in the output's. */
    int rc = lsgen_gmsh_read_surface_bounded(o->mesh_path, mesh_size / o->scale, &gmsh_budget,
                                             &mesh, err);
    if (!rc)
        transform_mesh(o, &mesh);
    if (!rc)
        rc = mesh_geometry(o, &mesh, r, err);
    lsgen_bvh *bvh = NULL;
    if (!rc)
        rc = lsgen_bvh_build(&mesh, &bvh, err);
    if (!rc)
        rc = mesh_level_set(o, &mesh, bvh, r, err);
    if (!rc)
        rc = mesh_nodes(o, &gmsh_budget, &mesh, bvh, r, err);
    lsgen_bvh_free(bvh);
    ldem_trimesh_free(&mesh);
    if (rc)
        return rc;
    char stem[128];
    stem_of(o->mesh_path, stem, sizeof stem);
    return fill_meta(o, o->name ? o->name : stem, o->mesh_path, r, err);
}

int main(int argc, char **argv)
{
    ldem_log_set_program("lsgen");
    lsgen_options o;
    int st = lsgen_parse_args(argc, argv, &o);
    if (st)
        return st < 0 ? 0 : st;
    ldem_log_set_level(LDEM_LOG_WARN + o.verbosity);
#ifdef _OPENMP
    if (o.threads > 0)
        omp_set_num_threads(o.threads);
#endif
    ldem_err err;
    ldem_err_clear(&err);
    int rc = cli_refuse_terminal(o.output, &err);
    lsgen_result r;
    memset(&r, 0, sizeof r);
    ldem_meta_init(&r.meta);
    if (!rc)
        rc = o.is_mesh ? run_mesh(&o, gmsh_memory_budget(&o), &r, &err)
                       : run_shape(&o, &r, &err);
    if (!rc)
        rc = lsgen_write_outputs(&o, &r, &err);
    /* Once, and last: a refusal stays the one error line it is. */
    if (!rc && !o.density_given)
        ldem_warn("no --density: mass and inertia assume density 1 (BODY; META "
                  "lsgen.density=default), and modefit's mass matrix follows unless it is "
                  "given --density");
    lsgen_result_free(&r);
    lsgen_options_free(&o);
    if (rc) {
        ldem_log_err(&err);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
