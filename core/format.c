/*
 * format.c - Loghub log formats: header fields + content.
 *
 * Semantics follow logparser (the reference every Loghub number comes from):
 * the format string is split on <Name> tags; every piece of text between tags
 * is a regular-expression fragment in which each run of spaces becomes \s+;
 * every tag becomes a lazy group (.*?); the whole is anchored ^...$ and
 * matched against the line with leading and trailing whitespace stripped (as
 * Python's str.strip() does).  We compile that to one PCRE2 pattern with JIT,
 * one reused match_data and match/depth limits (core/regex.h) so hostile
 * input ends with LOGTK_ERR_LIMIT instead of hanging.  Tags become generated group names
 * (f0, f1, ...) so that fields with names PCRE2 would reject still work and
 * capturing groups inside fragments ("(\[<PID>\])?") do not shift numbering.
 *
 * Why a second matcher: even with JIT, a backtracking match of six lazy groups
 * costs a few hundred nanoseconds per line, and this runs on every line of a
 * 1M lines/s pipeline.  Most formats consist only of tags and literal text
 * (characters and \s+ runs).  For those the regex's behaviour is simple to
 * reproduce: a backtracking engine returns the first successful path in its
 * exploration order, and the first path it explores is "each lazy field stops
 * at the earliest position where the following literal matches, each \s+
 * takes all the whitespace".  We only accept literals in which every fixed
 * character is non-whitespace, so a literal either matches at a position in
 * exactly one way or not at all; the forward scan (memchr for the literal's
 * first character, then a short compare) therefore finds exactly that first
 * path.  If the first path does not reach the end of the line, the regex
 * would start backtracking into earlier choices: instead of imitating that,
 * the fast matcher gives up and PCRE2 decides.  Lines containing '\n' (which
 * '.' does not match) also go to PCRE2.  tests/fuzz/fuzz_format.c checks both
 * matchers against each other.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "byteword.h"
#include "errmsg.h"
#include "logtk.h"
#include "regex.h"
#include "strbuf.h"

/* Match limits: far above what any real log line needs (a matching HDFS line
 * uses well under a thousand), low enough that a hostile line fails fast. */
enum { FORMAT_MATCH_LIMIT = 2000000, FORMAT_DEPTH_LIMIT = 10000 };
/* The limit is not lowered after a few scattered hits (as masks do): lines of
 * one dataset that match another's format after 100,000 to 2,000,000 steps
 * would then be kept unmatched, changing results on matching lines.  Lines no
 * path can match are refused before PCRE2 instead (simple_can_match,
 * plan_can_match).  What is left are regexes that backtrack catastrophically
 * on lines a path might match (a user's "(x+x+)+y" on runs of x): after
 * FORMAT_LIMIT_STREAK hits in a row the limit drops to a hundredth, never
 * below FORMAT_MATCH_LIMIT_FLOOR nor below ten times the steps the costliest
 * measured successful match needed (core/regex.c measures them), so a format
 * whose matching lines are expensive keeps what they need. */
enum { FORMAT_LIMIT_STREAK = 8, FORMAT_LIMIT_DIVISOR = 100, FORMAT_MATCH_LIMIT_FLOOR = 20000,
       FORMAT_SUCCESS_MARGIN = 10 };
enum { MAX_TAGS = LOGTK_MAX_FIELDS + 1 };

/* One item of a simple literal: a byte value 0..255, or LIT_WS for \s+. */
#define LIT_WS 256

typedef struct literal {
    short *items;
    size_t n;
} literal;

/* One element of an optional-group plan (see compile_plan). */
enum plan_kind { PLAN_LIT, PLAN_TAG, PLAN_OPT_BEGIN, PLAN_OPT_END };
/* How a field's end is found, from what follows it in the plan (decided
   once in compile_plan, not on every line): the end of the line, nothing
   (another field or a group's end follows), the final literal, the next
   literal, or the first literal of the group that follows or of what comes
   after that group. */
enum plan_field_end { END_LINE, END_EMPTY, END_FINAL, END_LITERAL, END_GROUP };
typedef struct plan_element {
    enum plan_kind kind;
    enum plan_field_end field_end; /* PLAN_TAG */
    literal lit;    /* PLAN_LIT */
    size_t tag;     /* PLAN_TAG: tag index */
    size_t skip_to; /* PLAN_OPT_BEGIN: index of the element after the group */
} plan_element;

struct logtk_format {
    ltk_errbuf err;
    ltk_arena arena; /* names and literals; reset on recompile */
    int compiled;
    size_t ntags;      /* fields + Content */
    size_t content_tag;
    const char *tag_names[MAX_TAGS];
    uint32_t tag_group[MAX_TAGS]; /* PCRE2 group number of each tag */
    size_t nfields;
    const char *field_names[LOGTK_MAX_FIELDS];

