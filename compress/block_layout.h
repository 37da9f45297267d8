/*
 * block_layout.h - what a block payload holds: its streams, the numbers
 * chunks, the template markers and the numeric column codings (internal;
 * shared by block_encode.c, block_decode.c, block_query.c, line_split.c).
 */
#ifndef LTK_BLOCK_LAYOUT_H
#define LTK_BLOCK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Most header parts (leading tokens stored as parts of their own) per line. */
#define LTK_MAX_HEADER_PARTS 8

/* Streams of a block payload, in payload order. */
enum {
    LTK_S_TEMPLATES = 0, /* template count, then len + bytes of each template */
    LTK_S_TIDS,          /* per part: width byte, then per line a template index of that width */
    LTK_S_EOLS,          /* per line: 0 "\n", 1 "\r\n", 2 none (last line only) */
    LTK_S_NUMMETA,       /* per numeric column: coding byte and width info */
    LTK_S_NUMS,          /* numeric values, column-major (varints), in chunks (below) */
    LTK_S_PADS,          /* empty since version 3: explicit zero padding follows its column in LTK_S_NUMS */
    LTK_S_STRS,          /* string variables, column-major: len + bytes */
    LTK_NSTREAMS
};

/*
 * The numbers stream is stored (raw_len == stored_len) as chunks that
 * decompress on their own:  nchunks(varint), then per chunk
 * first_template(varint, delta from the previous chunk's; 0 for the first)
 * raw_len(varint) stored_len(varint; == raw_len: not compressed), then the
 * chunks' bytes in order.  A chunk holds the numeric columns of whole
 * templates; a new chunk starts at the first template after the current one
 * reached LTK_NUM_CHUNK_BYTES.
 */
#define LTK_NUM_CHUNK_BYTES ((size_t)32 << 10)

/*
 * Template bytes: markers for variables; any literal byte in 1..LTK_M_LAST
 * is escaped.  All kinds but LTK_M_STR are numeric: one value per line in
 * the numbers stream (a numeric column), zero padding as for decimals.
 */
#define LTK_M_UNUM 0x01 /* unsigned decimal digit run */
#define LTK_M_SNUM 0x02 /* optional '-' then a digit run */
#define LTK_M_STR 0x03  /* a string variable */
#define LTK_M_IP 0x04   /* dotted quad "a.b.c.d" of 1-3 digit parts (value: see LTK_IP_PACKED_FLAG) */
#define LTK_M_ESC 0x05  /* next byte is literal */
#define LTK_M_HEXL 0x06 /* hex digits 0-9a-f (value; pad: leading zeros) */
#define LTK_M_HEXU 0x07 /* hex digits 0-9A-F */
#define LTK_M_LAST 0x07 /* highest marker: bytes 1..7 are escaped in templates */

/*
 * Value of an LTK_M_IP variable: a canonical IPv4 address (parts 0-255
 * without leading zeros) is the 32-bit address a << 24 | b << 16 | c << 8 | d;
 * any other quad is LTK_IP_PACKED_FLAG | p0 << 36 | p1 << 24 | p2 << 12 | p3
 * with each part p = (digits - 1) << 10 | value ("10.957.43.015":
 * 1 << 10 | 10, 2 << 10 | 957, 1 << 10 | 43, 2 << 10 | 15).  A packed value
 * that is not of that form (stray bits, 4 digits, a value of more digits
 * than it says) or that describes a canonical address is damage.
 */
#define LTK_IP_PACKED_FLAG ((uint64_t)1 << 48)

/** Nonzero when v is a valid LTK_M_IP value (an address, or a packed non-canonical quad). */
static inline int ltk_ip_value_ok(uint64_t v)
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
 * LTK_HEX_MIN_DIGITS hex digits (with a decimal digit and a letter); with
 * or without, at most LTK_HEX_MAX_DIGITS (chosen by the compression ratio
 * on the Loghub-2k logs; longer ids such as ZooKeeper's 0x14ed93111f20005
 * share long prefixes that zstd finds in their text but not in a varint of
 * their value).
 */
#ifndef LTK_HEX_MIN_DIGITS
#define LTK_HEX_MIN_DIGITS 4
#endif
#ifndef LTK_HEX_MAX_DIGITS
#define LTK_HEX_MAX_DIGITS 12
#endif

/*
 * Coding byte of a numeric column (LTK_S_NUMMETA): bit 0 delta (zigzag
 * varints of differences) else raw varints; bits 1-2 zero padding: 0 a
 * constant count (varint follows), 1 a fixed width (varint width << 1 |
 * sign follows), 2 a count per value, the n bytes after the column's values
 * in its numbers chunk.  Bit 3 (IP columns
 * only, with bits 0-2 clear and a constant pad of 0): octet planes, the
 * values written as 4n bytes, first octet of every value, then the second,
 * ... (zstd packs a plane of one repeated octet to nothing).
 */
#define LTK_COL_DELTA 1
#define LTK_COL_PLANES 8


/** Nonzero when template byte c is a variable marker (not a literal, not an escape). */
static inline int ltk_is_var_marker(unsigned c)
{
    return c >= LTK_M_UNUM && c <= LTK_M_LAST && c != LTK_M_ESC;
}
/** Nonzero when marker c is a numeric kind (its values are in the numbers stream). */
static inline int ltk_is_num_marker(unsigned c)
{
    return ltk_is_var_marker(c) && c != LTK_M_STR;
}

/*
 * Coding of a string column of at least 16 values (its first varint; see
 * put_string_column): 1..65536 a dictionary of that many values, this one
 * the values each followed by '\n' (archive version 6), and 0 the values
 * each after its length (what versions 3 to 5 wrote).
 */
#define LTK_STRING_CODING_LINES 65537u

/*
 * Added to a payload's part count (version 6) when the block keeps each
 * message as one string variable (block_encode.c): its string variables
 * may then hold any byte but a newline, blanks included, where the other
 * blocks' hold only hex digits, '-', 'x' (ltk_var_may_contain), so search
 * cannot rule out any of its templates.
 */
#define LTK_PARTS_MESSAGES 16u

/* Per-stream sizes of an encoded block, for `logtk info`. */
typedef struct ltk_stream_sizes {
    uint64_t raw[LTK_NSTREAMS];
    uint64_t stored[LTK_NSTREAMS];
} ltk_stream_sizes;

#endif
