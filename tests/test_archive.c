/*
 * test_archive.c - lossless archives: exact round trips, damage, search, random access.
 *
 * Round trips run over generated hostile inputs (CRLF/LF mix, no final
 * newline, NUL, invalid UTF-8, marker bytes 0x01-0x05, very long lines,
 * random binary, numbers at the 64-bit edge, "-0", leading zeros) with
 * several block sizes and thread counts, and over all 16 Loghub-2k
 * original/ files when LOGTK_LOGHUB is set.  Damage tests flip bytes in
 * one block and check that every other block still comes back and that the
 * damaged range is reported.  Search tests compare logtk_grep with a plain
 * per-line search over the original text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_search.h"
#include "logtk.h"
#include "membuf.h"
#include "test_harness.h"

/* Compresses in chunks of `chunk` bytes. */
static int compress_mem(const char *in, size_t len, size_t chunk, const char *block_lines,
                        const char *threads, const char *level, membuf *out)
{
    logtk_archive_writer *w = NULL;
    int rc = logtk_archive_writer_new(&w);
    if (rc == LOGTK_OK && block_lines)
        rc = logtk_archive_writer_set_option(w, "block_lines", block_lines);
    if (rc == LOGTK_OK && threads)
        rc = logtk_archive_writer_set_option(w, "threads", threads);
    if (rc == LOGTK_OK && level)
        rc = logtk_archive_writer_set_option(w, "level", level);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_open_callback(w, mem_write, out);
    for (size_t off = 0; rc == LOGTK_OK && off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        rc = logtk_archive_writer_write(w, in + off, n);
    }
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_close(w);
    if (rc != LOGTK_OK)
        fprintf(stderr, "compress: %s\n", logtk_archive_writer_errmsg(w));
    logtk_archive_writer_free(w);
    return rc;
}

/* Decompresses; returns the number of damaged blocks or -1 on a fatal error. */
static int decompress_mem(const char *arc, size_t len, membuf *out)
{
    logtk_archive_reader *r = NULL;
    int damaged = 0;
    if (logtk_archive_reader_new(&r) != LOGTK_OK ||
        logtk_archive_reader_open_memory(r, arc, len, "mem") != LOGTK_OK) {
        logtk_archive_reader_free(r);
        return -1;
    }
    logtk_archive_block b;
    for (;;) {
        int rc = logtk_archive_reader_next(r, &b);
        if (rc == LOGTK_DONE)
            break;
        if (rc == LOGTK_ERR_ARCHIVE) {
            damaged++;
            continue;
        }
        if (rc != LOGTK_OK) {
            damaged = -1;
            break;
        }
        mem_write(out, b.text.ptr, b.text.len);
    }
    logtk_archive_reader_free(r);
    return damaged;
}

static int roundtrip(const char *in, size_t len, size_t chunk, const char *block_lines,
                     const char *threads)
{
    membuf arc = {0}, back = {0};
    int ok = compress_mem(in, len, chunk, block_lines, threads, NULL, &arc) == LOGTK_OK &&
             decompress_mem(arc.data, arc.len, &back) == 0 && back.len == len &&
             (len == 0 || memcmp(back.data, in, len) == 0);
    free(arc.data);
    free(back.data);
    return ok;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static void xorshift64(uint64_t *x);
static uint64_t rnd(void)
{
    xorshift64(&rng_state);
    return rng_state;
}

TEST(test_hostile)
{
    static const char *const cases[] = {
        "",
        "\n",
        "\r\n",
        "no newline at the end",
        "a\nb\r\nc\rd\n\r\n\n",
        "081109 203615 148 INFO blk_-0 blk_0 blk_-00 blk_007 x-1 a--5 -0 00 0\n",
        "18446744073709551615 9999999999999999999 99999999999999999999 123456789012345678901234\n",
        "-9223372036854775808 -9999999999999999999 0x 0x0 0xFFff 0xg1 deadbeef12 12-ab-cd-34-ef56\n",
        "\x01\x02\x03\x04\x05 marker bytes \x05\x05 7\x01 8\n",
        "tab\there  two  spaces   three\t\t\n\n\n",
        "uuid 38101a0b-2096-447d-96ea-a692162415ae req-38101a0b-2096-447d-96ea-a692162415ae-\n",
        "ends with cr\r",
        "1.2.3.4:5 10.0.0.255 ::1 fe80::1%eth0 2015-10-18T18:01:47.978Z\n",
        /* IP and hex variables (format version 3) and their near misses */
        "0.0.0.0 255.255.255.255 256.1.1.1 01.2.3.4 1.2.3.4.5 1.2.3 1.2.3.4:80 /10.251.43.115:50010\n",
        "0x 0xABCdef DEADBEEF1 0123456789abcdef0 ffff 0x0000ff 0X00FF a3f9 AB12cd ab12CD 0x12345678901234567\n",
        "1.2.3.4. .1.2.3.4 -1.2.3.4 1.2.3.04 999.1.1.1 1..2.3 0.0.0.0.0 v1.2.3.4 a1.2.3.4 ffffffffffff0 0xfffffffffff\n",
        "\x06\x07 markers of version 3 \x06 7\x07 \x04.1\n",
        /* dotted quads that are no canonical address: packed IP values */
        "10.957.43.015 000.000.000.000 999.999.999.999 0.0.0.00 1.22.333.4 256.256.256.256 09.8.7.6.\n",
        "/010.251.43.115:1 10.251.43.115 1.2.3.4 01.02.03.04 1.2.3.4567 1234.1.1.1 9.9.9.9.09 255.255.255.256\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i]);
        CHECK(roundtrip(cases[i], n, 1, NULL, NULL));
        CHECK(roundtrip(cases[i], n, 7, "1", "2"));
        CHECK(roundtrip(cases[i], n, 4096, "2", "3"));
    }
    /* NUL bytes and invalid UTF-8 */
    const char nul[] = "a\0b\0\0c 12\0 34\n\xff\xfe\xc3\x28 \xe2\x82 99\n\0";
    CHECK(roundtrip(nul, sizeof nul - 1, 3, NULL, NULL));
    CHECK(roundtrip(nul, sizeof nul - 1, 3, "1", "2"));

    /* random binary, several sizes and chunkings */
    for (int round = 0; round < 20; round++) {
        size_t n = (size_t)(rnd() % 20000);
        char *b = malloc(n + 1);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = rnd();
            /* mostly printable with digits, some newlines and binary */
            b[i] = (x % 7 == 0) ? '\n' : (x % 5 == 0) ? (char)('0' + x % 10) : (char)(x >> 8);
        }
        CHECK(roundtrip(b, n, 1 + rnd() % 5000, round % 2 ? "3" : NULL, round % 3 ? "2" : "1"));
        free(b);
    }

    /* a very long line (3 MiB) between short ones, and a block byte limit */
    size_t big = (size_t)3 << 20;
    char *b = malloc(big + 64);
    memcpy(b, "start 1\n", 8);
    for (size_t i = 8; i < big; i++)
        b[i] = (char)('a' + i % 26);
    memcpy(b + big, "\nend 2\n", 7);
    CHECK(roundtrip(b, big + 7, 65536, NULL, "2"));
    free(b);
}

