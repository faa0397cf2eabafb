/* Unit tests of modefit's Abaqus/CalculiX deck reader (femesh.h: inp_read_mesh) and of
 * fe_mesh_check / fe_node_lookup / fe_node_sort.
 *
 * Hand-written decks in tests/modefit/fem/ are compared number by number with what they
 * say; generated decks (fem_fixture.c's box mesh, written in full precision) must come
 * back exactly. Every bad deck must be refused with LDEM_ERR_INPUT and a message naming
 * the file and line, checked against the line the test put the fault on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fem_fixture.h"
#include "femesh.h"
#include "ldem/log.h"

#define FEM_DIR MODEFIT_TEST_DIR "/fem"

static void setup(void)
{
    ff_scratch_make();
}

static void teardown(void)
{
    ff_scratch_remove();
}

TestSuite(fem_inp, .init = setup, .fini = teardown);

static void read_ok(const char *path, fe_mesh *m)
{
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(inp_read_mesh(path, m, &err), LDEM_OK, "%s: %s:%ld: %s", path, err.file,
                 err.line, err.msg);
}

/* A deck that must be refused: the error names `file` (a suffix of err.file) and `line`,
 * and its message contains each of the NULL-terminated words. */
static void read_fails(const char *path, const char *file, long line, ...)
{
    fe_mesh m;
    ldem_err err;
    ldem_err_clear(&err);
    int st = inp_read_mesh(path, &m, &err);
    if (getenv("FEM_TEST_VERBOSE")) /* to read the messages a user would see */
        ldem_err_print(&err, "inp_read_mesh", stderr);
    cr_assert_eq(st, LDEM_ERR_INPUT, "%s: status %d (%s)", path, st, err.msg);
    size_t nf = strlen(err.file), nw = strlen(file);
    cr_assert(nf >= nw && strcmp(err.file + nf - nw, file) == 0, "error names '%s', not '%s'",
              err.file, file);
    cr_assert_eq(err.line, line, "line %ld, not %ld: %s", err.line, line, err.msg);
    va_list ap;
    va_start(ap, line);
    for (const char *w; (w = va_arg(ap, const char *));)
        cr_assert_not_null(strstr(err.msg, w), "message lacks '%s': %s", w, err.msg);
    va_end(ap);
    cr_assert_eq(m.nnodes, 0);
    cr_assert_null(m.xyz);
    cr_assert_null(m.tet);
}

