/* Unit tests of the deck's named sets (inp_sets.h), behind modefit --normalize mean:SET:C.
 * Validations: hand-written decks whose sets are known element by element (face corners in
 * the Abaqus order, GENERATE with a step, sets of sets, *INCLUDE relative to the including
 * file, continuation lines of C3D10). Guards: the refusals name the line or list the sets. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fem_fixture.h"
#include "inp_sets.h"

static void setup(void)
{
    ff_scratch_make();
}

static void teardown(void)
{
    ff_scratch_remove();
}

TestSuite(inp_sets, .init = setup, .fini = teardown);

/* Two C3D4 (1, 2) and one C3D10 split over two lines (3); nodes are irrelevant here. */
static const char *const DECK =
    "*HEADING\n"
    "sets\n"
    "*ELEMENT, TYPE=C3D4, ELSET=Tets\n"
    "1, 11, 12, 13, 14\n"
    "2, 21, 22, 23, 24\n"
    "*Element, type=c3d10\n"
    "3, 31, 32, 33, 34, 35, 36, 37, 38,\n"
    "39, 40\n"
    "*NSET, NSET=a\n"
    "5, 3, 5\n"
    "*NSET, NSET=GEN, GENERATE\n"
    "10, 20, 5\n"
    "*nset, nset=Both\n"
    "A, gen, 1\n"
    "*NSET, NSET=a\n"
    "7\n"
    "*ELSET, ELSET=odd, GENERATE\n"
    "1, 3, 2\n"
    "*SURFACE, NAME=Top, TYPE=ELEMENT\n"
    "2, S3\n"
    "ODD, S4\n"
    "*SURFACE, NAME=bynode, TYPE=NODE\n"
    "GEN, 99\n";

static inp_set read_ok(const char *path, const char *name)
{
    inp_set s;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(inp_read_set(path, name, &s, &err), LDEM_OK, "%s: %s", name, err.msg);
    return s;
}

Test(inp_sets, node_sets)
{
    const char *deck = ff_path("deck.inp");
    ff_write(deck, DECK);
    /* A repeated *NSET appends; the result is sorted and unique. */
    inp_set a = read_ok(deck, "A");
    cr_assert_eq(a.kind, INP_SET_NODES);
    long want_a[] = {3, 5, 7};
    cr_assert_eq(a.count, 3);
    cr_assert_arr_eq(a.nodes, want_a, sizeof want_a);
    inp_set_free(&a);
    /* GENERATE first, last, step; a set of sets by case-insensitive names. */
    inp_set both = read_ok(deck, "both");
    long want_both[] = {1, 3, 5, 10, 15, 20};
    cr_assert_eq(both.count, 6);
    cr_assert_arr_eq(both.nodes, want_both, sizeof want_both);
    inp_set_free(&both);
    /* A *SURFACE of TYPE=NODE is a node set. */
    inp_set bn = read_ok(deck, "BYNODE");
    long want_bn[] = {10, 15, 20, 99};
    cr_assert_eq(bn.kind, INP_SET_NODES);
    cr_assert_eq(bn.count, 4);
    cr_assert_arr_eq(bn.nodes, want_bn, sizeof want_bn);
    inp_set_free(&bn);
}

Test(inp_sets, element_faces)
{
    const char *deck = ff_path("deck.inp");
    ff_write(deck, DECK);
    inp_set top = read_ok(deck, "top");
    cr_assert_eq(top.kind, INP_SET_FACES);
    /* 2 S3 = corners 2-4-3; ODD (elements 1, 3) S4 = corners 3-4-1, element 3 being the
     * C3D10 whose corners came before its continuation line. */
    long want[] = {22, 24, 23, 13, 14, 11, 33, 34, 31};
    cr_assert_eq(top.count, 3);
    cr_assert_arr_eq(top.nodes, want, sizeof want);
    inp_set_free(&top);
}

Test(inp_sets, include_relative)
{
    ff_write(ff_path("main.inp"), "*INCLUDE, INPUT=part.inp\n*NSET, NSET=after\n9\n");
    ff_write(ff_path("part.inp"), "*NSET, NSET=inside\n4, 2\n");
    inp_set s = read_ok(ff_path("main.inp"), "INSIDE");
    long want[] = {2, 4};
    cr_assert_eq(s.count, 2);
    cr_assert_arr_eq(s.nodes, want, sizeof want);
    inp_set_free(&s);
}

static void refused(const char *text, const char *name, const char *words)
{
    const char *deck = ff_path("bad.inp");
    ff_write(deck, text);
    inp_set s;
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(inp_read_set(deck, name, &s, &err), LDEM_ERR_INPUT, "%s accepted", name);
    cr_assert(strstr(err.msg, words), "'%s' lacks '%s'", err.msg, words);
    cr_assert_null(s.nodes);
}

Test(inp_sets, refusals)
{
    refused(DECK, "nope", "no *NSET or *SURFACE named nope in the deck (it has: a, GEN, Both");
    refused("*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n*SURFACE, NAME=s\n1, S5\n", "s",
            "a tetrahedron has faces S1 to S4");
    refused("*ELEMENT, TYPE=C3D8\n1, 1, 2, 3, 4, 5, 6, 7, 8\n*SURFACE, NAME=s\n1, S1\n", "s",
            "element 1 is not a C3D4/C3D10 tetrahedron");
    refused("*NSET, NSET=n\nm\n", "n", "'m' is neither a number nor a *NSET defined before");
    refused("*NSET, NSET=g, GENERATE\n5, 1\n", "g", "GENERATE: expected first, last");
}
