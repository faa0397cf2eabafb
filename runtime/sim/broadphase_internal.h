/* broadphase_internal.h — what the plain (broadphase.c) and periodic (broadphase_periodic.c)
 * searches share; private to the broad phase. */
#ifndef LDEM_SIM_BROADPHASE_INTERNAL_H
#define LDEM_SIM_BROADPHASE_INTERNAL_H

#include <stddef.h>

#include "ldem/sim/broadphase.h"

/* realloc of `count` elements of `size` bytes; -1 on overflow or failure (*p kept). */
int ldem__broadphase_resize(void **p, size_t count, size_t size);
/* Room for `need` elements in *p, growing *capacity geometrically; -1 on failure. */
int ldem__broadphase_reserve(void **p, size_t *capacity, size_t need, size_t size);
/* The periodic search's ghost buffers (NULL is fine). */
void ldem__broadphase_ghosts_free(struct ldem_broadphase_ghosts *g);

#endif
