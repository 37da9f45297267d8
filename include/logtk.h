/*
 * logtk.h - the one public header of liblogtk.
 *
 * liblogtk turns raw log lines into templates and parameters, stores logs in a
 * compact lossless archive, and flags anomalies.  This header is the
 * documentation: every declaration says what it does, what it returns and who
 * owns what.
 *
 * Conventions (shared by every handle):
 *  - Handles are opaque.  `logtk_X_new(&h, ...)` creates one, `logtk_X_free(h)`
 *    releases it; `logtk_X_free(NULL)` is harmless.
 *  - A constructor that fails leaves *out NULL, except the four whose error
 *    needs a handle to say why (logtk_parser_merge, logtk_output_open,
 *    logtk_sink_new, logtk_grep_new): on error they leave *out a handle whose
 *    errmsg gives the reason (NULL only when that handle could not be
 *    allocated); free it in every case.
 *  - Every call that can fail returns an int status: LOGTK_OK (0), LOGTK_DONE
 *    (1, "nothing more", not an error) or a negative LOGTK_ERR_* code.  Codes are
 *    never renumbered.  After a failure, `logtk_X_errmsg(h)` gives a readable
 *    message naming the file and line where there is one.
 *  - A handle is used by one thread at a time.  Different handles are
 *    independent and may be used from different threads.
 *  - Slices (`logtk_slice`) point into memory owned by the handle that returned
 *    them and stay valid until the next call on that handle, unless said
 *    otherwise.
 *  - Memory returned to the caller (snapshots) is released with logtk_free().
 */
#ifndef LOGTK_H
#define LOGTK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

#define LOGTK_OK 0
#define LOGTK_DONE 1                /* end of input / nothing more: not an error */
#define LOGTK_ERR_NOMEM (-1)        /* out of memory */
#define LOGTK_ERR_IO (-2)           /* a file could not be opened, read or written */
#define LOGTK_ERR_INVALID (-3)      /* bad argument or option value */
#define LOGTK_ERR_SYNTAX (-4)       /* bad log format string or regular expression */
#define LOGTK_ERR_DATA (-5)         /* bad input data (malformed CSV, binary file, ...) */
#define LOGTK_ERR_LINE_TOO_LONG (-6) /* a line exceeds the configured maximum length */
#define LOGTK_ERR_ARCHIVE (-7)      /* damaged or unreadable compressed stream or archive */
#define LOGTK_ERR_STATE (-8)        /* snapshot or model damaged, foreign or of another version */
#define LOGTK_ERR_NOT_FOUND (-9)    /* unknown name: dataset, parser, model, template id */
#define LOGTK_ERR_LIMIT (-10)       /* a regex hit its match limit (hostile pattern or input),
                                       or training data exceed a detector's size limit */
#define LOGTK_ERR_UNSUPPORTED (-11) /* operation not supported by this object */

/** A short, static English description of a status code ("out of memory"). */
const char *logtk_strerror(int status);

/**
 * The version of this header, defined here and nowhere else (configure.ac reads it).
 * LOGTK_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH, for #if tests; compare
 * it with logtk_version_number() to find a header and library of different versions.
 */
#define LOGTK_VERSION_MAJOR 0
#define LOGTK_VERSION_MINOR 1
#define LOGTK_VERSION_PATCH 0
#define LOGTK_VERSION_NUMBER \
    (LOGTK_VERSION_MAJOR * 10000 + LOGTK_VERSION_MINOR * 100 + LOGTK_VERSION_PATCH)

/** The library's version as a string, "MAJOR.MINOR.PATCH", e.g. "0.1.0". */
const char *logtk_version(void);

/** The library's LOGTK_VERSION_NUMBER (that of the header it was built with). */
unsigned logtk_version_number(void);

/*
 * Temporary files and signals.  Outputs are written to a temporary file next
 * to the target and renamed into place at the end; a program killed by a
 * signal half-way would leave it behind.  The library keeps a registry of the
 * temporary files it has open; a program's handler for SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE, SIGXFSZ and the like calls logtk_remove_temporaries() and
 * then re-raises the signal with its default action.  A program registers its
 * own temporary files (a spool of stdin, say) the same way.
 */

/**
 * Unlinks every registered temporary file.  Async-signal-safe (only atomic
 * loads and unlink()), so it may be called from a signal handler; the files
 * stay registered (unlinking a missing file is harmless).
 */
void logtk_remove_temporaries(void);

/**
 * Registers a temporary file (the path is copied) for
 * logtk_remove_temporaries(); thread-safe.  Returns LOGTK_OK, LOGTK_ERR_INVALID
 * for a path longer than 4095 bytes or LOGTK_ERR_NOMEM when 64 files are
 * registered already; the file is then simply not removed on a signal.
 */
int logtk_temporary_add(const char *path);

/** Unregisters a temporary file (after renaming or removing it); unknown paths are ignored. */
void logtk_temporary_remove(const char *path);

/** Releases memory that the library handed to the caller (snapshots). NULL is harmless. */
void logtk_free(void *ptr);

/** A byte range owned by someone else.  Not NUL-terminated. */
typedef struct logtk_slice {
    const char *ptr;
    size_t len;
} logtk_slice;

/* ------------------------------------------------------------------------ */
/* Reader: lines with their exact bytes, from files, stdin and containers    */
/* ------------------------------------------------------------------------ */

/*
 * The reader yields lines from a plain file, stdin, a compressed file
 * (.gz .bz2 .xz .zst, detected by content, not by name) or the regular-file
 * members of a .tar, .tar.gz or .zip container, one member after another.  Every
 * source gives the same lines as the plain file would.
 *
 * Lines keep their exact bytes: NUL bytes, invalid UTF-8 and a CR before the
 * LF survive.  The terminator is reported separately (eol_len), so writing
 * data[0 .. len + eol_len) for every line reproduces the input byte for byte,
 * including a missing final newline.
 */
typedef struct logtk_reader logtk_reader;

/** Default longest line, in bytes, without its terminator (1 MiB). */
#define LOGTK_DEFAULT_MAX_LINE ((size_t)1 << 20)

/** One line.  `data` stays valid until the next logtk_reader_next() call. */
typedef struct logtk_line {
    const char *data;   /* the line's bytes, without its terminator */
    size_t len;         /* length of data without the terminator */
    size_t eol_len;     /* 0 (last line, no newline), 1 ("\n") or 2 ("\r\n"); the
                           terminator bytes follow data[len] */
    uint64_t number;    /* 1-based line number within the current source or member */
    const char *source; /* the file name, "-" for stdin, or "ARCHIVE:MEMBER" */
} logtk_line;

/** Creates a reader.  Returns LOGTK_OK or LOGTK_ERR_NOMEM. */
int logtk_reader_new(logtk_reader **out);

/**
 * Sets the longest line accepted, in bytes (default LOGTK_DEFAULT_MAX_LINE).
 * A longer line makes logtk_reader_next() fail with LOGTK_ERR_LINE_TOO_LONG
 * naming the file and line; it is never cut silently.
 */
int logtk_reader_set_max_line(logtk_reader *r, size_t max_line);

/**
 * Opens a file by path; NULL or "-" is standard input.  Closes whatever the
 * reader had open.  Returns LOGTK_OK, LOGTK_ERR_IO (cannot open: the message
 * names the file and the system error) or LOGTK_ERR_ARCHIVE.
 */
int logtk_reader_open_path(logtk_reader *r, const char *path);

/** Opens a caller-owned buffer (kept by reference until closed).  `name` is used in messages. */
int logtk_reader_open_memory(logtk_reader *r, const void *buf, size_t len, const char *name);

/**
 * Reads the next line.  Returns LOGTK_OK (line filled in), LOGTK_DONE at the end
 * of the input, or an error: LOGTK_ERR_LINE_TOO_LONG, LOGTK_ERR_IO, or
 * LOGTK_ERR_ARCHIVE for a damaged compressed stream or archive.  On
 * LOGTK_ERR_ARCHIVE every line before the damage has been delivered.
 */
int logtk_reader_next(logtk_reader *r, logtk_line *line);

/**
 * Nonzero when the input looks like a binary file rather than text, judged on
 * the first block read (NUL bytes or a high share of control bytes).  Lines
 * are still delivered; callers decide whether to refuse the file.
 */
int logtk_reader_is_binary(const logtk_reader *r);

/** Bytes consumed from the underlying (possibly compressed) source so far, for progress. */
uint64_t logtk_reader_bytes_read(const logtk_reader *r);

/** Size of the underlying source in bytes, or 0 if unknown (stdin, pipes). */
uint64_t logtk_reader_source_size(const logtk_reader *r);

/** Closes the current source.  The reader may be opened again. */
int logtk_reader_close(logtk_reader *r);

/** The last error, e.g. "app.log:1234: line longer than 1048576 bytes". */
const char *logtk_reader_errmsg(const logtk_reader *r);

/** Frees the reader (closing its source).  NULL is harmless. */
void logtk_reader_free(logtk_reader *r);

/* ------------------------------------------------------------------------ */
/* Log formats: header fields + content                                      */
/* ------------------------------------------------------------------------ */

/*
 * A log format in Loghub's notation, e.g.
 *     "<Date> <Time> <Level> <Component>: <Content>"
 * Each <Name> is a field; the text between fields is a regular-expression
 * fragment in which a run of spaces matches one or more whitespace characters;
 * the pattern is anchored at both ends, and fields match lazily.  Exactly one
 * field must be named Content.  Parenthesised fragments such as
 * "(\[<PID>\])?" make fields optional.  The format compiles to one PCRE2
 * pattern (JIT when available, with match limits).
 */
typedef struct logtk_format logtk_format;

/** Most header fields a format may have (Content excluded). */
#define LOGTK_MAX_FIELDS 32

/** A line split by a format. Slices point into the line given to logtk_format_match(). */
typedef struct logtk_record {
    int matched;                          /* 1 if the line matched the format */
    size_t nfields;                       /* header fields (Content excluded) */
    logtk_slice fields[LOGTK_MAX_FIELDS]; /* in format order; empty when unmatched */
    logtk_slice content;                  /* the Content field, or the whole line when unmatched */
} logtk_record;

/** Creates an empty format that matches nothing but Content (the whole line). */
int logtk_format_new(logtk_format **out);

/**
 * Compiles a format string.  Returns LOGTK_OK or LOGTK_ERR_SYNTAX with a message
 * pointing at the offending character (unbalanced <, no <Content>, more than
 * LOGTK_MAX_FIELDS fields, duplicate field, invalid regex fragment).
 */
int logtk_format_compile(logtk_format *f, const char *spec);

/** Number of header fields (Content excluded). */
size_t logtk_format_field_count(const logtk_format *f);

/** Name of header field i (0-based, Content excluded), or NULL when out of range. */
const char *logtk_format_field_name(const logtk_format *f, size_t i);

/**
 * Splits one line (without its terminator) into fields and content.  A line
 * that does not match is not an error: rec->matched is 0 and rec->content is
 * the whole line.  Returns LOGTK_OK, or LOGTK_ERR_LIMIT when the regex engine
 * hit its match limit (the record is then filled as unmatched).
 */
int logtk_format_match(logtk_format *f, const char *line, size_t len, logtk_record *rec);

/** The last error. */
const char *logtk_format_errmsg(const logtk_format *f);

