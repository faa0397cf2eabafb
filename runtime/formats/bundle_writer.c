/* Streaming bundle writer. A section's length is declared up front and its payload may be
 * fed in pieces, so a tool can stream a large level set without holding it twice. */
#include "ldem/bundle.h"
#include "ldem/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int put(ldem_bundle_writer *w, const void *p, size_t n, ldem_err *err)
{
    if (n && fwrite(p, 1, n, w->fp) != n)
        return ldem_err_set(err, LDEM_ERR_IO, w->name, 0, "write failed: %s", strerror(errno));
    return LDEM_OK;
}

int ldem_bundle_writer_begin(ldem_bundle_writer *w, FILE *fp, const char *name, ldem_err *err)
{
    memset(w, 0, sizeof *w);
    w->fp = fp;
    w->name = name ? name : "<stream>";
    unsigned char h[LDEM_BUNDLE_HEADER_SIZE];
    memcpy(h, LDEM_BUNDLE_MAGIC, LDEM_BUNDLE_MAGIC_SIZE);
    ldem_put_u32le(h + 8, LDEM_BUNDLE_VERSION);
    ldem_put_u32le(h + 12, 0); /* header flags: none defined in version 1 */
    return put(w, h, sizeof h, err);
}

static int claim_tag(ldem_bundle_writer *w, const char *tag, ldem_err *err)
{
    for (size_t i = 0; i < w->ntags; i++)
        if (memcmp(w->tags[i], tag, 4) == 0)
            return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                                "section '%s' written twice in one bundle", tag);
    if (w->ntags == w->tags_capacity) {
        size_t cap = w->tags_capacity ? 2 * w->tags_capacity : 16;
        char(*g)[5] = realloc(w->tags, cap * sizeof *g);
        if (!g)
            return ldem_err_set(err, LDEM_ERR_NOMEM, w->name, 0, "out of memory");
        w->tags = g;
        w->tags_capacity = cap;
    }
    memcpy(w->tags[w->ntags++], tag, 5);
    return LDEM_OK;
}

static int section_header(ldem_bundle_writer *w, const char *tag, uint32_t flags,
                          uint64_t length, ldem_err *err)
{
    unsigned char h[LDEM_SECTION_HEADER_SIZE];
    memcpy(h, tag, 4);
    ldem_put_u32le(h + 4, flags);
    ldem_put_u64le(h + 8, length);
    /* The CRC covers the header too, so a flipped length or flag is caught as well. */
    w->crc = crc32_z(0L, h, sizeof h);
    w->remaining = length;
    w->in_section = 1;
    return put(w, h, sizeof h, err);
}

int ldem_bundle_writer_section_begin(ldem_bundle_writer *w, const char *tag, uint32_t flags,
                                     uint64_t length, ldem_err *err)
{
    if (w->in_section)
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                            "section '%s' begun while another is open", tag);
    if (!ldem_tag_is_valid(tag))
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                            "invalid section tag (need four printable ASCII characters, not "
                            "the end marker)");
    int rc = claim_tag(w, tag, err);
    if (rc)
        return rc;
    return section_header(w, tag, flags, length, err);
}

int ldem_bundle_writer_data(ldem_bundle_writer *w, const void *data, size_t n, ldem_err *err)
{
    if (!w->in_section)
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0, "payload written outside a section");
    if ((uint64_t)n > w->remaining)
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                            "payload exceeds the declared section length by %llu bytes",
                            (unsigned long long)((uint64_t)n - w->remaining));
    if (n)
        w->crc = crc32_z(w->crc, data, (z_size_t)n);
    w->remaining -= n;
    return put(w, data, n, err);
}

int ldem_bundle_writer_section_end(ldem_bundle_writer *w, ldem_err *err)
{
    if (!w->in_section)
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0, "no open section to end");
    if (w->remaining)
        return ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                            "section ended %llu bytes short of its declared length",
                            (unsigned long long)w->remaining);
    unsigned char t[LDEM_SECTION_TRAILER_SIZE];
    ldem_put_u32le(t, (uint32_t)w->crc);
    w->in_section = 0;
    return put(w, t, sizeof t, err);
}

int ldem_bundle_writer_section(ldem_bundle_writer *w, const ldem_section *s, ldem_err *err)
{
    int rc = ldem_bundle_writer_section_begin(w, s->tag, s->flags, s->length, err);
    if (!rc && s->length > SIZE_MAX)
        rc = ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0, "section too large for this host");
    if (!rc)
        rc = ldem_bundle_writer_data(w, s->data, (size_t)s->length, err);
    if (!rc)
        rc = ldem_bundle_writer_section_end(w, err);
    return rc;
}

void ldem_bundle_writer_discard(ldem_bundle_writer *w)
{
    free(w->tags);
    w->tags = NULL;
    w->ntags = w->tags_capacity = 0;
}

int ldem_bundle_writer_end(ldem_bundle_writer *w, ldem_err *err)
{
    int rc = LDEM_OK;
    if (w->in_section)
        rc = ldem_err_set(err, LDEM_ERR_USAGE, w->name, 0,
                          "bundle ended inside an unfinished section");
    if (!rc)
        rc = section_header(w, LDEM_BUNDLE_END_TAG, 0, 0, err);
    if (!rc)
        rc = ldem_bundle_writer_section_end(w, err);
    if (!rc && fflush(w->fp) != 0)
        rc = ldem_err_set(err, LDEM_ERR_IO, w->name, 0, "write failed: %s", strerror(errno));
    ldem_bundle_writer_discard(w);
    return rc;
}

int ldem_bundle_write(FILE *fp, const char *name, const ldem_bundle *b, ldem_err *err)
{
    ldem_bundle_writer w;
    int rc = ldem_bundle_writer_begin(&w, fp, name, err);
    for (size_t i = 0; !rc && i < b->count; i++)
        rc = ldem_bundle_writer_section(&w, &b->sections[i], err);
    if (rc) {
        ldem_bundle_writer_discard(&w);
        return rc;
    }
    return ldem_bundle_writer_end(&w, err);
}
