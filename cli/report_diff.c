/*
 * report_diff.c - the page of a diff: `logtk report --diff FILE` reads the
 * JSON Lines of `logtk diff --output jsonl` and draws its ranked changes.
 *
 * The file holds one object per template,
 *   {"template_id", "template", "count_a", "count_b", "rate_a", "rate_b",
 *    "status": appeared|vanished|changed|same, "score", "p", "q",
 *    "significant", "examples_a": [..], "examples_b": [..],
 *    "params": [{"index", "n_a", "n_b", "median_a", "median_b", "p", "q",
 *                "significant"}]}
 * and, from `diff --peers`, one object per host,
 *   {"peer", "lines", "score", "rank",
 *    "top_templates": [{"template_id", "template", "count", "expected", "score"}]}.
 * Members not named here are ignored, so the diff may add some.
 *
 * The JSON reader is a small recursive-descent parser of one line at a time
 * into a node array reused from line to line (a diff has one line per
 * template, not per log line, so this is not a hot path); nesting is bounded
 * so a hostile file cannot exhaust the stack.  Strings are decoded (escapes,
 * \u surrogate pairs) to bytes and later HTML-escaped like all log text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

#define SUB "report"
#define JSON_DEPTH_MAX 32
#define PEER_TEMPLATES 5

/* ------------------------------------------------------------ JSON */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jnode {
    int type;
    double num;          /* J_NUM, J_BOOL (0/1) */
    size_t str, len;     /* J_STR: bytes in the string buffer; member key: key, klen */
    size_t key, klen;
    int has_key;
    long first, next;    /* children (J_ARR, J_OBJ) and siblings, -1 = none */
} jnode;

typedef struct jparser {
    const char *p, *end;
    jnode *nodes;
    size_t n, cap;
    char *buf;
    size_t blen, bcap;
    const char *error;
} jparser;

static long jnew(jparser *j, int type)
{
    if (j->n == j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 64;
        jnode *grown = realloc(j->nodes, cap * sizeof *grown);
        if (!grown) {
            j->error = "out of memory";
            return -1;
        }
        j->nodes = grown;
        j->cap = cap;
    }
    jnode *nd = &j->nodes[j->n];
    memset(nd, 0, sizeof *nd);
    nd->type = type;
    nd->first = nd->next = -1;
    return (long)j->n++;
}

static int jbyte(jparser *j, char c)
{
    if (j->blen == j->bcap) {
        size_t cap = j->bcap ? j->bcap * 2 : 1024;
        char *grown = realloc(j->buf, cap);
        if (!grown) {
            j->error = "out of memory";
            return -1;
        }
        j->buf = grown;
        j->bcap = cap;
    }
    j->buf[j->blen++] = c;
    return 0;
}

static void jspace(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
        j->p++;
}

