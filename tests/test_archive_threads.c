/*
 * test_archive_threads.c - the compress/decompress pipeline gives the same bytes for any thread count.
 *
 * The writer cuts blocks on the caller's thread and encodes them in a pool
 * of worker threads; the unpacker decodes blocks ahead in the same pool.
 * These tests check what must not depend on the thread count or on how the
 * input is chunked: the archive bytes (T = 1, 2, 3, 8 over hostile inputs,
 * tiny blocks so the job ring wraps many times, and a Loghub log when
 * LOGTK_LOGHUB is set), the decompressed bytes, and the order and wording of
 * damage reports.  A block whose encoder fails in a worker must surface with
 * its line range, and the failed run must leave the old output untouched.
 * The pool itself (block_pool.c) is checked directly: order, jobs submitted
 * done, draining; and the read-ahead that the unpacker and grep share is
 * checked on mapped files, with the reader reopened or moved (seek) while
 * workers still hold blocks, and grep with 1-3 threads on damaged archives.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_encode.h"
#include "block_pool.h"
#include "block_readahead.h"
#include "logtk.h"
#include "membuf.h"
#include "test_harness.h"

/* Writer settings of one run. */
typedef struct run_opts {
    int threads;
    size_t chunk; /* input handed over in chunks of this many bytes (0: all at once) */
    const char *block_lines, *block_bytes;
} run_opts;

static int compress_run(const char *in, size_t len, const run_opts *o, membuf *out)
{
    logtk_archive_writer *w = NULL;
    char threads[16];
    snprintf(threads, sizeof threads, "%d", o->threads);
    int rc = logtk_archive_writer_new(&w);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_set_option(w, "threads", threads);
    if (rc == LOGTK_OK && o->block_lines)
        rc = logtk_archive_writer_set_option(w, "block_lines", o->block_lines);
    if (rc == LOGTK_OK && o->block_bytes)
        rc = logtk_archive_writer_set_option(w, "block_bytes", o->block_bytes);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_open_callback(w, mem_write, out);
    size_t step = o->chunk ? o->chunk : (len ? len : 1);
    for (size_t off = 0; rc == LOGTK_OK && off < len; off += step)
        rc = logtk_archive_writer_write(w, in + off, len - off < step ? len - off : step);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_close(w);
    if (rc != LOGTK_OK)
        fprintf(stderr, "compress: %s\n", logtk_archive_writer_errmsg(w));
    logtk_archive_writer_free(w);
    return rc;
}

/* One block as delivered, for comparing serial and parallel decoding. */
typedef struct block_seen {
    int rc;
    logtk_archive_block b;
    char *text;
    char *msg;
} block_seen;

typedef struct walk {
    block_seen *blocks;
    size_t n;
    membuf all; /* texts of the intact blocks, concatenated */
} walk;

static void walk_free(walk *wk)
{
    for (size_t i = 0; i < wk->n; i++) {
        free(wk->blocks[i].text);
        free(wk->blocks[i].msg);
    }
    free(wk->blocks);
    free(wk->all.data);
    memset(wk, 0, sizeof *wk);
}

/* Walks an archive in memory with an unpacker of `threads` threads until DONE or a fatal error. */
static int unpack_all(const membuf *arc, int threads, walk *wk)
{
    logtk_archive_reader *r = NULL;
    logtk_archive_unpacker *u = NULL;
    memset(wk, 0, sizeof *wk);
    if (logtk_archive_reader_new(&r) != LOGTK_OK || logtk_archive_unpacker_new(&u, threads) != LOGTK_OK)
        return -1;
    int rc = logtk_archive_reader_open_memory(r, arc->data, arc->len, "arc");
    while (rc == LOGTK_OK || rc == LOGTK_ERR_ARCHIVE) {
        logtk_archive_block b;
        rc = logtk_archive_unpacker_next(u, r, &b);
        if (rc == LOGTK_DONE)
            break;
        block_seen *nb = realloc(wk->blocks, (wk->n + 1) * sizeof *nb);
        if (!nb)
            break;
        wk->blocks = nb;
        block_seen *s = &wk->blocks[wk->n++];
        s->rc = rc;
        s->b = b;
        s->text = NULL;
        s->msg = strdup(rc == LOGTK_OK ? "" : logtk_archive_unpacker_errmsg(u));
        if (rc == LOGTK_OK) {
            s->text = malloc(b.text.len + 1);
            memcpy(s->text, b.text.ptr, b.text.len);
            mem_write(&wk->all, b.text.ptr, b.text.len);
        }
    }
    logtk_archive_unpacker_free(u);
    logtk_archive_reader_free(r);
    return rc == LOGTK_DONE ? 0 : rc;
}

