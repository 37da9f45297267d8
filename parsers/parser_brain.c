/*
 * parser_brain.c - Brain (Yu et al., "Brain: Log Parsing with Bidirectional
 * Parallel Tree", IEEE TSC 2023), a batch parser.
 *
 * The idea: in a log of one template, the constant words sit at fixed
 * positions and therefore all occur in exactly the lines of that template,
 * so they share one (position, word) frequency.  Brain counts, over the
 * whole input, how often each word occurs at each position, turns every line
 * into its vector of frequencies, and takes as the line's "root" the
 * frequency value that the most words of the line share (the longest common
 * pattern).  Lines of one length with the same root (frequency value and
 * number of words carrying it) form an initial group.  The tree then splits
 * the group: positions outside the root whose words take at least
 * `threshold` distinct values are variables.
 *
 * We follow logparser's reference code (logparser/Brain/Brain.py), which
 * produced the published accuracy, and note where it differs from the paper:
 *  - Tokens: after the masks, the matches of the `delimiter` regexes are
 *    deleted, then a space is inserted after every separator of `split`
 *    ("," always in the reference; each benchmark dataset adds its own, e.g.
 *    ":" "=" "|" for HealthApp: the reference hard-codes them by dataset
 *    name, we take them as a parameter set by the dataset presets).  The
 *    pieces are Brain's words.  We split words on all whitespace (the
 *    reference splits on single spaces, so a leading space gives it an empty
 *    word); lines are grouped by word count.
 *  - Frequencies are counted per position over ALL lines, not per length
 *    group (as in the reference).
 *  - The root is the frequency value shared by the most words of the line,
 *    ties going to the value that occurs first in the line (Counter order);
 *    the reference's threshold on the root (find_root(0)) is 0, so the
 *    first candidate always wins.
 *  - Upward split (parent nodes, frequencies above the root): the paper
 *    splits there; in the reference it compares an integer with a tuple and
 *    so never changes anything.  We leave it out, which is the reference's
 *    behaviour.
 *  - Downward split: the "non-root" positions are those whose frequency in
 *    the FIRST line of the group differs from the root's; at each, when the
 *    group's lines show >= threshold distinct words, all those words become
 *    variables -- and, as in the reference, the word set applies to every
 *    position of the group (a word seen as a variable value anywhere in the
 *    group is a "<*>" wherever it occurs in that group).  The paper instead
 *    recurses into child nodes; the reference relies on the template text
 *    itself to keep low-cardinality positions apart.
 *  - Output: a word that contains "<*>" or whose characters are >= 30%
 *    digits is a "<*>" (the reference's exclude_digits; we count bytes,
 *    Python counts code points).  Lines whose templates have the same text
 *    share one template.
 * Templates are rendered on the original whitespace tokens: the pieces of a
 * token are glued back together ("size=<*>", not "size= <*>"), so parameter
 * extraction by the shared layer works inside tokens.  The reference joins
 * every piece with a space; grouping is unaffected.
 *
 * Cost: O(total words) with hash lookups; all lines are kept as interned
 * token ids (a batch parser needs them all anyway).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "hashtab.h"
#include "mask.h"
#include "parser_impl.h"
#include "strbuf.h"
#include "u64map.h"
#include "tokenize.h"

#define BRAIN_MAX_SEPARATORS 16
#define BRAIN_MAX_SEPARATOR_LEN 8

typedef struct brain_state {
    long threshold;
    char separators[BRAIN_MAX_SEPARATORS][BRAIN_MAX_SEPARATOR_LEN + 1];
    size_t nseparators;
    ltk_masker *delimiter; /* NULL when no delimiter regex */

    ltk_tokens retokenized; /* tokens of the line after the delimiter removal */
    /* every stored line's words as interned ids, concatenated */
    uint32_t *words;
    uint8_t *glued; /* 1: the word continues the previous word's whitespace token */
    size_t nwords, words_cap;
    uint64_t *line_start; /* line k: words[line_start[k] .. line_start[k+1]) */
    size_t nlines, lines_cap;
} brain_state;

/* ---------------------------------------------------------------- u64 map */

/* A key's count, 0 when absent. */
static uint32_t count_of(const ltk_u64map *m, uint64_t key)
{
    const uint32_t *v = ltk_u64map_find(m, key);
    return v ? *v : 0;
}

/* ------------------------------------------------------------- parameters */

