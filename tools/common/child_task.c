/* Work in a forked child under a time and memory budget (child_task.h).
 *
 * The parent waits in poll() on two pipes: the child's result, and a "self-pipe" that the
 * parent's SIGTERM/SIGINT/SIGHUP handler writes one byte to. The self-pipe (rather than
 * blocking the signals and unblocking them in pselect) matters because the caller may have
 * OpenMP worker threads: a process-directed signal can land on any thread, and only the
 * byte in the pipe is sure to wake the thread that waits.
 *
 * Wire format (one binary on both ends, so raw structs are fine): the child's int32 status,
 * then its ldem_err if the status is an error, else the result as `send` writes it. */
#include "child_task.h"

#include "ldem/memory_budget.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef LDEM_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

/* The child's exit status when valgrind found errors in it. */
#define CHILD_CHECKER_ERRORS 4

#define N_STOP_SIGNALS 3
static const int stop_signals[N_STOP_SIGNALS] = {SIGTERM, SIGINT, SIGHUP};

/* The handler's only state: where to write, and which process it belongs to (a child
 * that gets a signal before it has restored its own handlers must not wake the parent). */
static volatile sig_atomic_t wake_fd = -1;
static volatile sig_atomic_t waiting_pid;

static void note_stop_signal(int sig)
{
    int saved_errno = errno;
    if (wake_fd >= 0 && (pid_t)waiting_pid == getpid()) {
        unsigned char byte = (unsigned char)sig;
        ssize_t ignored = write(wake_fd, &byte, 1); /* full pipe: a byte is there already */
        (void)ignored;
    }
    errno = saved_errno;
}

typedef struct stop_handlers {
    struct sigaction old[N_STOP_SIGNALS];
    int installed[N_STOP_SIGNALS];
    int pipe[2]; /* [0] read by the waiting parent, [1] written by the handler */
} stop_handlers;

static void close_pipe(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
    p[0] = p[1] = -1;
}

/* A signal the caller ignores (SIGINT in a background job) stays ignored. */
static int catch_stop_signals(stop_handlers *h, ldem_err *err)
{
    h->pipe[0] = h->pipe[1] = -1;
    if (pipe(h->pipe) != 0)
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot create a pipe: %s",
                            strerror(errno));
    for (int i = 0; i < 2; i++)
        fcntl(h->pipe[i], F_SETFL, fcntl(h->pipe[i], F_GETFL) | O_NONBLOCK);
    waiting_pid = (sig_atomic_t)getpid();
    wake_fd = h->pipe[1];
    for (int i = 0; i < N_STOP_SIGNALS; i++) {
        h->installed[i] = 0;
        sigaction(stop_signals[i], NULL, &h->old[i]);
        if (!(h->old[i].sa_flags & SA_SIGINFO) && h->old[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = note_stop_signal;
        sigemptyset(&sa.sa_mask);
        h->installed[i] = sigaction(stop_signals[i], &sa, NULL) == 0;
    }
    return LDEM_OK;
}

static void restore_stop_signals(stop_handlers *h)
{
    for (int i = 0; i < N_STOP_SIGNALS; i++)
        if (h->installed[i])
            sigaction(stop_signals[i], &h->old[i], NULL);
    wake_fd = -1;
    close_pipe(h->pipe);
}

/* The signal the handler recorded, or 0. */
static int caught_signal(const stop_handlers *h)
{
    unsigned char byte;
    return read(h->pipe[0], &byte, 1) == 1 ? byte : 0;
}

static const char *signal_name(int sig, char *buf, size_t n)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"},
        {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
        {SIGHUP, "SIGHUP"},   {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    snprintf(buf, n, "signal %d", sig);
    return buf;
}

/* The address space mapped now (Linux: /proc/self/statm; elsewhere 0): the child inherits
 * all of it, and libraries, thread stacks and malloc arenas make it far larger than what
 * is resident, so the budget is counted on top. */
static size_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* In the child: RLIMIT_AS = inherited + budget, never above a limit already in force.
 * Gmsh's allocations then fail (std::bad_alloc) instead of taking the machine. */
static void limit_address_space(size_t inherited, size_t budget)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0)
        return;
    rlim_t want = inherited > (size_t)-1 - budget ? RLIM_INFINITY : (rlim_t)(inherited + budget);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= want)
        return;
    rl.rlim_cur = want;
    setrlimit(RLIMIT_AS, &rl);
}

int child_task_write(int fd, const void *buf, size_t len, ldem_err *err)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot send the result: %s",
                                n < 0 ? strerror(errno) : "nothing written");
        p += n;
        len -= (size_t)n;
    }
    return LDEM_OK;
}

