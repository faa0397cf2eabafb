/* libFuzzer target for demrun's scene path (runtime/sim/scene*.c): YAML text is loaded
 * (libyaml tree, schema checks, lattices and TSV placements expanded), the world is built
 * (bundles loaded, pair laws, walls, periodic cell, dt) and run for at most MAX_STEPS steps.
 *
 * The loader takes a path: the input is written to fuzz.yaml in a private folder that also
 * holds the files a scene may name — grain.ldg (a level-set ellipsoid), beam.ldg (a
 * deformable beam with one mode) and places.tsv (PLACES_ROWS sphere placements) — copied
 * there from data/ at start.
 *
 * Work per input is bounded here, before the loader runs (see `admissible`): libldem has no
 * limit a caller can set on what a scene expands to (a lattice may have 10^8 sites, which
 * the loader would allocate before anything else looks at the scene), so the target reads
 * the YAML with libyaml itself and passes over a scene that could place more than
 * MAX_GRAINS grains (lattice counts, TSV files, explicit grains), asks for more than
 * MAX_SAMPLES precomputed level sets per mode or MAX_PULLBACK pull-back steps, or names a
 * path outside the folder (any scalar with a '/': the fuzzer must not read /dev/stdin).
 * The world runs on one thread whatever `threads:` says (each fuzzing job has one core).
 *
 * Properties besides "no crash, no leak, no UB": load, build, prepare and step fail only
 * with input, memory or usage errors that carry a message (never LDEM_ERR_INTERNAL); a
 * built world has a positive, finite time step. */
#include <math.h>
#include <string.h>
#include <yaml.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fuzz_common.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"

#define MAX_STEPS 5
#define MAX_GRAINS 64.0
#define PLACES_ROWS 8.0
#define MAX_SAMPLES 16.0
#define MAX_PULLBACK 8.0
#define MAX_ATTEMPTS 1000.0
#define MAX_DEPTH 64

static const char *const FIXTURES[] = {"grain.ldg", "beam.ldg", "places.tsv"};

