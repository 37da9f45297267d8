/*
 * test_archive_damage.c - the archive defects of the hardening issue, one
 * test each: a payload altered with its checksum recomputed (format 4's
 * content checksum, checked by the reader, the unpacker and grep), a cut
 * inside a block (the whole rest is named lost), cat's random access with
 * a damaged or appended-to index (falls back to scanning), running out of
 * memory while decoding (not damage; the unpacker goes on with fewer
 * threads), a file truncated while it is mapped (no SIGBUS), and format 3
 * archives (still read, without the content check).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_container.h"
#include "block_decode.h"
#include "logtk.h"
#include "membuf.h"
#include "test_harness.h"

static int compress_text(const char *text, size_t len, const char *block_lines, membuf *out)
{
    logtk_archive_writer *w = NULL;
    int rc = logtk_archive_writer_new(&w);
    if (rc == LOGTK_OK && block_lines)
        rc = logtk_archive_writer_set_option(w, "block_lines", block_lines);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_open_callback(w, mem_write, out);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_write(w, text, len);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_close(w);
    logtk_archive_writer_free(w);
    return rc;
}

/* Lines "i value=V host=node-H\n" for i in 1..n. */
static void make_lines(membuf *m, int n)
{
    char line[96];
    for (int i = 1; i <= n; i++) {
        int k = snprintf(line, sizeof line, "%d value=%d host=node-%d\n", i, (i * 37) % 1000, i % 7);
        mem_write(m, line, (size_t)k);
    }
}

/* Everything a reader gives back: intact texts, and the messages of damaged regions. */
typedef struct outcome {
    membuf text;
    membuf messages;
    int damaged, fatal;
    uint64_t first_lost; /* 1-based first line of the first damaged region, 0: none */
    uint64_t lost_lines; /* its nlines (0: to the end, or none) */
} outcome;

static void outcome_free(outcome *o)
{
    free(o->text.data);
    free(o->messages.data);
    memset(o, 0, sizeof *o);
}

static void note(outcome *o, const logtk_archive_block *b, const char *msg)
{
    if (!o->damaged++) {
        o->first_lost = b->first_line;
        o->lost_lines = b->nlines;
    }
    mem_write(&o->messages, msg, strlen(msg));
    mem_write(&o->messages, "\n", 1);
}

static void read_reader(logtk_archive_reader *r, int threads, outcome *o)
{
    logtk_archive_unpacker *u = NULL;
    if (logtk_archive_unpacker_new(&u, threads) != LOGTK_OK) {
        o->fatal = 1;
        return;
    }
    logtk_archive_block b;
    int rc;
    while ((rc = logtk_archive_unpacker_next(u, r, &b)) != LOGTK_DONE) {
        if (rc == LOGTK_ERR_ARCHIVE) {
            note(o, &b, logtk_archive_unpacker_errmsg(u));
            continue;
        }
        if (rc != LOGTK_OK) {
            mem_write(&o->messages, logtk_archive_unpacker_errmsg(u), strlen(logtk_archive_unpacker_errmsg(u)));
            o->fatal = rc;
            break;
        }
        mem_write(&o->text, b.text.ptr, b.text.len);
    }
    logtk_archive_unpacker_free(u);
}

static void read_memory(const membuf *arc, int threads, outcome *o)
{
    logtk_archive_reader *r = NULL;
    memset(o, 0, sizeof *o);
    if (logtk_archive_reader_new(&r) != LOGTK_OK || logtk_archive_reader_open_memory(r, arc->data, arc->len, "t") != LOGTK_OK)
        o->fatal = 1;
    else
        read_reader(r, threads, o);
    logtk_archive_reader_free(r);
}

/* Offsets of the block headers of a format 4 archive (at most max). */
static int block_starts(const membuf *arc, size_t *starts, int max)
{
    size_t pos = LTK_FILE_HEADER_LEN;
    int n = 0;
    ltk_block_header h;
    while (n < max && pos + LTK_BLOCK_HEADER_LEN <= arc->len && ltk_block_header_read(arc->bytes + pos, 4, &h) == 0) {
        starts[n++] = pos;
        pos += LTK_BLOCK_HEADER_LEN + h.payload_len + ltk_line_hashes_len(h.nlines);
    }
    return n;
}

