/* output_frames.c — VTU frames and their .pvd series (ldem/sim/output.h).
 *
 * Each frame is up to four independent unstructured grids (spheres, surfaces, contacts,
 * walls), one file per part, because the parts have different point and cell data and
 * ParaView colours each by its own arrays. Every file goes through ldem_vtu_write (atomic)
 * and only then into its .pvd, so the series on disk only ever lists whole files.
 */
#include "ldem/sim/output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "frame_contacts.h"
#include "ldem/log.h"

static const double TWO_PI = 6.28318530717958647692;

/* Sides of the tube that draws a cylinder wall. */
#define CYLINDER_SIDES 32

enum part { PART_SPHERES, PART_SURFACES, PART_CONTACTS, PART_WALLS, NPARTS };
static const char *const PART_NAMES[NPARTS] = {"spheres", "surfaces", "contacts", "walls"};

/* ---- folders and names ---- */

static int mkdir_one(const char *path, ldem_err *err)
{
    if (mkdir(path, 0777) == 0)
        return LDEM_OK;
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return LDEM_OK;
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "exists and is not a folder (expected an output folder)");
    }
    return ldem_err_set(err, ldem_status_from_errno(e), path, 0, "cannot create the folder: %s",
                        strerror(e));
}

int ldem_output_mkdir(const char *path, ldem_err *err)
{
    if (!path || !*path)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty output folder name");
    char *buf = strdup(path);
    if (!buf)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    int rc = LDEM_OK;
    /* Parents first: cut the path at each '/' after the first character. */
    for (char *s = buf + 1; *s && rc == LDEM_OK; s++) {
        if (*s != '/' || s[-1] == '/')
            continue;
        *s = '\0';
        rc = mkdir_one(buf, err);
        *s = '/';
    }
    if (rc == LDEM_OK)
        rc = mkdir_one(buf, err);
    free(buf);
    return rc;
}

/* malloc'd printf; NULL when out of memory. */
static char *path_printf(const char *fmt, ...) LDEM_PRINTF(1, 2);
static char *path_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

static char *frame_path(const char *dir, int part, uint64_t number)
{
    return path_printf("%s/frames/%s_%06" PRIu64 ".vtu", dir, PART_NAMES[part], number);
}

static char *series_path(const char *dir, int part)
{
    return path_printf("%s/%s.pvd", dir, PART_NAMES[part]);
}

static ldem_pvd **part_series(ldem_frames *f, int part)
{
    switch (part) {
    case PART_SPHERES: return &f->spheres;
    case PART_SURFACES: return &f->surfaces;
    case PART_CONTACTS: return &f->contacts;
    default: return &f->walls;
    }
}

static bool world_has_kind(const ldem_world *w, int kind)
{
    for (size_t i = 0; i < w->bodies.count; i++)
        if (w->bodies.kind[i] == kind)
            return true;
    return false;
}

static bool world_has_part(const ldem_world *w, int part, int with_contacts)
{
    switch (part) {
    case PART_SPHERES: return world_has_kind(w, LDEM_SHAPE_SPHERE);
    case PART_SURFACES: return world_has_kind(w, LDEM_SHAPE_LSET);
    case PART_CONTACTS: return with_contacts != 0;
    default: return w->nwalls > 0;
    }
}

/* ---- one grid's buffers ---- */

typedef struct grid_buf {
    double *points;
    int64_t *connectivity, *offsets;
    uint8_t *types;
} grid_buf;

static void grid_buf_free(grid_buf *g)
{
    free(g->points);
    free(g->connectivity);
    free(g->offsets);
    free(g->types);
    memset(g, 0, sizeof *g);
}

/* Room for npoints points and ncells cells of `per_cell` nodes each. On failure *g is empty
 * (grid_buf_free is safe either way). */
static int grid_buf_alloc(grid_buf *g, size_t npoints, size_t ncells, size_t per_cell)
{
    memset(g, 0, sizeof *g);
    if (npoints > SIZE_MAX / 24 || ncells > SIZE_MAX / 8 / (per_cell ? per_cell : 1))
        return LDEM_ERR_NOMEM;
    g->points = malloc(3 * npoints * sizeof *g->points + 1);
    g->connectivity = malloc(per_cell * ncells * sizeof *g->connectivity + 1);
    g->offsets = malloc(ncells * sizeof *g->offsets + 1);
    g->types = malloc(ncells + 1);
    if (!g->points || !g->connectivity || !g->offsets || !g->types) {
        grid_buf_free(g);
        return LDEM_ERR_NOMEM;
    }
    return LDEM_OK;
}

