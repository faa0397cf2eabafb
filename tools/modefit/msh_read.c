/* Tetrahedra and nodal vector data from a Gmsh .msh file (femesh.h: msh_read).
 *
 * Gmsh reads the file (any .msh version, ASCII or binary); its $NodeData blocks become
 * post-processing views, one per name, with one step per time-step index. We take the
 * 4- or 10-node tets from the model and, from every view of 3-component NodeData, each
 * step as one snapshot. Gmsh runs inside lsgen's quiet scope (gmsh_private.h): stdout
 * kept clean, its log forwarded, a restart after an error. */
#include "femesh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gmshc.h>

#include "femesh_io.h"
#include "gmsh_io.h"
#include "gmsh_private.h"
#include "msh_volume.h"
#include "ldem/log.h"

/* Gmsh element types (Gmsh manual, "MSH file format"). */
#define GMSH_TET4 4
#define GMSH_TET10 11

/* ---------------------------------------------------------------------- mesh -------- */

/* The one 3-D element type of the model: tets of 4 or 10 nodes, nothing else. */
static int tet_type(const char *path, int *type, ldem_err *err)
{
    int *types = NULL;
    size_t n = 0;
    int ierr = 0;
    gmshModelMeshGetElementTypes(&types, &n, 3, -1, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading Gmsh's element types");
    int st = LDEM_OK, found = 0;
    for (size_t i = 0; i < n && !st; i++) {
        if (types[i] == GMSH_TET4 || types[i] == GMSH_TET10) {
            if (found && found != types[i])
                st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                  "has both 4-node and 10-node tetrahedra; expected one kind");
            found = types[i];
            continue;
        }
        char *name = NULL;
        double *local = NULL;
        size_t nlocal = 0;
        int dim, order, nnodes, corners;
        gmshModelMeshGetElementProperties(types[i], &name, &dim, &order, &nnodes, &local,
                                          &nlocal, &corners, &ierr);
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "has volume elements of Gmsh type %d (%s); expected 4- or 10-node "
                          "tetrahedra only", types[i], (!ierr && name) ? name : "unknown");
        gmshFree(name);
        gmshFree(local);
    }
    gmshFree(types);
    if (!st && !found)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "no tetrahedra; expected a volume mesh of 4- or 10-node tets");
    *type = found;
    return st;
}

static int copy_nodes(const char *path, fe_mesh *m, ldem_err *err)
{
    size_t *tags = NULL, ntags = 0, ncoord = 0, npar = 0;
    double *xyz = NULL, *par = NULL;
    int ierr = 0;
    gmshModelMeshGetNodes(&tags, &ntags, &xyz, &ncoord, &par, &npar, -1, -1, 0, 0, &ierr);
    gmshFree(par);
    int st = LDEM_OK;
    if (ierr)
        st = lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading Gmsh's nodes");
    else if (ncoord != 3 * ntags)
        st = ldem_err_set(err, LDEM_ERR_INTERNAL, path, 0, "Gmsh gave %zu coordinates for %zu "
                          "nodes", ncoord, ntags);
    if (!st) {
        m->nnodes = ntags;
        m->xyz = malloc((ntags ? 3 * ntags : 1) * sizeof *m->xyz);
        m->node_id = malloc((ntags ? ntags : 1) * sizeof *m->node_id);
        if (!m->xyz || !m->node_id)
            st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for %zu nodes",
                              ntags);
    }
    for (size_t i = 0; i < ntags && !st; i++) {
        if (tags[i] > (size_t)LONG_MAX)
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "node tag %zu is too large",
                              tags[i]);
        m->node_id[i] = (long)tags[i];
    }
    if (!st)
        memcpy(m->xyz, xyz, 3 * ntags * sizeof *xyz);
    gmshFree(tags);
    gmshFree(xyz);
    return st;
}

/* The tets, node tags to node indices; Gmsh's tet10 lists edge (2,3) before edge (1,3),
 * ours the other way round (femesh.h). */
