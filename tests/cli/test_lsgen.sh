#!/usr/bin/env bash
# lsgen end to end: analytic shapes and Gmsh-meshed STL inputs checked against closed forms
# by tests/lsgen/check_lsgen.py (level set at every grid node, sign everywhere, nodes, areas,
# normals, mass properties, VTK read-back of both previews), a pipe into ldg-info, and bad
# input: one "lsgen: error: ..." line, exit 2, no output file of any kind.
# usage: test_lsgen.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
lsgen=$build/tools/lsgen/lsgen
info=$build/tools/ldg-info
py=/usr/bin/python3
check="$src/tests/lsgen/check_lsgen.py"
meshes="$src/tests/lsgen/meshes"
. "$(dirname "$0")/harness.sh"

# shape NAME CHECK-ARGS -- lsgen args...
shape() {
  local name=$1 checkargs=$2
  shift 3
  if "$lsgen" "$@" -o "$work/$name.ldg" --vti "$work/$name.vti" --vtu "$work/$name.vtu" \
       2> "$work/$name.err"; then
    ok
    # shellcheck disable=SC2086
    run_check "$name" -- "$py" "$check" shape "$work/$name.ldg" $checkargs \
      --vti "$work/$name.vti" --vtu "$work/$name.vtu"
  else
    bad "lsgen $*: $(cat "$work/$name.err")"
  fi
}

# ---- analytic shapes: exact distance at every node, closed-form mass, nodes
shape sphere "--kind sphere --semi 10,10,10" -- sphere --radius 10 --h 0.5
shape ellipsoid "--kind ellipsoid --semi 8,3,2" -- ellipsoid --axes 8,3,2 --h 0.2 --density 2.5
shape cuboid "--kind cuboid --semi 80,2,2" -- cuboid --size 160,4,4 --h 0.25
shape rounded "--kind cuboid --semi 8,3,2 --rounding 0.75" -- cuboid --size 16,6,4 --rounding 0.75 --h 0.2
shape cylinder "--kind cylinder --semi 3,3,5" -- cylinder --radius 3 --length 10 --h 0.25
shape superquadric "--kind superquadric --semi 5,4,3 --eps 0.5,0.8" -- \
  superquadric --axes 5,4,3 --eps 0.5,0.8 --h 0.25

# ---- meshes from Gmsh: a sphere and a torus of ~20k triangles, and the sphere with a hole
if command -v gmsh > /dev/null; then
  gmsh -v 0 -2 -format stl -o "$work/sphere.stl" "$meshes/sphere.geo" > /dev/null 2>&1 \
    && gmsh -v 0 -2 -format stl -o "$work/torus.stl" "$meshes/torus.geo" > /dev/null 2>&1 \
    && "$py" "$meshes/stl_cut_hole.py" "$work/sphere.stl" "$work/holed.stl" --center 10,0,0 --radius 0.8 2> /dev/null \
    || bad "could not make the test meshes with gmsh"
  mesh() {
    local name=$1 checkargs=$2
    shift 3
    if "$lsgen" mesh "$@" -o "$work/$name.ldg" --vti "$work/$name.vti" --vtu "$work/$name.vtu" \
         2> "$work/$name.err"; then
      ok
      # shellcheck disable=SC2086
      run_check "$name" -- "$py" "$check" mesh "$work/$name.ldg" $checkargs \
        --vti "$work/$name.vti" --vtu "$work/$name.vtu"
    else
      bad "lsgen mesh $*: $(cat "$work/$name.err")"
    fi
  }
  mesh sphere-stl "--exact sphere:10 --stl $work/sphere.stl" -- "$work/sphere.stl" --h 0.5
  mesh torus-stl "--exact torus:10,3 --stl $work/torus.stl" -- "$work/torus.stl" --h 0.4
  mesh holed-stl "--exact sphere:10 --stl $work/holed.stl --hole 10,0,0,0.8" -- \
    "$work/holed.stl" --h 0.5 --node-spacing 1
  # The hole is reported, with counts.
  if grep -Eq 'warning: .*holed.stl.*[0-9]+ boundary edges' "$work/holed-stl.err"; then ok
  else bad "no boundary-edge warning for the holed mesh: $(cat "$work/holed-stl.err")"; fi
