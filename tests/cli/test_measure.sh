#!/usr/bin/env bash
# The probes' packing measures (output.probes.measure, ldem/sim/measure.h), validated against
# closed forms on a simple cubic block of 3 x 3 x 3 spheres (radius 1, spacing 1.99: every face
# neighbour overlaps by 0.01) in a box of six walls that each overlap the outer spheres by
# 0.005, at step 0: 54 grain contacts along the axes, so coordination 2*54/27 = 4, no rattler,
# Thornton's mechanical coordination 4, fabric diag(1/3), equal normal forces (std 0); the
# solid fraction is 27 spheres less 54 caps of height 0.005 over the box; the Love-Weber
# stress with the walls is sigma_xx = (18 * 1.99 * F_gg + 18 * (1 - 0.005/2) * F_gw) / V (a wall
# contact's point is the middle of its overlap) with
# Hertz's F = 4/3 E* sqrt(R*) d^1.5 (E* = E / (2 (1 - nu^2)), R* = 1/2 between spheres, 1
# against a wall).
# usage: test_measure.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
demrun=$build/runtime/demrun/demrun
mkdir -p "$work/case"
cd "$work/case" || exit 1
# box: spheres at -1.99, 0, 1.99 on each axis; walls at +-(1.99 + 1 - 0.005)
cat > scene.yaml <<'YAML'
time: {dt: 1e-6, steps: 1, force_dt: true}
initial_overlap: {allow: 0.02}
materials:
  m: {E: 1e6, nu: 0.3, density: 1000, friction: 0.5}
shapes:
  ball: {sphere: 1.0}
grains:
  - lattice: {shape: ball, origin: [-1.99, -1.99, -1.99], spacing: 1.99, count: [3, 3, 3]}
walls:
  - {name: x0, plane: {point: [-2.985, 0, 0], normal: [1, 0, 0]}}
  - {name: x1, plane: {point: [2.985, 0, 0], normal: [-1, 0, 0]}}
  - {name: y0, plane: {point: [0, -2.985, 0], normal: [0, 1, 0]}}
  - {name: y1, plane: {point: [0, 2.985, 0], normal: [0, -1, 0]}}
  - {name: z0, plane: {point: [0, 0, -2.985], normal: [0, 0, 1]}}
  - {name: z1, plane: {point: [0, 0, 2.985], normal: [0, 0, -1]}}
output: {probes: {every: 1, measure: true}}
YAML
"$demrun" -q -o out scene.yaml 2> err || bad "run: $(cat err)"
awk -F'\t' '
  /^#/ { next }
  !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
  $(c["step"]) == 0 {
    pi = 3.141592653589793; E = 1e6 / (2 * (1 - 0.09))
    fgg = 4 / 3 * E * sqrt(0.5) * 0.01 ^ 1.5; fgw = 4 / 3 * E * 1 * 0.005 ^ 1.5
    L = 2 * 2.985; V = L ^ 3
    sxx = (18 * 1.99 * fgg + 18 * 0.9975 * fgw) / V
    h5 = 0.005; phi = (27 * 4 / 3 * pi - 54 * pi * h5 * h5 * (3 - h5) / 3) / V
    want["coordination"] = 4; want["coordination_nr"] = 4; want["mech_coordination"] = 4
    want["rattlers"] = 0; want["fab_xx"] = 1 / 3; want["fab_yy"] = 1 / 3; want["fab_zz"] = 1 / 3
    want["fab_xy"] = 0; want["fab_yz"] = 0; want["fab_zx"] = 0; want["fn_mean"] = fgg
    want["fn_max"] = fgg; want["solid_fraction"] = phi; want["porosity"] = 1 - phi
    want["stress_xx"] = sxx; want["stress_yy"] = sxx; want["stress_zz"] = sxx
    want["stress_xy"] = 0; want["stress_p"] = sxx; want["stress_q"] = 0
    for (k in want) {
      if (!(k in c)) { print "no column " k; bad = 1; continue }
      got = $(c[k]); tol = 1e-9 * (want[k] < 0 ? -want[k] : want[k]) + 1e-12
      d = got - want[k]; if (d < 0) d = -d
      if (d > tol) { print k ": " got ", expected " want[k]; bad = 1 }
    }
    if ($(c["fn_std"]) > 1e-9 * fgg) { print "fn_std " $(c["fn_std"]); bad = 1 }
    n++
  }
  END { exit bad || n != 1 }' out/probes.tsv > awk.log && ok || bad "measures: $(cat awk.log)"

# a rattler: one more sphere resting against the floor only (one contact) is one, iteratively
# its lone neighbour is not (it keeps its own contacts)
sed -i 's/^walls:/  - {shape: ball, position: [8, 8, -1.99]}\nwalls:/; s/x1, plane: {point: \[2.985/x1, plane: {point: [9.5/; s/y1, plane: {point: \[0, 2.985/y1, plane: {point: [0, 9.5/' scene.yaml
"$demrun" -q -o out2 scene.yaml 2> err || bad "run with a rattler: $(cat err)"
awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
  $(c["step"]) == 0 { r = $(c["rattlers"]); exit !(r > 0) }' out2/probes.tsv && ok ||
  bad "no rattler found"
echo "measure: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
