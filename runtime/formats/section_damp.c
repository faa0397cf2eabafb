/* DAMP: modal damping and natural frequencies. Layout: u32 n, u32 kind, f64 alpha,
 * f64 beta, f64 zeta[n], f64 omega[n], f64 c[n*n] row-major (docs/bundle.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

/* Relative asymmetry of C tolerated: round-off of C = αM + βK or of Φ diag(2ζω) Φᵀ. */
#define DAMP_SYMMETRY_TOL 1e-12

const char *ldem_damping_kind_name(uint32_t kind)
{
    switch (kind) {
    case LDEM_DAMPING_NONE: return "none";
    case LDEM_DAMPING_RAYLEIGH: return "rayleigh";
    case LDEM_DAMPING_RATIO: return "ratio";
    default: return NULL;
    }
}

void ldem_damping_free(ldem_damping *d)
{
    free(d->zeta);
    free(d->omega);
    free(d->c);
    memset(d, 0, sizeof *d);
}

static uint64_t damping_payload_size(uint32_t n)
{
    return 24 + 16 * (uint64_t)n + 8 * (uint64_t)n * n;
}

/* Largest |c_ij − c_ji| and largest |c_ij|. */
static void asymmetry(const double *c, uint32_t n, double *worst, double *scale)
{
    *worst = 0.0;
    *scale = 0.0;
    for (uint64_t i = 0; i < n; i++)
        for (uint64_t j = 0; j < n; j++) {
            *scale = fmax(*scale, fabs(c[i * n + j]));
            if (j > i)
                *worst = fmax(*worst, fabs(c[i * n + j] - c[j * n + i]));
        }
}

static int check_finite(const ldem_damping *d, char *why, size_t size)
{
    uint64_t n = d->n, nn = n * n, bad;
    if (!isfinite(d->alpha) || !isfinite(d->beta))
        snprintf(why, size, "alpha = %g, beta = %g: must be finite", d->alpha, d->beta);
    else if ((bad = first_nonfinite_f64(d->zeta, n)) < n)
        snprintf(why, size, "zeta[%llu] is not finite", (unsigned long long)bad);
    else if ((bad = first_nonfinite_f64(d->omega, n)) < n)
        snprintf(why, size, "omega[%llu] is not finite", (unsigned long long)bad);
    else if ((bad = first_nonfinite_f64(d->c, nn)) < nn)
        snprintf(why, size, "C entry (%llu, %llu) is not finite", (unsigned long long)(bad / n),
                 (unsigned long long)(bad % n));
    else
        return 0;
    return 1;
}

/* Frequencies positive and ascending (they are sorted eigenvalues); ratios non-negative. */
static int check_modal_values(const ldem_damping *d, char *why, size_t size)
{
    for (uint32_t k = 0; k < d->n; k++) {
        if (!(d->omega[k] > 0.0)) {
            snprintf(why, size, "omega[%u] = %g: natural frequencies must be > 0", k,
                     d->omega[k]);
            return 1;
        }
        if (k > 0 && d->omega[k] < d->omega[k - 1]) {
            snprintf(why, size, "omega[%u] = %g < omega[%u] = %g: frequencies must be ascending",
                     k, d->omega[k], k - 1, d->omega[k - 1]);
            return 1;
        }
        if (!(d->zeta[k] >= 0.0)) {
            snprintf(why, size, "zeta[%u] = %g: damping ratios must be >= 0", k, d->zeta[k]);
            return 1;
        }
    }
    return 0;
}

/* The parameters that do not belong to the kind must be 0, so a reader never has to guess
 * which of two descriptions of the damping is meant. */
