/* test_parser_drain.c - the parser layer (registry, parameters, masks) and Drain on small hand-made inputs. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "hashtab.h"
#include "saved_frame.h"
#include "logtk.h"
#include "test_harness.h"

static logtk_parser *new_drain(const char *st, const char *depth)
{
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
    if (st)
        CHECK_STATUS(logtk_parser_set_option(p, "st", st), LOGTK_OK);
    if (depth)
        CHECK_STATUS(logtk_parser_set_option(p, "depth", depth), LOGTK_OK);
    return p;
}

static uint32_t feed(logtk_parser *p, const char *s, logtk_event *ev)
{
    logtk_event local;
    if (ev == NULL)
        ev = &local;
    int rc = logtk_parser_feed(p, s, strlen(s), ev);
    CHECK(rc == LOGTK_OK);
    return ev->template_id;
}

static int template_is(logtk_parser *p, uint32_t id, const char *want)
{
    logtk_slice t;
    if (logtk_parser_template(p, id, &t, NULL) != LOGTK_OK)
        return 0;
    if (t.len != strlen(want) || memcmp(t.ptr, want, t.len) != 0) {
        fprintf(stderr, "template %u is \"%.*s\", expected \"%s\"\n", (unsigned)id, (int)t.len,
                t.ptr, want);
        return 0;
    }
    return 1;
}

TEST(test_registry_and_params)
{
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "no-such-parser"), LOGTK_ERR_NOT_FOUND);
    CHECK(p == NULL);
    int found = 0;
    for (size_t i = 0; logtk_parser_algorithm_name(i); i++)
        if (strcmp(logtk_parser_algorithm_name(i), "drain") == 0)
            found = logtk_parser_algorithm_summary(i) != NULL;
    CHECK(found);
    CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
    CHECK(strcmp(logtk_parser_algorithm(p), "drain") == 0);
    CHECK_STATUS(logtk_parser_set_option(p, "st", "1.5"), LOGTK_ERR_INVALID);
    CHECK(strstr(logtk_parser_errmsg(p), "st") != NULL);
    CHECK_STATUS(logtk_parser_set_option(p, "st", "abc"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "depth", "2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "max_children", "x"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "tau", "0.5"), LOGTK_ERR_NOT_FOUND);
    CHECK(strstr(logtk_parser_errmsg(p), "tau") != NULL);
    CHECK_STATUS(logtk_parser_set_option(p, "keep_assignments", "2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_add_mask(p, "([", NULL), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_parser_errmsg(p), "([") != NULL);
    CHECK_STATUS(logtk_parser_set_option(p, "depth", "5"), LOGTK_OK);
    feed(p, "a b c d", NULL);
    CHECK_STATUS(logtk_parser_set_option(p, "st", "0.3"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_add_mask(p, "\\d", NULL), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    logtk_parser_free(NULL);
}

TEST(test_clusters)
{
    logtk_parser *p = new_drain("0.5", "4");
    logtk_event ev;
    uint32_t a = feed(p, "Received block 1 of size 10 from host", &ev);
    CHECK(a == 1 && ev.created == 1 && ev.changed == 0);
    CHECK(template_is(p, a, "Received block 1 of size 10 from host"));
    uint32_t b = feed(p, "Received block 2 of size 20 from host", &ev);
    CHECK(b == a && ev.created == 0 && ev.changed == 1);
    CHECK(template_is(p, a, "Received block <*> of size <*> from host"));
    feed(p, "Received block 3 of size 30 from host", &ev);
    CHECK(ev.template_id == a && ev.changed == 0 && ev.created == 0);
    /* another length: another cluster */
    uint32_t c = feed(p, "Received block 4 of size 40 from host now", NULL);
    CHECK(c == 2);
    /* same length and first token, too different (sim < st) */
    uint32_t d = feed(p, "Received x y z w v u t", NULL);
    CHECK(d == 3);
    /* similarity exactly st joins: 4 of 8 equal */
    uint32_t e = feed(p, "Received x y z A B C D", NULL);
    CHECK(e == d);
    CHECK(template_is(p, d, "Received x y z <*> <*> <*> <*>"));
    /* a leading token with a digit goes to the "<*>" child, so these meet */
    uint32_t f = feed(p, "user42 logged in", NULL);
    uint32_t g = feed(p, "user43 logged in", NULL);
    CHECK(f == g);
    CHECK(template_is(p, f, "<*> logged in"));
    /* a digit-free unknown leading token also searches the "<*>" child... */
    uint32_t h = feed(p, "alice logged in", NULL);
    CHECK(h == f);
    /* ...but a new cluster is inserted under its own token, which then wins */
    uint32_t i1 = feed(p, "alice logged out", NULL);
    CHECK(i1 != f);
    uint32_t i2 = feed(p, "alice logged in", NULL);
    CHECK(i2 == i1);
    CHECK(template_is(p, i1, "alice logged <*>"));
    CHECK(logtk_parser_template_count(p) == 5);
    uint64_t count;
    CHECK_STATUS(logtk_parser_template(p, a, NULL, &count), LOGTK_OK);
    CHECK(count == 3);
    CHECK_STATUS(logtk_parser_template(p, 99, NULL, NULL), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    CHECK(logtk_parser_line_count(p) == 11);
    uint32_t id;
    CHECK_STATUS(logtk_parser_assignment(p, 1, &id), LOGTK_OK);
    CHECK(id == a);
    CHECK_STATUS(logtk_parser_assignment(p, 7, &id), LOGTK_OK);
    CHECK(id == g);
    CHECK_STATUS(logtk_parser_assignment(p, 11, &id), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);
}

