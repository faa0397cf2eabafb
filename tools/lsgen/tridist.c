/* Exact geometry of one triangle: closest point (Voronoi regions of its features) and the
 * signed solid angle it subtends. See tridist.h.
 *
 * Precision: every quantity is built from the differences p − a, p − b, p − c, and the
 * residual p − q (whose length is the distance) is formed from the difference to the vertex
 * nearest to the closest point, never as p − q with q in absolute coordinates. So a triangle
 * a million units from the origin loses nothing to cancellation: the distance keeps the
 * relative precision of the coordinates' differences. */
#include "tridist.h"

#include <math.h>

#include "tridist_impl.h"

double lsgen_tri_closest(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b, ldem_vec3 c, ldem_vec3 *q,
                         int *feature)
{
    lsgen_closest r = lsgen_tri_closest_kernel(p, a, b, c);
    if (q)
        *q = ldem_vec3_sub(p, r.residual);
    if (feature)
        *feature = r.feature;
    return r.d2;
}

/* tan(Ω/2) = A·(B×C) / (|A||B||C| + (A·B)|C| + (A·C)|B| + (B·C)|A|) with A = a − p, ...;
 * atan2 keeps the right branch when the denominator turns negative (Ω beyond π). */
double lsgen_tri_solid_angle(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b, ldem_vec3 c)
{
    ldem_vec3 A = ldem_vec3_sub(a, p), B = ldem_vec3_sub(b, p), C = ldem_vec3_sub(c, p);
    double la = ldem_vec3_norm(A), lb = ldem_vec3_norm(B), lc = ldem_vec3_norm(C);
    double num = ldem_vec3_dot(A, ldem_vec3_cross(B, C));
    double den = la * lb * lc + ldem_vec3_dot(A, B) * lc + ldem_vec3_dot(A, C) * lb +
                 ldem_vec3_dot(B, C) * la;
    return 2.0 * atan2(num, den);
}
