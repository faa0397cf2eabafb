/* Private to runtime/sim: the contacts part of a frame as rows, the world's own or, in a
 * distributed run, gathered from every rank at the writing one (output_frame_contacts.c). */
#ifndef LDEM_SIM_FRAME_CONTACTS_H
#define LDEM_SIM_FRAME_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/sim/world.h"

/* One contact in touch, as a frame draws it: from body i's centre to body j's (or to the
 * contact point on a wall), its forces, overlap, history length and the grains' ids (a wall
 * is −1 − its index). key orders rows as the contact list does. */
typedef struct ldem__contact_row {
    uint64_t key;
    double from[3], to[3], fn[3], ft[3], overlap;
    int32_t history_length, i, j, unused;
} ldem__contact_row;

/* The rows in list order into a malloc'd array (*rows; NULL when *n is 0). Under MPI
 * (w->comm) collective: every rank sends the rows of the pairs whose first body it owns and
 * the writing rank gets them all; elsewhere *rows is NULL and *n 0. */
int ldem__frame_contact_rows(const ldem_world *w, ldem__contact_row **rows, size_t *n,
                             ldem_err *err);

#endif