TEST(test_tie_breaks_and_short_messages)
{
    logtk_parser *p = new_drain("0.4", "4");
    /* two clusters in one leaf; the line is equally similar to both, the one
       with more "<*>" wins */
    uint32_t a = feed(p, "op alpha beta gamma delta", NULL);
    feed(p, "op alpha beta XX YY", NULL); /* -> op alpha beta <*> <*> */
    uint32_t b = feed(p, "op one two three four", NULL);
    CHECK(b != a);
    CHECK(template_is(p, a, "op alpha beta <*> <*>"));
    uint32_t c = feed(p, "op alpha two three ZZ", NULL); /* 2/5 vs a(with 2 <*>), 3/5 vs b */
    CHECK(c == b);
    logtk_parser_free(p);

    /* depth 5: messages with fewer than 3 tokens are never merged, only
       identical ones share a template */
    p = new_drain("0.1", "5");
    uint32_t s1 = feed(p, "hello 1", NULL);
    uint32_t s2 = feed(p, "hello 2", NULL);
    uint32_t s3 = feed(p, "hello 1", NULL);
    uint32_t e1 = feed(p, "", NULL);
    uint32_t e2 = feed(p, "   ", NULL);
    CHECK(s1 != s2 && s1 == s3 && e1 == e2 && e1 != s1);
    CHECK(template_is(p, s2, "hello 2"));
    CHECK(template_is(p, e1, ""));
    logtk_parser_free(p);
}

TEST(test_max_children)
{
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "max_children", "3"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "st", "0.3"), LOGTK_OK);
    /* two named children fit, the third slot becomes "<*>" and collects the rest */
    uint32_t a = feed(p, "aa x y", NULL);
    uint32_t b = feed(p, "bb x y", NULL);
    uint32_t c = feed(p, "cc x y", NULL);
    uint32_t d = feed(p, "dd x y", NULL);
    CHECK(a != b && b != c && c == d);
    CHECK(template_is(p, c, "<*> x y"));
    logtk_parser_free(p);
}