static int jhex4(jparser *j, unsigned *out)
{
    if (j->end - j->p < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = j->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    j->p += 4;
    *out = v;
    return 0;
}

static int jutf8(jparser *j, unsigned cp)
{
    char b[4];
    int n;
    if (cp < 0x80)
        b[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    for (int i = 0; i < n; i++)
        if (jbyte(j, b[i]) != 0)
            return -1;
    return 0;
}

/* A string at j->p (after its quote): its bytes appended to buf. */
static int jstring(jparser *j, size_t *off, size_t *len)
{
    *off = j->blen;
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;
        if ((unsigned char)c < 0x20) {
            j->error = "control character in a string";
            return -1;
        }
        if (c != '\\') {
            if (jbyte(j, c) != 0)
                return -1;
            continue;
        }
        if (j->p == j->end)
            break;
        char e = *j->p++;
        unsigned cp;
        switch (e) {
        case '"': case '\\': case '/': c = e; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u':
            if (jhex4(j, &cp) != 0) {
                j->error = "bad \\u escape";
                return -1;
            }
            if (cp >= 0xd800 && cp < 0xdc00) {
                unsigned lo;
                if (j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                    j->p += 2;
                    if (jhex4(j, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000)
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    else
                        cp = 0xfffd;
                } else {
                    cp = 0xfffd;
                }
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                cp = 0xfffd; /* a lone low surrogate */
            }
            if (jutf8(j, cp) != 0)
                return -1;
            continue;
        default:
            j->error = "bad escape in a string";
            return -1;
        }
        if (jbyte(j, c) != 0)
            return -1;
    }
    if (j->p == j->end) {
        j->error = "unterminated string";
        return -1;
    }
    j->p++;
    *len = j->blen - *off;
    return 0;
}

static long jvalue(jparser *j, int depth)
{
    jspace(j);
    if (j->p == j->end) {
        j->error = "unexpected end of line";
        return -1;
    }
    if (depth > JSON_DEPTH_MAX) {
        j->error = "nested too deeply";
        return -1;
    }
    char c = *j->p;
    long id;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        id = jnew(j, obj ? J_OBJ : J_ARR);
        if (id < 0)
            return -1;
        j->p++;
        jspace(j);
        long last = -1;
        if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
            j->p++;
            return id;
        }
        for (;;) {
            size_t koff = 0, klen = 0;
            if (obj) {
                jspace(j);
                if (j->p == j->end || *j->p != '"') {
                    j->error = "expected a member name";
                    return -1;
                }
                j->p++;
                if (jstring(j, &koff, &klen) != 0)
                    return -1;
                jspace(j);
                if (j->p == j->end || *j->p != ':') {
                    j->error = "expected ':'";
                    return -1;
                }
                j->p++;
            }
            long child = jvalue(j, depth + 1);
            if (child < 0)
                return -1;
            if (obj) {
                j->nodes[child].has_key = 1;
                j->nodes[child].key = koff;
                j->nodes[child].klen = klen;
            }
            if (last < 0)
                j->nodes[id].first = child;
            else
                j->nodes[last].next = child;
            last = child;
            jspace(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
                j->p++;
                return id;
            }
            j->error = obj ? "expected ',' or '}'" : "expected ',' or ']'";
            return -1;
        }
    }
    if (c == '"') {
        id = jnew(j, J_STR);
        if (id < 0)
            return -1;
        j->p++;
        size_t off, len;
        if (jstring(j, &off, &len) != 0)
            return -1;
        j->nodes[id].str = off;
        j->nodes[id].len = len;
        return id;
    }
    static const struct { const char *word; int type; double v; } words[] = {
        {"true", J_BOOL, 1}, {"false", J_BOOL, 0}, {"null", J_NULL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if ((size_t)(j->end - j->p) >= n && memcmp(j->p, words[i].word, n) == 0) {
            j->p += n;
            id = jnew(j, words[i].type);
            if (id >= 0)
                j->nodes[id].num = words[i].v;
            return id;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char tmp[64];
        size_t n = 0;
        while (j->p + n < j->end && n < sizeof tmp - 1 && strchr("+-.eE0123456789", j->p[n]))
            n++;
        memcpy(tmp, j->p, n);
        tmp[n] = '\0';
        char *stop;
        double v = strtod(tmp, &stop);
        if (stop != tmp + n) {
            j->error = "bad number";
            return -1;
        }
        j->p += n;
        id = jnew(j, J_NUM);
        if (id >= 0)
            j->nodes[id].num = v;
        return id;
    }
    j->error = "unexpected character";
    return -1;
}

/* The member `name` of object node obj, or NULL. */
static const jnode *jget(const jparser *j, long obj, const char *name)
{
    if (obj < 0 || j->nodes[obj].type != J_OBJ)
        return NULL;
    size_t n = strlen(name);
    for (long c = j->nodes[obj].first; c >= 0; c = j->nodes[c].next)
        if (j->nodes[c].klen == n && memcmp(j->buf + j->nodes[c].key, name, n) == 0)
            return &j->nodes[c];
    return NULL;
}

static double jnum(const jparser *j, long obj, const char *name, double dflt)
{
    const jnode *v = jget(j, obj, name);
    return v && (v->type == J_NUM || v->type == J_BOOL) ? v->num : dflt;
}

/* A copy of string member `name` (at most REPORT_TEXT_MAX + 1 bytes: the
   extra byte tells a cut), NULL when absent. */
static char *jcopy_node(const jparser *j, const jnode *v, size_t *len)
{
    if (!v || v->type != J_STR)
        return NULL;
    size_t n = v->len > REPORT_TEXT_MAX ? REPORT_TEXT_MAX + 1 : v->len;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, j->buf + v->str, n);
        s[n] = '\0';
        *len = n;
    }
    return s;
}

/* ------------------------------------------------------------ rows */

typedef struct text {
    char *s;
    size_t len;
} text;

