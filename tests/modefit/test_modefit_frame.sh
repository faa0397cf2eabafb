#!/usr/bin/env bash
# modefit and the frame of the FEM mesh (issue 37, items 4 and 6): a mesh that is not the
# grain is refused with the fit it needs, --mesh-scale/--mesh-translate and lsgen's own
# --scale/--translate (from META) move the mesh onto the grain, and a defaulted density is
# named. Each block says whether it is a validation (a number against a closed form) or a
# guard (behaviour that must not regress).
# usage: test_modefit_frame.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
lsgen=$build/tools/lsgen/lsgen
modefit=$build/tools/modefit/modefit
py=/usr/bin/python3
here=$src/tests/modefit
. "$src/tests/cli/harness.sh"
check() { run_check "$1" -- $py "$here/check_frame.py" "${@:2}"; }

"$lsgen" cuboid --size 4,2,2 --h 0.1 --density 2 -o "$work/box.ldg" 2> /dev/null \
  || { echo "lsgen failed"; exit 1; }
mk() { $py "$here/make_msh_snapshots.py" "$work/$1.msh" --size 4,2,2 --cells 8,4,4 --order 2 \
  --fields strain "${@:2}"; }
mk box
mk mm --scale 1000 --shift 3000,-500,20
fit=(--method single --E 100 --nu 0.3 --normalize point:2,0,0:x)
must "reference" -- "$modefit" --mesh "$work/box.msh" "${fit[@]}" -i "$work/box.ldg" \
  -o "$work/ref.ldg"

# 1. Validation: the same box exported in mm and shifted by (3000, -500, 20) mm is refused
#    (exit 2, one line, no bundle, no report); the fit it proposes is the exact inverse:
#    scale 1/1000 to 1e-9, translation (-3, 0.5, -0.02) to 1e-9.
out=$work/never.ldg
expect_error "mesh in mm" 2 "^modefit: error: .*mm.msh: the FEM mesh and the grain are not the same body: 162 of 162 .*mesh in mm, grain in m" -- \
  "$modefit" --mesh "$work/mm.msh" "${fit[@]}" -i "$work/box.ldg" -o "$out" \
  --snapshot-table "$work/never.tsv"
cp "$work/err" "$work/mm.err"
[ -e "$out" ] || [ -e "$work/never.tsv" ] && bad "a refused mesh left an output" || ok
check "proposed fit" suggest "$work/mm.err" 1000 -3,0.5,-0.02 1e-9

# 2. Validation: with that fit the bundle is the reference's: K and M to 1e-9.
must "fitted" -- "$modefit" --mesh "$work/mm.msh" "${fit[@]/point:2,0,0:x/point:5000,-500,20:x}" \
  --mesh-scale 0.001 --mesh-translate -3,0.5,-0.02 -i "$work/box.ldg" -o "$work/fitted.ldg"
check "fitted = reference" ratio "$work/fitted.ldg" "$work/ref.ldg" 1 1 1e-9
check "META mesh_to_bundle" meta "$work/fitted.ldg" modefit.mesh_to_bundle \
  "x -> 0.001*x + (-3,0.5,-0.02)"

# 3. Guard: --allow-mismatch turns the refusal into today's warning, and writes.
must "allow mismatch" -- "$modefit" --mesh "$work/mm.msh" --method single --E 100 --nu 0.3 \
  --allow-mismatch -i "$work/box.ldg" -o "$work/allowed.ldg"
grep -q "warning: .*--allow-mismatch: the FEM mesh is not the grain" "$work/must.err" && ok \
  || bad "allow mismatch: no warning: $(cat "$work/must.err")"

# 4. Guard: a mesh turned by 90 degrees (4 x 2 x 2 along y) has the right volume and centre
#    but no scale and shift fits it: refused, saying so.
$py "$here/make_msh_snapshots.py" "$work/turned.msh" --size 2,4,2 --cells 4,8,4 --order 1 \
  --fields strain
expect_error "turned mesh" 2 "^modefit: error: .*turned.msh: .*no scale and shift fits" -- \
  "$modefit" --mesh "$work/turned.msh" --method single --E 100 --nu 0.3 -i "$work/box.ldg" \
  -o "$out"

