/* The world in a periodic cell (ldem/sim/cell.h, runtime/sim/periodic.c,
 * runtime/sim/broadphase_periodic.c), on hand-built worlds:
 *   - the periodic broad phase finds exactly the pairs and images a brute force over the 27
 *     neighbouring images finds, in an orthogonal and in a triclinic cell;
 *   - a pair whose contact crosses the boundary (one grain wraps, then the other) keeps its
 *     contact and its Jäger history, and its forces equal those of a twin pair driven the
 *     same way inside the cell, in a fixed and in a deforming cell;
 *   - the affine deformation of a contact-free gas leaves the velocities untouched and moves
 *     every grain as x ← c + F (x + v dt − c) (LAMMPS's remap x), the stress being the
 *     kinetic Σ m v ⊗ v / V;
 *   - the Love–Weber stress of one compressed pair across the boundary is N ℓ / V along the
 *     line of centres, nothing else, and the servo's stiffness is dN/dδ ℓ² / V;
 *   - the servo brings a stress-controlled assembly to its target and holds it within 1 %,
 *     with the cell's work closing the energy balance; held at a mean stress instead, the
 *     trace meets its target with the other two directions at theirs;
 *   - a cyclic drive keeps the cell's strain on its triangle at every step of a pressed
 *     assembly, starts where it is switched on (also by a restart from a checkpoint written
 *     under another drive), and a restart in the middle of a cycle continues bit for bit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/law_states.h"
#include "ldem/bytes.h"
#include "ldem/sim/broadphase.h"
#include "ldem/sim/cell.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/step.h"
#include "../support/test_rng.h"
#include "world_fixture.h"

static ldem_mat3 diag3(double a, double b, double c)
{
    ldem_mat3 m = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
    return m;
}

static void make_cell(ldem_world *w, ldem_mat3 h, ldem_vec3 centre)
{
    ldem_err err;
    cr_assert_eq(ldem_cell_init(&w->cell, h, centre, &err), LDEM_OK, "%s", err.msg);
    w->h_list = w->cell.h;
}

/* ---- broad phase ---- */

/* Every pair within reach by brute force: for each i < j the image m ∈ {−1, 0, 1}³ with the
 * shortest |x_j + h m − x_i| (the cell is wide enough that at most one is within reach). */
static size_t brute_pairs(size_t n, const ldem_vec3 *x, const double *r, double skin,
                          const ldem_cell *cell, uint64_t *keys, int8_t *images)
{
    size_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        int32_t m[3] = {a, b, c};
                        ldem_vec3 d = ldem_vec3_sub(
                            ldem_vec3_add(x[j], ldem_cell_offset(&cell->h, m)), x[i]);
                        double reach = (r[i] + r[j]) + skin;
                        if (ldem_vec3_norm2(d) < reach * reach) {
                            keys[count] = ldem_pair_key(i, j);
                            images[3 * count] = (int8_t)a;
                            images[3 * count + 1] = (int8_t)b;
                            images[3 * count + 2] = (int8_t)c;
                            count++;
                        }
                    }
    return count;
}

