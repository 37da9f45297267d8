/*
 * test_line_split.c - the archive tokenizer and block encoder, against references.
 *
 * ltk_split_line() jumps between digits and marker bytes (SSE2 where
 * available) instead of classifying every byte; it must give exactly what
 * the byte-by-byte tokenizer below gives (the algorithm as documented in
 * compress/line_split.c, written out plainly here).  Fixed cases pin the
 * documented templates; random lines built from the byte kinds that matter
 * (digits, hex letters of both cases, '-', '_', '.', 0x, dotted quads and
 * near-misses, markers 0x01-0x07, NUL, blanks, non-ASCII, runs of 19/20
 * digits, hex runs of 16/17 digits, lines around the 16-byte scan width)
 * compare the two on every field, and each split is rendered back from its
 * template and variables to the line itself.  The block encoder takes shortcuts over
 * repeated header parts (it cuts one template per line into the parts and
 * reuses the previous line's header); blocks built to hit those cases must
 * decode back byte for byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_decode.h"
#include "block_encode.h"
#include "block_layout.h"
#include "line_split.h"
#include "logtk.h"
#include "test_harness.h"

/* ---- reference tokenizer: one byte at a time ---- */

static int ref_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.' ||
           c >= 0x80 || (c >= '0' && c <= '9');
}
static int ref_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int ref_hexletter(unsigned char c)
{
    return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int ref_alnum(unsigned char c)
{
    return ref_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

typedef struct ref_out {
    char tmpl[8192];
    size_t tlen;
    ltk_var vars[4096];
    size_t nvars;
} ref_out;

static void ref_literal(ref_out *o, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= 1 && s[i] <= LTK_M_LAST)
            o->tmpl[o->tlen++] = LTK_M_ESC;
        o->tmpl[o->tlen++] = (char)s[i];
    }
}

/*
 * A dotted quad of 1-3 digit parts at s[rs..) within te, not followed by
 * ".digit": its end, or 0.  *addr: the address when every part is 0-255
 * without leading zero, else the packed form (LTK_IP_PACKED_FLAG).
 */
static size_t ref_ip(const unsigned char *s, size_t rs, size_t te, uint64_t *addr)
{
    size_t i = rs;
    uint64_t packed = 0;
    int odd = 0;
    *addr = 0;
    for (int octet = 0; octet < 4; octet++) {
        if (octet > 0) {
            if (i >= te || s[i] != '.')
                return 0;
            i++;
        }
        size_t os = i;
        unsigned v = 0;
        while (i < te && ref_digit(s[i])) {
            if (i - os < 4)
                v = v * 10 + (unsigned)(s[i] - '0');
            i++;
        }
        if (i == os || i - os > 3)
            return 0;
        if (v > 255 || (i - os > 1 && s[os] == '0'))
            odd = 1;
        *addr = *addr << 8 | (v & 255);
        packed = packed << 12 | (uint64_t)(i - os - 1) << 10 | v;
    }
    if (i + 1 < te && s[i] == '.' && ref_digit(s[i + 1]))
        return 0;
    if (odd)
        *addr = LTK_IP_PACKED_FLAG | packed;
    return i;
}

static void ref_digits(ref_out *o, const unsigned char *s, size_t tok, size_t ts, size_t te)
{
    size_t lit = ts, i = ts;
    while (i < te) {
        if (!ref_digit(s[i])) {
            i++;
            continue;
        }
        size_t rs = i;
        uint64_t addr;
        size_t ip_end = rs >= 2 && s[rs - 1] == '.' && ref_digit(s[rs - 2]) ? 0 : ref_ip(s, rs, te, &addr);
        if (ip_end) {
            ref_literal(o, s + lit, rs - lit);
            ltk_var *v = &o->vars[o->nvars++];
            memset(v, 0, sizeof *v);
            v->kind = LTK_M_IP;
            v->value = addr;
            o->tmpl[o->tlen++] = LTK_M_IP;
            lit = i = ip_end;
            continue;
        }
        while (i < te && ref_digit(s[i]))
            i++;
        size_t rlen = i - rs;
        int neg = rs > ts && s[rs - 1] == '-' && (rs - 1 == tok || !ref_alnum(s[rs - 2]));
        int sign_ok = neg || rs == tok || s[rs - 1] == '_';
        ref_literal(o, s + lit, (neg ? rs - 1 : rs) - lit);
        ltk_var *v = &o->vars[o->nvars++];
        memset(v, 0, sizeof *v);
        if (rlen > 19) {
            if (neg)
                ref_literal(o, (const unsigned char *)"-", 1);
            v->kind = LTK_M_STR;
            v->str_off = (uint32_t)rs;
            v->str_len = (uint32_t)rlen;
        } else {
            size_t zeros = 0;
            while (zeros + 1 < rlen && s[rs + zeros] == '0')
                zeros++;
            for (size_t k = rs; k < i; k++)
                v->value = v->value * 10 + (uint64_t)(s[k] - '0');
            v->kind = sign_ok ? LTK_M_SNUM : LTK_M_UNUM;
            v->pad = (uint8_t)(sign_ok ? zeros << 1 | (size_t)neg : zeros);
        }
        o->tmpl[o->tlen++] = (char)v->kind;
        lit = i;
    }
    ref_literal(o, s + lit, te - lit);
}

