#!/usr/bin/env bash
# modefit end to end on synthetic FEM snapshots whose answer is known (make_msh_snapshots.py),
# and on the analytic beam-bending mode, checked by check_modefit.py against closed forms and
# numpy; then bad input: one "modefit: error: ..." line, exit 2, no output file.
# usage: test_modefit.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
lsgen=$build/tools/lsgen/lsgen
modefit=$build/tools/modefit/modefit
info=$build/tools/ldg-info
py=/usr/bin/python3
here=$src/tests/modefit
. "$src/tests/cli/harness.sh"

"$lsgen" cuboid --size 4,2,2 --h 0.1 -o "$work/box.ldg" || { echo "lsgen failed"; exit 1; }

# 1. A uniaxial strain field, both element orders: K, M, modes on nodes and grid, damping.
for order in 1 2; do
  $py "$here/make_msh_snapshots.py" "$work/strain$order.msh" --size 4,2,2 --cells 8,4,4 \
    --order $order --fields strain
  must "strain order $order" -- "$modefit" --mesh "$work/strain$order.msh" --method single \
    --E 100 --nu 0.3 --normalize point:2,0,0:x --damping ratio:0.05 \
    -i "$work/box.ldg" -o "$work/strain$order.ldg"
  run_check "strain order $order" -- $py "$here/check_modefit.py" strain \
    "$work/strain$order.ldg" 100 0.3 4,2,2
done
must "snapshot table" -- "$modefit" --mesh "$work/strain2.msh" --method single --E 100 \
  --nu 0.3 --normalize point:2,0,0:x --snapshot-table "$work/strain.tsv" -i "$work/box.ldg" \
  -o "$work/strain_t.ldg"
run_check "snapshot table" -- $py "$here/check_modefit.py" table "$work/strain.tsv" 100 0.3 4,2,2

# 2. POD of 3 fields in 20 snapshots: spectrum against numpy's SVD (rigid kept, Euclidean).
$py "$here/make_msh_snapshots.py" "$work/three.msh" --size 4,2,2 --cells 6,3,3 --order 2 \
  --fields three
must "pod" -- "$modefit" --mesh "$work/three.msh" --E 100 --nu 0.3 --keep-rigid \
  --energy 0.999999999 --spectrum "$work/three.tsv" -i "$work/box.ldg" -o "$work/three.ldg"
run_check "pod spectrum" -- $py "$here/check_modefit.py" spectrum "$work/three.tsv" \
  "$work/three.msh.npy"
must "spectrum png" -- "$modefit" --mesh "$work/three.msh" --E 100 --nu 0.3 --modes 3 \
  --spectrum-png "$work/three.png" -i "$work/box.ldg" -o "$work/three_png.ldg"
head -c 8 "$work/three.png" | od -An -c | grep -q "P   N   G" && ok || bad "spectrum png is a PNG"
# The PNG goes through ldem_outfile like every output: a symlink stays a link and its target
# gets the picture; /dev/null stays a device (gnuplot's own file was renamed over them).
rm -f "$work/three.png"
ln -s three.png "$work/png-link"
must "spectrum png through a symlink" -- "$modefit" --mesh "$work/three.msh" --E 100 --nu 0.3 \
  --modes 3 --spectrum-png "$work/png-link" -i "$work/box.ldg" -o "$work/three_png.ldg"
[ -L "$work/png-link" ] && head -c 8 "$work/three.png" | od -An -c | grep -q "P   N   G" && ok \
  || bad "spectrum png through a symlink: the link was replaced or its target is no PNG"
must "spectrum png to /dev/null" -- "$modefit" --mesh "$work/three.msh" --E 100 --nu 0.3 \
  --modes 3 --spectrum-png /dev/null -i "$work/box.ldg" -o "$work/three_png.ldg"
[ -c /dev/null ] && ok || bad "spectrum png replaced /dev/null: $(ls -l /dev/null)"

# Difference modes, energy-orthogonalized: K and M diagonal, DAMP's frequencies theirs.
must "difference orthogonalized" -- "$modefit" --mesh "$work/three.msh" --method difference \
  --modes 3 --orthogonalize --damping rayleigh:0.1,0.001 --E 100 --nu 0.3 \
  -i "$work/box.ldg" -o "$work/diff.ldg"
run_check "difference orthogonalized" -- $py "$here/check_modefit.py" orthogonal "$work/diff.ldg"

# 3. Rigid motion added to every snapshot changes nothing once projected out.
$py "$here/make_msh_snapshots.py" "$work/three_rigid.msh" --size 4,2,2 --cells 6,3,3 \
  --order 2 --fields three --rigid
