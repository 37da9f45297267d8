/*
 * diff_templates.c - what changed between two groups of log lines, and which
 * of N peers differs from the rest (logtk_diff_*, see logtk.h).
 *
 * Why these tests.  Template counts are Poisson-like event counts observed
 * over two exposures of different size (the groups' line totals).  Given the
 * total k = ka + kb, ka is binomial with success probability Na/(Na+Nb)
 * under "same rate" whatever the common rate is, so the exact conditional
 * binomial test needs no large-sample assumption: it stays right for the
 * 3-line templates that are most of any log, where a chi-square or z test
 * would call noise significant.  Its p-value underflows to 0 for large
 * changes, so results are ranked by the likelihood-ratio statistic G of the
 * same binomial model, which keeps growing.  Parameters are compared with
 * Mann-Whitney U: latencies and sizes are skewed and heavy-tailed, so a
 * rank test (no normality, robust to outliers) suits them better than a t
 * test, and its normal approximation is good from a handful of values per
 * side.  Hundreds of templates are tested at once, so each family of tests
 * is corrected with Benjamini-Hochberg (false discovery rate), which keeps
 * power where Bonferroni would miss real but moderate changes.
 *
 * Memory: one cell per (template, group) that was seen, holding a count,
 * up to "examples" copied lines and, per parameter position, a uniform
 * reservoir sample of at most "sample" numeric values (Vitter's algorithm
 * R with a fixed-seed generator, so results are reproducible).  An online
 * parser may change a template's number of <*> early in its life; a cell
 * then restarts its samples with the new shape, since positions no longer
 * line up.
 */
#include "config.h"
#include "detect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "errmsg.h"
#include "growarray.h"
#include "u64map.h"

#define DIFF_MAX_EXAMPLES 16
#define DIFF_MIN_VALUES 5       /* fewer values per side: no parameter test */
#define DIFF_MIN_NUMERIC 0.9    /* share of values that must be numbers */

typedef struct diff_values {
    double *v;
    uint32_t n, cap;
    uint64_t numeric;  /* numeric values seen (the reservoir's stream length) */
    uint64_t seen;     /* values seen at this position */
} diff_values;

typedef struct diff_cell {
    uint64_t count;
    uint32_t nexamples;
    uint32_t nparams;       /* the shape the samples belong to */
    logtk_slice *examples;  /* [examples option], in the arena */
    diff_values *values;    /* [nparams] */
} diff_cell;

typedef struct diff_template {
    diff_cell *cells;       /* [ncells], by group */
    uint32_t ncells;
    const char *text;       /* in the arena; NULL when not named */
    size_t text_len;
} diff_template;

/* A count test result, kept during computing and then as a public result. */
typedef struct diff_change_rec {
    logtk_diff_change c;
    size_t param_first;     /* into params[] */
    double rank_key;
    const diff_cell *cell_a, *cell_b;
} diff_change_rec;

typedef struct diff_peer_rec {
    logtk_diff_peer p;
    size_t top_first;       /* into peer_tops[] */
} diff_peer_rec;

struct logtk_diff {
    ltk_errbuf err;
    ltk_arena arena;
    double alpha, min_ratio, min_shift;
    uint32_t nexamples_opt, sample, top;
    uint64_t rng;
    /* groups */
    char **group_names;
    uint64_t *group_lines;
    size_t ngroups, groups_cap;
    ltk_u64map group_index;  /* hash of name -> index + 1 */
    /* templates by id */
    diff_template *templates;
    size_t ntemplates, templates_cap; /* ids 0..ntemplates-1 in use (0 unused) */
    int folded;
    /* results */
    diff_change_rec *changes;
    size_t nchanges;
    logtk_diff_param *params;
    size_t nparams_res, params_cap;
    diff_peer_rec *peers;
    size_t npeers;
    logtk_diff_peer_template *peer_tops;
    size_t npeer_tops;
    /* scratch */
    double *scratch;
    size_t scratch_cap;
};

/* ------------------------------------------------------------ statistics */

static double log_binom_pmf(uint64_t i, uint64_t n, double lp, double lq)
{
    return lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
           (double)i * lp + (double)(n - i) * lq;
}

/* Sums pmf(i) for i from `from` stepping by `step` (+1 or -1) while in
   [0, n], until the terms no longer matter (they fall geometrically away
   from the mode, which the walk starts beyond). */
static double binom_tail(uint64_t from, int step, uint64_t n, double lp, double lq)
{
    double sum = 0;
    for (uint64_t i = from;; i += (uint64_t)(int64_t)step) {
        double t = exp(log_binom_pmf(i, n, lp, lq));
        sum += t;
        if (t < sum * 1e-17 || t == 0)
            break;
        if ((step > 0 && i == n) || (step < 0 && i == 0))
            break;
    }
    return sum;
}

