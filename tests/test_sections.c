/* Tests of the typed section payloads (ldem/sections.h): every type round-trips exactly
 * (encode -> section -> decode), the payload sizes match the documented layouts, and each
 * decoder rejects malformed payloads with LDEM_ERR_INPUT, the section tag, a useful message
 * and the byte offset in the stream -- without allocating what a corrupt count claims. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/sections.h"

/* Where decoded test sections pretend to live in a stream: errors must point past it. */
#define SECTION_AT 1000
#define PAYLOAD_AT (SECTION_AT + LDEM_SECTION_HEADER_SIZE)

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                               */

/* A payload built field by field, independently of the library's encoders. */
typedef struct pbuf {
    unsigned char *p;
    size_t n, cap;
} pbuf;

static unsigned char *pb_grow(pbuf *b, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        cr_assert_not_null(b->p);
        b->cap = cap;
    }
    unsigned char *at = b->p + b->n;
    b->n += n;
    return at;
}

static void pb_u32(pbuf *b, uint32_t v)
{
    ldem_put_u32le(pb_grow(b, 4), v);
}

static void pb_u64(pbuf *b, uint64_t v)
{
    ldem_put_u64le(pb_grow(b, 8), v);
}

static void pb_f64(pbuf *b, double v)
{
    ldem_put_f64le(pb_grow(b, 8), v);
}

static void pb_f32(pbuf *b, float v)
{
    ldem_put_f32le(pb_grow(b, 4), v);
}

static void pb_raw(pbuf *b, const void *v, size_t n)
{
    if (n)
        memcpy(pb_grow(b, n), v, n);
}

static void pb_free(pbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static ldem_section section_of(const char *tag, unsigned char *data, uint64_t len,
                               int64_t offset)
{
    ldem_section s;
    memset(&s, 0, sizeof s);
    memcpy(s.tag, tag, 5);
    s.data = data;
    s.length = len;
    s.offset = offset;
    return s;
}

/* Decode a payload with the decoder for `tag`, then free what was decoded. */
static int decode_any(const char *tag, const unsigned char *p, size_t n, int64_t offset,
                      ldem_err *err)
{
    ldem_section s = section_of(tag, (unsigned char *)p, n, offset);
    int rc;
    ldem_err_clear(err);
    if (!strcmp(tag, "META")) {
        ldem_meta m;
        rc = ldem_meta_decode(&s, "grain.ldg", &m, err);
        ldem_meta_free(&m);
    } else if (!strcmp(tag, "LSET")) {
        ldem_lset ls;
        rc = ldem_lset_decode(&s, "grain.ldg", &ls, err);
        if (rc)
            cr_assert_null(ls.phi, "a failed decode leaves nothing allocated");
        ldem_lset_free(&ls);
    } else if (!strcmp(tag, "NODE")) {
        ldem_nodes nd;
        rc = ldem_nodes_decode(&s, "grain.ldg", &nd, err);
        ldem_nodes_free(&nd);
    } else if (!strcmp(tag, "BODY")) {
        ldem_body b;
        rc = ldem_body_decode(&s, "grain.ldg", &b, err);
    } else if (!strcmp(tag, "MODE")) {
        ldem_modes m;
        rc = ldem_modes_decode(&s, "grain.ldg", &m, err);
        ldem_modes_free(&m);
    } else if (!strcmp(tag, "KMAT") || !strcmp(tag, "MMAT")) {
        ldem_matrix m;
        rc = ldem_matrix_decode(&s, "grain.ldg", &m, err);
        ldem_matrix_free(&m);
    } else {
        cr_assert_str_eq(tag, "ETAB");
        ldem_etab t;
        rc = ldem_etab_decode(&s, "grain.ldg", &t, err);
        ldem_etab_free(&t);
    }
    return rc;
}

/* The decoder must refuse the payload: LDEM_ERR_INPUT, a message naming the section and
 * containing `needle`, and an offset inside the payload. Also checked without a stream
 * offset (a section built in memory): then the message gives the payload byte. */
static void expect_reject(const char *tag, const pbuf *b, const char *needle)
{
    ldem_err err;
    int rc = decode_any(tag, b->p, b->n, SECTION_AT, &err);
    cr_assert_eq(rc, LDEM_ERR_INPUT, "%s: expected rejection (\"%s\"), got %d: %s", tag,
                 needle, rc, err.msg);
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    char named[32];
    snprintf(named, sizeof named, "section '%s'", tag);
    cr_assert(strstr(err.msg, named), "message does not name the section: %s", err.msg);
    cr_assert(strstr(err.msg, needle), "%s: message lacks \"%s\": %s", tag, needle, err.msg);
    cr_assert_str_eq(err.file, "grain.ldg");
    cr_assert(err.offset >= PAYLOAD_AT && err.offset <= PAYLOAD_AT + (long long)b->n,
              "offset %lld outside the payload [%d, %zu]", err.offset, PAYLOAD_AT,
              PAYLOAD_AT + b->n);

    rc = decode_any(tag, b->p, b->n, -1, &err);
    cr_assert_eq(rc, LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "payload byte"), "%s", err.msg);
    cr_assert(strstr(err.msg, needle), "%s", err.msg);
}

