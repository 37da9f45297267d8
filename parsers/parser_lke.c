/*
 * parser_lke.c - LKE: Log Key Extraction (Fu, Lou, Wang and Li, ICDM 2009),
 * following logparser's LKE.py.
 *
 * LKE's insight: messages of one event are close in a word edit distance
 * that weighs early words more (the event's words tend to come first), and
 * within a coarse cluster the variable parts are where the messages
 * disagree.  Steps:
 *   1. words: the masked tokens, without the tokens the masks produced (the
 *      reference deletes what its regexes match);
 *   2. the distance of two messages is an edit distance over words where an
 *      edit at row i costs w(i) = 1 / (1 + e^(i - v)) (v: the mean word
 *      count, floored) and a substitution costs 2 w(i);
 *   3. a 2-means over all pair distances (each pair i <= j, the zero
 *      diagonal included, as the reference's list is) splits them into near
 *      and far; the threshold is the larger of the two clusters' minima,
 *      and messages closer than it are linked; connected components are the
 *      initial groups;
 *   4. each group is split recursively: the longest common subsequence of
 *      its messages (folded message by message, skipping messages whose
 *      words all occur in it) marks words constant or variable; each message
 *      becomes runs of constant / variable words; the run position with the
 *      fewest distinct runs (more than one, fewer than split_threshold)
 *      splits the group by its runs, ties broken by the lowest entropy;
 *   5. each final group's template is the common subsequence of its
 *      messages (a single message is its own template; no common word gives
 *      "<*>").  Messages with equal words share the template last given to
 *      them; equal templates are one (the reference's id is an MD5 of it).
 *
 * The reference's quirks are kept, since its accuracy figures come from
 * them: in a tie of positions, the chosen "position" is the tie's index in
 * the list of tied positions, not the position itself; the entropy divides
 * counts by the number of distinct runs; while collecting a subgroup, a
 * message with too few runs joins it and stops the scan; messages that
 * end in no group keep their own words as the template.
 *
 * Differences from the reference:
 *  - the 2-means starts from the smallest and largest distance; the
 *    reference starts from two random points (unseeded numpy), so its
 *    results vary from run to run;
 *  - members of an initial group are in line order; the reference's DFS
 *    order follows Python set iteration;
 *  - a subgroup as large as its parent (possible through the scan stop
 *    above) is not split again; the reference would recurse forever;
 *  - a message that ends in no group gets its masked tokens as its
 *    template; the reference uses its raw text.
 *
 * Cost: quadratic in distinct messages (the reference is quadratic in all
 * messages): each ordered pair of distinct word sequences that occurs is
 * measured once, and the 2-means runs over those pairs with their counts.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct lke_state {
    long split_threshold;
    uint32_t wildcard;
} lke_state;

static int lke_init(logtk_parser *p, void *state)
{
    lke_state *s = state;
    s->split_threshold = 4; /* the reference's default */
    s->wildcard = logtk_parser_intern_token(p, LOGTK_WILDCARD, LOGTK_WILDCARD_LEN);
    if (s->wildcard == UINT32_MAX)
        return logtk_parser_error(p, LOGTK_ERR_NOMEM, "lke: out of memory");
    return LOGTK_OK;
}

static int lke_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    lke_state *s = state;
    if (strcmp(name, "split_threshold") == 0)
        return logtk_param_int(p, name, value, 1, 1000000000L, &s->split_threshold);
    return LOGTK_ERR_NOT_FOUND;
}

static int lke_feed(logtk_parser *p, void *state, const logtk_parse_line *line,
                    uint32_t *template_id)
{
    (void)state;
    *template_id = 0;
    return logtk_parser_store_line(p, line);
}

typedef struct lke_event {
    size_t off, n; /* words[off .. off + n) */
} lke_event;

