/*
 * cmd_bench_diff.c - `logtk bench diff`: the planted-fault benchmark of
 * `logtk diff --peers`.
 *
 * Real faults with known ground truth on many hosts are not public, so
 * they are planted: a Loghub-2k log is dealt round robin to K "hosts"
 * (so the hosts are healthy peers of one system with the same mix), and
 * one host gets one fault:
 *   new       n lines of an error message none of the logs has (the header
 *             of one of the host's own lines, so the format still matches);
 *   rate      one of the host's templates made f times as frequent (copies
 *             of its lines) or f times as rare (its lines removed);
 *   param     a numeric parameter of one of the host's templates multiplied
 *             by f on all its lines there (a latency or size shift).
 * Strengths vary per case (n, f); "changed" is the number of lines the
 * fault adds, removes or alters.  Cases without a fault measure false
 * alarms.  Everything follows from --seed (splitmix64), so a run is
 * repeatable to the byte.
 *
 * Scoring, per case, from the library call `logtk diff --peers` makes
 * (logtk_diff_peers) over one parser fed every host:
 *   P@1   the faulty host is ranked first;
 *   R@3   the injected template (the template the planted lines got) is
 *         among the first 3 templates named for the faulty host;
 *   flag  the faulty host has a significant change;
 *   false alarm (no-fault cases): some host has a significant change.
 * The table splits fault cases into "changed >= 20 lines" and fewer.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SUB "bench diff"

enum fault_kind { FAULT_NEW, FAULT_RATE, FAULT_PARAM, FAULT_NONE, NKINDS };
static const char *const kind_names[NKINDS] = {"new", "rate", "param", "none"};

typedef struct bench_line {
    size_t off, len;       /* in the dataset's text */
    size_t content_off;    /* where the content starts within the line */
    size_t content_len;
    uint32_t tmpl;         /* canonical template of the reference parse */
} bench_line;

typedef struct bench_data {
    const char *name;
    char *text;
    size_t text_len, text_cap;
    bench_line *lines;
    size_t nlines, lines_cap;
} bench_data;

/* One line of a generated host: a line of the dataset or new bytes. */
typedef struct case_line {
    const char *data;
    size_t len;
    int target;            /* planted or altered: its template is the injected one */
} case_line;

static uint64_t rng_state;

static uint64_t next_rand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t rand_below(size_t n)
{
    return n ? (size_t)(next_rand() % n) : 0;
}

static void bench_diff_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk bench diff --loghub DIR [--cases N] [--no-fault N] [--hosts K]\n"
            "                        [--seed S] [--dataset A,B,...] [--shuffle] [--check] [--quiet]\n"
            "\n"
            "The planted-fault benchmark of 'logtk diff --peers': each Loghub-2k log is dealt\n"
            "round robin to K hosts (default: 4, 6 or 8 per case) and one host gets a fault\n"
            "(a new error template, a template's rate times a factor, or a numeric parameter\n"
            "times a factor), of varied strength.  Prints, per fault kind and for faults\n"
            "changing >= 20 lines or fewer: cases, P@1 (faulty host ranked first), R@3\n"
            "(injected template in its top 3), flagged (faulty host significant); and the\n"
            "false-alarm rate on cases with no fault.\n"
            "\n"
            "  --loghub DIR      folder of the Loghub-2k datasets (DIR/NAME/NAME_2k.log)\n"
            "  --cases N         fault cases (default 300, a third of each kind)\n"
            "  --no-fault N      cases without a fault (default 100)\n"
            "  --hosts K         hosts per case (2..64; default 4, 6 or 8 at random)\n"
            "  --seed S          seed of the case generator (default 1)\n"
            "  --dataset A,B     only these datasets (default: all 16)\n"
            "  --shuffle         deal the lines in a random order (hosts then differ by chance\n"
            "                    only; a log with a periodic pattern, such as OpenSSH's, deals\n"
            "                    round robin into hosts that truly differ)\n"
            "  --check           exit 1 unless P@1, R@3 >= .95 on faults of >= 20 lines and\n"
            "                    the false-alarm rate <= --max-false-alarms (default .05)\n"
            "  -q, --quiet       no per-case lines on stderr\n");
}

