/* Remeshing a triangulated surface with Gmsh (gmsh_io.h: lsgen_gmsh_remesh).
 *
 * The input becomes one discrete surface; Gmsh splits it into patches along feature edges
 * (dihedral angle above the feature angle) and into pieces that a single map can
 * parametrize, builds that parametrization on the input triangles, and meshes every patch
 * with Frontal-Delaunay at a uniform size. New vertices therefore lie on the input
 * triangles, and feature edges and corners survive as patch boundaries.
 *
 * Gmsh orients each patch by its own parametrization, not by the input, so orientation is
 * restored per patch: every output triangle votes (weighted by its area) for whether its
 * normal agrees with the normal of the input triangle closest to its centroid (exact
 * closest-triangle query, so thin or coarse inputs do not confuse the vote). */
#include "gmsh_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gmshc.h>

#include "bvh.h"
#include "gmsh_private.h"
#include "ldem/log.h"
#include "ldem/vec3.h"

#define LSGEN_PI 3.14159265358979323846
/* More triangles than this is surely a spacing in the wrong unit, not a wish. */
#define LSGEN_REMESH_MAX_TRIANGLES 2e7

/* ------------------------------------------------------------------ edges -------- */

typedef struct dir_edge {
    uint64_t key;  /* (min vertex << 32) | max vertex */
    uint32_t up;   /* 1 if the triangle runs min → max */
} dir_edge;

static int cmp_edge(const void *a, const void *b)
{
    uint64_t x = ((const dir_edge *)a)->key, y = ((const dir_edge *)b)->key;
    return (x > y) - (x < y);
}

int lsgen_gmsh_edge_stats(const ldem_trimesh *m, lsgen_gmsh_edges *st, ldem_err *err)
{
    memset(st, 0, sizeof *st);
    size_t n = 3 * m->ntris;
    dir_edge *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu edges", n);
    for (size_t t = 0; t < m->ntris; t++) {
        for (int k = 0; k < 3; k++) {
            uint64_t a = m->tri[3 * t + (size_t)k], b = m->tri[3 * t + (size_t)(k + 1) % 3];
            e[3 * t + (size_t)k] = (dir_edge){a < b ? (a << 32) | b : (b << 32) | a, a < b};
        }
    }
    qsort(e, n, sizeof *e, cmp_edge);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].key == e[i].key)
            j++;
        st->edges++;
        if (j - i == 1)
            st->boundary++;
        else if (j - i > 2)
            st->nonmanifold++;
        else if (e[i].up == e[i + 1].up)
            st->misoriented++;
        i = j;
    }
    free(e);
    return LDEM_OK;
}

/* ------------------------------------------------------------- triangles -------- */

static ldem_vec3 vertex(const ldem_trimesh *m, uint32_t i)
{
    return (ldem_vec3){m->xyz[3 * (size_t)i], m->xyz[3 * (size_t)i + 1],
                       m->xyz[3 * (size_t)i + 2]};
}

/* Twice the area times the unit normal. */
static ldem_vec3 tri_normal(const ldem_trimesh *m, size_t t, ldem_vec3 *centroid)
{
    ldem_vec3 a = vertex(m, m->tri[3 * t]), b = vertex(m, m->tri[3 * t + 1]),
              c = vertex(m, m->tri[3 * t + 2]);
    if (centroid)
        *centroid = ldem_vec3_scale(ldem_vec3_add(ldem_vec3_add(a, b), c), 1.0 / 3.0);
    return ldem_vec3_cross(ldem_vec3_sub(b, a), ldem_vec3_sub(c, a));
}

/* ------------------------------------------------------------ orientation -------- */