static void expect_reject_at(const char *tag, const pbuf *b, const char *needle,
                             long long payload_byte)
{
    expect_reject(tag, b, needle);
    ldem_err err;
    decode_any(tag, b->p, b->n, SECTION_AT, &err);
    cr_assert_eq(err.offset, PAYLOAD_AT + payload_byte, "offset %lld, expected %lld: %s",
                 err.offset, PAYLOAD_AT + payload_byte, err.msg);
}

static void expect_accept(const char *tag, const pbuf *b)
{
    ldem_err err;
    int rc = decode_any(tag, b->p, b->n, SECTION_AT, &err);
    cr_assert_eq(rc, LDEM_OK, "%s: %s", tag, err.msg);
}

/* Run `fn` in a child whose address space may grow by at most 256 MiB beyond its current
 * size: a decoder that believed a corrupt count would fail there (LDEM_ERR_NOMEM or a
 * sanitizer abort) instead of getting lucky with overcommit. Returns fn's exit code. */
static int run_with_memory_limit(int (*fn)(void), size_t headroom)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (statm) {
            if (fscanf(statm, "%ld", &pages) != 1)
                pages = 0;
            fclose(statm);
        }
        if (pages > 0) {
            rlim_t vm = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
            struct rlimit lim = {vm + headroom, vm + headroom};
            if (setrlimit(RLIMIT_AS, &lim) != 0)
                _exit(90);
        }
        _exit(fn());
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define assert_same_bytes(a, b, n, what)                                                    \
    cr_assert(((n) == 0) || memcmp((a), (b), (n)) == 0, "%s differ", what)

/* ------------------------------------------------------------------------------------ */
/* META                                                                                  */

Test(sections, meta_set_get_replace)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    cr_assert_null(ldem_meta_get(&m, "name"));
    cr_assert_eq(ldem_meta_set(&m, "name", "grain 1", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "length_unit", "mm", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "empty", "", &err), 0);
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 1");
    cr_assert_str_eq(ldem_meta_get(&m, "empty"), "");
    cr_assert_eq(m.count, 3);
    /* Replace keeps the position and the count. */
    cr_assert_eq(ldem_meta_set(&m, "name", "grain 2 = renamed", &err), 0);
    cr_assert_eq(m.count, 3);
    cr_assert_str_eq(m.keys[0], "name");
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 2 = renamed");
    cr_assert_null(ldem_meta_get(&m, "nam"), "no prefix matches");
    /* Growth past the initial capacity. */
    for (int i = 0; i < 40; i++) {
        char k[16], v[16];
        snprintf(k, sizeof k, "source.%d", i);
        snprintf(v, sizeof v, "f%d.stl", i);
        cr_assert_eq(ldem_meta_set(&m, k, v, &err), 0);
    }
    cr_assert_eq(m.count, 43);
    cr_assert_str_eq(ldem_meta_get(&m, "source.39"), "f39.stl");
    /* Invalid entries are refused and change nothing. */
    cr_assert_eq(ldem_meta_set(&m, "", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "a b", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "a=b", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "name", "two\nlines", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "name", "cr\r", &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "line breaks"), "%s", err.msg);
    cr_assert_eq(m.count, 43);
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 2 = renamed");
    ldem_meta_free(&m);
    cr_assert_eq(m.count, 0);
}

