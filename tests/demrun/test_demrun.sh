#!/usr/bin/env bash
# demrun end to end, one part per meson test:
#   restart      a run stopped (--stop-at) and continued (--restart) leaves bitwise the same
#                checkpoint, probes table, VTU frames and .pvd series as an uninterrupted run
#                (hertz-jager, hertz-mindlin, level-set grains; several stop points, a chain)
#   threads      -j 1, -j 2 and the default thread count give bitwise the same outputs
#   errors       bad scenes, options and checkpoints: exit 2, one "demrun: error:" line naming
#                FILE:LINE and the key, and no output folder (or an existing one unchanged)
#   ls-sphere    lsgen spheres against analytic spheres (check_ls_sphere.py)
#   dzhanibekov  an lsgen ellipsoid in free rotation (check_dzhanibekov.py)
#   deformable   deformable beams (lsgen | modefit analytic bending) on a floor and on each
#                other: bitwise restart and thread independence with modal state (remapped
#                and precomputed level sets), the modal probe columns, one-line FILE:LINE
#                errors for bad modes keys (exit 2)
#   deformable-frames  free deformable beams: surfaces, displacement arrays and probes
#                against the bundle (check_deformable_frames.py)
#   servo        issue 34's servo lid settles on its target without chatter (the probes' mean,
#                target and flips columns); a restart mid-interval; a ringing lid is reported
#   packing      output.packing: the spheres wrapped into the cell in input order, read back
#                by a scene's grains file entry and written again bit for bit; restarts and
#                threads; open space; level-set grains refused
# usage: test_demrun.sh BUILD_DIR SOURCE_DIR PART
set -u
build=$1
src=$2
part=$3
demrun=$build/runtime/demrun/demrun
lsgen=$build/tools/lsgen/lsgen
py=/usr/bin/python3
here=$src/tests/demrun
scenes=$here/scenes
# shellcheck source=../cli/harness.sh
. "$src/tests/cli/harness.sh"

# Two threads on a machine busy with other jobs: GNU OpenMP's spinning barriers make a step
# many times slower; sleeping threads keep the suite's time. Results do not depend on it.
export OMP_WAIT_POLICY=passive

# checker NAME -- command...: a python checker's run; its report is always shown (the measured
# errors go into the test log).
checker() {
  local name=$1
  shift 2
  if "$@"; then ok; else bad "$name"; fi
}

# same_output NAME DIR_A DIR_B: the two output folders hold the same files, byte for byte.
same_output() {
  local name=$1 a=$2 b=$3
  if [ ! -s "$a/checkpoint.ldc" ] || [ ! -s "$b/checkpoint.ldc" ]; then
    bad "$name: a run left no checkpoint"
  elif diff -r -q "$a" "$b" > "$work/diff.txt" 2>&1; then ok
  else bad "$name: outputs differ: $(head -5 "$work/diff.txt")"; fi
}

# differ NAME FILE_A FILE_B: negative control, the files must differ.
differ() {
  if cmp -s "$2" "$3"; then bad "$1: $2 and $3 are identical, expected a difference"; else ok; fi
}

# probe_at DIR STEP COLUMN: the value of COLUMN in the last probes row at or before STEP.
probe_at() {
  awk -v step="$2" -v col="$3" '
    /^#/ { next }
    !header { for (i = 1; i <= NF; i++) idx[$i] = i; header = 1; next }
    $2 + 0 <= step + 0 { v = $(idx[col]) }
    END { print v + 0 }' "$1/probes.tsv"
}

# busy NAME DIR STEP MIN_CONTACTS MIN_HISTORY: the run had at least MIN_CONTACTS contacts in
# touch, with a mean Jager history length of at least MIN_HISTORY, at STEP (so a restart there
# carries real contact state).
busy() {
  local c h
  c=$(probe_at "$2" "$3" contacts)
  h=$(probe_at "$2" "$3" mean_history)
  if awk -v c="$c" -v h="$h" -v mc="$4" -v mh="$5" 'BEGIN { exit !(c >= mc && h >= mh) }'; then
    ok
  else bad "$1: at step $3: $c contacts, mean history $h; expected >= $4 and >= $5"; fi
}

# leg NAME DIR FROM TO -- demrun args...: one leg of a split run into DIR, from step FROM (0:
# a fresh start, else --restart DIR/checkpoint.ldc) to step TO (end: the scene's end). Its
# info lines must say it resumed at FROM and ran TO − FROM steps, so that a --restart that
# silently started over could not pass.
leg() {
  local name=$1 dir=$2 from=$3 to=$4
  shift 5
  local args=(-o "$dir")
  [ "$from" = 0 ] || args+=(--restart "$dir/checkpoint.ldc")
  [ "$to" = end ] || args+=(--stop-at "$to")
  if ! "$demrun" "${args[@]}" "$@" 2> "$work/run.err"; then
    bad "$name: demrun ${args[*]} failed: $(cat "$work/run.err")"
    return 1
  fi
  if [ "$from" != 0 ] &&
     ! grep -q "^demrun: restarting from .* at step $from " "$work/run.err"; then
    bad "$name: the leg from $from does not say it restarted there: $(cat "$work/run.err")"
    return 1
  fi
  if [ "$to" != end ] && ! grep -q "^demrun: $((to - from)) steps in " "$work/run.err"; then
    bad "$name: the leg $from..$to did not run $((to - from)) steps: $(cat "$work/run.err")"
    return 1
  fi
}