/* Two walks saw the same blocks, texts, statuses and messages. */
static int walks_equal(const walk *a, const walk *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const block_seen *x = &a->blocks[i], *y = &b->blocks[i];
        if (x->rc != y->rc || x->b.index != y->b.index || x->b.first_line != y->b.first_line ||
            x->b.nlines != y->b.nlines || x->b.damaged != y->b.damaged ||
            x->b.raw_bytes != y->b.raw_bytes || x->b.stored_bytes != y->b.stored_bytes ||
            x->b.templates != y->b.templates || x->b.text.len != y->b.text.len ||
            strcmp(x->msg, y->msg) != 0)
            return 0;
        if (x->text && memcmp(x->text, y->text, x->b.text.len) != 0)
            return 0;
    }
    return 1;
}

/*
 * Compresses text with T = 1, 2, 3, 8 and several chunkings: every archive
 * must equal the T = 1 one, decode to text, and unpack to the same block
 * sequence with 1, 2 and 3 threads.
 */
static void check_any_threads(const char *name, const char *text, size_t len, const char *block_lines,
                              const char *block_bytes)
{
    membuf ref = {0};
    run_opts o = {1, 0, block_lines, block_bytes};
    CHECK_STATUS(compress_run(text, len, &o, &ref), LOGTK_OK);
    static const int thread_counts[] = {2, 3, 8};
    static const size_t chunks[] = {0, 1, 7, 4096};
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            if (chunks[c] == 1 && len > 200000)
                continue; /* byte by byte: slow on big inputs, nothing new */
            membuf arc = {0};
            run_opts ot = {thread_counts[t], chunks[c], block_lines, block_bytes};
            CHECK_STATUS(compress_run(text, len, &ot, &arc), LOGTK_OK);
            int same = arc.len == ref.len && memcmp(arc.data, ref.data, ref.len) == 0;
            CHECK(same);
            if (!same)
                fprintf(stderr, "  %s: T=%d chunk=%zu: %zu vs %zu bytes\n", name, thread_counts[t],
                        chunks[c], arc.len, ref.len);
            free(arc.data);
        }
    }
    walk serial, par;
    CHECK(unpack_all(&ref, 1, &serial) == 0);
    CHECK(serial.all.len == len && (len == 0 || memcmp(serial.all.data, text, len) == 0));
    for (int threads = 2; threads <= 3; threads++) {
        CHECK(unpack_all(&ref, threads, &par) == 0);
        int same = walks_equal(&serial, &par);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  %s: unpack with %d threads differs\n", name, threads);
        walk_free(&par);
    }
    walk_free(&serial);
    free(ref.data);
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

TEST(test_hostile_inputs)
{
    membuf m = {0};
    char line[256];
    /* CRLF and LF mixed, NUL, invalid UTF-8, marker bytes, no final newline */
    for (int i = 0; i < 3000; i++) {
        int n = snprintf(line, sizeof line, "2024-02-%02d 10:%02d:%02d node%d value=%d id=0x%x%s", 1 + i % 28,
                         i % 60, (i * 7) % 60, i % 17, i * 31 - 5000, i * 977, i % 3 ? "\n" : "\r\n");
        mem_write(&m, line, (size_t)n);
        static const char odd[] = "nul\0byte \xff\xfe bad utf8 \x01\x02\x05 markers\n";
        if (i % 101 == 0)
            mem_write(&m, odd, sizeof odd - 1);
    }
    mem_write(&m, "last line without newline", 25);
    check_any_threads("mixed", m.data, m.len, "37", NULL);
    check_any_threads("mixed-bytes", m.data, m.len, NULL, "1000");
    check_any_threads("mixed-default", m.data, m.len, NULL, NULL);

    /* random binary with few newlines */
    m.len = 0;
    for (int i = 0; i < 60000; i++) {
        char c = (char)(rnd() & 0xff);
        mem_write(&m, &c, 1);
    }
    check_any_threads("binary", m.data, m.len, "5", "512");

    /* very long lines (longer than a block) between short ones */
    m.len = 0;
    for (int k = 0; k < 4; k++) {
        mem_write(&m, "short\n", 6);
        for (int i = 0; i < 30000; i++)
            mem_write(&m, i % 1000 == 999 ? "\r" : "x", 1);
        mem_write(&m, "\n", 1);
    }
    check_any_threads("long-lines", m.data, m.len, NULL, "4096");

    /* only newlines; one line per block */
    m.len = 0;
    for (int i = 0; i < 500; i++)
        mem_write(&m, "\n", 1);
    check_any_threads("newlines", m.data, m.len, "1", NULL);

    check_any_threads("empty", "", 0, NULL, NULL);
    check_any_threads("one-newline", "\n", 1, NULL, NULL);
    check_any_threads("no-newline", "abc", 3, "1", NULL);
    free(m.data);
}

