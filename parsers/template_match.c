/*
 * template_match.c - does a template match a line, and which template
 * matches both what a template matched and one more line.
 *
 * Matching is a glob match in which "<*>" is the star and a run of blanks
 * matches any run of blanks.  The classic one-backtrack-point algorithm is
 * enough: when the text after the last "<*>" fails, that "<*>" takes one more
 * byte and the rest is tried again; earlier "<*>" never need to change,
 * because taking the earliest place for each piece of fixed text leaves the
 * most room for everything after it.  A run of blanks is taken whole (the
 * text after it starts with something other than a blank), so it does not
 * break that argument.
 *
 * Widening aligns two token sequences with a longest-common-subsequence
 * table: tokens kept in order are those that one side's token matches; each
 * stretch in between becomes one "<*>".  A "<*>" standing alone between
 * blanks always matches at least one non-blank byte, so a stretch that is
 * empty on one side gets a "<*>" glued to a neighbouring token instead
 * ("a<*> c" matches both "a c" and "a b c").
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template_match.h"

static inline int is_star(const char *t, size_t i, size_t len)
{
    return i + 3 <= len && t[i] == '<' && t[i + 1] == '*' && t[i + 2] == '>';
}

/* The tokenizer's blanks (tokenize.c), as a table: glob tests one per byte. */
static const unsigned char blank_table[256] = {
    ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [' '] = 1,
};

static inline int blank(unsigned char c)
{
    return blank_table[c];
}

size_t ltk_tmatch_count_wildcards(const char *text, size_t len)
{
    /* memchr to each '<': every template a parser makes is rendered and
       counted once, and a byte-wise loop made that 2% of fuse's work */
    size_t n = 0;
    for (size_t i = 0; i + 3 <= len;) {
        const char *lt = memchr(text + i, '<', len - i - 2);
        if (lt == NULL)
            break;
        i = (size_t)(lt - text);
        if (is_star(text, i, len)) {
            n++;
            i += 3;
        } else {
            i++;
        }
    }
    return n;
}

/* Leading and trailing blanks never count: returns where s's text starts
 * and moves *len back to where it ends. */
static size_t trim_blanks(const char *s, size_t *len)
{
    size_t i = 0, n = *len;
    while (i < n && blank((unsigned char)s[i]))
        i++;
    while (n > i && blank((unsigned char)s[n - 1]))
        n--;
    *len = n;
    return i;
}

/*
 * The glob match; with `opaque`, a "<*>" in s is a value only a "<*>" of t
 * may cover (s is then itself a template).
 */
static int glob(const char *t, size_t tlen, const char *s, size_t slen, logtk_slice *caps,
                int opaque)
{
    size_t ti = trim_blanks(t, &tlen), si = trim_blanks(s, &slen);
    size_t star = SIZE_MAX, k = 0, star_ti = 0, star_si = 0, cap_start = 0;
    for (;;) {
        if (ti == tlen) {
            if (si == slen) {
                if (star != SIZE_MAX && caps) {
                    caps[star].ptr = s + cap_start;
                    caps[star].len = star_si - cap_start;
                }
                return 1;
            }
        } else if (is_star(t, ti, tlen)) {
            if (star != SIZE_MAX && caps) {
                caps[star].ptr = s + cap_start;
                caps[star].len = star_si - cap_start;
            }
            star = k++;
            cap_start = si;
            ti += 3;
            star_ti = ti;
            star_si = si;
            continue;
        } else if (blank((unsigned char)t[ti])) {
            if (si < slen && blank((unsigned char)s[si])) {
                while (ti < tlen && blank((unsigned char)t[ti]))
                    ti++;
                while (si < slen && blank((unsigned char)s[si]))
                    si++;
                continue;
            }
        } else if (si < slen && t[ti] == s[si] && !(opaque && is_star(s, si, slen))) {
            ti++;
            si++;
            continue;
        }
        /* mismatch: the last "<*>" takes one more byte (a whole "<*>" of s when opaque) */
        if (star == SIZE_MAX || star_si >= slen)
            return 0;
        star_si += opaque && is_star(s, star_si, slen) ? 3 : 1;
        /* and on up to the first place where what follows it can start */
        if (star_ti == tlen) {
            star_si = slen; /* a closing "<*>" takes the rest */
        } else if (!opaque && !is_star(t, star_ti, tlen)) {
            unsigned char next = (unsigned char)t[star_ti];
            if (blank(next)) {
                while (star_si < slen && !blank((unsigned char)s[star_si]))
                    star_si++;
            } else {
                const char *hit = memchr(s + star_si, next, slen - star_si);
                if (hit == NULL)
                    return 0;
                star_si = (size_t)(hit - s);
            }
        }
        si = star_si;
        ti = star_ti;
        k = star + 1;
    }
}

