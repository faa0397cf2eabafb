/* ParaView collections (.pvd): a time series of datasets. */
#include "vtk_xml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ldem/outfile.h"

struct ldem_pvd {
    char *path;
    size_t n, cap;
    double *times;
    char **files; /* relative to the .pvd's directory */
};

static int write_collection(const char *path, size_t n, const double *times, char *const *files,
                            ldem_err *err)
{
    ldem_outfile of;
    int rc = ldem_outfile_open(&of, path, err);
    if (rc)
        return rc;
    FILE *fp = of.fp;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          fp);
    for (size_t i = 0; i < n; i++) {
        char t[32];
        ldem_vtkx_format_double(t, times[i]);
        fprintf(fp, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"", t);
        ldem_vtkx_put_escaped(fp, files[i]);
        fputs("\"/>\n", fp);
    }
    fputs("  </Collection>\n</VTKFile>\n", fp);
    return ldem_outfile_commit(&of, err);
}

/* Check one frame and convert its path; *rel is malloc'd. */
static int make_entry(const char *pvd_path, double time, const char *file, char **rel,
                      ldem_err *err)
{
    *rel = NULL;
    if (!file || !*file)
        return ldem_err_set(err, LDEM_ERR_USAGE, pvd_path, 0, "empty dataset path");
    if (!isfinite(time))
        return ldem_err_set(err, LDEM_ERR_INPUT, pvd_path, 0, "time of dataset %s is not finite",
                            file);
    /* A frame that does not exist yet usually means a path relative to the wrong
     * directory; catching it here beats a collection that ParaView cannot open. */
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, file, 0,
                            "not an existing file (add a frame to %s after writing it; paths "
                            "are relative to the current directory)",
                            pvd_path);
    return ldem_vtkx_relpath(pvd_path, file, rel, err);
}

int ldem_pvd_write(const char *path, size_t n, const double *times, const char *const *files,
                   ldem_err *err)
{
    if (!path || !*path)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty collection path");
    if (n > 0 && (!times || !files))
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "%zu datasets but no list", n);
    if (n > SIZE_MAX / sizeof(char *))
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "too many datasets");
    char **rel = calloc(n ? n : 1, sizeof *rel);
    if (!rel)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    int rc = LDEM_OK;
    for (size_t i = 0; i < n && rc == LDEM_OK; i++)
        rc = make_entry(path, times[i], files[i], &rel[i], err);
    if (rc == LDEM_OK)
        rc = write_collection(path, n, times, rel, err);
    for (size_t i = 0; i < n; i++)
        free(rel[i]);
    free(rel);
    return rc;
}

int ldem_pvd_create(ldem_pvd **out, const char *path, ldem_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty collection path");
    if (strcmp(path, "-") == 0)
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0,
                            "a collection is rewritten on every frame; it needs a file");
    ldem_pvd *p = calloc(1, sizeof *p);
    if (p)
        p->path = strdup(path);
    if (!p || !p->path) {
        free(p);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    /* Written at once, empty, so that a run that fails before its first frame still
     * replaces a stale collection from an earlier run in the same folder. */
    int rc = write_collection(path, 0, NULL, NULL, err);
    if (rc) {
        ldem_pvd_free(p);
        return rc;
    }
    *out = p;
    return LDEM_OK;
}

int ldem_pvd_add(ldem_pvd *pvd, double time, const char *file, ldem_err *err)
{
    if (!pvd)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "no collection given");
    if (pvd->n == pvd->cap) {
        size_t ncap = pvd->cap ? 2 * pvd->cap : 64;
        double *t = realloc(pvd->times, ncap * sizeof *t);
        if (!t)
            return ldem_err_set(err, LDEM_ERR_NOMEM, pvd->path, 0, "out of memory");
        pvd->times = t;
        char **f = realloc(pvd->files, ncap * sizeof *f);
        if (!f)
            return ldem_err_set(err, LDEM_ERR_NOMEM, pvd->path, 0, "out of memory");
        pvd->files = f;
        pvd->cap = ncap;
    }
    char *rel;
    int rc = make_entry(pvd->path, time, file, &rel, err);
    if (rc)
        return rc;
    pvd->times[pvd->n] = time;
    pvd->files[pvd->n] = rel;
    rc = write_collection(pvd->path, pvd->n + 1, pvd->times, pvd->files, err);
    if (rc) {
        /* The file on disk still lists the first n frames; keep memory in step with it. */
        free(rel);
        return rc;
    }
    pvd->n++;
    return LDEM_OK;
}

size_t ldem_pvd_count(const ldem_pvd *pvd)
{
    return pvd ? pvd->n : 0;
}

void ldem_pvd_free(ldem_pvd *pvd)
{
    if (!pvd)
        return;
    for (size_t i = 0; i < pvd->n; i++)
        free(pvd->files[i]);
    free(pvd->files);
    free(pvd->times);
    free(pvd->path);
    free(pvd);
}
