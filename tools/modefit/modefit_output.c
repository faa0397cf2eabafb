/* modefit's outputs: the extended bundle and the reports (spectrum TSV and PNG,
 * per-snapshot table). Every file is written to a temporary name and renamed. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_integrate.h"
#include "modefit_cli.h"
#include "put_section.h"
#include "ldem/log.h"
#include "ldem/outfile.h"
#include "ldem/version.h"

static int write_spectrum(const char *path, const modefit_basis *b, ldem_err *err)
{
    ldem_outfile out;
    int rc = ldem_outfile_open(&out, path, err);
    if (rc)
        return rc;
    double total = 0, cumulative = 0;
    for (size_t k = 0; k < b->nsigma; k++)
        total += b->sigma[k] * b->sigma[k];
    fprintf(out.fp, "# modefit: POD of %zu snapshots; energy = sigma^2 / sum sigma^2\n",
            b->nsigma);
    fprintf(out.fp, "mode\tsigma\tenergy\tcumulative\tkept\n");
    for (size_t k = 0; k < b->nsigma; k++) {
        double e = total > 0 ? b->sigma[k] * b->sigma[k] / total : 0;
        cumulative += e;
        fprintf(out.fp, "%zu\t%.9e\t%.9e\t%.12f\t%d\n", k + 1, b->sigma[k], e, cumulative,
                k < b->count);
    }
    return ldem_outfile_commit(&out, err);
}

/* A temporary name in $TMPDIR (not beside the output: that may be /dev/null or a FIFO). */
static char *temporary_name(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + sizeof "/modefit-XXXXXX";
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/modefit-XXXXXX", dir);
    return s;
}

/* The finished PNG into `path` through ldem_outfile, so that a device, FIFO or symlink
 * named by the user is written the way every other output is. */
static int copy_into_output(const char *img, const char *path, ldem_err *err)
{
    FILE *in = fopen(img, "rb");
    if (!in)
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "gnuplot wrote no PNG");
    ldem_outfile out;
    int rc = ldem_outfile_open(&out, path, err);
    if (rc) {
        fclose(in);
        return rc;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out.fp);
    int read_error = ferror(in);
    fclose(in);
    if (read_error) {
        ldem_outfile_abort(&out);
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot read gnuplot's PNG back");
    }
    return ldem_outfile_commit(&out, err);
}

/* gnuplot draws the spectrum into a temporary PNG, copied into the output on success. */
static int write_spectrum_png(const char *path, const modefit_basis *b, ldem_err *err)
{
    char *data = temporary_name(), *img = temporary_name();
    if (!data || !img) {
        free(data);
        free(img);
        return modefit_nomem(err);
    }
    int fd1 = mkstemp(data), fd2 = fd1 >= 0 ? mkstemp(img) : -1;
    int rc = LDEM_OK;
    if (fd1 < 0 || fd2 < 0) {
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot create a temporary file in %s",
                          data);
        goto done;
    }
    FILE *fp = fdopen(fd1, "w");
    fd1 = -1;
    close(fd2);
    fd2 = -1;
    if (!fp) {
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot write a temporary file");
        goto done;
    }
    double total = 0, cumulative = 0;
    for (size_t k = 0; k < b->nsigma; k++)
        total += b->sigma[k] * b->sigma[k];
    for (size_t k = 0; k < b->nsigma; k++) {
        double e = b->sigma[k] * b->sigma[k] / total;
        cumulative += e;
        /* 1 − cumulative on a log axis shows the captured energy's last digits. */
        fprintf(fp, "%zu\t%.9e\t%.9e\t%d\n", k + 1, e, fmax(1.0 - cumulative, 1e-17),
                k < b->count);
    }
    fclose(fp);
    FILE *gp = popen("gnuplot 2>&1", "w");
    if (!gp) {
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot run gnuplot");
        goto done;
    }
    fprintf(gp,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
            "{ set terminal pngcairo size 900,600 font ',11' } else { set terminal png size 900,600 }\n"
            "set output '%s'\n"
            "set title 'modefit: POD spectrum (%zu snapshots, %zu modes kept)'\n"
            "set logscale y\nset format y '10^{%%L}'\nset grid\n"
            "set xlabel 'mode k'\nset ylabel 'fraction of snapshot energy'\n"
            "set key top right\n"
            "plot '%s' using 1:2 with linespoints pt 7 title 'sigma_k^2 / sum sigma^2', "
            "'' using 1:3 with linespoints pt 5 title '1 - captured energy', "
            "'' using ($4 > 0 ? $1 : 1/0):2 with points pt 6 ps 2.5 lc rgb 'black' title 'kept'\n"
            "unset output\n",
            img, b->nsigma, b->count, data);
    int st = pclose(gp);
    if (st != 0)
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "gnuplot failed (status %d)", st);
    else
        rc = copy_into_output(img, path, err);
