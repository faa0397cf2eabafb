/* Private to runtime/contact: the Jäger law's checkpoint form (law_hertz_jager_history.c),
 * for its ops table (law_hertz_jager.c). docs/checkpoint.md has the layout. */
#ifndef LDEM_CONTACT_LAW_HERTZ_JAGER_H
#define LDEM_CONTACT_LAW_HERTZ_JAGER_H

#include "ldem/contact/jager.h"
#include "ldem/contact/law.h"

ldem_jager_params ldem__jager_params_of(const ldem_pair_law *law, const ldem_elastic_pair *pair);

void ldem__jager_save(const void *state, double v[LDEM_LAW_SAVED_VALUES]);
void ldem__jager_load(void *state, const double v[LDEM_LAW_SAVED_VALUES]);
void ldem__jager_save_extra(const void *state, double v[LDEM_LAW_EXTRA_VALUES]);
int ldem__jager_check_extra(const double v[LDEM_LAW_EXTRA_VALUES]);
void ldem__jager_load_extra(void *state, const double v[LDEM_LAW_EXTRA_VALUES]);
int ldem__jager_history_export(const ldem_law_env *env, const void *state, ldem_law_cell *cells,
                               ldem_err *err);
int ldem__jager_history_check(const ldem_pair_law *law, const void *state, uint32_t q,
                              const ldem_law_cell *cell, double above, int strict, char *why,
                              size_t why_size);
int ldem__jager_history_import(const ldem_law_env *env, void *state, const ldem_law_cell *cells,
                               uint32_t n, uint32_t held);

#endif
