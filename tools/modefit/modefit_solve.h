/* modefit's own finite-element analyses of the grain, on a tet mesh given with --mesh (or
 * meshed by Gmsh from the bundle's surface): the lowest free-free vibration modes
 * (--eigen) and the static responses to pairs of opposite contact patches
 * (--contact-modes), which become snapshots for the usual bases. */
#ifndef MODEFIT_SOLVE_H
#define MODEFIT_SOLVE_H

#include "modefit_cli.h"

/* The mesh for --eigen / --contact-modes into b->mesh (checked), with b->fdof, b->center
 * and the locator set. */
int modefit_solve_mesh(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                       ldem_err *err);

/* --eigen N: b->phi and b->raw become the N lowest elastic modes, M-orthonormal. */
int modefit_eigen_basis(const modefit_options *o, modefit_basis *b, ldem_err *err);

/* --contact-modes K: b->snaps becomes the K responses to opposite patch pairs. */
int modefit_contact_snapshots(const modefit_options *o, const modefit_grain *g,
                              modefit_basis *b, ldem_err *err);

#endif
