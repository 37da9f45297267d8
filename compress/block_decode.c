/*
 * block_decode.c - payload -> columns -> lines (the inverse of block_encode.c).
 *
 * Decoding runs in two steps so that search can stop in between:
 *  1. ltka_decode_columns(): decompress the seven streams, parse the template
 *     dictionary into "ops" (literal spans with escapes removed, and variable
 *     slots), and expand every numeric column (delta, leading zeros) and
 *     string column into flat arrays indexed by (template, position, rank of
 *     the line among the lines of its template).
 *  2. ltka_decoder_line(): rebuild one line by walking its template's ops.
 * Every count, length and index read from the payload is checked against the
 * header's line and byte counts before use, so arbitrary bytes can only give
 * LOGTK_ERR_ARCHIVE, never a read outside the payload or unbounded memory.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "archive_format.h"

typedef struct tmpl_op {
    uint8_t kind;  /* 0 literal, else a marker */
    uint32_t slot; /* variables: index among numbers or among strings */
    uint32_t off;  /* literal: offset in d->lits */
    uint32_t len;
} tmpl_op;

typedef struct tmpl_info {
    const uint8_t *bytes; /* escaped template bytes, inside the templates stream */
    uint32_t len;
    uint32_t first_op, nops;
    uint32_t nnum, nstr;
    uint32_t count;     /* lines of this template */
    uint32_t max_fixed; /* longest text of its literals and numbers */
    size_t num_base;    /* first value of its first numeric column */
    size_t str_base;
} tmpl_info;

struct ltka_decoder {
    ZSTD_DCtx *dctx;
    logtk_strbuf streams[LTKA_NSTREAMS];
    uint64_t stored[LTKA_NSTREAMS];
    uint64_t raw_len[LTKA_NSTREAMS];
    const uint8_t *src[LTKA_NSTREAMS]; /* stream bytes inside the payload */
    uint32_t nlines, ntemplates;
    uint32_t nparts; /* units per line: header parts + the rest */
    uint32_t expect_bytes;
    tmpl_info *tmpls;
    size_t tmpls_cap;
    tmpl_op *ops;
    size_t ops_cap, nops;
    logtk_strbuf lits;
    uint32_t *line_tid, *line_rank; /* per unit: line * nparts + part */
    uint8_t *line_eol;
    size_t lines_cap;
    uint64_t *nums;
    uint8_t *pads;
    size_t nums_cap;
    const uint8_t **strp;
    uint32_t *strl;
    size_t strs_cap;
};

ltka_decoder *ltka_decoder_new(void)
{
    ltka_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->dctx = ZSTD_createDCtx();
    if (!d->dctx) {
        free(d);
        return NULL;
    }
    return d;
}

void ltka_decoder_free(ltka_decoder *d)
{
    if (!d)
        return;
    ZSTD_freeDCtx(d->dctx);
    for (int i = 0; i < LTKA_NSTREAMS; i++)
        logtk_strbuf_free(&d->streams[i]);
    logtk_strbuf_free(&d->lits);
    free(d->tmpls);
    free(d->ops);
    free(d->line_tid);
    free(d->line_rank);
    free(d->line_eol);
    free(d->nums);
    free(d->pads);
    free(d->strp);
    free(d->strl);
    free(d);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* LEB128 varint, inlined for the column loops; -1 on truncation or overflow. */
static inline int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    return logtk_varint_get(pp, end, v);
}

#define BAD(...) logtk_error_set(err, LOGTK_ERR_ARCHIVE, __VA_ARGS__)

