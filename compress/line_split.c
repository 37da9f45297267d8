/*
 * line_split.c - one log line -> template bytes + typed variables.
 *
 * Algorithm: the line is cut into tokens (runs of letters, digits, '_', '-',
 * '.' and non-ASCII bytes); everything else (spaces, punctuation, control
 * bytes) stays in the template as literal text, so whitespace runs, tabs and
 * odd bytes come back exactly.  A token without digits is literal too.  A
 * token with digits is either
 *   - a hex number: "0x" then 1..LTK_HEX_MAX_DIGITS (12) hex digits of one
 *     case (the "0x" stays template text), or, without "0x", a whole word
 *     of LTK_HEX_MIN_DIGITS (4) to 12 hex digits with a decimal digit and
 *     a letter, all letters of one case ("a3f9c2e1", "DEADBEEF1"; words
 *     such as "dead", "cafe", "be" have no digit and stay text): a number
 *     variable of kind LTK_M_HEXL or LTK_M_HEXU, value + leading-zero
 *     count like a decimal, so addresses and ids that count up become
 *     small deltas (the limits are measured: see archive_container.h);
 *   - a hex-like identifier that is not such a number (optional 0x, then
 *     only hex digits and '-', with at least one letter a-f and, without 0x,
 *     at least 8 characters: UUIDs, long ids and hashes, mixed case): one
 *     string variable, so they do not multiply templates, or
 *   - split at its digit runs: the non-digit skeleton stays in the template
 *     ("blk_-<num>", "job_<num>_<num>") and each digit run becomes a number
 *     (value + leading-zero count), so timestamps and counters become small
 *     deltas in their column.  A '-' right before a digit run that starts a
 *     token or follows a non-alphanumeric byte is taken as a sign, so
 *     "blk_-123" and "blk_123" share one template.  Digit runs of 20+
 *     digits are string variables (they do not fit 64 bits).  Four digit
 *     runs "a.b.c.d" of 1 to 3 digits each that are not part of a longer
 *     dotted number (no "digit." before, no ".digit" after) become one
 *     LTK_M_IP variable: one column (and one search test) instead of four.
 *     A canonical IPv4 address (parts 0-255 without leading zeros) has the
 *     32-bit address as its value; any other quad ("10.957.43.015", made
 *     by log generators and version strings) the packed form of
 *     LTK_IP_PACKED_FLAG (each part's digit count and value), so that it
 *     shares the template of the real addresses next to it instead of
 *     making one of four numbers.
 *
 * Why this instead of a learned parser: it is exact by construction (every
 * byte is either template text or a variable that prints back identically),
 * needs no training, runs at memory speed, and its templates already separate
 * what changes (numbers, ids) from what repeats, which is what the column
 * encoders and zstd need.  Literal bytes 0x01..0x07 are escaped in templates.
 *
 * Speed: most bytes of a log line are literal (words, spaces, punctuation),
 * and only two kinds of byte change the output: digits (a token with digits
 * becomes variables) and the marker bytes 0x01..0x07 (escaped).  So instead
 * of classifying every byte, the scan jumps from one such byte to the next,
 * 16 bytes per step with SSE2 (one class-table lookup per byte without it,
 * and for the last bytes of a line), and copies the literal stretch in
 * between at once.  At a digit it reads the digit run, computing its value
 * on the way; a run that is a whole token (the most common token) becomes a
 * number right there.  Otherwise it walks back to the start of the token
 * (never past the copied literal, which ends at a delimiter) and on to its
 * end, and only that token is examined byte by byte, skipping the hex
 * search when the token has no letter a-f and no 'x'.  The output is exactly that of
 * the byte-by-byte splitter described above (tests/test_line_split.c checks
 * it against one); on the scale-up log this is about 45% fewer instructions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "line_split.h"
#include "block_layout.h"

/* Byte classes. */
enum { C_DELIM = 0, C_WORD = 1, C_DIGIT = 2, C_HEXLETTER = 4, C_MARKER = 8, C_X = 16 };

