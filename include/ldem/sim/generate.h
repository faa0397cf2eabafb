/* ldem/sim/generate.h — random non-overlapping placement of grains in a region (the scene's
 * `grains: - generate:` entry, docs/scene.md), as YADE's makeCloud does: sizes drawn from a
 * distribution by number or by mass, a mix of shapes by fraction, uniform random positions
 * and orientations, each grain tried until it touches nothing already placed. Spheres are
 * tested exactly; level-set grains by their true shapes (bounding spheres first, then each
 * surface node against the other's level set, both ways). Seeded: the same spec gives the
 * same grains, bit for bit, on every machine.
 */
#ifndef LDEM_SIM_GENERATE_H
#define LDEM_SIM_GENERATE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/sim/narrowphase.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ldem_gen_size_kind {
    LDEM_GEN_SIZE_FIXED = 0,     /* the shape's own size */
    LDEM_GEN_SIZE_UNIFORM = 1,   /* diameters uniform in [lo, hi] */
    LDEM_GEN_SIZE_LOGNORMAL = 2, /* ln d normal: median, sigma; truncated to [lo, hi] */
    LDEM_GEN_SIZE_SIEVE = 3      /* a cumulative table: d[k], fraction passing p[k] in [0, 1] */
};

/* Sphere diameters. by_mass: the distribution gives mass (volume) fractions, as sieve curves
 * do; the diameters drawn are then the number distribution that has them. */
typedef struct ldem_gen_sizes {
    int kind;
    int by_mass;
    double lo, hi;             /* uniform bounds; lognormal truncation (hi = INFINITY: none) */
    double median, sigma;      /* lognormal */
    size_t ntable;             /* sieve: ≥ 2 points, d increasing, p non-decreasing 0 → 1 */
    const double *table_d, *table_p;
} ldem_gen_sizes;

/* One shape of the mix: a sphere (nodes NULL) of the drawn size or `radius` when the sizes
 * are FIXED, or a level-set grain (lset, nodes in its body frame, bounding radius). */
typedef struct ldem_gen_shape {
    double radius;             /* sphere: the fixed radius; level set: the bounding radius */
    const ldem_lset *lset;     /* NULL for a sphere */
    const ldem_nodes *nodes;
    double volume;             /* level set: its volume */
    double fraction;           /* its share of the mix (by number or by mass, as sizes) */
} ldem_gen_shape;

enum ldem_gen_region_kind { LDEM_GEN_BOX = 0, LDEM_GEN_CYLINDER = 1 };

typedef struct ldem_gen_region {
    int kind;
    ldem_vec3 lo, hi;          /* box */
    ldem_vec3 base, axis;      /* cylinder: the centre of its base face, unit axis */
    double radius, height;
} ldem_gen_region;

/* A grain in space: placed ones and the obstacles they must not touch. */
typedef struct ldem_gen_grain {
    ldem_vec3 x;
    ldem_quat q;
    double radius;             /* sphere radius, or a level-set grain's bounding radius */
    const ldem_gen_shape *shape; /* NULL: a sphere of `radius` */
    uint32_t slot;             /* index of its shape in the mix (placed grains) */
} ldem_gen_grain;

typedef struct ldem_gen_spec {
    ldem_gen_region region;
    uint64_t count;            /* grains to place, or 0 ... */
    double solid_fraction;     /* ... the solid fraction of the region to reach */
    ldem_gen_sizes sizes;
    size_t nshapes;
    const ldem_gen_shape *shapes;
    uint64_t seed;
    uint64_t attempts;         /* positions tried per grain before giving up */
    size_t nwalls;             /* walls every grain must clear (their initial pose) */
    const ldem_wall_geom *walls;
    uint64_t max_grains;       /* more grains than this to draw (the memory budget): fail
                                * before placing; 0: no limit */
} ldem_gen_spec;

/* Place the grains of `spec` clear of each other, of the `nobstacles` obstacles and of the
 * spec's walls. On success *out (malloc'd, free it) holds *n grains, largest first. Fails
 * with a message in `why` (a grain that found no room after spec->attempts positions, out
 * of memory): returns 1 when the region is too full, 2 out of memory, 3 when the draw needs
 * more than spec->max_grains grains, 0 on success. */
LDEM_API int ldem_generate(const ldem_gen_spec *spec, const ldem_gen_grain *obstacles,
                           size_t nobstacles, ldem_gen_grain **out, size_t *n, char *why,
                           size_t why_size);

/* Whether grain g (sphere, or level-set grain by its nodes) reaches behind wall w. */
LDEM_API int ldem_gen_touches_wall(const ldem_wall_geom *w, const ldem_gen_grain *g);

/* The region's volume (for solid_fraction). */
LDEM_API double ldem_gen_region_volume(const ldem_gen_region *r);

/* One diameter of the distribution from uniform draws (the generator's), for tests:
 * ldem_gen_draw_diameter with the spec's sizes. Returns NaN for FIXED. */
LDEM_API double ldem_gen_draw_diameter(const ldem_gen_sizes *s, uint64_t *state);

/* splitmix64 (Steele, Lea & Flood 2014): the scene's seeded generator (lattice jitter,
 * generation), the same numbers on every machine. */
LDEM_API uint64_t ldem_splitmix64(uint64_t *state);

/* A uniform random rotation (Shoemake), from the generator. */
LDEM_API ldem_quat ldem_gen_random_rotation(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif
