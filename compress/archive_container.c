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
#include "hashtab.h"

static const char *const stream_names[LTKA_NSTREAMS] = {
    "templates", "template_ids", "line_ends", "number_codings", "numbers", "zero_padding", "strings",
};

const char *ltka_stream_name(int i)
{
    return i >= 0 && i < LTKA_NSTREAMS ? stream_names[i] : "?";
}

uint32_t ltka_checksum(const void *data, size_t len)
{
    return (uint32_t)logtk_hash_bytes(data, len);
}

void ltka_block_header_write(uint8_t out[LTKA_BLOCK_HEADER_LEN], const ltka_block_header *h)
{
    memcpy(out, LTKA_BLOCK_MAGIC, 4);
    ltka_put_u64(out + 4, h->first_line);
    ltka_put_u32(out + 12, h->nlines);
    ltka_put_u32(out + 16, h->raw_bytes);
    ltka_put_u32(out + 20, h->payload_len);
    ltka_put_u32(out + 24, h->payload_hash);
    ltka_put_u32(out + 28, ltka_checksum(out, 28));
}

int ltka_block_header_read(const uint8_t in[LTKA_BLOCK_HEADER_LEN], ltka_block_header *h)
{
    if (memcmp(in, LTKA_BLOCK_MAGIC, 4) != 0 || ltka_get_u32(in + 28) != ltka_checksum(in, 28))
        return -1;
    h->first_line = ltka_get_u64(in + 4);
    h->nlines = ltka_get_u32(in + 12);
    h->raw_bytes = ltka_get_u32(in + 16);
    h->payload_len = ltka_get_u32(in + 20);
    h->payload_hash = ltka_get_u32(in + 24);
    return 0;
}