done:
    if (fd1 >= 0)
        close(fd1);
    if (fd2 >= 0)
        close(fd2);
    unlink(data);
    unlink(img);
    free(data);
    free(img);
    return rc;
}

/* Each snapshot's modal coordinates (mass-weighted least squares: M ε = ∫ρ Φ·u), the
 * relative residual of that fit, the FE strain energy of the raw snapshot, and the raw
 * displacement at the normalization point: the inputs of energyfit --energies/--table. */
static int write_snapshot_table(const modefit_options *o, const modefit_basis *b,
                                ldem_err *err)
{
    size_t A = b->count, ns = b->snaps.count, ndof = b->fdof;
    double *rhs = malloc(A * ns * sizeof *rhs), *Mc = malloc(A * A * sizeof *Mc);
    double *point = malloc(ns * sizeof *point), *resid = malloc(ndof * sizeof *resid);
    if (!rhs || !Mc || !point || !resid) {
        free(rhs);
        free(Mc);
        free(point);
        free(resid);
        return modefit_nomem(err);
    }
    int rc = modefit_mass_gram(b, b->phi, A, b->up, ns, rhs, err);
    if (!rc) {
        memcpy(Mc, b->M, A * A * sizeof *Mc);
        /* rhs is A × ns row-major: ns right-hand sides. */
        lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)A, (lapack_int)ns,
                                        Mc, (lapack_int)A, rhs, (lapack_int)ns);
        if (info != 0)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                              "the modal mass matrix is not positive definite (dposv %d)",
                              (int)info);
    }
    /* The point's displacement per snapshot; a --cubic copy's at the point and axis
     * rotated with it, as its single mode is normalized. */
    size_t run = ns / (b->copies ? b->copies : 1);
    /* Measured where the modes were normalized: the raw snapshot, or with
     * --normalize-after-rigid the snapshot with rigid motion removed. */
    const double *measured = o->normalize_after_rigid ? b->up : b->snaps.u;
    if (!rc && o->normalize == NORM_MEAN)
        rc = modefit_mean_values(o, b, measured, ns, point, err);
    else if (!rc && o->normalize)
        for (size_t i = 0; i < ns; i++) {
            double x[3], dir[3], v[3];
            modefit_norm_target(o, (int)(i / run), x, dir);
            modefit_eval(b, measured + i * ndof, 1, x, 1, v);
            point[i] = v[0] * dir[0] + v[1] * dir[1] + v[2] * dir[2];
        }
    ldem_outfile out;
    if (!rc)
        rc = ldem_outfile_open(&out, o->snapshot_table, err);
    if (rc) {
        free(rhs);
        free(Mc);
        free(point);
        free(resid);
        return rc;
    }
    fprintf(out.fp, "# modefit: snapshots of %s in the %zu-mode basis (eps by mass-weighted "
            "least squares); energy = FE strain energy of the snapshot%s\n",
            o->snap_path ? o->snap_path
                         : (o->contact ? "the contact load cases (--contact-modes)" : "-"), A,
            o->normalize == NORM_MEAN ? "; point = its area-weighted mean displacement over "
                                        "the --normalize set, along its axis"
            : o->normalize ? (b->copies > 1 ? "; point = its displacement at the --normalize "
                                            "point and axis rotated with its --cubic copy"
                                          : "; point = its displacement at the --normalize "
                                            "point") : "");
    fprintf(out.fp, "snapshot\tstep\ttime");
    for (size_t k = 0; k < A; k++)
        fprintf(out.fp, "\teps%zu", k + 1);
    fprintf(out.fp, "%s\tenergy\tresidual\n", o->normalize ? "\tpoint" : "");
    for (size_t i = 0; i < ns && !rc; i++) {
        const double *u = b->snaps.u + i * ndof, *up = b->up + i * ndof;
        double twice_u = 0, uu = 0;
        rc = modefit_stiffness_gram(o, b, u, 1, u, 1, &twice_u, err);
        if (!rc)
            rc = modefit_mass_gram(b, up, 1, up, 1, &uu, err);
        if (rc)
            break;
        /* The residual field itself, not |up|² − εᵀMε: that difference would leave only
         * the square root of round-off (~1e-8) for a snapshot the modes hold exactly. */
        double rr = 0;
        for (size_t j = 0; j < ndof; j++) {
            double r = up[j];
            for (size_t k = 0; k < A; k++)
                r -= rhs[k * ns + i] * b->phi[k * ndof + j];
            resid[j] = r;
        }
        rc = modefit_mass_gram(b, resid, 1, resid, 1, &rr, err);
        if (rc)
            break;
        double residual = uu > 0 ? sqrt(fmax(rr, 0.0) / uu) : 0.0;
        fprintf(out.fp, "%zu\t%ld\t%.9g", i + 1, b->snaps.step[i], b->snaps.time[i]);
        for (size_t k = 0; k < A; k++)
            fprintf(out.fp, "\t%.12g", rhs[k * ns + i]);
        if (o->normalize)
            fprintf(out.fp, "\t%.12g", point[i]);
        fprintf(out.fp, "\t%.12g\t%.3e\n", 0.5 * twice_u, residual);
    }
    free(rhs);
    free(Mc);
    free(point);
    free(resid);
    if (rc) {
        ldem_outfile_abort(&out);
        return rc;
    }
    return ldem_outfile_commit(&out, err);
}

