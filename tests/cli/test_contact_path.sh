#!/usr/bin/env bash
# CLI integration tests for contact-path: exit codes, one-line "contact-path: error: ..."
# messages, FILE:LINE for bad paths, atomic -o, row counts, separated states, both laws.
# The forces themselves are checked against the reference vectors by
# tests/contact/check_reference.py.
# usage: test_contact_path.sh BUILD_TOOLS_DIR
#
# Decision recorded here: an empty path (no data rows: an empty file, or only comments and a
# header) is an error, exit 2, not a header-only table. Every ldem table input behaves so, and
# an empty pipe usually means that the program producing the path failed.
set -u
bin=$1
cp_exe=$bin/contact-path
. "$(dirname "$0")/harness.sh"
# Every error here must leave stdout empty.
QUIET_STDOUT=1

# Glass-like spheres (the reference vectors' material).
params=(--E 70e9 --nu 0.25 --mu 0.3 --R1 0.005 --R2 0.003)
cpath() { "$cp_exe" "${params[@]}" "$@"; }

# Data rows of a contact-path output (the '#' header skipped).
rows() { grep -vc '^#' "$1"; }

# A 3-D path with comments, a header, a blank line, a separation (d < 0) and a touch-down
# state (d = 0): 8 states.
cat > "$work/path.tsv" <<'EOF'
# a 3-D path: load, slide in x, turn to y, separate, touch down, reload
delta	sx	sy
1e-6	0	0
1e-6	1e-7	0

1e-6	1e-7	5e-8
1.2e-6	3e-7	-1e-7
# separation and re-contact
-1e-7	0	0
0	4e-7	0
8e-7	4.5e-7	0
8e-7	3e-7	1e-7
EOF
nstates=8

# --- help and version -----------------------------------------------------------------
"$cp_exe" --help > "$work/help" 2>&1 && grep -q '^usage: contact-path' "$work/help" && ok \
  || bad "--help does not exit 0 with a usage line"
grep -q 'delta sx sy N Tx Ty history_length stored_energy dissipated' "$work/help" && ok \
  || bad "--help does not document the output columns"
"$cp_exe" --version > "$work/ver" 2>&1 && grep -Eq '^contact-path [0-9]+\.[0-9]+' "$work/ver" && ok \
  || bad "--version does not print 'contact-path VERSION': $(cat "$work/ver")"

# --- a good run: one row per state, header first, δ ≤ 0 rows are zero -----------------------
cpath "$work/path.tsv" > "$work/good.tsv" 2> "$work/err" && [ ! -s "$work/err" ] && ok \
  || bad "a good path failed or printed on stderr: $(cat "$work/err")"
[ "$(rows "$work/good.tsv")" -eq "$nstates" ] && ok \
  || bad "$(rows "$work/good.tsv") output rows for $nstates states"
head -n 1 "$work/good.tsv" | grep -q $'^# delta\tsx\tsy\tN\tTx\tTy\thistory_length\tstored_energy\tdissipated$' \
  && ok || bad "first line is not the '#' column header: $(head -n 1 "$work/good.tsv")"
[ "$(grep -c '^#' "$work/good.tsv")" -eq 1 ] && ok || bad "more than one '#' line in the output"
awk -F'\t' '!/^#/ && NF != 9 { exit 1 }' "$work/good.tsv" && ok || bad "an output row has not 9 tab-separated fields"
awk -F'\t' '!/^#/ && $1 <= 0 && ($4 != 0 || $5 != 0 || $6 != 0 || $7 != 0) { exit 1 }' "$work/good.tsv" \
  && ok || bad "a state with delta <= 0 has nonzero force or history: $(grep -v '^#' "$work/good.tsv" | awk -F'\t' '$1 <= 0')"
[ "$(awk -F'\t' '!/^#/ && $1 <= 0' "$work/good.tsv" | wc -l)" -eq 2 ] && ok || bad "expected 2 separated states"
awk -F'\t' '!/^#/ && $1 > 0 && ($4 <= 0 || $7 < 1) { exit 1 }' "$work/good.tsv" && ok \
  || bad "a state in contact has no normal force or an empty history"
# Doubles are printed with 17 digits, so the states come back exactly.
awk -F'\t' 'NR == 5 { exit !($1 == "1.1999999999999999e-06" && $2 == "2.9999999999999999e-07" && $3 == "-9.9999999999999995e-08") }' \
  "$work/good.tsv" && ok || bad "state 4 not echoed with %.17g: $(sed -n 5p "$work/good.tsv")"

