#!/bin/sh
# libldem and demrun must not need MPI or Zoltan, even in a build that has libldem-mpi: a
# machine running one process installs neither (docs/design.md, "Dependencies").
# usage: check_mpi_free.sh ELF...
status=0
for f in "$@"; do
  bad=$(readelf -d "$f" | grep NEEDED | grep -Ei 'mpi|zoltan|open-pal|open-rte')
  if [ -n "$bad" ]; then
    echo "check_mpi_free: $f needs: $bad" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "check_mpi_free: $# files need neither MPI nor Zoltan"
exit $status
