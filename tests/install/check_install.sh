#!/usr/bin/env bash
# Install libldem into a scratch prefix and build tests/install/consumer.c against it with
# pkg-config, shared and static. usage: check_install.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
meson setup "$work/build" "$root" --prefix="$work/prefix" -Dvtk_tests=disabled > "$work/setup.log"
meson install -C "$work/build" --quiet > "$work/install.log"
pc=$(dirname "$(find "$work/prefix" -name ldem.pc)")
export PKG_CONFIG_PATH=$pc
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
  "$root/tests/install/consumer.c" -o "$work/consumer" $(pkg-config --cflags --libs ldem)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir ldem) "$work/consumer"
cc -std=c11 -D_POSIX_C_SOURCE=200809L "$root/tests/install/consumer.c" -o "$work/consumer-static" \
  $(pkg-config --cflags ldem) "$(pkg-config --variable=libdir ldem)/libldem.a" \
  $(pkg-config --static --libs-only-other --libs-only-l ldem | sed 's/-lldem//')
"$work/consumer-static"
# The contact laws alone: libldem-contact and ldem-contact.pc, with the exact Jager law in a
# DEM loop of the consumer's own (jager_loop.c checks it against closed forms), and none of
# the runtime's dependencies (yaml, zlib, OpenMP) in the library.
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
  "$work/prefix/share/doc/ldem/examples/jager_loop.c" -o "$work/jager_loop" \
  $(pkg-config --cflags --libs ldem-contact)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir ldem-contact) "$work/jager_loop"
needed=$(readelf -d "$(pkg-config --variable=libdir ldem-contact)/libldem-contact.so" | grep NEEDED)
if echo "$needed" | grep -Eq 'yaml|libz|gomp'; then
  echo "install check: libldem-contact needs more than libm and libc: $needed" >&2; exit 1
fi
# The README's examples call the tools bare: from PATH alone, without LD_LIBRARY_PATH (their
# rpath names the installed library), in a scratch folder.
for tool in lsgen modefit energyfit demrun ldg-info ldg-pack ldg-vtk contact-path; do
  test -x "$work/prefix/bin/$tool" || { echo "install check: $tool not installed" >&2; exit 1; }
done
(cd "$work" && env -i PATH="$work/prefix/bin:/usr/bin:/bin" HOME="$work" sh -c \
  'lsgen sphere --radius 10 --h 1 > sphere.ldg && ldg-info sphere.ldg > /dev/null &&
   demrun --version > /dev/null')
echo "install check: tools on PATH, headers, shared and static library, ldem.pc, ldem-contact.pc and libldem-contact all usable"
