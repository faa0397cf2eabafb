/* Is the FEM mesh the grain lsgen described? Modes sampled from a mesh in another frame or
 * unit are garbage that looks like data (every value is the closest boundary point's), so a
 * mismatch is an error unless --allow-mismatch, and the error says what would fit.
 *
 * Judged two ways, in the bundle's geometry frame:
 *  - the level set at the mesh's boundary corner nodes: a node is "off" when |φ| exceeds
 *    tol = max(1.5 grid cells, 1 % of the grain's largest extent) or it lies outside the
 *    grid; more than 1 % of them off is a mismatch (a coarse mesh of a curved body keeps
 *    its corner nodes on the surface, so a few stray nodes are noise, not a wrong frame);
 *  - the mesh's volume against BODY's (10 %: a coarse tet4 mesh of a sphere is an inscribed
 *    polyhedron, a few % short) and its centre of volume against BODY's centroid (tol).
 * The fit proposed is the uniform scale s = cbrt(V_body/V_mesh) and the shift that brings
 * the centres together, stated as the --mesh-scale/--mesh-translate to pass (the map from
 * the FEM file's frame to lsgen's input frame), checked against the nodes again. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe_integrate.h"
#include "ldem/grid.h"
#include "ldem/log.h"
#include "modefit_cli.h"

#define OFF_CELLS 1.5         /* tolerance in grid cells ... */
#define OFF_SIZE 0.01         /* ... or in the grain's largest extent, the larger */
#define OFF_FRACTION 0.01     /* boundary nodes allowed off */
#define VOLUME_TOLERANCE 0.10 /* relative volume difference allowed */

typedef struct off_count {
    size_t off, outside_grid, total;
    double worst;
} off_count;

/* Largest extent of the grain's surface nodes (body frame). */
static double grain_size(const modefit_grain *g)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < g->nodes.count; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], g->nodes.position[3 * i + d]);
            hi[d] = fmax(hi[d], g->nodes.position[3 * i + d]);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* The boundary nodes of the mesh as read (FEM file frame) mapped by x ↦ s x + t into the
 * bundle's frame, against the level set. */
static off_count count_off(const modefit_options *o, const modefit_grain *g,
                           const modefit_basis *b, double s, const double t[3], double tol)
{
    size_t nb = 0;
    const size_t *bn = fe_boundary_nodes(b->loc, &nb);
    off_count c = {0, 0, nb, 0.0};
    for (size_t i = 0; i < nb; i++) {
        const double *x = b->mesh.xyz + 3 * bn[i];
        double xg[3], xb[3], phi;
        for (int d = 0; d < 3; d++) /* undo the map applied, then apply (s, t) */
            xg[d] = s * (x[d] - o->xf_translate[d]) / o->xf_scale + t[d];
        modefit_to_body(g, xg, xb);
        ldem_vec3 grad;
        int in = ldem_lset_sample(&g->lset, ldem_vec3_make(xb[0], xb[1], xb[2]), &phi, &grad);
        if (!in)
            c.outside_grid++;
        if (!in || fabs(phi) > tol)
            c.off++;
        if (in)
            c.worst = fmax(c.worst, fabs(phi));
    }
    return c;
}

static int too_many(off_count c)
{
    return (double)c.off > OFF_FRACTION * (double)c.total;
}