# --- stdin: no argument and '-' read the same path ------------------------------------
cpath < "$work/path.tsv" > "$work/stdin1.tsv" && cmp -s "$work/good.tsv" "$work/stdin1.tsv" && ok \
  || bad "reading stdin (no argument) differs from reading the file"
cpath - < "$work/path.tsv" > "$work/stdin2.tsv" && cmp -s "$work/good.tsv" "$work/stdin2.tsv" && ok \
  || bad "reading stdin ('-') differs from reading the file"
cat "$work/path.tsv" | cpath | cmp -s "$work/good.tsv" - && ok || bad "a pipe into contact-path differs"

# --- -o writes the same bytes, atomically ------------------------------------------------
cpath -o "$work/o.tsv" "$work/path.tsv" > "$work/out" && [ ! -s "$work/out" ] && \
  cmp -s "$work/good.tsv" "$work/o.tsv" && ok || bad "-o FILE differs from stdout output"
cpath --output "$work/o2.tsv" "$work/path.tsv" && cmp -s "$work/good.tsv" "$work/o2.tsv" && ok \
  || bad "--output FILE failed"

# --- options of the law ------------------------------------------------------------------
cpath --cache-force "$work/path.tsv" > "$work/cache.tsv" && cmp -s "$work/good.tsv" "$work/cache.tsv" \
  && ok || bad "--cache-force changes the results"
cpath --substeps 7 "$work/path.tsv" > "$work/sub.tsv" && [ "$(rows "$work/sub.tsv")" -eq "$nstates" ] \
  && ok || bad "--substeps 7 does not give one row per state"
cut -f1-3 "$work/sub.tsv" | cmp -s - <(cut -f1-3 "$work/good.tsv") && ok \
  || bad "--substeps changes the reported states (the last substep must land on the state)"
cpath --beta 0.1 "$work/path.tsv" > "$work/beta.tsv" && [ "$(rows "$work/beta.tsv")" -eq "$nstates" ] \
  && ok || bad "--beta 0.1 failed"
cpath --R2 inf "$work/path.tsv" > "$work/flat.tsv" && [ "$(rows "$work/flat.tsv")" -eq "$nstates" ] \
  && ok || bad "--R2 inf (sphere on a flat) failed"
cpath --model jager "$work/path.tsv" | cmp -s "$work/good.tsv" - && ok || bad "--model jager is not the default"

# --- the Mindlin baseline ------------------------------------------------------------------
cpath --model mindlin "$work/path.tsv" > "$work/mindlin.tsv" 2> "$work/err" && ok \
  || bad "--model mindlin failed: $(cat "$work/err")"
[ "$(rows "$work/mindlin.tsv")" -eq "$nstates" ] && ok || bad "--model mindlin: wrong row count"
awk -F'\t' '!/^#/ && (($1 <= 0 && ($4 != 0 || $5 != 0 || $6 != 0 || $7 != 0)) || ($1 > 0 && $7 != 1)) { exit 1 }' \
  "$work/mindlin.tsv" && ok || bad "--model mindlin: separated rows not zero, or history length not 1 in contact"
paste <(cut -f4 "$work/mindlin.tsv") <(cut -f4 "$work/good.tsv") | \
  awk -F'\t' '!/^#/ { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-14 * $2) exit 1 }' && ok \
  || bad "the two laws disagree on the Hertz normal force"
cpath --model mindlin --substeps 3 "$work/path.tsv" > /dev/null && ok || bad "--model mindlin --substeps failed"

