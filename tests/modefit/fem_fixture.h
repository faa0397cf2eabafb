/* Test support for modefit's FEM readers: scratch files, a structured tet mesh made
 * here, and writers of .inp / .frd / .msh text written from the formats' descriptions
 * (not from the readers), so that a read-back compares the reader with the format. */
#ifndef MODEFIT_FEM_FIXTURE_H
#define MODEFIT_FEM_FIXTURE_H

#include <stdio.h>

#include "femesh.h"

/* ------------------------------------------------------------ scratch files -------- */

/* A fresh directory under /tmp (call from a test's .init); removed with its files. */
void ff_scratch_make(void);
void ff_scratch_remove(void);
/* scratch/name; four rotating buffers. */
const char *ff_path(const char *name);
void ff_write(const char *path, const char *text);
void ff_write_bytes(const char *path, const void *data, size_t n);
/* The whole file, NUL-terminated (*n its length without the NUL); free it. */
char *ff_slurp(const char *path, size_t *n);

/* ----------------------------------------------------------------- meshes -------- */

/* The box [0, nx h] x [0, ny h] x [0, nz h] in cubes of side h, each cut into the six
 * Kuhn tets along its (0,0,0)-(1,1,1) diagonal, corners right-handed. order 4: grid
 * vertices only; order 10: the grid of half steps, edge nodes in femesh.h order.
 * Node numbers are 7 i + 3 for node index i (neither 1-based nor contiguous). */
void ff_box_mesh(int nx, int ny, int nz, double h, int order, fe_mesh *m);
long ff_node_number(size_t index);

/* ------------------------------------------------------------------ writers -------- */

/* A deck: *NODE, then *ELEMENT TYPE=C3D4/C3D10 with elements numbered 1.. ; C3D10 rows
 * split after 8 numbers (trailing comma) when `split`. */
void ff_write_inp(const char *path, const fe_mesh *m, int split);

/* .frd writer; long_format 1 writes I10 node numbers, 0 I5. Lines are counted so that
 * tests can predict the line an error names. */
typedef struct ff_frd {
    FILE *f;
    int long_format;
    long line;      /* lines written so far */
} ff_frd;

void ff_frd_open(ff_frd *w, const char *path, int long_format);
/* Model header and the 2C node block of m. */
void ff_frd_nodes(ff_frd *w, const fe_mesh *m);
/* A DISP block (1PSTEP, 100CL, -4, -5 x 4, one -1 per node of m unless skip[i], -3).
 * Returns the line number of its 100CL header. extra_id > 0 adds a record for that
 * node number (with u of node 0). */
long ff_frd_disp(ff_frd *w, const fe_mesh *m, const double *u, const unsigned char *skip,
                 long extra_id, double time, int step);
/* A DISP block whose -1 records are the given lines, as they are. */
long ff_frd_disp_lines(ff_frd *w, const char *const *records, size_t n, double time, int step);
/* A STRESS block (6 components per node), to be passed over. */
void ff_frd_stress(ff_frd *w, const fe_mesh *m, double time, int step);
void ff_frd_close(ff_frd *w, int end_record);

/* The value a reader must find for v printed as E12.5: the decimal text read back. */
double ff_e125(double v);

/* An ASCII MSH 2.2 file of m (tet10 rows in Gmsh's order: edge nodes 8 and 9 swapped)
 * with `nsteps` $NodeData steps of one 3-component view called `view`: step k holds
 * u + k * 3 * nnodes values (times 0.5 (k+1)). nsteps 0: no data. Node `skip_id` (if
 * > 0) is left out of the data. */
void ff_write_msh22(const char *path, const fe_mesh *m, const char *view, const double *u,
                    int nsteps, long skip_id);

/* 10-node tet shape functions at barycentric L[4], femesh.h order: corners L(2L-1),
 * edge (a,b) 4 La Lb. */
void ff_tet10_shape(const double L[4], double N[10]);
extern const int FF_TET10_EDGE[6][2];

#endif
