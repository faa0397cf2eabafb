#!/usr/bin/env bash
# How a demrun run ends when it does not run to its end, one part per meson test:
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

case $part in
refused-restart)
  dir=$work/run
  set400=(--set time.steps=400)
  "$demrun" -q -o "$dir" "${set400[@]}" --stop-at 200 "$box" &&
    cp "$dir/checkpoint.ldc" "$work/c200.ldc" &&
    "$demrun" -q -o "$dir" --restart "$dir/checkpoint.ldc" "${set400[@]}" "$box" ||
    { echo "setup runs failed"; exit 1; }
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