static int brain_set_separators(brain_state *st, const char *list)
{
    st->nseparators = 0;
    const char *s = list;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        size_t len = strcspn(s, " ");
        if (len > BRAIN_MAX_SEPARATOR_LEN || st->nseparators == BRAIN_MAX_SEPARATORS)
            return -1;
        memcpy(st->separators[st->nseparators], s, len);
        st->separators[st->nseparators][len] = '\0';
        st->nseparators++;
        s += len;
    }
    return 0;
}

static int brain_init(logtk_parser *p, void *state)
{
    brain_state *st = state;
    st->threshold = 2;
    brain_set_separators(st, ",");
    return LOGTK_OK;
}

static void brain_destroy(void *state)
{
    brain_state *st = state;
    ltk_masker_free(st->delimiter);
    ltk_tokens_free(&st->retokenized);
    free(st->words);
    free(st->glued);
    free(st->line_start);
}

static int brain_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    brain_state *st = state;
    if (strcmp(name, "threshold") == 0)
        return ltk_param_int(p, name, value, 1, 1000000, &st->threshold);
    if (strcmp(name, "split") == 0) {
        if (brain_set_separators(st, value) != 0)
            return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                      "split: at most %d separators of at most %d bytes, "
                                      "separated by spaces: \"%s\"",
                                      BRAIN_MAX_SEPARATORS, BRAIN_MAX_SEPARATOR_LEN, value);
        return LOGTK_OK;
    }
    if (strcmp(name, "delimiter") == 0) {
        if (!*value)
            return LOGTK_OK; /* the presets' "no delimiter" */
        if (!st->delimiter && ltk_masker_new(&st->delimiter) != LOGTK_OK)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        ltk_errbuf err = {0, ""};
        int rc = ltk_masker_add(st->delimiter, value, "", &err);
        if (rc != LOGTK_OK)
            return ltk_parser_error(p, rc, "delimiter: %s", ltk_error_text(&err));
        return LOGTK_OK;
    }
    return LOGTK_ERR_NOT_FOUND;
}

/* ------------------------------------------------------------------- feed */

static int push_word(logtk_parser *p, brain_state *st, const char *ptr, size_t len, int glued)
{
    if (st->nwords == st->words_cap) {
        size_t cap = st->words_cap ? st->words_cap * 2 : 4096;
        uint32_t *w = realloc(st->words, cap * sizeof *w);
        if (!w)
            return LOGTK_ERR_NOMEM;
        st->words = w;
        uint8_t *g = realloc(st->glued, cap);
        if (!g)
            return LOGTK_ERR_NOMEM;
        st->glued = g;
        st->words_cap = cap;
    }
    uint32_t id = ltk_parser_intern_token(p, ptr, len);
    if (id == UINT32_MAX)
        return LOGTK_ERR_NOMEM;
    st->words[st->nwords] = id;
    st->glued[st->nwords] = (uint8_t)glued;
    st->nwords++;
    return LOGTK_OK;
}

/* Length of the separator that starts at s (0 when none); the longest listed wins. */
static size_t separator_at(const brain_state *st, const char *s, size_t avail)
{
    size_t best = 0;
    for (size_t i = 0; i < st->nseparators; i++) {
        size_t n = strlen(st->separators[i]);
        if (n > best && n <= avail && memcmp(s, st->separators[i], n) == 0)
            best = n;
    }
    return best;
}

/* Splits one whitespace token after each separator into words. */
static int push_token(logtk_parser *p, brain_state *st, const char *ptr, size_t len)
{
    size_t start = 0, i = 0;
    int glued = 0;
    while (i < len) {
        size_t n = separator_at(st, ptr + i, len - i);
        if (n == 0) {
            i++;
            continue;
        }
        i += n;
        if (i < len) {
            int rc = push_word(p, st, ptr + start, i - start, glued);
            if (rc != LOGTK_OK)
                return rc;
            glued = 1;
            start = i;
        }
    }
    return push_word(p, st, ptr + start, len - start, glued);
}