static void assert_node(const fe_mesh *m, size_t i, long id, double x, double y, double z)
{
    cr_assert_eq(m->node_id[i], id, "node %zu: number %ld, not %ld", i, m->node_id[i], id);
    cr_assert(m->xyz[3 * i] == x && m->xyz[3 * i + 1] == y && m->xyz[3 * i + 2] == z,
              "node %ld at (%g %g %g)", id, m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
}

/* --------------------------------------------------------------- good decks -------- */

Test(fem_inp, two_c3d4_lower_case_comments_spacing)
{
    fe_mesh m;
    read_ok(FEM_DIR "/two_tets.inp", &m);
    cr_assert_eq(m.nnodes, 5);
    cr_assert_eq(m.ntets, 2);
    cr_assert_eq(m.order, FE_TET4);
    assert_node(&m, 0, 10, 0, 0, 0);
    assert_node(&m, 1, 20, 1, 0, 0);
    assert_node(&m, 2, 30, 0, 1, 0);
    assert_node(&m, 3, 40, 0, 0, 1); /* 1.0D0 */
    assert_node(&m, 4, 50, 1, 1, 1);
    const size_t want[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    for (int k = 0; k < 8; k++)
        cr_assert_eq(m.tet[k], want[k], "tet entry %d: %zu, not %zu", k, m.tet[k], want[k]);
    fe_mesh_free(&m);
    cr_assert_null(m.xyz);
}

static void check_one_c3d10(const fe_mesh *m)
{
    cr_assert_eq(m->ntets, 1);
    cr_assert_eq(m->order, FE_TET10);
    cr_assert_eq(m->nnodes, 10);
    const long want[10] = {101, 102, 103, 104, 201, 202, 203, 204, 205, 206};
    const double corner[4][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}};
    for (int k = 0; k < 10; k++) {
        size_t i = m->tet[k];
        cr_assert_eq(m->node_id[i], want[k], "element node %d is %ld, not %ld", k + 1,
                     m->node_id[i], want[k]);
        /* the deck puts every edge node exactly at its edge's midpoint */
        for (int j = 0; j < 3; j++) {
            double expect = k < 4 ? corner[k][j]
                                  : 0.5 * (corner[FF_TET10_EDGE[k - 4][0]][j] +
                                           corner[FF_TET10_EDGE[k - 4][1]][j]);
            cr_assert_eq(m->xyz[3 * i + (size_t)j], expect);
        }
    }
}

Test(fem_inp, one_c3d10_on_one_line)
{
    fe_mesh m;
    read_ok(FEM_DIR "/one_c3d10.inp", &m);
    check_one_c3d10(&m);
    cr_assert_eq(m.node_id[0], 101); /* file order kept */
    fe_mesh_free(&m);
}

Test(fem_inp, c3d10_on_continuation_lines)
{
    fe_mesh m;
    read_ok(FEM_DIR "/c3d10_continued.inp", &m);
    check_one_c3d10(&m);
    cr_assert_eq(m.node_id[0], 204);
    fe_mesh_free(&m);
}

/* A full row that still ends with a comma, and *NODE lines with Abaqus's optional
 * normal (7 fields) and a comma after it. */
Test(fem_inp, complete_rows_with_trailing_commas)
{
    size_t n;
    char *text = ff_slurp(FEM_DIR "/one_c3d10.inp", &n);
    char *row = strstr(text, "5, 101");
    cr_assert_not_null(row);
    *row = '\0';
    char deck_text[2048];
    snprintf(deck_text, sizeof deck_text, "%s%s", text,
             "5, 101, 102, 103, 104, 201, 202, 203, 204, 205, 206,\n"
             "*NODE\n300, 5, 5, 5, 0, 0, 1,\n");
    const char *path = ff_path("trailing.inp");
    ff_write(path, deck_text);
    free(text);
    fe_mesh m;
    read_ok(path, &m);
    cr_assert_eq(m.nnodes, 10); /* node 300, which no tet uses, is not the grain's */
    check_one_c3d10(&m);
    fe_mesh_free(&m);
}

Test(fem_inp, include_relative_nested_and_input_on_element)
{
    fe_mesh m;
    read_ok(FEM_DIR "/include_main.inp", &m);
    cr_assert_eq(m.nnodes, 4);
    cr_assert_eq(m.ntets, 1);
    assert_node(&m, 0, 1, 0, 0, 0);
    assert_node(&m, 1, 2, 1, 0, 0);
    assert_node(&m, 2, 3, 0, 1, 0);
    assert_node(&m, 3, 4, 0, 0, 1);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(m.tet[k], (size_t)k);
    fe_mesh_free(&m);
}

Test(fem_inp, lower_dimensional_elements_skipped)
{
    fe_mesh m;
    read_ok(FEM_DIR "/surfaces.inp", &m);
    cr_assert_eq(m.ntets, 1);
    cr_assert_eq(m.nnodes, 4); /* nodes 5-7, which only the surfaces use, left out */
    for (int k = 0; k < 4; k++)
        cr_assert_eq(m.node_id[m.tet[k]], k + 1);
    fe_mesh_free(&m);
}

/* A generated box, tet4 and tet10, rows on one line and split (with and without the
 * trailing comma), CRLF line ends: every number back exactly. */
static void roundtrip(int order, int split, int crlf, int drop_trailing_comma)
{
    fe_mesh want;
    ff_box_mesh(3, 2, 2, 0.1, order, &want);
    const char *path = ff_path("box.inp");
    ff_write_inp(path, &want, split);
    if (crlf || drop_trailing_comma) {
        size_t n;
        char *text = ff_slurp(path, &n);
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        for (size_t i = 0; i < n; i++) {
            if (drop_trailing_comma && text[i] == ',' && text[i + 1] == '\n')
                continue;
            if (crlf && text[i] == '\n')
                fputc('\r', f);
            fputc(text[i], f);
        }
        fclose(f);
        free(text);
    }
    fe_mesh got;
    read_ok(path, &got);
    cr_assert_eq(got.nnodes, want.nnodes);
    cr_assert_eq(got.ntets, want.ntets);
    cr_assert_eq(got.order, order);
    cr_assert_eq(memcmp(got.xyz, want.xyz, 3 * want.nnodes * sizeof *want.xyz), 0);
    cr_assert_eq(memcmp(got.node_id, want.node_id, want.nnodes * sizeof *want.node_id), 0);
    cr_assert_eq(memcmp(got.tet, want.tet, (size_t)order * want.ntets * sizeof *want.tet), 0);
    fe_mesh_free(&got);
    fe_mesh_free(&want);
}

Test(fem_inp, generated_boxes_round_trip)
{
    roundtrip(FE_TET4, 0, 0, 0);
    roundtrip(FE_TET10, 0, 0, 0);
    roundtrip(FE_TET10, 1, 0, 0);
    roundtrip(FE_TET10, 1, 1, 0);
    roundtrip(FE_TET10, 1, 0, 1);
}

/* ---------------------------------------------------------------- bad decks -------- */

/* Write `text` as scratch/name and return its path. */
static const char *deck(const char *name, const char *text)
{
    const char *path = ff_path(name);
    ff_write(path, text);
    return path;
}

#define NODES4 "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n"

/* A volume element that shares a node with the tets is part of the grain: a grain of
 * mixed element types is refused (reading only its tets would lose volume). */
Test(fem_inp, volume_elements_sharing_tet_nodes_refused)
{
    const char *p = deck("hex.inp", NODES4 "5,1,1,0\n6,1,0,1\n7,0,1,1\n8,1,1,1\n"
                                           "*ELEMENT, TYPE=C3D4\n9, 1, 2, 3, 4\n"
                                           "*ELEMENT, TYPE=C3D8\n1, 1,2,5,3,4,6,8,7\n");
    read_fails(p, "hex.inp", 13, "element 1 (C3D8) shares node", "C3D4 or C3D10", NULL);
    /* a hexahedral mesh alone has no grain */
    p = deck("hexonly.inp", NODES4 "5,1,1,0\n6,1,0,1\n7,0,1,1\n8,1,1,1\n"
                                   "*ELEMENT, TYPE=C3D8\n1, 1,2,5,3,4,6,8,7\n");
    read_fails(p, "hexonly.inp", 0, "no C3D4 or C3D10", "1 elements of other types", NULL);
    p = deck("c3d2.inp", NODES4 "*element, type=c3d2\n");
    read_fails(p, "c3d2.inp", 6, "C3D2", "not supported", NULL);
}

/* A contact model's deck: the grain's tets, two C3D8 wall blocks (one a *RIGID BODY with
 * its REF and ROT nodes), an R3D4 rigid surface, a C3D20R block over two lines. All but
 * the tets and their nodes are ignored, with one note. */
Test(fem_inp, walls_rigid_bodies_and_reference_nodes_ignored)
{
    const char *p = deck(
        "walls.inp",
        "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n"
        "** a wall block, its nodes before and after the grain's\n"
        "11, 0, 0, 2\n12, 1, 0, 2\n13, 1, 1, 2\n14, 0, 1, 2\n"
        "*NODE, NSET=NWALL2\n15, 0, 0, 3\n16, 1, 0, 3\n17, 1, 1, 3\n18, 0, 1, 3\n"
        "20, 0, 0, 4\n21, 0, 0, 5\n"
        "*ELEMENT, TYPE=C3D8, ELSET=WALL\n100, 11, 12, 13, 14, 15, 16, 17, 18\n"
        "*ELEMENT, TYPE=R3D4, ELSET=RIGIDSURF\n101, 11, 12, 13, 14\n"
        "*ELEMENT, TYPE=C3D20R, ELSET=BLOCK\n"
        "102, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,\n"
        "46, 47, 48, 49, 50\n"
        "*ELEMENT, TYPE=C3D4, ELSET=SPHERE\n1, 1, 2, 3, 4\n"
        "*RIGID BODY, ELSET=WALL, REF NODE=20, ROT NODE=21\n");
    FILE *log = tmpfile();
    cr_assert_not_null(log);
    ldem_log_set_stream(log);
    int level = ldem_log_get_level();
    ldem_log_set_level(LDEM_LOG_INFO);
    fe_mesh m;
    read_ok(p, &m);
    ldem_log_set_level(level);
    ldem_log_set_stream(NULL);
    cr_assert_eq(m.ntets, 1);
    cr_assert_eq(m.nnodes, 4);
    for (int k = 0; k < 4; k++)
        assert_node(&m, (size_t)k, k + 1, k == 1, k == 2, k == 3);
    fe_mesh_free(&m);
    char text[1024] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    cr_assert_not_null(strstr(text, "walls.inp: ignored 1 C3D8, 1 R3D4 and 1 C3D20R elements "
                                    "and 10 nodes no tetrahedron uses"),
                       "log: %s", text);
    cr_assert_null(strchr(strchr(text, '\n') + 1, '\n'), "one line, not: %s", text);
}

Test(fem_inp, mixed_c3d4_and_c3d10_refused)
{
    const char *p = deck("mixed.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"
                                             "** then quadratic ones\n*ELEMENT, TYPE=C3D10\n");
    read_fails(p, "mixed.inp", 9, "C3D10", "C3D4", "mixed.inp:6", NULL);
}

Test(fem_inp, undefined_node_named_with_element)
{
    const char *p = deck("undef.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"
                                             "12, 1, 2, 3, 99\n");
    read_fails(p, "undef.inp", 8, "element 12", "node 99", NULL);
}

Test(fem_inp, duplicate_node_names_both_lines)
{
    const char *p = deck("dup.inp", NODES4 "** again\n*NODE\n3, 0, 1, 0\n"
                                           "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n");
    read_fails(p, "dup.inp", 8, "node 3", "dup.inp:4", NULL);
}

Test(fem_inp, duplicate_element_number)
{
    const char *p = deck("dupel.inp", NODES4 "5, 1, 1, 1\n*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"
                                             "1, 2, 3, 4, 5\n");
    read_fails(p, "dupel.inp", 9, "element 1", "dupel.inp:8", NULL);
}

Test(fem_inp, include_loop_refused)
{
    deck("loop_a.inp", "*NODE\n1, 0, 0, 0\n*INCLUDE, INPUT=loop_b.inp\n");
    deck("loop_b.inp", "** b includes a again\n*INCLUDE, INPUT=loop_a.inp\n");
    read_fails(ff_path("loop_a.inp"), "loop_b.inp", 2, "include loop", "loop_a.inp", NULL);
    deck("self.inp", "*INCLUDE, INPUT=self.inp\n");
    read_fails(ff_path("self.inp"), "self.inp", 1, "include loop", NULL);
}

Test(fem_inp, missing_include_names_including_line)
{
    const char *p = deck("main.inp", NODES4 "\n*INCLUDE, INPUT=elements_nowhere.inp\n");
    read_fails(p, "main.inp", 7, "elements_nowhere.inp", "cannot open", NULL);
}

Test(fem_inp, missing_and_empty_decks)
{
    fe_mesh m;
    ldem_err err;
    cr_assert_eq(inp_read_mesh(ff_path("nowhere.inp"), &m, &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.file, "nowhere.inp"));
    read_fails(deck("empty.inp", ""), "empty.inp", 0, "no C3D4 or C3D10", NULL);
    read_fails(deck("only_surfaces.inp", NODES4 "*ELEMENT, TYPE=S3\n1, 1, 2, 3\n"),
               "only_surfaces.inp", 0, "1 elements of other types", NULL);
    cr_assert_eq(inp_read_mesh(FEM_DIR, &m, &err), LDEM_ERR_INPUT, "a directory: %s", err.msg);
}

Test(fem_inp, malformed_lines)
{
    read_fails(deck("badnum.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, x3, 4\n"), "badnum.inp",
               7, "x3", NULL);
    read_fails(deck("badcoord.inp", "*NODE\n1, 0, 0, 0\n2, 1, 0O, 0\n"), "badcoord.inp", 3,
               "0O", NULL);
    read_fails(deck("nancoord.inp", "*NODE\n1, 0, nan, 0\n"), "nancoord.inp", 2, "nan", NULL);
    read_fails(deck("notype.inp", NODES4 "*ELEMENT, ELSET=X\n"), "notype.inp", 6, "TYPE=", NULL);
    read_fails(deck("toomany.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4, 4\n"),
               "toomany.inp", 7, "C3D4", NULL);
    /* an element row cut short by the next keyword: named where it started */
    read_fails(deck("short.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2,\n*STEP\n"), "short.inp",
               7, "element 1", "2 of its 4", NULL);
    read_fails(deck("shortend.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2,\n3,\n"),
               "shortend.inp", 7, "3 of its 4", NULL);
    read_fails(deck("cyl.inp", "*NODE, SYSTEM=C\n1, 1, 0, 0\n"), "cyl.inp", 1, "SYSTEM=C", NULL);
    read_fails(deck("elgen.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n*Elgen, elset=E\n"
                                        "1, 5, 1, 1\n"), "elgen.inp", 8, "*ELGEN", NULL);
    read_fails(deck("nocoord.inp", "*NODE\n1, 0, 0, 0\n2, \n"), "nocoord.inp", 3,
               "node 2 has no coordinates", NULL);
    const char bin[] = "*NODE\n1, 0, 0, 0\n2, \0 1, 0\n";
    ff_write_bytes(ff_path("nul2.inp"), bin, sizeof bin - 1);
    read_fails(ff_path("nul2.inp"), "nul2.inp", 3, "binary", NULL);
}

Test(fem_inp, inverted_element_named_by_number_and_line)
{
    /* 1-3-2-4 turns the right-handed corner order around: volume -1/6 */
    const char *p = deck("inv.inp", NODES4 "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"
                                           "33, 1, 3, 2, 4\n");
    read_fails(p, "inv.inp", 8, "element 33", "-0.166667", "inverted", NULL);
}

Test(fem_inp, permuted_c3d10_edge_nodes_refused)
{
    /* Gmsh's order (edge 2-3 before edge 1-3) written as if it were C3D10's */
    size_t n;
    char *text = ff_slurp(FEM_DIR "/one_c3d10.inp", &n);
    char *row = strstr(text, "5, 101");
    cr_assert_not_null(row);
    strcpy(row, "5, 101, 102, 103, 104, 201, 202, 203, 204, 206, 205\n");
    const char *p = deck("gmsh_order.inp", text);
    free(text);
    read_fails(p, "gmsh_order.inp", 15, "element 5", "edge node 9", "node 206", NULL);
}

/* ------------------------------------------------------ check and lookup -------- */

Test(fem_inp, mesh_check_reports_position_and_volume)
{
    fe_mesh m;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &m);
    ldem_err err;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_OK, "%s", err.msg);
    /* swap two corners of tet 8: volume -(0.5^3 / 6) */
    size_t *v = m.tet + 4 * 7;
    size_t t = v[1];
    v[1] = v[2];
    v[2] = t;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "box");
    char vol[32];
    snprintf(vol, sizeof vol, "%.6g", -0.125 / 6);
    cr_assert_not_null(strstr(err.msg, "element 8:"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, vol), "%s lacks %s", err.msg, vol);
    v[2] = v[1];
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.msg, "flat"), "%s", err.msg);
    v[2] = m.nnodes;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.msg, "out of range"), "%s", err.msg);
    fe_mesh_free(&m);
}

