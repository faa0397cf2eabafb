/* modes.c — a grain shape's deformation modes at run time (ldem/modes.h): Φ anywhere in the
 * body frame, modal displacement and gradient, internal force and energy (KMAT or ETAB),
 * M⁻¹, damping and the largest natural frequency.
 *
 * The matrices are small (n modes, a handful), so the linear algebra is done here with a
 * Cholesky factor and a cyclic Jacobi eigensolver rather than by linking LAPACK into the
 * runtime: both are exact to round-off for symmetric n × n. */
#include "ldem/modes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small dense linear algebra (row-major n × n) ---- */

/* Lower Cholesky factor L of A (L Lᵀ = A); -1 if A is not positive definite. */
static int cholesky(const double *A, uint32_t n, double *L)
{
    memset(L, 0, (size_t)n * n * sizeof *L);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j <= i; j++) {
            double s = A[(size_t)i * n + j];
            for (uint32_t k = 0; k < j; k++)
                s -= L[(size_t)i * n + k] * L[(size_t)j * n + k];
            if (i == j) {
                if (!(s > 0.0))
                    return -1;
                L[(size_t)i * n + i] = sqrt(s);
            } else {
                L[(size_t)i * n + j] = s / L[(size_t)j * n + j];
            }
        }
    return 0;
}

/* x = L⁻¹ b (forward substitution); x may alias b. */
static void forward(const double *L, uint32_t n, const double *b, double *x)
{
    for (uint32_t i = 0; i < n; i++) {
        double s = b[i];
        for (uint32_t k = 0; k < i; k++)
            s -= L[(size_t)i * n + k] * x[k];
        x[i] = s / L[(size_t)i * n + i];
    }
}

/* x = L⁻ᵀ b (back substitution); x may alias b. */
static void backward(const double *L, uint32_t n, const double *b, double *x)
{
    for (uint32_t ii = n; ii-- > 0;) {
        double s = b[ii];
        for (uint32_t k = ii + 1; k < n; k++)
            s -= L[(size_t)k * n + ii] * x[k];
        x[ii] = s / L[(size_t)ii * n + ii];
    }
}

/* Eigen-decomposition of symmetric A (destroyed): eigenvalues in lambda, eigenvectors as the
 * columns of V (row-major), by cyclic Jacobi rotations. */
