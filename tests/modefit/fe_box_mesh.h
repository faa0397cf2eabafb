/* Tet meshes built in code for the FE tests (no file readers involved). */
#ifndef TESTS_MODEFIT_FE_BOX_MESH_H
#define TESTS_MODEFIT_FE_BOX_MESH_H

#include <stddef.h>

#include "femesh.h"

/* The box [0,a]×[0,b]×[0,c] split into nx×ny×nz cubes, each cube into the 6 tets around
 * its diagonal from (0,0,0) to (1,1,1) (Kuhn's subdivision: conforming across cubes),
 * every tet positively oriented. order 10 adds the edge midpoints, in femesh.h's order.
 * Nodes are numbered compactly (every node is used). Aborts on allocation failure. */
void fe_test_box(fe_mesh *m, int order, int nx, int ny, int nz, double a, double b, double c);

/* Moves every midside node whose edge is not on the box's boundary by a random offset of
 * up to `amount` times the edge's length (a curved mesh whose boundary stays the box's
 * plane faces). seed selects the offsets. */
void fe_test_curve_interior(fe_mesh *m, double amount, unsigned seed);

/* The spherical shell sector r in [R1, R2], polar angle θ in [θ1, θ2], azimuth φ in
 * [φ1, φ2] (constants below): the box mesh of [0,1]³ with n cubes per side, every node
 * (midside nodes included) mapped by (u, v, w) -> spherical coordinates (r, θ, φ), which
 * is smooth with Jacobian r² sin θ > 0. Tet10: curved elements whose midside nodes on the
 * r = R1 and r = R2 faces lie on those spheres; tet4: the straight-sided version. */
#define FE_SHELL_R1 1.0
#define FE_SHELL_R2 2.0
#define FE_SHELL_T1 0.78539816339744830962 /* π/4 */
#define FE_SHELL_T2 2.35619449019234492885 /* 3π/4 */
#define FE_SHELL_P1 0.0
#define FE_SHELL_P2 1.57079632679489661923 /* π/2 */
void fe_test_shell(fe_mesh *m, int order, int n);

/* Range of det J / det J_straight (the Jacobian of the tet through the corners) over
 * every element, sampled at the points i/6 of each element (vertices included): 1 for
 * straight elements; a minimum > 0 says no element is tangled. */
void fe_test_jacobian_range(const fe_mesh *m, double *lo, double *hi);

/* Frees what fe_test_box allocated (the readers' fe_mesh_free may not exist yet). */
void fe_test_mesh_free(fe_mesh *m);

/* Deterministic uniform random numbers in [0, 1) (xorshift64*). */
double fe_test_uniform(unsigned long long *state);

#endif
