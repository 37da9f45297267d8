/*
 * test_line_split.c - the archive tokenizer and block encoder, against references.
 *
 * ltka_split_line() jumps between digits and marker bytes (SSE2 where
 * available) instead of classifying every byte; it must give exactly what
 * the byte-by-byte tokenizer below gives (the algorithm as documented in
 * compress/line_split.c, written out plainly here).  Fixed cases pin the
 * documented templates; random lines built from the byte kinds that matter
 * (digits, hex letters, '-', '_', '.', 0x, markers 0x01-0x05, NUL, blanks,
 * non-ASCII, runs of 19/20 digits, lines around the 16-byte scan width)
 * compare the two on every field.  The block encoder takes shortcuts over
 * repeated header parts (it cuts one template per line into the parts and
 * reuses the previous line's header); blocks built to hit those cases must
 * decode back byte for byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_format.h"
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
    ltka_var vars[4096];
    size_t nvars;
} ref_out;

static void ref_literal(ref_out *o, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= 1 && s[i] <= 5)
            o->tmpl[o->tlen++] = LTKA_M_ESC;
        o->tmpl[o->tlen++] = (char)s[i];
    }
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
        while (i < te && ref_digit(s[i]))
            i++;
        size_t rlen = i - rs;
        int neg = rs > ts && s[rs - 1] == '-' && (rs - 1 == tok || !ref_alnum(s[rs - 2]));
        int sign_ok = neg || rs == tok || s[rs - 1] == '_';
        ref_literal(o, s + lit, (neg ? rs - 1 : rs) - lit);
        ltka_var *v = &o->vars[o->nvars++];
        memset(v, 0, sizeof *v);
        if (rlen > 19) {
            if (neg)
                ref_literal(o, (const unsigned char *)"-", 1);
            v->kind = LTKA_M_STR;
            v->str_off = (uint32_t)rs;
            v->str_len = (uint32_t)rlen;
        } else {
            size_t zeros = 0;
            while (zeros + 1 < rlen && s[rs + zeros] == '0')
                zeros++;
            for (size_t k = rs; k < i; k++)
                v->value = v->value * 10 + (uint64_t)(s[k] - '0');
            v->kind = sign_ok ? LTKA_M_SNUM : LTKA_M_UNUM;
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
        int letter = 0, digit = 0;
        while (he < te) {
            if (ref_hexletter(s[he]))
                letter = 1;
            else if (ref_digit(s[he]))
                digit = 1;
            else if (!(s[he] == '-' && he + 1 < te && (ref_digit(s[he + 1]) || ref_hexletter(s[he + 1]))))
                break;
            he++;
        }
        int word_end = he == te || !ref_alnum(s[he]);
        if (word_start && word_end && letter && ((digit && he - hs >= 8) || after_0x)) {
            if (hs > done)
                ref_digits(o, s, ts, done, hs);
            ltka_var *v = &o->vars[o->nvars++];
            memset(v, 0, sizeof *v);
            v->kind = LTKA_M_STR;
            v->str_off = (uint32_t)hs;
            v->str_len = (uint32_t)(he - hs);
            o->tmpl[o->tlen++] = LTKA_M_STR;
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

static logtk_strbuf got_tmpl = LOGTK_STRBUF_INIT;
static ltka_var *got_vars;
static size_t got_cap;
static ref_out want;

/* Splits line both ways; returns 1 when template and variables agree. */
static int same_split(const char *line, size_t len)
{
    size_t nvars = 0;
    logtk_strbuf_clear(&got_tmpl);
    if (ltka_split_line(line, len, &got_tmpl, &got_vars, &nvars, &got_cap) != 0)
        return 0;
    ref_split(line, len, &want);
    if (got_tmpl.len != want.tlen || memcmp(got_tmpl.data, want.tmpl, want.tlen) != 0 ||
        got_tmpl.data[got_tmpl.len] != '\0' || nvars != want.nvars)
        return 0;
    for (size_t k = 0; k < nvars; k++) {
        const ltka_var *g = &got_vars[k], *w = &want.vars[k];
        if (g->kind != w->kind)
            return 0;
        if (g->kind == LTKA_M_STR ? g->str_off != w->str_off || g->str_len != w->str_len
                                  : g->value != w->value || g->pad != w->pad)
            return 0;
    }
    return 1;
}

