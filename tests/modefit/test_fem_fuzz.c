/* Hostile inputs for modefit's FEM readers: random bytes and mutated valid files (bytes
 * changed, separators inserted, ranges deleted or repeated, truncation) through
 * inp_read_mesh, frd_read_disp and msh_read. Each call must return (no crash, no
 * sanitizer report) with either LDEM_OK and a result that passes the same checks a good
 * read does, or an error status with a message and empty outputs. The generator is
 * seeded, so a failure repeats. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fem_fixture.h"
#include "femesh.h"
#include "gmsh_io.h"

static void setup(void)
{
    ff_scratch_make();
}

static void teardown(void)
{
    lsgen_gmsh_end();
    ff_scratch_remove();
}

TestSuite(fem_fuzz, .init = setup, .fini = teardown);

/* xorshift64*: the same sequence on every machine */
static uint64_t rng_state;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

/* Bytes that matter to the formats' parsers. */
static const char SPECIAL[] = {',', '*', '\n', '-', ' ', '9', '0', '.', 'E', '$', '"', '\0',
                               '\r', (char)0xff, '+', '1'};

/* One mutation of `base` into buf (capacity cap); returns the new length. */
static size_t mutate(const char *base, size_t n, char *buf, size_t cap)
{
    size_t len = n < cap ? n : cap;
    memcpy(buf, base, len);
    int kind = (int)below(6);
    int edits = 1 + (int)below(4);
    for (int e = 0; e < edits; e++) {
        size_t at = below(len + 1);
        if (at > len) /* cannot happen; tells the compiler len - at does not wrap */
            at = len;
        switch (kind) {
        case 0: /* change bytes */
            if (len)
                buf[below(len)] = (char)below(256);
            break;
        case 1: /* insert a separator or digit */
            if (len < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = SPECIAL[below(sizeof SPECIAL)];
                len++;
            }
            break;
        case 2: { /* delete a range */
            size_t k = below(64);
            if (at + k > len)
                k = len - at;
            memmove(buf + at, buf + at + k, len - at - k);
            len -= k;
            break;
        }
        case 3: { /* repeat a range */
            size_t tail = len - at, k = below(200);
            if (k > tail)
                k = tail;
            if (len <= cap && k <= cap - len && tail <= cap) {
                memmove(buf + at + k, buf + at, tail);
                len += k;
            }
            break;
        }
        case 4: /* truncate */
            len = at;
            e = edits;
            break;
        default: /* a digit changed: counts, numbers, columns */
            for (size_t tries = 0; tries < 64 && len; tries++) {
                size_t i = below(len);
                if (buf[i] >= '0' && buf[i] <= '9') {
                    buf[i] = (char)('0' + below(10));
                    break;
                }
            }
        }
    }
    return len;
}

static size_t random_bytes(char *buf, size_t cap)
{
    size_t len = below(cap < 3000 ? cap : 3000);
    int printable = (int)below(2);
    for (size_t i = 0; i < len; i++)
        buf[i] = printable ? (char)(' ' + below(95)) : (char)below(256);
    if (printable)
        for (size_t i = 0; i < len / 40; i++)
            buf[below(len)] = '\n';
    return len;
}

static void check_error(int st, const ldem_err *err)
{
    cr_assert(st == LDEM_ERR_INPUT || st == LDEM_ERR_IO, "status %d: %s", st, err->msg);
    cr_assert_gt(strlen(err->msg), 0);
}

/* What a successful read must satisfy whatever the input. */
static void check_mesh(const fe_mesh *m)
{
    ldem_err err;
    cr_assert_eq(fe_mesh_check(m, "fuzz", &err), LDEM_OK, "accepted a bad mesh: %s", err.msg);
}

static void check_snapshots(const fe_snapshots *s, const fe_mesh *m, long select)
{
    cr_assert_eq(s->nnodes, m->nnodes);
    cr_assert_geq(s->count, 1);
    if (select != 0)
        cr_assert_eq(s->count, 1);
    for (size_t i = 0; i < s->count * 3 * s->nnodes; i++)
        cr_assert(isfinite(s->u[i]), "non-finite value accepted");
    for (size_t k = 0; k < s->count; k++)
        cr_assert(isfinite(s->time[k]));
}

#define FUZZ_CAP 200000

/* --------------------------------------------------------------------- .inp -------- */

Test(fem_fuzz, inp_reader)
{
    rng_state = 0x9e3779b97f4a7c15ULL;
    fe_mesh box;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET10, &box);
    ff_write_inp(ff_path("box.inp"), &box, 1);
    fe_mesh_free(&box);
    size_t nb[3];
    char *base[3] = {ff_slurp(ff_path("box.inp"), &nb[0]),
                     ff_slurp(MODEFIT_TEST_DIR "/fem/two_tets.inp", &nb[1]),
                     ff_slurp(MODEFIT_TEST_DIR "/fem/surfaces.inp", &nb[2])};
    char *buf = malloc(FUZZ_CAP);
    cr_assert_not_null(buf);
    const char *path = ff_path("fuzz.inp");
    int ok = 0, refused = 0;
    for (int i = 0; i < 400; i++) {
        size_t len = i % 8 == 7 ? random_bytes(buf, FUZZ_CAP)
                                : mutate(base[i % 3], nb[i % 3], buf, FUZZ_CAP);
        ff_write_bytes(path, buf, len);
        fe_mesh m;
        ldem_err err;
        int st = inp_read_mesh(path, &m, &err);
        if (st == LDEM_OK) {
            check_mesh(&m);
            ok++;
        } else {
            check_error(st, &err);
            cr_assert_null(m.xyz);
            refused++;
        }
        fe_mesh_free(&m);
    }
    cr_log_info("inp: %d accepted, %d refused", ok, refused);
    cr_assert_gt(refused, 0);
    cr_assert_gt(ok, 0);
    for (int k = 0; k < 3; k++)
        free(base[k]);
    free(buf);
}

