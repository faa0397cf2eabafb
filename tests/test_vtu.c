/* Unit tests of the VTK XML writers (ldem/vtu.h): validation leaves no files, failed
 * rewrites keep older files, appended payload headers are exactly VTK's layout, ASCII
 * values round-trip bit-exactly, PVD paths are relative. VTK itself reads our files in
 * tests/vtk (the vtk-readback test). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ldem/err.h"
#include "ldem/vtu.h"

/* ------------------------------------------------------------------ helpers */

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/ldem_test_vtu_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char sub[PATH_MAX];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                rm_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void remove_tmpdir(void)
{
    rm_tree(tmpdir);
}

/* tmpdir/name in a static rotating buffer. */
static const char *in_tmp(const char *name)
{
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, PATH_MAX, "%s/%s", tmpdir, name);
    return b;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    if (len)
        *len = (size_t)n;
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs(text, fp);
    fclose(fp);
}

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

/* A small grid with every cell type, in writable storage so tests can break it. */
typedef struct fixture {
    double points[12][3];
    int64_t conn[32];
    int64_t offsets[6];
    uint8_t types[6];
    double phi[12];
    double vel[12][3];
    int64_t gid[12];
    int32_t cell_id[6];
    ldem_vtk_array pd[3];
    ldem_vtk_array cd[1];
    ldem_vtu_grid g;
} fixture;

static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 12; i++) {
        f->points[i][0] = i * 0.1;
        f->points[i][1] = i % 3;
        f->points[i][2] = -i / 7.0;
        f->phi[i] = i - 5.5;
        for (int c = 0; c < 3; c++)
            f->vel[i][c] = i + c / 3.0;
        f->gid[i] = 100 + i;
    }
    static const int64_t conn[] = {11, 0, 1, 0, 1, 2, 0, 1, 2, 3,  0,
                                   1,  2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    static const int64_t off[] = {1, 3, 6, 10, 20, 22};
    static const uint8_t types[] = {LDEM_VTK_VERTEX,          LDEM_VTK_LINE,
                                    LDEM_VTK_TRIANGLE,        LDEM_VTK_TETRA,
                                    LDEM_VTK_QUADRATIC_TETRA, LDEM_VTK_LINE};
    memcpy(f->conn, conn, sizeof conn);
    memcpy(f->offsets, off, sizeof off);
    memcpy(f->types, types, sizeof types);
    for (int c = 0; c < 6; c++)
        f->cell_id[c] = c;
    f->pd[0] = (ldem_vtk_array){"phi", LDEM_VTK_FLOAT64, 1, f->phi};
    f->pd[1] = (ldem_vtk_array){"velocity", LDEM_VTK_FLOAT64, 3, f->vel};
    f->pd[2] = (ldem_vtk_array){"grain_id", LDEM_VTK_INT64, 1, f->gid};
    f->cd[0] = (ldem_vtk_array){"cell_id", LDEM_VTK_INT32, 1, f->cell_id};
    f->g = (ldem_vtu_grid){
        .npoints = 12,
        .points = &f->points[0][0],
        .ncells = 6,
        .connectivity = f->conn,
        .offsets = f->offsets,
        .types = f->types,
        .npoint_data = 3,
        .point_data = f->pd,
        .ncell_data = 1,
        .cell_data = f->cd,
    };
}

static const int encodings[] = {LDEM_VTK_ASCII, LDEM_VTK_RAW, LDEM_VTK_ZLIB};

/* The write must fail with `code`, name the target, and leave the directory empty
 * (neither the target nor a temporary file). Checked in every encoding. */
static void expect_vtu_rejected(const ldem_vtu_grid *g, int code, const char *why)
{
    for (int e = 0; e < 3; e++) {
        const char *path = in_tmp("out.vtu");
        ldem_err err;
        ldem_err_clear(&err);
        int rc = ldem_vtu_write(path, g, encodings[e], &err);
        cr_assert_eq(rc, code, "%s (%s): status %d, expected %d (%s)", why,
                     ldem_vtk_encoding_name(encodings[e]), rc, code, err.msg);
        cr_assert_eq(err.code, code);
        cr_assert_str_eq(err.file, path, "%s: error names '%s'", why, err.file);
        cr_assert_neq(err.msg[0], '\0');
        cr_assert_eq(count_entries(tmpdir), 0, "%s: files left behind", why);
    }
}

