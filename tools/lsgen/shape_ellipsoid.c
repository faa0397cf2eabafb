/* Ellipsoid with semi-axes a, b, c along x, y, z.
 *
 * Distance: D. Eberly, "Distance from a point to an ellipse, an ellipsoid, or a
 * hyperellipsoid" (Geometric Tools, 2013). In the positive octant with the axes sorted
 * e0 >= e1 >= e2, the closest point x of y satisfies y - x = t grad(x.x/e^2)/2, i.e.
 * x_i = e_i^2 y_i / (t + e_i^2), and t is the unique root on t > -e2^2 of
 *     G(t) = sum_i (e_i y_i / (t + e_i^2))^2 - 1,
 * decreasing and convex there, for interior and exterior points alike. Points with a zero
 * coordinate are the delicate ones (the root may leave that branch, or the closest point
 * may leave the symmetry plane, as it does for interior points near the centre): Eberly
 * settles them by the case analysis below. Unlike his code we solve for u = t + e2^2
 * scaled by 1/e2^2, so that the root near the pole t = -e2^2 (interior points close to the
 * plane y2 = 0) keeps its relative precision, and by Newton's method safeguarded by
 * bisection instead of pure bisection.
 *
 * Area: 4 pi abc R_G(1/a^2, 1/b^2, 1/c^2) (DLMF 19.33.1), with Carlson's R_F and R_D by
 * duplication (DLMF 19.36.1, 19.36.2). */
#include <float.h>
#include <math.h>

#include "shape_kinds.h"

static int ellipsoid_validate(const lsgen_shape *s, ldem_err *err)
{
    (void)s;
    (void)err;
    return LDEM_OK;
}

/* The root u > 0 of G(u) = sum_i (num_i / (u + den_i))^2 - 1, where den_i >= 0,
 * den[n-1] = 0 and num[n-1] > 0. G decreases from +inf and is convex, so G(num[n-1]) >= 0
 * and G(|num|) <= 0 bracket the root; Newton's step from either side lands left of it, and
 * bisection (geometric while the bracket spans decades) takes over whenever a step leaves
 * the bracket or the bracket fails to halve. */
static double secular_root(int n, const double *num, const double *den)
{
    double lo = num[n - 1], hi = 0.0;
    for (int i = 0; i < n; i++)
        hi += num[i] * num[i];
    hi = sqrt(hi);
    if (!(hi > lo))
        return lo;
    double u = lo, width = hi - lo;
    for (int it = 0; it < 400; it++) {
        double g = -1.0, dg = 0.0;
        for (int i = 0; i < n; i++) {
            double q = num[i] / (u + den[i]);
            g += q * q;
            dg -= 2.0 * q * q / (u + den[i]);
        }
        if (g > 0.0)
            lo = u;
        else if (g < 0.0)
            hi = u;
        else
            return u;
        double step = g / dg, next = u - step;
        if (fabs(step) <= 4.0 * DBL_EPSILON * u)
            return next > lo && next < hi ? next : u;
        int slow = hi - lo > 0.5 * width;
        width = hi - lo;
        if (!(next > lo && next < hi) || slow) {
            next = hi > 4.0 * lo ? sqrt(lo * hi) : 0.5 * (lo + hi);
            if (!(next > lo && next < hi))
                return u;
        }
        u = next;
    }
    return u;
}

/* Closest point (x0, x1) on the ellipse (x0/e0)^2 + (x1/e1)^2 = 1, e0 >= e1, to (y0, y1)
 * in the closed positive quadrant; returns the distance. */
static double ellipse_closest(double e0, double e1, double y0, double y1, double *x0,
                              double *x1)
{
    if (y1 > 0.0) {
        if (y0 > 0.0) {
            double r0 = (e0 / e1) * (e0 / e1);
            double num[2] = {e0 * y0 / (e1 * e1), y1 / e1};
            double den[2] = {(e0 - e1) * (e0 + e1) / (e1 * e1), 0.0};
            double u = secular_root(2, num, den);
            *x0 = r0 * y0 / (u + den[0]);
            *x1 = y1 / u;
        } else {
            *x0 = 0.0;
            *x1 = e1;
        }
    } else {
        /* On the major axis: inside the evolute's cusp the closest point leaves the axis. */
        double denom = (e0 - e1) * (e0 + e1), numer = e0 * y0;
        if (numer < denom) {
            double t = numer / denom;
            *x0 = e0 * t;
            *x1 = e1 * sqrt(1.0 - t * t);
        } else {
            *x0 = e0;
            *x1 = 0.0;
        }
    }
    return hypot(*x0 - y0, *x1 - y1);
}

