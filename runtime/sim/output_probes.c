/* output_probes.c — the probes table DIR/probes.tsv (ldem/sim/output.h).
 *
 * A plain TSV that ldem_tsv_read and every plotting tool read: a "# demrun probes" comment,
 * one line of column names, then one row per sample. Doubles are written with %.17g so a
 * value reads back bit for bit; each row is flushed so a killed run keeps every finished
 * row. A restarted run rewrites the table up to its checkpoint's step (atomically, through
 * ldem_outfile) and appends from there, so the table reads as one uninterrupted run.
 */
#include "ldem/sim/output.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/log.h"
#include "ldem/outfile.h"
#include "ldem/sim/measure.h"
#include "periodic.h"

#define PROBES_TITLE "# demrun probes\n"

static const char *const COLUMNS[] = {
    "t",
    "step",
    "kinetic",
    "potential",
    "stored_normal",
    "stored_tangential",
    "dissipated",
    "damped",
    "work_walls",
    "balance_error",
    "contacts",
    "mean_history",
    "history_bytes",
    "history_cells",
    "max_history",
    "modal_kinetic",
    "modal_elastic",
};
#define NCOLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

/* Per wall: the force the grains exert on it, its displacement, then that force's mean over
 * the force evaluations since the previous row (this row's included: a servo that chatters
 * shows there, where the instantaneous force may catch the same phase every row). */
static const char *const WALL_COLUMNS[] = {"fx", "fy", "fz", "dx", "dy", "dz",
                                           "fx_mean", "fy_mean", "fz_mean"};
#define NWALL_COLUMNS (sizeof WALL_COLUMNS / sizeof WALL_COLUMNS[0])

/* After those, on every wall: the servo's target normal force, the velocity along the
 * normal chosen for the next step, and how often it changed sign since the previous row.
 * Every wall has them, servo or not (target and flips are 0 without a servo), because a
 * staged run may turn a wall into a servo in a later stage while the table's columns are
 * fixed when it opens. */
static const char *const SERVO_COLUMNS[] = {"target", "vn", "flips"};
#define NSERVO_COLUMNS (sizeof SERVO_COLUMNS / sizeof SERVO_COLUMNS[0])

static size_t wall_columns(const ldem_wall *wl)
{
    (void)wl;
    return NWALL_COLUMNS + NSERVO_COLUMNS;
}

static const char *wall_column_name(size_t c)
{
    return c < NWALL_COLUMNS ? WALL_COLUMNS[c] : SERVO_COLUMNS[c - NWALL_COLUMNS];
}

/* A wall name as a column prefix: whitespace and control characters would break the TSV. */
static void put_wall_prefix(FILE *fp, const ldem_wall *wl, size_t k)
{
    if (!wl->name || !*wl->name) {
        fprintf(fp, "wall%zu", k);
        return;
    }
    for (const unsigned char *s = (const unsigned char *)wl->name; *s; s++)
        putc(*s <= ' ' || *s == 0x7f ? '_' : *s, fp);
}

/* Per reported deformable grain g and mode a: gG.epsA gG.rateA gG.QA gG.FintA. */
static const char *const MODAL_COLUMNS[] = {"eps", "rate", "Q", "Fint"};
#define NMODAL_COLUMNS (sizeof MODAL_COLUMNS / sizeof MODAL_COLUMNS[0])

/* A periodic cell's columns, last: its work, strains and stress (compression positive), mean
 * and von Mises stress, the velocity gradient's diagonal, and the quasi-static indicators. */
static const char *const CELL_COLUMNS[] = {
    "work_cell", "eps_xx", "eps_yy", "eps_zz", "eps_vol", "sxx", "syy", "szz", "sxy", "syz",
    "szx", "p", "q", "rate_xx", "rate_yy", "rate_zz", "unbalanced", "inertial"};
#define NCELL_COLUMNS (sizeof CELL_COLUMNS / sizeof CELL_COLUMNS[0])

/* `measure: true` (ldem/sim/measure.h), after the cell's: the contact network always, the
 * unbalanced-force ratio when no cell reports it, a box's solid fraction and stress when the
 * walls make one (decided when the table opens, from the walls' normals). */
