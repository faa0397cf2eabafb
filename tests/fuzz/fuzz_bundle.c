/* libFuzzer target for the grain-bundle reader and the typed section decoders.
 *
 * The input is read as a stream (fmemopen, so the reader cannot know its size, as with a
 * pipe) with the streaming reader, bundle after bundle, and every known section is decoded.
 * Besides "no crash, no leak, no undefined behaviour", two properties are checked, and a
 * violation aborts:
 *   - a bundle that reads back is re-written byte for byte identically (the container has
 *     exactly one encoding, so reader and writer must agree on every byte);
 *   - a payload that decodes re-encodes to the same bytes (decoders accept only what the
 *     encoders produce).
 * Errors must carry LDEM_ERR_INPUT (or NOMEM/IO) and a message. Decoded ETAB tables are
 * also handed to ldem_energy_prepare and evaluated inside and outside their range.
 *
 * Built as the fuzzer with -Dfuzzing=true; otherwise replay_main.c drives it over the
 * seed corpus as the `fuzz-corpus-replay` test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/energy.h"
#include "ldem/sections.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                                        \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "fuzz_bundle: property violated: %s (line %d)\n", #cond,         \
                    __LINE__);                                                               \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

static int same_bytes(const void *a, const void *b, uint64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n) == 0;
}

/* A failed call must say why, with a sensible status. */
static void check_error(int rc, const ldem_err *err)
{
    require(rc == LDEM_ERR_INPUT || rc == LDEM_ERR_NOMEM || rc == LDEM_ERR_IO);
    require(err->code == rc);
    require(err->msg[0] != '\0');
    require(memchr(err->msg, '\0', sizeof err->msg) != NULL);
}

/* After a successful decode: encoding gives back the payload exactly. (Call the encoder
 * before this: argument evaluation order is unspecified.) */
static void check_reencoded(const ldem_section *s, int rc, unsigned char *d, uint64_t n)
{
    require(rc == LDEM_OK);
    require(n == s->length);
    require(same_bytes(d, s->data, n));
    free(d);
}

/* The energy interpolant of a decoded table: prepare either accepts it or says why; an
 * accepted curve evaluates everywhere inside its range, and outside only if the table
 * allows extrapolation. (Values may overflow for extreme samples; only the status is
 * a property.) */
static void exercise_energy(const ldem_etab_table *t)
{
    ldem_energy_curve c;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_energy_prepare(t, &c, &err);
    if (rc) {
        check_error(rc, &err);
        require(c.eps == NULL);
        return;
    }
    double lo = t->eps[0], hi = t->eps[t->n - 1];
    for (uint64_t k = 0; k < t->n; k++) {
        double x = t->eps[k], mid = k + 1 < t->n ? 0.5 * t->eps[k] + 0.5 * t->eps[k + 1] : x;
        double U, F, dF;
        require(ldem_energy_at(&c, x, &U, &F, &dF) == LDEM_OK);
        require(ldem_energy_at(&c, mid, &U, &F, &dF) == LDEM_OK);
    }
    const double outside[2] = {lo - (hi - lo) - 1.0, hi + (hi - lo) + 1.0};
    for (int i = 0; i < 2; i++) {
        double U;
        rc = ldem_energy_eval(&c, outside[i], &U, NULL, NULL, &err);
        /* (Extreme ranges overflow to ±inf, which is refused even with extrapolation.) */
        if (isfinite(outside[i]) && (outside[i] < lo || outside[i] > hi))
            require((rc == LDEM_OK) == (t->extrapolate != LDEM_EXTRAP_NONE));
        if (rc)
            check_error(rc, &err);
    }
    ldem_energy_curve_free(&c);
}

