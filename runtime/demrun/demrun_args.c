/* demrun's command line (getopt_long). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demrun.h"
#include "ldem/log.h"
#include "ldem/memory_budget.h"
#include "ldem/version.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: demrun [options] SCENE.yaml\n"
        "Simulate the grains of a scene file (spheres and level-set grain bundles, Hertz with\n"
        "the exact Jager tangential law, Mindlin, linear node penalty) between walls. Writes\n"
        "into the output folder: spheres.pvd / surfaces.pvd / contacts.pvd / walls.pvd series\n"
        "of VTU frames for ParaView (frames/), probes.tsv (energies, wall forces, contacts),\n"
        "and checkpoint.ldc (the whole state, for --restart). Schema: docs/scene.md.\n"
        "SIGINT, SIGTERM or SIGHUP: finish the step, write checkpoint.ldc, exit 130, 143 or 129.\n"
        "\n"
        "Options:\n"
        "  -o, --out DIR         output folder (default: the scene's output.dir, else out)\n"
        "  -s, --set KEY=VALUE   override a scene value, e.g. --set time.dt=1e-7\n"
        "                        --set walls.0.velocity=[0,0,-0.1] (repeatable)\n"
        "      --restart FILE    continue from a checkpoint of an earlier run of this scene;\n"
        "                        the result is bitwise that of an uninterrupted run\n"
        "      --stop-at STEP    stop at this step (writing the checkpoint) before the end\n"
        "  -j, --threads N       OpenMP threads (results do not depend on it)\n"
        "      --progress        progress bar on stderr even when it is not a terminal\n"
        "      --check           read and build the scene, print its summary, run nothing\n"
        "      --max-memory SIZE refuse scenes whose lattices or precomputed level sets\n"
        "                        would need more (512M, 4G, or bytes; default: the\n"
        "                        machine's physical memory; docs/scene.md)\n"
        "  -q, --quiet           errors only\n"
        "  -h, --help, --version\n");
}

static int parse_count(const char *opt, const char *arg, uint64_t lo, uint64_t *v)
{
    char *end;
    errno = 0;
    if (!*arg || *arg == '-' || *arg == ' ')
        return ldem_usage_error("%s: '%s' is not a whole number >= %llu", opt, arg,
                        (unsigned long long)lo);
    unsigned long long x = strtoull(arg, &end, 10);
    if (errno || *end || x < lo)
        return ldem_usage_error("%s: '%s' is not a whole number >= %llu", opt, arg,
                        (unsigned long long)lo);
    *v = x;
    return 0;
}

int demrun_parse_args(int argc, char **argv, demrun_options *o)
{
    memset(o, 0, sizeof *o);
    enum { OPT_RESTART = 256, OPT_STOP_AT, OPT_PROGRESS, OPT_CHECK, OPT_MAX_MEMORY,
           OPT_VERSION };
    static const struct option longs[] = {
        {"out", required_argument, 0, 'o'},
        {"set", required_argument, 0, 's'},
        {"restart", required_argument, 0, OPT_RESTART},
        {"stop-at", required_argument, 0, OPT_STOP_AT},
        {"threads", required_argument, 0, 'j'},
        {"progress", no_argument, 0, OPT_PROGRESS},
        {"check", no_argument, 0, OPT_CHECK},
        {"max-memory", required_argument, 0, OPT_MAX_MEMORY},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, OPT_VERSION},
        {0, 0, 0, 0}};
    o->sets = malloc((size_t)argc * sizeof *o->sets);
    if (!o->sets)
        return ldem_usage_error("out of memory");
    opterr = 0;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, ":o:s:j:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'o': o->out_dir = optarg; break;
        case 's':
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return ldem_usage_error("--set: '%s' is not KEY=VALUE", optarg);
            o->sets[o->nset++] = optarg;
            break;
        case OPT_RESTART: o->restart = optarg; break;
        case OPT_STOP_AT:
            if (parse_count("--stop-at", optarg, 1, &o->stop_at))
                return 2;
            break;
        case 'j':
            if (parse_count("--threads", optarg, 1, &v))
                return 2;
            if (v > 1024)
                return ldem_usage_error("--threads: at most 1024, got %llu", (unsigned long long)v);
            o->threads = (int)v;
            break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_CHECK: o->check = 1; break;
        case OPT_MAX_MEMORY:
            if (ldem_memory_parse_size(optarg, &o->max_memory))
                return ldem_usage_error("--max-memory: '%s' is not a size (bytes, or 512M, 4G)",
                                optarg);
            break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: printf("demrun %s\n", LDEM_VERSION); return 0;
        case ':': return ldem_usage_error("%s needs a value (see --help)", argv[optind - 1]);
        default:
            return ldem_usage_error("unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return ldem_usage_error("no scene file given (usage: demrun [options] SCENE.yaml)");
    if (optind != argc - 1)
        return ldem_usage_error("one scene file expected, got %d arguments", argc - optind);
    o->scene = argv[optind];
    return -1;
}

void demrun_options_free(demrun_options *o)
{
    free(o->sets);
    o->sets = NULL;
}
