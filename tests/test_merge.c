/*
 * test_merge.c - content-hash template keys and merging shard states
 * (logtk_parser_template_key, logtk_parser_merge), and fuse as the default.
 *
 * What must hold: a key depends on the text only (FNV-1a 64, checked against
 * values computed by hand from the definition); a merge does not depend on
 * the order of the snapshots (byte-identical saves for every permutation);
 * counts and lines add up; the merged parser continues parsing; templates a
 * parser would group are folded; damaged, truncated and foreign snapshots,
 * and snapshots made with other parameters or masks, are refused with the
 * snapshot's name in the message.  With LOGTK_LOGHUB set, HDFS_2k parsed in
 * two halves and merged gives the same templates and counts as parsed whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

typedef struct snapshot {
    void *buf;
    size_t len;
} snapshot;

/* Parses lines with a fresh parser of algo (masks optional) and saves it. */
static snapshot shard(const char *algo, const char *const *lines, size_t n, const char *mask)
{
    snapshot s = {NULL, 0};
    logtk_parser *p = new_parser(algo);
    if (mask)
        CHECK_STATUS(logtk_parser_add_mask(p, mask, NULL), LOGTK_OK);
    feed_all(p, lines, n);
    CHECK_STATUS(logtk_parser_save(p, &s.buf, &s.len), LOGTK_OK);
    logtk_parser_free(p);
    return s;
}

static snapshot save_of(logtk_parser *p)
{
    snapshot s = {NULL, 0};
    CHECK_STATUS(logtk_parser_save(p, &s.buf, &s.len), LOGTK_OK);
    return s;
}

/* Merges snapshots given as an index order; returns the merged parser (or NULL). */
static logtk_parser *merge_in_order(const snapshot *s, const size_t *order, size_t n)
{
    const void *bufs[8];
    size_t lens[8];
    for (size_t i = 0; i < n; i++) {
        bufs[i] = s[order[i]].buf;
        lens[i] = s[order[i]].len;
    }
    logtk_parser *m = NULL;
    int rc = logtk_parser_merge(&m, n, bufs, lens, NULL);
    if (rc != LOGTK_OK) {
        fprintf(stderr, "merge: %s\n", m ? logtk_parser_errmsg(m) : logtk_strerror(rc));
        CHECK_STATUS(rc, LOGTK_OK);
        logtk_parser_free(m);
        return NULL;
    }
    return m;
}

/* The template id whose text is `text`, 0 when none. */
static uint32_t find_template(logtk_parser *p, const char *text)
{
    for (uint32_t id = 1; id <= logtk_parser_template_count(p); id++) {
        logtk_slice t;
        if (logtk_parser_template(p, id, &t, NULL) == LOGTK_OK && t.len == strlen(text) &&
            memcmp(t.ptr, text, t.len) == 0)
            return id;
    }
    return 0;
}

/* Lines of every template with this text (an online parser may keep merged ids). */
static uint64_t lines_of(logtk_parser *p, const char *text)
{
    uint64_t total = 0;
    for (uint32_t id = 1; id <= logtk_parser_template_count(p); id++) {
        logtk_slice t;
        uint64_t count;
        if (logtk_parser_template(p, id, &t, &count) == LOGTK_OK && t.len == strlen(text) &&
            memcmp(t.ptr, text, t.len) == 0)
            total += count;
    }
    return total;
}

TEST(test_default_is_fuse)
{
    logtk_parser *p = new_parser(NULL);
    CHECK(strcmp(logtk_parser_algorithm(p), "fuse") == 0);
    logtk_parser_free(p);
    p = new_parser("drain"); /* still there by name */
    CHECK(strcmp(logtk_parser_algorithm(p), "drain") == 0);
    logtk_parser_free(p);
}