/* Reads and checks the stream headers; streams are decompressed on demand. */
static int read_stream_headers(ltka_decoder *d, const uint8_t *p, const uint8_t *end,
                               logtk_errbuf *err)
{
    /* No stream is larger than this for a block of expect_bytes raw bytes. */
    uint64_t limit = (uint64_t)d->expect_bytes * 2 + (uint64_t)d->nlines * 16 + 64;
    for (int i = 0; i < LTKA_NSTREAMS; i++) {
        uint64_t raw_len, stored_len;
        if (logtk_varint_get(&p, end, &raw_len) != 0 || logtk_varint_get(&p, end, &stored_len) != 0)
            return BAD("truncated stream header");
        if (raw_len > limit || stored_len > (uint64_t)(end - p))
            return BAD("stream %s: bad length", ltka_stream_name(i));
        d->src[i] = p;
        d->stored[i] = stored_len;
        d->raw_len[i] = raw_len;
        logtk_strbuf_clear(&d->streams[i]);
        p += stored_len;
    }
    if (p != end)
        return BAD("trailing bytes after the last stream");
    return LOGTK_OK;
}

static int read_stream(ltka_decoder *d, int i, logtk_errbuf *err)
{
    logtk_strbuf *st = &d->streams[i];
    size_t raw_len = (size_t)d->raw_len[i], stored_len = (size_t)d->stored[i];
    logtk_strbuf_clear(st);
    if (logtk_strbuf_reserve(st, raw_len) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (stored_len == raw_len) {
        memcpy(st->data, d->src[i], raw_len);
    } else {
        size_t r = ZSTD_decompressDCtx(d->dctx, st->data, raw_len, d->src[i], stored_len);
        if (ZSTD_isError(r) || r != raw_len)
            return BAD("stream %s: zstd: %s", ltka_stream_name(i),
                       ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
    }
    st->len = raw_len;
    st->data[st->len] = '\0';
    return LOGTK_OK;
}

static int parse_templates(ltka_decoder *d, logtk_errbuf *err)
{
    const uint8_t *p = (const uint8_t *)d->streams[LTKA_S_TEMPLATES].data;
    const uint8_t *end = p + d->streams[LTKA_S_TEMPLATES].len;
    uint64_t n;
    if (logtk_varint_get(&p, end, &n) != 0 || n > (uint64_t)d->nlines * d->nparts)
        return BAD("bad template count");
    d->ntemplates = (uint32_t)n;
    if (grow((void **)&d->tmpls, &d->tmpls_cap, n + 1, sizeof *d->tmpls) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->nops = 0;
    logtk_strbuf_clear(&d->lits);
    for (uint32_t t = 0; t < n; t++) {
        uint64_t len;
        if (logtk_varint_get(&p, end, &len) != 0 || len > (uint64_t)(end - p))
            return BAD("template %u: bad length", t);
        tmpl_info *ti = &d->tmpls[t];
        memset(ti, 0, sizeof *ti);
        ti->bytes = p;
        ti->len = (uint32_t)len;
        ti->first_op = (uint32_t)d->nops;
        const uint8_t *q = p, *qe = p + len;
        p += len;
        int in_lit = 0;
        while (q < qe) {
            uint8_t c = *q++;
            if (c == LTKA_M_UNUM || c == LTKA_M_SNUM || c == LTKA_M_STR) {
                if (grow((void **)&d->ops, &d->ops_cap, d->nops + 1, sizeof *d->ops) != 0)
                    return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
                tmpl_op *op = &d->ops[d->nops++];
                op->kind = c;
                op->slot = c == LTKA_M_STR ? ti->nstr++ : ti->nnum++;
                op->off = op->len = 0;
                in_lit = 0;
                continue;
            }
            if (c == 4 || c == 1 || c == 2 || c == 3)
                return BAD("template %u: bad marker", t);
            if (c == LTKA_M_ESC) {
                if (q == qe || *q < 1 || *q > 5)
                    return BAD("template %u: bad escape", t);
                c = *q++;
            }
            if (!in_lit) {
                if (grow((void **)&d->ops, &d->ops_cap, d->nops + 1, sizeof *d->ops) != 0)
                    return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
                tmpl_op *op = &d->ops[d->nops++];
                op->kind = 0;
                op->slot = 0;
                op->off = (uint32_t)d->lits.len;
                op->len = 0;
                in_lit = 1;
            }
            if (logtk_strbuf_putc(&d->lits, (char)c) != 0)
                return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
            d->ops[d->nops - 1].len++;
        }
        ti->nops = (uint32_t)d->nops - ti->first_op;
        uint64_t mf = 0;
        for (uint32_t o = ti->first_op; o < d->nops; o++)
            mf += d->ops[o].kind == 0 ? d->ops[o].len : d->ops[o].kind == LTKA_M_STR ? 0 : 41;
        if (mf > UINT32_MAX - 64)
            return BAD("template %u: too long", t);
        ti->max_fixed = (uint32_t)mf;
    }
    if (p != end)
        return BAD("trailing bytes after the templates");
    return LOGTK_OK;
}

static int parse_lines(ltka_decoder *d, logtk_errbuf *err)
{
    size_t nunits = (size_t)d->nlines * d->nparts;
    if (grow((void **)&d->line_tid, &d->lines_cap, nunits + 1, sizeof *d->line_tid) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *r = realloc(d->line_rank, d->lines_cap * sizeof *r);
    uint8_t *e = r ? realloc(d->line_eol, d->lines_cap) : NULL;
    if (r)
        d->line_rank = r;
    if (e)
        d->line_eol = e;
    if (!r || !e)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    const uint8_t *p = (const uint8_t *)d->streams[LTKA_S_TIDS].data;
    const uint8_t *end = p + d->streams[LTKA_S_TIDS].len;
    const uint8_t *eol = (const uint8_t *)d->streams[LTKA_S_EOLS].data;
    if (d->streams[LTKA_S_EOLS].len != d->nlines)
        return BAD("line-end column has %zu entries for %u lines", d->streams[LTKA_S_EOLS].len,
                   d->nlines);
    for (uint32_t i = 0; i < d->nlines; i++) {
        if (eol[i] > 2 || (eol[i] == 2 && i + 1 != d->nlines))
            return BAD("line %u: bad line end", i);
        d->line_eol[i] = eol[i];
    }
    /* part-major, as the encoder wrote them; ranks count units in that order */
    for (uint32_t part = 0; part < d->nparts; part++)
        for (uint32_t i = 0; i < d->nlines; i++) {
            uint64_t t;
            if (get_varint(&p, end, &t) != 0 || t >= d->ntemplates)
                return BAD("line %u: bad template index", i);
            size_t u = (size_t)i * d->nparts + part;
            d->line_tid[u] = (uint32_t)t;
            d->line_rank[u] = d->tmpls[t].count++;
        }
    if (p != end)
        return BAD("trailing bytes after the template column");
    return LOGTK_OK;
}

static inline uint64_t ndigits(uint64_t v)
{
    static const uint64_t pow10[19] = {10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                       10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                       100000000000ull, 1000000000000ull, 10000000000000ull,
                                       100000000000000ull, 1000000000000000ull,
                                       10000000000000000ull, 100000000000000000ull,
                                       1000000000000000000ull, 10000000000000000000ull};
    uint64_t n = 1;
    while (n <= 19 && v >= pow10[n - 1])
        n++;
    return n;
}

/* Skips n varints; -1 when the stream ends first. */
static int skip_varints(const uint8_t **pp, const uint8_t *end, uint64_t n)
{
    const uint8_t *p = *pp;
    while (n > 0) {
        if (p >= end)
            return -1;
        n -= (*p++ & 0x80) == 0;
    }
    *pp = p;
    return 0;
}

/*
 * Expands the numeric and string columns.  With want non-NULL, only the
 * columns of templates t with want[t] set are expanded; the others are
 * skipped over (search uses this to avoid the work for lines it will not
 * rebuild).
 */
static int parse_columns(ltka_decoder *d, const uint8_t *want, logtk_errbuf *err)
{
    size_t nnum = 0, nstr = 0;
    for (uint32_t t = 0; t < d->ntemplates; t++) {
        tmpl_info *ti = &d->tmpls[t];
        ti->num_base = nnum;
        ti->str_base = nstr;
        nnum += (size_t)ti->nnum * ti->count;
        nstr += (size_t)ti->nstr * ti->count;
        if (nnum > d->streams[LTKA_S_NUMS].len || nstr > d->streams[LTKA_S_STRS].len)
            return BAD("more variables than stored values");
    }
    if (grow((void **)&d->nums, &d->nums_cap, nnum + 1, sizeof *d->nums) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint8_t *pd = realloc(d->pads, d->nums_cap);
    if (!pd)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->pads = pd;
    if (grow((void **)&d->strp, &d->strs_cap, nstr + 1, sizeof *d->strp) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *sl = realloc(d->strl, d->strs_cap * sizeof *sl);
    if (!sl)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->strl = sl;

    const uint8_t *mp = (const uint8_t *)d->streams[LTKA_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTKA_S_NUMMETA].len;
    const uint8_t *np = (const uint8_t *)d->streams[LTKA_S_NUMS].data;
    const uint8_t *ne = np + d->streams[LTKA_S_NUMS].len;
    const uint8_t *pp = (const uint8_t *)d->streams[LTKA_S_PADS].data;
    const uint8_t *pe = pp + d->streams[LTKA_S_PADS].len;
    const uint8_t *sp = (const uint8_t *)d->streams[LTKA_S_STRS].data;
    const uint8_t *se = sp + d->streams[LTKA_S_STRS].len;
    for (uint32_t t = 0; t < d->ntemplates; t++) {
        tmpl_info *ti = &d->tmpls[t];
        uint32_t n = ti->count;
        int skip = want && !want[t];
        for (uint32_t o = 0; o < ti->nops; o++) {
            const tmpl_op *op = &d->ops[ti->first_op + o];
            if (op->kind == 0)
                continue;
            if (op->kind == LTKA_M_STR && skip) {
                for (uint32_t k = 0; k < n; k++) {
                    uint64_t l;
                    if (get_varint(&sp, se, &l) != 0 || l > (uint64_t)(se - sp))
                        return BAD("template %u: bad string variable", t);
                    sp += l;
                }
                continue;
            }
            if (op->kind == LTKA_M_STR) {
                size_t base = ti->str_base + (size_t)op->slot * n;
                for (uint32_t k = 0; k < n; k++) {
                    uint64_t l;
                    if (get_varint(&sp, se, &l) != 0 || l > (uint64_t)(se - sp))
                        return BAD("template %u: bad string variable", t);
                    d->strp[base + k] = sp;
                    d->strl[base + k] = (uint32_t)l;
                    sp += l;
                }
                continue;
            }
            if (mp >= me)
                return BAD("template %u: missing column coding", t);
            uint8_t meta = *mp++;
            int delta = meta & 1, pad_mode = meta >> 1;
            uint64_t arg = 0;
            if (pad_mode > 2 || (pad_mode < 2 && logtk_varint_get(&mp, me, &arg) != 0))
                return BAD("template %u: bad column coding", t);
            if (skip) {
                if (skip_varints(&np, ne, n) != 0)
                    return BAD("template %u: truncated numeric column", t);
                if (pad_mode == 2) {
                    if ((size_t)(pe - pp) < n)
                        return BAD("template %u: truncated zero-padding column", t);
                    pp += n;
                }
                continue;
            }
            size_t base = ti->num_base + (size_t)op->slot * n;
            uint64_t prev = 0;
            for (uint32_t k = 0; k < n; k++) {
                uint64_t v;
                if (get_varint(&np, ne, &v) != 0)
                    return BAD("template %u: truncated numeric column", t);
                if (delta) {
                    v = prev + ((v >> 1) ^ (uint64_t)(-(int64_t)(v & 1)));
                    prev = v;
                }
                d->nums[base + k] = v;
            }
            for (uint32_t k = 0; k < n; k++) {
                uint64_t pad;
                if (pad_mode == 0) {
                    pad = arg;
                } else if (pad_mode == 1) {
                    uint64_t width = arg >> 1, nd = ndigits(d->nums[base + k]);
                    if (width < nd)
                        return BAD("template %u: value wider than its column", t);
                    pad = (width - nd) << (op->kind == LTKA_M_SNUM) | (op->kind == LTKA_M_SNUM ? (arg & 1) : 0);
                } else {
                    if (pp >= pe)
                        return BAD("template %u: truncated zero-padding column", t);
                    pad = *pp++;
                }
                uint64_t zeros = op->kind == LTKA_M_SNUM ? pad >> 1 : pad;
                if (zeros > 19)
                    return BAD("template %u: bad zero padding", t);
                d->pads[base + k] = (uint8_t)pad;
            }
        }
    }
    if (mp != me || np != ne || pp != pe || sp != se)
        return BAD("column streams have unused bytes");
    return LOGTK_OK;
}

int ltka_decode_templates(ltka_decoder *d, const uint8_t *payload, size_t len,
                          uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err)
{
    const uint8_t *p = payload, *end = payload + len;
    uint64_t nlines;
    d->nlines = 0;
    d->ntemplates = 0;
    uint64_t nparts;
    if (logtk_varint_get(&p, end, &nlines) != 0 || nlines != expect_lines)
        return BAD("line count does not match the block header");
    if (logtk_varint_get(&p, end, &nparts) != 0 || nparts < 1 || nparts > LTKA_MAX_HEADER_PARTS + 1)
        return BAD("bad part count");
    d->nparts = (uint32_t)nparts;
    if (nlines > (uint64_t)expect_bytes + 1)
        return BAD("more lines than bytes");
    d->nlines = (uint32_t)nlines;
    d->expect_bytes = expect_bytes;
    int rc = read_stream_headers(d, p, end, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTKA_S_TEMPLATES, err);
    if (rc == LOGTK_OK)
        rc = parse_templates(d, err);
    if (rc != LOGTK_OK) {
        d->nlines = 0;
        d->ntemplates = 0;
    }
    return rc;
}

int ltka_decode_lines(ltka_decoder *d, logtk_errbuf *err)
{
    int rc = LOGTK_OK;
    for (int i = LTKA_S_TEMPLATES + 1; i < LTKA_NSTREAMS && rc == LOGTK_OK; i++)
        rc = read_stream(d, i, err);
    if (rc == LOGTK_OK)
        rc = parse_lines(d, err);
    if (rc != LOGTK_OK) {
        d->nlines = 0;
        d->ntemplates = 0;
    }
    return rc;
}

int ltka_decode_prepare(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err)
{
    int rc = ltka_decode_templates(d, payload, len, expect_lines, expect_bytes, err);
    return rc == LOGTK_OK ? ltka_decode_lines(d, err) : rc;
}

int ltka_decode_values(ltka_decoder *d, const uint8_t *want, logtk_errbuf *err)
{
    int rc = parse_columns(d, want, err);
    if (rc != LOGTK_OK) {
        d->nlines = 0;
        d->ntemplates = 0;
    }
    return rc;
}

int ltka_decode_columns(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err)
{
    int rc = ltka_decode_prepare(d, payload, len, expect_lines, expect_bytes, err);
    return rc == LOGTK_OK ? ltka_decode_values(d, NULL, err) : rc;
}

uint32_t ltka_decoder_template_count(const ltka_decoder *d)
{
    return d->ntemplates;
}

const uint8_t *ltka_decoder_template(const ltka_decoder *d, uint32_t t, size_t *len)
{
    *len = d->tmpls[t].len;
    return d->tmpls[t].bytes;
}

uint32_t ltka_decoder_part_count(const ltka_decoder *d)
{
    return d->nparts;
}

uint32_t ltka_decoder_line_template(const ltka_decoder *d, uint32_t i, uint32_t p)
{
    return d->line_tid[(size_t)i * d->nparts + p];
}

int ltka_decoder_line_eol(const ltka_decoder *d, uint32_t i)
{
    return d->line_eol[i];
}

uint32_t ltka_decoder_line_count(const ltka_decoder *d)
{
    return d->nlines;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v in decimal with `zeros` leading zeros at dst; returns bytes written. */
static inline size_t put_decimal(char *dst, uint64_t v, unsigned zeros)
{
    char tmp[24];
    char *e = tmp + sizeof tmp, *p = e;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    size_t n = (size_t)(e - p), w = zeros;
    memset(dst, '0', zeros);
    memcpy(dst + w, p, n);
    return w + n;
}

/*
 * Appends unit u (one part of a line) to out.  Room for the literals and the
 * numbers is reserved once per unit; only string variables check again.
 */
static int put_unit(ltka_decoder *d, size_t u, logtk_strbuf *out)
{
    const tmpl_info *ti = &d->tmpls[d->line_tid[u]];
    if (ti->nops == 0)
        return LOGTK_OK; /* empty part (d->ops may still be NULL) */
    uint32_t k = d->line_rank[u], n = ti->count;
    const tmpl_op *op = d->ops + ti->first_op, *ope = op + ti->nops;
    if (out->cap - out->len < (size_t)ti->max_fixed + 9 &&
        logtk_strbuf_reserve(out, (size_t)ti->max_fixed + 8) != 0)
        return LOGTK_ERR_NOMEM;
    char *dst = out->data + out->len;
    const char *lits = d->lits.data;
    for (; op < ope; op++) {
        if (op->kind == 0) {
            memcpy(dst, lits + op->off, op->len);
            dst += op->len;
        } else if (op->kind == LTKA_M_STR) {
            size_t x = ti->str_base + (size_t)op->slot * n + k;
            size_t sl = d->strl[x];
            out->len = (size_t)(dst - out->data);
            /* room for this string and everything fixed that may follow */
            if (logtk_strbuf_reserve(out, sl + (size_t)ti->max_fixed + 8) != 0)
                return LOGTK_ERR_NOMEM;
            dst = out->data + out->len;
            memcpy(dst, d->strp[x], sl);
            dst += sl;
        } else {
            size_t x = ti->num_base + (size_t)op->slot * n + k;
            unsigned pad = d->pads[x];
            if (op->kind == LTKA_M_SNUM) {
                if (pad & 1)
                    *dst++ = '-';
                pad >>= 1;
            }
            dst += put_decimal(dst, d->nums[x], pad);
        }
    }
    out->len = (size_t)(dst - out->data);
    return LOGTK_OK;
}

int ltka_decoder_line(ltka_decoder *d, uint32_t i, int with_eol, logtk_strbuf *out)
{
    for (uint32_t p = 0; p < d->nparts; p++)
        if (put_unit(d, (size_t)i * d->nparts + p, out) != LOGTK_OK)
            return LOGTK_ERR_NOMEM;
    if (with_eol && d->line_eol[i] != 2) {
        if (logtk_strbuf_reserve(out, 2) != 0)
            return LOGTK_ERR_NOMEM;
        if (d->line_eol[i] == 1)
            out->data[out->len++] = '\r';
        out->data[out->len++] = '\n';
    }
    if (out->cap)
        out->data[out->len] = '\0';
    return LOGTK_OK;
}

int ltka_decode_block(ltka_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, logtk_strbuf *text, ltka_stream_sizes *sizes,
                      logtk_errbuf *err)
{
    int rc = ltka_decode_columns(d, payload, len, expect_lines, expect_bytes, err);
    if (rc != LOGTK_OK)
        return rc;
    if (sizes)
        for (int i = 0; i < LTKA_NSTREAMS; i++) {
            sizes->raw[i] += d->streams[i].len;
            sizes->stored[i] += d->stored[i];
        }
    logtk_strbuf_clear(text);
    if (logtk_strbuf_reserve(text, (size_t)expect_bytes + 4096) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < d->nlines; i++) {
        if (ltka_decoder_line(d, i, 1, text) != LOGTK_OK)
            return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        if (text->len > expect_bytes)
            return BAD("block decodes to more bytes than its header says");
    }
    if (text->len != expect_bytes)
        return BAD("block decodes to %zu bytes, header says %u", text->len, expect_bytes);
    return LOGTK_OK;
}
