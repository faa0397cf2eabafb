/* Triangle meshes: allocation and the structural check every consumer relies on. */
#include "ldem/mesh.h"

#include <math.h>
#include <stdlib.h>

void ldem_trimesh_init(ldem_trimesh *m)
{
    m->nverts = 0;
    m->xyz = NULL;
    m->ntris = 0;
    m->tri = NULL;
}

void ldem_trimesh_free(ldem_trimesh *m)
{
    if (!m)
        return;
    free(m->xyz);
    free(m->tri);
    ldem_trimesh_init(m);
}

int ldem_trimesh_alloc(ldem_trimesh *m, size_t nverts, size_t ntris, ldem_err *err)
{
    ldem_trimesh_free(m);
    if (nverts > UINT32_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "mesh has %zu vertices; at most %lu are supported", nverts,
                            (unsigned long)UINT32_MAX);
    if (ntris > SIZE_MAX / (3 * sizeof(uint32_t)) || nverts > SIZE_MAX / (3 * sizeof(double)))
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "mesh too large to allocate");
    double *xyz = malloc((nverts ? nverts : 1) * 3 * sizeof *xyz);
    uint32_t *tri = malloc((ntris ? ntris : 1) * 3 * sizeof *tri);
    if (!xyz || !tri) {
        free(xyz);
        free(tri);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for a mesh of %zu vertices and %zu triangles",
                            nverts, ntris);
    }
    m->xyz = xyz;
    m->tri = tri;
    m->nverts = nverts;
    m->ntris = ntris;
    return LDEM_OK;
}

int ldem_trimesh_check(const ldem_trimesh *m, const char *source, ldem_err *err)
{
    for (size_t i = 0; i < 3 * m->nverts; i++)
        if (!isfinite(m->xyz[i]))
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                "vertex %zu has a non-finite coordinate (%g)", i / 3,
                                m->xyz[i]);
    for (size_t t = 0; t < 3 * m->ntris; t++)
        if (m->tri[t] >= m->nverts)
            return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                                "triangle %zu refers to vertex %lu, but the mesh has %zu", t / 3,
                                (unsigned long)m->tri[t], m->nverts);
    return LDEM_OK;
}
