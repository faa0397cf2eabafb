#!/usr/bin/env bash
# demrun stages (scene key `stages:`), one part per meson test:
#   separate  box30 in three stages equals the same three stages run as separate
#             `--restart --set` runs bit for bit: probes (but the staged run's `stage`
#             column, checked on its own), frames, .pvd series, and the final
#             checkpoint's sections (all but STAG, which only the staged run writes) (validation
#             against the documented equivalence)
#   restart   stopped mid-stage, at a stage's last step and in the last stage, then continued
#             with --restart: the outputs equal the uninterrupted staged run's; each
#             DIR/stage-NAME.ldc restarts into the next stage; a servo_settled stage stopped
#             in the middle of its window continues bitwise (guard)
#   criteria  one sphere dropped on a floor: `steps` and `time` end where the step count
#             says (100, then 0.002 / 1e-5 = 200 more); kinetic_ratio and unbalanced end the
#             settling at the first check where both hold, recomputed from the probes table;
#             wall_force ends the press at the first check where |lid.fz| >= 0.01 (validation
#             against independent columns)
#   signal    SIGTERM during a staged run, then --restart: bitwise the uninterrupted run
#   errors    mistakes in any stage fail at start with exit 2 and FILE:LINE of the key,
#             nothing written
# usage: test_demrun_stages.sh BUILD_DIR SOURCE_DIR PART
set -u
build=$1
src=$2
part=$3
demrun=$build/runtime/demrun/demrun
scenes=$src/tests/demrun/scenes
# shellcheck source=../cli/harness.sh
. "$src/tests/cli/harness.sh"
export OMP_WAIT_POLICY=passive

# sections FILE: one line per bundle section, "TAG LENGTH MD5" (the checkpoint container:
# a 16-byte header, then tag, flags u32, length u64, payload, crc u32; docs/bundle.md).
sections() {
  /usr/bin/python3 - "$1" <<'PY'
import hashlib, struct, sys
d = open(sys.argv[1], 'rb').read()
p = 16
while p < len(d):
    tag = d[p:p + 4].decode('latin-1')
    n = struct.unpack('<Q', d[p + 8:p + 16])[0]
    print(tag, n, hashlib.md5(d[p + 16:p + 16 + n]).hexdigest())
    p += 16 + n + 4
PY
}

# same_run NAME A B: the folders hold the same outputs besides checkpoints, and their
# checkpoint.ldc the same sections besides STAG. With NOSTAGE=1, A's probes lose their last
# column (`stage`, which only a staged run writes) before the comparison.
same_run() {
  local name=$1 a=$2 b=$3
  local x=(-x '*.ldc')
  if [ "${NOSTAGE:-0}" = 1 ]; then
    x+=(-x probes.tsv)
    if ! diff <(awk -F'\t' -v OFS='\t' '/^#/ { print; next } { NF--; print }' "$a/probes.tsv") \
              "$b/probes.tsv" > "$work/diff.txt"; then
      bad "$name: probes differ: $(head -3 "$work/diff.txt")"
      return
    fi
  fi
  if ! diff -r -q "${x[@]}" "$a" "$b" > "$work/diff.txt" 2>&1; then
    bad "$name: outputs differ: $(head -3 "$work/diff.txt")"
  elif ! diff <(sections "$a/checkpoint.ldc" | grep -v '^STAG') \
              <(sections "$b/checkpoint.ldc" | grep -v '^STAG') > "$work/diff.txt"; then
    bad "$name: checkpoints differ: $(head -3 "$work/diff.txt")"
  else ok; fi
}

staged=$scenes/stages_box.yaml
# the same scene without its stages, for the separate runs
sed '/^stages:/,$d' "$staged" > "$work/plain.yaml"
press=(--set walls.2.servo.force=0.05 --set damping.local=0.1)
hold=(--set 'gravity=[0,0,0]')