static void put_vec3(double *dst, ldem_vec3 v)
{
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
}

static ldem_vtk_array f64_array(const char *name, int ncomp, const double *data)
{
    return (ldem_vtk_array){name, LDEM_VTK_FLOAT64, ncomp, data};
}

static ldem_vtk_array i32_array(const char *name, const int32_t *data)
{
    return (ldem_vtk_array){name, LDEM_VTK_INT32, 1, data};
}

static int nomem(const char *path, ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for the frame");
}

/* ---- spheres: VERTEX cells at the centres ---- */

static int write_spheres(const char *path, const ldem_world *w, int encoding, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    size_t n = 0;
    for (size_t i = 0; i < b->count; i++)
        n += b->kind[i] == LDEM_SHAPE_SPHERE;
    grid_buf g;
    double *radius = malloc(n * sizeof *radius + 1);
    double *velocity = malloc(3 * n * sizeof *velocity + 1);
    double *omega = malloc(3 * n * sizeof *omega + 1);
    int32_t *id = malloc(n * sizeof *id + 1);
    int rc = grid_buf_alloc(&g, n, n, 1);
    if (rc || !radius || !velocity || !omega || !id) {
        rc = nomem(path, err);
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < b->count; i++) {
        if (b->kind[i] != LDEM_SHAPE_SPHERE)
            continue;
        put_vec3(&g.points[3 * k], b->x[i]);
        put_vec3(&velocity[3 * k], b->v[i]);
        put_vec3(&omega[3 * k], ldem_bodies_omega(b, i));
        radius[k] = b->radius[i];
        id[k] = (int32_t)b->id[i];
        g.connectivity[k] = (int64_t)k;
        g.offsets[k] = (int64_t)k + 1;
        g.types[k] = LDEM_VTK_VERTEX;
        k++;
    }
    const ldem_vtk_array pd[] = {f64_array("radius", 1, radius), f64_array("velocity", 3, velocity),
                                 f64_array("omega", 3, omega), i32_array("id", id)};
    const ldem_vtu_grid grid = {n, g.points, n, g.connectivity, g.offsets, g.types, 4, pd, 0, NULL};
    rc = ldem_vtu_write(path, &grid, encoding, err);
out:
    grid_buf_free(&g);
    free(radius);
    free(velocity);
    free(omega);
    free(id);
    return rc;
}

/* ---- surfaces: the bundles' NODE triangles, posed ---- */

