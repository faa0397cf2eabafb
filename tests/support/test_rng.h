/* Fixed-seed random numbers for tests: splitmix64, the same sequence on every platform,
 * so a failing sample can be reproduced. One state per test file (static). */
#ifndef LDEM_TEST_RNG_H
#define LDEM_TEST_RNG_H

#include <stdint.h>

#include "ldem/vec3.h"

static uint64_t rng_state;

static inline void rng_seed(uint64_t seed)
{
    rng_state = seed;
}

static inline uint64_t splitmix64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [a, b), 53 random bits. */
static inline double rng_uniform(double a, double b)
{
    return a + (b - a) * (double)(splitmix64() >> 11) * 0x1.0p-53;
}

/* A point uniform in the box [lo, hi), drawn x, y, z in that order: one draw per statement,
 * since the order in which a call's arguments are evaluated is unspecified (GCC and Clang
 * differ) and a test's points must not depend on the compiler. */
static inline ldem_vec3 rng_point(ldem_vec3 lo, ldem_vec3 hi)
{
    double x = rng_uniform(lo.x, hi.x);
    double y = rng_uniform(lo.y, hi.y);
    double z = rng_uniform(lo.z, hi.z);
    return ldem_vec3_make(x, y, z);
}

/* Uniform in [-1, 1). */
static inline double uniform(void)
{
    return (double)(splitmix64() >> 11) * 0x1.0p-52 - 1.0;
}

#endif
