/*
 * sink_impl.h - what every sink kind shares (internal).
 *
 * A logtk_sink is one generic object (sink.c: output file, field names,
 * sticky error, row buffer) plus a table of operations for its kind
 * (sink_text.c: tsv, csv, jsonl, templates; sink_sqlite.c: sqlite).  The generic part
 * owns the atomic output file: kinds write through s->out.fp (text) or open
 * s->out.tmp_path themselves (sqlite), and never rename anything.
 */
#ifndef LTK_SINK_IMPL_H
#define LTK_SINK_IMPL_H

#include "logtk.h"

#include "arena.h"
#include "errmsg.h"
#include "outfile.h"
#include "strbuf.h"
#include "sink_writer.h"

/** The operations of one sink kind.  Every function returns a status code. */
typedef struct ltk_sink_ops {
    const char *kind;  /* "tsv", "csv", "jsonl", "sqlite", "templates" */
    int needs_file;    /* 1: cannot write to stdout or a device (sqlite) */
    /** Called once the output is open: header row, database schema. */
    int (*begin)(logtk_sink *s);
    /** Writes one row. */
    int (*write_row)(logtk_sink *s, const logtk_row *row);
    /** Records one template (may be NULL: the kind ignores templates). */
    int (*write_template)(logtk_sink *s, uint32_t template_id, logtk_slice text, uint64_t count);
    /** Completes the output before the file is committed (may be NULL). */
    int (*finish)(logtk_sink *s);
    /** Releases the kind's own state; called exactly once, also after errors (may be NULL). */
    void (*release)(logtk_sink *s);
} ltk_sink_ops;

struct logtk_sink {
    const ltk_sink_ops *ops;
    ltk_errbuf err;
    ltk_outfile out;
    const char *display_path; /* for messages: the path or "<stdout>" (arena) */
    size_t nfields;           /* header fields of the format */
    char **field_names;       /* copies, in format order (arena) */
    ltk_arena arena;
    ltk_strbuf row;         /* the row being built (text kinds), reused */
    ltk_strbuf scratch;     /* second reusable buffer (base64, SQL text) */
    int flush_each_row;       /* fflush after every row (streaming to a pipe) */
    int batch;                /* a file of our own: rows collect in `row` and go out in blocks */
    ltk_sink_writer *writer; /* writes the blocks meanwhile, once one is full (NULL before) */
    int writer_failed;        /* no thread could be started: blocks are written here */
    int failed;               /* a write failed: later calls repeat the error */
    int open;                 /* the output is open and not yet committed/aborted */
    int closed;               /* logtk_sink_close() succeeded */
    void *impl;               /* the kind's own state */
    /* logtk_sink_new_callback / logtk_sink_new_memory: rows go to the
       caller's function or to `memory` instead of an output file */
    logtk_write_callback callback;
    void *callback_user;
    int to_memory;
    ltk_strbuf memory;
    int memory_taken;         /* logtk_sink_memory_take() gave out memory: clear before adding */
};

extern const ltk_sink_ops ltk_sink_tsv_ops;
extern const ltk_sink_ops ltk_sink_csv_ops;
extern const ltk_sink_ops ltk_sink_jsonl_ops;
extern const ltk_sink_ops ltk_sink_sqlite_ops;
extern const ltk_sink_ops ltk_sink_templates_ops;

/** 1 when [p, p+n) is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
int ltk_utf8_valid(const char *p, size_t n);

/**
 * Length of the well-formed UTF-8 sequence starting at p (1..4), or 0 when the
 * byte at p does not start one that fits in [p, end).
 */
size_t ltk_utf8_sequence_length(const unsigned char *p, const unsigned char *end);

/** Appends the standard base64 (RFC 4648, with padding) of n bytes.  Returns 0 or -1. */
int ltk_base64_append(ltk_strbuf *b, const void *data, size_t n);

/**
 * Writes the row buffer s->row to the output (and flushes when
 * flush_each_row), then clears it; a batched sink (a file of its own, not
 * flushed per row) keeps the rows until they fill a block.  Returns LOGTK_OK
 * or LOGTK_ERR_IO naming the output.
 */
int ltk_sink_emit_row(logtk_sink *s);

/** Records an out-of-memory error for s and returns LOGTK_ERR_NOMEM. */
int ltk_sink_nomem(logtk_sink *s);

#endif