static int copy_tets(const char *path, int type, const long *ids, const size_t *perm,
                     fe_mesh *m, ldem_err *err)
{
    size_t *etags = NULL, ne = 0, *ntags = NULL, nn = 0;
    int ierr = 0;
    gmshModelMeshGetElementsByType(type, &etags, &ne, &ntags, &nn, -1, 0, 1, &ierr);
    gmshFree(etags);
    if (ierr) {
        gmshFree(ntags);
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading Gmsh's tetrahedra");
    }
    size_t k = type == GMSH_TET10 ? FE_TET10 : FE_TET4;
    int st = LDEM_OK;
    if (nn != k * ne)
        st = ldem_err_set(err, LDEM_ERR_INTERNAL, path, 0,
                          "Gmsh gave %zu node tags for %zu elements of %zu nodes", nn, ne, k);
    if (!st) {
        m->order = (int)k;
        m->ntets = ne;
        m->tet = malloc((nn ? nn : 1) * sizeof *m->tet);
        if (!m->tet)
            st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for %zu tets", ne);
    }
    for (size_t e = 0; e < ne && !st; e++) {
        for (size_t j = 0; j < k && !st; j++) {
            size_t tag = ntags[k * e + j];
            long i = tag > (size_t)LONG_MAX ? -1
                                            : fe_node_lookup(ids, perm, m->nnodes, (long)tag);
            if (i < 0)
                st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                  "element %zu refers to node %zu, which the file does not "
                                  "define", e + 1, tag);
            else
                m->tet[k * e + j] = (size_t)i;
        }
        if (k == FE_TET10) {
            size_t *v = m->tet + k * e, t = v[8];
            v[8] = v[9];
            v[9] = t;
        }
    }
    gmshFree(ntags);
    return st;
}

/* ---------------------------------------------------------------------- views -------- */

/* One step of one view: where a snapshot may come from. */
typedef struct view_step {
    int tag, index, step;
} view_step;

typedef struct node_data {
    char *type;
    size_t *tags, ntags;
    double **data;
    size_t *data_n, data_nn;
    double time;
    int ncomp;
} node_data;

static void node_data_free(node_data *d)
{
    for (size_t i = 0; i < d->data_nn; i++)
        gmshFree(d->data[i]);
    gmshFree(d->data);
    gmshFree(d->data_n);
    gmshFree(d->tags);
    gmshFree(d->type);
    memset(d, 0, sizeof *d);
}

static int get_node_data(const char *path, int tag, int step, node_data *d, ldem_err *err)
{
    int ierr = 0;
    memset(d, 0, sizeof *d);
    gmshViewGetModelData(tag, step, &d->type, &d->tags, &d->ntags, &d->data, &d->data_n,
                         &d->data_nn, &d->time, &d->ncomp, &ierr);
    if (ierr) {
        node_data_free(d);
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading a view's data");
    }
    return LDEM_OK;
}

static void view_name(int index, char *out, size_t cap)
{
    char option[64];
    char *name = NULL;
    int ierr = 0;
    snprintf(option, sizeof option, "View[%d].Name", index);
    gmshOptionGetString(option, &name, &ierr);
    snprintf(out, cap, "%s", (!ierr && name) ? name : "?");
    gmshFree(name);
}

/* Every (view, step) holding 3-component NodeData, in view then step order. */
static int list_steps(const char *path, view_step **list, size_t *n, ldem_err *err)
{
    int *vtags = NULL;
    size_t nv = 0, cap = 0;
    int ierr = 0;
    *list = NULL;
    *n = 0;
    gmshViewGetTags(&vtags, &nv, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "listing Gmsh's views");
    int st = LDEM_OK;
    for (size_t v = 0; v < nv && !st; v++) {
        int index = gmshViewGetIndex(vtags[v], &ierr);
        char option[64];
        double nsteps = 0;
        snprintf(option, sizeof option, "View[%d].NbTimeStep", index);
        if (!ierr)
            gmshOptionGetNumber(option, &nsteps, &ierr);
        if (ierr) {
            st = lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading a view's step count");
            break;
        }
        for (int step = 0; step < (int)nsteps && !st; step++) {
            node_data d;
            if ((st = get_node_data(path, vtags[v], step, &d, err)))
                break;
            if (d.ntags == 0) { /* a step index the file leaves out */
                node_data_free(&d);
                continue;
            }
            int usable = d.type && strcmp(d.type, "NodeData") == 0 && d.ncomp == 3;
            if (!usable) {
                char name[128];
                view_name(index, name, sizeof name);
                ldem_info("%s: view '%s' skipped (%s with %d components; snapshots are "
                          "3-component NodeData)", path, name, d.type ? d.type : "?", d.ncomp);
            }
            node_data_free(&d);
            if (!usable)
                break; /* the view's other steps hold the same kind of data */
            if (!fe_grow((void **)list, &cap, *n + 1, sizeof **list))
                st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
            else
                (*list)[(*n)++] = (view_step){vtags[v], index, step};
        }
    }
    gmshFree(vtags);
    return st;
}

