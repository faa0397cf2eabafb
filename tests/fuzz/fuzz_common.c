/* fuzz_common.c — see fuzz_common.h. */
#include "fuzz_common.h"

#include <string.h>
#include <unistd.h>

#include "ldem/log.h"

static char dir[64];
static char path[128];
static char names[16][32];   /* files written, removed at exit */
static int nnames;

static void cleanup(void)
{
    char p[sizeof dir + sizeof names[0] + 1];
    for (int i = 0; i < nnames; i++) {
        snprintf(p, sizeof p, "%.63s/%.31s", dir, names[i]);
        remove(p);
    }
    rmdir(dir);
}

const char *fuzz_dir(void)
{
    if (dir[0])
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%.40s/ldem-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(cleanup);
    ldem_log_set_level(LDEM_LOG_ERROR);
    return dir;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    snprintf(path, sizeof path, "%.63s/%.31s", fuzz_dir(), name);
    int known = 0;
    for (int i = 0; i < nnames; i++)
        known |= strcmp(names[i], name) == 0;
    if (!known && nnames < 16)
        snprintf(names[nnames++], sizeof names[0], "%.30s", name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp)) {
        perror(path);
        abort();
    }
    return path;
}

void fuzz_check_error(int rc, const ldem_err *err)
{
    /* FUZZ_VERBOSE=1: say why each input was refused (to see how far a seed gets). */
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "refused (%d): %s:%ld: %s\n", rc, err->file, err->line, err->msg);
    fuzz_require(rc == LDEM_ERR_INPUT || rc == LDEM_ERR_NOMEM || rc == LDEM_ERR_IO ||
                 rc == LDEM_ERR_USAGE);
    fuzz_require(err->code == rc);
    fuzz_require(err->msg[0] != '\0');
    fuzz_require(memchr(err->msg, '\0', sizeof err->msg) != NULL);
}
