#!/usr/bin/env bash
# The bad-input catalogue (issue 35, item 7): one line per case of input or path the user must
# fix. Each must exit 2, print exactly one stderr line "tool: error: ...", and create nothing:
# the case runs in a scratch folder holding only `adir/` (an empty folder) and `afile` (a
# short file), and afterwards the folder must hold exactly those two, unchanged.
# usage: test_exit_codes.sh BUILD_DIR SOURCE_ROOT
set -u
build=$1
src=$2
. "$(dirname "$0")/harness.sh"

lsgen=$build/tools/lsgen/lsgen
demrun=$build/runtime/demrun/demrun
tools=$build/tools
scenes=$src/tests/demrun/scenes
in=$work/in
mkdir -p "$in/dir" "$work/case"
cd "$work/case" || exit 1

# --- inputs the catalogue needs, made once outside the scratch folder ----------------------
"$lsgen" sphere --radius 1 --h 0.25 -o "$in/grain.ldg" || bad "setup: lsgen sphere"
printf 'not a level set payload\n' > "$in/garbage.bin"
printf '1e-6 0 0\n1e300 0 0\n' > "$in/huge.tsv"
printf '0 1e300\n1e10 1e300\n' > "$in/force-overflow.tsv"   # U = ∫F dε beyond any double
# Two closed tetrahedra sharing the edge (0,0,0)-(0,0,1): four triangles on one edge.
/usr/bin/python3 - "$in/fins.stl" <<'PY' || bad "setup: non-manifold STL"
import sys
A, B = (0, 0, 0), (0, 0, 1)
def tet(a, b, c, d):
    return [(a, c, b), (a, b, d), (a, d, c), (b, c, d)]
tris = tet(A, (1, 0, 0), (0, 1, 0), B) + tet(A, (-1, 0, 0), (0, -1, 0), B)
with open(sys.argv[1], "w") as f:
    f.write("solid fins\n")
    for t in tris:
        f.write("facet normal 0 0 0\nouter loop\n")
        for v in t:
            f.write("vertex %g %g %g\n" % v)
        f.write("endloop\nendfacet\n")
    f.write("endsolid fins\n")
PY

reset_case() {
  find . -mindepth 1 -delete
  mkdir adir
  printf 'keep\n' > afile
}

# bad_input NAME -- command...: exit 2, one "tool: error: " line, nothing created or changed.
bad_input() {
  local name=$1
  shift 2
  local tool
  tool=$(basename "$1")
  reset_case
  # a tool that hangs on bad input (Gmsh on a non-manifold mesh did) fails its case, not the run
  expect_error "$name" 2 "^$tool: error: " -- timeout -s KILL 60 "$@"
  local left
  left=$(find . -mindepth 1 | sort | tr '\n' ' ')
  if [ "$left" != "./adir ./afile " ] || [ "$(cat afile)" != keep ]; then
    bad "$name: the scratch folder changed: $left"
  else ok; fi
}

cpath=("$tools/contact-path" --E 1e9 --nu 0.3 --mu 0.5 --R1 1 --R2 1)

# A directory where an input file belongs.
bad_input "ldg-info: directory" -- "$tools/ldg-info" adir
bad_input "ldg-vtk: directory" -- "$tools/ldg-vtk" adir --vtu out.vtu
bad_input "ldg-pack -i: directory" -- "$tools/ldg-pack" -i adir -o out.ldg
bad_input "ldg-pack --nodes: directory" -- "$tools/ldg-pack" --nodes adir -o out.ldg
bad_input "ldg-pack --section: directory" -- "$tools/ldg-pack" --section NOTE=adir -o out.ldg
bad_input "demrun: scene is a directory" -- "$demrun" -q -o out adir
bad_input "demrun: checkpoint is a directory" -- "$demrun" -q -o out --restart adir "$scenes/box30.yaml"
bad_input "demrun: bundle is a directory" -- "$demrun" -q -o out --set "shapes.grain.bundle=$in/dir" "$scenes/box_ls.yaml"
# An output into a folder that does not exist.
bad_input "lsgen -o: missing folder" -- "$lsgen" sphere --radius 1 -o nodir/out.ldg
bad_input "lsgen --vtu: missing folder" -- "$lsgen" sphere --radius 1 -o out.ldg --vtu nodir/out.vtu
bad_input "lsgen --vti: missing folder" -- "$lsgen" sphere --radius 1 -o out.ldg --vti nodir/out.vti
bad_input "ldg-pack -o: missing folder" -- "$tools/ldg-pack" -i "$in/grain.ldg" -o nodir/out.ldg
bad_input "ldg-vtk --vtu: missing folder" -- "$tools/ldg-vtk" "$in/grain.ldg" --vtu nodir/out.vtu
bad_input "contact-path -o: missing folder" -- "${cpath[@]}" -o nodir/out.tsv "$in/huge.tsv"
# An output that names a directory or a file where a folder belongs.
bad_input "lsgen -o: directory" -- "$lsgen" sphere --radius 1 -o adir
bad_input "ldg-pack -o: directory" -- "$tools/ldg-pack" -i "$in/grain.ldg" -o adir
bad_input "ldg-vtk --vti: directory" -- "$tools/ldg-vtk" "$in/grain.ldg" --vti adir
bad_input "demrun -o: a file" -- "$demrun" -q -o afile --set time.steps=10 "$scenes/box30.yaml"
# Contents that the tool itself must refuse.
bad_input "lsgen: non-manifold STL" -- "$lsgen" mesh "$in/fins.stl" --h 0.1 -o out.ldg
bad_input "ldg-pack: LSET payload its reader refuses" -- "$tools/ldg-pack" --section "LSET=$in/garbage.bin" -o out.ldg
bad_input "contact-path: non-finite row" -- "${cpath[@]}" -o out.tsv "$in/huge.tsv"
bad_input "contact-path: non-finite row on stdout" -- "${cpath[@]}" "$in/huge.tsv"
bad_input "energyfit: energy beyond any double" -- "$tools/energyfit/energyfit" -i "$in/grain.ldg" --table "$in/force-overflow.tsv" -o out.ldg
# ... and that error names the row
if "$tools/energyfit/energyfit" -i "$in/grain.ldg" --table "$in/force-overflow.tsv" -o out.ldg 2>&1 |
   grep -q "force-overflow.tsv:2: the energy integrated"; then ok; else bad "energyfit overflow: no FILE:LINE"; fi
rm -f out.ldg

echo "test_exit_codes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
