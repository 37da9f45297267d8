/*
 * sink_text.c - the text sink kinds: TSV, CSV (Loghub layout) and JSON Lines.
 *
 * Each row is assembled in the sink's reused buffer and written with one
 * fwrite (ltk_sink_emit_row), so nothing is allocated per line.  The
 * escapers copy runs of ordinary bytes with one memcpy and only stop at the
 * few bytes that need care, which for typical log text means almost never.
 *
 * Layouts (logtk-parse(1) documents them for users):
 *  - TSV: a header row, then LineId, header fields, Content, EventId,
 *    EventTemplate, ParameterList.  TAB, LF, CR and backslash are written as
 *    \t \n \r \\ so one row stays one line and `cut -f` works; every other
 *    byte passes unchanged.  ParameterList is a JSON array of strings (then
 *    TSV-escaped like every column), the one unambiguous list notation.
 *  - CSV: exactly Loghub's *_structured.csv, "LineId,<fields>,Content,EventId,
 *    EventTemplate", with RFC 4180 minimal quoting as pandas writes it (quote
 *    a field holding a comma, quote, CR or LF; double the quotes), LF line
 *    ends as in the Loghub 2k files, so Loghub's evaluators read it unchanged.
 *  - templates: only the template list, "EventId\tEventTemplate\tOccurrences
 *    \tEventKey" with TSV escaping; rows are ignored.  The same layout as
 *    `logtk parse --templates`.  EventKey is the template's content key
 *    (content_key.h: FNV-1a 64 of the text as given, 16 lowercase hex digits),
 *    computed here from the text alone, so it equals
 *    logtk_parser_template_key() without the sink needing the parser.  It is
 *    the last column so readers that take the first three by position still
 *    work.
 *  - JSON Lines: one object per row, the TSV columns as members.  JSON must be
 *    UTF-8, yet log lines may hold any bytes.  We keep the output valid JSON
 *    *and* lossless: a bad byte becomes U+FFFD in the string, and the member
 *    gets a twin "<Name>_base64" with the exact bytes.  Readers that only want
 *    text ignore the twins; readers that need the bytes have them, without a
 *    private escape convention (such as lone surrogates) that strict JSON
 *    parsers reject.
 */
#include "config.h"
#include "sink_impl.h"

#include <string.h>

#include "content_key.h"

#define TRY(expr)                       \
    do {                                \
        if ((expr) != 0)                \
            return ltk_sink_nomem(s); \
    } while (0)

/*
 * Word-at-a-time scanning (SWAR): the escapers skip eight ordinary bytes per
 * step and only look at single bytes in a word that holds a special one.  Log
 * text rarely needs escaping, so this is where the time goes otherwise.
 */
#define ONES ((uint64_t)0x0101010101010101ull)
#define HIGHS ((uint64_t)0x8080808080808080ull)
/* Nonzero when some byte of w is below n (n <= 128). */
#define HAS_LESS(w, n) (((w) - ONES * (n)) & ~(w) & HIGHS)
/* Nonzero when some byte of w equals c. */
#define HAS_BYTE(w, c) HAS_LESS((w) ^ (ONES * (c)), 1)

static uint64_t load_word(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/*
 * Sixteen bytes at a time where the machine has SSE2 (every x86-64): a
 * field's long runs (the content, the template) cost a third of the word
 * loop.  Each test is nonzero when some byte of p[0..16) needs care; the
 * fallback asks the word tests twice.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

static __m128i load16(const char *p) { return _mm_loadu_si128((const __m128i *)p); }

/* bytes <= 13 (TAB, LF, CR and the other low controls: as HAS_LESS(w, 14)) */
static __m128i at_most(__m128i x, char c) { return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(c)), x); }

