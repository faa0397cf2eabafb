/* demrun's run: scene → world → steps, with frames, probes, checkpoints and a progress bar.
 *
 * Order matters for what a failed or stopped run leaves on disk: every input (the scene, the
 * checkpoint, the probes table a restart continues) is read and checked before any output is
 * opened, so a refused run changes nothing; and SIGINT/SIGTERM/SIGHUP end the loop between steps,
 * after the step's outputs, with a checkpoint to continue from (demrun_signals.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "demrun.h"
#include "ldem/err.h"
#include "ldem/log.h"
#include "ldem/progress.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/output.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"
#include "ldem/sim/world.h"

typedef struct run {
    ldem_scene scene;
    ldem_world world;
    ldem_frames frames;
    ldem_probes probes;
    int frames_open, probes_open;
    char *checkpoint_path;
    const char *dir;
    int stopped_by; /* the signal that ended the loop before the run's last step, or 0 */
} run;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const ldem_err *err)
{
    ldem_err_print(err, "demrun", stderr);
    return ldem_err_exit_code(err);
}

static int save_checkpoint(run *r, ldem_err *err)
{
    ldem_checkpoint_extra x = {r->frames_open ? r->frames.count : 0,
                               r->frames_open ? r->frames.times : NULL};
    return ldem_checkpoint_save(r->checkpoint_path, &r->world, &x, err);
}

static int probe(run *r, ldem_err *err)
{
    ldem_probe_row row;
    ldem_world_measure(&r->world, &row);
    int rc = ldem_probes_write(&r->probes, &r->world, &row, err);
    if (!rc)
        ldem_walls_interval_restart(&r->world);
    return rc;
}

/* Outputs due after the step just taken (step 0: the initial state). */
static int outputs(run *r, ldem_err *err)
{
    const ldem_scene *s = &r->scene;
    uint64_t step = r->world.step;
    int rc = LDEM_OK;
    if (r->probes_open && s->probe_every && step % s->probe_every == 0)
        rc = probe(r, err);
    if (!rc && r->frames_open && s->frame_every && step % s->frame_every == 0)
        rc = ldem_frames_write(&r->frames, &r->world, err);
    if (!rc && step && s->checkpoint_every && step % s->checkpoint_every == 0)
        rc = save_checkpoint(r, err);
    return rc;
}

