/* Reader errors of the grain-bundle container (ldem/bundle.h): one specific error (code,
 * stream byte offset, section tag) for each kind of corruption -- bad magic or version, a
 * stream cut at every byte, CRC mismatches, oversized or huge claimed lengths (refused
 * without allocating them), duplicate sections, invalid tags, a damaged end marker. Each
 * stream is read from memory, from a regular file and from a pipe. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "support/bundle_streams.h"
#include "support/memory_limit.h"

/* Expect exactly one error of code LDEM_ERR_INPUT at `offset` whose message contains
 * every non-NULL needle, for each way of reading. */
static void expect_input_error_via(const bytes *s, enum via via, uint64_t max_section,
                                   long long offset, const char *needle1, const char *needle2)
{
    ldem_bundle got[4];
    size_t n = 0;
    ldem_err err;
    int rc = read_stream(s->p, s->n, via, max_section, got, 4, &n, &err);
    free_bundles(got, n);
    cr_assert_eq(rc, LDEM_ERR_INPUT, "[%s] expected an input error, got %d (%s)",
                 via_name[via], rc, err.msg);
    cr_assert_eq(err.code, LDEM_ERR_INPUT);
    cr_assert_eq(err.offset, offset, "[%s] error offset %lld, expected %lld: %s",
                 via_name[via], err.offset, offset, err.msg);
    cr_assert_str_eq(err.file, "test.ldg");
    if (needle1)
        cr_assert(strstr(err.msg, needle1), "[%s] message lacks \"%s\": %s", via_name[via],
                  needle1, err.msg);
    if (needle2)
        cr_assert(strstr(err.msg, needle2), "[%s] message lacks \"%s\": %s", via_name[via],
                  needle2, err.msg);
}

static void expect_input_error(const bytes *s, long long offset, const char *needle1,
                               const char *needle2)
{
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++)
        expect_input_error_via(s, (enum via)via, 0, offset, needle1, needle2);
}

/* ------------------------------------------------------------------------------------ */
/* Corruption: one specific error each                                                   */

Test(bundle, bad_magic)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    s.p[1] = 'X'; /* "\x89XDG..." */
    expect_input_error(&s, 0, "bad magic", NULL);
    s.p[1] = 'L';
    s.p[6] = '\r'; /* text-mode damage of "\x1a\n" */
    expect_input_error(&s, 0, "bad magic", NULL);
    /* Garbage where the second bundle should start: offset is that of the second. */
    s.p[6] = '\x1a';
    size_t first = s.n;
    bytes_add(&s, "GIF89a..........", 16);
    expect_input_error(&s, (long long)first, "bad magic", NULL);
    bytes_free(&s);
}

Test(bundle, unsupported_version)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    ldem_put_u32le(s.p + 8, 2);
    expect_input_error(&s, 0, "unsupported bundle version 2", NULL);
    ldem_put_u32le(s.p + 8, 0);
    expect_input_error(&s, 0, "unsupported bundle version 0", NULL);
    ldem_put_u32le(s.p + 8, 0xffffffffu);
    expect_input_error(&s, 0, "unsupported bundle version 4294967295", NULL);
    ldem_put_u32le(s.p + 8, 1);
    /* Header flags are reserved in version 1. */
    ldem_put_u32le(s.p + 12, 0x100);
    expect_input_error(&s, 12, "header flags", NULL);
    bytes_free(&s);
}

/* Where the error for a stream cut after `cut` bytes must point: the start of the unit
 * (bundle header or section) that the cut falls in. Returns 0 if the cut lies exactly at
 * a bundle boundary (a clean end), 1 otherwise; *tag_known is the tag of the section when
 * its 16-byte header was complete. */
static int expected_cut(const unsigned char *p, size_t n, size_t cut, size_t *unit,
                        char tag_known[5])
{
    size_t pos = 0;
    tag_known[0] = '\0';
    while (pos < n) {
        if (cut == pos)
            return 0; /* before a bundle header: the stream just ends */
        if (cut < pos + 16) {
            *unit = pos;
            return 1;
        }
        pos += 16;
        for (;;) {
            uint64_t len = ldem_get_u64le(p + pos + 8);
            size_t end = pos + 16 + (size_t)len + 4;
            int last = memcmp(p + pos, "ENDB", 4) == 0;
            if (cut >= pos && cut < end) {
                *unit = pos;
                if (cut >= pos + 16) {
                    memcpy(tag_known, p + pos, 4);
                    tag_known[4] = '\0';
                }
                return 1;
            }
            pos = end;
            if (last)
                break;
        }
    }
    cr_assert_fail("cut %zu beyond the stream", cut);
    return 1;
}

