#!/usr/bin/env bash
# energyfit end to end: the Appendix B table onto a bundle with modes (made by ldg-pack
# from payloads written by check_energyfit.py), checked with the independent Python reader
# (tests/support/ldg.py): F at the knots equals the file, U is the integral of F, every
# other section passes through byte for byte; two modes by chaining; a table replaced;
# several bundles in one stream; fits from files with named columns; and bad input: one
# "energyfit: error: ..." line (FILE:LINE for text inputs), exit 2, no output file.
# usage: test_energyfit.sh TOOLS_DIR SOURCE_DIR
set -u
tools=$1
src=$2
energyfit=$tools/energyfit/energyfit
info=$tools/ldg-info
pack=$tools/ldg-pack
py=/usr/bin/python3
check="$src/tests/energyfit/check_energyfit.py"
appb="$src/data/energy/henzel-appendix-b.tsv"
. "$src/tests/cli/harness.sh"

# run NAME -- command...: must succeed; its stderr is shown on failure.
run() {
  local name=$1
  shift 2
  if "$@" > "$work/run.out" 2> "$work/run.err"; then ok
  else bad "$name: $(cat "$work/run.out" "$work/run.err")"; fi
}

# ---- an input bundle: META, MODE (2 analytic modes), KMAT, and a section energyfit does
# not know, which must come through untouched
"$py" "$check" mode-payload 2 "$work/mode2.bin"
"$py" "$check" mode-payload 1 "$work/mode1.bin"
"$py" "$check" kmat-payload "$work/kmat.bin" 12000,3000
head -c 300 /dev/urandom > "$work/xtra.bin"
run pack-input -- "$pack" --meta name=test-grain --section MODE="$work/mode2.bin" \
  --section KMAT="$work/kmat.bin" --section XTRA="$work/xtra.bin" -o "$work/in.ldg"
run pack-one-mode -- "$pack" --meta name=one --section MODE="$work/mode1.bin" -o "$work/one.ldg"
run pack-no-mode -- "$pack" --meta name=bare -o "$work/bare.ldg"

# ---- Appendix B as a table (default pchip), then linear
run appb -- "$energyfit" -i "$work/in.ldg" --table "$appb" -o "$work/appb.ldg"
run appb-check -- "$py" "$check" table "$work/appb.ldg" "$appb" 0 pchip
run appb-passthrough -- "$py" "$check" same "$work/in.ldg" "$work/appb.ldg" MODE KMAT XTRA
run appb-meta -- "$py" "$check" meta "$work/appb.ldg" name=test-grain "energyfit.mode0.source=$appb" \
  "energyfit.mode0.method=table interp=pchip extrapolate=none" energyfit.command
run appb-extrapolate -- "$py" "$check" extrapolate "$work/appb.ldg" 0 none
if "$info" --json "$work/appb.ldg" > "$work/info.json" 2> "$work/info.err" \
   && "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert "ETAB" in s and "mode0_samples" in s, s
' "$work/info.json"; then ok; else bad "ldg-info --json shows no ETAB: $(cat "$work/info.json" "$work/info.err")"; fi
run appb-linear -- "$energyfit" -i "$work/in.ldg" --table "$appb" --interp linear -o "$work/lin.ldg"
run appb-linear-check -- "$py" "$check" table "$work/lin.ldg" "$appb" 0 linear

# ---- pipes: stdin to stdout, into ldg-info
if "$energyfit" --table "$appb" < "$work/in.ldg" | "$info" -q; then ok; else bad "energyfit | ldg-info"; fi

# ---- a second mode by chaining: reaction forces of a known quartic energy
# U = 3e^2 - 2e^3 + 5e^4 (F = 6e - 6e^2 + 20e^3), in a file with a step column and a header
"$py" -c '
for i in range(1, 21):
    e = 0.025 * i
    print(("step\teps\tU\tF\n" if i == 1 else "") + f"{i}\t{e!r}\t{3*e*e - 2*e**3 + 5*e**4!r}\t{6*e - 6*e*e + 20*e**3!r}")
' > "$work/quartic.tsv"
run chain -- "$energyfit" -i "$work/appb.ldg" --mode 1 --forces "$work/quartic.tsv" --columns eps,F \
  --degree 4 --samples 41 --extrapolate linear -o "$work/two.ldg"
