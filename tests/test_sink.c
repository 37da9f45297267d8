/*
 * test_sink.c - the structured output sinks: exact bytes of each text layout
 * (escaping, quoting, lossless non-UTF-8), the SQLite schema read back with
 * SQLite, atomic replacement of the target, and error paths.  Template
 * keys (EventKey, templates.key) are checked against FNV-1a 64 computed here
 * independently, against the published test vectors, and against the key a
 * real parser gives (logtk_parser_template_key()).
 */
#include "config.h"
#include "sink_impl.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_harness.h"

static char tmpdir[256];
/* The format "<Date> <Level>: <Content>" that the layouts are written with. */
static logtk_format *sink_format;

static const char *tmp_path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* Reads a whole file into a NUL-terminated malloc'd buffer; *len its size. */
static char *slurp(const char *path, size_t *len)
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
    if (b.data == NULL)
        ltk_strbuf_append(&b, "", 0);
    *len = b.len;
    return b.data;
}

static int count_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static logtk_slice sl(const char *s) { logtk_slice x = {s, strlen(s)}; return x; }

/*
 * FNV-1a 64 written out from its definition (xor the byte, then multiply by
 * the prime, modulo 2^64), independent of core/content_key.h, as the 16
 * lowercase hex digits a key is written as.
 */
static const char *fnv1a64_hex(const char *text, size_t len, char out[17])
{
    uint64_t h = 14695981039346656037ULL; /* offset basis */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)text[i]) * 1099511628211ULL; /* prime */
    snprintf(out, 17, "%016llx", (unsigned long long)h);
    return out;
}

/* Three rows over the format "<Date> <Level>: <Content>":
 *  1: plain, two parameters;
 *  2: content with tab, quote, comma, backslash, CR and LF; a parameter with a tab;
 *  3: unmatched line holding a byte that is not UTF-8 (0xFF) and a NUL. */
static const char content3[] = "raw \xff line\x01";
static void make_rows(logtk_record recs[3], logtk_row rows[3], logtk_slice params[3][2])
{
    memset(recs, 0, 3 * sizeof recs[0]);
    memset(rows, 0, 3 * sizeof rows[0]);
    recs[0].matched = 1;
    recs[0].nfields = 2;
    recs[0].fields[0] = sl("2024-01-02");
    recs[0].fields[1] = sl("INFO");
    recs[0].content = sl("user 42 logged in from 10.0.0.1");
    params[0][0] = sl("42");
    params[0][1] = sl("10.0.0.1");
    rows[0].line_id = 1;
    rows[0].record = &recs[0];
    rows[0].template_id = 1;
    rows[0].template_text = sl("user <*> logged in from <*>");
    rows[0].nparams = 2;
    rows[0].params = params[0];

    recs[1].matched = 1;
    recs[1].nfields = 2;
    recs[1].fields[0] = sl("2024-01-02");
    recs[1].fields[1] = sl("WARN");
    recs[1].content = sl("say \"hi\",\tthen\\go\r\nend\ta");
    params[1][0] = sl("\ta");
    rows[1].line_id = 2;
    rows[1].record = &recs[1];
    rows[1].template_id = 2;
    rows[1].template_text = sl("say \"hi\",\tthen\\go\r\nend<*>");
    rows[1].nparams = 1;
    rows[1].params = params[1];

    recs[2].matched = 0;
    recs[2].nfields = 2;
    recs[2].fields[0] = sl("");
    recs[2].fields[1] = sl("");
    recs[2].content.ptr = content3;
    recs[2].content.len = sizeof content3 - 1;
    params[2][0].ptr = content3 + 4;
    params[2][0].len = 1;
    rows[2].line_id = 3;
    rows[2].record = &recs[2];
    rows[2].template_id = 3;
    rows[2].template_text = sl("raw <*> line\x01");
    rows[2].nparams = 1;
    rows[2].params = params[2];
}

