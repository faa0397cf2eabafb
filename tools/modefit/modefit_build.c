/* modefit's numerics, in the order the issue lists them: read the FEM snapshots, remove
 * rigid motion, optionally symmetrize them under the axis permutations (--cubic: triples,
 * cubic.h), build the basis (POD, single snapshot or difference modes) or take the analytic
 * mode, integrate K and M, optionally make the modes energy-orthogonal, scale them to the
 * displacement the user names, and derive frequencies and damping.
 *
 * --cubic copies keeps the snapshots copy-major (copy p of snapshot i at p·ns + i, ns the
 * snapshots read): single mode takes the three copies of one snapshot, difference modes
 * difference within each copy, POD sees them all. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basis.h"
#include "fe_integrate.h"
#include "modefit_cli.h"
#include "modefit_solve.h"
#include "ldem/log.h"

/* The mass-weighted inner product ∫ rho a·b dV and the strain energy product
 * ∫ ε(a):C:ε(b) dV on the mesh, as basis_inner callbacks. */
typedef struct mass_ctx {
    const fe_mesh *mesh;
    double rho, E, nu;
} mass_ctx;

static int mass_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                     double *G, ldem_err *err)
{
    const mass_ctx *c = ctx;
    return fe_mass_gram(c->mesh, c->rho, a, na, b, nb, G, err);
}

static int stiffness_gram(void *ctx, const double *a, size_t na, const double *b, size_t nb,
                          double *G, ldem_err *err)
{
    const mass_ctx *c = ctx;
    return fe_stiffness_gram(c->mesh, c->E, c->nu, a, na, b, nb, G, err);
}

/* base on mesh fields, or on --cubic triples (cubic.h) when the basis has them. */
static int basis_gram(const modefit_basis *b, basis_inner base, const double *x, size_t nx,
                      const double *y, size_t ny, double *G, ldem_err *err)
{
    if (!b->cmap)
        return base.gram(base.ctx, x, nx, y, ny, G, err);
    cubic_inner_ctx c = {b->cmap, base};
    basis_inner ip = cubic_inner(&c);
    return ip.gram(ip.ctx, x, nx, y, ny, G, err);
}

int modefit_mass_gram(const modefit_basis *b, const double *x, size_t nx, const double *y,
                      size_t ny, double *G, ldem_err *err)
{
    mass_ctx mc = {&b->mesh, b->rho, 0.0, 0.0};
    basis_inner base = {mass_gram, &mc, 3 * b->mesh.nnodes};
    return basis_gram(b, base, x, nx, y, ny, G, err);
}

int modefit_stiffness_gram(const modefit_options *o, const modefit_basis *b, const double *x,
                           size_t nx, const double *y, size_t ny, double *G, ldem_err *err)
{
    mass_ctx mc = {&b->mesh, b->rho, o->E, o->nu};
    basis_inner base = {stiffness_gram, &mc, 3 * b->mesh.nnodes};
    return basis_gram(b, base, x, nx, y, ny, G, err);
}

double modefit_eval(const modefit_basis *b, const double *fields, size_t n, const double x[3],
                    int extend, double *out)
{
    if (b->cmap)
        return cubic_eval(&b->mesh, b->loc, fields, n, x, extend, out);
    fe_place p;
    double gap;
    if (extend) {
        if (cubic_locate(&b->mesh, b->loc, x, &p, &gap) != CUBIC_CLAMPED)
            gap = 0.0;
    } else {
        fe_locate(b->loc, x, &p);
        gap = p.inside ? 0.0 : p.dist;
    }
    fe_interpolate(&b->mesh, &p, fields, n, out);
    return gap;
}

