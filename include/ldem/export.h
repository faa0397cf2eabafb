/* ldem/export.h — which symbols libldem exports.
 *
 * libldem is built with hidden visibility (-fvisibility=hidden): only the declarations marked
 * LDEM_API are part of its ABI, so the library's own helpers (payload cursors, the scene
 * parser's internals, ldem__ names shared between its modules) neither collide with a
 * consumer's symbols nor get interposed, and every call between them is direct. Tests that
 * exercise internals link the static library. */
#ifndef LDEM_EXPORT_H
#define LDEM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define LDEM_API __attribute__((visibility("default")))
#else
#define LDEM_API
#endif

#endif
