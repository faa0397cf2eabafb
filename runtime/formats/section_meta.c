/* META: human-readable key=value lines, so `ldg-info` and `strings` show provenance. */
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

void ldem_meta_init(ldem_meta *m)
{
    memset(m, 0, sizeof *m);
}

void ldem_meta_free(ldem_meta *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->keys[i]);
        free(m->values[i]);
    }
    free(m->keys);
    free(m->values);
    ldem_meta_init(m);
}

static int key_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

/* Why the key or value is unacceptable, or NULL when fine. */
static const char *check_entry(const char *key, size_t klen, const char *value, size_t vlen)
{
    if (klen == 0)
        return "empty key";
    for (size_t i = 0; i < klen; i++)
        if (!key_char((unsigned char)key[i]))
            return "key may only hold letters, digits, '_', '.' and '-'";
    for (size_t i = 0; i < vlen; i++)
        if (value[i] == '\n' || value[i] == '\r' || value[i] == '\0')
            return "value may not contain line breaks or NUL bytes";
    return NULL;
}

const char *ldem_meta_get(const ldem_meta *m, const char *key)
{
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->keys[i], key) == 0)
            return m->values[i];
    return NULL;
}

static int append(ldem_meta *m, const char *key, size_t klen, const char *value, size_t vlen,
                  ldem_err *err)
{
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? 2 * m->capacity : 8;
        char **k = realloc(m->keys, cap * sizeof *k);
        if (k)
            m->keys = k;
        char **v = k ? realloc(m->values, cap * sizeof *v) : NULL;
        if (!v)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
        m->values = v;
        m->capacity = cap;
    }
    char *k = strndup(key, klen), *v = strndup(value, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    }
    m->keys[m->count] = k;
    m->values[m->count] = v;
    m->count++;
    return LDEM_OK;
}

int ldem_meta_set(ldem_meta *m, const char *key, const char *value, ldem_err *err)
{
    const char *why = check_entry(key, strlen(key), value, strlen(value));
    if (why)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "META entry '%s': %s", key, why);
    for (size_t i = 0; i < m->count; i++) {
        if (strcmp(m->keys[i], key) == 0) {
            char *v = strdup(value);
            if (!v)
                return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
            free(m->values[i]);
            m->values[i] = v;
            return LDEM_OK;
        }
    }
    return append(m, key, strlen(key), value, strlen(value), err);
}

int ldem_meta_encode(const ldem_meta *m, unsigned char **data, uint64_t *len, ldem_err *err)
{
    uint64_t size = 0;
    for (size_t i = 0; i < m->count; i++)
        size += strlen(m->keys[i]) + 1 + strlen(m->values[i]) + 1;
    payload_buffer b;
    int rc = buffer_init(&b, size, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < m->count; i++) {
        buffer_bytes(&b, m->keys[i], strlen(m->keys[i]));
        buffer_bytes(&b, "=", 1);
        buffer_bytes(&b, m->values[i], strlen(m->values[i]));
        buffer_bytes(&b, "\n", 1);
    }
    return buffer_finish(&b, data, len, err);
}

int ldem_meta_decode(const ldem_section *s, const char *source, ldem_meta *m, ldem_err *err)
{
    ldem_meta_init(m);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    long line = 1;
    while (c.pos < c.len) {
        const char *start = (const char *)c.p + c.pos;
        const char *nl = memchr(start, '\n', (size_t)(c.len - c.pos));
        if (!nl) {
            ldem_meta_free(m);
            return cursor_fail(&c, "line %ld: missing final newline", line);
        }
        size_t n = (size_t)(nl - start);
        const char *eq = memchr(start, '=', n);
        const char *why = eq ? check_entry(start, (size_t)(eq - start), eq + 1,
                                           n - (size_t)(eq - start) - 1)
                             : "expected key=value";
        if (!why) {
            for (size_t i = 0; i < m->count && !why; i++)
                if (strlen(m->keys[i]) == (size_t)(eq - start) &&
                    memcmp(m->keys[i], start, (size_t)(eq - start)) == 0)
                    why = "duplicate key";
        }
        if (why) {
            ldem_meta_free(m);
            return cursor_fail(&c, "line %ld: %s", line, why);
        }
        int rc = append(m, start, (size_t)(eq - start), eq + 1, n - (size_t)(eq - start) - 1,
                        err);
        if (rc) {
            ldem_meta_free(m);
            return rc;
        }
        c.pos += n + 1;
        line++;
    }
    return LDEM_OK;
}
