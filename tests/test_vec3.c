/* Unit tests of ldem/vec3.h. */
#include <criterion/criterion.h>
#include <math.h>

#include "ldem/vec3.h"

static void assert_vec_eq(ldem_vec3 a, ldem_vec3 b, double tol)
{
    cr_assert_leq(ldem_vec3_dist(a, b), tol, "(%.17g %.17g %.17g) != (%.17g %.17g %.17g)", a.x,
                  a.y, a.z, b.x, b.y, b.z);
}

Test(vec3, arithmetic)
{
    ldem_vec3 a = ldem_vec3_make(1, 2, 3), b = ldem_vec3_make(-4, 0.5, 2);
    assert_vec_eq(ldem_vec3_add(a, b), ldem_vec3_make(-3, 2.5, 5), 0);
    assert_vec_eq(ldem_vec3_sub(a, b), ldem_vec3_make(5, 1.5, 1), 0);
    assert_vec_eq(ldem_vec3_neg(a), ldem_vec3_make(-1, -2, -3), 0);
    assert_vec_eq(ldem_vec3_scale(a, 2), ldem_vec3_make(2, 4, 6), 0);
    assert_vec_eq(ldem_vec3_axpy(2, a, b), ldem_vec3_make(-2, 4.5, 8), 0);
    cr_assert_eq(ldem_vec3_dot(a, b), -4 + 1 + 6);
    cr_assert_eq(ldem_vec3_norm2(a), 14);
    cr_assert_eq(ldem_vec3_norm(ldem_vec3_make(3, 0, 4)), 5);
    cr_assert_eq(ldem_vec3_dist(a, a), 0);
}

Test(vec3, cross_is_right_handed_and_orthogonal)
{
    ldem_vec3 x = ldem_vec3_make(1, 0, 0), y = ldem_vec3_make(0, 1, 0);
    assert_vec_eq(ldem_vec3_cross(x, y), ldem_vec3_make(0, 0, 1), 0);
    assert_vec_eq(ldem_vec3_cross(y, x), ldem_vec3_make(0, 0, -1), 0);
    ldem_vec3 a = ldem_vec3_make(1.5, -2, 0.25), b = ldem_vec3_make(0.3, 4, -1);
    ldem_vec3 c = ldem_vec3_cross(a, b);
    cr_assert_leq(fabs(ldem_vec3_dot(c, a)), 1e-15);
    cr_assert_leq(fabs(ldem_vec3_dot(c, b)), 1e-15);
    /* |a×b|² = |a|²|b|² − (a·b)² (Lagrange) */
    double lhs = ldem_vec3_norm2(c);
    double rhs = ldem_vec3_norm2(a) * ldem_vec3_norm2(b) - pow(ldem_vec3_dot(a, b), 2);
    cr_assert_leq(fabs(lhs - rhs), 1e-13 * rhs);
}

Test(vec3, normalize)
{
    ldem_vec3 u = ldem_vec3_normalize(ldem_vec3_make(0, -3, 4));
    assert_vec_eq(u, ldem_vec3_make(0, -0.6, 0.8), 3e-16);
    cr_assert_leq(fabs(ldem_vec3_norm(u) - 1), 2e-16);
    /* The zero vector has no direction: it stays zero instead of becoming NaN. */
    ldem_vec3 z = ldem_vec3_normalize(ldem_vec3_zero());
    cr_assert(z.x == 0 && z.y == 0 && z.z == 0);
}

Test(vec3, reject_removes_normal_part)
{
    ldem_vec3 n = ldem_vec3_normalize(ldem_vec3_make(1, 1, 1));
    ldem_vec3 a = ldem_vec3_make(2, -1, 5);
    ldem_vec3 t = ldem_vec3_reject(a, n);
    /* rounding is relative to |a| ≈ 5.5: a few ulps of that */
    cr_assert_leq(fabs(ldem_vec3_dot(t, n)), 4e-15, "t·n = %g", ldem_vec3_dot(t, n));
    assert_vec_eq(ldem_vec3_add(t, ldem_vec3_scale(n, ldem_vec3_dot(a, n))), a, 4e-15);
}
