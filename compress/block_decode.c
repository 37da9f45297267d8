/*
 * block_decode.c - payload -> columns -> lines (the inverse of block_encode.c).
 *
 * Decoding runs in two steps so that search can stop in between:
 *  1. ltka_decode_columns(): decompress the seven streams, check the
 *     template dictionary (and turn templates into "ops": literal spans with
 *     escapes removed, and variable slots), and expand every numeric column
 *     (delta, leading zeros; an IP column may be stored as octet planes) and
 *     string column into flat arrays indexed by (template, position, rank of
 *     the line among the lines of its template).
 *  2. ltka_decoder_line(): rebuild one line by walking its template's ops;
 *     decimal numbers are written in place from their digit count (no copy,
 *     no library call), addresses and hex numbers by helpers of their own
 *     (scale-up log, 2M lines: decompress 7,494 -> 6,850 million
 *     instructions, with the IP and hex variables of format version 3).
 * Search stops in between (see archive_search.c): templates first, then the
 * template ids, then only the values of candidate lines
 * (ltka_decode_values_for_lines).  Search pays only for what those lines
 * need, because most of a block is numbers and header columns:
 *  - ops are made only for templates whose lines are rebuilt (build_ops);
 *    the others are only checked and their variables counted;
 *  - only the number chunks holding wanted columns are decompressed, and
 *    parsed no further than their last wanted template; a plain column is
 *    skipped sixteen bytes at a time, a delta column summed without
 *    storing; explicit zero padding follows its column in the chunk; the
 *    strings stream is only read when a wanted template has strings;
 *  - for a rare pattern not every unit's template and rank is built:
 *    ltka_decode_lines_mark counts each part's ids (a machine word of one
 *    repeated id at a time, the rest clamped without branches, keeping the
 *    counts every CHECKPOINT_LINES lines) and marks only the parts that hold
 *    a marking template (a word at a time when few templates mark), and
 *    ltka_decode_index_lines derives the rank of each candidate unit from
 *    those counts.
 *  - search's number tests (ltka_decode_number_tests) check the values of a
 *    few columns against digits of the pattern without storing them; a
 *    plain column whose units earlier columns already failed is read only
 *    at the live units (sparse_column_tests), and ltka_decode_mark_units
 *    finds the lines of the units that pass from the id histograms.  The
 *    tested columns of a template run in order of how many of their first
 *    values fail (column_selectivity), not in column order: in HDFS the
 *    251 of 10.251.43.115 is in most addresses, the 43 is not; a column is
 *    read no further than its last unit still alive.  An IP column's test
 *    compares the octets the pattern fixes (LTKA_TEST_IP_MASK; a packed
 *    non-canonical quad passes it and is checked by LTKA_TEST_IP_PACKED,
 *    which every address passes); one stored as octet planes is read at the
 *    live units only, each value in place.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "archive_format.h"
#include "archive_reader_impl.h"
#include "growarray.h"

typedef struct tmpl_op {
    uint8_t kind;     /* 0 literal, else a marker */
    uint8_t pad_mode; /* numbers: 0 constant pad, 1 fixed width, 2 per value (d->pads) */
    uint8_t pad_arg;  /* numbers: the constant pad (mode 0) or the width and sign (mode 1) */
    uint32_t slot;    /* variables: index among numbers or among strings */
    uint32_t off;  /* literal: offset in d->lits */
    uint32_t len;
} tmpl_op;

/*
 * A stream being decompressed in pieces (search needs only a prefix of
 * most): the streaming context and how far into the compressed bytes it is;
 * key names the stream it is in the middle of (NULL: none).
 */
typedef struct zprefix {
    ZSTD_DStream *zs;
    const void *key;
    size_t in_pos;
} zprefix;

/* One chunk of the numbers stream. */
typedef struct ltka_chunk {
    uint32_t first_template;
    size_t avail;      /* bytes of it decompressed into the stream buffer so far */
    size_t raw_off;    /* in the stream buffer */
    size_t raw_len;
    const uint8_t *src; /* stored bytes inside the payload */
    size_t stored_off, stored_len;
} ltka_chunk;

typedef struct tmpl_info {
    const uint8_t *bytes; /* escaped template bytes, inside the templates stream */
    uint32_t len;
    uint32_t first_op, nops;
    uint32_t nnum, nstr;
    uint32_t count;     /* lines of this template */
    uint32_t max_fixed; /* longest text of its literals and numbers */
    uint8_t built;      /* ops made (build_ops) */
    size_t num_base;    /* first value of its first numeric column */
    size_t str_base;
} tmpl_info;

struct ltka_decoder {
    ZSTD_DCtx *dctx;
    logtk_strbuf streams[LTKA_NSTREAMS];
    uint64_t stored[LTKA_NSTREAMS];
    uint64_t raw_len[LTKA_NSTREAMS];
    const uint8_t *src[LTKA_NSTREAMS]; /* stream bytes inside the payload */
    uint8_t loaded[LTKA_NSTREAMS];     /* decompressed into streams[i] for this block */
    uint32_t nlines, ntemplates;
    uint32_t nparts; /* units per line: header parts + the rest */
    uint32_t expect_bytes;
    tmpl_info *tmpls;
    size_t tmpls_cap;
    tmpl_op *ops;
    size_t ops_cap, nops;
    logtk_strbuf lits;
    uint32_t *line_tid, *line_rank; /* per unit, part-major: part * nlines + line */
    const uint8_t *line_eol; /* per line, inside streams[LTKA_S_EOLS] */
    size_t lines_cap;
    const uint8_t *part_col[LTKA_MAX_HEADER_PARTS + 1]; /* template-id column of each part ... */
    uint8_t part_width[LTKA_MAX_HEADER_PARTS + 1];      /* ... and its id width */
    uint32_t *part_count; /* search: lines per (part, template), part * (ntemplates + 1) + t */
    size_t part_count_cap;
    uint32_t *part_snap; /* search: the same counts before every CHECKPOINT_LINES lines of a part */
    size_t part_snap_cap;
    ltka_chunk *chunks; /* of the numbers stream */
    size_t chunks_cap;
    uint32_t nchunks;
    uint8_t *chunk_need;
    size_t chunk_need_cap;
    uint8_t *test_live; /* ltka_decode_number_tests: tests that still have a unit to look at */
    size_t test_live_cap;
    uint32_t *chunk_last; /* per chunk: the last template whose columns are wanted */
    size_t chunk_last_cap;
    zprefix zchunk;  /* partial decompression of one numbers chunk */
    uint64_t *sel; /* template << 32 | rank of the units to rebuild (sparse decoding) */
    size_t sel_cap;
    uint32_t *tcount; /* per template: lines counted so far (parse_lines) */
    size_t tcount_cap;
    uint64_t *nums;
    uint8_t *pads;
    size_t nums_cap;
    const uint8_t **strp;
    uint32_t *strl;
    const uint8_t **dict_ptr; /* the dictionary of the string column being read (65536 entries) */
    uint32_t *dict_len;
    size_t strs_cap;
};

ltka_decoder *ltka_decoder_new(void)
{
    /*
     * The zstd context (some 160 KB) is made when a stream first needs it:
     * stored streams and blocks never decoded need none (the archive fuzzer
     * made some 25 decoders per input, a fresh mapping each under
     * AddressSanitizer).
     */
    return calloc(1, sizeof(ltka_decoder));
}

/* The decoder's zstd context, made on first use; NULL when out of memory. */
static ZSTD_DCtx *dctx_of(ltka_decoder *d)
{
    if (!d->dctx)
        d->dctx = ZSTD_createDCtx();
    return d->dctx;
}