static void ref_token(ref_out *o, const unsigned char *s, size_t ts, size_t te)
{
    size_t done = ts, i = ts;
    while (i < te) {
        if (!ref_digit(s[i]) && !ref_hexletter(s[i])) {
            i++;
            continue;
        }
        size_t hs = i, he = hs;
        int after_0x = hs >= ts + 2 && s[hs - 2] == '0' && (s[hs - 1] == 'x' || s[hs - 1] == 'X') &&
                       (hs - 2 == ts || !ref_alnum(s[hs - 3]));
        int word_start = hs == ts || !ref_alnum(s[hs - 1]) || after_0x;
        int lower = 0, upper = 0, digit = 0, dash = 0;
        while (he < te) {
            if (ref_hexletter(s[he]))
                *(s[he] >= 'a' ? &lower : &upper) = 1;
            else if (ref_digit(s[he]))
                digit = 1;
            else if (s[he] == '-' && he + 1 < te && (ref_digit(s[he + 1]) || ref_hexletter(s[he + 1])))
                dash = 1;
            else
                break;
            he++;
        }
        int letter = lower || upper;
        size_t hl = he - hs;
        int word_end = he == te || !ref_alnum(s[he]);
        int hex = !dash && !(lower && upper) && hl <= LTK_HEX_MAX_DIGITS &&
                  (after_0x || (letter && digit && hl >= LTK_HEX_MIN_DIGITS));
        if (word_start && word_end && (hex || (letter && ((digit && hl >= 8) || after_0x)))) {
            size_t lit_end = after_0x ? hs - 2 : hs;
            if (lit_end > done)
                ref_digits(o, s, ts, done, lit_end);
            if (after_0x)
                ref_literal(o, s + hs - 2, 2);
            ltk_var *v = &o->vars[o->nvars++];
            memset(v, 0, sizeof *v);
            if (hex) {
                v->kind = upper ? LTK_M_HEXU : LTK_M_HEXL;
                size_t zeros = 0;
                while (zeros + 1 < hl && s[hs + zeros] == '0')
                    zeros++;
                v->pad = (uint8_t)zeros;
                for (size_t k = hs; k < he; k++)
                    v->value = v->value * 16 + (uint64_t)(ref_digit(s[k]) ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
            } else {
                v->kind = LTK_M_STR;
                v->str_off = (uint32_t)hs;
                v->str_len = (uint32_t)hl;
            }
            o->tmpl[o->tlen++] = (char)v->kind;
            done = he;
        }
        i = he > hs ? he : hs + 1;
    }
    if (te > done)
        ref_digits(o, s, ts, done, te);
}

static void ref_split(const char *line, size_t len, ref_out *o)
{
    const unsigned char *s = (const unsigned char *)line;
    size_t i = 0, lit = 0;
    o->tlen = 0;
    o->nvars = 0;
    while (i < len) {
        if (!ref_word(s[i])) {
            i++;
            continue;
        }
        size_t ts = i;
        int digits = 0;
        while (i < len && ref_word(s[i]))
            digits |= ref_digit(s[i++]);
        if (!digits)
            continue;
        ref_literal(o, s + lit, ts - lit);
        ref_token(o, s, ts, i);
        lit = i;
    }
    ref_literal(o, s + lit, len - lit);
}

/* ---- comparison ---- */

/*
 * Writes the text of a split back (template with variables filled in, the
 * way the decoder prints them) and returns 1 when it is the line itself.
 */
static int render_split(const char *line, size_t len, const ref_out *o)
{
    static char out[16384];
    size_t n = 0, k = 0;
    for (size_t i = 0; i < o->tlen; i++) {
        unsigned char c = (unsigned char)o->tmpl[i];
        if (c == LTK_M_ESC) {
            out[n++] = o->tmpl[++i];
            continue;
        }
        if (c < 1 || c > LTK_M_LAST) {
            out[n++] = (char)c;
            continue;
        }
        const ltk_var *v = &o->vars[k++];
        char num[64];
        int w;
        switch (c) {
        case LTK_M_STR:
            memcpy(out + n, line + v->str_off, v->str_len);
            n += v->str_len;
            continue;
        case LTK_M_IP:
            if (v->value >> 32) {
                w = 0;
                for (int shift = 36; shift >= 0; shift -= 12) {
                    unsigned part = (unsigned)(v->value >> shift) & 0xfff;
                    w += snprintf(num + w, sizeof num - (size_t)w, "%s%0*u", shift < 36 ? "." : "",
                                  (int)(part >> 10) + 1, part & 1023);
                }
            } else {
                w = snprintf(num, sizeof num, "%u.%u.%u.%u", (unsigned)(v->value >> 24) & 255,
                             (unsigned)(v->value >> 16) & 255, (unsigned)(v->value >> 8) & 255,
                             (unsigned)v->value & 255);
            }
            break;
        case LTK_M_HEXL:
        case LTK_M_HEXU:
            w = snprintf(num, sizeof num, c == LTK_M_HEXL ? "%0*llx" : "%0*llX",
                         (int)v->pad + (int)(v->value ? (64 - __builtin_clzll(v->value) + 3) / 4 : 1),
                         (unsigned long long)v->value);
            break;
        case LTK_M_SNUM:
            w = snprintf(num, sizeof num, "%s%0*llu", v->pad & 1 ? "-" : "",
                         (int)(v->pad >> 1) + snprintf(NULL, 0, "%llu", (unsigned long long)v->value),
                         (unsigned long long)v->value);
            break;
        default:
            w = snprintf(num, sizeof num, "%0*llu", (int)v->pad + snprintf(NULL, 0, "%llu", (unsigned long long)v->value),
                         (unsigned long long)v->value);
            break;
        }
        memcpy(out + n, num, (size_t)w);
        n += (size_t)w;
    }
    return k == o->nvars && n == len && memcmp(out, line, len) == 0;
}

static ltk_strbuf got_tmpl = LTK_STRBUF_INIT;
static ltk_var *got_vars;
static size_t got_cap;
static ref_out want;

/* Splits line both ways; returns 1 when template and variables agree. */
static int same_split(const char *line, size_t len)
{
    size_t nvars = 0;
    ltk_strbuf_clear(&got_tmpl);
    if (ltk_split_line(line, len, &got_tmpl, &got_vars, &nvars, &got_cap) != 0)
        return 0;
    ref_split(line, len, &want);
    if (got_tmpl.len != want.tlen || memcmp(got_tmpl.data, want.tmpl, want.tlen) != 0 ||
        got_tmpl.data[got_tmpl.len] != '\0' || nvars != want.nvars)
        return 0;
    for (size_t k = 0; k < nvars; k++) {
        const ltk_var *g = &got_vars[k], *w = &want.vars[k];
        if (g->kind != w->kind)
            return 0;
        if (g->kind == LTK_M_STR ? g->str_off != w->str_off || g->str_len != w->str_len
                                  : g->value != w->value || g->pad != w->pad)
            return 0;
    }
    return render_split(line, len, &want);
}

static void check_template(const char *line, const char *expect_tmpl, size_t expect_vars)
{
    CHECK(same_split(line, strlen(line)));
    CHECK_BYTES(got_tmpl.data, got_tmpl.len, expect_tmpl);
    CHECK(want.nvars == expect_vars);
}

TEST(test_fixed)
{
    check_template("081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1",
                   "\x02 \x02 \x02 INFO dfs.DataNode$PacketResponder: PacketResponder \x02", 4);
    check_template("blk_-1608999687919862906 and blk_38865049064139660", "blk_\x02 and blk_\x02", 2);
    CHECK(got_vars[0].kind == LTK_M_SNUM && got_vars[1].kind == LTK_M_SNUM);
    check_template("from 10.251.73.220:50010", "from \x04:\x02", 2);
    CHECK(got_vars[0].kind == LTK_M_IP && got_vars[0].value == (10u << 24 | 251u << 16 | 73u << 8 | 220u));
    /* a '-' after a digit is no sign: only the first number is signed */
    check_template("2005-06-03-15.42.50.675872", "\x02-\x01-\x01-\x01.\x01.\x01.\x01", 7);
    /* "0x" is template text, the hex digits a hex number */
    check_template("id 0x7f3a and 0xdeadbeef end", "id 0x\x06 and 0x\x06 end", 2);
    CHECK(got_vars[0].value == 0x7f3a && got_vars[1].value == 0xdeadbeef && got_vars[1].pad == 0);
    check_template("uuid 123e4567-e89b-12d3-a456-426614174000 x", "uuid \x03 x", 1);
    check_template("n=-42 m=007", "n=\x02 m=\x02", 2);
    CHECK(got_vars[0].value == 42 && got_vars[0].pad == 1);      /* negative, no zeros */
    CHECK(got_vars[1].value == 7 && got_vars[1].pad == (2 << 1)); /* two leading zeros */
    check_template("big 123456789012345678901 end", "big \x03 end", 1);
    check_template("max 9999999999999999999", "max \x02", 1);
    CHECK(got_vars[0].value == 9999999999999999999ull);
    check_template("ctl \x01\x05 q1", "ctl \x05\x01\x05\x05 q\x01", 1);
    check_template("m \x04\x06\x07", "m \x05\x04\x05\x06\x05\x07", 0);
    /* dotted quads of 1-3 digit parts, not inside longer dotted numbers */
    check_template("0.0.0.0", "\x04", 1);
    CHECK(got_vars[0].kind == LTK_M_IP && got_vars[0].value == 0);
    check_template("255.255.255.255", "\x04", 1);
    CHECK(got_vars[0].value == 0xffffffffu);
    /* not canonical: the packed form, 1 << 48 | per part (digits - 1) << 10 | value */
    check_template("256.1.1.1", "\x04", 1);
    CHECK(got_vars[0].kind == LTK_M_IP &&
          got_vars[0].value == (1ull << 48 | 2ull << 10 << 36 | 256ull << 36 | 1ull << 24 | 1ull << 12 | 1));
    check_template("01.2.3.4", "\x04", 1);
    CHECK(got_vars[0].value == (1ull << 48 | (1ull << 10 | 1) << 36 | 2ull << 24 | 3ull << 12 | 4));
    check_template("10.957.43.015 x 000.0.00.999", "\x04 x \x04", 2);
    CHECK(got_vars[0].value == (1ull << 48 | (1ull << 10 | 10) << 36 | (2ull << 10 | 957) << 24 |
                                (1ull << 10 | 43) << 12 | (2ull << 10 | 15)));
    CHECK(got_vars[1].value == (1ull << 48 | (2ull << 10) << 36 | 0ull << 24 | (1ull << 10) << 12 | (2ull << 10 | 999)));
    check_template("1.2.3.4.5", "\x02.\x01.\x01.\x01.\x01", 5);
    check_template("999.999.999.9999", "\x02.\x01.\x01.\x01", 4);
    check_template("1234.1.1.1", "\x02.\x01.\x01.\x01", 4);
    check_template("1.2.3.04.5", "\x02.\x01.\x01.\x01.\x01", 5);
    check_template("1.2.3", "\x02.\x01.\x01", 3);
    check_template("1.2.3.4:80", "\x04:\x02", 2);
    check_template("/10.251.43.115:50010", "/\x04:\x02", 2);
    check_template("to 10.1.2.3.", "to \x04.", 1);
    check_template("v1.2.3.4 -1.2.3.4", "v\x04 -\x04", 2);
    /* hex numbers: "0x" then one case, or a whole word with a digit and a letter */
    check_template("0x", "\x02x", 1);
    check_template("0xABCdef", "0x\x03", 1);
    check_template("0X00FF 0x0000ff", "0X\x07 0x\x06", 2);
    CHECK(got_vars[0].value == 0xff && got_vars[0].pad == 2 && got_vars[1].pad == 4);
    check_template("0x1234", "0x\x06", 1);
    CHECK(got_vars[0].value == 0x1234);
    check_template("DEADBEEF1", "\x07", 1);
    CHECK(got_vars[0].kind == LTK_M_HEXU && got_vars[0].value == 0xDEADBEEF1ull);
    check_template("a3f9c2e1 fffffffffff0 a3f", "\x06 \x06 a\x01" "f", 3);
    CHECK(got_vars[0].kind == LTK_M_HEXL && got_vars[1].value == 0xfffffffffff0ull);
    /* longer: strings (LTK_HEX_MAX_DIGITS is 12, measured) */
    check_template("0123456789abcdef0 0x14ed93111f20005 fffffffffffff0", "\x03 0x\x03 \x03", 3);
    check_template("ffff dead cafe add be", "ffff dead cafe add be", 0);
    check_template("0x12345678901234567", "\x02x\x01", 2); /* decimal digits, too long for hex */
    check_template("", "", 0);
    check_template("no digits at all, only words.", "no digits at all, only words.", 0);
}

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33) % n;
}

