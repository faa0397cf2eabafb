#!/usr/bin/python3
"""The box-compression pipeline's checks; exit 1 naming the first that fails.

- every stage ended on its criteria, none on its cap;
- the sample settled: at the settle stage's end the kinetic energy is below 1e-3 of the
  potential energy the grains released by then;
- the lid within 2 % of its target at each loading stage's end (interval-mean force);
- no chatter: demrun warned of none, and over each loading stage's second half the lid's
  velocity changed sign at no more than 5 % of the steps;
- the sample densifies and stiffens as it should: porosity falls and the lid sinks from stage
  to stage, and the stress ratio K stays in (0.2, 1) (a granular sample at rest, Jaky's
  1 - sin(phi) ~ 0.5 for its friction);
- the energy balance held (|balance_error| <= MAX_BALANCE at every probe row);
- the probes' measures (output.probes.measure) agree with the walls: the porosity of the box
  with the one from the walls' positions (stages.py) within 1e-3, and removing rattlers does
  not lower the coordination; the Love-Weber stress against the walls' is reported.

usage: check_box.py OUTDIR"""
import sys

import numpy as np

sys.path.insert(0, sys.path[0])
from stages import read_probes  # noqa: E402

LID_TOLERANCE = 0.02
MAX_FLIP_FRACTION = 0.05
REST = 1e-3
MAX_BALANCE = 0.05


def fail(msg):
    print(f"check_box: FAILED: {msg}")
    sys.exit(1)


def read_stages(path):
    with open(path) as f:
        names = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(names, l.rstrip("\n").split("\t"))) for l in f]
    return rows


def main():
    out = sys.argv[1]
    p = read_probes(out + "/run/probes.tsv")
    log = open(out + "/run.log").read()
    stages = read_stages(out + "/stages.tsv")
    if len(stages) != 5:
        fail(f"{len(stages)} stages ended, expected 5 (settle, approach, three loads)")
    for s in stages:
        if s["capped"] != "0":
            fail(f"stage {s['name']} ended on its cap, not its criteria")
    print(f"stages: all {len(stages)} ended on their criteria "
          + ", ".join(f"{s['name']} at step {s['step']}" for s in stages))

    settle = int(stages[0]["step"])
    r = np.nonzero(p["step"] <= settle)[0][-1]
    released = p["potential"][0] - p["potential"][r]
    ratio = p["kinetic"][r] / released
    if not ratio < REST:
        fail(f"not settled: kinetic {p['kinetic'][r]:.3g} is {ratio:.3g} of the potential energy released")
    print(f"settled: kinetic energy {ratio:.2e} of the potential energy released (limit {REST})")

    if "chatters" in log:
        fail("demrun warned of chatter: " + [l for l in log.splitlines() if "chatters" in l][0])
    loads = stages[2:]
    begin = int(stages[1]["step"])
    previous = None
    for s in loads:
        err = float(s["lid_error"])
        if not err <= LID_TOLERANCE:
            fail(f"{s['name']}: lid force {err:.2%} off its target at the stage's end")
        end = int(s["step"])
        half = (p["step"] > (begin + end) / 2) & (p["step"] <= end)
        steps = (end - begin) / 2
        flips = p["lid.flips"][half].sum()
        if flips > MAX_FLIP_FRACTION * steps:
            fail(f"{s['name']}: the lid's velocity changed sign {flips:.0f} times in {steps:.0f} steps")
        if previous is not None:
            if not float(s["porosity"]) < float(previous["porosity"]):
                fail(f"{s['name']}: porosity {s['porosity']} not below {previous['porosity']}")
            if not float(s["height"]) < float(previous["height"]):
                fail(f"{s['name']}: the lid did not sink")
        K = float(s["K"])
        if not 0.2 < K < 1.0:
            fail(f"{s['name']}: stress ratio K = {K:.3f} outside (0.2, 1)")
        print(f"{s['name']}: lid stress {1e3 * float(s['sigma_v']):.3f} kPa ({err:.2e} off target), "
              f"porosity {float(s['porosity']):.4f}, K {K:.3f}, {flips:.0f} sign changes in the "
              f"second half ({steps:.0f} steps)")
        begin, previous = end, s

    worst = np.max(np.abs(p["balance_error"]))
    if not worst <= MAX_BALANCE:
        fail(f"energy balance error reached {worst:.3g} (limit {MAX_BALANCE})")
    print(f"energy balance: worst error {worst:.3g} (limit {MAX_BALANCE})")

    if "porosity_probe" in stages[0]:
        for s in loads:
            d = abs(float(s["porosity_probe"]) - float(s["porosity"]))
            if not d <= 1e-3:
                fail(f"{s['name']}: probes' porosity {s['porosity_probe']} vs the walls' {s['porosity']}")
        print("porosity: the probes' region measure agrees with the walls' positions within 1e-3")
        for s in loads:
            if not float(s["coordination_nr"]) >= float(s["coordination"]):
                fail(f"{s['name']}: coordination without rattlers below the one with them")
        # Reported, not checked: on this mix the Love-Weber stress comes out 6-12 % below the
        # walls' (growing with the stress), where a cubic block of spheres agrees to 1e-9
        # (tests/cli/test_measure.sh). Not understood yet; see the pipeline's README.
        print("stress (reported): the probes' Love-Weber szz / the lid's stress, sxx / the side "
              "walls' stress: " + ", ".join(
                  f"{float(s['stress_zz']) / float(s['sigma_v']):.3f} / "
                  f"{float(s['stress_xx']) / float(s['sigma_h']):.3f}" for s in loads))
    print("check_box: all checks passed")


if __name__ == "__main__":
    main()
