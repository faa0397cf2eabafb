/* Energy integrals over the MDR springs of a Jäger history stack (jager_energy.h). */
#include "jager_energy.h"

#include <math.h>

/* Three-point Gauss–Legendre on [−1, 1]: exact for polynomials of degree ≤ 5. */
static const double gauss_node[3] = {-0.77459666924148337704, 0.0, 0.77459666924148337704};
static const double gauss_weight[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};

typedef struct quadrature {
    double z[3];      /* levels z = x²/R* at the nodes */
    double weight[3]; /* weights including the half-width of the x interval */
} quadrature;

static quadrature quadrature_on(double rstar, double xl, double xh)
{
    double mid = 0.5 * (xh + xl), half = 0.5 * (xh - xl);
    quadrature q;
    for (int g = 0; g < 3; g++) {
        double x = mid + half * gauss_node[g];
        q.z[g] = x * x / rstar;
        q.weight[g] = half * gauss_weight[g];
    }
    return q;
}

void ldem__jager_slip_moment(double rstar, double d1, double xlo, double xhi,
                             const double p_hi[2], const double w[2], double v[2])
{
    quadrature q = quadrature_on(rstar, xlo, xhi);
    double hi = xhi * xhi / rstar, i0 = 0, i1 = 0;
    for (int g = 0; g < 3; g++) {
        double bound = d1 - q.z[g];
        i0 += q.weight[g] * bound;
        i1 += q.weight[g] * bound * (hi - q.z[g]);
    }
    v[0] += p_hi[0] * i0 + w[0] * i1;
    v[1] += p_hi[1] * i0 + w[1] * i1;
}

double ldem__jager_bound_square(double rstar, double d1, double xlo, double x1)
{
    quadrature q = quadrature_on(rstar, xlo, x1);
    double sum = 0;
    for (int g = 0; g < 3; g++)
        sum += q.weight[g] * (d1 - q.z[g]) * (d1 - q.z[g]);
    return sum;
}

double ldem__jager_leaving_square(double rstar, double xlo, double xhi, const double u_hi[2],
                                  const double w[2], const double g[2], double d0)
{
    quadrature q = quadrature_on(rstar, xlo, xhi);
    double hi = xhi * xhi / rstar, sum = 0;
    for (int k = 0; k < 3; k++) {
        double ux = u_hi[0] + w[0] * (hi - q.z[k]) + g[0] * (d0 - q.z[k]);
        double uy = u_hi[1] + w[1] * (hi - q.z[k]) + g[1] * (d0 - q.z[k]);
        sum += q.weight[k] * (ux * ux + uy * uy);
    }
    return sum;
}

double ldem__jager_stack_square(double rstar, const ldem_history_pool *pool,
                                const ldem_jager_contact *c)
{
    /* Walk down from the top, where U = 0, carrying U at the top of each segment. */
    double u[2] = {0, 0}, sum = 0, hi = c->d;
    for (ldem_jager_cursor k = ldem_jager_first(pool, c); k.cell; ldem_jager_next(pool, &k)) {
        double lo = k.cell->base;
        const double *w = k.cell->w;
        quadrature q = quadrature_on(rstar, sqrt(rstar * lo), sqrt(rstar * hi));
        for (int k = 0; k < 3; k++) {
            double ux = u[0] + w[0] * (hi - q.z[k]), uy = u[1] + w[1] * (hi - q.z[k]);
            sum += q.weight[k] * (ux * ux + uy * uy);
        }
        u[0] += w[0] * (hi - lo);
        u[1] += w[1] * (hi - lo);
        hi = lo;
    }
    return sum;
}
