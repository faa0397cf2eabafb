/* vtk_xml.h — internals shared by the .vtu/.vti/.pvd writers (not installed).
 *
 * A ldem_vtkx_writer emits one VTK XML document. Data arrays are written either inline (ascii)
 * or queued for the <AppendedData> section, whose byte offsets must appear in the XML
 * before the data itself; so zlib payloads are compressed when their DataArray element is
 * written (their size fixes the next offset), and raw payloads are encoded at the end
 * straight from the caller's memory.
 */
#ifndef LDEM_VTK_XML_H
#define LDEM_VTK_XML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ldem/err.h"
#include "ldem/vtu.h"

/* VTK's own default; blocks bound the memory a reader needs per inflate call. */
#define LDEM_VTKX_ZLIB_BLOCK 32768u

/* ---- array_encode.c: one data array in each encoding ---- */

/* Bytes per value, or 0 for an unknown type. */
size_t ldem_vtkx_type_size(int type);
/* VTK's type name ("Float64", ...), or NULL for an unknown type. */
const char *ldem_vtkx_type_name(int type);

/* Encode values [first, first+n) of `data` little-endian into dst (n*size bytes). */
void ldem_vtkx_encode_le(unsigned char *dst, int type, const void *data, size_t first, size_t n);

/* Print a double so that it reads back bit-exactly ("%.17g"; nan, inf, -inf spelled out),
 * independent of the C locale's decimal point. buf must hold 32 bytes. */
void ldem_vtkx_format_double(char *buf, double v);

/* Inline ASCII values, `ncomp` per tuple, whole tuples per line, each line indented. */
void ldem_vtkx_write_ascii(FILE *fp, int indent, int type, int ncomp, size_t nvalues,
                           const void *data);

/* Appended raw payload: UInt64 byte count, then the values little-endian. */
int ldem_vtkx_write_raw(FILE *fp, int type, size_t nvalues, const void *data);
/* Size of that payload in bytes. */
uint64_t ldem_vtkx_raw_size(int type, size_t nvalues);

/* Appended zlib payload in one malloc'd buffer: UInt64 header
 * [nblocks, blocksize, last partial block size (0 if the last block is full),
 *  compressed size of each block...] followed by the compressed blocks, each block
 * compressed separately with compress2. Returns LDEM_OK, LDEM_ERR_NOMEM or
 * LDEM_ERR_INTERNAL (errors name `name`). */
int ldem_vtkx_zlib_payload(int type, size_t nvalues, const void *data, size_t blocksize,
                           unsigned char **out, size_t *outlen, const char *name, ldem_err *err);

/* ---- array_check.c: validation shared by the writers ---- */

int ldem_vtkx_check_encoding(int encoding, const char *name, ldem_err *err);

/* Check a list of point or cell data arrays (`what` is "point data" / "cell data") with
 * `ntuples` tuples each: names non-empty, printable and unique, known types, ncomp >= 1,
 * data present, sizes that fit in memory, and no -inf in ascii (see ldem/vtu.h). */
int ldem_vtkx_check_arrays(const ldem_vtk_array *arrays, size_t n, size_t ntuples, const char *what,
                           int encoding, const char *name, ldem_err *err);

/* Whether float data holds -inf (refused in ascii, see ldem/vtu.h); *index gets the first. */
int ldem_vtkx_find_neg_inf(int type, size_t nvalues, const void *data, size_t *index);

/* ---- xml_doc.c: document structure and the appended section ---- */

typedef struct ldem_vtkx_payload {
    int type;
    size_t nvalues;
    const void *data; /* raw: encoded when the appended section is written */
    unsigned char *z; /* zlib: complete payload, owned */
    size_t zlen;
} ldem_vtkx_payload;

typedef struct ldem_vtkx_writer {
    FILE *fp;
    const char *name; /* for error messages */
    int encoding;
    ldem_err *err;
    ldem_vtkx_payload *pending;
    size_t npending, cap;
    uint64_t offset; /* offset of the next appended payload */
} ldem_vtkx_writer;

void ldem_vtkx_writer_init(ldem_vtkx_writer *w, FILE *fp, const char *name, int encoding,
                           ldem_err *err);
void ldem_vtkx_writer_free(ldem_vtkx_writer *w);

/* XML declaration and the <VTKFile ...> opening tag for `dataset_type`. */
void ldem_vtkx_begin(ldem_vtkx_writer *w, const char *dataset_type);

/* One <DataArray>. `name` may be NULL (no Name attribute). */
int ldem_vtkx_data_array(ldem_vtkx_writer *w, int indent, const char *name, int type, int ncomp,
                         size_t nvalues, const void *data);

/* <PointData>/<CellData> with all arrays; the first 1-component array becomes the active
 * Scalars and the first 3-component array the active Vectors, so ParaView colours and
 * glyphs something sensible on open. */
int ldem_vtkx_attribute_block(ldem_vtkx_writer *w, int indent, const char *tag,
                              const ldem_vtk_array *arrays, size_t n, size_t ntuples);

/* The appended section (if any) and </VTKFile>; reports stream write errors. */
int ldem_vtkx_end(ldem_vtkx_writer *w);

/* Write s as XML attribute text (&, <, >, ", ' escaped). */
void ldem_vtkx_put_escaped(FILE *fp, const char *s);

/* ---- relpath.c ---- */

/* Path of existing file `target` relative to the directory holding `base_file` (whose
 * directory must exist), both as the caller opens them. Directories are resolved with
 * realpath(3), so symlinks and ".." cannot make the result wrong. *out is malloc'd. */
int ldem_vtkx_relpath(const char *base_file, const char *target, char **out, ldem_err *err);

#endif