static void check_broadphase(ldem_mat3 h, size_t n, double rmin, double rmax, double skin)
{
    ldem_cell cell;
    ldem_err err;
    cr_assert_eq(ldem_cell_init(&cell, h, ldem_vec3_make(1.0, -2.0, 0.5), &err), LDEM_OK);
    ldem_vec3 *x = malloc(n * sizeof *x);
    double *r = malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        /* uniform in the cell through fractional coordinates */
        ldem_vec3 s = ldem_vec3_make(0.5 * uniform(), 0.5 * uniform(), 0.5 * uniform());
        x[i] = ldem_vec3_add(cell.centre,
                             ldem_vec3_make(h.m[0][0] * s.x + h.m[0][1] * s.y + h.m[0][2] * s.z,
                                            h.m[1][0] * s.x + h.m[1][1] * s.y + h.m[1][2] * s.z,
                                            h.m[2][0] * s.x + h.m[2][1] * s.y + h.m[2][2] * s.z));
        r[i] = rng_uniform(rmin, rmax);
    }
    uint64_t *keys = malloc(n * n * sizeof *keys);
    int8_t *images = malloc(3 * n * n);
    size_t expected = brute_pairs(n, x, r, skin, &cell, keys, images);
    ldem_broadphase bp;
    memset(&bp, 0, sizeof bp);
    cr_assert_eq(ldem_broadphase_pairs_periodic(&bp, n, x, r, skin, &cell, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_eq(bp.npairs, expected, "periodic broad phase found %zu pairs, brute force %zu",
                 bp.npairs, expected);
    size_t across = 0;
    for (size_t k = 0; k < expected; k++) {
        cr_assert_eq(bp.pairs[k], keys[k], "pair %zu differs", k);
        cr_assert(memcmp(&bp.image[3 * k], &images[3 * k], 3) == 0, "image of pair %zu", k);
        across += images[3 * k] || images[3 * k + 1] || images[3 * k + 2];
    }
    cr_assert_gt(across, expected / 20, "only %zu of %zu pairs cross a face: a weak test", across,
                 expected);
    cr_assert_gt(bp.nghosts, 0);
    ldem_broadphase_free(&bp);
    free(x);
    free(r);
    free(keys);
    free(images);
}

Test(periodic, broadphase_matches_brute_force_orthogonal)
{
    check_broadphase(diag3(10.0, 7.0, 12.0), 600, 0.2, 0.6, 0.05);
}

Test(periodic, broadphase_matches_brute_force_triclinic)
{
    ldem_mat3 h = {{{10.0, 2.5, -1.5}, {0.0, 9.0, 2.0}, {0.0, 0.0, 11.0}}};
    check_broadphase(h, 600, 0.2, 0.6, 0.05);
}

Test(periodic, broadphase_refuses_a_narrow_cell)
{
    ldem_cell cell;
    ldem_err err;
    cr_assert_eq(ldem_cell_init(&cell, diag3(10.0, 4.0, 10.0), ldem_vec3_zero(), &err), LDEM_OK);
    ldem_vec3 x[2] = {{0, 0, 0}, {1, 1, 1}};
    double r[2] = {1.0, 0.9};
    ldem_broadphase bp;
    memset(&bp, 0, sizeof bp);
    cr_assert_eq(ldem_broadphase_pairs_periodic(&bp, 2, x, r, 0.1, &cell, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "width across edge b is 4"), "%s", err.msg);
    ldem_broadphase_free(&bp);
}

/* ---- a contact across the boundary ---- */

static const ldem_contact *find_contact(const ldem_world *w, uint32_t i, uint32_t j)
{
    for (size_t k = 0; k < w->ncontacts; k++)
        if (w->contacts[k].i == i && w->contacts[k].j == j)
            return &w->contacts[k];
    return NULL;
}

/* Two pairs of fixed spheres (radius 1) in a 10-wide cell, driven by the same velocities:
 * pair P (0, 1) starts at x = 8 and 9.9999, so that 1 wraps at once and 0 after 2 / vx;
 * pair Q (2, 3) starts at x = 3, 4.9999 and stays inside. The relative velocity of the
 * second sphere of each pair changes between phases, so the Jäger stacks hold reversals. */
static void crossing(ldem_mat3 L)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.dt = 1e-4;
    w.skin = 0.05;
    make_cell(&w, diag3(10.0, 10.0, 10.0), ldem_vec3_make(5.0, 5.0, 5.0));
    w.cell.L = L;
    w.cell_control.strain_rate[0] = L.m[0][0];
    w.cell_control.strain_rate[1] = L.m[1][1];
    w.cell_control.strain_rate[2] = L.m[2][2];
    const double vx = 10.0, gap = 1.9999;
    ldem_vec3 base = ldem_vec3_make(vx, 0, 0);
    wf_add_sphere(&w, ldem_vec3_make(8.0, 5.0, 5.0), 1.0, base);
    wf_add_sphere(&w, ldem_vec3_make(8.0 + gap, 5.0, 5.0), 1.0, base);
    wf_add_sphere(&w, ldem_vec3_make(3.0, 5.0, 5.0), 1.0, base);
    wf_add_sphere(&w, ldem_vec3_make(3.0 + gap, 5.0, 5.0), 1.0, base);
    for (int i = 0; i < 4; i++)
        w.bodies.flags[i] |= LDEM_BODY_FIXED;
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    /* relative velocities of the second sphere (tangential y/z, normal x) per phase */
    const ldem_vec3 rel[] = {{0, 5e-4, 0},         {-2e-5, -7e-4, 2e-4}, {1e-5, 3e-4, -6e-4},
                             {0, 6e-4, 5e-4},       {-1e-5, -4e-4, 1e-4}, {0, -9e-4, -3e-4}};
    const int phase_steps = 500;
    int spanned = 0, wrapped_both = 0;
    double worst = 0.0;
    uint32_t most_history = 0;
    for (size_t phase = 0; phase < sizeof rel / sizeof *rel; phase++) {
        w.bodies.v[1] = w.bodies.v[3] = ldem_vec3_add(base, rel[phase]);
        for (int s = 0; s < phase_steps; s++) {
            cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
            const ldem_contact *p = find_contact(&w, 0, 1), *q = find_contact(&w, 2, 3);
            cr_assert(p && q, "a pair left the contact list at step %llu",
                      (unsigned long long)w.step);
            cr_assert_gt(p->overlap, 0.0);
            spanned |= p->image[0] != 0;
            wrapped_both |= w.bodies.x[0].x < 5.0 && p->image[0] == 0;
            double scale = ldem_vec3_norm(q->fn);
            double d = fmax(ldem_vec3_dist(p->fn, q->fn), ldem_vec3_dist(p->ft, q->ft)) / scale;
            worst = fmax(worst, d);
            cr_assert_lt(d, 1e-7, "step %llu: forces of the crossing pair differ by %g of N",
                         (unsigned long long)w.step, d);
            cr_assert_eq(JAGER_STATE(p).length, JAGER_STATE(q).length,
                         "step %llu: history lengths %u and %u", (unsigned long long)w.step,
                         JAGER_STATE(p).length, JAGER_STATE(q).length);
            if (JAGER_STATE(q).length > most_history)
                most_history = JAGER_STATE(q).length;
        }
    }
    cr_assert(spanned, "the pair never spanned the boundary");
    cr_assert(wrapped_both, "the pair never ended up wholly wrapped");
    cr_assert_geq(most_history, 4, "histories reached only %u legs: a weak test", most_history);
    cr_assert_gt(ldem_vec3_norm(find_contact(&w, 2, 3)->ft), 0.01 * ldem_vec3_norm(find_contact(&w, 2, 3)->fn));
    cr_log_info("crossing: worst force difference %.3g of N, longest history %u", worst,
                most_history);
    ldem_world_free(&w);
}

