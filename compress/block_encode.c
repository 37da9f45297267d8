/*
 * block_encode.c - a block of raw lines -> columnar, zstd-compressed payload.
 *
 * Algorithm (logzip / CLP style): every line is split by line_split.c into a
 * template and typed variables.  The block stores its own template dictionary
 * (so the block decodes alone), one template index per line, one line-end
 * code per line, and then the variables column by column: for each template,
 * for each variable position, the values of all lines of that template.  A
 * column of one position of one template holds values of one meaning (a
 * block id, the seconds of a timestamp, a port), so
 *   - numeric columns are stored as varints, either raw or as zigzag deltas
 *     from the previous value of the same column, whichever is smaller;
 *   - the leading-zero counts of a numeric column are usually constant, or
 *     the column has a fixed width ("081109", "0042", hex "00ff3a"); both
 *     cost one varint per column instead of one byte per value;
 *   - IP addresses and hex numbers are numeric columns too (their values
 *     are the address and the hex value; widths count hex digits), so an
 *     address is one column instead of four: varints, or octet planes
 *     where zstd packs those smaller (see put_numeric_column);
 *   - string variables are length-prefixed; a long column whose values
 *     repeat (hosts, users, states) is a dictionary plus an index per value
 *     (put_string_column); zstd finds the other repeats.
 * Before that, each line is cut into units: up to LTK_MAX_HEADER_PARTS
 * leading "header" tokens (chosen per block, see choose_header_parts) and the
 * rest, each with its own template, so the numbers of the header fields form
 * columns across all lines instead of one column per message template.
 * Streams of the same kind (all numbers, all strings, ...) are concatenated
 * and each compressed as one zstd frame, so the entropy coder sees
 * homogeneous data and the block pays the frame overhead only seven times.
 * The numbers stream is the exception: it is cut into chunks of whole
 * templates compressed alone, so that search decompresses only the chunks
 * of candidate lines; a template with more than TEMPLATE_GROUP_UNITS lines
 * is written as groups of lines (repeated templates), and a large template
 * or group has a chunk of its own, so a rare line's header values come from
 * a small chunk.  (scale2m: archive 0.46% smaller, logtk grep -T 1 -F
 * MegaRAID 11% fewer instructions, an IP 9% fewer.)
 * A block whose messages share too little for templates (dictionary larger
 * than a quarter of the text) is also encoded with each message as one
 * string variable, and the smaller kept (see ltk_encode_block).
 *
 * Speed (zstd takes only about a tenth of the time at low levels; the rest
 * is here and in line_split.c): each line is split once and its template cut
 * into the parts' templates; a part is first compared with the template the
 * same part had on the line before (for the header parts all at once), so
 * most parts are never hashed; a template's variable count is kept with it;
 * the variables of a template are gathered line by line into column arrays
 * before the columns are written (a block's variables are tens of MB, and
 * reading them column by column missed the cache once per column); varints
 * go straight into room reserved per column.  The payload is the same, byte
 * for byte, as with the straightforward loops.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "block_encode.h"
#include "block_layout.h"
#include "header_fields.h"
#include "line_split.h"
#include "growarray.h"
#include "hashtab.h"
#include "u64map.h"

struct ltk_encoder {
    int level;
    ZSTD_CCtx *cctx;
    ltk_strbuf tmpl;
    ltk_strbuf prev_tmpl; /* the previous line's template (the two buffers swap per line) */
    ltk_var *vars;
    size_t nvars, vars_cap;
    /* per line */
    /* per unit (a line has nparts units: header tokens, then the rest) */
    uint32_t *line_tid;
    size_t *line_var;
    uint32_t *order; /* unit indices grouped by template */
    size_t lines_cap;
    size_t units_cap; /* capacity of line_var and order (they follow lines_cap) */
    uint64_t *sample_hash;
    /* per template */
    uint32_t *tcount, *tstart;
    size_t tcap;
    uint32_t *tvars; /* variables of each template of the block being encoded */
    size_t tvars_cap;
    uint32_t *group_key; /* per template written: the interned template it is a group of */
    size_t group_key_cap;
    ltk_strbuf streams[LTK_NSTREAMS];
    uint64_t *colbuf; /* values of the column being written */
    size_t colbuf_cap;
    uint8_t *padbuf; /* and their leading-zero counts */
    size_t padbuf_cap;
    /* chunks of the numbers stream: first template and offset of each */
    uint32_t *chunk_tmpl;
    size_t *chunk_off;
    size_t chunk_cap;
    ltk_strbuf chunk_box, chunk_data;
    ltk_strbuf trial_planes, trial_out; /* put_numeric_column's trial of octet planes */
    logtk_format *format; /* the log's format, when the user gave one (header_fields.c) */
    int whole_messages; /* the block being encoded keeps each message as a string (encode_parts) */
    int count_shared;        /* encode_parts counts shared_bytes (the columns kept, not a trial) */
    ltk_u64map long_numbers; /* shared_numbers: long numbers -> the last numbers chunk to hold them */
    uint64_t shared_bytes;   /* varint bytes of long numbers that an earlier chunk held */
    /* dictionary of the string column being written (string_dictionary) */
    uint32_t *dict_slot, *dict_id, *dict_first;
    size_t dict_slot_cap, dict_id_cap, dict_first_cap;
};

ltk_encoder *ltk_encoder_new(int level)
{
    ltk_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->level = level;
    e->cctx = ZSTD_createCCtx();
    if (!e->cctx) {
        free(e);
        return NULL;
    }
    return e;
}

void ltk_encoder_free(ltk_encoder *e)
{
    if (!e)
        return;
    ZSTD_freeCCtx(e->cctx);
    ltk_strbuf_free(&e->tmpl);
    ltk_strbuf_free(&e->prev_tmpl);
    free(e->vars);
    free(e->line_tid);
    free(e->line_var);
    free(e->order);
    free(e->sample_hash);
    free(e->tcount);
    free(e->tstart);
    free(e->tvars);
    free(e->group_key);
    free(e->colbuf);
    free(e->padbuf);
    free(e->chunk_tmpl);
    free(e->chunk_off);
    ltk_strbuf_free(&e->chunk_box);
    ltk_strbuf_free(&e->chunk_data);
    ltk_strbuf_free(&e->trial_planes);
    ltk_strbuf_free(&e->trial_out);
    logtk_format_free(e->format);
    ltk_u64map_free(&e->long_numbers);
    free(e->dict_slot);
    free(e->dict_id);
    free(e->dict_first);
    for (int i = 0; i < LTK_NSTREAMS; i++)
        ltk_strbuf_free(&e->streams[i]);
    free(e);
}

/* Bytes of the LEB128 varint of v: ceil(bits / 7), as (index of top bit * 9 + 73) / 64. */
static inline int varint_len(uint64_t v)
{
    return ((63 - __builtin_clzll(v | 1)) * 9 + 73) >> 6;
}

