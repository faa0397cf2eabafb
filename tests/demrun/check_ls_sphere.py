"""Level-set spheres against analytic spheres (scene ls_vs_sphere.yaml): the same run with
analytic spheres (ANALYTIC) and with lsgen sphere bundles at several grid spacings, coarse to
fine. Each level-set grain's centre, velocity and angular velocity are recovered from its posed
surface in the VTU frames (a rigid fit, which must be exact) and compared, frame by frame
through both collisions and the flight after them, with the analytic sphere's; so is the
floor's peak force from probes.tsv.

usage: check_ls_sphere.py ANALYTIC R V0 RUN:TOL_X,TOL_V,TOL_W,TOL_F ...
  R       the spheres' radius; V0 the impact speed scale (velocity errors are relative to it)
  RUN     a level-set run's output folder, listed coarse to fine, with its bounds on
  TOL_X   max |dx|/R over all frames and grains
  TOL_V   max |dv|/V0
  TOL_W   max |dw| R/V0 (spin as a surface speed)
  TOL_F   the floor's relative peak-force difference
Each finer run must also be closer to the analytic one than the coarser before it, in x, in v
and in the peak force."""
import sys

import numpy as np

import demrun_frames as df


def errors(ref, run_dir, r, v0):
    t_a, x_a, v_a, w_a = ref
    # Frame 0 has every grain at its scene position with orientation identity, so its
    # surface, shifted to the centre, is the body-frame node set.
    t, x, _, v, w, pose_res, vel_res = df.surface_states(run_dir,
                                                         lambda g, p: p - x_a[0][g])
    if len(t) != len(t_a) or np.abs(t - t_a).max() > 1e-12:
        raise SystemExit(f"{run_dir}: frame times differ from the analytic run's")
    # The surfaces are posed rigidly: the fit must be exact to rounding.
    if pose_res > 1e-9 * r or vel_res > 1e-9:
        raise SystemExit(f"{run_dir}: surface is not a rigid pose (residual {pose_res:.3g}, "
                         f"velocity {vel_res:.3g})")
    ex = np.linalg.norm(x - x_a, axis=2).max() / r
    ev = np.linalg.norm(v - v_a, axis=2).max() / v0
    ew = np.linalg.norm(w - w_a, axis=2).max() * r / v0
    return ex, ev, ew


def peak_floor_force(run_dir):
    p = df.read_probes(run_dir + "/probes.tsv")
    return np.abs(p["floor.fz"]).max()


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    analytic = sys.argv[1]
    r, v0 = float(sys.argv[2]), float(sys.argv[3])
    runs = []
    for arg in sys.argv[4:]:
        d, tols = arg.rsplit(":", 1)
        runs.append((d, [float(x) for x in tols.split(",")]))
    ref = df.sphere_states(analytic)
    # The scene must exercise what is compared: a bounce (vz changes sign) and spin from
    # friction on the floor grain and on the colliding pair.
    _, _, v_a, w_a = ref
    if not (v_a[0, 0, 2] < -0.9 * v0 and v_a[-1, 0, 2] > 0.3 * v0):
        raise SystemExit("grain 0 did not bounce off the floor")
    if np.linalg.norm(w_a[-1], axis=1).min() * r < 1e-3 * v0:
        raise SystemExit("a grain has no spin at the end: friction was not exercised")
    f_a = peak_floor_force(analytic)
    ok = True
    previous = None
    names = ("|dx|/R", "|dv|/V0", "|dw| R/V0", "peak floor force")
    for d, tols in runs:
        ex, ev, ew = errors(ref, d, r, v0)
        ef = abs(peak_floor_force(d) - f_a) / f_a
        got = (ex, ev, ew, ef)
        print(d + ": " + ", ".join(f"{n} {g:.3g} (bound {t:.3g})"
                                   for n, g, t in zip(names, got, tols)))
        for n, g, t in zip(names, got, tols):
            if not g <= t:
                print(f"FAIL {d}: {n} = {g:.3g} > {t:.3g}")
                ok = False
        if previous is not None:
            for k in (0, 1, 3):
                if not got[k] < previous[k]:
                    print(f"FAIL {d}: {names[k]} {got[k]:.3g} is not below the coarser "
                          f"level set's {previous[k]:.3g}")
                    ok = False
        previous = got
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
