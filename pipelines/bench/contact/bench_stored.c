/* bench_stored: the stored energy after every step of a path whose history stack grows long,
 * recomputed over the whole stack (ldem_jager_stored_energy, what contact-path did per row)
 * against the tracker of ldem/contact/jager_stored.h (what it does now). Prints both times,
 * their ratio and the largest relative difference.
 *
 *   bench_stored [--states N] [--seed S]
 *
 * The path: a rising approach with tangential moves inside the elastic cone in random
 * directions, so each step pushes a leg no other merges with, and 2 % of the steps slip and
 * swallow part of the stack (the path of tests/test_contact_jager_stored.c's long_stack). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ldem/contact/jager_stored.h"

static uint64_t rng_state;

static double uniform01(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Run the path; with `t` the tracker gives the energy, else the full walk. */
static double run(const ldem_jager_params *p, long states, uint64_t seed, ldem_jager_stored *t,
                  double *energy, uint32_t *longest)
{
    ldem_history_pool pool;
    ldem_err err;
    if (ldem_history_pool_init(&pool, 64, false, &err)) {
        fprintf(stderr, "bench_stored: %s\n", err.msg);
        exit(1);
    }
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    rng_state = seed;
    double d = 1e-7, s[2] = {0, 0}, t0 = seconds();
    *longest = 0;
    for (long i = 0; i < states; i++) {
        double dd = 2e-11 * (0.5 + uniform01()), angle = 6.283185307179586 * uniform01();
        double step = 0.09 * dd * (uniform01() < 0.02 ? 30 : 1);
        d += dd;
        s[0] += step * cos(angle);
        s[1] += step * sin(angle);
        if (ldem_jager_move_to(p, &pool, &c, d, s) ||
            (t && ldem_jager_stored_update(t, p, &pool, &c))) {
            fprintf(stderr, "bench_stored: out of memory\n");
            exit(1);
        }
        energy[i] = t ? ldem_jager_stored_energy_tracked(t, p, &pool, &c)
                      : ldem_jager_stored_energy(p, &pool, &c);
        if (c.length > *longest)
            *longest = c.length;
    }
    double elapsed = seconds() - t0;
    ldem_jager_release(&pool, &c);
    ldem_history_pool_free(&pool);
    return elapsed;
}

int main(int argc, char **argv)
{
    long states = 50000;
    uint64_t seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--states"))
            states = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
    }
    if (states < 1) {
        fprintf(stderr, "usage: bench_stored [--states N] [--seed S]\n");
        return 2;
    }
    ldem_elastic_pair pair;
    ldem_jager_params p;
    ldem_err err;
    if (ldem_elastic_pair_init(&pair, 70e9, 0.25, 5e-3, 3e-3, &err) ||
        ldem_jager_params_init(&p, &pair, 0.3, 0, &err)) {
        fprintf(stderr, "bench_stored: %s\n", err.msg);
        return 1;
    }
    double *full = malloc((size_t)states * sizeof *full);
    double *tracked = malloc((size_t)states * sizeof *tracked);
    if (!full || !tracked)
        return 1;
    uint32_t longest_full, longest_tracked;
    ldem_jager_stored t;
    ldem_jager_stored_init(&t);
    double t_tracked = run(&p, states, seed, &t, tracked, &longest_tracked);
    double t_full = run(&p, states, seed, NULL, full, &longest_full);
    ldem_jager_stored_free(&t);
    double worst = 0;
    for (long i = 0; i < states; i++) {
        double diff = fabs(tracked[i] - full[i]), ref = fabs(full[i]);
        if (ref > 0 && diff / ref > worst)
            worst = diff / ref;
    }
    printf("stored energy after each of %ld states (longest stack %u cells)\n", states,
           longest_full);
    printf("  full walk per state   %9.3f s\n", t_full);
    printf("  tracker               %9.3f s\n", t_tracked);
    printf("  ratio full/tracker    %9.0f\n", t_full / t_tracked);
    printf("  largest relative difference %.2e\n", worst);
    free(full);
    free(tracked);
    return longest_full == longest_tracked && worst < 1e-9 ? 0 : 1;
}
