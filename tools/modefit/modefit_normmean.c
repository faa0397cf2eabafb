/* --normalize mean:SET:C — the area-weighted mean of a mode's component C over a face set
 * of the mesh's boundary: Σ_f ∫_f u·C dA / Σ_f A_f.
 *
 * The faces: a *SURFACE's element faces, or for an *NSET (or a .msh's physical group,
 * msh_sets.h) the boundary faces whose three corner nodes all belong to it (inp_sets.h). Each face is a flat triangle (the corner
 * triangulation fe_locate uses); on it the FE field is exactly integrated: a linear
 * triangle's integral is A/3 times the sum of its corner values, a quadratic one's A/3
 * times the sum of its edge-midpoint values (the corner weights of the 6-node triangle's
 * rule are 0). So a uniform strain field's mean is exactly its value at the faces' area
 * centroid, which the tests check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inp_sets.h"
#include "msh_sets.h"
#include "ldem/log.h"
#include "modefit_cli.h"

static int ends_with_msh(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && !strcmp(path + n - 4, ".msh");
}

/* One face: its area and the nodes whose values it averages with weight 1/3 each. */
typedef struct mean_face {
    double area;
    size_t node[3];
} mean_face;

/* The mid-edge node of tet t between its corners a and b (mesh node indices), C3D10
 * order: 4:(0,1) 5:(1,2) 6:(2,0) 7:(0,3) 8:(1,3) 9:(2,3). */
static size_t edge_node(const fe_mesh *m, size_t t, size_t a, size_t b)
{
    static const int edge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    const size_t *c = m->tet + (size_t)m->order * t;
    for (int e = 0; e < 6; e++) {
        size_t p = c[edge[e][0]], q = c[edge[e][1]];
        if ((p == a && q == b) || (p == b && q == a))
            return c[4 + e];
    }
    return a; /* not reached for a face of t */
}

static double tri_area(const double *xyz, const size_t v[3])
{
    const double *a = xyz + 3 * v[0], *b = xyz + 3 * v[1], *c = xyz + 3 * v[2];
    double u[3], w[3];
    for (int d = 0; d < 3; d++) {
        u[d] = b[d] - a[d];
        w[d] = c[d] - a[d];
    }
    double x = u[1] * w[2] - u[2] * w[1], y = u[2] * w[0] - u[0] * w[2],
           z = u[0] * w[1] - u[1] * w[0];
    return 0.5 * sqrt(x * x + y * y + z * z);
}

static void sort3(size_t v[3])
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (v[j] > v[j + 1]) {
                size_t t = v[j];
                v[j] = v[j + 1];
                v[j + 1] = t;
            }
}

