/* Guards of the contact-law registry (ldem/contact/law.h): what the runtime relies on of
 * every registered law — unique names and checkpoint ids, a state that fits the contact
 * record, the ops its kind needs, parameter tables within bounds, history ops all or none —
 * and the mixing of two materials against its closed forms. The laws' physics is validated
 * by each law's own tests. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ldem/contact/laws.h"

Test(laws, registry_is_consistent)
{
    size_t n;
    const ldem_law_ops *const *laws = ldem_laws(&n);
    cr_assert_geq(n, 5);
    cr_assert_null(laws[n], "NULL-ended");
    char names[512];
    ldem_law_names(names, sizeof names);
    for (size_t a = 0; a < n; a++) {
        const ldem_law_ops *o = laws[a];
        cr_assert(strstr(names, o->name), "%s listed", o->name);
        cr_assert_eq(ldem_law_find(o->name), o);
        cr_assert_eq(ldem_law_by_id(o->id), o);
        for (size_t b = a + 1; b < n; b++) {
            cr_assert_str_neq(o->name, laws[b]->name);
            cr_assert_neq(o->id, laws[b]->id);
        }
        cr_assert_leq(o->state_size, LDEM_LAW_STATE_BYTES, "%s", o->name);
        cr_assert_leq(o->nparams, LDEM_LAW_MAX_PARAMS, "%s", o->name);
        cr_assert(o->critical_time, "%s", o->name);
        cr_assert(o->state_size ? o->save && o->load : !o->save && !o->load,
                  "%s: checkpoint ops exactly when it keeps a state", o->name);
        if (o->kind == LDEM_LAW_PATCH)
            cr_assert(o->step && o->keep_gap, "%s", o->name);
        else
            cr_assert(o->node_force && o->node_energy && o->node_stiffness &&
                      !(o->flags & LDEM_LAW_NORMAL_DAMPING), "%s", o->name);
        cr_assert_eq(!o->normal_stiffness, !o->normal_energy, "%s: both or neither", o->name);
        int history = o->history_length != NULL;
        cr_assert(history == (o->history_held != NULL) && history == (o->history_head != NULL) &&
                      history == (o->history_release != NULL) &&
                      history == (o->history_export != NULL) &&
                      history == (o->history_check != NULL) &&
                      history == (o->history_import != NULL),
                  "%s: history ops all or none", o->name);
        cr_assert_eq(!o->save_extra, !o->load_extra, "%s", o->name);
        for (size_t k = 0; k < o->nparams; k++) {
            const ldem_law_param *p = &o->params[k];
            cr_assert_eq(ldem_law_param_index(o, p->key), (int)k);
            cr_assert(ldem_law_key_known(p->key));
            cr_assert(isnan(p->fallback) || (p->fallback >= p->min && p->fallback <= p->max),
                      "%s.%s: fallback in range", o->name, p->key);
        }
        /* a zeroed state (a separated contact) saves finite values */
        _Alignas(8) unsigned char state[LDEM_LAW_STATE_BYTES] = {0};
        double v[LDEM_LAW_SAVED_VALUES] = {0};
        if (o->save)
            o->save(state, v);
        for (unsigned q = 0; q < LDEM_LAW_SAVED_VALUES; q++)
            cr_assert(isfinite(v[q]), "%s: saved value %u", o->name, q);
    }
    cr_assert_not_null(ldem_law_default());
    cr_assert_null(ldem_law_find("hertz"));
}

Test(laws, friction_zero_makes_hertz_laws_frictionless)
{
    ldem_elastic_mix e = ldem_elastic_mix_of(1e9, 0.3, 1e9, 0.3);
    cr_assert_eq(ldem_pair_law_make(&ldem_law_hertz_jager, e, 0.0, 0.0, NULL, 0).ops,
                 &ldem_law_frictionless);
    cr_assert_eq(ldem_pair_law_make(&ldem_law_hertz_mindlin, e, 0.0, 0.0, NULL, 0).ops,
                 &ldem_law_frictionless);
    ldem_pair_law j = ldem_pair_law_make(&ldem_law_hertz_jager, e, 0.5, 0.1, NULL, 0);
    cr_assert(j.ops == &ldem_law_hertz_jager && j.mu == 0.5 && j.damping == 0.1 &&
              j.p[LDEM_JAGER_P_BETA] == 0.0, "fallbacks where nothing was given");
    ldem_pair_law l = ldem_pair_law_make(&ldem_law_linear, e, 0.5, 0.1, NULL, 0);
    cr_assert_eq(l.damping, 0.0, "a node law takes no normal damping");
}

/* E* and G* of two materials: 1/E* = Σ (1 − ν²)/E, 1/G* = Σ (1 + ν)(2 − ν)/(2E), written out
 * here independently; one material reproduces hertz.h's one-material constants bit for bit. */
Test(laws, mixing_is_exact_for_both_moduli)
{
    double E1 = 70e9, n1 = 0.25, E2 = 210e9, n2 = 0.3;
    ldem_elastic_mix m = ldem_elastic_mix_of(E1, n1, E2, n2);
    double estar = 1.0 / ((1 - n1 * n1) / E1 + (1 - n2 * n2) / E2);
    double gstar = 1.0 / ((1 + n1) * (2 - n1) / (2 * E1) + (1 + n2) * (2 - n2) / (2 * E2));
    cr_assert_leq(fabs(m.moduli.estar / estar - 1), 1e-15);
    cr_assert_leq(fabs(m.moduli.gstar / gstar - 1), 1e-15);
    ldem_elastic_mix same = ldem_elastic_mix_of(E1, n1, E1, n1);
    ldem_elastic_pair p;
    cr_assert_eq(ldem_elastic_pair_init(&p, E1, n1, 1e-3, 2e-3, NULL), LDEM_OK);
    cr_assert(same.E == E1 && same.nu == n1);
    cr_assert(same.moduli.estar == p.estar && same.moduli.gstar == p.gstar &&
              same.moduli.kappa == p.kappa, "one material: the same bits as hertz.h's");
    /* and the pair built from a mix carries the mix's moduli */
    ldem_elastic_pair q;
    cr_assert_eq(ldem_elastic_pair_init_moduli(&q, m.E, m.nu, &m.moduli, 1e-3, INFINITY, NULL),
                 LDEM_OK);
    cr_assert(q.estar == m.moduli.estar && q.gstar == m.moduli.gstar && q.rstar == 1e-3);
    cr_assert(q.cn == 4.0 / 3.0 * q.estar * sqrt(1e-3));
}