/* grep (fixed string) over an archive in memory: selected lines and damage messages. */
static void grep_memory(const membuf *arc, const char *pattern, int threads, outcome *o)
{
    logtk_grep *g = NULL;
    logtk_archive_reader *r = NULL;
    memset(o, 0, sizeof *o);
    if (logtk_grep_new(&g, pattern, LOGTK_GREP_FIXED) != LOGTK_OK || logtk_archive_reader_new(&r) != LOGTK_OK ||
        logtk_archive_reader_open_memory(r, arc->data, arc->len, "t") != LOGTK_OK) {
        o->fatal = 1;
    } else {
        logtk_grep_set_threads(g, threads);
        logtk_archive_block b;
        uint64_t count = 0;
        int rc;
        while ((rc = logtk_grep_next_block(g, r, &b, mem_write, &o->text, &count)) != LOGTK_DONE) {
            if (rc == LOGTK_ERR_ARCHIVE) {
                note(o, &b, logtk_grep_errmsg(g));
                continue;
            }
            if (rc != LOGTK_OK) {
                o->fatal = rc;
                break;
            }
        }
    }
    logtk_archive_reader_free(r);
    logtk_grep_free(g);
}

/*
 * A block altered with its checksums recomputed: the payload of a text with
 * the same line count and byte count put in its place decodes without any
 * structural error, to lines that are not the archive's.  The content
 * checksum turns that into a damaged block for decompress and grep alike.
 */
TEST(test_forged_payload)
{
    const char *mine = "state=1 ok\nstate=1 ok\nstate=1 ok\nstate=1 ok\n";
    const char *other = "state=2 ok\nstate=2 ok\nstate=2 ok\nstate=2 ok\n";
    membuf a = {0}, b = {0};
    CHECK_STATUS(compress_text(mine, strlen(mine), NULL, &a), LOGTK_OK);
    CHECK_STATUS(compress_text(other, strlen(other), NULL, &b), LOGTK_OK);
    size_t sa[2], sb[2];
    CHECK(block_starts(&a, sa, 2) == 1 && block_starts(&b, sb, 2) == 1);
    ltk_block_header ha, hb;
    CHECK(ltk_block_header_read(a.bytes + sa[0], 4, &ha) == 0 && ltk_block_header_read(b.bytes + sb[0], 4, &hb) == 0);
    CHECK(ha.payload_len == hb.payload_len && ha.raw_bytes == hb.raw_bytes && ha.nlines == hb.nlines);
    if (ha.payload_len != hb.payload_len)
        goto out;
    /* the forger's work: other's payload, the payload hash recomputed, the header rewritten */
    memcpy(a.bytes + sa[0] + LTK_BLOCK_HEADER_LEN, b.bytes + sb[0] + LTK_BLOCK_HEADER_LEN, hb.payload_len);
    ha.payload_hash = ltk_checksum32(a.bytes + sa[0] + LTK_BLOCK_HEADER_LEN, ha.payload_len);
    ltk_block_header_write(a.bytes + sa[0], &ha);
    for (int threads = 1; threads <= 2; threads++) {
        outcome o;
        read_memory(&a, threads, &o);
        CHECK(o.damaged == 1 && o.text.len == 0 && !o.fatal);
        CHECK(o.messages.data && strstr(o.messages.data, "block 1 (lines 1-4) damaged: decoded lines 1-4 of the block fail the content checksum"));
        outcome_free(&o);
        grep_memory(&a, "state=2", threads, &o);
        CHECK(o.damaged == 1 && o.text.len == 0 && !o.fatal);
        outcome_free(&o);
    }
out:
    free(a.data);
    free(b.data);
}

/*
 * A payload changed under valid checksums can list a template that no line
 * of the block has: grep's number tests skip it (they offset a NULL array by
 * its zero lines before; UndefinedBehaviorSanitizer flagged it, fuzz_archive
 * found the input).  The search ends, the block decoded or named damaged.
 */
