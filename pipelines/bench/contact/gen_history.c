/* gen_history: a long, quasi-static, random 3-D contact history for the contact-law benchmark.
 *
 *   gen_history [--steps N] [--seed S] [-o FILE]
 *
 * Writes one state a line, "d sx sy": the total normal approach and the total tangential
 * displacement of one contact of two glass-like spheres, as a DEM contact sees them in a slowly
 * deformed, densely packed assembly (Kuhn's biaxial test, sec. 4.2). The history is smooth and
 * band-limited, and the contact stays closed throughout:
 *
 *   d(t)  = d_m (1 + sum_i a_i sin(2 pi t/P_i + phi_i)) + noise: a few slow normal cycles
 *           around a mean approach d_m = 1 um, of peak amplitude 0.45 d_m (so d > 0.3 d_m);
 *   s(t)  = a 2-D displacement that wanders, the sum of three slow sinusoids per component with
 *           random phases and an amplitude of about 0.6 mu kappa d_m, plus small noise.
 *
 * The tangential periods are longer than the normal ones. Most steps of a rising normal force
 * are then elastic and push a history cell, as in a slowly compressed assembly. Every few
 * normal cycles the tangential drift outruns the normal one and the contact partly slips.
 * "Small noise" is a per-step random walk increment, much smaller than the per-step drift.
 *
 * Deterministic: splitmix64 seeded by --seed, and the same libm on one machine. The header
 * records the pair and the parameters; bench_contact reads the pair from it.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The pair (bench_contact reads it from the header line). Glass-like, as in jager-md17. */
static const double E = 70e9, NU = 0.25, MU = 0.3, R1 = 5e-3, R2 = 3e-3;

static uint64_t rng_state;

static uint64_t splitmix64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(void)
{
    return (double)(splitmix64() >> 11) * 0x1.0p-53;
}

/* Uniform in [-1, 1). */
static double symmetric(void)
{
    return 2 * uniform() - 1;
}

static long parse_long(const char *opt, const char *arg)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno || v < 1) {
        fprintf(stderr, "gen_history: error: %s: '%s' is not a positive integer\n", opt, arg);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long steps = 100000, seed = 20110101;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = parse_long("--steps", argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = parse_long("--seed", argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "usage: gen_history [--steps N] [--seed S] [-o FILE]\n");
            return 2;
        }
    }
    rng_state = (uint64_t)seed;

    const double kappa = (2 - NU) / (2 * (1 - NU));
    const double dm = 1e-6;                 /* mean approach */
    const double sbar = MU * kappa * dm;    /* Cattaneo-Mindlin slip distance at d_m */

    /* Normal: four modes with periods in steps and relative amplitudes (sum 0.45). */
    enum { ND = 4, NS = 3 };
    const double d_period[ND] = {24000, 9100, 3700, 1900};
    const double d_amp[ND] = {0.20, 0.12, 0.08, 0.05};
    /* Tangential: three modes per component, slower than the normal ones. */
    const double s_period[NS] = {61000, 29000, 13000};
    const double s_amp[NS] = {0.35, 0.2, 0.08}; /* in units of sbar, per component */
    double d_phase[ND], sx_phase[NS], sy_phase[NS];
    for (int i = 0; i < ND; i++)
        d_phase[i] = 2 * PI * uniform();
    for (int i = 0; i < NS; i++) {
        sx_phase[i] = 2 * PI * uniform();
        sy_phase[i] = 2 * PI * uniform();
    }
    /* Noise: random-walk increments per step, small against the per-step drift (the normal
     * drift is ~2 pi 0.2 d_m/24000 = 5e-5 d_m a step). */
    const double d_noise = 2e-6 * dm, s_noise = 2e-6 * sbar;

    FILE *fp = out ? fopen(out, "w") : stdout;
    if (!fp) {
        fprintf(stderr, "gen_history: error: %s: %s\n", out, strerror(errno));
        return 1;
    }
    fprintf(fp, "# ldem contact-law benchmark history: %ld quasi-static 3-D steps, seed %ld\n",
            steps, seed);
    fprintf(fp, "# pair E=%.17g nu=%.17g mu=%.17g R1=%.17g R2=%.17g\n", E, NU, MU, R1, R2);
    fprintf(fp, "# d_m=%g s_bar=mu*kappa*d_m=%.6g; columns: d sx sy (states from (0,0,0))\n", dm,
            sbar);
    double wd = 0, wx = 0, wy = 0; /* the noise random walks */
    /* s(0) is an offset of the contact frame: subtract it so the first touch is normal. */
    double sx0 = 0, sy0 = 0;
    for (int i = 0; i < NS; i++) {
        sx0 += s_amp[i] * sin(sx_phase[i]);
        sy0 += s_amp[i] * sin(sy_phase[i]);
    }
    for (long k = 0; k < steps; k++) {
        double t = (double)k, d = 1, sx = -sx0, sy = -sy0;
        for (int i = 0; i < ND; i++)
            d += d_amp[i] * sin(2 * PI * t / d_period[i] + d_phase[i]);
        for (int i = 0; i < NS; i++) {
            sx += s_amp[i] * sin(2 * PI * t / s_period[i] + sx_phase[i]);
            sy += s_amp[i] * sin(2 * PI * t / s_period[i] + sy_phase[i]);
        }
        wd += d_noise * symmetric();
        wx += s_noise * symmetric();
        wy += s_noise * symmetric();
        fprintf(fp, "%.17g\t%.17g\t%.17g\n", dm * d + wd, sbar * sx + wx, sbar * sy + wy);
    }
    if (out ? fclose(fp) != 0 : fflush(fp) != 0) {
        fprintf(stderr, "gen_history: error: writing %s failed\n", out ? out : "stdout");
        return 1;
    }
    return 0;
}
