#!/bin/sh
# Rigid level-set grains between walls on MPI ranks (tests/mpi/scenes/ls_box.yaml): lsgen makes
# the ellipsoid bundle, then demrun-mpi's probes, checkpoints and frames must be one-process
# demrun's, across restarts too (check_demrun_mpi.sh), and the distributed world's whole
# state the one-process world's (test_world).
# usage: check_ls_box.sh MPIRUN NP LSGEN DEMRUN DEMRUN_MPI CKPT_SAME TEST_WORLD SCENE
mpirun=$1 np=$2 lsgen=$3 demrun=$4 demrun_mpi=$5 ckpt_same=$6 test_world=$7 scene=$8
here=$(dirname "$0")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$lsgen" ellipsoid --axes 0.0015,0.001,0.0007 --h 0.00015 -q -o "$dir/ell.ldg" ||
  { echo "check_ls_box: lsgen failed" >&2; exit 1; }
"$here/check_demrun_mpi.sh" "$mpirun" "$np" "$demrun" "$demrun_mpi" "$ckpt_same" 130 "$scene" \
  --set "shapes.grain.bundle=$dir/ell.ldg" --set output.frames.every=100 || exit 1
"$here/run_mpi_test.sh" "$mpirun" "$np" "$test_world" "$scene" 300 20 \
  "shapes.grain.bundle=$dir/ell.ldg"