    ltk_regex *regex;
    const char *spec;    /* the format as given (arena), named when the limit is lowered */
    uint32_t lowerings;  /* of the regex's match limit, as last reported */

    int simple;           /* only tags and literal text: the fast matcher applies */
    /* formats with optional groups ("<Component>(\\[<PID>\\])?: <Content>"):
       the element plan of the fast optional matcher, NULL when it does not apply */
    struct plan_element *plan;
    size_t plan_len;
    size_t plan_groups;
    /* plan_can_match's scratch: one choice of groups as a chain of literals */
    literal *chain;
    short *chain_items;
    int fast_enabled;     /* cleared by tests to force PCRE2 */
    literal lits[MAX_TAGS + 1]; /* lits[i] precedes tag i; lits[ntags] ends the line */
};

int logtk_format_new(logtk_format **out)
{
    logtk_format *f = calloc(1, sizeof *f);
    *out = f;
    if (!f)
        return LOGTK_ERR_NOMEM;
    ltk_arena_init(&f->arena, 4096);
    f->fast_enabled = 1;
    return LOGTK_OK;
}

static void release_regex(logtk_format *f)
{
    ltk_regex_free(f->regex);
    f->regex = NULL;
    f->spec = NULL;
    f->lowerings = 0;
}

void logtk_format_free(logtk_format *f)
{
    if (!f)
        return;
    release_regex(f);
    ltk_arena_free(&f->arena);
    free(f);
}

const char *logtk_format_errmsg(const logtk_format *f)
{
    return ltk_error_text(&f->err);
}

size_t logtk_format_field_count(const logtk_format *f)
{
    return f->nfields;
}

const char *logtk_format_field_name(const logtk_format *f, size_t i)
{
    return i < f->nfields ? f->field_names[i] : NULL;
}

unsigned logtk_format_limit_lowerings(const logtk_format *f)
{
    return f->regex ? ltk_regex_lowerings(f->regex) : 0;
}

/* Internal (tests and the differential fuzzer): 0 forces PCRE2 for every line. */
void ltk_format_set_fast_path(logtk_format *f, int enabled);
void ltk_format_set_fast_path(logtk_format *f, int enabled)
{
    f->fast_enabled = enabled;
}

/* Internal: nonzero when the compiled format qualifies for the fast matcher. */
int ltk_format_is_simple(const logtk_format *f);
int ltk_format_is_simple(const logtk_format *f)
{
    return f->simple;
}

static int syntax_error(logtk_format *f, const char *spec, size_t at, const char *what)
{
    size_t n = strlen(spec);
    if (at > n)
        at = n;
    return ltk_error_set(&f->err, LOGTK_ERR_SYNTAX,
                           "log format, character %zu: %s\n  %s\n  %*s^", at + 1, what, spec,
                           (int)at, "");
}

/*
 * A field whose group the compiled pattern does not have: a fragment took
 * it in, either inside a construct ("[<Pid>:<Tid>]": '[' opens a character
 * class, which ends at the first ']', fields and all) or by defining a
 * group of the same name.  Names the field, where it is, and the usual
 * cause.
 */
static int lost_field_error(logtk_format *f, const char *spec, const char *name)
{
    size_t n = strlen(name), at = 0;
    for (const char *q = spec; (q = strchr(q, '<')) != NULL; q++)
        if (strncmp(q + 1, name, n) == 0 && q[n + 1] == '>') {
            at = (size_t)(q - spec);
            break;
        }
    if (strstr(spec, "(?<f") || strstr(spec, "(?P<f") || strstr(spec, "(?'f"))
        return syntax_error(f, spec, at, "group names f0, f1, ... are reserved");
    char what[256];
    snprintf(what, sizeof what,
             "<%.60s> is not a field here: the text around it is a regular expression "
             "that takes it in (a '[' opens a character class: write \\[ and \\] for "
             "literal brackets)",
             name);
    return syntax_error(f, spec, at, what);
}

/* Converts a fragment of the spec (between tags) into a simple literal, or
 * returns 0 when it uses any regex feature beyond escaped punctuation. */
