/* Resolving an output path before writing it: a rename over a symlink would replace the
 * link, over a device node or FIFO would delete it (as root, /dev/null). */
#include "outpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As the kernel's own limit (MAXSYMLINKS), so that a loop is found the same way. */
#define MAX_LINK_HOPS 40

/* The link's content (malloc'd, NUL-terminated), or NULL with errno set. */
static char *read_link(const char *path)
{
    for (size_t cap = 256;; cap *= 2) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
    }
}

/* A relative link target is relative to the link's folder. */
static char *link_destination(const char *link, const char *content)
{
    const char *slash = strrchr(link, '/');
    size_t dir = content[0] == '/' || !slash ? 0 : (size_t)(slash - link) + 1;
    size_t n = strlen(content);
    char *s = malloc(dir + n + 1);
    if (s) {
        memcpy(s, link, dir);
        memcpy(s + dir, content, n + 1);
    }
    return s;
}

/* Follow `path` link by link to the first name that is not a symlink (or does not exist). */
static int follow_links(const char *path, char **target, ldem_err *err)
{
    char *cur = strdup(path);
    if (!cur)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break; /* a missing name is the file to create; other errors come at creation */
        char *content = hops < MAX_LINK_HOPS ? read_link(cur) : NULL;
        int e = hops < MAX_LINK_HOPS ? errno : ELOOP;
        char *next = content ? link_destination(cur, content) : NULL;
        int code = content ? LDEM_ERR_NOMEM : ldem_status_from_errno(e);
        free(content);
        free(cur);
        if (!next)
            return ldem_err_set(err, code, path, 0, "cannot follow the symbolic link: %s",
                                code == LDEM_ERR_NOMEM ? "out of memory" : strerror(e));
        cur = next;
    }
    *target = cur;
    return LDEM_OK;
}

int ldem_outpath_resolve(const char *path, char **target, outpath_kind *kind, ldem_err *err)
{
    *target = NULL;
    *kind = OUTPATH_FILE;
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        if (e == ENOENT) /* a new file, or a dangling link: the file it names */
            return follow_links(path, target, err);
        return ldem_err_set(err, ldem_status_from_errno(e), path, 0, "cannot create output: %s",
                            strerror(e));
    }
    if (S_ISREG(st.st_mode))
        return follow_links(path, target, err);
    if (S_ISDIR(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "is a directory; expected the name of a file to write");
    if (S_ISBLK(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "is a block device; ldem does not write onto disks");
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "is a socket or other special file; expected a file, a device "
                            "such as /dev/null, or a FIFO");
    *kind = OUTPATH_STREAM;
    *target = strdup(path);
    if (!*target)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    return LDEM_OK;
}
