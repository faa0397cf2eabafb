# Shared by the CLI test scripts (sourced): a scratch directory, pass/fail counters and the
# error-line check. The sourcing script sets `set -u` and prints the summary itself.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error NAME EXIT_CODE PATTERN -- command...
# The command must exit with EXIT_CODE and print exactly one stderr line matching PATTERN.
# With QUIET_STDOUT=1 it must also print nothing on stdout.
expect_error() {
  local name=$1 code=$2 pattern=$3
  shift 4
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  local lines
  lines=$(wc -l < "$work/err")
  if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, expected $code ($(cat "$work/err"))"
  elif [ "$lines" -ne 1 ]; then bad "$name: $lines stderr lines, expected 1: $(cat "$work/err")"
  elif ! grep -Eq -- "$pattern" "$work/err"; then bad "$name: '$(cat "$work/err")' does not match '$pattern'"
  elif [ "${QUIET_STDOUT:-0}" = 1 ] && [ -s "$work/out" ]; then
    bad "$name: printed on stdout: $(head -c 200 "$work/out")"
  else ok; fi
}

# run_check NAME -- command...: a checking script's run; its report is shown on failure
# (and always with VERBOSE=1).
run_check() {
  local name=$1
  shift 2
  if "$@" > "$work/check.log" 2>&1; then ok; else bad "$name"; cat "$work/check.log"; fi
  [ "${VERBOSE:-0}" = 1 ] && cat "$work/check.log"
  return 0
}

# must NAME -- command...: the command must succeed (its stderr is shown if it does not).
must() {
  local name=$1
  shift 2
  if "$@" 2> "$work/must.err"; then ok; else bad "$name: $(cat "$work/must.err")"; fi
}
