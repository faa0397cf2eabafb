/* Replays inputs through LLVMFuzzerTestOneInput without libFuzzer, so the seed corpus runs
 * in the ordinary test suite (under ASan/UBSan when the build uses them).
 *
 *   fuzz_bundle_replay PATH...    each PATH a file, or a directory whose files are replayed
 *
 * Fails when an input cannot be read or when no input at all was found. A property
 * violation in the target aborts, which fails the test too. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap)
            break;
        unsigned char *g = realloc(buf, 2 * cap);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
        cap *= 2;
    }
    int bad = !buf || ferror(fp);
    fclose(fp);
    if (bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files of a directory in name order; counts them in *count. */
static int replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int failed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **g = realloc(names, cap * sizeof *g);
            if (!g) {
                failed = 1;
                break;
            }
            names = g;
        }
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        if (!(names[n] = malloc(len))) {
            failed = 1;
            break;
        }
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!failed && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            failed |= replay_file(names[i]);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return failed;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            failed |= replay_dir(argv[i], &count);
        } else {
            failed |= replay_file(argv[i]);
            count++;
        }
    }
    if (!failed && count == 0) {
        fprintf(stderr, "%s: no inputs to replay\n", argv[0]);
        failed = 1;
    }
    printf("replayed %zu inputs\n", count);
    return failed ? 1 : 0;
}
