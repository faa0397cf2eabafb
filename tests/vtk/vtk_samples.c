/* vtk_samples DIR — write a battery of .vtu/.vti/.pvd files with libldem into DIR, plus
 * DIR/manifest.json and DIR/expect/NAME.bin holding what each file must contain, for
 * vtk_readback.py to check with VTK's own readers.
 *
 * Expected arrays are dumped with plain fwrite (host order, declared in the manifest), a
 * path independent of the writer under test, so an encoding bug cannot cancel itself out.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ldem/err.h"
#include "ldem/vtu.h"

#define PI 3.14159265358979323846
#define E_ 2.7182818284590452354

static const char *outdir;
static FILE *manifest;
static int first_entry = 1;

static void die(const char *what, const ldem_err *e)
{
    if (e)
        ldem_err_print(e, "vtk_samples", stderr);
    else
        fprintf(stderr, "vtk_samples: %s\n", what);
    exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory", NULL);
    return p;
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = xcalloc(n, 1);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

static void json_str(const char *s)
{
    fputc('"', manifest);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(manifest, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(manifest, "\\u%04x", (unsigned)*s);
        else
            fputc(*s, manifest);
    }
    fputc('"', manifest);
}

static void json_double(double v)
{
    /* Only finite values go into the manifest (JSON has no nan). */
    fprintf(manifest, "%.17g", v);
}

static size_t type_size(int type)
{
    switch (type) {
    case LDEM_VTK_FLOAT32:
    case LDEM_VTK_INT32: return 4;
    case LDEM_VTK_FLOAT64:
    case LDEM_VTK_INT64: return 8;
    default: return 1;
    }
}

static const char *dtype(int type)
{
    switch (type) {
    case LDEM_VTK_FLOAT32: return "float32";
    case LDEM_VTK_FLOAT64: return "float64";
    case LDEM_VTK_INT32: return "int32";
    case LDEM_VTK_INT64: return "int64";
    default: return "uint8";
    }
}

/* Dump an expected array to expect/<key>.bin and emit its manifest reference. */
static void dump(const char *key, const void *data, size_t bytes)
{
    char rel[256];
    snprintf(rel, sizeof rel, "expect/%s.bin", key);
    char *path = join(outdir, rel);
    FILE *fp = fopen(path, "wb");
    if (!fp || (bytes && fwrite(data, 1, bytes, fp) != bytes) || fclose(fp) != 0)
        die(path, NULL);
    free(path);
    json_str(rel);
}

static void emit_arrays(const char *key, const char *kind, const ldem_vtk_array *a, size_t n,
                        size_t ntuples)
{
    fprintf(manifest, "[");
    for (size_t i = 0; i < n; i++) {
        char k[200];
        snprintf(k, sizeof k, "%s.%s%zu", key, kind, i);
        fprintf(manifest, "%s\n    {\"name\": ", i ? "," : "");
        json_str(a[i].name);
        fprintf(manifest, ", \"dtype\": \"%s\", \"ncomp\": %d, \"bin\": ", dtype(a[i].type),
                a[i].ncomp);
        dump(k, a[i].data, ntuples * (size_t)a[i].ncomp * type_size(a[i].type));
        fprintf(manifest, "}");
    }
    fprintf(manifest, "]");
}

static void begin_entry(void)
{
    fprintf(manifest, "%s\n  {", first_entry ? "" : ",");
    first_entry = 0;
}

static const char *enc_name[] = {"ascii", "raw", "zlib"};

