/*
 * archive_search.c - grep inside an archive without rebuilding every line.
 *
 * A block is decoded to columns only (ltka_decode_columns), which is cheap:
 * the expensive part of decompression is printing every number and copying
 * every literal back into text.  For a fixed-string search the template
 * dictionary then decides, per template, whether a line of that template can
 * contain the string at all: the template is read as a sequence of literal
 * bytes and variable slots, each slot standing for one or more bytes of its
 * class (digits; digits and '-'; hex digits, 'x' and '-'), and a small NFA
 * checks whether the string can occur in some expansion of it.  Lines of
 * templates that cannot match are never rebuilt; the others are rebuilt and
 * matched exactly, so the output is the same as `decompress | grep`.  Regular
 * expressions (PCRE2, JIT, match limits) are matched on every rebuilt line.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "archive_format.h"
#include "archive_reader_impl.h"
#include "errmsg.h"

struct logtk_grep {
    logtk_errbuf err;
    int flags;
    char *pattern;
    size_t plen;
    char *lower; /* lower-cased longest run of the pattern without ' ', '\t', '\r' */
    size_t prune_len; /* its length; 0: no template check */
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    int jit;
    logtk_strbuf line;
    uint8_t *maybe; /* per template: 1 when its lines may match */
    uint8_t *want;  /* per template: 1 when a line to rebuild uses it */
    size_t maybe_cap;
    uint8_t *line_maybe; /* per line: 1 when it may match */
    size_t line_cap;
    uint8_t *nfa;
    size_t nfa_cap;
};

int logtk_grep_new(logtk_grep **out, const char *pattern, int flags)
{
    logtk_grep *g = calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return LOGTK_ERR_NOMEM;
    g->flags = flags;
    g->plen = strlen(pattern);
    g->pattern = strdup(pattern);
    g->lower = strdup(pattern);
    if (!g->pattern || !g->lower)
        return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
    /*
     * Templates are checked against the longest piece of the pattern without
     * blanks or CR: such a piece lies inside one part of a line (parts start
     * at blanks; the CR of a CRLF line is not in any template), and any line
     * that holds the pattern holds the piece.
     */
    size_t best = 0, best_len = 0, run = 0;
    for (size_t i = 0; i <= g->plen; i++) {
        char ch = i < g->plen ? g->pattern[i] : ' ';
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            if (i - run > best_len) {
                best = run;
                best_len = i - run;
            }
            run = i + 1;
        }
    }
    for (size_t i = 0; i < best_len; i++)
        g->lower[i] = (char)tolower((unsigned char)g->pattern[best + i]);
    g->lower[best_len] = '\0';
    g->prune_len = best_len;
    if ((flags & LOGTK_GREP_FIXED) && !(flags & LOGTK_GREP_ICASE))
        return LOGTK_OK; /* memmem */
    uint32_t opts = 0;
    if (flags & LOGTK_GREP_FIXED)
        opts |= PCRE2_LITERAL;
    if (flags & LOGTK_GREP_ICASE)
        opts |= PCRE2_CASELESS;
    int errcode;
    PCRE2_SIZE erroff;
    g->code = pcre2_compile((PCRE2_SPTR)pattern, g->plen, opts, &errcode, &erroff, NULL);
    if (!g->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        return logtk_error_set(&g->err, LOGTK_ERR_SYNTAX, "pattern '%s': %s at offset %zu", pattern,
                               (char *)msg, (size_t)erroff);
    }
    g->jit = pcre2_jit_compile(g->code, PCRE2_JIT_COMPLETE) == 0;
    g->md = pcre2_match_data_create_from_pattern(g->code, NULL);
    g->mctx = pcre2_match_context_create(NULL);
    if (!g->md || !g->mctx)
        return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
    pcre2_set_match_limit(g->mctx, 1000000);
    pcre2_set_depth_limit(g->mctx, 10000);
    return LOGTK_OK;
}

