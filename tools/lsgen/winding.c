/* Generalized winding number (Jacobson et al. 2013), exact and hierarchical.
 *
 * w(q) = (1/4π) Σ Ω_t(q), Ω_t the signed solid angle of triangle t seen from q. Written as
 * a surface integral, w(q) = (1/4π) ∫ f(y)·n dA with f(y) = (y − q)/|y − q|³. For a BVH node
 * whose triangles all lie within `radius` of its centre p, and q farther than
 * LSGEN_WINDING_BETA·radius from p, f is expanded to second order about p (Barill et al.
 * 2018, "Fast winding numbers for soups and clouds", §3):
 *   ∫ f·n dA ≈ f(p)·N + J(p):M + ½ H(p)⋮C
 * with the node's moments N, M, C (bvh_internal.h) and, for r = p − q, R = |r|,
 *   f = r/R³,  J_ij = δ_ij/R³ − 3 r_i r_j/R⁵,
 *   H_ijk = −3(δ_ij r_k + δ_ik r_j + δ_jk r_i)/R⁵ + 15 r_i r_j r_k/R⁷.
 * The moments are exact for flat triangles (first and second moments of a triangle have
 * closed forms) and are shifted to the parent's centre when merging children. Nodes that
 * are too near are opened; leaves that are too near are summed exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_internal.h"
#include "tridist.h"

#define FOUR_PI (4.0 * 3.14159265358979323846)

/* Index of the symmetric pair (j, k) in the six stored entries xx yy zz xy xz yz. */
static int sym_index(int j, int k)
{
    static const int idx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
    return idx[j][k];
}

static double comp(ldem_vec3 v, int a)
{
    return a == 0 ? v.x : a == 1 ? v.y : v.z;
}

/* Moments of one triangle about `centre`, added to e: n dA integrated against 1, u_j and
 * u_j u_k (u = y − centre). ∫_T u uᵀ dA = (A/12)(Σ_v u_v u_vᵀ + s sᵀ), s = Σ_v u_v. */
static void add_triangle_moments(lsgen_bvh_expansion *e, const lsgen_bvh_tri *t)
{
    ldem_vec3 area_normal =
        ldem_vec3_scale(ldem_vec3_cross(ldem_vec3_sub(t->b, t->a), ldem_vec3_sub(t->c, t->a)), 0.5);
    ldem_vec3 u[3] = {ldem_vec3_sub(t->a, e->centre), ldem_vec3_sub(t->b, e->centre),
                      ldem_vec3_sub(t->c, e->centre)};
    ldem_vec3 s = ldem_vec3_add(u[0], ldem_vec3_add(u[1], u[2]));
    ldem_vec3 mean = ldem_vec3_scale(s, 1.0 / 3.0);
    for (int i = 0; i < 3; i++) {
        double ni = comp(area_normal, i);
        e->N[i] += ni;
        for (int j = 0; j < 3; j++)
            e->M[3 * i + j] += ni * comp(mean, j);
        for (int j = 0; j < 3; j++)
            for (int k = j; k < 3; k++) {
                double second = comp(s, j) * comp(s, k);
                for (int v = 0; v < 3; v++)
                    second += comp(u[v], j) * comp(u[v], k);
                e->C[6 * i + sym_index(j, k)] += ni * second / 12.0;
            }
    }
}

/* Child moments shifted from its centre to the parent's: with d = child centre − parent
 * centre, u_parent = u_child + d. */
static void add_shifted_moments(lsgen_bvh_expansion *e, const lsgen_bvh_expansion *child)
{
    ldem_vec3 d = ldem_vec3_sub(child->centre, e->centre);
    for (int i = 0; i < 3; i++) {
        double ni = child->N[i];
        e->N[i] += ni;
        for (int j = 0; j < 3; j++)
            e->M[3 * i + j] += child->M[3 * i + j] + ni * comp(d, j);
        for (int j = 0; j < 3; j++)
            for (int k = j; k < 3; k++)
                e->C[6 * i + sym_index(j, k)] +=
                    child->C[6 * i + sym_index(j, k)] + child->M[3 * i + j] * comp(d, k) +
                    child->M[3 * i + k] * comp(d, j) + ni * comp(d, j) * comp(d, k);
    }
}

static double triangle_area(const lsgen_bvh_tri *t)
{
    return 0.5 *
           ldem_vec3_norm(ldem_vec3_cross(ldem_vec3_sub(t->b, t->a), ldem_vec3_sub(t->c, t->a)));
}

/* Area-weighted centroid of slots [begin, end) (plain mean if they have no area). */
static ldem_vec3 leaf_centre(const lsgen_bvh *b, uint32_t begin, uint32_t end, double *area)
{
    ldem_vec3 sum = ldem_vec3_zero(), plain = ldem_vec3_zero();
    double total = 0.0;
    for (uint32_t s = begin; s < end; s++) {
        const lsgen_bvh_tri *t = &b->tris[s];
        ldem_vec3 c = ldem_vec3_scale(ldem_vec3_add(t->a, ldem_vec3_add(t->b, t->c)), 1.0 / 3.0);
        double a = triangle_area(t);
        sum = ldem_vec3_axpy(a, c, sum);
        plain = ldem_vec3_add(plain, c);
        total += a;
    }
    *area = total;
    return total > 0.0 ? ldem_vec3_scale(sum, 1.0 / total)
                       : ldem_vec3_scale(plain, 1.0 / (double)(end - begin));
}

