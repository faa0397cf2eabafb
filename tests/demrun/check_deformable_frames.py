"""Deformable grains in demrun's outputs, against the bundle (scene beam_free.yaml: free
grains, no contact).

usage: check_deformable_frames.py RUN SCENE BUNDLE TOL_POSE TOL_MODAL
  RUN        demrun's output folder (surfaces.pvd frames, probes.tsv)
  SCENE      the scene file (initial positions, orientations, velocities, ε, ε̇)
  BUNDLE     the beam's .ldg (NODE positions, MODE node values, KMAT, MMAT)
  TOL_POSE   bound on surface points, displacements and velocities, relative to the grain's
             size (or the largest velocity)
  TOL_MODAL  bound on the relative differences of the probes' modal columns

Checks:
  frame 0    every surface point of grain g at X + R(x + εΦ(x)) with X, R, ε from the scene
             and x, Φ the bundle's node values; displacement = R εΦ, displacement_magnitude =
             |R εΦ| (Float64), zeros for the rigid grain; velocity = v + ω × r + R ε̇Φ.
  frames     later frames: points minus displacement are a rigid pose of the bundle's nodes
             (fit), and displacement = R εΦ with ε from the probes row of that step.
  probes     columns g0.*, g1.* present and none for the rigid grain 2; Q = 0 (no contacts);
             Fint = K ε; modal_elastic = Σ ½Kε², modal_kinetic = Σ ½Mε̇²; ε(t) follows the
             velocity-Verlet solution of M ε̈ = −K ε in closed form (cos(θ) = 1 − (ω dt)²/2).
"""
import math
import os
import sys

import numpy as np
import yaml

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "modefit"))
import demrun_frames as df  # noqa: E402
import modes_read as mr  # noqa: E402

failures = []


def check(name, value, bound):
    ok = value <= bound
    print(f"{'ok ' if ok else 'BAD'} {name}: {value:.3e} (bound {bound:.1e})")
    if not ok:
        failures.append(name)


