/*
 * test_parser_bulk.c - the bulk calls bindings use (parsers/parser_bulk.c):
 * logtk_parser_feed_reader, logtk_parser_match_reader, logtk_rows_write.
 *
 * What must hold: feeding a reader gives each line the id that feeding it
 * alone would (same templates, same snapshot), in blocks of max_lines with
 * LOGTK_OK until LOGTK_DONE; a format's Content is what is parsed; matching
 * learns nothing and names an unknown line 0; rows are the tsv sink's rows
 * with the given texts and the parameters the texts match, and fewer rows
 * than ids when the input ends first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logtk.h"
#include "test_harness.h"

static const char text[] = "connected to 10.0.0.1\n"
                           "connected to 10.0.0.2\n"
                           "user bob logged in\r\n"
                           "user ann logged in\n"
                           "connected to 10.0.0.3";
static const char *const lines[] = {"connected to 10.0.0.1", "connected to 10.0.0.2",
                                    "user bob logged in", "user ann logged in",
                                    "connected to 10.0.0.3"};

static logtk_reader *memory_reader(const char *buf, size_t len)
{
    logtk_reader *r = NULL;
    CHECK(logtk_reader_new(&r) == LOGTK_OK);
    CHECK(logtk_reader_open_memory(r, buf, len, "mem") == LOGTK_OK);
    return r;
}

static void *save(logtk_parser *p, size_t *len)
{
    void *buf = NULL;
    CHECK(logtk_parser_save(p, &buf, len) == LOGTK_OK);
    return buf;
}

TEST(test_feed_reader_equals_feeding_one_by_one)
{
    logtk_parser *one = NULL, *bulk = NULL;
    CHECK(logtk_parser_new(&one, "drain") == LOGTK_OK);
    CHECK(logtk_parser_new(&bulk, "drain") == LOGTK_OK);
    uint32_t want[5], got[5] = {0};
    for (size_t i = 0; i < 5; i++) {
        logtk_event ev;
        CHECK(logtk_parser_feed(one, lines[i], strlen(lines[i]), &ev) == LOGTK_OK);
        want[i] = ev.template_id;
    }
    logtk_reader *r = memory_reader(text, sizeof text - 1);
    size_t n = 99;
    CHECK_STATUS(logtk_parser_feed_reader(bulk, NULL, r, 3, got, &n), LOGTK_OK);
    CHECK(n == 3);
    CHECK_STATUS(logtk_parser_feed_reader(bulk, NULL, r, 3, got + 3, &n), LOGTK_DONE);
    CHECK(n == 2);
    CHECK(memcmp(want, got, sizeof want) == 0);
    size_t la, lb;
    void *a = save(one, &la), *b = save(bulk, &lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    logtk_free(a);
    logtk_free(b);
    logtk_reader_free(r);
    logtk_parser_free(one);
    logtk_parser_free(bulk);
}

TEST(test_format_content_is_parsed)
{
    static const char log[] = "INFO a: disk full on sda\nWARN b: disk full on sdb\n";
    logtk_format *f = NULL;
    CHECK(logtk_format_new(&f) == LOGTK_OK);
    CHECK(logtk_format_compile(f, "<Level> <Component>: <Content>") == LOGTK_OK);
    logtk_parser *p = NULL;
    CHECK(logtk_parser_new(&p, "drain") == LOGTK_OK);
    logtk_reader *r = memory_reader(log, sizeof log - 1);
    uint32_t ids[2];
    size_t n = 0;
    CHECK_STATUS(logtk_parser_feed_reader(p, f, r, 10, ids, &n), LOGTK_DONE);
    CHECK(n == 2 && ids[0] == 1 && ids[1] == 1);
    logtk_slice t;
    CHECK(logtk_parser_template(p, 1, &t, NULL) == LOGTK_OK);
    CHECK_BYTES(t.ptr, t.len, "disk full on <*>");
    logtk_reader_free(r);
    logtk_parser_free(p);
    logtk_format_free(f);
}

TEST(test_match_reader_learns_nothing)
{
    logtk_parser *p = NULL;
    CHECK(logtk_parser_new(&p, "drain") == LOGTK_OK);
    for (size_t i = 0; i < 4; i++)
        CHECK(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL) == LOGTK_OK);
    size_t la, lb;
    void *before = save(p, &la);
    static const char probe[] = "connected to 10.9.9.9\nnothing like it\nuser eve logged in\n";
    logtk_reader *r = memory_reader(probe, sizeof probe - 1);
    uint32_t ids[3] = {7, 7, 7};
    size_t n = 0;
    CHECK_STATUS(logtk_parser_match_reader(p, NULL, r, 10, ids, &n), LOGTK_DONE);
    CHECK(n == 3);
    CHECK(ids[0] == 1 && ids[1] == 0 && ids[2] == 2);
    void *after = save(p, &lb);
    CHECK(la == lb && memcmp(before, after, la) == 0);
    CHECK(logtk_parser_line_count(p) == 4);
    logtk_free(before);
    logtk_free(after);
    logtk_reader_free(r);
    logtk_parser_free(p);
}

/* Reads a whole file into a static buffer (tests only). */
static const char *slurp(const char *path)
{
    static char buf[4096];
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
    return buf;
}

