/*
 * parser_logsig.c - LogSig (Tang, Li and Perng, CIKM 2011), following
 * logparser's LogSig.py.
 *
 * LogSig's insight: messages of one event share their ordered word pairs,
 * so a good partition into k groups maximises how concentrated each
 * group's word pairs are.  Steps:
 *   1. every message becomes its list of ordered word pairs (w[a], w[b]),
 *      a < b, repeats kept;
 *   2. messages go to k groups at random (Python's random.seed(0) and
 *      random.randint(0, k - 1), one draw per message in order, reproduced
 *      exactly below so the start matches the reference);
 *   3. local search: for each message in order, the gain of moving it to
 *      group j is  sum over its pairs r of ((n_jr + 1) / (C_j + 1))^2 -
 *      (n_ir / C_i)^2  (n_xr: occurrences of r in group x, C_x: messages in
 *      group x, i: its current group); it moves to the group with the
 *      largest positive gain (the first such group on ties); repeat passes
 *      until a pass moves nothing;
 *   4. signatures: in each group, the words occurring at least
 *      ceil(C / 2) times are candidates; each message's candidate words in
 *      order form a candidate sequence, and the group's most frequent
 *      sequence (the first seen on ties) is its signature: the template of
 *      every message of the group.  Groups with equal signatures share a
 *      template (the reference's event id is the MD5 of the signature).
 *
 * Why the algebra: the gain of group j only needs, over the message's
 * pairs, S1_j = sum mult * n_jr and S2_j = sum mult * n_jr^2, since
 * sum mult * (n_jr + 1)^2 = S2_j + 2 S1_j + m (m: the message's pair
 * count).  Each pair keeps a posting list of the groups holding it, so a
 * message costs the sizes of its pairs' postings plus k, not pairs * k
 * hash lookups as in the reference.  The reference's factor 3 on the gain
 * does not change which group wins and is left out.
 *
 * Differences from the reference:
 *  - the reference deletes what its regexes match; here the masks write
 *    "<*>" and a token that is exactly "<*>" is dropped, which gives the
 *    same words (a mask inside a longer token leaves that token with "<*>"
 *    where the reference leaves it shorter: the same word identity);
 *  - a group left empty has no signature (the reference's max() over an
 *    empty group would raise);
 *  - the local search stops after max_passes passes (default 100) even
 *    if messages still move; the reference loops until nothing moves;
 *  - the template is the signature alone, as in the reference: words not
 *    in it are simply absent, without "<*>".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

/* Words of a message that form its word pairs, O(words^2) of them: a
 * longer line is its first LOGSIG_MAX_TOKENS - 1 tokens and "<*>" for the
 * rest (see ltk_parse_line_cap), at most 32,385 pairs. */
#define LOGSIG_MAX_TOKENS 256

typedef struct logsig_state {
    long group_num;
    long max_passes;
    long seed;
    uint32_t wildcard;
    uint64_t capped_lines; /* lines cut to LOGSIG_MAX_TOKENS tokens */
    logtk_slice cap_buf[LOGSIG_MAX_TOKENS];
} logsig_state;

/* ------------------------------------------------ Python's random module */

/*
 * MT19937 (Matsumoto and Nishimura 1998), seeded and drawn the way
 * CPython's random module does: seed(n) feeds abs(n) as 32-bit words to
 * init_by_array; randint(0, n - 1) draws getrandbits(bit_length(n)) until
 * the value is below n; getrandbits(b <= 32) is the top b bits of one
 * 32-bit output.
 */
#define MT_N 624
#define MT_M 397

typedef struct py_random {
    uint32_t mt[MT_N];
    int index;
} py_random;

static void mt_init_genrand(py_random *r, uint32_t s)
{
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MT_N;
}

static void py_random_seed(py_random *r, uint64_t seed)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int key_len = key[1] ? 2 : 1;
    mt_init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > key_len ? MT_N : key_len; k > 0; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] +
                   (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
        if (j >= key_len)
            j = 0;
    }
    for (int k = MT_N - 1; k > 0; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) -
                   (uint32_t)i;
        i++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
    r->index = MT_N;
}

