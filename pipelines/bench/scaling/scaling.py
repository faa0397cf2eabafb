#!/usr/bin/python3
"""bench/scaling: time per step against processes, LAMMPS and demrun, on each packing.

usage: scaling.py DEMRUN OUTDIR --steps N [--reps R] --packing TSV [--packing TSV ...]
                  [--mpi-demrun PATH] [--mpirun "mpirun --oversubscribe ..."]

Reads the LAMMPS runs the Makefile made (OUTDIR/lammps-N-npP-rR.tsv, parse_lammps_log.py's
table, P = 1 and 2, R = 1..REPS), then runs demrun (pipelines/bench/lammps/scene.yaml with
the packing's file and box set, the same loading and steps: bench/lammps/bench.py's
demrun()) on one process with 1 and 2 threads, and, when demrun is an MPI build
(--mpi-demrun, or DEMRUN's --version or --help says MPI), under mpirun -np 1 and -np 2, whose
probes.tsv must be byte for byte the same (so must the 1- and 2-thread runs'). Each
configuration runs REPS times, taking turns with the others, and the fastest run is kept
(the machine is shared). Writes OUTDIR/scaling.tsv and OUTDIR/scaling.png (gnuplot), prints
the table. Exit 1 when a comparison fails or the contact counts of demrun and LAMMPS differ
by more than 1 %; 2 on bad arguments or a failed run.
"""
import argparse
import csv
import filecmp
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "lammps"))
from bench import demrun  # noqa: E402  (bench/lammps: runs and times one demrun)
from tsv2lammps import InputError, read_packing  # noqa: E402

SCENE = os.path.join(HERE, "..", "lammps", "scene.yaml")
COLUMNS = ["code", "N", "ranks", "threads", "ms_per_step", "us_per_body_step",
           "efficiency", "cpu_use", "contacts_start", "contacts_end"]


def fail(msg, status=2):
    sys.stderr.write("scaling.py: error: %s\n" % msg)
    sys.exit(status)