# restart NAME STRAIGHT_DIR STOPS -- demrun args...: run with --stop-at at each step of the
# comma-separated STOPS in turn, each continuing from the previous checkpoint, then to the
# end; the folder must equal STRAIGHT_DIR (the same arguments, run uninterrupted).
restart() {
  local name=$1 straight=$2 stops=$3
  shift 4
  local dir=$work/$name.split from=0 s
  rm -rf "$dir"
  for s in ${stops//,/ } end; do
    leg "$name" "$dir" "$from" "$s" -- "$@" || return
    from=$s
  done
  same_output "$name" "$straight" "$dir"
}

# straight NAME -- demrun args...: an uninterrupted run into $work/NAME.
straight() {
  local name=$1
  shift 2
  rm -rf "${work:?}/$name"
  must "$name" -- "$demrun" -q -o "$work/$name" "$@"
}

ellipsoid_bundle() {
  # semi-axes 1.5, 1, 0.7 mm: distinct moments; 1618 nodes
  "$lsgen" ellipsoid --axes 0.0015,0.001,0.0007 --h 0.0001 -q -o "$work/ell.ldg" ||
    { echo "lsgen ellipsoid failed"; exit 1; }
}

mindlin="contacts.0={between: [soft, soft], model: hertz-mindlin}"

beam_bundle() {
  # a 40x4x4 cuboid with the analytic bending mode (Henzel eq. 51), pole deflection 1
  "$lsgen" cuboid --size 40,4,4 --h 0.5 -q |
    "$build/tools/modefit/modefit" --analytic beam-bending --length 40 --axis x --E 1e4 \
      --nu 0.3 --normalize point:0,0,0:-z --depth 1 -q -o "$work/beam.ldg" ||
    { echo "lsgen | modefit failed"; exit 1; }
}

case $part in
restart)
  # 1. 30 spheres, hertz-jager: 4000 steps, stopped at the half, at an odd step between probe
  #    rows and frames, at the first and the last step, and along a chain of three legs.
  box=$scenes/box30.yaml
  straight jager -- "$box"
  busy "jager at the half" "$work/jager" 2000 6 2
  restart jager-2000 "$work/jager" 2000 -- "$box"
  restart jager-2013 "$work/jager" 2013 -- "$box"
  restart jager-1 "$work/jager" 1 -- "$box"
  restart jager-3999 "$work/jager" 3999 -- "$box"
  restart jager-chain "$work/jager" 1000,3000 -- "$box"
  # a run killed after its checkpoint at 2000 had written frames and probes up to 2300: the
  # restart from 2000 drops the later probe rows and overwrites the later frames
  dir=$work/crash
  rm -rf "$dir"
  if leg crash "$dir" 0 2000 -- "$box" && cp "$dir/checkpoint.ldc" "$work/ck2000.ldc" &&
     leg crash "$dir" 2000 2300 -- "$box" && cp "$work/ck2000.ldc" "$dir/checkpoint.ldc"; then
    [ "$(probe_at "$dir" 99999 step)" = 2300 ] && ok || bad "crash: probes do not reach 2300"
    [ -s "$dir/frames/spheres_000023.vtu" ] && ok || bad "crash: no frame of step 2300"
    leg crash "$dir" 2000 end -- "$box" && same_output crash "$work/jager" "$dir"
  else
    bad "crash: could not set up the killed run"
  fi
  # negative control: a continuation under another damping ends elsewhere, and the
  # comparison sees it
  rm -rf "$work/damped"
  "$demrun" -q -o "$work/damped" --stop-at 2000 "$box" &&
    "$demrun" -q -o "$work/damped" --restart "$work/damped/checkpoint.ldc" \
      --set damping.local=0.3 "$box" || bad "damped continuation failed"
  differ "changed continuation" "$work/jager/checkpoint.ldc" "$work/damped/checkpoint.ldc"

  # 2. the same with hertz-mindlin (no Jager stacks, the incremental spring instead)
  straight mindlin -- "$box" --set "$mindlin"
  busy "mindlin at the half" "$work/mindlin" 2000 6 0
  restart mindlin-2000 "$work/mindlin" 2000 -- "$box" --set "$mindlin"
  differ "mindlin is not jager" "$work/jager/probes.tsv" "$work/mindlin/probes.tsv"

  # 2b. hertz-jager with normal contact damping (its work kept per contact in the checkpoint)
  straight contact-damped -- "$box" --set contacts.0.damping=0.3
  restart contact-damped-2013 "$work/contact-damped" 2013 -- "$box" --set contacts.0.damping=0.3

  # 2c. a periodic cell under mixed control (servo on x, strain rate on z), grains wrapping
  #     and contacts spanning the faces: the cell's state, the images and the stacks restart
  periodic=$scenes/periodic64.yaml
  straight periodic -- "$periodic"
  busy "periodic at 2013" "$work/periodic" 2013 60 3
  restart periodic-2013 "$work/periodic" 2013 -- "$periodic"
  restart periodic-chain "$work/periodic" 1,1500,3999 -- "$periodic"

  # 2d. the same cell cycled (docs/scene.md, cyclic strain): x holding the mean stress, z on
  #     a triangle of two amplitudes, two cycles of 1000 steps each; stopped in the middle of
  #     a cycle and along a chain; the strain at the turns; and the drive switched on by a
  #     restart from the compression (it starts there), then stopped mid-cycle again
  cyc=(--set "cell.x={mean_stress: 1e5}" --set "cell.z={cyclic: {amplitude: [1e-4, 1e-3],
       period: 2e-5, cycles: 2}}" "$periodic")
  straight cyclic -- "${cyc[@]}"
  restart cyclic-1013 "$work/cyclic" 1013 -- "${cyc[@]}"
  restart cyclic-chain "$work/cyclic" 1,2500,3999 -- "${cyc[@]}"
  for turn in 250:1e-4 750:-1e-4 2250:1e-3 3750:-1e-3 4000:0; do
    e0=$(probe_at "$work/cyclic" 0 eps_zz)
    e=$(probe_at "$work/cyclic" "${turn%%:*}" eps_zz)
    if awk -v e="$e" -v e0="$e0" -v a="${turn##*:}" 'BEGIN { d = e - e0 - a
         exit !(d < 1e-12 && d > -1e-12) }'; then ok
    else bad "cyclic: eps_zz at step ${turn%%:*} is $e, expected $e0 + ${turn##*:}"; fi
  done
  rm -rf "$work/switch" "$work/switch.split"
  if leg switch "$work/switch" 0 1500 -- "$periodic" &&
     cp -r "$work/switch" "$work/switch.split" &&
     leg switch "$work/switch" 1500 end -- "${cyc[@]}" &&
     leg switch "$work/switch.split" 1500 2613 -- "${cyc[@]}" &&
     leg switch "$work/switch.split" 2613 end -- "${cyc[@]}"; then
    same_output switch "$work/switch" "$work/switch.split"
    e0=$(probe_at "$work/switch" 1500 eps_zz)
    e=$(probe_at "$work/switch" 1750 eps_zz)
    awk -v e="$e" -v e0="$e0" 'BEGIN { d = e - e0 - 1e-4; exit !(d < 1e-12 && d > -1e-12) }' &&
      ok || bad "switch: eps_zz at 1750 is $e, expected $e0 + 1e-4 (the drive starts at 1500)"
  fi

  # 3. level-set grains (ellipsoids) among spheres, stopped at the half and with the lid in
  #    contact
  ellipsoid_bundle
  ls=(--set "shapes.grain.bundle=$work/ell.ldg" "$scenes/box_ls.yaml")
  straight lset -- "${ls[@]}"
  busy "level set at the half" "$work/lset" 1500 8 2
  restart lset-1500 "$work/lset" 1500 -- "${ls[@]}"
  restart lset-2503 "$work/lset" 2503 -- "${ls[@]}"
  [ -s "$work/lset/surfaces.pvd" ] && ok || bad "level-set run wrote no surfaces series"
  ;;

