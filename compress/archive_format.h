/*
 * archive_format.h - the logtk archive container and block codec (internal).
 *
 * Layout (documented for users in logtk-archive(5)):
 *
 *   file   := file_header block* footer?
 *   file_header (8 bytes) := "LTKA" version(u8 = 4) flags(u8) reserved(u16 = 0)
 *   block  := block_header (36 bytes) payload line_hashes
 *   block_header := "LTKB" first_line(u64) nlines(u32) raw_bytes(u32)
 *                   payload_len(u32) payload_hash(u32) content_hash(u32) header_hash(u32)
 *   line_hashes := hash(u32) of the text of each group of ltka_check_group(nlines)
 *                  lines (the last may be shorter); content_hash: ltka_content_hash()
 *   (version 3: 32-byte header, no content_hash, no line_hashes)
 *   footer := "LTKI" nblocks(varint) {offset first_line nlines raw_bytes}(varint each)...
 *             footer_hash(u32) footer_len(u32) "LTKE"   (hash and len cover "LTKI"...)
 *
 * All fixed-width integers are little-endian.  Hashes are ltka_checksum()
 * (version 2 changed it from logtk_hash_bytes(), which is slower; version 3
 * added the IP and hex variables and escapes template bytes 1..7; version 4
 * added the checksums of the block's decoded text (line_hashes, content_hash),
 * because a payload altered with its payload_hash recomputed can decode to
 * other lines without any structural error; per group of lines so that
 * search checks only the groups of the lines it prints; this logtk reads
 * versions 3 and 4,
 * version 3 without that check, and refuses others by number).  A block
 * holds whole lines and decodes on its own, so a damaged block loses only its
 * own lines; its range is known from the index (or from its header when the
 * header is intact).
 */
#ifndef LOGTK_ARCHIVE_FORMAT_H
#define LOGTK_ARCHIVE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "strbuf.h"

#define LTKA_FILE_MAGIC "LTKA"
#define LTKA_BLOCK_MAGIC "LTKB"
#define LTKA_INDEX_MAGIC "LTKI"
#define LTKA_END_MAGIC "LTKE"
#define LTKA_VERSION 4     /* the version this logtk writes */
#define LTKA_VERSION_MIN 3 /* the oldest it reads (version 3: no content_hash) */
/*
 * Version 5 is version 4 whose file header flags may hold LTKA_FLAG_OPEN:
 * an archive being appended to (logtk compress --append), committed block by
 * block, whose footer is written only when its writer closes.  Such a file
 * ending right after a whole block is complete, not truncated.  Only
 * appending writes version 5; every other archive stays version 4, which
 * older logtk reads.
 */
#define LTKA_VERSION_OPEN 5
#define LTKA_VERSION_MAX 5 /* the newest it reads */
#define LTKA_FLAG_OPEN 1   /* file header flags, version 5: blocks are being appended */
#define LTKA_FILE_HEADER_LEN 8
#define LTKA_BLOCK_HEADER_LEN 36    /* version 4 */
#define LTKA_BLOCK_HEADER_LEN_V3 32 /* version 3 */
/*
 * Lines per content checksum (version 4).  A search rebuilds the groups of
 * the lines it selects to check them, so a group is what a rare match
 * costs: 256 lines cost 4 bytes per 256 lines (1 KiB per block of 65536
 * lines, +0.07% on a 1M-line scale-up) and made grep for a word on one line
 * in 4,000 1.8x faster than groups of 1024 (see logtk-compress(1)).
 */
#define LTKA_CHECK_LINES 256
/*
 * A block of at most this many lines has one line hash: small blocks are
 * cheap to rebuild whole, and a log of a few thousand lines (Loghub-2k)
 * then pays 4 bytes for the check (groups of 1024 took the geometric mean
 * of the Loghub-2k ratios from 22.97 to 22.94; groups of 256 to 22.88).
 */
#define LTKA_CHECK_SMALL 4096

/** Lines per line hash in a block of nlines lines (never 0). */
static inline uint32_t ltka_check_group(uint32_t nlines)
{
    return nlines > LTKA_CHECK_SMALL ? LTKA_CHECK_LINES : nlines ? nlines : 1;
}
#define LTKA_FOOTER_TRAILER_LEN 12

/* Default block size: lines and bytes, whichever is reached first.  Chosen by
 * measurement (see logtk-archive(5)): larger blocks gain little ratio past
 * this point and cost memory and parallelism. */
