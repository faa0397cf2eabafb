/* Unit tests of modefit's Gmsh reader (femesh.h: msh_read).
 *
 * Meshes and views are written by the test: as MSH 2.2 text by hand (fem_fixture.c, from
 * the format's description, tet10 rows in Gmsh's node order) and as MSH 4.1 through the
 * Gmsh API. The 10-node reordering is checked twice: element by element against the
 * node numbers written, and through a quadratic field, which tet10 shape functions
 * (written here) interpolate exactly only if every edge node sits where femesh.h's order
 * says. Errors are LDEM_ERR_INPUT naming the file (Gmsh gives no line numbers) and the
 * view, step or node at fault. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmshc.h>

#include "fem_fixture.h"
#include "femesh.h"
#include "gmsh_io.h"
#include "gmsh_private.h"

static void setup(void)
{
    ff_scratch_make();
}

static void teardown(void)
{
    lsgen_gmsh_end();
    ff_scratch_remove();
}

TestSuite(fem_msh, .init = setup, .fini = teardown);

/* A quadratic field, nowhere zero as a whole. */
static void quadratic(const double *x, double *f)
{
    f[0] = x[0] * x[0] + 0.3;
    f[1] = x[0] * x[1] - 0.1;
    f[2] = x[1] * x[2] + x[2] * x[2] - 2 * x[0] * x[2] + 0.2;
}

/* Step k (0-based) of the test's field at every node: (k + 1) f. */
static double *field_steps(const fe_mesh *m, int nsteps)
{
    double *u = malloc((size_t)nsteps * 3 * m->nnodes * sizeof *u);
    cr_assert_not_null(u);
    for (int k = 0; k < nsteps; k++)
        for (size_t i = 0; i < m->nnodes; i++) {
            double *v = u + 3 * ((size_t)k * m->nnodes + i);
            quadratic(m->xyz + 3 * i, v);
            for (int c = 0; c < 3; c++)
                v[c] *= k + 1;
        }
    return u;
}

static void read_ok(const char *path, fe_mesh *m, fe_snapshots *s, long select)
{
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(msh_read(path, m, s, select, &err), LDEM_OK, "%s: %s", err.file, err.msg);
}

static void read_fails(const char *path, long select, const char *word, const char *word2)
{
    fe_mesh m;
    fe_snapshots s;
    ldem_err err;
    ldem_err_clear(&err);
    int st = msh_read(path, &m, &s, select, &err);
    if (getenv("FEM_TEST_VERBOSE"))
        ldem_err_print(&err, "msh_read", stderr);
    cr_assert_eq(st, LDEM_ERR_INPUT, "status %d: %s", st, err.msg);
    cr_assert_str_eq(err.file, path);
    cr_assert_not_null(strstr(err.msg, word), "message lacks '%s': %s", word, err.msg);
    if (word2)
        cr_assert_not_null(strstr(err.msg, word2), "message lacks '%s': %s", word2, err.msg);
    cr_assert_null(m.xyz);
    cr_assert_null(s.u);
    cr_assert_eq(s.count, 0);
}

/* Index of node number id in m (brute force). */
static size_t index_of(const fe_mesh *m, long id)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->node_id[i] == id)
            return i;
    cr_assert_fail("node %ld not found", id);
    return 0;
}

/* got has want's nodes (by number, any order) and tets, node by node in femesh.h order. */
static void same_mesh(const fe_mesh *got, const fe_mesh *want)
{
    cr_assert_eq(got->nnodes, want->nnodes);
    cr_assert_eq(got->ntets, want->ntets);
    cr_assert_eq(got->order, want->order);
    for (size_t i = 0; i < want->nnodes; i++) {
        size_t j = index_of(got, want->node_id[i]);
        cr_assert_eq(memcmp(got->xyz + 3 * j, want->xyz + 3 * i, 3 * sizeof(double)), 0);
    }
    size_t k = (size_t)want->order;
    for (size_t e = 0; e < want->ntets; e++)
        for (size_t a = 0; a < k; a++)
            cr_assert_eq(got->node_id[got->tet[k * e + a]], want->node_id[want->tet[k * e + a]],
                         "tet %zu node %zu", e, a);
}