TEST(test_params)
{
    logtk_parser *p = new_drain("0.5", "4");
    CHECK_STATUS(logtk_parser_add_mask(p, "blk_-?\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "(\\d+\\.){3}\\d+(:\\d+)?", NULL), LOGTK_OK);
    logtk_event ev;
    feed(p, "Deleting blk_-123 file /a/b from 10.0.0.1:50010", &ev);
    CHECK(ev.nparams == 2);
    if (ev.nparams == 2) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "blk_-123");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "10.0.0.1:50010");
    }
    const char *line = "Deleting blk_456 file /c/d from 10.0.0.2:1";
    CHECK_STATUS(logtk_parser_feed(p, line, strlen(line), &ev), LOGTK_OK);
    CHECK(template_is(p, ev.template_id, "Deleting <*> file <*> from <*>"));
    CHECK(ev.nparams == 3);
    if (ev.nparams == 3) {
        CHECK(ev.params[0].ptr == line + 9); /* slices of the content fed */
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "blk_456");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "/c/d");
        CHECK_BYTES(ev.params[2].ptr, ev.params[2].len, "10.0.0.2:1");
    }
    /* extraction against a template of another length: "<*>" covers several tokens */
    const char *longer = "Deleting blk_7 file my file.txt from 10.0.0.3";
    CHECK_STATUS(logtk_parser_extract(p, 1, longer, strlen(longer), &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.nparams == 3);
    if (ev.nparams == 3) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "blk_7");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "my file.txt");
        CHECK_BYTES(ev.params[2].ptr, ev.params[2].len, "10.0.0.3");
    }
    CHECK_STATUS(logtk_parser_extract(p, 42, longer, strlen(longer), &ev), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);

    /* a mask inside a token: the template keeps "size=<*>", the parameter is the number */
    p = new_drain("0.5", "4");
    CHECK_STATUS(logtk_parser_add_mask(p, "\\d+", NULL), LOGTK_OK);
    feed(p, "read size=42 ms=7 done", &ev);
    CHECK(template_is(p, ev.template_id, "read size=<*> ms=<*> done"));
    CHECK(ev.nparams == 2);
    if (ev.nparams == 2) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "42");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "7");
    }
    feed(p, "read size=9 ms=10 fail", &ev);
    CHECK(template_is(p, ev.template_id, "read size=<*> ms=<*> <*>"));
    CHECK(ev.nparams == 3);
    if (ev.nparams == 3) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "9");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "10");
        CHECK_BYTES(ev.params[2].ptr, ev.params[2].len, "fail");
    }
    logtk_parser_free(p);
}

/* A snapshot whose tree puts a template under the length node of another
 * token count must be refused: feeding would compare the template's tokens
 * with line tokens that do not exist (a read past the line's token array). */
TEST(test_snapshot_length_mismatch)
{
    static const unsigned char blob[] = {
        3,                /* nodes: root placeholder + 2 */
        0, 3, 0,          /* node 1: length node for 3 tokens, no clusters */
        2, 1, 'a', 1, 1,  /* node 2: child "a" of node 1, cluster: template 1 */
        0,                /* no short templates */
    };
    unsigned char snap[256];
    size_t n = 0;
    memcpy(snap, "LTKPSNAP", 8);
    n = 8;
    snap[n++] = 1; /* version */
    snap[n++] = 5;
    memcpy(snap + n, "drain", 5);
    n += 5;
    snap[n++] = 0; /* params */
    snap[n++] = 0; /* masks */
    snap[n++] = 1; /* lines */
    snap[n++] = 1; /* templates */
    snap[n++] = 1; /* line count */
    snap[n++] = 8; /* tokens: a template of 8 tokens under the length-3 node */
    for (int i = 0; i < 8; i++) {
        snap[n++] = 1;
        snap[n++] = (unsigned char)('a' + i);
    }
    snap[n++] = sizeof blob;
    memcpy(snap + n, blob, sizeof blob);
    n += sizeof blob;
    uint64_t sum = ltk_hash_bytes(snap, n);
    for (int i = 0; i < 8; i++)
        snap[n++] = (unsigned char)(sum >> (8 * i));
    logtk_parser *p;
    CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
    int rc = logtk_parser_load(p, snap, n);
    CHECK_STATUS(rc, LOGTK_ERR_STATE);
    if (rc == LOGTK_OK) {
        logtk_event ev;
        logtk_parser_feed(p, "a b c", 5, &ev);
    }
    /* the same tree with a 3-token template loads */
    size_t ntok_at = 8 + 1 + 6 + 5; /* magic, version, name, 4 counts, line count */
    snap[ntok_at] = 3;
    n = ntok_at + 1 + 3 * 2;
    snap[n++] = sizeof blob;
    memcpy(snap + n, blob, sizeof blob);
    n += sizeof blob;
    sum = ltk_hash_bytes(snap, n);
    for (int i = 0; i < 8; i++)
        snap[n++] = (unsigned char)(sum >> (8 * i));
    CHECK_STATUS(logtk_parser_load(p, snap, n), LOGTK_OK);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, "a b c", 5, &ev), LOGTK_OK);
    CHECK(ev.template_id == 1);
    logtk_parser_free(p);
}