/* Writes the three rows with `kind` into `path` and returns the file's contents. */
static char *write_kind(const char *kind, const char *path, logtk_format *fmt, size_t *len)
{
    logtk_record recs[3];
    logtk_row rows[3];
    logtk_slice params[3][2];
    make_rows(recs, rows, params);
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, kind, path, fmt), LOGTK_OK);
    for (int i = 0; i < 3; i++)
        CHECK_STATUS(logtk_sink_write(s, &rows[i]), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write_template(s, 1, sl("user <*> logged in from <*>"), 1), LOGTK_OK);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK); /* closing twice is harmless */
    logtk_sink_free(s);
    return slurp(path, len);
}

TEST(test_tsv)
{
    logtk_format *fmt = sink_format;
    size_t len = 0;
    char *got = write_kind("tsv", tmp_path("out.tsv"), fmt, &len);
    const char want[] =
        "LineId\tDate\tLevel\tContent\tEventId\tEventTemplate\tParameterList\n"
        "1\t2024-01-02\tINFO\tuser 42 logged in from 10.0.0.1\tE1\tuser <*> logged in from <*>"
        "\t[\"42\",\"10.0.0.1\"]\n"
        "2\t2024-01-02\tWARN\tsay \"hi\",\\tthen\\\\go\\r\\nend\\ta\tE2\t"
        "say \"hi\",\\tthen\\\\go\\r\\nend<*>\t[\"\\\\ta\"]\n"
        "3\t\t\traw \xff line\x01\tE3\traw <*> line\x01\t[\"\xff\"]\n";
    CHECK(got != NULL);
    if (got)
        CHECK_BYTES(got, len, want);
    free(got);
}

TEST(test_templates_kind)
{
    logtk_format *fmt = sink_format;
    logtk_sink *s = NULL;
    const char *path = tmp_path("templates.tsv");
    logtk_record recs[3];
    logtk_row rows[3];
    logtk_slice params[3][2];
    make_rows(recs, rows, params);
    static const char binary[] = "raw <*> \xff\0x"; /* not UTF-8, holds a NUL */
    logtk_slice binary_text = {binary, sizeof binary - 1};
    CHECK_STATUS(logtk_sink_new(&s, "templates", path, fmt), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write(s, &rows[0]), LOGTK_OK); /* rows are ignored */
    CHECK_STATUS(logtk_sink_write_template(s, 1, sl("user <*> logged in from <*>"), 7), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write_template(s, 2, sl("a\tb\\c"), 1), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write_template(s, 3, sl(""), 0), LOGTK_OK);
    CHECK_STATUS(logtk_sink_write_template(s, 4294967295u, binary_text, 18446744073709551615ull),
                 LOGTK_OK);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    logtk_sink_free(s);
    size_t len = 0;
    char *got = slurp(path, &len);
    char k1[17], k2[17], k3[17], k4[17];
    /* The key hashes the text as given (raw tab and backslash, the NUL), not
     * its escaped form.  Built with explicit lengths because of the NUL. */
    ltk_strbuf want = LTK_STRBUF_INIT;
    ltk_strbuf_printf(&want,
                        "EventId\tEventTemplate\tOccurrences\tEventKey\n"
                        "E1\tuser <*> logged in from <*>\t7\t%s\n"
                        "E2\ta\\tb\\\\c\t1\t%s\n"
                        "E3\t\t0\t%s\n"
                        "E4294967295\t",
                        fnv1a64_hex("user <*> logged in from <*>", 27, k1),
                        fnv1a64_hex("a\tb\\c", 5, k2), fnv1a64_hex("", 0, k3));
    ltk_strbuf_append(&want, binary, sizeof binary - 1); /* no byte needs escaping */
    ltk_strbuf_printf(&want, "\t18446744073709551615\t%s\n",
                        fnv1a64_hex(binary, sizeof binary - 1, k4));
    CHECK(got != NULL && want.data != NULL);
    CHECK(got && want.data && len == want.len && memcmp(got, want.data, len) == 0);
    if (got && want.data && !(len == want.len && memcmp(got, want.data, len) == 0))
        fprintf(stderr, "templates kind: expected \"%.*s\", got \"%.*s\"\n", (int)want.len,
                want.data, (int)len, got);
    ltk_strbuf_free(&want);
    /* FNV-1a 64 published test vectors, so the independent copy above is right too */
    CHECK(strcmp(k3, "cbf29ce484222325") == 0);
    CHECK(strcmp(fnv1a64_hex("a", 1, k1), "af63dc4c8601ec8c") == 0);
    CHECK(strcmp(fnv1a64_hex("foobar", 6, k1), "85944171f73967e8") == 0);
    free(got);
}