static double max_vertex_distance(const lsgen_bvh *b, uint32_t begin, uint32_t end,
                                  ldem_vec3 centre)
{
    double r2 = 0.0;
    for (uint32_t s = begin; s < end; s++) {
        const lsgen_bvh_tri *t = &b->tris[s];
        r2 = fmax(r2, ldem_vec3_norm2(ldem_vec3_sub(t->a, centre)));
        r2 = fmax(r2, ldem_vec3_norm2(ldem_vec3_sub(t->b, centre)));
        r2 = fmax(r2, ldem_vec3_norm2(ldem_vec3_sub(t->c, centre)));
    }
    return sqrt(r2);
}

/* Children come after their parent in the depth-first array, so one backward pass sees
 * every child before its parent. A subtree's triangles occupy a contiguous slot range. */
int lsgen_bvh_build_expansions(lsgen_bvh *b, ldem_err *err)
{
    b->expansion = calloc(b->nnodes, sizeof *b->expansion);
    double *area = malloc(b->nnodes * sizeof *area);
    uint32_t *range = malloc(2 * b->nnodes * sizeof *range);
    if (!b->expansion || !area || !range) {
        free(area);
        free(range);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "out of memory for the winding-number expansions of %zu nodes",
                            b->nnodes);
    }
    for (size_t i = b->nnodes; i-- > 0;) {
        const lsgen_bvh_node *n = &b->nodes[i];
        lsgen_bvh_expansion *e = &b->expansion[i];
        if (n->count) {
            range[2 * i] = n->first_or_second;
            range[2 * i + 1] = n->first_or_second + n->count;
            e->centre = leaf_centre(b, range[2 * i], range[2 * i + 1], &area[i]);
            for (uint32_t s = range[2 * i]; s < range[2 * i + 1]; s++)
                add_triangle_moments(e, &b->tris[s]);
        } else {
            size_t l = i + 1, r = n->first_or_second;
            range[2 * i] = range[2 * l];
            range[2 * i + 1] = range[2 * r + 1];
            area[i] = area[l] + area[r];
            ldem_vec3 cl = b->expansion[l].centre, cr = b->expansion[r].centre;
            e->centre =
                area[i] > 0.0
                    ? ldem_vec3_scale(ldem_vec3_axpy(area[l], cl, ldem_vec3_scale(cr, area[r])),
                                      1.0 / area[i])
                    : ldem_vec3_scale(ldem_vec3_add(cl, cr), 0.5);
            add_shifted_moments(e, &b->expansion[l]);
            add_shifted_moments(e, &b->expansion[r]);
        }
        e->radius = max_vertex_distance(b, range[2 * i], range[2 * i + 1], e->centre);
    }
    free(area);
    free(range);
    return LDEM_OK;
}

/* 4π × the node's contribution at q from its second-order expansion. */
static double far_field(const lsgen_bvh_expansion *e, ldem_vec3 q)
{
    ldem_vec3 rv = ldem_vec3_sub(e->centre, q);
    double r[3] = {rv.x, rv.y, rv.z};
    double R2 = ldem_vec3_norm2(rv), R = sqrt(R2);
    double inv3 = 1.0 / (R2 * R), inv5 = inv3 / R2, inv7 = inv5 / R2;

    double order0 = (r[0] * e->N[0] + r[1] * e->N[1] + r[2] * e->N[2]) * inv3;

    double trace = e->M[0] + e->M[4] + e->M[8], rMr = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rMr += r[i] * e->M[3 * i + j] * r[j];
    double order1 = trace * inv3 - 3.0 * rMr * inv5;

    /* X = Σ_ij C_iij r_j, Y = Σ_i r_i Σ_j C_ijj, Z = C[r, r, r]. */
    double X = 0.0, Y = 0.0, Z = 0.0;
    for (int i = 0; i < 3; i++) {
        const double *Ci = e->C + 6 * i;
        double Cir[3];
        for (int j = 0; j < 3; j++) {
            X += Ci[sym_index(i, j)] * r[j];
            Cir[j] = Ci[sym_index(j, 0)] * r[0] + Ci[sym_index(j, 1)] * r[1] +
                     Ci[sym_index(j, 2)] * r[2];
        }
        Y += r[i] * (Ci[0] + Ci[1] + Ci[2]);
        Z += r[i] * (r[0] * Cir[0] + r[1] * Cir[1] + r[2] * Cir[2]);
    }
    double order2 = 0.5 * (-3.0 * (2.0 * X + Y) * inv5 + 15.0 * Z * inv7);
    return order0 + order1 + order2;
}

double lsgen_bvh_winding(const lsgen_bvh *b, ldem_vec3 x)
{
    double sum = 0.0; /* 4π w */
    uint32_t stack[LSGEN_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t i = stack[--top];
        const lsgen_bvh_expansion *e = &b->expansion[i];
        double reach = LSGEN_WINDING_BETA * e->radius;
        if (ldem_vec3_norm2(ldem_vec3_sub(e->centre, x)) > reach * reach) {
            sum += far_field(e, x);
            continue;
        }
        const lsgen_bvh_node *n = &b->nodes[i];
        if (n->count) {
            for (uint32_t s = n->first_or_second; s < n->first_or_second + n->count; s++) {
                const lsgen_bvh_tri *t = &b->tris[s];
                sum += lsgen_tri_solid_angle(x, t->a, t->b, t->c);
            }
        } else {
            stack[top++] = n->first_or_second;
            stack[top++] = i + 1;
        }
    }
    return sum / FOUR_PI;
}

double lsgen_mesh_winding_exact(const ldem_trimesh *m, ldem_vec3 x)
{
    double sum = 0.0;
    for (size_t t = 0; t < m->ntris; t++) {
        ldem_vec3 v[3];
        for (int k = 0; k < 3; k++) {
            const double *p = m->xyz + 3 * (size_t)m->tri[3 * t + k];
            v[k] = ldem_vec3_make(p[0], p[1], p[2]);
        }
        sum += lsgen_tri_solid_angle(x, v[0], v[1], v[2]);
    }
    return sum / FOUR_PI;
}
