#!/usr/bin/env bash
# The worked example law (model: hooke, runtime/contact/law_hooke.c) run by demrun, against
# closed forms of a linear spring and Coulomb slider:
#   collide  two equal spheres (m = 4/3 pi R^3 rho) meet head-on at relative speed v, no
#            damping: the contact lasts pi sqrt(m*/kn), m* = m/2 (to 1 %, a step is 0.2 % of
#            it), the spring's peak energy is the whole kinetic energy (1e-3) and the spheres
#            part with all of it (restitution 1: 1e-4);
#   slide    a sphere resting on a floor is launched at v0 without spin, mu = 0.3: it slides
#            until v = (5/7) v0 and then rolls, so its kinetic energy ends at 5/7 of the start
#            and friction took 2/7 (1 %), whatever kt.
# And the scene errors of a law's table: kt is required, and does not apply to another model.
# usage: test_law_hooke.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
demrun=$build/runtime/demrun/demrun
mkdir -p "$work/case"
cd "$work/case" || exit 1

cat > collide.yaml <<'YAML'
time: {dt: 1e-7, steps: 2000, force_dt: true}
materials:
  m: {E: 1e9, nu: 0.3, density: 2500, friction: 0.3}
contacts:
  - {between: [m, m], model: hooke, kn: 1e4, kt: 5e3}
shapes:
  ball: {sphere: 0.001}
grains:
  - {shape: ball, position: [-0.001000002, 0, 0], velocity: [0.05, 0, 0]}
  - {shape: ball, position: [0.001000002, 0, 0], velocity: [-0.05, 0, 0]}
output: {probes: {every: 1}}
YAML
"$demrun" -q -o collide collide.yaml 2> err || bad "collide: $(cat err)"
awk -F'\t' '
  /^#/ { next }
  !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
  { t = $(c["t"]) }
  $(c["step"]) == 0 { k0 = $(c["kinetic"]) }
  $(c["contacts"]) > 0 { if (!on) t_on = t; on = 1; t_off = t }
  { if ($(c["stored_normal"]) > emax) emax = $(c["stored_normal"]); k1 = $(c["kinetic"]) }
  END {
    pi = 3.141592653589793; m = 4 / 3 * pi * 1e-9 * 2500
    want = pi * sqrt(m / 2 / 1e4); got = t_off - t_on + 1e-7
    if ((got - want) ^ 2 > (0.01 * want) ^ 2) { print "duration " got ", expected " want; bad = 1 }
    if ((emax / k0 - 1) ^ 2 > 1e-6) { print "peak spring energy " emax " of " k0; bad = 1 }
    if ((k1 / k0 - 1) ^ 2 > 1e-8) { print "restitution^2 " k1 / k0; bad = 1 }
    exit bad
  }' collide/probes.tsv > collide.check && ok || bad "collide: $(cat collide.check)"

# resting overlap m g / kn with m = 1.0472e-5 kg: 1.0273e-8 (0.001 - 1.0273e-8 = 0.00099998973)
cat > slide.yaml <<'YAML'
time: {dt: 2e-6, steps: 15000, force_dt: true}
gravity: [0, 0, -9.81]
initial_overlap: {allow: 1e-4}
materials:
  m: {E: 1e9, nu: 0.3, density: 2500, friction: 0.3}
contacts:
  - {between: [m, m], model: hooke, kn: 1e4, kt: 2e3}
shapes:
  ball: {sphere: 0.001}
grains:
  - {shape: ball, position: [0, 0, 0.00099998973], velocity: [0.1, 0, 0]}
walls:
  - {name: floor, plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
output: {probes: {every: 100}}
YAML
"$demrun" -q -o slide slide.yaml 2> err || bad "slide: $(cat err)"
awk -F'\t' '
  /^#/ { next }
  !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
  $(c["step"]) == 0 { k0 = $(c["kinetic"]) }
  { k1 = $(c["kinetic"]) + $(c["stored_tangential"]); d1 = $(c["dissipated"]) }
  END {
    if ((k1 / k0 - 5 / 7) ^ 2 > (0.01 * 5 / 7) ^ 2) { print "kinetic ratio " k1 / k0 ", expected 5/7"; bad = 1 }
    if ((d1 / k0 - 2 / 7) ^ 2 > (0.01 * 2 / 7) ^ 2) { print "dissipated " d1 / k0 ", expected 2/7"; bad = 1 }
    exit bad
  }' slide/probes.tsv > slide.check && ok || bad "slide: $(cat slide.check)"

E='^demrun: error: '
QUIET_STDOUT=1 expect_error "kt required" 2 "${E}--set: contacts.0: missing 'kt' \(tangential stiffness" -- \
  "$demrun" -q -o never --set 'contacts.0={between: [m, m], model: hooke, kn: 1e4}' collide.yaml
QUIET_STDOUT=1 expect_error "kt elsewhere" 2 "${E}.*contacts.0.kt: does not apply to model hertz-jager" -- \
  "$demrun" -q -o never --set 'contacts.0={between: [m, m], model: hertz-jager, kt: 1}' collide.yaml
[ -e never ] && bad "a refused scene wrote output"

echo "law-hooke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
