/* MODE: deformation modes. Layout (88-byte header): u32 count, u32 kind, u64 nnodes,
 * u32 grid_dims[3], u32 reserved (0), f64 grid_origin[3], f64 grid_spacing[3],
 * u64 descriptor_bytes; then f64 node_values[count*nnodes*3],
 * f32 grid_values[count*nx*ny*nz*3], descriptor bytes (UTF-8, no NUL). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

#define MODE_HEADER_BYTES 88
_Static_assert(MODE_HEADER_BYTES == 4 + 4 + 8 + 3 * 4 + 4 + 3 * 8 + 3 * 8 + 8,
               "MODE's header, field by field (the comment above)");

void ldem_modes_free(ldem_modes *m)
{
    free(m->node_values);
    free(m->grid_values);
    free(m->descriptor);
    memset(m, 0, sizeof *m);
}

/* Grid points, or 0 (failure) when the product of the dims overflows 64 bits. */
static int grid_points(const uint32_t dims[3], uint64_t *points)
{
    return mul_u64(dims[0], dims[1], points) && mul_u64(*points, dims[2], points);
}

/* Sizes of the three arrays, or 0 (failure) when they overflow. */
static int array_sizes(const ldem_modes *m, uint64_t *nodes, uint64_t *grid)
{
    return mul_u64(m->count, m->nnodes, nodes) && mul_u64(*nodes, 3, nodes) &&
           grid_points(m->grid_dims, grid) && mul_u64(m->count, *grid, grid) &&
           mul_u64(*grid, 3, grid);
}

static const char *check_header(const ldem_modes *m)
{
    if (m->count == 0)
        return "a MODE section needs at least one mode";
    if (m->kind != LDEM_MODE_SAMPLED && m->kind != LDEM_MODE_ANALYTIC)
        return "unknown mode kind (0 sampled, 1 analytic)";
    uint64_t g = 0;
    if (!grid_points(m->grid_dims, &g))
        return "grid dims overflow";
    if (g != 0) {
        for (int a = 0; a < 3; a++) {
            if (m->grid_dims[a] < 2)
                return "a grid field needs at least 2 nodes per axis";
            if (!isfinite(m->grid_origin[a]) || !(m->grid_spacing[a] > 0) ||
                !isfinite(m->grid_spacing[a]))
                return "grid origin must be finite and spacing positive";
        }
    } else if (m->grid_dims[0] || m->grid_dims[1] || m->grid_dims[2]) {
        return "grid dims must be all zero (no grid) or all at least 2";
    }
    if (m->kind == LDEM_MODE_SAMPLED && m->nnodes == 0 && g == 0)
        return "sampled modes need node values or a grid field";
    return NULL;
}

int ldem_modes_encode(const ldem_modes *m, unsigned char **data, uint64_t *len, ldem_err *err)
{
    const char *why = check_header(m);
    uint64_t nodes = 0, grid = 0;
    if (!why && !array_sizes(m, &nodes, &grid))
        why = "sizes overflow";
    /* Refuse to write what a reader would refuse to read. */
    if (!why && m->kind == LDEM_MODE_ANALYTIC && (!m->descriptor || !*m->descriptor))
        why = "analytic modes need a descriptor";
    if (why)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "MODE: %s", why);
    uint64_t dlen = m->descriptor ? strlen(m->descriptor) : 0;
    payload_buffer b;
    int rc = buffer_init(&b, MODE_HEADER_BYTES + 8 * nodes + 4 * grid + dlen, err);
    if (rc)
        return rc;
    buffer_u32(&b, m->count);
    buffer_u32(&b, m->kind);
    buffer_u64(&b, m->nnodes);
    buffer_u32_array(&b, m->grid_dims, 3);
    buffer_u32(&b, 0);
    buffer_f64_array(&b, m->grid_origin, 3);
    buffer_f64_array(&b, m->grid_spacing, 3);
    buffer_u64(&b, dlen);
    buffer_f64_array(&b, m->node_values, nodes);
    buffer_f32_array(&b, m->grid_values, grid);
    buffer_bytes(&b, m->descriptor, dlen);
    return buffer_finish(&b, data, len, err);
}

static int read_header(payload_cursor *c, ldem_modes *m, uint64_t *dlen)
{
    uint32_t reserved = 0;
    int rc = cursor_u32(c, &m->count);
    if (!rc)
        rc = cursor_u32(c, &m->kind);
    if (!rc)
        rc = cursor_u64(c, &m->nnodes);
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_u32(c, &m->grid_dims[a]);
    if (!rc)
        rc = cursor_u32(c, &reserved);
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_f64(c, &m->grid_origin[a]);
    for (int a = 0; a < 3 && !rc; a++)
        rc = cursor_f64(c, &m->grid_spacing[a]);
    if (!rc)
        rc = cursor_u64(c, dlen);
    if (!rc && reserved != 0)
        rc = cursor_fail(c, "reserved field is %u, expected 0", reserved);
    return rc;
}

int ldem_modes_decode(const ldem_section *s, const char *source, ldem_modes *m, ldem_err *err)
{
    memset(m, 0, sizeof *m);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    uint64_t dlen = 0, nodes = 0, grid = 0;
    int rc = read_header(&c, m, &dlen);
    const char *why = rc ? NULL : check_header(m);
    if (!rc && !why && !array_sizes(m, &nodes, &grid))
        why = "array sizes overflow";
    if (!rc && why)
        rc = cursor_fail(&c, "%s", why);
    /* One check of the whole claimed size before any allocation. */
    if (!rc && (nodes > UINT64_MAX / 8 || grid > UINT64_MAX / 4 ||
                8 * nodes > UINT64_MAX - 4 * grid || 8 * nodes + 4 * grid > UINT64_MAX - dlen))
        rc = cursor_fail(&c, "array sizes overflow");
    if (!rc)
        rc = cursor_need(&c, 8 * nodes + 4 * grid + dlen, 1, "mode arrays");
    if (!rc)
        rc = cursor_f64_array(&c, nodes, &m->node_values, "mode values at nodes");
    if (!rc)
        rc = cursor_f32_array(&c, grid, &m->grid_values, "mode grid field");
    const unsigned char *text = NULL;
    if (!rc && dlen)
        rc = cursor_bytes(&c, dlen, &text, "descriptor");
    if (!rc)
        rc = cursor_finish(&c);
    if (!rc && text) {
        if (memchr(text, '\0', (size_t)dlen))
            rc = cursor_fail(&c, "descriptor contains a NUL byte");
        else if (!(m->descriptor = malloc((size_t)dlen + 1)))
            rc = ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
        else {
            memcpy(m->descriptor, text, (size_t)dlen);
            m->descriptor[dlen] = '\0';
        }
    }
    if (!rc && m->kind == LDEM_MODE_ANALYTIC && !m->descriptor)
        rc = cursor_fail(&c, "analytic modes need a descriptor");
    if (!rc && first_nonfinite_f64(m->node_values, nodes) < nodes)
        rc = cursor_fail(&c, "a mode value at a node is not finite");
    if (!rc && first_nonfinite_f32(m->grid_values, grid) < grid)
        rc = cursor_fail(&c, "a mode grid value is not finite");
    if (rc)
        ldem_modes_free(m);
    return rc;
}