int lsgen_gmsh_orient_like(const ldem_trimesh *in, ldem_trimesh *out, const uint32_t *patch,
                           size_t *flipped_patches, ldem_err *err)
{
    *flipped_patches = 0;
    uint32_t npatch = 0;
    for (size_t t = 0; t < out->ntris; t++)
        npatch = patch[t] + 1 > npatch ? patch[t] + 1 : npatch;
    double *vote = calloc(npatch ? npatch : 1, sizeof *vote);
    if (!vote)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory orienting triangles");
    lsgen_bvh *bvh = NULL;
    int st = lsgen_bvh_build(in, &bvh, err);
    if (st) {
        free(vote);
        return st;
    }
    for (size_t t = 0; t < out->ntris; t++) {
        ldem_vec3 c;
        ldem_vec3 n = tri_normal(out, t, &c);
        lsgen_hit hit;
        lsgen_bvh_closest(bvh, c, INFINITY, &hit);
        if (hit.tri == SIZE_MAX)
            continue;
        ldem_vec3 m = tri_normal(in, hit.tri, NULL);
        double len = ldem_vec3_norm(m);
        if (len > 0) /* unit input normal: each output triangle weighs by its own area */
            vote[patch[t]] += ldem_vec3_dot(n, m) / len;
    }
    lsgen_bvh_free(bvh);
    for (size_t t = 0; t < out->ntris; t++) {
        if (vote[patch[t]] < 0) {
            uint32_t tmp = out->tri[3 * t + 1];
            out->tri[3 * t + 1] = out->tri[3 * t + 2];
            out->tri[3 * t + 2] = tmp;
        }
    }
    for (uint32_t p = 0; p < npatch; p++)
        *flipped_patches += vote[p] < 0;
    free(vote);
    return LDEM_OK;
}

/* ---------------------------------------------------------------- remeshing -------- */

/* The input as one discrete surface: node tag = vertex index + 1 (used vertices only). */
static int add_discrete_surface(const ldem_trimesh *in, ldem_err *err)
{
    int ierr = 0;
    gmshClear(&ierr);
    if (!ierr)
        gmshModelAdd("lsgen-remesh", &ierr);
    int surf = ierr ? 0 : gmshModelAddDiscreteEntity(2, -1, NULL, 0, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "creating a Gmsh surface");
    size_t n3 = 3 * in->ntris;
    unsigned char *used = calloc(in->nverts ? in->nverts : 1, 1);
    size_t *node_tags = malloc((in->nverts ? in->nverts : 1) * sizeof *node_tags);
    double *coord = malloc((in->nverts ? in->nverts : 1) * 3 * sizeof *coord);
    size_t *elem_tags = malloc(in->ntris * sizeof *elem_tags);
    size_t *elem_nodes = malloc(n3 * sizeof *elem_nodes);
    int st = LDEM_OK;
    if (!used || !node_tags || !coord || !elem_tags || !elem_nodes) {
        st = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for Gmsh's input");
    } else {
        for (size_t i = 0; i < n3; i++) {
            used[in->tri[i]] = 1;
            elem_nodes[i] = (size_t)in->tri[i] + 1;
        }
        size_t nn = 0;
        for (size_t v = 0; v < in->nverts; v++) {
            if (!used[v])
                continue;
            node_tags[nn] = v + 1;
            memcpy(coord + 3 * nn, in->xyz + 3 * v, 3 * sizeof *coord);
            nn++;
        }
        for (size_t t = 0; t < in->ntris; t++)
            elem_tags[t] = t + 1;
        gmshModelMeshAddNodes(2, surf, node_tags, nn, coord, 3 * nn, NULL, 0, &ierr);
        if (!ierr)
            gmshModelMeshAddElementsByType(surf, 2, elem_tags, in->ntris, elem_nodes, n3,
                                           &ierr);
        if (ierr)
            st = lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "passing the surface to Gmsh");
    }
    free(used);
    free(node_tags);
    free(coord);
    free(elem_tags);
    free(elem_nodes);
    return st;
}

static int classify_and_mesh(double spacing, double feature_deg, ldem_err *err)
{
    int ierr = 0;
    /* boundary curves for open input; patches each parametrizable by one map; curves
     * split only at the feature angle (curveAngle 180°: never within a boundary). */
    gmshModelMeshClassifySurfaces(feature_deg * LSGEN_PI / 180.0, 1, 1, LSGEN_PI, 1, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, NULL,
                               "Gmsh could not split the surface into patches");
    gmshModelMeshCreateGeometry(NULL, 0, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, NULL,
                               "Gmsh could not parametrize the surface patches");
    int st;
    if ((st = lsgen_gmsh_set_number("Mesh.MeshSizeMin", spacing, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.MeshSizeMax", spacing, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.MeshSizeFactor", 1, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.MeshSizeFromCurvature", 0, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.MeshSizeFromPoints", 0, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.Algorithm", 6, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.ElementOrder", 1, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.RecombineAll", 0, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.SubdivisionAlgorithm", 0, err)))
        return st;
    gmshModelMeshGenerate(2, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "Gmsh could not remesh the surface");
    return LDEM_OK;
}

static double surface_area(const ldem_trimesh *m)
{
    double a = 0;
    for (size_t t = 0; t < m->ntris; t++)
        a += 0.5 * ldem_vec3_norm(tri_normal(m, t, NULL));
    return a;
}

