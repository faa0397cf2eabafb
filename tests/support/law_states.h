/* Tests' typed views of a contact's opaque law state (ldem/sim/world.h keeps it as bytes):
 * the tests that check a law's state through a world know which law the contact has. */
#ifndef LDEM_TESTS_LAW_STATES_H
#define LDEM_TESTS_LAW_STATES_H

#include "ldem/contact/jager.h"
#include "ldem/contact/laws.h"
#include "ldem/contact/mindlin.h"

#define JAGER_STATE(c) (*(ldem_jager_contact *)(void *)(c)->law_state)
#define MINDLIN_STATE(c) (*(ldem_mindlin_contact *)(void *)(c)->law_state)
#define JAGER_STATE_C(c) (*(const ldem_jager_contact *)(const void *)(c)->law_state)
#define MINDLIN_STATE_C(c) (*(const ldem_mindlin_contact *)(const void *)(c)->law_state)

#endif
