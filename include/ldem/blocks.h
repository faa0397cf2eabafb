/* ldem/blocks.h — which block of a regular grid holds a point: the coarse tables that bound
 * the remap (ldem/modes.h block ranges of Φ, ldem/levelset.h slope ranges) cut their grids
 * into blocks of LDEM_MODES_BLOCK_CELLS cells and look a point's block up per node. */
#ifndef LDEM_BLOCKS_H
#define LDEM_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/vec3.h"

/* Index (x fastest) of the block holding p, for blocks of side 1/scale[a] from origin,
 * dims[a] of them per axis; points outside go to the nearest block (NaN to the first). */
static inline size_t ldem_block_index(const double origin[3], const double scale[3],
                                      const uint32_t dims[3], ldem_vec3 p)
{
    const double x[3] = {p.x, p.y, p.z};
    size_t b = 0;
    for (int a = 2; a >= 0; a--) {
        double t = (x[a] - origin[a]) * scale[a];
        uint32_t last = dims[a] - 1;
        uint32_t i = !(t >= 0.0) ? 0u : t >= (double)last ? last : (uint32_t)t;
        b = b * dims[a] + i;
    }
    return b;
}

#endif
