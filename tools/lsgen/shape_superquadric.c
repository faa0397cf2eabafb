/* Superquadric (Barr): semi-axes a, b, c and exponents e1 (north-south) and e2 (east-west),
 *     F(x) = (|x/a|^(2/e2) + |y/b|^(2/e2))^(e2/e1) + |z/c|^(2/e1),   surface F = 1.
 * With q1 = 2/e1 and q2 = 2/e2 the gauge g = F^(1/q1) is a nested q-norm of (x/a, y/b, z/c)
 * (homogeneous of degree 1, convex for e1, e2 <= 2), so x / g(x) is the surface point on
 * the ray through x.
 *
 * Closest point (no closed form). By the three mirror symmetries we work in the closed
 * positive octant with y = |x|: mirroring a surface point into y's octant never moves it
 * away from y. The surface is a product of two superellipses: a profile (rho, zeta) on
 * rho^q1 + zeta^q1 = 1 and a cross-section gamma on |u|^q2 + |v|^q2 = 1, with
 * p = (a rho gamma_1, b rho gamma_2, c zeta). Each curve gets a parameter (sigma, phi) in
 * which it is smooth where it matters (curve_eval): the polar angle for q >= 2, and for
 * a creased curve (q < 2, an exponent e > 1: the normal turns through a finite angle
 * within a vanishing length at each axis) also the angle of the normal ("dual" chart).
 * The closest point is a local minimum of f = |p(sigma, phi) - y|^2 / 2, found by Newton's
 * method in (sigma, phi) with the exact Hessian of f (from the curves' first and second
 * derivatives), safeguarded:
 *   - negative or tiny eigenvalues of the 2x2 Hessian are replaced by their magnitude
 *     (floored relative to the largest) so that every step descends, and a step turns the
 *     angles by a quarter radian at most;
 *   - a step is accepted on sufficient decrease of f (Armijo, halving the step), or, where
 *     rounding hides the decrease of a converging step (f ~ |r| L 1e-16), on the gradient
 *     halving without f growing; a full step that decreased f is doubled while f keeps
 *     falling (next to a crease f varies like a high power of the angle and Newton's
 *     steps fall short by a constant factor);
 *   - it stops when a step moves p by less than 1e-14 of the size: Newton's quadratic
 *     convergence then leaves p accurate to rounding.
 * For a creased shape each start runs first in the dual charts, where a closest point on
 * or beside a crease (outside the body) is a regular minimum, then, unless that converged
 * (a full Newton step moving p by less than 1e-14 of the size), in the primal charts from
 * its result, where a point whose position rather than normal is pinned down (inside,
 * beside the crease of an almost flat face) is.
 *
 * Starting points. Outside the body, f has one minimum (the projection onto a convex set)
 * and it is certified: y - p along +n at a critical point p means p is the projection.
 * Newton runs from the radial projection y / g(y); should the certificate fail, the
 * interior starting points below are tried as well. Inside, several local minima exist
 * (a box-like body's faces, or the two sides of a medial sheet), so Newton runs from
 *   - y / g(y),
 *   - the three axis shifts: y moved along +x, +y or +z onto the surface (the nearest
 *     point of the face ahead for box-like bodies; off a symmetry plane y lies on),
 *   - the direction (1/a, 1/b, 1/c) projected (the face centre of octahedral bodies),
 * and the nearest result wins (among results equal to rounding, the most stationary).
 * Critical points that Newton cannot leave (y and p on the same symmetry plane or axis)
 * are why the off-plane starts are there. The tests compare this with a brute-force
 * minimization over a dense surface sampling (agreement ~1e-15 of the size).
 *
 * Mass properties (Jaklic, Leonardis & Solina, "Segmentation and Recovery of
 * Superquadrics", 2000, ch. 2): the octant moments
 *     M(m, n, l) = int X^m Y^n Z^l dX dY dZ  over {F <= 1, X, Y, Z >= 0} (unit axes)
 *                = I2(m, n) B((l+1)/q1, (m+n+2)/q1 + 1) / q1,
 *     I2(m, n)   = G((m+1)/q2) G((n+1)/q2) / (q2^2 G(1 + (m+n+2)/q2))
 * (a superellipse cross-section of radius rho(Z) = (1 - Z^q1)^(1/q1) integrated over Z).
 * Area: no closed form; tanh-sinh quadrature of the parametric area element (below). */
