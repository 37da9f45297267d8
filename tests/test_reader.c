/*
 * test_reader.c - the line reader and atomic output files.
 *
 * Every source kind (plain file, memory, stdin/pipe, .gz .bz2 .xz .zst, tar,
 * tar.gz, zip) must give exactly the lines of the plain file: the test
 * rebuilds the input from data[0 .. len + eol_len) and compares byte for byte.
 * Compressed fixtures are made here with libarchive's write API rather than
 * committed as binaries.
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "logtk.h"
#include "outfile.h"
#include "strbuf.h"
#include "test_harness.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[2][512];
    static int which;
    which ^= 1;
    snprintf(buf[which], sizeof buf[which], "%s/%s", tmpdir, name);
    return buf[which];
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(99);
    }
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    ltk_strbuf b = LTK_STRBUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        ltk_strbuf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data ? b.data : calloc(1, 1);
}

/* Compresses or archives members with libarchive.  filter: ARCHIVE_FILTER_*;
 * format: ARCHIVE_FORMAT_RAW (one member), _TAR_USTAR or _ZIP. */
typedef struct member {
    const char *name;
    const char *data;
    size_t len;
} member;

static char *make_archive(int filter, int format, const member *m, size_t nm, size_t *out_len)
{
    size_t total = 4096;
    for (size_t i = 0; i < nm; i++)
        total += m[i].len * 2 + 1024;
    char *buf = malloc(total);
    size_t used = 0;
    struct archive *a = archive_write_new();
    archive_write_add_filter(a, filter);
    archive_write_set_format(a, format);
    archive_write_set_bytes_in_last_block(a, 1);
    if (archive_write_open_memory(a, buf, total, &used) != ARCHIVE_OK) {
        fprintf(stderr, "archive_write_open_memory: %s\n", archive_error_string(a));
        exit(99);
    }
    for (size_t i = 0; i < nm; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, m[i].name);
        if (m[i].data) {
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_size(e, (la_int64_t)m[i].len);
        } else {
            archive_entry_set_filetype(e, AE_IFDIR);
            archive_entry_set_perm(e, 0755);
        }
        archive_write_header(a, e);
        if (m[i].data && m[i].len)
            archive_write_data(a, m[i].data, m[i].len);
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    *out_len = used;
    return buf;
}

/* Reads all lines, rebuilding the bytes; checks numbering and sources.
 * Returns the final status (LOGTK_DONE on success). */
static int read_all(logtk_reader *r, ltk_strbuf *out, size_t *nlines, const char *want_source)
{
    logtk_line line;
    int rc;
    uint64_t expect_number = 1;
    *nlines = 0;
    while ((rc = logtk_reader_next(r, &line)) == LOGTK_OK) {
        if (want_source && strcmp(line.source, want_source) != 0) {
            fprintf(stderr, "source %s, expected %s\n", line.source, want_source);
            test_failed_count++;
        }
        if (line.number != expect_number) {
            fprintf(stderr, "line number %llu, expected %llu\n", (unsigned long long)line.number,
                    (unsigned long long)expect_number);
            test_failed_count++;
        }
        expect_number++;
        ltk_strbuf_append(out, line.data, line.len + line.eol_len);
        (*nlines)++;
    }
    return rc;
}

static const char sample[] = "alpha\r\nbeta\n\ngam\0ma\n\xff\xfe invalid utf-8\nlone\rcr\n\r\nlast";
#define SAMPLE_LEN (sizeof sample - 1)
#define SAMPLE_LINES 8

TEST(test_sample_lines)
{
    logtk_reader *r;
    CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
    CHECK_STATUS(logtk_reader_open_memory(r, sample, SAMPLE_LEN, "mem"), LOGTK_OK);
    logtk_line l;
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "alpha");
    CHECK(l.eol_len == 2 && l.number == 1 && strcmp(l.source, "mem") == 0);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "beta");
    CHECK(l.eol_len == 1);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK(l.len == 0 && l.eol_len == 1);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK(l.len == 6 && memcmp(l.data, "gam\0ma", 6) == 0);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "\xff\xfe invalid utf-8");
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "lone\rcr");
    CHECK(l.eol_len == 1);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK(l.len == 0 && l.eol_len == 2);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "last");
    CHECK(l.eol_len == 0 && l.number == 8);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    CHECK(logtk_reader_is_binary(r)); /* it has a NUL byte */
    logtk_reader_free(r);
}