int modefit_nomem(ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

void modefit_basis_free(modefit_basis *b)
{
    fe_mesh_free(&b->mesh);
    fe_snapshots_free(&b->snaps);
    fe_locator_free(b->loc);
    cubic_map_free(b->cmap);
    free(b->phi);
    free(b->raw);
    free(b->up);
    free(b->sigma);
    free(b->K);
    free(b->M);
    ldem_damping_free(&b->damping);
    memset(b, 0, sizeof *b);
}

static int read_fem(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    int rc;
    if (ends_with(o->snap_path, ".msh")) {
        if (strcmp(o->mesh_path, o->snap_path) != 0)
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "--snapshots %s: .msh snapshots carry their own mesh; drop "
                                "--mesh %s", o->snap_path, o->mesh_path);
        rc = msh_read(o->snap_path, &b->mesh, &b->snaps, o->step, err);
    } else if (ends_with(o->snap_path, ".frd")) {
        rc = ends_with(o->mesh_path, ".msh") ? msh_read(o->mesh_path, &b->mesh, NULL, 0, err)
                                              : inp_read_mesh(o->mesh_path, &b->mesh, err);
        if (!rc)
            rc = fe_mesh_check(&b->mesh, o->mesh_path, err);
        if (!rc)
            rc = frd_read_disp(o->snap_path, &b->mesh, o->step, &b->snaps, err);
    } else {
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "--snapshots %s: expected CalculiX results (.frd) or a Gmsh "
                            ".msh with NodeData views", o->snap_path);
    }
    if (!rc)
        rc = fe_mesh_check(&b->mesh, o->mesh_path, err);
    if (rc)
        return rc;
    ldem_info("%s: %zu nodes, %zu %d-node tetrahedra; %s: %zu snapshot%s", o->mesh_path,
              b->mesh.nnodes, b->mesh.ntets, b->mesh.order, o->snap_path, b->snaps.count,
              b->snaps.count == 1 ? "" : "s");
    return LDEM_OK;
}

/* Index of the snapshot with the largest norm in ip (Henzel §4.2: "the displacement at
 * the largest deformation"). */
static int largest_snapshot(const double *fields, size_t count, const basis_inner *ip,
                            size_t *best, ldem_err *err)
{
    double top = -1;
    size_t ndof = ip->ndof;
    for (size_t i = 0; i < count; i++) {
        double g;
        int rc = ip->gram(ip->ctx, fields + i * ndof, 1, fields + i * ndof, 1, &g, err);
        if (rc)
            return rc;
        if (g > top) {
            top = g;
            *best = i;
        }
    }
    return LDEM_OK;
}

static int pod_basis(const modefit_options *o, const basis_inner *ip, modefit_basis *b,
                     ldem_err *err)
{
    size_t ns = b->snaps.count, ndof = ip->ndof;
    double *coef = malloc(ns * ns * sizeof *coef);
    b->sigma = malloc(ns * sizeof *b->sigma);
    if (!coef || !b->sigma) {
        free(coef);
        return modefit_nomem(err);
    }
    b->nsigma = ns;
    size_t rank = 0;
    int rc = basis_pod(b->up, ns, ip, BASIS_POD_AUTO, b->sigma, coef, &rank, err);
    if (!rc && rank == 0)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, o->snap_path, 0,
                          "the snapshots hold nothing but rigid-body motion: no mode to build");
    if (!rc) {
        size_t want = o->modes ? (size_t)o->modes : basis_energy_count(b->sigma, ns, o->energy);
        if (want > rank) {
            ldem_warn("%s: asked for %zu modes, the snapshots span only %zu", o->snap_path, want,
                      rank);
            want = rank;
        }
        b->count = want;
        b->phi = malloc(want * ndof * sizeof *b->phi);
        b->raw = malloc(want * ndof * sizeof *b->raw);
        if (!b->phi || !b->raw)
            rc = modefit_nomem(err);
    }
    if (!rc) {
        basis_combine(coef, b->count, ns, b->up, ndof, b->phi);
        basis_combine(coef, b->count, ns, b->snaps.u, ndof, b->raw);
    }
    free(coef);
    return rc;
}

/* The snapshot the single mode is (largest or --single-index), counted among the
 * snapshots read; with --cubic copies its three copies make three modes. */
