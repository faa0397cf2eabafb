/* ldem/bytes.h — little-endian encoding of fixed-width values, independent of host order.
 *
 * Bundles and binary VTU payloads are little-endian on every host. These helpers compose
 * values byte by byte, so they are correct on big-endian machines too and never perform
 * unaligned loads (UBSan-clean on any buffer).
 */
#ifndef LDEM_BYTES_H
#define LDEM_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void ldem_put_u32le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void ldem_put_u64le(unsigned char *p, uint64_t v)
{
    ldem_put_u32le(p, (uint32_t)v);
    ldem_put_u32le(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t ldem_get_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ldem_get_u64le(const unsigned char *p)
{
    return (uint64_t)ldem_get_u32le(p) | (uint64_t)ldem_get_u32le(p + 4) << 32;
}

static inline void ldem_put_f64le(unsigned char *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    ldem_put_u64le(p, u);
}

static inline double ldem_get_f64le(const unsigned char *p)
{
    uint64_t u = ldem_get_u64le(p);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static inline void ldem_put_f32le(unsigned char *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    ldem_put_u32le(p, u);
}

static inline float ldem_get_f32le(const unsigned char *p)
{
    uint32_t u = ldem_get_u32le(p);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

#endif
