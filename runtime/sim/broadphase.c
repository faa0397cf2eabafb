/* Candidate pairs from bounding spheres on a uniform cell grid (ldem/sim/broadphase.h).
 *
 * Cells are cubes of side h slightly larger than the largest interaction distance
 * 2 r_max + skin, so two bodies that can interact lie in the same or in adjacent cells.
 * Bodies are counting-sorted by cell (CSR). Each occupied cell then copies its own bodies and
 * those of its 13 "forward" neighbours (half of the 26, one of each opposite pair) into a
 * small contiguous buffer and tests every own body against the bodies after it in that
 * buffer: each pair of bodies is tested exactly once, on streaming memory. The pairs found
 * are finally ordered by (i, j) with a counting sort on i and a short sort of each body's
 * partners, so the list is the same whatever the order in which cells were visited.
 *
 * The dense grid is capped at CELLS_PER_BODY cells per body. A sparse or spread-out set (a
 * single body far away stretches the bounding box) keeps the same cells but stores only the
 * occupied ones, found through a hash table on their integer coordinates; memory is then
 * O(n) whatever the extent, and the search is exactly the same.
 */
#include "ldem/sim/broadphase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase_internal.h"

/* Dense grids hold at most this many cells per body (and at least MIN_CELLS). */
#define CELLS_PER_BODY 8.0
#define MIN_CELLS 64.0
#define MAX_DENSE_CELLS 2147483648.0 /* cell indices are 32-bit */
/* Cells are this much larger than the interaction distance, so that rounding in the cell
 * coordinates (relative 2^-52 of coordinates below COORD_CLAMP = 2^40 cells, i.e. at most
 * 2^-12 of a cell) can never put two interacting bodies two cells apart. */
#define CELL_MARGIN (1.0 + 1.0 / 1024.0)
#define COORD_CLAMP 1099511627776.0
/* Partner lists up to this length are insertion-sorted. */
#define INSERTION_SORT_MAX 64

/* The 13 forward neighbours: (dx, dy, dz) > (0, 0, 0) in lexicographic (dz, dy, dx) order. */
static const int FORWARD[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0}, {-1, -1, 1},
                                   {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1}, {1, 0, 1},
                                   {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};

struct ldem_broadphase_work {
    size_t bodies_capacity;
    int64_t *coord;  /* integer cell coordinates, 3 per body */
    uint32_t *count; /* partners per body i (n + 1, prefix sums after counting) */
    size_t partners_capacity;
    uint32_t *partner; /* j of each pair, grouped by i */
    size_t gather_capacity;
    double *gx, *gy, *gz, *gr; /* bodies of a cell and its forward neighbours */
    uint32_t *gi;
    size_t table_capacity; /* hashed grids: open-addressing table of occupied cells */
    int64_t *table_key;    /* 3 coordinates per slot */
    uint32_t *table_cell;  /* cell id + 1; 0 = empty slot */
    size_t cells_capacity;
    int64_t *cell_coord; /* hashed grids: coordinates of each occupied cell */
};

void ldem_broadphase_free(ldem_broadphase *bp)
{
    ldem__broadphase_ghosts_free(bp->ghosts);
    free(bp->image);
    free(bp->cell_start);
    free(bp->order);
    free(bp->cell_of);
    free(bp->pairs);
    struct ldem_broadphase_work *w = bp->work;
    if (w) {
        free(w->coord);
        free(w->count);
        free(w->partner);
        free(w->gx);
        free(w->gy);
        free(w->gz);
        free(w->gr);
        free(w->gi);
        free(w->table_key);
        free(w->table_cell);
        free(w->cell_coord);
        free(w);
    }
    memset(bp, 0, sizeof *bp);
}

/* Round a requested capacity up (doubling from 16) so repeated growth is amortized. */
static size_t grown(size_t capacity, size_t need)
{
    size_t cap = capacity ? capacity : 16;
    while (cap < need)
        cap = cap > SIZE_MAX / 4 ? need : 2 * cap;
    return cap;
}