static const char *const MEASURE_COLUMNS[] = {
    "coordination", "coordination_nr", "mech_coordination", "rattlers", "fab_xx", "fab_yy",
    "fab_zz", "fab_xy", "fab_yz", "fab_zx", "fn_mean", "fn_std", "fn_max"};
#define NMEASURE_COLUMNS (sizeof MEASURE_COLUMNS / sizeof MEASURE_COLUMNS[0])
static const char *const BOX_COLUMNS[] = {"solid_fraction", "porosity", "stress_xx",
                                          "stress_yy", "stress_zz", "stress_xy", "stress_yz",
                                          "stress_zx", "stress_p", "stress_q"};
#define NBOX_COLUMNS (sizeof BOX_COLUMNS / sizeof BOX_COLUMNS[0])

static int measure_box(const ldem_world *w)
{
    ldem_vec3 lo, hi;
    return w->probe_measure && !w->cell.periodic && ldem_walls_box(w, &lo, &hi);
}

static size_t measure_columns(const ldem_world *w)
{
    if (!w->probe_measure)
        return 0;
    return NMEASURE_COLUMNS + (w->cell.periodic ? 0 : 1) + (measure_box(w) ? NBOX_COLUMNS : 0);
}

static size_t cell_columns(const ldem_world *w)
{
    return w->cell.periodic ? NCELL_COLUMNS : 0;
}

static size_t modal_columns(const ldem_world *w)
{
    size_t n = 0;
    for (size_t k = 0; k < w->nprobe_modal; k++)
        n += NMODAL_COLUMNS * ldem_world_body_modes(w, w->probe_modal[k])->n;
    return n;
}

