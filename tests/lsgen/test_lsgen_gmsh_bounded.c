/* Gmsh in a child process under a budget (tools/lsgen/gmsh_io.h: *_bounded, on
 * tools/common/child_task.h): the same triangles as in-process, Gmsh's errors crossing back
 * unchanged, the time budget killing a slow remesh, a crash named by its signal, the
 * memory budget, and SIGTERM to the parent killing the child first. Every test also checks
 * that no child process is left behind (waitpid: ECHILD). */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_task.h"
#include "ldem/memory_budget.h"
#include "gmsh_io.h"
#include "ldem/mesh.h"

#ifndef LSGEN_TEST_SPHERE20K
#define LSGEN_TEST_SPHERE20K ""
#define NO_TEST_MESHES 1
#endif

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void assert_no_child_left(void)
{
    int ws;
    cr_assert_eq(waitpid(-1, &ws, WNOHANG), -1, "a child process is left");
    cr_assert_eq(errno, ECHILD);
}

static void read_sphere_in_process(ldem_trimesh *m)
{
#ifdef NO_TEST_MESHES
    cr_skip_test("the gmsh program was not found when meson configured the build");
#endif
    ldem_err err;
    ldem_trimesh_init(m);
    cr_assert_eq(lsgen_gmsh_begin(&err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(lsgen_gmsh_read_surface(LSGEN_TEST_SPHERE20K, 0, m, &err), LDEM_OK, "%s",
                 err.msg);
    lsgen_gmsh_end();
}

static void assert_same_mesh(const ldem_trimesh *a, const ldem_trimesh *b)
{
    cr_assert_eq(a->nverts, b->nverts);
    cr_assert_eq(a->ntris, b->ntris);
    cr_assert_eq(memcmp(a->xyz, b->xyz, 3 * a->nverts * sizeof *a->xyz), 0);
    cr_assert_eq(memcmp(a->tri, b->tri, 3 * a->ntris * sizeof *a->tri), 0);
}

static const child_budget generous = {60, 0};

/* Reading and remeshing in a child give the bytes Gmsh gives in-process. */
Test(gmsh_bounded, same_result_as_in_process)
{
    ldem_trimesh direct, bounded, remesh_direct, remesh_bounded;
    read_sphere_in_process(&direct);
    ldem_trimesh_init(&bounded);
    ldem_trimesh_init(&remesh_direct);
    ldem_trimesh_init(&remesh_bounded);
    ldem_err err;
    const child_budget b = {60, (size_t)ldem_memory_machine_bytes()};
    cr_assert_eq(lsgen_gmsh_read_surface_bounded(LSGEN_TEST_SPHERE20K, 0, &b, &bounded, &err),
                 LDEM_OK, "%s", err.msg);
    assert_same_mesh(&direct, &bounded);
    cr_assert_eq(lsgen_gmsh_begin(&err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(lsgen_gmsh_remesh(&direct, 1.5, 40, &remesh_direct, &err), LDEM_OK, "%s",
                 err.msg);
    lsgen_gmsh_end();
    cr_assert_eq(lsgen_gmsh_remesh_bounded(&direct, 1.5, 40, "sphere", &b, &remesh_bounded,
                                           &err),
                 LDEM_OK, "%s", err.msg);
    assert_same_mesh(&remesh_direct, &remesh_bounded);
    ldem_trimesh_free(&direct);
    ldem_trimesh_free(&bounded);
    ldem_trimesh_free(&remesh_direct);
    ldem_trimesh_free(&remesh_bounded);
    assert_no_child_left();
}

/* Gmsh's own refusal of a file comes back as it is (code, file, message). */
Test(gmsh_bounded, errors_cross_back)
{
    char dir[] = "/tmp/lsgen_bounded_XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/garbage.msh", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("not a mesh\n", f);
    fclose(f);
    ldem_err direct, bounded;
    ldem_trimesh m;
    ldem_trimesh_init(&m);
    cr_assert_eq(lsgen_gmsh_begin(&direct), LDEM_OK);
    int st_direct = lsgen_gmsh_read_surface(path, 0, &m, &direct);
    lsgen_gmsh_end();
    int st_bounded = lsgen_gmsh_read_surface_bounded(path, 0, &generous, &m, &bounded);
    unlink(path);
    rmdir(dir);
    cr_assert_eq(st_direct, LDEM_ERR_INPUT, "%s", direct.msg);
    cr_assert_eq(st_bounded, st_direct, "%s", bounded.msg);
    cr_assert_str_eq(bounded.file, direct.file);
    cr_assert_str_eq(bounded.msg, direct.msg);
    cr_assert_eq(m.ntris, 0);
    assert_no_child_left();
}

/* A remesh far finer than the budget allows: stopped at the deadline, LDEM_ERR_INPUT
 * naming the input, the time and the option; nothing returned. */
Test(gmsh_bounded, timeout_stops_a_slow_remesh)
{
    ldem_trimesh in, out;
    read_sphere_in_process(&in);
    ldem_trimesh_init(&out);
    ldem_err err;
    const child_budget b = {0.3, 0};
    double t0 = now_s();
    int st = lsgen_gmsh_remesh_bounded(&in, 0.1, 40, "sphere20k.stl", &b, &out, &err);
    double took = now_s() - t0;
    cr_assert_eq(st, LDEM_ERR_INPUT, "%s", err.msg);
    cr_assert_str_eq(err.file, "sphere20k.stl");
    cr_assert_str_eq(err.msg, "Gmsh did not finish within 0.3 s (--timeout) while remeshing "
                              "the surface at node spacing 0.1");
    cr_assert(took >= 0.3 && took < 2.0, "took %g s", took);
    cr_assert_eq(out.ntris, 0);
    cr_assert_null(out.xyz);
    ldem_trimesh_free(&in);
    assert_no_child_left();
}

/* Gmsh may not add more than its memory budget: a remesh that needs far more fails (Gmsh
 * reports the failed allocation, or dies of it) instead of growing. */
Test(gmsh_bounded, memory_budget_stops_a_large_remesh)
{
    if (!CHILD_TASK_LIMITS_MEMORY)
        cr_skip_test("no memory budget under AddressSanitizer (child_task.h)");
    ldem_trimesh in, out;
    read_sphere_in_process(&in);
    ldem_trimesh_init(&out);
    ldem_err err;
    const child_budget b = {60, (size_t)48 << 20};
    int st = lsgen_gmsh_remesh_bounded(&in, 0.1, 40, "sphere20k.stl", &b, &out, &err);
    cr_assert_neq(st, LDEM_OK);
    cr_assert_neq(st, LDEM_ERR_INPUT, "%s", err.msg); /* not the timeout */
    cr_assert_eq(out.ntris, 0);
    ldem_trimesh_free(&in);
    assert_no_child_left();
}

/* ----------------------------------------------- the runner, with work of our own -------- */

static int no_send(void *ctx, int fd, ldem_err *err)
{
    (void)ctx;
    (void)fd;
    (void)err;
    return LDEM_OK;
}

static int no_receive(void *ctx, void **buf, size_t *len, ldem_err *err)
{
    (void)ctx;
    (void)err;
    *buf = NULL;
    *len = 0;
    return LDEM_OK;
}

/* abort(): AddressSanitizer would turn a SIGSEGV into its report and exit status 1. */
static int crash(void *ctx, ldem_err *err)
{
    (void)ctx;
    (void)err;
    abort();
    return LDEM_OK;
}

Test(child_task, crash_is_named_by_its_signal)
{
    child_task t = {"Worker", "working", "input.dat", NULL, crash, no_send, no_receive, NULL};
    ldem_err err;
    cr_assert_eq(child_task_run(&t, &generous, &err), LDEM_ERR_INTERNAL);
    cr_assert_str_eq(err.file, "input.dat");
    cr_assert_str_eq(err.msg, "Worker crashed (SIGABRT) while working");
    assert_no_child_left();
}

/* Work that ignores SIGTERM and never ends is still stopped at the deadline (SIGKILL). */
static int hang(void *ctx, ldem_err *err)
{
    (void)err;
    signal(SIGTERM, SIG_IGN);
    FILE *f = fopen(ctx, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    for (;;)
        pause();
    return LDEM_OK;
}

static long read_pid(const char *path)
{
    long pid = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    unlink(path);
    return pid;
}

Test(child_task, deadline_kills_work_that_ignores_sigterm)
{
    char pidfile[] = "/tmp/child_task_pid_XXXXXX";
    close(mkstemp(pidfile));
    child_task t = {"Worker", "working", NULL, "--timeout", hang, no_send, no_receive, pidfile};
    const child_budget b = {0.2, 0};
    ldem_err err;
    cr_assert_eq(child_task_run(&t, &b, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.msg, "Worker did not finish within 0.2 s (--timeout) while working");
    long pid = read_pid(pidfile);
    cr_assert_gt(pid, 0);
    cr_assert(kill((pid_t)pid, 0) != 0 && errno == ESRCH, "the worker %ld still runs", pid);
    assert_no_child_left();
}

/* SIGTERM to the parent (from another thread, as from an OpenMP worker's point of view:
 * any thread may receive a process-directed signal): the child is killed and reaped, then
 * the signal takes its course in the parent; here a handler of the caller's own, so the
 * call returns. */
static volatile sig_atomic_t caller_saw;
static void caller_handler(int sig) { caller_saw = sig; }

static void *send_sigterm_soon(void *arg)
{
    (void)arg;
    struct timespec d = {0, 200 * 1000 * 1000};
    nanosleep(&d, NULL);
    kill(getpid(), SIGTERM);
    return NULL;
}

Test(child_task, sigterm_kills_the_child_first)
{
    char pidfile[] = "/tmp/child_task_pid_XXXXXX";
    close(mkstemp(pidfile));
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = caller_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old);
    pthread_t th;
    pthread_create(&th, NULL, send_sigterm_soon, NULL);
    child_task t = {"Worker", "working", NULL, NULL, hang, no_send, no_receive, pidfile};
    ldem_err err;
    double t0 = now_s();
    int st = child_task_run(&t, &generous, &err);
    double took = now_s() - t0;
    pthread_join(th, NULL);
    sigaction(SIGTERM, &old, NULL);
    cr_assert_eq(st, LDEM_ERR_IO);
    cr_assert_str_eq(err.msg, "interrupted by SIGTERM while working");
    cr_assert_eq(caller_saw, SIGTERM, "the caller's handler did not run");
    cr_assert_lt(took, 2.0);
    long pid = read_pid(pidfile);
    cr_assert(pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH, "worker %ld", pid);
    assert_no_child_left();
}
