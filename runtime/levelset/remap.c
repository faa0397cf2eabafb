/* remap.c — level-set queries on a deformed grain by on-demand semi-Lagrangian remap
 * (Henzel & Karapiperis §3.1.3; ldem/levelset.h).
 *
 * φ(p) = φ0(p − u(p)): the query point is pulled back by the modal displacement at the point
 * itself (one evaluation, no iteration) and the stored grid sampled there. This is the
 * paper's one-step pullback: exact for the transport equation to first order in the
 * displacement gradient; its error at the deformed surface is O(|u| |∇u|), measured in
 * pipelines/bench/remap. The gradient is the chain rule of the same expression,
 * ∇φ = (I − J)ᵀ ∇φ0, so normals turn with the deformation. */
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

int ldem_levelset_sample_remap(const ldem_lset *ls, const ldem_modeset *modes,
                               const double *eps, ldem_vec3 p, double *phi, ldem_vec3 *grad)
{
    /* an undeformed grain is queried exactly as a rigid one, bit for bit */
    if (!modes || !eps || all_zero(modes, eps))
        return ldem_lset_sample(ls, p, phi, grad);
    ldem_vec3 u, g0;
    ldem_mat3 J;
    ldem_modes_displacement(modes, eps, p, &u, grad ? &J : NULL);
    int inside = ldem_lset_sample(ls, ldem_vec3_sub(p, u), phi, grad ? &g0 : NULL);
    if (grad) {
        /* (I − J)ᵀ g0: component j is g0_j − Σ_i J_ij g0_i */
        grad->x = g0.x - (J.m[0][0] * g0.x + J.m[1][0] * g0.y + J.m[2][0] * g0.z);
        grad->y = g0.y - (J.m[0][1] * g0.x + J.m[1][1] * g0.y + J.m[2][1] * g0.z);
        grad->z = g0.z - (J.m[0][2] * g0.x + J.m[1][2] * g0.y + J.m[2][2] * g0.z);
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
