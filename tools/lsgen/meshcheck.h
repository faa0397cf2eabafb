/* Making a real-world surface mesh usable: weld, drop degenerate triangles, orient. */
#ifndef LSGEN_MESHCHECK_H
#define LSGEN_MESHCHECK_H

#include "ldem/err.h"
#include "ldem/mesh.h"

typedef struct lsgen_mesh_report {
    size_t welded;              /* vertices merged into an identical earlier vertex */
    size_t unused_vertices;     /* vertices on no triangle, dropped */
    size_t degenerate;          /* triangles skipped: repeated vertex or zero area */
    size_t boundary_edges;      /* edges with one triangle: the mesh has holes */
    size_t nonmanifold_edges;   /* edges shared by more than two triangles */
    double nonmanifold_at[2][3]; /* the first such edge's ends, to point the user at it */
    size_t flipped;             /* triangles reoriented to agree with their neighbours */
    size_t components;          /* pieces connected through manifold edges (oriented as units) */
    size_t inverted_components; /* pieces that were inside-out as a whole and were flipped */
} lsgen_mesh_report;

/* In place: check coordinates are finite (else LDEM_ERR_INPUT naming `source` and the
 * vertex), weld vertices with equal coordinates (+0 == -0), remove degenerate triangles
 * (repeated vertex, or area <= 1e-14 * bbox diagonal^2) and unused vertices (the rest keep
 * their order), count boundary and non-manifold edges, make orientation consistent across
 * manifold edges (breadth-first over each component, flipping the smaller class), then flip
 * each component whose signed volume has the wrong sign: positive, except for a closed
 * component inside an odd number of other closed components (a cavity wall, which faces
 * inward). Open components are judged by their signed volume too. Fewer than 4 triangles
 * left, or |volume| <= 1e-12 * bbox volume, is LDEM_ERR_INPUT ("zero-volume mesh: ...").
 * *r is zeroed first. On error the mesh is valid (indices in range) but may be partly
 * repaired. The caller warns with the counts (lsgen_mesh_report_warn). */
int lsgen_mesh_repair(ldem_trimesh *m, const char *source, lsgen_mesh_report *r, ldem_err *err);

/* One warning line per non-zero problem count, naming `source`, through ldem_warn (and one
 * for more than one component). welded and unused_vertices are how STL and .msh files
 * normally look: those go to ldem_info, not ldem_warn. */
void lsgen_mesh_report_warn(const lsgen_mesh_report *r, const char *source);

#endif
