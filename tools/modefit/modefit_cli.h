/* modefit's command line, its working state, and the steps main() strings together:
 *   parse (modefit_args.c) → build the basis, K, M, damping (modefit_build.c) →
 *   sample the modes on the grain (modefit_map.c) → write (modefit_output.c). */
#ifndef MODEFIT_CLI_H
#define MODEFIT_CLI_H

#include <stddef.h>

#include "analytic.h"
#include "cubic.h"
#include "fe_locate.h"
#include "femesh.h"
#include "ldem/bundle.h"
#include "ldem/err.h"
#include "ldem/sections.h"

enum modefit_method { METHOD_POD = 0, METHOD_SINGLE = 1, METHOD_DIFFERENCE = 2 };
enum modefit_inner { INNER_EUCLIDEAN = 0, INNER_MASS = 1 };
enum modefit_norm_kind { NORM_NONE = 0, NORM_POINT = 1, NORM_MEAN = 2 };

typedef struct modefit_options {
    const char *input, *output;        /* bundle in / out, "-" = stdin / stdout */
    const char *mesh_path, *snap_path; /* FEM inputs (NULL for analytic modes) */
    long step;                         /* 0 every DISP block / view, -1 last, k > 0 the k-th */
    int method;                        /* enum modefit_method */
    long modes;                        /* 0: choose by captured energy */
    double energy;                     /* POD: captured fraction (default 0.9999) */
    long single_index;                 /* single: 0 = largest snapshot, else 1-based */
    double prune;                      /* difference modes: relative pruning threshold */
    int inner;                         /* POD inner product, enum modefit_inner */
    int cubic;                         /* enum cubic_kind: symmetrize the snapshots */
    long eigen;                        /* --eigen N: N free-free modes (0: not asked) */
    long contact;                      /* --contact-modes K: K patch pairs (0: not asked) */
    double patch_radius;               /* --patch-radius (0: the default) */
    double mesh_size;                  /* --mesh-size without --mesh (0: the default) */
    int analytic;                      /* 0, or enum analytic_kind */
    double length;
    int axis, deflect;                 /* 0..2; deflect -1 = default */
    int depth;                         /* level-set quadrature subdivision */
    double E, nu, density;             /* density 0 = the bundle's BODY density */
    int keep_rigid, orthogonalize;
    int normalize;                     /* 0, or enum modefit_norm_kind: --normalize given */
    double norm_point[3];              /* point: FEM file frame (bundle frame after
                                        * modefit_frame_resolve) */
    double norm_dir[3];                /* unit axis with sign */
    char norm_set[96];                 /* mean: the deck's *NSET / *SURFACE name */
    char norm_text[128];
    int normalize_after_rigid;         /* 1: measure the normalization on the rigid-free
                                        * mode; 0: on the raw FEM field (default) */
    int allow_mismatch;                /* a mesh that is not the grain: warn, not refuse */
    double mesh_scale;                 /* --mesh-scale (1): FEM file → lsgen's input frame */
    double mesh_translate[3];          /*   x ↦ mesh_scale·x + mesh_translate */
    double xf_scale, xf_translate[3];  /* FEM file → bundle geometry frame (the above, then
                                        * lsgen's --scale/--translate from META) */
    int damping;                       /* enum ldem_damping_kind */
    double rayleigh[2];
    double *zeta;                      /* ratio: one value, or one per mode */
    size_t nzeta;
    const char *spectrum, *spectrum_png, *snapshot_table;
    int threads;
    int verbosity;
    char *command_line;
} modefit_options;

/* Parse argv. Returns 0 to run, -1 after printing --help/--version (exit 0), or 2 after
 * printing a one-line usage error. */
int modefit_parse_args(int argc, char **argv, modefit_options *o);
void modefit_options_free(modefit_options *o);

/* The grain as lsgen described it (decoded sections of the input bundle). */
typedef struct modefit_grain {
    ldem_body body;
    ldem_nodes nodes;
    ldem_lset lset;
    double rot[3][3];     /* body → geometry: x_geometry = centroid + rot · x_body */
    double geo_scale;     /* lsgen --scale / --translate (META; 1 and 0 when absent): */
    double geo_translate[3]; /* lsgen's input x ↦ geo_scale·x + geo_translate */
    int density_default;  /* META lsgen.density=default: BODY's density was not given */
} modefit_grain;

/* The reduced basis and its matrices. FE modes live on the mesh (geometry frame);
 * an analytic mode is a formula in the body frame. */
