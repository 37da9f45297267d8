/*
 * archive_search.c - grep inside an archive without rebuilding every line.
 *
 * The pattern gives "pieces": texts every matching line must hold (the
 * fixed string, or the literal runs a regular expression requires), cut at
 * blanks so that each lies inside one part of a line.  Per block, only the
 * template dictionary is decompressed first; each template is read as a
 * sequence of literal bytes and variable slots (a slot stands for one or more
 * bytes of its class: digits; digits and '-'; digits and '.' for an IP
 * address; hex digits of one case; for strings hex digits, 'x' and '-'), and a
 * bit-parallel NFA (shift-and) tells which pieces can occur in some expansion
 * of it.  Answers are cached per distinct template, since blocks repeat their
 * templates.  A block whose templates cannot hold every piece is skipped
 * whole; otherwise the template ids mark candidate lines (their parts'
 * templates together may hold every piece), and only the values those lines
 * need are expanded, from only the number chunks they live in.  Candidates
 * are rebuilt and matched exactly (memmem, or PCRE2 with JIT and match
 * limits, core/regex.h), so the output is the same as `decompress | grep`.
 * Before whole candidate lines are rebuilt, the units that may hold a
 * piece (each piece lies in one unit) are rebuilt alone, from only their
 * templates' values, and lines missing a piece are dropped: a parameter
 * value (a block id, an IP) makes candidates of every line of its template,
 * and this keeps the header columns of all those lines compressed.  A piece
 * with digits between non-digits ("10.251.43.115": 251) cannot lie in a unit
 * none of whose numbers is written so, when all its digits come from its
 * numbers: such units are not even rebuilt.
 * Before any unit is rebuilt, number tests go further: where a piece can
 * lie in a template ("alignments": its bytes laid over the template's text
 * and variables) says what each numeric variable it covers must be written
 * as - exactly some digits, ending or starting with them - and those
 * columns are checked value by value straight from the numbers stream
 * (ltk_decode_number_tests), so an IP or block id leaves only the units
 * whose numbers fit (10.251.43.115: 38,000 candidates of a block -> 8).
 * An IPv4 address stored as an IP variable (format version 3) is one
 * column: a piece laid over it gets one test of the octets it fixes, exact
 * for a whole dotted quad (ip_test_for), instead of tests on four columns
 * (callgrind, -T 1, 200k real HDFS lines, an address on 650 lines: 141.6 ->
 * 101.3 million instructions).
 * These tests run right after the template ids are counted, before any
 * line is marked (mark_tested): a template whose pieces all need numbers
 * then marks only the lines of the units that pass, found through the id
 * histograms, so candidates stay few and the per-line passes stay sparse
 * (callgrind, -T 1, 2M-line scale-up, 10.251.43.115: 1,848 -> 1,230
 * million instructions, with the sparse column reads of block_decode.c).
 * The alignments of a template are worked out once per distinct template
 * text (align_memo, next to the piece-mask cache), and block_decode.c runs
 * a template's tested columns most selective first (judged on a sample of
 * the block's values), so the others are read only at its survivors
 * (1,230 -> 1,151 million).
 * A required text with blanks ("ciod: failed") is also checked whole as a
 * "phrase": parts start where blank runs start and variables never hold a
 * blank, so a unit the phrase overlaps holds it whole, a prefix of it up to
 * a blank run, a suffix from one, or the stretch between two; a template
 * that can do none of these does not count for the phrase's words, so a
 * "ciod: LOGIN ... failed:" template makes no candidates (callgrind, -T 1,
 * 2M-line scale-up: 851 -> 697 million instructions, 5,500 -> 750 candidates).
 * Without -i the template check keeps case (a rare "MegaRAID" then does not
 * make candidates of the many "megaraid" lines).  grep -c with a fixed
 * string counts a candidate whose template's literal text holds the whole
 * pattern without rebuilding it, so often no value is decoded at all.  A
 * file is read through a memory map, and worker threads use the payloads
 * where they lie in it (block_pool.c keeps it mapped while they do).
 *
 * Why: a rare string costs the template check plus the template-id column;
 * the numbers, which are most of an archive, stay compressed except where a
 * candidate line needs them.  (Measured with callgrind, logtk grep -T 1 -F
 * MegaRAID on a 2-million-line scale-up, 500 lines selected: 1,004 million
 * instructions before the changes above, 732 million after; with -c 3x
 * less time.)  With several threads, the read-ahead of block_pool.c
 * (shared with the unpacker) reads blocks on the caller's thread, workers
 * search them with their own decoders and collect the selected lines, and
 * results are handed back in block order.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive_container.h"
#include "block_decode.h"
#include "block_layout.h"
#include "block_query.h"
#include "line_split.h"
#include "archive_reader_impl.h"
#include "archive_search.h"
#include "archive_search_impl.h"
#include "block_pool.h"
#include "block_readahead.h"
#include "errmsg.h"
#include "hashtab.h"
#include "growarray.h"
#include "pattern_placement.h"

/* Adds s[0..n) (lower-cased when folding) to the set, replacing its shortest piece when full. */
static void add_piece(piece_set *ps, const char *s, size_t n)
{
    int slot = ps->n;
    if (slot == MAX_PIECES) {
        slot = 0;
        for (int k = 1; k < MAX_PIECES; k++)
            if (ps->len[k] < ps->len[slot])
                slot = k;
        if (ps->len[slot] >= n)
            return;
    }
    char *t = malloc(n + 1);
    if (!t)
        return; /* fewer pieces: less pruning, same output */
    for (size_t k = 0; k < n; k++)
        t[k] = ps->fold ? (char)tolower((unsigned char)s[k]) : s[k];
    t[n] = '\0';
    if (slot < ps->n)
        free(ps->text[slot]);
    else
        ps->n++;
    ps->text[slot] = t;
    ps->len[slot] = n;
}

