/* law_frictionless.c — Hertz's normal force alone (ldem/contact/laws.h). */
#include "law_hertz.h"
#include "ldem/contact/laws.h"

static int step(const ldem_pair_law *law, const ldem_law_env *env, void *state, double d1,
                const double ds[2], double *normal, double t[2])
{
    (void)law, (void)state, (void)ds;
    *normal = ldem_hertz_force(env->pair, d1);
    t[0] = t[1] = 0.0;
    return LDEM_OK;
}

static void keep_gap(void *state, double gap)
{
    (void)state, (void)gap;
}

const ldem_law_ops ldem_law_frictionless = {
    .name = "frictionless",
    .id = LDEM_LAW_FRICTIONLESS,
    .kind = LDEM_LAW_PATCH,
    .flags = LDEM_LAW_NORMAL_DAMPING,
    .state_size = 0,
    .step = step,
    .keep_gap = keep_gap,
    .critical_time = ldem__law_rayleigh_time,
};
