/* Hand-made bundle streams and the three ways of reading them back: see bundle_streams.h. */
#include "bundle_streams.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ldem/bytes.h"

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) written independently of the library,
 * so a writer and reader that agree on a wrong checksum are still caught. */
uint32_t crc32_ref(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void bytes_add(bytes *b, const void *data, size_t n)
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

void bytes_free(bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void raw_header(bytes *b, uint32_t version, uint32_t flags)
{
    unsigned char h[16];
    memcpy(h, LDEM_BUNDLE_MAGIC, 8);
    ldem_put_u32le(h + 8, version);
    ldem_put_u32le(h + 12, flags);
    bytes_add(b, h, sizeof h);
}

/* A section whose header claims `length` bytes; `n` bytes of payload are actually
 * written, followed by a correct CRC over what was written. Returns its offset. */
size_t raw_section_n(bytes *b, const char tag[4], uint32_t flags, uint64_t length,
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

size_t raw_section(bytes *b, const char tag[4], uint32_t flags, const void *payload,
                   size_t n)
{
    return raw_section_n(b, tag, flags, n, payload, n);
}

size_t raw_end(bytes *b)
{
    return raw_section(b, "ENDB", 0, NULL, 0);
}

/* Write a bundle with ldem_bundle_write into memory. */
bytes write_to_memory(const ldem_bundle *b)
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

const char *const via_name[] = {"memory", "regular file", "pipe"};

/* A read stream over `n` bytes of `p`: a memory stream, a regular file (size known to the
 * reader), or a pipe (size unknown, like stdin in a shell pipeline). */
FILE *open_input(const unsigned char *p, size_t n, enum via via)
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
int read_stream(const unsigned char *p, size_t n, enum via via, uint64_t max_section,
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

void free_bundles(ldem_bundle *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ldem_bundle_free(&b[i]);
}

/* A small valid bundle: META, an unknown tag with flags, an empty section, end. */
bytes small_bundle(size_t *starts, size_t *nstarts)
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

/* Same sections (tags, order, flags, lengths, bytes) in both bundles. */
void check_same_sections(const ldem_bundle *got, const ldem_bundle *want)
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
