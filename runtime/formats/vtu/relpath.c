/* Relative paths for .pvd entries: a collection must keep working when its output folder
 * is moved or opened from another machine, so it never stores absolute paths. */
/* realpath(3) is an XSI extension of POSIX.1-2008; the build only asks for the base. */
#if !defined(_XOPEN_SOURCE) || _XOPEN_SOURCE < 700
#undef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include "vtk_xml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Split "a/b/c" into a malloc'd directory ("a/b", "/" or ".") and a pointer to "c". */
static int split(const char *path, char **dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    const char *d;
    size_t n;
    if (!slash) {
        d = ".";
        n = 1;
        *base = path;
    } else if (slash == path) {
        d = "/";
        n = 1;
        *base = slash + 1;
    } else {
        d = path;
        n = (size_t)(slash - path);
        *base = slash + 1;
    }
    *dir = malloc(n + 1);
    if (!*dir)
        return LDEM_ERR_NOMEM;
    memcpy(*dir, d, n);
    (*dir)[n] = '\0';
    return LDEM_OK;
}

/* realpath(3) of the directory holding `path`, plus its last component. */
static int resolve(const char *path, char **realdir, const char **base, ldem_err *err)
{
    char *dir;
    *realdir = NULL;
    if (split(path, &dir, base))
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    if (!**base || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0) {
        free(dir);
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "path does not name a file");
    }
    *realdir = realpath(dir, NULL);
    int e = errno;
    free(dir);
    if (!*realdir)
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot resolve its directory: %s",
                            strerror(e));
    return LDEM_OK;
}

/* Length of the common leading run of whole components of two clean absolute paths. */
static size_t common_prefix(const char *a, const char *b)
{
    size_t last = 0; /* end of the last common component */
    size_t i = 0;
    for (; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            last = i;
    if ((a[i] == '\0' || a[i] == '/') && (b[i] == '\0' || b[i] == '/'))
        last = i;
    return last;
}

int ldem_vtkx_relpath(const char *base_file, const char *target, char **out, ldem_err *err)
{
    *out = NULL;
    char *from = NULL, *to = NULL;
    const char *from_base, *to_base;
    int rc = resolve(base_file, &from, &from_base, err);
    if (rc == LDEM_OK)
        rc = resolve(target, &to, &to_base, err);
    if (rc) {
        free(from);
        return rc;
    }
    /* realpath gives "/" or "/x/y" without a trailing slash; treat "/" as the empty path
     * so that every component is preceded by exactly one '/'. */
    const char *f = strcmp(from, "/") == 0 ? "" : from;
    const char *t = strcmp(to, "/") == 0 ? "" : to;
    size_t k = common_prefix(f, t);
    size_t ups = 0;
    for (const char *p = f + k; *p; p++)
        if (*p == '/')
            ups++;
    const char *rest = t + k; /* "" or "/comp/comp" */
    size_t len = 3 * ups + strlen(rest) + 1 + strlen(to_base) + 1;
    char *r = malloc(len);
    if (!r) {
        free(from);
        free(to);
        return ldem_err_set(err, LDEM_ERR_NOMEM, target, 0, "out of memory");
    }
    char *q = r;
    for (size_t i = 0; i < ups; i++) {
        memcpy(q, "../", 3);
        q += 3;
    }
    if (*rest) {
        size_t n = strlen(rest + 1);
        memcpy(q, rest + 1, n);
        q += n;
        *q++ = '/';
    }
    strcpy(q, to_base);
    free(from);
    free(to);
    *out = r;
    return LDEM_OK;
}
