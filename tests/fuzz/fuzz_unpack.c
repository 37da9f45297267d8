/*
 * fuzz_unpack.c - parallel decompression equals serial decompression on any bytes.
 *
 * Input: byte 0 chooses the thread count (2..5), the block size and the
 * modes; bytes 1-4 a damage position and value; the rest is text.  The text
 * is compressed into a real archive of small blocks, which then gets one
 * byte changed or is cut short (or, in raw mode, the rest itself is taken as
 * the archive).  The archive is walked once with logtk_archive_reader_next()
 * and once through a logtk_archive_unpacker; both walks must deliver the
 * same blocks with the same statuses, line ranges, texts and messages.  In
 * file mode (bit 6 of byte 0) the parallel walk reads the archive from a
 * file, so payloads are used in the file's map rather than copied.  Then
 * grep with one thread and with the chosen count (for a piece of the text)
 * must select the same lines and report the same blocks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Opens r on the archive: from memory, or from a file (mapped) in file mode. */
static int open_archive(logtk_archive_reader *r, const uint8_t *arc, size_t len, const char *path)
{
    if (!path)
        return logtk_archive_reader_open_memory(r, arc, len, "fuzz");
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(arc, 1, len, f) != len) || fclose(f) != 0)
        abort();
    return logtk_archive_reader_open_path(r, path);
}

/* grep with `threads` threads: selected lines and block reports, back to back in out. */
static void grep_walk(const char *pattern, int threads, const uint8_t *arc, size_t len, const char *path,
                      membuf *out)
{
    logtk_grep *g = NULL;
    logtk_archive_reader *r = NULL;
    if (logtk_grep_new(&g, pattern, LOGTK_GREP_FIXED) != LOGTK_OK || logtk_archive_reader_new(&r) != LOGTK_OK)
        abort();
    logtk_grep_set_threads(g, threads);
    if (open_archive(r, arc, len, path) == LOGTK_OK) {
        for (int i = 0; i < MAX_BLOCKS; i++) {
            logtk_archive_block b;
            uint64_t count = 0;
            int rc = logtk_grep_next_block(g, r, &b, mem_write, out, &count);
            if (rc == LOGTK_DONE)
                break;
            char msg[700];
            int n = snprintf(msg, sizeof msg, "\n[%d %llu %llu %llu %s]\n", rc, (unsigned long long)count,
                             (unsigned long long)b.first_line, (unsigned long long)b.nlines,
                             rc == LOGTK_OK ? "" : logtk_grep_errmsg(g));
            mem_write(out, msg, (size_t)n);
            if (rc != LOGTK_OK && rc != LOGTK_ERR_ARCHIVE)
                break;
        }
    }
    logtk_archive_reader_free(r);
    logtk_grep_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int threads = 2 + data[0] % 4;
    int raw_mode = data[0] & 0x80;
    char path[64];
    const char *file = NULL;
    if (data[0] & 0x40) {
        snprintf(path, sizeof path, "/tmp/fuzz_unpack.%ld.ltk", (long)getpid());
        file = path;
    }
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
    int o1 = logtk_archive_reader_open_memory(r1, arc, len, file ? file : "fuzz"); /* same name in messages */
    int o2 = open_archive(r2, arc, len, file);
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
    /* grep for a piece of the text (up to 3 bytes, no NUL) */
    char pattern[4] = {0};
    for (size_t k = 0; k < 3 && 5 + (pos % 64) + k < size && data[5 + (pos % 64) + k]; k++)
        pattern[k] = (char)data[5 + (pos % 64) + k];
    if (pattern[0]) {
        membuf serial = {0}, par = {0};
        grep_walk(pattern, 1, arc, len, file, &serial);
        grep_walk(pattern, threads, arc, len, file, &par);
        if (serial.len != par.len || (serial.len && memcmp(serial.data, par.data, serial.len) != 0))
            abort();
        free(serial.data);
        free(par.data);
    }
    if (file)
        remove(file);
    free(built.bytes);
    return 0;
}
