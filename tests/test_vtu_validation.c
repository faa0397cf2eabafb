/* Validation and atomic writes of the VTK XML writers (ldem/vtu.h): invalid grids and
 * images are refused with the right status and leave no file behind (neither the target
 * nor a temporary), and a failed rewrite -- rejected input or an I/O error part-way --
 * keeps the older file intact. */
#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ldem/err.h"
#include "ldem/vtu.h"
#include "support/vtu_fixtures.h"

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

/* A missing folder is the user's path to fix: bad input, exit 2 (ldem/err.h). */
Test(vtu, missing_directory_is_input_error)
{
    fixture f;
    fixture_init(&f);
    ldem_err err;
    cr_assert_eq(ldem_vtu_write(in_tmp("no/such/dir.vtu"), &f.g, LDEM_VTK_RAW, &err),
                 LDEM_ERR_INPUT);
    cr_assert_eq(count_entries(tmpdir), 0);
}