Test(sections, meta_round_trip)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    cr_assert_eq(ldem_meta_set(&m, "name", "sphere", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "producer", "ldg-pack 0.1.0", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "source", "a=b.stl \xc3\xa9t\xc3\xa9", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "x-empty_1.2", "", &err), 0);
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_meta_encode(&m, &d, &n, &err), 0);
    static const char want[] =
        "name=sphere\nproducer=ldg-pack 0.1.0\nsource=a=b.stl \xc3\xa9t\xc3\xa9\nx-empty_1.2=\n";
    cr_assert_eq(n, sizeof want - 1);
    cr_assert_eq(memcmp(d, want, n), 0, "META is plain key=value lines");
    ldem_section s = section_of("META", d, n, -1);
    ldem_meta got;
    cr_assert_eq(ldem_meta_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, m.count);
    for (size_t i = 0; i < m.count; i++) {
        cr_assert_str_eq(got.keys[i], m.keys[i]);
        cr_assert_str_eq(got.values[i], m.values[i]);
    }
    ldem_meta_free(&got);
    free(d);

    /* An empty META is valid and encodes to nothing. */
    ldem_meta_free(&m);
    cr_assert_eq(ldem_meta_encode(&m, &d, &n, &err), 0);
    cr_assert_eq(n, 0);
    free(d);
    s = section_of("META", NULL, 0, -1);
    cr_assert_eq(ldem_meta_decode(&s, "x", &got, &err), 0);
    cr_assert_eq(got.count, 0);
    ldem_meta_free(&got);
}

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

static void lset_make(ldem_lset *ls)
{
    ls->dims[0] = 2, ls->dims[1] = 3, ls->dims[2] = 4;
    ls->origin[0] = -0.5, ls->origin[1] = 1e-300, ls->origin[2] = 7;
    ls->spacing[0] = 0.1, ls->spacing[1] = 0.2, ls->spacing[2] = 1e10;
    ls->phi = malloc(24 * sizeof(float));
    for (int i = 0; i < 24; i++)
        ls->phi[i] = (float)(i * i) * 0.37f - 10.0f;
    ls->phi[3] = 1e-45f; /* a subnormal */
    ls->phi[4] = -0.0f;
}

/* Raw LSET payload: the documented 64-byte header and `nvalues` values. */
static void lset_raw(pbuf *b, uint32_t nx, uint32_t ny, uint32_t nz, double spacing,
                     uint64_t nvalues)
{
    pb_u32(b, nx), pb_u32(b, ny), pb_u32(b, nz), pb_u32(b, 0);
    pb_f64(b, 0), pb_f64(b, 0), pb_f64(b, 0);
    pb_f64(b, spacing), pb_f64(b, spacing), pb_f64(b, spacing);
    for (uint64_t i = 0; i < nvalues; i++)
        pb_f32(b, (float)i);
}

Test(sections, lset_round_trip)
{
    ldem_lset ls;
    lset_make(&ls);
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_lset_encode(&ls, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 64 + 4 * 24);
    cr_assert_eq(ldem_get_u32le(d), 2u);
    cr_assert_eq(ldem_get_u32le(d + 8), 4u);
    cr_assert_eq(ldem_get_f64le(d + 40), 0.1, "spacing after origin");
    cr_assert_eq(ldem_get_f32le(d + 64 + 4 * 23), ls.phi[23], "x fastest, in order");
    ldem_section s = section_of("LSET", d, n, SECTION_AT);
    ldem_lset got;
    cr_assert_eq(ldem_lset_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(got.dims[a], ls.dims[a]);
        cr_assert_eq(memcmp(&got.origin[a], &ls.origin[a], 8), 0);
        cr_assert_eq(memcmp(&got.spacing[a], &ls.spacing[a], 8), 0);
    }
    cr_assert_eq(ldem_lset_count(&got), 24);
    cr_assert_eq(memcmp(got.phi, ls.phi, 24 * sizeof(float)), 0);
    cr_assert(signbit(got.phi[4]));
    ldem_lset_free(&got);
    ldem_lset_free(&ls);
    free(d);
}

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