def is_mpi_build(exe):
    """True when `exe --version` or `exe --help` mentions MPI (the build with -Dmpi=enabled)."""
    for flag in ("--version", "--help"):
        try:
            p = subprocess.run([exe, flag], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            fail("%s %s: %s" % (exe, flag, e))
        if re.search(r"\bMPI\b", p.stdout + p.stderr):
            return True
    return False


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def lammps_row(out, n, procs, steps, reps):
    """The fastest of the REPS runs (out/lammps-N-npP-rR.tsv, R = 1..REPS)."""
    runs = [lammps_run(out, n, procs, steps, rep) for rep in range(1, reps + 1)]
    return min(runs, key=lambda r: r["ms"])


def lammps_run(out, n, procs, steps, rep):
    name = "lammps-%d-np%d-r%d" % (n, procs, rep)
    path = os.path.join(out, name + ".tsv")
    try:
        with open(path) as f:
            r = next(csv.DictReader(f, delimiter="\t"))
    except (OSError, StopIteration) as e:
        fail("%s: %s (make lammps first)" % (path, getattr(e, "strerror", "empty")))
    if int(r["steps"]) != steps or int(r["atoms"]) != n or int(r["procs"]) != procs:
        fail("%s is for %s steps, %s atoms, %s procs; this bench wants %d, %d, %d: "
             "make lammps STEPS=%d" % (path, r["steps"], r["atoms"], r["procs"], steps, n,
                                      procs, steps))
    cpu = None  # LAMMPS's "X% CPU use with P MPI tasks" line: below 100, the run waited
    with open(os.path.join(out, name + ".log"), errors="replace") as f:
        for line in f:
            m = re.match(r"^([0-9.]+)% CPU use with", line)
            if m:
                cpu = float(m.group(1)) / 100
    return {"ms": float(r["ms_per_step"]), "c0": int(r["contacts_start"]),
            "c1": int(r["contacts_end"]), "cpu": cpu}


def plot(out, rows):
    """ms/step against processes (ranks x threads), one line per code, packing and kind."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("scaling.py: gnuplot not found: no plot")
        return
    series = {}
    for r in rows:
        kind = "threads" if r["threads"] > 1 or (r["code"] == "demrun" and r["ranks"] == 1) \
            else "ranks"
        series.setdefault("%s %d %s" % (r["code"], r["N"], kind), []).append(
            (r["ranks"] * r["threads"], r["ms_per_step"]))
    dat = os.path.join(out, "scaling.dat")
    with open(dat, "w") as f:
        for name, pts in series.items():
            f.write('"%s"\n' % name)
            for p, ms in sorted(pts):
                f.write("%d %.6g\n" % (p, ms))
            f.write("\n\n")
    plots = ", ".join('"%s" index %d using 1:2 with linespoints lw 2 pt 7 title columnheader(1)'
                      % (dat, k) for k in range(len(series)))
    script = """set terminal pngcairo size 900,600 font ",11" noenhanced
set output "%s"
set title "bench/scaling: time per step (lower is better; ideal: halves from 1 to 2)"
set xlabel "processes (MPI ranks, or OpenMP threads of one demrun process)"
set ylabel "ms per step"
set logscale y
set xrange [0.8:2.2]
set xtics 1
set key outside right
set grid
plot %s
""" % (os.path.join(out, "scaling.png"), plots)
    p = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
    if p.returncode:
        sys.stderr.write(p.stderr)
        fail("gnuplot failed (exit %d)" % p.returncode)


def main():
    ap = argparse.ArgumentParser(prog="scaling.py")
    ap.add_argument("demrun")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--reps", type=int, default=1,
                    help="runs of each configuration, taking turns; the fastest is kept")
    ap.add_argument("--packing", action="append", required=True)
    ap.add_argument("--mpi-demrun", default="")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    a = ap.parse_args()
    if a.steps < 10:
        fail("--steps must be at least 10, got %d" % a.steps)
    if a.reps < 1:
        fail("--reps must be at least 1, got %d" % a.reps)
    for exe in [a.demrun] + ([a.mpi_demrun] if a.mpi_demrun else []):
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            fail("%s: not an executable file" % exe)
    mpi_exe = a.mpi_demrun or (a.demrun if is_mpi_build(a.demrun) else "")
    mpirun = shlex.split(a.mpirun)

    rows, bad = [], []
    load0 = loadavg()

    def without_column(path, name):
        """The lines of a probes table without one column (comments kept)."""
        out, skip = [], None
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    out.append(line)
                    continue
                cells = line.rstrip("\n").split("\t")
                if skip is None:
                    skip = cells.index(name) if name in cells else -1
                out.append("\t".join(c for k, c in enumerate(cells) if k != skip))
        return out

    def add(code, n, ranks, threads, r, ref):
        rows.append({"code": code, "N": n, "ranks": ranks, "threads": threads,
                     "ms_per_step": r["ms"], "us_per_body_step": 1e3 * r["ms"] / n,
                     "efficiency": ref / (ranks * threads * r["ms"]),
                     "cpu_use": r["cpu"] if r["cpu"] is not None else float("nan"),
                     "contacts_start": r["c0"], "contacts_end": r["c1"]})

    def same_probes(name1, name2):
        """Byte for byte, threads against threads; ranks against ranks but for the
        history_bytes column, the pools' capacity summed over the ranks: memory, which ranks
        duplicate at their faces (docs/mpi.md)."""
        p1, p2 = (os.path.join(a.out, d, "probes.tsv") for d in (name1, name2))
        if filecmp.cmp(p1, p2, shallow=False):
            return
        if "-np" in name1:
            t1, t2 = (without_column(p, "history_bytes") for p in (p1, p2))
            if t1 == t2:
                return
        bad.append("%s and %s differ (cmp %s %s)" % (p1, p2, p1, p2))

    def run(name, threads, launcher, extra, exe, procs):
        # CPU time of the run (mpirun's ranks included) over its wall time and processes
        t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        r = demrun(exe, SCENE, a.out, name, a.steps, threads, extra, launcher)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        r["cpu"] = ((c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
                    / ((time.perf_counter() - t0) * procs))
        try:  # the final checkpoint (90 MB at 40960 spheres) is not needed here
            os.unlink(os.path.join(a.out, name, "checkpoint.ldc"))
        except OSError:
            pass
        return r

    for path in a.packing:
        try:
            lo, hi, _, spheres = read_packing(path)
        except InputError as e:
            fail(str(e))
        except OSError as e:
            fail("%s: %s" % (e.filename or path, e.strerror))
        n = len(spheres)
        extra = ["--set", "grains.0.file.path=%s" % os.path.abspath(path),
                 "--set", "cell.box={lo: [%r, %r, %r], hi: [%r, %r, %r]}" % (*lo, *hi)]
        lmp = {p: lammps_row(a.out, n, p, a.steps, a.reps) for p in (1, 2)}
        for p in (1, 2):
            add("lammps", n, p, 1, lmp[p], lmp[1]["ms"])
        dem = {}
        for rep in range(a.reps):  # 1 and 2 threads take turns; the fastest run is kept
            for t in (1, 2):
                name = "demrun-%d-j%d" % (n, t)
                print("scaling: %s (%d steps, run %d of %d)" % (name, a.steps, rep + 1, a.reps),
                      file=sys.stderr, flush=True)
                r = run(name, t, [], extra, a.demrun, t)
                if t not in dem or r["ms"] < dem[t]["ms"]:
                    dem[t] = r
        for t in (1, 2):
            add("demrun", n, 1, t, dem[t], dem[1]["ms"])
        same_probes("demrun-%d-j1" % n, "demrun-%d-j2" % n)
        for k in ("c0", "c1"):
            if abs(dem[1][k] - lmp[1][k]) > 0.01 * lmp[1][k]:
                bad.append("%d spheres: demrun %d contacts at the %s, LAMMPS %d (> 1 %% apart)"
                           % (n, dem[1][k], "start" if k == "c0" else "end", lmp[1][k]))
        if mpi_exe:
            mpi = {}
            for rep in range(a.reps):
                for p in (1, 2):
                    name = "demrun-%d-np%d" % (n, p)
                    print("scaling: %s (%d steps, run %d of %d, %s)"
                          % (name, a.steps, rep + 1, a.reps, mpi_exe), file=sys.stderr,
                          flush=True)
                    r = run(name, 1, mpirun + ["-np", str(p)], extra, mpi_exe, p)
                    if p not in mpi or r["ms"] < mpi[p]["ms"]:
                        mpi[p] = r
            for p in (1, 2):
                add("demrun-mpi", n, p, 1, mpi[p], mpi[1]["ms"])
            same_probes("demrun-%d-np1" % n, "demrun-%d-np2" % n)

    tsv = os.path.join(a.out, "scaling.tsv")
    with open(tsv + ".tmp", "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("%s\t%d\t%d\t%d\t%.6g\t%.6g\t%.4f\t%.3f\t%d\t%d\n"
                    % tuple(r[c] for c in COLUMNS))
    os.replace(tsv + ".tmp", tsv)
    plot(a.out, rows)

    print("%d steps of in.compress (z to 0.999 at the last step, dt 1e-7, skin 1e-4); "
          "the fastest of %d run(s) each" % (a.steps, a.reps))
    print("%-11s %7s %5s %7s %9s %12s %10s %7s %9s %9s" % (
        "code", "N", "ranks", "threads", "ms/step", "us/body-step", "efficiency", "cpu",
        "contacts0", "contacts1"))
    for r in rows:
        print("%-11s %7d %5d %7d %9.3f %12.4f %10.3f %7.2f %9d %9d"
              % tuple(r[c] for c in COLUMNS))
    print("cpu: CPU time over wall time and processes (LAMMPS: its loop's own figure) of"
          " the run kept; well below 1, the machine was busy and the time is slow")
    print("load average (1 min) at the start %s, at the end %s" % (load0, loadavg()))
    for r in rows:
        if r["ranks"] * r["threads"] == 2:
            how = "2 ranks" if r["ranks"] == 2 else "2 threads"
            print("%s %d spheres, %s: E2 = t1/(2 t2) = %.3f" % (r["code"], r["N"], how,
                                                               r["efficiency"]))
    if not mpi_exe:
        print("demrun: not built with MPI (-Dmpi=enabled): ranks column skipped")
    print("table: %s; plot: %s" % (tsv, os.path.join(a.out, "scaling.png")))
    for b in bad:
        print("FAIL: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