run chain-modes -- "$py" "$check" modes "$work/two.ldg" 0,1
run chain-keeps-mode0 -- "$py" "$check" table "$work/two.ldg" "$appb" 0 pchip
run chain-extrapolate -- "$py" "$check" extrapolate "$work/two.ldg" 1 linear
run chain-passthrough -- "$py" "$check" same "$work/in.ldg" "$work/two.ldg" MODE KMAT XTRA
run chain-meta -- "$py" "$check" meta "$work/two.ldg" "energyfit.mode0.source=$appb" \
  "energyfit.mode1.source=$work/quartic.tsv" \
  "energyfit.mode1.method=forces degree=4 samples=41 interp=pchip extrapolate=linear columns=eps,F"
# The fitted table: 41 knots over [0, 0.5], F the quartic's exactly (1e-12), U within PCHIP's
# error of the true energy (1e-5 of U(0.5) = 0.8125).
if "$py" -c '
import sys
sys.path.insert(0, sys.argv[2])
import numpy as np, ldg
t = ldg.etab_by_mode(ldg.read_bundles(sys.argv[1])[0]["ETAB"])[1]
e = t["eps"]
assert len(e) == 41 and e[0] == 0 and e[-1] == 0.5, e
assert np.max(np.abs(t["force"] - (6*e - 6*e*e + 20*e**3))) < 1e-12
assert np.max(np.abs(t["energy"] - (3*e*e - 2*e**3 + 5*e**4))) < 1e-5 * 0.8125
' "$work/two.ldg" "$src/tests/support"; then ok; else bad "fitted table of mode 1"; fi
# Columns by number give the same table; energies of the same quartic fit too.
run columns-by-number -- "$energyfit" -i "$work/appb.ldg" --mode 1 --forces "$work/quartic.tsv" \
  --columns 2,4 --samples 41 --extrapolate linear -o "$work/two-num.ldg"
if "$py" -c '
import sys
sys.path.insert(0, sys.argv[3])
import ldg
a, b = (ldg.read_bundles(p)[0]["ETAB"] for p in sys.argv[1:3])
assert a == b
' "$work/two.ldg" "$work/two-num.ldg" "$src/tests/support"; then ok; else bad "--columns 2,4 differs from eps,F"; fi
run energies -- "$energyfit" -i "$work/in.ldg" --mode 1 --energies "$work/quartic.tsv" --columns eps,U \
  -o "$work/en.ldg"

# ---- -v reports the fit and compares F'(0) with K_aa (the quartic's F'(0) = 6; PCHIP's end
# slope from 33 knots is within 0.2% of it)
run verbose -- "$energyfit" -v -i "$work/two.ldg" --mode 1 --forces "$work/quartic.tsv" --columns eps,F \
  -o "$work/v.ldg"
if grep -q "rms residual" "$work/run.err" && grep -q "a_4 = 5" "$work/run.err" \
   && grep -Eq "mode 1: F'\(0\) = (5\.9[0-9]*|6(\.0[0-9]*)?), K_aa = 3000 " "$work/run.err"; then ok
else bad "-v report: $(cat "$work/run.err")"; fi

# ---- replacing a mode's table warns and keeps the other mode
run replace -- "$energyfit" -i "$work/two.ldg" --mode 0 --table "$appb" --interp linear -o "$work/re.ldg"
if grep -q "warning: .*mode 0: replacing" "$work/run.err"; then ok; else bad "no replace warning: $(cat "$work/run.err")"; fi
run replace-check -- "$py" "$check" table "$work/re.ldg" "$appb" 0 linear
run replace-modes -- "$py" "$check" modes "$work/re.ldg" 0,1

# ---- several bundles in one stream: each gets the tables
cat "$work/in.ldg" "$work/one.ldg" "$work/in.ldg" > "$work/three.ldg"
if "$energyfit" --table "$appb" < "$work/three.ldg" > "$work/three-out.ldg" 2> "$work/three.err"
then ok; else bad "three bundles: $(cat "$work/three.err")"; fi
run three-count -- "$py" "$check" count "$work/three-out.ldg" 3

