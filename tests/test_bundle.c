/* Tests of the grain-bundle container (ldem/bundle.h): byte layout, round trips of every
 * section type through the writer and the streaming reader, concatenated bundles, and one
 * specific error (code, byte offset, section tag) for each kind of corruption. Streams are
 * read three ways: from memory (fmemopen), from a regular file (size known up front) and
 * from a pipe (size unknown), because the reader takes different paths for them. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/sections.h"

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                               */

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) written independently of the library,
 * so a writer and reader that agree on a wrong checksum are still caught. */
static uint32_t crc32_ref(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* A growable byte buffer for hand-made (possibly corrupt) streams. */
typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void bytes_add(bytes *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        cr_assert_not_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void bytes_free(bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void raw_header(bytes *b, uint32_t version, uint32_t flags)
{
    unsigned char h[16];
    memcpy(h, LDEM_BUNDLE_MAGIC, 8);
    ldem_put_u32le(h + 8, version);
    ldem_put_u32le(h + 12, flags);
    bytes_add(b, h, sizeof h);
}

/* A section whose header claims `length` bytes; `n` bytes of payload are actually
 * written, followed by a correct CRC over what was written. Returns its offset. */
static size_t raw_section_n(bytes *b, const char tag[4], uint32_t flags, uint64_t length,
                            const void *payload, size_t n)
{
    size_t at = b->n;
    unsigned char h[16], t[4];
    memcpy(h, tag, 4);
    ldem_put_u32le(h + 4, flags);
    ldem_put_u64le(h + 8, length);
    uint32_t crc = crc32_ref(0, h, 16);
    crc = crc32_ref(crc, payload, n);
    ldem_put_u32le(t, crc);
    bytes_add(b, h, 16);
    bytes_add(b, payload, n);
    bytes_add(b, t, 4);
    return at;
}

static size_t raw_section(bytes *b, const char tag[4], uint32_t flags, const void *payload,
                          size_t n)
{
    return raw_section_n(b, tag, flags, n, payload, n);
}

static size_t raw_end(bytes *b)
{
    return raw_section(b, "ENDB", 0, NULL, 0);
}

/* Write a bundle with ldem_bundle_write into memory. */
static bytes write_to_memory(const ldem_bundle *b)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    cr_assert_not_null(fp);
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_bundle_write(fp, "mem.ldg", b, &err);
    cr_assert_eq(rc, LDEM_OK, "write: %s", err.msg);
    cr_assert_eq(fclose(fp), 0);
    bytes out = {(unsigned char *)buf, len, len};
    return out;
}

enum via { VIA_MEMORY, VIA_FILE, VIA_PIPE };
static const char *const via_name[] = {"memory", "regular file", "pipe"};

/* A read stream over `n` bytes of `p`: a memory stream, a regular file (size known to the
 * reader), or a pipe (size unknown, like stdin in a shell pipeline). */
static FILE *open_input(const unsigned char *p, size_t n, enum via via)
{
    FILE *fp = NULL;
    if (via == VIA_MEMORY) {
        fp = fmemopen((void *)p, n, "rb");
    } else if (via == VIA_FILE) {
        fp = tmpfile();
        cr_assert_not_null(fp);
        cr_assert_eq(fwrite(p, 1, n, fp), n);
        cr_assert_eq(fflush(fp), 0);
        rewind(fp);
    } else {
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        /* Everything fits in the pipe buffer, so the writer side never blocks. */
        cr_assert(n <= 16384, "test stream too large for a pipe: %zu", n);
        size_t done = 0;
        while (done < n) {
            ssize_t w = write(fds[1], p + done, n - done);
            cr_assert(w > 0);
            done += (size_t)w;
        }
        close(fds[1]);
        fp = fdopen(fds[0], "rb");
    }
    cr_assert_not_null(fp);
    return fp;
}

/* Read every bundle of a stream; returns the status of the first failure (or LDEM_OK),
 * the bundles read before it in *out, and the error in *err. */
static int read_stream(const unsigned char *p, size_t n, enum via via, uint64_t max_section,
                       ldem_bundle *out, size_t max_out, size_t *nout, ldem_err *err)
{
    FILE *fp = open_input(p, n, via);
    ldem_bundle_reader *r = NULL;
    ldem_err_clear(err);
    int rc = ldem_bundle_reader_open(&r, fp, "test.ldg", err);
    cr_assert_eq(rc, LDEM_OK);
    if (max_section)
        ldem_bundle_reader_set_max_section(r, max_section);
    *nout = 0;
    for (;;) {
        ldem_bundle b;
        int have = 0;
        rc = ldem_bundle_read(r, &b, &have, err);
        if (rc || !have) {
            cr_assert(rc || b.count == 0);
            break;
        }
        if (*nout < max_out)
            out[(*nout)++] = b;
        else
            ldem_bundle_free(&b);
    }
    if (!rc)
        cr_assert_eq(ldem_bundle_reader_offset(r), (int64_t)n, "all %zu bytes consumed", n);
    ldem_bundle_reader_close(r);
    fclose(fp);
    return rc;
}

static void free_bundles(ldem_bundle *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ldem_bundle_free(&b[i]);
}

/* Expect exactly one error of code LDEM_ERR_INPUT at `offset` whose message contains
 * every non-NULL needle, for each way of reading. */
static void expect_input_error_via(const bytes *s, enum via via, uint64_t max_section,
                                   long long offset, const char *needle1, const char *needle2)
{
    ldem_bundle got[4];
    size_t n = 0;
    ldem_err err;
    int rc = read_stream(s->p, s->n, via, max_section, got, 4, &n, &err);
    free_bundles(got, n);
    cr_assert_eq(rc, LDEM_ERR_INPUT, "[%s] expected an input error, got %d (%s)",
                 via_name[via], rc, err.msg);
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    cr_assert_eq(err.offset, offset, "[%s] error offset %lld, expected %lld: %s",
                 via_name[via], err.offset, offset, err.msg);
    cr_assert_str_eq(err.file, "test.ldg");
    if (needle1)
        cr_assert(strstr(err.msg, needle1), "[%s] message lacks \"%s\": %s", via_name[via],
                  needle1, err.msg);
    if (needle2)
        cr_assert(strstr(err.msg, needle2), "[%s] message lacks \"%s\": %s", via_name[via],
                  needle2, err.msg);
}

static void expect_input_error(const bytes *s, long long offset, const char *needle1,
                               const char *needle2)
{
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++)
        expect_input_error_via(s, (enum via)via, 0, offset, needle1, needle2);
}

/* ------------------------------------------------------------------------------------ */
/* Fixture: one bundle holding every section type                                        */

static const unsigned char xtra_payload[] = "opaque\0\x01\xff bytes of a newer tool";
#define XTRA_FLAGS 0x5u

typedef struct fixture {
    ldem_meta meta;
    ldem_lset lset;
    ldem_nodes nodes;
    ldem_body body;
    ldem_modes modes;
    ldem_matrix kmat, mmat;
    ldem_etab etab;
} fixture;

static double *dup_doubles(const double *v, size_t n)
{
    double *d = malloc(n * sizeof *d);
    cr_assert_not_null(d);
    memcpy(d, v, n * sizeof *d);
    return d;
}

static void fixture_make(fixture *f, enum ldem_mode_kind kind)
{
    memset(f, 0, sizeof *f);
    ldem_err err;
    ldem_meta_init(&f->meta);
    cr_assert_eq(ldem_meta_set(&f->meta, "name", "sphere-7", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "length_unit", "mm", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "producer", "ldg-pack 0.1.0", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "source.0", "geom/sphere 7.stl", &err), 0);

    ldem_lset *ls = &f->lset;
    ls->dims[0] = 3, ls->dims[1] = 4, ls->dims[2] = 5;
    ls->origin[0] = -1.5, ls->origin[1] = -2.0, ls->origin[2] = 0.1;
    ls->spacing[0] = 0.5, ls->spacing[1] = 0.25, ls->spacing[2] = 1.0 / 3.0;
    ls->phi = malloc(60 * sizeof(float));
    cr_assert_not_null(ls->phi);
    for (int i = 0; i < 60; i++)
        ls->phi[i] = (float)(i - 30) / 7.0f;
    ls->phi[5] = -0.0f;

    /* A tetrahedron. */
    static const double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double s3 = 1 / sqrt(3.0);
    const double nrm[12] = {-s3, -s3, -s3, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double area[4] = {0.5, 0.25, 0.25, 1e-300};
    static const uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    f->nodes.count = 4;
    f->nodes.position = dup_doubles(pos, 12);
    f->nodes.normal = dup_doubles(nrm, 12);
    f->nodes.area = dup_doubles(area, 4);
    f->nodes.ntriangles = 4;
    f->nodes.triangles = malloc(sizeof tri);
    memcpy(f->nodes.triangles, tri, sizeof tri);

    f->body = (ldem_body){.volume = 4.1887902047863905,
                          .density = 2500,
                          .mass = 10471.975511965976,
                          .inertia = {2, 3, 4.5},
                          .centroid = {0.25, -0.125, 1e-17},
                          .orientation = {0.5, 0.5, -0.5, 0.5}};

    ldem_modes *m = &f->modes;
    m->kind = kind;
    if (kind == LDEM_MODE_SAMPLED) {
        m->count = 2;
        m->nnodes = 4;
        m->node_values = malloc(2 * 4 * 3 * sizeof(double));
        for (int i = 0; i < 24; i++)
            m->node_values[i] = 0.01 * (i + 1) * (i % 2 ? -1 : 1);
        m->grid_dims[0] = 2, m->grid_dims[1] = 3, m->grid_dims[2] = 2;
        m->grid_origin[0] = -1, m->grid_origin[1] = -1.5, m->grid_origin[2] = -1;
        m->grid_spacing[0] = 2, m->grid_spacing[1] = 1.5, m->grid_spacing[2] = 2;
        m->grid_values = malloc(2 * 12 * 3 * sizeof(float));
        for (int i = 0; i < 72; i++)
            m->grid_values[i] = (float)i / 64.0f - 0.5f;
    } else {
        m->count = 1;
        const char *d = "beam-bending length=160 axis=x";
        m->descriptor = malloc(strlen(d) + 1);
        strcpy(m->descriptor, d);
    }

    f->kmat.n = 2;
    f->kmat.a = dup_doubles((const double[]){4, -1, -1, 3}, 4);
    f->mmat.n = 3;
    f->mmat.a = dup_doubles((const double[]){1, 0, 0, 0, 2, 0, 0, 0, 0.5}, 9);

    f->etab.count = 2;
    f->etab.tables = calloc(2, sizeof *f->etab.tables);
    ldem_etab_table *t = f->etab.tables;
    t[0] = (ldem_etab_table){.mode = 0, .interp = LDEM_INTERP_LINEAR, .n = 3};
    t[0].eps = dup_doubles((const double[]){-0.1, 0, 0.1}, 3);
    t[0].energy = dup_doubles((const double[]){0.005, 0, 0.005}, 3);
    t[0].force = dup_doubles((const double[]){-0.1, 0, 0.1}, 3);
    t[1] = (ldem_etab_table){.mode = 1, .interp = LDEM_INTERP_PCHIP, .n = 4};
    t[1].eps = dup_doubles((const double[]){-1, -0.25, 0.5, 2}, 4);
    t[1].energy = dup_doubles((const double[]){1, 0.0625, 0.25, 4}, 4);
    t[1].force = dup_doubles((const double[]){-2, -0.5, 1, 4}, 4);
}

static void fixture_free(fixture *f)
{
    ldem_meta_free(&f->meta);
    ldem_lset_free(&f->lset);
    ldem_nodes_free(&f->nodes);
    ldem_modes_free(&f->modes);
    ldem_matrix_free(&f->kmat);
    ldem_matrix_free(&f->mmat);
    ldem_etab_free(&f->etab);
}

static void put_encoded(ldem_bundle *b, const char *tag, uint32_t flags, int rc,
                        unsigned char *data, uint64_t len, const ldem_err *enc_err)
{
    cr_assert_eq(rc, LDEM_OK, "encoding %s: %s", tag, enc_err->msg);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put(b, tag, flags, data, len, &err), LDEM_OK, "%s", err.msg);
}

/* The bundle of a fixture, sections in a fixed order, with the unknown XTRA in the middle. */
static void fixture_bundle(const fixture *f, ldem_bundle *b)
{
    ldem_bundle_init(b);
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc;
    rc = ldem_meta_encode(&f->meta, &d, &n, &err);
    put_encoded(b, LDEM_TAG_META, 0, rc, d, n, &err);
    rc = ldem_lset_encode(&f->lset, &d, &n, &err);
    put_encoded(b, LDEM_TAG_LSET, 0, rc, d, n, &err);
    rc = ldem_nodes_encode(&f->nodes, &d, &n, &err);
    put_encoded(b, LDEM_TAG_NODE, 0, rc, d, n, &err);
    cr_assert_eq(ldem_bundle_put_copy(b, "XTRA", XTRA_FLAGS, xtra_payload, sizeof xtra_payload,
                                      &err),
                 LDEM_OK);
    rc = ldem_body_encode(&f->body, &d, &n, &err);
    put_encoded(b, LDEM_TAG_BODY, 0, rc, d, n, &err);
    rc = ldem_modes_encode(&f->modes, &d, &n, &err);
    put_encoded(b, LDEM_TAG_MODE, 0, rc, d, n, &err);
    rc = ldem_matrix_encode(&f->kmat, &d, &n, &err);
    put_encoded(b, LDEM_TAG_KMAT, 0, rc, d, n, &err);
    rc = ldem_matrix_encode(&f->mmat, &d, &n, &err);
    put_encoded(b, LDEM_TAG_MMAT, 0, rc, d, n, &err);
    rc = ldem_etab_encode(&f->etab, &d, &n, &err);
    put_encoded(b, LDEM_TAG_ETAB, 0, rc, d, n, &err);
}

static const char *const fixture_tags[] = {"META", "LSET", "NODE", "XTRA", "BODY",
                                           "MODE", "KMAT", "MMAT", "ETAB"};
#define NFIXTURE_TAGS 9

/* ---- exact comparisons of decoded sections with the fixture ---- */

#define assert_same_bytes(a, b, n, what)                                                    \
    cr_assert(((n) == 0) || memcmp((a), (b), (n)) == 0, "%s differ", what)

static void check_meta(const ldem_meta *got, const ldem_meta *want)
{
    cr_assert_eq(got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        cr_assert_str_eq(got->keys[i], want->keys[i]);
        cr_assert_str_eq(got->values[i], want->values[i]);
    }
}

static void check_lset(const ldem_lset *got, const ldem_lset *want)
{
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got->dims[a], want->dims[a]);
    assert_same_bytes(got->origin, want->origin, sizeof got->origin, "LSET origins");
    assert_same_bytes(got->spacing, want->spacing, sizeof got->spacing, "LSET spacings");
    assert_same_bytes(got->phi, want->phi, ldem_lset_count(want) * sizeof(float), "LSET phi");
}

