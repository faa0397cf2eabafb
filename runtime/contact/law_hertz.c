/* law_hertz.c — what the Hertz-based laws share (law_hertz.h). */
#include "law_hertz.h"

#include <math.h>

#include "ldem/contact/laws.h"

static const double PI = 3.14159265358979323846;

double ldem__law_rayleigh_time(const ldem_pair_law *law, const ldem_law_grain *g, int *by_mass)
{
    double E = law->elastic.E, nu = law->elastic.nu;
    double G = E / (2.0 * (1.0 + nu));
    *by_mass = 0;
    return PI * g->radius * sqrt(g->density / G) / (0.1631 * nu + 0.8766);
}

const ldem_law_ops *ldem__law_hertz_resolve(const ldem_pair_law *law)
{
    return law->mu == 0.0 ? &ldem_law_frictionless : law->ops;
}
