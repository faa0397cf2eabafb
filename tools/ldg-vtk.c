/* ldg-vtk: look at a grain bundle in ParaView.
 *
 *   ldg-vtk [-i IN.ldg] [--vtu SURFACE.vtu] [--vti LEVELSET.vti] [--encoding E] [--bundle N]
 *
 * --vtu writes the surface nodes and triangles (NODE) with normals, area weights and node
 * ids, plus each deformation mode sampled at the nodes (MODE) as a vector array;
 * --vti writes the level set (LSET) as ImageData. Outputs are written atomically. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/infile.h"
#include "ldem/sections.h"
#include "ldem/version.h"
#include "ldem/vtu.h"

static const char *program = "ldg-vtk";

typedef struct options {
    const char *input, *vtu, *vti;
    int encoding;
    long bundle;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] [IN.ldg]\n"
            "Export a grain bundle for ParaView. Reads IN.ldg, -i FILE, or standard input.\n"
            "\n"
            "  -i, --input FILE     bundle stream to read ('-' = stdin, the default)\n"
            "  --vtu FILE           surface nodes + triangles (NODE) with normal, area, id and\n"
            "                       mode arrays (MODE) as an UnstructuredGrid\n"
            "  --vti FILE           the level set (LSET) as ImageData, point array 'phi'\n"
            "  --encoding E         ascii, raw or zlib (default zlib)\n"
            "  --bundle N           which bundle of a concatenated stream (default 1)\n"
            "  -h, --help, --version\n",
            program);
}

/* Mode α at every node, as one vector array named "mode<α>". */
static int mode_arrays(const ldem_modes *m, uint64_t nnodes, ldem_vtk_array *arrays,
                       char (*names)[32])
{
    if (!m || m->nnodes != nnodes || !m->node_values)
        return 0;
    int n = m->count < 16 ? (int)m->count : 16; /* ParaView lists beyond that get unwieldy */
    for (int a = 0; a < n; a++) {
        snprintf(names[a], sizeof names[a], "mode%d", a);
        arrays[a] = (ldem_vtk_array){names[a], LDEM_VTK_FLOAT64, 3,
                                     m->node_values + (size_t)a * nnodes * 3};
    }
    return n;
}

static int write_surface(const ldem_bundle *b, const char *source, const options *o,
                         ldem_err *err)
{
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_NODE);
    if (!s)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "bundle %ld has no NODE section (needed for --vtu)", o->bundle);
    ldem_nodes nd;
    int rc = ldem_nodes_decode(s, source, &nd, err);
    if (rc)
        return rc;
    ldem_modes modes = {0};
    const ldem_section *ms = ldem_bundle_find(b, LDEM_TAG_MODE);
    if (ms && (rc = ldem_modes_decode(ms, source, &modes, err)) != LDEM_OK) {
        ldem_nodes_free(&nd);
        return rc;
    }
    /* Triangles when the bundle has them; otherwise one vertex cell per node. */
    size_t ncells = nd.ntriangles ? nd.ntriangles : nd.count;
    size_t per = nd.ntriangles ? 3 : 1;
    int64_t *conn = malloc(ncells * per * sizeof *conn + 1);
    int64_t *offsets = malloc(ncells * sizeof *offsets + 1);
    uint8_t *types = malloc(ncells + 1);
    int64_t *ids = malloc(nd.count * sizeof *ids + 1);
    if (!conn || !offsets || !types || !ids)
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, source, 0, "out of memory");
    for (size_t c = 0; !rc && c < ncells; c++) {
        for (size_t k = 0; k < per; k++)
            conn[c * per + k] = nd.ntriangles ? nd.triangles[c * 3 + k] : (int64_t)c;
        offsets[c] = (int64_t)((c + 1) * per);
        types[c] = nd.ntriangles ? LDEM_VTK_TRIANGLE : LDEM_VTK_VERTEX;
    }
    for (size_t i = 0; !rc && i < nd.count; i++)
        ids[i] = (int64_t)i;
    ldem_vtk_array arrays[3 + 16];
    char names[16][32];
    arrays[0] = (ldem_vtk_array){"normal", LDEM_VTK_FLOAT64, 3, nd.normal};
    arrays[1] = (ldem_vtk_array){"area", LDEM_VTK_FLOAT64, 1, nd.area};
    arrays[2] = (ldem_vtk_array){"node_id", LDEM_VTK_INT64, 1, ids};
    size_t narrays = 3 + (size_t)mode_arrays(ms ? &modes : NULL, nd.count, arrays + 3, names);
    ldem_vtu_grid g = {.npoints = nd.count, .points = nd.position, .ncells = ncells,
                       .connectivity = conn, .offsets = offsets, .types = types,
                       .npoint_data = narrays, .point_data = arrays};
    if (!rc)
        rc = ldem_vtu_write(o->vtu, &g, o->encoding, err);
    free(conn);
    free(offsets);
    free(types);
    free(ids);
    ldem_modes_free(&modes);
    ldem_nodes_free(&nd);
    return rc;
}

