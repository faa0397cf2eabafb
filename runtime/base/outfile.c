/* Atomic outputs: see ldem/outfile.h for what is replaced by a rename and what is not. */
#include "ldem/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outpath.h"

static void release(ldem_outfile *of)
{
    free(of->path);
    free(of->target);
    free(of->tmp_path);
    of->path = NULL;
    of->target = NULL;
    of->tmp_path = NULL;
    of->fp = NULL;
}

static int fail(ldem_outfile *of, int errnum, const char *what, ldem_err *err)
{
    int rc = ldem_err_set(err, ldem_status_from_errno(errnum), of->path, 0, "%s: %s", what,
                          strerror(errnum));
    release(of);
    return rc;
}

/* A device or FIFO: opened as it is (no O_CREAT: it exists; a FIFO blocks until read). */
static int open_stream(ldem_outfile *of, ldem_err *err)
{
    int fd = open(of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(of, errno, "cannot open output", err);
    of->fp = fdopen(fd, "wb");
    if (!of->fp) {
        int e = errno;
        close(fd);
        return fail(of, e, "cannot open output", err);
    }
    return LDEM_OK;
}

/* A regular file: a temporary beside the target, renamed over it at commit. */
static int open_temporary(ldem_outfile *of, ldem_err *err)
{
    size_t n = strlen(of->target);
    of->tmp_path = malloc(n + sizeof LDEM_OUTFILE_TMP_TEMPLATE);
    if (!of->tmp_path) {
        release(of);
        return ldem_err_set(err, LDEM_ERR_NOMEM, of->path, 0, "out of memory");
    }
    memcpy(of->tmp_path, of->target, n);
    memcpy(of->tmp_path + n, LDEM_OUTFILE_TMP_TEMPLATE, sizeof LDEM_OUTFILE_TMP_TEMPLATE);
    int fd = mkstemp(of->tmp_path);
    if (fd < 0)
        return fail(of, errno, "cannot create output", err);
    /* mkstemp makes 0600 files; outputs should get the usual 0666 & ~umask. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    of->fp = fdopen(fd, "wb");
    if (!of->fp) {
        int e = errno;
        close(fd);
        unlink(of->tmp_path);
        return fail(of, e, "cannot open output", err);
    }
    return LDEM_OK;
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
    outpath_kind kind;
    int rc = ldem_outpath_resolve(path, &of->target, &kind, err);
    if (rc) {
        release(of);
        return rc;
    }
    return kind == OUTPATH_STREAM ? open_stream(of, err) : open_temporary(of, err);
}

/* Standard output, a device or a FIFO: what went out is out; report a failed write. */
static int commit_stream(ldem_outfile *of, ldem_err *err)
{
    int is_stdout = of->fp == stdout;
    int bad = fflush(of->fp) != 0 || ferror(of->fp);
    int e = errno;
    if (!is_stdout && fclose(of->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    int rc = bad ? ldem_err_set(err, LDEM_ERR_IO, is_stdout ? "<stdout>" : of->path, 0,
                                "write failed: %s", strerror(e))
                 : LDEM_OK;
    release(of);
    return rc;
}

int ldem_outfile_commit(ldem_outfile *of, ldem_err *err)
{
    if (!of->fp)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "output file is not open");
    if (!of->tmp_path)
        return commit_stream(of, err);
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
    if (rename(of->tmp_path, of->target) != 0) {
        int e = errno;
        unlink(of->tmp_path);
        int rc = ldem_err_set(err, ldem_status_from_errno(e), of->path, 0,
                              "cannot rename %s into place: %s", of->tmp_path, strerror(e));
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
    } else if (of->fp == stdout) {
        fflush(of->fp);
    } else if (of->fp) {
        fclose(of->fp);
    }
    release(of);
}