Test(periodic, contact_across_the_boundary_keeps_history_fixed_cell)
{
    crossing(diag3(0.0, 0.0, 0.0));
}

Test(periodic, contact_across_the_boundary_keeps_history_deforming_cell)
{
    crossing(diag3(-2e-4, 1e-4, 5e-5));
}

/* ---- affine deformation of a gas ---- */

Test(periodic, affine_deformation_of_a_gas)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.dt = 1e-3;
    w.skin = 0.05;
    ldem_vec3 centre = ldem_vec3_make(1.0, 2.0, 3.0);
    make_cell(&w, diag3(10.0, 8.0, 12.0), centre);
    const double rate[3] = {-0.5, 0.3, 0.1};
    w.cell.L = diag3(rate[0], rate[1], rate[2]);
    for (int k = 0; k < 3; k++)
        w.cell_control.strain_rate[k] = rate[k];
    enum { N = 27 };
    ldem_vec3 x[N], v[N];
    for (int i = 0; i < N; i++) {
        x[i] = ldem_vec3_make(centre.x - 4.0 + 3.0 * (i % 3), centre.y - 3.0 + 2.5 * (i / 3 % 3),
                              centre.z - 4.5 + 4.0 * (i / 9));
        v[i] = ldem_vec3_make(0.5 * uniform(), 0.5 * uniform(), 0.5 * uniform());
        v[i] = ldem_vec3_scale(v[i], 8.0);
        wf_add_sphere(&w, x[i], 0.01, v[i]);
    }
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    const int steps = 1000;
    double f[3];
    for (int k = 0; k < 3; k++)
        f[k] = exp(rate[k] * w.dt);
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
        for (size_t k = 0; k < w.ncontacts; k++)
            cr_assert_leq(w.contacts[k].overlap, 0.0, "grains collided: pick another seed");
        for (int i = 0; i < N; i++) {
            double p[3] = {x[i].x + v[i].x * w.dt, x[i].y + v[i].y * w.dt, x[i].z + v[i].z * w.dt};
            double c[3] = {centre.x, centre.y, centre.z};
            for (int k = 0; k < 3; k++)
                p[k] = c[k] + f[k] * (p[k] - c[k]);
            x[i] = ldem_vec3_make(p[0], p[1], p[2]);
        }
    }
    for (int i = 0; i < N; i++) {
        cr_assert(memcmp(&w.bodies.v[i], &v[i], sizeof v[i]) == 0,
                  "grain %d: velocity changed", i);
        /* the same point modulo the cell: fractional coordinates equal modulo 1 */
        ldem_vec3 a = ldem_cell_fractional(&w.cell, w.bodies.x[i]);
        ldem_vec3 b = ldem_cell_fractional(&w.cell, x[i]);
        double d[3] = {a.x - b.x, a.y - b.y, a.z - b.z};
        for (int k = 0; k < 3; k++)
            cr_assert_lt(fabs(d[k] - nearbyint(d[k])), 1e-12, "grain %d axis %d: %g", i, k,
                         d[k] - nearbyint(d[k]));
    }
    /* the cell itself: h = h0 exp(L t) */
    double t = steps * w.dt, h0[3] = {10.0, 8.0, 12.0};
    for (int k = 0; k < 3; k++)
        cr_assert_lt(fabs(w.cell.h.m[k][k] / (h0[k] * exp(rate[k] * t)) - 1.0), 1e-12);
    /* stress: the kinetic part only, Σ m v ⊗ v / V */
    double V = ldem_cell_volume(&w.cell.h);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double va[N], sum = 0.0;
            for (int i = 0; i < N; i++) {
                double vi[3] = {v[i].x, v[i].y, v[i].z};
                va[i] = w.bodies.mass[i] * vi[a] * vi[b];
                sum += va[i];
            }
            cr_assert_lt(fabs(w.stress.m[a][b] - sum / V), 1e-12 * fabs(w.stress.m[0][0]),
                         "stress %d%d", a, b);
        }
    ldem_world_free(&w);
}

