/*
 * archive_container.h - the logtk archive container: file and block headers,
 * checksums, line hashes (archive_container.c; internal).  What a block
 * payload holds is block_layout.h.
 *
 * Layout (documented for users in logtk-archive(5)):
 *
 *   file   := file_header block* footer?
 *   file_header (8 bytes) := "LTKA" version(u8 = 6) flags(u8) reserved(u16 = 0)
 *   block  := block_header (36 bytes) payload line_hashes
 *   block_header := "LTKB" first_line(u64) nlines(u32) raw_bytes(u32)
 *                   payload_len(u32) payload_hash(u32) content_hash(u32) header_hash(u32)
 *   line_hashes := hash(u32) of the text of each group of ltk_check_group(nlines)
 *                  lines (the last may be shorter); content_hash: ltk_content_hash()
 *   (version 3: 32-byte header, no content_hash, no line_hashes)
 *   footer := "LTKI" nblocks(varint) {offset first_line nlines raw_bytes}(varint each)...
 *             footer_hash(u32) footer_len(u32) "LTKE"   (hash and len cover "LTKI"...)
 *
 * All fixed-width integers are little-endian.  Hashes are ltk_checksum32()
 * (version 2 changed it from ltk_hash_bytes(), which is slower; version 3
 * added the IP and hex variables and escapes template bytes 1..7; version 4
 * added the checksums of the block's decoded text (line_hashes, content_hash),
 * because a payload altered with its payload_hash recomputed can decode to
 * other lines without any structural error; per group of lines so that
 * search checks only the groups of the lines it prints; version 5 added the
 * OPEN flag, version 6 the string columns of whole messages (below); this
 * logtk reads versions 3 to 6, version 3 without that check, and refuses
 * others by number).  A block
 * holds whole lines and decodes on its own, so a damaged block loses only its
 * own lines; its range is known from the index (or from its header when the
 * header is intact).
 */
#ifndef LTK_ARCHIVE_CONTAINER_H
#define LTK_ARCHIVE_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "saved_frame.h"
#include "strbuf.h"

#define LTK_FILE_MAGIC "LTKA"
#define LTK_BLOCK_MAGIC "LTKB"
#define LTK_INDEX_MAGIC "LTKI"
#define LTK_END_MAGIC "LTKE"
#define LTK_VERSION 6     /* the version this logtk writes */
#define LTK_VERSION_MIN 3 /* the oldest it reads (version 3: no content_hash) */
/*
 * Version 5 is version 4 whose file header flags may hold LTK_FLAG_OPEN:
 * an archive being appended to (logtk compress --append), committed block by
 * block, whose footer is written only when its writer closes.  Such a file
 * ending right after a whole block is complete, not truncated.  Version 6 is
 * version 5 whose string columns may be written as lines
 * (LTK_STRING_CODING_LINES, block_layout.h): the layout of blocks whose
 * messages share too little for templates to pay.  This logtk writes
 * version 6 for every archive, and appending to a version 4 or 5 archive
 * makes it version 6 (its blocks are valid there as they are).
 */
#define LTK_VERSION_OPEN 5 /* the first version whose flags may hold LTK_FLAG_OPEN */
#define LTK_VERSION_MAX 6  /* the newest it reads */
#define LTK_FLAG_OPEN 1    /* file header flags, version 5 on: blocks are being appended */
#define LTK_FILE_HEADER_LEN 8
#define LTK_BLOCK_HEADER_LEN 36    /* version 4 */
#define LTK_BLOCK_HEADER_LEN_V3 32 /* version 3 */
/*
 * Lines per content checksum (version 4).  A search rebuilds the groups of
 * the lines it selects to check them, so a group is what a rare match costs;
 * the trade-off (size against search time) is measured in logtk-archive(5).
 */
#define LTK_CHECK_LINES 256
/*
 * A block of at most this many lines has one line hash: small blocks are
 * cheap to rebuild whole, and a small log then pays 4 bytes for the check.
 */
#define LTK_CHECK_SMALL 4096

/** Lines per line hash in a block of nlines lines (never 0). */
static inline uint32_t ltk_check_group(uint32_t nlines)
{
    return nlines > LTK_CHECK_SMALL ? LTK_CHECK_LINES : nlines ? nlines : 1;
}
#define LTK_FOOTER_TRAILER_LEN 12

/* Default block size: lines and bytes, whichever is reached first.  Chosen by
 * measurement (see logtk-archive(5)): larger blocks gain little ratio past
 * this point and cost memory and parallelism. */
#define LTK_DEFAULT_BLOCK_LINES 65536
#define LTK_DEFAULT_BLOCK_BYTES ((size_t)8 << 20)
/* Hard limit on one block's raw text: raw_bytes is a u32. */
#define LTK_MAX_BLOCK_BYTES ((size_t)0xF0000000u)

/** Name of stream i, for `logtk info`. */
const char *ltk_stream_name(int i);

/* Little-endian words and the checksum: core/saved_frame.h, shared with the
 * snapshot and model files. */


/** A parsed block header. */
typedef struct ltk_block_header {
    uint64_t first_line; /* 0-based index of the block's first line in the archive */
    uint32_t nlines;
    uint32_t raw_bytes;
    uint32_t payload_len;
    uint32_t payload_hash;
    uint32_t content_hash;    /* ltk_checksum32() of the line_hashes after the payload (version 4) */
    int has_content_hash;     /* 0 for a version 3 header */
} ltk_block_header;

/** Bytes of the line hashes after the payload of a block of nlines lines (version 4). */
static inline size_t ltk_line_hashes_len(uint32_t nlines)
{
    uint32_t group = ltk_check_group(nlines);
    return 4 * (((size_t)nlines + group - 1) / group);
}

/**
 * A header's content_hash: the checksum of the 12 bytes hash(line_hashes),
 * nlines, raw_bytes (u32 each), so that neither the line hashes nor the
 * counts they were made for can change alone.
 */
uint32_t ltk_content_hash(const uint8_t *line_hashes, size_t len, uint32_t nlines, uint32_t raw_bytes);

/** Appends the line hashes of text (whole lines) to out.  Returns 0 or -1 (no memory). */
int ltk_line_hashes(const char *text, size_t len, uint32_t nlines, ltk_strbuf *out);

/**
 * The end of the group of `group` lines starting at text[from] (or of
 * text, whichever comes first).
 */
size_t ltk_line_group_end(const char *text, size_t len, size_t from, uint32_t group);

/** Bytes of a block header in an archive of this version (3 or 4). */
static inline size_t ltk_block_header_len(int version)
{
    return version == 3 ? LTK_BLOCK_HEADER_LEN_V3 : LTK_BLOCK_HEADER_LEN;
}

/** Writes the version 4 header (LTK_BLOCK_HEADER_LEN bytes) for h into out. */
void ltk_block_header_write(uint8_t out[LTK_BLOCK_HEADER_LEN], const ltk_block_header *h);

/**
 * Parses a header of an archive of this version (ltk_block_header_len()
 * bytes); returns 0, or -1 when magic or header hash is wrong.
 */
int ltk_block_header_read(const uint8_t *in, int version, ltk_block_header *h);

/**
 * Checks a block's decoded text against its line hashes (NULL: a version 3
 * block, nothing to check; the reader has checked them against the
 * header's content_hash): LOGTK_OK, or LOGTK_ERR_ARCHIVE with the reason
 * in err.
 */
int ltk_check_content(const uint8_t *line_hashes, const char *text, size_t len, uint32_t nlines,
                       ltk_errbuf *err);

#endif
