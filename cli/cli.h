/*
 * cli.h - the logtk program's subcommands and shared helpers.
 *
 * cli/ uses only the public header include/logtk.h (see doc/DESIGN.md).
 * Exit status, for every subcommand: 0 success, 1 bad data or failed check,
 * 2 usage error.
 */
#ifndef LTK_CLI_H
#define LTK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "logtk.h"

#define EXIT_OK 0
#define EXIT_DATA 1
#define EXIT_USAGE 2

/* Subcommands: each gets argv with argv[0] = the subcommand's name. */
int cmd_parse(int argc, char **argv);
int cmd_merge(int argc, char **argv);   /* cmd_merge.c: merge saved parser states */
int cmd_diff(int argc, char **argv);    /* cmd_diff.c: templates compared between logs */
int cmd_bench(int argc, char **argv);
int cmd_detect(int argc, char **argv);   /* cmd_detect.c: train, predict, eval, watch */
int cmd_compress(int argc, char **argv);   /* cmd_compress.c */
int cmd_decompress(int argc, char **argv); /* cmd_decompress.c */
int cmd_info(int argc, char **argv);       /* cmd_info.c */
int cmd_grep(int argc, char **argv);       /* cmd_grep.c */
int cmd_cat(int argc, char **argv);        /* cmd_decompress.c: decompress of a line range */
/* `logtk bench compress` and `logtk bench detect`, dispatched from cmd_bench.c;
   argv[0] is "compress" / "detect". */
int cmd_bench_compress(int argc, char **argv);
int cmd_bench_detect(int argc, char **argv);
int cmd_bench_diff(int argc, char **argv);  /* cmd_bench_diff.c: the planted-fault benchmark */
int cmd_report(int argc, char **argv);     /* cmd_report.c: one HTML page of a run */

/** bench detect --deeplog DIR (cmd_bench_deeplog.c); apply sets --param values. */
int cli_bench_deeplog(const char *dir, const char *const *only, size_t nonly,
                      int (*apply)(logtk_detector *, const char *));

/** Appends value to a growable array of strings (*list, *n; realloc'd). Returns 0 or -1. */
int cli_push_string(const char ***list, size_t *n, const char *value);

/** 1 when name is one of names[0..n), else 0. */
int cli_name_listed(const char *const *names, size_t n, const char *name);

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

/**
 * The usage error for getopt's '?' (call it right then): names the unknown
 * option, short ("-A", even inside a cluster such as "-A1") or long.
 */
int cli_unknown_option(const char *subcommand, char *const *argv);

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


/* ---- cli_feed.c (owner: bench): the shared "reader -> format -> parser" loop ---- */

/**
 * Called once per line after it was parsed.  `rec` and `ev` describe this line
 * (ev->template_id is 0 for batch parsers until finish).  Everything is valid
 * during the call only.  Return 0 to go on; any other value stops the run and
 * is returned by cli_feed_run().
 */
typedef int (*cli_feed_callback)(void *user, const logtk_line *line, const logtk_record *rec,
                                 const logtk_event *ev);

/**
 * One run over a list of inputs.  Set the inputs, zero everything else
 * (`cli_feed f = {0};`), then call cli_feed_run().  The loop never calls
 * logtk_parser_finish(): the caller does, since only it knows whether more
 * input follows.
 */
typedef struct cli_feed {
    /* inputs */
    const char *subcommand;  /* for messages, e.g. "parse" */
    logtk_format *format;    /* required: splits lines into fields and content */
    logtk_parser *parser;    /* required: configured, receives every content */
    cli_feed_callback on_line; /* optional */
    void *user;              /* passed to on_line */
    cli_progress *progress;  /* optional: updated every few thousand lines */
    size_t max_line;         /* 0 = LOGTK_DEFAULT_MAX_LINE */
    int allow_binary;        /* 0: a file that looks binary stops the run with an error */
    int quiet;               /* 1: no warnings on stderr (limits hit); errors still printed */
    int keep_unmatched;      /* 1: list the lines the format did not match in unmatched_at */
    /* results, accumulated over all paths */
    uint64_t lines;          /* lines fed */
    uint64_t unmatched;      /* lines the format did not match (kept whole as content) */
    uint64_t *unmatched_at;  /* with keep_unmatched: those lines' 0-based numbers, `unmatched`
                                of them, in order (the caller frees it) */
    uint64_t unmatched_cap;
    uint64_t format_limit_hits; /* lines where the format regex hit its match limit */
    uint64_t mask_limit_hits;   /* lines where a mask hit its match limit */
    int status;              /* logtk status of the failure, LOGTK_OK otherwise */
    int refused_binary;      /* the failure: a file that looks binary (allow_binary 0) */
} cli_feed;

