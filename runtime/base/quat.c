/* Rotation quaternions and Kuhn's contact-frame update (§3.2, eqs. 16–20). See ldem/quat.h
 * for the conventions: Hamilton product, active rotation v' = q v q*. */
#include "ldem/quat.h"

#include <math.h>

static ldem_vec3 quat_vec(ldem_quat q)
{
    return ldem_vec3_make(q.x, q.y, q.z);
}

static ldem_quat quat_scale(ldem_quat q, double s)
{
    return ldem_quat_make(s * q.w, s * q.x, s * q.y, s * q.z);
}

ldem_mat3 ldem_quat_to_mat3(ldem_quat q)
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    ldem_mat3 r = {{
        {1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)},
        {2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)},
        {2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)},
    }};
    return r;
}

/* Shepperd (1978): 4w² = 1 + tr R, 4x² = 1 + R00 − R11 − R22, and likewise for y, z. The
 * largest of the four is at least 1/4 of their sum (= 4), so taking its square root and
 * dividing the off-diagonal sums/differences by it never loses precision, unlike the naive
 * trace formula near a half turn. */
ldem_quat ldem_quat_from_mat3(ldem_mat3 r)
{
    double(*m)[3] = r.m; /* r is our copy */
    double tr = m[0][0] + m[1][1] + m[2][2];
    double cand[4] = {1.0 + tr,
                      1.0 + m[0][0] - m[1][1] - m[2][2],
                      1.0 - m[0][0] + m[1][1] - m[2][2],
                      1.0 - m[0][0] - m[1][1] + m[2][2]};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (cand[i] > cand[k])
            k = i;
    double s = 0.5 * sqrt(cand[k]); /* the pivot component */
    double f = 0.25 / s;
    ldem_quat q;
    switch (k) {
    case 0:
        q = ldem_quat_make(s, (m[2][1] - m[1][2]) * f, (m[0][2] - m[2][0]) * f,
                           (m[1][0] - m[0][1]) * f);
        break;
    case 1:
        q = ldem_quat_make((m[2][1] - m[1][2]) * f, s, (m[0][1] + m[1][0]) * f,
                           (m[0][2] + m[2][0]) * f);
        break;
    case 2:
        q = ldem_quat_make((m[0][2] - m[2][0]) * f, (m[0][1] + m[1][0]) * f, s,
                           (m[1][2] + m[2][1]) * f);
        break;
    default:
        q = ldem_quat_make((m[1][0] - m[0][1]) * f, (m[0][2] + m[2][0]) * f,
                           (m[1][2] + m[2][1]) * f, s);
        break;
    }
    if (q.w < 0.0)
        q = quat_scale(q, -1.0);
    /* A matrix that is orthogonal only to rounding gives a quaternion unit only to rounding. */
    return ldem_quat_normalize(q);
}

ldem_vec3 ldem_mat3_apply(ldem_mat3 r, ldem_vec3 v)
{
    return ldem_vec3_make(r.m[0][0] * v.x + r.m[0][1] * v.y + r.m[0][2] * v.z,
                          r.m[1][0] * v.x + r.m[1][1] * v.y + r.m[1][2] * v.z,
                          r.m[2][0] * v.x + r.m[2][1] * v.y + r.m[2][2] * v.z);
}

ldem_quat ldem_quat_from_axis_angle(ldem_vec3 axis, double angle)
{
    double n = ldem_vec3_norm(axis);
    if (!(n > 0.0))
        return ldem_quat_identity();
    double s = sin(0.5 * angle) / n;
    return ldem_quat_make(cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z);
}

ldem_quat ldem_quat_exp(ldem_vec3 theta)
{
    double a2 = ldem_vec3_norm2(theta);
    double c, s_over_a;
    if (a2 < LDEM_QUAT_EXP_SERIES * LDEM_QUAT_EXP_SERIES) {
        c = 1.0 - a2 / 8.0;
        s_over_a = 0.5 - a2 / 48.0;
    } else {
        double a = sqrt(a2);
        c = cos(0.5 * a);
        s_over_a = sin(0.5 * a) / a;
    }
    return ldem_quat_make(c, s_over_a * theta.x, s_over_a * theta.y, s_over_a * theta.z);
}

ldem_vec3 ldem_quat_log(ldem_quat q)
{
    if (q.w < 0.0) /* q and −q are the same rotation; pick the angle in [0, π] */
        q = quat_scale(q, -1.0);
    ldem_vec3 u = quat_vec(q);
    double s = ldem_vec3_norm(u);
    /* angle/s = 2 atan2(s, w)/s → 2/w as s → 0; the omitted (s/w)²/3 is below rounding. */
    double f = s < 1e-8 ? 2.0 / q.w : 2.0 * atan2(s, q.w) / s;
    return ldem_vec3_scale(u, f);
}

