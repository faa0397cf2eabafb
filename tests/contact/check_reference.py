#!/usr/bin/python3
"""Check contact-path (the Jager law) against the reference vectors (docs/jager.md §9).

usage: check_reference.py CONTACT_PATH_EXE DATA_DIR

For every DATA_DIR/*.json the case's states are fed to contact-path as one path, each state
one straight move, and the printed N, Tx, Ty are compared with outputs.N/Tx/Ty under the
file's own tolerance block:

  |N - Nref| <= N_rel * |Nref|
  |T_i - T_i,ref| <= T_abs_over_muN * mu * Nref   (each component; so T == 0 exactly where
                                                    d <= 0, where Nref = 0)

Each case runs twice in one step per state: with --full-history, whose history length must
equal diagnostics.stack_length exactly (the references are the exact stack algorithm, beta =
0, no merging, whose length is a deterministic function of the path, so a different length
means a different stack even if the forces happen to agree); and with lossless compression
(the default), whose forces must meet the same tolerance and whose history is never longer.

Collinear cases (every reference Ty is 0) are also run with every move cut into 1000 pieces:
in collinear histories the law is exact for any cut (docs/jager.md §3), so the same
tolerance must hold. 3-D cases are not step-size independent (docs/jager.md §4), so they are not.

Also checked, as documented properties of the CLI and the law: the echoed states round-trip
bit-exactly through the %.17g output; dissipated work is never negative and never decreases;
stored energy is never negative.

Prints one line per case with the worst T error in units of mu*N; exits 1 on any failure.
Standard library only (run with /usr/bin/python3).
"""
import glob
import json
import math
import os
import subprocess
import sys

SUBSTEPS = 1000
COLUMNS = ["delta", "sx", "sy", "N", "Tx", "Ty", "history_length", "stored_energy",
           "dissipated"]


def fmt_param(x):
    # repr() round-trips a double exactly; JSON may carry Infinity for a flat (R2).
    return "inf" if x == math.inf else repr(float(x))