static int parse_simple_literal(logtk_format *f, const char *s, size_t n, literal *lit)
{
    lit->items = ltk_arena_alloc(&f->arena, (n + 1) * sizeof(short));
    lit->n = 0;
    if (!lit->items)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ') {
            while (i + 1 < n && s[i + 1] == ' ')
                i++;
            lit->items[lit->n++] = LIT_WS;
            continue;
        }
        if (c == '\\') {
            if (i + 1 >= n)
                return 0;
            unsigned char e = (unsigned char)s[++i];
            if (e >= 128 || !((e >= '!' && e <= '/') || (e >= ':' && e <= '@') ||
                              (e >= '[' && e <= '`') || (e >= '{' && e <= '~')))
                return 0; /* \d, \s, \t, \x.. and friends */
            lit->items[lit->n++] = (short)e;
            continue;
        }
        if (strchr("^$.|?*+()[]{}", c) || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
            c == '\r')
            return 0;
        lit->items[lit->n++] = (short)c;
    }
    return 1;
}

/*
 * The optional-group plan.  Loghub's syslog-style formats wrap a field in an
 * optional group, "<Component>(\[<PID>\])?: <Content>", which
 * parse_simple_literal rejects, so every line of Linux, Thunderbird and Mac
 * went through the backtracking regex (about 4,000 instructions a line).  The
 * plan extends the fast matcher to that shape: literals, tags and non-nested
 * greedy optional groups "(...)?" that start and end with a literal and are
 * followed by a literal.  Returns 1 with f->plan set, 0 when the spec does not
 * have that shape, -1 when out of memory.
 */
static int compile_plan(logtk_format *f, const char *spec)
{
    size_t cap = 4 * MAX_TAGS + 8, n = 0, open_at = SIZE_MAX, ntags = 0, a = 0, i = 0;
    plan_element *pl = ltk_arena_alloc(&f->arena, cap * sizeof *pl);
    if (!pl)
        return -1;
    for (;;) {
        char c = spec[i];
        if (c == '\\' && spec[i + 1] != '\0') {
            i += 2;
            continue;
        }
        if (c != '\0' && c != '<' && c != '(' && c != ')') {
            i++;
            continue;
        }
        if (n + 2 > cap)
            return 0;
        if (i > a) {
            pl[n].kind = PLAN_LIT;
            int ok = parse_simple_literal(f, spec + a, i - a, &pl[n].lit);
            if (ok <= 0)
                return ok;
            n++;
        }
        if (c == '\0')
            break;
        if (c == '<') {
            const char *close = strchr(spec + i, '>');
            if (!close)
                return 0;
            pl[n].kind = PLAN_TAG;
            pl[n++].tag = ntags++;
            i = (size_t)(close - spec) + 1;
        } else if (c == '(') {
            if (open_at != SIZE_MAX)
                return 0; /* nested */
            open_at = n;
            pl[n++].kind = PLAN_OPT_BEGIN;
            i++;
        } else {
            if (open_at == SIZE_MAX || spec[i + 1] != '?' || spec[i + 2] == '?' ||
                spec[i + 2] == '+')
                return 0; /* only greedy "(...)?" */
            pl[n++].kind = PLAN_OPT_END;
            pl[open_at].skip_to = n;
            open_at = SIZE_MAX;
            i += 2;
        }
        a = i;
    }
    if (open_at != SIZE_MAX || ntags != f->ntags)
        return 0;
    int groups = 0;
    for (size_t k = 0; k < n; k++) {
        if (pl[k].kind != PLAN_OPT_BEGIN)
            continue;
        size_t after = pl[k].skip_to;
        if (pl[k + 1].kind != PLAN_LIT || pl[after - 2].kind != PLAN_LIT || after >= n ||
            pl[after].kind != PLAN_LIT)
            return 0;
        groups++;
    }
    if (groups == 0)
        return 0;
    for (size_t k = 0; k < n; k++) {
        if (pl[k].kind != PLAN_TAG)
            continue;
        enum plan_kind next = k + 1 < n ? pl[k + 1].kind : PLAN_TAG;
        pl[k].field_end = k + 1 == n                                 ? END_LINE
                          : next == PLAN_TAG || next == PLAN_OPT_END ? END_EMPTY
                          : next == PLAN_LIT && k + 2 == n            ? END_FINAL
                          : next == PLAN_LIT                          ? END_LITERAL
                                                                      : END_GROUP;
    }
    size_t nitems = 0;
    for (size_t k = 0; k < n; k++)
        if (pl[k].kind == PLAN_LIT)
            nitems += pl[k].lit.n;
    f->chain = ltk_arena_alloc(&f->arena, (n + 2) * sizeof *f->chain);
    f->chain_items = ltk_arena_alloc(&f->arena, (nitems + 1) * sizeof *f->chain_items);
    if (!f->chain || !f->chain_items)
        return -1;
    f->plan = pl;
    f->plan_len = n;
    f->plan_groups = (size_t)groups;
    return 1;
}

