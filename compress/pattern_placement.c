/*
 * pattern_placement.c - where the pieces of a grep pattern can lie in a
 * template, without looking at any line: the bit-parallel (shift-and) check
 * of a template against each piece and phrase, the pieces its literal text
 * surely holds, and the number tests that alignments of a piece over a
 * template's text and variables give its numeric columns.  The grep driver
 * that uses them is archive_search.c (whose opening comment says why).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive_search_impl.h"
#include "growarray.h"
#include "line_split.h"
#include "pattern_placement.h"

/*
 * Can the (lower-cased) piece occur in a line of this template?
 * Elements are literal bytes or variable slots (one or more bytes of a class).
 * State j "fresh": the next pattern byte must come from element j; state j
 * "in": the pattern is inside variable j, which may take more bytes or end.
 */
/*
 * The same question answered bit-parallel (shift-and) for pieces of at most
 * 64 bytes: bit i of the state is set when the piece's first i + 1 bytes can
 * end right here.  A literal byte extends states by one position; a variable
 * takes one or more bytes of its class, so its states extend along runs of
 * positions its class allows.  A new match may start at every element.
 * shift_and_scan runs it from `state`: 1 as soon as a state bit in `last` is
 * set, else 0 with the final state in *end (the phrase check below goes on
 * from there).
 */
static int shift_and_scan(const uint64_t *byte, const uint64_t *var, uint64_t last,
                          uint64_t state, const uint8_t *t, size_t tlen, uint64_t *end)
{
    for (size_t i = 0; i < tlen; i++) {
        uint8_t c = t[i];
        if (ltk_is_var_marker(c)) {
            uint64_t cls = var[c];
            uint64_t x = ((state << 1) | 1) & cls, prev;
            do {
                prev = x;
                x |= (x << 1) & cls;
            } while (x != prev);
            state = x;
        } else {
            if (c == LTK_M_ESC && i + 1 < tlen)
                c = t[++i];
            state = ((state << 1) | 1) & byte[c];
        }
        if (state & last)
            return 1;
    }
    *end = state;
    return 0;
}

static int template_may_match_bits(const piece_masks *pm, const uint8_t *t, size_t tlen)
{
    uint64_t end;
    return shift_and_scan(pm->byte, pm->var, pm->last, 0, t, tlen, &end);
}

