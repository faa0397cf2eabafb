/* Analytic deformation modes (analytic.h): the beam-bending field of Henzel & Karapiperis
 * eq. 51, its descriptor text, its rigid part and its generalized K and M over a level
 * set's interior. */
#include "analytic.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic.h"
#include "ldem/modes.h"
#include "lsquad.h"

/* [w]× : the matrix of x ↦ w × x, i.e. the gradient of an infinitesimal rotation. */
static void cross_matrix(const double w[3], double W[3][3])
{
    W[0][0] = 0.0;   W[0][1] = -w[2]; W[0][2] = w[1];
    W[1][0] = w[2];  W[1][1] = 0.0;   W[1][2] = -w[0];
    W[2][0] = -w[1]; W[2][1] = w[0];  W[2][2] = 0.0;
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The library evaluates and describes the field (runtime/modal/beam_bending.c); modefit
 * adds what only building a bundle needs: the rigid projection and K, M integrals. */
static ldem_beam_bending as_library(const analytic_mode *m)
{
    ldem_beam_bending b = {m->length, m->axis, m->deflect, m->scale,
                           {m->t[0], m->t[1], m->t[2]}, {m->w[0], m->w[1], m->w[2]}};
    return b;
}

void analytic_eval_raw(const analytic_mode *m, const double x[3], double u[3],
                       double grad[3][3])
{
    ldem_beam_bending b = as_library(m);
    ldem_beam_bending_raw(&b, x, u, grad);
}

void analytic_eval(const analytic_mode *m, const double x[3], double u[3], double grad[3][3])
{
    ldem_beam_bending b = as_library(m);
    ldem_beam_bending_eval(&b, x, u, grad);
}

/* The kind is modefit's; the rest of the validation is the library's. */
static int check_mode(const analytic_mode *m, int code, ldem_err *err)
{
    if (!m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic mode: none given");
    if (m->kind != ANALYTIC_BEAM_BENDING)
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: unknown kind %d (available: beam-bending)", m->kind);
    ldem_beam_bending b = as_library(m);
    return ldem_beam_bending_check(&b, code, err);
}

int analytic_describe(const analytic_mode *m, char **text, ldem_err *err)
{
    if (!text)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic_describe: no output given");
    *text = NULL;
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    ldem_beam_bending b = as_library(m);
    return ldem_beam_bending_describe(&b, text, err);
}

int analytic_parse(const char *text, analytic_mode *m, ldem_err *err)
{
    if (!text || !m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic_parse: no text or output");
    ldem_beam_bending b;
    int rc = ldem_beam_bending_parse(text, &b, err);
    if (rc != LDEM_OK)
        return rc;
    *m = (analytic_mode){.kind = ANALYTIC_BEAM_BENDING, .length = b.length, .axis = b.axis,
                         .deflect = b.deflect, .scale = b.scale,
                         .t = {b.t[0], b.t[1], b.t[2]}, .w = {b.w[0], b.w[1], b.w[2]}};
    return LDEM_OK;
}

/* ---- integrals over the interior ---- */

/* Moments for the rigid projection, all about the body origin. */
typedef struct rigid_sums {
    const analytic_mode *mode;
    double volume;
    double first[3];       /* ∫ x */
    double second[3][3];   /* ∫ x xᵀ */
    double raw[3];         /* ∫ raw */
    double moment[3];      /* ∫ x × raw */
} rigid_sums;

static void add_rigid_point(void *ctx, const double x[3], double weight)
{
    rigid_sums *s = ctx;
    double u[3], xu[3];
    analytic_eval_raw(s->mode, x, u, NULL);
    cross(x, u, xu);
    s->volume += weight;
    for (int i = 0; i < 3; i++) {
        s->first[i] += weight * x[i];
        s->raw[i] += weight * u[i];
        s->moment[i] += weight * xu[i];
        for (int j = 0; j < 3; j++)
            s->second[i][j] += weight * x[i] * x[j];
    }
}

/* The normal equations of min ∫ |raw − t − w × x|²:
 *   ∫ (raw − t − w × x) = 0       →  V t − [c]× w = ∫ raw
 *   ∫ x × (raw − t − w × x) = 0   →  [c]× t + J w = ∫ x × raw
 * with c = ∫ x and J = ∫ (|x|² I − x xᵀ) (x × (w × x) = (|x|² I − x xᵀ) w). The matrix is
 * symmetric ([c]×ᵀ = −[c]×) and positive definite for any body with volume, so Cholesky. */
static int solve_rigid(const rigid_sums *s, double t[3], double w[3], ldem_err *err)
{
    double C[3][3];
    cross_matrix(s->first, C);
    double trace = s->second[0][0] + s->second[1][1] + s->second[2][2];
    double A[36] = {0}, b[6];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            A[6 * i + j] = i == j ? s->volume : 0.0;
            A[6 * i + 3 + j] = -C[i][j];
            A[6 * (3 + i) + j] = C[i][j];
            A[6 * (3 + i) + 3 + j] = (i == j ? trace : 0.0) - s->second[i][j];
        }
        b[i] = s->raw[i];
        b[3 + i] = s->moment[i];
    }
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', 6, 1, A, 6, b, 1);
    if (info != 0)
        return ldem_err_set(err, info > 0 ? LDEM_ERR_INPUT : LDEM_ERR_INTERNAL, NULL, 0,
                            "analytic mode: the interior's moments do not determine a rigid "
                            "motion (LAPACKE_dposv info %d; is the body flat or empty?)",
                            (int)info);
    for (int i = 0; i < 3; i++) {
        t[i] = b[i];
        w[i] = b[3 + i];
    }
    return LDEM_OK;
}

int analytic_remove_rigid(analytic_mode *m, const ldem_lset *ls, int depth, ldem_err *err)
{
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    rigid_sums s = {.mode = m};
    rc = lsquad_interior(ls, depth, add_rigid_point, &s, err);
    if (rc != LDEM_OK)
        return rc;
    if (!(s.volume > 0.0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode: the level set has no interior (no φ < 0) to "
                            "project the rigid motion over");
    double t[3], w[3];
    rc = solve_rigid(&s, t, w, err);
    if (rc != LDEM_OK)
        return rc;
    memcpy(m->t, t, sizeof t);
    memcpy(m->w, w, sizeof w);
    return LDEM_OK;
}

typedef struct energy_sums {
    const analytic_mode *mode;
    double lambda, mu;
    double strain_energy;  /* ∫ (C:E):E */
    double square;         /* ∫ Φ·Φ */
    double volume;
} energy_sums;

static void add_energy_point(void *ctx, const double x[3], double weight)
{
    energy_sums *s = ctx;
    double u[3], G[3][3], Es[3][3];
    analytic_eval(s->mode, x, u, G);
    /* C before C23 does not convert double (*)[3] to const double (*)[3] implicitly. */
    elastic_strain((const double(*)[3])G, Es);
    const double(*strain)[3] = (const double(*)[3])Es;
    s->strain_energy += weight * elastic_bilinear(s->lambda, s->mu, strain, strain);
    s->square += weight * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    s->volume += weight;
}

int analytic_mass_stiffness(const analytic_mode *m, const ldem_lset *ls, int depth, double E,
                            double nu, double rho, double *K, double *M, double *volume,
                            ldem_err *err)
{
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    if (!(E > 0.0) || !isfinite(E) || !(nu > -1.0 && nu < 0.5) || !(rho > 0.0) ||
        !isfinite(rho))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "analytic mode: E=%g nu=%g rho=%g (expected E > 0, -1 < nu < 0.5, "
                            "rho > 0, all finite)",
                            E, nu, rho);
    energy_sums s = {.mode = m};
    elastic_lame(E, nu, &s.lambda, &s.mu);
    rc = lsquad_interior(ls, depth, add_energy_point, &s, err);
    if (rc != LDEM_OK)
        return rc;
    if (K)
        *K = s.strain_energy;
    if (M)
        *M = rho * s.square;
    if (volume)
        *volume = s.volume;
    return LDEM_OK;
}
