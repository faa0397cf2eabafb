/* Deformable grains in the world (issue 7): a level-set sphere given an affine mode
 * Φ(x) = A x, A = diag(−1, ½, ½) (symmetric and traceless: no rigid translation or
 * rotation over a sphere centred at the origin), with hand-made K and M.
 *   - free oscillation at √(K/M) and energy conservation (velocity Verlet);
 *   - the generalized force by projection equals −∂U/∂ε of the contact energy (linear node
 *     law against a plane: U = Σ ½ kn depth², finite differences);
 *   - the remap query with ε = 0 is the rigid query bit for bit, and the deformed nodes lie
 *     on the remapped zero set within the stated bound. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/grid.h"
#include "ldem/levelset.h"
#include "ldem/modes.h"
#include "ldem/sim/step.h"
#include "ldem/sim/timestep.h"
#include "sim_internal.h"
#include "world_fixture.h"

static const double PI = 3.14159265358979323846;
static const double A_DIAG[3] = {-1.0, 0.5, 0.5};

/* Give shape s the affine mode (node values and a grid field on its LSET grid), K, M. */
static void give_affine_mode(ldem_world *w, uint32_t s, double K, double M)
{
    ldem_shape *sh = &w->shapes[s];
    uint64_t nn = sh->nodes.count;
    ldem_modes m = {.count = 1, .kind = LDEM_MODE_SAMPLED, .nnodes = nn};
    m.node_values = malloc(3 * nn * sizeof *m.node_values);
    cr_assert(m.node_values);
    for (uint64_t k = 0; k < 3 * nn; k++)
        m.node_values[k] = A_DIAG[k % 3] * sh->nodes.position[k];
    memcpy(m.grid_dims, sh->lset.dims, sizeof m.grid_dims);
    memcpy(m.grid_origin, sh->lset.origin, sizeof m.grid_origin);
    memcpy(m.grid_spacing, sh->lset.spacing, sizeof m.grid_spacing);
    size_t np = (size_t)sh->lset.dims[0] * sh->lset.dims[1] * sh->lset.dims[2];
    m.grid_values = malloc(3 * np * sizeof *m.grid_values);
    cr_assert(m.grid_values);
    size_t idx = 0;
    for (uint32_t k = 0; k < sh->lset.dims[2]; k++)
        for (uint32_t j = 0; j < sh->lset.dims[1]; j++)
            for (uint32_t i = 0; i < sh->lset.dims[0]; i++, idx++) {
                double x[3] = {sh->lset.origin[0] + i * sh->lset.spacing[0],
                               sh->lset.origin[1] + j * sh->lset.spacing[1],
                               sh->lset.origin[2] + k * sh->lset.spacing[2]};
                for (int a = 0; a < 3; a++)
                    m.grid_values[3 * idx + a] = (float)(A_DIAG[a] * x[a]);
            }
    double kv = K, mv = M;
    ldem_matrix Km = {1, &kv}, Mm = {1, &mv};
    sh->modes = calloc(1, sizeof *sh->modes);
    cr_assert(sh->modes);
    ldem_err err;
    cr_assert_eq(ldem_modeset_build(&m, &Km, &Mm, NULL, NULL, nn, sh->nodes.position, sh->modes,
                                    &err),
                 LDEM_OK, "%s", err.msg);
    free(m.node_values);
    free(m.grid_values);
}

/* One deformable level-set sphere (R = 1) at x with amplitude eps, linear node law. */
static void deformable_world(ldem_world *w, ldem_vec3 x, double eps, double K, double M)
{
    wf_world(w, LDEM_LAW_LINEAR);
    w->materials[0].density = 1.0;
    uint32_t s = wf_add_ls_sphere_shape(w, 1.0, 0.1, 3);
    give_affine_mode(w, s, K, M);
    uint32_t b = wf_add_ls_body(w, s, x, ldem_quat_identity(), ldem_vec3_zero());
    w->bodies.flags[b] |= LDEM_BODY_DEFORMABLE;
    ldem_err err;
    cr_assert_eq(ldem_world_modal_init(w, &err), LDEM_OK, "%s", err.msg);
    w->modal.eps[w->bodies.modal[b]] = eps;
}

Test(sim_modal, free_oscillation_frequency_and_energy)
{
    const double K = 2.0, M = 0.5, omega = sqrt(K / M); /* period π */
    ldem_world w;
    deformable_world(&w, ldem_vec3_zero(), 0.05, K, M);
    w.dt = 0.01 / omega;
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    ldem_probe_row row;
    ldem_world_measure(&w, &row);
    double e0 = row.modal_kinetic + row.modal_elastic, worst = 0.0;
    cr_assert_float_eq(e0, 0.5 * K * 0.05 * 0.05, 1e-15);
    double prev = w.modal.eps[0], t_prev = 0.0, first = -1.0, last = -1.0;
    int crossings = 0;
    for (int s = 0; s < 7000; s++) {
        cr_assert_eq(ldem_world_step(&w, &err), LDEM_OK, "%s", err.msg);
        double e = w.modal.eps[0];
        if ((prev > 0.0) != (e > 0.0)) { /* zero crossing, linear interpolation */
            double tc = t_prev + (w.t - t_prev) * prev / (prev - e);
            if (first < 0.0)
                first = tc;
            last = tc;
            crossings++;
        }
        prev = e;
        t_prev = w.t;
        ldem_world_measure(&w, &row);
        double dev = fabs(row.modal_kinetic + row.modal_elastic - e0) / e0;
        worst = dev > worst ? dev : worst;
        cr_assert(fabs(row.balance_error) < 1e-4, "balance error %g", row.balance_error);
    }
    cr_assert(crossings >= 20);
    double period = 2.0 * (last - first) / (crossings - 1);
    /* Verlet's phase error is (ω dt)²/24 = 4e-6 relative */
    cr_assert(fabs(period - 2.0 * PI / omega) < 1e-3 * 2.0 * PI / omega,
              "period %.9g, expected %.9g", period, 2.0 * PI / omega);
    /* energy oscillates by O((ω dt)²) without drifting */
    cr_assert(worst < 1e-4, "energy deviation %g", worst);
    ldem_world_free(&w);
}