def run_contact_path(exe, inputs, substeps, full):
    states = inputs["states"]
    text = "# written by check_reference.py\ndelta\tsx\tsy\n" + "".join(
        "%r\t%r\t%r\n" % (float(d), float(sx), float(sy)) for d, sx, sy in states)
    args = [exe, "--E", fmt_param(inputs["E"]), "--nu", fmt_param(inputs["nu"]),
            "--mu", fmt_param(inputs["mu"]), "--R1", fmt_param(inputs["R1"]),
            "--R2", fmt_param(inputs["R2"]), "--substeps", str(substeps)]
    args += ["--full-history", "-"] if full else ["-"]
    proc = subprocess.run(args, input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("contact-path exited %d: %s" % (proc.returncode, proc.stderr.strip()))
    header, rows = None, []
    for line in proc.stdout.splitlines():
        if line.startswith("#"):
            header = header or line.lstrip("#").split()
            continue
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            raise RuntimeError("output row with %d fields, expected %d: %r"
                               % (len(fields), len(COLUMNS), line))
        row = [float(f) for f in fields]
        row[6] = int(fields[6])
        rows.append(row)
    if header != COLUMNS:
        raise RuntimeError("output header %r, expected %r" % (header, COLUMNS))
    if len(rows) != len(states):
        raise RuntimeError("%d output rows for %d states" % (len(rows), len(states)))
    return rows


def compare(case, rows, check_stack, full):
    """Return (worst T error in mu*N, worst relative N error, list of failure messages).
    With check_stack the history length must equal the reference's (full) or not exceed it."""
    inputs, ref, tol = case["inputs"], case["outputs"], case["tolerance"]
    mu, n_rel, t_abs = inputs["mu"], tol["N_rel"], tol["T_abs_over_muN"]
    stack = case.get("diagnostics", {}).get("stack_length") if check_stack else None
    worst_t = worst_n = 0.0
    failures = []
    last_dissipated = 0.0
    for i, (row, state) in enumerate(zip(rows, inputs["states"])):
        where = "state %d (d=%r, s=(%r, %r))" % (i + 1, *state)
        d, sx, sy, n, tx, ty, length, stored, dissipated = row
        if [d, sx, sy] != [float(v) for v in state]:
            failures.append("%s: echoed state (%r, %r, %r) is not the input" % (where, d, sx, sy))
        n_ref = ref["N"][i]
        n_err = abs(n - n_ref)
        if n_err > n_rel * abs(n_ref):
            failures.append("%s: N = %r, expected %r (relative error %.3g > %g)"
                            % (where, n, n_ref, n_err / abs(n_ref) if n_ref else math.inf,
                               n_rel))
        if n_ref:
            worst_n = max(worst_n, n_err / abs(n_ref))
        for name, got, want in (("Tx", tx, ref["Tx"][i]), ("Ty", ty, ref["Ty"][i])):
            err = abs(got - want)
            if err > t_abs * mu * n_ref:
                failures.append("%s: %s = %r, expected %r (error %.3g muN > %g)"
                                % (where, name, got, want,
                                   err / (mu * n_ref) if n_ref else math.inf, t_abs))
            if n_ref:
                worst_t = max(worst_t, err / (mu * n_ref))
        if stack is not None and (length != stack[i] if full else length > stack[i]):
            failures.append("%s: history length %d, expected %s%d (diagnostics.stack_length)"
                            % (where, length, "" if full else "at most ", stack[i]))
        if not stored >= 0:
            failures.append("%s: stored energy %r is negative" % (where, stored))
        if not dissipated >= last_dissipated:
            failures.append("%s: dissipated work fell from %r to %r"
                            % (where, last_dissipated, dissipated))
        last_dissipated = dissipated
    return worst_t, worst_n, failures


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_reference.py CONTACT_PATH_EXE DATA_DIR")
    exe, data = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(data, "*.json")))
    if not files:
        sys.exit("check_reference.py: no *.json reference cases in %s" % data)
    failed = []
    for path in files:
        with open(path) as f:
            case = json.load(f)
        name = case.get("name", os.path.basename(path))
        collinear = all(t == 0 for t in case["outputs"]["Ty"])
        runs = [(1, True, True), (1, True, False)] + (
            [(SUBSTEPS, False, False)] if collinear else [])
        parts, problems = [], []
        for substeps, check_stack, full in runs:
            label = "substeps %d%s" % (substeps, " full" if full else "")
            try:
                rows = run_contact_path(exe, case["inputs"], substeps, full)
            except (RuntimeError, ValueError, OSError) as e:
                problems.append("%s: %s" % (label, e))
                parts.append("%s: did not run" % label)
                continue
            worst_t, worst_n, fails = compare(case, rows, check_stack, full)
            problems += ["%s: %s" % (label, m) for m in fails]
            stack_note = ""
            if check_stack and "stack_length" in case.get("diagnostics", {}):
                stack_bad = any("history length" in m for m in fails)
                stack_note = ", stack length %s" % (
                    "DIFFERS" if stack_bad else "exact" if full else "within")
            parts.append("%s: T %.2e muN, N %.1e rel%s"
                         % (label, worst_t, worst_n, stack_note))
        status = "FAIL" if problems else "ok  "
        print("%s %-36s %4d states  %s" % (status, name, len(case["inputs"]["states"]),
                                           "; ".join(parts)))
        for m in problems[:10]:
            print("       " + m)
        if len(problems) > 10:
            print("       ... and %d more" % (len(problems) - 10))
        if problems:
            failed.append(name)
    if failed:
        print("FAILED: %d of %d reference cases disagree with contact-path: %s"
              % (len(failed), len(files), ", ".join(failed)))
        return 1
    print("all %d reference cases agree within their tolerances" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
