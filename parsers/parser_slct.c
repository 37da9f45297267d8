/*
 * parser_slct.c - SLCT, the Simple Logfile Clustering Tool (Vaarandi, "A
 * Data Clustering Algorithm for Mining Patterns from Event Logs", IPOM
 * 2003), after logparser's SLCT wrapper (slct 0.05 run with an absolute
 * support, then every log matched against the printed patterns).
 *
 * Idea: a word is identified by its position in the line and its text.
 *   pass 1: (position, word) pairs occurring in at least `support` lines
 *           are frequent;
 *   pass 2: a line's cluster candidate is the set of its frequent pairs;
 *           candidates with at least `support` lines are clusters, whose
 *           pattern keeps the frequent words at their positions and "<*>"
 *           elsewhere (up to the last frequent position, plus one trailing
 *           "<*>" when some member line is longer).
 * The wrapper then matches every log against the patterns; a log that
 * matches none keeps its own content as template.  Here a line whose own
 * candidate is a cluster belongs to it; any other line joins the cluster
 * with the most constant words all of which it carries at the same
 * positions, and otherwise is an outlier grouped with identical lines.
 *
 * Differences from the reference, on purpose: the reference runs slct with
 * -j (join candidates into clusters that generalise them) and -r (refine
 * wildcards), and matches logs with regular expressions built from the
 * patterns, where "*" may span several words; here the position-wise match
 * above stands in for both, and an outlier's template is its masked tokens
 * rather than its raw content.
 *
 * Cost: two passes over interned token ids with one hash lookup per token
 * and per line; outliers are matched against the clusters (few).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "growarray.h"
#include "parser_impl.h"

typedef struct slct_state {
    long support;
} slct_state;

typedef struct slct_cluster {
    uint32_t *pairs; /* frequent pair ids, in position order */
    uint32_t npairs;
    uint64_t count;
    uint32_t last;   /* 1 + last frequent position */
    uint32_t longest; /* longest member line */
    uint32_t template_id;
    size_t text_len; /* length of the printed pattern */
} slct_cluster;

static int slct_init(logtk_parser *p, void *state)
{
    (void)p;
    slct_state *s = state;
    s->support = 10;
    return LOGTK_OK;
}

static void slct_destroy(void *state)
{
    (void)state;
}

static int slct_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    slct_state *s = state;
    if (strcmp(name, "support") == 0)
        return logtk_param_int(p, name, value, 1, 1L << 40, &s->support);
    return LOGTK_ERR_NOT_FOUND;
}

static int slct_feed(logtk_parser *p, void *state, const logtk_parse_line *line,
                     uint32_t *template_id)
{
    (void)state;
    *template_id = 0;
    return logtk_parser_store_line(p, line);
}

/* Key of a (position, token) pair. */
static uint64_t pair_key(uint32_t pos, uint32_t tok)
{
    return ((uint64_t)pos << 32) | tok;
}