static inline int is_blank_byte(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * Adds s[0..n) as a phrase when it has a blank between non-blank bytes and
 * is at most 64 bytes (lower-cased when folding), replacing the shortest
 * phrase when full.
 */
static void add_phrase(piece_set *ps, const char *s, size_t n)
{
    if (n > 64)
        return;
    size_t first = 0, last = n;
    while (first < n && is_blank_byte(s[first]))
        first++;
    while (last > first && is_blank_byte(s[last - 1]))
        last--;
    if (!memchr(s + first, ' ', last - first) && !memchr(s + first, '\t', last - first))
        return; /* no blank between two words: the pieces alone say as much */
    int slot = ps->nphrases;
    if (slot == MAX_PHRASES) {
        slot = 0;
        for (int k = 1; k < MAX_PHRASES; k++)
            if (ps->phrase_len[k] < ps->phrase_len[slot])
                slot = k;
        if (ps->phrase_len[slot] >= n)
            return;
    }
    char *t = malloc(n + 1);
    if (!t)
        return;
    for (size_t k = 0; k < n; k++)
        t[k] = ps->fold ? (char)tolower((unsigned char)s[k]) : s[k];
    t[n] = '\0';
    if (slot < ps->nphrases)
        free(ps->phrase[slot]);
    else
        ps->nphrases++;
    ps->phrase[slot] = t;
    ps->phrase_len[slot] = n;
}

/*
 * Adds the pieces of run[0..n) between blanks and CRs to the set, and its
 * stretches between CRs that hold blanks as phrases.
 */
static void add_run(piece_set *ps, const char *run, size_t n)
{
    size_t seg = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || run[i] == '\r') {
            add_phrase(ps, run + seg, i - seg);
            seg = i + 1;
        }
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        char ch = i < n ? run[i] : ' ';
        if (ch != ' ' && ch != '\t' && ch != '\r')
            continue;
        if (i > start)
            add_piece(ps, run + start, i - start);
        start = i + 1;
    }
}

static void clear_pieces(piece_set *ps)
{
    for (int k = 0; k < ps->n; k++)
        free(ps->text[k]);
    ps->n = 0;
    for (int k = 0; k < ps->nphrases; k++)
        free(ps->phrase[k]);
    ps->nphrases = 0;
}

/* Index just past the class that starts at pat[j] == '[', or SIZE_MAX when it does not close. */
static size_t skip_class(const char *pat, size_t len, size_t j)
{
    j++;
    if (j < len && pat[j] == '^')
        j++;
    if (j < len && pat[j] == ']')
        j++; /* a ']' first is a member */
    while (j < len && pat[j] != ']') {
        if (pat[j] == '\\') {
            j += 2;
        } else if (pat[j] == '[' && j + 1 < len && (pat[j + 1] == ':' || pat[j + 1] == '.' || pat[j + 1] == '=')) {
            char delim = pat[j + 1]; /* [:alpha:], [.x.], [=x=] */
            size_t k = j + 2;
            while (k + 1 < len && !(pat[k] == delim && pat[k + 1] == ']'))
                k++;
            if (k + 1 >= len)
                return SIZE_MAX;
            j = k + 2;
        } else {
            j++;
        }
    }
    return j < len ? j + 1 : SIZE_MAX;
}

/* Index just past the group that starts at pat[j] == '(', or SIZE_MAX when it does not close. */
static size_t skip_group(const char *pat, size_t len, size_t j)
{
    int depth = 0;
    while (j < len) {
        char ch = pat[j];
        if (ch == '\\') {
            j += 2;
            continue;
        }
        if (ch == '[') {
            j = skip_class(pat, len, j);
            if (j == SIZE_MAX)
                return SIZE_MAX;
            continue;
        }
        if (ch == '(')
            depth++;
        else if (ch == ')' && --depth == 0)
            return j + 1;
        j++;
    }
    return SIZE_MAX;
}

/*
 * The pieces of a regular expression: literal texts every match must
 * contain.  The pattern is read as a sequence of atoms; runs of plain
 * characters (and escaped punctuation) outside groups and classes are
 * required, except a character made optional by a following '*' or '?'.
 * Anything this reading does not understand for sure (alternation, option
 * settings, counted repeats, escapes such as \x or \Q) gives no piece, so
 * every line is then matched: pruning only ever skips lines that cannot
 * match.
 */
static void regex_pieces(piece_set *ps, const char *pat, size_t len)
{
    if (memchr(pat, '|', len) || memchr(pat, '{', len))
        return;
    for (size_t i = 0; i + 1 < len; i++)
        if (pat[i] == '(' && pat[i + 1] == '?')
            return;
    char *run = malloc(len + 1);
    if (!run)
        return;
    size_t rn = 0, i = 0;
    int last_literal = 0; /* the previous atom is the last byte of run */
    while (i < len) {
        unsigned char c = (unsigned char)pat[i];
        if (c == '\\') {
            if (i + 1 >= len)
                goto give_up;
            unsigned char e = (unsigned char)pat[i + 1];
            i += 2;
            if (isalnum(e) || e >= 0x80) {
                if (!strchr("dDwWsSbBhHvVRXAzZGK", e))
                    goto give_up; /* \x41, \1, \p{..}, \Q...: not read here */
                add_run(ps, run, rn);
                rn = 0;
                last_literal = 0;
                continue;
            }
            run[rn++] = (char)e;
            last_literal = 1;
            continue;
        }
        if (c == '*' || c == '?' || c == '+') {
            if (last_literal && c != '+')
                rn--; /* the character may be absent */
            add_run(ps, run, rn);
            rn = 0;
            last_literal = 0;
            i++;
            continue;
        }
        if (c == '.' || c == '^' || c == '$' || c == ')') {
            add_run(ps, run, rn);
            rn = 0;
            last_literal = 0;
            i++;
            continue;
        }
        if (c == '[' || c == '(') {
            /* skip a class or a whole group: its text may be optional or varied */
            add_run(ps, run, rn);
            rn = 0;
            last_literal = 0;
            i = c == '[' ? skip_class(pat, len, i) : skip_group(pat, len, i);
            if (i == SIZE_MAX)
                goto give_up;
            continue;
        }
        run[rn++] = (char)c;
        last_literal = 1;
        i++;
    }
    add_run(ps, run, rn);
    free(run);
    return;
give_up:
    free(run);
    clear_pieces(ps);
}