static size_t random_line(char *buf, size_t max)
{
    static const char *pieces[] = {"0", "7", "00", "123", "0042", "19", "-", "_", "-5", ".", "0x",
                                   "0X1f", "a", "f", "deadbeef", "DEAD", "g", "blk_", "xyz", " ",
                                   "  ", "\t", ":", "=", "/", "\x01", "\x02", "\x03", "\x04", "\x05",
                                   "\xc3\xa9", "\xff", "12345678901234567890", "1234567890123456789",
                                   "123e4567-e89b-12d3", "-0", "--9", "a-1", "9-a", "255", "256",
                                   "1.2.3.4", "10.251.43.115", "10.957.43.015", "256.0.00.1", "01", "AB12", "0x00ff", "\x06", "\x07",
                                   "abcdef0123456789", "ABCDEF01234567890", "0xABCDEF0123456789",
                                   "abc123def456", "ab1", "0x123456789012"};
    size_t n = 0, target = rnd(4) == 0 ? rnd(200) : rnd(40);
    while (n < target) {
        const char *p;
        size_t pl;
        if (rnd(8) == 0) {
            buf[n] = (char)rnd(256); /* any byte, NUL included */
            pl = 1;
        } else {
            p = pieces[rnd(sizeof pieces / sizeof *pieces)];
            pl = strlen(p);
            if (n + pl > max)
                break;
            memcpy(buf + n, p, pl);
        }
        n += pl;
        if (buf[n - 1] == '\n' || buf[n - 1] == '\r')
            buf[n - 1] = ' ';
    }
    return n;
}