threads)
  # Explicit -j forces the count for every loop; without it the contact loop goes parallel
  # beyond 256 candidates (threads.yaml: ~750 lattice neighbour pairs within the skin at the
  # start) and the body loops beyond 2048 grains (the 14x14x11 variant).
  box=$scenes/box30.yaml
  for j in 1 2; do straight "box-j$j" -- "$box" -j $j; done
  same_output "30 spheres -j 1 / -j 2" "$work/box-j1" "$work/box-j2"
  for j in 1 2; do straight "periodic-j$j" -- "$scenes/periodic64.yaml" -j $j; done
  same_output "periodic cell -j 1 / -j 2" "$work/periodic-j1" "$work/periodic-j2"
  busy "30 spheres" "$work/box-j1" 4000 10 2

  t=$scenes/threads.yaml
  straight dense-j1 -- "$t" -j 1
  rm -rf "$work/dense-omp2"
  OMP_NUM_THREADS=2 must "dense default threads" -- "$demrun" -q -o "$work/dense-omp2" "$t"
  straight dense-j2 -- "$t" -j 2
  same_output "294 spheres -j 1 / default with OMP_NUM_THREADS=2" "$work/dense-j1" \
    "$work/dense-omp2"
  same_output "294 spheres -j 1 / -j 2" "$work/dense-j1" "$work/dense-j2"
  busy "294 spheres" "$work/dense-j1" 20 100 1

  big=(--set "grains.0.lattice.count=[14,14,11]" --set "time.steps=100"
       --set "grains.0.lattice.origin=[-0.0133,-0.0133,0.0011]" "$t")
  straight big-j1 -- "${big[@]}" -j 1
  straight big-j2 -- "${big[@]}" -j 2
  same_output "2156 spheres -j 1 / -j 2" "$work/big-j1" "$work/big-j2"
  busy "2156 spheres" "$work/big-j1" 100 500 1

  ellipsoid_bundle
  ls=(--set "shapes.grain.bundle=$work/ell.ldg" --set "time.steps=1500" "$scenes/box_ls.yaml")
  straight lset-j1 -- "${ls[@]}" -j 1
  straight lset-j2 -- "${ls[@]}" -j 2
  same_output "level-set grains -j 1 / -j 2" "$work/lset-j1" "$work/lset-j2"
  busy "level-set grains" "$work/lset-j1" 1500 8 2
  ;;