static void check_every_cut(const bytes *s, size_t from, size_t full_bundles_before)
{
    for (size_t cut = from; cut < s->n; cut++) {
        size_t unit = 0;
        char tag[5];
        int error = expected_cut(s->p, s->n, cut, &unit, tag);
        for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
            ldem_bundle got[4];
            size_t n = 0;
            ldem_err err;
            int rc = read_stream(s->p, cut, (enum via)via, 0, got, 4, &n, &err);
            free_bundles(got, n);
            if (!error) {
                cr_assert_eq(rc, LDEM_OK, "[%s] cut %zu at a bundle boundary: %s",
                             via_name[via], cut, err.msg);
                continue;
            }
            cr_assert_eq(rc, LDEM_ERR_INPUT, "[%s] cut at %zu of %zu bytes gave %d",
                         via_name[via], cut, s->n, rc);
            cr_assert_eq(n, full_bundles_before, "[%s] cut %zu: %zu whole bundles read",
                         via_name[via], cut, n);
            cr_assert(strstr(err.msg, "truncated"), "[%s] cut %zu: %s", via_name[via], cut,
                      err.msg);
            cr_assert_eq(err.offset, (long long)unit, "[%s] cut %zu: offset %lld, expected %zu",
                         via_name[via], cut, err.offset, unit);
            if (tag[0]) {
                char quoted[8];
                snprintf(quoted, sizeof quoted, "'%s'", tag);
                cr_assert(strstr(err.msg, quoted), "[%s] cut %zu: message lacks %s: %s",
                          via_name[via], cut, quoted, err.msg);
            }
        }
    }
}

Test(bundle, truncated_at_every_byte)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    check_every_cut(&s, 1, 0);
    bytes_free(&s);
}

Test(bundle, truncated_inside_second_of_two_bundles)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    size_t first = s.n;
    bytes two = small_bundle(st, &ns);
    bytes_add(&s, two.p, two.n);
    bytes_free(&two);
    /* Cutting exactly after the first bundle is a clean one-bundle stream; every cut
     * inside the second gives an error at a stream (not bundle-relative) offset. */
    check_every_cut(&s, first, 1);
    bytes_free(&s);
}

Test(bundle, trailing_bytes_after_a_bundle)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    size_t end = s.n;
    bytes_add(&s, "\x89LDG", 4);
    expect_input_error(&s, (long long)end, "truncated", "bundle header");
    bytes_free(&s);
}

Test(bundle, crc_mismatch_payload_bit)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    /* One bit of XTRA's payload. */
    s.p[st[1] + 16 + 2] ^= 0x10;
    expect_input_error(&s, (long long)st[1], "CRC mismatch", "'XTRA'");
    s.p[st[1] + 16 + 2] ^= 0x10;
    /* Every single bit of META's payload and of its stored CRC. */
    for (size_t byte = st[0] + 16; byte < st[1]; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            s.p[byte] ^= (unsigned char)(1u << bit);
            expect_input_error_via(&s, VIA_MEMORY, 0, (long long)st[0], "CRC mismatch",
                                   "'META'");
            s.p[byte] ^= (unsigned char)(1u << bit);
        }
    }
    bytes_free(&s);
}

Test(bundle, crc_mismatch_header_byte)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    s.p[st[1] + 4] ^= 0x01; /* XTRA's flags 5 -> 4: the CRC covers the header too */
    expect_input_error(&s, (long long)st[1], "CRC mismatch", "'XTRA'");
    s.p[st[1] + 4] ^= 0x01;
    s.p[st[2] + 7] ^= 0x80; /* EMTY's flags, top byte */
    expect_input_error(&s, (long long)st[2], "CRC mismatch", "'EMTY'");
    s.p[st[2] + 7] ^= 0x80;
    s.p[st[0]] = 'N'; /* META -> NETA: still a valid tag, but not what was checksummed */
    expect_input_error(&s, (long long)st[0], "CRC mismatch", "'NETA'");
    s.p[st[0]] = 'M';
    s.p[st[3] + 16] ^= 0xff; /* the end marker's own CRC */
    expect_input_error(&s, (long long)st[3], "CRC mismatch", "'ENDB'");
    bytes_free(&s);
}

Test(bundle, oversized_length_beyond_reader_limit)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    raw_section(&s, "META", 0, "a=b\n", 4);
    size_t at = raw_section_n(&s, "LSET", 0, UINT64_C(1) << 40, "abcd", 4);
    raw_end(&s);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        expect_input_error_via(&s, (enum via)via, UINT64_C(1) << 20, (long long)at,
                               "oversized length 1099511627776", "'LSET'");
        /* The default limit (64 GiB) refuses 1 TiB too. */
        expect_input_error_via(&s, (enum via)via, 0, (long long)at, "oversized", "'LSET'");
    }
    /* The limit applies to real sections as well: 4 bytes with a limit of 3. */
    bytes t = {0};
    raw_header(&t, 1, 0);
    size_t m = raw_section(&t, "META", 0, "a=b\n", 4);
    raw_end(&t);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        expect_input_error_via(&t, (enum via)via, 3, (long long)m, "oversized", "'META'");
        ldem_bundle got[1];
        size_t n = 0;
        ldem_err err;
        cr_assert_eq(read_stream(t.p, t.n, (enum via)via, 4, got, 1, &n, &err), 0,
                     "a section of exactly the limit is fine: %s", err.msg);
        free_bundles(got, n);
    }
    bytes_free(&s);
    bytes_free(&t);
}