int logtk_grep_new(logtk_grep **out, const char *pattern, int flags)
{
    logtk_grep *g = calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return LOGTK_ERR_NOMEM;
    g->flags = flags;
    g->plen = strlen(pattern);
    g->pattern = strdup(pattern);
    if (!g->pattern)
        return ltk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
    /*
     * Templates are checked against pieces of the pattern's required text
     * without blanks or CR: such a piece lies inside one part of a line
     * (parts start at blanks; the CR of a CRLF line is not in any template),
     * and any line that holds a match holds every piece.
     */
    g->pieces.fold = (flags & LOGTK_GREP_ICASE) != 0;
    if (flags & LOGTK_GREP_FIXED)
        add_run(&g->pieces, g->pattern, g->plen);
    else
        regex_pieces(&g->pieces, g->pattern, g->plen);
    if (g->pieces.n > 0) {
        g->masks = calloc((size_t)g->pieces.n, sizeof *g->masks);
        if (!g->masks)
            return ltk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
        for (int k = 0; k < g->pieces.n; k++) {
            piece_masks *pm = &g->masks[k];
            size_t n = g->pieces.len[k] < 64 ? g->pieces.len[k] : 64;
            int fold = g->pieces.fold;
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)g->pieces.text[k][i];
                unsigned char up = fold ? (unsigned char)toupper(c) : c;
                /* template bytes are read as they are: a folded piece byte takes either case */
                pm->byte[c] |= 1ull << i;
                pm->byte[up] |= 1ull << i;
                for (int kind = LTK_M_UNUM; kind <= LTK_M_LAST; kind++)
                    if (ltk_is_var_marker((unsigned)kind) &&
                        (ltk_var_may_contain(kind, c) || ltk_var_may_contain(kind, up)))
                        pm->var[kind] |= 1ull << i;
            }
            pm->last = n ? 1ull << (n - 1) : 0;
            for (size_t i = 0; i < g->pieces.len[k]; i++) {
                unsigned char c = (unsigned char)g->pieces.text[k][i];
                if (ltk_literal_only(c, fold))
                    pm->literal_need[c >> 6] |= 1ull << (c & 63);
            }
            const char *pt = g->pieces.text[k];
            size_t plen_k = g->pieces.len[k];
            for (size_t i = 1; i < plen_k; i++) {
                if (!isdigit((unsigned char)pt[i]) || isdigit((unsigned char)pt[i - 1]))
                    continue;
                size_t e = i;
                while (e < plen_k && isdigit((unsigned char)pt[e]))
                    e++;
                /* bounded on both sides, at most 19 digits (fits a u64), the longest such run */
                if (e < plen_k && e - i <= 19 && e - i > pm->num_len) {
                    uint64_t v = 0;
                    for (size_t j = i; j < e; j++)
                        v = v * 10 + (uint64_t)(pt[j] - '0');
                    pm->num_digits = pt + i;
                    pm->num_len = e - i;
                    pm->num_value = v;
                }
            }
        }
    }
    if (g->pieces.n > 0 && g->pieces.nphrases > 0) {
        g->phrases = calloc((size_t)g->pieces.nphrases, sizeof *g->phrases);
        if (!g->phrases)
            return ltk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
        for (int h = 0; h < g->pieces.nphrases; h++) {
            phrase_masks *hm = &g->phrases[h];
            const char *ph = g->pieces.phrase[h];
            size_t n = g->pieces.phrase_len[h]; /* 1..64 */
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)ph[i];
                unsigned char up = g->pieces.fold ? (unsigned char)toupper(c) : c;
                hm->byte[c] |= 1ull << i;
                hm->byte[up] |= 1ull << i;
                for (int kind = LTK_M_UNUM; kind <= LTK_M_LAST; kind++)
                    if (ltk_is_var_marker((unsigned)kind) &&
                        (ltk_var_may_contain(kind, c) || ltk_var_may_contain(kind, up)))
                        hm->var[kind] |= 1ull << i;
                if (i > 0 && is_blank_byte(ph[i]) && !is_blank_byte(ph[i - 1]))
                    hm->run_start |= 1ull << (i - 1);
            }
            hm->last = 1ull << (n - 1);
            for (int k = 0; k < g->pieces.n; k++)
                if (memmem(ph, n, g->pieces.text[k], g->pieces.len[k]))
                    hm->pieces |= (uint8_t)(1u << k);
        }
    }
    g->sure_ok = (flags & LOGTK_GREP_FIXED) && !(flags & LOGTK_GREP_INVERT) && g->plen > 0;
    if ((flags & LOGTK_GREP_FIXED) && !(flags & LOGTK_GREP_ICASE))
        return LOGTK_OK; /* memmem */
    ltk_regex_config config = {.match_limit = 1000000, .depth_limit = 10000};
    if (flags & LOGTK_GREP_FIXED)
        config.flags |= LTK_REGEX_LITERAL;
    if (flags & LOGTK_GREP_ICASE)
        config.flags |= LTK_REGEX_CASELESS;
    ltk_regex_error rerr;
    if (ltk_regex_compile(&g->regex, pattern, g->plen, &config, &rerr) != LOGTK_OK) {
        if (rerr.code == LOGTK_ERR_NOMEM)
            return ltk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
        return ltk_error_set(&g->err, LOGTK_ERR_SYNTAX, "pattern '%s': %s at offset %zu", pattern,
                               rerr.reason, rerr.offset);
    }
    /* every search context, the serial one too, matches with its own clone */
    if (ltk_regex_clone(g->regex, &g->main.re) != LOGTK_OK)
        return ltk_error_set(&g->err, LOGTK_ERR_NOMEM, "out of memory");
    return LOGTK_OK;
}

/* 1 match, 0 no match, <0 error (message in err). */
static int match_line(const logtk_grep *g, ltk_regex *re, ltk_errbuf *err, const char *s,
                      size_t n)
{
    if (!g->regex) {
        if (g->plen == 0)
            return 1;
        return memmem(s, n, g->pattern, g->plen) != NULL;
    }
    int rc = ltk_regex_match(re, s, n, 0, 0);
    if (rc > 0)
        return 1;
    if (rc == LTK_REGEX_NOMATCH)
        return 0;
    if (rc == LTK_REGEX_LIMIT)
        return ltk_error_set(err, LOGTK_ERR_LIMIT, "pattern '%s': match limit reached", g->pattern);
    return ltk_error_set(err, LOGTK_ERR_DATA, "pattern '%s': match error %d", g->pattern,
                           ltk_regex_failure(re, NULL, 0));
}

int ltk_grep_line(logtk_grep *g, const char *line, size_t len)
{
    int m = match_line(g, g->main.re, &g->err, line, len);
    if (m < 0)
        return m;
    return (g->flags & LOGTK_GREP_INVERT) ? !m : m;
}

/*
 * Per template of the block: the pieces its literal text surely holds
 * (x->psure) and whether all digits of its lines come from its numeric
 * variables (x->dclean).  LOGTK_OK or LOGTK_ERR_NOMEM (message in derr).
 */