errors)
  bad_dir=$scenes/bad
  E='^demrun: error: '
  out=$work/never
  # scene_error NAME PATTERN -- demrun args...: exit 2, one line, no output folder; run
  # without -q: nothing else may be printed before the error.
  scene_error() {
    local name=$1 pattern=$2
    shift 3
    rm -rf "$out"
    QUIET_STDOUT=1 expect_error "$name" 2 "$pattern" -- "$demrun" -o "$out" "$@"
    if [ -e "$out" ]; then bad "$name: created $out"; else ok; fi
  }
  scene_error "unknown key" "${E}.*/unknown_key\.yaml:7: materials\.soft\.densty: unknown key" \
    -- "$bad_dir/unknown_key.yaml"
  # a lattice whose grains would not fit in --max-memory: refused before it is expanded
  scene_error "lattice over --max-memory" \
    "${E}.*/huge_lattice\.yaml:9: grains\.0\.lattice\.count needs ~1[0-9][0-9] GiB \(limit 1 GiB; see --max-memory\)$" \
    -- --max-memory 1G "$bad_dir/huge_lattice.yaml"
  scene_error "lattice by --set over --max-memory" \
    "${E}--set: grains\.0\.lattice\.count needs ~1\.41 MiB \(limit 1 MiB; see --max-memory\)$" \
    -- --max-memory 1M --set "grains.0.lattice.count=[10,10,10]" "$bad_dir/huge_lattice.yaml"
  scene_error "bad --max-memory" "${E}--max-memory: '1X' is not a size" \
    -- --max-memory 1X "$bad_dir/huge_lattice.yaml"
  "$demrun" --check -q --max-memory 2M --set "grains.0.lattice.count=[10,10,10]" \
    "$bad_dir/huge_lattice.yaml" > /dev/null && ok || bad "a 1000-sphere lattice refused with --max-memory 2M"
  scene_error "missing bundle" \
    "${E}.*/missing_bundle\.yaml:7: shapes\.grain\.bundle: cannot open '.*no-such-grain\.ldg'" \
    -- "$bad_dir/missing_bundle.yaml"
  scene_error "negative radius" \
    "${E}.*/negative_radius\.yaml:10: grains\.1\.radius: must be > 0, got -0\.001" \
    -- "$bad_dir/negative_radius.yaml"
  scene_error "crossing walls" "${E}.*/crossing_walls\.yaml:11: walls 'lid' and 'floor' overlap" \
    -- "$bad_dir/crossing_walls.yaml"
  scene_error "yaml syntax" "${E}.*/syntax\.yaml:5: YAML syntax error: .*started on line 4" \
    -- "$bad_dir/syntax.yaml"
  scene_error "wrong type" "${E}.*/wrong_type\.yaml:5: gravity\.2: expected a number, got 'down'" \
    -- "$bad_dir/wrong_type.yaml"
  scene_error "behind wall" "${E}.*/behind_wall\.yaml:8: grains\.0: .*behind wall 'floor'" \
    -- "$bad_dir/behind_wall.yaml"
  scene_error "missing scene" "${E}.*/no-such-scene\.yaml: cannot open the scene" \
    -- "$bad_dir/no-such-scene.yaml"

  # --set: bad paths and values name --set and the key
  box=$scenes/box30.yaml
  scene_error "set: no such entry" "${E}--set: grains\.7\.radius: there is no entry 7" \
    -- --set grains.7.radius=1 "$box"
  scene_error "set: unknown key" "${E}--set: matrials: unknown key; accepted: time," \
    -- --set matrials.soft.E=1 "$box"
  scene_error "set: into a scalar" "${E}--set: time\.dt\.x: cannot go into 'x'" \
    -- --set time.dt.x=1 "$box"
  scene_error "set: not an index" "${E}--set: grains\.x\.radius: 'x' is not a list index" \
    -- --set grains.x.radius=1 "$box"
  scene_error "set: bad value" "${E}--set: time\.dt: must be > 0, got -1" \
    -- --set time.dt=-1 "$box"
  scene_error "set: yaml syntax" "${E}--set: gravity: YAML syntax error" \
    -- --set "gravity=[0,0" "$box"
  scene_error "set: missing bundle" \
    "${E}--set: shapes\.grain\.bundle: cannot open '/no/such\.ldg'" \
    -- --set shapes.grain.bundle=/no/such.ldg "$scenes/box_ls.yaml"
  scene_error "set: not KEY=VALUE" "${E}--set: 'time\.dt' is not KEY=VALUE" \
    -- --set time.dt "$box"

  # options
  scene_error "bad option" "${E}unknown option '--bogus'" -- --bogus "$box"
  scene_error "option without value" "${E}-o needs a value" -- "$box" -o
  scene_error "zero threads" "${E}--threads: '0' is not a whole number >= 1" -- -j 0 "$box"
  scene_error "bad stop-at" "${E}--stop-at: 'x' is not a whole number >= 1" -- --stop-at x "$box"
  scene_error "no scene" "${E}no scene file given" --
  scene_error "two scenes" "${E}one scene file expected, got 2" -- "$box" "$box"

  # --check reads and builds without running: exit 0, no folder
  rm -rf "$out"
  must "--check" -- "$demrun" -q --check -o "$out" "$box"
  [ -e "$out" ] && bad "--check created $out" || ok

  # checkpoints of another scene: a different grain count, or the same count under another
  # contact law; a truncated file. Into a new folder (not created) and into the folder of an
  # earlier run (left as it was).
  ellipsoid_bundle
  "$demrun" -q -o "$work/box" --set time.steps=200 "$box" &&
    "$demrun" -q -o "$work/lset" --set time.steps=50 --set "shapes.grain.bundle=$work/ell.ldg" \
      "$scenes/box_ls.yaml" &&
    "$demrun" -q -o "$work/mindlin" --set time.steps=200 --set "$mindlin" "$box" ||
    { echo "setup runs failed"; exit 1; }
  head -c 2000 "$work/box/checkpoint.ldc" > "$work/truncated.ldc"
  scene_error "restart: other grain count" \
    "${E}.*lset/checkpoint\.ldc: .*22 bodies but the scene has 30.*different scene" \
    -- -q --restart "$work/lset/checkpoint.ldc" "$box"
  scene_error "restart: other contact law" "${E}.*mindlin/checkpoint\.ldc: .*different scene" \
    -- -q --restart "$work/mindlin/checkpoint.ldc" "$box"
  scene_error "restart: truncated" "${E}.*truncated\.ldc: .*truncated" \
    -- -q --restart "$work/truncated.ldc" "$box"
  scene_error "restart: not a checkpoint" "${E}.*box30\.yaml: .*not an ldem" \
    -- -q --restart "$box" "$box"
  cp -r "$work/box" "$work/box.before"
  QUIET_STDOUT=1 expect_error "restart into an earlier run's folder" 2 \
    "${E}.*lset/checkpoint\.ldc: .*different scene" -- \
    "$demrun" -q -o "$work/box" --restart "$work/lset/checkpoint.ldc" "$box"
  if diff -r -q "$work/box.before" "$work/box" > /dev/null; then ok
  else bad "a refused restart changed the earlier run's folder"; fi
  ;;