static inline uint64_t zigzag(uint64_t d)
{
    return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline int ndigits(uint64_t v)
{
    static const uint64_t pow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                       10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                       100000000000ull, 1000000000000ull, 10000000000000ull,
                                       100000000000000ull, 1000000000000000ull,
                                       10000000000000000ull, 100000000000000000ull,
                                       1000000000000000000ull, 10000000000000000000ull};
    /* log10 estimated from the bit length (1233 / 4096 ~ log10(2)), then corrected by one compare */
    uint64_t x = v | 1;
    int t = ((64 - __builtin_clzll(x)) * 1233) >> 12;
    return t - (x < pow10[t]) + 1;
}

/* Writes v as an unsigned LEB128 varint at d (room for 10 bytes); returns the end. */
static inline char *put_varint_at(char *d, uint64_t v)
{
    while (v >= 0x80) {
        *d++ = (char)(v | 0x80);
        v >>= 7;
    }
    *d++ = (char)v;
    return d;
}

/* Hex digits of v (1 for 0). */
static inline int nhexdigits(uint64_t v)
{
    return (64 - __builtin_clzll(v | 1) + 3) >> 2;
}

/* Digits of v as a variable of numeric kind `kind` writes it (without leading zeros). */
static inline int kind_digits(int kind, uint64_t v)
{
    return kind == LTK_M_HEXL || kind == LTK_M_HEXU ? nhexdigits(v) : ndigits(v);
}

/*
 * Writes one numeric column of a numeric kind (see ltk_is_num_marker): n
 * values and their pad bytes (see ltk_var).  The first pass picks raw or delta coding
 * by their sizes; the digit width is only looked at when the leading-zero
 * counts differ, and the varints go straight into room reserved for them.
 */
static int put_varint_column(ltk_encoder *e, const uint64_t *values, const uint8_t *pads_in,
                             uint32_t n, int kind)
{
    uint64_t raw_size = 0, delta_size = 0, prev = 0;
    uint8_t pad0 = pads_in[0];
    int pad_same = 1, width_same = 1;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t value = values[k];
        raw_size += (uint64_t)varint_len(value);
        delta_size += (uint64_t)varint_len(zigzag(value - prev));
        prev = value;
        pad_same &= pads_in[k] == pad0;
    }
    int width0 = kind_digits(kind, values[0]) + (kind == LTK_M_SNUM ? pad0 >> 1 : pad0);
    int sign0 = kind == LTK_M_SNUM ? pad0 & 1 : 0;
    if (!pad_same) {
        for (uint32_t k = 0; k < n && width_same; k++) {
            int pad = pads_in[k];
            int zeros = kind == LTK_M_SNUM ? pad >> 1 : pad;
            int sign = kind == LTK_M_SNUM ? pad & 1 : 0;
            if (sign != sign0 || kind_digits(kind, values[k]) + zeros != width0)
                width_same = 0;
        }
    }
    int delta = delta_size < raw_size;
    /* meta byte: bit 0 delta; bits 1-2 pad mode (0 constant, 1 fixed width, 2 explicit) */
    int pad_mode = pad_same ? 0 : width_same ? 1 : 2;
    ltk_strbuf *meta = &e->streams[LTK_S_NUMMETA];
    if (ltk_strbuf_putc(meta, (char)(delta | pad_mode << 1)) != 0)
        return -1;
    if (pad_mode == 0 && ltk_strbuf_put_varint(meta, pad0) != 0)
        return -1;
    if (pad_mode == 1 && ltk_strbuf_put_varint(meta, (uint64_t)width0 << 1 | (uint64_t)sign0) != 0)
        return -1;
    ltk_strbuf *nums = &e->streams[LTK_S_NUMS];
    size_t bytes = delta ? delta_size : raw_size;
    if (ltk_strbuf_reserve(nums, bytes) != 0)
        return -1;
    char *d = nums->data + nums->len;
    if (delta) {
        prev = 0;
        for (uint32_t k = 0; k < n; k++) {
            uint64_t v = values[k];
            d = put_varint_at(d, zigzag(v - prev));
            prev = v;
        }
    } else {
        for (uint32_t k = 0; k < n; k++)
            d = put_varint_at(d, values[k]);
    }
    nums->len = (size_t)(d - nums->data);
    nums->data[nums->len] = '\0';
    /*
     * Explicit leading-zero counts follow the column's values in its numbers
     * chunk: a search that rebuilds a few lines then finds them in the chunk
     * it decompressed for the values, instead of decompressing a separate
     * stream up to them.
     */
    if (pad_mode == 2 && ltk_strbuf_append(nums, pads_in, n) != 0)
        return -1;
    return 0;
}

/* Compressed size of data[0..len) at zstd level 1 (a trial; SIZE_MAX when it fails). */
static size_t trial_size(ltk_encoder *e, const void *data, size_t len)
{
    size_t bound = ZSTD_compressBound(len);
    if (ltk_strbuf_reserve(&e->trial_out, bound) != 0)
        return SIZE_MAX;
    size_t r = ZSTD_compressCCtx(e->cctx, e->trial_out.data, bound, data, len, 1);
    return ZSTD_isError(r) ? SIZE_MAX : r;
}

/*
 * Writes a numeric column (see put_varint_column).  An address column may
 * instead be written as octet planes (LTK_COL_PLANES): the octets that
 * repeat (a network, the major parts of a version) make runs zstd packs to
 * nothing and the others cost a byte each, where a varint mixes them into
 * 7-bit groups; but an address repeated line after line (one session's
 * client) is a 0 delta, which planes repeat four times.  So for columns of
 * at least PLANES_TRIAL_VALUES values both are compressed at zstd level 1
 * and the smaller is kept (measured on Loghub-2k at level 19: planes alone
 * took HDFS from 9.23 to 9.34 but OpenSSH from 38.09 to 36.53; see
 * logtk-archive(5)); shorter columns keep the varints.
 */