#define LTKA_DEFAULT_BLOCK_LINES 65536
#define LTKA_DEFAULT_BLOCK_BYTES ((size_t)8 << 20)
/* Hard limit on one block's raw text: raw_bytes is a u32. */
#define LTKA_MAX_BLOCK_BYTES ((size_t)0xF0000000u)

/* Most header parts (leading tokens stored as parts of their own) per line. */
#define LTKA_MAX_HEADER_PARTS 8

/* Streams of a block payload, in payload order. */
enum {
    LTKA_S_TEMPLATES = 0, /* template count, then len + bytes of each template */
    LTKA_S_TIDS,          /* per part: width byte, then per line a template index of that width */
    LTKA_S_EOLS,          /* per line: 0 "\n", 1 "\r\n", 2 none (last line only) */
    LTKA_S_NUMMETA,       /* per numeric column: coding byte and width info */
    LTKA_S_NUMS,          /* numeric values, column-major (varints), in chunks (below) */
    LTKA_S_PADS,          /* empty since version 3: explicit zero padding follows its column in LTKA_S_NUMS */
    LTKA_S_STRS,          /* string variables, column-major: len + bytes */
    LTKA_NSTREAMS
};

/*
 * The numbers stream is stored (raw_len == stored_len) as chunks that
 * decompress on their own:  nchunks(varint), then per chunk
 * first_template(varint, delta from the previous chunk's; 0 for the first)
 * raw_len(varint) stored_len(varint; == raw_len: not compressed), then the
 * chunks' bytes in order.  A chunk holds the numeric columns of whole
 * templates; a new chunk starts at the first template after the current one
 * reached LTKA_NUM_CHUNK_BYTES.
 */
/*
 * (Measured on the 2M-line scale-up: 64 KiB -> 32 KiB made logtk grep -F
 * 10.251.43.115 2% and -F MegaRAID 3% fewer instructions and the archive
 * 0.2% smaller; the Loghub-2k geometric mean went from 22.98 to 22.97.
 * 16 KiB: 3% fewer for the address, 22.81.)
 */
#define LTKA_NUM_CHUNK_BYTES ((size_t)32 << 10)

/*
 * Template bytes: markers for variables; any literal byte in 1..LTKA_M_LAST
 * is escaped.  All kinds but LTKA_M_STR are numeric: one value per line in
 * the numbers stream (a numeric column), zero padding as for decimals.
 */
#define LTKA_M_UNUM 0x01 /* unsigned decimal digit run */
#define LTKA_M_SNUM 0x02 /* optional '-' then a digit run */
#define LTKA_M_STR 0x03  /* a string variable */
#define LTKA_M_IP 0x04   /* dotted quad "a.b.c.d" of 1-3 digit parts (value: see LTKA_IP_PACKED_FLAG) */
#define LTKA_M_ESC 0x05  /* next byte is literal */
#define LTKA_M_HEXL 0x06 /* hex digits 0-9a-f (value; pad: leading zeros) */
#define LTKA_M_HEXU 0x07 /* hex digits 0-9A-F */
#define LTKA_M_LAST 0x07 /* highest marker: bytes 1..7 are escaped in templates */

/*
 * Value of an LTKA_M_IP variable: a canonical IPv4 address (parts 0-255
 * without leading zeros) is the 32-bit address a << 24 | b << 16 | c << 8 | d;
 * any other quad is LTKA_IP_PACKED_FLAG | p0 << 36 | p1 << 24 | p2 << 12 | p3
 * with each part p = (digits - 1) << 10 | value ("10.957.43.015":
 * 1 << 10 | 10, 2 << 10 | 957, 1 << 10 | 43, 2 << 10 | 15).  A packed value
 * that is not of that form (stray bits, 4 digits, a value of more digits
 * than it says) or that describes a canonical address is damage.
 */
#define LTKA_IP_PACKED_FLAG ((uint64_t)1 << 48)