/* One source, checked against the expected bytes. */
static void check_source(logtk_reader *r, int open_rc, const char *expect, size_t expect_len,
                         size_t expect_lines, const char *source, const char *what)
{
    if (open_rc != LOGTK_OK) {
        fprintf(stderr, "%s: open failed: %s\n", what, logtk_reader_errmsg(r));
        test_failed_count++;
        return;
    }
    ltk_strbuf got = LTK_STRBUF_INIT;
    size_t n;
    int rc = read_all(r, &got, &n, source);
    if (rc != LOGTK_DONE)
        fprintf(stderr, "%s: %s\n", what, logtk_reader_errmsg(r));
    CHECK_STATUS(rc, LOGTK_DONE);
    if (got.len != expect_len || memcmp(got.data ? got.data : "", expect, expect_len) != 0 ||
        n != expect_lines) {
        fprintf(stderr, "%s: bytes differ (%zu vs %zu bytes, %zu vs %zu lines)\n", what, got.len,
                expect_len, n, expect_lines);
        test_failed_count++;
    } else {
        test_passed_count++;
    }
    ltk_strbuf_free(&got);
}

/*
 * Makes standard input a pipe that a child process fills with bytes[0..len)
 * in writes of at most `chunk` bytes (so the reader sees the non-seekable
 * path and short reads).  Returns the child; *saved is the old stdin, which
 * stdin_pipe_end() puts back.
 */
static pid_t stdin_pipe_begin(const char *bytes, size_t len, size_t chunk, int *saved)
{
    int fds[2];
    if (pipe(fds) != 0)
        exit(99);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        size_t off = 0;
        while (off < len) {
            ssize_t n = write(fds[1], bytes + off, len - off < chunk ? len - off : chunk);
            if (n <= 0)
                _exit(1);
            off += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    *saved = dup(STDIN_FILENO);
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    return pid;
}

/* Restores stdin and reaps the writer of stdin_pipe_begin(). */
static void stdin_pipe_end(pid_t pid, int saved)
{
    dup2(saved, STDIN_FILENO);
    close(saved);
    waitpid(pid, NULL, 0);
}

/* Feeds bytes to the reader through a pipe on stdin (non-seekable path). */
static void check_via_stdin(const char *bytes, size_t len, const char *expect, size_t expect_len,
                            size_t expect_lines, const char *what)
{
    int saved;
    pid_t pid = stdin_pipe_begin(bytes, len, 1000, &saved);
    logtk_reader *r;
    logtk_reader_new(&r);
    check_source(r, logtk_reader_open_path(r, "-"), expect, expect_len, expect_lines, "-", what);
    CHECK(logtk_reader_source_size(r) == 0);
    logtk_reader_free(r);
    stdin_pipe_end(pid, saved);
}

TEST(test_all_source_kinds)
{
    /* A text big enough to cross several 256 KiB blocks, with lines of many lengths. */
    ltk_strbuf text = LTK_STRBUF_INIT;
    size_t lines = 0;
    for (int i = 0; text.len < 1500000; i++, lines++) {
        ltk_strbuf_printf(&text, "%d line", i);
        for (int k = 0; k < (i * 7919) % 300; k++)
            ltk_strbuf_putc(&text, (char)('a' + k % 26));
        ltk_strbuf_puts(&text, i % 3 == 0 ? "\r\n" : "\n");
    }
    ltk_strbuf_append(&text, sample, SAMPLE_LEN);
    lines += SAMPLE_LINES;

    logtk_reader *r;
    logtk_reader_new(&r);

    const char *plain = tmp_path("plain.log");
    write_file(plain, text.data, text.len);
    check_source(r, logtk_reader_open_path(r, plain), text.data, text.len, lines, plain, "plain");
    CHECK(logtk_reader_source_size(r) == text.len);
    CHECK(logtk_reader_bytes_read(r) == text.len);
    CHECK(!logtk_reader_is_binary(r)); /* the NUL is beyond the first block */
    check_source(r, logtk_reader_open_memory(r, text.data, text.len, "m"), text.data, text.len,
                 lines, "m", "memory");
    check_via_stdin(text.data, text.len, text.data, text.len, lines, "stdin plain");

    static const struct {
        int filter;
        const char *ext;
    } filters[] = {{ARCHIVE_FILTER_GZIP, "gz"},
                   {ARCHIVE_FILTER_BZIP2, "bz2"},
                   {ARCHIVE_FILTER_XZ, "xz"},
                   {ARCHIVE_FILTER_ZSTD, "zst"}};
    member one = {"data", text.data, text.len};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        size_t zlen;
        char *z = make_archive(filters[i].filter, ARCHIVE_FORMAT_RAW, &one, 1, &zlen);
        char name[64];
        snprintf(name, sizeof name, "c.%s", filters[i].ext);
        const char *path = tmp_path(name);
        write_file(path, z, zlen);
        check_source(r, logtk_reader_open_path(r, path), text.data, text.len, lines, path, name);
        CHECK(logtk_reader_bytes_read(r) == zlen);
        /* content decides, not the name */
        const char *odd = tmp_path("misnamed.txt");
        write_file(odd, z, zlen);
        check_source(r, logtk_reader_open_path(r, odd), text.data, text.len, lines, odd, "misnamed");
        check_source(r, logtk_reader_open_memory(r, z, zlen, name), text.data, text.len, lines,
                     name, "compressed memory");
        check_via_stdin(z, zlen, text.data, text.len, lines, name);
        free(z);
    }

    /* tar with a directory and two members; tar.gz; zip */
    static const char a_text[] = "a1\na2\r\n";
    static const char b_text[] = "b1\nb2\nb3";
    member ms[] = {{"dir", NULL, 0}, {"dir/a.log", a_text, 6 + 1}, {"b.log", b_text, 8}};
    static const struct {
        int filter, format;
        const char *name;
    } arcs[] = {{ARCHIVE_FILTER_NONE, ARCHIVE_FORMAT_TAR_USTAR, "x.tar"},
                {ARCHIVE_FILTER_GZIP, ARCHIVE_FORMAT_TAR_USTAR, "x.tar.gz"},
                {ARCHIVE_FILTER_NONE, ARCHIVE_FORMAT_ZIP, "x.zip"}};
    for (size_t i = 0; i < sizeof arcs / sizeof arcs[0]; i++) {
        size_t alen;
        char *ab = make_archive(arcs[i].filter, arcs[i].format, ms, 3, &alen);
        const char *path = tmp_path(arcs[i].name);
        write_file(path, ab, alen);
        for (int via = 0; via < 2; via++) {
            int rc = via == 0 ? logtk_reader_open_path(r, path)
                              : logtk_reader_open_memory(r, ab, alen, path);
            CHECK_STATUS(rc, LOGTK_OK);
            logtk_line l;
            char want[600];
            const char *expect[][2] = {{"dir/a.log", "a1"}, {"dir/a.log", "a2"},
                                       {"b.log", "b1"},     {"b.log", "b2"},
                                       {"b.log", "b3"}};
            const uint64_t numbers[] = {1, 2, 1, 2, 3};
            const size_t eols[] = {1, 2, 1, 1, 0};
            for (size_t k = 0; k < 5; k++) {
                CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
                snprintf(want, sizeof want, "%s:%s", path, expect[k][0]);
                CHECK(strcmp(l.source, want) == 0);
                CHECK_BYTES(l.data, l.len, expect[k][1]);
                CHECK(l.number == numbers[k] && l.eol_len == eols[k]);
            }
            CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
        }
        free(ab);
    }
    logtk_reader_free(r);
    ltk_strbuf_free(&text);
}

