#include "facts.h"

#include <math.h>
#include <stdlib.h>

int facts_open(facts *f, int mode, FILE *final)
{
    *f = (facts){.mode = mode, .final = final, .out = final};
    if (mode == FACTS_JSON) {
        f->out = open_memstream(&f->buffer, &f->buffer_size);
        if (!f->out)
            return 1;
        fputs("{\"files\": [", f->out);
    }
    return 0;
}

void facts_close(facts *f, int ok)
{
    if (f->mode != FACTS_JSON)
        return;
    fputs("]}\n", f->out);
    fclose(f->out);
    if (ok)
        fwrite(f->buffer, 1, f->buffer_size, f->final);
    free(f->buffer);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* JSON has no NaN or infinity; null keeps the document valid. */
static void json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

void facts_begin_file(facts *f, const char *name)
{
    f->nbundles = 0;
    f->file = name;
    if (f->mode == FACTS_JSON) {
        fputs(f->nfiles++ ? ", {\"file\": " : "{\"file\": ", f->out);
        json_string(f->out, name);
        fputs(", \"bundles\": [", f->out);
    }
}

void facts_end_file(facts *f)
{
    if (f->mode == FACTS_JSON)
        fputs("]}", f->out);
}

void facts_begin_bundle(facts *f, unsigned index, int64_t offset, uint32_t version)
{
    f->nsections = 0;
    if (f->mode == FACTS_JSON)
        fprintf(f->out, "%s{\"index\": %u, \"offset\": %lld, \"version\": %u, \"sections\": [",
                f->nbundles ? ", " : "", index, (long long)offset, version);
    else if (f->mode == FACTS_TEXT)
        fprintf(f->out, "%s: bundle %u at byte %lld, version %u\n", f->file, index,
                (long long)offset, version);
    f->nbundles++;
}

void facts_end_bundle(facts *f, int64_t bytes)
{
    if (f->mode == FACTS_JSON)
        fprintf(f->out, "], \"bytes\": %lld}", (long long)bytes);
    else if (f->mode == FACTS_TEXT)
        fprintf(f->out, "  %d sections, %lld bytes\n", f->nsections, (long long)bytes);
}

void facts_begin_section(facts *f, const char *tag, int64_t offset, uint32_t flags,
                         uint64_t length)
{
    f->nfacts = 0;
    if (f->mode == FACTS_JSON) {
        fputs(f->nsections ? ", {\"tag\": " : "{\"tag\": ", f->out);
        json_string(f->out, tag);
        fprintf(f->out, ", \"offset\": %lld, \"flags\": %u, \"length\": %llu, \"facts\": {",
                (long long)offset, flags, (unsigned long long)length);
    } else if (f->mode == FACTS_TEXT) {
        fprintf(f->out, "  %s  @%-8lld %10llu B ", tag, (long long)offset,
                (unsigned long long)length);
        if (flags)
            fprintf(f->out, " flags=0x%x", flags);
    }
    f->nsections++;
}

void facts_end_section(facts *f)
{
    if (f->mode == FACTS_JSON)
        fputs("}}", f->out);
    else if (f->mode == FACTS_TEXT)
        fputc('\n', f->out);
}

/* Start "key": (JSON) or " key=" (text); returns 0 when nothing is printed. */
static int key(facts *f, const char *k)
{
    if (f->mode == FACTS_JSON) {
        if (f->nfacts++)
            fputs(", ", f->out);
        json_string(f->out, k);
        fputs(": ", f->out);
        return 1;
    }
    if (f->mode == FACTS_TEXT) {
        fprintf(f->out, " %s=", k);
        return 1;
    }
    return 0;
}

void facts_str(facts *f, const char *k, const char *value)
{
    if (!key(f, k))
        return;
    if (f->mode == FACTS_JSON)
        json_string(f->out, value);
    else
        fputs(value, f->out);
}

void facts_num(facts *f, const char *k, double value)
{
    if (!key(f, k))
        return;
    if (f->mode == FACTS_JSON)
        json_number(f->out, value);
    else
        fprintf(f->out, "%.6g", value);
}

void facts_count(facts *f, const char *k, uint64_t value)
{
    if (key(f, k))
        fprintf(f->out, "%llu", (unsigned long long)value);
}

void facts_vec(facts *f, const char *k, const double *v, size_t n)
{
    if (!key(f, k))
        return;
    int json = f->mode == FACTS_JSON;
    fputc(json ? '[' : '(', f->out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(json ? ", " : ",", f->out);
        if (json)
            json_number(f->out, v[i]);
        else
            fprintf(f->out, "%.6g", v[i]);
    }
    fputc(json ? ']' : ')', f->out);
}

void facts_counts(facts *f, const char *k, const uint32_t *v, size_t n)
{
    if (!key(f, k))
        return;
    int json = f->mode == FACTS_JSON;
    if (json)
        fputc('[', f->out);
    for (size_t i = 0; i < n; i++)
        fprintf(f->out, i ? (json ? ", %u" : "x%u") : "%u", v[i]);
    if (json)
        fputc(']', f->out);
}