static int template_may_match(search_ctx *g, int fold, const char *piece, size_t plen, const uint8_t *t,
                              size_t tlen)
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
        if (ltk_is_var_marker(c)) {
            kind[n] = c;
            byte[n++] = 0;
        } else {
            if (c == LTK_M_ESC && i + 1 < tlen)
                c = t[++i];
            kind[n] = 0;
            byte[n++] = fold ? (uint8_t)tolower(c) : c;
        }
    }
    uint8_t *fresh = g->nfa + 2 * (tlen + 1), *in = fresh + tlen + 1;
    /* fresh has n+1 entries (n = end of line), in has n entries; 2n+1 <= 2 tlen + 2 */
    memset(fresh, 1, n);
    fresh[n] = 0;
    for (size_t j = 0; j < n; j++)
        in[j] = kind[j] != 0;
    for (size_t k = 0; k < plen; k++) {
        uint8_t c = (uint8_t)piece[k];
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
            } else if ((f || i2) && (ltk_var_may_contain(kind[jj], c) ||
                                     (fold && ltk_var_may_contain(kind[jj], (uint8_t)toupper(c))))) {
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
 * Can a unit with this template hold its part of the phrase (see
 * phrase_masks)?  Shift-and as in template_may_match_bits, but the unit may
 * also be entered in the middle of the phrase (a previous part ended right
 * before one of its blank runs) and left there (the next part starts with
 * that blank run).
 */
static int template_may_hold_phrase(const phrase_masks *hm, const uint8_t *t, size_t tlen)
{
    uint64_t end;
    if (shift_and_scan(hm->byte, hm->var, hm->last, hm->run_start, t, tlen, &end))
        return 1;
    return (end & hm->run_start) != 0;
}

/* Nonzero when no variable of any kind can produce byte c (either case when folding). */
int ltk_literal_only(unsigned char c, int fold)
{
    for (int kind = LTK_M_UNUM; kind <= LTK_M_LAST; kind++)
        if (ltk_is_var_marker((unsigned)kind) &&
            (ltk_var_may_contain(kind, c) || (fold && ltk_var_may_contain(kind, (unsigned char)toupper(c)))))
            return 0;
    return 1;
}

/*
 * Bit k set: piece k may occur in a line of this template.  A quick test
 * first: every byte of the piece that no variable can produce must be among
 * the template's literal bytes; most templates fail it, and the NFA runs only
 * for the rest.
 */
static uint8_t template_piece_mask(const logtk_grep *g, search_ctx *x, const uint8_t *t, size_t tlen)
{
    /*
     * Every byte of the template, markers and escapes included (a superset
     * of its literals: only pruning is lost), then when folding 'A'-'Z'
     * (bits 1-26 of word 1) onto 'a'-'z' (bits 33-58).
     */
    uint64_t present[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < tlen; i++)
        present[t[i] >> 6] |= 1ull << (t[i] & 63);
    if (g->pieces.fold)
        present[1] |= (present[1] & 0x7fffffeull) << 32;
    uint8_t mask = 0;
    for (int k = 0; k < g->pieces.n; k++) {
        const uint64_t *need = g->masks[k].literal_need;
        if ((need[0] & ~present[0]) | (need[1] & ~present[1]) | (need[2] & ~present[2]) |
            (need[3] & ~present[3]))
            continue;
        if (g->pieces.len[k] <= 64 ? template_may_match_bits(&g->masks[k], t, tlen)
                                   : template_may_match(x, g->pieces.fold, g->pieces.text[k], g->pieces.len[k], t, tlen))
            mask |= (uint8_t)(1u << k);
    }
    /*
     * A piece inside a phrase lies, in a matching line, in a unit the
     * phrase's occurrence overlaps: a unit that cannot hold its part of the
     * phrase does not count for those pieces ("ciod:" and "failed" of
     * "ciod: failed" in a "ciod: LOGIN ... failed" template).
     */
    for (int h = 0; h < g->pieces.nphrases && g->phrases; h++)
        if ((mask & g->phrases[h].pieces) && !template_may_hold_phrase(&g->phrases[h], t, tlen))
            mask &= (uint8_t)~g->phrases[h].pieces;
    return mask;
}

/*
 * Blocks repeat most templates of the blocks before them, so the answer of
 * template_piece_mask is kept per distinct template (bounded: the cache starts
 * over when it grows large).
 */
uint8_t ltk_cached_piece_mask(const logtk_grep *g, search_ctx *x, const uint8_t *t, size_t tlen)
{
    enum { CACHE_MAX = 1 << 20 };
    if (!x->cache_ready || x->cache.count >= CACHE_MAX) {
        if (x->cache_ready) {
            ltk_hashtab_free(&x->cache);
            if (x->memo) /* ids start over: so do the alignments remembered per id */
                memset(x->memo, 0, x->memo_cap * sizeof *x->memo);
            x->memo_ntests = 0;
        }
        x->cache_ready = ltk_hashtab_init(&x->cache, 4096) == 0;
        if (!x->cache_ready)
            return template_piece_mask(g, x, t, tlen);
    }
    int inserted = 0;
    int64_t id = ltk_hashtab_intern(&x->cache, tlen ? (const char *)t : "", tlen, &inserted);
    if (id < 0)
        return template_piece_mask(g, x, t, tlen);
    if (ltk_array_reserve((void **)&x->cache_val, &x->cache_cap, (size_t)id + 1, 1) != 0)
        return template_piece_mask(g, x, t, tlen);
    if (inserted)
        x->cache_val[id] = template_piece_mask(g, x, t, tlen);
    return x->cache_val[id];
}

/* ASCII lower case, as PCRE2's default (C locale) tables fold for -i. */
static inline unsigned char fold_ascii(unsigned char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
}

/*
 * Nonzero when a literal run of the template (bytes between variables and
 * escapes) holds the whole fixed pattern: then every line with this
 * template in any part matches, and grep -c counts it without rebuilding
 * it.  Escaped bytes end a run here, which only misses some such templates.
 */
int ltk_template_is_sure(const logtk_grep *g, const uint8_t *t, size_t tlen)
{
    const unsigned char *pat = (const unsigned char *)g->pattern;
    size_t plen = g->plen, i = 0;
    int icase = (g->flags & LOGTK_GREP_ICASE) != 0;
    while (i < tlen) {
        size_t start = i;
        while (i < tlen && (t[i] == 0 || t[i] > LTK_M_LAST))
            i++;
        size_t rl = i - start;
        if (rl >= plen) {
            const unsigned char *run = t + start;
            if (!icase) {
                if (memmem(run, rl, pat, plen))
                    return 1;
            } else {
                for (size_t k = 0; k + plen <= rl; k++) {
                    size_t m = 0;
                    while (m < plen && fold_ascii(run[k + m]) == fold_ascii(pat[m]))
                        m++;
                    if (m == plen)
                        return 1;
                }
            }
        }
        if (i < tlen)
            i += t[i] == LTK_M_ESC ? 2 : 1;
    }
    return 0;
}

/* Nonzero when text[0..n) holds piece k (lower-cased first when folding; text is scratch). */
int ltk_text_holds_piece(const logtk_grep *g, int k, char *text, size_t n)
{
    if (g->pieces.fold)
        for (size_t i = 0; i < n; i++)
            text[i] = (char)fold_ascii((unsigned char)text[i]);
    /* units are short: memchr for the first byte beats memmem's set-up */
    const char *pc = g->pieces.text[k];
    size_t pl = g->pieces.len[k];
    if (pl == 0)
        return 1;
    if (n < pl)
        return 0;
    const char *q = text, *last = text + n - pl;
    while (q <= last && (q = memchr(q, pc[0], (size_t)(last - q) + 1)) != NULL) {
        if (memcmp(q + 1, pc + 1, pl - 1) == 0)
            return 1;
        q++;
    }
    return 0;
}

/*
 * Nonzero when every maximal digit run of a line of this template is the
 * text of one decimal numeric variable: no string, address or hex
 * variables, no literal digits, no two numeric variables side by side.
 */
int ltk_template_digits_clean(const uint8_t *t, size_t tlen)
{
    int prev_num = 0;
    for (size_t i = 0; i < tlen; i++) {
        uint8_t c = t[i];
        if (c == LTK_M_STR || c == LTK_M_IP || c == LTK_M_HEXL || c == LTK_M_HEXU || (c >= '0' && c <= '9'))
            return 0;
        if (c == LTK_M_UNUM || c == LTK_M_SNUM) {
            if (prev_num)
                return 0;
            prev_num = 1;
            continue;
        }
        if (c == LTK_M_ESC)
            i++; /* an escaped byte (1..7) is a literal, not a marker */
        prev_num = 0;
    }
    return 1;
}

/* Bit k set: a literal run of the template (as in template_is_sure) holds piece k. */
uint8_t ltk_template_sure_pieces(const logtk_grep *g, const uint8_t *t, size_t tlen, uint8_t maybe,
                                  ltk_strbuf *scratch)
{
    uint8_t bits = 0;
    size_t i = 0;
    while (i < tlen && maybe & ~bits) {
        size_t start = i;
        while (i < tlen && (t[i] == 0 || t[i] > LTK_M_LAST))
            i++;
        for (int k = 0; k < g->pieces.n; k++) {
            if (!(maybe >> k & 1) || (bits >> k & 1) || i - start < g->pieces.len[k])
                continue;
            ltk_strbuf_clear(scratch);
            if (ltk_strbuf_append(scratch, t + start, i - start) != 0)
                return bits; /* fewer sure pieces: only more work */
            if (ltk_text_holds_piece(g, k, scratch->data, scratch->len))
                bits |= (uint8_t)(1u << k);
        }
        if (i < tlen)
            i += t[i] == LTK_M_ESC ? 2 : 1;
    }
    return bits;
}

/*
 * Number tests.  Where a piece can lie in a template is a list of
 * "alignments": the piece's bytes laid over the template's literal bytes
 * and variables (a variable taking one or more bytes of its class).  In an
 * alignment, a numeric variable covered by the piece from its first to its
 * last byte must be written as exactly those digits; one the piece starts
 * inside must end with them, one it ends inside must start with them.  A
 * unit can hold the piece only when some alignment's tests all pass, so
 * with few alignments, each with a test, the numeric columns alone rule out
 * most units of a template that a parameter value (an IP, a block id) made
 * candidates - before a single unit is rebuilt.
 */
#define MAX_ALIGN_TESTS 8  /* tests kept per alignment (dropping some only tests less) */
#define ALIGN_BUDGET 20000 /* steps of the alignment walk per template and piece */

typedef struct align_walk {
    const uint8_t *kind, *byte;
    const uint32_t *slot;
    size_t nelem;
    const char *piece;
    size_t plen;
    int fold;
    long budget;
    int naligns, give_up;
    int ntests[MAX_ALIGNS];
    ltk_num_test tests[MAX_ALIGNS][MAX_ALIGN_TESTS];
    ltk_num_test cur[MAX_ALIGN_TESTS];
} align_walk;

/*
 * The octet whose canonical text (0-255, no leading zero) ends with
 * (suffix) or starts with (!suffix) the digits f[0..n): -1 when none, -2
 * when several (an empty f fits every octet), else that octet.  Worked out
 * rather than tried: three digits are the octet itself; a suffix of one or
 * two digits always fits several ("5": 5, 15, 105...; "05": 105, 205); a
 * prefix "0" is only 0, "0x" none, and a two-digit prefix from 26 up has no
 * three-digit extension.
 */
static int ip_octet_fit(const char *f, size_t n, int suffix)
{
    if (n == 0)
        return -2;
    if (n > 3)
        return -1;
    int v = 0;
    for (size_t k = 0; k < n; k++)
        v = v * 10 + (f[k] - '0');
    if (n == 3)
        return f[0] != '0' && v <= 255 ? v : -1;
    if (suffix)
        return -2;
    if (f[0] == '0')
        return n == 1 ? 0 : -1;
    return n == 2 && v >= 26 ? v : -2;
}

/*
 * The test of an IP variable covering the piece bytes s[0..n) (see
 * number_test_for): the octets those bytes fix, as an LTK_TEST_IP_MASK
 * test.  A piece that covers the whole variable must be a dotted quad of
 * 1-3 digit parts; one that starts inside it covers its last parts, one
 * that ends inside it its first ones, one that does both only places itself
 * when it holds all three dots.  An edge octet it covers in part is fixed
 * when only one octet can be written so ("115" of "10.251.43.115" at the
 * piece's end can only be 115; its "10" may be 10, 110 or 210).
 * That test speaks of canonical addresses only: a non-canonical quad
 * ("10.957.43.015", a packed value) passes every LTK_TEST_IP_MASK test, so
 * a piece that only such a quad can hold ("957", "015", "01" at the edge)
 * gets a test no address passes (mask 0, bits 1).  A second test,
 * LTK_TEST_IP_PACKED, which every address passes, checks packed values:
 * the parts whose whole text the piece spells out (digit count and value),
 * or fails them all when the piece is a whole canonical address.  Without
 * it the scale-up log's redrawn addresses (70% of its quads) would all be
 * rebuilt for "10.251.43.115".  -1 is kept for what no dotted quad can hold
 * (other bytes, 4+ digits in a part, a fourth dot).
 */
static int ip_test_for(const char *s, size_t n, int starts, int ends, ltk_num_test t[2])
{
    size_t field_at[4], field_len[4], nf = 0, at = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] >= '0' && s[i] <= '9')
            continue;
        if (i < n && s[i] != '.')
            return -1;
        if (nf == 4)
            return -1; /* more than three dots */
        field_at[nf] = at;
        field_len[nf++] = i - at;
        at = i + 1;
    }
    size_t first_octet; /* octet of field 0 */
    if (!starts)
        first_octet = 0;
    else if (!ends)
        first_octet = 4 - nf;
    else if (nf == 4)
        first_octet = 0;
    else
        return 0; /* a stretch of unknown place */
    if (!starts && !ends && nf != 4)
        return -1;
    uint32_t mask = 0, bits = 0;
    unsigned fixed = 0, packed_flags = 0, packed_fixed = 0;
    uint64_t packed = 0;
    int no_address = 0, all_canonical = 1; /* only a non-canonical quad / only an address can hold the piece */
    for (size_t f = 0; f < nf; f++) {
        const char *fs = s + field_at[f];
        size_t fl = field_len[f];
        int partial_suffix = starts && f == 0, partial_prefix = ends && f + 1 == nf;
        unsigned part = (unsigned)(first_octet + f);
        int o;
        if (fl > 3)
            return -1; /* no part has four digits */
        int value = 0;
        for (size_t k = 0; k < fl; k++)
            value = value * 10 + (fs[k] - '0');
        int canonical = value <= 255 && (fl == 1 || fs[0] != '0');
        /* (one field both starting and ending inside the variable was ruled out above) */
        if (partial_suffix || partial_prefix) {
            o = ip_octet_fit(fs, fl, partial_suffix);
        } else {
            /* a whole part */
            if (fl == 0)
                return -1;
            o = canonical ? value : -1;
        }
        if (fl == 3 || !(partial_suffix || partial_prefix)) {
            /* the part's whole text is known (three digits are the most a part has) */
            packed_flags |= 8u >> part;
            packed |= (uint64_t)((fl - 1) << 10 | (size_t)value) << (36 - 12 * part);
            packed_fixed++;
            all_canonical &= canonical;
        }
        if (o == -1) {
            no_address = 1;
            continue;
        }
        if (o >= 0) {
            unsigned shift = 8 * (3 - part);
            mask |= 0xffu << shift;
            bits |= (uint32_t)o << shift;
            fixed++;
        }
    }
    if (no_address) {
        mask = 0;
        bits = 1;
        fixed = 1;
    }
    int nt = 0;
    if (fixed > 0) {
        t[nt].kind = LTK_TEST_IP_MASK;
        t[nt].len = (uint8_t)(3 * fixed);
        t[nt++].value = (uint64_t)mask << 32 | bits;
    }
    if (packed_flags == 15 && all_canonical) {
        /* the whole quad is a canonical address: no packed value is written so */
        packed_flags = 8;
        packed = (uint64_t)0xfff << 36;
    }
    if (packed_flags != 0) {
        t[nt].kind = LTK_TEST_IP_PACKED;
        t[nt].len = (uint8_t)(3 * packed_fixed);
        t[nt++].value = (uint64_t)packed_flags << 48 | packed;
    }
    return nt;
}

