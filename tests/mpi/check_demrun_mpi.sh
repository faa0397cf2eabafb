#!/bin/sh
# demrun-mpi on N ranks writes what one-process demrun writes (docs/mpi.md):
# - the probes byte for byte but for the history_bytes column (the pools' capacity: memory,
#   which ranks duplicate at their faces);
# - the checkpoint (and a staged run's stage ends): every section the same bytes but for the
#   header's table of history pools (ckpt_same);
# - the frames (grains, walls, contacts) byte for byte;
# and restarts cross over: a run stopped at step HALF on N ranks and continued by one process,
# and one stopped by one process and continued on N ranks (started as `mpirun demrun`, which
# runs demrun-mpi), end with the same outputs. A demrun without demrun-mpi beside it refuses
# to run on several ranks.
# usage: check_demrun_mpi.sh MPIRUN NP DEMRUN DEMRUN_MPI CKPT_SAME HALF SCENE [--set K=V ...]
mpirun=$1 np=$2 demrun=$3 demrun_mpi=$4 ckpt_same=$5 half=$6 scene=$7
shift 7
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "check_demrun_mpi: $np ranks: $*" >&2; exit 1; }
# ranks PROGRAM ARGS...: PROGRAM on NP ranks
ranks() {
  program=$1
  shift
  "$mpirun" --oversubscribe -np "$np" "$program" -q -j 1 "$@" > "$dir/log" 2>&1
  status=$?
  cat "$dir/log"
  [ "$status" -eq 0 ] || fail "mpirun -np $np $program $* exited with $status"
}
without_bytes() {
  awk -F'\t' 'BEGIN { OFS = "\t" }
    /^#/ { print; next }
    !skip_set { for (k = 1; k <= NF; k++) if ($k == "history_bytes") skip = k; skip_set = 1 }
    { out = ""; for (k = 1; k <= NF; k++) if (k != skip) out = out (out == "" ? "" : "\t") $k; print out }' "$1"
}
# same_as_one DIR WHAT: DIR's outputs against one process's uninterrupted run
same_as_one() {
  without_bytes "$dir/one/probes.tsv" > "$dir/one.tsv"
  without_bytes "$1/probes.tsv" > "$dir/other.tsv"
  if ! cmp "$dir/one.tsv" "$dir/other.tsv"; then
    diff "$dir/one.tsv" "$dir/other.tsv" | head -6
    fail "$2: the probes differ from one process"
  fi
  "$ckpt_same" "$dir/one/checkpoint.ldc" "$1/checkpoint.ldc" || fail "$2: the checkpoints differ"
  for f in "$1"/stage-*.ldc; do # a staged run's stage ends
    [ -e "$f" ] || continue
    "$ckpt_same" "$dir/one/${f#"$1"/}" "$f" || fail "$2: ${f#"$1"/} differs"
  done
  frames=0
  for f in "$1"/*.pvd "$1"/frames/*.vtu; do
    [ -e "$f" ] || continue
    cmp "$f" "$dir/one/${f#"$1"/}" || fail "$2: ${f#"$1"/} differs"
    frames=$((frames + 1))
  done
  echo "check_demrun_mpi: $np ranks, $2: $(grep -vc '^#' "$dir/one.tsv") probe rows (history_bytes" \
       "aside), the checkpoint (pools aside) and $frames frame files the same as one process"
}
"$demrun" -q -j 1 -o "$dir/one" "$@" "$scene" || fail "demrun failed"
ranks "$demrun_mpi" -o "$dir/ranks" "$@" "$scene"
same_as_one "$dir/ranks" "a run"
ranks "$demrun_mpi" -o "$dir/a" --stop-at "$half" "$@" "$scene"
"$demrun" -q -j 1 -o "$dir/a" --restart "$dir/a/checkpoint.ldc" "$@" "$scene" \
  || fail "demrun --restart from demrun-mpi's checkpoint failed"
same_as_one "$dir/a" "stopped at $half, continued by one process"
"$demrun" -q -j 1 -o "$dir/b" --stop-at "$half" "$@" "$scene" || fail "demrun --stop-at failed"
ranks "$demrun" -o "$dir/b" --restart "$dir/b/checkpoint.ldc" "$@" "$scene"
same_as_one "$dir/b" "stopped at $half by one process, continued on $np ranks (mpirun demrun)"
if [ "$np" -gt 1 ]; then
  mkdir "$dir/lonely" && cp "$demrun" "$dir/lonely/demrun" || exit 1
  if "$mpirun" --oversubscribe -np "$np" "$dir/lonely/demrun" -q -o "$dir/c" "$@" "$scene" \
       > "$dir/log" 2>&1 || ! grep -q "built without MPI" "$dir/log"; then
    cat "$dir/log"
    fail "a demrun without demrun-mpi beside it ran on $np ranks, or did not say why not"
  fi
  [ -e "$dir/c" ] && fail "the refused run on $np ranks wrote $dir/c"
  echo "check_demrun_mpi: a demrun without demrun-mpi refuses $np ranks, writing nothing"
fi