TEST(test_forged_template_without_lines)
{
    const char text[] = "1\001\205\n@";
    membuf a = {0};
    CHECK_STATUS(compress_text(text, sizeof text - 1, "1", &a), LOGTK_OK);
    size_t starts[4];
    CHECK(block_starts(&a, starts, 4) >= 1);
    ltk_block_header h;
    CHECK(ltk_block_header_read(a.bytes + starts[0], 4, &h) == 0 && h.payload_len > 0);
    if (h.payload_len == 0)
        goto out;
    /* the bytes fuzz_archive changed: payload[0x31 % len] ^= 0x01, payload[0x85 % len] ^= 0x0b */
    uint8_t *payload = a.bytes + starts[0] + LTK_BLOCK_HEADER_LEN;
    payload[0x31 % h.payload_len] ^= 0x01;
    payload[0x85 % h.payload_len] ^= 0x0b;
    h.payload_hash = ltk_checksum32(payload, h.payload_len);
    ltk_block_header_write(a.bytes + starts[0], &h);
    outcome o;
    grep_memory(&a, "1\001", 1, &o);
    CHECK(!o.fatal);
    outcome_free(&o);
out:
    free(a.data);
}

/* A cut inside a block loses that block and every later one: the loss is named from its first line on. */
TEST(test_truncation_names_the_rest)
{
    membuf text = {0}, arc = {0};
    make_lines(&text, 1000);
    CHECK_STATUS(compress_text(text.data, text.len, "100", &arc), LOGTK_OK);
    size_t starts[16];
    CHECK(block_starts(&arc, starts, 16) == 10);
    for (int blk = 0; blk < 10; blk += 3) {
        membuf cut = arc;
        cut.len = starts[blk] + LTK_BLOCK_HEADER_LEN + 5;
        outcome o;
        read_memory(&cut, 1 + blk % 2, &o);
        CHECK(o.damaged == 1 && !o.fatal);
        CHECK(o.first_lost == (uint64_t)blk * 100 + 1 && o.lost_lines == 0);
        char want[64];
        snprintf(want, sizeof want, "lines from %d on lost", blk * 100 + 1);
        CHECK(o.messages.data && strstr(o.messages.data, want));
        /* every line before the cut comes back */
        CHECK(o.text.len <= text.len && memcmp(o.text.data ? o.text.data : "", text.data, o.text.len) == 0);
        const char *nth = text.data;
        for (int k = 0; k < blk * 100; k++)
            nth = strchr(nth, '\n') + 1;
        CHECK(o.text.len == (size_t)(nth - text.data));
        outcome_free(&o);
    }
    free(text.data);
    free(arc.data);
}

/* Random access when the index cannot be used: bytes appended after it, or the index damaged. */
TEST(test_seek_without_index)
{
    membuf text = {0}, arc = {0};
    make_lines(&text, 1000);
    CHECK_STATUS(compress_text(text.data, text.len, "100", &arc), LOGTK_OK);
    for (int kind = 0; kind < 2; kind++) {
        membuf bad = {0};
        mem_write(&bad, arc.data, arc.len);
        if (kind == 0)
            mem_write(&bad, "appended junk\n", 14);
        else
            bad.bytes[bad.len - 20] ^= 0x40; /* inside the index */
        logtk_archive_reader *r = NULL;
        CHECK_STATUS(logtk_archive_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_open_memory(r, bad.data, bad.len, "t"), LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_seek_line(r, 555), LOGTK_OK);
        logtk_archive_block b;
        CHECK_STATUS(logtk_archive_reader_next(r, &b), LOGTK_OK);
        CHECK(b.first_line == 501 && b.nlines == 100);
        CHECK(b.text.len > 0 && memcmp(b.text.ptr, "501 value=", 10) == 0);
        logtk_archive_reader_free(r);
        /* decompress: every line, the extra bytes reported without a loss */
        outcome o;
        read_memory(&bad, 2, &o);
        CHECK(o.text.len == text.len && memcmp(o.text.data, text.data, text.len) == 0);
        if (kind == 0)
            CHECK(o.damaged == 1 && strstr(o.messages.data, "no lines lost"));
        outcome_free(&o);
        free(bad.data);
    }
    free(text.data);
    free(arc.data);
}

