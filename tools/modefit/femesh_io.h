/* Internals shared by modefit's FEM readers (inp_read.c, frd_read.c, msh_read.c) and
 * femesh.c; not part of the femesh.h interface. */
#ifndef MODEFIT_FEMESH_IO_H
#define MODEFIT_FEMESH_IO_H

#include <stdio.h>

#include "femesh.h"

/* Text lines of one file, any length, with the line number for messages. A NUL byte is a
 * binary file, not text: LDEM_ERR_INPUT naming the line. */
typedef struct fe_lines {
    FILE *f;
    const char *path;   /* for messages; not owned */
    char *buf;          /* getline's buffer */
    size_t cap;
    char *line;         /* the current line without its end-of-line; NULL at end of file */
    size_t len;
    long lineno;        /* 1-based number of `line` */
} fe_lines;

/* Open `path` for reading: missing, a directory or unreadable is LDEM_ERR_INPUT. */
int fe_lines_open(fe_lines *r, const char *path, ldem_err *err);
/* The next line into r->line (NULL at the end). */
int fe_lines_next(fe_lines *r, ldem_err *err);
void fe_lines_close(fe_lines *r);

/* What is wrong with tet t of m, written into why (""): out-of-range index, corner volume
 * not positive, or (tet10) an edge node away from its edge's midpoint. Returns 1 if
 * something is wrong. */
int fe_tet_defect(const fe_mesh *m, size_t t, char *why, size_t cap);

/* Grow *p (elements of `size` bytes, *cap of them) to hold at least `need`; doubles the
 * capacity. Returns 0 when out of memory or the size overflows (the array is kept). */
int fe_grow(void **p, size_t *cap, size_t need, size_t size);

/* Which mesh nodes some tet uses: a malloc'ed array of nnodes flags, or NULL (no memory). */
unsigned char *fe_used_nodes(const fe_mesh *m);

#endif
