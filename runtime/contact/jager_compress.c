/* Lossless compression of Jäger histories (jager_compress.h, docs/jager.md §5). */
#include "jager_compress.h"

#include <math.h>

/* The largest float not above x (x ≥ 0 and finite). */
static float float_below(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, 0.0f) : f;
}

/* a + b = *hi + *lo exactly (Knuth's TwoSum; round to nearest, no contraction). */
static void two_sum(double a, double b, double *hi, double *lo)
{
    double s = a + b, bb = s - a;
    *hi = s;
    *lo = (a - (s - bb)) + (b - bb);
}

/* Keep the disc (centre c, radius r) relative to the slope w, rounded inwards: the float
 * offset moves the centre by at most `moved`, which the radius gives up. */
static void store_disc(ldem_jager_chain *ch, const double c[2], double r, const double w[2])
{
    double off[2] = {c[0] - w[0], c[1] - w[1]};
    ch->offset[0] = (float)off[0];
    ch->offset[1] = (float)off[1];
    double moved = hypot((double)ch->offset[0] - off[0], (double)ch->offset[1] - off[1]);
    if (r - moved >= 0) {
        ch->radius = float_below(r - moved);
        return;
    }
    /* Too small to keep apart from w: the disc around w itself that fits inside (w is in the
     * disc, so its radius is not negative). */
    double d = hypot(off[0], off[1]);
    ch->offset[0] = ch->offset[1] = 0.0f;
    ch->radius = float_below(r > d ? r - d : 0.0);
}

/* The largest disc inside both B(c1, r1) and B(c2, r2): its centre lies on the line through
 * both centres, its diameter the overlap of the two along that line. r < 0: they miss. */
static void lens_disc(const double c1[2], double r1, const double c2[2], double r2, double c[2],
                      double *r)
{
    const double ux = c2[0] - c1[0], uy = c2[1] - c1[1], dist = hypot(ux, uy);
    if (dist + r1 <= r2) {
        c[0] = c1[0], c[1] = c1[1], *r = r1;
    } else if (dist + r2 <= r1) {
        c[0] = c2[0], c[1] = c2[1], *r = r2;
    } else if (dist >= r1 + r2) {
        *r = -1;
    } else {
        double lo = fmax(-r1, dist - r2), hi = fmin(r1, dist + r2);
        double m = 0.5 * (lo + hi) / dist;
        c[0] = c1[0] + ux * m;
        c[1] = c1[1] + uy * m;
        *r = 0.5 * (hi - lo);
    }
}

bool ldem__jager_merge_legs(double tol, double z0, double z1, double z2, const double wa[2],
                            uint8_t ma, const double wb[2], uint8_t mb, ldem_jager_chain *ch,
                            double w[2], uint8_t *merged)
{
    const bool equal = wa[0] == wb[0] && wa[1] == wb[1];
    const bool chain = ldem__jager_is_chain(ch, z0, ma);
    if (equal && !chain) {
        /* One leg is literally the same profile: always lossless. It is pristine when both
         * were; a leg merged before stays as it is (it no longer grows). */
        w[0] = wa[0];
        w[1] = wa[1];
        *merged = ma | mb;
        if (ch->active && ch->base == z1)
            ch->active = 0; /* the growing leg was the top, now part of a longer one */
        return true;
    }
    if (!equal && (mb || (ma && !chain)))
        return false;

    /* The chord between the outer ends, from the compensated sum of the legs' displacements. */
    double q[2], qlo[2];
    for (int a = 0; a < 2; a++) {
        double hi, lo;
        two_sum(chain ? ch->rise[a] : wa[a] * (z1 - z0), wb[a] * (z2 - z1), &hi, &lo);
        two_sum(hi, lo + (chain ? (double)ch->rise_lo[a] : 0.0), &q[a], &qlo[a]);
    }
    const double span = z2 - z0;
    const double wn[2] = {(q[0] + qlo[0]) / span, (q[1] + qlo[1]) / span};

    /* The new junction z1 allows the slopes within rho of wa, the chord from z0 to it. */
    const double rho = tol * z1 / (z1 - z0);
    double c[2] = {wa[0], wa[1]}, r = rho;
    if (chain) {
        const double c1[2] = {wa[0] + ch->offset[0], wa[1] + ch->offset[1]};
        lens_disc(c1, ch->radius, wa, rho, c, &r);
    }
    const double ex = wn[0] - c[0], ey = wn[1] - c[1];
    if (!(r >= 0) || ex * ex + ey * ey > r * r) {
        if (!equal)
            return false;
        w[0] = wa[0]; /* equal slopes still merge, but the leg no longer grows */
        w[1] = wa[1];
        *merged = 1;
        ch->active = 0;
        return true;
    }
    w[0] = wn[0];
    w[1] = wn[1];
    *merged = 1;
    ch->base = z0;
    ch->rise[0] = q[0];
    ch->rise[1] = q[1];
    ch->rise_lo[0] = (float)qlo[0];
    ch->rise_lo[1] = (float)qlo[1];
    ch->active = 1;
    store_disc(ch, c, r, wn);
    return true;
}