int logtk_format_compile(logtk_format *f, const char *spec)
{
    ltk_error_clear(&f->err);
    release_regex(f);
    ltk_arena_reset(&f->arena);
    f->compiled = 0;
    f->ntags = f->nfields = 0;
    f->simple = 0;
    f->plan = NULL;
    f->plan_len = 0;
    if (!spec)
        return ltk_error_set(&f->err, LOGTK_ERR_INVALID, "log format is NULL");

    /* Split into fragments and tags, building the regex and noting where
     * each regex byte came from so PCRE2 error offsets point into the spec. */
    ltk_strbuf re = LTK_STRBUF_INIT;
    size_t *origin = NULL, origin_cap = 0;
    size_t frag_start[MAX_TAGS + 1], frag_end[MAX_TAGS + 1];
    int content_seen = 0, rc = LOGTK_OK, simple = 1;
    size_t nfrag = 0;

#define EMIT(str, from)                                                                  \
    do {                                                                                 \
        size_t emit_n_ = strlen(str);                                                    \
        if (re.len + emit_n_ + 1 > origin_cap) {                                         \
            size_t cap_ = (origin_cap ? origin_cap * 2 : 256) + emit_n_;                 \
            size_t *o_ = realloc(origin, cap_ * sizeof *o_);                             \
            if (!o_) {                                                                   \
                rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");          \
                goto done;                                                               \
            }                                                                            \
            origin = o_;                                                                 \
            origin_cap = cap_;                                                           \
        }                                                                                \
        for (size_t emit_i_ = 0; emit_i_ < emit_n_; emit_i_++)                           \
            origin[re.len + emit_i_] = (from);                                           \
        if (ltk_strbuf_puts(&re, (str)) != 0) {                                        \
            rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");              \
            goto done;                                                                   \
        }                                                                                \
    } while (0)

    EMIT("^", 0);
    size_t i = 0, piece = 0;
    for (;;) {
        unsigned char c = (unsigned char)spec[i];
        if (c == '\0' || c == '<') {
            frag_start[nfrag] = piece;
            frag_end[nfrag] = i;
            nfrag++;
        }
        if (c == '\0')
            break;
        if (c == '\\' && spec[i + 1] != '\0') {
            char two[3] = {spec[i], spec[i + 1], 0};
            EMIT(two, i);
            i += 2;
            continue;
        }
        if (c == ' ') {
            size_t from = i;
            while (spec[i] == ' ')
                i++;
            EMIT("\\s+", from);
            continue;
        }
        if (c != '<') {
            char one[2] = {(char)c, 0};
            EMIT(one, i);
            i++;
            continue;
        }
        /* a tag: <Name> with no '<' or '>' inside */
        size_t j = i + 1;
        while (spec[j] && spec[j] != '<' && spec[j] != '>')
            j++;
        if (spec[j] != '>') {
            rc = syntax_error(f, spec, i, "unbalanced '<': expected <Name>");
            goto done;
        }
        if (j == i + 1) {
            rc = syntax_error(f, spec, i, "empty field name <>");
            goto done;
        }
        size_t name_len = j - i - 1;
        const char *name = spec + i + 1;
        int is_content = name_len == 7 && memcmp(name, "Content", 7) == 0;
        if (is_content && content_seen) {
            rc = syntax_error(f, spec, i, "<Content> appears twice");
            goto done;
        }
        for (size_t t = 0; t < f->ntags; t++) {
            if (strlen(f->tag_names[t]) == name_len && memcmp(f->tag_names[t], name, name_len) == 0) {
                rc = syntax_error(f, spec, i, "duplicate field name");
                goto done;
            }
        }
        if (!is_content && f->nfields >= LOGTK_MAX_FIELDS) {
            rc = syntax_error(f, spec, i, "too many fields (at most 32 besides Content)");
            goto done;
        }
        char *copy = ltk_arena_strndup(&f->arena, name, name_len);
        if (!copy) {
            rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        f->tag_names[f->ntags] = copy;
        if (is_content) {
            f->content_tag = f->ntags;
            content_seen = 1;
        } else {
            f->field_names[f->nfields++] = copy;
        }
        char group[32];
        snprintf(group, sizeof group, "(?<f%zu>.*?)", f->ntags);
        EMIT(group, i);
        f->ntags++;
        i = j + 1;
        piece = i;
    }
    EMIT("$", i);
    if (!content_seen) {
        rc = syntax_error(f, spec, strlen(spec), "the format has no <Content> field");
        goto done;
    }

    /* Compile, JIT, limits.  '.' and '$' as in Python: only LF is a newline,
       whatever PCRE2's build default. */
    const ltk_regex_config config = {
        .flags = LTK_REGEX_NEWLINE_LF,
        .match_limit = FORMAT_MATCH_LIMIT,
        .depth_limit = FORMAT_DEPTH_LIMIT,
        .jit_stack_max = 1024 * 1024,
        .lower_after = FORMAT_LIMIT_STREAK,
        .lower_divisor = FORMAT_LIMIT_DIVISOR,
        .lower_floor = FORMAT_MATCH_LIMIT_FLOOR,
        .success_margin = FORMAT_SUCCESS_MARGIN,
    };
    ltk_regex_error rerr;
    if (ltk_regex_compile(&f->regex, re.data, re.len, &config, &rerr) != LOGTK_OK) {
        if (rerr.code == LOGTK_ERR_NOMEM) {
            rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");
        } else {
            size_t at = rerr.offset < re.len ? origin[rerr.offset] : strlen(spec);
            rc = syntax_error(f, spec, at, rerr.reason);
        }
        goto done;
    }
    for (size_t t = 0; t < f->ntags; t++) {
        char gname[24]; /* "f" and a size_t in decimal */
        snprintf(gname, sizeof gname, "f%zu", t);
        uint32_t num = ltk_regex_group_number(f->regex, gname);
        if (num == 0) {
            rc = lost_field_error(f, spec, f->tag_names[t]);
            goto done;
        }
        f->tag_group[t] = num;
    }
    /* enough of it to name it in a message (the message itself is 512 bytes) */
    f->spec = ltk_arena_strndup(&f->arena, spec, strnlen(spec, 300));
    if (!f->spec) {
        rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");
        goto done;
    }

    /* The fast matcher applies when every fragment is plain literal text. */
    for (size_t k = 0; k < nfrag && simple; k++) {
        int s = parse_simple_literal(f, spec + frag_start[k], frag_end[k] - frag_start[k],
                                     &f->lits[k]);
        if (s < 0) {
            rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");
            goto done;
        }
        simple = s;
    }
    f->simple = simple && nfrag == f->ntags + 1;
    if (!f->simple && compile_plan(f, spec) < 0) {
        rc = ltk_error_set(&f->err, LOGTK_ERR_NOMEM, "out of memory");
        goto done;
    }
    f->compiled = 1;

done:
#undef EMIT
    ltk_strbuf_free(&re);
    free(origin);
    if (rc != LOGTK_OK) {
        release_regex(f);
        f->ntags = f->nfields = 0;
        f->simple = 0;
        f->plan = NULL;
    }
    return rc;
}

/* Byte classes as tables: one load per byte on the hot path.
 * 1 = PCRE2's \s without UCP (space, \t \n \v \f \r);
 * 2 = also stripped by Python's str.strip() (the ASCII part: those and \x1c-\x1f). */
static const unsigned char space_class[256] = {
    ['\t'] = 3, ['\n'] = 3, ['\v'] = 3, ['\f'] = 3, ['\r'] = 3, [' '] = 3,
    [0x1c] = 2, [0x1d] = 2, [0x1e] = 2, [0x1f] = 2,
};

static inline int is_strip_space(unsigned char c)
{
    return space_class[c] & 2;
}

static inline int is_regex_space(unsigned char c)
{
    return space_class[c] & 1;
}

/* The first \s byte at or after p, or end: eight bytes a step while none is
 * 0x20 or below (every \s byte is), then the table for the byte found. */
static inline const char *next_regex_space(const char *p, const char *end)
{
    for (;;) {
        p = ltk_bytes_skip_to_low(p, end);
        if (end - p < 8)
            break;
        if (is_regex_space((unsigned char)*p))
            return p;
        p++; /* a control byte that is not \s */
    }
    while (p < end && !is_regex_space((unsigned char)*p))
        p++;
    return p;
}

/* Matches a simple literal at p; returns the end or NULL.  Deterministic:
 * fixed characters are never whitespace, so \s+ can only take all of it. */
static inline const char *literal_at(const literal *lit, const char *p, const char *end)
{
    for (size_t k = 0; k < lit->n; k++) {
        if (lit->items[k] == LIT_WS) {
            if (p >= end || !is_regex_space((unsigned char)*p))
                return NULL;
            do
                p++;
            while (p < end && is_regex_space((unsigned char)*p));
        } else {
            if (p >= end || (unsigned char)*p != (unsigned)lit->items[k])
                return NULL;
            p++;
        }
    }
    return p;
}

/* The first position >= p where lit can start (p itself for the empty
 * literal, a byte its first item takes otherwise), or end: a candidate,
 * which literal_at() decides. */
static inline const char *literal_next_start(const literal *lit, const char *p, const char *end)
{
    if (lit->n == 0 || p >= end)
        return p;
    if (lit->items[0] == LIT_WS)
        return next_regex_space(p, end);
    const char *q = memchr(p, lit->items[0], (size_t)(end - p));
    return q ? q : end;
}

/*
 * The first position >= p where lit matches, with *after set to its end.
 * The literal of most formats between two fields is one item, blanks (a lone
 * \s+: the next blank, then its run) or one character ('|'), found without
 * the general search's steps.  Inline in each caller: a header's fields are
 * short, and out of line the call cost about as much as the scan
 * (callgrind, Apache's format).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *literal_find(const literal *lit, const char *p, const char *end,
                                       const char **after)
{
    if (lit->n == 0) {
        *after = p;
        return p;
    }
    short first = lit->items[0];
    if (lit->n == 1 && first != LIT_WS) {
        p = memchr(p, first, (size_t)(end - p));
        if (p != NULL)
            *after = p + 1;
        return p;
    }
    if (lit->n == 1) {
        p = next_regex_space(p, end);
        if (p == end)
            return NULL;
        const char *q = p + 1;
        while (q < end && is_regex_space((unsigned char)*q))
            q++;
        *after = q;
        return p;
    }
    /* literal_next_start()'s step, written out: called here instead, it
       cost 0.3% to 0.6% of a parse's instructions (callgrind, fuse on BGL,
       HDFS, OpenSSH 2k) */
    while (p < end) {
        if (first == LIT_WS) {
            p = next_regex_space(p, end);
        } else {
            p = memchr(p, first, (size_t)(end - p));
        }
        if (!p || p >= end)
            return NULL;
        const char *q = literal_at(lit, p, end);
        if (q) {
            *after = q;
            return p;
        }
        p++;
    }
    return NULL;
}