int logtk_binomial_test(uint64_t k, uint64_t n, double p0, double *p)
{
    if (!p || k > n || !(p0 >= 0 && p0 <= 1))
        return LOGTK_ERR_INVALID;
    if (n == 0) {
        *p = 1;
        return LOGTK_OK;
    }
    if (p0 == 0 || p0 == 1) {
        uint64_t only = p0 == 0 ? 0 : n;
        *p = k == only ? 1 : 0;
        return LOGTK_OK;
    }
    double lp = log(p0), lq = log1p(-p0);
    double mode_d = floor(((double)n + 1) * p0);
    uint64_t mode = mode_d > (double)n ? n : (uint64_t)mode_d;
    double lk = log_binom_pmf(k, n, lp, lq);
    double limit = lk + log1p(1e-7); /* outcomes this likely or less count */
    if (k == mode || log_binom_pmf(mode, n, lp, lq) <= limit) {
        *p = 1;
        return LOGTK_OK;
    }
    /* the other tail starts at the first outcome beyond the mode no more likely
       than k; the pmf is monotone there, so bisect */
    double sum;
    if (k < mode) {
        uint64_t lo = mode, hi = n; /* pmf(lo) > limit */
        if (log_binom_pmf(n, n, lp, lq) > limit) {
            sum = binom_tail(k, -1, n, lp, lq);
        } else {
            while (hi - lo > 1) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (log_binom_pmf(mid, n, lp, lq) <= limit)
                    hi = mid;
                else
                    lo = mid;
            }
            sum = binom_tail(k, -1, n, lp, lq) + binom_tail(hi, +1, n, lp, lq);
        }
    } else {
        uint64_t lo = 0, hi = mode; /* pmf(hi) > limit */
        if (log_binom_pmf(0, n, lp, lq) > limit) {
            sum = binom_tail(k, +1, n, lp, lq);
        } else {
            while (hi - lo > 1) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (log_binom_pmf(mid, n, lp, lq) <= limit)
                    lo = mid;
                else
                    hi = mid;
            }
            sum = binom_tail(k, +1, n, lp, lq) + binom_tail(lo, -1, n, lp, lq);
        }
    }
    *p = sum > 1 ? 1 : sum;
    return LOGTK_OK;
}

/* G of ka out of k against share p0 (2 * sum O ln(O/E)); 0 ln 0 = 0. */
static double binom_g(uint64_t ka, uint64_t k, double p0)
{
    double g = 0, ea = (double)k * p0, eb = (double)k * (1 - p0);
    uint64_t kb = k - ka;
    if (ka)
        g += (double)ka * log((double)ka / ea);
    if (kb)
        g += (double)kb * log((double)kb / eb);
    g *= 2;
    return g > 0 ? g : 0;
}

typedef struct ranked_value {
    double v;
    int side;
} ranked_value;

static int cmp_ranked(const void *x, const void *y)
{
    double a = ((const ranked_value *)x)->v, b = ((const ranked_value *)y)->v;
    return a < b ? -1 : a > b;
}

int logtk_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u,
                       double *z, double *p)
{
    if ((na && !a) || (nb && !b) || !p)
        return LOGTK_ERR_INVALID;
    double zz = 0, uu = 0;
    *p = 1;
    if (na == 0 || nb == 0)
        goto out;
    size_t n = na + nb;
    ranked_value *all = malloc(n * sizeof *all);
    if (!all)
        return LOGTK_ERR_NOMEM;
    for (size_t i = 0; i < na; i++)
        all[i] = (ranked_value){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (ranked_value){b[i], 1};
    qsort(all, n, sizeof *all, cmp_ranked);
    double rank_sum_a = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].v == all[i].v)
            j++;
        double avg = (double)(i + 1 + j) / 2; /* ranks i+1..j */
        double t = (double)(j - i);
        ties += t * t * t - t;
        for (size_t m = i; m < j; m++)
            if (all[m].side == 0)
                rank_sum_a += avg;
        i = j;
    }
    free(all);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    uu = rank_sum_a - dna * (dna + 1) / 2;
    double mu = dna * dnb / 2;
    double var = dna * dnb / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (var <= 0)
        goto out;
    double d = uu - mu;
    double cc = d > 0 ? 0.5 : d < 0 ? -0.5 : 0; /* continuity */
    zz = (d - cc) / sqrt(var);
    *p = erfc(fabs(zz) / sqrt(2.0));
    if (*p > 1)
        *p = 1;
out:
    if (u)
        *u = uu;
    if (z)
        *z = zz;
    return LOGTK_OK;
}

typedef struct p_index {
    double p;
    size_t i;
} p_index;