/*
 * Piece by piece, for lines.  The template is cut at its "<*>" into pieces
 * of fixed text; the first piece must match where the line starts and the
 * last where it ends (both anchored, so no search), and each piece between
 * matches at the leftmost place after the previous one, which is what the
 * one-backtrack-point algorithm finds too, without its byte-by-byte retries.
 */

/* Matches piece p[0..plen) (no "<*>", blank runs match blank runs) at s[at..);
   returns the end, or SIZE_MAX. */
static size_t piece_at(const char *p, size_t plen, const char *s, size_t slen, size_t at)
{
    /* Most lines hold a piece byte for byte: then each blank run of the piece
     * met an equal run followed by the same non-blank byte, so only a blank
     * run at the piece's end could take more of the line (the walk below
     * takes all of it). */
    if (slen - at >= plen && memcmp(p, s + at, plen) == 0 &&
        (plen == 0 || !blank((unsigned char)p[plen - 1]) || at + plen == slen ||
         !blank((unsigned char)s[at + plen])))
        return at + plen;
    size_t pi = 0, si = at;
    while (pi < plen) {
        unsigned char c = (unsigned char)p[pi];
        if (blank(c)) {
            if (si >= slen || !blank((unsigned char)s[si]))
                return SIZE_MAX;
            while (pi < plen && blank((unsigned char)p[pi]))
                pi++;
            while (si < slen && blank((unsigned char)s[si]))
                si++;
            continue;
        }
        /* a run of fixed bytes up to the next blank compares at once */
        size_t run = 1;
        while (pi + run < plen && !blank((unsigned char)p[pi + run]))
            run++;
        if (slen - si < run || memcmp(p + pi, s + si, run) != 0)
            return SIZE_MAX;
        pi += run;
        si += run;
    }
    return si;
}

/* Matches piece p backwards so that it ends at s[end); returns its start, or SIZE_MAX. */
static size_t piece_ending(const char *p, size_t plen, const char *s, size_t end)
{
    /* byte for byte, as in piece_at, mirrored: a blank run at the piece's
     * start would take the line's whole run */
    if (end >= plen && memcmp(p, s + end - plen, plen) == 0 &&
        (plen == 0 || !blank((unsigned char)p[0]) || end == plen ||
         !blank((unsigned char)s[end - plen - 1])))
        return end - plen;
    size_t pi = plen, si = end;
    while (pi > 0) {
        unsigned char c = (unsigned char)p[pi - 1];
        if (blank(c)) {
            if (si == 0 || !blank((unsigned char)s[si - 1]))
                return SIZE_MAX;
            while (pi > 0 && blank((unsigned char)p[pi - 1]))
                pi--;
            while (si > 0 && blank((unsigned char)s[si - 1]))
                si--;
            continue;
        }
        size_t run = 1;
        while (run < pi && !blank((unsigned char)p[pi - 1 - run]))
            run++;
        if (si < run || memcmp(p + pi - run, s + si - run, run) != 0)
            return SIZE_MAX;
        pi -= run;
        si -= run;
    }
    return si;
}

/*
 * Leftmost place in s[from..to) where piece p matches and ends by `to`; sets
 * *end.  expect_miss: the caller asks whether a line matches, and most lines
 * it asks about do not (an index search, a shard's rivals), so a cheap test
 * that rejects a miss first pays; a caller extracting the parameters of a
 * line that matches would only pay it twice.
 */