static int tsv_special16(const char *p)
{
    __m128i x = load16(p);
    return _mm_movemask_epi8(_mm_or_si128(at_most(x, 13), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}

/* control bytes, quote, backslash; `strict` adds bytes >= 0x80 */
static int json_special16(const char *p, int strict)
{
    __m128i x = load16(p);
    __m128i m = _mm_or_si128(at_most(x, 0x1f), _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                                             _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
    return _mm_movemask_epi8(m) | (strict ? _mm_movemask_epi8(x) : 0);
}
#else
static int tsv_special16(const char *p)
{
    uint64_t a = load_word(p), b = load_word(p + 8);
    return (HAS_LESS(a, 14) | HAS_BYTE(a, '\\') | HAS_LESS(b, 14) | HAS_BYTE(b, '\\')) != 0;
}

static int json_special16(const char *p, int strict)
{
    uint64_t a = load_word(p), b = load_word(p + 8);
    uint64_t m = HAS_LESS(a, 0x20) | HAS_BYTE(a, '"') | HAS_BYTE(a, '\\') |
                 HAS_LESS(b, 0x20) | HAS_BYTE(b, '"') | HAS_BYTE(b, '\\');
    return (m | (strict ? (a | b) & HIGHS : 0)) != 0;
}
#endif

/* Index of the first byte in [i, n) that may need CSV quoting (',', '"', CR, LF). */
static size_t csv_skip(const char *p, size_t i, size_t n)
{
    while (i + 8 <= n) {
        uint64_t w = load_word(p + i);
        if (HAS_LESS(w, 14) | HAS_BYTE(w, ',') | HAS_BYTE(w, '"'))
            break;
        i += 8;
    }
    return i;
}

/* Writes v in decimal at o; returns the new end. */
static char *put_u64(char *o, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(o, digits + sizeof digits - n, n);
    return o + n;
}

/* Appends v in decimal, without printf. */
static int append_u64(ltk_strbuf *b, uint64_t v)
{
    char digits[20];
    size_t n = (size_t)(put_u64(digits, v) - digits);
    return ltk_strbuf_append(b, digits, n);
}

static logtk_slice field_value(const logtk_sink *s, const logtk_row *row, size_t i)
{
    logtk_slice empty = {"", 0};
    if (row->record == NULL || i >= row->record->nfields || i >= s->nfields)
        return empty;
    return row->record->fields[i];
}

static logtk_slice content_value(const logtk_row *row)
{
    logtk_slice empty = {"", 0};
    return row->record ? row->record->content : empty;
}

/* ------------------------------------------------------------------- TSV */

/* Bytes that need care in TSV: TAB, LF, CR (all below 14) and backslash. */
#define TSV_SPECIAL(w) (HAS_LESS(w, 14) | HAS_BYTE(w, '\\'))

/* Writes p[0..n) TSV-escaped at o, a byte at a time; returns the new end. */
static char *tsv_put_bytes(char *o, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if ((unsigned char)c >= 14 && c != '\\') {
            *o++ = c;
            continue;
        }
        char esc = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\\' ? '\\' : 0;
        if (esc)
            *o++ = '\\';
        *o++ = esc ? esc : c;
    }
    return o;
}

/*
 * Writes p[0..n) TSV-escaped at o, which has room for 2n bytes; returns the
 * new end.  Sixteen clean bytes are copied at once.  A field's last 1-15
 * bytes are tested as the field's last whole block, which overlaps bytes
 * already written: when that block is clean, those overlapping bytes were
 * clean too and so were written as themselves, ending the output, and the
 * block can be stored again over them (no byte-sized loop and no
 * variable-length memcpy, which used to be a third of the time).  A short
 * field is its first and its last 8 (or 4) bytes, overlapping, the same way.
 */
static char *tsv_put(char *o, const char *p, size_t n)
{
    if (n >= 16) {
        size_t i = 0;
        for (; n - i >= 16; i += 16) {
            if (tsv_special16(p + i)) {
                o = tsv_put_bytes(o, p + i, 16);
            } else {
                memcpy(o, p + i, 16);
                o += 16;
            }
        }
        size_t rest = n - i;
        if (rest == 0)
            return o;
        if (!tsv_special16(p + n - 16)) {
            memcpy(o - (16 - rest), p + n - 16, 16);
            return o + rest;
        }
        return tsv_put_bytes(o, p + i, rest);
    }
    if (n >= 8) {
        uint64_t first = load_word(p), last = load_word(p + n - 8);
        if (!(TSV_SPECIAL(first) | TSV_SPECIAL(last))) {
            memcpy(o, &first, 8);
            memcpy(o + n - 8, &last, 8);
            return o + n;
        }
    } else if (n >= 4) {
        uint32_t first, last;
        memcpy(&first, p, 4);
        memcpy(&last, p + n - 4, 4);
        uint64_t both = (uint64_t)first << 32 | last;
        if (!TSV_SPECIAL(both)) {
            memcpy(o, &first, 4);
            memcpy(o + n - 4, &last, 4);
            return o + n;
        }
    }
    return tsv_put_bytes(o, p, n);
}

/* Appends bytes with TAB, LF, CR and backslash escaped. */
static int tsv_escape(ltk_strbuf *b, const char *p, size_t n)
{
    /* Worst case every byte doubles: reserve once, then write in place. */
    if (n > SIZE_MAX / 2 - 8 || ltk_strbuf_reserve(b, 2 * n) != 0)
        return -1;
    char *o = tsv_put(b->data + b->len, p, n);
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return 0;
}

/*
 * The JSON escape of c (a control byte, '"' or '\\'): "\\n", "\\u001f"...;
 * in_tsv writes it TSV-escaped in turn, each of its backslashes doubled.
 */
static inline char *json_escape(char *o, unsigned char c, int in_tsv)
{
    static const char hex[] = "0123456789abcdef";
    *o++ = '\\';
    if (in_tsv)
        *o++ = '\\';
    switch (c) {
    case '"': *o++ = '"'; break;
    case '\\':
        *o++ = '\\';
        if (in_tsv)
            *o++ = '\\';
        break;
    case '\n': *o++ = 'n'; break;
    case '\r': *o++ = 'r'; break;
    case '\t': *o++ = 't'; break;
    case '\b': *o++ = 'b'; break;
    case '\f': *o++ = 'f'; break;
    default:
        memcpy(o, "u00", 3);
        o[3] = hex[c >> 4];
        o[4] = hex[c & 15];
        o += 5;
    }
    return o;
}

/* Bytes a parameter may not hold as is in the TSV ParameterList's JSON:
 * control bytes, the quote and the backslash. */
#define JSON_SPECIAL(w) (HAS_LESS(w, 0x20) | HAS_BYTE(w, '"') | HAS_BYTE(w, '\\'))

/* tsv_json_put's byte at a time: a JSON escape is TSV-escaped in turn, which
 * doubles its backslash (and a backslash it escapes). */
static char *tsv_json_put_bytes(char *o, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\') { /* bytes >= 0x80 too: kept raw */
            *o++ = (char)c;
            continue;
        }
        o = json_escape(o, (unsigned char)c, 1);
    }
    return o;
}

