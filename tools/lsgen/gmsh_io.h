/* Everything lsgen asks of Gmsh: reading surface geometry and remeshing it.
 * (Offline only: libldem and demrun never link Gmsh — docs/design.md.) */
#ifndef LSGEN_GMSH_IO_H
#define LSGEN_GMSH_IO_H

#include "child_task.h"
#include "ldem/err.h"
#include "ldem/mesh.h"

/* Start Gmsh quietly (no terminal output; its messages are collected and a Gmsh error
 * becomes the ldem_err); end releases it. begin may be called again after end. */
int lsgen_gmsh_begin(ldem_err *err);
void lsgen_gmsh_end(void);

/* The surface triangles of any file Gmsh opens: STL (ASCII or binary; checked first by
 * lsgen_stl_check), .msh (all 2-D elements; quadrangles split in two), and CAD (STEP, IGES,
 * BREP, .geo) which has no mesh yet and is meshed here with target element size
 * `mesh_size` (<= 0: the thinnest bounding-box extent / 80). Vertices are welded; orientation is left to lsgen_mesh_repair.
 * Errors name `path`: missing, unreadable or empty file, no surface: LDEM_ERR_INPUT (exit 2). */
int lsgen_gmsh_read_surface(const char *path, double mesh_size, ldem_trimesh *out,
                            ldem_err *err);

/* A new triangulation of the closed surface `in` with edges about `spacing` long
 * (Gmsh: classify surfaces with feature angle `feature_deg`, reparametrize, Frontal-Delaunay).
 * Output vertices lie on the input triangles, triangles oriented like the input. */
int lsgen_gmsh_remesh(const ldem_trimesh *in, double spacing, double feature_deg,
                      ldem_trimesh *out, ldem_err *err);

/* The same two, each in a child process of its own (its own Gmsh session: none is needed
 * here) under `budget` (child_task.h): on the time budget the child is killed and the
 * error is LDEM_ERR_INPUT "FILE: Gmsh did not finish within T s (--timeout) while ...";
 * SIGTERM, SIGINT or SIGHUP meanwhile kill the child first, then this process. The results
 * are the same bytes as in-process. `source` names the file the remeshed surface came from,
 * in errors. */
int lsgen_gmsh_read_surface_bounded(const char *path, double mesh_size,
                                    const child_budget *budget, ldem_trimesh *out,
                                    ldem_err *err);
int lsgen_gmsh_remesh_bounded(const ldem_trimesh *in, double spacing, double feature_deg,
                              const char *source, const child_budget *budget,
                              ldem_trimesh *out, ldem_err *err);

#endif
