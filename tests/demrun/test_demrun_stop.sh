#!/usr/bin/env bash
# How a demrun run ends when it does not run to its end, one part per meson test:
#   signals    SIGTERM, SIGINT sent twice, and SIGHUP, after a couple of frames of a run with
#              checkpoint.every 0: exit 143 / 130 / 129 and one stderr line naming the checkpoint;
#              the .pvd series list exactly the frames on disk, the probes table ends on a
#              whole row, no temporary file is left; --restart from that checkpoint ends with
#              bitwise the outputs of an uninterrupted run; SIGTERM while the scene is read
#              stops the run before it writes anything
#   leftovers  "*.tmp.XXXXXX" files of demrun's own outputs (as a SIGKILL leaves them) are
#              removed by the next run in the folder, fresh or restarted; look-alikes that are
#              not a demrun output's temporary file are left untouched; a real SIGKILL's
#              leftovers are gone after the next run
#   refused-restart  a --restart that is refused (corrupt CRC, wrong version, another scene,
#              a probes table of other walls or with a broken row) exits 2 with one
#              "demrun: error: FILE:" line and changes nothing in the output folder: names,
#              types, sizes, modes, mtimes and contents, the folder's own mtime included
# usage: test_demrun_stop.sh BUILD_DIR SOURCE_DIR PART
set -u
build=$1
src=$2
part=$3
demrun=$build/runtime/demrun/demrun
box=$src/tests/demrun/scenes/box30.yaml
# shellcheck source=../cli/harness.sh
. "$src/tests/cli/harness.sh"
export OMP_WAIT_POLICY=passive # see test_demrun.sh

# 24000 steps of the drum (about 0.7 s unloaded): long enough to be stopped after its second
# frame, with frames every 1000 steps and probes every 250 (not a multiple of the stop step).
long=(--set time.steps=24000 --set output.frames.every=1000 --set output.probes.every=250)
E='^demrun: error: '

# snapshot DIR: every entry's name, type, size, mode and mtime (ns), then every file's hash.
snapshot() {
  (cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
     find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum)
}

# unchanged NAME DIR SNAPSHOT_FILE
unchanged() {
  if snapshot "$2" | diff "$3" - > "$work/snap.diff"; then ok
  else bad "$1: the output folder changed: $(head -6 "$work/snap.diff")"; fi
}