static int decode_hostile_lsets(void)
{
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
    cr_assert_eq(run_with_memory_limit(decode_hostile_lsets, (size_t)256 << 20), 0);
}

/* ------------------------------------------------------------------------------------ */
/* NODE                                                                                  */

static void nodes_make(ldem_nodes *n, uint64_t count, uint64_t ntri)
{
    memset(n, 0, sizeof *n);
    n->count = count;
    n->ntriangles = ntri;
    if (count) {
        n->position = malloc(3 * count * sizeof(double));
        n->normal = malloc(3 * count * sizeof(double));
        n->area = malloc(count * sizeof(double));
    }
    for (uint64_t i = 0; i < count; i++) {
        double t = 0.7 * (double)i;
        n->position[3 * i] = cos(t), n->position[3 * i + 1] = sin(t);
        n->position[3 * i + 2] = 0.01 * (double)i;
        double nz = 0.6, r = 0.8;
        n->normal[3 * i] = r * cos(t), n->normal[3 * i + 1] = r * sin(t);
        n->normal[3 * i + 2] = nz;
        n->area[i] = i == 0 ? 0.0 : 1.0 / (double)(i + 1);
    }
    if (ntri) {
        n->triangles = malloc(3 * ntri * sizeof(uint32_t));
        for (uint64_t t = 0; t < 3 * ntri; t++)
            n->triangles[t] = (uint32_t)((t * 7 + t / 3) % count);
    }
}

static void nodes_round_trip(uint64_t count, uint64_t ntri)
{
    ldem_nodes n;
    nodes_make(&n, count, ntri);
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_nodes_encode(&n, &d, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, 16 + 56 * count + 12 * ntri);
    cr_assert_eq(ldem_get_u64le(d), count);
    cr_assert_eq(ldem_get_u64le(d + 8), ntri);
    if (count)
        cr_assert_eq(ldem_get_f64le(d + 16 + 24 * count), n.normal[0], "normals follow");
    ldem_section s = section_of("NODE", d, len, SECTION_AT);
    ldem_nodes got;
    cr_assert_eq(ldem_nodes_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, count);
    cr_assert_eq(got.ntriangles, ntri);
    size_t c = (size_t)count;
    assert_same_bytes(got.position, n.position, 3 * c * sizeof(double), "positions");
    assert_same_bytes(got.normal, n.normal, 3 * c * sizeof(double), "normals");
    assert_same_bytes(got.area, n.area, c * sizeof(double), "areas");
    assert_same_bytes(got.triangles, n.triangles, 3 * (size_t)ntri * 4, "triangles");
    ldem_nodes_free(&got);
    ldem_nodes_free(&n);
    free(d);
}

Test(sections, nodes_round_trip)
{
    nodes_round_trip(5, 3);
    nodes_round_trip(40, 0);
    nodes_round_trip(0, 0);
}

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
/* BODY                                                                                  */

static const ldem_body good_body = {.volume = 1.5,
                                    .density = 7850,
                                    .mass = 11775,
                                    .inertia = {1, 2, 3}, /* I3 = I1 + I2: a flat body */
                                    .centroid = {-1, 0.5, 1e300},
                                    .orientation = {0.6, 0, 0.8, 0}};

static void body_raw(pbuf *b, const ldem_body *v)
{
    pb_f64(b, v->volume), pb_f64(b, v->density), pb_f64(b, v->mass);
    for (int a = 0; a < 3; a++)
        pb_f64(b, v->inertia[a]);
    for (int a = 0; a < 3; a++)
        pb_f64(b, v->centroid[a]);
    for (int a = 0; a < 4; a++)
        pb_f64(b, v->orientation[a]);
}

Test(sections, body_round_trip)
{
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_body_encode(&good_body, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 104);
    pbuf raw = {0};
    body_raw(&raw, &good_body);
    cr_assert_eq(raw.n, 104);
    cr_assert_eq(memcmp(d, raw.p, 104), 0, "13 doubles in the documented order");
    pb_free(&raw);
    ldem_section s = section_of("BODY", d, n, SECTION_AT);
    ldem_body got;
    cr_assert_eq(ldem_body_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(&got, &good_body, sizeof got), 0, "identical struct");
    free(d);
}

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

