/* Streaming bundle reader: validates the container as it reads and never allocates more
 * than the stream can justify. Every error names the section and its byte offset. */
#include "ldem/bundle.h"
#include "ldem/bytes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* First allocation for a payload; it then doubles only as bytes really arrive. */
#define FIRST_CHUNK ((uint64_t)1 << 20)

struct ldem_bundle_reader {
    FILE *fp;
    char *name;
    int64_t offset;        /* bytes consumed since open */
    int64_t stream_size;   /* bytes available from open to end, -1 if unknown (pipe) */
    uint64_t max_section;
    int in_bundle;
    /* Tags seen in the current bundle and where, to report duplicates. */
    size_t nseen, seen_capacity;
    struct seen_tag { char tag[5]; int64_t offset; } *seen;
};

int ldem_bundle_reader_open(ldem_bundle_reader **out, FILE *fp, const char *name, ldem_err *err)
{
    *out = NULL;
    ldem_bundle_reader *r = calloc(1, sizeof *r);
    if (r)
        r->name = strdup(name ? name : "<stream>");
    if (!r || !r->name) {
        free(r);
        return ldem_err_set(err, LDEM_ERR_NOMEM, name, 0, "out of memory");
    }
    r->fp = fp;
    r->max_section = LDEM_BUNDLE_DEFAULT_MAX_SECTION;
    r->stream_size = -1;
    /* A regular file tells us how much is left, so a corrupt length is caught before any
     * reading; pipes and memory streams fall back to incremental allocation. */
    int fd = fileno(fp);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t pos = ftello(fp);
        if (pos >= 0 && st.st_size >= pos)
            r->stream_size = (int64_t)(st.st_size - pos);
    }
    *out = r;
    return LDEM_OK;
}

void ldem_bundle_reader_close(ldem_bundle_reader *r)
{
    if (!r)
        return;
    free(r->seen);
    free(r->name);
    free(r);
}

void ldem_bundle_reader_set_max_section(ldem_bundle_reader *r, uint64_t max_bytes)
{
    r->max_section = max_bytes;
}

int64_t ldem_bundle_reader_offset(const ldem_bundle_reader *r)
{
    return r->offset;
}

static size_t read_bytes(ldem_bundle_reader *r, void *buf, size_t n)
{
    size_t got = fread(buf, 1, n, r->fp);
    r->offset += (int64_t)got;
    return got;
}

static int io_or_truncated(ldem_bundle_reader *r, int64_t at, const char *what, ldem_err *err)
{
    if (ferror(r->fp))
        return ldem_err_set_offset(err, LDEM_ERR_IO, r->name, r->offset, "read error in %s",
                                   what);
    return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                               "truncated stream: %s ends at byte %lld", what,
                               (long long)r->offset);
}

int ldem_bundle_reader_next(ldem_bundle_reader *r, int *have, uint32_t *version, ldem_err *err)
{
    *have = 0;
    if (r->in_bundle)
        return ldem_err_set(err, LDEM_ERR_USAGE, r->name, 0,
                            "next bundle requested before the current one was read to its end");
    unsigned char h[LDEM_BUNDLE_HEADER_SIZE];
    int64_t at = r->offset;
    size_t got = read_bytes(r, h, sizeof h);
    if (got == 0 && !ferror(r->fp))
        return LDEM_OK; /* clean end of stream: no more bundles */
    if (got < sizeof h)
        return io_or_truncated(r, at, "bundle header", err);
    if (memcmp(h, LDEM_BUNDLE_MAGIC, LDEM_BUNDLE_MAGIC_SIZE) != 0)
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "bad magic: not an ldem grain bundle (.ldg)");
    uint32_t v = ldem_get_u32le(h + 8), flags = ldem_get_u32le(h + 12);
    if (v == 0 || v > LDEM_BUNDLE_VERSION)
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "unsupported bundle version %u (this build reads 1 to %u)",
                                   v, LDEM_BUNDLE_VERSION);
    if (flags != 0)
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at + 12,
                                   "unsupported bundle header flags 0x%08x (version 1 has none)",
                                   flags);
    r->in_bundle = 1;
    r->nseen = 0;
    *have = 1;
    if (version)
        *version = v;
    return LDEM_OK;
}

static int remember_tag(ldem_bundle_reader *r, const char *tag, int64_t at, ldem_err *err)
{
    for (size_t i = 0; i < r->nseen; i++)
        if (memcmp(r->seen[i].tag, tag, 4) == 0)
            return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                       "duplicate section '%s' (first at byte %lld)", tag,
                                       (long long)r->seen[i].offset);
    if (r->nseen == r->seen_capacity) {
        size_t cap = r->seen_capacity ? 2 * r->seen_capacity : 16;
        struct seen_tag *g = realloc(r->seen, cap * sizeof *g);
        if (!g)
            return ldem_err_set(err, LDEM_ERR_NOMEM, r->name, 0, "out of memory");
        r->seen = g;
        r->seen_capacity = cap;
    }
    memcpy(r->seen[r->nseen].tag, tag, 5);
    r->seen[r->nseen].offset = at;
    r->nseen++;
    return LDEM_OK;
}

