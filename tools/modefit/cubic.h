/* modefit --cubic: FEM snapshots made symmetric under the rotations that permute the axes.
 *
 * Henzel §4.2 compacts a sphere with six rigid walls, a FEM model usually with two plates
 * along z. With C the cyclic axis permutation (x,y,z) ↦ (y,z,x) as a rotation matrix
 * (C v = (v_y, v_z, v_x): C e_z = e_y, C² e_z = e_x) and P_p = C^p, p = 0, 1, 2, a field
 * u on the mesh gives the rotated copies
 *
 *     (R_p u)(x) = P_p u(P_pᵀ x),
 *
 * the same deformation acting along the permuted axes (a z-compaction becomes a y- and an
 * x-compaction). The rotations are about the origin of the FEM frame: the mesh must be
 * (nearly) symmetric about it, like a sphere centred at the origin.
 *
 * Representation. The FEM mesh is not symmetric under P_p (a compaction mesh is refined at
 * its two z-poles only), so R_p u interpolated onto the mesh's own nodes would be the
 * pole's concentrated deformation on the coarse elements of the equator: measured on the
 * shipped sphere, the six pole values of the sum then spread by 11 % and the copies'
 * stiffnesses by 12 % (0.3 % and 0 this way). Instead a cubic field is a triple
 * (f_0, f_1, f_2) of fields on the mesh standing for Σ_p R_p f_p, each term exact on its
 * own rotated mesh:
 *   - values at a point x: Σ_p P_p f_p(P_pᵀ x), each P_pᵀ x located in the mesh
 *     (cubic_eval);
 *   - integrals over the (symmetric) body: for isotropic elasticity and a mass density
 *     the bilinear forms are invariant under rotation, so
 *         <Σ_p R_p a_p, Σ_q R_q b_q> = Σ_p,q <a_p, R_(q−p) b_q>   (mod 3)
 *     integrated on the mesh, with R_r b_q interpolated at the mesh's nodes: the diagonal
 *     terms (r = 0) are exact, and a cross term weighs the interpolated field against
 *     an exact one (cubic_inner). The Euclidean product of nodal values is defined by the
 *     same formula. Gram matrices of a set with itself are symmetrized.
 * `--cubic sum` makes each snapshot u the triple (u, u, u); `--cubic copies` makes three,
 * (u, 0, 0), (0, u, 0), (0, 0, u). modefit removes rigid motion from u first: a rotated
 * rigid-free field is rigid-free on its rotated mesh.
 *
 * Locating the rotated mesh nodes P_pᵀ x_n (cubic_map): inside the mesh, fe_locate's
 * element. Where P_pᵀ x_n lies just outside a curved (tet10) boundary -- a node on the
 * sphere rotated onto a coarser, more faceted part of the mesh -- the closest boundary
 * tet's own interpolant is continued (natural coordinates by Newton, accepted when every
 * barycentric coordinate is >= −CUBIC_EXTRAPOLATE); farther out, the value at the closest
 * boundary point (fe_locate's constant extension). Linear fields are thus reproduced
 * exactly inside and where continued, quadratic ones by straight tet10 elements. */
#ifndef MODEFIT_CUBIC_H
#define MODEFIT_CUBIC_H

#include <stddef.h>

#include "basis.h"
#include "fe_locate.h"
#include "femesh.h"
#include "ldem/err.h"

enum cubic_kind {
    CUBIC_NONE = 0,
    CUBIC_SUM = 1,    /* each snapshot u becomes (u, u, u) */
    CUBIC_COPIES = 2  /* each snapshot u becomes (u, 0, 0), (0, u, 0), (0, 0, u) */
};

enum { CUBIC_ROTATIONS = 3 };

/* How far outside its element (barycentric, in element units) a point may lie for the
 * element's interpolant to be continued rather than the boundary value taken. */
#define CUBIC_EXTRAPOLATE 0.05

/* P = C^p (p = 0, 1, 2), C v = (v_y, v_z, v_x). */
void cubic_rotation(int p, double P[3][3]);

/* How cubic_locate placed a point. */
enum cubic_where { CUBIC_INSIDE = 0, CUBIC_EXTRAPOLATED = 1, CUBIC_CLAMPED = 2 };

/* Places x for fe_interpolate: inside the mesh, continued from the boundary element just
 * outside a curved boundary, or at the closest boundary point (see above). *gap (may be
 * NULL) receives 0 inside, else the distance from the boundary's corner triangulation.
 * Thread-safe. */
int cubic_locate(const fe_mesh *m, const fe_locator *loc, const double x[3], fe_place *p,
                 double *gap);

/* What locating the rotated nodes met. */
typedef struct cubic_stats {
    size_t located;          /* points: mesh nodes × the two rotations P ≠ I */
    size_t extrapolated;     /* continued from a boundary element */
    size_t clamped;          /* given the closest boundary point's value */
    double max_extrapolated; /* largest distance from the corner triangulation, each kind */
    double max_clamped;
    long worst_node;         /* file number of the mesh node of max_clamped, or -1 */
    int worst_rotation;      /* its p (1 or 2) */
} cubic_stats;

/* Where P_pᵀ x_n falls for every mesh node x_n and p = 1, 2 (built once). */
typedef struct cubic_map cubic_map;

int cubic_map_build(const fe_mesh *m, const fe_locator *loc, cubic_map **out,
                    cubic_stats *stats, ldem_err *err);
void cubic_map_free(cubic_map *map);

/* out = R_p u at the mesh's nodes for `count` fields (stride 3·nnodes); p = 0 copies. */
int cubic_rotate(const cubic_map *map, int p, const double *u, size_t count, double *out,
                 ldem_err *err);

/* Triples from `count` fields of ndof doubles (out: count triples for sum, 3·count for
 * copies, copy-major: triple p·count + i is copy p of field i; each triple 3·ndof). */
void cubic_triples(int kind, const double *u, size_t count, size_t ndof, double *out);

/* An inner product on triples (ndof = 3 · base.ndof) from one on mesh fields, by the
 * formula above. The context must outlive the returned basis_inner. */
typedef struct cubic_inner_ctx {
    const cubic_map *map;
    basis_inner base;
} cubic_inner_ctx;
basis_inner cubic_inner(cubic_inner_ctx *ctx);

/* Values of n triples (each 3·3·nnodes doubles, consecutive) at x: out[3k + d]. extend 0:
 * each term located by fe_locate (constant extension beyond the boundary), 1: by
 * cubic_locate. Returns the largest distance outside the mesh among the three points
 * P_pᵀ x that were not inside (0 if all were; for extend 1 only the clamped ones count).
 * Thread-safe. */
double cubic_eval(const fe_mesh *m, const fe_locator *loc, const double *triples, size_t n,
                  const double x[3], int extend, double *out);

/* The six poles of a mesh centred at the origin: ±R e_axis with R the largest coordinate
 * magnitude of any node (a sphere's radius, a cube's half side); point[k] for
 * k = 2·axis + (negative side), inward the unit vector towards the origin. */
void cubic_poles(const fe_mesh *m, double point[6][3], double inward[6][3]);

#endif
