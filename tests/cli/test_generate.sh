#!/usr/bin/env bash
# grains: - generate: (issue 34 item 1) through demrun. Validation: a polydisperse mix of
# spheres and level-set grains (a superquadric from lsgen) generated into a box passes
# demrun's own initial-overlap check (an independent narrow-phase test of every pair and of
# the walls); spheres generated in a cylinder stay inside it with their sizes in range, and
# the same seed gives the same packing bit for bit (packing.tsv). The distributions, the
# solid fraction and the mix's shares are validated in tests/sim/test_generate.c. Guards: bad
# input exits 2 naming FILE:LINE and the key, and writes nothing.
# usage: test_generate.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
demrun=$build/runtime/demrun/demrun
lsgen=$build/tools/lsgen/lsgen
mkdir -p "$work/case"
cd "$work/case" || exit 1
"$lsgen" superquadric --axes 3,2,1.5 --eps 0.5,0.8 --h 0.2 -o rock.ldg 2> /dev/null ||
  bad "lsgen superquadric"

# scene GENERATE [OUTPUT]: mm, ms, g; a box of five walls around the region
scene() {
  cat > scene.yaml <<YAML
time: {steps: 2}
materials:
  stone: {E: 100, nu: 0.25, density: 2.5e-3, friction: 0.5}
shapes:
  ball: {sphere: 2.0}
  rock: {bundle: rock.ldg}
grains:
$1
walls:
  - {name: floor, plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  - {name: west, plane: {point: [-20, 0, 0], normal: [1, 0, 0]}}
  - {name: east, plane: {point: [20, 0, 0], normal: [-1, 0, 0]}}
  - {name: south, plane: {point: [0, -20, 0], normal: [0, 1, 0]}}
  - {name: north, plane: {point: [0, 20, 0], normal: [0, -1, 0]}}
output: {probes: {every: 0}${2:-}}
YAML
}

mix='  - generate:
      shapes: [{shape: ball, fraction: 3}, {shape: rock, fraction: 1}]
      by: mass
      diameter: {lognormal: {median: 4, sigma: 0.25, min: 2.5, max: 6}}
      region: {box: {lo: [-20, -20, 0], hi: [20, 20, 60]}}
      solid_fraction: 0.3
      seed: 7'
scene "$mix"
if "$demrun" --check scene.yaml > log 2>&1; then ok; else bad "the generated mix: $(cat log)"; fi
grep -q "grains ([0-9]* level-set)" log && ok || bad "no summary: $(cat log)"

# both shapes present, spheres the more numerous (3:1 by mass, and a rock outweighs a ball)
n=$(sed -n 's/.*: \([0-9]*\) grains (\([0-9]*\) level-set).*/\1 \2/p' log)
set -- $n
[ "${1:-0}" -gt 100 ] && [ "${2:-0}" -gt 10 ] && [ "$2" -lt "$1" ] && ok ||
  bad "grain counts '$n'"

# the same seed, the same bytes (spheres only: packing.tsv writes spheres)
balls='  - generate:
      shape: ball
      diameter: {uniform: [2, 5]}
      region: {cylinder: {point: [0, 0, 0], axis: [0, 0, 1], radius: 19, height: 40}}
      count: 400
      seed: 11'
scene "$balls" ", packing: true"
"$demrun" -q -o a scene.yaml && "$demrun" -q -o b scene.yaml || bad "spheres runs"
cmp -s a/packing.tsv b/packing.tsv && ok || bad "same seed, different packings"
[ "$(grep -vc '^#' a/packing.tsv)" = 401 ] && ok || bad "expected 400 grains"
# every centre inside the cylinder shrunk by its radius (r <= 19 - radius, r >= radius in z)
awk 'NR > 1 && !/^#/ && $1 != "id" {
       r = sqrt($2 * $2 + $3 * $3)
       if (r > 19 - $5 + 1e-12 || $4 < $5 - 1e-12 || $4 > 40 - $5 + 1e-12 || $5 < 1 || $5 > 2.5) bad = 1
     } END { exit bad }' a/packing.tsv && ok || bad "a sphere outside the cylinder or its sizes"
sed -i 's/seed: 11/seed: 12/' scene.yaml
"$demrun" -q -o c scene.yaml && ! cmp -s a/packing.tsv c/packing.tsv && ok || bad "another seed, same packing"

# refused NAME PATTERN [GENERATE]: exit 2 with the line, nothing written
refused() {
  scene "$3"
  expect_error "$1" 2 "$2" -- "$demrun" -q -o out scene.yaml
  [ ! -e out ] && ok || bad "$1: wrote out/"
}
refused "too full" "^demrun: error: scene.yaml:9: grains.0.generate: placed [0-9]* of 5000 grains .* found no room" \
'  - generate:
      shape: ball
      region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}
      count: 5000
      attempts: 100'
refused "count and solid fraction" "^demrun: error: scene.yaml:8: grains.0.generate: give one of count: N or solid_fraction: f" \
'  - generate: {shape: ball, count: 5, solid_fraction: 0.1, region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}}'
refused "sieve not reaching 100 %" "^demrun: error: scene.yaml:8: grains.0.generate.diameter.sieve: the curve must run from 0 % passing" \
'  - generate: {shape: ball, count: 5, diameter: {sieve: [[1, 0], [2, 50], [4, 90]]}, region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}}'
refused "decreasing sieve" "^demrun: error: scene.yaml:8: grains.0.generate.diameter.sieve.2: percent passing must not decrease" \
'  - generate: {shape: ball, count: 5, diameter: {sieve: [[1, 0], [2, 50], [4, 40], [5, 100]]}, region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}}'
refused "unknown shape in the mix" "^demrun: error: scene.yaml:8: grains.0.generate.shapes.1" \
'  - generate: {shapes: [{shape: ball, fraction: 1}, {shape: pebble, fraction: 1}], count: 5, region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}}'
refused "inverted box" "^demrun: error: scene.yaml:8: grains.0.generate.region.box: hi must exceed lo" \
'  - generate: {shape: ball, count: 5, region: {box: {lo: [0, 0, 0], hi: [20, -20, 20]}}}'
refused "a typo" "^demrun: error: scene.yaml:8: grains.0.generate.seeed: unknown key" \
'  - generate: {shape: ball, count: 5, seeed: 3, region: {box: {lo: [-20, -20, 0], hi: [20, 20, 20]}}}'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