/* The damaged block is reported with its range; every other block comes back. */
TEST(test_damage)
{
    membuf text = {0}, arc = {0};
    char line[128];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(line, sizeof line, "2024-01-01 12:00:%02d host%d service[%d]: event %d ok\n",
                         i % 60, i % 7, 1000 + i, i * 37);
        mem_write(&text, line, (size_t)n);
    }
    CHECK(compress_mem(text.data, text.len, 1 << 20, "100", NULL, NULL, &arc) == LOGTK_OK);

    /* find block 4 (lines 401-500) and flip a byte in its payload */
    logtk_archive_reader *r = NULL;
    CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
    CHECK(logtk_archive_reader_open_memory(r, arc.data, arc.len, "mem") == LOGTK_OK);
    uint64_t lines, blocks, raw;
    CHECK(logtk_archive_reader_totals(r, &lines, &blocks, &raw) == LOGTK_OK);
    CHECK(lines == 1000);
    CHECK(blocks == 10);
    CHECK(raw == text.len);
    logtk_archive_reader_free(r);

    size_t pos = 0;
    int found = 0;
    for (size_t i = 0; i + 4 <= arc.len; i++)
        if (memcmp(arc.data + i, "LTKB", 4) == 0 && found++ == 4) {
            pos = i;
            break;
        }
    CHECK(pos > 0);
    for (int variant = 0; variant < 3; variant++) {
        membuf bad = {0}, back = {0};
        mem_write(&bad, arc.data, arc.len);
        if (variant == 0)
            bad.data[pos + 40] ^= 0x55; /* payload */
        else if (variant == 1)
            bad.data[pos + 5] ^= 0x55; /* header */
        else
            memset(bad.data + pos, 0, 40); /* both */
        CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
        CHECK(logtk_archive_reader_open_memory(r, bad.data, bad.len, "mem") == LOGTK_OK);
        logtk_archive_block blk;
        int ndamaged = 0;
        uint64_t dfirst = 0, dn = 0;
        int rc;
        while ((rc = logtk_archive_reader_next(r, &blk)) != LOGTK_DONE) {
            if (rc == LOGTK_ERR_ARCHIVE) {
                ndamaged++;
                dfirst = blk.first_line;
                dn = blk.nlines;
                CHECK(strstr(logtk_archive_reader_errmsg(r), "lines 401-500") != NULL);
                continue;
            }
            CHECK(rc == LOGTK_OK);
            if (rc != LOGTK_OK)
                break;
            mem_write(&back, blk.text.ptr, blk.text.len);
        }
        CHECK(ndamaged == 1);
        CHECK(dfirst == 401 && dn == 100);
        /* everything but lines 401-500 */
        const char *p = text.data;
        size_t cut1 = 0, cut2 = 0;
        int ln = 0;
        for (size_t i = 0; i < text.len; i++)
            if (p[i] == '\n') {
                ln++;
                if (ln == 400)
                    cut1 = i + 1;
                if (ln == 500)
                    cut2 = i + 1;
            }
        CHECK(back.len == text.len - (cut2 - cut1));
        CHECK(back.len >= cut1 && memcmp(back.data, p, cut1) == 0);
        CHECK(back.len == text.len - (cut2 - cut1) &&
              memcmp(back.data + cut1, p + cut2, text.len - cut2) == 0);
        logtk_archive_reader_free(r);
        /* grep, serial and threaded: the intact blocks' lines, the damage reported once */
        for (int threads = 1; threads <= 3; threads += 2) {
            logtk_grep *g = NULL;
            CHECK(logtk_grep_new(&g, "ok", LOGTK_GREP_FIXED) == LOGTK_OK);
            logtk_grep_set_threads(g, threads);
            CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
            CHECK(logtk_archive_reader_open_memory(r, bad.data, bad.len, "mem") == LOGTK_OK);
            membuf hits = {0};
            uint64_t count = 0;
            int gdamaged = 0;
            while ((rc = logtk_grep_next_block(g, r, &blk, mem_write, &hits, &count)) != LOGTK_DONE) {
                if (rc == LOGTK_ERR_ARCHIVE) {
                    gdamaged++;
                    CHECK(strstr(logtk_grep_errmsg(g), "lines 401-500") != NULL);
                    continue;
                }
                CHECK(rc == LOGTK_OK);
                if (rc != LOGTK_OK)
                    break;
            }
            CHECK(gdamaged == 1);
            CHECK(count == 900);
            CHECK(hits.len == back.len && memcmp(hits.data, back.data, back.len) == 0);
            logtk_archive_reader_free(r);
            logtk_grep_free(g);
            free(hits.data);
        }
        free(bad.data);
        free(back.data);
    }

    /* truncated archive: blocks before the cut come back, the rest is reported */
    {
        membuf back = {0};
        int d = decompress_mem(arc.data, pos + 10, &back);
        CHECK(d >= 1);
        CHECK(back.len > 0 && memcmp(back.data, text.data, back.len) == 0);
        free(back.data);
    }
    /* an archive of another format version is refused by name */
    {
        membuf old = {0};
        mem_write(&old, arc.data, arc.len);
        old.data[4] = 1;
        CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_open_memory(r, old.data, old.len, "old"), LOGTK_ERR_ARCHIVE);
        CHECK(strstr(logtk_archive_reader_errmsg(r), "version 1") != NULL);
        logtk_archive_reader_free(r);
        /* version 2 had no IP and hex variables and escaped only bytes 1..5: refused too */
        old.data[4] = 2;
        CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_open_memory(r, old.data, old.len, "old"), LOGTK_ERR_ARCHIVE);
        CHECK(strstr(logtk_archive_reader_errmsg(r), "version 2") != NULL);
        logtk_archive_reader_free(r);
        free(old.data);
    }
    /* not an archive */
    CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
    CHECK_STATUS(logtk_archive_reader_open_memory(r, "hello world\n", 12, "x"), LOGTK_ERR_ARCHIVE);
    logtk_archive_reader_free(r);

    /* random access */
    CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
    CHECK(logtk_archive_reader_open_memory(r, arc.data, arc.len, "mem") == LOGTK_OK);
    CHECK(logtk_archive_reader_seek_line(r, 777) == LOGTK_OK);
    logtk_archive_block blk;
    CHECK(logtk_archive_reader_next(r, &blk) == LOGTK_OK);
    CHECK(blk.first_line == 701 && blk.nlines == 100);
    CHECK(blk.text.len > 0 && strstr(text.data, "event 0 ok") != NULL);
    CHECK(logtk_archive_reader_seek_line(r, 1001) == LOGTK_DONE);
    logtk_archive_reader_free(r);
    free(text.data);
    free(arc.data);
}

