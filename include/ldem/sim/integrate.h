/* ldem/sim/integrate.h — time integration of rigid grains (pure functions over plain data).
 *
 * One step of demrun is a kick–drift–kick splitting (velocity Verlet):
 *   1. half kick:  v += (dt/2) F/m;   L_b += (dt/2) Rᵀ τ          (forces of the last evaluation)
 *   2. drift:      x += dt v;         free-rotor flow of (q, L_b) over dt
 *   3. new forces at the new pose (contacts, gravity, walls)
 *   4. half kick with the new forces, then damping.
 *
 * The free-rotor drift is the symmetric splitting of Dullweber, Leimkuhler & McLachlan
 * (J. Chem. Phys. 107, 1997): the rigid body's kinetic energy T = Σ L_k²/(2 I_k) is split
 * into its three axis terms, each of whose flows is an exact rotation about a principal axis;
 * composing them as X(dt/2) Y(dt/2) Z(dt) Y(dt/2) X(dt/2) is second order, symplectic and
 * time-reversible, keeps |L| exactly, keeps q a unit quaternion (renormalized only against
 * round-off), and leaves the world angular momentum R L_b constant to round-off. For a body
 * with I_x = I_y = I_z (a sphere) every split flow is trivial and the drift is the exact
 * rotation q ← exp(dt ω) q.
 *
 * Angular momentum lives in the principal body frame (L_b), so non-spherical grains tumble
 * correctly (Dzhanibekov's intermediate-axis flips) without inverting a world inertia tensor.
 */
#ifndef LDEM_SIM_INTEGRATE_H
#define LDEM_SIM_INTEGRATE_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/quat.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The free-rotor flow over dt for principal moments I (all > 0): updates the orientation q
 * (body → world) and the body-frame angular momentum L_b in place. */
LDEM_API void ldem_rotor_drift(ldem_quat *q, ldem_vec3 *L_b, ldem_vec3 inertia, double dt);

/* Kinetic energy of rotation Σ L_k²/(2 I_k). */
LDEM_API double ldem_rotor_energy(ldem_vec3 L_b, ldem_vec3 inertia);

/* World angular velocity R(q) (L_b / I). */
LDEM_API ldem_vec3 ldem_rotor_omega(ldem_quat q, ldem_vec3 L_b, ldem_vec3 inertia);

/* Body-frame angular momentum of a body with world angular velocity ω: I (Rᵀ ω). */
LDEM_API ldem_vec3 ldem_rotor_momentum(ldem_quat q, ldem_vec3 omega, ldem_vec3 inertia);

/* Half kick of one body: v += h F/m, L_b += h Rᵀ τ (h = dt/2). */
LDEM_API void ldem_kick(ldem_vec3 *v, ldem_vec3 *L_b, ldem_quat q, ldem_vec3 force,
                        ldem_vec3 torque, double inv_mass, double h);

/* Cundall's local non-viscous damping (PFC, YADE's NewtonIntegrator): each component of the
 * force is reduced by α|F_k| against the velocity component's sign,
 * F_k ← F_k − α |F_k| sign(v_k); the same for torque against ω. α in [0, 1). */
LDEM_API ldem_vec3 ldem_damp_local(ldem_vec3 force, ldem_vec3 velocity, double alpha);

/* The rates of work the two dampings remove, for the energy balance: P = −F_damp · v ≥ 0. */
LDEM_API double ldem_damp_local_power(ldem_vec3 force, ldem_vec3 velocity, double alpha);

/* Structure-of-arrays loops over n bodies for the two halves of a step. Bodies with
 * (flags[i] & LDEM_BODY_FIXED) keep their velocity and move with it (x += dt v), q and L_b
 * unchanged.
 * Forces and torques are totals at the current pose (world components). */
LDEM_API void ldem_integrate_first_half(size_t n, const uint32_t *flags, const double *inv_mass,
                                        const ldem_vec3 *inertia, ldem_vec3 *x, ldem_vec3 *v,
                                        ldem_quat *q, ldem_vec3 *L_b, const ldem_vec3 *force,
                                        const ldem_vec3 *torque, double dt);
LDEM_API void ldem_integrate_second_half(size_t n, const uint32_t *flags, const double *inv_mass,
                                         ldem_vec3 *v, const ldem_quat *q, ldem_vec3 *L_b,
                                         const ldem_vec3 *force, const ldem_vec3 *torque,
                                         double dt);

#ifdef __cplusplus
}
#endif
#endif
