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
#include "ldem/sim/initial_overlaps.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/output.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/stages.h"
#include "ldem/sim/step.h"
#include "ldem/sim/world.h"

typedef struct run {
    ldem_scene scene;
    ldem_world world;
    ldem_frames frames;
    ldem_probes probes;
    int frames_open, probes_open;
    char *checkpoint_path;
    char *dir;      /* a copy: a staged run replaces the scene it came from */
    int stopped_by; /* the signal that ended the loop before the run's last step, or 0 */
    const demrun_options *o;
    /* a staged run (scene.nstages > 0): the stage running (nstages once all have ended),
     * and the step and time at which it began */
    ldem_checkpoint_stage stage;
    int world_built; /* a stage's world was built: later builds need not log it again */
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

static int save_checkpoint_to(run *r, const char *path, ldem_err *err)
{
    ldem_checkpoint_extra x = {r->frames_open ? r->frames.count : 0,
                               r->frames_open ? r->frames.times : NULL};
    return ldem_checkpoint_save_staged(path, &r->world, &x,
                                       r->scene.nstages ? &r->stage : NULL, err);
}

static int save_checkpoint(run *r, ldem_err *err)
{
    return save_checkpoint_to(r, r->checkpoint_path, err);
}

/* The world of stage `k`: its scene (file, --set, the stages' sets up to k) built anew. */
static int build_stage(run *r, size_t k, ldem_err *err)
{
    ldem_world_free(&r->world);
    ldem_scene_free(&r->scene);
    const demrun_options *o = r->o;
    /* The world of a stage that follows another is the same but for its drives: what its
     * build would log (dt: auto, sizes) was said when the run began. */
    int level = ldem_log_get_level();
    if (r->world_built && level > LDEM_LOG_WARN)
        ldem_log_set_level(LDEM_LOG_WARN);
    int rc = ldem_scene_load_stage(&r->scene, o->scene, o->nset, o->sets, o->max_memory, k,
                                   err);
    if (!rc)
        rc = ldem_scene_build(&r->scene, &r->world, err);
    ldem_log_set_level(level);
    r->world_built = 1;
    if (!rc && o->threads)
        r->world.threads = o->threads;
    r->world.staged = 1;
    r->world.stage = (uint32_t)k;
    return rc;
}

/* After a step: end the stage if its criteria hold. Its end is saved to DIR/stage-NAME.ldc
 * (and DIR/checkpoint.ldc) as the next stage's beginning, and that file restored into the next stage's world: what
 * `--restart DIR/stage-NAME.ldc` with the next stage's --set does. *finished: the last
 * stage has ended. */
static int advance_stage(run *r, int *finished, ldem_err *err)
{
    *finished = 0;
    size_t k = r->stage.stage;
    if (!r->scene.nstages || k >= r->scene.nstages)
        return LDEM_OK;
    const ldem_scene_stage *st = &r->scene.stages[k];
    char why[512];
    int verdict = ldem_stage_check(&st->until, &r->world, &r->stage, why, sizeof why);
    if (verdict == LDEM_STAGE_GOES_ON)
        return LDEM_OK;
    ldem_world *w = &r->world;
    if (verdict == LDEM_STAGE_DONE)
        ldem_info("stage %s ended at step %llu (t = %.6g): %s", st->name,
                  (unsigned long long)w->step, w->t, why);
    else
        ldem_warn("stage %s reached its cap at step %llu (t = %.6g) before: %s", st->name,
                  (unsigned long long)w->step, w->t, why);
    size_t n = strlen(r->dir) + strlen(st->name) + 16;
    char *path = malloc(n);
    if (!path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    snprintf(path, n, "%s/stage-%s.ldc", r->dir, st->name);
    r->stage = (ldem_checkpoint_stage){.present = 1, .stage = (uint32_t)(k + 1),
                                        .step = w->step, .t = w->t};
    int rc = save_checkpoint_to(r, path, err);
    /* and the rolling one: a run killed later continues from the last stage's end at worst */
    if (!rc)
        rc = save_checkpoint(r, err);
    if (!rc && k + 1 == r->scene.nstages)
        *finished = 1;
    else if (!rc)
        rc = build_stage(r, k + 1, err);
    if (!rc && !*finished)
        rc = ldem_checkpoint_load(path, &r->world, NULL, err);
    /* the next stage's world is new: share it out again (every rank restored every pair) */
    if (!rc && !*finished && r->o->dist)
        rc = r->o->dist->attach(r->o->dist->ctx, &r->world, err);
    free(path);
    return rc;
}

static int probe(run *r, ldem_err *err)
{
    ldem_probe_row row;
    ldem_world_measure(&r->world, &row); /* collective in a distributed run */
    if (!r->probes_open)
        return LDEM_OK; /* a rank other than 0 */
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
    if ((r->probes_open || r->o->dist) && s->probe_every && step % s->probe_every == 0)
        rc = probe(r, err);
    int frame_due = s->frame_every && step % s->frame_every == 0;
    if (!rc && r->frames_open && frame_due)
        rc = ldem_frames_write(&r->frames, &r->world, err);
    else if (!rc && frame_due && s->frame_contacts && r->o->dist) /* rank 0 writes them */
        rc = ldem_frames_share_contacts(&r->world, err);
    if (!rc && step && s->checkpoint_every && step % s->checkpoint_every == 0)
        rc = save_checkpoint(r, err); /* collective in a distributed run: rank 0 writes */
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
    char length[64];
    uint64_t total = ldem_scene_total_steps(&r->scene, w->dt);
    if (r->scene.nstages && total == UINT64_MAX)
        snprintf(length, sizeof length, "%zu stages", r->scene.nstages);
    else
        snprintf(length, sizeof length, "%llu steps%s", (unsigned long long)total,
                 r->scene.nstages ? " at most, in stages" : "");
    ldem_info("%s: %zu grains (%zu level-set%s), %zu walls, %zu materials, dt %.6g, %s", what,
              w->bodies.count, nls, deform, w->nwalls, w->nmaterials, w->dt, length);
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
    if (r->o->dist && r->o->dist->rank != 0)
        return LDEM_OK; /* rank 0 writes */
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
    if (r->scene.nstages && r->stage.stage >= r->scene.nstages) {
        ldem_warn("the checkpoint is at the end of the last stage: nothing to do");
        return LDEM_OK;
    }
    ldem_progress bar;
    ldem_progress_begin(&bar, "demrun", stop - w->step, o->progress);
    uint64_t first = w->step;
    double t0 = seconds_now();
    int rc = LDEM_OK, finished = 0;
    /* A restart at a step of its stage: the run it continues checked the stage's end there
     * after saving (the criteria read only restored state, so the verdict is the same). */
    if (r->scene.nstages && w->step > r->stage.step)
        rc = advance_stage(r, &finished, err);
    while (!rc && !finished && w->step < stop) {
        rc = ldem_world_step(w, err);
        if (!rc && r->scene.nstages)
            ldem_stage_accumulate(&r->scene.stages[r->stage.stage].until, &r->stage, w);
        /* The outputs first: this step belongs to the stage that ran it, as in separate
         * runs. A checkpoint written here still records that stage; a restart from it
         * checks the stage's end again before its first step (below). */
        if (!rc)
            rc = outputs(r, err);
        if (!rc)
            rc = advance_stage(r, &finished, err);
        ldem_progress_update(&bar, w->step - first);
        /* A signal during the last step changes nothing: the run is complete then. */
        /* every rank stops at the same step: a signal one rank got stops them all */
        int sig = demrun_stop_signal();
        if (o->dist)
            sig = o->dist->agree(o->dist->ctx, sig);
        if (!rc && !finished && w->step < stop && sig) {
            r->stopped_by = sig;
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

/* A restart of a staged run continues the checkpoint's stage, in that stage's world (the
 * checkpoint was loaded into the first stage's, whose static description is the same). A
 * checkpoint without a stage (a run in one piece) begins the first stage where it is. */
static int restart_stage(run *r, ldem_checkpoint_extra *x, ldem_err *err)
{
    if (!r->scene.nstages)
        return LDEM_OK;
    if (!r->stage.present) {
        r->stage = (ldem_checkpoint_stage){.present = 1, .step = r->world.step,
                                            .t = r->world.t};
        return LDEM_OK;
    }
    if (r->stage.stage == 0 || r->stage.stage >= r->scene.nstages)
        return LDEM_OK;
    free(x->frame_times);
    x->frame_times = NULL;
    int rc = build_stage(r, r->stage.stage, err);
    if (!rc)
        rc = ldem_checkpoint_load(r->o->restart, &r->world, x, err);
    return rc;
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
    r.o = o;
    int rc = ldem_scene_load_limited(&r.scene, o->scene, o->nset, o->sets, o->max_memory, &err);
    int staged = !rc && r.scene.nstages;
    if (staged) {
        /* every stage's world is built to be checked: only the first stage's says what */
        int level = ldem_log_get_level();
        if (level > LDEM_LOG_WARN)
            ldem_log_set_level(LDEM_LOG_WARN);
        rc = ldem_stages_validate(&r.scene, o->nset, o->sets, &err);
        ldem_log_set_level(level);
        if (!rc)
            rc = build_stage(&r, 0, &err);
        r.stage = (ldem_checkpoint_stage){.present = 1};
    } else if (!rc) {
        rc = ldem_scene_build(&r.scene, &r.world, &err);
    }
    /* a checkpoint's contacts overlap by design: only a new run is checked */
    if (!rc && !o->restart)
        rc = ldem_scene_check_initial_overlaps(&r.scene, &r.world, &err);
    if (!rc) {
        if (o->threads)
            r.world.threads = o->threads;
#ifdef _OPENMP
        /* every parallel loop (bodies too, not only contacts) uses the chosen count */
        if (r.world.threads > 0)
            omp_set_num_threads(r.world.threads);
#endif
        r.dir = strdup(o->out_dir ? o->out_dir : r.scene.out_dir ? r.scene.out_dir : "out");
        if (!r.dir) {
            rc = ldem_err_set(&err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        summary(&r, o->scene);
        if (o->check)
            goto done;
        if (o->restart) {
            rc = ldem_checkpoint_load_staged(o->restart, &r.world, &x,
                                             staged ? &r.stage : NULL, &err);
            rc = rc ? rc : restart_stage(&r, &x, &err);
            /* every rank restored every pair; each keeps its own */
            if (!rc && o->dist)
                rc = o->dist->attach(o->dist->ctx, &r.world, &err);
            if (!rc)
                ldem_info("restarting from %s at step %llu (t = %.6g)", o->restart,
                          (unsigned long long)r.world.step, r.world.t);
        } else {
            if (o->dist)
                rc = o->dist->attach(o->dist->ctx, &r.world, &err);
            if (!rc)
                rc = ldem_world_prepare(&r.world, &err);
        }
    }
    if (!rc)
        rc = check_outputs(&r, o->restart ? &x : NULL, &err);
    if (!rc)
        early_stop = o->dist ? o->dist->agree(o->dist->ctx, demrun_stop_signal())
                             : demrun_stop_signal(); /* nothing written yet: stop now */
    if (early_stop)
        goto done;
    if (!rc)
        rc = open_outputs(&r, o->restart ? &x : NULL, &err);
    if (!rc && !o->restart)
        rc = outputs(&r, &err);
    if (!rc)
        rc = simulate(&r, o, &err);
    if (!rc && !r.stopped_by && r.scene.write_packing && (!o->dist || o->dist->rank == 0))
        rc = write_packing(&r, &err); /* every rank holds every body */
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
    if (!rc && (early_stop || r.stopped_by)) {
        status = 128 + (early_stop ? early_stop : r.stopped_by);
        if (!o->dist || o->dist->rank == 0) /* rank 0 speaks for the run */
            status = report_stop(&r, early_stop ? early_stop : r.stopped_by);
    }
    free(r.checkpoint_path);
    free(r.dir);
    free(x.frame_times);
    ldem_world_free(&r.world);
    ldem_scene_free(&r.scene);
    return status;
}
