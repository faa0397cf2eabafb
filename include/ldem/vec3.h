/* ldem/vec3.h — 3-vectors of doubles.
 *
 * Plain values passed and returned by value: the compiler keeps them in registers, and pure
 * functions over plain structs are what the physics modules are built from (docs/design.md,
 * "Layers"). Everything here is static inline and infallible.
 */
#ifndef LDEM_VEC3_H
#define LDEM_VEC3_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_vec3 {
    double x, y, z;
} ldem_vec3;

static inline ldem_vec3 ldem_vec3_make(double x, double y, double z)
{
    ldem_vec3 r = {x, y, z};
    return r;
}

static inline ldem_vec3 ldem_vec3_zero(void)
{
    return ldem_vec3_make(0.0, 0.0, 0.0);
}

static inline ldem_vec3 ldem_vec3_add(ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline ldem_vec3 ldem_vec3_sub(ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline ldem_vec3 ldem_vec3_neg(ldem_vec3 a)
{
    return ldem_vec3_make(-a.x, -a.y, -a.z);
}

static inline ldem_vec3 ldem_vec3_scale(ldem_vec3 a, double s)
{
    return ldem_vec3_make(s * a.x, s * a.y, s * a.z);
}

/* s·a + b: the update every integrator and contact law writes (x += dt·v). */
static inline ldem_vec3 ldem_vec3_axpy(double s, ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_make(s * a.x + b.x, s * a.y + b.y, s * a.z + b.z);
}

static inline double ldem_vec3_dot(ldem_vec3 a, ldem_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline ldem_vec3 ldem_vec3_cross(ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_make(a.y * b.z - a.z * b.y,
                          a.z * b.x - a.x * b.z,
                          a.x * b.y - a.y * b.x);
}

static inline double ldem_vec3_norm2(ldem_vec3 a)
{
    return ldem_vec3_dot(a, a);
}

static inline double ldem_vec3_norm(ldem_vec3 a)
{
    return sqrt(ldem_vec3_dot(a, a));
}

static inline double ldem_vec3_dist(ldem_vec3 a, ldem_vec3 b)
{
    return ldem_vec3_norm(ldem_vec3_sub(a, b));
}

/* a/|a|. The zero vector (and only it) maps to the zero vector: callers that need a
 * direction test the norm themselves, and a zero result never injects NaN into a force sum
 * (e.g. a tangential displacement that is exactly zero has no direction and no force). */
static inline ldem_vec3 ldem_vec3_normalize(ldem_vec3 a)
{
    double n = ldem_vec3_norm(a);
    return n > 0.0 ? ldem_vec3_scale(a, 1.0 / n) : ldem_vec3_zero();
}

/* The part of a perpendicular to the unit vector n: a − (a·n) n (tangential projection). */
static inline ldem_vec3 ldem_vec3_reject(ldem_vec3 a, ldem_vec3 n)
{
    return ldem_vec3_axpy(-ldem_vec3_dot(a, n), n, a);
}

#ifdef __cplusplus
}
#endif
#endif