static void check_nodes(const ldem_nodes *got, const ldem_nodes *want)
{
    cr_assert_eq(got->count, want->count);
    cr_assert_eq(got->ntriangles, want->ntriangles);
    size_t n = (size_t)want->count;
    assert_same_bytes(got->position, want->position, 3 * n * sizeof(double), "positions");
    assert_same_bytes(got->normal, want->normal, 3 * n * sizeof(double), "normals");
    assert_same_bytes(got->area, want->area, n * sizeof(double), "areas");
    assert_same_bytes(got->triangles, want->triangles,
                      3 * (size_t)want->ntriangles * sizeof(uint32_t), "triangles");
}

static void check_body(const ldem_body *got, const ldem_body *want)
{
    /* Every field is a double: compare the whole struct's values bit for bit. */
    cr_assert_eq(memcmp(&got->volume, &want->volume, sizeof(double)), 0);
    cr_assert_eq(memcmp(&got->density, &want->density, sizeof(double)), 0);
    cr_assert_eq(memcmp(&got->mass, &want->mass, sizeof(double)), 0);
    assert_same_bytes(got->inertia, want->inertia, sizeof got->inertia, "inertia");
    assert_same_bytes(got->centroid, want->centroid, sizeof got->centroid, "centroid");
    assert_same_bytes(got->orientation, want->orientation, sizeof got->orientation,
                      "orientation");
}

