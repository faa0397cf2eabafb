/* Hostile counts in the typed section payloads (ldem/sections.h): dims and counts whose
 * byte sizes overflow 64 bits, or that claim far more data than the payload holds, are
 * rejected with LDEM_ERR_INPUT -- not read as an empty or tiny array -- and no decoder
 * allocates what a corrupt count claims (checked under a capped address space). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "ldem/sections.h"
#include "support/memory_limit.h"
#include "support/section_payloads.h"

/* ------------------------------------------------------------------------------------ */
/* LSET                                                                                  */

/* dims whose product overflows 64 bits (2^31 each: 2^93; 2^22 * 2^21 * 2^21 = 2^64 wraps
 * to exactly 0) must be rejected, not read as an empty or tiny grid. */
Test(sections, lset_rejects_dims_overflow)
{
    static const uint32_t dims[][3] = {{1u << 31, 1u << 31, 1u << 31},
                                       {1u << 22, 1u << 21, 1u << 21},
                                       {0xffffffffu, 0xffffffffu, 0xffffffffu},
                                       {1u << 24, 1u << 20, 1u << 20}, /* 2^64: 0 again */
                                       {968973220u, 49477u, 384773u}, /* 2^64 + 4: 4 */
                                       {1u << 16, 1u << 16, 1u << 16}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        for (uint64_t values = 0; values <= 8; values += 4) {
            pbuf b = {0};
            lset_raw(&b, dims[i][0], dims[i][1], dims[i][2], 1.0, values);
            ldem_err err;
            int rc = decode_any("LSET", b.p, b.n, SECTION_AT, &err);
            cr_assert_eq(rc, LDEM_ERR_INPUT, "dims %u x %u x %u accepted with %llu values",
                         dims[i][0], dims[i][1], dims[i][2], (unsigned long long)values);
            cr_assert(strstr(err.msg, "section 'LSET'"), "%s", err.msg);
            pb_free(&b);
        }
    }
}

static int decode_hostile_lsets(void *unused)
{
    (void)unused;
    pbuf b = {0};
    lset_raw(&b, 1u << 16, 1u << 16, 1u << 15, 1.0, 4); /* 2^47 values, 512 TiB */
    ldem_err err;
    int rc = decode_any("LSET", b.p, b.n, 0, &err);
    pb_free(&b);
    lset_raw(&b, 1u << 31, 1u << 31, 1u << 31, 1.0, 4);
    int rc2 = decode_any("LSET", b.p, b.n, 0, &err);
    pb_free(&b);
    return rc == LDEM_ERR_INPUT && rc2 == LDEM_ERR_INPUT ? 0 : 1;
}

Test(sections, lset_huge_dims_fail_without_allocating)
{
    cr_assert_eq(run_with_memory_limit(decode_hostile_lsets, NULL, (size_t)256 << 20), 0);
}

/* ------------------------------------------------------------------------------------ */
/* NODE                                                                                  */

Test(sections, nodes_reject_overflowing_counts)
{
    static const uint64_t counts[][2] = {
        {UINT64_MAX, 0},
        {UINT64_C(1) << 61, 0},        /* 56 * count overflows */
        {0, UINT64_C(1) << 62},        /* 12 * ntriangles overflows */
        {UINT64_C(1) << 58, UINT64_C(1) << 60}, /* each fits, the sum does not */
        {UINT64_C(1) << 40, 0},        /* fits, but the payload is tiny */
        {1, UINT64_MAX / 12},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        pbuf b = {0};
        pb_u64(&b, counts[i][0]), pb_u64(&b, counts[i][1]);
        for (int k = 0; k < 16; k++)
            pb_f64(&b, 0);
        ldem_err err;
        int rc = decode_any("NODE", b.p, b.n, SECTION_AT, &err);
        cr_assert_eq(rc, LDEM_ERR_INPUT, "counts %zu accepted", i);
        cr_assert(strstr(err.msg, "section 'NODE'"), "%s", err.msg);
        pb_free(&b);
    }
}

/* ------------------------------------------------------------------------------------ */
/* MODE                                                                                  */

