/* modefit: FEM snapshots or an analytic field → a grain's deformation modes Φα with their
 * generalized stiffness and mass (Henzel & Karapiperis eqs. 4, 8, 54) and modal damping,
 * added to the grain's bundle as MODE, KMAT, MMAT and DAMP (docs/design.md, "The pipeline").
 *
 * Argument parsing (modefit_args.c), the numerics (modefit_build.c), sampling on the grain
 * (modefit_map.c) and output (modefit_output.c) around the modefit modules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "blas_threads.h"
#include "cli.h"
#include "modefit_cli.h"
#include "ldem/bundle.h"
#include "ldem/infile.h"
#include "ldem/log.h"
#include "ldem/outfile.h"
#include "ldem/quat.h"

/* The one bundle on the input; a second one is refused (one FEM model, one grain). */
static int read_bundle(const char *path, ldem_bundle *b, ldem_err *err)
{
    ldem_infile in;
    int rc = ldem_infile_open(&in, path, err);
    if (rc)
        return rc;
    ldem_bundle_reader *r = NULL;
    int have = 0;
    rc = ldem_bundle_reader_open(&r, in.fp, in.name, err);
    if (!rc)
        rc = ldem_bundle_read(r, b, &have, err);
    if (!rc && !have)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, in.name, 0,
                          "empty stream: no bundle (pipe lsgen's output in, or use -i FILE)");
    if (!rc) {
        ldem_bundle extra;
        ldem_bundle_init(&extra);
        rc = ldem_bundle_read(r, &extra, &have, err);
        if (!rc && have)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, in.name, 0,
                              "the stream holds more than one bundle; modefit builds the modes "
                              "of one grain (split the stream first)");
        ldem_bundle_free(&extra);
    }
    ldem_bundle_reader_close(r);
    ldem_infile_close(&in);
    return rc;
}

static const ldem_section *need(const ldem_bundle *b, const char *tag, const char *path,
                                ldem_err *err)
{
    const ldem_section *s = ldem_bundle_find(b, tag);
    if (!s)
        ldem_err_set(err, LDEM_ERR_INPUT, strcmp(path, "-") ? path : "<stdin>", 0,
                     "the bundle has no %s section: modefit extends a grain bundle made by "
                     "lsgen (LSET, NODE, BODY)", tag);
    return s;
}

/* What lsgen recorded about the frame and the density (META; older bundles have neither:
 * no transform, a density that was given). */
static int decode_lsgen_meta(const char *name, const ldem_bundle *b, modefit_grain *g,
                             ldem_err *err)
{
    g->geo_scale = 1.0;
    const ldem_section *s = ldem_bundle_find(b, LDEM_TAG_META);
    if (!s)
        return LDEM_OK;
    ldem_meta meta;
    ldem_meta_init(&meta);
    int rc = ldem_meta_decode(s, name, &meta, err);
    const char *scale = rc ? NULL : ldem_meta_get(&meta, "lsgen.scale");
    const char *shift = rc ? NULL : ldem_meta_get(&meta, "lsgen.translate");
    const char *density = rc ? NULL : ldem_meta_get(&meta, "lsgen.density");
    char *end = NULL;
    if (scale) {
        g->geo_scale = strtod(scale, &end);
        if (end == scale || *end || !(g->geo_scale > 0) || !isfinite(g->geo_scale))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                              "META lsgen.scale='%s' is not a number > 0", scale);
    }
    if (!rc && shift) {
        const char *p = shift;
        for (int d = 0; d < 3 && !rc; d++) {
            g->geo_translate[d] = strtod(p, &end);
            if (end == p || !isfinite(g->geo_translate[d]) || (d < 2 ? *end != ',' : *end))
                rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                  "META lsgen.translate='%s' is not X,Y,Z", shift);
            p = end + 1;
        }
    }
    g->density_default = density && !strcmp(density, "default");
    ldem_meta_free(&meta);
    return rc;
}