static void check_modes(const ldem_modes *got, const ldem_modes *want)
{
    cr_assert_eq(got->count, want->count);
    cr_assert_eq(got->kind, want->kind);
    cr_assert_eq(got->nnodes, want->nnodes);
    size_t nv = (size_t)(want->count * want->nnodes * 3);
    size_t g = (size_t)want->grid_dims[0] * want->grid_dims[1] * want->grid_dims[2];
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got->grid_dims[a], want->grid_dims[a]);
    assert_same_bytes(got->grid_origin, want->grid_origin, sizeof got->grid_origin,
                      "grid origin");
    assert_same_bytes(got->grid_spacing, want->grid_spacing, sizeof got->grid_spacing,
                      "grid spacing");
    cr_assert_eq(got->node_values == NULL, nv == 0);
    cr_assert_eq(got->grid_values == NULL, g == 0);
    assert_same_bytes(got->node_values, want->node_values, nv * sizeof(double), "node values");
    assert_same_bytes(got->grid_values, want->grid_values, want->count * g * 3 * sizeof(float),
                      "grid values");
    if (want->descriptor)
        cr_assert_str_eq(got->descriptor, want->descriptor);
    else
        cr_assert_null(got->descriptor);
}

static void check_matrix(const ldem_matrix *got, const ldem_matrix *want)
{
    cr_assert_eq(got->n, want->n);
    assert_same_bytes(got->a, want->a, (size_t)want->n * want->n * sizeof(double), "entries");
}

static void check_etab(const ldem_etab *got, const ldem_etab *want)
{
    cr_assert_eq(got->count, want->count);
    for (uint32_t i = 0; i < want->count; i++) {
        const ldem_etab_table *g = &got->tables[i], *w = &want->tables[i];
        cr_assert_eq(g->mode, w->mode);
        cr_assert_eq(g->interp, w->interp);
        cr_assert_eq(g->n, w->n);
        assert_same_bytes(g->eps, w->eps, (size_t)w->n * sizeof(double), "eps");
        assert_same_bytes(g->energy, w->energy, (size_t)w->n * sizeof(double), "energy");
        assert_same_bytes(g->force, w->force, (size_t)w->n * sizeof(double), "force");
    }
}

/* Decode every typed section of a read-back bundle and compare it with the fixture. */
static void check_typed(const ldem_bundle *b, const fixture *f)
{
    ldem_err err;
    const ldem_section *s;

    ldem_meta meta;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_META));
    cr_assert_eq(ldem_meta_decode(s, "rt", &meta, &err), LDEM_OK, "%s", err.msg);
    check_meta(&meta, &f->meta);
    cr_assert_str_eq(ldem_meta_get(&meta, "source.0"), "geom/sphere 7.stl");
    ldem_meta_free(&meta);

    ldem_lset ls;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_LSET));
    cr_assert_eq(ldem_lset_decode(s, "rt", &ls, &err), LDEM_OK, "%s", err.msg);
    check_lset(&ls, &f->lset);
    cr_assert(signbit(ls.phi[5]), "-0.0 kept its sign");
    ldem_lset_free(&ls);

    ldem_nodes nd;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_NODE));
    cr_assert_eq(ldem_nodes_decode(s, "rt", &nd, &err), LDEM_OK, "%s", err.msg);
    check_nodes(&nd, &f->nodes);
    ldem_nodes_free(&nd);

    ldem_body body;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_BODY));
    cr_assert_eq(ldem_body_decode(s, "rt", &body, &err), LDEM_OK, "%s", err.msg);
    check_body(&body, &f->body);

    ldem_modes modes;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_MODE));
    cr_assert_eq(ldem_modes_decode(s, "rt", &modes, &err), LDEM_OK, "%s", err.msg);
    check_modes(&modes, &f->modes);
    ldem_modes_free(&modes);

    ldem_matrix mat;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_KMAT));
    cr_assert_eq(ldem_matrix_decode(s, "rt", &mat, &err), LDEM_OK, "%s", err.msg);
    check_matrix(&mat, &f->kmat);
    ldem_matrix_free(&mat);
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_MMAT));
    cr_assert_eq(ldem_matrix_decode(s, "rt", &mat, &err), LDEM_OK, "%s", err.msg);
    check_matrix(&mat, &f->mmat);
    ldem_matrix_free(&mat);

    ldem_etab et;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_ETAB));
    cr_assert_eq(ldem_etab_decode(s, "rt", &et, &err), LDEM_OK, "%s", err.msg);
    check_etab(&et, &f->etab);
    ldem_etab_free(&et);
}