TEST(test_edge_cases)
{
    logtk_reader *r;
    logtk_reader_new(&r);
    logtk_line l;

    /* empty file, empty compressed file */
    const char *empty = tmp_path("empty.log");
    write_file(empty, "", 0);
    CHECK_STATUS(logtk_reader_open_path(r, empty), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    member none = {"data", "", 0};
    size_t zlen;
    char *z = make_archive(ARCHIVE_FILTER_GZIP, ARCHIVE_FORMAT_RAW, &none, 1, &zlen);
    CHECK_STATUS(logtk_reader_open_memory(r, z, zlen, "e.gz"), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    free(z);

    /* nonexistent file, directory */
    const char *missing = tmp_path("no-such-file.log");
    CHECK_STATUS(logtk_reader_open_path(r, missing), LOGTK_ERR_IO);
    CHECK(strstr(logtk_reader_errmsg(r), missing) != NULL);
    CHECK(strstr(logtk_reader_errmsg(r), "No such file") != NULL);
    CHECK_STATUS(logtk_reader_open_path(r, tmpdir), LOGTK_ERR_IO);
    CHECK(strstr(logtk_reader_errmsg(r), tmpdir) != NULL);

    /* over-long line: exactly max is fine (also with CRLF), one more is an error naming file:line */
    CHECK_STATUS(logtk_reader_set_max_line(r, 10), LOGTK_OK);
    const char longer[] = "0123456789\r\n0123456789\n01234567890\nnext\n";
    CHECK_STATUS(logtk_reader_open_memory(r, longer, sizeof longer - 1, "long.log"), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK(l.len == 10 && l.eol_len == 2);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_LINE_TOO_LONG);
    CHECK(strstr(logtk_reader_errmsg(r), "long.log:3:") != NULL);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_LINE_TOO_LONG); /* sticky, never cut */
    /* a final line without newline counts too */
    CHECK_STATUS(logtk_reader_open_memory(r, "ok\n01234567890", 14, "tail.log"), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_LINE_TOO_LONG);
    CHECK(strstr(logtk_reader_errmsg(r), "tail.log:2:") != NULL);

    /* an endless line in a file is reported without reading it all */
    CHECK_STATUS(logtk_reader_set_max_line(r, 1000), LOGTK_OK);
    size_t big = 3 * 1024 * 1024;
    char *endless = malloc(big);
    memset(endless, 'x', big);
    const char *endless_path = tmp_path("endless.log");
    write_file(endless_path, endless, big);
    CHECK_STATUS(logtk_reader_open_path(r, endless_path), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_LINE_TOO_LONG);
    CHECK(logtk_reader_bytes_read(r) < big);
    free(endless);
    CHECK_STATUS(logtk_reader_set_max_line(r, LOGTK_DEFAULT_MAX_LINE), LOGTK_OK);
    CHECK_STATUS(logtk_reader_set_max_line(r, 0), LOGTK_ERR_INVALID);

    /* truncated .gz: every complete line before the damage, then LOGTK_ERR_ARCHIVE naming the file */
    ltk_strbuf text = LTK_STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        ltk_strbuf_printf(&text, "line %d of a long log %d\n", i, i * 31);
    member one = {"data", text.data, text.len};
    z = make_archive(ARCHIVE_FILTER_GZIP, ARCHIVE_FORMAT_RAW, &one, 1, &zlen);
    const char *cut_path = tmp_path("cut.gz");
    write_file(cut_path, z, zlen / 2);
    CHECK_STATUS(logtk_reader_open_path(r, cut_path), LOGTK_OK);
    ltk_strbuf got = LTK_STRBUF_INIT;
    size_t n;
    CHECK_STATUS(read_all(r, &got, &n, cut_path), LOGTK_ERR_ARCHIVE);
    CHECK(n > 1000 && n < 100000);
    CHECK(got.len > 0 && got.len < text.len && memcmp(got.data, text.data, got.len) == 0);
    CHECK(got.len > 0 && got.data[got.len - 1] == '\n'); /* no unfinished line */
    CHECK(strstr(logtk_reader_errmsg(r), cut_path) != NULL);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_ARCHIVE);
    /* the same through memory */
    ltk_strbuf_clear(&got);
    CHECK_STATUS(logtk_reader_open_memory(r, z, zlen / 2, "cut-mem.gz"), LOGTK_OK);
    CHECK_STATUS(read_all(r, &got, &n, "cut-mem.gz"), LOGTK_ERR_ARCHIVE);
    CHECK(got.len > 0 && memcmp(got.data, text.data, got.len) == 0);
    /* garbage after a gzip magic */
    static const char bad_gz[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff garbage";
    CHECK(logtk_reader_open_memory(r, bad_gz, sizeof bad_gz - 1, "bad.gz") == LOGTK_ERR_ARCHIVE ||
          read_all(r, &got, &n, NULL) == LOGTK_ERR_ARCHIVE);
    CHECK(strstr(logtk_reader_errmsg(r), "bad.gz") != NULL);
    free(z);
    ltk_strbuf_free(&got);
    ltk_strbuf_free(&text);

    /* binary heuristic */
    CHECK_STATUS(logtk_reader_open_memory(r, "plain text\n", 11, "t"), LOGTK_OK);
    CHECK(!logtk_reader_is_binary(r));
    CHECK_STATUS(logtk_reader_open_memory(r, "\x01\x02\x03\x04 ab\n", 7, "b"), LOGTK_OK);
    CHECK(logtk_reader_is_binary(r));
    /* longer samples, read eight bytes a step: tabs, line ends, VT and ESC
       are text; more than one byte in ten of other controls (DEL too) is
       binary, one in ten is not; a NUL anywhere in the sample is binary */
    char judged[200];
    memset(judged, 'a', sizeof judged);
    for (size_t k = 0; k < sizeof judged; k += 5)
        judged[k] = "\t\n\r\x1b\x0b"[(k / 5) % 5];
    CHECK_STATUS(logtk_reader_open_memory(r, judged, sizeof judged, "text"), LOGTK_OK);
    CHECK(!logtk_reader_is_binary(r));
    for (size_t k = 101; k < 121; k++) /* 20 of 200 in a row: one in ten */
        judged[k] = k % 2 ? '\x7f' : (char)(k % 8 + 1);
    CHECK_STATUS(logtk_reader_open_memory(r, judged, sizeof judged, "ten"), LOGTK_OK);
    CHECK(!logtk_reader_is_binary(r));
    judged[197] = '\x1f'; /* 21 of 200 */
    CHECK_STATUS(logtk_reader_open_memory(r, judged, sizeof judged, "more"), LOGTK_OK);
    CHECK(logtk_reader_is_binary(r));
    memset(judged, 'a', sizeof judged);
    judged[77] = '\0';
    CHECK_STATUS(logtk_reader_open_memory(r, judged, sizeof judged, "nul"), LOGTK_OK);
    CHECK(logtk_reader_is_binary(r));

    /* no source open */
    logtk_reader_close(r);
    CHECK(logtk_reader_next(r, &l) < 0);
    logtk_reader_free(r);
    logtk_reader_free(NULL);
}

/* Lines of the standard tool's output for a damaged file (its decodable
 * prefix), or -1 when the tool is not installed. */
static long tool_decoded_lines(const char *tool, const char *path)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    if (system(cmd) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "%s -dc < '%s' 2>/dev/null", tool, path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    long lines = 0;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        for (size_t i = 0; i < n; i++)
            lines += chunk[i] == '\n';
    pclose(p);
    return lines;
}

/* Reads a damaged source to its end: the lines must rebuild a prefix of
 * `text` made of complete lines only, then LOGTK_ERR_ARCHIVE must name the
 * source and the last line delivered.  Returns the number of lines. */
static size_t check_damaged(logtk_reader *r, int open_rc, const ltk_strbuf *text,
                            const char *source, const char *what)
{
    if (open_rc != LOGTK_OK) {
        fprintf(stderr, "%s: open failed: %s\n", what, logtk_reader_errmsg(r));
        test_failed_count++;
        return 0;
    }
    ltk_strbuf got = LTK_STRBUF_INIT;
    size_t n;
    int rc = read_all(r, &got, &n, source);
    CHECK_STATUS(rc, LOGTK_ERR_ARCHIVE);
    int prefix = got.len <= text->len && (got.len == 0 || memcmp(got.data, text->data, got.len) == 0);
    int whole_lines = got.len == 0 || got.data[got.len - 1] == '\n';
    if (!prefix || !whole_lines) {
        fprintf(stderr, "%s: %zu bytes delivered are not complete lines of the original\n", what,
                got.len);
        test_failed_count++;
    } else {
        test_passed_count++;
    }
    char want[700];
    if (n > 0)
        snprintf(want, sizeof want, "%s: damaged compressed data after line %zu: ", source, n);
    else
        snprintf(want, sizeof want, "%s: damaged compressed data before the first line: ", source);
    if (strstr(logtk_reader_errmsg(r), want) == NULL) {
        fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", what, logtk_reader_errmsg(r), want);
        test_failed_count++;
    } else {
        test_passed_count++;
    }
    logtk_line l;
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_ERR_ARCHIVE); /* sticky */
    ltk_strbuf_free(&got);
    return n;
}