/* The next state of a xorshift64 generator (Marsaglia's 13, 7, 17): test data that is the same on every run. */
static void xorshift64(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
}

/* Reference: per-line search over the original text. */
static uint64_t reference_grep(const char *text, size_t len, logtk_grep *g, membuf *out)
{
    uint64_t n = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl + 1 : end;
        if (ltk_grep_line(g, p, (size_t)((nl ? nl : end) - p)) == 1) {
            n++;
            mem_write(out, p, (size_t)(le - p));
            if (!nl)
                mem_write(out, "\n", 1); /* grep ends a last line without one with '\n' */
        }
        p = le;
    }
    return n;
}

/*
 * Lines of text holding the fixed string pat, by the per-line reference: a
 * test checks its planted lines are there, so the searches it compares are
 * not vacuous.
 */
static uint64_t planted_lines(const char *text, size_t len, const char *pat)
{
    logtk_grep *g = NULL;
    membuf want = {0};
    uint64_t n = 0;
    if (logtk_grep_new(&g, pat, LOGTK_GREP_FIXED) == LOGTK_OK)
        n = reference_grep(text, len, g, &want);
    logtk_grep_free(g);
    free(want.data);
    return n;
}

static void check_grep_threads(const char *text, size_t len, const membuf *arc, const char *pat,
                               int flags, int threads)
{
    logtk_grep *g = NULL;
    CHECK(logtk_grep_new(&g, pat, flags) == LOGTK_OK);
    CHECK(logtk_grep_set_threads(g, threads) == LOGTK_OK);
    membuf want = {0}, got = {0};
    uint64_t nwant = reference_grep(text, len, g, &want), ngot = 0;
    logtk_archive_reader *r = NULL;
    CHECK(logtk_archive_reader_new(&r) == LOGTK_OK);
    CHECK(logtk_archive_reader_open_memory(r, arc->data, arc->len, "mem") == LOGTK_OK);
    logtk_archive_block b;
    int rc;
    while ((rc = logtk_grep_next_block(g, r, &b, mem_write, &got, &ngot)) == LOGTK_OK)
        ;
    CHECK(rc == LOGTK_DONE);
    CHECK(ngot == nwant);
    CHECK(got.len == want.len && (want.len == 0 || memcmp(got.data, want.data, want.len) == 0));
    if (ngot != nwant)
        fprintf(stderr, "  pattern '%s' flags %d threads %d: %llu vs %llu\n", pat, flags, threads,
                (unsigned long long)ngot, (unsigned long long)nwant);
    /* counting only (grep -c) counts some lines without rebuilding them: the same count */
    uint64_t ncount = 0;
    CHECK(logtk_archive_reader_open_memory(r, arc->data, arc->len, "mem") == LOGTK_OK);
    while ((rc = logtk_grep_next_block(g, r, &b, NULL, NULL, &ncount)) == LOGTK_OK)
        ;
    CHECK(rc == LOGTK_DONE);
    CHECK(ncount == nwant);
    if (ncount != nwant)
        fprintf(stderr, "  pattern '%s' flags %d threads %d, count only: %llu vs %llu\n", pat, flags,
                threads, (unsigned long long)ncount, (unsigned long long)nwant);
    logtk_archive_reader_free(r);
    logtk_grep_free(g);
    free(want.data);
    free(got.data);
}

/* Serial and with worker threads: both must equal the line-by-line reference. */
static void check_grep(const char *text, size_t len, const membuf *arc, const char *pat, int flags)
{
    check_grep_threads(text, len, arc, pat, flags, 1);
    check_grep_threads(text, len, arc, pat, flags, 3);
}