/* Frees every buffer of d but its zstd context. */
static void free_buffers(ltka_decoder *d)
{
    for (int i = 0; i < LTKA_NSTREAMS; i++)
        logtk_strbuf_free(&d->streams[i]);
    logtk_strbuf_free(&d->lits);
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

void ltka_decoder_free(ltka_decoder *d)
{
    if (!d)
        return;
    free_buffers(d);
    ZSTD_freeDCtx(d->dctx);
    free(d);
}

void ltka_decoder_trim(ltka_decoder *d)
{
    if (!d)
        return;
    free_buffers(d);
    ZSTD_DCtx *dctx = d->dctx;
    memset(d, 0, sizeof *d);
    d->dctx = dctx;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline __attribute__((always_inline)) int get_varint_word(const uint8_t **pp, uint64_t *v);
#endif

/* LEB128 varint, inlined for the column loops; -1 on truncation or overflow. */
static inline __attribute__((always_inline)) int get_varint(const uint8_t **pp, const uint8_t *end,
                                                            uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    if (end - p >= 2 && p[1] < 0x80) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return 0;
    }
    if (end - p >= 3 && p[2] < 0x80) {
        *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
        *pp = p + 3;
        return 0;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 10)
        return get_varint_word(pp, v);
#endif
    return logtk_varint_get(pp, end, v);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * A long varint (random ids, deltas of unrelated values) with at least ten
 * bytes readable: the length from the first byte without the continuation
 * bit in a word, then the 7-bit groups packed together in three shift
 * steps.  Accepts exactly what logtk_varint_get accepts.  (Used for all
 * lengths it was slower: the length branches of get_varint predict well.)
 */
static inline __attribute__((always_inline)) int get_varint_word(const uint8_t **pp, uint64_t *v)
{
    const uint8_t *p = *pp;
    {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t stops = ~w & 0x8080808080808080ull;
        /* the bytes up to the first stop (all eight without one), and their count */
        unsigned len = ((unsigned)__builtin_ctzll(stops | 0x8000000000000000ull) >> 3) + 1;
        uint64_t x = w & (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7full;
        x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
        x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
        x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
        if (!stops) {
            /* bytes 9 and 10: the tenth may only hold bit 63 */
            if (p[8] < 0x80) {
                x |= (uint64_t)p[8] << 56;
                len = 9;
            } else {
                if (p[9] & 0xfe)
                    return -1;
                x |= (uint64_t)(p[8] & 0x7f) << 56 | (uint64_t)p[9] << 63;
                len = 10;
            }
        }
        *v = x;
        *pp = p + len;
        return 0;
    }
}
#endif

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
        d->loaded[i] = 0;
        logtk_strbuf_clear(&d->streams[i]);
        d->zchunk.key = NULL; /* a new payload: nothing is half-read */
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
        if (!dctx_of(d))
            return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        size_t r = ZSTD_decompressDCtx(d->dctx, st->data, raw_len, d->src[i], stored_len);
        if (ZSTD_isError(r) || r != raw_len)
            return BAD("stream %s: zstd: %s", ltka_stream_name(i),
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
static int zprefix_get(ltka_decoder *d, zprefix *z, const void *key, const uint8_t *src,
                       size_t src_len, uint8_t *dst, size_t dst_len, size_t *avail, size_t want,
                       int stream, uint32_t chunk_no, logtk_errbuf *err)
{
#define ZBAD(why)                                                                                  \
    (chunk_no ? BAD("stream %s: chunk %u: zstd: %s", ltka_stream_name(stream), chunk_no, why)      \
              : BAD("stream %s: zstd: %s", ltka_stream_name(stream), why))
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
            return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        size_t r = ZSTD_decompressDCtx(d->dctx, dst, dst_len, src, src_len);
        if (ZSTD_isError(r) || r != dst_len)
            return ZBAD(ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
        *avail = dst_len;
        return LOGTK_OK;
    }
    if (z->key != key) {
        /* (re)start this stream from its first byte */
        if (!z->zs && !(z->zs = ZSTD_createDStream()))
            return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        if (ZSTD_isError(ZSTD_DCtx_reset(z->zs, ZSTD_reset_session_only)))
            return logtk_error_set(err, LOGTK_ERR_NOMEM, "zstd: cannot reset a stream");
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
static int ensure_stream(ltka_decoder *d, int i, logtk_errbuf *err)
{
    return d->loaded[i] ? LOGTK_OK : read_stream(d, i, err);
}

static int read_chunk_directory(ltka_decoder *d, logtk_errbuf *err);

/*
 * The streams every line needs: template ids, line ends, column codings and
 * the numbers' chunk directory.  Zero padding and strings are decompressed
 * by parse_columns, and only when a column it expands needs them.
 */
static int read_line_streams(ltka_decoder *d, logtk_errbuf *err)
{
    int rc = read_stream(d, LTKA_S_TIDS, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTKA_S_EOLS, err);
    if (rc == LOGTK_OK)
        rc = read_stream(d, LTKA_S_NUMMETA, err);
    return rc == LOGTK_OK ? read_chunk_directory(d, err) : rc;
}

/*
 * Reads the directory of the chunked numbers stream (see LTKA_S_NUMS) and
 * sizes the stream buffer; chunks are decompressed by load_chunks() only
 * when a column in them is needed.
 */
static int read_chunk_directory(ltka_decoder *d, logtk_errbuf *err)
{
    const uint8_t *p = d->src[LTKA_S_NUMS], *end = p + d->stored[LTKA_S_NUMS];
    if (d->stored[LTKA_S_NUMS] != d->raw_len[LTKA_S_NUMS])
        return BAD("stream numbers: not a chunk directory");
    uint64_t n;
    if (logtk_varint_get(&p, end, &n) != 0 || n > (uint64_t)(end - p) / 3 || n > d->ntemplates)
        return BAD("stream numbers: bad chunk count");
    if (logtk_array_reserve((void **)&d->chunks, &d->chunks_cap, n + 1, sizeof *d->chunks) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint64_t limit = (uint64_t)d->expect_bytes * 2 + (uint64_t)d->nlines * 16 + 64;
    uint64_t raw_total = 0, stored_total = 0, first = 0;
    for (uint64_t c = 0; c < n; c++) {
        uint64_t delta, raw, stored;
        if (logtk_varint_get(&p, end, &delta) != 0 || logtk_varint_get(&p, end, &raw) != 0 ||
            logtk_varint_get(&p, end, &stored) != 0)
            return BAD("stream numbers: truncated chunk directory");
        if ((c == 0) != (delta == 0) || delta > d->ntemplates - first || (c > 0 && first + delta >= d->ntemplates))
            return BAD("stream numbers: chunk %llu: bad first template", (unsigned long long)c + 1);
        first += delta;
        if (raw > limit - raw_total || stored > raw)
            return BAD("stream numbers: chunk %llu: bad size", (unsigned long long)c + 1);
        ltka_chunk *ch = &d->chunks[c];
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
    logtk_strbuf *st = &d->streams[LTKA_S_NUMS];
    logtk_strbuf_clear(st);
    if (logtk_strbuf_reserve(st, (size_t)raw_total) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    st->len = (size_t)raw_total;
    st->data[st->len] = '\0';
    return LOGTK_OK;
}

/* Makes at least want bytes of numbers chunk c available (see zprefix_get). */
static int chunk_prefix(ltka_decoder *d, uint32_t c, size_t want, logtk_errbuf *err)
{
    ltka_chunk *ch = &d->chunks[c];
    uint8_t *dst = (uint8_t *)d->streams[LTKA_S_NUMS].data + ch->raw_off;
    return zprefix_get(d, &d->zchunk, ch, ch->src, ch->stored_len, dst, ch->raw_len, &ch->avail, want,
                       LTKA_S_NUMS, c + 1, err);
}

/*
 * Checks every template and counts its variables; the ops that rebuild
 * lines are made by build_ops() for the templates whose lines are rebuilt
 * (search rebuilds a few lines of a few templates).
 */
static int parse_templates(ltka_decoder *d, logtk_errbuf *err)
{
    const uint8_t *p = (const uint8_t *)d->streams[LTKA_S_TEMPLATES].data;
    const uint8_t *end = p + d->streams[LTKA_S_TEMPLATES].len;
    uint64_t n;
    if (logtk_varint_get(&p, end, &n) != 0 || n > (uint64_t)d->nlines * d->nparts)
        return BAD("bad template count");
    d->ntemplates = (uint32_t)n;
    if (logtk_array_reserve((void **)&d->tmpls, &d->tmpls_cap, n + 1, sizeof *d->tmpls) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->nops = 0;
    logtk_strbuf_clear(&d->lits);
    /* a template has at most one op per byte and at most its bytes of literals */
    size_t tbytes = (size_t)(end - p);
    /* literals get 16 bytes of slack: put_unit copies short ones 16 bytes at a time */
    if (logtk_array_reserve((void **)&d->ops, &d->ops_cap, tbytes + 1, sizeof *d->ops) != 0 ||
        logtk_strbuf_reserve(&d->lits, tbytes + 17) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->lits.data[0] = '\0';
    for (uint32_t t = 0; t < n; t++) {
        uint64_t len;
        if (logtk_varint_get(&p, end, &len) != 0 || len > (uint64_t)(end - p))
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
            while (q < qe && *q > LTKA_M_LAST)
                q++;
            if (q == qe)
                break;
            uint8_t c = *q;
            if (ltka_is_var_marker(c)) {
                if (c == LTKA_M_STR)
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
            if (c != LTKA_M_ESC)
                return BAD("template %u: bad marker", t);
            if (q + 1 == qe || q[1] < 1 || q[1] > LTKA_M_LAST)
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
static void build_ops(ltka_decoder *d, uint32_t t)
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
        if (ltka_is_var_marker(c)) {
            op->kind = c;
            op->slot = c == LTKA_M_STR ? nstr++ : nnum++;
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
            while (r < qe && *r > LTKA_M_LAST)
                r++;
            memcpy(lits + nlits, q, (size_t)(r - q));
            nlits += (size_t)(r - q);
            q = r;
            if (q == qe || ltka_is_var_marker(*q))
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
                                  : ltka_get_u32(p + 4 * (size_t)i);
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
static int locate_line_columns(ltka_decoder *d, logtk_errbuf *err)
{
    size_t nunits = (size_t)d->nlines * d->nparts;
    if (logtk_array_reserve((void **)&d->line_tid, &d->lines_cap, nunits + 1, sizeof *d->line_tid) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *r = realloc(d->line_rank, d->lines_cap * sizeof *r);
    if (!r)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->line_rank = r;
    const uint8_t *p = (const uint8_t *)d->streams[LTKA_S_TIDS].data;
    const uint8_t *end = p + d->streams[LTKA_S_TIDS].len;
    const uint8_t *eol = (const uint8_t *)d->streams[LTKA_S_EOLS].data;
    if (d->streams[LTKA_S_EOLS].len != d->nlines)
        return BAD("line-end column has %zu entries for %u lines", d->streams[LTKA_S_EOLS].len,
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
    if (logtk_array_reserve((void **)&d->tcount, &d->tcount_cap, (size_t)d->ntemplates + 1, sizeof *d->tcount) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
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

static int parse_lines(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask, logtk_errbuf *err)
{
    int rc = locate_line_columns(d, err);
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

/* The template id of unit i of a column of the given width. */
static inline __attribute__((always_inline)) uint32_t tid_at(const uint8_t *p, unsigned width, uint32_t i)
{
    return width == 1   ? p[i]
           : width == 2 ? (uint32_t)p[2 * (size_t)i] | (uint32_t)p[2 * (size_t)i + 1] << 8
                        : ltka_get_u32(p + 4 * (size_t)i);
}

/*
 * Marks candidate lines of one part: line_mask[i] |= tmask[t], stopping
 * once the part's `expect` units of marking templates are found (search
 * knows the count from the part's histogram; rare templates end early).
 */
static inline __attribute__((always_inline)) void
mark_part(const uint8_t *p, unsigned width, uint32_t nl, uint32_t nt, const uint8_t *tmask,
          uint64_t expect, uint8_t *line_mask)
{
    for (uint32_t i = 0; i < nl && expect > 0; i++) {
        uint32_t t = tid_at(p, width, i);
        if (t < nt && tmask[t]) {
            line_mask[i] |= tmask[t];
            expect--;
        }
    }
}

/*
 * Adds the ids p[from..to) to count[]; an id out of range counts as nt, so
 * the caller tells a bad column by count[nt] != 0.  A machine word of one
 * id repeated (header parts often repeat one template) is added in one
 * step; the ids of other words one by one, clamped without a branch.
 */
static inline __attribute__((always_inline)) void
count_tids(const uint8_t *p, unsigned width, uint32_t from, uint32_t to, uint32_t nt, uint32_t *count)
{
    uint32_t i = from;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t spread = width == 1 ? 0x0101010101010101ull : width == 2 ? 0x0001000100010001ull : 0x0000000100000001ull;
    const uint64_t lane = width == 4 ? 0xffffffffull : (1ull << (8 * width)) - 1;
    const uint32_t per_word = 8 / width;
    uint64_t run_word = 0;
    uint32_t run_t = 0;
    int have_run = 0;
    for (; to - i >= per_word; i += per_word) {
        uint64_t w;
        memcpy(&w, p + (size_t)i * width, 8);
        if (have_run && w == run_word) {
            count[run_t] += per_word;
            continue;
        }
        /* the lanes of the word, unrolled by hand (per_word is 8, 4 or 2) */
#define COUNT_LANE(k)                                                                              \
    do {                                                                                           \
        uint32_t t = (uint32_t)(w >> (8 * width * (k)) & lane);                                    \
        count[t < nt ? t : nt]++;                                                                  \
    } while (0)
        COUNT_LANE(0);
        COUNT_LANE(1);
        if (per_word > 2) {
            COUNT_LANE(2);
            COUNT_LANE(3);
        }
        if (per_word > 4) {
            COUNT_LANE(4);
            COUNT_LANE(5);
            COUNT_LANE(6);
            COUNT_LANE(7);
        }
#undef COUNT_LANE
        if (w == (w & lane) * spread) {
            run_word = w;
            run_t = (uint32_t)(w & lane) < nt ? (uint32_t)(w & lane) : nt;
            have_run = 1;
        }
    }
#endif
    for (; i < to; i++) {
        uint32_t t = tid_at(p, width, i);
        count[t < nt ? t : nt]++;
    }
}

/*
 * How many ids of p[from..to) equal t: a machine word at a time, with the
 * exact zero-lane count of (word ^ t in every lane).  The lane pattern is
 * built from t's stored bytes, so this holds on any host byte order.
 */
static inline __attribute__((always_inline)) uint32_t
count_equal(const uint8_t *p, unsigned width, uint32_t from, uint32_t to, uint32_t t)
{
    uint8_t lane[8];
    for (unsigned k = 0; k < 8; k++)
        lane[k] = (uint8_t)(t >> (8 * (k % width)));
    uint64_t pattern, low;
    memcpy(&pattern, lane, 8);
    for (unsigned k = 0; k < 8; k++)
        lane[k] = k % width == width - 1 ? 0x7f : 0xff;
    memcpy(&low, lane, 8); /* every bit of a lane but its top one (in memory order) */
    const uint64_t top = ~low;
    const uint32_t per_word = 8 / width;
    uint32_t n = 0, i = from;
    for (; to - i >= per_word && i < to; i += per_word) {
        uint64_t w;
        memcpy(&w, p + (size_t)i * width, 8);
        uint64_t x = w ^ pattern;
        /* a lane's top bit ends up set exactly when the whole lane is zero */
        uint64_t zero = ~(((x & low) + low) | x) & top;
        /* lane tops sit at bits 7 mod 8: move them to bytes' low bits and add the bytes */
        n += (uint32_t)(((zero >> 7) * 0x0101010101010101ull) >> 56);
    }
    for (; i < to; i++)
        n += tid_at(p, width, i) == t;
    return n;
}
/*
 * mark_part for a part where at most MARK_FEW templates mark (the usual
 * case of a rare pattern): words holding none of them are passed over with
 * the zero-lane test of count_equal, one test per marking template.
 */
#define MARK_FEW 4
static inline __attribute__((always_inline)) void
mark_part_few(const uint8_t *p, unsigned width, uint32_t nl, const uint32_t *ts, uint32_t nts,
              const uint8_t *tmask, uint64_t expect, uint8_t *line_mask)
{
    uint64_t pattern[MARK_FEW], low;
    uint8_t lane[8];
    for (uint32_t j = 0; j < nts; j++) {
        for (unsigned k = 0; k < 8; k++)
            lane[k] = (uint8_t)(ts[j] >> (8 * (k % width)));
        memcpy(&pattern[j], lane, 8);
    }
    for (unsigned k = 0; k < 8; k++)
        lane[k] = k % width == width - 1 ? 0x7f : 0xff;
    memcpy(&low, lane, 8);
    const uint64_t top = ~low;
    const uint32_t per_word = 8 / width;
    uint32_t i = 0;
    for (; nl - i >= per_word && expect > 0; i += per_word) {
        uint64_t w, hit = 0;
        memcpy(&w, p + (size_t)i * width, 8);
        for (uint32_t j = 0; j < nts; j++) {
            uint64_t x = w ^ pattern[j];
            hit |= ~(((x & low) + low) | x) & top;
        }
        if (hit)
            for (uint32_t k = 0; k < per_word; k++) {
                uint8_t m = tmask[tid_at(p, width, i + k)]; /* ids checked by the histogram */
                if (m) {
                    line_mask[i + k] |= m;
                    expect--;
                }
            }
    }
    for (; i < nl && expect > 0; i++) {
        uint8_t m = tmask[tid_at(p, width, i)];
        if (m) {
            line_mask[i] |= m;
            expect--;
        }
    }
}

/* A failed decode leaves the decoder empty, so no caller can read a half-decoded
   block; passes rc through. */
static int decode_result(ltka_decoder *d, int rc)
{
    if (rc != LOGTK_OK) {
        d->nlines = 0;
        d->ntemplates = 0;
    }
    return rc;
}


/*
 * The histogram pass keeps a copy of a part's counts every CHECKPOINT_LINES
 * lines, so the rank of a selected unit needs counting from the checkpoint
 * before it only (at most this many ids) instead of from the part's start.
 */
#define CHECKPOINT_LINES 2048u

int ltka_decode_lines_count(ltka_decoder *d, logtk_errbuf *err)
{
    int rc = read_line_streams(d, err);
    if (rc == LOGTK_OK)
        rc = locate_line_columns(d, err);
    size_t stride = (size_t)d->ntemplates + 1;
    size_t nseg = ((size_t)d->nlines + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    if (rc == LOGTK_OK && (logtk_array_reserve((void **)&d->part_count, &d->part_count_cap,
                                               stride * d->nparts, sizeof *d->part_count) != 0 ||
                           logtk_array_reserve((void **)&d->part_snap, &d->part_snap_cap,
                                               stride * d->nparts * nseg + 1, sizeof *d->part_snap) != 0))
        rc = logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (rc != LOGTK_OK)
        return decode_result(d, rc);
    uint32_t nt = d->ntemplates, nl = d->nlines;
    /* one histogram per part: checks every id, counts templates, tells where marks are */
    memset(d->tcount, 0, stride * sizeof *d->tcount);
    for (uint32_t part = 0; part < d->nparts; part++) {
        uint32_t *row = d->part_count + part * stride;
        const uint8_t *p = d->part_col[part];
        memset(row, 0, stride * sizeof *row);
        for (size_t seg = 0; seg < nseg; seg++) {
            memcpy(d->part_snap + (part * nseg + seg) * stride, row, stride * sizeof *row);
            uint32_t from = (uint32_t)(seg * CHECKPOINT_LINES);
            uint32_t to = nl - from > CHECKPOINT_LINES ? from + CHECKPOINT_LINES : nl;
            if (d->part_width[part] == 1)
                count_tids(p, 1, from, to, nt, row);
            else if (d->part_width[part] == 2)
                count_tids(p, 2, from, to, nt, row);
            else
                count_tids(p, 4, from, to, nt, row);
        }
        if (row[nt] != 0)
            return decode_result(d, BAD("part %u: bad template index", part));
        for (uint32_t t = 0; t < nt; t++)
            d->tcount[t] += row[t];
    }
    for (uint32_t t = 0; t < nt; t++)
        d->tmpls[t].count = d->tcount[t];
    return LOGTK_OK;
}

void ltka_decode_lines_mark_counted(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    size_t stride = (size_t)nt + 1;
    for (uint32_t part = 0; part < d->nparts; part++) {
        const uint32_t *row = d->part_count + part * stride;
        const uint8_t *p = d->part_col[part];
        uint64_t expect = 0;
        uint32_t nmarking = 0, marking[MARK_FEW];
        for (uint32_t t = 0; t < nt; t++) {
            if (tmask[t] && row[t]) {
                expect += row[t];
                if (nmarking < MARK_FEW)
                    marking[nmarking] = t;
                nmarking++;
            }
        }
        if (expect == 0)
            continue; /* no line gets a mark from this part */
        if (nmarking <= MARK_FEW) {
            if (d->part_width[part] == 1)
                mark_part_few(p, 1, nl, marking, nmarking, tmask, expect, line_mask);
            else if (d->part_width[part] == 2)
                mark_part_few(p, 2, nl, marking, nmarking, tmask, expect, line_mask);
            else
                mark_part_few(p, 4, nl, marking, nmarking, tmask, expect, line_mask);
        } else if (d->part_width[part] == 1)
            mark_part(p, 1, nl, nt, tmask, expect, line_mask);
        else if (d->part_width[part] == 2)
            mark_part(p, 2, nl, nt, tmask, expect, line_mask);
        else
            mark_part(p, 4, nl, nt, tmask, expect, line_mask);
    }
}

int ltka_decode_lines_mark(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                           logtk_errbuf *err)
{
    int rc = ltka_decode_lines_count(d, err);
    if (rc == LOGTK_OK)
        ltka_decode_lines_mark_counted(d, tmask, line_mask);
    return rc;
}

/*
 * Finds the line of each wanted unit of template t (rank r, alive[r] != 0)
 * from the histograms: the part holding rank r is the one whose count of t
 * reaches past it, the checkpoint before it the last one whose count of t
 * is at most r's rank within the part, and from there the ids are read one
 * by one.  Ranks ascend, so a cursor per part carries on where the previous
 * unit was found: one template costs at most one pass over a part's ids,
 * and a few units only the stretches from their checkpoints.
 */
void ltka_decode_mark_units(ltka_decoder *d, uint32_t t, const uint8_t *alive, uint8_t bit,
                            uint8_t *line_mask)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    if (t >= nt)
        return;
    size_t stride = (size_t)nt + 1;
    size_t nseg = ((size_t)nl + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    uint32_t before = 0, count = d->tmpls[t].count;
    uint32_t r = 0;
    for (uint32_t part = 0; part < d->nparts && r < count; part++) {
        uint32_t in_part = d->part_count[part * stride + t];
        uint32_t end = before + in_part;
        const uint8_t *p = d->part_col[part];
        unsigned width = d->part_width[part];
        const uint32_t *snap = d->part_snap + part * nseg * stride + t; /* snap[seg * stride] */
        size_t seg = 0;
        uint32_t pos = 0, seen = 0; /* ids before pos hold seen units of t */
        for (; r < end; r++) {
            if (!alive[r])
                continue;
            uint32_t within = r - before;
            if (in_part == nl) {
                line_mask[within] |= bit;
                continue;
            }
            while (seg + 1 < nseg && snap[(seg + 1) * stride] <= within)
                seg++;
            if ((size_t)pos < seg * CHECKPOINT_LINES) {
                pos = (uint32_t)(seg * CHECKPOINT_LINES);
                seen = snap[seg * stride];
            }
            for (; pos < nl; pos++)
                if (tid_at(p, width, pos) == t && seen++ == within)
                    break;
            if (pos < nl) {
                line_mask[pos] |= bit;
                pos++;
            }
        }
        before = end;
    }
}

int ltka_decode_index_lines(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                            logtk_errbuf *err)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    size_t stride = (size_t)nt + 1;
    size_t nseg = ((size_t)nl + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    /*
     * rank of a unit = its template's units in the parts before (from the
     * histograms) + those before it in its own part: the count at the
     * checkpoint before it plus the ids from there on, counted a word at a
     * time, or from the last selected unit of the same template when that is
     * nearer (a few cursors per part: dense candidates then cost one sweep
     * per template, not one per candidate).  A template that fills the part
     * needs no counting at all.
     */
    enum { NCURSORS = 16 };
    if ((uint64_t)nsel * 64 > nl) {
        /* many lines: one pass over every unit costs less than counting per line */
        int rc = parse_lines(d, NULL, NULL, err);
        return decode_result(d, rc);
    }
    for (uint32_t part = 0; part < d->nparts; part++) {
        const uint8_t *p = d->part_col[part];
        unsigned width = d->part_width[part];
        const uint32_t *row = d->part_count + part * stride;
        uint32_t *tid = d->line_tid + (size_t)part * nl;
        uint32_t *rank = d->line_rank + (size_t)part * nl;
        uint32_t cur_t[NCURSORS], cur_pos[NCURSORS], cur_n[NCURSORS], ncur = 0, next_slot = 0;
        uint32_t from = 0;
        for (uint32_t k = 0; k < nsel; k++) {
            uint32_t i = lines[k];
            if (i >= nl || i < from)
                return logtk_error_set(err, LOGTK_ERR_INVALID, "selected lines not ascending");
            from = i + 1;
            uint32_t t = tid_at(p, width, i); /* checked by ltka_decode_lines_mark */
            uint32_t before = 0;
            for (uint32_t q = 0; q < part; q++)
                before += d->part_count[q * stride + t];
            uint32_t within = i;
            if (row[t] != nl) {
                size_t seg = i / CHECKPOINT_LINES;
                uint32_t start = (uint32_t)(seg * CHECKPOINT_LINES);
                uint32_t base = d->part_snap[(part * nseg + seg) * stride + t];
                uint32_t c = 0;
                while (c < ncur && cur_t[c] != t)
                    c++;
                if (c < ncur && cur_pos[c] > start) {
                    start = cur_pos[c]; /* nearer: ids before it are counted */
                    base = cur_n[c];
                } else if (c == ncur) {
                    if (ncur < NCURSORS)
                        ncur++;
                    else
                        c = next_slot++ % NCURSORS;
                    cur_t[c] = t;
                }
                within = base + (width == 1   ? count_equal(p, 1, start, i, t)
                                 : width == 2 ? count_equal(p, 2, start, i, t)
                                              : count_equal(p, 4, start, i, t));
                cur_pos[c] = i + 1;
                cur_n[c] = within + 1;
            }
            tid[i] = t;
            rank[i] = before + within;
        }
    }
    return LOGTK_OK;
}

/* pow10_table[w] = 10^w: a value of a column of width w is below 10^w. */
static const uint64_t pow10_table[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

/* Skips n varints; -1 when the stream ends first. */
#if defined(__SSE2__)
/*
 * Varint ends (bytes without the continuation bit) among the 16 bytes at p:
 * a 1 in each such byte, summed by psadbw (baseline x86-64 has no popcnt).
 */
static inline unsigned varint_ends16(const uint8_t *p)
{
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i flags = _mm_add_epi8(_mm_cmplt_epi8(b, _mm_setzero_si128()), _mm_set1_epi8(1));
    __m128i sums = _mm_sad_epu8(flags, _mm_setzero_si128());
    return (unsigned)_mm_cvtsi128_si32(sums) + (unsigned)_mm_extract_epi16(sums, 4);
}
#endif

static int skip_varints(const uint8_t **pp, const uint8_t *end, uint64_t n)
{
    const uint8_t *p = *pp;
#if defined(__SSE2__)
    /* sixteen bytes at a time: the bytes without the continuation bit are the ends */
    while (n > 16 && end - p >= 16) {
        unsigned ends = varint_ends16(p);
        if (ends >= n)
            break;
        n -= ends;
        p += 16;
    }
#endif
    /* eight bytes at a time while they hold fewer ends than still wanted */
    while (n > 8 && end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        /* bytes without the continuation bit end a varint; sum their flags */
        uint64_t flags = (~w & 0x8080808080808080ull) >> 7;
        unsigned ends = (unsigned)((flags * 0x0101010101010101ull) >> 56);
        if (ends >= n)
            break;
        n -= ends;
        p += 8;
    }
    while (n > 0) {
        if (p >= end)
            return -1;
        n -= (*p++ & 0x80) == 0;
    }
    *pp = p;
    return 0;
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
    if (n >= STRING_DICT_MIN && (get_varint(sp, se, k) != 0 || *k > 65536 || *k > n))
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
        if (k == 0) {
            if (read_strings(sp, se, n, ptr, len) != 0)
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

/* A numeric column's coding (see LTKA_COL_DELTA). */
typedef struct column_coding {
    int delta, pad_mode, planes;
    uint64_t arg; /* the constant pad (mode 0) or width << 1 | sign (mode 1) */
} column_coding;

/* Reads the coding of the next numeric column from the meta stream; -1 when missing or bad. */
static inline __attribute__((always_inline)) int read_column_coding(const uint8_t **mp, const uint8_t *me,
                                                                    column_coding *cc)
{
    if (*mp >= me)
        return -1;
    uint8_t meta = *(*mp)++;
    cc->delta = meta & LTKA_COL_DELTA;
    cc->pad_mode = meta >> 1 & 3;
    cc->planes = (meta & LTKA_COL_PLANES) != 0;
    cc->arg = 0;
    if (meta > 15 || cc->pad_mode > 2 || (cc->planes && (meta & 7) != 0))
        return -1;
    if (cc->pad_mode < 2 && logtk_varint_get(mp, me, &cc->arg) != 0)
        return -1;
    return cc->planes && cc->arg != 0 ? -1 : 0;
}

/* Value r of an octet-plane column of n values at p (4n bytes, checked by the caller). */
static inline uint64_t plane_value(const uint8_t *p, uint32_t n, uint32_t r)
{
    return (uint64_t)p[r] << 24 | (uint64_t)p[(size_t)n + r] << 16 | (uint64_t)p[2 * (size_t)n + r] << 8 |
           p[3 * (size_t)n + r];
}

/* Skips the values of a numeric column of n values: varints, or 4n bytes of octet planes. */
static int skip_column_values(const uint8_t **np, const uint8_t *ne, int planes, uint32_t n)
{
    if (!planes)
        return skip_varints(np, ne, n);
    if ((size_t)(ne - *np) / 4 < n)
        return -1;
    *np += 4 * (size_t)n;
    return 0;
}

/*
 * Skips one numeric column of n values that is not wanted, when its chunk
 * is being parsed: its values and, for explicit zero padding (pad mode 2),
 * the n padding bytes after them.  Returns NULL, or the message of what is
 * damaged.
 */
static const char *skip_number_column(const uint8_t **np, const uint8_t *ne, int chunk_parse,
                                      const column_coding *cc, uint32_t n)
{
    if (!chunk_parse)
        return NULL;
    if (skip_column_values(np, ne, cc->planes, n) != 0)
        return "truncated numeric column";
    if (cc->pad_mode == 2) {
        if ((size_t)(ne - *np) < n)
            return "truncated zero-padding column";
        *np += n;
    }
    return NULL;
}


/*
 * Expands the numeric and string columns.  With want non-NULL, only the
 * columns of templates t with want[t] set are expanded; the others are
 * skipped over (search uses this to avoid the work for lines it will not
 * rebuild).
 */
static int parse_columns(ltka_decoder *d, const uint8_t *want, const uint64_t *sel, size_t nsel,
                         logtk_errbuf *err)
{
    size_t nnum = 0, nstr = 0;
    for (uint32_t t = 0; t < d->ntemplates; t++) {
        tmpl_info *ti = &d->tmpls[t];
        ti->num_base = nnum;
        ti->str_base = nstr;
        nnum += (size_t)ti->nnum * ti->count;
        nstr += (size_t)ti->nstr * ti->count;
        if (nnum > d->streams[LTKA_S_NUMS].len || nstr > d->raw_len[LTKA_S_STRS])
            return BAD("more variables than stored values");
    }
    if (logtk_array_reserve((void **)&d->nums, &d->nums_cap, nnum + 1, sizeof *d->nums) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint8_t *pd = realloc(d->pads, d->nums_cap);
    if (!pd)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->pads = pd;
    if (logtk_array_reserve((void **)&d->strp, &d->strs_cap, nstr + 1, sizeof *d->strp) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    uint32_t *sl = realloc(d->strl, d->strs_cap * sizeof *sl);
    if (!sl)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    d->strl = sl;

    const uint8_t *mp = (const uint8_t *)d->streams[LTKA_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTKA_S_NUMMETA].len;
    /* the chunks of the numbers stream that hold wanted columns, and their last wanted template */
    if (logtk_array_reserve((void **)&d->chunk_need, &d->chunk_need_cap, (size_t)d->nchunks + 1, 1) != 0 ||
        logtk_array_reserve((void **)&d->chunk_last, &d->chunk_last_cap, (size_t)d->nchunks + 1,
                            sizeof *d->chunk_last) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
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
    const uint8_t *nbase = (const uint8_t *)d->streams[LTKA_S_NUMS].data;
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
    if (need_strs && (rc = ensure_stream(d, LTKA_S_STRS, err)) != LOGTK_OK)
        return rc;
    const uint8_t *sp = need_strs ? (const uint8_t *)d->streams[LTKA_S_STRS].data : NULL;
    const uint8_t *se = need_strs ? sp + d->streams[LTKA_S_STRS].len : NULL;
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
                ltka_chunk *ch = &d->chunks[chunk];
                if ((rc = chunk_prefix(d, chunk, ch->raw_len, err)) != LOGTK_OK)
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
            if (op->kind == LTKA_M_STR && skip) {
                if (need_strs && read_string_columns(&sp, se, 1, n, NULL, NULL, NULL, NULL) != 0)
                    return BAD("template %u: bad string variable", t);
                continue;
            }
            if (op->kind == LTKA_M_STR) {
                size_t base = ti->str_base + (size_t)op->slot * n;
                if (!d->dict_ptr || !d->dict_len) {
                    /* made once per decoder, when a block first has a string column */
                    free(d->dict_ptr);
                    free(d->dict_len);
                    d->dict_ptr = malloc(65536 * sizeof *d->dict_ptr);
                    d->dict_len = malloc(65536 * sizeof *d->dict_len);
                    if (!d->dict_ptr || !d->dict_len)
                        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
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
            if (cc.planes && op->kind != LTKA_M_IP)
                return BAD("template %u: bad column coding", t);
            if (skip || !chunk_parse) {
                /* a chunk not parsed this far holds no wanted column here */
                const char *why = skip_number_column(&np, ne, chunk_parse, &cc, n);
                if (why)
                    return BAD("template %u: %s", t, why);
                continue;
            }
            int snum = op->kind == LTKA_M_SNUM;
            int hex = op->kind == LTKA_M_HEXL || op->kind == LTKA_M_HEXU;
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
            int ip = op->kind == LTKA_M_IP; /* values checked by ltka_ip_value_ok instead of limit */
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
                    if (vals[r] >= limit || (ip && !ltka_ip_value_ok(vals[r])))
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
                    if (!ltka_ip_value_ok(vals[k]))
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
    if (mp != me || (last_parsed && np != chunk_end) || chunk + 1 < d->nchunks || d->raw_len[LTKA_S_PADS] != 0 ||
        (need_strs && sp != se))
        return BAD("column streams have unused bytes");
    return LOGTK_OK;
}

/* The bits of packed IP parts: index bit 3 - k selects part k (see LTKA_TEST_IP_PACKED). */
#define IP_PART(k) ((uint64_t)0xfff << (36 - 12 * (k)))
#define IP_PARTS(f)                                                                                      \
    (((f) & 8 ? IP_PART(0) : 0) | ((f) & 4 ? IP_PART(1) : 0) | ((f) & 2 ? IP_PART(2) : 0) | ((f) & 1 ? IP_PART(3) : 0))
static const uint64_t ip_part_masks[16] = {IP_PARTS(0),  IP_PARTS(1),  IP_PARTS(2),  IP_PARTS(3),
                                           IP_PARTS(4),  IP_PARTS(5),  IP_PARTS(6),  IP_PARTS(7),
                                           IP_PARTS(8),  IP_PARTS(9),  IP_PARTS(10), IP_PARTS(11),
                                           IP_PARTS(12), IP_PARTS(13), IP_PARTS(14), IP_PARTS(15)};

/* Nonzero when v passes test t (see ltka_num_test). */
static inline int number_test_passes(const ltka_num_test *t, uint64_t v)
{
    if (t->kind == LTKA_TEST_EXACT)
        return v == t->value;
    if (t->kind == LTKA_TEST_SUFFIX)
        return v % pow10_table[t->len] == t->value;
    if (t->kind == LTKA_TEST_IP_MASK) /* a packed non-canonical quad passes: LTKA_TEST_IP_PACKED tests it */
        return (v >> 32) != 0 || (v & t->value >> 32) == (t->value & 0xffffffffu);
    if (t->kind == LTKA_TEST_IP_PACKED) {
        uint64_t m = ip_part_masks[t->value >> 48];
        return (v >> 32) == 0 || (v & m) == (t->value & m);
    }
    /* PREFIX: v's own digits (no zero padding: the prefix starts with 1-9) start with value's */
    unsigned nd = 1;
    while (nd < 20 && v >= pow10_table[nd])
        nd++;
    return nd >= t->len && v / pow10_table[nd - t->len] == t->value;
}

/*
 * Tests of one plain (not delta) column whose units are mostly dead already
 * (an earlier column of the same alignment failed them: "10.251.43.115"
 * leaves few units alive after 251): only the values of the live units are
 * read, the others skipped eight bytes at a time.  Returns 0 with *pp past
 * the column, 1 when the column is not sparse enough (nothing read), or -1
 * with *bad set on a truncated column.
 */
static int sparse_column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, const ltka_num_test *tests,
                               size_t ntests, int *bad)
{
    uint8_t bits = 0;
    const uint8_t *alive = tests[0].alive;
    for (size_t q = 0; q < ntests; q++) {
        if (tests[q].alive != alive)
            return 1;
        bits |= tests[q].bit;
    }
    uint32_t live = 0;
    for (uint32_t r = 0; r < n; r++)
        live += (alive[r] & bits) != 0;
    if ((uint64_t)live * 8 >= n)
        return 1;
    const uint8_t *p = *pp;
    uint32_t at = 0; /* rank of the value at p */
    for (uint32_t r = 0; r < n && live > 0; r++) {
        if (!(alive[r] & bits))
            continue;
        uint64_t v;
        if (skip_varints(&p, end, r - at) != 0 || get_varint(&p, end, &v) != 0) {
            *bad = 1;
            return -1;
        }
        at = r + 1;
        live--;
        for (size_t q = 0; q < ntests; q++)
            if (!number_test_passes(&tests[q], v))
                tests[q].alive[r] &= (uint8_t)~tests[q].bit;
    }
    if (skip_varints(&p, end, n - at) != 0) {
        *bad = 1;
        return -1;
    }
    *pp = p;
    return 0;
}

/*
 * How strongly a column's tests are expected to thin out its units,
 * higher: more.  Mainly how many of its first SAMPLE_VALUES values fail
 * every test (a sample of the block's own data: in HDFS logs nearly every
 * address is 10.251.x.x or 10.250.x.x, so the exact 251 of "10.251.43.115"
 * passes most units while the 43 does not); on a tie a test of more digits
 * passes fewer values, and an exact value fewer than a prefix or suffix of
 * as many digits.  The weakest test of the column counts there.  -1 when
 * the sample runs past the chunk (the full read reports it).
 */
#define SAMPLE_VALUES 64
static int column_selectivity(const uint8_t *p, const uint8_t *end, uint32_t n, int delta,
                              const ltka_num_test *tests, size_t ntests)
{
    int digits = 64;
    for (size_t q = 0; q < ntests; q++) {
        int s = 2 * tests[q].len + (tests[q].kind == LTKA_TEST_EXACT);
        if (s < digits)
            digits = s;
    }
    uint32_t m = n < SAMPLE_VALUES ? n : SAMPLE_VALUES, fail = 0;
    uint64_t prev = 0;
    if (delta == 2 && (size_t)(end - p) / 4 < n)
        return -1;
    for (uint32_t r = 0; r < m; r++) {
        uint64_t v;
        if (delta == 2)
            v = plane_value(p, n, r);
        else if (get_varint(&p, end, &v) != 0)
            return -1;
        else if (delta) {
            prev += (v >> 1) ^ (uint64_t)(-(int64_t)(v & 1));
            v = prev;
        }
        int pass = 0;
        for (size_t q = 0; q < ntests && !pass; q++)
            pass = number_test_passes(&tests[q], v);
        fail += !pass;
    }
    /* failures scaled to the sample size first, the digits second */
    return (int)((uint64_t)fail * 1024 / (m ? m : 1)) * 64 + digits;
}

/* A tested column of one template: where its values start and its tests. */
typedef struct tested_column {
    const uint8_t *start;
    size_t t0, t1; /* its tests[t0..t1) */
    uint8_t delta; /* 0 raw varints, 1 delta varints, 2 octet planes */
    int score; /* column_selectivity */
} tested_column;
#define MAX_TESTED_COLUMNS 32 /* more per template: the rest run in column order */

/* Byte strings that the varint of every value passing a column's tests starts with. */
typedef struct varint_prefixes {
    uint8_t bytes[2][10];
    uint8_t len[2];
    unsigned n;
} varint_prefixes;

/* The first k bytes of the varint of any value v >= 2^(7k) whose low 7k bits are those of low. */
static void continued_prefix(uint64_t low, unsigned k, uint8_t *out)
{
    for (unsigned i = 0; i < k; i++)
        out[i] = (uint8_t)(((low >> (7 * i)) & 0x7f) | 0x80);
}

/*
 * When the tests of one column all clear the same alive bit, the byte
 * strings (one or two) that the varint of every value passing all of them
 * must start with: an exact value's whole varint; for an address test, the
 * bytes its fixed low octets determine ("251.43.115" of "10.251.43.115",
 * whose first octet may be 10, 110 or 210, fixes the low 24 bits: three
 * bytes), and for its packed companion the bytes the parts it fixes from
 * the last one determine (none when it rules out every packed value).
 * Returns 0 when there is no such prefix of at least one byte.
 */
static int column_prefixes(const ltka_num_test *tests, size_t ntests, varint_prefixes *vp)
{
    const ltka_num_test *exact = NULL, *mask = NULL, *packed = NULL;
    vp->n = 0;
    for (size_t q = 0; q < ntests; q++) {
        const ltka_num_test *t = &tests[q];
        if (t->alive != tests[0].alive || t->bit != tests[0].bit)
            return 0;
        if (t->kind == LTKA_TEST_EXACT)
            exact = t;
        else if (t->kind == LTKA_TEST_IP_MASK)
            mask = t;
        else if (t->kind == LTKA_TEST_IP_PACKED)
            packed = t;
    }
    if (exact) {
        uint64_t v = exact->value;
        unsigned k = 0;
        for (;; v >>= 7) {
            vp->bytes[0][k++] = (uint8_t)(v >= 0x80 ? (v & 0x7f) | 0x80 : v);
            if (v < 0x80)
                break;
        }
        vp->len[0] = (uint8_t)k;
        vp->n = 1;
        return 1;
    }
    if (!mask || !packed)
        return 0; /* an address test alone passes every packed value */
    /* addresses: the low bits the mask fixes, as far as the value surely goes on */
    uint64_t m = mask->value >> 32, bits = mask->value & 0xffffffffu;
    unsigned fixed = (unsigned)__builtin_ctzll(~m), k = fixed / 7;
    while (k > 0 && bits < ((uint64_t)1 << (7 * k)))
        k--;
    if (k == 0)
        return 0;
    continued_prefix(bits, k, vp->bytes[0]);
    vp->len[0] = (uint8_t)k;
    vp->n = 1;
    /* packed quads: parts fixed from the last one up (a value >= 2^48 goes on for 7 bytes) */
    unsigned flags = (unsigned)(packed->value >> 48), low = 0;
    for (unsigned part = 0; part < 4; part++)
        if (flags & (8u >> part) && ((packed->value >> (36 - 12 * part)) & 0xfff) == 0xfff)
            return 1; /* no packed value passes */
    for (unsigned part = 3; part < 4 && (flags & (8u >> part)); part--)
        low += 12;
    if (low < 7)
        return 0;
    continued_prefix(packed->value, low / 7, vp->bytes[1]);
    vp->len[1] = (uint8_t)(low / 7);
    vp->n = 2;
    return 1;
}

/* Varint ends (bytes without the continuation bit) in p[0..len). */
static size_t count_varint_ends(const uint8_t *p, size_t len)
{
    size_t ends = 0, i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= len; i += 16)
        ends += varint_ends16(p + i);
#endif
    for (; i < len; i++)
        ends += (p[i] & 0x80) == 0;
    return ends;
}

/*
 * Tests of a plain varint column whose passing values all start with one of
 * vp's byte strings (see column_prefixes): instead of decoding every value,
 * the column's bytes are searched for them (memchr for the first byte, then
 * a compare); a hit counts only where a varint starts (at the column's
 * start or after an end byte), its value is decoded and tested, and its
 * rank is the number of ends before it.  The encoder writes every varint in
 * its shortest form, so a value has one spelling.  Units whose value does
 * not pass lose the tests' bit.  Returns 0, 1 when too many values pass for
 * this way (nothing changed: the caller tests value by value), or -1 on a
 * truncated column.
 */
#define PREFIX_SURVIVORS 256
static int prefix_column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, const varint_prefixes *vp,
                               const ltka_num_test *tests, size_t ntests)
{
    const uint8_t *start = *pp, *col_end = start;
    if (skip_varints(&col_end, end, n) != 0)
        return -1;
    uint8_t *alive = tests[0].alive, bit = tests[0].bit;
    uint32_t survivors[PREFIX_SURVIVORS];
    unsigned nsurv = 0;
    for (unsigned i = 0; i < vp->n; i++) {
        const uint8_t *pat = vp->bytes[i];
        size_t plen = vp->len[i], rank = 0;
        const uint8_t *p = start, *counted = start;
        while ((size_t)(col_end - p) >= plen) {
            const uint8_t *hit = memchr(p, pat[0], (size_t)(col_end - p) - plen + 1);
            if (!hit)
                break;
            p = hit + 1;
            if ((hit > start && (hit[-1] & 0x80)) || memcmp(hit, pat, plen) != 0)
                continue;
            rank += count_varint_ends(counted, (size_t)(hit - counted));
            counted = hit;
            const uint8_t *q = hit;
            uint64_t v;
            if (rank >= n || get_varint(&q, col_end, &v) != 0)
                return -1;
            if (!(alive[rank] & bit))
                continue;
            int pass = 1;
            for (size_t t = 0; t < ntests && pass; t++)
                pass = number_test_passes(&tests[t], v);
            if (!pass)
                continue;
            if (nsurv == PREFIX_SURVIVORS)
                return 1;
            survivors[nsurv++] = (uint32_t)rank;
        }
    }
    /* every unit loses the bit but the survivors (ranks ascending within each string's pass) */
    for (unsigned i = 1; i < nsurv; i++)
        for (unsigned j = i; j > 0 && survivors[j] < survivors[j - 1]; j--) {
            uint32_t tmp = survivors[j];
            survivors[j] = survivors[j - 1];
            survivors[j - 1] = tmp;
        }
    uint32_t next = 0;
    for (unsigned i = 0; i < nsurv; i++) {
        for (; next < survivors[i]; next++)
            alive[next] &= (uint8_t)~bit;
        next = survivors[i] + 1;
    }
    for (; next < n; next++)
        alive[next] &= (uint8_t)~bit;
    *pp = col_end;
    return 0;
}

/*
 * Runs tests[0..ntests) of one column of n values at *pp (moved past it):
 * sparsely when few units are still alive and the column is plain, else
 * value by value, testing only units the test's alignment still allows.
 * 0, or -1 on a truncated column.
 */
static int column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, int delta, const ltka_num_test *tests,
                        size_t ntests)
{
    int bad = 0;
    if (delta == 2) {
        /* octet planes: every value at a fixed place, only live units read */
        const uint8_t *p = *pp;
        if ((size_t)(end - p) / 4 < n)
            return -1;
        for (uint32_t r = 0; r < n; r++) {
            uint64_t v = 0;
            int got = 0;
            for (size_t q = 0; q < ntests; q++)
                if (tests[q].alive[r] & tests[q].bit) {
                    if (!got) {
                        v = plane_value(p, n, r);
                        got = 1;
                    }
                    if (!number_test_passes(&tests[q], v))
                        tests[q].alive[r] &= (uint8_t)~tests[q].bit;
                }
        }
        *pp = p + 4 * (size_t)n;
        return 0;
    }
    if (!delta && sparse_column_tests(pp, end, n, tests, ntests, &bad) == 0)
        return 0; /* few units still alive: only their values were read */
    if (bad)
        return -1;
    varint_prefixes vp;
    if (!delta && column_prefixes(tests, ntests, &vp)) {
        int rc = prefix_column_tests(pp, end, n, &vp, tests, ntests);
        if (rc <= 0)
            return rc;
    }
    /* values past the last unit an alignment still allows need no test (none alive: only skipping) */
    uint32_t upto = 0;
    for (uint32_t r = n; r > 0 && upto == 0; r--)
        for (size_t q = 0; q < ntests; q++)
            if (tests[q].alive[r - 1] & tests[q].bit) {
                upto = r;
                break;
            }
    const uint8_t *np = *pp;
    uint64_t prev = 0;
    for (uint32_t r = 0; r < upto; r++) {
        uint64_t v;
        if (get_varint(&np, end, &v) != 0)
            return -1;
        if (delta) {
            prev += (v >> 1) ^ (uint64_t)(-(int64_t)(v & 1));
            v = prev;
        }
        for (size_t q = 0; q < ntests; q++)
            if ((tests[q].alive[r] & tests[q].bit) && !number_test_passes(&tests[q], v))
                tests[q].alive[r] &= (uint8_t)~tests[q].bit;
    }
    if (skip_varints(&np, end, n - upto) != 0)
        return -1;
    *pp = np;
    return 0;
}

/*
 * Nonzero when a column of fixed width w (every value written with exactly
 * w digits: pad mode 1) cannot hold what test t asks for: a whole number of
 * t->len digits needs w == len, a prefix or suffix of len digits w >= len.
 * (Decimal and hex widths both count digits, as the tests' lengths do.)
 */
static int width_rules_out(const ltka_num_test *t, uint64_t w)
{
    if (t->kind == LTKA_TEST_EXACT)
        return w != t->len;
    if (t->kind == LTKA_TEST_SUFFIX || t->kind == LTKA_TEST_PREFIX)
        return w < t->len;
    return 0;
}

/*
 * Before any chunk is decompressed: marks in d->test_live the tests that
 * still have a unit to look at.  A test that its column's coding alone
 * rules out (width_rules_out) fails every unit of its alignment, without
 * reading a value: a time's two-digit minutes never hold "251" of
 * "10.251.43.115", so the chunk of a log's timestamp columns is not
 * decompressed for that query.  Tests are walked as
 * ltka_decode_number_tests walks them (by template, then slot; a slot the
 * template lacks is dropped).  0, or -1 on a bad column coding.
 */
static int number_tests_live(ltka_decoder *d, const ltka_num_test *tests, size_t ntests, uint32_t last_t)
{
    const uint8_t *mp = (const uint8_t *)d->streams[LTKA_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTKA_S_NUMMETA].len;
    uint8_t *live = d->test_live;
    size_t q = 0;
    for (uint32_t t = 0; t <= last_t && q < ntests; t++) {
        const tmpl_info *ti = &d->tmpls[t];
        size_t first = q; /* the template's tests */
        /* alignments (alive array and bit) ruled out in this template */
        enum { MAX_KILLED = 16 };
        uint8_t *killed_alive[MAX_KILLED];
        uint8_t killed_bit[MAX_KILLED];
        unsigned nkilled = 0;
        for (uint32_t k = 0; k < ti->nnum; k++) {
            column_coding cc;
            if (read_column_coding(&mp, me, &cc) != 0)
                return -1;
            for (; q < ntests && (tests[q].tmpl < t || (tests[q].tmpl == t && tests[q].slot < k)); q++)
                live[q] = 0;
            for (; q < ntests && tests[q].tmpl == t && tests[q].slot == k; q++) {
                live[q] = 1;
                if (cc.pad_mode == 1 && width_rules_out(&tests[q], cc.arg >> 1) && nkilled < MAX_KILLED) {
                    unsigned j = 0;
                    while (j < nkilled && (killed_alive[j] != tests[q].alive || killed_bit[j] != tests[q].bit))
                        j++;
                    if (j == nkilled) {
                        killed_alive[nkilled] = tests[q].alive;
                        killed_bit[nkilled++] = tests[q].bit;
                        for (uint32_t r = 0; r < ti->count; r++)
                            tests[q].alive[r] &= (uint8_t)~tests[q].bit;
                    }
                }
            }
        }
        for (; q < ntests && tests[q].tmpl == t; q++)
            live[q] = 0; /* slots the template does not have */
        /* a test whose units all failed already needs no values */
        for (size_t i = first; i < q; i++) {
            if (!live[i] || tests[i].tmpl != t)
                continue;
            for (unsigned j = 0; j < nkilled && live[i]; j++)
                live[i] = killed_alive[j] != tests[i].alive || killed_bit[j] != tests[i].bit;
            if (live[i]) {
                uint32_t r = 0;
                while (r < ti->count && !(tests[i].alive[r] & tests[i].bit))
                    r++;
                live[i] = r < ti->count;
            }
        }
    }
    for (; q < ntests; q++)
        live[q] = 0;
    return 0;
}

/*
 * Walks the column codings and the numbers chunks the way parse_columns
 * does, but only as far as the last tested template, decompressing only the
 * chunks that hold tested columns and skipping every untested column by
 * count; a tested column is summed (delta) or read value by value and each
 * value checked on the spot.  Search runs this before expanding anything,
 * so a parameter value (an IP, a block id) costs one pass over its
 * column instead of rebuilding every line of its template.
 */
int ltka_decode_number_tests(ltka_decoder *d, const ltka_num_test *tests, size_t ntests, logtk_errbuf *err)
{
    if (ntests == 0 || d->nchunks == 0)
        return LOGTK_OK; /* no numbers stored: nothing to test (parse_columns judges the block) */
    uint32_t last_t = tests[ntests - 1].tmpl;
    if (last_t >= d->ntemplates)
        return logtk_error_set(err, LOGTK_ERR_INVALID, "number test of a template out of range");
    if (logtk_array_reserve((void **)&d->test_live, &d->test_live_cap, ntests, 1) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (number_tests_live(d, tests, ntests, last_t) != 0)
        return BAD("bad or missing column coding");
    const uint8_t *live = d->test_live;
    size_t live_next = 0; /* the first live test at or after ti_next */
    const uint8_t *mp = (const uint8_t *)d->streams[LTKA_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTKA_S_NUMMETA].len;
    const uint8_t *nbase = (const uint8_t *)d->streams[LTKA_S_NUMS].data;
    const uint8_t *np = NULL, *ne = NULL;
    uint32_t chunk = 0;
    int chunk_open = 0; /* np..ne is the current chunk, decompressed */
    size_t ti_next = 0; /* next test */
    for (uint32_t t = 0; t <= last_t; t++) {
        const tmpl_info *ti = &d->tmpls[t];
        while (chunk + 1 < d->nchunks && d->chunks[chunk + 1].first_template <= t) {
            chunk++;
            chunk_open = 0;
        }
        /* does this chunk hold a template with a live test from t on? */
        if (live_next < ti_next)
            live_next = ti_next;
        while (live_next < ntests && !live[live_next])
            live_next++;
        if (!chunk_open && live_next < ntests && tests[live_next].tmpl >= t &&
            (chunk + 1 >= d->nchunks || tests[live_next].tmpl < d->chunks[chunk + 1].first_template)) {
            ltka_chunk *ch = &d->chunks[chunk];
            int rc = chunk_prefix(d, chunk, ch->raw_len, err);
            if (rc != LOGTK_OK)
                return rc;
            np = nbase + ch->raw_off;
            ne = np + ch->raw_len;
            chunk_open = 1;
        }
        uint32_t n = ti->count;
        tested_column cols[MAX_TESTED_COLUMNS];
        unsigned ncols = 0;
        for (uint32_t k = 0; k < ti->nnum; k++) {
            column_coding cc;
            if (read_column_coding(&mp, me, &cc) != 0)
                return BAD("template %u: bad or missing column coding", t);
            int delta = cc.planes ? 2 : cc.delta; /* value coding: 0 raw, 1 delta, 2 octet planes */
            if (!chunk_open)
                continue;
            size_t t0 = ti_next;
            int any_live = 0;
            while (ti_next < ntests && tests[ti_next].tmpl == t && tests[ti_next].slot == k)
                any_live |= live[ti_next++];
            if (!any_live)
                t0 = ti_next; /* every unit failed already: no values needed */
            if (t0 != ti_next && ncols < MAX_TESTED_COLUMNS) {
                /* remembered, run below in order of selectivity; skipped over for now */
                tested_column *c = &cols[ncols++];
                c->start = np;
                c->t0 = t0;
                c->t1 = ti_next;
                c->delta = (uint8_t)delta;
                c->score = column_selectivity(np, ne, n, delta, tests + t0, ti_next - t0);
                t0 = ti_next;
            }
            if (t0 == ti_next) {
                if (skip_number_column(&np, ne, 1, &cc, n) != NULL)
                    return BAD("template %u: truncated numeric column", t);
                continue;
            }
            if (column_tests(&np, ne, n, delta, tests + t0, ti_next - t0) != 0 ||
                (cc.pad_mode == 2 && (size_t)(ne - np) < n))
                return BAD("template %u: truncated numeric column", t);
            if (cc.pad_mode == 2)
                np += n; /* its zero padding */
        }
        /* most selective column first, so that the others are read only at its survivors */
        for (unsigned i = 1; i < ncols; i++)
            for (unsigned j = i; j > 0 && cols[j].score > cols[j - 1].score; j--) {
                tested_column tmp = cols[j];
                cols[j] = cols[j - 1];
                cols[j - 1] = tmp;
            }
        for (unsigned i = 0; i < ncols; i++) {
            const uint8_t *p = cols[i].start;
            if (column_tests(&p, ne, n, cols[i].delta, tests + cols[i].t0, cols[i].t1 - cols[i].t0) != 0)
                return BAD("template %u: truncated numeric column", t);
        }
        /* tests of slots the template does not have (or out of order) are dropped */
        while (ti_next < ntests && tests[ti_next].tmpl == t)
            ti_next++;
    }
    return LOGTK_OK;
}

uint32_t ltka_decoder_template_lines(const ltka_decoder *d, uint32_t t)
{
    return d->tmpls[t].count;
}

const uint32_t *ltka_decoder_unit_ranks(const ltka_decoder *d)
{
    return d->line_rank;
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
    return decode_result(d, rc);
}

int ltka_decode_lines(ltka_decoder *d, logtk_errbuf *err)
{
    return ltka_decode_lines_masked(d, NULL, NULL, err);
}

int ltka_decode_lines_masked(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                             logtk_errbuf *err)
{
    int rc = read_line_streams(d, err);
    if (rc == LOGTK_OK)
        rc = parse_lines(d, tmask, line_mask, err);
    return decode_result(d, rc);
}

int ltka_decode_prepare(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err)
{
    int rc = ltka_decode_templates(d, payload, len, expect_lines, expect_bytes, err);
    return rc == LOGTK_OK ? ltka_decode_lines(d, err) : rc;
}

int ltka_decode_values(ltka_decoder *d, const uint8_t *want, logtk_errbuf *err)
{
    int rc = parse_columns(d, want, NULL, 0, err);
    return decode_result(d, rc);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ltka_decode_values_for_lines(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 logtk_errbuf *err)
{
    /* many lines: expanding every column is cheaper than picking */
    if ((uint64_t)nsel * 16 > d->nlines)
        return ltka_decode_values(d, NULL, err);
    size_t np = d->nparts, n = (size_t)nsel * np;
    if (logtk_array_reserve((void **)&d->sel, &d->sel_cap, n + 1, sizeof *d->sel) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
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
    return decode_result(d, rc);
}

int ltka_decode_values_for_units(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 const uint8_t *tmask, logtk_errbuf *err)
{
    /* many lines: expanding the marked templates' columns whole is cheaper than picking */
    if ((uint64_t)nsel * 16 > d->nlines)
        return decode_result(d, parse_columns(d, tmask, NULL, 0, err));
    size_t np = d->nparts, n = 0;
    if (logtk_array_reserve((void **)&d->sel, &d->sel_cap, (size_t)nsel * np + 1, sizeof *d->sel) != 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
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
    return decode_result(d, parse_columns(d, NULL, d->sel, m, err));
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

const uint32_t *ltka_decoder_unit_templates(const ltka_decoder *d)
{
    return d->line_tid;
}

uint32_t ltka_decoder_line_template(const ltka_decoder *d, uint32_t i, uint32_t p)
{
    return d->line_tid[(size_t)p * d->nlines + i];
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

/*
 * Writes the dotted quad of IP value v (checked by ltka_ip_value_ok) at
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
    unsigned snum = op->kind == LTKA_M_SNUM;
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
    const char *xdigits = op->kind == LTKA_M_HEXL ? "0123456789abcdef" : "0123456789ABCDEF";
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
    if (__builtin_expect(op->kind > LTKA_M_SNUM, 0))
        return op->kind == LTKA_M_IP ? put_ip(dst, v) : put_hex_number(dst, op, v, pad);
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
static inline __attribute__((always_inline)) int put_unit(ltka_decoder *d, size_t u, logtk_strbuf *out)
{
    const tmpl_info *ti = &d->tmpls[d->line_tid[u]];
    if (!ti->built) /* checked here: the call costs more than the check, and most units find ops built */
        build_ops(d, d->line_tid[u]);
    if (ti->nops == 0)
        return LOGTK_OK; /* empty part (d->ops may still be NULL) */
    uint32_t k = d->line_rank[u], n = ti->count;
    const tmpl_op *op = d->ops + ti->first_op, *ope = op + ti->nops;
    if (out->cap - out->len < (size_t)ti->max_fixed + 25 &&
        logtk_strbuf_reserve(out, (size_t)ti->max_fixed + 24) != 0)
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
        } else if (op->kind == LTKA_M_STR) {
            size_t x = ti->str_base + (size_t)op->slot * n + k;
            size_t sl = d->strl[x];
            out->len = (size_t)(dst - out->data);
            /* room for this string and everything fixed that may follow */
            if (logtk_strbuf_reserve(out, sl + (size_t)ti->max_fixed + 24) != 0)
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

int ltka_decoder_unit(ltka_decoder *d, uint32_t i, uint32_t p, logtk_strbuf *out)
{
    if (put_unit(d, (size_t)p * d->nlines + i, out) != LOGTK_OK)
        return LOGTK_ERR_NOMEM;
    if (out->cap)
        out->data[out->len] = '\0';
    return LOGTK_OK;
}

int ltka_decoder_unit_has_number(ltka_decoder *d, uint32_t i, uint32_t p, uint64_t v, const char *digits,
                                 size_t n)
{
    size_t u = (size_t)p * d->nlines + i;
    build_ops(d, d->line_tid[u]);
    const tmpl_info *ti = &d->tmpls[d->line_tid[u]];
    uint32_t k = d->line_rank[u];
    const tmpl_op *op = d->ops + ti->first_op, *ope = op + ti->nops;
    for (; op < ope; op++) {
        if (op->kind != LTKA_M_UNUM && op->kind != LTKA_M_SNUM)
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

int ltka_decoder_line(ltka_decoder *d, uint32_t i, int with_eol, logtk_strbuf *out)
{
    for (uint32_t p = 0; p < d->nparts; p++)
        if (put_unit(d, (size_t)p * d->nlines + i, out) != LOGTK_OK)
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

int ltka_test_decode_nomem;

int ltka_decode_block(ltka_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, logtk_strbuf *text, ltka_stream_sizes *sizes,
                      logtk_errbuf *err)
{
    if (__atomic_load_n(&ltka_test_decode_nomem, __ATOMIC_RELAXED) > 0 &&
        __atomic_sub_fetch(&ltka_test_decode_nomem, 1, __ATOMIC_RELAXED) >= 0)
        return logtk_error_set(err, LOGTK_ERR_NOMEM, "out of memory (test hook)");
    int rc = ltka_decode_columns(d, payload, len, expect_lines, expect_bytes, err);
    if (rc != LOGTK_OK)
        return rc;
    if (sizes)
        for (int i = 0; i < LTKA_NSTREAMS; i++) {
            sizes->raw[i] += d->streams[i].len;
            sizes->stored[i] += d->stored[i];
        }
    logtk_strbuf_clear(text);
    /* the header's size, up to a bound: a forged one must not make this fail for want of memory */
    size_t room = expect_bytes < ((size_t)64 << 20) ? expect_bytes : ((size_t)64 << 20);
    if (logtk_strbuf_reserve(text, room + 4096) != 0)
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
