/* ldem/sim/output.h — what a run leaves for ParaView and for plots.
 *
 * Frames: each frame writes up to four VTU files under DIR/frames/ and extends one .pvd
 * series per part, so ParaView opens DIR/spheres.pvd, DIR/surfaces.pvd, DIR/contacts.pvd and
 * DIR/walls.pvd (a part with nothing to show is not written):
 *   spheres   analytic spheres as VERTEX cells at their centres; point data radius, velocity,
 *             omega, id (Int32) — "Glyph, scale by radius" draws them;
 *   surfaces  every level-set grain's surface triangles (the bundle's NODE triangles) posed in
 *             world coordinates; point data velocity (v + ω × r of that surface point), id;
 *             a deformable grain's points are its deformed nodes X + R(x + Σ εα Φα(x)), and
 *             its velocity adds R Σ ε̇α Φα(x). When the world has deformable grains, every
 *             level-set grain also gets displacement (R Σ εα Φα(x), world frame; zeros for a
 *             rigid grain) and displacement_magnitude (Float64); worlds without modal
 *             degrees of freedom write neither;
 *   contacts  one LINE per contact in touch, from the centre of i to the centre of j (to the
 *             contact point for walls); cell data normal_force (vector on j), tangential_force,
 *             fn (|normal|), ft (|tangential|), overlap, history_length (Int32), i, j (Int32;
 *             j = −1 − wall index for a wall contact);
 *   walls     planes as squares spanning the grains' bounding box, cylinders as 32-sided tubes
 *             over it; cell data force (vector the grains exert), id.
 * A part's files are DIR/frames/PART_NNNNNN.vtu (frame number, at least 6 digits). The parts a
 * run writes follow from the world at ldem_frames_open (spheres if it has analytic spheres,
 * surfaces if level-set grains, contacts if asked, walls if any); every frame then writes each
 * of them, even when empty (a contacts file with no contact in touch has no cells), so all
 * series have the same times. A stale DIR/PART.pvd of a part this world lacks is removed.
 * Probes: a TSV log (header line of column names, one row every N steps, flushed per row):
 * the ldem_probe_row columns (modal_kinetic and modal_elastic last), each wall's force and
 * displacement, then for each grain in world->probe_modal and each of its modes a:
 * gG.epsA gG.rateA gG.QA gG.FintA (ε, ε̇, generalized contact force, internal force).
 */
#ifndef LDEM_SIM_OUTPUT_H
#define LDEM_SIM_OUTPUT_H

#include "ldem/export.h"

#include <stdint.h>
#include <stdio.h>

#include "ldem/err.h"
#include "ldem/sim/world.h"
#include "ldem/vtu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create the folder `path` and any missing parents (mkdir -p). An existing folder is fine;
 * an existing non-folder or a refused mkdir is LDEM_ERR_IO naming the path. */
LDEM_API int ldem_output_mkdir(const char *path, ldem_err *err);

typedef struct ldem_frames {
    char *dir;                /* output folder */
    int encoding;             /* enum ldem_vtk_encoding */
    int with_contacts;
    uint64_t count;           /* frames written */
    ldem_pvd *spheres, *surfaces, *contacts, *walls;   /* NULL for parts not written */
    double *times;            /* count times, for checkpoints */
    uint64_t times_capacity;
    unsigned pending_parts;   /* parts (bit 0 spheres … 3 walls) of frame `count` already in
                               * their series after a write that failed in a later part, so a
                               * retry does not list them twice */
} ldem_frames;

/* Create DIR and DIR/frames if needed and start the .pvd series for the parts this world has.
 * When resuming from a checkpoint, `nprevious` frames (times given) already exist on disk and
 * are put back into the series first (a frame file missing on disk is left out with a
 * warning); numbering continues at nprevious, overwriting frames a stopped run wrote after
 * its checkpoint. On failure everything is released (ldem_frames_close). */
LDEM_API int ldem_frames_open(ldem_frames *f, const char *dir, const ldem_world *w, int encoding,
                              int with_contacts, uint64_t nprevious, const double *previous_times,
                              ldem_err *err);
/* Write frame number f->count at time w->t and add it to the series. In a distributed run
 * (w->comm, docs/mpi.md) the writing rank calls it, and a frame with contacts is collective:
 * every other rank calls ldem_frames_share_contacts at the same point. */
LDEM_API int ldem_frames_write(ldem_frames *f, const ldem_world *w, ldem_err *err);
/* A rank's part in a distributed frame's contacts: its pairs' rows, sent to the writer. */
LDEM_API int ldem_frames_share_contacts(const ldem_world *w, ldem_err *err);
LDEM_API void ldem_frames_close(ldem_frames *f);