#ifndef PLANES_TRIAL_VALUES
#define PLANES_TRIAL_VALUES 32
#endif
static int put_numeric_column(ltk_encoder *e, const uint64_t *values, const uint8_t *pads_in,
                              uint32_t n, int kind)
{
    ltk_strbuf *meta = &e->streams[LTK_S_NUMMETA], *nums = &e->streams[LTK_S_NUMS];
    size_t meta0 = meta->len, nums0 = nums->len;
    if (put_varint_column(e, values, pads_in, n, kind) != 0)
        return -1;
    if (kind != LTK_M_IP || n < PLANES_TRIAL_VALUES)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        if (values[k] >> 32)
            return 0; /* a packed non-canonical quad has no four octets: varints only */
    ltk_strbuf *planes = &e->trial_planes;
    ltk_strbuf_clear(planes);
    if (ltk_strbuf_reserve(planes, 4 * (size_t)n) != 0)
        return -1;
    unsigned char *d = (unsigned char *)planes->data;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t v = values[k];
        d[k] = (unsigned char)(v >> 24);
        d[n + k] = (unsigned char)(v >> 16);
        d[2 * (size_t)n + k] = (unsigned char)(v >> 8);
        d[3 * (size_t)n + k] = (unsigned char)v;
    }
    planes->len = 4 * (size_t)n;
    size_t as_varints = trial_size(e, nums->data + nums0, nums->len - nums0);
    size_t as_planes = trial_size(e, planes->data, planes->len);
    if (as_planes >= as_varints)
        return 0;
    meta->len = meta0;
    nums->len = nums0;
    if (ltk_strbuf_putc(meta, LTK_COL_PLANES) != 0 || ltk_strbuf_put_varint(meta, 0) != 0 ||
        ltk_strbuf_append(nums, planes->data, planes->len) != 0)
        return -1;
    return 0;
}

/* Numbers of at least this value count for shared_numbers (7 digits and more). */
#define LONG_NUMBER_MIN 1000000u
/*
 * shared_numbers looks at one long number in this many (chosen by value,
 * so the same ones in every chunk): counting all of them cost 3.3% more
 * instructions at level 3 on the scale-up of README.md (about 8% in time,
 * the map's cache misses), one in 8 1.3%.
 */
#define SHARED_SAMPLE 8u

/*
 * Adds to e->shared_bytes the varint bytes of the column's long numbers that
 * an earlier numbers chunk of the block held, once per number and chunk: the
 * ids that every message about one request or block prints (a block id in
 * the lines that receive, store and report it), which zstd could take from
 * the first occurrence were it not in a chunk compressed on its own.
 * Returns 0 or -1.
 */
static int shared_numbers(ltk_encoder *e, const uint64_t *values, uint32_t n, int kind, uint32_t chunk)
{
    for (uint32_t k = 0; k < n; k++) {
        uint64_t v = values[k];
        if (v < LONG_NUMBER_MIN)
            continue;
        /* one number in SHARED_SAMPLE, the same in every chunk, stands for the others */
        uint64_t key = ltk_mix64(v ^ (uint64_t)kind << 56);
        if (key % SHARED_SAMPLE != 0)
            continue;
        int added;
        uint32_t *last = ltk_u64map_emplace(&e->long_numbers, key, chunk, &added);
        if (!last)
            return -1;
        /* chunks are written in order: a number counts once per chunk after its first */
        assert(*last <= chunk);
        if (!added && *last != chunk) {
            e->shared_bytes += SHARED_SAMPLE * (uint64_t)varint_len(v);
            *last = chunk;
        }
    }
    return 0;
}

/* Most distinct values of a dictionary-coded string column (indices are at most two bytes). */
#define STRING_DICT_MAX 65536u

/*
 * Finds the distinct values of a string column: ids[k] receives the index
 * of value k's first occurrence among the distinct ones, in order of first
 * use, and first[j] the value that introduced id j.  Returns the number of
 * distinct values, or 0 when there are more than STRING_DICT_MAX or memory
 * runs out (the column is then written plainly).
 */
static uint32_t string_dictionary(ltk_encoder *e, const char *text, const uint64_t *spans, uint32_t n)
{
    size_t cap = 64;
    while (cap < (size_t)n * 2)
        cap <<= 1;
    if (ltk_array_reserve((void **)&e->dict_slot, &e->dict_slot_cap, cap, sizeof *e->dict_slot) != 0 ||
        ltk_array_reserve((void **)&e->dict_id, &e->dict_id_cap, n, sizeof *e->dict_id) != 0 ||
        ltk_array_reserve((void **)&e->dict_first, &e->dict_first_cap, n, sizeof *e->dict_first) != 0)
        return 0;
    memset(e->dict_slot, 0, cap * sizeof *e->dict_slot); /* 0: empty, else id + 1 */
    uint32_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        const char *s = text + (spans[v] >> 32);
        uint32_t slen = (uint32_t)spans[v];
        size_t at = (size_t)ltk_hash_bytes(s, slen) & (cap - 1);
        for (;;) {
            uint32_t slot = e->dict_slot[at];
            if (slot == 0) {
                if (k == STRING_DICT_MAX)
                    return 0;
                e->dict_slot[at] = k + 1;
                e->dict_first[k] = v;
                e->dict_id[v] = k++;
                break;
            }
            uint64_t o = spans[e->dict_first[slot - 1]];
            if ((uint32_t)o == slen && memcmp(text + (o >> 32), s, slen) == 0) {
                e->dict_id[v] = slot - 1;
                break;
            }
            at = (at + 1) & (cap - 1);
        }
    }
    return k;
}

/*
 * Writes one string column (offset << 32 | length of each value) to the
 * strings stream: every value as length (varint) and bytes.  A column of at
 * least STRING_DICT_MIN values starts with its coding (varint): 0 for that,
 * or k >= 1 for a dictionary of its k distinct values in order of first use
 * (length and bytes each) followed by each value's index in it, one byte
 * when k <= 256, else two (little-endian).  The dictionary is taken when it
 * is the smaller of the two before zstd and the values repeat at least
 * STRING_DICT_REPEAT times on average: a column of hosts, users or states
 * then costs an index per line, which both compresses better than the
 * repeated text and decodes without a length per value.  (Measured on the
 * 16 Loghub-2k logs at level 19: a coding on every column, or dictionaries
 * taken whenever smaller, cost 0.1% to 0.7% of the ratio on Windows, BGL,
 * Mac; so small columns, the most numerous ones, carry no coding at all.)
 * A column of whole messages (e->whole_messages) is instead written as the
 * values each followed by '\n' (coding LTK_STRING_CODING_LINES): the
 * messages' own text, which zstd matches across lines, where a length in
 * front of each one breaks every match (dpkg.log at level 19: 29,951 bytes
 * with lengths, 27,146 with '\n'; on other columns it gained nothing:
 * Loghub-2k ZooKeeper 26.47 -> 26.41).
 */