static void jacobi_eigen(double *A, uint32_t n, double *lambda, double *V)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            V[(size_t)i * n + j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0.0, diag = 0.0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++) {
                double a = A[(size_t)i * n + j];
                if (i == j)
                    diag += a * a;
                else
                    off += a * a;
            }
        if (off <= 1e-30 * diag || off == 0.0)
            break;
        for (uint32_t p = 0; p < n; p++)
            for (uint32_t q = p + 1; q < n; q++) {
                double apq = A[(size_t)p * n + q];
                if (apq == 0.0)
                    continue;
                double app = A[(size_t)p * n + p], aqq = A[(size_t)q * n + q];
                double theta = (aqq - app) / (2.0 * apq);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (uint32_t k = 0; k < n; k++) {
                    double akp = A[(size_t)k * n + p], akq = A[(size_t)k * n + q];
                    A[(size_t)k * n + p] = c * akp - s * akq;
                    A[(size_t)k * n + q] = s * akp + c * akq;
                }
                for (uint32_t k = 0; k < n; k++) {
                    double apk = A[(size_t)p * n + k], aqk = A[(size_t)q * n + k];
                    A[(size_t)p * n + k] = c * apk - s * aqk;
                    A[(size_t)q * n + k] = s * apk + c * aqk;
                }
                for (uint32_t k = 0; k < n; k++) {
                    double vkp = V[(size_t)k * n + p], vkq = V[(size_t)k * n + q];
                    V[(size_t)k * n + p] = c * vkp - s * vkq;
                    V[(size_t)k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (uint32_t i = 0; i < n; i++)
        lambda[i] = A[(size_t)i * n + i];
}

/* Generalized eigenpairs of (K, M) with M = L Lᵀ: K Ψ = M Ψ Λ, Ψᵀ M Ψ = I. psi may be
 * NULL. Scratch: EIGEN_SCRATCH(n) doubles. */
#define EIGEN_SCRATCH(n) (2 * (size_t)(n) * (n) + (n))
static void generalized_eigen(const double *K, const double *L, uint32_t n, double *lambda,
                              double *psi, double *scratch)
{
    double *A = scratch, *V = scratch + (size_t)n * n, *tmp = V + (size_t)n * n;
    /* A = L⁻¹ K L⁻ᵀ: columns of K through L⁻¹, then rows */
    for (uint32_t j = 0; j < n; j++) { /* B = L⁻¹ K, column j */
        for (uint32_t i = 0; i < n; i++)
            tmp[i] = K[(size_t)i * n + j];
        forward(L, n, tmp, tmp);
        for (uint32_t i = 0; i < n; i++)
            A[(size_t)i * n + j] = tmp[i];
    }
    for (uint32_t i = 0; i < n; i++) { /* A = B L⁻ᵀ = (L⁻¹ Bᵀ)ᵀ, row i */
        for (uint32_t j = 0; j < n; j++)
            tmp[j] = A[(size_t)i * n + j];
        forward(L, n, tmp, tmp);
        for (uint32_t j = 0; j < n; j++)
            A[(size_t)i * n + j] = tmp[j];
    }
    for (uint32_t i = 0; i < n; i++) /* symmetrize round-off */
        for (uint32_t j = i + 1; j < n; j++) {
            double a = 0.5 * (A[(size_t)i * n + j] + A[(size_t)j * n + i]);
            A[(size_t)i * n + j] = A[(size_t)j * n + i] = a;
        }
    jacobi_eigen(A, n, lambda, V);
    if (psi)
        for (uint32_t j = 0; j < n; j++) { /* Ψ = L⁻ᵀ V */
            for (uint32_t i = 0; i < n; i++)
                tmp[i] = V[(size_t)i * n + j];
            backward(L, n, tmp, tmp);
            for (uint32_t i = 0; i < n; i++)
                psi[(size_t)i * n + j] = tmp[i];
        }
}

/* Φα at grid point `point` (3 floats): point-major, so that one trilinear query reads each
 * corner's modes from one place (the bundle's MODE section is mode-major). */
static inline const float *grid_value(const ldem_modeset *m, uint32_t a, size_t point)
{
    return m->grid + 3 * (point * m->n + a);
}

/* ---- build ---- */

/* near_lo/near_hi: each block's range widened by its 26 neighbours' (modes.h). */
static int dilate_ranges(ldem_modeset *m, size_t blocks)
{
    const size_t w = 3 * (size_t)m->n;
    m->near_lo = malloc(blocks * w * sizeof *m->near_lo);
    m->near_hi = malloc(blocks * w * sizeof *m->near_hi);
    if (!m->near_lo || !m->near_hi)
        return -1;
    const uint32_t *d = m->block_dims;
    for (uint32_t k = 0; k < d[2]; k++)
        for (uint32_t j = 0; j < d[1]; j++)
            for (uint32_t i = 0; i < d[0]; i++) {
                size_t b = i + d[0] * (j + (size_t)d[1] * k);
                float *lo = m->near_lo + b * w, *hi = m->near_hi + b * w;
                memcpy(lo, m->block_lo + b * w, w * sizeof *lo);
                memcpy(hi, m->block_hi + b * w, w * sizeof *hi);
                for (uint32_t nk = k ? k - 1 : 0; nk <= k + 1 && nk < d[2]; nk++)
                    for (uint32_t nj = j ? j - 1 : 0; nj <= j + 1 && nj < d[1]; nj++)
                        for (uint32_t ni = i ? i - 1 : 0; ni <= i + 1 && ni < d[0]; ni++) {
                            size_t nb = ni + d[0] * (nj + (size_t)d[1] * nk);
                            for (size_t c = 0; c < w; c++) {
                                lo[c] = fminf(lo[c], m->block_lo[nb * w + c]);
                                hi[c] = fmaxf(hi[c], m->block_hi[nb * w + c]);
                            }
                        }
            }
    return 0;
}

/* block_max (modes.h): block b along an axis covers cells [bB, bB + B − 1], i.e. grid
 * points bB .. bB + B (the shared faces belong to both neighbours). */
static int build_block_max(ldem_modeset *m)
{
    const uint32_t B = LDEM_MODES_BLOCK_CELLS, n = m->n;
    size_t blocks = 1;
    for (int a = 0; a < 3; a++) {
        uint32_t cells = m->dims[a] - 1;
        m->block_dims[a] = (cells + B - 1) / B;
        m->block_scale[a] = 1.0 / (m->spacing[a] * B);
        blocks *= m->block_dims[a];
    }
    m->block_lo = malloc(blocks * n * 3 * sizeof *m->block_lo);
    m->block_hi = malloc(blocks * n * 3 * sizeof *m->block_hi);
    if (!m->block_lo || !m->block_hi)
        return -1;
    for (size_t k = 0; k < blocks * n * 3; k++) {
        m->block_lo[k] = INFINITY;
        m->block_hi[k] = -INFINITY;
    }
    const size_t nx = m->dims[0], ny = m->dims[1];
    for (uint32_t k = 0; k < m->dims[2]; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++) {
                /* a grid point on a block face belongs to the blocks on both sides */
                uint32_t lo[3], hi[3], idx[3] = {i, j, k};
                for (int a = 0; a < 3; a++) {
                    uint32_t last = m->block_dims[a] - 1;
                    lo[a] = idx[a] / B > last ? last : idx[a] / B;
                    hi[a] = lo[a];
                    if (idx[a] % B == 0 && idx[a] > 0)
                        lo[a] = idx[a] / B - 1;
                }
                size_t point = i + nx * (j + ny * (size_t)k);
                for (uint32_t bk = lo[2]; bk <= hi[2]; bk++)
                    for (uint32_t bj = lo[1]; bj <= hi[1]; bj++)
                        for (uint32_t bi = lo[0]; bi <= hi[0]; bi++) {
                            size_t b = bi + m->block_dims[0] * (bj + (size_t)m->block_dims[1] * bk);
                            for (uint32_t a = 0; a < n; a++) {
                                const float *v = grid_value(m, a, point);
                                float *lo = m->block_lo + 3 * (b * n + a);
                                float *hi = m->block_hi + 3 * (b * n + a);
                                for (int c = 0; c < 3; c++) {
                                    lo[c] = fminf(lo[c], v[c]);
                                    hi[c] = fmaxf(hi[c], v[c]);
                                }
                            }
                        }
            }
    return dilate_ranges(m, blocks);
}

void ldem_modeset_free(ldem_modeset *m)
{
    if (!m)
        return;
    free(m->node_values);
    free(m->node_max);
    free(m->field_max);
    free(m->grid);
    free(m->block_lo);
    free(m->block_hi);
    free(m->near_lo);
    free(m->near_hi);
    free(m->analytic);
    free(m->M);
    free(m->K);
    free(m->C);
    free(m->M_chol);
    if (m->curves)
        for (uint32_t a = 0; a < m->n; a++)
            ldem_energy_curve_free(&m->curves[a]);
    free(m->curves);
    memset(m, 0, sizeof *m);
}

/* Prefix err's message with where the failure happened (the section, the mode). */
static int in_context(ldem_err *err, int code, const char *section, uint32_t mode)
{
    if (!err)
        return code;
    char inner[LDEM_ERR_MSG_MAX];
    memcpy(inner, err->msg, sizeof inner);
    inner[sizeof inner - 1] = '\0';
    return ldem_err_set(err, code, NULL, 0, "%s, mode %u: %s", section, mode, inner);
}

static int fail(ldem_modeset *m, ldem_err *err, int code, const char *what)
{
    ldem_modeset_free(m);
    return ldem_err_set(err, code, NULL, 0, "%s", what);
}

/* Split the descriptor into one beam-bending text per mode (';' or newline separated). */
static int parse_descriptors(const char *text, ldem_modeset *m, ldem_err *err)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for MODE descriptor");
    memcpy(copy, text, len + 1);
    uint32_t found = 0;
    int rc = LDEM_OK;
    char *save = NULL;
    for (char *part = strtok_r(copy, ";\n", &save); part && rc == LDEM_OK;
         part = strtok_r(NULL, ";\n", &save)) {
        if (strspn(part, " \t\r") == strlen(part))
            continue;
        if (found == m->n) {
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "MODE: the descriptor describes more than its %u mode(s)", m->n);
            break;
        }
        rc = ldem_beam_bending_parse(part, &m->analytic[found], err);
        if (rc)
            rc = in_context(err, rc, "MODE descriptor", found);
        found++;
    }
    free(copy);
    if (rc == LDEM_OK && found != m->n)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                          "MODE: the descriptor describes %u mode(s), the section has %u", found,
                          m->n);
    return rc;
}

