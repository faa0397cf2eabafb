/* Private to the analytic shapes (shape*.c): one table of functions per kind, as LAMMPS
 * composes its granular sub-models, and the helpers the kinds share.
 *
 * shape.c checks what is common to every kind (finite positive semi-axes) and dispatches;
 * a kind's functions may assume a shape that passed its own `validate`. */
#ifndef LSGEN_SHAPE_KINDS_H
#define LSGEN_SHAPE_KINDS_H

#include "shape.h"

/* C11 with only POSIX feature macros has no M_PI. */
#define SHAPE_PI 3.14159265358979323846

struct lsgen_shape_ops {
    const char *name;
    /* Kind-specific parameter checks (LDEM_ERR_USAGE with a message a user can act on). */
    int (*validate)(const lsgen_shape *s, ldem_err *err);
    /* Exact signed distance (negative inside); fills the closest surface point and the unit
     * gradient of the distance (the outward normal there). Neither pointer may be NULL. */
    double (*distance)(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest, ldem_vec3 *grad);
    /* Outward unit normal at a surface point (lsgen_shape_normal). */
    ldem_vec3 (*normal)(const lsgen_shape *s, ldem_vec3 p);
    void (*mass)(const lsgen_shape *s, lsgen_shape_mass *m);
    /* Surface nodes (shape_nodes.c): lattice cells per axis on the faces of the cube
     * [-1,1]^3 so that the mapped cells are about `spacing` wide (uniform in the cube's
     * coordinates), and the map from a point of the cube's surface (one coordinate exactly
     * +-1) onto the shape, odd in each coordinate. NULL `lattice`: shape_nodes.c places
     * the lattice lines by arc length along the faces' mapped centre lines instead. */
    void (*lattice)(const lsgen_shape *s, double spacing, long n[3]);
    ldem_vec3 (*cube_to_surface)(const lsgen_shape *s, ldem_vec3 u);
    /* Smooth kinds whose cube map spaces nodes unevenly set `gauge`, the convex gauge
     * function of the body (homogeneous of degree 1, 1 on the surface): shape_nodes.c then
     * evens the spacing by tangential smoothing with radial reprojection x / gauge(x). */
    double (*gauge)(const lsgen_shape *s, ldem_vec3 x);
};

typedef struct lsgen_shape_ops lsgen_shape_ops;

extern const lsgen_shape_ops lsgen_sphere_ops;
extern const lsgen_shape_ops lsgen_ellipsoid_ops;
extern const lsgen_shape_ops lsgen_cuboid_ops;
extern const lsgen_shape_ops lsgen_cylinder_ops;
extern const lsgen_shape_ops lsgen_superquadric_ops;

/* The table of a kind, NULL for a kind out of range. */
const lsgen_shape_ops *lsgen_shape_ops_of(int kind);

/* Cells per axis from an arc length: at least one. */
long lsgen_cells_for(double length, double spacing);

/* Equiangular cube coordinate: tan(pi/4 u), exactly +-1 at u = +-1. */
double lsgen_equiangular(double u);

#endif
