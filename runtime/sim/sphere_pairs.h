/* sphere_pairs.h — two touching rigid sphere pairs at once (contacts.c).
 *
 * A touching contact's geometry, material-point steps, frame follow and forces are a long
 * chain of dependent square roots, divisions and quaternion products, too long for the
 * out-of-order core to overlap with the next contact's (pipelines/bench/lammps/README.md,
 * sessions 18–19). Here two contacts run in the two lanes of one SSE2 register: each
 * instruction advances both chains. Packed arithmetic rounds exactly as the scalar
 * instructions do, and every operation below is the scalar path's (ldem_sphere_sphere,
 * material_step, ldem_contact_frame_follow_exact, the quaternion rotations) in the same
 * order, branches turned into lane selects, so each lane's result is that path's to the bit;
 * tests/sim/test_sphere_pairs.c checks it.
 *
 * Internal to runtime/sim; contacts.c includes it once.
 */
#ifndef LDEM_SIM_SPHERE_PAIRS_H
#define LDEM_SIM_SPHERE_PAIRS_H

#include <math.h>

#include "ldem/quat.h"
#include "ldem/vec3.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef double ldem__v2 __attribute__((vector_size(16)));
typedef __typeof__((ldem__v2){0.0, 0.0} < (ldem__v2){0.0, 0.0}) ldem__m2; /* lane masks */

typedef struct {
    ldem__v2 x, y, z;
} ldem__v3x2;

typedef struct {
    ldem__v2 w, x, y, z;
} ldem__qx2;

static inline ldem__v2 ldem__v2_sqrt(ldem__v2 a)
{
#ifdef __SSE2__
    return (ldem__v2)_mm_sqrt_pd((__m128d)a);
#else
    return (ldem__v2){sqrt(a[0]), sqrt(a[1])};
#endif
}

/* m ? a : b, lane by lane (m all ones or all zeros per lane, as comparisons give). */
static inline ldem__v2 ldem__v2_select(ldem__m2 m, ldem__v2 a, ldem__v2 b)
{
    return (ldem__v2)(((ldem__m2)a & m) | ((ldem__m2)b & ~m));
}

static inline ldem__v2 ldem__v2_splat(double a)
{
    return (ldem__v2){a, a};
}

static inline ldem__v3x2 ldem__v3x2_pack(ldem_vec3 a, ldem_vec3 b)
{
    return (ldem__v3x2){{a.x, b.x}, {a.y, b.y}, {a.z, b.z}};
}

static inline ldem__qx2 ldem__qx2_pack(ldem_quat a, ldem_quat b)
{
    return (ldem__qx2){{a.w, b.w}, {a.x, b.x}, {a.y, b.y}, {a.z, b.z}};
}

static inline ldem_vec3 ldem__v3x2_lane(ldem__v3x2 a, int l)
{
    return ldem_vec3_make(a.x[l], a.y[l], a.z[l]);
}

static inline ldem_quat ldem__qx2_lane(ldem__qx2 a, int l)
{
    return ldem_quat_make(a.w[l], a.x[l], a.y[l], a.z[l]);
}

static inline ldem__v3x2 ldem__v3x2_add(ldem__v3x2 a, ldem__v3x2 b)
{
    return (ldem__v3x2){a.x + b.x, a.y + b.y, a.z + b.z};
}

static inline ldem__v3x2 ldem__v3x2_sub(ldem__v3x2 a, ldem__v3x2 b)
{
    return (ldem__v3x2){a.x - b.x, a.y - b.y, a.z - b.z};
}