TEST(test_loghub)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (!dir) {
        printf("skipped: LOGTK_LOGHUB not set (Loghub part of the thread tests)\n");
        return;
    }
    static const char *const logs[] = {"HDFS", "Windows", "Mac"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/original/%s_2k.log", dir, logs[i], logs[i]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(path, sizeof path, "%s/%s/%s_2k.log", dir, logs[i], logs[i]);
            f = fopen(path, "rb");
        }
        CHECK(f != NULL);
        if (!f)
            continue;
        membuf m = {0};
        char buf[65536];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0)
            mem_write(&m, buf, got);
        fclose(f);
        CHECK(m.len > 100000);
        check_any_threads(logs[i], m.data, m.len, "150", NULL);
        check_any_threads(logs[i], m.data, m.len, NULL, NULL);
        free(m.data);
    }
}

/* Number of entries in dir whose names start with prefix. */
static int count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}


/*
 * A worker that runs out of memory, without a hook in the library: this
 * program is linked with -Wl,--wrap=ltk_encode_block (Makefile.am), so the
 * writer's calls land here, and the block whose text starts with the line
 * fail_block_from fails as an encoder that ran out of memory.
 */
int __real_ltk_encode_block(ltk_encoder *e, const char *text, size_t len, ltk_strbuf *out,
                            uint32_t *nlines);
int __wrap_ltk_encode_block(ltk_encoder *e, const char *text, size_t len, ltk_strbuf *out,
                            uint32_t *nlines);
static const char *volatile fail_block_from;

int __wrap_ltk_encode_block(ltk_encoder *e, const char *text, size_t len, ltk_strbuf *out,
                            uint32_t *nlines)
{
    const char *from = fail_block_from;
    if (from && len >= strlen(from) && memcmp(text, from, strlen(from)) == 0)
        return LOGTK_ERR_NOMEM;
    return __real_ltk_encode_block(e, text, len, out, nlines);
}

/* A block that fails in a worker: named by its lines, sticky, and the old output survives. */
TEST(test_worker_failure)
{
    membuf text = {0};
    char line[64];
    for (int i = 1; i <= 1000; i++) {
        int n = snprintf(line, sizeof line, "event %d at %d\n", i, i * 3);
        mem_write(&text, line, (size_t)n);
    }
    char dir[] = "/tmp/logtk-threads-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out.ltk", dir);
    for (int threads = 1; threads <= 3; threads++) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs("good\n", f) >= 0 && fclose(f) == 0);
        logtk_archive_writer *w = NULL;
        char tn[16];
        snprintf(tn, sizeof tn, "%d", threads);
        CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
        CHECK(logtk_archive_writer_set_option(w, "threads", tn) == LOGTK_OK);
        CHECK(logtk_archive_writer_set_option(w, "block_lines", "100") == LOGTK_OK);
        fail_block_from = "event 301 at 903\n"; /* block 4: lines 301-400 */
        CHECK(logtk_archive_writer_open_path(w, path) == LOGTK_OK);
        int rc = LOGTK_OK;
        for (size_t off = 0; rc == LOGTK_OK && off < text.len; off += 1000)
            rc = logtk_archive_writer_write(w, text.data + off, text.len - off < 1000 ? text.len - off : 1000);
        int close_rc = logtk_archive_writer_close(w);
        CHECK(rc == LOGTK_ERR_NOMEM || close_rc == LOGTK_ERR_NOMEM);
        const char *msg = logtk_archive_writer_errmsg(w);
        CHECK(strstr(msg, "block 4 (lines 301-400)") != NULL);
        if (!strstr(msg, "lines 301-400"))
            fprintf(stderr, "  T=%d: message '%s'\n", threads, msg);
        /* sticky: writing more fails as well */
        CHECK(logtk_archive_writer_write(w, "x\n", 2) != LOGTK_OK);
        logtk_archive_writer_free(w);
        f = fopen(path, "rb");
        char got[16] = {0};
        CHECK(f && fread(got, 1, sizeof got - 1, f) == 5 && strcmp(got, "good\n") == 0);
        if (f)
            fclose(f);
        CHECK(count_files(dir, ".out.ltk") == 0); /* no temporary file left */
    }
    /* the same writer works again once the hook is off, with its pool restarted */
    logtk_archive_writer *w = NULL;
    CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
    CHECK(logtk_archive_writer_set_option(w, "threads", "2") == LOGTK_OK);
    CHECK(logtk_archive_writer_set_option(w, "block_lines", "100") == LOGTK_OK);
    fail_block_from = "event 1 at 3\n"; /* block 1 */
    membuf a = {0}, b = {0};
    CHECK(logtk_archive_writer_open_callback(w, mem_write, &a) == LOGTK_OK);
    logtk_archive_writer_write(w, text.data, text.len);
    CHECK(logtk_archive_writer_close(w) == LOGTK_ERR_NOMEM);
    CHECK(strstr(logtk_archive_writer_errmsg(w), "block 1 (lines 1-100)") != NULL);
    fail_block_from = NULL;
    a.len = 0;
    for (int k = 0; k < 2; k++) {
        membuf *out = k ? &b : &a;
        CHECK(logtk_archive_writer_open_callback(w, mem_write, out) == LOGTK_OK);
        CHECK(logtk_archive_writer_write(w, text.data, text.len) == LOGTK_OK);
        CHECK(logtk_archive_writer_close(w) == LOGTK_OK);
    }
    CHECK(a.len > 0 && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    logtk_archive_writer_free(w);
    remove(path);
    rmdir(dir);
    free(a.data);
    free(b.data);
    free(text.data);
}

