/*
 * line_split.c - one log line -> template bytes + typed variables.
 *
 * Algorithm: the line is cut into tokens (runs of letters, digits, '_', '-',
 * '.' and non-ASCII bytes); everything else (spaces, punctuation, control
 * bytes) stays in the template as literal text, so whitespace runs, tabs and
 * odd bytes come back exactly.  A token without digits is literal too.  A
 * token with digits is either
 *   - a hex-like identifier (optional 0x, then only hex digits and '-', with
 *     at least one letter a-f and, without 0x, at least 8 characters): one
 *     string variable, so hashes and UUIDs do not multiply templates, or
 *   - split at its digit runs: the non-digit skeleton stays in the template
 *     ("blk_-<num>", "<num>.<num>.<num>.<num>", "job_<num>_<num>") and each digit
 *     run becomes a number (value + leading-zero count), so timestamps and
 *     counters become small deltas in their column.  A '-' right before a
 *     digit run that starts a token or follows a non-alphanumeric byte is
 *     taken as a sign, so "blk_-123" and "blk_123" share one template.
 *     Digit runs of 20+ digits are string variables (they do not fit 64 bits).
 *
 * Why this instead of a learned parser: it is exact by construction (every
 * byte is either template text or a variable that prints back identically),
 * needs no training, runs at memory speed, and its templates already separate
 * what changes (numbers, ids) from what repeats, which is what the column
 * encoders and zstd need.  Literal bytes 0x01..0x05 are escaped in templates.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "archive_format.h"

/* Byte classes. */
enum { C_DELIM = 0, C_WORD = 1, C_DIGIT = 2, C_HEXLETTER = 4 };

static unsigned char byte_class[256];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static void init_classes(void)
{
    for (int c = 0; c < 256; c++) {
        unsigned char k = C_DELIM;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.' ||
            c >= 0x80)
            k = C_WORD;
        if (c >= '0' && c <= '9')
            k = C_WORD | C_DIGIT;
        if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
            k |= C_HEXLETTER;
        byte_class[c] = k;
    }
}

int ltka_var_may_contain(int kind, unsigned char c)
{
    int digit = c >= '0' && c <= '9';
    switch (kind) {
    case LTKA_M_UNUM:
        return digit;
    case LTKA_M_SNUM:
        return digit || c == '-';
    default:
        return digit || c == '-' || c == 'x' || c == 'X' || (c >= 'a' && c <= 'f') ||
               (c >= 'A' && c <= 'F');
    }
}

/*
 * ltka_split_line() reserves room for the worst case up front (a template
 * is at most twice the line: every byte escaped; variables are at most half
 * the line plus one: two variables are always separated by a literal byte),
 * so the helpers below append without checks.
 */
static inline ltka_var *push_var(ltka_var **vars, size_t *nvars)
{
    return &(*vars)[(*nvars)++];
}

static inline void put_byte(logtk_strbuf *t, char c)
{
    t->data[t->len++] = c;
}

/* Appends literal bytes to the template, escaping marker bytes. */
static inline void put_literal(logtk_strbuf *t, const char *s, size_t n)
{
    char *d = t->data + t->len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((unsigned char)(c - 1) < 5)
            *d++ = LTKA_M_ESC;
        *d++ = (char)c;
    }
    t->len = (size_t)(d - t->data);
}