static int single_basis(const modefit_options *o, const basis_inner *ip, modefit_basis *b,
                        ldem_err *err)
{
    size_t copies = b->copies, ns = b->snaps.count / copies, ndof = ip->ndof, k = 0;
    if (o->single_index) {
        if ((size_t)o->single_index > ns)
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "--single-index %ld: %s holds %zu snapshots", o->single_index,
                                o->snap_path, ns);
        k = (size_t)o->single_index - 1;
    } else {
        int rc = largest_snapshot(b->up, ns, ip, &k, err);
        if (rc)
            return rc;
    }
    ldem_info("single mode: snapshot %zu (step %ld, time %g)%s", k + 1, b->snaps.step[k],
              b->snaps.time[k], copies > 1 ? ", its three --cubic copies" : "");
    b->count = copies;
    b->phi = malloc(copies * ndof * sizeof *b->phi);
    b->raw = malloc(copies * ndof * sizeof *b->raw);
    if (!b->phi || !b->raw)
        return modefit_nomem(err);
    for (size_t p = 0; p < copies; p++) {
        size_t j = p * ns + k;
        memcpy(b->phi + p * ndof, b->up + j * ndof, ndof * sizeof *b->phi);
        memcpy(b->raw + p * ndof, b->snaps.u + j * ndof, ndof * sizeof *b->raw);
    }
    return LDEM_OK;
}

/* u_1 − 0, u_2 − u_1, ...: the snapshots' successive increments (Henzel §4.2), within
 * each run of `run` snapshots (one --cubic copy). */
static double *differences(const double *u, size_t ns, size_t run, size_t ndof)
{
    double *d = malloc(ns * ndof * sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < ndof; j++)
            d[i * ndof + j] = u[i * ndof + j] - (i % run ? u[(i - 1) * ndof + j] : 0.0);
    return d;
}

static int difference_basis(const modefit_options *o, const basis_inner *ip, modefit_basis *b,
                            ldem_err *err)
{
    size_t ns = b->snaps.count, ndof = ip->ndof, kept = 0;
    size_t run = ns / b->copies;
    double *d = differences(b->up, ns, run, ndof);
    double *draw = differences(b->snaps.u, ns, run, ndof);
    double *coef = malloc(ns * ns * sizeof *coef);
    int rc = (!d || !draw || !coef) ? modefit_nomem(err) : LDEM_OK;
    if (!rc)
        rc = basis_orthonormalize(d, ns, ip, o->prune, coef, &kept, err);
    if (!rc && kept == 0)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, o->snap_path, 0,
                          "every difference mode was pruned: the snapshots do not change");
    if (!rc) {
        b->count = o->modes && (size_t)o->modes < kept ? (size_t)o->modes : kept;
        ldem_info("difference modes: %zu of %zu kept after pruning at %g", kept, ns, o->prune);
        b->phi = malloc(b->count * ndof * sizeof *b->phi);
        b->raw = malloc(b->count * ndof * sizeof *b->raw);
        if (!b->phi || !b->raw)
            rc = modefit_nomem(err);
    }
    if (!rc) {
        memcpy(b->phi, d, b->count * ndof * sizeof *b->phi);
        basis_combine(coef, b->count, ns, draw, ndof, b->raw);
    }
    free(d);
    free(draw);
    free(coef);
    return rc;
}

static int fe_matrices(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    size_t n = b->count;
    int rc = modefit_stiffness_gram(o, b, b->phi, n, b->phi, n, b->K, err);
    if (!rc)
        rc = modefit_mass_gram(b, b->phi, n, b->phi, n, b->M, err);
    return rc;
}

/* Replace the modes by the eigenvectors of K v = λ M v: decoupled modal equations. */
static int orthogonalize(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    size_t n = b->count, ndof = b->fdof;
    double *lambda = malloc(n * sizeof *lambda), *V = malloc(n * n * sizeof *V);
    double *C = malloc(n * n * sizeof *C), *tmp = malloc(n * ndof * sizeof *tmp);
    int rc = (!lambda || !V || !C || !tmp) ? modefit_nomem(err) : LDEM_OK;
    if (!rc)
        rc = basis_generalized_eigen(b->K, b->M, n, lambda, V, err);
    if (!rc) {
        for (size_t k = 0; k < n; k++)
            for (size_t i = 0; i < n; i++)
                C[k * n + i] = V[i * n + k];
        basis_combine(C, n, n, b->phi, ndof, tmp);
        memcpy(b->phi, tmp, n * ndof * sizeof *tmp);
        basis_combine(C, n, n, b->raw, ndof, tmp);
        memcpy(b->raw, tmp, n * ndof * sizeof *tmp);
        rc = fe_matrices(o, b, err);
    }
    free(lambda);
    free(V);
    free(C);
    free(tmp);
    return rc;
}