double ldem_quat_angle_between(ldem_quat p, ldem_quat q)
{
    ldem_quat d = ldem_quat_mul(ldem_quat_conj(p), q);
    /* atan2 of the vector part keeps full precision for tiny angles, where acos(w) would not. */
    return 2.0 * atan2(ldem_vec3_norm(quat_vec(d)), fabs(d.w));
}

ldem_quat ldem_quat_renormalize(ldem_quat q, enum ldem_quat_renorm mode)
{
    switch (mode) {
    case LDEM_QUAT_RENORM_EXACT:
        return ldem_quat_normalize(q);
    case LDEM_QUAT_RENORM_KATZ:
        /* One Newton step for 1/√s from 1: for s = q·q = 1 + ε the result has norm
         * 1 − 3ε²/8 + O(ε³), so a step's O(|dθ|²) drift becomes O(|dθ|⁴) (Katz 1997). */
        return quat_scale(q, 0.5 * (3.0 - ldem_quat_dot(q, q)));
    case LDEM_QUAT_RENORM_NONE:
    default:
        return q;
    }
}

ldem_quat ldem_quat_increment(ldem_quat q, ldem_vec3 dtheta, enum ldem_quat_renorm mode)
{
    /* Kuhn eq. 17: Δq = (1, dθ/2) is exp(dθ) to first order; it multiplies from the left
     * because dθ is expressed in global components. |Δq| = √(1 + |dθ|²/4) > 1 is the drift. */
    ldem_quat dq = ldem_quat_make(1.0, 0.5 * dtheta.x, 0.5 * dtheta.y, 0.5 * dtheta.z);
    return ldem_quat_renormalize(ldem_quat_mul(dq, q), mode);
}

/* cos(a/2) and sin(a/2) of the angle a ∈ [0, π] with cos a = c/r, sin a = s/r (s ≥ 0,
 * r = √(c² + s²) > 0), from half-angle identities instead of trig. The branch keeps the
 * subtraction-free sum r ± c in the square root and gets the other factor from
 * (r + c)(r − c) = s², so both are accurate to rounding, exact at a = 0 and a = π. */
static void half_angle(double c, double s, double r, double *ch, double *sh)
{
    if (c >= 0.0) {
        double a = r + c; /* ≥ r ≥ s */
        *ch = sqrt(a / (2.0 * r));
        *sh = (s / a) * *ch; /* = s/√(2ra) without forming the product, which may underflow */
    } else {
        double b = r - c;
        *sh = sqrt(b / (2.0 * r));
        *ch = (s / b) * *sh;
    }
}

ldem_quat ldem_quat_contact_frame(ldem_vec3 n)
{
    /* Kuhn eq. 16 from the two Euler angles of n: polar θ (cos θ = n_z, sin θ = ρ = √(n_x² +
     * n_y²)) and azimuth φ (cos φ = n_x/ρ, sin φ = n_y/ρ). Once per new contact, so hypot's
     * immunity to under- and overflow is worth its cost; scaling to unit length keeps the
     * products in half_angle() clear of overflow for any finite n. */
    double r = hypot(hypot(n.x, n.y), n.z);
    if (!(r > 0.0) || !isfinite(r)) /* zero, infinite or NaN: no direction */
        return ldem_quat_identity();
    n = ldem_vec3_scale(n, 1.0 / r);
    double rho = hypot(n.x, n.y);
    double ct, st, cp, sp;
    half_angle(n.z, rho, hypot(rho, n.z), &ct, &st);
    if (rho > 0.0) {
        /* φ ∈ (−π, π]: cos(φ/2) ≥ 0 and sin(φ/2) has the sign of n_y (+ for φ = π). */
        half_angle(n.x, fabs(n.y), rho, &cp, &sp);
        if (n.y < 0.0)
            sp = -sp;
    } else {
        /* On the axis the azimuth is arbitrary; φ = 0 makes n = +z the identity and n = −z
         * the half turn about y, whatever the signs of zero in n_x, n_y. */
        cp = 1.0;
        sp = 0.0;
    }
    /* Rz(φ) ⊗ Ry(θ) = (cp, 0, 0, sp) ⊗ (ct, 0, st, 0), multiplied out. */
    return ldem_quat_make(cp * ct, -sp * st, cp * st, sp * ct);
}

ldem_vec3 ldem_quat_to_contact(ldem_quat q, ldem_vec3 v_global)
{
    return ldem_quat_rotate_inv(q, v_global); /* Kuhn eqs. 18–19 */
}

ldem_vec3 ldem_quat_from_contact(ldem_quat q, ldem_vec3 v_local)
{
    return ldem_quat_rotate(q, v_local); /* Kuhn eq. 20 */
}
