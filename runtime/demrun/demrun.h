/* demrun.h — the program's options, parsed by demrun_args.c and run by demrun_run.c. */
#ifndef LDEM_DEMRUN_H
#define LDEM_DEMRUN_H

#include <stddef.h>
#include <stdint.h>

struct ldem_world;
struct ldem_err;

/* A distributed run (demrun-mpi, docs/mpi.md): the world is shared out after it is built,
 * every rank steps, measures and decides alike, and rank 0 alone writes. NULL: one process. */
typedef struct demrun_dist {
    int rank, nranks;
    void *ctx;
    /* share the built world out (collective) */
    int (*attach)(void *ctx, struct ldem_world *w, struct ldem_err *err);
    /* the largest of the ranks' values (collective): a stop signal any rank received */
    int (*agree)(void *ctx, int value);
} demrun_dist;

typedef struct demrun_options {
    const char *scene;          /* SCENE.yaml */
    const char *out_dir;        /* -o: overrides output.dir */
    size_t nset;
    const char **sets;          /* --set KEY=VALUE, in order */
    const char *restart;        /* --restart CHECKPOINT */
    uint64_t stop_at;           /* --stop-at STEP (0: the scene's end) */
    int threads;                /* -j (0: the scene's, else OpenMP's default) */
    int progress;               /* --progress */
    int quiet;                  /* -q */
    int check;                  /* --check: build, print the summary, run nothing */
    uint64_t max_memory;        /* --max-memory bytes (0: the machine's physical memory) */
    const demrun_dist *dist;    /* demrun-mpi's ranks; NULL for one process */
} demrun_options;

/* Returns -1 to go on, or an exit status (0 after --help/--version, 2 on a usage error). */
int demrun_parse_args(int argc, char **argv, demrun_options *o);
void demrun_options_free(demrun_options *o);

/* The run; returns the exit status: 0, 2 for bad input (ldem_err_exit_code), or 128 + the
 * signal when SIGINT, SIGTERM or SIGHUP stopped it (130, 143, 129). */
int demrun_run(const demrun_options *o);

/* Files demrun writes in its output folder besides the probes and the frames. */
#define DEMRUN_CHECKPOINT_NAME "checkpoint.ldc"
#define DEMRUN_PACKING_NAME "packing.tsv"

/* demrun_signals.c: from install on, SIGINT and SIGTERM (unless they arrived ignored) only
 * record that the run should stop; demrun_stop_signal() is that signal's number, 0 if none
 * came. The handler does nothing else, so the step loop decides when to stop. */
void demrun_signals_install(void);
int demrun_stop_signal(void);
const char *demrun_signal_name(int sig);

/* demrun_launch.c: when an MPI launcher started demrun (its environment says so), replace
 * the process by demrun-mpi from demrun's own folder with the same arguments; returns an exit
 * status only if that fails on several ranks (2, said on stderr), -1 to run as one process. */
int demrun_exec_mpi_if_launched(char **argv);

/* demrun_leftovers.c: remove the "*.tmp.XXXXXX" files of demrun's own outputs that a killed
 * run left in DIR and DIR/frames (ldem/outfile.h); other files are never touched. */
void demrun_remove_leftovers(const char *dir);

#endif
