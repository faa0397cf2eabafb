#!/usr/bin/env bash
# modefit --normalize mean:SET:C and --normalize-after-rigid (issue 37, item 5): a .msh's
# physical group, then CalculiX's bar in uniform tension (fem/ccx_bar.py, built when ccx
# and gmsh exist; exit 77 = skipped otherwise): u = d (x/L, -nu y/L, -nu z/L) on [0,4]x[0,1]x[0,1], L = 4,
# nu = 0.3, d = 0.01 (step 1) and -0.02 (step 2), which 10-node tets hold exactly.
# Each block says whether it is a validation (numbers against that closed form) or a guard.
# usage: test_modefit_normalize.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
lsgen=$build/tools/lsgen/lsgen
modefit=$build/tools/modefit/modefit
info=$build/tools/ldg-info
py=/usr/bin/python3
here=$src/tests/modefit
bar=$build/tests/modefit
. "$src/tests/cli/harness.sh"
check() { run_check "$1" -- $py "$here/check_frame.py" "${@:2}"; }

# 0. A Gmsh .msh's physical group (no CalculiX needed). Validation: the +x face of a box
#    under u = (1e-3 x, 0, 0) moves uniformly, so mean:XL:x is point:2,0,0:x (K, M to
#    1e-12) and the group name is case-insensitive. Guard: an unknown group lists them.
"$lsgen" cuboid --size 4,2,2 --h 0.1 --density 1 -o "$work/box.ldg" 2> /dev/null
$py "$here/make_msh_snapshots.py" "$work/group.msh" --size 4,2,2 --cells 8,4,4 --order 2 \
  --fields strain --group XL
for n in point:2,0,0:x mean:xl:x; do
  must "msh $n" -- "$modefit" --mesh "$work/group.msh" --method single --E 100 --nu 0.3 \
    --normalize $n -i "$work/box.ldg" -o "$work/group-${n%%:*}.ldg"
done
check "msh group mean = point" ratio "$work/group-mean.ldg" "$work/group-point.ldg" 1 1 1e-12
expect_error "msh unknown group" 2 "^modefit: error: .*group.msh: no physical group named NOPE \(it has: XL, body\)" -- \
  "$modefit" --mesh "$work/group.msh" --method single --E 100 --nu 0.3 \
  --normalize mean:NOPE:x -i "$work/box.ldg" -o "$work/never.ldg"

if [ ! -f "$bar/ccx_bar.frd" ]; then
  echo "no CalculiX bar fixture (ccx or gmsh missing): the deck's sets skipped"
  echo "modefit normalize: $pass passed, $fail failed"
  [ "$fail" -eq 0 ] || exit 1
  exit 77
fi

# The deck with a *SURFACE of the x = 4 faces and a GENERATE'd *NSET of every node.
$py "$here/fem/ccx_bar_surface.py" "$bar" "$work/bar.inp" > /dev/null || { echo "deck"; exit 1; }
# lsgen's cuboid is centred at the origin: the mesh's frame is that moved by (2, .5, .5).
"$lsgen" cuboid --size 4,1,1 --h 0.1 --density 7.8e-9 -o "$work/bar.ldg" 2> /dev/null \
  || { echo "lsgen failed"; exit 1; }
run() {
  local name=$1
  shift
  must "$name" -- "$modefit" --mesh "$work/bar.inp" --snapshots "$bar/ccx_bar.frd" \
    --mesh-translate -2,-0.5,-0.5 --method single --E 210000 --nu 0.3 -i "$work/bar.ldg" \
    -o "$work/$name.ldg" --snapshot-table "$work/$name.tsv" "$@"
}
run point --normalize point:4,0.5,0.5:x
run xl-x --normalize mean:XL:x
run xl-y --normalize mean:XL:y
run end-y --normalize mean:End:y
run all-x --normalize mean:ALLGEN:x
run xl-x-after --normalize mean:XL:x --normalize-after-rigid