/**
 * How many times the format's regex match limit (2,000,000 steps) has been
 * lowered since logtk_format_compile().  After 8 lines in a row hit it (a
 * regex that backtracks catastrophically on this input), it drops to a
 * hundredth, never below 20,000 steps nor below ten times what the costliest
 * measured matching line needed; a later matching line that needs more
 * raises it again.  The logtk_format_match() call that lowered it returns
 * LOGTK_ERR_LIMIT with an errmsg naming the format and the new limit.
 */
unsigned logtk_format_limit_lowerings(const logtk_format *f);

/** Frees the format.  NULL is harmless. */
void logtk_format_free(logtk_format *f);

/* ------------------------------------------------------------------------ */
/* Parsers: content -> template id + parameters                              */
/* ------------------------------------------------------------------------ */

/*
 * A parser groups log messages (the Content of records) into templates such as
 * "Received block <*> of size <*> from <*>" and extracts the parameters.
 *
 * Before parsing, masking rules (PCRE2 patterns, look-around allowed) replace
 * variable parts of the content with "<*>" (or another replacement); masks run
 * in the order added, each over the result of the previous one, as Loghub's
 * preprocessing and Drain3's masking do.  Parameters are always reported as
 * the original text, never the mask.
 *
 * Online parsers (Drain) assign a template to each line as it is fed.  Batch
 * parsers only store the line when fed (template_id 0) and assign templates in
 * logtk_parser_finish().  Either way, after finish,
 * logtk_parser_assignment() gives each line's final template, and
 * logtk_parser_extract() gives a line's parameters against a final template.
 *
 * Template ids are 1-based, dense and stable within a run: a template keeps its
 * id when its text changes.
 *
 * Every parser keeps one promise about its templates: a template matches each
 * line assigned to it (logtk_template_match(): "<*>" stands for any text, a
 * run of blanks for any run of blanks), and a line's parameters are its own
 * text at those "<*>", in order, so template and parameters rebuild the
 * content.  Where an algorithm's own template leaves out text its masks or
 * delimiters removed, the template is widened there ("<*>", or "<*>" glued
 * to a neighbouring token where a line has nothing in that place); this
 * changes the text only, never which lines share a template.
 */
typedef struct logtk_parser logtk_parser;

/** Template event kinds reported through the template callback. */
#define LOGTK_TEMPLATE_CREATED 1
#define LOGTK_TEMPLATE_CHANGED 2

/** Called when a template is created or its text changes; text is valid during the call only. */
typedef void (*logtk_template_callback)(void *user, int kind, uint32_t template_id,
                                        const char *text, size_t len);

/** The result of feeding one line. */
typedef struct logtk_event {
    uint32_t template_id;      /* 1-based; 0 when a batch parser has not assigned one yet */
    int created;               /* 1 when this line created the template */
    int changed;               /* 1 when this line changed the template's text */
    size_t nparams;            /* parameters of this line against the template as it is now */
    const logtk_slice *params; /* slices of the content passed to feed; valid until the next call */
    logtk_slice template_text; /* the template's text as it is now (as logtk_parser_template()
                                  gives it; empty when template_id is 0); valid until the
                                  next call on the parser */
    const logtk_slice *param_names; /* per parameter, the name of the named mask that produced
                                  it ("IP"), or an empty slice (verbatim text, an unnamed mask,
                                  or a parameter wider than one mask's match); NULL when the
                                  parser has no named masks; valid until the next call */
} logtk_event;

/**
 * Creates a parser.  `algorithm` is a name from logtk_parser_algorithm_name()
 * ("drain", ...); NULL picks the default, "fuse" (logtk's own online parser;
 * logtk_parser_algorithm() of such a parser names it).  Returns LOGTK_OK, LOGTK_ERR_NOMEM or
 * LOGTK_ERR_NOT_FOUND (unknown algorithm; *out is NULL).
 */
int logtk_parser_new(logtk_parser **out, const char *algorithm);

/** The name of the i-th available algorithm (0-based), or NULL past the end. */
const char *logtk_parser_algorithm_name(size_t i);

/** A one-line description of the i-th algorithm, or NULL past the end. */
const char *logtk_parser_algorithm_summary(size_t i);

/** The algorithm of this parser ("drain"). */
const char *logtk_parser_algorithm(const logtk_parser *p);

/**
 * Sets a parameter by name from its text form, before the first line is fed
 * (one verb for every handle: set_option, as logtk_windows_set_option()).
 * Drain: "st" (similarity threshold, 0..1, default 0.4), "depth" (prefix-tree
 * depth including root and length layers, >= 3, default 4), "max_children"
 * (default 100).  Returns LOGTK_ERR_NOT_FOUND for a name this algorithm does not
 * have and LOGTK_ERR_INVALID for a bad value.
 */
int logtk_parser_set_option(logtk_parser *p, const char *name, const char *value);

/** Deprecated: the old name of logtk_parser_set_option(), kept so that existing programs build and link. */
int logtk_parser_set_param(logtk_parser *p, const char *name, const char *value);

/**
 * Adds a masking rule.  `replacement` NULL means "<*>".  Returns LOGTK_OK or
 * LOGTK_ERR_SYNTAX (the message quotes the pattern and the PCRE2 error offset).
 */
int logtk_parser_add_mask(logtk_parser *p, const char *pattern, const char *replacement);

/**
 * Adds a masking rule with a name: logtk_parser_add_mask(), and each
 * parameter that is exactly the text this rule replaced is reported with
 * the name in logtk_event.param_names ("<:IP:>" style templates; the
 * replacement is still "<*>" unless given).  `name` NULL or "" is no name.
 * Names are kept in snapshots and must agree for logtk_parser_merge().
 * On the command line: --mask NAME=PATTERN.  Returns as logtk_parser_add_mask().
 */
int logtk_parser_add_named_mask(logtk_parser *p, const char *name, const char *pattern,
                                const char *replacement);

/** Registers the template callback (NULL to remove). */
int logtk_parser_set_callback(logtk_parser *p, logtk_template_callback cb, void *user);

/**
 * Feeds one message (the content of a record).  Fills *ev (may be NULL).  The
 * line is the next in sequence: line index 0 is the first ever fed.  Returns
 * LOGTK_OK, LOGTK_ERR_LIMIT (a mask hit its match limit: the line is parsed
 * without that mask) or LOGTK_ERR_NOMEM.
 */
int logtk_parser_feed(logtk_parser *p, const char *content, size_t len, logtk_event *ev);

/**
 * Classifies a line without learning (Drain3's match()): fills *ev with the
 * id, text and parameters (and parameter names) of the learned template that
 * matches `content` (masks applied as in feed), and leaves the parser's
 * templates, counts and line count unchanged; no callback fires and
 * ev->created / ev->changed are 0.  The answer always matches the line under
 * logtk_template_match().  Where the algorithm's own search would put the
 * line in an existing template unchanged (Drain: its prefix tree; SHISO: its
 * tree walk; ULP: its word key; LenMa: its length buckets), that template is
 * the answer; otherwise, and for the batch parsers, whose structure is gone
 * after finish, the most specific template that matches (most fixed text;
 * the lowest id on a tie).  Two ids the algorithm merged into one text are
 * answered by the id whose text both show.  Cost: the templates that share
 * the line's first word or start with "<*>", not all of them.  Batch parsers
 * have templates only after logtk_parser_finish().  Returns LOGTK_OK,
 * LOGTK_ERR_NOT_FOUND (no template matches; ev->template_id is 0),
 * LOGTK_ERR_LIMIT (a mask hit its match limit; the answer is still given),
 * LOGTK_ERR_INVALID or LOGTK_ERR_NOMEM.
 */
int logtk_parser_match(logtk_parser *p, const char *content, size_t len, logtk_event *ev);

/**
 * Ends the input: batch parsers compute their templates here; online parsers
 * note it, and fuse reads its templates once more (a template learned before
 * its message's slots varied joins the one the later lines made, and the
 * templates of a key's value of free text printed last that no line showed
 * so yet join one, and so do the templates of a state machine's pairs of
 * states; ids stay, as aliases).
 */
int logtk_parser_finish(logtk_parser *p);

/**
 * What the algorithm's documented caps cut (see LIMITS in logtk-parse(1)):
 * the batch parsers that are quadratic in distinct messages (LKE, LogMine,
 * MoLFI) cap their work far above the Loghub-2k sizes.  Returns how many
 * lines or messages a cap touched (0: none, the result is the uncapped
 * algorithm's) and sets *what (when not NULL) to a message naming each cap,
 * or NULL; valid until p is freed.  Complete after logtk_parser_finish().
 */
uint64_t logtk_parser_capped(const logtk_parser *p, const char **what);

/** Number of lines fed so far. */
uint64_t logtk_parser_line_count(const logtk_parser *p);

/**
 * The final template id of the line fed at `index` (0-based), after
 * logtk_parser_finish().  Online parsers need finish only for the final
 * text, not the id.  Returns LOGTK_ERR_NOT_FOUND when index is out of range and
 * LOGTK_ERR_UNSUPPORTED when the parser does not keep per-line assignments
 * (see the "keep_assignments" parameter: "0" makes online parsers stream in
 * memory independent of input length).
 */
int logtk_parser_assignment(logtk_parser *p, uint64_t index, uint32_t *template_id);

/** Number of templates (ids run from 1 to this number). */
uint32_t logtk_parser_template_count(const logtk_parser *p);

/**
 * The text and line count of a template.  The text is "<*>"-separated tokens
 * joined by single spaces.  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND.
 */
int logtk_parser_template(logtk_parser *p, uint32_t template_id, logtk_slice *text,
                          uint64_t *count);

/**
 * Parameters of `content` against template `template_id` as it is now: the
 * original text of each "<*>" of the template, in order.  Fills ev->params
 * (valid until the next call on p), ev->nparams, ev->template_text and
 * ev->param_names; ev->template_id is set.
 * Returns LOGTK_ERR_NOT_FOUND (no parameters) when the content does not match
 * that template, which never happens for the template a line was assigned.
 */
int logtk_parser_extract(logtk_parser *p, uint32_t template_id, const char *content, size_t len,
                         logtk_event *ev);

/**
 * Does template text `tmpl` match `content`?  Each "<*>" stands for any text
 * (empty, or holding blanks), each run of blanks (space, tab, \v, \f, \r, \n)
 * for any run of blanks, and blanks at either end are ignored.  Returns
 * LOGTK_OK on a match, LOGTK_ERR_NOT_FOUND otherwise (LOGTK_ERR_INVALID for a
 * NULL with a length, LOGTK_ERR_NOMEM).  *nparams (may be NULL) receives the
 * number of "<*>"; on a match params[0..cap) (may be NULL) receives the text
 * of each "<*>" as slices of content, each "<*>" taking the shortest text
 * that lets the rest match, from the left.  Time: linear in the content for
 * the usual template, O(content * template) at worst.
 */
int logtk_template_match(const char *tmpl, size_t tlen, const char *content, size_t clen,
                         logtk_slice *params, size_t cap, size_t *nparams);

/**
 * Do these parameters rebuild the content under template `tmpl`?  They must
 * be slices of `content` itself, in order, one per "<*>", and the template's
 * fixed text must be what lies around them (blank runs for blank runs, blanks
 * at either end ignored).  Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND when they do
 * not, LOGTK_ERR_INVALID for a NULL with a length.  `logtk parse --check`
 * applies it to every row.
 */
