/* ImageData (.vti): regular grids such as level sets. */
#include "vtk_xml.h"

#include <limits.h>
#include <math.h>

#include "ldem/outfile.h"

static int check_image(const ldem_vti_image *img, int encoding, const char *name, size_t *npoints,
                       size_t *ncells, ldem_err *err)
{
    if (!img)
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "no image given");
    int rc = ldem_vtkx_check_encoding(encoding, name, err);
    if (rc)
        return rc;
    size_t np = 1, nc = 1;
    for (int a = 0; a < 3; a++) {
        size_t d = img->dims[a];
        /* VTK extents are int. */
        if (d < 1 || d > (size_t)INT_MAX)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "image dimension %d is %zu points (expected 1..%d)", a, d, INT_MAX);
        if (np > SIZE_MAX / 8 / d)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "image of %zu x %zu x %zu "
                                "points is too large",
                                img->dims[0], img->dims[1], img->dims[2]);
        np *= d;
        if (d > 1)
            nc *= d - 1;
        if (!isfinite(img->origin[a]))
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "image origin[%d] is not finite", a);
        if (!isfinite(img->spacing[a]) || !(img->spacing[a] > 0))
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "image spacing[%d] is %g (expected finite and > 0)", a,
                                img->spacing[a]);
    }
    if ((rc = ldem_vtkx_check_arrays(img->point_data, img->npoint_data, np, "point data", encoding,
                                     name, err)) ||
        (rc = ldem_vtkx_check_arrays(img->cell_data, img->ncell_data, nc, "cell data", encoding,
                                     name, err)))
        return rc;
    *npoints = np;
    *ncells = nc;
    return LDEM_OK;
}

static int write_doc(ldem_vtkx_writer *w, const ldem_vti_image *img, size_t np, size_t nc)
{
    FILE *fp = w->fp;
    char extent[128];
    snprintf(extent, sizeof extent, "0 %zu 0 %zu 0 %zu", img->dims[0] - 1, img->dims[1] - 1,
             img->dims[2] - 1);
    char o[3][32], s[3][32];
    for (int a = 0; a < 3; a++) {
        ldem_vtkx_format_double(o[a], img->origin[a]);
        ldem_vtkx_format_double(s[a], img->spacing[a]);
    }
    ldem_vtkx_begin(w, "ImageData");
    fprintf(fp, "  <ImageData WholeExtent=\"%s\" Origin=\"%s %s %s\" Spacing=\"%s %s %s\">\n",
            extent, o[0], o[1], o[2], s[0], s[1], s[2]);
    fprintf(fp, "    <Piece Extent=\"%s\">\n", extent);
    int rc;
    if ((rc =
             ldem_vtkx_attribute_block(w, 6, "PointData", img->point_data, img->npoint_data, np)) ||
        (rc = ldem_vtkx_attribute_block(w, 6, "CellData", img->cell_data, img->ncell_data, nc)))
        return rc;
    fputs("    </Piece>\n  </ImageData>\n", fp);
    return ldem_vtkx_end(w);
}

static int write_checked(FILE *fp, const char *name, const ldem_vti_image *img, int encoding,
                         size_t np, size_t nc, ldem_err *err)
{
    ldem_vtkx_writer w;
    ldem_vtkx_writer_init(&w, fp, name, encoding, err);
    int rc = write_doc(&w, img, np, nc);
    ldem_vtkx_writer_free(&w);
    return rc;
}

int ldem_vti_write_fp(FILE *fp, const char *name, const ldem_vti_image *img, int encoding,
                      ldem_err *err)
{
    size_t np, nc;
    int rc = check_image(img, encoding, name, &np, &nc, err);
    return rc ? rc : write_checked(fp, name, img, encoding, np, nc, err);
}

int ldem_vti_write(const char *path, const ldem_vti_image *img, int encoding, ldem_err *err)
{
    size_t np, nc;
    int rc = check_image(img, encoding, path, &np, &nc, err);
    if (rc)
        return rc;
    ldem_outfile of;
    if ((rc = ldem_outfile_open(&of, path, err)))
        return rc;
    if ((rc = write_checked(of.fp, path, img, encoding, np, nc, err))) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}