TEST(test_random_lines)
{
    char buf[512];
    int bad = 0;
    for (int iter = 0; iter < 200000 && bad < 5; iter++) {
        size_t len = random_line(buf, sizeof buf);
        if (!same_split(buf, len)) {
            bad++;
            fprintf(stderr, "mismatch on line of %zu bytes:", len);
            for (size_t i = 0; i < len; i++)
                fprintf(stderr, " %02x", (unsigned char)buf[i]);
            fprintf(stderr, "\n");
        }
    }
    CHECK(bad == 0);
    /* every length around the 16-byte scan steps, digits at every position */
    for (size_t len = 1; len <= 40; len++)
        for (size_t at = 0; at < len; at++) {
            char line[64];
            memset(line, 'q', len);
            line[at] = '5';
            if (at + 1 < len)
                line[at + 1] = ' ';
            CHECK(same_split(line, len));
        }
    /* a line read from the end of a heap block: nothing past len may be read (ASan) */
    for (size_t len = 0; len <= 40; len++) {
        char *exact = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++)
            exact[i] = "12a 0x9\x01-"[i % 9];
        CHECK(same_split(exact, len));
        free(exact);
    }
}

/* ---- block encoder: header shortcuts must round-trip ---- */

static void check_block_roundtrip(const char *text, size_t len, int level)
{
    ltk_encoder *enc = ltk_encoder_new(level);
    ltk_decoder *dec = ltk_decoder_new();
    ltk_strbuf payload = LTK_STRBUF_INIT, back = LTK_STRBUF_INIT;
    ltk_errbuf err;
    memset(&err, 0, sizeof err);
    uint32_t nlines = 0;
    CHECK(enc && dec);
    CHECK_STATUS(ltk_encode_block(enc, text, len, &payload, &nlines), LOGTK_OK);
    uint32_t expect = 0;
    for (size_t i = 0; i < len; i++)
        expect += text[i] == '\n';
    if (len > 0 && text[len - 1] != '\n')
        expect++;
    CHECK(nlines == expect);
    CHECK_STATUS(ltk_decode_block(dec, (const uint8_t *)payload.data, payload.len, nlines,
                                   (uint32_t)len, &back, NULL, &err),
                 LOGTK_OK);
    CHECK(back.len == len && memcmp(back.data, text, len) == 0);
    ltk_strbuf_free(&payload);
    ltk_strbuf_free(&back);
    ltk_encoder_free(enc);
    ltk_decoder_free(dec);
}

