/*
 * parser.c - the shared layer of every parsing algorithm, and the public
 * logtk_parser_* API (see parser_impl.h for the division of labour).
 *
 * Why a shared layer: the 16 algorithms differ only in how they group
 * token sequences.  Masking, tokenizing, the template store, line
 * assignments, callbacks, parameter extraction and snapshot framing are the
 * same for all of them, and getting those right once (no malloc per line,
 * parameters as original text, snapshots that refuse damaged data) is what
 * makes each algorithm file short.
 *
 * Per fed line: mask (mask.c keeps a span map to the original), tokenize
 * (slices of the masked text), hand the tokens to the algorithm, count the
 * line for the template it names, record the assignment, then deliver the
 * created/changed callbacks once per template touched by this line (an
 * algorithm may change a template several times while handling one line;
 * the caller sees one event with the final text).
 *
 * Parameter extraction aligns the template's tokens with the line's masked
 * tokens.  Same length: position by position.  Otherwise a small dynamic
 * programme lets each pure "<*>" token cover one or more line tokens (zero
 * when nothing else fits), the first fit from the left, i.e. the lazy
 * matching of logparser's "(.*?)" template regexes, but on token
 * boundaries.  Inside a token ("blk_<*>", "size=<*>"), literal pieces are
 * matched leftmost and each "<*>" captures what lies between them.  Every
 * captured masked range goes back through the mask span map, so a "<*>" that
 * a mask produced yields the original text it hid.
 *
 * Snapshot layout (version 4): the saved frame of core/saved_frame.h
 * ("LTKPSNAP" magic, u32 version, u64 body length, body, 32-bit checksum)
 * around a body whose integers are unsigned LEB128 varints and strings a
 * varint length + bytes:
 *     algorithm name, params (count, then name/value pairs in the order set),
 *     masks (count, then pattern/replacement/name), lines fed,
 *     templates (count, then per template: line count, token count, tokens,
 *     alias, whether a line was seen, the text shown),
 *     algorithm blob (length + bytes).
 * Versions 1 to 3 (still read) had a varint version after the magic and
 * ended with an 8-byte ltk_hash_bytes() of everything before it.
 * Load checks the checksum first, then builds a complete fresh parser from
 * the snapshot and swaps it in only when everything was valid, so a failed
 * load leaves the parser as it was.
 *
 * Templates also have a content key (FNV-1a 64 of the text), the name that
 * is the same in every shard and run; merging shard snapshots unites
 * templates by content and folds them through a fresh parser of the same
 * setup (see "merging" near the end, and logtk_parser_merge() in logtk.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include <errno.h>

#include "arena.h"
#include "byteword.h"
#include "content_key.h"
#include "errmsg.h"
#include "growarray.h"
#include "hashtab.h"
#include "line_shape.h"
#include "mask.h"
#include "parser_impl.h"
#include "parser_state.h"
#include "strbuf.h"
#include "template_match.h"
#include "tokenize.h"
#include "u64map.h"

/* ------------------------------------------------------------------ registry */

/* One line per algorithm, in the order of --list-parsers and `bench parse
 * --parser all`.  The default (logtk_parser_new(..., NULL)) is DEFAULT_ALGORITHM:
 * fuse, our own parser, the most accurate of the suite and online, so its
 * states merge across shards (logtk_parser_merge). */
static const ltk_parser_algo *const algorithm_registry[] = {
    &ltk_algo_drain,
    &ltk_algo_spell,
    &ltk_algo_iplom,
    &ltk_algo_ael,
    &ltk_algo_lenma,
    &ltk_algo_logmine,
    &ltk_algo_brain,
    &ltk_algo_fuse,
    &ltk_algo_ulp,
    &ltk_algo_shiso,
    &ltk_algo_logcluster,
    &ltk_algo_slct,
    &ltk_algo_lfa,
    &ltk_algo_logram,
    &ltk_algo_logsig,
    &ltk_algo_lke,
    &ltk_algo_molfi,
};
#define ALGORITHM_COUNT (sizeof algorithm_registry / sizeof algorithm_registry[0])
#define DEFAULT_ALGORITHM LTK_PARSER_DEFAULT_ALGO

/* The registered algorithm of this name (not NUL-terminated), or NULL. */
const ltk_parser_algo *ltk_parser_algo_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < ALGORITHM_COUNT; i++)
        if (strlen(algorithm_registry[i]->name) == len &&
            memcmp(algorithm_registry[i]->name, name, len) == 0)
            return algorithm_registry[i];
    return NULL;
}

static const char wildcard_text[] = LTK_WILDCARD;

/* ------------------------------------------------------------------ helpers */

int ltk_parser_error(logtk_parser *p, int code, const char *fmt, ...)
{
    va_list ap;
    p->err.code = code;
    va_start(ap, fmt);
    vsnprintf(p->err.msg, sizeof p->err.msg, fmt, ap);
    va_end(ap);
    return code;
}

int ltk_parser_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
}

/* Grows *arr (elements of size elem) to hold at least need elements. */
/* ltk_array_reserve() for the 64-bit counts of stored lines. */
static int grow_array(void **arr, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need > SIZE_MAX)
        return -1;
    size_t c = (size_t)*cap;
    int rc = ltk_array_reserve(arr, &c, (size_t)need, elem);
    *cap = c;
    return rc;
}

int ltk_parser_grow_size(void **arr, size_t *cap, size_t need, size_t elem)
{
    uint64_t c = *cap;
    int rc = grow_array(arr, &c, need, elem);
    *cap = (size_t)c;
    return rc;
}

int ltk_param_double(logtk_parser *p, const char *name, const char *value, double lo,
                       double hi, double *out)
{
    char *end;
    errno = 0;
    double v = value ? strtod(value, &end) : 0;
    if (value == NULL || end == value || *end != '\0' || errno != 0 || !(v >= lo && v <= hi))
        return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                  "%s: parameter %s must be a number from %g to %g, not \"%s\"",
                                  p->algo->name, name, lo, hi, value ? value : "");
    *out = v;
    return LOGTK_OK;
}

int ltk_param_int(logtk_parser *p, const char *name, const char *value, long lo, long hi,
                    long *out)
{
    char *end;
    errno = 0;
    long v = value ? strtol(value, &end, 10) : 0;
    if (value == NULL || end == value || *end != '\0' || errno != 0 || v < lo || v > hi)
        return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                  "%s: parameter %s must be an integer from %ld to %ld, not \"%s\"",
                                  p->algo->name, name, lo, hi, value ? value : "");
    *out = v;
    return LOGTK_OK;
}

int ltk_snap_varint(const uint8_t **pos, const uint8_t *end, uint64_t *v)
{
    return ltk_varint_get(pos, end, v);
}

int ltk_snap_bytes(const uint8_t **pos, const uint8_t *end, const char **ptr, size_t *len)
{
    const uint8_t *q = *pos;
    uint64_t n;
    if (ltk_varint_get(&q, end, &n) != 0 || n > (uint64_t)(end - q))
        return -1;
    *ptr = (const char *)q;
    *len = (size_t)n;
    *pos = q + n;
    return 0;
}

int ltk_snap_put_bytes(ltk_strbuf *out, const char *ptr, size_t len)
{
    if (ltk_strbuf_put_varint(out, len) != 0 || ltk_strbuf_append(out, ptr, len) != 0)
        return -1;
    return 0;
}

/* ---------------------------------------------------------------- templates */

/* The text of t will change: render it again, and reindex it for match. */
static inline void text_changed(logtk_parser *p, template_entry *t)
{
    t->text_dirty = 1;
    t->idx_stale = 1;
    p->text_epoch++;
}

static void mark_pending(logtk_parser *p, uint32_t id, template_entry *t)
{
    text_changed(p, t);
    if (t->pending || p->callback == NULL)
        return;
    if (ltk_parser_grow_size((void **)&p->pending, &p->pending_cap, p->npending + 1, sizeof *p->pending))
        return; /* out of memory: the callback is lost, the state is intact */
    p->pending[p->npending++] = id;
    t->pending = 1;
}

/* Copies a token's bytes into the arena; "<*>" shares the static text. */
static int copy_token(logtk_parser *p, logtk_slice *dst, const char *ptr, size_t len)
{
    if (ltk_is_wildcard(ptr, len)) {
        dst->ptr = wildcard_text;
        dst->len = LTK_WILDCARD_LEN;
        return 0;
    }
    char *c = ltk_arena_alloc(&p->token_arena, len ? len : 1);
    if (c == NULL)
        return -1;
    if (len)
        memcpy(c, ptr, len);
    dst->ptr = c;
    dst->len = len;
    return 0;
}

static int keep_covering(logtk_parser *p, template_entry *t);
/* once per template: kept apart from every line's code */
#if defined(__GNUC__)
__attribute__((cold))
#endif
uint32_t ltk_tmpl_create(logtk_parser *p, const logtk_slice *tokens, size_t n)
{
    if (p->ntemplates == UINT32_MAX - 1 || n > UINT32_MAX) {
        ltk_parser_error(p, LOGTK_ERR_NOMEM, "too many templates");
        return 0;
    }
    if ((size_t)p->ntemplates + 1 > p->templates_cap &&
        ltk_parser_grow_size((void **)&p->templates, &p->templates_cap, (size_t)p->ntemplates + 1,
                  sizeof *p->templates)) {
        ltk_parser_nomem(p);
        return 0;
    }
    template_entry *t = &p->templates[p->ntemplates];
    memset(t, 0, sizeof *t);
    t->tokens = malloc((n ? n : 1) * sizeof *t->tokens);
    if (t->tokens == NULL) {
        ltk_parser_nomem(p);
        return 0;
    }
    t->cap = (uint32_t)(n ? n : 1);
    /* the bytes of every token but "<*>" (the shared static text) in one
       piece of the arena: a parser learning new messages makes a template
       for each, and one allocation per token was half of the making */
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (!ltk_is_wildcard(tokens[i].ptr, tokens[i].len))
            bytes += tokens[i].len;
    char *c = bytes ? ltk_arena_alloc(&p->token_arena, bytes) : NULL;
    if (bytes && c == NULL) {
        free(t->tokens);
        ltk_parser_nomem(p);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = tokens[i].len;
        if (ltk_is_wildcard(tokens[i].ptr, len) || len == 0) {
            t->tokens[i].ptr = wildcard_text; /* an empty token too: never a NULL slice */
        } else {
            memcpy(c, tokens[i].ptr, len);
            t->tokens[i].ptr = c;
            c += len;
        }
        t->tokens[i].len = len;
    }
    t->ntokens = (uint32_t)n;
    t->created_serial = p->serial;
    t->changed_serial = p->serial;
    text_changed(p, t);
    uint32_t id = ++p->ntemplates;
    mark_pending(p, id, t);
    return id;
}