case $part in
separate)
  must "staged run" -- "$demrun" -q -j 1 "$staged" -o "$work/a"
  must "separate 1" -- "$demrun" -q -j 1 "$work/plain.yaml" -o "$work/b" --set time.steps=1000
  must "separate 2" -- "$demrun" -q -j 1 "$work/plain.yaml" -o "$work/b" \
    --restart "$work/b/checkpoint.ldc" "${press[@]}" --set time.steps=1800
  must "separate 3" -- "$demrun" -q -j 1 "$work/plain.yaml" -o "$work/b" \
    --restart "$work/b/checkpoint.ldc" "${press[@]}" "${hold[@]}" --set time.steps=2500
  NOSTAGE=1 same_run "staged = separate" "$work/a" "$work/b"
  # the stage column: 0 up to step 1000 (settle's last), 1 to 1800, 2 to 2500
  if awk -F'\t' '/^#/ { next } !h { h = 1; if ($NF != "stage") exit 1; next }
       { want = $2 <= 1000 ? 0 : $2 <= 1800 ? 1 : 2; if ($NF != want) exit 1; n++ }
       END { exit n != 126 }' "$work/a/probes.tsv"; then ok
  else bad "the stage column is not 0/1/2 at steps up to 1000/1800/2500 (126 rows)"; fi
  # negative control: the stage's set matters (without the hold's gravity change it differs)
  must "separate 3 without hold" -- "$demrun" -q -j 1 "$work/plain.yaml" -o "$work/c" \
    --set time.steps=1800
  must "..." -- "$demrun" -q -j 1 "$work/plain.yaml" -o "$work/c" \
    --restart "$work/c/checkpoint.ldc" --set time.steps=2500
  if diff -q "$work/a/probes.tsv" "$work/c/probes.tsv" > /dev/null; then
    bad "control: the stages' sets changed nothing"
  else ok; fi
  for s in settle press hold; do
    if [ -s "$work/a/stage-$s.ldc" ]; then ok; else bad "no stage-$s.ldc"; fi
  done
  ;;
restart)
  must "staged run" -- "$demrun" -q -j 1 "$staged" -o "$work/a"
  for at in 700 1000 1400 2100; do
    must "stop at $at" -- "$demrun" -q -j 1 "$staged" -o "$work/r$at" --stop-at "$at"
    must "restart at $at" -- "$demrun" -q -j 1 "$staged" -o "$work/r$at" \
      --restart "$work/r$at/checkpoint.ldc"
    same_run "restart at $at" "$work/a" "$work/r$at"
  done
  # servo_settled's window mean survives a restart in the middle of a window
  servo=(--set 'stages.1.until={servo_settled: {walls: [lid], tolerance: 0.05, window: 200}, max_steps: 20000}'
         --set stages.1.check_every=200)
  must "servo run" -- "$demrun" -q -j 1 "$staged" -o "$work/v" "${servo[@]}"
  must "servo stop" -- "$demrun" -q -j 1 "$staged" -o "$work/w" "${servo[@]}" --stop-at 3333
  must "servo restart" -- "$demrun" -q -j 1 "$staged" -o "$work/w" "${servo[@]}" \
    --restart "$work/w/checkpoint.ldc"
  same_run "servo_settled restart mid-window" "$work/v" "$work/w"
  # a stage's end restarts into the next stage: the last two stages from stage-settle.ldc
  mkdir -p "$work/s"
  cp "$work/a/stage-settle.ldc" "$work/s/"
  must "restart from stage-settle.ldc" -- "$demrun" -q -j 1 "$staged" -o "$work/s" \
    --restart "$work/s/stage-settle.ldc"
  if cmp -s "$work/a/stage-hold.ldc" "$work/s/stage-hold.ldc"; then ok
  else bad "stage-hold.ldc after a restart from stage-settle.ldc differs"; fi
  # the last stage's end: nothing left to do
  if "$demrun" -j 1 "$staged" -o "$work/s" --restart "$work/a/checkpoint.ldc" 2>&1 |
     grep -q "end of the last stage: nothing to do"; then ok
  else bad "a restart after the last stage should do nothing"; fi
  ;;