static int cmp_p(const void *x, const void *y)
{
    const p_index *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

int logtk_bh_adjust(const double *p, size_t n, double *q)
{
    if (n == 0)
        return LOGTK_OK;
    if (!p || !q)
        return LOGTK_ERR_INVALID;
    p_index *s = malloc(n * sizeof *s);
    if (!s)
        return LOGTK_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        s[i] = (p_index){p[i], i};
    qsort(s, n, sizeof *s, cmp_p);
    double running = 1;
    for (size_t r = n; r-- > 0;) {
        double v = s[r].p * (double)n / (double)(r + 1);
        if (v < running)
            running = v;
        s[r].p = running;
    }
    for (size_t r = 0; r < n; r++)
        q[s[r].i] = s[r].p;
    free(s);
    return LOGTK_OK;
}

/* ------------------------------------------------------------ handle */

int logtk_diff_new(logtk_diff **out)
{
    *out = NULL;
    logtk_diff *d = calloc(1, sizeof *d);
    if (!d)
        return LOGTK_ERR_NOMEM;
    ltk_arena_init(&d->arena, 0);
    d->alpha = 0.05;
    d->min_ratio = 1.5;
    d->min_shift = 0.1;
    d->nexamples_opt = 3;
    d->sample = 1000;
    d->top = 5;
    d->rng = 1;
    if (ltk_u64map_init(&d->group_index, 16) != 0) {
        free(d);
        return LOGTK_ERR_NOMEM;
    }
    *out = d;
    return LOGTK_OK;
}

static void free_results(logtk_diff *d)
{
    free(d->changes);
    d->changes = NULL;
    d->nchanges = 0;
    free(d->params);
    d->params = NULL;
    d->nparams_res = d->params_cap = 0;
    free(d->peers);
    d->peers = NULL;
    d->npeers = 0;
    free(d->peer_tops);
    d->peer_tops = NULL;
    d->npeer_tops = 0;
}

static void free_cell(diff_cell *c)
{
    for (uint32_t i = 0; i < c->nparams; i++)
        free(c->values[i].v);
    free(c->values);
    c->values = NULL;
    c->nparams = 0;
}

void logtk_diff_free(logtk_diff *d)
{
    if (!d)
        return;
    for (size_t t = 0; t < d->ntemplates; t++) {
        for (uint32_t g = 0; g < d->templates[t].ncells; g++)
            free_cell(&d->templates[t].cells[g]);
        free(d->templates[t].cells);
    }
    free(d->templates);
    free(d->group_names);
    free(d->group_lines);
    ltk_u64map_free(&d->group_index);
    free_results(d);
    free(d->scratch);
    ltk_arena_free(&d->arena);
    free(d);
}

const char *logtk_diff_errmsg(const logtk_diff *d)
{
    return d ? ltk_error_text(&d->err) : "";
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int logtk_diff_set_option(logtk_diff *d, const char *name, const char *value)
{
    double v;
    if (!name || !value)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "option name and value needed");
    int known = 1, bad = 0;
    if (strcmp(name, "alpha") == 0)
        bad = parse_num(value, 0, 1, &v) || !(v > 0 && v < 1) ? 1 : (d->alpha = v, 0);
    else if (strcmp(name, "min_ratio") == 0)
        bad = parse_num(value, 1, 1e12, &v) ? 1 : (d->min_ratio = v, 0);
    else if (strcmp(name, "min_shift") == 0)
        bad = parse_num(value, 0, 0.5, &v) ? 1 : (d->min_shift = v, 0);
    else if (strcmp(name, "examples") == 0)
        bad = parse_num(value, 0, DIFF_MAX_EXAMPLES, &v) || v != floor(v) ? 1
                                                           : (d->nexamples_opt = (uint32_t)v, 0);
    else if (strcmp(name, "sample") == 0)
        bad = parse_num(value, 10, 1e6, &v) || v != floor(v) ? 1 : (d->sample = (uint32_t)v, 0);
    else if (strcmp(name, "top") == 0)
        bad = parse_num(value, 1, 1000, &v) || v != floor(v) ? 1 : (d->top = (uint32_t)v, 0);
    else if (strcmp(name, "seed") == 0)
        bad = parse_num(value, 0, 1e18, &v) || v != floor(v) ? 1 : (d->rng = (uint64_t)v + 1, 0);
    else
        known = 0;
    if (!known)
        return ltk_error_set(&d->err, LOGTK_ERR_NOT_FOUND, "unknown diff option '%s'", name);
    if (bad)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "bad value '%s' for diff option %s",
                               value, name);
    return LOGTK_OK;
}

