/* ldem/mesh.h — triangle surface meshes as plain arrays.
 *
 * The one mesh type the offline tools pass around (lsgen reads geometry into it, repairs,
 * measures and remeshes it) and the runtime may draw. Vertices are shared between triangles;
 * triangles are counter-clockwise seen from outside once a mesh has been oriented.
 */
#ifndef LDEM_MESH_H
#define LDEM_MESH_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_trimesh {
    size_t nverts;
    double *xyz;     /* 3*nverts: x y z per vertex */
    size_t ntris;
    uint32_t *tri;   /* 3*ntris vertex indices */
} ldem_trimesh;

/* All zero / NULL: an empty mesh that ldem_trimesh_free accepts. */
LDEM_API void ldem_trimesh_init(ldem_trimesh *m);
/* Allocate room for exactly nverts vertices and ntris triangles (contents uninitialised);
 * frees what `m` held before. Counts above 2^32-1 vertices are refused (LDEM_ERR_INPUT). */
LDEM_API int ldem_trimesh_alloc(ldem_trimesh *m, size_t nverts, size_t ntris, ldem_err *err);
LDEM_API void ldem_trimesh_free(ldem_trimesh *m);
/* Every index < nverts and every coordinate finite; errors name `source`. */
LDEM_API int ldem_trimesh_check(const ldem_trimesh *m, const char *source, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