typedef struct param_change {
    double index, n_a, n_b, median_a, median_b, q;
    int significant;
} param_change;

typedef struct diff_row {
    uint64_t id, count_a, count_b;
    double rate_a, rate_b, score, p, q;
    int significant;
    char status[12];
    text tmpl;
    text ex_a[REPORT_EXAMPLES], ex_b[REPORT_EXAMPLES];
    size_t nex_a, nex_b;
    param_change params[REPORT_PARAM_POSITIONS];
    size_t nparams, nparams_total;
} diff_row;

typedef struct peer_top {
    uint64_t id, count;
    double expected, score;
    text tmpl;
} peer_top;

typedef struct peer_row {
    text name;
    uint64_t lines;
    double score, rank;
    peer_top top[PEER_TEMPLATES];
    size_t ntop;
} peer_row;

typedef struct diff_data {
    diff_row *rows;
    size_t nrows, rcap;
    peer_row *peers;
    size_t npeers, pcap;
} diff_data;

static void text_put(FILE *fp, const text *t)
{
    if (t->len > REPORT_TEXT_MAX)
        report_text(fp, t->s, t->len, REPORT_TEXT_MAX); /* adds the ellipsis */
    else
        report_text(fp, t->s, t->len, 0);
}

static int take_examples(const jparser *j, long obj, const char *name, text *out, size_t *n)
{
    const jnode *arr = jget(j, obj, name);
    *n = 0;
    if (!arr || arr->type != J_ARR)
        return 0;
    for (long c = arr->first; c >= 0 && *n < REPORT_EXAMPLES; c = j->nodes[c].next) {
        if (j->nodes[c].type != J_STR)
            continue;
        out[*n].s = jcopy_node(j, &j->nodes[c], &out[*n].len);
        if (!out[*n].s)
            return -1;
        (*n)++;
    }
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    if (x->significant != y->significant)
        return y->significant - x->significant;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int by_peer_rank(const void *a, const void *b)
{
    const peer_row *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

/* Reads one object line into data.  Returns NULL or the reason it is refused. */
static const char *take_line(jparser *j, long root, diff_data *d)
{
    if (j->nodes[root].type != J_OBJ)
        return "not a JSON object";
    const jnode *peer = jget(j, root, "peer");
    if (peer) {
        if (peer->type != J_STR)
            return "\"peer\" is not a string";
        if (d->npeers == d->pcap) {
            size_t cap = d->pcap ? d->pcap * 2 : 16;
            peer_row *grown = realloc(d->peers, cap * sizeof *grown);
            if (!grown)
                return "out of memory";
            d->peers = grown;
            d->pcap = cap;
        }
        peer_row *r = &d->peers[d->npeers];
        memset(r, 0, sizeof *r);
        if (!(r->name.s = jcopy_node(j, peer, &r->name.len)))
            return "out of memory";
        d->npeers++;
        r->lines = (uint64_t)jnum(j, root, "lines", 0);
        r->score = jnum(j, root, "score", 0);
        r->rank = jnum(j, root, "rank", 1e300);
        const jnode *tops = jget(j, root, "top_templates");
        if (tops && tops->type == J_ARR)
            for (long c = tops->first; c >= 0 && r->ntop < PEER_TEMPLATES; c = j->nodes[c].next) {
                peer_top *t = &r->top[r->ntop];
                t->id = (uint64_t)jnum(j, c, "template_id", 0);
                t->count = (uint64_t)jnum(j, c, "count", 0);
                t->expected = jnum(j, c, "expected", 0);
                t->score = jnum(j, c, "score", 0);
                t->tmpl.s = jcopy_node(j, jget(j, c, "template"), &t->tmpl.len);
                r->ntop++;
            }
        return NULL;
    }
    const jnode *tid = jget(j, root, "template_id");
    if (!tid || tid->type != J_NUM)
        return "neither \"template_id\" (a number) nor \"peer\": not a line of logtk diff "
               "--output jsonl";
    const jnode *status = jget(j, root, "status");
    if (!status || status->type != J_STR)
        return "no \"status\" string";
    static const char *const statuses[] = {"appeared", "vanished", "changed", "same"};
    size_t k;
    for (k = 0; k < 4; k++)
        if (status->len == strlen(statuses[k]) &&
            memcmp(j->buf + status->str, statuses[k], status->len) == 0)
            break;
    if (k == 4)
        return "\"status\" is not appeared, vanished, changed or same";
    if (d->nrows == d->rcap) {
        size_t cap = d->rcap ? d->rcap * 2 : 64;
        diff_row *grown = realloc(d->rows, cap * sizeof *grown);
        if (!grown)
            return "out of memory";
        d->rows = grown;
        d->rcap = cap;
    }
    diff_row *r = &d->rows[d->nrows];
    memset(r, 0, sizeof *r);
    d->nrows++;
    strcpy(r->status, statuses[k]);
    r->id = (uint64_t)tid->num;
    r->count_a = (uint64_t)jnum(j, root, "count_a", 0);
    r->count_b = (uint64_t)jnum(j, root, "count_b", 0);
    r->rate_a = jnum(j, root, "rate_a", 0);
    r->rate_b = jnum(j, root, "rate_b", 0);
    r->score = jnum(j, root, "score", 0);
    r->p = jnum(j, root, "p", NAN);
    r->q = jnum(j, root, "q", NAN);
    r->significant = jnum(j, root, "significant", 0) != 0;
    const jnode *t = jget(j, root, "template");
    if (t && !(r->tmpl.s = jcopy_node(j, t, &r->tmpl.len)))
        return "out of memory";
    if (take_examples(j, root, "examples_a", r->ex_a, &r->nex_a) != 0 ||
        take_examples(j, root, "examples_b", r->ex_b, &r->nex_b) != 0)
        return "out of memory";
    const jnode *params = jget(j, root, "params");
    if (params && params->type == J_ARR)
        for (long c = params->first; c >= 0; c = j->nodes[c].next) {
            r->nparams_total++;
            int sig = jnum(j, c, "significant", 0) != 0;
            /* significant shifts first: keep them over the others */
            if (r->nparams == REPORT_PARAM_POSITIONS) {
                size_t weak = r->nparams;
                for (size_t i = 0; i < r->nparams; i++)
                    if (!r->params[i].significant)
                        weak = i;
                if (!sig || weak == r->nparams)
                    continue;
                memmove(&r->params[weak], &r->params[weak + 1],
                        (r->nparams - weak - 1) * sizeof r->params[0]);
                r->nparams--;
            }
            param_change *pc = &r->params[r->nparams++];
            pc->index = jnum(j, c, "index", 0);
            pc->n_a = jnum(j, c, "n_a", 0);
            pc->n_b = jnum(j, c, "n_b", 0);
            pc->median_a = jnum(j, c, "median_a", NAN);
            pc->median_b = jnum(j, c, "median_b", NAN);
            pc->q = jnum(j, c, "q", NAN);
            pc->significant = sig;
        }
    return NULL;
}

static void diff_data_free(diff_data *d)
{
    for (size_t i = 0; i < d->nrows; i++) {
        free(d->rows[i].tmpl.s);
        for (size_t k = 0; k < d->rows[i].nex_a; k++)
            free(d->rows[i].ex_a[k].s);
        for (size_t k = 0; k < d->rows[i].nex_b; k++)
            free(d->rows[i].ex_b[k].s);
    }
    for (size_t i = 0; i < d->npeers; i++) {
        free(d->peers[i].name.s);
        for (size_t k = 0; k < d->peers[i].ntop; k++)
            free(d->peers[i].top[k].tmpl.s);
    }
    free(d->rows);
    free(d->peers);
}

static int read_diff(const char *path, diff_data *d)
{
    logtk_reader *r = NULL;
    jparser j;
    memset(&j, 0, sizeof j);
    int rc = EXIT_DATA;
    if (logtk_reader_new(&r) != LOGTK_OK) {
        cli_error(SUB, "out of memory");
        return EXIT_DATA;
    }
    if (logtk_reader_open_path(r, path) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_reader_errmsg(r));
        goto done;
    }
    logtk_line line;
    int st;
    while ((st = logtk_reader_next(r, &line)) == LOGTK_OK) {
        const char *p = line.data, *end = line.data + line.len;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == end)
            continue;
        j.p = p;
        j.end = end;
        j.n = j.blen = 0;
        j.error = NULL;
        long root = jvalue(&j, 0);
        const char *why = j.error;
        if (root >= 0) {
            jspace(&j);
            if (j.p != j.end)
                why = "text after the JSON value";
            else
                why = take_line(&j, root, d);
        }
        if (why) {
            cli_error(SUB, "%s:%llu: %s", line.source, (unsigned long long)line.number, why);
            goto done;
        }
    }
    if (st != LOGTK_DONE) {
        cli_error(SUB, "%s", logtk_reader_errmsg(r));
        goto done;
    }
    rc = EXIT_OK;
done:
    free(j.nodes);
    free(j.buf);
    logtk_reader_free(r);
    return rc;
}