static uint32_t py_random_u32(py_random *r)
{
    if (r->index >= MT_N) {
        for (int i = 0; i < MT_N; i++) {
            uint32_t y = (r->mt[i] & 0x80000000u) | (r->mt[(i + 1) % MT_N] & 0x7fffffffu);
            r->mt[i] = r->mt[(i + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        r->index = 0;
    }
    uint32_t y = r->mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* random.randrange(n) for 0 < n < 2^32. */
static uint32_t py_random_below(py_random *r, uint32_t n)
{
    int bits = 0;
    while (bits < 32 && (n >> bits) != 0)
        bits++;
    for (;;) {
        uint32_t v = py_random_u32(r) >> (32 - bits);
        if (v < n)
            return v;
    }
}

/* ------------------------------------------------------------- the parser */

static int logsig_init(logtk_parser *p, void *state)
{
    logsig_state *s = state;
    s->group_num = 20;
    s->max_passes = 100;
    s->seed = 0;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    if (s->wildcard == UINT32_MAX)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "logsig: out of memory");
    return LOGTK_OK;
}

static int logsig_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    logsig_state *s = state;
    if (strcmp(name, "group_num") == 0)
        return ltk_param_int(p, name, value, 1, 1000000L, &s->group_num);
    if (strcmp(name, "max_passes") == 0)
        return ltk_param_int(p, name, value, 1, 1000000L, &s->max_passes);
    if (strcmp(name, "seed") == 0)
        return ltk_param_int(p, name, value, 0, 2147483647L, &s->seed);
    return LOGTK_ERR_NOT_FOUND;
}

static int logsig_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                       uint32_t *template_id)
{
    logsig_state *s = state;
    ltk_parse_line view;
    const ltk_parse_line *l = ltk_parse_line_cap(line, LOGSIG_MAX_TOKENS, &view, s->cap_buf);
    s->capped_lines += l != line;
    *template_id = 0;
    return ltk_parser_store_line(p, l);
}

/* A word pair and how often it occurs in one message. */
typedef struct pair_use {
    uint32_t pair;
    uint32_t mult;
} pair_use;

/* The groups holding a word pair, with their occurrence counts. */
typedef struct posting {
    uint32_t *group;
    uint64_t *count;
    uint32_t n, cap;
} posting;

static int posting_add(posting *ps, uint32_t group, int64_t delta)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        if (ps->group[i] != group)
            continue;
        ps->count[i] = (uint64_t)((int64_t)ps->count[i] + delta);
        if (ps->count[i] == 0) { /* drop it: keep postings short */
            ps->n--;
            ps->group[i] = ps->group[ps->n];
            ps->count[i] = ps->count[ps->n];
        }
        return 0;
    }
    if (ps->n == ps->cap) {
        uint32_t cap = ps->cap ? ps->cap * 2 : 4;
        uint32_t *g = realloc(ps->group, cap * sizeof *g);
        if (g == NULL)
            return -1;
        ps->group = g;
        uint64_t *c = realloc(ps->count, cap * sizeof *c);
        if (c == NULL)
            return -1;
        ps->count = c;
        ps->cap = cap;
    }
    ps->group[ps->n] = group;
    ps->count[ps->n] = (uint64_t)delta;
    ps->n++;
    return 0;
}

/* A distinct word sequence and its pairs: lines with equal words share it. */
typedef struct logsig_event {
    const uint32_t *words; /* into the words array of finish() */
    size_t nwords;
    size_t first_use, nuses; /* its pair_use entries */
    uint64_t npairs;         /* m: pair occurrences */
} logsig_event;