static uint64_t fnv64(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

int logtk_diff_group(logtk_diff *d, const char *name, size_t len, uint32_t *group)
{
    /* probe h, h+1, ... so two names with one hash still get two groups */
    uint64_t h = fnv64(name, len);
    for (;; h++) {
        uint32_t *found = ltk_u64map_find(&d->group_index, h);
        if (!found)
            break;
        const char *g = d->group_names[*found - 1];
        if (strlen(g) == len && memcmp(g, name, len) == 0) {
            *group = *found - 1;
            return LOGTK_OK;
        }
    }
    if (d->ngroups >= UINT32_MAX - 1)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "too many groups");
    size_t cap = d->groups_cap;
    if (ltk_array_reserve((void **)&d->group_names, &cap, d->ngroups + 1, sizeof(char *)))
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    cap = d->groups_cap;
    if (ltk_array_reserve((void **)&d->group_lines, &cap, d->ngroups + 1, sizeof(uint64_t)))
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    d->groups_cap = cap;
    char *copy = ltk_arena_strndup(&d->arena, name, len);
    if (!copy || ltk_u64map_put(&d->group_index, h, (uint32_t)d->ngroups + 1) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    d->group_names[d->ngroups] = copy;
    d->group_lines[d->ngroups] = 0;
    *group = (uint32_t)d->ngroups++;
    return LOGTK_OK;
}

uint32_t logtk_diff_group_count(const logtk_diff *d)
{
    return (uint32_t)d->ngroups;
}

const char *logtk_diff_group_name(const logtk_diff *d, uint32_t group)
{
    return group < d->ngroups ? d->group_names[group] : NULL;
}

uint64_t logtk_diff_group_lines(const logtk_diff *d, uint32_t group)
{
    return group < d->ngroups ? d->group_lines[group] : 0;
}

static diff_template *get_template(logtk_diff *d, uint32_t id)
{
    if (id >= d->ntemplates) {
        if (ltk_array_reserve((void **)&d->templates, &d->templates_cap, (size_t)id + 1,
                                sizeof *d->templates))
            return NULL;
        memset(d->templates + d->ntemplates, 0,
               ((size_t)id + 1 - d->ntemplates) * sizeof *d->templates);
        d->ntemplates = (size_t)id + 1;
    }
    return &d->templates[id];
}

static diff_cell *get_cell(diff_template *t, uint32_t group)
{
    if (group >= t->ncells) {
        uint32_t n = group + 1 > 2 * t->ncells ? group + 1 : 2 * t->ncells;
        diff_cell *c = realloc(t->cells, (size_t)n * sizeof *c);
        if (!c)
            return NULL;
        memset(c + t->ncells, 0, (size_t)(n - t->ncells) * sizeof *c);
        t->cells = c;
        t->ncells = n;
    }
    return &t->cells[group];
}

/* splitmix64: fast, seeded, the same sequence everywhere */
static uint64_t next_random(logtk_diff *d)
{
    uint64_t z = (d->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A decimal number, optionally signed and followed by a short unit ("12ms",
   "3.5s", "99%"); ids, addresses, times and hex are not numbers here. */
static int numeric_value(const char *s, size_t n, double *out)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    size_t digits = 0;
    double v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        v = v * 10 + (s[i++] - '0'), digits++;
    if (i < n && s[i] == '.') {
        double scale = 0.1;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
            v += (s[i] - '0') * scale, digits++;
    }
    if (digits == 0)
        return 0;
    size_t unit = 0;
    for (; i < n && unit <= 3; i++, unit++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%'))
            return 0;
    }
    if (i < n)
        return 0;
    *out = s[0] == '-' ? -v : v;
    return 1;
}

int logtk_diff_add(logtk_diff *d, uint32_t group, const logtk_event *ev, const char *line,
                   size_t len)
{
    if (!ev || ev->template_id == 0 || group >= d->ngroups || (ev->nparams && !ev->params))
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID,
                               "diff: a line needs a template id and a known group");
    diff_template *t = get_template(d, ev->template_id);
    diff_cell *c = t ? get_cell(t, group) : NULL;
    if (!c)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    c->count++;
    d->group_lines[group]++;
    if (c->nexamples < d->nexamples_opt && line) {
        if (!c->examples &&
            !(c->examples = ltk_arena_alloc(&d->arena, d->nexamples_opt * sizeof(logtk_slice))))
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        char *copy = ltk_arena_strndup(&d->arena, line, len);
        if (!copy)
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        c->examples[c->nexamples++] = (logtk_slice){copy, len};
    }
    if (ev->nparams == 0 && c->nparams == 0)
        return LOGTK_OK;
    if (ev->nparams != c->nparams) {
        free_cell(c);
        if (ev->nparams > UINT32_MAX / 2)
            return LOGTK_OK;
        c->values = calloc(ev->nparams, sizeof *c->values);
        if (!c->values)
            return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
        c->nparams = (uint32_t)ev->nparams;
    }
    for (size_t i = 0; i < ev->nparams; i++) {
        diff_values *dv = &c->values[i];
        double x;
        dv->seen++;
        if (!numeric_value(ev->params[i].ptr, ev->params[i].len, &x))
            continue;
        dv->numeric++;
        if (dv->n < d->sample) {
            if (dv->n == dv->cap) {
                uint32_t cap = dv->cap ? dv->cap * 2 : 8;
                if (cap > d->sample)
                    cap = d->sample;
                double *v = realloc(dv->v, cap * sizeof *v);
                if (!v)
                    return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
                dv->v = v;
                dv->cap = cap;
            }
            dv->v[dv->n++] = x;
        } else {
            uint64_t j = next_random(d) % dv->numeric;
            if (j < dv->n)
                dv->v[j] = x;
        }
    }
    return LOGTK_OK;
}

int logtk_diff_set_template(logtk_diff *d, uint32_t template_id, const char *text, size_t len)
{
    if (template_id == 0 || (len && !text))
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "diff: template id 0");
    diff_template *t = get_template(d, template_id);
    char *copy = t ? ltk_arena_strndup(&d->arena, text ? text : "", len) : NULL;
    if (!copy)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    t->text = copy;
    t->text_len = len;
    d->folded = 0;
    return LOGTK_OK;
}

/* Moves src's counts, examples and samples into dst (the same text). */
static int merge_cell(logtk_diff *d, diff_cell *dst, diff_cell *src)
{
    dst->count += src->count;
    for (uint32_t i = 0; i < src->nexamples && dst->nexamples < d->nexamples_opt; i++) {
        if (!dst->examples &&
            !(dst->examples = ltk_arena_alloc(&d->arena, d->nexamples_opt * sizeof(logtk_slice))))
            return -1;
        dst->examples[dst->nexamples++] = src->examples[i];
    }
    if (src->nparams == dst->nparams) {
        for (uint32_t i = 0; i < src->nparams; i++) {
            diff_values *a = &dst->values[i], *b = &src->values[i];
            for (uint32_t j = 0; j < b->n; j++) {
                if (a->n < d->sample) {
                    if (a->n == a->cap) {
                        uint32_t cap = a->cap ? a->cap * 2 : 8;
                        double *v = realloc(a->v, cap * sizeof *v);
                        if (!v)
                            return -1;
                        a->v = v;
                        a->cap = cap;
                    }
                    a->v[a->n++] = b->v[j];
                } else {
                    uint64_t k = next_random(d) % (a->numeric + j + 1);
                    if (k < a->n)
                        a->v[k] = b->v[j];
                }
            }
            a->numeric += b->numeric;
            a->seen += b->seen;
        }
    } else if (src->count > dst->count - src->count || dst->nparams == 0) {
        /* shapes differ: keep the samples of the larger part */
        diff_cell keep = *src;
        src->values = dst->values;
        src->nparams = dst->nparams;
        dst->values = keep.values;
        dst->nparams = keep.nparams;
    }
    free_cell(src);
    src->count = 0;
    src->nexamples = 0;
    return 0;
}

