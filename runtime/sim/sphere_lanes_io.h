/* sphere_lanes_io.h — the lanes of sphere_lanes.h loaded from and stored to records.
 *
 * Each lane's vector or quaternion sits in its own record (a body's x, a contact's frame),
 * reached through a pointer. Built element by element, as ldem__v3l_gather does from a local
 * copy, a vector takes three loads and three lane inserts after a copy to the stack, and
 * loads and stores become a sizeable share of a touching contact's instructions
 * (BENCHMARKS.md). Here whole records are loaded and
 * transposed in registers (4×4 for quaternions, 2×2 halves and the z lane for vectors), and
 * stored back the same way. Data movement only: every lane holds the record's bits.
 *
 * Internal to runtime/sim; include after defining LDEM__LANES, as sphere_lanes.h.
 */
#ifndef LDEM_SIM_SPHERE_LANES_IO_H
#define LDEM_SIM_SPHERE_LANES_IO_H

#include "sphere_lanes.h"

#if LDEM__LANES == 4 && defined(__AVX__)
#define LDEM__LANES_IO_AVX 1
#elif LDEM__LANES == 2 && defined(__SSE2__)
#define LDEM__LANES_IO_SSE2 1
#endif

static inline ldem__v3l ldem__v3l_load(const ldem_vec3 *const a[LDEM__LANES])
{
#if defined(LDEM__LANES_IO_AVX)
    /* (x0 y0 | x2 y2) and (x1 y1 | x3 y3): their low and high interleaves are x and y */
    __m256d r02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&a[0]->x)),
                                       _mm_loadu_pd(&a[2]->x), 1);
    __m256d r13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&a[1]->x)),
                                       _mm_loadu_pd(&a[3]->x), 1);
    __m128d z01 = _mm_loadh_pd(_mm_load_sd(&a[0]->z), &a[1]->z);
    __m128d z23 = _mm_loadh_pd(_mm_load_sd(&a[2]->z), &a[3]->z);
    return (ldem__v3l){(ldem__vl)_mm256_unpacklo_pd(r02, r13),
                       (ldem__vl)_mm256_unpackhi_pd(r02, r13),
                       (ldem__vl)_mm256_insertf128_pd(_mm256_castpd128_pd256(z01), z23, 1)};
#elif defined(LDEM__LANES_IO_SSE2)
    __m128d r0 = _mm_loadu_pd(&a[0]->x), r1 = _mm_loadu_pd(&a[1]->x);
    return (ldem__v3l){(ldem__vl)_mm_unpacklo_pd(r0, r1), (ldem__vl)_mm_unpackhi_pd(r0, r1),
                       (ldem__vl)_mm_loadh_pd(_mm_load_sd(&a[0]->z), &a[1]->z)};
#else
    ldem__v3l r = {{0.0}, {0.0}, {0.0}};
    for (int l = 0; l < LDEM__LANES; l++) {
        r.x[l] = a[l]->x;
        r.y[l] = a[l]->y;
        r.z[l] = a[l]->z;
    }
    return r;
#endif
}

static inline ldem__ql ldem__ql_load(const ldem_quat *const a[LDEM__LANES])
{
#if defined(LDEM__LANES_IO_AVX)
    __m256d r0 = _mm256_loadu_pd(&a[0]->w), r1 = _mm256_loadu_pd(&a[1]->w);
    __m256d r2 = _mm256_loadu_pd(&a[2]->w), r3 = _mm256_loadu_pd(&a[3]->w);
    __m256d wy01 = _mm256_unpacklo_pd(r0, r1), xz01 = _mm256_unpackhi_pd(r0, r1);
    __m256d wy23 = _mm256_unpacklo_pd(r2, r3), xz23 = _mm256_unpackhi_pd(r2, r3);
    return (ldem__ql){(ldem__vl)_mm256_permute2f128_pd(wy01, wy23, 0x20),
                      (ldem__vl)_mm256_permute2f128_pd(xz01, xz23, 0x20),
                      (ldem__vl)_mm256_permute2f128_pd(wy01, wy23, 0x31),
                      (ldem__vl)_mm256_permute2f128_pd(xz01, xz23, 0x31)};
#elif defined(LDEM__LANES_IO_SSE2)
    __m128d wx0 = _mm_loadu_pd(&a[0]->w), yz0 = _mm_loadu_pd(&a[0]->y);
    __m128d wx1 = _mm_loadu_pd(&a[1]->w), yz1 = _mm_loadu_pd(&a[1]->y);
    return (ldem__ql){(ldem__vl)_mm_unpacklo_pd(wx0, wx1), (ldem__vl)_mm_unpackhi_pd(wx0, wx1),
                      (ldem__vl)_mm_unpacklo_pd(yz0, yz1), (ldem__vl)_mm_unpackhi_pd(yz0, yz1)};
#else
    ldem__ql r = {{0.0}, {0.0}, {0.0}, {0.0}};
    for (int l = 0; l < LDEM__LANES; l++) {
        r.w[l] = a[l]->w;
        r.x[l] = a[l]->x;
        r.y[l] = a[l]->y;
        r.z[l] = a[l]->z;
    }
    return r;
#endif
}

