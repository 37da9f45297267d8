/*
 * content_key.h - the content-hash key of a template text (internal).
 *
 * One definition shared by everything that names templates by content: the
 * parsers' logtk_parser_template_key() and shard merging (parsers/parser.c),
 * and the sinks that write template lists (the "templates" kind's EventKey
 * column and the SQLite templates.key column, core/sink_*.c).  Keeping it in
 * core lets the sinks hash a text themselves without depending on parsers/.
 *
 * The hash is FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3), over the text's bytes exactly.  It is chosen for being
 * defined by a published constant pair rather than by this code base: keys
 * are written into files and compared across machines and releases, so this
 * must never change, unlike ltk_hash_bytes() (hashtab.h), which may be
 * tuned for speed.  Templates are hashed once each, not per line, so the
 * byte-at-a-time loop costs nothing that matters.
 *
 * Header-only (static inline) so no internal symbol is added to the library.
 */
#ifndef LTK_CONTENT_KEY_H
#define LTK_CONTENT_KEY_H

#include <stddef.h>
#include <stdint.h>

/** Characters of a key in text: 16 lowercase hex digits (no NUL). */
#define LTK_CONTENT_KEY_HEX_LEN 16

/** FNV-1a 64 of the len bytes at text (text may be NULL when len is 0). */
static inline uint64_t ltk_content_key(const void *text, size_t len)
{
    const unsigned char *p = text;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/**
 * Writes key as exactly 16 lowercase hex digits, most significant first (the
 * same text as printf "%016llx"), into out[0..15] followed by a NUL (out must
 * hold 17 bytes).  Returns out.
 */
static inline char *ltk_content_key_hex(uint64_t key, char out[LTK_CONTENT_KEY_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = LTK_CONTENT_KEY_HEX_LEN - 1; i >= 0; i--) {
        out[i] = digits[key & 15];
        key >>= 4;
    }
    out[LTK_CONTENT_KEY_HEX_LEN] = '\0';
    return out;
}

#endif