int logtk_template_rebuilds(const char *tmpl, size_t tlen, const char *content, size_t clen,
                            const logtk_slice *params, size_t nparams);

/**
 * Saves the learned state (templates, parameters, masks) as an opaque,
 * versioned byte snapshot in logtk's saved-file frame: the magic
 * LOGTK_PARSER_SNAPSHOT_MAGIC, a u32 version, a u64 body length, the body
 * and a 32-bit checksum, as a model file (logtk-model(5)).  Snapshots of
 * earlier versions still load.  *buf is released with logtk_free().
 */
int logtk_parser_save(logtk_parser *p, void **buf, size_t *len);

/**
 * Loads a snapshot made by logtk_parser_save() of the same algorithm, replacing
 * the learned state; parsing continues from there, line indices and template
 * ids going on from the saved run's.  Drain and fuse save their whole
 * learning: a run split in two by a save and a load gives the templates of
 * one run.  The other parsers save their templates only and learn the lines
 * fed after the load among themselves (a batch parser groups only those).
 * Returns LOGTK_ERR_STATE for a damaged, truncated, foreign or newer snapshot.
 */
int logtk_parser_load(logtk_parser *p, const void *buf, size_t len);

/**
 * The first 8 bytes of every parser snapshot, so a caller reading one from a
 * file can refuse a foreign file (or an endless one such as /dev/zero) after
 * 8 bytes instead of reading it whole first.
 */
#define LOGTK_PARSER_SNAPSHOT_MAGIC "LTKPSNAP"

/**
 * The algorithm a snapshot was saved by, so a caller can create the right
 * parser before logtk_parser_load(): *name is a static string such as
 * "fuse".  Returns LOGTK_OK, LOGTK_ERR_STATE (not a snapshot, damaged or of
 * another version) or LOGTK_ERR_NOT_FOUND (an algorithm this build lacks);
 * *name is NULL on error.
 */
int logtk_parser_snapshot_algorithm(const void *buf, size_t len, const char **name);

/**
 * The content-hash key of a template: FNV-1a 64 of its text exactly as
 * logtk_parser_template() gives it (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3).  It depends on the text only, never on the template's id,
 * the order of arrival, the run or the machine, so shards that learned the
 * same template name it the same way; `logtk parse --templates` prints it as
 * 16 hex digits (EventKey).  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND.
 */
int logtk_parser_template_key(logtk_parser *p, uint32_t template_id, uint64_t *key);

/**
 * Merges the saved states of n shards (snapshots of logtk_parser_save(), of
 * the same algorithm, parameters -- in any order -- and masks -- in the same
 * order) into one new parser, *out, as if logtk_parser_load() had loaded the
 * merged snapshot: parsing continues from it, and its line count is the sum
 * of the shards'.  Templates are united by content (their text; ids do not
 * matter), line counts summed, then folded: the distinct texts, sorted by
 * (content key, text), are fed through a fresh parser of the same setup, and
 * each source's lines count for the template its text lands in, so templates
 * the algorithm would group become one.  The result does not depend on the
 * order of the snapshots (merging A B and B A saves byte-identical states).
 * Algorithm-internal statistics restart from the templates (each text is fed
 * once).  names[i] (may be NULL, or names NULL) names snapshot i in messages.
 * Returns LOGTK_OK, LOGTK_ERR_STATE (a snapshot damaged, foreign, or made
 * with another algorithm, parameter or mask: the message names it),
 * LOGTK_ERR_INVALID (n == 0) or LOGTK_ERR_NOMEM.  On error *out is a parser
 * whose logtk_parser_errmsg() gives the reason (NULL only when it could not
 * be allocated); free it in every case.
 */
int logtk_parser_merge(logtk_parser **out, size_t n, const void *const *snapshots,
                       const size_t *lens, const char *const *names);

/** The last error. */
const char *logtk_parser_errmsg(const logtk_parser *p);

/** Frees the parser.  NULL is harmless. */
void logtk_parser_free(logtk_parser *p);

/* ------------------------------------------------------------------------ */
/* Loghub dataset presets                                                    */
/* ------------------------------------------------------------------------ */

/*
 * The 16 Loghub datasets as presets: log format, masking regexes and per-parser
 * parameters, as used by the Loghub benchmarks.
 */
typedef struct logtk_dataset logtk_dataset;

/** The i-th preset (0-based, in Loghub's order: HDFS, Hadoop, ...), or NULL past the end. */
const logtk_dataset *logtk_dataset_at(size_t i);

/** The preset with this name (case-insensitive), or NULL. */
const logtk_dataset *logtk_dataset_find(const char *name);

/** The dataset's name ("HDFS"). */
const char *logtk_dataset_name(const logtk_dataset *d);

/** The dataset's log format string in Loghub notation. */
const char *logtk_dataset_format(const logtk_dataset *d);

/**
 * Applies the dataset's masks and the parameters it sets for p's algorithm,
 * by logtk_parser_set_option() name: drain: st, depth; spell: tau; iplom: ct,
 * lower_bound; ael: min_event_count, merge_percent; lenma: threshold; brain:
 * threshold, delimiter; logram: double_threshold, tri_threshold; logmine:
 * max_dist, k; shiso: max_child_num, merge_threshold, format_lookup_threshold,
 * super_format_threshold; logcluster: rsupport; slct: support; logsig:
 * group_num; lke: split_threshold.  A name the
 * algorithm does not have (LOGTK_ERR_NOT_FOUND) is skipped.  Some algorithms
 * get their own benchmark script's mask list (e.g. brain on HPC: none).
 * Returns LOGTK_OK or the parser's error (a mask that does not compile).
 */
int logtk_dataset_configure(const logtk_dataset *d, logtk_parser *p);

/**
 * logtk_dataset_configure() as the scripts of one benchmark run the
 * parsers: NULL or "loghub" (the Loghub-2k benchmark, logparser's scripts:
 * what logtk_dataset_configure() applies) or "loghub2" (Loghub-2.0's,
 * ISSTA'24), whose Drain takes only the block-id regex on HDFS and no regex
 * on Spark.  `logtk bench parse` uses "loghub2" with Loghub-2.0's ground
 * truths, so its drain rows are comparable with the published ones.
 * Returns LOGTK_ERR_NOT_FOUND for another name, else as
 * logtk_dataset_configure().
 */
int logtk_dataset_configure_for(const logtk_dataset *d, logtk_parser *p, const char *benchmark);

/**
 * Loghub's (and Drain's) EventId of a template text[0..len): the first 8 hex
 * digits of its MD5, written with a NUL into out, so a template equal to
 * Loghub's gets Loghub's EventId and session files and models made from
 * Loghub's data apply to logs parsed here (detect's event names).
 */
void logtk_loghub_event_id(const char *text, size_t len, char out[9]);

/** A published parsing result on a full-size Loghub-2.0 dataset. */
typedef struct logtk_published_result {
    const char *parser;  /**< "Drain", "LILAC", "UNLEASH" */
    const char *source;  /**< where it was published ("ISSTA'24 RQ2") */
    double ga, pa, fga, fta;
} logtk_published_result;

/**
 * The i-th published result (0-based) on the full-size Loghub-2.0 log of the
 * dataset named `dataset` (case-insensitive; "mean" for the mean over the 14
 * systems), or NULL past the end.  The figures are the papers' own, for
 * printing beside a benchmark run; nothing here is measured by logtk.
 */
const logtk_published_result *logtk_published_full_result(const char *dataset, size_t i);

/* ------------------------------------------------------------------------ */
/* CSV reading (RFC 4180)                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Reads RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line
 * breaks; records end with LF or CRLF; the last record may lack a terminator.
 * Used for Loghub ground truth and label files.
 */
typedef struct logtk_csv logtk_csv;

/** Creates a CSV reader. */
int logtk_csv_new(logtk_csv **out);

/** Opens a file (through the reader, so compressed files work too); "-" is stdin. */
int logtk_csv_open_path(logtk_csv *c, const char *path);

/** Opens a caller-owned buffer (kept by reference until the next open or free); `name` is used in messages. */
int logtk_csv_open_memory(logtk_csv *c, const void *buf, size_t len, const char *name);

/**
 * Reads the next record.  *fields points to *nfields slices with quotes removed
 * and doubled quotes undone, valid until the next call.  Returns LOGTK_OK,
 * LOGTK_DONE, or LOGTK_ERR_DATA for malformed input (message names file and line).
 */
int logtk_csv_next(logtk_csv *c, const logtk_slice **fields, size_t *nfields);

/** The 1-based physical line on which the last record returned started. */
uint64_t logtk_csv_line(const logtk_csv *c);

/** The last error. */
const char *logtk_csv_errmsg(const logtk_csv *c);

/** Frees the reader.  NULL is harmless. */
void logtk_csv_free(logtk_csv *c);

/* ------------------------------------------------------------------------ */
/* Parsing accuracy metrics (Loghub-2.0 definitions)                         */
/* ------------------------------------------------------------------------ */

/** Parsing accuracy of N messages. */
typedef struct logtk_parse_metrics {
    size_t messages;         /* N */
    size_t true_templates;   /* G: distinct true template strings */
    size_t parsed_templates; /* P: distinct parsed template strings */
    double ga;  /* grouping accuracy */
    double pa;  /* parsing accuracy: parsed template string equals the true one */
    double fga; /* F1 of template-level grouping accuracy */
    double fta; /* F1 of template-level accuracy (grouping and string both right) */
} logtk_parse_metrics;

/**
 * Computes GA, PA, FGA and FTA.  parsed[i] and truth[i] are the template
 * strings of message i; messages are grouped by template string on both sides.
 * Returns LOGTK_OK, LOGTK_ERR_INVALID (n == 0) or LOGTK_ERR_NOMEM.
 */
int logtk_evaluate(size_t n, const logtk_slice *parsed, const logtk_slice *truth,
                   logtk_parse_metrics *out);

/** What makes a (true template, parsed template) pair an error (logtk_group_error.kind). */
#define LOGTK_GROUP_SPLIT 1u  /* the true group's messages are in several parsed groups */
#define LOGTK_GROUP_MERGED 2u /* the parsed group holds messages of several true groups */
#define LOGTK_GROUP_TEXT 4u   /* one group on both sides, its template written otherwise */

/** A true and a parsed template that share messages without being one correct group. */
typedef struct logtk_group_error {
    logtk_slice truth;  /* the true template */
    logtk_slice parsed; /* the parsed template */
    size_t messages;    /* messages with both */
    size_t first;       /* index of the first of them */
    unsigned kind;      /* LOGTK_GROUP_SPLIT and/or LOGTK_GROUP_MERGED, or LOGTK_GROUP_TEXT */
} logtk_group_error;

/** Called by logtk_evaluate_errors(): 0 to go on, anything else stops the walk. */
typedef int (*logtk_group_error_fn)(void *arg, const logtk_group_error *e);

/**
 * The errors behind GA and PA, with the same inputs as logtk_evaluate():
 * calls fn for every pair of a true and a parsed template that share
 * messages, except a correct group (the same messages on both sides) whose
 * strings are equal.  Such a pair is SPLIT, MERGED or both (it costs GA,
 * FGA and FTA), or TEXT (one group written differently: it costs PA and
 * FTA only).  The pairs come in the order of their true group's first
 * message, then of their first message; the slices point into the inputs.
 * Returns LOGTK_OK, LOGTK_ERR_INVALID (n == 0 or fn NULL), LOGTK_ERR_NOMEM,
 * or the first nonzero value fn returned.
 */
