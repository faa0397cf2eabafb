/* --eigen and --contact-modes (modefit_solve.h): assemble K and M on the mesh, factor
 * K + sM once, then Lanczos or inertia-relief solves. */
#include "modefit_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe_eigen.h"
#include "fe_integrate.h"
#include "fe_patch.h"
#include "fe_solver.h"
#include "fe_sparse.h"
#include "fe_static.h"
#include "ldem/log.h"
#include "msh_volume.h"

#define PI 3.14159265358979323846
/* The shift s of K + sM against the grain's elastic scale E / (ρ L²), L the mesh's
 * extent: far below the lowest elastic ω² of any compact or slender grain (about 10 and
 * 0.03 of that scale for a sphere and a 40:1 beam), so that static refinement gains three
 * digits or more per step, and far above round-off, so that K + sM is well conditioned. */
#define SHIFT_FRACTION 1e-4
/* ω² below this fraction of the scale is a rigid motion. */
#define ZERO_FRACTION 1e-6
/* Default patch radius as a fraction of the volume-equivalent radius. */
#define PATCH_FRACTION 0.2
/* Default element size without --mesh, against the same radius: about 2000 10-node tets
 * for a sphere, enough for the lowest modes to 1e-3 (test_fe_solve's sphere is 0.3). */
#define MESH_FRACTION 0.3

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The bundle's surface triangles in the geometry frame, meshed by Gmsh. */
static int mesh_bundle_surface(const modefit_options *o, const modefit_grain *g, fe_mesh *m,
                               ldem_err *err)
{
    const ldem_nodes *nd = &g->nodes;
    if (nd->ntriangles == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, o->input, 0,
                            "the bundle's NODE section has no surface triangles to mesh: give "
                            "the grain's volume mesh with --mesh");
    ldem_trimesh s;
    ldem_trimesh_init(&s);
    s.nverts = nd->count;
    s.ntris = nd->ntriangles;
    s.xyz = malloc(3 * s.nverts * sizeof *s.xyz);
    s.tri = malloc(3 * s.ntris * sizeof *s.tri);
    if (!s.xyz || !s.tri) {
        ldem_trimesh_free(&s);
        return modefit_nomem(err);
    }
    for (size_t i = 0; i < s.nverts; i++) {
        const double *p = nd->position + 3 * i;
        for (int r = 0; r < 3; r++)
            s.xyz[3 * i + (size_t)r] = g->body.centroid[r] + g->rot[r][0] * p[0] +
                                       g->rot[r][1] * p[1] + g->rot[r][2] * p[2];
    }
    memcpy(s.tri, nd->triangles, 3 * s.ntris * sizeof *s.tri);
    double size = o->mesh_size > 0 ? o->mesh_size
                                   : MESH_FRACTION * cbrt(3.0 * g->body.volume / (4.0 * PI));
    int rc = msh_mesh_volume(&s, size, 1, m, err);
    ldem_trimesh_free(&s);
    if (!rc)
        ldem_info("no --mesh: the bundle's surface (%zu triangles) meshed by Gmsh at size %g",
                  (size_t)nd->ntriangles, size);
    return rc;
}

int modefit_solve_mesh(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                       ldem_err *err)
{
    b->copies = 1;
    const char *name = o->mesh_path ? o->mesh_path : "<bundle surface>";
    int rc = !o->mesh_path                      ? mesh_bundle_surface(o, g, &b->mesh, err)
             : ends_with(o->mesh_path, ".msh") ? msh_read(o->mesh_path, &b->mesh, NULL, 0, err)
                                                : inp_read_mesh(o->mesh_path, &b->mesh, err);
    if (!rc)
        rc = fe_mesh_check(&b->mesh, name, err);
    /* A mesh from a file comes in its own frame and may not be the grain at all
     * (modefit_frame.c, modefit_mismatch.c); the bundle's surface is the grain already. */
    if (!rc && o->mesh_path)
        modefit_frame_apply(o, b);
    if (!rc)
        rc = fe_locator_build(&b->mesh, &b->loc, err);
    if (!rc && o->mesh_path)
        rc = modefit_check_mismatch(o, g, b, err);
    if (rc)
        return rc;
    b->fdof = 3 * b->mesh.nnodes;
    double volume, second[3][3];
    fe_volume_moments(&b->mesh, &volume, b->center, second);
    ldem_info("%s: %zu nodes, %zu %d-node tetrahedra, volume %.9g", name,
              b->mesh.nnodes, b->mesh.ntets, b->mesh.order, volume);
    return LDEM_OK;
}

/* K, M and the factor of K + sM; *scale receives E / (ρ L²). */
static int factor_system(const modefit_options *o, const modefit_basis *b, fe_sparse *S,
                         fe_solver **f, double *shift, double *scale, ldem_err *err)
{
    double L = fe_mesh_extent(&b->mesh);
    *scale = o->E / (b->rho * L * L);
    *shift = SHIFT_FRACTION * *scale;
    int rc = fe_sparse_assemble(&b->mesh, o->E, o->nu, b->rho, S, err);
    if (rc)
        return rc;
    ldem_info("K and M: %zu unknowns, %zu stored entries each", S->n, S->nnz);
    rc = fe_solver_factor(S, *shift, f, err);
    if (!rc)
        ldem_info("K + sM factored by CHOLMOD (s = %.3g, %s ordering): %.1f MB", *shift,
                  fe_solver_ordering(*f), fe_solver_factor_bytes(*f) / 1e6);
    return rc;
}

