/* Private to runtime/contact: what the Hertz-based laws share (law_frictionless.c,
 * law_hertz_jager.c, law_hertz_mindlin.c). */
#ifndef LDEM_CONTACT_LAW_HERTZ_H
#define LDEM_CONTACT_LAW_HERTZ_H

#include "ldem/contact/law.h"

/* Rayleigh-wave time of a sphere of radius R in the pair's nominal material (Li, Xu &
 * Thornton 2005): the critical step of Hertz contacts. */
double ldem__law_rayleigh_time(const ldem_pair_law *law, const ldem_law_grain *g, int *by_mass);

/* μ = 0 turns a Hertz friction law into frictionless (its tangential force is then zero). */
const ldem_law_ops *ldem__law_hertz_resolve(const ldem_pair_law *law);

#endif