static int decode_grain(const char *path, const ldem_bundle *b, modefit_grain *g, ldem_err *err)
{
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    const ldem_section *body = need(b, LDEM_TAG_BODY, path, err);
    const ldem_section *nodes = body ? need(b, LDEM_TAG_NODE, path, err) : NULL;
    const ldem_section *lset = nodes ? need(b, LDEM_TAG_LSET, path, err) : NULL;
    if (!lset)
        return LDEM_ERR_INPUT;
    int rc = ldem_body_decode(body, name, &g->body, err);
    if (!rc)
        rc = ldem_nodes_decode(nodes, name, &g->nodes, err);
    if (!rc)
        rc = ldem_lset_decode(lset, name, &g->lset, err);
    if (rc)
        return rc;
    ldem_quat q = ldem_quat_make(g->body.orientation[0], g->body.orientation[1],
                                 g->body.orientation[2], g->body.orientation[3]);
    ldem_mat3 r = ldem_quat_to_mat3(q);
    memcpy(g->rot, r.m, sizeof g->rot);
    return decode_lsgen_meta(name, b, g, err);
}

static int write_bundle(const char *path, const ldem_bundle *b, ldem_err *err)
{
    ldem_outfile out;
    int rc = ldem_outfile_open(&out, path, err);
    if (rc)
        return rc;
    rc = ldem_bundle_write(out.fp, strcmp(path, "-") ? path : "<stdout>", b, err);
    if (rc) {
        ldem_outfile_abort(&out);
        return rc;
    }
    return ldem_outfile_commit(&out, err);
}

static int run(const modefit_options *opts, ldem_err *err)
{
    /* A working copy: the frame map and the --normalize point depend on the grain. */
    modefit_options work = *opts;
    modefit_options *o = &work;
    ldem_bundle bundle;
    ldem_bundle_init(&bundle);
    modefit_grain g;
    memset(&g, 0, sizeof g);
    modefit_basis basis;
    memset(&basis, 0, sizeof basis);
    ldem_modes modes;
    memset(&modes, 0, sizeof modes);
    int rc = read_bundle(o->input, &bundle, err);
    if (!rc)
        rc = decode_grain(o->input, &bundle, &g, err);
    if (!rc)
        rc = modefit_frame_resolve(o, &g, err);
    if (!rc)
        rc = modefit_build(o, &g, &basis, err);
    if (!rc)
        rc = modefit_map(o, &g, &basis, &modes, err);
    if (!rc)
        rc = modefit_extend_bundle(o, &basis, &modes, &bundle, err);
    /* Reports first, bundle last: a pipe's consumer sees a bundle only if all went well. */
    if (!rc)
        rc = modefit_write_reports(o, &g, &basis, err);
    if (!rc)
        rc = write_bundle(o->output, &bundle, err);
    /* Last, so that a refusal stays the one line it is. */
    if (!rc && g.density_default && !(o->density > 0))
        ldem_warn("the grain's density is lsgen's default 1 (no lsgen --density), and so are "
                  "its mass matrix M and frequencies: give modefit --density RHO or rebuild "
                  "the grain with lsgen --density RHO");
    ldem_modes_free(&modes);
    modefit_basis_free(&basis);
    ldem_nodes_free(&g.nodes);
    ldem_lset_free(&g.lset);
    ldem_bundle_free(&bundle);
    return rc;
}

int main(int argc, char **argv)
{
    ldem_log_set_program("modefit");
    modefit_options o;
    int st = modefit_parse_args(argc, argv, &o);
    if (st) {
        modefit_options_free(&o);
        return st < 0 ? 0 : st;
    }
    ldem_log_set_level(LDEM_LOG_WARN + o.verbosity);
    blas_use_one_thread(); /* the same bytes on any machine: blas_threads.c */
#ifdef _OPENMP
    if (o.threads > 0)
        omp_set_num_threads(o.threads);
#endif
    ldem_err err;
    ldem_err_clear(&err);
    int rc = cli_refuse_terminal(o.output, &err);
    if (!rc)
        rc = run(&o, &err);
    modefit_options_free(&o);
    if (rc) {
        ldem_log_err(&err);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
