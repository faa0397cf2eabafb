/* lsgen shapes: analytic grains with exact signed distance, closed-form mass properties and
 * an even parametric distribution of surface nodes.
 *
 * Every shape is centred at the origin with its symmetry axes along x, y, z, so its body
 * frame (docs/design.md: origin at the centre of mass, axes along principal inertia axes) is
 * the frame it is defined in. One small table of functions per kind (shape_<kind>.c) behind the
 * dispatching calls below, as LAMMPS composes its granular sub-models.
 */
#ifndef LSGEN_SHAPE_H
#define LSGEN_SHAPE_H

#include "ldem/err.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

enum lsgen_shape_kind {
    LSGEN_SPHERE = 0,
    LSGEN_ELLIPSOID,
    LSGEN_CUBOID,
    LSGEN_CYLINDER,
    LSGEN_SUPERQUADRIC,
    LSGEN_SHAPE_KINDS
};

typedef struct lsgen_shape {
    int kind;          /* enum lsgen_shape_kind */
    /* sphere: semi = (R, R, R)
     * ellipsoid: semi-axes a, b, c along x, y, z
     * cuboid: half edge lengths; `rounding` rounds every edge and corner with that radius
     *         (0: sharp), keeping the outer size (rounding <= min half edge)
     * cylinder: semi = (R, R, L/2), axis z, flat caps
     * superquadric: semi-axes a, b, c and exponents eps[0] = e1 (z, "north–south"),
     *   eps[1] = e2 (xy, "east–west"), inside-outside function
     *   F = (|x/a|^(2/e2) + |y/b|^(2/e2))^(e2/e1) + |z/c|^(2/e1), surface F = 1;
     *   0 < e1, e2 <= 2 (convex; e = 1 is an ellipsoid, e -> 0 a box). */
    double semi[3];
    double rounding;
    double eps[2];
} lsgen_shape;

/* Closed-form mass properties per unit density, about the centroid (which is the origin),
 * in the shape's frame (diagonal by symmetry). */
typedef struct lsgen_shape_mass {
    double volume;
    double inertia[3];   /* Ixx, Iyy, Izz per unit density */
    double area;         /* surface area: closed form, or quadrature to 1e-12 relative */
} lsgen_shape_mass;

const char *lsgen_shape_name(int kind);

/* Parameter checks with a message a user can act on (LDEM_ERR_USAGE). */
int lsgen_shape_validate(const lsgen_shape *s, ldem_err *err);

/* Exact signed distance to the surface (negative inside); *grad, if non-NULL, receives the
 * unit gradient of the distance (outward normal of the closest point; any unit vector on the
 * medial axis). */
double lsgen_shape_sdf(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *grad);

/* Exact closest point on the surface. */
ldem_vec3 lsgen_shape_closest(const lsgen_shape *s, ldem_vec3 x);

/* Outward unit normal at a surface point p; on an edge or corner of a sharp cuboid, the
 * normalized sum of the normals of the faces that meet there. */
ldem_vec3 lsgen_shape_normal(const lsgen_shape *s, ldem_vec3 p);

/* Axis-aligned bounding box of the shape (tight). */
void lsgen_shape_bbox(const lsgen_shape *s, ldem_vec3 *lo, ldem_vec3 *hi);

void lsgen_shape_mass_props(const lsgen_shape *s, lsgen_shape_mass *m);

/* Surface nodes about `spacing` apart, exactly on the surface, with exact outward normals,
 * area weights (barycentric share of the triangles) and the triangles connecting them
 * (counter-clockwise seen from outside, a closed 2-manifold). `out` is overwritten. */
int lsgen_shape_nodes(const lsgen_shape *s, double spacing, ldem_nodes *out, ldem_err *err);

#endif