int ltk_tmpl_set(logtk_parser *p, uint32_t id, const logtk_slice *tokens, size_t n)
{
    template_entry *t = entry(p, id);
    if (t == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template %u", (unsigned)id);
    int same = n == t->ntokens;
    for (size_t i = 0; same && i < n; i++)
        same = tokens[i].len == t->tokens[i].len &&
               memcmp(tokens[i].ptr, t->tokens[i].ptr, tokens[i].len) == 0;
    if (same)
        return LOGTK_OK;
    logtk_slice *nt = malloc((n ? n : 1) * sizeof *nt);
    if (nt == NULL)
        return ltk_parser_nomem(p);
    for (size_t i = 0; i < n; i++) {
        /* keep the old copy of an unchanged token (tokens may point into it) */
        if (i < t->ntokens && tokens[i].len == t->tokens[i].len &&
            memcmp(tokens[i].ptr, t->tokens[i].ptr, tokens[i].len) == 0) {
            nt[i] = t->tokens[i];
        } else if (copy_token(p, &nt[i], tokens[i].ptr, tokens[i].len) != 0) {
            free(nt);
            return ltk_parser_nomem(p);
        }
    }
    int rc = ltk_parser_render(p, t); /* what was shown, for keep_covering */
    free(t->tokens);
    t->tokens = nt;
    t->ntokens = (uint32_t)n;
    t->cap = (uint32_t)(n ? n : 1);
    if (rc == LOGTK_OK)
        rc = keep_covering(p, t);
    t->changed_serial = p->serial;
    mark_pending(p, id, t);
    return rc;
}

int ltk_tmpl_set_wildcard(logtk_parser *p, uint32_t id, size_t pos)
{
    template_entry *t = entry(p, id);
    if (t == NULL || pos >= t->ntokens)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template %u token %zu",
                                  (unsigned)id, pos);
    logtk_slice *s = &t->tokens[pos];
    if (ltk_is_wildcard(s->ptr, s->len))
        return LOGTK_OK;
    /* the new tokens match whatever the old ones did; a shown text may
       still be needed beside them */
    int rc = t->shown ? ltk_parser_render(p, t) : LOGTK_OK;
    s->ptr = wildcard_text;
    s->len = LTK_WILDCARD_LEN;
    if (t->shown && rc == LOGTK_OK)
        rc = keep_covering(p, t);
    t->changed_serial = p->serial;
    mark_pending(p, id, t);
    return rc;
}

const logtk_slice *ltk_tmpl_tokens(const logtk_parser *p, uint32_t id, size_t *n)
{
    template_entry *t = entry(p, id);
    if (t == NULL) {
        *n = 0;
        return NULL;
    }
    *n = t->ntokens;
    return t->tokens;
}

uint32_t ltk_tmpl_count(const logtk_parser *p)
{
    return p->ntemplates;
}

/* Writes tokens joined by single spaces into out (cleared first). */
static int join_tokens(ltk_strbuf *out, const logtk_slice *tok, size_t n)
{
    ltk_strbuf_clear(out);
    for (size_t i = 0; i < n; i++)
        if ((i && ltk_strbuf_append(out, " ", 1) != 0) ||
            ltk_strbuf_append(out, tok[i].ptr, tok[i].len) != 0)
            return -1;
    return ltk_strbuf_append(out, "", 0);
}

/* Entries of t->fit room is made for, for n words: a power of two, so that
   the room follows from the count (no field holds it) and grows by doubling. */
static size_t fit_room(size_t n)
{
    size_t room = 4;
    while (room < n)
        room *= 2;
    return room;
}

/* The words a line's tokens pair with (see template_entry.fit). */
static inline const logtk_slice *fit_words(const template_entry *t)
{
    return t->fit_split ? (const logtk_slice *)(const void *)(t->fit + fit_room(t->nfit))
                        : t->tokens;
}

/* Bytes at or below ' ' in s[0..n) (blanks, tabs, control bytes), eight at a time. */
static size_t blanks_in(const char *s, size_t n)
{
    size_t count = 0, i = 0;
    uint64_t w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        count += ((ltk_bytes_below(w, 0x21) >> 7) * LTK_BYTES_ONES) >> 56;
    }
    for (; i < n; i++)
        count += (unsigned char)s[i] <= ' ';
    return count;
}

/*
 * The next word of s[0..n) from *at, cut where ltk_tokenize() cuts a line
 * (ltk_is_split_space), so a template's words pair with a line's tokens;
 * *at moves past it.  An empty slice when no word is left.
 */
static logtk_slice next_word(const char *s, size_t n, size_t *at)
{
    size_t from = *at;
    while (from < n && ltk_is_split_space((unsigned char)s[from]))
        from++;
    size_t end = from;
    while (end < n && !ltk_is_split_space((unsigned char)s[end]))
        end++;
    *at = end;
    logtk_slice word = {s + from, end - from};
    return word;
}

/* Words of s[0..n) (next_word); 1 for a token without any (empty), which pairs whole. */
static size_t words_in(const char *s, size_t n)
{
    size_t words = 0, at = 0;
    while (next_word(s, n, &at).len > 0)
        words++;
    return words ? words : 1;
}

/* How word tok pairs with a line token; *before: the parameters of the words before it. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void classify_word(token_fit *f, const logtk_slice *tok, uint32_t *before)
{
    f->before = *before;
    f->prefix = 0;
    if (ltk_is_wildcard(tok->ptr, tok->len)) {
        f->kind = FIT_WILD;
        f->stars = 1;
    } else if (memchr(tok->ptr, '<', tok->len) == NULL) {
        f->kind = FIT_LITERAL;
        f->stars = 0;
    } else {
        size_t at;
        f->stars = (uint32_t)ltk_tmatch_count_wildcards(tok->ptr, tok->len);
        f->kind = ltk_tmatch_one_star(tok->ptr, tok->len, &at) ? FIT_ONE_STAR : FIT_GLOB;
        if (f->kind == FIT_ONE_STAR)
            f->prefix = (uint32_t)at;
    }
    *before += f->stars;
}

/*
 * Fills t->fit from t->tokens (see token_fit), once per rendered text and
 * only when a line's tokens are paired with it (not for lines a mask
 * changed, which are matched as text).  A token holding blanks (a quoted
 * field a parser kept as one token, its words as the line printed them)
 * pairs word by word, as the line's tokens are cut at blanks: the words
 * then follow the fit entries in the same block (fit_words).
 */
static int classify_tokens(logtk_parser *p, template_entry *t)
{
    if (!t->fit_stale || t->shown)
        return LOGTK_OK; /* current, or not needed: a shown text is matched as text */
    size_t nwords = t->ntokens;
    /* the text is the tokens joined by one blank: more bytes at or below
       ' ' (every byte ltk_is_split_space() takes) than those blanks, and
       some token may hold one (rare) */
    if (t->ntokens > 0 && blanks_in(t->text, t->text_len) != t->ntokens - 1) {
        nwords = 0;
        for (uint32_t i = 0; i < t->ntokens; i++)
            nwords += words_in(t->tokens[i].ptr, t->tokens[i].len);
    }
    const uint16_t split = nwords != t->ntokens;
    const size_t each = sizeof(token_fit) + (split ? sizeof(logtk_slice) : 0);
    if (t->fit == NULL || split != t->fit_split || fit_room(nwords) != fit_room(t->nfit)) {
        token_fit *f = realloc(t->fit, fit_room(nwords) * each);
        if (f == NULL)
            return ltk_parser_nomem(p);
        t->fit = f;
    }
    t->nfit = (uint32_t)nwords;
    t->fit_split = split;
    uint32_t before = 0;
    if (!split) {
        for (uint32_t i = 0; i < t->ntokens; i++)
            classify_word(&t->fit[i], &t->tokens[i], &before);
    } else {
        logtk_slice *words = (logtk_slice *)(void *)(t->fit + fit_room(nwords));
        size_t w = 0;
        for (uint32_t i = 0; i < t->ntokens; i++) {
            const logtk_slice *whole = &t->tokens[i];
            const size_t first = w;
            logtk_slice word;
            for (size_t at = 0; (word = next_word(whole->ptr, whole->len, &at)).len > 0; w++) {
                words[w] = word;
                classify_word(&t->fit[w], &words[w], &before);
            }
            if (w == first) { /* an empty token pairs whole (words_in counted it) */
                words[w] = *whole;
                classify_word(&t->fit[w], &words[w], &before);
                w++;
            }
        }
        assert(w == nwords);
    }
    t->fit_stale = 0;
    return LOGTK_OK;
}

int ltk_parser_render(logtk_parser *p, template_entry *t)
{
    if (!t->text_dirty)
        return LOGTK_OK;
    size_t need = 1;
    if (t->shown)
        need += t->shown_len;
    else
        for (uint32_t i = 0; i < t->ntokens; i++)
            need += t->tokens[i].len + 1;
    if (need > t->text_cap) {
        char *q = realloc(t->text, need);
        if (q == NULL)
            return ltk_parser_nomem(p);
        t->text = q;
        t->text_cap = need;
    }
    size_t len = 0;
    if (t->shown) {
        memcpy(t->text, t->shown, t->shown_len);
        len = t->shown_len;
    } else {
        for (uint32_t i = 0; i < t->ntokens; i++) {
            if (i)
                t->text[len++] = ' ';
            memcpy(t->text + len, t->tokens[i].ptr, t->tokens[i].len);
            len += t->tokens[i].len;
        }
    }
    t->text[len] = '\0';
    t->text_len = len;
    t->nwild = ltk_tmatch_count_wildcards(t->text, len);
    t->text_digit = -1; /* not yet asked (fit_keep_shape) */
    t->text_version++;
    t->fit_stale = 1;
    t->text_dirty = 0;
    return LOGTK_OK;
}