# 5. Validation: lsgen --scale 2 --translate 1,2,3 and the unscaled mesh. modefit moves the
#    mesh (and its displacements) the same way, so the mode is the reference's on a body
#    twice as large: normalized strain halves, K = (λ+2μ) V ε² grows by 8/4 = 2 and
#    M = ρ ∫u² by 8 (to 1e-9).
"$lsgen" cuboid --size 4,2,2 --h 0.2 --density 2 --scale 2 --translate 1,2,3 \
  -o "$work/box2.ldg" 2> /dev/null || bad "lsgen --scale"
must "lsgen transform applied" -- "$modefit" --mesh "$work/box.msh" "${fit[@]}" -v \
  -i "$work/box2.ldg" -o "$work/scaled.ldg"
grep -q "lsgen's --scale/--translate from the bundle's META" "$work/must.err" && ok \
  || bad "-v does not say that the mesh was moved: $(cat "$work/must.err")"
check "scaled grain" ratio "$work/scaled.ldg" "$work/ref.ldg" 2 8 1e-9
# Guard: --cubic rotates about the origin, which a translated frame moves: refused.
expect_error "cubic translated" 2 "^modefit: error: --cubic rotates about the FEM model's origin" -- \
  "$modefit" --mesh "$work/box.msh" --cubic sum --method single --E 100 --nu 0.3 \
  -i "$work/box2.ldg" -o "$out"

# 6. Guard: a grain whose density lsgen defaulted gets one warning from modefit, after the
#    bundle is written; none with lsgen --density or modefit --density.
"$lsgen" cuboid --size 4,2,2 --h 0.2 -o "$work/nodensity.ldg" 2> /dev/null
must "defaulted density" -- "$modefit" --mesh "$work/box.msh" "${fit[@]}" \
  -i "$work/nodensity.ldg" -o "$work/nd.ldg"
[ "$(grep -c "warning: the grain's density is lsgen's default 1" "$work/must.err")" = 1 ] && ok \
  || bad "defaulted density: $(cat "$work/must.err")"
must "modefit --density" -- "$modefit" --mesh "$work/box.msh" "${fit[@]}" --density 3 \
  -i "$work/nodensity.ldg" -o "$work/nd.ldg"
[ -s "$work/must.err" ] && bad "modefit --density still warns: $(cat "$work/must.err")" || ok
must "lsgen --density" -- "$modefit" --mesh "$work/box.msh" "${fit[@]}" -i "$work/box.ldg" \
  -o "$work/nd.ldg"
[ -s "$work/must.err" ] && bad "lsgen --density: modefit warns: $(cat "$work/must.err")" || ok

# 7. Guard: --eigen solves on the --mesh given: the same refusal and the same fit; on the
#    bundle's own surface (no --mesh) there is no file frame to map.
expect_error "eigen mesh in mm" 2 "^modefit: error: .*mm.msh: the FEM mesh and the grain are not the same body: .*--mesh-scale 0.001 --mesh-translate -3,0.5,-0.02" -- \
  "$modefit" --mesh "$work/mm.msh" --eigen 2 --E 100 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "eigen frame without mesh" 2 "^modefit: error: --mesh-scale, --mesh-translate and --allow-mismatch apply to a FEM mesh given with --mesh" -- \
  "$modefit" --eigen 2 --mesh-scale 2 --E 100 --nu 0.3 -i "$work/box.ldg" -o "$out"

# 8. Guard: the new options' usage errors.
expect_error "mesh-scale 0" 2 "^modefit: error: --mesh-scale: expected a number > 0" -- \
  "$modefit" --mesh "$work/box.msh" --mesh-scale 0 --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "mesh-translate 2" 2 "^modefit: error: --mesh-translate: expected 3" -- \
  "$modefit" --mesh "$work/box.msh" --mesh-translate 1,2 --E 1 --nu 0.3 -i "$work/box.ldg" \
  -o "$out"
expect_error "analytic allow-mismatch" 2 "^modefit: error: --mesh-scale, --mesh-translate and --allow-mismatch apply to a FEM mesh" -- \
  "$modefit" --analytic beam-bending --length 4 --axis x --allow-mismatch --E 1 --nu 0.3 \
  -i "$work/box.ldg" -o "$out"
[ -e "$out" ] && bad "an error left $out behind" || ok

echo "modefit frame: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
