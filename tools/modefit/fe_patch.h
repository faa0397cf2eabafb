/* Contact-like loads on a meshed grain: a Hertz pressure patch where a rigid plane normal
 * to a direction d would first touch the grain. The patch is centred on the boundary node
 * farthest along d (on the centre of the nodes that tie for it: a flat face); the pressure p(ρ) = p0 sqrt(1 − ρ²/a²), ρ the distance from the
 * centre across d, acts along −d (a frictionless plane) on boundary faces facing d within
 * depth a of the centre, and p0 makes the total force exactly 1 (by the same quadrature
 * that makes the nodal forces). */
#ifndef MODEFIT_FE_PATCH_H
#define MODEFIT_FE_PATCH_H

#include <stddef.h>

#include "fe_locate.h"
#include "femesh.h"

/* Adds the consistent nodal forces of a unit patch load of radius a along unit d to f
 * (3 · nnodes). centre receives the patch centre, *faces the number of boundary faces
 * loaded (0: nothing added; a below the mesh's resolution cannot happen, since the
 * centre's own faces always see some pressure). */
int fe_patch_load(const fe_mesh *m, const fe_locator *loc, const double d[3], double a,
                  double *f, double centre[3], size_t *faces, ldem_err *err);

#endif
