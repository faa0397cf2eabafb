/* Normals of remeshed surface nodes, taken from the finer input surface they lie on. */
#ifndef LSGEN_NODE_NORMALS_H
#define LSGEN_NODE_NORMALS_H

#include "bvh.h"
#include "ldem/err.h"
#include "ldem/mesh.h"
#include "ldem/sections.h"

/* For each node, find the input triangle that holds it (`bvh` is built over `input`) and
 * interpolate the input's angle-weighted vertex normals across it with the node's
 * barycentric coordinates (Phong). On a smooth surface this is second order in the input's
 * spacing, where the remeshed triangulation's own vertex normals are first order in the
 * coarser node spacing (3° off on a torus at r/spacing = 7). Where a corner normal of that
 * triangle leans more than feature_deg/2 from the face (a sharp edge of the input), the
 * node keeps the normal it has: interpolating across an edge would tilt flat faces. */
int lsgen_nodes_interpolate_normals(const lsgen_bvh *bvh, const ldem_trimesh *input,
                                    double feature_deg, ldem_nodes *nodes, ldem_err *err);

#endif