static size_t piece_find(const char *p, size_t plen, const char *s, size_t from, size_t to,
                         size_t *end, int expect_miss)
{
    /* The piece's longest run without blanks appears in s[from..to) byte for byte
     * wherever the piece matches: one memmem first settles the usual miss (a line
     * of another template), which otherwise tries the piece at each blank or each
     * place its first byte occurs ("<*> Served block <*>" on other HDFS lines) */
    size_t run_at = 0, run_len = 0;
    for (size_t i = 0; expect_miss && i < plen;) {
        size_t j = i;
        while (j < plen && !blank((unsigned char)p[j]))
            j++;
        if (j - i > run_len) {
            run_at = i;
            run_len = j - i;
        }
        i = j + 1;
    }
    if (run_len >= 2 && memmem(s + from, to - from, p + run_at, run_len) == NULL)
        return SIZE_MAX;
    unsigned char first = (unsigned char)p[0];
    for (size_t at = from; at < to;) {
        if (blank(first)) {
            while (at < to && !blank((unsigned char)s[at]))
                at++;
        } else {
            const char *hit = memchr(s + at, first, to - at);
            if (hit == NULL)
                return SIZE_MAX;
            at = (size_t)(hit - s);
        }
        if (at >= to)
            return SIZE_MAX;
        size_t e = piece_at(p, plen, s, to, at);
        if (e != SIZE_MAX) {
            *end = e;
            return at;
        }
        /* a blank run is tried once, from its start */
        if (blank(first))
            while (at < to && blank((unsigned char)s[at]))
                at++;
        else
            at++;
    }
    return SIZE_MAX;
}

/* Next "<*>" in t at or after i, or tlen. */
static size_t next_star(const char *t, size_t i, size_t tlen)
{
    while (i + 3 <= tlen) {
        const char *lt = memchr(t + i, '<', tlen - i - 2);
        if (lt == NULL)
            break;
        i = (size_t)(lt - t);
        if (t[i + 1] == '*' && t[i + 2] == '>')
            return i;
        i++;
    }
    return tlen;
}

int ltk_tmatch_glob(const char *t, size_t tlen, const char *s, size_t slen, logtk_slice *caps)
{
    size_t ti = trim_blanks(t, &tlen), si = trim_blanks(s, &slen);
    size_t star = next_star(t, ti, tlen);
    if (star == tlen) /* no "<*>": the whole line is the one piece */
        return piece_at(t + ti, tlen - ti, s, slen, si) == slen;
    /* the last piece, anchored at the end; the "<*>" found on the way are
     * kept (up to STARS_KEPT) for the walk below, which would look again */
    enum { STARS_KEPT = 32 };
    size_t stars[STARS_KEPT];
    size_t nstars = 1, last = star, k;
    stars[0] = star;
    for (k = next_star(t, star + 3, tlen); k < tlen; k = next_star(t, k + 3, tlen)) {
        if (nstars < STARS_KEPT)
            stars[nstars] = k;
        nstars++;
        last = k;
    }
    size_t tail = last + 3;
    size_t limit = piece_ending(t + tail, tlen - tail, s, slen);
    if (limit == SIZE_MAX || limit < si)
        return 0;
    /* the first piece, anchored at the start */
    size_t pos = piece_at(t + ti, star - ti, s, limit, si);
    if (pos == SIZE_MAX)
        return 0;
    size_t n = 0;
    for (;;) {
        size_t from = star + 3;
        size_t next = from > last ? tlen : n + 1 < STARS_KEPT ? stars[n + 1]
                                                              : next_star(t, from, tlen);
        if (from > last) {
            /* the last "<*>" takes what lies between */
            if (caps) {
                caps[n].ptr = s + pos;
                caps[n].len = limit - pos;
            }
            return 1;
        }
        size_t end = 0, at;
        if (next == from) {
            at = pos; /* "<*><*>": the first takes nothing */
            end = pos;
        } else {
            at = piece_find(t + from, next - from, s, pos, limit, &end, caps == NULL);
            if (at == SIZE_MAX)
                return 0;
        }
        if (caps) {
            caps[n].ptr = s + pos;
            caps[n].len = at - pos;
        }
        n++;
        pos = end;
        star = next;
    }
}

