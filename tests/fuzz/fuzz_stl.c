/* libFuzzer target for lsgen's STL path without Gmsh (tools/lsgen): the STL check, then
 * what lsgen does with the surface Gmsh would read from it — mesh repair (weld, drop
 * degenerate triangles, orient), mass properties and the principal frame, the BVH, the
 * signed-distance grid (generalized winding numbers), and surface nodes with normals.
 *
 * The check takes a path, so the input is written to fuzz.stl in a private folder. Gmsh's
 * reader is not linked: an accepted file is turned into triangles here (stl_to_mesh, the
 * layout the check enforces), one vertex per corner, as Gmsh hands them over.
 *
 * Work per input is bounded: the check refuses files it cannot account for, the input is
 * as large as libFuzzer lets it be (-max_len), and the grid spacing is chosen so that the
 * grid has at most about GRID_CELLS cells along its longest side.
 *
 * Properties besides "no crash, no leak, no UB": refusals say why; a repaired mesh has
 * indices in range, finite coordinates and at least 4 triangles; mass properties are finite
 * with a positive volume; every level-set value is finite and no farther from the surface
 * than the grid's diagonal allows; node areas sum to the mesh's area (within the rounding
 * a sliver triangle's area allows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bvh.h"
#include "fuzz_common.h"
#include "massprops.h"
#include "meshcheck.h"
#include "node_normals.h"
#include "sdfgrid.h"
#include "stl_check.h"
#include "surface_nodes.h"

#define GRID_CELLS 12.0

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double le_float(const uint8_t *p)
{
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int binary_to_mesh(const uint8_t *d, size_t n, size_t ntris, ldem_trimesh *m)
{
    if (n < 84 || (n - 84) / 50 < ntris)
        return -1;
    ldem_err err;
    if (ldem_trimesh_alloc(m, 3 * ntris, ntris, &err))
        return -1;
    for (size_t t = 0; t < ntris; t++) {
        const uint8_t *r = d + 84 + 50 * t + 12;
        for (int k = 0; k < 9; k++)
            m->xyz[9 * t + k] = le_float(r + 4 * k);
        for (int k = 0; k < 3; k++)
            m->tri[3 * t + k] = (uint32_t)(3 * t + k);
    }
    return 0;
}

/* Every "vertex x y z" line, three to a triangle. */
static int ascii_to_mesh(const uint8_t *d, size_t n, size_t ntris, ldem_trimesh *m)
{
    char *text = malloc(n + 1);
    ldem_err err;
    if (!text || ldem_trimesh_alloc(m, 3 * ntris, ntris, &err)) {
        free(text);
        return -1;
    }
    memcpy(text, d, n);
    text[n] = '\0';
    size_t v = 0;
    int rc = 0;
    for (char *line = text, *next; line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *p = line + strspn(line, " \t\r");
        if (strncasecmp(p, "vertex", 6) != 0 || !strchr(" \t", p[6]))
            continue;
        p += 6;
        for (int k = 0; k < 3 && !rc; k++) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || v >= 3 * ntris)
                rc = -1;
            else
                m->xyz[3 * v + k] = x;
            p = end;
        }
        v++;
    }
    free(text);
    if (rc || v != 3 * ntris)
        return -1;
    for (size_t k = 0; k < 3 * ntris; k++)
        m->tri[k] = (uint32_t)k;
    return 0;
}

/* The triangles of a file lsgen_stl_check accepted with `ntris` triangles (binary or ASCII,
 * as the check decides: see stl_check.c). */
static int stl_to_mesh(const uint8_t *d, size_t n, size_t ntris, ldem_trimesh *m)
{
    int solid = n >= 5 && (memcmp(d, "solid", 5) == 0 || memcmp(d, "SOLID", 5) == 0);
    if (!solid || (n >= 84 && (uint64_t)84 + 50 * (uint64_t)le32(d + 80) == n))
        return binary_to_mesh(d, n, ntris, m);
    if (ascii_to_mesh(d, n, ntris, m) == 0)
        return 0;
    return binary_to_mesh(d, n, ntris, m);   /* "solid" header with binary bytes */
}

static void bbox(const ldem_trimesh *m, ldem_vec3 *lo, ldem_vec3 *hi)
{
    *lo = ldem_vec3_make(INFINITY, INFINITY, INFINITY);
    *hi = ldem_vec3_make(-INFINITY, -INFINITY, -INFINITY);
    for (size_t v = 0; v < m->nverts; v++) {
        ldem_vec3 p = ldem_vec3_make(m->xyz[3 * v], m->xyz[3 * v + 1], m->xyz[3 * v + 2]);
        *lo = ldem_vec3_make(fmin(lo->x, p.x), fmin(lo->y, p.y), fmin(lo->z, p.z));
        *hi = ldem_vec3_make(fmax(hi->x, p.x), fmax(hi->y, p.y), fmax(hi->z, p.z));
    }
}