/* Shows text[0..len) for t; NULL: its tokens joined. */
int ltk_parser_set_shown(logtk_parser *p, template_entry *t, const char *text, size_t len)
{
    char *copy = NULL;
    if (text) {
        copy = malloc(len + 1);
        if (copy == NULL)
            return ltk_parser_nomem(p);
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    free(t->shown);
    t->shown = copy;
    t->shown_len = len;
    text_changed(p, t);
    return LOGTK_OK;
}

/*
 * Shows for t what p->merge made of its text and `other`.  When the result
 * does not match what it must (never expected: the merge matches both by
 * construction), "<*>" is shown, which matches everything.
 */
static int show_merge(logtk_parser *p, template_entry *t, const char *a, size_t alen,
                      enum ltk_tmatch_mode mode, const char *other, size_t olen, int other_is_template)
{
    if (ltk_tmatch_merge(&p->merge, a, alen, other, olen, other_is_template, mode) != LOGTK_OK)
        return ltk_parser_nomem(p);
    const ltk_strbuf *out = &p->merge.out;
    const char *text = out->data ? out->data : "";
    int ok = other_is_template ? ltk_tmatch_covers(text, out->len, other, olen)
                               : ltk_tmatch_glob(text, out->len, other, olen, NULL);
    if (ok && mode == LTK_TMATCH_COVER_BOTH)
        ok = ltk_tmatch_covers(text, out->len, a, alen);
    assert(ok);
    if (!ok)
        return ltk_parser_set_shown(p, t, LTK_WILDCARD, LTK_WILDCARD_LEN);
    return ltk_parser_set_shown(p, t, text, out->len);
}

/*
 * The algorithm changed t's tokens; t->text still holds what was shown
 * before.  If a line has matched that, what is shown from now on must match
 * everything it matched: the new tokens themselves when they cover it, else
 * the old text with the new tokens' "<*>" applied.
 */
static int keep_covering(logtk_parser *p, template_entry *t)
{
    if (!t->seen_line)
        return ltk_parser_set_shown(p, t, NULL, 0);
    if (join_tokens(&p->scratch_new, t->tokens, t->ntokens) != 0)
        return ltk_parser_nomem(p);
    const char *now = p->scratch_new.data;
    size_t now_len = p->scratch_new.len;
    if (ltk_tmatch_covers(now, now_len, t->text, t->text_len))
        return ltk_parser_set_shown(p, t, NULL, 0);
    return show_merge(p, t, now, now_len, LTK_TMATCH_A_IS_GUESS, t->text, t->text_len, 1);
}

/* The template whose text id shows: id itself, or the one it is an alias of. */
uint32_t ltk_parser_shown_id(const logtk_parser *p, uint32_t id)
{
    template_entry *t;
    while ((t = entry(p, id)) != NULL && t->alias != 0)
        id = t->alias;
    return id;
}

int ltk_tmpl_alias(logtk_parser *p, uint32_t id, uint32_t target)
{
    id = ltk_parser_shown_id(p, id);
    target = ltk_parser_shown_id(p, target);
    template_entry *t = entry(p, id), *root = entry(p, target);
    if (t == NULL || root == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template %u or %u", (unsigned)id,
                                  (unsigned)target);
    if (id == target)
        return LOGTK_OK;
    /* the lines of id must match what target shows from now on */
    int rc = ltk_parser_render(p, root);
    if (rc == LOGTK_OK)
        rc = ltk_parser_render(p, t);
    if (rc != LOGTK_OK)
        return rc;
    if (t->seen_line && !ltk_tmatch_covers(root->text, root->text_len, t->text, t->text_len)) {
        enum ltk_tmatch_mode mode =
            root->seen_line ? LTK_TMATCH_COVER_BOTH : LTK_TMATCH_A_IS_GUESS;
        if ((rc = show_merge(p, root, root->text, root->text_len, mode, t->text, t->text_len,
                             1)) != LOGTK_OK)
            return rc;
    }
    root->seen_line |= t->seen_line;
    t->alias = target;
    t->idx_stale = 1; /* an alias shows its target's text: it leaves the index */
    p->text_epoch++;
    if (root->text_dirty) {
        root->changed_serial = p->serial;
        mark_pending(p, target, root);
    }
    return LOGTK_OK;
}

/* Delivers the callbacks queued since the last flush. */
static void flush_callbacks(logtk_parser *p)
{
    for (size_t i = 0; i < p->npending; i++) {
        uint32_t id = p->pending[i];
        template_entry *t = entry(p, id);
        t->pending = 0;
        template_entry *shown = entry(p, ltk_parser_shown_id(p, id));
        if (p->callback == NULL || ltk_parser_render(p, shown) != LOGTK_OK)
            continue;
        int kind = t->created_serial == p->serial ? LOGTK_TEMPLATE_CREATED
                                                  : LOGTK_TEMPLATE_CHANGED;
        p->callback(p->callback_user, kind, id, shown->text, shown->text_len);
    }
    p->npending = 0;
}

static int record_assignment(logtk_parser *p, uint64_t index, uint32_t id)
{
    if (index < p->assign_base)
        return LOGTK_OK;
    uint64_t k = index - p->assign_base;
    if (k >= p->assign_len) {
        if (grow_array((void **)&p->assign, &p->assign_cap, k + 1, sizeof *p->assign))
            return ltk_parser_nomem(p);
        memset(p->assign + p->assign_len, 0, (size_t)(k + 1 - p->assign_len) * sizeof *p->assign);
        p->assign_len = k + 1;
    }
    p->assign[k] = id;
    return LOGTK_OK;
}

int ltk_parser_assign(logtk_parser *p, uint64_t k, uint32_t id)
{
    /* k counts this run's lines: after a load, the first line fed is line
       assign_base (a batch algorithm's corpus starts empty there) */
    const uint64_t line_index = p->assign_base + k;
    template_entry *t = entry(p, id);
    if (t == NULL || line_index >= p->lines)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no line %llu or template %u",
                                  (unsigned long long)line_index, (unsigned)id);
    if (line_index >= p->assign_base && line_index - p->assign_base < p->assign_len) {
        template_entry *old = entry(p, p->assign[line_index - p->assign_base]);
        if (old && old->count)
            old->count--;
    }
    t->count++;
    return record_assignment(p, line_index, id);
}

/* ------------------------------------------------------------ batch helpers */

uint32_t ltk_parser_intern_token(logtk_parser *p, const char *ptr, size_t len)
{
    if (!p->dict_ready) {
        if (ltk_hashtab_init(&p->dict, 4096) != 0)
            return UINT32_MAX;
        p->dict_ready = 1;
    }
    int64_t id = ltk_hashtab_intern(&p->dict, ptr, len, NULL);
    return id < 0 ? UINT32_MAX : (uint32_t)id;
}

uint32_t ltk_parser_find_token(const logtk_parser *p, const char *ptr, size_t len)
{
    if (!p->dict_ready)
        return UINT32_MAX;
    int64_t id = ltk_hashtab_find(&p->dict, ptr, len);
    return id < 0 ? UINT32_MAX : (uint32_t)id;
}

uint32_t ltk_tmpl_from_token_ids(logtk_parser *p, const uint32_t *ids, size_t n)
{
    static const uint32_t no_ids[1] = {0};
    if (!p->tmpl_by_ids_ready) {
        if (ltk_hashtab_init(&p->tmpl_by_ids, 256) != 0)
            goto oom;
        p->tmpl_by_ids_ready = 1;
    }
    int inserted = 0;
    int64_t k = ltk_hashtab_intern(&p->tmpl_by_ids, n ? ids : no_ids, n * sizeof *ids, &inserted);
    if (k < 0 || ltk_array_reserve((void **)&p->tmpl_of_ids, &p->tmpl_of_ids_cap, (size_t)k + 1,
                                     sizeof *p->tmpl_of_ids) != 0)
        goto oom;
    if (!inserted)
        return p->tmpl_of_ids[k];
    if (ltk_array_reserve((void **)&p->ids_slices, &p->ids_slices_cap, n + 1,
                            sizeof *p->ids_slices) != 0)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        p->ids_slices[i].ptr = ltk_parser_token_text(p, ids[i], &p->ids_slices[i].len);
        assert(p->ids_slices[i].ptr != NULL); /* ids come from ltk_parser_intern_token */
    }
    p->tmpl_of_ids[k] = ltk_tmpl_create(p, p->ids_slices, n);
    return p->tmpl_of_ids[k];
oom:
    ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    return 0;
}

int ltk_parser_assign_token_ids(logtk_parser *p, uint64_t k, const uint32_t *ids, size_t n)
{
    uint32_t id = ltk_tmpl_from_token_ids(p, ids, n);
    return id ? ltk_parser_assign(p, k, id) : LOGTK_ERR_NOMEM;
}

const char *ltk_parser_token_text(const logtk_parser *p, uint32_t id, size_t *len)
{
    if (!p->dict_ready) {
        if (len)
            *len = 0;
        return NULL;
    }
    return ltk_hashtab_key(&p->dict, id, len);
}

int ltk_parser_store_line(logtk_parser *p, const ltk_parse_line *line)
{
    if (grow_array((void **)&p->stored_offsets, &p->stored_offsets_cap, p->stored_lines + 2,
                   sizeof *p->stored_offsets) ||
        grow_array((void **)&p->stored_tokens, &p->stored_cap, p->stored_len + line->ntokens,
                   sizeof *p->stored_tokens))
        return ltk_parser_nomem(p);
    if (p->stored_lines == 0)
        p->stored_offsets[0] = 0;
    for (size_t i = 0; i < line->ntokens; i++) {
        uint32_t id = ltk_parser_intern_token(p, line->tokens[i].ptr, line->tokens[i].len);
        if (id == UINT32_MAX)
            return ltk_parser_nomem(p);
        p->stored_tokens[p->stored_len++] = id;
    }
    p->stored_offsets[++p->stored_lines] = p->stored_len;
    return LOGTK_OK;
}

uint64_t ltk_parser_stored_count(const logtk_parser *p)
{
    return p->stored_lines;
}

const uint32_t *ltk_parser_stored_line(const logtk_parser *p, uint64_t k, size_t *n)
{
    /* no token stored yet (every line so far empty): no array to point into,
       and NULL + 0 is undefined (fuzz_snapshot, UBSan) */
    if (k >= p->stored_lines || p->stored_tokens == NULL) {
        *n = 0;
        return NULL;
    }
    *n = (size_t)(p->stored_offsets[k + 1] - p->stored_offsets[k]);
    return p->stored_tokens + p->stored_offsets[k];
}

/* --------------------------------------------------------- life cycle, API */

const char *logtk_parser_algorithm_name(size_t i)
{
    return i < ALGORITHM_COUNT ? algorithm_registry[i]->name : NULL;
}

const char *logtk_parser_algorithm_summary(size_t i)
{
    return i < ALGORITHM_COUNT ? algorithm_registry[i]->summary : NULL;
}

static const ltk_parser_algo *find_algorithm(const char *name)
{
    if (name == NULL)
        return DEFAULT_ALGORITHM;
    for (size_t i = 0; i < ALGORITHM_COUNT; i++)
        if (strcmp(algorithm_registry[i]->name, name) == 0)
            return algorithm_registry[i];
    return NULL;
}

int ltk_parser_create(logtk_parser **out, const ltk_parser_algo *algo)
{
    logtk_parser *p = calloc(1, sizeof *p);
    if (p == NULL)
        return LOGTK_ERR_NOMEM;
    p->algo = algo;
    p->keep_assignments = 1;
    p->serial = 1;
    ltk_arena_init(&p->token_arena, 0);
    p->state = calloc(1, algo->state_size ? algo->state_size : 1);
    if (p->state == NULL || ltk_masker_new(&p->masker) != LOGTK_OK) {
        free(p->state);
        ltk_masker_free(p->masker);
        free(p);
        return LOGTK_ERR_NOMEM;
    }
    int rc = algo->init ? algo->init(p, p->state) : LOGTK_OK;
    if (rc != LOGTK_OK) {
        p->algo = NULL; /* init failed: do not call destroy on a half state */
        logtk_parser_free(p);
        return rc;
    }
    *out = p;
    return LOGTK_OK;
}

int logtk_parser_new(logtk_parser **out, const char *algorithm)
{
    *out = NULL;
    const ltk_parser_algo *algo = find_algorithm(algorithm);
    if (algo == NULL)
        return LOGTK_ERR_NOT_FOUND;
    return ltk_parser_create(out, algo);
}

const char *logtk_parser_algorithm(const logtk_parser *p)
{
    return p->algo->name;
}