/* The regex's first path, or 0 when PCRE2 must decide. */
static int fast_match(const logtk_format *f, const char *s, const char *end, logtk_slice *tags)
{
    const char *p = literal_at(&f->lits[0], s, end);
    if (!p)
        return 0;
    for (size_t t = 0; t < f->ntags; t++) {
        const literal *next = &f->lits[t + 1];
        if (t + 1 == f->ntags) {
            /* The last field stops at the first place where the final
             * literal matches and reaches the end of the line. */
            if (next->n == 0) {
                tags[t].ptr = p;
                tags[t].len = (size_t)(end - p);
                return 1;
            }
            const char *from = p, *after;
            for (;;) {
                const char *at = literal_find(next, from, end, &after);
                if (!at)
                    return 0;
                if (after == end) {
                    tags[t].ptr = p;
                    tags[t].len = (size_t)(at - p);
                    return 1;
                }
                from = at + 1;
            }
        }
        const char *after;
        const char *at = literal_find(next, p, end, &after);
        if (!at)
            return 0;
        tags[t].ptr = p;
        tags[t].len = (size_t)(at - p);
        p = after;
    }
    return p == end; /* no tags at all cannot happen: Content is required */
}

/*
 * Where a literal can end when it starts at p: NULL when it does not match
 * there, else the earliest end.  Only a trailing \s+ has a choice (fixed
 * characters are never whitespace, so an inner \s+ must take the whole run);
 * the earliest end takes one whitespace character of it.
 */
