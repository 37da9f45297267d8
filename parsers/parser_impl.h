/*
 * parser_impl.h - the internal interface every parsing algorithm implements
 * (internal; see include/logtk.h for the public side).
 *
 * Division of labour
 * ------------------
 * parser.c (the shared layer) owns everything that is the same for every
 * algorithm:
 *   - masking (mask.h) and tokenizing (tokenize.h) of each fed line;
 *   - the template store: ids 1.., token lists, per-template line counts,
 *     text rendering (tokens joined by one space), the created/changed
 *     callbacks and the logtk_event flags;
 *   - per-line assignments (a uint32 per line, unless "keep_assignments" is 0);
 *   - parameter extraction (original text of each "<*>", including text a
 *     mask hid), for any template shape (same length or not);
 *   - parameters common to all algorithms ("keep_assignments") and the record
 *     of every parameter set, so snapshots can replay them;
 *   - snapshot framing: magic, version, algorithm, params, masks, templates,
 *     then the algorithm's own blob, with a checksum.
 * An algorithm (parsers/parser_NAME.c) owns only its grouping logic and the
 * state it needs for it.  It is one `ltk_parser_algo` table plus one line in
 * the registry of parser.c.
 *
 * Life cycle of an algorithm's state
 * ----------------------------------
 *   init(p, state)           state is zeroed memory of algo->state_size bytes;
 *                            set defaults here.  Called by logtk_parser_new()
 *                            and again (on a fresh state) by logtk_parser_load().
 *   set_param(p, state, name, value)   zero or more times, before any line.
 *   feed(p, state, line, &id)          once per line, in order.
 *   finish(p, state)                   once at the end (may be NULL).
 *   save(p, state, out) / load(p, state, data, len)   snapshot blob.
 *   destroy(state)                     frees what init/feed allocated (not
 *                                      the state block itself).
 * The state must not keep the logtk_parser pointer: every call receives it,
 * and logtk_parser_load() builds a fresh parser and moves it into place.
 * Everything the state allocates must be reachable from the state block.
 *
 * Receiving a line
 * ----------------
 * feed() gets a `ltk_parse_line`: the masked tokens as slices into the
 * masked content (a token replaced by a mask reads "<*>", or "blk_<*>" for a
 * partial mask), plus the line's 0-based index.  The slices are valid only
 * during the call: copy what you keep (into your own arena, or intern tokens
 * with ltk_parser_intern_token()).
 *
 * Online algorithms (Drain, Spell, LenMa, SHISO, ULP) set *template_id to the
 * line's template during feed(): an existing id, or one made with
 * ltk_tmpl_create().  The shared layer then counts the line for that
 * template, records the assignment and extracts the parameters.
 *
 * Batch algorithms (IPLoM, AEL, LFA, LogMine, SLCT, LogCluster, LogSig, LKE,
 * MoLFI, Logram, Brain) keep the line in feed() (ltk_parser_store_line()
 * stores it as interned token ids, ready for finish) and set *template_id = 0.
 * In finish() they create the templates and report every line's template
 * with ltk_parser_assign(p, k, id), k the line's place among the lines fed
 * since the parser was made or loaded.  Batch parsers need all lines
 * anyway, so they ignore keep_assignments (assignments are always kept).
 *
 * Templates
 * ---------
 * ltk_tmpl_create() copies the tokens and returns the new id (dense, from
 * 1); ltk_tmpl_set() replaces a template's tokens (any length);
 * ltk_tmpl_set_wildcard() turns one position into "<*>".  Both report
 * LOGTK_TEMPLATE_CHANGED only when the rendered text really changes.  Token
 * slices returned by ltk_tmpl_tokens() stay valid until the template is
 * changed or the parser is freed.  A wildcard is the exact 3-byte token "<*>";
 * compare with ltk_is_wildcard().
 *
 * Parameters
 * ----------
 * set_param() receives every name the shared layer does not handle itself and
 * returns LOGTK_ERR_NOT_FOUND for a name it does not have, LOGTK_ERR_INVALID
 * (with a message via ltk_parser_error()) for a bad value.  The shared layer
 * records accepted (name, value) pairs and stores them in snapshots; load
 * replays them into a fresh state before calling load().  So a parameter set
 * via text must fully determine the algorithm's configuration.
 *
 * Snapshots
 * ---------
 * save() appends the algorithm's own state to `out` in any layout it likes
 * (use ltk_strbuf_put_varint and the ltk_snap_* readers below); template
 * ids in the blob refer to the shared template store, which is saved and
 * restored by the shared layer before load() runs.  load() must check every
 * length and id it reads and return LOGTK_ERR_STATE on anything odd; the
 * checksum has already been verified, but a blob from a newer build may
 * still reach it.  After save/load, feeding the same lines must give the
 * same results as without the round trip.
 *
 * Errors: return LOGTK_OK or a negative LOGTK_ERR_*; for a readable message
 * use ltk_parser_error(p, code, fmt, ...), which returns code.
 */
