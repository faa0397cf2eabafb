/* A DEM loop of one's own with the exact Jäger tangential law embedded, built against the
 * installed libldem-contact (pkg-config ldem-contact): nothing of ldem's runtime, only the
 * contact layer (Hertz pair constants, the history pool, the Jäger law, contact frames).
 *
 * A glass sphere B on a glass half-space (the plane z = 0, R2 = ∞), B driven kinematically by
 * the loop below (its own particle struct and time stepping): pressed into the plane to the
 * approach d0, it slides along it at constant speed, reverses, and slides back. At constant normal approach the exact law must
 * follow the closed forms of Cattaneo and Mindlin-Deresiewicz (docs/jager.md §1):
 *   loading        T(s) = μN (1 − (1 − s/s*)^{3/2}),          s* = μκ d0 (full sliding),
 *   after reversal T = T1 − 2μN (1 − (1 − Δ/(2 s*))^{3/2}) (Masing), Δ the move back.
 * Exit status 0 when every step agrees to 1e-9 of μN. */
#include <ldem/contact/frame.h>
#include <ldem/contact/hertz.h>
#include <ldem/contact/history.h>
#include <ldem/contact/jager.h>
#include <math.h>
#include <stdio.h>

typedef struct particle {
    double x[3], v[3], radius;
} particle;

static double cattaneo(double mu_n, double s, double smax)
{
    return s >= smax ? mu_n : mu_n * (1.0 - pow(1.0 - s / smax, 1.5));
}

int main(void)
{
    const double R = 1e-3, E = 70e9, nu = 0.25, mu = 0.3, d0 = 1e-6, dt = 1e-7;
    particle b = {{0, 0, R - d0}, {0, 0, 0}, R};
    ldem_err err;
    ldem_elastic_pair pair;
    ldem_jager_params params;
    ldem_history_pool pool;
    if (ldem_elastic_pair_init(&pair, E, nu, R, INFINITY, &err) ||
        ldem_jager_params_init(&params, &pair, mu, 0.0, &err) ||
        ldem_history_pool_init(&pool, 64, true, &err)) {
        fprintf(stderr, "jager_loop: %s\n", err.msg);
        return 1;
    }
    ldem_jager_contact contact;
    ldem_jager_contact_init(&contact);
    ldem_quat frame = ldem_quat_identity();
    const double n_force = ldem_hertz_force(&pair, d0), smax = mu * pair.kappa * d0;
    /* slide to 0.6 s*, then back by 1.2 s* (to the mirror of the turning point), 3000 steps */
    const int steps = 3000, turn = 1000;
    const double speed = 0.6 * smax / (turn * dt);
    double s = 0.0, s_turn = 0.0, t_turn = 0.0, worst = 0.0;
    int touching = 0;
    for (int k = 0; k <= steps; k++) {
        /* the loop's own kinematics: B's velocity, then its position */
        b.v[0] = k == 0 ? 0.0 : (k <= turn ? speed : -speed);
        ldem_vec3 du = ldem_vec3_make(b.v[0] * dt, b.v[1] * dt, b.v[2] * dt);
        for (int c = 0; c < 3; c++)
            b.x[c] += b.v[c] * dt;
        s += b.v[0] * dt;
        /* the plane's normal points to B; B's surface point moves with B (no spin) */
        double overlap = b.radius - b.x[2];
        ldem_vec3 n = ldem_vec3_make(0, 0, 1);
        if (!touching)
            frame = ldem_contact_frame_init(n);
        touching = 1;
        /* the contact: the move of B's surface point against the plane's, in the frame */
        double ds[2];
        ldem_contact_to_frame(frame, du, ds);
        if (ldem_jager_step(&params, &pool, &contact, overlap, ds)) {
            fprintf(stderr, "jager_loop: the history pool could not grow\n");
            return 1;
        }
        /* the force on B: N along the normal, −T (the law's T has the sign of the slide) */
        const double minus_t[2] = {-contact.t[0], -contact.t[1]};
        ldem_vec3 f = ldem_contact_from_frame(frame, minus_t, contact.n);
        double want = k <= turn ? cattaneo(mu * n_force, s, smax)
                                : t_turn - 2.0 * cattaneo(mu * n_force, s_turn - s, 2.0 * smax);
        if (k == turn)
            s_turn = s, t_turn = want;
        double off = fabs(-f.x - want) / (mu * n_force);
        worst = off > worst ? off : worst;
        if (fabs(f.z - contact.n) > 1e-12 * n_force || fabs(contact.n - n_force) > 1e-9 * n_force) {
            fprintf(stderr, "jager_loop: step %d: N %.17g, Hertz %.17g\n", k, contact.n, n_force);
            return 1;
        }
    }
    ldem_history_pool_free(&pool);
    printf("jager_loop: %d steps, slide 0.6 s*, back 1.2 s*: worst |T - closed form| = %.3g "
           "muN\n", steps, worst);
    return worst <= 1e-9 ? 0 : 1;
}