/* DIR/packing.tsv: the spheres where the run (or this leg of it) ends. */
static int write_packing(run *r, ldem_err *err)
{
    size_t n = strlen(r->dir) + 32;
    char *path = malloc(n);
    if (!path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    snprintf(path, n, "%s/" DEMRUN_PACKING_NAME, r->dir);
    int rc = ldem_packing_write(path, &r->world, err);
    if (!rc)
        ldem_info("packing of step %llu in %s", (unsigned long long)r->world.step, path);
    free(path);
    return rc;
}

static void summary(const run *r, const char *what)
{
    const ldem_world *w = &r->world;
    size_t nls = 0, ndeform = 0;
    for (size_t i = 0; i < w->bodies.count; i++) {
        nls += w->bodies.kind[i] == LDEM_SHAPE_LSET;
        ndeform += (w->bodies.flags[i] & LDEM_BODY_DEFORMABLE) != 0;
    }
    char deform[96] = "";
    if (ndeform)
        snprintf(deform, sizeof deform, ", %zu deformable with %zu modal DOFs", ndeform,
                 w->modal.ndof);
    ldem_info("%s: %zu grains (%zu level-set%s), %zu walls, %zu materials, dt %.6g, %llu steps",
              what, w->bodies.count, nls, deform, w->nwalls, w->nmaterials, w->dt,
              (unsigned long long)ldem_scene_total_steps(&r->scene, w->dt));
}

/* What opening the outputs would refuse, found without writing: the probes table a restart
 * continues. (The frame times were checked with the checkpoint; a missing earlier frame is
 * only a warning.) */
static int check_outputs(const run *r, const ldem_checkpoint_extra *x, ldem_err *err)
{
    if (x && r->scene.probe_every)
        return ldem_probes_check_resume(r->dir, &r->world, r->world.step, err);
    return LDEM_OK;
}

static int open_outputs(run *r, const ldem_checkpoint_extra *x, ldem_err *err)
{
    const ldem_scene *s = &r->scene;
    demrun_remove_leftovers(r->dir);
    int rc = ldem_output_mkdir(r->dir, err);
    if (rc)
        return rc;
    size_t n = strlen(r->dir) + 32;
    r->checkpoint_path = malloc(n);
    if (!r->checkpoint_path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    snprintf(r->checkpoint_path, n, "%s/" DEMRUN_CHECKPOINT_NAME, r->dir);
    if (s->frame_every) {
        rc = ldem_frames_open(&r->frames, r->dir, &r->world, s->frame_encoding,
                              s->frame_contacts, x ? x->nframes : 0, x ? x->frame_times : NULL,
                              err);
        if (rc)
            return rc;
        r->frames_open = 1;
    }
    if (s->probe_every) {
        rc = ldem_probes_open(&r->probes, r->dir, &r->world, x ? r->world.step : 0, err);
        if (rc)
            return rc;
        r->probes_open = 1;
    }
    return LDEM_OK;
}

static int simulate(run *r, const demrun_options *o, ldem_err *err)
{
    ldem_world *w = &r->world;
    uint64_t total = ldem_scene_total_steps(&r->scene, w->dt);
    uint64_t stop = o->stop_at && o->stop_at < total ? o->stop_at : total;
    if (w->step >= stop) {
        ldem_warn("the checkpoint is at step %llu, the run ends at %llu: nothing to do",
                  (unsigned long long)w->step, (unsigned long long)stop);
        return LDEM_OK;
    }
    ldem_progress bar;
    ldem_progress_begin(&bar, "demrun", stop - w->step, o->progress);
    uint64_t first = w->step;
    double t0 = seconds_now();
    int rc = LDEM_OK;
    while (!rc && w->step < stop) {
        rc = ldem_world_step(w, err);
        if (!rc)
            rc = outputs(r, err);
        ldem_progress_update(&bar, w->step - first);
        /* A signal during the last step changes nothing: the run is complete then. */
        if (!rc && w->step < stop && demrun_stop_signal()) {
            r->stopped_by = demrun_stop_signal();
            break;
        }
    }
    ldem_progress_end(&bar);
    double elapsed = seconds_now() - t0;
    if (rc)
        return rc;
    rc = save_checkpoint(r, err);
    if (rc || r->stopped_by)
        return rc;
    ldem_probe_row row;
    ldem_world_measure(w, &row);
    uint64_t steps = w->step - first;
    ldem_info("%llu steps in %.3f s (%.3g s/step), t = %.6g, %llu contacts, mean history %.3g, "
              "energy balance error %.3g",
              (unsigned long long)steps, elapsed, steps ? elapsed / (double)steps : 0.0, w->t,
              (unsigned long long)row.contacts, row.mean_history, row.balance_error);
    ldem_info("contact geometry and laws: %.3f s of the %.3f s (%.0f %%)", w->time_contacts,
              elapsed, elapsed > 0.0 ? 100.0 * w->time_contacts / elapsed : 0.0);
    return LDEM_OK;
}

/* The one line a stopped run prints, whatever the log level; returns the exit status. */
static int report_stop(const run *r, int sig)
{
    FILE *out = ldem_log_stream();
    if (r->stopped_by)
        fprintf(out, "%s: stopped by %s at step %llu (t = %.6g); continue with --restart %s\n",
                ldem_log_program(), demrun_signal_name(sig), (unsigned long long)r->world.step,
                r->world.t, r->checkpoint_path);
    else
        fprintf(out, "%s: stopped by %s before the run started; nothing was written\n",
                ldem_log_program(), demrun_signal_name(sig));
    fflush(out);
    return 128 + sig;
}

int demrun_run(const demrun_options *o)
{
    /* Before anything takes time: a signal while the scene loads must not kill the run
     * half-way through writing, either. */
    demrun_signals_install();
    /* A run reports what it is doing and how it ended (one line each) unless -q. */
    ldem_log_set_level(o->quiet ? LDEM_LOG_ERROR : LDEM_LOG_INFO);
    run r;
    memset(&r, 0, sizeof r);
    ldem_scene_init(&r.scene);
    ldem_world_init(&r.world);
    ldem_checkpoint_extra x = {0, NULL};
    int early_stop = 0; /* a signal that came before the run opened its outputs */
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_load_limited(&r.scene, o->scene, o->nset, o->sets, o->max_memory, &err);
    if (!rc)
        rc = ldem_scene_build(&r.scene, &r.world, &err);
    if (!rc) {
        if (o->threads)
            r.world.threads = o->threads;
#ifdef _OPENMP
        /* every parallel loop (bodies too, not only contacts) uses the chosen count */
        if (r.world.threads > 0)
            omp_set_num_threads(r.world.threads);
#endif
        r.dir = o->out_dir ? o->out_dir : r.scene.out_dir ? r.scene.out_dir : "out";
        summary(&r, o->scene);
        if (o->check)
            goto done;
        if (o->restart) {
            rc = ldem_checkpoint_load(o->restart, &r.world, &x, &err);
            if (!rc)
                ldem_info("restarting from %s at step %llu (t = %.6g)", o->restart,
                          (unsigned long long)r.world.step, r.world.t);
        } else {
            rc = ldem_world_prepare(&r.world, &err);
        }
    }
    if (!rc)
        rc = check_outputs(&r, o->restart ? &x : NULL, &err);
    if (!rc)
        early_stop = demrun_stop_signal(); /* nothing written yet: stop before anything is */
    if (early_stop)
        goto done;
    if (!rc)
        rc = open_outputs(&r, o->restart ? &x : NULL, &err);
    if (!rc && !o->restart)
        rc = outputs(&r, &err);
    if (!rc)
        rc = simulate(&r, o, &err);
    if (!rc && !r.stopped_by && r.scene.write_packing)
        rc = write_packing(&r, &err);
done:
    if (r.probes_open) {
        ldem_err e2;
        if (ldem_probes_close(&r.probes, &e2) && !rc) {
            err = e2;
            rc = e2.code;
        }
    }
    if (r.frames_open)
        ldem_frames_close(&r.frames);
    int status = rc ? fail(&err) : 0;
    if (!rc && (early_stop || r.stopped_by))
        status = report_stop(&r, early_stop ? early_stop : r.stopped_by);
    free(r.checkpoint_path);
    free(x.frame_times);
    ldem_world_free(&r.world);
    ldem_scene_free(&r.scene);
    return status;
}
