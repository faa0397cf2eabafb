/* Unit tests of lsgen's STL checks (stl_check.h): files written into a fresh mkdtemp
 * directory, valid variants accepted, every error with its line (ASCII) or triangle
 * (binary), every truncation of a valid file, and garbage. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ldem/mesh.h"
#include "mesh_fixture.h"
#include "stl_check.h"
#include "../support/test_rng.h"

/* ================================================================ STL checks */

static char stl_dir[64];

static void make_stl_dir(void)
{
    snprintf(stl_dir, sizeof stl_dir, "%s", "/tmp/lsgen-stl-XXXXXX");
    cr_assert(mkdtemp(stl_dir), "mkdtemp: %s", strerror(errno));
}

/* Remove the files of the flat scratch directory, then the directory (the .fini of every
 * STL test, so it also runs after a failed assertion). */
static void remove_stl_dir(void)
{
    DIR *d = opendir(stl_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char path[sizeof stl_dir + sizeof e->d_name + 1];
            snprintf(path, sizeof path, "%s/%s", stl_dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(stl_dir);
}

static const char *stl_path(const char *name)
{
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 128, "%s/%s", stl_dir, name);
    return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* The unit cube as ASCII STL text (12 facets, 7 lines each, between "solid" and
 * "endsolid"): facet k's vertex j is on line 2 + 7k + 2 + j. */
static size_t cube_ascii(char *out, size_t cap, const char *newline)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    size_t n = (size_t)snprintf(out, cap, "solid cube%s", newline);
    for (size_t t = 0; t < 12; t++) {
        double nrm[3], c[3];
        tri_normal(&m, t, nrm, c);
        n += (size_t)snprintf(out + n, cap - n, "  facet normal %g %g %g%s    outer loop%s", nrm[0],
                              nrm[1], nrm[2], newline, newline);
        for (int k = 0; k < 3; k++) {
            const double *p = m.xyz + 3 * (size_t)m.tri[3 * t + k];
            n += (size_t)snprintf(out + n, cap - n, "      vertex %.17g %.17g %.17g%s", p[0], p[1],
                                  p[2], newline);
        }
        n += (size_t)snprintf(out + n, cap - n, "    endloop%s  endfacet%s", newline, newline);
    }
    n += (size_t)snprintf(out + n, cap - n, "endsolid cube%s", newline);
    cr_assert_lt(n, cap);
    ldem_trimesh_free(&m);
    return n;
}

static void put_le32(unsigned char *p, uint32_t u)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(u >> (8 * k));
}

static void put_float(unsigned char *p, float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    put_le32(p, u);
}

/* The unit cube as binary STL: 84 + 12·50 = 684 bytes. */
static size_t cube_binary(unsigned char *out, const char *header)
{
    ldem_trimesh m;
    make_unit_cube(&m);
    memset(out, ' ', 80);
    memcpy(out, header, strlen(header));
    put_le32(out + 80, 12);
    for (size_t t = 0; t < 12; t++) {
        unsigned char *r = out + 84 + 50 * t;
        double nrm[3], c[3];
        tri_normal(&m, t, nrm, c);
        for (int k = 0; k < 3; k++)
            put_float(r + 4 * k, (float)nrm[k]);
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                put_float(r + 12 + 12 * v + 4 * k, (float)m.xyz[3 * (size_t)m.tri[3 * t + v] + k]);
        r[48] = r[49] = 0;
    }
    ldem_trimesh_free(&m);
    return 684;
}

static int check_file(const char *path, size_t *n, ldem_err *err)
{
    *n = 0;
    ldem_err_clear(err);
    return lsgen_stl_check(path, n, err);
}

