/* law_registry.c — the contact laws a scene can name, and the mixing of two materials
 * (ldem/contact/law.h). Adding a law is one line in LAWS (docs/adding-a-law.md). */
#include "ldem/contact/law.h"
#include "ldem/contact/laws.h"

#include <stdio.h>
#include <string.h>

static const ldem_law_ops *const LAWS[] = {
    &ldem_law_hertz_jager,
    &ldem_law_hertz_mindlin,
    &ldem_law_frictionless,
    &ldem_law_linear,
    &ldem_law_hooke,
    NULL,
};

const ldem_law_ops *const *ldem_laws(size_t *count)
{
    if (count)
        *count = sizeof LAWS / sizeof *LAWS - 1;
    return LAWS;
}

const ldem_law_ops *ldem_law_find(const char *name)
{
    for (const ldem_law_ops *const *l = LAWS; *l; l++)
        if (strcmp((*l)->name, name) == 0)
            return *l;
    return NULL;
}

const ldem_law_ops *ldem_law_by_id(uint32_t id)
{
    for (const ldem_law_ops *const *l = LAWS; *l; l++)
        if ((*l)->id == id)
            return *l;
    return NULL;
}

void ldem_law_names(char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (const ldem_law_ops *const *l = LAWS; *l && used < size; l++) {
        int n = snprintf(buf + used, size - used, "%s%s", l == LAWS ? "" : ", ", (*l)->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

const ldem_law_ops *ldem_law_default(void)
{
    return &ldem_law_hertz_jager;
}

int ldem_law_param_index(const ldem_law_ops *ops, const char *key)
{
    for (size_t k = 0; k < ops->nparams; k++)
        if (strcmp(ops->params[k].key, key) == 0)
            return (int)k;
    return -1;
}

int ldem_law_key_known(const char *key)
{
    for (const ldem_law_ops *const *l = LAWS; *l; l++)
        if (ldem_law_param_index(*l, key) >= 0)
            return 1;
    return 0;
}

ldem_elastic_mix ldem_elastic_mix_of(double E1, double nu1, double E2, double nu2)
{
    ldem_elastic_mix m = {E1, nu1, ldem_elastic_moduli_mix(E1, nu1, E2, nu2)};
    if (E1 == E2 && nu1 == nu2)
        return m;
    /* The nominal one-material (E, ν): the mean ν, and the E whose E* is the pair's. It only
     * names the pair (messages, the Rayleigh estimate of `dt: auto`, the checksum); the
     * laws use the moduli. */
    m.nu = 0.5 * (nu1 + nu2);
    m.E = 2.0 * (1.0 - m.nu * m.nu) * m.moduli.estar;
    return m;
}

ldem_pair_law ldem_pair_law_make(const ldem_law_ops *ops, ldem_elastic_mix elastic, double mu,
                                 double damping, const double *p, unsigned given)
{
    ldem_pair_law law = {.ops = ops, .elastic = elastic};
    law.mu = (ops->flags & LDEM_LAW_FRICTION) ? mu : 0.0;
    law.damping = (ops->flags & LDEM_LAW_NORMAL_DAMPING) ? damping : 0.0;
    for (size_t k = 0; k < ops->nparams && k < LDEM_LAW_MAX_PARAMS; k++)
        law.p[k] = (given >> k) & 1u ? p[k] : ops->params[k].fallback;
    if (ops->resolve)
        law.ops = ops->resolve(&law);
    return law;
}
