/*
 * parser_ulp.c - ULP, the Universal Log Parser (Sedki, Hamou-Lhadj,
 * Ait-Mohamed, Shehab: "An Effective Approach for Parsing Large Log Files",
 * ICSME 2022), following logparser's ULP.py.
 *
 * Idea: most of a message's identity is in its plain words, and most
 * variables contain digits or punctuation.  ULP therefore groups messages by
 * a key made of (a) the concatenation, in order, of the words that are
 * purely alphanumeric, digit-free and longer than one character, and (b) the
 * number of words.  Grouping is one hash lookup per message, which is why
 * the algorithm streams at full speed.  A group's template is its first
 * message in which (c) the words whose frequency, over the group's first ten
 * messages, is below the most frequent word's (local frequency analysis)
 * and (d) plain integers become "<*>".
 *
 * Building the key as the reference does (it works on Python's repr of the
 * token list, then deletes and splits characters in stages):
 *   1. a token containing ' (and no ") is wrapped in double quotes, which
 *      stay glued to its first and last word; ' and \ are then deleted;
 *   2. the characters !@#$%^&*{}<>?|`~ are deleted (a mask's "<*>" vanishes);
 *   3. ULP's own regexes (MAC address, dates, times, hex numbers, long
 *      colon lists, dotted host names) delete what they match;
 *   4. = ( ) [ ] , and whitespace separate words; ; : / - + are deleted,
 *      joining what was on either side ("a-b" is the word "ab").
 * Words are what remains; isalnum counts every non-ASCII byte as a letter
 * (Python's isalnum is true for letters of every script).
 *
 * Differences from the reference, on purpose:
 *  - the reference ignores its `rex` list; here the preset masks apply as
 *    for every parser (a masked token simply vanishes from the key, as the
 *    reference's own regexes make most such values vanish);
 *  - the reference samples (shuffles) the input and takes a random first
 *    message and random ten messages per group; here the first messages in
 *    input order are used, so results are deterministic;
 *  - the reference lowercases the template and replaces dynamic words by an
 *    unescaped regex over the whole text; here the template keeps the
 *    message's case and replaces exactly the dynamic word spans of each
 *    token, so parameters can be extracted token by token;
 *  - the reference's date regex anchored at "^" can never match (its string
 *    starts with "["), so it is left out.
 * The key (and so the grouping, which is what GA measures) is the
 * reference's.
 *
 * Memory: per line only reused buffers; per group the first message's
 * tokens and, until ten messages were seen, the word counts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "mask.h"
#include "growarray.h"
#include "parser_impl.h"
#include "strbuf.h"

/* Messages per group that decide its dynamic words (the reference's head(10)). */
#define ULP_SAMPLE 10

/* ULP's variable regexes (reference re_list without the unreachable "^" date). */
static const char ulp_regex[] =
    "\\b(?:([\\da-fA-F]{2}:){5}[\\da-fA-F]{2}"
    "|\\d{4}-\\d{2}-\\d{2}"
    "|\\d{4}\\/\\d{2}\\/\\d{2}"
    "|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{3})?"
    "|[0-9]{2}:[0-9]{2}:[0-9]{2}"
    "|[0-9]{2}:[0-9]{2}"
    "|0[xX][0-9a-fA-F]+"
    "|([\\(]?[0-9a-fA-F]*:){8,}[\\)]?"
    "|(\\/|)([a-zA-Z0-9-]+\\.){2,}([a-zA-Z0-9-]+)?(:[a-zA-Z0-9-]+|)(:|))\\b";

typedef struct ulp_word_count {
    uint32_t word;
    uint32_t count;
    uint32_t last; /* the message that counted it last (1-based) */
} ulp_word_count;

typedef struct ulp_group {
    uint32_t template_id;
    uint32_t nmessages;   /* messages seen, counted up to ULP_SAMPLE */
    uint32_t *first;      /* first message's tokens (interned, after the regexes) */
    uint32_t nfirst;
    ulp_word_count *counts; /* distinct words of the first messages; freed after the sample */
    uint32_t ncounts, counts_cap;
} ulp_group;