typedef struct huge_case {
    const bytes *s;
    enum via via;
    size_t section_at;
} huge_case;

/* 0 when the stream fails as truncated at the section, else a distinct code. */
static int read_huge_claim(void *arg)
{
    const huge_case *hc = arg;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *fp = open_input(hc->s->p, hc->s->n, hc->via);
    ldem_bundle_reader *r;
    ldem_err err;
    ldem_err_clear(&err);
    if (ldem_bundle_reader_open(&r, fp, "huge", &err))
        return 10;
    ldem_bundle b;
    int have = 0;
    int rc = ldem_bundle_read(r, &b, &have, &err);
    ldem_bundle_reader_close(r);
    fclose(fp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (rc == LDEM_ERR_NOMEM)
        return 11; /* it tried to allocate what the length claimed */
    if (rc != LDEM_ERR_INPUT)
        return 12;
    if (!strstr(err.msg, "truncated") || !strstr(err.msg, "'LSET'"))
        return 13;
    if (err.offset != (long long)hc->section_at)
        return 14;
    if (seconds > 5.0)
        return 15;
    return 0;
}

/* A ~32 GiB length (below the default 64 GiB limit) on a stream of a few dozen bytes. */
Test(bundle, huge_claimed_length_fails_as_truncated_without_allocating)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    size_t at = raw_section_n(&s, "LSET", 0, (UINT64_C(1) << 35) + 12345, "tiny", 4);
    raw_end(&s);
    for (int via = VIA_MEMORY; via <= VIA_PIPE; via++) {
        huge_case hc = {&s, (enum via)via, at};
        int rc = run_with_memory_limit(read_huge_claim, &hc, (size_t)256 << 20);
        cr_assert_eq(rc, 0, "[%s] child result %d (11: out of memory, -1: killed)",
                     via_name[via], rc);
    }
    /* A regular file knows its size: the message says what really follows. */
    expect_input_error_via(&s, VIA_FILE, 0, (long long)at, "only 28 bytes follow", "'LSET'");
    bytes_free(&s);
}

Test(bundle, duplicate_section)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    size_t first = raw_section(&s, "META", 0, "a=b\n", 4);
    raw_section(&s, "XTRA", 0, "x", 1);
    size_t second = raw_section(&s, "META", 0, "c=d\n", 4);
    raw_end(&s);
    char want[64];
    snprintf(want, sizeof want, "first at byte %zu", first);
    expect_input_error(&s, (long long)second, "duplicate section 'META'", want);
    bytes_free(&s);

    /* The same tag in two different bundles is fine. */
    bytes ok = {0};
    for (int i = 0; i < 2; i++) {
        raw_header(&ok, 1, 0);
        raw_section(&ok, "META", 0, "a=b\n", 4);
        raw_end(&ok);
    }
    ldem_bundle got[2];
    size_t n = 0;
    ldem_err err;
    cr_assert_eq(read_stream(ok.p, ok.n, VIA_MEMORY, 0, got, 2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    free_bundles(got, n);
    bytes_free(&ok);
}

Test(bundle, invalid_tag_bytes)
{
    static const char *const bad[] = {"ME\0A", "ME A", "\x7f\x45TA", "MET\x80", "\xff\xff\xff\xff",
                                      "\n\r\t\v"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bytes s = {0};
        raw_header(&s, 1, 0);
        raw_section(&s, "META", 0, "a=b\n", 4);
        size_t at = raw_section(&s, bad[i], 0, "x", 1);
        raw_end(&s);
        char hex[32];
        const unsigned char *t = (const unsigned char *)bad[i];
        snprintf(hex, sizeof hex, "(%02x %02x %02x %02x)", t[0], t[1], t[2], t[3]);
        expect_input_error(&s, (long long)at, "corrupt section header", hex);
        bytes_free(&s);
    }
}

Test(bundle, non_empty_end_marker)
{
    bytes s = {0};
    raw_header(&s, 1, 0);
    raw_section(&s, "META", 0, "a=b\n", 4);
    size_t at = raw_section(&s, "ENDB", 0, "more", 4);
    expect_input_error(&s, (long long)at, "corrupt end marker", "length 4");
    bytes_free(&s);

    bytes f = {0};
    raw_header(&f, 1, 0);
    at = raw_section(&f, "ENDB", 2, NULL, 0);
    expect_input_error(&f, (long long)at, "corrupt end marker", "flags 0x2");
    bytes_free(&f);
}
