/* Output of the VTK XML writers (ldem/vtu.h) in each encoding: one well-formed file per
 * write, XML-escaped names, NaN/inf handling, appended payload headers exactly in VTK's
 * layout (raw byte counts; zlib block tables with a partial or empty last block), ASCII
 * values that round-trip bit-exactly, image headers and extents. VTK itself reads our files
 * in tests/vtk (the vtk-readback test). */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ldem/err.h"
#include "ldem/vtu.h"
#include "support/vtu_fixtures.h"

/* Independent little-endian encoding (not ldem/bytes.h) to compare payloads against. */
static void le_bytes(unsigned char *dst, const void *src, size_t size)
{
    uint64_t u;
    if (size == 8) {
        memcpy(&u, src, 8);
    } else if (size == 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        u = v;
    } else {
        u = *(const unsigned char *)src;
    }
    for (size_t i = 0; i < size; i++)
        dst[i] = (unsigned char)(u >> (8 * i));
}

static unsigned char *le_array(const void *data, size_t n, size_t size)
{
    unsigned char *out = malloc(n * size + 1);
    for (size_t i = 0; i < n; i++)
        le_bytes(out + i * size, (const unsigned char *)data + i * size, size);
    return out;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

TestSuite(vtu, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(vti, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(payload, .init = make_tmpdir, .fini = remove_tmpdir);

/* ------------------------------------------------------------------ basic writes */

Test(vtu, writes_each_encoding_as_one_file)
{
    fixture f;
    fixture_init(&f);
    for (int e = 0; e < 3; e++) {
        ldem_err err;
        ldem_err_clear(&err);
        const char *path = in_tmp("ok.vtu");
        cr_assert_eq(ldem_vtu_write(path, &f.g, encodings[e], &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(count_entries(tmpdir), 1);
        char *text = slurp(path, NULL);
        const char *head = "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\"";
        cr_assert(strncmp(text, head, strlen(head)) == 0, "%s", text);
        cr_assert_not_null(strstr(text, "header_type=\"UInt64\""));
        cr_assert_eq(strstr(text, "vtkZLibDataCompressor") != NULL, encodings[e] == LDEM_VTK_ZLIB);
        cr_assert_eq(strstr(text, "<AppendedData") != NULL, encodings[e] != LDEM_VTK_ASCII);
        cr_assert_not_null(strstr(text, "NumberOfPoints=\"12\" NumberOfCells=\"6\""));
        free(text);
    }
}

Test(vtu, empty_grid_is_valid)
{
    ldem_vtu_grid g = {0};
    for (int e = 0; e < 3; e++) {
        ldem_err err;
        cr_assert_eq(ldem_vtu_write(in_tmp("empty.vtu"), &g, encodings[e], &err), LDEM_OK, "%s",
                     err.msg);
    }
}

Test(vtu, array_names_are_xml_escaped)
{
    fixture f;
    fixture_init(&f);
    f.pd[0].name = "a\"b<c&d>'e";
    const char *path = in_tmp("esc.vtu");
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ASCII, NULL), LDEM_OK);
    char *text = slurp(path, NULL);
    cr_assert_not_null(strstr(text, "Name=\"a&quot;b&lt;c&amp;d&gt;&apos;e\""));
    cr_assert_not_null(strstr(text, "Scalars=\"a&quot;b&lt;c&amp;d&gt;&apos;e\""));
    cr_assert_null(strstr(text, "a\"b"));
    free(text);
}

Test(vtu, nan_and_inf_are_written_in_ascii)
{
    fixture f;
    fixture_init(&f);
    f.phi[0] = NAN;
    f.phi[1] = -NAN;
    f.phi[2] = INFINITY;
    const char *path = in_tmp("nan.vtu");
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ASCII, &err), LDEM_OK, "%s", err.msg);
    char *text = slurp(path, NULL);
    cr_assert_not_null(strstr(text, "format=\"ascii\">\n          nan nan inf -2.5 "), "%s", text);
    free(text);
}

Test(vtu, neg_inf_is_fine_in_binary)
{
    fixture f;
    fixture_init(&f);
    f.phi[3] = -INFINITY;
    f.points[2][1] = -INFINITY;
    cr_assert_eq(ldem_vtu_write(in_tmp("a.vtu"), &f.g, LDEM_VTK_RAW, NULL), LDEM_OK);
    cr_assert_eq(ldem_vtu_write(in_tmp("b.vtu"), &f.g, LDEM_VTK_ZLIB, NULL), LDEM_OK);
}

Test(vtu, write_fp_matches_file_output)
{
    fixture f;
    fixture_init(&f);
    const char *path = in_tmp("file.vtu");
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ZLIB, NULL), LDEM_OK);
    const char *path2 = in_tmp("fp.vtu");
    FILE *fp = fopen(path2, "wb");
    cr_assert_eq(ldem_vtu_write_fp(fp, "fp.vtu", &f.g, LDEM_VTK_ZLIB, NULL), LDEM_OK);
    fclose(fp);
    size_t n1, n2;
    char *a = slurp(path, &n1), *b = slurp(path2, &n2);
    cr_assert_eq(n1, n2);
    cr_assert(memcmp(a, b, n1) == 0);
    free(a);
    free(b);
}