/*
 * The sinks hash the text themselves; the result must be the key the parser
 * API gives for the same template, or shards and outputs would disagree.
 */
TEST(test_key_matches_parser)
{
    logtk_parser *p = NULL;
    if (logtk_parser_new(&p, "drain") != LOGTK_OK) {
        printf("skipped: no drain parser in this build\n");
        logtk_parser_free(p);
        return;
    }
    const char *lines[] = {"user 42 logged in from host1", "user 7 logged in from host2",
                           "disk \xff full"};
    for (int i = 0; i < 3; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    uint32_t n = logtk_parser_template_count(p);
    CHECK(n >= 2);
    const char *path = tmp_path("parser_templates.tsv");
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, "templates", path, NULL), LOGTK_OK);
    for (uint32_t id = 1; id <= n; id++) {
        logtk_slice text;
        uint64_t count;
        CHECK_STATUS(logtk_parser_template(p, id, &text, &count), LOGTK_OK);
        CHECK_STATUS(logtk_sink_write_template(s, id, text, count), LOGTK_OK);
    }
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    logtk_sink_free(s);
    size_t len = 0;
    char *got = slurp(path, &len);
    CHECK(got != NULL);
    /* Each row's last 16 characters before its LF are the key. */
    const char *row = got ? strchr(got, '\n') : NULL;
    uint32_t seen = 0;
    while (row && row + 1 < got + len) {
        row++;
        const char *end = memchr(row, '\n', (size_t)(got + len - row));
        CHECK(end != NULL && end - row > 17 && end[-17] == '\t');
        if (end == NULL || end - row <= 17)
            break;
        seen++;
        uint64_t key = 0;
        CHECK_STATUS(logtk_parser_template_key(p, seen, &key), LOGTK_OK);
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)key);
        CHECK_BYTES(end - 16, 16, hex);
        row = end;
    }
    CHECK(seen == n);
    free(got);
    logtk_parser_free(p);
}

TEST(test_csv)
{
    logtk_format *fmt = sink_format;
    size_t len = 0;
    char *got = write_kind("csv", tmp_path("out.csv"), fmt, &len);
    const char want[] =
        "LineId,Date,Level,Content,EventId,EventTemplate\n"
        "1,2024-01-02,INFO,user 42 logged in from 10.0.0.1,E1,user <*> logged in from <*>\n"
        "2,2024-01-02,WARN,\"say \"\"hi\"\",\tthen\\go\r\nend\ta\",E2,"
        "\"say \"\"hi\"\",\tthen\\go\r\nend<*>\"\n"
        "3,,,raw \xff line\x01,E3,raw <*> line\x01\n";
    CHECK(got != NULL);
    if (got)
        CHECK_BYTES(got, len, want);
    free(got);

    /* Read back with the library's own RFC 4180 reader when it is there. */
    logtk_csv *c = NULL;
    if (logtk_csv_new(&c) == LOGTK_OK && logtk_csv_open_path(c, tmp_path("out.csv")) == LOGTK_OK) {
        const logtk_slice *f;
        size_t nf;
        int rows = 0;
        while (logtk_csv_next(c, &f, &nf) == LOGTK_OK) {
            CHECK(nf == 6);
            if (rows == 2 && nf == 6)
                CHECK_BYTES(f[3].ptr, f[3].len, "say \"hi\",\tthen\\go\r\nend\ta");
            rows++;
        }
        CHECK(rows == 4);
    }
    logtk_csv_free(c);
}