/* Damaged archives: the parallel unpacker reports the same blocks, in the same order, as the reader. */
TEST(test_unpack_damage)
{
    membuf text = {0};
    char line[96];
    for (int i = 1; i <= 2000; i++) {
        int n = snprintf(line, sizeof line, "%05d kernel: task %d moved to cpu %d\n", i, i * 7, i % 8);
        mem_write(&text, line, (size_t)n);
    }
    membuf arc = {0};
    run_opts o = {2, 0, "100", NULL};
    CHECK_STATUS(compress_run(text.data, text.len, &o, &arc), LOGTK_OK);
    /* three kinds of damage: a payload byte (block 3), a header byte (block 8), a cut tail */
    for (int kind = 0; kind < 4; kind++) {
        membuf bad = {.data = malloc(arc.len + 1), .len = arc.len, .cap = arc.len + 1};
        memcpy(bad.data, arc.data, arc.len);
        size_t pos = 8; /* walk blocks: 36-byte headers (format 4), payload_len at 20, then 4 bytes of line hashes */
        size_t starts[32] = {0};
        int nb = 0;
        while (pos + 36 <= bad.len && memcmp(bad.data + pos, "LTKB", 4) == 0 && nb < 32) {
            starts[nb++] = pos;
            uint32_t plen = (uint32_t)(uint8_t)bad.data[pos + 20] | (uint32_t)(uint8_t)bad.data[pos + 21] << 8 |
                            (uint32_t)(uint8_t)bad.data[pos + 22] << 16 | (uint32_t)(uint8_t)bad.data[pos + 23] << 24;
            pos += 36 + plen + 4; /* 100 lines: one line hash */
        }
        CHECK(nb == 20);
        if (nb != 20) {
            free(bad.data);
            continue;
        }
        if (kind == 0)
            bad.data[starts[2] + 40] ^= 0x55;
        else if (kind == 1)
            bad.data[starts[7] + 5] ^= 0x55;
        else if (kind == 2)
            bad.len = starts[15] + 50;
        else
            bad.data[starts[19] + 40] ^= 0x55; /* the last block, before the index */
        walk serial, par;
        int rs = unpack_all(&bad, 1, &serial);
        int damaged = 0;
        for (size_t i = 0; i < serial.n; i++)
            damaged += serial.blocks[i].b.damaged;
        CHECK(damaged >= 1);
        CHECK(serial.n >= 16);
        for (int threads = 2; threads <= 4; threads++) {
            int rp = unpack_all(&bad, threads, &par);
            CHECK(rp == rs);
            int same = walks_equal(&serial, &par);
            CHECK(same);
            if (!same)
                fprintf(stderr, "  damage kind %d: %d threads differ (%zu vs %zu blocks)\n", kind, threads,
                        par.n, serial.n);
            walk_free(&par);
        }
        walk_free(&serial);
        free(bad.data);
    }
    free(arc.data);
    free(text.data);
}

/* Appends the texts of the blocks r has left to got; the status that ended them. */
static int unpack_rest(logtk_archive_unpacker *u, logtk_archive_reader *r, membuf *got)
{
    logtk_archive_block b;
    int rc;
    while ((rc = logtk_archive_unpacker_next(u, r, &b)) == LOGTK_OK)
        mem_write(got, b.text.ptr, b.text.len);
    return rc;
}

