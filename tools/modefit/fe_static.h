/* Linear static response of a free grain to a load, by inertia relief: the load's net
 * force and moment are balanced by the rigid-body acceleration they would cause (the
 * d'Alembert forces −M R a), and the elastic response to what is left is the one free of
 * rigid motion (M-orthogonal to it). A pair of opposite contact patches is nearly in
 * equilibrium already; inertia relief takes up what is not (non-collinear patch centres
 * on an irregular grain) without inventing a support. */
#ifndef MODEFIT_FE_STATIC_H
#define MODEFIT_FE_STATIC_H

#include <stddef.h>

#include "fe_solver.h"
#include "fe_sparse.h"

/* u[k] for load f[k], k < nload (n doubles each, n = S->n). `f` factors K + shift·M;
 * rigid holds the 6 rigid fields (fe_rigid_fields). Iterates u += A⁻¹(f̃ − K u) with the
 * rigid part removed after each step until the residual is below 1e-12 of f̃ (each step
 * gains about shift/ω₁²). *iterations receives the most steps any load took. */
int fe_static_inertia_relief(const fe_sparse *S, fe_solver *f, const double *rigid,
                             const double *load, size_t nload, double *u, int *iterations,
                             ldem_err *err);

#endif