int ldem__broadphase_resize(void **p, size_t count, size_t size)
{
    if (count > SIZE_MAX / size)
        return -1;
    size_t bytes = count * size;
    void *q = realloc(*p, bytes ? bytes : 1);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int ldem__broadphase_reserve(void **p, size_t *capacity, size_t need, size_t size)
{
    /* Never leave a reserved array NULL: `array + 0` on a null pointer is undefined, and the
     * callers offset their arrays even when nothing is in them. */
    if (need == 0)
        need = 1;
    if (need <= *capacity)
        return 0;
    size_t cap = grown(*capacity, need);
    if (ldem__broadphase_resize(p, cap, size))
        return -1;
    *capacity = cap;
    return 0;
}

static int check_input(size_t n, const ldem_vec3 *x, const double *r, double skin, ldem_err *err)
{
    if (!isfinite(skin) || skin < 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "neighbour-list skin %g (expected finite and >= 0)", skin);
    if (n > UINT32_MAX / 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0, "%zu bodies (at most %u)", n,
                            UINT32_MAX / 2);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i].x) || !isfinite(x[i].y) || !isfinite(x[i].z))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "body %zu: position (%g, %g, %g) is not finite (the run has "
                                "probably diverged: reduce the time step)",
                                i, x[i].x, x[i].y, x[i].z);
        if (!isfinite(r[i]) || r[i] < 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "body %zu: bounding radius %g (expected finite and >= 0)", i, r[i]);
    }
    return LDEM_OK;
}

/* ---- the grid ---- */

typedef struct grid {
    double lo[3];
    double h;
    int hashed;
    int64_t dims[3]; /* dense grids */
    size_t ncells;   /* dense: all cells; hashed: occupied cells */
    struct ldem_broadphase_work *w;
} grid;

/* Integer cell coordinate along one axis. x ≥ lo, so u ≥ 0 (or +inf when x − lo overflows);
 * clamping is monotone and 1-Lipschitz, so two close bodies stay in adjacent cells. */
static int64_t cell_coord(double x, double lo, double h)
{
    double u = (x - lo) / h;
    return u < COORD_CLAMP ? (int64_t)floor(u) : (int64_t)COORD_CLAMP;
}

static size_t hash_slot(const int64_t c[3], size_t mask)
{
    uint64_t k = (uint64_t)c[0] * UINT64_C(0x9E3779B97F4A7C15) ^
                 (uint64_t)c[1] * UINT64_C(0xC2B2AE3D27D4EB4F) ^
                 (uint64_t)c[2] * UINT64_C(0x165667B19E3779F9);
    /* Avalanche: the mask keeps the low bits, which the products alone leave weak. */
    k ^= k >> 32;
    k *= UINT64_C(0xD6E8FEB86659FD93);
    k ^= k >> 32;
    return (size_t)k & mask;
}

/* Slot of cell c in the table: the one holding it, or the empty one where it belongs. */
static size_t table_find(const struct ldem_broadphase_work *w, const int64_t c[3])
{
    size_t mask = w->table_capacity - 1;
    for (size_t s = hash_slot(c, mask);; s = (s + 1) & mask) {
        const int64_t *k = &w->table_key[3 * s];
        if (!w->table_cell[s] || (k[0] == c[0] && k[1] == c[1] && k[2] == c[2]))
            return s;
    }
}

/* Cell id of the cell at coordinates c, or -1 when it is outside the grid or empty. */
static int64_t cell_id(const grid *g, const int64_t c[3])
{
    if (g->hashed) {
        size_t s = table_find(g->w, c);
        return (int64_t)g->w->table_cell[s] - 1;
    }
    if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= g->dims[0] || c[1] >= g->dims[1] ||
        c[2] >= g->dims[2])
        return -1;
    return c[0] + g->dims[0] * (c[1] + g->dims[1] * c[2]);
}

static void cell_coords_of(const grid *g, size_t id, int64_t c[3])
{
    if (g->hashed) {
        memcpy(c, &g->w->cell_coord[3 * id], 3 * sizeof *c);
        return;
    }
    int64_t k = (int64_t)id;
    c[0] = k % g->dims[0];
    k /= g->dims[0];
    c[1] = k % g->dims[1];
    c[2] = k / g->dims[1];
}