static void check_template(const char *line, const char *expect_tmpl, size_t expect_vars)
{
    CHECK(same_split(line, strlen(line)));
    CHECK_BYTES(got_tmpl.data, got_tmpl.len, expect_tmpl);
    CHECK(want.nvars == expect_vars);
}

static void test_fixed(void)
{
    check_template("081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1",
                   "\x02 \x02 \x02 INFO dfs.DataNode$PacketResponder: PacketResponder \x02", 4);
    check_template("blk_-1608999687919862906 and blk_38865049064139660", "blk_\x02 and blk_\x02", 2);
    CHECK(got_vars[0].kind == LTKA_M_SNUM && got_vars[1].kind == LTKA_M_SNUM);
    check_template("from 10.251.73.220:50010", "from \x02.\x01.\x01.\x01:\x02", 5);
    /* a '-' after a digit is no sign: only the first number is signed */
    check_template("2005-06-03-15.42.50.675872", "\x02-\x01-\x01-\x01.\x01.\x01.\x01", 7);
    /* the "0" of "0x" is a number of its own, the hex digits one string */
    check_template("id 0x7f3a and 0xdeadbeef end", "id \x02x\x03 and \x02x\x03 end", 4);
    check_template("uuid 123e4567-e89b-12d3-a456-426614174000 x", "uuid \x03 x", 1);
    check_template("n=-42 m=007", "n=\x02 m=\x02", 2);
    CHECK(got_vars[0].value == 42 && got_vars[0].pad == 1);      /* negative, no zeros */
    CHECK(got_vars[1].value == 7 && got_vars[1].pad == (2 << 1)); /* two leading zeros */
    check_template("big 123456789012345678901 end", "big \x03 end", 1);
    check_template("max 9999999999999999999", "max \x02", 1);
    CHECK(got_vars[0].value == 9999999999999999999ull);
    check_template("ctl \x01\x05 a1", "ctl \x05\x01\x05\x05 a\x01", 1);
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
                                   "123e4567-e89b-12d3", "-0", "--9", "a-1", "9-a"};
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

static void test_random_lines(void)
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
    ltka_encoder *enc = ltka_encoder_new(level);
    ltka_decoder *dec = ltka_decoder_new();
    logtk_strbuf payload = LOGTK_STRBUF_INIT, back = LOGTK_STRBUF_INIT;
    logtk_errbuf err;
    memset(&err, 0, sizeof err);
    uint32_t nlines = 0;
    CHECK(enc && dec);
    CHECK_STATUS(ltka_encode_block(enc, text, len, &payload, &nlines), LOGTK_OK);
    uint32_t expect = 0;
    for (size_t i = 0; i < len; i++)
        expect += text[i] == '\n';
    if (len > 0 && text[len - 1] != '\n')
        expect++;
    CHECK(nlines == expect);
    CHECK_STATUS(ltka_decode_block(dec, (const uint8_t *)payload.data, payload.len, nlines,
                                   (uint32_t)len, &back, NULL, &err),
                 LOGTK_OK);
    CHECK(back.len == len && memcmp(back.data, text, len) == 0);
    logtk_strbuf_free(&payload);
    logtk_strbuf_free(&back);
    ltka_encoder_free(enc);
    ltka_decoder_free(dec);
}

static void test_block_headers(void)
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
    logtk_strbuf text = LOGTK_STRBUF_INIT;
    for (int round = 0; round < 3; round++) {
        logtk_strbuf_clear(&text);
        for (unsigned i = 0; i < 3000; i++) {
            /* runs of one shape (the shortcut) broken by other shapes */
            const char *shape = shapes[(round == 0 ? i / 7 : rnd((unsigned)nshapes)) % nshapes];
            char line[256];
            int n = snprintf(line, sizeof line, shape, i * 7919u % 100003u);
            logtk_strbuf_append(&text, line, (size_t)n);
        }
        if (round == 2)
            logtk_strbuf_append(&text, "081109 203615 no final newline", 30);
        check_block_roundtrip(text.data, text.len, 1);
        check_block_roundtrip(text.data, text.len, 3);
    }
    check_block_roundtrip("", 0, 1);
    check_block_roundtrip("x", 1, 1);
    logtk_strbuf_free(&text);
}

int main(void)
{
    test_fixed();
    test_random_lines();
    test_block_headers();
    logtk_strbuf_free(&got_tmpl);
    free(got_vars);
    return TEST_SUMMARY();
}
