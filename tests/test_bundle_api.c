/* API contracts of the grain-bundle container (ldem/bundle.h): the streaming reader and
 * writer refuse out-of-order calls, bad tags, payloads longer or shorter than declared and
 * duplicate tags (and what was written around the refusals stays valid); the in-memory
 * bundle's put/find/remove keep order and free what they are handed. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "support/bundle_streams.h"

/* ------------------------------------------------------------------------------------ */
/* Reader and writer misuse                                                              */

Test(bundle, reader_api_misuse)
{
    size_t st[8], ns;
    bytes s = small_bundle(st, &ns);
    FILE *fp = open_input(s.p, s.n, VIA_MEMORY);
    ldem_bundle_reader *r;
    ldem_err err;
    cr_assert_eq(ldem_bundle_reader_open(&r, fp, NULL, &err), 0);
    ldem_section sec;
    int end = 0, have = 0;
    cr_assert_eq(ldem_bundle_reader_section(r, &sec, &end, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_reader_next(r, &have, NULL, &err), 0);
    cr_assert_eq(have, 1);
    cr_assert_eq(ldem_bundle_reader_next(r, &have, NULL, &err), LDEM_ERR_USAGE);
    ldem_bundle_reader_close(r);
    fclose(fp);
    bytes_free(&s);
}

static FILE *memory_writer(char **buf, size_t *len)
{
    FILE *fp = open_memstream(buf, len);
    cr_assert_not_null(fp);
    return fp;
}

Test(bundle, writer_misuse)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = memory_writer(&buf, &len);
    ldem_bundle_writer w;
    ldem_err err;
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);

    /* Invalid tags: short, long, unprintable, space, the end marker. */
    static const char *const bad[] = {"AB", "ABCDE", "AB\x01\x44", "AB D", "ENDB", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ldem_err_clear(&err);
        cr_assert_eq(ldem_bundle_writer_section_begin(&w, bad[i], 0, 1, &err), LDEM_ERR_USAGE,
                     "tag %zu accepted", i);
        cr_assert(strstr(err.msg, "invalid section tag"), "%s", err.msg);
    }
    cr_assert_eq(ldem_bundle_writer_data(&w, "x", 1, &err), LDEM_ERR_USAGE, "data outside");
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), LDEM_ERR_USAGE, "end outside");

    /* Payload longer than declared. */
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "LONG", 0, 3, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "NEST", 0, 3, &err), LDEM_ERR_USAGE,
                 "a section inside a section");
    cr_assert_eq(ldem_bundle_writer_data(&w, "abcd", 4, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "exceeds the declared section length by 1"), "%s", err.msg);
    cr_assert_eq(ldem_bundle_writer_data(&w, "ab", 2, &err), 0);
    cr_assert_eq(ldem_bundle_writer_data(&w, "cd", 2, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_data(&w, "c", 1, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), 0);

    /* Payload shorter than declared. */
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "SHRT", 0, 10, &err), 0);
    cr_assert_eq(ldem_bundle_writer_data(&w, "abc", 3, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "7 bytes short"), "%s", err.msg);
    /* Ending the bundle with the section still open is refused too (and frees). */
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), LDEM_ERR_USAGE);
    fclose(fp);
    free(buf);

    /* Duplicate tag in one bundle; fine again in the next bundle. */
    buf = NULL;
    fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);
    ldem_section sec = {.tag = "DUPL", .flags = 0, .length = 2,
                        .data = (unsigned char *)"ab", .offset = -1};
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), 0);
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "'DUPL' written twice"), "%s", err.msg);
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "DUPL", 0, 0, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "out.ldg", &err), 0);
    cr_assert_eq(ldem_bundle_writer_section(&w, &sec, &err), 0);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    fclose(fp);
    /* What was written before and after the refused calls is two valid bundles. */
    ldem_bundle got[2];
    size_t n = 0;
    cr_assert_eq(read_stream((unsigned char *)buf, len, VIA_MEMORY, 0, got, 2, &n, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(n, 2);
    free_bundles(got, n);
    free(buf);

    /* Many distinct tags (grows the writer's tag list). */
    buf = NULL;
    fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_writer_begin(&w, fp, "many", &err), 0);
    for (int i = 0; i < 100; i++) {
        char tag[5];
        snprintf(tag, sizeof tag, "T%03d", i);
        cr_assert_eq(ldem_bundle_writer_section_begin(&w, tag, 0, 0, &err), 0);
        cr_assert_eq(ldem_bundle_writer_section_end(&w, &err), 0);
    }
    cr_assert_eq(ldem_bundle_writer_section_begin(&w, "T042", 0, 0, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_writer_end(&w, &err), 0);
    fclose(fp);
    n = 0;
    cr_assert_eq(read_stream((unsigned char *)buf, len, VIA_MEMORY, 0, got, 2, &n, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(got[0].count, 100);
    free_bundles(got, n);
    free(buf);
}

/* ldem_bundle_write refuses an in-memory bundle that breaks the rules (built by hand). */
Test(bundle, write_refuses_inconsistent_bundle)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "AAAA", 0, "1", 1, &err), 0);
    cr_assert_eq(ldem_bundle_put_copy(&b, "BBBB", 0, "2", 1, &err), 0);
    memcpy(b.sections[1].tag, "AAAA", 5); /* duplicate by hand */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = memory_writer(&buf, &len);
    cr_assert_eq(ldem_bundle_write(fp, "dup", &b, &err), LDEM_ERR_USAGE);
    memcpy(b.sections[1].tag, "B\tBB", 5); /* invalid by hand */
    cr_assert_eq(ldem_bundle_write(fp, "bad", &b, &err), LDEM_ERR_USAGE);
    fclose(fp);
    free(buf);
    ldem_bundle_free(&b);
}