static void modes_round_trip(const ldem_modes *m, uint64_t expected_len)
{
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_modes_encode(m, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, expected_len, "payload %llu bytes, expected %llu", (unsigned long long)n,
                 (unsigned long long)expected_len);
    ldem_section s = section_of("MODE", d, n, SECTION_AT);
    ldem_modes got;
    cr_assert_eq(ldem_modes_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, m->count);
    cr_assert_eq(got.kind, m->kind);
    cr_assert_eq(got.nnodes, m->nnodes);
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got.grid_dims[a], m->grid_dims[a]);
    cr_assert_eq(memcmp(got.grid_origin, m->grid_origin, sizeof got.grid_origin), 0);
    cr_assert_eq(memcmp(got.grid_spacing, m->grid_spacing, sizeof got.grid_spacing), 0);
    size_t nv = (size_t)(m->count * m->nnodes * 3);
    size_t gv = (size_t)m->count * m->grid_dims[0] * m->grid_dims[1] * m->grid_dims[2] * 3;
    cr_assert_eq(got.node_values == NULL, nv == 0);
    cr_assert_eq(got.grid_values == NULL, gv == 0);
    assert_same_bytes(got.node_values, m->node_values, nv * sizeof(double), "node values");
    assert_same_bytes(got.grid_values, m->grid_values, gv * sizeof(float), "grid values");
    if (m->descriptor)
        cr_assert_str_eq(got.descriptor, m->descriptor);
    else
        cr_assert_null(got.descriptor);
    ldem_modes_free(&got);
    free(d);
}

Test(sections, modes_round_trip_sampled_with_grid)
{
    ldem_modes m = {.count = 3, .kind = LDEM_MODE_SAMPLED, .nnodes = 5,
                    .grid_dims = {2, 3, 4}, .grid_origin = {-1, -2, -3},
                    .grid_spacing = {0.5, 0.25, 0.125}};
    m.node_values = malloc(3 * 5 * 3 * sizeof(double));
    for (int i = 0; i < 45; i++)
        m.node_values[i] = sin(i + 0.5);
    m.grid_values = malloc(3 * 24 * 3 * sizeof(float));
    for (int i = 0; i < 216; i++)
        m.grid_values[i] = (float)cos(i);
    modes_round_trip(&m, 88 + 8 * 45 + 4 * 216);
    /* Sampled on the grid only, and on the nodes only. */
    ldem_modes g = m;
    g.nnodes = 0, g.node_values = NULL;
    modes_round_trip(&g, 88 + 4 * 216);
    ldem_modes nd = m;
    memset(nd.grid_dims, 0, sizeof nd.grid_dims);
    nd.grid_values = NULL;
    modes_round_trip(&nd, 88 + 8 * 45);
    ldem_modes_free(&m);
}

Test(sections, modes_round_trip_analytic)
{
    char desc[] = "beam-bending length=160 axis=x \xce\xb1=1";
    ldem_modes m = {.count = 2, .kind = LDEM_MODE_ANALYTIC, .descriptor = desc};
    modes_round_trip(&m, 88 + strlen(desc));
    /* Analytic modes may carry sampled node values too. */
    double vals[2 * 2 * 3] = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
    m.nnodes = 2;
    m.node_values = vals;
    modes_round_trip(&m, 88 + 8 * 12 + strlen(desc));
}

/* Raw MODE payload header. */
static void modes_header(pbuf *b, uint32_t count, uint32_t kind, uint64_t nnodes,
                         const uint32_t dims[3], uint64_t dlen)
{
    pb_u32(b, count), pb_u32(b, kind), pb_u64(b, nnodes);
    for (int a = 0; a < 3; a++)
        pb_u32(b, dims[a]);
    pb_u32(b, 0);
    for (int a = 0; a < 3; a++)
        pb_f64(b, 0);
    for (int a = 0; a < 3; a++)
        pb_f64(b, 1);
    pb_u64(b, dlen);
}

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
/* KMAT / MMAT                                                                           */

