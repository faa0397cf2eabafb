/* Mass properties of closed triangle meshes (divergence theorem) and the principal frame. */
#ifndef LSGEN_MASSPROPS_H
#define LSGEN_MASSPROPS_H

#include "ldem/err.h"
#include "ldem/mesh.h"
#include "ldem/quat.h"

typedef struct lsgen_massprops {
    double volume;
    double centroid[3];
    double inertia[3][3]; /* inertia tensor about the centroid, per unit density */
    double area;          /* surface area */
} lsgen_massprops;

/* Exact for the polyhedron the mesh bounds (signed tetrahedra about the bbox centre for
 * volume and centroid, then about the centroid itself for the second moments, so large
 * offsets lose no digits). The mesh must be oriented outward. |volume| <= 1e-12 * bbox
 * volume is LDEM_ERR_INPUT ("zero-volume mesh"), a negative volume LDEM_ERR_INPUT ("mesh is
 * inside out"), both naming `source`. */
int lsgen_mesh_mass_props(const ldem_trimesh *m, const char *source, lsgen_massprops *mp,
                          ldem_err *err);

/* Principal moments (ascending order is NOT imposed) and the rotation whose columns are the
 * principal axes, chosen among the 24 proper relabellings of the eigenvectors as the one
 * closest to the identity (largest trace; ties go to a fixed enumeration order): a grain
 * already given in principal axes keeps its axes and their order. orientation maps body to
 * geometry axes: x_geometry = centroid + rotate(orientation, x_body) (BODY convention).
 * Only the upper triangle of `inertia` is read; a non-finite entry is LDEM_ERR_INPUT. */
int lsgen_principal_frame(const double inertia[3][3], double moments[3], ldem_quat *orientation,
                          ldem_err *err);

#endif