# --- usage errors: exit 2, one line, nothing written ------------------------------------------
E='^contact-path: error: '
expect_error "missing --E" 2 "${E}missing --E;.*all required" -- "$cp_exe" --nu 0.25 --mu 0.3 --R1 1 --R2 1 "$work/path.tsv"
expect_error "missing all" 2 "${E}missing --E --nu --mu --R1 --R2;" -- "$cp_exe" "$work/path.tsv"
expect_error "bad number" 2 "${E}--E: 'abc' is not a number$" -- cpath --E abc "$work/path.tsv"
expect_error "trailing junk" 2 "${E}--mu: '0.3x' is not a number$" -- cpath --mu 0.3x "$work/path.tsv"
expect_error "empty number" 2 "${E}--R1: '' is not a number$" -- cpath --R1 '' "$work/path.tsv"
expect_error "inf modulus" 2 "${E}--E: 'inf' is not a finite number$" -- cpath --E inf "$work/path.tsv"
expect_error "nan" 2 "${E}--nu: 'nan' is not a finite number$" -- cpath --nu nan "$work/path.tsv"
expect_error "overflow" 2 "${E}--E: '1e999' is not a finite number$" -- cpath --E 1e999 "$work/path.tsv"
expect_error "R1 inf" 2 "${E}--R1: 'inf' is not a finite number$" -- cpath --R1 inf "$work/path.tsv"
expect_error "R2 -inf" 2 "${E}--R2: '-inf' is not a finite number \(only 'inf'" -- cpath --R2 -inf "$work/path.tsv"
expect_error "unknown model" 2 "${E}--model: 'hertz' is not a model \(jager or mindlin\)$" -- cpath --model hertz "$work/path.tsv"
expect_error "substeps 0" 2 "${E}--substeps: '0' is not a positive integer$" -- cpath --substeps 0 "$work/path.tsv"
expect_error "substeps -3" 2 "${E}--substeps: '-3' is not a positive integer$" -- cpath --substeps -3 "$work/path.tsv"
expect_error "substeps 2.5" 2 "${E}--substeps: '2.5' is not a positive integer$" -- cpath --substeps 2.5 "$work/path.tsv"
expect_error "beta with mindlin" 2 "${E}--beta applies to --model jager only$" -- cpath --model mindlin --beta 0.1 "$work/path.tsv"
expect_error "cache with mindlin" 2 "${E}--cache-force applies to --model jager only$" -- cpath --model mindlin --cache-force "$work/path.tsv"
expect_error "two paths" 2 "${E}unexpected argument" -- cpath "$work/path.tsv" "$work/path.tsv"
# Parameter ranges come from the library (ldem_elastic_pair_init, ldem_*_params_init).
expect_error "E <= 0" 2 "${E}" -- cpath --E -1 "$work/path.tsv"
expect_error "nu > 0.5" 2 "${E}" -- cpath --nu 0.7 "$work/path.tsv"
expect_error "R2 = 0" 2 "${E}" -- cpath --R2 0 "$work/path.tsv"
expect_error "mu = 0" 2 "${E}" -- cpath --mu 0 "$work/path.tsv"
expect_error "mu = 0, mindlin" 2 "${E}" -- cpath --model mindlin --mu 0 "$work/path.tsv"
expect_error "beta > 2" 2 "${E}" -- cpath --beta 3 "$work/path.tsv"
expect_error "beta < 0" 2 "${E}" -- cpath --beta -0.1 "$work/path.tsv"
# An unknown option: getopt names it, then the usual error line; exit 2.
cpath --frobnicate "$work/path.tsv" > "$work/out" 2> "$work/err"
[ $? -eq 2 ] && grep -q "${E}bad usage" "$work/err" && [ ! -s "$work/out" ] && ok \
  || bad "an unknown option does not exit 2 with 'bad usage': $(cat "$work/err")"

# --- bad paths: FILE:LINE, exit 2, no output -------------------------------------------------
printf '# comment\n1e-6 0 0\n1e-6 oops 0\n1e-6 0 0\n' > "$work/p3.tsv"
expect_error "not a number at line 3" 2 "${E}.*p3.tsv:3: column 2: 'oops' is not a number" -- cpath "$work/p3.tsv"
printf '1e-6 0 0\n1e-6 1e-7\n' > "$work/ragged.tsv"
expect_error "ragged row" 2 "${E}.*ragged.tsv:2: 2 columns, but the table has 3" -- cpath "$work/ragged.tsv"
printf 'delta sx\n1e-6 0\n1e-6 1e-7\n' > "$work/two.tsv"
expect_error "two columns" 2 "${E}.*two.tsv:2: expected 3 columns \(delta sx sy\), found 2" -- cpath "$work/two.tsv"
printf '1e-6 0 0 0\n' > "$work/four.tsv"
expect_error "four columns" 2 "${E}.*four.tsv:1: expected 3 columns \(delta sx sy\), found 4" -- cpath "$work/four.tsv"
printf '1e-6 0 0\n1e-6 inf 0\n' > "$work/inf.tsv"
expect_error "inf in path" 2 "${E}.*inf.tsv:2: column 2: 'inf' is not a finite number" -- cpath "$work/inf.tsv"
printf '1e-6 0 0\n1e-6 0 x\n' > "$work/stdin-bad.tsv"
expect_error "stdin line" 2 "${E}<stdin>:2: column 3: 'x' is not a number" -- cpath < "$work/stdin-bad.tsv"
expect_error "missing file" 2 "${E}.*nosuch.tsv: cannot open" -- cpath "$work/nosuch.tsv"
# Empty path (see the decision at the top): exit 2, and no header-only output.
: > "$work/empty.tsv"
expect_error "empty path" 2 "${E}.*empty.tsv:1: no data rows" -- cpath "$work/empty.tsv"
printf '# only a comment\ndelta sx sy\n\n' > "$work/header-only.tsv"
expect_error "header-only path" 2 "${E}.*header-only.tsv:[0-9]+: no data rows" -- cpath "$work/header-only.tsv"
expect_error "empty stdin" 2 "${E}<stdin>:1: no data rows" -- cpath < /dev/null

