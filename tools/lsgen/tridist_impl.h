/* Private to lsgen's distance module: the closest-point kernel of tridist.c as static
 * inline functions, so that the BVH's inner loop (bvh.c) inlines exactly the code that
 * lsgen_tri_closest runs — the two give bit-identical distances.
 *
 * Precision: everything is built from the differences p − a, p − b, p − c and the edges,
 * and the residual p − q (whose length is the distance) is formed from the difference to a
 * nearby vertex, never as p − q with q in absolute coordinates. So a triangle a million
 * units from the origin loses nothing to cancellation.
 *
 * Two paths. Well-shaped triangles (the angle at a not tiny) use Ericson's Voronoi-region
 * classification (Real-Time Collision Detection §5.1.5). Its 2×2 determinants lose
 * sin²(angle at a) of their precision, so slivers (needles, caps) and zero-area triangles
 * take a slower path in the frame of their longest edge, where the inside test and the
 * normal are well conditioned: the normal's only uncertain rotation is about the long
 * edge, which moves the plane by at most round-off over the sliver's tiny width. */
#ifndef LSGEN_TRIDIST_IMPL_H
#define LSGEN_TRIDIST_IMPL_H

#include "tridist.h"

/* The BVH's inner loop wants the kernel inlined; compilers that know the attribute get
 * told so (the kernel is too large for their default heuristics). */
#if defined(__GNUC__)
#define LSGEN_TRI_INLINE static inline __attribute__((always_inline))
#else
#define LSGEN_TRI_INLINE static inline
#endif

/* sin²(angle at a) below which the sliver path is taken: Ericson's classification then
 * still has ~1e-10 relative precision. */
#define LSGEN_TRI_SLIVER_SIN2 1e-6

typedef struct lsgen_closest {
    double d2;
    ldem_vec3 residual; /* p − q */
    int feature;        /* enum lsgen_tri_feature */
} lsgen_closest;

static inline lsgen_closest tri_make_closest(ldem_vec3 residual, int feature)
{
    lsgen_closest c = {ldem_vec3_norm2(residual), residual, feature};
    return c;
}

/* Point of the segment x + t·e, t in [0, 1], nearest p, given xp = p − x and yp = p − y;
 * the residual is taken from the nearer endpoint. Feature: vx, vy or `edge`. */
static inline lsgen_closest tri_segment_closest(ldem_vec3 xp, ldem_vec3 yp, ldem_vec3 e, int vx,
                                                int vy, int edge)
{
    double e2 = ldem_vec3_norm2(e);
    double t = e2 > 0.0 ? ldem_vec3_dot(xp, e) / e2 : 0.0;
    if (!(t > 0.0))
        return tri_make_closest(xp, vx);
    if (t >= 1.0)
        return tri_make_closest(yp, vy);
    if (t <= 0.5)
        return tri_make_closest(ldem_vec3_axpy(-t, e, xp), edge);
    return tri_make_closest(ldem_vec3_axpy(1.0 - t, e, yp), edge);
}

/* The nearest point of the boundary: the nearest of the three edges (ties keep the first,
 * so the answer is deterministic). */
static inline lsgen_closest tri_boundary_closest(ldem_vec3 ap, ldem_vec3 bp, ldem_vec3 cp,
                                                 ldem_vec3 ab, ldem_vec3 bc, ldem_vec3 ca)
{
    lsgen_closest best = tri_segment_closest(ap, bp, ab, LSGEN_TRI_VA, LSGEN_TRI_VB, LSGEN_TRI_EAB);
    lsgen_closest e = tri_segment_closest(bp, cp, bc, LSGEN_TRI_VB, LSGEN_TRI_VC, LSGEN_TRI_EBC);
    if (e.d2 < best.d2)
        best = e;
    e = tri_segment_closest(cp, ap, ca, LSGEN_TRI_VC, LSGEN_TRI_VA, LSGEN_TRI_ECA);
    if (e.d2 < best.d2)
        best = e;
    return best;
}

/* Interior of the face: the residual is the component of (p − v) along the normal, with v
 * the vertex nearest p (the shortest, hence most precise, difference). `n` need not be
 * unit; nn = |n|². */
static inline lsgen_closest tri_face_closest(ldem_vec3 ap, ldem_vec3 bp, ldem_vec3 cp, ldem_vec3 n,
                                             double nn)
{
    ldem_vec3 vp = ap;
    double vp2 = ldem_vec3_norm2(ap);
    if (ldem_vec3_norm2(bp) < vp2) {
        vp = bp;
        vp2 = ldem_vec3_norm2(bp);
    }
    if (ldem_vec3_norm2(cp) < vp2)
        vp = cp;
    return tri_make_closest(ldem_vec3_scale(n, ldem_vec3_dot(vp, n) / nn), LSGEN_TRI_FACE);
}

