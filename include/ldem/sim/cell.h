/* ldem/sim/cell.h — the periodic cell: geometry, affine deformation, minimum images, and the
 * stress servo's gain law (design layer 4; pure functions over plain structs).
 *
 * A cell is a parallelepiped whose edge vectors a, b, c are the columns of h (a general 3×3
 * matrix: orthogonal boxes are the diagonal case, nothing assumes it). A point x has the
 * fractional coordinates s = h⁻¹ (x − lo), lo = centre − h (½, ½, ½); the cell holds
 * s ∈ [0, 1)³ and space is tiled by its images x + h n, n ∈ ℤ³.
 *
 * Deformation (LAMMPS's `fix deform ... remap x`): over a step the cell moves by the velocity
 * gradient L, h ← F h with F = exp(L dt), and every position is carried affinely about the
 * fixed centre, x ← centre + F (x − centre). Velocities are left alone: they are the grains'
 * velocities relative to that affine flow, so the kinetic energy and the kinetic stress are
 * the fluctuating ones, and a contact's relative displacement includes the affine part
 * through the positions.
 *
 * Signs: stresses and strains reported by demrun are compression positive (geomechanics,
 * Kuhn); L is the continuum velocity gradient (extension positive).
 */
#ifndef LDEM_SIM_CELL_H
#define LDEM_SIM_CELL_H

#include "ldem/export.h"

#include <stdint.h>

#include "ldem/err.h"
#include "ldem/quat.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_cell {
    int periodic;        /* 0: open space (everything below unused) */
    ldem_vec3 centre;    /* fixed point of the affine deformation */
    ldem_mat3 h;         /* edge vectors as columns */
    ldem_mat3 h_inv;
    ldem_mat3 h_prev;    /* at the previous force evaluation (images' step increments) */
    ldem_mat3 h0;        /* at the start of the run (strains are measured from it) */
    ldem_mat3 L;         /* velocity gradient of the step being taken */
} ldem_cell;

/* Set up a cell from its edge vectors (columns of h) and centre; h_prev = h0 = h, L = 0.
 * LDEM_ERR_INPUT when an entry is not finite or det h ≤ 0 (a flat or left-handed cell). */
LDEM_API int ldem_cell_init(ldem_cell *c, ldem_mat3 h, ldem_vec3 centre, ldem_err *err);

/* Set h (keeping h_prev, h0, L), recomputing h⁻¹. */
LDEM_API void ldem_cell_set_h(ldem_cell *c, ldem_mat3 h);

LDEM_API double ldem_cell_volume(const ldem_mat3 *h);

/* Distance between the two faces of the cell across edge vector k (V / |the other two edges'
 * cross product|): the room a body has along that direction. */
LDEM_API double ldem_cell_width(const ldem_mat3 *h, int k);

/* Fractional coordinates s = h⁻¹ (x − lo). */
LDEM_API ldem_vec3 ldem_cell_fractional(const ldem_cell *c, ldem_vec3 x);

/* The image shift m = ⌊s⌋ that brings x into the cell: x − h m has s ∈ [0, 1) (up to
 * round-off in the subtraction). */
LDEM_API void ldem_cell_wrap_shift(const ldem_cell *c, ldem_vec3 x, int32_t m[3]);

/* h n (the offset of image n) for the matrix h (the cell's h or h_prev). */
LDEM_API ldem_vec3 ldem_cell_offset(const ldem_mat3 *h, const int32_t n[3]);

/* The image n of a separation d = x_j − x_i for which d + h n is shortest in fractional
 * terms: n = −round(h⁻¹ d). It is the true minimum image whenever |d + h n| is below half
 * the smallest width, which the broad phase guarantees for every candidate pair. */
LDEM_API void ldem_cell_min_image(const ldem_cell *c, ldem_vec3 d, int32_t n[3]);

/* exp(A): Taylor terms until they stop changing the sum, after scaling and squaring when
 * 3 max|A_ij| > 1/8. Accurate to round-off for the small L dt of a step; a large A loses
 * about 2^(squarings) ulps to the squarings (5e-15 relative for exp(2.5)). */
LDEM_API ldem_mat3 ldem_mat3_expm(ldem_mat3 a);

