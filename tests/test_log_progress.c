/* Unit tests of ldem/log.h and ldem/progress.h. Criterion runs every test in its own
 * process, so the global log settings changed here do not leak between tests. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ldem/log.h"
#include "ldem/progress.h"

/* Everything written to `f` so far, NUL-terminated (a static buffer: tests are small). */
static const char *contents(FILE *f)
{
    static char buf[1 << 16];
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

static FILE *capture(void)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f, "tmpfile failed");
    return f;
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static void sleep_seconds(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* ---- log ---- */

Test(log, default_level_is_warn)
{
    FILE *f = capture();
    ldem_log_set_stream(f);
    cr_assert_eq(ldem_log_get_level(), LDEM_LOG_WARN);
    ldem_error("e%d", 1);
    ldem_warn("w%d", 2);
    ldem_info("i%d", 3);
    ldem_debug("d%d", 4);
    cr_assert_str_eq(contents(f), "ldem: error: e1\nldem: warning: w2\n");
}

Test(log, level_filtering)
{
    FILE *f = capture();
    ldem_log_set_stream(f);
    ldem_log_set_program("lsgen");

    ldem_log_set_level(LDEM_LOG_DEBUG);
    ldem_log(LDEM_LOG_INFO, "wrote %s", "a.ldg");
    ldem_log(LDEM_LOG_DEBUG, "cells %d", 8);
    cr_assert_str_eq(contents(f), "lsgen: wrote a.ldg\nlsgen: debug: cells 8\n");

    /* -q: clamped to ERROR; errors are never suppressed */
    FILE *g = capture();
    ldem_log_set_stream(g);
    ldem_log_set_level(LDEM_LOG_WARN - 5);
    cr_assert_eq(ldem_log_get_level(), LDEM_LOG_ERROR);
    cr_assert(!ldem_log_enabled(LDEM_LOG_WARN));
    cr_assert(ldem_log_enabled(LDEM_LOG_ERROR));
    ldem_warn("hidden");
    ldem_info("hidden");
    ldem_error("shown");
    cr_assert_str_eq(contents(g), "lsgen: error: shown\n");

    /* -vvvvv: clamped to DEBUG */
    ldem_log_set_level(LDEM_LOG_WARN + 5);
    cr_assert_eq(ldem_log_get_level(), LDEM_LOG_DEBUG);
    cr_assert(ldem_log_enabled(LDEM_LOG_DEBUG));
}

Test(log, program_prefix_and_newlines)
{
    FILE *f = capture();
    ldem_log_set_stream(f);
    ldem_log_set_program("/usr/local/bin/modefit"); /* argv[0] works */
    cr_assert_str_eq(ldem_log_program(), "modefit");
    ldem_warn("no newline");
    ldem_warn("one newline\n");
    ldem_warn("%s", "");
    cr_assert_str_eq(contents(f), "modefit: warning: no newline\n"
                                  "modefit: warning: one newline\n"
                                  "modefit: warning: \n");
    ldem_log_set_program(NULL);
    cr_assert_str_eq(ldem_log_program(), "ldem");
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ldem_log_set_program(longname);
    cr_assert_eq(strlen(ldem_log_program()), 63, "the name is truncated, not overflowed");
}

Test(log, err_report)
{
    FILE *f = capture();
    ldem_log_set_stream(f);
    ldem_log_set_program("energyfit");
    ldem_err e;
    ldem_err_clear(&e);
    ldem_err_set(&e, LDEM_ERR_INPUT, "t.tsv", 7, "expected 3 columns, got %d", 2);
    ldem_log_err(&e);
    cr_assert_str_eq(contents(f), "energyfit: error: t.tsv:7: expected 3 columns, got 2\n");
}

/* By default messages go to stderr, and never to stdout. */
Test(log, default_stream_is_stderr, .init = cr_redirect_stderr)
{
    ldem_log_set_program("demrun");
    cr_assert_eq(ldem_log_stream(), stderr);
    ldem_warn("step %d", 3);
    fflush(stderr);
    cr_assert_stderr_eq_str("demrun: warning: step 3\n");
}

/* ---- progress ---- */

Test(progress, disabled_when_not_a_tty_and_not_forced)
{
    FILE *f = capture(); /* a regular file is not a terminal */
    ldem_progress p;
    ldem_progress_begin_on(&p, f, "sampling", 100, 0);
    cr_assert_eq(p.enabled, 0);
    for (uint64_t i = 1; i <= 100; i++)
        ldem_progress_update(&p, i);
    ldem_progress_end(&p);
    cr_assert_str_eq(contents(f), "", "a disabled bar must write nothing");
}

Test(progress, forced_bar_shows_label_and_100_percent)
{
    FILE *f = capture();
    ldem_progress p;
    ldem_progress_begin_on(&p, f, "sampling", 1000, 1);
    cr_assert(p.enabled);
    for (uint64_t i = 1; i <= 1000; i++)
        ldem_progress_update(&p, i);
    ldem_progress_end(&p);
    const char *s = contents(f);
    cr_assert_not_null(strstr(s, "sampling"), "label missing: \"%s\"", s);
    cr_assert_not_null(strstr(s, "  0%"), "first draw at 0%%: \"%s\"", s);
    /* the final line: 100%, a full bar, and it ends the line */
    const char *last = strrchr(s, '\r');
    cr_assert_not_null(last);
    cr_assert_not_null(strstr(last, "sampling 100% [##############################]"),
                       "final line: \"%s\"", last);
    cr_assert_null(strstr(last, "ETA"), "the final line shows elapsed time only");
    cr_assert_eq(s[strlen(s) - 1], '\n');
    cr_assert_eq(count_char(s, '\n'), 1);
    /* a second end is harmless */
    ldem_progress_end(&p);
    cr_assert_eq(count_char(contents(f), '\n'), 1);
}

Test(progress, eta_and_never_100_before_done)
{
    FILE *f = capture();
    ldem_progress p;
    ldem_progress_begin_on(&p, f, "fit", 1000, 1);
    sleep_seconds(0.12); /* past the redraw interval */
    ldem_progress_update(&p, 500);
    const char *s = contents(f);
    const char *last = strrchr(s, '\r');
    cr_assert_not_null(strstr(last, " 50% [###############               ]"), "\"%s\"", last);
    const char *eta = strstr(last, "ETA ");
    cr_assert_not_null(eta, "\"%s\"", last);
    cr_assert(eta[4] >= '0' && eta[4] <= '9', "an estimate once work is done: \"%s\"", last);

    sleep_seconds(0.12);
    ldem_progress_update(&p, 999);
    last = strrchr(contents(f), '\r');
    cr_assert_not_null(strstr(last, " 99%"), "999/1000 must not round up: \"%s\"", last);

    /* updates past the total are clamped */
    sleep_seconds(0.12);
    ldem_progress_update(&p, 5000);
    last = strrchr(contents(f), '\r');
    cr_assert_not_null(strstr(last, "100%"), "\"%s\"", last);
    ldem_progress_end(&p);
}

Test(progress, shorter_redraw_blanks_the_old_line)
{
    FILE *f = capture();
    ldem_progress p;
    ldem_progress_begin_on(&p, f, "x", 10, 1);
    int first = (int)strlen(contents(f)) - 1; /* without the '\r' */
    ldem_progress_end(&p);
    const char *last = strrchr(contents(f), '\r') + 1;
    /* "ETA --:--" is gone, so the final line is padded with spaces to the old length */
    cr_assert_eq((int)strlen(last), first + 1, "\"%s\"", last);
    cr_assert_eq(last[first - 1], ' ');
}

Test(progress, zero_total_is_complete)
{
    FILE *f = capture();
    ldem_progress p;
    ldem_progress_begin_on(&p, f, "nothing", 0, 1);
    ldem_progress_end(&p);
    cr_assert_not_null(strstr(strrchr(contents(f), '\r'), "nothing 100%"));
}

static double seconds_since(struct timespec t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* ~10 redraws a second, however often update() is called: hammer it for 0.35 s. */
Test(progress, redraws_are_rate_limited)
{
    FILE *f = capture();
    struct timespec t0;
    ldem_progress p;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ldem_progress_begin_on(&p, f, "busy", UINT64_C(1) << 40, 1);
    uint64_t calls = 0;
    while (seconds_since(t0) < 0.35)
        for (int k = 0; k < 1000; k++)
            ldem_progress_update(&p, ++calls);
    ldem_progress_end(&p);
    double elapsed = seconds_since(t0);
    int draws = count_char(contents(f), '\r');
    cr_log_info("%d draws in %.3f s for %llu updates", draws, elapsed, (unsigned long long)calls);
    /* begin + end + at most one per 0.1 s in between; and the bar does move meanwhile */
    cr_assert_leq(draws, 2 + (int)(elapsed / 0.1), "%d draws in %.3f s", draws, elapsed);
    cr_assert_geq(draws, 3, "%d draws in %.3f s: the bar should redraw meanwhile", draws,
                  elapsed);
}

/* The bar goes to stderr: with stderr not a terminal it is silent unless forced, and in no
 * case does anything reach stdout, which carries bundles. */
static char stderr_path[64];

static void stderr_to_file(void)
{
    cr_redirect_stdout();
    strcpy(stderr_path, "/tmp/ldem-test-stderr-XXXXXX");
    int fd = mkstemp(stderr_path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_not_null(freopen(stderr_path, "w+", stderr));
}

static void remove_stderr_file(void)
{
    unlink(stderr_path);
}

Test(progress, default_stream_never_stdout, .init = stderr_to_file, .fini = remove_stderr_file)
{
    ldem_progress p;
    ldem_progress_begin(&p, "quiet", 10, 0);
    cr_assert_eq(p.out, stderr);
    cr_assert_eq(p.enabled, 0, "stderr is a file, not a terminal");
    ldem_progress_update(&p, 10);
    ldem_progress_end(&p);
    cr_assert_str_eq(contents(stderr), "");

    ldem_progress_begin(&p, "forced", 10, 1);
    ldem_progress_update(&p, 10);
    ldem_progress_end(&p);
    cr_assert_not_null(strstr(contents(stderr), "forced 100%"));

    fflush(stdout);
    cr_assert_stdout_eq_str("");
}