/* Slivers and zero-area triangles. With x→y the longest edge and z the opposite vertex:
 * u the edge direction, w the part of z − x perpendicular to it (the sliver's height,
 * known to absolute round-off), n = u × w. p projects into the face iff it lies on the
 * inner side of the three edges in the (u, w) plane; otherwise the nearest point is on the
 * boundary. A zero height (collinear or coincident vertices) leaves only the boundary. */
static inline lsgen_closest tri_sliver_closest(ldem_vec3 ap, ldem_vec3 bp, ldem_vec3 cp,
                                               ldem_vec3 ab, ldem_vec3 bc, ldem_vec3 ca)
{
    double lab = ldem_vec3_norm2(ab), lbc = ldem_vec3_norm2(bc), lca = ldem_vec3_norm2(ca);
    ldem_vec3 xp = ap, yp = bp, zp = cp, e = ab;
    double e2 = lab;
    if (lbc > e2) {
        xp = bp, yp = cp, zp = ap, e = bc, e2 = lbc;
    }
    if (lca > e2) {
        xp = cp, yp = ap, zp = bp, e = ca, e2 = lca;
    }
    if (e2 > 0.0) {
        double len = sqrt(e2);
        ldem_vec3 u = ldem_vec3_scale(e, 1.0 / len);
        ldem_vec3 xz = ldem_vec3_sub(xp, zp);
        ldem_vec3 w = ldem_vec3_reject(xz, u);
        double height = ldem_vec3_norm(w);
        if (height > 0.0) {
            ldem_vec3 v = ldem_vec3_scale(w, 1.0 / height);
            double pu = ldem_vec3_dot(xp, u), pv = ldem_vec3_dot(xp, v);
            double qu = ldem_vec3_dot(yp, u); /* p − y along u: pu − len, computed directly */
            double zu = ldem_vec3_dot(xz, u);
            /* Triangle (0,0), (len,0), (zu,height), counter-clockwise in (u, v). */
            int inside =
                pv >= 0.0 && (zu - len) * pv - height * qu >= 0.0 && height * pu - zu * pv >= 0.0;
            if (inside)
                return tri_face_closest(ap, bp, cp, ldem_vec3_cross(u, v), 1.0);
        }
    }
    return tri_boundary_closest(ap, bp, cp, ab, bc, ca);
}

/* Ericson §5.1.5: classify p by the Voronoi regions of the vertices, then of the edges,
 * else the face. The edge parameters divide by the squared edge length (well conditioned)
 * rather than by differences of dot products. */
LSGEN_TRI_INLINE lsgen_closest lsgen_tri_closest_kernel(ldem_vec3 p, ldem_vec3 a, ldem_vec3 b,
                                                        ldem_vec3 c)
{
    ldem_vec3 ab = ldem_vec3_sub(b, a), ac = ldem_vec3_sub(c, a), bc = ldem_vec3_sub(c, b);
    ldem_vec3 ap = ldem_vec3_sub(p, a), bp = ldem_vec3_sub(p, b), cp = ldem_vec3_sub(p, c);
    ldem_vec3 n = ldem_vec3_cross(ab, ac);
    double nn = ldem_vec3_norm2(n);
    if (!(nn >= LSGEN_TRI_SLIVER_SIN2 * ldem_vec3_norm2(ab) * ldem_vec3_norm2(ac)) || nn == 0.0)
        return tri_sliver_closest(ap, bp, cp, ab, bc, ldem_vec3_neg(ac));

    double d1 = ldem_vec3_dot(ab, ap), d2 = ldem_vec3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return tri_make_closest(ap, LSGEN_TRI_VA);
    double d3 = ldem_vec3_dot(ab, bp), d4 = ldem_vec3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return tri_make_closest(bp, LSGEN_TRI_VB);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return tri_segment_closest(ap, bp, ab, LSGEN_TRI_VA, LSGEN_TRI_VB, LSGEN_TRI_EAB);
    double d5 = ldem_vec3_dot(ab, cp), d6 = ldem_vec3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return tri_make_closest(cp, LSGEN_TRI_VC);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return tri_segment_closest(cp, ap, ldem_vec3_neg(ac), LSGEN_TRI_VC, LSGEN_TRI_VA,
                                   LSGEN_TRI_ECA);
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
        return tri_segment_closest(bp, cp, bc, LSGEN_TRI_VB, LSGEN_TRI_VC, LSGEN_TRI_EBC);
    return tri_face_closest(ap, bp, cp, n, nn);
}

#endif