/* One step of deformation: h_prev = h, h = F h with F = exp(L dt) returned (callers remap
 * positions with ldem_cell_remap(F, ...)). */
LDEM_API ldem_mat3 ldem_cell_advance(ldem_cell *c, double dt);

/* centre + F (x − centre). */
LDEM_API ldem_vec3 ldem_cell_remap(const ldem_cell *c, const ldem_mat3 *F, ldem_vec3 x);

/* Logarithmic strain of edge direction k since h0, compression positive:
 * −ln(width_k / width0_k). Their sum is −ln(V/V0), the volumetric strain, while the cell's
 * faces keep their angles (any orthogonal cell); the probes' eps_vol is −ln(V/V0) itself. */
LDEM_API double ldem_cell_strain(const ldem_cell *c, int k);

/* F = h h_ref⁻¹: the affine map that took the cell (and every grain's affine position)
 * from h_ref to h. */
LDEM_API ldem_mat3 ldem_cell_deformation(const ldem_cell *c, const ldem_mat3 *h_ref);

/* Frobenius norm of h h_ref⁻¹ − I: how far the cell deformed since h_ref (the neighbour
 * list's). A pair at separation ℓ moves apart or together by at most that × ℓ through the
 * affine part alone. */
LDEM_API double ldem_cell_deformation_since(const ldem_cell *c, const ldem_mat3 *h_ref);

/* ---- control: each normal direction by strain rate or by stress ---- */

enum ldem_cell_drive {
    LDEM_CELL_STRAIN_RATE = 0,   /* L_kk given */
    LDEM_CELL_STRESS = 1,        /* L_kk chosen each step by the servo */
    LDEM_CELL_CYCLIC = 2,        /* strain cycled along a triangle (ldem_cell_cyclic) */
    LDEM_CELL_MEAN_STRESS = 3    /* L_kk chosen by the servo so that the mean stress
                                  * p = (σ_xx + σ_yy + σ_zz)/3 meets the target */
};

/* ---- a cyclic strain drive: a triangle wave in strain ----
 *
 * From the step at which the drive starts (n = 0, time τ = n dt), the direction's
 * logarithmic strain (compression positive, as the probes report it) relative to its value
 * there runs `cycles` cycles of period T_0 at amplitude A_0, then `cycles` of period T_1 at
 * A_1, and so on; within level i, at time τ_i since the level began,
 *
 *     ε = A_i tri(u − ⌊u⌋),   u = τ_i / T_i,
 *     tri(φ) = 4φ (φ < ¼),  2 − 4φ (φ < ¾),  4φ − 4 (otherwise),
 *
 * each cycle starting and ending at the start's strain, its first quarter towards
 * compression; after the last level ε stays 0 (the direction is held). The triangle is
 * continuous, also where one level gives way to the next (at ε = 0), and its |rate|
 * 4 A_i / T_i is constant within a level, so the loops are rate-independent like a
 * quasi-static lab test's. When every T_i/dt is a whole number P_i (within 1e-9,
 * relative), the phase is computed in integers, so that ε(n) is A_i times a ratio of
 * integers rounded once: zero at every cycle's end and ±A_i at every turn when P_i is a
 * multiple of 4 (otherwise the strain still meets the triangle at every step, but the turns
 * fall between steps). Each step's rate is the one that takes the cell's strain from what it
 * is to the triangle's next value (ldem_cell_cyclic_rate), so round-off in h cannot
 * accumulate over the cycles. The phase follows from n alone, which the world keeps (and its
 * checkpoints, with the start's strain), so a restart continues bit for bit. */
enum { LDEM_CELL_CYCLIC_LEVELS = 16 }; /* most amplitudes one drive takes */

typedef struct ldem_cell_cyclic {
    double amplitude[LDEM_CELL_CYCLIC_LEVELS]; /* A_i > 0, in the order they are applied */
    double period[LDEM_CELL_CYCLIC_LEVELS];    /* T_i > 0 (time) */
    uint32_t levels;     /* number of amplitudes, 1..LDEM_CELL_CYCLIC_LEVELS */
    uint32_t cycles;     /* cycles at each amplitude, ≥ 1 */
} ldem_cell_cyclic;

