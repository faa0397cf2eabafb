/* Cuboid with half edge lengths h = semi, optionally with every edge and corner rounded by
 * a radius r <= min h: the Minkowski sum of the inner box b = h - r and a ball of radius r.
 *
 * Distance: with q = |x| - b, outside the inner box the closest point of the inner box is
 * clamp(x, -b, b) and the distance |max(q, 0)| - r; inside it the nearest face wins,
 * max_i q_i - r. Both are exact, for r = 0 too (the sharp box). */
#include <math.h>

#include "shape_kinds.h"

static int cuboid_validate(const lsgen_shape *s, ldem_err *err)
{
    double hmin = fmin(s->semi[0], fmin(s->semi[1], s->semi[2]));
    if (!(isfinite(s->rounding) && s->rounding >= 0.0 && s->rounding <= hmin))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "cuboid: rounding radius %g: expected 0 <= r <= %g (half the "
                            "shortest edge)", s->rounding, hmin);
    return LDEM_OK;
}

static double sign_of(double v)
{
    return v < 0.0 ? -1.0 : 1.0;
}

static double cuboid_distance(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest,
                              ldem_vec3 *grad)
{
    const double xv[3] = {x.x, x.y, x.z}, r = s->rounding;
    double b[3], q[3], out2 = 0.0;
    int outside = 0;
    for (int i = 0; i < 3; i++) {
        b[i] = s->semi[i] - r;
        q[i] = fabs(xv[i]) - b[i];
        if (q[i] > 0.0) {
            outside = 1;
            out2 += q[i] * q[i];
        }
    }
    double p[3], g[3], d;
    if (outside) {
        double len = sqrt(out2);
        for (int i = 0; i < 3; i++) {
            double sg = sign_of(xv[i]);
            g[i] = q[i] > 0.0 ? sg * q[i] / len : 0.0;
            p[i] = q[i] > 0.0 ? sg * b[i] + r * g[i] : xv[i];
        }
        d = len - r;
    } else {
        int k = 0;
        for (int i = 1; i < 3; i++)
            if (q[i] > q[k])
                k = i;
        for (int i = 0; i < 3; i++) {
            g[i] = 0.0;
            p[i] = xv[i];
        }
        g[k] = sign_of(xv[k]);
        p[k] = g[k] * s->semi[k];
        d = q[k] - r;
    }
    *closest = ldem_vec3_make(p[0], p[1], p[2]);
    *grad = ldem_vec3_make(g[0], g[1], g[2]);
    return d;
}

static ldem_vec3 cuboid_normal(const lsgen_shape *s, ldem_vec3 p)
{
    ldem_vec3 closest, g;
    if (s->rounding > 0.0) {
        cuboid_distance(s, p, &closest, &g);
        return g;
    }
    /* Sharp box: every face the point lies on (to rounding) contributes its normal, so an
     * edge gets the bisector and a corner the diagonal of its three faces. */
    const double pv[3] = {p.x, p.y, p.z};
    double hmax = fmax(s->semi[0], fmax(s->semi[1], s->semi[2])), n[3];
    int faces = 0;
    for (int i = 0; i < 3; i++) {
        n[i] = 0.0;
        if (fabs(pv[i]) >= s->semi[i] - 1e-12 * hmax) {
            n[i] = sign_of(pv[i]);
            faces++;
        }
    }
    if (faces == 0) {
        cuboid_distance(s, p, &closest, &g);
        return g;
    }
    return ldem_vec3_normalize(ldem_vec3_make(n[0], n[1], n[2]));
}

/* Second moments of the box [x0,x1] x [y0,y1] x [z0,z1] added to m[3] = (Sxx, Syy, Szz). */
static void add_box(double m[3], const double lo[3], const double hi[3])
{
    double len[3], cube[3];
    for (int i = 0; i < 3; i++) {
        len[i] = hi[i] - lo[i];
        cube[i] = (hi[i] * hi[i] * hi[i] - lo[i] * lo[i] * lo[i]) / 3.0;
    }
    m[0] += cube[0] * len[1] * len[2];
    m[1] += len[0] * cube[1] * len[2];
    m[2] += len[0] * len[1] * cube[2];
}

/* Exact decomposition of the rounded box: the inner box, six face slabs of thickness r,
 * twelve quarter cylinders along the edges and eight ball octants at the corners. */
