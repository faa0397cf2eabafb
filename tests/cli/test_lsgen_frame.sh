#!/usr/bin/env bash
# lsgen --scale/--translate and --density (issue 37, item 6): the geometry is scaled and
# moved before anything else, for files and shapes alike, and recorded in META; a missing
# --density is one warning and META lsgen.density=default. Validations compare with closed
# forms (tests/lsgen/check_transform.py); guards pin behaviour.
# usage: test_lsgen_frame.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
lsgen=$build/tools/lsgen/lsgen
py=/usr/bin/python3
check="$src/tests/lsgen/check_transform.py"
. "$(dirname "$0")/harness.sh"

# A 2 x 1 x 0.5 box away from the origin, as an ASCII STL (12 triangles, outward).
stl_box() {
  $py - "$1" <<'PY'
import sys
import numpy as np
lo, hi = np.array([4.0, -1.5, 1.75]), np.array([6.0, -0.5, 2.25])
c = [np.array([[lo, hi][i][0], [lo, hi][j][1], [lo, hi][k][2]])
     for i in (0, 1) for j in (0, 1) for k in (0, 1)]
quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
with open(sys.argv[1], "w") as f:
    f.write("solid box\n")
    for a, b, cc, d in quads:
        for tri in ((a, b, cc), (a, cc, d)):
            p = [c[v] for v in tri]
            n = np.cross(p[1] - p[0], p[2] - p[0])
            n /= np.linalg.norm(n)
            f.write("facet normal %r %r %r\n outer loop\n" % tuple(n))
            for q in p:
                f.write("  vertex %r %r %r\n" % tuple(q))
            f.write(" endloop\nendfacet\n")
    f.write("endsolid box\n")
PY
}
stl_box "$work/box.stl"

# 1. Validation: a mesh file scaled by 2 and moved by (1, 2, 3): volume x 8, moments x 32,
#    centroid 2 c + T; --h and --node-spacing are in output units (doubled alike).
if "$lsgen" mesh "$work/box.stl" --h 0.1 --density 3 -o "$work/plain.ldg" 2> "$work/e1" \
   && "$lsgen" mesh "$work/box.stl" --h 0.2 --density 3 --scale 2 --translate 1,2,3 \
        -o "$work/moved.ldg" 2> "$work/e2"; then
  ok
  run_check "mesh --scale 2 --translate 1,2,3" -- $py "$check" "$work/plain.ldg" \
    "$work/moved.ldg" 2 1,2,3
else bad "lsgen mesh: $(cat "$work/e1" "$work/e2")"; fi

# 2. Validation: an analytic shape is scaled alike (its dimensions) and its centre goes to T.
if "$lsgen" ellipsoid --axes 3,2,1 --h 0.1 --density 1 -o "$work/e.ldg" 2> "$work/e1" \
   && "$lsgen" ellipsoid --axes 3,2,1 --h 0.05 --density 1 --scale 0.5 --translate -4,0,2.5 \
        -o "$work/e-moved.ldg" 2> "$work/e2"; then
  ok
  run_check "shape --scale 0.5" -- $py "$check" "$work/e.ldg" "$work/e-moved.ldg" 0.5 -4,0,2.5
else bad "lsgen ellipsoid: $(cat "$work/e1" "$work/e2")"; fi

# 3. Guard: no --density is one warning naming the default, after the bundle is written,
#    and META says so; with --density nothing is printed and META has the value.
"$lsgen" sphere --radius 1 --h 0.25 -o "$work/d0.ldg" 2> "$work/d0.err"
if [ "$(wc -l < "$work/d0.err")" = 1 ] && grep -q "^lsgen: warning: no --density: mass and inertia assume density 1" "$work/d0.err"
then ok; else bad "no --density: $(cat "$work/d0.err")"; fi
"$build/tools/ldg-info" "$work/d0.ldg" | grep -q "lsgen.density=default" && ok \
  || bad "META lsgen.density=default missing"
"$lsgen" sphere --radius 1 --h 0.25 --density 2500 -o "$work/d1.ldg" 2> "$work/d1.err"
[ -s "$work/d1.err" ] && bad "--density still warns: $(cat "$work/d1.err")" || ok
"$build/tools/ldg-info" "$work/d1.ldg" | grep -q "lsgen.density=2500 " && ok \
  || bad "META lsgen.density=2500 missing"
# -q silences the warning (errors only).
"$lsgen" sphere --radius 1 --h 0.25 -q -o "$work/d2.ldg" 2> "$work/d2.err"
[ -s "$work/d2.err" ] && bad "-q still warns: $(cat "$work/d2.err")" || ok

# 4. Guards: bad values are usage errors, one line, exit 2, nothing written.
QUIET_STDOUT=1
expect_error "scale 0" 2 "^lsgen: error: --scale: expected a number > 0, got '0'" -- \
  "$lsgen" sphere --radius 1 --scale 0 -o "$work/never.ldg"
expect_error "translate 2 numbers" 2 "^lsgen: error: --translate: expected X,Y,Z" -- \
  "$lsgen" sphere --radius 1 --translate 1,2 -o "$work/never.ldg"
[ -e "$work/never.ldg" ] && bad "a usage error left never.ldg" || ok

echo "lsgen frame: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