/* ------------------------------------------------------------------------------------ */
/* In-memory bundle operations                                                           */

Test(bundle, put_replaces_in_place_and_remove)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    /* More than the initial capacity, to exercise growth. */
    for (int i = 0; i < 20; i++) {
        char tag[5];
        snprintf(tag, sizeof tag, "S%03d", i);
        cr_assert_eq(ldem_bundle_put_copy(&b, tag, (uint32_t)i, tag, 4, &err), 0);
    }
    cr_assert_eq(b.count, 20);
    cr_assert_null(ldem_bundle_find(&b, "NONE"));

    /* Replace S005: same position, new flags, length and bytes. */
    unsigned char *d = malloc(3);
    memcpy(d, "new", 3);
    cr_assert_eq(ldem_bundle_put(&b, "S005", 0x77, d, 3, &err), 0);
    cr_assert_eq(b.count, 20);
    cr_assert_str_eq(b.sections[5].tag, "S005");
    cr_assert_eq(b.sections[5].flags, 0x77u);
    cr_assert_eq(b.sections[5].length, 3);
    cr_assert_eq(memcmp(b.sections[5].data, "new", 3), 0);
    cr_assert_eq(ldem_bundle_find(&b, "S005"), &b.sections[5]);
    /* Replace with an empty payload (the data pointer given is freed, stored as NULL). */
    cr_assert_eq(ldem_bundle_put(&b, "S006", 1, malloc(8), 0, &err), 0);
    cr_assert_eq(b.sections[6].length, 0);
    cr_assert_null(b.sections[6].data);

    /* Remove keeps the order of the rest. */
    cr_assert_eq(ldem_bundle_remove(&b, "S000"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S019"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S010"), 1);
    cr_assert_eq(ldem_bundle_remove(&b, "S010"), 0, "already gone");
    cr_assert_eq(ldem_bundle_remove(&b, "NONE"), 0);
    cr_assert_eq(b.count, 17);
    int expect = 1;
    for (size_t i = 0; i < b.count; i++, expect++) {
        if (expect == 10)
            expect++;
        char tag[16];
        snprintf(tag, sizeof tag, "S%03d", expect);
        cr_assert_str_eq(b.sections[i].tag, tag);
    }
    cr_assert_null(ldem_bundle_find(&b, "S010"));

    /* Invalid tags are refused, and the payload handed over is still freed (ASan). */
    cr_assert_eq(ldem_bundle_put(&b, "ENDB", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "AB", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "AB CD", 0, malloc(4), 4, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_bundle_put(&b, "GOOD", 0, NULL, 4, &err), LDEM_ERR_USAGE, "no payload");
    cr_assert_eq(b.count, 17);

    /* The bundle written after all that reads back the same. */
    bytes s = write_to_memory(&b);
    ldem_bundle got[1];
    size_t n = 0;
    cr_assert_eq(read_stream(s.p, s.n, VIA_MEMORY, 0, got, 1, &n, &err), 0, "%s", err.msg);
    check_same_sections(&got[0], &b);
    free_bundles(got, n);
    bytes_free(&s);

    ldem_bundle_free(&b);
    cr_assert_eq(b.count, 0);
    cr_assert_null(b.sections);
    ldem_bundle_free(&b); /* twice is harmless */
}

/* Looking up a tag that is not four characters finds nothing and reads nothing beyond it
 * (ASan flags an over-read of the short string literal). */
Test(bundle, find_and_remove_with_malformed_tags)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put_copy(&b, "ABCD", 0, "x", 1, &err), 0);
    cr_assert_null(ldem_bundle_find(&b, "AB"));
    cr_assert_null(ldem_bundle_find(&b, ""));
    cr_assert_null(ldem_bundle_find(&b, "ABCDE"), "a longer tag is not a match");
    cr_assert_eq(ldem_bundle_remove(&b, "ABC"), 0);
    cr_assert_eq(ldem_bundle_remove(&b, "ABCDX"), 0);
    cr_assert_eq(b.count, 1);
    cr_assert_not_null(ldem_bundle_find(&b, "ABCD"));
    ldem_bundle_free(&b);
}

Test(bundle, tag_validity)
{
    cr_assert(ldem_tag_is_valid("META"));
    cr_assert(ldem_tag_is_valid("!~09"));
    cr_assert(!ldem_tag_is_valid("ENDB"));
    cr_assert(!ldem_tag_is_valid("ABC"));
    cr_assert(!ldem_tag_is_valid("ABCDE"));
    cr_assert(!ldem_tag_is_valid("AB D"));
    cr_assert(!ldem_tag_is_valid("AB\x7f" "D"));
    cr_assert(!ldem_tag_is_valid(NULL));
}