/* An unpacker handed another reader (or the same one reopened) starts afresh. */
TEST(test_unpack_switch)
{
    membuf t1 = {0}, t2 = {0}, a1 = {0}, a2 = {0};
    char line[64];
    for (int i = 0; i < 3000; i++) {
        int n = snprintf(line, sizeof line, "first archive line %d\n", i);
        mem_write(&t1, line, (size_t)n);
        n = snprintf(line, sizeof line, "second %d archive\n", i * 3);
        mem_write(&t2, line, (size_t)n);
    }
    run_opts o = {1, 0, "64", NULL};
    CHECK_STATUS(compress_run(t1.data, t1.len, &o, &a1), LOGTK_OK);
    CHECK_STATUS(compress_run(t2.data, t2.len, &o, &a2), LOGTK_OK);
    logtk_archive_reader *r1 = NULL, *r2 = NULL;
    logtk_archive_unpacker *u = NULL;
    CHECK(logtk_archive_reader_new(&r1) == LOGTK_OK && logtk_archive_reader_new(&r2) == LOGTK_OK);
    logtk_archive_unpacker *bad = (logtk_archive_unpacker *)&u;
    CHECK_STATUS(logtk_archive_unpacker_new(&bad, 0), LOGTK_ERR_INVALID);
    CHECK(bad == NULL);
    CHECK_STATUS(logtk_archive_unpacker_new(&bad, 65), LOGTK_ERR_INVALID);
    CHECK(logtk_archive_unpacker_new(&u, 3) == LOGTK_OK);
    logtk_archive_block b;
    CHECK(logtk_archive_reader_open_memory(r1, a1.data, a1.len, "a1") == LOGTK_OK);
    CHECK(logtk_archive_unpacker_next(u, r1, &b) == LOGTK_OK);
    CHECK(b.first_line == 1 && b.nlines == 64 && memcmp(b.text.ptr, t1.data, b.text.len) == 0);
    /* another reader: all of its blocks, in order */
    CHECK(logtk_archive_reader_open_memory(r2, a2.data, a2.len, "a2") == LOGTK_OK);
    membuf got = {0};
    CHECK(unpack_rest(u, r2, &got) == LOGTK_DONE);
    CHECK(got.len == t2.len && memcmp(got.data, t2.data, t2.len) == 0);
    CHECK(logtk_archive_unpacker_next(u, r2, &b) == LOGTK_DONE);
    /* the first reader reopened: from its start again */
    CHECK(logtk_archive_reader_open_memory(r1, a1.data, a1.len, "a1") == LOGTK_OK);
    got.len = 0;
    CHECK(unpack_rest(u, r1, &got) == LOGTK_DONE);
    CHECK(got.len == t1.len && memcmp(got.data, t1.data, t1.len) == 0);
    logtk_archive_unpacker_free(u);
    logtk_archive_unpacker_free(NULL);
    logtk_archive_reader_free(r1);
    logtk_archive_reader_free(r2);
    free(t1.data);
    free(t2.data);
    free(a1.data);
    free(a2.data);
    free(got.data);
}

/* ---- the pool itself ---- */

typedef struct pool_job {
    int id;
    int worked;   /* times a worker processed it */
    int slow;     /* microseconds the work takes */
    int gated;    /* the work waits until the gate opens */
    int running;  /* a worker has started on it */
    int order;    /* its place among all jobs processed (from 1) */
} pool_job;

static int jobs_processed;
static int gate_closed;

static void pool_work(void *state, void *arg)
{
    pool_job *j = arg;
    int *calls = state;
    __atomic_store_n(&j->running, 1, __ATOMIC_RELEASE);
    while (j->gated && __atomic_load_n(&gate_closed, __ATOMIC_ACQUIRE))
        usleep(1000);
    if (j->slow)
        usleep((useconds_t)j->slow);
    __atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
    j->order = __atomic_add_fetch(&jobs_processed, 1, __ATOMIC_RELAXED);
    j->worked++;
}

static void *open_gate_later(void *arg)
{
    (void)arg;
    usleep(30000);
    __atomic_store_n(&gate_closed, 0, __ATOMIC_RELEASE);
    return NULL;
}