signal)
  # SIGTERM in the second stage (after frame 12, step 1200), then --restart: the folder ends
  # as the uninterrupted run's (the hold stage lengthened so that the signal comes in time)
  long=(--set stages.2.until.steps=60000)
  must "uninterrupted" -- "$demrun" -q -j 1 "$staged" -o "$work/a" "${long[@]}"
  "$demrun" -q -j 1 "$staged" -o "$work/t" "${long[@]}" 2> "$work/t.err" &
  pid=$!
  while [ ! -e "$work/t/frames/spheres_000012.vtu" ] && kill -0 "$pid" 2> /dev/null; do
    sleep 0.02
  done
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" = 143 ] && grep -q "stopped by SIGTERM at step" "$work/t.err"; then ok
  else bad "SIGTERM: exit $rc, $(cat "$work/t.err")"; fi
  must "restart after SIGTERM" -- "$demrun" -q -j 1 "$staged" -o "$work/t" "${long[@]}" \
    --restart "$work/t/checkpoint.ldc"
  same_run "SIGTERM and restart" "$work/a" "$work/t"
  ;;
criteria)
  scene=$scenes/stages_drop.yaml
  "$demrun" -j 1 "$scene" -o "$work/d" > "$work/log" 2>&1 || bad "drop run: $(cat "$work/log")"
  end() { sed -n "s/^demrun: stage $1 ended at step \([0-9]*\) .*/\1/p" "$work/log"; }
  # steps: 100; time: 0.002 s at dt 1e-5 is 200 steps, so the end at 300
  if [ "$(end fall)" = 100 ] && [ "$(end bounce)" = 300 ]; then ok
  else bad "fall/bounce ended at $(end fall)/$(end bounce), expected 100/300"; fi
  settle=$(end settle)
  press=$(end press)
  # kinetic_ratio = kinetic / (stored_normal + stored_tangential) < 1e-3 and unbalanced
  # < 1e-2 at the end, and not both at any earlier check (every 50 steps from 300). The hand
  # unbalanced of the one sphere is |m g + f_contact| / |f_contact|, f_contact = −floor.f,
  # m = 2500 · 4/3 π (1e-3)³; demrun's uses the net force after local damping (α = 0.3), which
  # scales each component by 1 ± α, so the hand value must be below 1e-2 / (1 − α) to end and
  # above 1e-2 / (1 + α) at a check that did not end for unbalanced alone.
  awk -v end="$settle" '
    /^#/ { next }
    !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $2 >= 350 && $2 <= end {
      m = 2500 * 4 / 3 * 3.141592653589793 * 1e-9
      fx = $(c["floor.fx"]); fy = $(c["floor.fy"]); fz = $(c["floor.fz"])
      f = sqrt(fx * fx + fy * fy + fz * fz)
      nz = -m * 9.81 - fz
      u = f > 0 ? sqrt(fx * fx + fy * fy + nz * nz) / f : 1e300
      s = $(c["stored_normal"]) + $(c["stored_tangential"])
      k = s > 0 ? $(c["kinetic"]) / s : 1e300
      if ($2 == end) { if (!(k < 1e-3 && u < 1e-2 / 0.7)) { print "end " $2 ": " k " " u; bad = 1 } }
      else if (k < 1e-3 && u < 1e-2 / 1.3) { print "should have ended at " $2 ": " k " " u; bad = 1 }
      n++
    }
    END { exit bad || n < 3 }' "$work/d/probes.tsv" > "$work/awk.log" &&
    ok || bad "settle ended at $settle: $(cat "$work/awk.log")"
  # wall_force: |lid.fz| >= 0.01 at the end, below at the check before
  awk -v end="$press" -v start="$settle" '
    /^#/ { next }
    !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $2 > start && $2 <= end {
      f = $(c["lid.fz"]); f = f < 0 ? -f : f
      if ($2 == end ? f < 0.01 : f >= 0.01) { print $2 ": " f; bad = 1 }
    }
    END { exit bad }' "$work/d/probes.tsv" > "$work/awk.log" &&
    ok || bad "press ended at $press: $(cat "$work/awk.log")"
  # a stage that turns the lid into a servo: the table keeps one header (every wall has the
  # servo columns), target 0 before the stage and the servo's force in it
  "$demrun" -j 1 "$scene" -o "$work/s" \
    --set 'stages.3.set={walls.1.servo: {force: 0.01, max_velocity: 0.01}}' > "$work/log" 2>&1 ||
    bad "servo stage run: $(cat "$work/log")"
  awk -v start="$settle" '
    /^#/ { next }
    !h { n = NF; for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    NF != n { print "row of step " $2 " has " NF " columns, the header " n; bad = 1 }
    $(c["stage"]) < 3 && $(c["lid.target"]) != 0 { print "target before the stage at " $2; bad = 1 }
    $(c["stage"]) == 3 { s++; if ($(c["lid.target"]) != 0.01) { print "target " $(c["lid.target"]) " at " $2; bad = 1 } }
    END { exit bad || s < 1 }' "$work/s/probes.tsv" > "$work/awk.log" &&
    ok || bad "servo stage columns: $(cat "$work/awk.log")"
  # a cap ends a stage with a warning naming what did not hold
  "$demrun" -j 1 "$scene" -o "$work/e" --set 'stages.2.until.max_steps=500' > "$work/log" 2>&1
  if grep -q "stage settle reached its cap at step 800 .*before: .*" "$work/log"; then ok
  else bad "cap: $(grep settle "$work/log")"; fi
  # the criteria's steps do not depend on the thread count
  "$demrun" -j 2 "$scene" -o "$work/d2" > /dev/null 2>&1
  if diff -r -q "$work/d" "$work/d2" > /dev/null; then ok; else bad "-j 2 differs"; fi
  ;;
errors)
  base=$scenes/stages_drop.yaml
  # bad KEY_PATTERN SED_EXPR: the edited scene fails at the edited line with the pattern
  fails() {
    local name=$1 pattern=$2 expr=$3
    sed "$expr" "$base" > "$work/bad.yaml"
    local line
    line=$(grep -n "BAD" "$work/bad.yaml" | head -1 | cut -d: -f1)
    sed -i 's/ *# BAD//' "$work/bad.yaml"
    QUIET_STDOUT=0 expect_error "$name" 2 "^demrun: error: $work/bad.yaml:$line: $pattern" -- \
      "$demrun" -q "$work/bad.yaml" -o "$work/none"
    if [ -e "$work/none" ]; then bad "$name: wrote $work/none"; rm -rf "$work/none"; fi
  }
  fails "no such wall in the last stage's set" "walls.7.velocity: there is no entry 7" \
    's/    set: {walls.1.velocity: \[0, 0, -0.01\]}/    set: {walls.7.velocity: [0, 0, -0.01]}  # BAD/'
  fails "bad value in a set" "damping.local: " \
    's/  - name: settle/  - name: settle\n    set: {damping.local: -2}  # BAD/'
  fails "frozen key" "stages.2.set.materials.m.E: a stage cannot change this" \
    's/  - name: settle/  - name: settle\n    set: {materials.m.E: 2e8}  # BAD/'
  fails "restart could not change it" "stages.2.set: changes what a restart cannot change" \
    's/  - name: settle/  - name: settle\n    set: {contacts.0.friction: 0.1}  # BAD/'
  # Kuhn's beta may change in a stage (it only decides which later legs merge): accepted.
  sed 's/  - name: settle/  - name: settle\n    set: {contacts.0.beta: 0.1}/' "$base" > "$work/beta.yaml"
  if "$demrun" -q "$work/beta.yaml" -o "$work/beta" > /dev/null; then ok; else bad "a stage changing beta was refused"; fi
  fails "unknown criterion" "stages.1.until.tim: unknown key" 's/until: {time: 0.002}/until: {tim: 0.002}  # BAD/'
  fails "wall_stress without area" \
    "stages.3.until.wall_stress: expected \\{wall: NAME, reached: STRESS, area: AREA\\}" \
    's/until: {wall_force: {wall: lid, reached: 0.01}/until: {wall_stress: {wall: lid, reached: 0.01}  # BAD/'
  fails "unknown wall in wall_force" "stages.3.until.wall_force: no wall is named 'top'" \
    's/wall: lid, reached/wall: top, reached/; s/until: {wall_force/until: {wall_force  # BAD/'
  fails "duplicate name" "stages.1.name: stage 0 is also named 'fall'" \
    's/  - name: bounce/  - name: fall  # BAD/'
  fails "no until" "stages.0: missing 'until'" \
    's/  - name: fall/  - name: fall  # BAD/; s/    until: {steps: 100}/    check_every: 10/'
  ;;
*)
  echo "unknown part $part"
  exit 2
  ;;
esac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