static void expect_vti_rejected(const ldem_vti_image *img, int code, const char *why)
{
    for (int e = 0; e < 3; e++) {
        const char *path = in_tmp("out.vti");
        ldem_err err;
        ldem_err_clear(&err);
        int rc = ldem_vti_write(path, img, encodings[e], &err);
        cr_assert_eq(rc, code, "%s: status %d, expected %d (%s)", why, rc, code, err.msg);
        cr_assert_str_eq(err.file, path);
        cr_assert_eq(count_entries(tmpdir), 0, "%s: files left behind", why);
    }
}

TestSuite(vtu, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(vtu_invalid, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(vti, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(payload, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(pvd, .init = make_tmpdir, .fini = remove_tmpdir);

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

/* ------------------------------------------------------------------ validation */

Test(vtu_invalid, connectivity_out_of_range)
{
    fixture f;
    fixture_init(&f);
    f.conn[5] = 12; /* == npoints */
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "node id == npoints");
    f.conn[5] = -1;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "negative node id");
    f.conn[5] = INT64_MAX;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "huge node id");
}

Test(vtu_invalid, offsets_not_increasing)
{
    fixture f;
    fixture_init(&f);
    f.offsets[2] = f.offsets[1];
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "repeated offset");
    fixture_init(&f);
    f.offsets[3] = 2;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "decreasing offset");
    fixture_init(&f);
    f.offsets[0] = 0;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "first offset 0");
    fixture_init(&f);
    f.offsets[0] = -3;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "negative offset");
}

Test(vtu_invalid, unknown_cell_type)
{
    static const uint8_t bad[] = {0, 2, 7, 9, 12, 23, 25, 255};
    fixture f;
    for (size_t i = 0; i < sizeof bad; i++) {
        fixture_init(&f);
        f.types[0] = bad[i];
        expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "unknown cell type");
    }
}

Test(vtu_invalid, node_count_does_not_match_type)
{
    /* Each cell of the fixture relabelled as a type with a different node count. */
    static const uint8_t wrong[6] = {LDEM_VTK_LINE,  LDEM_VTK_VERTEX,
                                     LDEM_VTK_TETRA, LDEM_VTK_QUADRATIC_TETRA,
                                     LDEM_VTK_TETRA, LDEM_VTK_TRIANGLE};
    fixture f;
    for (int c = 0; c < 6; c++) {
        fixture_init(&f);
        f.types[c] = wrong[c];
        expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "node count vs type");
    }
}

Test(vtu_invalid, bad_arrays)
{
    fixture f;
    fixture_init(&f);
    f.pd[1].name = "";
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "empty name");
    fixture_init(&f);
    f.pd[1].name = NULL;
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "NULL name");
    fixture_init(&f);
    f.pd[2].name = "phi";
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "duplicate name");
    fixture_init(&f);
    f.cd[0].name = "tab\there";
    expect_vtu_rejected(&f.g, LDEM_ERR_INPUT, "control character in name");
    fixture_init(&f);
    f.pd[0].type = 0;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "type 0");
    fixture_init(&f);
    f.cd[0].type = 99;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "type 99");
    fixture_init(&f);
    f.pd[1].ncomp = 0;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "ncomp 0");
    fixture_init(&f);
    f.pd[1].data = NULL;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "no data");
    fixture_init(&f);
    f.g.point_data = NULL;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "no array list");
}