/* ------------------------------------------------------------ page */

static void put_num(FILE *fp, double v)
{
    char c[32];
    if (isnan(v))
        fputs("&ndash;", fp);
    else if (v == (double)(int64_t)v && v >= 0 && v < 1e18)
        fputs(report_count(c, (uint64_t)v), fp);
    else if (v != 0 && fabs(v) < 1e-3)
        fprintf(fp, "%.1e", v);
    else
        fprintf(fp, "%.3g", v);
}

/* Two bars, rate A over rate B, on one scale. */
static void rate_bars(FILE *fp, double a, double b, double max)
{
    if (max <= 0)
        max = 1;
    double wa = 118.0 * a / max, wb = 118.0 * b / max;
    fprintf(fp, "<svg class=\"bars\" viewBox=\"0 0 120 28\" role=\"img\" "
                "aria-label=\"rate A and rate B\"><rect x=\"1\" y=\"3\" width=\"%.1f\" "
                "height=\"9\" fill=\"#4e79a7\"/><rect x=\"1\" y=\"16\" width=\"%.1f\" "
                "height=\"9\" fill=\"#f28e2b\"/></svg>",
            wa < 0.5 && a > 0 ? 0.5 : wa, wb < 0.5 && b > 0 ? 0.5 : wb);
}