static void test_grep(const char *text, size_t len)
{
    membuf arc = {0};
    CHECK(compress_mem(text, len, 1 << 16, "500", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {"blk_-1", "ERROR", "error", "0.0.1", "1:5", "-", "", " 2",
                                       "12:0", "x-1", "a--5", "3f2", "Exception", "\r"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text, len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text, len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
        check_grep(text, len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
    }
    check_grep(text, len, &arc, "blk_-?[0-9]{3}\\b", 0);
    check_grep(text, len, &arc, "^[0-9]+ ", LOGTK_GREP_INVERT);
    check_grep(text, len, &arc, "info|warn", LOGTK_GREP_ICASE);
    /*
     * Regular expressions whose required text prunes templates: optional
     * characters, groups, classes and escapes must not end up in a piece.
     */
    static const char *const regexes[] = {
        "blk_-?1",          "block ?[0-9]+ ",  "ab?c",           "colou?r",      "Receiv(ing|ed) ",
        "[Ee]rror: ",       "\\.java",       "x*yz",           "a+b",          "[]a]bc",
        "(?i)INFO",         "\\d+\\.\\d+", "foo.*bar",       "^[0-9]+ [0-9]+", "1:5",
        "0\\.0\\.1",    "e{2}",            "[[:digit:]]+ms", "\\Qa.b\\E", "s$"};
    for (size_t i = 0; i < sizeof regexes / sizeof regexes[0]; i++) {
        check_grep(text, len, &arc, regexes[i], 0);
        check_grep(text, len, &arc, regexes[i], LOGTK_GREP_ICASE);
        check_grep(text, len, &arc, regexes[i], LOGTK_GREP_INVERT);
    }
    logtk_grep *g = NULL;
    CHECK_STATUS(logtk_grep_new(&g, "a(b", 0), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_grep_errmsg(g), "a(b") != NULL);
    logtk_grep_free(g);
    free(arc.data);
}

/* A selected last line without a newline is printed with one, as
 * `decompress | grep` prints it, so several archives' lines do not run together. */
TEST(test_grep_last_line_without_newline)
{
    static const char *const texts[] = {"a\nb", "a\nb\r", "b", "a\r\nb\r\nab"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        membuf arc = {0};
        size_t len = strlen(texts[i]);
        CHECK(compress_mem(texts[i], len, 1 << 16, "500", NULL, NULL, &arc) == LOGTK_OK);
        check_grep(texts[i], len, &arc, "b", LOGTK_GREP_FIXED);
        check_grep(texts[i], len, &arc, "b", 0);
        check_grep(texts[i], len, &arc, "x", LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
        free(arc.data);
    }
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

TEST(test_loghub)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (!dir) {
        printf("skipped: LOGTK_LOGHUB not set (Loghub round trips)\n");
        return;
    }
    static const char *const names[] = {"Android", "Apache", "BGL", "HDFS", "HPC", "Hadoop",
                                        "HealthApp", "Linux", "Mac", "OpenSSH", "OpenStack",
                                        "Proxifier", "Spark", "Thunderbird", "Windows", "Zookeeper"};
    for (size_t i = 0; i < 16; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/original/%s_2k.log", dir, names[i], names[i]);
        size_t len;
        char *text = read_file(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        CHECK(roundtrip(text, len, 65536, NULL, NULL));
        CHECK(roundtrip(text, len, 1000, "300", "2"));
        membuf arc = {0};
        CHECK(compress_mem(text, len, 1 << 20, NULL, NULL, "19", &arc) == LOGTK_OK);
        /* the archive must be smaller than a tenth of... at least 4x smaller than the text */
        CHECK(arc.len * 4 < len);
        free(arc.data);
        if (i == 3 || i == 8 || i == 13)
            test_grep(text, len);
        free(text);
    }
}

TEST(test_writer_options)
{
    logtk_archive_writer *w = NULL;
    CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "level", "99"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "threads", "0"), LOGTK_ERR_INVALID);
    /* sizes are plain decimal: no sign, no space, no overflow */
    CHECK_STATUS(logtk_archive_writer_set_option(w, "threads", " 2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "threads", "+2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "block_lines", "99999999999999999999"),
                 LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "threads", "2"), LOGTK_OK);
    CHECK_STATUS(logtk_archive_writer_set_option(w, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_archive_writer_write(w, "x", 1), LOGTK_ERR_INVALID);
    logtk_archive_writer_free(w);
    logtk_archive_writer_free(NULL);
    logtk_archive_reader_free(NULL);
    logtk_grep_free(NULL);

    /* thread count does not change the archive */
    membuf a = {0}, b = {0};
    membuf text = {0};
    char line[64];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(line, sizeof line, "line %d value %d\n", i, i * i);
        mem_write(&text, line, (size_t)n);
    }
    CHECK(compress_mem(text.data, text.len, 999, "700", "1", NULL, &a) == LOGTK_OK);
    CHECK(compress_mem(text.data, text.len, 999, "700", "3", NULL, &b) == LOGTK_OK);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    test_grep(text.data, text.len);
    test_grep_last_line_without_newline();
    free(a.data);
    free(b.data);
    free(text.data);
}

/*
 * Rare lines in big blocks: search finds the templates and ranks of its
 * candidate lines without reading every unit's (histograms with checkpoints
 * every 2048 lines, counted from there).  Lines here have headers of several
 * templates, more than 256 templates per block (two-byte ids), numbers whose
 * values depend on the right ranks, and rare lines before, at and after
 * checkpoint boundaries; every search must equal the plain one.
 */
/* Templates of the first block of an archive in memory (0 on error). */
static uint32_t first_block_templates(const membuf *arc)
{
    logtk_archive_reader *r = NULL;
    logtk_archive_block b;
    uint32_t n = 0;
    if (logtk_archive_reader_new(&r) == LOGTK_OK &&
        logtk_archive_reader_open_memory(r, arc->data, arc->len, "mem") == LOGTK_OK &&
        logtk_archive_reader_next(r, &b) == LOGTK_OK)
        n = b.templates;
    logtk_archive_reader_free(r);
    return n;
}

/*
 * A template with more than 16384 lines in a block is written as groups of
 * its lines, each a template (and numbers chunk) of its own, so that a rare
 * line's values come from a small chunk.  The same lines, 40000 instead of
 * 16000 of them, must give at least two more templates in the block, round
 * trip exactly, and search (rare lines in every group, numbers of the big
 * template) must equal the plain search.
 */
TEST(test_grep_template_groups)
{
    membuf small = {0}, big = {0};
    char line[160];
    for (int i = 0; i < 40000; i++) {
        int n;
        if (i % 9001 == 17)
            n = snprintf(line, sizeof line, "%d raremark disk %d failed at %d\n", 1000 + i, i % 13, i * 3);
        else
            n = snprintf(line, sizeof line, "%d job %d took %dms from 10.%d.%d.%d\n", 1000 + i, i,
                         (i * 31) % 1000, i % 256, (i / 7) % 256, (i * 13) % 256);
        mem_write(&big, line, (size_t)n);
        if (i < 16000)
            mem_write(&small, line, (size_t)n);
    }
    membuf arc_small = {0}, arc_big = {0};
    CHECK(compress_mem(small.data, small.len, 1 << 16, "50000", NULL, NULL, &arc_small) == LOGTK_OK);
    CHECK(compress_mem(big.data, big.len, 1 << 16, "50000", NULL, NULL, &arc_big) == LOGTK_OK);
    uint32_t t_small = first_block_templates(&arc_small), t_big = first_block_templates(&arc_big);
    CHECK(t_small > 0 && t_big >= t_small + 2);
    CHECK(roundtrip(big.data, big.len, 1 << 16, "50000", NULL));
    CHECK(roundtrip(big.data, big.len, 1 << 16, "50000", "2"));
    static const char *const pats[] = {"raremark", "failed at 108", "job 39999 ", "10.3.2", "took 5ms",
                                       "37018 raremark"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        check_grep(big.data, big.len, &arc_big, pats[i], LOGTK_GREP_FIXED);
    check_grep(big.data, big.len, &arc_big, "job 2[0-9]{4} took", 0);
    free(arc_small.data);
    free(arc_big.data);
    free(small.data);
    free(big.data);
}

TEST(test_grep_rare_lines)
{
    membuf text = {0};
    char line[160];
    static const char *const levels[] = {"INFO", "WARN", "DEBUG"};
    for (int i = 0; i < 12000; i++) {
        int n;
        const char *lvl = levels[(i / 7) % 3];
        if (i == 0 || i == 2047 || i == 2048 || i == 4100 || i == 8191 || i == 11999 || i % 2999 == 5)
            n = snprintf(line, sizeof line, "2024-01-%02d %02d:%02d:%02d %s raremark disk %d failed at %d\n",
                         1 + i % 28, i % 24, i % 60, (i * 7) % 60, lvl, i % 13, i * 3);
        else if (i % 3 == 0)
            n = snprintf(line, sizeof line, "24/01/%02d %d %s kind%c%c event %d value %d\n", 1 + i % 28,
                         i, lvl, 'a' + i % 20, 'a' + i / 20 % 20, i % 97, i * i % 100003);
        else
            n = snprintf(line, sizeof line, "2024-01-%02d %02d:%02d:%02d %s kind%c%c job %d took %dms\n",
                         1 + i % 28, i % 24, i % 60, i % 60, lvl, 'a' + i % 19, 'a' + i / 19 % 19, i, (i * 31) % 1000);
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 16, "20000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {"raremark", "raremark disk 7", "failed at 24", "kindbc job",
                                       "kindtt event", "01-05 ", "WARN raremark"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "raremark disk [0-9]+ failed at 6", 0);
    check_grep(text.data, text.len, &arc, "raremark", LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
    /* the plain search finds what it must: the 6 listed lines + 4 of i % 2999 == 5 */
    membuf want = {0};
    logtk_grep *g = NULL;
    CHECK(logtk_grep_new(&g, "raremark", LOGTK_GREP_FIXED) == LOGTK_OK);
    CHECK(reference_grep(text.data, text.len, g, &want) == 10);
    logtk_grep_free(g);
    free(want.data);
    free(arc.data);
    free(text.data);
}

/*
 * One big block whose search decodes a little of everything: numbers with
 * leading zeros of their own (a zero-padding stream longer than one zstd
 * block, read only as far as needed), long varints (random 64-bit ids, large
 * delta-coded counters), string variables, and rare lines of a few templates
 * in upper and lower case (a case-sensitive search must not take the other
 * case's lines; grep -c counts lines whose template holds the pattern
 * without rebuilding them).  Every search must equal the plain one.
 */
TEST(test_grep_sparse_columns)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 70000; i++) {
        xorshift64(&x);
        unsigned zeros = (unsigned)(x >> 60) % 3, zeros2 = (unsigned)(x >> 56) % 3;
        int n;
        if (i % 2311 == 17)
            n = snprintf(line, sizeof line, "- %llu %0*u tbird-admin%u Vendor: MegaRAID Model: LD %u RAID%u %uG\n",
                         1131566461000000000ull + (unsigned long long)i * 977, (int)(zeros + 2),
                         (unsigned)(x % 97), i % 7, (unsigned)(x >> 8) % 9, i % 3, (unsigned)(x >> 20) % 500);
        else if (i % 2311 == 1000)
            n = snprintf(line, sizeof line, "- %llu %0*u tbird-admin%u megaraid cmm: %u-rh%u (Release Date: %x)\n",
                         1131566461000000000ull + (unsigned long long)i * 977, (int)(zeros + 2),
                         (unsigned)(x % 97), i % 7, (unsigned)(x >> 9) % 9, i % 4, (unsigned)(x >> 30));
        else if (i % 5 == 0)
            n = snprintf(line, sizeof line, "%0*u %06u %u INFO dfs.DataNode: Received block blk_%lld of size %llu from /10.%u.%u.%u\n",
                         (int)(zeros + 4), (unsigned)(x % 10000), (unsigned)(x >> 12) % 1000000,
                         (unsigned)(x >> 40) % 999, (long long)x, (unsigned long long)(x >> 17),
                         (unsigned)(x >> 24) % 256, (unsigned)(x >> 32) % 256, (unsigned)(x >> 48) % 256);
        else
            n = snprintf(line, sizeof line, "%0*u %06u %u INFO dfs.FSNamesystem: BLOCK* addStoredBlock: %0*u.%u.%u.%u:%u is added to blk_%lld size %llu\n",
                         (int)(zeros + 4), (unsigned)(x % 10000), (unsigned)(x >> 12) % 1000000,
                         (unsigned)(x >> 40) % 999, (int)(zeros2 + 2), (unsigned)(x >> 3) % 100,
                         (unsigned)(x >> 24) % 256, (unsigned)(x >> 32) % 256, (unsigned)(x >> 48) % 256,
                         (unsigned)(x >> 5) % 65536, (long long)(x * 2654435761u), (unsigned long long)(x >> 29));
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "70000", NULL, NULL, &arc) == LOGTK_OK);
    /* and digits between non-digits (".25."): a unit needs a variable written as exactly those */
    static const char *const pats[] = {"MegaRAID", "megaraid", "Vendor: MegaRAID Model", "RAID2 1",
                                       "tbird-admin3 Vendor", "Release Date: a", "cmm: 7-rh3",
                                       ".25.", "/10.1", "0.7.", "/10.25.", " 042 ", ".00.", "size 7 "};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "MegaRAID Model: LD [0-4] ", 0);
    check_grep(text.data, text.len, &arc, "megaraid", LOGTK_GREP_ICASE);
    check_grep(text.data, text.len, &arc, "^- 11315664610[0-9]+ 00", 0);
    /* the upper-case template's lines only, and both with -i */
    membuf want = {0};
    logtk_grep *g = NULL;
    CHECK(logtk_grep_new(&g, "MegaRAID", LOGTK_GREP_FIXED) == LOGTK_OK);
    CHECK(reference_grep(text.data, text.len, g, &want) == 31);
    logtk_grep_free(g);
    want.len = 0;
    CHECK(logtk_grep_new(&g, "megaraid", LOGTK_GREP_FIXED | LOGTK_GREP_ICASE) == LOGTK_OK);
    CHECK(reference_grep(text.data, text.len, g, &want) == 61);
    logtk_grep_free(g);
    free(want.data);
    free(arc.data);
    free(text.data);
}

