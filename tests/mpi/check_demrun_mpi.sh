#!/bin/sh
# demrun-mpi on N ranks writes the probes of one-process demrun, byte for byte, but for the
# history_bytes column (the pools' capacity: memory, which ranks duplicate at their faces;
# docs/mpi.md).
# usage: check_demrun_mpi.sh MPIRUN NP DEMRUN DEMRUN_MPI SCENE [--set KEY=VALUE ...]
mpirun=$1 np=$2 demrun=$3 demrun_mpi=$4 scene=$5
shift 5
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$demrun" -q -j 1 -o "$dir/one" "$@" "$scene" || { echo "check_demrun_mpi: demrun failed" >&2; exit 1; }
"$mpirun" --oversubscribe -np "$np" "$demrun_mpi" -q -j 1 -o "$dir/ranks" "$@" "$scene" \
  > "$dir/log" 2>&1
status=$?
cat "$dir/log"
[ "$status" -eq 0 ] || { echo "check_demrun_mpi: mpirun -np $np demrun-mpi exited with $status" >&2; exit 1; }
without_bytes() {
  awk -F'\t' 'BEGIN { OFS = "\t" }
    /^#/ { print; next }
    !skip_set { for (k = 1; k <= NF; k++) if ($k == "history_bytes") skip = k; skip_set = 1 }
    { out = ""; for (k = 1; k <= NF; k++) if (k != skip) out = out (out == "" ? "" : "\t") $k; print out }' "$1"
}
without_bytes "$dir/one/probes.tsv" > "$dir/one.tsv"
without_bytes "$dir/ranks/probes.tsv" > "$dir/ranks.tsv"
rows=$(grep -vc '^#' "$dir/one.tsv")
if ! cmp "$dir/one.tsv" "$dir/ranks.tsv"; then
  diff "$dir/one.tsv" "$dir/ranks.tsv" | head -6
  echo "check_demrun_mpi: $np ranks: the probes differ from one process" >&2
  exit 1
fi
echo "check_demrun_mpi: $np ranks: $rows probe rows, the same bytes as one process (history_bytes aside)"