#ifndef LTK_PARSER_IMPL_H
#define LTK_PARSER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "logtk.h"
#include "strbuf.h"

/** The wildcard token. */
#define LTK_WILDCARD "<*>"
#define LTK_WILDCARD_LEN 3

/** Nonzero when the slice is exactly "<*>". */
static inline int ltk_is_wildcard(const char *ptr, size_t len)
{
    return len == 3 && ptr[0] == '<' && ptr[1] == '*' && ptr[2] == '>';
}

/** Nonzero when the slice holds a "<*>" anywhere ("<*>", "key=<*>", "(<*>),"). */
static inline int ltk_holds_wildcard(const char *ptr, size_t len)
{
    for (size_t i = 0; i + LTK_WILDCARD_LEN <= len; i++)
        if (ptr[i] == '<' && ptr[i + 1] == '*' && ptr[i + 2] == '>')
            return 1;
    return 0;
}

/** One fed line as an algorithm sees it. */
typedef struct ltk_parse_line {
    const logtk_slice *tokens; /* masked tokens, in order; valid during feed() only */
    size_t ntokens;
    logtk_slice masked;        /* the whole masked content (tokens point into it) */
    uint64_t index;            /* 0-based line index */
} ltk_parse_line;

/** The table an algorithm provides. */
typedef struct ltk_parser_algo {
    const char *name;    /* "drain": lowercase, used by logtk_parser_new() */
    const char *summary; /* one line for --list-parsers */
    int online;          /* 1: feed() assigns templates; 0: batch, finish() assigns */
    /* 1: feed() gets the line untokenized (tokens NULL, ntokens 0) and asks
       ltk_parser_line_tokens() when it needs the tokens: a line the
       algorithm classifies from its bytes alone, and the shared layer fits
       by its shape (ltk_parser_note_shape), is never split into tokens */
    int tokens_on_demand;
    size_t state_size;   /* bytes of the zeroed state block handed to every call */

    int (*init)(logtk_parser *p, void *state);
    void (*destroy)(void *state);
    /** NULL when the algorithm has no parameters. */
    int (*set_param)(logtk_parser *p, void *state, const char *name, const char *value);
    int (*feed)(logtk_parser *p, void *state, const ltk_parse_line *line,
                uint32_t *template_id);
    /** May be NULL (online algorithms with nothing to do at the end). */
    int (*finish)(logtk_parser *p, void *state);
    /** May be NULL: the algorithm then has no blob and cannot resume beyond its templates. */
    int (*save)(logtk_parser *p, void *state, ltk_strbuf *out);
    int (*load)(logtk_parser *p, void *state, const uint8_t *data, size_t len);
    /**
     * May be NULL.  logtk_parser_match(): the template the algorithm's own
     * search would give the line, without changing anything (*template_id
     * 0: none).  The shared layer keeps it only when its text matches the
     * line, and otherwise picks the most specific template that matches.
     */
    int (*match)(logtk_parser *p, void *state, const ltk_parse_line *line,
                 uint32_t *template_id);
    /**
     * May be NULL (both or neither).  What a shard knows of its template id
     * beyond the text, for logtk_parser_merge(): bit k set where the
     * template's token k took words that varied (so a "<*>" there is not a
     * masked value's); *ntokens: the template's tokens.  0 when nothing.
     * The fold hands the bits (or-ed over the shards that hold the same
     * text) to merge_places right before feeding that text, so that the
     * fold reads it, and learns from it, as the shards did.
     */
    uint64_t (*merge_hint)(logtk_parser *p, void *state, uint32_t id, uint32_t *ntokens);
    void (*merge_places)(logtk_parser *p, void *state, uint32_t ntokens, uint64_t places);
} ltk_parser_algo;

/* ---------------------------------------------------------------- templates */

/**
 * Creates a template from n tokens (copied; "<*>" tokens mark variables).
 * Returns its id (>= 1), or 0 when out of memory (the parser's error is set).
 * Fires LOGTK_TEMPLATE_CREATED and marks the current line's event as created.
 */
uint32_t ltk_tmpl_create(logtk_parser *p, const logtk_slice *tokens, size_t n);

