/* Surface nodes from a triangulation: barycentric area weights and angle-weighted normals.
 *
 * One third of each triangle's area goes to each of its corners, so the weights sum to the
 * mesh's area exactly and a node stands for the patch around it. The normal at a vertex is
 * the average of the incident face normals weighted by the face's angle at that vertex
 * (Thürmer & Wüthrich 1998): unlike area weighting, it does not depend on how the
 * neighbourhood happens to be triangulated, and it gives the exact (1,1,1)/√3 at a cube
 * corner. */
#include "surface_nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/vec3.h"

static ldem_vec3 vertex(const ldem_trimesh *m, uint32_t i)
{
    return ldem_vec3_make(m->xyz[3 * (size_t)i], m->xyz[3 * (size_t)i + 1],
                          m->xyz[3 * (size_t)i + 2]);
}

/* Interior angle at p between the edges to q and r, robust near 0 and π (atan2 form). */
static double corner_angle(ldem_vec3 p, ldem_vec3 q, ldem_vec3 r)
{
    ldem_vec3 u = ldem_vec3_sub(q, p), v = ldem_vec3_sub(r, p);
    return atan2(ldem_vec3_norm(ldem_vec3_cross(u, v)), ldem_vec3_dot(u, v));
}

static int alloc_nodes(ldem_nodes *out, size_t n, size_t t, ldem_err *err)
{
    memset(out, 0, sizeof *out);
    out->position = malloc(3 * (n ? n : 1) * sizeof(double));
    out->normal = calloc(3 * (n ? n : 1), sizeof(double));
    out->area = calloc(n ? n : 1, sizeof(double));
    out->triangles = malloc(3 * (t ? t : 1) * sizeof(uint32_t));
    if (!out->position || !out->normal || !out->area || !out->triangles) {
        ldem_nodes_free(out);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for %zu surface nodes", n);
    }
    out->count = n;
    out->ntriangles = t;
    return LDEM_OK;
}

int lsgen_nodes_from_mesh(const ldem_trimesh *surf, ldem_nodes *out, ldem_err *err)
{
    int rc = ldem_trimesh_check(surf, NULL, err);
    if (rc)
        return rc;
    rc = alloc_nodes(out, surf->nverts, surf->ntris, err);
    if (rc)
        return rc;
    memcpy(out->position, surf->xyz, 3 * surf->nverts * sizeof(double));
    memcpy(out->triangles, surf->tri, 3 * surf->ntris * sizeof(uint32_t));

    for (size_t t = 0; t < surf->ntris; t++) {
        const uint32_t *c = surf->tri + 3 * t;
        ldem_vec3 p[3] = {vertex(surf, c[0]), vertex(surf, c[1]), vertex(surf, c[2])};
        ldem_vec3 twice_area = ldem_vec3_cross(ldem_vec3_sub(p[1], p[0]),
                                               ldem_vec3_sub(p[2], p[0]));
        double len = ldem_vec3_norm(twice_area);
        if (!(len > 0))
            continue; /* a zero-area face has no normal and no area to give */
        ldem_vec3 unit = ldem_vec3_scale(twice_area, 1.0 / len);
        for (int k = 0; k < 3; k++) {
            double angle = corner_angle(p[k], p[(k + 1) % 3], p[(k + 2) % 3]);
            double *nrm = out->normal + 3 * (size_t)c[k];
            nrm[0] += angle * unit.x;
            nrm[1] += angle * unit.y;
            nrm[2] += angle * unit.z;
            out->area[c[k]] += len / 6.0; /* one third of the area len/2 */
        }
    }
    for (size_t i = 0; i < surf->nverts; i++) {
        double *nrm = out->normal + 3 * i;
        double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        if (!(len > 0)) {
            ldem_nodes_free(out);
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "surface vertex %zu lies on no triangle of non-zero area "
                                "(or its face normals cancel): it cannot be a surface node",
                                i);
        }
        for (int d = 0; d < 3; d++)
            nrm[d] /= len;
    }
    return LDEM_OK;
}