typedef struct logsig_run {
    ltk_hashtab events_by_words, pairs, seqs, templates;
    int ok_events, ok_pairs, ok_seqs, ok_templates;
    uint32_t *words; /* every line's words ("<*>" dropped), event by event */
    size_t nwords_total, words_cap;
    logsig_event *events;
    size_t events_cap;
    uint32_t *event_of_line;
    pair_use *uses;
    size_t nuses, uses_cap;
    size_t *use_of_pair; /* pair id -> its latest uses[] entry, SIZE_MAX = none */
    size_t use_of_pair_cap;
    posting *postings;
    size_t postings_cap;
    uint32_t *group_of_line;
    uint64_t *group_size;
    uint64_t *s1, *s2;
    uint32_t *touched;
    size_t ntouched;
    uint32_t *scratch;
    size_t scratch_cap;
    uint64_t *word_count;
    size_t word_count_cap;
    uint64_t *seq_count;
    size_t seq_count_cap;
    uint32_t *seq_of_line;
    uint32_t *lines_by_group; /* line indices bucketed by group, in line order */
    uint64_t *group_start;
    uint32_t *template_of;
    size_t template_of_cap;
    logtk_slice *slices;
    size_t slices_cap;
} logsig_run;

static void run_free(logsig_run *r)
{
    if (r->postings) /* before the pair table, whose count sizes them */
        for (size_t i = 0; i < r->pairs.count; i++) {
            free(r->postings[i].group);
            free(r->postings[i].count);
        }
    if (r->ok_events)
        ltk_hashtab_free(&r->events_by_words);
    if (r->ok_pairs)
        ltk_hashtab_free(&r->pairs);
    if (r->ok_seqs)
        ltk_hashtab_free(&r->seqs);
    if (r->ok_templates)
        ltk_hashtab_free(&r->templates);
    free(r->words);
    free(r->events);
    free(r->event_of_line);
    free(r->uses);
    free(r->use_of_pair);
    free(r->postings);
    free(r->group_of_line);
    free(r->group_size);
    free(r->s1);
    free(r->s2);
    free(r->touched);
    free(r->scratch);
    free(r->word_count);
    free(r->seq_count);
    free(r->seq_of_line);
    free(r->lines_by_group);
    free(r->group_start);
    free(r->template_of);
    free(r->slices);
}

/* Step 1: distinct word sequences and their pair lists. */
static int build_events(logtk_parser *p, const logsig_state *s, logsig_run *r, uint64_t nlines)
{
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = ltk_parser_stored_line(p, k, &n);
        if (ltk_array_reserve((void **)&r->scratch, &r->scratch_cap, n + 1, sizeof *r->scratch))
            return -1;
        size_t nw = 0;
        for (size_t i = 0; i < n; i++)
            if (t[i] != s->wildcard)
                r->scratch[nw++] = t[i];
        int inserted = 0;
        int64_t e = ltk_hashtab_intern(&r->events_by_words, r->scratch, nw * sizeof *r->scratch,
                                         &inserted);
        if (e < 0)
            return -1;
        r->event_of_line[k] = (uint32_t)e;
        if (!inserted)
            continue;
        if (ltk_array_reserve((void **)&r->events, &r->events_cap, (size_t)e + 1, sizeof *r->events) ||
            ltk_array_reserve((void **)&r->words, &r->words_cap, r->nwords_total + nw + 1, sizeof *r->words))
            return -1;
        logsig_event *ev = &r->events[e];
        memcpy(r->words + r->nwords_total, r->scratch, nw * sizeof *r->words);
        ev->words = NULL; /* set below: r->words may still move */
        ev->nwords = nw;
        ev->first_use = r->nuses;
        ev->npairs = (uint64_t)nw * (nw ? nw - 1 : 0) / 2;
        /* distinct pairs of this event with their multiplicities */
        size_t first = r->nuses;
        for (size_t a = 0; a < nw; a++)
            for (size_t b = a + 1; b < nw; b++) {
                uint32_t key[2] = {r->scratch[a], r->scratch[b]};
                int new_pair = 0;
                int64_t pid = ltk_hashtab_intern(&r->pairs, key, sizeof key, &new_pair);
                if (pid < 0)
                    return -1;
                if (ltk_array_reserve((void **)&r->use_of_pair, &r->use_of_pair_cap, (size_t)pid + 1,
                         sizeof *r->use_of_pair))
                    return -1;
                if (new_pair)
                    r->use_of_pair[pid] = SIZE_MAX;
                size_t u = r->use_of_pair[pid];
                if (u != SIZE_MAX && u >= first) { /* seen in this event already */
                    r->uses[u].mult++;
                    continue;
                }
                if (ltk_array_reserve((void **)&r->uses, &r->uses_cap, r->nuses + 1, sizeof *r->uses))
                    return -1;
                r->use_of_pair[pid] = r->nuses;
                r->uses[r->nuses].pair = (uint32_t)pid;
                r->uses[r->nuses].mult = 1;
                r->nuses++;
            }
        ev->nuses = r->nuses - first;
        r->nwords_total += nw;
    }
    size_t off = 0;
    for (size_t e = 0; e < r->events_by_words.count; e++) {
        r->events[e].words = r->words + off;
        off += r->events[e].nwords;
    }
    return 0;
}