/* The same damaged bytes through a pipe on stdin; returns the line count. */
static size_t check_damaged_via_stdin(const char *bytes, size_t len, const ltk_strbuf *text,
                                      const char *what)
{
    int saved;
    pid_t pid = stdin_pipe_begin(bytes, len, 4000, &saved);
    logtk_reader *r;
    logtk_reader_new(&r);
    size_t n = check_damaged(r, logtk_reader_open_path(r, "-"), text, "-", what);
    logtk_reader_free(r);
    stdin_pipe_end(pid, saved);
    return n;
}

/*
 * Issue 2's rule: a truncated compressed file yields everything before the
 * damage.  Each compression is cut at several points; from a file, from
 * memory and from a pipe the reader must deliver the same complete lines, a
 * prefix of the original, at least as many as the standard tool decodes
 * (gzip -dc etc.; it also prints the partial last line, which we do not
 * count), then LOGTK_ERR_ARCHIVE.  bzip2 and zstd decode whole blocks only
 * (900 kB and 128 kB), so the text spans several blocks.
 */
TEST(test_truncated_streams)
{
    ltk_strbuf text = LTK_STRBUF_INIT;
    size_t total_lines = 0;
    for (int i = 0; text.len < 2200000; i++, total_lines++)
        ltk_strbuf_printf(&text, "081109 %06d %d INFO dfs.DataNode: Received block blk_%d of size %d from /10.250.%d.%d\n",
                            (i * 7) % 1000000, i % 997, i * 7919, (i * 31) % 67108864, i % 256,
                            (i * 13) % 256);
    static const struct {
        int filter;
        const char *ext, *tool;
    } codecs[] = {{ARCHIVE_FILTER_GZIP, "gz", "gzip"},
                  {ARCHIVE_FILTER_BZIP2, "bz2", "bzip2"},
                  {ARCHIVE_FILTER_XZ, "xz", "xz"},
                  {ARCHIVE_FILTER_ZSTD, "zst", "zstd"}};
    static const double cuts[] = {0.0, 0.05, 0.3, 0.5, 0.77, 0.95, 1.0};
    logtk_reader *r;
    logtk_reader_new(&r);
    member one = {"data", text.data, text.len};
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        size_t zlen;
        char *z = make_archive(codecs[c].filter, ARCHIVE_FORMAT_RAW, &one, 1, &zlen);
        size_t best = 0;
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            /* 0.0: only the magic and a few bytes; 1.0: all but the last byte */
            size_t cut = k == 0 ? 7 : cuts[k] >= 1.0 ? zlen - 1 : (size_t)(zlen * cuts[k]);
            char what[128], name[64];
            snprintf(what, sizeof what, "%s cut at %zu of %zu", codecs[c].ext, cut, zlen);
            snprintf(name, sizeof name, "cut-%zu.%s", k, codecs[c].ext);
            const char *path = tmp_path(name);
            write_file(path, z, cut);
            size_t from_file = check_damaged(r, logtk_reader_open_path(r, path), &text, path, what);
            size_t from_mem = check_damaged(r, logtk_reader_open_memory(r, z, cut, name), &text,
                                            name, what);
            CHECK(from_mem == from_file);
            if (k == 3)
                CHECK(check_damaged_via_stdin(z, cut, &text, what) == from_file);
            long tool = tool_decoded_lines(codecs[c].tool, path);
            if (tool < 0) {
                printf("skipped: %s not installed, no reference count for %s\n", codecs[c].tool,
                       what);
            } else if ((long)from_file < tool) {
                fprintf(stderr, "%s: %zu lines, %s -dc decodes %ld\n", what, from_file,
                        codecs[c].tool, tool);
                test_failed_count++;
            } else {
                test_passed_count++;
            }
            CHECK(from_file >= best); /* a longer prefix never yields fewer lines */
            best = from_file;
        }
        /* all but the last byte: gzip, bzip2 and xz end with a trailer, so every
         * line comes out; zstd's last byte (no checksum) is in its last block */
        if (codecs[c].filter != ARCHIVE_FILTER_ZSTD)
            CHECK(best == total_lines);
        free(z);
    }
    logtk_reader_free(r);
    ltk_strbuf_free(&text);
}