ls-sphere)
  # R = 0.01; grid spacings R/10, R/20, R/40 (nodes at the grid spacing). Bounds are about
  # twice the errors measured (debugoptimized, gcc 12): R/10 |dx|/R 0.0092, |dv|/V0 0.043,
  # |dw|R/V0 0.015, peak force 0.020; R/20 0.0063, 0.014, 0.021, 0.0015; R/40 0.0033,
  # 0.0060, 0.0065, 0.00028 — the level set's errors (the trilinear surface, the node
  # quadrature of the lens volume, the curvature radius from ∇²φ) shrink with h, and so do
  # these; the analytic run has the same dt, so its time error cancels.
  scene=$scenes/ls_vs_sphere.yaml
  straight analytic -- "$scene"
  runs=()
  for spec in 10:0.02,0.08,0.04,0.04 20:0.012,0.03,0.04,0.004 40:0.007,0.012,0.013,0.001; do
    n=${spec%%:*}
    h=$(awk -v n="$n" 'BEGIN { printf "%.17g", 0.01 / n }')
    "$lsgen" sphere --radius 0.01 --h "$h" -q -o "$work/sphere$n.ldg" ||
      { echo "lsgen sphere failed"; exit 1; }
    straight "ls$n" -- "$scene" --set "shapes.ball={bundle: $work/sphere$n.ldg}"
    runs+=("$work/ls$n:${spec#*:}")
  done
  checker "level-set spheres vs analytic" -- "$py" "$here/check_ls_sphere.py" \
    "$work/analytic" 0.01 0.5 "${runs[@]}"
  ;;

