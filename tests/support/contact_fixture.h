/* Shared helpers of the contact-law tests: material sets, the pair constants recomputed
 * independently of libldem, the closed forms the tests compare against, a seeded PRNG, a stack
 * walker that checks the history invariants, and an independent collinear MDR spring model.
 *
 * Nothing here calls the library to produce an expected value: the constants come from
 * docs/jager.md §1 along a different algebraic route (through the shear modulus G), and the
 * spring model solves the MDR springs directly (one clamp per spring and straight step). */
#ifndef LDEM_TEST_CONTACT_FIXTURE_H
#define LDEM_TEST_CONTACT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ldem/contact/hertz.h"
#include "ldem/contact/history.h"
#include "ldem/contact/jager.h"

/* A pair of spheres of one material. */
typedef struct cf_material {
    double E, nu, mu, R1, R2;
} cf_material;

extern const cf_material CF_GLASS; /* E 70 GPa, nu 0.25, mu 0.3, R 5 mm and 3 mm */
extern const cf_material CF_STEEL; /* E 210 GPa, nu 0.3, mu 0.15, R 4 mm and 4 mm */

/* Pair constants recomputed from E, nu, R1, R2 (docs/jager.md §1), via G = E/(2(1+nu)):
 * E* = G/(1−ν), G* = 2G/(2−ν), κ = E* / G*, c_N = (4/3) E* √R*. */
typedef struct cf_consts {
    double rstar, estar, gstar, kappa, cn, mu;
} cf_consts;

cf_consts cf_consts_of(const cf_material *m);

/* Hertz N(d) = c_N d^{3/2} (0 for d ≤ 0) and its inverse d(N) = (N/c_N)^{2/3}. */
double cf_hertz_n(const cf_consts *k, double d);
double cf_hertz_d(const cf_consts *k, double n);
/* Contact radius a = √(R* d). */
double cf_radius(const cf_consts *k, double d);
/* Cattaneo–Mindlin sliding displacement s_max = μκd (total shift). */
double cf_smax(const cf_consts *k, double d);
/* Virgin Cattaneo–Mindlin curve at constant d: T(s) = μN[1 − (1 − s/s_max)^{3/2}] for
 * 0 ≤ s ≤ s_max, μN beyond (s ≥ 0 only). */
double cf_cattaneo(const cf_consts *k, double d, double s);

/* Mindlin–Deresiewicz §17 (proportional oblique loading, dT/dN = 2μ, from (N0, 0) up to N1
 * and back): the state (d, s, T) at normal force n on the loading leg (reversal = false) or on
 * the way back from N1 (reversal = true). Derivation in test_contact_jager_closed_form.c. */
typedef struct cf_md_state {
    double d, s, t, n;
} cf_md_state;

cf_md_state cf_md17(const cf_consts *k, double n0, double n1, double n, bool reversal);

/* Fill params (beta, energy tracking) for a material, asserting every init succeeds. */
void cf_params(const cf_material *m, double beta, bool energy, ldem_jager_params *p);
/* An empty pool (asserting success). */
void cf_pool(ldem_history_pool *pool, uint32_t cells, bool cache_force);

/* Walk the contact's stack and assert the invariants of docs/jager.md §2: length cells,
 * levels strictly increasing from the bottom and positive, top level = d, |w| ≤ μ; and that the
 * carried T equals Σ w_k (N_k − N_{k−1}) from ldem_jager_force_from_stack to tol_mun·μN.
 * Returns the number of slip cells (|w| = μ to 1e-12). */
int cf_check_stack(const ldem_jager_params *p, const ldem_history_pool *pool,
                   const ldem_jager_contact *c, double tol_mun);

/* xorshift64*: a seeded generator of our own so every platform sees the same histories. */
typedef struct cf_rng {
    uint64_t s;
} cf_rng;

void cf_rng_seed(cf_rng *r, uint64_t seed);
uint64_t cf_rng_next(cf_rng *r);
double cf_rng_uniform(cf_rng *r); /* [0, 1) */
double cf_rng_sym(cf_rng *r);     /* [−1, 1) */

/* The next state of a random history, in place. The approach mostly stays in contact,
 * d ∈ (0.05, 1.2)·d_ref, going up and down; 10% of steps keep d, 4% separate (d < 0) and 2%
 * land exactly on d = 0. Tangential moves are ±0.4·s_ref, 10% are ±3·s_ref (gross sliding),
 * 10% are zero. collinear: moves along the fixed unit vector (0.6, 0.8), else in random
 * directions. */
void cf_random_state(cf_rng *r, double d_ref, double s_ref, bool collinear, double *d, double s[2]);

/* Collinear MDR spring model (Popov–Heß), the independent reference for collinear histories.
 * Springs sit at x_i = (i + ½)h, i < n, h = x_max/n, with level z_i = x_i²/R*; a spring in
 * contact carries u with |u| ≤ μκ(d − z). For a straight step (d0, s0) → (d1, s1) the input
 * u + (s1 − s0)·(fraction in contact) and the bounds ±μκ(d(t) − z) are linear in the step
 * parameter, so the play operator's end value is the clamp of the free end value (a spring
 * that reaches a bound stays on it, since u − b is linear; it cannot reach the opposite bound
 * unless d falls to z, when it leaves). Springs with d1 ≤ z leave (u = 0); a spring entering
 * at fraction t0 = (z − d0)/(d1 − d0) receives (s1 − s0)(1 − t0). Then
 *   T = 2G* Σ u_i h     (midpoint rule of T = 2G* ∫_0^a u dx, error O(h²))
 *   N = 2E* Σ (d − z_i)+ h. */
typedef struct cf_mdr {
    size_t n;
    double h;
    double *z, *u;
    double d, s;
    cf_consts k;
} cf_mdr;

void cf_mdr_init(cf_mdr *m, const cf_consts *k, double d_max, size_t n);
void cf_mdr_free(cf_mdr *m);
void cf_mdr_move_to(cf_mdr *m, double d1, double s1);
double cf_mdr_t(const cf_mdr *m);
double cf_mdr_n(const cf_mdr *m);

#endif