/* ------------------------------------------------------------------ image header */

Test(vti, header_and_extents)
{
    float phi[4 * 3 * 2];
    for (int i = 0; i < 24; i++)
        phi[i] = (float)i / 3;
    int32_t cells[3 * 2 * 1] = {0, 1, 2, 3, 4, 5};
    ldem_vtk_array pd[] = {{"phi", LDEM_VTK_FLOAT32, 1, phi}};
    ldem_vtk_array cd[] = {{"c", LDEM_VTK_INT32, 1, cells}};
    ldem_vti_image img = {.dims = {4, 3, 2},
                          .origin = {-1, 0.1, 2},
                          .spacing = {0.5, 0.25, 3},
                          .npoint_data = 1,
                          .point_data = pd,
                          .ncell_data = 1,
                          .cell_data = cd};
    const char *path = in_tmp("a.vti");
    ldem_err err;
    cr_assert_eq(ldem_vti_write(path, &img, LDEM_VTK_ASCII, &err), LDEM_OK, "%s", err.msg);
    char *text = slurp(path, NULL);
    cr_assert_not_null(strstr(text, "<ImageData WholeExtent=\"0 3 0 2 0 1\" "
                                    "Origin=\"-1 0.10000000000000001 2\" "
                                    "Spacing=\"0.5 0.25 3\">"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "<Piece Extent=\"0 3 0 2 0 1\">"));
    cr_assert_not_null(strstr(text, "0.333333343"));
    free(text);
}

/* ------------------------------------------------------------------ payloads */

/* The appended payloads of a file, located through the offset="" attributes. */
typedef struct appended {
    char *buf;
    size_t len;
    const unsigned char *data; /* first byte after '_' */
    size_t data_len;           /* up to the closing "\n  </AppendedData>" */
    size_t n;
    uint64_t off[64];
} appended;

static void parse_appended(const char *path, appended *a)
{
    memset(a, 0, sizeof *a);
    a->buf = slurp(path, &a->len);
    const char *tag = strstr(a->buf, "<AppendedData encoding=\"raw\">\n   _");
    cr_assert_not_null(tag, "no appended section");
    a->data = (const unsigned char *)strchr(tag, '_') + 1;
    const char *end = a->buf + a->len - strlen("\n  </AppendedData>\n</VTKFile>\n");
    cr_assert_str_eq(end, "\n  </AppendedData>\n</VTKFile>\n");
    a->data_len = (size_t)(end - (const char *)a->data);
    for (const char *p = a->buf; p < tag && (p = strstr(p, " offset=\"")) && p < tag; p++) {
        cr_assert_lt(a->n, 64);
        a->off[a->n++] = strtoull(p + 9, NULL, 10);
    }
    cr_assert_gt(a->n, 0);
    cr_assert_eq(a->off[0], 0);
}

static size_t payload_end(const appended *a, size_t i)
{
    return i + 1 < a->n ? a->off[i + 1] : a->data_len;
}

/* Check payload i against `want` (LE bytes): header words, block sizes, inflated content,
 * and that it ends exactly where the next one starts. */
