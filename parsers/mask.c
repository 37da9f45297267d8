/*
 * mask.c - ordered masking rules with a span map back to the original text.
 *
 * Each rule is a PCRE2 pattern compiled once (JIT when available) and run
 * with a match limit, a depth limit and a private JIT stack (core/regex.h,
 * one handle per rule, limits from mask.h), so a hostile
 * pattern or line fails that line's rule (LOGTK_ERR_LIMIT) instead of hanging
 * the tool.  Rules apply in order, each over the output of the previous one,
 * replacing every match as Python's re.sub does (which is what Loghub's
 * preprocessing and Drain3's masking run): leftmost matches, an empty match
 * is replaced too and then the search resumes at the same place but may not
 * end there empty (PCRE2_NOTEMPTY_ATSTART), as Python 3.7+ does.
 *
 * The span map.  Parameters must come back as the ORIGINAL text, even where a
 * mask replaced it, so the masked text is described by a list of segments
 * that tile it: a verbatim segment maps 1:1 to an original range, a
 * replacement segment maps as a whole to the original range it hid.  Applying
 * a rule builds the next text and the next segment list by copying the
 * unmatched stretches (with their segments clipped) and emitting one
 * replacement segment per match, whose original range is the mapped range of
 * the match in the previous text, so rules compose.  Lookups are a binary
 * search over a handful of segments.
 *
 * Cost.  A line no rule matches costs one JIT search per rule and no copy: the
 * masked text is the input itself and the map is the identity.  Otherwise
 * the output goes into one of two buffers used alternately, and the segments
 * into two arrays alike; all four are reused for every line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mask.h"
#include "regex.h"
#include "strbuf.h"

typedef struct mask_rule {
    ltk_regex *regex; /* its own match data, context and (lowered) match limit */
    /* prefilter, from PCRE2's own analysis: a match needs min_length bytes
       and, when first_kind is 1, starts with first_unit */
    size_t min_length;
    int first_kind;
    unsigned char first_unit;
    unsigned char first_other_case; /* first_unit's other ASCII case, or first_unit */
    char *pattern;
    char *replacement;
    size_t replacement_len;
    char *name; /* ltk_masker_add_named(): reported for what the rule replaced; NULL: none */
} mask_rule;

typedef struct span_segment {
    size_t mstart; /* start in the masked text */
    size_t mlen;
    size_t ostart; /* start in the original text */
    size_t olen;
    int verbatim; /* 1: byte-for-byte copy (mlen == olen); 0: a replacement */
    uint32_t rule; /* a replacement: the rule that made it */
} span_segment;

typedef struct segment_list {
    span_segment *seg;
    size_t n;
    size_t cap;
} segment_list;

struct ltk_masker {
    mask_rule *rules;
    size_t nrules;
    size_t cap;
    ltk_strbuf text[2];
    segment_list segs[2];
    int cur;         /* index of the buffer holding the current text; -1: the input */
    size_t orig_len; /* length of the last input */
    size_t map_hint; /* segment of the last map lookup */
    size_t nnamed;   /* rules with a name */
};

int ltk_masker_new(ltk_masker **out)
{
    ltk_masker *m = calloc(1, sizeof *m);
    if (m == NULL)
        return LOGTK_ERR_NOMEM;
    m->cur = -1;
    *out = m;
    return LOGTK_OK;
}

void ltk_masker_free(ltk_masker *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->nrules; i++) {
        ltk_regex_free(m->rules[i].regex);
        free(m->rules[i].pattern);
        free(m->rules[i].replacement);
        free(m->rules[i].name);
    }
    free(m->rules);
    for (int i = 0; i < 2; i++) {
        ltk_strbuf_free(&m->text[i]);
        free(m->segs[i].seg);
    }
    free(m);
}

/* Whether the pattern may switch caseless matching on inline ("(?i)",
 * "(?mi:"): PCRE2_INFO_ALLOPTIONS does not show that, yet the first code unit
 * PCRE2 reports is then matched in either case.  Erring towards yes only
 * costs a second memchr in the prefilter. */