/* Templates whose texts are equal become one, under the lowest id. */
static int fold_templates(logtk_diff *d)
{
    if (d->folded)
        return LOGTK_OK;
    ltk_u64map first;
    if (ltk_u64map_init(&first, d->ntemplates + 1) != 0)
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t id = 1; id < d->ntemplates; id++) {
        diff_template *t = &d->templates[id];
        if (!t->text)
            continue;
        uint64_t h = fnv64(t->text, t->text_len);
        for (;; h++) {
            uint32_t *f = ltk_u64map_find(&first, h);
            if (!f) {
                if (ltk_u64map_put(&first, h, (uint32_t)id) != 0)
                    goto nomem;
                break;
            }
            diff_template *o = &d->templates[*f];
            if (o->text_len == t->text_len && memcmp(o->text, t->text, t->text_len) == 0) {
                for (uint32_t g = 0; g < t->ncells; g++) {
                    diff_cell *dst = get_cell(o, g);
                    if (!dst || merge_cell(d, dst, &t->cells[g]) != 0)
                        goto nomem;
                }
                break;
            }
        }
    }
    ltk_u64map_free(&first);
    d->folded = 1;
    return LOGTK_OK;
nomem:
    ltk_u64map_free(&first);
    return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
}

static const diff_cell *cell_at(const diff_template *t, size_t g)
{
    return g < t->ncells ? &t->cells[g] : NULL;
}

static uint64_t cell_count(const diff_cell *c)
{
    return c ? c->count : 0;
}

/* Numeric samples fit for a test: enough values, nearly all of them numbers. */
static int values_testable(const diff_values *v)
{
    return v->n >= DIFF_MIN_VALUES && (double)v->numeric >= DIFF_MIN_NUMERIC * (double)v->seen;
}

static double median_of(double *v, size_t n)
{
    /* v is sorted by the caller */
    if (n == 0)
        return 0;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int push_param(logtk_diff *d, const logtk_diff_param *p)
{
    if (ltk_array_reserve((void **)&d->params, &d->params_cap, d->nparams_res + 1,
                            sizeof *d->params))
        return -1;
    d->params[d->nparams_res++] = *p;
    return 0;
}

/* One parameter test: a against b (b may be several cells' values, gathered
   in scratch by the caller). */
static int param_test(logtk_diff *d, size_t index, const double *a, size_t na, const double *b,
                      size_t nb)
{
    logtk_diff_param r;
    memset(&r, 0, sizeof r);
    r.index = index;
    r.n_a = na;
    r.n_b = nb;
    double z, u;
    int rc = logtk_mann_whitney(a, na, b, nb, &u, &z, &r.p);
    if (rc != LOGTK_OK)
        return rc;
    r.score = z * z;
    /* the common-language effect size: P(a value of a > one of b) */
    r.shift = u / ((double)na * (double)nb) - 0.5;
    double *sa = malloc((na + nb) * sizeof *sa);
    if (!sa)
        return LOGTK_ERR_NOMEM;
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sa + na, b, nb * sizeof *sa);
    qsort(sa, na, sizeof *sa, cmp_double);
    qsort(sa + na, nb, sizeof *sa, cmp_double);
    r.median_a = median_of(sa, na);
    r.median_b = median_of(sa + na, nb);
    free(sa);
    return push_param(d, &r) ? LOGTK_ERR_NOMEM : LOGTK_OK;
}

static int correct_params(logtk_diff *d, size_t from)
{
    size_t n = d->nparams_res - from;
    double *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        return LOGTK_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        p[i] = d->params[from + i].p;
    int rc = logtk_bh_adjust(p, n, p);
    for (size_t i = 0; rc == LOGTK_OK && i < n; i++) {
        d->params[from + i].q = p[i];
        d->params[from + i].significant =
            p[i] < d->alpha && fabs(d->params[from + i].shift) >= d->min_shift;
    }
    free(p);
    return rc;
}

static int ratio_large(const logtk_diff *d, double ra, double rb)
{
    if (ra == 0 || rb == 0)
        return ra != rb;
    double r = ra > rb ? ra / rb : rb / ra;
    return r >= d->min_ratio;
}

static int cmp_change(const void *x, const void *y)
{
    const diff_change_rec *a = x, *b = y;
    if (a->c.significant != b->c.significant)
        return b->c.significant - a->c.significant;
    if (a->rank_key != b->rank_key)
        return a->rank_key > b->rank_key ? -1 : 1;
    return a->c.template_id < b->c.template_id ? -1 : a->c.template_id > b->c.template_id;
}