/* Read `length` payload bytes, growing the buffer only as data arrives. */
static int read_payload(ldem_bundle_reader *r, const char *tag, int64_t at, uint64_t length,
                        unsigned char **out, ldem_err *err)
{
    *out = NULL;
    if (length == 0)
        return LDEM_OK;
    unsigned char *buf = NULL;
    uint64_t have = 0, cap = 0;
    while (have < length) {
        if (have == cap) {
            uint64_t want = cap ? 2 * cap : FIRST_CHUNK;
            if (want > length)
                want = length;
            if (want > SIZE_MAX) {
                free(buf);
                return ldem_err_set_offset(err, LDEM_ERR_NOMEM, r->name, at,
                                           "section '%s' does not fit in memory", tag);
            }
            unsigned char *g = realloc(buf, (size_t)want);
            if (!g) {
                free(buf);
                return ldem_err_set_offset(err, LDEM_ERR_NOMEM, r->name, at,
                                           "out of memory reading section '%s'", tag);
            }
            buf = g;
            cap = want;
        }
        size_t asked = (size_t)(cap - have);
        size_t got = read_bytes(r, buf + have, asked);
        have += got;
        if (got < asked) {
            free(buf);
            char what[64];
            snprintf(what, sizeof what, "payload of section '%s'", tag);
            return io_or_truncated(r, at, what, err);
        }
    }
    *out = buf;
    return LDEM_OK;
}

static unsigned long crc_of(const unsigned char *header, const unsigned char *data, uint64_t n)
{
    unsigned long crc = crc32_z(0L, header, LDEM_SECTION_HEADER_SIZE);
    if (n)
        crc = crc32_z(crc, data, (z_size_t)n);
    return crc;
}

static void tag_for_message(const unsigned char *raw, char *out)
{
    for (int i = 0; i < 4; i++)
        out[i] = (raw[i] >= 0x21 && raw[i] <= 0x7e) ? (char)raw[i] : '?';
    out[4] = '\0';
}

int ldem_bundle_reader_section(ldem_bundle_reader *r, ldem_section *s, int *is_end,
                               ldem_err *err)
{
    *is_end = 0;
    if (!r->in_bundle)
        return ldem_err_set(err, LDEM_ERR_USAGE, r->name, 0,
                            "section requested outside a bundle (call next first)");
    unsigned char h[LDEM_SECTION_HEADER_SIZE];
    int64_t at = r->offset;
    if (read_bytes(r, h, sizeof h) < sizeof h)
        return io_or_truncated(r, at, "section header", err);
    char tag[5];
    memcpy(tag, h, 4);
    tag[4] = '\0';
    uint32_t flags = ldem_get_u32le(h + 4);
    uint64_t length = ldem_get_u64le(h + 8);
    int end = memcmp(tag, LDEM_BUNDLE_END_TAG, 4) == 0;
    if (!end && !ldem_tag_is_valid(tag)) {
        char shown[5];
        tag_for_message(h, shown);
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "corrupt section header: tag '%s' (%02x %02x %02x %02x) is "
                                   "not four printable characters",
                                   shown, h[0], h[1], h[2], h[3]);
    }
    if (end && (length != 0 || flags != 0))
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "corrupt end marker: length %llu and flags 0x%x must be 0",
                                   (unsigned long long)length, flags);
    if (length > r->max_section)
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "section '%s': oversized length %llu bytes (limit %llu)", tag,
                                   (unsigned long long)length,
                                   (unsigned long long)r->max_section);
    if (r->stream_size >= 0) {
        uint64_t left = r->stream_size > r->offset ? (uint64_t)(r->stream_size - r->offset) : 0;
        if (length > left || left - length < LDEM_SECTION_TRAILER_SIZE)
            return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                       "truncated stream: section '%s' claims %llu payload "
                                       "bytes but only %llu bytes follow its header",
                                       tag, (unsigned long long)length,
                                       (unsigned long long)left);
    }
    if (!end) {
        int rc = remember_tag(r, tag, at, err);
        if (rc)
            return rc;
    }
    unsigned char *data = NULL;
    int rc = read_payload(r, tag, at, length, &data, err);
    if (rc)
        return rc;
    unsigned char t[LDEM_SECTION_TRAILER_SIZE];
    if (read_bytes(r, t, sizeof t) < sizeof t) {
        free(data);
        char what[64];
        snprintf(what, sizeof what, "CRC of section '%s'", tag);
        return io_or_truncated(r, at, what, err);
    }
    unsigned long stored = ldem_get_u32le(t), computed = crc_of(h, data, length);
    if (stored != computed) {
        free(data);
        return ldem_err_set_offset(err, LDEM_ERR_INPUT, r->name, at,
                                   "section '%s': CRC mismatch (stored 0x%08lx, computed "
                                   "0x%08lx): the data is corrupt",
                                   tag, stored, computed);
    }
    if (end) {
        r->in_bundle = 0;
        *is_end = 1;
        return LDEM_OK;
    }
    memcpy(s->tag, tag, 5);
    s->flags = flags;
    s->length = length;
    s->data = data;
    s->offset = at;
    return LDEM_OK;
}

int ldem_bundle_read(ldem_bundle_reader *r, ldem_bundle *b, int *have, ldem_err *err)
{
    ldem_bundle_init(b);
    uint32_t version = 0;
    int rc = ldem_bundle_reader_next(r, have, &version, err);
    if (rc || !*have)
        return rc;
    b->version = version;
    for (;;) {
        ldem_section s;
        int end = 0;
        rc = ldem_bundle_reader_section(r, &s, &end, err);
        if (rc)
            break;
        if (end)
            return LDEM_OK;
        int64_t at = s.offset;
        /* The reader already refused duplicates, so put() only appends. */
        rc = ldem_bundle_put(b, s.tag, s.flags, s.data, s.length, err);
        if (rc)
            break;
        b->sections[b->count - 1].offset = at;
    }
    ldem_bundle_free(b);
    *have = 0;
    return rc;
}
