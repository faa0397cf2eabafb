#include "ldem/infile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

FILE *ldem_fopen_input(const char *path)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (fp && fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
    return fp;
}

int ldem_infile_open(ldem_infile *in, const char *path, ldem_err *err)
{
    if (strcmp(path, "-") == 0) {
        in->fp = stdin;
        in->name = "<stdin>";
        return LDEM_OK;
    }
    in->name = path;
    in->fp = ldem_fopen_input(path);
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
