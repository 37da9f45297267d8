/*
 * archive_index.c - the footer's block index: one entry per block with its
 * offset, first line, line count and raw size, as varints (delta-coded
 * offsets and lines would save a few bytes per block; blocks are large, so
 * plain varints keep the footer trivial to check).  The footer ends with its
 * own length and "LTKE", so a reader finds it from the end of the file and a
 * streaming reader recognises it by its "LTKI" magic.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "archive_container.h"
#include "archive_index.h"
#include "growarray.h"

int ltk_index_add(ltk_index *ix, uint64_t offset, uint64_t first_line, uint64_t nlines,
                   uint64_t raw_bytes)
{
    if (ltk_array_reserve((void **)&ix->entries, &ix->cap, ix->count + 1, sizeof *ix->entries) != 0)
        return -1;
    ltk_index_entry *e = &ix->entries[ix->count++];
    e->offset = offset;
    e->first_line = first_line;
    e->nlines = nlines;
    e->raw_bytes = raw_bytes;
    return 0;
}

void ltk_index_clear(ltk_index *ix)
{
    ix->count = 0;
}

void ltk_index_free(ltk_index *ix)
{
    free(ix->entries);
    memset(ix, 0, sizeof *ix);
}

int ltk_index_serialize(const ltk_index *ix, ltk_strbuf *out)
{
    size_t start = out->len;
    if (ltk_strbuf_append(out, LTK_INDEX_MAGIC, 4) != 0 || ltk_strbuf_put_varint(out, ix->count) != 0)
        return -1;
    for (size_t i = 0; i < ix->count; i++) {
        const ltk_index_entry *e = &ix->entries[i];
        if (ltk_strbuf_put_varint(out, e->offset) != 0 ||
            ltk_strbuf_put_varint(out, e->first_line) != 0 ||
            ltk_strbuf_put_varint(out, e->nlines) != 0 ||
            ltk_strbuf_put_varint(out, e->raw_bytes) != 0)
            return -1;
    }
    uint32_t body = (uint32_t)(out->len - start);
    uint32_t sum = ltk_checksum32(out->data + start, body);
    uint8_t tail[12];
    ltk_le_put_u32(tail, sum);
    ltk_le_put_u32(tail + 4, body);
    memcpy(tail + 8, LTK_END_MAGIC, 4);
    return ltk_strbuf_append(out, tail, sizeof tail);
}

int ltk_index_parse(ltk_index *ix, const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t n;
    ltk_index_clear(ix);
    if (len < 4 || memcmp(p, LTK_INDEX_MAGIC, 4) != 0)
        return -1;
    p += 4;
    if (ltk_varint_get(&p, end, &n) != 0 || n > len)
        return -1;
    uint64_t line = 0, off = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t o, f, nl, rb;
        if (ltk_varint_get(&p, end, &o) != 0 || ltk_varint_get(&p, end, &f) != 0 ||
            ltk_varint_get(&p, end, &nl) != 0 || ltk_varint_get(&p, end, &rb) != 0)
            return -1;
        if (f != line || (i > 0 && o <= off) || nl > rb + 1)
            return -1;
        if (ltk_index_add(ix, o, f, nl, rb) != 0)
            return -1;
        line += nl;
        off = o;
    }
    return p == end ? 0 : -1;
}

long ltk_index_find_line(const ltk_index *ix, uint64_t line)
{
    size_t lo = 0, hi = ix->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ltk_index_entry *e = &ix->entries[mid];
        if (line < e->first_line)
            hi = mid;
        else if (line >= e->first_line + e->nlines)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}
