/* In-memory bundles: an ordered list of sections with unique tags. */
#include "ldem/bundle.h"

#include <stdlib.h>
#include <string.h>

int ldem_tag_is_valid(const char *tag)
{
    if (!tag)
        return 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)tag[i];
        /* Printable, no space: a tag is also a word in ldg-info's output and in docs. */
        if (c < 0x21 || c > 0x7e)
            return 0;
    }
    if (tag[4] != '\0')
        return 0;
    return memcmp(tag, LDEM_BUNDLE_END_TAG, 4) != 0;
}

void ldem_bundle_init(ldem_bundle *b)
{
    b->version = LDEM_BUNDLE_VERSION;
    b->count = 0;
    b->capacity = 0;
    b->sections = NULL;
}

void ldem_section_free(ldem_section *s)
{
    if (!s)
        return;
    free(s->data);
    s->data = NULL;
    s->length = 0;
}

void ldem_bundle_free(ldem_bundle *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->count; i++)
        ldem_section_free(&b->sections[i]);
    free(b->sections);
    ldem_bundle_init(b);
}

static ldem_section *find_mutable(const ldem_bundle *b, const char *tag)
{
    /* strncmp, not memcmp: a caller's tag may be shorter than four characters (no match,
     * and no read past its end) or longer (no match either). */
    for (size_t i = 0; i < b->count; i++)
        if (strncmp(b->sections[i].tag, tag, 5) == 0)
            return &b->sections[i];
    return NULL;
}

const ldem_section *ldem_bundle_find(const ldem_bundle *b, const char *tag)
{
    return find_mutable(b, tag);
}

int ldem_bundle_put(ldem_bundle *b, const char *tag, uint32_t flags, unsigned char *data,
                    uint64_t length, ldem_err *err)
{
    if (!ldem_tag_is_valid(tag)) {
        free(data);
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "invalid section tag (need four printable ASCII characters)");
    }
    if (length > 0 && !data)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "section %s: no payload given", tag);
    ldem_section *s = find_mutable(b, tag);
    if (!s) {
        if (b->count == b->capacity) {
            size_t cap = b->capacity ? 2 * b->capacity : 8;
            ldem_section *grown = realloc(b->sections, cap * sizeof *grown);
            if (!grown) {
                free(data);
                return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
            }
            b->sections = grown;
            b->capacity = cap;
        }
        s = &b->sections[b->count++];
        memset(s, 0, sizeof *s);
        memcpy(s->tag, tag, 5);
    }
    free(s->data);
    s->flags = flags;
    s->length = length;
    s->data = length ? data : NULL;
    s->offset = -1;
    if (!length)
        free(data);
    return LDEM_OK;
}

int ldem_bundle_put_copy(ldem_bundle *b, const char *tag, uint32_t flags, const void *data,
                         uint64_t length, ldem_err *err)
{
    unsigned char *copy = NULL;
    if (length > 0) {
        if (length > SIZE_MAX || !(copy = malloc((size_t)length)))
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
        memcpy(copy, data, (size_t)length);
    }
    return ldem_bundle_put(b, tag, flags, copy, length, err);
}

int ldem_bundle_remove(ldem_bundle *b, const char *tag)
{
    ldem_section *s = find_mutable(b, tag);
    if (!s)
        return 0;
    ldem_section_free(s);
    size_t i = (size_t)(s - b->sections);
    memmove(s, s + 1, (b->count - i - 1) * sizeof *s);
    b->count--;
    return 1;
}
