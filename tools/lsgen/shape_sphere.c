/* Sphere of radius R = semi[0]: distance |x| - R, closest point R x/|x|. */
#include <math.h>

#include "shape_kinds.h"

static int sphere_validate(const lsgen_shape *s, ldem_err *err)
{
    if (s->semi[1] != s->semi[0] || s->semi[2] != s->semi[0])
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "sphere: semi-axes %g, %g, %g differ: expected one radius "
                            "(use an ellipsoid for different axes)",
                            s->semi[0], s->semi[1], s->semi[2]);
    return LDEM_OK;
}

static double sphere_distance(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest,
                              ldem_vec3 *grad)
{
    double R = s->semi[0], r = ldem_vec3_norm(x);
    /* The centre is equally far from every surface point: any direction will do. */
    ldem_vec3 n = r > 0.0 ? ldem_vec3_scale(x, 1.0 / r) : ldem_vec3_make(0.0, 0.0, 1.0);
    *closest = ldem_vec3_scale(n, R);
    *grad = n;
    return r - R;
}

static ldem_vec3 sphere_normal(const lsgen_shape *s, ldem_vec3 p)
{
    (void)s;
    double r = ldem_vec3_norm(p);
    return r > 0.0 ? ldem_vec3_scale(p, 1.0 / r) : ldem_vec3_make(0.0, 0.0, 1.0);
}

static void sphere_mass(const lsgen_shape *s, lsgen_shape_mass *m)
{
    double R = s->semi[0];
    m->volume = 4.0 / 3.0 * SHAPE_PI * R * R * R;
    m->inertia[0] = m->inertia[1] = m->inertia[2] = 0.4 * m->volume * R * R;
    m->area = 4.0 * SHAPE_PI * R * R;
}

/* Equiangular cube-sphere: each face spans a quarter great circle along each of its axes. */
static void sphere_lattice(const lsgen_shape *s, double spacing, long n[3])
{
    long c = lsgen_cells_for(0.5 * SHAPE_PI * s->semi[0], spacing);
    n[0] = n[1] = n[2] = c;
}

static ldem_vec3 sphere_cube_to_surface(const lsgen_shape *s, ldem_vec3 u)
{
    ldem_vec3 d = ldem_vec3_make(lsgen_equiangular(u.x), lsgen_equiangular(u.y),
                                 lsgen_equiangular(u.z));
    return ldem_vec3_scale(d, s->semi[0] / ldem_vec3_norm(d));
}

const lsgen_shape_ops lsgen_sphere_ops = {
    .name = "sphere",
    .validate = sphere_validate,
    .distance = sphere_distance,
    .normal = sphere_normal,
    .mass = sphere_mass,
    .lattice = sphere_lattice,
    .cube_to_surface = sphere_cube_to_surface,
    .gauge = NULL,
};
