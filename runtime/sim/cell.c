/* cell.c — periodic cell geometry, affine deformation and the servo's gain law
 * (ldem/sim/cell.h). */
#include "ldem/sim/cell.h"

#include <math.h>
#include <string.h>

static ldem_mat3 mat3_mul(const ldem_mat3 *a, const ldem_mat3 *b)
{
    ldem_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] +
                        a->m[i][2] * b->m[2][j];
    return r;
}

static ldem_vec3 mat3_apply(const ldem_mat3 *a, ldem_vec3 v)
{
    return ldem_vec3_make(a->m[0][0] * v.x + a->m[0][1] * v.y + a->m[0][2] * v.z,
                          a->m[1][0] * v.x + a->m[1][1] * v.y + a->m[1][2] * v.z,
                          a->m[2][0] * v.x + a->m[2][1] * v.y + a->m[2][2] * v.z);
}

static ldem_vec3 column(const ldem_mat3 *h, int k)
{
    return ldem_vec3_make(h->m[0][k], h->m[1][k], h->m[2][k]);
}

static double det3(const ldem_mat3 *a)
{
    return ldem_vec3_dot(column(a, 0), ldem_vec3_cross(column(a, 1), column(a, 2)));
}

/* Inverse by the adjugate (the cell is well conditioned: its edges are the box sizes). */
static ldem_mat3 inverse(const ldem_mat3 *a)
{
    ldem_vec3 c0 = column(a, 0), c1 = column(a, 1), c2 = column(a, 2);
    ldem_vec3 r0 = ldem_vec3_cross(c1, c2), r1 = ldem_vec3_cross(c2, c0),
              r2 = ldem_vec3_cross(c0, c1);
    double inv_det = 1.0 / ldem_vec3_dot(c0, r0);
    ldem_mat3 r = {{{r0.x * inv_det, r0.y * inv_det, r0.z * inv_det},
                    {r1.x * inv_det, r1.y * inv_det, r1.z * inv_det},
                    {r2.x * inv_det, r2.y * inv_det, r2.z * inv_det}}};
    return r;
}

void ldem_cell_set_h(ldem_cell *c, ldem_mat3 h)
{
    c->h = h;
    c->h_inv = inverse(&h);
}

int ldem_cell_init(ldem_cell *c, ldem_mat3 h, ldem_vec3 centre, ldem_err *err)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!isfinite(h.m[i][j]))
                return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                    "cell: edge vector entry (%d, %d) is not finite", i, j);
    if (!isfinite(centre.x) || !isfinite(centre.y) || !isfinite(centre.z))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "cell: centre is not finite");
    double v = det3(&h);
    double scale = ldem_vec3_norm(column(&h, 0)) * ldem_vec3_norm(column(&h, 1)) *
                   ldem_vec3_norm(column(&h, 2));
    if (!(v > 1e-12 * scale))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "cell: edge vectors span a volume of %g (expected a right-handed, "
                            "non-flat cell)",
                            v);
    memset(c, 0, sizeof *c);
    c->periodic = 1;
    c->centre = centre;
    ldem_cell_set_h(c, h);
    c->h_prev = c->h0 = h;
    return LDEM_OK;
}

double ldem_cell_volume(const ldem_mat3 *h)
{
    return det3(h);
}

double ldem_cell_width(const ldem_mat3 *h, int k)
{
    ldem_vec3 across = ldem_vec3_cross(column(h, (k + 1) % 3), column(h, (k + 2) % 3));
    return det3(h) / ldem_vec3_norm(across);
}

ldem_vec3 ldem_cell_fractional(const ldem_cell *c, ldem_vec3 x)
{
    ldem_vec3 s = mat3_apply(&c->h_inv, ldem_vec3_sub(x, c->centre));
    return ldem_vec3_make(s.x + 0.5, s.y + 0.5, s.z + 0.5);
}

/* An integer of a fractional coordinate; 0 for what no int32 holds (a diverged position,
 * which the broad phase then reports), since the conversion would be undefined. */
static int32_t to_shift(double v)
{
    return v > -2e9 && v < 2e9 ? (int32_t)v : 0;
}

void ldem_cell_wrap_shift(const ldem_cell *c, ldem_vec3 x, int32_t m[3])
{
    ldem_vec3 s = ldem_cell_fractional(c, x);
    m[0] = to_shift(floor(s.x));
    m[1] = to_shift(floor(s.y));
    m[2] = to_shift(floor(s.z));
}

ldem_vec3 ldem_cell_offset(const ldem_mat3 *h, const int32_t n[3])
{
    return mat3_apply(h, ldem_vec3_make((double)n[0], (double)n[1], (double)n[2]));
}

void ldem_cell_min_image(const ldem_cell *c, ldem_vec3 d, int32_t n[3])
{
    ldem_vec3 s = mat3_apply(&c->h_inv, d);
    n[0] = -to_shift(nearbyint(s.x));
    n[1] = -to_shift(nearbyint(s.y));
    n[2] = -to_shift(nearbyint(s.z));
}