int logtk_evaluate_errors(size_t n, const logtk_slice *parsed, const logtk_slice *truth,
                          logtk_group_error_fn fn, void *arg);

/* ------------------------------------------------------------------------ */
/* Output files written atomically                                           */
/* ------------------------------------------------------------------------ */

/*
 * An output file that never replaces a good file with a half-written one:
 * writing goes to a temporary file next to the target, renamed into place by
 * logtk_output_commit() only when everything was written and flushed.  NULL
 * or "-" is standard output; an existing device or FIFO (/dev/null) is written
 * directly, never replaced; a symlink is followed so the link survives.  The
 * sinks and the archive writer use the same mechanism.
 */
typedef struct logtk_output logtk_output;

/**
 * Opens an output for `path`.  Returns LOGTK_OK, LOGTK_ERR_IO (the message
 * names the path and the system error) or LOGTK_ERR_NOMEM.  On error *out is
 * an output whose logtk_output_errmsg() gives the reason (NULL only when it
 * could not be allocated); free it with logtk_output_free() in every case.
 */
int logtk_output_open(logtk_output **out, const char *path);

/** The stream to write to (stdio), or NULL when the output is not open. */
FILE *logtk_output_stream(logtk_output *o);

/**
 * Flushes, syncs and closes the output and renames it into place.  On any
 * failure (an earlier write error, a full disk, a failed rename) the target is
 * left as it was and LOGTK_ERR_IO names it.
 */
int logtk_output_commit(logtk_output *o);

/**
 * The first half of logtk_output_commit(): flushes, syncs and closes the
 * temporary file (standard output or a device: flushes) and checks every
 * step, renaming nothing.  A program writing several outputs prepares them
 * all and commits them only when all were written; after it succeeds,
 * logtk_output_commit() only renames.  On failure the output is abandoned
 * (target untouched) and LOGTK_ERR_IO names it.
 */
int logtk_output_prepare(logtk_output *o);

/** The last error. */
const char *logtk_output_errmsg(const logtk_output *o);

/** Frees the output; an uncommitted temporary file is removed.  NULL is harmless. */
void logtk_output_free(logtk_output *o);

/* ------------------------------------------------------------------------ */
/* Sinks: structured output                                                  */
/* ------------------------------------------------------------------------ */

/*
 * A sink writes parsed lines as rows.  Kinds:
 *   "tsv"    header row, then LineId, header fields, Content, EventId ("E" and
 *            the template id), EventTemplate, ParameterList (a JSON array of
 *            strings); tab, LF, CR and backslash in any value are written as
 *            \t \n \r \\.  Other bytes pass unchanged.
 *   "csv"    Loghub's *_structured.csv layout exactly:
 *            LineId,<format fields>,Content,EventId,EventTemplate; RFC 4180
 *            quoting (fields holding a comma, quote, CR or LF are quoted, quotes
 *            doubled); LF line ends, as in the Loghub files.
 *   "jsonl"  one JSON object per line with the TSV columns as members
 *            (LineId a number, ParameterList an array).  Output is always valid
 *            UTF-8 JSON and lossless: a value whose bytes are not valid UTF-8 is
 *            written with U+FFFD in place of each bad byte and an extra member
 *            "<Name>_base64" holds its exact bytes (for ParameterList an array
 *            "ParameterList_base64" with every parameter in base64).
 *   "sqlite" tables lines(line_id, one TEXT column per header field, content,
 *            template_id), templates(template_id, template, count, key) and
 *            parameters(line_id, position, value) (position 1-based), indexes
 *            on lines(template_id) and parameters(value), a view "structured"
 *            joining lines and templates.  Values that are not valid UTF-8 are
 *            stored as BLOBs; header fields of lines that did not match the
 *            format are NULL.  Needs a file path (not stdout).
 *   "templates" only the template list: a header row, then EventId,
 *            EventTemplate (TSV-escaped), Occurrences, EventKey; rows are
 *            ignored.  EventKey and templates.key are the content-hash key
 *            (see logtk_parser_template_key()) as 16 lowercase hex digits,
 *            computed by the sink from the text it is given.
 * A sink given a path writes a temporary file next to it and renames it into
 * place on logtk_sink_close(); freeing an unclosed sink removes the temporary
 * file, so a half-written output never replaces a good file.  Such a text
 * sink (not one flushed per row) writes its rows in blocks of 256 KiB from a
 * thread of its own, started with the first full block and ended by
 * logtk_sink_close() or logtk_sink_free(); a write error shows at a later
 * logtk_sink_write() or at close.
 */
typedef struct logtk_sink logtk_sink;

/** One parsed line as a sink sees it. */
typedef struct logtk_row {
    uint64_t line_id;             /* 1-based */
    const logtk_record *record;   /* fields and content */
    uint32_t template_id;         /* 1-based */
    logtk_slice template_text;
    size_t nparams;
    const logtk_slice *params;
} logtk_row;

/**
 * Creates a sink of the given kind writing to `path` (NULL or "-": stdout).
 * `format` gives the header field names (may be NULL: no header fields).
 * Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND (unknown kind), LOGTK_ERR_INVALID (a
 * sqlite sink to standard output or a device), LOGTK_ERR_IO or
 * LOGTK_ERR_NOMEM.  On error *out is a sink whose logtk_sink_errmsg() gives
 * the reason (NULL only when it could not be allocated); free it in every case.
 */
int logtk_sink_new(logtk_sink **out, const char *kind, const char *path,
                   const logtk_format *format);

/**
 * Writes s[0..n) to fp as one TSV field, escaped the way the tsv sink escapes
 * every column: TAB, LF, CR and backslash become \t \n \r \\, every other
 * byte is written as it is.  Returns LOGTK_OK, LOGTK_ERR_NOMEM or LOGTK_ERR_IO.
 */
int logtk_tsv_write_field(FILE *fp, const char *s, size_t n);

/**
 * Writes one JSON object member, "NAME":"VALUE", to fp the way the jsonl sink
 * writes its columns: VALUE is s[0..n) with control bytes escaped and every
 * byte that starts no well-formed UTF-8 sequence written as U+FFFD, and then,
 * only when a byte was replaced, a twin member "NAME_base64" holding the exact
 * bytes, so the line stays valid JSON and nothing is lost.  NAME should be
 * ASCII.  Returns LOGTK_OK, LOGTK_ERR_NOMEM or LOGTK_ERR_IO (a failed write).
 */
int logtk_json_write_member(FILE *fp, const char *name, const char *s, size_t n);

/**
 * Writes s[0..n) to fp as one JSON string value (quotes included), escaped as
 * logtk_json_write_member() escapes a value: control bytes escaped, every byte
 * that starts no well-formed UTF-8 sequence written as U+FFFD (no base64
 * twin: use logtk_json_write_member() where the exact bytes matter).  For
 * array elements and values a caller frames itself.  Returns LOGTK_OK,
 * LOGTK_ERR_NOMEM or LOGTK_ERR_IO.
 */
int logtk_json_write_string(FILE *fp, const char *s, size_t n);

/**
 * Output callback of callback sinks and the archive writer: write len bytes
 * (data is valid during the call only); return 0 on success, nonzero on
 * failure.
 */
typedef int (*logtk_write_callback)(void *user, const void *data, size_t len);

/**
 * Creates a sink of a text kind ("tsv", "csv", "jsonl", "templates") that
 * hands its output to `cb` instead of a file, so an embedder gets rows
 * escaped exactly as the file sinks write them without writing an escaper:
 * the header row (if the kind has one) during this call, then each row as
 * one call with the whole row and its line end, in order.  A nonzero return
 * from cb makes the write fail with LOGTK_ERR_IO and the sink unusable.
 * logtk_sink_close() ends it (nothing to commit); logtk_sink_set_flush() has
 * no effect.  Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND (unknown kind),
 * LOGTK_ERR_INVALID (cb NULL, or "sqlite", which needs a file) or the error
 * of the header's callback; *out is set as for logtk_sink_new().
 */
int logtk_sink_new_callback(logtk_sink **out, const char *kind, logtk_write_callback cb,
                            void *user, const logtk_format *format);

/**
 * Creates a sink of a text kind that collects its output in memory, read
 * with logtk_sink_memory_take().  Returns as logtk_sink_new_callback().
 */
int logtk_sink_new_memory(logtk_sink **out, const char *kind, const logtk_format *format);

/**
 * The bytes a memory sink has written since the last take (the header row
 * first): *bytes is valid until the next call on s, and the next take or
 * write starts afresh, so memory stays at what was not yet taken.  Returns
 * LOGTK_OK or LOGTK_ERR_INVALID (not a memory sink).
 */
int logtk_sink_memory_take(logtk_sink *s, logtk_slice *bytes);

/** The name of the i-th sink kind (0-based: "tsv", "csv", "jsonl", "sqlite", "templates"), or NULL past the end. */
const char *logtk_sink_kind_name(size_t i);

/**
 * Makes the sink flush its output after every row (1) or only when its buffer
 * fills and at close (0, the default).  Flushing per row gives the lowest
 * latency for a reader at the end of a pipe; it costs throughput.
 */
int logtk_sink_set_flush(logtk_sink *s, int every_row);

/**
 * Writes one row.  After a failed write the sink is unusable: every later
 * call returns the same error and close does not replace the target file.
 */
int logtk_sink_write(logtk_sink *s, const logtk_row *row);

/** Writes one template of the list (sqlite: the templates table; templates: a row; others: ignored). */
int logtk_sink_write_template(logtk_sink *s, uint32_t template_id, logtk_slice text,
                              uint64_t count);

/** Flushes, closes and renames the output into place.  Returns LOGTK_ERR_IO on failure. */
int logtk_sink_close(logtk_sink *s);

/** The last error. */
const char *logtk_sink_errmsg(const logtk_sink *s);

/** Frees the sink; an unclosed sink's temporary file is removed.  NULL is harmless. */
void logtk_sink_free(logtk_sink *s);

/* ------------------------------------------------------------------------ */
/* Anomaly detection: sessions, windows, detectors (owner: detect/)          */
/* ------------------------------------------------------------------------ */

/*
 * A session set holds sequences of event names (template ids as text, such as
 * Drain's "bbb51b95" or logtk's "17"), one sequence per session or window, each
 * with an id and a label (LOGTK_LABEL_NORMAL, LOGTK_LABEL_ANOMALY or
 * LOGTK_LABEL_UNKNOWN).  Detectors turn a sequence into an event-count vector
 * over the events seen in training (loglizer's FeatureExtractor), optionally
 * tf-idf weighted and zero-mean centred, and score it.
 */
typedef struct logtk_sessions logtk_sessions;

#define LOGTK_LABEL_UNKNOWN (-1)
#define LOGTK_LABEL_NORMAL 0
#define LOGTK_LABEL_ANOMALY 1

/** Creates an empty session set.  Returns LOGTK_OK or LOGTK_ERR_NOMEM. */
int logtk_sessions_new(logtk_sessions **out);