dzhanibekov)
  # Semi-axes 3, 2, 1 (moments 1 : 2 : 2.6 × m); 60000 steps of 0.002 at |ω| = 2: about 7
  # flips. Bounds: |L| drift 1e-9 (the integrator rotates L exactly; measured 4e-14),
  # kinetic energy 1e-6 (the splitting's O(dt²) oscillation; measured 2.0e-7), flip interval
  # vs Jacobi's half period 1e-4 (zero crossings interpolated between frames 0.4 apart;
  # measured 1.2e-5).
  "$lsgen" ellipsoid --axes 3,2,1 --h 0.2 --node-spacing 0.5 -q -o "$work/e321.ldg" ||
    { echo "lsgen ellipsoid failed"; exit 1; }
  straight dzh -- "$scenes/dzhanibekov.yaml" --set "shapes.ell.bundle=$work/e321.ldg"
  checker "dzhanibekov" -- "$py" "$here/check_dzhanibekov.py" "$work/dzh" "$work/e321.ldg" \
    1 0.002,2,0.001 1e-9 1e-6 1e-4 6
  ;;

deformable)
  beam_bundle
  beam=(--set "shapes.beam.bundle=$work/beam.ldg" "$scenes/beam_floor.yaml")
  straight beam -- "${beam[@]}"
  busy "beams in contact at 600" "$work/beam" 600 1 0
  # the modes moved and felt the contacts
  q=$(awk -F'\t' '!/^#/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
                  h && ($(c["g0.Q0"]) + 0 != 0) { n++ } END { print n + 0 }' "$work/beam/probes.tsv")
  [ "$q" -gt 0 ] && ok || bad "deformable: no probe row with a generalized contact force"
  restart beam-600 "$work/beam" 600 -- "${beam[@]}"
  restart beam-chain "$work/beam" 333,901 -- "${beam[@]}"
  straight beam-j2 -- -j 2 "${beam[@]}"
  same_output "deformable -j 2" "$work/beam" "$work/beam-j2"
  # a rigid copy of the same scene ends elsewhere, and the comparison sees it
  straight beam-rigid -- "${beam[@]}" --set grains.0.deformable=false --set grains.1.deformable=false
  differ "rigid is not deformable" "$work/beam/probes.tsv" "$work/beam-rigid/probes.tsv"
  # precomputed level sets (§3.1.4) through a restart, and they are not the remap
  pre=("${beam[@]}" --set "shapes.beam.modes={levelset: precomputed, samples: 5, damping: {ratio: 0.02}}")
  straight beam-pre -- "${pre[@]}"
  busy "precomputed beams in contact at 760" "$work/beam-pre" 760 2 0
  restart beam-pre-760 "$work/beam-pre" 760 -- "${pre[@]}"
  differ "precomputed is not remap" "$work/beam/probes.tsv" "$work/beam-pre/probes.tsv"

  # errors: exit 2, one line naming FILE:LINE (or --set) and the key, no output folder
  E='^demrun: error: '
  deformable_error() {
    local name=$1 pattern=$2
    shift 3
    rm -rf "$work/never"
    QUIET_STDOUT=1 expect_error "$name" 2 "$pattern" -- "$demrun" -o "$work/never" "$@"
    if [ -e "$work/never" ]; then bad "$name: created the output folder"; else ok; fi
  }
  set_beam=(--set "shapes.beam.bundle=$work/beam.ldg")
  deformable_error "amplitude count" \
    "${E}.*/beam_modes\.yaml:9: grains\.0\.modes\.amplitude: the shape 'beam' has 1 mode, got 2 values" \
    -- "${set_beam[@]}" "$scenes/bad/beam_modes.yaml"
  deformable_error "amplitude count by --set" \
    "${E}--set: grains\.1\.modes\.amplitude: the shape 'beam' has 1 mode, got 2 values" \
    -- "${beam[@]}" --set "grains.1.modes.amplitude=[1, 2]"
  deformable_error "levelset kind" \
    "${E}.*/beam_levelset\.yaml:8: shapes\.beam\.modes\.levelset: expected remap or precomputed, got 'sideways'" \
    -- "${set_beam[@]}" "$scenes/bad/beam_levelset.yaml"
  deformable_error "sphere cannot deform" \
    "${E}--set: shapes\.ball\.modes: modes apply to bundle shapes only" \
    -- "${beam[@]}" --set "shapes.ball={sphere: 1, modes: {}}"
  deformable_error "modal_safety" "${E}--set: time\.modal_safety: .*got 0" \
    -- "${beam[@]}" --set time.modal_safety=0
  deformable_error "range" "${E}--set: shapes\.beam\.modes\.range: expected min < max" \
    -- "${beam[@]}" --set "shapes.beam.modes.range=[1, -1]"
  # precomputed level sets beyond --max-memory: refused before they are computed
  deformable_error "precomputed samples over --max-memory" \
    "${E}--set: shapes\.beam\.modes\.samples needs ~[0-9.]+ GiB \(limit 64 MiB; see --max-memory\)$" \
    -- "${beam[@]}" --max-memory 64M --set "shapes.beam.modes={levelset: precomputed, samples: 100000}"
  "$demrun" --check -q --max-memory 64M "${beam[@]}" \
    --set "shapes.beam.modes={levelset: precomputed, samples: 5}" > /dev/null && ok \
    || bad "5 precomputed samples refused with --max-memory 64M"
  deformable_error "range pairs" \
    "${E}.*/beam_floor\.yaml:10: shapes\.beam\.modes\.range: 2 pairs for 1 modes" \
    -- "${beam[@]}" --set "shapes.beam.modes.range=[[0, 1], [0, 1]]"
  deformable_error "samples" "${E}--set: shapes\.beam\.modes\.samples: expected a whole number >= 2" \
    -- "${beam[@]}" --set shapes.beam.modes.samples=1
  deformable_error "damping" "${E}--set: shapes\.beam\.modes\.damping: expected bundle, none" \
    -- "${beam[@]}" --set shapes.beam.modes.damping=lots
  deformable_error "deformable not boolean" "${E}--set: grains\.0\.deformable" \
    -- "${beam[@]}" --set grains.0.deformable=sometimes
  deformable_error "probe modes" \
    "${E}--set: output\.probes\.modes\.0: grain 5 does not exist" \
    -- "${beam[@]}" --set "output.probes.modes=[5]"
  # a bundle without modes cannot deform on request (lsgen alone writes none)
  "$lsgen" cuboid --size 40,4,4 --h 0.5 -q -o "$work/rigid.ldg" || { echo "lsgen failed"; exit 1; }
  deformable_error "bundle without modes" \
    "${E}.*/beam_floor\.yaml:14: grains\.1\.deformable: shape 'beam' cannot deform: its bundle '.*rigid\.ldg' has no deformation modes" \
    -- --set "shapes.beam={bundle: $work/rigid.ldg}" --set grains.0.deformable=false \
       "$scenes/beam_floor.yaml"
  ;;

deformable-frames)
  # Free beams (no contact): frame 0 against the scene and the bundle to 1e-12 of the beam's
  # size (measured 4e-16), later frames against the probes' eps (3e-15), Fint = K eps and the
  # modal energies to 1e-12 (measured 3e-16), eps(t) against the closed-form Verlet solution
  # to 1e-9 (measured 4e-13 over 400 steps).
  beam_bundle
  free=(--set "shapes.beam.bundle=$work/beam.ldg" "$scenes/beam_free.yaml")
  straight free -- "${free[@]}"
  checker "deformable frames and probes" -- "$py" "$here/check_deformable_frames.py" \
    "$work/free" "$scenes/beam_free.yaml" "$work/beam.ldg" 1e-12 1e-12
  # negative control: a run whose grain 1 starts with another rate fails the same check
  straight free-other -- "${free[@]}" --set "grains.1.modes.rate=[0.051]"
  if "$py" "$here/check_deformable_frames.py" "$work/free-other" "$scenes/beam_free.yaml" \
       "$work/beam.ldg" 1e-12 1e-12 > "$work/neg.log" 2>&1; then
    bad "deformable frames: the check passed a run with another initial rate"
  else ok; fi
  ;;