static int load_dataset(bench_data *bd, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s_2k.log", dir, name, name);
    const logtk_dataset *ds = logtk_dataset_find(name);
    logtk_reader *r = NULL;
    logtk_format *f = NULL;
    logtk_parser *p = NULL;
    int ok = 0;
    bd->name = ds ? logtk_dataset_name(ds) : name;
    if (!ds || logtk_reader_new(&r) || logtk_format_new(&f) ||
        logtk_format_compile(f, logtk_dataset_format(ds)) || logtk_parser_new(&p, NULL) ||
        logtk_dataset_configure(ds, p))
        goto out;
    if (logtk_reader_open_path(r, path) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_reader_errmsg(r));
        goto out;
    }
    logtk_line line;
    int rc;
    while ((rc = logtk_reader_next(r, &line)) == LOGTK_OK) {
        size_t need = bd->text_len + line.len + 1;
        if (need > bd->text_cap) {
            size_t cap = bd->text_cap ? bd->text_cap : 1 << 16;
            while (cap < need)
                cap *= 2;
            char *t = realloc(bd->text, cap);
            if (!t)
                goto out;
            bd->text = t;
            bd->text_cap = cap;
        }
        if (bd->nlines == bd->lines_cap) {
            size_t cap = bd->lines_cap ? 2 * bd->lines_cap : 1024;
            bench_line *l = realloc(bd->lines, cap * sizeof *l);
            if (!l)
                goto out;
            bd->lines = l;
            bd->lines_cap = cap;
        }
        memcpy(bd->text + bd->text_len, line.data, line.len);
        bench_line *bl = &bd->lines[bd->nlines++];
        memset(bl, 0, sizeof *bl);
        bl->off = bd->text_len;
        bl->len = line.len;
        bd->text_len += line.len;
        bd->text[bd->text_len++] = '\n';
    }
    if (rc != LOGTK_DONE) {
        cli_error(SUB, "%s", logtk_reader_errmsg(r));
        goto out;
    }
    /* the reference parse: each line's template, for choosing targets */
    for (size_t i = 0; i < bd->nlines; i++) {
        bench_line *bl = &bd->lines[i];
        logtk_record rec;
        logtk_event ev;
        logtk_format_match(f, bd->text + bl->off, bl->len, &rec);
        bl->content_off = (size_t)(rec.content.ptr - (bd->text + bl->off));
        bl->content_len = rec.content.len;
        if (logtk_parser_feed(p, rec.content.ptr, rec.content.len, &ev) == LOGTK_ERR_NOMEM)
            goto out;
    }
    logtk_parser_finish(p);
    for (size_t i = 0; i < bd->nlines; i++)
        if (logtk_parser_assignment(p, i, &bd->lines[i].tmpl) != LOGTK_OK)
            goto out;
    ok = 1;
out:
    logtk_reader_free(r);
    logtk_format_free(f);
    logtk_parser_free(p);
    return ok ? 0 : -1;
}

/* A growable list of generated lines and the bytes of new ones. */
typedef struct host_lines {
    case_line *items;
    size_t n, cap;
} host_lines;

static int host_push(host_lines *h, case_line l)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 256;
        case_line *it = realloc(h->items, cap * sizeof *it);
        if (!it)
            return -1;
        h->items = it;
        h->cap = cap;
    }
    h->items[h->n++] = l;
    return 0;
}

static int host_insert_random(host_lines *h, case_line l)
{
    if (host_push(h, l))
        return -1;
    size_t at = rand_below(h->n);
    case_line tmp = h->items[at];
    h->items[at] = h->items[h->n - 1];
    h->items[h->n - 1] = tmp;
    return 0;
}

/* Byte storage for generated lines; stable addresses (chunks never move). */
typedef struct byte_chunks {
    char **chunks;
    size_t n, used, cap;
} byte_chunks;