/* A truncated tar.gz: the members before the damage whole, the damaged one
 * up to the damage, then the error naming ARCHIVE:MEMBER. */
TEST(test_truncated_tar_gz)
{
    ltk_strbuf a = LTK_STRBUF_INIT, b = LTK_STRBUF_INIT;
    for (int i = 0; i < 20000; i++) {
        ltk_strbuf_printf(&a, "a line %d %d\n", i, i * 7);
        ltk_strbuf_printf(&b, "b line %d %d\n", i, i * 13);
    }
    member ms[] = {{"a.log", a.data, a.len}, {"b.log", b.data, b.len}};
    size_t zlen;
    char *z = make_archive(ARCHIVE_FILTER_GZIP, ARCHIVE_FORMAT_TAR_USTAR, ms, 2, &zlen);
    logtk_reader *r;
    logtk_reader_new(&r);
    CHECK_STATUS(logtk_reader_open_memory(r, z, zlen * 3 / 4, "t.tar.gz"), LOGTK_OK);
    ltk_strbuf got_a = LTK_STRBUF_INIT, got_b = LTK_STRBUF_INIT;
    logtk_line l;
    int rc;
    while ((rc = logtk_reader_next(r, &l)) == LOGTK_OK)
        ltk_strbuf_append(strcmp(l.source, "t.tar.gz:a.log") == 0 ? &got_a : &got_b, l.data,
                            l.len + l.eol_len);
    CHECK_STATUS(rc, LOGTK_ERR_ARCHIVE);
    CHECK(got_a.len == a.len && memcmp(got_a.data, a.data, a.len) == 0);
    CHECK(got_b.len > 0 && got_b.len < b.len && memcmp(got_b.data, b.data, got_b.len) == 0);
    CHECK(got_b.len > 0 && got_b.data[got_b.len - 1] == '\n');
    CHECK(strstr(logtk_reader_errmsg(r), "t.tar.gz:b.log: damaged compressed data after line") !=
          NULL);
    logtk_reader_free(r);
    free(z);
    ltk_strbuf_free(&a);
    ltk_strbuf_free(&b);
    ltk_strbuf_free(&got_a);
    ltk_strbuf_free(&got_b);
}