/* ---- Love–Weber stress of one pair across the boundary ---- */

Test(periodic, love_weber_stress_of_a_pair_across_the_boundary)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.skin = 0.05;
    make_cell(&w, diag3(10.0, 10.0, 10.0), ldem_vec3_make(5.0, 5.0, 5.0));
    const double delta = 0.01, l = 2.0 - delta;
    wf_add_sphere(&w, ldem_vec3_make(0.5, 4.0, 6.0), 1.0, ldem_vec3_zero());
    wf_add_sphere(&w, ldem_vec3_make(10.5 - l, 4.0, 6.0), 1.0, ldem_vec3_zero());
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    const ldem_contact *c = find_contact(&w, 0, 1);
    cr_assert(c && c->image[0] == -1 && !c->image[1] && !c->image[2]); /* 1 at x − 10 */
    /* by hand: E* = E / (2 (1 − ν²)), R* = 1/2, N = (4/3) E* √R* δ^{3/2}, k = 2 E* √(R* δ) */
    double Estar = 70e9 / (2.0 * (1.0 - 0.25 * 0.25)), Rstar = 0.5;
    double N = 4.0 / 3.0 * Estar * sqrt(Rstar) * pow(delta, 1.5);
    double k = 2.0 * Estar * sqrt(Rstar * delta), V = 1000.0;
    cr_assert_lt(fabs(w.stress.m[0][0] / (N * l / V) - 1.0), 1e-12, "sxx %.17g, by hand %.17g",
                 w.stress.m[0][0], N * l / V);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            if (a || b)
                cr_assert_lt(fabs(w.stress.m[a][b]), 1e-12 * w.stress.m[0][0], "s%d%d", a, b);
    cr_assert_lt(fabs(w.stiffness[0] / (k * l * l / V) - 1.0), 1e-12);
    cr_assert_eq(w.stiffness[1], 0.0);
    ldem_world_free(&w);
}

/* ---- the servo ---- */

/* 4³ spheres of radius 1 mm on a loose cubic lattice (spacing 2.1 mm, jitter 10 µm), each
 * direction held at its own stress (100, 50 and 200 kPa): the servo compacts the gas at
 * max_rate until chains form along the axes, then brings each stress to its target. Local
 * damping (0.3) lets it come to rest. */
Test(periodic, servo_settles_to_the_target_stress)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.dt = 2e-8;
    w.skin = 1e-4;
    w.damping_local = 0.3;
    w.track_energy = 1;
    const double a = 2.1e-3, target[3] = {1e5, 5e4, 2e5};
    make_cell(&w, diag3(4 * a, 4 * a, 4 * a), ldem_vec3_make(2 * a, 2 * a, 2 * a));
    for (int k = 0; k < 3; k++) {
        w.cell_control.drive[k] = LDEM_CELL_STRESS;
        w.cell_control.stress[k] = target[k];
    }
    w.cell_control.gain = 0.05;
    w.cell_control.max_rate = 100.0;
    for (int i = 0; i < 64; i++)
        wf_add_sphere(&w,
                      ldem_vec3_make(a * (0.5 + i % 4) + 5e-6 * uniform(),
                                     a * (0.5 + i / 4 % 4) + 5e-6 * uniform(),
                                     a * (0.5 + i / 16) + 5e-6 * uniform()),
                      1e-3, ldem_vec3_zero());
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    const int steps = 60000, window = 10000;
    double worst = 0.0;
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
        if (s >= steps - window)
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(w.stress.m[k][k] / target[k] - 1.0));
    }
    ldem_probe_row row;
    ldem_world_measure(&w, &row);
    cr_log_info("servo: worst |σ/σ* − 1| over the last %d steps %.3g, strain %.4g, "
                "%llu contacts, balance %.3g",
                window, worst, row.strain[0], (unsigned long long)row.contacts, row.balance_error);
    cr_assert_lt(worst, 0.01, "stress off the target by %.3g over the last %d steps", worst,
                 window);
    cr_assert_gt(row.contacts, 64, "the assembly did not form a contact network");
    cr_assert_lt(fabs(row.balance_error), 1e-3, "energy balance %.3g", row.balance_error);
    cr_assert_gt(row.work_cell, 0.0, "compaction by the cell must do positive work");
    ldem_world_free(&w);
}

