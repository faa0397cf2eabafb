/* ParaView collections (ldem/vtu.h, ldem_pvd_*): frames are listed with paths relative to
 * the .pvd file (through "..", "." and symlinked directories, XML-escaped), each add
 * rewrites the file atomically, and rejected frames or I/O failures leave the previous
 * file and frame count unchanged. */
#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ldem/err.h"
#include "ldem/vtu.h"
#include "support/vtu_fixtures.h"

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs(text, fp);
    fclose(fp);
}

TestSuite(pvd, .init = make_tmpdir, .fini = remove_tmpdir);

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
