/*
 * parse_shippers.h - `logtk parse` inside log shippers: the rsyslog
 * mmexternal reply mode (cmd_parse_reply.c) and the rule exports for
 * liblognorm and syslog-ng patterndb (cmd_parse_export.c).  Kept apart from
 * cli.h so that cmd_parse.c only calls in here.
 */
#ifndef LTK_PARSE_SHIPPERS_H
#define LTK_PARSE_SHIPPERS_H

#include "cli.h"

/* ---- cmd_parse_export.c: learned templates as shipper rules ---- */

/*
 * An exporter collects, for every final template, the exact shapes its lines
 * take (the literal text between non-empty parameters, blank runs as they
 * are) and, per parameter, which bytes it held; it then writes one rule per
 * shape, named by the template's EventId.
 */
typedef struct cli_export cli_export;

/** "lognorm" or "patterndb"; anything else is NULL. */
cli_export *cli_export_new(const char *kind);

/** 1 when kind names an export format. */
int cli_export_kind_known(const char *kind);

/**
 * Records one line: its content and its parameters against final template
 * `id` (canonical).  Returns 0, or -1 when out of memory.  Lines the
 * exporter cannot describe (a NUL byte, too many shapes) are counted.
 */
int cli_export_observe(cli_export *x, uint32_t id, const char *content, size_t len,
                       const logtk_slice *params, size_t nparams);

/** Writes the rules for the canonical templates of `set`.  Returns 0 or -1 (write error). */
int cli_export_write(cli_export *x, FILE *fp, const cli_template_set *set);

/** Lines not described by any rule (see cli_export_observe). */
uint64_t cli_export_skipped(const cli_export *x);

void cli_export_free(cli_export *x);

/* ---- cmd_parse_reply.c: rsyslog mmexternal ---- */

/** What --reply rsyslog reads: the message text ("msg") or rsyslog's JSON ("fulljson"). */
enum { REPLY_INPUT_MSG = 0, REPLY_INPUT_FULLJSON = 1 };

/**
 * Runs the mmexternal protocol on standard input: one reply line on standard
 * output per input line, in order, flushed at once.  The parser must be
 * online and set up; `format` splits each message.  alerts[0..nalerts)
 * ("NAME=VALUE", logtk_stream options) turn on streaming anomaly alerts,
 * clocked by the message count.  Returns EXIT_OK at end of input,
 * EXIT_USAGE for a bad alert option, EXIT_DATA when standard input or output
 * fails.
 */
int cli_parse_reply_run(const char *subcommand, logtk_format *format, logtk_parser *parser,
                        int input_kind, size_t max_line, const char *const *alerts,
                        size_t nalerts);

#endif