/* Same sections (tags, order, flags, lengths, bytes) in both bundles. */
static void check_same_sections(const ldem_bundle *got, const ldem_bundle *want)
{
    cr_assert_eq(got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        const ldem_section *g = &got->sections[i], *w = &want->sections[i];
        cr_assert_str_eq(g->tag, w->tag, "section %zu", i);
        cr_assert_eq(g->flags, w->flags, "section %s flags", w->tag);
        cr_assert_eq(g->length, w->length, "section %s length", w->tag);
        assert_same_bytes(g->data, w->data, (size_t)w->length, w->tag);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Round trips and layout                                                                */

static void round_trip(enum ldem_mode_kind kind)
{
    fixture f;
    fixture_make(&f, kind);
    ldem_bundle b;
    fixture_bundle(&f, &b);
    cr_assert_eq(b.count, NFIXTURE_TAGS);
    bytes s = write_to_memory(&b);

    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        ldem_bundle got[2];
        size_t n = 0;
        ldem_err err;
        int rc = read_stream(s.p, s.n, (enum via)via, 0, got, 2, &n, &err);
        cr_assert_eq(rc, LDEM_OK, "[%s] %s", via_name[via], err.msg);
        cr_assert_eq(n, 1);
        cr_assert_eq(got[0].version, 1u);
        check_same_sections(&got[0], &b);
        /* Tags in the written order, the unknown one included, at the right offsets. */
        int64_t at = LDEM_BUNDLE_HEADER_SIZE;
        for (size_t i = 0; i < NFIXTURE_TAGS; i++) {
            const ldem_section *sec = &got[0].sections[i];
            cr_assert_str_eq(sec->tag, fixture_tags[i]);
            cr_assert_eq(sec->offset, at, "%s at %lld, expected %lld", sec->tag,
                         (long long)sec->offset, (long long)at);
            at += LDEM_SECTION_HEADER_SIZE + (int64_t)sec->length + LDEM_SECTION_TRAILER_SIZE;
        }
        cr_assert_eq(at + 20, (int64_t)s.n, "end marker is the last 20 bytes");
        const ldem_section *x = ldem_bundle_find(&got[0], "XTRA");
        cr_assert_eq(x->flags, XTRA_FLAGS);
        cr_assert_eq(x->length, sizeof xtra_payload);
        cr_assert_eq(memcmp(x->data, xtra_payload, sizeof xtra_payload), 0);

        check_typed(&got[0], &f);

        /* Writing what was read gives the same bytes. */
        bytes again = write_to_memory(&got[0]);
        cr_assert_eq(again.n, s.n);
        cr_assert_eq(memcmp(again.p, s.p, s.n), 0, "rewritten bundle differs");
        bytes_free(&again);
        free_bundles(got, n);
    }
    bytes_free(&s);
    ldem_bundle_free(&b);
    fixture_free(&f);
}

Test(bundle, round_trip_every_section_sampled_mode)
{
    round_trip(LDEM_MODE_SAMPLED);
}

Test(bundle, round_trip_every_section_analytic_mode)
{
    round_trip(LDEM_MODE_ANALYTIC);
}

/* The bytes on disk are exactly the documented layout, checked against an independent
 * encoder (raw_*), so a reader and writer that agreed on a wrong layout would fail. */
Test(bundle, byte_layout_matches_specification)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "META", 0, "a=b\n", 4, &err), 0);
    cr_assert_eq(ldem_bundle_put_copy(&b, "XTRA", 0xdeadbeefu, "\x00\x01\x02", 3, &err), 0);
    cr_assert_eq(ldem_bundle_put_copy(&b, "ZERO", 7, NULL, 0, &err), 0);
    bytes s = write_to_memory(&b);

    bytes want = {0};
    raw_header(&want, 1, 0);
    raw_section(&want, "META", 0, "a=b\n", 4);
    raw_section(&want, "XTRA", 0xdeadbeefu, "\x00\x01\x02", 3);
    raw_section(&want, "ZERO", 7, NULL, 0);
    raw_end(&want);
    cr_assert_eq(s.n, want.n, "%zu bytes, expected %zu", s.n, want.n);
    cr_assert_eq(memcmp(s.p, want.p, want.n), 0);
    /* Spot checks of the literal bytes. */
    cr_assert_eq(memcmp(s.p, "\x89LDG\r\n\x1a\n\x01\0\0\0\0\0\0\0", 16), 0);
    cr_assert_eq(memcmp(s.p + 16, "META\0\0\0\0\x04\0\0\0\0\0\0\0a=b\n", 20), 0);
    cr_assert_eq(memcmp(s.p + s.n - 20, "ENDB\0\0\0\0\0\0\0\0\0\0\0\0", 16), 0);
    /* The CRC of "ENDB" + 12 zero bytes, as zlib computes it. */
    cr_assert_eq(ldem_get_u32le(s.p + s.n - 4), crc32_ref(0, s.p + s.n - 20, 16));
    cr_assert_eq(crc32_ref(0, (const unsigned char *)"123456789", 9), 0xCBF43926u);
    bytes_free(&want);
    bytes_free(&s);
    ldem_bundle_free(&b);
}

Test(bundle, empty_bundle_round_trips)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    bytes s = write_to_memory(&b);
    cr_assert_eq(s.n, 16 + 20);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        ldem_bundle got[1];
        size_t n = 0;
        ldem_err err;
        cr_assert_eq(read_stream(s.p, s.n, (enum via)via, 0, got, 1, &n, &err), 0, "%s",
                     err.msg);
        cr_assert_eq(n, 1);
        cr_assert_eq(got[0].count, 0);
        free_bundles(got, n);
    }
    bytes_free(&s);
}