static void check_zlib_payload(const appended *a, size_t i, const unsigned char *want,
                               size_t nbytes)
{
    const unsigned char *h = a->data + a->off[i];
    uint64_t nblocks = get_u64(h), bs = get_u64(h + 8), last = get_u64(h + 16);
    cr_assert_eq(bs, 32768, "payload %zu: block size %llu", i, (unsigned long long)bs);
    cr_assert_eq(nblocks, (nbytes + 32767) / 32768, "payload %zu: %llu blocks for %zu bytes", i,
                 (unsigned long long)nblocks, nbytes);
    cr_assert_eq(last, nbytes % 32768, "payload %zu: last block %llu", i, (unsigned long long)last);
    const unsigned char *z = h + 24 + 8 * nblocks;
    size_t done = 0;
    unsigned char *out = malloc(32768);
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t clen = get_u64(h + 24 + 8 * b);
        size_t ulen = (b + 1 < nblocks || last == 0) ? 32768 : (size_t)last;
        uLongf got = 32768;
        cr_assert_eq(uncompress(out, &got, z, (uLong)clen), Z_OK, "payload %zu block %llu", i,
                     (unsigned long long)b);
        cr_assert_eq(got, ulen, "payload %zu block %llu inflates to %lu bytes", i,
                     (unsigned long long)b, (unsigned long)got);
        cr_assert(memcmp(out, want + done, ulen) == 0, "payload %zu block %llu differs", i,
                  (unsigned long long)b);
        done += ulen;
        z += clen;
    }
    free(out);
    cr_assert_eq(done, nbytes);
    cr_assert_eq((size_t)(z - a->data), payload_end(a, i), "payload %zu size mismatch", i);
}

static void check_raw_payload(const appended *a, size_t i, const unsigned char *want, size_t nbytes)
{
    const unsigned char *h = a->data + a->off[i];
    cr_assert_eq(get_u64(h), nbytes, "raw payload %zu byte count", i);
    cr_assert(memcmp(h + 8, want, nbytes) == 0, "raw payload %zu differs", i);
    cr_assert_eq(a->off[i] + 8 + nbytes, payload_end(a, i));
}

/* Points only, no cells: payloads are phi, vec, id (point data), cell_id (cell data,
 * empty), Points, connectivity, offsets, types (the last three empty). */
static void payload_case(size_t np, int enc)
{
    double *pts = malloc(3 * np * sizeof *pts + 1), *phi = malloc(np * sizeof *phi + 1);
    double *vec = malloc(3 * np * sizeof *vec + 1);
    int64_t *id = malloc(np * sizeof *id + 1);
    for (size_t i = 0; i < np; i++) {
        phi[i] = sin((double)i) * 1e3;
        id[i] = (int64_t)i * 1000003 - 77;
        for (int c = 0; c < 3; c++) {
            pts[3 * i + c] = (double)i / (c + 1.5);
            vec[3 * i + c] = cos(i * 0.01 + c);
        }
    }
    int32_t cid[1] = {0};
    ldem_vtk_array pd[] = {{"phi", LDEM_VTK_FLOAT64, 1, phi},
                           {"vec", LDEM_VTK_FLOAT64, 3, vec},
                           {"id", LDEM_VTK_INT64, 1, id}};
    ldem_vtk_array cd[] = {{"cell_id", LDEM_VTK_INT32, 1, cid}};
    ldem_vtu_grid g = {.npoints = np,
                       .points = pts,
                       .npoint_data = 3,
                       .point_data = pd,
                       .ncell_data = 1,
                       .cell_data = cd};
    const char *path = in_tmp("payload.vtu");
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(path, &g, enc, &err), LDEM_OK, "%s", err.msg);

    appended a;
    parse_appended(path, &a);
    cr_assert_eq(a.n, 8);
    const void *data[8] = {phi, vec, id, cid, pts, NULL, NULL, NULL};
    size_t n[8] = {np, 3 * np, np, 0, 3 * np, 0, 0, 0};
    size_t size[8] = {8, 8, 8, 4, 8, 8, 8, 1};
    for (size_t i = 0; i < 8; i++) {
        unsigned char *want = le_array(data[i], n[i], size[i]);
        if (enc == LDEM_VTK_ZLIB)
            check_zlib_payload(&a, i, want, n[i] * size[i]);
        else
            check_raw_payload(&a, i, want, n[i] * size[i]);
        free(want);
    }
    free(a.buf);
    free(pts), free(phi), free(vec), free(id);
}

Test(payload, zlib_multi_block_with_partial_last_block)
{
    payload_case(100003, LDEM_VTK_ZLIB); /* 800024 bytes: 24 full blocks + 13592 */
}

Test(payload, zlib_exact_multiple_of_block_size)
{
    payload_case(8192, LDEM_VTK_ZLIB); /* 65536 bytes: 2 full blocks, last = 0 */
}

Test(payload, zlib_single_small_block)
{
    payload_case(5, LDEM_VTK_ZLIB);
}

Test(payload, raw_headers_and_bytes)
{
    payload_case(5000, LDEM_VTK_RAW);
}