# 1. Validation: the snapshot table's normalization column is the mean itself. Over the
#    end face (*NSET XL) u_x = d and the mean of u_y = -nu d y / L is -nu d / (2 L):
#    -3.75e-4 and 7.5e-4 (CalculiX's solution to ~1e-11).
check "mean XL x" column "$work/xl-x.tsv" point 0.01,-0.02 1e-9
check "mean XL y" column "$work/xl-y.tsv" point -3.75e-4,7.5e-4 1e-9
# ... the *SURFACE End (element faces S1..S4, by number and through *ELSETs) is the same
#     faces: the same means.
check "mean End y" column "$work/end-y.tsv" point -3.75e-4,7.5e-4 1e-9
# ... every boundary face (*NSET ALLGEN, GENERATE): area-weighted mean of x over the box's
#     surface is (0 + 4 + 4*4*2) / 18 = 2, so the mean of u_x is d / 2 (an unweighted
#     mean over the nodes would not be: the faces' meshes differ).
check "mean all x" column "$work/all-x.tsv" point 0.005,-0.01 1e-9
# 2. Validation: K and M scale with the square of 1/mean: mean:XL:x is point:4,.5,.5:x
#    (u_x uniform on the face), mean:XL:y has K, M x (d / (nu d / 2L))^2 = (8/0.3)^2.
check "mean = point" ratio "$work/xl-x.ldg" "$work/point.ldg" 1 1 1e-8
check "mean y vs x" ratio "$work/xl-y.ldg" "$work/xl-x.ldg" 711.1111111111111 711.1111111111111 1e-8
# 3. Validation: after rigid-body removal (mass-weighted, about the centre x = 2) u_x is
#    d (x - 2) / L: the face mean halves, so K and M are 4 times those normalized before.
#    To 1e-6: the .frd prints 6 significant digits, and the rounding of the other nodes'
#    u_y, u_z leaves rotations of ~1e-7 in the projection (the raw face mean of u_x is
#    exact: every node there holds d).
check "after rigid" ratio "$work/xl-x-after.ldg" "$work/xl-x.ldg" 4 4 1e-6
check "after rigid table" column "$work/xl-x-after.tsv" point 0.005,-0.01 1e-8
check "META normalize" meta "$work/xl-y.ldg" modefit.normalize mean:XL:y
check "META normalize_on before" meta "$work/xl-y.ldg" modefit.normalize_on \
  "FEM field with rigid motion (before rigid-body removal)"
check "META normalize_on after" meta "$work/xl-x-after.ldg" modefit.normalize_on \
  "rigid-free mode (after rigid-body removal)"
# ... and for the analytic beam (Henzel eq. 51, 160 x 4 x 4): normalized after rigid-body
#     removal the stored mode is -1 along z at mid-span (a grid node; float32: 1e-6); the
#     default normalizes the raw formula, and removing its translation moves that value.
"$lsgen" cuboid --size 160,4,4 --h 0.25 --density 1 -o "$work/beam.ldg" 2> /dev/null
for when in before after; do
  flag=""
  [ $when = after ] && flag=--normalize-after-rigid
  must "beam $when" -- "$modefit" --analytic beam-bending --length 160 --axis x --E 1e4 \
    --nu 0.3 --normalize point:0,0,0:z --depth 2 $flag -i "$work/beam.ldg" \
    -o "$work/beam-$when.ldg"
done
check "beam after rigid" gridvalue "$work/beam-after.ldg" 0,0,0 2 1 1e-6
check "beam before rigid" gridvalue "$work/beam-before.ldg" 0,0,0 2 '!1' 1e-3
# Guard: a bundle remade without --normalize does not keep claiming one.
must "renormalized" -- "$modefit" --mesh "$work/bar.inp" --snapshots "$bar/ccx_bar.frd" \
  --mesh-translate -2,-0.5,-0.5 --method single --E 210000 --nu 0.3 \
  -i "$work/xl-x-after.ldg" -o "$work/plain.ldg"
check "META normalize dropped" meta "$work/plain.ldg" modefit.normalize none

# 4. Guards: refusals, one line, exit 2, nothing written.
out=$work/never.ldg
bad_norm() {
  local name=$1 pattern=$2
  shift 2
  expect_error "$name" 2 "^modefit: error: .*$pattern" -- "$modefit" --mesh "$work/bar.inp" \
    --snapshots "$bar/ccx_bar.frd" --mesh-translate -2,-0.5,-0.5 --method single --E 1 \
    --nu 0.3 -i "$work/bar.ldg" -o "$out" "$@"
}
bad_norm "nset without a face" "no boundary face has all three corner nodes in \*NSET ORIGIN" \
  --normalize mean:ORIGIN:x
bad_norm "unknown set" "no \*NSET or \*SURFACE named NOPE in the deck \(it has: ALLN, X0, XL" \
  --normalize mean:NOPE:x
# (the end x = 0 is held in x by the FEM model's supports)
bad_norm "no motion" "mode 1 does not move that set on average" --normalize mean:X0:-x
bad_norm "bad component" "--normalize: expected point:X,Y,Z:C or mean:" --normalize mean:XL:w
bad_norm "after without normalize" "--normalize-after-rigid goes with --normalize" \
  --normalize-after-rigid
bad_norm "after with keep-rigid" "--normalize-after-rigid: with --keep-rigid" \
  --normalize mean:XL:x --normalize-after-rigid --keep-rigid
expect_error "mean with cubic" 2 "^modefit: error: --normalize mean: does not combine with --cubic" -- \
  "$modefit" --mesh "$work/bar.inp" --snapshots "$bar/ccx_bar.frd" --cubic sum --E 1 \
  --nu 0.3 --normalize mean:XL:x -i "$work/bar.ldg" -o "$out"
[ -e "$out" ] && bad "an error left $out behind" || ok

echo "modefit normalize: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
