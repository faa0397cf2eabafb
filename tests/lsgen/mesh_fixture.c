/* Meshes and log capture shared by lsgen's mesh-hygiene, mass-property and STL tests. */
#include "mesh_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ldem/log.h"

/* The unit cube: vertex v at (v&1, v>>1&1, v>>2&1), two counter-clockwise triangles per
 * face seen from outside (checked by cube_is_outward below). */
const uint32_t CUBE_TRIS[12][3] = {
    {0, 2, 3}, {0, 3, 1}, /* z = 0 */
    {4, 5, 7}, {4, 7, 6}, /* z = 1 */
    {0, 1, 5}, {0, 5, 4}, /* y = 0 */
    {2, 6, 7}, {2, 7, 3}, /* y = 1 */
    {0, 4, 6}, {0, 6, 2}, /* x = 0 */
    {1, 3, 7}, {1, 7, 5}, /* x = 1 */
};

void mesh_alloc(ldem_trimesh *m, size_t nv, size_t nt)
{
    ldem_err err;
    ldem_trimesh_init(m);
    cr_assert_eq(ldem_trimesh_alloc(m, nv, nt, &err), LDEM_OK, "%s", err.msg);
}

/* A box of size (a, b, c), rotated by q about its centre, centre at t. */
void make_box(ldem_trimesh *m, const double size[3], ldem_quat q, const double t[3])
{
    mesh_alloc(m, 8, 12);
    for (uint32_t v = 0; v < 8; v++) {
        ldem_vec3 local = ldem_vec3_make(((v & 1) - 0.5) * size[0], ((v >> 1 & 1) - 0.5) * size[1],
                                         ((v >> 2 & 1) - 0.5) * size[2]);
        ldem_vec3 g = ldem_quat_rotate(q, local);
        m->xyz[3 * v] = g.x + t[0];
        m->xyz[3 * v + 1] = g.y + t[1];
        m->xyz[3 * v + 2] = g.z + t[2];
    }
    memcpy(m->tri, CUBE_TRIS, sizeof CUBE_TRIS);
}

void make_unit_cube(ldem_trimesh *m)
{
    static const double size[3] = {1, 1, 1}, centre[3] = {0.5, 0.5, 0.5};
    make_box(m, size, ldem_quat_identity(), centre);
}

/* Triangle normal (not unit) and its centroid. */
void tri_normal(const ldem_trimesh *m, size_t t, double n[3], double c[3])
{
    const double *a = m->xyz + 3 * (size_t)m->tri[3 * t],
                 *b = m->xyz + 3 * (size_t)m->tri[3 * t + 1],
                 *d = m->xyz + 3 * (size_t)m->tri[3 * t + 2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    for (int k = 0; k < 3; k++)
        c[k] = (a[k] + b[k] + d[k]) / 3.0;
}

/* Capture ldem_warn/ldem_info output in a temporary file. */
FILE *log_capture;

void capture_log(void)
{
    log_capture = tmpfile();
    cr_assert(log_capture);
    ldem_log_set_stream(log_capture);
    ldem_log_set_program("lsgen");
}

char *captured_log(void)
{
    static char buf[8192];
    fflush(log_capture);
    rewind(log_capture);
    size_t n = fread(buf, 1, sizeof buf - 1, log_capture);
    buf[n] = '\0';
    ldem_log_set_stream(NULL);
    fclose(log_capture);
    return buf;
}