/* Snapshot values at nodes by number, within rel * |value|: 0 for our files (17 digits),
 * 1e-15 for Gmsh's (it prints 16 significant digits, which round to 5e-16). */
static void same_values_tol(const fe_mesh *got_mesh, const double *got,
                            const fe_mesh *want_mesh, const double *want, double rel)
{
    for (size_t i = 0; i < want_mesh->nnodes; i++) {
        size_t j = index_of(got_mesh, want_mesh->node_id[i]);
        for (int c = 0; c < 3; c++) {
            double g = got[3 * j + (size_t)c], w = want[3 * i + (size_t)c];
            cr_assert_leq(fabs(g - w), rel * fabs(w), "node %ld comp %d: %.17g vs %.17g",
                          want_mesh->node_id[i], c, g, w);
        }
    }
}

static void same_values(const fe_mesh *got_mesh, const double *got, const fe_mesh *want_mesh,
                        const double *want)
{
    same_values_tol(got_mesh, got, want_mesh, want, 0.0);
}

/* Interpolating the quadratic field inside every tet with tet10 shape functions over the
 * nodes as read: exact (straight edges, so x is linear in the barycentrics too). */
static double quadratic_interpolation_error(const fe_mesh *m, const double *u, double scale)
{
    static const double L[3][4] = {{0.1, 0.2, 0.3, 0.4}, {0.25, 0.25, 0.25, 0.25},
                                   {0.7, 0.05, 0.15, 0.1}};
    double worst = 0;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *v = m->tet + 10 * e;
        for (int p = 0; p < 3; p++) {
            double N[10], x[3] = {0, 0, 0}, fu[3] = {0, 0, 0}, f[3];
            ff_tet10_shape(L[p], N);
            for (int k = 0; k < 4; k++)
                for (int c = 0; c < 3; c++)
                    x[c] += L[p][k] * m->xyz[3 * v[k] + (size_t)c];
            for (int k = 0; k < 10; k++)
                for (int c = 0; c < 3; c++)
                    fu[c] += N[k] * u[3 * v[k] + (size_t)c];
            quadratic(x, f);
            for (int c = 0; c < 3; c++)
                worst = fmax(worst, fabs(fu[c] - scale * f[c]));
        }
    }
    return worst;
}

/* ------------------------------------------------------------------ MSH 2.2 -------- */

Test(fem_msh, tet10_reordered_two_steps)
{
    fe_mesh want;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET10, &want);
    double *u = field_steps(&want, 2);
    const char *path = ff_path("tet10.msh");
    ff_write_msh22(path, &want, "displacement", u, 2, 0);

    fe_mesh m;
    fe_snapshots s;
    read_ok(path, &m, &s, 0);
    same_mesh(&m, &want);
    cr_assert_eq(s.count, 2);
    cr_assert_eq(s.nnodes, m.nnodes);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(s.time[k], 0.5 * (k + 1));
        cr_assert_eq(s.step[k], k);
        same_values(&m, s.u + (size_t)k * 3 * m.nnodes, &want, u + (size_t)k * 3 * want.nnodes);
        double e = quadratic_interpolation_error(&m, s.u + (size_t)k * 3 * m.nnodes, k + 1);
        cr_assert_leq(e, 1e-13, "step %d: quadratic field interpolated with error %.3g", k, e);
    }
    /* the same interpolation over Gmsh's own order (edge nodes 8, 9 swapped) is wrong */
    for (size_t e = 0; e < m.ntets; e++) {
        size_t *v = m.tet + 10 * e, t = v[8];
        v[8] = v[9];
        v[9] = t;
    }
    double wrong = quadratic_interpolation_error(&m, s.u, 1);
    cr_assert_gt(wrong, 1e-3, "Gmsh's order interpolates as well (%.3g): the check is blind",
                 wrong);
    fe_snapshots_free(&s);
    fe_mesh_free(&m);

    read_ok(path, &m, &s, -1);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.step[0], 1);
    same_values(&m, s.u, &want, u + 3 * want.nnodes);
    fe_snapshots_free(&s);
    fe_mesh_free(&m);
    read_ok(path, &m, &s, 1);
    cr_assert_eq(s.count, 1);
    cr_assert_eq(s.time[0], 0.5);
    fe_snapshots_free(&s);
    fe_mesh_free(&m);
    read_fails(path, 3, "snapshot 3 asked for", "has 2");
    free(u);
    fe_mesh_free(&want);
}