/**
 * Reads every path in order (npaths 0 = stdin; "-" = stdin), splits each line
 * with f->format and feeds the content to f->parser.  Returns EXIT_OK, or
 * EXIT_DATA after printing "logtk SUBCOMMAND: FILE:LINE: message" on a reader,
 * binary-file or parser error (f->status holds the logtk code), or the
 * callback's nonzero return value.
 */
int cli_feed_run(cli_feed *f, char *const *paths, size_t npaths);

/**
 * After a failed cli_feed_run(): names the option that would have let the
 * run through, "(use --binary ...)" for a file that looks binary and "(use
 * --max-line-length N ...)" for an over-long line, with `more` (NULL or
 * e.g. "; nothing was written") inside the parenthesis.  Prints nothing for
 * any other failure.
 */
void cli_feed_explain(const cli_feed *f, const char *more);

/* ---- cli_parser_options.c: the options that make a format and a parser ----
 * --dataset --format --mask --mask-file --parser --param --max-line-length
 * --binary mean the same in every subcommand that parses logs (parse, diff,
 * report; bench parse takes --param, --binary and --max-line-length):
 * put CLI_PARSER_LONG_OPTIONS in the getopt_long table, hand each option to
 * cli_parser_option(), then build with cli_parser_options_format(),
 * cli_parser_options_new_parser() and cli_parser_options_configure(). */

#include <getopt.h>

enum {
    CLI_OPT_DATASET = 0x1000, CLI_OPT_FORMAT, CLI_OPT_MASK, CLI_OPT_MASK_FILE, CLI_OPT_PARSER,
    CLI_OPT_PARAM, CLI_OPT_MAX_LINE, CLI_OPT_BINARY
};

#define CLI_PARSER_LONG_OPTIONS                                                                  \
    {"dataset", required_argument, NULL, CLI_OPT_DATASET},                                       \
    {"format", required_argument, NULL, CLI_OPT_FORMAT},                                         \
    {"mask", required_argument, NULL, CLI_OPT_MASK},                                             \
    {"mask-file", required_argument, NULL, CLI_OPT_MASK_FILE},                                   \
    {"parser", required_argument, NULL, CLI_OPT_PARSER},                                         \
    {"param", required_argument, NULL, CLI_OPT_PARAM},                                           \
    {"max-line-length", required_argument, NULL, CLI_OPT_MAX_LINE},                              \
    {"binary", no_argument, NULL, CLI_OPT_BINARY}

typedef struct cli_parser_options {
    int data_exit;           /* set by the caller: the exit status of bad data (EXIT_DATA;
                                diff's is 2) */
    const char *dataset_name, *format_spec, *parser_name;
    const char **masks, **mask_files, **params; /* --param values hold NAME=VALUE */
    size_t nmasks, nmask_files, nparams;
    size_t max_line;         /* 0: the reader's default */
    int allow_binary;
    const char *benchmark;   /* whose scripts the dataset preset follows
                                (logtk_dataset_configure_for()); NULL: Loghub-2k's */
} cli_parser_options;

/**
 * Takes getopt_long's `c` and its argument when c is one of
 * CLI_PARSER_LONG_OPTIONS: returns 1 with *status -1 (go on) or the exit
 * status after printing the error (a --param without '=', a line length the
 * reader refuses).  Returns 0 for any other option.
 */
int cli_parser_option(const char *subcommand, int c, const char *arg, cli_parser_options *o,
                      int *status);