/* Jobs come back in submission order, those submitted done untouched; a drain forgets queued jobs. */
TEST(test_pool_order_and_drain)
{
    int calls[3] = {0, 0, 0};
    void *states[3] = {&calls[0], &calls[1], &calls[2]};
    ltk_pool *p = ltk_pool_new(3, 5, pool_work, states);
    CHECK(p != NULL);
    if (!p)
        return;
    enum { NJOBS = 200 };
    static pool_job jobs[NJOBS];
    int next = 0, seen = 0, in_order = 1, done_untouched = 1, worked_once = 1;
    while (seen < NJOBS) {
        while (next < NJOBS && ltk_pool_has_room(p)) {
            pool_job *j = &jobs[next];
            j->id = next;
            j->worked = 0;
            j->slow = next % 7 == 0 ? 300 : 0; /* some finish late, after later ones */
            if (next % 5 == 3)
                ltk_pool_submit_done(p, j);
            else
                ltk_pool_submit(p, j);
            next++;
        }
        pool_job *j = ltk_pool_collect(p, 1);
        CHECK(j != NULL);
        if (!j)
            break;
        in_order &= j->id == seen;
        if (j->id % 5 == 3)
            done_untouched &= j->worked == 0;
        else
            worked_once &= j->worked == 1;
        seen++;
    }
    CHECK(in_order);
    CHECK(done_untouched);
    CHECK(worked_once);
    CHECK(ltk_pool_pending(p) == 0);
    CHECK(ltk_pool_collect(p, 1) == NULL);
    CHECK(calls[0] + calls[1] + calls[2] == NJOBS - NJOBS / 5);

    /*
     * drain with 3 jobs running (held at a gate until 30 ms into the drain)
     * and 2 queued: the running ones finish, the queued ones never run
     */
    memset(jobs, 0, 5 * sizeof jobs[0]);
    gate_closed = 1;
    for (int k = 0; k < 5; k++) {
        jobs[k].id = k;
        jobs[k].gated = 1;
        ltk_pool_submit(p, &jobs[k]);
    }
    CHECK(!ltk_pool_has_room(p));
    for (int waited = 0; waited < 5000; waited++) { /* up to 5 s for the 3 workers to start */
        int running = 0;
        for (int k = 0; k < 5; k++)
            running += __atomic_load_n(&jobs[k].running, __ATOMIC_ACQUIRE);
        if (running == 3)
            break;
        usleep(1000);
    }
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, open_gate_later, NULL) == 0);
    ltk_pool_drain(p);
    pthread_join(opener, NULL);
    CHECK(ltk_pool_pending(p) == 0 && ltk_pool_has_room(p));
    CHECK(ltk_pool_collect(p, 0) == NULL);
    CHECK(jobs[0].worked == 1 && jobs[1].worked == 1 && jobs[2].worked == 1); /* finished by the drain */
    usleep(30000);
    CHECK(jobs[3].running == 0 && jobs[4].running == 0); /* dropped: never run */
    /* and the pool works on afterwards */
    for (int k = 0; k < 4; k++) {
        jobs[10 + k].id = 10 + k;
        jobs[10 + k].worked = 0;
        jobs[10 + k].slow = 0;
        ltk_pool_submit(p, &jobs[10 + k]);
    }
    for (int k = 0; k < 4; k++) {
        pool_job *j = ltk_pool_collect(p, 1);
        CHECK(j == &jobs[10 + k] && j->worked == 1);
    }
    ltk_pool_drain(p); /* empty: harmless */
    ltk_pool_free(p);

    /*
     * A job submitted done and collected while the worker sleeps, before it
     * passed the job's slot: the jobs submitted next (one reusing that slot)
     * are processed once each and in order, not the one in the slot first.
     */
    int calls1 = 0;
    void *state1[1] = {&calls1};
    p = ltk_pool_new(1, 3, pool_work, state1);
    CHECK(p != NULL);
    if (!p)
        return;
    memset(jobs, 0, sizeof jobs);
    int in_turn = 1;
    for (int round = 0; round < 3; round++) {
        usleep(20000); /* the worker is asleep, waiting for work */
        ltk_pool_submit_done(p, &jobs[0]);
        CHECK(ltk_pool_collect(p, 1) == &jobs[0]);
        for (int k = 1; k <= 3; k++)
            ltk_pool_submit(p, &jobs[k]);
        for (int k = 1; k <= 3; k++)
            CHECK(ltk_pool_collect(p, 1) == &jobs[k]);
        in_turn &= jobs[1].order < jobs[2].order && jobs[2].order < jobs[3].order;
    }
    CHECK(in_turn);
    CHECK(jobs[0].worked == 0);
    CHECK(jobs[1].worked == 3 && jobs[2].worked == 3 && jobs[3].worked == 3);
    CHECK(calls1 == 9);
    ltk_pool_free(p);
    ltk_pool_free(NULL);
    ltk_readahead_free(NULL, NULL);
}

/* ---- the read-ahead on mapped files ---- */

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Text of n lines of a kind (k), with rare words to grep for. */
static void make_text(membuf *m, int n, int k)
{
    char line[128];
    for (int i = 1; i <= n; i++) {
        int len = snprintf(line, sizeof line, "%s %06d node-%d %s value=%d\n", k ? "second" : "first", i,
                           i % 13, i % 97 == 0 ? "RareWord" : "common", i * 7);
        mem_write(m, line, (size_t)len);
    }
}

/*
 * The unpacker's read-ahead over a mapped file: the reader reopened on
 * another file while blocks of the first are in flight, then moved by
 * seek_line: each time the blocks that follow are those of the new
 * position, and nothing reads unmapped memory (ASan builds).
 */
/* The folder test_unpack_mapped_reopen and test_grep_threads_files share
   (made by the setup, emptied and removed by the teardown). */
static char shared_dir[] = "/tmp/logtk-readahead-XXXXXX";