/* One step's values into vals (3 per mesh node), checked: 3 values per node, nodes of
 * the mesh each once, finite, every node a tet uses given, not all zero. */
static int fill_snapshot(const char *path, const fe_mesh *m, const long *ids,
                         const size_t *perm, const unsigned char *used, const view_step *vs,
                         size_t number, double *vals, double *time, ldem_err *err)
{
    char name[128];
    view_name(vs->index, name, sizeof name);
    node_data d;
    int st = get_node_data(path, vs->tag, vs->step, &d, err);
    if (st)
        return st;
    unsigned char *seen = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!seen)
        st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    memset(vals, 0, 3 * m->nnodes * sizeof *vals);
    for (size_t i = 0; i < d.ntags && !st; i++) {
        long k = d.tags[i] > (size_t)LONG_MAX
                     ? -1 : fe_node_lookup(ids, perm, m->nnodes, (long)d.tags[i]);
        if (i >= d.data_nn || d.data_n[i] != 3)
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "view '%s' step %d: node %zu has %zu values; expected 3", name,
                              vs->step, d.tags[i], i < d.data_nn ? d.data_n[i] : 0);
        else if (k < 0)
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "view '%s' step %d: node %zu is not in the mesh", name, vs->step,
                              d.tags[i]);
        else if (seen[k])
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "view '%s' step %d: node %zu is given twice", name, vs->step,
                              d.tags[i]);
        else if (!isfinite(d.data[i][0]) || !isfinite(d.data[i][1]) || !isfinite(d.data[i][2]))
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "view '%s' step %d: node %zu: a value is not a finite number "
                              "(NaN or infinite)", name, vs->step, d.tags[i]);
        if (st)
            break;
        seen[k] = 1;
        memcpy(vals + 3 * (size_t)k, d.data[i], 3 * sizeof *vals);
    }
    for (size_t k = 0; k < m->nnodes && !st; k++) {
        size_t i = perm[k];
        if (used[i] && !seen[i])
            st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "view '%s' step %d has no value at node %ld, which the mesh's "
                              "tets use; expected every node", name, vs->step, ids[k]);
    }
    int zero = 1;
    for (size_t i = 0; i < 3 * m->nnodes && zero; i++)
        zero = vals[i] == 0.0;
    if (!st && zero)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "snapshot %zu is zero everywhere (view '%s' step %d); expected a "
                          "deformed state", number, name, vs->step);
    *time = d.time;
    free(seen);
    node_data_free(&d);
    return st;
}

static int read_snapshots(const char *path, const fe_mesh *m, const long *ids,
                          const size_t *perm, long select, fe_snapshots *s, ldem_err *err)
{
    view_step *list;
    size_t n;
    int st = list_steps(path, &list, &n, err);
    if (st)
        return st;
    size_t first = 0, count = n;
    if (n == 0)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "no view of 3-component NodeData; expected displacement snapshots "
                          "($NodeData with 3 components)");
    else if (select > 0 && (size_t)select > n)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "snapshot %ld asked for, but the file has %zu", select, n);
    if (!st && select != 0) {
        first = select > 0 ? (size_t)select - 1 : n - 1;
        count = 1;
    }
    size_t n3 = 3 * m->nnodes;
    unsigned char *used = NULL;
    if (!st) {
        used = fe_used_nodes(m);
        s->u = count <= (size_t)-1 / sizeof(double) / (n3 ? n3 : 1)
                   ? malloc(count * (n3 ? n3 : 1) * sizeof *s->u) : NULL;
        s->time = malloc(count * sizeof *s->time);
        s->step = malloc(count * sizeof *s->step);
        if (!used || !s->u || !s->time || !s->step)
            st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for %zu snapshots",
                              count);
    }
    for (size_t i = 0; i < count && !st; i++) {
        const view_step *vs = &list[first + i];
        st = fill_snapshot(path, m, ids, perm, used, vs, first + i + 1, s->u + i * n3,
                           &s->time[i], err);
        s->step[i] = vs->step;
    }
    if (!st) {
        s->nnodes = m->nnodes;
        s->count = count;
    }
    free(used);
    free(list);
    return st;
}