#ifndef STRING_DICT_MIN
#define STRING_DICT_MIN 16u
#endif
#ifndef STRING_DICT_REPEAT
#define STRING_DICT_REPEAT 4u
#endif
static int put_string_column(ltk_encoder *e, const char *text, const uint64_t *spans, uint32_t n)
{
    ltk_strbuf *strs = &e->streams[LTK_S_STRS];
    int coded = n >= STRING_DICT_MIN;
    int lines = coded && e->whole_messages;
    size_t plain = lines ? (size_t)varint_len(LTK_STRING_CODING_LINES) : (size_t)coded;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t slen = (uint32_t)spans[v];
        plain += lines ? (size_t)slen + 1 : (size_t)varint_len(slen) + slen;
    }
    uint32_t k = coded ? string_dictionary(e, text, spans, n) : 0;
    size_t dict = SIZE_MAX;
    unsigned width = k <= 256 ? 1 : 2;
    if (k > 0 && (uint64_t)k * STRING_DICT_REPEAT <= n) {
        dict = (size_t)varint_len(k) + (size_t)n * width;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t slen = (uint32_t)spans[e->dict_first[j]];
            dict += (size_t)varint_len(slen) + slen;
        }
    }
    if (ltk_strbuf_reserve(strs, dict < plain ? dict : plain) != 0)
        return -1;
    char *d = strs->data + strs->len;
    if (dict < plain) {
        d = put_varint_at(d, k);
        for (uint32_t j = 0; j < k; j++) {
            uint64_t o = spans[e->dict_first[j]];
            d = put_varint_at(d, (uint32_t)o);
            memcpy(d, text + (o >> 32), (uint32_t)o);
            d += (uint32_t)o;
        }
        for (uint32_t v = 0; v < n; v++) {
            uint32_t id = e->dict_id[v];
            *d++ = (char)id;
            if (width == 2)
                *d++ = (char)(id >> 8);
        }
    } else if (lines) {
        /* each value, then '\n' (never in a value: values are parts of lines) */
        d = put_varint_at(d, LTK_STRING_CODING_LINES);
        for (uint32_t v = 0; v < n; v++) {
            uint32_t slen = (uint32_t)spans[v];
            assert(memchr(text + (spans[v] >> 32), '\n', slen) == NULL);
            memcpy(d, text + (spans[v] >> 32), slen);
            d += slen;
            *d++ = '\n';
        }
    } else {
        if (coded)
            *d++ = 0;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t slen = (uint32_t)spans[v];
            d = put_varint_at(d, slen);
            memcpy(d, text + (spans[v] >> 32), slen);
            d += slen;
        }
    }
    strs->len = (size_t)(d - strs->data);
    strs->data[strs->len] = '\0';
    return 0;
}

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * End of the part starting at a: blanks, then one token (up to lend).  The
 * token's end is searched 16 bytes at a time with SSE2 where the block text
 * (len bytes) has them; a hit past lend is cut back to lend.
 */
static inline size_t part_end(const char *text, size_t a, size_t lend, size_t len)
{
    while (a < lend && is_blank(text[a]))
        a++;
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
    while (a < lend && a + 16 <= len) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(text + a));
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(b, space), _mm_cmpeq_epi8(b, tab)));
        if (mask) {
            a += (size_t)__builtin_ctz(mask);
            return a < lend ? a : lend;
        }
        a += 16;
    }
    if (a > lend)
        return lend;
#endif
    while (a < lend && !is_blank(text[a]))
        a++;
    return a;
}

/* part_end() on a template: end of the part starting at a (blanks, then one run of non-blanks). */
static inline size_t template_part_end(const char *t, size_t a, size_t tlen)
{
    while (a < tlen && is_blank(t[a]))
        a++;
    while (a < tlen && !is_blank(t[a]))
        a += (unsigned char)t[a] == LTK_M_ESC ? 2 : 1; /* an escaped byte is never a blank */
    return a;
}

/* Number of variable markers in template t[0..len). */
static uint32_t template_var_count(const char *t, size_t len)
{
    uint32_t n = 0;
    for (size_t a = 0; a < len; a++) {
        unsigned char c = (unsigned char)t[a];
        if (c == LTK_M_ESC)
            a++;
        else if (ltk_is_var_marker(c))
            n++;
    }
    return n;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/*
 * How many leading tokens of each line to store as header parts of their
 * own.  Log lines start with fields (date, time, host, pid) whose shape is
 * the same on every line while their numbers change; as separate parts their
 * numbers form columns across all lines (timestamps become tiny deltas) and
 * the rest of the line gets fewer templates.  Looking at the first lines of
 * the block: leading token positions with few distinct shapes are header;
 * the header ends after the last such position that usually holds a number.
 * *fields receives the end of the header's first run of positions that
 * usually hold a number (date, time, pid, after any words before them, as
 * "update-alternatives 2026-12-02 10:00:00:"; at most the header), or 0:
 * the fields before the message, which may start with words of few shapes
 * ("INFO dfs.DataNode: Receiving block blk_<n>") that the header takes in
 * for their numbers.
 */
static size_t choose_header_parts(ltk_encoder *e, const char *text, size_t len, size_t *fields)
{
    enum { MAXH = LTK_MAX_HEADER_PARTS, SAMPLE = 1024 };
    if (!e->sample_hash && !(e->sample_hash = malloc(sizeof(uint64_t) * MAXH * SAMPLE)))
        return 0;
    size_t with_var[MAXH] = {0};
    size_t n = 0, pos = 0;
    while (pos < len && n < SAMPLE) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t lend = nl ? (size_t)(nl - text) : len;
        size_t a = pos;
        for (int p = 0; p < MAXH; p++) {
            size_t b = part_end(text, a, lend, len);
            ltk_strbuf_clear(&e->tmpl);
            e->nvars = 0;
            if (ltk_split_line(text + a, b - a, &e->tmpl, &e->vars, &e->nvars, &e->vars_cap) != 0)
                return 0;
            e->sample_hash[p * SAMPLE + n] = ltk_hash_bytes(e->tmpl.data ? e->tmpl.data : "", e->tmpl.len);
            if (e->nvars > 0)
                with_var[p]++;
            a = b;
        }
        n++;
        pos = nl ? lend + 1 : len;
    }
    e->nvars = 0;
    if (n == 0)
        return 0;
    size_t limit = n / 32 > 2 ? n / 32 : 2, h = 0;
    int numbered_run = 1; /* no run of numbered positions ended yet */
    for (int p = 0; p < MAXH; p++) {
        uint64_t *hs = e->sample_hash + p * SAMPLE;
        qsort(hs, n, sizeof *hs, cmp_u64);
        size_t distinct = 1;
        for (size_t i = 1; i < n; i++)
            distinct += hs[i] != hs[i - 1];
        if (distinct > limit)
            break;
        if (with_var[p] * 2 >= n && numbered_run)
            *fields = (size_t)p + 1;
        else if (*fields > 0)
            numbered_run = 0; /* the first run of numbered positions ended */
        if (with_var[p] * 2 >= n)
            h = (size_t)p + 1;
    }
    return h;
}

/*
 * A template with at least this many bytes of numbers gets a numbers chunk
 * of its own (see encode_parts, step 4).
 */
#ifndef LARGE_TEMPLATE_NUM_BYTES
#define LARGE_TEMPLATE_NUM_BYTES ((size_t)16 << 10)
#endif