/* Feed a payload in uneven pieces (including empty ones) with the streaming writer. */
Test(bundle, streaming_writer_in_pieces_equals_one_shot)
{
    fixture f;
    fixture_make(&f, LDEM_MODE_SAMPLED);
    ldem_bundle b;
    fixture_bundle(&f, &b);
    bytes one_shot = write_to_memory(&b);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ldem_bundle_writer w;
    ldem_err err;
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "pieces", &err), 0);
    static const size_t piece[] = {1, 0, 7, 3, 64, 0, 2, 1000};
    for (size_t i = 0; i < b.count; i++) {
        const ldem_section *s = &b.sections[i];
        cr_assert_eq(ldem_bundle_writer_section_begin(&w, s->tag, s->flags, s->length, &err), 0,
                     "%s", err.msg);
        size_t done = 0, k = i;
        while (done < s->length) {
            size_t n = piece[k++ % (sizeof piece / sizeof piece[0])];
            if (n > s->length - done)
                n = (size_t)s->length - done;
            cr_assert_eq(ldem_bundle_writer_data(&w, s->data + done, n, &err), 0, "%s",
                         err.msg);
            done += n;
        }
        cr_assert_eq(ldem_bundle_writer_data(&w, s->data, 0, &err), 0);
        cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0, "%s", err.msg);
    fclose(fp);
    cr_assert_eq(len, one_shot.n);
    cr_assert_eq(memcmp(buf, one_shot.p, len), 0, "streamed bytes differ from one-shot");

    /* ldem_bundle_writer_section (one section at a time) gives the same bytes as well. */
    char *buf2 = NULL;
    size_t len2 = 0;
    fp = open_memstream(&buf2, &len2);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "sections", &err), 0);
    for (size_t i = 0; i < b.count; i++)
        cr_assert_eq(ldem_bundle_writer_section(&w, &b.sections[i], &err), 0);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    fclose(fp);
    cr_assert_eq(len2, one_shot.n);
    cr_assert_eq(memcmp(buf2, one_shot.p, len2), 0);

    free(buf);
    free(buf2);
    bytes_free(&one_shot);
    ldem_bundle_free(&b);
    fixture_free(&f);
}

/* Three bundles back to back (as a pipe carries an assembly), then a clean end. */
Test(bundle, concatenated_bundles_then_clean_end)
{
    fixture f1, f2;
    fixture_make(&f1, LDEM_MODE_SAMPLED);
    fixture_make(&f2, LDEM_MODE_ANALYTIC);
    ldem_bundle b[3];
    fixture_bundle(&f1, &b[0]);
    ldem_bundle_init(&b[1]); /* an empty bundle in the middle */
    fixture_bundle(&f2, &b[2]);
    ldem_err err;
    cr_assert_eq(ldem_bundle_remove(&b[2], "XTRA"), 1);
    cr_assert_eq(ldem_bundle_put_copy(&b[2], "META", 0, "name=second\n", 12, &err), 0);

    bytes s = {0};
    for (int i = 0; i < 3; i++) {
        bytes one = write_to_memory(&b[i]);
        bytes_add(&s, one.p, one.n);
        bytes_free(&one);
    }
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        ldem_bundle got[4];
        size_t n = 0;
        cr_assert_eq(read_stream(s.p, s.n, (enum via)via, 0, got, 4, &n, &err), 0,
                     "[%s] %s", via_name[via], err.msg);
        cr_assert_eq(n, 3, "[%s] read %zu bundles", via_name[via], n);
        for (int i = 0; i < 3; i++)
            check_same_sections(&got[i], &b[i]);
        check_typed(&got[0], &f1);
        /* Offsets are stream offsets, not bundle-relative. */
        size_t first = 0;
        for (size_t i = 0; i < b[0].count; i++)
            first += 20 + (size_t)b[0].sections[i].length;
        first += 16 + 20 + 16 + 20; /* header+end of bundle 0, empty bundle 1 */
        cr_assert_eq(got[2].sections[0].offset, (int64_t)(first + 16));
        free_bundles(got, n);
    }

    /* The low-level API: next/section until the end, then have == 0 twice. */
    FILE *fp = open_input(s.p, s.n, VIA_MEMORY);
    ldem_bundle_reader *r;
    cr_assert_eq(ldem_bundle_reader_open(&r, fp, "ll", &err), 0);
    int bundles = 0, have = 0;
    uint32_t version = 0;
    while (!ldem_bundle_reader_next(r, &have, &version, &err) && have) {
        cr_assert_eq(version, 1u);
        size_t sections = 0;
        for (;;) {
            ldem_section sec;
            int end = 0;
            cr_assert_eq(ldem_bundle_reader_section(r, &sec, &end, &err), 0, "%s", err.msg);
            if (end)
                break;
            cr_assert_str_eq(sec.tag, b[bundles].sections[sections].tag);
            sections++;
            ldem_section_free(&sec);
        }
        cr_assert_eq(sections, b[bundles].count);
        bundles++;
    }
    cr_assert_eq(bundles, 3);
    cr_assert_eq(have, 0);
    cr_assert_eq(ldem_bundle_reader_next(r, &have, &version, &err), 0);
    cr_assert_eq(have, 0, "still at a clean end");
    cr_assert_eq(ldem_bundle_reader_offset(r), (int64_t)s.n);
    ldem_bundle_reader_close(r);
    fclose(fp);

    bytes_free(&s);
    for (int i = 0; i < 3; i++)
        ldem_bundle_free(&b[i]);
    fixture_free(&f1);
    fixture_free(&f2);
}

Test(bundle, empty_stream_is_a_clean_end)
{
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        ldem_bundle got[1];
        size_t n = 5;
        ldem_err err;
        static const unsigned char nothing[1];
        cr_assert_eq(read_stream(nothing, 0, (enum via)via, 0, got, 1, &n, &err), 0, "%s",
                     err.msg);
        cr_assert_eq(n, 0);
    }
}

/* ------------------------------------------------------------------------------------ */
/* Corruption: one specific error each                                                   */

/* A small valid bundle: META, an unknown tag with flags, an empty section, end. */
static bytes small_bundle(size_t *starts, size_t *nstarts)
{
    bytes s = {0};
    size_t k = 0;
    raw_header(&s, 1, 0);
    starts[k++] = raw_section(&s, "META", 0, "name=x\n", 7);
    starts[k++] = raw_section(&s, "XTRA", 5, "\x01\x02\x03\x04\x05", 5);
    starts[k++] = raw_section(&s, "EMTY", 0, NULL, 0);
    starts[k++] = raw_end(&s);
    *nstarts = k;
    return s;
}

Test(bundle, bad_magic)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    s.p[1] = 'X'; /* "\x89XDG..." */
    expect_input_error(&s, 0, "bad magic", NULL);
    s.p[1] = 'L';
    s.p[6] = '\r'; /* text-mode damage of "\x1a\n" */
    expect_input_error(&s, 0, "bad magic", NULL);
    /* Garbage where the second bundle should start: offset is that of the second. */
    s.p[6] = '\x1a';
    size_t first = s.n;
    bytes_add(&s, "GIF89a..........", 16);
    expect_input_error(&s, (long long)first, "bad magic", NULL);
    bytes_free(&s);
}

Test(bundle, unsupported_version)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    ldem_put_u32le(s.p + 8, 2);
    expect_input_error(&s, 0, "unsupported bundle version 2", NULL);
    ldem_put_u32le(s.p + 8, 0);
    expect_input_error(&s, 0, "unsupported bundle version 0", NULL);
    ldem_put_u32le(s.p + 8, 0xffffffffu);
    expect_input_error(&s, 0, "unsupported bundle version 4294967295", NULL);
    ldem_put_u32le(s.p + 8, 1);
    /* Header flags are reserved in version 1. */
    ldem_put_u32le(s.p + 12, 0x100);
    expect_input_error(&s, 12, "header flags", NULL);
    bytes_free(&s);
}