/* Concatenated gzip streams read as one text (pigz, cat a.gz b.gz); zero
 * padding after the last stream is ignored, other trailing bytes are damage. */
TEST(test_concatenated_streams)
{
    static const char a_text[] = "first stream 1\nfirst stream 2\n";
    static const char b_text[] = "second stream 1\nsecond stream 2\n";
    static const int filters[] = {ARCHIVE_FILTER_GZIP, ARCHIVE_FILTER_BZIP2, ARCHIVE_FILTER_XZ,
                                  ARCHIVE_FILTER_ZSTD};
    logtk_reader *r;
    logtk_reader_new(&r);
    for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
        member ma = {"a", a_text, sizeof a_text - 1}, mb = {"b", b_text, sizeof b_text - 1};
        size_t alen, blen;
        char *za = make_archive(filters[f], ARCHIVE_FORMAT_RAW, &ma, 1, &alen);
        char *zb = make_archive(filters[f], ARCHIVE_FORMAT_RAW, &mb, 1, &blen);
        ltk_strbuf both = LTK_STRBUF_INIT, want = LTK_STRBUF_INIT, got = LTK_STRBUF_INIT;
        ltk_strbuf_append(&both, za, alen);
        ltk_strbuf_append(&both, zb, blen);
        ltk_strbuf_puts(&want, a_text);
        ltk_strbuf_puts(&want, b_text);
        size_t n;
        CHECK_STATUS(logtk_reader_open_memory(r, both.data, both.len, "two"), LOGTK_OK);
        CHECK_STATUS(read_all(r, &got, &n, "two"), LOGTK_DONE);
        CHECK(n == 4 && got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
        if (filters[f] == ARCHIVE_FILTER_GZIP) {
            ltk_strbuf_append(&both, "\0\0\0\0", 4);
            ltk_strbuf_clear(&got);
            CHECK_STATUS(logtk_reader_open_memory(r, both.data, both.len, "padded"), LOGTK_OK);
            CHECK_STATUS(read_all(r, &got, &n, "padded"), LOGTK_DONE);
            CHECK(n == 4);
            ltk_strbuf_puts(&both, "junk");
            ltk_strbuf_clear(&got);
            CHECK_STATUS(logtk_reader_open_memory(r, both.data, both.len, "junk"), LOGTK_OK);
            CHECK_STATUS(read_all(r, &got, &n, "junk"), LOGTK_ERR_ARCHIVE);
            CHECK(n == 4 && strstr(logtk_reader_errmsg(r), "after line 4: unexpected bytes") != NULL);
        }
        free(za);
        free(zb);
        ltk_strbuf_free(&both);
        ltk_strbuf_free(&want);
        ltk_strbuf_free(&got);
    }
    logtk_reader_free(r);
}

