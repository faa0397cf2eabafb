/* ldem/bundle.h — the grain-bundle container (.ldg): streaming reader and writer.
 *
 * A bundle is a 16-byte header (magic, version, flags) followed by tagged sections
 * {tag[4], flags u32, length u64, payload, crc32 u32} and an end section "ENDB".
 * Several bundles may follow each other in one stream (a pipe carries an assembly's worth
 * of grains). Sections this library does not know are carried through untouched, so an
 * older tool in the middle of a pipe never drops a newer tool's data. The exact byte
 * layout is in docs/bundle.md; section payloads are in ldem/sections.h.
 *
 * The reader never trusts a length field with memory: it allocates as payload bytes
 * actually arrive (at most twice what the stream really holds), so a corrupt length fails
 * as "truncated" instead of as a multi-gigabyte malloc.
 */
#ifndef LDEM_BUNDLE_H
#define LDEM_BUNDLE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDEM_BUNDLE_MAGIC "\x89LDG\r\n\x1a\n" /* 8 bytes; PNG-style: catches text-mode damage */
#define LDEM_BUNDLE_MAGIC_SIZE 8
#define LDEM_BUNDLE_HEADER_SIZE 16
#define LDEM_BUNDLE_VERSION 1u
#define LDEM_SECTION_HEADER_SIZE 16 /* tag, flags, length */
#define LDEM_SECTION_TRAILER_SIZE 4 /* crc32 */
#define LDEM_BUNDLE_END_TAG "ENDB"
/* Default cap on one section's payload (64 GiB): a 2048^3 float32 level set is 32 GiB. */
#define LDEM_BUNDLE_DEFAULT_MAX_SECTION (UINT64_C(1) << 36)

typedef struct ldem_section {
    char tag[5];          /* four printable ASCII characters, NUL-terminated */
    uint32_t flags;       /* section-specific; carried through unchanged */
    uint64_t length;      /* payload bytes */
    unsigned char *data;  /* payload, owned by the section (NULL when length is 0) */
    int64_t offset;       /* byte offset of the section header in its stream; -1 if built */
} ldem_section;

/* A whole bundle in memory: sections in stream order, tags unique. */
typedef struct ldem_bundle {
    uint32_t version;
    size_t count;
    size_t capacity;
    ldem_section *sections;
} ldem_bundle;

/* ---- in-memory bundles ---- */
LDEM_API void ldem_bundle_init(ldem_bundle *b);
LDEM_API void ldem_bundle_free(ldem_bundle *b);
LDEM_API void ldem_section_free(ldem_section *s);
/* NULL when absent. */
LDEM_API const ldem_section *ldem_bundle_find(const ldem_bundle *b, const char *tag);
/* Add a section or replace the one with the same tag (keeping its position), taking
 * ownership of `data` (malloc'd, `length` bytes) whatever the outcome. */
LDEM_API int ldem_bundle_put(ldem_bundle *b, const char *tag, uint32_t flags, unsigned char *data,
                             uint64_t length, ldem_err *err);
/* Same, copying the payload. */
LDEM_API int ldem_bundle_put_copy(ldem_bundle *b, const char *tag, uint32_t flags, const void *data,
                                  uint64_t length, ldem_err *err);
/* 1 if removed, 0 if there was no such section. */
LDEM_API int ldem_bundle_remove(ldem_bundle *b, const char *tag);
/* A tag is four printable ASCII characters (0x21..0x7e), and not the end marker. */
LDEM_API int ldem_tag_is_valid(const char *tag);

/* ---- streaming reader ---- */
typedef struct ldem_bundle_reader ldem_bundle_reader;

/* `name` labels errors ("grain.ldg", "<stdin>"); the reader does not close `fp`. */
LDEM_API int ldem_bundle_reader_open(ldem_bundle_reader **r, FILE *fp, const char *name,
                                     ldem_err *err);
LDEM_API void ldem_bundle_reader_close(ldem_bundle_reader *r);
LDEM_API void ldem_bundle_reader_set_max_section(ldem_bundle_reader *r, uint64_t max_bytes);
/* Bytes consumed so far. */
LDEM_API int64_t ldem_bundle_reader_offset(const ldem_bundle_reader *r);

/* Start the next bundle: *have = 1 and *version set when a header was read, *have = 0 at
 * a clean end of stream. */
LDEM_API int ldem_bundle_reader_next(ldem_bundle_reader *r, int *have, uint32_t *version,
                                     ldem_err *err);
/* Next section of the current bundle into *s (caller frees with ldem_section_free);
 * *is_end = 1 when the end marker was read (then *s is untouched). */
LDEM_API int ldem_bundle_reader_section(ldem_bundle_reader *r, ldem_section *s, int *is_end,
                                        ldem_err *err);
/* Convenience: the whole next bundle. *have = 0 at clean end of stream. */
LDEM_API int ldem_bundle_read(ldem_bundle_reader *r, ldem_bundle *b, int *have, ldem_err *err);

/* ---- streaming writer ---- */
typedef struct ldem_bundle_writer {
    FILE *fp;
    const char *name;       /* for error messages */
    uint64_t remaining;     /* payload bytes still owed to the open section */
    unsigned long crc;      /* running zlib crc32 of the open section */
    int in_section;
    size_t ntags;           /* tags written in this bundle, to refuse duplicates */
    size_t tags_capacity;
    char (*tags)[5];
} ldem_bundle_writer;

LDEM_API int ldem_bundle_writer_begin(ldem_bundle_writer *w, FILE *fp, const char *name,
                                      ldem_err *err);
/* Open a section of known length, then feed exactly `length` bytes with write_data. */
LDEM_API int ldem_bundle_writer_section_begin(ldem_bundle_writer *w, const char *tag,
                                              uint32_t flags, uint64_t length, ldem_err *err);
LDEM_API int ldem_bundle_writer_data(ldem_bundle_writer *w, const void *data, size_t n,
                                     ldem_err *err);
LDEM_API int ldem_bundle_writer_section_end(ldem_bundle_writer *w, ldem_err *err);
/* One-shot section. */
LDEM_API int ldem_bundle_writer_section(ldem_bundle_writer *w, const ldem_section *s,
                                        ldem_err *err);
/* Write the end marker and release the writer (the FILE stays open). */
LDEM_API int ldem_bundle_writer_end(ldem_bundle_writer *w, ldem_err *err);
/* Release without writing an end marker (after an error). */
LDEM_API void ldem_bundle_writer_discard(ldem_bundle_writer *w);

/* Convenience: a whole in-memory bundle. */
LDEM_API int ldem_bundle_write(FILE *fp, const char *name, const ldem_bundle *b, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