/* Extraction against a template of another length must stay linear in the
 * line's token count: a long hostile line used to cost m * n * n steps. */
TEST(test_extract_long_line)
{
    logtk_parser *p = new_drain("0.5", "4");
    CHECK_STATUS(logtk_parser_add_mask(p, "t\\d+", NULL), LOGTK_OK);
    logtk_event ev;
    feed(p, "t1 t2 t3 t4 t5 t6 t7 t8 end", &ev);
    CHECK(template_is(p, ev.template_id, "<*> <*> <*> <*> <*> <*> <*> <*> end"));
    enum { NTOK = 100000 };
    char *line = malloc(NTOK * 3 + 8);
    CHECK(line != NULL);
    if (line == NULL) {
        logtk_parser_free(p);
        return;
    }
    for (size_t i = 0; i < NTOK; i++)
        memcpy(line + 3 * i, "t1 ", 3);
    size_t len = NTOK * 3 - 1; /* no "end": the line does not match */
    clock_t t0 = clock();
    CHECK_STATUS(logtk_parser_extract(p, ev.template_id, line, len, &ev), LOGTK_ERR_NOT_FOUND);
    CHECK(ev.nparams == 0);
    memcpy(line + len, " end", 4); /* now it fits */
    len += 4;
    CHECK_STATUS(logtk_parser_extract(p, 1, line, len, &ev), LOGTK_OK);
    CHECK(ev.nparams == 8);
    if (ev.nparams == 8) {
        /* the tokens pair as when the line is fed: the first "<*>" of a run
           takes the extra ones (as fuse's header does), the others one each */
        CHECK(ev.params[0].ptr == line);
        CHECK(ev.params[0].len == 3 * (NTOK - 7) - 1);
        CHECK(ev.params[7].ptr == line + 3 * (NTOK - 1));
        CHECK_BYTES(ev.params[7].ptr, ev.params[7].len, "t1");
    }
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(seconds < 5.0); /* linear: milliseconds; quadratic: minutes */
    free(line);
    logtk_parser_free(p);
}

typedef struct callback_log {
    int created, changed;
    char last[256];
    uint32_t last_id;
} callback_log;

static void on_template(void *user, int kind, uint32_t id, const char *text, size_t len)
{
    callback_log *log = user;
    if (kind == LOGTK_TEMPLATE_CREATED)
        log->created++;
    else if (kind == LOGTK_TEMPLATE_CHANGED)
        log->changed++;
    log->last_id = id;
    snprintf(log->last, sizeof log->last, "%.*s", (int)len, text);
}