TEST(test_template_key)
{
    /* FNV-1a 64 from its definition: h = 0xcbf29ce484222325; per byte
       h ^= byte; h *= 0x100000001b3 (mod 2^64).  The empty text is the basis. */
    static const char *const one[] = {"disk full", "user 1 logged in", "user 2 logged in"};
    static const char *const two[] = {"user 7 logged in", "user 8 logged in", "disk full"};
    logtk_parser *a = new_parser("drain");
    logtk_parser *b = new_parser("drain");
    feed_all(a, one, 3);
    feed_all(b, two, 3);
    uint64_t ka = 0, kb = 0, kd = 0;
    uint32_t ua = find_template(a, "user <*> logged in"), ub = find_template(b, "user <*> logged in");
    CHECK(ua == 2 && ub == 1); /* different ids ... */
    CHECK_STATUS(logtk_parser_template_key(a, ua, &ka), LOGTK_OK);
    CHECK_STATUS(logtk_parser_template_key(b, ub, &kb), LOGTK_OK);
    CHECK(ka == kb); /* ... same key */
    CHECK(ka == 0x583bd0187fb2bab3ULL);
    CHECK_STATUS(logtk_parser_template_key(a, find_template(a, "disk full"), &kd), LOGTK_OK);
    CHECK(kd == 0x46ab161881a7d411ULL);
    CHECK(kd != ka);
    CHECK_STATUS(logtk_parser_template_key(a, 99, &kd), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_template_key(a, 0, &kd), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(a);
    logtk_parser_free(b);
}

/* Three shards; every permutation saves the same bytes; counts and lines add up. */
static void check_order_independent(const char *algo)
{
    static const char *const a[] = {"user 1 logged in", "disk full on /dev/sda1",
                                    "user 2 logged in", "fan 3 failed"};
    static const char *const b[] = {"user 3 logged in", "connection from 10.0.0.1 closed",
                                    "disk full on /dev/sdb2"};
    static const char *const c[] = {"user 4 logged in", "connection from 10.0.0.9 closed",
                                    "power supply lost", "fan 3 failed", "fan 4 failed"};
    snapshot s[3] = {shard(algo, a, 4, NULL), shard(algo, b, 3, NULL), shard(algo, c, 5, NULL)};
    static const size_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    snapshot first = {NULL, 0};
    for (size_t k = 0; k < 6; k++) {
        logtk_parser *m = merge_in_order(s, perms[k], 3);
        if (m == NULL)
            continue;
        CHECK(strcmp(logtk_parser_algorithm(m), algo) == 0);
        CHECK(logtk_parser_line_count(m) == 12);
        snapshot out = save_of(m);
        if (k == 0) {
            first = out;
            /* the same template in every shard: counted once, lines summed */
            CHECK(lines_of(m, "user <*> logged in") == 4);
            CHECK(lines_of(m, "connection from <*> closed") == 2);
            CHECK(lines_of(m, "power supply lost") == 1);
            /* "disk full on /dev/sda1" and ".../sdb2" came from different
               shards; the fold lets the parser group them */
            CHECK(lines_of(m, "disk full on <*>") == 2);
            uint64_t total = 0;
            for (uint32_t id = 1; id <= logtk_parser_template_count(m); id++) {
                uint64_t count;
                CHECK_STATUS(logtk_parser_template(m, id, NULL, &count), LOGTK_OK);
                total += count;
            }
            CHECK(total == 12);
        } else {
            CHECK(out.len == first.len && memcmp(out.buf, first.buf, out.len) == 0);
            logtk_free(out.buf);
        }
        if (k == 5) {
            /* the merged parser continues: line index 12 is the next line */
            logtk_event ev;
            CHECK_STATUS(logtk_parser_feed(m, "user 9 logged in", 16, &ev), LOGTK_OK);
            CHECK(ev.template_id == find_template(m, "user <*> logged in"));
            CHECK(ev.nparams == 1 && ev.params[0].len == 1 && ev.params[0].ptr[0] == '9');
            CHECK(logtk_parser_line_count(m) == 13);
            uint32_t id = 0;
            CHECK_STATUS(logtk_parser_finish(m), LOGTK_OK);
            CHECK_STATUS(logtk_parser_assignment(m, 12, &id), LOGTK_OK);
            CHECK(id == ev.template_id);
        }
        logtk_parser_free(m);
    }
    /* the merged snapshot loads into a parser of that algorithm, and merges again */
    logtk_parser *p = new_parser(algo);
    CHECK_STATUS(logtk_parser_load(p, first.buf, first.len), LOGTK_OK);
    CHECK(logtk_parser_line_count(p) == 12);
    logtk_parser_free(p);
    const char *name = NULL;
    CHECK_STATUS(logtk_parser_snapshot_algorithm(first.buf, first.len, &name), LOGTK_OK);
    CHECK(name && strcmp(name, algo) == 0);
    snapshot again[2] = {first, s[0]};
    static const size_t both[2] = {0, 1};
    logtk_parser *m2 = merge_in_order(again, both, 2);
    CHECK(m2 && logtk_parser_line_count(m2) == 16);
    CHECK(m2 && lines_of(m2, "user <*> logged in") == 6);
    logtk_parser_free(m2);
    logtk_free(first.buf);
    for (size_t i = 0; i < 3; i++)
        logtk_free(s[i].buf);
}

TEST(test_order_independent)
{
    check_order_independent("fuse");
    check_order_independent("drain");
}

/* A batch parser's state holds templates too; the merge works the same way. */
TEST(test_batch_parser)
{
    static const char *const a[] = {"open file a.txt", "open file b.txt", "close file a.txt"};
    static const char *const b[] = {"open file c.txt", "close file c.txt", "close file d.txt"};
    snapshot s[2] = {shard("brain", a, 3, NULL), shard("brain", b, 3, NULL)};
    static const size_t ab[2] = {0, 1}, ba[2] = {1, 0};
    logtk_parser *m1 = merge_in_order(s, ab, 2), *m2 = merge_in_order(s, ba, 2);
    if (m1 && m2) {
        snapshot x = save_of(m1), y = save_of(m2);
        CHECK(x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0);
        CHECK(logtk_parser_line_count(m1) == 6);
        uint64_t total = 0;
        for (uint32_t id = 1; id <= logtk_parser_template_count(m1); id++) {
            uint64_t count;
            CHECK_STATUS(logtk_parser_template(m1, id, NULL, &count), LOGTK_OK);
            total += count;
        }
        CHECK(total == 6);
        logtk_free(x.buf);
        logtk_free(y.buf);
    }
    logtk_parser_free(m1);
    logtk_parser_free(m2);
    logtk_free(s[0].buf);
    logtk_free(s[1].buf);
}

/*
 * A unit slot that varied in one shard only ("93.0 B" beside "5.2 KB" made
 * it "<*> <*>,") and stayed "KB," in another: one process sees both units
 * and gives one template, so the merge must too (the fold meets "KB," and
 * the slot's variable form "<*>,", never two units).  Both orders.
 */
TEST(test_fuse_unit_slot_varied_in_one_shard)
{
    static const char *const kb_only[] = {
        "Block rdd_1 stored as bytes in memory (estimated size 4.2 KB, free 8.4 KB)",
        "Block rdd_2 stored as bytes in memory (estimated size 5.2 KB, free 9.4 KB)",
        "Block rdd_3 stored as bytes in memory (estimated size 6.2 KB, free 10.4 KB)"};
    static const char *const both[] = {
        "Block rdd_7 stored as bytes in memory (estimated size 93.0 B, free 317.1 KB)",
        "Block rdd_8 stored as bytes in memory (estimated size 5.0 KB, free 317.1 KB)"};
    static const char general[] =
        "Block <*> stored as bytes in memory (estimated size <*> <*>, free <*> KB)";
    static const char specific[] =
        "Block <*> stored as bytes in memory (estimated size <*> KB, free <*> KB)";
    snapshot s[2] = {shard("fuse", kb_only, 3, NULL), shard("fuse", both, 2, NULL)};
    static const size_t ab[2] = {0, 1}, ba[2] = {1, 0};
    const size_t *orders[2] = {ab, ba};
    for (int k = 0; k < 2; k++) {
        logtk_parser *m = merge_in_order(s, orders[k], 2);
        if (m == NULL)
            continue;
        CHECK(lines_of(m, general) == 5); /* every line, as one process gives it */
        CHECK(find_template(m, specific) == 0);
        logtk_parser_free(m);
    }
    /* what one process gives the same lines */
    logtk_parser *one = new_parser("fuse");
    feed_all(one, kb_only, 3);
    feed_all(one, both, 2);
    CHECK(lines_of(one, general) == 5 && find_template(one, specific) == 0);
    logtk_parser_free(one);
    logtk_free(s[0].buf);
    logtk_free(s[1].buf);
}

/*
 * A shard's templates open with their header made one "<*>".  Fed to the
 * fold as lines, that "<*>" must be read as the header again: read as a
 * word, it put the message's first word (the event: configure, trigproc,
 * remove, status) in a prefix pool after it, and the pool made the first
 * word a variable, merging messages one process keeps apart.
 */
TEST(test_fuse_header_in_shards)
{
    static const char *const events[] = {"configure", "trigproc", "remove"};
    static const char *const packages[] = {"libfoo", "libbar", "zlib", "perl"};
    char lines[4][4][96];
    const char *shards[4][4];
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 4; k++) {
            if (e < 3)
                snprintf(lines[e][k], sizeof lines[e][k],
                         "2026-12-04 13:14:2%d %s %s:amd64 1.%d-1 <none>", k, events[e],
                         packages[k], k);
            else
                snprintf(lines[e][k], sizeof lines[e][k],
                         "2026-12-04 13:14:2%d status not-installed %s:amd64 <none>", k,
                         packages[k]);
            shards[e][k] = lines[e][k];
        }
    snapshot s[4];
    logtk_parser *one = new_parser("fuse");
    for (int e = 0; e < 4; e++) {
        s[e] = shard("fuse", shards[e], 4, NULL);
        feed_all(one, shards[e], 4);
    }
    static const size_t order[4] = {0, 1, 2, 3};
    logtk_parser *m = merge_in_order(s, order, 4);
    static const char *const texts[] = {
        "<*> configure <*> <*> <none>", "<*> trigproc <*> <*> <none>",
        "<*> remove <*> <*> <none>", "<*> status not-installed <*> <none>"};
    for (int e = 0; m && e < 4; e++) {
        CHECK(lines_of(one, texts[e]) == 4);
        CHECK(lines_of(m, texts[e]) == 4);
    }
    logtk_parser_free(m);
    logtk_parser_free(one);
    for (int e = 0; e < 4; e++)
        logtk_free(s[e].buf);
}