/**
 * Appends the sessions of a CSV file with a header row naming an id column
 * (the first column), an optional "Label" column ("Normal"/"Anomaly", "0"/"1",
 * "-" = normal) and an "EventSequence" column of space-separated event names,
 * as loglizer's HDFS_100k_sessions.csv of the HDFS sample.  Returns LOGTK_OK,
 * LOGTK_ERR_IO, or LOGTK_ERR_DATA naming the file and line (missing column,
 * unknown label, duplicate id); on error the set is unchanged.
 */
int logtk_sessions_load(logtk_sessions *s, const char *path);

/**
 * Appends the sessions of a file in one of the layouts the field uses:
 *   "csv"        a header row naming the id column (first), an optional Label
 *                and an EventSequence column (logtk_sessions_load);
 *   "id-events"  no header; each line "ID,EVENTS" (events space-separated);
 *   "lines"      no header, no ids; each line one session's events,
 *                space-separated (DeepLog's hdfs_train): the session id is
 *                the file's base name, ':' and the line number ("hdfs_train:7").
 * label_all, when not LOGTK_LABEL_UNKNOWN, labels every session of the file
 * (DeepLog's files are labeled by which file they are).  Blank lines are
 * skipped.  Returns LOGTK_OK, LOGTK_ERR_INVALID (unknown layout), LOGTK_ERR_IO
 * or LOGTK_ERR_DATA naming the file and line; on error the set is unchanged.
 */
int logtk_sessions_load_layout(logtk_sessions *s, const char *path, const char *layout,
                               int label_all);

/**
 * The session layout a file's first line shows: "csv" (a header naming
 * EventSequence), "lines" (event numbers separated by spaces), "id-events"
 * (an id without spaces, a comma, event names), or NULL when the line does not
 * look like sessions (a raw or structured log).
 */
const char *logtk_sessions_sniff(const char *line, size_t len);

/**
 * Appends one event to the session with this id, creating the session (label
 * unknown) when the id is new.  Sessions keep the order in which their ids
 * first appeared.
 */
int logtk_sessions_append(logtk_sessions *s, const char *id, size_t id_len, const char *event,
                          size_t event_len);

/** Sets the label of the session with this id.  LOGTK_ERR_NOT_FOUND when absent. */
int logtk_sessions_set_label(logtk_sessions *s, const char *id, size_t id_len, int label);

/**
 * Reads labels from an "Id,Label" CSV (anomaly_label.csv layout) and applies
 * them to the sessions with those ids.  Rows naming ids that are not in the set
 * are skipped and counted in *unknown_ids (may be NULL); sessions the file does
 * not name keep their label.  An id may be repeated with the same label, not
 * with another.  Returns LOGTK_OK, LOGTK_ERR_IO or LOGTK_ERR_DATA (bad label
 * value, or an id labelled two ways: naming file and line); on error the
 * labels are unchanged.
 */
int logtk_sessions_load_labels(logtk_sessions *s, const char *path, uint64_t *unknown_ids);

/** Number of sessions. */
size_t logtk_sessions_count(const logtk_sessions *s);

/** The id of session i (valid while the set lives); empty slice when out of range. */
logtk_slice logtk_sessions_id(const logtk_sessions *s, size_t i);

/** The label of session i (LOGTK_LABEL_*); LOGTK_LABEL_UNKNOWN when out of range. */
int logtk_sessions_label(const logtk_sessions *s, size_t i);

/** Number of events in session i (0 when out of range). */
size_t logtk_sessions_length(const logtk_sessions *s, size_t i);

/** The name of event k of session i; an empty slice when out of range. */
logtk_slice logtk_sessions_event(const logtk_sessions *s, size_t i, size_t k);

/**
 * Splits sessions 0..count-1 into training and test rows (indices), as
 * loglizer does:
 *   "uniform"     each class is split in order: the first train_fraction of
 *                 the anomalies and of the normal sessions train (needs labels);
 *   "sequential"  the first train_fraction of all sessions train
 *                 ("chronological" is the same with, by convention, 0.8).
 * The training rows are then shuffled with a fixed seed (loglizer shuffles
 * them too; order matters to LogClustering and Isolation Forest only); test
 * rows keep their order.  *train and *test are released with logtk_free().
 */
int logtk_sessions_split(const logtk_sessions *s, const char *kind, double train_fraction,
                         uint64_t seed, size_t **train, size_t *ntrain, size_t **test,
                         size_t *ntest);

/** The last error. */
const char *logtk_sessions_errmsg(const logtk_sessions *s);

/** Frees the set.  NULL is harmless. */
void logtk_sessions_free(logtk_sessions *s);

/*
 * A detector is one model: "pca", "invariants", "logclustering", "iforest",
 * "ocsvm", "novelty", "ngram" (unsupervised; ngram reads each session's event
 * order, the others its event counts) or "lr", "dtree", "svm" (supervised,
 * need labels).
 * Training takes rows of a session set (indices may repeat, so a sample can be
 * replicated); scoring gives each row a score (higher = more anomalous) and a
 * verdict (score > the model's threshold).  A trained detector saves to and
 * loads from a versioned, checksummed model file (see logtk-model(5)).
 */
typedef struct logtk_detector logtk_detector;

/** The name of the i-th model (0-based), or NULL past the end. */
const char *logtk_detector_model_name(size_t i);

/** A one-line description of the i-th model, or NULL past the end. */
const char *logtk_detector_model_summary(size_t i);

/**
 * Creates an untrained detector for model `model` (NULL: "pca").  Returns
 * LOGTK_OK, LOGTK_ERR_NOMEM or LOGTK_ERR_NOT_FOUND (unknown model; *out NULL).
 */
int logtk_detector_new(logtk_detector **out, const char *model);

/** The model name of this detector. */
const char *logtk_detector_model(const logtk_detector *d);

/** 1 when the model needs labels to train (lr, dtree, svm), else 0. */
int logtk_detector_supervised(const logtk_detector *d);

/**
 * Sets a parameter by name from its text form, before training.  Every model
 * has "tfidf" (0 raw counts, 1 loglizer's idf, 2 smoothed idf) and "zero_mean"
 * (0/1); the others are listed in logtk-detect(1)
 * and by logtk_detector_param_name().  Returns LOGTK_ERR_NOT_FOUND for an
 * unknown name and LOGTK_ERR_INVALID for a bad value.
 */
int logtk_detector_set_option(logtk_detector *d, const char *name, const char *value);

/** Deprecated: the old name of logtk_detector_set_option(), kept so that existing programs build and link. */
int logtk_detector_set_param(logtk_detector *d, const char *name, const char *value);

/** The name of the detector's i-th parameter, or NULL past the end; *value gets its value. */
const char *logtk_detector_param_name(const logtk_detector *d, size_t i, double *value);

/**
 * Trains on rows[0..nrows) of s (NULL rows: every session).  Supervised models
 * need every row labeled (LOGTK_ERR_DATA otherwise); unsupervised ones ignore
 * labels except where the model says (logclustering trains on normal rows when
 * labels are known).  Returns LOGTK_OK, LOGTK_ERR_INVALID (no rows, no events),
 * LOGTK_ERR_DATA, LOGTK_ERR_NOMEM, or LOGTK_ERR_LIMIT when the training rows
 * exceed a size limit of the model (many distinct events: pca above 1,500
 * distinct rows and events, invariants above 1,000 events, the models that
 * need the dense matrix above 2^25 distinct rows x events; see
 * logtk-detect(1)); the message names the sizes and the limit.
 */
int logtk_detector_train(logtk_detector *d, const logtk_sessions *s, const size_t *rows,
                         size_t nrows);

/**
 * Scores rows[0..nrows) of s (NULL rows: every session): scores[i] (may be
 * NULL) and anomalous[i] (1/0, may be NULL).  An event never seen in training
 * is evidence: with the parameter unseen=1 (the default) a session holding
 * any scores at least the threshold plus their count, so it is anomalous;
 * unseen=0 ignores them, as loglizer does (model files of format version 1
 * load with unseen=0).  Returns LOGTK_OK, LOGTK_ERR_STATE (untrained) or
 * LOGTK_ERR_NOMEM.
 */
int logtk_detector_score(logtk_detector *d, const logtk_sessions *s, const size_t *rows,
                         size_t nrows, double *scores, uint8_t *anomalous);

/**
 * Counts, among rows[0..nrows) of s (NULL rows: every session), the sessions
 * with an event never seen in training, those events, and how many distinct
 * events they are.  Returns LOGTK_OK, LOGTK_ERR_STATE (untrained) or
 * LOGTK_ERR_NOMEM.
 */
int logtk_detector_count_unseen(logtk_detector *d, const logtk_sessions *s, const size_t *rows,
                                size_t nrows, uint64_t *sessions, uint64_t *events,
                                uint64_t *distinct);

/** The decision threshold: a row is anomalous when its score is above it. */
double logtk_detector_threshold(const logtk_detector *d);

/** Number of distinct events (features) learned in training. */
size_t logtk_detector_feature_count(const logtk_detector *d);

/** The first 8 bytes of every model file (see logtk-model(5)). */
#define LOGTK_MODEL_MAGIC "LOGTKDET"

/** Saves the trained model as a model file image; *buf is released with logtk_free(). */
int logtk_detector_save(logtk_detector *d, void **buf, size_t *len);

/**
 * Replaces d's model (whatever its kind) with one saved by
 * logtk_detector_save().  Returns LOGTK_ERR_STATE for a damaged, truncated,
 * foreign or newer image; d is then unchanged.
 */
int logtk_detector_load(logtk_detector *d, const void *buf, size_t len);

/** Writes the model file atomically (temporary file, then rename). */
int logtk_detector_save_file(logtk_detector *d, const char *path);

/** Reads a model file; errors name the file. */
int logtk_detector_load_file(logtk_detector *d, const char *path);

/**
 * 1 when the file at path starts as a model file does (LOGTK_MODEL_MAGIC),
 * else 0 (also when it cannot be read): tells a model from a log without
 * loading it.  Only the first bytes are read, so a FIFO or /dev/zero costs
 * nothing; logtk_detector_load_file() still checks the whole file.
 */
int logtk_detector_probe_file(const char *path);

/** The last error. */
const char *logtk_detector_errmsg(const logtk_detector *d);

/** Frees the detector.  NULL is harmless. */
void logtk_detector_free(logtk_detector *d);

/** Precision, recall and F1 of verdicts against labels (anomaly = positive). */
typedef struct logtk_detect_metrics {
    uint64_t tp, fp, fn, tn;
    uint64_t unlabeled; /* rows without a label, not counted */
    double precision, recall, f1;
} logtk_detect_metrics;

/** Computes metrics of anomalous[i] against the labels of rows[i] (NULL rows: all sessions). */
int logtk_detect_evaluate(const logtk_sessions *s, const size_t *rows, size_t nrows,
                          const uint8_t *anomalous, logtk_detect_metrics *out);

/*
 * Windows turn a stream of parsed lines into sessions (see logtk-detect(1)):
 *   "session"  lines grouped by an id found in the line by a regex (HDFS:
 *              blk_-?\d+); a line naming several ids joins each of their
 *              sessions; a line naming none is skipped and counted.  Sessions
 *              complete at logtk_windows_finish(), or, when "idle" is set,
 *              after that many lines without their id (for streaming).
 *   "time"     windows of "size" seconds starting every "step" seconds
 *              (step = size: fixed; step < size: sliding), from the first
 *              timestamp on, as loglizer; timestamps come from the header
 *              fields named by "time_fields" read with "time_format".  A line
 *              whose timestamp does not parse is skipped and counted; windows
 *              with no lines are skipped and counted.
 *   "count"    windows of "size" lines starting every "step" lines; at
 *              finish, lines not yet in a window form a last, shorter one.
 * A window's label is anomalous when any of its lines is, normal when all
 * its lines are labeled, else unknown.  Completed windows are pulled with
 * logtk_windows_next() in completion order.
 */
