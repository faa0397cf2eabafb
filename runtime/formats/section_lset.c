/* LSET: the grain's signed-distance grid. Layout: u32 dims[3], u32 reserved (0),
 * f64 origin[3], f64 spacing[3], f32 phi[nx*ny*nz]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

#define LSET_HEADER_BYTES 64

void ldem_lset_free(ldem_lset *ls)
{
    free(ls->phi);
    ls->phi = NULL;
}

uint64_t ldem_lset_count(const ldem_lset *ls)
{
    return (uint64_t)ls->dims[0] * ls->dims[1] * ls->dims[2];
}

/* Shared by encode and decode: why the grid geometry is unusable, or NULL. */
static const char *check_geometry(const uint32_t dims[3], const double origin[3],
                                  const double spacing[3])
{
    for (int a = 0; a < 3; a++) {
        if (dims[a] < 2)
            return "every axis needs at least 2 grid nodes (trilinear sampling)";
        if (!isfinite(origin[a]))
            return "origin is not finite";
        if (!(spacing[a] > 0) || !isfinite(spacing[a]))
            return "spacing must be positive and finite";
    }
    /* The product of three u32 can exceed 64 bits and wrap to a small count. */
    uint64_t n;
    if (!mul_u64(dims[0], dims[1], &n) || !mul_u64(n, dims[2], &n) ||
        n > (UINT64_MAX - LSET_HEADER_BYTES) / 4)
        return "grid has more nodes than a payload can hold";
    return NULL;
}

int ldem_lset_encode(const ldem_lset *ls, unsigned char **data, uint64_t *len, ldem_err *err)
{
    const char *why = check_geometry(ls->dims, ls->origin, ls->spacing);
    if (why)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "LSET: %s", why);
    uint64_t n = ldem_lset_count(ls);
    payload_buffer b;
    int rc = buffer_init(&b, LSET_HEADER_BYTES + 4 * n, err);
    if (rc)
        return rc;
    for (int a = 0; a < 3; a++)
        buffer_u32(&b, ls->dims[a]);
    buffer_u32(&b, 0);
    buffer_f64_array(&b, ls->origin, 3);
    buffer_f64_array(&b, ls->spacing, 3);
    buffer_f32_array(&b, ls->phi, n);
    return buffer_finish(&b, data, len, err);
}

int ldem_lset_decode(const ldem_section *s, const char *source, ldem_lset *ls, ldem_err *err)
{
    memset(ls, 0, sizeof *ls);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    uint32_t reserved = 0;
    int rc = LDEM_OK;
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_u32(&c, &ls->dims[a]);
    if (!rc)
        rc = cursor_u32(&c, &reserved);
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_f64(&c, &ls->origin[a]);
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_f64(&c, &ls->spacing[a]);
    if (rc)
        return rc;
    const char *why = check_geometry(ls->dims, ls->origin, ls->spacing);
    if (why)
        return cursor_fail(&c, "%s (dims %u x %u x %u)", why, ls->dims[0], ls->dims[1],
                           ls->dims[2]);
    if (reserved != 0)
        return cursor_fail(&c, "reserved field is %u, expected 0", reserved);
    uint64_t n = ldem_lset_count(ls);
    rc = cursor_f32_array(&c, n, &ls->phi, "level-set values");
    if (!rc)
        rc = cursor_finish(&c);
    if (!rc) {
        uint64_t bad = first_nonfinite_f32(ls->phi, n);
        if (bad < n)
            rc = cursor_fail(&c, "level-set value %llu is not finite", (unsigned long long)bad);
    }
    if (rc)
        ldem_lset_free(ls);
    return rc;
}
