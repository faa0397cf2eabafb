/* ldg-pack writes only what ldem reads back: a payload given for a known section tag goes
 * through that section's decoder (the same validation ldg-info and demrun apply) before it
 * is put into a bundle. */
#ifndef LDEM_TOOLS_SECTION_CHECK_H
#define LDEM_TOOLS_SECTION_CHECK_H

#include "ldem/bundle.h"
#include "ldem/err.h"

/* LDEM_OK for a tag ldem does not know (carried through as opaque bytes) or a payload its
 * decoder accepts; otherwise the decoder's error (LDEM_ERR_INPUT), naming `source`. */
int section_check(const ldem_section *s, const char *source, ldem_err *err);

#endif