static char *chunk_alloc(byte_chunks *b, size_t len)
{
    const size_t size = 1 << 16;
    if (len > size)
        return NULL;
    if (b->n == 0 || b->used + len > size) {
        char **c = realloc(b->chunks, (b->n + 1) * sizeof *c);
        if (!c)
            return NULL;
        b->chunks = c;
        if (!(c[b->n] = malloc(size)))
            return NULL;
        b->n++;
        b->used = 0;
    }
    char *p = b->chunks[b->n - 1] + b->used;
    b->used += len;
    return p;
}

static void chunks_free(byte_chunks *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->chunks[i]);
    free(b->chunks);
    memset(b, 0, sizeof *b);
}

/* A decimal number (optionally with a fraction); *frac tells which. */
static int plain_number(const char *s, size_t n, double *v, int *frac)
{
    size_t i = 0, digits = 0;
    *frac = 0;
    double x = 0, scale = 1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
        x = x * 10 + (s[i] - '0');
    if (i < n && s[i] == '.') {
        *frac = 1;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
            x += (s[i] - '0') * (scale /= 10);
    }
    if (!digits || i != n || digits > 15)
        return 0;
    *v = x;
    return 1;
}

typedef struct case_result {
    int kind;
    size_t changed;
    int p_at_1, r_at_3, flagged, any_alarm;
} case_result;

static const char *const new_messages[] = {
    "FATAL storage controller c%zu lost: I/O error on sector %zu after %zu retries",
    "ERROR connection pool exhausted for shard %zu: %zu waiters, giving up after %zu ms",
    "kernel: BUG: soft lockup - CPU#%zu stuck for %zus! [worker:%zu]",
    "OutOfMemoryError: unable to allocate %zu bytes for buffer %zu (heap %zu MB)",
};