typedef struct ulp_state {
    ltk_masker *key_regex;  /* deletes matches (key) */
    ltk_masker *tmpl_regex; /* replaces matches with "<*>" (template) */
    ltk_errbuf err;

    ltk_hashtab keys; /* key -> group index */
    int keys_ready;
    ulp_group *groups;
    size_t ngroups, groups_cap;

    ltk_strbuf text;  /* step 1-2 text of the line */
    ltk_strbuf key;
    uint32_t *ids;      /* token / word ids */
    size_t ids_cap;
    logtk_slice *slices;
    size_t slices_cap;
    ltk_strbuf tmpl;  /* template tokens' bytes */
    size_t *offs;
    size_t offs_cap;
    /* word id -> its index in the counts of the group being worked on; valid
     * for word w only when that group's counts[slot[w]].word == w (a sparse
     * set), so looking a word up is O(1) and a line of n distinct words costs
     * O(n), not O(n^2) */
    uint32_t *word_slot;
    size_t word_slot_cap;
} ulp_state;

static int ulp_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "ulp: out of memory");
}

/* Characters deleted before the regexes (steps 1 and 2). */
static int deleted_early(unsigned char c)
{
    return c && strchr("'\\!@#$%^&*{}<>?|`~", c) != NULL;
}

/* Word separators of step 4. */
static int separates(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '=' || c == '(' || c == ')' || c == '[' || c == ']' ||
           c == ',';
}

/* Characters deleted in step 4 (those not already gone). */
static int deleted_late(unsigned char c)
{
    return c == ';' || c == ':' || c == '/' || c == '-' || c == '+';
}

static int is_alnum_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Steps 1-2 for the whole line into s->text, tokens separated by one space. */
static int build_text(ulp_state *s, const ltk_parse_line *line)
{
    ltk_strbuf_clear(&s->text);
    for (size_t t = 0; t < line->ntokens; t++) {
        const char *ptr = line->tokens[t].ptr;
        size_t len = line->tokens[t].len;
        int wrap = memchr(ptr, '\'', len) != NULL && memchr(ptr, '"', len) == NULL;
        if (ltk_strbuf_reserve(&s->text, len + 3) != 0)
            return -1;
        char *out = s->text.data + s->text.len;
        size_t n = 0;
        if (t)
            out[n++] = ' ';
        if (wrap)
            out[n++] = '"';
        for (size_t i = 0; i < len; i++)
            if (!deleted_early((unsigned char)ptr[i]))
                out[n++] = ptr[i];
        if (wrap)
            out[n++] = '"';
        s->text.len += n;
        s->text.data[s->text.len] = '\0';
    }
    return 0;
}

/* Step 4 and the key: key words concatenated, then the word count. */
static int build_key(ulp_state *s, const char *text, size_t len)
{
    ltk_strbuf_clear(&s->key);
    size_t nwords = 0, i = 0;
    while (i < len) {
        while (i < len && separates((unsigned char)text[i]))
            i++;
        if (i >= len)
            break;
        size_t mark = s->key.len, chars = 0;
        int plain = 1, any = 0;
        while (i < len && !separates((unsigned char)text[i])) {
            unsigned char c = (unsigned char)text[i++];
            if (deleted_late(c))
                continue;
            any = 1;
            if (c < 0x80 || (c & 0xC0) != 0x80)
                chars++;
            if (!is_alnum_byte(c) || (c >= '0' && c <= '9'))
                plain = 0;
            if (plain && ltk_strbuf_putc(&s->key, (char)c) != 0)
                return -1;
        }
        if (!any)
            continue; /* only deleted characters: no word */
        nwords++;
        if (!plain || chars < 2)
            s->key.len = mark;
    }
    if (ltk_strbuf_printf(&s->key, "%zu", nwords) != 0)
        return -1;
    return 0;
}

/* Python's string.punctuation. */
static int is_punct(unsigned char c)
{
    return c && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) != NULL;
}

static int template_separator(unsigned char c)
{
    return c == '=' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',';
}

/* The word of segment [a, b): punctuation stripped from both ends. */
static void strip_word(const char *ptr, size_t *a, size_t *b)
{
    while (*a < *b && is_punct((unsigned char)ptr[*a]))
        (*a)++;
    while (*b > *a && is_punct((unsigned char)ptr[*b - 1]))
        (*b)--;
}