/* 1 match, 0 no match, <0 error. */
static int match_line(logtk_grep *g, const char *s, size_t n)
{
    if (!g->code) {
        if (g->plen == 0)
            return 1;
        return memmem(s, n, g->pattern, g->plen) != NULL;
    }
    int rc = g->jit ? pcre2_jit_match(g->code, (PCRE2_SPTR)s, n, 0, 0, g->md, g->mctx)
                    : pcre2_match(g->code, (PCRE2_SPTR)s, n, 0, 0, g->md, g->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
        return logtk_error_set(&g->err, LOGTK_ERR_LIMIT, "pattern '%s': match limit reached", g->pattern);
    return logtk_error_set(&g->err, LOGTK_ERR_DATA, "pattern '%s': match error %d", g->pattern, rc);
}

int logtk_grep_line(logtk_grep *g, const char *line, size_t len)
{
    int m = match_line(g, line, len);
    if (m < 0)
        return m;
    return (g->flags & LOGTK_GREP_INVERT) ? !m : m;
}

/*
 * Can the (lower-cased, fixed) pattern occur in a line of this template?
 * Elements are literal bytes or variable slots (one or more bytes of a class).
 * State j "fresh": the next pattern byte must come from element j; state j
 * "in": the pattern is inside variable j, which may take more bytes or end.
 */
static int template_may_match(logtk_grep *g, const uint8_t *t, size_t tlen)
{
    size_t n = 0;
    /* elements: store as (kind, byte) pairs in g->nfa scratch after the state arrays */
    if (tlen * 4 + 8 > g->nfa_cap) {
        size_t cap = tlen * 4 + 64;
        uint8_t *p = realloc(g->nfa, cap);
        if (!p)
            return 1;
        g->nfa = p;
        g->nfa_cap = cap;
    }
    uint8_t *kind = g->nfa, *byte = g->nfa + tlen + 1;
    for (size_t i = 0; i < tlen; i++) {
        uint8_t c = t[i];
        if (c == LTKA_M_UNUM || c == LTKA_M_SNUM || c == LTKA_M_STR) {
            kind[n] = c;
            byte[n++] = 0;
        } else {
            if (c == LTKA_M_ESC && i + 1 < tlen)
                c = t[++i];
            kind[n] = 0;
            byte[n++] = (uint8_t)tolower(c);
        }
    }
    uint8_t *fresh = g->nfa + 2 * (tlen + 1), *in = fresh + tlen + 1;
    /* fresh has n+1 entries (n = end of line), in has n entries; 2n+1 <= 2 tlen + 2 */
    memset(fresh, 1, n);
    fresh[n] = 0;
    for (size_t j = 0; j < n; j++)
        in[j] = kind[j] != 0;
    for (size_t k = 0; k < g->prune_len; k++) {
        uint8_t c = (uint8_t)g->lower[k];
        int any = 0;
        /* closure: a variable with bytes may end */
        for (size_t j = 0; j < n; j++)
            if (in[j])
                fresh[j + 1] = 1;
        /* step, from the last element down so updates to j+1 are not reused */
        for (size_t jj = n + 1; jj-- > 0;) {
            int f = fresh[jj], i2 = jj < n ? in[jj] : 0;
            fresh[jj] = 0;
            if (jj < n)
                in[jj] = 0;
            if (jj == n)
                continue;
            if (kind[jj] == 0) {
                if (f && byte[jj] == c) {
                    fresh[jj + 1] = 1;
                    any = 1;
                }
            } else if ((f || i2) && (ltka_var_may_contain(kind[jj], c) ||
                                     ltka_var_may_contain(kind[jj], (uint8_t)toupper(c)))) {
                in[jj] = 1;
                any = 1;
            }
        }
        if (!any)
            return 0;
    }
    return 1;
}

/*
 * Rebuilds line i as grep sees it after decompression: the bytes before the
 * '\n', so a CRLF line keeps its '\r' (a pattern may match it).
 */
static int build_line(logtk_grep *g, ltka_decoder *d, uint32_t i)
{
    logtk_strbuf_clear(&g->line);
    if (ltka_decoder_line(d, i, 0, &g->line) != LOGTK_OK)
        return -1;
    if (ltka_decoder_line_eol(d, i) == 1 && logtk_strbuf_putc(&g->line, '\r') != 0)
        return -1;
    return 0;
}

static int emit_line(logtk_grep *g, ltka_decoder *d, uint32_t i, logtk_write_callback cb, void *user)
{
    /* the line already ends with its '\r' when it had one (see build_line) */
    int eol = ltka_decoder_line_eol(d, i);
    if (eol != 2 && logtk_strbuf_putc(&g->line, '\n') != 0)
        return LOGTK_ERR_NOMEM;
    if (cb(user, g->line.data, g->line.len) != 0)
        return logtk_error_set(&g->err, LOGTK_ERR_IO, "write failed");
    return LOGTK_OK;
}

int logtk_grep_next_block(logtk_grep *g, logtk_archive_reader *r, logtk_archive_block *b,
                          logtk_write_callback cb, void *user, uint64_t *count)
{
    ltka_raw_block raw;
    int rc = ltka_reader_next_raw(r, b, &raw);
    if (rc != LOGTK_OK) {
        if (rc < 0)
            logtk_error_copy(&g->err, &r->err);
        return rc;
    }
    logtk_errbuf derr = {0};
    ltka_decoder *d = r->dec;
    rc = ltka_decode_templates(d, raw.payload, raw.len, raw.nlines, raw.raw_bytes, &derr);
    if (rc != LOGTK_OK) {
        logtk_error_set(&g->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                        r->name, (unsigned long long)b->index + 1, (unsigned long long)b->first_line,
                        (unsigned long long)(b->first_line + raw.nlines - 1), logtk_error_text(&derr));
        logtk_error_copy(&r->err, &g->err);
        b->damaged = 1;
        return LOGTK_ERR_ARCHIVE;
    }
    uint32_t nt = ltka_decoder_template_count(d);
    b->templates = nt;
    if (nt > g->maybe_cap) {
        uint8_t *m = realloc(g->maybe, nt);
        if (m)
            g->maybe = m;
        uint8_t *w = m ? realloc(g->want, nt) : NULL;
        if (!w)
            return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
        g->want = w;
        g->maybe_cap = nt;
    }
    int prune = (g->flags & LOGTK_GREP_FIXED) && g->prune_len > 0;
    for (uint32_t t = 0; t < nt; t++) {
        size_t tl;
        const uint8_t *tb = ltka_decoder_template(d, t, &tl);
        g->maybe[t] = prune ? (uint8_t)template_may_match(g, tb, tl) : 1;
    }
    int invert = (g->flags & LOGTK_GREP_INVERT) != 0;
    if (!invert && nt > 0 && memchr(g->maybe, 1, nt) == NULL)
        return LOGTK_OK; /* no template of this block can hold the pattern */
    rc = ltka_decode_lines(d, &derr);
    if (rc != LOGTK_OK) {
        logtk_error_set(&g->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                        r->name, (unsigned long long)b->index + 1, (unsigned long long)b->first_line,
                        (unsigned long long)(b->first_line + raw.nlines - 1), logtk_error_text(&derr));
        logtk_error_copy(&r->err, &g->err);
        b->damaged = 1;
        return LOGTK_ERR_ARCHIVE;
    }
    uint32_t nparts = ltka_decoder_part_count(d);
    uint32_t n = ltka_decoder_line_count(d);
    if (n > g->line_cap) {
        uint8_t *m = realloc(g->line_maybe, n);
        if (!m)
            return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
        g->line_maybe = m;
        g->line_cap = n;
    }
    /* a line may match when one of its parts may; its other parts are needed too */
    if (nt > 0)
        memset(g->want, 0, nt);
    for (uint32_t i = 0; i < n; i++) {
        int maybe = 0;
        for (uint32_t p = 0; p < nparts && !maybe; p++)
            maybe = g->maybe[ltka_decoder_line_template(d, i, p)];
        g->line_maybe[i] = (uint8_t)maybe;
        if (maybe)
            for (uint32_t p = 0; p < nparts; p++)
                g->want[ltka_decoder_line_template(d, i, p)] = 1;
    }
    /* non-matching lines are output with -v, so then every column is needed */
    rc = ltka_decode_values(d, invert ? NULL : g->want, &derr);
    if (rc != LOGTK_OK) {
        logtk_error_set(&g->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                        r->name, (unsigned long long)b->index + 1, (unsigned long long)b->first_line,
                        (unsigned long long)(b->first_line + raw.nlines - 1), logtk_error_text(&derr));
        logtk_error_copy(&r->err, &g->err);
        b->damaged = 1;
        return LOGTK_ERR_ARCHIVE;
    }
    uint64_t total_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        int maybe = g->line_maybe[i];
        int built = 0, m = 0;
        if (maybe) {
            if (build_line(g, d, i) != 0)
                return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
            built = 1;
            total_bytes += g->line.len;
            if (total_bytes > raw.raw_bytes) {
                b->damaged = 1;
                return logtk_error_set(&g->err, LOGTK_ERR_ARCHIVE, "%s: block %llu damaged: too long",
                                       r->name, (unsigned long long)b->index + 1);
            }
            m = match_line(g, g->line.data ? g->line.data : "", g->line.len);
            if (m < 0)
                return m;
        }
        if (m ^ invert) {
            (*count)++;
            if (cb) {
                if (!built && build_line(g, d, i) != 0)
                    return logtk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
                if ((rc = emit_line(g, d, i, cb, user)) != LOGTK_OK)
                    return rc;
            }
        }
    }
    return LOGTK_OK;
}

const char *logtk_grep_errmsg(const logtk_grep *g)
{
    return g ? logtk_error_text(&g->err) : "out of memory";
}

void logtk_grep_free(logtk_grep *g)
{
    if (!g)
        return;
    free(g->pattern);
    free(g->lower);
    pcre2_code_free(g->code);
    pcre2_match_data_free(g->md);
    pcre2_match_context_free(g->mctx);
    logtk_strbuf_free(&g->line);
    free(g->maybe);
    free(g->want);
    free(g->line_maybe);
    free(g->nfa);
    free(g);
}