/* Write `g` as DIR/<file> and describe it (expected data under `key`). */
static void emit_vtu(const char *file, const char *key, const ldem_vtu_grid *g, int enc,
                     int min_zlib_blocks)
{
    ldem_err err;
    ldem_err_clear(&err);
    char *path = join(outdir, file);
    if (ldem_vtu_write(path, g, enc, &err))
        die(NULL, &err);
    free(path);
    int64_t nconn = g->ncells ? g->offsets[g->ncells - 1] : 0;
    char k[200];
    begin_entry();
    fprintf(manifest, "\"kind\": \"vtu\", \"file\": ");
    json_str(file);
    fprintf(manifest, ", \"encoding\": \"%s\", \"npoints\": %zu, \"ncells\": %zu,\n   ",
            enc_name[enc], g->npoints, g->ncells);
    if (min_zlib_blocks)
        fprintf(manifest, "\"min_zlib_blocks\": %d, ", min_zlib_blocks);
    fprintf(manifest, "\"points\": ");
    snprintf(k, sizeof k, "%s.points", key);
    dump(k, g->points, g->npoints * 3 * sizeof(double));
    fprintf(manifest, ", \"connectivity\": ");
    snprintf(k, sizeof k, "%s.conn", key);
    dump(k, g->connectivity, (size_t)nconn * sizeof(int64_t));
    fprintf(manifest, ", \"offsets\": ");
    snprintf(k, sizeof k, "%s.offsets", key);
    dump(k, g->offsets, g->ncells * sizeof(int64_t));
    fprintf(manifest, ", \"types\": ");
    snprintf(k, sizeof k, "%s.types", key);
    dump(k, g->types, g->ncells);
    fprintf(manifest, ",\n   \"point_data\": ");
    emit_arrays(key, "pd", g->point_data, g->npoint_data, g->npoints);
    fprintf(manifest, ",\n   \"cell_data\": ");
    emit_arrays(key, "cd", g->cell_data, g->ncell_data, g->ncells);
    fprintf(manifest, "}");
}

static void emit_vti(const char *file, const char *key, const ldem_vti_image *img, int enc,
                     const double center[3], double radius)
{
    ldem_err err;
    ldem_err_clear(&err);
    char *path = join(outdir, file);
    if (ldem_vti_write(path, img, enc, &err))
        die(NULL, &err);
    free(path);
    size_t np = img->dims[0] * img->dims[1] * img->dims[2];
    size_t nc = 1;
    for (int a = 0; a < 3; a++)
        if (img->dims[a] > 1)
            nc *= img->dims[a] - 1;
    begin_entry();
    fprintf(manifest, "\"kind\": \"vti\", \"file\": ");
    json_str(file);
    fprintf(manifest, ", \"encoding\": \"%s\", \"dims\": [%zu, %zu, %zu]", enc_name[enc],
            img->dims[0], img->dims[1], img->dims[2]);
    fprintf(manifest, ", \"origin\": [");
    for (int a = 0; a < 3; a++) {
        json_double(img->origin[a]);
        fprintf(manifest, a < 2 ? ", " : "], \"spacing\": [");
    }
    for (int a = 0; a < 3; a++) {
        json_double(img->spacing[a]);
        fprintf(manifest, a < 2 ? ", " : "], \"sphere_center\": [");
    }
    for (int a = 0; a < 3; a++) {
        json_double(center[a]);
        fprintf(manifest, a < 2 ? ", " : "], \"sphere_radius\": ");
    }
    json_double(radius);
    fprintf(manifest, ",\n   \"point_data\": ");
    emit_arrays(key, "pd", img->point_data, img->npoint_data, np);
    fprintf(manifest, ",\n   \"cell_data\": ");
    emit_arrays(key, "cd", img->cell_data, img->ncell_data, nc);
    fprintf(manifest, "}");
}

/* ---- A: every cell type, every array type, awkward values and names ---- */

