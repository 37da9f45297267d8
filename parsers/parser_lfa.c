/*
 * parser_lfa.c - LFA: Log File Abstraction (Nagappan and Vouk, MSR 2010),
 * following logparser's LFA.py.
 *
 * LFA's insight: within a message, the words of the event type occur far
 * more often than its parameters, so the frequencies of a message's words
 * fall into two groups separated by the largest gap.  Two passes:
 *   1. count every (position, word) pair over all messages;
 *   2. per message, sort the counts of its words (masked "<*>" words left
 *      out), find the largest gap between neighbours (the first one when
 *      several gaps tie, as Python's max() does) and call its lower end the
 *      split value; every word whose count is above the split value is
 *      constant, every other word becomes "<*>".  A message with fewer than
 *      two unmasked words, or whose words all have the same count, stays
 *      as it is.
 * Messages with the same resulting token sequence share a template.
 *
 * Why counts per position: a word's role depends on where it stands; the
 * paper counts word frequencies per position in the message too.
 *
 * Differences from the reference: the reference keys templates by the
 * space-joined text, here by the token sequence, which is the same thing
 * for tokens that contain no whitespace.  The paper clusters the frequency
 * values (picking the gap among the sorted distinct frequencies); the
 * reference uses all counts including repeats, and so does this file.
 *
 * Cost: one hash lookup per token in each pass, no allocation per line.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct lfa_state {
    uint32_t wildcard; /* interned id of "<*>" */
} lfa_state;

static int lfa_init(logtk_parser *p, void *state)
{
    lfa_state *s = state;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    if (s->wildcard == UINT32_MAX)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "lfa: out of memory");
    return LOGTK_OK;
}

static int lfa_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                    uint32_t *template_id)
{
    (void)state;
    *template_id = 0;
    return ltk_parser_store_line(p, line);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int lfa_finish(logtk_parser *p, void *state)
{
    lfa_state *s = state;
    uint64_t nlines = ltk_parser_stored_count(p);
    ltk_hashtab pairs;
    uint64_t *pair_count = NULL; /* (position, token) pair id -> occurrences */
    uint32_t *pair_of_token = NULL; /* pair id of each stored token, line by line */
    uint64_t *line_counts = NULL, *sorted = NULL;
    uint32_t *tmpl = NULL;
    size_t pair_cap = 0, pot_cap = 0, lc_cap = 0, sorted_cap = 0, tmpl_cap = 0;
    int rc = LOGTK_OK;
    int ok_p = ltk_hashtab_init(&pairs, 4096) == 0;
    if (!ok_p)
        goto oom;

    /* pass 1: count (position, word) pairs; remember each token's pair id */
    size_t ntok_total = 0;
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        if (ltk_array_reserve((void **)&pair_of_token, &pot_cap, ntok_total + n + 1, sizeof *pair_of_token))
            goto oom;
        for (size_t i = 0; i < n; i++) {
            uint32_t key[2] = {(uint32_t)i, t[i]};
            int inserted = 0;
            int64_t id = ltk_hashtab_intern(&pairs, key, sizeof key, &inserted);
            if (id < 0 || ltk_array_reserve((void **)&pair_count, &pair_cap, (size_t)id + 1,
                               sizeof *pair_count))
                goto oom;
            if (inserted)
                pair_count[id] = 0;
            pair_count[id]++;
            pair_of_token[ntok_total + i] = (uint32_t)id;
        }
        ntok_total += n;
    }

    /* pass 2: split each message's counts at the largest gap */
    size_t off = 0;
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        if (ltk_array_reserve((void **)&line_counts, &lc_cap, n + 1, sizeof *line_counts) ||
            ltk_array_reserve((void **)&sorted, &sorted_cap, n + 1, sizeof *sorted) ||
            ltk_array_reserve((void **)&tmpl, &tmpl_cap, n + 1, sizeof *tmpl))
            goto oom;
        size_t nwords = 0;
        for (size_t i = 0; i < n; i++) {
            line_counts[i] = pair_count[pair_of_token[off + i]];
            tmpl[i] = t[i];
            if (t[i] != s->wildcard)
                sorted[nwords++] = line_counts[i];
        }
        off += n;
        if (nwords > 1) {
            qsort(sorted, nwords, sizeof *sorted, compare_u64);
            if (sorted[0] != sorted[nwords - 1]) {
                uint64_t best_gap = 0, split_value = sorted[0];
                for (size_t i = 0; i + 1 < nwords; i++) {
                    uint64_t gap = sorted[i + 1] - sorted[i];
                    if (gap > best_gap) { /* strict: the first of equal gaps wins */
                        best_gap = gap;
                        split_value = sorted[i];
                    }
                }
                for (size_t i = 0; i < n; i++)
                    if (line_counts[i] <= split_value)
                        tmpl[i] = s->wildcard;
            }
        }
        rc = ltk_parser_assign_token_ids(p, k, tmpl, n);
        if (rc != LOGTK_OK)
            goto done;
    }
    goto done;
oom:
    rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "lfa: out of memory");
done:
    if (ok_p)
        ltk_hashtab_free(&pairs);
    free(pair_count);
    free(pair_of_token);
    free(line_counts);
    free(sorted);
    free(tmpl);
    return rc;
}

const ltk_parser_algo ltk_algo_lfa = {
    .name = "lfa",
    .summary = "LFA (MSR'10): batch, splits each message's word frequencies at the largest gap",
    .online = 0,
    .state_size = sizeof(lfa_state),
    .init = lfa_init,
    .destroy = NULL,
    .set_param = NULL,
    .feed = lfa_feed,
    .finish = lfa_finish,
    .save = NULL,
    .load = NULL,
};
