/*
 * test_sink_escape_random.c - the tsv and jsonl sinks' rows against a plain
 * byte-at-a-time restatement of their layouts (logtk-parse(1)), on random
 * rows: fields of every length around the 8-byte words the escapers work in,
 * with the bytes that need care (TAB, LF, CR, backslash, quote, control and
 * DEL bytes, UTF-8 that is valid, truncated or overlong, 0xFF) at every
 * position.  The escapers take shortcuts (whole words, a row's space reserved
 * once, JSON escaped and TSV escaped in one step); these rows hold them to
 * the simple definition.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"

/* ------------------------------------------------ the reference writers */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void put(text *t, const void *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->data = realloc(t->data, t->cap);
    }
    memcpy(t->data + t->len, p, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void puts_text(text *t, const char *s) { put(t, s, strlen(s)); }

static void put_u64(text *t, unsigned long long v)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%llu", v);
    puts_text(t, digits);
}

/* TSV: TAB, LF, CR and backslash as \t \n \r \\, every other byte as is. */
static void ref_tsv(text *t, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        const char *esc = c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                        : c == '\\' ? "\\\\" : NULL;
        if (esc)
            puts_text(t, esc);
        else
            put(t, &c, 1);
    }
}

/* Length of the well-formed UTF-8 sequence at p[0..avail), or 0 (RFC 3629). */
static size_t ref_utf8(const unsigned char *p, size_t avail)
{
    unsigned c = p[0];
    size_t k;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        k = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        k = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    if (c == 0xED)
        hi = 0x9F;
    if (c == 0xF0)
        lo = 0x90;
    if (c == 0xF4)
        hi = 0x8F;
    if (avail < k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

/* A JSON string with quotes.  strict: a byte that starts no well-formed UTF-8
 * sequence becomes U+FFFD (and *lossy is set); otherwise bytes >= 0x80 pass. */
static void ref_json(text *t, const char *s, size_t n, int strict, int *lossy)
{
    const unsigned char *p = (const unsigned char *)s;
    puts_text(t, "\"");
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        char buf[8];
        if (c == '"' || c == '\\') {
            buf[0] = '\\';
            buf[1] = (char)c;
            put(t, buf, 2);
        } else if (c < 0x20) {
            const char *named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                              : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
            if (named) {
                puts_text(t, named);
            } else {
                snprintf(buf, sizeof buf, "\\u%04x", c);
                puts_text(t, buf);
            }
        } else if (c >= 0x80 && strict) {
            size_t k = ref_utf8(p + i, n - i);
            if (k == 0) {
                puts_text(t, "\xEF\xBF\xBD");
                *lossy = 1;
                i++;
                continue;
            }
            put(t, p + i, k);
            i += k;
            continue;
        } else {
            put(t, p + i, 1);
        }
        i++;
    }
    puts_text(t, "\"");
}

static void ref_base64(text *t, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {abc[v >> 18], abc[(v >> 12) & 63], i + 1 < n ? abc[(v >> 6) & 63] : '=',
                     i + 2 < n ? abc[v & 63] : '='};
        put(t, q, 4);
    }
}

static const char *field_names[] = {"Date", "Level", "Component"};
#define NFIELDS 3

static void ref_tsv_row(text *t, const logtk_row *row)
{
    put_u64(t, row->line_id);
    for (size_t i = 0; i < NFIELDS; i++) {
        puts_text(t, "\t");
        if (i < row->record->nfields)
            ref_tsv(t, row->record->fields[i].ptr, row->record->fields[i].len);
    }
    puts_text(t, "\t");
    ref_tsv(t, row->record->content.ptr, row->record->content.len);
    puts_text(t, "\tE");
    put_u64(t, row->template_id);
    puts_text(t, "\t");
    ref_tsv(t, row->template_text.ptr, row->template_text.len);
    puts_text(t, "\t");
    text list = {NULL, 0, 0};
    puts_text(&list, "[");
    for (size_t i = 0; i < row->nparams; i++) {
        if (i)
            puts_text(&list, ",");
        ref_json(&list, row->params[i].ptr, row->params[i].len, 0, NULL);
    }
    puts_text(&list, "]");
    ref_tsv(t, list.data, list.len);
    free(list.data);
    puts_text(t, "\n");
}

static void ref_jsonl_row(text *t, const logtk_row *row)
{
    const char *names[NFIELDS + 2];
    logtk_slice values[NFIELDS + 2];
    size_t nlossy = 0;
    logtk_slice empty = {"", 0};
    puts_text(t, "{\"LineId\":");
    put_u64(t, row->line_id);
    for (size_t i = 0; i < NFIELDS + 2; i++) {
        const char *name = i < NFIELDS ? field_names[i] : i == NFIELDS ? "Content" : "EventTemplate";
        logtk_slice v = i < NFIELDS ? (i < row->record->nfields ? row->record->fields[i] : empty)
                      : i == NFIELDS ? row->record->content : row->template_text;
        if (i == NFIELDS + 1) {
            puts_text(t, ",\"EventId\":\"E");
            put_u64(t, row->template_id);
            puts_text(t, "\"");
        }
        int lossy = 0;
        puts_text(t, ",\"");
        puts_text(t, name);
        puts_text(t, "\":");
        ref_json(t, v.ptr, v.len, 1, &lossy);
        if (lossy) {
            names[nlossy] = name;
            values[nlossy++] = v;
        }
    }
    puts_text(t, ",\"ParameterList\":[");
    int params_lossy = 0;
    for (size_t i = 0; i < row->nparams; i++) {
        if (i)
            puts_text(t, ",");
        ref_json(t, row->params[i].ptr, row->params[i].len, 1, &params_lossy);
    }
    puts_text(t, "]");
    for (size_t k = 0; k < nlossy; k++) {
        puts_text(t, ",\"");
        puts_text(t, names[k]);
        puts_text(t, "_base64\":\"");
        ref_base64(t, (const unsigned char *)values[k].ptr, values[k].len);
        puts_text(t, "\"");
    }
    if (params_lossy) {
        puts_text(t, ",\"ParameterList_base64\":[");
        for (size_t i = 0; i < row->nparams; i++) {
            puts_text(t, i ? ",\"" : "\"");
            ref_base64(t, (const unsigned char *)row->params[i].ptr, row->params[i].len);
            puts_text(t, "\"");
        }
        puts_text(t, "]");
    }
    puts_text(t, "}\n");
}

