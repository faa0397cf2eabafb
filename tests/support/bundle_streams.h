/* Hand-made bundle streams for the bundle tests: an independent encoder of the container
 * layout (raw_*, with its own CRC-32) so that a writer and reader agreeing on a wrong layout
 * are still caught, and a reader that takes every bundle of a stream three ways -- from
 * memory, from a regular file (size known) and from a pipe (size unknown) -- because the
 * reader takes different paths for them. Shared by the test_bundle_*.c files. */
#ifndef LDEM_TESTS_BUNDLE_STREAMS_H
#define LDEM_TESTS_BUNDLE_STREAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ldem/bundle.h"

/* Byte-exact comparison that accepts NULL pointers when there is nothing to compare. */
#define assert_same_bytes(a, b, n, what)                                                    \
    cr_assert(((n) == 0) || memcmp((a), (b), (n)) == 0, "%s differ", what)

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) written independently of the library,
 * so a writer and reader that agree on a wrong checksum are still caught. */
uint32_t crc32_ref(uint32_t crc, const unsigned char *p, size_t n);

/* A growable byte buffer for hand-made (possibly corrupt) streams. */
typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

void bytes_add(bytes *b, const void *data, size_t n);
void bytes_free(bytes *b);

/* The 16-byte bundle header. */
void raw_header(bytes *b, uint32_t version, uint32_t flags);
/* A section whose header claims `length` bytes; `n` bytes of payload are actually
 * written, followed by a correct CRC over what was written. Returns its offset. */
size_t raw_section_n(bytes *b, const char tag[4], uint32_t flags, uint64_t length,
                     const void *payload, size_t n);
/* A section whose header length matches its payload; returns its offset. */
size_t raw_section(bytes *b, const char tag[4], uint32_t flags, const void *payload,
                   size_t n);
/* The end marker (an empty ENDB section); returns its offset. */
size_t raw_end(bytes *b);

/* A small valid bundle: META, an unknown tag with flags, an empty section, end. The
 * offsets of its four sections go to starts[0..3]. */
bytes small_bundle(size_t *starts, size_t *nstarts);

/* Write a bundle with ldem_bundle_write into memory. */
bytes write_to_memory(const ldem_bundle *b);

enum via { VIA_MEMORY, VIA_FILE, VIA_PIPE };
extern const char *const via_name[3];

/* A read stream over `n` bytes of `p`: a memory stream, a regular file (size known to the
 * reader), or a pipe (size unknown, like stdin in a shell pipeline). */
FILE *open_input(const unsigned char *p, size_t n, enum via via);

/* Read every bundle of a stream; returns the status of the first failure (or LDEM_OK),
 * the bundles read before it in *out, and the error in *err. */
int read_stream(const unsigned char *p, size_t n, enum via via, uint64_t max_section,
                ldem_bundle *out, size_t max_out, size_t *nout, ldem_err *err);

void free_bundles(ldem_bundle *b, size_t n);

/* Same sections (tags, order, flags, lengths, bytes) in both bundles. */
void check_same_sections(const ldem_bundle *got, const ldem_bundle *want);

#endif