/* Expects a refusal whose message contains `needle`. */
static void expect_refused(const void *const *bufs, const size_t *lens, size_t n,
                           const char *const *names, int code, const char *needle)
{
    logtk_parser *m = NULL;
    int rc = logtk_parser_merge(&m, n, bufs, lens, names);
    CHECK_STATUS(rc, code);
    CHECK(m != NULL);
    if (m) {
        const char *msg = logtk_parser_errmsg(m);
        if (strstr(msg, needle) == NULL)
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", msg, needle);
        CHECK(strstr(msg, needle) != NULL);
    }
    logtk_parser_free(m);
}

TEST(test_refusals)
{
    static const char *const lines[] = {"user 1 logged in", "user 2 logged in", "disk full"};
    snapshot fuse = shard("fuse", lines, 3, NULL);
    snapshot drain = shard("drain", lines, 3, NULL);
    snapshot masked = shard("fuse", lines, 3, "disk");
    logtk_parser *t3p = new_parser("fuse");
    CHECK_STATUS(logtk_parser_set_option(t3p, "threshold", "3"), LOGTK_OK);
    feed_all(t3p, lines, 3);
    snapshot t3 = save_of(t3p);
    logtk_parser_free(t3p);
    const char *names[2] = {"a.state", "b.state"};

    const void *bufs[2] = {fuse.buf, drain.buf};
    size_t lens[2] = {fuse.len, drain.len};
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: state of parser \"drain\"");
    bufs[1] = t3.buf, lens[1] = t3.len;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: parameter threshold=3");
    bufs[1] = masked.buf, lens[1] = masked.len;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: 1 masks");

    /* damaged: one byte changed, in the middle and in the checksum */
    unsigned char *bad = malloc(fuse.len);
    memcpy(bad, fuse.buf, fuse.len);
    bad[fuse.len / 2] ^= 0x20;
    bufs[1] = bad, lens[1] = fuse.len;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: parser snapshot is damaged");
    bad[fuse.len / 2] ^= 0x20;
    bad[fuse.len - 1] ^= 1;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: parser snapshot is damaged");
    /* truncated, empty, and not a snapshot at all */
    bufs[1] = fuse.buf, lens[1] = fuse.len - 9;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state:");
    lens[1] = 0;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: not a logtk parser snapshot");
    bufs[1] = "user 1 logged in\n", lens[1] = 17;
    expect_refused(bufs, lens, 2, names, LOGTK_ERR_STATE, "b.state: not a logtk parser snapshot");
    /* unnamed snapshots are numbered */
    expect_refused(bufs, lens, 2, NULL, LOGTK_ERR_STATE, "snapshot 2: not a logtk parser");
    /* nothing to merge */
    expect_refused(bufs, lens, 0, NULL, LOGTK_ERR_INVALID, "no parser snapshots");
    const char *algo = "x";
    CHECK_STATUS(logtk_parser_snapshot_algorithm("nope", 4, &algo), LOGTK_ERR_STATE);
    CHECK(algo == NULL);

    /* the same parameters set in another order are the same setup */
    logtk_parser *p1 = new_parser("drain"), *p2 = new_parser("drain");
    CHECK_STATUS(logtk_parser_set_option(p1, "st", "0.5"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p1, "depth", "5"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p2, "depth", "5"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p2, "st", "0.5"), LOGTK_OK);
    feed_all(p1, lines, 2);
    feed_all(p2, lines + 2, 1);
    snapshot s[2] = {save_of(p1), save_of(p2)};
    static const size_t ab[2] = {0, 1}, ba[2] = {1, 0};
    logtk_parser *m1 = merge_in_order(s, ab, 2), *m2 = merge_in_order(s, ba, 2);
    if (m1 && m2) {
        snapshot x = save_of(m1), y = save_of(m2);
        CHECK(x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0);
        logtk_free(x.buf);
        logtk_free(y.buf);
    }
    logtk_parser_free(m1);
    logtk_parser_free(m2);
    logtk_parser_free(p1);
    logtk_parser_free(p2);
    logtk_free(s[0].buf);
    logtk_free(s[1].buf);
    free(bad);
    logtk_free(fuse.buf);
    logtk_free(drain.buf);
    logtk_free(masked.buf);
    logtk_free(t3.buf);
}

