/* Phong-interpolated normals for remeshed nodes (see node_normals.h). */
#include "node_normals.h"

#include <math.h>
#include <stdint.h>

#include "surface_nodes.h"
#include "ldem/vec3.h"

static ldem_vec3 corner(const ldem_trimesh *m, size_t t, int k)
{
    const double *p = m->xyz + 3 * (size_t)m->tri[3 * t + k];
    return ldem_vec3_make(p[0], p[1], p[2]);
}

static ldem_vec3 row(const double *a, size_t i)
{
    return ldem_vec3_make(a[3 * i], a[3 * i + 1], a[3 * i + 2]);
}

/* Barycentric coordinates of q (on the triangle's plane) in triangle (a, b, c). */
static void barycentric(ldem_vec3 q, ldem_vec3 a, ldem_vec3 b, ldem_vec3 c, double w[3])
{
    ldem_vec3 n = ldem_vec3_cross(ldem_vec3_sub(b, a), ldem_vec3_sub(c, a));
    double n2 = ldem_vec3_norm2(n);
    w[0] = ldem_vec3_dot(n, ldem_vec3_cross(ldem_vec3_sub(b, q), ldem_vec3_sub(c, q))) / n2;
    w[1] = ldem_vec3_dot(n, ldem_vec3_cross(ldem_vec3_sub(c, q), ldem_vec3_sub(a, q))) / n2;
    w[2] = 1.0 - w[0] - w[1];
}

int lsgen_nodes_interpolate_normals(const lsgen_bvh *bvh, const ldem_trimesh *input,
                                    double feature_deg, ldem_nodes *nodes, ldem_err *err)
{
    ldem_nodes vertex_normals;
    int rc = lsgen_nodes_from_mesh(input, &vertex_normals, err);
    if (rc)
        return rc;
    const double cos_feature = cos(0.5 * feature_deg * acos(-1.0) / 180.0);
    for (size_t i = 0; i < nodes->count; i++) {
        lsgen_hit hit;
        lsgen_bvh_closest(bvh, row(nodes->position, i), INFINITY, &hit);
        if (hit.tri == SIZE_MAX)
            continue;
        ldem_vec3 a = corner(input, hit.tri, 0), b = corner(input, hit.tri, 1),
                  c = corner(input, hit.tri, 2);
        ldem_vec3 face = ldem_vec3_cross(ldem_vec3_sub(b, a), ldem_vec3_sub(c, a));
        double face_len = ldem_vec3_norm(face);
        if (!(face_len > 0))
            continue;
        face = ldem_vec3_scale(face, 1.0 / face_len);
        double w[3];
        barycentric(hit.point, a, b, c, w);
        ldem_vec3 n = ldem_vec3_zero();
        int smooth = 1;
        for (int k = 0; k < 3 && smooth; k++) {
            ldem_vec3 nk = row(vertex_normals.normal, input->tri[3 * hit.tri + k]);
            smooth = ldem_vec3_dot(nk, face) >= cos_feature;
            n = ldem_vec3_axpy(w[k], nk, n);
        }
        double len = ldem_vec3_norm(n);
        if (!smooth || !(len > 0))
            continue;
        nodes->normal[3 * i] = n.x / len;
        nodes->normal[3 * i + 1] = n.y / len;
        nodes->normal[3 * i + 2] = n.z / len;
    }
    ldem_nodes_free(&vertex_normals);
    return LDEM_OK;
}
