/* A rate-limited one-line progress bar. See ldem/progress.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* isatty, fileno, clock_gettime; the build sets it too */
#endif
#include "ldem/progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_BAR_WIDTH 30
#define PROGRESS_REDRAW_SECONDS 0.1 /* ~10 redraws a second: smooth, yet cheap on slow ttys */

static double seconds_between(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

static struct timespec now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

/* "m:ss", or "h:mm:ss" from an hour on. */
static void format_duration(char *buf, size_t size, double seconds)
{
    if (!(seconds >= 0.0))
        seconds = 0.0;
    long s = (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    else
        snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

static double fraction_done(const ldem_progress *p)
{
    return p->total ? (double)p->done / (double)p->total : 1.0;
}

static void draw(ldem_progress *p, struct timespec t, int final)
{
    double frac = fraction_done(p);
    double elapsed = seconds_between(p->start, t);
    /* Floor, and never show 100% before the work is really finished. */
    int pct = (int)floor(100.0 * frac);
    if (pct >= 100 && p->done < p->total)
        pct = 99;
    int filled = (int)floor(PROGRESS_BAR_WIDTH * frac);

    char bar[PROGRESS_BAR_WIDTH + 1];
    memset(bar, '#', (size_t)filled);
    memset(bar + filled, ' ', (size_t)(PROGRESS_BAR_WIDTH - filled));
    bar[PROGRESS_BAR_WIDTH] = '\0';

    char el[32], eta[32];
    format_duration(el, sizeof el, elapsed);
    if (final)
        eta[0] = '\0';
    else if (p->done > 0)
        format_duration(eta, sizeof eta, elapsed * (1.0 - frac) / frac);
    else
        snprintf(eta, sizeof eta, "--:--");

    char line[LDEM_PROGRESS_LABEL_MAX + PROGRESS_BAR_WIDTH + 96];
    int len = snprintf(line, sizeof line, "%s %3d%% [%s] %s%s%s", p->label, pct, bar, el,
                       final ? "" : " ETA ", eta);
    if (len < 0)
        return;
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    /* '\r' and spaces rather than an ANSI erase: a forced bar may go to a plain file. */
    int pad = p->last_len > len ? p->last_len - len : 0;
    fprintf(p->out, "\r%s%*s", line, pad, "");
    p->last_len = len;
    p->drawn = t;
    fflush(p->out);
}

void ldem_progress_begin_on(ldem_progress *p, FILE *out, const char *label, uint64_t total,
                            int force)
{
    memset(p, 0, sizeof *p);
    p->out = out ? out : stderr;
    p->total = total;
    p->enabled = force || isatty(fileno(p->out));
    if (!p->enabled)
        return;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->start = now();
    draw(p, p->start, 0);
}

void ldem_progress_begin(ldem_progress *p, const char *label, uint64_t total, int force)
{
    ldem_progress_begin_on(p, stderr, label, total, force);
}

void ldem_progress_update(ldem_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    p->done = done < p->total ? done : p->total;
    struct timespec t = now();
    if (seconds_between(p->drawn, t) >= PROGRESS_REDRAW_SECONDS)
        draw(p, t, 0);
}

void ldem_progress_end(ldem_progress *p)
{
    if (!p->enabled)
        return;
    draw(p, now(), 1);
    fputc('\n', p->out);
    fflush(p->out);
    p->enabled = 0;
}