/* Edge nodes: on their midpoints passes; 0.2 edge lengths off passes (a curved
 * element); any swap of two edge nodes fails. */
Test(fem_inp, mesh_check_tet10_edge_nodes)
{
    fe_mesh m;
    ff_box_mesh(1, 1, 1, 1.0, FE_TET10, &m);
    ldem_err err;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_OK, "%s", err.msg);
    for (size_t e = 0; e < m.ntets; e++) {
        for (int a = 4; a < 10; a++) {
            for (int b = a + 1; b < 10; b++) {
                size_t *v = m.tet + 10 * e, t = v[a];
                v[a] = v[b];
                v[b] = t;
                cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_ERR_INPUT,
                             "tet %zu with edge nodes %d and %d swapped passed", e, a, b);
                v[b] = v[a];
                v[a] = t;
            }
        }
    }
    /* move the edge node of edge 0-1 of tet 1 sideways by 0.2 of that edge */
    const size_t *v = m.tet;
    double *x = m.xyz + 3 * v[4];
    const double *p = m.xyz + 3 * v[0], *q = m.xyz + 3 * v[1];
    double len = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
                      (q[2] - p[2]) * (q[2] - p[2]));
    double saved[3] = {x[0], x[1], x[2]};
    /* a direction normal to the edge: the edge is along a coordinate axis here */
    int axis = fabs(q[0] - p[0]) > 0 ? 1 : 0;
    x[axis] += 0.2 * len;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_OK, "%s", err.msg);
    x[axis] = saved[axis] + 0.3 * len;
    cr_assert_eq(fe_mesh_check(&m, "box", &err), LDEM_ERR_INPUT);
    cr_assert_not_null(strstr(err.msg, "edge node 5"), "%s", err.msg);
    fe_mesh_free(&m);
}