int lsgen_gmsh_remesh_precheck(const ldem_trimesh *in, double spacing, double feature_deg,
                               ldem_err *err)
{
    int st;
    if (in->ntris == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "remesh: the surface has no triangles");
    if ((st = ldem_trimesh_check(in, "remesh input", err)))
        return st;
    if (!(spacing > 0) || !isfinite(spacing))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "remesh: node spacing must be positive and finite, got %g", spacing);
    if (!(feature_deg > 0 && feature_deg <= 180))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "remesh: feature angle must be in (0, 180] degrees, got %g",
                            feature_deg);
    double estimate = surface_area(in) / (0.25 * sqrt(3.0) * spacing * spacing);
    if (estimate > LSGEN_REMESH_MAX_TRIANGLES)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "remesh: node spacing %g would give about %.3g triangles on this "
                            "surface (area %g); at most %.0g are allowed",
                            spacing, estimate, surface_area(in), LSGEN_REMESH_MAX_TRIANGLES);
    return LDEM_OK;
}

/* A closed input must give a closed, edge-manifold, consistently oriented output; an open
 * input may keep its holes, but nothing else. */
static int check_output(const ldem_trimesh *in, const ldem_trimesh *out, ldem_err *err)
{
    lsgen_gmsh_edges ein, eout;
    int st = lsgen_gmsh_edge_stats(in, &ein, err);
    if (!st)
        st = lsgen_gmsh_edge_stats(out, &eout, err);
    if (st)
        return st;
    int holes_appeared = ein.boundary == 0 && eout.boundary > 0;
    if (holes_appeared || eout.nonmanifold || eout.misoriented)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "Gmsh's remeshed surface is broken: of %zu edges, %zu are on one "
                            "triangle (input: %zu), %zu on three or more, %zu oriented "
                            "inconsistently (%zu triangles, %zu vertices)",
                            eout.edges, eout.boundary, ein.boundary, eout.nonmanifold,
                            eout.misoriented, out->ntris, out->nverts);
    return LDEM_OK;
}

int lsgen_gmsh_remesh_raw(const ldem_trimesh *in, double spacing, double feature_deg,
                          ldem_trimesh *out, uint32_t **patch, size_t *skipped, ldem_err *err)
{
    *patch = NULL;
    *skipped = 0;
    int st = lsgen_gmsh_require_session("lsgen_gmsh_remesh", err);
    if (st)
        return st;
    lsgen_gmsh_quiet q;
    if ((st = lsgen_gmsh_quiet_enter(&q, err)))
        return st;
    st = add_discrete_surface(in, err);
    if (!st)
        st = classify_and_mesh(spacing, feature_deg, err);
    if (!st)
        st = lsgen_gmsh_collect_triangles(out, patch, skipped, err);
    st = lsgen_gmsh_quiet_leave(&q, st, err);
    if (st) {
        free(*patch);
        *patch = NULL;
        ldem_trimesh_free(out);
    }
    return st;
}

int lsgen_gmsh_remesh_finish(const ldem_trimesh *in, double spacing, ldem_trimesh *out,
                             uint32_t *patch, size_t skipped, ldem_err *err)
{
    int st = LDEM_OK;
    if (out->ntris == 0 || skipped)
        st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                          "Gmsh's remeshed surface has %zu triangles and %zu other elements",
                          out->ntris, skipped);
    size_t flipped = 0;
    if (!st)
        st = lsgen_gmsh_orient_like(in, out, patch, &flipped, err);
    if (!st)
        st = check_output(in, out, err);
    free(patch);
    if (st) {
        ldem_trimesh_free(out);
        return st;
    }
    ldem_debug("remesh: %zu triangles, %zu vertices at spacing %g (%zu patches reoriented)",
               out->ntris, out->nverts, spacing, flipped);
    return LDEM_OK;
}

int lsgen_gmsh_remesh(const ldem_trimesh *in, double spacing, double feature_deg,
                      ldem_trimesh *out, ldem_err *err)
{
    int st = lsgen_gmsh_require_session("lsgen_gmsh_remesh", err);
    if (!st)
        st = lsgen_gmsh_remesh_precheck(in, spacing, feature_deg, err);
    if (st)
        return st;
    uint32_t *patch = NULL;
    size_t skipped = 0;
    st = lsgen_gmsh_remesh_raw(in, spacing, feature_deg, out, &patch, &skipped, err);
    if (st)
        return st;
    return lsgen_gmsh_remesh_finish(in, spacing, out, patch, skipped, err);
}