static int write_surfaces(const char *path, const ldem_world *w, int encoding, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    size_t npoints = 0, ncells = 0;
    for (size_t i = 0; i < b->count; i++) {
        if (b->kind[i] != LDEM_SHAPE_LSET)
            continue;
        const ldem_nodes *nd = &w->shapes[b->shape[i]].nodes;
        npoints += nd->count;
        ncells += nd->ntriangles;
    }
    grid_buf g;
    double *velocity = malloc(3 * npoints * sizeof *velocity + 1);
    int32_t *id = malloc(npoints * sizeof *id + 1);
    /* deformable grains: the modal displacement of each surface point (world) and its size */
    int deform = w->modal.ndof > 0;
    double *disp = deform ? calloc(3 * npoints + 1, sizeof *disp) : NULL;
    double *disp_mag = deform ? calloc(npoints + 1, sizeof *disp_mag) : NULL;
    int rc = grid_buf_alloc(&g, npoints, ncells, 3);
    if (rc || !velocity || !id || (deform && (!disp || !disp_mag))) {
        rc = nomem(path, err);
        goto out;
    }
    size_t p = 0, c = 0;
    for (size_t i = 0; i < b->count; i++) {
        if (b->kind[i] != LDEM_SHAPE_LSET)
            continue;
        const ldem_nodes *nd = &w->shapes[b->shape[i]].nodes;
        const ldem_vec3 x = b->x[i], v = b->v[i], omega = ldem_bodies_omega(b, i);
        const size_t first = p;
        const ldem_modeset *ms = ldem_world_body_modes(w, i);
        for (uint64_t k = 0; k < nd->count; k++, p++) {
            ldem_vec3 node = ldem_world_body_node(w, i, k);
            const double q[3] = {node.x, node.y, node.z};
            ldem_vec3 r = ldem_quat_rotate(b->q[i], node);
            ldem_vec3 vel = ldem_vec3_add(v, ldem_vec3_cross(omega, r));
            if (ms) {
                const double *q0 = &nd->position[3 * k];
                ldem_vec3 u = ldem_quat_rotate(
                    b->q[i], ldem_vec3_make(q[0] - q0[0], q[1] - q0[1], q[2] - q0[2]));
                ldem_vec3 du = ldem_quat_rotate(
                    b->q[i], ldem_modes_node_displacement(ms, w->modal.rate + b->modal[i], k));
                vel = ldem_vec3_add(vel, du);
                put_vec3(&disp[3 * p], u);
                disp_mag[p] = ldem_vec3_norm(u);
            }
            put_vec3(&g.points[3 * p], ldem_vec3_add(x, r));
            put_vec3(&velocity[3 * p], vel);
            id[p] = (int32_t)b->id[i];
        }
        for (uint64_t t = 0; t < nd->ntriangles; t++, c++) {
            for (int a = 0; a < 3; a++)
                g.connectivity[3 * c + a] = (int64_t)(first + nd->triangles[3 * t + a]);
            g.offsets[c] = 3 * (int64_t)c + 3;
            g.types[c] = LDEM_VTK_TRIANGLE;
        }
    }
    const ldem_vtk_array pd[] = {f64_array("velocity", 3, velocity), i32_array("id", id),
                                 f64_array("displacement", 3, disp),
                                 f64_array("displacement_magnitude", 1, disp_mag)};
    const ldem_vtu_grid grid = {npoints, g.points, ncells, g.connectivity, g.offsets, g.types,
                                deform ? 4 : 2, pd, 0, NULL};
    rc = ldem_vtu_write(path, &grid, encoding, err);
out:
    grid_buf_free(&g);
    free(velocity);
    free(id);
    free(disp);
    free(disp_mag);
    return rc;
}

/* ---- contacts: one LINE per contact in touch ---- */

typedef struct contact_data {
    double *normal_force, *tangential_force, *fn, *ft, *overlap;
    int32_t *history_length, *i, *j;
} contact_data;

static void contact_data_free(contact_data *d)
{
    free(d->normal_force);
    free(d->tangential_force);
    free(d->fn);
    free(d->ft);
    free(d->overlap);
    free(d->history_length);
    free(d->i);
    free(d->j);
}

static int contact_data_alloc(contact_data *d, size_t n)
{
    d->normal_force = malloc(3 * n * sizeof(double) + 1);
    d->tangential_force = malloc(3 * n * sizeof(double) + 1);
    d->fn = malloc(n * sizeof(double) + 1);
    d->ft = malloc(n * sizeof(double) + 1);
    d->overlap = malloc(n * sizeof(double) + 1);
    d->history_length = malloc(n * sizeof(int32_t) + 1);
    d->i = malloc(n * sizeof(int32_t) + 1);
    d->j = malloc(n * sizeof(int32_t) + 1);
    if (d->normal_force && d->tangential_force && d->fn && d->ft && d->overlap &&
        d->history_length && d->i && d->j)
        return LDEM_OK;
    contact_data_free(d);
    return LDEM_ERR_NOMEM;
}

/* Whether a contact's indices name existing bodies, walls and laws. */
static bool contact_valid(const ldem_world *w, const ldem_contact *c)
{
    bool wall = (c->j & LDEM_WALL_BIT) != 0;
    size_t j = c->j & ~LDEM_WALL_BIT;
    return c->i < w->bodies.count && c->law < w->nmaterials * w->nmaterials &&
           (wall ? j < w->nwalls : j < w->bodies.count);
}