static int template_flags(const logtk_grep *g, search_ctx *x, ltk_decoder *d, ltk_errbuf *derr)
{
    uint32_t nt = ltk_decoder_template_count(d);
    if (nt > x->psure_cap) {
        uint8_t *m = realloc(x->psure, nt);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->psure = m;
        x->psure_cap = nt;
    }
    if (nt > x->dclean_cap) {
        uint8_t *m = realloc(x->dclean, nt);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->dclean = m;
        x->dclean_cap = nt;
    }
    for (uint32_t t = 0; t < nt; t++) {
        size_t tl;
        const uint8_t *tb = ltk_decoder_template(d, t, &tl);
        x->psure[t] = x->maybe[t] ? ltk_template_sure_pieces(g, tb, tl, x->maybe[t], &x->line) : 0;
        x->dclean[t] = x->maybe[t] ? (uint8_t)ltk_template_digits_clean(tb, tl) : 0;
    }
    return LOGTK_OK;
}

/*
 * Drops candidates that do not hold every piece, looking only at their
 * units that may hold one (each piece lies inside one unit): those units'
 * values are expanded and the units rebuilt, while the other parts (header
 * fields: the largest columns of a block) stay compressed unless the line
 * survives.  A candidate whose templates' literal text already holds every
 * piece is kept unseen.  Keeps cand in order; returns LOGTK_OK, or the
 * decoder's error (message in derr) or LOGTK_ERR_NOMEM.
 */
static int prune_candidates(const logtk_grep *g, search_ctx *x, ltk_decoder *d, uint8_t all,
                            uint32_t *ncand, ltk_errbuf *derr)
{
    uint32_t parts = ltk_decoder_part_count(d);
    if (*ncand > x->look_cap) {
        uint32_t *m = realloc(x->look, (size_t)*ncand * sizeof *m);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->look = m;
        x->look_cap = *ncand;
    }
    if (!x->tests_done) {
        int rc = template_flags(g, x, d, derr);
        if (rc != LOGTK_OK)
            return rc;
    }
    /* template of part p of line i: tids[p * nl + i] (filled for candidates) */
    const uint32_t *tids = ltk_decoder_unit_templates(d);
    size_t nl = ltk_decoder_line_count(d);
    uint32_t nlook = 0;
    for (uint32_t c = 0; c < *ncand; c++) {
        uint8_t bits = 0;
        for (uint32_t p = 0; p < parts; p++)
            bits |= x->psure[tids[p * nl + x->cand[c]]];
        if (bits != all)
            x->look[nlook++] = x->cand[c];
    }
    if (nlook == 0)
        return LOGTK_OK;
    /* number tests first: lines none of whose units can hold some piece go without a rebuild */
    int pairs = x->tests_done ? x->test_pairs : ltk_number_filter(g, x, d, derr);
    if (pairs < 0)
        return pairs;
    if (pairs > 0) {
        const uint32_t *ranks = ltk_decoder_unit_ranks(d);
        uint32_t keep = 0, j = 0, nlook2 = 0;
        for (uint32_t c = 0; c < *ncand; c++) {
            uint32_t i = x->cand[c];
            if (j < nlook && x->look[j] == i) {
                j++;
                uint8_t possible = 0;
                for (uint32_t p = 0; p < parts; p++) {
                    size_t u = (size_t)p * nl + i;
                    uint32_t t = tids[u];
                    uint8_t m = x->maybe[t], tested = x->tested[t];
                    for (int k = 0; tested; k++, tested >>= 1)
                        if ((tested & 1) && x->alive[x->alive_off[(size_t)t * MAX_PIECES + (size_t)k] + ranks[u]] == 0)
                            m &= (uint8_t)~(1u << k);
                    possible |= m;
                }
                if ((possible & all) != all)
                    continue; /* some piece fits no unit of this line */
                x->look[nlook2++] = i;
            }
            x->cand[keep++] = i;
        }
        *ncand = keep;
        nlook = nlook2;
        if (nlook == 0)
            return LOGTK_OK;
    }
    int rc = ltk_decode_values_for_units(d, x->look, nlook, x->maybe, derr);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t keep = 0, j = 0;
    for (uint32_t c = 0; c < *ncand; c++) {
        uint32_t i = x->cand[c];
        if (j < nlook && x->look[j] == i) {
            j++;
            uint8_t found = 0;
            for (uint32_t p = 0; p < parts; p++)
                found |= x->psure[tids[p * nl + i]];
            for (uint32_t p = 0; p < parts && found != all; p++) {
                uint32_t t = tids[p * nl + i];
                uint8_t m = x->maybe[t] & (uint8_t)~found;
                if (m && x->dclean[t])
                    /* a piece with a bounded digit run needs a variable written as those digits */
                    for (int k = 0; k < g->pieces.n; k++)
                        if ((m >> k & 1) && g->masks[k].num_len &&
                            !ltk_decoder_unit_has_number(d, i, p, g->masks[k].num_value, g->masks[k].num_digits,
                                                          g->masks[k].num_len))
                            m &= (uint8_t)~(1u << k);
                if (!m)
                    continue;
                ltk_strbuf_clear(&x->line);
                if (ltk_decoder_unit(d, i, p, &x->line) != LOGTK_OK)
                    return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
                for (int k = 0; k < g->pieces.n; k++)
                    if ((m >> k & 1) && ltk_text_holds_piece(g, k, x->line.data ? x->line.data : (char *)"", x->line.len))
                        found |= (uint8_t)(1u << k);
            }
            if (found != all)
                continue; /* a piece is missing: the line cannot match */
        }
        x->cand[keep++] = i;
    }
    *ncand = keep;
    return LOGTK_OK;
}

/*
 * Number tests before candidates (after ltk_decode_lines_count): a
 * template whose lines may hold a piece only where its numbers fit marks
 * only the lines of its units that pass (found through the id histograms),
 * unless most pass; the other templates mark all their lines (x->mark, for
 * ltk_decode_lines_mark_counted).  So an IP whose pieces are numbers of
 * many templates makes candidates of the few lines that carry it instead
 * of every line of those templates.  Returns 0, 1 when some piece fits no
 * unit of the block, or a negative error (message in derr).
 */