static void scale_matrices(modefit_basis *b, const double *s)
{
    size_t n = b->count;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            b->K[i * n + j] *= s[i] * s[j];
            b->M[i * n + j] *= s[i] * s[j];
        }
}

void modefit_norm_target(const modefit_options *o, int p, double x[3], double dir[3])
{
    double P[3][3];
    cubic_rotation(p, P);
    for (int i = 0; i < 3; i++) {
        x[i] = dir[i] = 0.0;
        for (int j = 0; j < 3; j++) {
            x[i] += P[i][j] * o->norm_point[j];
            dir[i] += P[i][j] * o->norm_dir[j];
        }
    }
}

/* The quantity --normalize sets to 1, for each mode: the displacement of the named point
 * along the named axis (the three single modes of --cubic copies each at the point and
 * axis rotated with them), or the area-weighted mean over the named set. Measured on the
 * raw twin (the FEM field under the model's own supports) or, with
 * --normalize-after-rigid, on the mode itself (rigid motion removed: what the runtime
 * moves the grain's surface by). */
static int norm_values(const modefit_options *o, const modefit_basis *b, const double *fields,
                       double *v, ldem_err *err)
{
    size_t n = b->count, ndof = b->fdof;
    if (o->normalize == NORM_MEAN)
        return modefit_mean_values(o, b, fields, n, v, err);
    int rotate = b->copies > 1 && o->method == METHOD_SINGLE;
    double tol = 1e-6 * fe_mesh_extent(&b->mesh);
    for (size_t k = 0; k < n; k++) {
        double x[3], dir[3], val[3];
        modefit_norm_target(o, rotate ? (int)k : 0, x, dir);
        /* Inside, within round-off of the boundary, or just outside a curved one. */
        double gap = modefit_eval(b, fields + k * ndof, 1, x, 1, val);
        if (gap > tol)
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "--normalize %s: the point%s (%g,%g,%g) lies %g outside the "
                                "FEM mesh", o->norm_text,
                                rotate ? " rotated for this --cubic copy" : "", x[0], x[1],
                                x[2], gap);
        v[k] = val[0] * dir[0] + val[1] * dir[1] + val[2] * dir[2];
    }
    return LDEM_OK;
}

/* Scale each mode so that the --normalize quantity is 1: ε then is that displacement in
 * the FEM problem (e.g. the indenter's travel). */
static int normalize_fe(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    size_t n = b->count, ndof = b->fdof;
    const double *measured = o->normalize_after_rigid ? b->phi : b->raw;
    double *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s);
    int rc = (!v || !s) ? modefit_nomem(err) : norm_values(o, b, measured, v, err);
    for (size_t k = 0; k < n && !rc; k++) {
        double big = 0;
        for (size_t j = 0; j < ndof; j++)
            big = fmax(big, fabs(measured[k * ndof + j]));
        if (!(fabs(v[k]) > 1e-9 * big))
            rc = ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                              "--normalize %s: mode %zu does not move %s along that axis (%g "
                              "of its largest displacement %g%s); pick another %s or component",
                              o->norm_text, k + 1,
                              o->normalize == NORM_MEAN ? "that set on average" : "that point",
                              v[k], big, o->normalize_after_rigid ? ", rigid motion removed" : "",
                              o->normalize == NORM_MEAN ? "set" : "point");
        else
            s[k] = 1.0 / v[k];
    }
    if (!rc) {
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < ndof; j++) {
                b->phi[k * ndof + j] *= s[k];
                b->raw[k * ndof + j] *= s[k];
            }
        scale_matrices(b, s);
    }
    free(v);
    free(s);
    return rc;
}

/* What rigid-motion projection leaves of a snapshot, relative to the snapshot: round-off
 * for a snapshot that was nothing but rigid motion. */
#define RIGID_ONLY_FRACTION 1e-8