static int may_turn_caseless(const char *pattern)
{
    for (const char *p = strstr(pattern, "(?"); p != NULL; p = strstr(p + 2, "(?"))
        for (const char *q = p + 2;
             (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '^' || *q == '-'; q++)
            if (*q == 'i')
                return 1;
    return 0;
}

int ltk_masker_add(ltk_masker *m, const char *pattern, const char *replacement,
                     ltk_errbuf *err)
{
    return ltk_masker_add_named(m, NULL, pattern, replacement, err);
}

int ltk_masker_add_named(ltk_masker *m, const char *name, const char *pattern,
                           const char *replacement, ltk_errbuf *err)
{
    if (replacement == NULL)
        replacement = "<*>";
    static const ltk_regex_config config = {
        .match_limit = LTK_MASK_MATCH_LIMIT,
        .depth_limit = LTK_MASK_DEPTH_LIMIT,
        .heap_limit_kib = 20 * 1024,
        .jit_stack_max = 1024 * 1024,
        .lower_after = 1, /* every hit lowers the limit, see mask.h */
        .lower_divisor = LTK_MASK_LIMIT_DIVISOR,
        .lower_floor = LTK_MASK_MATCH_LIMIT_FLOOR,
    };
    ltk_regex *code;
    ltk_regex_error rerr;
    if (ltk_regex_compile(&code, pattern, (size_t)-1, &config, &rerr) != LOGTK_OK) {
        if (rerr.code == LOGTK_ERR_NOMEM)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        return ltk_error_set(err, LOGTK_ERR_SYNTAX, "mask \"%s\": %s at offset %zu", pattern,
                               rerr.reason, rerr.offset);
    }
    if (m->nrules == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4;
        mask_rule *r = realloc(m->rules, cap * sizeof *r);
        if (r == NULL) {
            ltk_regex_free(code);
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        }
        m->rules = r;
        m->cap = cap;
    }
    mask_rule *r = &m->rules[m->nrules];
    r->regex = code;
    r->min_length = ltk_regex_min_length(code);
    r->first_kind = 0;
    unsigned char info;
    if (ltk_regex_first_byte(code, &info)) {
        /* An inline (?i) does not show in PCRE2's ALLOPTIONS, yet makes the
           first unit caseless ("(?i)error" must find "ERROR"): for a letter
           the prefilter then looks for both cases. */
        r->first_kind = 1;
        r->first_unit = info;
        r->first_other_case = r->first_unit;
        if (may_turn_caseless(pattern)) {
            if (info >= 'a' && info <= 'z')
                r->first_other_case = (unsigned char)(info - 'a' + 'A');
            else if (info >= 'A' && info <= 'Z')
                r->first_other_case = (unsigned char)(info - 'A' + 'a');
        }
    }
    r->pattern = strdup(pattern);
    r->replacement = strdup(replacement);
    r->replacement_len = strlen(replacement);
    r->name = name && name[0] ? strdup(name) : NULL;
    if (r->pattern == NULL || r->replacement == NULL || (name && name[0] && r->name == NULL)) {
        ltk_regex_free(code);
        free(r->pattern);
        free(r->replacement);
        free(r->name);
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    }
    if (r->name)
        m->nnamed++;
    m->nrules++;
    return LOGTK_OK;
}

size_t ltk_masker_count(const ltk_masker *m)
{
    return m->nrules;
}

const char *ltk_masker_pattern(const ltk_masker *m, size_t i)
{
    return i < m->nrules ? m->rules[i].pattern : NULL;
}

const char *ltk_masker_replacement(const ltk_masker *m, size_t i)
{
    return i < m->nrules ? m->rules[i].replacement : NULL;
}

const char *ltk_masker_name(const ltk_masker *m, size_t i)
{
    return i < m->nrules ? m->rules[i].name : NULL;
}

size_t ltk_masker_named_count(const ltk_masker *m)
{
    return m->nnamed;
}

/*
 * The segments of the last masked text are in increasing original order, so
 * a binary search finds the replacement whose original range starts at
 * ostart; it names [ostart, oend) only when it hid exactly that range.
 */
const char *ltk_masker_name_of(const ltk_masker *m, size_t ostart, size_t oend)
{
    if (m->cur < 0 || m->nnamed == 0)
        return NULL;
    const segment_list *l = &m->segs[m->cur];
    size_t lo = 0, hi = l->n;
    while (lo < hi) { /* first segment with ostart >= the wanted one */
        size_t mid = (lo + hi) / 2;
        if (l->seg[mid].ostart < ostart)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < l->n && l->seg[lo].ostart == ostart; lo++) {
        const span_segment *s = &l->seg[lo];
        if (!s->verbatim && s->ostart + s->olen == oend)
            return m->rules[s->rule].name;
    }
    return NULL;
}

int ltk_masker_changed(const ltk_masker *m)
{
    return m->cur >= 0;
}

/* ------------------------------------------------------------------ the map */

/* Segment containing masked position pos (pos < text length). */
static inline const span_segment *segment_at(const segment_list *l, size_t pos)
{
    size_t lo = 0, hi = l->n;
    if (hi <= 8) { /* short lists: a linear scan is cheaper */
        while (lo + 1 < hi && l->seg[lo + 1].mstart <= pos)
            lo++;
        return &l->seg[lo];
    }
    /* binary search */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (l->seg[mid].mstart <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return &l->seg[lo];
}

/* Original offset where masked position pos starts something. */
static inline size_t map_start(const segment_list *l, size_t pos, size_t masked_len, size_t orig_len)
{
    if (l->n == 0 || pos >= masked_len)
        return orig_len;
    const span_segment *s = segment_at(l, pos);
    if (pos >= s->mstart + s->mlen) /* in a gap left by an empty replacement */
        return s->ostart + s->olen;
    return s->verbatim ? s->ostart + (pos - s->mstart) : s->ostart;
}

/* Original offset where masked position pos ends something. */
static inline size_t map_end(const segment_list *l, size_t pos, size_t masked_len, size_t orig_len)
{
    if (l->n == 0 || pos == 0)
        return l->n ? l->seg[0].ostart : 0;
    if (pos > masked_len)
        pos = masked_len;
    const span_segment *s = segment_at(l, pos - 1);
    if (s->verbatim && pos <= s->mstart + s->mlen)
        return s->ostart + (pos - s->mstart);
    (void)orig_len;
    return s->ostart + s->olen;
}

/* Index of the last segment starting at or before pos, scanning forward from
   the previous answer when it still applies (parameters come in order). */
static inline size_t segment_index(ltk_masker *m, const segment_list *l, size_t pos)
{
    size_t k = m->map_hint;
    if (k >= l->n || l->seg[k].mstart > pos) {
        if (l->n > 8)
            return m->map_hint = (size_t)(segment_at(l, pos) - l->seg);
        k = 0;
    }
    while (k + 1 < l->n && l->seg[k + 1].mstart <= pos)
        k++;
    return m->map_hint = k;
}

void ltk_masker_map(ltk_masker *m, size_t start, size_t end, size_t *ostart, size_t *oend)
{
    if (m->cur < 0) {
        *ostart = start;
        *oend = end;
        return;
    }
    const segment_list *l = &m->segs[m->cur];
    size_t mlen = m->text[m->cur].len;
    size_t a, b;
    if (l->n == 0 || start >= mlen) {
        a = m->orig_len;
    } else {
        const span_segment *sg = &l->seg[segment_index(m, l, start)];
        if (start >= sg->mstart + sg->mlen)
            a = sg->ostart + sg->olen;
        else
            a = sg->verbatim ? sg->ostart + (start - sg->mstart) : sg->ostart;
    }
    if (end <= start || l->n == 0) {
        b = a;
    } else {
        if (end > mlen)
            end = mlen;
        const span_segment *sg = &l->seg[segment_index(m, l, end - 1)];
        if (sg->verbatim && end <= sg->mstart + sg->mlen)
            b = sg->ostart + (end - sg->mstart);
        else
            b = sg->ostart + sg->olen;
    }
    *ostart = a;
    *oend = b < a ? a : b;
}

/* ---------------------------------------------------------------- applying */

/* Appends bytes; the common case (room left) stays inline. */
static inline int put_bytes(ltk_strbuf *b, const char *src, size_t n)
{
    if (b->cap - b->len <= n && ltk_strbuf_reserve(b, n) != 0)
        return -1;
    memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

static inline int push_segment(segment_list *l, size_t mstart, size_t mlen, size_t ostart, size_t olen,
                        int verbatim, uint32_t rule)
{
    if (mlen == 0)
        return 0;
    if (l->n > 0) {
        span_segment *last = &l->seg[l->n - 1];
        if (verbatim && last->verbatim && last->mstart + last->mlen == mstart &&
            last->ostart + last->olen == ostart) {
            last->mlen += mlen;
            last->olen += olen;
            return 0;
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        span_segment *s = realloc(l->seg, cap * sizeof *s);
        if (s == NULL)
            return -1;
        l->seg = s;
        l->cap = cap;
    }
    l->seg[l->n++] = (span_segment){mstart, mlen, ostart, olen, verbatim, rule};
    return 0;
}

/*
 * Copies [a, b) of the current text to the output, with its segments.
 * `from` is the current segment list (NULL: the current text is the input);
 * *cursor walks it left to right across calls.
 */
static inline int copy_stretch(ltk_strbuf *out, segment_list *dst, const char *cur_text,
                        const segment_list *from, size_t *cursor, size_t a, size_t b)
{
    if (b <= a)
        return 0;
    size_t at = out->len;
    if (put_bytes(out, cur_text + a, b - a) != 0)
        return -1;
    if (from == NULL)
        return push_segment(dst, at, b - a, a, b - a, 1, 0);
    size_t k = *cursor;
    while (k < from->n && from->seg[k].mstart + from->seg[k].mlen <= a)
        k++;
    for (; k < from->n && from->seg[k].mstart < b; k++) {
        const span_segment *s = &from->seg[k];
        size_t lo = s->mstart > a ? s->mstart : a;
        size_t hi = s->mstart + s->mlen < b ? s->mstart + s->mlen : b;
        int rc = s->verbatim
                     ? push_segment(dst, at + (lo - a), hi - lo, s->ostart + (lo - s->mstart),
                                    hi - lo, 1, 0)
                     : push_segment(dst, at + (lo - a), hi - lo, s->ostart, s->olen, 0, s->rule);
        if (rc != 0)
            return -1;
        if (s->mstart + s->mlen > b)
            break; /* the segment continues past b: revisit it next time */
    }
    *cursor = k;
    return 0;
}

/*
 * Runs rule r from `start`.  The prefilter skips the engine call (about 100
 * instructions of set-up each) when too few bytes are left or the literal
 * every match starts with does not occur (memchr), and otherwise starts the
 * search there (look-behind still sees the whole subject).  A start-byte set
 * such as \d is left to the JIT, whose own scan is faster than a table loop.
 */
static int run_match(const mask_rule *r, const char *subject, size_t len, size_t start,
                     uint32_t options)
{
    if (start > len || len - start < r->min_length)
        return LTK_REGEX_NOMATCH;
    if (r->first_kind == 1) {
        const char *hit = memchr(subject + start, r->first_unit, len - start);
        if (r->first_other_case != r->first_unit) {
            const char *stop = hit ? hit : subject + len;
            const char *other = memchr(subject + start, r->first_other_case,
                                       (size_t)(stop - (subject + start)));
            if (other)
                hit = other;
        }
        if (hit == NULL)
            return LTK_REGEX_NOMATCH;
        start = (size_t)(hit - subject);
    }
    if (len - start < r->min_length)
        return LTK_REGEX_NOMATCH;
    /* a hit lowers the rule's limit for later lines (see mask.h) */
    return ltk_regex_match(r->regex, subject, len, start, options);
}

int ltk_masker_apply(ltk_masker *m, const char *text, size_t len, const char **masked,
                       size_t *masked_len, ltk_errbuf *err)
{
    int status = LOGTK_OK;
    m->cur = -1;
    m->map_hint = 0;
    m->orig_len = len;
    const char *cur_text = len ? text : "";
    size_t cur_len = len;
    for (size_t ri = 0; ri < m->nrules; ri++) {
        mask_rule *r = &m->rules[ri];
        int rc = run_match(r, cur_text, cur_len, 0, 0);
        if (rc == LTK_REGEX_NOMATCH)
            continue; /* common case: nothing to copy */
        if (rc < 0) {
            if (rc == LTK_REGEX_LIMIT)
                status = ltk_error_set(err, LOGTK_ERR_LIMIT,
                                         "mask \"%s\" hit its match limit; not applied",
                                         r->pattern);
            else
                status = ltk_error_set(err, LOGTK_ERR_LIMIT, "mask \"%s\": match error %d",
                                         r->pattern, ltk_regex_failure(r->regex, NULL, 0));
            continue;
        }
        int next = m->cur == 0 ? 1 : 0;
        ltk_strbuf *out = &m->text[next];
        segment_list *dst = &m->segs[next];
        const segment_list *from = m->cur >= 0 ? &m->segs[m->cur] : NULL;
        size_t cursor = 0, copied = 0;
        out->len = 0;
        if (out->cap <= cur_len + r->replacement_len &&
            ltk_strbuf_reserve(out, cur_len + r->replacement_len + 64) != 0)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        dst->n = 0;
        int failed = 0;
        for (;;) {
            const size_t *ov = ltk_regex_ovector(r->regex);
            size_t s = ov[0], e = ov[1];
            if (e < s) /* \K tricks; treat as empty at s */
                e = s;
            if (copy_stretch(out, dst, cur_text, from, &cursor, copied, s) != 0)
                return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
            size_t ostart, oend;
            if (from == NULL) {
                ostart = s;
                oend = e;
            } else {
                ostart = map_start(from, s, cur_len, len);
                oend = e > s ? map_end(from, e, cur_len, len) : ostart;
                if (oend < ostart)
                    oend = ostart;
            }
            size_t at = out->len;
            if (put_bytes(out, r->replacement, r->replacement_len) != 0 ||
                push_segment(dst, at, r->replacement_len, ostart, oend - ostart, 0,
                             (uint32_t)ri) != 0)
                return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
            copied = e;
            uint32_t options = 0;
            if (e == s) {
                /* empty match: as Python does, search again from the same
                   place for a match that is not empty there (re.sub('(?=b)|b',
                   '-', 'ab') is 'a--'); progress is guaranteed */
                if (s >= cur_len)
                    break;
                options = LTK_REGEX_NOTEMPTY_ATSTART;
            }
            if (e > cur_len)
                break;
            rc = run_match(r, cur_text, cur_len, e, options);
            if (rc == LTK_REGEX_NOMATCH)
                break;
            if (rc < 0) {
                status = ltk_error_set(err, LOGTK_ERR_LIMIT,
                                         "mask \"%s\" hit its match limit; not applied",
                                         r->pattern);
                failed = 1;
                break;
            }
        }
        if (failed)
            continue; /* keep the previous text and map */
        if (copy_stretch(out, dst, cur_text, from, &cursor, copied, cur_len) != 0)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        out->data[out->len] = '\0'; /* reserve always leaves room for it */
        m->cur = next;
        cur_text = out->data;
        cur_len = out->len;
    }
    *masked = cur_text;
    *masked_len = cur_len;
    return status;
}