Test(stl_check, valid_ascii_and_binary, .init = make_stl_dir, .fini = remove_stl_dir)
{
    char text[8192];
    unsigned char bin[684];
    size_t n;
    ldem_err err;
    cube_ascii(text, sizeof text, "\n");
    write_text(stl_path("a.stl"), text);
    cr_assert_eq(check_file(stl_path("a.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 12);
    /* CRLF line ends */
    cube_ascii(text, sizeof text, "\r\n");
    write_text(stl_path("crlf.stl"), text);
    cr_assert_eq(check_file(stl_path("crlf.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 12);
    cube_binary(bin, "binary cube");
    write_bytes(stl_path("b.stl"), bin, sizeof bin);
    cr_assert_eq(check_file(stl_path("b.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 12);
    /* a binary header starting with "solid", as many exporters write it */
    cube_binary(bin, "solid exported by a CAD system");
    write_bytes(stl_path("bs.stl"), bin, sizeof bin);
    cr_assert_eq(check_file(stl_path("bs.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 12);
}

/* Uppercase keywords, two solids, and a missing final endsolid (a warning). */
Test(stl_check, ascii_variants_accepted, .init = make_stl_dir, .fini = remove_stl_dir)
{
    char text[8192], two[16384];
    size_t n;
    ldem_err err;
    size_t len = cube_ascii(text, sizeof text, "\n");
    char *upper = strdup(text);
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    write_text(stl_path("upper.stl"), upper);
    cr_assert_eq(check_file(stl_path("upper.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 12);
    free(upper);
    snprintf(two, sizeof two, "%s%s", text, text);
    write_text(stl_path("two.stl"), two);
    cr_assert_eq(check_file(stl_path("two.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(n, 24);
    /* drop "endsolid cube\n" */
    text[len - strlen("endsolid cube\n")] = '\0';
    write_text(stl_path("noend.stl"), text);
    capture_log();
    cr_assert_eq(check_file(stl_path("noend.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    const char *log = captured_log();
    cr_assert_eq(n, 12);
    cr_assert(strstr(log, "warning:") && strstr(log, "no 'endsolid'"), "%s", log);
    /* trailing blank lines after endsolid are harmless */
    cube_ascii(text, sizeof text, "\n");
    strcat(text, "\n  \n\n");
    write_text(stl_path("blank-end.stl"), text);
    cr_assert_eq(check_file(stl_path("blank-end.stl"), &n, &err), LDEM_OK, "%s", err.msg);
}

/* Replace the first occurrence of `from` after line `line` (1-based) with `to`. */
static void replace_on_line(char *text, int line, const char *from, const char *to)
{
    char *p = text;
    for (int l = 1; l < line; l++) {
        p = strchr(p, '\n');
        cr_assert(p);
        p++;
    }
    char *at = strstr(p, from);
    char *eol = strchr(p, '\n');
    cr_assert(at && (!eol || at <= eol), "fixture: '%s' not on line %d", from, line);
    size_t lf = strlen(from), lt = strlen(to);
    memmove(at + lt, at + lf, strlen(at + lf) + 1);
    memcpy(at, to, lt);
}

/* One broken ASCII file: LDEM_ERR_INPUT at `line` with `fragment` in the message. */
static void expect_ascii_error(const char *text, long line, const char *fragment)
{
    static int count;
    char name[32];
    snprintf(name, sizeof name, "bad%d.stl", count++);
    const char *path = stl_path(name);
    write_text(path, text);
    size_t n;
    ldem_err err;
    cr_assert_eq(check_file(path, &n, &err), LDEM_ERR_INPUT, "accepted: %s", fragment);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, line, "line %ld, expected %ld: %s", err.line, line, err.msg);
    cr_assert(strstr(err.msg, fragment), "'%s' not in '%s'", fragment, err.msg);
}

/* Vertex j (0..2) of facet k (0..11) is on line 4 + 7k + j of cube_ascii's text (line 1
 * is "solid", each facet 7 lines: facet, outer loop, 3 vertices, endloop, endfacet). */
static int vertex_line(int k, int j)
{
    return 4 + 7 * k + j;
}

Test(stl_check, ascii_errors_with_line_numbers, .init = make_stl_dir, .fini = remove_stl_dir)
{
    char base[8192], t[8192];
    cube_ascii(base, sizeof base, "\n");
    int vl = vertex_line(4, 1);

    strcpy(t, base);
    replace_on_line(t, vl, "vertex", "vertx");
    expect_ascii_error(t, vl, "expected 'vertex', found 'vertx'");

    strcpy(t, base);
    replace_on_line(t, vl, " 0 ", " nan ");
    expect_ascii_error(t, vl, "'nan' is not finite");
    strcpy(t, base);
    replace_on_line(t, vl, " 0 ", " -inf ");
    expect_ascii_error(t, vl, "'-inf' is not finite");

    strcpy(t, base);
    replace_on_line(t, vl, " 0 ", " 0x ");
    expect_ascii_error(t, vl, "expected three numbers after 'vertex', found '0x'");

    /* two vertices: the third vertex line becomes endloop */
    strcpy(t, base);
    {
        char *p = t;
        for (int l = 1; l < vertex_line(4, 2); l++)
            p = strchr(p, '\n') + 1;
        char *eol = strchr(p, '\n');
        memmove(p, eol + 1, strlen(eol + 1) + 1);
    }
    expect_ascii_error(t, vertex_line(4, 2), "facet has 2 vertices");

    /* four vertices: duplicate a vertex line */
    strcpy(t, base);
    {
        char *p = t;
        for (int l = 1; l < vertex_line(4, 2); l++)
            p = strchr(p, '\n') + 1;
        size_t len = (size_t)(strchr(p, '\n') + 1 - p);
        memmove(p + len, p, strlen(p) + 1);
    }
    expect_ascii_error(t, vertex_line(4, 2) + 1, "more than 3 vertices");

    strcpy(t, base);
    replace_on_line(t, vl, "\n", " 7\n");
    expect_ascii_error(t, vl, "unexpected '7' after the vertex coordinates");

    strcpy(t, base);
    replace_on_line(t, 2, "normal", "norm");
    expect_ascii_error(t, 2, "expected 'normal' after 'facet'");

    strcpy(t, base);
    replace_on_line(t, 3, "outer loop", "outer");
    expect_ascii_error(t, 3, "expected 'outer loop'");

    /* two statements on one line (legal for a token parser, misread by Gmsh) */
    strcpy(t, base);
    replace_on_line(t, 2, "\n    outer", " outer");
    expect_ascii_error(t, 2, "unexpected 'outer' after the facet normal");

    /* a blank line inside the solid */
    strcpy(t, base);
    replace_on_line(t, 9, "\n", "\n\n");
    expect_ascii_error(t, 10, "blank line");

    /* truncated inside a facet */
    strcpy(t, base);
    *strstr(t, "endloop") = '\0';
    expect_ascii_error(t, 7, "ends inside a facet (expected 'endloop')");

    /* lines Gmsh would split: fgets(buf, 256) keeps 254 characters and the newline; a
     * 255-character line makes Gmsh 4.8 silently read 8 of these 12 facets */
    for (int width = 254; width <= 256; width++) {
        strcpy(t, base);
        char *p = t;
        for (int l = 1; l < vl; l++)
            p = strchr(p, '\n') + 1;
        size_t len = (size_t)(strchr(p, '\n') - p);
        size_t pad = (size_t)width - len;
        memmove(p + pad, p, strlen(p) + 1);
        memset(p, ' ', pad);
        if (width == 254) {
            write_text(stl_path("w254.stl"), t);
            size_t n;
            ldem_err err;
            cr_assert_eq(check_file(stl_path("w254.stl"), &n, &err), LDEM_OK, "%s", err.msg);
        } else {
            expect_ascii_error(t, vl, "line is longer than 254 characters");
        }
    }

    /* an empty solid, and garbage after endsolid */
    expect_ascii_error("solid a\nendsolid a\n", 2, "has no facets");
    strcpy(t, base);
    strcat(t, "garbage\n");
    expect_ascii_error(t, 87, "expected 'solid' or the end of the file after 'endsolid'");

    /* an indented endsolid followed by another solid */
    snprintf(t, sizeof t, "%s", base);
    replace_on_line(t, 86, "endsolid", "  endsolid");
    strcat(t, base);
    expect_ascii_error(t, 86, "'endsolid' must start in column 1");

    /* ASCII text that Gmsh would take for binary */
    t[0] = t[1] = ' ';
    strcpy(t + 2, base);
    expect_ascii_error(t, 1, "must start with 'solid'");
    snprintf(t, sizeof t, "S%s", base + 1);
    expect_ascii_error(t, 1, "must start with 'solid'");

    /* a control byte */
    strcpy(t, base);
    replace_on_line(t, 40, "vertex", "ver\033tex");
    expect_ascii_error(t, 40, "byte 0x1b");

    expect_ascii_error("solid nothing\n", 0, "no facets");
}

Test(stl_check, binary_errors, .init = make_stl_dir, .fini = remove_stl_dir)
{
    unsigned char bin[684 + 200];
    size_t n;
    ldem_err err;
    cube_binary(bin, "cube");

    /* NaN in triangle 5, vertex 2, y */
    unsigned char bad[684];
    memcpy(bad, bin, 684);
    put_float(bad + 84 + 50 * 5 + 12 + 12 * 1 + 4, NAN);
    write_bytes(stl_path("nan.stl"), bad, 684);
    cr_assert_eq(check_file(stl_path("nan.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "triangle 5: vertex 2 has a non-finite coordinate"), "%s", err.msg);
    cr_assert_eq(err.offset, 84 + 50 * 5 + 12 + 12 + 4);
    /* an infinite normal is ignored, as Gmsh ignores normals */
    memcpy(bad, bin, 684);
    put_float(bad + 84 + 50 * 7, INFINITY);
    write_bytes(stl_path("infnormal.stl"), bad, 684);
    cr_assert_eq(check_file(stl_path("infnormal.stl"), &n, &err), LDEM_OK, "%s", err.msg);

    /* truncated: the exact message */
    write_bytes(stl_path("trunc.stl"), bin, 600);
    cr_assert_eq(check_file(stl_path("trunc.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.msg, "truncated binary STL: header declares 12 triangles (684 bytes) "
                              "but the file has 600 bytes");
    cr_assert_str_eq(err.file, stl_path("trunc.stl"));

    /* a few trailing bytes: warning; a header's worth or more: error */
    memset(bin + 684, 0, 200);
    write_bytes(stl_path("tail10.stl"), bin, 694);
    capture_log();
    cr_assert_eq(check_file(stl_path("tail10.stl"), &n, &err), LDEM_OK, "%s", err.msg);
    const char *log = captured_log();
    cr_assert(strstr(log, "ignoring 10 bytes"), "%s", log);
    write_bytes(stl_path("tail84.stl"), bin, 684 + 84);
    cr_assert_eq(check_file(stl_path("tail84.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "84 bytes after the 12 triangles"), "%s", err.msg);

    /* zero triangles */
    unsigned char empty_bin[84];
    memset(empty_bin, ' ', 80);
    put_le32(empty_bin + 80, 0);
    write_bytes(stl_path("zero.stl"), empty_bin, 84);
    cr_assert_eq(check_file(stl_path("zero.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "no triangles"), "%s", err.msg);
}

Test(stl_check, empty_missing_directory, .init = make_stl_dir, .fini = remove_stl_dir)
{
    size_t n;
    ldem_err err;
    write_bytes(stl_path("empty.stl"), "", 0);
    cr_assert_eq(check_file(stl_path("empty.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "empty file"), "%s", err.msg);
    cr_assert_eq(check_file(stl_path("missing.stl"), &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, strerror(ENOENT)), "%s", err.msg);
    cr_assert_str_eq(err.file, stl_path("missing.stl"));
    cr_assert_eq(check_file(stl_dir, &n, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "directory"), "%s", err.msg);
}

/* Every proper prefix of a valid binary STL is an error (never a crash). */
Test(stl_check, binary_truncated_at_every_length, .init = make_stl_dir, .fini = remove_stl_dir)
{
    unsigned char bin[684];
    cube_binary(bin, "solid but binary");
    const char *path = stl_path("t.stl");
    for (size_t len = 0; len < sizeof bin; len++) {
        write_bytes(path, bin, len);
        size_t n;
        ldem_err err;
        cr_assert_eq(check_file(path, &n, &err), LDEM_ERR_INPUT, "length %zu accepted", len);
        if (len >= 84)
            cr_assert(strstr(err.msg, "truncated binary STL"), "length %zu: %s", len, err.msg);
    }
}

/* Every prefix of a valid ASCII STL: an error, unless it ends after a complete facet
 * (trailing white space allowed: blank lines at the end are harmless) or inside the final
 * "endsolid" line from the keyword on; then it is accepted with exactly the complete
 * facets, counted independently as the "endfacet" keywords in the prefix. */
Test(stl_check, ascii_truncated_at_every_length, .init = make_stl_dir, .fini = remove_stl_dir)
{
    char text[8192];
    size_t len = cube_ascii(text, sizeof text, "\n");
    const char *path = stl_path("t.stl");
    size_t accepted = 0;
    capture_log(); /* the "no endsolid" warnings */
    for (size_t cut = 0; cut <= len; cut++) {
        write_bytes(path, text, cut);
        size_t n;
        ldem_err err;
        int rc = check_file(path, &n, &err);
        char *prefix = strndup(text, cut);
        size_t facets = 0;
        for (char *p = prefix; (p = strstr(p, "endfacet")); p += 8)
            facets++;
        size_t end = strlen(prefix);
        while (end > 0 && (prefix[end - 1] == ' ' || prefix[end - 1] == '\n'))
            end--;
        prefix[end] = '\0';
        const char *last = strrchr(prefix, '\n');
        last = last ? last + 1 : prefix;
        int complete = facets > 0 && ((end >= 8 && strcmp(prefix + end - 8, "endfacet") == 0) ||
                                      strncmp(last, "endsolid", 8) == 0);
        if (complete) {
            cr_assert_eq(rc, LDEM_OK, "cut %zu rejected: %s", cut, err.msg);
            cr_assert_eq(n, facets, "cut %zu: %zu triangles, %zu complete facets", cut, n, facets);
            accepted++;
        } else {
            cr_assert_eq(rc, LDEM_ERR_INPUT, "cut %zu accepted: ...'%s'", cut, last);
        }
        free(prefix);
    }
    captured_log();
    /* after facets 1..11: "endfacet", its newline and the two spaces of the next "  facet"
     * (4 cuts each); after facet 12: "endfacet" and its newline (2); "endsolid cube\n" from
     * the keyword on: 8..14 characters (7). */
    cr_assert_eq(accepted, 11 * 4 + 2 + 7, "accepted %zu prefixes", accepted);
}

/* Random bytes, random bytes behind "solid", and random printable text behind "solid":
 * always LDEM_ERR_INPUT, never a crash or a sanitizer report. */
Test(stl_check, garbage, .init = make_stl_dir, .fini = remove_stl_dir)
{
    const char *path = stl_path("g.stl");
    rng_seed(99);
    unsigned char buf[2048];
    for (int i = 0; i < 600; i++) {
        size_t len = 1 + splitmix64() % (i < 300 ? 300 : sizeof buf);
        int kind = i % 3;
        for (size_t k = 0; k < len; k++) {
            uint64_t r = splitmix64();
            buf[k] = kind == 2 ? (unsigned char)(" \nvertexfacetnormalsolid0123456789.e-"[r % 38])
                               : (unsigned char)r;
        }
        if (kind > 0 && len >= 6)
            memcpy(buf, "solid ", 6);
        write_bytes(path, buf, len);
        size_t n;
        ldem_err err;
        cr_assert_eq(check_file(path, &n, &err), LDEM_ERR_INPUT, "garbage %d accepted", i);
        cr_assert(err.msg[0] != '\0');
    }
}