static int check_not_rigid(const modefit_options *o, const basis_inner *mass_ip,
                           const modefit_basis *b, ldem_err *err)
{
    size_t ns = b->snaps.count, ndof = mass_ip->ndof, rigid_only = 0;
    for (size_t i = 0; i < ns; i++) {
        double uu = 0, pp = 0;
        int rc = mass_ip->gram(mass_ip->ctx, b->snaps.u + i * ndof, 1, b->snaps.u + i * ndof, 1,
                               &uu, err);
        if (!rc)
            rc = mass_ip->gram(mass_ip->ctx, b->up + i * ndof, 1, b->up + i * ndof, 1, &pp, err);
        if (rc)
            return rc;
        if (!(pp > RIGID_ONLY_FRACTION * RIGID_ONLY_FRACTION * uu))
            rigid_only++;
    }
    if (rigid_only == ns)
        return ldem_err_set(err, LDEM_ERR_INPUT, o->snap_path, 0,
                            "the snapshots hold nothing but rigid-body motion: no mode to build");
    if (rigid_only)
        ldem_warn("%s: %zu of %zu snapshots are rigid-body motion only", o->snap_path,
                  rigid_only, ns);
    return LDEM_OK;
}

static void report_cubic(const modefit_options *o, const modefit_basis *b,
                         const cubic_stats *st)
{
    ldem_info("--cubic %s: the %zu mesh nodes rotated by C and C^2: %zu inside the mesh; %zu "
              "just outside a curved boundary (the boundary element's interpolant continued; "
              "up to %.3g from the corner triangulation); %zu farther out (the closest "
              "boundary point's value; up to %.3g)", o->cubic == CUBIC_SUM ? "sum" : "copies",
              st->located, st->located - st->extrapolated - st->clamped, st->extrapolated,
              st->max_extrapolated, st->clamped, st->max_clamped);
    double size = fe_mesh_extent(&b->mesh);
    if (st->clamped && st->max_clamped > 1e-2 * size)
        ldem_warn("--cubic: FEM node %ld rotated by C^%d falls %.3g (%.1f%% of the mesh's "
                  "size) outside the mesh: the rotations are about the origin; is the FEM "
                  "model centred there and symmetric under the axis permutations?",
                  st->worst_node, st->worst_rotation, st->max_clamped,
                  100 * st->max_clamped / size);
}

/* Replaces the snapshots, raw and rigid-free, by their triples (cubic.h): for sum one per
 * snapshot, for copies three, copy-major, each keeping its snapshot's step and time. The
 * rigid projection came first, on the mesh: a rotated rigid-free field is rigid-free on
 * its rotated mesh. */
static int apply_cubic(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    fe_snapshots *sn = &b->snaps;
    size_t ns = sn->count, ndof = 3 * b->mesh.nnodes, tdof = CUBIC_ROTATIONS * ndof;
    size_t copies = o->cubic == CUBIC_COPIES ? CUBIC_ROTATIONS : 1, nout = copies * ns;
    cubic_stats st;
    int rc = cubic_map_build(&b->mesh, b->loc, &b->cmap, &st, err);
    if (rc)
        return rc;
    report_cubic(o, b, &st);
    double *u = malloc(nout * tdof * sizeof *u), *up = malloc(nout * tdof * sizeof *up);
    double *time = malloc(nout * sizeof *time);
    long *step = malloc(nout * sizeof *step);
    if (!u || !up || !time || !step) {
        free(u);
        free(up);
        free(time);
        free(step);
        return modefit_nomem(err);
    }
    cubic_triples(o->cubic, sn->u, ns, ndof, u);
    cubic_triples(o->cubic, b->up, ns, ndof, up);
    for (size_t j = 0; j < nout; j++) {
        time[j] = sn->time[j % ns];
        step[j] = sn->step[j % ns];
    }
    free(sn->u);
    free(sn->time);
    free(sn->step);
    free(b->up);
    sn->u = u;
    sn->time = time;
    sn->step = step;
    sn->count = nout;
    b->up = up;
    b->fdof = tdof;
    b->copies = copies;
    return LDEM_OK;
}

