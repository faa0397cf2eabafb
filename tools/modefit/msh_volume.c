/* Gmsh volume meshing of a closed triangulated surface (msh_volume.h).
 *
 * The remeshed triangles become one discrete surface, and a discrete volume bounded by
 * it is meshed by Gmsh's 3-D Delaunay, which keeps the surface triangles as its boundary.
 * The mesh size inside follows the boundary's (Gmsh interpolates it from the surface
 * nodes) and is capped at `size`. */
#include "msh_volume.h"

#include <stdlib.h>
#include <string.h>

#include <gmshc.h>

#include "gmsh_io.h"
#include "gmsh_private.h"
#include "ldem/log.h"

#define WHAT "the grain's surface"
/* Feature angle for the remesher: edges sharper than this stay edges (a cube's). */
#define FEATURE_DEG 40.0

static int add_surface(const ldem_trimesh *s, ldem_err *err)
{
    int ierr = 0;
    size_t nv = s->nverts, nt = s->ntris;
    size_t *ntags = malloc(nv * sizeof *ntags), *etags = malloc(nt * sizeof *etags);
    size_t *conn = malloc(3 * nt * sizeof *conn);
    if (!ntags || !etags || !conn) {
        free(ntags);
        free(etags);
        free(conn);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu triangles", nt);
    }
    for (size_t i = 0; i < nv; i++)
        ntags[i] = i + 1;
    for (size_t t = 0; t < nt; t++) {
        etags[t] = t + 1;
        for (int k = 0; k < 3; k++)
            conn[3 * t + (size_t)k] = (size_t)s->tri[3 * t + (size_t)k] + 1;
    }
    gmshModelAdd("grain", &ierr);
    if (!ierr)
        gmshModelAddDiscreteEntity(2, 1, NULL, 0, &ierr);
    if (!ierr)
        gmshModelMeshAddNodes(2, 1, ntags, nv, s->xyz, 3 * nv, NULL, 0, &ierr);
    if (!ierr)
        gmshModelMeshAddElementsByType(1, 2, etags, nt, conn, 3 * nt, &ierr);
    free(ntags);
    free(etags);
    free(conn);
    return ierr ? lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "building Gmsh's model") : 0;
}

/* Gmsh's recipe for a volume inside an STL-like surface: classify the triangles into
 * patches split at feature edges, give each a parametrization, and bound a volume by
 * them all; meshing then remeshes the patches at the target size and fills the volume. */
static int volume_from_patches(ldem_err *err)
{
    int ierr = 0, *dimtags = NULL;
    size_t n = 0;
    gmshModelMeshClassifySurfaces(FEATURE_DEG * 3.14159265358979323846 / 180.0, 1, 1,
                                  3.14159265358979323846, 0, &ierr);
    if (!ierr)
        gmshModelMeshCreateGeometry(NULL, 0, &ierr);
    if (!ierr)
        gmshModelGetEntities(&dimtags, &n, 2, &ierr);
    if (ierr || n == 0) {
        gmshFree(dimtags);
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, WHAT, "Gmsh could not parametrize it");
    }
    size_t count = n / 2;
    int *tags = malloc(count * sizeof *tags);
    if (!tags) {
        gmshFree(dimtags);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < count; i++)
        tags[i] = dimtags[2 * i + 1];
    gmshFree(dimtags);
    int loop = gmshModelGeoAddSurfaceLoop(tags, count, -1, &ierr);
    free(tags);
    if (!ierr)
        gmshModelGeoAddVolume(&loop, 1, -1, &ierr);
    if (!ierr)
        gmshModelGeoSynchronize(&ierr);
    return ierr ? lsgen_gmsh_fail(err, LDEM_ERR_INPUT, WHAT, "Gmsh could not close a volume")
                : 0;
}

static int mesh_it(const ldem_trimesh *surface, double size, int quadratic, fe_mesh *m,
                   ldem_err *err)
{
    int ierr = 0;
    gmshClear(&ierr);
    int st = add_surface(surface, err);
    if (!st)
        st = volume_from_patches(err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.MeshSizeMax", size, err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.MeshSizeMin", 0.5 * size, err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.Algorithm3D", 1, err); /* Delaunay */
    if (!st) {
        gmshModelMeshGenerate(3, &ierr);
        if (ierr)
            st = lsgen_gmsh_fail(err, LDEM_ERR_INPUT, WHAT,
                                 "Gmsh could not fill it with tetrahedra (is it closed and "
                                 "free of self-intersections?)");
    }
    /* Midside nodes at the edge midpoints: projecting them onto a patch's reconstructed
     * parametrization bent some edges of coarse meshes beyond what fe_mesh_check
     * accepts, and the faceted surface is within h²/(8R) of the grain anyway. */
    if (!st && quadratic)
        st = lsgen_gmsh_set_number("Mesh.SecondOrderLinear", 1, err);
    if (!st && quadratic) {
        gmshModelMeshSetOrder(2, &ierr);
        if (ierr)
            st = lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, WHAT, "Gmsh's second-order mesh");
    }
    if (!st)
        st = msh_collect_model(WHAT, m, err);
    gmshClear(&ierr);
    return st;
}

int msh_mesh_volume(const ldem_trimesh *surface, double size, int quadratic, fe_mesh *m,
                    ldem_err *err)
{
    memset(m, 0, sizeof *m);
    int st = lsgen_gmsh_begin(err);
    if (st)
        return st;
    lsgen_gmsh_quiet q;
    if (!(st = lsgen_gmsh_quiet_enter(&q, err))) {
        st = mesh_it(surface, size, quadratic, m, err);
        st = lsgen_gmsh_quiet_leave(&q, st, err);
    }
    lsgen_gmsh_end();
    return st;
}
