/* Test support for modefit's FEM readers (fem_fixture.h). */
#include "fem_fixture.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const int FF_TET10_EDGE[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};

/* ------------------------------------------------------------ scratch files -------- */

static char scratch[64];

void ff_scratch_make(void)
{
    strcpy(scratch, "/tmp/modefit_fem_XXXXXX");
    cr_assert_not_null(mkdtemp(scratch));
}

/* Files and one level of subdirectories (include tests make one). */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0 && depth < 2)
            remove_tree(path, depth + 1);
    }
    closedir(d);
    rmdir(dir);
}

void ff_scratch_remove(void)
{
    if (scratch[0])
        remove_tree(scratch, 0);
    scratch[0] = '\0';
}

const char *ff_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, name);
    return buf[k];
}

void ff_write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

void ff_write(const char *path, const char *text)
{
    ff_write_bytes(path, text, strlen(text));
}

char *ff_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    cr_assert_geq(len, 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    if (n)
        *n = (size_t)len;
    return buf;
}

/* ----------------------------------------------------------------- meshes -------- */

long ff_node_number(size_t index)
{
    return 7 * (long)index + 3;
}

static double volume6(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3];
    for (int i = 0; i < 3; i++) {
        u[i] = b[i] - a[i];
        v[i] = c[i] - a[i];
        w[i] = d[i] - a[i];
    }
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

void ff_box_mesh(int nx, int ny, int nz, double h, int order, fe_mesh *m)
{
    static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int r = order == FE_TET10 ? 2 : 1;
    int g[3] = {r * nx + 1, r * ny + 1, r * nz + 1};
    memset(m, 0, sizeof *m);
    m->order = order;
    m->nnodes = (size_t)g[0] * (size_t)g[1] * (size_t)g[2];
    m->ntets = 6 * (size_t)nx * (size_t)ny * (size_t)nz;
    m->xyz = malloc(3 * m->nnodes * sizeof *m->xyz);
    m->node_id = malloc(m->nnodes * sizeof *m->node_id);
    m->tet = malloc((size_t)order * m->ntets * sizeof *m->tet);
    cr_assert(m->xyz && m->node_id && m->tet);
    for (int iz = 0; iz < g[2]; iz++)
        for (int iy = 0; iy < g[1]; iy++)
            for (int ix = 0; ix < g[0]; ix++) {
                size_t i = (size_t)ix + (size_t)g[0] * ((size_t)iy + (size_t)g[1] * (size_t)iz);
                m->xyz[3 * i] = ix * h / r;
                m->xyz[3 * i + 1] = iy * h / r;
                m->xyz[3 * i + 2] = iz * h / r;
                m->node_id[i] = ff_node_number(i);
            }
    size_t t = 0;
    for (int cz = 0; cz < nz; cz++)
        for (int cy = 0; cy < ny; cy++)
            for (int cx = 0; cx < nx; cx++)
                for (int p = 0; p < 6; p++) {
                    int c[4][3] = {{r * cx, r * cy, r * cz}};
                    memcpy(c[1], c[0], sizeof c[0]);
                    c[1][PERM[p][0]] += r;
                    memcpy(c[2], c[1], sizeof c[0]);
                    c[2][PERM[p][1]] += r;
                    c[3][0] = c[0][0] + r;
                    c[3][1] = c[0][1] + r;
                    c[3][2] = c[0][2] + r;
                    double x[4][3];
                    for (int k = 0; k < 4; k++)
                        for (int j = 0; j < 3; j++)
                            x[k][j] = c[k][j];
                    if (volume6(x[0], x[1], x[2], x[3]) < 0) {
                        int tmp[3];
                        memcpy(tmp, c[1], sizeof tmp);
                        memcpy(c[1], c[2], sizeof tmp);
                        memcpy(c[2], tmp, sizeof tmp);
                    }
                    int nodes[10][3];
                    memcpy(nodes, c, sizeof c);
                    if (order == FE_TET10)
                        for (int k = 0; k < 6; k++)
                            for (int j = 0; j < 3; j++)
                                nodes[4 + k][j] =
                                    (c[FF_TET10_EDGE[k][0]][j] + c[FF_TET10_EDGE[k][1]][j]) / 2;
                    for (int k = 0; k < order; k++)
                        m->tet[(size_t)order * t + (size_t)k] =
                            (size_t)nodes[k][0] +
                            (size_t)g[0] * ((size_t)nodes[k][1] + (size_t)g[1] * (size_t)nodes[k][2]);
                    t++;
                }
}