static int write_contacts(const char *path, const ldem_world *w, int encoding, ldem_err *err)
{
    ldem__contact_row *rows;
    size_t n;
    int rc = ldem__frame_contact_rows(w, &rows, &n, err);
    if (rc)
        return rc;
    grid_buf g;
    contact_data d;
    rc = grid_buf_alloc(&g, 2 * n, n, 2);
    if (rc) {
        free(rows);
        return nomem(path, err);
    }
    if (contact_data_alloc(&d, n)) {
        grid_buf_free(&g);
        free(rows);
        return nomem(path, err);
    }
    for (size_t m = 0; m < n; m++) {
        const ldem__contact_row *r = &rows[m];
        memcpy(&g.points[6 * m], r->from, sizeof r->from);
        memcpy(&g.points[6 * m + 3], r->to, sizeof r->to);
        g.connectivity[2 * m] = 2 * (int64_t)m;
        g.connectivity[2 * m + 1] = 2 * (int64_t)m + 1;
        g.offsets[m] = 2 * (int64_t)m + 2;
        g.types[m] = LDEM_VTK_LINE;
        memcpy(&d.normal_force[3 * m], r->fn, sizeof r->fn);
        memcpy(&d.tangential_force[3 * m], r->ft, sizeof r->ft);
        d.fn[m] = ldem_vec3_norm(ldem_vec3_make(r->fn[0], r->fn[1], r->fn[2]));
        d.ft[m] = ldem_vec3_norm(ldem_vec3_make(r->ft[0], r->ft[1], r->ft[2]));
        d.overlap[m] = r->overlap;
        d.history_length[m] = r->history_length;
        d.i[m] = r->i;
        d.j[m] = r->j;
    }
    free(rows);
    const ldem_vtk_array cd[] = {
        f64_array("normal_force", 3, d.normal_force),
        f64_array("tangential_force", 3, d.tangential_force),
        f64_array("fn", 1, d.fn),
        f64_array("ft", 1, d.ft),
        f64_array("overlap", 1, d.overlap),
        i32_array("history_length", d.history_length),
        i32_array("i", d.i),
        i32_array("j", d.j),
    };
    const ldem_vtu_grid grid = {2 * n,   g.points, n,    g.connectivity,           g.offsets,
                                g.types, 0,        NULL, sizeof cd / sizeof cd[0], cd};
    rc = ldem_vtu_write(path, &grid, encoding, err);
    grid_buf_free(&g);
    contact_data_free(&d);
    return rc;
}

/* ---- walls: box faces, squares and tubes sized by the grains' bounding box ---- */

/* Where and how big to draw walls: the grains' axis-aligned bounding box. */
typedef struct draw_box {
    bool empty; /* no bodies: walls are drawn at their own position */
    ldem_vec3 lo, hi;
    double size; /* plane side: max(1.5 × largest box extent, 4 × largest radius) */
    /* per axis, the span an axis-aligned plane wall is drawn over: from the walls facing
     * along that axis where there are, else the grains' box with a margin */
    double span_lo[3], span_hi[3];
} draw_box;

/* The index of the axis n lies along, or −1. */
static int aligned_axis(ldem_vec3 n)
{
    double a[3] = {n.x, n.y, n.z};
    for (int k = 0; k < 3; k++)
        if (fabs(fabs(a[k]) - 1.0) < 1e-12)
            return k;
    return -1;
}

/* Axis-aligned plane walls are drawn as the faces of the box they and the grains make (a
 * box test's walls meet at its edges instead of crossing as large squares); the grains' box
 * stands in, with a quarter of its extent to spare, along axes no wall closes. */
static void wall_spans(const ldem_world *w, draw_box *box)
{
    double glo[3] = {box->lo.x, box->lo.y, box->lo.z}, ghi[3] = {box->hi.x, box->hi.y, box->hi.z};
    for (int a = 0; a < 3; a++) {
        double margin = box->empty ? 0.5 * box->size : 0.25 * fmax(box->size / 1.5, ghi[a] - glo[a]);
        box->span_lo[a] = box->empty ? -margin : glo[a] - margin;
        box->span_hi[a] = box->empty ? margin : ghi[a] + margin;
    }
    for (size_t k = 0; k < w->nwalls; k++) {
        const ldem_wall *wl = &w->walls[k];
        int a = wl->kind == LDEM_WALL_PLANE ? aligned_axis(wl->normal) : -1;
        if (a < 0)
            continue;
        ldem_vec3 p = ldem_vec3_add(wl->origin, wl->disp);
        double pa[3] = {p.x, p.y, p.z}, na[3] = {wl->normal.x, wl->normal.y, wl->normal.z};
        if (na[a] > 0.0)
            box->span_lo[a] = pa[a];
        else
            box->span_hi[a] = pa[a];
    }
}