Test(fem_msh, mesh_only_and_no_views)
{
    fe_mesh want;
    ff_box_mesh(1, 2, 1, 1.0, FE_TET4, &want);
    const char *path = ff_path("plain.msh");
    ff_write_msh22(path, &want, "none", NULL, 0, 0);
    fe_mesh m;
    ldem_err err;
    cr_assert_eq(msh_read(path, &m, NULL, 0, &err), LDEM_OK, "%s", err.msg);
    same_mesh(&m, &want);
    fe_mesh_free(&m);
    read_fails(path, 0, "no view of 3-component NodeData", NULL);
    fe_mesh_free(&want);
}

Test(fem_msh, view_errors)
{
    fe_mesh want;
    ff_box_mesh(2, 1, 1, 0.5, FE_TET4, &want);
    double *u = field_steps(&want, 1);
    const char *path = ff_path("bad.msh");
    char word[64];

    ff_write_msh22(path, &want, "short", u, 1, want.node_id[5]);
    snprintf(word, sizeof word, "no value at node %ld", want.node_id[5]);
    read_fails(path, 0, word, "view 'short' step 0");

    u[3 * 7 + 1] = NAN;
    ff_write_msh22(path, &want, "nan", u, 1, 0);
    snprintf(word, sizeof word, "node %ld: a value is not a finite number", want.node_id[7]);
    read_fails(path, 0, word, "view 'nan'");

    memset(u, 0, 3 * want.nnodes * sizeof *u);
    ff_write_msh22(path, &want, "zero", u, 1, 0);
    read_fails(path, 0, "snapshot 1 is zero everywhere", "view 'zero'");
    free(u);
    fe_mesh_free(&want);
}

Test(fem_msh, other_volume_elements_refused)
{
    const char *hex = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n"
                      "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n"
                      "$EndNodes\n$Elements\n1\n1 5 2 1 1 1 2 3 4 5 6 7 8\n$EndElements\n";
    ff_write(ff_path("hex.msh"), hex);
    read_fails(ff_path("hex.msh"), 0, "Gmsh type 5", "Hexahedron");
    const char *mixed = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n11\n"
                        "1 0 0 0\n2 2 0 0\n3 0 2 0\n4 0 0 2\n5 1 0 0\n6 1 1 0\n7 0 1 0\n"
                        "8 0 0 1\n9 0 1 1\n10 1 0 1\n11 2 2 2\n$EndNodes\n$Elements\n2\n"
                        "1 11 2 1 1 1 2 3 4 5 6 7 8 9 10\n2 4 2 1 2 2 3 4 11\n$EndElements\n";
    ff_write(ff_path("mixed.msh"), mixed);
    read_fails(ff_path("mixed.msh"), 0, "both 4-node and 10-node", NULL);
    const char *flat = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n"
                       "1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n$Elements\n1\n"
                       "1 2 2 1 1 1 2 3\n$EndElements\n";
    ff_write(ff_path("flat.msh"), flat);
    read_fails(ff_path("flat.msh"), 0, "no tetrahedra", NULL);
    /* a tet whose corners turn the wrong way */
    const char *inv = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n"
                      "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n"
                      "1 4 2 1 1 1 3 2 4\n$EndElements\n";
    ff_write(ff_path("inv.msh"), inv);
    read_fails(ff_path("inv.msh"), 0, "element 1", "inverted");
}

