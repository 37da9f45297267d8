/*
 * cli.h - the logtk program's subcommands and shared helpers.
 *
 * cli/ uses only the public header include/logtk.h (see DESIGN.md).
 * Exit status, for every subcommand: 0 success, 1 bad data or failed check,
 * 2 usage error.
 */
#ifndef LOGTK_CLI_H
#define LOGTK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "logtk.h"

#define EXIT_OK 0
#define EXIT_DATA 1
#define EXIT_USAGE 2

/* Subcommands: each gets argv with argv[0] = the subcommand's name. */
int cmd_parse(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_detect(int argc, char **argv);   /* cmd_detect.c: train, predict, eval, watch */
int cmd_compress(int argc, char **argv); /* cmd_compress.c; the same file also defines
                                            decompress, info, grep and cat below */
/* `logtk bench compress` and `logtk bench detect`, dispatched from cmd_bench.c;
   argv[0] is "compress" / "detect". */
int cmd_bench_compress(int argc, char **argv);
int cmd_bench_detect(int argc, char **argv);

/** Program name for messages ("logtk"). */
extern const char *cli_progname;

/** Prints "logtk SUBCOMMAND: message" to stderr. */
void cli_error(const char *subcommand, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Prints the usage error, a hint to run --help, and returns EXIT_USAGE. */
int cli_usage_error(const char *subcommand, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Progress on stderr, only when stderr is a terminal and not quiet: at most a
 * few updates per second, "\r"-rewritten, cleared at the end.
 */
typedef struct cli_progress {
    int enabled;
    const char *label;
    double last_update;
    double start;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *label, int quiet);
/** done/total in any unit (bytes); total 0 = unknown. */
void cli_progress_update(cli_progress *p, uint64_t lines, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);

/** Monotonic time in seconds. */
double cli_now(void);

#endif
