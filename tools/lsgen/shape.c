/* Analytic shapes: the checks common to every kind and the dispatch to the kind's table
 * (shape_kinds.h; one file per kind). */
#include "shape.h"

#include <math.h>

#include "shape_kinds.h"

static const lsgen_shape_ops *const kinds[LSGEN_SHAPE_KINDS] = {
    [LSGEN_SPHERE] = &lsgen_sphere_ops,
    [LSGEN_ELLIPSOID] = &lsgen_ellipsoid_ops,
    [LSGEN_CUBOID] = &lsgen_cuboid_ops,
    [LSGEN_CYLINDER] = &lsgen_cylinder_ops,
    [LSGEN_SUPERQUADRIC] = &lsgen_superquadric_ops,
};

const lsgen_shape_ops *lsgen_shape_ops_of(int kind)
{
    return kind >= 0 && kind < LSGEN_SHAPE_KINDS ? kinds[kind] : NULL;
}

const char *lsgen_shape_name(int kind)
{
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(kind);
    return ops ? ops->name : "unknown shape";
}

long lsgen_cells_for(double length, double spacing)
{
    double n = floor(length / spacing + 0.5);
    return n < 1.0 ? 1 : (long)n;
}

double lsgen_equiangular(double u)
{
    /* tan(pi/4) rounds to 1 - 2^-53: the cube's faces must map exactly onto themselves so
     * that a node on a cube edge is computed identically from both faces. */
    if (u >= 1.0)
        return 1.0;
    if (u <= -1.0)
        return -1.0;
    return tan(0.25 * SHAPE_PI * u);
}

int lsgen_shape_validate(const lsgen_shape *s, ldem_err *err)
{
    if (!s)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "no shape given");
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    if (!ops)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "unknown shape kind %d: expected sphere, ellipsoid, cuboid, "
                            "cylinder or superquadric", s->kind);
    static const char axis[3] = {'x', 'y', 'z'};
    for (int d = 0; d < 3; d++)
        if (!(isfinite(s->semi[d]) && s->semi[d] > 0.0))
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "%s: the %c size is %g: expected a finite positive length",
                                ops->name, axis[d], s->semi[d]);
    /* Beyond this ratio the distance arithmetic loses the digits the level set needs. */
    double lo = fmin(s->semi[0], fmin(s->semi[1], s->semi[2]));
    double hi = fmax(s->semi[0], fmax(s->semi[1], s->semi[2]));
    if (hi > 1e6 * lo)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "%s: sizes %g and %g differ by more than a factor 1e6: "
                            "expected a less extreme aspect ratio", ops->name, lo, hi);
    return ops->validate(s, err);
}

double lsgen_shape_sdf(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *grad)
{
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    ldem_vec3 p, g;
    if (!ops) {
        if (grad)
            *grad = ldem_vec3_make(NAN, NAN, NAN);
        return NAN;
    }
    double d = ops->distance(s, x, &p, &g);
    if (grad)
        *grad = g;
    return d;
}

ldem_vec3 lsgen_shape_closest(const lsgen_shape *s, ldem_vec3 x)
{
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    ldem_vec3 p, g;
    if (!ops)
        return ldem_vec3_make(NAN, NAN, NAN);
    ops->distance(s, x, &p, &g);
    return p;
}

ldem_vec3 lsgen_shape_normal(const lsgen_shape *s, ldem_vec3 p)
{
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    return ops ? ops->normal(s, p) : ldem_vec3_make(NAN, NAN, NAN);
}

void lsgen_shape_bbox(const lsgen_shape *s, ldem_vec3 *lo, ldem_vec3 *hi)
{
    /* Every kind is centred and reaches its semi-axis along each axis (sphere, ellipsoid,
     * superquadric at the tips, cuboid at the faces, cylinder at the side and the caps). */
    *hi = ldem_vec3_make(s->semi[0], s->semi[1], s->semi[2]);
    *lo = ldem_vec3_neg(*hi);
}

void lsgen_shape_mass_props(const lsgen_shape *s, lsgen_shape_mass *m)
{
    const lsgen_shape_ops *ops = lsgen_shape_ops_of(s->kind);
    if (!ops) {
        m->volume = m->area = NAN;
        m->inertia[0] = m->inertia[1] = m->inertia[2] = NAN;
        return;
    }
    ops->mass(s, m);
}
