#!/usr/bin/env bash
# libldem's ABI (include/ldem/export.h): the shared library exports only the public ldem_
# names its headers mark LDEM_API; no helper of its own (payload cursors, the scene parser's
# internals), no internal ldem__ name, no OpenMP critical-section lock.
# usage: test_exports.sh LIBRARY...
set -u
status=0
for lib in "$@"; do
  # (AddressSanitizer adds an __odr_asan.NAME indicator for each exported global NAME)
  others=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -v '^ldem_[a-z0-9]' |
    grep -v '^__odr_asan\.ldem_[a-z0-9]')
  count=$(nm -D --defined-only "$lib" | wc -l)
  if [ -n "$others" ]; then
    echo "FAIL: $lib exports symbols outside the ldem_ API:"; echo "$others" | head -20
    status=1
  else
    echo "$lib: $count symbols, all ldem_"
  fi
done
exit $status