/* Contact energy and Q of the sphere (amplitude eps) pressed 0.05 into a floor. */
static void floor_contact(double eps, double *U, double *Q)
{
    ldem_world w;
    deformable_world(&w, ldem_vec3_make(0.0, 0.0, 0.95), eps, 2.0, 0.5);
    wf_add_plane(&w, ldem_vec3_zero(), ldem_vec3_make(0.0, 0.0, 1.0));
    w.dt = 1e-6;
    ldem_err err;
    cr_assert_eq(ldem_world_prepare(&w, &err), LDEM_OK, "%s", err.msg);
    *U = 0.0;
    *Q = 0.0;
    int found = 0;
    for (size_t k = 0; k < w.ncontacts; k++) {
        const ldem_contact *c = &w.contacts[k];
        if (!(c->j & LDEM_WALL_BIT))
            continue;
        cr_assert(c->gen && c->ngen == 1);
        *U = c->stored_normal;
        *Q = c->gen[0];
        found = c->nsprings > 0;
    }
    cr_assert(found, "no penetrating nodes");
    cr_assert_float_eq(w.modal.force[0], *Q, 1e-15);
    ldem_world_free(&w);
}

Test(sim_modal, generalized_force_is_the_energy_derivative)
{
    /* A compresses along x and stretches along y, z: ε > 0 pushes the bottom nodes deeper
     * (u_z = ½ ε z), so the floor's Q opposes it. */
    const double eps = 0.04, h = 1e-7;
    double U, Q, Up, Qp, Um, Qm;
    floor_contact(eps, &U, &Q);
    floor_contact(eps + h, &Up, &Qp);
    floor_contact(eps - h, &Um, &Qm);
    double fd = -(Up - Um) / (2.0 * h);
    cr_assert(U > 0.0 && Q < 0.0, "U %g Q %g", U, Q);
    cr_assert(fabs(Q - fd) <= 1e-6 * fabs(fd), "projection %.12g, -dU/deps %.12g", Q, fd);
}

Test(sim_modal, remap_is_exact_at_zero_and_bounded_when_deformed)
{
    ldem_world w;
    deformable_world(&w, ldem_vec3_zero(), 0.0, 2.0, 0.5);
    const ldem_shape *sh = &w.shapes[0];
    double zero = 0.0, eps = 0.05;
    for (uint64_t k = 0; k < sh->nodes.count; k++) {
        const double *p = &sh->nodes.position[3 * k];
        /* probe points off the surface too */
        ldem_vec3 q = ldem_vec3_make(0.9 * p[0] + 0.01, 1.1 * p[1], p[2] - 0.02);
        double a, b;
        ldem_vec3 ga, gb;
        ldem_lset_sample(&sh->lset, q, &a, &ga);
        ldem_levelset_sample_remap(&sh->lset, sh->modes, &zero, q, &b, &gb);
        cr_assert(a == b && ga.x == gb.x && ga.y == gb.y && ga.z == gb.z);
    }
    /* Deformed nodes X + εAX against the remapped φ: the one-point pullback misses the exact
     * inverse by ε²|A|² R = 2.5e-3, trilinear φ of a unit sphere at h = 0.1 adds about
     * h²/(2R)·½ ≈ 2.5e-3; bound 1e-2. */
    double worst = 0.0;
    for (uint64_t k = 0; k < sh->nodes.count; k++) {
        const double *p = &sh->nodes.position[3 * k];
        ldem_vec3 q = ldem_vec3_make(p[0] * (1 + eps * A_DIAG[0]), p[1] * (1 + eps * A_DIAG[1]),
                                     p[2] * (1 + eps * A_DIAG[2]));
        double phi;
        ldem_vec3 g;
        ldem_levelset_sample_remap(&sh->lset, sh->modes, &eps, q, &phi, &g);
        worst = fabs(phi) > worst ? fabs(phi) : worst;
    }
    cr_assert(worst < 1e-2, "max |phi| at the deformed nodes %g", worst);
    ldem_world_free(&w);
}

Test(sim_modal, modal_dt_limit)
{
    ldem_world w;
    deformable_world(&w, ldem_vec3_zero(), 0.0, 8.0, 0.5); /* ω = 4 */
    cr_assert_float_eq(ldem_world_modal_dt(&w, 0.2), 0.05, 1e-14);
    ldem_world_free(&w);
}