static inline const char *literal_min_end(const literal *lit, const char *p, const char *end)
{
    if (lit->n == 0 || lit->items[lit->n - 1] != LIT_WS)
        return literal_at(lit, p, end);
    literal head = {lit->items, lit->n - 1};
    p = literal_at(&head, p, end);
    return p && p < end && is_regex_space((unsigned char)*p) ? p + 1 : NULL;
}

/*
 * Whether a chain of literals with a lazy field between each two, the first
 * anchored at s and the last at end, can match s..end (a line
 * without '\n'), in time linear in the line times the literals' lengths.
 * When the first path (fast_match) fails, PCRE2 would explore every way of
 * cutting the line into lazy fields, which is O(n^fields): a line of another
 * log format used the whole 2,000,000-step match limit, about 4 ms.  A match
 * exists iff placing every literal at its earliest end after the previous
 * one succeeds and the final literal then ends the line somewhere: the
 * fields between literals take any text without '\n', so an earlier end
 * never loses a possibility (and a literal's end only grows with its start,
 * each step of literal_at being monotonic).  The answer is exact, so a line
 * found matchable still goes to PCRE2, which picks the same fields as before.
 */
static int chain_can_match(const literal *lits, size_t n, const char *s, const char *end)
{
    const char *p = literal_min_end(&lits[0], s, end);
    if (!p)
        return 0;
    for (size_t t = 1; t + 1 < n; t++) {
        const literal *lit = &lits[t];
        const char *q = NULL;
        for (const char *at = p; at <= end && !q; at++)
            q = literal_min_end(lit, at, end);
        if (!q)
            return 0;
        p = q;
    }
    const literal *last = &lits[n - 1];
    for (const char *at = p; at <= end; at++)
        if (literal_at(last, at, end) == end)
            return 1;
    return 0;
}

