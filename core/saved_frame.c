/*
 * saved_frame.c - the framing of saved files and the checksum they and the
 * archive's blocks share (see saved_frame.h).
 */
#include "config.h"

#include <string.h>

#include "logtk.h"
#include "saved_frame.h"

/*
 * The checksum (archive format version 2 on) reads 32 bytes per round into
 * four independent lanes (multiply, rotate), so the multiplications of the
 * lanes overlap in the CPU instead of waiting on each other: checking a block
 * costs a fraction of decompressing it.  The lanes, the length and the tail
 * bytes are folded together with a final avalanche.
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
 * a file checks the same on every machine.
 */
static inline uint64_t load_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#else
    return ltk_le_get_u64(p);
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

uint32_t ltk_checksum32(const void *data, size_t len)
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

int ltk_frame_begin(ltk_strbuf *b, const char *magic, uint32_t version)
{
    uint8_t head[LTK_FRAME_HEADER_LEN];
    memcpy(head, magic, LTK_FRAME_MAGIC_LEN);
    ltk_le_put_u32(head + 8, version);
    ltk_le_put_u64(head + 12, 0); /* the payload length, written by ltk_frame_end */
    return ltk_strbuf_append(b, head, sizeof head);
}

int ltk_frame_end(ltk_strbuf *b, size_t start)
{
    /* the frame must have been begun at start: its header lies before the end */
    if (b->len < start + LTK_FRAME_HEADER_LEN)
        return -1;
    ltk_le_put_u64((uint8_t *)b->data + start + 12,
                     (uint64_t)(b->len - start - LTK_FRAME_HEADER_LEN));
    uint8_t sum[LTK_FRAME_TRAILER_LEN];
    ltk_le_put_u32(sum, ltk_checksum32(b->data + start, b->len - start));
    return ltk_strbuf_append(b, sum, sizeof sum);
}

int ltk_frame_open(const void *buf, size_t len, const char *magic, uint32_t newest,
                     const char *what, uint32_t *version,
                     const uint8_t **payload, size_t *payload_len, ltk_errbuf *why)
{
    const uint8_t *d = buf;
    if (d == NULL || len < LTK_FRAME_MAGIC_LEN || memcmp(d, magic, LTK_FRAME_MAGIC_LEN) != 0)
        return ltk_error_set(why, LOGTK_ERR_STATE, "not a logtk %s (bad magic)", what);
    if (len < LTK_FRAME_HEADER_LEN + LTK_FRAME_TRAILER_LEN)
        return ltk_error_set(why, LOGTK_ERR_STATE, "%s is truncated (%zu bytes)", what, len);
    uint32_t v = ltk_le_get_u32(d + 8);
    if (v > newest)
        return ltk_error_set(why, LOGTK_ERR_STATE,
                               "%s version %u; this logtk reads versions up to %u", what, v,
                               newest);
    uint64_t n = ltk_le_get_u64(d + 12);
    if (n != (uint64_t)(len - LTK_FRAME_HEADER_LEN - LTK_FRAME_TRAILER_LEN))
        return ltk_error_set(why, LOGTK_ERR_STATE,
                               "%s is truncated or has bytes after its end (%zu bytes, its "
                               "frame says %llu)",
                               what, len,
                               (unsigned long long)(n + LTK_FRAME_HEADER_LEN +
                                                    LTK_FRAME_TRAILER_LEN));
    if (ltk_le_get_u32(d + len - LTK_FRAME_TRAILER_LEN) !=
        ltk_checksum32(d, len - LTK_FRAME_TRAILER_LEN))
        return ltk_error_set(why, LOGTK_ERR_STATE, "%s is damaged (checksum mismatch)", what);
    *version = v;
    *payload = d + LTK_FRAME_HEADER_LEN;
    *payload_len = (size_t)n;
    return LOGTK_OK;
}