/* ---------------------------------------------------------------------- file -------- */

/* Gmsh "reads" a missing file without complaint, and an empty one is no mesh. */
static int check_file(const char *path, ldem_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "is a directory, not a file");
    if (sb.st_size == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "empty file; expected a Gmsh mesh (.msh)");
    FILE *f = fopen(path, "rb");
    if (!f)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    fclose(f);
    return LDEM_OK;
}

static int load(const char *path, fe_mesh *m, fe_snapshots *s, long select, ldem_err *err)
{
    int ierr = 0;
    gmshClear(&ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "Gmsh could not clear its model");
    gmshOpen(path, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "Gmsh could not read it");
    int type = 0;
    long *ids = NULL;
    size_t *perm = NULL;
    int st = tet_type(path, &type, err);
    if (!st)
        st = copy_nodes(path, m, err);
    if (!st && (st = fe_node_sort(m, path, &ids, &perm, err)) == LDEM_ERR_INPUT && err) {
        /* Gmsh's view export writes the mesh again unless PostProcessing.SaveMesh = 0 */
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof err->msg - used,
                 " (is the mesh in the file twice? a Gmsh view export appends it again "
                 "unless PostProcessing.SaveMesh=0)");
    }
    if (!st)
        st = copy_tets(path, type, ids, perm, m, err);
    if (!st)
        st = fe_mesh_check(m, path, err);
    if (!st && s)
        st = read_snapshots(path, m, ids, perm, select, s, err);
    free(ids);
    free(perm);
    gmshClear(&ierr); /* the views and mesh are ours now: do not keep two copies */
    return st;
}

int msh_collect_model(const char *what, fe_mesh *m, ldem_err *err)
{
    memset(m, 0, sizeof *m);
    int type = 0;
    long *ids = NULL;
    size_t *perm = NULL;
    int st = tet_type(what, &type, err);
    if (!st)
        st = copy_nodes(what, m, err);
    if (!st)
        st = fe_node_sort(m, what, &ids, &perm, err);
    if (!st)
        st = copy_tets(what, type, ids, perm, m, err);
    if (!st)
        st = fe_mesh_check(m, what, err);
    free(ids);
    free(perm);
    if (st)
        fe_mesh_free(m);
    return st;
}

int msh_read(const char *path, fe_mesh *m, fe_snapshots *s, long select, ldem_err *err)
{
    memset(m, 0, sizeof *m);
    if (s)
        memset(s, 0, sizeof *s);
    if (select < -1)
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0,
                            "select %ld; expected 0 (every snapshot), k > 0, or -1 (the last)",
                            select);
    int st = check_file(path, err);
    if (st)
        return st;
    int own_session = lsgen_gmsh_require_session("msh_read", NULL) != LDEM_OK;
    if (own_session && (st = lsgen_gmsh_begin(err)))
        return st;
    lsgen_gmsh_quiet q;
    if (!(st = lsgen_gmsh_quiet_enter(&q, err))) {
        st = load(path, m, s, select, err);
        st = lsgen_gmsh_quiet_leave(&q, st, err);
    }
    if (own_session)
        lsgen_gmsh_end();
    if (st) {
        fe_mesh_free(m);
        if (s)
            fe_snapshots_free(s);
        return st;
    }
    ldem_debug("%s: %zu nodes, %zu tets of %d nodes, %zu snapshots", path, m->nnodes,
               m->ntets, m->order, s ? s->count : 0);
    return LDEM_OK;
}
