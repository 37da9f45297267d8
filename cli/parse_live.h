/*
 * parse_live.h - `logtk parse --stream` in a log pipeline (parse_live.c).
 */
#ifndef LTK_PARSE_LIVE_H
#define LTK_PARSE_LIVE_H

#include <stdint.h>

#include "logtk.h"

typedef struct parse_live {
    const char *path;          /* --stream -o FILE written in place; NULL: not live */
    int append;                /* --append: keep FILE's rows */
    int confirm;               /* --confirm: omprog confirmations */
    const char *state_path;    /* --save-state */
    uint64_t save_every_lines; /* --save-every N */
    double save_every_seconds; /* --save-every Ns */
    /* state */
    int opened;
    int confirm_fd;            /* the original standard output (confirmations go there) */
    double last_save;
} parse_live;

/** Parses --save-every's "N" or "Ns" into l.  Returns 0 or -1 (bad value). */
int parse_live_parse_every(const char *arg, parse_live *l);

/** Opens l->path on standard output and a sink of `kind` on it; with --confirm sends the first "OK".  Returns an exit status (message printed). */
int parse_live_open(parse_live *l, logtk_sink **sink, const char *kind, const logtk_format *f);

/** SIGHUP: closes the sink and opens l->path and a new sink again.  Returns an exit status. */
int parse_live_reopen(parse_live *l, logtk_sink **sink, const char *kind, const logtk_format *f);

/** Syncs the rows written and sends n confirmations.  Returns an exit status. */
int parse_live_confirm(parse_live *l, uint64_t n);

/** Saves the parser state when --save-every says it is due after `lines` lines.  Returns an exit status. */
int parse_live_save_state(parse_live *l, logtk_parser *p, uint64_t lines);

/** Flushes the rows and gives standard output back its original file (for --templates -).  Returns an exit status. */
int parse_live_restore_stdout(parse_live *l);

/** Closes the kept descriptor of the original standard output (after parse_live_open). */
void parse_live_close(parse_live *l);

#endif