/* Makes s->word_slot cover word id w (new slots zeroed: the check in
 * find_count makes any stale or zero slot harmless). */
static int slot_reserve(ulp_state *s, uint32_t w)
{
    if (w < s->word_slot_cap)
        return 0;
    size_t old = s->word_slot_cap, cap = old;
    if (ltk_array_reserve((void **)&s->word_slot, &cap, (size_t)w + 1, sizeof *s->word_slot))
        return -1;
    memset(s->word_slot + old, 0, (cap - old) * sizeof *s->word_slot);
    s->word_slot_cap = cap;
    return 0;
}

/* Points the word slots at group g's counts (O(distinct words of g)). */
static void slots_for_group(ulp_state *s, const ulp_group *g)
{
    for (uint32_t k = 0; k < g->ncounts; k++)
        s->word_slot[g->counts[k].word] = k;
}

/* Index of word w in g's counts, or g->ncounts when absent; the slots must
 * be g's (slots_for_group) and cover w. */
static uint32_t find_count(const ulp_state *s, const ulp_group *g, uint32_t w)
{
    uint32_t k = w < s->word_slot_cap ? s->word_slot[w] : g->ncounts;
    return k < g->ncounts && g->counts[k].word == w ? k : g->ncounts;
}

/* Adds the distinct words of the message's template tokens to the group's counts. */
static int count_words(logtk_parser *p, ulp_state *s, ulp_group *g, const uint32_t *toks,
                       size_t n)
{
    uint32_t msg = g->nmessages + 1;
    slots_for_group(s, g);
    for (size_t t = 0; t < n; t++) {
        size_t len;
        const char *ptr = ltk_parser_token_text(p, toks[t], &len);
        size_t i = 0;
        while (i < len) {
            while (i < len && template_separator((unsigned char)ptr[i]))
                i++;
            size_t a = i;
            while (i < len && !template_separator((unsigned char)ptr[i]))
                i++;
            size_t b = i;
            strip_word(ptr, &a, &b);
            if (a == b)
                continue;
            uint32_t w = ltk_parser_intern_token(p, ptr + a, b - a);
            if (w == UINT32_MAX)
                return -1;
            if (slot_reserve(s, w) != 0)
                return -1;
            uint32_t k = find_count(s, g, w);
            if (k == g->ncounts) {
                size_t cap = g->counts_cap;
                if (ltk_array_reserve((void **)&g->counts, &cap, (size_t)g->ncounts + 1, sizeof *g->counts))
                    return -1;
                g->counts_cap = (uint32_t)cap;
                g->counts[g->ncounts].word = w;
                g->counts[g->ncounts].count = 1;
                g->counts[g->ncounts].last = msg;
                s->word_slot[w] = g->ncounts;
                g->ncounts++;
            } else if (g->counts[k].last != msg) { /* once per message */
                g->counts[k].count++;
                g->counts[k].last = msg;
            }
        }
    }
    return 0;
}

/* The slots must be g's (slots_for_group). */
static int is_dynamic(const ulp_state *s, const ulp_group *g, uint32_t w, uint32_t max)
{
    uint32_t k = find_count(s, g, w);
    return k < g->ncounts && g->counts[k].count < max;
}

/* Nonzero when seg is "-*[0-9]+" (the reference's generic integer rule). */
static int is_integer(const char *ptr, size_t len)
{
    size_t i = 0;
    while (i < len && ptr[i] == '-')
        i++;
    if (i == len)
        return 0;
    for (; i < len; i++)
        if (ptr[i] < '0' || ptr[i] > '9')
            return 0;
    return 1;
}

