/* Hand-built worlds for the simulation-layer tests (see world_fixture.h). */
#include "../support/law_states.h"
#include "world_fixture.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static char *dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    cr_assert(d);
    strcpy(d, s);
    return d;
}

void wf_world(ldem_world *w, int law)
{
    ldem_world_init(w);
    w->nmaterials = 1;
    w->materials = calloc(1, sizeof *w->materials);
    w->laws = calloc(1, sizeof *w->laws);
    cr_assert(w->materials && w->laws);
    w->materials[0] = (ldem_material){dup("glass"), 70e9, 0.25, 2500.0, 0.3};
    /* kn = ks = 1e6 for the linear law; every other law's parameters at their fallbacks */
    const ldem_law_ops *ops = ldem_law_by_id((uint32_t)law);
    cr_assert(ops, "law id %d", law);
    double p[LDEM_LAW_MAX_PARAMS] = {1e6, 1e6};
    w->laws[0] = ldem_pair_law_make(ops, ldem_elastic_mix_of(70e9, 0.25, 70e9, 0.25), 0.3, 0.0,
                                    p, law == LDEM_LAW_LINEAR ? 3u : 0u);
    w->dt = 1e-7;
    ldem_err err;
    cr_assert_eq(ldem_world_init_pools(w, &err), LDEM_OK, "%s", err.msg);
}

static uint32_t add_body(ldem_world *w)
{
    ldem_err err;
    size_t i = w->bodies.count;
    cr_assert_eq(ldem_bodies_resize(&w->bodies, i + 1, &err), LDEM_OK, "%s", err.msg);
    return (uint32_t)i;
}

uint32_t wf_add_sphere(ldem_world *w, ldem_vec3 x, double radius, ldem_vec3 v)
{
    uint32_t i = add_body(w);
    ldem_bodies *b = &w->bodies;
    double m = w->materials[0].density * 4.0 / 3.0 * PI * radius * radius * radius;
    double I = 0.4 * m * radius * radius;
    b->kind[i] = LDEM_SHAPE_SPHERE;
    b->radius[i] = radius;
    b->mass[i] = m;
    b->inv_mass[i] = 1.0 / m;
    b->inertia[i] = ldem_vec3_make(I, I, I);
    b->x[i] = b->x_prev[i] = x;
    b->v[i] = v;
    return i;
}

/* Icosphere: 12 vertices of the icosahedron, each subdivision splits a triangle in four with
 * midpoints projected on the unit sphere (midpoints shared through a brute-force lookup,
 * fine for the few thousand vertices tests use). */
typedef struct icos {
    size_t nv, nt, vcap, tcap;
    double *v;
    uint32_t *t;
} icos;

static uint32_t icos_vertex(icos *s, double x, double y, double z)
{
    double n = sqrt(x * x + y * y + z * z);
    x /= n, y /= n, z /= n;
    for (size_t k = 0; k < s->nv; k++)
        if (fabs(s->v[3 * k] - x) < 1e-12 && fabs(s->v[3 * k + 1] - y) < 1e-12 &&
            fabs(s->v[3 * k + 2] - z) < 1e-12)
            return (uint32_t)k;
    if (s->nv == s->vcap) {
        s->vcap = s->vcap ? 2 * s->vcap : 64;
        s->v = realloc(s->v, 3 * s->vcap * sizeof *s->v);
        cr_assert(s->v);
    }
    s->v[3 * s->nv] = x, s->v[3 * s->nv + 1] = y, s->v[3 * s->nv + 2] = z;
    return (uint32_t)s->nv++;
}

static void icos_tri(icos *s, uint32_t a, uint32_t b, uint32_t c)
{
    if (s->nt == s->tcap) {
        s->tcap = s->tcap ? 2 * s->tcap : 64;
        s->t = realloc(s->t, 3 * s->tcap * sizeof *s->t);
        cr_assert(s->t);
    }
    s->t[3 * s->nt] = a, s->t[3 * s->nt + 1] = b, s->t[3 * s->nt + 2] = c;
    s->nt++;
}