void logtk_parser_free(logtk_parser *p)
{
    if (p == NULL)
        return;
    if (p->algo && p->algo->destroy)
        p->algo->destroy(p->state);
    free(p->state);
    ltk_masker_free(p->masker);
    ltk_tokens_free(&p->tokens);
    for (uint32_t i = 0; i < p->ntemplates; i++) {
        free(p->templates[i].tokens);
        free(p->templates[i].shown);
        free(p->templates[i].text);
        free(p->templates[i].fit);
    }
    free(p->templates);
    ltk_arena_free(&p->token_arena);
    free(p->assign);
    free(p->pending);
    for (size_t i = 0; i < p->nparams; i++) {
        free(p->params[i].name);
        free(p->params[i].value);
    }
    free(p->params);
    free(p->param_out);
    free(p->feed_fits.slots);
    free(p->feed_fits.more);
    free(p->feed_fits.literals);
    free(p->extract_fits.slots);
    free(p->extract_fits.more);
    free(p->extract_fits.literals);
    ltk_tmatch_scratch_free(&p->merge);
    ltk_strbuf_free(&p->scratch_new);
    ltk_strbuf_free(&p->batch_content);
    free(p->batch_offsets);
    if (p->dict_ready)
        ltk_hashtab_free(&p->dict);
    free(p->stored_tokens);
    free(p->stored_offsets);
    if (p->tmpl_by_ids_ready)
        ltk_hashtab_free(&p->tmpl_by_ids);
    free(p->tmpl_of_ids);
    free(p->ids_slices);
    free(p->param_names);
    if (p->index_ready)
        ltk_u64map_free(&p->index_heads);
    free(p);
}

const char *logtk_parser_errmsg(const logtk_parser *p)
{
    return p ? ltk_error_text(&p->err) : "no parser";
}

static int record_param(logtk_parser *p, const char *name, const char *value)
{
    for (size_t i = 0; i < p->nparams; i++) {
        if (strcmp(p->params[i].name, name) == 0) {
            char *v = strdup(value);
            if (v == NULL)
                return ltk_parser_nomem(p);
            free(p->params[i].value);
            p->params[i].value = v;
            return LOGTK_OK;
        }
    }
    param_pair *q = realloc(p->params, (p->nparams + 1) * sizeof *q);
    if (q == NULL)
        return ltk_parser_nomem(p);
    p->params = q;
    char *n = strdup(name), *v = strdup(value);
    if (n == NULL || v == NULL) {
        free(n);
        free(v);
        return ltk_parser_nomem(p);
    }
    p->params[p->nparams].name = n;
    p->params[p->nparams].value = v;
    p->nparams++;
    return LOGTK_OK;
}

int logtk_parser_set_option(logtk_parser *p, const char *name, const char *value)
{
    ltk_error_clear(&p->err);
    if (name == NULL || value == NULL)
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "parameter name and value needed");
    if (p->lines > 0)
        return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                  "%s: parameter %s must be set before the first line",
                                  p->algo->name, name);
    if (strcmp(name, "keep_assignments") == 0) {
        long v;
        int rc = ltk_param_int(p, name, value, 0, 1, &v);
        if (rc == LOGTK_OK)
            p->keep_assignments = (int)v;
        return rc; /* not learned state: not recorded in snapshots */
    }
    if (p->algo->set_param == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "%s has no parameter \"%s\"",
                                  p->algo->name, name);
    int rc = p->algo->set_param(p, p->state, name, value);
    if (rc == LOGTK_ERR_NOT_FOUND && p->err.msg[0] == '\0')
        ltk_parser_error(p, rc, "%s has no parameter \"%s\"", p->algo->name, name);
    if (rc != LOGTK_OK)
        return rc;
    return record_param(p, name, value);
}

/* the old name, kept for programs built against it (logtk.h) */
int logtk_parser_set_param(logtk_parser *p, const char *name, const char *value)
{
    return logtk_parser_set_option(p, name, value);
}

int logtk_parser_add_mask(logtk_parser *p, const char *pattern, const char *replacement)
{
    ltk_error_clear(&p->err);
    if (pattern == NULL)
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "mask pattern needed");
    if (p->lines > 0)
        return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                  "masks must be added before the first line");
    return ltk_masker_add(p->masker, pattern, replacement, &p->err);
}

int logtk_parser_add_named_mask(logtk_parser *p, const char *name, const char *pattern,
                                const char *replacement)
{
    ltk_error_clear(&p->err);
    if (pattern == NULL)
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "mask pattern needed");
    if (p->lines > 0)
        return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                  "masks must be added before the first line");
    return ltk_masker_add_named(p->masker, name, pattern, replacement, &p->err);
}

int logtk_parser_set_callback(logtk_parser *p, logtk_template_callback cb, void *user)
{
    p->callback = cb;
    p->callback_user = user;
    return LOGTK_OK;
}

uint64_t logtk_parser_line_count(const logtk_parser *p)
{
    return p->lines;
}

uint32_t logtk_parser_template_count(const logtk_parser *p)
{
    return p->ntemplates;
}

int logtk_parser_template(logtk_parser *p, uint32_t template_id, logtk_slice *text,
                          uint64_t *count)
{
    template_entry *t = entry(p, template_id);
    if (t == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template %u",
                                  (unsigned)template_id);
    template_entry *shown = entry(p, ltk_parser_shown_id(p, template_id));
    int rc = ltk_parser_render(p, shown);
    if (rc != LOGTK_OK)
        return rc;
    if (text) {
        text->ptr = shown->text;
        text->len = shown->text_len;
    }
    if (count)
        *count = t->count;
    return LOGTK_OK;
}

int logtk_parser_assignment(logtk_parser *p, uint64_t index, uint32_t *template_id)
{
    if (!p->keep_assignments && p->algo->online)
        return ltk_parser_error(p, LOGTK_ERR_UNSUPPORTED,
                                  "assignments are not kept (keep_assignments=0)");
    if (index >= p->lines || index < p->assign_base)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no assignment for line %llu",
                                  (unsigned long long)index);
    uint64_t k = index - p->assign_base;
    *template_id = k < p->assign_len ? p->assign[k] : 0;
    return LOGTK_OK;
}

/* ------------------------------------------- fitting lines, parameters */

/*
 * One template token (tok, classified as f) against one line token c: 1 when
 * it fits (a "<*>", the same bytes, or a glob match).  With caps (room for
 * f->stars slices), also the text of each "<*>", as the glob match finds
 * it; *caps_ok is cleared when the token fits by its bytes only and the
 * matcher gives no values (then the caller matches the whole text).
 */
static inline int token_fits(const logtk_slice *tok, const token_fit *f, const logtk_slice *c,
                             logtk_slice *caps, int *caps_ok)
{
    switch (f->kind) {
    case FIT_WILD:
        if (caps)
            caps[0] = *c;
        return 1;
    case FIT_LITERAL:
        return tok->len == c->len && memcmp(tok->ptr, c->ptr, c->len) == 0;
    case FIT_ONE_STAR: {
        /* what ltk_tmatch_glob() does with one "<*>" and no blank (ltk_tmatch_one_star) */
        size_t prefix = f->prefix, suffix = tok->len - LTK_WILDCARD_LEN - prefix;
        if (c->len < prefix + suffix || memcmp(tok->ptr, c->ptr, prefix) != 0 ||
            memcmp(tok->ptr + tok->len - suffix, c->ptr + c->len - suffix, suffix) != 0)
            return 0; /* equal bytes would have matched too */
        if (caps) {
            caps[0].ptr = c->ptr + prefix;
            caps[0].len = c->len - prefix - suffix;
        }
        return 1;
    }
    default:
        if (caps && f->stars) {
            if (ltk_tmatch_glob(tok->ptr, tok->len, c->ptr, c->len, caps))
                return 1;
            if (tok->len == c->len && memcmp(tok->ptr, c->ptr, c->len) == 0) {
                *caps_ok = 0;
                return 1;
            }
            return 0;
        }
        return (tok->len == c->len && memcmp(tok->ptr, c->ptr, c->len) == 0) ||
               ltk_tmatch_glob(tok->ptr, tok->len, c->ptr, c->len, NULL);
    }
}

/*
 * The usual case, cheaply: the template shows its own tokens and the line's
 * tokens are its content's (no mask changed it).  The tokens pair up from
 * both ends, and one "<*>" of the template may take the extra tokens of a
 * longer line (fuse's header).  1 when that shows a match, 0 says nothing.
 * With caps (room for t->nwild slices), the text of each "<*>" goes there,
 * as the glob match finds it (a "<*>" token takes its tokens, one inside a
 * token its part of it), and *caps_ok says whether they all could be
 * found so.  t->fit must be current (classify_tokens()).
 */
static int tokens_fit(const template_entry *t, const logtk_slice *c, size_t n, logtk_slice *caps,
                      int *caps_ok)
{
    size_t m = t->nfit;
    *caps_ok = 1;
    if (t->shown || n < m || m == 0)
        return m == 0 && n == 0 && !t->shown;
    const logtk_slice *tok = fit_words(t);
    const token_fit *f = t->fit;
    if (n == m) {
        /* no "<*>" takes extra tokens: they pair in order, or the line does not fit */
        for (size_t i = 0; i < m; i++)
            if (!token_fits(&tok[i], &f[i], &c[i], caps ? caps + f[i].before : NULL, caps_ok))
                return 0;
        return 1;
    }
    /* a "<*>" at q with [0, q) fitting from the left and (q, m) from the right */
    size_t shift = n - m, l = 0, r = 0, q = SIZE_MAX;
    int ignored = 1;
    while (l < m && token_fits(&tok[l], &f[l], &c[l], NULL, &ignored))
        l++;
    size_t caps_bad = SIZE_MAX; /* the last token paired from the right whose values failed */
    for (; r < m; r++) {
        size_t i = m - 1 - r;
        int good = 1;
        if (!token_fits(&tok[i], &f[i], &c[i + shift], caps ? caps + f[i].before : NULL, &good))
            break;
        if (!good && caps_bad == SIZE_MAX)
            caps_bad = i;
    }
    for (size_t i = m - 1 - (r < m ? r : m - 1); i <= l && i < m && q == SIZE_MAX; i++)
        if (f[i].kind == FIT_WILD && m - 1 - i <= r)
            q = i;
    if (q == SIZE_MAX)
        return 0;
    if (caps) {
        /* (q, m) hold the values paired from the right; [0, q) pair from the left */
        int good = caps_bad == SIZE_MAX || caps_bad < q;
        for (size_t i = 0; i < q; i++)
            token_fits(&tok[i], &f[i], &c[i], caps + f[i].before, &good);
        const logtk_slice *last = &c[q + shift];
        caps[f[q].before].ptr = c[q].ptr;
        caps[f[q].before].len = (size_t)(last->ptr + last->len - c[q].ptr);
        *caps_ok = good;
    }
    return 1;
}

/*
 * Makes template id match `content` (the line assigned to it): when its
 * text does not, its shown tokens are widened with the line's own tokens.
 * The algorithm's tokens, and so its grouping, are left alone.  With np,
 * the line's parameters go to p->param_out when it matches the template
 * as it is (*np their count), else *np is SIZE_MAX (the template was
 * widened, or the tokens paired by their bytes only): a line is fitted and
 * its values found in one pass over its tokens, or one match of its text.
 */
