/* Which frame the FEM mesh is in, and moving it into the bundle's.
 *
 * The bundle's geometry frame is lsgen's input frame moved by its --scale S0 and
 * --translate T0 (META lsgen.scale, lsgen.translate): x ↦ S0 x + T0. The FEM model comes
 * in the frame of its own file, which the user may relate to lsgen's input frame with
 * --mesh-scale Sm --mesh-translate Tm. So a mesh point goes to S0 (Sm x + Tm) + T0, and a
 * displacement (a length too) is multiplied by S0 Sm: the same body and the same motion,
 * in the bundle's unit. A user who scaled the geometry for lsgen then passes the FEM
 * model exactly as exported from the same CAD, which is what they expect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe_integrate.h"
#include "ldem/log.h"
#include "modefit_cli.h"

int modefit_frame_resolve(modefit_options *o, const modefit_grain *g, ldem_err *err)
{
    double s0 = g->geo_scale, sm = o->mesh_scale;
    o->xf_scale = s0 * sm;
    for (int d = 0; d < 3; d++)
        o->xf_translate[d] = s0 * o->mesh_translate[d] + g->geo_translate[d];
    int moved = o->xf_scale != 1.0 || o->xf_translate[0] != 0.0 || o->xf_translate[1] != 0.0 ||
                o->xf_translate[2] != 0.0;
    /* --cubic rotates fields about the FEM frame's origin: a translated frame would put the
     * rotation centre elsewhere. A pure scale commutes with the rotations. */
    if (o->cubic && (o->xf_translate[0] != 0.0 || o->xf_translate[1] != 0.0 ||
                     o->xf_translate[2] != 0.0))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "--cubic rotates about the FEM model's origin, but the mesh is "
                            "translated by (%g,%g,%g) into the bundle's frame (--mesh-translate "
                            "or lsgen --translate): centre the FEM model and the grain instead",
                            o->xf_translate[0], o->xf_translate[1], o->xf_translate[2]);
    if (moved && !o->analytic)
        ldem_info("FEM mesh frame → bundle frame: x ↦ %.9g·x + (%.9g,%.9g,%.9g) (%s); "
                  "displacements ×%.9g", o->xf_scale, o->xf_translate[0], o->xf_translate[1],
                  o->xf_translate[2],
                  s0 != 1.0 || g->geo_translate[0] != 0.0 || g->geo_translate[1] != 0.0 ||
                          g->geo_translate[2] != 0.0
                      ? "lsgen's --scale/--translate from the bundle's META"
                      : "--mesh-scale/--mesh-translate",
                  o->xf_scale);
    if (o->normalize == NORM_POINT)
        for (int d = 0; d < 3; d++)
            o->norm_point[d] = o->xf_scale * o->norm_point[d] + o->xf_translate[d];
    return LDEM_OK;
}

void modefit_frame_apply(const modefit_options *o, modefit_basis *b)
{
    double second[3][3];
    fe_volume_moments(&b->mesh, &b->file_volume, b->file_center, second);
    double s = o->xf_scale;
    if (s == 1.0 && o->xf_translate[0] == 0.0 && o->xf_translate[1] == 0.0 &&
        o->xf_translate[2] == 0.0)
        return; /* the same bits as before this map existed */
    for (size_t i = 0; i < b->mesh.nnodes; i++)
        for (int d = 0; d < 3; d++)
            b->mesh.xyz[3 * i + d] = s * b->mesh.xyz[3 * i + d] + o->xf_translate[d];
    size_t n = b->snaps.count * 3 * b->snaps.nnodes;
    for (size_t j = 0; j < n; j++)
        b->snaps.u[j] *= s;
}
