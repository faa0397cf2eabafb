/* Circular cylinder: radius R = semi[0] = semi[1], axis z, flat caps at z = +-H, H = semi[2].
 *
 * Distance: a 2-D box in (rho, z) = (|(x, y)|, |z|) with half sizes (R, H), revolved:
 * outside, the distance to the clamped point; inside, to the nearer of side and cap. */
#include <math.h>

#include "shape_kinds.h"

static int cylinder_validate(const lsgen_shape *s, ldem_err *err)
{
    if (s->semi[1] != s->semi[0])
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "cylinder: radii %g and %g differ: expected a circular cylinder "
                            "(semi = R, R, L/2)", s->semi[0], s->semi[1]);
    return LDEM_OK;
}

static double sign_of(double v)
{
    return v < 0.0 ? -1.0 : 1.0;
}

static double cylinder_distance(const lsgen_shape *s, ldem_vec3 x, ldem_vec3 *closest,
                                ldem_vec3 *grad)
{
    const double R = s->semi[0], H = s->semi[2];
    double rho = hypot(x.x, x.y), sz = sign_of(x.z);
    /* On the axis every radial direction is equally good. */
    double cx = rho > 0.0 ? x.x / rho : 1.0, cy = rho > 0.0 ? x.y / rho : 0.0;
    double w0 = rho - R, w1 = fabs(x.z) - H, d, gr, gz, pr, pz;
    if (w0 > 0.0 || w1 > 0.0) {
        double o0 = fmax(w0, 0.0), o1 = fmax(w1, 0.0);
        d = hypot(o0, o1);
        gr = o0 / d;
        gz = o1 / d;
        pr = fmin(rho, R);
        pz = fmin(fabs(x.z), H);
    } else if (w0 >= w1) {
        d = w0;
        gr = 1.0;
        gz = 0.0;
        pr = R;
        pz = fabs(x.z);
    } else {
        d = w1;
        gr = 0.0;
        gz = 1.0;
        pr = rho;
        pz = H;
    }
    *closest = ldem_vec3_make(pr * cx, pr * cy, sz * pz);
    *grad = ldem_vec3_make(gr * cx, gr * cy, sz * gz);
    return d;
}

/* On the rim (to rounding) the normalized sum of the side's and the cap's normals, as on a
 * sharp cuboid's edges. */
static ldem_vec3 cylinder_normal(const lsgen_shape *s, ldem_vec3 p)
{
    const double R = s->semi[0], H = s->semi[2], tol = 1e-12 * fmax(R, H);
    double rho = hypot(p.x, p.y);
    int side = rho >= R - tol, cap = fabs(p.z) >= H - tol;
    if (!side && !cap) {
        ldem_vec3 c, g;
        cylinder_distance(s, p, &c, &g);
        return g;
    }
    double cx = rho > 0.0 ? p.x / rho : 1.0, cy = rho > 0.0 ? p.y / rho : 0.0;
    ldem_vec3 n = ldem_vec3_make(side ? cx : 0.0, side ? cy : 0.0, cap ? sign_of(p.z) : 0.0);
    return ldem_vec3_normalize(n);
}

static void cylinder_mass(const lsgen_shape *s, lsgen_shape_mass *m)
{
    const double R = s->semi[0], L = 2.0 * s->semi[2];
    m->volume = SHAPE_PI * R * R * L;
    m->inertia[0] = m->inertia[1] = m->volume * (3.0 * R * R + L * L) / 12.0;
    m->inertia[2] = 0.5 * m->volume * R * R;
    m->area = 2.0 * SHAPE_PI * R * R + 2.0 * SHAPE_PI * R * L;
}

/* Surface nodes: the cube's z faces become the caps through Shirley and Chiu's concentric
 * square-to-disk map (area-preserving, so n x n cells of area pi R^2 / n^2 = spacing^2),
 * its side faces wrap around the side, a quarter of the circle each, at the same angles
 * as the caps' rims (the concentric map sends the square's boundary to the circle at
 * uniform angle). */
static void cylinder_lattice(const lsgen_shape *s, double spacing, long n[3])
{
    n[0] = n[1] = lsgen_cells_for(sqrt(SHAPE_PI) * s->semi[0], spacing);
    n[2] = lsgen_cells_for(2.0 * s->semi[2], spacing);
}

static void concentric_disk(double u, double v, double *x, double *y)
{
    double r, phi;
    if (u == 0.0 && v == 0.0) {
        *x = *y = 0.0;
        return;
    }
    if (fabs(u) >= fabs(v)) {
        r = u;
        phi = 0.25 * SHAPE_PI * (v / u);
    } else {
        r = v;
        phi = 0.5 * SHAPE_PI - 0.25 * SHAPE_PI * (u / v);
    }
    *x = r * cos(phi);
    *y = r * sin(phi);
}

static ldem_vec3 cylinder_cube_to_surface(const lsgen_shape *s, ldem_vec3 u)
{
    const double R = s->semi[0], H = s->semi[2];
    double x, y;
    concentric_disk(u.x, u.y, &x, &y);
    /* On the square's boundary the point is on the unit circle: renormalize so that
     * rounding in cos and sin leaves rim and side nodes on the side to the last bit. */
    if (fmax(fabs(u.x), fabs(u.y)) >= 1.0) {
        double len = hypot(x, y);
        x /= len;
        y /= len;
    }
    return ldem_vec3_make(R * x, R * y, u.z * H);
}

const lsgen_shape_ops lsgen_cylinder_ops = {
    .name = "cylinder",
    .validate = cylinder_validate,
    .distance = cylinder_distance,
    .normal = cylinder_normal,
    .mass = cylinder_mass,
    .lattice = cylinder_lattice,
    .cube_to_surface = cylinder_cube_to_surface,
    .gauge = NULL,
};