Test(fem_msh, files_gmsh_cannot_use)
{
    read_fails(ff_path("nowhere.msh"), 0, "cannot open", NULL);
    ff_write(ff_path("empty.msh"), "");
    read_fails(ff_path("empty.msh"), 0, "empty file", NULL);
    ff_write(ff_path("garbage.msh"), "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n"
                                     "three\n$EndNodes\n");
    fe_mesh m;
    fe_snapshots s;
    ldem_err err;
    cr_assert_eq(msh_read(ff_path("garbage.msh"), &m, &s, 0, &err), LDEM_ERR_INPUT, "%s",
                 err.msg);
    cr_assert_eq(msh_read(ff_path(""), &m, &s, 0, &err), LDEM_ERR_INPUT, "%s", err.msg);
    cr_assert_eq(msh_read(ff_path("garbage.msh"), &m, &s, -5, &err), LDEM_ERR_USAGE);
}

/* ---------------------------------------------------- MSH 4.1 via the Gmsh API -------- */

static void gmsh_ok(int ierr, const char *what)
{
    cr_assert_eq(ierr, 0, "Gmsh: %s failed", what);
}

/* m as a discrete volume with its tets (Gmsh order), a 3-component NodeData view of u at
 * time 2.5, a scalar NodeData view and an ElementData view, all in one .msh. Gmsh writes
 * the mesh again with every view unless save_mesh_again is 0. */
static void write_with_gmsh(const char *path, const fe_mesh *m, const double *u,
                            int save_mesh_again)
{
    int ierr = 0;
    gmshOptionSetNumber("PostProcessing.SaveMesh", save_mesh_again, &ierr);
    gmsh_ok(ierr, "PostProcessing.SaveMesh");
    size_t n = m->nnodes, k = (size_t)m->order;
    gmshModelAdd("api", &ierr);
    gmsh_ok(ierr, "model add");
    gmshModelAddDiscreteEntity(3, 1, NULL, 0, &ierr);
    gmsh_ok(ierr, "discrete entity");
    size_t *tags = malloc(n * sizeof *tags), *etags = malloc(m->ntets * sizeof *etags);
    size_t *conn = malloc(k * m->ntets * sizeof *conn);
    const double **data = malloc(n * sizeof *data), **scalar = malloc(n * sizeof *scalar);
    const double **edata = malloc(m->ntets * sizeof *edata);
    size_t *three = malloc((n + m->ntets) * sizeof *three);
    size_t *one = malloc((n + m->ntets) * sizeof *one);
    cr_assert(tags && etags && conn && data && scalar && edata && three && one);
    static const int GMSH_OF[10] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
    for (size_t i = 0; i < n; i++) {
        tags[i] = (size_t)m->node_id[i];
        data[i] = u + 3 * i;
        scalar[i] = u + 3 * i;
        three[i] = 3;
    }
    for (size_t i = 0; i < n + m->ntets; i++) {
        one[i] = 1;
        three[i] = 3;
    }
    for (size_t e = 0; e < m->ntets; e++) {
        etags[e] = e + 1;
        edata[e] = u;
        for (size_t a = 0; a < k; a++)
            conn[k * e + a] = (size_t)m->node_id[m->tet[k * e + (size_t)GMSH_OF[a]]];
    }
    gmshModelMeshAddNodes(3, 1, tags, n, m->xyz, 3 * n, NULL, 0, &ierr);
    gmsh_ok(ierr, "add nodes");
    gmshModelMeshAddElementsByType(1, m->order == FE_TET10 ? 11 : 4, etags, m->ntets, conn,
                                   k * m->ntets, &ierr);
    gmsh_ok(ierr, "add elements");
    gmshOptionSetNumber("Mesh.MshFileVersion", 4.1, &ierr);
    gmshWrite(path, &ierr);
    gmsh_ok(ierr, "write mesh");
    int temp = gmshViewAdd("temperature", -1, &ierr);
    gmshViewAddModelData(temp, 0, "api", "NodeData", tags, n, scalar, one, n, 0.0, 1, 0, &ierr);
    gmsh_ok(ierr, "scalar view");
    gmshViewWrite(temp, path, 1, &ierr);
    gmsh_ok(ierr, "write scalar view");
    int per_element = gmshViewAdd("element data", -1, &ierr);
    gmshViewAddModelData(per_element, 0, "api", "ElementData", etags, m->ntets, edata, three,
                         m->ntets, 0.0, 3, 0, &ierr);
    gmsh_ok(ierr, "element view");
    gmshViewWrite(per_element, path, 1, &ierr);
    gmsh_ok(ierr, "write element view");
    int disp = gmshViewAdd("displacement", -1, &ierr);
    gmshViewAddModelData(disp, 4, "api", "NodeData", tags, n, data, three, n, 2.5, 3, 0, &ierr);
    gmsh_ok(ierr, "vector view");
    gmshViewWrite(disp, path, 1, &ierr);
    gmsh_ok(ierr, "write vector view");
    gmshClear(&ierr);
    free(tags);
    free(etags);
    free(conn);
    free(data);
    free(scalar);
    free(edata);
    free(three);
    free(one);
}