#include <math.h>
#include <stdlib.h>

#include "shape_kinds.h"

#define SQ_EPS_MIN 0.2
#define SQ_EPS_MAX 1.9

static int superquadric_validate(const lsgen_shape *s, ldem_err *err)
{
    static const char *const which[2] = {"e1 (north-south)", "e2 (east-west)"};
    for (int i = 0; i < 2; i++)
        if (!(s->eps[i] >= SQ_EPS_MIN && s->eps[i] <= SQ_EPS_MAX))
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "superquadric: exponent %s = %g: expected %g <= e <= %g "
                                "(convex shapes from nearly a box, e = %g, over the "
                                "ellipsoid, e = 1, to nearly an octahedron, e = %g)",
                                which[i], s->eps[i], SQ_EPS_MIN, SQ_EPS_MAX, SQ_EPS_MIN,
                                SQ_EPS_MAX);
    return LDEM_OK;
}

typedef struct sq {
    double a[3];   /* semi-axes */
    double q1, q2; /* 2/e1, 2/e2 */
    double size;   /* largest semi-axis */
} sq;

static sq sq_of(const lsgen_shape *s)
{
    sq q;
    for (int i = 0; i < 3; i++)
        q.a[i] = s->semi[i];
    q.q1 = 2.0 / s->eps[0];
    q.q2 = 2.0 / s->eps[1];
    q.size = fmax(q.a[0], fmax(q.a[1], q.a[2]));
    return q;
}

/* Gauge of v >= 0 (componentwise), scaled by its largest component so that the powers
 * neither overflow far away nor underflow near the centre. */
static double sq_gauge_octant(const sq *q, const double v[3])
{
    double X = v[0] / q->a[0], Y = v[1] / q->a[1], Z = v[2] / q->a[2];
    double m = fmax(X, fmax(Y, Z));
    if (!(m > 0.0))
        return 0.0;
    X /= m;
    Y /= m;
    Z /= m;
    double A = pow(X, q->q2) + pow(Y, q->q2);
    double F = pow(A, q->q1 / q->q2) + pow(Z, q->q1);
    return m * pow(F, 1.0 / q->q1);
}

static double superquadric_gauge(const lsgen_shape *s, ldem_vec3 x)
{
    sq q = sq_of(s);
    const double v[3] = {fabs(x.x), fabs(x.y), fabs(x.z)};
    return sq_gauge_octant(&q, v);
}

/* Radial projection of v >= 0 (v != 0) onto the surface. */
static void sq_radial(const sq *q, const double v[3], double p[3])
{
    double g = sq_gauge_octant(q, v);
    for (int i = 0; i < 3; i++)
        p[i] = v[i] / g;
}

/* Outward gradient of F at p >= 0, in the bounded forms
 *   F_X = q1 R^(q1-1) xi^(q2-1),  F_Y = q1 R^(q1-1) upsilon^(q2-1),  F_Z = q1 Z^(q1-1),
 * R = (X^q2 + Y^q2)^(1/q2), xi = X/R, upsilon = Y/R <= 1 (finite at the pole R = 0). */
static void sq_gradient(const sq *q, const double p[3], double grad[3])
{
    const double q1 = q->q1, q2 = q->q2;
    double X = p[0] / q->a[0], Y = p[1] / q->a[1], Z = p[2] / q->a[2];
    double R = pow(pow(X, q2) + pow(Y, q2), 1.0 / q2);
    double xi = R > 0.0 ? X / R : 0.0, up = R > 0.0 ? Y / R : 0.0;
    double R1 = pow(R, q1 - 1.0);
    grad[0] = q1 * R1 * pow(xi, q2 - 1.0) / q->a[0];
    grad[1] = q1 * R1 * pow(up, q2 - 1.0) / q->a[1];
    grad[2] = q1 * pow(Z, q1 - 1.0) / q->a[2];
}

static double dot3(const double u[3], const double v[3])
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