/* Φα at node k from the field (analytic or grid), for bundles without node values. */
static int eval_nodes(ldem_modeset *m, const double *positions)
{
    ldem_vec3 *phi = malloc(m->n * sizeof *phi);
    if (!phi)
        return -1;
    for (uint64_t k = 0; k < m->nnodes; k++) {
        ldem_vec3 p = ldem_vec3_make(positions[3 * k], positions[3 * k + 1], positions[3 * k + 2]);
        ldem_modes_eval(m, p, phi, NULL);
        for (uint32_t a = 0; a < m->n; a++) {
            double *v = m->node_values + 3 * ((size_t)k * m->n + a);
            v[0] = phi[a].x;
            v[1] = phi[a].y;
            v[2] = phi[a].z;
        }
    }
    free(phi);
    return 0;
}

/* Largest tangent stiffness of a table: dF/dε at its knots and interval midpoints (the
 * interpolants are at most cubic, so that is where the slope peaks to within a few per cent),
 * and the extrapolation's slopes a little beyond either end. */
static double max_tangent(const ldem_energy_curve *c)
{
    double most = 0.0, dF;
    for (size_t i = 0; i < c->n; i++) {
        if (ldem_energy_at(c, c->eps[i], NULL, NULL, &dF) == LDEM_OK && fabs(dF) > most)
            most = fabs(dF);
        if (i + 1 < c->n &&
            ldem_energy_at(c, 0.5 * (c->eps[i] + c->eps[i + 1]), NULL, NULL, &dF) == LDEM_OK &&
            fabs(dF) > most)
            most = fabs(dF);
    }
    double span = c->eps[c->n - 1] - c->eps[0];
    double beyond[2] = {c->eps[0] - 0.5 * span, c->eps[c->n - 1] + 0.5 * span};
    for (int e = 0; e < 2; e++)
        if (ldem_energy_at(c, beyond[e], NULL, NULL, &dF) == LDEM_OK && fabs(dF) > most)
            most = fabs(dF);
    return most;
}