/* Under valgrind, the leak check at the child's exit would report the whole heap it
 * inherited from the parent, which it neither owns nor frees (an error with
 * --errors-for-leak-kinds=all), and valgrind runs it even for a SIGKILL the child sends
 * itself. So there the child reports errors of its own by its exit status before it sends
 * anything, and after sending waits for the parent's SIGKILL, the one end valgrind cannot
 * intercept. Natively these are no-ops. */
static void check_child_under_valgrind(void)
{
#ifdef LDEM_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND && VALGRIND_COUNT_ERRORS > 0)
        _exit(CHILD_CHECKER_ERRORS);
#endif
}

static void wait_for_sigkill_under_valgrind(void)
{
#ifdef LDEM_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        for (;;)
            pause();
#endif
}

/* The child: never returns; its exit status is 0 whenever the whole frame was sent (or it
 * dies of the parent's SIGKILL after that). */
static void run_child(const child_task *t, const child_budget *b, size_t inherited,
                      stop_handlers *h, int fd)
{
    for (int i = 0; i < N_STOP_SIGNALS; i++)
        if (h->installed[i])
            sigaction(stop_signals[i], &h->old[i], NULL);
    close_pipe(h->pipe);
#ifdef __linux__
    /* Die with the parent even if it is killed by SIGKILL (then nobody reaps or kills us). */
    pid_t parent = (pid_t)waiting_pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
#endif
    if (b->memory_bytes && CHILD_TASK_LIMITS_MEMORY)
        limit_address_space(inherited, b->memory_bytes);
    ldem_err err;
    ldem_err_clear(&err);
    int32_t status = t->compute(t->ctx, &err);
    check_child_under_valgrind();
    int st = child_task_write(fd, &status, sizeof status, &err);
    if (!st)
        st = status ? child_task_write(fd, &err, sizeof err, &err) : t->send(t->ctx, fd, &err);
    close(fd);
    if (st)
        _exit(3);
    wait_for_sigkill_under_valgrind();
    _exit(0); /* not exit: atexit handlers and stdio buffers are the parent's */
}

/* ------------------------------------------------------------------ parent -------- */

typedef struct waiter {
    const stop_handlers *h;
    int fd;
    int has_deadline;
    struct timespec deadline;
    int signal; /* SIGNALLED: which */
    int error;  /* READ_FAILED: errno */
} waiter;

enum { GOT_ALL, GOT_EOF, TIMED_OUT, SIGNALLED, READ_FAILED };

/* Milliseconds to the deadline for poll (-1: none; 0: passed), rounded up. */
static int ms_left(const waiter *w)
{
    if (!w->has_deadline)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = 1e3 * (double)(w->deadline.tv_sec - now.tv_sec) +
                1e-6 * (double)(w->deadline.tv_nsec - now.tv_nsec);
    if (ms <= 0)
        return 0;
    return ms >= INT_MAX ? INT_MAX : (int)ms + 1;
}

static int read_exactly(waiter *w, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        int ms = ms_left(w);
        if (ms == 0)
            return TIMED_OUT;
        struct pollfd fds[2] = {{w->h->pipe[0], POLLIN, 0}, {w->fd, POLLIN, 0}};
        int n = poll(fds, 2, ms);
        if (n < 0 && errno != EINTR) {
            w->error = errno;
            return READ_FAILED;
        }
        if (n <= 0)
            continue;
        if (fds[0].revents && (w->signal = caught_signal(w->h)))
            return SIGNALLED;
        if (!fds[1].revents)
            continue;
        ssize_t r = read(w->fd, p + got, len - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0) {
            w->error = errno;
            return READ_FAILED;
        }
        if (r == 0)
            return GOT_EOF;
        got += (size_t)r;
    }
    return GOT_ALL;
}

/* The frame: status, then the error or the result; then the end of the pipe. */
static int receive_frame(const child_task *t, waiter *w, int *child_status, ldem_err *err)
{
    int32_t status;
    int r = read_exactly(w, &status, sizeof status);
    if (r != GOT_ALL)
        return r;
    if (status) {
        r = read_exactly(w, err, sizeof *err);
        err->msg[sizeof err->msg - 1] = '\0';
        err->file[sizeof err->file - 1] = '\0';
    }
    while (!status && r == GOT_ALL) {
        void *buf = NULL;
        size_t len = 0;
        int st = t->receive(t->ctx, &buf, &len, err);
        if (st) {
            *child_status = st;
            return READ_FAILED;
        }
        if (!buf)
            break;
        r = read_exactly(w, buf, len);
    }
    if (r != GOT_ALL)
        return r;
    char extra;
    r = read_exactly(w, &extra, 1);
    *child_status = status;
    return r == GOT_EOF ? GOT_ALL : r == GOT_ALL ? GOT_EOF : r;
}