/*
 * Writes one ParameterList element at o: the JSON string of p[0..n) (not
 * strict: raw bytes pass, like every TSV column), then TSV-escaped, in one
 * step instead of building the JSON and escaping it again.  Room needed:
 * 7n + 2 (a control byte is "\\u00XX").  Returns the new end.  The tail is
 * handled as in tsv_put: clean JSON bytes are written as themselves.
 */
static char *tsv_json_put(char *o, const char *p, size_t n)
{
    *o++ = '"';
    size_t i = 0;
    for (; n - i >= 16 && !json_special16(p + i, 0); i += 16) {
        memcpy(o, p + i, 16);
        o += 16;
    }
    for (; n - i >= 8; i += 8) {
        uint64_t w = load_word(p + i);
        if (JSON_SPECIAL(w)) {
            o = tsv_json_put_bytes(o, p + i, 8);
        } else {
            memcpy(o, &w, 8);
            o += 8;
        }
    }
    size_t rest = n - i;
    if (rest && n >= 8 && !JSON_SPECIAL(load_word(p + n - 8))) {
        uint64_t w = load_word(p + n - 8);
        memcpy(o - (8 - rest), &w, 8);
        o += rest;
    } else {
        o = tsv_json_put_bytes(o, p + i, rest);
    }
    *o++ = '"';
    return o;
}