static int compute_omega_max(ldem_modeset *m, ldem_err *err)
{
    uint32_t n = m->n;
    double *Kt = malloc((size_t)n * n * sizeof *Kt), *lambda = malloc(n * sizeof *lambda);
    double *scratch = malloc(EIGEN_SCRATCH(n) * sizeof *scratch);
    if (!Kt || !lambda || !scratch) {
        free(Kt);
        free(lambda);
        free(scratch);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for modal frequencies");
    }
    memcpy(Kt, m->K, (size_t)n * n * sizeof *Kt);
    /* a tabulated mode's own stiffness is its table's (ldem_modes_internal ignores Kαα) */
    for (uint32_t a = 0; a < n; a++)
        if (m->curves[a].n)
            Kt[(size_t)a * n + a] = max_tangent(&m->curves[a]);
    generalized_eigen(Kt, m->M_chol, n, lambda, NULL, scratch);
    double most = 0.0;
    for (uint32_t a = 0; a < n; a++)
        if (fabs(lambda[a]) > most)
            most = fabs(lambda[a]);
    m->omega_max = sqrt(most);
    free(Kt);
    free(lambda);
    free(scratch);
    if (!(m->omega_max > 0.0) || !isfinite(m->omega_max))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "KMAT/MMAT: the modes have no positive natural frequency (K = 0?)");
    return LDEM_OK;
}