/* ---- the servo's integral term in checkpoints ---- */

/* CELL as written before the servo's integral term (seven matrices, the stiffnesses and the
 * work: docs/checkpoint.md), and one value longer than that. */
#define CELL_VALUES_BEFORE_INTEGRAL (9 * 7 + 4)

static void cell_before_integral(ldem_section *s)
{
    s->length = 8 * CELL_VALUES_BEFORE_INTEGRAL;
}

static void cell_of_odd_length(ldem_section *s)
{
    s->length = 8 * (CELL_VALUES_BEFORE_INTEGRAL + 1);
}

/* 27 spheres pressed together in a small cell, x held at a stress by the servo with its
 * integral term, y and z squeezed at a strain rate. */
static void servo_world(ldem_world *w)
{
    wf_world(w, LDEM_LAW_HERTZ_JAGER);
    w->dt = 2e-8;
    w->skin = 1e-4;
    w->damping_local = 0.2;
    const double a = 1.99e-3;
    make_cell(w, diag3(3 * a, 3 * a, 3 * a), ldem_vec3_make(1.5 * a, 1.5 * a, 1.5 * a));
    w->cell_control.drive[0] = LDEM_CELL_STRESS;
    /* near where the squeeze puts it, so that the servo works under its cap */
    w->cell_control.stress[0] = 8e6;
    w->cell_control.strain_rate[1] = w->cell_control.strain_rate[2] = -5.0;
    w->cell_control.gain = 0.05;
    w->cell_control.integral = 0.2;
    w->cell_control.max_rate = 1e3;
    for (int i = 0; i < 27; i++)
        wf_add_sphere(w,
                      ldem_vec3_make(a * (0.5 + i % 3), a * (0.5 + i / 3 % 3), a * (0.5 + i / 9)),
                      1e-3, ldem_vec3_zero());
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(w, &err), LDEM_OK, "%s", err.msg);
}

/* The accumulated rates I travel with a checkpoint, bit for bit; a file written before the
 * integral term (CELL ending after the cell's work, docs/checkpoint.md) loads with I = 0 and
 * everything else as saved; a CELL of any other length is refused. */
Test(periodic, servo_integral_in_checkpoints)
{
    ldem_world w;
    servo_world(&w);
    ldem_err err;
    for (int s = 0; s < 300; s++)
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
    cr_assert_neq(w.servo_integral[0], 0.0, "the servo accumulated nothing (sxx %g, L %g)",
                  w.stress.m[0][0], w.cell.L.m[0][0]);
    cr_assert(w.servo_integral[1] == 0.0 && w.servo_integral[2] == 0.0,
              "strain-driven directions hold I = 0");

    char path[600], old[620], odd[620];
    snprintf(path, sizeof path, "%s/periodic-servo.ldc", LDEM_TEST_TMP);
    snprintf(old, sizeof old, "%s/periodic-servo-old.ldc", LDEM_TEST_TMP);
    snprintf(odd, sizeof odd, "%s/periodic-servo-odd.ldc", LDEM_TEST_TMP);
    cr_assert_eq(ldem_checkpoint_save(path, &w, NULL, &err), LDEM_OK, "%s", err.msg);
    wf_patch_section(path, old, "CELL", cell_before_integral);
    wf_patch_section(path, odd, "CELL", cell_of_odd_length);

    ldem_world b;
    servo_world(&b);
    cr_assert_eq(ldem_checkpoint_load(path, &b, NULL, &err), LDEM_OK, "%s", err.msg);
    cr_assert(memcmp(b.servo_integral, w.servo_integral, sizeof w.servo_integral) == 0,
              "I changed through the checkpoint");
    ldem_world_free(&b);

    servo_world(&b);
    cr_assert_eq(ldem_checkpoint_load(old, &b, NULL, &err), LDEM_OK, "%s", err.msg);
    cr_assert(b.servo_integral[0] == 0.0 && b.servo_integral[1] == 0.0 &&
                  b.servo_integral[2] == 0.0,
              "an old file must load with I = 0");
    cr_assert(memcmp(&b.cell.h, &w.cell.h, sizeof w.cell.h) == 0 &&
                  memcmp(b.stiffness, w.stiffness, sizeof w.stiffness) == 0 &&
                  b.work_cell == w.work_cell,
              "an old file's cell must load as saved");
    ldem_world_free(&b);

    servo_world(&b);
    cr_assert_eq(ldem_checkpoint_load(odd, &b, NULL, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "cell values"), "%s", err.msg);
    ldem_world_free(&b);
    ldem_world_free(&w);
}