/* The top changes as horizontal bars of their score (HTML, so the labels
   stay readable at any width). */
static void score_chart(FILE *fp, const diff_data *d, size_t n)
{
    double max = 0;
    for (size_t i = 0; i < n; i++)
        max = d->rows[i].score > max ? d->rows[i].score : max;
    if (max <= 0)
        max = 1;
    fputs("<div class=\"hbars\" role=\"img\" aria-label=\"scores of the top changes\">\n", fp);
    for (size_t i = 0; i < n; i++) {
        const diff_row *r = &d->rows[i];
        const char *colour = strcmp(r->status, "appeared") == 0   ? "#e15759"
                             : strcmp(r->status, "vanished") == 0 ? "#4e79a7"
                             : strcmp(r->status, "changed") == 0  ? "#f28e2b"
                                                                  : "#bab0ac";
        double w = 85.0 * (r->score > 0 ? r->score : 0) / max;
        fprintf(fp, "<code>E%llu ", (unsigned long long)r->id);
        if (r->tmpl.s)
            report_text(fp, r->tmpl.s, r->tmpl.len, 120);
        fprintf(fp, "</code><span><i style=\"width:%.1f%%;background:%s\"></i><em>", w, colour);
        put_num(fp, r->score);
        fputs("</em></span>\n", fp);
    }
    fputs("</div>\n", fp);
}