static int reap(pid_t pid)
{
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    return ws;
}

static int child_died(const child_task *t, const child_budget *b, int ws, int frame_complete,
                      ldem_err *err)
{
    char sigbuf[32], mem[32] = "", hint[96] = "";
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        if (b->memory_bytes && CHILD_TASK_LIMITS_MEMORY && (sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS ||
                                sig == SIGKILL)) {
            ldem_memory_format(b->memory_bytes, mem, sizeof mem);
            snprintf(hint, sizeof hint, " (perhaps out of its memory budget, %s)", mem);
        }
        return ldem_err_set(err, LDEM_ERR_INTERNAL, t->source, 0,
                            "%s crashed (%s) while %s%s", t->who,
                            signal_name(sig, sigbuf, sizeof sigbuf), t->doing, hint);
    }
    int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    return ldem_err_set(err, LDEM_ERR_INTERNAL, t->source, 0,
                        "%s's process exited with status %d %s while %s", t->who, code,
                        code == CHILD_CHECKER_ERRORS ? "as valgrind found errors in it"
                        : frame_complete             ? "after sending its result"
                                                     : "without a result",
                        t->doing);
}

int child_task_run(const child_task *t, const child_budget *b, ldem_err *err)
{
    int result[2];
    if (pipe(result) != 0)
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot create a pipe: %s",
                            strerror(errno));
    stop_handlers h;
    int st = catch_stop_signals(&h, err);
    if (st) {
        close_pipe(result);
        return st;
    }
    size_t inherited = b->memory_bytes ? mapped_bytes() : 0;
    fflush(NULL); /* or the child's first flush of stdout repeats what we buffered */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        restore_stop_signals(&h);
        close_pipe(result);
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot start a process for %s: %s",
                            t->who, strerror(e));
    }
    if (pid == 0) {
        close(result[0]);
        run_child(t, b, inherited, &h, result[1]);
    }
    close(result[1]);
    waiter w = {&h, result[0], b->timeout_s > 0, {0, 0}, 0, 0};
    if (w.has_deadline) {
        clock_gettime(CLOCK_MONOTONIC, &w.deadline);
        double whole = b->timeout_s >= 1e9 ? 1e9 : (double)(long)b->timeout_s;
        w.deadline.tv_sec += (time_t)whole;
        w.deadline.tv_nsec += (long)(1e9 * (b->timeout_s - whole));
        if (w.deadline.tv_nsec >= 1000000000L) {
            w.deadline.tv_sec++;
            w.deadline.tv_nsec -= 1000000000L;
        }
    }
    int child_status = LDEM_OK;
    int r = receive_frame(t, &w, &child_status, err);
    close(result[0]);
    /* Kill the child unless it broke off by itself (then its exit status says why): it is
     * past its work, or must stop now; under valgrind it waits for this. */
    if (r != GOT_EOF)
        kill(pid, SIGKILL);
    int ws = reap(pid);
    /* A signal that reached us while the child was dying of the same one (Ctrl-C reaches
     * the whole process group) is still ours to act on. */
    if (r != SIGNALLED && r != GOT_ALL && (w.signal = caught_signal(&h)))
        r = SIGNALLED;
    restore_stop_signals(&h);
    char opt[64] = "";
    switch (r) {
    case GOT_ALL: /* the result is whole: the child either exited 0 or we killed it */
        if (!(WIFEXITED(ws) && WEXITSTATUS(ws) != 0))
            return child_status;
        return child_died(t, b, ws, 1, err);
    case GOT_EOF:
        return child_died(t, b, ws, 0, err);
    case TIMED_OUT:
        if (t->timeout_option)
            snprintf(opt, sizeof opt, " (%s)", t->timeout_option);
        return ldem_err_set(err, LDEM_ERR_INPUT, t->source, 0,
                            "%s did not finish within %g s%s while %s", t->who, b->timeout_s,
                            opt, t->doing);
    case SIGNALLED: {
        char sigbuf[32];
        raise(w.signal); /* with the caller's disposition back: by default, death */
        return ldem_err_set(err, LDEM_ERR_IO, t->source, 0, "interrupted by %s while %s",
                            signal_name(w.signal, sigbuf, sizeof sigbuf), t->doing);
    }
    default:
        if (child_status) /* receive failed; err says why */
            return child_status;
        return ldem_err_set(err, LDEM_ERR_IO, t->source, 0,
                            "cannot read %s's result: %s", t->who, strerror(w.error));
    }
}
