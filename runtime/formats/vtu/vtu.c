/* UnstructuredGrid (.vtu): validation of the mesh and its document. */
#include "vtk_xml.h"

#include <inttypes.h>

#include "ldem/outfile.h"

/* Nodes per supported cell type, or 0 for a type we do not write. */
static int64_t cell_nodes(unsigned type)
{
    switch (type) {
    case LDEM_VTK_VERTEX: return 1;
    case LDEM_VTK_LINE: return 2;
    case LDEM_VTK_TRIANGLE: return 3;
    case LDEM_VTK_TETRA: return 4;
    case LDEM_VTK_QUADRATIC_TETRA: return 10;
    default: return 0;
    }
}

static int check_cells(const ldem_vtu_grid *g, const char *name, ldem_err *err)
{
    int64_t prev = 0;
    for (size_t c = 0; c < g->ncells; c++) {
        int64_t end = g->offsets[c];
        if (end <= prev)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "cell %zu: offset %" PRId64 " does not exceed the previous "
                                "offset %" PRId64 " (offsets are increasing end offsets)",
                                c, end, prev);
        int64_t want = cell_nodes(g->types[c]);
        if (want == 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "cell %zu: unsupported VTK cell type %u (expected 1 vertex, "
                                "3 line, 5 triangle, 10 tetra or 24 quadratic tetra)",
                                c, (unsigned)g->types[c]);
        if (end - prev != want)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "cell %zu: type %u has %" PRId64 " nodes, expected %" PRId64, c,
                                (unsigned)g->types[c], end - prev, want);
        for (int64_t k = prev; k < end; k++) {
            int64_t id = g->connectivity[k];
            if (id < 0 || (uint64_t)id >= g->npoints)
                return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                    "cell %zu: node %" PRId64 " (connectivity[%" PRId64
                                    "]) is outside the %zu points",
                                    c, id, k, g->npoints);
        }
        prev = end;
    }
    return LDEM_OK;
}

static int check_grid(const ldem_vtu_grid *g, int encoding, const char *name, ldem_err *err)
{
    if (!g)
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "no grid given");
    int rc = ldem_vtkx_check_encoding(encoding, name, err);
    if (rc)
        return rc;
    if (g->npoints > SIZE_MAX / 24)
        return ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "too many points (%zu)", g->npoints);
    if (g->npoints > 0 && !g->points)
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "%zu points but no coordinates",
                            g->npoints);
    if (g->ncells > 0 && (!g->connectivity || !g->offsets || !g->types))
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0,
                            "%zu cells but connectivity, offsets or types missing", g->ncells);
    size_t bad;
    if (encoding == LDEM_VTK_ASCII &&
        ldem_vtkx_find_neg_inf(LDEM_VTK_FLOAT64, 3 * g->npoints, g->points, &bad))
        return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                            "point %zu has a -inf coordinate, which VTK's ASCII reader reads "
                            "as +inf; write this file with the raw or zlib encoding",
                            bad / 3);
    rc = check_cells(g, name, err);
    if (rc)
        return rc;
    rc = ldem_vtkx_check_arrays(g->point_data, g->npoint_data, g->npoints, "point data", encoding,
                                name, err);
    if (rc)
        return rc;
    return ldem_vtkx_check_arrays(g->cell_data, g->ncell_data, g->ncells, "cell data", encoding,
                                  name, err);
}

static int write_doc(ldem_vtkx_writer *w, const ldem_vtu_grid *g)
{
    FILE *fp = w->fp;
    int64_t nconn = g->ncells ? g->offsets[g->ncells - 1] : 0;
    int rc;
    ldem_vtkx_begin(w, "UnstructuredGrid");
    fputs("  <UnstructuredGrid>\n", fp);
    fprintf(fp, "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n", g->npoints,
            g->ncells);
    if ((rc = ldem_vtkx_attribute_block(w, 6, "PointData", g->point_data, g->npoint_data,
                                        g->npoints)) ||
        (rc = ldem_vtkx_attribute_block(w, 6, "CellData", g->cell_data, g->ncell_data, g->ncells)))
        return rc;
    fputs("      <Points>\n", fp);
    if ((rc = ldem_vtkx_data_array(w, 8, "Points", LDEM_VTK_FLOAT64, 3, 3 * g->npoints, g->points)))
        return rc;
    fputs("      </Points>\n      <Cells>\n", fp);
    if ((rc = ldem_vtkx_data_array(w, 8, "connectivity", LDEM_VTK_INT64, 1, (size_t)nconn,
                                   g->connectivity)) ||
        (rc = ldem_vtkx_data_array(w, 8, "offsets", LDEM_VTK_INT64, 1, g->ncells, g->offsets)) ||
        (rc = ldem_vtkx_data_array(w, 8, "types", LDEM_VTK_UINT8, 1, g->ncells, g->types)))
        return rc;
    fputs("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n", fp);
    return ldem_vtkx_end(w);
}

static int write_checked(FILE *fp, const char *name, const ldem_vtu_grid *g, int encoding,
                         ldem_err *err)
{
    ldem_vtkx_writer w;
    ldem_vtkx_writer_init(&w, fp, name, encoding, err);
    int rc = write_doc(&w, g);
    ldem_vtkx_writer_free(&w);
    return rc;
}

int ldem_vtu_write_fp(FILE *fp, const char *name, const ldem_vtu_grid *g, int encoding,
                      ldem_err *err)
{
    int rc = check_grid(g, encoding, name, err);
    return rc ? rc : write_checked(fp, name, g, encoding, err);
}

int ldem_vtu_write(const char *path, const ldem_vtu_grid *g, int encoding, ldem_err *err)
{
    /* Validate first: a rejected grid must not even create the temporary file. */
    int rc = check_grid(g, encoding, path, err);
    if (rc)
        return rc;
    ldem_outfile of;
    if ((rc = ldem_outfile_open(&of, path, err)))
        return rc;
    if ((rc = write_checked(of.fp, path, g, encoding, err))) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}