static inline void ldem__v3l_store(ldem__v3l v, ldem_vec3 *const a[LDEM__LANES])
{
#if defined(LDEM__LANES_IO_AVX)
    __m256d xy02 = _mm256_unpacklo_pd((__m256d)v.x, (__m256d)v.y); /* x0 y0 | x2 y2 */
    __m256d xy13 = _mm256_unpackhi_pd((__m256d)v.x, (__m256d)v.y); /* x1 y1 | x3 y3 */
    __m128d z01 = _mm256_castpd256_pd128((__m256d)v.z);
    __m128d z23 = _mm256_extractf128_pd((__m256d)v.z, 1);
    _mm_storeu_pd(&a[0]->x, _mm256_castpd256_pd128(xy02));
    _mm_storeu_pd(&a[1]->x, _mm256_castpd256_pd128(xy13));
    _mm_storeu_pd(&a[2]->x, _mm256_extractf128_pd(xy02, 1));
    _mm_storeu_pd(&a[3]->x, _mm256_extractf128_pd(xy13, 1));
    _mm_storel_pd(&a[0]->z, z01);
    _mm_storeh_pd(&a[1]->z, z01);
    _mm_storel_pd(&a[2]->z, z23);
    _mm_storeh_pd(&a[3]->z, z23);
#elif defined(LDEM__LANES_IO_SSE2)
    _mm_storeu_pd(&a[0]->x, _mm_unpacklo_pd((__m128d)v.x, (__m128d)v.y));
    _mm_storeu_pd(&a[1]->x, _mm_unpackhi_pd((__m128d)v.x, (__m128d)v.y));
    _mm_storel_pd(&a[0]->z, (__m128d)v.z);
    _mm_storeh_pd(&a[1]->z, (__m128d)v.z);
#else
    for (int l = 0; l < LDEM__LANES; l++)
        *a[l] = ldem__v3l_lane(v, l);
#endif
}

static inline void ldem__ql_store(ldem__ql q, ldem_quat *const a[LDEM__LANES])
{
#if defined(LDEM__LANES_IO_AVX)
    __m256d wx = _mm256_unpacklo_pd((__m256d)q.w, (__m256d)q.x); /* w0 x0 | w2 x2 */
    __m256d wx13 = _mm256_unpackhi_pd((__m256d)q.w, (__m256d)q.x);
    __m256d yz = _mm256_unpacklo_pd((__m256d)q.y, (__m256d)q.z);
    __m256d yz13 = _mm256_unpackhi_pd((__m256d)q.y, (__m256d)q.z);
    _mm256_storeu_pd(&a[0]->w, _mm256_permute2f128_pd(wx, yz, 0x20));
    _mm256_storeu_pd(&a[1]->w, _mm256_permute2f128_pd(wx13, yz13, 0x20));
    _mm256_storeu_pd(&a[2]->w, _mm256_permute2f128_pd(wx, yz, 0x31));
    _mm256_storeu_pd(&a[3]->w, _mm256_permute2f128_pd(wx13, yz13, 0x31));
#elif defined(LDEM__LANES_IO_SSE2)
    _mm_storeu_pd(&a[0]->w, _mm_unpacklo_pd((__m128d)q.w, (__m128d)q.x));
    _mm_storeu_pd(&a[1]->w, _mm_unpackhi_pd((__m128d)q.w, (__m128d)q.x));
    _mm_storeu_pd(&a[0]->y, _mm_unpacklo_pd((__m128d)q.y, (__m128d)q.z));
    _mm_storeu_pd(&a[1]->y, _mm_unpackhi_pd((__m128d)q.y, (__m128d)q.z));
#else
    for (int l = 0; l < LDEM__LANES; l++)
        *a[l] = ldem__ql_lane(q, l);
#endif
}

#endif
