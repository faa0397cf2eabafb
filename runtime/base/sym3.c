/* Eigen-decomposition of symmetric 3×3 matrices by cyclic Jacobi rotations.
 *
 * Each rotation annihilates one off-diagonal entry with the stable formulas of Golub & Van
 * Loan (Matrix Computations, §8.5.2, "sym.schur2"): the smaller root t of t² + 2τt − 1 = 0,
 * so |t| ≤ 1 and the rotation angle is at most π/4. Sweeps repeat until the off-diagonal
 * part has vanished relative to the matrix (entries below the rounding of their diagonal
 * are set to zero) or a sweep changes nothing; Jacobi then gives
 * every eigenvalue to a few ulps of ‖A‖ and eigenvectors orthonormal to round-off even
 * when eigenvalues repeat.
 */
#include "ldem/sym3.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ldem/err.h"

/* Quadratic convergence reaches round-off in ~5 sweeps; this only guards the loop. */
#define SYM3_MAX_SWEEPS 64

static int all_finite(const double a[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++)
            if (!isfinite(a[i][j]))
                return 0;
    return 1;
}

/* The largest |a_ij| of the upper triangle. */
static double max_abs_entry(const double a[3][3])
{
    double m = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++)
            m = fmax(m, fabs(a[i][j]));
    return m;
}

static double off_diagonal_norm(const double a[3][3])
{
    return sqrt(2.0 * (a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]));
}

/* One Jacobi rotation in the (p, q) plane: a ← Jᵀ a J with a[p][q] = 0 afterwards, v ← v J.
 * `a` is kept fully symmetric. */
static void jacobi_rotate(double a[3][3], double v[3][3], int p, int q)
{
    double apq = a[p][q];
    if (apq == 0.0)
        return;
    /* Demmel & Veselić's criterion: an entry below ε·√|a_pp a_qq| is rounding noise of the
     * diagonal. Dropping it perturbs A by less than an ulp of ‖A‖; rotating by it instead
     * would only stir the noise (with a_pp = a_qq the angle is π/4 whatever its size, and the
     * diagonal cannot absorb the update), converging linearly while V loses orthogonality. */
    if (fabs(apq) <= DBL_EPSILON * sqrt(fabs(a[p][p] * a[q][q]))) {
        a[p][q] = a[q][p] = 0.0;
        return;
    }
    double tau = (a[q][q] - a[p][p]) / (2.0 * apq);
    /* The root of t² + 2τt − 1 of smaller magnitude; hypot() does not overflow for huge τ,
     * where t → 1/(2τ) as it should. */
    double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + hypot(1.0, tau));
    double c = 1.0 / sqrt(1.0 + t * t);
    double s = t * c;

    a[p][p] -= t * apq;
    a[q][q] += t * apq;
    a[p][q] = a[q][p] = 0.0;
    int r = 3 - p - q; /* the third index */
    double arp = a[r][p], arq = a[r][q];
    a[r][p] = a[p][r] = c * arp - s * arq;
    a[r][q] = a[q][r] = s * arp + c * arq;

    for (int k = 0; k < 3; k++) {
        double vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

static void swap_columns(double v[3][3], double w[3], int i, int j)
{
    double tw = w[i];
    w[i] = w[j];
    w[j] = tw;
    for (int k = 0; k < 3; k++) {
        double t = v[k][i];
        v[k][i] = v[k][j];
        v[k][j] = t;
    }
}

static double det3(const double v[3][3])
{
    return v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) -
           v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
           v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
}

int ldem_sym3_eigen(ldem_mat3 a, double w[3], ldem_mat3 *v)
{
    if (!all_finite((const double(*)[3])a.m))
        return LDEM_ERR_INPUT; /* no ldem_err here: the caller knows what the matrix is */

    /* Work on a full symmetric copy scaled by a power of two (exact) to max entry in
     * [0.5, 1): no intermediate can overflow or underflow prematurely, whatever the units. */
    double s[3][3];
    int exponent = 0;
    double amax = max_abs_entry((const double(*)[3])a.m);
    if (amax > 0.0)
        frexp(amax, &exponent);
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++)
            s[i][j] = s[j][i] = ldexp(a.m[i][j], -exponent);

    double vv[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const int pivots[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < SYM3_MAX_SWEEPS; sweep++) {
        /* The scaled matrix has norm ~1, so this is the relative criterion. */
        if (off_diagonal_norm((const double(*)[3])s) <= 1e-300)
            break;
        double before[3][3];
        memcpy(before, s, sizeof before);
        for (int k = 0; k < 3; k++)
            jacobi_rotate(s, vv, pivots[k][0], pivots[k][1]);
        if (memcmp(before, s, sizeof before) == 0)
            break; /* a fixed point: nothing left that rounding can resolve */
    }

    double ww[3] = {s[0][0], s[1][1], s[2][2]};
    /* Ascending order by a three-element sorting network, columns following. */
    if (ww[0] > ww[1])
        swap_columns(vv, ww, 0, 1);
    if (ww[1] > ww[2])
        swap_columns(vv, ww, 1, 2);
    if (ww[0] > ww[1])
        swap_columns(vv, ww, 0, 1);
    /* Rotations have det +1; each swap flipped the sign. Negating a column restores a proper
     * rotation without changing the decomposition. */
    if (det3((const double(*)[3])vv) < 0.0)
        for (int k = 0; k < 3; k++)
            vv[k][2] = -vv[k][2];

    for (int i = 0; i < 3; i++) {
        w[i] = ldexp(ww[i], exponent);
        for (int j = 0; j < 3; j++)
            v->m[i][j] = vv[i][j];
    }
    return LDEM_OK;
}
