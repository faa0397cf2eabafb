#!/usr/bin/python3
"""Convert a sphere packing TSV into a LAMMPS data file for atom_style sphere.

Input (the format of data/packings/packing_4096.tsv):
    # free comment lines ...
    # box_lo X Y Z
    # box_hi X Y Z
    id<TAB>x<TAB>y<TAB>z<TAB>radius          (the header row)
    1<TAB>...                                (one sphere a line, SI units)

Output: a LAMMPS data file with one atom type, a periodic orthogonal box from box_lo/box_hi
and an Atoms section in the sphere style (id type diameter density x y z). Written to a
temporary name beside the output, then renamed, so a failed run leaves no partial file.

Errors name the file and line (tsv2lammps: error: FILE:LINE: ...) and exit with status 2.
Standard library only.
"""

import argparse
import math
import os
import sys

PROG = "tsv2lammps"
HEADER = ["id", "x", "y", "z", "radius"]


class InputError(Exception):
    pass


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_float(text, what, where):
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {what} is not a number: {text!r}") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: {what} is not finite: {text!r}")
    return value


def read_packing(path):
    """Return (box_lo, box_hi, comments, spheres), spheres a list of (id, x, y, z, radius)."""
    box = {}
    comments = []
    header_seen = False
    spheres = []
    ids = {}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, start=1):
            where = f"{path}:{lineno}"
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                if header_seen:
                    continue  # a comment among the data: allowed, ignored
                words = line[1:].split()
                if words and words[0] in ("box_lo", "box_hi"):
                    if len(words) != 4:
                        raise InputError(f"{where}: {words[0]} needs 3 numbers, got "
                                         f"{len(words) - 1}")
                    if words[0] in box:
                        raise InputError(f"{where}: {words[0]} given twice")
                    box[words[0]] = [parse_float(w, f"{words[0]} {a}", where)
                                     for w, a in zip(words[1:], "xyz")]
                else:
                    comments.append(line[1:].strip())
                continue
            fields = line.split("\t")
            if not header_seen:
                if [w.strip() for w in fields] != HEADER:
                    raise InputError(f"{where}: expected the header row "
                                     f"{' '.join(HEADER)!r} (tab-separated), got {line!r}")
                header_seen = True
                continue
            if len(fields) != len(HEADER):
                raise InputError(f"{where}: expected {len(HEADER)} tab-separated fields, "
                                 f"got {len(fields)}")
            try:
                sid = int(fields[0])
            except ValueError:
                raise InputError(f"{where}: id is not an integer: {fields[0]!r}") from None
            if sid < 1:
                raise InputError(f"{where}: id must be >= 1 (LAMMPS atom ids), got {sid}")
            if sid in ids:
                raise InputError(f"{where}: id {sid} already used on line {ids[sid]}")
            ids[sid] = lineno
            x, y, z, r = (parse_float(fields[k], HEADER[k], where) for k in range(1, 5))
            if r <= 0.0:
                raise InputError(f"{where}: radius must be > 0, got {fields[4]!r}")
            spheres.append((sid, x, y, z, r, lineno))
    for key in ("box_lo", "box_hi"):
        if key not in box:
            raise InputError(f"{path}: no '# {key} x y z' comment line before the header row")
    if not header_seen:
        raise InputError(f"{path}: no header row ({' '.join(HEADER)})")
    if not spheres:
        raise InputError(f"{path}: no spheres")
    lo, hi = box["box_lo"], box["box_hi"]
    for a in range(3):
        if not hi[a] > lo[a]:
            raise InputError(f"{path}: box_hi {'xyz'[a]} ({hi[a]!r}) must exceed box_lo "
                             f"({lo[a]!r})")
    return lo, hi, comments, spheres


def write_data(path, src, lo, hi, comments, spheres, density):
    # Periodic: LAMMPS read_data wraps coordinates outside the box back in; they are written
    # as they are, with zero image flags.
    outside = sum(1 for s in spheres
                  if any(not (lo[a] <= s[1 + a] < hi[a]) for a in range(3)))
    title = f"LAMMPS data file from {os.path.basename(src)} by {PROG}.py"
    if comments:
        title += " | " + " | ".join(comments)
    title = title.replace("\n", " ")
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(title + "\n\n")
            f.write(f"{len(spheres)} atoms\n1 atom types\n\n")
            for a in range(3):
                c = "xyz"[a]
                f.write(f"{lo[a]!r} {hi[a]!r} {c}lo {c}hi\n")
            f.write("\nAtoms # sphere\n\n")
            for sid, x, y, z, r, _ in sorted(spheres):
                f.write(f"{sid} 1 {2.0 * r!r} {density!r} {x!r} {y!r} {z!r}\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return outside


def main():
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Convert a sphere packing TSV (id x y z radius, box in '# box_lo' and "
                    "'# box_hi' comments) into a LAMMPS data file for atom_style sphere.")
    ap.add_argument("input", help="packing TSV")
    ap.add_argument("-o", "--output", required=True, help="LAMMPS data file to write")
    ap.add_argument("--density", type=float, default=2500.0,
                    help="particle density, kg/m^3 (default 2500)")
    args = ap.parse_args()
    if not (math.isfinite(args.density) and args.density > 0.0):
        fail(f"--density must be a positive number, got {args.density!r}")
    try:
        lo, hi, comments, spheres = read_packing(args.input)
        outside = write_data(args.output, args.input, lo, hi, comments, spheres, args.density)
    except InputError as e:
        fail(str(e))
    except UnicodeDecodeError as e:
        fail(f"{args.input}: not UTF-8 text ({e.reason} at byte {e.start})")
    except OSError as e:
        name = e.filename or args.output
        if isinstance(name, str) and name.startswith(args.output + ".tmp."):
            name = args.output  # the temporary name means nothing to the user
        fail(f"{name}: {e.strerror}")
    note = f", {outside} outside the box (LAMMPS wraps them)" if outside else ""
    print(f"{PROG}: {len(spheres)} spheres, box {hi[0] - lo[0]:.6g} x {hi[1] - lo[1]:.6g} x "
          f"{hi[2] - lo[2]:.6g} m{note} -> {args.output}")


if __name__ == "__main__":
    main()
