/*
 * test_sink_callback.c - sinks that write to the caller's function or to
 * memory: the same bytes as the file sinks of every text kind, the header
 * during creation, one call per row, a failing callback, sqlite refused.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logtk.h"
#include "test_harness.h"

typedef struct collected {
    char *data;
    size_t len;
    size_t calls;
    int fail_after; /* calls that succeed before the callback fails; -1: never */
} collected;

static int collect(void *user, const void *data, size_t len)
{
    collected *c = user;
    if (c->fail_after >= 0 && c->calls >= (size_t)c->fail_after)
        return -1;
    c->calls++;
    c->data = realloc(c->data, c->len + len + 1);
    memcpy(c->data + c->len, data, len);
    c->len += len;
    c->data[c->len] = '\0';
    return 0;
}

static logtk_slice sl(const char *s)
{
    logtk_slice x = {s, strlen(s)};
    return x;
}

/* Writes the same rows (one not UTF-8, one with tabs and quotes) and a template. */
static int write_rows(logtk_sink *s, const logtk_format *f)
{
    const char *lines[] = {"2024-01-01 INFO: user \"bob\"\tlogged in from 10.0.0.1",
                           "2024-01-02 WARN: bad byte \xff here, ok",
                           "no format match"};
    int rc = LOGTK_OK;
    for (size_t i = 0; i < 3 && rc == LOGTK_OK; i++) {
        logtk_record rec;
        logtk_format_match((logtk_format *)f, lines[i], strlen(lines[i]), &rec);
        logtk_slice params[1] = {sl("10.0.0.1")};
        logtk_row row = {i + 1, &rec, 7, sl("user <*> logged in from <*>"), i == 0 ? 1 : 0,
                         params};
        rc = logtk_sink_write(s, &row);
    }
    if (rc == LOGTK_OK)
        rc = logtk_sink_write_template(s, 7, sl("user <*> logged in from <*>"), 3);
    return rc;
}

static char *file_output(const char *kind, const logtk_format *f, size_t *len)
{
    char path[] = "/tmp/logtk_sink_cb_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, kind, path, f), LOGTK_OK);
    CHECK_STATUS(write_rows(s, f), LOGTK_OK);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    logtk_sink_free(s);
    FILE *fp = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);
    *len = fread(buf, 1, (1 << 16) - 1, fp);
    fclose(fp);
    unlink(path);
    return buf;
}

TEST(callback_and_memory_sinks_write_what_file_sinks_write)
{
    logtk_format *f = NULL;
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, "<Date> <Level>: <Content>"), LOGTK_OK);
    const char *kinds[] = {"tsv", "csv", "jsonl", "templates"};
    for (size_t k = 0; k < 4; k++) {
        size_t flen;
        char *want = file_output(kinds[k], f, &flen);
        CHECK(flen > 0);
        collected c = {NULL, 0, 0, -1};
        logtk_sink *s = NULL;
        CHECK_STATUS(logtk_sink_new_callback(&s, kinds[k], collect, &c, f), LOGTK_OK);
        size_t header_calls = c.calls;
        CHECK(header_calls <= 1);
        CHECK_STATUS(write_rows(s, f), LOGTK_OK);
        CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
        logtk_sink_free(s);
        CHECK(c.len == flen && memcmp(c.data, want, flen) == 0);
        if (strcmp(kinds[k], "templates") != 0)
            CHECK(c.calls == header_calls + 3); /* one call per row */
        free(c.data);

        /* memory: taken in two pieces, the pieces add up to the file */
        CHECK_STATUS(logtk_sink_new_memory(&s, kinds[k], f), LOGTK_OK);
        logtk_slice first, second, empty;
        CHECK_STATUS(logtk_sink_memory_take(s, &first), LOGTK_OK);
        char *head = malloc(first.len + 1);
        memcpy(head, first.ptr, first.len);
        size_t head_len = first.len;
        CHECK_STATUS(write_rows(s, f), LOGTK_OK);
        CHECK_STATUS(logtk_sink_memory_take(s, &second), LOGTK_OK);
        CHECK(head_len + second.len == flen && memcmp(head, want, head_len) == 0 &&
              memcmp(second.ptr, want + head_len, second.len) == 0);
        CHECK_STATUS(logtk_sink_memory_take(s, &empty), LOGTK_OK);
        CHECK(empty.len == 0);
        CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
        logtk_sink_free(s);
        free(head);
        free(want);
    }
    logtk_format_free(f);
}

TEST(a_failing_callback_makes_the_sink_unusable)
{
    collected c = {NULL, 0, 0, 2}; /* header and first row pass */
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new_callback(&s, "jsonl", collect, &c, NULL), LOGTK_OK);
    logtk_record rec = {0};
    rec.content = sl("x");
    logtk_row row = {1, &rec, 1, sl("x"), 0, NULL};
    CHECK_STATUS(logtk_sink_write(s, &row), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write(s, &row), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write(s, &row), LOGTK_ERR_IO);
    CHECK(strstr(logtk_sink_errmsg(s), "callback") != NULL);
    CHECK_STATUS(logtk_sink_write(s, &row), LOGTK_ERR_IO);
    CHECK(logtk_sink_close(s) != LOGTK_OK);
    logtk_sink_free(s);
    free(c.data);
}

TEST(unfiled_sinks_refuse_sqlite_and_no_callback)
{
    logtk_sink *s = NULL;
    collected c = {NULL, 0, 0, -1};
    CHECK_STATUS(logtk_sink_new_callback(&s, "sqlite", collect, &c, NULL), LOGTK_ERR_INVALID);
    CHECK(s != NULL && strstr(logtk_sink_errmsg(s), "file") != NULL);
    logtk_sink_free(s);
    CHECK_STATUS(logtk_sink_new_memory(&s, "nope", NULL), LOGTK_ERR_NOT_FOUND);
    logtk_sink_free(s);
    CHECK_STATUS(logtk_sink_new_callback(&s, "tsv", NULL, NULL, NULL), LOGTK_ERR_INVALID);
    logtk_sink_free(s);
    CHECK_STATUS(logtk_sink_new(&s, "tsv", "/dev/null", NULL), LOGTK_OK);
    logtk_slice b;
    CHECK_STATUS(logtk_sink_memory_take(s, &b), LOGTK_ERR_INVALID);
    logtk_sink_free(s);
    CHECK(c.calls == 0);
}
