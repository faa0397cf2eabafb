/* Structure of a VTK XML document: header, DataArray elements, the appended section. */
#include "vtk_xml.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ldem_vtkx_put_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fputc(*s, fp); break;
        }
    }
}

void ldem_vtkx_writer_init(ldem_vtkx_writer *w, FILE *fp, const char *name, int encoding,
                           ldem_err *err)
{
    memset(w, 0, sizeof *w);
    w->fp = fp;
    w->name = name;
    w->encoding = encoding;
    w->err = err;
}

void ldem_vtkx_writer_free(ldem_vtkx_writer *w)
{
    for (size_t i = 0; i < w->npending; i++)
        free(w->pending[i].z);
    free(w->pending);
    w->pending = NULL;
    w->npending = w->cap = 0;
}

void ldem_vtkx_begin(ldem_vtkx_writer *w, const char *dataset_type)
{
    /* version 1.0 is the first with header_type; the UInt64 header lifts the 4 GiB limit
     * per array that VTK's default UInt32 header imposes. Connectivity and offsets use the
     * classic layout (end offsets), which every VTK >= 6 and ParaView read. */
    fprintf(w->fp,
            "<?xml version=\"1.0\"?>\n"
            "<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" "
            "header_type=\"UInt64\"%s>\n",
            dataset_type,
            w->encoding == LDEM_VTK_ZLIB ? " compressor=\"vtkZLibDataCompressor\"" : "");
}

static int push_payload(ldem_vtkx_writer *w, ldem_vtkx_payload p)
{
    if (w->npending == w->cap) {
        size_t ncap = w->cap ? 2 * w->cap : 16;
        ldem_vtkx_payload *np = realloc(w->pending, ncap * sizeof *np);
        if (!np)
            return ldem_err_set(w->err, LDEM_ERR_NOMEM, w->name, 0, "out of memory");
        w->pending = np;
        w->cap = ncap;
    }
    w->pending[w->npending++] = p;
    return LDEM_OK;
}

int ldem_vtkx_data_array(ldem_vtkx_writer *w, int indent, const char *name, int type, int ncomp,
                         size_t nvalues, const void *data)
{
    FILE *fp = w->fp;
    fprintf(fp, "%*s<DataArray type=\"%s\"", indent, "", ldem_vtkx_type_name(type));
    if (name) {
        fputs(" Name=\"", fp);
        ldem_vtkx_put_escaped(fp, name);
        fputc('"', fp);
    }
    fprintf(fp, " NumberOfComponents=\"%d\"", ncomp);

    if (w->encoding == LDEM_VTK_ASCII) {
        fputs(" format=\"ascii\">\n", fp);
        ldem_vtkx_write_ascii(fp, indent + 2, type, ncomp, nvalues, data);
        fprintf(fp, "%*s</DataArray>\n", indent, "");
        return LDEM_OK;
    }

    ldem_vtkx_payload p = {.type = type, .nvalues = nvalues, .data = data};
    uint64_t size;
    if (w->encoding == LDEM_VTK_ZLIB) {
        int rc = ldem_vtkx_zlib_payload(type, nvalues, data, LDEM_VTKX_ZLIB_BLOCK, &p.z, &p.zlen,
                                        w->name, w->err);
        if (rc)
            return rc;
        size = p.zlen;
    } else {
        size = ldem_vtkx_raw_size(type, nvalues);
    }
    int rc = push_payload(w, p);
    if (rc) {
        free(p.z);
        return rc;
    }
    fprintf(fp, " format=\"appended\" offset=\"%" PRIu64 "\"/>\n", w->offset);
    w->offset += size;
    return LDEM_OK;
}

int ldem_vtkx_attribute_block(ldem_vtkx_writer *w, int indent, const char *tag,
                              const ldem_vtk_array *arrays, size_t n, size_t ntuples)
{
    FILE *fp = w->fp;
    const char *scalars = NULL, *vectors = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!scalars && arrays[i].ncomp == 1)
            scalars = arrays[i].name;
        if (!vectors && arrays[i].ncomp == 3)
            vectors = arrays[i].name;
    }
    fprintf(fp, "%*s<%s", indent, "", tag);
    if (scalars) {
        fputs(" Scalars=\"", fp);
        ldem_vtkx_put_escaped(fp, scalars);
        fputc('"', fp);
    }
    if (vectors) {
        fputs(" Vectors=\"", fp);
        ldem_vtkx_put_escaped(fp, vectors);
        fputc('"', fp);
    }
    fputs(">\n", fp);
    for (size_t i = 0; i < n; i++) {
        int rc =
            ldem_vtkx_data_array(w, indent + 2, arrays[i].name, arrays[i].type, arrays[i].ncomp,
                                 ntuples * (size_t)arrays[i].ncomp, arrays[i].data);
        if (rc)
            return rc;
    }
    fprintf(fp, "%*s</%s>\n", indent, "", tag);
    return LDEM_OK;
}

int ldem_vtkx_end(ldem_vtkx_writer *w)
{
    FILE *fp = w->fp;
    if (w->npending > 0) {
        /* encoding="raw": the bytes follow the '_' marker verbatim (no base64). */
        fputs("  <AppendedData encoding=\"raw\">\n   _", fp);
        for (size_t i = 0; i < w->npending; i++) {
            const ldem_vtkx_payload *p = &w->pending[i];
            int ok = p->z ? fwrite(p->z, 1, p->zlen, fp) == p->zlen
                          : ldem_vtkx_write_raw(fp, p->type, p->nvalues, p->data) == LDEM_OK;
            if (!ok)
                break; /* ferror below reports it */
        }
        fputs("\n  </AppendedData>\n", fp);
    }
    fputs("</VTKFile>\n", fp);
    if (ferror(fp))
        return ldem_err_set(w->err, LDEM_ERR_IO, w->name, 0, "write failed");
    return LDEM_OK;
}
