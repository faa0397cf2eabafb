/* Sampling the modes where the runtime needs them, in the body frame: at the bundle's
 * surface nodes (to move them and project contact forces, eq. 41) and at the level-set
 * grid nodes (for the semi-Lagrangian remap, §3.1.3). FE modes are interpolated inside
 * the mesh and extended from the closest boundary point outside it (a --cubic mode term by
 * term, each on its rotated mesh: cubic.h); an analytic mode is evaluated directly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/log.h"
#include "modefit_cli.h"

/* Body-frame point → geometry frame, and geometry-frame vector → body frame. */
static void to_geometry(const modefit_grain *g, const double xb[3], double x[3])
{
    for (int i = 0; i < 3; i++)
        x[i] = g->body.centroid[i] + g->rot[i][0] * xb[0] + g->rot[i][1] * xb[1] +
               g->rot[i][2] * xb[2];
}

void modefit_to_body(const modefit_grain *g, const double x[3], double xb[3])
{
    double d[3];
    for (int i = 0; i < 3; i++)
        d[i] = x[i] - g->body.centroid[i];
    for (int i = 0; i < 3; i++)
        xb[i] = g->rot[0][i] * d[0] + g->rot[1][i] * d[1] + g->rot[2][i] * d[2];
}

static void vector_to_body(const modefit_grain *g, const double v[3], double vb[3])
{
    for (int i = 0; i < 3; i++)
        vb[i] = g->rot[0][i] * v[0] + g->rot[1][i] * v[1] + g->rot[2][i] * v[2];
}

/* Values of every mode at one body-frame point: out[3k + d]; returns the distance from
 * the FE mesh (0 inside, or for analytic modes). `scratch` holds 3·count doubles. */
static double sample_point(const modefit_grain *g, const modefit_basis *b, const double xb[3],
                           double *out, double *scratch)
{
    if (b->is_analytic) {
        analytic_eval(&b->analytic, xb, out, NULL);
        return 0.0;
    }
    double x[3];
    to_geometry(g, xb, x);
    /* Constant extension beyond the mesh: continuous, for the level-set remap. */
    double outside = modefit_eval(b, b->phi, b->count, x, 0, scratch);
    for (size_t k = 0; k < b->count; k++)
        vector_to_body(g, scratch + 3 * k, out + 3 * k);
    return outside;
}

static int sample_nodes(const modefit_grain *g, const modefit_basis *b, ldem_modes *m,
                        double *max_outside, ldem_err *err)
{
    size_t nn = g->nodes.count, A = b->count;
    m->node_values = malloc(A * nn * 3 * sizeof *m->node_values);
    if (!m->node_values)
        return modefit_nomem(err);
    double worst = 0;
    int fail = 0;
#pragma omp parallel reduction(max : worst) reduction(| : fail)
    {
        double *vals = malloc(3 * A * sizeof *vals), *scratch = malloc(3 * A * sizeof *scratch);
        fail = !vals || !scratch;
#pragma omp for schedule(static)
        for (size_t i = 0; i < nn; i++) {
            if (fail)
                continue;
            worst = fmax(worst, sample_point(g, b, g->nodes.position + 3 * i, vals, scratch));
            for (size_t k = 0; k < A; k++)
                memcpy(m->node_values + (k * nn + i) * 3, vals + 3 * k, 3 * sizeof *vals);
        }
        free(vals);
        free(scratch);
    }
    *max_outside = worst;
    return fail ? modefit_nomem(err) : LDEM_OK;
}

static int sample_grid(const modefit_grain *g, const modefit_basis *b, ldem_modes *m,
                       ldem_err *err)
{
    const ldem_lset *ls = &g->lset;
    size_t nx = ls->dims[0], ny = ls->dims[1], nz = ls->dims[2], np = nx * ny * nz;
    size_t A = b->count;
    for (int d = 0; d < 3; d++) {
        m->grid_dims[d] = ls->dims[d];
        m->grid_origin[d] = ls->origin[d];
        m->grid_spacing[d] = ls->spacing[d];
    }
    m->grid_values = malloc(A * np * 3 * sizeof *m->grid_values);
    if (!m->grid_values)
        return modefit_nomem(err);
    int fail = 0;
#pragma omp parallel reduction(| : fail)
    {
        double *vals = malloc(3 * A * sizeof *vals), *scratch = malloc(3 * A * sizeof *scratch);
        fail = !vals || !scratch;
#pragma omp for schedule(dynamic, 1)
        for (size_t kk = 0; kk < nz; kk++) {
            for (size_t j = 0; j < ny && !fail; j++)
                for (size_t i = 0; i < nx; i++) {
                    ldem_vec3 p = ldem_lset_node(ls, (uint32_t)i, (uint32_t)j, (uint32_t)kk);
                    double xb[3] = {p.x, p.y, p.z};
                    sample_point(g, b, xb, vals, scratch);
                    size_t idx = i + nx * (j + ny * kk);
                    for (size_t k = 0; k < A; k++)
                        for (int d = 0; d < 3; d++)
                            m->grid_values[(k * np + idx) * 3 + (size_t)d] =
                                (float)vals[3 * k + (size_t)d];
                }
        }
        free(vals);
        free(scratch);
    }
    return fail ? modefit_nomem(err) : LDEM_OK;
}

/* -v: how far the bundle's surface nodes lie outside the mesh, where the modes are extended
 * rather than interpolated (whether the mesh is the grain at all was judged before the
 * basis was built: modefit_mismatch.c). The distance is to the corner triangulation of
 * the mesh's boundary, which quadratic elements bulge past: for them it overstates. */
static void report_outside(const modefit_grain *g, double node_outside)
{
    double h = fmax(g->lset.spacing[0], fmax(g->lset.spacing[1], g->lset.spacing[2]));
    ldem_info("bundle surface nodes at most %.4g (%.3f h) outside the FEM mesh's corner "
              "triangulation", node_outside, node_outside / h);
}

int modefit_map(const modefit_options *o, const modefit_grain *g, const modefit_basis *b,
                ldem_modes *m, ldem_err *err)
{
    (void)o;
    memset(m, 0, sizeof *m);
    m->count = (uint32_t)b->count;
    m->kind = b->is_analytic ? LDEM_MODE_ANALYTIC : LDEM_MODE_SAMPLED;
    m->nnodes = g->nodes.count;
    double node_outside = 0;
    int rc = sample_nodes(g, b, m, &node_outside, err);
    if (!rc)
        rc = sample_grid(g, b, m, err);
    if (!rc && b->is_analytic)
        rc = analytic_describe(&b->analytic, &m->descriptor, err);
    if (!rc && !b->is_analytic)
        report_outside(g, node_outside);
    return rc;
}