static int mark_tested(const logtk_grep *g, search_ctx *x, ltk_decoder *d, uint8_t all, uint8_t *line_mask,
                       ltk_errbuf *derr)
{
    uint32_t nt = ltk_decoder_template_count(d);
    if (nt > x->mark_cap) {
        uint8_t *m = realloc(x->mark, nt);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->mark = m;
        x->mark_cap = nt;
    }
    int rc = template_flags(g, x, d, derr);
    if (rc != LOGTK_OK)
        return rc;
    int pairs = ltk_number_filter(g, x, d, derr);
    if (pairs < 0)
        return pairs;
    x->tests_done = 1;
    x->test_pairs = pairs;
    x->had_tests = pairs > 0;
    uint8_t avail = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint8_t tested = pairs > 0 ? x->tested[t] : 0;
        x->mark[t] = x->maybe[t] & (uint8_t)~tested;
        avail |= x->mark[t];
        for (int k = 0; tested; k++, tested >>= 1) {
            if (!(tested & 1))
                continue;
            const uint8_t *alive = x->alive + x->alive_off[(size_t)t * MAX_PIECES + (size_t)k];
            uint32_t count = ltk_decoder_template_lines(d, t), npass = 0;
            for (uint32_t r = 0; r < count; r++)
                npass += alive[r] != 0;
            if (npass == 0)
                continue;
            uint8_t bit = (uint8_t)(1u << k);
            avail |= bit;
            if ((uint64_t)npass * 4 > count)
                x->mark[t] |= bit; /* most pass: marking the whole template is as good */
            else
                ltk_decode_mark_units(d, t, alive, bit, line_mask);
        }
    }
    return (avail & all) != all;
}

static void ctx_free(search_ctx *x)
{
    if (x->own_dec)
        ltk_decoder_free(x->dec);
    ltk_regex_free(x->re);
    ltk_strbuf_free(&x->line);
    ltk_strbuf_free(&x->held);
    free(x->held_lens);
    ltk_strbuf_free(&x->whole);
    free(x->sel_lines);
    free(x->group_on);
    free(x->group_lines);
    free(x->maybe);
    free(x->cand);
    free(x->line_mask);
    free(x->nfa);
    free(x->sure);
    free(x->psure);
    free(x->look);
    free(x->dclean);
    free(x->tests);
    free(x->alive);
    free(x->alive_off);
    free(x->tested);
    free(x->elem_kind);
    free(x->elem_byte);
    free(x->elem_slot);
    free(x->mark);
    free(x->memo);
    free(x->memo_tests);
    if (x->cache_ready)
        ltk_hashtab_free(&x->cache);
    free(x->cache_val);
    memset(x, 0, sizeof *x);
}

/*
 * Rebuilds line i as grep sees it after decompression: the bytes before the
 * '\n', so a CRLF line keeps its '\r' (a pattern may match it).
 */
static int build_line(search_ctx *x, uint32_t i)
{
    ltk_strbuf_clear(&x->line);
    if (ltk_decoder_line(x->dec, i, 0, &x->line) != LOGTK_OK)
        return -1;
    if (ltk_decoder_line_eol(x->dec, i) == 1 && ltk_strbuf_putc(&x->line, '\r') != 0)
        return -1;
    return 0;
}

/* What a search_block reports a damaged block with. */
typedef struct block_place {
    const char *name;
    uint64_t index;      /* 0-based */
    uint64_t first_line; /* 1-based */
} block_place;

static int block_damaged(search_ctx *x, const block_place *bp, uint32_t nlines, const char *why)
{
    return ltk_error_set(&x->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                           bp->name, (unsigned long long)bp->index + 1,
                           (unsigned long long)bp->first_line,
                           (unsigned long long)(bp->first_line + nlines - 1), why);
}

/* Records selected line i of the block, for the content check (search_block_checked). */
static void note_selected(search_ctx *x, uint32_t i)
{
    if (!x->recording)
        return;
    if (ltk_array_reserve((void **)&x->sel_lines, &x->sel_lines_cap, x->nsel_lines + 1, sizeof *x->sel_lines) != 0)
        x->sel_failed = 1;
    else
        x->sel_lines[x->nsel_lines++] = i;
}

/*
 * Rebuilds the candidate lines x->cand[0..ncand) of the decoded block (their
 * values expanded) and matches those whose line_mask holds every piece
 * (all); counts and writes the selected ones (with -v, those that do not
 * match).  Returns LOGTK_OK, LOGTK_ERR_ARCHIVE (damaged) or another error.
 */
static int match_candidates(const logtk_grep *g, search_ctx *x, uint32_t ncand, uint8_t all,
                            const uint8_t *line_mask, uint32_t nlines, uint32_t raw_bytes,
                            const block_place *bp, logtk_write_callback cb, void *user,
                            uint64_t *count)
{
    int invert = (g->flags & LOGTK_GREP_INVERT) != 0;
    uint64_t total_bytes = 0;
    for (uint32_t c = 0; c < ncand; c++) {
        uint32_t i = x->cand[c];
        int maybe = (line_mask[i] & all) == all, m = 0;
        if (!maybe && !cb) {
            (*count)++; /* -v -c: a line that cannot match is counted unseen */
            note_selected(x, i);
            continue;
        }
        if (build_line(x, i) != 0)
            return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
        total_bytes += x->line.len;
        if (total_bytes > raw_bytes)
            return block_damaged(x, bp, nlines, "too long");
        if (maybe) {
            m = match_line(g, x->re, &x->err, x->line.data ? x->line.data : "", x->line.len);
            if (m < 0)
                return m;
        }
        if (m ^ invert) {
            (*count)++;
            note_selected(x, i);
            if (cb) {
                /* the line already ends with its '\r' when it had one (see build_line);
                   a last line without a terminator gets one, as grep prints it */
                if (ltk_strbuf_putc(&x->line, '\n') != 0)
                    return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
                if (cb(user, x->line.data, x->line.len) != 0)
                    return ltk_error_set(&x->err, LOGTK_ERR_IO, "write failed");
            }
        }
    }
    return LOGTK_OK;
}

/*
 * Searches one checked payload with context x: each selected line goes to cb
 * (when non-NULL), *count counts them, *ntemplates gets the block's template
 * count.  Returns LOGTK_OK, LOGTK_ERR_ARCHIVE (damaged; message in x->err) or
 * another error.
 */