static int fit_line(logtk_parser *p, uint32_t id, const char *content, size_t len,
                    const logtk_slice *tokens, size_t ntokens, size_t *np, int *paired)
{
    id = ltk_parser_shown_id(p, id);
    template_entry *t = entry(p, id);
    if (np)
        *np = SIZE_MAX;
    if (paired)
        *paired = 0;
    int rc = ltk_parser_render(p, t);
    if (rc != LOGTK_OK)
        return rc;
    if (np && ltk_parser_grow_size((void **)&p->param_out, &p->param_out_cap, t->nwild + 1,
                        sizeof *p->param_out))
        return ltk_parser_nomem(p);
    if (tokens) {
        if (classify_tokens(p, t) != LOGTK_OK)
            return ltk_parser_nomem(p);
        int caps_ok;
        if (tokens_fit(t, tokens, ntokens, np ? p->param_out : NULL, &caps_ok)) {
            t->seen_line = 1;
            if (np && caps_ok)
                *np = t->nwild;
            if (paired) /* token i with token i, none taking extra ones */
                *paired = ntokens == t->nfit;
            return LOGTK_OK;
        }
    }
    if (ltk_tmatch_glob(t->text, t->text_len, content, len, np ? p->param_out : NULL)) {
        t->seen_line = 1;
        if (np)
            *np = t->nwild;
        return LOGTK_OK;
    }
    enum ltk_tmatch_mode mode = t->seen_line ? LTK_TMATCH_COVER_BOTH : LTK_TMATCH_A_IS_GUESS;
    if ((rc = show_merge(p, t, t->text, t->text_len, mode, content, len, 0)) != LOGTK_OK ||
        (rc = ltk_parser_render(p, t)) != LOGTK_OK)
        return rc;
    t->seen_line = 1;
    t->changed_serial = p->serial;
    mark_pending(p, id, t);
    return LOGTK_OK;
}

/*
 * Fits by shape.  Two lines of one shape (ltk_parser_note_shape: the same
 * length and bytes, digits aside) differ in their digits only.  Fitted to a
 * template whose text holds no digit, each comparison of a template byte
 * with a line byte, tokens_fit()'s and the glob matcher's alike, answers the
 * same for both lines (a digit equals no byte of the template, the other
 * bytes are the same), so the second line fits as the first did, with its
 * parameters at the same offsets.  A table of the last fits made, by shape
 * (sets of two: the set's newest fit first, the one before it second),
 * spares most lines of a log their fit.  It holds fits that matched the
 * template as it was, with every parameter found; the template's
 * text_version says whether its text is still the one fitted.  It starts
 * at 1,024 slots (64 KB) and doubles, emptied, while fits keep pushing out
 * others and a fair share of lines are answered, up to 32,768 (2 MB): of a
 * 1-million-line mix of the 16 Loghub logs, 77% of the lines are fitted by
 * shape with 1,024 slots, 91% as the table grows (a 2,000-line log keeps
 * 1,024).  A slot keeps 11 parameters; a fit with more (up to 27: long
 * lines of key=value pairs, Android's window dumps) keeps the rest in the
 * table's `more`, made at the first such fit, so that the slots stay one
 * cache line each and a table of fits with few parameters costs no more.
 *
 * A template whose text holds a digit ("wl0", "jk2_init", "ssh2": names
 * fuse keeps) can pair a digit of its own with a digit of the line, and a
 * line of the same shape may then fit otherwise ("<*>5<*>" takes "1525" as
 * "1", "25", and "5515" as "", "515").  Such a fit is kept only when it
 * paired token i of the line with token i of the template, every one
 * (tokens_fit(), none taking extra tokens), and no token matched by the
 * glob matcher (FIT_GLOB) holds a digit: then a template digit meets a line
 * byte only in a token that must equal it (FIT_LITERAL) or in a fixed
 * prefix or suffix (FIT_ONE_STAR), never inside a parameter.  A later line
 * fits the same way when its bytes outside the kept parameters are the
 * first line's (their hash is kept in the table's `literals`, made at the
 * first such fit, at the slot's index): they are the bytes
 * those comparisons read; in every other byte the two lines differ in
 * digits at most, which no other template byte equals.  Apache's
 * "jk2_init() Found child <*> in scoreboard slot <*>" (848 of its 2,000
 * lines), OpenSSH's "... ssh2" (525) and Mac's (422) were fitted anew on
 * every line before.
 * There are two such tables (struct fit_table): the feed's, keyed
 * by the shape the algorithm gives (ltk_parser_note_shape), and
 * logtk_parser_extract()'s, keyed by ltk_line_shape() of the line; a feed
 * fit tries the tokens before the glob matcher and an extraction does not,
 * so each table holds only fits its own way would make.
 */
#define FIT_MEMO_MIN 1024 /* powers of two: sets of two */
#define FIT_MEMO_MAX 32768
#define FIT_MEMO_PARAMS 11  /* parameters kept in the slot: it fills 64 bytes */
#define FIT_MEMO_MORE 16    /* and in the table's `more`, per slot */
typedef struct fit_memo {
    uint64_t shape;
    uint32_t shown;   /* the template the line was fitted to (its shown id) */
    uint32_t version; /* and its text_version */
    uint16_t len;     /* of the line: a shape that stands for lines of two lengths is no shape */
    uint8_t nparams;
    uint8_t literal;  /* 1: a template holding a digit, table->literals has the line's hash */
    uint16_t param[FIT_MEMO_PARAMS][2]; /* offset and length in the line */
} fit_memo;
_Static_assert(sizeof(fit_memo) == 64, "a fit_memo slot is one cache line");

/* The first of the two slots of shape's set. */
static fit_memo *fit_memo_set(const struct fit_table *table, uint64_t shape)
{
    return &table->slots[(shape >> 32) & (table->nslots - 2)];
}

/* The parameters of slot m past its own FIT_MEMO_PARAMS (table->more made). */
static uint16_t (*fit_memo_more(const struct fit_table *table, const fit_memo *m))[2]
{
    return table->more + (size_t)(m - table->slots) * FIT_MEMO_MORE;
}

/* Parameter k of slot m: its offset and length, in the slot or in `more`. */
static inline const uint16_t *fit_memo_param(const struct fit_table *table, const fit_memo *m, size_t k)
{
    return k < FIT_MEMO_PARAMS ? m->param[k] : fit_memo_more(table, m)[k - FIT_MEMO_PARAMS];
}

/* A new, empty table of `slots`; the old one stays on no memory. */
static void fit_memo_make(struct fit_table *table, size_t slots)
{
    fit_memo *m = calloc(slots, sizeof *m); /* shape 0: empty (no shape is 0) */
    if (m == NULL)
        return;
    free(table->slots);
    free(table->more);
    free(table->literals);
    table->more = NULL;
    table->literals = NULL;
    table->slots = m;
    table->nslots = slots;
    table->evictions = table->hits = 0;
}

void ltk_parser_note_shape(logtk_parser *p, uint64_t shape)
{
    assert(shape != 0);
    if (p->feed_fits.slots == NULL)
        fit_memo_make(&p->feed_fits, FIT_MEMO_MIN);
    if (p->feed_fits.slots != NULL) /* else (no memory) every line is fitted, as without a shape */
        p->line_shape = shape;
}

/* The parameters of a fit kept with more than a slot holds (see fit_by_shape). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void fit_memo_params_more(const struct fit_table *table, const fit_memo *m,
                                 const char *content, logtk_slice *out)
{
    for (size_t k = 0; k < m->nparams; k++) {
        const uint16_t *at = fit_memo_param(table, m, k);
        out[k].ptr = content + at[0];
        out[k].len = at[1];
    }
}

/*
 * A hash of content's bytes outside slot m's parameters (never 0), or 0
 * when the parameters are not in order, apart, within the line.
 */
static uint64_t fit_literal_hash(const struct fit_table *table, const fit_memo *m,
                                 const char *content, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    size_t at = 0;
    for (size_t k = 0; k <= m->nparams; k++) {
        size_t end = len, next = len;
        if (k < m->nparams) {
            const uint16_t *param = fit_memo_param(table, m, k);
            end = param[0];
            next = (size_t)param[0] + param[1];
        }
        if (end < at || next > len)
            return 0;
        h = ltk_hash_bytes_seeded(content + at, end - at, h);
        at = next;
    }
    return h | 1;
}

/* 1 when content's bytes outside slot m's parameters are those of the line it kept. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int fit_literal_same(const struct fit_table *table, const fit_memo *m,
                            const char *content, size_t len)
{
    return fit_literal_hash(table, m, content, len) == table->literals[(size_t)(m - table->slots)];
}

/*
 * 1 when a line of `shape` (its masking none) fits template id as a line of
 * its shape did, by table's fits: then with np, its parameters are in
 * p->param_out (*np of them).  0: fit it.  Inlined, as it was with its one
 * caller: it is asked for every line that has a shape (as a call, 6.3M more
 * instructions of `logtk parse -o /dev/null` on 100,000 lines of the 16-log
 * mix, 584.8M against 578.5M).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int fit_by_shape(logtk_parser *p, struct fit_table *table, uint64_t shape, uint32_t id,
                        const char *content, size_t len, size_t *np)
{
    const fit_memo *m = fit_memo_set(table, shape);
    if (m->shape != shape && (++m)->shape != shape)
        return 0;
    uint32_t shown = ltk_parser_shown_id(p, id);
    const template_entry *t = entry(p, shown);
    if (m->shown != shown || t->text_dirty || t->text_version != m->version || m->len != len ||
        (m->literal && !fit_literal_same(table, m, content, len)))
        return 0;
    assert((m->literal || t->text_digit == 0) && t->nwild == m->nparams);
    table->hits++;
    if (np) {
        if ((size_t)m->nparams + 1 > p->param_out_cap && /* the call only to grow */
            ltk_parser_grow_size((void **)&p->param_out, &p->param_out_cap, (size_t)m->nparams + 1,
                                 sizeof *p->param_out))
            return 0;
        if (m->nparams > FIT_MEMO_PARAMS) {
            fit_memo_params_more(table, m, content, p->param_out);
        } else {
            for (size_t k = 0; k < m->nparams; k++) {
                p->param_out[k].ptr = content + m->param[k][0];
                p->param_out[k].len = m->param[k][1];
            }
        }
        *np = m->nparams;
    }
    return 1;
}

/* 1 when s[0..n) holds a digit; eight bytes a step, none read past n. */
static int holds_digit(const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (ltk_digit_bytes(w))
            return 1;
    }
    for (; i < n; i++)
        if (s[i] >= '0' && s[i] <= '9')
            return 1;
    return 0;
}

/*
 * Nonzero when template t's digits meet a line only in tokens paired whole
 * or by a fixed prefix and suffix (see fit_memo): no FIT_GLOB token holds
 * a digit.  t->fit is current (the line was just fitted by its tokens).
 */
static int digits_outside_globs(const template_entry *t)
{
    const logtk_slice *words = fit_words(t);
    for (uint32_t i = 0; i < t->nfit; i++)
        if (t->fit[i].kind == FIT_GLOB && holds_digit(words[i].ptr, words[i].len))
            return 0;
    return 1;
}

