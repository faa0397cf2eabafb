/* Hertz patch loads (fe_patch.h).
 *
 * Each boundary triangle of the locator (the corners of a tet face) is mapped back into
 * its tet's natural coordinates, so that the load integrates against the tet's own shape
 * functions: on a tet10 the face's midside nodes get their consistent share, and a curved
 * face is integrated on its curved geometry. The pressure's square-root edge is not
 * smooth, so each face is split into SUB × SUB triangles with a 3-point rule. */
#include "fe_patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe_tet.h"

enum { SUB = 6 };
/* Nodes this close to the top (relative to the grain's extent along d) touch the plane. */
#define TOUCH_TOLERANCE 1e-9

static const double corner_rst[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* Local corner index of node `node` in tet e, or -1. */
static int local_corner(const fe_mesh *m, size_t e, size_t node)
{
    for (int k = 0; k < 4; k++)
        if (m->tet[(size_t)m->order * e + (size_t)k] == node)
            return k;
    return -1;
}

static double pressure_shape(const double x[3], const double c[3], const double d[3], double a)
{
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double h = r[0] * d[0] + r[1] * d[1] + r[2] * d[2];
    if (h < -a)
        return 0.0; /* a deep point of a concave grain is not under the plane */
    double rho2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] - h * h;
    return rho2 < a * a ? sqrt(1.0 - rho2 / (a * a)) : 0.0;
}

/* Integrates over one face: adds shape · N_a · weight · (−d) into f (unscaled) and
 * returns the face's total ∫ shape dA_projected. */
static double face_load(const fe_mesh *m, size_t e, const int lc[3], const double c[3],
                        const double d[3], double a, double *f)
{
    static const double bary[3][3] = {{2.0 / 3, 1.0 / 6, 1.0 / 6},
                                      {1.0 / 6, 2.0 / 3, 1.0 / 6},
                                      {1.0 / 6, 1.0 / 6, 2.0 / 3}};
    const int n = m->order;
    const size_t *nodes = m->tet + (size_t)n * e;
    double e1[3], e2[3], total = 0.0;
    for (int i = 0; i < 3; i++) {
        e1[i] = corner_rst[lc[1]][i] - corner_rst[lc[0]][i];
        e2[i] = corner_rst[lc[2]][i] - corner_rst[lc[0]][i];
    }
    const double h = 1.0 / SUB;
    for (int i = 0; i < SUB; i++)
        for (int j = 0; j < SUB - i; j++)
            for (int up = 0; up < 2; up++) {
                if (up && i + j == SUB - 1)
                    continue;
                /* Sub-triangle corners in face coordinates (u, v). */
                double u0[3][2];
                if (!up) {
                    double t[3][2] = {{i * h, j * h}, {(i + 1) * h, j * h}, {i * h, (j + 1) * h}};
                    memcpy(u0, t, sizeof t);
                } else {
                    double t[3][2] = {{(i + 1) * h, (j + 1) * h}, {i * h, (j + 1) * h},
                                      {(i + 1) * h, j * h}};
                    memcpy(u0, t, sizeof t);
                }
                for (int q = 0; q < 3; q++) {
                    double u = 0, v = 0;
                    for (int k = 0; k < 3; k++) {
                        u += bary[q][k] * u0[k][0];
                        v += bary[q][k] * u0[k][1];
                    }
                    double rst[3], x[3], J[3][3], N[FE_TET10];
                    for (int k = 0; k < 3; k++)
                        rst[k] = corner_rst[lc[0]][k] + u * e1[k] + v * e2[k];
                    fe_tet_map(m, e, rst, x, J);
                    double s = pressure_shape(x, c, d, a);
                    if (s == 0.0)
                        continue;
                    double t1[3], t2[3];
                    for (int k = 0; k < 3; k++) {
                        t1[k] = J[k][0] * e1[0] + J[k][1] * e1[1] + J[k][2] * e1[2];
                        t2[k] = J[k][0] * e2[0] + J[k][1] * e2[1] + J[k][2] * e2[2];
                    }
                    double nx = t1[1] * t2[2] - t1[2] * t2[1], ny = t1[2] * t2[0] - t1[0] * t2[2],
                           nz = t1[0] * t2[1] - t1[1] * t2[0];
                    /* Area of the sub-triangle in (u, v) is h²/2, split over 3 points. */
                    double proj = fabs(nx * d[0] + ny * d[1] + nz * d[2]) * h * h / 6.0;
                    double w = s * proj;
                    fe_tet_shape(n, rst, N, NULL);
                    for (int b = 0; b < n; b++)
                        for (int k = 0; k < 3; k++)
                            f[3 * nodes[b] + (size_t)k] -= w * N[b] * d[k];
                    total += w;
                }
            }
    return total;
}