TEST(test_block_headers)
{
    /* header parts that are prefixes of each other, lines that end inside the header,
       trailing blanks, tabs, markers and empty lines between lines of one header shape */
    static const char *shapes[] = {
        "081109 203615 148 INFO dfs.DataNode: msg %u\n",
        "081109 203615 148 INFO dfs.DataNode:\n",
        "081109 203615 148 INFO\n",
        "081109 203615 148 INFO \n",
        "081109 203615 148 INFO  dfs.DataNode: two blanks %u\n",
        "081109\t203615 148 INFO dfs.DataNode: tab %u\n",
        "081109 203615 148 INFOX dfs.DataNode: longer part %u\n",
        "081109 203615 148 INF dfs.DataNode: shorter part %u\n",
        "\n",
        " \n",
        "081109 203615 \x01\x05 INFO dfs: markers %u\r\n",
        "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 x %u\n",
        "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872\n",
    };
    size_t nshapes = sizeof shapes / sizeof *shapes;
    ltk_strbuf text = LTK_STRBUF_INIT;
    for (int round = 0; round < 3; round++) {
        ltk_strbuf_clear(&text);
        for (unsigned i = 0; i < 3000; i++) {
            /* runs of one shape (the shortcut) broken by other shapes */
            const char *shape = shapes[(round == 0 ? i / 7 : rnd((unsigned)nshapes)) % nshapes];
            char line[256];
            int n = snprintf(line, sizeof line, shape, i * 7919u % 100003u);
            ltk_strbuf_append(&text, line, (size_t)n);
        }
        if (round == 2)
            ltk_strbuf_append(&text, "081109 203615 no final newline", 30);
        check_block_roundtrip(text.data, text.len, 1);
        check_block_roundtrip(text.data, text.len, 3);
    }
    check_block_roundtrip("", 0, 1);
    check_block_roundtrip("x", 1, 1);
    ltk_strbuf_free(&text);
}

