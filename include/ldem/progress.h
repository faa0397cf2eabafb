/* ldem/progress.h — a one-line progress bar on stderr.
 *
 *     ldem_progress p;
 *     ldem_progress_begin(&p, "sampling", n, opt_progress);
 *     for (i = 0; i < n; i++) { work(i); ldem_progress_update(&p, i + 1); }
 *     ldem_progress_end(&p);
 *
 * draws "sampling  42% [############                ] 0:12 ETA 0:17", redrawn in place
 * with '\r' at most every 0.1 s, and ends the line at ldem_progress_end(). It is shown only
 * when the stream is a terminal or when forced (a tool's --progress flag), so pipes and log
 * files stay clean by default; it never touches stdout, which carries bundles. A disabled
 * bar costs one branch per call. A bar belongs to one thread (in an OpenMP loop, update it
 * from the master thread); end it before logging, or the message shares the bar's line.
 */
#ifndef LDEM_PROGRESS_H
#define LDEM_PROGRESS_H

#include "ldem/export.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LDEM_PROGRESS_LABEL_MAX 48

typedef struct ldem_progress {
    FILE *out;              /* where the bar is drawn (stderr unless begun with _begin_on) */
    int enabled;            /* 0: every call is a no-op */
    uint64_t total;         /* units of work; 0 counts as already complete */
    uint64_t done;          /* last value passed to update, clamped to total */
    struct timespec start;  /* monotonic time of begin */
    struct timespec drawn;  /* monotonic time of the last redraw */
    int last_len;           /* length of the last line drawn, to blank leftovers */
    char label[LDEM_PROGRESS_LABEL_MAX];
} ldem_progress;

/* Start a bar on stderr; shown if stderr is a terminal or `force` is nonzero. */
LDEM_API void ldem_progress_begin(ldem_progress *p, const char *label, uint64_t total, int force);
/* Same on another stream (tests capture the bar in a file). */
LDEM_API void ldem_progress_begin_on(ldem_progress *p, FILE *out, const char *label, uint64_t total,
                                     int force);
/* Record that `done` of `total` units are finished; redraws when 0.1 s have passed. */
LDEM_API void ldem_progress_update(ldem_progress *p, uint64_t done);
/* Draw the final state (elapsed time instead of the ETA) and end the line. The bar is
 * disabled afterwards, so a second end() is harmless. */
LDEM_API void ldem_progress_end(ldem_progress *p);

#ifdef __cplusplus
}
#endif
#endif