TEST(test_jsonl)
{
    logtk_format *fmt = sink_format;
    size_t len = 0;
    char *got = write_kind("jsonl", tmp_path("out.jsonl"), fmt, &len);
    /* Row 3: 0xFF becomes U+FFFD and the exact bytes come back in base64
     * ("raw \xff line\x01" = cmF3IP8gbGluZQE=, "\xff" = /w==). */
    const char want[] =
        "{\"LineId\":1,\"Date\":\"2024-01-02\",\"Level\":\"INFO\","
        "\"Content\":\"user 42 logged in from 10.0.0.1\",\"EventId\":\"E1\","
        "\"EventTemplate\":\"user <*> logged in from <*>\",\"ParameterList\":[\"42\",\"10.0.0.1\"]}\n"
        "{\"LineId\":2,\"Date\":\"2024-01-02\",\"Level\":\"WARN\","
        "\"Content\":\"say \\\"hi\\\",\\tthen\\\\go\\r\\nend\\ta\",\"EventId\":\"E2\","
        "\"EventTemplate\":\"say \\\"hi\\\",\\tthen\\\\go\\r\\nend<*>\",\"ParameterList\":[\"\\ta\"]}\n"
        "{\"LineId\":3,\"Date\":\"\",\"Level\":\"\","
        "\"Content\":\"raw \xEF\xBF\xBD line\\u0001\",\"EventId\":\"E3\","
        "\"EventTemplate\":\"raw <*> line\\u0001\",\"ParameterList\":[\"\xEF\xBF\xBD\"],"
        "\"Content_base64\":\"cmF3IP8gbGluZQE=\",\"ParameterList_base64\":[\"/w==\"]}\n";
    CHECK(got != NULL);
    if (got) {
        CHECK_BYTES(got, len, want);
        CHECK(ltk_utf8_valid(got, len));
    }
    free(got);
}

static int sql_count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

TEST(test_sqlite)
{
    logtk_format *fmt = sink_format;
    size_t len = 0;
    const char *path = tmp_path("out.db");
    char *path_copy = strdup(path);
    free(write_kind("sqlite", path_copy, fmt, &len));
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path_copy, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sql_count(db, "SELECT count(*) FROM lines") == 3);
    CHECK(sql_count(db, "SELECT count(*) FROM parameters") == 4);
    CHECK(sql_count(db, "SELECT count(*) FROM templates") == 1);
    CHECK(sql_count(db, "SELECT count FROM templates WHERE template_id = 1") == 1);
    CHECK(sql_count(db, "SELECT count(*) FROM lines WHERE template_id = 2 AND Level = 'WARN'"
                        " AND content = 'say \"hi\",' || char(9) || 'then\\go' || char(13, 10)"
                        " || 'end' || char(9) || 'a'") == 1);
    /* unmatched line: header fields NULL; non-UTF-8 content stored as an exact BLOB */
    CHECK(sql_count(db, "SELECT count(*) FROM lines WHERE line_id = 3 AND Date IS NULL"
                        " AND typeof(content) = 'blob'"
                        " AND hex(content) = '72617720FF206C696E6501'") == 1);
    CHECK(sql_count(db, "SELECT position FROM parameters WHERE line_id = 1 AND value = '10.0.0.1'")
          == 2);
    CHECK(sql_count(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                        " AND name IN ('lines_by_template', 'parameters_by_value')") == 2);
    CHECK(sql_count(db, "SELECT count(*) FROM structured WHERE template IS NOT NULL") == 1);
    /* templates.key: the last column, 16 lowercase hex digits of FNV-1a 64 of the text */
    char key[17], sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM templates WHERE template_id = 1 AND key = '%s'"
             " AND typeof(key) = 'text'",
             fnv1a64_hex("user <*> logged in from <*>", 27, key));
    CHECK(sql_count(db, sql) == 1);
    CHECK(sql_count(db, "SELECT cid FROM pragma_table_info('templates') WHERE name = 'key'") == 3);
    CHECK(sql_count(db, "SELECT count(*) FROM pragma_table_info('templates')") == 4);
    sqlite3_close(db);
    free(path_copy);
}

