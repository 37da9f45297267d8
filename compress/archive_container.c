/*
 * archive_container.c - block headers, checksums and stream names shared by
 * the archive writer and reader.
 *
 * The block header repeats the block's line range and sizes outside the
 * compressed payload and carries its own checksum, so a reader can tell
 * "payload damaged" (range still known, skip payload_len bytes) from "header
 * damaged" (scan forward for the next block magic).
 */
#include "config.h"

#include <string.h>

#include "archive_format.h"
#include "block_layout.h"
#include "hashtab.h"

static const char *const stream_names[LTKA_NSTREAMS] = {
    "templates", "template_ids", "line_ends", "number_codings", "numbers", "zero_padding", "strings",
};

const char *ltka_stream_name(int i)
{
    return i >= 0 && i < LTKA_NSTREAMS ? stream_names[i] : "?";
}

/*
 * The checksum (format version 2) reads 32 bytes per round into four
 * independent lanes (multiply, rotate), so the multiplications of the lanes
 * overlap in the CPU instead of waiting on each other: checking a block costs
 * a fraction of decompressing it.  The lanes, the length and the tail bytes
 * are folded together with a final avalanche.  It detects damage; it is not
 * a cryptographic hash.
 */
static inline uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t lane_round(uint64_t acc, uint64_t w)
{
    return rotl64(acc + w * 0xc2b2ae3d27d4eb4full, 31) * 0x9e3779b185ebca87ull;
}

/*
 * The little-endian word at p, as logtk-archive(5) defines the checksum:
 * one load where the host is little-endian, bytes assembled elsewhere, so
 * an archive checks the same on every machine.
 */
static inline uint64_t load_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#else
    return ltka_get_u64(p);
#endif
}

static inline uint64_t avalanche(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 32;
    return x;
}

uint32_t ltka_checksum(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull, c = 0xa4093822299f31d0ull,
             d = 0x082efa98ec4e6c89ull;
    size_t n = len;
    while (n >= 32) {
        a = lane_round(a, load_le64(p));
        b = lane_round(b, load_le64(p + 8));
        c = lane_round(c, load_le64(p + 16));
        d = lane_round(d, load_le64(p + 24));
        p += 32;
        n -= 32;
    }
    uint64_t h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18) + (uint64_t)len;
    while (n >= 8) {
        h = avalanche(h ^ load_le64(p));
        p += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < n; i++)
        tail |= (uint64_t)p[i] << (8 * i);
    return (uint32_t)avalanche(h ^ tail ^ 0x9216d5d98979fb1bull);
}

void ltka_block_header_write(uint8_t out[LTKA_BLOCK_HEADER_LEN], const ltka_block_header *h)
{
    memcpy(out, LTKA_BLOCK_MAGIC, 4);
    ltka_put_u64(out + 4, h->first_line);
    ltka_put_u32(out + 12, h->nlines);
    ltka_put_u32(out + 16, h->raw_bytes);
    ltka_put_u32(out + 20, h->payload_len);
    ltka_put_u32(out + 24, h->payload_hash);
    ltka_put_u32(out + 28, h->content_hash);
    ltka_put_u32(out + 32, ltka_checksum(out, 32));
}

int ltka_block_header_read(const uint8_t *in, int version, ltka_block_header *h)
{
    size_t hashed = ltka_block_header_len(version) - 4;
    if (memcmp(in, LTKA_BLOCK_MAGIC, 4) != 0 || ltka_get_u32(in + hashed) != ltka_checksum(in, hashed))
        return -1;
    h->first_line = ltka_get_u64(in + 4);
    h->nlines = ltka_get_u32(in + 12);
    h->raw_bytes = ltka_get_u32(in + 16);
    h->payload_len = ltka_get_u32(in + 20);
    h->payload_hash = ltka_get_u32(in + 24);
    h->has_content_hash = version != 3;
    h->content_hash = h->has_content_hash ? ltka_get_u32(in + 28) : 0;
    return 0;
}

size_t ltka_line_group_end(const char *text, size_t len, size_t from, uint32_t group)
{
    size_t pos = from;
    for (uint32_t k = 0; k < group && pos < len; k++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        pos = nl ? (size_t)(nl - text) + 1 : len;
    }
    return pos;
}

uint32_t ltka_content_hash(const uint8_t *line_hashes, size_t len, uint32_t nlines, uint32_t raw_bytes)
{
    uint8_t b[12];
    ltka_put_u32(b, ltka_checksum(line_hashes, len));
    ltka_put_u32(b + 4, nlines);
    ltka_put_u32(b + 8, raw_bytes);
    return ltka_checksum(b, sizeof b);
}

int ltka_line_hashes(const char *text, size_t len, uint32_t nlines, logtk_strbuf *out)
{
    uint32_t group = ltka_check_group(nlines);
    for (size_t pos = 0; pos < len;) {
        size_t end = ltka_line_group_end(text, len, pos, group);
        uint8_t h[4];
        ltka_put_u32(h, ltka_checksum(text + pos, end - pos));
        if (logtk_strbuf_append(out, h, 4) != 0)
            return -1;
        pos = end;
    }
    return 0;
}

int ltka_check_content(const uint8_t *line_hashes, const char *text, size_t len, uint32_t nlines,
                       logtk_errbuf *err)
{
    if (!line_hashes)
        return LOGTK_OK;
    uint32_t lines = ltka_check_group(nlines);
    size_t group = 0;
    for (size_t pos = 0; pos < len; group++) {
        size_t end = ltka_line_group_end(text, len, pos, lines);
        if (ltka_checksum(text + pos, end - pos) != ltka_get_u32(line_hashes + 4 * group))
            return logtk_error_set(err, LOGTK_ERR_ARCHIVE,
                                   "decoded lines %zu-%zu of the block fail the content checksum",
                                   group * lines + 1, group * lines + lines < nlines ? group * lines + lines : (size_t)nlines);
        pos = end;
    }
    return LOGTK_OK;
}
