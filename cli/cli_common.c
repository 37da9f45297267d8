/* cli_common.c - messages, usage errors, progress, time. */
#include <stdarg.h>
#include <stdio.h>
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