/* The column-name line, '\n'-terminated, malloc'd (NULL when out of memory). */
static char *column_line(const ldem_world *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return NULL;
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(fp, "%s%s", c ? "\t" : "", COLUMNS[c]);
    for (size_t k = 0; k < w->nwalls; k++)
        for (size_t c = 0; c < wall_columns(&w->walls[k]); c++) {
            putc('\t', fp);
            put_wall_prefix(fp, &w->walls[k], k);
            fprintf(fp, ".%s", wall_column_name(c));
        }
    for (size_t k = 0; k < w->nprobe_modal; k++) {
        uint32_t g = w->probe_modal[k];
        for (uint32_t a = 0; a < ldem_world_body_modes(w, g)->n; a++)
            for (size_t c = 0; c < NMODAL_COLUMNS; c++)
                fprintf(fp, "\tg%u.%s%u", w->bodies.id[g], MODAL_COLUMNS[c], a);
    }
    for (size_t c = 0; c < cell_columns(w); c++)
        fprintf(fp, "\t%s", CELL_COLUMNS[c]);
    if (w->probe_measure) {
        for (size_t c = 0; c < NMEASURE_COLUMNS; c++)
            fprintf(fp, "\t%s", MEASURE_COLUMNS[c]);
        if (!w->cell.periodic)
            fputs("\tunbalanced", fp);
        for (size_t c = 0; measure_box(w) && c < NBOX_COLUMNS; c++)
            fprintf(fp, "\t%s", BOX_COLUMNS[c]);
    }
    if (w->staged)
        fputs("\tstage", fp);
    putc('\n', fp);
    bool bad = ferror(fp) != 0;
    if (fclose(fp) != 0 || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

static size_t count_fields(const char *line)
{
    size_t n = 1;
    for (const char *s = line; *s && *s != '\n'; s++)
        n += *s == '\t';
    return n;
}

/* The step column (the second field) of a row; false unless it is a plain integer. */
static bool row_step(const char *line, uint64_t *step)
{
    const char *s = strchr(line, '\t');
    if (!s || s[1] < '0' || s[1] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s + 1, &end, 10);
    if (errno || (*end != '\t' && *end != '\n'))
        return false;
    *step = v;
    return true;
}

/* What a resume keeps from an earlier table. */
typedef struct resume_state {
    const char *path;
    const char *columns; /* this run's column line */
    size_t ncols;
    uint64_t resume_step;
    bool header_seen;
    long line;
} resume_state;

/* Copy a kept line; out is NULL when the table is only being checked. */
static void put_kept(const char *line, FILE *out)
{
    if (out)
        fputs(line, out);
}

/* One line of the earlier table: copy comments and blank lines, check the column line, copy
 * rows up to the resume step. */
static int keep_line(resume_state *r, const char *line, FILE *out, ldem_err *err)
{
    if (line[0] == '#' || line[0] == '\n') {
        put_kept(line, out);
        return LDEM_OK;
    }
    if (!r->header_seen) {
        if (strcmp(line, r->columns) != 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, r->path, r->line,
                                "the columns differ from this run's (walls changed?); expected "
                                "'%.*s' — move the old table away to start a new one",
                                (int)strcspn(r->columns, "\n"), r->columns);
        r->header_seen = true;
        put_kept(line, out);
        return LDEM_OK;
    }
    size_t n = count_fields(line);
    if (n != r->ncols)
        return ldem_err_set(err, LDEM_ERR_INPUT, r->path, r->line,
                            "%zu columns, expected %zu as in the header", n, r->ncols);
    uint64_t step;
    if (!row_step(line, &step))
        return ldem_err_set(err, LDEM_ERR_INPUT, r->path, r->line,
                            "column 2 (step) is not a non-negative integer");
    if (step <= r->resume_step)
        put_kept(line, out);
    return LDEM_OK;
}

/* Copy what a resume keeps of the table at r->path into `out` (NULL: only check it);
 * *found = false if there is no earlier table. */
static int keep_rows(resume_state *r, FILE *out, bool *found, ldem_err *err)
{
    *found = false;
    FILE *in = fopen(r->path, "r");
    if (!in) {
        if (errno == ENOENT)
            return LDEM_OK;
        return ldem_err_set(err, LDEM_ERR_IO, r->path, 0, "cannot read the earlier probes: %s",
                            strerror(errno));
    }
    *found = true;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = LDEM_OK;
    while (rc == LDEM_OK && (len = getline(&line, &cap, in)) >= 0) {
        r->line++;
        if (len == 0 || line[len - 1] != '\n') {
            if (out) /* said once, when the table is copied rather than checked */
                ldem_warn("%s:%ld: dropping an incomplete last line (the run stopped mid-row)",
                          r->path, r->line);
            break;
        }
        if ((size_t)len != strlen(line))
            rc = ldem_err_set(err, LDEM_ERR_INPUT, r->path, r->line, "NUL byte in a text line");
        else
            rc = keep_line(r, line, out, err);
    }
    if (rc == LDEM_OK && ferror(in))
        rc = ldem_err_set(err, LDEM_ERR_IO, r->path, 0, "read failed: %s", strerror(errno));
    free(line);
    fclose(in);
    if (rc == LDEM_OK && !r->header_seen) /* empty or comments only: start the table here */
        put_kept(r->columns, out);
    return rc;
}

/* Write the table as it starts (fresh, or kept up to resume_step) to `path` atomically. */
static int write_start(const char *path, const char *columns, size_t ncols, uint64_t resume_step,
                       ldem_err *err)
{
    ldem_outfile of;
    int rc = ldem_outfile_open(&of, path, err);
    if (rc)
        return rc;
    bool found = false;
    if (resume_step > 0) {
        resume_state r = {path, columns, ncols, resume_step, false, 0};
        rc = keep_rows(&r, of.fp, &found, err);
        if (rc == LDEM_OK && !found)
            ldem_warn("%s: no earlier probes to resume from step %" PRIu64 "; starting a new table",
                      path, resume_step);
    }
    if (rc == LDEM_OK && !found) {
        fputs(PROBES_TITLE, of.fp);
        fputs(columns, of.fp);
    }
    if (rc) {
        ldem_outfile_abort(&of);
        return rc;
    }
    return ldem_outfile_commit(&of, err);
}

static char *probes_path(const char *dir)
{
    size_t n = strlen(dir);
    char *s = malloc(n + sizeof "/probes.tsv");
    if (s) {
        memcpy(s, dir, n);
        memcpy(s + n, "/probes.tsv", sizeof "/probes.tsv");
    }
    return s;
}

static size_t table_columns(const ldem_world *w)
{
    size_t n = NCOLUMNS + modal_columns(w) + cell_columns(w) + measure_columns(w) +
               (w->staged ? 1 : 0);
    for (size_t k = 0; k < w->nwalls; k++)
        n += wall_columns(&w->walls[k]);
    return n;
}

int ldem_probes_check_resume(const char *dir, const ldem_world *w, uint64_t resume_step,
                             ldem_err *err)
{
    if (!dir || !*dir)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty output folder name");
    if (resume_step == 0)
        return LDEM_OK;
    char *path = probes_path(dir);
    char *columns = column_line(w);
    int rc = LDEM_OK;
    if (!path || !columns) {
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, dir, 0, "out of memory");
    } else {
        resume_state r = {path, columns, table_columns(w), resume_step, false, 0};
        bool found;
        rc = keep_rows(&r, NULL, &found, err);
    }
    free(path);
    free(columns);
    return rc;
}

int ldem_probes_open(ldem_probes *p, const char *dir, const ldem_world *w, uint64_t resume_step,
                     ldem_err *err)
{
    memset(p, 0, sizeof *p);
    if (!dir || !*dir)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "empty output folder name");
    char *path = probes_path(dir);
    char *columns = column_line(w);
    int rc = LDEM_OK;
    if (!path || !columns) {
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, dir, 0, "out of memory");
        goto out;
    }
    ldem_err sub;
    if (ldem_output_mkdir(dir, &sub)) {
        rc = ldem_err_set(err, sub.code, path, 0, "cannot open the probes table: %s: %s", sub.file,
                          sub.msg);
        goto out;
    }
    rc = write_start(path, columns, table_columns(w), resume_step, err);
    if (rc)
        goto out;
    p->fp = fopen(path, "a");
    if (!p->fp) {
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot open for appending: %s",
                          strerror(errno));
        goto out;
    }
    p->path = path;
    path = NULL;
    p->nwalls = w->nwalls;