static void mixed_samples(void)
{
    enum { NP = 13, NC = 9 };
    double pts[NP][3] = {
        {0, 0, 0},
        {1, 0, 0},
        {0, 1, 0},
        {0, 0, 1},
    };
    /* Quadratic tetra mid-edge nodes in VTK order: (0,1) (1,2) (2,0) (0,3) (1,3) (2,3). */
    static const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    for (int e = 0; e < 6; e++)
        for (int c = 0; c < 3; c++)
            pts[4 + e][c] = 0.5 * (pts[edges[e][0]][c] + pts[edges[e][1]][c]);
    double extra[3][3] = {{1.0 / 3, 2.0 / 3, 1.1}, {2, 0.1, -0.0}, {0.1, PI, 4.9e-324}};
    memcpy(pts[10], extra, sizeof extra);

    int64_t conn[] = {
        11,                               /* vertex */
        0,  10,                           /* line */
        0,  1,  2,                        /* triangle */
        0,  1,  2,  3,                    /* tetra */
        0,  1,  2,  3,  4, 5, 6, 7, 8, 9, /* quadratic tetra */
        12,                               /* vertex */
        3,  11,                           /* line */
        1,  2,  10,                       /* triangle */
        1,  2,  3,  10,                   /* tetra */
    };
    uint8_t types[NC] = {
        LDEM_VTK_VERTEX, LDEM_VTK_LINE, LDEM_VTK_TRIANGLE, LDEM_VTK_TETRA, LDEM_VTK_QUADRATIC_TETRA,
        LDEM_VTK_VERTEX, LDEM_VTK_LINE, LDEM_VTK_TRIANGLE, LDEM_VTK_TETRA};
    int64_t offsets[NC] = {1, 3, 6, 10, 20, 21, 23, 26, 30};

    double phi[NP] = {
        NAN, INFINITY, -0.0, 4.9406564584124654e-324, DBL_MAX, -DBL_MAX, 1.0 / 3, 0.1, -1e-300, PI,
        E_,  1e300,    42};
    double vel[NP][3], stress[NP][6], odd[NP], neg_inf[NP];
    int64_t gid[NP];
    int32_t flag[NP];
    uint8_t tag[NP];
    float phi32[NP] = {NAN,  INFINITY, -0.0f,     1.4e-45f, FLT_MAX, -FLT_MAX, 1.0f / 3,
                       0.1f, FLT_MIN,  (float)PI, 1e-30f,   7,       -7};
    for (int i = 0; i < NP; i++) {
        for (int c = 0; c < 3; c++)
            vel[i][c] = i * 0.1 + c / 7.0;
        for (int c = 0; c < 6; c++)
            stress[i][c] = (i + 1) * (c + 1) * 1.0e5 / 3.0;
        gid[i] = (i % 2 ? -1 : 1) * ((int64_t)i * 1000000000000003LL + i);
        flag[i] = (int32_t)(i * 123456789 % 2000000011) - 1000000000;
        tag[i] = (uint8_t)(i * 37);
        odd[i] = -i / 9.0;
        neg_inf[i] = i % 3 ? -INFINITY : i * 1.5;
    }
    gid[1] = INT64_MIN;
    gid[2] = INT64_MAX;
    flag[3] = INT32_MIN;
    flag[4] = INT32_MAX;
    tag[5] = 255;

    int32_t cid[NC];
    double cval[NC], cvec[NC][3];
    uint8_t ctag[NC];
    for (int c = 0; c < NC; c++) {
        cid[c] = 1000 + c;
        cval[c] = c / 11.0 - 0.5;
        for (int k = 0; k < 3; k++)
            cvec[c][k] = (c + 1) * (k - 1) * 0.3;
        ctag[c] = (uint8_t)(250 + c % 6);
    }

    ldem_vtk_array pd[] = {
        {"phi", LDEM_VTK_FLOAT64, 1, phi},         {"velocity", LDEM_VTK_FLOAT64, 3, vel},
        {"grain_id", LDEM_VTK_INT64, 1, gid},      {"flag", LDEM_VTK_INT32, 1, flag},
        {"tag", LDEM_VTK_UINT8, 1, tag},           {"stress", LDEM_VTK_FLOAT64, 6, stress},
        {"phi32", LDEM_VTK_FLOAT32, 1, phi32},     {"a\"b<c&d>'e", LDEM_VTK_FLOAT64, 1, odd},
        {"neg_inf", LDEM_VTK_FLOAT64, 1, neg_inf}, /* binary encodings only */
    };
    ldem_vtk_array cd[] = {
        {"cell_id", LDEM_VTK_INT32, 1, cid},
        {"cell_val", LDEM_VTK_FLOAT64, 1, cval},
        {"cell_vec", LDEM_VTK_FLOAT64, 3, cvec},
        {"cell_tag", LDEM_VTK_UINT8, 1, ctag},
    };
    ldem_vtu_grid g = {
        .npoints = NP,
        .points = &pts[0][0],
        .ncells = NC,
        .connectivity = conn,
        .offsets = offsets,
        .types = types,
        .npoint_data = sizeof pd / sizeof pd[0],
        .point_data = pd,
        .ncell_data = sizeof cd / sizeof cd[0],
        .cell_data = cd,
    };
    emit_vtu("mixed_raw.vtu", "mixed_raw", &g, LDEM_VTK_RAW, 0);
    emit_vtu("mixed_zlib.vtu", "mixed_zlib", &g, LDEM_VTK_ZLIB, 0);
    g.npoint_data--; /* ascii cannot carry -inf through VTK 9.1 (see ldem/vtu.h) */
    emit_vtu("mixed_ascii.vtu", "mixed_ascii", &g, LDEM_VTK_ASCII, 0);
}

