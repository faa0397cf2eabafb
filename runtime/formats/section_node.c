/* NODE: surface nodes and their triangles. Layout: u64 count, u64 ntriangles,
 * f64 position[3n], f64 normal[3n], f64 area[n], u32 triangles[3t]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

#define NODE_HEADER_BYTES 16
/* Normals are stored unit; allow for float32-derived inputs and round-off. */
#define NORMAL_TOLERANCE 1e-6

void ldem_nodes_free(ldem_nodes *n)
{
    free(n->position);
    free(n->normal);
    free(n->area);
    free(n->triangles);
    memset(n, 0, sizeof *n);
}

int ldem_nodes_encode(const ldem_nodes *n, unsigned char **data, uint64_t *len, ldem_err *err)
{
    uint64_t bytes = NODE_HEADER_BYTES + n->count * (3 + 3 + 1) * 8 + n->ntriangles * 3 * 4;
    payload_buffer b;
    int rc = buffer_init(&b, bytes, err);
    if (rc)
        return rc;
    buffer_u64(&b, n->count);
    buffer_u64(&b, n->ntriangles);
    buffer_f64_array(&b, n->position, 3 * n->count);
    buffer_f64_array(&b, n->normal, 3 * n->count);
    buffer_f64_array(&b, n->area, n->count);
    buffer_u32_array(&b, n->triangles, 3 * n->ntriangles);
    return buffer_finish(&b, data, len, err);
}

static int validate(payload_cursor *c, const ldem_nodes *n)
{
    uint64_t bad = first_nonfinite_f64(n->position, 3 * n->count);
    if (bad < 3 * n->count)
        return cursor_fail(c, "node %llu: position is not finite", (unsigned long long)(bad / 3));
    for (uint64_t i = 0; i < n->count; i++) {
        const double *v = n->normal + 3 * i;
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(fabs(len - 1) <= NORMAL_TOLERANCE))
            return cursor_fail(c, "node %llu: normal has length %g, expected 1",
                               (unsigned long long)i, len);
        if (!(n->area[i] >= 0) || !isfinite(n->area[i]))
            return cursor_fail(c, "node %llu: area weight %g must be finite and >= 0",
                               (unsigned long long)i, n->area[i]);
    }
    for (uint64_t t = 0; t < 3 * n->ntriangles; t++)
        if (n->triangles[t] >= n->count)
            return cursor_fail(c, "triangle %llu refers to node %u, but there are %llu nodes",
                               (unsigned long long)(t / 3), n->triangles[t],
                               (unsigned long long)n->count);
    return LDEM_OK;
}

int ldem_nodes_decode(const ldem_section *s, const char *source, ldem_nodes *n, ldem_err *err)
{
    memset(n, 0, sizeof *n);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    int rc = cursor_u64(&c, &n->count);
    if (!rc)
        rc = cursor_u64(&c, &n->ntriangles);
    /* Check the whole claimed size first, so corrupt counts fail before any allocation. */
    /* zero first: mul_u64 sets them, but GCC's LTO warns it may not */
    uint64_t per_node = 7 * 8, node_bytes = 0, tri_bytes = 0;
    if (!rc && (!mul_u64(n->count, per_node, &node_bytes) ||
                !mul_u64(n->ntriangles, 12, &tri_bytes) ||
                node_bytes > UINT64_MAX - tri_bytes))
        rc = cursor_fail(&c, "node count %llu and triangle count %llu are impossible",
                         (unsigned long long)n->count, (unsigned long long)n->ntriangles);
    if (!rc)
        rc = cursor_need(&c, node_bytes + tri_bytes, 1, "nodes and triangles");
    if (!rc)
        rc = cursor_f64_array(&c, 3 * n->count, &n->position, "node positions");
    if (!rc)
        rc = cursor_f64_array(&c, 3 * n->count, &n->normal, "node normals");
    if (!rc)
        rc = cursor_f64_array(&c, n->count, &n->area, "node areas");
    if (!rc)
        rc = cursor_u32_array(&c, 3 * n->ntriangles, &n->triangles, "triangles");
    if (!rc)
        rc = cursor_finish(&c);
    if (!rc)
        rc = validate(&c, n);
    if (rc)
        ldem_nodes_free(n);
    return rc;
}
