/*
 * archive_append.c - reopening an archive to append to it (logtk compress
 * --append): where its blocks end, and what to cut.
 *
 * A writer that appends commits block after block to the file itself (no
 * temporary file: a log shipper restarts its child, and the child must go on
 * where the last one stopped, never start a new archive over it).  Each
 * block is written and fsync'ed before the next one starts, so after a
 * crash or kill -9 the file holds whole, durable blocks followed by at most
 * one torn block (or a torn footer, when the kill came during close).  The
 * file header then says version 6 with LTK_FLAG_OPEN: readers take a file
 * that ends right after a whole block as complete (see logtk-archive(5)).
 *
 * On reopening, the end of the blocks is found:
 *  - an intact footer at the very end of the file (a clean close): its index
 *    gives the blocks, and the footer is cut off to be rewritten at close;
 *  - otherwise, for an open archive only, by walking the block headers from
 *    the first (36 bytes read per block, the payloads skipped): the first
 *    header that is short, bad or out of line, or a block that runs past the
 *    end of the file, is where the tail starts; the last whole block's
 *    payload and line hashes are checked too, since a crash of the machine
 *    (not of the process) can leave a block of the right size but without
 *    its bytes.  The tail is cut only when no intact block header follows
 *    it: damage in the middle of an archive is not a torn tail, and cutting
 *    there would destroy good blocks, so that is refused.
 * A closed archive (no LTK_FLAG_OPEN) without an intact footer is refused as well:
 * it is damaged, not torn by this writer.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_append.h"
#include "archive_container.h"

/* Reads exactly n bytes at off; returns 0, or -1 (short file or error: errno). */
static int read_at(int fd, uint64_t off, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                errno = 0;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* An intact footer ending exactly at the end of the file: fills ix and *start. */
static int footer_at_end(int fd, uint64_t size, ltk_index *ix, uint64_t *start)
{
    uint8_t trailer[LTK_FOOTER_TRAILER_LEN];
    if (size < LTK_FILE_HEADER_LEN + 4 + LTK_FOOTER_TRAILER_LEN ||
        read_at(fd, size - sizeof trailer, trailer, sizeof trailer) != 0 ||
        memcmp(trailer + 8, LTK_END_MAGIC, 4) != 0)
        return -1;
    uint32_t body = ltk_le_get_u32(trailer + 4);
    if (body < 4 || (uint64_t)body + sizeof trailer + LTK_FILE_HEADER_LEN > size)
        return -1;
    uint8_t *p = malloc(body);
    if (!p)
        return -1;
    uint64_t at = size - sizeof trailer - body;
    int ok = read_at(fd, at, p, body) == 0 && memcmp(p, LTK_INDEX_MAGIC, 4) == 0 &&
             ltk_le_get_u32(trailer) == ltk_checksum32(p, body) && ltk_index_parse(ix, p, body) == 0;
    free(p);
    if (!ok)
        return -1;
    /* the index must describe the blocks right before it */
    if (ix->count > 0) {
        const ltk_index_entry *e = &ix->entries[ix->count - 1];
        uint8_t h[LTK_BLOCK_HEADER_LEN];
        ltk_block_header bh;
        if (read_at(fd, e->offset, h, sizeof h) != 0 || ltk_block_header_read(h, 4, &bh) != 0 ||
            e->offset + sizeof h + bh.payload_len + ltk_line_hashes_len(bh.nlines) != at)
            return -1;
    } else if (at != LTK_FILE_HEADER_LEN) {
        return -1;
    }
    *start = at;
    return 0;
}

/* Nonzero when the whole block at off (header h) checks: payload and line hashes. */
static int block_intact(int fd, uint64_t off, const ltk_block_header *h)
{
    size_t hashes = ltk_line_hashes_len(h->nlines);
    size_t n = (size_t)h->payload_len + hashes;
    uint8_t *p = malloc(n ? n : 1);
    if (!p)
        return 0;
    int ok = read_at(fd, off + LTK_BLOCK_HEADER_LEN, p, n) == 0 &&
             ltk_checksum32(p, h->payload_len) == h->payload_hash &&
             ltk_content_hash(p + h->payload_len, hashes, h->nlines, h->raw_bytes) ==
                 h->content_hash;
    free(p);
    return ok;
}

/* Nonzero when an intact block header starts anywhere in [from, size). */
static int header_after(int fd, uint64_t from, uint64_t size)
{
    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK + LTK_BLOCK_HEADER_LEN);
    if (!buf)
        return 1; /* cannot tell: do not cut */
    int found = 0;
    for (uint64_t off = from; off < size && !found; off += CHUNK) {
        size_t n = (size_t)(size - off < CHUNK + LTK_BLOCK_HEADER_LEN ? size - off
                                                                        : CHUNK + LTK_BLOCK_HEADER_LEN);
        if (read_at(fd, off, buf, n) != 0)
            break;
        for (size_t i = 0; i + LTK_BLOCK_HEADER_LEN <= n && i < CHUNK; i++) {
            ltk_block_header h;
            if (buf[i] == 'L' && memcmp(buf + i, LTK_BLOCK_MAGIC, 4) == 0 &&
                ltk_block_header_read(buf + i, 4, &h) == 0) {
                found = 1;
                break;
            }
        }
    }
    free(buf);
    return found;
}