TEST(test_outfile)
{
    ltk_errbuf err;
    ltk_error_clear(&err);
    ltk_outfile o = LTK_OUTFILE_INIT;
    const char *target = tmp_path("out.txt");
    write_file(target, "good\n", 5);

    /* abort leaves the old file and no temporary behind */
    CHECK_STATUS(ltk_outfile_open(&o, target, &err), LOGTK_OK);
    CHECK(!ltk_outfile_is_stdout(&o));
    CHECK_STATUS(ltk_outfile_write(&o, "half", 4, &err), LOGTK_OK);
    ltk_outfile_abort(&o);
    ltk_outfile_abort(&o);
    size_t len;
    char *s = read_file(target, &len);
    CHECK(s && len == 5 && memcmp(s, "good\n", 5) == 0);
    free(s);

    /* commit replaces it, with mode 0666 & ~umask */
    mode_t old = umask(027);
    CHECK_STATUS(ltk_outfile_open(&o, target, &err), LOGTK_OK);
    fputs("new content\n", o.fp);
    CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_OK);
    umask(old);
    s = read_file(target, &len);
    CHECK(s && len == 12 && memcmp(s, "new content\n", 12) == 0);
    free(s);
    struct stat st;
    CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0640);

    /* only out.txt is left in the directory's "out" namespace (no .out.txt.XXXXXX) */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '^\\.out\\.txt\\.'", tmpdir);
    CHECK(system(cmd) != 0);

    /* a missing directory is an error naming the path */
    const char *bad = tmp_path("no-dir/out.txt");
    CHECK_STATUS(ltk_outfile_open(&o, bad, &err), LOGTK_ERR_IO);
    CHECK(strstr(ltk_error_text(&err), bad) != NULL);
    CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_ERR_IO);

    /* a full disk is reported at commit */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_STATUS(ltk_outfile_open(&o, "/dev/full", &err), LOGTK_OK);
        for (int i = 0; i < 10000; i++)
            fputs("filling up\n", o.fp);
        CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_ERR_IO);
        CHECK(strstr(ltk_error_text(&err), "/dev/full") != NULL);
    }

    /* a symlink to a file: the file is replaced, the link stays a link */
    const char *link_path = tmp_path("link.txt");
    unlink(link_path);
    CHECK(symlink("out.txt", link_path) == 0);
    CHECK_STATUS(ltk_outfile_open(&o, link_path, &err), LOGTK_OK);
    fputs("via link\n", o.fp);
    CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_OK);
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
    s = read_file(target, &len);
    CHECK(s && len == 9 && memcmp(s, "via link\n", 9) == 0);
    free(s);

    /* a symlink that resolves to nothing is written through, never replaced */
    const char *dangling = tmp_path("dangling.txt"), *behind = tmp_path("behind.txt");
    unlink(dangling);
    unlink(behind);
    CHECK(symlink("behind.txt", dangling) == 0);
    CHECK_STATUS(ltk_outfile_open(&o, dangling, &err), LOGTK_OK);
    fputs("through\n", o.fp);
    CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_OK);
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    s = read_file(behind, &len);
    CHECK(s && len == 8 && memcmp(s, "through\n", 8) == 0);
    free(s);

    /* a file a process holds open, named through /proc (/dev/stdout is such a
       link): appended to in place, so what the descriptor wrote before stays
       and nothing replaces the file behind it (or the link) */
    const char *held = tmp_path("held.txt");
    int fd = open(held, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, "before\n", 7) == 7);
        struct stat held_before;
        CHECK(fstat(fd, &held_before) == 0);
        char proc_path[64];
        snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
        if (access(proc_path, W_OK) == 0) {
            CHECK_STATUS(ltk_outfile_open(&o, proc_path, &err), LOGTK_OK);
            fputs("after\n", o.fp);
            CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_OK);
            CHECK(stat(held, &st) == 0 && st.st_ino == held_before.st_ino);
            s = read_file(held, &len);
            CHECK(s && len == 13 && memcmp(s, "before\nafter\n", 13) == 0);
            free(s);
        }
        close(fd);
    }

    /* stdout: commit flushes, abort is harmless */
    CHECK_STATUS(ltk_outfile_open(&o, "-", &err), LOGTK_OK);
    CHECK(ltk_outfile_is_stdout(&o) && o.fp == stdout);
    CHECK_STATUS(ltk_outfile_commit(&o, &err), LOGTK_OK);
    CHECK_STATUS(ltk_outfile_open(&o, NULL, &err), LOGTK_OK);
    ltk_outfile_abort(&o);
    CHECK(o.fp == NULL);
}