int modefit_write_reports(const modefit_options *o, const modefit_grain *g,
                          const modefit_basis *b, ldem_err *err)
{
    (void)g;
    int rc = LDEM_OK;
    int pod = b->sigma && b->nsigma;
    if ((o->spectrum || o->spectrum_png) && !pod)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "--spectrum and --spectrum-png need --method pod");
    if (o->spectrum)
        rc = write_spectrum(o->spectrum, b, err);
    if (!rc && o->spectrum_png)
        rc = write_spectrum_png(o->spectrum_png, b, err);
    if (!rc && o->snapshot_table)
        rc = write_snapshot_table(o, b, err);
    return rc;
}

static int set_number(ldem_meta *m, const char *key, double v, ldem_err *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    return ldem_meta_set(m, key, buf, err);
}

/* The FEM file → bundle frame map modefit applied to the mesh (modefit_frame.c). */
static int set_frame(ldem_meta *m, const modefit_options *o, ldem_err *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "x -> %.17g*x + (%.17g,%.17g,%.17g)", o->xf_scale,
             o->xf_translate[0], o->xf_translate[1], o->xf_translate[2]);
    return ldem_meta_set(m, "modefit.mesh_to_bundle", buf, err);
}

static const char *method_name(const modefit_options *o)
{
    if (o->analytic)
        return "analytic beam-bending";
    return o->method == METHOD_POD ? "pod" : o->method == METHOD_SINGLE ? "single" : "difference";
}

