/* contact_list.h — private to runtime/sim: the candidate list and its shards (contact_list.c). */
#ifndef LDEM_SIM_CONTACT_LIST_H
#define LDEM_SIM_CONTACT_LIST_H

#include "ldem/sim/world.h"

/* Bring the candidate list up to date with the bodies' and walls' positions (broad phase,
 * wall candidates, merge keeping the states of surviving pairs, shard lists). */
int ldem_contacts_refresh(ldem_world *w, ldem_err *err);
/* True when some body or wall moved far enough since the last refresh that a pair may have
 * come within touching distance unseen. */
int ldem_contacts_need_refresh(const ldem_world *w);
/* Group the contact indices by history shard (after a refresh or a restore). */
int ldem_contacts_build_shards(ldem_world *w);
/* Frictional work a contact has done so far (from its law's state). */
double ldem_contact_dissipated(const ldem_world *w, const ldem_contact *c);

#endif
