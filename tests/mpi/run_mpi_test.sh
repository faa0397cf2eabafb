#!/bin/sh
# Run an MPI test program under mpirun and fail if anything mentions Zoltan: libldem-mpi sets
# Zoltan's DEBUG_LEVEL to 0, and a library prints nothing on success (docs/design.md).
# usage: run_mpi_test.sh MPIRUN NP PROGRAM [ARGS...]
mpirun=$1 np=$2
shift 2
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
"$mpirun" --oversubscribe -np "$np" "$@" > "$log" 2>&1
status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  echo "run_mpi_test: mpirun -np $np exited with $status" >&2
  exit 1
fi
if grep -qi zoltan "$log"; then
  echo "run_mpi_test: Zoltan printed something (above) on success" >&2
  exit 1
fi