typedef struct lke_run {
    logtk_parser *p;
    const lke_state *s;
    uint64_t nlines;
    uint32_t *words;
    size_t nwords, words_cap;
    lke_event *events;
    size_t nevents, events_cap;
    uint32_t *event_of_line;
    double *weight, *prefix; /* w(i) and sum of w(0..i-1), up to the longest message */
    size_t maxlen;
    double *row_prev, *row_cur;
    /* LCS scratch */
    uint32_t *lcs_table;
    size_t lcs_cap;
    uint32_t *common, *common_tmp;
    size_t ncommon, common_cap, common_tmp_cap;
    uint32_t *mark; /* token id -> stamp when in the common part */
    uint32_t stamp;
    size_t ndict;
    /* results */
    uint32_t *template_of_event; /* template id, 0 = none yet */
    logtk_hashtab templates;
    int ok_templates;
    uint32_t *template_ids;
    size_t template_ids_cap;
    logtk_slice *slices;
    size_t slices_cap;
} lke_run;

static const uint32_t *event_words(const lke_run *r, uint32_t e, size_t *n)
{
    *n = r->events[e].n;
    return r->words + r->events[e].off;
}

/* The reference's weighted edit distance of a (rows) and b (columns). */
static double edit_distance(lke_run *r, const uint32_t *a, size_t m, const uint32_t *b, size_t n)
{
    double *prev = r->row_prev, *cur = r->row_cur;
    for (size_t j = 0; j <= n; j++)
        prev[j] = r->prefix[j];
    for (size_t i = 1; i <= m; i++) {
        cur[0] = r->prefix[i];
        double w = r->weight[i - 1];
        for (size_t j = 1; j <= n; j++) {
            if (a[i - 1] == b[j - 1]) {
                cur[j] = prev[j - 1];
            } else {
                double x = prev[j] + w, y = cur[j - 1] + w, z = prev[j - 1] + 2 * w;
                double mn = x < y ? x : y;
                cur[j] = z < mn ? z : mn;
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[n];
}

/* common := LCS(a, b), read back with the reference's tie order. */
static int lcs(lke_run *r, const uint32_t *a, size_t m, const uint32_t *b, size_t n,
               uint32_t **out, size_t *out_cap, size_t *nout)
{
    size_t w = n + 1;
    if (logtk_array_reserve((void **)&r->lcs_table, &r->lcs_cap, (m + 1) * w, sizeof *r->lcs_table) ||
        logtk_array_reserve((void **)out, out_cap, (m < n ? m : n) + 1, sizeof **out))
        return -1;
    uint32_t *L = r->lcs_table;
    for (size_t j = 0; j <= n; j++)
        L[j] = 0;
    for (size_t i = 1; i <= m; i++) {
        L[i * w] = 0;
        for (size_t j = 1; j <= n; j++) {
            if (a[i - 1] == b[j - 1])
                L[i * w + j] = L[(i - 1) * w + j - 1] + 1;
            else {
                uint32_t x = L[i * w + j - 1], y = L[(i - 1) * w + j];
                L[i * w + j] = x > y ? x : y;
            }
        }
    }
    size_t len = L[m * w + n], k = len, i = m, j = n;
    while (i != 0 && j != 0) {
        if (L[i * w + j] == L[(i - 1) * w + j])
            i--;
        else if (L[i * w + j] == L[i * w + j - 1])
            j--;
        else {
            (*out)[--k] = a[i - 1];
            i--;
            j--;
        }
    }
    *nout = len;
    return 0;
}

static void mark_common(lke_run *r)
{
    r->stamp++;
    for (size_t i = 0; i < r->ncommon; i++)
        r->mark[r->common[i]] = r->stamp;
}

/* Folds the group's messages into r->common, as the reference does. */
static int common_part(lke_run *r, const uint32_t *lines, size_t nl)
{
    size_t na, nb;
    const uint32_t *a = event_words(r, r->event_of_line[lines[0]], &na);
    const uint32_t *b = event_words(r, r->event_of_line[lines[1]], &nb);
    if (lcs(r, a, na, b, nb, &r->common, &r->common_cap, &r->ncommon))
        return -1;
    mark_common(r);
    for (size_t k = 2; k < nl; k++) {
        size_t n;
        const uint32_t *t = event_words(r, r->event_of_line[lines[k]], &n);
        size_t i = 0;
        while (i < n && r->mark[t[i]] == r->stamp)
            i++;
        if (i == n)
            continue; /* every word already in the common part */
        size_t nc;
        if (lcs(r, r->common, r->ncommon, t, n, &r->common_tmp, &r->common_tmp_cap, &nc))
            return -1;
        uint32_t *sw = r->common;
        r->common = r->common_tmp;
        r->common_tmp = sw;
        size_t sc = r->common_cap;
        r->common_cap = r->common_tmp_cap;
        r->common_tmp_cap = sc;
        r->ncommon = nc;
        mark_common(r);
        if (nc == 0)
            break;
    }
    return 0;
}

/* The template id of words[0..n), created when new; 0 when out of memory. */
static uint32_t intern_template(lke_run *r, const uint32_t *words, size_t n)
{
    static const uint32_t no_words[1] = {0};
    int inserted = 0;
    int64_t t = logtk_hashtab_intern(&r->templates, n ? words : no_words, n * sizeof *words,
                                     &inserted);
    if (t < 0 || logtk_array_reserve((void **)&r->template_ids, &r->template_ids_cap, (size_t)t + 1,
                      sizeof *r->template_ids) ||
        logtk_array_reserve((void **)&r->slices, &r->slices_cap, n + 1, sizeof *r->slices))
        return 0;
    if (inserted) {
        for (size_t i = 0; i < n; i++)
            r->slices[i].ptr = logtk_parser_token_text(r->p, words[i], &r->slices[i].len);
        r->template_ids[t] = logtk_tmpl_create(r->p, r->slices, n);
    }
    return r->template_ids[t];
}

/* Gives the lines' word sequences a template (the last one given wins). */
static int give_template(lke_run *r, const uint32_t *lines, size_t nl, const uint32_t *words,
                         size_t n)
{
    if (n == 0)
        return LOGTK_OK; /* an empty template text is not recorded by the reference */
    uint32_t id = intern_template(r, words, n);
    if (id == 0)
        return LOGTK_ERR_NOMEM;
    for (size_t i = 0; i < nl; i++)
        r->template_of_event[r->event_of_line[lines[i]]] = id;
    return LOGTK_OK;
}

/* Step 5 for one final group. */
static int extract(lke_run *r, const uint32_t *lines, size_t nl)
{
    if (nl == 0)
        return LOGTK_OK;
    if (nl == 1) {
        size_t n;
        const uint32_t *t = event_words(r, r->event_of_line[lines[0]], &n);
        return give_template(r, lines, nl, t, n);
    }
    if (common_part(r, lines, nl))
        return LOGTK_ERR_NOMEM;
    if (r->ncommon == 0) {
        uint32_t wild = r->s->wildcard;
        return give_template(r, lines, nl, &wild, 1);
    }
    return give_template(r, lines, nl, r->common, r->ncommon);
}

/* Step 4: splits lines[0..nl) recursively, then extracts each leaf. */
static int split_group(lke_run *r, uint32_t *lines, size_t nl)
{
    if (nl <= 1)
        return extract(r, lines, nl);
    if (common_part(r, lines, nl))
        return LOGTK_ERR_NOMEM;
    /* runs of constant / variable words; run ids keyed by (position, words) */
    logtk_hashtab parts;
    if (logtk_hashtab_init(&parts, nl * 2) != 0)
        return LOGTK_ERR_NOMEM;
    int rc = LOGTK_OK;
    size_t *run_off = malloc((nl + 1) * sizeof *run_off);
    uint32_t *run_part = NULL, *part_count = NULL, *part_pos = NULL, *key = NULL;
    uint32_t *sub = NULL;
    size_t run_cap = 0, pc_cap = 0, pp_cap = 0, key_cap = 0, maxruns = 0;
    if (run_off == NULL)
        goto oom;
    run_off[0] = 0;
    for (size_t x = 0; x < nl; x++) {
        size_t n;
        const uint32_t *t = event_words(r, r->event_of_line[lines[x]], &n);
        size_t nruns = 0, start = 0;
        for (size_t j = 1; j <= n; j++) {
            int label_prev = r->mark[t[j - 1]] == r->stamp;
            if (j < n && (r->mark[t[j]] == r->stamp) == label_prev)
                continue;
            /* run t[start .. j) at position nruns */
            if (logtk_array_reserve((void **)&key, &key_cap, j - start + 1, sizeof *key))
                goto oom;
            key[0] = (uint32_t)nruns;
            memcpy(key + 1, t + start, (j - start) * sizeof *key);
            int inserted = 0;
            int64_t id = logtk_hashtab_intern(&parts, key, (j - start + 1) * sizeof *key,
                                              &inserted);
            if (id < 0 ||
                logtk_array_reserve((void **)&part_count, &pc_cap, (size_t)id + 1, sizeof *part_count) ||
                logtk_array_reserve((void **)&part_pos, &pp_cap, (size_t)id + 1, sizeof *part_pos) ||
                logtk_array_reserve((void **)&run_part, &run_cap, run_off[x] + nruns + 1, sizeof *run_part))
                goto oom;
            if (inserted) {
                part_count[id] = 0;
                part_pos[id] = (uint32_t)nruns;
            }
            part_count[id]++;
            run_part[run_off[x] + nruns] = (uint32_t)id;
            nruns++;
            start = j;
        }
        if (n == 0) { /* one empty run */
            if (logtk_array_reserve((void **)&key, &key_cap, 1, sizeof *key))
                goto oom;
            key[0] = 0;
            int inserted = 0;
            int64_t id = logtk_hashtab_intern(&parts, key, sizeof *key, &inserted);
            if (id < 0 ||
                logtk_array_reserve((void **)&part_count, &pc_cap, (size_t)id + 1, sizeof *part_count) ||
                logtk_array_reserve((void **)&part_pos, &pp_cap, (size_t)id + 1, sizeof *part_pos) ||
                logtk_array_reserve((void **)&run_part, &run_cap, run_off[x] + 1, sizeof *run_part))
                goto oom;
            if (inserted) {
                part_count[id] = 0;
                part_pos[id] = 0;
            }
            part_count[id]++;
            run_part[run_off[x]] = (uint32_t)id;
            nruns = 1;
        }
        run_off[x + 1] = run_off[x] + nruns;
        if (nruns > maxruns)
            maxruns = nruns;
    }
    /* distinct runs per position, and the splitting position */
    size_t nparts = parts.count;
    size_t *ndiff = calloc(maxruns + 1, sizeof *ndiff);
    if (ndiff == NULL)
        goto oom;
    for (size_t id = 0; id < nparts; id++)
        ndiff[part_pos[id]]++;
    size_t min_num = SIZE_MAX;
    for (size_t k = 0; k < maxruns; k++)
        if (ndiff[k] != 1 && ndiff[k] < (size_t)r->s->split_threshold && ndiff[k] < min_num)
            min_num = ndiff[k];
    size_t posi = SIZE_MAX;
    if (min_num != SIZE_MAX) {
        size_t nties = 0, last = 0;
        for (size_t k = 0; k < maxruns; k++)
            if (ndiff[k] == min_num) {
                nties++;
                last = k;
            }
        if (nties == 1) {
            posi = last;
        } else {
            /* the reference's tie rule: lowest entropy (counts over the number of
               distinct runs), scanning ties from the last; the result is the
               tie's index, used as a position */
            double best = INFINITY;
            size_t j = nties;
            for (size_t k = maxruns; k-- > 0;) {
                if (ndiff[k] != min_num)
                    continue;
                j--;
                double h = 0;
                for (size_t id = 0; id < nparts; id++)
                    if (part_pos[id] == k) {
                        double f = (double)part_count[id] / (double)ndiff[k];
                        h -= log(f) * f;
                    }
                if (h < best) {
                    best = h;
                    posi = j;
                }
            }
        }
    }
    free(ndiff);
    if (posi == SIZE_MAX || posi >= maxruns) {
        logtk_hashtab_free(&parts);
        free(run_off);
        free(run_part);
        free(part_count);
        free(part_pos);
        free(key);
        return extract(r, lines, nl);
    }
    /* the distinct runs at posi, in first-seen order (part ids are in that order) */
    size_t nsplit = 0;
    for (size_t id = 0; id < nparts; id++)
        nsplit += part_pos[id] == posi;
    if (nsplit <= 1) {
        logtk_hashtab_free(&parts);
        free(run_off);
        free(run_part);
        free(part_count);
        free(part_pos);
        free(key);
        return extract(r, lines, nl);
    }
    sub = malloc(nl * sizeof *sub);
    if (sub == NULL)
        goto oom;
    for (size_t id = 0; id < nparts && rc == LOGTK_OK; id++) {
        if (part_pos[id] != posi)
            continue;
        size_t ns = 0;
        for (size_t x = 0; x < nl; x++) {
            size_t nruns = run_off[x + 1] - run_off[x];
            if (nruns < posi + 1) {
                sub[ns++] = lines[x];
                break; /* the reference's scan stops here */
            }
            if (run_part[run_off[x] + posi] == id)
                sub[ns++] = lines[x];
        }
        /* recursion clobbers the LCS state, but nothing here needs it again */
        if (ns == nl)
            rc = extract(r, sub, ns);
        else
            rc = split_group(r, sub, ns);
    }
    goto done;
oom:
    rc = LOGTK_ERR_NOMEM;
done:
    logtk_hashtab_free(&parts);
    free(run_off);
    free(run_part);
    free(part_count);
    free(part_pos);
    free(key);
    free(sub);
    return rc;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static int lke_finish(logtk_parser *p, void *state)
{
    lke_state *s = state;
    lke_run run, *r = &run;
    memset(r, 0, sizeof *r);
    r->p = p;
    r->s = s;
    r->nlines = logtk_parser_stored_count(p);
    int rc = LOGTK_OK;
    logtk_hashtab events;
    int ok_e = logtk_hashtab_init(&events, 1024) == 0;
    r->ok_templates = logtk_hashtab_init(&r->templates, 256) == 0;
    size_t nl = r->nlines ? (size_t)r->nlines : 1;
    uint32_t *scratch = NULL, *pair_count = NULL, *parent = NULL, *order = NULL;
    uint32_t *first_line = NULL, *group_start = NULL;
    double *dist = NULL;
    unsigned char *assign = NULL;
    size_t scratch_cap = 0;
    r->event_of_line = malloc(nl * sizeof *r->event_of_line);
    if (!ok_e || !r->ok_templates || r->event_of_line == NULL)
        goto oom;

    /* 1: words, distinct sequences, v */
    uint64_t total_words = 0;
    for (uint64_t k = 0; k < r->nlines; k++) {
        size_t n;
        const uint32_t *t = logtk_parser_stored_line(p, k, &n);
        if (logtk_array_reserve((void **)&scratch, &scratch_cap, n + 1, sizeof *scratch))
            goto oom;
        size_t nw = 0;
        for (size_t i = 0; i < n; i++) {
            if (t[i] == s->wildcard)
                continue;
            scratch[nw++] = t[i];
            if (t[i] + 1 > r->ndict)
                r->ndict = t[i] + 1;
        }
        total_words += nw;
        if (nw > r->maxlen)
            r->maxlen = nw;
        int inserted = 0;
        int64_t e = logtk_hashtab_intern(&events, scratch, nw * sizeof *scratch, &inserted);
        if (e < 0)
            goto oom;
        r->event_of_line[k] = (uint32_t)e;
        if (!inserted)
            continue;
        if (logtk_array_reserve((void **)&r->events, &r->events_cap, (size_t)e + 1, sizeof *r->events) ||
            logtk_array_reserve((void **)&r->words, &r->words_cap, r->nwords + nw + 1, sizeof *r->words))
            goto oom;
        memcpy(r->words + r->nwords, scratch, nw * sizeof *scratch);
        r->events[e].off = r->nwords;
        r->events[e].n = nw;
        r->nwords += nw;
        r->nevents = (size_t)e + 1;
    }
    if (r->nlines == 0)
        goto done;
    double v = floor((double)total_words / (double)r->nlines);
    size_t L = r->maxlen + 2;
    r->weight = malloc(L * sizeof *r->weight);
    r->prefix = malloc(L * sizeof *r->prefix);
    r->row_prev = malloc(L * sizeof *r->row_prev);
    r->row_cur = malloc(L * sizeof *r->row_cur);
    r->mark = calloc(r->ndict + 1, sizeof *r->mark);
    r->template_of_event = calloc(r->nevents + 1, sizeof *r->template_of_event);
    if (!r->weight || !r->prefix || !r->row_prev || !r->row_cur || !r->mark ||
        !r->template_of_event)
        goto oom;
    double acc = 0;
    for (size_t i = 0; i < L; i++) {
        r->weight[i] = 1.0 / (exp((double)i - v) + 1.0);
        r->prefix[i] = acc;
        acc += r->weight[i];
    }

    /* 2: distances of the ordered event pairs that occur (earlier line first) */
    size_t E = r->nevents;
    if (E > 0 && E > SIZE_MAX / E / sizeof(double))
        goto oom;
    pair_count = calloc(E * E, sizeof *pair_count);
    dist = malloc(E * E * sizeof *dist);
    assign = calloc(E * E, 1);
    if (pair_count == NULL || dist == NULL || assign == NULL)
        goto oom;
    for (uint64_t i = 0; i < r->nlines; i++) {
        uint32_t a = r->event_of_line[i];
        pair_count[(size_t)a * E + a]++; /* the diagonal pair (i, i) */
        for (uint64_t j = i + 1; j < r->nlines; j++)
            pair_count[(size_t)a * E + r->event_of_line[j]]++;
    }
    double dmin = INFINITY, dmax = -INFINITY;
    for (size_t a = 0; a < E; a++)
        for (size_t b = 0; b < E; b++) {
            size_t ab = a * E + b;
            if (pair_count[ab] == 0)
                continue;
            if (a == b) {
                dist[ab] = 0;
            } else {
                size_t na, nb;
                const uint32_t *wa = event_words(r, (uint32_t)a, &na);
                const uint32_t *wb = event_words(r, (uint32_t)b, &nb);
                dist[ab] = edit_distance(r, wa, na, wb, nb);
            }
            if (dist[ab] < dmin)
                dmin = dist[ab];
            if (dist[ab] > dmax)
                dmax = dist[ab];
        }

    /* 3: 2-means over the pair distances, weighted by their counts */
    double c[2] = {dmin, dmax};
    double cmin[2] = {dmin, dmin};
    for (int changed = 1, iter = 0; changed && iter < 1000; iter++) {
        changed = 0;
        double sum[2] = {0, 0}, cnt[2] = {0, 0}, mn[2] = {INFINITY, INFINITY};
        for (size_t ab = 0; ab < E * E; ab++) {
            if (pair_count[ab] == 0)
                continue;
            double x = dist[ab];
            unsigned char k = fabs(x - c[0]) < fabs(x - c[1]) ? 0 : 1;
            if (assign[ab] != k)
                changed = 1;
            assign[ab] = k;
            sum[k] += x * pair_count[ab];
            cnt[k] += pair_count[ab];
            if (x < mn[k])
                mn[k] = x;
        }
        for (int k = 0; k < 2; k++)
            if (cnt[k] > 0) {
                c[k] = sum[k] / cnt[k];
                cmin[k] = mn[k];
            }
    }
    double threshold = cmin[0] > cmin[1] ? cmin[0] : cmin[1];

    /* connected components of "closer than the threshold", over lines */
    parent = malloc(nl * sizeof *parent);
    first_line = malloc((E + 1) * sizeof *first_line);
    if (parent == NULL || first_line == NULL)
        goto oom;
    for (size_t e = 0; e <= E; e++)
        first_line[e] = UINT32_MAX;
    for (uint64_t i = 0; i < r->nlines; i++) {
        parent[i] = (uint32_t)i;
        uint32_t e = r->event_of_line[i];
        if (first_line[e] == UINT32_MAX)
            first_line[e] = (uint32_t)i;
        else if (0 < threshold)
            uf_union(parent, first_line[e], (uint32_t)i);
    }
    for (size_t a = 0; a < E; a++)
        for (size_t b = 0; b < E; b++)
            if (a != b && pair_count[a * E + b] && dist[a * E + b] < threshold)
                uf_union(parent, first_line[a], first_line[b]);

    /* groups in order of their first line, members in line order */
    order = malloc(nl * sizeof *order);
    group_start = calloc(nl + 1, sizeof *group_start);
    if (order == NULL || group_start == NULL)
        goto oom;
    for (uint64_t i = 0; i < r->nlines; i++)
        group_start[uf_find(parent, (uint32_t)i) + 1]++;
    for (size_t g = 0; g < nl; g++)
        group_start[g + 1] += group_start[g];
    for (uint64_t i = 0; i < r->nlines; i++) {
        uint32_t g = uf_find(parent, (uint32_t)i);
        order[group_start[g]++] = (uint32_t)i;
    }
    /* group_start[g] now ends group g; roots are their smallest line */
    for (uint64_t i = 0, from = 0; i < r->nlines; i++) {
        if (parent[i] != i)
            continue;
        size_t to = group_start[i];
        rc = split_group(r, order + from, to - from);
        if (rc != LOGTK_OK)
            goto fail;
        from = to;
    }

    /* every line: the template its words got, else its own tokens */
    for (uint64_t k = 0; k < r->nlines; k++) {
        uint32_t t = r->template_of_event[r->event_of_line[k]];
        if (t == 0) {
            size_t n;
            const uint32_t *toks = logtk_parser_stored_line(p, k, &n);
            t = intern_template(r, toks, n);
        }
        if (t == 0)
            goto oom;
        rc = logtk_parser_assign(p, k, t);
        if (rc != LOGTK_OK)
            goto done;
    }
    goto done;
fail:
    if (rc == LOGTK_ERR_NOMEM)
        goto oom;
    goto done;
oom:
    rc = logtk_parser_error(p, LOGTK_ERR_NOMEM, "lke: out of memory");
done:
    if (ok_e)
        logtk_hashtab_free(&events);
    if (r->ok_templates)
        logtk_hashtab_free(&r->templates);
    free(scratch);
    free(pair_count);
    free(dist);
    free(assign);
    free(parent);
    free(first_line);
    free(order);
    free(group_start);
    free(r->words);
    free(r->events);
    free(r->event_of_line);
    free(r->weight);
    free(r->prefix);
    free(r->row_prev);
    free(r->row_cur);
    free(r->lcs_table);
    free(r->common);
    free(r->common_tmp);
    free(r->mark);
    free(r->template_of_event);
    free(r->template_ids);
    free(r->slices);
    return rc;
}

const logtk_parser_algo logtk_algo_lke = {
    .name = "lke",
    .summary = "LKE (ICDM'09): batch, weighted edit distance clustering, then splitting by "
               "variable runs; param split_threshold",
    .online = 0,
    .state_size = sizeof(lke_state),
    .init = lke_init,
    .destroy = NULL,
    .set_param = lke_set_param,
    .feed = lke_feed,
    .finish = lke_finish,
    .save = NULL,
    .load = NULL,
};