/* ---- A2: degenerate grids: nothing at all, and points without cells ---- */

static void degenerate_samples(void)
{
    static const char *const files[3][2] = {{"empty_ascii.vtu", "cloud_ascii.vtu"},
                                            {"empty_raw.vtu", "cloud_raw.vtu"},
                                            {"empty_zlib.vtu", "cloud_zlib.vtu"}};
    double pts[3][3] = {{1, 2, 3}, {-4, 5e-310, 6}, {0.1, 0.2, 0.3}};
    int32_t id[3] = {7, 8, 9};
    ldem_vtk_array pd[] = {{"id", LDEM_VTK_INT32, 1, id}};
    ldem_vtu_grid empty = {0};
    ldem_vtu_grid cloud = {.npoints = 3, .points = &pts[0][0], .npoint_data = 1, .point_data = pd};
    for (int e = 0; e < 3; e++) {
        emit_vtu(files[e][0], "empty", &empty, e, 0);
        emit_vtu(files[e][1], "cloud", &cloud, e, 0);
    }
}

/* ---- B: a grid large enough for many zlib blocks ---- */

static void big_samples(void)
{
    enum { NX = 60, NY = 50, NZ = 40 };
    size_t np = (size_t)NX * NY * NZ;
    size_t nc = (size_t)(NX - 1) * (NY - 1) * (NZ - 1);
    double *pts = xcalloc(3 * np, sizeof *pts), *dist = xcalloc(np, sizeof *dist);
    double *disp = xcalloc(3 * np, sizeof *disp), *vol = xcalloc(nc, sizeof *vol);
    int64_t *id = xcalloc(np, sizeof *id), *conn = xcalloc(4 * nc, sizeof *conn);
    int64_t *off = xcalloc(nc, sizeof *off);
    int32_t *grain = xcalloc(nc, sizeof *grain);
    uint8_t *types = xcalloc(nc, 1);
#define P(i, j, k) ((size_t)(i) + NX * ((size_t)(j) + NY * (size_t)(k)))
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                size_t p = P(i, j, k);
                double *x = pts + 3 * p;
                x[0] = i * (3.0 / 59) + 1e-3 * sin(j + 0.5 * k);
                x[1] = j * (2.5 / 49) - 1e-3 * cos(i * 0.7);
                x[2] = k / 13.0;
                dist[p] = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - 1.0;
                disp[3 * p] = 1e-4 * x[1];
                disp[3 * p + 1] = -1e-4 * x[0];
                disp[3 * p + 2] = exp(-x[2]);
                id[p] = (int64_t)p * 7919;
            }
    size_t c = 0;
    for (int k = 0; k < NZ - 1; k++)
        for (int j = 0; j < NY - 1; j++)
            for (int i = 0; i < NX - 1; i++, c++) {
                int64_t *q = conn + 4 * c;
                q[0] = (int64_t)P(i, j, k);
                q[1] = (int64_t)P(i + 1, j, k);
                q[2] = (int64_t)P(i, j + 1, k);
                q[3] = (int64_t)P(i, j, k + 1);
                off[c] = (int64_t)(4 * c + 4);
                types[c] = LDEM_VTK_TETRA;
                vol[c] = (double)c / (double)nc;
                grain[c] = (int32_t)(c % 17);
            }