static inline ldem__v3x2 ldem__v3x2_cross(ldem__v3x2 a, ldem__v3x2 b)
{
    return (ldem__v3x2){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static inline ldem__v2 ldem__v3x2_dot(ldem__v3x2 a, ldem__v3x2 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline ldem__qx2 ldem__qx2_mul(ldem__qx2 p, ldem__qx2 q)
{
    return (ldem__qx2){p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
                       p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
                       p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
                       p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w};
}

/* ldem_quat_rotate: q v q*. */
static inline ldem__v3x2 ldem__qx2_rotate(ldem__qx2 q, ldem__v3x2 v)
{
    ldem__v3x2 u = {q.x, q.y, q.z};
    ldem__v3x2 c = ldem__v3x2_cross(u, v);
    ldem__v2 two = ldem__v2_splat(2.0);
    ldem__v3x2 t = {two * c.x, two * c.y, two * c.z};
    ldem__v3x2 axpy = {q.w * t.x + v.x, q.w * t.y + v.y, q.w * t.z + v.z};
    return ldem__v3x2_add(axpy, ldem__v3x2_cross(u, t));
}

/* ldem_quat_rotate_inv: q* v q, the rotation by the conjugate. */
static inline ldem__v3x2 ldem__qx2_rotate_inv(ldem__qx2 q, ldem__v3x2 v)
{
    return ldem__qx2_rotate((ldem__qx2){q.w, -q.x, -q.y, -q.z}, v);
}

/* material_step of a rigid body: the step of the material point at `at` whose body moved
 * from x_prev to x (its image offsets added) and turned by dq. */
static inline ldem__v3x2 ldem__rigid_step_x2(ldem__v3x2 x, ldem__v3x2 x_prev, ldem__qx2 dq,
                                             ldem__v3x2 at)
{
    ldem__v3x2 r = ldem__v3x2_sub(at, x);
    ldem__v3x2 r_prev = ldem__qx2_rotate_inv(dq, r);
    return ldem__v3x2_sub(at, ldem__v3x2_add(x_prev, r_prev));
}

/* ldem_sphere_sphere, both lanes: overlap, unit normal from i to j, contact point. */
static inline void ldem__sphere_sphere_x2(ldem__v3x2 xi, ldem__v2 ri, ldem__v3x2 xj, ldem__v2 rj,
                                          ldem__v2 *overlap, ldem__v3x2 *normal,
                                          ldem__v3x2 *point)
{
    ldem__v3x2 d = ldem__v3x2_sub(xj, xi);
    ldem__v2 dist = ldem__v2_sqrt(ldem__v3x2_dot(d, d));
    ldem__m2 apart = dist > 0.0;
    ldem__v2 inv = 1.0 / dist, zero = ldem__v2_splat(0.0);
    ldem__v3x2 n = {ldem__v2_select(apart, inv * d.x, zero),
                    ldem__v2_select(apart, inv * d.y, zero),
                    ldem__v2_select(apart, inv * d.z, ldem__v2_splat(1.0))}; /* +z if coincident */
    ldem__v3x2 tip_i = {ri * n.x + xi.x, ri * n.y + xi.y, ri * n.z + xi.z};
    ldem__v2 mrj = -rj;
    ldem__v3x2 tip_j = {mrj * n.x + xj.x, mrj * n.y + xj.y, mrj * n.z + xj.z};
    ldem__v2 half = ldem__v2_splat(0.5);
    *overlap = ri + rj - dist;
    *normal = n;
    *point = (ldem__v3x2){half * (tip_i.x + tip_j.x), half * (tip_i.y + tip_j.y),
                          half * (tip_i.z + tip_j.z)};
}

/* ldem__contact_twist_about, both lanes. */
static inline void ldem__twist_about_x2(ldem__qx2 dq, ldem__v3x2 n, ldem__v2 *hc, ldem__v2 *hs)
{
    ldem__v2 along = dq.x * n.x + dq.y * n.y + dq.z * n.z;
    ldem__m2 neg = dq.w < 0;
    ldem__v2 c = ldem__v2_select(neg, -dq.w, dq.w), s = ldem__v2_select(neg, -along, along);
    ldem__v2 r = ldem__v2_sqrt(c * c + s * s);
    ldem__m2 pos = r > 0.0;
    *hc = ldem__v2_select(pos, c / r, ldem__v2_splat(1.0));
    *hs = ldem__v2_select(pos, s / r, ldem__v2_splat(0.0));
}

/* ldem_contact_frame_follow_exact, both lanes, for new normals n1 that are unit to the
 * scalar path's 4e-15 (the caller checks; the narrow phase's always are). */
static inline ldem__qx2 ldem__frame_follow_x2(ldem__qx2 q, ldem__qx2 dq_i, ldem__qx2 dq_j,
                                              ldem__v3x2 n1)
{
    const ldem__v2 one = ldem__v2_splat(1.0), zero = ldem__v2_splat(0.0),
                   two = ldem__v2_splat(2.0);
    ldem__v3x2 n0 = {two * (q.x * q.z + q.w * q.y), two * (q.y * q.z - q.w * q.x),
                     one - two * (q.x * q.x + q.y * q.y)};
    ldem__v2 ci, si, cj, sj;
    ldem__twist_about_x2(dq_i, n0, &ci, &si);
    ldem__twist_about_x2(dq_j, n0, &cj, &sj);
    ldem__v2 c = ci + cj, s = si + sj, r = ldem__v2_sqrt(c * c + s * s);
    ldem__m2 pos = r > 0.0;
    c = ldem__v2_select(pos, c / r, one);
    s = ldem__v2_select(pos, s / r, zero);
    ldem__qx2 twist = {c, s * n0.x, s * n0.y, s * n0.z};
    ldem__v3x2 axis = ldem__v3x2_cross(n0, n1);
    ldem__v2 cosine = ldem__v3x2_dot(n0, n1);
    ldem__qx2 swing = {one + cosine, axis.x, axis.y, axis.z};
    /* ldem_quat_normalize: 1/|q| times q, the identity for a zero q */
    ldem__v2 norm = ldem__v2_sqrt(swing.w * swing.w + swing.x * swing.x + swing.y * swing.y +
                                  swing.z * swing.z);
    ldem__m2 unit = norm > 0.0;
    ldem__v2 inv = one / norm;
    swing = (ldem__qx2){ldem__v2_select(unit, inv * swing.w, one),
                        ldem__v2_select(unit, inv * swing.x, zero),
                        ldem__v2_select(unit, inv * swing.y, zero),
                        ldem__v2_select(unit, inv * swing.z, zero)};
    ldem__qx2 p = ldem__qx2_mul(swing, ldem__qx2_mul(twist, q));
    /* LDEM_QUAT_RENORM_KATZ */
    ldem__v2 k = ldem__v2_splat(0.5) *
                 (ldem__v2_splat(3.0) - (p.w * p.w + p.x * p.x + p.y * p.y + p.z * p.z));
    return (ldem__qx2){k * p.w, k * p.x, k * p.y, k * p.z};
}

#endif
