/* demrun_launch.c — `mpirun -np N demrun` runs demrun-mpi (docs/mpi.md).
 *
 * demrun links no MPI (a machine running one process needs none), but users start parallel
 * runs as `mpirun -np N demrun scene.yaml`, and N copies of a one-process run would each
 * compute the whole scene and write the same files over each other. So demrun looks for the
 * rank count the launcher puts in the environment and, started by one, replaces itself by
 * demrun-mpi from its own folder, with the same arguments: on one rank too, so that every
 * rank count writes the same checkpoint bytes. Without demrun-mpi, one rank runs as one
 * process and more are refused. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demrun.h"

/* The ranks the launcher started, from its environment (Open MPI, then MPICH/Hydra and
 * PMIx); 0 when demrun was not started by one. */
static long launcher_ranks(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const char *v = getenv(names[k]);
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (v && *v && !*end && n > 0)
            return n;
    }
    return 0;
}

int demrun_exec_mpi_if_launched(char **argv)
{
    long ranks = launcher_ranks();
    if (ranks < 1)
        return -1;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || (size_t)n >= sizeof self - sizeof "/demrun-mpi") {
        fprintf(stderr, "demrun: error: started on %ld MPI ranks, but cannot find its own "
                        "folder to run demrun-mpi from\n", ranks);
        return 2;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "demrun-mpi");
    if (ranks == 1 && access(self, X_OK) != 0)
        return -1; /* no MPI build: one rank is one process */
    char *const *args = argv;
    execv(self, args);
    int e = errno;
    fprintf(stderr,
            "demrun: error: started on %ld MPI ranks, but %s cannot be run (%s): this demrun "
            "was built without MPI (meson -Dmpi=enabled builds it; docs/mpi.md), and %ld "
            "copies of one process would each run the whole scene\n",
            ranks, self, strerror(e), ranks);
    return 2;
}