# ---- bad input: one error line, exit 2, nothing written (QUIET_STDOUT: not even on stdout)
QUIET_STDOUT=1
no_output() {
  local name=$1
  if ls "$work"/out.* > /dev/null 2>&1; then bad "$name left $(ls "$work"/out.*)"; rm -f "$work"/out.*
  else ok; fi
}
fails() {
  local name=$1 pattern=$2
  shift 3
  expect_error "$name" 2 "^energyfit: error: $pattern" -- "$energyfit" "$@" -o "$work/out.ldg"
  no_output "$name"
}
printf 'eps\tF\n0\t0\n0.1\t1x\n' > "$work/badnum.tsv"
fails bad-number ".*badnum\.tsv:3: .*'1x' is not a number" -- -i "$work/in.ldg" --table "$work/badnum.tsv"
printf '# two rows at 0.1\neps\tF\n0\t0\n0.1\t1\n0.2\t3\n0.1\t2\n' > "$work/dup.tsv"
fails duplicate-eps ".*dup\.tsv:6: eps = 0\.1.* repeats line 4" -- -i "$work/in.ldg" --table "$work/dup.tsv"
fails missing-file ".*nope\.tsv.*(No such file|cannot open)" -- -i "$work/in.ldg" --table "$work/nope.tsv"
fails mode-range ".*mode 3: the bundle has 2 modes" -- -i "$work/in.ldg" --mode 3 --table "$appb"
fails mode-range-one ".*mode 1: the bundle has 1 mode$" -- -i "$work/one.ldg" --mode 1 --table "$appb"
fails no-mode ".*bare\.ldg.*no MODE section" -- -i "$work/bare.ldg" --table "$appb"
fails unknown-option "unknown option '--bogus'" -- -i "$work/in.ldg" --table "$appb" --bogus
fails bad-extrapolate "--extrapolate: unknown kind 'bogus'; expected none, linear or quadratic" -- \
  -i "$work/in.ldg" --table "$appb" --extrapolate bogus
fails bad-interp "--interp: unknown kind 'spline'" -- -i "$work/in.ldg" --table "$appb" --interp spline
fails no-source "no source given" -- -i "$work/in.ldg"
fails two-sources "mode 0 has two sources \(--table and --forces\)" -- -i "$work/in.ldg" \
  --table "$appb" --forces "$appb"
fails mode-twice "mode 1 is given twice" -- -i "$work/in.ldg" --mode 1 --table "$appb" --mode 1 --table "$appb"
fails degree-table "--degree applies to the fits" -- -i "$work/in.ldg" --table "$appb" --degree 3
fails degree-range "--degree: expected an integer in \[2, 15\]" -- -i "$work/in.ldg" --forces "$appb" --degree 16
fails bad-columns ".*henzel-appendix-b\.tsv: --columns: no column named 'G' \(the header has: eps, F\)" -- -i "$work/in.ldg" --table "$appb" --columns eps,G
head -n 6 "$work/quartic.tsv" > "$work/five.tsv"
fails too-few ".*five\.tsv: 5 samples cannot fit degree 6" -- -i "$work/in.ldg" \
  --forces "$work/five.tsv" --columns eps,F --degree 6
fails missing-bundle ".*nothere\.ldg.*cannot open" -- -i "$work/nothere.ldg" --table "$appb"
printf 'not a bundle at all\n' > "$work/garbage.ldg"
fails garbage-bundle ".*garbage\.ldg" -- -i "$work/garbage.ldg" --table "$appb"
# A later bundle of a stream fails: nothing reaches stdout (the stream is spooled).
cat "$work/in.ldg" "$work/bare.ldg" > "$work/mixed.ldg"
expect_error stream-bundle-2 2 "^energyfit: error: <stdin>: bundle 2: .*no MODE section" -- \
  sh -c '"$1" --table "$2" < "$3"' sh "$energyfit" "$appb" "$work/mixed.ldg"
expect_error stream-bundle-2-file 2 "bundle 2: .*no MODE section" -- \
  "$energyfit" -i "$work/mixed.ldg" --table "$appb" -o "$work/out.ldg"
no_output stream-bundle-2-file
QUIET_STDOUT=0

# --help and --version succeed on stdout
if "$energyfit" --help | grep -q '^usage: energyfit'; then ok; else bad "--help"; fi
if "$energyfit" --version | grep -Eq '^energyfit [0-9]'; then ok; else bad "--version"; fi

echo "test_energyfit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
