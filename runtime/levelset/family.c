/* family.c — interpolation along precomputed level sets (Henzel & Karapiperis §3.1.4;
 * ldem/levelset.h).
 *
 * Each field φ_{α,s} is the grain deformed by ε_s Φα alone, built once on φ0's own grid by
 * the exact inverse map: for every grid node x, the reference point x_ref with
 * x_ref + ε Φα(x_ref) = x is found by fixed-point iteration (a contraction while |ε ∇Φα| < 1)
 * and φ0 sampled there. A query then costs a few trilinear samples and no mode evaluation;
 * the price is memory (modes × samples grids) and the build. */
#include "ldem/levelset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/log.h"

#define FIXED_POINT_ITERATIONS 60

void ldem_lset_family_free(ldem_lset_family *f)
{
    if (!f)
        return;
    free(f->eps_min);
    free(f->eps_max);
    free(f->phi);
    memset(f, 0, sizeof *f);
}

size_t ldem_lset_family_bytes(const ldem_lset_family *f)
{
    size_t points = (size_t)f->dims[0] * f->dims[1] * f->dims[2];
    return (size_t)f->nmodes * f->nsamples * points * sizeof *f->phi;
}

static double amplitude(const ldem_lset_family *f, uint32_t mode, uint32_t s)
{
    return f->eps_min[mode] +
           (f->eps_max[mode] - f->eps_min[mode]) * (double)s / (double)(f->nsamples - 1);
}

/* φ0 at the reference point of grid point x under ε Φα; counts a failed convergence. */
static double pulled_back(const ldem_lset *ls, const ldem_modeset *m, double *coef, ldem_vec3 x,
                          size_t *unconverged)
{
    double tol = 1e-9 * fmin(ls->spacing[0], fmin(ls->spacing[1], ls->spacing[2]));
    ldem_vec3 ref = x, u;
    int converged = 0;
    for (int it = 0; it < FIXED_POINT_ITERATIONS && !converged; it++) {
        ldem_modes_displacement(m, coef, ref, &u, NULL);
        ldem_vec3 next = ldem_vec3_sub(x, u);
        converged = ldem_vec3_dist(next, ref) <= tol;
        ref = next;
    }
    if (!converged)
        (*unconverged)++;
    double phi;
    ldem_lset_sample(ls, ref, &phi, NULL);
    return phi;
}

int ldem_lset_family_build(const ldem_lset *ls, const ldem_modeset *modes,
                           const double *eps_min, const double *eps_max, uint32_t nsamples,
                           ldem_lset_family *out, ldem_err *err)
{
    memset(out, 0, sizeof *out);
    uint32_t n = modes->n;
    if (nsamples < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "precomputed level sets need at least 2 amplitudes per mode, got %u",
                            nsamples);
    for (uint32_t a = 0; a < n; a++)
        if (!(eps_max[a] > eps_min[a]) || !isfinite(eps_min[a]) || !isfinite(eps_max[a]))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "precomputed level sets: mode %u's range [%g, %g] is empty", a,
                                eps_min[a], eps_max[a]);
    size_t points = (size_t)ls->dims[0] * ls->dims[1] * ls->dims[2];
    double bytes = (double)n * nsamples * (double)points * sizeof(float);
    if (bytes > 0.25 * (double)SIZE_MAX || bytes > 64e9)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "precomputed level sets would take %.3g bytes (%u modes x %u "
                            "amplitudes x %zu grid points)",
                            bytes, n, nsamples, points);
    out->nmodes = n;
    out->nsamples = nsamples;
    memcpy(out->dims, ls->dims, sizeof out->dims);
    memcpy(out->origin, ls->origin, sizeof out->origin);
    memcpy(out->spacing, ls->spacing, sizeof out->spacing);
    out->eps_min = malloc(n * sizeof *out->eps_min);
    out->eps_max = malloc(n * sizeof *out->eps_max);
    out->phi = malloc((size_t)n * nsamples * points * sizeof *out->phi);
    double *coef = calloc(n, sizeof *coef);
    if (!out->eps_min || !out->eps_max || !out->phi || !coef) {
        free(coef);
        ldem_lset_family_free(out);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for %.3g bytes of precomputed level sets", bytes);
    }
    memcpy(out->eps_min, eps_min, n * sizeof *eps_min);
    memcpy(out->eps_max, eps_max, n * sizeof *eps_max);
    size_t unconverged = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t s = 0; s < nsamples; s++) {
            memset(coef, 0, n * sizeof *coef);
            coef[a] = amplitude(out, a, s);
            float *field = out->phi + ((size_t)a * nsamples + s) * points;
            size_t idx = 0;
            for (uint32_t k = 0; k < ls->dims[2]; k++)
                for (uint32_t j = 0; j < ls->dims[1]; j++)
                    for (uint32_t i = 0; i < ls->dims[0]; i++, idx++)
                        field[idx] = (float)pulled_back(ls, modes, coef,
                                                        ldem_lset_node(ls, i, j, k),
                                                        &unconverged);
        }
    free(coef);
    if (unconverged)
        ldem_warn("precomputed level sets: the inverse map did not converge at %zu of %zu grid "
                  "points (|eps grad Phi| >= 1 there: the deformation folds); the last iterate "
                  "was used",
                  unconverged, (size_t)n * nsamples * points);
    return LDEM_OK;
}