/* HDFS_2k in two halves, merged, against the whole log: same texts, same counts. */
static void check_hdfs_halves(const char *dir, const char *algo)
{
    const logtk_dataset *ds = logtk_dataset_find("HDFS");
    char path[4096];
    snprintf(path, sizeof path, "%s/HDFS/HDFS_2k.log", dir);
    logtk_format *f = NULL;
    logtk_reader *r = NULL;
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, logtk_dataset_format(ds)), LOGTK_OK);
    CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
    if (logtk_reader_open_path(r, path) != LOGTK_OK) {
        CHECK(!"HDFS_2k.log readable");
        logtk_reader_free(r);
        logtk_format_free(f);
        return;
    }
    logtk_parser *whole = new_parser(algo), *half[2] = {new_parser(algo), new_parser(algo)};
    CHECK_STATUS(logtk_dataset_configure(ds, whole), LOGTK_OK);
    CHECK_STATUS(logtk_dataset_configure(ds, half[0]), LOGTK_OK);
    CHECK_STATUS(logtk_dataset_configure(ds, half[1]), LOGTK_OK);
    logtk_line line;
    logtk_record rec;
    uint64_t n = 0;
    while (logtk_reader_next(r, &line) == LOGTK_OK) {
        logtk_format_match(f, line.data, line.len, &rec);
        CHECK_STATUS(logtk_parser_feed(whole, rec.content.ptr, rec.content.len, NULL), LOGTK_OK);
        CHECK_STATUS(logtk_parser_feed(half[n < 1000 ? 0 : 1], rec.content.ptr, rec.content.len,
                                       NULL),
                     LOGTK_OK);
        n++;
    }
    CHECK(n == 2000);
    CHECK_STATUS(logtk_parser_finish(whole), LOGTK_OK);
    snapshot s[2];
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(logtk_parser_finish(half[i]), LOGTK_OK);
        s[i] = save_of(half[i]);
    }
    static const size_t ab[2] = {0, 1};
    logtk_parser *m = merge_in_order(s, ab, 2);
    if (m) {
        CHECK(logtk_parser_line_count(m) == 2000);
        /* every text of the whole run is in the merge with the same lines, and back */
        size_t texts = 0, same = 0;
        logtk_parser *sides[2] = {whole, m};
        for (int side = 0; side < 2; side++) {
            logtk_parser *p = sides[side], *other = sides[1 - side];
            for (uint32_t id = 1; id <= logtk_parser_template_count(p); id++) {
                logtk_slice t;
                CHECK_STATUS(logtk_parser_template(p, id, &t, NULL), LOGTK_OK);
                char text[4096];
                snprintf(text, sizeof text, "%.*s", (int)t.len, t.ptr);
                texts++;
                same += lines_of(p, text) == lines_of(other, text);
            }
        }
        fprintf(stderr, "%s: HDFS_2k halves merged: %zu of %zu template texts agree with the "
                        "whole run (text and lines)\n", algo, same, texts);
        CHECK(texts > 0 && same == texts);
        logtk_parser_free(m);
    }
    logtk_free(s[0].buf);
    logtk_free(s[1].buf);
    logtk_parser_free(whole);
    logtk_parser_free(half[0]);
    logtk_parser_free(half[1]);
    logtk_reader_free(r);
    logtk_format_free(f);
}

TEST(test_hdfs_halves)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (dir == NULL || dir[0] == '\0') {
        printf("skipped: LOGTK_LOGHUB not set (HDFS_2k halves merged vs whole)\n");
        return;
    }
    check_hdfs_halves(dir, "fuse");
    check_hdfs_halves(dir, "drain");
}