packing)
  # periodic64's lattice starts on the cell's faces and drifts, so centres leave the cell and
  # must be wrapped; order: spatial numbers the bodies otherwise in memory.
  periodic=(--set output.packing=true --set output.frames.every=0 "$scenes/periodic64.yaml")
  straight pack -- "${periodic[@]}"
  straight pack-spatial -- "${periodic[@]}" --set order=spatial
  a=$work/pack/packing.tsv
  # the table: a title, the box, the columns, 64 rows in input order, every centre in the box
  if awk -F'\t' '
      /^# box_lo / { split($0, f, " "); for (k = 1; k <= 3; k++) lo[k] = f[k + 2]; nb++; next }
      /^# box_hi / { split($0, f, " "); for (k = 1; k <= 3; k++) hi[k] = f[k + 2]; nb++; next }
      /^#/ { next }
      !h { if ($0 != "id\tx\ty\tz\tradius") exit 1; h = 1; next }
      { if ($1 != n++ || $5 != 0.001) exit 1
        for (k = 1; k <= 3; k++) if ($(k + 1) < lo[k] || $(k + 1) >= hi[k]) exit 1 }
      END { exit !(h && nb == 2 && n == 64) }' "$a"; then ok
  else bad "packing: $a is not 64 rows in input order inside the box: $(head -8 "$a")"; fi
  # it wrapped some: the lattice's first layer starts on the low faces, moving down in y
  if awk '/^# box_lo /{ lo = $4 } /^[0-9]/ { if ($3 - lo > 0.0075) n++ } END { exit !(n > 0) }' \
       "$a"; then ok; else bad "packing: no grain near the far y face, nothing was wrapped?"; fi
  # under order: spatial the rows still follow the input order (the same grains, up to the
  # round-off of the force sums' order)
  if paste "$a" "$work/pack-spatial/packing.tsv" | awk -F'\t' '
      /^#/ || /^id/ { next }
      { if ($1 != $6) exit 1
        for (k = 2; k <= 4; k++) { d = $k - $(k + 5); if (d < 0) d = -d; if (d > 1e-9) exit 1 } }'
  then ok; else bad "packing: order: spatial lists other grains than input order"; fi
  # read back into a scene with the table's box, written again without a step: the same rows
  lo=$(awk '/^# box_lo /{ printf "[%s, %s, %s]", $3, $4, $5 }' "$a")
  hi=$(awk '/^# box_hi /{ printf "[%s, %s, %s]", $3, $4, $5 }' "$a")
  straight readback -- "$scenes/packing_readback.yaml" --set "grains.0.file.path=$a" \
    --set "cell.box.lo=$lo" --set "cell.box.hi=$hi"
  b=$work/readback/packing.tsv
  if [ -s "$b" ] && cmp -s <(grep -v '^#' "$a") <(grep -v '^#' "$b"); then ok
  else bad "packing: read back and written again, the rows differ: $(diff <(grep -v '^#' "$a") <(grep -v '^#' "$b") 2>&1 | head -4)"; fi
  # the box comes back to round-off (the scene keeps the centre and edges, not lo and hi)
  if paste <(grep '^# box_' "$a") <(grep '^# box_' "$b") | awk '
      { for (k = 3; k <= 5; k++) { d = $k - $(k + 5); if (d < 0) d = -d; if (d > 1e-18) exit 1 } }'
  then ok; else bad "packing: the box read back differs: $(grep '^# box_' "$a" "$b")"; fi
  # a restart writes the packing where the whole run ends; -j 2 the same
  restart pack-2013 "$work/pack" 2013 -- "${periodic[@]}"
  straight pack-j2 -- "${periodic[@]}" -j 2
  same_output "packing -j 2" "$work/pack" "$work/pack-j2"
  # negative control: a run stopped at 2013 writes another packing
  straight pack-2013only -- "${periodic[@]}" --set time.steps=2013
  differ "packing at 2013" "$a" "$work/pack-2013only/packing.tsv"
  # open space: no box lines, 30 rows
  straight open -- --set output.packing=true --set output.frames.every=0 "$scenes/box30.yaml"
  if ! grep -q '^# box_' "$work/open/packing.tsv" &&
     [ "$(grep -c '^[0-9]' "$work/open/packing.tsv")" = 30 ]; then ok
  else bad "packing in open space: $(head -4 "$work/open/packing.tsv")"; fi
  # level-set grains: refused when the scene is read, before any step
  rm -rf "$work/never"
  QUIET_STDOUT=1 expect_error "packing of level-set grains" 2 \
    '^demrun: error: --set: output\.packing: writes spheres only .*level-set shape .grain.' -- \
    "$demrun" -o "$work/never" --set output.packing=true "$scenes/box_ls.yaml"
  [ -e "$work/never" ] && bad "packing of level-set grains: created the folder" || ok
  ;;

