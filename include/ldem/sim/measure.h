/* ldem/sim/measure.h — what a granular sample is made of, measured from the world's contacts
 * and walls (the probes' `measure: true` columns, docs/scene.md): coordination with and
 * without rattlers, Thornton's mechanical coordination, the fabric tensor, the normal-force
 * statistics, and for a sample in a box of six axis-aligned plane walls its solid fraction
 * and its Love–Weber stress with the wall contacts included. Pure functions of the world.
 */
#ifndef LDEM_SIM_MEASURE_H
#define LDEM_SIM_MEASURE_H

#include "ldem/export.h"

#include <stddef.h>

#include "ldem/sim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_packing_measures {
    double coordination;       /* 2C/N: C touching grain–grain contacts, N free grains */
    double coordination_nr;    /* the same without rattlers (below) and their contacts */
    double mech_coordination;  /* Thornton: (2C − N1)/(N − N0 − N1), N_k grains with k contacts */
    double rattlers;           /* fraction of free grains that are rattlers */
    double fabric[6];          /* (1/C) Σ n⊗n over grain–grain contacts: xx yy zz xy yz zx */
    double fn_mean, fn_std, fn_max; /* |normal force| of touching grain–grain contacts */
    int in_box;                /* the walls make an axis-aligned box: what follows is set */
    double box_volume;
    double solid_fraction;     /* grains' volume inside the box / its volume */
    double stress[6];          /* (1/V)(Σ_gg ℓ⊗f + Σ_gw (p − x_i)⊗f_wall), symmetrized,
                                * compression positive: xx yy zz xy yz zx */
} ldem_packing_measures;

/* Rattlers: grains left with fewer than 2 contacts (grains and walls) once every rattler's
 * contacts are removed, repeatedly (a grain held by one contact carries no load but its
 * weight). */
#define LDEM_RATTLER_CONTACTS 2

/* Whether the world's plane walls bound an axis-aligned box (one wall facing each way of
 * each axis), and its corners now. */
LDEM_API int ldem_walls_box(const ldem_world *w, ldem_vec3 *lo, ldem_vec3 *hi);

/* The measures of the world as it stands (contacts of the last step). */
LDEM_API void ldem_packing_measure(const ldem_world *w, ldem_packing_measures *m);

#ifdef __cplusplus
}
#endif

#endif
