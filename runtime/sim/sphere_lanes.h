/* sphere_lanes.h — touching rigid sphere pairs, several at once (contacts.c, sphere_quads.c).
 *
 * A touching contact's geometry, material-point steps, frame follow and forces are a long
 * chain of dependent square roots, divisions and quaternion products, too long for the
 * out-of-order core to overlap with the next contact's (the profiles are in BENCHMARKS.md).
 * Here LDEM__LANES contacts (2: SSE2, the x86-64 baseline; 4: AVX2, in
 * sphere_quads.c, chosen at run time) run in the lanes of one vector register: each
 * instruction advances all their chains. Packed arithmetic rounds exactly as the scalar
 * instructions do (and no FMA is ever formed: C11 mode keeps -ffp-contract=off), and every
 * operation below is the scalar path's (ldem_sphere_sphere, material_step,
 * ldem_contact_frame_follow_exact, the quaternion rotations) in the same order, branches
 * turned into lane selects, so each lane's result is that path's to the bit;
 * tests/sim/test_sphere_lanes.c checks it at both widths.
 *
 * Internal to runtime/sim. A file defines LDEM__LANES (2 if it does not) before including it;
 * every function is static, so the two widths live in different files side by side.
 */
#ifndef LDEM_SIM_SPHERE_LANES_H
#define LDEM_SIM_SPHERE_LANES_H

#include <math.h>

#include "ldem/quat.h"
#include "ldem/vec3.h"

#ifndef LDEM__LANES
#define LDEM__LANES 2
#endif
#if LDEM__LANES != 2 && LDEM__LANES != 4
#error "LDEM__LANES must be 2 or 4"
#endif

#if defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#endif

typedef double ldem__vl __attribute__((vector_size(8 * LDEM__LANES)));
typedef __typeof__((ldem__vl){0.0} < (ldem__vl){0.0}) ldem__ml; /* lane masks */

typedef struct {
    ldem__vl x, y, z;
} ldem__v3l;

typedef struct {
    ldem__vl w, x, y, z;
} ldem__ql;

static inline ldem__vl ldem__vl_sqrt(ldem__vl a)
{
#if LDEM__LANES == 4 && defined(__AVX__)
    return (ldem__vl)_mm256_sqrt_pd((__m256d)a);
#elif LDEM__LANES == 2 && defined(__SSE2__)
    return (ldem__vl)_mm_sqrt_pd((__m128d)a);
#else
    ldem__vl r = {0.0};
    for (int l = 0; l < LDEM__LANES; l++)
        r[l] = sqrt(a[l]);
    return r;
#endif
}

/* m ? a : b, lane by lane (m all ones or all zeros per lane, as comparisons give). */
static inline ldem__vl ldem__vl_select(ldem__ml m, ldem__vl a, ldem__vl b)
{
    return (ldem__vl)(((ldem__ml)a & m) | ((ldem__ml)b & ~m));
}

static inline ldem__vl ldem__vl_splat(double a)
{
    ldem__vl r = {0.0};
    for (int l = 0; l < LDEM__LANES; l++)
        r[l] = a;
    return r;
}

/* The lanes of W values. */
static inline ldem__vl ldem__vl_gather(const double a[LDEM__LANES])
{
    ldem__vl r = {0.0};
    for (int l = 0; l < LDEM__LANES; l++)
        r[l] = a[l];
    return r;
}

static inline ldem__v3l ldem__v3l_gather(const ldem_vec3 a[LDEM__LANES])
{
    ldem__v3l r = {{0.0}, {0.0}, {0.0}};
    for (int l = 0; l < LDEM__LANES; l++) {
        r.x[l] = a[l].x;
        r.y[l] = a[l].y;
        r.z[l] = a[l].z;
    }
    return r;
}