/* Starts numbers chunk *nchunks at template t and stream offset off. */
static int add_number_chunk(ltk_encoder *e, size_t *nchunks, uint32_t t, size_t off)
{
    if (ltk_array_reserve((void **)&e->chunk_tmpl, &e->chunk_cap, *nchunks + 1, sizeof *e->chunk_tmpl) != 0)
        return -1;
    size_t *co = realloc(e->chunk_off, e->chunk_cap * sizeof *co);
    if (!co)
        return -1;
    e->chunk_off = co;
    e->chunk_tmpl[*nchunks] = t;
    e->chunk_off[(*nchunks)++] = off;
    return 0;
}

/*
 * Writes the numbers stream as chunks compressed on their own (see
 * LTK_S_NUMS): search then decompresses only the chunks holding the
 * templates of candidate lines.  The stream entry is stored (raw_len ==
 * stored_len) and holds the chunk directory and the chunks.
 */
static int put_chunked_numbers(ltk_encoder *e, size_t nchunks, int level, ltk_strbuf *out)
{
    ltk_strbuf *st = &e->streams[LTK_S_NUMS];
    ltk_strbuf *box = &e->chunk_box;
    ltk_strbuf_clear(box);
    ltk_strbuf_clear(&e->chunk_data);
    if (ltk_strbuf_put_varint(box, nchunks) != 0)
        return -1;
    for (size_t c = 0; c < nchunks; c++) {
        size_t off = e->chunk_off[c];
        size_t raw = (c + 1 < nchunks ? e->chunk_off[c + 1] : st->len) - off;
        size_t bound = ZSTD_compressBound(raw);
        if (ltk_strbuf_reserve(&e->chunk_data, bound + 1) != 0)
            return -1;
        size_t clen = 0;
        if (raw > 0) {
            ZSTD_CCtx_reset(e->cctx, ZSTD_reset_session_and_parameters);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, level);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_contentSizeFlag, 0);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_dictIDFlag, 0);
            clen = ZSTD_compress2(e->cctx, e->chunk_data.data + e->chunk_data.len, bound,
                                  st->data + off, raw);
            if (ZSTD_isError(clen) || clen >= raw)
                clen = 0;
        }
        if (clen == 0) {
            if (raw > 0)
                memcpy(e->chunk_data.data + e->chunk_data.len, st->data + off, raw);
            clen = raw; /* stored */
        }
        e->chunk_data.len += clen;
        uint32_t first = e->chunk_tmpl[c] - (c > 0 ? e->chunk_tmpl[c - 1] : 0);
        if (ltk_strbuf_put_varint(box, first) != 0 || ltk_strbuf_put_varint(box, raw) != 0 ||
            ltk_strbuf_put_varint(box, clen) != 0)
            return -1;
    }
    if (ltk_strbuf_append(box, e->chunk_data.data, e->chunk_data.len) != 0)
        return -1;
    if (ltk_strbuf_put_varint(out, box->len) != 0 || ltk_strbuf_put_varint(out, box->len) != 0 ||
        ltk_strbuf_append(out, box->data, box->len) != 0)
        return -1;
    return 0;
}

/*
 * A template with variables and more than this many units is written as
 * groups of this many units (see split_large_templates).
 */
#ifndef TEMPLATE_GROUP_UNITS
#define TEMPLATE_GROUP_UNITS 16384u
#endif

/*
 * Splits every template with variables and more than TEMPLATE_GROUP_UNITS
 * units into groups of that many units (in the order its columns are
 * written: part by part, lines in order), each written as a template of its
 * own with the same text.  Why: each group's numbers then make a chunk of
 * their own (see step 4 of encode_parts), so rebuilding a few lines of a
 * large template - the header part of rare lines - decompresses only their
 * groups' numbers instead of all of the block's header values.  The
 * decoder needs nothing new: a dictionary may repeat a template.  Ids are
 * renumbered so that a template's groups follow each other; e->group_key
 * gives each new id's interned template and e->tvars is rewritten for the
 * new ids.  Returns the number of templates to write, 0 when out of memory.
 */
static uint32_t split_large_templates(ltk_encoder *e, size_t nlines, size_t nparts, uint32_t ninterned)
{
    if (ltk_array_reserve((void **)&e->tcount, &e->tcap, (size_t)ninterned + 1, sizeof *e->tcount) != 0)
        return 0;
    uint32_t *tst = realloc(e->tstart, e->tcap * sizeof *tst);
    if (!tst)
        return 0;
    e->tstart = tst;
    memset(e->tcount, 0, ((size_t)ninterned + 1) * sizeof *e->tcount);
    size_t nunits = nlines * nparts;
    for (size_t u = 0; u < nunits; u++)
        e->tcount[e->line_tid[u]]++;
    uint32_t total = 0; /* templates to write; tstart[t]: the first id of t's groups */
    for (uint32_t t = 0; t < ninterned; t++) {
        e->tstart[t] = total;
        uint32_t n = e->tcount[t];
        total += e->tvars[t] > 0 && n > TEMPLATE_GROUP_UNITS ? (n + TEMPLATE_GROUP_UNITS - 1) / TEMPLATE_GROUP_UNITS : 1;
    }
    e->tstart[ninterned] = total;
    if (ltk_array_reserve((void **)&e->group_key, &e->group_key_cap, total, sizeof *e->group_key) != 0 ||
        ltk_array_reserve((void **)&e->tvars, &e->tvars_cap, total, sizeof *e->tvars) != 0)
        return 0;
    /* new ids only grow (tstart[t] >= t): fill from the last template down */
    for (uint32_t t = ninterned; t-- > 0;)
        for (uint32_t id = e->tstart[t + 1]; id-- > e->tstart[t];) {
            e->group_key[id] = t;
            e->tvars[id] = e->tvars[t];
        }
    if (total == ninterned)
        return total;
    memset(e->tcount, 0, ((size_t)ninterned + 1) * sizeof *e->tcount);
    for (size_t p = 0; p < nparts; p++)
        for (size_t i = 0; i < nlines; i++) {
            uint32_t *tid = &e->line_tid[i * nparts + p];
            uint32_t t = *tid;
            int split = e->tstart[t + 1] - e->tstart[t] > 1;
            *tid = e->tstart[t] + (split ? e->tcount[t]++ / TEMPLATE_GROUP_UNITS : 0);
        }
    return total;
}

/*
 * The rest of a line from byte `from` on (after its header parts) as one
 * string variable: its leading blanks as literal template bytes, then the
 * marker, and that variable (str_off relative to the line).  The layout of a
 * block whose messages share too little text for templates and columns to
 * pay (see ltk_encode_block).
 */
