/*
 * block_decode.c - payload -> columns -> lines (the inverse of block_encode.c).
 *
 * Decoding runs in two steps so that search can stop in between:
 *  1. ltk_decode_columns(): decompress the seven streams, check the
 *     template dictionary (and turn templates into "ops": literal spans with
 *     escapes removed, and variable slots), and expand every numeric column
 *     (delta, leading zeros; an IP column may be stored as octet planes) and
 *     string column into flat arrays indexed by (template, position, rank of
 *     the line among the lines of its template).
 *  2. ltk_decoder_line(): rebuild one line by walking its template's ops;
 *     decimal numbers are written in place from their digit count (no copy,
 *     no library call), addresses and hex numbers by helpers of their own
 *     (scale-up log, 2M lines: decompress 7,494 -> 6,850 million
 *     instructions, with the IP and hex variables of format version 3).
 * Search stops in between: see block_query.c.
 * Zero padding of constant and fixed-width columns is applied when a line is
 * printed, not stored per value.
 * Every count, length and index read from the payload is checked against the
 * header's line and byte counts before use, so arbitrary bytes can only give
 * LOGTK_ERR_ARCHIVE, never a read outside the payload or unbounded memory.
 * Streams search does not read are not checked beyond their sizes: a block
 * damaged only there (behind a valid checksum) may still give matches that
 * a full decode would refuse.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "block_decode_impl.h"
#include "growarray.h"

ltk_decoder *ltk_decoder_new(void)
{
    /*
     * The zstd context (some 160 KB) is made when a stream first needs it:
     * stored streams and blocks never decoded need none (the archive fuzzer
     * made some 25 decoders per input, a fresh mapping each under
     * AddressSanitizer).
     */
    return calloc(1, sizeof(ltk_decoder));
}

/* The decoder's zstd context, made on first use; NULL when out of memory. */
static ZSTD_DCtx *dctx_of(ltk_decoder *d)
{
    if (!d->dctx)
        d->dctx = ZSTD_createDCtx();
    return d->dctx;
}

/* Frees every buffer of d but its zstd context. */
static void free_buffers(ltk_decoder *d)
{
    for (int i = 0; i < LTK_NSTREAMS; i++)
        ltk_strbuf_free(&d->streams[i]);
    ltk_strbuf_free(&d->lits);
    free(d->tmpls);
    free(d->ops);
    free(d->line_tid);
    free(d->line_rank);
    free(d->tcount);
    free(d->part_count);
    free(d->part_snap);
    free(d->sel);
    free(d->chunks);
    free(d->chunk_need);
    free(d->chunk_last);
    ZSTD_freeDStream(d->zchunk.zs);
    free(d->nums);
    free(d->pads);
    free(d->strp);
    free(d->strl);
    free(d->test_live);
    free(d->dict_ptr);
    free(d->dict_len);
}

void ltk_decoder_free(ltk_decoder *d)
{
    if (!d)
        return;
    free_buffers(d);
    ZSTD_freeDCtx(d->dctx);
    free(d);
}

void ltk_decoder_trim(ltk_decoder *d)
{
    if (!d)
        return;
    free_buffers(d);
    ZSTD_DCtx *dctx = d->dctx;
    memset(d, 0, sizeof *d);
    d->dctx = dctx;
}

/* Reads and checks the stream headers; streams are decompressed on demand. */
static int read_stream_headers(ltk_decoder *d, const uint8_t *p, const uint8_t *end,
                               ltk_errbuf *err)
{
    /* No stream is larger than this for a block of expect_bytes raw bytes. */
    uint64_t limit = (uint64_t)d->expect_bytes * 2 + (uint64_t)d->nlines * 16 + 64;
    for (int i = 0; i < LTK_NSTREAMS; i++) {
        uint64_t raw_len, stored_len;
        if (ltk_varint_get(&p, end, &raw_len) != 0 || ltk_varint_get(&p, end, &stored_len) != 0)
            return BAD("truncated stream header");
        if (raw_len > limit || stored_len > (uint64_t)(end - p))
            return BAD("stream %s: bad length", ltk_stream_name(i));
        d->src[i] = p;
        d->stored[i] = stored_len;
        d->raw_len[i] = raw_len;
        d->loaded[i] = 0;
        ltk_strbuf_clear(&d->streams[i]);
        d->zchunk.key = NULL; /* a new payload: nothing is half-read */
        p += stored_len;
    }
    if (p != end)
        return BAD("trailing bytes after the last stream");
    return LOGTK_OK;
}

