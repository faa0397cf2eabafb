/* Scratch directory and sample grid of the VTK writer tests: see vtu_fixtures.h. */
#include "vtu_fixtures.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char tmpdir[64];

void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/ldem_test_vtu_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char sub[PATH_MAX];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                rm_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

void remove_tmpdir(void)
{
    rm_tree(tmpdir);
}

/* tmpdir/name in a static rotating buffer. */
const char *in_tmp(const char *name)
{
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, PATH_MAX, "%s/%s", tmpdir, name);
    return b;
}

int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    if (len)
        *len = (size_t)n;
    return buf;
}

void fixture_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 12; i++) {
        f->points[i][0] = i * 0.1;
        f->points[i][1] = i % 3;
        f->points[i][2] = -i / 7.0;
        f->phi[i] = i - 5.5;
        for (int c = 0; c < 3; c++)
            f->vel[i][c] = i + c / 3.0;
        f->gid[i] = 100 + i;
    }
    static const int64_t conn[] = {11, 0, 1, 0, 1, 2, 0, 1, 2, 3,  0,
                                   1,  2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    static const int64_t off[] = {1, 3, 6, 10, 20, 22};
    static const uint8_t types[] = {LDEM_VTK_VERTEX,          LDEM_VTK_LINE,
                                    LDEM_VTK_TRIANGLE,        LDEM_VTK_TETRA,
                                    LDEM_VTK_QUADRATIC_TETRA, LDEM_VTK_LINE};
    memcpy(f->conn, conn, sizeof conn);
    memcpy(f->offsets, off, sizeof off);
    memcpy(f->types, types, sizeof types);
    for (int c = 0; c < 6; c++)
        f->cell_id[c] = c;
    f->pd[0] = (ldem_vtk_array){"phi", LDEM_VTK_FLOAT64, 1, f->phi};
    f->pd[1] = (ldem_vtk_array){"velocity", LDEM_VTK_FLOAT64, 3, f->vel};
    f->pd[2] = (ldem_vtk_array){"grain_id", LDEM_VTK_INT64, 1, f->gid};
    f->cd[0] = (ldem_vtk_array){"cell_id", LDEM_VTK_INT32, 1, f->cell_id};
    f->g = (ldem_vtu_grid){
        .npoints = 12,
        .points = &f->points[0][0],
        .ncells = 6,
        .connectivity = f->conn,
        .offsets = f->offsets,
        .types = f->types,
        .npoint_data = 3,
        .point_data = f->pd,
        .ncell_data = 1,
        .cell_data = f->cd,
    };
}

const int encodings[] = {LDEM_VTK_ASCII, LDEM_VTK_RAW, LDEM_VTK_ZLIB};