static int rest_as_string(const char *line, size_t from, size_t len, ltk_strbuf *tmpl,
                          ltk_var **vars, size_t *nvars, size_t *cap)
{
    size_t a = from;
    while (a < len && is_blank(line[a]))
        a++;
    /* the blanks before it stay literal, so the template has the line's runs up to the string */
    if (ltk_strbuf_append(tmpl, line + from, a - from) != 0)
        return -1;
    if (a == len)
        return 0;
    if (ltk_array_reserve((void **)vars, cap, *nvars + 1, sizeof **vars) != 0 ||
        ltk_strbuf_putc(tmpl, (char)LTK_M_STR) != 0)
        return -1;
    (*vars)[(*nvars)++] =
        (ltk_var){.kind = LTK_M_STR, .str_off = (uint32_t)a, .str_len = (uint32_t)(len - a)};
    return 0;
}

/*
 * Encodes with a given number of parts per line and zstd level; with
 * whole_messages, the rest of each line after its header parts is one
 * string variable.
 */
static int encode_parts(ltk_encoder *e, const char *text, size_t len, size_t nparts, int level,
                        int whole_messages, ltk_strbuf *out, uint32_t *nlines_out)
{
    e->whole_messages = whole_messages;
    int rc = LOGTK_ERR_NOMEM;
    e->shared_bytes = 0;
    if (e->count_shared) {
        ltk_u64map_free(&e->long_numbers);
        if (ltk_u64map_init(&e->long_numbers, 1024) != 0)
            return LOGTK_ERR_NOMEM;
    }
    ltk_hashtab templates;
    if (ltk_hashtab_init(&templates, 1024) != 0)
        return LOGTK_ERR_NOMEM;
    for (int i = 0; i < LTK_NSTREAMS; i++)
        ltk_strbuf_clear(&e->streams[i]);
    e->nvars = 0;

    /* 1. split lines into units (header parts + rest), each into template + variables */
    size_t nlines = 0, pos = 0;
    size_t header_len = 0; /* template bytes of the header parts of the previous line */
    ltk_strbuf *eols = &e->streams[LTK_S_EOLS];
    ltk_strbuf *tids = &e->streams[LTK_S_TIDS];
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t dlen = end - pos;
        int eol = 2;
        if (nl) {
            eol = 0;
            if (dlen > 0 && text[end - 1] == '\r') {
                eol = 1;
                dlen--;
            }
        }
        size_t need = (nlines + 1) * nparts;
        if (ltk_array_reserve((void **)&e->line_tid, &e->lines_cap, need, sizeof *e->line_tid) != 0)
            goto done;
        if (e->units_cap != e->lines_cap) {
            /* the other per-unit arrays follow lines_cap */
            size_t *lv = realloc(e->line_var, e->lines_cap * sizeof *lv);
            if (!lv)
                goto done;
            e->line_var = lv;
            uint32_t *ord = realloc(e->order, e->lines_cap * sizeof *ord);
            if (!ord)
                goto done;
            e->order = ord;
            e->units_cap = e->lines_cap;
        }
        /*
         * The line is split once; its template is then cut into the parts'
         * templates.  Blanks are literal template bytes and every token
         * leaves at least one byte, so the template has the same runs of
         * blanks and non-blanks as the line, and cutting it after the same
         * number of runs gives exactly the templates of the line's parts.
         */
        size_t v0 = e->nvars;
        ltk_strbuf swap = e->prev_tmpl;
        e->prev_tmpl = e->tmpl;
        e->tmpl = swap;
        e->tmpl.len = 0;
        size_t cut = dlen; /* split into template and variables up to here; the rest: a string */
        if (whole_messages) {
            size_t a = pos;
            for (size_t k = 0; k + 1 < nparts; k++)
                a = part_end(text, a, pos + dlen, len);
            cut = a - pos;
        }
        if (ltk_split_line(text + pos, cut, &e->tmpl, &e->vars, &e->nvars, &e->vars_cap) != 0 ||
            (whole_messages &&
             rest_as_string(text + pos, cut, dlen, &e->tmpl, &e->vars, &e->nvars, &e->vars_cap) != 0))
            goto done;
        for (size_t k = v0; k < e->nvars; k++)
            e->vars[k].str_off += (uint32_t)pos;
        const char *tt = e->tmpl.data;
        size_t tlen = e->tmpl.len, ta = 0, var_at = v0;
        size_t p = 0;
        /*
         * Most lines have all the header parts of the line before.  They do
         * when the template starts with the previous line's header bytes and
         * the last header cut falls at the same place: both templates end
         * there, or both go on with a blank (the previous one did, as its
         * cut was the end of a run of non-blanks).
         */
        size_t prev_tlen = e->prev_tmpl.len;
        if (nlines > 0 && nparts > 1 && header_len <= tlen &&
            (header_len == tlen ? prev_tlen == header_len
                                : prev_tlen > header_len && is_blank(tt[header_len])) &&
            memcmp(e->prev_tmpl.data, tt, header_len) == 0) {
            for (; p + 1 < nparts; p++) {
                size_t u = nlines * nparts + p;
                uint32_t id = e->line_tid[u - nparts];
                e->line_tid[u] = id;
                e->line_var[u] = var_at;
                var_at += e->tvars[id];
            }
            ta = header_len;
        }
        for (; p < nparts; p++) {
            size_t u = nlines * nparts + p, tb;
            e->line_var[u] = var_at;
            /*
             * A part usually has the template it had on the line before
             * (header fields always, messages in runs).  A header part is
             * that template when the template continues with its bytes
             * followed by a blank or the end (it is itself blanks and one
             * non-empty run of non-blanks); the rest of the line when it
             * is equal.  Only otherwise is the part scanned and hashed.
             */
            uint32_t id = nlines > 0 ? e->line_tid[u - nparts] : 0;
            size_t klen = nlines > 0 ? templates.key_lens[id] : SIZE_MAX;
            int same;
            if (p + 1 < nparts) {
                tb = ta + klen;
                same = klen <= tlen - ta &&
                       (tb == tlen || (klen > 0 && is_blank(tt[tb]) && !is_blank(tt[tb - 1]))) &&
                       memcmp(templates.keys[id], tt + ta, klen) == 0;
                if (!same)
                    tb = template_part_end(tt, ta, tlen);
            } else {
                tb = tlen;
                same = klen == tlen - ta && memcmp(templates.keys[id], tt + ta, klen) == 0;
            }
            if (!same) {
                int inserted = 0;
                int64_t got = ltk_hashtab_intern(&templates, tt + ta, tb - ta, &inserted);
                if (got < 0)
                    goto done;
                id = (uint32_t)got;
                if (inserted) {
                    if (ltk_array_reserve((void **)&e->tvars, &e->tvars_cap, id + 1, sizeof *e->tvars) != 0)
                        goto done;
                    e->tvars[id] = template_var_count(tt + ta, tb - ta);
                }
            }
            e->line_tid[u] = id;
            var_at += e->tvars[id];
            ta = tb;
            if (p + 2 == nparts)
                header_len = ta;
        }
        if (ltk_strbuf_putc(eols, (char)eol) != 0)
            goto done;
        nlines++;
        pos = nl ? end + 1 : len;
    }
    uint32_t ntemplates = split_large_templates(e, nlines, nparts, (uint32_t)templates.count);
    if (ntemplates == 0 && templates.count > 0)
        goto done;
    /*
     * Template ids part by part, each part's ids as one run of fixed-width
     * little-endian integers (1, 2 or 4 bytes, the width byte first): zstd
     * packs them as well as varints, and the decoder reads them without
     * branches.
     */
    for (size_t p = 0; p < nparts; p++) {
        uint32_t max = 0;
        for (size_t i = 0; i < nlines; i++)
            if (e->line_tid[i * nparts + p] > max)
                max = e->line_tid[i * nparts + p];
        unsigned width = max < 0x100 ? 1 : max < 0x10000 ? 2 : 4;
        if (ltk_strbuf_reserve(tids, 1 + nlines * width) != 0)
            goto done;
        tids->data[tids->len++] = (char)width;
        unsigned char *d = (unsigned char *)tids->data + tids->len;
        const uint32_t *tid = e->line_tid + p;
        if (width == 1) {
            for (size_t i = 0; i < nlines; i++)
                d[i] = (unsigned char)tid[i * nparts];
        } else {
            for (size_t i = 0; i < nlines; i++) {
                uint32_t t = tid[i * nparts];
                for (unsigned k = 0; k < width; k++)
                    d[i * width + k] = (unsigned char)(t >> (8 * k));
            }
        }
        tids->len += nlines * width;
        tids->data[tids->len] = '\0';
    }

    /* 2. template dictionary */
    ltk_strbuf *ts = &e->streams[LTK_S_TEMPLATES];
    if (ltk_strbuf_put_varint(ts, ntemplates) != 0)
        goto done;
    for (uint32_t t = 0; t < ntemplates; t++) {
        size_t tl;
        const char *tk = ltk_hashtab_key(&templates, e->group_key[t], &tl);
        if (ltk_strbuf_put_varint(ts, tl) != 0 || ltk_strbuf_append(ts, tk, tl) != 0)
            goto done;
    }

    /* 3. group lines by template (counting sort keeps line order within a template) */
    if (ltk_array_reserve((void **)&e->tcount, &e->tcap, ntemplates + 1, sizeof *e->tcount) != 0)
        goto done;
    {
        uint32_t *tst = realloc(e->tstart, e->tcap * sizeof *tst);
        if (!tst)
            goto done;
        e->tstart = tst;
    }
    memset(e->tcount, 0, (ntemplates + 1) * sizeof *e->tcount);
    size_t nunits = nlines * nparts;
    for (size_t i = 0; i < nunits; i++)
        e->tcount[e->line_tid[i]]++;
    {
        uint32_t acc = 0;
        for (uint32_t t = 0; t < ntemplates; t++) {
            e->tstart[t] = acc;
            acc += e->tcount[t];
        }
        memset(e->tcount, 0, (ntemplates + 1) * sizeof *e->tcount);
        /* units in part-major order, lines in order within a part */
        for (size_t p = 0; p < nparts; p++)
            for (size_t i = 0; i < nlines; i++) {
                size_t u = i * nparts + p;
                uint32_t t = e->line_tid[u];
                e->order[e->tstart[t] + e->tcount[t]++] = (uint32_t)u;
            }
    }

    /*
     * 4. columns; the numbers are cut into chunks at template boundaries:
     * a new chunk starts once the current one reached LTK_NUM_CHUNK_BYTES,
     * and a large template (LARGE_TEMPLATE_NUM_BYTES of numbers or more)
     * gets a chunk of its own, so that a search for a rare template's lines
     * does not decompress a large neighbour's numbers with them.
     */
    size_t nchunks = 0, chunk_start = 0;
    int after_large = 0; /* the previous template had a chunk of its own */
    for (uint32_t t = 0; t < ntemplates; t++) {
        size_t tl;
        const char *tk = ltk_hashtab_key(&templates, e->group_key[t], &tl);
        size_t s = 0;
        size_t nums_len = e->streams[LTK_S_NUMS].len;
        if (t == 0 || after_large || nums_len - chunk_start >= LTK_NUM_CHUNK_BYTES) {
            if (add_number_chunk(e, &nchunks, t, nums_len) != 0)
                goto done;
            chunk_start = nums_len;
        }
        after_large = 0;
        /*
         * Gather the template's variables column by column first: a line's
         * variables lie side by side, so each line is visited once instead
         * of once per column, and the columns are read sequentially.
         */
        uint32_t n = e->tcount[t], nv = e->tvars[t];
        if (nv == 0)
            continue;
        size_t cells = (size_t)n * nv;
        if (ltk_array_reserve((void **)&e->colbuf, &e->colbuf_cap, cells, sizeof *e->colbuf) != 0 ||
            ltk_array_reserve((void **)&e->padbuf, &e->padbuf_cap, cells, sizeof *e->padbuf) != 0)
            goto done;
        const uint32_t *units = e->order + e->tstart[t];
        for (uint32_t k = 0; k < n; k++) {
            const ltk_var *v = &e->vars[e->line_var[units[k]]];
            for (uint32_t c = 0; c < nv; c++) {
                e->colbuf[(size_t)c * n + k] =
                    v[c].kind == LTK_M_STR ? (uint64_t)v[c].str_off << 32 | v[c].str_len : v[c].value;
                e->padbuf[(size_t)c * n + k] = v[c].pad;
            }
        }
        for (size_t j = 0; j < tl; j++) {
            unsigned char c = (unsigned char)tk[j];
            if (c == LTK_M_ESC) {
                j++;
            } else if (ltk_is_num_marker(c)) {
                if (put_numeric_column(e, e->colbuf + s * n, e->padbuf + s * n, n, c) != 0 ||
                    (e->count_shared &&
                     shared_numbers(e, e->colbuf + s * n, n, c, (uint32_t)nchunks) != 0))
                    goto done;
                s++;
            } else if (c == LTK_M_STR) {
                if (put_string_column(e, text, e->colbuf + s * n, n) != 0)
                    goto done;
                s++;
            }
        }
        if (e->streams[LTK_S_NUMS].len - nums_len >= LARGE_TEMPLATE_NUM_BYTES) {
            /* a chunk of its own: cut in front of it unless it starts one */
            if (chunk_start < nums_len) {
                if (add_number_chunk(e, &nchunks, t, nums_len) != 0)
                    goto done;
                chunk_start = nums_len;
            }
            after_large = 1;
        }
    }

    /* 5. payload: nlines, then each stream (raw_len, stored_len, bytes) */
    if (ltk_strbuf_put_varint(out, nlines) != 0 ||
        ltk_strbuf_put_varint(out, nparts + (whole_messages ? LTK_PARTS_MESSAGES : 0)) != 0)
        goto done;
    for (int i = 0; i < LTK_NSTREAMS; i++) {
        ltk_strbuf *st = &e->streams[i];
        if (i == LTK_S_NUMS) {
            if (put_chunked_numbers(e, nchunks, level, out) != 0)
                goto done;
            continue;
        }
        size_t bound = ZSTD_compressBound(st->len);
        if (ltk_strbuf_put_varint(out, st->len) != 0 || ltk_strbuf_reserve(out, bound + 20) != 0)
            goto done;
        size_t clen = 0;
        if (st->len > 0) {
            ZSTD_CCtx_reset(e->cctx, ZSTD_reset_session_and_parameters);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, level);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_contentSizeFlag, 0);
            ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_dictIDFlag, 0);
            /* reserve room for the length varint in front of the data */
            char *dst = out->data + out->len + 10;
            clen = ZSTD_compress2(e->cctx, dst, bound, st->data, st->len);
            if (ZSTD_isError(clen) || clen >= st->len)
                clen = 0;
        }
        if (clen > 0) {
            /* move compressed bytes into place after the varint */
            char tmp[10];
            size_t vl = 0;
            uint64_t v = clen;
            do {
                tmp[vl++] = (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
                v >>= 7;
            } while (v);
            memmove(out->data + out->len + vl, out->data + out->len + 10, clen);
            memcpy(out->data + out->len, tmp, vl);
            out->len += vl + clen;
            out->data[out->len] = '\0';
        } else {
            /* stored: stored_len == raw_len means "not compressed" */
            if (ltk_strbuf_put_varint(out, st->len) != 0 ||
                ltk_strbuf_append(out, st->data, st->len) != 0)
                goto done;
        }
    }
    *nlines_out = (uint32_t)nlines;
    rc = LOGTK_OK;
