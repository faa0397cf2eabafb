/* Exact geometry of one triangle: closest point and signed solid angle. */
#ifndef LSGEN_TRIDIST_H
#define LSGEN_TRIDIST_H

#include "ldem/vec3.h"

/* Which part of triangle (a, b, c) holds the closest point. */
enum lsgen_tri_feature {
    LSGEN_TRI_VA = 0, LSGEN_TRI_VB = 1, LSGEN_TRI_VC = 2,     /* a vertex */
    LSGEN_TRI_EAB = 3, LSGEN_TRI_EBC = 4, LSGEN_TRI_ECA = 5,  /* an edge interior */
    LSGEN_TRI_FACE = 6                                        /* the interior */
};

/* Squared distance from p to the triangle, exact up to round-off (Voronoi regions of the
 * features, Ericson §5.1.5 style, written with differences taken from the nearest vertex
 * so that large coordinates do not cancel); *q the closest point, *feature its region
 * (either may be NULL). Degenerate triangles are handled (closest point on the segments). */
double lsgen_tri_closest(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b, ldem_vec3 c, ldem_vec3 *q,
                         int *feature);

/* Signed solid angle of triangle (a, b, c) seen from p (Van Oosterom & Strackee 1983),
 * in [-2π, 2π]: positive when p lies behind the triangle, on the side opposite to its
 * normal (b−a)×(c−a). So for a closed outward-oriented mesh Σ Ω / 4π = 1 inside, 0 outside. */
double lsgen_tri_solid_angle(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b, ldem_vec3 c);

#endif