/**
 * Replaces the tokens of template id (copied; any length).  Fires
 * LOGTK_TEMPLATE_CHANGED when the text differs.  Returns LOGTK_OK,
 * LOGTK_ERR_NOT_FOUND or LOGTK_ERR_NOMEM.
 */
int ltk_tmpl_set(logtk_parser *p, uint32_t id, const logtk_slice *tokens, size_t n);

/**
 * Makes token `pos` of template id a "<*>" (no-op when it already is one).
 * Cheap: no copy.  Fires LOGTK_TEMPLATE_CHANGED when it changed something.
 */
int ltk_tmpl_set_wildcard(logtk_parser *p, uint32_t id, size_t pos);

/**
 * Online algorithms that merge two templates into one keep both ids (lines
 * already assigned keep theirs): from now on id shows the text of target,
 * which is widened where needed so that id's lines match it too.  Rows of
 * either id then group by text.  Returns LOGTK_OK, LOGTK_ERR_NOT_FOUND or
 * LOGTK_ERR_NOMEM.
 */
int ltk_tmpl_alias(logtk_parser *p, uint32_t id, uint32_t target);

/** Tokens of template id (NULL, *n = 0 when the id is unknown). */
const logtk_slice *ltk_tmpl_tokens(const logtk_parser *p, uint32_t id, size_t *n);

/** Number of templates (the highest id). */
uint32_t ltk_tmpl_count(const logtk_parser *p);

/**
 * Batch algorithms, in finish(): the final template of line k of the run, k
 * counting the lines fed since the parser was made or loaded (the k-th line
 * stored; after logtk_parser_load() the parser's line index goes on from the
 * snapshot's count, and the shared layer adds it).  A line may be
 * reassigned; counts follow.  Returns LOGTK_OK,
 * LOGTK_ERR_NOT_FOUND (index >= lines fed or unknown id) or LOGTK_ERR_NOMEM.
 */
int ltk_parser_assign(logtk_parser *p, uint64_t k, uint32_t id);

/* -------------------------------------------------- helpers for batch parsers */

/**
 * Interns a token in the parser-wide token dictionary; equal bytes give equal
 * ids (dense, from 0).  Returns the id, or UINT32_MAX when out of memory.
 */
uint32_t ltk_parser_intern_token(logtk_parser *p, const char *ptr, size_t len);

/**
 * The id of a token already in the dictionary, or UINT32_MAX when it is not
 * there; unlike ltk_parser_intern_token() it adds nothing (for match hooks).
 */
uint32_t ltk_parser_find_token(const logtk_parser *p, const char *ptr, size_t len);

/**
 * The template whose tokens are exactly the interned tokens ids[0..n), made
 * with ltk_tmpl_create() the first time this sequence is asked for; for
 * batch parsers that build their final templates as token-id sequences and
 * do not change them afterwards.  Returns the template id, or 0 when out of
 * memory (the parser's error is set).
 */
uint32_t ltk_tmpl_from_token_ids(logtk_parser *p, const uint32_t *ids, size_t n);

/**
 * Batch algorithms, in finish(): line k of the run (as ltk_parser_assign())
 * gets the template of the token ids ids[0..n) (ltk_tmpl_from_token_ids()
 * then ltk_parser_assign()).
 * Returns LOGTK_OK, LOGTK_ERR_NOMEM or LOGTK_ERR_NOT_FOUND.
 */
int ltk_parser_assign_token_ids(logtk_parser *p, uint64_t k, const uint32_t *ids, size_t n);

/** Bytes of interned token id (NUL-terminated); *len gets the length. */
const char *ltk_parser_token_text(const logtk_parser *p, uint32_t id, size_t *len);

/**
 * Stores the line's tokens as interned ids, for use in finish().  Lines are
 * stored in order; stored line k is the k-th stored (normally line index k).
 * Returns LOGTK_OK or LOGTK_ERR_NOMEM.
 */
int ltk_parser_store_line(logtk_parser *p, const ltk_parse_line *line);

/** Number of stored lines. */
uint64_t ltk_parser_stored_count(const logtk_parser *p);

/** Token ids of stored line k (NULL when out of range); *n gets the count. */
const uint32_t *ltk_parser_stored_line(const logtk_parser *p, uint64_t k, size_t *n);

/*
 * Token cap for algorithms whose cost per line grows faster than the line
 * (word pairs, edit distances, per-template word copies): a hostile line of
 * 100,000 distinct words must not take minutes or gigabytes.  Such an
 * algorithm sees a line of more than `cap` tokens as its first cap - 1
 * tokens and one "<*>" standing for the rest; the template still matches
 * the line, since "<*>" takes any text, blanks included.  Returns line when
 * it has at most cap tokens, else *view, whose tokens are buf[0..cap) (buf
 * holds cap slices); the caller counts the capped lines.
 */
