/* Named sets of an Abaqus/CalculiX input deck, for --normalize mean:NAME:C: an *NSET (node
 * numbers, GENERATE ranges, other *NSET names) or a *SURFACE (TYPE=ELEMENT: element number
 * or *ELSET name and face S1..S4; TYPE=NODE: like an *NSET). A reader of its own beside
 * inp_read.c (which reads the mesh and skips these keywords), following *INCLUDE the same
 * way: relative to the including file, an included file's data continuing the keyword
 * before it. Names compare case-insensitively, as in Abaqus. */
#ifndef MODEFIT_INP_SETS_H
#define MODEFIT_INP_SETS_H

#include <stddef.h>

#include "ldem/err.h"

enum { INP_SET_NODES = 1, INP_SET_FACES = 2 };

typedef struct inp_set {
    int kind;          /* INP_SET_NODES or INP_SET_FACES */
    size_t count;      /* node numbers, or faces */
    long *nodes;       /* NODES: the file's node numbers (sorted, unique);
                        * FACES: 3 corner node numbers per face, in the element's face order
                        * (C3D4/C3D10: S1 = 1-2-3, S2 = 1-4-2, S3 = 2-4-3, S4 = 3-4-1) */
} inp_set;

/* The set called `name` in the deck at `path`. Unknown name: LDEM_ERR_INPUT listing the
 * sets the deck has; a *SURFACE face on an element that is not a C3D4/C3D10 tetrahedron, or
 * a face number beyond S4, is LDEM_ERR_INPUT naming the line. */
int inp_read_set(const char *path, const char *name, inp_set *set, ldem_err *err);
void inp_set_free(inp_set *set);

#endif
