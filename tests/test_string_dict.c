/*
 * test_string_dict.c - string columns stored as dictionaries (see put_string_column).
 *
 * A long column whose values repeat must be written as a dictionary (its
 * raw strings stream then holds each distinct value once plus an index per
 * value: far less than the values themselves), with one-byte indices up to
 * 256 distinct values and two-byte ones above; a short column or one of
 * distinct values stays plain.  Every block must come back byte for byte,
 * and through search (logtk_grep) the same lines as a plain per-line search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block_decode.h"
#include "block_layout.h"
#include "block_roundtrip.h"
#include "logtk.h"
#include "test_harness.h"

/*
 * n lines "session opened for key <id> by pid" with id number (i * 7919) % distinct
 * written as a mixed-case hex id ("Fa0007-00d9"), which line_split keeps as one
 * string variable; every third line ends differently (a second template).
 */
static char *user_lines(unsigned n, unsigned distinct, size_t *len)
{
    size_t cap = (size_t)n * 64 + 1, pos = 0;
    char *s = malloc(cap);
    *len = 0; /* set even when out of memory: the callers pass it on */
    if (!s)
        return NULL;
    for (unsigned i = 0; i < n; i++)
    {
        unsigned v = (i * 7919u) % distinct;
        pos += (size_t)snprintf(s + pos, cap - pos, "session opened for key Fa%04x-%04x by %s\n", v,
                                (v * 31u) & 0xffff, i % 3 ? "pid" : "admin");
    }
    *len = pos;
    return s;
}

/* Encodes text as one block; returns the raw bytes of its strings stream, 0 on a failed round trip. */
static unsigned long strings_bytes(const char *text, size_t len)
{
    ltk_stream_sizes sizes;
    ltk_decoder *d = block_roundtrip(text, len, 3, NULL, &sizes);
    unsigned long got = d ? (unsigned long)sizes.raw[LTK_S_STRS] : 0;
    ltk_decoder_free(d);
    return got;
}

TEST(test_dictionary_sizes)
{
    size_t len;
    /* 5 users over 2000 lines: a dictionary with one-byte indices */
    char *text = user_lines(2000, 5, &len);
    unsigned long b = strings_bytes(text, len);
    CHECK(b > 0);
    CHECK(b < 2000 * 2); /* plain would be about 2000 * 12 bytes */
    free(text);
    /* 400 users, each 10 times: two-byte indices */
    text = user_lines(4000, 400, &len);
    b = strings_bytes(text, len);
    CHECK(b > 0);
    CHECK(b > 4000 * 2 && b < 4000 * 2 + 2 * 400 * 13); /* plain: about 4000 * 12 */
    free(text);
    /* all distinct: plain */
    text = user_lines(2000, 2000, &len);
    b = strings_bytes(text, len);
    CHECK(b > 2000 * 11);
    free(text);
    /* short columns: plain, no coding (12 lines: 8 of one template, 4 of the other) */
    text = user_lines(12, 1, &len);
    CHECK(strings_bytes(text, len) == 12 * 12);
    free(text);
}

TEST(test_search)
{
    size_t len;
    char *text = user_lines(3000, 40, &len);
    logtk_archive_writer *w = NULL;
    char path[] = "/tmp/test_string_dict_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "wb");
    CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
    CHECK(logtk_archive_writer_open_path(w, path) == LOGTK_OK);
    CHECK(logtk_archive_writer_write(w, text, len) == LOGTK_OK);
    CHECK(logtk_archive_writer_close(w) == LOGTK_OK);
    logtk_archive_writer_free(w);
    fclose(f);
    const char *patterns[] = {"Fa0011-0", "Fa0011-020f by admin", "key Fa000", "0 by pid", "Fa0999-"};
    for (size_t q = 0; q < sizeof patterns / sizeof patterns[0]; q++) {
        size_t want = 0;
        for (const char *line = text; line < text + len;) {
            const char *nl = memchr(line, '\n', (size_t)(text + len - line));
            char buf[128];
            size_t n = (size_t)(nl - line);
            memcpy(buf, line, n);
            buf[n] = '\0';
            want += strstr(buf, patterns[q]) != NULL;
            line = nl + 1;
        }
        logtk_grep *g = NULL;
        logtk_archive_reader *r = NULL;
        size_t got = 0;
        uint64_t count = 0;
        CHECK(logtk_grep_new(&g, patterns[q], LOGTK_GREP_FIXED) == LOGTK_OK);
        CHECK(logtk_archive_reader_new(&r) == LOGTK_OK && logtk_archive_reader_open_path(r, path) == LOGTK_OK);
        logtk_archive_block b;
        int rc;
        while ((rc = logtk_grep_next_block(g, r, &b, test_count_newlines, &got, &count)) == LOGTK_OK)
            ;
        CHECK(rc == LOGTK_DONE);
        CHECK(got == want && count == want);
        if (!(want > 0 || q == 4))
            printf("no line holds '%s'\n", patterns[q]);
        CHECK(want > 0 || q == 4);
        logtk_archive_reader_free(r);
        logtk_grep_free(g);
    }
    unlink(path);
    free(text);
}