/* ε(n) above: the strain (compression positive) n steps of dt after the drive started. */
LDEM_API double ldem_cell_cyclic_strain(const ldem_cell_cyclic *c, uint64_t n, double dt);

/* The strain rate L_kk (extension positive, like L) of the step from n to n + 1 of a drive
 * that started at strain `start` (ldem_cell_strain's, compression positive): the rate that
 * takes direction k's strain from its value in `cell` now to start + ε(n + 1),
 *     L_kk = (ldem_cell_strain(cell, k) − start − ε(n + 1)) / dt,
 * exact for an orthogonal cell whose L is diagonal, where exp(L dt) scales width k by
 * exp(L_kk dt). Once every cycle is done it holds the start's strain. */
LDEM_API double ldem_cell_cyclic_rate(const ldem_cell *cell, int k, const ldem_cell_cyclic *c,
                                      uint64_t n, double dt, double start);

typedef struct ldem_cell_control {
    int drive[3];            /* enum ldem_cell_drive per direction x, y, z */
    double strain_rate[3];   /* L_kk of strain-controlled directions (1/time, extension +) */
    double stress[3];        /* target σ_kk of stress-controlled directions (compression +);
                              * the target mean stress p of a LDEM_CELL_MEAN_STRESS one */
    ldem_cell_cyclic cyclic[3]; /* the triangle of each LDEM_CELL_CYCLIC direction */
    double gain;             /* α ∈ (0, 1]: fraction of the stress error the affine
                              * response corrects per step */
    double integral;         /* ι ∈ [0, 1): the integral term's gain (0: proportional only) */
    double max_rate;         /* cap on |L_kk| of stress-controlled directions (> 0) */
} ldem_cell_control;

/* The servo's strain rate for a stress-controlled direction (NaN for a NaN stress):
 *
 *     L_kk = clamp( α (σ_kk − σ*_k) / (K_k dt), −max_rate, max_rate )
 *
 * with K_k the assembly's affine (Voigt) stiffness for that direction,
 * K_k = (1/V) Σ_contacts k_n (n_k ℓ_k)², k_n = dN/dδ, ℓ the branch vector. An affine strain
 * rate L_kk over dt changes σ_kk by −K_k L_kk dt at once, so the loop removes the fraction α
 * of the error per step where the assembly responds affinely and less where the grains
 * relax (the real response is softer than Voigt's): it cannot overshoot through the affine
 * response for α ≤ 1, and the cap keeps a loose assembly (K ≈ 0) from being slammed shut.
 * A direction without contacts (K = 0) moves at ±max_rate toward its target. */
LDEM_API double ldem_cell_servo_rate(double sigma, double target, double stiffness, double dt,
                                     double gain, double max_rate);

/* The servo with an integral term, for a target the assembly keeps pulling away from (in a
 * biaxial test the lateral direction must dilate at a rate that keeps changing, and the
 * proportional law alone lags it by the error that drives that rate):
 *
 *     p = ldem_cell_servo_rate(…),   L_kk = clamp(p + I, ±max_rate),   I += ι p
 *
 * I, the accumulated rate, is the caller's state per direction (zero at the start); it only
 * accumulates while L_kk is under the cap, and stays within ±max_rate (no wind-up). Against
 * an affine response (the error e then obeys e' = (1 − α) e − K dt I, K dt I' = K dt I + ια e,
 * whose characteristic roots satisfy z² − (2 − α) z + 1 − α + ια = 0) the loop is stable for
 * ι < 1 whatever α, and also when the real response is softer than Voigt's by any factor,
 * since that scales α and ια alike; it does not oscillate for ι ≤ α/4 (against the affine
 * response; for a response s times softer, ι ≤ α/(4s)), and its slow root is about 1 − ι, so
 * it settles in some 1/ι steps. A constant drift in the error is then followed with no lag.
 * ι = 0 is ldem_cell_servo_rate, bit for bit. */
LDEM_API double ldem_cell_servo_rate_pi(double sigma, double target, double stiffness, double dt,
                                        double gain, double integral, double max_rate,
                                        double *accumulated);

#ifdef __cplusplus
}
#endif
#endif