out:
    free(path);
    free(columns);
    return rc;
}

/* A wall's columns of a row (WALL_COLUMNS, then SERVO_COLUMNS). */
static void put_wall_values(FILE *fp, const ldem_wall *wl)
{
    fprintf(fp, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", wl->force.x, wl->force.y,
            wl->force.z, wl->disp.x, wl->disp.y, wl->disp.z);
    /* no evaluation since the last row (written twice at one step): the force itself */
    ldem_vec3 mean = wl->force_count
                         ? ldem_vec3_scale(wl->force_sum, 1.0 / (double)wl->force_count)
                         : wl->force;
    fprintf(fp, "\t%.17g\t%.17g\t%.17g", mean.x, mean.y, mean.z);
    int servo = wl->drive == LDEM_DRIVE_SERVO;
    fprintf(fp, "\t%.17g\t%.17g\t%" PRIu64, servo ? wl->servo_force : 0.0,
            ldem_vec3_dot(wl->vel, wl->normal), servo ? wl->watch.interval_flips : 0);
}

static void put_measures(FILE *fp, const ldem_world *w)
{
    ldem_packing_measures m;
    ldem_packing_measure(w, &m);
    fprintf(fp, "\t%.17g\t%.17g\t%.17g\t%.17g", m.coordination, m.coordination_nr,
            m.mech_coordination, m.rattlers);
    for (int k = 0; k < 6; k++)
        fprintf(fp, "\t%.17g", m.fabric[k]);
    fprintf(fp, "\t%.17g\t%.17g\t%.17g", m.fn_mean, m.fn_std, m.fn_max);
    if (!w->cell.periodic) {
        double unbalanced, inertial;
        ldem_periodic_indicators(w, &unbalanced, &inertial);
        fprintf(fp, "\t%.17g", unbalanced);
    }
    if (!measure_box(w))
        return;
    /* walls that no longer bound a box (crossed) measure nothing: zeros */
    const double *sg = m.stress;
    double pm = (sg[0] + sg[1] + sg[2]) / 3.0;
    double j2 = ((sg[0] - sg[1]) * (sg[0] - sg[1]) + (sg[1] - sg[2]) * (sg[1] - sg[2]) +
                 (sg[2] - sg[0]) * (sg[2] - sg[0])) / 6.0 +
                sg[3] * sg[3] + sg[4] * sg[4] + sg[5] * sg[5];
    fprintf(fp, "\t%.17g\t%.17g", m.solid_fraction, m.in_box ? 1.0 - m.solid_fraction : 0.0);
    for (int k = 0; k < 6; k++)
        fprintf(fp, "\t%.17g", sg[k]);
    fprintf(fp, "\t%.17g\t%.17g", pm, sqrt(3.0 * j2));
}