/* ---- the mean-stress servo ---- */

/* The 64 spheres of servo_settles_to_the_target_stress with x holding the mean stress at
 * 100 kPa while y and z are held at 50 and 200 kPa: x must settle at 3 p* − 250 kPa =
 * 50 kPa, the trace at 300 kPa. */
Test(periodic, mean_stress_servo_settles)
{
    ldem_world w;
    wf_world(&w, LDEM_LAW_HERTZ_JAGER);
    w.dt = 2e-8;
    w.skin = 1e-4;
    w.damping_local = 0.3;
    const double a = 2.1e-3;
    make_cell(&w, diag3(4 * a, 4 * a, 4 * a), ldem_vec3_make(2 * a, 2 * a, 2 * a));
    w.cell_control.drive[0] = LDEM_CELL_MEAN_STRESS;
    w.cell_control.stress[0] = 1e5;
    w.cell_control.drive[1] = w.cell_control.drive[2] = LDEM_CELL_STRESS;
    w.cell_control.stress[1] = 5e4;
    w.cell_control.stress[2] = 2e5;
    w.cell_control.gain = 0.05;
    w.cell_control.integral = 0.0125;
    w.cell_control.max_rate = 100.0;
    for (int i = 0; i < 64; i++)
        wf_add_sphere(&w,
                      ldem_vec3_make(a * (0.5 + i % 4) + 5e-6 * uniform(),
                                     a * (0.5 + i / 4 % 4) + 5e-6 * uniform(),
                                     a * (0.5 + i / 16) + 5e-6 * uniform()),
                      1e-3, ldem_vec3_zero());
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    const int steps = 60000, window = 10000;
    double worst_p = 0.0, worst_x = 0.0;
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
        if (s < steps - window)
            continue;
        double p = (w.stress.m[0][0] + w.stress.m[1][1] + w.stress.m[2][2]) / 3.0;
        worst_p = fmax(worst_p, fabs(p / 1e5 - 1.0));
        worst_x = fmax(worst_x, fabs(w.stress.m[0][0] / 5e4 - 1.0));
    }
    cr_log_info("mean-stress servo: worst |p/p* - 1| %.3g, |sxx/50 kPa - 1| %.3g over the last "
                "%d steps", worst_p, worst_x, window);
    cr_assert_lt(worst_p, 0.01, "mean stress off its target by %.3g", worst_p);
    cr_assert_lt(worst_x, 0.03, "sxx off 3 p* - syy - szz by %.3g", worst_x);
    ldem_world_free(&w);
}

/* ---- the cyclic drive ---- */

/* 27 spheres pressed in a small cell (servo_world's), x holding the mean stress, y at zero
 * strain, z either squeezed at a strain rate (to write a checkpoint under another drive) or
 * cycled: 1e-4 then 3e-4, two cycles each of 200 steps. */
static const double CYC_AMP[2] = {1e-4, 3e-4};
#define CYC_STEPS 200 /* steps a cycle */
#define CYC_CYCLES 2

static void cyclic_world(ldem_world *w, int cyclic)
{
    servo_world(w);
    w->cell_control.drive[0] = LDEM_CELL_MEAN_STRESS;
    w->cell_control.stress[0] = 8e6;
    w->cell_control.strain_rate[1] = 0.0;
    if (cyclic) {
        ldem_cell_cyclic *c = &w->cell_control.cyclic[2];
        w->cell_control.drive[2] = LDEM_CELL_CYCLIC;
        c->levels = 2, c->cycles = CYC_CYCLES;
        for (int i = 0; i < 2; i++)
            c->amplitude[i] = CYC_AMP[i], c->period[i] = CYC_STEPS * w->dt;
    }
}

