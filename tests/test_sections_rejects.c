/* Decoder rejections of the typed section payloads (ldem/sections.h): each decoder
 * refuses a malformed payload -- bad field values, non-finite numbers, inconsistent
 * geometry, reserved fields, sizes that do not match -- with LDEM_ERR_INPUT, the section
 * tag, a useful message and the byte offset in the stream. Encoders refuse (as usage
 * errors) what the decoders would refuse to read. Counts that overflow or exceed the
 * payload are in test_sections_hostile_counts.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bytes.h"
#include "ldem/sections.h"
#include "support/section_payloads.h"

/* ------------------------------------------------------------------------------------ */
/* META                                                                                  */

static void meta_reject(const char *text, const char *needle, long long line_start)
{
    pbuf b = {0};
    pb_raw(&b, text, strlen(text));
    expect_reject_at("META", &b, needle, line_start);
    pb_free(&b);
}

Test(sections, meta_rejects_malformed_lines)
{
    meta_reject("a=b", "line 1: missing final newline", 0);
    meta_reject("a=b\nc=d", "line 2: missing final newline", 4);
    meta_reject("a=b\nno equals sign\n", "line 2: expected key=value", 4);
    meta_reject("a=b\nc=d\nxy=1\na=e\n", "line 4: duplicate key", 13);
    meta_reject("name=x\nb@d=1\n", "line 2: key may only hold", 7);
    meta_reject("a=1\nb=2\nc=3\nkey with space=1\n", "line 4: key may only hold", 12);
    meta_reject("=value\n", "line 1: empty key", 0);
    meta_reject("a=b\r\n", "line 1: value may not contain line breaks", 0);
    meta_reject("\n", "line 1: expected key=value", 0);
    pbuf nul = {0};
    pb_raw(&nul, "a=1\nb=x\0y\n", 10);
    expect_reject_at("META", &nul, "line 2: value may not contain", 4);
    pb_free(&nul);
    /* Duplicate keys are exact matches, not prefixes. */
    pbuf ok = {0};
    pb_raw(&ok, "ab=1\na=2\nabc=3\n", 15);
    expect_accept("META", &ok);
    pb_free(&ok);
}

/* ------------------------------------------------------------------------------------ */
/* LSET                                                                                  */

Test(sections, lset_rejects_bad_geometry_and_sizes)
{
    pbuf b = {0};
    lset_raw(&b, 2, 1, 2, 1.0, 4);
    expect_reject("LSET", &b, "at least 2 grid nodes");
    pb_free(&b);
    lset_raw(&b, 0, 0, 0, 1.0, 0);
    expect_reject("LSET", &b, "at least 2 grid nodes");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, 0.0, 8);
    expect_reject("LSET", &b, "spacing must be positive");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, -0.5, 8);
    expect_reject("LSET", &b, "spacing must be positive");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, NAN, 8);
    expect_reject("LSET", &b, "spacing must be positive");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, INFINITY, 8);
    expect_reject("LSET", &b, "spacing must be positive");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, 1.0, 8);
    ldem_put_f64le(b.p + 16, INFINITY);
    expect_reject("LSET", &b, "origin is not finite");
    pb_free(&b);
    lset_raw(&b, 2, 2, 2, 1.0, 8);
    ldem_put_u32le(b.p + 12, 1);
    expect_reject("LSET", &b, "reserved field");
    pb_free(&b);

    /* Value count must match dims exactly. */
    lset_raw(&b, 2, 3, 2, 1.0, 11);
    expect_reject("LSET", &b, "level-set values");
    pb_free(&b);
    lset_raw(&b, 2, 3, 2, 1.0, 13);
    expect_reject_at("LSET", &b, "4 unexpected bytes", 64 + 48);
    pb_free(&b);
    lset_raw(&b, 2, 3, 2, 1.0, 12);
    b.n -= 1; /* a partial value */
    expect_reject("LSET", &b, "level-set values");
    pb_free(&b);
    lset_raw(&b, 2, 3, 2, 1.0, 12);
    expect_accept("LSET", &b);
    /* A header cut short. */
    pbuf h = {0};
    pb_raw(&h, b.p, 40);
    expect_reject("LSET", &h, "f64 field");
    pb_free(&h);
    pb_free(&b);

    /* Non-finite values. */
    lset_raw(&b, 2, 2, 2, 1.0, 8);
    ldem_put_f32le(b.p + 64 + 4 * 5, NAN);
    expect_reject("LSET", &b, "level-set value 5 is not finite");
    ldem_put_f32le(b.p + 64 + 4 * 5, -INFINITY);
    expect_reject("LSET", &b, "level-set value 5 is not finite");
    pb_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* NODE                                                                                  */

