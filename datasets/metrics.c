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
    size_t expected = n < 4096 ? n : 4096;
    ltk_hashtab parsed_ids, true_ids;
    int parsed_init = ltk_hashtab_init(&parsed_ids, expected) == 0;
    int true_init = ltk_hashtab_init(&true_ids, expected) == 0;
    uint32_t *pid = malloc(n * sizeof *pid);
    uint32_t *tid = malloc(n * sizeof *tid);
    parsed_group *groups = NULL;
    size_t *true_sizes = NULL;
    if (!parsed_init || !true_init || !pid || !tid)
        goto done;

    size_t pa_hits = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t p = ltk_hashtab_intern(&parsed_ids, parsed[i].ptr, parsed[i].len, NULL);
        int64_t t = ltk_hashtab_intern(&true_ids, truth[i].ptr, truth[i].len, NULL);
        if (p < 0 || t < 0)
            goto done;
        pid[i] = (uint32_t)p;
        tid[i] = (uint32_t)t;
        if (parsed[i].len == truth[i].len &&
            (parsed[i].len == 0 || memcmp(parsed[i].ptr, truth[i].ptr, parsed[i].len) == 0))
            pa_hits++;
    }

    size_t np = parsed_ids.count, ng = true_ids.count;
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
        const char *ptext = ltk_hashtab_key(&parsed_ids, (uint32_t)p, &plen);
        const char *ttext = ltk_hashtab_key(&true_ids, g->true_id, &tlen);
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
    free(pid);
    free(tid);
    if (parsed_init)
        ltk_hashtab_free(&parsed_ids);
    if (true_init)
        ltk_hashtab_free(&true_ids);
    return rc;
}
