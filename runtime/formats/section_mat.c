/* KMAT and MMAT: square matrices. Layout: u32 n, u32 reserved (0), f64 a[n*n] row-major. */
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

void ldem_matrix_free(ldem_matrix *m)
{
    free(m->a);
    memset(m, 0, sizeof *m);
}

int ldem_matrix_encode(const ldem_matrix *m, unsigned char **data, uint64_t *len, ldem_err *err)
{
    if (m->n == 0)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "matrix section: n must be >= 1");
    uint64_t nn = (uint64_t)m->n * m->n;
    payload_buffer b;
    int rc = buffer_init(&b, 8 + 8 * nn, err);
    if (rc)
        return rc;
    buffer_u32(&b, m->n);
    buffer_u32(&b, 0);
    buffer_f64_array(&b, m->a, nn);
    return buffer_finish(&b, data, len, err);
}

int ldem_matrix_decode(const ldem_section *s, const char *source, ldem_matrix *m, ldem_err *err)
{
    memset(m, 0, sizeof *m);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    uint32_t reserved = 0;
    int rc = cursor_u32(&c, &m->n);
    if (!rc)
        rc = cursor_u32(&c, &reserved);
    if (!rc && m->n == 0)
        rc = cursor_fail(&c, "matrix size n must be >= 1");
    if (!rc && reserved != 0)
        rc = cursor_fail(&c, "reserved field is %u, expected 0", reserved);
    uint64_t nn = (uint64_t)m->n * m->n;
    if (!rc)
        rc = cursor_f64_array(&c, nn, &m->a, "matrix entries");
    if (!rc)
        rc = cursor_finish(&c);
    if (!rc) {
        uint64_t bad = first_nonfinite_f64(m->a, nn);
        if (bad < nn)
            rc = cursor_fail(&c, "entry (%llu, %llu) is not finite",
                             (unsigned long long)(bad / m->n), (unsigned long long)(bad % m->n));
    }
    if (rc)
        ldem_matrix_free(m);
    return rc;
}
