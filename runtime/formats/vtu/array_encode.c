/* Encoding of one data array: ASCII text, appended raw, appended zlib. */
#include "vtk_xml.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "ldem/bytes.h"

size_t ldem_vtkx_type_size(int type)
{
    switch (type) {
    case LDEM_VTK_FLOAT32: return 4;
    case LDEM_VTK_FLOAT64: return 8;
    case LDEM_VTK_INT32: return 4;
    case LDEM_VTK_INT64: return 8;
    case LDEM_VTK_UINT8: return 1;
    default: return 0;
    }
}

const char *ldem_vtkx_type_name(int type)
{
    switch (type) {
    case LDEM_VTK_FLOAT32: return "Float32";
    case LDEM_VTK_FLOAT64: return "Float64";
    case LDEM_VTK_INT32: return "Int32";
    case LDEM_VTK_INT64: return "Int64";
    case LDEM_VTK_UINT8: return "UInt8";
    default: return NULL;
    }
}

/* Values are read with memcpy: the caller's buffer need not be aligned for its type
 * (e.g. a slice of a packed record), and UBSan stays quiet. */
void ldem_vtkx_encode_le(unsigned char *dst, int type, const void *data, size_t first, size_t n)
{
    const unsigned char *src = (const unsigned char *)data + first * ldem_vtkx_type_size(type);
    switch (type) {
    case LDEM_VTK_FLOAT32:
        for (size_t i = 0; i < n; i++) {
            float v;
            memcpy(&v, src + 4 * i, 4);
            ldem_put_f32le(dst + 4 * i, v);
        }
        break;
    case LDEM_VTK_FLOAT64:
        for (size_t i = 0; i < n; i++) {
            double v;
            memcpy(&v, src + 8 * i, 8);
            ldem_put_f64le(dst + 8 * i, v);
        }
        break;
    case LDEM_VTK_INT32:
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, src + 4 * i, 4);
            ldem_put_u32le(dst + 4 * i, v);
        }
        break;
    case LDEM_VTK_INT64:
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, src + 8 * i, 8);
            ldem_put_u64le(dst + 8 * i, v);
        }
        break;
    case LDEM_VTK_UINT8:
        if (n)
            memcpy(dst, src, n);
        break;
    default: break;
    }
}

void ldem_vtkx_format_double(char *buf, double v)
{
    /* VTK 9.1 accepts "nan" and "inf"; a NaN's sign and payload carry no meaning for us,
     * so every NaN is spelled the same. */
    if (isnan(v)) {
        strcpy(buf, "nan");
        return;
    }
    if (isinf(v)) {
        strcpy(buf, v > 0 ? "inf" : "-inf");
        return;
    }
    snprintf(buf, 32, "%.17g", v);
    /* A program may have called setlocale(LC_ALL, ""), and some locales print a decimal
     * comma, which no VTK reader accepts; %g never groups thousands, so any ',' is it. */
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
}

static void format_float(char *buf, float v)
{
    if (isnan(v) || isinf(v)) {
        ldem_vtkx_format_double(buf, v);
        return;
    }
    /* 9 significant digits are enough for any float to read back exactly. */
    snprintf(buf, 32, "%.9g", (double)v);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
}

static void format_value(char *buf, int type, const unsigned char *p)
{
    switch (type) {
    case LDEM_VTK_FLOAT32: {
        float v;
        memcpy(&v, p, 4);
        format_float(buf, v);
        break;
    }
    case LDEM_VTK_FLOAT64: {
        double v;
        memcpy(&v, p, 8);
        ldem_vtkx_format_double(buf, v);
        break;
    }
    case LDEM_VTK_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, 32, "%" PRId32, v);
        break;
    }
    case LDEM_VTK_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, 32, "%" PRId64, v);
        break;
    }
    case LDEM_VTK_UINT8: snprintf(buf, 32, "%u", (unsigned)*p); break;
    default: buf[0] = '\0'; break;
    }
}