static int write_levelset(const ldem_bundle *b, const char *source, const options *o,
                          ldem_err *err)
{
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_LSET);
    if (!s)
        return ldem_err_set(err, LDEM_ERR_INPUT, source, 0,
                            "bundle %ld has no LSET section (needed for --vti)", o->bundle);
    ldem_lset ls;
    int rc = ldem_lset_decode(s, source, &ls, err);
    if (rc)
        return rc;
    ldem_vtk_array phi = {"phi", LDEM_VTK_FLOAT32, 1, ls.phi};
    ldem_vti_image img = {.dims = {ls.dims[0], ls.dims[1], ls.dims[2]},
                          .origin = {ls.origin[0], ls.origin[1], ls.origin[2]},
                          .spacing = {ls.spacing[0], ls.spacing[1], ls.spacing[2]},
                          .npoint_data = 1, .point_data = &phi};
    rc = ldem_vti_write(o->vti, &img, o->encoding, err);
    ldem_lset_free(&ls);
    return rc;
}

/* Read bundles up to the chosen one. */
static int load_bundle(const options *o, ldem_bundle *b, const char **source, ldem_err *err)
{
    ldem_infile in;
    int rc = ldem_infile_open(&in, o->input, err);
    if (rc)
        return rc;
    *source = in.name;
    ldem_bundle_reader *r = NULL;
    rc = ldem_bundle_reader_open(&r, in.fp, *source, err);
    for (long i = 1; !rc; i++) {
        int have = 0;
        rc = ldem_bundle_read(r, b, &have, err);
        if (!rc && !have)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, *source, 0,
                              "the stream holds %ld bundle%s; --bundle %ld asked for more",
                              i - 1, i == 2 ? "" : "s", o->bundle);
        if (rc || i == o->bundle)
            break;
        ldem_bundle_free(b);
    }
    ldem_bundle_reader_close(r);
    ldem_infile_close(&in);
    return rc;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"input", required_argument, NULL, 'i'},   {"vtu", required_argument, NULL, 'u'},
        {"vti", required_argument, NULL, 'g'},     {"encoding", required_argument, NULL, 'e'},
        {"bundle", required_argument, NULL, 'b'},  {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},       {NULL, 0, NULL, 0}};
    ldem_err err;
    char *end;
    int c;
    while ((c = getopt_long(argc, argv, "i:h", longs, NULL)) != -1) {
        switch (c) {
        case 'i': o->input = optarg; break;
        case 'u': o->vtu = optarg; break;
        case 'g': o->vti = optarg; break;
        case 'e':
            if (ldem_vtk_encoding_parse(optarg, &o->encoding, &err)) {
                ldem_err_print(&err, program, stderr);
                return 1;
            }
            break;
        case 'b':
            o->bundle = strtol(optarg, &end, 10);
            if (*end || o->bundle < 1) {
                fprintf(stderr, "%s: error: --bundle %s: expected a number >= 1\n", program,
                        optarg);
                return 1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("%s %s\n", program, LDEM_VERSION); exit(0);
        default: fprintf(stderr, "%s: error: bad usage; try --help\n", program); return 1;
        }
    }
    if (optind < argc)
        o->input = argv[optind++];
    if (optind < argc || (!o->vtu && !o->vti)) {
        fprintf(stderr, "%s: error: %s; try --help\n", program,
                optind < argc ? "more than one input" : "nothing to do: give --vtu and/or --vti");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o = {.input = "-", .encoding = LDEM_VTK_ZLIB, .bundle = 1};
    if (parse_options(argc, argv, &o))
        return 2;
    ldem_err err;
    ldem_err_clear(&err);
    ldem_bundle b;
    ldem_bundle_init(&b);
    const char *source = NULL;
    int rc = load_bundle(&o, &b, &source, &err);
    if (!rc && o.vtu)
        rc = write_surface(&b, source, &o, &err);
    if (!rc && o.vti)
        rc = write_levelset(&b, source, &o, &err);
    ldem_bundle_free(&b);
    if (rc) {
        ldem_err_print(&err, program, stderr);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