/*
 * Number tests (archive_search.c): a piece laid over a template's text and
 * numeric variables tests the variables' columns straight from the numbers
 * stream (exact, ends with, starts with) before any unit is rebuilt.  Lines
 * with two addresses (two alignments), numbers with leading zeros of their
 * own, negative numbers (a sign inside the piece), hex ids (string
 * variables: no test), a delta-coded counter, and pieces that span template
 * text and a variable, or lie inside one number.  Every search must equal
 * the plain one, and the planted lines must be found.
 */
/*
 * Patterns with blanks ("phrases"): templates that hold both words but not
 * the phrase are dropped before anything is decoded, so every way a phrase
 * can lie in a line must still be found - across header parts (the first
 * tokens are units of their own), with a variable right before or after a
 * blank, with two blanks or a tab in a row, with leading and trailing
 * blanks in the pattern, ignoring case, and inside regular expressions.
 */
TEST(test_grep_phrases)
{
    membuf text = {0};
    char line[200];
    for (int i = 0; i < 30000; i++) {
        int n;
        unsigned ts = 1117838570u + (unsigned)i;
        switch (i % 7) {
        case 0: /* the words of "ciod: failed", far apart (the decoy) */
            n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS KERNEL INFO ciod: LOGIN chdir(/p/%d) failed: No such file\n",
                         ts, i % 64, i % 1000);
            break;
        case 1: /* the phrase, rare */
            if (i % 991 == 1)
                n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS KERNEL INFO ciod: failed to read message prefix %d.%d.%d.%d:%d\n",
                             ts, i % 64, 172, 16, i % 256, 7, 30000 + i % 1000);
            else
                n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS KERNEL INFO ciod: generated %d core files\n",
                             ts, i % 64, i % 50);
            break;
        case 2: /* numbers next to blanks, two blanks and a tab */
            n = snprintf(line, sizeof line, "%u  node-%d port %d  closed\tafter %dms\n", ts, i % 9, 50000 + i % 20,
                         i % 300);
            break;
        case 3: /* the words in the other order, and mixed case */
            n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS KERNEL %s failed ciod: retry %d\n", ts, i % 64,
                         (i / 7) % 2 ? "INFO" : "info", i % 5);
            break;
        case 4: /* the phrase spans the header parts: "KERNEL FATAL" */
            n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS KERNEL %s data TLB error interrupt\n", ts, i % 64,
                         i % 700 == 4 ? "FATAL" : "INFO");
            break;
        case 5:
            n = snprintf(line, sizeof line, "- %u R%02d-M1 RAS APP FATAL ciod:Failed  to  start %d\n", ts, i % 64, i);
            break;
        default:
            n = snprintf(line, sizeof line, "%u\tINFO\t job %d done\n", ts, i);
            break;
        }
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 16, "10000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {
        "ciod: failed", "ciod: failed to", "INFO ciod: failed", "KERNEL FATAL", "KERNEL FATAL data",
        "RAS KERNEL INFO ciod:", "M1 RAS", "0 R1", "70 R", " ciod: failed", "ciod: failed ", " ciod: ",
        "port 50010  closed", "port 50010 closed", "0  closed", "closed\tafter 1", "10  c", "node-3 port",
        "  node-", "ciod:Failed  to", "ciod:Failed to", "failed  to", "INFO\t job 6", "\tINFO\t",
        "failed ciod: retry 3", "info failed", "- 1117838571 R", "prefix 172.16.", "16.9.7:3", "a b"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "ciod: failed", LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
    static const char *const regexes[] = {"ciod: failed to [a-z]+", "KERNEL FATAL\\b", "port [0-9]+  closed",
                                          "ciod: f?ailed", "^- [0-9]+ R0", "ciod: failed\r?$"};
    for (size_t i = 0; i < sizeof regexes / sizeof regexes[0]; i++) {
        check_grep(text.data, text.len, &arc, regexes[i], 0);
        check_grep(text.data, text.len, &arc, regexes[i], LOGTK_GREP_ICASE);
    }
    /* the phrases are there to be found, and their words alone are on many more lines */
    static const struct {
        const char *pat;
        int flags;
        uint64_t lo, hi;
    } found[] = {{"ciod: failed", LOGTK_GREP_FIXED, 4, 10},
                 {"ciod:", LOGTK_GREP_FIXED, 15000, 30000},
                 {"KERNEL FATAL", LOGTK_GREP_FIXED, 30, 50},
                 {"ciod: failed", LOGTK_GREP_FIXED | LOGTK_GREP_ICASE, 4, 10},
                 {"0  closed", LOGTK_GREP_FIXED, 100, 5000}};
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        membuf want = {0};
        logtk_grep *g = NULL;
        CHECK(logtk_grep_new(&g, found[i].pat, found[i].flags) == LOGTK_OK);
        uint64_t n = reference_grep(text.data, text.len, g, &want);
        CHECK(n >= found[i].lo && n <= found[i].hi);
        if (n < found[i].lo || n > found[i].hi)
            fprintf(stderr, "  '%s': %llu lines\n", found[i].pat, (unsigned long long)n);
        logtk_grep_free(g);
        free(want.data);
    }
    free(arc.data);
    free(text.data);
}