static void write_changes(FILE *fp, const diff_data *d)
{
    size_t shown = d->nrows < REPORT_DIFF_ROWS ? d->nrows : REPORT_DIFF_ROWS;
    char c1[32], c2[32];
    double max_rate = 0;
    for (size_t i = 0; i < shown; i++) {
        max_rate = d->rows[i].rate_a > max_rate ? d->rows[i].rate_a : max_rate;
        max_rate = d->rows[i].rate_b > max_rate ? d->rows[i].rate_b : max_rate;
    }
    fprintf(fp, "<section id=\"changes\" data-rows=\"%zu\" data-shown=\"%zu\"><h2>Ranked changes"
                "</h2>\n",
            d->nrows, shown);
    size_t chart = 0;
    while (chart < shown && chart < 15 && strcmp(d->rows[chart].status, "same") != 0)
        chart++;
    if (chart)
        score_chart(fp, d, chart);
    if (shown < d->nrows)
        fprintf(fp, "<p class=\"note\">The %zu highest ranked of %s templates.</p>\n", shown,
                report_count(c1, d->nrows));
    fputs("<div class=\"scroll\"><table class=\"cards\">\n<thead><tr><th>#</th><th>template and examples</th>"
          "<th>A</th><th>B</th><th>rate <span style=\"color:#4e79a7\">A</span> / "
          "<span style=\"color:#f28e2b\">B</span></th><th>score</th><th>q</th>"
          "<th>parameters</th></tr></thead>\n<tbody>\n",
          fp);
    for (size_t i = 0; i < shown; i++) {
        const diff_row *r = &d->rows[i];
        fprintf(fp, "<tr class=\"change\" data-template-id=\"%llu\" data-status=\"%s\" "
                    "data-count-a=\"%llu\" data-count-b=\"%llu\" data-significant=\"%d\">"
                    "<td class=\"n\" data-label=\"#\">%zu</td><td class=\"t\"><span class=\"badge %s\">%s</span>",
                (unsigned long long)r->id, r->status, (unsigned long long)r->count_a,
                (unsigned long long)r->count_b, r->significant, i + 1, r->status, r->status);
        if (r->significant)
            fputs("<span class=\"badge sig\">significant</span>", fp);
        fprintf(fp, " <code>E%llu ", (unsigned long long)r->id);
        if (r->tmpl.s)
            text_put(fp, &r->tmpl);
        fputs("</code>", fp);
        for (size_t k = 0; k < r->nex_a; k++) {
            fputs("<p class=\"ex\">A: <code>", fp);
            text_put(fp, &r->ex_a[k]);
            fputs("</code></p>", fp);
        }
        for (size_t k = 0; k < r->nex_b; k++) {
            fputs("<p class=\"ex\">B: <code>", fp);
            text_put(fp, &r->ex_b[k]);
            fputs("</code></p>", fp);
        }
        fprintf(fp, "</td><td class=\"n\" data-label=\"A\">%s</td><td class=\"n\" "
                    "data-label=\"B\">%s</td><td>",
                report_count(c1, r->count_a), report_count(c2, r->count_b));
        rate_bars(fp, r->rate_a, r->rate_b, max_rate);
        fputs("</td><td class=\"n\" data-label=\"score\">", fp);
        put_num(fp, r->score);
        fputs("</td><td class=\"n\" data-label=\"q\">", fp);
        put_num(fp, r->q);
        fputs("</td><td class=\"p\">", fp);
        if (r->nparams) {
            fputs("<ul class=\"params\">", fp);
            for (size_t k = 0; k < r->nparams; k++) {
                const param_change *pc = &r->params[k];
                fprintf(fp, "<li>#%.0f median <code>", pc->index + 1);
                put_num(fp, pc->median_a);
                fputs("</code> &rarr; <code>", fp);
                put_num(fp, pc->median_b);
                fputs("</code> q ", fp);
                put_num(fp, pc->q);
                if (pc->significant)
                    fputs("<span class=\"badge sig\">shift</span>", fp);
                fputs("</li>", fp);
            }
            if (r->nparams_total > r->nparams)
                fprintf(fp, "<li>+%zu more</li>", r->nparams_total - r->nparams);
            fputs("</ul>", fp);
        }
        fputs("</td></tr>\n", fp);
    }
    fputs("</tbody></table></div></section>\n", fp);
}

static void write_peers(FILE *fp, const diff_data *d)
{
    size_t shown = d->npeers < REPORT_PEER_ROWS ? d->npeers : REPORT_PEER_ROWS;
    char c1[32];
    fprintf(fp, "<section id=\"peers\" data-rows=\"%zu\"><h2>Hosts against their peers</h2>\n"
                "%s"
                "<div class=\"scroll\"><table class=\"cards\"><thead><tr><th>rank</th><th>host</th><th>lines</th>"
                "<th>score</th><th>templates that make the difference (count / expected)</th>"
                "</tr></thead><tbody>\n",
            d->npeers, shown < d->npeers ? "<p class=\"note\">The highest ranked hosts.</p>\n" : "");
    for (size_t i = 0; i < shown; i++) {
        const peer_row *p = &d->peers[i];
        fprintf(fp, "<tr class=\"peer\" data-rank=\"%.0f\"><td class=\"n\" data-label=\"rank\">%.0f"
                    "</td><td><code>",
                p->rank, p->rank);
        text_put(fp, &p->name);
        fprintf(fp, "</code></td><td class=\"n\" data-label=\"lines\">%s</td><td class=\"n\" "
                    "data-label=\"score\">",
                report_count(c1, p->lines));
        put_num(fp, p->score);
        fputs("</td><td class=\"p\"><ul class=\"params\">", fp);
        for (size_t k = 0; k < p->ntop; k++) {
            const peer_top *t = &p->top[k];
            fprintf(fp, "<li><code>E%llu ", (unsigned long long)t->id);
            if (t->tmpl.s)
                report_text(fp, t->tmpl.s, t->tmpl.len, REPORT_PEER_TEXT_MAX);
            fprintf(fp, "</code> %s / ", report_count(c1, t->count));
            put_num(fp, t->expected);
            fputs("</li>", fp);
        }
        fputs("</ul></td></tr>\n", fp);
    }
    fputs("</tbody></table></div></section>\n", fp);
}