static draw_box grains_box(const ldem_bodies *b)
{
    draw_box box = {.empty = true, .lo = ldem_vec3_zero(), .hi = ldem_vec3_zero(), .size = 1.0};
    double rmax = 0.0;
    for (size_t i = 0; i < b->count; i++) {
        double r = b->radius[i];
        ldem_vec3 lo = ldem_vec3_make(b->x[i].x - r, b->x[i].y - r, b->x[i].z - r);
        ldem_vec3 hi = ldem_vec3_make(b->x[i].x + r, b->x[i].y + r, b->x[i].z + r);
        if (box.empty) {
            box.lo = lo, box.hi = hi;
            box.empty = false;
        }
        box.lo = ldem_vec3_make(fmin(box.lo.x, lo.x), fmin(box.lo.y, lo.y), fmin(box.lo.z, lo.z));
        box.hi = ldem_vec3_make(fmax(box.hi.x, hi.x), fmax(box.hi.y, hi.y), fmax(box.hi.z, hi.z));
        rmax = fmax(rmax, r);
    }
    if (!box.empty) {
        ldem_vec3 e = ldem_vec3_sub(box.hi, box.lo);
        double extent = fmax(e.x, fmax(e.y, e.z));
        box.size = fmax(1.5 * extent, 4.0 * rmax);
    }
    return box;
}

/* Two unit vectors completing n to a right-handed frame (e1 × e2 = n). */
static void tangent_frame(ldem_vec3 n, ldem_vec3 *e1, ldem_vec3 *e2)
{
    /* Cross with the coordinate axis least aligned with n: never nearly parallel. */
    ldem_vec3 a = ldem_vec3_make(1, 0, 0);
    if (fabs(n.y) <= fabs(n.x) && fabs(n.y) <= fabs(n.z))
        a = ldem_vec3_make(0, 1, 0);
    else if (fabs(n.z) <= fabs(n.x) && fabs(n.z) <= fabs(n.y))
        a = ldem_vec3_make(0, 0, 1);
    *e1 = ldem_vec3_normalize(ldem_vec3_cross(n, a));
    *e2 = ldem_vec3_cross(n, *e1);
}

static size_t wall_points(const ldem_wall *wl)
{
    return wl->kind == LDEM_WALL_CYLINDER ? 2 * CYLINDER_SIDES : 4;
}

static size_t wall_triangles(const ldem_wall *wl)
{
    return wl->kind == LDEM_WALL_CYLINDER ? 2 * CYLINDER_SIDES : 2;
}

/* A square of side box.size in the plane, centred on the box centre's projection; triangles
 * counter-clockwise seen from the grains' side. */
static void draw_plane(const ldem_wall *wl, const draw_box *box, double *pts, int64_t *tri)
{
    ldem_vec3 p0 = ldem_vec3_add(wl->origin, wl->disp), n = wl->normal, e1, e2;
    int a = aligned_axis(n);
    if (a >= 0 && box->span_hi[(a + 1) % 3] > box->span_lo[(a + 1) % 3] &&
        box->span_hi[(a + 2) % 3] > box->span_lo[(a + 2) % 3]) {
        /* the face of the walls' box: the rectangle spanned by the other two axes' spans at
         * the wall's position, counter-clockwise seen from the grains' side */
        int b = (a + 1) % 3, c = (a + 2) % 3;
        double pa[3] = {p0.x, p0.y, p0.z};
        const double ub[4] = {box->span_lo[b], box->span_hi[b], box->span_hi[b], box->span_lo[b]};
        const double uc[4] = {box->span_lo[c], box->span_lo[c], box->span_hi[c], box->span_hi[c]};
        double na[3] = {n.x, n.y, n.z};
        for (int k = 0; k < 4; k++) {
            int m = na[a] > 0.0 ? k : 3 - k; /* keep the winding facing the grains */
            double q[3];
            q[a] = pa[a], q[b] = ub[m], q[c] = uc[m];
            put_vec3(&pts[3 * k], ldem_vec3_make(q[0], q[1], q[2]));
        }
        const int64_t t[6] = {0, 1, 2, 0, 2, 3};
        memcpy(tri, t, sizeof t);
        return;
    }
    tangent_frame(n, &e1, &e2);
    ldem_vec3 c = p0;
    if (!box->empty) {
        ldem_vec3 mid = ldem_vec3_scale(ldem_vec3_add(box->lo, box->hi), 0.5);
        c = ldem_vec3_axpy(-ldem_vec3_dot(ldem_vec3_sub(mid, p0), n), n, mid);
    }
    double h = 0.5 * box->size;
    const double s1[4] = {-h, h, h, -h}, s2[4] = {-h, -h, h, h};
    for (int k = 0; k < 4; k++)
        put_vec3(&pts[3 * k], ldem_vec3_axpy(s2[k], e2, ldem_vec3_axpy(s1[k], e1, c)));
    const int64_t t[6] = {0, 1, 2, 0, 2, 3};
    memcpy(tri, t, sizeof t);
}