/* -v: a --cubic sum mode at the mesh's six poles (inward component), as the FEM model
 * has it (normalized) and rigid motion removed: they agree to the FE interpolation error
 * when the six walls' field is as symmetric as the construction makes it. */
static void report_poles(const modefit_basis *b)
{
    if (!ldem_log_enabled(LDEM_LOG_INFO))
        return;
    static const char *const name[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};
    double point[6][3], inward[6][3];
    cubic_poles(&b->mesh, point, inward);
    for (size_t k = 0; k < b->count; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int q = 0; q < 6; q++) {
            double raw[3], phi[3], vr = 0, vp = 0;
            modefit_eval(b, b->raw + k * b->fdof, 1, point[q], 1, raw);
            modefit_eval(b, b->phi + k * b->fdof, 1, point[q], 1, phi);
            for (int d = 0; d < 3; d++) {
                vr += raw[d] * inward[q][d];
                vp += phi[d] * inward[q][d];
            }
            lo = fmin(lo, vr);
            hi = fmax(hi, vr);
            ldem_info("--cubic sum, mode %zu, pole %s (%.6g,%.6g,%.6g): inward %.9g (FEM "
                      "model), %.9g (rigid motion removed)", k + 1, name[q], point[q][0],
                      point[q][1], point[q][2], vr, vp);
        }
        ldem_info("--cubic sum, mode %zu: the six poles' inward displacements span [%.9g, "
                  "%.9g], %.2e relative to the largest", k + 1, lo, hi,
                  (hi - lo) / fmax(fabs(lo), fabs(hi)));
    }
}

/* Snapshots on the mesh (read, or made by --contact-modes) → the basis, K and M. */
static int build_from_snapshots(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    int rc = LDEM_OK;
    size_t ns = b->snaps.count, ndof = 3 * b->mesh.nnodes;
    b->fdof = ndof;
    double volume, second[3][3];
    fe_volume_moments(&b->mesh, &volume, b->center, second);
    mass_ctx mc = {&b->mesh, b->rho, 0.0, 0.0};
    basis_inner mass_ip = {mass_gram, &mc, ndof};

    b->up = malloc(ns * ndof * sizeof *b->up);
    double *rigid = malloc(6 * ndof * sizeof *rigid);
    if (!b->up || !rigid) {
        free(rigid);
        return modefit_nomem(err);
    }
    memcpy(b->up, b->snaps.u, ns * ndof * sizeof *b->up);
    fe_rigid_fields(&b->mesh, b->center, rigid);
    /* Rigid motion goes in the mass-weighted product whatever the POD uses: what is left
     * then carries no momentum, which is what makes it separate from the grain's
     * translation and rotation. */
    if (!o->keep_rigid)
        rc = basis_project_out(b->up, ns, rigid, 6, &mass_ip, NULL, err);
    free(rigid);
    if (!rc && !o->keep_rigid)
        rc = check_not_rigid(o, &mass_ip, b, err);
    if (!rc && o->cubic)
        rc = apply_cubic(o, b, err);
    /* From here on fields are b->fdof long: mesh fields, or --cubic triples. */
    basis_inner base = o->inner == INNER_MASS ? mass_ip : basis_inner_euclidean(ndof);
    cubic_inner_ctx cc = {b->cmap, base};
    basis_inner ip = b->cmap ? cubic_inner(&cc) : base;
    if (!rc) {
        if (o->method == METHOD_POD)
            rc = pod_basis(o, &ip, b, err);
        else if (o->method == METHOD_SINGLE)
            rc = single_basis(o, &ip, b, err);
        else
            rc = difference_basis(o, &ip, b, err);
    }
    if (!rc) {
        b->K = malloc(b->count * b->count * sizeof *b->K);
        b->M = malloc(b->count * b->count * sizeof *b->M);
        rc = (!b->K || !b->M) ? modefit_nomem(err) : fe_matrices(o, b, err);
    }
    if (!rc && o->orthogonalize)
        rc = orthogonalize(o, b, err);
    if (!rc && o->normalize)
        rc = normalize_fe(o, b, err);
    if (!rc && o->cubic == CUBIC_SUM)
        report_poles(b);
    return rc;
}

