/* body_order.h — the bodies' spatial order (scene key `order: spatial`; private to
 * runtime/sim). */
#ifndef LDEM_SIM_BODY_ORDER_H
#define LDEM_SIM_BODY_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/vec3.h"

/* The order of n points along a Z-order curve through their bounding box: order[k] is the
 * index of the k-th (ties in input order). 0, or −1 when memory ran out. */
int ldem__spatial_order(const ldem_vec3 *x, size_t n, uint32_t *order);

#endif