/* Keeps in table the fit just made of a line of `shape` (np parameters in
   p->param_out); paired: fit_line() paired every token in order. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void fit_keep_shape(logtk_parser *p, struct fit_table *table, uint64_t shape, uint32_t id,
                           const char *content, size_t len, size_t np, int paired)
{
    uint32_t shown = ltk_parser_shown_id(p, id);
    template_entry *t = entry(p, shown);
    if (t->text_dirty || np != t->nwild || np > FIT_MEMO_PARAMS + FIT_MEMO_MORE ||
        len > UINT16_MAX)
        return;
    if (t->text_digit < 0)
        t->text_digit = holds_digit(t->text, t->text_len);
    /* (paired: tokens_fit() matched, so the text is the tokens and t->fit is current) */
    assert(!paired || (!t->shown && !t->fit_stale));
    if (t->text_digit && !(paired && digits_outside_globs(t)))
        return;
    /* newest first: the set's first fit moves to second, unless it is this
       shape's own (a fit made anew after its template changed) */
    fit_memo *m = fit_memo_set(table, shape);
    if (m->shape != shape && m[1].shape != 0 && m[1].shape != shape &&
        ++table->evictions > table->nslots &&
        table->hits >= table->evictions / 4 && table->nslots < FIT_MEMO_MAX) {
        /* shapes keep pushing out others that come back: more room */
        fit_memo_make(table, 2 * table->nslots);
        m = fit_memo_set(table, shape);
    }
    /* (neither is zeroed: a slot's part is read only once written, for a
       slot of more than FIT_MEMO_PARAMS or one marked literal) */
    if ((np > FIT_MEMO_PARAMS && table->more == NULL &&
         (table->more = malloc(table->nslots * FIT_MEMO_MORE * sizeof *table->more)) == NULL) ||
        (t->text_digit && table->literals == NULL &&
         (table->literals = malloc(table->nslots * sizeof *table->literals)) == NULL))
        return; /* no memory: the line is fitted again next time */
    if (m->shape != shape) {
        m[1] = m[0];
        if (m[1].nparams > FIT_MEMO_PARAMS) /* (then `more` was made) */
            memcpy(fit_memo_more(table, &m[1]), fit_memo_more(table, m),
                   FIT_MEMO_MORE * sizeof *table->more);
        if (m[1].literal) /* (then `literals` was made) */
            table->literals[(size_t)(m + 1 - table->slots)] =
                table->literals[(size_t)(m - table->slots)];
    }
    m->shape = shape;
    m->shown = shown;
    m->version = t->text_version;
    m->len = (uint16_t)len;
    m->nparams = (uint8_t)np;
    for (size_t k = 0; k < np; k++) {
        assert(p->param_out[k].ptr >= content &&
               p->param_out[k].ptr + p->param_out[k].len <= content + len);
        uint16_t *at = (uint16_t *)fit_memo_param(table, m, k); /* (m is ours to write) */
        at[0] = (uint16_t)(p->param_out[k].ptr - content);
        at[1] = (uint16_t)p->param_out[k].len;
    }
    m->literal = 0;
    if (t->text_digit) {
        uint64_t h = fit_literal_hash(table, m, content, len);
        if (h == 0) {
            m->shape = 0; /* parameters out of order: not kept (the slot is empty again) */
            return;
        }
        table->literals[(size_t)(m - table->slots)] = h;
        m->literal = 1;
    }
}

/*
 * Whether the glob match's parameters caps[0..k) of template text[0..len)
 * may split the line where its tokens would not: the template opens with a
 * "<*>" token (fuse's header), and a later "<*>" holds a blank.  The glob
 * gives each "<*>" the shortest text from the left, so the header got one
 * word ("Dec" of "Dec  5 01:28:53 dnsmasq[12047]: 1 127.0.0.1/56528
 * query[A]" under "<*> <*> <*> query[A]"), or stopped at the first copy of
 * the next fixed word (the application "su" of "<34>1 2026-12-05T01:12:17Z
 * host su 77 ID47 - su root failed" under "<*> su <*> failed"), and a later
 * "<*>" took the rest; the tokens, paired as while the line was fed, pair
 * from both ends and give the extra ones to the first "<*>" that can take
 * them (tokens_fit).
 */
static int captures_ambiguous(const char *text, size_t len, const logtk_slice *caps, size_t k)
{
    if (k < 2 || len <= LTK_WILDCARD_LEN || memcmp(text, LTK_WILDCARD, LTK_WILDCARD_LEN) != 0 ||
        text[LTK_WILDCARD_LEN] != ' ')
        return 0;
    for (size_t j = 1; j < k; j++)
        if (memchr(caps[j].ptr, ' ', caps[j].len))
            return 1;
    return 0;
}

/* The parameters of `content` under template id into p->param_out; 0 when it does not match. */
static int capture_params(logtk_parser *p, uint32_t id, const char *content, size_t len,
                          const logtk_slice *tokens, size_t ntokens, int split_ambiguous,
                          size_t *np)
{
    template_entry *t = entry(p, ltk_parser_shown_id(p, id));
    int rc = ltk_parser_render(p, t);
    *np = 0;
    if (rc != LOGTK_OK)
        return rc;
    if (ltk_parser_grow_size((void **)&p->param_out, &p->param_out_cap, t->nwild + 1, sizeof *p->param_out))
        return ltk_parser_nomem(p);
    int caps_ok;
    if (tokens && classify_tokens(p, t) != LOGTK_OK)
        return ltk_parser_nomem(p);
    if (tokens && tokens_fit(t, tokens, ntokens, p->param_out, &caps_ok) && caps_ok) {
        *np = t->nwild;
        return LOGTK_OK;
    }
    if (!ltk_tmatch_glob(t->text, t->text_len, content, len, p->param_out))
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND,
                                  "the line does not match template %u", (unsigned)id);
    *np = t->nwild;
    if (tokens == NULL && split_ambiguous &&
        captures_ambiguous(t->text, t->text_len, p->param_out, t->nwild)) {
        /* pair the line's tokens as while it was fed: the "<*>" that took
           several then (fuse's header, the first) takes them again */
        p->tokens_serial = 0; /* (p->tokens: no line being fed) */
        if (ltk_tokenize(&p->tokens, content, len) != LOGTK_OK)
            return ltk_parser_nomem(p);
        if ((classify_tokens(p, t) != LOGTK_OK ||
             !tokens_fit(t, p->tokens.tok, p->tokens.n, p->param_out, &caps_ok) || !caps_ok) &&
            !ltk_tmatch_glob(t->text, t->text_len, content, len, p->param_out))
            return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND,
                                    "the line does not match template %u", (unsigned)id);
    }
    return LOGTK_OK;
}

/* Batch algorithms: keeps the original content of a line fed, for finish. */
static int keep_batch_content(logtk_parser *p, uint64_t index, const char *content, size_t len)
{
    if (index < p->assign_base)
        return LOGTK_OK;
    if (grow_array((void **)&p->batch_offsets, &p->batch_offsets_cap, p->batch_lines + 2,
                   sizeof *p->batch_offsets) ||
        ltk_strbuf_append(&p->batch_content, content, len) != 0)
        return ltk_parser_nomem(p);
    p->batch_offsets[0] = 0;
    p->batch_offsets[++p->batch_lines] = p->batch_content.len;
    return LOGTK_OK;
}

/* A template's own text (its tokens joined) with its key, for unite_same_text. */
typedef struct text_key {
    uint64_t key;
    uint32_t id;
} text_key;