TEST(test_unpack_mapped_reopen)
{
    const char *dir = shared_dir;
    membuf t1 = {0}, t2 = {0}, a1 = {0}, a2 = {0};
    make_text(&t1, 5000, 0);
    make_text(&t2, 4000, 1);
    run_opts o = {2, 0, "100", NULL};
    CHECK_STATUS(compress_run(t1.data, t1.len, &o, &a1), LOGTK_OK);
    CHECK_STATUS(compress_run(t2.data, t2.len, &o, &a2), LOGTK_OK);
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/one.ltk", dir);
    snprintf(p2, sizeof p2, "%s/two.ltk", dir);
    CHECK(write_file(p1, a1.data, a1.len) == 0 && write_file(p2, a2.data, a2.len) == 0);
    for (int threads = 2; threads <= 4; threads++) {
        logtk_archive_reader *r = NULL;
        logtk_archive_unpacker *u = NULL;
        CHECK(logtk_archive_reader_new(&r) == LOGTK_OK && logtk_archive_unpacker_new(&u, threads) == LOGTK_OK);
        logtk_archive_block b;
        CHECK(logtk_archive_reader_open_path(r, p1) == LOGTK_OK);
        CHECK(logtk_archive_unpacker_next(u, r, &b) == LOGTK_OK);
        CHECK(b.first_line == 1 && b.nlines == 100 && memcmp(b.text.ptr, t1.data, b.text.len) == 0);
        /* reopened on the second file while blocks of the first are being decoded */
        CHECK(logtk_archive_reader_open_path(r, p2) == LOGTK_OK);
        membuf got = {0};
        CHECK(unpack_rest(u, r, &got) == LOGTK_DONE);
        CHECK(got.len == t2.len && memcmp(got.data, t2.data, t2.len) == 0);
        /* the first file again, then moved to line 2345 after two blocks */
        CHECK(logtk_archive_reader_open_path(r, p1) == LOGTK_OK);
        CHECK(logtk_archive_unpacker_next(u, r, &b) == LOGTK_OK && b.first_line == 1);
        CHECK(logtk_archive_unpacker_next(u, r, &b) == LOGTK_OK && b.first_line == 101);
        CHECK(logtk_archive_reader_seek_line(r, 2345) == LOGTK_OK);
        CHECK(logtk_archive_unpacker_next(u, r, &b) == LOGTK_OK);
        CHECK(b.first_line == 2301 && b.index == 23);
        got.len = 0;
        mem_write(&got, b.text.ptr, b.text.len);
        CHECK(unpack_rest(u, r, &got) == LOGTK_DONE);
        const char *from = strstr(t1.data, "first 002301 ");
        CHECK(from && got.len == t1.len - (size_t)(from - t1.data) && memcmp(got.data, from, got.len) == 0);
        /* the reader freed while the unpacker still has it in its read-ahead */
        CHECK(logtk_archive_reader_open_path(r, p2) == LOGTK_OK);
        CHECK(logtk_archive_unpacker_next(u, r, &b) == LOGTK_OK);
        logtk_archive_reader_free(r);
        logtk_archive_unpacker_free(u);
        free(got.data);
    }
    free(t1.data);
    free(t2.data);
    free(a1.data);
    free(a2.data);
}

/* One grep run over archive files: lines (or the count), messages and statuses, joined. */
static int grep_files(const char *pattern, int flags, int threads, const char *const *paths, int npaths,
                      int count_only, membuf *out)
{
    logtk_grep *g = NULL;
    logtk_archive_reader *r = NULL;
    if (logtk_grep_new(&g, pattern, flags) != LOGTK_OK || logtk_archive_reader_new(&r) != LOGTK_OK)
        return -1;
    logtk_grep_set_threads(g, threads);
    int fatal = 0;
    for (int k = 0; k < npaths && !fatal; k++) {
        char msg[700];
        int rc = logtk_archive_reader_open_path(r, paths[k]);
        if (rc != LOGTK_OK) {
            fatal = 1;
            break;
        }
        uint64_t count = 0;
        logtk_archive_block b;
        while ((rc = logtk_grep_next_block(g, r, &b, count_only ? NULL : mem_write, out, &count)) != LOGTK_DONE) {
            if (rc == LOGTK_OK)
                continue;
            int n = snprintf(msg, sizeof msg, "[%d %llu+%llu %s]\n", rc, (unsigned long long)b.first_line,
                             (unsigned long long)b.nlines, logtk_grep_errmsg(g));
            mem_write(out, msg, (size_t)n);
            if (rc != LOGTK_ERR_ARCHIVE) {
                fatal = 1;
                break;
            }
        }
        int n = snprintf(msg, sizeof msg, "count %llu\n", (unsigned long long)count);
        mem_write(out, msg, (size_t)n);
    }
    logtk_archive_reader_free(r);
    logtk_grep_free(g);
    return fatal ? -1 : 0;
}