static int build_fe(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                    ldem_err *err)
{
    b->copies = 1;
    int rc = read_fem(o, b, err);
    if (!rc) {
        modefit_frame_apply(o, b);
        rc = fe_locator_build(&b->mesh, &b->loc, err);
    }
    /* Before any numerics: a mesh that is not the grain would give modes that look fine. */
    if (!rc)
        rc = modefit_check_mismatch(o, g, b, err);
    if (!rc)
        rc = build_from_snapshots(o, b, err);
    return rc;
}

/* --eigen: the modes are the vibration modes themselves, free of rigid motion and
 * M-orthonormal (K = diag(ω²), M = I unless --normalize rescales them). */
static int build_eigen(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                       ldem_err *err)
{
    int rc = modefit_solve_mesh(o, g, b, err);
    if (!rc)
        rc = modefit_eigen_basis(o, b, err);
    if (!rc) {
        b->K = malloc(b->count * b->count * sizeof *b->K);
        b->M = malloc(b->count * b->count * sizeof *b->M);
        rc = (!b->K || !b->M) ? modefit_nomem(err) : fe_matrices(o, b, err);
    }
    if (!rc && o->normalize)
        rc = normalize_fe(o, b, err);
    return rc;
}

/* --contact-modes: static responses to patch pairs are the snapshots. */
static int build_contact(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                         ldem_err *err)
{
    int rc = modefit_solve_mesh(o, g, b, err);
    if (!rc)
        rc = modefit_contact_snapshots(o, g, b, err);
    if (!rc)
        rc = build_from_snapshots(o, b, err);
    return rc;
}

static int build_analytic(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                          ldem_err *err)
{
    analytic_mode *m = &b->analytic;
    memset(m, 0, sizeof *m);
    m->kind = o->analytic;
    m->length = o->length;
    m->axis = o->axis;
    m->deflect = o->deflect;
    m->scale = 1.0;
    b->is_analytic = 1;
    b->count = 1;
    int rc = LDEM_OK;
    /* Rigid motion first when the normalization is measured without it: the scale then
     * applies to the rigid-free formula, S·(raw − t − w × x). */
    if (!o->keep_rigid && o->normalize_after_rigid)
        rc = analytic_remove_rigid(m, &g->lset, o->depth, err);
    if (!rc && o->normalize) {
        /* The formula lives in the body frame; the point and axis are in the geometry
         * frame: value = dir · R u(x_body). */
        double xb[3], u[3], v = 0;
        modefit_to_body(g, o->norm_point, xb);
        if (o->normalize_after_rigid)
            analytic_eval(m, xb, u, NULL);
        else
            analytic_eval_raw(m, xb, u, NULL);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                v += o->norm_dir[i] * g->rot[i][j] * u[j];
        if (!(fabs(v) > 1e-9))
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "--normalize %s: the mode does not move that point along "
                                "that axis (%g)", o->norm_text, v);
        m->scale = 1.0 / v;
    }
    if (!rc && !o->keep_rigid && !o->normalize_after_rigid)
        rc = analytic_remove_rigid(m, &g->lset, o->depth, err);
    b->K = malloc(sizeof *b->K);
    b->M = malloc(sizeof *b->M);
    if (!rc && (!b->K || !b->M))
        rc = modefit_nomem(err);
    if (!rc)
        rc = analytic_mass_stiffness(m, &g->lset, o->depth, o->E, o->nu, b->rho, b->K, b->M,
                                     &b->quad_volume, err);
    if (!rc) {
        double rel = fabs(b->quad_volume - g->body.volume) / g->body.volume;
        ldem_info("interior quadrature: volume %.9g vs BODY %.9g (%.2e relative)",
                  b->quad_volume, g->body.volume, rel);
        if (rel > 1e-2)
            ldem_warn("the level set's interior (volume %g) differs from BODY's volume %g by "
                      "%.1f%%: K and M are as coarse; use a finer lsgen --h or --depth",
                      b->quad_volume, g->body.volume, 100 * rel);
    }
    return rc;
}

/* Natural frequencies and the damping matrix. Fails when K or M is not positive
 * definite (basis_generalized_eigen says which). */
