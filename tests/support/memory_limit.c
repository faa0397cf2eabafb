/* Shared by the tests that feed readers and decoders absurd lengths and counts. */
#include "support/memory_limit.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `fn` in a child whose address space may grow by at most `headroom` bytes, so a
 * reader that trusted a length field with malloc would fail (NOMEM, or a sanitizer's
 * out-of-memory abort) instead of getting lucky with overcommit. Returns fn's result, or
 * -1 if the child did not exit normally. */
int run_with_memory_limit(int (*fn)(void *), void *arg, size_t headroom)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (statm) {
            if (fscanf(statm, "%ld", &pages) != 1)
                pages = 0;
            fclose(statm);
        }
        if (pages > 0) {
            rlim_t vm = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
            struct rlimit lim = {vm + headroom, vm + headroom};
            if (setrlimit(RLIMIT_AS, &lim) != 0)
                _exit(90);
        }
        _exit(fn(arg));
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
