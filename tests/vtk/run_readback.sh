#!/bin/sh
# run_readback.sh WRITER PYTHON CHECKER — write the sample battery into a fresh temporary
# directory, read it back with VTK, and remove the directory whatever the outcome.
set -eu
[ $# -eq 3 ] || { echo "usage: run_readback.sh WRITER PYTHON CHECKER" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ldem-vtk-readback.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
"$1" "$dir"
"$2" "$3" "$dir"