/* Cell side, coordinates of every body, and the choice between dense and hashed cells. */
static void grid_setup(grid *g, size_t n, const ldem_vec3 *x, double cutoff)
{
    double lo[3] = {x[0].x, x[0].y, x[0].z}, hi[3] = {x[0].x, x[0].y, x[0].z};
    for (size_t i = 1; i < n; i++) {
        const double p[3] = {x[i].x, x[i].y, x[i].z};
        for (int a = 0; a < 3; a++) {
            lo[a] = p[a] < lo[a] ? p[a] : lo[a];
            hi[a] = p[a] > hi[a] ? p[a] : hi[a];
        }
    }
    g->h = cutoff * CELL_MARGIN;
    double cells = 1.0;
    for (int a = 0; a < 3; a++) {
        g->lo[a] = lo[a];
        g->dims[a] = cell_coord(hi[a], lo[a], g->h) + 1;
        cells *= (double)g->dims[a];
    }
    for (size_t i = 0; i < n; i++) {
        int64_t *c = &g->w->coord[3 * i];
        c[0] = cell_coord(x[i].x, lo[0], g->h);
        c[1] = cell_coord(x[i].y, lo[1], g->h);
        c[2] = cell_coord(x[i].z, lo[2], g->h);
    }
    double cap = CELLS_PER_BODY * (double)n;
    cap = cap < MIN_CELLS ? MIN_CELLS : cap > MAX_DENSE_CELLS ? MAX_DENSE_CELLS : cap;
    g->hashed = cells > cap;
    g->ncells = g->hashed ? 0 : (size_t)cells;
}

/* Hashed grids: number the occupied cells in order of their first body. */
static int number_occupied_cells(grid *g, size_t n, uint32_t *cell_of)
{
    struct ldem_broadphase_work *w = g->w;
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    if (slots > w->table_capacity) {
        if (ldem__broadphase_resize((void **)&w->table_key, 3 * slots, sizeof *w->table_key) ||
            ldem__broadphase_resize((void **)&w->table_cell, slots, sizeof *w->table_cell))
            return -1;
        w->table_capacity = slots;
    }
    memset(w->table_cell, 0, w->table_capacity * sizeof *w->table_cell);
    if (ldem__broadphase_reserve((void **)&w->cell_coord, &w->cells_capacity, 3 * n,
                                 sizeof *w->cell_coord))
        return -1;
    size_t ncells = 0;
    for (size_t i = 0; i < n; i++) {
        const int64_t *c = &w->coord[3 * i];
        size_t s = table_find(w, c);
        if (!w->table_cell[s]) {
            memcpy(&w->table_key[3 * s], c, 3 * sizeof *c);
            memcpy(&w->cell_coord[3 * ncells], c, 3 * sizeof *c);
            w->table_cell[s] = (uint32_t)++ncells;
        }
        cell_of[i] = w->table_cell[s] - 1;
    }
    g->ncells = ncells;
    return 0;
}

/* Counting sort of the bodies by cell: cell_start (CSR) and order, ascending within a cell. */
static int bin_bodies(ldem_broadphase *bp, grid *g, size_t n)
{
    if (g->hashed) {
        if (number_occupied_cells(g, n, bp->cell_of))
            return -1;
    } else {
        for (size_t i = 0; i < n; i++)
            bp->cell_of[i] = (uint32_t)cell_id(g, &g->w->coord[3 * i]);
    }
    if (ldem__broadphase_reserve((void **)&bp->cell_start, &bp->cells_capacity, g->ncells + 1,
                                 sizeof *bp->cell_start))
        return -1;
    memset(bp->cell_start, 0, (g->ncells + 1) * sizeof *bp->cell_start);
    for (size_t i = 0; i < n; i++)
        bp->cell_start[bp->cell_of[i] + 1]++;
    for (size_t c = 0; c < g->ncells; c++)
        bp->cell_start[c + 1] += bp->cell_start[c];
    /* Place with a running cursor per cell (cell_start[c] borrowed, then restored). */
    for (size_t i = 0; i < n; i++)
        bp->order[bp->cell_start[bp->cell_of[i]]++] = (uint32_t)i;
    for (size_t c = g->ncells; c > 0; c--)
        bp->cell_start[c] = bp->cell_start[c - 1];
    bp->cell_start[0] = 0;
    return 0;
}