/* Builds one case's hosts and runs the diff; fills *res. */
static int run_case(const bench_data *bd, const size_t *order, int kind, size_t nhosts,
                    size_t strength_idx, case_result *res)
{
    static const size_t new_counts[] = {5, 10, 15, 20, 30, 50, 80};
    static const double rate_factors[] = {0.2, 0.5, 2, 3, 5, 8};
    static const double param_factors[] = {1.5, 2, 3, 5, 10};
    host_lines *hosts = calloc(nhosts, sizeof *hosts);
    byte_chunks bytes = {0};
    logtk_format *f = NULL;
    logtk_parser *p = NULL;
    logtk_diff *d = NULL;
    int ok = -1;
    memset(res, 0, sizeof *res);
    res->kind = kind;
    if (!hosts)
        return -1;
    for (size_t i = 0; i < bd->nlines; i++)
        if (host_push(&hosts[i % nhosts], (case_line){bd->text + bd->lines[order[i]].off,
                                                      bd->lines[order[i]].len, 0}))
            goto out;
    size_t h = rand_below(nhosts);
    host_lines *hl = &hosts[h];

    if (kind == FAULT_NEW) {
        size_t n = new_counts[strength_idx % (sizeof new_counts / sizeof new_counts[0])];
        const char *msg = new_messages[rand_below(sizeof new_messages / sizeof new_messages[0])];
        for (size_t k = 0; k < n; k++) {
            /* the header of one of the host's own lines, so the format matches */
            size_t src = h + nhosts * rand_below((bd->nlines - h + nhosts - 1) / nhosts);
            const bench_line *bl = &bd->lines[order[src]];
            char body[256];
            int blen = snprintf(body, sizeof body, msg, rand_below(8), rand_below(100000),
                                1 + rand_below(9));
            size_t tail = bl->len - bl->content_off - bl->content_len;
            size_t len = bl->content_off + (size_t)blen + tail;
            char *line = chunk_alloc(&bytes, len);
            if (!line)
                goto out;
            memcpy(line, bd->text + bl->off, bl->content_off);
            memcpy(line + bl->content_off, body, (size_t)blen);
            memcpy(line + bl->content_off + blen, bd->text + bl->off + bl->content_off + bl->content_len,
                   tail);
            if (host_insert_random(hl, (case_line){line, len, 1}))
                goto out;
        }
        res->changed = n;
    } else if (kind == FAULT_RATE || kind == FAULT_PARAM) {
        /* candidate templates of this host: seen at least 5 times there */
        uint32_t *counts = NULL;
        uint32_t maxt = 0;
        for (size_t i = h; i < bd->nlines; i += nhosts)
            if (bd->lines[order[i]].tmpl > maxt)
                maxt = bd->lines[order[i]].tmpl;
        counts = calloc((size_t)maxt + 1, sizeof *counts);
        if (!counts)
            goto out;
        for (size_t i = h; i < bd->nlines; i += nhosts)
            counts[bd->lines[order[i]].tmpl]++;
        uint32_t *cands = malloc(((size_t)maxt + 1) * sizeof *cands);
        size_t *param_of = malloc(((size_t)maxt + 1) * sizeof *param_of);
        size_t ncands = 0;
        if (!cands || !param_of) {
            free(counts);
            free(cands);
            free(param_of);
            goto out;
        }
        logtk_parser *ref = NULL;
        if (kind == FAULT_PARAM) {
            /* parameters need the template text: parse the host's lines once */
            const logtk_dataset *ds = logtk_dataset_find(bd->name);
            logtk_format *rf = NULL;
            if (logtk_parser_new(&ref, NULL) || logtk_dataset_configure(ds, ref) ||
                logtk_format_new(&rf) || logtk_format_compile(rf, logtk_dataset_format(ds))) {
                logtk_format_free(rf);
                logtk_parser_free(ref);
                free(counts);
                free(cands);
                free(param_of);
                goto out;
            }
            logtk_format_free(rf);
            for (size_t i = 0; i < bd->nlines; i++) {
                const bench_line *bl = &bd->lines[i];
                logtk_parser_feed(ref, bd->text + bl->off + bl->content_off, bl->content_len, NULL);
            }
            logtk_parser_finish(ref);
        }
        for (uint32_t t = 1; t <= maxt; t++) {
            if (counts[t] < 5)
                continue;
            if (kind == FAULT_PARAM) {
                /* a position that is a number in every one of the host's lines
                   of t, not always the same number */
                size_t nparams = SIZE_MAX, pick = SIZE_MAX;
                for (size_t pos = 0; pos < 64 && pick == SIZE_MAX; pos++) {
                    int all_numeric = 1, varied = 0, any = 0;
                    double first = 0;
                    for (size_t i = h; i < bd->nlines && all_numeric; i += nhosts) {
                        const bench_line *bl = &bd->lines[order[i]];
                        if (bl->tmpl != t)
                            continue;
                        logtk_event ev;
                        if (logtk_parser_extract(ref, t, bd->text + bl->off + bl->content_off,
                                                 bl->content_len, &ev) != LOGTK_OK) {
                            all_numeric = 0;
                            break;
                        }
                        if (nparams == SIZE_MAX)
                            nparams = ev.nparams;
                        if (pos >= ev.nparams) {
                            all_numeric = 0;
                            break;
                        }
                        double v;
                        int frac;
                        if (!plain_number(ev.params[pos].ptr, ev.params[pos].len, &v, &frac)) {
                            all_numeric = 0;
                            break;
                        }
                        if (!any)
                            first = v, any = 1;
                        else if (v != first)
                            varied = 1;
                        if (v != 0)
                            varied |= 2;
                    }
                    if (all_numeric && any && (varied & 2))
                        pick = pos;
                    if (nparams != SIZE_MAX && pos + 1 >= nparams)
                        break;
                }
                if (pick == SIZE_MAX)
                    continue;
                param_of[t] = pick;
            }
            cands[ncands++] = t;
        }
        if (ncands == 0) {
            logtk_parser_free(ref);
            free(counts);
            free(cands);
            free(param_of);
            ok = 1; /* no case possible here: skipped */
            goto out;
        }
        uint32_t t = cands[rand_below(ncands)];
        size_t m = counts[t];
        if (kind == FAULT_RATE) {
            double fct = rate_factors[strength_idx % (sizeof rate_factors / sizeof rate_factors[0])];
            if (fct > 1) {
                size_t add = (size_t)((fct - 1) * (double)m + 0.5);
                size_t nt = 0;
                size_t *idx = malloc(m * sizeof *idx);
                if (!idx)
                    goto fail_rate;
                for (size_t i = 0; i < hl->n; i++)
                    if (bd->lines[order[h + nhosts * i]].tmpl == t)
                        idx[nt++] = i;
                for (size_t i = 0; i < nt; i++)
                    hl->items[idx[i]].target = 1;
                for (size_t k = 0; k < add; k++) {
                    case_line c = hl->items[idx[rand_below(nt)]];
                    if (host_insert_random(hl, c)) {
                        free(idx);
                        goto fail_rate;
                    }
                }
                free(idx);
                res->changed = add;
            } else {
                size_t drop = (size_t)((1 - fct) * (double)m + 0.5), kept = 0, seen = 0;
                for (size_t i = 0; i < hl->n; i++) {
                    case_line c = hl->items[i];
                    int is_t = bd->lines[order[h + nhosts * i]].tmpl == t;
                    if (is_t) {
                        /* drop `drop` of the m lines, spread evenly */
                        seen++;
                        if ((seen * drop) / m > ((seen - 1) * drop) / m)
                            continue;
                        c.target = 1;
                    }
                    hl->items[kept++] = c;
                }
                hl->n = kept;
                res->changed = drop;
            }
        } else {
            double fct = param_factors[strength_idx % (sizeof param_factors / sizeof param_factors[0])];
            size_t pos = param_of[t];
            for (size_t i = 0; i < hl->n; i++) {
                const bench_line *bl = &bd->lines[order[h + nhosts * i]];
                if (bl->tmpl != t)
                    continue;
                logtk_event ev;
                if (logtk_parser_extract(ref, t, bd->text + bl->off + bl->content_off,
                                         bl->content_len, &ev) != LOGTK_OK)
                    continue;
                const logtk_slice *ps = &ev.params[pos];
                double v;
                int frac;
                plain_number(ps->ptr, ps->len, &v, &frac);
                char num[64];
                int nl = frac ? snprintf(num, sizeof num, "%.3f", v * fct)
                              : snprintf(num, sizeof num, "%.0f", v * fct);
                size_t before = (size_t)(ps->ptr - (bd->text + bl->off));
                size_t after = bl->len - before - ps->len;
                size_t len = before + (size_t)nl + after;
                char *line = chunk_alloc(&bytes, len);
                if (!line)
                    goto fail_rate;
                memcpy(line, bd->text + bl->off, before);
                memcpy(line + before, num, (size_t)nl);
                memcpy(line + before + nl, ps->ptr + ps->len, after);
                hl->items[i] = (case_line){line, len, 1};
                res->changed++;
            }
        }
        logtk_parser_free(ref);
        free(counts);
        free(cands);
        free(param_of);
        goto run;
    fail_rate:
        logtk_parser_free(ref);
        free(counts);
        free(cands);
        free(param_of);
        goto out;
    }

run:;
    /* the diff, as `logtk diff --peers --dataset NAME host*.log` runs it */
    const logtk_dataset *ds = logtk_dataset_find(bd->name);
    if (logtk_format_new(&f) || logtk_format_compile(f, logtk_dataset_format(ds)) ||
        logtk_parser_new(&p, NULL) || logtk_dataset_configure(ds, p) || logtk_diff_new(&d))
        goto out;
    /* pass 1: learn the templates from every host */
    for (size_t g = 0; g < nhosts; g++)
        for (size_t i = 0; i < hosts[g].n; i++) {
            logtk_record rec;
            logtk_format_match(f, hosts[g].items[i].data, hosts[g].items[i].len, &rec);
            if (logtk_parser_feed(p, rec.content.ptr, rec.content.len, NULL) == LOGTK_ERR_NOMEM)
                goto out;
        }
    logtk_parser_finish(p);
    uint64_t index = 0;
    uint32_t *target_ids = NULL;
    size_t ntarget = 0, target_cap = 0;
    for (size_t g = 0; g < nhosts; g++) {
        char name[32];
        uint32_t gi;
        snprintf(name, sizeof name, "host%zu", g);
        if (logtk_diff_group(d, name, strlen(name), &gi))
            goto out_targets;
        for (size_t i = 0; i < hosts[g].n; i++) {
            const case_line *c = &hosts[g].items[i];
            logtk_record rec;
            logtk_event ev;
            logtk_format_match(f, c->data, c->len, &rec);
            /* pass 2: each line's final template and its parameters against it */
            uint32_t id;
            if (logtk_parser_assignment(p, index++, &id) != LOGTK_OK)
                goto out_targets;
            if (logtk_parser_extract(p, id, rec.content.ptr, rec.content.len, &ev) != LOGTK_OK) {
                memset(&ev, 0, sizeof ev);
                ev.template_id = id;
            }
            if (logtk_diff_add(d, gi, &ev, c->data, c->len))
                goto out_targets;
            if (c->target) {
                if (ntarget == target_cap) {
                    target_cap = target_cap ? 2 * target_cap : 64;
                    uint32_t *ti = realloc(target_ids, target_cap * sizeof *ti);
                    if (!ti)
                        goto out_targets;
                    target_ids = ti;
                }
                target_ids[ntarget++] = ev.template_id;
            }
        }
    }
    uint32_t nt = logtk_parser_template_count(p);
    for (uint32_t id = 1; id <= nt; id++) {
        logtk_slice text;
        uint64_t cnt;
        if (logtk_parser_template(p, id, &text, &cnt) == LOGTK_OK)
            logtk_diff_set_template(d, id, text.ptr, text.len);
    }
    if (logtk_diff_peers(d) != LOGTK_OK)
        goto out_targets;
    /* the injected template: the canonical (lowest equal-text) id most target lines got */
    uint32_t injected = 0;
    {
        size_t best = 0;
        for (size_t i = 0; i < ntarget; i++) {
            logtk_slice ti;
            uint64_t cnt;
            logtk_parser_template(p, target_ids[i], &ti, &cnt);
            uint32_t canon = target_ids[i];
            for (uint32_t id = 1; id < target_ids[i]; id++) {
                logtk_slice o;
                if (logtk_parser_template(p, id, &o, &cnt) == LOGTK_OK && o.len == ti.len &&
                    memcmp(o.ptr, ti.ptr, ti.len) == 0) {
                    canon = id;
                    break;
                }
            }
            target_ids[i] = canon;
        }
        for (size_t i = 0; i < ntarget; i++) {
            size_t same = 0;
            for (size_t j = 0; j < ntarget; j++)
                same += target_ids[j] == target_ids[i];
            if (same > best)
                best = same, injected = target_ids[i];
        }
    }
    for (size_t r = 0; r < logtk_diff_peer_count(d); r++) {
        logtk_diff_peer peer;
        logtk_diff_peer_at(d, r, &peer);
        if (peer.significant)
            res->any_alarm = 1;
        if (kind == FAULT_NONE || peer.group != h)
            continue;
        res->p_at_1 = r == 0;
        res->flagged = peer.significant;
        for (size_t i = 0; i < peer.ntop && i < 3; i++) {
            logtk_diff_peer_template t;
            logtk_diff_peer_template_at(d, r, i, &t);
            if (t.template_id == injected)
                res->r_at_3 = 1;
        }
    }
    ok = 0;
out_targets:
    free(target_ids);
out:
    for (size_t g = 0; g < nhosts; g++)
        free(hosts[g].items);
    free(hosts);
    chunks_free(&bytes);
    logtk_diff_free(d);
    logtk_parser_free(p);
    logtk_format_free(f);
    return ok;
}