int ldem_modeset_build(const ldem_modes *modes, const ldem_matrix *K, const ldem_matrix *M,
                       const ldem_etab *etab, const ldem_damping *damp, uint64_t nnodes,
                       const double *node_positions, ldem_modeset *out, ldem_err *err)
{
    memset(out, 0, sizeof *out);
    if (!modes || !K || !M)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "deformable grains need MODE, KMAT and MMAT sections");
    uint32_t n = modes->count;
    if (n == 0 || K->n != n || M->n != n)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "MODE has %u mode(s) but KMAT is %u x %u and MMAT %u x %u", n, K->n,
                            K->n, M->n, M->n);
    if (damp && damp->n != n)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "DAMP is for %u mode(s), MODE has %u",
                            damp->n, n);
    ldem_modeset *m = out;
    m->n = n;
    m->nnodes = nnodes;
    m->pullback = 1;
    size_t nn = (size_t)n * n;
    m->M = malloc(nn * sizeof *m->M);
    m->K = malloc(nn * sizeof *m->K);
    m->C = calloc(nn, sizeof *m->C);
    m->M_chol = malloc(nn * sizeof *m->M_chol);
    m->curves = calloc(n, sizeof *m->curves);
    m->node_max = calloc(n, sizeof *m->node_max);
    m->field_max = malloc(n * sizeof *m->field_max);
    m->node_values = malloc(3 * (size_t)n * (nnodes ? nnodes : 1) * sizeof *m->node_values);
    if (!m->M || !m->K || !m->C || !m->M_chol || !m->curves || !m->node_max || !m->field_max ||
        !m->node_values)
        return fail(m, err, LDEM_ERR_NOMEM, "out of memory for the modes");
    memcpy(m->M, M->a, nn * sizeof *m->M);
    memcpy(m->K, K->a, nn * sizeof *m->K);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < i; j++) {
            double a = K->a[(size_t)i * n + j], b = K->a[(size_t)j * n + i];
            double scale = fabs(K->a[(size_t)i * n + i]) + fabs(K->a[(size_t)j * n + j]);
            if (fabs(a - b) > 1e-8 * scale)
                return fail(m, err, LDEM_ERR_INPUT, "KMAT is not symmetric");
        }
    if (cholesky(m->M, n, m->M_chol))
        return fail(m, err, LDEM_ERR_INPUT, "MMAT is not positive definite");
    if (damp && damp->c)
        memcpy(m->C, damp->c, nn * sizeof *m->C);

    /* how Φ is known away from the nodes */
    uint64_t ngrid = (uint64_t)modes->grid_dims[0] * modes->grid_dims[1] * modes->grid_dims[2];
    if (modes->kind == LDEM_MODE_ANALYTIC && modes->descriptor) {
        m->field = LDEM_MODE_FIELD_ANALYTIC;
        if (!(m->analytic = calloc(n, sizeof *m->analytic)))
            return fail(m, err, LDEM_ERR_NOMEM, "out of memory for the modes");
        int rc = parse_descriptors(modes->descriptor, m, err);
        if (rc) {
            ldem_modeset_free(m);
            return rc;
        }
    } else if (ngrid && modes->grid_values) {
        m->field = LDEM_MODE_FIELD_GRID;
        memcpy(m->dims, modes->grid_dims, sizeof m->dims);
        memcpy(m->origin, modes->grid_origin, sizeof m->origin);
        memcpy(m->spacing, modes->grid_spacing, sizeof m->spacing);
        size_t count = 3 * (size_t)n * (size_t)ngrid;
        if (!(m->grid = malloc(count * sizeof *m->grid)))
            return fail(m, err, LDEM_ERR_NOMEM, "out of memory for the MODE grid field");
        for (uint32_t a = 0; a < n; a++)
            for (uint64_t k = 0; k < ngrid; k++)
                memcpy(m->grid + 3 * ((size_t)k * n + a),
                       modes->grid_values + 3 * ((size_t)a * ngrid + k), 3 * sizeof *m->grid);
    }
    /* trilinear interpolation stays within its corners' largest |Φ| (clamped outside) */
    for (uint32_t a = 0; a < n; a++) {
        m->field_max[a] = m->field == LDEM_MODE_FIELD_GRID ? 0.0 : INFINITY;
        if (m->field != LDEM_MODE_FIELD_GRID)
            continue;
        for (uint64_t k = 0; k < ngrid; k++) {
            const float *g = grid_value(m, a, k);
            double x = g[0], y = g[1], z = g[2];
            m->field_max[a] = fmax(m->field_max[a], sqrt(x * x + y * y + z * z));
        }
    }

    if (m->field == LDEM_MODE_FIELD_GRID && build_block_max(m))
        return fail(m, err, LDEM_ERR_NOMEM, "out of memory for the MODE grid field");

    /* Φ at the nodes: stored values, else the field at the node positions */
    if (modes->nnodes == nnodes && modes->node_values && nnodes) {
        /* the section's mode-major values, transposed to node-major */
        for (uint32_t a = 0; a < n; a++)
            for (uint64_t k = 0; k < nnodes; k++)
                memcpy(m->node_values + 3 * ((size_t)k * n + a),
                       modes->node_values + 3 * ((size_t)a * nnodes + k), 3 * sizeof(double));
    } else if (nnodes) {
        if (m->field == LDEM_MODE_FIELD_NONE || !node_positions)
            return fail(m, err, LDEM_ERR_INPUT,
                        "MODE has no values at the grain's surface nodes (NODE count differs) "
                        "and no field to evaluate them from");
        if (eval_nodes(m, node_positions))
            return fail(m, err, LDEM_ERR_NOMEM, "out of memory for the modes");
    }
    for (uint32_t a = 0; a < n; a++)
        for (uint64_t k = 0; k < nnodes; k++) {
            const double *v = ldem_modes_node_value(m, a, k);
            double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (len > m->node_max[a])
                m->node_max[a] = len;
        }

    if (etab)
        for (uint32_t t = 0; t < etab->count; t++) {
            const ldem_etab_table *tb = &etab->tables[t];
            if (tb->mode >= n) {
                ldem_modeset_free(m);
                return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                    "ETAB: table %u is for mode %u, MODE has %u mode(s)", t,
                                    tb->mode, n);
            }
            if (m->curves[tb->mode].n) {
                ldem_modeset_free(m);
                return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "ETAB: two tables for mode %u",
                                    tb->mode);
            }
            int rc = ldem_energy_prepare(tb, &m->curves[tb->mode], err);
            if (rc) {
                ldem_modeset_free(m);
                return in_context(err, rc, "ETAB", tb->mode);
            }
        }
    int rc = compute_omega_max(m, err);
    if (rc)
        ldem_modeset_free(m);
    return rc;
}

int ldem_modeset_set_rayleigh(ldem_modeset *m, double alpha, double beta, ldem_err *err)
{
    if (!isfinite(alpha) || !isfinite(beta) || alpha < 0.0 || beta < 0.0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "Rayleigh damping needs alpha, beta >= 0, got %g, %g", alpha, beta);
    size_t nn = (size_t)m->n * m->n;
    for (size_t k = 0; k < nn; k++)
        m->C[k] = alpha * m->M[k] + beta * m->K[k];
    return LDEM_OK;
}

