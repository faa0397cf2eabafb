/* family.c — interpolation along precomputed level sets (Henzel & Karapiperis §3.1.4;
 * ldem/levelset.h).
 *
 * Each field φ_{α,s} is the grain deformed by ε_s Φα alone, built once on φ0's own grid by
 * the exact inverse map: for every grid node x, the reference point x_ref with
 * x_ref + ε Φα(x_ref) = x is found by fixed-point iteration (a contraction while |ε ∇Φα| < 1)
 * and φ0 sampled there. A query then costs a few trilinear samples and no mode evaluation;
 * the price is memory (modes × samples grids) and the build.
 *
 * The fields extend φ0's grid by as many cells as the sampled amplitudes can move the body
 * (per axis): a grain bent beyond its stored box must still be found there, as the remap
 * finds it (the remap pulls every query back into φ0's box; a field on φ0's box alone would
 * cut the deformed grain off at the box faces). */
#include "ldem/levelset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/log.h"
#include "ldem/memory_budget.h"

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

uint64_t ldem_lset_family_bytes_at_least(const ldem_lset *ls, uint32_t nmodes,
                                         uint64_t nsamples)
{
    uint64_t points = ldem_memory_mul(ldem_memory_mul(ls->dims[0], ls->dims[1]), ls->dims[2]);
    return ldem_memory_mul(ldem_memory_mul(points, sizeof(float)),
                           ldem_memory_mul(nmodes, nsamples));
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

/* How far the sampled amplitudes can move the body along each axis: Σα max(|ε_min|, |ε_max|)
 * · max |Φα_axis| over φ0's grid nodes inside the body or near it (φ0 < 2h). */
static int body_reach(const ldem_lset *ls, const ldem_modeset *m, const double *eps_min,
                      const double *eps_max, double reach[3], ldem_err *err)
{
    uint32_t n = m->n;
    ldem_vec3 *phi = malloc(n * sizeof *phi);
    double *most = calloc(3 * (size_t)n, sizeof *most);
    if (!phi || !most) {
        free(phi);
        free(most);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for precomputed level sets");
    }
    double band = 2.0 * fmax(ls->spacing[0], fmax(ls->spacing[1], ls->spacing[2]));
    size_t idx = 0;
    for (uint32_t k = 0; k < ls->dims[2]; k++)
        for (uint32_t j = 0; j < ls->dims[1]; j++)
            for (uint32_t i = 0; i < ls->dims[0]; i++, idx++) {
                if (!(ls->phi[idx] < band))
                    continue;
                ldem_modes_eval(m, ldem_lset_node(ls, i, j, k), phi, NULL);
                for (uint32_t a = 0; a < n; a++) {
                    double c[3] = {fabs(phi[a].x), fabs(phi[a].y), fabs(phi[a].z)};
                    for (int d = 0; d < 3; d++)
                        most[3 * a + d] = fmax(most[3 * a + d], c[d]);
                }
            }
    reach[0] = reach[1] = reach[2] = 0.0;
    for (uint32_t a = 0; a < n; a++) {
        double amplitude = fmax(fabs(eps_min[a]), fabs(eps_max[a]));
        for (int d = 0; d < 3; d++)
            reach[d] += amplitude * most[3 * a + d];
    }
    free(phi);
    free(most);
    return LDEM_OK;
}

static ldem_vec3 family_node(const ldem_lset_family *f, uint32_t i, uint32_t j, uint32_t k)
{
    return ldem_vec3_make(f->origin[0] + i * f->spacing[0], f->origin[1] + j * f->spacing[1],
                          f->origin[2] + k * f->spacing[2]);
}

int ldem_lset_family_build(const ldem_lset *ls, const ldem_modeset *modes, const double *eps_min,
                           const double *eps_max, uint32_t nsamples, ldem_lset_family *out,
                           ldem_err *err)
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
    /* the grid: φ0's, padded by the body's reach (counts in double: no overflow) */
    double reach[3];
    double points_d = (double)ls->dims[0] * ls->dims[1] * ls->dims[2];
    if (points_d * sizeof(float) * n * nsamples <= 64e9) {
        int rc = body_reach(ls, modes, eps_min, eps_max, reach, err);
        if (rc)
            return rc;
    } else {
        reach[0] = reach[1] = reach[2] = 0.0; /* refused below anyway */
    }
    double dims[3];
    for (int d = 0; d < 3; d++) {
        double pad = ceil(reach[d] / ls->spacing[d]);
        dims[d] = ls->dims[d] + 2.0 * pad;
        out->origin[d] = ls->origin[d] - pad * ls->spacing[d];
        out->spacing[d] = ls->spacing[d];
    }
    double bytes = (double)n * nsamples * dims[0] * dims[1] * dims[2] * sizeof(float);
    if (bytes > 0.25 * (double)SIZE_MAX || bytes > 64e9 || dims[0] > UINT32_MAX ||
        dims[1] > UINT32_MAX || dims[2] > UINT32_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "precomputed level sets would take %.3g bytes (%u modes x %u "
                            "amplitudes x %.0f x %.0f x %.0f grid points, padded by how far "
                            "the amplitudes move the grain)",
                            bytes, n, nsamples, dims[0], dims[1], dims[2]);
    for (int d = 0; d < 3; d++)
        out->dims[d] = (uint32_t)dims[d];
    size_t points = (size_t)out->dims[0] * out->dims[1] * out->dims[2];
    out->nmodes = n;
    out->nsamples = nsamples;
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
            for (uint32_t k = 0; k < out->dims[2]; k++)
                for (uint32_t j = 0; j < out->dims[1]; j++)
                    for (uint32_t i = 0; i < out->dims[0]; i++, idx++)
                        field[idx] = (float)pulled_back(ls, modes, coef, family_node(out, i, j, k),
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
static int sample_field(const ldem_lset_family *f, const float *field, ldem_vec3 p, double *phi,
                        ldem_vec3 *grad)
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
    uint32_t active = 0;
    for (uint32_t a = 0; a < f->nmodes; a++)
        active += eps[a] != 0.0;
    /* undeformed: the stored φ0 itself, bit for bit */
    if (!active)
        return ldem_lset_sample(ls, p, phi, grad);
    /* φ0 is needed only to superpose two or more modes' changes; one mode is its own field */
    double phi0 = 0.0;
    ldem_vec3 g0 = ldem_vec3_zero();
    if (active > 1)
        ldem_lset_sample(ls, p, &phi0, grad ? &g0 : NULL);
    double sum = active > 1 ? phi0 : 0.0;
    ldem_vec3 gsum = active > 1 ? g0 : ldem_vec3_zero();
    const double base = active > 1 ? phi0 : 0.0;
    const ldem_vec3 gbase = g0;
    size_t points = (size_t)f->dims[0] * f->dims[1] * f->dims[2];
    int inside = 1;
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
        /* the deformed grain lives on the padded grid */
        inside &= sample_field(f, lo, p, &p_lo, grad ? &g_lo : NULL);
        sample_field(f, lo + points, p, &p_hi, grad ? &g_hi : NULL);
        sum += (1.0 - t) * p_lo + t * p_hi - base;
        if (grad)
            gsum = ldem_vec3_add(gsum, ldem_vec3_sub(ldem_vec3_add(ldem_vec3_scale(g_lo, 1.0 - t),
                                                                   ldem_vec3_scale(g_hi, t)),
                                                     gbase));
    }
    *phi = sum;
    if (grad)
        *grad = gsum;
    return inside;
}