/* Raw NODE payload of `count` valid nodes and `ntri` triangles (all node 0). */
static void nodes_raw(pbuf *b, uint64_t count, uint64_t ntri)
{
    pb_u64(b, count), pb_u64(b, ntri);
    for (uint64_t i = 0; i < 3 * count; i++)
        pb_f64(b, (double)i);
    for (uint64_t i = 0; i < count; i++)
        pb_f64(b, 0), pb_f64(b, 0), pb_f64(b, -1);
    for (uint64_t i = 0; i < count; i++)
        pb_f64(b, 0.5);
    for (uint64_t i = 0; i < 3 * ntri; i++)
        pb_u32(b, 0);
}

Test(sections, nodes_reject_invalid)
{
    pbuf b = {0};
    nodes_raw(&b, 3, 2);
    expect_accept("NODE", &b);
    /* Triangle 1 refers to node 3 of 3. */
    ldem_put_u32le(b.p + b.n - 8, 3);
    expect_reject("NODE", &b, "triangle 1 refers to node 3, but there are 3 nodes");
    ldem_put_u32le(b.p + b.n - 8, 0xffffffffu);
    expect_reject("NODE", &b, "triangle 1 refers to node 4294967295");
    pb_free(&b);

    size_t normals = 16 + 3 * 3 * 8, areas = normals + 3 * 3 * 8;
    nodes_raw(&b, 3, 0);
    ldem_put_f64le(b.p + normals + 24 + 16, -1.01); /* node 1 normal length 1.01 */
    expect_reject("NODE", &b, "node 1: normal has length 1.01");
    ldem_put_f64le(b.p + normals + 24 + 16, 0);
    expect_reject("NODE", &b, "node 1: normal has length 0");
    ldem_put_f64le(b.p + normals + 24 + 16, NAN);
    expect_reject("NODE", &b, "node 1: normal");
    ldem_put_f64le(b.p + normals + 24 + 16, -1);
    expect_accept("NODE", &b);
    ldem_put_f64le(b.p + areas + 16, -1e-3);
    expect_reject("NODE", &b, "node 2: area weight -0.001 must be finite and >= 0");
    ldem_put_f64le(b.p + areas + 16, INFINITY);
    expect_reject("NODE", &b, "node 2: area weight");
    ldem_put_f64le(b.p + areas + 16, 0.5);
    ldem_put_f64le(b.p + 16 + 8 * 4, NAN);
    expect_reject("NODE", &b, "node 1: position is not finite");
    pb_free(&b);

    /* Payload size must match the counts exactly. */
    nodes_raw(&b, 3, 1);
    b.n -= 4;
    expect_reject("NODE", &b, "nodes and triangles");
    b.n += 4;
    pb_u32(&b, 0);
    expect_reject("NODE", &b, "unexpected bytes");
    pb_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* BODY                                                                                  */

static void body_reject(ldem_body v, const char *needle)
{
    pbuf b = {0};
    body_raw(&b, &v);
    expect_reject("BODY", &b, needle);
    pb_free(&b);
    /* The encoder refuses it as well (usage error: the caller's data is wrong). */
    ldem_err err;
    unsigned char *d = NULL;
    uint64_t n;
    cr_assert_eq(ldem_body_encode(&v, &d, &n, &err), LDEM_ERR_USAGE);
}

Test(sections, body_rejects_unphysical)
{
    ldem_body v = good_body;
    v.mass = -1;
    body_reject(v, "mass must be positive");
    v = good_body, v.volume = 0;
    body_reject(v, "must be positive");
    v = good_body, v.density = NAN;
    body_reject(v, "not finite");
    v = good_body, v.inertia[2] = 3.0001;
    body_reject(v, "triangle inequality");
    v = good_body, v.inertia[0] = 10;
    body_reject(v, "triangle inequality");
    v = good_body, v.inertia[1] = 0;
    body_reject(v, "moments of inertia must be positive");
    v = good_body, v.orientation[0] = 0.61;
    body_reject(v, "unit quaternion");
    v = good_body, v.orientation[0] = 0, v.orientation[2] = 0;
    body_reject(v, "unit quaternion");
    v = good_body, v.centroid[1] = INFINITY;
    body_reject(v, "not finite");

    pbuf b = {0};
    body_raw(&b, &good_body);
    expect_accept("BODY", &b);
    b.n -= 8;
    expect_reject("BODY", &b, "f64 field");
    b.n += 8;
    pb_u32(&b, 0);
    expect_reject("BODY", &b, "unexpected bytes");
    pb_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* MODE                                                                                  */

Test(sections, modes_reject_invalid)
{
    static const uint32_t nogrid[3] = {0, 0, 0}, grid[3] = {2, 2, 2};
    pbuf b = {0};
    modes_header(&b, 1, LDEM_MODE_SAMPLED, 1, nogrid, 0);
    pb_f64(&b, 1), pb_f64(&b, 2), pb_f64(&b, 3);
    expect_accept("MODE", &b);
    ldem_put_u32le(b.p + 4, 2);
    expect_reject("MODE", &b, "unknown mode kind");
    ldem_put_u32le(b.p + 4, 0xffffffffu);
    expect_reject("MODE", &b, "unknown mode kind");
    /* Analytic without a descriptor. */
    ldem_put_u32le(b.p + 4, LDEM_MODE_ANALYTIC);
    expect_reject("MODE", &b, "analytic modes need a descriptor");
    ldem_put_u32le(b.p + 4, LDEM_MODE_SAMPLED);
    ldem_put_u32le(b.p, 0);
    expect_reject("MODE", &b, "at least one mode");
    ldem_put_u32le(b.p, 1);
    ldem_put_f64le(b.p + 88 + 8, NAN);
    expect_reject("MODE", &b, "not finite");
    ldem_put_f64le(b.p + 88 + 8, 2);
    ldem_put_u32le(b.p + 28, 7);
    expect_reject("MODE", &b, "reserved field");
    ldem_put_u32le(b.p + 28, 0);
    pb_u32(&b, 0);
    expect_reject("MODE", &b, "unexpected bytes");
    b.n -= 8;
    expect_reject("MODE", &b, "mode arrays");
    pb_free(&b);

    /* Sampled with neither node values nor a grid. */
    modes_header(&b, 1, LDEM_MODE_SAMPLED, 0, nogrid, 0);
    expect_reject("MODE", &b, "need node values or a grid field");
    pb_free(&b);
    /* Grid dims all zero or all >= 2. */
    modes_header(&b, 1, LDEM_MODE_SAMPLED, 1, (const uint32_t[3]){2, 0, 2}, 0);
    pb_f64(&b, 1), pb_f64(&b, 2), pb_f64(&b, 3);
    expect_reject("MODE", &b, "grid dims");
    pb_free(&b);
    modes_header(&b, 1, LDEM_MODE_SAMPLED, 0, (const uint32_t[3]){2, 1, 2}, 0);
    for (int i = 0; i < 12; i++)
        pb_f32(&b, 0);
    expect_reject("MODE", &b, "at least 2 nodes per axis");
    pb_free(&b);
    /* A grid field with zero spacing; then NaN on the grid. */
    modes_header(&b, 1, LDEM_MODE_SAMPLED, 0, grid, 0);
    for (int i = 0; i < 24; i++)
        pb_f32(&b, 0.5f);
    expect_accept("MODE", &b);
    ldem_put_f64le(b.p + 56, 0);
    expect_reject("MODE", &b, "spacing positive");
    ldem_put_f64le(b.p + 56, 1);
    ldem_put_f32le(b.p + 88 + 4 * 23, NAN);
    expect_reject("MODE", &b, "grid value is not finite");
    pb_free(&b);
    /* Descriptor with a NUL byte. */
    modes_header(&b, 1, LDEM_MODE_ANALYTIC, 0, nogrid, 4);
    pb_raw(&b, "ab\0c", 4);
    expect_reject("MODE", &b, "NUL");
    pb_free(&b);
    modes_header(&b, 1, LDEM_MODE_ANALYTIC, 0, nogrid, 4);
    pb_raw(&b, "abcd", 4);
    expect_accept("MODE", &b);
    pb_free(&b);
}

/* The encoder refuses to write analytic modes that the decoder would refuse to read: one
 * without a descriptor, or with an empty one. */
Test(sections, modes_encode_refuses_analytic_without_descriptor)
{
    ldem_modes m = {.count = 1, .kind = LDEM_MODE_ANALYTIC, .nnodes = 0, .descriptor = NULL};
    ldem_err err;
    unsigned char *d = NULL;
    uint64_t n = 0;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_modes_encode(&m, &d, &n, &err), LDEM_ERR_USAGE);
    cr_assert_eq(err.code, LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "analytic modes need a descriptor"), "%s", err.msg);

    char empty[] = "";
    m.descriptor = empty;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_modes_encode(&m, &d, &n, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "analytic modes need a descriptor"), "%s", err.msg);
}