static void icosphere(icos *s, int subdiv)
{
    memset(s, 0, sizeof *s);
    const double p = (1.0 + sqrt(5.0)) / 2.0;
    const double V[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0},
                             {0, -1, p}, {0, 1, p}, {0, -1, -p}, {0, 1, -p},
                             {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    const int F[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                          {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                          {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                          {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int k = 0; k < 12; k++)
        icos_vertex(s, V[k][0], V[k][1], V[k][2]);
    for (int k = 0; k < 20; k++)
        icos_tri(s, (uint32_t)F[k][0], (uint32_t)F[k][1], (uint32_t)F[k][2]);
    for (int level = 0; level < subdiv; level++) {
        size_t nt = s->nt;
        uint32_t *old = malloc(3 * nt * sizeof *old);
        cr_assert(old);
        memcpy(old, s->t, 3 * nt * sizeof *old);
        s->nt = 0;
        for (size_t k = 0; k < nt; k++) {
            uint32_t a = old[3 * k], b = old[3 * k + 1], c = old[3 * k + 2], m[3];
            uint32_t e[3][2] = {{a, b}, {b, c}, {c, a}};
            for (int q = 0; q < 3; q++) {
                const double *u = &s->v[3 * e[q][0]], *v = &s->v[3 * e[q][1]];
                m[q] = icos_vertex(s, u[0] + v[0], u[1] + v[1], u[2] + v[2]);
            }
            icos_tri(s, a, m[0], m[2]);
            icos_tri(s, b, m[1], m[0]);
            icos_tri(s, c, m[2], m[1]);
            icos_tri(s, m[0], m[1], m[2]);
        }
        free(old);
    }
}

uint32_t wf_add_ls_sphere_shape(ldem_world *w, double R, double h, int subdiv)
{
    w->shapes = realloc(w->shapes, (w->nshapes + 1) * sizeof *w->shapes);
    cr_assert(w->shapes);
    ldem_shape *sh = &w->shapes[w->nshapes];
    memset(sh, 0, sizeof *sh);
    sh->name = dup("ls-sphere");
    sh->source = dup("(test fixture)");
    uint32_t n = (uint32_t)ceil(2.0 * (R + 3.0 * h) / h) + 1;
    double o = -0.5 * (n - 1) * h;
    sh->lset.dims[0] = sh->lset.dims[1] = sh->lset.dims[2] = n;
    for (int a = 0; a < 3; a++)
        sh->lset.origin[a] = o, sh->lset.spacing[a] = h;
    sh->lset.phi = malloc((size_t)n * n * n * sizeof(float));
    cr_assert(sh->lset.phi);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++) {
                double x = o + i * h, y = o + j * h, z = o + k * h;
                sh->lset.phi[i + (size_t)n * (j + (size_t)n * k)] =
                    (float)(sqrt(x * x + y * y + z * z) - R);
            }
    icos s;
    icosphere(&s, subdiv);
    ldem_nodes *nd = &sh->nodes;
    nd->count = s.nv;
    nd->position = malloc(3 * s.nv * sizeof(double));
    nd->normal = malloc(3 * s.nv * sizeof(double));
    nd->area = calloc(s.nv, sizeof(double));
    cr_assert(nd->position && nd->normal && nd->area);
    for (size_t k = 0; k < 3 * s.nv; k++) {
        nd->normal[k] = s.v[k];
        nd->position[k] = R * s.v[k];
    }
    for (size_t t = 0; t < s.nt; t++) {
        const double *a = &nd->position[3 * s.t[3 * t]], *b = &nd->position[3 * s.t[3 * t + 1]],
                     *c = &nd->position[3 * s.t[3 * t + 2]];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2],
               cz = u[0] * v[1] - u[1] * v[0];
        double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        for (int q = 0; q < 3; q++)
            nd->area[s.t[3 * t + q]] += area / 3.0;
    }
    nd->ntriangles = s.nt;
    nd->triangles = s.t;
    free(s.v);
    sh->bounding_radius = R;
    sh->volume = 4.0 / 3.0 * PI * R * R * R;
    double I = 0.4 * sh->volume * R * R;
    sh->inertia_per_density = ldem_vec3_make(I, I, I);
    return (uint32_t)w->nshapes++;
}

uint32_t wf_add_ls_body(ldem_world *w, uint32_t shape, ldem_vec3 x, ldem_quat q, ldem_vec3 v)
{
    uint32_t i = add_body(w);
    ldem_bodies *b = &w->bodies;
    const ldem_shape *sh = &w->shapes[shape];
    double rho = w->materials[0].density;
    b->kind[i] = LDEM_SHAPE_LSET;
    b->shape[i] = shape;
    b->radius[i] = sh->bounding_radius;
    b->mass[i] = rho * sh->volume;
    b->inv_mass[i] = 1.0 / b->mass[i];
    b->inertia[i] = ldem_vec3_scale(sh->inertia_per_density, rho);
    b->x[i] = b->x_prev[i] = x;
    b->q[i] = b->q_prev[i] = q;
    b->v[i] = v;
    return i;
}

uint32_t wf_add_plane(ldem_world *w, ldem_vec3 point, ldem_vec3 normal)
{
    w->walls = realloc(w->walls, (w->nwalls + 1) * sizeof *w->walls);
    cr_assert(w->walls);
    ldem_wall *wl = &w->walls[w->nwalls];
    memset(wl, 0, sizeof *wl);
    wl->name = dup("plane");
    wl->kind = LDEM_WALL_PLANE;
    wl->origin = point;
    wl->normal = ldem_vec3_normalize(normal);
    wl->drive = LDEM_DRIVE_VELOCITY;
    return (uint32_t)w->nwalls++;
}

/* Signed distance of the cube [−a, a]³. */
static double box_distance(double a, double x, double y, double z)
{
    double q[3] = {fabs(x) - a, fabs(y) - a, fabs(z) - a}, out = 0.0;
    for (int k = 0; k < 3; k++)
        out += q[k] > 0.0 ? q[k] * q[k] : 0.0;
    double in = fmax(q[0], fmax(q[1], q[2]));
    return sqrt(out) + (in < 0.0 ? in : 0.0);
}

uint32_t wf_add_ls_box_shape(ldem_world *w, double a, double h)
{
    w->shapes = realloc(w->shapes, (w->nshapes + 1) * sizeof *w->shapes);
    cr_assert(w->shapes);
    ldem_shape *sh = &w->shapes[w->nshapes];
    memset(sh, 0, sizeof *sh);
    sh->name = dup("ls-box");
    sh->source = dup("(test fixture)");
    uint32_t n = (uint32_t)ceil(2.0 * (a + 3.0 * h) / h) + 1;
    double o = -0.5 * (n - 1) * h;
    sh->lset.dims[0] = sh->lset.dims[1] = sh->lset.dims[2] = n;
    for (int k = 0; k < 3; k++)
        sh->lset.origin[k] = o, sh->lset.spacing[k] = h;
    sh->lset.phi = malloc((size_t)n * n * n * sizeof(float));
    cr_assert(sh->lset.phi);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++)
                sh->lset.phi[i + (size_t)n * (j + (size_t)n * k)] =
                    (float)box_distance(a, o + i * h, o + j * h, o + k * h);
    ldem_nodes *nd = &sh->nodes;
    nd->count = 8;
    nd->position = malloc(24 * sizeof(double));
    nd->normal = malloc(24 * sizeof(double));
    nd->area = malloc(8 * sizeof(double));
    cr_assert(nd->position && nd->normal && nd->area);
    for (int c = 0; c < 8; c++) {
        for (int k = 0; k < 3; k++) {
            double sgn = (c >> k) & 1 ? 1.0 : -1.0;
            nd->position[3 * c + k] = sgn * a;
            nd->normal[3 * c + k] = sgn / sqrt(3.0);
        }
        nd->area[c] = 24.0 * a * a / 8.0;
    }
    sh->bounding_radius = sqrt(3.0) * a;
    sh->volume = 8.0 * a * a * a;
    double I = 2.0 / 3.0 * sh->volume * a * a;
    sh->inertia_per_density = ldem_vec3_make(I, I, I);
    return (uint32_t)w->nshapes++;
}

/* The field A x at every node of the shape's grid (float32, x fastest). */
static float *affine_grid_field(const ldem_lset *ls, const double A[3][3])
{
    size_t np = (size_t)ls->dims[0] * ls->dims[1] * ls->dims[2], idx = 0;
    float *g = malloc(3 * np * sizeof *g);
    cr_assert(g);
    for (uint32_t k = 0; k < ls->dims[2]; k++)
        for (uint32_t j = 0; j < ls->dims[1]; j++)
            for (uint32_t i = 0; i < ls->dims[0]; i++, idx++) {
                double x[3] = {ls->origin[0] + i * ls->spacing[0],
                               ls->origin[1] + j * ls->spacing[1],
                               ls->origin[2] + k * ls->spacing[2]};
                for (int r = 0; r < 3; r++)
                    g[3 * idx + r] = (float)(A[r][0] * x[0] + A[r][1] * x[1] + A[r][2] * x[2]);
            }
    return g;
}

void wf_give_affine_mode(ldem_world *w, uint32_t s, const double A[3][3], double k, double m,
                         const ldem_etab_table *table)
{
    ldem_shape *sh = &w->shapes[s];
    uint64_t nn = sh->nodes.count;
    ldem_modes md = {.count = 1, .kind = LDEM_MODE_SAMPLED, .nnodes = nn};
    md.node_values = malloc(3 * nn * sizeof *md.node_values);
    cr_assert(md.node_values);
    for (uint64_t q = 0; q < nn; q++) {
        const double *x = &sh->nodes.position[3 * q];
        for (int r = 0; r < 3; r++)
            md.node_values[3 * q + r] = A[r][0] * x[0] + A[r][1] * x[1] + A[r][2] * x[2];
    }
    memcpy(md.grid_dims, sh->lset.dims, sizeof md.grid_dims);
    memcpy(md.grid_origin, sh->lset.origin, sizeof md.grid_origin);
    memcpy(md.grid_spacing, sh->lset.spacing, sizeof md.grid_spacing);
    md.grid_values = affine_grid_field(&sh->lset, A);
    double kv = k, mv = m;
    ldem_matrix K = {1, &kv}, M = {1, &mv};
    ldem_etab_table copy;
    ldem_etab etab = {1, &copy};
    if (table) {
        copy = *table;
        copy.mode = 0;
    }
    if (sh->modes) {
        ldem_modeset_free(sh->modes);
        free(sh->modes);
    }
    sh->modes = calloc(1, sizeof *sh->modes);
    cr_assert(sh->modes);
    ldem_err err;
    cr_assert_eq(ldem_modeset_build(&md, &K, &M, table ? &etab : NULL, NULL, nn,
                                    sh->nodes.position, sh->modes, &err),
                 LDEM_OK, "%s", err.msg);
    free(md.node_values);
    free(md.grid_values);
}

uint32_t wf_make_deformable(ldem_world *w, uint32_t b, double eps)
{
    /* ldem_world_modal_init starts from zero: keep the amplitude of every body that was
     * already deformable (single-mode shapes, as this fixture builds them) */
    size_t n = w->bodies.count;
    double *kept = calloc(n, sizeof *kept);
    cr_assert(kept);
    for (size_t i = 0; i < n && w->modal.ndof; i++)
        if ((w->bodies.flags[i] & LDEM_BODY_DEFORMABLE) && w->bodies.modal[i] < w->modal.ndof)
            kept[i] = w->modal.eps[w->bodies.modal[i]];
    w->bodies.flags[b] |= LDEM_BODY_DEFORMABLE;
    ldem_err err;
    cr_assert_eq(ldem_world_modal_init(w, &err), LDEM_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
        if (w->bodies.modal[i] != LDEM_RIGID)
            w->modal.eps[w->bodies.modal[i]] = kept[i];
    free(kept);
    uint32_t off = w->bodies.modal[b];
    w->modal.eps[off] = eps;
    return off;
}

void wf_patch_section(const char *path, const char *out, const char *tag,
                      void (*patch)(ldem_section *))
{
    FILE *fp = fopen(path, "rb");
    cr_assert(fp);
    ldem_bundle_reader *r;
    ldem_bundle b;
    int have;
    ldem_err err;
    cr_assert_eq(ldem_bundle_reader_open(&r, fp, path, &err), LDEM_OK);
    cr_assert_eq(ldem_bundle_read(r, &b, &have, &err), LDEM_OK, "%s", err.msg);
    ldem_bundle_reader_close(r);
    fclose(fp);
    ldem_section *s = (ldem_section *)ldem_bundle_find(&b, tag);
    cr_assert(s, "no %s", tag);
    patch(s);
    fp = fopen(out, "wb");
    cr_assert(fp);
    cr_assert_eq(ldem_bundle_write(fp, out, &b, &err), LDEM_OK, "%s", err.msg);
    fclose(fp);
    ldem_bundle_free(&b);
}