/* The class of byte c, as a constant expression so the table below is built at compile time. */
#define CLASS_OF(c)                                                                              \
    ((c) >= '0' && (c) <= '9'                       ? C_WORD | C_DIGIT                           \
     : ((c) >= 'a' && (c) <= 'f') || ((c) >= 'A' && (c) <= 'F') ? C_WORD | C_HEXLETTER          \
     : (c) == 'x' || (c) == 'X'                     ? C_WORD | C_X                               \
     : ((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || (c) == '_' || (c) == '-' ||   \
             (c) == '.' || (c) >= 0x80                                                          \
         ? C_WORD                                                                                \
     : (c) >= 1 && (c) <= LTK_M_LAST ? C_MARKER                                                 \
                                      : C_DELIM)
#define CLASS4(c) CLASS_OF(c), CLASS_OF((c) + 1), CLASS_OF((c) + 2), CLASS_OF((c) + 3)
#define CLASS16(c) CLASS4(c), CLASS4((c) + 4), CLASS4((c) + 8), CLASS4((c) + 12)
#define CLASS64(c) CLASS16(c), CLASS16((c) + 16), CLASS16((c) + 32), CLASS16((c) + 48)

static const unsigned char byte_class[256] = {CLASS64(0), CLASS64(64), CLASS64(128), CLASS64(192)};

int ltk_var_may_contain(int kind, unsigned char c)
{
    int digit = c >= '0' && c <= '9';
    switch (kind) {
    case LTK_M_UNUM:
        return digit;
    case LTK_M_SNUM:
        return digit || c == '-';
    case LTK_M_IP:
        return digit || c == '.';
    case LTK_M_HEXL:
        return digit || (c >= 'a' && c <= 'f');
    case LTK_M_HEXU:
        return digit || (c >= 'A' && c <= 'F');
    default:
        return digit || c == '-' || c == 'x' || c == 'X' || (c >= 'a' && c <= 'f') ||
               (c >= 'A' && c <= 'F');
    }
}

/* Index of the first digit or marker byte in s[i..len), or len. */
static inline size_t next_special(const unsigned char *s, size_t i, size_t len)
{
#if defined(__SSE2__)
    /* digit: (b + 0x50) as signed < -118; marker 1..7: (b + 0x7f) as signed < -121 */
    const __m128i digit_bias = _mm_set1_epi8((char)0x50), digit_limit = _mm_set1_epi8(-118);
    const __m128i marker_bias = _mm_set1_epi8((char)0x7f), marker_limit = _mm_set1_epi8(-121);
    while (i + 16 <= len) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i d = _mm_cmplt_epi8(_mm_add_epi8(b, digit_bias), digit_limit);
        __m128i m = _mm_cmplt_epi8(_mm_add_epi8(b, marker_bias), marker_limit);
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(d, m));
        if (mask)
            return i + (size_t)__builtin_ctz(mask);
        i += 16;
    }
#endif
    while (i < len && !(byte_class[s[i]] & (C_DIGIT | C_MARKER)))
        i++;
    return i;
}

/*
 * ltk_split_line() reserves room for the worst case up front (a template
 * is at most twice the line: every byte escaped; variables are at most half
 * the line plus one: two variables are always separated by a literal byte),
 * so the helpers below append without checks.
 */
static inline ltk_var *push_var(ltk_var **vars, size_t *nvars)
{
    return &(*vars)[(*nvars)++];
}

static inline void put_byte(ltk_strbuf *t, char c)
{
    t->data[t->len++] = c;
}

/*
 * Appends n bytes known to hold no marker byte (token text, scanned
 * literals); avail bytes from s on belong to the line.  Most runs are a few
 * bytes long, so where the line has 8 or 16 bytes from s on they are moved
 * at once (the bytes past n are overwritten next or lie past the template's
 * end: ltk_split_line reserved 2 * len + 3 bytes, and the template holds at
 * most twice the bytes of the line before s).  Otherwise two overlapping
 * fixed-size moves; nothing outside the line is read.
 */