static int read_stream(ltk_decoder *d, int i, ltk_errbuf *err)
{
    ltk_strbuf *st = &d->streams[i];
    size_t raw_len = (size_t)d->raw_len[i], stored_len = (size_t)d->stored[i];
    ltk_strbuf_clear(st);
    if (ltk_strbuf_reserve(st, raw_len) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (stored_len == raw_len) {
        memcpy(st->data, d->src[i], raw_len);
    } else {
        if (!dctx_of(d))
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        size_t r = ZSTD_decompressDCtx(d->dctx, st->data, raw_len, d->src[i], stored_len);
        if (ZSTD_isError(r) || r != raw_len)
            return BAD("stream %s: zstd: %s", ltk_stream_name(i),
                       ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
    }
    st->len = raw_len;
    st->data[st->len] = '\0';
    d->loaded[i] = 1;
    return LOGTK_OK;
}

/*
 * Makes at least want bytes (at most dst_len) of a stream available in dst,
 * *avail counting those already there.  A stream stored raw is copied; a
 * compressed one wanted (nearly) whole is decompressed in one call, and
 * otherwise streamed only as far as needed, so that search, which needs the
 * values of a few lines, does not pay for the bytes after them.  Whenever
 * the stream is complete its size is checked as ZSTD_decompressDCtx would.
 */
static int zprefix_get(ltk_decoder *d, zprefix *z, const void *key, const uint8_t *src,
                       size_t src_len, uint8_t *dst, size_t dst_len, size_t *avail, size_t want,
                       int stream, uint32_t chunk_no, ltk_errbuf *err)
{
#define ZBAD(why)                                                                                  \
    (chunk_no ? BAD("stream %s: chunk %u: zstd: %s", ltk_stream_name(stream), chunk_no, why)      \
              : BAD("stream %s: zstd: %s", ltk_stream_name(stream), why))
    if (want > dst_len)
        want = dst_len;
    if (*avail >= want)
        return LOGTK_OK;
    if (src_len == dst_len) {
        memcpy(dst + *avail, src + *avail, dst_len - *avail);
        *avail = dst_len;
        return LOGTK_OK;
    }
    if (z->key != key && want >= dst_len - dst_len / 4) {
        if (!dctx_of(d))
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        size_t r = ZSTD_decompressDCtx(d->dctx, dst, dst_len, src, src_len);
        if (ZSTD_isError(r) || r != dst_len)
            return ZBAD(ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
        *avail = dst_len;
        return LOGTK_OK;
    }
    if (z->key != key) {
        /* (re)start this stream from its first byte */
        if (!z->zs && !(z->zs = ZSTD_createDStream()))
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        if (ZSTD_isError(ZSTD_DCtx_reset(z->zs, ZSTD_reset_session_only)))
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "zstd: cannot reset a stream");
        z->key = key;
        z->in_pos = 0;
        *avail = 0;
    }
    /* ask for a little more than wanted: each call has a fixed cost */
    size_t goal = want - *avail < ((size_t)16 << 10) ? *avail + ((size_t)16 << 10) : want;
    if (goal > dst_len)
        goal = dst_len;
    for (;;) {
        ZSTD_outBuffer out = {dst, goal, *avail};
        ZSTD_inBuffer in = {src, src_len, z->in_pos};
        size_t r = ZSTD_decompressStream(z->zs, &out, &in);
        int stuck = out.pos == *avail && in.pos == z->in_pos;
        *avail = out.pos;
        z->in_pos = in.pos;
        if (ZSTD_isError(r) || (r == 0 && in.pos == src_len && out.pos < dst_len) ||
            (stuck && out.pos < goal)) {
            z->key = NULL;
            return ZBAD(ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
        }
        if (out.pos == dst_len) {
            /* complete: the frames must end here too (one more call reads a frame's epilogue) */
            if (r != 0) {
                ZSTD_outBuffer full = {dst, dst_len, dst_len};
                r = ZSTD_decompressStream(z->zs, &full, &in);
                z->in_pos = in.pos;
            }
            z->key = NULL;
            if (r != 0 || in.pos != src_len)
                return ZBAD(ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
            return LOGTK_OK;
        }
        if (out.pos >= want)
            return LOGTK_OK;
    }
#undef ZBAD
}

/* read_stream once per block: search loads the padding and string streams only when it needs them. */
static int ensure_stream(ltk_decoder *d, int i, ltk_errbuf *err)
{
    return d->loaded[i] ? LOGTK_OK : read_stream(d, i, err);
}

static int read_chunk_directory(ltk_decoder *d, ltk_errbuf *err);

/*
 * The streams every line needs: template ids, line ends, column codings and
 * the numbers' chunk directory.  Zero padding and strings are decompressed
 * by parse_columns, and only when a column it expands needs them.
 */
int ltk_decode_read_line_streams(ltk_decoder *d, ltk_errbuf *err)
{
    int rc = read_stream(d, LTK_S_TIDS, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTK_S_EOLS, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTK_S_NUMMETA, err);
    return rc == LOGTK_OK ? read_chunk_directory(d, err) : rc;
}

/*
 * Reads the directory of the chunked numbers stream (see LTK_S_NUMS) and
 * sizes the stream buffer; chunks are decompressed by load_chunks() only
 * when a column in them is needed.
 */
static int read_chunk_directory(ltk_decoder *d, ltk_errbuf *err)
{
    const uint8_t *p = d->src[LTK_S_NUMS], *end = p + d->stored[LTK_S_NUMS];
    if (d->stored[LTK_S_NUMS] != d->raw_len[LTK_S_NUMS])
        return BAD("stream numbers: not a chunk directory");
    uint64_t n;
    if (ltk_varint_get(&p, end, &n) != 0 || n > (uint64_t)(end - p) / 3 || n > d->ntemplates)
        return BAD("stream numbers: bad chunk count");
    if (ltk_array_reserve((void **)&d->chunks, &d->chunks_cap, n + 1, sizeof *d->chunks) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint64_t limit = (uint64_t)d->expect_bytes * 2 + (uint64_t)d->nlines * 16 + 64;
    uint64_t raw_total = 0, stored_total = 0, first = 0;
    for (uint64_t c = 0; c < n; c++) {
        uint64_t delta, raw, stored;
        if (ltk_varint_get(&p, end, &delta) != 0 || ltk_varint_get(&p, end, &raw) != 0 ||
            ltk_varint_get(&p, end, &stored) != 0)
            return BAD("stream numbers: truncated chunk directory");
        if ((c == 0) != (delta == 0) || delta > d->ntemplates - first || (c > 0 && first + delta >= d->ntemplates))
            return BAD("stream numbers: chunk %llu: bad first template", (unsigned long long)c + 1);
        first += delta;
        if (raw > limit - raw_total || stored > raw)
            return BAD("stream numbers: chunk %llu: bad size", (unsigned long long)c + 1);
        ltk_chunk *ch = &d->chunks[c];
        ch->first_template = (uint32_t)first;
        ch->raw_off = (size_t)raw_total;
        ch->raw_len = (size_t)raw;
        ch->stored_off = (size_t)stored_total;
        ch->stored_len = (size_t)stored;
        ch->avail = 0;
        raw_total += raw;
        stored_total += stored;
    }
    if (stored_total != (uint64_t)(end - p))
        return BAD("stream numbers: chunk sizes do not add up");
    for (uint64_t c = 0; c < n; c++)
        d->chunks[c].src = p + d->chunks[c].stored_off;
    d->nchunks = (uint32_t)n;
    ltk_strbuf *st = &d->streams[LTK_S_NUMS];
    ltk_strbuf_clear(st);
    if (ltk_strbuf_reserve(st, (size_t)raw_total) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    st->len = (size_t)raw_total;
    st->data[st->len] = '\0';
    return LOGTK_OK;
}

/* Makes at least want bytes of numbers chunk c available (see zprefix_get). */
int ltk_decode_chunk_prefix(ltk_decoder *d, uint32_t c, size_t want, ltk_errbuf *err)
{
    ltk_chunk *ch = &d->chunks[c];
    uint8_t *dst = (uint8_t *)d->streams[LTK_S_NUMS].data + ch->raw_off;
    return zprefix_get(d, &d->zchunk, ch, ch->src, ch->stored_len, dst, ch->raw_len, &ch->avail, want,
                       LTK_S_NUMS, c + 1, err);
}

/*
 * Checks every template and counts its variables; the ops that rebuild
 * lines are made by build_ops() for the templates whose lines are rebuilt
 * (search rebuilds a few lines of a few templates).
 */
static int parse_templates(ltk_decoder *d, ltk_errbuf *err)
{
    const uint8_t *p = (const uint8_t *)d->streams[LTK_S_TEMPLATES].data;
    const uint8_t *end = p + d->streams[LTK_S_TEMPLATES].len;
    uint64_t n;
    if (ltk_varint_get(&p, end, &n) != 0 || n > (uint64_t)d->nlines * d->nparts)
        return BAD("bad template count");
    d->ntemplates = (uint32_t)n;
    if (ltk_array_reserve((void **)&d->tmpls, &d->tmpls_cap, n + 1, sizeof *d->tmpls) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->nops = 0;
    ltk_strbuf_clear(&d->lits);
    /* a template has at most one op per byte and at most its bytes of literals */
    size_t tbytes = (size_t)(end - p);
    /* literals get 16 bytes of slack: put_unit copies short ones 16 bytes at a time */
    if (ltk_array_reserve((void **)&d->ops, &d->ops_cap, tbytes + 1, sizeof *d->ops) != 0 ||
        ltk_strbuf_reserve(&d->lits, tbytes + 17) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->lits.data[0] = '\0';
    for (uint32_t t = 0; t < n; t++) {
        uint64_t len;
        if (ltk_varint_get(&p, end, &len) != 0 || len > (uint64_t)(end - p))
            return BAD("template %u: bad length", t);
        tmpl_info *ti = &d->tmpls[t];
        memset(ti, 0, sizeof *ti);
        ti->bytes = p;
        ti->len = (uint32_t)len;
        const uint8_t *q = p, *qe = p + len;
        p += len;
        uint64_t markers = 0, escapes = 0;
        while (q < qe) {
            /* bytes above the markers, eight at a time while no byte of a word is below 8 */
            while (qe - q >= 8) {
                uint64_t w;
                memcpy(&w, q, 8);
                if ((w - 0x0808080808080808ull) & ~w & 0x8080808080808080ull)
                    break;
                q += 8;
            }
            while (q < qe && *q > LTK_M_LAST)
                q++;
            if (q == qe)
                break;
            uint8_t c = *q;
            if (ltk_is_var_marker(c)) {
                if (c == LTK_M_STR)
                    ti->nstr++;
                else
                    ti->nnum++;
                markers++;
                q++;
                continue;
            }
            if (c == 0) { /* a literal NUL */
                q++;
                continue;
            }
            if (c != LTK_M_ESC)
                return BAD("template %u: bad marker", t);
            if (q + 1 == qe || q[1] < 1 || q[1] > LTK_M_LAST)
                return BAD("template %u: bad escape", t);
            escapes++;
            q += 2;
        }
        /* longest text: the literal bytes, and up to 41 bytes a number */
        uint64_t mf = len - markers - escapes + (uint64_t)ti->nnum * 41;
        if (mf > UINT32_MAX - 64)
            return BAD("template %u: too long", t);
        ti->max_fixed = (uint32_t)mf;
    }
    if (p != end)
        return BAD("trailing bytes after the templates");
    return LOGTK_OK;
}

/*
 * Makes the ops of template t (once per block): literal runs with escapes
 * removed, and variable slots.  The template was checked by
 * parse_templates, and room for the ops and literals of every template was
 * reserved there.
 */
static void build_ops(ltk_decoder *d, uint32_t t)
{
    tmpl_info *ti = &d->tmpls[t];
    if (ti->built)
        return;
    ti->built = 1;
    ti->first_op = (uint32_t)d->nops;
    char *lits = d->lits.data;
    size_t nlits = d->lits.len;
    uint32_t nnum = 0, nstr = 0;
    const uint8_t *q = ti->bytes, *qe = q + ti->len;
    while (q < qe) {
        uint8_t c = *q;
        tmpl_op *op = &d->ops[d->nops++];
        op->pad_mode = op->pad_arg = 0;
        if (ltk_is_var_marker(c)) {
            op->kind = c;
            op->slot = c == LTK_M_STR ? nstr++ : nnum++;
            op->off = op->len = 0;
            q++;
            continue;
        }
        /* a literal run: bytes above the markers copy in bulk, escapes one by one */
        op->kind = 0;
        op->slot = 0;
        op->off = (uint32_t)nlits;
        while (q < qe) {
            const uint8_t *r = q;
            while (r < qe && *r > LTK_M_LAST)
                r++;
            memcpy(lits + nlits, q, (size_t)(r - q));
            nlits += (size_t)(r - q);
            q = r;
            if (q == qe || ltk_is_var_marker(*q))
                break;
            if (*q == 0) {
                lits[nlits++] = 0;
                q++;
                continue;
            }
            lits[nlits++] = (char)q[1]; /* an escape (checked) */
            q += 2;
        }
        op->len = (uint32_t)(nlits - op->off);
    }
    ti->nops = (uint32_t)d->nops - ti->first_op;
    d->lits.len = nlits;
    lits[nlits] = '\0';
}

/*
 * Reads the nl template ids of one part (fixed width, little-endian) into
 * tid and their ranks into rank: one pass, rank = count[t]++ with the count
 * of a run of one template kept in a register (header parts repeat one
 * template for most lines, and a load waiting on the previous line's store
 * would cost several cycles per line).  Returns nonzero when an id is out of
 * range (stored as 0).  With tmask, line_mask[i] |= tmask[t] as well (search
 * marks candidate lines in the same pass).  Inlined with a constant width,
 * so each width gets its own loop.
 */
static inline __attribute__((always_inline)) uint32_t
read_tids(const uint8_t *p, unsigned width, uint32_t nl, uint32_t nt, uint32_t *tid,
          uint32_t *rank, uint32_t *count, const uint8_t *tmask, uint8_t *line_mask)
{
    uint32_t bad = 0, run_t = 0, run_c = count[0];
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t t = width == 1   ? p[i]
                     : width == 2 ? (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8
                                  : ltk_le_get_u32(p + 4 * (size_t)i);
        if (t >= nt) {
            bad = 1;
            t = 0;
        }
        tid[i] = t;
        if (tmask)
            line_mask[i] |= tmask[t];
        if (t != run_t) {
            count[run_t] = run_c;
            run_t = t;
            run_c = count[t];
        }
        rank[i] = run_c++;
    }
    count[run_t] = run_c;
    return bad;
}

/*
 * Sizes the per-unit arrays, copies and checks the line ends, and finds the
 * template-id column of each part (part-major, as the encoder wrote them:
 * per part a width byte (1, 2 or 4), then one little-endian id per line).
 * The ids themselves are checked by whoever reads them.
 */
int ltk_decode_locate_line_columns(ltk_decoder *d, ltk_errbuf *err)
{
    size_t nunits = (size_t)d->nlines * d->nparts;
    if (ltk_array_reserve((void **)&d->line_tid, &d->lines_cap, nunits + 1, sizeof *d->line_tid) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *r = realloc(d->line_rank, d->lines_cap * sizeof *r);
    if (!r)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->line_rank = r;
    const uint8_t *p = (const uint8_t *)d->streams[LTK_S_TIDS].data;
    const uint8_t *end = p + d->streams[LTK_S_TIDS].len;
    const uint8_t *eol = (const uint8_t *)d->streams[LTK_S_EOLS].data;
    if (d->streams[LTK_S_EOLS].len != d->nlines)
        return BAD("line-end column has %zu entries for %u lines", d->streams[LTK_S_EOLS].len,
                   d->nlines);
    /* codes 0 and 1 OR together to at most 1; the last line may also have 2 */
    uint8_t any = 0;
    for (uint32_t i = 0; i + 1 < d->nlines; i++)
        any |= eol[i];
    if (any > 1 || (d->nlines > 0 && eol[d->nlines - 1] > 2))
        for (uint32_t i = 0; i < d->nlines; i++)
            if (eol[i] > 2 || (eol[i] == 2 && i + 1 != d->nlines))
                return BAD("line %u: bad line end", i);
    d->line_eol = eol;
    /* counts per template in a dense array (tmpl_info is large; the id loops are hot) */
    if (ltk_array_reserve((void **)&d->tcount, &d->tcount_cap, (size_t)d->ntemplates + 1, sizeof *d->tcount) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t nl = d->nlines;
    for (uint32_t part = 0; part < d->nparts; part++) {
        if (p >= end)
            return BAD("part %u: template column missing", part);
        unsigned width = *p++;
        if ((width != 1 && width != 2 && width != 4) || (size_t)(end - p) / width < nl)
            return BAD("part %u: bad template column", part);
        d->part_col[part] = p;
        d->part_width[part] = (uint8_t)width;
        p += (size_t)nl * width;
    }
    if (p != end)
        return BAD("trailing bytes after the template column");
    return LOGTK_OK;
}

int ltk_decode_parse_lines(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask, ltk_errbuf *err)
{
    int rc = ltk_decode_locate_line_columns(d, err);
    if (rc != LOGTK_OK)
        return rc;
    uint32_t *count = d->tcount, nt = d->ntemplates, np = d->nparts;
    memset(count, 0, ((size_t)nt + 1) * sizeof *count);
    /* ranks count units part-major, as the encoder wrote them */
    uint32_t nl = d->nlines;
    for (uint32_t part = 0; part < np; part++) {
        uint32_t *tid = d->line_tid + (size_t)part * nl;
        uint32_t *rank = d->line_rank + (size_t)part * nl;
        const uint8_t *p = d->part_col[part];
        unsigned width = d->part_width[part];
        uint32_t bad;
        if (tmask)
            bad = width == 1   ? read_tids(p, 1, nl, nt, tid, rank, count, tmask, line_mask)
                  : width == 2 ? read_tids(p, 2, nl, nt, tid, rank, count, tmask, line_mask)
                               : read_tids(p, 4, nl, nt, tid, rank, count, tmask, line_mask);
        else
            bad = width == 1   ? read_tids(p, 1, nl, nt, tid, rank, count, NULL, NULL)
                  : width == 2 ? read_tids(p, 2, nl, nt, tid, rank, count, NULL, NULL)
                               : read_tids(p, 4, nl, nt, tid, rank, count, NULL, NULL);
        if (bad)
            return BAD("part %u: bad template index", part);
    }
    for (uint32_t t = 0; t < nt; t++)
        d->tmpls[t].count = count[t];
    return LOGTK_OK;
}

/* A failed decode leaves the decoder empty, so no caller can read a half-decoded
   block; passes rc through. */
int ltk_decode_result(ltk_decoder *d, int rc)
{
    if (rc != LOGTK_OK) {
        d->nlines = 0;
        d->ntemplates = 0;
    }
    return rc;
}


/*
 * Reads the coding of a string column of n values (see put_string_column in
 * block_encode.c): *k receives the size of its dictionary (at most 65536),
 * or 0 for a plain column (always so below STRING_DICT_MIN values, which
 * store no coding).  *width receives the bytes of an index.  -1 when damaged.
 */
#define STRING_DICT_MIN 16u
static int string_column_coding(const uint8_t **sp, const uint8_t *se, uint32_t n, uint64_t *k,
                                unsigned *width)
{
    *k = 0;
    if (n >= STRING_DICT_MIN && (get_varint(sp, se, k) != 0 ||
                                 (*k != LTK_STRING_CODING_LINES && (*k > 65536 || *k > n))))
        return -1;
    *width = *k <= 256 ? 1 : 2;
    return 0;
}

/*
 * Reads `m` length-prefixed strings into ptr/len (NULL: skips them).  -1
 * when a length is bad or the stream ends first.
 */
static int read_strings(const uint8_t **sp, const uint8_t *se, uint64_t m, const uint8_t **ptr,
                        uint32_t *len)
{
    const uint8_t *p = *sp;
    for (uint64_t j = 0; j < m; j++) {
        uint64_t l;
        if (get_varint(&p, se, &l) != 0 || l > (uint64_t)(se - p))
            return -1;
        if (ptr) {
            ptr[j] = p;
            len[j] = (uint32_t)l;
        }
        p += l;
    }
    *sp = p;
    return 0;
}

/*
 * Reads `m` strings each ended by '\n' into ptr/len (NULL: skips them).  -1
 * when the stream ends first.
 */
static int read_lines(const uint8_t **sp, const uint8_t *se, uint64_t m, const uint8_t **ptr,
                      uint32_t *len)
{
    const uint8_t *p = *sp;
    for (uint64_t j = 0; j < m; j++) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(se - p));
        if (!nl)
            return -1;
        if (ptr) {
            ptr[j] = p;
            len[j] = (uint32_t)(nl - p);
        }
        p = nl + 1;
    }
    *sp = p;
    return 0;
}

/*
 * Reads (ptr non-NULL) or skips `ncols` string columns of n values each into
 * ptr[0..n) / len[0..n), pointing into the strings stream; dict_ptr /
 * dict_len: room for 65536 entries (for reading).  -1 when damaged (a bad
 * length or index, or the stream ends first).
 */
static int read_string_columns(const uint8_t **sp, const uint8_t *se, size_t ncols, uint32_t n,
                               const uint8_t **ptr, uint32_t *len, const uint8_t **dict_ptr,
                               uint32_t *dict_len)
{
    for (; ncols > 0 && n > 0; ncols--) {
        uint64_t k;
        unsigned width;
        if (string_column_coding(sp, se, n, &k, &width) != 0)
            return -1;
        if (k == 0 || k == LTK_STRING_CODING_LINES) {
            if ((k == 0 ? read_strings(sp, se, n, ptr, len) : read_lines(sp, se, n, ptr, len)) != 0)
                return -1;
            continue;
        }
        if (read_strings(sp, se, k, ptr ? dict_ptr : NULL, dict_len) != 0 ||
            (uint64_t)(se - *sp) < (uint64_t)n * width)
            return -1;
        const uint8_t *p = *sp;
        *sp += (size_t)n * width;
        if (!ptr)
            continue;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t id = p[0];
            if (width == 2)
                id |= (uint32_t)p[1] << 8;
            p += width;
            if (id >= k)
                return -1;
            ptr[v] = dict_ptr[id];
            len[v] = dict_len[id];
        }
    }
    return 0;
}


/*
 * Expands the numeric and string columns.  With want non-NULL, only the
 * columns of templates t with want[t] set are expanded; the others are
 * skipped over (search uses this to avoid the work for lines it will not
 * rebuild).
 */
static int parse_columns(ltk_decoder *d, const uint8_t *want, const uint64_t *sel, size_t nsel,
                         ltk_errbuf *err)
{
    size_t nnum = 0, nstr = 0;
    for (uint32_t t = 0; t < d->ntemplates; t++) {
        tmpl_info *ti = &d->tmpls[t];
        ti->num_base = nnum;
        ti->str_base = nstr;
        nnum += (size_t)ti->nnum * ti->count;
        nstr += (size_t)ti->nstr * ti->count;
        if (nnum > d->streams[LTK_S_NUMS].len || nstr > d->raw_len[LTK_S_STRS])
            return BAD("more variables than stored values");
    }
    if (ltk_array_reserve((void **)&d->nums, &d->nums_cap, nnum + 1, sizeof *d->nums) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint8_t *pd = realloc(d->pads, d->nums_cap);
    if (!pd)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->pads = pd;
    if (ltk_array_reserve((void **)&d->strp, &d->strs_cap, nstr + 1, sizeof *d->strp) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *sl = realloc(d->strl, d->strs_cap * sizeof *sl);
    if (!sl)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->strl = sl;

    const uint8_t *mp = (const uint8_t *)d->streams[LTK_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTK_S_NUMMETA].len;
    /* the chunks of the numbers stream that hold wanted columns, and their last wanted template */
    if (ltk_array_reserve((void **)&d->chunk_need, &d->chunk_need_cap, (size_t)d->nchunks + 1, 1) != 0 ||
        ltk_array_reserve((void **)&d->chunk_last, &d->chunk_last_cap, (size_t)d->nchunks + 1,
                            sizeof *d->chunk_last) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    memset(d->chunk_need, 0, (size_t)d->nchunks + 1);
    {
        /* chunk_need[c]: 1 parse up to its last wanted template, 2 that is its last template with numbers */
        uint32_t c = 0, last_num = 0;
        size_t sc2 = 0;
        for (uint32_t t = 0; t < d->ntemplates; t++) {
            while (c + 1 < d->nchunks && d->chunks[c + 1].first_template <= t) {
                if (d->chunk_need[c] && d->chunk_last[c] == last_num)
                    d->chunk_need[c] = 2;
                c++;
            }
            if (d->tmpls[t].nnum > 0)
                last_num = t;
            int wanted = 1;
            if (want)
                wanted = want[t];
            else if (sel) {
                while (sc2 < nsel && (sel[sc2] >> 32) < t)
                    sc2++;
                wanted = sc2 < nsel && (sel[sc2] >> 32) == t;
            }
            if (wanted && d->tmpls[t].nnum > 0 && c < d->nchunks) {
                d->chunk_need[c] = 1;
                d->chunk_last[c] = t;
            }
        }
        if (c < d->nchunks && d->chunk_need[c] && d->chunk_last[c] == last_num)
            d->chunk_need[c] = 2;
    }
    /*
     * A needed chunk is decompressed whole (a chunk is about one zstd block,
     * so a prefix would cost as much) and parsed from its start to the end
     * of its last wanted template; one parsed to its end must be used up
     * exactly.  (No chunks: an empty stream.)
     */
    int full = !want && !sel, rc;
    const uint8_t *nbase = (const uint8_t *)d->streams[LTK_S_NUMS].data;
    uint32_t chunk = 0;
    const uint8_t *np = nbase, *ne = nbase, *chunk_end = nbase;
    int chunk_parse = d->nchunks == 0; /* parse the numeric columns of the current template */
    if (d->nchunks > 0) {
        np = ne = nbase + d->chunks[0].raw_off;
        chunk_end = np + d->chunks[0].raw_len;
    }
    /*
     * Zero padding is read by offset and decompressed only as far as the
     * expanded columns reach.  Strings are walked from the start of their
     * stream, so it is decompressed up front when some expanded template
     * has a string column, and not at all otherwise (sparse search of lines
     * without strings).
     */
    int need_strs = sel == NULL;
    for (size_t c = 0; c < nsel && !need_strs; c++)
        need_strs = d->tmpls[sel[c] >> 32].nstr > 0;
    if (need_strs && (rc = ensure_stream(d, LTK_S_STRS, err)) != LOGTK_OK)
        return rc;
    const uint8_t *sp = need_strs ? (const uint8_t *)d->streams[LTK_S_STRS].data : NULL;
    const uint8_t *se = need_strs ? sp + d->streams[LTK_S_STRS].len : NULL;
    size_t sc = 0; /* cursor in sel */
    for (uint32_t t = 0; t < d->ntemplates; t++) {
        tmpl_info *ti = &d->tmpls[t];
        uint32_t n = ti->count;
        int skip = want && !want[t];
        while (chunk + 1 < d->nchunks && d->chunks[chunk + 1].first_template <= t) {
            /* a chunk ends: one parsed to its last template must be used up exactly */
            if ((d->chunk_need[chunk] == 2 || (full && !d->chunk_need[chunk])) && np != chunk_end)
                return BAD("numbers chunk %u has unused bytes", chunk + 1);
            chunk++;
            np = ne = nbase + d->chunks[chunk].raw_off;
            chunk_end = np + d->chunks[chunk].raw_len;
        }
        if (d->nchunks > 0) {
            chunk_parse = d->chunk_need[chunk] && t <= d->chunk_last[chunk];
            if (chunk_parse && ne != chunk_end) {
                ltk_chunk *ch = &d->chunks[chunk];
                if ((rc = ltk_decode_chunk_prefix(d, chunk, ch->raw_len, err)) != LOGTK_OK)
                    return rc;
                ne = chunk_end;
            }
        }
        /* sparse: only the ranks sel[s0..s1) of this template are wanted */
        size_t s0 = sc;
        while (sc < nsel && (sel[sc] >> 32) == t)
            sc++;
        size_t s1 = sc;
        if (sel && s0 == s1)
            skip = 1;
        if (skip) {
            /* columns of a template not wanted: skipped by count, strings and numbers in their own streams */
            if (need_strs && read_string_columns(&sp, se, ti->nstr, n, NULL, NULL, NULL, NULL) != 0)
                return BAD("template %u: bad string variable", t);
            for (uint32_t k = 0; k < ti->nnum; k++) {
                column_coding cc;
                if (read_column_coding(&mp, me, &cc) != 0)
                    return BAD("template %u: bad or missing column coding", t);
                const char *why = skip_number_column(&np, ne, chunk_parse, &cc, n);
                if (why)
                    return BAD("template %u: %s", t, why);
            }
            continue;
        }
        build_ops(d, t);
        for (uint32_t o = 0; o < ti->nops; o++) {
            tmpl_op *op = &d->ops[ti->first_op + o];
            if (op->kind == 0)
                continue;
            if (op->kind == LTK_M_STR && skip) {
                if (need_strs && read_string_columns(&sp, se, 1, n, NULL, NULL, NULL, NULL) != 0)
                    return BAD("template %u: bad string variable", t);
                continue;
            }
            if (op->kind == LTK_M_STR) {
                size_t base = ti->str_base + (size_t)op->slot * n;
                if (!d->dict_ptr || !d->dict_len) {
                    /* made once per decoder, when a block first has a string column */
                    free(d->dict_ptr);
                    free(d->dict_len);
                    d->dict_ptr = malloc(65536 * sizeof *d->dict_ptr);
                    d->dict_len = malloc(65536 * sizeof *d->dict_len);
                    if (!d->dict_ptr || !d->dict_len)
                        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
                }
                if (read_string_columns(&sp, se, 1, n, d->strp + base, d->strl + base, d->dict_ptr,
                                        d->dict_len) != 0)
                    return BAD("template %u: bad string variable", t);
                continue;
            }
            column_coding cc;
            if (read_column_coding(&mp, me, &cc) != 0)
                return BAD("template %u: bad or missing column coding", t);
            int delta = cc.delta, pad_mode = cc.pad_mode;
            uint64_t arg = cc.arg;
            if (cc.planes && op->kind != LTK_M_IP)
                return BAD("template %u: bad column coding", t);
            if (skip || !chunk_parse) {
                /* a chunk not parsed this far holds no wanted column here */
                const char *why = skip_number_column(&np, ne, chunk_parse, &cc, n);
                if (why)
                    return BAD("template %u: %s", t, why);
                continue;
            }
            int snum = op->kind == LTK_M_SNUM;
            int hex = op->kind == LTK_M_HEXL || op->kind == LTK_M_HEXU;
            /* fixed width: values stay below 10^width (16^width); an address below 2^32 */
            uint64_t limit = UINT64_MAX;
            if (pad_mode == 0 && (snum ? arg >> 1 : arg) > 19)
                return BAD("template %u: bad zero padding", t);
            if (pad_mode == 1) {
                uint64_t width = arg >> 1;
                if (width < 1 || width > 20 || (!snum && (arg & 1)))
                    return BAD("template %u: bad column width", t);
                limit = hex ? (width < 16 ? 1ull << (4 * width) : UINT64_MAX)
                            : (width < 20 ? pow10_table[width] : UINT64_MAX);
            }
            int ip = op->kind == LTK_M_IP; /* values checked by ltk_ip_value_ok instead of limit */
            if (ip && (pad_mode != 0 || arg != 0))
                return BAD("template %u: address column with zero padding", t);
            /* the pad of modes 0 and 1 is applied when a line is rebuilt */
            op->pad_mode = (uint8_t)pad_mode;
            op->pad_arg = (uint8_t)arg;
            size_t base = ti->num_base + (size_t)op->slot * n;
            uint64_t *vals = d->nums + base;
            uint64_t prev = 0;
            if (cc.planes) {
                /* addresses: fixed places, so a sparse read is direct */
                if ((size_t)(ne - np) / 4 < n)
                    return BAD("template %u: truncated numeric column", t);
                if (sel)
                    for (size_t c = s0; c < s1; c++)
                        vals[(uint32_t)sel[c]] = plane_value(np, n, (uint32_t)sel[c]);
                else
                    for (uint32_t k = 0; k < n; k++)
                        vals[k] = plane_value(np, n, k);
                np += 4 * (size_t)n;
                continue;
            }
            if (sel) {
                /*
                 * Sparse: a delta column is summed up to the last wanted
                 * rank; a plain one skips from wanted rank to wanted rank.
                 */
                uint32_t pos = 0;
                if (delta) {
                    /* every value is summed, only the wanted ones stored */
                    for (size_t c = s0; c < s1; c++) {
                        uint32_t r = (uint32_t)sel[c];
                        for (; pos <= r; pos++) {
                            uint64_t v;
                            if (get_varint(&np, ne, &v) != 0)
                                return BAD("template %u: truncated numeric column", t);
                            prev += (v >> 1) ^ (uint64_t)(-(int64_t)(v & 1));
                        }
                        vals[r] = prev;
                    }
                } else {
                    for (size_t c = s0; c < s1; c++) {
                        uint32_t r = (uint32_t)sel[c];
                        uint64_t v;
                        if (skip_varints(&np, ne, r - pos) != 0 || get_varint(&np, ne, &v) != 0)
                            return BAD("template %u: truncated numeric column", t);
                        vals[r] = v;
                        pos = r + 1;
                    }
                }
                if (skip_varints(&np, ne, n - pos) != 0)
                    return BAD("template %u: truncated numeric column", t);
                const uint8_t *pp = np; /* explicit zero padding follows the values */
                if (pad_mode == 2) {
                    if ((size_t)(ne - np) < n)
                        return BAD("template %u: truncated zero-padding column", t);
                    np += n;
                }
                for (size_t c = s0; c < s1; c++) {
                    uint32_t r = (uint32_t)sel[c];
                    if (vals[r] >= limit || (ip && !ltk_ip_value_ok(vals[r])))
                        return BAD("template %u: value wider than its column", t);
                    if (pad_mode == 2) {
                        if ((snum ? pp[r] >> 1 : pp[r]) > 19)
                            return BAD("template %u: bad zero padding", t);
                        d->pads[base + r] = pp[r];
                    }
                }
                continue;
            }
            for (uint32_t k = 0; k < n; k++) {
                uint64_t v;
                if (get_varint(&np, ne, &v) != 0)
                    return BAD("template %u: truncated numeric column", t);
                if (delta) {
                    v = prev + ((v >> 1) ^ (uint64_t)(-(int64_t)(v & 1)));
                    prev = v;
                }
                vals[k] = v;
            }
            const uint8_t *pp = np; /* explicit zero padding follows the values */
            if (pad_mode == 2) {
                if ((size_t)(ne - np) < n)
                    return BAD("template %u: truncated zero-padding column", t);
                np += n;
            }
            if (ip) {
                for (uint32_t k = 0; k < n; k++)
                    if (!ltk_ip_value_ok(vals[k]))
                        return BAD("template %u: bad dotted quad value", t);
            } else if (limit != UINT64_MAX) {
                for (uint32_t k = 0; k < n; k++)
                    if (vals[k] >= limit)
                        return BAD("template %u: value wider than its column", t);
            } else if (pad_mode == 2) {
                for (uint32_t k = 0; k < n; k++) {
                    uint8_t pad = pp[k];
                    if ((snum ? pad >> 1 : pad) > 19)
                        return BAD("template %u: bad zero padding", t);
                    d->pads[base + k] = pad;
                }
            }
        }
    }
    int last_parsed = d->nchunks == 0 || d->chunk_need[chunk] == 2 || (full && !d->chunk_need[chunk]);
    if (mp != me || (last_parsed && np != chunk_end) || chunk + 1 < d->nchunks || d->raw_len[LTK_S_PADS] != 0 ||
        (need_strs && sp != se))
        return BAD("column streams have unused bytes");
    return LOGTK_OK;
}

int ltk_decode_templates(ltk_decoder *d, const uint8_t *payload, size_t len,
                          uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err)
{
    const uint8_t *p = payload, *end = payload + len;
    uint64_t nlines;
    d->nlines = 0;
    d->ntemplates = 0;
    uint64_t nparts;
    if (ltk_varint_get(&p, end, &nlines) != 0 || nlines != expect_lines)
        return BAD("line count does not match the block header");
    if (ltk_varint_get(&p, end, &nparts) != 0)
        return BAD("bad part count");
    d->messages = (nparts & LTK_PARTS_MESSAGES) != 0;
    nparts &= ~(uint64_t)LTK_PARTS_MESSAGES;
    if (nparts < 1 || nparts > LTK_MAX_HEADER_PARTS + 1)
        return BAD("bad part count");
    d->nparts = (uint32_t)nparts;
    if (nlines > (uint64_t)expect_bytes + 1)
        return BAD("more lines than bytes");
    d->nlines = (uint32_t)nlines;
    d->expect_bytes = expect_bytes;
    int rc = read_stream_headers(d, p, end, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTK_S_TEMPLATES, err);
    if (rc == LOGTK_OK)
        rc = parse_templates(d, err);
    return ltk_decode_result(d, rc);
}

int ltk_decode_lines(ltk_decoder *d, ltk_errbuf *err)
{
    return ltk_decode_lines_masked(d, NULL, NULL, err);
}

int ltk_decode_lines_masked(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                             ltk_errbuf *err)
{
    int rc = ltk_decode_read_line_streams(d, err);
    if (rc == LOGTK_OK)
        rc = ltk_decode_parse_lines(d, tmask, line_mask, err);
    return ltk_decode_result(d, rc);
}

int ltk_decode_prepare(ltk_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err)
{
    int rc = ltk_decode_templates(d, payload, len, expect_lines, expect_bytes, err);
    return rc == LOGTK_OK ? ltk_decode_lines(d, err) : rc;
}

int ltk_decode_values(ltk_decoder *d, const uint8_t *want, ltk_errbuf *err)
{
    int rc = parse_columns(d, want, NULL, 0, err);
    return ltk_decode_result(d, rc);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ltk_decode_values_for_lines(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 ltk_errbuf *err)
{
    /* many lines: expanding every column is cheaper than picking */
    if ((uint64_t)nsel * 16 > d->nlines)
        return ltk_decode_values(d, NULL, err);
    size_t np = d->nparts, n = (size_t)nsel * np;
    if (ltk_array_reserve((void **)&d->sel, &d->sel_cap, n + 1, sizeof *d->sel) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t c = 0; c < nsel; c++)
        for (size_t p = 0; p < np; p++) {
            size_t u = p * d->nlines + lines[c];
            d->sel[c * np + p] = (uint64_t)d->line_tid[u] << 32 | d->line_rank[u];
        }
    qsort(d->sel, n, sizeof *d->sel, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || d->sel[i] != d->sel[m - 1])
            d->sel[m++] = d->sel[i];
    /* sel non-NULL even when empty: then nothing is expanded */
    int rc = parse_columns(d, NULL, d->sel, m, err);
    return ltk_decode_result(d, rc);
}

int ltk_decode_values_for_units(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 const uint8_t *tmask, ltk_errbuf *err)
{
    /* many lines: expanding the marked templates' columns whole is cheaper than picking */
    if ((uint64_t)nsel * 16 > d->nlines)
        return ltk_decode_result(d, parse_columns(d, tmask, NULL, 0, err));
    size_t np = d->nparts, n = 0;
    if (ltk_array_reserve((void **)&d->sel, &d->sel_cap, (size_t)nsel * np + 1, sizeof *d->sel) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t c = 0; c < nsel; c++)
        for (size_t p = 0; p < np; p++) {
            size_t u = p * d->nlines + lines[c];
            if (tmask[d->line_tid[u]])
                d->sel[n++] = (uint64_t)d->line_tid[u] << 32 | d->line_rank[u];
        }
    qsort(d->sel, n, sizeof *d->sel, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || d->sel[i] != d->sel[m - 1])
            d->sel[m++] = d->sel[i];
    return ltk_decode_result(d, parse_columns(d, NULL, d->sel, m, err));
}

int ltk_decode_columns(ltk_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err)
{
    int rc = ltk_decode_prepare(d, payload, len, expect_lines, expect_bytes, err);
    return rc == LOGTK_OK ? ltk_decode_values(d, NULL, err) : rc;
}

uint32_t ltk_decoder_template_count(const ltk_decoder *d)
{
    return d->ntemplates;
}

const uint8_t *ltk_decoder_template(const ltk_decoder *d, uint32_t t, size_t *len)
{
    *len = d->tmpls[t].len;
    return d->tmpls[t].bytes;
}

uint32_t ltk_decoder_part_count(const ltk_decoder *d)
{
    return d->nparts;
}

int ltk_decoder_whole_messages(const ltk_decoder *d)
{
    return d->messages;
}

const uint32_t *ltk_decoder_unit_templates(const ltk_decoder *d)
{
    return d->line_tid;
}

uint32_t ltk_decoder_line_template(const ltk_decoder *d, uint32_t i, uint32_t p)
{
    return d->line_tid[(size_t)p * d->nlines + i];
}

int ltk_decoder_line_eol(const ltk_decoder *d, uint32_t i)
{
    return d->line_eol[i];
}

uint32_t ltk_decoder_line_count(const ltk_decoder *d)
{
    return d->nlines;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/*
 * Writes the dotted quad of IP value v (checked by ltk_ip_value_ok) at
 * dst: at most 15 bytes, and one more that the caller's room covers (the
 * '.' after the last part); returns the bytes written.
 */
static size_t put_ip(char *dst, uint64_t v)
{
    char *d = dst;
    if (v >> 32) {
        /* packed: each part zero-padded to its own digit count */
        for (int shift = 36; shift >= 0; shift -= 12) {
            unsigned part = (unsigned)(v >> shift) & 0xfff, digits = (part >> 10) + 1, value = part & 1023;
            char text[3] = {(char)('0' + value / 100), (char)('0' + value / 10 % 10), (char)('0' + value % 10)};
            memcpy(d, text + 3 - digits, digits);
            d += digits;
            *d++ = '.';
        }
        return (size_t)(d - dst) - 1;
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
        unsigned o = (unsigned)(v >> shift) & 255;
        if (o >= 100) {
            *d++ = (char)('0' + o / 100);
            memcpy(d, digit_pairs + 2 * (o % 100), 2);
            d += 2;
        } else if (o >= 10) {
            memcpy(d, digit_pairs + 2 * o, 2);
            d += 2;
        } else {
            *d++ = (char)('0' + o);
        }
        *d++ = '.';
    }
    return (size_t)(d - dst) - 1; /* without the last '.' */
}

/*
 * Leading zeros and sign of a number of n digits in column op (pad: the
 * value's own pad byte, pad mode 2 only).  The bounds were checked when the
 * column was decoded.
 */
static inline __attribute__((always_inline)) unsigned number_zeros(const tmpl_op *op, unsigned n, unsigned pad,
                                                                   unsigned *neg)
{
    unsigned snum = op->kind == LTK_M_SNUM;
    if (op->pad_mode == 1) {
        /* fixed width: arg is width << 1 | sign; the value fits (checked) */
        *neg = snum & op->pad_arg;
        return (unsigned)(op->pad_arg >> 1) - n;
    }
    if (op->pad_mode == 0)
        pad = op->pad_arg;
    *neg = snum & pad;
    return snum ? pad >> 1 : pad;
}

/*
 * Writes zeros '0' bytes at d, eight at a time: up to 7 bytes past them
 * are overwritten by what follows (put_unit reserves room for a number's
 * longest text, 41 bytes, and the zeros are at most 19).
 */
static inline __attribute__((always_inline)) char *put_zeros(char *d, unsigned zeros)
{
    for (unsigned z = 0; z < zeros; z += 8)
        memcpy(d + z, "00000000", 8);
    return d + zeros;
}

/* A hex number of column op (see put_number). */
static size_t put_hex_number(char *dst, const tmpl_op *op, uint64_t v, unsigned pad)
{
    const char *xdigits = op->kind == LTK_M_HEXL ? "0123456789abcdef" : "0123456789ABCDEF";
    unsigned n = (unsigned)(64 - __builtin_clzll(v | 1) + 3) >> 2, neg;
    char *d = put_zeros(dst, number_zeros(op, n, pad, &neg));
    for (unsigned k = n; k-- > 0; v >>= 4)
        d[k] = xdigits[v & 15];
    return (size_t)(d + n - dst);
}

/*
 * Writes a number of column op at dst: sign, leading zeros, digits; returns
 * the bytes written.  pad is the value's own pad byte (pad mode 2 only).
 * Decimal numbers, nearly all of an archive's variables, are written in
 * place: the digit count first (from the bit length, as block_encode.c
 * counts them), then the digits from the last one back, two per step, with
 * no copy and no library call; addresses and hex numbers go to helpers of
 * their own.
 */
static inline __attribute__((always_inline)) size_t put_number(char *dst, const tmpl_op *op, uint64_t v,
                                                               unsigned pad)
{
    if (__builtin_expect(op->kind > LTK_M_SNUM, 0))
        return op->kind == LTK_M_IP ? put_ip(dst, v) : put_hex_number(dst, op, v, pad);
    uint64_t x = v | 1;
    unsigned t = (unsigned)(((64 - __builtin_clzll(x)) * 1233) >> 12);
    unsigned n = t - (x < pow10_table[t]) + 1;
    unsigned neg;
    unsigned zeros = number_zeros(op, n, pad, &neg);
    char *d = dst;
    *d = '-';
    d += neg;
    d = put_zeros(d, zeros);
    char *e = d + n, *p = e;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digit_pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(p - 2, digit_pairs + 2 * v, 2);
    else
        p[-1] = (char)('0' + v);
    return (size_t)(e - dst);
}

/*
 * Appends unit u (one part of a line) to out.  Room for the literals and the
 * numbers (and 16 bytes of slack: a literal of up to 16 bytes is copied as
 * 16, which the next op overwrites) is reserved once per unit; only string
 * variables check again.
 */
static inline __attribute__((always_inline)) int put_unit(ltk_decoder *d, size_t u, ltk_strbuf *out)
{
    const tmpl_info *ti = &d->tmpls[d->line_tid[u]];
    if (!ti->built) /* checked here: the call costs more than the check, and most units find ops built */
        build_ops(d, d->line_tid[u]);
    if (ti->nops == 0)
        return LOGTK_OK; /* empty part (d->ops may still be NULL) */
    uint32_t k = d->line_rank[u], n = ti->count;
    const tmpl_op *op = d->ops + ti->first_op, *ope = op + ti->nops;
    if (out->cap - out->len < (size_t)ti->max_fixed + 25 &&
        ltk_strbuf_reserve(out, (size_t)ti->max_fixed + 24) != 0)
        return LOGTK_ERR_NOMEM;
    char *dst = out->data + out->len;
    const char *lits = d->lits.data;
    for (; op < ope; op++) {
        if (op->kind == 0) {
            if (op->len <= 16)
                memcpy(dst, lits + op->off, 16);
            else
                memcpy(dst, lits + op->off, op->len);
            dst += op->len;
        } else if (op->kind == LTK_M_STR) {
            size_t x = ti->str_base + (size_t)op->slot * n + k;
            size_t sl = d->strl[x];
            out->len = (size_t)(dst - out->data);
            /* room for this string and everything fixed that may follow */
            if (ltk_strbuf_reserve(out, sl + (size_t)ti->max_fixed + 24) != 0)
                return LOGTK_ERR_NOMEM;
            dst = out->data + out->len;
            memcpy(dst, d->strp[x], sl);
            dst += sl;
        } else {
            size_t x = ti->num_base + (size_t)op->slot * n + k;
            dst += put_number(dst, op, d->nums[x], op->pad_mode == 2 ? d->pads[x] : 0);
        }
    }
    out->len = (size_t)(dst - out->data);
    return LOGTK_OK;
}

int ltk_decoder_unit(ltk_decoder *d, uint32_t i, uint32_t p, ltk_strbuf *out)
{
    if (put_unit(d, (size_t)p * d->nlines + i, out) != LOGTK_OK)
        return LOGTK_ERR_NOMEM;
    if (out->cap)
        out->data[out->len] = '\0';
    return LOGTK_OK;
}

int ltk_decoder_unit_has_number(ltk_decoder *d, uint32_t i, uint32_t p, uint64_t v, const char *digits,
                                 size_t n)
{
    size_t u = (size_t)p * d->nlines + i;
    build_ops(d, d->line_tid[u]);
    const tmpl_info *ti = &d->tmpls[d->line_tid[u]];
    uint32_t k = d->line_rank[u];
    const tmpl_op *op = d->ops + ti->first_op, *ope = op + ti->nops;
    for (; op < ope; op++) {
        if (op->kind != LTK_M_UNUM && op->kind != LTK_M_SNUM)
            continue; /* literals, strings, addresses and hex numbers are not decimal numbers */
        size_t x = ti->num_base + (size_t)op->slot * ti->count + k;
        if (d->nums[x] != v)
            continue;
        /* the value matches: its text (leading zeros and all, without a sign) must too */
        char tmp[48];
        size_t len = put_number(tmp, op, v, op->pad_mode == 2 ? d->pads[x] : 0);
        const char *t = tmp;
        if (len > 0 && t[0] == '-') {
            t++;
            len--;
        }
        if (len == n && memcmp(t, digits, n) == 0)
            return 1;
    }
    return 0;
}

int ltk_decoder_line(ltk_decoder *d, uint32_t i, int with_eol, ltk_strbuf *out)
{
    for (uint32_t p = 0; p < d->nparts; p++)
        if (put_unit(d, (size_t)p * d->nlines + i, out) != LOGTK_OK)
            return LOGTK_ERR_NOMEM;
    if (with_eol && d->line_eol[i] != 2) {
        if (ltk_strbuf_reserve(out, 2) != 0)
            return LOGTK_ERR_NOMEM;
        if (d->line_eol[i] == 1)
            out->data[out->len++] = '\r';
        out->data[out->len++] = '\n';
    }
    if (out->cap)
        out->data[out->len] = '\0';
    return LOGTK_OK;
}

int ltk_decode_block(ltk_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, ltk_strbuf *text, ltk_stream_sizes *sizes,
                      ltk_errbuf *err)
{
    int rc = ltk_decode_columns(d, payload, len, expect_lines, expect_bytes, err);
    if (rc != LOGTK_OK)
        return rc;
    if (sizes)
        for (int i = 0; i < LTK_NSTREAMS; i++) {
            sizes->raw[i] += d->streams[i].len;
            sizes->stored[i] += d->stored[i];
        }
    ltk_strbuf_clear(text);
    /* the header's size, up to a bound: a forged one must not make this fail for want of memory */
    size_t room = expect_bytes < ((size_t)64 << 20) ? expect_bytes : ((size_t)64 << 20);
    if (ltk_strbuf_reserve(text, room + 4096) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < d->nlines; i++) {
        if (ltk_decoder_line(d, i, 1, text) != LOGTK_OK)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        if (text->len > expect_bytes)
            return BAD("block decodes to more bytes than its header says");
    }
    if (text->len != expect_bytes)
        return BAD("block decodes to %zu bytes, header says %u", text->len, expect_bytes);
    return LOGTK_OK;
}