static int reserve_bodies(ldem_broadphase *bp, size_t n)
{
    struct ldem_broadphase_work *w = bp->work;
    if (n + 1 <= w->bodies_capacity)
        return 0;
    size_t cap = grown(w->bodies_capacity, n + 1);
    if (ldem__broadphase_resize((void **)&bp->order, cap, sizeof *bp->order) ||
        ldem__broadphase_resize((void **)&bp->cell_of, cap, sizeof *bp->cell_of) ||
        ldem__broadphase_resize((void **)&w->coord, 3 * cap, sizeof *w->coord) ||
        ldem__broadphase_resize((void **)&w->count, cap, sizeof *w->count))
        return -1;
    w->bodies_capacity = bp->order_capacity = cap;
    return 0;
}

/* ---- the search ---- */

static int reserve_gather(struct ldem_broadphase_work *w, size_t need)
{
    if (need <= w->gather_capacity)
        return 0;
    size_t cap = grown(w->gather_capacity, need);
    if (ldem__broadphase_resize((void **)&w->gx, cap, sizeof *w->gx) ||
        ldem__broadphase_resize((void **)&w->gy, cap, sizeof *w->gy) ||
        ldem__broadphase_resize((void **)&w->gz, cap, sizeof *w->gz) ||
        ldem__broadphase_resize((void **)&w->gr, cap, sizeof *w->gr) ||
        ldem__broadphase_resize((void **)&w->gi, cap, sizeof *w->gi))
        return -1;
    w->gather_capacity = cap;
    return 0;
}

/* Append the bodies of cell `id` to the gather buffer at position k; returns the new end. */
static size_t gather_cell(const ldem_broadphase *bp, size_t id, const ldem_vec3 *x, const double *r,
                          size_t k)
{
    struct ldem_broadphase_work *w = bp->work;
    for (uint32_t p = bp->cell_start[id]; p < bp->cell_start[id + 1]; p++) {
        uint32_t b = bp->order[p];
        w->gx[k] = x[b].x;
        w->gy[k] = x[b].y;
        w->gz[k] = x[b].z;
        w->gr[k] = r[b];
        w->gi[k] = b;
        k++;
    }
    return k;
}

/* Every pair with a body of cell `id`: own bodies against the bodies after them in the
 * buffer (the rest of the cell, then the forward neighbours). The predicate is broadphase.h's;
 * the squares and the sum of radii do not depend on which body is called i. */
static int search_cell(ldem_broadphase *bp, const grid *g, size_t id, const ldem_vec3 *x,
                       const double *r, double skin)
{
    struct ldem_broadphase_work *w = bp->work;
    uint32_t own = bp->cell_start[id + 1] - bp->cell_start[id];
    if (!own)
        return 0;
    int64_t c[3];
    cell_coords_of(g, id, c);
    int64_t neighbour[13];
    size_t total = own;
    for (int k = 0; k < 13; k++) {
        int64_t cn[3] = {c[0] + FORWARD[k][0], c[1] + FORWARD[k][1], c[2] + FORWARD[k][2]};
        neighbour[k] = cell_id(g, cn);
        if (neighbour[k] >= 0)
            total += bp->cell_start[neighbour[k] + 1] - bp->cell_start[neighbour[k]];
    }
    if (reserve_gather(w, total))
        return -1;
    size_t end = gather_cell(bp, id, x, r, 0);
    for (int k = 0; k < 13; k++)
        if (neighbour[k] >= 0)
            end = gather_cell(bp, (size_t)neighbour[k], x, r, end);
    /* At most own·(own−1)/2 + own·(total − own) pairs from this cell. */
    size_t most = (size_t)own * (own - 1) / 2 + (size_t)own * (total - own);
    if (ldem__broadphase_reserve((void **)&bp->pairs, &bp->pairs_capacity, bp->npairs + most,
                                 sizeof *bp->pairs))
        return -1;
    const double *gx = w->gx, *gy = w->gy, *gz = w->gz, *gr = w->gr;
    const uint32_t *gi = w->gi;
    uint64_t *out = bp->pairs + bp->npairs;
    size_t found = 0;
    for (size_t a = 0; a < own; a++) {
        const double xa = gx[a], ya = gy[a], za = gz[a], ra = gr[a];
        const uint32_t ia = gi[a];
        /* Branch-free append: the key is always stored, the count advances only on a hit
         * (few candidates are hits, and a mispredicted branch per hit costs more). */
        for (size_t b = a + 1; b < end; b++) {
            double dx = gx[b] - xa, dy = gy[b] - ya, dz = gz[b] - za;
            double d2 = (dx * dx + dy * dy) + dz * dz;
            double reach = (ra + gr[b]) + skin;
            uint32_t ib = gi[b];
            out[found] = ia < ib ? ldem_pair_key(ia, ib) : ldem_pair_key(ib, ia);
            found += d2 < reach * reach;
        }
    }
    bp->npairs += found;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t u = *(const uint32_t *)a, v = *(const uint32_t *)b;
    return (u > v) - (u < v);
}