Test(vtu_invalid, missing_pointers_and_bad_encoding)
{
    fixture f;
    fixture_init(&f);
    f.g.points = NULL;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "no points");
    fixture_init(&f);
    f.g.offsets = NULL;
    expect_vtu_rejected(&f.g, LDEM_ERR_USAGE, "no offsets");
    expect_vtu_rejected(NULL, LDEM_ERR_USAGE, "no grid");
    fixture_init(&f);
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(in_tmp("x.vtu"), &f.g, 3, &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_vtu_write(in_tmp("x.vtu"), &f.g, -1, &err), LDEM_ERR_USAGE);
    cr_assert_eq(count_entries(tmpdir), 0);
}

Test(vtu_invalid, neg_inf_refused_in_ascii_only)
{
    fixture f;
    fixture_init(&f);
    f.phi[4] = -INFINITY;
    const char *path = in_tmp("inf.vtu");
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ASCII, &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.msg, "-inf"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "phi"), "%s", err.msg);
    cr_assert_eq(count_entries(tmpdir), 0);
    fixture_init(&f);
    f.points[5][2] = -INFINITY;
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ASCII, &err), LDEM_ERR_INPUT);
    cr_assert_eq(count_entries(tmpdir), 0);
    float v[12] = {0};
    v[11] = -INFINITY;
    fixture_init(&f);
    f.pd[0] = (ldem_vtk_array){"f", LDEM_VTK_FLOAT32, 1, v};
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ASCII, &err), LDEM_ERR_INPUT);
    cr_assert_eq(count_entries(tmpdir), 0);
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ZLIB, &err), LDEM_OK);
}

Test(vti, invalid_images_leave_no_file)
{
    float phi[8] = {0};
    ldem_vtk_array pd[] = {{"phi", LDEM_VTK_FLOAT32, 1, phi}};
    ldem_vti_image ok = {.dims = {2, 2, 2},
                         .origin = {0, 0, 0},
                         .spacing = {1, 1, 1},
                         .npoint_data = 1,
                         .point_data = pd};
    ldem_vti_image img = ok;
    img.dims[1] = 0;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "zero dimension");
    img = ok;
    img.dims[2] = (size_t)INT_MAX + 2;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "dimension beyond int extents");
    img = ok;
    img.spacing[0] = 0;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "zero spacing");
    img = ok;
    img.spacing[1] = -0.5;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "negative spacing");
    img = ok;
    img.spacing[2] = NAN;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "NaN spacing");
    img = ok;
    img.origin[0] = INFINITY;
    expect_vti_rejected(&img, LDEM_ERR_INPUT, "infinite origin");
    pd[0].type = 0;
    expect_vti_rejected(&ok, LDEM_ERR_USAGE, "array type 0");
    pd[0].type = LDEM_VTK_FLOAT32;
    expect_vti_rejected(NULL, LDEM_ERR_USAGE, "no image");
    cr_assert_eq(ldem_vti_write(in_tmp("ok.vti"), &ok, LDEM_VTK_ZLIB, NULL), LDEM_OK);
}

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

/* ------------------------------------------------------------------ atomic rewrites */

Test(vtu, failed_rewrite_keeps_older_file)
{
    fixture f;
    fixture_init(&f);
    const char *path = in_tmp("keep.vtu");
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_RAW, NULL), LDEM_OK);
    size_t n0;
    char *before = slurp(path, &n0);

    /* Rejected input. */
    f.types[3] = 77;
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(path, &f.g, LDEM_VTK_ZLIB, &err), LDEM_ERR_INPUT);

    /* An I/O failure after the temporary file exists: cap the file size (this test runs
     * in its own process) so that writing a larger grid fails part-way. */
    enum { N = 20000 };
    double *pts = calloc(3 * N, sizeof *pts);
    for (int i = 0; i < 3 * N; i++)
        pts[i] = sin(i) * i; /* incompressible enough that zlib output exceeds the cap too */
    ldem_vtu_grid big = {.npoints = N, .points = pts};
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = 65536, .rlim_max = RLIM_INFINITY};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    for (int e = 0; e < 3; e++) {
        ldem_err_clear(&err);
        int rc = ldem_vtu_write(path, &big, encodings[e], &err);
        cr_assert_eq(rc, LDEM_ERR_IO, "%s: status %d (%s)", ldem_vtk_encoding_name(encodings[e]),
                     rc, err.msg);
        cr_assert_str_eq(err.file, path);
    }
    rl.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
    free(pts);

    size_t n1;
    char *after = slurp(path, &n1);
    cr_assert_eq(n0, n1);
    cr_assert(memcmp(before, after, n0) == 0, "older file was modified");
    cr_assert_eq(count_entries(tmpdir), 1, "temporary files left behind");
    free(before);
    free(after);
}