typedef struct logtk_windows logtk_windows;

/** One completed window; pointers are valid until the next call on the handle. */
typedef struct logtk_window {
    logtk_slice id;          /* session id, "lines A-B" or the UTC start time */
    size_t nevents;
    const uint32_t *events;  /* event ids as given to logtk_windows_add, in line order */
    const uint64_t *lines;   /* the global line number of each event */
    int label;               /* LOGTK_LABEL_* */
    double start, end;       /* time windows: [start, end) in seconds since 1970; else 0 */
} logtk_window;

/** Window statistics: lines skipped and why. */
typedef struct logtk_window_stats {
    uint64_t lines;            /* lines given to logtk_windows_add */
    uint64_t no_id;            /* session: lines naming no id */
    uint64_t bad_time;         /* time: lines whose timestamp did not parse */
    uint64_t first_bad_time_line; /* the first of those (0 = none) */
    uint64_t late;             /* time: lines older than the current window (kept in it) */
    uint64_t empty_windows;    /* time: windows without lines, skipped */
    uint64_t windows;          /* windows completed */
} logtk_window_stats;

/** Creates a windower of kind "session", "time" or "count" (LOGTK_ERR_NOT_FOUND otherwise). */
int logtk_windows_new(logtk_windows **out, const char *kind);

/**
 * Sets an option before the first line: "id_regex" (session; default
 * blk_-?\d+), "idle" (session; lines, 0 = complete only at finish), "size"
 * and "step" (time: seconds, default 3600 and size; count: lines, default 100
 * and size), "time_fields" (names of header fields, space-separated, whose
 * values joined by one space form the timestamp), "time_format" (strptime-like:
 * %Y %y %m %d %H %M %S %f (fraction of a second) %b (month name) %s (seconds
 * since 1970, with optional fraction) %% and literal characters; times are
 * UTC).  Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND (unknown name), LOGTK_ERR_INVALID
 * or LOGTK_ERR_SYNTAX (id_regex does not compile).
 */
int logtk_windows_set_option(logtk_windows *w, const char *name, const char *value);

/** Binds header field names (time_fields) to the fields of format f (needed by "time"). */
int logtk_windows_set_format(logtk_windows *w, const logtk_format *f);

/** Binds time_fields to named columns (structured input): names[0..n). */
int logtk_windows_set_columns(logtk_windows *w, const char *const *names, size_t n);

/**
 * Adds one line: its text (searched for ids), its header fields (in the order
 * bound by set_format / set_columns; may be NULL when not needed), its global
 * line number, its event id and its label (LOGTK_LABEL_*).  Returns LOGTK_OK,
 * LOGTK_ERR_NOMEM or LOGTK_ERR_LIMIT (id regex hit its match limit: the line
 * is skipped and counted as naming no id).
 */
int logtk_windows_add(logtk_windows *w, const char *text, size_t len, const logtk_slice *fields,
                      size_t nfields, uint64_t line_no, uint32_t event, int label);

/** Completes every open window (end of input). */
int logtk_windows_finish(logtk_windows *w);

/** Pulls the next completed window: LOGTK_OK (filled) or LOGTK_DONE (none ready). */
int logtk_windows_next(logtk_windows *w, logtk_window *out);

/** Counts so far. */
void logtk_windows_stats(const logtk_windows *w, logtk_window_stats *out);

/**
 * Parses a timestamp with a time_format (see logtk_windows_set_option) into
 * seconds since 1970 UTC.  Returns LOGTK_OK or LOGTK_ERR_DATA.
 */
int logtk_parse_time(const char *format, const char *text, size_t len, double *out);

/** The last error. */
const char *logtk_windows_errmsg(const logtk_windows *w);

/** Frees the windower.  NULL is harmless. */
void logtk_windows_free(logtk_windows *w);

/*
 * Streaming detectors for live pipelines: they look at one event at a time
 * (a template id from an online parser, with its time) and raise alerts:
 *   new template   an event id never seen before;
 *   rare template  an event seen fewer than "rare_count" times before;
 *   rate change    at the end of each time bucket of "bucket" seconds, an
 *                  event whose count in the bucket is above "rate_factor"
 *                  times its usual count per bucket (moving average, after
 *                  3 buckets of history), or that stopped (usual count at
 *                  least rate_factor, now 0);
 *   unexpected     next-event prediction from n-gram statistics, as DeepLog
 *                  does with a network: the last ngram-1 events predict the
 *                  next; an event outside the "top_k" most frequent
 *                  followers of that context is flagged.
 * Nothing is flagged during the first "warmup" events (learning only).
 * Memory grows with distinct events and contexts, not with the input.
 */
typedef struct logtk_stream logtk_stream;

#define LOGTK_ALERT_NEW_TEMPLATE 1
#define LOGTK_ALERT_RARE_TEMPLATE 2
#define LOGTK_ALERT_RATE_CHANGE 3
#define LOGTK_ALERT_UNEXPECTED 4

/** One alert. */
typedef struct logtk_stream_alert {
    int kind;        /* LOGTK_ALERT_* */
    uint32_t event;  /* the event concerned */
    double value;    /* rare: times seen before; rate: count in the bucket; unexpected: its rank */
    double expected; /* rate: usual count per bucket; unexpected: top_k */
    double time;     /* rate: start of the bucket; else the event's time */
} logtk_stream_alert;

/** Creates streaming detectors with defaults (new template on, others off, warmup 1000). */
int logtk_stream_new(logtk_stream **out);

/**
 * Sets an option: "new_template" (0/1), "rare_count" (0 = off), "bucket"
 * (seconds, 0 = off), "rate_factor" (default 10), "ngram" (n >= 2, 0 = off),
 * "top_k" (default 9), "warmup" (events), "learn" (default 1; 0: after warmup
 * the template counts and n-grams stay as learned, so the warmup is the model
 * of normal behaviour).  LOGTK_ERR_NOT_FOUND or
 * LOGTK_ERR_INVALID on a bad name or value.
 */
int logtk_stream_set_option(logtk_stream *s, const char *name, const char *value);

/**
 * Observes one event at time t (seconds; any monotone clock, such as the
 * line number, when the log has no timestamps).  *alerts points to *nalerts
 * alerts raised by this event (bucket ends included), valid until the next
 * call.  Returns LOGTK_OK or LOGTK_ERR_NOMEM.
 */
int logtk_stream_observe(logtk_stream *s, uint32_t event, double t,
                         const logtk_stream_alert **alerts, size_t *nalerts);

/** Ends the input: closes the current bucket (rate alerts). */
int logtk_stream_finish(logtk_stream *s, const logtk_stream_alert **alerts, size_t *nalerts);

/** The name of an alert kind ("new-template", ...). */
const char *logtk_stream_alert_name(int kind);

/** The last error. */
const char *logtk_stream_errmsg(const logtk_stream *s);

/** Frees the detectors.  NULL is harmless. */
void logtk_stream_free(logtk_stream *s);

/**
 * Appends a window to a session set as one session (events named by the
 * caller: names[event id] for each event, NULL names: the id in decimal).
 * The window's id becomes the session id (a repeated id gets "#2", "#3"...).
 */
int logtk_sessions_add_window(logtk_sessions *s, const logtk_window *win,
                              const logtk_slice *names, size_t nnames);

/* ------------------------------------------------------------------------ */
/* Compressed archives: lossless, columnar, searchable (see logtk-archive(5)) */
/* ------------------------------------------------------------------------ */

/*
 * An archive stores any byte stream exactly: it is cut into independent
 * blocks of whole lines, each split into templates and typed variable
 * columns compressed with zstd, checksummed, and listed in a footer index.
 * decompress(compress(x)) == x for every x (CRLF, missing final newline, NUL,
 * invalid UTF-8, binary data).  A damaged block loses only its own lines.
 */

/** Default compression level of the writer (zstd level of each column stream). */
#define LOGTK_ARCHIVE_DEFAULT_LEVEL 3

/* The archive writer's output callback is logtk_write_callback (see the sinks). */

typedef struct logtk_archive_writer logtk_archive_writer;

/** Creates an archive writer.  Returns LOGTK_OK or LOGTK_ERR_NOMEM (*out NULL). */
int logtk_archive_writer_new(logtk_archive_writer **out);

/**
 * Sets an option before opening: "level" (-7..22, default
 * LOGTK_ARCHIVE_DEFAULT_LEVEL), "threads" (1..64 blocks encoded in parallel;
 * the archive is identical for any value), "block_lines" (default 65536) and
 * "block_bytes" (default 8 MiB): a block ends at whichever limit comes first,
 * and "format" (a log format as for logtk_format_compile(), e.g. a preset's
 * logtk_dataset_format(); NULL: none): the fields in front of <Content> are
 * then stored as header columns of their own (any line still comes back
 * exactly, matching or not).  Returns LOGTK_OK, LOGTK_ERR_INVALID (bad
 * value), LOGTK_ERR_SYNTAX (bad format) or LOGTK_ERR_NOT_FOUND.
 */
int logtk_archive_writer_set_option(logtk_archive_writer *w, const char *name, const char *value);

/**
 * Opens the output: a path (written to a temporary file renamed into place
 * by logtk_archive_writer_close(), so a failed run never replaces a good
 * file), or NULL / "-" for standard output.  Returns LOGTK_OK or LOGTK_ERR_IO.
 */
int logtk_archive_writer_open_path(logtk_archive_writer *w, const char *path);

/**
 * Opens the archive at `path` to append to it, for a writer that runs as
 * long as a log stream (a shipper's child process): created when missing
 * (see logtk-archive(5)), otherwise reopened, never
 * replaced.  Every block is written to the file itself and synced before the
 * next one starts, so after a crash or kill -9 the file holds every line of
 * the blocks written; the footer comes at close.  Reopening finds the last
 * whole block and cuts what follows it: the footer of a closed archive, or
 * the torn end a killed writer left.  A file that is not an archive, an
 * archive of another version, or one damaged anywhere but in such a torn
 * end is refused and left as it is (LOGTK_ERR_ARCHIVE), as is a file
 * another process is appending to (LOGTK_ERR_IO; the lock is flock(2)).
 * Returns LOGTK_OK, LOGTK_ERR_ARCHIVE, LOGTK_ERR_IO or LOGTK_ERR_NOMEM.
 */
int logtk_archive_writer_open_append(logtk_archive_writer *w, const char *path);

/**
 * Closes the block being filled at its last complete line and writes it
 * (appending: and syncs it), so that every whole line given so far is in
 * the output; an unfinished last line waits for its end in the next block.
 * A flush costs a block: small blocks compress worse.  Returns LOGTK_OK or
 * an error (then sticky, as for write).
 */
int logtk_archive_writer_flush(logtk_archive_writer *w);

/**
 * Lines in the blocks written so far (appending: counting the lines the
 * archive held when opened).  After logtk_archive_writer_flush() every whole
 * line given is counted, and, when appending, on disk.
 */
uint64_t logtk_archive_writer_lines_written(const logtk_archive_writer *w);

