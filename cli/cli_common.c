/* cli_common.c - messages, usage errors, progress, time, whole-file I/O. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *subcommand, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", cli_progname, subcommand);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *subcommand, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", cli_progname, subcommand);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun '%s %s --help' for usage.\n", cli_progname, subcommand);
    return EXIT_USAGE;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, const char *label, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->label = label;
    p->start = p->last_update = cli_now();
}

void cli_progress_update(cli_progress *p, uint64_t lines, uint64_t done, uint64_t total)
{
    if (!p->enabled)
        return;
    double now = cli_now();
    if (now - p->last_update < 0.2)
        return;
    p->last_update = now;
    double rate = lines / (now - p->start > 1e-9 ? now - p->start : 1e-9);
    if (total)
        fprintf(stderr, "\r%s: %llu lines, %.1f%%, %.0f lines/s   ", p->label,
                (unsigned long long)lines, 100.0 * (double)done / (double)total, rate);
    else
        fprintf(stderr, "\r%s: %llu lines, %.0f lines/s   ", p->label,
                (unsigned long long)lines, rate);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r\033[K");
}

/* ---------------------------------------------------------------- files */

/* Output files: logtk_output (include/logtk.h) does the temporary file and the
 * rename; these wrappers only print its errors the CLI's way. */
int cli_output_open(const char *subcommand, const char *path, cli_output *o)
{
    o->out = NULL;
    o->fp = NULL;
    if (logtk_output_open(&o->out, path) != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_output_errmsg(o->out));
        logtk_output_free(o->out);
        o->out = NULL;
        return EXIT_DATA;
    }
    o->fp = logtk_output_stream(o->out);
    return EXIT_OK;
}

int cli_output_close(const char *subcommand, const char *path, cli_output *o, int keep)
{
    (void)path;
    int rc = EXIT_OK;
    if (o->out && keep && logtk_output_commit(o->out) != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_output_errmsg(o->out));
        rc = EXIT_DATA;
    }
    logtk_output_free(o->out); /* not kept: the temporary file is removed */
    o->out = NULL;
    o->fp = NULL;
    return rc;
}

/* Whole small files (parser state snapshots, mask lists). */
int cli_write_file_atomic(const char *subcommand, const char *path, const void *data, size_t len)
{
    cli_output out;
    int rc = cli_output_open(subcommand, path, &out);
    if (rc != EXIT_OK)
        return rc;
    if (len && fwrite(data, 1, len, out.fp) != len) {
        cli_error(subcommand, "%s: %s", path, strerror(errno));
        cli_output_close(subcommand, path, &out, 0);
        return EXIT_DATA;
    }
    return cli_output_close(subcommand, path, &out, 1);
}

int cli_read_file(const char *subcommand, const char *path, char **data, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        cli_error(subcommand, "%s: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (used == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + used, 1, cap - used, f);
        used += got;
        if (got == 0)
            break;
    }
    int failed = buf == NULL || ferror(f);
    int saved = errno;
    if (f != stdin)
        fclose(f);
    if (failed) {
        cli_error(subcommand, "%s: %s", path, buf ? strerror(saved) : "out of memory");
        free(buf);
        return EXIT_DATA;
    }
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return EXIT_OK;
}
