/* demrun.h — the program's options, parsed by demrun_args.c and run by demrun_run.c. */
#ifndef LDEM_DEMRUN_H
#define LDEM_DEMRUN_H

#include <stddef.h>
#include <stdint.h>

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
} demrun_options;

/* Returns -1 to go on, or an exit status (0 after --help/--version, 2 on a usage error). */
int demrun_parse_args(int argc, char **argv, demrun_options *o);
void demrun_options_free(demrun_options *o);

/* The run; returns the exit status. */
int demrun_run(const demrun_options *o);

#endif