/**
 * After logtk_archive_writer_open_append(): the lines the archive held
 * and the bytes cut off its end (its footer, or a torn block of a killed
 * writer).  Either pointer may be NULL.
 */
void logtk_archive_writer_append_info(const logtk_archive_writer *w, uint64_t *lines_before,
                                      uint64_t *bytes_cut);

/** Opens the output as a callback receiving the archive bytes in order. */
int logtk_archive_writer_open_callback(logtk_archive_writer *w, logtk_write_callback cb, void *user);

/** Appends input bytes (any chunking; lines may span calls).  Returns LOGTK_OK or an error. */
int logtk_archive_writer_write(logtk_archive_writer *w, const void *data, size_t len);

/**
 * Encodes what is left, writes the index and commits the output.  Returns
 * LOGTK_OK or an error (the temporary file is then removed).
 */
int logtk_archive_writer_close(logtk_archive_writer *w);

/** Archive bytes written so far. */
uint64_t logtk_archive_writer_bytes_written(const logtk_archive_writer *w);

/** The last error. */
const char *logtk_archive_writer_errmsg(const logtk_archive_writer *w);

/** Frees the writer; an unclosed output's temporary file is removed.  NULL is harmless. */
void logtk_archive_writer_free(logtk_archive_writer *w);

typedef struct logtk_archive_reader logtk_archive_reader;

/** One block as the reader delivers it. */
typedef struct logtk_archive_block {
    uint64_t index;        /* 0-based block number in the archive */
    uint64_t first_line;   /* 1-based number of its first line */
    uint64_t nlines;       /* lines in the block; a damaged region with 0: every line from
                              first_line on is lost (stored_bytes 0), or bytes that held no
                              line were passed over (stored_bytes: how many) */
    uint64_t raw_bytes;    /* bytes of text */
    uint64_t stored_bytes; /* bytes in the archive, header included */
    uint32_t templates;    /* templates in the block */
    int damaged;           /* 1: the block could not be decoded; text is empty */
    logtk_slice text;      /* the exact bytes of its lines; valid until the next call */
} logtk_archive_block;

/** Creates a reader.  Returns LOGTK_OK or LOGTK_ERR_NOMEM. */
int logtk_archive_reader_new(logtk_archive_reader **out);

/**
 * Opens an archive by path (NULL or "-": standard input).  Returns LOGTK_OK,
 * LOGTK_ERR_IO, or LOGTK_ERR_ARCHIVE when it is not a logtk archive or of a
 * newer version.
 */
int logtk_archive_reader_open_path(logtk_archive_reader *r, const char *path);

/** Opens an archive held in memory (kept by reference).  `name` is used in messages. */
int logtk_archive_reader_open_memory(logtk_archive_reader *r, const void *buf, size_t len,
                                     const char *name);

/**
 * Reads and decodes the next block.  Returns LOGTK_OK (block filled),
 * LOGTK_DONE at the end, or LOGTK_ERR_ARCHIVE for a damaged block or region:
 * *b then has damaged = 1 and the lost line range (when known), the message
 * names it, and the next call continues with the next intact block.  A
 * block's text is checked against its content checksum (format 4), so a
 * block altered with its other checksums recomputed is damaged, never
 * wrong lines.  A cut inside a block names every line from the block's
 * first on.  LOGTK_ERR_NOMEM (decoding ran out of memory) is not damage:
 * the block is kept and the next call tries it again.  LOGTK_ERR_IO ends
 * the reading.  A file read through a memory map that another process
 * truncates meanwhile reads as cut there (no SIGBUS: the library handles
 * SIGBUS for addresses in its maps and passes others to the handler it
 * replaced).
 */
int logtk_archive_reader_next(logtk_archive_reader *r, logtk_archive_block *b);

/**
 * Positions the reader so that the next logtk_archive_reader_next() returns
 * the block holding 1-based line `line`, using the footer index.  When the
 * index is missing, damaged or followed by other bytes, or the source is a
 * pipe not read yet, the reader goes back to the first block instead and
 * passes over (unchecked) the blocks that end before the line.  Returns
 * LOGTK_OK, LOGTK_DONE (line past the end, known from the index),
 * LOGTK_ERR_UNSUPPORTED (a pipe already read from) or LOGTK_ERR_IO.
 */
int logtk_archive_reader_seek_line(logtk_archive_reader *r, uint64_t line);

/**
 * Totals from the footer index: lines, blocks and raw bytes.  Returns
 * LOGTK_OK or LOGTK_ERR_ARCHIVE / LOGTK_ERR_UNSUPPORTED as seek_line.
 */
int logtk_archive_reader_totals(logtk_archive_reader *r, uint64_t *lines, uint64_t *blocks,
                                uint64_t *raw_bytes);

/**
 * Per-stream byte counts summed over the blocks decoded so far: stream i
 * (0-based; LOGTK_DONE past the last) has a name ("templates", "numbers",
 * ...), its size before and after zstd.
 */
int logtk_archive_reader_stream_stats(const logtk_archive_reader *r, int i, const char **name,
                                      uint64_t *raw, uint64_t *stored);

/** The last error. */
const char *logtk_archive_reader_errmsg(const logtk_archive_reader *r);

/** Frees the reader.  NULL is harmless. */
void logtk_archive_reader_free(logtk_archive_reader *r);

/*
 * Parallel decompression: an unpacker returns a reader's blocks exactly as
 * logtk_archive_reader_next() would (same order, texts, damage reports and
 * end), while `threads` worker threads decode up to 2 x threads blocks
 * ahead.  One unpacker per thread; it reads ahead from the reader it is
 * given, so use the reader only through it until LOGTK_DONE (handing it
 * another reader, or the same one reopened, starts afresh).  Reader
 * statistics (logtk_archive_reader_stream_stats) are not collected.
 */
typedef struct logtk_archive_unpacker logtk_archive_unpacker;

/** Creates an unpacker with 1..64 threads (1: decode in the caller's thread).
 *  Returns LOGTK_OK, LOGTK_ERR_INVALID or LOGTK_ERR_NOMEM (*out NULL). */
int logtk_archive_unpacker_new(logtk_archive_unpacker **out, int threads);

/**
 * The next block of r; returns as logtk_archive_reader_next(), b->text valid
 * until the next call.  A worker that runs out of memory is not damage:
 * the workers are stopped, the blocks read ahead are decoded again in the
 * caller's thread and the rest serially; LOGTK_ERR_NOMEM only when that
 * fails too.
 */
int logtk_archive_unpacker_next(logtk_archive_unpacker *u, logtk_archive_reader *r,
                                logtk_archive_block *b);

/** The last error (the message of the block or failure last returned). */
const char *logtk_archive_unpacker_errmsg(const logtk_archive_unpacker *u);

/** Stops the workers and frees the unpacker.  NULL is harmless. */
void logtk_archive_unpacker_free(logtk_archive_unpacker *u);

/* Search flags for logtk_grep_new(). */
#define LOGTK_GREP_FIXED 1  /* pattern is a fixed string (grep -F) */
#define LOGTK_GREP_ICASE 2  /* ignore case (grep -i) */
#define LOGTK_GREP_INVERT 4 /* select non-matching lines (grep -v) */

typedef struct logtk_grep logtk_grep;

/**
 * Compiles a search: a fixed string or a PCRE2 pattern (JIT, match limits).
 * Returns LOGTK_OK, LOGTK_ERR_SYNTAX (message quotes the pattern and offset)
 * or LOGTK_ERR_NOMEM.  On error *out is a search whose logtk_grep_errmsg()
 * gives the reason (NULL only when it could not be allocated); free it in
 * every case.
 */
int logtk_grep_new(logtk_grep **out, const char *pattern, int flags);

/**
 * Searches the next block of r: each selected line (with its terminator, as
 * `decompress | grep` prints it) is passed to cb when cb is non-NULL, and
 * *count is increased by the number of selected lines.  Lines are rebuilt
 * only for templates that may match, so rare matches are found without
 * decompressing the whole block.  Returns as logtk_archive_reader_next()
 * (b describes the block), or LOGTK_ERR_LIMIT when the regex hit its limit.
 */
int logtk_grep_next_block(logtk_grep *g, logtk_archive_reader *r, logtk_archive_block *b,
                          logtk_write_callback cb, void *user, uint64_t *count);

/**
 * Searches with `threads` worker threads (default 1: in the caller's thread).
 * Blocks are then read ahead and searched in parallel; lines, counts and
 * errors still come back block by block in archive order, so the output is
 * the same.  Returns LOGTK_OK.
 */
int logtk_grep_set_threads(logtk_grep *g, int threads);

/** The last error. */
const char *logtk_grep_errmsg(const logtk_grep *g);

/** Frees the search.  NULL is harmless. */
void logtk_grep_free(logtk_grep *g);

/* ------------------------------------------------------------------------ */
/* Differences: which templates changed between two sides or among peers     */
/* ------------------------------------------------------------------------ */

/*
 * A diff counts parsed lines per (group, template) -- a group is a side
 * ("before", "after"), a host, a component, a time window -- keeps a few
 * example lines and a bounded sample of each numeric parameter, and then
 * answers either
 *   logtk_diff_compare(): what differs between group a and group b, or
 *   logtk_diff_peers():   which groups differ most from all the others.
 * Feed it the events of ONE parser for every group, so that template ids
 * agree; give each template's final text with logtk_diff_set_template()
 * before computing (ids whose texts are equal are counted as one template,
 * named by the lowest id, as `logtk parse` names them).
 *
 * Counts: given both groups' line totals Na and Nb, a template seen ka and
 * kb times is tested with the exact conditional binomial test for two
 * Poisson rates (ka out of ka+kb ~ Binomial(ka+kb, Na/(Na+Nb)) when the
 * rates are equal; two-sided, summing every outcome no more likely than
 * the one observed); the score is the likelihood-ratio statistic G of the
 * same model (chi-square, 1 df), which keeps ranking changes whose p-value
 * underflows to 0.  Numeric parameters (a decimal number, optionally with a
 * unit such as "ms") of templates seen in both groups are compared with the
 * Mann-Whitney U test (normal approximation with tie and continuity
 * correction; score z^2) on a uniform sample of at most "sample" values per
 * group.  Each family of tests (counts; parameters) is corrected with
 * Benjamini-Hochberg; a test is significant when its q < "alpha" and its
 * effect is large enough: for counts a rate ratio of at least "min_ratio"
 * either way, for parameters a shift (P(a > b) - 1/2) of at least
 * "min_shift" either way (with millions of lines any small drift is
 * "significant"; the floors keep the report to changes worth a look).
 *
 * Memory grows with templates x groups (counts, examples, samples), never
 * with the input.  One handle per thread.
 */
typedef struct logtk_diff logtk_diff;

/* Status of a template between two sides. */
#define LOGTK_DIFF_SAME 0     /* in both, no significant change */
#define LOGTK_DIFF_APPEARED 1 /* only in side b */
#define LOGTK_DIFF_VANISHED 2 /* only in side a */
#define LOGTK_DIFF_CHANGED 3  /* in both, count or a parameter changed significantly */

/** Creates an empty diff.  Returns LOGTK_OK or LOGTK_ERR_NOMEM (*out NULL). */
int logtk_diff_new(logtk_diff **out);

