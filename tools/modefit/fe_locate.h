/* Where a point lies in the mesh, and FE interpolation there; outside the mesh, the
 * closest point of the mesh's boundary surface (a constant extension along the closest
 * point: continuous, and what the runtime's level-set remap needs near the surface). */
#ifndef MODEFIT_FE_LOCATE_H
#define MODEFIT_FE_LOCATE_H

#include <stddef.h>

#include "femesh.h"
#include "ldem/mesh.h"

typedef struct fe_locator fe_locator;

typedef struct fe_place {
    size_t elem;   /* element holding the point (or its closest boundary point) */
    double rst[3]; /* natural coordinates there */
    int inside;    /* 1: the point is in the mesh; 0: extended from the boundary */
    double dist;   /* 0 inside; distance to the closest boundary point otherwise */
} fe_place;

/* Builds a bucket grid over the elements and a BVH over the boundary faces (the faces
 * that belong to one tet only, triangulated by their corners). */
int fe_locator_build(const fe_mesh *m, fe_locator **out, ldem_err *err);
void fe_locator_free(fe_locator *loc);

/* Thread-safe (read-only). A non-finite x gives elem 0 at its centroid with dist = NaN. */
void fe_locate(const fe_locator *loc, const double x[3], fe_place *p);

/* Distance from x to the boundary surface (corner triangulation). */
double fe_boundary_distance(const fe_locator *loc, const double x[3]);

/* Boundary corner nodes (each once), for comparing the mesh surface with a level set. */
const size_t *fe_boundary_nodes(const fe_locator *loc, size_t *count);

/* The boundary surface itself (an extension of the lead's interface): the faces of one
 * tet, triangulated by their corners and oriented outward (counter-clockwise seen from
 * outside). Vertex i is node fe_boundary_nodes()[i]; *face_tet (may be NULL) receives
 * the tet of each triangle. Owned by the locator. */
const ldem_trimesh *fe_boundary_surface(const fe_locator *loc, const size_t **face_tet);

/* Values of n fields (stride 3*nnodes, as in fe_integrate.h) at place p: out[3*i + c]. */
void fe_interpolate(const fe_mesh *m, const fe_place *p, const double *fields, size_t n,
                    double *out);

#endif