int modefit_eigen_basis(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    fe_sparse S;
    fe_solver *f = NULL;
    double shift, scale;
    fe_eigen_result r;
    memset(&r, 0, sizeof r);
    int rc = factor_system(o, b, &S, &f, &shift, &scale, err);
    if (!rc)
        rc = fe_eigen_free_free(&S, f, shift, (size_t)o->eigen, ZERO_FRACTION * scale, &r, err);
    if (!rc) {
        ldem_info("Lanczos: %d restarts, %d solves; %zu rigid modes skipped (omega^2 from %.2g "
                  "to %.2g, elastic scale E/(rho L^2) = %.3g)", r.restarts, r.solves, r.rigid,
                  r.rigid_lambda[0], r.rigid_lambda[5], scale);
        size_t n = r.count, ndof = b->fdof;
        b->count = n;
        b->phi = r.phi;
        r.phi = NULL;
        b->raw = malloc(n * ndof * sizeof *b->raw);
        if (!b->raw)
            rc = modefit_nomem(err);
        else
            memcpy(b->raw, b->phi, n * ndof * sizeof *b->raw);
        for (size_t k = 0; k < n && !rc; k++)
            ldem_info("Lanczos omega[%zu] = %.9g rad/time (f = %.9g)", k + 1, sqrt(r.lambda[k]),
                      sqrt(r.lambda[k]) / (2 * PI));
    }
    fe_eigen_result_free(&r);
    fe_solver_free(f);
    fe_sparse_free(&S);
    return rc;
}

/* Direction k of --contact-modes in the geometry frame: the grain's principal axes first
 * (body axes as lsgen wrote them), then a Fibonacci lattice on the half sphere of the
 * body frame (a pair of patches covers d and −d). */
static void contact_direction(const modefit_grain *g, size_t k, size_t count, double d[3])
{
    double db[3] = {0, 0, 0};
    if (k < 3) {
        db[k] = 1.0;
    } else {
        size_t m = count - 3, i = k - 3;
        double z = 1.0 - ((double)i + 0.5) / (double)m;
        double phi = (double)i * PI * (3.0 - sqrt(5.0)), rxy = sqrt(fmax(0.0, 1.0 - z * z));
        db[0] = rxy * cos(phi);
        db[1] = rxy * sin(phi);
        db[2] = z;
    }
    for (int i = 0; i < 3; i++)
        d[i] = g->rot[i][0] * db[0] + g->rot[i][1] * db[1] + g->rot[i][2] * db[2];
}

int modefit_contact_snapshots(const modefit_options *o, const modefit_grain *g,
                              modefit_basis *b, ldem_err *err)
{
    size_t K = (size_t)o->contact, ndof = b->fdof;
    double volume, centroid[3], second[3][3];
    fe_volume_moments(&b->mesh, &volume, centroid, second);
    double a = o->patch_radius > 0 ? o->patch_radius
                                   : PATCH_FRACTION * cbrt(3.0 * volume / (4.0 * PI));
    fe_snapshots *s = &b->snaps;
    s->nnodes = b->mesh.nnodes;
    s->count = K;
    s->u = calloc(K * ndof, sizeof *s->u);
    s->time = malloc(K * sizeof *s->time);
    s->step = malloc(K * sizeof *s->step);
    double *load = calloc(K * ndof, sizeof *load), *rigid = malloc(6 * ndof * sizeof *rigid);
    if (!s->u || !s->time || !s->step || !load || !rigid) {
        free(load);
        free(rigid);
        return modefit_nomem(err);
    }
    int rc = LDEM_OK;
    for (size_t k = 0; k < K && !rc; k++) {
        double d[3], nd[3], c1[3], c2[3];
        size_t f1 = 0, f2 = 0;
        contact_direction(g, k, K, d);
        for (int i = 0; i < 3; i++)
            nd[i] = -d[i];
        rc = fe_patch_load(&b->mesh, b->loc, d, a, load + k * ndof, c1, &f1, err);
        if (!rc)
            rc = fe_patch_load(&b->mesh, b->loc, nd, a, load + k * ndof, c2, &f2, err);
        if (!rc && (f1 == 0 || f2 == 0))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, o->mesh_path ? o->mesh_path : o->input, 0,
                              "contact patch %zu (direction %.3g,%.3g,%.3g) loads no boundary "
                              "face", k + 1, d[0], d[1], d[2]);
        s->time[k] = (double)(k + 1);
        s->step[k] = (long)(k + 1);
        if (!rc)
            ldem_info("patch pair %zu: direction (%.4f, %.4f, %.4f), centres (%.4g, %.4g, %.4g) "
                      "and (%.4g, %.4g, %.4g), %zu + %zu faces, radius %.4g", k + 1, d[0], d[1],
                      d[2], c1[0], c1[1], c1[2], c2[0], c2[1], c2[2], f1, f2, a);
    }
    fe_sparse S;
    memset(&S, 0, sizeof S);
    fe_solver *f = NULL;
    double shift, scale;
    if (!rc)
        rc = factor_system(o, b, &S, &f, &shift, &scale, err);
    int iterations = 0;
    if (!rc) {
        fe_rigid_fields(&b->mesh, b->center, rigid);
        rc = fe_static_inertia_relief(&S, f, rigid, load, K, s->u, &iterations, err);
    }
    if (!rc) {
        ldem_info("%zu contact load cases solved (inertia relief, at most %d refinements)", K,
                  iterations);
        for (size_t k = 0; k < K; k++) {
            double w = 0;
            for (size_t i = 0; i < ndof; i++)
                w += load[k * ndof + i] * s->u[k * ndof + i];
            ldem_info("patch pair %zu: compliance (work of unit forces) %.6g", k + 1, w);
        }
    }
    fe_solver_free(f);
    fe_sparse_free(&S);
    free(load);
    free(rigid);
    return rc;
}
