/* demrun_signals.c — SIGINT, SIGTERM and SIGHUP ask a run to stop at the end of its current
 * step (SIGHUP: the terminal or ssh session the run was started from has gone).
 *
 * The handler only records the signal: everything else (finishing the step and its outputs,
 * the checkpoint, the message, the exit status) happens in the step loop, which polls
 * demrun_stop_signal() between steps. A second signal while the run writes its checkpoint
 * changes nothing, so files being written are always finished and renamed into place.
 *
 * The flag is written by whichever thread the kernel picks (OpenMP's workers do not block
 * signals) and read by the main thread only; a volatile sig_atomic_t is what a handler may
 * store to, and the loop reads it once per step.
 */
#include <signal.h>
#include <stddef.h>

#include "demrun.h"

static volatile sig_atomic_t stop_signal;

static void record_signal(int sig)
{
    if (!stop_signal) /* the first signal names the stop */
        stop_signal = sig;
}

/* Catch `sig` unless it arrived ignored: a shell starts background jobs with SIGINT ignored
 * (and nohup-like wrappers may ignore SIGTERM), and such a job must stay deaf to it. */
static void catch_unless_ignored(int sig)
{
    struct sigaction old, act;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        return;
    act.sa_handler = record_signal;
    sigemptyset(&act.sa_mask);
    /* restart interrupted system calls: a write in progress must not fail with EINTR */
    act.sa_flags = SA_RESTART;
    sigaction(sig, &act, NULL);
}

void demrun_signals_install(void)
{
    stop_signal = 0;
    catch_unless_ignored(SIGINT);
    catch_unless_ignored(SIGTERM);
    catch_unless_ignored(SIGHUP); /* under nohup it arrives ignored and stays so */
}

int demrun_stop_signal(void)
{
    return stop_signal;
}

const char *demrun_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}