/* --------------------------------------------------------------------- .frd -------- */

Test(fem_fuzz, frd_reader)
{
    rng_state = 0x2545f4914f6cdd1dULL;
    fe_mesh m[2];
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &m[0]);
    ff_box_mesh(1, 1, 1, 1.0, FE_TET10, &m[1]);
    char *base[2];
    size_t nb[2];
    for (int k = 0; k < 2; k++) {
        size_t n3 = 3 * m[k].nnodes;
        double *u = malloc(2 * n3 * sizeof *u);
        cr_assert_not_null(u);
        for (size_t i = 0; i < 2 * n3; i++)
            u[i] = sin(1.0 + (double)i) * pow(10.0, (double)(i % 7) - 3);
        const char *p = ff_path("base.frd");
        ff_frd w;
        ff_frd_open(&w, p, k);
        ff_frd_nodes(&w, &m[k]);
        for (int s = 0; s < 2; s++) {
            ff_frd_disp(&w, &m[k], u + (size_t)s * n3, NULL, 0, s + 1.0, s + 1);
            ff_frd_stress(&w, &m[k], s + 1.0, s + 1);
        }
        ff_frd_close(&w, 1);
        base[k] = ff_slurp(p, &nb[k]);
        free(u);
    }
    char *buf = malloc(FUZZ_CAP);
    cr_assert_not_null(buf);
    const char *path = ff_path("fuzz.frd");
    int ok = 0, refused = 0;
    for (int i = 0; i < 400; i++) {
        int k = i % 2;
        size_t len = i % 8 == 7 ? random_bytes(buf, FUZZ_CAP)
                                : mutate(base[k], nb[k], buf, FUZZ_CAP);
        ff_write_bytes(path, buf, len);
        long select = (long)below(4) - 1;
        fe_snapshots s;
        ldem_err err;
        int st = frd_read_disp(path, &m[k], select, &s, &err);
        if (st == LDEM_OK) {
            check_snapshots(&s, &m[k], select);
            ok++;
        } else {
            check_error(st, &err);
            cr_assert_null(s.u);
            refused++;
        }
        fe_snapshots_free(&s);
    }
    cr_log_info("frd: %d accepted, %d refused", ok, refused);
    cr_assert_gt(refused, 0);
    cr_assert_gt(ok, 0);
    for (int k = 0; k < 2; k++) {
        free(base[k]);
        fe_mesh_free(&m[k]);
    }
    free(buf);
}

/* --------------------------------------------------------------------- .msh -------- */

/* Whether text has a run of 7 or more digits that is not a fraction (not after '.'):
 * a node or element number of a million or more. Gmsh keeps view data in arrays
 * indexed by node number: one such number in a $NodeData block (a mutation easily makes
 * "-0.91828+862121189" out of a value) costs Gmsh 30 s and 7 GB while opening the file,
 * before msh_read sees anything. That is Gmsh's to fix, and not something to do to a
 * machine shared with other jobs, so those inputs are not tried. */
static int has_huge_integer(const char *text, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] >= '0' && text[i] <= '9') {
            if (run == 0 && i > 0 && text[i - 1] == '.')
                run = len; /* a fraction: never counts */
            else if (run < len)
                run++;
            if (run >= 7 && run < len)
                return 1;
        } else {
            run = 0;
        }
    }
    return 0;
}

/* Gmsh parses the file; ours is what comes after. */
Test(fem_fuzz, msh_reader)
{
    rng_state = 0x853c49e6748fea9bULL;
    ldem_err err;
    cr_assert_eq(lsgen_gmsh_begin(&err), LDEM_OK, "%s", err.msg);
    fe_mesh box;
    ff_box_mesh(1, 1, 1, 1.0, FE_TET10, &box);
    double *u = malloc(2 * 3 * box.nnodes * sizeof *u);
    cr_assert_not_null(u);
    for (size_t i = 0; i < 2 * 3 * box.nnodes; i++)
        u[i] = cos((double)i);
    ff_write_msh22(ff_path("base.msh"), &box, "d", u, 2, 0);
    size_t nb;
    char *base = ff_slurp(ff_path("base.msh"), &nb);
    char *buf = malloc(FUZZ_CAP);
    cr_assert_not_null(buf);
    const char *path = ff_path("fuzz.msh");
    int ok = 0, refused = 0, passed_over = 0;
    for (int i = 0; i < 450; i++) {
        size_t len = i % 8 == 7 ? random_bytes(buf, FUZZ_CAP) : mutate(base, nb, buf, FUZZ_CAP);
        if (has_huge_integer(buf, len)) {
            passed_over++;
            continue;
        }
        ff_write_bytes(path, buf, len);
        long select = (long)below(4) - 1;
        fe_mesh m;
        fe_snapshots s;
        int st = msh_read(path, &m, &s, select, &err);
        if (st == LDEM_OK) {
            check_mesh(&m);
            check_snapshots(&s, &m, select);
            ok++;
        } else {
            check_error(st, &err);
            cr_assert_null(m.xyz);
            cr_assert_null(s.u);
            refused++;
        }
        fe_snapshots_free(&s);
        fe_mesh_free(&m);
    }
    cr_log_info("msh: %d accepted, %d refused, %d not tried (huge numbers)", ok, refused,
                passed_over);
    cr_assert_gt(refused, 0);
    cr_assert_gt(ok, 0);
    free(base);
    free(buf);
    free(u);
    fe_mesh_free(&box);
}