static int check_kind_parameters(const ldem_damping *d, char *why, size_t size)
{
    if (d->alpha < 0.0 || d->beta < 0.0) {
        snprintf(why, size, "alpha = %g, beta = %g: Rayleigh coefficients must be >= 0",
                 d->alpha, d->beta);
        return 1;
    }
    if (d->kind != LDEM_DAMPING_RAYLEIGH && (d->alpha != 0.0 || d->beta != 0.0)) {
        snprintf(why, size, "alpha = %g, beta = %g: must be 0 unless the kind is rayleigh",
                 d->alpha, d->beta);
        return 1;
    }
    for (uint32_t k = 0; d->kind != LDEM_DAMPING_RATIO && k < d->n; k++)
        if (d->zeta[k] != 0.0) {
            snprintf(why, size, "zeta[%u] = %g: ratios must be 0 unless the kind is ratio", k,
                     d->zeta[k]);
            return 1;
        }
    return 0;
}

/* Why the damping is unusable (into why), or 0. */
static int check_damping(const ldem_damping *d, char *why, size_t size)
{
    if (d->n == 0) {
        snprintf(why, size, "n must be >= 1");
        return 1;
    }
    if (!ldem_damping_kind_name(d->kind)) {
        snprintf(why, size, "unknown damping kind %u (0 none, 1 rayleigh, 2 ratio)", d->kind);
        return 1;
    }
    if (check_finite(d, why, size) || check_modal_values(d, why, size) ||
        check_kind_parameters(d, why, size))
        return 1;
    double worst, scale;
    asymmetry(d->c, d->n, &worst, &scale);
    if (worst > DAMP_SYMMETRY_TOL * scale) {
        snprintf(why, size, "C is not symmetric: max |c_ij - c_ji| = %g > %g * max |c| = %g",
                 worst, DAMP_SYMMETRY_TOL, DAMP_SYMMETRY_TOL * scale);
        return 1;
    }
    return 0;
}

int ldem_damping_encode(const ldem_damping *d, unsigned char **data, uint64_t *len,
                        ldem_err *err)
{
    char why[256];
    if (check_damping(d, why, sizeof why))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "DAMP section: %s", why);
    payload_buffer b;
    int rc = buffer_init(&b, damping_payload_size(d->n), err);
    if (rc)
        return rc;
    buffer_u32(&b, d->n);
    buffer_u32(&b, d->kind);
    buffer_f64(&b, d->alpha);
    buffer_f64(&b, d->beta);
    buffer_f64_array(&b, d->zeta, d->n);
    buffer_f64_array(&b, d->omega, d->n);
    buffer_f64_array(&b, d->c, (uint64_t)d->n * d->n);
    return buffer_finish(&b, data, len, err);
}

int ldem_damping_decode(const ldem_section *s, const char *source, ldem_damping *d,
                        ldem_err *err)
{
    memset(d, 0, sizeof *d);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    int rc = cursor_u32(&c, &d->n);
    if (!rc)
        rc = cursor_u32(&c, &d->kind);
    if (!rc && d->n == 0)
        rc = cursor_fail(&c, "number of modes n must be >= 1");
    if (!rc && !ldem_damping_kind_name(d->kind))
        rc = cursor_fail(&c, "unknown damping kind %u (0 none, 1 rayleigh, 2 ratio)", d->kind);
    if (!rc)
        rc = cursor_f64(&c, &d->alpha);
    if (!rc)
        rc = cursor_f64(&c, &d->beta);
    /* The arrays' total size against the remaining payload before any allocation, so a
     * corrupt n cannot cause a large one (cursor_f64_array checks each array again). Per
     * mode: its zeta, its omega and its row of C, 16 + 8n bytes (n·(16 + 8n) may overflow
     * 64 bits; cursor_need detects that). */
    if (!rc)
        rc = cursor_need(&c, d->n, 16 + 8 * (uint64_t)d->n, "zeta, omega and rows of C");
    if (!rc)
        rc = cursor_f64_array(&c, d->n, &d->zeta, "damping ratios");
    if (!rc)
        rc = cursor_f64_array(&c, d->n, &d->omega, "natural frequencies");
    if (!rc)
        rc = cursor_f64_array(&c, (uint64_t)d->n * d->n, &d->c, "damping matrix");
    if (!rc)
        rc = cursor_finish(&c);
    char why[256];
    if (!rc && check_damping(d, why, sizeof why))
        rc = cursor_fail(&c, "%s", why);
    if (rc)
        ldem_damping_free(d);
    return rc;
}
