/* Hertz normal contact of two elastic spheres (ldem/contact/hertz.h). */
#include "ldem/contact/hertz.h"

#include <math.h>

ldem_elastic_moduli ldem_elastic_moduli_of(double E, double nu)
{
    return (ldem_elastic_moduli){E / (2.0 * (1.0 - nu * nu)), E / ((1.0 + nu) * (2.0 - nu)),
                                 (2.0 - nu) / (2.0 * (1.0 - nu))};
}

ldem_elastic_moduli ldem_elastic_moduli_mix(double E1, double nu1, double E2, double nu2)
{
    if (E1 == E2 && nu1 == nu2)
        return ldem_elastic_moduli_of(E1, nu1);
    double estar = 1.0 / ((1.0 - nu1 * nu1) / E1 + (1.0 - nu2 * nu2) / E2);
    double gstar = 1.0 / ((1.0 + nu1) * (2.0 - nu1) / (2.0 * E1) +
                          (1.0 + nu2) * (2.0 - nu2) / (2.0 * E2));
    return (ldem_elastic_moduli){estar, gstar, estar / gstar};
}

static int check_inputs(double E, double nu, double R1, double R2, ldem_err *err)
{
    if (!(isfinite(E) && E > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "Young's modulus E must be positive and finite (got %g)", E);
    /* ν = −1 makes G* infinite and ν > 1/2 is not a stable isotropic material. */
    if (!(isfinite(nu) && nu > -1.0 && nu <= 0.5))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "Poisson's ratio nu must lie in (-1, 0.5] (got %g)", nu);
    if (!(isfinite(R1) && R1 > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "radius R1 must be positive and finite (got %g)", R1);
    if (!(R2 > 0) || isnan(R2))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "radius R2 must be positive, or inf for a flat (got %g)", R2);
    return LDEM_OK;
}

int ldem_elastic_pair_init_moduli(ldem_elastic_pair *p, double E, double nu,
                                  const ldem_elastic_moduli *m, double R1, double R2,
                                  ldem_err *err)
{
    int rc = check_inputs(E, nu, R1, R2, err);
    if (rc)
        return rc;
    if (!(isfinite(m->estar) && m->estar > 0 && isfinite(m->gstar) && m->gstar > 0 &&
          isfinite(m->kappa) && m->kappa > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "effective moduli E* %g, G* %g must be positive and finite",
                            m->estar, m->gstar);
    p->E = E;
    p->nu = nu;
    p->R1 = R1;
    p->R2 = R2;
    p->rstar = isinf(R2) ? R1 : R1 * R2 / (R1 + R2);
    p->estar = m->estar;
    p->gstar = m->gstar;
    p->kappa = m->kappa;
    p->sqrt_rstar = sqrt(p->rstar);
    p->cn = 4.0 / 3.0 * p->estar * p->sqrt_rstar;
    return LDEM_OK;
}

int ldem_elastic_pair_init(ldem_elastic_pair *p, double E, double nu, double R1, double R2,
                           ldem_err *err)
{
    int rc = check_inputs(E, nu, R1, R2, err);
    if (rc)
        return rc;
    ldem_elastic_moduli m = ldem_elastic_moduli_of(E, nu);
    return ldem_elastic_pair_init_moduli(p, E, nu, &m, R1, R2, err);
}

double ldem_hertz_force(const ldem_elastic_pair *p, double d)
{
    return d > 0 ? p->cn * d * sqrt(d) : 0.0;
}

double ldem_hertz_stiffness(const ldem_elastic_pair *p, double d)
{
    return d > 0 ? 2.0 * p->estar * sqrt(p->rstar * d) : 0.0;
}

double ldem_hertz_radius(const ldem_elastic_pair *p, double d)
{
    return d > 0 ? sqrt(p->rstar * d) : 0.0;
}

double ldem_hertz_energy(const ldem_elastic_pair *p, double d)
{
    return 0.4 * ldem_hertz_force(p, d) * (d > 0 ? d : 0.0);
}

double ldem_hertz_approach(const ldem_elastic_pair *p, double force)
{
    return force > 0 ? cbrt((force / p->cn) * (force / p->cn)) : 0.0;
}

double ldem_hertz_damping(const ldem_elastic_pair *p, double d, double mstar, double zeta,
                          double d_rate)
{
    if (d <= 0.0)
        return 0.0;
    return ldem_hertz_damping_from(ldem_hertz_stiffness(p, d), ldem_hertz_force(p, d), mstar,
                                   zeta, d_rate);
}

double ldem_hertz_damping_from(double kn, double n, double mstar, double zeta, double d_rate)
{
    double f = 2.0 * zeta * sqrt(kn * mstar) * d_rate;
    return f < -n ? -n : f;
}