TEST(test_grep_number_tests)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 60000; i++) {
        xorshift64(&x);
        unsigned a = (unsigned)(x >> 8) % 256, b = (unsigned)(x >> 16) % 256, c = (unsigned)(x >> 24) % 256;
        unsigned port = (unsigned)(x >> 32) % 65536;
        long long id = (long long)(x >> 1) * ((x & 1) ? -1 : 1);
        int n;
        if (i % 4999 == 7) {
            /* the planted values */
            a = 251;
            b = 43;
            c = 115;
            id = -4066411678297073316ll;
            port = 50010;
        }
        if (i % 3 == 0)
            n = snprintf(line, sizeof line, "081109 %06d %d INFO dfs.DataNode$DataXceiver: Receiving block blk_%lld src: /10.%u.%u.%u:%u dest: /10.%u.%u.%u:50010\n",
                         (i * 7) % 240000, 13 + i % 40, id, a, b, c, port, b, a, c);
        else if (i % 3 == 1)
            n = snprintf(line, sizeof line, "081109 %06d %d WARN node-%03u.%02u counter=%d hex=%llx seq=%d/%05u\n",
                         (i * 7) % 240000, 13 + i % 40, a, b % 20, 1000000 + i * 3, (unsigned long long)x,
                         -(int)(c % 50), port % 1000);
        else
            n = snprintf(line, sizeof line, "081109 %06d %d INFO addr %u.%u.%u.%u:%u size %lld\n",
                         (i * 7) % 240000, 13 + i % 40, 10u + a % 3, a, b, c, port, id);
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "30000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {
        "10.251.43.115", "/10.251.43.115:", "251.43.11", "0.251.43", "blk_-4066411678297073316",
        "-4066411678297073316 src", "blk_-40664116782970", "blk_4066411678297073316", "4066411678297073316",
        "43.251.115:50010", ":50010 dest", "node-007.", "node-07.", "-00", "counter=1000003 ",
        "counter=100000", "=1000", "seq=-4", "seq=-0", "/00", "/0042", "hex=ff", "hex=0",
        ".115:5001", "size -4066", "size 4066", "11.251.", "12.251.43.115:50010 size",
        "-1 ", "INFO addr 1", "13 INFO", "0.0"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "src: /10\\.251\\.43\\.115:[0-9]+ dest", 0);
    check_grep(text.data, text.len, &arc, "blk_-4066411678297073316 ", 0);
    check_grep(text.data, text.len, &arc, "node-00[0-9]\\.0", 0);
    /* the planted lines are there to be found */
    static const struct {
        const char *pat;
        uint64_t at_least;
    } found[] = {{"10.251.43.115", 4}, {"blk_-4066411678297073316", 4}, {"43.251.115:50010", 4}, {"12.251.43.115:50010 size", 4}};
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++)
        CHECK(planted_lines(text.data, text.len, found[i].pat) >= found[i].at_least);
    free(arc.data);
    free(text.data);
}

