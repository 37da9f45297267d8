/*
 * test_csv.c - RFC 4180 CSV reading.
 *
 * Quoting, doubled quotes, line breaks inside quotes (LF and CRLF kept as in
 * the file), CRLF records, an unterminated last record, malformed input
 * reported with file and line, compressed input through the reader, and with
 * LOGTK_LOGHUB / LOGTK_LOGHUB2 set every Loghub ground-truth CSV.
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <glob.h>

#include "logtk.h"
#include "test_harness.h"

static int next(logtk_csv *c, const logtk_slice **f, size_t *n)
{
    return logtk_csv_next(c, f, n);
}

/* The reader's error message holds `want` (a file, a line, what is wrong). */
static void check_message(logtk_csv *c, const char *want)
{
    if (strstr(logtk_csv_errmsg(c), want)) {
        test_passed_count++;
    } else {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", logtk_csv_errmsg(c), want);
        test_failed_count++;
    }
}

TEST(test_records)
{
    logtk_csv *c;
    CHECK_STATUS(logtk_csv_new(&c), LOGTK_OK);
    static const char text[] = "\xef\xbb\xbfLineId,Content,EventTemplate\r\n"
                               "1,\"a, b\",\"say \"\"hi\"\"\"\r\n"
                               "2,\"two\nlines\",x\n"
                               "3,\"crlf\r\ninside\",\n"
                               ",,\n"
                               "\n"
                               "4,\"\",last";
    CHECK_STATUS(logtk_csv_open_memory(c, text, sizeof text - 1, "t.csv"), LOGTK_OK);
    const logtk_slice *f;
    size_t n;
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && logtk_csv_line(c) == 1);
    CHECK_BYTES(f[0].ptr, f[0].len, "LineId"); /* BOM skipped */
    CHECK_BYTES(f[2].ptr, f[2].len, "EventTemplate");
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && logtk_csv_line(c) == 2);
    CHECK_BYTES(f[1].ptr, f[1].len, "a, b");
    CHECK_BYTES(f[2].ptr, f[2].len, "say \"hi\"");
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && logtk_csv_line(c) == 3);
    CHECK_BYTES(f[1].ptr, f[1].len, "two\nlines");
    CHECK_BYTES(f[2].ptr, f[2].len, "x");
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && logtk_csv_line(c) == 5);
    CHECK_BYTES(f[1].ptr, f[1].len, "crlf\r\ninside");
    CHECK(f[2].len == 0);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && f[0].len == 0 && f[1].len == 0 && f[2].len == 0);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK); /* an empty line is one empty field */
    CHECK(n == 1 && f[0].len == 0 && logtk_csv_line(c) == 8);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 3 && logtk_csv_line(c) == 9);
    CHECK(f[1].len == 0);
    CHECK_BYTES(f[2].ptr, f[2].len, "last");
    CHECK_STATUS(next(c, &f, &n), LOGTK_DONE);
    logtk_csv_free(c);
    logtk_csv_free(NULL);
}

static void expect_error(const char *text, const char *want_in_message)
{
    logtk_csv *c;
    logtk_csv_new(&c);
    CHECK_STATUS(logtk_csv_open_memory(c, text, strlen(text), "bad.csv"), LOGTK_OK);
    const logtk_slice *f;
    size_t n;
    int rc;
    while ((rc = next(c, &f, &n)) == LOGTK_OK)
        ;
    CHECK_STATUS(rc, LOGTK_ERR_DATA);
    check_message(c, want_in_message);
    logtk_csv_free(c);
}

TEST(test_malformed)
{
    expect_error("a,b\nc,d\"e\n", "bad.csv:2:");
    expect_error("a,b\n\"c\"x,d\n", "bad.csv:2:");
    expect_error("a,b\n\"open,\nnever closed\n", "bad.csv:2:");
    expect_error("a,\"open at the end", "bad.csv:1:");
    logtk_csv *c;
    logtk_csv_new(&c);
    const logtk_slice *f;
    size_t n;
    CHECK(next(c, &f, &n) < 0); /* nothing open */
    CHECK_STATUS(logtk_csv_open_path(c, "/nonexistent/x.csv"), LOGTK_ERR_IO);
    CHECK(strstr(logtk_csv_errmsg(c), "/nonexistent/x.csv") != NULL);
    logtk_csv_free(c);
}

TEST(test_compressed)
{
    static const char text[] = "h1,h2\n1,\"multi\nline\"\n2,z\n";
    char buf[4096];
    size_t used = 0;
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_raw(a);
    archive_write_open_memory(a, buf, sizeof buf, &used);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "data");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, sizeof text - 1);
    archive_write_header(a, e);
    archive_write_data(a, text, sizeof text - 1);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    CHECK(used > 2 && (unsigned char)buf[0] == 0x1f);

    logtk_csv *c;
    logtk_csv_new(&c);
    CHECK_STATUS(logtk_csv_open_memory(c, buf, used, "t.csv.gz"), LOGTK_OK);
    const logtk_slice *f;
    size_t n;
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 2);
    CHECK_BYTES(f[1].ptr, f[1].len, "multi\nline");
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(logtk_csv_line(c) == 4);
    CHECK_STATUS(next(c, &f, &n), LOGTK_DONE);
    logtk_csv_free(c);
}

/* A tar of two CSV files: a quoted field left open at the end of the first
 * member must not swallow the second member's lines. */