static int slct_finish(logtk_parser *p, void *state)
{
    slct_state *s = state;
    uint64_t nlines = logtk_parser_stored_count(p);
    uint64_t support = (uint64_t)s->support;
    logtk_hashtab pairs, cands, outliers;
    int pairs_ok = logtk_hashtab_init(&pairs, 4096) == 0;
    int cands_ok = logtk_hashtab_init(&cands, 1024) == 0;
    int outliers_ok = logtk_hashtab_init(&outliers, 1024) == 0;
    uint64_t *pair_count = NULL;
    size_t pair_cap = 0;
    uint32_t *key = NULL;
    size_t key_cap = 0;
    uint32_t *cand_of_line = malloc((nlines + 1) * sizeof *cand_of_line);
    slct_cluster *cl = NULL;
    size_t ncl = 0, cl_cap = 0;
    uint32_t *outlier_ids = NULL;
    size_t nout = 0, out_cap = 0;
    logtk_slice *slices = NULL;
    size_t slices_cap = 0;
    int rc = LOGTK_ERR_NOMEM;
    if (!pairs_ok || !cands_ok || !outliers_ok || !cand_of_line)
        goto done;

    /* pass 1: count (position, word) pairs; a pair occurs once per line */
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = logtk_parser_stored_line(p, k, &n);
        for (size_t i = 0; i < n; i++) {
            uint64_t key64 = pair_key((uint32_t)i, t[i]);
            int ins;
            int64_t id = logtk_hashtab_intern(&pairs, &key64, sizeof key64, &ins);
            if (id < 0 || logtk_array_reserve((void **)&pair_count, &pair_cap, (size_t)id + 1, sizeof *pair_count))
                goto done;
            if (ins)
                pair_count[id] = 0;
            pair_count[id]++;
        }
    }
    /* pass 2: candidates */
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = logtk_parser_stored_line(p, k, &n);
        if (logtk_array_reserve((void **)&key, &key_cap, n + 1, sizeof *key))
            goto done;
        uint32_t nk = 0, last = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t key64 = pair_key((uint32_t)i, t[i]);
            int64_t id = logtk_hashtab_find(&pairs, &key64, sizeof key64);
            if (id >= 0 && pair_count[id] >= support) {
                key[nk++] = (uint32_t)id;
                last = (uint32_t)i + 1;
            }
        }
        if (nk == 0) {
            cand_of_line[k] = UINT32_MAX;
            continue;
        }
        int ins;
        int64_t c = logtk_hashtab_intern(&cands, key, (size_t)nk * sizeof *key, &ins);
        if (c < 0)
            goto done;
        if (ins) {
            if (logtk_array_reserve((void **)&cl, &cl_cap, ncl + 1, sizeof *cl))
                goto done;
            slct_cluster *x = &cl[ncl++];
            memset(x, 0, sizeof *x);
            x->pairs = malloc((size_t)nk * sizeof *x->pairs);
            if (x->pairs == NULL)
                goto done;
            memcpy(x->pairs, key, (size_t)nk * sizeof *key);
            x->npairs = nk;
            x->last = last;
        }
        cl[c].count++;
        if (n > cl[c].longest)
            cl[c].longest = (uint32_t)n;
        cand_of_line[k] = (uint32_t)c;
    }
    /* pattern length, the wrapper's matching order */
    for (size_t j = 0; j < ncl; j++) {
        cl[j].text_len = 2 * cl[j].last;
        for (uint32_t i = 0; i < cl[j].npairs; i++) {
            size_t klen, len;
            uint64_t v;
            memcpy(&v, logtk_hashtab_key(&pairs, cl[j].pairs[i], &klen), sizeof v);
            logtk_parser_token_text(p, (uint32_t)v, &len);
            cl[j].text_len += len - 1;
        }
    }
    /* every line: the longest pattern it fits (the wrapper re-matches all logs) */
    for (uint64_t k = 0; k < nlines; k++) {
        size_t n;
        const uint32_t *t = logtk_parser_stored_line(p, k, &n);
        long best = -1;
        for (size_t j = 0; j < ncl; j++) {
            if (cl[j].count < support || cl[j].last > n ||
                (best >= 0 && cl[j].text_len <= cl[best].text_len))
                continue;
            uint32_t i = 0;
            for (; i < cl[j].npairs; i++) {
                size_t klen;
                const uint64_t *pk =
                    (const uint64_t *)(const void *)logtk_hashtab_key(&pairs, cl[j].pairs[i], &klen);
                uint64_t v;
                memcpy(&v, pk, sizeof v);
                if (t[(uint32_t)(v >> 32)] != (uint32_t)v)
                    break;
            }
            if (i == cl[j].npairs)
                best = (long)j;
        }
        cand_of_line[k] = best >= 0 ? (uint32_t)best : UINT32_MAX - 1;
        if (best >= 0 && n > cl[best].longest)
            cl[best].longest = (uint32_t)n;
    }
    /* templates and assignments */
    for (uint64_t k = 0; k < nlines; k++) {
        uint32_t c = cand_of_line[k], tid;
        size_t n;
        const uint32_t *t = logtk_parser_stored_line(p, k, &n);
        if (c < UINT32_MAX - 1) {
            slct_cluster *x = &cl[c];
            if (x->template_id == 0) {
                if (logtk_array_reserve((void **)&slices, &slices_cap, (size_t)x->last + 2, sizeof *slices))
                    goto done;
                for (uint32_t i = 0; i < x->last; i++) {
                    slices[i].ptr = LOGTK_WILDCARD;
                    slices[i].len = LOGTK_WILDCARD_LEN;
                }
                for (uint32_t i = 0; i < x->npairs; i++) {
                    size_t klen;
                    uint64_t v;
                    memcpy(&v, logtk_hashtab_key(&pairs, x->pairs[i], &klen), sizeof v);
                    slices[v >> 32].ptr = logtk_parser_token_text(p, (uint32_t)v, &slices[v >> 32].len);
                }
                size_t m = x->last;
                if (x->longest > x->last) {
                    slices[m].ptr = LOGTK_WILDCARD;
                    slices[m++].len = LOGTK_WILDCARD_LEN;
                }
                x->template_id = logtk_tmpl_create(p, slices, m);
                if (x->template_id == 0)
                    goto done;
            }
            tid = x->template_id;
        } else {
            int ins;
            int64_t o = logtk_hashtab_intern(&outliers, t ? (const void *)t : "", n * sizeof *t, &ins);
            if (o < 0)
                goto done;
            if (ins) {
                if (logtk_array_reserve((void **)&outlier_ids, &out_cap, nout + 1, sizeof *outlier_ids) ||
                    logtk_array_reserve((void **)&slices, &slices_cap, n + 1, sizeof *slices))
                    goto done;
                for (size_t i = 0; i < n; i++)
                    slices[i].ptr = logtk_parser_token_text(p, t[i], &slices[i].len);
                outlier_ids[nout] = logtk_tmpl_create(p, slices, n);
                if (outlier_ids[nout] == 0)
                    goto done;
                nout++;
            }
            tid = outlier_ids[o];
        }
        rc = logtk_parser_assign(p, k, tid);
        if (rc != LOGTK_OK)
            goto out;
    }
    rc = LOGTK_OK;
    goto out;
done:
    rc = logtk_parser_error(p, LOGTK_ERR_NOMEM, "slct: out of memory");
out:
    for (size_t i = 0; i < ncl; i++)
        free(cl[i].pairs);
    free(cl);
    free(pair_count);
    free(key);
    free(cand_of_line);
    free(outlier_ids);
    free(slices);
    if (pairs_ok)
        logtk_hashtab_free(&pairs);
    if (cands_ok)
        logtk_hashtab_free(&cands);
    if (outliers_ok)
        logtk_hashtab_free(&outliers);
    return rc;
}

const logtk_parser_algo logtk_algo_slct = {
    .name = "slct",
    .summary = "SLCT (IPOM'03): batch, frequent (position, word) pairs form cluster "
               "candidates; param support",
    .online = 0,
    .state_size = sizeof(slct_state),
    .init = slct_init,
    .destroy = slct_destroy,
    .set_param = slct_set_param,
    .feed = slct_feed,
    .finish = slct_finish,
    .save = NULL,
    .load = NULL,
};