/*
 * Out of memory on demand, without a hook in the library: this program is
 * linked with -Wl,--wrap=ltk_decode_block (Makefile.am), so every call the
 * library's other files make to it lands here.  While fail_decodes is
 * positive each call fails as a decode that ran out of memory; while
 * fail_worker_decodes is, the calls off the main thread (the unpacker's
 * workers; the caller's own retries are not counted) do.
 */
int __real_ltk_decode_block(ltk_decoder *d, const uint8_t *payload, size_t len,
                            uint32_t expect_lines, uint32_t expect_bytes, ltk_strbuf *text,
                            ltk_stream_sizes *sizes, ltk_errbuf *err);
int __wrap_ltk_decode_block(ltk_decoder *d, const uint8_t *payload, size_t len,
                            uint32_t expect_lines, uint32_t expect_bytes, ltk_strbuf *text,
                            ltk_stream_sizes *sizes, ltk_errbuf *err);
static int fail_decodes, fail_worker_decodes;
static pthread_t main_thread;

static int take_one(int *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED) > 0 &&
           __atomic_sub_fetch(counter, 1, __ATOMIC_RELAXED) >= 0;
}

int __wrap_ltk_decode_block(ltk_decoder *d, const uint8_t *payload, size_t len,
                            uint32_t expect_lines, uint32_t expect_bytes, ltk_strbuf *text,
                            ltk_stream_sizes *sizes, ltk_errbuf *err)
{
    if (take_one(&fail_decodes) ||
        (!pthread_equal(pthread_self(), main_thread) && take_one(&fail_worker_decodes)))
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory (test)");
    return __real_ltk_decode_block(d, payload, len, expect_lines, expect_bytes, text, sizes, err);
}

/* Running out of memory while decoding is not damage: the blocks are decoded again, fewer at a time. */
TEST(test_decode_out_of_memory)
{
    membuf text = {0}, arc = {0};
    make_lines(&text, 2000);
    CHECK_STATUS(compress_text(text.data, text.len, "100", &arc), LOGTK_OK);
    main_thread = pthread_self();
    for (int threads = 1; threads <= 4; threads += 3) {
        /* the serial reader: the block is not consumed, the next call decodes it */
        logtk_archive_reader *r = NULL;
        CHECK_STATUS(logtk_archive_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_open_memory(r, arc.data, arc.len, "t"), LOGTK_OK);
        logtk_archive_block b;
        fail_decodes = 1;
        CHECK_STATUS(logtk_archive_reader_next(r, &b), LOGTK_ERR_NOMEM);
        CHECK(strstr(logtk_archive_reader_errmsg(r), "out of memory decoding block 1 (lines 1-100)") != NULL);
        CHECK_STATUS(logtk_archive_reader_next(r, &b), LOGTK_OK);
        CHECK(b.first_line == 1 && !b.damaged);
        logtk_archive_reader_free(r);
        /* the unpacker: three decodes fail (on the workers when there are
         * workers); with workers everything still comes back intact, decoded
         * again in the caller's thread, and with none the failure is reported */
        if (threads == 1)
            fail_decodes = 3;
        else
            fail_worker_decodes = 3;
        outcome o;
        read_memory(&arc, threads, &o);
        if (threads == 1) {
            CHECK(o.fatal == LOGTK_ERR_NOMEM && o.damaged == 0);
        } else {
            CHECK(o.damaged == 0 && !o.fatal);
            CHECK(o.text.len == text.len && memcmp(o.text.data, text.data, text.len) == 0);
        }
        outcome_free(&o);
        fail_decodes = 0;
        fail_worker_decodes = 0;
    }
    free(text.data);
    free(arc.data);
}

