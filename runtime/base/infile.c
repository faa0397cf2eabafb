#include "ldem/infile.h"

#include <errno.h>
#include <string.h>

int ldem_infile_open(ldem_infile *in, const char *path, ldem_err *err)
{
    if (strcmp(path, "-") == 0) {
        in->fp = stdin;
        in->name = "<stdin>";
        return LDEM_OK;
    }
    in->name = path;
    in->fp = fopen(path, "rb");
    if (!in->fp)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    return LDEM_OK;
}

void ldem_infile_close(ldem_infile *in)
{
    if (in->fp && in->fp != stdin)
        fclose(in->fp);
    in->fp = NULL;
}
