#include "payload.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bytes.h"

void cursor_init(payload_cursor *c, const ldem_section *s, const char *source, ldem_err *err)
{
    c->p = s->data;
    c->len = s->length;
    c->pos = 0;
    c->tag = s->tag;
    c->source = source;
    c->base = s->offset >= 0 ? s->offset + LDEM_SECTION_HEADER_SIZE : -1;
    c->err = err;
}

int cursor_fail(payload_cursor *c, const char *fmt, ...)
{
    char what[LDEM_ERR_MSG_MAX - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* Point at the byte in the stream when we know where the payload lives. */
    if (c->base >= 0)
        return ldem_err_set_offset(c->err, LDEM_ERR_INPUT, c->source,
                                   c->base + (int64_t)c->pos, "section '%s': %s", c->tag, what);
    return ldem_err_set(c->err, LDEM_ERR_INPUT, c->source, 0,
                        "section '%s', payload byte %llu: %s", c->tag,
                        (unsigned long long)c->pos, what);
}

uint64_t first_nonfinite_f64(const double *a, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return i;
    return n;
}

uint64_t first_nonfinite_f32(const float *a, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return i;
    return n;
}

int mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

int cursor_need(payload_cursor *c, uint64_t n, uint64_t width, const char *what)
{
    uint64_t bytes, left = c->len - c->pos;
    if (!mul_u64(n, width, &bytes))
        return cursor_fail(c, "%s: %llu entries of %llu bytes overflow any size", what,
                           (unsigned long long)n, (unsigned long long)width);
    if (bytes > left)
        return cursor_fail(c, "%s: %llu entries need %llu bytes but only %llu remain", what,
                           (unsigned long long)n, (unsigned long long)bytes,
                           (unsigned long long)left);
    return LDEM_OK;
}

int cursor_u32(payload_cursor *c, uint32_t *v)
{
    int rc = cursor_need(c, 1, 4, "u32 field");
    if (!rc) {
        *v = ldem_get_u32le(c->p + c->pos);
        c->pos += 4;
    }
    return rc;
}

int cursor_u64(payload_cursor *c, uint64_t *v)
{
    int rc = cursor_need(c, 1, 8, "u64 field");
    if (!rc) {
        *v = ldem_get_u64le(c->p + c->pos);
        c->pos += 8;
    }
    return rc;
}

int cursor_f64(payload_cursor *c, double *v)
{
    int rc = cursor_need(c, 1, 8, "f64 field");
    if (!rc) {
        *v = ldem_get_f64le(c->p + c->pos);
        c->pos += 8;
    }
    return rc;
}

static void *alloc_checked(payload_cursor *c, uint64_t n, uint64_t width, const char *what,
                           int *rc)
{
    *rc = cursor_need(c, n, width, what);
    if (*rc || n == 0)
        return NULL;
    void *p = malloc((size_t)(n * width));
    if (!p)
        *rc = ldem_err_set(c->err, LDEM_ERR_NOMEM, c->source, 0, "out of memory for %s", what);
    return p;
}

int cursor_f64_array(payload_cursor *c, uint64_t n, double **out, const char *what)
{
    int rc;
    double *a = alloc_checked(c, n, 8, what, &rc);
    for (uint64_t i = 0; a && i < n; i++, c->pos += 8)
        a[i] = ldem_get_f64le(c->p + c->pos);
    *out = a;
    return rc;
}

int cursor_f32_array(payload_cursor *c, uint64_t n, float **out, const char *what)
{
    int rc;
    float *a = alloc_checked(c, n, 4, what, &rc);
    for (uint64_t i = 0; a && i < n; i++, c->pos += 4)
        a[i] = ldem_get_f32le(c->p + c->pos);
    *out = a;
    return rc;
}

int cursor_u32_array(payload_cursor *c, uint64_t n, uint32_t **out, const char *what)
{
    int rc;
    uint32_t *a = alloc_checked(c, n, 4, what, &rc);
    for (uint64_t i = 0; a && i < n; i++, c->pos += 4)
        a[i] = ldem_get_u32le(c->p + c->pos);
    *out = a;
    return rc;
}

int cursor_bytes(payload_cursor *c, uint64_t n, const unsigned char **out, const char *what)
{
    int rc = cursor_need(c, n, 1, what);
    *out = rc ? NULL : c->p + c->pos;
    if (!rc)
        c->pos += n;
    return rc;
}

int cursor_finish(payload_cursor *c)
{
    if (c->pos != c->len)
        return cursor_fail(c, "%llu unexpected bytes after the data",
                           (unsigned long long)(c->len - c->pos));
    return LDEM_OK;
}

int buffer_init(payload_buffer *b, uint64_t size, ldem_err *err)
{
    memset(b, 0, sizeof *b);
    if (size > SIZE_MAX)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "payload too large for this host");
    b->data = malloc(size ? (size_t)size : 1);
    if (!b->data)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    b->cap = size;
    return LDEM_OK;
}

static unsigned char *claim(payload_buffer *b, uint64_t n)
{
    if (b->failed || n > b->cap - b->len) {
        b->failed = 1;
        return NULL;
    }
    unsigned char *p = b->data + b->len;
    b->len += n;
    return p;
}

void buffer_u32(payload_buffer *b, uint32_t v)
{
    unsigned char *p = claim(b, 4);
    if (p)
        ldem_put_u32le(p, v);
}

void buffer_u64(payload_buffer *b, uint64_t v)
{
    unsigned char *p = claim(b, 8);
    if (p)
        ldem_put_u64le(p, v);
}

void buffer_f64(payload_buffer *b, double v)
{
    unsigned char *p = claim(b, 8);
    if (p)
        ldem_put_f64le(p, v);
}

void buffer_f64_array(payload_buffer *b, const double *v, uint64_t n)
{
    unsigned char *p = n ? claim(b, 8 * n) : NULL;
    for (uint64_t i = 0; p && i < n; i++)
        ldem_put_f64le(p + 8 * i, v[i]);
}

void buffer_f32_array(payload_buffer *b, const float *v, uint64_t n)
{
    unsigned char *p = n ? claim(b, 4 * n) : NULL;
    for (uint64_t i = 0; p && i < n; i++)
        ldem_put_f32le(p + 4 * i, v[i]);
}

void buffer_u32_array(payload_buffer *b, const uint32_t *v, uint64_t n)
{
    unsigned char *p = n ? claim(b, 4 * n) : NULL;
    for (uint64_t i = 0; p && i < n; i++)
        ldem_put_u32le(p + 4 * i, v[i]);
}

void buffer_bytes(payload_buffer *b, const void *v, uint64_t n)
{
    unsigned char *p = n ? claim(b, n) : NULL;
    if (p)
        memcpy(p, v, (size_t)n);
}

int buffer_finish(payload_buffer *b, unsigned char **data, uint64_t *len, ldem_err *err)
{
    if (b->failed || b->len != b->cap) {
        free(b->data);
        memset(b, 0, sizeof *b);
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "section encoder wrote a different size than it computed");
    }
    *data = b->data;
    *len = b->len;
    b->data = NULL;
    return LDEM_OK;
}