int ldem_probes_write(ldem_probes *p, const ldem_world *w, const ldem_probe_row *row, ldem_err *err)
{
    if (!p || !p->fp)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "probes written before opening");
    if (w->nwalls != p->nwalls)
        return ldem_err_set(err, LDEM_ERR_USAGE, p->path, 0,
                            "the world has %zu walls, the table was opened with %zu", w->nwalls,
                            p->nwalls);
    FILE *fp = p->fp;
    fprintf(fp,
            "%.17g\t%" PRIu64 "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%" PRIu64
            "\t%.17g\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.17g\t%.17g",
            row->t, row->step, row->kinetic, row->potential, row->stored_normal,
            row->stored_tangential, row->dissipated, row->damped, row->work_walls,
            row->balance_error, row->contacts, row->mean_history, row->history_bytes,
            row->history_cells, row->max_history, row->modal_kinetic, row->modal_elastic);
    for (size_t k = 0; k < w->nwalls; k++)
        put_wall_values(fp, &w->walls[k]);
    const ldem_modal_state *m = &w->modal;
    for (size_t k = 0; k < w->nprobe_modal; k++) {
        uint32_t g = w->probe_modal[k], off = w->bodies.modal[g];
        for (uint32_t a = 0; a < ldem_world_body_modes(w, g)->n; a++)
            fprintf(fp, "\t%.17g\t%.17g\t%.17g\t%.17g", m->eps[off + a], m->rate[off + a],
                    m->force[off + a], m->f_int[off + a]);
    }
    if (w->cell.periodic) {
        const double *sg = row->stress;
        double p = (sg[0] + sg[1] + sg[2]) / 3.0;
        double j2 = ((sg[0] - sg[1]) * (sg[0] - sg[1]) + (sg[1] - sg[2]) * (sg[1] - sg[2]) +
                     (sg[2] - sg[0]) * (sg[2] - sg[0])) / 6.0 +
                    sg[3] * sg[3] + sg[4] * sg[4] + sg[5] * sg[5];
        fprintf(fp, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", row->work_cell, row->strain[0],
                row->strain[1], row->strain[2],
                -log(ldem_cell_volume(&w->cell.h) / ldem_cell_volume(&w->cell.h0)));
        for (int k = 0; k < 6; k++)
            fprintf(fp, "\t%.17g", sg[k]);
        fprintf(fp, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", p, sqrt(3.0 * j2),
                w->cell.L.m[0][0], w->cell.L.m[1][1], w->cell.L.m[2][2], row->unbalanced,
                row->inertial);
    }
    if (w->probe_measure)
        put_measures(fp, w);
    if (w->staged)
        fprintf(fp, "\t%" PRIu32, w->stage);
    putc('\n', fp);
    if (ferror(fp) || fflush(fp) != 0)
        return ldem_err_set(err, LDEM_ERR_IO, p->path, 0, "write failed: %s", strerror(errno));
    return LDEM_OK;
}

int ldem_probes_close(ldem_probes *p, ldem_err *err)
{
    if (!p)
        return LDEM_OK;
    int rc = LDEM_OK;
    if (p->fp) {
        bool bad = ferror(p->fp) != 0;
        if (fclose(p->fp) != 0 || bad)
            rc = ldem_err_set(err, LDEM_ERR_IO, p->path, 0, "write failed: %s", strerror(errno));
    }
    free(p->path);
    memset(p, 0, sizeof *p);
    return rc;
}
