#!/usr/bin/env bash
# Time-step sanity (issue 34 item 8): a fixed time.dt above the critical step t_c is refused
# (exit 2, one error line naming the grain and law, nothing written) unless time.force_dt:
# true; between safety x t_c and t_c it warns; dt: auto logs the grain and law that set it.
# Validation: t_c is checked against the closed-form Rayleigh time of the one sphere,
# t_R = pi R sqrt(rho/G) / (0.1631 nu + 0.8766), G = E / (2 (1 + nu)): R = 1e-3, E = 70e9,
# nu = 0.25, rho = 2500 give G = 2.8e10 and t_R = 1.02328e-6 (to the 6 digits logged).
# usage: test_timestep_sanity.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
demrun=$build/runtime/demrun/demrun
mkdir -p "$work/case"
cd "$work/case" || exit 1

# scene DT [EXTRA]: one glass sphere, two steps
scene() {
  cat > scene.yaml <<YAML
time: {steps: 2, dt: $1${2:-}}
materials:
  glass: {E: 70e9, nu: 0.25, density: 2500, friction: 0.3}
shapes:
  ball: {sphere: 0.001}
grains:
  - {shape: ball, position: [0, 0, 0]}
YAML
}

# the closed form, independently of the library
tc=$(awk 'BEGIN { G = 70e9 / 2.5; printf "%.6g", 3.14159265358979 * 1e-3 * sqrt(2500 / G) / (0.1631 * 0.25 + 0.8766) }')
[ "$tc" = "1.02328e-06" ] && ok || bad "closed form t_R = $tc, expected 1.02328e-06"

# dt: auto names the grain and law and its critical step is the closed form
scene auto
"$demrun" -o out scene.yaml > /dev/null 2> auto.err
grep -q "critical step $tc (Rayleigh time of grain 0 (grains.0), sphere R 0.001, material glass against glass, law hertz-jager)" auto.err \
  && ok || bad "dt: auto line: $(cat auto.err)"
rm -rf out auto.err

# 2e-5 = 19.5 t_c: refused, nothing written (the folder holds only scene.yaml afterwards)
scene 2e-5
expect_error "dt 19.5x t_c refused" 2 \
  "^demrun: error: scene.yaml:1: time.dt: 2e-05 is 19.5x the critical step 1.02e-06 \(Rayleigh time of grain 0 \(grains.0\), sphere R 0.001, material glass against glass, law hertz-jager\); use dt: auto, a smaller dt, or force_dt: true$" \
  -- "$demrun" -o out scene.yaml
[ "$(ls)" = "scene.yaml" ] && ok || bad "refusal wrote: $(ls)"
expect_error "--check refuses it too" 2 "time.dt: 2e-05 is 19.5x" -- "$demrun" --check scene.yaml

# the same step through --set names --set
scene auto
expect_error "--set time.dt refused" 2 "^demrun: error: --set: time.dt: 2e-05 is 19.5x" \
  -- "$demrun" -o out --set time.dt=2e-5 scene.yaml
[ "$(ls)" = "scene.yaml" ] && ok || bad "--set refusal wrote: $(ls)"

# just above t_c is refused (the limit is t_c itself), just below only warns
scene 1.03e-6
expect_error "dt 1.007x t_c refused" 2 "time.dt: 1.03e-06 is 1.01x the critical step" \
  -- "$demrun" -o out scene.yaml
scene 1.02e-6
"$demrun" -o out scene.yaml > /dev/null 2> warn.err && grep -q "above time.safety" warn.err \
  && ok || bad "dt 0.997 t_c: expected a warning: $(cat warn.err)"
rm -rf out

# forced: runs, with a warning saying so
scene 2e-5 ", force_dt: true"
"$demrun" -o out scene.yaml > /dev/null 2> forced.err && grep -q "forced (force_dt: true)" forced.err \
  && ok || bad "force_dt: $(cat forced.err)"
rm -rf out

# below safety x t_c (0.2 t_c = 2.05e-7): silent
scene 2e-7
"$demrun" -o out scene.yaml > /dev/null 2> quiet.err && ! grep -q "critical" quiet.err \
  && ok || bad "dt 0.195 t_c: $(cat quiet.err)"
rm -rf out

echo "timestep sanity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
