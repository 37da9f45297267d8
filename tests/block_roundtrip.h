/*
 * block_roundtrip.h - encode one block and decode it back (tests of the block codec).
 */
#ifndef LTK_TEST_BLOCK_ROUNDTRIP_H
#define LTK_TEST_BLOCK_ROUNDTRIP_H

#include <string.h>

#include "block_decode.h"
#include "block_encode.h"
#include "block_layout.h"

/*
 * Encodes text[0..len) as one block at `level` with the log format `format`
 * (NULL: none) and decodes it again.  Returns the decoder holding the block
 * (the caller frees it; its part count and templates can be looked at),
 * with the payload's stream sizes in *sizes when sizes is non-NULL, or NULL
 * when encoding or decoding failed or the bytes did not come back exactly.
 */
static inline ltk_decoder *block_roundtrip(const char *text, size_t len, int level, const char *format,
                                            ltk_stream_sizes *sizes)
{
    ltk_encoder *e = ltk_encoder_new(level);
    ltk_decoder *d = ltk_decoder_new();
    ltk_strbuf payload = LTK_STRBUF_INIT, back = LTK_STRBUF_INIT;
    ltk_errbuf err;
    ltk_error_clear(&err);
    if (sizes)
        memset(sizes, 0, sizeof *sizes);
    uint32_t nlines = 0;
    int ok = e && d && ltk_encoder_set_format(e, format) == LOGTK_OK &&
             ltk_encode_block(e, text, len, &payload, &nlines) == LOGTK_OK &&
             ltk_decode_block(d, (const uint8_t *)payload.data, payload.len, nlines, (uint32_t)len, &back,
                               sizes, &err) == LOGTK_OK &&
             back.len == len && memcmp(back.data, text, len) == 0;
    ltk_strbuf_free(&payload);
    ltk_strbuf_free(&back);
    ltk_encoder_free(e);
    if (!ok) {
        ltk_decoder_free(d);
        return NULL;
    }
    return d;
}

#endif