/*
 * The tests a numeric variable of the given kind gets from the piece bytes
 * s[0..n) it covers (starts/ends: the piece starts/ends inside it).
 * Returns how many (at most 2) with t[0..] filled, 0 when there is nothing
 * to test, -1 when the variable cannot be written so.  Decimal numbers get
 * exact, prefix and suffix tests, a hex number covered whole an exact test
 * of its value, a dotted quad the octets the piece fixes for an address and
 * the parts it spells out for a packed non-canonical quad (two tests: each
 * passes the other kind of value).
 */
static int number_test_for(int kind, const char *s, size_t n, int starts, int ends, ltk_num_test *t)
{
    if (kind == LTK_M_IP)
        return ip_test_for(s, n, starts, ends, t);
    if (kind == LTK_M_HEXL || kind == LTK_M_HEXU) {
        uint64_t v = 0;
        size_t significant = 0; /* digits from the first nonzero one */
        for (size_t i = 0; i < n; i++) {
            unsigned c = (unsigned char)s[i];
            unsigned d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 16;
            if (d > 15)
                return -1;
            significant += significant > 0 || d > 0;
            v = v << 4 | d;
        }
        if (n == 0 || starts || ends)
            return 0;
        if (significant > 16)
            return -1; /* more than a value holds (leading zeros aside) */
        t->kind = LTK_TEST_EXACT;
        t->len = (uint8_t)n;
        t->value = v;
        return 1;
    }
    int minus = n > 0 && s[0] == '-';
    if (minus) {
        if (kind != LTK_M_SNUM)
            return -1;
        s++;
        n--;
        starts = 0; /* a sign is a number's first byte */
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    if (n == 0 || n > 19 || (starts && ends))
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (starts)
        t->kind = LTK_TEST_SUFFIX;
    else if (ends) {
        if (s[0] == '0')
            return 0; /* the number may have leading zeros: its value's digits tell nothing */
        t->kind = LTK_TEST_PREFIX;
    } else
        t->kind = LTK_TEST_EXACT;
    t->len = (uint8_t)n;
    t->value = v;
    return 1;
}

/* Lays piece[i..) over elements e.. (ncur tests so far); records complete alignments. */
static void align_from(align_walk *w, size_t e, size_t i, int ncur)
{
    if (w->give_up || --w->budget < 0) {
        w->give_up = 1;
        return;
    }
    if (i == w->plen) {
        if (w->naligns == MAX_ALIGNS || ncur == 0) {
            w->give_up = 1; /* too many ways, or one that needs no number: no test */
            return;
        }
        memcpy(w->tests[w->naligns], w->cur, (size_t)ncur * sizeof w->cur[0]);
        w->ntests[w->naligns++] = ncur;
        return;
    }
    if (e == w->nelem)
        return;
    uint8_t k = w->kind[e];
    if (k == 0) {
        unsigned char b = w->byte[e];
        if (w->fold && b >= 'A' && b <= 'Z')
            b = (unsigned char)(b + 32);
        if ((unsigned char)w->piece[i] == b)
            align_from(w, e + 1, i + 1, ncur);
        return;
    }
    for (size_t j = i; j < w->plen; j++) {
        unsigned char c = (unsigned char)w->piece[j];
        if (!ltk_var_may_contain(k, c) && !(w->fold && ltk_var_may_contain(k, (unsigned char)toupper(c))))
            break;
        int nc = ncur;
        if (k != LTK_M_STR) {
            ltk_num_test t[2];
            int r = number_test_for(k, w->piece + i, j + 1 - i, i == 0, j + 1 == w->plen, t);
            if (r < 0)
                continue;
            for (int q = 0; q < r && nc < MAX_ALIGN_TESTS; q++) {
                t[q].slot = w->slot[e];
                w->cur[nc++] = t[q];
            }
        }
        align_from(w, e + 1, j + 1, nc);
        if (w->give_up)
            return;
    }
}

/* Splits template bytes into the ctx's element arrays; returns their count, or SIZE_MAX on no memory. */
static size_t template_elements(search_ctx *x, const uint8_t *t, size_t tlen)
{
    if (tlen + 1 > x->elem_cap) {
        size_t cap = tlen + 64;
        uint8_t *k = realloc(x->elem_kind, cap);
        if (k)
            x->elem_kind = k;
        uint8_t *b = k ? realloc(x->elem_byte, cap) : NULL;
        if (b)
            x->elem_byte = b;
        uint32_t *sl = b ? realloc(x->elem_slot, cap * sizeof *sl) : NULL;
        if (!sl)
            return SIZE_MAX;
        x->elem_slot = sl;
        x->elem_cap = cap;
    }
    size_t n = 0;
    uint32_t nnum = 0;
    for (size_t i = 0; i < tlen; i++) {
        uint8_t c = t[i];
        if (ltk_is_var_marker(c)) {
            x->elem_kind[n] = c;
            x->elem_byte[n] = 0;
            x->elem_slot[n++] = c == LTK_M_STR ? 0 : nnum++;
            continue;
        }
        if (c == LTK_M_ESC && i + 1 < tlen)
            c = t[++i];
        x->elem_kind[n] = 0;
        x->elem_byte[n] = c;
        x->elem_slot[n++] = 0;
    }
    return n;
}

/* The memo entry of (template bytes, piece k), or NULL when the template is not cached or on no memory. */
static align_memo *align_memo_for(search_ctx *x, const uint8_t *t, size_t tlen, int k)
{
    if (!x->cache_ready)
        return NULL;
    int64_t id = ltk_hashtab_find(&x->cache, tlen ? (const char *)t : "", tlen);
    if (id < 0)
        return NULL;
    size_t need = ((size_t)id + 1) * MAX_PIECES;
    if (need > x->memo_cap) {
        size_t old = x->memo_cap;
        if (ltk_array_reserve((void **)&x->memo, &x->memo_cap, need, sizeof *x->memo) != 0)
            return NULL;
        memset(x->memo + old, 0, (x->memo_cap - old) * sizeof *x->memo);
    }
    return &x->memo[(size_t)id * MAX_PIECES + (size_t)k];
}

/* Walks every alignment of piece k over the ne elements made by template_elements. */
static void walk_alignments(const logtk_grep *g, const search_ctx *x, align_walk *w, size_t ne, int k)
{
    w->kind = x->elem_kind;
    w->byte = x->elem_byte;
    w->slot = x->elem_slot;
    w->nelem = ne;
    w->piece = g->pieces.text[k];
    w->plen = g->pieces.len[k];
    w->fold = g->pieces.fold;
    w->budget = ALIGN_BUDGET;
    w->naligns = 0;
    w->give_up = 0;
    for (size_t e = 0; e < ne && !w->give_up; e++)
        align_from(w, e, 0, 0);
}

/* Remembers the walk's answer in *mm (left unknown on no memory). */
static void align_memo_store(search_ctx *x, align_memo *mm, const align_walk *w)
{
    if (w->give_up || w->naligns == 0) {
        mm->state = 1;
        return;
    }
    size_t add = 0;
    for (int a = 0; a < w->naligns; a++)
        add += (size_t)w->ntests[a];
    if (x->memo_ntests + add > x->memo_tests_cap) {
        size_t cap = (x->memo_ntests + add) * 2 + 256;
        if (cap > UINT32_MAX)
            return;
        ltk_num_test *m = realloc(x->memo_tests, cap * sizeof *m);
        if (!m)
            return;
        x->memo_tests = m;
        x->memo_tests_cap = cap;
    }
    mm->off = (uint32_t)x->memo_ntests;
    mm->naligns = (uint8_t)w->naligns;
    for (int a = 0; a < w->naligns; a++) {
        mm->ntests[a] = (uint8_t)w->ntests[a];
        memcpy(x->memo_tests + x->memo_ntests, w->tests[a], (size_t)w->ntests[a] * sizeof w->tests[a][0]);
        x->memo_ntests += (size_t)w->ntests[a];
    }
    mm->state = 2;
}

/* Fills the walk's answer from a remembered one (state 2). */
static void align_memo_load(const search_ctx *x, const align_memo *mm, align_walk *w)
{
    w->give_up = 0;
    w->naligns = mm->naligns;
    size_t off = mm->off;
    for (int a = 0; a < w->naligns; a++) {
        w->ntests[a] = mm->ntests[a];
        memcpy(w->tests[a], x->memo_tests + off, (size_t)mm->ntests[a] * sizeof w->tests[a][0]);
        off += mm->ntests[a];
    }
}

static int cmp_num_test(const void *a, const void *b)
{
    const ltk_num_test *x = a, *y = b;
    if (x->tmpl != y->tmpl)
        return x->tmpl < y->tmpl ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Builds and runs the number tests of every template that may (but does
 * not surely) hold a piece; afterwards x->alive_off[t * MAX_PIECES + k]
 * (SIZE_MAX: untested) locates one byte per line of template t, zero when
 * no alignment of piece k can hold in that unit.  Returns the number of
 * tested (template, piece) pairs, or a negative error (message in derr).
 */
int ltk_number_filter(const logtk_grep *g, search_ctx *x, ltk_decoder *d, ltk_errbuf *derr)
{
    uint32_t nt = ltk_decoder_template_count(d);
    size_t need = (size_t)nt * MAX_PIECES;
    if (need > x->alive_off_cap) {
        size_t *m = realloc(x->alive_off, need * sizeof *m);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->alive_off = m;
        x->alive_off_cap = need;
    }
    for (size_t q = 0; q < need; q++)
        x->alive_off[q] = SIZE_MAX;
    if (nt > x->tested_cap) {
        uint8_t *m = realloc(x->tested, nt);
        if (!m)
            return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
        x->tested = m;
        x->tested_cap = nt;
    }
    memset(x->tested, 0, nt);
    x->ntests = 0;
    size_t nalive = 0;
    int pairs = 0;
    align_walk *w = malloc(sizeof *w);
    if (!w)
        return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t t = 0; t < nt; t++) {
        uint8_t m = x->maybe[t] & (uint8_t)~x->psure[t];
        if (!m)
            continue;
        size_t tl;
        const uint8_t *tb = ltk_decoder_template(d, t, &tl);
        size_t ne = SIZE_MAX; /* elements made only when some piece's walk is not remembered */
        uint32_t count = ltk_decoder_template_lines(d, t);
        if (count == 0)
            continue; /* no line to test (a damaged block can list such a template) */
        for (int k = 0; k < g->pieces.n; k++) {
            if (!(m >> k & 1))
                continue;
            align_memo *mm = align_memo_for(x, tb, tl, k);
            if (mm && mm->state == 1)
                continue;
            if (mm && mm->state == 2)
                align_memo_load(x, mm, w);
            else {
                if (ne == SIZE_MAX && (ne = template_elements(x, tb, tl)) == SIZE_MAX) {
                    free(w);
                    return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
                }
                walk_alignments(g, x, w, ne, k);
                if (mm)
                    align_memo_store(x, mm, w);
            }
            if (w->give_up || w->naligns == 0)
                continue; /* naligns 0: the marking was loose; the rebuild decides */
            size_t add = 0;
            for (int a = 0; a < w->naligns; a++)
                add += (size_t)w->ntests[a];
            if (x->ntests + add > x->tests_cap) {
                size_t cap = (x->ntests + add) * 2 + 16;
                ltk_num_test *nt2 = realloc(x->tests, cap * sizeof *nt2);
                if (!nt2) {
                    free(w);
                    return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
                }
                x->tests = nt2;
                x->tests_cap = cap;
            }
            if (nalive + count > x->alive_cap) {
                size_t cap = (nalive + count) * 2 + 4096;
                uint8_t *al = realloc(x->alive, cap);
                if (!al) {
                    free(w);
                    return ltk_error_set(derr, LOGTK_ERR_NOMEM, "out of memory");
                }
                x->alive = al;
                x->alive_cap = cap;
            }
            memset(x->alive + nalive, (1 << w->naligns) - 1, count);
            x->alive_off[(size_t)t * MAX_PIECES + (size_t)k] = nalive;
            x->tested[t] |= (uint8_t)(1u << k);
            for (int a = 0; a < w->naligns; a++)
                for (int q = 0; q < w->ntests[a]; q++) {
                    ltk_num_test *tt = &x->tests[x->ntests++];
                    *tt = w->tests[a][q];
                    tt->tmpl = t;
                    tt->bit = (uint8_t)(1u << a);
                    tt->alive = (uint8_t *)(uintptr_t)nalive; /* an offset until alive stops moving */
                }
            nalive += count;
            pairs++;
        }
    }
    free(w);
    if (x->ntests == 0)
        return 0;
    for (size_t q = 0; q < x->ntests; q++)
        x->tests[q].alive = x->alive + (size_t)(uintptr_t)x->tests[q].alive;
    qsort(x->tests, x->ntests, sizeof *x->tests, cmp_num_test);
    int rc = ltk_decode_number_tests(d, x->tests, x->ntests, derr);
    return rc != LOGTK_OK ? rc : pairs;
}