Test(sections, modes_reject_overflowing_counts)
{
    static const struct {
        uint32_t count;
        uint64_t nnodes;
        uint32_t dims[3];
        uint64_t dlen;
    } cases[] = {
        {0xffffffffu, UINT64_C(1) << 62, {0, 0, 0}, 0}, /* count * nnodes overflows */
        {1, UINT64_C(1) << 63, {0, 0, 0}, 0},           /* * 3 overflows */
        {1, UINT64_MAX / 3, {0, 0, 0}, 0},              /* * 8 bytes overflows */
        {2, 0, {1u << 31, 1u << 31, 1u << 31}, 0},      /* grid points overflow */
        {1, 0, {1u << 22, 1u << 21, 1u << 21}, 0},      /* 2^64 wraps to 0 */
        {1, 0, {968973220u, 49477u, 384773u}, 0},       /* 2^64 + 4 wraps to 4 points */
        {0xffffffffu, 0, {1u << 21, 1u << 21, 1u << 20}, 0}, /* count * points overflows */
        {1, 1, {0, 0, 0}, UINT64_MAX - 8},              /* arrays + descriptor overflow */
        {1, 1, {0, 0, 0}, UINT64_C(1) << 40},           /* fits, but the payload is tiny */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pbuf b = {0};
        modes_header(&b, cases[i].count, LDEM_MODE_SAMPLED, cases[i].nnodes, cases[i].dims,
                     cases[i].dlen);
        for (int k = 0; k < 6; k++)
            pb_f64(&b, 0);
        ldem_err err;
        int rc = decode_any("MODE", b.p, b.n, SECTION_AT, &err);
        cr_assert_eq(rc, LDEM_ERR_INPUT, "case %zu accepted", i);
        cr_assert(strstr(err.msg, "section 'MODE'"), "%s", err.msg);
        pb_free(&b);
    }
}

/* ------------------------------------------------------------------------------------ */
/* No decoder believes a count with memory                                               */

static int decode_hostile_counts(void *unused)
{
    (void)unused;
    ldem_err err;
    int bad = 0;
    pbuf b = {0};
    /* NODE: 2^40 nodes claimed in 100 bytes. */
    pb_u64(&b, UINT64_C(1) << 40), pb_u64(&b, 0);
    for (int k = 0; k < 10; k++)
        pb_f64(&b, 0);
    bad |= decode_any("NODE", b.p, b.n, 0, &err) != LDEM_ERR_INPUT;
    pb_free(&b);
    /* MODE: a 2^11-cubed grid of 2^10 modes. */
    static const uint32_t dims[3] = {1u << 11, 1u << 11, 1u << 11};
    modes_header(&b, 1u << 10, LDEM_MODE_SAMPLED, 0, dims, 0);
    bad |= (decode_any("MODE", b.p, b.n, 0, &err) != LDEM_ERR_INPUT) << 1;
    pb_free(&b);
    /* KMAT: n = 2^20. */
    pb_u32(&b, 1u << 20), pb_u32(&b, 0), pb_f64(&b, 0);
    bad |= (decode_any("KMAT", b.p, b.n, 0, &err) != LDEM_ERR_INPUT) << 2;
    pb_free(&b);
    /* ETAB: 2^32 - 1 tables in 24 bytes, then one table of 2^40 samples. */
    pb_u32(&b, 0xffffffffu), pb_u32(&b, 0), pb_u64(&b, 0), pb_u64(&b, 0);
    bad |= (decode_any("ETAB", b.p, b.n, 0, &err) != LDEM_ERR_INPUT) << 3;
    pb_free(&b);
    pb_u32(&b, 1), pb_u32(&b, 0), pb_u32(&b, 0), pb_u32(&b, 0), pb_u64(&b, UINT64_C(1) << 40);
    bad |= (decode_any("ETAB", b.p, b.n, 0, &err) != LDEM_ERR_INPUT) << 4;
    pb_free(&b);
    return bad;
}

Test(sections, hostile_counts_fail_without_allocating)
{
    int rc = run_with_memory_limit(decode_hostile_counts, NULL, (size_t)256 << 20);
    cr_assert_eq(rc, 0, "child result %d (bit mask of failed decoders, -1: killed)", rc);
}