/** Frees the lists (the struct itself is the caller's). */
void cli_parser_options_free(cli_parser_options *o);

/**
 * Finds --dataset (*dataset NULL without it) and compiles --format, else the
 * dataset's format, into a new *format.  Returns -1 to go on, or the exit
 * status after printing the error (an unknown dataset lists the known ones).
 */
int cli_parser_options_format(const char *subcommand, const cli_parser_options *o,
                              const logtk_dataset **dataset, logtk_format **format);

/** logtk_parser_new(parser, name) with the CLI's messages.  Returns -1 to go on or an exit status. */
int cli_parser_options_new_parser(const char *subcommand, const cli_parser_options *o,
                                  const char *name, logtk_parser **parser);

/**
 * Configures parser: the dataset's masks and parameters, then --param,
 * --mask ([NAME=]RE) and --mask-file in that order.  Returns -1 to go on, or
 * the exit status after printing the error.
 */
int cli_parser_options_configure(const char *subcommand, const cli_parser_options *o,
                                 const logtk_dataset *dataset, logtk_parser *parser);

/* ---- cli_templates.c: the template list of `parse --templates` and `merge --templates` ---- */

/**
 * A parser's templates as output names them.  Ids whose texts are equal (an
 * online parser such as fuse merged them; both ids stay valid) are one
 * template, named by the lowest of them: canonical[id].  Arrays are indexed
 * by template id (1..n); text points into bytes.
 */
typedef struct cli_template_set {
    uint32_t n;             /* logtk_parser_template_count() */
    logtk_slice *text;      /* [id] the template's text */
    uint64_t *key;          /* [id] logtk_parser_template_key() */
    uint64_t *count;        /* [id] lines of every id with this text at the canonical id, else 0 */
    uint32_t *canonical;    /* [id] the lowest id with the same text */
    uint32_t *number;       /* [id] the EventId output prints for canonical[id]: canonical ids
                               numbered 1, 2, ... in id order, no gaps (cli_template_set_build) */
    char *bytes;
} cli_template_set;

/** Builds the set from p's current templates.  Returns 0, or -1 when out of memory. */
int cli_template_set_build(cli_template_set *s, logtk_parser *p);

/** Frees the arrays (the struct itself is the caller's). */
void cli_template_set_free(cli_template_set *s);

/**
 * Writes the set through the library's "templates" sink: a header row, then
 * per canonical template EventId ("E" and number[id]), EventTemplate
 * (TSV-escaped), Occurrences and EventKey (the content-hash key, 16 hex
 * digits).  Returns 0, or -1 on a write error.
 */
int cli_templates_write(FILE *fp, const cli_template_set *s);

/* ---- cli_common.c (owner: cli): whole small files ---- */

/**
 * Writes len bytes to path atomically (temporary file in the same directory,
 * renamed into place after fsync).  Returns EXIT_OK, or EXIT_DATA after
 * printing "logtk SUBCOMMAND: PATH: reason"; the old file is then untouched.
 */
int cli_write_file_atomic(const char *subcommand, const char *path, const void *data, size_t len);

/**
 * An output file written through stdio and committed atomically: a temporary
 * file next to the target, renamed into place by cli_output_close().  NULL or
 * "-" is stdout; an existing device or FIFO (/dev/null) is written directly,
 * never replaced; a symlink is followed so the link survives.
 */
typedef struct cli_output {
    FILE *fp;          /* write here */
    logtk_output *out; /* the library's atomic output */
} cli_output;

/** Opens o for path.  Returns EXIT_OK, or EXIT_DATA after printing "PATH: reason". */
int cli_output_open(const char *subcommand, const char *path, cli_output *o);

/**
 * Flushes and closes o; when `keep` and nothing failed, renames the temporary
 * file into place, otherwise removes it.  Returns EXIT_OK, or EXIT_DATA after
 * printing "PATH: reason" (the old target is then untouched).
 */
int cli_output_close(const char *subcommand, const char *path, cli_output *o, int keep);

