/*
 * saved_frame.h - the one framing of the files logtk saves (internal).
 *
 * A parser snapshot (format 4 on) and a detector model file (format 3 on)
 * are each one frame:
 *
 *   frame := magic (8 bytes) version (u32) payload_len (u64) payload checksum (u32)
 *
 * with every integer little-endian and the checksum ltk_checksum32() of
 * every byte before it.  The magic tells a foreign file, the version a newer
 * one, payload_len a truncated one (or one with bytes appended), the checksum
 * a damaged one, and each gets its own message.  Archive blocks
 * (logtk-archive(5)) keep their fixed 36-byte headers, which older logtk
 * reads, but check them and their payloads with the same ltk_checksum32()
 * and little-endian words.  Older snapshots and models are still read by
 * their own code (parser_snapshot.c, detect_model.c).
 */
#ifndef LTK_SAVED_FRAME_H
#define LTK_SAVED_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "strbuf.h"

#define LTK_FRAME_MAGIC_LEN 8
#define LTK_FRAME_HEADER_LEN 20 /* magic, version, payload_len */
#define LTK_FRAME_TRAILER_LEN 4 /* checksum */

/* ---- little-endian words ---- */
static inline void ltk_le_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t ltk_le_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void ltk_le_put_u64(uint8_t *p, uint64_t v)
{
    ltk_le_put_u32(p, (uint32_t)v);
    ltk_le_put_u32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t ltk_le_get_u64(const uint8_t *p)
{
    return (uint64_t)ltk_le_get_u32(p) | (uint64_t)ltk_le_get_u32(p + 4) << 32;
}

/**
 * 32-bit checksum of bytes: the same value on every host (words are read
 * little-endian).  It detects damage; it is not a cryptographic hash.
 */
uint32_t ltk_checksum32(const void *data, size_t len);

/**
 * Starts a frame at the end of b: appends the magic (LTK_FRAME_MAGIC_LEN
 * bytes), the version and room for the payload length.  The caller then
 * appends the payload and calls ltk_frame_end() with the same `start`
 * (b->len before this call).  Returns 0 or -1 (out of memory).
 */
int ltk_frame_begin(ltk_strbuf *b, const char *magic, uint32_t version);

/** Ends the frame begun at `start`: writes its payload length and appends its
 *  checksum.  Returns 0 or -1 (out of memory). */
int ltk_frame_end(ltk_strbuf *b, size_t start);

/**
 * Opens the frame filling buf[0..len): checks the magic, that the version is
 * at most `newest`, the length and the checksum, in that order, and
 * gives the version and the payload.  On failure returns LOGTK_ERR_STATE with
 * why set to "not a logtk WHAT (bad magic)", "WHAT version V; this logtk reads
 * versions up to N", "... is truncated or has bytes after its end" or "...
 * is damaged (checksum mismatch)", where `what` names the kind of file ("parser
 * snapshot", "model file").
 */
int ltk_frame_open(const void *buf, size_t len, const char *magic, uint32_t newest,
                     const char *what, uint32_t *version,
                     const uint8_t **payload, size_t *payload_len, ltk_errbuf *why);

#endif
