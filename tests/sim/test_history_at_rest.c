/* Jäger histories of grains at rest under gravity (issue: a single sphere resting on a floor
 * held 277–1482 cells, a settled sample a mean of 1080). With lossless compression
 * (docs/jager.md §5) a contact whose vibration only rises and falls keeps O(1) cells; the
 * same run with `history: full` shows what the exact stack would hold. Validation: the two
 * runs' positions agree to round-off (the compression changes no force by more than
 * 5e-13 μN), and a resting sphere's overlap is Hertz's. */
#include <criterion/criterion.h>
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "../support/law_states.h"
#include "ldem/sim/step.h"
#include "world_fixture.h"

#define R 1e-3

static void prepare(ldem_world *w)
{
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(w, &err), LDEM_OK, "%s", err.msg);
}

/* Longest and mean (over touching Jäger contacts, then over sampled steps) stack. */
typedef struct history_stats {
    uint32_t longest;
    double mean;
} history_stats;

static history_stats run(ldem_world *w, long steps)
{
    ldem_err err;
    history_stats h = {0, 0};
    long samples = 0;
    for (long k = 0; k < steps; k++) {
        cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "step %ld: %s", k, err.msg);
        if (k % 100)
            continue;
        double sum = 0;
        size_t n = 0;
        for (size_t c = 0; c < w->ncontacts; c++) {
            const ldem_contact *ct = &w->contacts[c];
            if (ct->overlap <= 0)
                continue;
            uint32_t len = JAGER_STATE(ct).length;
            h.longest = len > h.longest ? len : h.longest;
            sum += len;
            n++;
        }
        if (n) {
            h.mean += sum / (double)n;
            samples++;
        }
    }
    h.mean = samples ? h.mean / (double)samples : 0;
    return h;
}

/* A floor under gravity, Hertz–Jäger contacts with normal damping ratio ζ, every leg kept
 * or compressed; dt 2e-8 s. The grains come next, then prepare(). */
static void floor_world(ldem_world *w, bool full, double zeta)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    w->laws[0].p[LDEM_JAGER_P_HISTORY] = full;
    w->laws[0].damping = zeta;
    wf_add_plane(w, ldem_vec3_zero(), ldem_vec3_make(0, 0, 1));
    w->gravity = ldem_vec3_make(0, 0, -9.81);
    w->dt = 2e-8;
    w->skin = 0.1 * R;
}

/* A sphere dropped 1 µm onto a floor, with Hertz damping ζ = 0.3: it rings down to rest. */
static history_stats sphere_on_floor(bool full, double *overlap)
{
    ldem_world w;
    floor_world(&w, full, 0.3);
    wf_add_sphere(&w, ldem_vec3_make(0, 0, R + 1e-6), R, ldem_vec3_zero());
    prepare(&w);
    history_stats h = run(&w, 100000);
    *overlap = R - w.bodies.x[0].z;
    ldem_world_free(&w);
    return h;
}

Test(history_at_rest, sphere_on_a_floor_keeps_one_cell, .timeout = 120)
{
    double ov_packed, ov_full;
    history_stats packed = sphere_on_floor(false, &ov_packed);
    history_stats full = sphere_on_floor(true, &ov_full);
    /* m g = (4/3) E* √R δ^{3/2}, sphere on a plane of its own material */
    const double estar = 70e9 / (2 * (1 - 0.25 * 0.25)), m = 2500 * 4.0 / 3 * M_PI * R * R * R;
    double hertz = pow(m * 9.81 / (4.0 / 3.0 * estar * sqrt(R)), 2.0 / 3.0);
    cr_log_info("sphere on a floor, 100000 steps: longest stack %u compressed, %u full (mean "
                "%.1f and %.1f); overlaps %.17g and %.17g, Hertz %.17g",
                packed.longest, full.longest, packed.mean, full.mean, ov_packed, ov_full, hertz);
    cr_assert_leq(packed.longest, 2u, "a resting sphere's contact held %u cells", packed.longest);
    cr_assert_gt(full.longest, 20u, "the uncompressed stack should grow (the test's premise)");
    cr_assert_leq(fabs(ov_packed - ov_full), 1e-12 * hertz);
    cr_assert_leq(fabs(ov_packed / hertz - 1), 1e-3, "not at rest on the floor");
}

/* Four spheres on a floor, one on top of three: contacts with tangential forces, settling
 * under Hertz damping. */
static history_stats pyramid(bool full, double *top_z)
{
    ldem_world w;
    floor_world(&w, full, 0.05);
    const double gap = 2.02 * R; /* the base spheres' centres, a triangle of side 2.02 R */
    for (int k = 0; k < 3; k++) {
        double phi = 2.0943951023931953 * k;
        wf_add_sphere(&w, ldem_vec3_make(gap / sqrt(3) * cos(phi), gap / sqrt(3) * sin(phi), R),
                      R, ldem_vec3_zero());
    }
    double h = sqrt(4 * R * R - gap * gap / 3);
    wf_add_sphere(&w, ldem_vec3_make(0, 0, R + h + 1e-7), R, ldem_vec3_zero());
    prepare(&w);
    history_stats s = run(&w, 60000);
    *top_z = w.bodies.x[3].z;
    ldem_world_free(&w);
    return s;
}

Test(history_at_rest, settling_pyramid_keeps_few_cells, .timeout = 120)
{
    double z_packed, z_full;
    history_stats packed = pyramid(false, &z_packed);
    history_stats full = pyramid(true, &z_full);
    cr_log_info("pyramid of 4 spheres, 60000 steps: longest stack %u compressed, %u full (mean "
                "%.1f and %.1f); top sphere at %.17g and %.17g",
                packed.longest, full.longest, packed.mean, full.mean, z_packed, z_full);
    cr_assert_lt(packed.mean, 0.5 * full.mean);
    cr_assert_leq(fabs(z_packed - z_full), 1e-9 * R);
}