/* A simple format: its literals, fields between them. */
static int simple_can_match(const logtk_format *f, const char *s, const char *end)
{
    return chain_can_match(f->lits, f->ntags + 1, s, end);
}

/*
 * The same for a plan: each choice of optional groups (taken or skipped) is
 * a chain of literals; the regex can match iff one of them can.  Literals
 * that meet without a field between them are joined into one, unless a \s+
 * would meet a \s+ (then the answer is "maybe": PCRE2 decides).  At most
 * 2^4 choices are tried; more groups also answer "maybe".
 */
static int plan_can_match(logtk_format *f, const char *s, const char *end)
{
    if (f->plan_groups > 4)
        return 1;
    const plan_element *pl = f->plan;
    for (unsigned choice = 0; choice < (1u << f->plan_groups); choice++) {
        size_t nlits = 0, nitems = 0, group = 0;
        int field_before = 0; /* the last element was a field */
        f->chain[0].items = f->chain_items;
        f->chain[0].n = 0;
        nlits = 1;
        int maybe = 0;
        for (size_t k = 0; k < f->plan_len && !maybe; k++) {
            const plan_element *e = &pl[k];
            if (e->kind == PLAN_OPT_BEGIN) {
                if (!(choice & (1u << group++)))
                    k = e->skip_to - 1; /* skipped */
            } else if (e->kind == PLAN_TAG) {
                if (!field_before) {
                    literal *next = &f->chain[nlits++];
                    next->items = f->chain_items + nitems;
                    next->n = 0;
                }
                field_before = 1;
            } else if (e->kind == PLAN_LIT) {
                literal *cur = &f->chain[nlits - 1];
                if (cur->n && e->lit.n && cur->items[cur->n - 1] == LIT_WS &&
                    e->lit.items[0] == LIT_WS)
                    maybe = 1;
                memcpy(f->chain_items + nitems, e->lit.items, e->lit.n * sizeof *e->lit.items);
                nitems += e->lit.n;
                cur->n += e->lit.n;
                field_before = 0;
            }
        }
        if (maybe || chain_can_match(f->chain, nlits, s, end))
            return 1;
    }
    return 0;
}

/*
 * The regex's first path through an optional-group plan, or 0 when PCRE2
 * must decide.  As in fast_match, a lazy field stops at the earliest position
 * where what follows it can take its first step; before an optional group
 * that is "the group's first literal or, skipping the group, the literal
 * after it".  A greedy group is entered when its first literal matches there
 * and skipped otherwise (its fields are then unset: empty at the line start,
 * as the PCRE2 path reports them).  Any later failure would make the regex
 * backtrack into earlier choices, so it ends the fast attempt instead.
 */
static int plan_match(const logtk_format *f, const char *s, const char *end, logtk_slice *tags)
{
    const plan_element *pl = f->plan;
    size_t n = f->plan_len;
    const char *p = s;
    for (size_t k = 0; k < n; k++) {
        const plan_element *e = &pl[k];
        if (e->kind == PLAN_TAG) {
            logtk_slice *tag = &tags[e->tag];
            const plan_element *next = &pl[k + 1]; /* (not read for END_LINE) */
            const char *after, *at;
            tag->ptr = p;
            switch (e->field_end) {
            case END_LITERAL:
                at = literal_find(&next->lit, p, end, &after);
                if (!at)
                    return 0;
                tag->len = (size_t)(at - p);
                p = after;
                k++;
                break;
            case END_GROUP: {
                /* the first position where the group's first literal or the
                   one after the group matches; only a byte either literal's
                   first item takes can be one, so the scan jumps from one
                   such byte to the next (each literal's next candidate is
                   looked for again only once the scan has passed it) */
                const literal *inside = &pl[k + 2].lit, *beyond = &pl[next->skip_to].lit;
                const char *in_at = literal_next_start(inside, p, end);
                const char *by_at = literal_next_start(beyond, p, end);
                for (;;) {
                    at = in_at < by_at ? in_at : by_at;
                    if (at >= end)
                        return 0;
                    if (literal_at(inside, at, end) || literal_at(beyond, at, end))
                        break;
                    if (in_at <= at)
                        in_at = literal_next_start(inside, at + 1, end);
                    if (by_at <= at)
                        by_at = literal_next_start(beyond, at + 1, end);
                }
                tag->len = (size_t)(at - p);
                p = at;
                break;
            }
            case END_FINAL: {
                /* the last field: the final literal must reach the end; the
                   field is the newest choice, so extending it is exact */
                const char *from = p;
                for (;;) {
                    at = literal_find(&next->lit, from, end, &after);
                    if (!at)
                        return 0;
                    if (after == end)
                        break;
                    from = at + 1;
                }
                tag->len = (size_t)(at - p);
                p = end;
                k++;
                break;
            }
            case END_LINE: /* ".*?$" on a line without '\n' */
                tag->len = (size_t)(end - p);
                p = end;
                break;
            case END_EMPTY:
                tag->len = 0;
                break;
            }
        } else if (e->kind == PLAN_LIT) {
            p = literal_at(&e->lit, p, end);
            if (!p)
                return 0;
        } else if (e->kind == PLAN_OPT_BEGIN) {
            if (!literal_at(&pl[k + 1].lit, p, end)) {
                for (size_t j = k + 1; j < e->skip_to; j++)
                    if (pl[j].kind == PLAN_TAG) {
                        tags[pl[j].tag].ptr = s;
                        tags[pl[j].tag].len = 0;
                    }
                k = e->skip_to - 1;
            }
        }
    }
    return p == end;
}