def quat_matrix(q):
    q = np.asarray(q, float)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def main():
    run, scene_path, bundle_path = sys.argv[1:4]
    tol_pose, tol_modal = float(sys.argv[4]), float(sys.argv[5])
    scene = yaml.safe_load(open(scene_path))
    grains = scene["grains"]
    bundle = mr.grain(bundle_path)
    x_ref = bundle["nodes"]["position"]
    phi = bundle["modes"]["nodes"][0]          # one mode: (nodes, 3)
    if phi.shape != x_ref.shape:
        print(f"BAD the bundle's MODE has {phi.shape[0]} node values for {len(x_ref)} nodes")
        return 1
    K, M = bundle["K"][0, 0], bundle["M"][0, 0]
    size = np.abs(x_ref).max()
    deformable = [g.get("deformable", True) for g in grains]
    eps0 = [g.get("modes", {}).get("amplitude", [0.0])[0] if d else 0.0
            for g, d in zip(grains, deformable)]
    rate0 = [g.get("modes", {}).get("rate", [0.0])[0] if d else 0.0
             for g, d in zip(grains, deformable)]

    # ---- frame 0 against the scene ----
    series = df.read_pvd(os.path.join(run, "surfaces.pvd"))
    pts, arr = df.read_vtu(series[0][1])
    if arr["displacement"].dtype != np.float64 or arr["displacement_magnitude"].dtype != np.float64:
        failures.append("displacement arrays are not Float64")
    gid = arr["id"]
    e_pos = e_disp = e_mag = e_vel = 0.0
    for g, spec in enumerate(grains):
        sel = gid == g
        if sel.sum() != len(x_ref):
            failures.append(f"frame 0: grain {g} has {sel.sum()} points, the bundle {len(x_ref)}")
            continue
        R = quat_matrix(spec.get("orientation", [1, 0, 0, 0]))
        X = np.array(spec["position"], float)
        v = np.array(spec.get("velocity", [0, 0, 0]), float)
        w = np.array(spec.get("angular_velocity", [0, 0, 0]), float)
        u = eps0[g] * phi @ R.T
        r = (x_ref + eps0[g] * phi) @ R.T
        e_pos = max(e_pos, np.abs(pts[sel] - (X + r)).max() / size)
        e_disp = max(e_disp, np.abs(arr["displacement"][sel] - u).max() / size)
        e_mag = max(e_mag, np.abs(arr["displacement_magnitude"][sel]
                                  - np.linalg.norm(u, axis=1)).max() / size)
        vel = v + np.cross(w, r) + rate0[g] * phi @ R.T
        scale = max(np.abs(vel).max(), 1e-300)
        e_vel = max(e_vel, np.abs(arr["velocity"][sel] - vel).max() / scale)
        if not deformable[g] and np.any(arr["displacement"][sel] != 0.0):
            failures.append(f"frame 0: the rigid grain {g} has a nonzero displacement")
    check("frame 0: points X + R(x + eps Phi)", e_pos, tol_pose)
    check("frame 0: displacement R eps Phi", e_disp, tol_pose)
    check("frame 0: displacement_magnitude", e_mag, tol_pose)
    check("frame 0: velocity v + w x r + R rate Phi", e_vel, tol_pose)
    moved = max(np.abs(eps0[g]) * np.abs(phi).max() for g in range(len(grains))) / size
    if moved < 1e3 * tol_pose:
        failures.append(f"the initial deformation {moved:.2e} is too small to test")

    # ---- probes ----
    p = df.read_probes(os.path.join(run, "probes.tsv"))
    for g in range(len(grains)):
        for c in ("eps", "rate", "Q", "Fint"):
            name = f"g{g}.{c}0"
            if deformable[g] != (name in p):
                failures.append(f"probes: column {name} {'missing' if deformable[g] else 'present'}")
    if failures:
        print("\n".join("BAD " + f for f in failures))
        return 1
    if np.any(p["contacts"] != 0):
        failures.append("probes: the free grains touched")
    q_max = max(np.abs(p[f"g{g}.Q0"]).max() for g in (0, 1))
    if q_max != 0.0:
        failures.append(f"probes: generalized contact force {q_max} without contacts")
    e_fint = max(np.abs(p[f"g{g}.Fint0"] - K * p[f"g{g}.eps0"]).max()
                 / (K * np.abs(p[f"g{g}.eps0"]).max()) for g in (0, 1))
    check("probes: Fint = K eps", e_fint, tol_modal)
    el = sum(0.5 * K * p[f"g{g}.eps0"] ** 2 for g in (0, 1))
    kin = sum(0.5 * M * p[f"g{g}.rate0"] ** 2 for g in (0, 1))
    total = el + kin
    check("probes: modal_elastic = sum K eps^2 / 2",
          np.abs(p["modal_elastic"] - el).max() / total.max(), tol_modal)
    check("probes: modal_kinetic = sum M rate^2 / 2",
          np.abs(p["modal_kinetic"] - kin).max() / total.max(), tol_modal)
    # velocity Verlet of M e'' = -K e: e_n = e0 cos(n th) + B sin(n th), cos th = 1 - (w dt)^2/2,
    # e_1 = e0 + dt r0 - dt^2/2 w^2 e0 fixes B
    steps, t = p["step"], p["t"]
    dt = t[-1] / steps[-1]
    om2 = K / M
    th = math.acos(1.0 - 0.5 * om2 * dt * dt)
    e_traj = 0.0
    for g in (0, 1):
        e1 = eps0[g] + dt * rate0[g] - 0.5 * dt * dt * om2 * eps0[g]
        B = (e1 - eps0[g] * math.cos(th)) / math.sin(th)
        want = eps0[g] * np.cos(steps * th) + B * np.sin(steps * th)
        amp = math.hypot(eps0[g], B)
        e_traj = max(e_traj, np.abs(p[f"g{g}.eps0"] - want).max() / amp)
    check(f"probes: eps(t) = discrete Verlet solution ({steps[-1]:.0f} steps, "
          f"w dt = {math.sqrt(om2) * dt:.3f})", e_traj, 1e3 * tol_modal)

    # ---- later frames: a rigid pose of the deformed nodes, displacement R eps Phi ----
    e_fit = e_ldisp = 0.0
    for k, (time, path) in enumerate(series[1:], start=1):
        pts, arr = df.read_vtu(path)
        gid = arr["id"]
        row = int(np.argmin(np.abs(t - time)))
        if abs(t[row] - time) > 1e-12 * max(1.0, time):
            failures.append(f"frame {k} at t = {time}: no probes row")
            continue
        for g in range(len(grains)):
            sel = gid == g
            eps = p[f"g{g}.eps0"][row] if deformable[g] else 0.0
            body = x_ref + eps * phi
            R, c, res = df.kabsch(body, pts[sel])
            e_fit = max(e_fit, res / size)
            e_ldisp = max(e_ldisp, np.abs(arr["displacement"][sel] - eps * phi @ R.T).max() / size)
    check(f"frames 1..{len(series) - 1}: points = rigid pose of x + eps Phi (eps from probes)",
          e_fit, tol_pose)
    check("frames: displacement = R eps Phi", e_ldisp, tol_pose)
    if len(series) < 3:
        failures.append(f"only {len(series)} frames")
    if failures:
        print("\n".join("BAD " + f for f in failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