Test(payload, zlib_float32_image)
{
    enum { NX = 50, NY = 40, NZ = 30 };
    float *phi = malloc(NX * NY * NZ * sizeof *phi);
    for (int i = 0; i < NX * NY * NZ; i++)
        phi[i] = (float)(i % 1000) * 0.37f - 10.0f;
    ldem_vtk_array pd[] = {{"phi", LDEM_VTK_FLOAT32, 1, phi}};
    ldem_vti_image img = {.dims = {NX, NY, NZ},
                          .origin = {0, 0, 0},
                          .spacing = {1, 1, 1},
                          .npoint_data = 1,
                          .point_data = pd};
    const char *path = in_tmp("phi.vti");
    cr_assert_eq(ldem_vti_write(path, &img, LDEM_VTK_ZLIB, NULL), LDEM_OK);
    appended a;
    parse_appended(path, &a);
    cr_assert_eq(a.n, 1);
    unsigned char *want = le_array(phi, NX * NY * NZ, 4);
    check_zlib_payload(&a, 0, want, NX * NY * NZ * 4);
    free(want);
    free(a.buf);
    free(phi);
}

/* Every ASCII number must parse back to the identical bits (NaN: any NaN). */
Test(vtu, ascii_round_trips_exactly)
{
    enum { N = 4000 };
    double *v = malloc(N * sizeof *v);
    float *f = malloc(N * sizeof *f);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint64_t bits = s;
        memcpy(&v[i], &bits, 8); /* arbitrary bit patterns, denormals included */
        if (isinf(v[i]) && v[i] < 0)
            v[i] = 0;
        uint32_t fb = (uint32_t)(s >> 32);
        memcpy(&f[i], &fb, 4);
        if (isinf(f[i]) && f[i] < 0)
            f[i] = 0;
    }
    v[0] = -0.0, v[1] = 5e-324, v[2] = DBL_MAX, v[3] = 0.1, v[4] = NAN, v[5] = INFINITY;
    ldem_vtk_array pd[] = {{"d", LDEM_VTK_FLOAT64, 1, v}, {"f", LDEM_VTK_FLOAT32, 1, f}};
    double *pts = calloc(3 * N, sizeof *pts);
    ldem_vtu_grid g = {.npoints = N, .points = pts, .npoint_data = 2, .point_data = pd};
    const char *path = in_tmp("exact.vtu");
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(path, &g, LDEM_VTK_ASCII, &err), LDEM_OK, "%s", err.msg);
    char *text = slurp(path, NULL);
    char *p = strstr(text, "Name=\"d\"");
    cr_assert_not_null(p);
    p = strchr(p, '>') + 1;
    for (int i = 0; i < N; i++) {
        char *e;
        double r = strtod(p, &e);
        cr_assert_neq(e, p, "value %d unparsable", i);
        p = e;
        if (isnan(v[i]))
            cr_assert(isnan(r));
        else
            cr_assert(memcmp(&r, &v[i], 8) == 0, "double %d: wrote %.17g, read %.17g", i, v[i], r);
    }
    p = strchr(strstr(text, "Name=\"f\""), '>') + 1;
    for (int i = 0; i < N; i++) {
        char *e;
        float r = strtof(p, &e);
        cr_assert_neq(e, p);
        p = e;
        if (isnan(f[i]))
            cr_assert(isnan(r));
        else
            cr_assert(memcmp(&r, &f[i], 4) == 0, "float %d: wrote %.9g, read %.9g", i, (double)f[i],
                      (double)r);
    }
    free(text), free(v), free(f), free(pts);
}

/* ------------------------------------------------------------------ encoding names */

Test(vtu, encoding_names)
{
    int e = -1;
    cr_assert_eq(ldem_vtk_encoding_parse("ascii", &e, NULL), LDEM_OK);
    cr_assert_eq(e, LDEM_VTK_ASCII);
    cr_assert_eq(ldem_vtk_encoding_parse("raw", &e, NULL), LDEM_OK);
    cr_assert_eq(e, LDEM_VTK_RAW);
    cr_assert_eq(ldem_vtk_encoding_parse("zlib", &e, NULL), LDEM_OK);
    cr_assert_eq(e, LDEM_VTK_ZLIB);
    ldem_err err;
    cr_assert_eq(ldem_vtk_encoding_parse("binary", &e, &err), LDEM_ERR_USAGE);
    cr_assert_not_null(strstr(err.msg, "zlib"));
    cr_assert_eq(ldem_vtk_encoding_parse(NULL, &e, NULL), LDEM_ERR_USAGE);
    cr_assert_str_eq(ldem_vtk_encoding_name(LDEM_VTK_RAW), "raw");
    cr_assert_null(ldem_vtk_encoding_name(7));
}