/* Which IP values a decoder accepts: addresses, and packed forms of non-canonical quads only. */
TEST(test_ip_values)
{
    CHECK(ltk_ip_value_ok(0) && ltk_ip_value_ok(0xffffffffu));
    /* every quad the splitter makes is accepted */
    static const char *const quads[] = {"256.1.1.1", "01.2.3.4", "000.000.000.000", "999.999.999.999", "1.2.3.00"};
    for (size_t i = 0; i < sizeof quads / sizeof quads[0]; i++) {
        check_template(quads[i], "\x04", 1);
        CHECK(got_vars[0].value >> 32 && ltk_ip_value_ok(got_vars[0].value));
    }
    uint64_t one = LTK_IP_PACKED_FLAG | 1ull << 36 | 2ull << 24 | 3ull << 12 | (2ull << 10 | 4); /* 1.2.3.004 */
    CHECK(ltk_ip_value_ok(one));
    CHECK(!ltk_ip_value_ok(one | 1ull << 49));                 /* stray bit above the flag */
    CHECK(!ltk_ip_value_ok(one & ~LTK_IP_PACKED_FLAG));       /* no flag, above 2^32 */
    CHECK(!ltk_ip_value_ok(one | 3ull << 10));                 /* a part of four digits */
    CHECK(!ltk_ip_value_ok((one & ~0xfffull) | 10));           /* 10 in one digit */
    CHECK(!ltk_ip_value_ok((one & ~0xfffull) | 1ull << 10 | 100)); /* 100 in two digits */
    CHECK(!ltk_ip_value_ok((one & ~0xfffull) | 2ull << 10 | 1000)); /* 1000 in three */
    /* a packed form of a canonical address ("1.2.3.4"): only its 32-bit value is valid */
    CHECK(!ltk_ip_value_ok((one & ~0xfffull) | 4));
    CHECK(!ltk_ip_value_ok(LTK_IP_PACKED_FLAG | (2ull << 10 | 255) << 36 | 2ull << 24 | 3ull << 12 | 4));
    CHECK(ltk_ip_value_ok(LTK_IP_PACKED_FLAG | (2ull << 10 | 256) << 36 | 2ull << 24 | 3ull << 12 | 4));
}

TEST_TEARDOWN()
{
    ltk_strbuf_free(&got_tmpl);
    free(got_vars);
}
