/* Encoding names for command-line options and scene files. */
#include "vtk_xml.h"

#include <string.h>

static const char *const names[] = {"ascii", "raw", "zlib"};

int ldem_vtk_encoding_parse(const char *s, int *encoding, ldem_err *err)
{
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *encoding = i; /* names[] is in enum ldem_vtk_encoding order */
            return LDEM_OK;
        }
    return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                        "unknown VTK encoding '%s' (expected ascii, raw or zlib)",
                        s ? s : "(null)");
}

const char *ldem_vtk_encoding_name(int encoding)
{
    return encoding >= 0 && encoding < 3 ? names[encoding] : NULL;
}
