/* xsum.c — the exact, order-independent sum of doubles (ldem/xsum.h). */
#include "ldem/xsum.h"

/* 128-bit integers: a GCC and Clang extension (-Wpedantic) that this code needs */
__extension__ typedef unsigned __int128 ldem_u128;

#include <math.h>
#include <string.h>

/* Value of a limb position: limb k holds digits of weight 2^(32k − 1074). */
#define XSUM_EMIN (-1074)

void ldem_xsum_clear(ldem_xsum *s)
{
    memset(s, 0, sizeof *s);
}

void ldem_xsum_normalize(ldem_xsum *s)
{
    for (int k = 0; k < LDEM_XSUM_LIMBS - 1; k++) {
        int64_t low = s->limb[k] & INT64_C(0xffffffff);
        /* an exact multiple of 2³² divided exactly: no shift of a negative value */
        int64_t carry = (s->limb[k] - low) / INT64_C(4294967296);
        s->limb[k] = low;
        s->limb[k + 1] += carry;
    }
    s->pending = 0;
}

void ldem_xsum_merge(ldem_xsum *s, const ldem_xsum *t)
{
    ldem_xsum u = *t;
    ldem_xsum_normalize(&u);
    ldem_xsum_normalize(s);
    for (int k = 0; k < LDEM_XSUM_LIMBS; k++)
        s->limb[k] += u.limb[k];
    s->nan += u.nan;
    s->pos_inf += u.pos_inf;
    s->neg_inf += u.neg_inf;
    ldem_xsum_normalize(s);
}

static int bit_length_u128(ldem_u128 v)
{
    int n = 0;
    uint64_t hi = (uint64_t)(v >> 64);
    if (hi)
        return 64 + (64 - __builtin_clzll(hi));
    uint64_t lo = (uint64_t)v;
    if (lo)
        n = 64 - __builtin_clzll(lo);
    return n;
}

double ldem_xsum_round(const ldem_xsum *s)
{
    if (s->nan || (s->pos_inf && s->neg_inf))
        return NAN;
    if (s->pos_inf)
        return INFINITY;
    if (s->neg_inf)
        return -INFINITY;
    ldem_xsum u = *s;
    ldem_xsum_normalize(&u);
    int negative = u.limb[LDEM_XSUM_LIMBS - 1] < 0;
    if (negative) {
        for (int k = 0; k < LDEM_XSUM_LIMBS; k++)
            u.limb[k] = -u.limb[k];
        ldem_xsum_normalize(&u); /* now every limb is in [0, 2³²) */
    }
    int top = LDEM_XSUM_LIMBS - 1;
    while (top >= 0 && !u.limb[top])
        top--;
    if (top < 0)
        return 0.0;
    /* A window of the three highest digits (those below limb 0 are zero), and whether any
     * digit under it is not zero (the sticky bit). */
    int base = top - 2;
    ldem_u128 window = 0;
    for (int k = top; k >= base; k--)
        window = (window << 32) | (ldem_u128)(k >= 0 ? (uint64_t)u.limb[k] : 0u);
    int sticky = 0;
    for (int k = base - 1; k >= 0 && !sticky; k--)
        sticky = u.limb[k] != 0;
    int length = bit_length_u128(window);
    double magnitude;
    if (length <= 53 && !sticky) {
        /* fewer than 54 significant bits: exact (a subnormal or a small normal) */
        magnitude = ldexp((double)(uint64_t)window, XSUM_EMIN + 32 * base);
    } else {
        int drop = length - 53; /* ≥ 12 here: the top digit is not zero */
        uint64_t mant = (uint64_t)(window >> drop);
        ldem_u128 rest = window & (((ldem_u128)1 << drop) - 1);
        ldem_u128 half = (ldem_u128)1 << (drop - 1);
        int above_half = rest > half || (rest == half && sticky);
        if (above_half || (rest == half && (mant & 1u)))
            mant++;
        if (mant == UINT64_C(1) << 53) {
            mant >>= 1;
            drop++;
        }
        magnitude = ldexp((double)mant, XSUM_EMIN + 32 * base + drop);
    }
    return negative ? -magnitude : magnitude;
}