# series_match NAME DIR: each .pvd lists exactly its part's frame files on disk.
series_match() {
  local name=$1 dir=$2 pvd partname
  for pvd in "$dir"/*.pvd; do
    partname=$(basename "$pvd" .pvd)
    diff <(grep -o 'file="[^"]*"' "$pvd" | sed 's/^file="//; s/"$//' | LC_ALL=C sort) \
         <(cd "$dir" && find frames -name "${partname}_*" | LC_ALL=C sort) > "$work/series.diff" ||
      { bad "$name: $pvd does not list exactly the frames on disk: $(head -4 "$work/series.diff")"
        return; }
  done
  ok
}

# no_temporaries NAME DIR
no_temporaries() {
  local left
  left=$(find "$2" -name '*.tmp.*')
  if [ -z "$left" ]; then ok; else bad "$1: temporary files left: $left"; fi
}

# wait_for_frame FILE PID: poll until the run wrote FILE (or ended).
wait_for_frame() {
  while [ ! -e "$1" ] && kill -0 "$2" 2> /dev/null; do sleep 0.02; done
}

# stop_leg NAME SIGNAL COUNT STATUS: a run into $work/NAME sent SIGNAL COUNT times once its
# second frame exists; checks its exit status, its one line and what it left, then continues
# it with --restart and compares with the uninterrupted run in $work/straight.
stop_leg() {
  local name=$1 sig=$2 count=$3 status=$4 dir=$work/$1 pid rc k line
  rm -rf "$dir"
  "$demrun" -q -o "$dir" "${long[@]}" "$box" 2> "$work/$name.err" &
  pid=$!
  wait_for_frame "$dir/frames/spheres_000002.vtu" "$pid"
  for ((k = 0; k < count; k++)); do kill -"$sig" "$pid"; done
  wait "$pid"
  rc=$?
  line="^demrun: stopped by SIG$sig at step ([0-9]+) \(t = [0-9.e+-]+\); continue with --restart $dir/checkpoint\.ldc\$"
  if [ "$rc" -ne "$status" ]; then bad "$name: exit $rc, expected $status"; return; fi
  if [ "$(wc -l < "$work/$name.err")" -ne 1 ] || ! [[ $(cat "$work/$name.err") =~ $line ]]; then
    bad "$name: stderr is not the one line expected: $(cat "$work/$name.err")"
    return
  fi
  local step=${BASH_REMATCH[1]}
  # stopped after its second frame and well before the end
  if [ "$step" -ge 2000 ] && [ "$step" -lt 24000 ]; then ok
  else bad "$name: stopped at step $step, expected 2000 <= step < 24000"; fi
  if [ -s "$dir/checkpoint.ldc" ]; then ok; else bad "$name: no checkpoint"; fi
  no_temporaries "$name" "$dir"
  series_match "$name" "$dir"
  # the probes table: whole rows only, every 250 steps up to the stop
  local rows last
  rows=$(grep -c '^[0-9]' "$dir/probes.tsv")
  last=$(tail -c 1 "$dir/probes.tsv" | od -An -c | tr -d ' ')
  if [ "$last" = '\n' ] && [ "$rows" -eq $((step / 250 + 1)) ]; then ok
  else bad "$name: probes.tsv has $rows rows (expected $((step / 250 + 1))), last byte '$last'"; fi
  # continue: it says where it resumes, and the folder ends as the uninterrupted run's
  if ! "$demrun" -o "$dir" --restart "$dir/checkpoint.ldc" "${long[@]}" "$box" \
       2> "$work/$name.resume.err"; then
    bad "$name: --restart failed: $(cat "$work/$name.resume.err")"
    return
  fi
  if grep -q "^demrun: restarting from .* at step $step " "$work/$name.resume.err"; then ok
  else bad "$name: the restart does not say step $step: $(cat "$work/$name.resume.err")"; fi
  if diff -r -q "$work/straight" "$dir" > "$work/diff.txt"; then ok
  else bad "$name: resumed outputs differ from the uninterrupted run: $(head -4 "$work/diff.txt")"; fi
}

case $part in
signals)
  must "uninterrupted run" -- "$demrun" -q -o "$work/straight" "${long[@]}" "$box"
  stop_leg sigterm TERM 1 143
  # Job control: a background job of a non-interactive shell would start with SIGINT
  # ignored (and demrun keeps an ignored SIGINT ignored).
  set -m
  stop_leg sigint INT 2 130
  set +m
  # the terminal or ssh session that started the run has gone
  stop_leg sighup HUP 1 129

  # SIGTERM while the scene is still being read (from a FIFO, once /proc shows the handler
  # installed): the run stops before opening any output and says that nothing was written.
  mkfifo "$work/scene.yaml"
  "$demrun" -q -o "$work/early" "$work/scene.yaml" 2> "$work/early.err" &
  pid=$!
  for ((k = 0; k < 500; k++)); do
    caught=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2> /dev/null)
    [ -n "$caught" ] && (((0x$caught >> 14) & 1)) && break # bit 14: signal 15
    sleep 0.01
  done
  kill -TERM "$pid"
  # (bounded: a demrun that died of the signal never opens the FIFO to read)
  # shellcheck disable=SC2016 # expanded by the inner sh
  timeout 10 sh -c 'cat "$1" > "$2"' sh "$box" "$work/scene.yaml"
  wait "$pid"
  rc=$?
  if [ "$rc" = 143 ] && [ "$(wc -l < "$work/early.err")" = 1 ] &&
     grep -q '^demrun: stopped by SIGTERM before the run started; nothing was written$' \
       "$work/early.err" && [ ! -e "$work/early" ]; then ok
  else bad "SIGTERM while reading the scene: exit $rc, $(cat "$work/early.err")"; fi
  ;;

leftovers)
  dir=$work/run
  must "first run" -- "$demrun" -q -o "$dir" --set time.steps=400 --stop-at 200 "$box"
  # what a SIGKILL can leave: temporary files of demrun's outputs (parts this scene lacks too)
  owned=(frames/spheres_000003.vtu.tmp.AbC123 frames/contacts_000001.vtu.tmp.zZ9yY8
         frames/surfaces_1234567.vtu.tmp.q0q0q0 checkpoint.ldc.tmp.Xy12Z9
         probes.tsv.tmp.q1W2e3 spheres.pvd.tmp.a1b2c3 surfaces.pvd.tmp.a1b2c3
         packing.tsv.tmp.000000)
  # look-alikes that are not: another name, another folder, 5 or 7 letters, a non-letter,
  # fewer than six digits, a folder, a symbolic link
  others=(notes.txt other.tmp.AbC123 xcheckpoint.ldc.tmp.AbC123 checkpoint.ldc.tmp.AbC12
          checkpoint.ldc.tmp.AbC1234 checkpoint.ldc.tmp.AbC-12 spheres_000003.vtu.tmp.AbC123
          frames/mine_000003.vtu.tmp.AbC123 frames/spheres_003.vtu.tmp.AbC123
          frames/checkpoint.ldc.tmp.AbC123 frames/spheres_000003.vtu.tmp)
  plant() {
    local f
    for f in "${owned[@]}"; do echo "leftover $f" > "$dir/$f"; done
  }
  plant_others() {
    local f
    for f in "${others[@]}"; do echo "not a leftover $f" > "$dir/$f"; done
    mkdir -p "$dir/probes.tsv.tmp.Dir123"
    ln -sfn notes.txt "$dir/walls.pvd.tmp.Lnk123"
    touch -d '2001-02-03 04:05:06' "$dir/notes.txt" "$dir/frames/mine_000003.vtu.tmp.AbC123"
  }
  # the look-alikes' type, size, mtime (ns) and contents
  others_state() {
    (cd "$dir" && for f in "${others[@]}" probes.tsv.tmp.Dir123 walls.pvd.tmp.Lnk123; do
       stat -c '%n %F %s %.9Y' "$f"; md5sum < "$f"; done) 2>&1
  }
  # checked NAME: the owned leftovers are gone, every other file as it was
  checked() {
    local f gone=1
    for f in "${owned[@]}"; do [ -e "$dir/$f" ] && { bad "$1: $f was not removed"; gone=0; }; done
    [ "$gone" = 1 ] && ok
    others_state > "$work/others.after"
    if diff "$work/others.before" "$work/others.after" > "$work/others.diff"; then ok
    else bad "$1: files that are not leftovers changed: $(head -4 "$work/others.diff")"; fi
  }
  plant
  plant_others
  others_state > "$work/others.before"
  must "restart over leftovers" -- "$demrun" -q -o "$dir" --restart "$dir/checkpoint.ldc" \
    --set time.steps=400 "$box"
  checked "restart"
  plant
  must "fresh run over leftovers" -- "$demrun" -q -o "$dir" --set time.steps=400 "$box"
  checked "fresh run"

  # a real SIGKILL in the middle of a run (it may or may not catch a write in progress)
  rm -rf "$work/killed"
  "$demrun" -q -o "$work/killed" "${long[@]}" "$box" &
  pid=$!
  wait_for_frame "$work/killed/frames/spheres_000002.vtu" "$pid"
  kill -KILL "$pid"
  wait "$pid" 2> /dev/null
  must "run after SIGKILL" -- "$demrun" -q -o "$work/killed" --set time.steps=400 "$box"
  no_temporaries "after SIGKILL" "$work/killed"
  ;;

refused-restart)
  dir=$work/run
  set400=(--set time.steps=400)
  "$demrun" -q -o "$dir" "${set400[@]}" --stop-at 200 "$box" &&
    cp "$dir/checkpoint.ldc" "$work/c200.ldc" &&
    "$demrun" -q -o "$dir" --restart "$dir/checkpoint.ldc" "${set400[@]}" "$box" ||
    { echo "setup runs failed"; exit 1; }
  # a leftover of a killed run stays too: a refused run removes nothing either
  echo leftover > "$dir/frames/spheres_000009.vtu.tmp.AbC123"
  python3 - "$work" <<'EOF' || { echo "cannot make the bad checkpoints"; exit 1; }
import struct, sys, zlib
work = sys.argv[1]
good = open(work + "/c200.ldc", "rb").read()
crc = bytearray(good)
crc[200] ^= 0xFF                       # inside CKPT's payload: its CRC no longer matches
open(work + "/crc.ldc", "wb").write(crc)
v = bytearray(good)                    # version 99 with a correct CRC
v[32:36] = struct.pack("<I", 99)
v[696:700] = struct.pack("<I", zlib.crc32(bytes(v[16:696])))
open(work + "/v99.ldc", "wb").write(v)
EOF
  snapshot "$dir" > "$work/before"
  # refused NAME PATTERN -- demrun args...: exit 2, one error line, the folder unchanged
  refused() {
    local name=$1 pattern=$2
    shift 3
    sleep 0.01 # a rewrite would get a later mtime
    QUIET_STDOUT=1 expect_error "$name" 2 "$pattern" -- "$demrun" -q -o "$dir" "$@"
    unchanged "$name" "$dir" "$work/before"
  }
  refused "corrupt CRC" "${E}.*crc\.ldc: byte 16: section 'CKPT': CRC mismatch" \
    -- --restart "$work/crc.ldc" "${set400[@]}" "$box"
  refused "wrong version" "${E}.*v99\.ldc: byte [0-9]+: .*checkpoint version 99" \
    -- --restart "$work/v99.ldc" "${set400[@]}" "$box"
  refused "another scene" "${E}.*c200\.ldc: byte [0-9]+: .*different scene" \
    -- --restart "$work/c200.ldc" "${set400[@]}" --set materials.soft.friction=0.3 "$box"
  # checkpoint and scene agree, but the probes table the restart would continue does not
  refused "probes of other walls" "${E}.*run/probes\.tsv:2: the columns differ" \
    -- --restart "$work/c200.ldc" "${set400[@]}" --set walls.0.name=ground "$box"
  cp "$dir/probes.tsv" "$work/probes.good"
  awk -F'\t' 'BEGIN { OFS = "\t" } /^[0-9]/ && ++n == 2 { $2 = "x" } { print }' \
    "$work/probes.good" > "$dir/probes.tsv"
  snapshot "$dir" > "$work/before"
  refused "probes with a broken row" "${E}.*run/probes\.tsv:4: column 2 \(step\)" \
    -- --restart "$work/c200.ldc" "${set400[@]}" "$box"
  ;;

*) echo "unknown part '$part'"; exit 2 ;;
esac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