typedef struct modefit_basis {
    size_t count;            /* modes */
    int is_analytic;
    analytic_mode analytic;
    fe_mesh mesh;            /* FE only */
    fe_snapshots snaps;      /* FE only: as read (raw); --cubic: u holds triples */
    size_t copies;           /* 3 with --cubic copies: snaps is copy-major, copies × ns/3 */
    size_t fdof;             /* FE only: doubles per field, 3·nnodes (×3 with --cubic) */
    double *phi;             /* count × fdof: the modes (rigid motion removed) */
    double *raw;             /* count × fdof: the same combinations of raw snapshots */
    double *up;              /* snaps.count × fdof: snapshots, rigid motion removed */
    fe_locator *loc;         /* FE only: point location on the mesh */
    cubic_map *cmap;         /* --cubic only: fields are triples (cubic.h) */
    double center[3];        /* FE only: the mesh's centre of volume (rigid rotations) */
    double file_volume, file_center[3]; /* FE only: the same of the mesh as read, before
                                         * o->xf_scale/xf_translate moved it */
    double *sigma;           /* POD singular values (nsigma), or NULL */
    size_t nsigma;
    double *K, *M;           /* count × count */
    ldem_damping damping;    /* omega always filled; C per --damping */
    double rho;              /* density used */
    double quad_volume;      /* analytic: interior volume the quadrature saw */
} modefit_basis;

void modefit_basis_free(modefit_basis *b);

/* LDEM_ERR_NOMEM, "out of memory": the one failure every modefit step shares. */
int modefit_nomem(ldem_err *err);

/* Geometry-frame point → body frame: x_body = rotᵀ (x − centroid). */
void modefit_to_body(const modefit_grain *g, const double x[3], double xb[3]);

/* The FEM file → bundle frame map (o->xf_*) from --mesh-scale/--mesh-translate and the
 * grain's lsgen transform; moves a --normalize point with it (modefit_frame.c). */
int modefit_frame_resolve(modefit_options *o, const modefit_grain *g, ldem_err *err);

/* Moves the mesh read into the bundle frame (coordinates and displacements), keeping its
 * volume and centre as read in b->file_volume / file_center. */
void modefit_frame_apply(const modefit_options *o, modefit_basis *b);

/* Refuses (LDEM_ERR_INPUT) a mesh that does not describe the grain's body, naming the
 * transform that would fit; with --allow-mismatch only warns (modefit_mismatch.c). */
int modefit_check_mismatch(const modefit_options *o, const modefit_grain *g,
                           const modefit_basis *b, ldem_err *err);

/* The area-weighted mean of each mode over o->norm_set's boundary faces, along
 * o->norm_dir: v[k] for the n fields (b->fdof apart) in `fields` (modefit_normmean.c). */
int modefit_mean_values(const modefit_options *o, const modefit_basis *b,
                        const double *fields, size_t n, double *v, ldem_err *err);

int modefit_build(const modefit_options *o, const modefit_grain *g, modefit_basis *b,
                  ldem_err *err);

/* The --normalize point and axis rotated by C^p (p = 0: as given), for copy p. */
void modefit_norm_target(const modefit_options *o, int p, double x[3], double dir[3]);

/* Mass and stiffness Gram matrices of basis fields (b->fdof long: mesh fields, or --cubic
 * triples), G[i·ny + j] = <x_i, y_j>. */
int modefit_mass_gram(const modefit_basis *b, const double *x, size_t nx, const double *y,
                      size_t ny, double *G, ldem_err *err);
int modefit_stiffness_gram(const modefit_options *o, const modefit_basis *b, const double *x,
                           size_t nx, const double *y, size_t ny, double *G, ldem_err *err);

/* Values of n basis fields at a geometry-frame point x: out[3k + d]. extend 0: outside
 * the mesh, the closest boundary point's value (returns the distance, 0 inside); 1: also
 * continued just outside a curved boundary (returns the distance only when clamped). */
double modefit_eval(const modefit_basis *b, const double *fields, size_t n, const double x[3],
                    int extend, double *out);

/* Samples the modes at the bundle's surface nodes and LSET grid nodes (body frame) and
 * fills m (kind, descriptor for analytic modes). Reports the mesh / level-set mismatch. */
int modefit_map(const modefit_options *o, const modefit_grain *g, const modefit_basis *b,
                ldem_modes *m, ldem_err *err);

/* Spectrum TSV / PNG and the per-snapshot table, each written atomically. */
int modefit_write_reports(const modefit_options *o, const modefit_grain *g,
                          const modefit_basis *b, ldem_err *err);

/* Replaces MODE, KMAT, MMAT, DAMP in the bundle, drops a stale ETAB, records META. */
int modefit_extend_bundle(const modefit_options *o, const modefit_basis *b, ldem_modes *m,
                          ldem_bundle *bundle, ldem_err *err);

#endif