static void level_set(const ldem_trimesh *m, const lsgen_bvh *b)
{
    ldem_vec3 lo, hi;
    bbox(m, &lo, &hi);
    double longest = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    double h = longest / GRID_CELLS;
    if (!(h > 0.0) || !isfinite(h))
        return;
    ldem_lset ls;
    memset(&ls, 0, sizeof ls);
    ldem_err err;
    ldem_err_clear(&err);
    int rc = lsgen_grid_around(lo, hi, h, 2, &ls, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return;
    }
    lsgen_sdf_stats stats;
    rc = lsgen_sdf_mesh(b, &ls, 0, &stats, &err);
    if (!rc) {
        double reach = 2.0 * sqrt(3.0) * (longest + 5.0 * h);
        uint64_t count = ldem_lset_count(&ls);
        for (uint64_t k = 0; k < count; k++) {
            if (!(isfinite(ls.phi[k]) && fabs(ls.phi[k]) <= reach))
                fprintf(stderr, "phi[%llu] = %g, reach %g, h %g\n", (unsigned long long)k,
                        (double)ls.phi[k], reach, h);
            fuzz_require(isfinite(ls.phi[k]) && fabs(ls.phi[k]) <= reach);
        }
        double c = lsgen_mesh_sdf_point(b, ldem_vec3_scale(ldem_vec3_add(lo, hi), 0.5));
        fuzz_require(isfinite(c));
    } else {
        fuzz_check_error(rc, &err);
    }
    ldem_lset_free(&ls);
}

/* How far two correct summations of the mesh's area may differ by rounding: a triangle's
 * doubled area |e1 × e2| is known to about ε |e1| |e2| (worse for a sliver than its area), and
 * its edges, formed after a shift by the box's centre in the mass properties, to ε times the
 * coordinates' size. Sixteen ε covers the few roundings per term. */
static double area_rounding(const ldem_trimesh *m)
{
    double size = 0.0, bound = 0.0; /* the shift is within √3 of the largest vertex */
    for (size_t v = 0; v < m->nverts; v++) {
        const double *x = m->xyz + 3 * v;
        size = fmax(size, 2.0 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    for (size_t t = 0; t < m->ntris; t++) {
        ldem_vec3 p[3];
        for (int k = 0; k < 3; k++) {
            const double *x = m->xyz + 3 * (size_t)m->tri[3 * t + k];
            p[k] = ldem_vec3_make(x[0], x[1], x[2]);
        }
        double e1 = ldem_vec3_norm(ldem_vec3_sub(p[1], p[0]));
        double e2 = ldem_vec3_norm(ldem_vec3_sub(p[2], p[0]));
        bound += 0.5 * (e1 * e2 + size * (e1 + e2));
    }
    return 16.0 * 2.220446049250313e-16 * bound;
}

static void nodes(const ldem_trimesh *m, const lsgen_bvh *b, double area)
{
    ldem_nodes nd;
    memset(&nd, 0, sizeof nd);
    ldem_err err;
    ldem_err_clear(&err);
    int rc = lsgen_nodes_from_mesh(m, &nd, &err);
    if (!rc)
        rc = lsgen_nodes_interpolate_normals(b, m, 40.0, &nd, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
    } else {
        double sum = 0.0;
        for (uint64_t k = 0; k < nd.count; k++)
            sum += nd.area[k];
        fuzz_require(fabs(sum - area) <= 1e-12 * area + area_rounding(m));
    }
    ldem_nodes_free(&nd);
}

static void geometry(ldem_trimesh *m)
{
    lsgen_mesh_report rep;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = lsgen_mesh_repair(m, "fuzz.stl", &rep, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return;
    }
    fuzz_require(m->ntris >= 4 && ldem_trimesh_check(m, "fuzz.stl", &err) == LDEM_OK);
    lsgen_massprops mp;
    rc = lsgen_mesh_mass_props(m, "fuzz.stl", &mp, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return;
    }
    fuzz_require(mp.volume > 0.0 && isfinite(mp.volume) && isfinite(mp.area));
    double moments[3];
    ldem_quat q;
    rc = lsgen_principal_frame((const double(*)[3])mp.inertia, moments, &q, &err);
    if (rc)
        fuzz_check_error(rc, &err);
    lsgen_bvh *b = NULL;
    rc = lsgen_bvh_build(m, &b, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return;
    }
    level_set(m, b);
    nodes(m, b, mp.area);
    lsgen_bvh_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef _OPENMP
    omp_set_num_threads(1);   /* one core per fuzzing job */
#endif
    const char *path = fuzz_write("fuzz.stl", data, size);
    size_t ntris = 0;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = lsgen_stl_check(path, &ntris, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return 0;
    }
    fuzz_require(ntris > 0);
    ldem_trimesh m;
    ldem_trimesh_init(&m);
    if (stl_to_mesh(data, size, ntris, &m) == 0)
        geometry(&m);
    ldem_trimesh_free(&m);
    return 0;
}
