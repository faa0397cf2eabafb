/* A tetrahedral mesh of a grain's closed surface, by Gmsh: what modefit --eigen and
 * --contact-modes use when no --mesh is given. */
#ifndef MODEFIT_MSH_VOLUME_H
#define MODEFIT_MSH_VOLUME_H

#include "femesh.h"
#include "ldem/mesh.h"

/* The closed surface is split by Gmsh into patches at feature edges (40°), each
 * reparametrized and remeshed at edge length about `size`, and the volume they bound is
 * filled with tets (Delaunay), of order 10 with `quadratic` (midside nodes at the edge
 * midpoints: straight-sided tets). Node numbers are Gmsh's. Gmsh's refusals (an open or self-intersecting
 * surface) are LDEM_ERR_INPUT. */
int msh_mesh_volume(const ldem_trimesh *surface, double size, int quadratic, fe_mesh *m,
                    ldem_err *err);

/* The tets of the model Gmsh holds now (msh_read.c), checked; `what` names it in errors. */
int msh_collect_model(const char *what, fe_mesh *m, ldem_err *err);

#endif