static int brain_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                      uint32_t *template_id)
{
    brain_state *st = state;
    const logtk_slice *tokens = line->tokens;
    size_t ntokens = line->ntokens;
    *template_id = 0;
    if (st->delimiter) {
        const char *text;
        size_t len;
        ltk_errbuf err = {0, ""};
        int rc = ltk_masker_apply(st->delimiter, line->masked.ptr, line->masked.len, &text,
                                    &len, &err);
        if (rc == LOGTK_ERR_NOMEM)
            return ltk_parser_error(p, rc, "out of memory");
        /* a delimiter that hit its match limit is skipped for this line */
        if (ltk_tokenize(&st->retokenized, text, len) != LOGTK_OK)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        tokens = st->retokenized.tok;
        ntokens = st->retokenized.n;
    }
    if (st->nlines + 1 >= st->lines_cap) {
        size_t cap = st->lines_cap ? st->lines_cap * 2 : 1024;
        uint64_t *ls = realloc(st->line_start, cap * sizeof *ls);
        if (!ls)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        st->line_start = ls;
        st->lines_cap = cap;
    }
    st->line_start[st->nlines] = st->nwords;
    for (size_t t = 0; t < ntokens; t++) {
        int rc = push_token(p, st, tokens[t].ptr, tokens[t].len);
        if (rc != LOGTK_OK)
            return ltk_parser_error(p, rc, "out of memory");
    }
    st->nlines++;
    st->line_start[st->nlines] = st->nwords;
    return LOGTK_OK;
}

/* ----------------------------------------------------------------- finish */

/* The reference's exclude_digits: at least 30% of the characters are digits. */
static int mostly_digits(const char *s, size_t len)
{
    size_t digits = 0;
    for (size_t i = 0; i < len; i++)
        digits += s[i] >= '0' && s[i] <= '9';
    return digits > 0 && (double)digits / (double)len >= 0.3;
}

#define POS_KEY(pos, id) (((uint64_t)(pos) << 32) | (uint64_t)(id))
#define GROUP_KEY_LEN 3 /* length, root frequency, root width */

typedef struct brain_work {
    uint32_t *freq;       /* per word: its (position, word) frequency */
    uint32_t *group;      /* per line: its group number */
    uint32_t *line_order; /* lines sorted by group, input order within */
    uint32_t *group_first; /* group g's lines: line_order[group_first[g] .. group_first[g+1]) */
    uint32_t *group_root;  /* group g's root frequency */
    uint32_t *variable_mark; /* per token id: group number + 1 when a variable there */
    uint32_t *seen_mark;     /* per token id: epoch of the last distinct count */
    uint8_t *is_wild;        /* per token id: contains "<*>" or mostly digits */
    logtk_slice *tmpl;       /* rendering buffer: the template's tokens */
    size_t *tmpl_off;        /* their offsets in `text` while it may still grow */
    ltk_strbuf text;       /* rendering buffer for template dedup */
    ltk_u64map counts;
} brain_work;

static void work_free(brain_work *w)
{
    free(w->freq);
    free(w->group);
    free(w->line_order);
    free(w->group_first);
    free(w->group_root);
    free(w->variable_mark);
    free(w->seen_mark);
    free(w->is_wild);
    free(w->tmpl);
    free(w->tmpl_off);
    ltk_strbuf_free(&w->text);
    ltk_u64map_free(&w->counts);
}