static int damping(const modefit_options *o, modefit_basis *b, ldem_err *err)
{
    size_t n = b->count;
    ldem_damping *d = &b->damping;
    d->n = (uint32_t)n;
    d->kind = (uint32_t)o->damping;
    d->zeta = calloc(n, sizeof *d->zeta);
    d->omega = malloc(n * sizeof *d->omega);
    d->c = calloc(n * n, sizeof *d->c);
    double *V = malloc(n * n * sizeof *V);
    int rc = (!d->zeta || !d->omega || !d->c || !V) ? modefit_nomem(err) : LDEM_OK;
    if (!rc)
        rc = basis_generalized_eigen(b->K, b->M, n, d->omega, V, err);
    free(V);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++)
        d->omega[k] = sqrt(d->omega[k]);
    if (o->damping == LDEM_DAMPING_RAYLEIGH) {
        d->alpha = o->rayleigh[0];
        d->beta = o->rayleigh[1];
        basis_damping_rayleigh(b->K, b->M, n, d->alpha, d->beta, d->c);
    } else if (o->damping == LDEM_DAMPING_RATIO) {
        if (o->nzeta != 1 && o->nzeta != n)
            return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                                "--damping ratio: give one ratio or one per mode (%zu modes, "
                                "%zu ratios)", n, o->nzeta);
        for (size_t k = 0; k < n; k++)
            d->zeta[k] = o->zeta[o->nzeta == 1 ? 0 : k];
        rc = basis_damping_ratio(b->K, b->M, n, d->zeta, d->c, err);
    }
    return rc;
}

/* A mode whose strain energy is negligible against its kinetic energy (ω² far below the
 * grain's elastic scale E / (ρ L²)) is a rigid motion: the modal equations would have no
 * restoring force. The generalized eigenproblem cannot see this with one mode. */
static int check_stiffness(const modefit_options *o, const modefit_grain *g,
                           const modefit_basis *b, ldem_err *err)
{
    size_t n = b->count;
    double L = cbrt(g->body.volume), scale = o->E / (b->rho * L * L);
    for (size_t k = 0; k < n; k++) {
        double K = b->K[k * n + k], M = b->M[k * n + k];
        if (!(K > 1e-12 * scale * M))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "the stiffness matrix is not positive definite: mode %zu has "
                                "K = %g for M = %g, a rigid-body motion (drop --keep-rigid?)",
                                k + 1, K, M);
    }
    return LDEM_OK;
}

int modefit_build(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                  ldem_err *err)
{
    memset(b, 0, sizeof *b);
    b->rho = o->density > 0 ? o->density : g->body.density;
    int rc = o->analytic ? build_analytic(o, g, b, err)
             : o->eigen    ? build_eigen(o, g, b, err)
             : o->contact  ? build_contact(o, g, b, err)
                           : build_fe(o, g, b, err);
    if (!rc)
        rc = check_stiffness(o, g, b, err);
    if (!rc)
        rc = damping(o, b, err);
    if (rc)
        return rc;
    size_t n = b->count;
    ldem_info("%zu mode%s; K asymmetry %.1e, M asymmetry %.1e", n, n == 1 ? "" : "s",
              basis_asymmetry(b->K, n), basis_asymmetry(b->M, n));
    for (size_t i = 0; i < n; i++) {
        char line[512];
        int len = snprintf(line, sizeof line, "K[%zu] =", i + 1);
        for (size_t j = 0; j < n && len < (int)sizeof line - 32; j++)
            len += snprintf(line + len, sizeof line - (size_t)len, " %.6g", b->K[i * n + j]);
        ldem_info("%s", line);
        len = snprintf(line, sizeof line, "M[%zu] =", i + 1);
        for (size_t j = 0; j < n && len < (int)sizeof line - 32; j++)
            len += snprintf(line + len, sizeof line - (size_t)len, " %.6g", b->M[i * n + j]);
        ldem_info("%s", line);
    }
    for (size_t k = 0; k < n; k++)
        ldem_info("omega[%zu] = %.6g rad/time", k + 1, b->damping.omega[k]);
    return LDEM_OK;
}
