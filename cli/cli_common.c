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

/*
 * Whole small files (parser state snapshots, mask lists).  Writing goes to a
 * temporary file in the target's directory that is renamed into place only
 * when everything was written and flushed, so a failed run never replaces a
 * good state file; the library's outfile layer does the same for sinks, but
 * cli/ sees only the public header.
 */
int cli_write_file_atomic(const char *subcommand, const char *path, const void *data, size_t len)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *tmp = malloc(n + 16);
    if (tmp == NULL) {
        cli_error(subcommand, "%s: out of memory", path);
        return EXIT_DATA;
    }
    memcpy(tmp, path, dirlen);
    snprintf(tmp + dirlen, n + 16 - dirlen, ".%s.XXXXXX", path + dirlen);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error(subcommand, "%s: %s", path, strerror(errno));
        free(tmp);
        return EXIT_DATA;
    }
    mode_t mask = umask(022);
    umask(mask);
    int ok = fchmod(fd, 0666 & ~mask) == 0;
    const char *p = data;
    size_t left = len;
    while (ok && left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            ok = 0;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    int saved = errno;
    if (ok && fsync(fd) != 0 && errno != EINVAL)
        ok = 0, saved = errno;
    if (close(fd) != 0 && ok)
        ok = 0, saved = errno;
    if (ok && rename(tmp, path) != 0)
        ok = 0, saved = errno;
    if (!ok) {
        unlink(tmp);
        cli_error(subcommand, "%s: %s", path, strerror(saved ? saved : EIO));
        free(tmp);
        return EXIT_DATA;
    }
    free(tmp);
    return EXIT_OK;
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