/* A mapped archive truncated while it is read: the loss is reported, no SIGBUS. */
TEST(test_truncated_while_mapped)
{
    char path[] = "/tmp/logtk-test-damage-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    membuf text = {0}, arc = {0};
    /* values that do not compress, so that each block spans many pages */
    uint64_t x = 88172645463325252ull;
    char line[64];
    for (int i = 0; i < 60000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int k = snprintf(line, sizeof line, "%d id=%016llx\n", i + 1, (unsigned long long)x);
        mem_write(&text, line, (size_t)k);
    }
    CHECK_STATUS(compress_text(text.data, text.len, "5000", &arc), LOGTK_OK);
    CHECK(write(fd, arc.data, arc.len) == (ssize_t)arc.len);
    size_t starts[16];
    int nb = block_starts(&arc, starts, 16);
    CHECK(nb == 12);
    for (int threads = 1; threads <= 2; threads++) {
        CHECK(ftruncate(fd, (off_t)arc.len) == 0 && pwrite(fd, arc.data, arc.len, 0) == (ssize_t)arc.len);
        logtk_archive_reader *r = NULL;
        CHECK_STATUS(logtk_archive_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_archive_reader_open_path(r, path), LOGTK_OK);
        /* cut well inside the map, at a page boundary past block 6's start */
        CHECK(ftruncate(fd, (off_t)((starts[6] + 8192) & ~(size_t)4095)) == 0);
        outcome o = {0};
        read_reader(r, threads, &o);
        CHECK(o.damaged >= 1 && !o.fatal);
        CHECK(o.first_lost == 6 * 5000 + 1 || o.first_lost == 7 * 5000 + 1);
        CHECK(o.messages.data && strstr(o.messages.data, "on lost"));
        CHECK(o.text.len >= 6 * 5000 * 25 && memcmp(o.text.data, text.data, o.text.len) == 0);
        outcome_free(&o);
        logtk_archive_reader_free(r);
    }
    close(fd);
    unlink(path);
    free(text.data);
    free(arc.data);
}

/* A format 3 archive (written by logtk 0.1.0 before the content checksum) still reads back exactly. */
TEST(test_format3)
{
    FILE *f = fopen(test_data_path("sample.log"), "rb");
    FILE *g = fopen(test_data_path("format3.ltk"), "rb");
    CHECK(f && g);
    membuf text = {0}, arc = {0};
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        mem_write(&text, buf, n);
    while (g && (n = fread(buf, 1, sizeof buf, g)) > 0)
        mem_write(&arc, buf, n);
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    CHECK(arc.len > 8 && arc.bytes[4] == 3);
    outcome o;
    read_memory(&arc, 2, &o);
    CHECK(o.damaged == 0 && !o.fatal && o.text.len == text.len && memcmp(o.text.data, text.data, text.len) == 0);
    outcome_free(&o);
    grep_memory(&arc, "INFO", 1, &o);
    CHECK(o.damaged == 0 && o.text.len > 0);
    outcome_free(&o);
    free(text.data);
    free(arc.data);
}

/* A header forged to say one byte more: grep must not print the lines decompress rejects. */
TEST(test_forged_header)
{
    membuf text = {0}, arc = {0};
    make_lines(&text, 300);
    CHECK_STATUS(compress_text(text.data, text.len, "100", &arc), LOGTK_OK);
    size_t starts[4];
    CHECK(block_starts(&arc, starts, 4) == 3);
    ltk_block_header h;
    CHECK(ltk_block_header_read(arc.bytes + starts[1], 4, &h) == 0);
    h.raw_bytes++;
    ltk_block_header_write(arc.bytes + starts[1], &h);
    for (int threads = 1; threads <= 2; threads++) {
        outcome d, g;
        read_memory(&arc, threads, &d);
        grep_memory(&arc, "host=node-3", threads, &g);
        CHECK(d.damaged == 1 && d.first_lost == 101 && d.lost_lines == 100);
        CHECK(g.damaged == 1 && g.first_lost == 101 && g.lost_lines == 100);
        /* grep prints no line of block 2 */
        CHECK(g.text.data && !strstr(g.text.data, "\n150 value"));
        CHECK(g.text.data && strstr(g.text.data, "94 value=") && strstr(g.text.data, "241 value="));
        for (int i = 101; i <= 200; i++) {
            char want[32];
            snprintf(want, sizeof want, "\n%d value=", i);
            if (strstr(g.text.data ? g.text.data : "", want)) {
                CHECK(!"a line of the forged block was printed");
                break;
            }
        }
        outcome_free(&d);
        outcome_free(&g);
    }
    free(text.data);
    free(arc.data);
}