static double dist2(const double u[3], const double v[3])
{
    double d0 = u[0] - v[0], d1 = u[1] - v[1], d2 = u[2] - v[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

static void unit_normal(const sq *q, const double p[3], double n[3])
{
    sq_gradient(q, p, n);
    double len = sqrt(dot3(n, n));
    for (int i = 0; i < 3; i++)
        n[i] /= len;
}

/* ---- the surface as a product of two superellipses (file comment) */

/* The unit superellipse |u|^q + |v|^q = 1 as C(t) = W(t) / (|W1|^q + |W2|^q)^(1/q), for
 * every real t (period 2 pi, mirror-symmetric), in one of two parametrizations:
 *  - primal, W = (cos t, sin t): t is the polar angle. C^2 for q >= 2 (flat at the axes);
 *    for q < 2 the curve has a crease at each axis, where C'' is infinite;
 *  - dual (q < 2 only), W = (|c|^(r-2) c, |s|^(r-2) s) with the dual exponent r = q/(q-1):
 *    t is the angle of the normal, so that a crease, where the normal turns through a
 *    finite angle within a vanishing length, is spread over a finite range of t. There the
 *    position barely moves with t (like t^(r-1)). */
typedef struct sq_curve {
    double q;    /* exponent of the curve */
    double r;    /* exponent of the P below: q, or the dual q/(q-1) */
    int dual;
} sq_curve;

static sq_curve curve_of(double q, int dual)
{
    sq_curve cv;
    cv.q = q;
    cv.dual = dual && q < 2.0;
    cv.r = cv.dual ? q / (q - 1.0) : q;
    return cv;
}

/* Point C and derivatives C', C'' at t. */
static void curve_eval(const sq_curve *cv, double t, double C[2], double C1[2], double C2[2])
{
    double c = cos(t), s = sin(t), ac = fabs(c), as = fabs(s), r = cv->r;
    double W[2], W1[2], W2[2];
    /* The floor keeps |c|^(r-2) finite for r < 2 (primal, creased); multiplied by c^2 it
     * still gives |c|^r to the last bit. */
    double cr2 = pow(fmax(ac, 1e-150), r - 2.0), sr2 = pow(fmax(as, 1e-150), r - 2.0);
    if (!cv->dual) {
        W[0] = c;
        W[1] = s;
        W1[0] = -s;
        W1[1] = c;
        W2[0] = -c;
        W2[1] = -s;
    } else {
        /* |c|^(r-4) c s^2 = |c|^(r-3) sgn(c) s^2 is singular at c = 0 for r < 3; it only
         * enters the tangential part of C'' (see file comment), kept finite by a floor. */
        double cr3 = copysign(pow(fmax(ac, 1e-150), r - 3.0), c);
        double sr3 = copysign(pow(fmax(as, 1e-150), r - 3.0), s);
        W[0] = cr2 * c;
        W[1] = sr2 * s;
        W1[0] = -(r - 1.0) * cr2 * s;
        W1[1] = (r - 1.0) * sr2 * c;
        W2[0] = (r - 1.0) * ((r - 2.0) * cr3 * s * s - cr2 * c);
        W2[1] = (r - 1.0) * ((r - 2.0) * sr3 * c * c - sr2 * s);
    }
    /* P = |W1|^q + |W2|^q = |c|^r + |s|^r in both cases. */
    double P = cr2 * c * c + sr2 * s * s;
    double P1 = r * (sr2 - cr2) * c * s;
    double P2 = r * (sr2 * ((r - 1.0) * c * c - s * s) + cr2 * ((r - 1.0) * s * s - c * c));
    double k = 1.0 / cv->q, K = pow(P, -k);
    double K1 = -k * K / P * P1;
    double K2 = -k * K / P * P2 + k * (k + 1.0) * K / (P * P) * P1 * P1;
    for (int i = 0; i < 2; i++) {
        C[i] = W[i] * K;
        C1[i] = W1[i] * K + W[i] * K1;
        C2[i] = W2[i] * K + 2.0 * W1[i] * K1 + W[i] * K2;
    }
}

/* Parameter of the curve point (u, v) >= 0 (inverse of curve_eval in the quadrant). */
static double curve_param(const sq_curve *cv, double u, double v)
{
    if (cv->dual)
        return atan2(pow(v, cv->q - 1.0), pow(u, cv->q - 1.0));
    return atan2(v, u);
}

/* A surface point with derivatives in the parameters (sigma, phi): profile
 * (rho, zeta) = C_q1(sigma), cross-section gamma = C_q2(phi),
 * p = (a rho gamma_1, b rho gamma_2, c zeta), in a chart (choice of parametrizations). */
typedef struct sq_chart {
    sq_curve prof, cross;
} sq_chart;

static sq_chart chart_of(const sq *q, int dual)
{
    sq_chart ch;
    ch.prof = curve_of(q->q1, dual);
    ch.cross = curve_of(q->q2, dual);
    return ch;
}

typedef struct sq_param {
    double sigma, phi;
    double p[3], ps[3], pf[3], pss[3], psf[3], pff[3];
} sq_param;

static void param_eval(const sq *q, const sq_chart *ch, sq_param *x)
{
    double P[2], P1[2], P2[2], G[2], G1[2], G2[2];
    curve_eval(&ch->prof, x->sigma, P, P1, P2);
    curve_eval(&ch->cross, x->phi, G, G1, G2);
    for (int i = 0; i < 2; i++) {
        double a = q->a[i];
        x->p[i] = a * P[0] * G[i];
        x->ps[i] = a * P1[0] * G[i];
        x->pf[i] = a * P[0] * G1[i];
        x->pss[i] = a * P2[0] * G[i];
        x->psf[i] = a * P1[0] * G1[i];
        x->pff[i] = a * P[0] * G2[i];
    }
    double c = q->a[2];
    x->p[2] = c * P[1];
    x->ps[2] = c * P1[1];
    x->pf[2] = 0.0;
    x->pss[2] = c * P2[1];
    x->psf[2] = 0.0;
    x->pff[2] = 0.0;
}

/* Parameters of a surface point p >= 0. */
static void param_of(const sq *q, const sq_chart *ch, const double p[3], sq_param *x)
{
    double X = p[0] / q->a[0], Y = p[1] / q->a[1], Z = p[2] / q->a[2];
    double rho = pow(pow(X, q->q2) + pow(Y, q->q2), 1.0 / q->q2);
    x->phi = rho > 0.0 ? curve_param(&ch->cross, X / rho, Y / rho) : 0.25 * SHAPE_PI;
    x->sigma = curve_param(&ch->prof, rho, Z);
}

/* f = |p - y|^2 / 2 with gradient and Hessian in (sigma, phi). */
typedef struct sq_eval {
    double f, g[2], H[2][2];
} sq_eval;

static void objective(const sq_param *x, const double y[3], sq_eval *e)
{
    double r[3] = {x->p[0] - y[0], x->p[1] - y[1], x->p[2] - y[2]};
    e->f = 0.5 * dot3(r, r);
    e->g[0] = dot3(r, x->ps);
    e->g[1] = dot3(r, x->pf);
    e->H[0][0] = dot3(x->ps, x->ps) + dot3(r, x->pss);
    e->H[0][1] = e->H[1][0] = dot3(x->ps, x->pf) + dot3(r, x->psf);
    e->H[1][1] = dot3(x->pf, x->pf) + dot3(r, x->pff);
}

/* Newton step -H'^-1 g with the eigenvalues of H replaced by their magnitude, floored
 * relative to the largest. */
static void newton_step(const sq_eval *e, double d[2])
{
    double m11 = e->H[0][0], m12 = e->H[0][1], m22 = e->H[1][1];
    double mean = 0.5 * (m11 + m22), rad = hypot(0.5 * (m11 - m22), m12);
    double l1 = mean + rad, l2 = mean - rad;
    double ex = m11 - l2, ey = m12;
    if (fabs(m22 - l2) > fabs(ex)) {
        ex = m12;
        ey = m22 - l2;
    }
    double el = hypot(ex, ey);
    if (el > 0.0) {
        ex /= el;
        ey /= el;
    } else {
        ex = 1.0;
        ey = 0.0;
    }
    double big = fmax(fabs(l1), fabs(l2)), floor_ = fmax(1e-10 * big, 1e-300);
    double m1 = fmax(fabs(l1), floor_), m2 = fmax(fabs(l2), floor_);
    double c1 = ex * e->g[0] + ey * e->g[1], c2 = -ey * e->g[0] + ex * e->g[1];
    d[0] = -(c1 * ex / m1 - c2 * ey / m2);
    d[1] = -(c1 * ey / m1 + c2 * ex / m2);
}

/* Newton's method in (sigma, phi) from x to a local minimum of |p - y|^2. Returns 1 if it
 * ended on a full Newton step that moved p by less than 1e-14 of the size (converged). */
static int sq_descend(const sq *q, const sq_chart *ch, const double y[3], sq_param *x)
{
    const double L = q->size;
    sq_eval e;
    param_eval(q, ch, x);
    objective(x, y, &e);
    for (int it = 0; it < 100; it++) {
        double d[2];
        newton_step(&e, d);
        /* A trust region in the angles: a quarter radian at most. */
        double dl = hypot(d[0], d[1]);
        if (dl > 0.25) {
            d[0] *= 0.25 / dl;
            d[1] *= 0.25 / dl;
        }
        double moves = fabs(d[0]) * sqrt(dot3(x->ps, x->ps)) + fabs(d[1]) * sqrt(dot3(x->pf, x->pf));
        if (!(moves > 1e-15 * L))
            return 1;
        double slope = e.g[0] * d[0] + e.g[1] * d[1], gn = hypot(e.g[0], e.g[1]);
        double curv = d[0] * (e.H[0][0] * d[0] + e.H[0][1] * d[1]) +
                      d[1] * (e.H[1][0] * d[0] + e.H[1][1] * d[1]);
        /* Rounding in p (~1e-16 L) moves f = |r|^2/2 by about |r| L 1e-16. */
        const double noise = 4e-16 * (sqrt(2.0 * e.f) * L + e.f);
        sq_param t = *x;
        sq_eval et;
        int accepted = 0;
        double alpha = 1.0;
        for (; alpha > 1e-10; alpha *= 0.5) {
            t.sigma = x->sigma + alpha * d[0];
            t.phi = x->phi + alpha * d[1];
            param_eval(q, ch, &t);
            objective(&t, y, &et);
            /* Sufficient decrease, or, where f can no longer resolve the progress of a
             * converging Newton step (convex along it), a halved gradient at no loss. */
            if (et.f <= e.f + 1e-4 * alpha * slope ||
                (curv > 0.0 && alpha == 1.0 && et.f <= e.f + noise &&
                 hypot(et.g[0], et.g[1]) <= 0.5 * gn)) {
                accepted = 1;
                break;
            }
        }
        if (!accepted)
            return 0;
        /* Near a crease, f varies like a high power of the angle and a Newton step falls
         * short by a constant factor: extend it while f keeps falling. */
        if (alpha == 1.0 && et.f < e.f - noise)
            for (int k = 0; k < 6; k++) {
                sq_param u = t;
                sq_eval eu;
                u.sigma = x->sigma + 2.0 * (t.sigma - x->sigma);
                u.phi = x->phi + 2.0 * (t.phi - x->phi);
                param_eval(q, ch, &u);
                objective(&u, y, &eu);
                if (!(eu.f < et.f - noise))
                    break;
                t = u;
                et = eu;
            }
        double moved = sqrt(dist2(t.p, x->p));
        *x = t;
        e = et;
        if (moved <= 1e-14 * L)
            return alpha == 1.0;
    }
    return 0;
}

/* The point of the surface reached from y >= 0 along +axis, if y's line along that axis
 * meets the surface on the positive side of the plane (always, for y inside). */
static int sq_axis_shift(const sq *q, const double y[3], int axis, double p[3])
{
    const double q1 = q->q1, q2 = q->q2;
    double X = y[0] / q->a[0], Y = y[1] / q->a[1], Z = y[2] / q->a[2], t;
    if (axis == 2) {
        double rest = 1.0 - pow(pow(X, q2) + pow(Y, q2), q1 / q2);
        if (!(rest >= 0.0))
            return 0;
        t = pow(rest, 1.0 / q1);
    } else {
        double other = axis == 0 ? Y : X;
        double rest = 1.0 - pow(Z, q1);
        if (!(rest >= 0.0))
            return 0;
        rest = pow(rest, q2 / q1) - pow(other, q2);
        if (!(rest >= 0.0))
            return 0;
        t = pow(rest, 1.0 / q2);
    }
    for (int i = 0; i < 3; i++)
        p[i] = y[i];
    p[axis] = t * q->a[axis];
    return 1;
}

/* The best local minimum so far: the nearest, and among results equally near to rounding
 * (a critical point Newton cannot leave, such as a point on a symmetry plane, ties with
 * the minimum next to it) the one closest to stationary. */
typedef struct sq_best {
    sq_param x;
    double f, residual;
} sq_best;

static void sq_offer(const sq *q, const double y[3], const sq_param *x, sq_best *best)
{
    double p[3] = {fabs(x->p[0]), fabs(x->p[1]), fabs(x->p[2])}, n[3];
    double f = dist2(p, y);
    unit_normal(q, p, n);
    double r[3] = {p[0] - y[0], p[1] - y[1], p[2] - y[2]}, rn = dot3(r, n);
    for (int i = 0; i < 3; i++)
        r[i] -= rn * n[i];
    double residual = sqrt(dot3(r, r)), tie = 4e-16 * (sqrt(f) * q->size + f);
    if (f < best->f - tie || (f <= best->f + tie && residual < best->residual)) {
        best->x = *x;
        best->f = f;
        best->residual = residual;
    }
}

static void sq_consider(const sq *q, const double y[3], const double seed[3], sq_best *best)
{
    /* Creased curves (q < 2): first in the dual chart, where a closest point on or near a
     * crease (outside the body) is a regular minimum, then in the primal chart, where a
     * point whose position rather than normal is pinned down (inside, near a crease of a
     * flat face) is; the second run starts at the first one's result. */
    int creased = q->q1 < 2.0 || q->q2 < 2.0;
    double p[3];
    for (int i = 0; i < 3; i++)
        p[i] = seed[i];
    for (int dual = creased; dual >= 0; dual--) {
        sq_chart ch = chart_of(q, dual);
        sq_param x;
        param_of(q, &ch, p, &x);
        int converged = sq_descend(q, &ch, y, &x);
        sq_offer(q, y, &x, best);
        if (converged)
            break;
        for (int i = 0; i < 3; i++)
            p[i] = fabs(x.p[i]);
    }
}

/* Closest point of the surface to y >= 0; returns |p - y| and fills p (>= 0) and the
 * outward normal there. */
static double sq_closest(const sq *q, const double y[3], int inside, double p[3], double n[3])
{
    sq_best best;
    best.f = best.residual = INFINITY;
    double seed[3];
    int nonzero = y[0] > 0.0 || y[1] > 0.0 || y[2] > 0.0;
    if (nonzero) {
        sq_radial(q, y, seed);
        sq_consider(q, y, seed, &best);
    }
    int certified = 0;
    if (!inside && nonzero) {
        /* Projection onto a convex body: y - p along the outward normal. */
        double pp[3] = {fabs(best.x.p[0]), fabs(best.x.p[1]), fabs(best.x.p[2])}, nn[3];
        unit_normal(q, pp, nn);
        double r[3] = {y[0] - pp[0], y[1] - pp[1], y[2] - pp[2]};
        double rl = sqrt(dot3(r, r));
        certified = rl <= 1e-14 * q->size || dot3(r, nn) >= (1.0 - 1e-10) * rl;
    }
    if (!certified) {
        for (int axis = 0; axis < 3; axis++)
            if (sq_axis_shift(q, y, axis, seed))
                sq_consider(q, y, seed, &best);
        const double diag[3] = {1.0 / q->a[0], 1.0 / q->a[1], 1.0 / q->a[2]};
        sq_radial(q, diag, seed);
        sq_consider(q, y, seed, &best);
        if (!inside) {
            /* Outside, the clamped point's projection is another start near the answer. */
            double c[3];
            for (int i = 0; i < 3; i++)
                c[i] = fmin(y[i], q->a[i]);
            if (c[0] > 0.0 || c[1] > 0.0 || c[2] > 0.0) {
                sq_radial(q, c, seed);
                sq_consider(q, y, seed, &best);
            }
        }
    }
    /* A point of a symmetry plane whose closest point lies on the plane to rounding gets
     * it exactly there: across a crease (exponent > 1) the normal turns within a vanishing
     * distance, and 1e-20 off the plane it would already be tilted. */
    for (int i = 0; i < 3; i++) {
        p[i] = fabs(best.x.p[i]);
        if (y[i] == 0.0 && p[i] <= 1e-12 * q->a[i])
            p[i] = 0.0;
    }
    unit_normal(q, p, n);
    return sqrt(dist2(p, y));
}

static double sign_of(double v)
{
    return v < 0.0 ? -1.0 : 1.0;
}

static double superquadric_distance(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest,
                                    ldem_vec3 *grad)
{
    sq q = sq_of(s);
    const double y[3] = {fabs(x.x), fabs(x.y), fabs(x.z)};
    int inside = sq_gauge_octant(&q, y) < 1.0;
    double p[3], n[3];
    double d = sq_closest(&q, y, inside, p, n);
    /* Outside, the gradient is the direction from the closest point: the normal there in
     * exact arithmetic, and the right limit where p sits on a sharp ridge (e > 1). Close
     * to the surface the normal itself is the more accurate. */
    if (!inside && d > 1e-6 * q.size)
        for (int i = 0; i < 3; i++)
            n[i] = (y[i] - p[i]) / d;
    *closest = ldem_vec3_make(sign_of(x.x) * p[0], sign_of(x.y) * p[1], sign_of(x.z) * p[2]);
    *grad = ldem_vec3_make(sign_of(x.x) * n[0], sign_of(x.y) * n[1], sign_of(x.z) * n[2]);
    return inside ? -d : d;
}

static ldem_vec3 superquadric_normal(const lsgen_shape *s, ldem_vec3 p)
{
    sq q = sq_of(s);
    const double v[3] = {fabs(p.x), fabs(p.y), fabs(p.z)};
    double grad[3];
    sq_gradient(&q, v, grad);
    ldem_vec3 n = ldem_vec3_make(sign_of(p.x) * grad[0], sign_of(p.y) * grad[1],
                                 sign_of(p.z) * grad[2]);
    double len = ldem_vec3_norm(n);
    return len > 0.0 ? ldem_vec3_scale(n, 1.0 / len) : ldem_vec3_make(0.0, 0.0, 1.0);
}

/* ---- mass properties */

static double beta_fn(double x, double y)
{
    return exp(lgamma(x) + lgamma(y) - lgamma(x + y));
}

/* Octant moment M(m, n, l) of the unit-axes superquadric (header comment). */
static double sq_moment(double q1, double q2, int m, int n, int l)
{
    double i2 = exp(lgamma((m + 1) / q2) + lgamma((n + 1) / q2) - lgamma(1.0 + (m + n + 2) / q2)) /
                (q2 * q2);
    return i2 * beta_fn((l + 1) / q1, (m + n + 2) / q1 + 1.0) / q1;
}

/* Tanh-sinh (double exponential) nodes for an angle integral over [0, pi/2]: each node
 * carries the cosine and sine of its angle computed from the distance to the nearer end
 * point, so that the power singularities of the integrand there are resolved to the last
 * node (about 1e-250 from the end). */
typedef struct ts_node {
    double c, s, w;
} ts_node;

#define TS_MAX_NODES 8192

static int ts_nodes(double h, ts_node *nodes)
{
    const double half_pi = 0.5 * SHAPE_PI;
    int count = 0;
    for (int k = 0; count + 2 <= TS_MAX_NODES; k++) {
        double tau = k * h, sh = half_pi * sinh(tau), e = exp(-2.0 * sh);
        double near = e / (1.0 + e); /* distance of the node from its end of [0, 1] */
        double w = h * SHAPE_PI * cosh(tau) * e / ((1.0 + e) * (1.0 + e)) * half_pi;
        if (near < 1e-250)
            break;
        double cn = cos(half_pi * near), sn = sin(half_pi * near);
        nodes[count++] = (ts_node){cn, sn, w};       /* angle near 0 */
        if (k > 0)
            nodes[count++] = (ts_node){sn, cn, w};   /* angle near pi/2 */
    }
    return count;
}

/* Area with the parametrization x = a C(eta)^e1 C(w)^e2, y = b C(eta)^e1 S(w)^e2,
 * z = c S(eta)^e1 over the octant (eta, w in [0, pi/2]); the area element works out to
 *   e1 e2 C^(2e1-1) S^(e1-1) (Cw Sw)^(e2-1)
 *     * sqrt(c^2 C^(4-2e1) (b^2 Cw^(4-2e2) + a^2 Sw^(4-2e2)) + a^2 b^2 S^(4-2e1)),
 * power singularities at the ends times a smooth positive factor: tanh-sinh converges
 * exponentially. The node spacing is halved until two levels agree to 1e-14. */
static double sq_area(const lsgen_shape *s)
{
    ts_node *nodes = malloc(TS_MAX_NODES * sizeof *nodes);
    if (!nodes)
        return NAN;
    const double a = s->semi[0], b = s->semi[1], c = s->semi[2];
    const double e1 = s->eps[0], e2 = s->eps[1];
    double prev = 0.0, area = 0.0;
    for (double h = 1.0 / 8.0; h >= 1.0 / 512.0; h *= 0.5) {
        int count = ts_nodes(h, nodes);
        area = 0.0;
        for (int i = 0; i < count; i++) {
            double ce = nodes[i].c, se = nodes[i].s;
            double we = nodes[i].w * pow(ce, 2.0 * e1 - 1.0) * pow(se, e1 - 1.0);
            double P = c * c * pow(ce, 4.0 - 2.0 * e1), Q = a * a * b * b * pow(se, 4.0 - 2.0 * e1);
            double row = 0.0;
            for (int j = 0; j < count; j++) {
                double cw = nodes[j].c, sw = nodes[j].s;
                double ww = nodes[j].w * pow(cw * sw, e2 - 1.0);
                double B = b * b * pow(cw, 4.0 - 2.0 * e2) + a * a * pow(sw, 4.0 - 2.0 * e2);
                row += ww * sqrt(P * B + Q);
            }
            area += we * row;
        }
        area *= 8.0 * e1 * e2;
        if (h < 1.0 / 8.0 && fabs(area - prev) <= 1e-14 * area)
            break;
        prev = area;
    }
    free(nodes);
    return area;
}

static void superquadric_mass(const lsgen_shape *s, lsgen_shape_mass *m)
{
    const double a = s->semi[0], b = s->semi[1], c = s->semi[2];
    const double q1 = 2.0 / s->eps[0], q2 = 2.0 / s->eps[1];
    double abc8 = 8.0 * a * b * c;
    m->volume = abc8 * sq_moment(q1, q2, 0, 0, 0);
    double sxx = abc8 * a * a * sq_moment(q1, q2, 2, 0, 0);
    double syy = abc8 * b * b * sq_moment(q1, q2, 0, 2, 0);
    double szz = abc8 * c * c * sq_moment(q1, q2, 0, 0, 2);
    m->inertia[0] = syy + szz;
    m->inertia[1] = sxx + szz;
    m->inertia[2] = sxx + syy;
    m->area = sq_area(s);
}

/* ---- surface nodes: the cube's faces scaled to the semi-axes and warped per axis by
 * tan(theta u)/tan(theta), theta = atan(sqrt(e)) (identity for a box-like e -> 0, the
 * equiangular map for the ellipsoid e = 1, stronger towards the octahedron's tips), then
 * projected radially. The x and y axes see e2 in the xy plane and e1 in the planes through
 * z: they take the mean. The warp shapes the lattice across each face; shape_nodes.c
 * places the lattice lines at equal arc length along the faces' centre lines and smooths
 * what unevenness remains. */
static double sq_warp(double u, double e)
{
    if (u >= 1.0)
        return 1.0;
    if (u <= -1.0)
        return -1.0;
    double theta = atan(sqrt(e));
    return tan(theta * u) / tan(theta);
}

static ldem_vec3 superquadric_cube_to_surface(const lsgen_shape *s, ldem_vec3 u)
{
    sq q = sq_of(s);
    double exy = 0.5 * (s->eps[0] + s->eps[1]);
    double w[3] = {sq_warp(u.x, exy), sq_warp(u.y, exy), sq_warp(u.z, s->eps[0])};
    double v[3], p[3];
    for (int i = 0; i < 3; i++)
        v[i] = fabs(w[i]) * q.a[i];
    sq_radial(&q, v, p);
    return ldem_vec3_make(sign_of(w[0]) * p[0], sign_of(w[1]) * p[1], sign_of(w[2]) * p[2]);
}

const lsgen_shape_ops lsgen_superquadric_ops = {
    .name = "superquadric",
    .validate = superquadric_validate,
    .distance = superquadric_distance,
    .normal = superquadric_normal,
    .mass = superquadric_mass,
    .lattice = NULL,
    .cube_to_surface = superquadric_cube_to_surface,
    .gauge = superquadric_gauge,
};
