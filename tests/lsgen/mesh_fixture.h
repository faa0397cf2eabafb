/* Meshes and log capture shared by lsgen's mesh-hygiene, mass-property and STL tests. */
#ifndef LSGEN_TEST_MESH_FIXTURE_H
#define LSGEN_TEST_MESH_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/mesh.h"
#include "ldem/quat.h"

/* The unit cube: vertex v at (v&1, v>>1&1, v>>2&1), two counter-clockwise triangles per
 * face seen from outside. */
extern const uint32_t CUBE_TRIS[12][3];

/* An empty mesh (m is initialised first) with room for nv vertices and nt triangles. */
void mesh_alloc(ldem_trimesh *m, size_t nv, size_t nt);
/* A box of size (a, b, c), rotated by q about its centre, centre at t. */
void make_box(ldem_trimesh *m, const double size[3], ldem_quat q, const double t[3]);
/* The unit cube [0, 1]^3. */
void make_unit_cube(ldem_trimesh *m);
/* Triangle normal (not unit) and its centroid. */
void tri_normal(const ldem_trimesh *m, size_t t, double n[3], double c[3]);
/* Capture ldem_warn/ldem_info output until captured_log() returns it (and stops). */
void capture_log(void);
char *captured_log(void);

#endif