servo)
  # The lid of issue 34: at the end its force and its mean over the last interval are on the
  # target to 1e-6 (measured: to the print precision), the velocity changed sign on fewer
  # than 1 step in 20 of the last interval (the balls' damped rocking, measured 6 in 500),
  # and no chatter was reported.
  lid=$scenes/lid_servo.yaml
  "$demrun" -o "$work/lid" "$lid" 2> "$work/lid.err" || bad "lid run failed: $(cat "$work/lid.err")"
  grep -q chatters "$work/lid.err" && bad "lid reported chatter: $(cat "$work/lid.err")" || ok
  fz=$(probe_at "$work/lid" 3000 lid.fz)
  mean=$(probe_at "$work/lid" 3000 lid.fz_mean)
  target=$(probe_at "$work/lid" 3000 lid.target)
  flips=$(probe_at "$work/lid" 3000 lid.flips)
  if awk -v f="$fz" -v m="$mean" -v t="$target" -v n="$flips" 'BEGIN {
       exit !(t == 4.5 && (f - t)^2 < (1e-6 * t)^2 && (m - t)^2 < (1e-6 * t)^2 && n < 25) }'
  then ok; else bad "lid at step 3000: fz $fz, mean $mean, target $target, flips $flips"; fi
  # a restart between probe rows continues the interval's sums bit for bit
  restart lid-split "$work/lid" 1234 -- "$lid"
  # gain 1.99 with a fast cap: the loop rings for many steps (each step leaves -0.99 of the
  # error): reported once, with the wall, the range and the remedy
  "$demrun" -o "$work/ring" --set walls.1.servo.gain=1.99 --set walls.1.servo.max_velocity=30 \
    "$lid" 2> "$work/ring.err"
  n=$(grep -c "warning: wall 'lid' chatters at step .*reduce servo.gain or servo.max_velocity" \
    "$work/ring.err")
  [ "$n" = 1 ] && ok || bad "ringing lid: $n reports: $(cat "$work/ring.err")"
  ;;

*)
  echo "unknown part '$part'"
  exit 1
  ;;
esac

echo "test_demrun $part: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
