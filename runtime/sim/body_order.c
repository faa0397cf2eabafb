/* The bodies' spatial order (scene key `order: spatial`): grains sorted along a Z-order
 * (Morton) curve through their bounding box, so that grains close in space sit close in the
 * body arrays. A contact reads both its bodies' positions, rotations, radii and masses and
 * adds to both their forces; in input order the partner is anywhere in memory, in spatial
 * order it is near (LAMMPS sorts its atoms the same way, `atom_modify sort`, on by default).
 */
#include "body_order.h"

#include <math.h>
#include <stdlib.h>

/* Bits per axis: 3 × 21 = 63 bits of key, finer than any packing's spacing. */
#define MORTON_BITS 21

typedef struct keyed {
    uint64_t key;
    uint32_t index;
} keyed;

/* The low MORTON_BITS bits of v spread out to every third bit. */
static uint64_t spread3(uint64_t v)
{
    v &= (UINT64_C(1) << MORTON_BITS) - 1;
    v = (v | v << 32) & UINT64_C(0x1F00000000FFFF);
    v = (v | v << 16) & UINT64_C(0x1F0000FF0000FF);
    v = (v | v << 8) & UINT64_C(0x100F00F00F00F00F);
    v = (v | v << 4) & UINT64_C(0x10C30C30C30C30C3);
    v = (v | v << 2) & UINT64_C(0x1249249249249249);
    return v;
}

/* Coordinate a of [lo, lo + span] as a whole number in [0, 2^MORTON_BITS). */
static uint64_t cell_of(double a, double lo, double span)
{
    const double top = (double)((UINT64_C(1) << MORTON_BITS) - 1);
    double f = span > 0.0 ? (a - lo) / span * top : 0.0;
    return f > 0.0 ? (uint64_t)fmin(f, top) : 0;
}

static int by_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index; /* stable: input order breaks ties */
}

int ldem__spatial_order(const ldem_vec3 *x, size_t n, uint32_t *order)
{
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    ldem_vec3 lo = n ? x[0] : ldem_vec3_zero(), hi = lo;
    for (size_t i = 1; i < n; i++) {
        lo = ldem_vec3_make(fmin(lo.x, x[i].x), fmin(lo.y, x[i].y), fmin(lo.z, x[i].z));
        hi = ldem_vec3_make(fmax(hi.x, x[i].x), fmax(hi.y, x[i].y), fmax(hi.z, x[i].z));
    }
    /* one span for the three axes, so that the curve's cells are cubes */
    double span = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    for (size_t i = 0; i < n; i++) {
        k[i].key = spread3(cell_of(x[i].x, lo.x, span)) |
                   spread3(cell_of(x[i].y, lo.y, span)) << 1 |
                   spread3(cell_of(x[i].z, lo.z, span)) << 2;
        k[i].index = (uint32_t)i;
    }
    qsort(k, n, sizeof *k, by_key);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].index;
    free(k);
    return 0;
}