/* ------------------------------------------------------------------ writers -------- */

void ff_write_inp(const char *path, const fe_mesh *m, int split)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "*HEADING\n box written by fem_fixture.c\n*NODE, NSET=NALL\n");
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(f, "%ld, %.17g, %.17g, %.17g\n", m->node_id[i], m->xyz[3 * i],
                m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
    fprintf(f, "*ELEMENT, TYPE=%s, ELSET=EALL\n", m->order == FE_TET10 ? "C3D10" : "C3D4");
    for (size_t e = 0; e < m->ntets; e++) {
        long num[1 + FE_TET10];
        int n = 1 + m->order;
        num[0] = (long)e + 1;
        for (int k = 0; k < m->order; k++)
            num[1 + k] = m->node_id[m->tet[(size_t)m->order * e + (size_t)k]];
        for (int k = 0; k < n; k++) {
            const char *sep = k + 1 == n ? "\n" : (split && k == 7) ? ",\n" : ", ";
            fprintf(f, "%ld%s", num[k], sep);
        }
    }
    cr_assert_eq(fclose(f), 0);
}

static void frd_line(ff_frd *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void frd_line(ff_frd *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(w->f, fmt, ap);
    va_end(ap);
    fputc('\n', w->f);
    w->line++;
}

void ff_frd_open(ff_frd *w, const char *path, int long_format)
{
    w->f = fopen(path, "w");
    cr_assert_not_null(w->f);
    w->long_format = long_format;
    w->line = 0;
    frd_line(w, "    1C");
    frd_line(w, "    1UUSER          fem_fixture.c");
}

/* " -1" and the node number in I5 or I10. */
static void frd_record_start(ff_frd *w, long id)
{
    if (w->long_format)
        fprintf(w->f, " -1%10ld", id);
    else
        fprintf(w->f, " -1%5ld", id);
}

void ff_frd_nodes(ff_frd *w, const fe_mesh *m)
{
    frd_line(w, "    2C%18s%12zu%37s%1d", "", m->nnodes, "", w->long_format);
    for (size_t i = 0; i < m->nnodes; i++) {
        frd_record_start(w, m->node_id[i]);
        frd_line(w, "%12.5E%12.5E%12.5E", m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
    }
    frd_line(w, " -3");
}

static long result_header(ff_frd *w, const char *name, int ncomps, size_t nrec, double time,
                          int step)
{
    frd_line(w, "    1PSTEP%25d%12d%12d", step, 1, step);
    long header = w->line + 1;
    frd_line(w, "  100CL%5d%12.5E%12zu%20s%2d%5d%10s%2d", 100 + step, time, nrec, "", 0, step,
             "", w->long_format);
    frd_line(w, " -4  %-8s%5d%5d", name, ncomps, 1);
    return header;
}

static void disp_components(ff_frd *w)
{
    frd_line(w, " -5  D1          1    2    1    0");
    frd_line(w, " -5  D2          1    2    2    0");
    frd_line(w, " -5  D3          1    2    3    0");
    frd_line(w, " -5  ALL         1    2    0    0    1ALL");
}

long ff_frd_disp_lines(ff_frd *w, const char *const *records, size_t n, double time, int step)
{
    long header = result_header(w, "DISP", 4, n, time, step);
    disp_components(w);
    for (size_t i = 0; i < n; i++)
        frd_line(w, "%s", records[i]);
    frd_line(w, " -3");
    return header;
}

long ff_frd_disp(ff_frd *w, const fe_mesh *m, const double *u, const unsigned char *skip,
                 long extra_id, double time, int step)
{
    size_t nrec = extra_id > 0 ? 1 : 0;
    for (size_t i = 0; i < m->nnodes; i++)
        nrec += !(skip && skip[i]);
    long header = result_header(w, "DISP", 4, nrec, time, step);
    disp_components(w);
    for (size_t i = 0; i < m->nnodes; i++) {
        if (skip && skip[i])
            continue;
        frd_record_start(w, m->node_id[i]);
        frd_line(w, "%12.5E%12.5E%12.5E", u[3 * i], u[3 * i + 1], u[3 * i + 2]);
    }
    if (extra_id > 0) {
        frd_record_start(w, extra_id);
        frd_line(w, "%12.5E%12.5E%12.5E", u[0], u[1], u[2]);
    }
    frd_line(w, " -3");
    return header;
}

void ff_frd_stress(ff_frd *w, const fe_mesh *m, double time, int step)
{
    static const char *const NAMES[6] = {"SXX", "SYY", "SZZ", "SXY", "SYZ", "SZX"};
    static const int IJ[6][2] = {{1, 1}, {2, 2}, {3, 3}, {1, 2}, {2, 3}, {3, 1}};
    result_header(w, "STRESS", 6, m->nnodes, time, step);
    for (int k = 0; k < 6; k++)
        frd_line(w, " -5  %-8s%5d%5d%5d%5d", NAMES[k], 1, 4, IJ[k][0], IJ[k][1]);
    for (size_t i = 0; i < m->nnodes; i++) {
        frd_record_start(w, m->node_id[i]);
        frd_line(w, "%12.5E%12.5E%12.5E%12.5E%12.5E%12.5E", -1049.99 - (double)i, 1e-13, -2.5,
                 -3e5, 0.0, -7.25e-3);
    }
    frd_line(w, " -3");
}

void ff_frd_close(ff_frd *w, int end_record)
{
    if (end_record)
        frd_line(w, "9999");
    cr_assert_eq(fclose(w->f), 0);
    w->f = NULL;
}

double ff_e125(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%12.5E", v);
    return strtod(buf, NULL);
}

void ff_write_msh22(const char *path, const fe_mesh *m, const char *view, const double *u,
                    int nsteps, long skip_id)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%zu\n", m->nnodes);
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(f, "%ld %.17g %.17g %.17g\n", m->node_id[i], m->xyz[3 * i], m->xyz[3 * i + 1],
                m->xyz[3 * i + 2]);
    fprintf(f, "$EndNodes\n$Elements\n%zu\n", m->ntets);
    /* Gmsh's 10-node tet: edge nodes on 0-1 1-2 2-0 3-0 3-2 3-1 */
    static const int GMSH_OF[10] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
    for (size_t e = 0; e < m->ntets; e++) {
        fprintf(f, "%zu %d 2 1 1", e + 1, m->order == FE_TET10 ? 11 : 4);
        for (int k = 0; k < m->order; k++)
            fprintf(f, " %ld", m->node_id[m->tet[(size_t)m->order * e + (size_t)GMSH_OF[k]]]);
        fprintf(f, "\n");
    }
    fprintf(f, "$EndElements\n");
    for (int s = 0; s < nsteps; s++) {
        size_t n = m->nnodes;
        for (size_t i = 0; i < m->nnodes; i++)
            n -= m->node_id[i] == skip_id;
        fprintf(f, "$NodeData\n1\n\"%s\"\n1\n%.17g\n3\n%d\n3\n%zu\n", view, 0.5 * (s + 1), s,
                n);
        const double *v = u + (size_t)s * 3 * m->nnodes;
        for (size_t i = 0; i < m->nnodes; i++)
            if (m->node_id[i] != skip_id)
                fprintf(f, "%ld %.17g %.17g %.17g\n", m->node_id[i], v[3 * i], v[3 * i + 1],
                    v[3 * i + 2]);
        fprintf(f, "$EndNodeData\n");
    }
    cr_assert_eq(fclose(f), 0);
}

void ff_tet10_shape(const double L[4], double N[10])
{
    for (int i = 0; i < 4; i++)
        N[i] = L[i] * (2 * L[i] - 1);
    for (int k = 0; k < 6; k++)
        N[4 + k] = 4 * L[FF_TET10_EDGE[k][0]] * L[FF_TET10_EDGE[k][1]];
}