int ltk_append_scan(int fd, const char *name, ltk_append_state *st, ltk_errbuf *err)
{
    struct stat sb;
    memset(st, 0, sizeof *st);
    if (fstat(fd, &sb) != 0)
        return ltk_error_set(err, LOGTK_ERR_IO, "%s: %s", name, strerror(errno));
    uint64_t size = (uint64_t)sb.st_size;
    if (size == 0) {
        st->empty = 1;
        return LOGTK_OK;
    }
    uint8_t fh[LTK_FILE_HEADER_LEN];
    if (read_at(fd, 0, fh, sizeof fh) != 0 || memcmp(fh, LTK_FILE_MAGIC, 4) != 0)
        return ltk_error_set(err, LOGTK_ERR_ARCHIVE,
                               "%s: not a logtk archive; --append leaves it untouched", name);
    if (fh[4] < 4 || fh[4] > LTK_VERSION_MAX)
        return ltk_error_set(err, LOGTK_ERR_ARCHIVE,
                               "%s: archive format version %u; appending needs version 4 to %d "
                               "(recompress it first)",
                               name, (unsigned)fh[4], LTK_VERSION_MAX);
    int open_flag = fh[4] >= LTK_VERSION_OPEN && (fh[5] & LTK_FLAG_OPEN);
    uint64_t footer_start;
    if (footer_at_end(fd, size, &st->index, &footer_start) == 0) {
        st->end = footer_start;
        st->cut = size - footer_start;
        st->lines = st->index.count ? st->index.entries[st->index.count - 1].first_line +
                                          st->index.entries[st->index.count - 1].nlines
                                    : 0;
        return LOGTK_OK;
    }
    ltk_index_clear(&st->index);
    if (!open_flag)
        return ltk_error_set(err, LOGTK_ERR_ARCHIVE,
                               "%s: the archive has no intact index at its end (damaged or "
                               "truncated); --append leaves it untouched", name);
    /* walk the headers of an open archive */
    uint64_t off = LTK_FILE_HEADER_LEN, lines = 0;
    for (;;) {
        uint8_t h[LTK_BLOCK_HEADER_LEN];
        ltk_block_header bh;
        if (size - off < sizeof h || read_at(fd, off, h, sizeof h) != 0 ||
            ltk_block_header_read(h, 4, &bh) != 0 || bh.first_line != lines)
            break;
        uint64_t end = off + sizeof h + bh.payload_len + ltk_line_hashes_len(bh.nlines);
        if (end > size)
            break;
        if (ltk_index_add(&st->index, off, lines, bh.nlines, bh.raw_bytes) != 0)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
        lines += bh.nlines;
        off = end;
    }
    /* the last whole blocks must hold what their headers say (a machine crash
       can leave a block's space without its bytes); drop those that do not */
    while (st->index.count > 0) {
        const ltk_index_entry *e = &st->index.entries[st->index.count - 1];
        uint8_t h[LTK_BLOCK_HEADER_LEN];
        ltk_block_header bh;
        if (read_at(fd, e->offset, h, sizeof h) == 0 && ltk_block_header_read(h, 4, &bh) == 0 &&
            block_intact(fd, e->offset, &bh))
            break;
        off = e->offset;
        lines = e->first_line;
        st->index.count--;
    }
    if (off < size && header_after(fd, off + 1, size)) {
        ltk_index_clear(&st->index);
        return ltk_error_set(err, LOGTK_ERR_ARCHIVE,
                               "%s: damaged at byte %llu with intact blocks after it; --append "
                               "cuts only a torn end and leaves this archive untouched",
                               name, (unsigned long long)off);
    }
    st->end = off;
    st->cut = size - off;
    st->lines = lines;
    return LOGTK_OK;
}
