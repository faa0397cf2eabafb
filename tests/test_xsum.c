/* Exact order-independent sums (ldem/xsum.h) against exact integer arithmetic: __int128 sums
 * rounded once by the compiler's own int128 → double conversion (round to nearest even), an
 * independent model of the correctly rounded sum; and closed cases (cancellation across the
 * whole range, ties, subnormals, overflow, non-finite terms). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ldem/xsum.h"

/* 128-bit integers: a GCC and Clang extension (-Wpedantic) that this code needs */
__extension__ typedef __int128 ldem_i128;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double sum_of(const double *x, size_t n)
{
    ldem_xsum s;
    ldem_xsum_clear(&s);
    for (size_t k = 0; k < n; k++)
        ldem_xsum_add(&s, x[k]);
    return ldem_xsum_round(&s);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

Test(xsum, empty_is_zero)
{
    ldem_xsum s;
    ldem_xsum_clear(&s);
    cr_assert(same_bits(ldem_xsum_round(&s), 0.0));
}

/* Terms m·2^e with 53-bit m and e in [0, 60): the exact sum is an integer below 2¹²³, so
 * __int128 holds it, and its conversion to double rounds it correctly. Scaled by 2^scale the
 * same holds (no subnormal results), which moves the terms across the accumulator's limbs. */
Test(xsum, equals_the_correctly_rounded_integer_sum)
{
    enum { N = 2000 };
    static double x[N];
    const int scales[] = {0, -600, -1000, 500, 900};
    for (int trial = 0; trial < 200; trial++) {
        int scale = scales[trial % 5];
        ldem_i128 exact = 0;
        for (int k = 0; k < N; k++) {
            int64_t m = (int64_t)(next_random() >> 11); /* 53 bits */
            int e = (int)(next_random() % 60);
            if (trial % 3 == 0)
                e = (int)(next_random() % 8); /* similar magnitudes: deep cancellation */
            if (next_random() & 1)
                m = -m;
            exact += (ldem_i128)m * ((ldem_i128)1 << e);
            x[k] = ldexp((double)m, e + scale);
        }
        double want = ldexp((double)exact, scale);
        double got = sum_of(x, N);
        cr_assert(same_bits(got, want), "trial %d: %.17g, want %.17g", trial, got, want);
    }
}

Test(xsum, any_order_and_any_split_gives_the_same_bits)
{
    enum { N = 5000 };
    static double x[N];
    for (int k = 0; k < N; k++)
        x[k] = ldexp((double)(int64_t)next_random(), (int)(next_random() % 200) - 100);
    double once = sum_of(x, N);
    for (int trial = 0; trial < 20; trial++) {
        for (int k = N - 1; k > 0; k--) { /* shuffle */
            int j = (int)(next_random() % (uint64_t)(k + 1));
            double t = x[k];
            x[k] = x[j];
            x[j] = t;
        }
        /* three partial sums, as three ranks would hold them, merged */
        ldem_xsum part[3], total;
        for (int r = 0; r < 3; r++)
            ldem_xsum_clear(&part[r]);
        for (int k = 0; k < N; k++)
            ldem_xsum_add(&part[next_random() % 3], x[k]);
        ldem_xsum_clear(&total);
        for (int r = 2; r >= 0; r--)
            ldem_xsum_merge(&total, &part[r]);
        cr_assert(same_bits(sum_of(x, N), once));
        cr_assert(same_bits(ldem_xsum_round(&total), once));
    }
}

/* Merging through the word-by-word sum of normalized partials (what an MPI_SUM over int64
 * does) is the same as ldem_xsum_merge. */
Test(xsum, normalized_words_add_like_merge)
{
    ldem_xsum a, b, c;
    ldem_xsum_clear(&a);
    ldem_xsum_clear(&b);
    for (int k = 0; k < 1000; k++) {
        ldem_xsum_add(&a, ldexp((double)(int64_t)next_random(), (int)(next_random() % 80)));
        ldem_xsum_add(&b, -ldexp((double)(int64_t)next_random(), (int)(next_random() % 80)));
    }
    c = a;
    ldem_xsum_merge(&c, &b);
    ldem_xsum_normalize(&a);
    ldem_xsum_normalize(&b);
    int64_t *wa = a.limb;
    const int64_t *wb = b.limb;
    for (int k = 0; k < LDEM_XSUM_WORDS; k++) {
        if (k < LDEM_XSUM_LIMBS)
            wa[k] += wb[k];
    }
    a.nan += b.nan;
    cr_assert(same_bits(ldem_xsum_round(&a), ldem_xsum_round(&c)));
}

Test(xsum, cancellation_across_the_range)
{
    double a[] = {1e308, 1.0, -1e308};
    cr_assert(same_bits(sum_of(a, 3), 1.0));
    double b[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    cr_assert(same_bits(sum_of(b, 3), DBL_MAX)); /* the accumulator has headroom */
    double c[] = {DBL_MAX, DBL_MAX};
    cr_assert(isinf(sum_of(c, 2)) && sum_of(c, 2) > 0);
    double d[] = {-DBL_MAX, -DBL_MAX};
    cr_assert(isinf(sum_of(d, 2)) && sum_of(d, 2) < 0);
    double e[] = {DBL_TRUE_MIN, DBL_TRUE_MIN, DBL_TRUE_MIN};
    cr_assert(same_bits(sum_of(e, 3), 3 * DBL_TRUE_MIN));
    double f[] = {DBL_MIN, -DBL_TRUE_MIN};
    cr_assert(same_bits(sum_of(f, 2), DBL_MIN - DBL_TRUE_MIN));
    double g[] = {1e-300, 1e300, -1e300, -1e-300};
    cr_assert(same_bits(sum_of(g, 4), 0.0));
    double h[] = {-3.5, 1.25};
    cr_assert(same_bits(sum_of(h, 2), -2.25));
}

Test(xsum, ties_go_to_even)
{
    double u = ldexp(1.0, -53);
    double a[] = {1.0, u}; /* halfway between 1 and 1+2u: even is 1 */
    cr_assert(same_bits(sum_of(a, 2), 1.0));
    double b[] = {1.0, u, ldexp(1.0, -300)}; /* just above halfway */
    cr_assert(same_bits(sum_of(b, 3), nextafter(1.0, 2.0)));
    double c[] = {nextafter(1.0, 2.0), u}; /* halfway, odd below: up */
    cr_assert(same_bits(sum_of(c, 2), nextafter(nextafter(1.0, 2.0), 2.0)));
    double d[] = {-1.0, -u};
    cr_assert(same_bits(sum_of(d, 2), -1.0));
    double e[] = {ldexp(1.0, 53), 1.0}; /* 2⁵³ + 1: halfway, even is 2⁵³ */
    cr_assert(same_bits(sum_of(e, 2), ldexp(1.0, 53)));
    double f[] = {ldexp(1.0, 53), 3.0};
    cr_assert(same_bits(sum_of(f, 2), ldexp(1.0, 53) + 4.0));
}

Test(xsum, non_finite_terms)
{
    double a[] = {1.0, INFINITY};
    cr_assert(isinf(sum_of(a, 2)) && sum_of(a, 2) > 0);
    double b[] = {-INFINITY, 1.0};
    cr_assert(isinf(sum_of(b, 2)) && sum_of(b, 2) < 0);
    double c[] = {INFINITY, -INFINITY};
    cr_assert(isnan(sum_of(c, 2)));
    double d[] = {1.0, NAN};
    cr_assert(isnan(sum_of(d, 2)));
}

/* Many terms: the carries propagate on the way without changing the value. */
Test(xsum, many_terms)
{
    ldem_xsum s;
    ldem_xsum_clear(&s);
    double x = 0.1;
    for (int k = 0; k < 3000000; k++)
        ldem_xsum_add(&s, x);
    /* 3e6 · fl(0.1) exactly: fl(0.1) = m·2⁻⁵⁶ with m < 2⁵³, times 3e6 < 2²² */
    ldem_i128 exact = (ldem_i128)(int64_t)ldexp(x, 56) * 3000000;
    cr_assert(same_bits(ldem_xsum_round(&s), ldexp((double)exact, -56)));
}