static void cuboid_mass(const lsgen_shape *s, lsgen_shape_mass *mp)
{
    const double r = s->rounding, pi = SHAPE_PI;
    double b[3];
    for (int i = 0; i < 3; i++)
        b[i] = s->semi[i] - r;
    double S[3] = {0.0, 0.0, 0.0};
    double lo[3] = {-b[0], -b[1], -b[2]}, hi[3] = {b[0], b[1], b[2]};
    add_box(S, lo, hi);
    double volume = 8.0 * b[0] * b[1] * b[2], area = 0.0;
    /* Quarter disc of radius r: area, first and second moment about its corner. */
    const double qa = 0.25 * pi * r * r, qm1 = r * r * r / 3.0, qm2 = pi * r * r * r * r / 16.0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        for (int side = -1; side <= 1; side += 2) {
            double slo[3] = {-b[0], -b[1], -b[2]}, shi[3] = {b[0], b[1], b[2]};
            slo[i] = side > 0 ? b[i] : -b[i] - r;
            shi[i] = side > 0 ? b[i] + r : -b[i];
            add_box(S, slo, shi);
        }
        volume += 8.0 * r * b[j] * b[k];
        area += 8.0 * b[j] * b[k];
        /* Four quarter cylinders of length 2 b_i around the edges along axis i. */
        S[i] += 4.0 * (2.0 * b[i] * b[i] * b[i] / 3.0) * qa;
        S[j] += 4.0 * 2.0 * b[i] * (b[j] * b[j] * qa + 2.0 * b[j] * qm1 + qm2);
        S[k] += 4.0 * 2.0 * b[i] * (b[k] * b[k] * qa + 2.0 * b[k] * qm1 + qm2);
        volume += 2.0 * pi * r * r * b[i];
        area += 4.0 * pi * r * b[i];
    }
    /* Ball octants: volume, first and second moment along one axis, about the centre. */
    const double ov = pi * r * r * r / 6.0, om1 = pi * r * r * r * r / 16.0,
                 om2 = pi * r * r * r * r * r / 30.0;
    for (int i = 0; i < 3; i++)
        S[i] += 8.0 * (b[i] * b[i] * ov + 2.0 * b[i] * om1 + om2);
    volume += 4.0 / 3.0 * pi * r * r * r;
    area += 4.0 * pi * r * r;
    mp->volume = volume;
    mp->inertia[0] = S[1] + S[2];
    mp->inertia[1] = S[0] + S[2];
    mp->inertia[2] = S[0] + S[1];
    mp->area = area;
}

/* Surface nodes: along axis j the surface (any face containing that direction) is the flat
 * part 2 b_j plus a quarter of each rounded edge, pi r / 4 at either end, so the lattice is
 * uniform in that arc length. On a rounded strip the arc coordinate becomes an angle and
 * the point goes onto the round through the equiangular cube map of the corner ball,
 * which is the edge's circle where only one strip coordinate is nonzero and joins the
 * neighbouring face exactly at 45 degrees. A sharp box is its own lattice. */
static double arc_half_length(const lsgen_shape *s, int j)
{
    return s->semi[j] - s->rounding + 0.25 * SHAPE_PI * s->rounding;
}

static void cuboid_lattice(const lsgen_shape *s, double spacing, long n[3])
{
    for (int j = 0; j < 3; j++)
        n[j] = lsgen_cells_for(2.0 * arc_half_length(s, j), spacing);
}

static ldem_vec3 cuboid_cube_to_surface(const lsgen_shape *s, ldem_vec3 u)
{
    const double uv[3] = {u.x, u.y, u.z}, r = s->rounding;
    if (r == 0.0)
        return ldem_vec3_make(u.x * s->semi[0], u.y * s->semi[1], u.z * s->semi[2]);
    double base[3], d[3];
    for (int j = 0; j < 3; j++) {
        double b = s->semi[j] - r, sigma = fabs(uv[j]) * arc_half_length(s, j);
        double sg = sign_of(uv[j]);
        if (sigma <= b) {
            base[j] = sg * sigma;
            d[j] = 0.0;
        } else {
            base[j] = sg * b;
            d[j] = fabs(uv[j]) >= 1.0 ? sg : sg * tan((sigma - b) / r);
        }
    }
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return ldem_vec3_make(base[0] + r * d[0] / len, base[1] + r * d[1] / len,
                          base[2] + r * d[2] / len);
}

const lsgen_shape_ops lsgen_cuboid_ops = {
    .name = "cuboid",
    .validate = cuboid_validate,
    .distance = cuboid_distance,
    .normal = cuboid_normal,
    .mass = cuboid_mass,
    .lattice = cuboid_lattice,
    .cube_to_surface = cuboid_cube_to_surface,
    .gauge = NULL,
};
