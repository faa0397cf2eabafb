/* A Gmsh physical group of a .msh as a node set, for --normalize mean:GROUP:C (msh_sets.h).
 *
 * Gmsh reads the file (any .msh version) in lsgen's quiet scope, as msh_read does; every
 * physical group whose name is GROUP (case-insensitive, as the deck's sets) contributes the
 * nodes of its elements. The mean then takes the mesh's boundary faces whose three corner
 * nodes all belong to it, as for an *NSET: a group of surface triangles on a loaded face
 * is what a user makes in Gmsh. Node numbers are Gmsh's node tags, which msh_read keeps as
 * the mesh's node numbers. */
#include "msh_sets.h"

#include <gmshc.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gmsh_io.h"
#include "gmsh_private.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Appends the group's node tags to set->nodes (capacity *cap). */
static int add_group_nodes(const char *path, int dim, int tag, inp_set *set, size_t *cap,
                           ldem_err *err)
{
    size_t *tags = NULL, nt = 0, nc = 0;
    double *coord = NULL;
    int ierr = 0;
    gmshModelMeshGetNodesForPhysicalGroup(dim, tag, &tags, &nt, &coord, &nc, &ierr);
    gmshFree(coord);
    if (ierr) {
        gmshFree(tags);
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading a physical group's nodes");
    }
    if (set->count + nt > *cap) {
        size_t want = 2 * (set->count + nt);
        long *p = realloc(set->nodes, want * sizeof *p);
        if (!p) {
            gmshFree(tags);
            return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
        }
        set->nodes = p;
        *cap = want;
    }
    for (size_t i = 0; i < nt; i++)
        set->nodes[set->count++] = (long)tags[i];
    gmshFree(tags);
    return LDEM_OK;
}

static int load(const char *path, const char *name, inp_set *set, ldem_err *err)
{
    int ierr = 0;
    gmshClear(&ierr);
    gmshOpen(path, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "Gmsh could not read it");
    int *dt = NULL;
    size_t ndt = 0, cap = 0;
    gmshModelGetPhysicalGroups(&dt, &ndt, -1, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "reading the physical groups");
    char names[256] = "";
    int st = LDEM_OK, found = 0;
    for (size_t i = 0; i + 1 < ndt && !st; i += 2) {
        char *gname = NULL;
        gmshModelGetPhysicalName(dt[i], dt[i + 1], &gname, &ierr);
        const char *g = (!ierr && gname) ? gname : "";
        size_t used = strlen(names);
        if (*g && used + strlen(g) + 3 < sizeof names)
            snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", g);
        if (*g && !strcasecmp(g, name)) {
            found = 1;
            st = add_group_nodes(path, dt[i], dt[i + 1], set, &cap, err);
        }
        gmshFree(gname);
    }
    gmshFree(dt);
    gmshClear(&ierr);
    if (!st && !found)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                          "no physical group named %s (it has: %s)", name,
                          names[0] ? names : "no named groups");
    if (!st && !set->count)
        st = ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "physical group %s has no nodes", name);
    return st;
}

int msh_read_group(const char *path, const char *name, inp_set *set, ldem_err *err)
{
    memset(set, 0, sizeof *set);
    set->kind = INP_SET_NODES;
    int own_session = lsgen_gmsh_require_session("msh_read_group", NULL) != LDEM_OK;
    int st = own_session ? lsgen_gmsh_begin(err) : LDEM_OK;
    if (st)
        return st;
    lsgen_gmsh_quiet q;
    if (!(st = lsgen_gmsh_quiet_enter(&q, err))) {
        st = load(path, name, set, err);
        st = lsgen_gmsh_quiet_leave(&q, st, err);
    }
    if (own_session)
        lsgen_gmsh_end();
    if (st) {
        inp_set_free(set);
        set->kind = 0;
        return st;
    }
    if (set->count) /* an empty group may have no array at all */
        qsort(set->nodes, set->count, sizeof *set->nodes, cmp_long);
    size_t m = 0;
    for (size_t i = 0; i < set->count; i++)
        if (!m || set->nodes[m - 1] != set->nodes[i])
            set->nodes[m++] = set->nodes[i];
    set->count = m;
    return LDEM_OK;
}