int ldem_modeset_set_ratio(ldem_modeset *m, double zeta, ldem_err *err)
{
    if (!(zeta >= 0.0) || !isfinite(zeta))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "a damping ratio must be >= 0, got %g",
                            zeta);
    uint32_t n = m->n;
    size_t nn = (size_t)n * n;
    double *lambda = malloc(n * sizeof *lambda), *psi = malloc(nn * sizeof *psi);
    double *scratch = malloc(EIGEN_SCRATCH(n) * sizeof *scratch), *mpsi = malloc(nn * sizeof *mpsi);
    if (!lambda || !psi || !scratch || !mpsi) {
        free(lambda);
        free(psi);
        free(scratch);
        free(mpsi);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for modal damping");
    }
    generalized_eigen(m->K, m->M_chol, n, lambda, psi, scratch);
    /* C = (MΨ) diag(2ζω) (MΨ)ᵀ */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            double s = 0.0;
            for (uint32_t k = 0; k < n; k++)
                s += m->M[(size_t)i * n + k] * psi[(size_t)k * n + j];
            mpsi[(size_t)i * n + j] = s;
        }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            double s = 0.0;
            for (uint32_t k = 0; k < n; k++)
                s += mpsi[(size_t)i * n + k] * 2.0 * zeta * sqrt(fmax(lambda[k], 0.0)) *
                     mpsi[(size_t)j * n + k];
            m->C[(size_t)i * n + j] = s;
        }
    free(lambda);
    free(psi);
    free(scratch);
    free(mpsi);
    return LDEM_OK;
}

/* ---- evaluation ---- */

/* Cell and fraction along one grid axis, clamped to the boundary cell. */
static int locate(double x, double origin, double h, uint32_t n, uint32_t *cell, double *frac)
{
    double u = (x - origin) / h;
    int inside = u >= 0.0 && u <= (double)(n - 1);
    if (!(u >= 0.0))
        u = 0.0;
    if (u > (double)(n - 1))
        u = (double)(n - 1);
    uint32_t c = (uint32_t)u;
    if (c > n - 2)
        c = n - 2;
    *cell = c;
    *frac = u - c;
    return inside;
}

/* The grid cell holding p: its first corner's index, the strides, and the fractions. */
typedef struct grid_cell {
    size_t base, sy, sz;
    double f[3];
    const double *spacing; /* the grid's, for the gradient */
    int inside;
} grid_cell;

static void find_cell(const ldem_modeset *m, ldem_vec3 p, grid_cell *gc)
{
    uint32_t c[3];
    gc->inside = locate(p.x, m->origin[0], m->spacing[0], m->dims[0], &c[0], &gc->f[0]);
    gc->inside &= locate(p.y, m->origin[1], m->spacing[1], m->dims[1], &c[1], &gc->f[1]);
    gc->inside &= locate(p.z, m->origin[2], m->spacing[2], m->dims[2], &c[2], &gc->f[2]);
    gc->spacing = m->spacing;
    gc->sy = m->dims[0];
    gc->sz = (size_t)m->dims[0] * m->dims[1];
    gc->base = c[0] + gc->sy * c[1] + gc->sz * c[2];
}

/* v[k] = Σα coef[α] Φα at the cell's corner k = di + 2dj + 4dk (coef NULL: mode `only`),
 * summed over α in order for each corner. */
static void corner_values(const ldem_modeset *m, const grid_cell *gc, const double *coef,
                          uint32_t only, double v[8][3])
{
    const size_t offset[8] = {0,      1,          gc->sy,          gc->sy + 1,
                              gc->sz, gc->sz + 1, gc->sz + gc->sy, gc->sz + gc->sy + 1};
    memset(v, 0, 8 * sizeof *v);
    uint32_t first = coef ? 0 : only, last = coef ? m->n : only + 1;
    for (int k = 0; k < 8; k++)
        for (uint32_t a = first; a < last; a++) {
            double e = coef ? coef[a] : 1.0;
            if (e == 0.0)
                continue;
            const float *q = grid_value(m, a, gc->base + offset[k]);
            v[k][0] += e * q[0];
            v[k][1] += e * q[1];
            v[k][2] += e * q[2];
        }
}

/* Trilinear interpolation of the corner vectors and its exact gradient within the cell
 * (x, then y, then z, as ldem_lset_sample does for φ). */
