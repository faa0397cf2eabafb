/* Section payloads built field by field, independently of the library's encoders, and the
 * expectations the test_sections_*.c files place on the decoders: refuse with
 * LDEM_ERR_INPUT, the section tag, a message and a byte offset inside the payload, or
 * accept. Also the raw payload builders that more than one of those files needs. */
#ifndef LDEM_TESTS_SECTION_PAYLOADS_H
#define LDEM_TESTS_SECTION_PAYLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/bundle.h"
#include "ldem/err.h"
#include "ldem/sections.h"

/* Where decoded test sections pretend to live in a stream: errors must point past it. */
#define SECTION_AT 1000
#define PAYLOAD_AT (SECTION_AT + LDEM_SECTION_HEADER_SIZE)

/* A payload built field by field, independently of the library's encoders. */
typedef struct pbuf {
    unsigned char *p;
    size_t n, cap;
} pbuf;

void pb_u32(pbuf *b, uint32_t v);
void pb_u64(pbuf *b, uint64_t v);
void pb_f64(pbuf *b, double v);
void pb_f32(pbuf *b, float v);
void pb_raw(pbuf *b, const void *v, size_t n);
void pb_free(pbuf *b);

/* A section over `data` (not copied) as if read at stream `offset` (-1: built in memory). */
ldem_section section_of(const char *tag, unsigned char *data, uint64_t len, int64_t offset);

/* Decode a payload with the decoder for `tag`, then free what was decoded. */
int decode_any(const char *tag, const unsigned char *p, size_t n, int64_t offset,
               ldem_err *err);

/* The decoder must refuse the payload: LDEM_ERR_INPUT, a message naming the section and
 * containing `needle`, and an offset inside the payload. Also checked without a stream
 * offset (a section built in memory): then the message gives the payload byte. */
void expect_reject(const char *tag, const pbuf *b, const char *needle);
/* expect_reject, and the error points at exactly `payload_byte` of the payload. */
void expect_reject_at(const char *tag, const pbuf *b, const char *needle,
                      long long payload_byte);
void expect_accept(const char *tag, const pbuf *b);

/* Raw LSET payload: the documented 64-byte header and `nvalues` values. */
void lset_raw(pbuf *b, uint32_t nx, uint32_t ny, uint32_t nz, double spacing,
              uint64_t nvalues);

/* A valid BODY, and its raw payload (13 doubles in the documented order). */
extern const ldem_body good_body;
void body_raw(pbuf *b, const ldem_body *v);

/* Raw MODE payload header. */
void modes_header(pbuf *b, uint32_t count, uint32_t kind, uint64_t nnodes,
                  const uint32_t dims[3], uint64_t dlen);

#endif
