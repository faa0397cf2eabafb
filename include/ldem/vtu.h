/* ldem/vtu.h — VTK XML output: UnstructuredGrid (.vtu), ImageData (.vti), collections (.pvd).
 *
 * VTK has no C API, so libldem writes the XML formats itself; tests read every file back
 * with VTK's own readers. All files go through ldem_outfile (temporary name + rename), so
 * an output is whole or absent, and a failed rewrite leaves the older file intact.
 *
 * Binary output is always little-endian with UInt64 block headers (header_type="UInt64"):
 * UInt32 headers, VTK's historical default, cap one array at 4 GiB, which a large
 * level-set grid or a long frame can exceed; every VTK >= 6 and ParaView reads UInt64.
 *
 * ASCII writes doubles with %.17g and floats with %.9g, so values read back bit-exactly.
 * NaN is written as "nan" and +inf as "inf", which VTK 9.1 reads (NaN loses its sign).
 * -inf is refused in ASCII (LDEM_ERR_INPUT): VTK 9.1's ASCII parser reads "-inf" as +inf,
 * a silent sign flip; use the raw or zlib encoding for data that may hold -inf.
 */
#ifndef LDEM_VTU_H
#define LDEM_VTU_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How data arrays are stored; one choice per file. */
enum ldem_vtk_encoding {
    LDEM_VTK_ASCII = 0, /* inline text: readable, large, slow */
    LDEM_VTK_RAW = 1,   /* appended raw binary */
    LDEM_VTK_ZLIB = 2   /* appended binary, zlib-compressed in 32 KiB blocks */
};

/* Element types of data arrays. Zero is deliberately not a type, so that a
 * zero-initialized ldem_vtk_array is rejected rather than guessed. */
enum ldem_vtk_type {
    LDEM_VTK_FLOAT32 = 1,
    LDEM_VTK_FLOAT64 = 2,
    LDEM_VTK_INT32 = 3,
    LDEM_VTK_INT64 = 4,
    LDEM_VTK_UINT8 = 5
};

/* The VTK cell types ldem writes (values are VTK's). */
enum ldem_vtk_cell {
    LDEM_VTK_VERTEX = 1,          /* 1 node */
    LDEM_VTK_LINE = 3,            /* 2 nodes */
    LDEM_VTK_TRIANGLE = 5,        /* 3 nodes */
    LDEM_VTK_TETRA = 10,          /* 4 nodes */
    LDEM_VTK_QUADRATIC_TETRA = 24 /* 10 nodes, VTK node order */
};

/* A named data array: `ncomp` components per tuple (1 scalar, 3 vector, any n >= 1),
 * tuples contiguous, one tuple per point (point data) or per cell (cell data).
 * `data` points to count*ncomp values of `type` in host order. */
typedef struct ldem_vtk_array {
    const char *name; /* non-empty, unique within its point or cell data; XML-escaped on output */
    int type;         /* enum ldem_vtk_type */
    int ncomp;
    const void *data;
} ldem_vtk_array;

/* An unstructured grid described by plain arrays, VTK's layout. */
typedef struct ldem_vtu_grid {
    size_t npoints;
    const double *points; /* 3*npoints: x y z per point */
    size_t ncells;
    const int64_t *connectivity; /* node ids of all cells, concatenated */
    const int64_t *offsets;      /* ncells END offsets into connectivity (VTK convention) */
    const uint8_t *types;        /* ncells enum ldem_vtk_cell values */
    size_t npoint_data;
    const ldem_vtk_array *point_data;
    size_t ncell_data;
    const ldem_vtk_array *cell_data;
} ldem_vtu_grid;

/* Write `g` to `path` ("-" for stdout). Validates everything before creating any file:
 * connectivity in [0, npoints), offsets strictly increasing, known cell types, node counts
 * matching the type, unique non-empty array names -> LDEM_ERR_INPUT; NULL pointers, unknown
 * encodings or array types, ncomp < 1 -> LDEM_ERR_USAGE. Errors name `path`. */
LDEM_API int ldem_vtu_write(const char *path, const ldem_vtu_grid *g, int encoding, ldem_err *err);

/* Same onto an open stream; `name` is only used in error messages. On failure the stream
 * may hold a partial document. */
LDEM_API int ldem_vtu_write_fp(FILE *fp, const char *name, const ldem_vtu_grid *g, int encoding,
                               ldem_err *err);

/* A regular grid of dims[0]*dims[1]*dims[2] points, x fastest (VTK's point order), as
 * level-set grids are stored. Cell data, if any, has (dims[0]-1)*(dims[1]-1)*(dims[2]-1)
 * tuples, with a dimension of 1 point counting as 1 cell (VTK's convention). */
typedef struct ldem_vti_image {
    size_t dims[3];    /* points per axis, each >= 1 */
    double origin[3];  /* position of point (0,0,0); finite */
    double spacing[3]; /* > 0 and finite */
    size_t npoint_data;
    const ldem_vtk_array *point_data;
    size_t ncell_data;
    const ldem_vtk_array *cell_data;
} ldem_vti_image;

LDEM_API int ldem_vti_write(const char *path, const ldem_vti_image *img, int encoding,
                            ldem_err *err);
LDEM_API int ldem_vti_write_fp(FILE *fp, const char *name, const ldem_vti_image *img, int encoding,
                               ldem_err *err);

/* A .pvd time series that a running simulation extends frame by frame.
 *
 * Every ldem_pvd_add rewrites the whole .pvd atomically, so a run that crashes still leaves
 * a valid collection of the frames written so far (an append-only file would end without
 * its closing tags and ParaView would reject it). The cost is O(frames) per add, a few
 * hundred bytes per frame, negligible against the frame files themselves.
 *
 * Dataset paths are given as the caller opens them (relative to the current directory, or
 * absolute) and stored relative to the .pvd's directory, so the output folder can be moved.
 * They must name existing files: add a frame after writing it. */
typedef struct ldem_pvd ldem_pvd;

/* Create the collection and write it with no frames yet. */
LDEM_API int ldem_pvd_create(ldem_pvd **out, const char *path, ldem_err *err);
/* Append (time, file) and rewrite the .pvd. On failure the collection and the file on disk
 * keep their previous frames. `time` must be finite. */
LDEM_API int ldem_pvd_add(ldem_pvd *pvd, double time, const char *file, ldem_err *err);
LDEM_API size_t ldem_pvd_count(const ldem_pvd *pvd);
/* Free the handle; the file on disk stays as last written. NULL is allowed. */
LDEM_API void ldem_pvd_free(ldem_pvd *pvd);

/* Write a whole collection at once, same path rules. */
LDEM_API int ldem_pvd_write(const char *path, size_t n, const double *times,
                            const char *const *files, ldem_err *err);

/* "ascii", "raw", "zlib" <-> enum ldem_vtk_encoding, for CLI options and scene files.
 * parse returns LDEM_ERR_USAGE (with the accepted names in the message) on anything else. */
LDEM_API int ldem_vtk_encoding_parse(const char *s, int *encoding, ldem_err *err);
LDEM_API const char *ldem_vtk_encoding_name(int encoding);

#ifdef __cplusplus
}
#endif
#endif