static void interpolate(const grid_cell *gc, double v[8][3], ldem_vec3 *u, ldem_mat3 *J)
{
    const double fx = gc->f[0], fy = gc->f[1], fz = gc->f[2];
    double out[3], inv[3] = {0.0, 0.0, 0.0};
    if (J)
        for (int a = 0; a < 3; a++)
            inv[a] = 1.0 / gc->spacing[a];
    for (int c = 0; c < 3; c++) {
        double vx[4], dx[4]; /* along x, for (dj, dk) = (0,0), (1,0), (0,1), (1,1) */
        for (int r = 0; r < 4; r++) {
            double a = v[2 * r][c], b = v[2 * r + 1][c];
            vx[r] = a + fx * (b - a);
            dx[r] = b - a;
        }
        double vy0 = vx[0] + fy * (vx[1] - vx[0]), vy1 = vx[2] + fy * (vx[3] - vx[2]);
        out[c] = vy0 + fz * (vy1 - vy0);
        if (J) {
            double dxy0 = dx[0] + fy * (dx[1] - dx[0]), dxy1 = dx[2] + fy * (dx[3] - dx[2]);
            double dy0 = vx[1] - vx[0], dy1 = vx[3] - vx[2];
            J->m[c][0] = (dxy0 + fz * (dxy1 - dxy0)) * inv[0];
            J->m[c][1] = (dy0 + fz * (dy1 - dy0)) * inv[1];
            J->m[c][2] = (vy1 - vy0) * inv[2];
        }
    }
    *u = ldem_vec3_make(out[0], out[1], out[2]);
}

int ldem_modes_eval(const ldem_modeset *m, ldem_vec3 p, ldem_vec3 *phi, ldem_mat3 *grad)
{
    if (m->field == LDEM_MODE_FIELD_ANALYTIC) {
        double x[3] = {p.x, p.y, p.z}, u[3], g[3][3];
        for (uint32_t a = 0; a < m->n; a++) {
            ldem_beam_bending_eval(&m->analytic[a], x, u, grad ? g : NULL);
            phi[a] = ldem_vec3_make(u[0], u[1], u[2]);
            if (grad)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        grad[a].m[i][j] = g[i][j];
        }
        return 1;
    }
    if (m->field != LDEM_MODE_FIELD_GRID) {
        for (uint32_t a = 0; a < m->n; a++) {
            phi[a] = ldem_vec3_zero();
            if (grad)
                memset(&grad[a], 0, sizeof grad[a]);
        }
        return 0;
    }
    grid_cell gc;
    find_cell(m, p, &gc);
    double v[8][3];
    for (uint32_t a = 0; a < m->n; a++) {
        corner_values(m, &gc, NULL, a, v);
        interpolate(&gc, v, &phi[a], grad ? &grad[a] : NULL);
    }
    return gc.inside;
}

int ldem_modes_displacement(const ldem_modeset *m, const double *eps, ldem_vec3 p, ldem_vec3 *u,
                            ldem_mat3 *J)
{
    if (m->field == LDEM_MODE_FIELD_GRID) {
        /* the modes are summed at the 8 corners first: one interpolation whatever n is */
        grid_cell gc;
        find_cell(m, p, &gc);
        double v[8][3];
        corner_values(m, &gc, eps, 0, v);
        interpolate(&gc, v, u, J);
        return gc.inside;
    }
    *u = ldem_vec3_zero();
    if (J)
        memset(J, 0, sizeof *J);
    if (m->field != LDEM_MODE_FIELD_ANALYTIC)
        return 0;
    double x[3] = {p.x, p.y, p.z}, v[3], g[3][3];
    for (uint32_t a = 0; a < m->n; a++) {
        if (eps[a] == 0.0)
            continue;
        ldem_beam_bending_eval(&m->analytic[a], x, v, J ? g : NULL);
        *u = ldem_vec3_add(*u, ldem_vec3_scale(ldem_vec3_make(v[0], v[1], v[2]), eps[a]));
        if (J)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    J->m[i][j] += eps[a] * g[i][j];
    }
    return 1;
}

ldem_vec3 ldem_modes_block_bound(const ldem_modeset *m, const double *eps, size_t block)
{
    const float *lo = m->block_lo + 3 * block * m->n, *hi = m->block_hi + 3 * block * m->n;
    double u[3] = {0.0, 0.0, 0.0};
    for (uint32_t a = 0; a < m->n; a++) {
        double e = fabs(eps[a]);
        for (int i = 0; i < 3; i++)
            u[i] += e * fmaxf(-lo[3 * a + i], hi[3 * a + i]);
    }
    return ldem_vec3_make(u[0], u[1], u[2]);
}

/* The range of Σα εα Φα,i from per-mode ranges lo, hi (3 per mode). */
static void range_of(uint32_t n, const double *eps, const float *lo, const float *hi,
                     ldem_vec3 *lo_out, ldem_vec3 *hi_out)
{
    double l[3] = {0.0, 0.0, 0.0}, h[3] = {0.0, 0.0, 0.0};
    for (uint32_t a = 0; a < n; a++) {
        double e = eps[a];
        for (int i = 0; i < 3; i++) {
            /* ε < 0 swaps the ends (plain comparisons: this is the filter's inner loop) */
            double x = e * lo[3 * a + i], y = e * hi[3 * a + i];
            l[i] += x < y ? x : y;
            h[i] += x < y ? y : x;
        }
    }
    *lo_out = ldem_vec3_make(l[0], l[1], l[2]);
    *hi_out = ldem_vec3_make(h[0], h[1], h[2]);
}