TEST(test_rows_write_tsv)
{
    char path[] = "/tmp/logtk-bulk-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    logtk_sink *s = NULL;
    CHECK(logtk_sink_new(&s, "tsv", path, NULL) == LOGTK_OK);
    logtk_reader *r = memory_reader(text, sizeof text - 1);
    const logtk_slice texts[] = {{"", 0}, {"connected to <*>", 16}, {"user <*> logged in", 18}};
    /* the third line gets template 1, which it does not match: no parameters */
    const uint32_t ids[] = {1, 1, 1, 2, 0, 1};
    size_t written = 0;
    CHECK_STATUS(logtk_rows_write(s, NULL, r, 10, ids, 6, texts, 3, &written), LOGTK_OK);
    CHECK(written == 5); /* the input ended before the sixth id */
    CHECK(logtk_sink_close(s) == LOGTK_OK);
    const char *want = "LineId\tContent\tEventId\tEventTemplate\tParameterList\n"
                       "10\tconnected to 10.0.0.1\tE1\tconnected to <*>\t[\"10.0.0.1\"]\n"
                       "11\tconnected to 10.0.0.2\tE1\tconnected to <*>\t[\"10.0.0.2\"]\n"
                       "12\tuser bob logged in\tE1\tconnected to <*>\t[]\n"
                       "13\tuser ann logged in\tE2\tuser <*> logged in\t[\"ann\"]\n"
                       "14\tconnected to 10.0.0.3\tE0\t\t[]\n";
    const char *got = slurp(path);
    CHECK(strcmp(got, want) == 0);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "got:\n%s", got);
    logtk_sink_free(s);
    logtk_reader_free(r);
    unlink(path);
}

/*
 * The bulk match gives each line the id logtk_parser_match() gives it, for
 * every algorithm (with masks; lines seen and unseen; lines no template
 * matches), though it fills no event.
 */
TEST(test_match_reader_equals_matching_one_by_one)
{
    static const char *const shapes[] = {
        "connected to 10.0.0.%d port %d", "user u%d logged in after %d tries",
        "job %d finished in %d ms",       "disk sd%d at %d%% full",
        "%d bytes from host h%d",         "cache miss key=k%d size=%d",
    };
    char buf[64 * 40];
    size_t used = 0;
    for (int i = 0; i < 60; i++) {
        used += (size_t)snprintf(buf + used, sizeof buf - used, shapes[(i * 7) % 6], i % 9,
                                 i * 13 % 97);
        buf[used++] = '\n';
    }
    used += (size_t)snprintf(buf + used, sizeof buf - used, "nothing like any of them\n");
    size_t half = 0;
    for (int k = 0; k < 30; k++)
        half = (size_t)(strchr(buf + half, '\n') - buf) + 1;
    for (size_t a = 0; logtk_parser_algorithm_name(a) != NULL; a++) {
        logtk_parser *p = NULL;
        CHECK(logtk_parser_new(&p, logtk_parser_algorithm_name(a)) == LOGTK_OK);
        CHECK(logtk_parser_add_mask(p, "\\d+", NULL) == LOGTK_OK);
        logtk_reader *r = memory_reader(buf, half);
        CHECK_STATUS(logtk_parser_feed_reader(p, NULL, r, 1000, NULL, NULL), LOGTK_DONE);
        logtk_reader_free(r);
        CHECK(logtk_parser_finish(p) == LOGTK_OK);
        uint32_t ids[61];
        size_t n = 0;
        r = memory_reader(buf, used);
        CHECK_STATUS(logtk_parser_match_reader(p, NULL, r, 1000, ids, &n), LOGTK_DONE);
        CHECK(n == 61);
        const char *line = buf;
        for (size_t i = 0; i < n; i++) {
            const char *end = strchr(line, '\n');
            logtk_event ev;
            int rc = logtk_parser_match(p, line, (size_t)(end - line), &ev);
            uint32_t want = rc == LOGTK_OK ? ev.template_id : 0;
            if (ids[i] != want)
                fprintf(stderr, "%s line %zu: bulk %u, one by one %u\n",
                        logtk_parser_algorithm_name(a), i + 1, ids[i], want);
            CHECK(ids[i] == want);
            line = end + 1;
        }
        logtk_reader_free(r);
        logtk_parser_free(p);
    }
}