void ldem_vtkx_write_ascii(FILE *fp, int indent, int type, int ncomp, size_t nvalues,
                           const void *data)
{
    size_t size = ldem_vtkx_type_size(type);
    size_t per_line = (size_t)ncomp;
    /* Whole tuples per line keeps vectors readable; ~6 numbers per line keeps lines short. */
    if (per_line < 6)
        per_line *= 6 / per_line;
    const unsigned char *p = data;
    char buf[32];
    for (size_t i = 0; i < nvalues; i++) {
        if (i % per_line == 0)
            fprintf(fp, "%*s", indent, "");
        format_value(buf, type, p + i * size);
        fputs(buf, fp);
        fputc((i + 1) % per_line == 0 || i + 1 == nvalues ? '\n' : ' ', fp);
    }
}

uint64_t ldem_vtkx_raw_size(int type, size_t nvalues)
{
    return 8 + (uint64_t)nvalues * ldem_vtkx_type_size(type);
}

int ldem_vtkx_write_raw(FILE *fp, int type, size_t nvalues, const void *data)
{
    size_t size = ldem_vtkx_type_size(type);
    unsigned char head[8];
    ldem_put_u64le(head, (uint64_t)nvalues * size);
    if (fwrite(head, 1, 8, fp) != 8)
        return LDEM_ERR_IO;
    /* Encode through a small buffer rather than a copy of the whole array. */
    enum { CHUNK = 8192 };
    unsigned char buf[CHUNK * 8];
    for (size_t first = 0; first < nvalues; first += CHUNK) {
        size_t n = nvalues - first < CHUNK ? nvalues - first : CHUNK;
        ldem_vtkx_encode_le(buf, type, data, first, n);
        if (fwrite(buf, size, n, fp) != n)
            return LDEM_ERR_IO;
    }
    return LDEM_OK;
}

int ldem_vtkx_zlib_payload(int type, size_t nvalues, const void *data, size_t blocksize,
                           unsigned char **out, size_t *outlen, const char *name, ldem_err *err)
{
    *out = NULL;
    *outlen = 0;
    size_t size = ldem_vtkx_type_size(type);
    uint64_t nbytes = (uint64_t)nvalues * size;
    uint64_t nblocks = nbytes / blocksize + (nbytes % blocksize != 0);
    size_t head = (size_t)(3 + nblocks) * 8;
    uLong bound = compressBound((uLong)blocksize);

    /* Grown as blocks are compressed: reserving nblocks*compressBound up front would
     * briefly double the memory of a large, well-compressible array. */
    size_t cap = head + bound;
    unsigned char *buf = malloc(cap);
    unsigned char *block = malloc(blocksize);
    if (!buf || !block) {
        free(buf);
        free(block);
        return ldem_err_set(err, LDEM_ERR_NOMEM, name, 0, "out of memory compressing output");
    }
    ldem_put_u64le(buf, nblocks);
    ldem_put_u64le(buf + 8, blocksize);
    ldem_put_u64le(buf + 16, nbytes % blocksize);

    size_t len = head;
    size_t per_block = blocksize / size; /* blocksize is a multiple of every type size */
    for (uint64_t b = 0; b < nblocks; b++) {
        size_t first = (size_t)b * per_block;
        size_t n = nvalues - first < per_block ? nvalues - first : per_block;
        ldem_vtkx_encode_le(block, type, data, first, n);
        if (cap - len < bound) {
            size_t ncap = cap * 2;
            if (ncap - len < bound)
                ncap = len + bound;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                free(block);
                return ldem_err_set(err, LDEM_ERR_NOMEM, name, 0,
                                    "out of memory compressing output");
            }
            buf = nb;
            cap = ncap;
        }
        uLongf clen = bound;
        int zrc = compress2(buf + len, &clen, block, (uLong)(n * size), Z_DEFAULT_COMPRESSION);
        if (zrc != Z_OK) {
            free(buf);
            free(block);
            return ldem_err_set(err, zrc == Z_MEM_ERROR ? LDEM_ERR_NOMEM : LDEM_ERR_INTERNAL, name,
                                0, "zlib compress2 failed (%d)", zrc);
        }
        ldem_put_u64le(buf + 24 + 8 * b, clen);
        len += clen;
    }
    free(block);
    *out = buf;
    *outlen = len;
    return LDEM_OK;
}
