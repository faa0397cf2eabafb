"""Helpers of test_energyfit.sh, independent of the C code: section payloads for test
bundles, and checks of energyfit's output read with tests/support/ldg.py.

  mode-payload COUNT OUT            analytic MODE payload with COUNT modes
  kmat-payload OUT K0,K1,...        diagonal KMAT payload
  table BUNDLE TSV MODE INTERP      the ETAB table of MODE against the (eps, F) file
  same BUNDLE_A BUNDLE_B TAG...     payloads of TAG identical in the two (single) bundles
  meta BUNDLE KEY=VALUE|KEY...      META has KEY (with VALUE)
  modes BUNDLE M,M,...              ETAB holds tables of exactly these modes, in order
  extrapolate BUNDLE MODE KIND      the table of MODE extrapolates as KIND
  count BUNDLE N                    the stream holds N bundles, each with an ETAB
"""
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import ldg  # noqa: E402


def fail(msg):
    print(f"check_energyfit: {msg}")
    sys.exit(1)


def read_tsv(path):
    """(eps, F) rows of a table file: '#' comments and a header line skipped."""
    rows = []
    for line in open(path):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        try:
            rows.append([float(f) for f in fields[:2]])
        except ValueError:
            if rows:
                raise
    a = np.array(rows)
    return a[:, 0], a[:, 1]


def single(path):
    bundles = ldg.read_bundles(path)
    if len(bundles) != 1:
        fail(f"{path}: {len(bundles)} bundles, expected 1")
    return bundles[0]


def mode_payload(count, out):
    desc = b"beam-bending length=160 axis=x"
    header = struct.pack("<IIQ3II3d3dQ", count, 1, 0, 0, 0, 0, 0, *([0.0] * 6), len(desc))
    assert len(header) == 88
    Path(out).write_bytes(header + desc)


def kmat_payload(out, diag):
    k = [float(x) for x in diag.split(",")]
    n = len(k)
    a = np.diag(k).astype("<f8")
    Path(out).write_bytes(struct.pack("<II", n, 0) + a.tobytes())


def check_table(bundle, tsv, mode, interp):
    """F and eps at the knots are the file's numbers exactly (sorted by eps); U(0) = 0 and
    U is the integral of F: for linear interpolation exactly the trapezoid sums (1e-12 of
    U's range); for pchip, on these monotone data, each interval's ΔU lies between h·F_i
    and h·F_{i+1} (F is monotone between knots) and within h²/12·|m_i − m_{i+1}| of the
    trapezoid, bounded by h²/12 · 3·max of the neighbouring secant slopes (Fritsch–Carlson
    slopes lie in [0, 3·min(adjacent secants)])."""
    eps, F = read_tsv(tsv)
    order = np.argsort(eps)
    eps, F = eps[order], F[order]
    t = ldg.etab_by_mode(single(bundle)["ETAB"]).get(mode)
    if t is None:
        fail(f"{bundle}: no ETAB table for mode {mode}")
    if t["interp"] != interp:
        fail(f"{bundle}: mode {mode} interpolation {t['interp']}, expected {interp}")
    if len(t["eps"]) != len(eps) or np.any(t["eps"] != eps) or np.any(t["force"] != F):
        fail(f"{bundle}: mode {mode}: knots differ from {tsv}")
    U = t["energy"]
    if U[0] != 0:
        fail(f"{bundle}: U(0) = {U[0]}")
    h = np.diff(eps)
    trap = h * (F[1:] + F[:-1]) / 2
    dU = np.diff(U)
    scale = np.max(np.abs(U))
    if interp == "linear":
        worst = np.max(np.abs(np.cumsum(dU) - np.cumsum(trap)))
        if worst > 1e-12 * scale:
            fail(f"{bundle}: linear U differs from the trapezoid sums by {worst}")
    elif interp == "pchip":
        lo, hi = h * np.minimum(F[:-1], F[1:]), h * np.maximum(F[:-1], F[1:])
        slack = 1e-12 * scale
        if np.any(dU < lo - slack) or np.any(dU > hi + slack):
            fail(f"{bundle}: an interval's energy is outside [h min F, h max F]")
        d = np.diff(F) / h
        dp = np.concatenate([[d[0]], d, [d[-1]]])
        bound = h**2 / 12 * 3 * np.maximum(np.maximum(dp[:-2], dp[1:-1]), dp[2:])
        excess = np.abs(dU - trap) / (bound + slack)
        if np.max(excess) > 1:
            fail(f"{bundle}: pchip ΔU departs from the trapezoid beyond its bound "
                 f"({np.max(excess):.3g} of it)")
        print(f"pchip U(end) = {U[-1]:.10g}, trapezoid {np.sum(trap):.10g}, "
              f"worst interval at {np.max(excess):.3g} of its bound")
    else:
        fail(f"no check for interpolation {interp}")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "mode-payload":
        mode_payload(int(args[0]), args[1])
    elif cmd == "kmat-payload":
        kmat_payload(args[0], args[1])
    elif cmd == "table":
        check_table(args[0], args[1], int(args[2]), args[3])
    elif cmd == "same":
        a, b = single(args[0]), single(args[1])
        for tag in args[2:]:
            if tag not in a or tag not in b or a[tag] != b[tag]:
                fail(f"section {tag} differs between {args[0]} and {args[1]}")
    elif cmd == "meta":
        m = ldg.meta(single(args[0])["META"])
        for item in args[1:]:
            key, eq, value = item.partition("=")
            if key not in m or (eq and m[key] != value):
                fail(f"META {key} = {m.get(key)!r}, expected {value if eq else 'present'}")
    elif cmd == "modes":
        got = [t["mode"] for t in ldg.etab(single(args[0])["ETAB"])]
        want = [int(x) for x in args[1].split(",")]
        if got != want:
            fail(f"{args[0]}: ETAB modes {got}, expected {want}")
    elif cmd == "extrapolate":
        t = ldg.etab_by_mode(single(args[0])["ETAB"])[int(args[1])]
        if t["extrapolate"] != args[2]:
            fail(f"mode {args[1]} extrapolates {t['extrapolate']}, expected {args[2]}")
    elif cmd == "count":
        bundles = ldg.read_bundles(args[0])
        if len(bundles) != int(args[1]) or any("ETAB" not in b for b in bundles):
            fail(f"{args[0]}: {len(bundles)} bundles, expected {args[1]} each with ETAB")
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
