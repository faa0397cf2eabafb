/* A second DEM loop of one's own with the exact Jäger law embedded (libldem-contact alone, as
 * jager_loop.c): a foreign DEM code that embeds ldem's exact Jäger law and nothing else
 * of ldem (no scene, no world, no OpenMP). Its own time loop presses two spheres together and
 * then shears them at constant approach, and checks the tangential force the law returns
 * against Mindlin's closed form for monotonic loading at constant N:
 *
 *     T = μN (1 − (1 − δ_t/δ_slip)^{3/2}) for δ_t < δ_slip, μN beyond,
 *     δ_slip = 3μN / (16 G* a),  1/G* = (2 − ν1)/G1 + (2 − ν2)/G2,  a = √(R* d),
 *
 * with N = (4/3) E* √R* d^{3/2} (Hertz), all computed here from E, ν and the radii, not from
 * the library. The shear is an orbit of sphere 2 around sphere 1 at constant centre distance,
 * so that the approach, and N, stay constant while the contact normal turns, and the contact
 * frame (ldem/contact/frame.h) follows it as in any DEM code.
 * Exit status 0 when every step agrees to 1e-9 μN. */
#include <ldem/contact/frame.h>
#include <ldem/contact/hertz.h>
#include <ldem/contact/history.h>
#include <ldem/contact/jager.h>
#include <ldem/err.h>
#include <ldem/vec3.h>
#include <math.h>
#include <stdio.h>

/* The host code's own state: plain arrays, converted at the law's interface. */
typedef struct sphere {
    double x[3];
    double r;
} sphere;

static ldem_vec3 vec_of(const double a[3])
{
    return ldem_vec3_make(a[0], a[1], a[2]);
}

/* The host code's contact record: the frame and the law's state live in it. */
typedef struct host_contact {
    int touching;
    ldem_quat frame;
    ldem_jager_contact law;
} host_contact;

static const double E = 63e9, NU = 0.23, MU = 0.3; /* glass, both spheres */
static const double R = 1e-3;                      /* both radii, m */
static const double D0 = 1e-6;                     /* approach held while shearing, m */

/* Independent closed forms (the header comment). */
static double hertz_n(double d)
{
    double estar = E / (2 * (1 - NU * NU)), rstar = R / 2;
    return 4.0 / 3.0 * estar * sqrt(rstar) * pow(d, 1.5);
}

static double mindlin_t(double d, double delta_t)
{
    double n = hertz_n(d), g = E / (2 * (1 + NU)), gstar = 1 / (2 * (2 - NU) / g);
    double a = sqrt(R / 2 * d), slip = 3 * MU * n / (16 * gstar * a);
    if (delta_t >= slip)
        return MU * n;
    return MU * n * (1 - pow(1 - delta_t / slip, 1.5));
}

/* One step of the host's contact detection and force law for the pair (s1, s2), given how far
 * each centre moved in the step (the spheres do not spin). Returns LDEM_OK or an error. */
static int contact_step(const ldem_jager_params *p, ldem_history_pool *pool, host_contact *hc,
                        const sphere *s1, const sphere *s2, const double dx1[3],
                        const double dx2[3], double ds_out[2])
{
    ldem_vec3 branch = ldem_vec3_sub(vec_of(s2->x), vec_of(s1->x));
    double dist = ldem_vec3_norm(branch), d = s1->r + s2->r - dist;
    ldem_vec3 n = ldem_vec3_scale(branch, 1 / dist); /* from sphere 1 to sphere 2 */
    ds_out[0] = ds_out[1] = 0;
    if (d <= 0 && !hc->touching)
        return LDEM_OK;
    if (!hc->touching)
        hc->frame = ldem_contact_frame_init(n);
    else
        hc->frame = ldem_contact_frame_follow_exact(hc->frame, ldem_quat_identity(), ldem_quat_identity(), n);
    /* The relative displacement of the contact point (no spin: the centres'), in the frame. */
    ldem_vec3 du = ldem_vec3_sub(vec_of(dx2), vec_of(dx1));
    ldem_contact_to_frame(hc->frame, du, ds_out);
    hc->touching = d > 0;
    return ldem_jager_step(p, pool, &hc->law, d, ds_out);
}