/* Splits [ts, te) at its digit runs (no hex-like parts inside). */
static int split_digits(const char *line, size_t tok_start, size_t ts, size_t te,
                        logtk_strbuf *tmpl, ltka_var **vars, size_t *nvars, size_t *cap)
{
    size_t lit = ts; /* start of pending literal text */
    size_t i = ts;
    while (i < te) {
        if (!(byte_class[(unsigned char)line[i]] & C_DIGIT)) {
            i++;
            continue;
        }
        size_t rs = i;
        while (i < te && (byte_class[(unsigned char)line[i]] & C_DIGIT))
            i++;
        size_t rlen = i - rs;
        /* sign: '-' right before the run, itself at token start or after a non-alnum */
        int neg = 0, sign_ok = 0;
        if (rs > ts && line[rs - 1] == '-' &&
            (rs - 1 == tok_start || !((line[rs - 2] >= '0' && line[rs - 2] <= '9') ||
                                      (line[rs - 2] >= 'a' && line[rs - 2] <= 'z') ||
                                      (line[rs - 2] >= 'A' && line[rs - 2] <= 'Z'))))
            neg = 1;
        if (neg || rs == tok_start || line[rs - 1] == '_')
            sign_ok = 1;
        size_t lit_end = neg ? rs - 1 : rs;
        if (lit_end > lit)
            put_literal(tmpl, line + lit, lit_end - lit);
        ltka_var *v = push_var(vars, nvars);
        if (rlen > 19) {
            /* too long for 64 bits: a string variable (the sign stays literal) */
            if (neg)
                put_literal(tmpl, "-", 1);
            v->kind = LTKA_M_STR;
            v->pad = 0;
            v->value = 0;
            v->str_off = (uint32_t)rs;
            v->str_len = (uint32_t)rlen;
        } else {
            uint64_t val = 0;
            size_t zeros = 0;
            while (zeros + 1 < rlen && line[rs + zeros] == '0')
                zeros++;
            for (size_t k = rs; k < i; k++)
                val = val * 10 + (uint64_t)(line[k] - '0');
            v->kind = sign_ok ? LTKA_M_SNUM : LTKA_M_UNUM;
            v->value = val;
            v->pad = (uint8_t)(sign_ok ? (zeros << 1 | (size_t)neg) : zeros);
            v->str_off = 0;
            v->str_len = 0;
        }
        put_byte(tmpl, (char)v->kind);
        lit = i;
    }
    if (te > lit)
        put_literal(tmpl, line + lit, te - lit);
    return 0;
}

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * One token with digits: hex-like parts (a run of hex digits and inner '-'
 * of 8+ characters with a letter a-f and a digit, such as a UUID or a hash, or
 * any hex run with a letter right after "0x") become string variables; the
 * rest is split at digit runs.
 */
static int split_token(const char *line, size_t ts, size_t te, logtk_strbuf *tmpl,
                       ltka_var **vars, size_t *nvars, size_t *cap)
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
        int letter = 0, digit = 0;
        size_t he = hs;
        while (he < te) {
            unsigned char c = (unsigned char)line[he];
            unsigned char kc = byte_class[c];
            if (kc & C_HEXLETTER)
                letter = 1;
            else if (kc & C_DIGIT)
                digit = 1;
            else if (!(c == '-' && he + 1 < te && (byte_class[(unsigned char)line[he + 1]] & (C_DIGIT | C_HEXLETTER))))
                break;
            he++;
        }
        int word_end = he == te || !is_alnum((unsigned char)line[he]);
        if (word_start && word_end && letter && ((digit && he - hs >= 8) || after_0x)) {
            if (hs > done && split_digits(line, ts, done, hs, tmpl, vars, nvars, cap) != 0)
                return -1;
            ltka_var *v = push_var(vars, nvars);
            put_byte(tmpl, LTKA_M_STR);
            v->kind = LTKA_M_STR;
            v->pad = 0;
            v->value = 0;
            v->str_off = (uint32_t)hs;
            v->str_len = (uint32_t)(he - hs);
            done = he;
        }
        i = he > hs ? he : hs + 1;
    }
    if (te > done && split_digits(line, ts, done, te, tmpl, vars, nvars, cap) != 0)
        return -1;
    return 0;
}

int ltka_split_line(const char *line, size_t len, logtk_strbuf *tmpl, ltka_var **vars,
                    size_t *nvars, size_t *cap)
{
    pthread_once(&classes_once, init_classes);
    if (logtk_strbuf_reserve(tmpl, 2 * len + 2) != 0)
        return -1;
    size_t need = *nvars + len / 2 + 2;
    if (need > *cap) {
        size_t ncap = *cap ? *cap : 64;
        while (ncap < need)
            ncap *= 2;
        ltka_var *nv = realloc(*vars, ncap * sizeof **vars);
        if (!nv)
            return -1;
        *vars = nv;
        *cap = ncap;
    }
    size_t i = 0;
    size_t lit = 0; /* start of pending literal bytes (delimiters, digit-free tokens) */
    while (i < len) {
        unsigned char k = byte_class[(unsigned char)line[i]];
        if (!(k & C_WORD)) {
            i++;
            continue;
        }
        size_t ts = i;
        int digits = 0;
        while (i < len && ((k = byte_class[(unsigned char)line[i]]) & C_WORD)) {
            digits |= k & C_DIGIT;
            i++;
        }
        if (!digits)
            continue;
        if (ts > lit)
            put_literal(tmpl, line + lit, ts - lit);
        if (split_token(line, ts, i, tmpl, vars, nvars, cap) != 0)
            return -1;
        lit = i;
    }
    if (len > lit)
        put_literal(tmpl, line + lit, len - lit);
    tmpl->data[tmpl->len] = '\0';
    return 0;
}