int logtk_diff_compare(logtk_diff *d, uint32_t a, uint32_t b)
{
    if (a >= d->ngroups || b >= d->ngroups || a == b)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "diff: need two different groups");
    free_results(d);
    int rc = fold_templates(d);
    if (rc != LOGTK_OK)
        return rc;
    uint64_t na = d->group_lines[a], nb = d->group_lines[b];
    double share = na + nb ? (double)na / (double)(na + nb) : 0.5;
    size_t n = 0;
    for (size_t id = 1; id < d->ntemplates; id++)
        if (cell_count(cell_at(&d->templates[id], a)) + cell_count(cell_at(&d->templates[id], b)))
            n++;
    d->changes = calloc(n ? n : 1, sizeof *d->changes);
    double *pv = malloc((n ? n : 1) * sizeof *pv);
    if (!d->changes || !pv) {
        free(pv);
        return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    for (size_t id = 1; id < d->ntemplates; id++) {
        const diff_template *t = &d->templates[id];
        const diff_cell *ca = cell_at(t, a), *cb = cell_at(t, b);
        uint64_t ka = cell_count(ca), kb = cell_count(cb);
        if (ka + kb == 0)
            continue;
        diff_change_rec *r = &d->changes[d->nchanges];
        r->cell_a = ca;
        r->cell_b = cb;
        r->c.template_id = (uint32_t)id;
        r->c.text = (logtk_slice){t->text ? t->text : "", t->text_len};
        r->c.count_a = ka;
        r->c.count_b = kb;
        r->c.rate_a = na ? (double)ka / (double)na : 0;
        r->c.rate_b = nb ? (double)kb / (double)nb : 0;
        logtk_binomial_test(ka, ka + kb, share, &r->c.p);
        r->c.score = binom_g(ka, ka + kb, share);
        r->c.nexamples_a = ca ? ca->nexamples : 0;
        r->c.nexamples_b = cb ? cb->nexamples : 0;
        pv[d->nchanges++] = r->c.p;
    }
    rc = logtk_bh_adjust(pv, d->nchanges, pv);
    for (size_t i = 0; rc == LOGTK_OK && i < d->nchanges; i++)
        d->changes[i].c.q = pv[i];
    free(pv);
    if (rc != LOGTK_OK)
        return ltk_error_set(&d->err, rc, "out of memory");
    /* parameters of templates present on both sides */
    for (size_t i = 0; i < d->nchanges; i++) {
        diff_change_rec *r = &d->changes[i];
        r->param_first = d->nparams_res;
        const diff_cell *ca = r->cell_a, *cb = r->cell_b;
        if (!ca || !cb || !ca->count || !cb->count || ca->nparams != cb->nparams)
            continue;
        for (uint32_t k = 0; k < ca->nparams; k++) {
            if (!values_testable(&ca->values[k]) || !values_testable(&cb->values[k]))
                continue;
            rc = param_test(d, k, ca->values[k].v, ca->values[k].n, cb->values[k].v,
                            cb->values[k].n);
            if (rc != LOGTK_OK)
                return ltk_error_set(&d->err, rc, "out of memory");
        }
        r->c.nparams = d->nparams_res - r->param_first;
    }
    if ((rc = correct_params(d, 0)) != LOGTK_OK)
        return ltk_error_set(&d->err, rc, "out of memory");
    for (size_t i = 0; i < d->nchanges; i++) {
        diff_change_rec *r = &d->changes[i];
        int count_sig = r->c.q < d->alpha && ratio_large(d, r->c.rate_a, r->c.rate_b);
        r->rank_key = r->c.score;
        int param_sig = 0;
        for (size_t k = 0; k < r->c.nparams; k++) {
            const logtk_diff_param *pp = &d->params[r->param_first + k];
            if (pp->significant) {
                param_sig = 1;
                if (pp->score > r->rank_key)
                    r->rank_key = pp->score;
            }
        }
        r->c.significant = count_sig || param_sig;
        r->c.status = r->c.count_a == 0   ? LOGTK_DIFF_APPEARED
                      : r->c.count_b == 0 ? LOGTK_DIFF_VANISHED
                      : r->c.significant  ? LOGTK_DIFF_CHANGED
                                          : LOGTK_DIFF_SAME;
    }
    qsort(d->changes, d->nchanges, sizeof *d->changes, cmp_change);
    return LOGTK_OK;
}

size_t logtk_diff_change_count(const logtk_diff *d)
{
    return d->nchanges;
}

int logtk_diff_change_at(const logtk_diff *d, size_t rank, logtk_diff_change *out)
{
    if (rank >= d->nchanges)
        return LOGTK_ERR_NOT_FOUND;
    *out = d->changes[rank].c;
    return LOGTK_OK;
}

int logtk_diff_change_param(const logtk_diff *d, size_t rank, size_t i, logtk_diff_param *out)
{
    if (rank >= d->nchanges || i >= d->changes[rank].c.nparams)
        return LOGTK_ERR_NOT_FOUND;
    *out = d->params[d->changes[rank].param_first + i];
    return LOGTK_OK;
}

int logtk_diff_change_example(const logtk_diff *d, size_t rank, int side, size_t i,
                              logtk_slice *line)
{
    if (rank >= d->nchanges || (side != 0 && side != 1))
        return LOGTK_ERR_NOT_FOUND;
    const diff_cell *c = side ? d->changes[rank].cell_b : d->changes[rank].cell_a;
    if (!c || i >= c->nexamples)
        return LOGTK_ERR_NOT_FOUND;
    *line = c->examples[i];
    return LOGTK_OK;
}

