/* Private to the Jäger law: lossless compression of a contact's history (docs/jager.md §5,
 * "Lossless compression").
 *
 * After every push the new top leg is offered to the leg below. They become one leg when
 * their slopes are equal, or when the top leg is pristine (the exact history's own) and the
 * one below is pristine or the contact's growing leg (ldem_jager_chain), and one straight leg
 * through the pair's outer ends passes every junction merged so far within
 * LDEM_JAGER_LOSSLESS_TOLERANCE·μ·z. The merged slope is the chord between the outer ends, so
 * the displacement of every spring outside the pair stays as it was. Junction z_j of a leg
 * based at z0 allows the slopes within ε μ z_j / (z_j − z0) of the chord from z0 to it; the
 * chain keeps one disc inside the intersection of those discs, whose centre moves only when a
 * new junction forces it, so legs that agree to rounding merge however many there are. */
#ifndef LDEM_CONTACT_JAGER_COMPRESS_H
#define LDEM_CONTACT_JAGER_COMPRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "ldem/contact/jager.h"

/* Is leg a (based at z0, `merged` flag ma) the contact's growing leg? */
static inline bool ldem__jager_is_chain(const ldem_jager_chain *ch, double z0, uint8_t ma)
{
    return ma && ch->active && ch->base == z0;
}

/* The cheap necessary condition of ldem__jager_merge_legs, for the hot path: equal slopes, or
 * a pristine top over a pristine or growing leg whose merged slope stays within the new
 * junction's disc. No square root, no division. */
static inline bool ldem__jager_may_merge(double tol, double z0, double z1, double z2,
                                         const double wa[2], uint8_t ma, const double wb[2],
                                         uint8_t mb, const ldem_jager_chain *ch)
{
    if (wa[0] == wb[0] && wa[1] == wb[1])
        return true;
    if (mb || (ma && !ldem__jager_is_chain(ch, z0, ma)))
        return false;
    /* |w − wa| = |wb − wa| (z2 − z1)/(z2 − z0) ≤ tol z1/(z1 − z0), squared and multiplied out */
    double dx = wb[0] - wa[0], dy = wb[1] - wa[1];
    double lhs = (z1 - z0) * (z2 - z1), rhs = tol * z1 * (z2 - z0);
    return (dx * dx + dy * dy) * (lhs * lhs) <= rhs * rhs;
}

/* Merge the top leg (slope wb, flag mb, from z1 up to z2) into the leg below it (slope wa,
 * flag ma, from z0 up to z1)? On true, w and *merged are the merged leg's slope and flag and
 * the chain describes it when it can grow; on false nothing changes. `tol` is ε·μ. */
bool ldem__jager_merge_legs(double tol, double z0, double z1, double z2, const double wa[2],
                            uint8_t ma, const double wb[2], uint8_t mb, ldem_jager_chain *ch,
                            double w[2], uint8_t *merged);

#endif