/* Adds n * factor (factor <= 7) to *total; -1 when the sum would pass half
 * of SIZE_MAX (it cannot wrap: each step adds less than that half). */
static int add_room(size_t *total, size_t n, size_t factor)
{
    if (n > SIZE_MAX / 16)
        return -1;
    *total += n * factor;
    return *total > SIZE_MAX / 2 ? -1 : 0;
}

/*
 * Writes a JSON string (with quotes) at o, which has room for 6n + 2 bytes,
 * and returns the new end (json_string appends one).  Control bytes are
 * escaped.  When `strict`, bytes that are not well-formed UTF-8 become U+FFFD
 * and *lossy is set; otherwise they pass unchanged (tsv_json_put is the TSV
 * ParameterList's non-strict twin: raw bytes, like every other TSV column).
 */
static char *json_put(char *o, const char *s, size_t n, int strict, int *lossy)
{
    const unsigned char *p = (const unsigned char *)s;
    *o++ = '"';
    size_t i = 0;
    while (i < n) {
        if (n - i >= 16 && !json_special16(s + i, 1)) {
            memcpy(o, s + i, 16);
            o += 16;
            i += 16;
            continue;
        }
        if (n - i >= 8) {
            uint64_t w = load_word(s + i);
            if (!(JSON_SPECIAL(w) | (w & HIGHS))) {
                memcpy(o, &w, 8);
                o += 8;
                i += 8;
                continue;
            }
        } else if (n >= 8) {
            /* the last 1-7 bytes: as in tsv_put, the string's last whole
             * word, when it is clean ASCII, overlaps bytes written as
             * themselves (no UTF-8 sequence reaches into an ASCII word) */
            uint64_t w = load_word(s + n - 8);
            if (!(JSON_SPECIAL(w) | (w & HIGHS))) {
                memcpy(o - (8 - (n - i)), &w, 8);
                o += n - i;
                break;
            }
        }
        unsigned c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            *o++ = (char)c;
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = ltk_utf8_sequence_length(p + i, p + n);
            if (k == 0 && !strict)
                k = 1; /* raw byte kept as is */
            if (k != 0) {
                memcpy(o, p + i, k);
                o += k;
                i += k;
                continue;
            }
            memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD for a byte that starts no valid sequence */
            o += 3;
            i++;
            if (lossy)
                *lossy = 1;
            continue;
        }
        o = json_escape(o, (unsigned char)c, 0);
        i++;
    }
    *o++ = '"';
    return o;
}

static int json_string(ltk_strbuf *b, const char *s, size_t n, int strict, int *lossy)
{
    /* Worst case a byte becomes six ("\u00XX"): reserve once, write in place. */
    if (n > (SIZE_MAX - 8) / 6 || ltk_strbuf_reserve(b, 6 * n + 2) != 0)
        return -1;
    char *o = json_put(b->data + b->len, s, n, strict, lossy);
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return 0;
}

static int put_tab(ltk_strbuf *b) { return ltk_strbuf_putc(b, '\t'); }