/* ------------------------------------------------------------ peers */

/* One (peer, template) pair during logtk_diff_peers(). */
typedef struct peer_test {
    uint32_t group, template_id;
    uint64_t count, all;  /* in the peer; in every group */
    double expected, g, p, q;
    double param_score;   /* z^2 of its significant parameter tests */
    double max_stat;      /* largest statistic, significant or not */
    int significant;
} peer_test;

static int cmp_peer_test(const void *x, const void *y)
{
    const peer_test *a = x, *b = y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    double sa = (a->significant ? a->g : 0) + a->param_score;
    double sb = (b->significant ? b->g : 0) + b->param_score;
    if ((a->significant != 0) != (b->significant != 0))
        return (b->significant != 0) - (a->significant != 0);
    if (sa != sb)
        return sa > sb ? -1 : 1;
    if (a->max_stat != b->max_stat)
        return a->max_stat > b->max_stat ? -1 : 1;
    return a->template_id < b->template_id ? -1 : a->template_id > b->template_id;
}

static int cmp_peer(const void *x, const void *y)
{
    const diff_peer_rec *a = x, *b = y;
    if (a->p.score != b->p.score)
        return a->p.score > b->p.score ? -1 : 1;
    if (a->p.max_stat != b->p.max_stat)
        return a->p.max_stat > b->p.max_stat ? -1 : 1;
    return a->p.group < b->p.group ? -1 : a->p.group > b->p.group;
}

/* Gathers the values at position k of every cell of t but group g whose
   shape is `shape` into d->scratch; *numeric and *seen sum their counters. */
static int gather_rest(logtk_diff *d, const diff_template *t, uint32_t g, uint32_t k,
                       uint32_t shape, size_t *n, uint64_t *numeric, uint64_t *seen)
{
    *n = 0;
    *numeric = *seen = 0;
    for (uint32_t o = 0; o < t->ncells && o < d->ngroups; o++) {
        const diff_cell *c = &t->cells[o];
        if (o == g || !c->count || c->nparams != shape)
            continue;
        const diff_values *v = &c->values[k];
        if (ltk_array_reserve((void **)&d->scratch, &d->scratch_cap, *n + v->n, sizeof(double)))
            return LOGTK_ERR_NOMEM;
        if (v->n)
            memcpy(d->scratch + *n, v->v, v->n * sizeof(double));
        *n += v->n;
        *numeric += v->numeric;
        *seen += v->seen;
    }
    return LOGTK_OK;
}

