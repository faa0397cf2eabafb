/* ETAB: nonlinear modal energy tables. Layout: u32 count, u32 reserved (0); per table
 * u32 mode, u32 interpolation field, u64 n, f64 eps[n], f64 energy[n], f64 force[n].
 * The interpolation field packs the interpolation kind (bits 0-7) and the extrapolation
 * (bits 8-15); bits 16-31 are reserved (0). Version-1 files written before extrapolation
 * existed have bits 8-15 clear, which reads as "no extrapolation" — their old meaning. */
#include <stdlib.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

#define INTERP_BITS 0x000000FFu
#define EXTRAP_SHIFT 8
#define EXTRAP_BITS 0x0000FF00u

const char *ldem_interp_name(uint32_t interp)
{
    switch (interp) {
    case LDEM_INTERP_LINEAR: return "linear";
    case LDEM_INTERP_CUBIC: return "cubic";
    case LDEM_INTERP_PCHIP: return "pchip";
    default: return NULL;
    }
}

const char *ldem_extrapolate_name(uint32_t extrapolate)
{
    switch (extrapolate) {
    case LDEM_EXTRAP_NONE: return "none";
    case LDEM_EXTRAP_LINEAR: return "linear";
    case LDEM_EXTRAP_QUADRATIC: return "quadratic";
    default: return NULL;
    }
}

void ldem_etab_free(ldem_etab *t)
{
    for (uint32_t i = 0; t->tables && i < t->count; i++) {
        free(t->tables[i].eps);
        free(t->tables[i].energy);
        free(t->tables[i].force);
    }
    free(t->tables);
    memset(t, 0, sizeof *t);
}

/* Why table i is unusable, or NULL. */
static const char *check_table(const ldem_etab *t, uint32_t i)
{
    const ldem_etab_table *tb = &t->tables[i];
    if (!ldem_interp_name(tb->interp))
        return "unknown interpolation kind (0 linear, 1 cubic, 2 pchip)";
    if (!ldem_extrapolate_name(tb->extrapolate))
        return "unknown extrapolation (0 none, 1 linear, 2 quadratic)";
    if (tb->n < 2)
        return "a table needs at least 2 samples";
    for (uint32_t j = 0; j < i; j++)
        if (t->tables[j].mode == tb->mode)
            return "two tables for the same mode";
    const double *arrays[3] = {tb->eps, tb->energy, tb->force};
    for (int a = 0; a < 3; a++)
        if (first_nonfinite_f64(arrays[a], tb->n) < tb->n)
            return "a sample is not finite";
    for (uint64_t k = 1; k < tb->n; k++)
        if (!(tb->eps[k] > tb->eps[k - 1]))
            return "eps samples must be strictly increasing";
    return NULL;
}

int ldem_etab_encode(const ldem_etab *t, unsigned char **data, uint64_t *len, ldem_err *err)
{
    uint64_t size = 8;
    for (uint32_t i = 0; i < t->count; i++) {
        const char *why = check_table(t, i);
        if (why)
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "ETAB table %u: %s", i, why);
        size += 16 + 24 * t->tables[i].n;
    }
    payload_buffer b;
    int rc = buffer_init(&b, size, err);
    if (rc)
        return rc;
    buffer_u32(&b, t->count);
    buffer_u32(&b, 0);
    for (uint32_t i = 0; i < t->count; i++) {
        const ldem_etab_table *tb = &t->tables[i];
        buffer_u32(&b, tb->mode);
        /* check_table bounded both to < 256, so they fit their byte. */
        buffer_u32(&b, tb->interp | tb->extrapolate << EXTRAP_SHIFT);
        buffer_u64(&b, tb->n);
        buffer_f64_array(&b, tb->eps, tb->n);
        buffer_f64_array(&b, tb->energy, tb->n);
        buffer_f64_array(&b, tb->force, tb->n);
    }
    return buffer_finish(&b, data, len, err);
}

/* Splits the packed interpolation field; reserved bits must be clear. */
static int read_interpolation(payload_cursor *c, ldem_etab_table *tb)
{
    uint32_t field = 0;
    int rc = cursor_u32(c, &field);
    if (rc)
        return rc;
    if (field & ~(INTERP_BITS | EXTRAP_BITS)) {
        c->pos -= 4; /* point at the field itself */
        return cursor_fail(c, "interpolation field 0x%08x has reserved bits 16-31 set",
                           field);
    }
    tb->interp = field & INTERP_BITS;
    tb->extrapolate = (field & EXTRAP_BITS) >> EXTRAP_SHIFT;
    return LDEM_OK;
}

static int read_table(payload_cursor *c, ldem_etab_table *tb)
{
    int rc = cursor_u32(c, &tb->mode);
    if (!rc)
        rc = read_interpolation(c, tb);
    if (!rc)
        rc = cursor_u64(c, &tb->n);
    if (!rc)
        rc = cursor_need(c, tb->n, 24, "table samples");
    if (!rc)
        rc = cursor_f64_array(c, tb->n, &tb->eps, "eps samples");
    if (!rc)
        rc = cursor_f64_array(c, tb->n, &tb->energy, "energy samples");
    if (!rc)
        rc = cursor_f64_array(c, tb->n, &tb->force, "force samples");
    return rc;
}

int ldem_etab_decode(const ldem_section *s, const char *source, ldem_etab *t, ldem_err *err)
{
    memset(t, 0, sizeof *t);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    uint32_t count = 0, reserved = 0;
    int rc = cursor_u32(&c, &count);
    if (!rc)
        rc = cursor_u32(&c, &reserved);
    if (!rc && reserved != 0)
        rc = cursor_fail(&c, "reserved field is %u, expected 0", reserved);
    if (!rc && count == 0)
        rc = cursor_fail(&c, "an ETAB section needs at least one table");
    /* Each table takes at least 16 header bytes: bounds the allocation below. */
    if (!rc)
        rc = cursor_need(&c, count, 16, "tables");
    if (!rc && !(t->tables = calloc(count, sizeof *t->tables)))
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
    if (!rc)
        t->count = count;
    for (uint32_t i = 0; !rc && i < count; i++) {
        rc = read_table(&c, &t->tables[i]);
        const char *why = rc ? NULL : check_table(t, i);
        if (why)
            rc = cursor_fail(&c, "table %u: %s", i, why);
    }
    if (!rc)
        rc = cursor_finish(&c);
    if (rc)
        ldem_etab_free(t);
    return rc;
}