static inline ldem__ql ldem__ql_gather(const ldem_quat a[LDEM__LANES])
{
    ldem__ql r = {{0.0}, {0.0}, {0.0}, {0.0}};
    for (int l = 0; l < LDEM__LANES; l++) {
        r.w[l] = a[l].w;
        r.x[l] = a[l].x;
        r.y[l] = a[l].y;
        r.z[l] = a[l].z;
    }
    return r;
}

static inline ldem_vec3 ldem__v3l_lane(ldem__v3l a, int l)
{
    return ldem_vec3_make(a.x[l], a.y[l], a.z[l]);
}

static inline ldem_quat ldem__ql_lane(ldem__ql a, int l)
{
    return ldem_quat_make(a.w[l], a.x[l], a.y[l], a.z[l]);
}

static inline ldem__v3l ldem__v3l_add(ldem__v3l a, ldem__v3l b)
{
    return (ldem__v3l){a.x + b.x, a.y + b.y, a.z + b.z};
}

static inline ldem__v3l ldem__v3l_sub(ldem__v3l a, ldem__v3l b)
{
    return (ldem__v3l){a.x - b.x, a.y - b.y, a.z - b.z};
}

static inline ldem__v3l ldem__v3l_cross(ldem__v3l a, ldem__v3l b)
{
    return (ldem__v3l){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static inline ldem__vl ldem__v3l_dot(ldem__v3l a, ldem__v3l b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline ldem__ql ldem__ql_mul(ldem__ql p, ldem__ql q)
{
    return (ldem__ql){p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
                      p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
                      p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
                      p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w};
}

/* ldem_quat_rotate: q v q*. */
static inline ldem__v3l ldem__ql_rotate(ldem__ql q, ldem__v3l v)
{
    ldem__v3l u = {q.x, q.y, q.z};
    ldem__v3l c = ldem__v3l_cross(u, v);
    ldem__vl two = ldem__vl_splat(2.0);
    ldem__v3l t = {two * c.x, two * c.y, two * c.z};
    ldem__v3l axpy = {q.w * t.x + v.x, q.w * t.y + v.y, q.w * t.z + v.z};
    return ldem__v3l_add(axpy, ldem__v3l_cross(u, t));
}

/* ldem_quat_rotate_inv: q* v q, the rotation by the conjugate. */
static inline ldem__v3l ldem__ql_rotate_inv(ldem__ql q, ldem__v3l v)
{
    return ldem__ql_rotate((ldem__ql){q.w, -q.x, -q.y, -q.z}, v);
}

/* material_step of a rigid body: the step of the material point at `at` whose body moved
 * from x_prev to x (its image offsets added) and turned by dq. */
static inline ldem__v3l ldem__rigid_step_l(ldem__v3l x, ldem__v3l x_prev, ldem__ql dq, ldem__v3l at)
{
    ldem__v3l r = ldem__v3l_sub(at, x);
    ldem__v3l r_prev = ldem__ql_rotate_inv(dq, r);
    return ldem__v3l_sub(at, ldem__v3l_add(x_prev, r_prev));
}

/* ldem_sphere_sphere, every lane: overlap, unit normal from i to j, contact point. */
static inline void ldem__sphere_sphere_l(ldem__v3l xi, ldem__vl ri, ldem__v3l xj, ldem__vl rj,
                                         ldem__vl *overlap, ldem__v3l *normal, ldem__v3l *point)
{
    ldem__v3l d = ldem__v3l_sub(xj, xi);
    ldem__vl dist = ldem__vl_sqrt(ldem__v3l_dot(d, d));
    ldem__ml apart = dist > 0.0;
    ldem__vl inv = 1.0 / dist, zero = ldem__vl_splat(0.0);
    ldem__v3l n = {ldem__vl_select(apart, inv * d.x, zero), ldem__vl_select(apart, inv * d.y, zero),
                   ldem__vl_select(apart, inv * d.z, ldem__vl_splat(1.0))}; /* +z if coincident */
    ldem__v3l tip_i = {ri * n.x + xi.x, ri * n.y + xi.y, ri * n.z + xi.z};
    ldem__vl mrj = -rj;
    ldem__v3l tip_j = {mrj * n.x + xj.x, mrj * n.y + xj.y, mrj * n.z + xj.z};
    ldem__vl half = ldem__vl_splat(0.5);
    *overlap = ri + rj - dist;
    *normal = n;
    *point = (ldem__v3l){half * (tip_i.x + tip_j.x), half * (tip_i.y + tip_j.y),
                         half * (tip_i.z + tip_j.z)};
}

/* ldem__contact_twist_about, every lane. */
static inline void ldem__twist_about_l(ldem__ql dq, ldem__v3l n, ldem__vl *hc, ldem__vl *hs)
{
    ldem__vl along = dq.x * n.x + dq.y * n.y + dq.z * n.z;
    ldem__ml neg = dq.w < 0;
    ldem__vl c = ldem__vl_select(neg, -dq.w, dq.w), s = ldem__vl_select(neg, -along, along);
    ldem__vl r = ldem__vl_sqrt(c * c + s * s);
    ldem__ml pos = r > 0.0;
    *hc = ldem__vl_select(pos, c / r, ldem__vl_splat(1.0));
    *hs = ldem__vl_select(pos, s / r, ldem__vl_splat(0.0));
}

/* ldem_contact_frame_follow_exact, every lane, for new normals n1 that are unit to the
 * scalar path's 4e-15 (the caller checks; the narrow phase's always are). */
static inline ldem__ql ldem__frame_follow_l(ldem__ql q, ldem__ql dq_i, ldem__ql dq_j, ldem__v3l n1)
{
    const ldem__vl one = ldem__vl_splat(1.0), zero = ldem__vl_splat(0.0), two = ldem__vl_splat(2.0);
    ldem__v3l n0 = {two * (q.x * q.z + q.w * q.y), two * (q.y * q.z - q.w * q.x),
                    one - two * (q.x * q.x + q.y * q.y)};
    ldem__vl ci, si, cj, sj;
    ldem__twist_about_l(dq_i, n0, &ci, &si);
    ldem__twist_about_l(dq_j, n0, &cj, &sj);
    ldem__vl c = ci + cj, s = si + sj, r = ldem__vl_sqrt(c * c + s * s);
    ldem__ml pos = r > 0.0;
    c = ldem__vl_select(pos, c / r, one);
    s = ldem__vl_select(pos, s / r, zero);
    ldem__ql twist = {c, s * n0.x, s * n0.y, s * n0.z};
    ldem__v3l axis = ldem__v3l_cross(n0, n1);
    ldem__vl cosine = ldem__v3l_dot(n0, n1);
    ldem__ql swing = {one + cosine, axis.x, axis.y, axis.z};
    /* ldem_quat_normalize: 1/|q| times q, the identity for a zero q */
    ldem__vl norm = ldem__vl_sqrt(swing.w * swing.w + swing.x * swing.x + swing.y * swing.y +
                                  swing.z * swing.z);
    ldem__ml unit = norm > 0.0;
    ldem__vl inv = one / norm;
    swing = (ldem__ql){
        ldem__vl_select(unit, inv * swing.w, one), ldem__vl_select(unit, inv * swing.x, zero),
        ldem__vl_select(unit, inv * swing.y, zero), ldem__vl_select(unit, inv * swing.z, zero)};
    ldem__ql p = ldem__ql_mul(swing, ldem__ql_mul(twist, q));
    /* LDEM_QUAT_RENORM_KATZ */
    ldem__vl k = ldem__vl_splat(0.5) *
                 (ldem__vl_splat(3.0) - (p.w * p.w + p.x * p.x + p.y * p.y + p.z * p.z));
    return (ldem__ql){k * p.w, k * p.x, k * p.y, k * p.z};
}

#endif