static void sort_partners(uint32_t *a, size_t k)
{
    if (k > INSERTION_SORT_MAX) {
        qsort(a, k, sizeof *a, cmp_u32);
        return;
    }
    for (size_t m = 1; m < k; m++) {
        uint32_t v = a[m];
        size_t p = m;
        for (; p > 0 && a[p - 1] > v; p--)
            a[p] = a[p - 1];
        a[p] = v;
    }
}

/* Order bp->pairs by (i, j): counting sort on i, then each body's few partners. */
static int sort_pairs(ldem_broadphase *bp, size_t n)
{
    struct ldem_broadphase_work *w = bp->work;
    if (ldem__broadphase_reserve((void **)&w->partner, &w->partners_capacity, bp->npairs,
                                 sizeof *w->partner))
        return -1;
    uint32_t *count = w->count;
    memset(count, 0, (n + 1) * sizeof *count);
    for (size_t k = 0; k < bp->npairs; k++)
        count[ldem_pair_i(bp->pairs[k]) + 1]++;
    for (size_t i = 0; i < n; i++)
        count[i + 1] += count[i];
    for (size_t k = 0; k < bp->npairs; k++)
        w->partner[count[ldem_pair_i(bp->pairs[k])]++] = ldem_pair_j(bp->pairs[k]);
    /* count[i] is now the end of i's partners, i.e. the start of i + 1's. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t start = k, stop = count[i];
        sort_partners(w->partner + start, stop - start);
        for (; k < stop; k++)
            bp->pairs[k] = ldem_pair_key((uint32_t)i, w->partner[k]);
    }
    return 0;
}

int ldem_broadphase_pairs(ldem_broadphase *bp, size_t n, const ldem_vec3 *x, const double *r,
                          double skin, ldem_err *err)
{
    bp->npairs = 0;
    int rc = check_input(n, x, r, skin, err);
    if (rc)
        return rc;
    double rmax = 0;
    for (size_t i = 0; i < n; i++)
        rmax = r[i] > rmax ? r[i] : rmax;
    /* Every tested reach (r_i + r_j) + skin is ≤ this, rounding being monotone. */
    double cutoff = (rmax + rmax) + skin;
    if (n < 2 || !(cutoff > 0))
        return LDEM_OK; /* nothing is strictly closer than a reach of 0 */
    if (!bp->work && !(bp->work = calloc(1, sizeof *bp->work)))
        goto nomem;
    if (reserve_bodies(bp, n))
        goto nomem;
    grid g = {.w = bp->work};
    grid_setup(&g, n, x, cutoff);
    if (bin_bodies(bp, &g, n))
        goto nomem;
    bp->ncells = g.ncells;
    bp->hashed = g.hashed;
    for (size_t id = 0; id < g.ncells; id++)
        if (search_cell(bp, &g, id, x, r, skin))
            goto nomem;
    if (sort_pairs(bp, n))
        goto nomem;
    return LDEM_OK;
nomem:
    bp->npairs = 0;
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                        "out of memory in the broad phase (%zu bodies)", n);
}
