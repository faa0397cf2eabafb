#!/bin/sh
# run_output_check.sh TEST PYTHON CHECKER — run the frame tests of test_sim_output keeping
# their output folders in a fresh temporary directory (LDEM_SIM_OUTPUT_KEEP), read them back
# with VTK (check_frames.py), and remove the directory whatever the outcome.
set -eu
[ $# -eq 3 ] || { echo "usage: run_output_check.sh TEST PYTHON CHECKER" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ldem-sim-output.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
LDEM_SIM_OUTPUT_KEEP="$dir" "$1" --jobs 1 --filter 'sim_output/frames_*'
"$2" "$3" "$dir"