Test(sections, matrix_round_trip)
{
    for (uint32_t n = 1; n <= 4; n++) {
        ldem_matrix m = {.n = n};
        m.a = malloc((size_t)n * n * sizeof(double));
        for (uint32_t i = 0; i < n * n; i++)
            m.a[i] = (i % (n + 1) == 0 ? 10.0 : -0.1) * (double)(i + 1) / 3.0;
        ldem_err err;
        unsigned char *d;
        uint64_t len;
        cr_assert_eq(ldem_matrix_encode(&m, &d, &len, &err), 0);
        cr_assert_eq(len, 8 + 8 * (uint64_t)n * n);
        cr_assert_eq(ldem_get_u32le(d), n);
        if (n > 1)
            cr_assert_eq(ldem_get_f64le(d + 8 + 8), m.a[1], "row-major");
        const char *tags[2] = {"KMAT", "MMAT"};
        for (int t = 0; t < 2; t++) {
            ldem_section s = section_of(tags[t], d, len, SECTION_AT);
            ldem_matrix got;
            cr_assert_eq(ldem_matrix_decode(&s, "x", &got, &err), 0, "%s", err.msg);
            cr_assert_eq(got.n, n);
            cr_assert_eq(memcmp(got.a, m.a, (size_t)n * n * sizeof(double)), 0);
            ldem_matrix_free(&got);
        }
        free(d);
        ldem_matrix_free(&m);
    }
    ldem_matrix zero = {0};
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_matrix_encode(&zero, &d, &len, &err), LDEM_ERR_USAGE);
}

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

Test(sections, etab_round_trip)
{
    ldem_etab t = {.count = 3};
    t.tables = calloc(3, sizeof *t.tables);
    uint32_t modes[3] = {2, 0, 7};
    uint32_t interps[3] = {LDEM_INTERP_LINEAR, LDEM_INTERP_CUBIC, LDEM_INTERP_PCHIP};
    uint64_t ns[3] = {2, 5, 17};
    uint64_t total = 8;
    for (int i = 0; i < 3; i++) {
        ldem_etab_table *tb = &t.tables[i];
        tb->mode = modes[i], tb->interp = interps[i], tb->n = ns[i];
        tb->eps = malloc(ns[i] * sizeof(double));
        tb->energy = malloc(ns[i] * sizeof(double));
        tb->force = malloc(ns[i] * sizeof(double));
        for (uint64_t k = 0; k < ns[i]; k++) {
            double e = -0.5 + 0.1 * (double)k * (double)(k + 1);
            tb->eps[k] = e;
            tb->energy[k] = 0.5 * e * e + 0.1 * e * e * e * e;
            tb->force[k] = e + 0.4 * e * e * e;
        }
        total += 16 + 24 * ns[i];
    }
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, total);
    cr_assert_eq(ldem_get_u32le(d), 3u);
    cr_assert_eq(ldem_get_u32le(d + 8), 2u, "first table's mode");
    cr_assert_eq(ldem_get_u64le(d + 16), 2u, "first table's n");
    ldem_section s = section_of("ETAB", d, len, SECTION_AT);
    ldem_etab got;
    cr_assert_eq(ldem_etab_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, 3);
    for (int i = 0; i < 3; i++) {
        const ldem_etab_table *g = &got.tables[i], *w = &t.tables[i];
        cr_assert_eq(g->mode, w->mode);
        cr_assert_eq(g->interp, w->interp);
        cr_assert_eq(g->n, w->n);
        size_t bytes = (size_t)w->n * sizeof(double);
        cr_assert_eq(memcmp(g->eps, w->eps, bytes), 0);
        cr_assert_eq(memcmp(g->energy, w->energy, bytes), 0);
        cr_assert_eq(memcmp(g->force, w->force, bytes), 0);
    }
    ldem_etab_free(&got);
    free(d);
    cr_assert_str_eq(ldem_interp_name(LDEM_INTERP_PCHIP), "pchip");
    cr_assert_null(ldem_interp_name(3));

    /* The encoder refuses what the decoder would refuse. */
    t.tables[1].eps[2] = t.tables[1].eps[1];
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "table 1"), "%s", err.msg);
    ldem_etab_free(&t);
}

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

/* ------------------------------------------------------------------------------------ */
/* No decoder believes a count with memory                                               */

static int decode_hostile_counts(void)
{
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
    int rc = run_with_memory_limit(decode_hostile_counts, (size_t)256 << 20);
    cr_assert_eq(rc, 0, "child result %d (bit mask of failed decoders, -1: killed)", rc);
}
