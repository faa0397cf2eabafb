/* law_hertz_jager.c — Hertz with Kuhn's exact Jäger tangential force (ldem/contact/jager.h)
 * as a contact law (ldem/contact/laws.h). Its history cells live in the world's shared
 * pools; their checkpoint form is law_hertz_jager_history.c's. */
#include "law_hertz.h"
#include "law_hertz_jager.h"
#include "ldem/contact/laws.h"

#include <math.h>
#include <stddef.h>

_Static_assert(sizeof(ldem_jager_contact) == LDEM_LAW_STATE_BYTES,
               "the Jäger state fits a contact record, and is the largest (ldem/contact/law.h)");
_Static_assert(_Alignof(ldem_jager_contact) <= 8, "the record's law_state is _Alignas(8)");
_Static_assert(offsetof(ldem_jager_contact, top) == LDEM_LAW_HISTORY_HEAD_AT,
               "the contact loop prefetches the stack's head from there");

static const char *const HISTORY_WORDS[] = {"compressed", "full", NULL};

static const ldem_law_param PARAMS[] = {
    [LDEM_JAGER_P_BETA] = {"beta", "Kuhn's approximation: merge legs whose slopes differ by "
                           "less than beta mu", 0.0, 0.0, 2.0, 0, 0, NULL, 1},
    [LDEM_JAGER_P_HISTORY] = {"history", "compressed (lossless merging) or full (every leg)",
                              0.0, 0.0, 1.0, 0, 0, HISTORY_WORDS, 1},
};

static int step(const ldem_pair_law *law, const ldem_law_env *env, void *state, double d1,
                const double ds[2], double *normal, double t[2])
{
    ldem_jager_contact *j = state;
    if (!(law->mu > 0.0)) {
        *normal = ldem_hertz_force(env->pair, d1);
        t[0] = t[1] = 0.0;
        return LDEM_OK;
    }
    unsigned flags = (env->track_energy ? LDEM_JAGER_ENERGY : 0u) |
                     (law->p[LDEM_JAGER_P_HISTORY] != 0.0 ? LDEM_JAGER_FULL_HISTORY : 0u);
    return ldem__jager_law_step(env->pair, law->mu, law->p[LDEM_JAGER_P_BETA], flags, env->pool,
                                j, d1, ds, normal, t);
}

/* A first touch inside the next step needs the gap it starts from; a stack still held
 * (released only by the law's clearing step) keeps its own approach. */
static void keep_gap(void *state, double gap)
{
    ldem_jager_contact *j = state;
    if (!j->length)
        j->d = gap;
}

ldem_jager_params ldem__jager_params_of(const ldem_pair_law *law, const ldem_elastic_pair *pair)
{
    return (ldem_jager_params){*pair, law->mu, law->p[LDEM_JAGER_P_BETA], false,
                               law->p[LDEM_JAGER_P_HISTORY] != 0.0};
}

static double stored_tangential(const ldem_pair_law *law, const ldem_law_env *env,
                                const void *state)
{
    if (!(law->mu > 0.0))
        return 0.0;
    ldem_jager_params jp = ldem__jager_params_of(law, env->pair);
    return ldem_jager_stored_energy(&jp, env->pool, state);
}

static double dissipated(const void *state)
{
    return ((const ldem_jager_contact *)state)->dissipated;
}

static uint32_t history_length(const void *state)
{
    return ((const ldem_jager_contact *)state)->length;
}

static uint32_t history_held(const void *state)
{
    return ((const ldem_jager_contact *)state)->nheld;
}

static uint32_t *history_head(void *state)
{
    return &((ldem_jager_contact *)state)->top;
}

static void history_release(ldem_history_pool *pool, void *state)
{
    ldem_jager_release(pool, state);
}

const ldem_law_ops ldem_law_hertz_jager = {
    .name = "hertz-jager",
    .id = LDEM_LAW_HERTZ_JAGER,
    .kind = LDEM_LAW_PATCH,
    .flags = LDEM_LAW_FRICTION | LDEM_LAW_NORMAL_DAMPING,
    .params = PARAMS,
    .nparams = sizeof PARAMS / sizeof *PARAMS,
    .state_size = sizeof(ldem_jager_contact),
    .resolve = ldem__law_hertz_resolve,
    .step = step,
    .keep_gap = keep_gap,
    .stored_tangential = stored_tangential,
    .dissipated = dissipated,
    .critical_time = ldem__law_rayleigh_time,
    .history_length = history_length,
    .history_held = history_held,
    .history_head = history_head,
    .history_release = history_release,
    .history_max_held = LDEM_JAGER_HELD,
    .save = ldem__jager_save,
    .load = ldem__jager_load,
    .save_extra = ldem__jager_save_extra,
    .check_extra = ldem__jager_check_extra,
    .load_extra = ldem__jager_load_extra,
    .history_export = ldem__jager_history_export,
    .history_check = ldem__jager_history_check,
    .history_import = ldem__jager_history_import,
};
