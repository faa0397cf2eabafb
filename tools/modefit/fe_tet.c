/* The 4- and 10-node tetrahedra (fe_tet.h): shape functions, symmetric quadrature rules
 * and the isoparametric map with its inverse.
 *
 * Everything is written in barycentric coordinates L0 = 1 - r - s - t, L1 = r, L2 = s,
 * L3 = t: the tet10 functions are L_i (2 L_i - 1) at the corners and 4 L_a L_b on the
 * edges, and the quadrature rules are orbits of barycentric points under the 24 vertex
 * permutations, so every rule treats the four vertices alike. */
#include "fe_tet.h"

#include <math.h>

/* Corner pairs of the edge nodes 4..9 (femesh.h: 01 12 20 03 13 23). */
static const int edge_corners[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};

/* dL_i / d(r, s, t). */
static const double dL[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

void fe_tet_shape(int order, const double rst[3], double *N, double (*dN)[3])
{
    const double L[4] = {1.0 - rst[0] - rst[1] - rst[2], rst[0], rst[1], rst[2]};
    if (order == FE_TET4) {
        for (int i = 0; i < 4; i++) {
            N[i] = L[i];
            if (dN)
                for (int k = 0; k < 3; k++)
                    dN[i][k] = dL[i][k];
        }
        return;
    }
    for (int i = 0; i < 4; i++) {
        N[i] = L[i] * (2.0 * L[i] - 1.0);
        if (dN)
            for (int k = 0; k < 3; k++)
                dN[i][k] = (4.0 * L[i] - 1.0) * dL[i][k];
    }
    for (int e = 0; e < 6; e++) {
        int a = edge_corners[e][0], b = edge_corners[e][1];
        N[4 + e] = 4.0 * L[a] * L[b];
        if (dN)
            for (int k = 0; k < 3; k++)
                dN[4 + e][k] = 4.0 * (L[a] * dL[b][k] + L[b] * dL[a][k]);
    }
}

/* ---- quadrature ----
 *
 * Each rule is a union of orbits: S4 = the centroid; S31(a) = the 4 points with three
 * barycentric coordinates a and one 1 - 3a; S22(a) = the 6 points with two coordinates a
 * and two 1/2 - a. A symmetric rule is exact to degree d when it integrates the
 * permutation-invariant polynomials up to degree d (the power sums p2, p3, p4, p2², p5,
 * p2·p3 of the L_i): that gives a small system for the orbit parameters and weights,
 * solved here by Newton in 60-digit arithmetic and printed to 23 digits.
 *   degree 1: the centroid.
 *   degree 2: S31 with a = (5 - √5)/20, the classical 4-point rule.
 *   degree 3: two S31 orbits (8 points, positive weights). Degree 3 leaves one free
 *             parameter in this family; we fix a1 = 0.1080472498984286 as Witherden &
 *             Vincent (2015) chose it (smallest degree-4 error) and solve for the rest.
 *             (The 5-point degree-3 rule has a negative centroid weight.)
 *   degree 5: two S31 and one S22 orbit (14 points, positive weights; the rule of
 *             Walkington and of Keast's tables). Six unknowns, six equations.
 * Degree 4 is served by the degree-5 rule: the only smaller symmetric degree-4 rule
 * (Keast's 11 points, S4 + S31 + S22) has a negative weight, and the positive ones in
 * the literature have 14 points too.
 * The tests check each rule against the exact monomial integrals a! b! c! / (a+b+c+3)!. */

#define D3_A1 1.0804724989842860000000e-1
#define D3_W1 1.8963692910485439020207e-2
#define D3_A2 3.2816330251638168635325e-1
#define D3_W2 2.2702973756181227646460e-2

#define D5_A1 9.2735250310891226402324e-2
#define D5_W1 1.2248840519393658257285e-2
#define D5_A2 3.1088591926330060979735e-1
#define D5_W2 1.8781320953002641799864e-2
#define D5_B 4.5503704125649649491881e-2
#define D5_WB 7.0910034628469110730116e-3

#define D2_A 1.3819660112501051517954e-1

/* clang-format off */
/* The 4 points of S31(a) in (r, s, t) = (L1, L2, L3): the odd coordinate at each L_i. */
#define S31_POINTS(a)                                                                     \
    {a, a, a}, {1.0 - 3.0 * (a), a, a}, {a, 1.0 - 3.0 * (a), a}, {a, a, 1.0 - 3.0 * (a)}

/* The 6 points of S22(a): which two of L0..L3 equal a. */
#define S22_POINTS(a)                                                                     \
    {a, 0.5 - (a), 0.5 - (a)}, {0.5 - (a), a, 0.5 - (a)}, {0.5 - (a), 0.5 - (a), a},      \
        {a, a, 0.5 - (a)}, {a, 0.5 - (a), a}, {0.5 - (a), a, a}

static const double rule1_rst[1][3] = {{0.25, 0.25, 0.25}};
static const double rule1_w[1] = {1.0 / 6.0};

static const double rule2_rst[4][3] = {S31_POINTS(D2_A)};
static const double rule2_w[4] = {1.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0};

static const double rule3_rst[8][3] = {S31_POINTS(D3_A1), S31_POINTS(D3_A2)};
static const double rule3_w[8] = {D3_W1, D3_W1, D3_W1, D3_W1, D3_W2, D3_W2, D3_W2, D3_W2};

static const double rule5_rst[14][3] = {S31_POINTS(D5_A1), S31_POINTS(D5_A2),
                                        S22_POINTS(D5_B)};
static const double rule5_w[14] = {D5_W1, D5_W1, D5_W1, D5_W1, D5_W2, D5_W2, D5_W2,
                                   D5_W2, D5_WB, D5_WB, D5_WB, D5_WB, D5_WB, D5_WB};

/* clang-format on */

static const fe_rule rules[] = {
    {1, 1, rule1_rst, rule1_w},
    {2, 4, rule2_rst, rule2_w},
    {3, 8, rule3_rst, rule3_w},
    {5, 14, rule5_rst, rule5_w},
};

const fe_rule *fe_tet_rule(int degree)
{
    const int n = (int)(sizeof rules / sizeof rules[0]);
    for (int i = 0; i < n; i++)
        if (rules[i].degree >= degree)
            return &rules[i];
    return &rules[n - 1];
}

/* ---- the isoparametric map ---- */

/* Matrices are passed without const: C11 does not convert double (*)[3] to
 * const double (*)[3] implicitly (-Wpedantic). */
static double det3(double A[3][3])
{
    return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
           A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
           A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

/* Inverse by cofactors; returns det A (the inverse is garbage when it is 0). */
static double inverse3(double A[3][3], double Ai[3][3])
{
    double d = det3(A);
    double s = 1.0 / d;
    Ai[0][0] = (A[1][1] * A[2][2] - A[1][2] * A[2][1]) * s;
    Ai[0][1] = (A[0][2] * A[2][1] - A[0][1] * A[2][2]) * s;
    Ai[0][2] = (A[0][1] * A[1][2] - A[0][2] * A[1][1]) * s;
    Ai[1][0] = (A[1][2] * A[2][0] - A[1][0] * A[2][2]) * s;
    Ai[1][1] = (A[0][0] * A[2][2] - A[0][2] * A[2][0]) * s;
    Ai[1][2] = (A[0][2] * A[1][0] - A[0][0] * A[1][2]) * s;
    Ai[2][0] = (A[1][0] * A[2][1] - A[1][1] * A[2][0]) * s;
    Ai[2][1] = (A[0][1] * A[2][0] - A[0][0] * A[2][1]) * s;
    Ai[2][2] = (A[0][0] * A[1][1] - A[0][1] * A[1][0]) * s;
    return d;
}

double fe_tet_map(const fe_mesh *m, size_t e, const double rst[3], double x[3], double J[3][3])
{
    double N[FE_TET10], dN[FE_TET10][3];
    const int n = m->order;
    const size_t *nodes = m->tet + (size_t)n * e;
    fe_tet_shape(n, rst, N, dN);
    double xs[3] = {0, 0, 0};
    double Jl[3][3] = {{0}};
    for (int a = 0; a < n; a++) {
        const double *p = m->xyz + 3 * nodes[a];
        for (int i = 0; i < 3; i++) {
            xs[i] += N[a] * p[i];
            for (int j = 0; j < 3; j++)
                Jl[i][j] += p[i] * dN[a][j];
        }
    }
    if (x)
        for (int i = 0; i < 3; i++)
            x[i] = xs[i];
    if (J)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                J[i][j] = Jl[i][j];
    return det3(Jl);
}

double fe_tet_gradients_at(const fe_mesh *m, size_t e, const double (*dN)[3], double (*G)[3])
{
    const int n = m->order;
    const size_t *nodes = m->tet + (size_t)n * e;
    double J[3][3] = {{0}}, Ji[3][3];
    for (int a = 0; a < n; a++) {
        const double *p = m->xyz + 3 * nodes[a];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                J[i][j] += p[i] * dN[a][j];
    }
    if (!G)
        return det3(J);
    double d = inverse3(J, Ji);
    /* dN/dx_k = Σ_j dN/dξ_j · dξ_j/dx_k, and dξ/dx = J⁻¹. */
    for (int a = 0; a < n; a++)
        for (int k = 0; k < 3; k++)
            G[a][k] = dN[a][0] * Ji[0][k] + dN[a][1] * Ji[1][k] + dN[a][2] * Ji[2][k];
    return d;
}

double fe_tet_gradients(const fe_mesh *m, size_t e, const double rst[3], double (*G)[3])
{
    double N[FE_TET10], dN[FE_TET10][3];
    fe_tet_shape(m->order, rst, N, dN);
    return fe_tet_gradients_at(m, e, (const double(*)[3])dN, G);
}

/* Natural coordinates of x in the straight tet through the element's corners. */
static void invert_linear(const fe_mesh *m, size_t e, const double x[3], double rst[3])
{
    const size_t *nodes = m->tet + (size_t)m->order * e;
    const double *p0 = m->xyz + 3 * nodes[0];
    double A[3][3], Ai[3][3], d[3];
    for (int j = 0; j < 3; j++) {
        const double *pj = m->xyz + 3 * nodes[j + 1];
        for (int i = 0; i < 3; i++)
            A[i][j] = pj[i] - p0[i];
    }
    for (int i = 0; i < 3; i++)
        d[i] = x[i] - p0[i];
    inverse3(A, Ai);
    for (int i = 0; i < 3; i++)
        rst[i] = Ai[i][0] * d[0] + Ai[i][1] * d[1] + Ai[i][2] * d[2];
}

/* Newton iterations on the quadratic map. The natural coordinates are O(1), so a step
 * below 1e-12 is a relative accuracy of 1e-12 of the element size; a straight tet10
 * converges in one step, a curved one in a few. Far outside a curved element the map
 * may fold (det J <= 0) or Newton may wander: we then stop and keep the last estimate
 * that was finite. */
enum { NEWTON_MAX_ITER = 40 };
#define NEWTON_STEP_TOL 1e-12

static void invert_newton(const fe_mesh *m, size_t e, const double x[3], double rst[3])
{
    for (int it = 0; it < NEWTON_MAX_ITER; it++) {
        double xm[3], J[3][3], Ji[3][3], step[3];
        fe_tet_map(m, e, rst, xm, J);
        double d = inverse3(J, Ji);
        if (!(d > 0.0) || !isfinite(d))
            return;
        double big = 0.0, norm = 0.0;
        for (int i = 0; i < 3; i++) {
            step[i] =
                Ji[i][0] * (x[0] - xm[0]) + Ji[i][1] * (x[1] - xm[1]) + Ji[i][2] * (x[2] - xm[2]);
            big = fmax(big, fabs(step[i]));
            norm = fmax(norm, fabs(rst[i]));
        }
        if (!isfinite(big))
            return;
        for (int i = 0; i < 3; i++)
            rst[i] += step[i];
        if (big <= NEWTON_STEP_TOL * fmax(1.0, norm))
            return;
    }
}

int fe_tet_invert(const fe_mesh *m, size_t e, const double x[3], double tol, double rst[3])
{
    invert_linear(m, e, x, rst);
    if (m->order == FE_TET10)
        invert_newton(m, e, x, rst);
    double L0 = 1.0 - rst[0] - rst[1] - rst[2];
    return L0 >= -tol && rst[0] >= -tol && rst[1] >= -tol && rst[2] >= -tol;
}
