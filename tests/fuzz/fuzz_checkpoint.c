/* libFuzzer target for demrun's checkpoint reader (runtime/sim/checkpoint_load.c).
 *
 * A checkpoint is restored into a world built from its scene, so the target keeps three
 * scenes (data/ckpt_*.yaml: walls, servo and every contact law with level-set grains; a
 * periodic cell; deformable beams with MODL) loaded, and builds a fresh world per input.
 *
 * Before the file is written, the target repairs what would stop every mutation at the
 * door, so that mutations reach the decoder: each section's CRC-32 (docs/bundle.md) is
 * recomputed over its header and payload, and the CKPT header's static checksum is set to
 * a scene's — the scene whose checksum the file already carries, else one chosen by it.
 * After a restore that succeeds, the world runs STEPS steps (a restored state must be one
 * the step can take: a checkpoint demrun wrote always loads, and what loads must run).
 *
 * One thing is bounded here rather than by libldem: the CKPT header gives each history pool's
 * capacity, which the loader allocates (it refuses a capacity above twice the saved peak, but
 * the peak comes from the same header, so a file can ask for 2^32 slots, 100 GB). Only a
 * memory budget can tell that from a real run's pools, so a file asking for more than
 * MAX_POOL_SLOTS slots in all is passed over (libFuzzer would report the allocation as an
 * out-of-memory crash).
 *
 * Properties besides "no crash, no leak, no UB": errors are input, memory or I/O errors
 * with a message (never LDEM_ERR_INTERNAL), and a restored world has a finite time and a
 * positive, finite time step. */
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/sim/checkpoint.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"

/* Private to libldem (runtime/sim/checkpoint_format.h), exported for its tests. */
uint64_t ldem__checkpoint_static_checksum(const ldem_world *w);

#define STEPS 2
#define CKPT_CHECKSUM_OFFSET 72   /* docs/checkpoint.md, CKPT header */
#define CKPT_POOLS_OFFSET 152     /* then per pool: u32 capacity, u32 peak */
#define MAX_POOL_SLOTS (1u << 20)

static const char *const SCENES[] = {"ckpt_box.yaml", "ckpt_cell.yaml", "ckpt_beam.yaml"};
#define NSCENES (sizeof SCENES / sizeof SCENES[0])

static ldem_scene scenes[NSCENES];
static uint64_t checksums[NSCENES];
static int ready;

static void free_scenes(void)
{
    for (size_t k = 0; k < NSCENES; k++)
        ldem_scene_free(&scenes[k]);
}

static void load_scenes(void)
{
    fuzz_dir();   /* quiet logging */
    for (size_t k = 0; k < NSCENES; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", FUZZ_DATA, SCENES[k]);
        ldem_err err;
        ldem_world w;
        if (ldem_scene_load(&scenes[k], path, 0, NULL, &err) ||
            ldem_scene_build(&scenes[k], &w, &err)) {
            fprintf(stderr, "fuzz_checkpoint: %s:%ld: %s\n", err.file, err.line, err.msg);
            abort();
        }
        checksums[k] = ldem__checkpoint_static_checksum(&w);
        ldem_world_free(&w);
    }
    atexit(free_scenes);
    ready = 1;
}

/* The history pools' capacities the CKPT payload asks for, in slots. */
static uint64_t pool_slots(const uint8_t *payload, uint64_t len)
{
    uint64_t slots = 0;
    for (uint64_t at = CKPT_POOLS_OFFSET; at + 8 <= len && at < CKPT_POOLS_OFFSET + 8 * 64;
         at += 8)
        slots += ldem_get_u32le(payload + at);
    return slots;
}

/* Which scene the file is for (the CKPT section's checksum), writing that scene's checksum
 * into the section; scene 0 when there is no such section. *slots: the pools it asks for. */
static size_t pick_scene(uint8_t *d, size_t n, uint64_t *slots)
{
    *slots = 0;
    size_t at = LDEM_BUNDLE_HEADER_SIZE;
    while (at + LDEM_SECTION_HEADER_SIZE + 4 <= n) {
        uint64_t len = ldem_get_u64le(d + at + 8);
        if (len > n - at - LDEM_SECTION_HEADER_SIZE - 4)
            break;
        uint8_t *payload = d + at + LDEM_SECTION_HEADER_SIZE;
        if (memcmp(d + at, "CKPT", 4) == 0 && len >= CKPT_CHECKSUM_OFFSET + 8) {
            *slots = pool_slots(payload, len);
            uint64_t sum = ldem_get_u64le(payload + CKPT_CHECKSUM_OFFSET);
            size_t k = 0;
            while (k < NSCENES && checksums[k] != sum)
                k++;
            if (k == NSCENES)
                k = (size_t)(sum % NSCENES);
            ldem_put_u64le(payload + CKPT_CHECKSUM_OFFSET, checksums[k]);
            return k;
        }
        at += LDEM_SECTION_HEADER_SIZE + (size_t)len + 4;
    }
    return 0;
}

/* Every section's CRC as the writer would have stored it. */
static void fix_crcs(uint8_t *d, size_t n)
{
    size_t at = LDEM_BUNDLE_HEADER_SIZE;
    while (at + LDEM_SECTION_HEADER_SIZE + 4 <= n) {
        uint64_t len = ldem_get_u64le(d + at + 8);
        if (len > n - at - LDEM_SECTION_HEADER_SIZE - 4)
            break;
        size_t whole = LDEM_SECTION_HEADER_SIZE + (size_t)len;
        ldem_put_u32le(d + at + whole, (uint32_t)crc32_z(0L, d + at, whole));
        if (memcmp(d + at, LDEM_BUNDLE_END_TAG, 4) == 0)
            break;
        at += whole + 4;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        load_scenes();
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    uint64_t slots;
    size_t k = pick_scene(copy, size, &slots);
    if (slots > MAX_POOL_SLOTS) {
        free(copy);
        return 0;
    }
    fix_crcs(copy, size);
    const char *path = fuzz_write("fuzz.ldc", copy, size);
    free(copy);

    ldem_world w;
    ldem_err err;
    ldem_err_clear(&err);
    fuzz_require(ldem_scene_build(&scenes[k], &w, &err) == LDEM_OK);
    ldem_checkpoint_extra x = {0, NULL};
    int rc = ldem_checkpoint_load(path, &w, &x, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
    } else {
        fuzz_require(isfinite(w.t) && w.dt > 0.0 && isfinite(w.dt));
        for (int s = 0; s < STEPS && !rc; s++) {
            rc = ldem_world_step(&w, &err);
            if (rc)
                fuzz_check_error(rc, &err);
        }
    }
    free(x.frame_times);
    ldem_world_free(&w);
    return 0;
}