static void steps_to(ldem_world *w, uint64_t last)
{
    ldem_err err;
    while (w->step < last)
        cr_assert_eq(ldem_world_step(w, &err), LDEM_OK, "step %llu: %s",
                     (unsigned long long)w->step, err.msg);
}

/* The triangle of the drive at n steps since its start (the test's own). */
static double cyc_triangle(uint64_t n)
{
    uint64_t level = n / (CYC_STEPS * CYC_CYCLES);
    if (level >= 2)
        return 0.0;
    double phi = (double)(n % CYC_STEPS) / CYC_STEPS;
    return CYC_AMP[level] * (phi < 0.25 ? 4 * phi : phi < 0.75 ? 2 - 4 * phi : 4 * phi - 4);
}

static void assert_same_state(const ldem_world *a, const ldem_world *b)
{
    size_t n = a->bodies.count;
    cr_assert_eq(b->step, a->step);
    cr_assert(memcmp(a->bodies.x, b->bodies.x, n * sizeof *a->bodies.x) == 0, "positions");
    cr_assert(memcmp(a->bodies.v, b->bodies.v, n * sizeof *a->bodies.v) == 0, "velocities");
    cr_assert(memcmp(a->bodies.L, b->bodies.L, n * sizeof *a->bodies.L) == 0, "spins");
    cr_assert(memcmp(&a->cell.h, &b->cell.h, sizeof a->cell.h) == 0, "cell");
    cr_assert(memcmp(&a->cell.L, &b->cell.L, sizeof a->cell.L) == 0, "rates");
    cr_assert(memcmp(&a->stress, &b->stress, sizeof a->stress) == 0, "stress");
    cr_assert(memcmp(a->servo_integral, b->servo_integral, sizeof a->servo_integral) == 0);
    cr_assert_eq(a->ncontacts, b->ncontacts);
    for (size_t k = 0; k < a->ncontacts; k++)
        cr_assert(memcmp(&a->contacts[k].ft, &b->contacts[k].ft, sizeof(ldem_vec3)) == 0 &&
                      memcmp(&a->contacts[k].fn, &b->contacts[k].fn, sizeof(ldem_vec3)) == 0,
                  "contact %zu", k);
}

/* The strain follows the triangle at every step from the start (the drive starts at step 0
 * of a prepared world, at the strain it has there), the mean stress is held meanwhile, the
 * probes' rate is the step's, and a restart from a checkpoint in the middle of a cycle
 * continues bit for bit. */
Test(periodic, cyclic_drive_follows_triangle_and_restarts)
{
    ldem_world w;
    cyclic_world(&w, 1);
    double start = ldem_cell_strain(&w.cell, 2), worst = 0.0, worst_p = 0.0;
    const uint64_t total = 2 * CYC_STEPS * CYC_CYCLES + 50, cut = CYC_STEPS * 3 + 70;
    char path[600];
    snprintf(path, sizeof path, "%s/periodic-cyclic.ldc", LDEM_TEST_TMP);
    ldem_err err;
    while (w.step < total) {
        double strain = ldem_cell_strain(&w.cell, 2);
        steps_to(&w, w.step + 1);
        double now = ldem_cell_strain(&w.cell, 2);
        worst = fmax(worst, fabs(now - start - cyc_triangle(w.step)));
        /* each step moves the strain by the triangle's step, and the probes' rate of the
         * next step is what the next step will take (−L dt, compression positive) */
        cr_assert_leq(fabs((now - strain) - (cyc_triangle(w.step) - cyc_triangle(w.step - 1))),
                      1e-15, "step %llu", (unsigned long long)w.step);
        cr_assert_leq(fabs(-w.cell.L.m[2][2] * w.dt -
                           (cyc_triangle(w.step + 1) - cyc_triangle(w.step))),
                      1e-15, "rate after step %llu", (unsigned long long)w.step);
        if (w.step > 100) {
            double p = (w.stress.m[0][0] + w.stress.m[1][1] + w.stress.m[2][2]) / 3.0;
            worst_p = fmax(worst_p, fabs(p / 8e6 - 1.0));
        }
        if (w.step == cut)
            cr_assert_eq(ldem_checkpoint_save(path, &w, NULL, &err), LDEM_OK, "%s", err.msg);
    }
    cr_assert(w.cyclic_started[2] && w.cyclic_start[2] == 0 && !w.cyclic_started[0] &&
              !w.cyclic_started[1]);
    cr_log_info("cyclic drive: strain off the triangle by %.3g, mean stress by %.3g", worst,
                worst_p);
    cr_assert_leq(worst, 1e-15, "the strain left the triangle by %.3g", worst);
    cr_assert_leq(worst_p, 0.05, "the mean stress left its target by %.3g", worst_p);
    cr_assert(w.cell.L.m[2][2] == 0.0 || fabs(w.cell.L.m[2][2]) < 1e-6,
              "after the last cycle z is held (L %g)", w.cell.L.m[2][2]);

    ldem_world b;
    cyclic_world(&b, 1);
    cr_assert_eq(ldem_checkpoint_load(path, &b, NULL, &err), LDEM_OK, "%s", err.msg);
    cr_assert(b.cyclic_started[2] && b.cyclic_start[2] == 0 && b.cyclic_strain0[2] == start);
    steps_to(&b, total);
    assert_same_state(&w, &b);
    ldem_world_free(&b);
    ldem_world_free(&w);
}