/* Axial range [s0, s1] of the box about p0 along a: its eight corners projected. */
static void box_span(const draw_box *box, ldem_vec3 p0, ldem_vec3 a, double *s0, double *s1)
{
    *s0 = INFINITY, *s1 = -INFINITY;
    for (int k = 0; k < 8; k++) {
        ldem_vec3 corner =
            ldem_vec3_make(k & 1 ? box->hi.x : box->lo.x, k & 2 ? box->hi.y : box->lo.y,
                           k & 4 ? box->hi.z : box->lo.z);
        double s = ldem_vec3_dot(ldem_vec3_sub(corner, p0), a);
        *s0 = fmin(*s0, s), *s1 = fmax(*s1, s);
    }
}

/* A CYLINDER_SIDES-sided tube of the wall's radius spanning the box along the axis (with no
 * grains: 4 radii long, centred on the origin); triangles face the grains' side. */
static void draw_cylinder(const ldem_wall *wl, const draw_box *box, double *pts, int64_t *tri)
{
    ldem_vec3 p0 = ldem_vec3_add(wl->origin, wl->disp), a = wl->normal, e1, e2;
    tangent_frame(a, &e1, &e2);
    double s0 = -2.0 * wl->radius, s1 = 2.0 * wl->radius;
    if (!box->empty)
        box_span(box, p0, a, &s0, &s1);
    const int m = CYLINDER_SIDES;
    for (int k = 0; k < m; k++) {
        double th = TWO_PI * k / m;
        ldem_vec3 radial =
            ldem_vec3_scale(ldem_vec3_axpy(sin(th), e2, ldem_vec3_scale(e1, cos(th))), wl->radius);
        put_vec3(&pts[3 * k], ldem_vec3_add(ldem_vec3_axpy(s0, a, p0), radial));
        put_vec3(&pts[3 * (k + m)], ldem_vec3_add(ldem_vec3_axpy(s1, a, p0), radial));
    }
    /* (k, k+1, m+k+1) turns about the outward radial direction (e1, e2, a right-handed);
     * a drum's grains are inside, so its triangles are flipped. */
    for (int k = 0; k < m; k++) {
        int64_t k1 = (k + 1) % m;
        int64_t t[6] = {k, k1, m + k1, k, m + k1, m + k};
        if (wl->inside) {
            int64_t swap;
            swap = t[1], t[1] = t[2], t[2] = swap;
            swap = t[4], t[4] = t[5], t[5] = swap;
        }
        memcpy(&tri[6 * k], t, sizeof t);
    }
}

static int write_walls(const char *path, const ldem_world *w, int encoding, ldem_err *err)
{
    size_t npoints = 0, ncells = 0;
    for (size_t k = 0; k < w->nwalls; k++) {
        npoints += wall_points(&w->walls[k]);
        ncells += wall_triangles(&w->walls[k]);
    }
    grid_buf g;
    double *force = malloc(3 * ncells * sizeof *force + 1);
    int32_t *id = malloc(ncells * sizeof *id + 1);
    int rc = grid_buf_alloc(&g, npoints, ncells, 3);
    if (rc || !force || !id) {
        rc = nomem(path, err);
        goto out;
    }
    draw_box box = grains_box(&w->bodies);
    wall_spans(w, &box);
    size_t p = 0, c = 0;
    for (size_t k = 0; k < w->nwalls; k++) {
        const ldem_wall *wl = &w->walls[k];
        int64_t *tri = &g.connectivity[3 * c];
        if (wl->kind == LDEM_WALL_CYLINDER)
            draw_cylinder(wl, &box, &g.points[3 * p], tri);
        else
            draw_plane(wl, &box, &g.points[3 * p], tri);
        size_t nt = wall_triangles(wl);
        for (size_t t = 0; t < nt; t++, c++) {
            for (int a = 0; a < 3; a++)
                tri[3 * t + a] += (int64_t)p;
            g.offsets[c] = 3 * (int64_t)c + 3;
            g.types[c] = LDEM_VTK_TRIANGLE;
            put_vec3(&force[3 * c], wl->force);
            id[c] = (int32_t)k;
        }
        p += wall_points(wl);
    }
    const ldem_vtk_array cd[] = {f64_array("force", 3, force), i32_array("id", id)};
    const ldem_vtu_grid grid = {npoints, g.points, ncells, g.connectivity, g.offsets, g.types, 0,
                                NULL,    2,        cd};
    rc = ldem_vtu_write(path, &grid, encoding, err);
out:
    grid_buf_free(&g);
    free(force);
    free(id);
    return rc;
}

