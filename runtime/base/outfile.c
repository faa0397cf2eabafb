#include "ldem/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(ldem_outfile *of)
{
    free(of->path);
    free(of->tmp_path);
    of->path = NULL;
    of->tmp_path = NULL;
    of->fp = NULL;
}

int ldem_outfile_open(ldem_outfile *of, const char *path, ldem_err *err)
{
    memset(of, 0, sizeof *of);
    if (!path || !*path)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty output path");
    of->path = strdup(path);
    if (!of->path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    if (strcmp(path, "-") == 0) {
        of->fp = stdout;
        return LDEM_OK;
    }
    size_t n = strlen(path);
    of->tmp_path = malloc(n + sizeof ".tmp.XXXXXX");
    if (!of->tmp_path) {
        release(of);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    memcpy(of->tmp_path, path, n);
    memcpy(of->tmp_path + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(of->tmp_path);
    if (fd < 0) {
        int e = errno;
        release(of);
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot create output: %s", strerror(e));
    }
    /* mkstemp makes 0600 files; outputs should get the usual 0666 & ~umask. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    of->fp = fdopen(fd, "wb");
    if (!of->fp) {
        int e = errno;
        close(fd);
        unlink(of->tmp_path);
        release(of);
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot open output: %s", strerror(e));
    }
    return LDEM_OK;
}

int ldem_outfile_commit(ldem_outfile *of, ldem_err *err)
{
    if (!of->fp)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "output file is not open");
    if (!of->tmp_path) { /* stdout */
        int bad = fflush(of->fp) != 0 || ferror(of->fp);
        int rc = bad ? ldem_err_set(err, LDEM_ERR_IO, "<stdout>", 0, "write failed: %s",
                                    strerror(errno))
                     : LDEM_OK;
        release(of);
        return rc;
    }
    int bad = ferror(of->fp);
    if (fclose(of->fp) != 0)
        bad = 1;
    of->fp = NULL;
    if (bad) {
        int e = errno;
        unlink(of->tmp_path);
        int rc = ldem_err_set(err, LDEM_ERR_IO, of->path, 0, "write failed: %s", strerror(e));
        release(of);
        return rc;
    }
    if (rename(of->tmp_path, of->path) != 0) {
        int e = errno;
        unlink(of->tmp_path);
        int rc = ldem_err_set(err, LDEM_ERR_IO, of->path, 0, "cannot rename %s into place: %s",
                              of->tmp_path, strerror(e));
        release(of);
        return rc;
    }
    release(of);
    return LDEM_OK;
}

void ldem_outfile_abort(ldem_outfile *of)
{
    if (of->tmp_path) {
        if (of->fp)
            fclose(of->fp);
        unlink(of->tmp_path);
    } else if (of->fp) {
        fflush(of->fp);
    }
    release(of);
}