#undef P
    ldem_vtk_array pd[] = {
        {"dist", LDEM_VTK_FLOAT64, 1, dist},
        {"disp", LDEM_VTK_FLOAT64, 3, disp},
        {"id", LDEM_VTK_INT64, 1, id},
    };
    ldem_vtk_array cd[] = {
        {"vol", LDEM_VTK_FLOAT64, 1, vol},
        {"grain", LDEM_VTK_INT32, 1, grain},
    };
    ldem_vtu_grid g = {
        .npoints = np,
        .points = pts,
        .ncells = nc,
        .connectivity = conn,
        .offsets = off,
        .types = types,
        .npoint_data = 3,
        .point_data = pd,
        .ncell_data = 2,
        .cell_data = cd,
    };
    emit_vtu("big_ascii.vtu", "big", &g, LDEM_VTK_ASCII, 0);
    emit_vtu("big_raw.vtu", "big", &g, LDEM_VTK_RAW, 0);
    /* The first payload, "dist", is 120000*8 bytes = 30 blocks of 32 KiB. */
    emit_vtu("big_zlib.vtu", "big", &g, LDEM_VTK_ZLIB, 30);
    free(pts), free(dist), free(disp), free(vol), free(id), free(conn), free(off);
    free(grain), free(types);
}

/* ---- C: a float32 signed-distance field of a sphere ---- */

static void sphere_samples(void)
{
    /* Unequal dims and spacings, so any axis mix-up shows. */
    const size_t dims[3] = {41, 37, 33};
    const double origin[3] = {-1.1, -1.2, -1.3}, spacing[3] = {0.055, 0.065, 0.075};
    const double center[3] = {0.05, -0.03, 0.02}, radius = 0.8;
    size_t np = dims[0] * dims[1] * dims[2];
    size_t nc = (dims[0] - 1) * (dims[1] - 1) * (dims[2] - 1);
    float *phi = xcalloc(np, sizeof *phi);
    double *grad = xcalloc(3 * np, sizeof *grad);
    int32_t *cidx = xcalloc(nc, sizeof *cidx);
    size_t p = 0;
    for (size_t k = 0; k < dims[2]; k++)
        for (size_t j = 0; j < dims[1]; j++)
            for (size_t i = 0; i < dims[0]; i++, p++) {
                double d[3] = {origin[0] + i * spacing[0] - center[0],
                               origin[1] + j * spacing[1] - center[1],
                               origin[2] + k * spacing[2] - center[2]};
                double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                phi[p] = (float)(r - radius);
                for (int a = 0; a < 3; a++)
                    grad[3 * p + a] = r > 0 ? d[a] / r : 0;
            }
    for (size_t c = 0; c < nc; c++)
        cidx[c] = (int32_t)c;
    ldem_vtk_array pd[] = {
        {"phi", LDEM_VTK_FLOAT32, 1, phi},
        {"grad", LDEM_VTK_FLOAT64, 3, grad},
    };
    ldem_vtk_array cd[] = {{"cell_index", LDEM_VTK_INT32, 1, cidx}};
    ldem_vti_image img = {
        .dims = {dims[0], dims[1], dims[2]},
        .origin = {origin[0], origin[1], origin[2]},
        .spacing = {spacing[0], spacing[1], spacing[2]},
        .npoint_data = 2,
        .point_data = pd,
        .ncell_data = 1,
        .cell_data = cd,
    };
    emit_vti("sphere_ascii.vti", "sphere", &img, LDEM_VTK_ASCII, center, radius);
    emit_vti("sphere_raw.vti", "sphere", &img, LDEM_VTK_RAW, center, radius);
    emit_vti("sphere_zlib.vti", "sphere", &img, LDEM_VTK_ZLIB, center, radius);
    free(phi), free(grad), free(cidx);
}

/* ---- D: time series ---- */

enum { NFRAMES = 4 };