static int write_part(int part, const char *path, const ldem_world *w, int encoding, ldem_err *err)
{
    switch (part) {
    case PART_SPHERES: return write_spheres(path, w, encoding, err);
    case PART_SURFACES: return write_surfaces(path, w, encoding, err);
    case PART_CONTACTS: return write_contacts(path, w, encoding, err);
    default: return write_walls(path, w, encoding, err);
    }
}

/* ---- the series ---- */

static int reserve_times(ldem_frames *f, uint64_t n, ldem_err *err)
{
    if (n <= f->times_capacity)
        return LDEM_OK;
    uint64_t cap = f->times_capacity ? f->times_capacity : 64;
    while (cap < n)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof(double))
        return ldem_err_set(err, LDEM_ERR_NOMEM, f->dir, 0, "too many frames");
    double *t = realloc(f->times, (size_t)cap * sizeof *t);
    if (!t)
        return ldem_err_set(err, LDEM_ERR_NOMEM, f->dir, 0, "out of memory");
    f->times = t;
    f->times_capacity = cap;
    return LDEM_OK;
}

/* Put the first n frames of `part` that exist on disk back into its new series. A frame
 * missing on disk (deleted by hand) is left out with a warning: the series stays loadable. */
static int readd_previous(ldem_frames *f, int part, uint64_t n, const double *times, ldem_err *err)
{
    ldem_pvd *pvd = *part_series(f, part);
    uint64_t missing = 0;
    for (uint64_t k = 0; k < n; k++) {
        char *path = frame_path(f->dir, part, k);
        if (!path)
            return ldem_err_set(err, LDEM_ERR_NOMEM, f->dir, 0, "out of memory");
        struct stat st;
        int rc = LDEM_OK;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = ldem_pvd_add(pvd, times[k], path, err);
        else
            missing++;
        free(path);
        if (rc)
            return rc;
    }
    if (missing)
        ldem_warn("%s/frames: %" PRIu64 " of the %" PRIu64 " earlier %s frames are missing; "
                  "%s.pvd continues without them",
                  f->dir, missing, n, PART_NAMES[part], PART_NAMES[part]);
    return LDEM_OK;
}

/* Start (or restart) the series of one part, or remove a stale one the world has no use for. */
static int open_part(ldem_frames *f, int part, bool present, uint64_t nprevious,
                     const double *previous_times, ldem_err *err)
{
    char *path = series_path(f->dir, part);
    if (!path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, f->dir, 0, "out of memory");
    int rc = LDEM_OK;
    if (!present) {
        if (unlink(path) != 0 && errno != ENOENT)
            rc = ldem_err_set(err, LDEM_ERR_IO, path, 0,
                              "cannot remove this stale series (the run has no %s): %s",
                              PART_NAMES[part], strerror(errno));
    } else {
        rc = ldem_pvd_create(part_series(f, part), path, err);
        if (rc == LDEM_OK)
            rc = readd_previous(f, part, nprevious, previous_times, err);
    }
    free(path);
    return rc;
}