static int in_set(const inp_set *s, long id)
{
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->nodes[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->count && s->nodes[lo] == id;
}

/* Is boundary triangle k in the set? For a face set, also marks the face it matched. */
static int triangle_in(const fe_mesh *m, const inp_set *s, const size_t corner[3],
                       const size_t *face_idx, unsigned char *matched)
{
    if (s->kind == INP_SET_NODES) {
        for (int i = 0; i < 3; i++)
            if (!in_set(s, m->node_id[corner[i]]))
                return 0;
        return 1;
    }
    size_t key[3] = {corner[0], corner[1], corner[2]};
    sort3(key);
    for (size_t f = 0; f < s->count; f++)
        if (!memcmp(face_idx + 3 * f, key, sizeof key)) {
            matched[f] = 1;
            return 1;
        }
    return 0;
}

/* The set's faces with their areas and averaging nodes. */
static int collect_faces(const modefit_options *o, const modefit_basis *b, const inp_set *s,
                         mean_face **out, size_t *nout, ldem_err *err)
{
    const fe_mesh *m = &b->mesh;
    size_t nb = 0;
    const size_t *bn = fe_boundary_nodes(b->loc, &nb);
    const size_t *face_tet = NULL;
    const ldem_trimesh *surf = fe_boundary_surface(b->loc, &face_tet);
    long *sorted = NULL;
    size_t *perm = NULL, *face_idx = NULL;
    unsigned char *matched = NULL;
    int rc = LDEM_OK;
    if (s->kind == INP_SET_FACES) {
        rc = fe_node_sort(m, o->mesh_path, &sorted, &perm, err);
        face_idx = malloc(3 * s->count * sizeof *face_idx);
        matched = calloc(s->count, 1);
        if (!rc && (!face_idx || !matched))
            rc = modefit_nomem(err);
        for (size_t f = 0; f < s->count && !rc; f++) {
            for (int i = 0; i < 3; i++) {
                long k = fe_node_lookup(sorted, perm, m->nnodes, s->nodes[3 * f + i]);
                if (k < 0) {
                    rc = ldem_err_set(err, LDEM_ERR_INPUT, o->mesh_path, 0,
                                      "*SURFACE %s names node %ld, which the mesh lacks",
                                      o->norm_set, s->nodes[3 * f + i]);
                    break;
                }
                face_idx[3 * f + i] = (size_t)k;
            }
            sort3(face_idx + 3 * f);
        }
    }
    mean_face *faces = rc ? NULL : malloc((surf->ntris ? surf->ntris : 1) * sizeof *faces);
    if (!rc && !faces)
        rc = modefit_nomem(err);
    size_t n = 0;
    for (size_t k = 0; k < (rc ? 0 : surf->ntris); k++) {
        size_t c[3];
        for (int i = 0; i < 3; i++)
            c[i] = bn[surf->tri[3 * k + i]];
        if (!triangle_in(m, s, c, face_idx, matched))
            continue;
        mean_face *f = &faces[n++];
        f->area = tri_area(m->xyz, c);
        for (int i = 0; i < 3; i++)
            f->node[i] = m->order == FE_TET10
                             ? edge_node(m, face_tet[k], c[i], c[(i + 1) % 3])
                             : c[i];
    }
    for (size_t f = 0; !rc && s->kind == INP_SET_FACES && f < s->count; f++)
        if (!matched[f])
            rc = ldem_err_set(err, LDEM_ERR_INPUT, o->mesh_path, 0,
                              "*SURFACE %s: the face with corner nodes %ld, %ld, %ld is not on "
                              "the mesh's boundary", o->norm_set, s->nodes[3 * f],
                              s->nodes[3 * f + 1], s->nodes[3 * f + 2]);
    if (!rc && n == 0)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, o->mesh_path, 0,
                          "--normalize mean:%s: no boundary face has all three corner nodes "
                          "in %s %s (%zu nodes): a mean needs a face set, e.g. the nodes "
                          "of a loaded face or a *SURFACE", o->norm_set,
                          ends_with_msh(o->mesh_path) ? "physical group" : "*NSET",
                          o->norm_set, s->count);
    free(sorted);
    free(perm);
    free(face_idx);
    free(matched);
    if (rc) {
        free(faces);
        return rc;
    }
    *out = faces;
    *nout = n;
    return LDEM_OK;
}

int modefit_mean_values(const modefit_options *o, const modefit_basis *b,
                        const double *fields, size_t n, double *v, ldem_err *err)
{
    inp_set set;
    int msh = ends_with_msh(o->mesh_path);
    int rc = msh ? msh_read_group(o->mesh_path, o->norm_set, &set, err)
                 : inp_read_set(o->mesh_path, o->norm_set, &set, err);
    mean_face *faces = NULL;
    size_t nf = 0;
    if (!rc)
        rc = collect_faces(o, b, &set, &faces, &nf, err);
    if (rc) {
        inp_set_free(&set);
        return rc;
    }
    double area = 0;
    for (size_t f = 0; f < nf; f++)
        area += faces[f].area;
    for (size_t k = 0; k < n; k++) {
        const double *u = fields + k * b->fdof;
        double sum = 0;
        for (size_t f = 0; f < nf; f++) {
            double s = 0;
            for (int i = 0; i < 3; i++)
                for (int d = 0; d < 3; d++)
                    s += u[3 * faces[f].node[i] + (size_t)d] * o->norm_dir[d];
            sum += faces[f].area * s / 3.0;
        }
        v[k] = sum / area;
    }
    ldem_info("--normalize %s: %zu boundary faces of %s %s, area %.9g", o->norm_text, nf,
              set.kind == INP_SET_FACES ? "*SURFACE" : msh ? "physical group" : "*NSET",
              o->norm_set, area);
    inp_set_free(&set);
    free(faces);
    return LDEM_OK;
}