/* A failed or abandoned run leaves the previous file untouched and no temporary behind. */
TEST(test_atomic)
{
    logtk_format *fmt = sink_format;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/atomic", tmpdir);
    mkdir(dir, 0700);
    char target[400];
    snprintf(target, sizeof target, "%s/good.tsv", dir);
    FILE *f = fopen(target, "w");
    fputs("good\n", f);
    fclose(f);
    const char *kinds[] = {"tsv", "csv", "jsonl", "sqlite"};
    for (int k = 0; k < 4; k++) {
        logtk_record recs[3];
        logtk_row rows[3];
        logtk_slice params[3][2];
        make_rows(recs, rows, params);
        logtk_sink *s = NULL;
        CHECK_STATUS(logtk_sink_new(&s, kinds[k], target, fmt), LOGTK_OK);
        CHECK_STATUS(logtk_sink_write(s, &rows[0]), LOGTK_OK);
        CHECK(count_dir_entries(dir) == 2); /* target + temporary */
        logtk_sink_free(s);                /* never closed: abandoned */
        size_t len = 0;
        char *got = slurp(target, &len);
        CHECK(got && len == 5 && memcmp(got, "good\n", 5) == 0);
        free(got);
        CHECK(count_dir_entries(dir) == 1);
    }
    /* and a successful close does replace it */
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, "csv", target, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_sink_close(s), LOGTK_OK);
    logtk_sink_free(s);
    size_t len = 0;
    char *got = slurp(target, &len);
    CHECK(got != NULL);
    if (got)
        CHECK_BYTES(got, len, "LineId,Content,EventId,EventTemplate\n");
    free(got);
    CHECK(count_dir_entries(dir) == 1);
}

TEST(test_errors)
{
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, "xml", tmp_path("x"), NULL), LOGTK_ERR_NOT_FOUND);
    CHECK(s != NULL);
    CHECK(strstr(logtk_sink_errmsg(s), "xml") != NULL);
    logtk_row row;
    memset(&row, 0, sizeof row);
    CHECK(logtk_sink_write(s, &row) < 0);
    CHECK(logtk_sink_close(s) < 0);
    logtk_sink_free(s);

    CHECK_STATUS(logtk_sink_new(&s, "sqlite", "-", NULL), LOGTK_ERR_INVALID);
    CHECK(strstr(logtk_sink_errmsg(s), "standard output") != NULL);
    logtk_sink_free(s);

    CHECK_STATUS(logtk_sink_new(&s, "tsv", "/nonexistent-dir-logtk/out.tsv", NULL), LOGTK_ERR_IO);
    CHECK(strstr(logtk_sink_errmsg(s), "/nonexistent-dir-logtk/out.tsv") != NULL);
    logtk_sink_free(s);

    /* /dev/full: the write error surfaces at close at the latest, naming the file */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_STATUS(logtk_sink_new(&s, "tsv", "/dev/full", NULL), LOGTK_OK);
        int rc = LOGTK_OK;
        logtk_record rec;
        memset(&rec, 0, sizeof rec);
        rec.content = sl("x");
        row.record = &rec;
        row.template_text = sl("x");
        for (int i = 0; i < 10000 && rc == LOGTK_OK; i++) {
            row.line_id = (uint64_t)i + 1;
            rc = logtk_sink_write(s, &row);
        }
        if (rc == LOGTK_OK)
            rc = logtk_sink_close(s);
        CHECK_STATUS(rc, LOGTK_ERR_IO);
        CHECK(strstr(logtk_sink_errmsg(s), "/dev/full") != NULL);
        CHECK(logtk_sink_close(s) == LOGTK_ERR_IO); /* the error is sticky */
        logtk_sink_free(s);
    }
    logtk_sink_free(NULL);
    CHECK(logtk_sink_kind_name(0) && strcmp(logtk_sink_kind_name(0), "tsv") == 0);
    CHECK(logtk_sink_kind_name(3) && strcmp(logtk_sink_kind_name(3), "sqlite") == 0);
    CHECK(logtk_sink_kind_name(4) && strcmp(logtk_sink_kind_name(4), "templates") == 0);
    CHECK(logtk_sink_kind_name(5) == NULL);
}