done:
    ltk_hashtab_free(&templates);
    return rc;
}

/* Levels from which the header length is chosen by trial instead of by the heuristic alone. */
#define THOROUGH_LEVEL 12

int ltk_encoder_set_format(ltk_encoder *e, const char *spec)
{
    logtk_format_free(e->format);
    e->format = NULL;
    if (!spec)
        return LOGTK_OK;
    int rc = logtk_format_new(&e->format);
    if (rc == LOGTK_OK)
        rc = logtk_format_compile(e->format, spec);
    if (rc != LOGTK_OK) {
        logtk_format_free(e->format);
        e->format = NULL;
    }
    return rc;
}

int ltk_encode_block(ltk_encoder *e, const char *text, size_t len, ltk_strbuf *out,
                      uint32_t *nlines_out)
{
    size_t fields = 0;
    size_t h = choose_header_parts(e, text, len, &fields), bound = h;
    if (e->format) {
        /*
         * The format marks where the header ends (when most lines match
         * it): a guess that runs into the message is cut back to it; the
         * thorough levels also try the format's longer header.
         */
        int k = ltk_format_header_parts(e->format, text, len, LTK_MAX_HEADER_PARTS);
        if (k >= 0 && (size_t)k < h)
            h = (size_t)k;
        if (k >= 0 && (size_t)k > bound)
            bound = (size_t)k;
    }
    if (e->level >= THOROUGH_LEVEL && bound > 0) {
        h = bound;
        /*
         * The header length found is an upper bound; at high levels try
         * every shorter one with a quick zstd level and keep the smallest
         * (which header fields pay off depends on the log).
         */
        ltk_strbuf trial = LTK_STRBUF_INIT;
        size_t best_h = h, best_size = SIZE_MAX;
        for (size_t k = 0; k <= h; k++) {
            uint32_t nl;
            ltk_strbuf_clear(&trial);
            if (encode_parts(e, text, len, k + 1, 3, 0, &trial, &nl) != LOGTK_OK)
                break;
            if (trial.len < best_size) {
                best_size = trial.len;
                best_h = k;
            }
        }
        ltk_strbuf_free(&trial);
        h = best_h;
    }
    const size_t start = out->len;
    const int thorough = e->level >= THOROUGH_LEVEL;
    e->count_shared = 1;
    int rc = encode_parts(e, text, len, h + 1, e->level, 0, out, nlines_out);
    e->count_shared = 0;
    if (rc != LOGTK_OK)
        return rc;
    /*
     * Lines that share too little text (package names, free text: nearly
     * every line its own template) make a template dictionary about as
     * large as the text, template ids that cost more than the line ends
     * they replace, and numbers cut off from the words around them: such a
     * block comes out larger than zstd of its text.  So when the dictionary
     * holds more than a quarter of the text, the block is also encoded with
     * the same header parts and the rest of each line as one string variable
     * (the messages' text, one per line, under zstd at the block's level),
     * and the smaller payload is kept.  The dictionary costs nothing to look
     * at, where a zstd level 1 trial of every block made the 284.7 MB
     * scale-up of README.md a third slower to compress: on the 16 Loghub-2k
     * logs it holds 0.2% to 17% of the text, on the Debian logs of
     * logtk-archive(5) 55% to 92%.
     *
     * Whole messages are also tried when more than a sixteenth of the
     * numbers stream is long numbers that an earlier numbers chunk held
     * (shared_numbers): in a log kept in its own order each id recurs in
     * the lines about it, a few lines apart, which zstd's window finds in
     * the text but not across chunks compressed on their own.  Counted over
     * every number, the first 20,000 lines of HDFS: 14.9%; the 16 Loghub-2k
     * logs, Proxifier's full log and dpkg.log at most 1.8%, and their output
     * is unchanged.  Those messages follow the fields before the message
     * (date, time, pid) rather than the header guessed for the columns,
     * which on that log runs on to the block id ("INFO dfs.DataNode$...:
     * Receiving block blk_<n>": words of few shapes, then a number); the
     * thorough levels' header was measured and is kept.  That log, bytes as
     * columns / as messages / zstd at the same level: level 3 227,815 /
     * 216,275 / 250,789, level 9 217,764 / 174,023 / 207,829, level 19
     * 206,600 / 138,443 / 169,292.
     */
    if (e->streams[LTK_S_TEMPLATES].len * 4 > len || e->shared_bytes * 16 > e->streams[LTK_S_NUMS].len) {
        const size_t columns = out->len - start;
        ltk_strbuf whole = LTK_STRBUF_INIT;
        uint32_t nl;
        size_t whole_h = thorough || fields > h ? h : fields;
        rc = encode_parts(e, text, len, whole_h + 1, e->level, 1, &whole, &nl);
        if (rc == LOGTK_OK && whole.len < columns) {
            out->len = start;
            rc = ltk_strbuf_append(out, whole.data, whole.len) == 0 ? LOGTK_OK : LOGTK_ERR_NOMEM;
        }
        ltk_strbuf_free(&whole);
    }
    return rc;
}