typedef struct tally {
    size_t cases, p1, r3, flagged;
} tally;

static void print_row(const char *kind, const char *changed, const tally *t)
{
    if (!t->cases)
        return;
    double n = (double)t->cases;
    printf("%s\t%s\t%zu\t%.3f\t%.3f\t%.3f\n", kind, changed, t->cases, t->p1 / n, t->r3 / n,
           t->flagged / n);
}

int cmd_bench_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"loghub", required_argument, NULL, 'L'}, {"cases", required_argument, NULL, 'c'},
        {"no-fault", required_argument, NULL, 'n'}, {"hosts", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, 's'},   {"dataset", required_argument, NULL, 'd'},
        {"check", no_argument, NULL, 'C'},        {"quiet", no_argument, NULL, 'q'},
        {"shuffle", no_argument, NULL, 'S'},      {"max-false-alarms", required_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *loghub = NULL, *only = NULL;
    unsigned long cases = 300, no_fault = 100, hosts_opt = 0, seed = 1;
    int check = 0, quiet = 0, shuffle = 0, c;
    double max_fa = 0.05;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
        unsigned long *num = NULL;
        switch (c) {
        case 'L': loghub = optarg; break;
        case 'd': only = optarg; break;
        case 'c': num = &cases; break;
        case 'n': num = &no_fault; break;
        case 'k': num = &hosts_opt; break;
        case 's': num = &seed; break;
        case 'C': check = 1; break;
        case 'S': shuffle = 1; break;
        case 'F': {
            char *end;
            max_fa = strtod(optarg, &end);
            if (end == optarg || *end || !(max_fa >= 0 && max_fa <= 1))
                return cli_usage_error(SUB, "--max-false-alarms needs a rate 0..1, got '%s'",
                                       optarg);
            break;
        }
        case 'q': quiet = 1; break;
        case 'h': bench_diff_usage(stdout); return EXIT_OK;
        case ':': return cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_unknown_option(SUB, argv);
        }
        if (num) {
            char *end;
            errno = 0;
            *num = strtoul(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-' || *num > 1000000)
                return cli_usage_error(SUB, "%s needs a number, got '%s'", argv[optind - 2],
                                       optarg);
        }
    }
    if (!loghub)
        return cli_usage_error(SUB, "needs --loghub DIR");
    if (hosts_opt && (hosts_opt < 2 || hosts_opt > 64))
        return cli_usage_error(SUB, "--hosts must be 2..64");
    if (optind < argc)
        return cli_usage_error(SUB, "unexpected argument '%s'", argv[optind]);

    bench_data data[32];
    size_t ndata = 0;
    for (size_t i = 0; logtk_dataset_at(i) && ndata < 32; i++) {
        const char *name = logtk_dataset_name(logtk_dataset_at(i));
        if (only) {
            /* a comma-separated list, case-insensitive by the registry's find */
            int listed = 0;
            const char *s = only;
            while (*s && !listed) {
                const char *e = strchr(s, ',');
                size_t n = e ? (size_t)(e - s) : strlen(s);
                char buf[64];
                if (n < sizeof buf) {
                    memcpy(buf, s, n);
                    buf[n] = '\0';
                    const logtk_dataset *ds = logtk_dataset_find(buf);
                    listed = ds && strcmp(logtk_dataset_name(ds), name) == 0;
                }
                s = e ? e + 1 : s + n;
            }
            if (!listed)
                continue;
        }
        memset(&data[ndata], 0, sizeof data[ndata]);
        if (load_dataset(&data[ndata], loghub, name) != 0) {
            cli_error(SUB, "%s: cannot load %s/%s/%s_2k.log", name, loghub, name, name);
            for (size_t k = 0; k <= ndata; k++)
                free(data[k].text), free(data[k].lines);
            return EXIT_DATA;
        }
        ndata++;
    }
    if (ndata == 0)
        return cli_usage_error(SUB, "no dataset selected");

    tally fault[3][2];      /* [kind][changed >= 20] */
    tally none = {0};
    size_t alarms = 0, skipped = 0;
    memset(fault, 0, sizeof fault);
    static const size_t host_choices[] = {4, 6, 8};
    size_t total = cases + no_fault;
    int status = EXIT_OK;
    for (size_t i = 0; i < total; i++) {
        rng_state = seed * 0x100000001b3ULL + i;
        int kind = i < cases ? (int)(i % 3) : FAULT_NONE;
        const bench_data *bd = &data[(i / (i < cases ? 3 : 1)) % ndata];
        size_t nhosts = hosts_opt ? hosts_opt : host_choices[rand_below(3)];
        size_t strength = rand_below(1000);
        case_result res;
        /* the order lines are dealt in: the log's own, or shuffled */
        size_t *order = malloc(bd->nlines * sizeof *order);
        if (!order) {
            status = EXIT_DATA;
            break;
        }
        for (size_t k = 0; k < bd->nlines; k++)
            order[k] = k;
        for (size_t k = bd->nlines; shuffle && k > 1; k--) {
            size_t j = rand_below(k), tmp = order[k - 1];
            order[k - 1] = order[j];
            order[j] = tmp;
        }
        int rc = run_case(bd, order, kind, nhosts, strength, &res);
        free(order);
        if (rc < 0) {
            cli_error(SUB, "case %zu (%s, %s): out of memory or bad data", i, bd->name,
                      kind_names[kind]);
            status = EXIT_DATA;
            break;
        }
        if (rc > 0) {
            skipped++;
            continue;
        }
        if (!quiet)
            fprintf(stderr, "case %zu\t%s\t%s\thosts %zu\tchanged %zu\tP@1 %d\tR@3 %d\tflag %d\talarm %d\n", i,
                    bd->name, kind_names[kind], nhosts, res.changed, res.p_at_1, res.r_at_3,
                    res.flagged, res.any_alarm);
        if (kind == FAULT_NONE) {
            none.cases++;
            alarms += res.any_alarm;
            continue;
        }
        tally *t = &fault[kind][res.changed >= 20];
        t->cases++;
        t->p1 += res.p_at_1;
        t->r3 += res.r_at_3;
        t->flagged += res.flagged;
    }
    printf("kind\tchanged\tcases\tP@1\tR@3\tflagged\n");
    tally big = {0}, small = {0};
    for (int k = 0; k < 3; k++) {
        print_row(kind_names[k], ">=20", &fault[k][1]);
        print_row(kind_names[k], "<20", &fault[k][0]);
        big.cases += fault[k][1].cases, big.p1 += fault[k][1].p1;
        big.r3 += fault[k][1].r3, big.flagged += fault[k][1].flagged;
        small.cases += fault[k][0].cases, small.p1 += fault[k][0].p1;
        small.r3 += fault[k][0].r3, small.flagged += fault[k][0].flagged;
    }
    print_row("all", ">=20", &big);
    print_row("all", "<20", &small);
    double fa = none.cases ? (double)alarms / (double)none.cases : 0;
    printf("none\t0\t%zu\tfalse alarms %.3f\n", none.cases, fa);
    if (skipped && !quiet)
        fprintf(stderr, "%zu cases skipped (no template fit the fault)\n", skipped);
    if (check && status == EXIT_OK) {
        double n = big.cases ? (double)big.cases : 1;
        if (!big.cases || big.p1 / n < 0.95 || big.r3 / n < 0.95 || fa > max_fa) {
            cli_error(SUB, "check failed: P@1 %.3f, R@3 %.3f (need .95), false alarms %.3f "
                           "(need <= %.3f)",
                      big.p1 / n, big.r3 / n, fa, max_fa);
            status = EXIT_DATA;
        }
    }
    for (size_t k = 0; k < ndata; k++)
        free(data[k].text), free(data[k].lines);
    return status;
}