int ldem_frames_open(ldem_frames *f, const char *dir, const ldem_world *w, int encoding,
                     int with_contacts, uint64_t nprevious, const double *previous_times,
                     ldem_err *err)
{
    memset(f, 0, sizeof *f);
    if (!dir || !*dir)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty output folder name");
    if (!ldem_vtk_encoding_name(encoding))
        return ldem_err_set(err, LDEM_ERR_USAGE, dir, 0,
                            "unknown VTK encoding %d (expected ascii, raw or zlib)", encoding);
    if (nprevious > 0 && !previous_times)
        return ldem_err_set(err, LDEM_ERR_USAGE, dir, 0,
                            "%" PRIu64 " earlier frames but no times given", nprevious);
    for (uint64_t k = 0; k < nprevious; k++)
        if (!isfinite(previous_times[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, dir, 0,
                                "time of earlier frame %" PRIu64 " is not finite", k);
    f->dir = strdup(dir);
    if (!f->dir)
        return ldem_err_set(err, LDEM_ERR_NOMEM, dir, 0, "out of memory");
    f->encoding = encoding;
    f->with_contacts = with_contacts;
    char *frames_dir = path_printf("%s/frames", dir);
    int rc = frames_dir ? ldem_output_mkdir(frames_dir, err)
                        : ldem_err_set(err, LDEM_ERR_NOMEM, dir, 0, "out of memory");
    free(frames_dir);
    if (rc == LDEM_OK)
        rc = reserve_times(f, nprevious, err);
    for (int part = 0; part < NPARTS && rc == LDEM_OK; part++)
        rc = open_part(f, part, world_has_part(w, part, with_contacts), nprevious, previous_times,
                       err);
    if (rc) {
        ldem_frames_close(f);
        return rc;
    }
    if (nprevious)
        memcpy(f->times, previous_times, (size_t)nprevious * sizeof *f->times);
    f->count = nprevious;
    return LDEM_OK;
}

/* Refuse a world whose indices point nowhere before any file of the frame is written: such a
 * world is a bug upstream, and a half-written frame would help nobody find it. */
static int check_world(const ldem_frames *f, const ldem_world *w, ldem_err *err)
{
    if (!isfinite(w->t))
        return ldem_err_set(err, LDEM_ERR_INPUT, f->dir, 0, "frame time %g is not finite", w->t);
    for (size_t i = 0; i < w->bodies.count; i++)
        if (w->bodies.kind[i] == LDEM_SHAPE_LSET && w->bodies.shape[i] >= w->nshapes)
            return ldem_err_set(err, LDEM_ERR_INTERNAL, f->dir, 0,
                                "body %zu refers to shape %" PRIu32 " of %zu", i,
                                w->bodies.shape[i], w->nshapes);
    for (size_t k = 0; k < w->ncontacts; k++)
        if (!contact_valid(w, &w->contacts[k]))
            return ldem_err_set(err, LDEM_ERR_INTERNAL, f->dir, 0,
                                "contact %zu (%" PRIu32 ", %#" PRIx32 ", law %" PRIu32
                                ") refers to a body, wall or law that does not exist",
                                k, w->contacts[k].i, w->contacts[k].j, w->contacts[k].law);
    return LDEM_OK;
}

int ldem_frames_write(ldem_frames *f, const ldem_world *w, ldem_err *err)
{
    if (!f || !f->dir)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "frames written before opening");
    int rc = check_world(f, w, err);
    /* Room for the time first: once files are written, nothing may fail for lack of memory. */
    if (rc == LDEM_OK)
        rc = reserve_times(f, f->count + 1, err);
    for (int part = 0; part < NPARTS && rc == LDEM_OK; part++) {
        ldem_pvd *pvd = *part_series(f, part);
        if (!pvd)
            continue;
        char *path = frame_path(f->dir, part, f->count);
        if (!path)
            return ldem_err_set(err, LDEM_ERR_NOMEM, f->dir, 0, "out of memory");
        rc = write_part(part, path, w, f->encoding, err);
        /* A retry after a failure in a later part rewrites this file, which its series
         * already lists. */
        if (rc == LDEM_OK && !(f->pending_parts & 1u << part)) {
            rc = ldem_pvd_add(pvd, w->t, path, err);
            if (rc == LDEM_OK)
                f->pending_parts |= 1u << part;
        }
        free(path);
    }
    if (rc)
        return rc;
    f->pending_parts = 0;
    f->times[f->count++] = w->t;
    return LDEM_OK;
}

void ldem_frames_close(ldem_frames *f)
{
    if (!f)
        return;
    for (int part = 0; part < NPARTS; part++)
        ldem_pvd_free(*part_series(f, part));
    free(f->dir);
    free(f->times);
    memset(f, 0, sizeof *f);
}
