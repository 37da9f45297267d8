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

int ltka_index_add(ltka_index *ix, uint64_t offset, uint64_t first_line, uint64_t nlines,
                   uint64_t raw_bytes)
{
    if (logtk_array_reserve((void **)&ix->entries, &ix->cap, ix->count + 1, sizeof *ix->entries) != 0)
        return -1;
    ltka_index_entry *e = &ix->entries[ix->count++];
    e->offset = offset;
    e->first_line = first_line;
    e->nlines = nlines;
    e->raw_bytes = raw_bytes;
    return 0;
}

void ltka_index_clear(ltka_index *ix)
{
    ix->count = 0;
}

void ltka_index_free(ltka_index *ix)
{
    free(ix->entries);
    memset(ix, 0, sizeof *ix);
}

int ltka_index_serialize(const ltka_index *ix, logtk_strbuf *out)
{
    size_t start = out->len;
    if (logtk_strbuf_append(out, LTKA_INDEX_MAGIC, 4) != 0 || logtk_strbuf_put_varint(out, ix->count) != 0)
        return -1;
    for (size_t i = 0; i < ix->count; i++) {
        const ltka_index_entry *e = &ix->entries[i];
        if (logtk_strbuf_put_varint(out, e->offset) != 0 ||
            logtk_strbuf_put_varint(out, e->first_line) != 0 ||
            logtk_strbuf_put_varint(out, e->nlines) != 0 ||
            logtk_strbuf_put_varint(out, e->raw_bytes) != 0)
            return -1;
    }
    uint32_t body = (uint32_t)(out->len - start);
    uint32_t sum = logtk_checksum32(out->data + start, body);
    uint8_t tail[12];
    logtk_le_put_u32(tail, sum);
    logtk_le_put_u32(tail + 4, body);
    memcpy(tail + 8, LTKA_END_MAGIC, 4);
    return logtk_strbuf_append(out, tail, sizeof tail);
}

int ltka_index_parse(ltka_index *ix, const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t n;
    ltka_index_clear(ix);
    if (len < 4 || memcmp(p, LTKA_INDEX_MAGIC, 4) != 0)
        return -1;
    p += 4;
    if (logtk_varint_get(&p, end, &n) != 0 || n > len)
        return -1;
    uint64_t line = 0, off = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t o, f, nl, rb;
        if (logtk_varint_get(&p, end, &o) != 0 || logtk_varint_get(&p, end, &f) != 0 ||
            logtk_varint_get(&p, end, &nl) != 0 || logtk_varint_get(&p, end, &rb) != 0)
            return -1;
        if (f != line || (i > 0 && o <= off) || nl > rb + 1)
            return -1;
        if (ltka_index_add(ix, o, f, nl, rb) != 0)
            return -1;
        line += nl;
        off = o;
    }
    return p == end ? 0 : -1;
}

long ltka_index_find_line(const ltka_index *ix, uint64_t line)
{
    size_t lo = 0, hi = ix->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ltka_index_entry *e = &ix->entries[mid];
        if (line < e->first_line)
            hi = mid;
        else if (line >= e->first_line + e->nlines)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}