/*
 * grep over mapped files with 2 and 3 threads gives what it gives with one,
 * on intact and damaged archives, for lines and counts, and across files.
 */
TEST(test_grep_threads_files)
{
    const char *dir = shared_dir;
    membuf text = {0}, arc = {0};
    make_text(&text, 6000, 0);
    run_opts o = {1, 0, "250", NULL};
    CHECK_STATUS(compress_run(text.data, text.len, &o, &arc), LOGTK_OK);
    /* a damaged copy: one payload byte of the 5th block and one header byte of the 12th */
    membuf bad = {0};
    mem_write(&bad, arc.data, arc.len);
    size_t pos = 8;
    int nb = 0;
    while (pos + 36 <= bad.len && memcmp(bad.data + pos, "LTKB", 4) == 0) {
        uint32_t plen = (uint32_t)bad.bytes[pos + 20] | (uint32_t)bad.bytes[pos + 21] << 8 |
                        (uint32_t)bad.bytes[pos + 22] << 16 | (uint32_t)bad.bytes[pos + 23] << 24;
        if (nb == 4)
            bad.bytes[pos + 36 + plen / 2] ^= 0x21;
        if (nb == 11)
            bad.bytes[pos + 6] ^= 0x21;
        nb++;
        pos += 36 + plen + 4; /* 250 lines: one line hash */
    }
    CHECK(nb == 24);
    char good_path[512], bad_path[512];
    snprintf(good_path, sizeof good_path, "%s/good.ltk", dir);
    snprintf(bad_path, sizeof bad_path, "%s/bad.ltk", dir);
    CHECK(write_file(good_path, arc.data, arc.len) == 0 && write_file(bad_path, bad.data, bad.len) == 0);
    const char *const paths[] = {good_path, bad_path, good_path};
    static const struct {
        const char *pattern;
        int flags;
    } queries[] = {{"RareWord", LOGTK_GREP_FIXED},
                   {"node-3 ", LOGTK_GREP_FIXED},
                   {"value=7[0-9]*5$", 0},
                   {"common", LOGTK_GREP_FIXED | LOGTK_GREP_INVERT}};
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        for (int count_only = 0; count_only <= 1; count_only++) {
            membuf ref = {0};
            CHECK(grep_files(queries[q].pattern, queries[q].flags, 1, paths, 3, count_only, &ref) == 0);
            CHECK(strstr(ref.data, "block 5 (lines 1001-1250) damaged") != NULL);
            CHECK(strstr(ref.data, "count 0\n") == NULL);
            for (int threads = 2; threads <= 3; threads++) {
                membuf par = {0};
                CHECK(grep_files(queries[q].pattern, queries[q].flags, threads, paths, 3, count_only, &par) == 0);
                int same = par.len == ref.len && memcmp(par.data, ref.data, ref.len) == 0;
                CHECK(same);
                if (!same)
                    fprintf(stderr, "  grep '%s' -c=%d: %d threads differ\n", queries[q].pattern, count_only,
                            threads);
                free(par.data);
            }
            free(ref.data);
        }
    }
    /* a reader reopened mid-search: the next file from its start */
    logtk_grep *g = NULL;
    logtk_archive_reader *r = NULL;
    CHECK(logtk_grep_new(&g, "RareWord", LOGTK_GREP_FIXED) == LOGTK_OK && logtk_archive_reader_new(&r) == LOGTK_OK);
    logtk_grep_set_threads(g, 3);
    logtk_archive_block b;
    uint64_t count = 0;
    CHECK(logtk_archive_reader_open_path(r, bad_path) == LOGTK_OK);
    CHECK(logtk_grep_next_block(g, r, &b, NULL, NULL, &count) == LOGTK_OK && count == 2);
    CHECK(logtk_archive_reader_open_path(r, good_path) == LOGTK_OK);
    count = 0;
    int rc;
    while ((rc = logtk_grep_next_block(g, r, &b, NULL, NULL, &count)) == LOGTK_OK)
        ;
    CHECK(rc == LOGTK_DONE && count == 6000 / 97);
    logtk_grep_free(g);
    logtk_archive_reader_free(r);
    remove(good_path);
    remove(bad_path);
    free(text.data);
    free(arc.data);
    free(bad.data);
}


TEST_SETUP()
{
    return mkdtemp(shared_dir) != NULL ? 0 : 1;
}

TEST_TEARDOWN()
{
    char path[600];
    snprintf(path, sizeof path, "%s/one.ltk", shared_dir);
    remove(path);
    snprintf(path, sizeof path, "%s/two.ltk", shared_dir);
    remove(path);
    CHECK(rmdir(shared_dir) == 0);
}
