/*
 * test_archive_append.c - appending to archives (logtk_archive_writer_open_append):
 * an open archive reads whole without its footer, flush commits whole lines
 * and keeps an unfinished one, reopening cuts a footer or a torn end and
 * goes on, and what is not a torn end is refused and left untouched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_container.h"
#include "logtk.h"
#include "test_harness.h"

static char dir[] = "/tmp/logtk-append-test.XXXXXX";

/* The path of a file in the test's folder; the buffer is reused by the next call. */
static const char *path_of(const char *name)
{
    static char buf[256];
    static int made; /* not "the name still ends in X": mkdtemp may put an X there */
    if (!made) {
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            abort();
        }
        made = 1;
    }
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* The whole decoded text of an archive and the reader's verdict (LOGTK_OK: no damage). */
static int read_all(const char *path, char **text, size_t *len)
{
    logtk_archive_reader *r = NULL;
    int rc = logtk_archive_reader_new(&r);
    if (rc == LOGTK_OK)
        rc = logtk_archive_reader_open_path(r, path);
    size_t cap = 0;
    *text = NULL;
    *len = 0;
    logtk_archive_block b;
    int damaged = 0;
    while (rc == LOGTK_OK) {
        int st = logtk_archive_reader_next(r, &b);
        if (st == LOGTK_DONE)
            break;
        if (st != LOGTK_OK) {
            damaged = 1;
            continue;
        }
        if (*len + b.text.len + 1 > cap) {
            cap = (*len + b.text.len + 1) * 2;
            *text = realloc(*text, cap);
        }
        memcpy(*text + *len, b.text.ptr, b.text.len);
        *len += b.text.len;
    }
    logtk_archive_reader_free(r);
    if (*text == NULL)
        *text = calloc(1, 1);
    else
        (*text)[*len] = '\0';
    return rc != LOGTK_OK ? rc : damaged ? LOGTK_ERR_ARCHIVE : LOGTK_OK;
}

static int file_bytes(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(*len + 1);
    size_t got = fread(*data, 1, *len, f);
    fclose(f);
    return got == *len ? 0 : -1;
}

