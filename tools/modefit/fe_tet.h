/* The 4- and 10-node tetrahedra: shape functions, quadrature, isoparametric map.
 * Natural coordinates (r, s, t) with L0 = 1 - r - s - t; the reference tet has volume 1/6.
 * Node order as in femesh.h (corners 0-3 at (0,0,0), (1,0,0), (0,1,0), (0,0,1)). */
#ifndef MODEFIT_FE_TET_H
#define MODEFIT_FE_TET_H

#include <stddef.h>

#include "femesh.h"

/* N[order] at rst; dN[order][3] = dN/d(r,s,t) unless dN is NULL. */
void fe_tet_shape(int order, const double rst[3], double *N, double (*dN)[3]);

/* A symmetric quadrature rule on the reference tet; weights sum to 1/6. */
typedef struct fe_rule {
    int degree; /* exact for polynomials up to this degree */
    int npoints;
    const double (*rst)[3];
    const double *w;
} fe_rule;

/* The cheapest stored rule exact to at least `degree` (1..5 are available; asking more
 * returns the highest). */
const fe_rule *fe_tet_rule(int degree);

/* Map of element e at rst: x (may be NULL), J[i][j] = dx_i/d(rst)_j, returns det J
 * (> 0 for a valid element). */
double fe_tet_map(const fe_mesh *m, size_t e, const double rst[3], double x[3], double J[3][3]);

/* Gradients of the shape functions with respect to x at rst: G[order][3]; returns det J. */
double fe_tet_gradients(const fe_mesh *m, size_t e, const double rst[3], double (*G)[3]);

/* The same from shape derivatives already evaluated at the point (dN as fe_tet_shape
 * gives them), for loops over the points of a fixed rule; G may be NULL (det J only).
 * (Added by the FE numerics: fe_integrate tabulates dN once per rule.) */
double fe_tet_gradients_at(const fe_mesh *m, size_t e, const double (*dN)[3], double (*G)[3]);

/* Natural coordinates of x in element e: linear guess from the corners, then Newton on
 * the quadratic map (tet10). Returns 1 when x lies inside (all four barycentric
 * coordinates >= -tol), 0 otherwise; rst holds the estimate either way. */
int fe_tet_invert(const fe_mesh *m, size_t e, const double x[3], double tol, double rst[3]);

#endif
