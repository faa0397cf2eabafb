#include "lsfixture.h"

#include <math.h>
#include <stdlib.h>

#include "ldem/grid.h"

double lsfix_sphere(const double x[3], const void *param)
{
    double r = *(const double *)param;
    return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - r;
}

/* Outside: distance to the box; inside: minus the distance to the nearest face. */
double lsfix_box(const double x[3], const void *param)
{
    const double *half = param;
    double out2 = 0.0, in = -INFINITY;
    for (int a = 0; a < 3; a++) {
        double q = fabs(x[a]) - half[a];
        if (q > 0.0)
            out2 += q * q;
        in = fmax(in, q);
    }
    return out2 > 0.0 ? sqrt(out2) : in;
}

ldem_lset lsfix_make(lsfix_sdf sdf, const void *param, const double half[3], double h,
                     int pad, double shift)
{
    ldem_lset ls = {{0, 0, 0}, {0, 0, 0}, {h, h, h}, NULL};
    for (int a = 0; a < 3; a++) {
        ls.origin[a] = -half[a] - pad * h - shift * h;
        ls.dims[a] = (uint32_t)ceil(2.0 * (half[a] + pad * h) / h - 1e-9) + 2;
    }
    size_t n = (size_t)ls.dims[0] * ls.dims[1] * ls.dims[2];
    ls.phi = malloc(n * sizeof *ls.phi);
    if (!ls.phi)
        abort();
    for (uint32_t k = 0; k < ls.dims[2]; k++)
        for (uint32_t j = 0; j < ls.dims[1]; j++)
            for (uint32_t i = 0; i < ls.dims[0]; i++) {
                double x[3] = {ls.origin[0] + i * h, ls.origin[1] + j * h,
                               ls.origin[2] + k * h};
                ls.phi[i + (size_t)ls.dims[0] * (j + (size_t)ls.dims[1] * k)] =
                    (float)sdf(x, param);
            }
    return ls;
}

void lsfix_cross_section(const ldem_lset *ls, double x, double half_window, int n,
                         double *area, double *iyy, double *izz)
{
    const double pixel = 2.0 * half_window / n;
    double a = 0.0, yy = 0.0, zz = 0.0;
    for (int j = 0; j < n; j++) {
        double z = -half_window + (j + 0.5) * pixel;
        double row = 0.0, row_yy = 0.0;
        for (int i = 0; i < n; i++) {
            double y = -half_window + (i + 0.5) * pixel, phi;
            ldem_lset_sample(ls, ldem_vec3_make(x, y, z), &phi, NULL);
            if (phi < 0.0) {
                row += 1.0;
                row_yy += y * y;
            }
        }
        a += row;
        yy += row_yy;
        zz += row * z * z;
    }
    *area = a * pixel * pixel;
    *iyy = yy * pixel * pixel;
    *izz = zz * pixel * pixel;
}