/** Nonzero when v is a valid LTKA_M_IP value (an address, or a packed non-canonical quad). */
static inline int ltka_ip_value_ok(uint64_t v)
{
    if (v < ((uint64_t)1 << 32))
        return 1;
    if ((v >> 48) != 1)
        return 0;
    int canonical = 1;
    for (int shift = 36; shift >= 0; shift -= 12) {
        unsigned part = (unsigned)(v >> shift) & 0xfff, digits = (part >> 10) + 1, value = part & 1023;
        if (digits > 3 || value >= (digits == 1 ? 10u : digits == 2 ? 100u : 1000u))
            return 0;
        canonical &= value <= 255 && (digits == 1 || value >= (digits == 2 ? 10u : 100u));
    }
    return !canonical;
}

/*
 * Hex numbers (line_split.c): without "0x", words of at least
 * LTKA_HEX_MIN_DIGITS hex digits (with a decimal digit and a letter); with
 * or without, at most LTKA_HEX_MAX_DIGITS.  Measured on the 16 Loghub-2k
 * logs at level 19 (geometric mean of the ratios): minimum 1: 22.96,
 * 2: 22.98, 4: 22.97 (16 digits max) and 22.99 (12 max), 8: 22.96, no hex
 * without 0x: 22.95; maximum 8: 22.98, 10, 12, 14: 22.99, 16: 22.97 (longer
 * ids such as ZooKeeper's 0x14ed93111f20005 share long prefixes that zstd
 * finds in their text but not in a varint of their value).
 */
#ifndef LTKA_HEX_MIN_DIGITS
#define LTKA_HEX_MIN_DIGITS 4
#endif
#ifndef LTKA_HEX_MAX_DIGITS
#define LTKA_HEX_MAX_DIGITS 12
#endif

/*
 * Coding byte of a numeric column (LTKA_S_NUMMETA): bit 0 delta (zigzag
 * varints of differences) else raw varints; bits 1-2 zero padding: 0 a
 * constant count (varint follows), 1 a fixed width (varint width << 1 |
 * sign follows), 2 a count per value, the n bytes after the column's values
 * in its numbers chunk.  Bit 3 (IP columns
 * only, with bits 0-2 clear and a constant pad of 0): octet planes, the
 * values written as 4n bytes, first octet of every value, then the second,
 * ... (zstd packs a plane of one repeated octet to nothing).
 */
#define LTKA_COL_DELTA 1
#define LTKA_COL_PLANES 8

/*
 * A number-test kind (ltka_num_test in archive_reader_impl.h, next to
 * LTKA_TEST_EXACT/SUFFIX/PREFIX) for IP columns: the value passes when
 * (value & mask) == bits, where the test's value holds mask << 32 | bits
 * (the octets a search piece fixes).
 */
#define LTKA_TEST_IP_MASK 4

/*
 * Its companion for packed (non-canonical) IP values, which every
 * LTKA_TEST_IP_MASK test passes: an address (below 2^32) passes, a packed
 * value when the parts the search piece spells out whole are those of the
 * test's value, flags << 48 | p0 << 36 | ... | p3 (flags bit 3 - k: part k
 * is fixed; parts as in LTKA_IP_PACKED_FLAG).  A field 0xfff fails every
 * packed value (the piece is a canonical address).
 */
#define LTKA_TEST_IP_PACKED 5

/** Nonzero when template byte c is a variable marker (not a literal, not an escape). */
static inline int ltka_is_var_marker(unsigned c)
{
    return c >= LTKA_M_UNUM && c <= LTKA_M_LAST && c != LTKA_M_ESC;
}
/** Nonzero when marker c is a numeric kind (its values are in the numbers stream). */
static inline int ltka_is_num_marker(unsigned c)
{
    return ltka_is_var_marker(c) && c != LTKA_M_STR;
}

/** Name of stream i, for `logtk info`. */
const char *ltka_stream_name(int i);