/* Plain text that merely starts like a magic number ("BZh" is ASCII) is
 * text: every line comes back, from memory and from a file. */
TEST(test_text_starting_like_magic)
{
    logtk_reader *r;
    logtk_reader_new(&r);
    logtk_line l;
    static const char text[] = "BZh9 started worker\nsecond line\n";
    CHECK_STATUS(logtk_reader_open_memory(r, text, sizeof text - 1, "bzh.log"), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "BZh9 started worker");
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "second line");
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    const char *path = tmp_path("bzh.log");
    write_file(path, text, sizeof text - 1);
    CHECK_STATUS(logtk_reader_open_path(r, path), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "BZh9 started worker");
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    logtk_reader_free(r);
}

/* `tail -F app.log | logtk parse --stream`: a pipe that has delivered one
 * short line and stays open must yield that line now, not after 512 bytes
 * have arrived for format detection.  alarm() turns a hang into a failure. */
TEST(test_slow_pipe)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    static const char first[] = "first line\n";
    CHECK(write(fds[1], first, sizeof first - 1) == (ssize_t)(sizeof first - 1));
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    logtk_reader *r;
    logtk_reader_new(&r);
    logtk_line l;
    alarm(10);
    CHECK_STATUS(logtk_reader_open_path(r, path), LOGTK_OK);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_OK);
    CHECK_BYTES(l.data, l.len, "first line");
    alarm(0);
    close(fds[1]);
    CHECK_STATUS(logtk_reader_next(r, &l), LOGTK_DONE);
    logtk_reader_free(r);
    close(fds[0]);
}


TEST_SETUP()
{
    snprintf(tmpdir, sizeof tmpdir, "%s/logtk-test-reader-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

TEST_TEARDOWN()
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}