int ltk_tmatch_one_star(const char *t, size_t tlen, size_t *at)
{
    size_t star = next_star(t, 0, tlen);
    if (star == tlen || next_star(t, star + 3, tlen) != tlen)
        return 0;
    for (size_t i = 0; i < tlen; i++)
        if (blank((unsigned char)t[i]))
            return 0;
    *at = star;
    return 1;
}

int ltk_tmatch_covers(const char *t, size_t tlen, const char *s, size_t slen)
{
    return glob(t, tlen, s, slen, NULL, 1);
}

void ltk_tmatch_scratch_free(ltk_tmatch_scratch *s)
{
    if (s == NULL)
        return;
    free(s->ua);
    free(s->ub);
    free(s->score);
    free(s->pick);
    ltk_strbuf_free(&s->out);
    memset(s, 0, sizeof *s);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

enum { UNIT_WORD, UNIT_CHAR, UNIT_BLANK, UNIT_STAR };

typedef struct tmatch_unit {
    const char *ptr;
    size_t len;
    unsigned char kind;
    unsigned char letter; /* holds a letter */
} tmatch_unit;

static inline int wordbyte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static inline int letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Cuts text into units; "<*>" is a unit only when stars is set.  Returns the count. */
static size_t cut_units(tmatch_unit *u, const char *t, size_t len, int stars)
{
    size_t n = 0, i = 0;
    while (i < len && blank((unsigned char)t[i]))
        i++;
    while (len > i && blank((unsigned char)t[len - 1]))
        len--;
    while (i < len) {
        unsigned char c = (unsigned char)t[i];
        size_t j = i + 1;
        tmatch_unit *x = &u[n++];
        x->ptr = t + i;
        x->letter = letter(c);
        if (stars && is_star(t, i, len)) {
            x->kind = UNIT_STAR;
            j = i + 3;
        } else if (blank(c)) {
            x->kind = UNIT_BLANK;
            while (j < len && blank((unsigned char)t[j]))
                j++;
        } else if (wordbyte(c)) {
            x->kind = UNIT_WORD;
            while (j < len && wordbyte((unsigned char)t[j])) {
                x->letter |= letter((unsigned char)t[j]);
                j++;
            }
        } else {
            x->kind = UNIT_CHAR;
        }
        x->len = j - i;
        i = j;
    }
    return n;
}

static inline int same_unit(const tmatch_unit *x, const tmatch_unit *y)
{
    if (x->kind != y->kind)
        return 0;
    return x->kind == UNIT_BLANK || x->kind == UNIT_STAR ||
           (x->len == y->len && memcmp(x->ptr, y->ptr, x->len) == 0);
}

/* Choices of the alignment tables. */
enum {
    PICK_MATCH = 1, /* a[i] and b[j] are the same unit */
    PICK_A_ONLY,    /* a[i] has no partner (a "<*>" of a: it takes nothing) */
    PICK_B_ONLY,    /* b[j] has no partner */
    PICK_ABSORB,    /* the "<*>" a[i] takes b[j] */
    PICK_CLOSE,     /* the "<*>" a[i] takes no more */
    PICK_SOFT       /* a guessed blank stands where b has a character: b's is kept */
};

#define MERGE_MAX_CELLS ((size_t)1 << 22)
#define EMPTY_GUESS_STAR (-3) /* a guessed "<*>" that takes nothing: the guess failed there */
#define NEG_INF (-(1 << 29))

static int put_unit(ltk_strbuf *out, const tmatch_unit *u, int *last_star, int *last_blank)
{
    if (u->kind == UNIT_STAR) {
        if (*last_star)
            return 0;
        *last_star = 1;
        *last_blank = 0;
        return ltk_strbuf_append(out, "<*>", 3);
    }
    if (u->kind == UNIT_BLANK) {
        if (*last_blank || out->len == 0)
            return 0;
        *last_blank = 1;
        *last_star = 0;
        return ltk_strbuf_append(out, " ", 1);
    }
    *last_star = 0;
    *last_blank = 0;
    return ltk_strbuf_append(out, u->ptr, u->len);
}

int ltk_tmatch_merge(ltk_tmatch_scratch *s, const char *a, size_t alen, const char *b,
                       size_t blen, int b_is_template, enum ltk_tmatch_mode mode)
{
    int guess = mode == LTK_TMATCH_A_IS_GUESS;
    ltk_strbuf_clear(&s->out);
    if (grow((void **)&s->ua, &s->ua_cap, alen + 1, sizeof *s->ua) ||
        grow((void **)&s->ub, &s->ub_cap, blen + 1, sizeof *s->ub))
        return LOGTK_ERR_NOMEM;
    size_t m = cut_units(s->ua, a, alen, 1), n = cut_units(s->ub, b, blen, b_is_template);
    const tmatch_unit *ua = s->ua, *ub = s->ub;
    size_t cols = n + 1;
    if ((m + 1) > MERGE_MAX_CELLS / cols) {
        if (!guess)
            return ltk_strbuf_append(&s->out, "<*>", 3) == 0 ? LOGTK_OK : LOGTK_ERR_NOMEM;
        return ltk_strbuf_append(&s->out, b, blen) == 0 ? LOGTK_OK : LOGTK_ERR_NOMEM;
    }
    size_t cells = (m + 1) * cols;
    if (grow((void **)&s->score, &s->cells_cap, 2 * cells, sizeof *s->score)) 
        return LOGTK_ERR_NOMEM;
    {
        size_t cap = s->cells_cap;
        void *q = realloc(s->pick, 2 * cap);
        if (q == NULL)
            return LOGTK_ERR_NOMEM;
        s->pick = q;
    }
    int *out_score = s->score, *in_score = s->score + cells; /* outside / inside a's "<*>" */
    unsigned char *out_pick = s->pick, *in_pick = s->pick + cells;
    for (size_t i = m + 1; i-- > 0;)
        for (size_t j = n + 1; j-- > 0;) {
            size_t c = i * cols + j;
            int best = NEG_INF;
            unsigned char pick = 0;
            int star = i < m && ua[i].kind == UNIT_STAR;
            if (star && j < n) {
                /* inside: take b[j], or close */
                int take = in_score[c + 1], close = out_score[c + cols];
                in_score[c] = take >= close ? take : close;
                in_pick[c] = take >= close ? PICK_ABSORB : PICK_CLOSE;
            } else if (star) {
                in_score[c] = out_score[c + cols];
                in_pick[c] = PICK_CLOSE;
            }
            if (i == m && j == n) {
                out_score[c] = 0;
                out_pick[c] = 0;
                continue;
            }
            if (i < m && j < n && !star && same_unit(&ua[i], &ub[j])) {
                best = 2 + out_score[c + cols + 1];
                pick = PICK_MATCH;
            } else if (guess && i < m && j < n && ua[i].kind == UNIT_BLANK &&
                       ub[j].kind == UNIT_CHAR) {
                /* the guess split a word at this character (user=root -> user <*>) */
                best = 1 + out_score[c + cols + 1];
                pick = PICK_SOFT;
            }
            if (star && j < n && in_score[c + 1] > best) {
                best = in_score[c + 1];
                pick = PICK_ABSORB;
            }
            if (j < n) {
                int v = out_score[c + 1];
                if (v > best) {
                    best = v;
                    pick = PICK_B_ONLY;
                }
            }
            if (i < m) {
                int v = out_score[c + cols] + (star && guess ? EMPTY_GUESS_STAR : 0);
                if (v > best) {
                    best = v;
                    pick = PICK_A_ONLY;
                }
            }
            out_score[c] = best;
            out_pick[c] = pick;
        }
    static const tmatch_unit star_unit = {"<*>", 3, UNIT_STAR, 0};
    int last_star = 0, last_blank = 0, rc = 0;
    size_t i = 0, j = 0;
    int inside = 0;
    while (rc == 0 && (i < m || j < n)) {
        size_t c = i * cols + j;
        unsigned char pick = inside ? in_pick[c] : out_pick[c];
        switch (pick) {
        case PICK_MATCH:
            rc = put_unit(&s->out, &ua[i], &last_star, &last_blank);
            i++;
            j++;
            break;
        case PICK_SOFT:
            rc = put_unit(&s->out, &ub[j], &last_star, &last_blank);
            i++;
            j++;
            break;
        case PICK_ABSORB:
            rc = put_unit(&s->out, &star_unit, &last_star, &last_blank);
            inside = 1;
            j++;
            break;
        case PICK_CLOSE:
            if (!inside)
                rc = put_unit(&s->out, &star_unit, &last_star, &last_blank);
            inside = 0;
            i++;
            break;
        case PICK_B_ONLY:
            rc = put_unit(&s->out, guess ? &ub[j] : &star_unit, &last_star, &last_blank);
            j++;
            break;
        case PICK_A_ONLY:
            if (!guess || ua[i].kind == UNIT_STAR)
                rc = put_unit(&s->out, &star_unit, &last_star, &last_blank);
            i++;
            break;
        default:
            return LOGTK_ERR_NOMEM; /* not reached: every cell has a choice */
        }
    }
    if (rc == 0 && last_blank)
        s->out.len--;
    if (rc == 0)
        rc = ltk_strbuf_append(&s->out, "", 0);
    return rc == 0 ? LOGTK_OK : LOGTK_ERR_NOMEM;
}

int logtk_template_match(const char *tmpl, size_t tlen, const char *content, size_t clen,
                         logtk_slice *params, size_t cap, size_t *nparams)
{
    if ((tmpl == NULL && tlen) || (content == NULL && clen))
        return LOGTK_ERR_INVALID;
    if (tmpl == NULL)
        tmpl = "";
    if (content == NULL)
        content = "";
    size_t k = ltk_tmatch_count_wildcards(tmpl, tlen);
    if (nparams)
        *nparams = k;
    logtk_slice *caps = params && cap >= k ? params : NULL;
    if (params && cap < k && k > 0) {
        caps = malloc(k * sizeof *caps);
        if (caps == NULL)
            return LOGTK_ERR_NOMEM;
    }
    int ok = glob(tmpl, tlen, content, clen, caps, 0);
    if (caps && caps != params) {
        if (ok && cap)
            memcpy(params, caps, cap * sizeof *params);
        free(caps);
    }
    return ok ? LOGTK_OK : LOGTK_ERR_NOT_FOUND;
}

/* Compares a[0..alen) with b[0..blen), blank runs equal to blank runs. */
static int same_folded(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    while (i < alen && j < blen) {
        int ba = blank((unsigned char)a[i]), bb = blank((unsigned char)b[j]);
        if (ba != bb)
            return 0;
        if (ba) {
            while (i < alen && blank((unsigned char)a[i]))
                i++;
            while (j < blen && blank((unsigned char)b[j]))
                j++;
            continue;
        }
        if (a[i++] != b[j++])
            return 0;
    }
    return i == alen && j == blen;
}

int logtk_template_rebuilds(const char *tmpl, size_t tlen, const char *content, size_t clen,
                            const logtk_slice *params, size_t nparams)
{
    if ((tmpl == NULL && tlen) || (content == NULL && clen) || (params == NULL && nparams))
        return LOGTK_ERR_INVALID;
    size_t ti = 0, ci = 0, k = 0;
    while (ti < tlen && blank((unsigned char)tmpl[ti]))
        ti++;
    while (tlen > ti && blank((unsigned char)tmpl[tlen - 1]))
        tlen--;
    while (ci < clen && blank((unsigned char)content[ci]))
        ci++;
    while (clen > ci && blank((unsigned char)content[clen - 1]))
        clen--;
    for (;;) {
        size_t star = next_star(tmpl, ti, tlen);
        /* the fixed text up to the next "<*>" (or the end) lies before the next parameter */
        size_t upto = k < nparams ? (size_t)(params[k].ptr - content) : clen;
        if (star < tlen && k >= nparams)
            return LOGTK_ERR_NOT_FOUND;
        if (star == tlen && k < nparams)
            return LOGTK_ERR_NOT_FOUND;
        if (k < nparams && (params[k].ptr < content + ci || upto + params[k].len > clen))
            return LOGTK_ERR_NOT_FOUND; /* not the content's own text, or out of order */
        if (!same_folded(tmpl + ti, star - ti, content + ci, upto - ci))
            return LOGTK_ERR_NOT_FOUND;
        if (star == tlen)
            return LOGTK_OK;
        ci = upto + params[k].len;
        k++;
        ti = star + 3;
    }
}

/*
 * Could one line match both templates?  Decided on what a match keeps of a
 * line: each fixed byte that is not a blank meets the same byte, a blank run
 * meets blanks and each "<*>" any text.  Drop every blank from the line and
 * from both templates, and a line both match leaves a string both blankless
 * patterns (bytes and "<*>") match; so when those two patterns share no
 * string, no line matches both.  The converse need not hold (the blanks may
 * disagree), which is the safe side for a caller that skips work only on 0.
 * Two such patterns share a string when the end of both is reachable in
 * their product: i bytes of a read and j of b, a "<*>" skipped or taking
 * one byte the other side reads.  One row of that table at a time.
 */
enum { SHARE_STAR = 256, SHARE_MAX_CELLS = 1 << 22 };

/* t as blankless units (bytes, SHARE_STAR); returns how many. */
static size_t share_units(const char *t, size_t len, uint16_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        if (is_star(t, i, len)) {
            if (n == 0 || out[n - 1] != SHARE_STAR) /* "<*><*>" takes what "<*>" takes */
                out[n++] = SHARE_STAR;
            i += 3;
        } else {
            if (!blank((unsigned char)t[i]))
                out[n++] = (unsigned char)t[i];
            i++;
        }
    }
    return n;
}