static int update_meta(const modefit_options *o, const modefit_basis *b, ldem_bundle *bundle,
                       ldem_err *err)
{
    ldem_meta meta;
    ldem_meta_init(&meta);
    const ldem_section *s = ldem_bundle_find(bundle, LDEM_TAG_META);
    int rc = s ? ldem_meta_decode(s, "<input bundle>", &meta, err) : LDEM_OK;
    if (!rc)
        rc = ldem_meta_set(&meta, "modefit.command", o->command_line, err);
    if (!rc)
        rc = ldem_meta_set(&meta, "modefit.producer", "modefit " LDEM_VERSION, err);
    if (!rc)
        rc = ldem_meta_set(&meta, "modefit.method", method_name(o), err);
    if (!rc && o->mesh_path)
        rc = ldem_meta_set(&meta, "modefit.mesh", o->mesh_path, err);
    if (!rc && o->snap_path)
        rc = ldem_meta_set(&meta, "modefit.snapshots", o->snap_path, err);
    if (!rc)
        rc = set_number(&meta, "modefit.E", o->E, err);
    if (!rc)
        rc = set_number(&meta, "modefit.nu", o->nu, err);
    if (!rc)
        rc = set_number(&meta, "modefit.density", b->rho, err);
    if (!rc)
        rc = ldem_meta_set(&meta, "modefit.rigid", o->keep_rigid ? "kept" : "projected out", err);
    if (!rc && o->normalize)
        rc = ldem_meta_set(&meta, "modefit.normalize", o->norm_text, err);
    /* Which field the normalization was measured on; "" over an earlier run's value when
     * this run does not normalize. */
    if (!rc && (o->normalize || ldem_meta_get(&meta, "modefit.normalize_on")))
        rc = ldem_meta_set(&meta, "modefit.normalize_on",
                           !o->normalize ? "none"
                           : o->normalize_after_rigid
                               ? "rigid-free mode (after rigid-body removal)"
                               : "FEM field with rigid motion (before rigid-body removal)",
                           err);
    if (!rc && !o->normalize && ldem_meta_get(&meta, "modefit.normalize"))
        rc = ldem_meta_set(&meta, "modefit.normalize", "none", err);
    if (!rc && !o->analytic)
        rc = set_frame(&meta, o, err);
    /* "none" only over an earlier run's value: a bundle remade without --cubic must not
     * keep claiming it. */
    if (!rc && (o->cubic || ldem_meta_get(&meta, "modefit.cubic")))
        rc = ldem_meta_set(&meta, "modefit.cubic",
                           o->cubic == CUBIC_SUM ? "sum" : o->cubic == CUBIC_COPIES ? "copies"
                                                                               : "none", err);
    if (!rc)
        rc = set_number(&meta, "modefit.omega_max", b->damping.omega[b->count - 1], err);
    unsigned char *data = NULL;
    uint64_t len = 0;
    if (!rc)
        rc = ldem_meta_encode(&meta, &data, &len, err);
    if (!rc)
        rc = ldem_bundle_put(bundle, LDEM_TAG_META, 0, data, len, err);
    ldem_meta_free(&meta);
    return rc;
}

int modefit_extend_bundle(const modefit_options *o, const modefit_basis *b, ldem_modes *m,
                          ldem_bundle *bundle, ldem_err *err)
{
    if (ldem_bundle_remove(bundle, LDEM_TAG_ETAB))
        ldem_warn("the input bundle's ETAB belonged to its old modes: dropped (run energyfit "
                  "after modefit)");
    ldem_matrix K = {.n = (uint32_t)b->count, .a = b->K};
    ldem_matrix M = {.n = (uint32_t)b->count, .a = b->M};
    PUT_SECTION(bundle, LDEM_TAG_MODE, ldem_modes_encode, m, err);
    PUT_SECTION(bundle, LDEM_TAG_KMAT, ldem_matrix_encode, &K, err);
    PUT_SECTION(bundle, LDEM_TAG_MMAT, ldem_matrix_encode, &M, err);
    PUT_SECTION(bundle, LDEM_TAG_DAMP, ldem_damping_encode, &b->damping, err);
    return update_meta(o, b, bundle, err);
}
