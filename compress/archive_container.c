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

#include "archive_container.h"
#include "block_layout.h"

static const char *const stream_names[LTK_NSTREAMS] = {
    "templates", "template_ids", "line_ends", "number_codings", "numbers", "zero_padding", "strings",
};

const char *ltk_stream_name(int i)
{
    return i >= 0 && i < LTK_NSTREAMS ? stream_names[i] : "?";
}

void ltk_block_header_write(uint8_t out[LTK_BLOCK_HEADER_LEN], const ltk_block_header *h)
{
    memcpy(out, LTK_BLOCK_MAGIC, 4);
    ltk_le_put_u64(out + 4, h->first_line);
    ltk_le_put_u32(out + 12, h->nlines);
    ltk_le_put_u32(out + 16, h->raw_bytes);
    ltk_le_put_u32(out + 20, h->payload_len);
    ltk_le_put_u32(out + 24, h->payload_hash);
    ltk_le_put_u32(out + 28, h->content_hash);
    ltk_le_put_u32(out + 32, ltk_checksum32(out, 32));
}

int ltk_block_header_read(const uint8_t *in, int version, ltk_block_header *h)
{
    size_t hashed = ltk_block_header_len(version) - 4;
    if (memcmp(in, LTK_BLOCK_MAGIC, 4) != 0 || ltk_le_get_u32(in + hashed) != ltk_checksum32(in, hashed))
        return -1;
    h->first_line = ltk_le_get_u64(in + 4);
    h->nlines = ltk_le_get_u32(in + 12);
    h->raw_bytes = ltk_le_get_u32(in + 16);
    h->payload_len = ltk_le_get_u32(in + 20);
    h->payload_hash = ltk_le_get_u32(in + 24);
    h->has_content_hash = version != 3;
    h->content_hash = h->has_content_hash ? ltk_le_get_u32(in + 28) : 0;
    return 0;
}

size_t ltk_line_group_end(const char *text, size_t len, size_t from, uint32_t group)
{
    size_t pos = from;
    for (uint32_t k = 0; k < group && pos < len; k++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        pos = nl ? (size_t)(nl - text) + 1 : len;
    }
    return pos;
}

uint32_t ltk_content_hash(const uint8_t *line_hashes, size_t len, uint32_t nlines, uint32_t raw_bytes)
{
    uint8_t b[12];
    ltk_le_put_u32(b, ltk_checksum32(line_hashes, len));
    ltk_le_put_u32(b + 4, nlines);
    ltk_le_put_u32(b + 8, raw_bytes);
    return ltk_checksum32(b, sizeof b);
}

int ltk_line_hashes(const char *text, size_t len, uint32_t nlines, ltk_strbuf *out)
{
    uint32_t group = ltk_check_group(nlines);
    for (size_t pos = 0; pos < len;) {
        size_t end = ltk_line_group_end(text, len, pos, group);
        uint8_t h[4];
        ltk_le_put_u32(h, ltk_checksum32(text + pos, end - pos));
        if (ltk_strbuf_append(out, h, 4) != 0)
            return -1;
        pos = end;
    }
    return 0;
}

int ltk_check_content(const uint8_t *line_hashes, const char *text, size_t len, uint32_t nlines,
                       ltk_errbuf *err)
{
    if (!line_hashes)
        return LOGTK_OK;
    uint32_t lines = ltk_check_group(nlines);
    size_t group = 0;
    for (size_t pos = 0; pos < len; group++) {
        size_t end = ltk_line_group_end(text, len, pos, lines);
        if (ltk_checksum32(text + pos, end - pos) != ltk_le_get_u32(line_hashes + 4 * group))
            return ltk_error_set(err, LOGTK_ERR_ARCHIVE,
                                   "decoded lines %zu-%zu of the block fail the content checksum",
                                   group * lines + 1, group * lines + lines < nlines ? group * lines + lines : (size_t)nlines);
        pos = end;
    }
    return LOGTK_OK;
}