TEST(test_quote_open_at_member_end)
{
    static const char a_text[] = "k,v\n1,\"open\n";
    static const char b_text[] = "rest\",y\n2,z\n";
    const struct {
        const char *name, *text;
        size_t len;
    } members[] = {{"a.csv", a_text, sizeof a_text - 1}, {"b.csv", b_text, sizeof b_text - 1}};
    static char buf[16384];
    size_t used = 0;
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    archive_write_open_memory(a, buf, sizeof buf, &used);
    for (size_t i = 0; i < 2; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, members[i].name);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)members[i].len);
        archive_write_header(a, e);
        archive_write_data(a, members[i].text, members[i].len);
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    CHECK(used > 512);

    logtk_csv *c;
    logtk_csv_new(&c);
    CHECK_STATUS(logtk_csv_open_memory(c, buf, used, "t.tar"), LOGTK_OK);
    const logtk_slice *f;
    size_t n;
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK); /* the header of a.csv */
    CHECK_STATUS(next(c, &f, &n), LOGTK_ERR_DATA);
    check_message(c, "t.tar:a.csv:2: quoted field not closed");
    logtk_csv_free(c);
}

/*
 * A quote never closed in a file of millions of short lines ends the record
 * with an error once it is longer than a line may be (a few kilobytes of
 * zstd expand to such a file: the CSV fuzzer ran minutes on one), while a
 * field over many lines within that bound is read.
 */
TEST(test_unclosed_quote_bounded)
{
    const size_t lines = LOGTK_DEFAULT_MAX_LINE + 2;
    char *text = malloc(lines + 16);
    CHECK(text != NULL);
    if (!text)
        return;
    memcpy(text, "a,b\n\"x", 6);
    memset(text + 6, '\n', lines);
    logtk_csv *c;
    logtk_csv_new(&c);
    CHECK_STATUS(logtk_csv_open_memory(c, text, 6 + lines, "t.csv"), LOGTK_OK);
    const logtk_slice *f;
    size_t n;
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK_STATUS(next(c, &f, &n), LOGTK_ERR_DATA);
    check_message(c, "t.csv:2: quoted field longer than");
    /* 100,000 line breaks inside quotes, then the closing quote: one record */
    memset(text + 6, '\n', 100000);
    memcpy(text + 6 + 100000, "\",y\n", 4);
    CHECK_STATUS(logtk_csv_open_memory(c, text, 6 + 100000 + 4, "t.csv"), LOGTK_OK);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK_STATUS(next(c, &f, &n), LOGTK_OK);
    CHECK(n == 2 && f[0].len == 1 + 100000 && f[1].len == 1);
    CHECK_STATUS(next(c, &f, &n), LOGTK_DONE);
    logtk_csv_free(c);
    free(text);
}

/* Every structured CSV: 2000 records after the header, all as wide as the header. */
static int check_tree(const char *pattern, int loghub2k_lf)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    logtk_csv *c;
    logtk_csv_new(&c);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        CHECK_STATUS(logtk_csv_open_path(c, path), LOGTK_OK);
        const logtk_slice *f;
        size_t n, width = 0, records = 0, ragged = 0;
        uint64_t last_line = 0;
        int rc;
        while ((rc = next(c, &f, &n)) == LOGTK_OK) {
            if (records++ == 0)
                width = n;
            else if (n != width)
                ragged++;
            last_line = logtk_csv_line(c);
        }
        if (rc != LOGTK_DONE || records != 2001 || ragged)
            fprintf(stderr, "%s: %zu records, %zu ragged: %s\n", path, records, ragged,
                    logtk_csv_errmsg(c));
        CHECK_STATUS(rc, LOGTK_DONE);
        CHECK(records == 2001);
        CHECK(ragged == 0);
        /* Loghub-2k's (LF) Mac_2k.log_structured.csv has quoted line breaks: its
         * 2001 records span 2007 physical lines, so the last one starts on 2007. */
        if (loghub2k_lf && strstr(path, "/Mac_2k.log_structured.csv"))
            CHECK(last_line == 2007);
        else
            CHECK(last_line == 2001);
    }
    size_t count = g.gl_pathc;
    globfree(&g);
    logtk_csv_free(c);
    return (int)count;
}

/* With LOGTK_LOGHUB / LOGTK_LOGHUB2 set: every Loghub ground-truth CSV. */
TEST(test_loghub_csv_files)
{
    char pattern[1024];
    const char *hub = getenv("LOGTK_LOGHUB");
    if (hub && strlen(hub) < 900) {
        snprintf(pattern, sizeof pattern, "%s/*/*_structured*.csv", hub);
        CHECK(check_tree(pattern, 1) == 32);
        snprintf(pattern, sizeof pattern, "%s/*/original/*_structured*.csv", hub);
        CHECK(check_tree(pattern, 0) == 16);
    } else {
        printf("skipped: LOGTK_LOGHUB not set (Loghub-2k CSV files)\n");
    }
    const char *hub2 = getenv("LOGTK_LOGHUB2");
    if (hub2 && strlen(hub2) < 900) {
        snprintf(pattern, sizeof pattern, "%s/2k_dataset/*/*_structured*.csv", hub2);
        CHECK(check_tree(pattern, 0) == 28);
    } else {
        printf("skipped: LOGTK_LOGHUB2 not set (Loghub-2.0 CSV files)\n");
    }
}
