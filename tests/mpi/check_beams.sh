#!/bin/sh
# Deformable level-set grains on MPI ranks (tests/mpi/scenes/beams.yaml): lsgen and modefit
# make the beam with its analytic bending mode, then demrun-mpi's probes, checkpoints and
# frames must be one-process demrun's, across restarts too (check_demrun_mpi.sh): the modal
# state travels with its body.
# usage: check_beams.sh MPIRUN NP LSGEN MODEFIT DEMRUN DEMRUN_MPI CKPT_SAME SCENE
mpirun=$1 np=$2 lsgen=$3 modefit=$4 demrun=$5 demrun_mpi=$6 ckpt_same=$7 scene=$8
here=$(dirname "$0")
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$lsgen" cuboid --size 40,4,4 --h 0.5 -q |
  "$modefit" --analytic beam-bending --length 40 --axis x --E 1e4 --nu 0.3 \
    --normalize point:0,0,0:-z --depth 1 -q -o "$dir/beam.ldg" ||
  { echo "check_beams: lsgen | modefit failed" >&2; exit 1; }
"$here/check_demrun_mpi.sh" "$mpirun" "$np" "$demrun" "$demrun_mpi" "$ckpt_same" 45 "$scene" \
  --set "shapes.beam.bundle=$dir/beam.ldg"
