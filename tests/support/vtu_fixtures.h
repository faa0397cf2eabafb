/* Fixtures of the VTK writer tests (test_vtu_*.c): a scratch directory per test (created
 * and removed by the suites' .init/.fini) with helpers to look into it, and a small grid
 * holding every cell type in writable storage, so tests can break it one field at a time. */
#ifndef LDEM_TESTS_VTU_FIXTURES_H
#define LDEM_TESTS_VTU_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/vtu.h"

/* The scratch directory of the running test. */
extern char tmpdir[64];
void make_tmpdir(void);
void remove_tmpdir(void);

/* tmpdir/name in a static rotating buffer. */
const char *in_tmp(const char *name);
/* Entries of `dir`, without "." and "..". */
int count_entries(const char *dir);
/* The whole file, NUL-terminated; its length (without the NUL) in *len if not NULL. */
char *slurp(const char *path, size_t *len);

/* A small grid with every cell type, in writable storage so tests can break it. */
typedef struct fixture {
    double points[12][3];
    int64_t conn[32];
    int64_t offsets[6];
    uint8_t types[6];
    double phi[12];
    double vel[12][3];
    int64_t gid[12];
    int32_t cell_id[6];
    ldem_vtk_array pd[3];
    ldem_vtk_array cd[1];
    ldem_vtu_grid g;
} fixture;

void fixture_init(fixture *f);

/* Every encoding, for tests that check all three. */
extern const int encodings[3];

#endif