Test(fem_msh, msh41_written_by_gmsh_other_views_skipped)
{
    ldem_err err;
    cr_assert_eq(lsgen_gmsh_begin(&err), LDEM_OK, "%s", err.msg);
    for (int order = FE_TET4; order <= FE_TET10; order += FE_TET10 - FE_TET4) {
        fe_mesh want;
        ff_box_mesh(2, 2, 1, 0.5, order, &want);
        double *u = field_steps(&want, 1);
        const char *path = ff_path("api.msh");
        write_with_gmsh(path, &want, u, 0);
        fe_mesh m;
        fe_snapshots s;
        read_ok(path, &m, &s, 0); /* with the caller's session */
        cr_assert_eq(lsgen_gmsh_require_session("test", NULL), LDEM_OK, "session closed");
        same_mesh(&m, &want);
        cr_assert_eq(s.count, 1);
        cr_assert_eq(s.time[0], 2.5);
        cr_assert_eq(s.step[0], 4);
        same_values_tol(&m, s.u, &want, u, 1e-15);
        if (order == FE_TET10)
            cr_assert_leq(quadratic_interpolation_error(&m, s.u, 1), 1e-13);
        fe_snapshots_free(&s);
        fe_mesh_free(&m);
        /* the views written with the mesh again: its nodes twice, refused */
        write_with_gmsh(path, &want, u, 1);
        read_fails(path, 0, "used by two nodes", "PostProcessing.SaveMesh=0");
        free(u);
        fe_mesh_free(&want);
    }
    lsgen_gmsh_end();
}

/* Without a session msh_read opens and closes its own; errors leave Gmsh usable. */
Test(fem_msh, own_session_and_recovery)
{
    fe_mesh want;
    ff_box_mesh(1, 1, 1, 1.0, FE_TET4, &want);
    double *u = field_steps(&want, 1);
    ff_write_msh22(ff_path("good.msh"), &want, "d", u, 1, 0);
    ff_write(ff_path("bad.msh"), "$MeshFormat\n9.9 0 8\n$EndMeshFormat\n$Nodes\n");
    cr_assert_neq(lsgen_gmsh_require_session("test", NULL), LDEM_OK);
    for (int round = 0; round < 3; round++) {
        fe_mesh m;
        fe_snapshots s;
        ldem_err err;
        cr_assert_eq(msh_read(ff_path("bad.msh"), &m, &s, 0, &err), LDEM_ERR_INPUT);
        read_ok(ff_path("good.msh"), &m, &s, 0);
        cr_assert_neq(lsgen_gmsh_require_session("test", NULL), LDEM_OK);
        same_values(&m, s.u, &want, u);
        fe_snapshots_free(&s);
        fe_mesh_free(&m);
    }
    free(u);
    fe_mesh_free(&want);
}
