/* Encoding a typed section straight into an in-memory bundle, as every tool that writes
 * bundles does it. */
#ifndef LDEM_TOOLS_PUT_SECTION_H
#define LDEM_TOOLS_PUT_SECTION_H

#include <stdint.h>

#include "ldem/bundle.h"

/* Encode `value` with `encode` (an ldem_*_encode) and hand the payload to bundle `b` under
 * `tag` (the bundle takes ownership); on failure, return the status from the enclosing
 * function. */
#define PUT_SECTION(b, tag, encode, value, err)                                              \
    do {                                                                                     \
        unsigned char *data_ = NULL;                                                         \
        uint64_t len_ = 0;                                                                   \
        int rc_ = encode(value, &data_, &len_, err);                                         \
        if (!rc_)                                                                            \
            rc_ = ldem_bundle_put(b, tag, 0, data_, len_, err);                              \
        if (rc_)                                                                             \
            return rc_;                                                                      \
    } while (0)

#endif
