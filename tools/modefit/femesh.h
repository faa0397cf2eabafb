/* modefit's FEM side: a tetrahedral volume mesh and nodal displacement snapshots on it.
 *
 * Coordinates are in the frame the FEM model was built in, which must be the frame lsgen
 * was given the geometry in, up to the map modefit applies after reading (modefit_frame.c:
 * --mesh-scale/--mesh-translate, then lsgen's --scale/--translate); the bundle's BODY says
 * how the result maps to the body frame.
 * Node numbers from the file are kept (node_id) so that every error can name them. */
#ifndef MODEFIT_FEMESH_H
#define MODEFIT_FEMESH_H

#include <stddef.h>

#include "ldem/err.h"

/* Nodes per element. Quadratic tets store their edge nodes in the Abaqus/CalculiX C3D10
 * order, 0-based: 4:(0,1) 5:(1,2) 6:(2,0) 7:(0,3) 8:(1,3) 9:(2,3). (Gmsh's order differs
 * in the last two; the .msh reader swaps them.) */
enum { FE_TET4 = 4, FE_TET10 = 10 };

typedef struct fe_mesh {
    size_t nnodes;
    double *xyz;        /* 3 * nnodes */
    long *node_id;      /* the file's node number of each node */
    size_t ntets;
    int order;          /* FE_TET4 or FE_TET10: one kind per mesh */
    size_t *tet;        /* order * ntets 0-based node indices */
} fe_mesh;

/* Displacement snapshots: every snapshot has a vector at every mesh node. */
typedef struct fe_snapshots {
    size_t nnodes;      /* = the mesh's nnodes */
    size_t count;
    double *u;          /* count * nnodes * 3, snapshot-major, then node, then x y z */
    double *time;       /* count: the step time / load factor the file gives */
    long *step;         /* count: the file's step or increment number */
} fe_snapshots;

void fe_mesh_free(fe_mesh *m);

/* The largest side of the nodes' bounding box: the mesh's length scale for tolerances. */
double fe_mesh_extent(const fe_mesh *m);
void fe_snapshots_free(fe_snapshots *s);

/* Every tet has positive volume (corner nodes, right-handed) and indices in range; nodes
 * that no tet uses are allowed. `source` names the file in errors (element numbers are
 * 1-based positions in the file's element order). */
int fe_mesh_check(const fe_mesh *m, const char *source, ldem_err *err);

/* Index of the node with file number `id`, or -1 (binary search over a sorted copy kept
 * by the caller: ids[] ascending and perm[] mapping back to node indices). */
long fe_node_lookup(const long *sorted_ids, const size_t *perm, size_t n, long id);

/* That sorted copy: *sorted_ids (ascending) and *perm (sorted position -> node index),
 * both malloc'ed (free them). Two nodes with one number are LDEM_ERR_INPUT naming it and
 * `source`. */
int fe_node_sort(const fe_mesh *m, const char *source, long **sorted_ids, size_t **perm,
                 ldem_err *err);

/* ---- readers (errors: "FILE:LINE: ..." for text, exit code 2 for bad input) ----
 *
 * Every mesh a reader returns has passed fe_mesh_check. Mesh nodes that no tet uses (a
 * deck's reference or surface-only nodes, which CalculiX leaves out of its .frd) may be
 * absent from a snapshot: their displacement is then 0. On error the outputs are left
 * empty (zeroed), never half-filled. */

/* Abaqus/CalculiX input deck: *NODE and *ELEMENT, TYPE=C3D4 or C3D10 (continuation lines
 * allowed), *INCLUDE, INPUT=... followed relative to the deck. The grain is the deck's
 * tetrahedra, all of them (two tet bodies would be read as one grain; a mix of C3D4 and
 * C3D10 is an error). What is not the grain's is left out, with one info line counting
 * it: elements of lower dimension (surfaces such as R3D4, lines, springs, masses), other
 * volume elements (a contact model's C3D8/C3D20 wall blocks) as long as they share no node
 * with the tets (one that does is an error: the grain would lose volume), and nodes no
 * tet uses (walls', *RIGID BODY REF/ROT nodes); the mesh keeps the tets' nodes in file
 * order. (Gmsh 4.8 cannot read .inp, whatever the first design notes hoped, so this
 * reader is ours.) */
int inp_read_mesh(const char *path, fe_mesh *m, ldem_err *err);

/* CalculiX .frd results: every "DISP" block (100CL header, then -1 records with the node
 * number in columns 4-13 and three 12-character values; never split on spaces: negative
 * numbers run together). select: 0 = every DISP block in file order, k > 0 = only the k-th
 * (1-based), -1 = the last one. Each block must give every node a tet uses (by number, any
 * order); nodes the mesh does not have (a contact model's walls and reference nodes) are
 * passed over with one info line, unless they are most of the block's (the results of
 * another mesh). Missing nodes, a node twice, NaN values, a file without DISP blocks,
 * and a snapshot that is zero everywhere are errors naming the line. Every other block
 * (STRESS, TOSTRAIN, FORC, ENER, ERROR, CONTACT, CELS, ..., 3C elements, 1P/1U lines) is
 * passed over.
 * Also: the short format (I5 node numbers) is read as the headers say; only the blocks
 * select keeps are judged (a NaN in a block it passes over is no error); "snapshot N"
 * counts DISP blocks from 1; time = the header's VALUE, step = its NUMSTP (CalculiX: the
 * running number of its result sets); a node block (2C), if present, must agree with the
 * mesh's coordinates to 2e-5 of the mesh's size; binary .frd files are refused; a file
 * cut between blocks (no 9999 end record) is read with a warning, one cut inside a block
 * is an error. */
int frd_read_disp(const char *path, const fe_mesh *m, long select, fe_snapshots *s,
                  ldem_err *err);

/* Gmsh .msh (any version Gmsh reads), through the Gmsh SDK: the tetrahedra (4- or
 * 10-node, converted to the order above) and every $NodeData view and step holding
 * 3-component node data, in view order then step order; select as for frd_read_disp.
 * `s` may be NULL to read only the mesh. Views must cover every node the tets use. */
int msh_read(const char *path, fe_mesh *m, fe_snapshots *s, long select, ldem_err *err);
/* (msh_read uses the caller's Gmsh session (lsgen_gmsh_begin) if one is open, else opens
 * and closes its own. Views of other data -- scalars, ElementData -- are skipped.) */

#endif
