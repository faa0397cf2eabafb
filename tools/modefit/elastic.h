/* Isotropic linear elasticity, the one constitutive law modefit integrates (eqs. 4, 54). */
#ifndef MODEFIT_ELASTIC_H
#define MODEFIT_ELASTIC_H

/* Lamé constants from Young's modulus and Poisson's ratio. */
static inline void elastic_lame(double E, double nu, double *lambda, double *mu)
{
    *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    *mu = E / (2.0 * (1.0 + nu));
}

/* Small strain of a displacement gradient: E = (G + Gᵀ) / 2. */
static inline void elastic_strain(const double G[3][3], double Es[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Es[i][j] = 0.5 * (G[i][j] + G[j][i]);
}

/* The bilinear energy form (C : Ea) : Eb = λ tr Ea tr Eb + 2μ Ea : Eb. */
static inline double elastic_bilinear(double lambda, double mu, const double Ea[3][3],
                                      const double Eb[3][3])
{
    double tra = Ea[0][0] + Ea[1][1] + Ea[2][2];
    double trb = Eb[0][0] + Eb[1][1] + Eb[2][2];
    double dd = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            dd += Ea[i][j] * Eb[i][j];
    return lambda * tra * trb + 2.0 * mu * dd;
}

#endif
