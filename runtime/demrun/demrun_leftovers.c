/* demrun_leftovers.c — remove the temporary files a killed run left in its output folder.
 *
 * Every output goes through ldem/outfile.h: written as "TARGET.tmp.XXXXXX" (mkstemp's six
 * letters and digits) beside TARGET, then renamed. SIGINT and SIGTERM let the write finish,
 * but SIGKILL (or a power cut) leaves the temporary file. The next run in the folder removes
 * those of the outputs a demrun run writes — and nothing else: a file is removed only if it
 * is a regular file whose whole name is one of these targets followed by the temporary
 * suffix, so a user's own files (even "notes.tmp.123456") are never touched. Two runs
 * writing into one folder at the same time are not supported (each would overwrite the
 * other's outputs anyway).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demrun.h"
#include "ldem/log.h"
#include "ldem/outfile.h"

/* The files demrun writes in its output folder (demrun_run.c, output_probes.c, and the .pvd
 * series of output_frames.c), and the parts whose frames go to DIR/frames/PART_NNNNNN.vtu. */
static const char *const FOLDER_OUTPUTS[] = {
    DEMRUN_CHECKPOINT_NAME, DEMRUN_PACKING_NAME, "probes.tsv", "spheres.pvd",
    "surfaces.pvd",         "contacts.pvd",      "walls.pvd"};
static const char *const FRAME_PARTS[] = {"spheres", "surfaces", "contacts", "walls"};
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

#define TMP_SUFFIX LDEM_OUTFILE_TMP_STEM
#define TMP_LETTERS (sizeof LDEM_OUTFILE_TMP_TEMPLATE - sizeof LDEM_OUTFILE_TMP_STEM)

static bool is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The length of `name` without a trailing ".tmp.XXXXXX", or 0 if it has none. */
static size_t target_length(const char *name)
{
    size_t n = strlen(name), suffix = strlen(TMP_SUFFIX) + TMP_LETTERS;
    if (n <= suffix || strncmp(name + n - suffix, TMP_SUFFIX, strlen(TMP_SUFFIX)) != 0)
        return 0;
    for (size_t k = n - TMP_LETTERS; k < n; k++)
        if (!is_alnum(name[k]))
            return 0;
    return n - suffix;
}

static bool is_folder_output(const char *target, size_t n)
{
    for (size_t k = 0; k < COUNT(FOLDER_OUTPUTS); k++)
        if (strlen(FOLDER_OUTPUTS[k]) == n && strncmp(target, FOLDER_OUTPUTS[k], n) == 0)
            return true;
    return false;
}

/* PART_NNNNNN.vtu: a known part, '_', at least six digits, ".vtu". */
static bool is_frame(const char *target, size_t n)
{
    for (size_t k = 0; k < COUNT(FRAME_PARTS); k++) {
        size_t p = strlen(FRAME_PARTS[k]);
        if (n <= p || strncmp(target, FRAME_PARTS[k], p) != 0 || target[p] != '_')
            continue;
        size_t digits = 0;
        while (p + 1 + digits < n && target[p + 1 + digits] >= '0' && target[p + 1 + digits] <= '9')
            digits++;
        size_t rest = p + 1 + digits;
        return digits >= 6 && n - rest == 4 && strncmp(target + rest, ".vtu", 4) == 0;
    }
    return false;
}

/* Remove the leftovers in one folder (a missing folder has none); returns how many. */
static size_t clean_folder(const char *dir, bool frames)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = target_length(e->d_name);
        if (!n || !(frames ? is_frame(e->d_name, n) : is_folder_output(e->d_name, n)))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path)
            break;
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (unlink(path) == 0)
                removed++;
            else if (errno != ENOENT)
                ldem_warn("%s: cannot remove this temporary file of a killed run: %s", path,
                          strerror(errno));
        }
        free(path);
    }
    closedir(d);
    return removed;
}

void demrun_remove_leftovers(const char *dir)
{
    size_t len = strlen(dir) + sizeof "/frames";
    char *frames = malloc(len);
    if (!frames)
        return;
    snprintf(frames, len, "%s/frames", dir);
    size_t removed = clean_folder(dir, false) + clean_folder(frames, true);
    if (removed)
        ldem_info("removed %zu temporary file%s that a killed run left in %s", removed,
                  removed == 1 ? "" : "s", dir);
    free(frames);
}
