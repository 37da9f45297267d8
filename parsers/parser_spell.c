/*
 * parser_spell.c - Spell: streaming parsing by longest common subsequence
 * (Du and Li, ICDM 2016), following logparser's Spell.py.
 *
 * Idea: two messages of one event share their constant words in order, so
 * the longest common subsequence (LCS) of a message and a template is the
 * template's constant part.  Each cluster keeps a template (a token
 * sequence, "<*>" for the gaps); a message joins the cluster whose LCS with
 * it covers at least tau of the message, and the template shrinks to that
 * LCS.  Computing an LCS against every cluster is quadratic per pair, so
 * Spell first tries two cheap lookups:
 *   1. a prefix tree over the templates' constant tokens: walk the message's
 *      constant tokens down the tree (skipping tokens with no child); a node
 *      holding a cluster whose constant length is >= tau * message length
 *      matches;
 *   2. a loop over clusters whose template is at least half the message's
 *      length and whose every constant token occurs in the message (a set
 *      test standing in for the subsequence test, as in the reference);
 *   3. only then the LCS against every cluster sharing at least half of the
 *      message's distinct tokens; ties go to the shorter template.
 * Only a match found by the LCS step updates the template (steps 1 and 2
 * mean the template already fits), and a changed template is moved in the
 * prefix tree.
 *
 * Tokens: like the reference, the content is split on whitespace and on
 * '=', ':' and ',' (Spell's "[\s=:,]"), so templates are these sub-tokens
 * joined by single spaces, which is what the reference prints and groups on.
 *
 * Reference quirks kept on purpose (they decide which cluster wins):
 *  - the prefix-tree walk returns the recursive result as soon as it descends
 *    into a child without a cluster, even when that result is "no match";
 *  - removing a template from the tree stops at the first node it deletes
 *    and never clears a node's cluster pointer, so a node may keep pointing
 *    at a cluster whose template has since changed;
 *  - a node already holding a cluster keeps it when another template ends
 *    there.
 * Difference from the reference: a message with no tokens at all never
 * takes the LCS step (the reference would match it to the first cluster and
 * empty that cluster's template); it gets or joins a cluster of its own.
 *
 * Memory: per line only reused buffers (token ids, a two-row LCS table, a
 * "seen" stamp per token id); clusters and tree nodes grow with templates.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "growarray.h"
#include "parser_impl.h"

/* Largest LCS table (cells) computed for one message/template pair; beyond
 * it the pair is treated as not similar, so a hostile 100k-token line
 * cannot take quadratic memory. */
#define SPELL_MAX_LCS_CELLS ((size_t)1 << 26)

typedef struct spell_cluster {
    uint32_t *tokens; /* token ids of the template */
    uint32_t ntokens;
    uint32_t cap;
    uint32_t nconst;  /* tokens that are not "<*>" */
    uint32_t template_id;
} spell_cluster;

typedef struct spell_node {
    uint32_t cluster;     /* cluster index + 1; 0 = none */
    uint32_t template_no; /* templates passing through this node */
} spell_node;

/* Child links of the prefix tree: key (parent node << 32 | token id) -> child. */
typedef struct spell_edge {
    uint64_t key; /* 0 = empty slot (node 0 is the root, token ids start at 0: key 0
                     would be root/token 0, so keys are stored + 1) */
    uint32_t child;
} spell_edge;

typedef struct spell_state {
    double tau;
    uint32_t wildcard; /* token id of "<*>" */

    spell_cluster *clusters;
    size_t nclusters, clusters_cap;

    spell_node *nodes;
    size_t nnodes, nodes_cap;
    spell_edge *edges;
    size_t nedges, edges_cap; /* cap is a power of two */

    /* per-line buffers */
    uint32_t *seq;      /* all sub-tokens */
    size_t nseq, seq_cap;
    uint32_t *cseq;     /* constant sub-tokens */
    size_t ncseq, cseq_cap;
    uint32_t *seen;     /* token id -> stamp */
    uint32_t *seen2;
    size_t seen_cap;
    uint32_t stamp;
    uint32_t *row;      /* LCS rows / full table */
    size_t row_cap;
    uint32_t *lcs;
    size_t lcs_cap;
    uint32_t *tmp;
    size_t tmp_cap;
    logtk_slice *slices;
    size_t slices_cap;
} spell_state;

static int spell_nomem(logtk_parser *p)
{
    return ltk_parser_error(p, LOGTK_ERR_NOMEM, "spell: out of memory");
}

/* ---------------------------------------------------------------- edges */