else
  bad "gmsh is not installed (apt-get install gmsh)"
fi

# ---- Gmsh's budget (--timeout): a remesh far too fine for 0.5 s is stopped: one error line,
# exit 2, no output file, no Gmsh process left behind; SIGTERM while Gmsh works stops lsgen
# (143) and its Gmsh child within 2 s, and leaves no output either.
if [ -f "$work/sphere.stl" ]; then
  QUIET_STDOUT=1
  expect_error gmsh-timeout 2 \
    "^lsgen: error: $work/sphere.stl: Gmsh did not finish within 0.5 s \\(--timeout\\) while " -- \
    "$lsgen" mesh "$work/sphere.stl" --h 1 --node-spacing 0.1 --timeout 0.5 -o "$work/slow.ldg"
  QUIET_STDOUT=0
  if ls "$work"/slow.* > /dev/null 2>&1; then bad "gmsh-timeout left $(ls "$work"/slow.*)"
  else ok; fi
  # lsgen's Gmsh child is killed before lsgen exits: nothing of ours may still run.
  if pgrep -f "mesh $work/sphere.stl" > /dev/null; then bad "gmsh-timeout left a process"
  else ok; fi

  "$lsgen" mesh "$work/sphere.stl" --h 1 --node-spacing 0.1 -o "$work/slow.ldg" \
    2> "$work/term.err" &
  pid=$!
  child=
  for _ in $(seq 100); do  # until Gmsh's child process runs (reading, then remeshing)
    child=$(pgrep -P "$pid") && break
    sleep 0.05
  done
  sleep 0.5
  t0=$(date +%s%N)
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ -z "$child" ]; then bad "gmsh-sigterm: lsgen never started a Gmsh process"
  elif [ "$rc" -ne 143 ]; then bad "gmsh-sigterm: exit $rc, expected 143: $(cat "$work/term.err")"
  elif [ "$ms" -gt 2000 ]; then bad "gmsh-sigterm: took $ms ms to stop"
  elif kill -0 "$child" 2> /dev/null; then bad "gmsh-sigterm: Gmsh's process $child still runs"
  elif ls "$work"/slow.* > /dev/null 2>&1; then bad "gmsh-sigterm left $(ls "$work"/slow.*)"
  else ok; fi
fi

# ---- pipes: stdout is the bundle, stderr the messages
if "$lsgen" sphere --radius 2 --h 0.25 | "$info" -q; then ok; else bad "lsgen | ldg-info"; fi

# ---- bad input: one error line, exit 2, no output file at all
QUIET_STDOUT=1
no_outputs() {
  local name=$1
  if ls "$work"/out.* > /dev/null 2>&1; then bad "$name left $(ls "$work"/out.*)"; rm -f "$work"/out.*
  else ok; fi
}
bad_mesh() {
  local name=$1 pattern=$2 file=$3
  expect_error "$name" 2 "^lsgen: error: .*$pattern" -- \
    "$lsgen" mesh "$file" -o "$work/out.ldg" --vti "$work/out.vti" --vtu "$work/out.vtu"
  no_outputs "$name"
}
bad_mesh missing 'nope\.stl' "$work/nope.stl"
: > "$work/empty.stl"
bad_mesh empty 'empty\.stl.*empty' "$work/empty.stl"
if [ -f "$work/sphere.stl" ]; then
  gmsh -v 0 -2 -format stl -bin -o "$work/binary.stl" "$meshes/sphere.geo" > /dev/null 2>&1
  head -c 5000 "$work/binary.stl" > "$work/truncated.stl"
  bad_mesh truncated 'truncated\.stl.*truncated' "$work/truncated.stl"
