#!/usr/bin/env bash
# Outputs that are not regular files (issue 35, item 1): a device, a FIFO or a symlink given
# to -o/--vtu must survive being written to (the rename of an atomic write would replace it;
# as root, /dev/null itself), and a directory is refused with exit 2. CI runs this as root.
# usage: test_special_outputs.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/harness.sh"
lsgen=$build/tools/lsgen/lsgen
pack=$build/tools/ldg-pack
info=$build/tools/ldg-info
cpath=("$build/tools/contact-path" --E 1e9 --nu 0.3 --mu 0.5 --R1 1 --R2 1)

"$lsgen" sphere --radius 1 --h 0.25 -o "$work/grain.ldg" || { echo "setup failed"; exit 1; }
printf '1e-6 0 0\n2e-6 1e-7 0\n' > "$work/path.tsv"
# ldg-pack rewrites a bundle byte for byte, so the bytes an output receives can be compared.
rewrite() { "$pack" -i "$work/grain.ldg" -o "$1"; }
no_temporaries() {
  if ls -a "$1" | grep -q '\.tmp\.'; then bad "$2: temporary files left in $1"; else ok; fi
}

# --- character devices: written straight through, never replaced ------------------------
must "lsgen -o /dev/null" -- "$lsgen" sphere --radius 1 --h 0.25 -o /dev/null
[ -c /dev/null ] && ok || bad "/dev/null is no longer a character device: $(ls -l /dev/null)"
must "lsgen --vtu/--vti /dev/null" -- "$lsgen" sphere --radius 1 --h 0.25 -o /dev/null \
  --vtu /dev/null --vti /dev/null
[ -c /dev/null ] && ok || bad "/dev/null replaced by --vtu/--vti: $(ls -l /dev/null)"
must "contact-path -o /dev/null" -- "${cpath[@]}" -o /dev/null "$work/path.tsv"
[ -c /dev/null ] && ok || bad "/dev/null replaced by contact-path: $(ls -l /dev/null)"
no_temporaries /dev "/dev/null"
# /dev/stdout into a pipe: the bytes arrive on the pipe.
"$pack" -i "$work/grain.ldg" -o /dev/stdout | cmp -s - "$work/grain.ldg" && ok \
  || bad "-o /dev/stdout in a pipe did not carry the bundle"

# --- a FIFO: a reader gets the bytes, the FIFO stays a FIFO ------------------------------
mkfifo "$work/fifo"
cat "$work/fifo" > "$work/from-fifo" &
reader=$!
must "ldg-pack -o FIFO" -- rewrite "$work/fifo"
wait "$reader"
cmp -s "$work/from-fifo" "$work/grain.ldg" && ok || bad "the FIFO's reader did not get the bundle"
[ -p "$work/fifo" ] && ok || bad "the FIFO was replaced: $(ls -l "$work/fifo")"
no_temporaries "$work" "FIFO"

# --- symlinks: the link stays, its target gets the new content atomically ----------------
mkdir -p "$work/real" "$work/links"
printf 'old\n' > "$work/real/target.ldg"
ln -s ../real/target.ldg "$work/links/to-file"   # relative: resolved from the link's folder
must "ldg-pack -o symlink" -- rewrite "$work/links/to-file"
[ -L "$work/links/to-file" ] && ok || bad "the symlink was replaced by a file"
cmp -s "$work/real/target.ldg" "$work/grain.ldg" && ok || bad "the symlink's target did not get the bundle"
no_temporaries "$work/links" "symlink (link folder)"
no_temporaries "$work/real" "symlink (target folder)"
# a chain of two links
ln -s to-file "$work/links/to-link"
printf 'old\n' > "$work/real/target.ldg"
must "ldg-pack -o symlink chain" -- rewrite "$work/links/to-link"
[ -L "$work/links/to-link" ] && [ -L "$work/links/to-file" ] && ok || bad "a link of the chain was replaced"
cmp -s "$work/real/target.ldg" "$work/grain.ldg" && ok || bad "the chain's target did not get the bundle"
# a dangling link: the file it names is created (documented in ldem/outfile.h)
ln -s ../real/new.ldg "$work/links/dangling"
must "ldg-pack -o dangling symlink" -- rewrite "$work/links/dangling"
[ -L "$work/links/dangling" ] && cmp -s "$work/real/new.ldg" "$work/grain.ldg" && ok \
  || bad "a dangling link was not written through to the file it names"
# a dangling link into a missing folder is a path to fix: exit 2
ln -s ../nowhere/new.ldg "$work/links/nowhere"
expect_error "dangling symlink into a missing folder" 2 '^ldg-pack: error: .*nowhere' -- \
  rewrite "$work/links/nowhere"
[ -L "$work/links/nowhere" ] && ok || bad "the dangling link was replaced"
# a link to a directory is a directory
ln -s ../real "$work/links/to-dir"
expect_error "symlink to a directory" 2 '^ldg-pack: error: .*to-dir: is a directory' -- \
  rewrite "$work/links/to-dir"

# --- a directory: refused, exit 2, left alone ----------------------------------------------
mkdir -p "$work/adir"
expect_error "lsgen -o directory" 2 '^lsgen: error: .*adir: is a directory' -- \
  "$lsgen" sphere --radius 1 --h 0.25 -o "$work/adir"
expect_error "lsgen --vtu directory" 2 '^lsgen: error: .*adir: is a directory' -- \
  "$lsgen" sphere --radius 1 --h 0.25 -o "$work/x.ldg" --vtu "$work/adir"
[ -d "$work/adir" ] && [ -z "$(ls -A "$work/adir")" ] && ok || bad "the directory was changed"
[ ! -e "$work/x.ldg" ] && ok || bad "a refused --vtu still left the -o output"
no_temporaries "$work" "directory"

# --- a regular file is still replaced atomically: a new inode, the old one untouched --------
printf 'old\n' > "$work/plain.ldg"
ln "$work/plain.ldg" "$work/hardlink"   # a second name of the old inode
must "ldg-pack -o regular file" -- rewrite "$work/plain.ldg"
cmp -s "$work/plain.ldg" "$work/grain.ldg" && [ "$(cat "$work/hardlink")" = old ] && ok \
  || bad "the regular file was not replaced by a rename"
"$info" -q "$work/plain.ldg" && ok || bad "the rewritten bundle does not read back"

echo "test_special_outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