static uint64_t edge_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
}

static uint32_t edge_find(const spell_state *s, uint32_t parent, uint32_t token)
{
    if (s->edges_cap == 0)
        return 0;
    uint64_t key = (((uint64_t)parent << 32) | token) + 1;
    size_t mask = s->edges_cap - 1;
    for (size_t i = edge_hash(key) & mask;; i = (i + 1) & mask) {
        if (s->edges[i].key == 0)
            return 0;
        if (s->edges[i].key == key)
            return s->edges[i].child;
    }
}

static int edge_put(spell_state *s, uint32_t parent, uint32_t token, uint32_t child);

static int edges_rehash(spell_state *s, size_t cap)
{
    spell_edge *old = s->edges;
    size_t old_cap = s->edges_cap;
    s->edges = calloc(cap, sizeof *s->edges);
    if (s->edges == NULL) {
        s->edges = old;
        return -1;
    }
    s->edges_cap = cap;
    s->nedges = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].key == 0)
            continue;
        uint64_t k = old[i].key - 1;
        edge_put(s, (uint32_t)(k >> 32), (uint32_t)k, old[i].child);
    }
    free(old);
    return 0;
}

static int edge_put(spell_state *s, uint32_t parent, uint32_t token, uint32_t child)
{
    if ((s->nedges + 1) * 2 > s->edges_cap &&
        edges_rehash(s, s->edges_cap ? s->edges_cap * 2 : 256) != 0)
        return -1;
    uint64_t key = (((uint64_t)parent << 32) | token) + 1;
    size_t mask = s->edges_cap - 1;
    size_t i = edge_hash(key) & mask;
    while (s->edges[i].key != 0 && s->edges[i].key != key)
        i = (i + 1) & mask;
    if (s->edges[i].key == 0)
        s->nedges++;
    s->edges[i].key = key;
    s->edges[i].child = child;
    return 0;
}

/* Deletes an edge (backward-shift deletion keeps probe chains intact).  The
 * child's subtree becomes unreachable, as `del childD[token]` drops it. */
