/* Surface nodes from a triangulated surface: area weights and vertex normals. */
#ifndef LSGEN_SURFACE_NODES_H
#define LSGEN_SURFACE_NODES_H

#include "ldem/err.h"
#include "ldem/mesh.h"
#include "ldem/sections.h"

/* Every vertex of `surf` becomes a node: area weight = one third of the area of each
 * incident triangle (the weights sum to the mesh area exactly), normal = angle-weighted
 * average of the incident triangle normals (Thürmer & Wüthrich), triangles copied.
 * A vertex on no triangle is an error (LDEM_ERR_INPUT). `out` is overwritten. */
int lsgen_nodes_from_mesh(const ldem_trimesh *surf, ldem_nodes *out, ldem_err *err);

#endif