static void frame_samples(void)
{
    char *frames = join(outdir, "frames");
    char *sub = join(outdir, "sub");
    if (mkdir(frames, 0777) != 0 || mkdir(sub, 0777) != 0)
        die("cannot create frames/ or sub/", NULL);
    ldem_err err;
    ldem_err_clear(&err);
    char *pvd_path = join(outdir, "run.pvd");
    ldem_pvd *pvd;
    if (ldem_pvd_create(&pvd, pvd_path, &err))
        die(NULL, &err);

    double times[NFRAMES];
    char *paths[NFRAMES];
    for (int f = 0; f < NFRAMES; f++) {
        double pts[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        double u[4];
        for (int i = 0; i < 4; i++) {
            pts[i][0] += 0.25 * f;
            u[i] = f * 0.1 + i;
        }
        int64_t conn[4] = {0, 1, 2, 3}, off[1] = {4};
        uint8_t types[1] = {LDEM_VTK_TETRA};
        int32_t frame_no[1] = {f};
        ldem_vtk_array pd[] = {{"u", LDEM_VTK_FLOAT64, 1, u}};
        ldem_vtk_array cd[] = {{"frame", LDEM_VTK_INT32, 1, frame_no}};
        ldem_vtu_grid g = {.npoints = 4,
                           .points = &pts[0][0],
                           .ncells = 1,
                           .connectivity = conn,
                           .offsets = off,
                           .types = types,
                           .npoint_data = 1,
                           .point_data = pd,
                           .ncell_data = 1,
                           .cell_data = cd};
        char file[64], key[64];
        snprintf(file, sizeof file, "frames/frame_%04d.vtu", f);
        snprintf(key, sizeof key, "frame%d", f);
        emit_vtu(file, key, &g, LDEM_VTK_ZLIB, 0);
        times[f] = f * 0.1; /* 0.30000000000000004 must survive too */
        paths[f] = join(outdir, file);
        if (ldem_pvd_add(pvd, times[f], paths[f], &err))
            die(NULL, &err);
    }
    ldem_pvd_free(pvd);
    free(pvd_path);

    char *sub_pvd = join(outdir, "sub/all.pvd");
    if (ldem_pvd_write(sub_pvd, NFRAMES, times, (const char *const *)paths, &err))
        die(NULL, &err);
    free(sub_pvd);

    static const char *const pvds[2][2] = {{"run.pvd", ""}, {"sub/all.pvd", "../"}};
    for (int v = 0; v < 2; v++) {
        begin_entry();
        fprintf(manifest, "\"kind\": \"pvd\", \"file\": ");
        json_str(pvds[v][0]);
        fprintf(manifest, ", \"frames\": [");
        for (int f = 0; f < NFRAMES; f++) {
            char rel[64], ds[64];
            snprintf(ds, sizeof ds, "frames/frame_%04d.vtu", f);
            snprintf(rel, sizeof rel, "%s%s", pvds[v][1], ds);
            fprintf(manifest, "%s{\"time\": ", f ? ", " : "");
            json_double(times[f]);
            fprintf(manifest, ", \"file\": ");
            json_str(rel);
            fprintf(manifest, ", \"dataset\": ");
            json_str(ds);
            fprintf(manifest, "}");
        }
        fprintf(manifest, "]}");
    }
    for (int f = 0; f < NFRAMES; f++)
        free(paths[f]);
    free(frames);
    free(sub);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: vtk_samples DIR\n");
        return 2;
    }
    outdir = argv[1];
    char *expect = join(outdir, "expect");
    if (mkdir(expect, 0777) != 0)
        die("cannot create DIR/expect", NULL);
    free(expect);
    char *mpath = join(outdir, "manifest.json");
    manifest = fopen(mpath, "w");
    if (!manifest)
        die(mpath, NULL);
    uint16_t one = 1;
    unsigned char low;
    memcpy(&low, &one, 1);
    fprintf(manifest, "{\"byte_order\": \"%s\", \"datasets\": [", low ? "little" : "big");
    mixed_samples();
    degenerate_samples();
    big_samples();
    sphere_samples();
    frame_samples();
    fprintf(manifest, "\n]}\n");
    if (fclose(manifest) != 0)
        die(mpath, NULL);
    free(mpath);
    return 0;
}