/* Closest point x on the ellipsoid with semi-axes e0 >= e1 >= e2 to y >= 0. */
static void ellipsoid_closest(const double e[3], const double y[3], double x[3])
{
    if (y[2] > 0.0) {
        if (y[1] > 0.0) {
            if (y[0] > 0.0) {
                double e22 = e[2] * e[2], num[3], den[3];
                for (int i = 0; i < 3; i++) {
                    num[i] = e[i] * y[i] / e22;
                    den[i] = (e[i] - e[2]) * (e[i] + e[2]) / e22;
                }
                den[2] = 0.0;
                double u = secular_root(3, num, den);
                for (int i = 0; i < 3; i++)
                    x[i] = (e[i] / e[2]) * (e[i] / e[2]) * y[i] / (u + den[i]);
            } else {
                x[0] = 0.0;
                ellipse_closest(e[1], e[2], y[1], y[2], &x[1], &x[2]);
            }
        } else {
            x[1] = 0.0;
            if (y[0] > 0.0) {
                ellipse_closest(e[0], e[2], y[0], y[2], &x[0], &x[2]);
            } else {
                x[0] = 0.0;
                x[2] = e[2];
            }
        }
        return;
    }
    /* y2 = 0: an interior point near the centre is closest to a point off the plane. */
    double d0 = (e[0] - e[2]) * (e[0] + e[2]), d1 = (e[1] - e[2]) * (e[1] + e[2]);
    double n0 = e[0] * y[0], n1 = e[1] * y[1];
    if (n0 < d0 && n1 < d1) {
        double t0 = n0 / d0, t1 = n1 / d1, disc = 1.0 - t0 * t0 - t1 * t1;
        if (disc > 0.0) {
            x[0] = e[0] * t0;
            x[1] = e[1] * t1;
            x[2] = e[2] * sqrt(disc);
            return;
        }
    }
    x[2] = 0.0;
    ellipse_closest(e[0], e[1], y[0], y[1], &x[0], &x[1]);
}

static double ellipsoid_distance(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest,
                                 ldem_vec3 *grad)
{
    const double xv[3] = {x.x, x.y, x.z};
    /* Sort the axes in decreasing order (stable, so equal axes keep x, y, z order). */
    int perm[3] = {0, 1, 2};
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && s->semi[perm[j]] > s->semi[perm[j - 1]]; j--) {
            int t = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = t;
        }
    double e[3], y[3], c[3], inside = 0.0;
    for (int i = 0; i < 3; i++) {
        e[i] = s->semi[perm[i]];
        y[i] = fabs(xv[perm[i]]);
        inside += (y[i] / e[i]) * (y[i] / e[i]);
    }
    ellipsoid_closest(e, y, c);
    double p[3], n[3], d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        int a = perm[i];
        double sign = xv[a] < 0.0 ? -1.0 : 1.0;
        p[a] = sign * c[i];
        n[a] = p[a] / (e[i] * e[i]);
        d2 += (c[i] - y[i]) * (c[i] - y[i]);
    }
    *closest = ldem_vec3_make(p[0], p[1], p[2]);
    *grad = ldem_vec3_normalize(ldem_vec3_make(n[0], n[1], n[2]));
    double d = sqrt(d2);
    return inside < 1.0 ? -d : d;
}

static ldem_vec3 ellipsoid_normal(const lsgen_shape *s, ldem_vec3 p)
{
    ldem_vec3 n = ldem_vec3_make(p.x / (s->semi[0] * s->semi[0]),
                                 p.y / (s->semi[1] * s->semi[1]),
                                 p.z / (s->semi[2] * s->semi[2]));
    double len = ldem_vec3_norm(n);
    return len > 0.0 ? ldem_vec3_scale(n, 1.0 / len) : ldem_vec3_make(0.0, 0.0, 1.0);
}

/* ---- Carlson's symmetric integrals. Duplication x <- (x + lambda)/4 shrinks the spread
 * of the arguments fourfold per step; once every |1 - x/A| < 1e-3 the fifth-order series
 * is exact to ~1e-18. */

