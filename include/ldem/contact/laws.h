/* ldem/contact/laws.h — the registered contact laws (runtime/contact/law_*.c), for the
 * registry and for tests that build a pair law by hand. The runtime finds laws by name
 * (ldem_law_find) and never names one. */
#ifndef LDEM_CONTACT_LAWS_H
#define LDEM_CONTACT_LAWS_H

#include "ldem/export.h"

#include "ldem/contact/law.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checkpoint ids of the laws (ldem_law_ops.id): stable, never reused. */
enum ldem_law_id {
    LDEM_LAW_FRICTIONLESS = 0,    /* Hertz normal force only */
    LDEM_LAW_HERTZ_JAGER = 1,     /* Hertz + exact Jäger tangential force (Kuhn) */
    LDEM_LAW_HERTZ_MINDLIN = 2,   /* Hertz + incremental Mindlin (LAMMPS mindlin_rescale) */
    LDEM_LAW_LINEAR = 3,          /* Kawamoto's LS-DEM node penalty */
    LDEM_LAW_HOOKE = 4            /* linear spring and Coulomb slider (Cundall & Strack) */
};

LDEM_API extern const ldem_law_ops ldem_law_frictionless;
LDEM_API extern const ldem_law_ops ldem_law_hertz_jager;
LDEM_API extern const ldem_law_ops ldem_law_hertz_mindlin;
LDEM_API extern const ldem_law_ops ldem_law_linear;
LDEM_API extern const ldem_law_ops ldem_law_hooke;

/* Parameter indices in each law's table (ldem_pair_law.p). */
enum { LDEM_JAGER_P_BETA = 0, LDEM_JAGER_P_HISTORY = 1 };
enum { LDEM_LINEAR_P_KN = 0, LDEM_LINEAR_P_KS = 1 };
enum { LDEM_HOOKE_P_KN = 0, LDEM_HOOKE_P_KT = 1 };

#ifdef __cplusplus
}
#endif
#endif