static int move_line(logsig_run *r, const logsig_event *ev, uint32_t from, uint32_t to)
{
    for (size_t u = ev->first_use; u < ev->first_use + ev->nuses; u++) {
        posting *ps = &r->postings[r->uses[u].pair];
        if (posting_add(ps, from, -(int64_t)r->uses[u].mult) ||
            posting_add(ps, to, (int64_t)r->uses[u].mult))
            return -1;
    }
    r->group_size[from]--;
    r->group_size[to]++;
    return 0;
}

/* Step 3, one message: the group with the largest positive gain, or cur. */
static uint32_t best_group(logsig_run *r, const logsig_event *ev, uint32_t cur, uint32_t k)
{
    if (ev->npairs == 0)
        return cur; /* every gain is 0 */
    double ci = (double)r->group_size[cur];
    double stay = 0; /* sum mult * (n_ir / C_i)^2 */
    r->ntouched = 0;
    for (size_t u = ev->first_use; u < ev->first_use + ev->nuses; u++) {
        const posting *ps = &r->postings[r->uses[u].pair];
        uint64_t mult = r->uses[u].mult;
        for (uint32_t i = 0; i < ps->n; i++) {
            uint32_t g = ps->group[i];
            uint64_t c = ps->count[i];
            if (r->s1[g] == 0 && r->s2[g] == 0)
                r->touched[r->ntouched++] = g;
            r->s1[g] += mult * c;
            r->s2[g] += mult * c * c;
            if (g == cur) {
                double f = (double)c / ci;
                stay += (double)mult * f * f;
            }
        }
    }
    double m = (double)ev->npairs, best = 0;
    uint32_t best_j = cur;
    for (uint32_t j = 0; j < k; j++) {
        double cj1 = (double)r->group_size[j] + 1.0;
        double gain = ((double)r->s2[j] + 2.0 * (double)r->s1[j] + m) / (cj1 * cj1) - stay;
        if (gain > best) {
            best = gain;
            best_j = j;
        }
    }
    for (size_t i = 0; i < r->ntouched; i++)
        r->s1[r->touched[i]] = r->s2[r->touched[i]] = 0;
    return best_j;
}