/* Where the error for a stream cut after `cut` bytes must point: the start of the unit
 * (bundle header or section) that the cut falls in. Returns 0 if the cut lies exactly at
 * a bundle boundary (a clean end), 1 otherwise; *tag_known is the tag of the section when
 * its 16-byte header was complete. */
static int expected_cut(const unsigned char *p, size_t n, size_t cut, size_t *unit,
                        char tag_known[5])
{
    size_t pos = 0;
    tag_known[0] = '\0';
    while (pos < n) {
        if (cut == pos)
            return 0; /* before a bundle header: the stream just ends */
        if (cut < pos + 16) {
            *unit = pos;
            return 1;
        }
        pos += 16;
        for (;;) {
            uint64_t len = ldem_get_u64le(p + pos + 8);
            size_t end = pos + 16 + (size_t)len + 4;
            int last = memcmp(p + pos, "ENDB", 4) == 0;
            if (cut >= pos && cut < end) {
                *unit = pos;
                if (cut >= pos + 16) {
                    memcpy(tag_known, p + pos, 4);
                    tag_known[4] = '\0';
                }
                return 1;
            }
            pos = end;
            if (last)
                break;
        }
    }
    cr_assert_fail("cut %zu beyond the stream", cut);
    return 1;
}

static void check_every_cut(const bytes *s, size_t from, size_t full_bundles_before)
{
    for (size_t cut = from; cut < s->n; cut++) {
        size_t unit = 0;
        char tag[5];
        int error = expected_cut(s->p, s->n, cut, &unit, tag);
        for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
            ldem_bundle got[4];
            size_t n = 0;
            ldem_err err;
            int rc = read_stream(s->p, cut, (enum via)via, 0, got, 4, &n, &err);
            free_bundles(got, n);
            if (!error) {
                cr_assert_eq(rc, LDEM_OK, "[%s] cut %zu at a bundle boundary: %s",
                             via_name[via], cut, err.msg);
                continue;
            }
            cr_assert_eq(rc, LDEM_ERR_INPUT, "[%s] cut at %zu of %zu bytes gave %d",
                         via_name[via], cut, s->n, rc);
            cr_assert_eq(n, full_bundles_before, "[%s] cut %zu: %zu whole bundles read",
                         via_name[via], cut, n);
            cr_assert(strstr(err.msg, "truncated"), "[%s] cut %zu: %s", via_name[via], cut,
                      err.msg);
            cr_assert_eq(err.offset, (long long)unit, "[%s] cut %zu: offset %lld, expected %zu",
                         via_name[via], cut, err.offset, unit);
            if (tag[0]) {
                char quoted[8];
                snprintf(quoted, sizeof quoted, "'%s'", tag);
                cr_assert(strstr(err.msg, quoted), "[%s] cut %zu: message lacks %s: %s",
                          via_name[via], cut, quoted, err.msg);
            }
        }
    }
}

Test(bundle, truncated_at_every_byte)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    check_every_cut(&s, 1, 0);
    bytes_free(&s);
}

Test(bundle, truncated_inside_second_of_two_bundles)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    size_t first = s.n;
    bytes two = small_bundle(st, &ns);
    bytes_add(&s, two.p, two.n);
    bytes_free(&two);
    /* Cutting exactly after the first bundle is a clean one-bundle stream; every cut
     * inside the second gives an error at a stream (not bundle-relative) offset. */
    check_every_cut(&s, first, 1);
    bytes_free(&s);
}

Test(bundle, trailing_bytes_after_a_bundle)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    size_t end = s.n;
    bytes_add(&s, "\x89LDG", 4);
    expect_input_error(&s, (long long)end, "truncated", "bundle header");
    bytes_free(&s);
}

Test(bundle, crc_mismatch_payload_bit)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    /* One bit of XTRA's payload. */
    s.p[st[1] + 16 + 2] ^= 0x10;
    expect_input_error(&s, (long long)st[1], "CRC mismatch", "'XTRA'");
    s.p[st[1] + 16 + 2] ^= 0x10;
    /* Every single bit of META's payload and of its stored CRC. */
    for (size_t byte = st[0] + 16; byte < st[1]; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            s.p[byte] ^= (unsigned char)(1u << bit);
            expect_input_error_via(&s, VIA_MEMORY, 0, (long long)st[0], "CRC mismatch",
                                   "'META'");
            s.p[byte] ^= (unsigned char)(1u << bit);
        }
    }
    bytes_free(&s);
}

Test(bundle, crc_mismatch_header_byte)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    s.p[st[1] + 4] ^= 0x01; /* XTRA's flags 5 -> 4: the CRC covers the header too */
    expect_input_error(&s, (long long)st[1], "CRC mismatch", "'XTRA'");
    s.p[st[1] + 4] ^= 0x01;
    s.p[st[2] + 7] ^= 0x80; /* EMTY's flags, top byte */
    expect_input_error(&s, (long long)st[2], "CRC mismatch", "'EMTY'");
    s.p[st[2] + 7] ^= 0x80;
    s.p[st[0]] = 'N'; /* META -> NETA: still a valid tag, but not what was checksummed */
    expect_input_error(&s, (long long)st[0], "CRC mismatch", "'NETA'");
    s.p[st[0]] = 'M';
    s.p[st[3] + 16] ^= 0xff; /* the end marker's own CRC */
    expect_input_error(&s, (long long)st[3], "CRC mismatch", "'ENDB'");
    bytes_free(&s);
}

Test(bundle, oversized_length_beyond_reader_limit)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    raw_section(&s, "META", 0, "a=b\n", 4);
    size_t at = raw_section_n(&s, "LSET", 0, UINT64_C(1) << 40, "abcd", 4);
    raw_end(&s);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        expect_input_error_via(&s, (enum via)via, UINT64_C(1) << 20, (long long)at,
                               "oversized length 1099511627776", "'LSET'");
        /* The default limit (64 GiB) refuses 1 TiB too. */
        expect_input_error_via(&s, (enum via)via, 0, (long long)at, "oversized", "'LSET'");
    }
    /* The limit applies to real sections as well: 4 bytes with a limit of 3. */
    bytes t = {0};
    raw_header(&t, 1, 0);
    size_t m = raw_section(&t, "META", 0, "a=b\n", 4);
    raw_end(&t);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        expect_input_error_via(&t, (enum via)via, 3, (long long)m, "oversized", "'META'");
        ldem_bundle got[1];
        size_t n = 0;
        ldem_err err;
        cr_assert_eq(read_stream(t.p, t.n, (enum via)via, 4, got, 1, &n, &err), 0,
                     "a section of exactly the limit is fine: %s", err.msg);
        free_bundles(got, n);
    }
    bytes_free(&s);
    bytes_free(&t);
}

