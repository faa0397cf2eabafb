/* Round trips of the grain-bundle container (ldem/bundle.h): every section type through
 * the writer and the streaming reader, the exact byte layout against an independent encoder,
 * the streaming writer fed in uneven pieces, and concatenated bundles as a pipe carries an
 * assembly. Every stream is read from memory, from a regular file and from a pipe, because
 * the reader takes different paths for them. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "support/bundle_fixture.h"
#include "support/bundle_streams.h"

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