for name in three three_rigid; do
  must "pod $name" -- "$modefit" --mesh "$work/$name.msh" --E 100 --nu 0.3 --modes 3 \
    --inner mass -i "$work/box.ldg" -o "$work/$name.proj.ldg"
done
run_check "rigid motion removed" -- $py "$here/check_modefit.py" same \
  "$work/three.proj.ldg" "$work/three_rigid.proj.ldg"

# 4. The analytic beam-bending mode on a 160x4x4 cuboid, rigid motion kept and removed.
"$lsgen" cuboid --size 160,4,4 --h 0.25 -o "$work/beam.ldg" || bad "lsgen beam"
for rigid in kept projected; do
  flag=""
  [ $rigid = kept ] && flag=--keep-rigid
  must "beam $rigid" -- "$modefit" --analytic beam-bending --length 160 --axis x --E 1e4 \
    --nu 0.3 $flag -i "$work/beam.ldg" -o "$work/beam_$rigid.ldg"
  run_check "beam $rigid" -- $py "$here/check_modefit.py" beam "$work/beam_$rigid.ldg" \
    1e4 0.3 160 4 4 $rigid
done
"$info" "$work/beam_projected.ldg" > "$work/info.txt" 2>&1 && grep -q "beam-bending" \
  "$work/info.txt" && ok || bad "ldg-info shows the analytic descriptor"

# 5. --cubic on a cube whose mesh (3x4x5 cells) is not symmetric under the axis rotations:
#    sum of a uniaxial compression = isotropic compression, copies of a quadratic field;
#    closed forms in check_modefit.py.
"$lsgen" cuboid --size 2,2,2 --h 0.1 -o "$work/cube.ldg" || bad "lsgen cube"
$py "$here/make_msh_snapshots.py" "$work/compress.msh" --size 2,2,2 --cells 3,4,5 --order 1 \
  --fields compress-z
must "cubic sum" -- "$modefit" --mesh "$work/compress.msh" --cubic sum --method single \
  --E 100 --nu 0.3 --normalize point:0,0,1:-z -v -i "$work/cube.ldg" -o "$work/cubic_sum.ldg"
cp "$work/must.err" "$work/cubic_sum.log"  # must keeps the command's stderr: the -v report
run_check "cubic sum" -- $py "$here/check_modefit.py" cubic-sum "$work/cubic_sum.ldg" \
  "$work/cubic_sum.log" 100 0.3
$py "$here/make_msh_snapshots.py" "$work/quadratic.msh" --size 2,2,2 --cells 3,4,5 --order 2 \
  --fields quadratic-z
must "cubic copies" -- "$modefit" --mesh "$work/quadratic.msh" --cubic copies --method single \
  --E 100 --nu 0.3 --normalize point:0,0,1:-z --snapshot-table "$work/cubic_copies.tsv" \
  -i "$work/cube.ldg" -o "$work/cubic_copies.ldg"
run_check "cubic copies" -- $py "$here/check_modefit.py" cubic-copies "$work/cubic_copies.ldg" \
  100 0.3
run_check "cubic copies table" -- $py "$here/check_modefit.py" cubic-table \
  "$work/cubic_copies.tsv" 100 0.3
must "cubic copies pod" -- "$modefit" --mesh "$work/quadratic.msh" --cubic copies --modes 3 \
  --E 100 --nu 0.3 -i "$work/cube.ldg" -o "$work/cubic_pod.ldg"
run_check "cubic copies pod" -- $py "$here/check_modefit.py" cubic-pod "$work/cubic_pod.ldg" \
  100 0.3

# 6. Bad input: one line, exit 2, no output file.
out=$work/never.ldg
QUIET_STDOUT=1 expect_error "no E" 2 "modefit: error: --E and --nu are required" -- \
  "$modefit" --mesh "$work/strain2.msh" --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "analytic with mesh" 2 "modefit: error: --analytic .*drop --mesh" -- \
  "$modefit" --analytic beam-bending --length 4 --axis x --mesh "$work/strain2.msh" \
  --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "cubic with analytic" 2 "modefit: error: .*--cubic apply to FEM snapshots" -- \
  "$modefit" --analytic beam-bending --length 4 --axis x --cubic sum --E 1 --nu 0.3 \
  -i "$work/box.ldg" -o "$out"
