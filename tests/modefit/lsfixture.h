/* Level sets for the analytic/lsquad tests, sampled from exact signed distances. */
#ifndef MODEFIT_TEST_LSFIXTURE_H
#define MODEFIT_TEST_LSFIXTURE_H

#include "ldem/sections.h"

typedef double (*lsfix_sdf)(const double x[3], const void *param);

/* Signed distance of a sphere (param: double radius) and of a box centred at the origin
 * (param: double half[3]). */
double lsfix_sphere(const double x[3], const void *param);
double lsfix_box(const double x[3], const void *param);

/* A grid of spacing h covering [-half, half] plus `pad` cells on every side (lsgen uses
 * about 3), its origin moved by shift·h along every axis (shift = 0: the box's faces lie
 * on grid planes when half/h is whole), φ rounded to float32 like LSET stores it. */
ldem_lset lsfix_make(lsfix_sdf sdf, const void *param, const double half[3], double h,
                     int pad, double shift);

/* Area and second moments ∫y² dA, ∫z² dA of the cross-section {trilinear φ < 0} of `ls`
 * at abscissa x, by sampling ldem_lset_sample at the centres of n × n pixels over
 * [-half_window, half_window]² in (y, z): an independent measure of what the grid
 * represents (its edges are rounded by interpolation), against which quadrature over the
 * same level set can be judged. */
void lsfix_cross_section(const ldem_lset *ls, double x, double half_window, int n,
                         double *area, double *iyy, double *izz);

#endif
