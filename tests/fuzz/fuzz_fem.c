/* libFuzzer target for modefit's CalculiX readers (tools/modefit/inp_read.c, frd_read.c):
 * an Abaqus/CalculiX input deck, optionally followed by a line "@@frd" and a .frd results
 * file whose DISP blocks are then read on the deck's mesh. (Gmsh's .msh reader is not
 * fuzzed: it is Gmsh's parser, and this target links no Gmsh.)
 *
 * Both readers take paths, so the parts are written to fuzz.inp and fuzz.frd in a private
 * folder. *INCLUDE is followed relative to the deck; a deck that could name a file outside
 * that folder (any '/' in a deck that mentions INC...) is passed over, so that the fuzzer
 * never reads /dev/stdin or a FIFO. Which DISP blocks are read (all, the k-th, the last)
 * follows from the .frd part's length.
 *
 * Properties besides "no crash, no leak, no UB": a mesh that reads passes fe_mesh_check, a
 * snapshot set that reads has a finite vector per mesh node and at least one snapshot, and
 * a refused input leaves the outputs empty with a message. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "femesh.h"
#include "fuzz_common.h"

static const char SEPARATOR[] = "\n@@frd\n";

/* Could an *INCLUDE in the deck reach outside the fuzz folder? */
static int may_escape(const uint8_t *deck, size_t n)
{
    if (!memchr(deck, '/', n))
        return 0;
    for (size_t i = 0; i + 3 <= n; i++)
        if (strncasecmp((const char *)deck + i, "inc", 3) == 0)
            return 1;
    return 0;
}

static void check_mesh(const fe_mesh *m)
{
    ldem_err err;
    fuzz_require(m->order == FE_TET4 || m->order == FE_TET10);
    fuzz_require(m->nnodes > 0 && m->ntets > 0);
    fuzz_require(fe_mesh_check(m, "fuzz.inp", &err) == LDEM_OK);
    for (size_t k = 0; k < 3 * m->nnodes; k++)
        fuzz_require(isfinite(m->xyz[k]));
}

static void read_frd(const fe_mesh *m, const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("fuzz.frd", data, size);
    long select = (long)(size % 4) - 1;   /* -1 last, 0 all, 1 first, 2 second */
    fe_snapshots s;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = frd_read_disp(path, m, select, &s, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        fuzz_require(s.count == 0 && s.u == NULL && s.time == NULL && s.step == NULL);
        return;
    }
    fuzz_require(s.nnodes == m->nnodes && s.count > 0);
    fuzz_require(select <= 0 || s.count == 1);
    for (size_t k = 0; k < 3 * s.count * s.nnodes; k++)
        fuzz_require(isfinite(s.u[k]));
    fe_snapshots_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *frd = NULL;
    size_t deck_size = size, frd_size = 0;
    for (size_t i = 0; i + sizeof SEPARATOR - 1 <= size; i++)
        if (memcmp(data + i, SEPARATOR, sizeof SEPARATOR - 1) == 0) {
            deck_size = i + 1;   /* keep the deck's last newline */
            frd = data + i + sizeof SEPARATOR - 1;
            frd_size = size - (i + sizeof SEPARATOR - 1);
            break;
        }
    if (may_escape(data, deck_size))
        return 0;
    /* Write the .frd first: a deck may *INCLUDE it (as text, which must fail cleanly). */
    fuzz_write("fuzz.frd", frd ? frd : data, frd ? frd_size : 0);
    const char *path = fuzz_write("fuzz.inp", data, deck_size);
    fe_mesh m;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = inp_read_mesh(path, &m, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        fuzz_require(m.nnodes == 0 && m.ntets == 0 && m.xyz == NULL && m.tet == NULL);
        return 0;
    }
    check_mesh(&m);
    if (frd)
        read_frd(&m, frd, frd_size);
    fe_mesh_free(&m);
    return 0;
}