TEST(test_callbacks_and_streaming)
{
    logtk_parser *p = new_drain("0.5", "4");
    callback_log log = {0};
    CHECK_STATUS(logtk_parser_set_callback(p, on_template, &log), LOGTK_OK);
    feed(p, "job 1 started on node a", NULL);
    CHECK(log.created == 1 && log.changed == 0);
    CHECK(strcmp(log.last, "job 1 started on node a") == 0);
    feed(p, "job 2 started on node b", NULL); /* two positions change: one event */
    CHECK(log.created == 1 && log.changed == 1);
    CHECK(strcmp(log.last, "job <*> started on node <*>") == 0 && log.last_id == 1);
    feed(p, "job 3 started on node c", NULL); /* no change: no event */
    CHECK(log.changed == 1);
    CHECK_STATUS(logtk_parser_set_callback(p, NULL, NULL), LOGTK_OK);
    feed(p, "something else entirely here", NULL);
    CHECK(log.created == 1);
    logtk_parser_free(p);

    p = new_drain(NULL, NULL);
    CHECK_STATUS(logtk_parser_set_option(p, "keep_assignments", "0"), LOGTK_OK);
    for (int i = 0; i < 1000; i++) {
        char line[64];
        snprintf(line, sizeof line, "event %d at %d", i, i * 7);
        feed(p, line, NULL);
    }
    uint32_t id;
    CHECK_STATUS(logtk_parser_assignment(p, 3, &id), LOGTK_ERR_UNSUPPORTED);
    CHECK(logtk_parser_template_count(p) == 1);
    uint64_t count;
    CHECK_STATUS(logtk_parser_template(p, 1, NULL, &count), LOGTK_OK);
    CHECK(count == 1000);
    logtk_parser_free(p);
}

/* A small synthetic corpus: several templates with varying values. */
static void corpus_line(char *buf, size_t n, int i)
{
    switch (i % 5) {
    case 0: snprintf(buf, n, "Received block blk_%d of size %d from /10.0.%d.%d", i * 31, i * 7 % 900, i % 7, i % 11); break;
    case 1: snprintf(buf, n, "PacketResponder %d for block blk_%d terminating", i % 3, i); break;
    case 2: snprintf(buf, n, "user%d logged in from host%d", i % 13, i % 4); break;
    case 3: snprintf(buf, n, "%s", i % 2 ? "ok" : "fail"); break;
    default: snprintf(buf, n, "Verification succeeded for blk_%d step %c", i, 'a' + i % 26); break;
    }
}