/* The tsv sink's escaping for programs writing their own TSV. */
int logtk_tsv_write_field(FILE *fp, const char *s, size_t n)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    int rc = tsv_escape(&b, s, n) != 0 ? LOGTK_ERR_NOMEM : LOGTK_OK;
    if (rc == LOGTK_OK && b.len && fwrite(b.data, 1, b.len, fp) != b.len)
        rc = LOGTK_ERR_IO;
    ltk_strbuf_free(&b);
    return rc;
}

/* The jsonl sink's member convention for programs writing their own JSON. */
int logtk_json_write_member(FILE *fp, const char *name, const char *s, size_t n)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    int lossy = 0, rc = LOGTK_OK;
    size_t name_len = strlen(name);
    if (json_string(&b, name, name_len, 1, NULL) != 0 || ltk_strbuf_putc(&b, ':') != 0 ||
        json_string(&b, s, n, 1, &lossy) != 0)
        rc = LOGTK_ERR_NOMEM;
    if (rc == LOGTK_OK && lossy) {
        /* the exact bytes beside the U+FFFD text: ,"NAME_base64":"..." */
        if (ltk_strbuf_putc(&b, ',') != 0 || ltk_strbuf_putc(&b, '"') != 0 ||
            ltk_strbuf_append(&b, name, name_len) != 0 ||
            ltk_strbuf_puts(&b, "_base64\":\"") != 0 || ltk_base64_append(&b, s, n) != 0 ||
            ltk_strbuf_putc(&b, '"') != 0)
            rc = LOGTK_ERR_NOMEM;
    }
    if (rc == LOGTK_OK && b.len && fwrite(b.data, 1, b.len, fp) != b.len)
        rc = LOGTK_ERR_IO;
    ltk_strbuf_free(&b);
    return rc;
}

/* A bare JSON string, for callers framing their own arrays (mmexternal replies). */
int logtk_json_write_string(FILE *fp, const char *s, size_t n)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    int rc = json_string(&b, s, n, 1, NULL) != 0 ? LOGTK_ERR_NOMEM : LOGTK_OK;
    if (rc == LOGTK_OK && fwrite(b.data, 1, b.len, fp) != b.len)
        rc = LOGTK_ERR_IO;
    ltk_strbuf_free(&b);
    return rc;
}

static int tsv_begin(logtk_sink *s)
{
    ltk_strbuf *b = &s->row;
    TRY(ltk_strbuf_puts(b, "LineId"));
    for (size_t i = 0; i < s->nfields; i++) {
        TRY(put_tab(b));
        TRY(tsv_escape(b, s->field_names[i], strlen(s->field_names[i])));
    }
    TRY(ltk_strbuf_puts(b, "\tContent\tEventId\tEventTemplate\tParameterList\n"));
    return ltk_sink_emit_row(s);
}

/*
 * One row: its worst-case size is reserved once, then every column is written
 * in place (no call per column to grow the buffer; the row is most of the
 * output's cost after the parsing).
 */
static int tsv_write_row(logtk_sink *s, const logtk_row *row)
{
    ltk_strbuf *b = &s->row;
    logtk_slice c = content_value(row);
    /* LineId, EventId, their tabs and "E", "[]", the newline: 64; TSV doubles
     * a byte at most, a parameter's JSON+TSV takes 7 per byte and 3 more */
    size_t room = 64;
    int too_big = add_room(&room, c.len, 2) || add_room(&room, row->template_text.len, 2) ||
                  add_room(&room, s->nfields, 1) || add_room(&room, row->nparams, 3);
    for (size_t i = 0; i < s->nfields && !too_big; i++)
        too_big = add_room(&room, field_value(s, row, i).len, 2);
    for (size_t i = 0; i < row->nparams && !too_big; i++)
        too_big = add_room(&room, row->params[i].len, 7);
    if (too_big || ltk_strbuf_reserve(b, room) != 0)
        return ltk_sink_nomem(s);
    char *o = put_u64(b->data + b->len, row->line_id);
    for (size_t i = 0; i < s->nfields; i++) {
        logtk_slice v = field_value(s, row, i);
        *o++ = '\t';
        o = tsv_put(o, v.ptr, v.len);
    }
    *o++ = '\t';
    o = tsv_put(o, c.ptr, c.len);
    *o++ = '\t';
    *o++ = 'E';
    o = put_u64(o, row->template_id);
    *o++ = '\t';
    o = tsv_put(o, row->template_text.ptr, row->template_text.len);
    *o++ = '\t';
    *o++ = '[';
    for (size_t i = 0; i < row->nparams; i++) {
        if (i)
            *o++ = ',';
        o = tsv_json_put(o, row->params[i].ptr, row->params[i].len);
    }
    *o++ = ']';
    *o++ = '\n';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return ltk_sink_emit_row(s);
}