expect_error "bad cubic" 2 "modefit: error: --cubic: expected sum or copies, got 'six'" -- \
  "$modefit" --mesh "$work/strain2.msh" --cubic six --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "cubic single index" 2 "modefit: error: --single-index 2: .* holds 1 snapshots" -- \
  "$modefit" --mesh "$work/quadratic.msh" --cubic copies --method single --single-index 2 \
  --E 1 --nu 0.3 -i "$work/cube.ldg" -o "$out"
expect_error "frd without mesh" 2 "modefit: error: --snapshots .*needs --mesh" -- \
  "$modefit" --snapshots x.frd --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "missing mesh" 2 "modefit: error: .*nonexistent.msh" -- \
  "$modefit" --mesh "$work/nonexistent.msh" --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "normalize outside" 2 "modefit: error: --normalize .*outside the FEM mesh" -- \
  "$modefit" --mesh "$work/strain2.msh" --method single --E 1 --nu 0.3 \
  --normalize point:9,0,0:x -i "$work/box.ldg" -o "$out"
expect_error "normalize no motion" 2 "modefit: error: --normalize .*does not move" -- \
  "$modefit" --mesh "$work/strain2.msh" --method single --E 1 --nu 0.3 \
  --normalize point:2,0,0:y -i "$work/box.ldg" -o "$out"
expect_error "bad normalize" 2 "modefit: error: --normalize: expected point" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.3 --normalize 2,0,0:x -o "$out"
expect_error "modes and energy" 2 "modefit: error: give --modes or --energy" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.3 --modes 2 --energy 0.9 -o "$out"
expect_error "bad nu" 2 "modefit: error: --nu: Poisson" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.5 -o "$out"
"$build/tools/ldg-pack" --meta name=bare -o "$work/bare.ldg"
expect_error "bundle without NODE" 2 "modefit: error: .*bare.ldg.*no BODY section" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.3 -i "$work/bare.ldg" -o "$out"
expect_error "empty input" 2 "modefit: error: .*empty stream" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.3 -i /dev/null -o "$out"
cat "$work/box.ldg" "$work/box.ldg" > "$work/two.ldg"
expect_error "two bundles" 2 "modefit: error: .*more than one bundle" -- \
  "$modefit" --mesh "$work/strain2.msh" --E 1 --nu 0.3 -i "$work/two.ldg" -o "$out"
# Physics that cannot make a mode: pure rigid motion (projected out: nothing left; kept: K = 0).
$py "$here/make_msh_snapshots.py" "$work/rigid.msh" --size 4,2,2 --cells 4,2,2 --order 1 \
  --fields rigid
expect_error "only rigid motion" 2 "modefit: error: .*nothing but rigid-body motion" -- \
  "$modefit" --mesh "$work/rigid.msh" --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
expect_error "K not positive" 2 "modefit: error: .*stiffness matrix is not positive definite" -- \
  "$modefit" --mesh "$work/rigid.msh" --keep-rigid --E 1 --nu 0.3 -i "$work/box.ldg" -o "$out"
# CalculiX results against the wrong mesh, and results without DISP blocks (the bar that
# tests/modefit/fem/ccx_bar.py solves at build time, when ccx and gmsh exist).
bar=$build/tests/modefit
if [ -f "$bar/ccx_bar.frd" ]; then
  expect_error "mismatched mesh" 2 "modefit: error: .*ccx_bar.frd:[0-9]+: .*node" -- \
    "$modefit" --mesh "$here/fem/two_tets.inp" --snapshots "$bar/ccx_bar.frd" --E 1 --nu 0.3 \
    -i "$work/box.ldg" -o "$out"
  # Drop each DISP block whole: its 1PSTEP and 100CL header lines, and the records to -3.
  awk '/^    1PSTEP/{held=$0; next}
       /^  100C/{head=$0; next}
       /^ -4  DISP/{skip=1; held=""; head=""; next}
       skip{ if (/^ -3/) skip=0; next }
       { if (held != "") print held; if (head != "") print head; held=""; head=""; print }' \
    "$bar/ccx_bar.frd" > "$work/nodisp.frd"
  expect_error "frd without DISP" 2 "modefit: error: .*nodisp.frd.*DISP" -- \
    "$modefit" --mesh "$bar/ccx_bar_mesh.inp" --snapshots "$work/nodisp.frd" --E 1 --nu 0.3 \
    -i "$work/box.ldg" -o "$out"
fi
[ -e "$out" ] && bad "an error left $out behind" || ok
ls "$work"/never.ldg.tmp.* > /dev/null 2>&1 && bad "an error left a temporary file" || ok

echo "modefit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