/* One probe sample (ldem/sim/step.h fills it). */
typedef struct ldem_probe_row {
    double t;
    uint64_t step;
    double kinetic;           /* translational + rotational */
    double potential;         /* gravity, relative to the initial positions */
    double stored_normal;     /* Hertz (or linear) normal elastic energy in contacts */
    double stored_tangential; /* Jäger/Mindlin/linear tangential elastic energy */
    double modal_kinetic;     /* Σ ½ ε̇ᵀ M ε̇ over deformable grains */
    double modal_elastic;     /* Σ U(ε) over deformable grains (KMAT / ETAB) */
    double dissipated;        /* cumulative frictional work */
    double damped;            /* cumulative energy removed by damping */
    double work_walls;        /* cumulative work walls did on the grains */
    double balance_error;     /* (E_now + dissipated + damped − work_walls − E_0)/scale */
    uint64_t contacts;        /* in touch */
    double mean_history;      /* mean Jäger stack length over Jäger contacts in touch */
    uint64_t history_bytes;   /* memory held by the history pools */
    uint64_t history_cells;   /* live history cells (pooled and held by the contacts) */
    uint64_t max_history;     /* the longest Jäger stack of a contact in touch */
    /* periodic cell only */
    double work_cell;         /* cumulative work of the cell's deformation on the grains */
    double strain[3];         /* logarithmic strain per edge direction, compression + */
    double stress[6];         /* Love–Weber xx yy zz xy yz zx, compression + */
    double unbalanced;        /* mean net force on a grain / mean contact force */
    double inertial;          /* inertial number γ̇ d √(ρ/p) */
} ldem_probe_row;

typedef struct ldem_probes {
    FILE *fp;
    char *path;
    size_t nwalls;
} ldem_probes;

/* Open DIR/probes.tsv and write the header: t step kinetic potential stored_normal
 * stored_tangential dissipated damped work_walls balance_error contacts mean_history
 * history_bytes history_cells max_history modal_kinetic modal_elastic, then per wall NAME.fx NAME.fy NAME.fz NAME.dx NAME.dy NAME.dz
 * (force the grains exert, displacement). resume_step > 0 keeps the existing file's rows up
 * to that step (a restarted run continues the same table) and drops later ones; the kept
 * table is rewritten atomically, then appended to. Creates DIR if needed. Wall names go into
 * the header with whitespace replaced by '_'. Errors: the file cannot be written (LDEM_ERR_IO
 * naming it); on resume, an existing table whose column header differs from this run's or
 * whose kept rows are malformed (LDEM_ERR_INPUT with FILE:LINE). A missing table on resume
 * starts a new one with a warning; an incomplete last line (a run killed mid-row) is dropped. */
LDEM_API int ldem_probes_open(ldem_probes *p, const char *dir, const ldem_world *w,
                              uint64_t resume_step, ldem_err *err);
/* What ldem_probes_open(p, dir, w, resume_step) would refuse in an earlier table, found by
 * reading it only: nothing on disk changes, so a run can check every input before it opens
 * (and rewrites) any output. A missing table is fine (open starts a new one); resume_step 0
 * checks nothing. */
LDEM_API int ldem_probes_check_resume(const char *dir, const ldem_world *w, uint64_t resume_step,
                                      ldem_err *err);
LDEM_API int ldem_probes_write(ldem_probes *p, const ldem_world *w, const ldem_probe_row *row,
                               ldem_err *err);
LDEM_API int ldem_probes_close(ldem_probes *p, ldem_err *err);

/* The packing (`output.packing: true`): write the spheres' centres and radii to `path`
 * (atomically, ldem/outfile.h) as a placement table that a scene's `grains: - file:` entry
 * reads back: a "# demrun packing" comment with the count, step and time; for a periodic
 * cell "# box_lo x y z" and "# box_hi x y z" (an orthogonal cell) or "# cell_vectors"
 * (a, b, c, nine numbers) and "# cell_centre x y z"; then the columns id x y z radius, one
 * row per grain in input order (id = the grain's input index, as the frames name it).
 * Centres are wrapped into the cell; every double is %.17g, so it reads back bit for bit.
 * Materials, velocities and spins are not written. LDEM_ERR_USAGE for a world with
 * level-set grains (the scene loader refuses those first). */
LDEM_API int ldem_packing_write(const char *path, const ldem_world *w, ldem_err *err);

#ifdef __cplusplus
}
#endif
#endif
