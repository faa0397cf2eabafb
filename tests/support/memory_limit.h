/* Run a test body under a tight address-space limit, in a child process. */
#ifndef LDEM_TEST_MEMORY_LIMIT_H
#define LDEM_TEST_MEMORY_LIMIT_H

#include <stddef.h>

/* `fn(arg)` runs in a forked child whose address space may grow by at most `headroom`
 * bytes beyond its current size; returns fn's result, or -1 if the child did not exit
 * normally (e.g. killed by a sanitizer's out-of-memory abort). */
int run_with_memory_limit(int (*fn)(void *), void *arg, size_t headroom);

#endif