static inline const ltk_parse_line *ltk_parse_line_cap(const ltk_parse_line *line,
                                                          size_t cap, ltk_parse_line *view,
                                                          logtk_slice *buf)
{
    if (line->ntokens <= cap || cap == 0)
        return line;
    for (size_t i = 0; i + 1 < cap; i++)
        buf[i] = line->tokens[i];
    buf[cap - 1].ptr = LTK_WILDCARD;
    buf[cap - 1].len = LTK_WILDCARD_LEN;
    *view = *line;
    view->tokens = buf;
    view->ntokens = cap;
    return view;
}

/* ------------------------------------------------------------- other helpers */

/**
 * Fills line->tokens and line->ntokens (from line->masked) for an algorithm
 * with tokens_on_demand, during feed(); the tokens are valid until feed()
 * returns.  Returns LOGTK_OK or LOGTK_ERR_NOMEM.
 */
int ltk_parser_line_tokens(logtk_parser *p, ltk_parse_line *line);

/**
 * Gives, during feed(), the shape of the line being fed: a hash of its masked
 * bytes, equal for two lines only when they have the same length and the same
 * bytes, each digit read as '0' (ltk_line_shape() of line_shape.h); never 0.
 * Fitting the line to its template may then reuse the fit of an earlier line
 * of that shape (fit_memo in parser.c), instead of comparing its tokens
 * again.  An algorithm that computes such a hash anyway gives it; the others
 * need not.
 */
void ltk_parser_note_shape(logtk_parser *p, uint64_t shape);

/**
 * Records that the algorithm cut its work at one of its documented caps
 * (logtk-parse(1), LIMITS): `count` is how many lines (or distinct messages,
 * as the message says) the cap touched; the message names the cap and what
 * it did instead.  Calls add up (counts summed, messages joined by "; ");
 * logtk_parser_capped() reads them back, and `logtk parse` prints them as a
 * warning.  Call it in finish(), once per cap.
 */
void ltk_parser_note_cap(logtk_parser *p, uint64_t count, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Sets the parser's error message and returns code (printf-style). */
int ltk_parser_error(logtk_parser *p, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((cold, format(printf, 3, 4)))
#endif
    ;

/**
 * Parses a parameter value: a double within [lo, hi] / an integer within
 * [lo, hi].  Return LOGTK_OK or LOGTK_ERR_INVALID with a message naming the
 * parameter.
 */
int ltk_param_double(logtk_parser *p, const char *name, const char *value, double lo,
                       double hi, double *out);
int ltk_param_int(logtk_parser *p, const char *name, const char *value, long lo, long hi,
                    long *out);

/**
 * Snapshot readers over [*pos, end): each returns 0 and advances, or -1 on
 * truncation/overflow without advancing.  ltk_snap_bytes returns a pointer
 * into the buffer (not NUL-terminated) of a varint-length-prefixed string,
 * the form ltk_snap_put_bytes() writes.
 */
int ltk_snap_varint(const uint8_t **pos, const uint8_t *end, uint64_t *v);
int ltk_snap_bytes(const uint8_t **pos, const uint8_t *end, const char **ptr, size_t *len);
int ltk_snap_put_bytes(ltk_strbuf *out, const char *ptr, size_t len);

/* ------------------------------------------------------------------ registry */

/** The algorithms, as listed in parser.c.  Add a line there for a new parser. */
extern const ltk_parser_algo ltk_algo_drain;
extern const ltk_parser_algo ltk_algo_spell;
extern const ltk_parser_algo ltk_algo_iplom;
extern const ltk_parser_algo ltk_algo_ael;
extern const ltk_parser_algo ltk_algo_lenma;
extern const ltk_parser_algo ltk_algo_logmine;
extern const ltk_parser_algo ltk_algo_brain;
extern const ltk_parser_algo ltk_algo_fuse;
extern const ltk_parser_algo ltk_algo_ulp;
extern const ltk_parser_algo ltk_algo_shiso;
extern const ltk_parser_algo ltk_algo_logcluster;
extern const ltk_parser_algo ltk_algo_slct;
extern const ltk_parser_algo ltk_algo_lfa;
extern const ltk_parser_algo ltk_algo_logram;
extern const ltk_parser_algo ltk_algo_logsig;
extern const ltk_parser_algo ltk_algo_lke;
extern const ltk_parser_algo ltk_algo_molfi;

#endif