static int search_block(const logtk_grep *g, search_ctx *x, const uint8_t *payload, size_t len,
                        uint32_t nlines, uint32_t raw_bytes, const block_place *bp,
                        logtk_write_callback cb, void *user, uint64_t *count, uint32_t *ntemplates)
{
    ltk_errbuf derr = {0};
    ltk_decoder *d = x->dec;
    int rc = ltk_decode_templates(d, payload, len, nlines, raw_bytes, &derr);
    if (rc != LOGTK_OK)
        return block_damaged(x, bp, nlines, ltk_error_text(&derr));
    uint32_t nt = ltk_decoder_template_count(d);
    *ntemplates = nt;
    if (nt > x->maybe_cap) {
        uint8_t *m = realloc(x->maybe, nt);
        if (!m)
            return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
        x->maybe = m;
        x->maybe_cap = nt;
    }
    /* lines of this block: at most its bytes + 1 (the decoder checks the same) */
    if ((size_t)nlines > x->line_cap) {
        uint32_t *m = realloc(x->cand, (size_t)nlines * sizeof *m);
        if (m)
            x->cand = m;
        uint8_t *lm = m ? realloc(x->line_mask, nlines) : NULL;
        if (!lm)
            return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
        x->line_mask = lm;
        x->line_cap = nlines;
    }
    uint8_t *line_mask = x->line_mask;
    uint8_t all = (uint8_t)((1u << g->pieces.n) - 1);
    if (ltk_decoder_whole_messages(d)) {
        /*
         * Each message is one string variable, which may hold any text: no
         * template rules a line out, so every line is rebuilt and matched.
         */
        rc = ltk_decode_lines(d, &derr);
        if (rc == LOGTK_OK)
            rc = ltk_decode_values(d, NULL, &derr);
        if (rc != LOGTK_OK)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
        x->ids_state = 2; /* every unit indexed (check_selected_groups) */
        uint32_t n = ltk_decoder_line_count(d);
        memset(line_mask, 0xff, n);
        for (uint32_t i = 0; i < n; i++)
            x->cand[i] = i;
        return match_candidates(g, x, n, all, line_mask, nlines, raw_bytes, bp, cb, user, count);
    }
    /* a line may match when its parts' templates together may hold every piece */
    uint8_t any_mask = g->pieces.n ? 0 : 0xff;
    for (uint32_t t = 0; t < nt; t++) {
        size_t tl;
        const uint8_t *tb = ltk_decoder_template(d, t, &tl);
        x->maybe[t] = g->pieces.n ? ltk_cached_piece_mask(g, x, tb, tl) : 0;
        any_mask |= x->maybe[t];
    }
    int invert = (g->flags & LOGTK_GREP_INVERT) != 0;
    if (!invert && nt > 0 && (any_mask & all) != all)
        return LOGTK_OK; /* no line of this block can hold the pattern */
    memset(line_mask, 0, nlines);
    /*
     * Candidate lines: the pieces their parts' templates may hold.  With -v
     * every line is rebuilt, so every unit's template and rank are read while
     * marking; otherwise marking only looks for the few templates that can
     * matter, and templates and ranks are then worked out for the
     * candidates alone (the ids are still all checked and counted).  That
     * pays while candidates are rare; when the previous block had many
     * (blocks in a row look alike), the one pass over every unit is cheaper.
     */
    int sparse = !invert && (!x->dense || x->had_tests);
    x->tests_done = 0;
    x->ids_state = 0;
    if (sparse && g->pieces.n > 0) {
        /* templates counted, number tests run, then only the units that pass are marked */
        rc = ltk_decode_lines_count(d, &derr);
        if (rc != LOGTK_OK)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
        x->ids_state = 1;
        rc = mark_tested(g, x, d, all, line_mask, &derr);
        if (rc == LOGTK_ERR_NOMEM)
            return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
        if (rc < 0)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
        if (rc == 1)
            return LOGTK_OK; /* some piece fits no unit of this block */
        ltk_decode_lines_mark_counted(d, x->mark, line_mask);
    } else {
        rc = sparse ? ltk_decode_lines_mark(d, x->maybe, line_mask, &derr)
                    : ltk_decode_lines_masked(d, x->maybe, line_mask, &derr);
        if (rc != LOGTK_OK)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
        x->ids_state = sparse ? 1 : 2;
    }
    uint32_t n = ltk_decoder_line_count(d);
    uint32_t ncand = 0;
    if (invert) {
        for (uint32_t i = 0; i < n; i++)
            x->cand[ncand++] = i;
    } else {
        const uint8_t *hit = line_mask;
        while (ncand < n && (hit = memchr(hit, all, (size_t)(line_mask + n - hit))) != NULL) {
            /* a line's mask only has bits of the pieces, so "all" means exactly all */
            x->cand[ncand++] = (uint32_t)(hit - line_mask);
            hit++;
        }
        x->dense = (uint64_t)ncand * 64 > n; /* measured: sparse wins below about 1 line in 60 */
        rc = sparse ? ltk_decode_index_lines(d, x->cand, ncand, &derr) : LOGTK_OK;
        if (rc != LOGTK_OK)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
        if (!cb && g->sure_ok && ncand > 0) {
            /*
             * Counting only: a candidate with a part whose template's
             * literal text holds the pattern is counted as it is; only the
             * others are rebuilt (often none: then no value is decoded).
             */
            if (nt > x->sure_cap) {
                uint8_t *m = realloc(x->sure, nt);
                if (!m)
                    return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
                x->sure = m;
                x->sure_cap = nt;
            }
            for (uint32_t t = 0; t < nt; t++) {
                size_t tl;
                const uint8_t *tb = ltk_decoder_template(d, t, &tl);
                x->sure[t] = x->maybe[t] == all && ltk_template_is_sure(g, tb, tl);
            }
            uint32_t parts = ltk_decoder_part_count(d), kept = 0;
            for (uint32_t c = 0; c < ncand; c++) {
                uint32_t i = x->cand[c], p = 0;
                while (p < parts && !x->sure[ltk_decoder_line_template(d, i, p)])
                    p++;
                if (p < parts) {
                    (*count)++;
                    note_selected(x, i);
                }
                else
                    x->cand[kept++] = i;
            }
            ncand = kept;
        }
    }
    if (!invert && g->pieces.n > 0 && ncand > 0) {
        rc = prune_candidates(g, x, d, all, &ncand, &derr);
        if (rc == LOGTK_ERR_NOMEM)
            return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
        if (rc != LOGTK_OK)
            return block_damaged(x, bp, nlines, ltk_error_text(&derr));
    }
    if (!invert && ncand == 0)
        return LOGTK_OK; /* no line left to rebuild: no value is decoded */
    /* only the values of candidate lines are expanded (all with -v) */
    rc = invert ? ltk_decode_values(d, NULL, &derr) : ltk_decode_values_for_lines(d, x->cand, ncand, &derr);
    if (rc != LOGTK_OK)
        return block_damaged(x, bp, nlines, ltk_error_text(&derr));
    return match_candidates(g, x, ncand, all, line_mask, nlines, raw_bytes, bp, cb, user, count);
}

/* search_block's callback while a block's lines are held back: keeps them in x. */
static int hold_line(void *user, const void *data, size_t len)
{
    search_ctx *x = user;
    if (ltk_array_reserve((void **)&x->held_lens, &x->held_cap, x->nheld + 1, sizeof *x->held_lens) != 0)
        return -1;
    if (len > UINT32_MAX || ltk_strbuf_append(&x->held, data, len) != 0)
        return -1;
    x->held_lens[x->nheld++] = (uint32_t)len;
    return 0;
}

