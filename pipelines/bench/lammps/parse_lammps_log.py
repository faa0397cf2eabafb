#!/usr/bin/python3
"""Extract the timing and the contact numbers of an in.compress run from its LAMMPS log.

Reads the log written by `lmp -in in.compress -log LOG` and writes one TSV row (with a header
row) of: the LAMMPS version, processes, OpenMP threads, atoms, steps, the loop time of the main
run (the `Loop time of X on P procs for N steps` line of the run with the most steps: the
zero-step run that counts the contacts of the packing has one too), ms per step, contacts at the
start and the end (the `bench:` lines in.compress prints), and the final pressure, stress zz
(pzz, positive in compression, Pa) and box length z. The TSV is written to a temporary name and
renamed. A missing piece or a LAMMPS ERROR line in the log is an error (exit status 2).
Standard library only.
"""

import argparse
import os
import re
import sys

PROG = "parse_lammps_log"
COLUMNS = ["lammps_version", "procs", "omp_threads", "atoms", "steps", "loop_time_s",
           "ms_per_step", "contacts_start", "contacts_end", "pzz_end_pa", "press_end_pa",
           "lz_end_m"]

RE_VERSION = re.compile(r"^LAMMPS \((.+)\)\s*$")
RE_THREADS = re.compile(r"^\s*using (\d+) OpenMP thread\(s\) per MPI task")
RE_LOOP = re.compile(r"^Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms")
RE_BENCH = re.compile(r"^bench: (.*)$")
RE_ERROR = re.compile(r"^ERROR")


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def parse(path):
    info = {"omp_threads": ""}
    loops = []
    bench = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            if RE_ERROR.match(line):
                fail(f"{path}:{lineno}: LAMMPS stopped with: {line}")
            m = RE_VERSION.match(line)
            if m and "lammps_version" not in info:
                info["lammps_version"] = m.group(1)
                continue
            m = RE_THREADS.match(line)
            if m:
                info["omp_threads"] = m.group(1)
                continue
            m = RE_LOOP.match(line)
            if m:
                try:
                    loops.append((int(m.group(3)), float(m.group(1)), int(m.group(2)),
                                  int(m.group(4)), lineno))
                except ValueError:
                    fail(f"{path}:{lineno}: unreadable Loop time line: {line!r}")
                continue
            m = RE_BENCH.match(line)
            if m:
                words = m.group(1).split()
                if len(words) % 2:
                    fail(f"{path}:{lineno}: expected 'bench: name value ...', got {line!r}")
                for k in range(0, len(words), 2):
                    bench[words[k]] = (words[k + 1], lineno)
    if "lammps_version" not in info:
        fail(f"{path}: no 'LAMMPS (version)' line: is this a LAMMPS log?")
    if not loops or max(loops)[0] == 0:
        fail(f"{path}: no 'Loop time of ... for N steps' line with N > 0: the run did not finish")
    steps, loop_time, procs, atoms, _ = max(loops)
    row = dict(info, procs=procs, atoms=atoms, steps=steps, loop_time_s=repr(loop_time),
               ms_per_step=f"{1e3 * loop_time / steps:.6g}")
    names = {"contacts_start": "contacts_start", "contacts_end": "contacts_end",
             "pzz_end_pa": "pzz_end", "press_end_pa": "press_end", "lz_end_m": "lz_end"}
    for col, key in names.items():
        if key not in bench:
            fail(f"{path}: no 'bench: {key} VALUE' line (printed by in.compress)")
        value, lineno = bench[key]
        try:
            number = float(value)
        except ValueError:
            fail(f"{path}:{lineno}: {key} is not a number: {value!r}")
        row[col] = str(int(number)) if col.startswith("contacts") else value
    return row


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="LAMMPS log of an in.compress run")
    ap.add_argument("-o", "--output", required=True, help="TSV to write")
    args = ap.parse_args()
    try:
        row = parse(args.log)
    except OSError as e:
        fail(f"{e.filename or args.log}: {e.strerror}")
    tmp = f"{args.output}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\t".join(COLUMNS) + "\n")
            f.write("\t".join(str(row[c]) for c in COLUMNS) + "\n")
        os.replace(tmp, args.output)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        fail(f"{args.output}: {e.strerror}")
    width = max(len(c) for c in COLUMNS)
    for c in COLUMNS:
        print(f"{c:<{width}}  {row[c]}")


if __name__ == "__main__":
    main()