TEST(test_helpers)
{
    CHECK(ltk_utf8_valid("", 0));
    CHECK(ltk_utf8_valid("plain ascii text, longer than eight", 35));
    CHECK(ltk_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
    CHECK(!ltk_utf8_valid("\xc0\xaf", 2));         /* overlong '/' */
    CHECK(!ltk_utf8_valid("\xed\xa0\x80", 3));     /* surrogate U+D800 */
    CHECK(!ltk_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
    CHECK(!ltk_utf8_valid("\xe2\x82", 2));         /* truncated */
    CHECK(!ltk_utf8_valid("abcdefgh\x80", 9));     /* lone continuation after the fast path */
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        ltk_strbuf b = LTK_STRBUF_INIT;
        CHECK(ltk_base64_append(&b, in[i], strlen(in[i])) == 0);
        CHECK_BYTES(b.data ? b.data : "", b.len, out[i]);
        ltk_strbuf_free(&b);
    }
}

/* logtk_json_write_member: the jsonl sink's member convention for other writers. */
TEST(test_json_member)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_STATUS(logtk_json_write_member(f, "id", "a\"b\\c\n", 6), LOGTK_OK);
    fputc(',', f);
    CHECK_STATUS(logtk_json_write_member(f, "t", "x\xffy\x01", 4), LOGTK_OK);
    fputc(',', f);
    CHECK_STATUS(logtk_json_write_member(f, "u", "\xc3\xa9", 2), LOGTK_OK); /* valid UTF-8 stays */
    fclose(f);
    CHECK_BYTES(buf, len, "\"id\":\"a\\\"b\\\\c\\n\","
                          "\"t\":\"x\xef\xbf\xbdy\\u0001\",\"t_base64\":\"eP95AQ==\","
                          "\"u\":\"\xc3\xa9\"");
    free(buf);
}

/* logtk_json_write_string: a bare JSON value (array elements of the mmexternal
 * replies): escaped as a member's value, U+FFFD for a bad byte, no twin. */
TEST(test_json_string)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    fputc('[', f);
    CHECK_STATUS(logtk_json_write_string(f, "a\"b\\c\n", 6), LOGTK_OK);
    fputc(',', f);
    CHECK_STATUS(logtk_json_write_string(f, "x\xffy\x01", 4), LOGTK_OK);
    fputc(',', f);
    CHECK_STATUS(logtk_json_write_string(f, "", 0), LOGTK_OK);
    fputc(',', f);
    CHECK_STATUS(logtk_json_write_string(f, "0123456789abcdef\xc3\xa9", 18), LOGTK_OK);
    fputc(']', f);
    fclose(f);
    CHECK_BYTES(buf, len, "[\"a\\\"b\\\\c\\n\",\"x\xef\xbf\xbdy\\u0001\",\"\","
                          "\"0123456789abcdef\xc3\xa9\"]");
    free(buf);
}

/* logtk_tsv_write_field: the tsv sink's escaping for other writers; long
 * clean runs and a special byte at every position of a word. */
TEST(test_tsv_field)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_STATUS(logtk_tsv_write_field(f, "a\tb\\c\nd\re\xff\x01" "f", 12), LOGTK_OK);
    fputc('|', f);
    CHECK_STATUS(logtk_tsv_write_field(f, "0123456789abcdef\t", 17), LOGTK_OK);
    fputc('|', f);
    CHECK_STATUS(logtk_tsv_write_field(f, "", 0), LOGTK_OK);
    fclose(f);
    CHECK_BYTES(buf, len, "a\\tb\\\\c\\nd\\re\xff\x01" "f|0123456789abcdef\\t|");
    free(buf);
}

TEST_SETUP()
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_sink.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_STATUS(logtk_format_new(&sink_format), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(sink_format, "<Date> <Level>: <Content>"), LOGTK_OK);
    CHECK(logtk_format_field_count(sink_format) == 2);
    return 0;
}

TEST_TEARDOWN()
{
    logtk_format_free(sink_format);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}