/* --------------------------------------------------------- random rows */

static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* Mostly plain text; now and then a byte or sequence that needs care. */
static size_t random_bytes(char *out, size_t cap)
{
    static const char *const special[] = {
        "\t", "\n", "\r", "\\", "\"", "\x01", "\x1f", "\x7f", "\xff", "\x80",
        "\xc3\xa9",         /* valid 2-byte UTF-8 */
        "\xc3",             /* truncated */
        "\xe2\x82\xac",     /* valid 3-byte */
        "\xe0\x80\xaf",     /* overlong */
        "\xed\xa0\x80",     /* surrogate */
        "\xf0\x9f\x98\x80", /* valid 4-byte */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "\b", "\f", " ", ",", "[", "]", "<*>",
    };
    size_t want = rnd(4) == 0 ? rnd(3) : rnd(4) == 0 ? 20 + rnd(60) : rnd(20);
    int dirty = rnd(3) == 0; /* most fields are clean, as in real logs */
    size_t n = 0;
    while (n < want) {
        if (dirty && rnd(6) == 0) {
            const char *sp = special[rnd(sizeof special / sizeof special[0])];
            size_t k = strlen(sp);
            if (n + k > cap)
                break;
            memcpy(out + n, sp, k);
            n += k;
        } else {
            if (n + 1 > cap)
                break;
            out[n++] = (char)("abcdefghijklmnopqrstuvwxyz0123456789 .:-_=/"[rnd(43)]);
        }
    }
    return n;
}

/* Writes `rows` random rows through a memory sink of `kind` and compares each
 * row with the reference writer's. */
static void compare_kind(const char *kind, int rows, void (*ref)(text *, const logtk_row *))
{
    logtk_format *fmt = NULL;
    CHECK_STATUS(logtk_format_new(&fmt), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(fmt, "<Date> <Level> <Component>: <Content>"), LOGTK_OK);
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new_memory(&s, kind, fmt), LOGTK_OK);
    logtk_slice header;
    CHECK_STATUS(logtk_sink_memory_take(s, &header), LOGTK_OK);
    char bytes[16][128];
    int mismatches = 0;
    for (int r = 0; r < rows; r++) {
        logtk_record rec;
        memset(&rec, 0, sizeof rec);
        rec.nfields = rnd(8) == 0 ? rnd(NFIELDS) : NFIELDS; /* an unmatched line has fewer */
        for (size_t i = 0; i < NFIELDS; i++) {
            rec.fields[i].ptr = bytes[i];
            rec.fields[i].len = random_bytes(bytes[i], sizeof bytes[i]);
        }
        rec.content.ptr = bytes[3];
        rec.content.len = random_bytes(bytes[3], sizeof bytes[3]);
        logtk_slice params[8];
        logtk_row row;
        row.line_id = (uint64_t)r * 977 + 1;
        row.record = &rec;
        row.template_id = 1 + rnd(5000);
        row.template_text.ptr = bytes[4];
        row.template_text.len = random_bytes(bytes[4], sizeof bytes[4]);
        row.nparams = rnd(9);
        row.params = params;
        for (size_t i = 0; i < row.nparams; i++) {
            params[i].ptr = bytes[5 + i];
            params[i].len = random_bytes(bytes[5 + i], sizeof bytes[5 + i]);
        }
        CHECK_STATUS(logtk_sink_write(s, &row), LOGTK_OK);
        logtk_slice got;
        CHECK_STATUS(logtk_sink_memory_take(s, &got), LOGTK_OK);
        text want = {NULL, 0, 0};
        ref(&want, &row);
        if ((got.len != want.len || memcmp(got.ptr, want.data, want.len) != 0) &&
            mismatches++ < 3) {
            fprintf(stderr, "%s row %d:\n  got  %.*s  want %s", kind, r, (int)got.len, got.ptr,
                    want.data);
            CHECK(!"the row differs from the reference");
        }
        free(want.data);
    }
    CHECK(mismatches == 0);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    logtk_sink_free(s);
    logtk_format_free(fmt);
}

TEST(tsv_rows_equal_the_byte_at_a_time_definition)
{
    compare_kind("tsv", 20000, ref_tsv_row);
}

TEST(jsonl_rows_equal_the_byte_at_a_time_definition)
{
    compare_kind("jsonl", 20000, ref_jsonl_row);
}