/**
 * Reads a whole file ("-" = stdin) of at most `max` bytes into a malloc'd,
 * NUL-terminated buffer.  Returns EXIT_OK, or EXIT_DATA after printing the
 * error (a larger file is refused as soon as `max` is passed, so /dev/zero
 * costs `max` bytes, not all memory).
 */
int cli_read_file(const char *subcommand, const char *path, size_t max, char **data, size_t *len);

/**
 * As cli_read_file() for a file that must start with the 8-byte `magic`
 * (a parser snapshot, a model): anything else is refused after its first 8
 * bytes, "PATH: not a WHAT" (WHAT e.g. "logtk parser snapshot"), so a foreign or endless file (/dev/zero) is not
 * read whole first.  Returns EXIT_OK, or EXIT_DATA after printing the error.
 */
int cli_read_file_magic(const char *subcommand, const char *path, const char *magic,
                        const char *what, char **data, size_t *len);

/**
 * Nonzero when the file at path starts with the 8-byte magic; prints
 * "PATH: not a WHAT" (WHAT e.g. "logtk parser snapshot") (or the open error) and returns 0 otherwise.
 */
int cli_check_magic(const char *subcommand, const char *path, const char *magic, const char *what);

/**
 * The first line of standard input, decoded as a reader decodes it (compressed
 * input works), in a malloc'd NUL-terminated *line of *len bytes (empty when
 * stdin is empty), without consuming it: later readers of "-" still get every
 * byte.  Returns EXIT_OK, or EXIT_DATA after printing the error.
 */
int cli_peek_stdin(const char *subcommand, char **line, size_t *len);

/**
 * Folds one line (data[0..len) and the length of its terminator) into the
 * running fingerprint h (start from 0): two reads that gave the same lines
 * end with the same value.  For change detection, not for security.
 */
/**
 * Refuses an output that is the same file (device and inode) as one of the
 * inputs (ninputs 0 or "-": standard input; out NULL or "-": standard
 * output), which would overwrite the input or read its own output.  `what`
 * names the output in the message ("-o", "--templates").  Returns EXIT_OK, or
 * EXIT_USAGE after printing the error.
 */
int cli_refuse_output_is_input(const char *subcommand, const char *what, const char *out,
                               char *const *inputs, size_t ninputs);

uint64_t cli_line_hash(uint64_t h, const char *data, size_t len, size_t eol_len);

/** FNV-1a of s[0..n): the key of the CLI's small string tables (rule keys, templates). */
uint64_t cli_string_hash(const char *s, size_t n);

/**
 * Opens the archive at path ("-" = stdin) in a new *r (free it in every
 * case).  Returns 0, or -1 after printing the reader's message.
 */
int cli_archive_open(const char *subcommand, const char *path, logtk_archive_reader **r);

/* ---- cli_signals.c: SIGTERM, SIGINT, SIGHUP for commands in a log pipeline ---- */

#include <signal.h>

/** The SIGTERM or SIGINT received since cli_signals_graceful(), 0 while none. */
extern volatile sig_atomic_t cli_stop_signal;
/** Set by SIGHUP; the command clears it after committing and reopening its output. */
extern volatile sig_atomic_t cli_hup_pending;

/**
 * Replaces main.c's die-at-once handlers for SIGTERM, SIGINT (set
 * cli_stop_signal; when stdin_is_input, standard input then reads as at its
 * end) and SIGHUP (sets cli_hup_pending), with SA_RESTART.  A second SIGTERM
 * or SIGINT still ends the program at once, temporary files removed.
 */
void cli_signals_graceful(int stdin_is_input);

/** "SIGTERM", "SIGINT" or "SIGHUP". */
const char *cli_signal_name(int sig);

/**
 * Writes text to stderr once, `seconds` from now, unless cli_hint_cancel()
 * comes first (SIGALRM, SA_RESTART): a note for someone watching a command
 * that waits on its input.  text must stay valid until then.
 */
void cli_hint_after(unsigned seconds, const char *text);

/** Cancels cli_hint_after()'s note if it has not been written yet. */
void cli_hint_cancel(void);

#endif