void ldem_modes_block_range(const ldem_modeset *m, const double *eps, size_t block,
                            ldem_vec3 *lo, ldem_vec3 *hi)
{
    size_t at = 3 * block * m->n;
    range_of(m->n, eps, m->block_lo + at, m->block_hi + at, lo, hi);
}

void ldem_modes_block_range_near(const ldem_modeset *m, const double *eps, size_t block,
                                 ldem_vec3 *lo, ldem_vec3 *hi, ldem_vec3 *edge)
{
    size_t at = 3 * block * m->n;
    range_of(m->n, eps, m->near_lo + at, m->near_hi + at, lo, hi);
    *edge = ldem_vec3_make(1.0 / m->block_scale[0], 1.0 / m->block_scale[1],
                           1.0 / m->block_scale[2]);
}

int ldem_modes_pull_back_range(const ldem_modeset *m, const double *eps, size_t block,
                               ldem_vec3 *lo, ldem_vec3 *hi)
{
    if (m->pullback <= 1) {
        ldem_modes_block_range(m, eps, block, lo, hi);
        return 1;
    }
    ldem_vec3 edge;
    ldem_modes_block_range_near(m, eps, block, lo, hi, &edge);
    return fmax(-lo->x, hi->x) < edge.x && fmax(-lo->y, hi->y) < edge.y &&
           fmax(-lo->z, hi->z) < edge.z;
}

ldem_vec3 ldem_modes_pull_back(const ldem_modeset *m, const double *eps, ldem_vec3 p,
                               ldem_mat3 *J)
{
    ldem_vec3 u, X = p;
    for (uint32_t it = 1; it < m->pullback; it++) {
        ldem_modes_displacement(m, eps, X, &u, NULL);
        X = ldem_vec3_sub(p, u);
    }
    ldem_modes_displacement(m, eps, X, &u, J);
    return ldem_vec3_sub(p, u);
}

ldem_vec3 ldem_modes_displacement_bound(const ldem_modeset *m, const double *eps, ldem_vec3 p)
{
    if (m->field == LDEM_MODE_FIELD_ANALYTIC)
        return ldem_vec3_make(INFINITY, INFINITY, INFINITY);
    if (m->field != LDEM_MODE_FIELD_GRID)
        return ldem_vec3_zero();
    return ldem_modes_block_bound(m, eps, ldem_modes_block_of(m, p));
}

ldem_vec3 ldem_modes_node_displacement(const ldem_modeset *m, const double *eps, uint64_t k)
{
    ldem_vec3 u = ldem_vec3_zero();
    for (uint32_t a = 0; a < m->n; a++) {
        const double *v = ldem_modes_node_value(m, a, k);
        u = ldem_vec3_add(u, ldem_vec3_scale(ldem_vec3_make(v[0], v[1], v[2]), eps[a]));
    }
    return u;
}

void ldem_modes_deform_nodes(const ldem_modeset *m, const double *eps, const double *ref,
                             double *out)
{
    for (uint64_t k = 0; k < m->nnodes; k++) {
        ldem_vec3 p = ldem_modes_deformed_node(m, eps, ref, k);
        out[3 * k] = p.x;
        out[3 * k + 1] = p.y;
        out[3 * k + 2] = p.z;
    }
}

int ldem_modes_internal(const ldem_modeset *m, const double *eps, double *f_int, double *U,
                        ldem_err *err)
{
    uint32_t n = m->n;
    double energy = 0.0;
    for (uint32_t a = 0; a < n; a++) {
        double f = 0.0;
        for (uint32_t b = 0; b < n; b++)
            if (b != a || !m->curves[a].n)
                f += m->K[(size_t)a * n + b] * eps[b];
        if (m->curves[a].n) {
            double Ua, Fa;
            int rc = ldem_energy_eval(&m->curves[a], eps[a], &Ua, &Fa, NULL, err);
            if (rc)
                return in_context(err, rc, "ETAB", a);
            /* the linear couplings count once in ½ εᵀKε, the table's own energy whole */
            energy += Ua + 0.5 * (f * eps[a]);
            f += Fa;
        } else {
            energy += 0.5 * f * eps[a];
        }
        if (f_int)
            f_int[a] = f;
    }
    if (U)
        *U = energy;
    return LDEM_OK;
}

void ldem_modes_solve_mass(const ldem_modeset *m, const double *f, double *a)
{
    forward(m->M_chol, m->n, f, a);
    backward(m->M_chol, m->n, a, a);
}

double ldem_modes_kinetic(const ldem_modeset *m, const double *rate)
{
    double e = 0.0;
    for (uint32_t i = 0; i < m->n; i++)
        for (uint32_t j = 0; j < m->n; j++)
            e += rate[i] * m->M[(size_t)i * m->n + j] * rate[j];
    return 0.5 * e;
}
