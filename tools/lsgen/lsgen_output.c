/* lsgen's outputs: the grain bundle and the ParaView previews. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lsgen_cli.h"
#include "put_section.h"
#include "ldem/bundle.h"
#include "ldem/outfile.h"
#include "ldem/vtu.h"

void lsgen_result_free(lsgen_result *r)
{
    ldem_meta_free(&r->meta);
    ldem_lset_free(&r->lset);
    ldem_nodes_free(&r->nodes);
}

static int build_bundle(const lsgen_result *r, ldem_bundle *b, ldem_err *err)
{
    PUT_SECTION(b, LDEM_TAG_META, ldem_meta_encode, &r->meta, err);
    PUT_SECTION(b, LDEM_TAG_LSET, ldem_lset_encode, &r->lset, err);
    PUT_SECTION(b, LDEM_TAG_NODE, ldem_nodes_encode, &r->nodes, err);
    PUT_SECTION(b, LDEM_TAG_BODY, ldem_body_encode, &r->body, err);
    return LDEM_OK;
}

static int write_bundle(const char *path, const lsgen_result *r, ldem_err *err)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    int rc = build_bundle(r, &b, err);
    ldem_outfile out;
    if (!rc)
        rc = ldem_outfile_open(&out, path, err);
    if (!rc) {
        const char *name = strcmp(path, "-") == 0 ? "<stdout>" : path;
        rc = ldem_bundle_write(out.fp, name, &b, err);
        if (rc)
            ldem_outfile_abort(&out);
        else
            rc = ldem_outfile_commit(&out, err);
    }
    ldem_bundle_free(&b);
    return rc;
}

static int write_vti(const char *path, const ldem_lset *ls, int encoding, ldem_err *err)
{
    ldem_vtk_array phi = {.name = "phi", .type = LDEM_VTK_FLOAT32, .ncomp = 1, .data = ls->phi};
    ldem_vti_image img = {.npoint_data = 1, .point_data = &phi};
    for (int d = 0; d < 3; d++) {
        img.dims[d] = ls->dims[d];
        img.origin[d] = ls->origin[d];
        img.spacing[d] = ls->spacing[d];
    }
    return ldem_vti_write(path, &img, encoding, err);
}

static int write_vtu(const char *path, const ldem_nodes *n, int encoding, ldem_err *err)
{
    size_t t = n->ntriangles;
    int64_t *conn = malloc(3 * (t ? t : 1) * sizeof *conn);
    int64_t *offsets = malloc((t ? t : 1) * sizeof *offsets);
    uint8_t *types = malloc(t ? t : 1);
    if (!conn || !offsets || !types) {
        free(conn);
        free(offsets);
        free(types);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for the preview");
    }
    for (size_t i = 0; i < 3 * t; i++)
        conn[i] = n->triangles[i];
    for (size_t i = 0; i < t; i++) {
        offsets[i] = (int64_t)(3 * (i + 1));
        types[i] = LDEM_VTK_TRIANGLE;
    }
    ldem_vtk_array pd[2] = {
        {.name = "normal", .type = LDEM_VTK_FLOAT64, .ncomp = 3, .data = n->normal},
        {.name = "area", .type = LDEM_VTK_FLOAT64, .ncomp = 1, .data = n->area}};
    ldem_vtu_grid g = {.npoints = n->count, .points = n->position, .ncells = t,
                       .connectivity = conn, .offsets = offsets, .types = types,
                       .npoint_data = 2, .point_data = pd};
    int rc = ldem_vtu_write(path, &g, encoding, err);
    free(conn);
    free(offsets);
    free(types);
    return rc;
}

int lsgen_write_outputs(const lsgen_options *o, const lsgen_result *r, ldem_err *err)
{
    /* Previews first: if one fails, no bundle appears that a Makefile would take as done. */
    int rc = LDEM_OK;
    if (o->vti)
        rc = write_vti(o->vti, &r->lset, o->encoding, err);
    if (!rc && o->vtu)
        rc = write_vtu(o->vtu, &r->nodes, o->encoding, err);
    if (!rc)
        rc = write_bundle(o->output, r, err);
    return rc;
}