/*
 * Checks the line groups (ltk_check_group() lines each) holding the lines
 * search_block selected against the block's line hashes: only those groups
 * are rebuilt, through the same sparse steps a search takes (template ids
 * counted, then the values of just those lines), or the whole block when
 * they are a good part of it.
 */
static int check_selected_groups(search_ctx *x, const uint8_t *payload, size_t len, uint32_t nlines,
                                 uint32_t raw_bytes, const uint8_t *line_hashes, ltk_errbuf *derr)
{
    ltk_decoder *d = x->dec;
    uint32_t lines = ltk_check_group(nlines);
    size_t ngroups = ((size_t)nlines + lines - 1) / lines;
    if (ltk_array_reserve((void **)&x->group_on, &x->group_on_cap, ngroups + 1, 1) != 0)
        return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
    memset(x->group_on, 0, ngroups);
    uint64_t nin = 0;
    for (size_t k = 0; k < x->nsel_lines; k++) {
        size_t g = x->sel_lines[k] / lines;
        if (g < ngroups && !x->group_on[g]) {
            x->group_on[g] = 1;
            nin += g + 1 < ngroups ? lines : nlines - g * lines;
        }
    }
    if (nin * 4 > nlines) {
        /* most of the block: decode it whole, check every group */
        ltk_strbuf_clear(&x->whole);
        int rc = ltk_decode_block(d, payload, len, nlines, raw_bytes, &x->whole, NULL, derr);
        return rc == LOGTK_OK ? ltk_check_content(line_hashes, x->whole.data, x->whole.len, nlines, derr) : rc;
    }
    if (ltk_array_reserve((void **)&x->group_lines, &x->group_lines_cap, nin + 1, sizeof *x->group_lines) != 0)
        return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t n = 0;
    for (size_t g = 0; g < ngroups; g++)
        if (x->group_on[g])
            for (uint32_t i = (uint32_t)(g * lines); i < nlines && i < (g + 1) * lines; i++)
                x->group_lines[n++] = i;
    /* the search's own reading of the template ids is reused: counted, or every unit indexed */
    int rc = LOGTK_OK;
    if (x->ids_state == 0) {
        rc = ltk_decode_templates(d, payload, len, nlines, raw_bytes, derr);
        if (rc == LOGTK_OK)
            rc = ltk_decode_lines_count(d, derr);
    }
    if (rc == LOGTK_OK && x->ids_state != 2)
        rc = ltk_decode_index_lines(d, x->group_lines, n, derr);
    if (rc == LOGTK_OK)
        rc = ltk_decode_values_for_lines(d, x->group_lines, n, derr);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        if (!x->group_on[g])
            continue;
        ltk_strbuf_clear(&x->whole);
        for (; k < n && x->group_lines[k] / lines == g; k++) {
            if (ltk_decoder_line(d, x->group_lines[k], 1, &x->whole) != LOGTK_OK)
                return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
            if (x->whole.len > raw_bytes)
                return ltk_error_set(derr, LOGTK_ERR_ARCHIVE, "block decodes to more bytes than its header says");
        }
        if (ltk_checksum32(x->whole.data, x->whole.len) != ltk_le_get_u32(line_hashes + 4 * g))
            return ltk_error_set(derr, LOGTK_ERR_ARCHIVE,
                                   "decoded lines %zu-%zu of the block fail the content checksum",
                                   g * lines + 1, g * lines + lines < nlines ? g * lines + lines : (size_t)nlines);
    }
    return LOGTK_OK;
}

/*
 * search_block, with the block's content checksums (format 4) checked
 * before any of its lines is given out or counted: a payload altered with
 * its payload hash recomputed can decode to lines that are not the
 * archive's, and search rebuilds only some lines, so the structural checks
 * of a whole decode do not run.  Only the groups of lines holding a
 * selected line are rebuilt for the check (a block in which nothing is
 * selected gives nothing out and is not checked).
 */
static int search_block_checked(const logtk_grep *g, search_ctx *x, const uint8_t *payload, size_t len,
                                uint32_t nlines, uint32_t raw_bytes, const uint8_t *line_hashes,
                                const block_place *bp, logtk_write_callback cb, void *user,
                                uint64_t *count, uint32_t *ntemplates)
{
    if (!line_hashes) /* format 3: nothing to check against */
        return search_block(g, x, payload, len, nlines, raw_bytes, bp, cb, user, count, ntemplates);
    uint64_t selected = 0;
    ltk_strbuf_clear(&x->held);
    x->nheld = 0;
    x->nsel_lines = 0;
    x->sel_failed = 0;
    x->recording = 1;
    int rc = search_block(g, x, payload, len, nlines, raw_bytes, bp, cb ? hold_line : NULL, x, &selected,
                          ntemplates);
    x->recording = 0;
    if (rc == LOGTK_ERR_IO && cb)
        return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
    if (rc != LOGTK_OK || selected == 0)
        return rc;
    if (x->sel_failed)
        return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
    ltk_errbuf derr = {0};
    rc = check_selected_groups(x, payload, len, nlines, raw_bytes, line_hashes, &derr);
    if (rc == LOGTK_ERR_NOMEM)
        return ltk_error_set(&x->err, LOGTK_ERR_NOMEM, "out of memory");
    if (rc != LOGTK_OK)
        return block_damaged(x, bp, nlines, ltk_error_text(&derr));
    const char *p = x->held.data;
    for (size_t k = 0; k < x->nheld; k++) {
        if (cb(user, p, x->held_lens[k]) != 0)
            return ltk_error_set(&x->err, LOGTK_ERR_IO, "write failed");
        p += x->held_lens[k];
    }
    *count += selected;
    return LOGTK_OK;
}

/* ---- serial path ---- */

static int next_block_serial(logtk_grep *g, logtk_archive_reader *r, logtk_archive_block *b,
                             logtk_write_callback cb, void *user, uint64_t *count)
{
    ltk_raw_block raw;
    int rc = ltk_reader_next_raw(r, b, &raw);
    if (rc != LOGTK_OK) {
        if (rc < 0)
            ltk_error_copy(&g->err, &r->err);
        return rc;
    }
    search_ctx *x = &g->main;
    x->dec = r->dec;
    x->own_dec = 0;
    block_place bp = {r->name, b->index, b->first_line};
    rc = search_block_checked(g, x, raw.payload, raw.len, raw.nlines, raw.raw_bytes, raw.line_hashes, &bp, cb,
                              user, count, &b->templates);
    if (rc != LOGTK_OK) {
        ltk_error_copy(&g->err, &x->err);
        if (rc == LOGTK_ERR_ARCHIVE) {
            ltk_error_copy(&r->err, &g->err);
            b->damaged = 1;
        }
    }
    return rc;
}

