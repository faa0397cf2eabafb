/* Private to libldem: bounds-checked cursor for decoding section payloads and a growable
 * buffer for encoding them. Every count read from a payload is checked against the bytes
 * that remain before anything is allocated, so a corrupt count cannot cause a huge malloc. */
#ifndef LDEM_PAYLOAD_H
#define LDEM_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/bundle.h"
#include "ldem/err.h"

typedef struct payload_cursor {
    const unsigned char *p;
    uint64_t len, pos;
    const char *tag;      /* section tag, for messages */
    const char *source;   /* input name, for messages */
    int64_t base;         /* stream offset of the payload's first byte, or -1 */
    ldem_err *err;
} payload_cursor;

void cursor_init(payload_cursor *c, const ldem_section *s, const char *source, ldem_err *err);
/* Record a decoding error at the cursor position; returns LDEM_ERR_INPUT. */
int cursor_fail(payload_cursor *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cursor_u32(payload_cursor *c, uint32_t *v);
int cursor_u64(payload_cursor *c, uint64_t *v);
int cursor_f64(payload_cursor *c, double *v);
/* n elements of `width` bytes must remain; checks n*width for overflow. */
int cursor_need(payload_cursor *c, uint64_t n, uint64_t width, const char *what);
/* Allocate and read arrays (NULL result and success when n is 0). */
int cursor_f64_array(payload_cursor *c, uint64_t n, double **out, const char *what);
int cursor_f32_array(payload_cursor *c, uint64_t n, float **out, const char *what);
int cursor_u32_array(payload_cursor *c, uint64_t n, uint32_t **out, const char *what);
int cursor_bytes(payload_cursor *c, uint64_t n, const unsigned char **out, const char *what);
/* Every byte must have been consumed. */
int cursor_finish(payload_cursor *c);

/* Index of the first NaN or infinity, or n when all are finite. */
uint64_t first_nonfinite_f64(const double *a, uint64_t n);
uint64_t first_nonfinite_f32(const float *a, uint64_t n);

/* n*m without overflow; 0 on overflow. */
int mul_u64(uint64_t a, uint64_t b, uint64_t *out);

typedef struct payload_buffer {
    unsigned char *data;
    uint64_t len, cap;
    int failed;
} payload_buffer;

/* Reserve the exact size up front; encoders know their payload size. */
int buffer_init(payload_buffer *b, uint64_t size, ldem_err *err);
void buffer_u32(payload_buffer *b, uint32_t v);
void buffer_u64(payload_buffer *b, uint64_t v);
void buffer_f64(payload_buffer *b, double v);
void buffer_f64_array(payload_buffer *b, const double *v, uint64_t n);
void buffer_f32_array(payload_buffer *b, const float *v, uint64_t n);
void buffer_u32_array(payload_buffer *b, const uint32_t *v, uint64_t n);
void buffer_bytes(payload_buffer *b, const void *v, uint64_t n);
/* Hand the bytes to the caller; fails (and frees) if the size promised was not met. */
int buffer_finish(payload_buffer *b, unsigned char **data, uint64_t *len, ldem_err *err);

#endif
