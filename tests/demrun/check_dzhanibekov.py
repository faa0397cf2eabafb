"""Free rotation of a triaxial level-set grain (scene dzhanibekov.yaml) against the rigid-body
invariants and the closed-form period of Euler's equations.

usage: check_dzhanibekov.py RUN BUNDLE DENSITY WX,WY,WZ TOL_L TOL_E TOL_T MIN_FLIPS
  RUN        demrun's output folder (surfaces.pvd frames and probes.tsv)
  BUNDLE     the grain's .ldg (its BODY inertia and NODE positions, body frame)
  DENSITY    the grain's material density (scales the bundle's inertia)
  WX,WY,WZ   initial angular velocity, world = body frame (the grain starts unrotated)
  TOL_L      bound on max |L(t) − L(0)| / |L(0)|, world angular momentum from the frames
  TOL_E      bound on max |K(t)/K(0) − 1|, kinetic energy from the probes' `kinetic` column
  TOL_T      bound on the relative difference between the mean time between flips and half
             the period of the Jacobi elliptic solution
  MIN_FLIPS  the body-frame ω about the intermediate axis must change sign at least this often

The pose and angular velocity of every frame are recovered from the posed surface (a rigid
fit to the bundle's nodes, and v + ω × r fitted to the surface velocities); both fits must be
exact to rounding. L = R diag(I) Rᵀ ω in world components."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import demrun_frames as df  # noqa: E402
import ldg  # noqa: E402


def elliptic_k(m):
    """Complete elliptic integral of the first kind K(m), m = k², by the arithmetic-geometric
    mean: K = π / (2 AGM(1, √(1 − m)))."""
    a, b = 1.0, math.sqrt(1.0 - m)
    while abs(a - b) > 1e-15 * a:
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def euler_period(inertia, omega):
    """Period of ω(t) for the torque-free body with principal moments I1 < I2 < I3 (Landau &
    Lifshitz, Mechanics §37): with 2E = Σ I ω², L² = Σ I² ω², in the case L² > 2E I2 (ω
    circulates about axis 3; when L² < 2E I2, about axis 1: exchange axes 1 and 3)
        T = 4 K(k) √(I1 I2 I3 / ((I3 − I2)(L² − 2E I1))),
        k² = (I2 − I1)(2E I3 − L²) / ((I3 − I2)(L² − 2E I1)).
    ω2 is proportional to sn, which changes sign twice per period."""
    i1, i2, i3 = inertia
    e2 = float(np.sum(inertia * omega**2))
    l2 = float(np.sum((inertia * omega) ** 2))
    if l2 < e2 * i2:
        i1, i3 = i3, i1
    m = (i2 - i1) * (e2 * i3 - l2) / ((i3 - i2) * (l2 - e2 * i1))
    return 4.0 * elliptic_k(m) * math.sqrt(i1 * i2 * i3 / ((i3 - i2) * (l2 - e2 * i1)))


def zero_crossings(t, y):
    """Times where y changes sign, by linear interpolation between samples."""
    k = np.nonzero(np.sign(y[1:]) != np.sign(y[:-1]))[0]
    return t[k] - y[k] * (t[k + 1] - t[k]) / (y[k + 1] - y[k])


def main():
    if len(sys.argv) != 9:
        raise SystemExit(__doc__)
    run, bundle = sys.argv[1:3]
    density = float(sys.argv[3])
    omega0 = np.array([float(x) for x in sys.argv[4].split(",")])
    tol_l, tol_e, tol_t = map(float, sys.argv[5:8])
    min_flips = int(sys.argv[8])

    b = ldg.read_bundles(bundle)[0]
    body = ldg.body(b["BODY"])
    inertia = density * body["inertia"] / body["density"]
    if not (inertia[0] < inertia[1] < inertia[2]):
        raise SystemExit(f"principal moments {inertia} are not increasing along x, y, z: the "
                         "test assumes body y is the intermediate axis")
    nodes = ldg.nodes(b["NODE"])["position"]

    t, _, rot, _, w, pose_res, vel_res = df.surface_states(run, lambda g, p: nodes)
    rot, w = rot[:, 0], w[:, 0]
    ok = True

    def check(name, got, tol):
        nonlocal ok
        print(f"{name}: {got:.3g} (bound {tol:.3g})")
        if not got <= tol:
            print(f"FAIL {name}")
            ok = False

    # The frames show a rigid body; the recovered state starts where the scene put it.
    check("pose fit residual / size", pose_res / np.abs(nodes).max(), 1e-12)
    check("velocity fit residual (relative)", vel_res, 1e-12)
    check("initial omega error (relative)",
          np.linalg.norm(w[0] - omega0) / np.linalg.norm(omega0), 1e-12)

    # World angular momentum L = R I Rᵀ ω, conserved.
    ang = np.einsum("fij,j,fkj,fk->fi", rot, inertia, rot, w)
    l0 = inertia * omega0
    check("max |L - L0| / |L0|", np.linalg.norm(ang - l0, axis=1).max() / np.linalg.norm(l0),
          tol_l)

    # Kinetic energy from the probes (the grain does not translate): ½ Σ I ω², conserved.
    p = df.read_probes(os.path.join(run, "probes.tsv"))
    k_exact = 0.5 * float(np.sum(inertia * omega0**2))
    check("probes kinetic(0) vs 1/2 I w0^2 (relative)", abs(p["kinetic"][0] / k_exact - 1), 1e-12)
    check("max |K/K0 - 1|", np.abs(p["kinetic"] / p["kinetic"][0] - 1).max(), tol_e)

    # The flips: ω about the intermediate axis (body y) changes sign, every half period.
    w_body = np.einsum("fji,fj->fi", rot, w)
    flips = zero_crossings(t, w_body[:, 1])
    print(f"flips: {len(flips)} at t = {np.array2string(flips, precision=2)}")
    if len(flips) < min_flips:
        print(f"FAIL only {len(flips)} flips, expected at least {min_flips}")
        sys.exit(1)
    half = (flips[-1] - flips[0]) / (len(flips) - 1)
    expected = 0.5 * euler_period(inertia, omega0)
    print(f"mean time between flips {half:.6g}, Jacobi half period {expected:.6g}")
    check("flip interval vs closed form (relative)", abs(half / expected - 1), tol_t)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
