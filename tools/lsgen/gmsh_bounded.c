/* Gmsh in a child process under a time and memory budget (gmsh_io.h: *_bounded).
 *
 * Gmsh can run away on bad input: an STL of 20 separate pieces once ran past 10 minutes
 * and 1.6 GB after METIS's "Failed during initial partitioning", and SIGTERM did not stop
 * it. Its calls have no timeout or cancellation, so the only safe way to stop one is to
 * kill the process it runs in: each Gmsh step (its own session included) runs in a child
 * (child_task.h) and sends its triangles back; everything around Gmsh (input checks,
 * orientation, the output checks) stays in lsgen's own process. */
#include "gmsh_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gmsh_private.h"

/* The result on the wire: this header, then xyz, tri and (if has_patch) patch. */
typedef struct wire_header {
    uint64_t nverts, ntris, skipped;
    uint32_t has_patch, reserved;
} wire_header;

enum { STAGE_HEADER, STAGE_XYZ, STAGE_TRI, STAGE_PATCH, STAGE_DONE };

typedef struct gmsh_job {
    /* the step: reading a file, or remeshing `in` */
    const char *path;
    double mesh_size;
    const ldem_trimesh *in;
    double spacing, feature_deg;
    /* its result, made in the child and rebuilt in the parent */
    ldem_trimesh mesh;
    uint32_t *patch;
    size_t skipped;
    /* the parent's progress through the wire format */
    wire_header head;
    int stage;
} gmsh_job;

static int compute(void *ctx, ldem_err *err)
{
    gmsh_job *job = ctx;
    int st = lsgen_gmsh_begin(err);
    if (st)
        return st;
    if (job->in)
        st = lsgen_gmsh_remesh_raw(job->in, job->spacing, job->feature_deg, &job->mesh,
                                   &job->patch, &job->skipped, err);
    else
        st = lsgen_gmsh_read_raw(job->path, job->mesh_size, &job->mesh, &job->skipped, err);
    lsgen_gmsh_end();
    return st;
}

static int send(void *ctx, int fd, ldem_err *err)
{
    gmsh_job *job = ctx;
    wire_header h = {job->mesh.nverts, job->mesh.ntris, job->skipped, job->patch != NULL, 0};
    int st = child_task_write(fd, &h, sizeof h, err);
    if (!st)
        st = child_task_write(fd, job->mesh.xyz, 3 * h.nverts * sizeof *job->mesh.xyz, err);
    if (!st)
        st = child_task_write(fd, job->mesh.tri, 3 * h.ntris * sizeof *job->mesh.tri, err);
    if (!st && job->patch)
        st = child_task_write(fd, job->patch, h.ntris * sizeof *job->patch, err);
    ldem_trimesh_free(&job->mesh); /* the child's copy: it is about to exit */
    free(job->patch);
    job->patch = NULL;
    return st;
}

/* Where the next part of the result goes; empty parts are skipped. */
static int receive(void *ctx, void **buf, size_t *len, ldem_err *err)
{
    gmsh_job *job = ctx;
    for (;;) {
        *buf = NULL;
        *len = 0;
        switch (job->stage++) {
        case STAGE_HEADER:
            *buf = &job->head;
            *len = sizeof job->head;
            return LDEM_OK;
        case STAGE_XYZ: {
            const wire_header *h = &job->head;
            int st = ldem_trimesh_alloc(&job->mesh, (size_t)h->nverts, (size_t)h->ntris, err);
            if (!st && h->has_patch) {
                job->patch = malloc((h->ntris ? h->ntris : 1) * sizeof *job->patch);
                if (!job->patch)
                    st = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                      "out of memory for Gmsh's %zu triangles",
                                      (size_t)h->ntris);
            }
            if (st)
                return st;
            job->skipped = (size_t)h->skipped;
            *buf = job->mesh.xyz;
            *len = 3 * job->mesh.nverts * sizeof *job->mesh.xyz;
            break;
        }
        case STAGE_TRI:
            *buf = job->mesh.tri;
            *len = 3 * job->mesh.ntris * sizeof *job->mesh.tri;
            break;
        case STAGE_PATCH:
            if (job->patch) {
                *buf = job->patch;
                *len = job->mesh.ntris * sizeof *job->patch;
            }
            break;
        default:
            job->stage = STAGE_DONE;
            return LDEM_OK;
        }
        if (*len > 0)
            return LDEM_OK;
    }
}

static void job_free(gmsh_job *job)
{
    ldem_trimesh_free(&job->mesh);
    free(job->patch);
    job->patch = NULL;
}

static int run_job(gmsh_job *job, const char *source, const char *doing,
                   const child_budget *budget, ldem_err *err)
{
    ldem_trimesh_init(&job->mesh);
    child_task task = {"Gmsh", doing, source, "--timeout", compute, send, receive, job};
    int st = child_task_run(&task, budget, err);
    if (st)
        job_free(job);
    return st;
}

static int has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

int lsgen_gmsh_read_surface_bounded(const char *path, double mesh_size,
                                    const child_budget *budget, ldem_trimesh *out,
                                    ldem_err *err)
{
    int st = lsgen_gmsh_read_precheck(path, err);
    if (st)
        return st;
    char doing[96];
    if (has_suffix(path, ".stl") || has_suffix(path, ".msh"))
        snprintf(doing, sizeof doing, "reading the mesh");
    else
        snprintf(doing, sizeof doing, "meshing the geometry");
    gmsh_job job = {0};
    job.path = path;
    job.mesh_size = mesh_size;
    if ((st = run_job(&job, path, doing, budget, err)))
        return st;
    *out = job.mesh;
    return lsgen_gmsh_read_finish(path, out, job.skipped, err);
}

int lsgen_gmsh_remesh_bounded(const ldem_trimesh *in, double spacing, double feature_deg,
                              const char *source, const child_budget *budget,
                              ldem_trimesh *out, ldem_err *err)
{
    int st = lsgen_gmsh_remesh_precheck(in, spacing, feature_deg, err);
    if (st)
        return st;
    char doing[96];
    snprintf(doing, sizeof doing, "remeshing the surface at node spacing %g", spacing);
    gmsh_job job = {0};
    job.in = in;
    job.spacing = spacing;
    job.feature_deg = feature_deg;
    if ((st = run_job(&job, source, doing, budget, err)))
        return st;
    *out = job.mesh;
    return lsgen_gmsh_remesh_finish(in, spacing, out, job.patch, job.skipped, err);
}
