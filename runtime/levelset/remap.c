/* remap.c — level-set queries on a deformed grain by on-demand semi-Lagrangian remap
 * (Henzel & Karapiperis §3.1.3; ldem/levelset.h).
 *
 * φ(p) = φ0(X), X the reference point of p (X + u(X) = p), and the stored grid sampled
 * there. By default X = p − u(p): the paper's one-step pullback, exact for the transport
 * equation to first order in the displacement gradient; its error at the deformed surface
 * is O(|u| |∇u|), measured in pipelines/bench/remap. A modeset with pullback > 1 iterates
 * X ← p − u(X) (ldem_modes_pull_back), each step gaining a factor |∇u|. The gradient is the
 * chain rule of the same expression, ∇φ = (I − J)ᵀ ∇φ0 after one step, (I + J)⁻ᵀ ∇φ0 after
 * several, so normals turn with the deformation. */
#include "ldem/levelset.h"

#include <math.h>

#include "ldem/grid.h"

static int all_zero(const ldem_modeset *m, const double *eps)
{
    for (uint32_t a = 0; a < m->n; a++)
        if (eps[a] != 0.0)
            return 0;
    return 1;
}

static double weighted(const double lip[3], ldem_vec3 b)
{
    return lip[0] * b.x + lip[1] * b.y + lip[2] * b.z;
}

double ldem_levelset_remap_reach(const ldem_modeset *modes, const double *eps,
                                 const double lip[3], ldem_vec3 p)
{
    if (all_zero(modes, eps))
        return 0.0;
    if (modes->pullback > 1 && modes->field == LDEM_MODE_FIELD_GRID) {
        /* the iterates stray from p (ldem_modes_pull_back_range) */
        ldem_vec3 lo, hi;
        if (!ldem_modes_pull_back_range(modes, eps, ldem_modes_block_of(modes, p), &lo, &hi))
            return ldem_levelset_remap_reach_max(modes, eps, lip);
        return weighted(lip, ldem_vec3_make(fmax(-lo.x, hi.x), fmax(-lo.y, hi.y),
                                            fmax(-lo.z, hi.z)));
    }
    return weighted(lip, ldem_modes_displacement_bound(modes, eps, p));
}

double ldem_levelset_remap_reach_max(const ldem_modeset *modes, const double *eps,
                                     const double lip[3])
{
    double u = 0.0;
    for (uint32_t a = 0; a < modes->n; a++)
        if (eps[a] != 0.0)
            u += fabs(eps[a]) * modes->field_max[a];
    /* |u_i| ≤ |u| for each axis */
    return u > 0.0 ? (lip[0] + lip[1] + lip[2]) * u : 0.0;
}

/* x with (I + J)ᵀ x = g, by Cramer's rule; g itself if I + J is singular (|∇u| ~ 1, where
 * the pull back no longer converges either). */
static ldem_vec3 solve_transposed(ldem_mat3 J, ldem_vec3 g)
{
    double a[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = (i == j) + J.m[j][i]; /* (I + J)ᵀ */
    double c0 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
    double c1 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
    double c2 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    double det = a[0][0] * c0 + a[0][1] * c1 + a[0][2] * c2;
    if (!(fabs(det) > 1e-12))
        return g;
    /* the inverse is the adjugate (transposed cofactors) over det */
    double b[3] = {g.x, g.y, g.z}, x[3];
    double inv[3][3] = {
        {c0, a[0][2] * a[2][1] - a[0][1] * a[2][2], a[0][1] * a[1][2] - a[0][2] * a[1][1]},
        {c1, a[0][0] * a[2][2] - a[0][2] * a[2][0], a[0][2] * a[1][0] - a[0][0] * a[1][2]},
        {c2, a[0][1] * a[2][0] - a[0][0] * a[2][1], a[0][0] * a[1][1] - a[0][1] * a[1][0]}};
    for (int i = 0; i < 3; i++)
        x[i] = (inv[i][0] * b[0] + inv[i][1] * b[1] + inv[i][2] * b[2]) / det;
    return ldem_vec3_make(x[0], x[1], x[2]);
}

int ldem_levelset_sample_remap(const ldem_lset *ls, const ldem_modeset *modes,
                               const double *eps, ldem_vec3 p, double *phi, ldem_vec3 *grad)
{
    /* an undeformed grain is queried exactly as a rigid one, bit for bit */
    if (!modes || !eps || all_zero(modes, eps))
        return ldem_lset_sample(ls, p, phi, grad);
    ldem_vec3 g0;
    ldem_mat3 J;
    ldem_vec3 X = ldem_modes_pull_back(modes, eps, p, grad ? &J : NULL);
    int inside = ldem_lset_sample(ls, X, phi, grad ? &g0 : NULL);
    if (grad && modes->pullback <= 1) {
        /* (I − J)ᵀ g0: component j is g0_j − Σ_i J_ij g0_i */
        grad->x = g0.x - (J.m[0][0] * g0.x + J.m[1][0] * g0.y + J.m[2][0] * g0.z);
        grad->y = g0.y - (J.m[0][1] * g0.x + J.m[1][1] * g0.y + J.m[2][1] * g0.z);
        grad->z = g0.z - (J.m[0][2] * g0.x + J.m[1][2] * g0.y + J.m[2][2] * g0.z);
    } else if (grad) {
        /* converged, ∂X/∂p = (I + J(X))⁻¹: ∇φ solves (I + J)ᵀ ∇φ = g0 (I − J is its
         * first-order inverse, which the one-step pull back's accuracy does not outdo) */
        *grad = solve_transposed(J, g0);
    }
    return inside;
}

int ldem_levelset_query_remap(const ldem_lset *ls, const ldem_modeset *modes, const double *eps,
                              ldem_vec3 xc, ldem_quat q, ldem_vec3 p, double *phi,
                              ldem_vec3 *grad)
{
    ldem_vec3 p_body = ldem_quat_rotate_inv(q, ldem_vec3_sub(p, xc));
    ldem_vec3 grad_body;
    int inside = ldem_levelset_sample_remap(ls, modes, eps, p_body, phi,
                                            grad ? &grad_body : NULL);
    if (grad)
        *grad = ldem_quat_rotate(q, grad_body);
    return inside;
}
