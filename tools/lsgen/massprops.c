/* Mass properties of a closed, outward-oriented triangle mesh by the divergence theorem.
 *
 * Each triangle (a, b, c) and a reference point o span a signed tetrahedron; summed over a
 * closed surface the signed tetrahedra tile the enclosed volume exactly, so the volume,
 * first and second moments below are exact for the polyhedron (up to rounding). For one
 * tetrahedron with a vertex at the origin and the others at a, b, c (Tonon 2004, J. Math.
 * Stat. 1(1); the "covariance" form of the same integrals):
 *     V = a·(b×c)/6,   ∫x dV = V (a+b+c)/4,
 *     ∫x_i x_j dV = V/20 · (a_i a_j + b_i b_j + c_i c_j + s_i s_j),  s = a+b+c.
 * Rounding: the integrals are taken about a point near the body, never about the global
 * origin — first the bounding-box centre (volume and centroid), then the centroid itself
 * (second moments) — so a grain at 1e6 from the origin loses no digits.
 */
#include "massprops.h"

#include <math.h>
#include <string.h>

#include "ldem/sym3.h"

static void vertex_minus(const ldem_trimesh *m, uint32_t v, const double o[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = m->xyz[3 * (size_t)v + k] - o[k];
}

static void bbox_of(const ldem_trimesh *m, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < m->nverts; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->xyz[3 * i + k]);
            hi[k] = fmax(hi[k], m->xyz[3 * i + k]);
        }
}

static double triple(const double a[3], const double b[3], const double c[3])
{
    return a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* Six times the signed volume and 24 times the first moment, both about o (the factors are
 * applied once at the end). Also the surface area. */
static void first_moments(const ldem_trimesh *m, const double o[3], double *vol6, double mom24[3],
                          double *area)
{
    double v6 = 0.0, a2 = 0.0, s[3] = {0.0, 0.0, 0.0};
    for (size_t t = 0; t < m->ntris; t++) {
        double a[3], b[3], c[3];
        vertex_minus(m, m->tri[3 * t], o, a);
        vertex_minus(m, m->tri[3 * t + 1], o, b);
        vertex_minus(m, m->tri[3 * t + 2], o, c);
        double d = triple(a, b, c);
        v6 += d;
        for (int k = 0; k < 3; k++)
            s[k] += d * (a[k] + b[k] + c[k]);
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        a2 += sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    *vol6 = v6;
    memcpy(mom24, s, sizeof s);
    *area = 0.5 * a2;
}

/* 120 times ∫ x_i x_j dV about o (upper triangle filled, then mirrored). */
static void second_moments(const ldem_trimesh *m, const double o[3], double c120[3][3])
{
    double acc[3][3] = {{0}};
    for (size_t t = 0; t < m->ntris; t++) {
        double p[3][3];
        for (int v = 0; v < 3; v++)
            vertex_minus(m, m->tri[3 * t + v], o, p[v]);
        double d = triple(p[0], p[1], p[2]); /* 6 V */
        double s[3] = {p[0][0] + p[1][0] + p[2][0], p[0][1] + p[1][1] + p[2][1],
                       p[0][2] + p[1][2] + p[2][2]};
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++)
                acc[i][j] +=
                    d * (p[0][i] * p[0][j] + p[1][i] * p[1][j] + p[2][i] * p[2][j] + s[i] * s[j]);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c120[i][j] = i <= j ? acc[i][j] : acc[j][i];
}

int lsgen_mesh_mass_props(const ldem_trimesh *m, const char *source, lsgen_massprops *mp,
                          ldem_err *err)
{
    int rc = ldem_trimesh_check(m, source, err);
    if (rc)
        return rc;
    if (m->ntris == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "zero-volume mesh: no triangles; expected a closed surface");

    double lo[3], hi[3], centre[3];
    bbox_of(m, lo, hi);
    double bbox_volume = 1.0;
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5 * (lo[k] + hi[k]);
        bbox_volume *= hi[k] - lo[k];
    }

    double vol6, mom24[3], area;
    first_moments(m, centre, &vol6, mom24, &area);
    double volume = vol6 / 6.0;
    if (!(fabs(volume) > 1e-12 * bbox_volume))
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "zero-volume mesh: enclosed volume %.3g is negligible against "
                            "the bounding box (%.3g); expected a closed surface around a solid",
                            volume, bbox_volume);
    if (volume < 0.0)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "mesh is inside out: enclosed volume %.6g is negative; expected "
                            "triangles counter-clockwise seen from outside",
                            volume);

    double centroid[3];
    for (int k = 0; k < 3; k++)
        centroid[k] = centre[k] + mom24[k] / (4.0 * vol6);

    /* Second moments about the centroid directly: no parallel-axis subtraction. */
    double c120[3][3];
    second_moments(m, centroid, c120);
    double c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i][j] = c120[i][j] / 120.0;
    double trace = c[0][0] + c[1][1] + c[2][2];

    mp->volume = volume;
    mp->area = area;
    for (int i = 0; i < 3; i++) {
        mp->centroid[i] = centroid[i];
        for (int j = 0; j < 3; j++)
            mp->inertia[i][j] = (i == j ? trace : 0.0) - c[i][j];
    }
    return LDEM_OK;
}

/* The 6 permutations of (0, 1, 2) with their parity. */
static const int PERMS[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
static const int PERM_ODD[6] = {0, 0, 0, 1, 1, 1};

int lsgen_principal_frame(const double inertia[3][3], double moments[3], ldem_quat *orientation,
                          ldem_err *err)
{
    ldem_mat3 a;
    memcpy(a.m, inertia, sizeof a.m);
    double w[3];
    ldem_mat3 v;
    if (ldem_sym3_eigen(a, w, &v) != LDEM_OK)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "inertia tensor has a non-finite entry; expected finite values");

    /* Column j of the result is sign[j] · eigenvector perm[j]. Among the 24 proper
     * relabellings the one with the largest trace is the rotation of smallest angle
     * (trace = 1 + 2 cos θ), so a body already in principal axes keeps its axes. The first
     * maximum in this fixed order wins ties, so the choice is deterministic. */
    double best = -INFINITY;
    int best_p = 0, best_signs = 0;
    for (int p = 0; p < 6; p++)
        for (int signs = 0; signs < 8; signs++) {
            int negatives = (signs & 1) + ((signs >> 1) & 1) + ((signs >> 2) & 1);
            /* det = parity(perm) · product(signs) · det V, and det V = +1 */
            if ((negatives + PERM_ODD[p]) % 2 != 0)
                continue;
            double tr = 0.0;
            for (int j = 0; j < 3; j++)
                tr += ((signs >> j) & 1 ? -1.0 : 1.0) * v.m[j][PERMS[p][j]];
            if (tr > best) {
                best = tr;
                best_p = p;
                best_signs = signs;
            }
        }

    ldem_mat3 r;
    for (int j = 0; j < 3; j++) {
        int src = PERMS[best_p][j];
        double sg = (best_signs >> j) & 1 ? -1.0 : 1.0;
        moments[j] = w[src];
        for (int i = 0; i < 3; i++)
            r.m[i][j] = sg * v.m[i][src];
    }
    *orientation = ldem_quat_from_mat3(r);
    return LDEM_OK;
}
