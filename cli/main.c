/* main.c - the logtk program: dispatches to one subcommand per file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *cli_progname = "logtk";

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"parse", cmd_parse, "parse logs into templates and parameters"},
    {"merge", cmd_merge, "merge parser states saved on shards of a log"},
    {"diff", cmd_diff, "what changed between two logs, or which host differs from its peers"},
    {"detect", cmd_detect, "train, apply and evaluate anomaly detectors"},
    {"compress", cmd_compress, "compress logs into a searchable lossless archive"},
    {"decompress", cmd_decompress, "restore the exact bytes of an archive"},
    {"info", cmd_info, "show an archive's blocks, lines and column sizes"},
    {"grep", cmd_grep, "search an archive without decompressing it all"},
    {"cat", cmd_cat, "print a line range of an archive"},
    {"report", cmd_report, "write one HTML page of a parse, detect or diff run"},
    {"bench", cmd_bench, "measure accuracy and speed on the Loghub datasets"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: logtk SUBCOMMAND [options] [FILE...]\n"
            "       logtk --version | --help\n"
            "\n"
            "Log analytics toolkit: parse, compress and detect anomalies in logs.\n"
            "\n"
            "subcommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-12s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
            "\n"
            "Run 'logtk SUBCOMMAND --help' for a subcommand's options; see logtk(1).\n"
            "Exit status: 0 success, 1 bad data or failed check, 2 usage error.\n");
}

/*
 * A full disk or a closed pipe on standard output must not end with status 0:
 * output the subcommand did not check itself (help, lists, version) is
 * flushed here and a failure turns a success into EXIT_DATA.
 */
static int finish_stdout(int status)
{
    int failed = fflush(stdout) != 0;
    int e = errno;
    if (!failed && ferror(stdout))
        failed = 1, e = EIO;
    if (failed && status == EXIT_OK) {
        fprintf(stderr, "%s: write error on standard output: %s\n", cli_progname, strerror(e));
        return EXIT_DATA;
    }
    return status;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("logtk %s\n", logtk_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "logtk: unknown subcommand '%s'\n", argv[1]);
    fprintf(stderr, "Run 'logtk --help' for the list of subcommands.\n");
    return EXIT_USAGE;
}

/*
 * A descriptor among 0, 1, 2 that the caller closed (`logtk parse <&-`) would
 * be handed to the next file logtk opens -- its own temporary output, so a
 * diagnostic or a read of "stdin" would hit that file.  Each closed one is
 * filled with /dev/null opened the wrong way round: reading a closed stdin
 * then fails ("-: Bad file descriptor", status 1) instead of looking like an
 * empty input, and writing to a closed stdout fails the run as a write error
 * does, rather than vanishing; a closed stderr just discards diagnostics.
 */
static int fill_closed_std_fds(void)
{
    static const int wrong_way[3] = {O_WRONLY, O_RDONLY, O_WRONLY};
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", wrong_way[fd]);
        if (got != fd) { /* /dev/null missing, or a lower descriptor was free: give up */
            if (got >= 0)
                close(got);
            return -1;
        }
    }
    return 0;
}

/*
 * A signal that ends the program must not leave temporary files behind: the
 * ".NAME.XXXXXX" of an output not yet renamed into place, the spool of
 * standard input (as large as the input).  The handler removes every
 * registered one (async-signal-safe) and re-raises the signal with its
 * default action, so the exit status still tells which signal it was.
 */
static void remove_temporaries_and_die(int sig)
{
    logtk_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remove_temporaries_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGQUIT, SIGXCPU};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored by whoever started us (nohup, SIGPIPE ignored by
           the parent) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_temporaries_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    if (fill_closed_std_fds() != 0)
        return EXIT_DATA; /* cannot even say why: stderr may be the closed one */
    remove_temporaries_on_signals();
    return finish_stdout(run(argc, argv));
}