ldem_mat3 ldem_mat3_expm(ldem_mat3 a)
{
    double norm = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            norm = fmax(norm, fabs(a.m[i][j]));
    norm *= 3.0; /* ≥ the ∞-norm */
    int squarings = 0;
    while (norm > 0.125 && squarings < 64) {
        norm *= 0.5;
        squarings++;
    }
    double scale = ldexp(1.0, -squarings);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a.m[i][j] *= scale;
    ldem_mat3 sum = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, term = sum;
    /* with ‖A‖ ≤ 1/8 the k-th term is below 8^-k / k!: 20 terms are far beyond round-off */
    for (int k = 1; k <= 20; k++) {
        term = mat3_mul(&term, &a);
        double largest = 0.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                term.m[i][j] /= (double)k;
                sum.m[i][j] += term.m[i][j];
                largest = fmax(largest, fabs(term.m[i][j]));
            }
        if (largest < 1e-18)
            break;
    }
    for (int s = 0; s < squarings; s++)
        sum = mat3_mul(&sum, &sum);
    return sum;
}

ldem_mat3 ldem_cell_advance(ldem_cell *c, double dt)
{
    ldem_mat3 ldt = c->L;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            ldt.m[i][j] *= dt;
    ldem_mat3 F = ldem_mat3_expm(ldt);
    c->h_prev = c->h;
    ldem_cell_set_h(c, mat3_mul(&F, &c->h));
    return F;
}

ldem_vec3 ldem_cell_remap(const ldem_cell *c, const ldem_mat3 *F, ldem_vec3 x)
{
    return ldem_vec3_add(c->centre, mat3_apply(F, ldem_vec3_sub(x, c->centre)));
}

double ldem_cell_strain(const ldem_cell *c, int k)
{
    return -log(ldem_cell_width(&c->h, k) / ldem_cell_width(&c->h0, k));
}

ldem_mat3 ldem_cell_deformation(const ldem_cell *c, const ldem_mat3 *h_ref)
{
    ldem_mat3 inv = inverse(h_ref);
    return mat3_mul(&c->h, &inv);
}

double ldem_cell_deformation_since(const ldem_cell *c, const ldem_mat3 *h_ref)
{
    ldem_mat3 F = ldem_cell_deformation(c, h_ref);
    double sum = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double e = F.m[i][j] - (i == j ? 1.0 : 0.0);
            sum += e * e;
        }
    return sqrt(sum);
}

double ldem_cell_servo_rate(double sigma, double target, double stiffness, double dt,
                            double gain, double max_rate)
{
    double error = sigma - target; /* > 0: too much compression, so expand */
    if (isnan(error))
        return error; /* a diverged stress must not pass for a full-speed expansion */
    double rate;
    if (stiffness > 0.0 && dt > 0.0)
        rate = gain * error / (stiffness * dt);
    else
        rate = error > 0.0 ? max_rate : error < 0.0 ? -max_rate : 0.0;
    return fmax(-max_rate, fmin(max_rate, rate));
}

double ldem_cell_servo_rate_pi(double sigma, double target, double stiffness, double dt,
                               double gain, double integral, double max_rate,
                               double *accumulated)
{
    double p = ldem_cell_servo_rate(sigma, target, stiffness, dt, gain, max_rate);
    if (integral == 0.0 || isnan(p))
        return p;
    double rate = p + *accumulated;
    if (rate >= max_rate)
        return max_rate;
    if (rate <= -max_rate)
        return -max_rate;
    *accumulated = fmax(-max_rate, fmin(max_rate, *accumulated + integral * p));
    return rate;
}

/* ---- the cyclic drive's triangle ---- */

/* tri(φ) for φ = m / P in integers (0 ≤ m < P): the numerator is exact, one rounding. */
static double triangle_int(uint64_t m, uint64_t p)
{
    uint64_t q = 4 * m;
    if (q < p)
        return (double)q / (double)p;
    if (q < 3 * p)
        return ((double)(2 * p) - (double)q) / (double)p;
    return ((double)q - (double)(4 * p)) / (double)p;
}

static double triangle(double phi)
{
    return phi < 0.25 ? 4.0 * phi : phi < 0.75 ? 2.0 - 4.0 * phi : 4.0 * phi - 4.0;
}

double ldem_cell_cyclic_strain(const ldem_cell_cyclic *c, uint64_t n, double dt)
{
    /* integer phases when every period is a whole number of steps (4 P_i and the sums of
     * the levels' steps well inside 2^53, a double's whole numbers) */
    uint64_t steps[LDEM_CELL_CYCLIC_LEVELS];
    int whole = n < (UINT64_C(1) << 52);
    for (uint32_t i = 0; whole && i < c->levels; i++) {
        double ratio = c->period[i] / dt, p = nearbyint(ratio);
        whole = p >= 1.0 && p < 0x1p40 && fabs(ratio - p) <= 1e-9 * p;
        steps[i] = whole ? (uint64_t)p : 0;
    }
    if (whole) {
        uint64_t m = n;
        for (uint32_t i = 0; i < c->levels; i++) {
            uint64_t level = steps[i] * c->cycles;
            if (m < level)
                return c->amplitude[i] * triangle_int(m % steps[i], steps[i]);
            m -= level;
        }
        return 0.0;
    }
    double t = (double)n * dt;
    for (uint32_t i = 0; i < c->levels; i++) {
        double level = c->period[i] * (double)c->cycles;
        if (t < level) {
            double u = t / c->period[i];
            return c->amplitude[i] * triangle(u - floor(u));
        }
        t -= level;
    }
    return 0.0;
}

double ldem_cell_cyclic_rate(const ldem_cell *cell, int k, const ldem_cell_cyclic *c,
                             uint64_t n, double dt, double start)
{
    double target = start + ldem_cell_cyclic_strain(c, n + 1, dt);
    return (ldem_cell_strain(cell, k) - target) / dt;
}