int main(void)
{
    ldem_err err;
    ldem_elastic_pair pair;
    ldem_jager_params params;
    ldem_history_pool pool;
    if (ldem_elastic_pair_init(&pair, E, NU, R, R, &err) ||
        ldem_jager_params_init(&params, &pair, MU, 0.0, &err) ||
        ldem_history_pool_init(&pool, 16, false, &err)) {
        ldem_err_print(&err, "consumer_contact", stderr);
        return 1;
    }
    host_contact hc = {0};
    ldem_jager_contact_init(&hc.law);

    /* Sphere 1 fixed at the origin; sphere 2 starts 0.5 µm apart along n0 and is driven:
     * pressed along −n0 at 10 mm/s to the approach D0, then carried round sphere 1 at the
     * constant centre distance L at 2 mm/s, towards e0. */
    const double n0[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, e0[3] = {2.0 / 3, 1.0 / 3, -2.0 / 3};
    const double dt = 1e-6, v_press = 1e-2, v_shear = 2e-3;
    const double L = 2 * R - D0, l_start = 2 * R + 0.5e-6;
    sphere s1 = {{0, 0, 0}, R}, s2;
    for (int k = 0; k < 3; k++)
        s2.x[k] = l_start * n0[k];
    s2.r = R;

    const double slip = MU * pair.kappa * D0; /* the library's own δ_slip, for the run's length */
    double time = 0, theta = 0, s_total[2] = {0, 0}, worst = 0, worst_n = 0, t_last = 0;
    int shear_steps = 0, slipping_steps = 0, rc = LDEM_OK;
    const double zero[3] = {0, 0, 0};
    /* Pressing ends exactly on L after a whole number of steps, so that every shear step is
     * tangential only (the closed form is for constant N). */
    const int press_steps = (int)lround((l_start - L) / (v_press * dt));
    for (int step = 1; rc == LDEM_OK; step++) {
        time = step * dt;
        double l = L;
        int shearing = step > press_steps;
        if (!shearing) {
            l = l_start - (l_start - L) * step / press_steps;
        } else {
            if (theta * L > 1.25 * slip)
                break;
            theta += v_shear * dt / L;
        }
        double x_new[3], dx2[3];
        for (int k = 0; k < 3; k++) {
            x_new[k] = l * (cos(theta) * n0[k] + sin(theta) * e0[k]);
            dx2[k] = x_new[k] - s2.x[k];
            s2.x[k] = x_new[k];
        }
        double ds[2];
        rc = contact_step(&params, &pool, &hc, &s1, &s2, zero, dx2, ds);
        if (rc || !shearing)
            continue;
        /* Monotonic shear at constant approach: compare with Mindlin. */
        s_total[0] += ds[0];
        s_total[1] += ds[1];
        double d = 2 * R - ldem_vec3_norm(vec_of(s2.x)), n = hertz_n(d);
        double t = hypot(hc.law.t[0], hc.law.t[1]),
               want = mindlin_t(d, hypot(s_total[0], s_total[1]));
        worst = fmax(worst, fabs(t - want) / (MU * n));
        worst_n = fmax(worst_n, fabs(hc.law.n - n) / n);
        /* The force points along the accumulated displacement (it is T in the frame). */
        double along = (hc.law.t[0] * s_total[0] + hc.law.t[1] * s_total[1]) /
                       (t * hypot(s_total[0], s_total[1]));
        if (t > 0 && along < 1 - 1e-12)
            worst = fmax(worst, 1 - along);
        shear_steps++;
        slipping_steps += t >= MU * n * (1 - 1e-12);
        t_last = t;
    }
    if (rc) {
        fprintf(stderr, "consumer_contact: ldem_jager_step failed (%d)\n", rc);
        return 1;
    }
    /* The force on sphere 2 in global coordinates, for the host's integrator. */
    ldem_vec3 f_t = ldem_contact_from_frame(hc.frame, hc.law.t, 0.0);
    int ok = worst <= 1e-9 && worst_n <= 1e-12 && shear_steps > 100 && slipping_steps > 10;
    printf("ldem-contact: %.3g ms, %d shear steps at N = %.6g N (%d in gross slip, T = %.6g N, "
           "|F_t| = %.6g N); worst |T - Mindlin| = %.2g muN, |N/Hertz - 1| = %.2g: %s\n",
           time * 1e3, shear_steps, hc.law.n, slipping_steps, t_last, ldem_vec3_norm(f_t), worst,
           worst_n, ok ? "ok" : "FAILED");
    ldem_jager_release(&pool, &hc.law);
    ldem_history_pool_free(&pool);
    return ok ? 0 : 1;
}