static void fill_unmatched(const logtk_format *f, const char *line, size_t len, logtk_record *rec)
{
    rec->matched = 0;
    rec->nfields = f->nfields;
    for (size_t i = 0; i < f->nfields; i++) {
        rec->fields[i].ptr = line;
        rec->fields[i].len = 0;
    }
    rec->content.ptr = line;
    rec->content.len = len;
}

static void fill_matched(const logtk_format *f, const logtk_slice *tags, logtk_record *rec)
{
    rec->matched = 1;
    rec->nfields = f->nfields;
    size_t k = 0;
    for (size_t t = 0; t < f->ntags; t++) {
        if (t == f->content_tag)
            rec->content = tags[t];
        else
            rec->fields[k++] = tags[t];
    }
}

int logtk_format_match(logtk_format *f, const char *line, size_t len, logtk_record *rec)
{
    if (!f->compiled) { /* the empty format: everything is Content */
        rec->matched = 1;
        rec->nfields = 0;
        rec->content.ptr = line;
        rec->content.len = len;
        return LOGTK_OK;
    }
    const char *s = line, *end = line + len;
    while (s < end && is_strip_space((unsigned char)*s))
        s++;
    while (end > s && is_strip_space((unsigned char)end[-1]))
        end--;

    logtk_slice tags[MAX_TAGS];
    if ((f->simple || f->plan) && f->fast_enabled && memchr(s, '\n', (size_t)(end - s)) == NULL) {
        if (f->simple ? fast_match(f, s, end, tags) : plan_match(f, s, end, tags)) {
            fill_matched(f, tags, rec);
            return LOGTK_OK;
        }
        if (f->simple ? !simple_can_match(f, s, end) : !plan_can_match(f, s, end)) {
            fill_unmatched(f, line, len, rec); /* what PCRE2 would say, without its search */
            return LOGTK_OK;
        }
    }

    int rc = ltk_regex_match(f->regex, s, (size_t)(end - s), 0, 0);
    if (rc <= 0) {
        fill_unmatched(f, line, len, rec);
        if (rc == LTK_REGEX_NOMATCH)
            return LOGTK_OK;
        if (rc == LTK_REGEX_LIMIT) {
            uint32_t lowerings = ltk_regex_lowerings(f->regex);
            if (lowerings != f->lowerings) {
                f->lowerings = lowerings;
                return ltk_error_set(&f->err, LOGTK_ERR_LIMIT,
                                       "log format \"%s\": %d lines in a row hit the regex match "
                                       "limit; lowered to %lu steps for the lines that follow",
                                       f->spec, (int)FORMAT_LIMIT_STREAK,
                                       (unsigned long)ltk_regex_match_limit(f->regex));
            }
            return ltk_error_set(&f->err, LOGTK_ERR_LIMIT,
                                   "log format: match limit reached on a line of %zu bytes", len);
        }
        char buf[256];
        ltk_regex_failure(f->regex, buf, sizeof buf);
        return ltk_error_set(&f->err, LOGTK_ERR_LIMIT, "log format: %s", buf);
    }
    const size_t *ov = ltk_regex_ovector(f->regex);
    for (size_t t = 0; t < f->ntags; t++) {
        uint32_t g = f->tag_group[t];
        if ((uint32_t)rc > g && ov[2 * g] != LTK_REGEX_UNSET) {
            tags[t].ptr = s + ov[2 * g];
            tags[t].len = ov[2 * g + 1] - ov[2 * g];
        } else { /* an optional part that did not take part */
            tags[t].ptr = s;
            tags[t].len = 0;
        }
    }
    fill_matched(f, tags, rec);
    return LOGTK_OK;
}
