/* law_hertz_mindlin.c — Hertz with the incremental Mindlin tangential spring
 * (ldem/contact/mindlin.h) as a contact law (ldem/contact/laws.h). */
#include "law_hertz.h"
#include "ldem/contact/laws.h"
#include "ldem/contact/mindlin.h"

_Static_assert(sizeof(ldem_mindlin_contact) <= LDEM_LAW_STATE_BYTES,
               "the Mindlin state fits a contact record");
_Static_assert(_Alignof(ldem_mindlin_contact) <= 8, "the record's law_state is _Alignas(8)");

static int step(const ldem_pair_law *law, const ldem_law_env *env, void *state, double d1,
                const double ds[2], double *normal, double t[2])
{
    ldem_mindlin_contact *m = state;
    t[0] = t[1] = 0.0;
    if (!(law->mu > 0.0)) {
        *normal = ldem_hertz_force(env->pair, d1);
        return LDEM_OK;
    }
    ldem_mindlin_params mp = {*env->pair, law->mu};
    ldem_mindlin_step(&mp, m, d1, ds);
    *normal = m->n;
    t[0] = m->t[0];
    t[1] = m->t[1];
    return LDEM_OK;
}

static void keep_gap(void *state, double gap)
{
    ((ldem_mindlin_contact *)state)->d = gap;
}

static double stored_tangential(const ldem_pair_law *law, const ldem_law_env *env,
                                const void *state)
{
    if (!(law->mu > 0.0))
        return 0.0;
    ldem_mindlin_params mp = {*env->pair, law->mu};
    return ldem_mindlin_stored_energy(&mp, state);
}

static double dissipated(const void *state)
{
    return ((const ldem_mindlin_contact *)state)->dissipated;
}

static void save(const void *state, double v[LDEM_LAW_SAVED_VALUES])
{
    const ldem_mindlin_contact *m = state;
    v[0] = m->d, v[1] = m->s[0], v[2] = m->s[1], v[3] = m->xi[0], v[4] = m->xi[1];
    v[5] = m->a, v[6] = m->n, v[7] = m->t[0], v[8] = m->t[1], v[9] = m->dissipated;
}

static void load(void *state, const double v[LDEM_LAW_SAVED_VALUES])
{
    ldem_mindlin_contact *m = state;
    m->d = v[0], m->s[0] = v[1], m->s[1] = v[2], m->xi[0] = v[3], m->xi[1] = v[4];
    m->a = v[5], m->n = v[6], m->t[0] = v[7], m->t[1] = v[8], m->dissipated = v[9];
}

const ldem_law_ops ldem_law_hertz_mindlin = {
    .name = "hertz-mindlin",
    .id = LDEM_LAW_HERTZ_MINDLIN,
    .kind = LDEM_LAW_PATCH,
    .flags = LDEM_LAW_FRICTION | LDEM_LAW_NORMAL_DAMPING,
    .state_size = sizeof(ldem_mindlin_contact),
    .resolve = ldem__law_hertz_resolve,
    .step = step,
    .keep_gap = keep_gap,
    .stored_tangential = stored_tangential,
    .dissipated = dissipated,
    .critical_time = ldem__law_rayleigh_time,
    .save = save,
    .load = load,
};