fi
cat > "$work/nan.stl" <<'STL'
solid nan
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 nan 0
endloop
endfacet
endsolid nan
STL
bad_mesh nan 'nan\.stl:6:' "$work/nan.stl"
# Four triangles on one plane, closed as a surface but enclosing nothing.
cat > "$work/flat.stl" <<'STL'
solid flat
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
facet normal 0 0 -1
outer loop
vertex 0 0 0
vertex 0 1 0
vertex 1 0 0
endloop
endfacet
facet normal 0 0 1
outer loop
vertex 1 0 0
vertex 1 1 0
vertex 0 1 0
endloop
endfacet
facet normal 0 0 -1
outer loop
vertex 1 0 0
vertex 0 1 0
vertex 1 1 0
endloop
endfacet
endsolid flat
STL
bad_mesh zero-volume 'flat\.stl.*zero-volume mesh' "$work/flat.stl"
printf 'this is not a mesh\n' > "$work/garbage.msh"
bad_mesh garbage 'garbage\.msh' "$work/garbage.msh"

usage() {
  local name=$1 pattern=$2
  shift 3
  expect_error "$name" 2 "^lsgen: error: $pattern" -- "$lsgen" "$@" -o "$work/out.ldg"
  no_outputs "$name"
}
usage no-shape 'no shape' --
usage unknown-shape "unknown shape 'blob'" -- blob
usage no-radius 'sphere needs --radius' -- sphere
usage negative-radius "--radius: expected a number > 0, got '-1'" -- sphere --radius -1
usage not-a-number "--radius: '1x' is not a finite number" -- sphere --radius 1x
usage short-list "--axes: expected 3 comma-separated numbers" -- ellipsoid --axes 1,2
usage wrong-option '--length does not apply to a sphere' -- sphere --radius 1 --length 2
usage zero-h "--h: expected a number > 0" -- sphere --radius 1 --h 0
usage negative-timeout "--timeout: expected a number >= 0, got '-1'" -- sphere --radius 1 --timeout -1
usage too-round 'cuboid: .*rounding' -- cuboid --size 2,2,2 --rounding 1.5
usage bad-encoding '--vtk-encoding' -- sphere --radius 1 --vtk-encoding base64
# (2e10 nodes, 87 TiB: with that much memory allowed, the 2^31-node limit still refuses it)
usage huge-grid 'a grid of .* is too large' -- sphere --radius 1 --h 1e-4 --max-memory 100T
usage huge-grid-memory '--h: the level-set grid needs ~87\.4 TiB \(limit 1 GiB' -- sphere --radius 1 --h 1e-4 --max-memory 1G
usage mesh-no-file 'mesh needs a FILE' -- mesh
usage mesh-shape-opt 'shape options .* do not apply to mesh' -- mesh x.stl --radius 2
QUIET_STDOUT=0

# --help and --version succeed on stdout
if "$lsgen" --help | grep -q '^usage: lsgen'; then ok; else bad "--help"; fi
if "$lsgen" --version | grep -Eq '^lsgen [0-9]'; then ok; else bad "--version"; fi

# A grid the extent and --h make too large for --max-memory: refused before it is allocated,
# naming --h and the estimate, and no bundle written (the 1.96e9-node grid of a radius-10
# sphere at h = 0.016 once died of out-of-memory).
rm -f "$work/huge.ldg"
expect_error "grid over --max-memory" 2 \
  "^lsgen: error: --h: the level-set grid needs ~2[0-9]\.[0-9] GiB \(limit 1 GiB; see --max-memory\)$" \
  -- "$lsgen" sphere --radius 10 --h 0.016 --max-memory 1G -o "$work/huge.ldg"
[ ! -e "$work/huge.ldg" ] && ok || bad "a refused grid left $work/huge.ldg"
expect_error "bad --max-memory" 2 "^lsgen: error: --max-memory: '4Z' is not a size" \
  -- "$lsgen" sphere --radius 1 --max-memory 4Z -o "$work/huge.ldg"
"$lsgen" sphere --radius 1 --h 0.2 --max-memory 64M -q -o "$work/small.ldg" && [ -s "$work/small.ldg" ] \
  && ok || bad "a small grid refused with --max-memory 64M"
"$lsgen" --help | grep -q -- '--max-memory SIZE' && ok || bad "--help does not mention --max-memory"

echo "test_lsgen: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