/* Run `fn` in a child whose address space may grow by at most `headroom` bytes, so a
 * reader that trusted a length field with malloc would fail (NOMEM, or a sanitizer's
 * out-of-memory abort) instead of getting lucky with overcommit. Returns fn's result, or
 * -1 if the child did not exit normally. */
static int run_with_memory_limit(int (*fn)(void *), void *arg, size_t headroom)
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
        _exit(fn(arg));
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

typedef struct huge_case {
    const bytes *s;
    enum via via;
    size_t section_at;
} huge_case;

/* 0 when the stream fails as truncated at the section, else a distinct code. */
static int read_huge_claim(void *arg)
{
    const huge_case *hc = arg;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *fp = open_input(hc->s->p, hc->s->n, hc->via);
    ldem_bundle_reader *r;
    ldem_err err;
    ldem_err_clear(&err);
    if (ldem_bundle_reader_open(&r, fp, "huge", &err))
        return 10;
    ldem_bundle b;
    int have = 0;
    int rc = ldem_bundle_read(r, &b, &have, &err);
    ldem_bundle_reader_close(r);
    fclose(fp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (rc == LDEM_ERR_NOMEM)
        return 11; /* it tried to allocate what the length claimed */
    if (rc != LDEM_ERR_INPUT)
        return 12;
    if (!strstr(err.msg, "truncated") || !strstr(err.msg, "'LSET'"))
        return 13;
    if (err.offset != (long long)hc->section_at)
        return 14;
    if (seconds > 5.0)
        return 15;
    return 0;
}

/* A ~32 GiB length (below the default 64 GiB limit) on a stream of a few dozen bytes. */
Test(bundle, huge_claimed_length_fails_as_truncated_without_allocating)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    size_t at = raw_section_n(&s, "LSET", 0, (UINT64_C(1) << 35) + 12345, "tiny", 4);
    raw_end(&s);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        huge_case hc = {&s, (enum via)via, at};
        int rc = run_with_memory_limit(read_huge_claim, &hc, (size_t)256 << 20);
        cr_assert_eq(rc, 0, "[%s] child result %d (11: out of memory, -1: killed)",
                     via_name[via], rc);
    }
    /* A regular file knows its size: the message says what really follows. */
    expect_input_error_via(&s, VIA_FILE, 0, (long long)at, "only 28 bytes follow", "'LSET'");
    bytes_free(&s);
}

Test(bundle, duplicate_section)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    size_t first = raw_section(&s, "META", 0, "a=b\n", 4);
    raw_section(&s, "XTRA", 0, "x", 1);
    size_t second = raw_section(&s, "META", 0, "c=d\n", 4);
    raw_end(&s);
    char want[64];
    snprintf(want, sizeof want, "first at byte %zu", first);
    expect_input_error(&s, (long long)second, "duplicate section 'META'", want);
    bytes_free(&s);

    /* The same tag in two different bundles is fine. */
    bytes ok = {0};
    for (int i = 0; i < 2; i++) {
        raw_header(&ok, 1, 0);
        raw_section(&ok, "META", 0, "a=b\n", 4);
        raw_end(&ok);
    }
    ldem_bundle got[2];
    size_t n = 0;
    ldem_err err;
    cr_assert_eq(read_stream(ok.p, ok.n, VIA_MEMORY, 0, got, 2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    free_bundles(got, n);
    bytes_free(&ok);
}

Test(bundle, invalid_tag_bytes)
{
    static const char *const bad[] = {"ME\0A", "ME A", "\x7f\x45TA", "MET\x80", "\xff\xff\xff\xff",
                                      "\n\r\t\v"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bytes s = {0};
        raw_header(&s, 1, 0);
        raw_section(&s, "META", 0, "a=b\n", 4);
        size_t at = raw_section(&s, bad[i], 0, "x", 1);
        raw_end(&s);
        char hex[32];
        const unsigned char *t = (const unsigned char *)bad[i];
        snprintf(hex, sizeof hex, "(%02x %02x %02x %02x)", t[0], t[1], t[2], t[3]);
        expect_input_error(&s, (long long)at, "corrupt section header", hex);
        bytes_free(&s);
    }
}

Test(bundle, non_empty_end_marker)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    raw_section(&s, "META", 0, "a=b\n", 4);
    size_t at = raw_section(&s, "ENDB", 0, "more", 4);
    expect_input_error(&s, (long long)at, "corrupt end marker", "length 4");
    bytes_free(&s);

    bytes f = {0};
    raw_header(&f, 1, 0);
    at = raw_section(&f, "ENDB", 2, NULL, 0);
    expect_input_error(&f, (long long)at, "corrupt end marker", "flags 0x2");
    bytes_free(&f);
}

/* ------------------------------------------------------------------------------------ */
/* Reader and writer misuse                                                              */

Test(bundle, reader_api_misuse)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    FILE *fp = open_input(s.p, s.n, VIA_MEMORY);
    ldem_bundle_reader *r;
    ldem_err err;
    cr_assert_eq(ldem_bundle_reader_open(&r, fp, NULL, &err), 0);
    ldem_section sec;
    int end = 0, have = 0;
    cr_assert_eq(ldem_bundle_reader_section(r, &sec, &end, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_reader_next(r, &have, NULL, &err), 0);
    cr_assert_eq(have, 1);
    cr_assert_eq(ldem_bundle_reader_next(r, &have, NULL, &err), LDEM_ERR_USAGE);
    ldem_bundle_reader_close(r);
    fclose(fp);
    bytes_free(&s);
}

static FILE *memory_writer(char **buf, size_t *len)
{
    FILE *fp = open_memstream(buf, len);
    cr_assert_not_null(fp);
    return fp;
}