/*
 * Number tests before marking: a template whose numbers fit the pattern in
 * a few units marks only those units' lines (found through the id
 * histograms, across checkpoints and blocks), one where most fit marks all
 * its lines, and an IP's later octet columns are read only where the
 * earlier ones fit.  The planted lines sit at block starts and ends, next
 * to each other, and far apart.
 */
TEST(test_grep_number_marking)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    const int nlines = 24000;
    for (int i = 0; i < nlines; i++) {
        xorshift64(&x);
        unsigned a = (unsigned)(x >> 8) % 256, b = (unsigned)(x >> 16) % 256, c = (unsigned)(x >> 24) % 256;
        int planted = i == 0 || i == 5000 || i == 5001 || i == 9999 || i == 10000 || i == 17777 ||
                      i == nlines - 1;
        if (planted) {
            a = 251;
            b = 43;
            c = 115;
        }
        int n;
        if (i % 4 == 0)
            n = snprintf(line, sizeof line, "t%d from 10.%u.%u.%u:%u to 10.%u.%u.%u\n", i % 50, a, b, c,
                         1000 + i % 7, (a + 1) % 256, b, c);
        else if (i % 4 == 1)
            n = snprintf(line, sizeof line, "t%d peer 10.%u.%u.%u ok %d\n", i % 50, b, a, c, i);
        else if (i % 4 == 2) /* most lines of this template hold 10.9.9.9 */
            n = snprintf(line, sizeof line, "t%d via 10.9.9.%u hop %d\n", i % 50, i % 7 ? 9u : c, i % 13);
        else
            n = snprintf(line, sizeof line, "t%d at 10.%u.%u.%u:%u\n", i % 50, a, b, c, 2000 + i % 3);
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "10000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {"10.251.43.115", "10.43.251.115", "10.252.43.115", "10.9.9.9",
                                       "10.9.9.9 hop 1", "251.43.115:100", "0.251.43.11", ".43.115"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
    check_grep(text.data, text.len, &arc, "10\\.251\\.43\\.115:[0-9]+ to", 0);
    check_grep(text.data, text.len, &arc, "t1 from 10.251.43.115", LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
    /* the planted values are there: at least the planted lines match */
    CHECK(planted_lines(text.data, text.len, "10.251.43.115") >= 4);
    free(arc.data);
    free(text.data);
}

/*
 * Number tests run most selective column first (an exact 251 before the
 * suffix 10 of a first octet nearly every address has; a misjudged order
 * where the "exact" column passes nearly everything; a delta-coded counter),
 * and the alignments of each template are remembered across blocks: many
 * small blocks repeat the same templates, and one search object goes
 * through the archive twice.
 */
TEST(test_grep_column_order)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 0xD1B54A32D192ED03ull;
    for (int i = 0; i < 12000; i++) {
        xorshift64(&x);
        unsigned a = (unsigned)(x >> 8) % 256, b = (unsigned)(x >> 16) % 256, c = (unsigned)(x >> 24) % 256;
        unsigned first = 10 + 100 * (unsigned)(x % 3);
        if (i % 2917 == 5) {
            a = 251;
            b = 43;
            c = 115;
            first = 10;
        }
        int n;
        if (i % 3 == 0)
            n = snprintf(line, sizeof line, "req %d from %u.%u.%u.%u seq %d\n", i % 17, first, a, b, c, 500000 + i);
        else if (i % 3 == 1) /* the second octet is 251 in most lines */
            n = snprintf(line, sizeof line, "got %u.%u.%u.%u len %u\n", first, i % 5 ? 251u : a, b, c, a * 7);
        else
            n = snprintf(line, sizeof line, "ack 10.%u.%u.%u seq %d\n", a, b, c, 500000 + i);
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "1000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {"10.251.43.115", "0.251.43.115", "110.251.43", "251.43.115 seq",
                                       "seq 503001", "seq 5030", "503001", "10.251.7.",
                                       ".43.115 len 1757", "210.251."};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "from 10\\.251\\.43\\.115 seq [0-9]+", 0);
    /* the planted lines are there to be found */
    CHECK(planted_lines(text.data, text.len, "10.251.43.115") >= 4);
    free(arc.data);
    free(text.data);
}

/*
 * IP and hex variables: grep must find exactly what the text holds, whether
 * a pattern covers an address whole, a few of its octets, or runs on into
 * the text around it, and whatever coding (octet planes or varints) an
 * address column got; hex numbers in either case, with and without 0x and
 * leading zeros.
 */