/* ---- little-endian helpers ---- */
static inline void ltka_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t ltka_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void ltka_put_u64(uint8_t *p, uint64_t v)
{
    ltka_put_u32(p, (uint32_t)v);
    ltka_put_u32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t ltka_get_u64(const uint8_t *p)
{
    return (uint64_t)ltka_get_u32(p) | (uint64_t)ltka_get_u32(p + 4) << 32;
}

/** 32-bit checksum of bytes. */
uint32_t ltka_checksum(const void *data, size_t len);

/** A parsed block header. */
typedef struct ltka_block_header {
    uint64_t first_line; /* 0-based index of the block's first line in the archive */
    uint32_t nlines;
    uint32_t raw_bytes;
    uint32_t payload_len;
    uint32_t payload_hash;
    uint32_t content_hash;    /* ltka_checksum() of the line_hashes after the payload (version 4) */
    int has_content_hash;     /* 0 for a version 3 header */
} ltka_block_header;

/** Bytes of the line hashes after the payload of a block of nlines lines (version 4). */
static inline size_t ltka_line_hashes_len(uint32_t nlines)
{
    uint32_t group = ltka_check_group(nlines);
    return 4 * (((size_t)nlines + group - 1) / group);
}

/**
 * A header's content_hash: the checksum of the 12 bytes hash(line_hashes),
 * nlines, raw_bytes (u32 each), so that neither the line hashes nor the
 * counts they were made for can change alone.
 */
uint32_t ltka_content_hash(const uint8_t *line_hashes, size_t len, uint32_t nlines, uint32_t raw_bytes);

/** Appends the line hashes of text (whole lines) to out.  Returns 0 or -1 (no memory). */
int ltka_line_hashes(const char *text, size_t len, uint32_t nlines, logtk_strbuf *out);

/**
 * The end of the group of `group` lines starting at text[from] (or of
 * text, whichever comes first).
 */
size_t ltka_line_group_end(const char *text, size_t len, size_t from, uint32_t group);

/** Bytes of a block header in an archive of this version (3 or 4). */
static inline size_t ltka_block_header_len(int version)
{
    return version == 3 ? LTKA_BLOCK_HEADER_LEN_V3 : LTKA_BLOCK_HEADER_LEN;
}

/** Writes the version 4 header (LTKA_BLOCK_HEADER_LEN bytes) for h into out. */
void ltka_block_header_write(uint8_t out[LTKA_BLOCK_HEADER_LEN], const ltka_block_header *h);

/**
 * Parses a header of an archive of this version (ltka_block_header_len()
 * bytes); returns 0, or -1 when magic or header hash is wrong.
 */
int ltka_block_header_read(const uint8_t *in, int version, ltka_block_header *h);

/**
 * Checks a block's decoded text against its line hashes (NULL: a version 3
 * block, nothing to check; the reader has checked them against the
 * header's content_hash): LOGTK_OK, or LOGTK_ERR_ARCHIVE with the reason
 * in err.
 */
int ltka_check_content(const uint8_t *line_hashes, const char *text, size_t len, uint32_t nlines,
                       logtk_errbuf *err);

/* ------------------------------------------------------------------------ */
/* Block codec                                                               */
/* ------------------------------------------------------------------------ */

/* Per-stream sizes of an encoded block, for `logtk info`. */
typedef struct ltka_stream_sizes {
    uint64_t raw[LTKA_NSTREAMS];
    uint64_t stored[LTKA_NSTREAMS];
} ltka_stream_sizes;

typedef struct ltka_encoder ltka_encoder;
typedef struct ltka_decoder ltka_decoder;

/** Creates an encoder (reusable across blocks, one thread at a time); NULL on no memory. */
ltka_encoder *ltka_encoder_new(int level);
void ltka_encoder_free(ltka_encoder *e);

/**
 * Gives the encoder a log format (Loghub notation; NULL: none): each block's
 * header parts are then the tokens the format puts before <Content> (see
 * header_fields.c).  Returns LOGTK_OK, LOGTK_ERR_SYNTAX (bad format) or
 * LOGTK_ERR_NOMEM.
 */
int ltka_encoder_set_format(ltka_encoder *e, const char *spec);

/**
 * The number of whole tokens (at most max_parts) in front of <Content> on
 * most of the first lines of text[0..len) that match f, or -1 when fewer than
 * half of them match.
 */
int ltka_format_header_parts(logtk_format *f, const char *text, size_t len, size_t max_parts);

/**
 * Encodes raw text (whole lines; only the last may lack "\n") into a payload,
 * appended to out.  *nlines receives the line count.  Returns LOGTK_OK or
 * LOGTK_ERR_NOMEM.
 */
int ltka_encode_block(ltka_encoder *e, const char *text, size_t len, logtk_strbuf *out,
                      uint32_t *nlines);

/**
 * Test hook: while positive, each ltka_decode_block call decrements it and
 * fails with LOGTK_ERR_NOMEM, as a decode that ran out of memory.
 */
extern int ltka_test_decode_nomem;
/* Tests: this many decodes on the unpacker's worker threads fail as out of
 * memory (the caller's own decodes, the fallback, are not counted). */
extern int ltka_test_worker_nomem;

ltka_decoder *ltka_decoder_new(void);
void ltka_decoder_free(ltka_decoder *d);
/** Frees the decoder's buffers (it stays usable, as new; NULL is harmless): after running out of memory. */
void ltka_decoder_trim(ltka_decoder *d);

/**
 * Decodes a payload; on success the block's text is in text[0..len).
 * expect_lines/expect_bytes come from the header and are checked.  Returns
 * LOGTK_OK or LOGTK_ERR_ARCHIVE (message in err); never reads outside the payload.
 */
int ltka_decode_block(ltka_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, logtk_strbuf *text, ltka_stream_sizes *sizes,
                      logtk_errbuf *err);

/*
 * Decodes the payload into columns without rebuilding the text, so search can
 * look at templates first and rebuild only the lines that may match.
 */
int ltka_decode_columns(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
/**
 * The same in two steps: prepare decompresses the streams and reads templates
 * and template ids; values then expands the columns of the templates with
 * want[t] set (all when want is NULL).  Lines of other templates must not be
 * rebuilt.
 */
int ltka_decode_prepare(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
int ltka_decode_values(ltka_decoder *d, const uint8_t *want, logtk_errbuf *err);
/**
 * Like ltka_decode_values but expands only the values that lines[0..nsel)
 * (ascending) need; only those lines may then be rebuilt.
 */
int ltka_decode_values_for_lines(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 logtk_errbuf *err);
/**
 * prepare in two steps: templates checks the payload's layout and reads the
 * template dictionary only (so search can skip a block whose templates
 * cannot match without decompressing anything else); lines reads the rest.
 */
int ltka_decode_templates(ltka_decoder *d, const uint8_t *payload, size_t len,
                          uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
int ltka_decode_lines(ltka_decoder *d, logtk_errbuf *err);
/**
 * ltka_decode_lines that also ORs tmask[t] into line_mask[i] for the
 * template t of every part of line i (line_mask: one byte per line, zeroed
 * by the caller).
 */
int ltka_decode_lines_masked(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                             logtk_errbuf *err);
/** Number of templates of the decoded block and the bytes of template t. */
uint32_t ltka_decoder_template_count(const ltka_decoder *d);
const uint8_t *ltka_decoder_template(const ltka_decoder *d, uint32_t t, size_t *len);
/** Parts per line (header parts + the rest). */
uint32_t ltka_decoder_part_count(const ltka_decoder *d);
/** Template index of part p of line i. */
uint32_t ltka_decoder_line_template(const ltka_decoder *d, uint32_t i, uint32_t p);
/** Template indices of all units after ltka_decode_lines: entry p * lines + i is part p of line i. */
const uint32_t *ltka_decoder_unit_templates(const ltka_decoder *d);
/** Line end code of line i: 0 "\n", 1 "\r\n", 2 none. */
int ltka_decoder_line_eol(const ltka_decoder *d, uint32_t i);
/** Lines of the decoded block. */
uint32_t ltka_decoder_line_count(const ltka_decoder *d);
/** Appends line i (with its terminator when with_eol) to out. */
int ltka_decoder_line(ltka_decoder *d, uint32_t i, int with_eol, logtk_strbuf *out);

/* ------------------------------------------------------------------------ */
/* Line splitting                                                            */
/* ------------------------------------------------------------------------ */

/* One variable of a line. */
typedef struct ltka_var {
    uint8_t kind;     /* an LTKA_M_* variable marker */
    uint8_t pad;      /* numbers: leading zeros beyond the value's own digits (SNUM: << 1 | sign) */
    uint32_t str_off; /* strings: offset in the line */
    uint32_t str_len;
    uint64_t value;   /* numbers: value (SNUM: its magnitude; IP: the 32-bit address) */
} ltka_var;

/**
 * Splits one line (no terminator) into a template, appended to tmpl, and
 * variables, appended to vars (grown as needed; *nvars updated, *cap its
 * capacity).  Returns 0 or -1 (out of memory).
 */
int ltka_split_line(const char *line, size_t len, logtk_strbuf *tmpl, ltka_var **vars,
                    size_t *nvars, size_t *cap);

/** Nonzero when byte c can occur in a variable of the given kind (for search pruning). */
int ltka_var_may_contain(int kind, unsigned char c);

#endif