Test(vtu, missing_directory_is_io_error)
{
    fixture f;
    fixture_init(&f);
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(in_tmp("no/such/dir.vtu"), &f.g, LDEM_VTK_RAW, &err), LDEM_ERR_IO);
    cr_assert_eq(count_entries(tmpdir), 0);
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

/* ------------------------------------------------------------------ pvd */

static void touch(const char *path)
{
    write_text(path, "x");
}

static void mkdir_tmp(const char *rel)
{
    cr_assert_eq(mkdir(in_tmp(rel), 0777), 0);
}

Test(pvd, add_rewrites_with_relative_paths)
{
    cr_assert_eq(chdir(tmpdir), 0); /* each test runs in its own process */
    mkdir_tmp("out");
    mkdir_tmp("out/frames");
    touch("out/frames/f0.vtu");
    touch("out/frames/f1.vtu");
    ldem_pvd *p;
    ldem_err err;
    cr_assert_eq(ldem_pvd_create(&p, "out/run.pvd", &err), LDEM_OK, "%s", err.msg);
    char *text = slurp("out/run.pvd", NULL);
    cr_assert_not_null(strstr(text, "<Collection>\n  </Collection>"), "%s", text);
    free(text);
    cr_assert_eq(ldem_pvd_add(p, 0.0, "out/frames/f0.vtu", &err), LDEM_OK, "%s", err.msg);
    char abs1[PATH_MAX];
    snprintf(abs1, sizeof abs1, "%s/out/./frames/../frames/f1.vtu", tmpdir);
    cr_assert_eq(ldem_pvd_add(p, 0.1 + 0.2, abs1, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_pvd_count(p), 2);
    text = slurp("out/run.pvd", NULL);
    cr_assert_str_eq(text,
                     "<?xml version=\"1.0\"?>\n"
                     "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                     "  <Collection>\n"
                     "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"frames/f0.vtu\"/>\n"
                     "    <DataSet timestep=\"0.30000000000000004\" group=\"\" part=\"0\" "
                     "file=\"frames/f1.vtu\"/>\n"
                     "  </Collection>\n"
                     "</VTKFile>\n");
    free(text);

    /* Rejected frames leave file and count unchanged. */
    size_t n0;
    char *before = slurp("out/run.pvd", &n0);
    cr_assert_eq(ldem_pvd_add(p, 0.5, "out/frames/missing.vtu", &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "out/frames/missing.vtu");
    cr_assert_eq(ldem_pvd_add(p, NAN, "out/frames/f0.vtu", &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_pvd_add(p, INFINITY, "out/frames/f0.vtu", &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_pvd_add(p, 1.0, "", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_pvd_add(p, 1.0, "out/frames", &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_pvd_count(p), 2);
    size_t n1;
    char *after = slurp("out/run.pvd", &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0);
    free(before), free(after);
    ldem_pvd_free(p);
    cr_assert_eq(count_entries("out"), 2, "temporary files left behind");
}

Test(pvd, relative_path_cases)
{
    cr_assert_eq(chdir(tmpdir), 0);
    mkdir_tmp("x");
    mkdir_tmp("x/sub");
    mkdir_tmp("y");
    mkdir_tmp("y/z");
    touch("a.vtu");
    touch("x/b.vtu");
    touch("y/z/c.vtu");
    touch("a&b \"q\".vtu");
    cr_assert_eq(symlink("y/z", "link"), 0);
    struct {
        const char *pvd, *file, *want;
    } cases[] = {
        {"run.pvd", "a.vtu", "a.vtu"},
        {"run.pvd", "./y/z/c.vtu", "y/z/c.vtu"},
        {"x/sub/run.pvd", "x/b.vtu", "../b.vtu"},
        {"x/sub/run.pvd", "a.vtu", "../../a.vtu"},
        {"x/run.pvd", "y/z/c.vtu", "../y/z/c.vtu"},
        {"y/z/run.pvd", "y/z/c.vtu", "c.vtu"},
        {"link/run.pvd", "y/z/c.vtu", "c.vtu"}, /* symlinked directory */
        {"x/../y/run.pvd", "link/c.vtu", "z/c.vtu"},
        {"run.pvd", "a&b \"q\".vtu", "a&amp;b &quot;q&quot;.vtu"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double t = (double)i;
        const char *files[1] = {cases[i].file};
        ldem_err err;
        cr_assert_eq(ldem_pvd_write(cases[i].pvd, 1, &t, files, &err), LDEM_OK, "%s", err.msg);
        char *text = slurp(cases[i].pvd, NULL);
        char want[256];
        snprintf(want, sizeof want, "file=\"%s\"/>", cases[i].want);
        cr_assert_not_null(strstr(text, want), "case %zu: %s", i, text);
        free(text);
    }
}

Test(pvd, write_rejects_bad_lists_and_keeps_old_file)
{
    cr_assert_eq(chdir(tmpdir), 0);
    touch("f.vtu");
    double t[2] = {0, 1};
    const char *files[2] = {"f.vtu", "f.vtu"};
    ldem_err err;
    cr_assert_eq(ldem_pvd_write("s.pvd", 2, t, files, &err), LDEM_OK, "%s", err.msg);
    size_t n0;
    char *before = slurp("s.pvd", &n0);
    files[1] = "nope.vtu";
    cr_assert_eq(ldem_pvd_write("s.pvd", 2, t, files, &err), LDEM_ERR_INPUT);
    files[1] = "f.vtu";
    t[1] = NAN;
    cr_assert_eq(ldem_pvd_write("s.pvd", 2, t, files, &err), LDEM_ERR_INPUT);
    cr_assert_eq(ldem_pvd_write("s.pvd", 2, NULL, files, &err), LDEM_ERR_USAGE);
    size_t n1;
    char *after = slurp("s.pvd", &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0);
    cr_assert_eq(count_entries("."), 2);
    free(before), free(after);
}

Test(pvd, io_failure_on_add_keeps_previous_frames)
{
    cr_assert_eq(chdir(tmpdir), 0);
    touch("f.vtu");
    ldem_pvd *p;
    ldem_err err;
    cr_assert_eq(ldem_pvd_create(&p, "run.pvd", &err), LDEM_OK);
    cr_assert_eq(ldem_pvd_add(p, 1, "f.vtu", &err), LDEM_OK);
    size_t n0;
    char *before = slurp("run.pvd", &n0);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = n0 + 10, .rlim_max = RLIM_INFINITY};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    cr_assert_eq(ldem_pvd_add(p, 2, "f.vtu", &err), LDEM_ERR_IO);
    cr_assert_eq(ldem_pvd_count(p), 1);
    rl.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
    size_t n1;
    char *after = slurp("run.pvd", &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0);
    cr_assert_eq(count_entries("."), 2, "temporary file left behind");
    /* And the collection carries on once writing works again. */
    cr_assert_eq(ldem_pvd_add(p, 3, "f.vtu", &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(ldem_pvd_count(p), 2);
    ldem_pvd_free(p);
    free(before), free(after);
}

Test(pvd, create_rejects_stdout_and_empty)
{
    ldem_pvd *p = (ldem_pvd *)1;
    cr_assert_eq(ldem_pvd_create(&p, "-", NULL), LDEM_ERR_USAGE);
    cr_assert_null(p);
    cr_assert_eq(ldem_pvd_create(&p, "", NULL), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_pvd_add(NULL, 0, "x", NULL), LDEM_ERR_USAGE);
    ldem_pvd_free(NULL);
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