/* ------------------------------------------------------------------------------------ */
/* KMAT / MMAT                                                                           */

Test(sections, matrix_rejects_invalid)
{
    pbuf b = {0};
    pb_u32(&b, 0), pb_u32(&b, 0);
    expect_reject("KMAT", &b, "n must be >= 1");
    expect_reject("MMAT", &b, "n must be >= 1");
    pb_free(&b);

    pb_u32(&b, 2), pb_u32(&b, 0);
    for (int i = 0; i < 4; i++)
        pb_f64(&b, i);
    expect_accept("KMAT", &b);
    ldem_put_f64le(b.p + 8 + 2 * 8, NAN);
    expect_reject("KMAT", &b, "entry (1, 0) is not finite");
    ldem_put_f64le(b.p + 8 + 2 * 8, 2);
    ldem_put_f64le(b.p + 8 + 1 * 8, -INFINITY);
    expect_reject("MMAT", &b, "entry (0, 1) is not finite");
    ldem_put_f64le(b.p + 8 + 1 * 8, 1);
    ldem_put_u32le(b.p + 4, 1);
    expect_reject("KMAT", &b, "reserved field");
    ldem_put_u32le(b.p + 4, 0);
    b.n -= 8;
    expect_reject("KMAT", &b, "matrix entries");
    b.n += 8;
    pb_f64(&b, 0);
    expect_reject("KMAT", &b, "unexpected bytes");
    pb_free(&b);

    /* n = 2^32 - 1: n*n*8 bytes would be 128 EiB; the payload has 32. */
    pb_u32(&b, 0xffffffffu), pb_u32(&b, 0);
    for (int i = 0; i < 4; i++)
        pb_f64(&b, i);
    expect_reject("KMAT", &b, "matrix entries");
    pb_free(&b);
    pb_u32(&b, 2);
    expect_reject("KMAT", &b, "u32 field");
    pb_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* ETAB                                                                                  */

/* Raw ETAB table with eps = 0, 1, 2, ... */
static void etab_table_raw(pbuf *b, uint32_t mode, uint32_t interp, uint64_t n)
{
    pb_u32(b, mode), pb_u32(b, interp), pb_u64(b, n);
    for (uint64_t k = 0; k < n; k++)
        pb_f64(b, (double)k);
    for (uint64_t k = 0; k < n; k++)
        pb_f64(b, 0.5 * (double)(k * k));
    for (uint64_t k = 0; k < n; k++)
        pb_f64(b, (double)k);
}

Test(sections, etab_rejects_invalid)
{
    pbuf b = {0};
    pb_u32(&b, 2), pb_u32(&b, 0);
    etab_table_raw(&b, 0, LDEM_INTERP_LINEAR, 3);
    size_t second = b.n;
    etab_table_raw(&b, 1, LDEM_INTERP_CUBIC, 4);
    expect_accept("ETAB", &b);

    /* Non-increasing eps in table 1: equal, then decreasing. */
    ldem_put_f64le(b.p + second + 16 + 8 * 2, 1.0);
    expect_reject("ETAB", &b, "table 1: eps samples must be strictly increasing");
    ldem_put_f64le(b.p + second + 16 + 8 * 2, 0.5);
    expect_reject("ETAB", &b, "strictly increasing");
    ldem_put_f64le(b.p + second + 16 + 8 * 2, NAN);
    expect_reject("ETAB", &b, "table 1: a sample is not finite");
    ldem_put_f64le(b.p + second + 16 + 8 * 2, 2.0);
    expect_accept("ETAB", &b);
    /* Unknown interpolation. */
    ldem_put_u32le(b.p + second + 4, 3);
    expect_reject("ETAB", &b, "table 1: unknown interpolation kind");
    ldem_put_u32le(b.p + second + 4, LDEM_INTERP_PCHIP);
    /* Two tables for one mode. */
    ldem_put_u32le(b.p + second, 0);
    expect_reject("ETAB", &b, "table 1: two tables for the same mode");
    ldem_put_u32le(b.p + second, 1);
    expect_accept("ETAB", &b);
    ldem_put_u32le(b.p + 4, 9);
    expect_reject("ETAB", &b, "reserved field");
    ldem_put_u32le(b.p + 4, 0);
    pb_u32(&b, 0);
    expect_reject("ETAB", &b, "unexpected bytes");
    b.n -= 12;
    expect_reject("ETAB", &b, "table samples");
    pb_free(&b);

    /* A table needs at least two samples. */
    for (uint64_t n = 0; n < 2; n++) {
        pb_u32(&b, 1), pb_u32(&b, 0);
        etab_table_raw(&b, 0, LDEM_INTERP_LINEAR, n);
        expect_reject("ETAB", &b, "table 0: a table needs at least 2 samples");
        pb_free(&b);
    }
    /* No tables at all. */
    pb_u32(&b, 0), pb_u32(&b, 0);
    expect_reject("ETAB", &b, "at least one table");
    pb_free(&b);
    /* Counts far beyond the payload. */
    pb_u32(&b, 0xffffffffu), pb_u32(&b, 0);
    etab_table_raw(&b, 0, LDEM_INTERP_LINEAR, 2);
    expect_reject("ETAB", &b, "tables");
    pb_free(&b);
    static const uint64_t huge_n[] = {UINT64_MAX, UINT64_C(1) << 60, UINT64_MAX / 24 + 1,
                                      UINT64_C(1) << 40};
    for (size_t i = 0; i < sizeof huge_n / sizeof huge_n[0]; i++) {
        pb_u32(&b, 1), pb_u32(&b, 0);
        pb_u32(&b, 0), pb_u32(&b, 0), pb_u64(&b, huge_n[i]);
        for (int k = 0; k < 6; k++)
            pb_f64(&b, k);
        expect_reject("ETAB", &b, "table samples");
        pb_free(&b);
    }
}
