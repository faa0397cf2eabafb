/* law_hooke.c — a linear spring and Coulomb slider at the contact patch (Cundall & Strack
 * 1979; LAMMPS's hooke/history): N = kn d, and an elastic tangential spring of stiffness kt
 * whose force is capped at μN, the spring shortened to the cap when it slips. The worked
 * example of docs/adding-a-law.md: every op a PATCH law needs, in one file.
 *
 * Signs as for every PATCH law: ds is j's material point's move against i's in the contact
 * frame, T has the sign of the spring's stretch (the contact loop applies −T to j). */
#include "ldem/contact/laws.h"

#include <math.h>
#include <string.h>

typedef struct hooke_state {
    double d;          /* approach at the last step; ≤ 0: separated (the gap) */
    double xi[2];      /* the spring's stretch in the contact frame */
    double n;          /* N at the last step */
    double t[2];       /* T at the last step */
    double dissipated; /* Σ μN × slip */
} hooke_state;

_Static_assert(sizeof(hooke_state) <= LDEM_LAW_STATE_BYTES, "hooke's state fits a contact record");
_Static_assert(_Alignof(hooke_state) <= 8, "the record's law_state is _Alignas(8)");

static const ldem_law_param PARAMS[] = {
    [LDEM_HOOKE_P_KN] = {"kn", "normal stiffness (force/length), > 0", NAN, 0.0, INFINITY, 1, 0,
                         NULL, 0},
    [LDEM_HOOKE_P_KT] = {"kt", "tangential stiffness (force/length), >= 0", NAN, 0.0, INFINITY,
                         0, 0, NULL, 0},
};

static int step(const ldem_pair_law *law, const ldem_law_env *env, void *state, double d1,
                const double ds[2], double *normal, double t[2])
{
    (void)env;
    hooke_state *s = state;
    if (!(d1 > 0.0)) {
        double dissipated = s->dissipated;
        *s = (hooke_state){.d = d1, .dissipated = dissipated};
        *normal = t[0] = t[1] = 0.0;
        return LDEM_OK;
    }
    /* a first touch inside the step: only the part of the move after it stretches the spring */
    double share = s->d > 0.0 ? 1.0 : d1 / (d1 - s->d);
    double kt = law->p[LDEM_HOOKE_P_KT], n = law->p[LDEM_HOOKE_P_KN] * d1;
    double xi[2] = {s->xi[0] + share * ds[0], s->xi[1] + share * ds[1]};
    double trial = kt * hypot(xi[0], xi[1]), cap = law->mu * n;
    if (trial > cap) {
        /* slip: the spring shortens to the cap along its own direction */
        double scale = cap / trial;
        s->dissipated += cap * (trial - cap) / kt;
        xi[0] *= scale, xi[1] *= scale;
    }
    s->d = d1;
    s->xi[0] = xi[0], s->xi[1] = xi[1];
    s->n = *normal = n;
    s->t[0] = t[0] = kt * xi[0];
    s->t[1] = t[1] = kt * xi[1];
    return LDEM_OK;
}

static void keep_gap(void *state, double gap)
{
    ((hooke_state *)state)->d = gap;
}

static double normal_stiffness(const ldem_pair_law *law, const ldem_elastic_pair *pair, double d1)
{
    (void)pair, (void)d1;
    return law->p[LDEM_HOOKE_P_KN];
}

static double normal_energy(const ldem_pair_law *law, double d1, double normal)
{
    (void)law;
    return 0.5 * normal * d1;
}

static double stored_tangential(const ldem_pair_law *law, const ldem_law_env *env,
                                const void *state)
{
    (void)env;
    const hooke_state *s = state;
    return 0.5 * law->p[LDEM_HOOKE_P_KT] * (s->xi[0] * s->xi[0] + s->xi[1] * s->xi[1]);
}

static double dissipated(const void *state)
{
    return ((const hooke_state *)state)->dissipated;
}

/* Central differences are stable for ω dt < 2, ω = √(kn/m) of the grain on one contact. */
static double critical_time(const ldem_pair_law *law, const ldem_law_grain *g, int *by_mass)
{
    *by_mass = 1;
    return 2.0 * sqrt(g->mass / law->p[LDEM_HOOKE_P_KN]);
}

static int validate(const ldem_pair_law *law, ldem_err *err)
{
    if (law->p[LDEM_HOOKE_P_KT] > 0.0 || law->mu == 0.0)
        return LDEM_OK;
    return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                        "kt must be > 0 when friction is (a slider needs a spring)");
}

static void save(const void *state, double v[LDEM_LAW_SAVED_VALUES])
{
    const hooke_state *s = state;
    memset(v, 0, LDEM_LAW_SAVED_VALUES * sizeof *v);
    v[0] = s->d, v[1] = s->xi[0], v[2] = s->xi[1], v[3] = s->n, v[4] = s->t[0];
    v[5] = s->t[1], v[6] = s->dissipated;
}

static void load(void *state, const double v[LDEM_LAW_SAVED_VALUES])
{
    hooke_state *s = state;
    *s = (hooke_state){v[0], {v[1], v[2]}, v[3], {v[4], v[5]}, v[6]};
}

const ldem_law_ops ldem_law_hooke = {
    .name = "hooke",
    .id = LDEM_LAW_HOOKE,
    .kind = LDEM_LAW_PATCH,
    .flags = LDEM_LAW_FRICTION | LDEM_LAW_NORMAL_DAMPING,
    .params = PARAMS,
    .nparams = sizeof PARAMS / sizeof *PARAMS,
    .state_size = sizeof(hooke_state),
    .step = step,
    .keep_gap = keep_gap,
    .normal_stiffness = normal_stiffness,
    .normal_energy = normal_energy,
    .stored_tangential = stored_tangential,
    .dissipated = dissipated,
    .critical_time = critical_time,
    .validate = validate,
    .save = save,
    .load = load,
};