/* A factor that is a common unit change, named for the message ("" if none). */
static const char *unit_hint(double larger)
{
    static const struct { double f; const char *hint; } table[] = {
        {1000, " (mesh in mm, grain in m?)"}, {1e-3, " (mesh in m, grain in mm?)"},
        {100, " (mesh in cm, grain in m?)"},  {1e-2, " (mesh in m, grain in cm?)"},
        {10, " (mesh in mm, grain in cm?)"},  {0.1, " (mesh in cm, grain in mm?)"},
        {25.4, " (mesh in mm, grain in inches?)"}, {1 / 25.4, " (mesh in inches, grain in mm?)"}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (fabs(larger / table[i].f - 1) < 0.01)
            return table[i].hint;
    return "";
}

/* Round-off of a translation well below the grain's size prints as 0. */
static double clean(double v, double size)
{
    return fabs(v) < 1e-9 * size ? 0.0 : v;
}

int modefit_check_mismatch(const modefit_options *o, const modefit_grain *g,
                           const modefit_basis *b, ldem_err *err)
{
    double h = fmax(g->lset.spacing[0], fmax(g->lset.spacing[1], g->lset.spacing[2]));
    double size = grain_size(g), tol = fmax(OFF_CELLS * h, OFF_SIZE * size);
    off_count now = count_off(o, g, b, o->xf_scale, o->xf_translate, tol);
    double volume, center[3], second[3][3];
    fe_volume_moments(&b->mesh, &volume, center, second);
    double dv = volume / g->body.volume - 1, dc = 0;
    for (int d = 0; d < 3; d++)
        dc += (center[d] - g->body.centroid[d]) * (center[d] - g->body.centroid[d]);
    dc = sqrt(dc);
    ldem_info("mesh vs grain: %zu of %zu FEM boundary nodes off the level set's zero by more "
              "than %.4g (%zu outside its grid; largest |phi| inside %.4g = %.3f cells); mesh "
              "volume %.9g vs BODY %.9g (%+.2e), centre of volume %.4g from BODY's centroid",
              now.off, now.total, tol, now.outside_grid, now.worst, now.worst / h, volume,
              g->body.volume, dv, dc);
    if (!too_many(now) && fabs(dv) <= VOLUME_TOLERANCE && dc <= tol)
        return LDEM_OK;

    /* The fit, from the mesh as read to lsgen's input frame: V_in = V_body / S0³,
     * c_in = (c_body − T0) / S0; s = cbrt(V_in / V_file), t = c_in − s c_file. */
    double s0 = g->geo_scale, v_in = g->body.volume / (s0 * s0 * s0);
    double s = cbrt(v_in / b->file_volume), t[3], total_t[3];
    for (int d = 0; d < 3; d++) {
        double c_in = (g->body.centroid[d] - g->geo_translate[d]) / s0;
        t[d] = clean(c_in - s * b->file_center[d], cbrt(v_in));
        total_t[d] = s0 * t[d] + g->geo_translate[d];
    }
    off_count fit = count_off(o, g, b, s0 * s, total_t, tol);
    char what[200];
    if (fabs(s - 1) < 1e-3)
        snprintf(what, sizeof what, "the mesh looks shifted");
    else
        snprintf(what, sizeof what, "the mesh looks %.6g× %s%s", s < 1 ? 1 / s : s,
                 s < 1 ? "larger" : "smaller", unit_hint(1 / s));
    char fix[200];
    if (too_many(fit))
        snprintf(fix, sizeof fix, "no scale and shift fits (%zu of %zu nodes still off): a "
                 "rotation, or another body?", fit.off, fit.total);
    else
        snprintf(fix, sizeof fix, "pass modefit --mesh-scale %.9g --mesh-translate %.9g,%.9g,"
                 "%.9g (then %zu of %zu nodes fit), or export the FEM in lsgen's input frame",
                 s, t[0], t[1], t[2], fit.total - fit.off, fit.total);
    if (o->allow_mismatch) {
        ldem_warn("%s: --allow-mismatch: the FEM mesh is not the grain (%zu of %zu boundary "
                  "nodes off the level set by more than %.3g, %zu outside its grid; volume "
                  "%.6g× BODY's); %s; %s", o->mesh_path, now.off, now.total, tol,
                  now.outside_grid, volume / g->body.volume, what, fix);
        return LDEM_OK;
    }
    return ldem_err_set(err, LDEM_ERR_INPUT, o->mesh_path, 0,
                        "the FEM mesh and the grain are not the same body: %zu of %zu boundary "
                        "nodes lie off the level set's zero by more than %.3g (%zu outside its "
                        "grid), volume %.6g vs BODY %.6g, centre %.3g off; %s: %s; "
                        "--allow-mismatch goes on anyway", now.off, now.total, tol,
                        now.outside_grid, volume, g->body.volume, dc, what, fix);
}