static void write_bytes(const char *path, const uint8_t *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

TEST(open_archive_reads_whole_without_footer_and_flush_keeps_unfinished_line)
{
    const char *p = path_of("open.ltk");
    logtk_archive_writer *w = NULL;
    CHECK_STATUS(logtk_archive_writer_new(&w), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_open_append(w, p), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_write(w, "alpha 1\nalpha 2\nbeta", 20), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_flush(w), LOGTK_OK);
    CHECK(logtk_archive_writer_lines_written(w) == 2);
    char *text;
    size_t len;
    /* on disk while the writer is open: both whole lines, no damage */
    CHECK_STATUS(read_all(p, &text, &len), LOGTK_OK);
    CHECK_BYTES(text, len, "alpha 1\nalpha 2\n");
    free(text);
    CHECK_STATUS(logtk_archive_writer_write(w, " 3\n", 3), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_close(w), LOGTK_OK);
    CHECK_STATUS(read_all(p, &text, &len), LOGTK_OK);
    CHECK_BYTES(text, len, "alpha 1\nalpha 2\nbeta 3\n");
    free(text);
    logtk_archive_writer_free(w);
}

TEST(reopening_cuts_footer_or_torn_end_and_appends)
{
    const char *p = path_of("torn.ltk");
    logtk_archive_writer *w = NULL;
    logtk_archive_writer_new(&w);
    /* a closed archive from an ordinary run */
    CHECK_STATUS(logtk_archive_writer_open_path(w, p), LOGTK_OK);
    logtk_archive_writer_write(w, "one\ntwo\n", 8);
    CHECK_STATUS(logtk_archive_writer_close(w), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_open_append(w, p), LOGTK_OK);
    uint64_t before = 0, cut = 0;
    logtk_archive_writer_append_info(w, &before, &cut);
    CHECK(before == 2 && cut > 0); /* the footer */
    logtk_archive_writer_write(w, "three\n", 6);
    CHECK_STATUS(logtk_archive_writer_flush(w), LOGTK_OK);
    /* a kill -9 now, then half a block written by the dying run */
    uint8_t *data;
    size_t n;
    CHECK(file_bytes(p, &data, &n) == 0);
    CHECK(data[4] == LTK_VERSION && (data[5] & LTK_FLAG_OPEN));
    logtk_archive_writer_free(w); /* closes without a footer: as a killed writer */
    uint8_t *torn = malloc(n + 20);
    memcpy(torn, data, n);
    memcpy(torn + n, "LTKB\0\0\0\0half a head", 20);
    write_bytes(p, torn, n + 20);
    char *text;
    size_t len;
    CHECK_STATUS(read_all(p, &text, &len), LOGTK_ERR_ARCHIVE); /* truncated: said so */
    CHECK_BYTES(text, len, "one\ntwo\nthree\n");
    free(text);
    w = NULL;
    logtk_archive_writer_new(&w);
    CHECK_STATUS(logtk_archive_writer_open_append(w, p), LOGTK_OK);
    logtk_archive_writer_append_info(w, &before, &cut);
    CHECK(before == 3 && cut == 20);
    logtk_archive_writer_write(w, "four\n", 5);
    CHECK_STATUS(logtk_archive_writer_close(w), LOGTK_OK);
    CHECK_STATUS(read_all(p, &text, &len), LOGTK_OK);
    CHECK_BYTES(text, len, "one\ntwo\nthree\nfour\n");
    free(text);
    logtk_archive_writer_free(w);
    free(torn);
    free(data);
}

TEST(damage_that_is_not_a_torn_end_is_refused_untouched)
{
    char p[256];
    snprintf(p, sizeof p, "%s", path_of("damaged.ltk"));
    logtk_archive_writer *w = NULL;
    logtk_archive_writer_new(&w);
    logtk_archive_writer_set_option(w, "block_lines", "2");
    CHECK_STATUS(logtk_archive_writer_open_append(w, p), LOGTK_OK);
    logtk_archive_writer_write(w, "a 1\na 2\nb 3\nb 4\nc 5\nc 6\n", 24);
    CHECK_STATUS(logtk_archive_writer_flush(w), LOGTK_OK);
    logtk_archive_writer_free(w); /* open, three blocks, no footer */
    uint8_t *data;
    size_t n;
    CHECK(file_bytes(p, &data, &n) == 0);
    /* spoil the second block's header: good blocks follow it */
    uint8_t *second = memmem(data + LTK_FILE_HEADER_LEN + 4, n - LTK_FILE_HEADER_LEN - 4, "LTKB", 4);
    CHECK(second != NULL);
    if (second)
        second[9] ^= 0x40;
    write_bytes(p, data, n);
    w = NULL;
    logtk_archive_writer_new(&w);
    CHECK_STATUS(logtk_archive_writer_open_append(w, p), LOGTK_ERR_ARCHIVE);
    CHECK(strstr(logtk_archive_writer_errmsg(w), "untouched") != NULL);
    uint8_t *after;
    size_t m;
    CHECK(file_bytes(p, &after, &m) == 0 && m == n && memcmp(after, data, n) == 0);
    free(after);
    /* not an archive at all */
    const char *q = path_of("notes.txt");
    write_bytes(q, (const uint8_t *)"my notes\n", 9);
    CHECK_STATUS(logtk_archive_writer_open_append(w, q), LOGTK_ERR_ARCHIVE);
    CHECK(file_bytes(q, &after, &m) == 0 && m == 9 && memcmp(after, "my notes\n", 9) == 0);
    free(after);
    logtk_archive_writer_free(w);
    free(data);
    unlink(p);
    unlink(q);
    unlink(path_of("open.ltk"));
    unlink(path_of("torn.ltk"));
    rmdir(dir);
}