static void decode_section(const ldem_section *s)
{
    ldem_err err;
    ldem_err_clear(&err);
    unsigned char *d = NULL;
    uint64_t n = 0;
    int rc;
    const char *tag = s->tag;

    if (!strcmp(tag, LDEM_TAG_META)) {
        ldem_meta m;
        rc = ldem_meta_decode(s, "fuzz", &m, &err);
        if (!rc) {
            for (size_t i = 0; i < m.count; i++)
                require(ldem_meta_get(&m, m.keys[i]) == m.values[i]); /* keys unique */
            ldem_err e2;
            int erc = ldem_meta_encode(&m, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
        ldem_meta_free(&m);
    } else if (!strcmp(tag, LDEM_TAG_LSET)) {
        ldem_lset ls;
        rc = ldem_lset_decode(s, "fuzz", &ls, &err);
        if (!rc) {
            require(ldem_lset_count(&ls) * 4 + 64 == s->length);
            ldem_err e2;
            int erc = ldem_lset_encode(&ls, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
        ldem_lset_free(&ls);
    } else if (!strcmp(tag, LDEM_TAG_NODE)) {
        ldem_nodes nd;
        rc = ldem_nodes_decode(s, "fuzz", &nd, &err);
        if (!rc) {
            for (uint64_t t = 0; t < 3 * nd.ntriangles; t++)
                require(nd.triangles[t] < nd.count);
            ldem_err e2;
            int erc = ldem_nodes_encode(&nd, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
        ldem_nodes_free(&nd);
    } else if (!strcmp(tag, LDEM_TAG_BODY)) {
        ldem_body b;
        rc = ldem_body_decode(s, "fuzz", &b, &err);
        if (!rc) {
            ldem_err e2;
            int erc = ldem_body_encode(&b, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
    } else if (!strcmp(tag, LDEM_TAG_MODE)) {
        ldem_modes m;
        rc = ldem_modes_decode(s, "fuzz", &m, &err);
        if (!rc) {
            require(m.kind != LDEM_MODE_ANALYTIC || m.descriptor != NULL);
            ldem_err e2;
            int erc = ldem_modes_encode(&m, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
        ldem_modes_free(&m);
    } else if (!strcmp(tag, LDEM_TAG_KMAT) || !strcmp(tag, LDEM_TAG_MMAT)) {
        ldem_matrix m;
        rc = ldem_matrix_decode(s, "fuzz", &m, &err);
        if (!rc) {
            require(8 + 8 * (uint64_t)m.n * m.n == s->length);
            ldem_err e2;
            int erc = ldem_matrix_encode(&m, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        }
        ldem_matrix_free(&m);
    } else if (!strcmp(tag, LDEM_TAG_ETAB)) {
        ldem_etab t;
        rc = ldem_etab_decode(s, "fuzz", &t, &err);
        if (!rc) {
            for (uint32_t i = 0; i < t.count; i++) {
                require(ldem_interp_name(t.tables[i].interp) != NULL);
                require(ldem_extrapolate_name(t.tables[i].extrapolate) != NULL);
            }
            ldem_err e2;
            int erc = ldem_etab_encode(&t, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
            for (uint32_t i = 0; i < t.count; i++)
                exercise_energy(&t.tables[i]);
        }
        ldem_etab_free(&t);
    } else if (!strcmp(tag, LDEM_TAG_DAMP)) {
        ldem_damping dm;
        rc = ldem_damping_decode(s, "fuzz", &dm, &err);
        if (!rc) {
            require(ldem_damping_kind_name(dm.kind) != NULL);
            require(24 + 16 * (uint64_t)dm.n + 8 * (uint64_t)dm.n * dm.n == s->length);
            for (uint32_t k = 1; k < dm.n; k++)
                require(dm.omega[k] >= dm.omega[k - 1] && dm.omega[0] > 0);
            ldem_err e2;
            int erc = ldem_damping_encode(&dm, &d, &n, &e2);
            check_reencoded(s, erc, d, n);
        } else {
            require(dm.zeta == NULL && dm.omega == NULL && dm.c == NULL);
        }
        ldem_damping_free(&dm);
    } else {
        return; /* unknown tags are carried, not decoded */
    }
    if (rc) {
        check_error(rc, &err);
        /* The error points into this section's payload. */
        require(err.offset >= s->offset + LDEM_SECTION_HEADER_SIZE || rc != LDEM_ERR_INPUT);
        require(err.offset <= s->offset + LDEM_SECTION_HEADER_SIZE + (int64_t)s->length ||
                rc != LDEM_ERR_INPUT);
    }
}

/* Re-write a bundle that was read and compare with the bytes it was read from. */
static void check_rewrite(const ldem_bundle *b, const uint8_t *from, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return;
    ldem_err err;
    int rc = ldem_bundle_write(out, "rewrite", b, &err);
    fclose(out);
    require(rc == LDEM_OK);
    require(len == n);
    require(same_bytes(buf, from, n));
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;
    ldem_bundle_reader *r = NULL;
    ldem_err err;
    ldem_err_clear(&err);
    if (ldem_bundle_reader_open(&r, fp, "fuzz.ldg", &err)) {
        fclose(fp);
        return 0;
    }
    for (;;) {
        int64_t start = ldem_bundle_reader_offset(r);
        ldem_bundle b;
        int have = 0;
        int rc = ldem_bundle_read(r, &b, &have, &err);
        if (rc) {
            check_error(rc, &err);
            require(have == 0 && b.count == 0);
            require(rc != LDEM_ERR_INPUT || (err.offset >= start && err.offset <= (int64_t)size));
            break;
        }
        if (!have) {
            require(ldem_bundle_reader_offset(r) == (int64_t)size);
            break;
        }
        int64_t end = ldem_bundle_reader_offset(r);
        require(end > start && end <= (int64_t)size);
        for (size_t i = 0; i < b.count; i++) {
            const ldem_section *s = &b.sections[i];
            require(ldem_tag_is_valid(s->tag));
            require(ldem_bundle_find(&b, s->tag) == s);
            require(s->offset >= start && s->offset < end);
            decode_section(s);
        }
        check_rewrite(&b, data + start, (size_t)(end - start));
        ldem_bundle_free(&b);
    }
    ldem_bundle_reader_close(r);
    fclose(fp);
    return 0;
}
