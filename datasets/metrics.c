/*
 * metrics.c - parsing accuracy: GA, PA, FGA and FTA as Loghub-2.0 defines them.
 *
 * Both sides are grouped by template string: every distinct parsed string is
 * a parsed group, every distinct true string a true group.  Interning the
 * strings into two hash tables turns each message into a pair of dense ids
 * (parsed id, true id) in one pass.  Then:
 *
 *   A parsed group is "grouping-correct" when all its messages share one true
 *   id and it has as many messages as that true group: its message set equals
 *   the true group's set.  (Two different parsed groups can never both equal
 *   the same true group, because parsed groups are disjoint.)
 *
 *   GA  = messages in grouping-correct parsed groups / N.
 *   PA  = messages whose parsed string equals their true string / N.
 *   FGA = F1 of PGA = correct groups / P and RGA = correct groups / G.
 *   FTA = the same F1, counting only grouping-correct groups whose string
 *         also equals the true group's string.
 *
 * So a parser that groups exactly right but writes a template differently
 * gets full GA and FGA and nothing in PA and FTA for those messages.  Cost:
 * O(N) hash lookups plus O(P) per-group checks; memory is two ids per
 * message and a few counters per group.
 *
 * logtk_evaluate_errors() lists what those numbers count: the messages are
 * sorted by (true id, parsed id), each run of one pair is one candidate row,
 * and a pair is an error unless both its groups meet only each other (then
 * it is a correct group, an error of text only when the strings differ).
 * Sorting costs O(N log N), once per evaluation, never per line parsed.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "logtk.h"

/* Per parsed group: the true id of its first message, whether its messages
   disagree on the true id, and its size. */
typedef struct parsed_group {
    uint32_t true_id;
    uint32_t mixed;
    size_t size;
} parsed_group;

static double f1_score(size_t correct, size_t parsed, size_t truth)
{
    if (correct == 0 || parsed == 0 || truth == 0)
        return 0.0;
    double precision = (double)correct / (double)parsed;
    double recall = (double)correct / (double)truth;
    return 2.0 * precision * recall / (precision + recall);
}

/*
 * Both sides of n messages interned: pid[i] and tid[i] are message i's
 * parsed and true ids, dense and numbered in the order of their first
 * message; pa_hits counts the messages whose two strings are equal.
 */
typedef struct interned {
    ltk_hashtab parsed_ids, true_ids;
    int parsed_init, true_init;
    uint32_t *pid, *tid;
    size_t pa_hits;
} interned;

/* Fills `in` (freed by interned_free() whatever this returns): 0, or -1 when out of memory. */
static int intern_messages(interned *in, size_t n, const logtk_slice *parsed,
                           const logtk_slice *truth)
{
    memset(in, 0, sizeof *in);
    size_t expected = n < 4096 ? n : 4096;
    in->parsed_init = ltk_hashtab_init(&in->parsed_ids, expected) == 0;
    in->true_init = ltk_hashtab_init(&in->true_ids, expected) == 0;
    in->pid = malloc(n * sizeof *in->pid);
    in->tid = malloc(n * sizeof *in->tid);
    if (!in->parsed_init || !in->true_init || !in->pid || !in->tid)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t p = ltk_hashtab_intern(&in->parsed_ids, parsed[i].ptr, parsed[i].len, NULL);
        int64_t t = ltk_hashtab_intern(&in->true_ids, truth[i].ptr, truth[i].len, NULL);
        if (p < 0 || t < 0)
            return -1;
        in->pid[i] = (uint32_t)p;
        in->tid[i] = (uint32_t)t;
        if (parsed[i].len == truth[i].len &&
            (parsed[i].len == 0 || memcmp(parsed[i].ptr, truth[i].ptr, parsed[i].len) == 0))
            in->pa_hits++;
    }
    return 0;
}

static void interned_free(interned *in)
{
    free(in->pid);
    free(in->tid);
    if (in->parsed_init)
        ltk_hashtab_free(&in->parsed_ids);
    if (in->true_init)
        ltk_hashtab_free(&in->true_ids);
}