static void copy_fixtures(void)
{
    for (size_t k = 0; k < sizeof FIXTURES / sizeof FIXTURES[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", FUZZ_DATA, FIXTURES[k]);
        FILE *fp = fopen(path, "rb");
        static uint8_t buf[1 << 20];
        size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
        if (!fp || n == 0 || n == sizeof buf) {
            fprintf(stderr, "fuzz_scene: cannot read %s\n", path);
            abort();
        }
        fclose(fp);
        fuzz_write(FIXTURES[k], buf, n);
    }
}

/* ---- the pre-check: what the scene could expand to, from libyaml's events ---- */

typedef struct level {
    int mapping;
    int want_key;     /* mapping: the next scalar is a key */
    char key[16];     /* mapping: the key whose value comes next ("" if long or none) */
    char parent[16];  /* the key this collection is the value of */
    double product;   /* a `count` sequence: product of its numbers */
} level;

typedef struct precheck {
    level stack[MAX_DEPTH];
    int depth;
    double grains;
    int generate, attempts; /* generate: entries, and attempts: keys within the limit */
    int refuse;
} precheck;

static double number(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return end != text ? v : 1.0;
}

/* A scalar in value position under `key`. */
static void value(precheck *p, const char *key, const char *text)
{
    double v = number(text);
    if ((strcmp(key, "samples") == 0 && !(fabs(v) <= MAX_SAMPLES)) ||
        (strcmp(key, "pullback") == 0 && !(fabs(v) <= MAX_PULLBACK)))
        p->refuse = 1;
    /* a generate: entry places `count` grains, each tried up to `attempts` times; a solid
     * fraction's count depends on the region and the sizes: not bounded here, not fuzzed */
    if (strcmp(key, "count") == 0)
        p->grains += fmax(fabs(v), 1.0);
    if (strcmp(key, "attempts") == 0)
        p->attempts++;
    if ((strcmp(key, "attempts") == 0 && !(fabs(v) <= MAX_ATTEMPTS)) ||
        strcmp(key, "solid_fraction") == 0)
        p->refuse = 1;
}

static void on_scalar(precheck *p, const char *text)
{
    if (strchr(text, '/'))
        p->refuse = 1;
    if (p->depth == 0)
        return;
    level *l = &p->stack[p->depth - 1];
    if (l->mapping && l->want_key) {
        l->want_key = 0;
        size_t n = strlen(text);   /* a longer key is none the limits look at */
        if (n < sizeof l->key)
            memcpy(l->key, text, n + 1);
        else
            l->key[0] = '\0';
        if (strcmp(text, "file") == 0)
            p->grains += PLACES_ROWS;
        else if (strcmp(text, "generate") == 0)
            p->generate++; /* its default attempts (10^4 a grain) is too slow to fuzz */
        else if (strcmp(text, "position") == 0 || strcmp(text, "shape") == 0)
            p->grains += 1.0;   /* (a lattice's shape too: conservative) */
        return;
    }
    if (l->mapping) {
        value(p, l->key, text);
        l->want_key = 1;
    } else if (strcmp(l->parent, "count") == 0) {
        l->product *= fmax(fabs(number(text)), 1.0);
    }
}

static void on_start(precheck *p, int mapping)
{
    if (p->depth == MAX_DEPTH) {
        p->refuse = 1;
        return;
    }
    level *up = p->depth ? &p->stack[p->depth - 1] : NULL;
    level *l = &p->stack[p->depth++];
    memset(l, 0, sizeof *l);
    l->mapping = mapping;
    l->want_key = 1;
    l->product = 1.0;
    if (up && up->mapping)
        memcpy(l->parent, up->key, sizeof l->parent);
}

static void on_end(precheck *p)
{
    if (p->depth == 0)
        return;
    level *l = &p->stack[--p->depth];
    if (!l->mapping && strcmp(l->parent, "count") == 0)
        p->grains += l->product;
    if (p->depth && p->stack[p->depth - 1].mapping)
        p->stack[p->depth - 1].want_key = 1;
}

/* Whether the scene is worth loading: within the limits above. YAML the loader would refuse
 * anyway (syntax errors) is loaded, so that its errors are fuzzed too. */
static int admissible(const uint8_t *data, size_t size)
{
    yaml_parser_t y;
    if (!yaml_parser_initialize(&y))
        return 0;
    yaml_parser_set_input_string(&y, data, size);
    yaml_parser_set_encoding(&y, YAML_UTF8_ENCODING);
    precheck p;
    memset(&p, 0, sizeof p);
    for (int done = 0; !done && !p.refuse;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&y, &ev))
            break;
        switch (ev.type) {
        case YAML_SCALAR_EVENT:
            on_scalar(&p, (const char *)ev.data.scalar.value);
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            on_start(&p, ev.type == YAML_MAPPING_START_EVENT);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            on_end(&p);
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&y);
    return !p.refuse && p.grains <= MAX_GRAINS && p.generate <= p.attempts;
}

/* ---- the run ---- */

static void run(const ldem_scene *s)
{
    ldem_world w;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_build(s, &w, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return;
    }
    fuzz_require(w.dt > 0.0 && isfinite(w.dt));
    w.threads = 1;
    rc = ldem_world_prepare(&w, &err);
    uint64_t steps = ldem_scene_total_steps(s, w.dt);
    for (uint64_t k = 0; !rc && k < steps && k < MAX_STEPS; k++)
        rc = ldem_world_step(&w, &err);
    if (rc)
        fuzz_check_error(rc, &err);
    ldem_world_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        copy_fixtures();
#ifdef _OPENMP
        omp_set_num_threads(1);
#endif
        ready = 1;
    }
    if (!admissible(data, size)) {
        if (getenv("FUZZ_VERBOSE"))
            fprintf(stderr, "passed over: beyond the target's limits\n");
        return 0;
    }
    const char *path = fuzz_write("fuzz.yaml", data, size);
    ldem_scene s;
    ldem_err err;
    ldem_err_clear(&err);
    int rc = ldem_scene_load(&s, path, 0, NULL, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        return 0;
    }
    fuzz_require(s.ngrains <= (size_t)MAX_GRAINS);
    run(&s);
    ldem_scene_free(&s);
    return 0;
}