int logtk_diff_peers(logtk_diff *d)
{
    if (d->ngroups < 2)
        return ltk_error_set(&d->err, LOGTK_ERR_INVALID, "diff: peers need at least 2 groups");
    free_results(d);
    int rc = fold_templates(d);
    if (rc != LOGTK_OK)
        return rc;
    uint64_t total = 0;
    for (size_t g = 0; g < d->ngroups; g++)
        total += d->group_lines[g];

    peer_test *tests = NULL;
    size_t ntests = 0, tests_cap = 0;
    double *pv = NULL;
    size_t pv_cap = 0;
    for (size_t id = 1; id < d->ntemplates; id++) {
        const diff_template *t = &d->templates[id];
        uint64_t all = 0;
        for (uint32_t g = 0; g < t->ncells && g < d->ngroups; g++)
            all += t->cells[g].count;
        if (all == 0)
            continue;
        for (uint32_t g = 0; g < d->ngroups; g++) {
            const diff_cell *c = cell_at(t, g);
            uint64_t k = cell_count(c);
            double share = total ? (double)d->group_lines[g] / (double)total : 0;
            if (ltk_array_reserve((void **)&tests, &tests_cap, ntests + 1, sizeof *tests))
                goto nomem;
            peer_test *pt = &tests[ntests++];
            memset(pt, 0, sizeof *pt);
            pt->group = g;
            pt->template_id = (uint32_t)id;
            pt->count = k;
            pt->all = all;
            pt->expected = (double)all * share;
            logtk_binomial_test(k, all, share, &pt->p);
            pt->g = binom_g(k, all, share);
            pt->max_stat = pt->g;
        }
    }
    if (ltk_array_reserve((void **)&pv, &pv_cap, ntests + 1, sizeof *pv))
        goto nomem;
    for (size_t i = 0; i < ntests; i++)
        pv[i] = tests[i].p;
    if (logtk_bh_adjust(pv, ntests, pv) != LOGTK_OK)
        goto nomem;
    /* Tests come in blocks of one template x every group.  Besides the pooled
       rate of the others, a peer must differ from the median of the others'
       rates: when one host floods a template, the pooled rate of the rest
       rises for every other host, and they would all look short of it. */
    double *rates = malloc(d->ngroups * sizeof *rates), *others = malloc(d->ngroups * sizeof *others);
    if (!rates || !others) {
        free(rates);
        free(others);
        goto nomem;
    }
    for (size_t block = 0; block < ntests; block += d->ngroups) {
        for (size_t g = 0; g < d->ngroups; g++) {
            uint64_t ng = d->group_lines[g];
            rates[g] = ng ? (double)tests[block + g].count / (double)ng : 0;
        }
        for (size_t g = 0; g < d->ngroups; g++) {
            peer_test *pt = &tests[block + g];
            uint64_t ng = d->group_lines[g], rest_lines = total - ng;
            double rest_rate = rest_lines ? (double)(pt->all - pt->count) / (double)rest_lines : 0;
            size_t n = 0;
            for (size_t o = 0; o < d->ngroups; o++)
                if (o != g && d->group_lines[o])
                    others[n++] = rates[o];
            qsort(others, n, sizeof *others, cmp_double);
            double median = median_of(others, n);
            pt->q = pv[block + g];
            pt->significant = ng && pt->q < d->alpha && ratio_large(d, rates[g], rest_rate) &&
                              ratio_large(d, rates[g], median);
        }
    }
    free(rates);
    free(others);

    /* parameter tests: a peer's values against every other peer's */
    size_t *owner = NULL, owner_cap = 0; /* the test each parameter result belongs to */
    for (size_t i = 0; i < ntests; i++) {
        peer_test *pt = &tests[i];
        const diff_template *t = &d->templates[pt->template_id];
        const diff_cell *c = cell_at(t, pt->group);
        if (!c || !c->count || !c->nparams)
            continue;
        for (uint32_t k = 0; k < c->nparams; k++) {
            if (!values_testable(&c->values[k]))
                continue;
            size_t nrest;
            uint64_t numeric, seen;
            if (gather_rest(d, t, pt->group, k, c->nparams, &nrest, &numeric, &seen) != LOGTK_OK)
                goto nomem_owner;
            if (nrest < DIFF_MIN_VALUES || (double)numeric < DIFF_MIN_NUMERIC * (double)seen)
                continue;
            if (param_test(d, k, c->values[k].v, c->values[k].n, d->scratch, nrest) != LOGTK_OK)
                goto nomem_owner;
            if (ltk_array_reserve((void **)&owner, &owner_cap, d->nparams_res, sizeof *owner))
                goto nomem_owner;
            owner[d->nparams_res - 1] = i;
        }
    }
    if (correct_params(d, 0) != LOGTK_OK)
        goto nomem_owner;
    for (size_t r = 0; r < d->nparams_res; r++) {
        peer_test *pt = &tests[owner[r]];
        const logtk_diff_param *pp = &d->params[r];
        if (pp->score > pt->max_stat)
            pt->max_stat = pp->score;
        if (pp->significant)
            pt->param_score += pp->score;
    }
    free(owner);
    owner = NULL;
    for (size_t i = 0; i < ntests; i++)
        if (tests[i].param_score > 0)
            tests[i].significant |= 2;

    /* per peer: score, ranking, top templates */
    qsort(tests, ntests, sizeof *tests, cmp_peer_test);
    d->peers = calloc(d->ngroups, sizeof *d->peers);
    d->peer_tops = calloc((size_t)d->ngroups * d->top, sizeof *d->peer_tops);
    if (!d->peers || !d->peer_tops)
        goto nomem;
    d->npeers = d->ngroups;
    size_t i = 0;
    for (uint32_t g = 0; g < d->ngroups; g++) {
        diff_peer_rec *pr = &d->peers[g];
        pr->p.group = g;
        pr->p.lines = d->group_lines[g];
        pr->top_first = d->npeer_tops;
        for (; i < ntests && tests[i].group == g; i++) {
            peer_test *pt = &tests[i];
            int count_sig = pt->significant & 1;
            double s = (count_sig ? pt->g : 0) + pt->param_score;
            pr->p.score += s;
            if (pt->max_stat > pr->p.max_stat)
                pr->p.max_stat = pt->max_stat;
            if (pt->significant)
                pr->p.significant = 1;
            if (pr->p.ntop < d->top) {
                const diff_template *t = &d->templates[pt->template_id];
                logtk_diff_peer_template *top = &d->peer_tops[d->npeer_tops++];
                top->template_id = pt->template_id;
                top->text = (logtk_slice){t->text ? t->text : "", t->text_len};
                top->count = pt->count;
                top->expected = pt->expected;
                top->score = pt->g + pt->param_score;
                top->p = pt->p;
                top->q = pt->q;
                top->significant = pt->significant != 0;
                pr->p.ntop++;
            }
        }
    }
    qsort(d->peers, d->npeers, sizeof *d->peers, cmp_peer);
    free(tests);
    free(pv);
    return LOGTK_OK;
nomem_owner:
    free(owner);
nomem:
    free(tests);
    free(pv);
    free_results(d);
    return ltk_error_set(&d->err, LOGTK_ERR_NOMEM, "out of memory");
}

size_t logtk_diff_peer_count(const logtk_diff *d)
{
    return d->npeers;
}

int logtk_diff_peer_at(const logtk_diff *d, size_t rank, logtk_diff_peer *out)
{
    if (rank >= d->npeers)
        return LOGTK_ERR_NOT_FOUND;
    *out = d->peers[rank].p;
    return LOGTK_OK;
}

int logtk_diff_peer_template_at(const logtk_diff *d, size_t rank, size_t i,
                                logtk_diff_peer_template *out)
{
    if (rank >= d->npeers || i >= d->peers[rank].p.ntop)
        return LOGTK_ERR_NOT_FOUND;
    *out = d->peer_tops[d->peers[rank].top_first + i];
    return LOGTK_OK;
}