TEST(test_snapshot)
{
    logtk_parser *p1 = new_drain("0.5", "5");
    CHECK_STATUS(logtk_parser_add_mask(p1, "blk_-?\\d+", NULL), LOGTK_OK);
    char line[256];
    for (int i = 0; i < 300; i++) {
        corpus_line(line, sizeof line, i);
        feed(p1, line, NULL);
    }
    void *snap = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_parser_save(p1, &snap, &len), LOGTK_OK);
    CHECK(snap != NULL && len > 16);

    logtk_parser *p2 = NULL;
    CHECK_STATUS(logtk_parser_new(&p2, "drain"), LOGTK_OK);
    callback_log log = {0};
    logtk_parser_set_callback(p2, on_template, &log);
    CHECK_STATUS(logtk_parser_load(p2, snap, len), LOGTK_OK);
    CHECK(logtk_parser_template_count(p2) == logtk_parser_template_count(p1));
    CHECK(logtk_parser_line_count(p2) == 300);
    CHECK(log.created == 0); /* loading is not creating */
    for (uint32_t id = 1; id <= logtk_parser_template_count(p1); id++) {
        logtk_slice a, b;
        uint64_t ca, cb;
        CHECK_STATUS(logtk_parser_template(p1, id, &a, &ca), LOGTK_OK);
        CHECK_STATUS(logtk_parser_template(p2, id, &b, &cb), LOGTK_OK);
        CHECK(a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0 && ca == cb);
    }
    /* masks and params came along: both continue identically */
    int same = 1;
    for (int i = 300; i < 700; i++) {
        corpus_line(line, sizeof line, i * 3 + 1);
        logtk_event e1, e2;
        logtk_parser_feed(p1, line, strlen(line), &e1);
        logtk_parser_feed(p2, line, strlen(line), &e2);
        if (e1.template_id != e2.template_id || e1.nparams != e2.nparams)
            same = 0;
    }
    CHECK(same);
    CHECK(logtk_parser_template_count(p1) == logtk_parser_template_count(p2));
    uint32_t id;
    CHECK_STATUS(logtk_parser_assignment(p2, 299, &id), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_assignment(p2, 300, &id), LOGTK_OK);
    void *snap2 = NULL, *snap1b = NULL;
    size_t len2, len1b;
    CHECK_STATUS(logtk_parser_save(p2, &snap2, &len2), LOGTK_OK);
    CHECK_STATUS(logtk_parser_save(p1, &snap1b, &len1b), LOGTK_OK);
    CHECK(len2 == len1b && memcmp(snap2, snap1b, len2) == 0);
    logtk_free(snap2);
    logtk_free(snap1b);

    /* damaged snapshots are refused and leave the parser as it was */
    uint32_t before = logtk_parser_template_count(p2);
    unsigned char *bad = malloc(len);
    int refused = 1;
    for (size_t i = 0; i < len; i++) {
        memcpy(bad, snap, len);
        bad[i] ^= 0x20;
        if (logtk_parser_load(p2, bad, len) != LOGTK_ERR_STATE)
            refused = 0;
    }
    CHECK(refused);
    for (size_t cut = 0; cut < len; cut += 7)
        if (logtk_parser_load(p2, snap, cut) != LOGTK_ERR_STATE)
            refused = 0;
    CHECK(refused);
    CHECK(logtk_parser_template_count(p2) == before);
    CHECK(strstr(logtk_parser_errmsg(p2), "snapshot") != NULL);

    /* a newer version and another algorithm, with a valid checksum (the
     * saved frame: u32 version after the 8-byte magic, then a u64 length,
     * the body, whose first string is the algorithm, and a u32 checksum) */
    memcpy(bad, snap, len);
    CHECK(bad[8] == 4);
    bad[8] = 5; /* newer than this build */
    ltk_le_put_u32(bad + len - 4, ltk_checksum32(bad, len - 4));
    CHECK_STATUS(logtk_parser_load(p2, bad, len), LOGTK_ERR_STATE);
    CHECK(strstr(logtk_parser_errmsg(p2), "version 5") != NULL);
    memcpy(bad, snap, len);
    CHECK(bad[20] == 5 && memcmp(bad + 21, "drain", 5) == 0);
    bad[23] = 'o'; /* "droin" */
    ltk_le_put_u32(bad + len - 4, ltk_checksum32(bad, len - 4));
    CHECK_STATUS(logtk_parser_load(p2, bad, len), LOGTK_ERR_STATE);
    CHECK(strstr(logtk_parser_errmsg(p2), "droin") != NULL);
    CHECK_STATUS(logtk_parser_load(p2, NULL, 0), LOGTK_ERR_STATE);
    free(bad);
    logtk_free(snap);
    logtk_parser_free(p1);
    logtk_parser_free(p2);
}

/* With LOGTK_LOGHUB: the HDFS sample parses into a stable, small template set. */
TEST(test_hdfs_sample)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (dir == NULL) {
        printf("skipped: LOGTK_LOGHUB not set (HDFS sample test)\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/HDFS/HDFS_2k.log", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    logtk_parser *p = new_drain("0.5", "4");
    CHECK_STATUS(logtk_parser_add_mask(p, "blk_-?\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "(\\d+\\.){3}\\d+(:\\d+)?", NULL), LOGTK_OK);
    char line[8192];
    int lines = 0, params_ok = 1;
    while (fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\n");
        /* content after "Component: " */
        char *c = strstr(line, ": ");
        const char *content = c ? c + 2 : line;
        size_t clen = n - (size_t)(content - line);
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(p, content, clen, &ev), LOGTK_OK);
        for (size_t i = 0; i < ev.nparams; i++)
            if (ev.params[i].ptr < content || ev.params[i].ptr + ev.params[i].len > content + clen)
                params_ok = 0;
        lines++;
    }
    fclose(f);
    CHECK(lines == 2000);
    CHECK(params_ok);
    /* the Loghub ground truth has 14 templates; Drain finds about that many */
    uint32_t n = logtk_parser_template_count(p);
    CHECK(n >= 14 && n <= 20);
    logtk_parser_free(p);
}