static int logsig_finish(logtk_parser *p, void *state)
{
    logsig_state *s = state;
    uint64_t nlines = ltk_parser_stored_count(p);
    uint32_t k = (uint32_t)s->group_num;
    if (s->capped_lines)
        ltk_parser_note_cap(p, s->capped_lines,
                              "logsig: %llu lines longer than %d tokens read as their first %d "
                              "and one wildcard (LOGSIG_MAX_TOKENS)",
                              (unsigned long long)s->capped_lines, LOGSIG_MAX_TOKENS,
                              LOGSIG_MAX_TOKENS - 1);
    logsig_run run, *r = &run;
    memset(r, 0, sizeof *r);
    int rc = LOGTK_OK;
    r->ok_events = ltk_hashtab_init(&r->events_by_words, 1024) == 0;
    r->ok_pairs = ltk_hashtab_init(&r->pairs, 8192) == 0;
    r->ok_seqs = ltk_hashtab_init(&r->seqs, 1024) == 0;
    r->ok_templates = ltk_hashtab_init(&r->templates, 256) == 0;
    size_t nl = nlines ? (size_t)nlines : 1;
    r->event_of_line = malloc(nl * sizeof *r->event_of_line);
    r->group_of_line = malloc(nl * sizeof *r->group_of_line);
    r->seq_of_line = malloc(nl * sizeof *r->seq_of_line);
    r->lines_by_group = malloc(nl * sizeof *r->lines_by_group);
    r->group_size = calloc(k, sizeof *r->group_size);
    r->group_start = calloc((size_t)k + 1, sizeof *r->group_start);
    r->s1 = calloc(k, sizeof *r->s1);
    r->s2 = calloc(k, sizeof *r->s2);
    r->touched = malloc(k * sizeof *r->touched);
    if (!r->ok_events || !r->ok_pairs || !r->ok_seqs || !r->ok_templates ||
        !r->event_of_line || !r->group_of_line || !r->seq_of_line || !r->lines_by_group ||
        !r->group_size || !r->group_start || !r->s1 || !r->s2 || !r->touched)
        goto oom;
    if (build_events(p, s, r, nlines))
        goto oom;
    r->postings = calloc(r->pairs.count ? r->pairs.count : 1, sizeof *r->postings);
    if (r->postings == NULL)
        goto oom;

    /* step 2: random start, one draw per message */
    py_random rng;
    py_random_seed(&rng, (uint64_t)s->seed);
    for (uint64_t line = 0; line < nlines; line++) {
        uint32_t g = py_random_below(&rng, k);
        r->group_of_line[line] = g;
        r->group_size[g]++;
        const logsig_event *ev = &r->events[r->event_of_line[line]];
        for (size_t u = ev->first_use; u < ev->first_use + ev->nuses; u++)
            if (posting_add(&r->postings[r->uses[u].pair], g, (int64_t)r->uses[u].mult))
                goto oom;
    }

    /* step 3: local search */
    for (long pass = 0; pass < s->max_passes; pass++) {
        int changed = 0;
        for (uint64_t line = 0; line < nlines; line++) {
            const logsig_event *ev = &r->events[r->event_of_line[line]];
            uint32_t cur = r->group_of_line[line];
            uint32_t to = best_group(r, ev, cur, k);
            if (to == cur)
                continue;
            if (move_line(r, ev, cur, to))
                goto oom;
            r->group_of_line[line] = to;
            changed = 1;
        }
        if (!changed)
            break;
    }

    /* step 4: bucket lines by group, in line order */
    for (uint64_t line = 0; line < nlines; line++)
        r->group_start[r->group_of_line[line] + 1]++;
    for (uint32_t g = 0; g < k; g++)
        r->group_start[g + 1] += r->group_start[g];
    {
        uint64_t *fill = r->s1; /* reuse as fill cursors (zero, k entries) */
        for (uint64_t line = 0; line < nlines; line++) {
            uint32_t g = r->group_of_line[line];
            r->lines_by_group[r->group_start[g] + fill[g]++] = (uint32_t)line;
        }
        memset(fill, 0, k * sizeof *fill);
    }
    size_t ndict = 0;
    for (uint64_t line = 0; line < nlines; line++) {
        const logsig_event *ev = &r->events[r->event_of_line[line]];
        for (size_t i = 0; i < ev->nwords; i++)
            if (ev->words[i] + 1 > ndict)
                ndict = ev->words[i] + 1;
    }
    if (ltk_array_reserve((void **)&r->word_count, &r->word_count_cap, ndict + 1, sizeof *r->word_count))
        goto oom;
    memset(r->word_count, 0, (ndict + 1) * sizeof *r->word_count);

    for (uint32_t g = 0; g < k; g++) {
        uint64_t lo = r->group_start[g], hi = r->group_start[g + 1];
        if (lo == hi)
            continue; /* an empty group has no signature */
        uint64_t half = (hi - lo + 1) / 2; /* ceil(C / 2) */
        for (uint64_t x = lo; x < hi; x++) {
            const logsig_event *ev = &r->events[r->event_of_line[r->lines_by_group[x]]];
            for (size_t i = 0; i < ev->nwords; i++)
                r->word_count[ev->words[i]]++;
        }
        /* candidate sequences, keyed by (group, words) */
        for (uint64_t x = lo; x < hi; x++) {
            uint32_t line = r->lines_by_group[x];
            const logsig_event *ev = &r->events[r->event_of_line[line]];
            if (ltk_array_reserve((void **)&r->scratch, &r->scratch_cap, ev->nwords + 2, sizeof *r->scratch))
                goto oom;
            size_t n = 0;
            r->scratch[n++] = g;
            for (size_t i = 0; i < ev->nwords; i++)
                if (r->word_count[ev->words[i]] >= half)
                    r->scratch[n++] = ev->words[i];
            int inserted = 0;
            int64_t q = ltk_hashtab_intern(&r->seqs, r->scratch, n * sizeof *r->scratch,
                                             &inserted);
            if (q < 0 || ltk_array_reserve((void **)&r->seq_count, &r->seq_count_cap, (size_t)q + 1,
                              sizeof *r->seq_count))
                goto oom;
            if (inserted)
                r->seq_count[q] = 0;
            r->seq_count[q]++;
            r->seq_of_line[line] = (uint32_t)q;
        }
        for (uint64_t x = lo; x < hi; x++) {
            const logsig_event *ev = &r->events[r->event_of_line[r->lines_by_group[x]]];
            for (size_t i = 0; i < ev->nwords; i++)
                r->word_count[ev->words[i]] = 0;
        }
        /* the most frequent sequence, the first seen on ties */
        uint32_t best = r->seq_of_line[r->lines_by_group[lo]];
        for (uint64_t x = lo; x < hi; x++) {
            uint32_t q = r->seq_of_line[r->lines_by_group[x]];
            if (r->seq_count[q] > r->seq_count[best])
                best = q;
        }
        /* the key starts with the group id; copy it out (keys need not be aligned) */
        size_t keylen;
        const char *key = ltk_hashtab_key(&r->seqs, best, &keylen);
        size_t nsig = keylen / sizeof(uint32_t) - 1;
        if (ltk_array_reserve((void **)&r->scratch, &r->scratch_cap, nsig + 1, sizeof *r->scratch))
            goto oom;
        memcpy(r->scratch, key + sizeof(uint32_t), nsig * sizeof(uint32_t));
        const uint32_t *sig = r->scratch;
        int inserted = 0;
        int64_t t = ltk_hashtab_intern(&r->templates, sig, nsig * sizeof *sig, &inserted);
        if (t < 0 || ltk_array_reserve((void **)&r->template_of, &r->template_of_cap, (size_t)t + 1,
                          sizeof *r->template_of) ||
            ltk_array_reserve((void **)&r->slices, &r->slices_cap, nsig + 1, sizeof *r->slices))
            goto oom;
        if (inserted) {
            for (size_t i = 0; i < nsig; i++)
                r->slices[i].ptr = ltk_parser_token_text(p, sig[i], &r->slices[i].len);
            r->template_of[t] = ltk_tmpl_create(p, r->slices, nsig);
            if (r->template_of[t] == 0) {
                rc = LOGTK_ERR_NOMEM;
                goto done;
            }
        }
        for (uint64_t x = lo; x < hi; x++) {
            rc = ltk_parser_assign(p, r->lines_by_group[x], r->template_of[t]);
            if (rc != LOGTK_OK)
                goto done;
        }
    }
    goto done;
oom:
    rc = ltk_parser_error(p, LOGTK_ERR_NOMEM, "logsig: out of memory");
done:
    run_free(r);
    return rc;
}

const ltk_parser_algo ltk_algo_logsig = {
    .name = "logsig",
    .summary = "LogSig (CIKM'11): batch, k groups by word-pair local search, signature per "
               "group; params group_num, seed, max_passes",
    .online = 0,
    .state_size = sizeof(logsig_state),
    .init = logsig_init,
    .destroy = NULL,
    .set_param = logsig_set_param,
    .feed = logsig_feed,
    .finish = logsig_finish,
    .save = NULL,
    .load = NULL,
};