static int text_key_cmp(const void *a, const void *b)
{
    const text_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int same_tokens(const template_entry *a, const template_entry *b)
{
    if (a->ntokens != b->ntokens)
        return 0;
    for (uint32_t i = 0; i < a->ntokens; i++)
        if (a->tokens[i].len != b->tokens[i].len ||
            memcmp(a->tokens[i].ptr, b->tokens[i].ptr, a->tokens[i].len) != 0)
            return 0;
    return 1;
}

/*
 * At finish: templates whose own texts are equal show one text (the first
 * id's, widened for all their lines), so that widening never tells apart
 * what the algorithm wrote alike; rows group by text as they did before.
 */
static int unite_same_text(logtk_parser *p)
{
    if (p->ntemplates < 2)
        return LOGTK_OK;
    text_key *keys = malloc(p->ntemplates * sizeof *keys);
    if (keys == NULL)
        return ltk_parser_nomem(p);
    for (uint32_t i = 0; i < p->ntemplates; i++) {
        const template_entry *t = &p->templates[i];
        uint64_t h = ltk_content_key("", 0);
        for (uint32_t k = 0; k < t->ntokens; k++)
            h = ltk_hash_bytes(t->tokens[k].ptr, t->tokens[k].len) ^ (h * 0x100000001b3ULL);
        keys[i].key = h;
        keys[i].id = i + 1;
    }
    qsort(keys, p->ntemplates, sizeof *keys, text_key_cmp);
    int rc = LOGTK_OK;
    for (uint32_t i = 0; rc == LOGTK_OK && i < p->ntemplates;) {
        uint32_t j = i + 1;
        while (j < p->ntemplates && keys[j].key == keys[i].key)
            j++;
        for (uint32_t k = i + 1; rc == LOGTK_OK && k < j; k++)
            if (same_tokens(entry(p, keys[i].id), entry(p, keys[k].id)))
                rc = ltk_tmpl_alias(p, keys[k].id, keys[i].id);
        i = j;
    }
    free(keys);
    return rc;
}

/* Batch algorithms, after finish: every template fitted to its lines; the kept content is freed. */
static int fit_batch_lines(logtk_parser *p)
{
    int rc = LOGTK_OK;
    for (uint64_t k = 0; rc == LOGTK_OK && k < p->batch_lines && k < p->assign_len; k++) {
        uint32_t id = p->assign[k];
        if (entry(p, id) == NULL)
            continue;
        uint64_t a = p->batch_offsets[k], b = p->batch_offsets[k + 1];
        rc = fit_line(p, id, p->batch_content.data + a, (size_t)(b - a), NULL, 0, NULL, NULL);
    }
    ltk_strbuf_free(&p->batch_content);
    free(p->batch_offsets);
    p->batch_offsets = NULL;
    p->batch_offsets_cap = 0;
    p->batch_lines = 0;
    return rc;
}

/* Masks and tokenizes content into p->tokens.  LOGTK_ERR_LIMIT is not fatal. */
static int prepare(logtk_parser *p, const char *content, size_t len, const char **masked,
                   size_t *mlen, int tokenize)
{
    int mrc = ltk_masker_apply(p->masker, content, len, masked, mlen, &p->err);
    if (mrc != LOGTK_OK && mrc != LOGTK_ERR_LIMIT)
        return mrc;
    p->tokens_serial = 0; /* not a line being fed (feed sets it), or not yet split */
    if (tokenize && ltk_tokenize(&p->tokens, *masked, *mlen) != LOGTK_OK)
        return ltk_parser_nomem(p);
    return mrc;
}

int ltk_parser_line_tokens(logtk_parser *p, ltk_parse_line *line)
{
    if (p->tokens_serial != p->serial) {
        if (ltk_tokenize(&p->tokens, line->masked.ptr, line->masked.len) != LOGTK_OK)
            return ltk_parser_nomem(p);
        p->tokens_serial = p->serial;
    }
    line->tokens = p->tokens.tok;
    line->ntokens = p->tokens.n;
    return LOGTK_OK;
}

/* ltk_parser_line_tokens() for the shared layer: no call when the line is split already. */
static inline int line_tokens(logtk_parser *p, ltk_parse_line *line)
{
    if (p->tokens_serial == p->serial && line->tokens == p->tokens.tok)
        return LOGTK_OK;
    return ltk_parser_line_tokens(p, line);
}

/*
 * ev->template_text and ev->param_names for template id (0: none) and the
 * parameters already in ev, which are slices of content.  The masker must
 * hold content's masking (its span map names what each rule replaced).
 */
static int fill_event_text(logtk_parser *p, logtk_event *ev, uint32_t id, const char *content)
{
    ev->template_text.ptr = "";
    ev->template_text.len = 0;
    ev->param_names = NULL;
    template_entry *t = entry(p, ltk_parser_shown_id(p, id));
    if (t) {
        int rc = ltk_parser_render(p, t);
        if (rc != LOGTK_OK)
            return rc;
        ev->template_text.ptr = t->text;
        ev->template_text.len = t->text_len;
    }
    if (ltk_masker_named_count(p->masker) == 0)
        return LOGTK_OK;
    if (ltk_parser_grow_size((void **)&p->param_names, &p->param_names_cap, ev->nparams + 1,
                  sizeof *p->param_names))
        return ltk_parser_nomem(p);
    for (size_t i = 0; i < ev->nparams; i++) {
        size_t start = (size_t)(ev->params[i].ptr - content);
        const char *name = ltk_masker_name_of(p->masker, start, start + ev->params[i].len);
        p->param_names[i].ptr = name ? name : "";
        p->param_names[i].len = name ? strlen(name) : 0;
    }
    ev->param_names = p->param_names;
    return LOGTK_OK;
}

int logtk_parser_feed(logtk_parser *p, const char *content, size_t len, logtk_event *ev)
{
    const char *masked;
    size_t mlen;
    if (content == NULL && len > 0)
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "NULL content");
    if (content == NULL)
        content = "";
    const int on_demand = p->algo->tokens_on_demand;
    int mrc = prepare(p, content, len, &masked, &mlen, !on_demand);
    if (mrc != LOGTK_OK && mrc != LOGTK_ERR_LIMIT)
        return mrc;
    p->serial++;
    ltk_parse_line line = {NULL, 0, {masked, mlen}, p->lines};
    if (!on_demand) {
        p->tokens_serial = p->serial;
        line.tokens = p->tokens.tok;
        line.ntokens = p->tokens.n;
    }
    uint32_t id = 0;
    p->line_shape = 0;
    int rc = p->algo->feed(p, p->state, &line, &id);
    if (rc != LOGTK_OK) {
        flush_callbacks(p);
        return rc;
    }
    p->lines++;
    template_entry *t = entry(p, id);
    size_t np = SIZE_MAX; /* parameters found while fitting the line, SIZE_MAX: none */
    if (t) {
        t->count++;
        /* a shape stands for the masked bytes: of use when they are the line's */
        int shaped = p->line_shape != 0 && masked == content;
        int fitted = shaped && fit_by_shape(p, &p->feed_fits, p->line_shape, id, content, len,
                                            ev ? &np : NULL);
        int paired = 0; /* the fit paired every token in order (fit_keep_shape) */
        /* the tokens are of use to the fit when the masks left the line as it is */
        if ((p->keep_assignments && (rc = record_assignment(p, line.index, id)) != LOGTK_OK) ||
            (!fitted && masked == content && (rc = line_tokens(p, &line)) != LOGTK_OK) ||
            (!fitted && (rc = fit_line(p, id, content, len, masked == content ? line.tokens : NULL,
                                       line.ntokens, ev ? &np : NULL, &paired)) != LOGTK_OK)) {
            flush_callbacks(p);
            return rc;
        }
        if (shaped && !fitted && np != SIZE_MAX)
            fit_keep_shape(p, &p->feed_fits, p->line_shape, id, content, len, np, paired);
    } else if (!p->algo->online) {
        /* batch: room for the assignment made in finish, and the line to fit it to */
        if ((rc = record_assignment(p, line.index, 0)) != LOGTK_OK ||
            (rc = keep_batch_content(p, line.index, content, len)) != LOGTK_OK)
            return rc;
    }
    /* a callback may extract other lines' parameters into p->param_out, and
       mask them */
    int called_back = p->npending > 0;
    if (called_back)
        np = SIZE_MAX;
    flush_callbacks(p);
    if (ev) {
        ev->template_id = t ? id : 0;
        ev->created = t && t->created_serial == p->serial;
        ev->changed = t && !ev->created && t->changed_serial == p->serial;
        ev->nparams = 0;
        ev->params = p->param_out;
        if (t && np != SIZE_MAX) {
            ev->nparams = np;
        } else if (t) {
            /* split again if a callback split another line (logtk_parser_extract) */
            if (masked == content && (rc = line_tokens(p, &line)) != LOGTK_OK)
                return rc;
            rc = capture_params(p, id, content, len, masked == content ? line.tokens : NULL,
                                line.ntokens, 0, &ev->nparams);
            ev->params = p->param_out;
            if (rc != LOGTK_OK)
                return rc;
        }
        if (called_back && ltk_masker_named_count(p->masker) > 0 &&
            (rc = prepare(p, content, len, &masked, &mlen, 0)) != LOGTK_OK && rc != LOGTK_ERR_LIMIT)
            return rc;
        if ((rc = fill_event_text(p, ev, t ? id : 0, content)) != LOGTK_OK)
            return rc;
    }
    return mrc;
}

int logtk_parser_finish(logtk_parser *p)
{
    if (p->finished)
        return LOGTK_OK;
    p->serial++;
    int rc = p->algo->finish ? p->algo->finish(p, p->state) : LOGTK_OK;
    if (rc == LOGTK_OK)
        rc = unite_same_text(p);
    if (rc == LOGTK_OK && !p->algo->online)
        rc = fit_batch_lines(p);
    flush_callbacks(p);
    if (rc == LOGTK_OK)
        p->finished = 1;
    return rc;
}

int logtk_parser_extract(logtk_parser *p, uint32_t template_id, const char *content, size_t len,
                         logtk_event *ev)
{
    if (entry(p, template_id) == NULL)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template %u",
                                  (unsigned)template_id);
    if (content == NULL)
        content = "";
    memset(ev, 0, sizeof *ev);
    ev->template_id = template_id;
    const char *masked = content; /* (masked only for named masks) */
    size_t mlen = len;
    int rc;
    if (ltk_masker_named_count(p->masker) > 0 &&
        (rc = prepare(p, content, len, &masked, &mlen, 0)) != LOGTK_OK && rc != LOGTK_ERR_LIMIT)
        return rc;
    /*
     * By shape, as lines are fitted while fed (fit_memo): a final template
     * takes most of its lines' parameters where an earlier line of their
     * shape had them, instead of the glob matcher's walk (half the time of
     * `logtk parse` writing its rows went there).  Fits made here are kept
     * apart from the feed's: those try the tokens first.
     */
    if (p->extract_fits.slots == NULL)
        fit_memo_make(&p->extract_fits, FIT_MEMO_MIN);
    const uint64_t shape = p->extract_fits.slots ? ltk_line_shape(content, len) : 0;
    if (shape == 0 || !fit_by_shape(p, &p->extract_fits, shape, template_id, content, len,
                                    &ev->nparams)) {
        rc = capture_params(p, template_id, content, len, NULL, 0, masked == content,
                            &ev->nparams);
        if (rc != LOGTK_OK) {
            ev->params = p->param_out;
            return rc;
        }
        if (shape != 0)
            fit_keep_shape(p, &p->extract_fits, shape, template_id, content, len, ev->nparams, 0);
    }
    ev->params = p->param_out;
    return fill_event_text(p, ev, template_id, content);
}

/* ------------------------------------------------------------- match only */

/*
 * logtk_parser_match() classifies a line without learning.  The algorithm
 * may name a candidate the way its own search would (the optional match
 * hook: Drain walks its tree); the candidate counts only when its text as
 * shown matches the line.  Otherwise, or without a hook, the answer is the
 * most specific template whose text matches the line (most bytes of fixed
 * text; on a tie the lowest id).  Scanning every template would cost
 * O(templates) per line, so templates are indexed by their first word: a
 * template whose first word is fixed text can only match a line with that
 * first word (blank runs match blank runs, fixed text itself), so a line
 * looks at the bucket of its own first word and at the bucket of templates
 * that start with a "<*>".  The index follows text changes lazily: every
 * change marks the template stale and bumps text_epoch; a match rebuilds
 * the entries of stale templates only.
 */
#define WILD_FIRST_KEY 0x5bd1e9955bd1e995ULL

/* The tokenizer's and the matcher's blanks (0x1c..0x1f too): a line's first
   word must end where its template's does, or the line looks in a bucket
   that lacks its own template. */
static inline int blank_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           (c >= 0x1c && c <= 0x1f);
}

/* The bucket key of text whose first word is text[a..b) after blanks. */
static uint64_t first_word_key(const char *text, size_t len, int template_text)
{
    size_t a = 0;
    while (a < len && blank_byte(text[a]))
        a++;
    size_t b = a;
    while (b < len && !blank_byte(text[b]))
        b++;
    if (template_text && (a == b || ltk_tmatch_count_wildcards(text + a, b - a) > 0))
        return WILD_FIRST_KEY;
    return ltk_mix64(ltk_hash_bytes(text + a, b - a));
}

static void index_unlink(logtk_parser *p, uint32_t id, template_entry *t)
{
    if (!t->idx_in)
        return;
    if (t->idx_next)
        entry(p, t->idx_next)->idx_prev = t->idx_prev;
    if (t->idx_prev)
        entry(p, t->idx_prev)->idx_next = t->idx_next;
    else
        *ltk_u64map_find(&p->index_heads, t->idx_key) = t->idx_next;
    t->idx_in = 0;
    t->idx_prev = t->idx_next = 0;
    (void)id;
}

/* Before which template of a bucket `id` goes: buckets are kept from the most
   specific to the least (lowest id first on a tie), so a search can stop at
   its first match. */
static int index_precedes(const template_entry *a, uint32_t aid, const template_entry *b,
                          uint32_t bid)
{
    return a->idx_literal > b->idx_literal || (a->idx_literal == b->idx_literal && aid < bid);
}