Test(bundle, writer_misuse)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = memory_writer(&buf, &len);
    ldem_bundle_writer w;
    ldem_err err;
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);

    /* Invalid tags: short, long, unprintable, space, the end marker. */
    static const char *const bad[] = {"AB", "ABCDE", "AB\x01\x44", "AB D", "ENDB", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ldem_err_clear(&err);
        cr_assert_eq(ldem_bundle_writer_section_begin(&w, bad[i], 0, 1, &err), LDEM_ERR_USAGE,
                     "tag %zu accepted", i);
        cr_assert(strstr(err.msg, "invalid section tag"), "%s", err.msg);
    }
    cr_assert_eq(ldem_bundle_writer_data(&w, "x", 1, &err), LDEM_ERR_USAGE, "data outside");
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), LDEM_ERR_USAGE, "end outside");

    /* Payload longer than declared. */
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "LONG", 0, 3, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "NEST", 0, 3, &err), LDEM_ERR_USAGE,
                 "a section inside a section");
    cr_assert_eq(ldem_bundle_writer_data(&w, "abcd", 4, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "exceeds the declared section length by 1"), "%s", err.msg);
    cr_assert_eq(ldem_bundle_writer_data(&w, "ab", 2, &err), 0);
    cr_assert_eq(ldem_bundle_writer_data(&w, "cd", 2, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_data(&w, "c", 1, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), 0);

    /* Payload shorter than declared. */
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "SHRT", 0, 10, &err), 0);
    cr_assert_eq(ldem_bundle_writer_data(&w, "abc", 3, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "7 bytes short"), "%s", err.msg);
    /* Ending the bundle with the section still open is refused too (and frees). */
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), LDEM_ERR_USAGE);
    fclose(fp);
    free(buf);

    /* Duplicate tag in one bundle; fine again in the next bundle. */
    buf = NULL;
    fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);
    ldem_section sec = {.tag = "DUPL", .flags = 0, .length = 2,
                        .data = (unsigned char *)"ab", .offset = -1};
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "'DUPL' written twice"), "%s", err.msg);
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "DUPL", 0, 0, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), 0);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    fclose(fp);
    /* What was written before and after the refused calls is two valid bundles. */
    ldem_bundle got[2];
    size_t n = 0;
    cr_assert_eq(read_stream((unsigned char *)buf, len, VIA_MEMORY, 0, got, 2, &n, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(n, 2);
    free_bundles(got, n);
    free(buf);

    /* Many distinct tags (grows the writer's tag list). */
    buf = NULL;
    fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "many", &err), 0);
    for (int i = 0; i < 100; i++) {
        char tag[5];
        snprintf(tag, sizeof tag, "T%03d", i);
        cr_assert_eq(ldem_bundle_writer_section_begin(&w, tag, 0, 0, &err), 0);
        cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), 0);
    }
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "T042", 0, 0, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    fclose(fp);
    n = 0;
    cr_assert_eq(read_stream((unsigned char *)buf, len, VIA_MEMORY, 0, got, 2, &n, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(got[0].count, 100);
    free_bundles(got, n);
    free(buf);
}

/* ldem_bundle_write refuses an in-memory bundle that breaks the rules (built by hand). */
Test(bundle, write_refuses_inconsistent_bundle)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "AAAA", 0, "1", 1, &err), 0);
    cr_assert_eq(ldem_bundle_put_copy(&b, "BBBB", 0, "2", 1, &err), 0);
    memcpy(b.sections[1].tag, "AAAA", 5); /* duplicate by hand */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_write(fp, "dup", &b, &err), LDEM_ERR_USAGE);
    memcpy(b.sections[1].tag, "B\tBB", 5); /* invalid by hand */
    cr_assert_eq(ldem_bundle_write(fp, "bad", &b, &err), LDEM_ERR_USAGE);
    fclose(fp);
    free(buf);
    ldem_bundle_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* In-memory bundle operations                                                           */

Test(bundle, put_replaces_in_place_and_remove)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    /* More than the initial capacity, to exercise growth. */
    for (int i = 0; i < 20; i++) {
        char tag[5];
        snprintf(tag, sizeof tag, "S%03d", i);
        cr_assert_eq(ldem_bundle_put_copy(&b, tag, (uint32_t)i, tag, 4, &err), 0);
    }
    cr_assert_eq(b.count, 20);
    cr_assert_null(ldem_bundle_find(&b, "NONE"));

    /* Replace S005: same position, new flags, length and bytes. */
    unsigned char *d = malloc(3);
    memcpy(d, "new", 3);
    cr_assert_eq(ldem_bundle_put(&b, "S005", 0x77, d, 3, &err), 0);
    cr_assert_eq(b.count, 20);
    cr_assert_str_eq(b.sections[5].tag, "S005");
    cr_assert_eq(b.sections[5].flags, 0x77u);
    cr_assert_eq(b.sections[5].length, 3);
    cr_assert_eq(memcmp(b.sections[5].data, "new", 3), 0);
    cr_assert_eq(ldem_bundle_find(&b, "S005"), &b.sections[5]);
    /* Replace with an empty payload (the data pointer given is freed, stored as NULL). */
    cr_assert_eq(ldem_bundle_put(&b, "S006", 1, malloc(8), 0, &err), 0);
    cr_assert_eq(b.sections[6].length, 0);
    cr_assert_null(b.sections[6].data);

    /* Remove keeps the order of the rest. */
    cr_assert_eq(ldem_bundle_remove(&b, "S000"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S019"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S010"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S010"), 0, "already gone");
    cr_assert_eq(ldem_bundle_remove(&b, "NONE"), 0);
    cr_assert_eq(b.count, 17);
    int expect = 1;
    for (size_t i = 0; i < b.count; i++, expect++) {
        if (expect == 10)
            expect++;
        char tag[16];
        snprintf(tag, sizeof tag, "S%03d", expect);
        cr_assert_str_eq(b.sections[i].tag, tag);
    }
    cr_assert_null(ldem_bundle_find(&b, "S010"));

    /* Invalid tags are refused, and the payload handed over is still freed (ASan). */
    cr_assert_eq(ldem_bundle_put(&b, "ENDB", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "AB", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "AB CD", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "GOOD", 0, NULL, 4, &err), LDEM_ERR_USAGE, "no payload");
    cr_assert_eq(b.count, 17);

    /* The bundle written after all that reads back the same. */
    bytes s = write_to_memory(&b);
    ldem_bundle got[1];
    size_t n = 0;
    cr_assert_eq(read_stream(s.p, s.n, VIA_MEMORY, 0, got, 1, &n, &err), 0, "%s", err.msg);
    check_same_sections(&got[0], &b);
    free_bundles(got, n);
    bytes_free(&s);

    ldem_bundle_free(&b);
    cr_assert_eq(b.count, 0);
    cr_assert_null(b.sections);
    ldem_bundle_free(&b); /* twice is harmless */
}

/* Looking up a tag that is not four characters finds nothing and reads nothing beyond it
 * (ASan flags an over-read of the short string literal). */
Test(bundle, find_and_remove_with_malformed_tags)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "ABCD", 0, "x", 1, &err), 0);
    cr_assert_null(ldem_bundle_find(&b, "AB"));
    cr_assert_null(ldem_bundle_find(&b, ""));
    cr_assert_null(ldem_bundle_find(&b, "ABCDE"), "a longer tag is not a match");
    cr_assert_eq(ldem_bundle_remove(&b, "ABC"), 0);
    cr_assert_eq(ldem_bundle_remove(&b, "ABCDX"), 0);
    cr_assert_eq(b.count, 1);
    cr_assert_not_null(ldem_bundle_find(&b, "ABCD"));
    ldem_bundle_free(&b);
}

Test(bundle, tag_validity)
{
    cr_assert(ldem_tag_is_valid("META"));
    cr_assert(ldem_tag_is_valid("!~09"));
    cr_assert(!ldem_tag_is_valid("ENDB"));
    cr_assert(!ldem_tag_is_valid("ABC"));
    cr_assert(!ldem_tag_is_valid("ABCDE"));
    cr_assert(!ldem_tag_is_valid("AB D"));
    cr_assert(!ldem_tag_is_valid("AB\x7f" "D"));
    cr_assert(!ldem_tag_is_valid(NULL));
}