static double carlson_rf(double x, double y, double z)
{
    for (int it = 0; it < 64; it++) {
        double A = (x + y + z) / 3.0;
        double X = 1.0 - x / A, Y = 1.0 - y / A, Z = -(X + Y);
        if (fmax(fabs(X), fmax(fabs(Y), fabs(Z))) < 1e-3) {
            double E2 = X * Y - Z * Z, E3 = X * Y * Z;
            return (1.0 - E2 / 10.0 + E3 / 14.0 + E2 * E2 / 24.0 - 3.0 * E2 * E3 / 44.0) /
                   sqrt(A);
        }
        double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
        double lambda = sx * sy + sy * sz + sz * sx;
        x = 0.25 * (x + lambda);
        y = 0.25 * (y + lambda);
        z = 0.25 * (z + lambda);
    }
    return NAN;
}

static double carlson_rd(double x, double y, double z)
{
    double sum = 0.0, fac = 1.0;
    for (int it = 0; it < 64; it++) {
        double A = (x + y + 3.0 * z) / 5.0;
        double X = 1.0 - x / A, Y = 1.0 - y / A, Z = -(X + Y) / 3.0;
        if (fmax(fabs(X), fmax(fabs(Y), fabs(Z))) < 1e-3) {
            /* Elementary symmetric functions of (X, Y, Z, Z, Z), using X + Y + 3Z = 0. */
            double XY = X * Y, Z2 = Z * Z;
            double E2 = XY - 6.0 * Z2, E3 = (3.0 * XY - 8.0 * Z2) * Z;
            double E4 = 3.0 * (XY - Z2) * Z2, E5 = XY * Z2 * Z;
            double series = 1.0 - 3.0 * E2 / 14.0 + E3 / 6.0 + 9.0 * E2 * E2 / 88.0 -
                            3.0 * E4 / 22.0 - 9.0 * E2 * E3 / 52.0 + 3.0 * E5 / 26.0;
            return 3.0 * sum + fac * series / (A * sqrt(A));
        }
        double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
        double lambda = sx * sy + sy * sz + sz * sx;
        sum += fac / (sz * (z + lambda));
        fac *= 0.25;
        x = 0.25 * (x + lambda);
        y = 0.25 * (y + lambda);
        z = 0.25 * (z + lambda);
    }
    return NAN;
}

/* R_G(x, y, z) for positive arguments (DLMF 19.21.10), with the middle value in the third
 * slot so that (x - z)(y - z) <= 0 and nothing cancels. */
static double carlson_rg(double x, double y, double z)
{
    double v[3] = {x, y, z};
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    x = v[0];
    z = v[1];
    y = v[2];
    return 0.5 * (z * carlson_rf(x, y, z) - (x - z) * (y - z) * carlson_rd(x, y, z) / 3.0 +
                  sqrt(x * y / z));
}

static void ellipsoid_mass(const lsgen_shape *s, lsgen_shape_mass *m)
{
    double a = s->semi[0], b = s->semi[1], c = s->semi[2];
    m->volume = 4.0 / 3.0 * SHAPE_PI * a * b * c;
    m->inertia[0] = 0.2 * m->volume * (b * b + c * c);
    m->inertia[1] = 0.2 * m->volume * (a * a + c * c);
    m->inertia[2] = 0.2 * m->volume * (a * a + b * b);
    m->area = 4.0 * SHAPE_PI * a * b * c * carlson_rg(1.0 / (a * a), 1.0 / (b * b), 1.0 / (c * c));
}

/* The equiangular cube-sphere scaled by the semi-axes ("normalize, then scale"). */
static ldem_vec3 ellipsoid_cube_to_surface(const lsgen_shape *s, ldem_vec3 u)
{
    ldem_vec3 d = ldem_vec3_make(lsgen_equiangular(u.x), lsgen_equiangular(u.y),
                                 lsgen_equiangular(u.z));
    d = ldem_vec3_scale(d, 1.0 / ldem_vec3_norm(d));
    return ldem_vec3_make(s->semi[0] * d.x, s->semi[1] * d.y, s->semi[2] * d.z);
}

static double ellipsoid_gauge(const lsgen_shape *s, ldem_vec3 x)
{
    return ldem_vec3_norm(
        ldem_vec3_make(x.x / s->semi[0], x.y / s->semi[1], x.z / s->semi[2]));
}

const lsgen_shape_ops lsgen_ellipsoid_ops = {
    .name = "ellipsoid",
    .validate = ellipsoid_validate,
    .distance = ellipsoid_distance,
    .normal = ellipsoid_normal,
    .mass = ellipsoid_mass,
    .lattice = NULL,
    .cube_to_surface = ellipsoid_cube_to_surface,
    .gauge = ellipsoid_gauge,
};
