/* Work that may run away (a library looping on a bad input, or growing without bound), run
 * in a forked child process under a time and memory budget.
 *
 * A child can be killed at any moment without leaving the caller's memory or the library's
 * global state half-changed, and setrlimit bounds the child's memory without touching the
 * caller's. The child's result comes back through a pipe, so nothing is left on disk. The
 * parent waits with a deadline; on the deadline, or when the parent itself gets SIGTERM,
 * SIGINT or SIGHUP, it kills the child (SIGKILL: whatever the library does with softer
 * signals) and reaps it, so no child outlives the call. A signal then takes its ordinary
 * course in the parent (it dies of it, exit status 128 + signal in a shell), once the child
 * is gone.
 *
 * The caller's state must not be changed by the work: only the result crosses back. */
#ifndef LDEM_TOOLS_CHILD_TASK_H
#define LDEM_TOOLS_CHILD_TASK_H

#include <stddef.h>

#include "ldem/err.h"

/* AddressSanitizer maps terabytes of shadow memory and its allocator cannot fail cleanly
 * under an address-space limit (it stalls), so in a sanitized build the memory budget is
 * not applied: CHILD_TASK_LIMITS_MEMORY is 0 there. */
#if defined(__SANITIZE_ADDRESS__)
#define CHILD_TASK_LIMITS_MEMORY 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHILD_TASK_LIMITS_MEMORY 0
#endif
#endif
#ifndef CHILD_TASK_LIMITS_MEMORY
#define CHILD_TASK_LIMITS_MEMORY 1
#endif

typedef struct child_budget {
    double timeout_s;    /* wall-clock seconds; 0 = no limit */
    size_t memory_bytes; /* address space the child may map beyond what it inherits from the
                          * parent (RLIMIT_AS); 0 = no limit */
} child_budget;

typedef struct child_task {
    /* For messages: "Gmsh", "remeshing the surface at spacing 0.5", the input the errors
     * name (ldem_err's file; may be NULL), and the option that sets the time budget
     * ("--timeout"; may be NULL). */
    const char *who;
    const char *doing;
    const char *source;
    const char *timeout_option;
    /* In the child: the work; LDEM_OK, or an error status with `err` filled (the error
     * crosses back to the parent as it is). */
    int (*compute)(void *ctx, ldem_err *err);
    /* In the child, after compute succeeded: write the result (child_task_write). */
    int (*send)(void *ctx, int fd, ldem_err *err);
    /* In the parent: where the next `*len` bytes of the result go (memory owned by ctx);
     * *buf = NULL when the result is complete. Called until then. */
    int (*receive)(void *ctx, void **buf, size_t *len, ldem_err *err);
    void *ctx;
} child_task;

/* Run `task` in a child under `budget`. Returns the child's own status and error, or:
 *   LDEM_ERR_INPUT    the time budget ran out ("FILE: Gmsh did not finish within 600 s
 *                     (--timeout) while ..."): the input asks for too much;
 *   LDEM_ERR_INTERNAL the child died (its signal named, and the memory budget, which
 *                     may be why) or broke off its result;
 *   LDEM_ERR_IO       fork, pipe or read failed.
 * If SIGTERM, SIGINT or SIGHUP arrives meanwhile, the child is killed and reaped and the
 * signal is then delivered to the caller as it would have been without this call (by
 * default the process dies of it); if the process survives that (it had a handler), the
 * call returns LDEM_ERR_IO "interrupted". */
int child_task_run(const child_task *task, const child_budget *budget, ldem_err *err);

/* In `send`: write all `len` bytes (a failed write is LDEM_ERR_IO). */
int child_task_write(int fd, const void *buf, size_t len, ldem_err *err);

#endif
