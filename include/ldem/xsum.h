/* ldem/xsum.h — exact sums of doubles whose result does not depend on the order of the terms.
 *
 * Why: a sum of doubles added one after another depends on the order of its terms, and the
 * order of a global sum (the cell's virial, a wall's force, the kinetic energy) changes with
 * how the bodies are shared out between threads or MPI ranks. An exact accumulator holds the
 * sum as a wide fixed-point integer (units of 2⁻¹⁰⁷⁴, the smallest subnormal), so adding is
 * associative and commutative; rounding once at the end gives the correctly rounded sum
 * (nearest, ties to even), the same bits for any order, any split into partial sums and any
 * number of ranks. This is Kulisch's long accumulator with 32-bit digits held in int64
 * limbs: each term touches three limbs, and the carries are only propagated every 2³⁰ terms
 * (the limbs' headroom), on a merge and on rounding.
 *
 * Non-finite terms are counted apart: a NaN, or both infinities, make the result NaN. A sum
 * whose exact value is past the double range rounds to ±∞, as it should.
 */
#ifndef LDEM_XSUM_H
#define LDEM_XSUM_H

#include <stdint.h>
#include <string.h>

#include "ldem/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 32-bit digits from 2⁻¹⁰⁷⁴ up past 2¹⁰²⁴ plus headroom for carries: 67 limbs. */
#define LDEM_XSUM_LIMBS 67

/* A zeroed struct is the empty sum. `limb` and the three counts (LDEM_XSUM_WORDS int64
 * words from the start) are all a partial sum is made of: after ldem_xsum_normalize they can
 * be added word by word (an MPI_SUM of int64) to merge partial sums. */
typedef struct ldem_xsum {
    int64_t limb[LDEM_XSUM_LIMBS];
    int64_t nan, pos_inf, neg_inf;
    uint32_t pending; /* terms added since the carries were last propagated */
} ldem_xsum;

#define LDEM_XSUM_WORDS (LDEM_XSUM_LIMBS + 3)

/* Terms between carry propagations: each changes a limb by less than 2³², so a limb that
 * started in [0, 2³²) stays within int64 for 2³¹ of them. */
#define LDEM_XSUM_PENDING_MAX (1u << 30)

LDEM_API void ldem_xsum_clear(ldem_xsum *s);
/* s += t (t is not changed). */
LDEM_API void ldem_xsum_merge(ldem_xsum *s, const ldem_xsum *t);
/* Propagate the carries: every limb but the top one in [0, 2³²). The value is unchanged. */
LDEM_API void ldem_xsum_normalize(ldem_xsum *s);
/* The exact sum rounded to the nearest double (ties to even); 0.0 for the empty sum. */
LDEM_API double ldem_xsum_round(const ldem_xsum *s);

/* s += x. Inline: the sums of a step add a few terms per body. */
static inline void ldem_xsum_add(ldem_xsum *s, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    unsigned biased = (unsigned)(bits >> 52) & 0x7ffu;
    uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
    int negative = (int)(bits >> 63);
    if (biased == 0x7ffu) {
        if (mant)
            s->nan++;
        else if (negative)
            s->neg_inf++;
        else
            s->pos_inf++;
        return;
    }
    if (biased)
        mant |= UINT64_C(1) << 52;
    else
        biased = 1; /* subnormals share the smallest normal exponent */
    if (!mant)
        return;
    /* x = mant · 2^(biased − 1075) = mant · 2^(position) · 2^XSUM_EMIN */
    unsigned position = biased - 1;
    unsigned k = position >> 5, shift = position & 31u;
    /* mant · 2^shift < 2⁸⁵: three digits (the high word without a shift by 64) */
    uint64_t low = mant << shift, high = (mant >> 1) >> (63 - shift);
    int64_t d0 = (int64_t)(low & 0xffffffffu), d1 = (int64_t)(low >> 32), d2 = (int64_t)high;
    /* negated without a branch: the signs of a sum's terms are often random, and a
     * mispredicted branch costs more than the whole addition */
    int64_t flip = -(int64_t)negative;
    s->limb[k] += (d0 ^ flip) - flip;
    s->limb[k + 1] += (d1 ^ flip) - flip;
    s->limb[k + 2] += (d2 ^ flip) - flip;
    if (++s->pending == LDEM_XSUM_PENDING_MAX)
        ldem_xsum_normalize(s);
}

#ifdef __cplusplus
}
#endif
#endif