# --- -o on failure: no new file, old file untouched, no temporary left --------------------
expect_error "bad path with -o" 2 "p3.tsv:3:" -- cpath -o "$work/never.tsv" "$work/p3.tsv"
expect_error "bad option with -o" 2 "--E: 'abc'" -- cpath --E abc -o "$work/never.tsv" "$work/path.tsv"
[ ! -e "$work/never.tsv" ] && ok || bad "a failed run left an output file"
cp "$work/good.tsv" "$work/keep.tsv"
cpath -o "$work/keep.tsv" "$work/p3.tsv" 2> /dev/null
[ $? -eq 2 ] && cmp -s "$work/good.tsv" "$work/keep.tsv" && ok || bad "a failed rewrite damaged the existing output"
cpath --nu 0.7 -o "$work/keep.tsv" "$work/path.tsv" 2> /dev/null
cmp -s "$work/good.tsv" "$work/keep.tsv" && ok || bad "a failed rewrite (bad parameter) damaged the existing output"
ls "$work" | grep -q '\.tmp\.' && bad "temporary files left behind: $(ls "$work")" || ok
# A missing folder is the user's path to fix: bad input, exit 2 (err.h).
expect_error "unwritable output dir" 2 "${E}.*nodir/x.tsv: cannot create output" -- cpath -o "$work/nodir/x.tsv" "$work/path.tsv"

# --- a full disk on stdout is an internal failure (exit 1), not silence ----------------------
if [ -w /dev/full ]; then
  expect_error "stdout full" 1 "${E}<stdout>: write failed" -- sh -c '"$0" "$@" > /dev/full' "$cp_exe" "${params[@]}" "$work/path.tsv"
fi

# --- hostile sizes: refused up front (work) or before the history outgrows --max-memory ------
# A 9-byte path asking for 1e12 steps of the law: refused at once, naming --substeps and the
# limit, instead of running for days.
printf '1e-6 0 0\n' > "$work/nine.tsv"
expect_error "substeps 1e12" 2 "${E}.*nine.tsv: --substeps: 1000000000000 substeps x 1 states = 1e\+12 steps .*see --max-steps" \
  -- cpath --substeps 1e12 "$work/nine.tsv"
expect_error "states x substeps" 2 "${E}.*--substeps: 5 substeps x 8 states = 40 steps .*limit of 39" \
  -- cpath --substeps 5 --max-steps 39 "$work/path.tsv"
cpath --substeps 5 --max-steps 40 "$work/path.tsv" > /dev/null && ok || bad "--max-steps 40 refuses 40 steps"
# Every step of a full history pushes a cell: the pool would outgrow 16 MiB long before 1e8
# steps; refused when it is about to, with the key and the estimate, and no output file.
expect_error "history over --max-memory" 2 "${E}.*nine.tsv:1: --substeps: the load history needs ~[0-9.]+ MiB \(limit 16 MiB; see --max-memory\)$" \
  -- cpath --full-history --substeps 100000000 --max-memory 16M "$work/nine.tsv"
rm -f "$work/never.tsv"
cpath --full-history --substeps 100000000 --max-memory 16M -o "$work/never.tsv" "$work/nine.tsv" 2> /dev/null
[ $? -eq 2 ] && [ ! -e "$work/never.tsv" ] && ok || bad "a refused run left an output file or did not exit 2"
expect_error "bad --max-memory" 2 "${E}--max-memory: '12Q' is not a size" -- cpath --max-memory 12Q "$work/path.tsv"
cpath --max-memory 4G "$work/path.tsv" | cmp -s "$work/good.tsv" - && ok || bad "--max-memory 4G changes a small run"
grep -q -- '--max-memory SIZE' "$work/help" && grep -q -- '--max-steps N' "$work/help" && ok \
  || bad "--help does not document --max-memory and --max-steps"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
