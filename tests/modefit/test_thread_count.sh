#!/usr/bin/env bash
# modefit and energyfit write the same bytes whatever the thread counts of OpenBLAS
# (OPENBLAS_NUM_THREADS) and of OpenMP (OMP_NUM_THREADS): each run below with 1 and with 4
# threads (more threads than cores is fine), cmp on the bundles and the snapshot tables.
# POD (Euclidean and mass inner product) and --orthogonalize differed in the last bits
# before the tools pinned OpenBLAS to one thread (tools/common/blas_threads.c).
# usage: test_thread_count.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
fem=$src/data/fem/sphere-compaction
. "$(dirname "$0")/../cli/harness.sh"

"$build/tools/lsgen/lsgen" sphere --radius 10 --h 0.5 -o "$work/sphere.ldg" \
  || { echo "lsgen failed"; exit 1; }

# run THREADS: every command in its own directory, with the same relative file names (the
# command line is recorded in META).
run() {
  local t=$1 dir=$work/t$1
  mkdir -p "$dir"
  (
    cd "$dir" || exit 1
    export OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t
    common="-i ../sphere.ldg --mesh $fem/sphere_mesh.inp --snapshots $fem/sphere.frd --E 1000 --nu 0.3 --damping ratio:0.05"
    # shellcheck disable=SC2086
    "$build/tools/modefit/modefit" $common --modes 3 --snapshot-table pod.tsv -o pod.ldg &&
      "$build/tools/modefit/modefit" $common --modes 3 --inner mass \
        --snapshot-table pod-mass.tsv -o pod-mass.ldg &&
      "$build/tools/modefit/modefit" $common --modes 3 --orthogonalize -o orth.ldg &&
      "$build/tools/energyfit/energyfit" -i pod.ldg --energies pod.tsv -o energies.ldg &&
      "$build/tools/modefit/modefit" $common --method single --normalize point:0,0,10:-z \
        -o single.ldg &&
      "$build/tools/energyfit/energyfit" -i single.ldg --table "$fem/reaction.tsv" \
        --columns eps,F_eps -o table.ldg
  ) 2> "$dir/err" || bad "OPENBLAS_NUM_THREADS=$t: $(cat "$dir/err")"
}
run 1
run 4
for f in pod.ldg pod.tsv pod-mass.ldg pod-mass.tsv orth.ldg energies.ldg single.ldg table.ldg; do
  if cmp -s "$work/t1/$f" "$work/t4/$f"; then ok
  else bad "$f differs between 1 and 4 threads: $(cmp "$work/t1/$f" "$work/t4/$f" 2>&1)"; fi
done

echo "test_thread_count: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