int logtk_evaluate(size_t n, const logtk_slice *parsed, const logtk_slice *truth,
                   logtk_parse_metrics *out)
{
    if (!out)
        return LOGTK_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (n == 0 || !parsed || !truth)
        return LOGTK_ERR_INVALID;
    if (n > UINT32_MAX)
        return LOGTK_ERR_INVALID;

    int rc = LOGTK_ERR_NOMEM;
    interned in;
    parsed_group *groups = NULL;
    size_t *true_sizes = NULL;
    if (intern_messages(&in, n, parsed, truth) != 0)
        goto done;
    const uint32_t *pid = in.pid, *tid = in.tid;
    const ltk_hashtab *parsed_ids = &in.parsed_ids, *true_ids = &in.true_ids;
    const size_t pa_hits = in.pa_hits;

    size_t np = parsed_ids->count, ng = true_ids->count;
    groups = calloc(np, sizeof *groups);
    true_sizes = calloc(ng, sizeof *true_sizes);
    if (!groups || !true_sizes)
        goto done;
    for (size_t i = 0; i < n; i++) {
        parsed_group *g = &groups[pid[i]];
        if (g->size == 0)
            g->true_id = tid[i];
        else if (g->true_id != tid[i])
            g->mixed = 1;
        g->size++;
        true_sizes[tid[i]]++;
    }

    size_t ga_hits = 0, groups_correct = 0, templates_correct = 0;
    for (size_t p = 0; p < np; p++) {
        const parsed_group *g = &groups[p];
        if (g->mixed || g->size != true_sizes[g->true_id])
            continue;
        ga_hits += g->size;
        groups_correct++;
        size_t plen, tlen;
        const char *ptext = ltk_hashtab_key(parsed_ids, (uint32_t)p, &plen);
        const char *ttext = ltk_hashtab_key(true_ids, g->true_id, &tlen);
        if (plen == tlen && memcmp(ptext, ttext, plen) == 0)
            templates_correct++;
    }

    out->messages = n;
    out->parsed_templates = np;
    out->true_templates = ng;
    out->ga = (double)ga_hits / (double)n;
    out->pa = (double)pa_hits / (double)n;
    out->fga = f1_score(groups_correct, np, ng);
    out->fta = f1_score(templates_correct, np, ng);
    rc = LOGTK_OK;

done:
    free(groups);
    free(true_sizes);
    interned_free(&in);
    return rc;
}

/* One message's pair of ids; after the first sort, one run of equal pairs. */
typedef struct message_pair {
    uint32_t true_id;
    uint32_t parsed_id;
    size_t index; /* the message; of a run, its first message */
    size_t count; /* of a run: its messages */
} message_pair;

/* By true id, parsed id, then message. */
static int compare_pairs(const void *a, const void *b)
{
    const message_pair *x = a, *y = b;
    if (x->true_id != y->true_id)
        return x->true_id < y->true_id ? -1 : 1;
    if (x->parsed_id != y->parsed_id)
        return x->parsed_id < y->parsed_id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Runs by true id, then first message (distinct: runs are disjoint). */
static int compare_runs(const void *a, const void *b)
{
    const message_pair *x = a, *y = b;
    if (x->true_id != y->true_id)
        return x->true_id < y->true_id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int logtk_evaluate_errors(size_t n, const logtk_slice *parsed, const logtk_slice *truth,
                          logtk_group_error_fn fn, void *arg)
{
    if (n == 0 || !parsed || !truth || !fn || n > UINT32_MAX)
        return LOGTK_ERR_INVALID;

    int rc = LOGTK_ERR_NOMEM;
    interned in;
    message_pair *pairs = malloc(n * sizeof *pairs);
    uint32_t *parsed_spread = NULL, *true_spread = NULL; /* distinct ids met on the other side */
    if (intern_messages(&in, n, parsed, truth) != 0 || !pairs)
        goto done;
    parsed_spread = calloc(in.parsed_ids.count, sizeof *parsed_spread);
    true_spread = calloc(in.true_ids.count, sizeof *true_spread);
    if (!parsed_spread || !true_spread)
        goto done;
    for (size_t i = 0; i < n; i++)
        pairs[i] = (message_pair){in.tid[i], in.pid[i], i, 1};
    qsort(pairs, n, sizeof *pairs, compare_pairs);
    /* each run of equal pairs becomes one entry, with its first message and size */
    size_t nruns = 0;
    for (size_t i = 0; i < n; i++) {
        if (nruns > 0 && pairs[nruns - 1].true_id == pairs[i].true_id &&
            pairs[nruns - 1].parsed_id == pairs[i].parsed_id) {
            pairs[nruns - 1].count++;
            continue;
        }
        pairs[nruns++] = pairs[i]; /* (sorted by message: this is the run's first) */
        true_spread[pairs[i].true_id]++;
        parsed_spread[pairs[i].parsed_id]++;
    }
    /* true ids number the true groups by their first message (interning order) */
    qsort(pairs, nruns, sizeof *pairs, compare_runs);
    rc = LOGTK_OK;
    for (size_t r = 0; r < nruns && rc == LOGTK_OK; r++) {
        const message_pair *run = &pairs[r];
        unsigned kind = (true_spread[run->true_id] > 1 ? LOGTK_GROUP_SPLIT : 0u) |
                        (parsed_spread[run->parsed_id] > 1 ? LOGTK_GROUP_MERGED : 0u);
        const logtk_slice *t = &truth[run->index], *p = &parsed[run->index];
        if (kind == 0 && (t->len != p->len || (t->len && memcmp(t->ptr, p->ptr, t->len) != 0)))
            kind = LOGTK_GROUP_TEXT;
        if (kind == 0)
            continue;
        logtk_group_error e;
        e.truth = *t;
        e.parsed = *p;
        e.messages = run->count;
        e.first = run->index;
        e.kind = kind;
        rc = fn(arg, &e);
    }

done:
    free(parsed_spread);
    free(true_spread);
    free(pairs);
    interned_free(&in);
    return rc;
}
