/* STL files checked before Gmsh sees them, so that a broken file gets a precise error
 * (Gmsh's own reader guesses, warns on stdout, or reads garbage from a truncated file). */
#ifndef LSGEN_STL_CHECK_H
#define LSGEN_STL_CHECK_H

#include "ldem/err.h"

/* Detect ASCII ("solid" followed by facet lines) or binary (80-byte header, u32 count,
 * 50 bytes per triangle; a header starting with "solid" is recognised by the file size
 * 84 + 50 n or by binary bytes) and check it: empty file, a binary size that does not match
 * its triangle count (a few trailing bytes only warn), ASCII syntax (FILE:LINE) including the
 * one-statement-per-line layout and 254-character lines Gmsh's reader relies on,
 * non-finite vertex coordinates (FILE:LINE for ASCII, triangle index and byte offset for
 * binary), zero triangles. A missing final "endsolid" is accepted with a warning.
 * *ntriangles (may be NULL) receives the count. LDEM_ERR_INPUT on any of these (also a
 * directory, a pipe, or a file that cannot be opened: a user's wrong path, exit 2 like every
 * ldem input), LDEM_ERR_IO (with strerror) if reading an open file fails. */
int lsgen_stl_check(const char *path, size_t *ntriangles, ldem_err *err);

#endif
