/* Validation shared by the writers: everything is checked before any file is created, so
 * a rejected input leaves neither an output nor a temporary file behind. */
#include "vtk_xml.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int ldem_vtkx_check_encoding(int encoding, const char *name, ldem_err *err)
{
    if (encoding != LDEM_VTK_ASCII && encoding != LDEM_VTK_RAW && encoding != LDEM_VTK_ZLIB)
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0,
                            "unknown VTK encoding %d (expected ascii, raw or zlib)", encoding);
    return LDEM_OK;
}

int ldem_vtkx_find_neg_inf(int type, size_t nvalues, const void *data, size_t *index)
{
    if (type != LDEM_VTK_FLOAT32 && type != LDEM_VTK_FLOAT64)
        return 0;
    const unsigned char *p = data;
    for (size_t i = 0; i < nvalues; i++) {
        double v;
        if (type == LDEM_VTK_FLOAT32) {
            float f;
            memcpy(&f, p + 4 * i, 4);
            v = f;
        } else {
            memcpy(&v, p + 8 * i, 8);
        }
        if (isinf(v) && v < 0) {
            *index = i;
            return 1;
        }
    }
    return 0;
}

static int check_name(const char *s, const char *what, size_t index, const char *name,
                      ldem_err *err)
{
    if (!s || !*s)
        return ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "%s array %zu has an empty name", what,
                            index);
    /* XML 1.0 cannot carry most control characters even escaped, and parsers normalize
     * tab and newline in attributes to spaces, so such a name would not read back. */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "%s array %zu name contains control character 0x%02x", what, index,
                                (unsigned)*p);
    return LDEM_OK;
}

int ldem_vtkx_check_arrays(const ldem_vtk_array *arrays, size_t n, size_t ntuples, const char *what,
                           int encoding, const char *name, ldem_err *err)
{
    if (n > 0 && !arrays)
        return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "%zu %s arrays but no array list", n,
                            what);
    for (size_t i = 0; i < n; i++) {
        const ldem_vtk_array *a = &arrays[i];
        int rc = check_name(a->name, what, i, name, err);
        if (rc)
            return rc;
        size_t size = ldem_vtkx_type_size(a->type);
        if (size == 0)
            return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "%s array \"%s\" has unknown type %d",
                                what, a->name, a->type);
        if (a->ncomp < 1)
            return ldem_err_set(err, LDEM_ERR_USAGE, name, 0,
                                "%s array \"%s\" has %d components (expected >= 1)", what, a->name,
                                a->ncomp);
        if (ntuples > SIZE_MAX / 8 / (size_t)a->ncomp)
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "%s array \"%s\" is too large (%zu tuples of %d)", what, a->name,
                                ntuples, a->ncomp);
        size_t nvalues = ntuples * (size_t)a->ncomp;
        if (nvalues > 0 && !a->data)
            return ldem_err_set(err, LDEM_ERR_USAGE, name, 0, "%s array \"%s\" has no data", what,
                                a->name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(arrays[j].name, a->name) == 0)
                return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                    "%s arrays %zu and %zu are both named \"%s\"", what, j, i,
                                    a->name);
        size_t bad;
        if (encoding == LDEM_VTK_ASCII && ldem_vtkx_find_neg_inf(a->type, nvalues, a->data, &bad))
            return ldem_err_set(err, LDEM_ERR_INPUT, name, 0,
                                "%s array \"%s\" value %zu is -inf, which VTK's ASCII reader "
                                "reads as +inf; write this file with the raw or zlib encoding",
                                what, a->name, bad);
    }
    return LDEM_OK;
}