int fe_patch_load(const fe_mesh *m, const fe_locator *loc, const double d[3], double a,
                  double *f, double centre[3], size_t *faces, ldem_err *err)
{
    size_t nb = 0;
    const size_t *bnodes = fe_boundary_nodes(loc, &nb);
    const size_t *face_tet = NULL;
    const ldem_trimesh *surf = fe_boundary_surface(loc, &face_tet);
    /* The plane touches the nodes at the greatest height: one node on a curved grain,
     * a whole face on a flat one, whose centre is then the patch's (a patch on the
     * corner of a cube's face would push it off-axis). */
    double best = -INFINITY, low = INFINITY;
    for (size_t i = 0; i < nb; i++) {
        const double *x = m->xyz + 3 * bnodes[i];
        double h = x[0] * d[0] + x[1] * d[1] + x[2] * d[2];
        best = fmax(best, h);
        low = fmin(low, h);
    }
    double tie = TOUCH_TOLERANCE * (best - low), sum[3] = {0, 0, 0};
    size_t touching = 0;
    for (size_t i = 0; i < nb; i++) {
        const double *x = m->xyz + 3 * bnodes[i];
        if (x[0] * d[0] + x[1] * d[1] + x[2] * d[2] >= best - tie) {
            for (int k = 0; k < 3; k++)
                sum[k] += x[k];
            touching++;
        }
    }
    for (int k = 0; k < 3; k++)
        centre[k] = sum[k] / (double)touching;
    size_t ndof = 3 * m->nnodes, loaded = 0;
    double *g = calloc(ndof, sizeof *g);
    if (!g)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for a patch load");
    double total = 0.0;
    for (size_t t = 0; t < surf->ntris; t++) {
        const uint32_t *tri = surf->tri + 3 * t;
        size_t e = face_tet[t];
        int lc[3];
        int ok = 1;
        for (int k = 0; k < 3; k++) {
            lc[k] = local_corner(m, e, bnodes[tri[k]]);
            ok &= lc[k] >= 0;
        }
        /* Faces facing away from d carry no plane contact; faces beyond the patch plus
         * their own size cannot reach it. */
        const double *p0 = surf->xyz + 3 * (size_t)tri[0], *p1 = surf->xyz + 3 * (size_t)tri[1],
                     *p2 = surf->xyz + 3 * (size_t)tri[2];
        double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double v[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        double nd = (u[1] * v[2] - u[2] * v[1]) * d[0] + (u[2] * v[0] - u[0] * v[2]) * d[1] +
                    (u[0] * v[1] - u[1] * v[0]) * d[2];
        double size = 0.0, reach = INFINITY;
        const double *pc[3] = {p0, p1, p2};
        for (int k = 0; k < 3; k++) {
            const double *q = pc[k], *r = pc[(k + 1) % 3];
            size = fmax(size, sqrt((q[0] - r[0]) * (q[0] - r[0]) + (q[1] - r[1]) * (q[1] - r[1]) +
                                   (q[2] - r[2]) * (q[2] - r[2])));
            reach = fmin(reach, sqrt((q[0] - centre[0]) * (q[0] - centre[0]) +
                                     (q[1] - centre[1]) * (q[1] - centre[1]) +
                                     (q[2] - centre[2]) * (q[2] - centre[2])));
        }
        if (!ok || !(nd > 0.0) || reach > 1.5 * a + size)
            continue;
        double w = face_load(m, e, lc, centre, d, a, g);
        if (w > 0.0) {
            total += w;
            loaded++;
        }
    }
    if (total > 0.0)
        for (size_t i = 0; i < ndof; i++)
            f[i] += g[i] / total;
    free(g);
    *faces = loaded;
    return LDEM_OK;
}
