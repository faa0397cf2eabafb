#!/usr/bin/env bash
# Initial overlaps (issue 34 item 2): a new run whose grains start inside each other or a
# wall exits 2 with one error line naming the pair and the overlap, and writes nothing,
# unless initial_overlap.allow accepts it. Validation: every overlap in the expected messages
# is the closed form d − (r1 + r2) (sphere pairs), r − distance to the plane (floor),
# r − (R − ρ) (a sphere in a drum of radius R), computed by hand in the comments.
# usage: test_initial_overlaps.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
demrun=$build/runtime/demrun/demrun
lsgen=$build/tools/lsgen/lsgen
mkdir -p "$work/case"
cd "$work/case" || exit 1

# scene GRAINS [WALLS] [EXTRA]: glass spheres of radius 1 mm (shape ball) and 0.5 mm (small)
scene() {
  cat > scene.yaml <<YAML
time: {steps: 2}
materials:
  glass: {E: 70e9, nu: 0.25, density: 2500, friction: 0.3}
shapes:
  ball: {sphere: 0.001}
  small: {sphere: 0.0005}
grains:
$1
${2:-}
${3:-}
YAML
}
# refused NAME PATTERN: the run exits 2, one line matching, and the folder holds only the scene
refused() {
  expect_error "$1" 2 "$2" -- "$demrun" -q -o out scene.yaml
  [ "$(ls)" = "scene.yaml" ] && ok || bad "$1: the refusal wrote: $(ls)"
}

# 80 % into the floor: centre 0.2 mm above it, overlap 1 − 0.2 = 0.8 mm (80 %)
scene "  - {shape: ball, position: [0, 0, 0.0002]}" \
      "walls: [{name: floor, plane: {point: [0, 0, 0], normal: [0, 0, 1]}}]"
refused "sphere 80% into the floor" \
  "^demrun: error: scene.yaml:8: grains.0 \(grain 0\) and wall 'floor' overlap by 0.0008 \(80% of the smaller radius\); 1 overlapping pair beyond initial_overlap.allow 1e-09"
expect_error "--check refuses it too" 2 "overlap by 0.0008" -- "$demrun" -q --check scene.yaml

# two 1 mm spheres 0.5 mm apart: 2 − 0.5 = 1.5 mm (150 %); a 0.5 mm sphere 1.2 mm from the
# second: 1.5 − 1.2 = 0.3 mm (60 % of the smaller radius 0.5 mm), and √(0.5² + 1.2²) = 1.3 mm
# from the first: 1.5 − 1.3 = 0.2 mm (40 %). Largest first.
scene "  - {shape: ball, position: [0, 0, 0.01]}
  - {shape: ball, position: [0.0005, 0, 0.01]}
  - {shape: small, position: [0.0005, 0.0012, 0.01]}"
refused "two sphere pairs, largest first" \
  "grains.0 \(grain 0\) and grains.1 \(grain 1\) overlap by 0.0015 \(150% of the smaller radius\); 3 overlapping pairs beyond initial_overlap.allow 1e-09, largest first, the next: grains.1 \(grain 1\) and grains.2 \(grain 2\) 0.0003 \(60%\); grains.0 \(grain 0\) and grains.2 \(grain 2\) 0.0002 \(40%\);"

# same position: overlap r1 + r2 = 2 mm (200 %)
scene "  - {shape: ball, position: [0, 0, 0.01]}
  - {shape: ball, position: [0, 0, 0.01]}"
refused "two spheres at the same position" "overlap by 0.002 \(200% of the smaller radius\)"

# inside a drum of radius 5 mm, centre 4.5 mm from the axis: 1 − (5 − 4.5) = 0.5 mm (50 %)
scene "  - {shape: ball, position: [0.0045, 0, 0.01]}" \
      "walls: [{name: drum, cylinder: {point: [0, 0, 0], axis: [0, 0, 1], radius: 0.005}}]"
refused "sphere into a drum" "grains.0 \(grain 0\) and wall 'drum' overlap by 0.0005 \(50% of"

# a level-set sphere of radius 1 mm (the lsgen unit sphere scaled) and a 0.5 mm sphere 1.2 mm
# apart: 0.3 mm. The level-set side measures it at its surface nodes (grid h = 0.1 of the
# radius), so only the first digit is asserted: 0.0002x or 0.0003.
"$lsgen" sphere --radius 0.001 --h 0.0001 -o ls.ldg > /dev/null 2>&1 || bad "setup: lsgen"
mv ls.ldg "$work/ls.ldg"
scene "  - {shape: grain, position: [0, 0, 0.01]}
  - {shape: small, position: [0.0012, 0, 0.01]}" "" "shapes_extra: 0"
sed -i "s|^shapes_extra: 0||; s|^  small: {sphere: 0.0005}|  small: {sphere: 0.0005}\n  grain: {bundle: $work/ls.ldg}|" scene.yaml
refused "level-set grain into a sphere" \
  "grains.0 \(grain 0\) and grains.1 \(grain 1\) overlap by 0.000(2[5-9][0-9]*|3) \((5[0-9]|60)(\.[0-9]*)?% of the smaller radius\)"

# accepted within initial_overlap.allow, logged once; refused when the allowance is smaller.
# Two 1 mm spheres 1.99 mm apart: 0.01 mm, 1 % of the radius.
pair="  - {shape: ball, position: [0, 0, 0.01]}
  - {shape: ball, position: [0.00199, 0, 0.01]}"
scene "$pair" "" "initial_overlap: {allow: 0.02}"
"$demrun" -o out scene.yaml > /dev/null 2> accepted.err \
  && grep -q "initial_overlap: 1 overlapping pair accepted (allow 0.02), the largest 1e-05 (1% of the smaller radius)" accepted.err \
  && ok || bad "allow 0.02 should accept 1 %: $(cat accepted.err)"
rm -rf out accepted.err
scene "$pair" "" "initial_overlap: {allow: any}"
"$demrun" -o out scene.yaml > /dev/null 2>&1 && ok || bad "allow: any should accept"
rm -rf out
scene "$pair" "" "initial_overlap: {allow: 0.005}"
refused "allow 0.005 refuses 1 %" "overlap by 1e-05 \(1% of the smaller radius\); 1 overlapping pair beyond initial_overlap.allow 0.005"

# touching within round-off is not an overlap: 2 mm apart exactly
scene "  - {shape: ball, position: [0, 0, 0.01]}
  - {shape: ball, position: [0.002, 0, 0.01]}"
"$demrun" -o out scene.yaml > /dev/null 2>&1 && ok || bad "touching spheres refused"
rm -rf out

# a restart does not check: a checkpoint's contacts overlap by design
scene "$pair" "" "initial_overlap: {allow: 0.02}"
"$demrun" -q -o out --stop-at 1 scene.yaml > /dev/null 2>&1 || bad "setup: run to step 1"
sed -i 's/^initial_overlap.*//' scene.yaml
"$demrun" -q -o out --restart out/checkpoint.ldc scene.yaml > /dev/null 2> restart.err \
  && ok || bad "restart refused: $(cat restart.err)"

echo "initial overlaps: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