static int units_share(const uint16_t *a, size_t na, const uint16_t *b, size_t nb,
                       unsigned char *prev, unsigned char *row)
{
    /* the same fixed start and the same fixed end first: most pairs differ there */
    for (size_t k = 0; k < na && k < nb && a[k] != SHARE_STAR && b[k] != SHARE_STAR; k++)
        if (a[k] != b[k])
            return 0;
    for (size_t k = 1; k <= na && k <= nb && a[na - k] != SHARE_STAR && b[nb - k] != SHARE_STAR;
         k++)
        if (a[na - k] != b[nb - k])
            return 0;
    for (size_t i = 0; i <= na; i++) {
        for (size_t j = 0; j <= nb; j++) {
            int r = i == 0 && j == 0;
            /* from (i-1, j): a's "<*>" skipped, or a's byte read by b's "<*>" */
            if (!r && i > 0 && prev[j] && (a[i - 1] == SHARE_STAR || (j < nb && b[j] == SHARE_STAR)))
                r = 1;
            /* from (i, j-1): mirrored */
            if (!r && j > 0 && row[j - 1] && (b[j - 1] == SHARE_STAR || (i < na && a[i] == SHARE_STAR)))
                r = 1;
            /* from (i-1, j-1): the same byte on both sides */
            if (!r && i > 0 && j > 0 && prev[j - 1] && a[i - 1] != SHARE_STAR && a[i - 1] == b[j - 1])
                r = 1;
            row[j] = (unsigned char)r;
        }
        unsigned char *swap = prev;
        prev = row;
        row = swap;
    }
    return prev[nb];
}

int ltk_tmatch_may_share(const char *a, size_t alen, const char *b, size_t blen)
{
    if ((alen + 1) * (blen + 1) > SHARE_MAX_CELLS)
        return 1; /* too big to decide: "may" is the safe answer */
    uint16_t *ua = malloc((alen + blen + 2) * sizeof *ua);
    unsigned char *rows = malloc(2 * (blen + 1));
    int shared = 1;
    if (ua && rows) {
        uint16_t *ub = ua + alen + 1;
        size_t na = share_units(a, alen, ua), nb = share_units(b, blen, ub);
        shared = units_share(ua, na, ub, nb, rows, rows + blen + 1);
    }
    free(ua);
    free(rows);
    return shared;
}
