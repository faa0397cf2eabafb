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

/* The u32 after a table's mode packs interpolation (bits 0-7) and extrapolation (bits
 * 8-15); bits 16-31 are reserved. */
Test(sections, etab_extrapolation_bits)
{
    pbuf b = {0};
    pb_u32(&b, 2), pb_u32(&b, 0);
    etab_table_raw(&b, 0, LDEM_INTERP_LINEAR | LDEM_EXTRAP_QUADRATIC << 8, 3);
    size_t second = b.n;
    etab_table_raw(&b, 1, LDEM_INTERP_PCHIP | LDEM_EXTRAP_LINEAR << 8, 4);
    expect_accept("ETAB", &b);

    ldem_etab t;
    ldem_err err;
    ldem_section s = section_of("ETAB", b.p, b.n, SECTION_AT);
    cr_assert_eq(ldem_etab_decode(&s, "grain.ldg", &t, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(t.tables[0].interp, LDEM_INTERP_LINEAR);
    cr_assert_eq(t.tables[0].extrapolate, LDEM_EXTRAP_QUADRATIC);
    cr_assert_eq(t.tables[1].interp, LDEM_INTERP_PCHIP);
    cr_assert_eq(t.tables[1].extrapolate, LDEM_EXTRAP_LINEAR);
    ldem_etab_free(&t);

    ldem_put_u32le(b.p + second + 4, LDEM_INTERP_PCHIP | 3u << 8);
    expect_reject("ETAB", &b, "table 1: unknown extrapolation");
    ldem_put_u32le(b.p + second + 4, 0xffu << 8);
    expect_reject("ETAB", &b, "table 1: unknown extrapolation");
    /* A kind of 3 in the interpolation byte is unknown, not an extrapolation. */
    ldem_put_u32le(b.p + second + 4, 3u | LDEM_EXTRAP_LINEAR << 8);
    expect_reject("ETAB", &b, "table 1: unknown interpolation");
    const uint32_t reserved[] = {1u << 16, 1u << 24, 0x80000000u | LDEM_INTERP_PCHIP};
    for (int i = 0; i < 3; i++) {
        ldem_put_u32le(b.p + second + 4, reserved[i]);
        expect_reject_at("ETAB", &b, "reserved bits 16-31", (long long)second + 4);
    }
    ldem_put_u32le(b.p + second + 4, LDEM_INTERP_PCHIP);
    expect_accept("ETAB", &b);
    pb_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* DAMP                                                                                  */

typedef struct damp_fields {
    uint32_t n, kind;
    double alpha, beta;
    double zeta[3], omega[3], c[9];
} damp_fields;

/* A valid ratio-damped section with 3 modes. */
static const damp_fields good_damp = {
    .n = 3,
    .kind = LDEM_DAMPING_RATIO,
    .zeta = {0.02, 0.0, 0.05},
    .omega = {10.0, 10.0, 31.5},
    .c = {4.0, 0.5, -1.0, 0.5, 2.0, 0.25, -1.0, 0.25, 3.0},
};

/* Raw DAMP payload (the documented field order), from fields with n <= 3. */
static void damp_raw(pbuf *b, const damp_fields *f)
{
    pb_u32(b, f->n), pb_u32(b, f->kind), pb_f64(b, f->alpha), pb_f64(b, f->beta);
    uint32_t n = f->n <= 3 ? f->n : 3;
    for (uint32_t k = 0; k < n; k++)
        pb_f64(b, f->zeta[k]);
    for (uint32_t k = 0; k < n; k++)
        pb_f64(b, f->omega[k]);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            pb_f64(b, f->c[3 * i + j]);
}

static void damp_expect_reject(const damp_fields *f, const char *needle)
{
    pbuf b = {0};
    damp_raw(&b, f);
    expect_reject("DAMP", &b, needle);
    pb_free(&b);
}

Test(sections, damp_rejects_invalid)
{
    pbuf b = {0};
    damp_raw(&b, &good_damp);
    cr_assert_eq(b.n, 24 + 16 * 3 + 8 * 9);
    expect_accept("DAMP", &b);
    pb_free(&b);

    damp_fields f = good_damp;
    f.n = 0;
    damp_expect_reject(&f, "n must be >= 1");
    f = good_damp, f.kind = 3;
    damp_expect_reject(&f, "unknown damping kind 3");
    f = good_damp, f.kind = LDEM_DAMPING_RAYLEIGH, f.beta = NAN;
    damp_expect_reject(&f, "must be finite");
    f = good_damp, f.zeta[1] = INFINITY;
    damp_expect_reject(&f, "zeta[1] is not finite");
    f = good_damp, f.omega[2] = NAN;
    damp_expect_reject(&f, "omega[2] is not finite");
    f = good_damp, f.c[3] = NAN;
    damp_expect_reject(&f, "C entry (1, 0) is not finite");
    f = good_damp, f.omega[0] = 0.0, f.omega[1] = 0.0;
    damp_expect_reject(&f, "omega[0] = 0: natural frequencies must be > 0");
    f = good_damp, f.omega[0] = -1.0;
    damp_expect_reject(&f, "omega[0] = -1");
    f = good_damp, f.omega[2] = 9.5;
    damp_expect_reject(&f, "omega[2] = 9.5 < omega[1] = 10: frequencies must be ascending");
    f = good_damp, f.zeta[2] = -1e-300;
    damp_expect_reject(&f, "zeta[2] = -1e-300: damping ratios must be >= 0");
    f = good_damp, f.kind = LDEM_DAMPING_RAYLEIGH;
    damp_expect_reject(&f, "zeta[0] = 0.02: ratios must be 0 unless the kind is ratio");
    f = good_damp, f.kind = LDEM_DAMPING_NONE;
    damp_expect_reject(&f, "unless the kind is ratio");
    f = good_damp, f.alpha = 0.1;
    damp_expect_reject(&f, "must be 0 unless the kind is rayleigh");
    f = good_damp, f.kind = LDEM_DAMPING_RAYLEIGH, f.beta = 1e-3;
    memset(f.zeta, 0, sizeof f.zeta);
    pb_free(&b);
    damp_raw(&b, &f);
    expect_accept("DAMP", &b);
    pb_free(&b);
    f.alpha = -1e-9;
    damp_expect_reject(&f, "Rayleigh coefficients must be >= 0");
    f = good_damp, f.kind = LDEM_DAMPING_NONE, f.beta = 2.0;
    memset(f.zeta, 0, sizeof f.zeta);
    damp_expect_reject(&f, "must be 0 unless the kind is rayleigh");

    /* Symmetry to 1e-12 of max |c| = 4: 3.9e-12 passes, 4.1e-12 does not. */
    f = good_damp, f.c[5] = 0.25 + 3.9e-12;
    damp_raw(&b, &f);
    expect_accept("DAMP", &b);
    pb_free(&b);
    f.c[5] = 0.25 + 4.1e-12;
    damp_expect_reject(&f, "C is not symmetric");

    /* Sizes: truncated arrays, trailing bytes, short header. */
    damp_raw(&b, &good_damp);
    b.n -= 8;
    expect_reject_at("DAMP", &b, "zeta, omega and rows of C", 24);
    b.n += 8;
    pb_u32(&b, 0);
    expect_reject("DAMP", &b, "unexpected bytes");
    b.n = 20;
    expect_reject_at("DAMP", &b, "f64 field", 16);
    b.n = 6;
    expect_reject_at("DAMP", &b, "u32 field", 4);
    pb_free(&b);
}

/* Hostile n: 2^32 − 1 modes would need 24 + 16n + 8n² ≈ 147 EB; the payload has 144
 * bytes, and the decoder must say so before allocating anything. */
Test(sections, damp_hostile_n)
{
    const uint32_t huge[] = {0xffffffffu, 0x80000000u, 5u};
    for (int i = 0; i < 3; i++) {
        damp_fields f = good_damp;
        f.n = huge[i];
        damp_expect_reject(&f, "zeta, omega and rows of C");
    }
}