/* Renders the group's template from its first message and word counts. */
static int render_template(logtk_parser *p, ulp_state *s, ulp_group *g)
{
    uint32_t max = 0;
    for (uint32_t k = 0; k < g->ncounts; k++)
        if (g->counts[k].count > max)
            max = g->counts[k].count;
    slots_for_group(s, g);
    ltk_strbuf_clear(&s->tmpl);
    if (ltk_array_reserve((void **)&s->offs, &s->offs_cap, (size_t)g->nfirst + 1, sizeof *s->offs) ||
        ltk_array_reserve((void **)&s->slices, &s->slices_cap, (size_t)g->nfirst + 1, sizeof *s->slices))
        return -1;
    for (uint32_t t = 0; t < g->nfirst; t++) {
        size_t len;
        const char *ptr = ltk_parser_token_text(p, g->first[t], &len);
        s->offs[t] = s->tmpl.len;
        size_t i = 0;
        while (i < len) {
            size_t sep = i;
            while (i < len && template_separator((unsigned char)ptr[i]))
                i++;
            if (i > sep && ltk_strbuf_append(&s->tmpl, ptr + sep, i - sep) != 0)
                return -1;
            size_t seg = i;
            while (i < len && !template_separator((unsigned char)ptr[i]))
                i++;
            if (i == seg)
                continue;
            size_t a = seg, b = i;
            strip_word(ptr, &a, &b);
            int wild = is_integer(ptr + seg, i - seg);
            if (!wild && a < b) {
                uint32_t w = ltk_parser_intern_token(p, ptr + a, b - a);
                if (w == UINT32_MAX)
                    return -1;
                wild = is_dynamic(s, g, w, max);
            }
            if (wild && is_integer(ptr + seg, i - seg)) {
                a = seg;
                b = i;
            }
            if (!wild) {
                if (ltk_strbuf_append(&s->tmpl, ptr + seg, i - seg) != 0)
                    return -1;
            } else if (ltk_strbuf_append(&s->tmpl, ptr + seg, a - seg) != 0 ||
                       ltk_strbuf_append(&s->tmpl, LTK_WILDCARD, LTK_WILDCARD_LEN) != 0 ||
                       ltk_strbuf_append(&s->tmpl, ptr + b, i - b) != 0) {
                return -1;
            }
        }
    }
    s->offs[g->nfirst] = s->tmpl.len;
    for (uint32_t t = 0; t < g->nfirst; t++) {
        s->slices[t].ptr = s->tmpl.data + s->offs[t];
        s->slices[t].len = s->offs[t + 1] - s->offs[t];
    }
    return 0;
}

/* The message's tokens with ULP's regex matches replaced by "<*>", interned into s->ids. */
static int template_tokens(logtk_parser *p, ulp_state *s, const ltk_parse_line *line)
{
    if (ltk_array_reserve((void **)&s->ids, &s->ids_cap, line->ntokens + 1, sizeof *s->ids))
        return -1;
    for (size_t t = 0; t < line->ntokens; t++) {
        const char *m;
        size_t mlen;
        int rc = ltk_masker_apply(s->tmpl_regex, line->tokens[t].ptr, line->tokens[t].len, &m,
                                    &mlen, &s->err);
        if (rc == LOGTK_ERR_NOMEM)
            return -1;
        uint32_t id = ltk_parser_intern_token(p, m, mlen);
        if (id == UINT32_MAX)
            return -1;
        s->ids[t] = id;
    }
    return 0;
}

/* The line's group key into s->key: its text, the key masks over it, then
 * build_key.  Returns 0 or -1 (out of memory; a mask at its match limit
 * leaves its text as it was). */
static int line_key(ulp_state *s, const ltk_parse_line *line)
{
    if (build_text(s, line) != 0)
        return -1;
    const char *text;
    size_t tlen;
    int rc = ltk_masker_apply(s->key_regex, s->text.data ? s->text.data : "", s->text.len,
                                &text, &tlen, &s->err);
    if (rc == LOGTK_ERR_NOMEM || build_key(s, text, tlen) != 0)
        return -1;
    return 0;
}