static int index_link(logtk_parser *p, uint32_t id, template_entry *t)
{
    uint32_t *head = ltk_u64map_find(&p->index_heads, t->idx_key);
    uint32_t first = head ? *head : 0;
    t->idx_in = 1;
    if (first == 0 || index_precedes(t, id, entry(p, first), first)) {
        if (ltk_u64map_put(&p->index_heads, t->idx_key, id) != 0) {
            t->idx_in = 0;
            return ltk_parser_nomem(p);
        }
        t->idx_prev = 0;
        t->idx_next = first;
        if (first)
            entry(p, first)->idx_prev = id;
        return LOGTK_OK;
    }
    uint32_t at = first; /* the last template that stays before id */
    for (uint32_t next; (next = entry(p, at)->idx_next) != 0 &&
                        !index_precedes(t, id, entry(p, next), next);)
        at = next;
    template_entry *before = entry(p, at);
    t->idx_prev = at;
    t->idx_next = before->idx_next;
    if (before->idx_next)
        entry(p, before->idx_next)->idx_prev = id;
    before->idx_next = id;
    return LOGTK_OK;
}

static int refresh_index(logtk_parser *p)
{
    if (!p->index_ready) {
        if (ltk_u64map_init(&p->index_heads, 64) != 0)
            return ltk_parser_nomem(p);
        p->index_ready = 1;
        p->index_count = 0;
        p->index_epoch = p->text_epoch - 1;
    }
    if (p->index_epoch == p->text_epoch && p->index_count == p->ntemplates)
        return LOGTK_OK;
    for (uint32_t id = 1; id <= p->ntemplates; id++) {
        template_entry *t = entry(p, id);
        if (id <= p->index_count && !t->idx_stale)
            continue;
        index_unlink(p, id, t);
        t->idx_stale = 0;
        if (t->alias != 0)
            continue; /* shows another template's text: that one answers */
        int rc = ltk_parser_render(p, t);
        if (rc != LOGTK_OK)
            return rc;
        t->idx_key = first_word_key(t->text, t->text_len, 1);
        t->idx_literal = t->text_len - LTK_WILDCARD_LEN * t->nwild;
        if ((rc = index_link(p, id, t)) != LOGTK_OK)
            return rc;
    }
    p->index_count = p->ntemplates;
    p->index_epoch = p->text_epoch;
    return LOGTK_OK;
}

/*
 * The most specific template of bucket `key` matching content, if better
 * than *best.  The bucket is in order of preference, so the walk ends at the
 * first match or at the first template that could not beat *best; a
 * template with more fixed bytes than the line has is passed over unmatched
 * (each fixed byte, blanks included, needs a byte of the line).
 */
static void search_bucket(logtk_parser *p, uint64_t key, const char *content, size_t len,
                          uint32_t *best)
{
    uint32_t *head = ltk_u64map_find(&p->index_heads, key);
    const template_entry *b = entry(p, *best);
    for (uint32_t id = head ? *head : 0; id != 0;) {
        const template_entry *t = entry(p, id);
        if (b && !index_precedes(t, id, b, *best))
            return;
        if (t->idx_literal <= len && ltk_tmatch_glob(t->text, t->text_len, content, len, NULL)) {
            *best = id;
            return;
        }
        id = t->idx_next;
    }
}

int logtk_parser_match(logtk_parser *p, const char *content, size_t len, logtk_event *ev)
{
    ltk_error_clear(&p->err);
    if (ev == NULL || (content == NULL && len > 0))
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "match needs content and an event");
    if (content == NULL)
        content = "";
    memset(ev, 0, sizeof *ev);
    ev->params = p->param_out;
    ev->template_text.ptr = "";
    const char *masked;
    size_t mlen;
    int mrc = prepare(p, content, len, &masked, &mlen, 1);
    if (mrc != LOGTK_OK && mrc != LOGTK_ERR_LIMIT)
        return mrc;
    int rc = refresh_index(p);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t best = 0;
    if (p->algo->match) {
        ltk_parse_line line = {p->tokens.tok, p->tokens.n, {masked, mlen}, p->lines};
        if ((rc = p->algo->match(p, p->state, &line, &best)) != LOGTK_OK)
            return rc;
        template_entry *t = entry(p, ltk_parser_shown_id(p, best));
        if (t && (ltk_parser_render(p, t) != LOGTK_OK ||
                  !ltk_tmatch_glob(t->text, t->text_len, content, len, NULL)))
            best = 0;
    }
    if (best == 0) {
        search_bucket(p, first_word_key(content, len, 0), content, len, &best);
        search_bucket(p, WILD_FIRST_KEY, content, len, &best);
    }
    if (best == 0)
        return ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template matches the line");
    ev->template_id = best;
    rc = capture_params(p, best, content, len, masked == content ? p->tokens.tok : NULL,
                        p->tokens.n, 0, &ev->nparams);
    ev->params = p->param_out;
    if (rc != LOGTK_OK)
        return rc;
    rc = fill_event_text(p, ev, best, content);
    return rc != LOGTK_OK ? rc : mrc;
}

/*
 * The id logtk_parser_match() gives, alone (logtk_parser_match_reader()).
 * Without an algorithm's own search the answer comes from the index, which
 * reads the raw content only: the masking, tokens, parameters and text that
 * the event carries are skipped (a quarter of logtk.dask's classify pass on
 * HDFS: 115M instead of 154M instructions for 29k lines, callgrind).
 */
int ltk_parser_match_id(logtk_parser *p, const char *content, size_t len, uint32_t *template_id)
{
    *template_id = 0;
    if (p->algo->match) {
        logtk_event ev;
        ev.template_id = 0;
        int rc = logtk_parser_match(p, content, len, &ev);
        *template_id = ev.template_id;
        return rc;
    }
    ltk_error_clear(&p->err);
    if (content == NULL && len > 0)
        return ltk_parser_error(p, LOGTK_ERR_INVALID, "match needs content");
    if (content == NULL)
        content = "";
    int rc = refresh_index(p);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t best = 0;
    search_bucket(p, first_word_key(content, len, 0), content, len, &best);
    search_bucket(p, WILD_FIRST_KEY, content, len, &best);
    *template_id = best;
    return best ? LOGTK_OK : ltk_parser_error(p, LOGTK_ERR_NOT_FOUND, "no template matches the line");
}

/*
 * The plan of logtk_parser_rematch_reader(): a shard's template text x
 * matches every line the shard assigned to it, so what the search answers
 * for those lines follows from the texts: when p has a template `a` of
 * exactly the text x, a matches each line, and the line's first word is
 * x's, so a is in the bucket the line searches (x must hold no blank run of
 * two or more and no blank at either end: then each of its counted fixed
 * bytes needs a byte of the line, and the search does not pass a over as
 * longer than the line).  The answer is a unless a template the search
 * prefers to a matches the line; only templates that may share a line with
 * x (ltk_tmatch_may_share()) can, and those are the rivals tried per line,
 * most preferred first.  The candidates are the templates before a in its
 * bucket and in the "<*>" bucket, or, when x starts with "<*>", any template
 * more specific than a.
 */
static uint32_t plan_answer(logtk_parser *p, const char *x, size_t xlen)
{
    if (xlen == 0 || blank_byte(x[0]) || blank_byte(x[xlen - 1]))
        return 0;
    for (size_t i = 1; i < xlen; i++)
        if (blank_byte(x[i]) && blank_byte(x[i - 1]))
            return 0;
    uint32_t *head = ltk_u64map_find(&p->index_heads, first_word_key(x, xlen, 1));
    uint32_t a = head ? *head : 0;
    while (a != 0 && !(entry(p, a)->text_len == xlen && memcmp(entry(p, a)->text, x, xlen) == 0))
        a = entry(p, a)->idx_next;
    return a;
}

static int plan_add_rival(logtk_parser *p, ltk_shard_plan *plan, uint64_t *cap, uint32_t id,
                          const char *x, size_t xlen)
{
    const template_entry *t = entry(p, id);
    if (!ltk_tmatch_may_share(t->text, t->text_len, x, xlen))
        return LOGTK_OK;
    if (plan->nrivals == *cap &&
        grow_array((void **)&plan->rivals, cap, plan->nrivals + 1, sizeof *plan->rivals))
        return ltk_parser_nomem(p);
    /* kept in the search's order of preference: the first that matches a line wins */
    size_t k = plan->nrivals++;
    while (k > plan->rival_at[plan->cur] &&
           index_precedes(t, id, entry(p, plan->rivals[k - 1]), plan->rivals[k - 1])) {
        plan->rivals[k] = plan->rivals[k - 1];
        k--;
    }
    plan->rivals[k] = id;
    return LOGTK_OK;
}

int ltk_parser_shard_plan(logtk_parser *p, logtk_parser *shard, ltk_shard_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (p->algo->match)
        return LOGTK_OK; /* its own search answers: every line is matched in full */
    int rc = refresh_index(p);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t n = logtk_parser_template_count(shard) + 1;
    plan->answer = calloc(n, sizeof *plan->answer);
    plan->rival_at = calloc((size_t)n + 1, sizeof *plan->rival_at);
    if (plan->answer == NULL || plan->rival_at == NULL) {
        ltk_shard_plan_free(plan);
        return ltk_parser_nomem(p);
    }
    plan->n = n;
    uint64_t cap = 0;
    uint32_t *wild = ltk_u64map_find(&p->index_heads, WILD_FIRST_KEY);
    for (uint32_t i = 1; i < n && rc == LOGTK_OK; i++) {
        logtk_slice x;
        plan->cur = i;
        plan->rival_at[i] = (uint32_t)plan->nrivals;
        if ((rc = logtk_parser_template(shard, i, &x, NULL)) != LOGTK_OK)
            break;
        uint32_t a = plan_answer(p, x.ptr, x.len);
        if (a == 0)
            continue;
        const template_entry *ta = entry(p, a);
        if (ta->idx_key == WILD_FIRST_KEY) {
            for (uint32_t id = 1; id <= p->ntemplates && rc == LOGTK_OK; id++)
                if (entry(p, id)->idx_in && id != a && index_precedes(entry(p, id), id, ta, a))
                    rc = plan_add_rival(p, plan, &cap, id, x.ptr, x.len);
        } else {
            uint32_t *head = ltk_u64map_find(&p->index_heads, ta->idx_key);
            for (uint32_t id = *head; id != a && rc == LOGTK_OK; id = entry(p, id)->idx_next)
                rc = plan_add_rival(p, plan, &cap, id, x.ptr, x.len);
            for (uint32_t id = wild ? *wild : 0;
                 id != 0 && rc == LOGTK_OK && index_precedes(entry(p, id), id, ta, a);
                 id = entry(p, id)->idx_next)
                rc = plan_add_rival(p, plan, &cap, id, x.ptr, x.len);
        }
        plan->answer[i] = a;
    }
    plan->rival_at[n] = (uint32_t)plan->nrivals;
    if (rc != LOGTK_OK) {
        ltk_shard_plan_free(plan);
        return rc == LOGTK_ERR_NOMEM ? ltk_parser_nomem(p) : rc;
    }
    return LOGTK_OK;
}

void ltk_shard_plan_free(ltk_shard_plan *plan)
{
    free(plan->answer);
    free(plan->rival_at);
    free(plan->rivals);
    memset(plan, 0, sizeof *plan);
}

int ltk_parser_template_matches(const logtk_parser *p, uint32_t id, const char *content,
                                size_t len)
{
    const template_entry *t = entry(p, id);
    return t->idx_literal <= len && ltk_tmatch_glob(t->text, t->text_len, content, len, NULL);
}
