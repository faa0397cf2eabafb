/* ldem/contact/jager_stored.h — a Jäger contact's stored energy in O(1) amortized per step.
 *
 * ldem_jager_stored_energy walks the whole history stack, O(stack) per call: a caller that
 * wants the energy after every step of a long path (contact-path prints it on every row)
 * pays O(steps × stack), minutes for a 200k-state path. This tracker keeps, for every cell
 * below the top, V(z) = ∫_0^z w dζ at the cell's top and the prefix integrals ∫V dx and
 * ∫|V|² dx from the contact's centre up to it. The springs' displacement is
 * U(z) = V(d) − V(z), so
 *
 *   ∫|U|² dx = |V(d)|² x_top − 2 V(d)·∫V dx + ∫|V|² dx   (cells below the top)
 *            + |w_top|² ∫(d − z)² dx                      (the top cell, fresh each time)
 *
 * A step changes only the top two cells of the resulting stack (it pushes at most one cell,
 * swallows cells above the slip front, cuts the front's cell, merges into the cell below the
 * top): ldem_jager_stored_update walks down from the top comparing each cell (base, slope and
 * top level, bit for bit) with what it recorded for that position from the bottom, and stops
 * at the first that agrees; everything below it is then unchanged. So it must be called
 * after every step (every ldem_jager_move_to), not only when the energy is wanted: between
 * two calls more than two cells may change, and a recorded cell could then agree by chance
 * with a new one over a changed stack.
 *
 * Agreement with ldem_jager_stored_energy: the prefix sums are long double; the difference is
 * within 1e-12 of the full-slip scale μ²d²√(R*d)·G*κ² (tests/test_contact_jager_stored.c
 * measures it on a long random 3-D path). */
#ifndef LDEM_CONTACT_JAGER_STORED_H
#define LDEM_CONTACT_JAGER_STORED_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/contact/jager.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One stack position below the top, counted from the bottom. */
typedef struct ldem_jager_stored_cell {
    double base, w[2], top;     /* the cell as recorded: its key */
    long double v_top[2];       /* V at its top level */
    long double sum_v[2];       /* ∫ V dx from x = 0 to its top */
    long double sum_vv;         /* ∫ |V|² dx from x = 0 to its top */
} ldem_jager_stored_cell;

typedef struct ldem_jager_stored {
    ldem_jager_stored_cell *cell;
    uint32_t count;             /* positions recorded (the stack's length − 1, or 0) */
    uint32_t capacity;
} ldem_jager_stored;

/* Bytes the tracker holds per history cell of the contact. */
LDEM_API size_t ldem_jager_stored_bytes_per_cell(void);

LDEM_API void ldem_jager_stored_init(ldem_jager_stored *t);
LDEM_API void ldem_jager_stored_free(ldem_jager_stored *t);

/* Catch up with the contact after one step. LDEM_OK, or LDEM_ERR_NOMEM (the tracker is then
 * empty and catches up fully at the next call). */
LDEM_API int ldem_jager_stored_update(ldem_jager_stored *t, const ldem_jager_params *p,
                                      const ldem_history_pool *pool, const ldem_jager_contact *c);

/* The stored tangential elastic energy, as ldem_jager_stored_energy, after an update. */
LDEM_API double ldem_jager_stored_energy_tracked(const ldem_jager_stored *t,
                                                 const ldem_jager_params *p,
                                                 const ldem_history_pool *pool,
                                                 const ldem_jager_contact *c);

#ifdef __cplusplus
}
#endif
#endif