int report_diff_page(FILE *fp, const char *path, const char *title)
{
    diff_data d;
    memset(&d, 0, sizeof d);
    if (read_diff(path, &d) != EXIT_OK) {
        diff_data_free(&d);
        return EXIT_DATA;
    }
    if (d.nrows) /* qsort's base must not be NULL, even for no element */
        qsort(d.rows, d.nrows, sizeof *d.rows, by_rank);
    if (d.npeers)
        qsort(d.peers, d.npeers, sizeof *d.peers, by_peer_rank);
    uint64_t lines_a = 0, lines_b = 0;
    size_t nstatus[4] = {0}, nsig = 0;
    static const char *const statuses[] = {"appeared", "vanished", "changed", "same"};
    for (size_t i = 0; i < d.nrows; i++) {
        lines_a += d.rows[i].count_a;
        lines_b += d.rows[i].count_b;
        nsig += d.rows[i].significant != 0;
        for (size_t k = 0; k < 4; k++)
            nstatus[k] += strcmp(d.rows[i].status, statuses[k]) == 0;
    }
    char c1[32], c2[32], c3[32];
    report_page_begin(fp, title);
    fputs("<header><h1>", fp);
    report_str(fp, title);
    uint64_t peer_lines = 0;
    for (size_t i = 0; i < d.npeers; i++)
        peer_lines += d.peers[i].lines;
    if (d.nrows == 0 && d.npeers) /* diff --peers: hosts, no two sides */
        fprintf(fp, "</h1><p>logtk diff --peers: %zu hosts, %s lines</p></header>\n<main>\n",
                d.npeers, report_count(c1, peer_lines));
    else
        fprintf(fp, "</h1><p>logtk diff: %s templates, A %s lines, B %s lines</p></header>\n<main>\n",
                report_count(c1, d.nrows), report_count(c2, lines_a), report_count(c3, lines_b));
    fprintf(fp, "<section id=\"summary\" data-templates=\"%zu\" data-significant=\"%zu\" "
                "data-peers=\"%zu\"><div class=\"tiles\">",
            d.nrows, nsig, d.npeers);
    if (d.nrows || !d.npeers) { /* the tiles of two sides; a peers-only page has none */
        fprintf(fp, "<div class=\"tile\"><b>%zu</b><span>significant changes</span></div>", nsig);
        for (size_t k = 0; k < 3; k++)
            fprintf(fp, "<div class=\"tile\"><b>%zu</b><span>%s</span></div>", nstatus[k],
                    statuses[k]);
        fprintf(fp, "<div class=\"tile\"><b>%s</b><span>lines A</span></div>",
                report_count(c1, lines_a));
        fprintf(fp, "<div class=\"tile\"><b>%s</b><span>lines B</span></div>",
                report_count(c1, lines_b));
    } else {
        fprintf(fp, "<div class=\"tile\"><b>%s</b><span>lines</span></div>",
                report_count(c1, peer_lines));
    }
    if (d.npeers)
        fprintf(fp, "<div class=\"tile\"><b>%zu</b><span>hosts</span></div>", d.npeers);
    fputs("</div></section>\n", fp);
    if (d.npeers)
        write_peers(fp, &d);
    if (d.nrows)
        write_changes(fp, &d);
    fputs("</main>\n", fp);
    char note[300];
    snprintf(note, sizeof note,
             "logtk %s report of a diff. Caps: the %d highest ranked rows (significant first, "
             "then by score), %d examples a side, %d bytes of each text, the %d highest ranked "
             "hosts.",
             logtk_version(), REPORT_DIFF_ROWS, REPORT_EXAMPLES, REPORT_TEXT_MAX, REPORT_PEER_ROWS);
    report_page_end(fp, note);
    diff_data_free(&d);
    return EXIT_OK;
}
