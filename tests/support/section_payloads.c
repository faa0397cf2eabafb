/* Section payloads built field by field and the decoder expectations: see
 * section_payloads.h. */
#include "section_payloads.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bytes.h"

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

void pb_u32(pbuf *b, uint32_t v)
{
    ldem_put_u32le(pb_grow(b, 4), v);
}

void pb_u64(pbuf *b, uint64_t v)
{
    ldem_put_u64le(pb_grow(b, 8), v);
}

void pb_f64(pbuf *b, double v)
{
    ldem_put_f64le(pb_grow(b, 8), v);
}

void pb_f32(pbuf *b, float v)
{
    ldem_put_f32le(pb_grow(b, 4), v);
}

void pb_raw(pbuf *b, const void *v, size_t n)
{
    if (n)
        memcpy(pb_grow(b, n), v, n);
}

void pb_free(pbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

ldem_section section_of(const char *tag, unsigned char *data, uint64_t len,
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
int decode_any(const char *tag, const unsigned char *p, size_t n, int64_t offset,
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
    } else if (!strcmp(tag, "DAMP")) {
        ldem_damping d;
        rc = ldem_damping_decode(&s, "grain.ldg", &d, err);
        if (rc)
            cr_assert(!d.zeta && !d.omega && !d.c, "a failed decode leaves nothing allocated");
        ldem_damping_free(&d);
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
void expect_reject(const char *tag, const pbuf *b, const char *needle)
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

void expect_reject_at(const char *tag, const pbuf *b, const char *needle,
                      long long payload_byte)
{
    expect_reject(tag, b, needle);
    ldem_err err;
    decode_any(tag, b->p, b->n, SECTION_AT, &err);
    cr_assert_eq(err.offset, PAYLOAD_AT + payload_byte, "offset %lld, expected %lld: %s",
                 err.offset, PAYLOAD_AT + payload_byte, err.msg);
}

void expect_accept(const char *tag, const pbuf *b)
{
    ldem_err err;
    int rc = decode_any(tag, b->p, b->n, SECTION_AT, &err);
    cr_assert_eq(rc, LDEM_OK, "%s: %s", tag, err.msg);
}

/* Raw LSET payload: the documented 64-byte header and `nvalues` values. */
void lset_raw(pbuf *b, uint32_t nx, uint32_t ny, uint32_t nz, double spacing,
              uint64_t nvalues)
{
    pb_u32(b, nx), pb_u32(b, ny), pb_u32(b, nz), pb_u32(b, 0);
    pb_f64(b, 0), pb_f64(b, 0), pb_f64(b, 0);
    pb_f64(b, spacing), pb_f64(b, spacing), pb_f64(b, spacing);
    for (uint64_t i = 0; i < nvalues; i++)
        pb_f32(b, (float)i);
}

const ldem_body good_body = {.volume = 1.5,
                             .density = 7850,
                             .mass = 11775,
                             .inertia = {1, 2, 3}, /* I3 = I1 + I2: a flat body */
                             .centroid = {-1, 0.5, 1e300},
                             .orientation = {0.6, 0, 0.8, 0}};

void body_raw(pbuf *b, const ldem_body *v)
{
    pb_f64(b, v->volume), pb_f64(b, v->density), pb_f64(b, v->mass);
    for (int a = 0; a < 3; a++)
        pb_f64(b, v->inertia[a]);
    for (int a = 0; a < 3; a++)
        pb_f64(b, v->centroid[a]);
    for (int a = 0; a < 4; a++)
        pb_f64(b, v->orientation[a]);
}

/* Raw MODE payload header. */
void modes_header(pbuf *b, uint32_t count, uint32_t kind, uint64_t nnodes,
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
