/*
 * fuzz_unpack.c - parallel decompression equals serial decompression on any bytes.
 *
 * Input: byte 0 chooses the thread count (2..5), the block size and the
 * mode; bytes 1-4 a damage position and value; the rest is text.  The text
 * is compressed into a real archive of small blocks, which then gets one
 * byte changed or is cut short (or, in raw mode, the rest itself is taken as
 * the archive).  The archive is walked once with logtk_archive_reader_next()
 * and once through a logtk_archive_unpacker; both walks must deliver the
 * same blocks with the same statuses, line ranges, texts and messages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "membuf.h"

#define MAX_BLOCKS 4096

/* Compresses text into arc with small blocks; 0 or -1. */
static int make_archive(const uint8_t *text, size_t len, int block_lines, membuf *arc)
{
    logtk_archive_writer *w = NULL;
    char bl[16];
    snprintf(bl, sizeof bl, "%d", block_lines);
    int rc = logtk_archive_writer_new(&w);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_set_option(w, "block_lines", bl);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_open_callback(w, mem_write, arc);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_write(w, text, len);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_close(w);
    logtk_archive_writer_free(w);
    return rc == LOGTK_OK ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int threads = 2 + data[0] % 4;
    int raw_mode = data[0] & 0x80;
    uint32_t pos = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16;
    uint8_t flip = data[4];
    membuf built = {0};
    const uint8_t *arc = data + 5;
    size_t len = size - 5;
    if (!raw_mode) {
        if (make_archive(data + 5, size - 5, 1 + (data[0] >> 2) % 8, &built) != 0)
            abort();
        if (built.len > 0 && flip != 0)
            built.bytes[pos % built.len] ^= flip; /* one damaged byte */
        else if (built.len > 0)
            built.len = pos % built.len; /* cut short */
        arc = built.bytes;
        len = built.len;
    }
    logtk_archive_reader *r1 = NULL, *r2 = NULL;
    logtk_archive_unpacker *u = NULL;
    if (logtk_archive_reader_new(&r1) != LOGTK_OK || logtk_archive_reader_new(&r2) != LOGTK_OK ||
        logtk_archive_unpacker_new(&u, threads) != LOGTK_OK)
        abort();
    int o1 = logtk_archive_reader_open_memory(r1, arc, len, "fuzz");
    int o2 = logtk_archive_reader_open_memory(r2, arc, len, "fuzz");
    if (o1 != o2)
        abort();
    for (int i = 0; o1 == LOGTK_OK && i < MAX_BLOCKS; i++) {
        logtk_archive_block a, b;
        int ra = logtk_archive_reader_next(r1, &a);
        /* copy a's text: the reader reuses its buffer only on its next call, but be explicit */
        char *text = NULL;
        if (ra == LOGTK_OK && a.text.len) {
            text = malloc(a.text.len);
            if (!text)
                abort();
            memcpy(text, a.text.ptr, a.text.len);
        }
        char msg[600] = "";
        if (ra != LOGTK_OK && ra != LOGTK_DONE)
            strncpy(msg, logtk_archive_reader_errmsg(r1), sizeof msg - 1);
        int rb = logtk_archive_unpacker_next(u, r2, &b);
        if (ra != rb)
            abort();
        if (ra == LOGTK_DONE) {
            free(text);
            break;
        }
        if (a.index != b.index || a.first_line != b.first_line || a.nlines != b.nlines ||
            a.damaged != b.damaged || a.text.len != b.text.len)
            abort();
        if (ra == LOGTK_OK && (a.raw_bytes != b.raw_bytes || a.templates != b.templates ||
                               (a.text.len && memcmp(text, b.text.ptr, a.text.len) != 0)))
            abort();
        if (ra != LOGTK_OK && strcmp(msg, logtk_archive_unpacker_errmsg(u)) != 0)
            abort();
        free(text);
        if (ra != LOGTK_OK && ra != LOGTK_ERR_ARCHIVE)
            break;
    }
    logtk_archive_unpacker_free(u);
    logtk_archive_reader_free(r1);
    logtk_archive_reader_free(r2);
    free(built.bytes);
    return 0;
}