static inline void put_plain(ltk_strbuf *t, const char *s, size_t n, size_t avail)
{
    char *d = t->data + t->len;
    if (n <= 8 && avail >= 8) {
        memcpy(d, s, 8);
    } else if (n <= 16 && avail >= 16) {
        memcpy(d, s, 16);
    } else if (n >= 8) {
        if (n <= 16) {
            memcpy(d, s, 8);
            memcpy(d + n - 8, s + n - 8, 8);
        } else {
            memcpy(d, s, n);
        }
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
    t->len += n;
}

/*
 * End of the digit run starting at i (before end); *value receives its
 * value, computed on the way (it wraps for runs of 20+ digits, which are
 * stored as strings instead).
 */
static inline size_t scan_digit_run(const char *line, size_t i, size_t end, uint64_t *value)
{
    uint64_t val = 0;
    unsigned d;
    while (i < end && (d = (unsigned)(unsigned char)line[i] - '0') < 10) {
        val = val * 10 + d;
        i++;
    }
    *value = val;
    return i;
}

/* Stores digit run [rs, rs + rlen) (at most 19 digits, value val) as a number variable. */
static inline void put_number(ltk_strbuf *tmpl, ltk_var *v, const char *line, size_t rs,
                              size_t rlen, uint64_t val, int sign_ok, int neg)
{
    size_t zeros = 0;
    if (line[rs] == '0')
        while (zeros + 1 < rlen && line[rs + zeros] == '0')
            zeros++;
    v->kind = sign_ok ? LTK_M_SNUM : LTK_M_UNUM;
    v->value = val;
    v->pad = (uint8_t)(sign_ok ? (zeros << 1 | (size_t)neg) : zeros);
    v->str_off = 0;
    v->str_len = 0;
    put_byte(tmpl, (char)v->kind);
}

static inline int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int is_digit(char c)
{
    return (unsigned)(unsigned char)c - '0' < 10;
}

/*
 * Nonzero when the digit run [rs, re) of value val, the first of a token's
 * stretch that ends at te, starts a dotted quad: four runs of 1-3 digits
 * joined by '.', not followed by ".digit".  *ip gets its value (see
 * ltk_ip_value), *end the index after it.
 */
static int scan_ip(const char *line, size_t rs, size_t re, uint64_t val, size_t te, uint64_t *ip,
                   size_t *end)
{
    uint64_t addr = 0, packed = 0;
    int canonical = 1;
    for (int part = 0;; part++) {
        size_t n = re - rs;
        if (n > 3)
            return 0;
        canonical &= val <= 255 && (n == 1 || line[rs] != '0');
        addr = addr << 8 | val;
        packed = packed << 12 | (uint64_t)(n - 1) << 10 | val;
        if (part == 3)
            break;
        if (re + 1 >= te || line[re] != '.' || !is_digit(line[re + 1]))
            return 0;
        rs = re + 1;
        re = scan_digit_run(line, rs, te, &val);
    }
    if (re + 1 < te && line[re] == '.' && is_digit(line[re + 1]))
        return 0; /* "1.2.3.4.5": part of a longer dotted number */
    *ip = canonical ? addr : LTK_IP_PACKED_FLAG | packed;
    *end = re;
    return 1;
}

/* Splits [ts, te) at its digit runs (no hex-like parts inside). */
static void split_digits(const char *line, size_t len, size_t tok_start, size_t ts, size_t te,
                         ltk_strbuf *tmpl, ltk_var **vars, size_t *nvars)
{
    size_t lit = ts; /* start of pending literal text */
    size_t i = ts;
    while (i < te) {
        if (!(byte_class[(unsigned char)line[i]] & C_DIGIT)) {
            i++;
            continue;
        }
        size_t rs = i;
        uint64_t val;
        i = scan_digit_run(line, i, te, &val);
        size_t rlen = i - rs;
        uint64_t ip;
        size_t ip_end;
        if (i < te && line[i] == '.' && !(rs >= 2 && line[rs - 1] == '.' && is_digit(line[rs - 2])) &&
            scan_ip(line, rs, i, val, te, &ip, &ip_end)) {
            /* a dotted quad not preceded by "digit.": one IP variable */
            if (rs > lit)
                put_plain(tmpl, line + lit, rs - lit, len - lit);
            ltk_var *v = push_var(vars, nvars);
            v->kind = LTK_M_IP;
            v->pad = 0;
            v->value = ip;
            v->str_off = 0;
            v->str_len = 0;
            put_byte(tmpl, LTK_M_IP);
            lit = i = ip_end;
            continue;
        }
        /* sign: '-' right before the run, itself at token start or after a non-alnum */
        int neg = 0, sign_ok = 0;
        if (rs > ts && line[rs - 1] == '-' &&
            (rs - 1 == tok_start || !is_alnum((unsigned char)line[rs - 2])))
            neg = 1;
        if (neg || rs == tok_start || line[rs - 1] == '_')
            sign_ok = 1;
        size_t lit_end = neg ? rs - 1 : rs;
        if (lit_end > lit)
            put_plain(tmpl, line + lit, lit_end - lit, len - lit);
        ltk_var *v = push_var(vars, nvars);
        if (rlen > 19) {
            /* too long for 64 bits: a string variable (the sign stays literal) */
            if (neg)
                put_byte(tmpl, '-');
            v->kind = LTK_M_STR;
            v->pad = 0;
            v->value = 0;
            v->str_off = (uint32_t)rs;
            v->str_len = (uint32_t)rlen;
            put_byte(tmpl, LTK_M_STR);
        } else {
            put_number(tmpl, v, line, rs, rlen, val, sign_ok, neg);
        }
        lit = i;
    }
    if (te > lit)
        put_plain(tmpl, line + lit, te - lit, len - lit);
}

/*
 * One token with digits or an 'x': hex runs (hex digits and inner '-')
 * that are whole words (or follow a word-starting "0x") become hex numbers
 * or string variables (see the top of the file); the rest is split at
 * digit runs.
 */
static void split_token(const char *line, size_t len, size_t ts, size_t te, ltk_strbuf *tmpl,
                        ltk_var **vars, size_t *nvars)
{
    size_t done = ts, i = ts;
    while (i < te) {
        unsigned char k = byte_class[(unsigned char)line[i]];
        if (!(k & (C_DIGIT | C_HEXLETTER))) {
            i++;
            continue;
        }
        /* a hex run must not start inside a word: "req-<uuid>" yes, "queue" no */
        size_t hs = i;
        int after_0x = hs >= ts + 2 && line[hs - 2] == '0' && (line[hs - 1] == 'x' || line[hs - 1] == 'X') &&
                       (hs - 2 == ts || !is_alnum((unsigned char)line[hs - 3]));
        int word_start = hs == ts || !is_alnum((unsigned char)line[hs - 1]) || after_0x;
        int letter = 0, digit = 0, dash = 0; /* letter: 1 lower case seen, 2 upper case, 3 both */
        size_t he = hs;
        while (he < te) {
            unsigned char c = (unsigned char)line[he];
            unsigned char kc = byte_class[c];
            if (kc & C_HEXLETTER) {
                letter |= c >= 'a' ? 1 : 2;
            } else if (kc & C_DIGIT) {
                digit = 1;
            } else if (c == '-' && he + 1 < te && (byte_class[(unsigned char)line[he + 1]] & (C_DIGIT | C_HEXLETTER))) {
                dash = 1;
            } else {
                break;
            }
            he++;
        }
        int word_end = he == te || !is_alnum((unsigned char)line[he]);
        size_t hl = he - hs;
        int hex_number = word_start && word_end && !dash && letter != 3 && hl <= LTK_HEX_MAX_DIGITS &&
                         (after_0x || (letter && digit && hl >= LTK_HEX_MIN_DIGITS));
        if (hex_number || (word_start && word_end && letter && ((digit && hl >= 8) || after_0x))) {
            /* "0x" stays template text in front of the variable */
            size_t lit_end = after_0x ? hs - 2 : hs;
            if (lit_end > done)
                split_digits(line, len, ts, done, lit_end, tmpl, vars, nvars);
            if (after_0x)
                put_plain(tmpl, line + hs - 2, 2, len - (hs - 2));
            ltk_var *v = push_var(vars, nvars);
            if (hex_number) {
                uint64_t val = 0;
                size_t zeros = 0;
                while (zeros + 1 < hl && line[hs + zeros] == '0')
                    zeros++;
                for (size_t j = hs; j < he; j++) {
                    unsigned c = (unsigned char)line[j];
                    val = val << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
                }
                v->kind = letter == 2 ? LTK_M_HEXU : LTK_M_HEXL;
                v->pad = (uint8_t)zeros;
                v->value = val;
                v->str_off = 0;
                v->str_len = 0;
            } else {
                v->kind = LTK_M_STR;
                v->pad = 0;
                v->value = 0;
                v->str_off = (uint32_t)hs;
                v->str_len = (uint32_t)hl;
            }
            put_byte(tmpl, (char)v->kind);
            done = he;
        }
        i = he > hs ? he : hs + 1;
    }
    if (te > done)
        split_digits(line, len, ts, done, te, tmpl, vars, nvars);
}

int ltk_split_line(const char *line, size_t len, ltk_strbuf *tmpl, ltk_var **vars,
                    size_t *nvars, size_t *cap)
{
    if (tmpl->len + 2 * len + 3 > tmpl->cap && ltk_strbuf_reserve(tmpl, 2 * len + 2) != 0)
        return -1;
    size_t need = *nvars + len / 2 + 2;
    if (need > *cap) {
        size_t ncap = *cap ? *cap : 64;
        while (ncap < need)
            ncap *= 2;
        ltk_var *nv = realloc(*vars, ncap * sizeof **vars);
        if (!nv)
            return -1;
        *vars = nv;
        *cap = ncap;
    }
    const unsigned char *s = (const unsigned char *)line;
    /*
     * lit: start of the literal bytes not yet copied; [lit, i) holds no
     * digit and no marker, and lit is at the line start or right after a
     * delimiter, so a token found at i never starts before lit.
     */
    size_t lit = 0, i = 0;
    for (;;) {
        i = next_special(s, i, len);
        if (i >= len)
            break;
        if (byte_class[s[i]] & C_MARKER) {
            put_plain(tmpl, line + lit, i - lit, len - lit);
            put_byte(tmpl, LTK_M_ESC);
            put_byte(tmpl, (char)s[i]);
            lit = ++i;
            continue;
        }
        size_t ts = i;
        uint64_t val;
        size_t te = scan_digit_run(line, i, len, &val);
        if ((ts == lit || !(byte_class[s[ts - 1]] & C_WORD)) &&
            (te == len || !(byte_class[s[te]] & C_WORD)) && te - ts <= 19) {
            /* the most common token: only digits */
            put_plain(tmpl, line + lit, ts - lit, len - lit);
            put_number(tmpl, push_var(vars, nvars), line, ts, te - ts, val, 1, 0);
            lit = i = te;
            continue;
        }
        unsigned char seen = 0; /* classes of the token's bytes other than digits */
        while (ts > lit) {
            unsigned char k = byte_class[s[ts - 1]];
            if (!(k & C_WORD))
                break;
            seen |= k;
            ts--;
        }
        while (te < len) {
            unsigned char k = byte_class[s[te]];
            if (!(k & C_WORD))
                break;
            if (!(k & C_DIGIT))
                seen |= k;
            te++;
        }
        put_plain(tmpl, line + lit, ts - lit, len - lit);
        if (!(seen & (C_HEXLETTER | C_X)))
            split_digits(line, len, ts, ts, te, tmpl, vars, nvars); /* no hex part possible */
        else
            split_token(line, len, ts, te, tmpl, vars, nvars);
        lit = i = te;
    }
    put_plain(tmpl, line + lit, len - lit, len - lit);
    tmpl->data[tmpl->len] = '\0';
    return 0;
}