/* A restart that switches z from a strain rate to the cyclic drive starts the triangle at
 * the checkpoint's step and strain, though the checkpoint's L is the old drive's; a
 * checkpoint written before the cyclic drive (CELL without its six values) loads with no
 * drive running, and a start that is not a whole step up to the checkpoint's is refused. */
static void cell_before_cyclic(ldem_section *s)
{
    s->length = 8 * (CELL_VALUES_BEFORE_INTEGRAL + 3);
}

static void cyclic_start_late(ldem_section *s)
{
    ldem_put_f64le(s->data + 8 * (CELL_VALUES_BEFORE_INTEGRAL + 3 + 2), 1e6);
}

static void cyclic_start_fraction(ldem_section *s)
{
    ldem_put_f64le(s->data + 8 * (CELL_VALUES_BEFORE_INTEGRAL + 3 + 2), 0.5);
}

Test(periodic, cyclic_drive_switched_on_by_a_restart)
{
    ldem_world w;
    cyclic_world(&w, 0);
    steps_to(&w, 150);
    cr_assert(w.cell.L.m[2][2] == -5.0);
    char path[600], old[620], late[620], frac[620];
    snprintf(path, sizeof path, "%s/periodic-squeezed.ldc", LDEM_TEST_TMP);
    snprintf(old, sizeof old, "%s/periodic-squeezed-old.ldc", LDEM_TEST_TMP);
    snprintf(late, sizeof late, "%s/periodic-squeezed-late.ldc", LDEM_TEST_TMP);
    snprintf(frac, sizeof frac, "%s/periodic-squeezed-frac.ldc", LDEM_TEST_TMP);
    ldem_err err;
    cr_assert_eq(ldem_checkpoint_save(path, &w, NULL, &err), LDEM_OK, "%s", err.msg);
    wf_patch_section(path, old, "CELL", cell_before_cyclic);
    double strain = ldem_cell_strain(&w.cell, 2);
    ldem_world_free(&w);

    for (int file = 0; file < 2; file++) {
        ldem_world b;
        cyclic_world(&b, 1);
        cr_assert_eq(ldem_checkpoint_load(file ? old : path, &b, NULL, &err), LDEM_OK, "%s",
                     err.msg);
        cr_assert(!b.cyclic_started[0] && !b.cyclic_started[1] && !b.cyclic_started[2]);
        double worst = 0.0;
        for (uint64_t n = 1; n <= 300; n++) {
            steps_to(&b, 150 + n);
            worst = fmax(worst, fabs(ldem_cell_strain(&b.cell, 2) - strain - cyc_triangle(n)));
        }
        cr_assert(b.cyclic_started[2] && b.cyclic_start[2] == 150);
        cr_assert_leq(worst, 1e-15, "%s: strain off the triangle by %.3g",
                      file ? "old file" : "file", worst);
        ldem_world_free(&b);
    }

    /* a running drive's start must be a whole step up to the checkpoint's */
    cyclic_world(&w, 1);
    steps_to(&w, 40);
    cr_assert_eq(ldem_checkpoint_save(path, &w, NULL, &err), LDEM_OK, "%s", err.msg);
    ldem_world_free(&w);
    wf_patch_section(path, late, "CELL", cyclic_start_late);
    wf_patch_section(path, frac, "CELL", cyclic_start_fraction);
    const char *bad[2] = {late, frac};
    for (int k = 0; k < 2; k++) {
        ldem_world b;
        cyclic_world(&b, 1);
        cr_assert_eq(ldem_checkpoint_load(bad[k], &b, NULL, &err), LDEM_ERR_INPUT);
        cr_assert(strstr(err.msg, "cyclic drive of direction z started at step"), "%s", err.msg);
        ldem_world_free(&b);
    }
}