/* Root of a line: the frequency value shared by the most words, first in the line on ties. */
static uint32_t line_root(const uint32_t *freq, size_t n, ltk_u64map *scratch, uint32_t *width)
{
    /* lines are short: a quadratic count beats hashing for typical n < 64 */
    uint32_t best = 0, best_count = 0;
    if (n > 256) {
        /* long lines: count with the scratch map (cleared by the caller) */
        for (size_t i = 0; i < n; i++)
            ltk_u64map_increment(scratch, freq[i]);
        for (size_t i = 0; i < n; i++) {
            uint32_t c = count_of(scratch, freq[i]);
            if (c > best_count) {
                best_count = c;
                best = freq[i];
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            int earlier = 0;
            for (size_t j = 0; j < i; j++)
                if (freq[j] == freq[i]) {
                    earlier = 1;
                    break;
                }
            if (earlier)
                continue;
            uint32_t c = 0;
            for (size_t j = i; j < n; j++)
                c += freq[j] == freq[i];
            if (c > best_count) {
                best_count = c;
                best = freq[i];
            }
        }
    }
    *width = best_count;
    return best;
}

/* Counting sort of the lines by group; input order is kept within a group. */
static int order_lines_by_group(brain_work *w, size_t nlines, size_t ngroups)
{
    w->group_first = calloc(ngroups + 1, sizeof *w->group_first);
    w->line_order = malloc((nlines ? nlines : 1) * sizeof *w->line_order);
    if (!w->group_first || !w->line_order)
        return -1;
    for (size_t k = 0; k < nlines; k++)
        w->group_first[w->group[k] + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        w->group_first[g + 1] += w->group_first[g];
    uint32_t *fill = malloc((ngroups + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, w->group_first, (ngroups + 1) * sizeof *fill);
    for (size_t k = 0; k < nlines; k++)
        w->line_order[fill[w->group[k]]++] = (uint32_t)k;
    free(fill);
    return 0;
}

static int brain_finish(logtk_parser *p, void *state)
{
    brain_state *st = state;
    brain_work w;
    memset(&w, 0, sizeof w);
    int rc = LOGTK_ERR_NOMEM;
    size_t nlines = st->nlines;
    if (nlines == 0)
        return LOGTK_OK;
    size_t nwords = st->nwords;
    uint32_t ntok = 0;
    for (size_t i = 0; i < nwords; i++)
        if (st->words[i] + 1 > ntok)
            ntok = st->words[i] + 1;

    /* 1. (position, word) frequencies over all lines */
    if (ltk_u64map_init(&w.counts, nwords / 4 + 64) != 0)
        goto out;
    for (size_t k = 0; k < nlines; k++)
        for (uint64_t i = st->line_start[k]; i < st->line_start[k + 1]; i++)
            if (ltk_u64map_increment(&w.counts, POS_KEY(i - st->line_start[k], st->words[i])) != 0)
                goto out;
    w.freq = malloc((nwords ? nwords : 1) * sizeof *w.freq);
    w.group = malloc(nlines * sizeof *w.group);
    if (!w.freq || !w.group)
        goto out;
    for (size_t k = 0; k < nlines; k++)
        for (uint64_t i = st->line_start[k]; i < st->line_start[k + 1]; i++)
            w.freq[i] = count_of(&w.counts, POS_KEY(i - st->line_start[k], st->words[i]));

    /* 2. initial groups: (length, root frequency, root width) */
    ltk_hashtab groups;
    if (ltk_hashtab_init(&groups, 1024) != 0)
        goto out;
    ltk_u64map scratch = {0};
    for (size_t k = 0; k < nlines; k++) {
        size_t n = (size_t)(st->line_start[k + 1] - st->line_start[k]);
        uint32_t width = 0, root = 0;
        if (n > 256) {
            ltk_u64map_free(&scratch);
            if (ltk_u64map_init(&scratch, n) != 0) {
                ltk_hashtab_free(&groups);
                goto out;
            }
        }
        root = line_root(w.freq + st->line_start[k], n, &scratch, &width);
        uint32_t key[GROUP_KEY_LEN] = {(uint32_t)n, root, width};
        int64_t g = ltk_hashtab_intern(&groups, key, sizeof key, NULL);
        if (g < 0) {
            ltk_u64map_free(&scratch);
            ltk_hashtab_free(&groups);
            goto out;
        }
        w.group[k] = (uint32_t)g;
    }
    ltk_u64map_free(&scratch);
    size_t ngroups = groups.count;
    w.group_root = malloc(ngroups * sizeof *w.group_root);
    if (!w.group_root) {
        ltk_hashtab_free(&groups);
        goto out;
    }
    for (size_t g = 0; g < ngroups; g++) {
        uint32_t key[GROUP_KEY_LEN];
        memcpy(key, ltk_hashtab_key(&groups, (uint32_t)g, NULL), sizeof key);
        w.group_root[g] = key[1];
    }
    ltk_hashtab_free(&groups);
    if (order_lines_by_group(&w, nlines, ngroups) != 0)
        goto out;

    /* per token: a "<*>" regardless of grouping (masked, or mostly digits) */
    w.variable_mark = calloc(ntok ? ntok : 1, sizeof *w.variable_mark);
    w.seen_mark = calloc(ntok ? ntok : 1, sizeof *w.seen_mark);
    w.is_wild = calloc(ntok ? ntok : 1, 1);
    if (!w.variable_mark || !w.seen_mark || !w.is_wild)
        goto out;
    for (uint32_t t = 0; t < ntok; t++) {
        size_t len;
        const char *s = ltk_parser_token_text(p, t, &len);
        w.is_wild[t] = s && (ltk_holds_wildcard(s, len) || mostly_digits(s, len));
    }

    /* 3. downward split per group, then templates */
    ltk_hashtab tmpl_ids; /* template text -> index into id list */
    uint32_t *ids = NULL;
    size_t ids_cap = 0;
    if (ltk_hashtab_init(&tmpl_ids, 256) != 0)
        goto out;
    uint32_t epoch = 0;
    size_t tmpl_cap = 0;
    for (size_t g = 0; g < ngroups; g++) {
        const uint32_t *members = w.line_order + w.group_first[g];
        size_t nmembers = w.group_first[g + 1] - w.group_first[g];
        uint32_t first = members[0];
        uint64_t first_start = st->line_start[first];
        size_t len = (size_t)(st->line_start[first + 1] - first_start);
        for (size_t pos = 0; pos < len; pos++) {
            if (w.freq[first_start + pos] == w.group_root[g])
                continue;
            epoch++;
            size_t distinct = 0;
            for (size_t m = 0; m < nmembers; m++) {
                uint32_t id = st->words[st->line_start[members[m]] + pos];
                if (w.seen_mark[id] != epoch) {
                    w.seen_mark[id] = epoch;
                    distinct++;
                }
            }
            if (distinct >= (size_t)st->threshold)
                for (size_t m = 0; m < nmembers; m++)
                    w.variable_mark[st->words[st->line_start[members[m]] + pos]] =
                        (uint32_t)g + 1;
        }
        if (len > tmpl_cap) {
            free(w.tmpl);
            free(w.tmpl_off);
            tmpl_cap = len;
            w.tmpl = malloc(tmpl_cap * sizeof *w.tmpl);
            w.tmpl_off = malloc(tmpl_cap * sizeof *w.tmpl_off);
            if (!w.tmpl || !w.tmpl_off)
                goto out_tmpl;
        }
        for (size_t m = 0; m < nmembers; m++) {
            uint64_t start = st->line_start[members[m]];
            /* render on whitespace tokens: glued words join, each "<*>" word reads "<*>" */
            ltk_strbuf_clear(&w.text);
            size_t ntmpl = 0;
            for (size_t i = 0; i < len; i++) {
                uint32_t id = st->words[start + i];
                size_t wlen;
                const char *wtext;
                if (w.is_wild[id] || w.variable_mark[id] == (uint32_t)g + 1) {
                    wtext = LTK_WILDCARD;
                    wlen = LTK_WILDCARD_LEN;
                } else {
                    wtext = ltk_parser_token_text(p, id, &wlen);
                }
                if (i > 0 && !st->glued[start + i] && ltk_strbuf_putc(&w.text, ' ') != 0)
                    goto out_tmpl;
                if (i == 0 || !st->glued[start + i]) {
                    w.tmpl_off[ntmpl] = w.text.len;
                    w.tmpl[ntmpl++].len = 0;
                }
                if (ltk_strbuf_append(&w.text, wtext, wlen) != 0)
                    goto out_tmpl;
                w.tmpl[ntmpl - 1].len += wlen;
            }
            int inserted = 0;
            int64_t ti = ltk_hashtab_intern(&tmpl_ids, w.text.data ? w.text.data : "",
                                              w.text.len, &inserted);
            if (ti < 0)
                goto out_tmpl;
            if (inserted) {
                for (size_t t = 0; t < ntmpl; t++)
                    w.tmpl[t].ptr = w.text.data + w.tmpl_off[t];
                uint32_t id = ltk_tmpl_create(p, w.tmpl, ntmpl);
                if (id == 0)
                    goto out_tmpl;
                if ((size_t)ti >= ids_cap) {
                    size_t cap = ids_cap ? ids_cap * 2 : 256;
                    uint32_t *q = realloc(ids, cap * sizeof *q);
                    if (!q)
                        goto out_tmpl;
                    ids = q;
                    ids_cap = cap;
                }
                ids[ti] = id;
            }
            int arc = ltk_parser_assign(p, members[m], ids[ti]);
            if (arc != LOGTK_OK) {
                rc = arc;
                goto out_tmpl;
            }
        }
    }
    rc = LOGTK_OK;
out_tmpl:
    free(ids);
    ltk_hashtab_free(&tmpl_ids);
out:
    work_free(&w);
    if (rc == LOGTK_ERR_NOMEM)
        return ltk_parser_error(p, rc, "brain: out of memory");
    return rc;
}

const ltk_parser_algo ltk_algo_brain = {
    .name = "brain",
    .summary = "Brain (TSC'23): longest common (position, word) frequency pattern, "
               "then tree splitting (batch)",
    .online = 0,
    .state_size = sizeof(brain_state),
    .init = brain_init,
    .destroy = brain_destroy,
    .set_param = brain_set_param,
    .feed = brain_feed,
    .finish = brain_finish,
    .save = NULL,
    .load = NULL,
};
