/* The worked example law of docs/adding-a-law.md (runtime/contact/law_hooke.c), through its
 * ops alone, against closed forms: N = kn d; a stuck spring T = kt s; sliding at μN with the
 * work μN × slip; a reversal from the slip limit T = μN − kt Δ; the first touch's in-contact
 * share of the move; the checkpoint values round trip; the critical step 2√(m/kn). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ldem/contact/laws.h"

static const double KN = 2e5, KT = 5e4, MU = 0.4;

static ldem_pair_law hooke(void)
{
    double p[LDEM_LAW_MAX_PARAMS] = {[LDEM_HOOKE_P_KN] = KN, [LDEM_HOOKE_P_KT] = KT};
    return ldem_pair_law_make(&ldem_law_hooke, ldem_elastic_mix_of(1e9, 0.3, 1e9, 0.3), MU, 0.0,
                              p, 3u);
}

typedef struct run {
    ldem_pair_law law;
    ldem_law_env env;
    _Alignas(8) unsigned char state[LDEM_LAW_STATE_BYTES];
    double normal, t[2];
} run;

static void start(run *r)
{
    memset(r, 0, sizeof *r);
    r->law = hooke();
    r->env = (ldem_law_env){NULL, NULL, 0};
}

static void step(run *r, double d1, double dsx, double dsy)
{
    double ds[2] = {dsx, dsy};
    cr_assert_eq(r->law.ops->step(&r->law, &r->env, r->state, d1, ds, &r->normal, r->t),
                 LDEM_OK);
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert_leq(fabs(got - want), tol * (fabs(want) + 1e-300), "%s: %.17g, expected %.17g",
                  what, got, want);
}

Test(law_hooke, normal_force_and_stuck_spring)
{
    run r;
    start(&r);
    step(&r, 1e-4, 0.0, 0.0);
    near(r.normal, KN * 1e-4, 1e-15, "N");
    /* μN = 8; stay below it: T = kt s */
    double s = 0.0;
    for (int k = 0; k < 10; k++) {
        step(&r, 1e-4, 1e-5, -0.5e-5);
        s += 1e-5;
        near(r.t[0], KT * s, 1e-14, "Tx");
        near(r.t[1], -0.5 * KT * s, 1e-14, "Ty");
    }
    near(r.law.ops->stored_tangential(&r.law, &r.env, r.state),
         0.5 * KT * (s * s + 0.25 * s * s), 1e-14, "stored");
    near(r.law.ops->dissipated(r.state), 0.0, 0.0, "no slip, no work");
}

Test(law_hooke, sliding_and_reversal)
{
    run r;
    start(&r);
    double d = 1e-4, n = KN * d, cap = MU * n, stick = cap / KT;
    step(&r, d, 0.0, 0.0);
    /* monotonic along x to 3× the stick limit in steps of stick/8 */
    double s = 0.0;
    for (int k = 0; k < 24; k++) {
        step(&r, d, stick / 8, 0.0);
        s += stick / 8;
    }
    near(r.t[0], cap, 1e-14, "T at the slip limit");
    near(r.law.ops->dissipated(r.state), cap * (s - stick), 1e-12, "work of sliding");
    /* reverse by Δ < 2 stick: T = μN − kt Δ */
    step(&r, d, -0.5 * stick, 0.0);
    near(r.t[0], cap - KT * 0.5 * stick, 1e-13, "T after a reversal");
    step(&r, d, -2.0 * stick, 0.0);
    near(r.t[0], -cap, 1e-14, "T at the opposite limit");
}

Test(law_hooke, first_touch_counts_only_its_share)
{
    run r;
    start(&r);
    r.law.ops->keep_gap(r.state, -3e-5);
    step(&r, 1e-5, 4e-6, 0.0);
    /* in contact for d1/(d1 − gap) = 1/4 of the step */
    near(r.t[0], KT * 1e-6, 1e-14, "T");
    step(&r, -1e-6, 0.0, 0.0);
    cr_assert(r.normal == 0.0 && r.t[0] == 0.0 && r.t[1] == 0.0, "separated: no force");
}

Test(law_hooke, checkpoint_values_round_trip)
{
    run r, back;
    start(&r);
    start(&back);
    step(&r, 1e-4, 3e-5, 1e-5);
    step(&r, 1e-4, 1e-4, -2e-5);
    double v[LDEM_LAW_SAVED_VALUES];
    r.law.ops->save(r.state, v);
    back.law.ops->load(back.state, v);
    cr_assert(memcmp(r.state, back.state, r.law.ops->state_size) == 0, "state back bit for bit");
}

Test(law_hooke, critical_time_and_validation)
{
    ldem_pair_law law = hooke();
    ldem_law_grain g = {1e-3, 2e-5, 2500.0};
    int by_mass = 0;
    near(law.ops->critical_time(&law, &g, &by_mass), 2.0 * sqrt(2e-5 / KN), 1e-15, "dt");
    cr_assert(by_mass);
    ldem_err err;
    law.p[LDEM_HOOKE_P_KT] = 0.0;
    cr_assert_eq(law.ops->validate(&law, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "kt"), "%s", err.msg);
}
