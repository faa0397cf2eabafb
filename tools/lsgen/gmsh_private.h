/* Internals shared by gmsh_io.c and gmsh_remesh.c (not part of lsgen's module interface).
 *
 * Every public Gmsh operation runs inside a "quiet scope": stdout (which carries the bundle)
 * is pointed at a scratch file while Gmsh and OpenCASCADE run, because OpenCASCADE prints
 * its own diagnostics there whatever Gmsh's options say; Gmsh's logged messages are passed
 * on to ldem's log afterwards, and the OpenMP thread count Gmsh resets is restored. */
#ifndef LSGEN_GMSH_PRIVATE_H
#define LSGEN_GMSH_PRIVATE_H

#include <stdint.h>
#include <stdio.h>

#include "ldem/err.h"
#include "ldem/mesh.h"

#define LSGEN_GMSH_CAPTURE_MAX 200

typedef struct lsgen_gmsh_quiet {
    int saved_stdout;   /* dup of fd 1 while it points at `capture`; -1 when inactive */
    FILE *capture;      /* what Gmsh/OpenCASCADE wrote on stdout */
    int omp_threads;    /* omp_get_max_threads() on entry */
    char captured[LSGEN_GMSH_CAPTURE_MAX]; /* first printable line of it, after leave */
} lsgen_gmsh_quiet;

/* Whether lsgen_gmsh_begin succeeded and lsgen_gmsh_end has not been called since;
 * otherwise LDEM_ERR_USAGE naming `what`. */
int lsgen_gmsh_require_session(const char *what, ldem_err *err);

int lsgen_gmsh_quiet_enter(lsgen_gmsh_quiet *q, ldem_err *err);
/* Restores stdout and the OpenMP thread count, forwards Gmsh's log (warnings at info
 * level, the rest at debug level). If `status` is an error, the captured line is appended
 * to err->msg. Returns `status`. */
int lsgen_gmsh_quiet_leave(lsgen_gmsh_quiet *q, int status, ldem_err *err);

/* Set a Gmsh option; a refusal becomes LDEM_ERR_INTERNAL naming the option. */
int lsgen_gmsh_set_number(const char *name, double value, ldem_err *err);

/* An error after a Gmsh call returned ierr != 0: "<what>: <Gmsh's last error>". */
int lsgen_gmsh_fail(ldem_err *err, int code, const char *source, const char *what);

/* The triangles of every 2-D entity of the current model (quadrangles split, corner nodes
 * of higher-order elements), Gmsh node tags mapped to compact 0-based indices and vertices
 * with identical coordinates welded. If `patch` is not NULL it receives a malloc'ed array:
 * the index (0-based, in Gmsh's entity order) of the entity each triangle came from.
 * `skipped` receives the number of 2-D elements that are neither triangles nor
 * quadrangles. An empty result is not an error here. */
int lsgen_gmsh_collect_triangles(ldem_trimesh *out, uint32_t **patch, size_t *skipped,
                                 ldem_err *err);

/* Flip every patch of `out` (patch[t]: triangle t's patch) whose triangles, weighted by
 * area, mostly face against the input triangle closest to their centroid. Gmsh keeps the
 * input's orientation in every case seen, but nothing in its API promises it. */
int lsgen_gmsh_orient_like(const ldem_trimesh *in, ldem_trimesh *out, const uint32_t *patch,
                           size_t *flipped_patches, ldem_err *err);

/* Edge statistics of a triangle mesh: edges on exactly one triangle, edges on three or
 * more, and interior edges whose two triangles traverse them in the same direction
 * (inconsistent orientation). */
typedef struct lsgen_gmsh_edges {
    size_t edges;
    size_t boundary;
    size_t nonmanifold;
    size_t misoriented;
} lsgen_gmsh_edges;

int lsgen_gmsh_edge_stats(const ldem_trimesh *m, lsgen_gmsh_edges *st, ldem_err *err);

/* lsgen_gmsh_read_surface and lsgen_gmsh_remesh in three steps each, so that the middle
 * one, Gmsh's, can run in a child process under a budget (gmsh_bounded.c): checks of the
 * input that need no Gmsh; Gmsh's work (needs the session; `out` is left empty on error);
 * and what is made of its result (frees `out` on error, and always `patch`). */
int lsgen_gmsh_read_precheck(const char *path, ldem_err *err);
int lsgen_gmsh_read_raw(const char *path, double mesh_size, ldem_trimesh *out,
                        size_t *skipped, ldem_err *err);
int lsgen_gmsh_read_finish(const char *path, ldem_trimesh *out, size_t skipped,
                           ldem_err *err);

int lsgen_gmsh_remesh_precheck(const ldem_trimesh *in, double spacing, double feature_deg,
                               ldem_err *err);
/* `patch` receives a malloc'ed array: each triangle's patch (lsgen_gmsh_collect_triangles). */
int lsgen_gmsh_remesh_raw(const ldem_trimesh *in, double spacing, double feature_deg,
                          ldem_trimesh *out, uint32_t **patch, size_t *skipped, ldem_err *err);
int lsgen_gmsh_remesh_finish(const ldem_trimesh *in, double spacing, ldem_trimesh *out,
                             uint32_t *patch, size_t skipped, ldem_err *err);

#endif
