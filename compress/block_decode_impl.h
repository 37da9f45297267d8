/*
 * block_decode_impl.h - the block decoder's state and the column readers
 * that block_decode.c (decoding) and block_query.c (search's queries on a
 * decoded block) share (internal to those two files).
 */
#ifndef LTK_BLOCK_DECODE_IMPL_H
#define LTK_BLOCK_DECODE_IMPL_H

#include <stdint.h>
#include <string.h>
#include <zstd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "archive_container.h"
#include "block_decode.h"
#include "block_query.h"

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
typedef struct ltk_chunk {
    uint32_t first_template;
    size_t avail;      /* bytes of it decompressed into the stream buffer so far */
    size_t raw_off;    /* in the stream buffer */
    size_t raw_len;
    const uint8_t *src; /* stored bytes inside the payload */
    size_t stored_off, stored_len;
} ltk_chunk;

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

struct ltk_decoder {
    ZSTD_DCtx *dctx;
    ltk_strbuf streams[LTK_NSTREAMS];
    uint64_t stored[LTK_NSTREAMS];
    uint64_t raw_len[LTK_NSTREAMS];
    const uint8_t *src[LTK_NSTREAMS]; /* stream bytes inside the payload */
    uint8_t loaded[LTK_NSTREAMS];     /* decompressed into streams[i] for this block */
    uint32_t nlines, ntemplates;
    uint32_t nparts; /* units per line: header parts + the rest */
    int messages;    /* the block keeps each message as a string (LTK_PARTS_MESSAGES) */
    uint32_t expect_bytes;
    tmpl_info *tmpls;
    size_t tmpls_cap;
    tmpl_op *ops;
    size_t ops_cap, nops;
    ltk_strbuf lits;
    uint32_t *line_tid, *line_rank; /* per unit, part-major: part * nlines + line */
    const uint8_t *line_eol; /* per line, inside streams[LTK_S_EOLS] */
    size_t lines_cap;
    const uint8_t *part_col[LTK_MAX_HEADER_PARTS + 1]; /* template-id column of each part ... */
    uint8_t part_width[LTK_MAX_HEADER_PARTS + 1];      /* ... and its id width */
    uint32_t *part_count; /* search: lines per (part, template), part * (ntemplates + 1) + t */
    size_t part_count_cap;
    uint32_t *part_snap; /* search: the same counts before every CHECKPOINT_LINES lines of a part */
    size_t part_snap_cap;
    ltk_chunk *chunks; /* of the numbers stream */
    size_t chunks_cap;
    uint32_t nchunks;
    uint8_t *chunk_need;
    size_t chunk_need_cap;
    uint8_t *test_live; /* ltk_decode_number_tests: tests that still have a unit to look at */
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
    return ltk_varint_get(pp, end, v);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * A long varint (random ids, deltas of unrelated values) with at least ten
 * bytes readable: the length from the first byte without the continuation
 * bit in a word, then the 7-bit groups packed together in three shift
 * steps.  Accepts exactly what ltk_varint_get accepts.  (Used for all
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

#define BAD(...) ltk_error_set(err, LOGTK_ERR_ARCHIVE, __VA_ARGS__)

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

/* A numeric column's coding (see LTK_COL_DELTA). */
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
    cc->delta = meta & LTK_COL_DELTA;
    cc->pad_mode = meta >> 1 & 3;
    cc->planes = (meta & LTK_COL_PLANES) != 0;
    cc->arg = 0;
    if (meta > 15 || cc->pad_mode > 2 || (cc->planes && (meta & 7) != 0))
        return -1;
    if (cc->pad_mode < 2 && ltk_varint_get(mp, me, &cc->arg) != 0)
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

/* A failed decode leaves the decoder empty; passes rc through. */
int ltk_decode_result(ltk_decoder *d, int rc);
/* Reads the template-id and line-end streams and the numbers chunk directory. */
int ltk_decode_read_line_streams(ltk_decoder *d, ltk_errbuf *err);
/* Makes at least want bytes of numbers chunk c available. */
int ltk_decode_chunk_prefix(ltk_decoder *d, uint32_t c, size_t want, ltk_errbuf *err);
/* Finds each part's template-id column and its width in the line streams. */
int ltk_decode_locate_line_columns(ltk_decoder *d, ltk_errbuf *err);
/* Builds every unit's template and rank (and marks lines by tmask, when not NULL). */
int ltk_decode_parse_lines(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask, ltk_errbuf *err);

#endif
