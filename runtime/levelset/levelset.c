/* levelset.c — level-set queries for contact (ldem/levelset.h).
 *
 * The stored grid lives in the grain's body frame; contact asks about world points. The
 * query is one rigid transform in, one trilinear sample, and the gradient rotated out. */
#include "ldem/levelset.h"

#include <math.h>

#include "ldem/grid.h"

int ldem_levelset_query(const ldem_lset *ls, ldem_vec3 xc, ldem_quat q, ldem_vec3 p,
                        double *phi, ldem_vec3 *grad)
{
    ldem_vec3 p_body = ldem_quat_rotate_inv(q, ldem_vec3_sub(p, xc));
    ldem_vec3 grad_body;
    int inside = ldem_lset_sample(ls, p_body, phi, grad ? &grad_body : NULL);
    if (grad)
        *grad = ldem_quat_rotate(q, grad_body);
    return inside;
}

static double sample_phi(const ldem_lset *ls, ldem_vec3 p)
{
    double phi;
    ldem_lset_sample(ls, p, &phi, NULL);
    return phi;
}

/* Second central difference of φ along one axis over ±h. Shifting by exactly one spacing
 * moves the trilinear stencil by one node, so this is the trilinear interpolant of the nodal
 * second differences: O(h²) accurate for a smooth distance function, no noise from the kinks
 * of the interpolant at cell faces. */
static double second_difference(const ldem_lset *ls, ldem_vec3 p, double phi_p, ldem_vec3 step,
                                double h)
{
    double plus = sample_phi(ls, ldem_vec3_add(p, step));
    double minus = sample_phi(ls, ldem_vec3_sub(p, step));
    return (plus - 2.0 * phi_p + minus) / (h * h);
}

double ldem_levelset_curvature_radius(const ldem_lset *ls, ldem_vec3 p)
{
    const double hx = ls->spacing[0], hy = ls->spacing[1], hz = ls->spacing[2];
    double phi_p = sample_phi(ls, p);
    double laplacian = second_difference(ls, p, phi_p, ldem_vec3_make(hx, 0.0, 0.0), hx) +
                       second_difference(ls, p, phi_p, ldem_vec3_make(0.0, hy, 0.0), hy) +
                       second_difference(ls, p, phi_p, ldem_vec3_make(0.0, 0.0, hz), hz);
    /* Flat (∇²φ = 0) and concave (< 0) surfaces have no finite convex radius. The float32
     * round-off of φ on a flat face can leave a tiny positive Laplacian above this threshold,
     * i.e. a huge but finite radius: callers that need a bounded R* cap it (the patch does). */
    double h = fmin(hx, fmin(hy, hz));
    if (!(laplacian > 1e-9 / h))
        return INFINITY;
    return 2.0 / laplacian;
}