/* ---- parallel path ---- */

/*
 * A block handed to a worker through the read-ahead (flags: the caller has a
 * callback, so selected lines are collected), and what the worker found.
 */
typedef struct grep_job {
    ltk_read_job in;   /* first: the block as read; in.rc and in.err get the search's status */
    ltk_strbuf out;   /* selected lines, back to back ... */
    uint32_t *lens;     /* ... and their lengths */
    size_t nlens, lens_cap;
    uint64_t count;
} grep_job;

/*
 * Blocks read ahead per thread.  A job holds only the lines it selected
 * (payloads stay in the file's map), so the ring can be deep: search costs
 * vary a lot from block to block (most are skipped on their templates),
 * and with 2 per thread the workers waited for the caller to take a slow
 * oldest block (time both workers spent waiting for work, measured with an
 * instrumented build, -T 2, 2M-line scale-up, median of 11 runs: MegaRAID
 * 38 -> 10 ms, 10.251.43.115 17 -> 8 ms, 'ciod: failed' 19 -> 7 ms with 4;
 * 8 gained nothing more).
 */
#define GREP_DEPTH 4

struct grep_pool {
    int nthreads;
    ltk_readahead *ra;
    search_ctx ctx[GREP_MAX_THREADS]; /* worker i's */
};

static int job_collect(void *user, const void *data, size_t len)
{
    grep_job *j = user;
    if (ltk_array_reserve((void **)&j->lens, &j->lens_cap, j->nlens + 1, sizeof *j->lens) != 0)
        return -1;
    if (len > UINT32_MAX || ltk_strbuf_append(&j->out, data, len) != 0)
        return -1;
    j->lens[j->nlens++] = (uint32_t)len;
    return 0;
}

/* Read-ahead work function: state is the worker's search context. */
static void grep_work(void *state, void *arg)
{
    search_ctx *x = state;
    grep_job *j = arg;
    ltk_read_job *in = &j->in;
    block_place bp = {in->source, in->b.index, in->b.first_line};
    ltk_strbuf_clear(&j->out);
    j->nlens = 0;
    j->count = 0;
    ltk_error_clear(&x->err);
    uint32_t nt = 0;
    int rc = search_block_checked(x->g, x, in->payload, in->len, in->nlines, in->raw_bytes,
                                  in->line_hashes, &bp,
                                  in->flags ? job_collect : NULL, j, &j->count, &nt);
    in->b.templates = nt;
    if (rc != LOGTK_OK) {
        ltk_error_copy(&in->err, &x->err);
        if (rc == LOGTK_ERR_ARCHIVE)
            in->b.damaged = 1;
    }
    in->rc = rc;
}

static void free_job(void *arg)
{
    grep_job *j = arg;
    ltk_strbuf_free(&j->out);
    free(j->lens);
}

static void pool_free(grep_pool *p)
{
    if (!p)
        return;
    ltk_readahead_free(p->ra, free_job); /* stops the workers first */
    for (int i = 0; i < p->nthreads; i++)
        ctx_free(&p->ctx[i]);
    free(p);
}

/* Starts the workers; 0 or -1 (then the caller searches serially). */
static int pool_start(logtk_grep *g)
{
    grep_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->nthreads = g->threads;
    void *states[GREP_MAX_THREADS];
    for (int i = 0; i < p->nthreads; i++) {
        search_ctx *x = &p->ctx[i];
        states[i] = x;
        x->g = g;
        x->dec = ltk_decoder_new();
        x->own_dec = 1;
        if (!x->dec || (g->regex && ltk_regex_clone(g->regex, &x->re) != LOGTK_OK)) {
            pool_free(p);
            return -1;
        }
    }
    p->ra = ltk_readahead_new(p->nthreads, GREP_DEPTH, sizeof(grep_job), grep_work, states);
    if (!p->ra) {
        pool_free(p);
        return -1;
    }
    g->pool = p;
    return 0;
}

static int next_block_parallel(logtk_grep *g, logtk_archive_reader *r, logtk_archive_block *b,
                               logtk_write_callback cb, void *user, uint64_t *count)
{
    int end_rc;
    grep_job *j = (grep_job *)ltk_readahead_next(g->pool->ra, r, cb != NULL, &end_rc);
    if (!j)
        return LOGTK_DONE; /* a fatal error was delivered in its block's turn */
    *b = j->in.b;
    if (j->in.rc != LOGTK_OK) {
        ltk_error_copy(&g->err, &j->in.err);
        if (j->in.rc == LOGTK_ERR_ARCHIVE)
            ltk_error_copy(&r->err, &j->in.err);
        return j->in.rc;
    }
    if (cb) {
        const char *s = j->out.data;
        for (size_t k = 0; k < j->nlens; k++) {
            if (cb(user, s, j->lens[k]) != 0)
                return ltk_error_set(&g->err, LOGTK_ERR_IO, "write failed");
            s += j->lens[k];
        }
    }
    *count += j->count;
    return LOGTK_OK;
}

int logtk_grep_set_threads(logtk_grep *g, int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > GREP_MAX_THREADS)
        threads = GREP_MAX_THREADS;
    if (g->pool && g->pool->nthreads != threads) {
        pool_free(g->pool);
        g->pool = NULL;
    }
    g->threads = threads;
    return LOGTK_OK;
}

int logtk_grep_next_block(logtk_grep *g, logtk_archive_reader *r, logtk_archive_block *b,
                          logtk_write_callback cb, void *user, uint64_t *count)
{
    if (g->threads > 1 && (g->pool || pool_start(g) == 0))
        return next_block_parallel(g, r, b, cb, user, count);
    return next_block_serial(g, r, b, cb, user, count);
}

const char *logtk_grep_errmsg(const logtk_grep *g)
{
    return g ? ltk_error_text(&g->err) : "out of memory";
}

void logtk_grep_free(logtk_grep *g)
{
    if (!g)
        return;
    pool_free(g->pool);
    free(g->pattern);
    clear_pieces(&g->pieces);
    free(g->masks);
    free(g->phrases);
    ctx_free(&g->main); /* its clone before the pattern it borrows */
    ltk_regex_free(g->regex);
    free(g);
}