/* φ and ∇φ of one stored field at p. */
static int sample_field(const ldem_lset_family *f, const float *field, ldem_vec3 p,
                        double *phi, ldem_vec3 *grad)
{
    ldem_lset view = {{f->dims[0], f->dims[1], f->dims[2]},
                      {f->origin[0], f->origin[1], f->origin[2]},
                      {f->spacing[0], f->spacing[1], f->spacing[2]},
                      (float *)field};
    return ldem_lset_sample(&view, p, phi, grad);
}

int ldem_lset_family_sample(const ldem_lset_family *f, const ldem_lset *ls, const double *eps,
                            ldem_vec3 p, double *phi, ldem_vec3 *grad)
{
    ldem_vec3 g0 = ldem_vec3_zero();
    double phi0;
    int inside = ldem_lset_sample(ls, p, &phi0, grad ? &g0 : NULL);
    double sum = phi0;
    ldem_vec3 gsum = g0;
    size_t points = (size_t)f->dims[0] * f->dims[1] * f->dims[2];
    for (uint32_t a = 0; a < f->nmodes; a++) {
        if (eps[a] == 0.0)
            continue;
        /* the bracketing samples (clamped to the range) and the weight of the upper one */
        double span = f->eps_max[a] - f->eps_min[a];
        double u = (eps[a] - f->eps_min[a]) / span * (double)(f->nsamples - 1);
        if (!(u >= 0.0))
            u = 0.0;
        if (u > (double)(f->nsamples - 1))
            u = (double)(f->nsamples - 1);
        uint32_t s = (uint32_t)u;
        if (s > f->nsamples - 2)
            s = f->nsamples - 2;
        double t = u - s;
        const float *lo = f->phi + ((size_t)a * f->nsamples + s) * points;
        double p_lo, p_hi;
        ldem_vec3 g_lo = ldem_vec3_zero(), g_hi = ldem_vec3_zero();
        sample_field(f, lo, p, &p_lo, grad ? &g_lo : NULL);
        sample_field(f, lo + points, p, &p_hi, grad ? &g_hi : NULL);
        sum += (1.0 - t) * p_lo + t * p_hi - phi0;
        if (grad)
            gsum = ldem_vec3_add(gsum, ldem_vec3_sub(ldem_vec3_add(ldem_vec3_scale(g_lo, 1.0 - t),
                                                                   ldem_vec3_scale(g_hi, t)),
                                                     g0));
    }
    *phi = sum;
    if (grad)
        *grad = gsum;
    return inside;
}