const ltk_sink_ops ltk_sink_tsv_ops = {
    "tsv", 0, tsv_begin, tsv_write_row, NULL, NULL, NULL,
};

/* ------------------------------------------------------------------- CSV */

/* Appends one CSV field, quoted only when it holds a comma, quote, CR or LF. */
static int csv_field(ltk_strbuf *b, const char *p, size_t n)
{
    size_t i = csv_skip(p, 0, n);
    for (; i < n; i++)
        if (p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\r')
            break;
    if (i == n)
        return ltk_strbuf_append(b, p, n);
    if (ltk_strbuf_putc(b, '"') != 0)
        return -1;
    size_t run = 0;
    for (i = 0; i < n; i++) {
        if (p[i] != '"')
            continue;
        /* copy through the quote, then add its twin */
        if (ltk_strbuf_append(b, p + run, i + 1 - run) != 0 || ltk_strbuf_putc(b, '"') != 0)
            return -1;
        run = i + 1;
    }
    if (ltk_strbuf_append(b, p + run, n - run) != 0)
        return -1;
    return ltk_strbuf_putc(b, '"');
}

static int csv_begin(logtk_sink *s)
{
    ltk_strbuf *b = &s->row;
    TRY(ltk_strbuf_puts(b, "LineId"));
    for (size_t i = 0; i < s->nfields; i++) {
        TRY(ltk_strbuf_putc(b, ','));
        TRY(csv_field(b, s->field_names[i], strlen(s->field_names[i])));
    }
    TRY(ltk_strbuf_puts(b, ",Content,EventId,EventTemplate\n"));
    return ltk_sink_emit_row(s);
}

static int csv_write_row(logtk_sink *s, const logtk_row *row)
{
    ltk_strbuf *b = &s->row;
    TRY(append_u64(b, row->line_id));
    for (size_t i = 0; i < s->nfields; i++) {
        logtk_slice v = field_value(s, row, i);
        TRY(ltk_strbuf_putc(b, ','));
        TRY(csv_field(b, v.ptr, v.len));
    }
    logtk_slice c = content_value(row);
    TRY(ltk_strbuf_putc(b, ','));
    TRY(csv_field(b, c.ptr, c.len));
    TRY(ltk_strbuf_append(b, ",E", 2));
    TRY(append_u64(b, row->template_id));
    TRY(ltk_strbuf_putc(b, ','));
    TRY(csv_field(b, row->template_text.ptr, row->template_text.len));
    TRY(ltk_strbuf_putc(b, '\n'));
    return ltk_sink_emit_row(s);
}

const ltk_sink_ops ltk_sink_csv_ops = {
    "csv", 0, csv_begin, csv_write_row, NULL, NULL, NULL,
};

/* ---------------------------------------------------------------- JSONL */

/* Which string members of the current row were not UTF-8 (their base64 twins follow). */
typedef struct jsonl_lossy {
    size_t count;
    const char *names[LOGTK_MAX_FIELDS + 2];
    logtk_slice values[LOGTK_MAX_FIELDS + 2];
} jsonl_lossy;

/*
 * The member prefixes ",\"<name>\":" of the header fields, encoded once in
 * begin (s->impl points to them, in the sink's arena) so rows only copy them.
 */
typedef struct jsonl_state {
    logtk_slice *prefix; /* nfields */
} jsonl_state;

/* Writes the member prefix and the JSON string of v at o; notes v when it was not UTF-8. */
static char *jsonl_member(char *o, jsonl_lossy *lossy, const char *name, logtk_slice prefix,
                          logtk_slice v)
{
    int bad = 0;
    memcpy(o, prefix.ptr, prefix.len);
    o = json_put(o + prefix.len, v.ptr, v.len, 1, &bad);
    if (bad && lossy->count < sizeof lossy->names / sizeof lossy->names[0]) {
        lossy->names[lossy->count] = name;
        lossy->values[lossy->count] = v;
        lossy->count++;
    }
    return o;
}

static int jsonl_begin(logtk_sink *s)
{
    /* JSON Lines has no header row; encode the field names once. */
    jsonl_state *st = ltk_arena_alloc(&s->arena, sizeof *st);
    if (st == NULL)
        return ltk_sink_nomem(s);
    st->prefix = ltk_arena_alloc(&s->arena, (s->nfields ? s->nfields : 1) * sizeof *st->prefix);
    if (st->prefix == NULL)
        return ltk_sink_nomem(s);
    for (size_t i = 0; i < s->nfields; i++) {
        ltk_strbuf *t = &s->scratch;
        ltk_strbuf_clear(t);
        TRY(ltk_strbuf_putc(t, ','));
        TRY(json_string(t, s->field_names[i], strlen(s->field_names[i]), 1, NULL));
        TRY(ltk_strbuf_putc(t, ':'));
        st->prefix[i].ptr = ltk_arena_strndup(&s->arena, t->data, t->len);
        st->prefix[i].len = t->len;
        if (st->prefix[i].ptr == NULL)
            return ltk_sink_nomem(s);
    }
    s->impl = st;
    return LOGTK_OK;
}

static void jsonl_release(logtk_sink *s)
{
    s->impl = NULL; /* the prefixes live in the sink's arena */
}

static logtk_slice lit(const char *text)
{
    logtk_slice x = {text, strlen(text)};
    return x;
}

#define CONTENT_PREFIX ",\"Content\":"
#define EVENT_ID_PREFIX ",\"EventId\":\"E"
#define TEMPLATE_PREFIX ",\"EventTemplate\":"
#define PARAMS_PREFIX ",\"ParameterList\":["

/*
 * One row: as tsv_write_row, its worst-case size (a byte may become six) is
 * reserved once and the members are written in place; the rare base64 twins
 * are appended after.
 */
static int jsonl_write_row(logtk_sink *s, const logtk_row *row)
{
    ltk_strbuf *b = &s->row;
    const jsonl_state *st = s->impl;
    jsonl_lossy lossy;
    lossy.count = 0;
    logtk_slice c = content_value(row);
    /* the fixed text and numbers: 160; the field prefixes; 6 per byte of a
     * string and 3 per parameter (quotes, comma) */
    size_t room = 160;
    int too_big = add_room(&room, c.len, 6) || add_room(&room, row->template_text.len, 6) ||
                  add_room(&room, row->nparams, 3);
    for (size_t i = 0; i < s->nfields && !too_big; i++)
        too_big = add_room(&room, field_value(s, row, i).len, 6) ||
                  add_room(&room, st->prefix[i].len + 2, 1);
    for (size_t i = 0; i < row->nparams && !too_big; i++)
        too_big = add_room(&room, row->params[i].len, 6);
    if (too_big || ltk_strbuf_reserve(b, room) != 0)
        return ltk_sink_nomem(s);
    char *o = b->data + b->len;
    memcpy(o, "{\"LineId\":", 10);
    o = put_u64(o + 10, row->line_id);
    for (size_t i = 0; i < s->nfields; i++)
        o = jsonl_member(o, &lossy, s->field_names[i], st->prefix[i], field_value(s, row, i));
    o = jsonl_member(o, &lossy, "Content", lit(CONTENT_PREFIX), c);
    memcpy(o, EVENT_ID_PREFIX, sizeof EVENT_ID_PREFIX - 1);
    o = put_u64(o + sizeof EVENT_ID_PREFIX - 1, row->template_id);
    *o++ = '"';
    o = jsonl_member(o, &lossy, "EventTemplate", lit(TEMPLATE_PREFIX), row->template_text);
    memcpy(o, PARAMS_PREFIX, sizeof PARAMS_PREFIX - 1);
    o += sizeof PARAMS_PREFIX - 1;
    int params_bad = 0;
    for (size_t i = 0; i < row->nparams; i++) {
        if (i)
            *o++ = ',';
        o = json_put(o, row->params[i].ptr, row->params[i].len, 1, &params_bad);
    }
    *o++ = ']';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    for (size_t k = 0; k < lossy.count; k++) {
        TRY(ltk_strbuf_putc(b, ','));
        ltk_strbuf_clear(&s->scratch);
        TRY(ltk_strbuf_puts(&s->scratch, lossy.names[k]));
        TRY(ltk_strbuf_puts(&s->scratch, "_base64"));
        TRY(json_string(b, s->scratch.data, s->scratch.len, 1, NULL));
        TRY(ltk_strbuf_puts(b, ":\""));
        TRY(ltk_base64_append(b, lossy.values[k].ptr, lossy.values[k].len));
        TRY(ltk_strbuf_putc(b, '"'));
    }
    if (params_bad) {
        TRY(ltk_strbuf_puts(b, ",\"ParameterList_base64\":["));
        for (size_t i = 0; i < row->nparams; i++) {
            TRY(ltk_strbuf_puts(b, i ? ",\"" : "\""));
            TRY(ltk_base64_append(b, row->params[i].ptr, row->params[i].len));
            TRY(ltk_strbuf_putc(b, '"'));
        }
        TRY(ltk_strbuf_putc(b, ']'));
    }
    TRY(ltk_strbuf_puts(b, "}\n"));
    return ltk_sink_emit_row(s);
}

const ltk_sink_ops ltk_sink_jsonl_ops = {
    "jsonl", 0, jsonl_begin, jsonl_write_row, NULL, NULL, jsonl_release,
};

/* ------------------------------------------------------------- templates */

static int templates_begin(logtk_sink *s)
{
    TRY(ltk_strbuf_puts(&s->row, "EventId\tEventTemplate\tOccurrences\tEventKey\n"));
    return ltk_sink_emit_row(s);
}

static int templates_write_row(logtk_sink *s, const logtk_row *row)
{
    (void)s;
    (void)row;
    return LOGTK_OK; /* the template list has no per-line rows */
}

static int templates_write_template(logtk_sink *s, uint32_t template_id, logtk_slice text,
                                    uint64_t count)
{
    ltk_strbuf *b = &s->row;
    char key[LTK_CONTENT_KEY_HEX_LEN + 1];
    ltk_content_key_hex(ltk_content_key(text.ptr, text.len), key);
    TRY(ltk_strbuf_putc(b, 'E'));
    TRY(append_u64(b, template_id));
    TRY(put_tab(b));
    TRY(tsv_escape(b, text.ptr, text.len));
    TRY(put_tab(b));
    TRY(append_u64(b, count));
    TRY(put_tab(b));
    TRY(ltk_strbuf_append(b, key, LTK_CONTENT_KEY_HEX_LEN));
    TRY(ltk_strbuf_putc(b, '\n'));
    return ltk_sink_emit_row(s);
}

const ltk_sink_ops ltk_sink_templates_ops = {
    "templates", 0, templates_begin, templates_write_row, templates_write_template, NULL, NULL,
};