static void edge_delete(spell_state *s, uint32_t parent, uint32_t token)
{
    uint64_t key = (((uint64_t)parent << 32) | token) + 1;
    size_t mask = s->edges_cap - 1;
    size_t i = edge_hash(key) & mask;
    while (s->edges[i].key != key) {
        if (s->edges[i].key == 0)
            return;
        i = (i + 1) & mask;
    }
    size_t j = i;
    for (;;) {
        s->edges[i].key = 0;
        for (;;) {
            j = (j + 1) & mask;
            if (s->edges[j].key == 0) {
                s->nedges--;
                return;
            }
            size_t home = edge_hash(s->edges[j].key) & mask;
            /* move j back to i when its home is not in (i, j] cyclically */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        s->edges[i] = s->edges[j];
        i = j;
    }
}

static int new_node(spell_state *s, uint32_t *id)
{
    if (ltk_array_reserve((void **)&s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof *s->nodes))
        return -1;
    s->nodes[s->nnodes].cluster = 0;
    s->nodes[s->nnodes].template_no = 0;
    *id = (uint32_t)s->nnodes++;
    return 0;
}

/* ----------------------------------------------------------- prefix tree */

static int tree_add(spell_state *s, uint32_t cluster_index)
{
    const spell_cluster *c = &s->clusters[cluster_index];
    uint32_t node = 0;
    for (uint32_t i = 0; i < c->ntokens; i++) {
        uint32_t tok = c->tokens[i];
        if (tok == s->wildcard)
            continue;
        uint32_t child = edge_find(s, node, tok);
        if (child == 0) {
            if (new_node(s, &child) != 0 || edge_put(s, node, tok, child) != 0)
                return -1;
        }
        s->nodes[child].template_no++;
        node = child;
    }
    if (s->nodes[node].cluster == 0)
        s->nodes[node].cluster = cluster_index + 1;
    return 0;
}

static void tree_remove(spell_state *s, uint32_t cluster_index)
{
    const spell_cluster *c = &s->clusters[cluster_index];
    uint32_t node = 0;
    for (uint32_t i = 0; i < c->ntokens; i++) {
        uint32_t tok = c->tokens[i];
        if (tok == s->wildcard)
            continue;
        uint32_t child = edge_find(s, node, tok);
        if (child == 0)
            continue; /* the reference skips tokens without a child */
        if (s->nodes[child].template_no == 1) {
            edge_delete(s, node, tok);
            break;
        }
        s->nodes[child].template_no--;
        node = child;
    }
}

/* Returns the cluster index + 1 matched by the prefix tree, or 0. */
static uint32_t tree_match(const spell_state *s)
{
    uint32_t node = 0;
    double need = s->tau * (double)s->ncseq;
    for (size_t i = 0; i < s->ncseq; i++) {
        uint32_t child = edge_find(s, node, s->cseq[i]);
        if (child == 0)
            continue;
        uint32_t ci = s->nodes[child].cluster;
        if (ci != 0) {
            if ((double)s->clusters[ci - 1].nconst >= need)
                return ci;
        } else {
            node = child; /* the reference recurses and returns whatever it finds */
        }
    }
    return 0;
}

/* ------------------------------------------------------------- matching */

static int ensure_seen(spell_state *s, uint32_t max_id)
{
    if (max_id < s->seen_cap)
        return 0;
    size_t old = s->seen_cap;
    size_t cap = old;
    if (ltk_array_reserve((void **)&s->seen, &cap, (size_t)max_id + 1, sizeof *s->seen))
        return -1;
    size_t cap2 = old;
    if (ltk_array_reserve((void **)&s->seen2, &cap2, (size_t)max_id + 1, sizeof *s->seen2))
        return -1;
    memset(s->seen + old, 0, (cap - old) * sizeof *s->seen);
    memset(s->seen2 + old, 0, (cap - old) * sizeof *s->seen2);
    s->seen_cap = cap;
    return 0;
}

static uint32_t next_stamp(spell_state *s)
{
    if (++s->stamp == 0) {
        memset(s->seen, 0, s->seen_cap * sizeof *s->seen);
        memset(s->seen2, 0, s->seen_cap * sizeof *s->seen2);
        s->stamp = 1;
    }
    return s->stamp;
}

/* Step 2: first cluster whose constant tokens all occur in the message. */
static uint32_t simple_loop_match(spell_state *s)
{
    uint32_t st = next_stamp(s);
    for (size_t i = 0; i < s->ncseq; i++)
        s->seen[s->cseq[i]] = st;
    double half = 0.5 * (double)s->ncseq;
    for (size_t c = 0; c < s->nclusters; c++) {
        const spell_cluster *cl = &s->clusters[c];
        if ((double)cl->ntokens < half)
            continue;
        uint32_t i = 0;
        while (i < cl->ntokens && (cl->tokens[i] == s->wildcard || s->seen[cl->tokens[i]] == st))
            i++;
        if (i == cl->ntokens)
            return (uint32_t)c + 1;
    }
    return 0;
}

/* LCS length of a and b with two rows. */
static size_t lcs_length(spell_state *s, const uint32_t *a, size_t n, const uint32_t *b, size_t m)
{
    uint32_t *prev = s->row, *cur = s->row + (m + 1);
    memset(prev, 0, (m + 1) * sizeof *prev);
    for (size_t i = 0; i < n; i++) {
        cur[0] = 0;
        for (size_t j = 0; j < m; j++) {
            if (a[i] == b[j])
                cur[j + 1] = prev[j] + 1;
            else
                cur[j + 1] = cur[j] > prev[j + 1] ? cur[j] : prev[j + 1];
        }
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

/* Full LCS with the reference's backtracking order; result in s->lcs. */
static int lcs_full(spell_state *s, const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                    size_t *out_len)
{
    size_t w = m + 1;
    if (ltk_array_reserve((void **)&s->row, &s->row_cap, (n + 1) * w, sizeof *s->row))
        return -1;
    uint32_t *t = s->row;
    memset(t, 0, w * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        uint32_t *prev = t + i * w, *cur = t + (i + 1) * w;
        cur[0] = 0;
        for (size_t j = 0; j < m; j++) {
            if (a[i] == b[j])
                cur[j + 1] = prev[j] + 1;
            else
                cur[j + 1] = cur[j] > prev[j + 1] ? cur[j] : prev[j + 1];
        }
    }
    size_t len = t[n * w + m];
    if (ltk_array_reserve((void **)&s->lcs, &s->lcs_cap, len + 1, sizeof *s->lcs))
        return -1;
    size_t i = n, j = m, k = len;
    while (i != 0 && j != 0) {
        uint32_t v = t[i * w + j];
        if (v == t[(i - 1) * w + j])
            i--;
        else if (v == t[i * w + j - 1])
            j--;
        else {
            s->lcs[--k] = a[i - 1];
            i--;
            j--;
        }
    }
    *out_len = len;
    return 0;
}

/* Step 3: the cluster with the longest LCS (ties: shorter template), when
 * that LCS covers tau of the message.  Returns index + 1 or 0; -1 on OOM. */
static long lcs_match(spell_state *s)
{
    size_t n = s->nseq;
    if (n == 0)
        return 0;
    uint32_t st = next_stamp(s);
    for (size_t i = 0; i < n; i++)
        s->seen[s->seq[i]] = st;
    long best = -1;
    size_t best_len = 0;
    for (size_t c = 0; c < s->nclusters; c++) {
        const spell_cluster *cl = &s->clusters[c];
        /* |set(message) & set(template)| >= 0.5 * len(message) */
        uint32_t st2 = next_stamp(s);
        size_t common = 0;
        for (uint32_t i = 0; i < cl->ntokens; i++) {
            uint32_t tok = cl->tokens[i];
            if (s->seen2[tok] == st2)
                continue;
            s->seen2[tok] = st2;
            /* seen[] holds the message stamp st, which is < st2 */
            if (s->seen[tok] == st)
                common++;
        }
        if ((double)common < 0.5 * (double)n)
            continue;
        size_t m = cl->ntokens;
        if ((n + 1) > SPELL_MAX_LCS_CELLS / (m + 1))
            continue;
        if (ltk_array_reserve((void **)&s->row, &s->row_cap, 2 * (m + 1), sizeof *s->row))
            return -1;
        size_t len = lcs_length(s, s->seq, n, cl->tokens, m);
        if (best < 0 || len > best_len ||
            (len == best_len && cl->ntokens < s->clusters[best].ntokens)) {
            best = (long)c;
            best_len = len;
        }
    }
    if (best >= 0 && (double)best_len >= s->tau * (double)n)
        return best + 1;
    return 0;
}

/* ------------------------------------------------------------- templates */

static int cluster_set_tokens(spell_cluster *c, const uint32_t *tokens, size_t n,
                              uint32_t wildcard)
{
    if (n > c->cap) {
        size_t cap = c->cap;
        if (ltk_array_reserve((void **)&c->tokens, &cap, n, sizeof *c->tokens))
            return -1;
        c->cap = (uint32_t)cap;
    }
    if (n)
        memmove(c->tokens, tokens, n * sizeof *tokens);
    c->ntokens = (uint32_t)n;
    c->nconst = 0;
    for (size_t i = 0; i < n; i++)
        c->nconst += tokens[i] != wildcard;
    return 0;
}

/* Fills s->slices with the texts of token ids. */
static int to_slices(logtk_parser *p, spell_state *s, const uint32_t *ids, size_t n)
{
    if (ltk_array_reserve((void **)&s->slices, &s->slices_cap, n + 1, sizeof *s->slices))
        return -1;
    for (size_t i = 0; i < n; i++)
        s->slices[i].ptr = ltk_parser_token_text(p, ids[i], &s->slices[i].len);
    return 0;
}

/* The reference's getTemplate: template tokens on the LCS stay, the others
 * become "<*>", and once the LCS is used up one "<*>" stands for the rest. */
static size_t merge_template(spell_state *s, const spell_cluster *c, size_t lcs_len)
{
    size_t k = 0, out = 0, i = 0;
    if (lcs_len == 0)
        return 0;
    while (i < c->ntokens) {
        uint32_t tok = c->tokens[i++];
        if (tok == s->lcs[k]) {
            s->tmp[out++] = tok;
            k++;
        } else {
            s->tmp[out++] = s->wildcard;
        }
        if (k == lcs_len)
            break;
    }
    if (i < c->ntokens)
        s->tmp[out++] = s->wildcard;
    return out;
}

/* --------------------------------------------------------------- the algo */

static int spell_init(logtk_parser *p, void *state)
{
    spell_state *s = state;
    s->tau = 0.5;
    s->wildcard = ltk_parser_intern_token(p, LTK_WILDCARD, LTK_WILDCARD_LEN);
    uint32_t root;
    if (s->wildcard == UINT32_MAX || new_node(s, &root) != 0)
        return spell_nomem(p);
    return LOGTK_OK;
}

static void spell_destroy(void *state)
{
    spell_state *s = state;
    for (size_t i = 0; i < s->nclusters; i++)
        free(s->clusters[i].tokens);
    free(s->clusters);
    free(s->nodes);
    free(s->edges);
    free(s->seq);
    free(s->cseq);
    free(s->seen);
    free(s->seen2);
    free(s->row);
    free(s->lcs);
    free(s->tmp);
    free(s->slices);
}

static int spell_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    spell_state *s = state;
    if (strcmp(name, "tau") == 0)
        return ltk_param_double(p, name, value, 0.0, 1.0, &s->tau);
    return LOGTK_ERR_NOT_FOUND;
}

static int is_spell_separator(char c)
{
    return c == '=' || c == ':' || c == ',';
}

/* Splits the whitespace tokens further on '=', ':' and ','. */
static int split_line(logtk_parser *p, spell_state *s, const ltk_parse_line *line)
{
    s->nseq = s->ncseq = 0;
    for (size_t t = 0; t < line->ntokens; t++) {
        const char *ptr = line->tokens[t].ptr;
        size_t len = line->tokens[t].len, i = 0;
        while (i < len) {
            while (i < len && is_spell_separator(ptr[i]))
                i++;
            size_t start = i;
            while (i < len && !is_spell_separator(ptr[i]))
                i++;
            if (i == start)
                continue;
            uint32_t id = ltk_parser_intern_token(p, ptr + start, i - start);
            if (id == UINT32_MAX ||
                ltk_array_reserve((void **)&s->seq, &s->seq_cap, s->nseq + 1, sizeof *s->seq) ||
                ltk_array_reserve((void **)&s->cseq, &s->cseq_cap, s->ncseq + 1, sizeof *s->cseq) ||
                ensure_seen(s, id))
                return spell_nomem(p);
            s->seq[s->nseq++] = id;
            if (id != s->wildcard)
                s->cseq[s->ncseq++] = id;
        }
    }
    return LOGTK_OK;
}

static int spell_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                      uint32_t *template_id)
{
    spell_state *s = state;
    int rc = split_line(p, s, line);
    if (rc != LOGTK_OK)
        return rc;

    uint32_t match = tree_match(s);
    if (match == 0)
        match = simple_loop_match(s);
    if (match == 0) {
        long m = lcs_match(s);
        if (m < 0)
            return spell_nomem(p);
        match = (uint32_t)m;
        if (match == 0) {
            /* a new cluster with the message as its template */
            if (ltk_array_reserve((void **)&s->clusters, &s->clusters_cap, s->nclusters + 1,
                     sizeof *s->clusters))
                return spell_nomem(p);
            spell_cluster *c = &s->clusters[s->nclusters];
            memset(c, 0, sizeof *c);
            if (cluster_set_tokens(c, s->seq, s->nseq, s->wildcard) != 0 ||
                to_slices(p, s, s->seq, s->nseq) != 0)
                return spell_nomem(p);
            c->template_id = ltk_tmpl_create(p, s->slices, s->nseq);
            if (c->template_id == 0)
                return LOGTK_ERR_NOMEM;
            s->nclusters++;
            if (tree_add(s, (uint32_t)s->nclusters - 1) != 0)
                return spell_nomem(p);
            *template_id = c->template_id;
            return LOGTK_OK;
        }
        /* joined by LCS: the template becomes the LCS with gaps */
        spell_cluster *c = &s->clusters[match - 1];
        size_t lcs_len;
        if (lcs_full(s, s->seq, s->nseq, c->tokens, c->ntokens, &lcs_len) != 0 ||
            ltk_array_reserve((void **)&s->tmp, &s->tmp_cap, (size_t)c->ntokens + 1, sizeof *s->tmp))
            return spell_nomem(p);
        size_t n = merge_template(s, c, lcs_len);
        int same = n == c->ntokens && (n == 0 || memcmp(s->tmp, c->tokens, n * sizeof *s->tmp) == 0);
        if (!same) {
            tree_remove(s, match - 1);
            if (cluster_set_tokens(c, s->tmp, n, s->wildcard) != 0 ||
                tree_add(s, match - 1) != 0 || to_slices(p, s, c->tokens, n) != 0)
                return spell_nomem(p);
            rc = ltk_tmpl_set(p, c->template_id, s->slices, n);
            if (rc != LOGTK_OK)
                return rc;
        }
    }
    *template_id = s->clusters[match - 1].template_id;
    return LOGTK_OK;
}

const ltk_parser_algo ltk_algo_spell = {
    .name = "spell",
    .summary = "Spell (ICDM'16): streaming, longest common subsequence with a prefix tree",
    .online = 1,
    .state_size = sizeof(spell_state),
    .init = spell_init,
    .destroy = spell_destroy,
    .set_param = spell_set_param,
    .feed = spell_feed,
    .finish = NULL,
    .save = NULL,
    .load = NULL,
};