/**
 * Sets an option before adding lines: "alpha" (false discovery rate, 0..1,
 * default 0.05), "min_ratio" (>= 1, default 1.5), "min_shift" (0..0.5,
 * default 0.1), "examples" (lines kept
 * per template and group, 0..16, default 3), "sample" (values kept per
 * parameter, template and group, 10..1000000, default 1000), "top" (templates
 * named per peer, 1..1000, default 5), "seed" (of the sampling, default 1).
 * Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND or LOGTK_ERR_INVALID.
 */
int logtk_diff_set_option(logtk_diff *d, const char *name, const char *value);

/**
 * The index of the group named name[0..len), created on first use; groups
 * are numbered from 0 in order of creation.  Returns LOGTK_OK or
 * LOGTK_ERR_NOMEM.
 */
int logtk_diff_group(logtk_diff *d, const char *name, size_t len, uint32_t *group);

/** Number of groups. */
uint32_t logtk_diff_group_count(const logtk_diff *d);

/** Name of a group (NUL-terminated, owned by d), or NULL when out of range. */
const char *logtk_diff_group_name(const logtk_diff *d, uint32_t group);

/** Lines added to a group (0 when out of range). */
uint64_t logtk_diff_group_lines(const logtk_diff *d, uint32_t group);

/**
 * Counts one parsed line for `group`: ev->template_id (from
 * logtk_parser_feed(); 0 is refused) and ev->params; line[0..len) is kept
 * as an example while the template has fewer than "examples" in the group.
 * No allocation per line once a (template, group) pair was seen.  Returns
 * LOGTK_OK, LOGTK_ERR_INVALID or LOGTK_ERR_NOMEM.
 */
int logtk_diff_add(logtk_diff *d, uint32_t group, const logtk_event *ev, const char *line,
                   size_t len);

/**
 * Names template `template_id` (its final text, e.g. from
 * logtk_parser_template() after logtk_parser_finish()); the text is copied.
 * Returns LOGTK_OK, LOGTK_ERR_INVALID (id 0) or LOGTK_ERR_NOMEM.
 */
int logtk_diff_set_template(logtk_diff *d, uint32_t template_id, const char *text, size_t len);

/** One template compared between side a and side b. */
typedef struct logtk_diff_change {
    uint32_t template_id;    /* the lowest id with this text */
    logtk_slice text;        /* its text (empty when never named) */
    uint64_t count_a, count_b;
    double rate_a, rate_b;   /* count / the side's lines (0 for an empty side) */
    int status;              /* LOGTK_DIFF_* */
    double score;            /* G of the count test (larger = more surprising) */
    double p, q;             /* raw and Benjamini-Hochberg-corrected p of the count test */
    int significant;         /* 1: the count or a parameter changed significantly */
    size_t nparams;          /* parameter tests: logtk_diff_change_param() */
    size_t nexamples_a, nexamples_b; /* example lines: logtk_diff_change_example() */
} logtk_diff_change;

/** A numeric parameter of one template compared between the sides. */
typedef struct logtk_diff_param {
    size_t index;            /* 0-based position of the <*> in the template */
    uint64_t n_a, n_b;       /* values compared (the samples) */
    double median_a, median_b;
    double score;            /* z^2 of the Mann-Whitney test */
    double shift;            /* P(value of a > value of b) - 0.5 (ties count half), -0.5..0.5 */
    double p, q;             /* raw and corrected (over all parameter tests) */
    int significant;
} logtk_diff_param;

/**
 * Compares group a with group b (a is "before" or the reference).  Results,
 * one per template seen in either, are ranked: significant first, then by
 * score (a significant parameter's score counts for its template).  Returns
 * LOGTK_OK, LOGTK_ERR_INVALID (a group out of range, or a == b) or
 * LOGTK_ERR_NOMEM.  Add no lines after computing.
 */
int logtk_diff_compare(logtk_diff *d, uint32_t a, uint32_t b);

/** Number of results of the last logtk_diff_compare(). */
size_t logtk_diff_change_count(const logtk_diff *d);

/** Result `rank` (0-based).  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND. */
int logtk_diff_change_at(const logtk_diff *d, size_t rank, logtk_diff_change *out);

/** Parameter test i of result `rank`.  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND. */
int logtk_diff_change_param(const logtk_diff *d, size_t rank, size_t i, logtk_diff_param *out);

/**
 * Example line i of result `rank` on side 0 (a) or 1 (b), valid until d is
 * freed.  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND.
 */
int logtk_diff_change_example(const logtk_diff *d, size_t rank, int side, size_t i,
                              logtk_slice *line);

/** One group compared with all the others together. */
typedef struct logtk_diff_peer {
    uint32_t group;          /* logtk_diff_group_name() names it */
    uint64_t lines;
    double score;            /* sum of the statistics (G, z^2) of its significant tests */
    double max_stat;         /* its largest statistic, significant or not (breaks ties) */
    int significant;         /* 1: at least one significant test */
    size_t ntop;             /* templates named: logtk_diff_peer_template() */
} logtk_diff_peer;

/** A template that makes a peer differ. */
typedef struct logtk_diff_peer_template {
    uint32_t template_id;
    logtk_slice text;
    uint64_t count;          /* lines of it in the peer */
    double expected;         /* its lines in all groups x the peer's share of all lines */
    double score;            /* G of its count test + z^2 of its significant parameter tests */
    double p, q;             /* of the count test */
    int significant;         /* the count or a parameter test is significant */
} logtk_diff_peer_template;

/**
 * Compares every group with the union of the others (counts and numeric
 * parameters as for logtk_diff_compare(); one correction over all peers'
 * count tests and one over all parameter tests) and ranks the groups by
 * score, then max_stat.  Each peer names its "top" templates by score
 * (then by statistic).  Returns LOGTK_OK, LOGTK_ERR_INVALID (fewer than 2
 * groups) or LOGTK_ERR_NOMEM.
 */
int logtk_diff_peers(logtk_diff *d);

/** Number of ranked peers of the last logtk_diff_peers(). */
size_t logtk_diff_peer_count(const logtk_diff *d);

/** Peer `rank` (0-based).  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND. */
int logtk_diff_peer_at(const logtk_diff *d, size_t rank, logtk_diff_peer *out);

/** Template i of peer `rank`.  Returns LOGTK_OK or LOGTK_ERR_NOT_FOUND. */
int logtk_diff_peer_template_at(const logtk_diff *d, size_t rank, size_t i,
                                logtk_diff_peer_template *out);

/**
 * The statistics underneath, exposed for tests and other callers.
 * logtk_binomial_test(): two-sided exact p of k successes in n trials with
 * success probability p0 (outcomes no more likely than k, relative
 * tolerance 1e-7).  logtk_mann_whitney(): two-sided p of the U test of
 * a[0..na) against b[0..nb) (normal approximation, tie and continuity
 * correction; *u receives U of a, *z the signed z; p 1 when na or nb is 0
 * or every value ties).  logtk_bh_adjust(): Benjamini-Hochberg q-values of
 * p[0..n) into q (may be p).  Return LOGTK_OK, LOGTK_ERR_INVALID or
 * LOGTK_ERR_NOMEM.
 */
int logtk_binomial_test(uint64_t k, uint64_t n, double p0, double *p);
int logtk_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u,
                       double *z, double *p);
int logtk_bh_adjust(const double *p, size_t n, double *q);

/** The last error. */
const char *logtk_diff_errmsg(const logtk_diff *d);

/** Frees the diff.  NULL is harmless. */
void logtk_diff_free(logtk_diff *d);

/* ------------------------------------------------------------------------ */
/* Bulk calls: whole inputs in one call, for language bindings               */
/* ------------------------------------------------------------------------ */

/*
 * A binding that crossed into the library once per line would spend more time
 * crossing than parsing; these calls run the per-line loop of `logtk parse`
 * in C.  Each line of an opened reader (logtk_reader_open_path() or
 * logtk_reader_open_memory()) is split by the format f (NULL: the whole line
 * is the content; a line f does not match is kept whole as content) and its
 * content is used; regex match limits are not errors (the line is kept
 * unmatched or unmasked, as `logtk parse` keeps it).
 */

/**
 * Feeds up to max_lines lines of r to p, as logtk_parser_feed() would one by
 * one; ids[i] (ids may be NULL) receives the template id of the i-th line fed,
 * *nlines (may be NULL) how many were fed.  Returns LOGTK_OK (max_lines fed;
 * more may follow), LOGTK_DONE (the input ended), a reader error
 * (LOGTK_ERR_IO, LOGTK_ERR_LINE_TOO_LONG, LOGTK_ERR_ARCHIVE: the lines
 * before it were fed; logtk_reader_errmsg(r) names file and line) or
 * LOGTK_ERR_NOMEM (logtk_parser_errmsg(p)).
 */
int logtk_parser_feed_reader(logtk_parser *p, logtk_format *f, logtk_reader *r, size_t max_lines,
                             uint32_t *ids, size_t *nlines);

/**
 * Classifies up to max_lines lines of r without learning, as
 * logtk_parser_match() would one by one: ids[i] receives the template id of
 * the i-th line, 0 when no template matches it.  Returns as
 * logtk_parser_feed_reader(); p's templates and counts are unchanged.
 */
int logtk_parser_match_reader(logtk_parser *p, logtk_format *f, logtk_reader *r, size_t max_lines,
                              uint32_t *ids, size_t *nlines);

/**
 * logtk_parser_match_reader() for the classify pass of a sharded run, where
 * each line's template in the parser that learned it is known: `shard` is
 * that parser (one shard's, whose snapshot went into logtk_parser_merge() to
 * make p), and on entry ids[i] is the template it assigned to the i-th line
 * (what logtk_parser_feed_reader() gave for that line).  On return ids[i] is
 * what logtk_parser_match(p, line) answers, 0 when no template matches.
 * Cheaper because the texts settle most of it: where p has a template of
 * exactly the text of the line's shard template, that template is the
 * answer unless one of the few templates p's search prefers and that may
 * match a line of that text does; only those are tried, and a line none may
 * take is not even split by the format.  Other lines (a text the merge
 * changed, an id 0 or unknown to shard, an algorithm with its own search:
 * drain, lenma, shiso) are matched in full.  The answers are
 * logtk_parser_match()'s when the ids are shard's assignments of these very
 * lines, as the parser promises that a template matches each line assigned
 * to it; other ids give other answers.  Returns as
 * logtk_parser_match_reader().
 */
int logtk_parser_rematch_reader(logtk_parser *p, logtk_parser *shard, logtk_format *f,
                                logtk_reader *r, size_t max_lines, uint32_t *ids,
                                size_t *nlines);

/**
 * Writes the next n lines of r to sink s as rows: line ids first_line_id,
 * first_line_id + 1, ...; line i gets template ids[i] with text texts[ids[i]]
 * (an id of 0 or of ntexts or more: an empty template) and its parameters
 * matched against that text by logtk_template_match() (none when it does not
 * match).  *written (may be NULL) receives the rows written; fewer than n
 * when the input ended first.  Returns LOGTK_OK, a reader error, the sink's
 * error (logtk_sink_errmsg(s)) or LOGTK_ERR_NOMEM.
 */
int logtk_rows_write(logtk_sink *s, logtk_format *f, logtk_reader *r, uint64_t first_line_id,
                     const uint32_t *ids, size_t n, const logtk_slice *texts, size_t ntexts,
                     size_t *written);

#ifdef __cplusplus
}
#endif

#endif /* LOGTK_H */