static int ulp_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                    uint32_t *template_id)
{
    ulp_state *s = state;
    if (line_key(s, line) != 0)
        return ulp_nomem(p);
    int inserted;
    int64_t k = ltk_hashtab_intern(&s->keys, s->key.data, s->key.len, &inserted);
    if (k < 0)
        return ulp_nomem(p);
    ulp_group *g;
    if (inserted) {
        if (ltk_array_reserve((void **)&s->groups, &s->groups_cap, s->ngroups + 1, sizeof *s->groups))
            return ulp_nomem(p);
        g = &s->groups[s->ngroups++];
        memset(g, 0, sizeof *g);
    } else {
        g = &s->groups[k];
        if (g->nmessages >= ULP_SAMPLE) {
            *template_id = g->template_id;
            return LOGTK_OK;
        }
    }
    /* one of the group's first ten messages: update counts and template */
    if (template_tokens(p, s, line) != 0)
        return ulp_nomem(p);
    if (inserted) {
        g->first = malloc((line->ntokens + 1) * sizeof *g->first);
        if (g->first == NULL)
            return ulp_nomem(p);
        memcpy(g->first, s->ids, line->ntokens * sizeof *g->first);
        g->nfirst = (uint32_t)line->ntokens;
    }
    if (count_words(p, s, g, s->ids, line->ntokens) != 0)
        return ulp_nomem(p);
    /* count_words interned words into the dictionary, but s->ids is intact */
    g->nmessages++;
    if (render_template(p, s, g) != 0)
        return ulp_nomem(p);
    if (inserted) {
        g->template_id = ltk_tmpl_create(p, s->slices, g->nfirst);
        if (g->template_id == 0)
            return LOGTK_ERR_NOMEM;
    } else {
        int rc = ltk_tmpl_set(p, g->template_id, s->slices, g->nfirst);
        if (rc != LOGTK_OK)
            return rc;
    }
    if (g->nmessages >= ULP_SAMPLE) { /* the template is final */
        free(g->counts);
        g->counts = NULL;
        g->ncounts = g->counts_cap = 0;
    }
    *template_id = g->template_id;
    return LOGTK_OK;
}

/* logtk_parser_match(): the group of the line's key, looked up without adding one. */
static int ulp_match(logtk_parser *p, void *state, const ltk_parse_line *line,
                     uint32_t *template_id)
{
    ulp_state *s = state;
    *template_id = 0;
    if (line_key(s, line) != 0)
        return ulp_nomem(p);
    int64_t k = ltk_hashtab_find(&s->keys, s->key.data, s->key.len);
    if (k >= 0)
        *template_id = s->groups[k].template_id;
    return LOGTK_OK;
}

static int ulp_init(logtk_parser *p, void *state)
{
    ulp_state *s = state;
    if (ltk_hashtab_init(&s->keys, 1024) != 0)
        return ulp_nomem(p);
    s->keys_ready = 1;
    if (ltk_masker_new(&s->key_regex) != LOGTK_OK || ltk_masker_new(&s->tmpl_regex) != LOGTK_OK)
        return ulp_nomem(p);
    int rc = ltk_masker_add(s->key_regex, ulp_regex, "", &s->err);
    if (rc == LOGTK_OK)
        rc = ltk_masker_add(s->tmpl_regex, ulp_regex, LTK_WILDCARD, &s->err);
    if (rc != LOGTK_OK)
        return ltk_parser_error(p, rc, "ulp: %s", s->err.msg);
    return LOGTK_OK;
}

static void ulp_destroy(void *state)
{
    ulp_state *s = state;
    ltk_masker_free(s->key_regex);
    ltk_masker_free(s->tmpl_regex);
    if (s->keys_ready)
        ltk_hashtab_free(&s->keys);
    for (size_t i = 0; i < s->ngroups; i++) {
        free(s->groups[i].first);
        free(s->groups[i].counts);
    }
    free(s->groups);
    ltk_strbuf_free(&s->text);
    ltk_strbuf_free(&s->key);
    ltk_strbuf_free(&s->tmpl);
    free(s->ids);
    free(s->slices);
    free(s->offs);
    free(s->word_slot);
}

const ltk_parser_algo ltk_algo_ulp = {
    .name = "ulp",
    .summary = "ULP (ICSME'22): streaming, groups by plain words and word count, "
               "local frequency analysis for variables",
    .online = 1,
    .state_size = sizeof(ulp_state),
    .init = ulp_init,
    .destroy = ulp_destroy,
    .set_param = NULL,
    .feed = ulp_feed,
    .finish = NULL,
    .save = NULL,
    .load = NULL,
    .match = ulp_match,
};