TEST(test_grep_typed_vars)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 0x51A7E5EEDull;
    for (int i = 0; i < 20000; i++) {
        xorshift64(&x);
        unsigned a = (unsigned)(x >> 8) % 256, b = (unsigned)(x >> 16) % 256, c = (unsigned)(x >> 24) % 256;
        unsigned port = (unsigned)(x >> 32) % 65536;
        int n;
        if (i % 997 == 3) {
            a = 43;
            b = 115;
        }
        switch (i % 5) {
        case 0: /* varying addresses in one network: octet planes */
            n = snprintf(line, sizeof line, "s %d from /10.251.%u.%u:%u to 10.250.%u.%u\n", i, a, b, port, b, c);
            break;
        case 1: /* one client for a while: deltas of 0 */
            n = snprintf(line, sizeof line, "session %d client %u.%u.%u.%u port %u\n", i / 500, 173 + i / 5000,
                         234, (i / 500) % 256, 186 + (i / 500) % 2, port);
            break;
        case 2: /* hex numbers, both cases, leading zeros */
            n = snprintf(line, sizeof line, "obj 0x%08llx flags 0X%04X id %llx key %llX\n",
                         (unsigned long long)(x & 0xffffffffu), (unsigned)(x >> 40) & 0xffff,
                         (unsigned long long)(x >> 20) | 0xa00000000ull, (unsigned long long)(x >> 28) | 0xb000000ull);
            break;
        case 3: /* near misses: dotted numbers that are no addresses */
            n = snprintf(line, sizeof line, "ver %u.%u.%u.%u.%u bad %u.%u.%u.%u dev %u.%u.%u\n", a, b, c, a, b,
                         a + 256, b, c, a, a, b, c);
            break;
        default:
            n = snprintf(line, sizeof line, "addr %u.%u.%u.%u mask 255.255.%u.0 any 0.0.0.0\n", a % 4, b, a, c,
                         c & 0xf0);
            break;
        }
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "7000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {
        "10.251.43.115", "/10.251.43.115:", "0.251.43.115", "10.251.43.1", "251.43", ".43.115:",
        "1.43.115", "10.251.", "10.250.115.", "173.234.1.186", "173.234.1.18", "3.234.1", "255.255.",
        "255.255.16.0", "0.0.0.0", "0.0.0.0 ", "256.", "1.2.3.4.5", ".0.0.", "any 0.", "addr 2.",
        "0x0000", "0x00", "0X0", "0xDEAD", "0xdead", "flags 0X00", "id a", "key B", "a00", "B00",
        "ffff", "FFFF", "deadbeef", "e.", "ver 43.115.", "bad 299.", "dev 43.115."};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_ICASE);
    }
    check_grep(text.data, text.len, &arc, "10\\.251\\.43\\.[0-9]+:", 0);
    check_grep(text.data, text.len, &arc, "0x[0-9a-f]{4}00", 0);
    check_grep(text.data, text.len, &arc, "key [0-9A-F]+", LOGTK_GREP_INVERT);
    /* the planted address is there to be found */
    CHECK(planted_lines(text.data, text.len, "10.251.43.115") >= 4);
    free(arc.data);
    free(text.data);
}

/*
 * Dotted quads that are not canonical addresses ("10.957.43.015", what
 * scalegen.py makes of a real address) share the templates of real
 * addresses as packed IP values: they round-trip, and grep with canonical
 * and non-canonical pieces (which the number tests must not rule out
 * wrongly: a packed value passes an address test and its line is matched
 * rebuilt) gives exactly the lines a per-line search gives.
 */
TEST(test_grep_noncanonical_quads)
{
    membuf text = {0};
    char line[256];
    uint64_t x = 0xD077EDull;
    for (int i = 0; i < 12000; i++) {
        xorshift64(&x);
        char ip[4][8];
        static const unsigned base[4] = {10, 251, 43, 115};
        for (int p = 0; p < 4; p++) {
            unsigned r = (unsigned)(x >> (8 * p)) & 255;
            if (i % 3 == 0 || r < 90) /* canonical: the base octet or a random one */
                snprintf(ip[p], sizeof ip[p], "%u", r < 200 ? base[p] : r);
            else /* redrawn digits, as scalegen does: leading zeros, parts above 255 */
                snprintf(ip[p], sizeof ip[p], "%0*u", (int)(1 + r % 3), (r * 7 + (unsigned)i) % (r % 3 == 0 ? 10 : r % 3 == 1 ? 100 : 1000));
        }
        int n;
        if (i % 4 == 0)
            n = snprintf(line, sizeof line, "recv blk_%d from /%s.%s.%s.%s:50010 of %d\n", i, ip[0], ip[1], ip[2], ip[3],
                         i * 7);
        else if (i % 4 == 1) /* a column of addresses only, long enough for octet planes */
            n = snprintf(line, sizeof line, "ok %d.%d.1.%d\n", i % 7, (i / 7) % 256, i % 256);
        else
            n = snprintf(line, sizeof line, "served %s.%s.%s.%s to %s.%s.%s.%s\n", ip[0], ip[1], ip[2], ip[3], ip[3],
                         ip[2], ip[1], ip[0]);
        mem_write(&text, line, (size_t)n);
    }
    /* the same lines with the planted queries, canonical and not */
    static const char *const planted[] = {"served 10.957.43.015 to 015.43.957.10\n", "served 10.251.43.115 to 115.43.251.10\n",
                                          "recv blk_1 from /010.251.43.115:50010 of 2\n"};
    for (size_t k = 0; k < sizeof planted / sizeof planted[0]; k++)
        mem_write(&text, planted[k], strlen(planted[k]));
    CHECK(roundtrip(text.data, text.len, 1 << 16, "3000", NULL));
    membuf arc = {0};
    CHECK(compress_mem(text.data, text.len, 1 << 20, "5000", NULL, NULL, &arc) == LOGTK_OK);
    static const char *const pats[] = {
        "10.957.43.015", "957.43", ".043.", "10.251.43.115", "/10.251.43.115:", "010.251.43.115", "0.251.43.11",
        "43.015", ".015 ", "015.43.957.10", "115.43.251.10", "to 015.", "from /0", "00", ".0", "9.", "57.4",
        "1.1.", "ok 3.", ".1.25", "10.25", " 10.957.43.015\n", "999.", "0.0.", "1.2.3.4"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED);
        check_grep(text.data, text.len, &arc, pats[i], LOGTK_GREP_FIXED | LOGTK_GREP_INVERT);
    }
    check_grep(text.data, text.len, &arc, "10\\.957\\.43\\.0[0-9]+", 0);
    check_grep(text.data, text.len, &arc, "/0[0-9]*\\.251\\.", 0);
    /* the planted lines are there to be found: the searches above are not vacuous */
    CHECK(planted_lines(text.data, text.len, "10.957.43.015") >= 1);
    CHECK(planted_lines(text.data, text.len, "010.251.43.115") >= 1);
    free(arc.data);
    free(text.data);
}