Test(fem_inp, node_lookup_against_linear_search)
{
    fe_mesh m;
    memset(&m, 0, sizeof m);
    m.nnodes = 500;
    m.node_id = malloc(m.nnodes * sizeof *m.node_id);
    cr_assert_not_null(m.node_id);
    srand(7);
    for (size_t i = 0; i < m.nnodes; i++) /* distinct, unordered, with gaps */
        m.node_id[i] = (long)((i * 7919) % 1009) * 3 + (rand() % 3) - 1500;
    long *ids;
    size_t *perm;
    ldem_err err;
    cr_assert_eq(fe_node_sort(&m, "m", &ids, &perm, &err), LDEM_OK, "%s", err.msg);
    for (long id = -1600; id < 1700; id++) {
        long want = -1;
        for (size_t i = 0; i < m.nnodes; i++)
            if (m.node_id[i] == id)
                want = (long)i;
        cr_assert_eq(fe_node_lookup(ids, perm, m.nnodes, id), want, "id %ld", id);
    }
    free(ids);
    free(perm);
    m.node_id[17] = m.node_id[400];
    cr_assert_eq(fe_node_sort(&m, "m", &ids, &perm, &err), LDEM_ERR_INPUT);
    char num[32];
    snprintf(num, sizeof num, "node number %ld", m.node_id[400]);
    cr_assert_not_null(strstr(err.msg, num), "%s", err.msg);
    cr_assert_null(ids);
    free(m.node_id);
}
